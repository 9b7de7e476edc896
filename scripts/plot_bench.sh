#!/usr/bin/env bash
# Draws clgather's benchmark figures as PNG pictures with gnuplot:
#
#  1. OUT/bench_sweep.png: clgather-bench's slice-size sweep (the `sweep`
#     group: ONNX Gather on axis 0 of float32 data [rows, slice/4] at a fixed
#     output size) — GB/s of output written against the slice size (log2
#     axis): clgather's gather kernel with int64 and int32 indices, the
#     checked call (clg_gather on cl_mem tensors, index validation included)
#     and the device's copy of the same output bytes (copy-ref: the faster of
#     clEnqueueCopyBuffer and a copy kernel), all from one run;
#  2. OUT/bench_peers.png, given bench-peers run logs (--peers): for each
#     standard workload (W1-W6), each peer's median time divided by
#     clgather's checked call (clg_gather on cl_mem tensors, validation
#     included, as in the peers' README table), on a log axis: above 1,
#     clgather is faster.
#
# Usage: scripts/plot_bench.sh [options] (--json FILE | --bench BINARY)
# See --help. Needs gnuplot (Debian: gnuplot-nox; `bash scripts/install-deps.sh`
# installs it) and /usr/bin/python3 (its json module only) to read the JSON.
# Exit status: 0 pictures written; 1 invalid input (unreadable or invalid
# JSON, no sweep row, a log without clgather's or any peer's results); 2
# usage; 3 a missing tool, the benchmark or gnuplot failed. Errors go to
# stderr; on error no picture is left half-written.
set -euo pipefail

prog=plot_bench.sh
PY=/usr/bin/python3
GNUPLOT=${GNUPLOT:-gnuplot}

usage() {
  cat <<'EOF'
usage: plot_bench.sh [options] (--json FILE | --bench BINARY)
  --json FILE      a `clgather-bench --json` document (- for stdin) holding
                   the sweep group (`--only sweep`, or a full run)
  --bench BINARY   run `BINARY --json --only sweep` first (~2 min on 2 cores;
                   progress on stderr) and draw its result
  --quick          with --bench: pass --quick (fewer samples, 8 MiB sweep)
  --device SPEC    with --bench: pass --device SPEC
  --save-json FILE with --bench: keep the benchmark's JSON in FILE
  --peers LOG      a bench-peers run log (RESULT lines; bench-peers writes
                   them to _build/results/run*.log); repeat for several runs
                   (a peer's time is the mean of its per-run medians). Adds
                   bench_peers.png
  --out DIR        where the pictures go (default: .); created if missing
  --machine TEXT   the machine named in the titles (default: lscpu's model
                   name, family and model, and the number of CPUs)
  --keep-data DIR  also keep gnuplot's data files and scripts in DIR
  -h, --help       this text
Writes DIR/bench_sweep.png (and DIR/bench_peers.png with --peers).
Environment: GNUPLOT (default gnuplot) names the gnuplot binary.
Exit: 0 ok, 1 invalid input, 2 usage, 3 missing tool / benchmark or gnuplot
failed.
EOF
}

die() { # die STATUS MESSAGE
  echo "$prog: $2" >&2
  exit "$1"
}

json="" bench="" quick=0 device="" save_json="" out="." machine="" keep=""
peers=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --quick) quick=1; shift; continue ;;
    --json | --bench | --device | --save-json | --peers | --out | --machine | \
      --keep-data)
      [ $# -ge 2 ] || { usage >&2; die 2 "$1 needs a value"; }
      case "$1" in
        --json) json=$2 ;;
        --bench) bench=$2 ;;
        --device) device=$2 ;;
        --save-json) save_json=$2 ;;
        --peers) peers+=("$2") ;;
        --out) out=$2 ;;
        --machine) machine=$2 ;;
        --keep-data) keep=$2 ;;
      esac
      shift 2 ;;
    *) usage >&2; die 2 "unknown argument '$1'" ;;
  esac
done
if [ -n "$json" ] && [ -n "$bench" ]; then
  usage >&2; die 2 "give --json or --bench, not both"
fi
if [ -z "$json" ] && [ -z "$bench" ]; then
  usage >&2; die 2 "give --json FILE or --bench BINARY"
fi
if [ -z "$bench" ] && { [ $quick = 1 ] || [ -n "$device" ] || [ -n "$save_json" ]; }; then
  usage >&2; die 2 "--quick, --device and --save-json go with --bench"
fi

command -v "$GNUPLOT" >/dev/null 2>&1 ||
  die 3 "gnuplot not found ('$GNUPLOT'): install it with 'bash scripts/install-deps.sh' (Debian: gnuplot-nox)"
