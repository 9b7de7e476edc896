# cmake -P script run by the install_consumer test. WITH_MPI (ON/OFF): the
# build has clgather_mpi (CLGATHER_BUILD_MPI), so the installed package has
# the component mpi and clgather-mpi.pc, and consumer_mpi.c is built too.
# The test passes on the last line's "pkg-config consumer OK" alone: every
# check comes before it.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message(STATUS "${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED WITH_MPI)
  set(WITH_MPI OFF)
endif()
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

file(GLOB mpi_files ${prefix}/lib*/cmake/clgather/clgather_mpiTargets.cmake
  ${prefix}/lib*/pkgconfig/clgather-mpi.pc)
list(LENGTH mpi_files n_mpi_files)
if(WITH_MPI AND NOT n_mpi_files EQUAL 2)
  message(FATAL_ERROR "a build with MPI installed neither or not both of "
    "clgather_mpiTargets.cmake and clgather-mpi.pc: ${mpi_files}")
elseif(NOT WITH_MPI AND NOT n_mpi_files EQUAL 0)
  message(FATAL_ERROR "a build without MPI installed ${mpi_files}")
endif()

# 1. find_package(clgather CONFIG), shared and static targets (and with MPI
# the component mpi: clgather::clgather_mpi).
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
    -DWITH_MPI=${WITH_MPI})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
run(${WORK_DIR}/build/consumer_static)

run(${WORK_DIR}/build/consumer_cl)

if(WITH_MPI)
  run(${WORK_DIR}/build/consumer_mpi)
  # Where MPI cannot be found (CMAKE_DISABLE_FIND_PACKAGE_MPI stands for a
  # machine without MPI's development files), plain find_package(clgather)
  # still works, and only COMPONENTS mpi fails, saying why.
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build-nompi
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
      -DCMAKE_DISABLE_FIND_PACKAGE_MPI=TRUE -DWITH_MPI=OFF)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}
      -B ${WORK_DIR}/build-nompi-required
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
      -DCMAKE_DISABLE_FIND_PACKAGE_MPI=TRUE -DWITH_MPI=ON
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "needs MPI's C bindings")
    message(FATAL_ERROR "find_package(clgather REQUIRED COMPONENTS mpi) "
      "without MPI did not fail as it should (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "without MPI: find_package(clgather) works, COMPONENTS mpi "
    "fails as it should")
endif()

# 2. pkg-config: nothing but `pkg-config --cflags --libs clgather` (plus an
# rpath to find the scratch prefix at run time). consumer_cl.c calls OpenCL
# itself, so the link fails unless the .pc file requires OpenCL publicly;
# likewise consumer_mpi.c and MPI with clgather-mpi.pc.
file(GLOB pcdir LIST_DIRECTORIES true ${prefix}/lib*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
file(GLOB libdir LIST_DIRECTORIES true ${prefix}/lib*)
list(GET libdir 0 libdir)
set(pc_consumers clgather consumer clgather consumer_cl)
if(WITH_MPI)
  list(APPEND pc_consumers clgather-mpi consumer_mpi)
endif()
while(pc_consumers)
  list(POP_FRONT pc_consumers module src)
  run(pkg-config --cflags --libs ${module})
  string(STRIP "${last_output}" flags)
  if(module STREQUAL "clgather")
    set(wanted -lclgather -lOpenCL)
  else()
    # MPI's own flags differ between MPIs: consumer_mpi's MPI_Initialized
    # checks that they come too.
    set(wanted -lclgather_mpi -lclgather -lOpenCL)
  endif()
  foreach(lib IN LISTS wanted)
    if(NOT flags MATCHES "(^| )${lib}( |$)")
      message(FATAL_ERROR "pkg-config --libs ${module} lacks ${lib}: ${flags}")
    endif()
  endforeach()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(${C_COMPILER} -std=c11 ${SOURCE_DIR}/${src}.c ${flags}
      -Wl,-rpath,${libdir} -o ${WORK_DIR}/${src}_pc)
  run(${WORK_DIR}/${src}_pc)
endwhile()
message("pkg-config consumer OK")
