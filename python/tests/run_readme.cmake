# Runs README.md's Python example (its first ```python block) with Debian's
# /usr/bin/python3 on the built library: the example must run as written.
# Usage: cmake -DREADME=README.md -DWORK_DIR=dir -P run_readme.cmake
file(READ ${README} text)
string(FIND "${text}" "```python\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "no ```python block in ${README}")
endif()
math(EXPR start "${start} + 10")
string(SUBSTRING "${text}" ${start} -1 rest)
string(FIND "${rest}" "\n```" end)
math(EXPR end "${end} + 1")
string(SUBSTRING "${rest}" 0 ${end} code)
file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${WORK_DIR}/readme_example.py "${code}")
execute_process(COMMAND /usr/bin/python3 ${WORK_DIR}/readme_example.py
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "README's Python example failed (exit ${rc})")
endif()
