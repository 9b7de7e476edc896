#!/usr/bin/env bash
# Install dependencies, build with warnings as errors, run the whole suite
# (unit tests, CLI tests, ONNX conformance, install/consumer test) on the
# default OpenCL device (POCL's CPU device when there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build=${CLGATHER_BUILD_DIR:-build}
cmake -S . -B "$build" -DCLGATHER_WERROR=ON
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
