#!/usr/bin/env bash
# The ABI of libclgather and libclgather_mpi against the baselines in abi/
# (made by abidw, Debian's abigail-tools), as CI's `abi` step:
#  1. builds both libraries (RelWithDebInfo: abidw reads their DWARF) in
#     build-abi/, and compares each with its baseline by abidiff, the
#     public headers (include/clgather/) deciding which types count:
#     an incompatible change (a removed or retyped function, a changed
#     struct layout or enum value) fails; a compatible one (a new function,
#     a new enum value at the end) passes and is printed, and the commit
#     that adds API updates the baseline (--update);
#  2. proves the check can fail: a scratch copy of the tree with a field
#     added in the middle of clg_params, built and compared the same way,
#     must be reported incompatible (--no-self-test leaves it out).
#
#   scripts/check-abi.sh [--update] [--no-self-test]
#
# --update rewrites abi/*.abi from this tree's build (and skips the rest).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
update=0
self_test=1
for a in "$@"; do
  case $a in
  --update) update=1 ;;
  --no-self-test) self_test=0 ;;
  *) echo "usage: scripts/check-abi.sh [--update] [--no-self-test]" >&2; exit 2 ;;
  esac
done
bash scripts/install-deps.sh abi
jobs=${CLGATHER_JOBS:-$(nproc)}

# build SRC DIR: the two shared libraries of tree SRC, with debug info.
build() {
  cmake --fresh -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCLGATHER_BUILD_TOOLS=OFF -DCLGATHER_BUILD_MPI=ON >/dev/null
  cmake --build "$2" -j"$jobs" --target clgather clgather_mpi >/dev/null
}

# dump LIB OUT: the library's ABI, public types only. Locations are kept
# (file names, lines): without them abidiff cannot tell the public types
# from the private ones and filters out a change of clg_params' layout.
# A header's lines moving is no ABI change; the baseline's text follows it
# at the next --update.
dump() {
  abidw --no-corpus-path --no-comp-dir-path --short-locs \
    --drop-private-types \
    --headers-dir "$root/include/clgather" --out-file "$2" "$1"
}

# compare NAME BASELINE LIB HEADERS: abidiff's verdict; returns 0 when the
# change is compatible (or none), 1 when it is not.
compare() {
  local name=$1 base=$2 lib=$3 headers=$4 rc=0
  abidiff --drop-private-types \
    --headers-dir2 "$headers" "$base" "$lib" >"$tmp/$name.diff" 2>&1 || rc=$?
  # abidiff's status is a bit mask: 1 error, 2 usage, 4 an ABI change,
  # 8 an incompatible ABI change.
  if [ $((rc & 3)) -ne 0 ]; then
    cat "$tmp/$name.diff"
    echo "check-abi: abidiff failed on $name (status $rc)" >&2
    exit 1
  fi
  # abidiff sets bit 8 only for changes it knows break (a removed symbol);
  # a changed type under a function (a struct's layout, a function's
  # parameters) is bit 4, "to be reviewed". The rule here: any removed or
  # changed function or variable is incompatible; added ones, and what
  # abidiff itself deems harmless (an enumerator added at the end), are
  # not.
  if [ $((rc & 8)) -ne 0 ] ||
    grep -Eq '(changes summary|symbols changes summary): [1-9][0-9]* Removed|summary: [0-9]+ Removed(, [0-9]+ Changed \([0-9]+ filtered out\))?, [1-9][0-9]* Changed|summary: [0-9]+ Removed, [1-9][0-9]* Changed' \
      "$tmp/$name.diff"; then
    echo "check-abi: $name: an INCOMPATIBLE change against its baseline:"
    cat "$tmp/$name.diff"
    return 1
  fi
  if [ $((rc & 4)) -ne 0 ]; then
    echo "check-abi: $name: a compatible change (update the baseline with"
    echo "  scripts/check-abi.sh --update in the commit that adds the API):"
    cat "$tmp/$name.diff"
  else
    echo "check-abi: $name: the same ABI as its baseline"
  fi
  return 0
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/clgather-abi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
b=$root/build-abi
build "$root" "$b"
libs=("libclgather:$b/libclgather.so" "libclgather_mpi:$b/host/mpi/libclgather_mpi.so")
if [ $update -eq 1 ]; then
  mkdir -p abi
  for e in "${libs[@]}"; do
    dump "$(readlink -f "${e#*:}")" "abi/${e%%:*}.abi"
    echo "check-abi: wrote abi/${e%%:*}.abi"
  done
  exit 0
fi
failed=0
for e in "${libs[@]}"; do
  compare "${e%%:*}" "abi/${e%%:*}.abi" "$(readlink -f "${e#*:}")" \
    "$root/include/clgather" || failed=1
done
[ $failed -eq 0 ] || exit 1

if [ $self_test -eq 1 ]; then
  # A field added in the middle of clg_params (between axis and
  # batch_dims): every field after it moves, which abidiff must call
  # incompatible.
  scratch=$tmp/tree
  mkdir -p "$scratch"
  git ls-files -z | xargs -0 cp --parents -t "$scratch"
  sed -i '/^typedef struct clg_params {$/,/^} clg_params;$/ s/^  int64_t axis;$/  int64_t axis;\n  int64_t abi_check_inserted;/' \
    "$scratch/include/clgather/clgather.h"
  grep -q abi_check_inserted "$scratch/include/clgather/clgather.h" || {
    echo "check-abi: the self-test found no clg_params to change" >&2
    exit 1
  }
  build "$scratch" "$tmp/build" 2>/dev/null
  if compare self-test abi/libclgather.abi \
    "$(readlink -f "$tmp/build/libclgather.so")" \
    "$scratch/include/clgather" >"$tmp/self-test.out"; then
    cat "$tmp/self-test.out"
    echo "check-abi: FAIL: a field inserted into clg_params was not reported" \
      "as an incompatible change" >&2
    exit 1
  fi
  echo "check-abi: self-test: a field inserted into clg_params is reported" \
    "incompatible, as it must be"
fi
echo "check-abi: passed"
