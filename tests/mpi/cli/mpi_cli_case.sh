#!/bin/sh
# One ctest case of clgather-mpi (tests/mpi/cli/CMakeLists.txt):
#
#   mpi_cli_case.sh CMAKE MPIEXEC CLGATHER CLGATHER_MPI GEN_NPY WORKDIR CASE NP
#
# makes its inputs with gen_npy (no Python), runs the single-process
# `clgather` as the reference and `MPIEXEC -np NP clgather-mpi` on the same
# files, and compares OUT byte for byte (cmake -E compare_files). Error
# cases check the exit status of every rank (each rank's status is written
# by this script run as a wrapper: mpi_cli_case.sh --rank-status DIR CMD...,
# with Open MPI told not to abort the job at the first non-zero status),
# then mpirun's own status in a normal run, that OUT is not created (or an
# existing OUT not changed) and that no temporary file is left.
set -u

if [ "$1" = "--rank-status" ]; then
  dir=$2
  shift 2
  "$@"
  rc=$?
  r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-x}}}
  echo "$rc" >"$dir/status.$r"
  exit "$rc"
fi

CMAKE=$1 MPIEXEC=$2 CLGATHER=$3 CLGMPI=$4 GEN=$5 WORK=$6 CASE=$7 NP=$8
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

rm -rf "$WORK"
mkdir -p "$WORK" && cd "$WORK" || exit 1
# Every mpirun of the case with a session directory of its own
# (tests/mpi/with_tmpdir.sh says why).
TMPDIR=$(mktemp -d /tmp/clgmpi.XXXXXX) || exit 1
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

fail() {
  echo "FAIL ($CASE, $NP ranks): $*" >&2
  exit 1
}
gen() { "$GEN" "$@" || fail "gen_npy $*"; }

# ref ARGS...: the reference OUT, ref.npy.
ref() {
  rm -f ref.npy
  "$CLGATHER" "$@" -o ref.npy || fail "reference: clgather $* exited $?"
}
# dist ARGS...: clgather-mpi's OUT, out.npy, compared with ref.npy.
dist() {
  rm -f out.npy
  "$MPIEXEC" -np "$NP" "$CLGMPI" "$@" -o out.npy ||
    fail "clgather-mpi $* exited $? under $NP ranks"
  "$CMAKE" -E compare_files ref.npy out.npy ||
    fail "clgather-mpi $* (OUT) differs from clgather's under $NP ranks"
  echo "ok: $NP ranks: clgather-mpi $* equals clgather's OUT"
}
# same ARGS...: reference and distributed with the same arguments.
same() {
  ref "$@"
  dist "$@"
}
no_temp() {
  # shellcheck disable=SC2010
  if ls -a | grep -q '\.tmp\.'; then
    fail "a temporary file was left: $(ls -a | grep '\.tmp\.')"
  fi
}
# expect_each CODE ARGS...: every rank exits CODE; OUT is not created.
expect_each() {
  code=$1
  shift
  rm -f status.* bad.npy
  OMPI_MCA_orte_abort_on_non_zero_status=0 "$MPIEXEC" -np "$NP" \
    sh "$SELF" --rank-status "$WORK" "$CLGMPI" "$@" -o bad.npy
  r=0
  while [ "$r" -lt "$NP" ]; do
    [ -f "status.$r" ] || fail "rank $r wrote no exit status"
    got=$(cat "status.$r")
    [ "$got" = "$code" ] || fail "rank $r exited $got, not $code: $*"
    r=$((r + 1))
  done
  [ ! -e bad.npy ] || fail "OUT was created on an error: $*"
  no_temp
  echo "ok: $NP ranks: clgather-mpi $* exits $code on every rank, no OUT"
}
# bag ARGS...: `clgather-mpi embedding-bag ARGS` under NP ranks against
# the single-process `clgather embedding-bag ARGS`; where clgather has no
# such command yet (its help lists no --offsets), against clgather-mpi
# under one rank, whose output test_mpi_bag checks against the
# single-process clg_embedding_bag().
bag() {
  rm -f ref.npy
  if "$CLGATHER" embedding-bag --help 2>/dev/null | grep -q -e --offsets; then
    ref embedding-bag "$@"
  else
    "$MPIEXEC" -np 1 "$CLGMPI" embedding-bag "$@" -o ref.npy ||
      fail "reference: clgather-mpi -np 1 embedding-bag $* exited $?"
  fi
  dist embedding-bag "$@"
}
# expect_job CODE ARGS...: mpirun exits CODE; an existing OUT is unchanged.
expect_job() {
  code=$1
  shift
  echo "previous OUT" >bad.npy
  "$MPIEXEC" -np "$NP" "$CLGMPI" "$@" -o bad.npy
  got=$?
  [ "$got" = "$code" ] || fail "mpirun exited $got, not $code: $*"
  [ "$(cat bad.npy)" = "previous OUT" ] || fail "an existing OUT changed: $*"
  no_temp
  echo "ok: $NP ranks: mpirun clgather-mpi $* exits $code, OUT unchanged"
}
# expect CODE ARGS...: both.
expect() {
  expect_each "$@"
  expect_job "$@"
}

