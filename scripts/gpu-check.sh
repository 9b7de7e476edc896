#!/usr/bin/env bash
# The device checks of a session lent a GPU (issue 40), in two halves:
#
#   bash scripts/gpu-check.sh pack   # here, on the CPU machine: builds
#       # (Release) and gathers into .gpu/ (git-ignored) what the GPU machine
#       # runs without building: the CLI, clgather-bench, -bench-scatter,
#       # -bench-bag, -bench-gbq, the referee's interleaved binary, libclgather, the ICD
#       # loader, and the referee's data generator. About 10 MiB.
#   bash scripts/gpu-check.sh run    # there (the tool library's `device`:
#       # carry [".gpu"]): finds the OpenCL driver, then runs selftest
#       # --quick, clgather-bench --quick, -bench-scatter, -bench-bag, -bench-gbq
#       # and the
#       # referee's verdict (W1-W6, data generated there with numpy), each
#       # under its own time limit, into $OUT (or .gpu/out): one log each and
#       # summary.txt, the referee first; at most 9 minutes.
#
# `run` works on any OpenCL device the loader finds (on the CPU machine:
# POCL), which is how it is tested before a GPU is at hand.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
gpu=$root/.gpu
peers=${GATHER_PEERS_DIR:-$root/../shared/bench-peers}

pack() {
  local build=$root/build-gpu
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCLGATHER_BUILD_TESTS=OFF \
    -DCLGATHER_BUILD_BENCH=ON >/dev/null
  cmake --build "$build" -j"$(nproc)" --target clgather_cli clgather_bench \
    clgather_bench_scatter clgather_bench_bag clgather_bench_gbq >/dev/null
  # the referee's interleaved binary, built by its own script against this
  # checkout (PEERS=h2h builds it; its data and runs are of no use here)
  if [ ! -x "$peers/_build/bin/h2h_interleaved" ] ||
    [ "${GPU_CHECK_REBUILD_REFEREE:-1}" = 1 ]; then
    (PEERS=h2h RUNS=1 WL="W5" bash "$peers/run_all.sh" >/dev/null 2>&1) ||
      echo "gpu-check: the referee did not build; packing without it" >&2
  fi
  rm -rf "$gpu"
  mkdir -p "$gpu/bin" "$gpu/lib" "$gpu/peers"
  cp "$build/tools/clgather" "$build/tools/clgather-bench" \
    "$build/tools/clgather-bench-scatter" "$build/tools/clgather-bench-bag" \
    "$build/tools/clgather-bench-gbq" "$gpu/bin/"
  cp -L "$build/libclgather.so.0" "$gpu/lib/" # no links: plain files travel
  # the referee links the library it built (RUNPATH): LD_LIBRARY_PATH, set
  # by `run`, puts this build's first
  [ -x "$peers/_build/bin/h2h_interleaved" ] &&
    cp "$peers/_build/bin/h2h_interleaved" "$gpu/bin/"
  cp "$peers/gen_data.py" "$peers/common.py" "$gpu/peers/"
  # the ICD loader (the GPU machine's image may have none)
  local loader
  loader=$(ldconfig -p | awk '/libOpenCL.so.1 .*x86-64/ {print $NF; exit}')
  [ -n "$loader" ] && cp -L "$loader" "$gpu/lib/libOpenCL.so.1"
  # a baseline library to alternate with in the referee (same binary, same
  # run): GPU_CHECK_BASELINE=path/to/libclgather.so.0 of an earlier build
  if [ -n "${GPU_CHECK_BASELINE:-}" ]; then
    mkdir -p "$gpu/baseline"
    cp -L "$GPU_CHECK_BASELINE" "$gpu/baseline/libclgather.so.0"
    echo "${GPU_CHECK_BASELINE_NAME:-baseline}" >"$gpu/baseline/name"
  fi
  git rev-parse --short HEAD >"$gpu/commit"
  git status --porcelain --untracked-files=no | grep -q . &&
    echo "+changes" >>"$gpu/commit"
  du -sh "$gpu" | awk '{print "gpu-check: packed " $1 " into .gpu/"}'
}

# The GPU's driver alone (an ICD file for NVIDIA's OpenCL library), where the
# machine has it: its vendor list may name only a CPU driver (POCL), which the
# checks would then measure instead; the listed vendors otherwise.
find_driver() {
  local lib
  lib=$(find /usr/local/nvidia /usr/lib/x86_64-linux-gnu /usr/lib64 \
    -name 'libnvidia-opencl.so.1' 2>/dev/null | head -1 || true)
  if [ -n "$lib" ]; then
    mkdir -p "$gpu/vendors"
    echo "$lib" >"$gpu/vendors/nvidia.icd"
    export OCL_ICD_VENDORS=$gpu/vendors
    echo "OpenCL driver: $lib (OCL_ICD_VENDORS=$OCL_ICD_VENDORS)"
  elif ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
    echo "OpenCL vendors: $(ls /etc/OpenCL/vendors/)"
  else
    echo "no OpenCL driver found (no libnvidia-opencl, no /etc/OpenCL/vendors)"
  fi
}

