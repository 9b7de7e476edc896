#!/usr/bin/env bash
# Quick start: install dependencies, build, run ONNX's own Gather conformance
# tests and a sample `clgather gather` on the default OpenCL device.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# With the CLI's ONNX parts (onnx-test, .pb files; cmake/Options.cmake).
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCLGATHER_BUILD_ONNX=ON \
  >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
clg=build/tools/clgather
"$clg" devices
"$clg" onnx-test
data=/usr/share/libonnx-testdata/data/node/test_gather_0/test_data_set_0
"$clg" gather --axis 0 "$data/input_0.pb" "$data/input_1.pb" -o build/demo_out.npy
echo "wrote build/demo_out.npy"
