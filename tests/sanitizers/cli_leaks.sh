#!/usr/bin/env bash
# LeakSanitizer-clean runs of the sanitized clgather CLI: a normal gather
# (.npy and .pb, output checked byte for byte) and every error path (bad
# axis, out-of-bounds index, missing file, unknown option, bad extension,
# hostile files, bad --device). Each run must end with its documented exit
# status and without any sanitizer report; a leak (or any other report)
# fails the script. Inputs are written here with printf, no Python.
#
# Usage: cli_leaks.sh path/to/clgather WORK_DIR
# Registered as the ctest `cli_leaks` in builds with CLGATHER_SANITIZE
# containing address (cmake/Sanitize.cmake); scripts/sanitize.sh runs it.
set -uo pipefail

cli=${1:?usage: cli_leaks.sh path/to/clgather WORK_DIR}
work=${2:?usage: cli_leaks.sh path/to/clgather WORK_DIR}
here=$(cd "$(dirname "$0")" && pwd)
case "$cli" in /*) ;; *) cli="$PWD/$cli" ;; esac

# Leak checking on, whatever the caller set; a report aborts the process so
# its exit status cannot be mistaken for one of the CLI's own (1, 2, 3).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:halt_on_error=1:abort_on_error=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:abort_on_error=1:print_stacktrace=1"
case "${LSAN_OPTIONS:-}" in
*suppressions=*) ;;
*) export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/lsan.supp" ;;
esac

rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

# ------------------------------------------------------------ file writers

# le VALUE BYTES: VALUE as BYTES little-endian bytes (printf escapes).
le() {
  local v=$1 n=$2 i
  for ((i = 0; i < n; i++)); do
    printf "\\x$(printf %02x $(((v >> (8 * i)) & 255)))"
  done
}

# npy FILE DESCR SHAPE [header-length-override]: NumPy 1.0 header; append the
# data to FILE afterwards.
npy() {
  local file=$1 descr=$2 shape=$3 hdr pad len
  hdr="{'descr': '$descr', 'fortran_order': False, 'shape': $shape, }"
  pad=$(((64 - (10 + ${#hdr} + 1) % 64) % 64))
  hdr="$hdr$(printf '%*s' "$pad" '')"$'\n'
  len=${4:-${#hdr}}
  { printf '\x93NUMPY\x01\x00'; le "$len" 2; printf '%s' "$hdr"; } >"$file"
}

# Normal inputs: int32 data [3, 2] = 1..6, int64 indices [2] = {2, -3}.
npy data.npy '<i4' '(3, 2)'
for v in 1 2 3 4 5 6; do le $v 4; done >>data.npy
npy idx.npy '<i8' '(2,)'
{ le 2 8; le -3 8; } >>idx.npy
# Expected output bytes: rows 2 and 0 of data.
{ for v in 5 6 1 2; do le $v 4; done; } >want.bin

# The same as ONNX TensorProto (.pb): dims (field 1), data_type (field 2:
# INT32 = 6, INT64 = 7), raw_data (field 9).
{ printf '\x08\x03\x08\x02\x10\x06\x4a\x18'; for v in 1 2 3 4 5 6; do le $v 4; done; } >data.pb
{ printf '\x08\x02\x10\x07\x4a\x10'; le 2 8; le -3 8; } >idx.pb

# Out-of-bounds index: 3 on an axis of size 3.
npy oob.npy '<i8' '(2,)'
{ le 0 8; le 3 8; } >>oob.npy

# Hostile files.
npy huge.npy '<i4' '(4611686018427387904, 4)' # byte size overflows
le 1 4 >>huge.npy
npy short.npy '<i4' '(1000,)' # claims 4000 bytes, holds 8
{ le 1 4; le 2 4; } >>short.npy
npy hdrlen.npy '<i4' '(2,)' 60000 # header length past the end of the file
le 1 4 >>hdrlen.npy
npy bigendian.npy '>i4' '(2,)'
{ le 1 4; le 2 4; } >>bigendian.npy
npy badheader.npy '<i4' '(2, -1)' # negative dimension
le 1 4 >>badheader.npy
printf 'not a numpy file at all' >garbage.npy
printf '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01' >garbage.pb
# raw_data of 4 bytes for dims [3, 2] int32 (needs 24).
{ printf '\x08\x03\x08\x02\x10\x06\x4a\x04'; le 1 4; } >short.pb
# data_type 8 (string): unsupported element type.
printf '\x08\x01\x10\x08\x3a\x01x' >string.pb
: >empty.npy
printf 'data' >data.txt

# ------------------------------------------------------------------ runs

failures=0
runs=0

# run WANT_STATUS NAME ARGS...: run the CLI, check status and stderr.
run() {
  local want=$1 name=$2 rc
  shift 2
  runs=$((runs + 1))
  rm -f out.npy out.pb
  "$cli" "$@" >"$name.out" 2>"$name.err"
  rc=$?
  if grep -qE 'Sanitizer|runtime error:' "$name.err"; then
    echo "FAIL $name: sanitizer report (exit status $rc):"
    sed 's/^/    /' "$name.err"
    failures=$((failures + 1))
  elif [ "$rc" -ne "$want" ]; then
    echo "FAIL $name: exit status $rc, expected $want; stderr:"
    sed 's/^/    /' "$name.err"
    failures=$((failures + 1))
  elif [ "$want" -ne 0 ] && { [ -e out.npy ] || [ -e out.pb ]; }; then
    echo "FAIL $name: an output file was created on error"
    failures=$((failures + 1))
  else
    echo "ok   $name (exit $rc)"
  fi
}

# check_output NAME FILE: the last 16 bytes of FILE (the data) are want.bin.
check_output() {
  if ! tail -c 16 "$2" | cmp -s - want.bin; then
    echo "FAIL $1: output data differs from the reference"
    failures=$((failures + 1))
  fi
}

# Normal use.
run 0 gather_npy gather --axis 0 data.npy idx.npy -o out.npy
check_output gather_npy out.npy
# .npz out and back in (the zip writer and reader), a missing member, and
# -v with the slow-call notice's thread (started, then joined when the
# call returns).
run 0 gather_npz_out gather data.npy idx.npy -o g.npz
run 1 gather_npz_in_oob gather g.npz:g idx.npy -o out.npy # read; then index 2 of 2 rows
run 1 npz_missing_member gather g.npz:nope idx.npy -o out.npy
export CLGATHER_CLI_NOTICE_MS=0
run 0 gather_verbose -v gather data.npy idx.npy -o out.npy
unset CLGATHER_CLI_NOTICE_MS
run 0 gather_pb gather --axis 0 data.pb idx.pb -o out.pb
check_output gather_pb out.pb
run 0 gather_mixed gather -a -2 data.pb idx.npy -o out.npy
check_output gather_mixed out.npy
run 0 devices devices
run 0 help --help
run 0 version --version

# Invalid input (exit 1).
run 1 bad_axis gather --axis 2 data.npy idx.npy -o out.npy
run 1 bad_axis_negative gather --axis -3 data.npy idx.npy -o out.npy
run 1 oob_index gather data.npy oob.npy -o out.npy
run 1 oob_index_pb gather data.pb oob.npy -o out.pb
run 1 missing_file gather no_such_file.npy idx.npy -o out.npy
run 1 missing_indices gather data.npy no_such_file.pb -o out.npy
run 1 hostile_huge gather huge.npy idx.npy -o out.npy
run 1 hostile_short gather short.npy idx.npy -o out.npy
run 1 hostile_header_length gather hdrlen.npy idx.npy -o out.npy
run 1 hostile_bigendian gather bigendian.npy idx.npy -o out.npy
run 1 hostile_negative_dim gather badheader.npy idx.npy -o out.npy
run 1 hostile_garbage_npy gather garbage.npy idx.npy -o out.npy
run 1 hostile_empty_npy gather empty.npy idx.npy -o out.npy
run 1 hostile_garbage_pb gather garbage.pb idx.npy -o out.npy
run 1 hostile_short_pb gather short.pb idx.npy -o out.npy
run 1 hostile_string_pb gather string.pb idx.npy -o out.npy

# Usage errors (exit 2).
run 2 bad_extension_in gather data.txt idx.npy -o out.npy
run 2 bad_extension_out gather data.npy idx.npy -o out.txt
run 2 unknown_option gather --bogus data.npy idx.npy -o out.npy
run 2 unknown_command frobnicate
run 2 no_command
run 2 missing_output gather data.npy idx.npy
run 2 bad_axis_value gather --axis x data.npy idx.npy -o out.npy
run 2 option_without_value gather data.npy idx.npy -o

# Device errors (exit 3).
run 3 bad_device_name gather --device no-such-device data.npy idx.npy -o out.npy
run 3 bad_device_index gather --device 99:0 data.npy idx.npy -o out.npy

echo "cli_leaks: $runs runs, $failures failed"
[ "$failures" -eq 0 ]
