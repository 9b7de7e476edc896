# cmake -P script run by the install_consumer test.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message(STATUS "${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# 1. find_package(clgather CONFIG), shared and static targets.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
run(${WORK_DIR}/build/consumer_static)

run(${WORK_DIR}/build/consumer_cl)

# 2. pkg-config: nothing but `pkg-config --cflags --libs clgather` (plus an
# rpath to find the scratch prefix at run time). consumer_cl.c calls OpenCL
# itself, so the link fails unless the .pc file requires OpenCL publicly.
file(GLOB pcdir LIST_DIRECTORIES true ${prefix}/lib*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
run(pkg-config --cflags --libs clgather)
string(STRIP "${last_output}" flags)
if(NOT flags MATCHES "(^| )-lOpenCL( |$)")
  message(FATAL_ERROR "pkg-config --libs clgather lacks -lOpenCL: ${flags}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
file(GLOB libdir LIST_DIRECTORIES true ${prefix}/lib*)
list(GET libdir 0 libdir)
foreach(src consumer consumer_cl)
  run(${C_COMPILER} -std=c11 ${SOURCE_DIR}/${src}.c ${flags}
      -Wl,-rpath,${libdir} -o ${WORK_DIR}/${src}_pc)
  run(${WORK_DIR}/${src}_pc)
endforeach()
message("pkg-config consumer OK")
