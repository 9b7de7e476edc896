#!/usr/bin/env bash
# ctest plot_bench: scripts/plot_bench.sh on fixed fixtures (registered only
# when gnuplot and /usr/bin/python3 are found at configure time).
#
#   test_plot_bench.sh SCRIPT FIXTURE_DIR
#
# The fixtures: plot_bench_fixture.json, a clgather-bench --json document
# with one standard row, five sweep rows with status ok (slices 4, 64 and
# 4096 B with int64 indices, 4 and 4096 B with int32) and one with status
# error; plot_bench_peers.log, bench-peers RESULT lines for W1 and W5. The
# expected data below are worked out by hand from the fixtures (slice bytes =
# output_bytes / indices; ratio = peer median / clgather checked median),
# not taken from the script's output.
set -uo pipefail
script=$1
fixtures=$2
json=$fixtures/plot_bench_fixture.json
peers=$fixtures/plot_bench_peers.log
work=$(mktemp -d "${TMPDIR:-/tmp}/test_plot_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run NAME EXPECTED_STATUS ARGS...: runs the script, keeps stdout and stderr
# in $work/NAME.out / .err, checks the exit status.
run() {
  local name=$1 want=$2
  shift 2
  local got=0
  bash "$script" "$@" >"$work/$name.out" 2>"$work/$name.err" || got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$name: exit status $got, expected $want; stderr:"
    sed 's/^/  | /' "$work/$name.err" >&2
    return 1
  fi
  echo "ok: $name (exit $got)"
}

# stderr_has NAME TEXT
stderr_has() {
  grep -qF -- "$2" "$work/$1.err" || fail "$1: stderr lacks '$2'"
}

# png_ok FILE: a PNG of 1000 x 600 pixels, between 2 KiB and 100 KiB.
png_ok() {
  [ -f "$1" ] || { fail "$1 missing"; return; }
  local sig size dims
  sig=$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')
  [ "$sig" = 89504e470d0a1a0a ] || fail "$1 is not a PNG (signature $sig)"
  size=$(stat -c %s "$1")
  [ "$size" -gt 2048 ] && [ "$size" -lt 102400 ] ||
    fail "$1: $size bytes, expected 2 KiB to 100 KiB"
  # IHDR: width and height, big-endian, at bytes 16-23
  dims=$(od -An -tu1 -j16 -N8 "$1" | tr -s ' ' | sed 's/^ //')
  [ "$dims" = "0 0 3 232 0 0 2 88" ] || fail "$1: IHDR size bytes '$dims'"
}

# ---- success: both pictures and their data ----
out=$work/ok
if run both 0 --json "$json" --peers "$peers" --out "$out" \
  --keep-data "$work/data" --machine "Fixture machine"; then
  png_ok "$out/bench_sweep.png"
  png_ok "$out/bench_peers.png"
  stderr_has both "sweep row S64K (error) left out"
  stderr_has both "wrote $out/bench_sweep.png"
  # int64 block, then int32: slice bytes, kernel, copy-ref, call GB/s
  want=$'4 1.5 20 1.2\n64 8 21 7\n4096 15 22 14\n4 2.1 20 1.6\n4096 15.5 22 14'
  got=$(grep -v '^#' "$work/data/sweep.dat" | sed '/^$/d')
  [ "$got" = "$want" ] || fail "sweep.dat: got"$'\n'"$got"$'\n'"expected"$'\n'"$want"
  grep -q '^set xtics ("4 B" 4, "64 B" 64, "4 KiB" 4096)$' "$work/data/sweep.gp" ||
    fail "sweep.gp: x tics"
  grep -q 'Fixture machine' "$work/data/sweep.gp" || fail "sweep.gp: machine"
  # W1: numpy 0.004 / 0.0013, Boost 0.0026 / 0.0013, naive 0.0007 / 0.0013;
  # pyopencl unsupported. W5: numpy 2e-6 / 8.9e-5, naive 2.9e-5 / 8.9e-5,
  # ORT kernel 1e-6 / 8.9e-5.
  want=$'"W1 embedding" 3.07692 2 0.538462 NaN\n"W5 tiny" 0.0224719 NaN 0.325843 0.011236'
  got=$(sed 1d "$work/data/peers.dat")
  [ "$got" = "$want" ] || fail "peers.dat: got"$'\n'"$got"$'\n'"expected"$'\n'"$want"
  head -1 "$work/data/peers.dat" | grep -q '"numpy.take (best)" "Boost.Compute gather (best)" "naive OpenCL kernel (best)" "ONNX Runtime CPU kernel (best)"$' ||
    fail "peers.dat: header"
fi

# ---- --bench: runs the binary with --json --only sweep [--quick] ----
fake=$work/fake-bench
cat >"$fake" <<EOF
#!/usr/bin/env bash
[ "\$*" = "--json --only sweep --quick --device 0:0" ] || { echo "fake: args \$*" >&2; exit 2; }
cat "$json"
EOF
chmod +x "$fake"
if run bench 0 --bench "$fake" --quick --device 0:0 --out "$work/bench" \
  --save-json "$work/saved.json"; then
  png_ok "$work/bench/bench_sweep.png"
  cmp -s "$json" "$work/saved.json" || fail "bench: --save-json differs"
  [ ! -e "$work/bench/bench_peers.png" ] || fail "bench: peers picture without --peers"
fi
failing=$work/failing-bench
printf '#!/usr/bin/env bash\necho "device error" >&2\nexit 3\n' >"$failing"
chmod +x "$failing"
run bench_fails 3 --bench "$failing" --out "$work/bf" && stderr_has bench_fails "failed with exit status 3"

# ---- usage errors: exit 2, usage on stderr ----
run no_args 2 && stderr_has no_args "usage: plot_bench.sh"
run both_sources 2 --json "$json" --bench "$fake" && stderr_has both_sources "not both"
run unknown 2 --json "$json" --frobnicate && stderr_has unknown "unknown argument '--frobnicate'"
run missing_value 2 --json && stderr_has missing_value "--json needs a value"
run quick_without_bench 2 --json "$json" --quick
run help 0 --help && grep -q "usage: plot_bench.sh" "$work/help.out" || fail "help: no usage on stdout"

# ---- invalid input: exit 1, no picture written ----
printf '{"workloads": [' >"$work/truncated.json"
run truncated 1 --json "$work/truncated.json" --out "$work/bad1" &&
  stderr_has truncated "is not valid JSON"
printf '{"workloads": []}' >"$work/nosweep.json"
run no_sweep 1 --json "$work/nosweep.json" --out "$work/bad2" &&
  stderr_has no_sweep "no sweep row with status ok"
printf '[1, 2]' >"$work/notdoc.json"
run not_bench_json 1 --json "$work/notdoc.json" --out "$work/bad3" &&
  stderr_has not_bench_json "not a clgather-bench --json document"
run missing_file 1 --json "$work/nonexistent.json" --out "$work/bad4" &&
  stderr_has missing_file "cannot read"
grep -v '"clgather checked (cl_mem)"' "$peers" >"$work/noclg.log"
run peers_without_clgather 1 --json "$json" --peers "$work/noclg.log" \
  --out "$work/bad5" && stderr_has peers_without_clgather "has both"
printf 'RESULT {"peer": \n' >"$work/badline.log"
run peers_bad_line 1 --json "$json" --peers "$work/badline.log" \
  --out "$work/bad6" && stderr_has peers_bad_line "bad RESULT line"
for d in bad1 bad2 bad3 bad4 bad5 bad6; do
  if ls "$work/$d"/*.png >/dev/null 2>&1; then
    fail "$d: a picture was written on error"
  fi
done

# ---- a missing gnuplot: exit 3 ----
GNUPLOT=/nonexistent/gnuplot run no_gnuplot 3 --json "$json" --out "$work/bad7" &&
  stderr_has no_gnuplot "gnuplot not found"

if [ "$failures" -ne 0 ]; then
  echo "test_plot_bench: $failures failure(s)" >&2
  exit 1
fi
echo "test_plot_bench: all checks passed"
