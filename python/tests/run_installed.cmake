# cmake -P script run by the python_install test (python/CMakeLists.txt):
# install the build into a scratch prefix, then run installed_check.py with
# only that prefix's package directory on PYTHONPATH and no CLGATHER_LIBRARY.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}): ${err}")
endif()
execute_process(
  COMMAND env -u CLGATHER_LIBRARY PYTHONDONTWRITEBYTECODE=1
    PYTHONPATH=${prefix}/${PYTHON_DIR} /usr/bin/python3 ${CHECK} ${prefix}
  WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed_check.py failed (${rc})")
endif()
