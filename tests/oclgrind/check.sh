#!/usr/bin/env bash
# check.sh NAME COMMAND [ARGS...]: run COMMAND under Oclgrind (Debian's
# `oclgrind`, an OpenCL 1.2 implementation simulating a GPU) with its checks
# of the API, data races and uninitialized values, and fail when the command
# fails or when Oclgrind reports anything at all.
#
# Oclgrind's reports go to stderr, not to `--log FILE`: a Criterion suite
# and `clgather selftest` fork a process per test or case, and every process
# would open (and truncate) the log file again, losing the reports of the
# ones before it. A report is a kernel diagnostic ("\tKernel: NAME" under
# its title), an API error ("Oclgrind - OpenCL runtime error detected") or a
# fatal error ("OCLGRIND FATAL ERROR").
#
# Oclgrind's runtime is preloaded as its `oclgrind` launcher does, after
# CLGATHER_OCLGRIND_PRELOAD when that is set (suites.sh sets it to
# keep_buffers.so: see there why no buffer may be released).
set -uo pipefail
name=$1
shift
out=$(mktemp "${TMPDIR:-/tmp}/clgather-oclgrind.XXXXXX")
trap 'rm -f "$out"' EXIT
start=$SECONDS
rt=/usr/lib/oclgrind/liboclgrind-rt.so
preload=$rt
[ -n "${CLGATHER_OCLGRIND_PRELOAD:-}" ] && preload=$CLGATHER_OCLGRIND_PRELOAD:$rt
OCLGRIND_CHECK_API=1 OCLGRIND_DATA_RACES=1 OCLGRIND_UNINITIALIZED=1 \
  LD_LIBRARY_PATH=/usr/lib/oclgrind${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  LD_PRELOAD=$preload timeout "${OCLGRIND_TIMEOUT:-900}" "$@" >"$out" 2>&1
rc=$?
reports=$(grep -c -E '^	Kernel: |^Oclgrind - |^OCLGRIND FATAL' "$out")
if [ "$rc" -ne 0 ] || [ "$reports" -ne 0 ]; then
  echo "oclgrind: $name: exit status $rc, $reports report(s) from Oclgrind:"
  grep -B1 -A6 -E '^	Kernel: |^Oclgrind - |^OCLGRIND FATAL' "$out" | head -60
  echo "--- the last lines of its output:"
  tail -10 "$out"
  exit 1
fi
echo "oclgrind: $name: passed, no report ($((SECONDS - start)) s)"
