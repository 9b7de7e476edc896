#!/usr/bin/env bash
# Build the libFuzzer harnesses of tests/fuzz/ with clang (ASan + UBSan) and
# run each for FUZZ_SECONDS (default 60), one after the other. Fails on any
# crash, leak, sanitizer report, timeout or out-of-memory, and prints the
# input as base64 and hex so it can be committed to
# tests/fuzz/regressions/<harness>/ (the normal test suite replays it).
#
#   bash scripts/fuzz.sh                  # all harnesses, 60 s each
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh npy
#
# The committed seeds (tests/fuzz/corpus/<harness>) are copied to a scratch
# corpus, so the repository is never modified; set FUZZ_KEEP=DIR to keep the
# grown corpora under DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

bash scripts/install-deps.sh hardening
. scripts/icd-pocl.sh
build=${CLGATHER_FUZZ_BUILD_DIR:-build-fuzz}
# The harnesses are tests (tests/fuzz/); npy, npz and tensorproto read files
# through the CLI's ONNX parts.
CC=clang cmake -S . -B "$build" -DCLGATHER_FUZZ=ON -DCLGATHER_BUILD_TESTS=ON \
  -DCLGATHER_BUILD_ONNX=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCLGATHER_WERROR=ON >/dev/null

harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(npy npz tensorproto gather family scatter)
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$build" -j"${FUZZ_JOBS:-2}" --target "${targets[@]}"

seconds=${FUZZ_SECONDS:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/clgather_fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Scratch files written for every input: on tmpfs when there is one.
scratch=$work
[ -d /dev/shm ] && [ -w /dev/shm ] && scratch=$(mktemp -d /dev/shm/clgather_fuzz.XXXXXX)
trap 'rm -rf "$work"; [ "$scratch" = "$work" ] || rm -rf "$scratch"' EXIT

# Leaks: detected everywhere. POCL (and the LLVM it loads) keeps
# process-lifetime allocations that are freed only at unload; they are
# suppressed by library name for the gather harness only.
# intercept_tls_get_addr=0: see scripts/sanitize.sh (LeakSanitizer's tracer
# crashing at exit while walking POCL threads' dynamic TLS).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1:intercept_tls_get_addr=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=()
for h in "${harnesses[@]}"; do
  bin=$root/$build/tests/fuzz/fuzz_$h
  corpus=$work/corpus_$h
  mkdir -p "$corpus" "$work/artifacts_$h"
  cp "$root/tests/fuzz/corpus/$h/"* "$corpus/"
  find "$root/tests/fuzz/regressions/$h" -type f ! -name '.*' \
    -exec cp {} "$corpus/" \;
  opts=(-max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024
        -timeout=30 -print_final_stats=1 -artifact_prefix="$work/artifacts_$h/")
  [ -f "$root/tests/fuzz/$h.dict" ] && opts+=(-dict="$root/tests/fuzz/$h.dict")
  lsan=
  [ -f "$root/tests/fuzz/lsan_$h.supp" ] &&
    lsan="suppressions=$root/tests/fuzz/lsan_$h.supp"
  echo "== fuzz_$h: ${seconds}s"
  start=$(date +%s)
  set +e
  TMPDIR=$scratch LSAN_OPTIONS=$lsan "$bin" "${opts[@]}" "$corpus" \
    >"$work/log_$h" 2>&1
  rc=$?
  set -e
  grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
    "$work/log_$h" || true
  echo "   exit $rc after $(( $(date +%s) - start ))s"
  shopt -s nullglob
  artifacts=("$work/artifacts_$h/"*)
  shopt -u nullglob
  if [ $rc -ne 0 ] || [ ${#artifacts[@]} -gt 0 ]; then
    failed+=("$h")
    echo "!! fuzz_$h FAILED; last lines of its log:"
    tail -n 60 "$work/log_$h"
    for a in "${artifacts[@]}"; do
      echo "-- input $(basename "$a") ($(stat -c %s "$a") bytes)"
      echo "   base64: $(base64 -w0 "$a")"
      echo "   hex:    $(od -An -tx1 -v "$a" | tr -d ' \n')"
      echo "   add it: echo '$(base64 -w0 "$a")' | base64 -d > tests/fuzz/regressions/$h/$(basename "$a")"
    done
  fi
  if [ -n "${FUZZ_KEEP:-}" ]; then
    mkdir -p "$FUZZ_KEEP/$h"
    cp "$corpus/"* "$FUZZ_KEEP/$h/"
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#harnesses[@]} harnesses ran ${seconds}s each without a crash"
