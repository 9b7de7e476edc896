# What a build holds, and what each part needs beyond the library's own
# dependencies (CMake, a C compiler, the OpenCL ICD loader and headers,
# Threads).
#
# The default build is the library (shared and static) and the clgather
# CLI's plain commands (devices, the gathers and scatters on .npy files,
# selftest): nothing else to install. Each option below adds a part with the
# dependency it names, found here, so that a missing one stops the configure
# at once with the option and the Debian package to install. scripts/test.sh,
# .ci/run's scripts and debian/rules turn on what they need explicitly.
#
#   CLGATHER_BUILD_TOOLS     ON   the CLI, clgather (tools/)
#   CLGATHER_BUILD_ONNX      OFF  the CLI's ONNX parts: .pb tensor files,
#                                 `clgather onnx-test`, selftest's ONNX node
#                                 folders (protobuf-c, protoc-c, onnx.proto)
#   CLGATHER_BUILD_BENCH     OFF  clgather-bench, clgather-bench-scatter
#                                 (tools/bench/; not installed)
#   CLGATHER_BUILD_MPI       OFF  clgather_mpi and clgather-mpi (Open MPI)
#   CLGATHER_BUILD_TESTS     OFF  the ctest suite (Criterion); with MPI, its
#                                 mpirun tests; with the CLI and ONNX, the
#                                 CLI's tests and ONNX's conformance runs
#   CLGATHER_BUILD_EXAMPLES  OFF  examples/; test builds build them always,
#                                 and run them
#   CLGATHER_MANPAGE         ON where help2man is found (tools/CMakeLists.txt)
#   CLGATHER_INSTALL_PYTHON  ON   the Python package, plain files
#                                 (python/CMakeLists.txt)
option(CLGATHER_BUILD_TOOLS "Build the clgather command-line tool" ON)
option(CLGATHER_BUILD_ONNX
  "The CLI's ONNX parts: .pb tensor files, onnx-test (needs protobuf-c, protoc-c and onnx.proto)"
  OFF)
option(CLGATHER_BUILD_BENCH
  "Build clgather-bench and clgather-bench-scatter (not installed)" OFF)
option(CLGATHER_BUILD_MPI "Build clgather_mpi and clgather-mpi (needs MPI)" OFF)
option(CLGATHER_BUILD_TESTS "Build the test suite (needs Criterion)" OFF)
option(CLGATHER_BUILD_EXAMPLES
  "Build examples/ (test builds always do: they run them)" OFF)

# clgather_needs(OPTION WHAT DEBIAN [DETAIL]): stop the configure: OPTION is
# on and WHAT, from the Debian packages DEBIAN, was not found.
function(clgather_needs option what debian)
  set(detail "")
  if(ARGC GREATER 3)
    set(detail "; ${ARGV3}")
  endif()
  message(FATAL_ERROR "${option} needs ${what} (Debian: ${debian}${detail}); "
    "install it (scripts/install-deps.sh installs every optional package) "
    "or configure with -D${option}=OFF")
endfunction()

# pkg-config, for Criterion and protobuf-c: looked for only when a part
# needs it.
macro(clgather_pkg_config option what debian)
  find_package(PkgConfig QUIET)
  if(NOT PkgConfig_FOUND)
    clgather_needs(${option} "pkg-config to find ${what}" "pkgconf ${debian}")
  endif()
endmacro()

if(CLGATHER_BUILD_ONNX)
  if(NOT CLGATHER_BUILD_TOOLS)
    message(FATAL_ERROR "CLGATHER_BUILD_ONNX is part of the CLI: it needs "
      "CLGATHER_BUILD_TOOLS=ON, or configure with -DCLGATHER_BUILD_ONNX=OFF")
  endif()
  clgather_pkg_config(CLGATHER_BUILD_ONNX protobuf-c
    "libprotobuf-c-dev protobuf-c-compiler libonnx-dev")
  pkg_check_modules(PROTOBUF_C QUIET IMPORTED_TARGET GLOBAL libprotobuf-c)
  find_program(CLGATHER_PROTOC_C protoc-c)
  find_file(CLGATHER_ONNX_PROTO onnx.proto PATH_SUFFIXES onnx include/onnx
            DOC "onnx.proto from the ONNX development package")
  if(NOT PROTOBUF_C_FOUND)
    clgather_needs(CLGATHER_BUILD_ONNX "protobuf-c" libprotobuf-c-dev
      "pkg-config libprotobuf-c found nothing")
  elseif(NOT CLGATHER_PROTOC_C)
    clgather_needs(CLGATHER_BUILD_ONNX "protoc-c" protobuf-c-compiler)
  elseif(NOT CLGATHER_ONNX_PROTO)
    clgather_needs(CLGATHER_BUILD_ONNX "onnx.proto" libonnx-dev)
  endif()
endif()

if(CLGATHER_BUILD_MPI)
  find_package(MPI COMPONENTS C)
  if(NOT MPI_C_FOUND)
    clgather_needs(CLGATHER_BUILD_MPI "MPI's C bindings"
      "libopenmpi-dev openmpi-bin")
  endif()
endif()

if(CLGATHER_BUILD_TESTS)
  clgather_pkg_config(CLGATHER_BUILD_TESTS Criterion libcriterion-dev)
  pkg_check_modules(CRITERION QUIET IMPORTED_TARGET GLOBAL criterion)
  if(NOT CRITERION_FOUND)
    clgather_needs(CLGATHER_BUILD_TESTS "Criterion" libcriterion-dev
      "pkg-config criterion found nothing")
  endif()
  if(CLGATHER_BUILD_MPI)
    find_program(CLGATHER_MPIEXEC NAMES mpirun mpiexec)
    if(NOT CLGATHER_MPIEXEC)
      message(FATAL_ERROR "CLGATHER_BUILD_TESTS with CLGATHER_BUILD_MPI runs "
        "tests under mpirun (openmpi-bin); install it or configure with "
        "-DCLGATHER_BUILD_MPI=OFF")
    endif()
  endif()
endif()

# The libFuzzer build (tests/fuzz/, scripts/fuzz.sh) is part of the tests.
if(CLGATHER_FUZZ AND NOT CLGATHER_BUILD_TESTS)
  message(FATAL_ERROR "CLGATHER_FUZZ builds tests/fuzz/: it needs "
    "CLGATHER_BUILD_TESTS=ON (and CLGATHER_BUILD_ONNX=ON for the file "
    "readers' harnesses)")
endif()

set(_clg_parts "library")
foreach(_part TOOLS ONNX BENCH MPI TESTS EXAMPLES)
  if(CLGATHER_BUILD_${_part} OR
     (_part STREQUAL "EXAMPLES" AND CLGATHER_BUILD_TESTS))
    string(TOLOWER ${_part} _p)
    list(APPEND _clg_parts ${_p})
  endif()
endforeach()
string(REPLACE ";" ", " _clg_parts "${_clg_parts}")
message(STATUS "clgather parts: ${_clg_parts}")