[ -x "$PY" ] || die 3 "$PY not found (Debian: python3)"
for f in "${peers[@]}"; do
  [ -r "$f" ] && [ -f "$f" ] || die 1 "cannot read peers log '$f'"
done
if [ -n "$json" ] && [ "$json" != "-" ]; then
  [ -r "$json" ] && [ -f "$json" ] || die 1 "cannot read '$json'"
fi
mkdir -p "$out" 2>/dev/null || die 1 "cannot create output folder '$out'"
[ -w "$out" ] || die 1 "output folder '$out' is not writable"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plot_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ---- the run's JSON ----
if [ -n "$bench" ]; then
  [ -x "$bench" ] && [ -f "$bench" ] || die 1 "'$bench' is not an executable file"
  args=(--json --only sweep)
  [ $quick = 1 ] && args+=(--quick)
  [ -n "$device" ] && args+=(--device "$device")
  echo "$prog: running $bench ${args[*]}" >&2
  rc=0
  "$bench" "${args[@]}" >"$tmp/run.json" || rc=$?
  # clgather-bench: 0 ok, 1 a wrong result, 2 usage, 3 device/setup error
  [ $rc -eq 0 ] || die 3 "'$bench ${args[*]}' failed with exit status $rc"
  if [ -n "$save_json" ]; then
    cp "$tmp/run.json" "$save_json" || die 1 "cannot write '$save_json'"
  fi
  json=$tmp/run.json
elif [ "$json" = "-" ]; then
  cat >"$tmp/run.json"
  json=$tmp/run.json
fi

if [ -z "$machine" ]; then
  if command -v lscpu >/dev/null 2>&1; then
    machine=$(LC_ALL=C lscpu | awk -F: '
      function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
      /^Model name/ { name = trim($2) }
      /^CPU family/ { fam = trim($2) }
      /^Model:/ { mod = trim($2) }
      /^CPU\(s\)/ { n = trim($2) }
      END {
        s = name
        if (fam != "" && mod != "") s = s " (family " fam ", model " mod ")"
        if (n != "") s = s ", " n " CPUs"
        print s
      }')
  fi
  [ -n "$machine" ] || machine="unknown machine"
fi

# ---- JSON and logs -> gnuplot data files and settings ----
# Writes tmp/sweep.dat (index 0: int64 indices, 1: int32; columns: slice
# bytes, kernel GB/s, copy-ref GB/s, checked call GB/s), tmp/sweep.gp
# (titles, tics), and with logs tmp/peers.dat + tmp/peers.gp.
rc=0
"$PY" - "$json" "$tmp" "$machine" "${peers[@]}" <<'PYEOF' || rc=$?
import json
import math
import sys

src, tmp, machine, logs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]


def fail(msg):
    sys.stderr.write("plot_bench.sh: %s\n" % msg)
    sys.exit(1)


def gp_string(s):
    """A gnuplot double-quoted string (a newline becomes a line break)."""
    return '"%s"' % str(s).replace("\\", "\\\\").replace(
        '"', '\\"').replace("\n", "\\n")


def size_label(n):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d %s" % (n // div, unit)
    return "%d B" % n


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        math.isfinite(v) and v > 0


try:
    with open(src) as f:
        doc = json.load(f)
except (OSError, UnicodeDecodeError) as e:
    fail("cannot read %s: %s" % (src, e))
except ValueError as e:
    fail("%s is not valid JSON: %s" % (src, e))
if not isinstance(doc, dict) or not isinstance(doc.get("workloads"), list):
    fail("%s is not a clgather-bench --json document (no \"workloads\" list)"
         % src)

series = {"int64": [], "int32": []}
skipped = []
out_bytes = set()
for w in doc["workloads"]:
    if not isinstance(w, dict) or w.get("group") != "sweep":
        continue
    name = str(w.get("name", "?"))
    if w.get("status") != "ok":
        skipped.append("%s (%s)" % (name, w.get("status", "no status")))
        continue
    try:
        ishape = w["indices_shape"]
        dshape = w["data_shape"]
        axis = int(w["axis"])
        nidx = 1
        for s in ishape:
            nidx *= int(s)
        outer = 1
        for s in dshape[:axis]:
            outer *= int(s)
        ob = int(w["output_bytes"])
        row = (ob // (outer * nidx), float(w["kernel_gbps"]),
               float(w["copy_ref_gbps"]), float(w["call_gbps"]))
        itype = w["index_dtype"]
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
        fail("sweep row %s lacks a field or has a bad one (%s: %s)"
             % (name, type(e).__name__, e))
    if itype not in series:
        fail("sweep row %s: unexpected index_dtype %r" % (name, itype))
    if not all(number(v) for v in row):
        fail("sweep row %s: a figure is not a positive number: %r"
             % (name, row))
    series[itype].append(row)
    out_bytes.add(ob)
