# cmake -P script run by the lean_build test (tests/lean/CMakeLists.txt).
# The test passes on the last line's "lean build OK" alone: every check
# comes before it.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

# run_fails(CODE REGEX... COMMAND ...): the command exits CODE (any non-zero
# code for "fail") and its output matches every REGEX.
function(run_fails code)
  cmake_parse_arguments(F "" "" "MATCH;COMMAND" ${ARGN})
  execute_process(COMMAND ${F_COMMAND} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR (NOT code STREQUAL "fail" AND NOT rc EQUAL code))
    message(FATAL_ERROR "expected exit ${code}, got ${rc}: ${F_COMMAND}\n"
      "${out}\n${err}")
  endif()
  # CMake wraps and indents its error messages: compare words.
  string(REGEX REPLACE "[ \n]+" " " words "${out}${err}")
  foreach(re IN LISTS F_MATCH)
    if(NOT words MATCHES "${re}")
      message(FATAL_ERROR "the output of ${F_COMMAND} lacks '${re}':\n"
        "${out}\n${err}")
    endif()
  endforeach()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(build ${WORK_DIR}/build)
# What a machine with only the OpenCL packages lacks, hidden: pkg-config
# (through which Criterion, protobuf-c and StarPU are found), MPI, CLBlast.
set(hide -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLBlast=ON)
set(tool_args -G ${GENERATOR} -DCMAKE_C_COMPILER=${C_COMPILER})
if(MAKE_PROGRAM)
  list(APPEND tool_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()

# 1. The default configure: no CLGATHER_BUILD_* option given. It must hold
# the library and the CLI only, and never look for protoc-c or onnx.proto.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${build} ${tool_args} ${hide}
  -DCLGATHER_WERROR=${WERROR})
if(NOT last_output MATCHES "clgather parts: library, tools\n")
  message(FATAL_ERROR "the default configure holds more than the library "
    "and the CLI:\n${last_output}")
endif()
file(STRINGS ${build}/CMakeCache.txt looked REGEX
  "^(CLGATHER_PROTOC_C|CLGATHER_ONNX_PROTO|CLGATHER_MPIEXEC|CRITERION_[A-Z]+|PROTOBUF_C_[A-Z]+|MPI_C_[A-Z_]+):")
if(looked)
  message(FATAL_ERROR "the default configure looked for an optional "
    "dependency: ${looked}")
endif()
message(STATUS "lean configure: library and CLI, no optional dependency "
  "looked for")

# 2. Its default targets: the libraries, the CLI (and its man page where
# help2man is installed).
run(${CMAKE_COMMAND} --build ${build} --parallel 2)
foreach(f libclgather.so libclgather.a tools/clgather)
  if(NOT EXISTS ${build}/${f})
    message(FATAL_ERROR "the lean build made no ${f}")
  endif()
endforeach()
message(STATUS "lean build: built")

# 3. The CLI without ONNX: its plain commands are there, onnx-test and .pb
# files say how to get them. No device is opened.
set(cli ${build}/tools/clgather)
run(${cli} --version)
if(NOT last_output STREQUAL "clgather ${VERSION}\n")
  message(FATAL_ERROR "clgather --version: '${last_output}'")
endif()
run(${cli} --help)
if(NOT last_output MATCHES "built without ONNX")
  message(FATAL_ERROR "clgather --help does not say that ONNX is not "
    "built:\n${last_output}")
endif()
run_fails(2 MATCH "onnx-test is not in this build" "CLGATHER_BUILD_ONNX=ON"
  COMMAND ${cli} onnx-test)
run_fails(1 MATCH "without ONNX TensorProto" "CLGATHER_BUILD_ONNX=ON"
  COMMAND ${cli} gather ${WORK_DIR}/data.pb ${WORK_DIR}/idx.npy
          -o ${WORK_DIR}/out.npy)
message(STATUS "lean CLI: --version, --help, onnx-test and .pb refused")

# 4. Its install: find_package(clgather) and pkg-config consumers, built
# and run (tests/install/run_consumer.cmake, without MPI).
run(${CMAKE_COMMAND} -DBUILD_DIR=${build} -DWITH_MPI=OFF
  -DSOURCE_DIR=${SOURCE_DIR}/tests/install/consumer
  -DWORK_DIR=${WORK_DIR}/install -DC_COMPILER=${C_COMPILER}
  -P ${SOURCE_DIR}/tests/install/run_consumer.cmake)
message(STATUS "lean install: CMake and pkg-config consumers run")

# 5. An optional part turned on without its dependency stops the configure,
# naming the option and the Debian package.
foreach(part "TESTS;libcriterion-dev" "ONNX;libprotobuf-c-dev"
             "MPI;libopenmpi-dev")
  list(GET part 0 opt)
  list(GET part 1 deb)
  set(others "")
  foreach(o TESTS ONNX MPI)
    if(NOT o STREQUAL opt)
      list(APPEND others -DCLGATHER_BUILD_${o}=OFF)
    endif()
  endforeach()
  run_fails(fail MATCH "CLGATHER_BUILD_${opt} needs" "${deb}"
    "-DCLGATHER_BUILD_${opt}=OFF"
    COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${build} ${hide}
            -DCLGATHER_BUILD_${opt}=ON ${others})
endforeach()
message(STATUS "lean configure: CLGATHER_BUILD_TESTS, _ONNX and _MPI stop "
  "without their dependencies, naming them")
message("lean build OK")
