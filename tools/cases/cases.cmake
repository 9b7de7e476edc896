# The case descriptions (tools/cases/): each operator's argument space,
# random valid cases, expected outputs and bad inputs, which the tests
# (tests/) and `clgather selftest` (tools/selftest/) run. Included by
# tools/CMakeLists.txt and tests/CMakeLists.txt after
# tools/reference/reference.cmake (the descriptions call the references);
# sets, in the including directory's scope:
#   CLGATHER_CASES_SOURCES      case.c (what every description shares) and
#                               one FILE.c (plus FILE_bad.c, its bad inputs)
#                               per registered operator that has one
#   CLGATHER_CASES_INCLUDE_DIR  the folder holding cases/: sources include
#                               "cases/FILE.h"
# Like the references, the sources are compiled into each user against the
# library it links (clgather, or clgather_testing in tests).
#
# Issue 42 moves the operators here one at a time: EmbeddingBag and the
# gathers' valid cases are described here; the gathers' bad inputs and the
# scatters are still tests/check/'s, tests/support/scatter_case.c and
# tools/selftest/'s.
set(CLGATHER_CASES_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/..)
set(CLGATHER_CASES_SOURCES ${CMAKE_CURRENT_LIST_DIR}/case.c)
foreach(op IN LISTS CLGATHER_OPERATORS)
  foreach(part ${op} ${op}_bad)
    if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/${part}.c)
      list(APPEND CLGATHER_CASES_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${part}.c)
    endif()
  endforeach()
endforeach()