# step NAME SECONDS COMMAND...: run it under a limit, its output to NAME.log
# (GPU_CHECK_ONLY="referee bench-bag ...": only the steps whose names start
# with one of these words, for a session with little device time left)
step() {
  local name=$1 limit=$2 t0=$SECONDS rc=0 w keep=${GPU_CHECK_ONLY:+no}
  shift 2
  for w in ${GPU_CHECK_ONLY:-}; do
    [[ $name == "$w"* ]] && keep=yes
  done
  [ "${keep:-yes}" = no ] && return 0
  timeout "$limit" "$@" >"$out/$name.log" 2>&1 || rc=$?
  echo "$name: exit $rc in $((SECONDS - t0)) s" >>"$out/summary.txt"
}

run() {
  [ -d "$gpu/bin" ] || {
    echo "gpu-check: no .gpu/ here: run 'pack' on the CPU machine and carry it" >&2
    exit 2
  }
  out=${OUT:-$gpu/out}
  mkdir -p "$out"
  : >"$out/summary.txt"
  export LD_LIBRARY_PATH=$gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export CLGATHER_CACHE_DIR=$gpu/cache
  {
    echo "clgather $(cat "$gpu/commit" | tr '\n' ' ')"
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
    find_driver
  } >>"$out/summary.txt"
  # the referee first (the verdict this project is judged by), selftest
  # last; the limits add up to 9 minutes, inside one 10-minute command
  step devices 20 "$gpu/bin/clgather" devices
  if [ -x "$gpu/bin/h2h_interleaved" ]; then
    export GATHER_PEERS_BUILD=$gpu/peers-build
    local py=python3
    [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null &&
      py=/usr/bin/python3
    step referee-data 90 "$py" "$gpu/peers/gen_data.py"
    step referee 120 "$gpu/bin/h2h_interleaved" "$GATHER_PEERS_BUILD/data"
    grep -h '^H2H' "$out/referee.log" >>"$out/summary.txt" 2>/dev/null || true
    # with a baseline packed: it, this build again, it again, one after the
    # other (the same referee binary; LD_LIBRARY_PATH picks the library)
    if [ -f "$gpu/baseline/libclgather.so.0" ]; then
      local b=$(cat "$gpu/baseline/name") i
      for i in 1 2; do
        LD_LIBRARY_PATH=$gpu/baseline:$LD_LIBRARY_PATH step "referee-base$i" 120 \
          "$gpu/bin/h2h_interleaved" "$GATHER_PEERS_BUILD/data"
        [ "$i" = 2 ] ||
          step referee-again 120 "$gpu/bin/h2h_interleaved" "$GATHER_PEERS_BUILD/data"
      done
      for f in referee-base1 referee-again referee-base2; do
        echo "$f ($([ "$f" = referee-again ] && echo this build || echo "$b")):"
        grep -h '^H2H' "$out/$f.log" | sed 's/"best_peer".*"ratio_of_medians"/"ratio_of_medians"/; s/, "median_round_ratio.*//'
      done >>"$out/summary.txt" 2>/dev/null || true
    fi
  fi
  step bench-scatter 50 "$gpu/bin/clgather-bench-scatter"
  # bench-bag: EB1-EB5 and the quantized tables QB1, QB2 (issue 43: their
  # copy/qbag against the target 0.85)
  step bench-bag 80 "$gpu/bin/clgather-bench-bag"
  step bench-gbq 30 "$gpu/bin/clgather-bench-gbq" # QG1 (issue 43)
  if [ -f "$gpu/baseline/libclgather.so.0" ]; then
    LD_LIBRARY_PATH=$gpu/baseline:$LD_LIBRARY_PATH step bench-scatter-base 50 \
      "$gpu/bin/clgather-bench-scatter"
    LD_LIBRARY_PATH=$gpu/baseline:$LD_LIBRARY_PATH step bench-bag-base 50 \
      "$gpu/bin/clgather-bench-bag"
  fi
  step bench 80 "$gpu/bin/clgather-bench" --quick
  step selftest 120 "$gpu/bin/clgather" selftest --quick
  tail -n 3 "$out/selftest.log" >>"$out/summary.txt" 2>/dev/null || true
  cat "$out/summary.txt"
}

case "${1:-}" in
pack) pack ;;
run) run ;;
*)
  echo "usage: bash scripts/gpu-check.sh pack|run" >&2
  exit 2
  ;;
esac
