#!/usr/bin/env bash
# clgather on the OpenCL implementations beyond POCL's pthread CPU driver
# (where README's test command runs): CI runs this before it.
#  1. POCL's `basic` driver (POCL_DEVICES=basic: one work-group at a time,
#     work-items mapped otherwise than by `pthread`): the ctest suite,
#     `clgather selftest` included;
#  2. Oclgrind, a simulated GPU that checks every memory access, data races
#     and uninitialized values (tests/oclgrind/suites.sh): the operators'
#     suites, the device index checks, onnx-test and `clgather selftest
#     --quick`, any report of Oclgrind's a failure;
#  3. Mesa's Rusticl on llvmpipe (tests/rusticl/suites.sh): the
#     reproductions of its bugs, the gathers' suites, every way of every
#     operator, selftest and ONNX's node tests.
# Builds in CLGATHER_BUILD_DIR (default build, as scripts/test.sh, which
# then finds it built), with scripts/test.sh's options: every optional part.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh devices
. scripts/icd-pocl.sh
build=${CLGATHER_BUILD_DIR:-build}
cmake -S . -B "$build" -DCLGATHER_WERROR=ON -DCLGATHER_BUILD_TESTS=ON \
  -DCLGATHER_BUILD_ONNX=ON -DCLGATHER_BUILD_BENCH=ON -DCLGATHER_BUILD_MPI=ON \
  >/dev/null
cmake --build "$build" -j"$(nproc)"

start=$SECONDS
echo "test-devices: POCL basic"
# What runs on basic: every kernel and every path where the driver's
# scheduling shows (the operators' suites on CPU and GPU kernels, the device
# index checks, wait lists and events, the asynchronous checked mode,
# plans, splitting, the bad-input catalogues, selftest, ONNX's node
# tests), with one generated case in four (CLGATHER_TEST_SAMPLE). The
# whole suite was on course for over 25 minutes on basic here, with POCL's
# kernel cache cold for the device (a fresh machine) and the machine busy:
# the suites that rerun the same kernels with settings that do not depend
# on the driver (each CPU variant forced, faults injected, the tuner, the
# program cache, MPI, Python, packaging) run on pthread only.
# Left out on basic, with the reason: the tests whose commands wait for a
# user event that the host completes later, or that call from a second
# thread while the first waits in OpenCL (`skip`): POCL 3.1's basic driver
# hangs in clSetUserEventStatus when commands wait for the event
# (pocl/pocl#1177) and with two threads on one context; they pass on the
# pthread driver, and under ThreadSanitizer there (scripts/sanitize.sh).
skip='*/concurrent_threads_share_context|*/wait_list_is_honoured'
skip+='|*/waits_for_the_wait_list|*/wait_does_not_wait_for_later_commands'
skip+='|*/two_threads|*/async_enqueue_does_not_wait'
skip+='|*/async_returns_before_its_wait_list|*/wrap_and_clip_have_no_verdict'
skip+='|*/wait_list_is_respected_without_blocking'
skip+='|*/wait_twice_from_two_threads_and_release'
# ... and a user event the host fails later from another thread while the
# call waits (index_pass/failed_wait_list_event): basic's failure
# propagation crashed there ("PTHREAD ERROR in pocl_update_event_failed()",
# a run of the whole suite at 32a723d; alone it passes); pthread runs it.
skip+='|*/failed_wait_list_event'
# And the gather family's forced_variant_* Tests: CPU kernel variants
# forced, which rerun kernels the suites run already (pthread only, as
# above).
skip+='|*/forced_variant_*'
# A test that hangs all the same fails after 10 minutes, not CI's 90.
basic='test_gather|test_gather_elements|test_gather_nd|test_scatter_elements'
basic+='|test_scatter_nd|test_[a-z_]*_gpu_kernels|test_index_pass'
basic+='|test_scatter_device|test_[a-z_]*_device_gpu|test_outcome|test_plans'
basic+='|test_scatter_plans|test_bag_plans|test_split|test_bag_split|test_catalogue'
basic+='|test_scatter_catalogue'
basic+='|test_embedding_bag|test_cli_selftest|onnx_conformance|readme_example'
basic+='|test_fused|test_gather_fused|test_ways'
basic+='|test_gather_block_quantized'
CLGATHER_TEST_SAMPLE=4 \
  CRITERION_TEST_PATTERN="!($skip)" \
  POCL_DEVICES=basic ctest --test-dir "$build" --output-on-failure \
  -j"$(nproc)" --timeout 600 -R "^($basic)\$"
echo "test-devices: POCL basic took $((SECONDS - start)) s"

start=$SECONDS
echo "test-devices: Oclgrind"
bash tests/oclgrind/suites.sh "$build"
echo "test-devices: Oclgrind took $((SECONDS - start)) s"

start=$SECONDS
echo "test-devices: Rusticl"
env -u OCL_ICD_VENDORS bash tests/rusticl/suites.sh "$build"
echo "test-devices: Rusticl took $((SECONDS - start)) s"
