#!/usr/bin/env bash
# Hunts flaky tests: runs the whole ctest suite RUNS times in a row while
# stress-ng (Debian's stress-ng) loads the machine's CPUs, memory and disk,
# so that timing-dependent failures show; prints each run's result and, at
# the end, every test that failed with how many runs it failed in.
#
#   scripts/flake-hunt.sh [RUNS] [BUILD_DIR]     (default 5, build)
#
# Exit status: 0 when every run passed, 1 otherwise. Not part of CI (each
# run under load takes several times a plain one); docs/testing.md says
# how many runs passed when it was last run. Installs stress-ng if missing
# (as root, like scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
build=${2:-build}
. scripts/icd-pocl.sh
if ! command -v stress-ng >/dev/null; then
  apt-get install -y --no-install-recommends stress-ng >/dev/null
fi
cpus=$(nproc)
# The load: a busy worker per CPU, one worker churning a quarter of memory,
# one writing and syncing files (the tests' caches and temporary files
# share the disk).
stress-ng --cpu "$cpus" --vm 1 --vm-bytes 25% --hdd 1 --hdd-bytes 256M \
  --timeout 0 --quiet &
load=$!
trap 'kill "$load" 2>/dev/null; wait "$load" 2>/dev/null || true' EXIT
logs=$(mktemp -d)
failed_runs=0
for r in $(seq 1 "$runs"); do
  start=$(date +%s)
  if ctest --test-dir "$build" -j"$cpus" --timeout 1200 \
    >"$logs/run$r.log" 2>&1; then
    echo "flake-hunt: run $r of $runs passed ($(($(date +%s) - start)) s)"
  else
    failed_runs=$((failed_runs + 1))
    echo "flake-hunt: run $r of $runs FAILED ($(($(date +%s) - start)) s):"
    sed -n '/The following tests FAILED/,$p' "$logs/run$r.log" | tail -n +2
  fi
done
echo "flake-hunt: $((runs - failed_runs)) of $runs runs under load passed" \
  "(logs: $logs)"
if [ "$failed_runs" -gt 0 ]; then
  echo "flake-hunt: the tests that failed, with the runs they failed in:"
  cat "$logs"/run*.log | sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' |
    sort | uniq -c | sort -rn
  exit 1
fi