case $CASE in
gather_dups)
  # Heavy duplicates and negative ids over 7 ids; 10 rows and 30 indices
  # split unevenly over 3 and 4 ranks; int64 indices.
  gen d.npy f4 10,7 rand 1
  gen i.npy i8 6,5 ints -3 3 11
  same gather d.npy i.npy
  ;;
gather_int32)
  gen d.npy f8 11,3,2 rand 2
  gen i.npy i4 7,3 ints -11 10 12
  same gather d.npy i.npy
  ;;
gather_few_rows)
  # More ranks than rows (3 rows), fewer indices (2) than ranks: ranks
  # without rows and without indices.
  gen d.npy i2 3,5 seq
  gen i.npy i4 2 list -1,-3
  same gather d.npy i.npy
  ;;
gather_scalar)
  gen d.npy f4 5,4 rand 3
  gen i.npy i8 scalar list -2
  same gather d.npy i.npy
  ;;
gather_empty)
  # An empty table with empty indices, and rows of zero bytes.
  gen d.npy f4 0,3 seq
  gen i.npy i8 0 seq
  same gather d.npy i.npy
  gen z.npy f4 5,0 seq
  gen j.npy i8 3,2 ints -5 4 13
  same gather z.npy j.npy
  ;;
scatter_add)
  # 23 entries into 10 rows (duplicates, negative ids), int64 [N, 1].
  gen d.npy f4 10,7 rand 4
  gen i.npy i8 23,1 ints -10 9 14
  gen u.npy f4 23,7 rand 5
  same scatter-nd --reduction add d.npy i.npy u.npy
  ;;
scatter_mul_int32)
  gen d.npy f8 9,2,3 rand 6
  gen i.npy i4 17,1 ints -9 8 15
  gen u.npy f8 17,2,3 rand 7
  same scatter-nd --reduction mul d.npy i.npy u.npy
  ;;
scatter_minmax)
  # Random values, then +0 and -0 against each other: min/max between
  # zeros of both signs depend on the order the updates apply in.
  gen d.npy f4 7,5 rand 8
  gen i.npy i8 19,1 ints -7 6 16
  gen u.npy f4 19,5 rand 9
  same scatter-nd --reduction min d.npy i.npy u.npy
  gen z.npy f4 4,3 list 0,-0,1,-0,0,-1,0.5,-0,0,-0,-0,0
  gen j.npy i4 10,1 list 0,1,-4,3,2,-1,0,1,3,-3
  gen w.npy f4 10,3 list \
    -0,0,-0,0,-0,0,0,0,-0,-0,-0,-0,0,-0,0,-0,0,0,0,-0,-0,0,0,0,-0,-0,0,0,-0,-0
  same scatter-nd --reduction min z.npy j.npy w.npy
  same scatter-nd --reduction max z.npy j.npy w.npy
  ;;
scatter_none)
  # Distinct rows under reduction none; then repeated rows with
  # --duplicates last (the later entry in INDICES' order wins).
  gen d.npy i4 8,3 seq
  gen i.npy i8 6,1 list 7,-8,3,5,-2,1
  gen u.npy i4 6,3 rand 10
  same scatter-nd d.npy i.npy u.npy
  gen j.npy i4 9,1 list 0,1,0,-1,7,1,0,3,-8
  gen v.npy i4 9,3 rand 11
  same scatter-nd --duplicates last d.npy j.npy v.npy
  ;;
scatter_flat)
  # INDICES of shape [N] are row ids: the same OUT as [N, 1].
  gen d.npy f4 6,4 rand 12
  gen i.npy i8 11 ints -6 5 17
  gen i1.npy i8 11,1 ints -6 5 17
  gen u.npy f4 11,4 rand 13
  ref scatter-nd --reduction add d.npy i1.npy u.npy
  dist scatter-nd --reduction add d.npy i.npy u.npy
  ;;
scatter_few_rows)
  gen d.npy f4 3,2 rand 14
  gen i.npy i4 2,1 list 2,-3
  gen u.npy f4 2,2 rand 15
  same scatter-nd --reduction add d.npy i.npy u.npy
  ;;
bag_offsets)
  # 20 indices into 13 rows in 6 bags (one empty, the last to N), split by
  # bags over the ranks: each mode, per-sample weights, padding_idx,
  # include_last_offset, int32 offsets with int64 indices.
  gen w.npy f4 13,5 rand 21
  gen i.npy i8 20 ints 0 12 22
  gen o.npy i4 6 list 0,3,3,7,12,19
  gen ol.npy i8 7 list 0,3,3,7,12,19,20
  gen p.npy f4 20 rand 23
  bag --offsets o.npy w.npy i.npy
  bag --mode max --offsets o.npy w.npy i.npy
  bag --mode sqrt_n --padding-idx -1 --offsets o.npy w.npy i.npy
  bag --mode sum --per-sample-weights p.npy --padding-idx 4 \
    --include-last-offset --offsets ol.npy w.npy i.npy
  ;;