for s in skipped:
    sys.stderr.write("plot_bench.sh: warning: sweep row %s left out\n" % s)
if not series["int64"] and not series["int32"]:
    fail("%s holds no sweep row with status ok (run clgather-bench with "
         "--only sweep)" % src)

with open(tmp + "/sweep.dat", "w") as f:
    for key in ("int64", "int32"):
        f.write("# %s indices: slice_bytes kernel_gbps copy_ref_gbps "
                "call_gbps\n" % key)
        for r in sorted(series[key]):
            f.write("%s %.6g %.6g %.6g\n" % r)
        f.write("\n\n")
slices = sorted({r[0] for rows in series.values() for r in rows})
tics = ", ".join("%s %d" % (gp_string(size_label(s)), s) for s in slices)
cfg = doc.get("settings") or {}
title = ("clgather-bench slice-size sweep: ONNX Gather, axis 0, float32 data "
         "[rows, slice/4], %s output per call\n%s\nOpenCL device %s (%s), "
         "clgather %s%s" % (
             " / ".join(size_label(b) for b in sorted(out_bytes)),
             machine, doc.get("device", "?"), doc.get("driver", "?"),
             doc.get("clgather_version", "?"),
             " · --quick" if cfg.get("quick") else ""))
with open(tmp + "/sweep.gp", "w") as f:
    f.write("set title %s noenhanced\n" % gp_string(title))
    f.write("set xtics (%s)\n" % tics)
    f.write("has_i32 = %d\n" % (1 if series["int32"] else 0))

if not logs:
    sys.exit(0)

# ---- bench-peers logs: "RESULT {json}" lines (bench_util.h, common.py) ----
GROUPS = [  # (label, predicate on the peer's name), as report.py names them
    ("numpy.take (best)", lambda p: p.startswith("numpy.take")),
    ("pyopencl take (best)", lambda p: p.startswith("pyopencl take")),
    ("Boost.Compute gather (best)", lambda p: p.startswith("Boost.Compute")),
    ("naive OpenCL kernel (best)", lambda p: p.startswith("OpenCL naive")),
    ("ONNX Runtime CPU kernel (best)",
     lambda p: p.startswith("ONNX Runtime") and p.endswith("kernel (profiler)")),
]
CLG = "clgather checked (cl_mem)"
runs = []  # per log: {(workload, peer): median_s}
hosts = set()
for path in logs:
    meds = {}
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if line.startswith("INFO host: "):
                    hosts.add(line[len("INFO host: "):].strip())
                if not line.startswith("RESULT "):
                    continue
                try:
                    r = json.loads(line[7:])
                except ValueError as e:
                    fail("%s:%d: bad RESULT line: %s" % (path, n, e))
                if not isinstance(r, dict) or r.get("unsupported"):
                    continue
                m = r.get("median_s")
                if not number(m) or "workload" not in r or "peer" not in r:
                    continue
                meds[(str(r["workload"]), str(r["peer"]))] = float(m)
    except (OSError, UnicodeDecodeError) as e:
        fail("cannot read %s: %s" % (path, e))
    runs.append(meds)


def mean_median(wl, pred):
    """Best peer of a group: the lowest mean over runs of its run medians."""
    best = None
    peers = {p for meds in runs for (w, p) in meds if w == wl and pred(p)}
    for p in peers:
        vals = [meds[(wl, p)] for meds in runs if (wl, p) in meds]
        m = sum(vals) / len(vals)
        if best is None or m < best:
            best = m
    return best


workloads = []
for meds in runs:
    for (w, p) in meds:
        if w not in workloads:
            workloads.append(w)
workloads.sort(key=lambda w: (w.split()[0][:1], int(w.split()[0][1:])
                              if w.split()[0][1:].isdigit() else 1 << 30, w))
rows = []
for wl in workloads:
    c = mean_median(wl, lambda p: p == CLG)
    if c is None:
        continue
    ratios = []
    for _, pred in GROUPS:
        t = mean_median(wl, pred)
        ratios.append(t / c if t is not None else None)
    if any(r is not None for r in ratios):
        rows.append((wl, ratios))
if not rows:
    fail("no workload in %s has both \"%s\" and a peer's result"
         % (", ".join(logs), CLG))
