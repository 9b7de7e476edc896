#!/usr/bin/env bash
# scripts/check_layers.sh fails on a cycle of calls between files of one
# module: a build tree of two objects named after run/split.c and
# run/call.c (real files, so that the check reads them), each calling the
# other, must be refused, naming both; the same two without the call back
# must pass.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
obj=$tmp/CMakeFiles/clgather_objects.dir/host/run
mkdir -p "$obj"
cc=${CC:-cc}
printf 'int clg__fake_split(void);\nint clg__fake_run(void) { return clg__fake_split(); }\n' >"$tmp/a.c"
printf 'int clg__fake_run(void);\nint clg__fake_split(void) { return clg__fake_run(); }\n' >"$tmp/b.c"
printf 'int clg__fake_split(void) { return 0; }\n' >"$tmp/c.c"
"$cc" -c -fvisibility=hidden -o "$obj/call.c.o" "$tmp/a.c"
"$cc" -c -fvisibility=hidden -o "$obj/split.c.o" "$tmp/b.c"
cd "$root"
if out=$(bash scripts/check_layers.sh "$tmp" 2>&1); then
  echo "check_layers.sh passed a cycle between run/call.c and run/split.c:"
  echo "$out"
  exit 1
fi
if ! grep -q "a cycle of calls inside its module: .*call.c.*split.c\|a cycle of calls inside its module: .*split.c.*call.c" <<<"$out"; then
  echo "check_layers.sh failed without naming the cycle:"
  echo "$out"
  exit 1
fi
"$cc" -c -fvisibility=hidden -o "$obj/split.c.o" "$tmp/c.c"
if ! out=$(bash scripts/check_layers.sh "$tmp" 2>&1); then
  echo "check_layers.sh refused two files without a cycle:"
  echo "$out"
  exit 1
fi
echo "check_layers.sh: a cycle refused, its absence passed"
