#!/usr/bin/env bash
# Install dependencies, build with warnings as errors, run the whole suite
# (unit tests, CLI tests, ONNX conformance, install/consumer test, the lean
# default build) on the default OpenCL device (POCL's CPU device when there
# is no GPU). Every optional part is turned on (cmake/Options.cmake: the
# default build is the library and the CLI only); scripts/test-devices.sh
# configures the same build folder with the same options.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
. scripts/icd-pocl.sh
build=${CLGATHER_BUILD_DIR:-build}
cmake -S . -B "$build" -DCLGATHER_WERROR=ON -DCLGATHER_BUILD_TESTS=ON \
  -DCLGATHER_BUILD_ONNX=ON -DCLGATHER_BUILD_BENCH=ON -DCLGATHER_BUILD_MPI=ON
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