used = [i for i in range(len(GROUPS)) if any(r[1][i] is not None
                                                for r in rows)]
with open(tmp + "/peers.dat", "w") as f:
    f.write("workload %s\n" % " ".join(gp_string(GROUPS[i][0]) for i in used))
    for wl, ratios in rows:
        f.write("%s %s\n" % (gp_string(wl), " ".join(
            "%.6g" % ratios[i] if ratios[i] is not None else "NaN"
            for i in used)))
vals = [r[1][i] for r in rows for i in used if r[1][i] is not None]
lo = min(vals + [1.0]) / 1.6
hi = max(vals + [1.0]) * 1.6
host = " / ".join(sorted(hosts)) if hosts else machine
title = ("bench-peers: each peer's median time / clgather's checked call "
         "(clg_gather on cl_mem, validation included)\nabove 1: clgather "
         "faster; %s; %d run%s" % (host, len(runs),
                                       "s" if len(runs) > 1 else ""))
with open(tmp + "/peers.gp", "w") as f:
    f.write("set title %s noenhanced\n" % gp_string(title))
    f.write("set yrange [%g:%g]\n" % (lo, hi))
    f.write("ncols = %d\n" % len(used))
PYEOF
[ $rc -eq 0 ] || exit "$rc"

# ---- gnuplot ----
# pngcairo (Debian's gnuplot-nox has it) draws antialiased text; the libgd
# `png` terminal is the fallback.
if "$GNUPLOT" -e "set terminal pngcairo" >/dev/null 2>&1; then
  term="pngcairo size 1000,600 font 'DejaVu Sans,10'"
else
  term="png size 1000,600"
fi

# plot SCRIPT PNG: run gnuplot on SCRIPT, writing tmp/PNG. The pictures are
# moved into place only once all are drawn: on error none is written.
pngs=()
plot() {
  local log=$tmp/gnuplot.log
  if ! (cd "$tmp" && "$GNUPLOT" "$1") >"$log" 2>&1 || [ ! -s "$tmp/$2" ]; then
    cat "$log" >&2
    die 3 "gnuplot failed drawing $2"
  fi
  pngs+=("$2")
}

# The int32 series only when the run has it (a --only S4* run may not).
i32=""
if grep -q '^has_i32 = 1' "$tmp/sweep.gp"; then
  i32="'sweep.dat' index 1 using 1:2 with linespoints lw 2 pt 5 lc rgb '#2ca02c' title 'clgather gather kernel, int32 indices', "
fi
cat >"$tmp/sweep.plt" <<EOF
set terminal $term noenhanced
set output 'bench_sweep.png'
load 'sweep.gp'
set logscale x 2
set xlabel 'slice size (bytes of one gathered row)'
set ylabel 'GB/s of output written (median)'
set yrange [0:*]
set grid xtics ytics lc rgb '#dddddd'
set key below box Left reverse width 2
set bmargin 7
set offsets graph 0.02, graph 0.02, 0, 0
plot 'sweep.dat' index 0 using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'clgather gather kernel, int64 indices', \\
     ${i32}'sweep.dat' index 0 using 1:4 with linespoints lw 1.5 dt 2 pt 6 lc rgb '#1f77b4' title 'checked call: clg_gather on cl_mem, int64 indices', \\
     'sweep.dat' index 0 using 1:3 with linespoints lw 2 dt 3 pt 9 lc rgb '#d62728' title 'copy-ref: the device copying the same output bytes'
EOF
plot sweep.plt bench_sweep.png

if [ ${#peers[@]} -gt 0 ]; then
  cat >"$tmp/peers.plt" <<'EOF'
load 'peers.gp'
set output 'bench_peers.png'
set logscale y
set ylabel 'peer time / clgather checked call (log scale)'
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics lc rgb '#dddddd'
set key outside right top vertical Left reverse noenhanced
set datafile missing 'NaN'
set xtics noenhanced nomirror
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb '#000000'
plot for [i=2:ncols+1] 'peers.dat' using i:xtic(1) title columnheader(i)
EOF
  sed -i "1i set terminal $term noenhanced" "$tmp/peers.plt"
  plot peers.plt bench_peers.png
fi

for png in "${pngs[@]}"; do
  mv -f "$tmp/$png" "$out/$png" || die 1 "cannot write $out/$png"
  echo "$prog: wrote $out/$png" >&2
done
if [ -n "$keep" ]; then
  mkdir -p "$keep" && cp "$tmp"/*.dat "$tmp"/*.gp "$tmp"/*.plt "$keep"/ ||
    die 1 "cannot keep the data files in '$keep'"
fi
