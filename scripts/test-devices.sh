#!/usr/bin/env bash
# clgather on the OpenCL implementations beyond POCL's pthread CPU driver
# (where README's test command runs): CI runs this before it.
#  1. POCL's `basic` driver (POCL_DEVICES=basic: one work-group at a time,
#     work-items mapped otherwise than by `pthread`): the ctest suite,
#     `clgather selftest` included;
#  2. Oclgrind, a simulated GPU that checks every memory access, data races
#     and uninitialized values (tests/oclgrind/suites.sh): the operators'
#     suites, the device index checks, onnx-test and `clgather selftest
#     --quick`, any report of Oclgrind's a failure.
# Builds in CLGATHER_BUILD_DIR (default build, as scripts/test.sh, which
# then finds it built).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh devices
build=${CLGATHER_BUILD_DIR:-build}
cmake -S . -B "$build" -DCLGATHER_WERROR=ON >/dev/null
cmake --build "$build" -j"$(nproc)"

start=$SECONDS
echo "test-devices: POCL basic"
# test_shard names its own devices (two pthread devices of one context).
POCL_DEVICES=basic ctest --test-dir "$build" --output-on-failure \
  -j"$(nproc)" -E '^test_shard$'
echo "test-devices: POCL basic took $((SECONDS - start)) s"

start=$SECONDS
echo "test-devices: Oclgrind"
bash tests/oclgrind/suites.sh "$build"
echo "test-devices: Oclgrind took $((SECONDS - start)) s"