bag_fixed)
  # Fixed-size bags [B, L] (no OFFSETS), float64, int32 indices.
  gen w.npy f8 9,3 rand 24
  gen i.npy i4 7,3 ints 0 8 25
  gen p.npy f8 7,3 rand 26
  bag w.npy i.npy
  bag --mode sum --per-sample-weights p.npy w.npy i.npy
  ;;
bag_segments)
  # Segment ids with empty segments, num_segments past the last id.
  gen w.npy f4 10,4 rand 27
  gen i.npy i4 16 ints 0 9 28
  gen s.npy i8 16 list 0,0,1,1,1,3,3,4,6,6,6,6,7,7,7,9
  bag --mode sum --segment-ids s.npy w.npy i.npy
  bag --mode mean --segment-ids s.npy --num-segments 12 w.npy i.npy
  ;;
bag_errors)
  # An index past the rows in the last bag (the last rank's), offsets
  # that decrease, and two bag descriptors (usage).
  gen w.npy f4 13,5 rand 29
  gen j.npy i8 6 list 0,1,2,3,4,13
  gen o.npy i8 3 list 0,2,2
  gen q.npy i8 3 list 0,4,2
  expect 1 embedding-bag --offsets o.npy w.npy j.npy
  expect 1 embedding-bag --offsets q.npy w.npy j.npy
  expect 2 embedding-bag --offsets o.npy --segment-ids o.npy w.npy j.npy
  ;;
gather_oob_last)
  # The only bad index is the last one: in the last rank's block.
  gen d.npy f4 10,3 seq
  gen i.npy i8 9 list 0,-10,9,3,4,5,6,7,10
  "$CLGATHER" gather d.npy i.npy -o r.npy 2>/dev/null
  [ $? = 1 ] || fail "the reference does not exit 1"
  expect 1 gather d.npy i.npy
  ;;
scatter_dup_none)
  gen d.npy f4 10,3 seq
  gen i.npy i8 8,1 list 0,1,2,3,4,5,6,-10
  gen u.npy f4 8,3 seq
  "$CLGATHER" scatter-nd d.npy i.npy u.npy -o r.npy 2>/dev/null
  [ $? = 1 ] || fail "the reference does not exit 1"
  expect 1 scatter-nd --reduction none d.npy i.npy u.npy
  ;;
bad_input)
  # An unreadable DATA, and UPDATES of the wrong shape.
  gen i.npy i8 4,1 list 0,1,2,3
  gen u.npy f4 3,3 seq
  gen d.npy f4 5,3 seq
  expect_each 1 scatter-nd --reduction add missing.npy i.npy u.npy
  expect_job 1 scatter-nd --reduction add d.npy i.npy u.npy
  ;;
usage)
  gen d.npy f4 5,3 seq
  gen i.npy i8 4,1 list 0,1,2,3
  expect_each 2 scatter-nd --reduction bogus d.npy i.npy i.npy
  expect_job 2 gather --no-such-option d.npy i.npy
  ;;
bench)
  # A tiny run of the bench, shards on the host and on the device: it
  # runs, prints its table (4 ops: by call and through a plan) on rank 0
  # only.
  for shard in host device; do
    "$MPIEXEC" -np "$NP" "$CLGMPI" bench --rows 101 --width 5 --lookups 37 \
      --reps 1 --shard $shard >bench.txt || fail "bench exited $?"
    [ "$(grep -c '^custom 101x5 f32' bench.txt)" = 4 ] ||
      fail "bench printed: $(cat bench.txt)"
    grep -q "plan scatter reuse" bench.txt || fail "no plan row: $(cat bench.txt)"
  done
  "$MPIEXEC" -np "$NP" "$CLGMPI" bench --rows 0 2>/dev/null
  [ $? = 2 ] || fail "bench --rows 0 does not exit 2"
  "$MPIEXEC" -np "$NP" "$CLGMPI" bench --shard gpu 2>/dev/null
  [ $? = 2 ] || fail "bench --shard gpu does not exit 2"
  echo "ok: $NP ranks: bench"
  ;;
help_version)
  # No MPI job: --help and --version exit 0 on stdout; no command is 2.
  "$CLGMPI" --help >help.txt || fail "--help exited $?"
  grep -q 'usage: mpirun -np P clgather-mpi' help.txt || fail "--help text"
  grep -q 'scatter-nd' help.txt || fail "--help lists no scatter-nd"
  "$CLGMPI" gather --help >help2.txt || fail "gather --help exited $?"
  "$CLGMPI" --version >version.txt || fail "--version exited $?"
  grep -Eq '^clgather-mpi [0-9]+\.[0-9]+\.[0-9]+' version.txt ||
    fail "--version prints $(cat version.txt)"
  "$CLGMPI" -V >/dev/null || fail "-V exited $?"
  "$CLGMPI" 2>/dev/null
  [ $? = 2 ] || fail "no command does not exit 2"
  "$CLGMPI" frobnicate 2>/dev/null
  [ $? = 2 ] || fail "an unknown command does not exit 2"
  echo "ok: --help, --version, usage errors without mpirun"
  ;;
*)
  fail "unknown case '$CASE'"
  ;;
esac
exit 0
