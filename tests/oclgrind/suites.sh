#!/usr/bin/env bash
# suites.sh BUILD: clgather on Oclgrind (a simulated GPU: CL_DEVICE_TYPE
# says GPU, so the GPU kernels run, with their work-groups, local memory and
# barriers), every run under check.sh: Oclgrind's API, data-race and
# uninitialized-value checks, any report a failure.
#
# What runs, and why not more: Oclgrind interprets every work-item (a
# gather of a few KiB takes tens of milliseconds; test_gather whole took 4
# minutes), so the suites run here are the operators' own, with one in ten
# of their generated cases (CLGATHER_TEST_SAMPLE below), the index
# checks on the device, the asynchronous checked mode (selftest's cases),
# the plans (test_plans; EmbeddingBag's, test_bag_plans: 14 s), strided
# tensors (test_strided, and EmbeddingBag's: test_bag_strided),
# EmbeddingBag on packed tables (test_bag_split: 10 s), and the CLI's
# conformance runs; the suites that repeat the same kernels under other
# settings (kernel variants forced: the forced_variant_* Tests, left out by
# `skip` below; faults injected, the bad-input catalogues, sharding, the
# gathers' splitting) run on POCL.
#
# Left out under Oclgrind, with the reason:
#  - tests that call OpenCL from a second thread while the first waits in
#    an OpenCL call (gather/concurrent_threads_share_context,
#    gather/wait_list_is_honoured, index_pass/waits_for_the_wait_list,
#    index_pass/failed_wait_list_event, plans/two_threads,
#    outcome/wait_does_not_wait_for_later_commands: a thread completes a
#    user event the first one's commands wait for): Oclgrind's runtime is
#    not thread-safe (jrprice/Oclgrind#28, #202); they crash or hang inside
#    Oclgrind. They pass on POCL, and the library's locking is checked
#    under ThreadSanitizer there (scripts/sanitize.sh).
#  - gather/more_slices_than_ndrange_dim1 (a gather of more than 65535
#    slices, an NDRange dimension's limit on some devices: 128 s to
#    simulate, every other test of the suite under a second) and
#    gather_elements/larger_tensors (half a million elements: a minute): the
#    kernels they run run in the other tests on small tensors.
#  - test_outcome: its tests make hundreds of calls in one process, and
#    with every buffer kept alive (keep_buffers.c) Oclgrind slows with each
#    (valid_inputs_match_the_reference: 12 s without it, over 10 minutes
#    with it; others past 3 minutes): the asynchronous checked mode runs
#    here in selftest's asynchronous cases and in test_plans.
set -uo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
failed=()
check() { # check NAME COMMAND...: every run, then the failures at the end
  "$here/check.sh" "$@" || failed+=("$1")
}
t=$build/tests
cli=$build/tools/clgather
# One Criterion worker (-j1): each test is its own process under Oclgrind.
# One generated case in CLGATHER_TEST_SAMPLE (tests/support/testutil.h):
# the suites' fixed cases all run, their random sweeps thinned.
export CLGATHER_CACHE_DIR=off
# No buffer released while a process runs (keep_buffers.c says why).
mkdir -p "$build/tests/oclgrind"
export CLGATHER_OCLGRIND_PRELOAD=$build/tests/oclgrind/keep_buffers.so
cc -std=c11 -O2 -shared -fPIC -o "$CLGATHER_OCLGRIND_PRELOAD" \
  "$here/keep_buffers.c" || exit 1
case $CLGATHER_OCLGRIND_PRELOAD in /*) ;; *)
  CLGATHER_OCLGRIND_PRELOAD=$PWD/$CLGATHER_OCLGRIND_PRELOAD ;;
esac
export CLGATHER_TEST_SAMPLE=${CLGATHER_TEST_SAMPLE:-10}
skip='!(*/concurrent_threads_share_context|*/wait_list_is_honoured|*/waits_for_the_wait_list|*/failed_wait_list_event|*/two_threads|*/wait_does_not_wait_for_later_commands|*/more_slices_than_ndrange_dim1|*/larger_tensors'
skip+='|*/valid_inputs_match_the_reference|*/forced_variant_*)'

check onnx-test "$cli" onnx-test
check selftest "$cli" selftest --quick
for s in test_gather test_gather_elements test_gather_nd \
  test_scatter_elements test_scatter_nd test_scatter_device \
  test_index_pass test_plans test_bag_plans test_strided test_embedding_bag \
  test_bag_split test_bag_strided test_gather_block_quantized; do
  check "$s" "$t/$s" -j1 --filter "$skip"
done
# Gather's CPU kernels too (Oclgrind is given a GPU's kernels; test builds read
# CLGATHER_TEST_KERNEL_DEVICE): its CPU kernels checked for races as well.
CLGATHER_TEST_KERNEL_DEVICE=cpu check "test_gather (CPU kernels)" \
  "$t/test_gather" -j1 --filter "$skip"
# GatherBlockQuantized's CPU form too (runs of 128 elements a work-item,
# whole blocks a segment, vector stores).
CLGATHER_TEST_KERNEL_DEVICE=cpu check "test_gather_block_quantized (CPU kernels)" \
  "$t/test_gather_block_quantized" -j1
# The scatters' CPU kernels after the device's index pass (entries in
# runs: the claim without atomics, the scatter of distinct targets, float
# vectors): the Tests that reach them, CPU kernels (30 s; the whole suite
# so planned took 162 s).
CLGATHER_TEST_KERNEL_DEVICE=cpu check "test_scatter_device (CPU kernels)" \
  "$t/test_scatter_device" -j1 \
  --filter '@(*/distinct_slices_in_runs|*/innermost_axis_*|*/vector_lanes)'
# Gather's fused kernel (one work-group checks and gathers: way FUSED) on
# every case of its suite, and its own tests (a work-group of 256 here, a
# simulated GPU: the reduction and its barriers).
check test_fused "$t/test_fused" -j1
CLGATHER_TEST_FUSED=always check "test_gather (fused)" \
  "$t/test_gather" -j1 --filter "$skip"
# Every way of checking index values on every operator that takes it,
# a valid and a refused call each (Oclgrind reports an access, race or
# uninitialized value any way's kernels make).
check test_ways "$t/test_ways" -j1
# EmbeddingBag's CPU variant (a block of columns per work-item), forced.
CLGATHER_VARIANT=block check "test_embedding_bag (BLOCK)" \
  "$t/test_embedding_bag" -j1 --filter "$skip"
# And its vector variant (VEC, CLGATHER_VARIANT=item_pf), forced.
CLGATHER_VARIANT=item_pf check "test_embedding_bag (VEC)" \
  "$t/test_embedding_bag" -j1 --filter "$skip"
# Every check ran; any that failed fails the step (and CI with it).
if [ ${#failed[@]} -gt 0 ]; then
  echo "oclgrind: ${#failed[@]} check(s) failed: ${failed[*]}"
  exit 1
fi
echo "oclgrind: every check passed, no report"
