#!/usr/bin/env bash
# Installs what clgather needs to build and test, from Debian's packages.
# Run as root (or with sudo available). Skips apt when everything is present.
# `install-deps.sh hardening` also installs clang and its sanitizer/libFuzzer
# runtimes (for scripts/sanitize.sh and scripts/fuzz.sh); `install-deps.sh
# packaging` the Debian packaging tools (for scripts/test-packages.sh);
# `install-deps.sh devices` Oclgrind and Mesa's OpenCL (for scripts/test-devices.sh);
# `install-deps.sh abi` abigail-tools (for scripts/check-abi.sh);
# `install-deps.sh docs` Doxygen, Sphinx, breathe, myst-parser and the Read
# the Docs theme (for scripts/docs.sh), and matplotlib (scripts/plot_ratios.py).
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd   # OpenCL + CPU device
  libcriterion-dev                                    # unit tests
  zlib1g-dev                                          # CLI: deflated .npz inputs
  libprotobuf-c-dev protobuf-c-compiler libonnx-dev   # ONNX .pb / model reading
  libonnx-testdata                                    # ONNX conformance data
  help2man                                            # clgather.1 man page
  python3-numpy python3-pyopencl python3-pytest       # Python package tests
  python3-torch                                       # torch, DLPack and embedding_bag tests
  python3-onnx                                        # clgather.onnx_backend, tests
  python3-venv python3-pip python3-setuptools         # python_venv: pip install ./python
  gnuplot-nox                                         # scripts/plot_bench.sh
  libclblast-dev                   # examples/clblast_pipeline.c (not the library)
  libstarpu-dev                    # examples/starpu_gather.c (not the library)
  libopencv-dev                    # examples/opencv_gather.cpp (not the library)
  libopenmpi-dev openmpi-bin       # clgather_mpi and clgather-mpi
)
if [ "${1:-}" = "hardening" ]; then
  packages+=(clang libclang-rt-dev)
fi
# `install-deps.sh devices`: the other OpenCL implementations the suites
# run on (scripts/test-devices.sh): Oclgrind, a simulated GPU with memory,
# race and uninitialized-value checks, and Mesa's Rusticl (with Clover, in
# mesa-opencl-icd), whose llvmpipe device runs on the CPU.
if [ "${1:-}" = "devices" ]; then
  packages+=(oclgrind mesa-opencl-icd)
fi
# `install-deps.sh abi`: abidw and abidiff (scripts/check-abi.sh).
if [ "${1:-}" = "abi" ]; then
  packages+=(abigail-tools)
fi
# `install-deps.sh docs`: the documentation site (scripts/docs.sh): the API
# reference from the headers (doxygen), assembled with the guides by Sphinx.
if [ "${1:-}" = "docs" ]; then
  packages+=(doxygen python3-sphinx python3-breathe python3-myst-parser
    python3-sphinx-rtd-theme python3-matplotlib)
fi
# `install-deps.sh packaging`: what scripts/test-packages.sh needs to build
# the Debian packages (debian/) and check them.
if [ "${1:-}" = "packaging" ]; then
  packages+=(debhelper dh-python dpkg-dev fakeroot lintian man-db)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
