# The case descriptions (tools/cases/): each operator's argument space,
# random valid cases, expected outputs and bad inputs, which the tests
# (tests/) and `clgather selftest` (tools/selftest/) run. Included by
# tools/CMakeLists.txt and tests/CMakeLists.txt after
# tools/reference/reference.cmake (the descriptions call the references);
# sets, in the including directory's scope:
#   CLGATHER_CASES_SOURCES      case.c (what every description shares),
#                               operators.c (the registry's operators and
#                               their descriptions, from operators.def),
#                               FILE.c for every registered operator (an
#                               operator without one is a configure error)
#                               and FILE_bad.c, its bad inputs, where the
#                               family keeps its catalogue in that file
#   CLGATHER_CASES_INCLUDE_DIR  the folder holding cases/: sources include
#                               "cases/FAMILY.h" (embedding_bag.h, gather.h,
#                               gather_block_quantized.h, scatter.h) or
#                               "cases/operators.h" (every
#                               operator's, found by its clg_op)
# Like the references, the sources are compiled into each user against the
# library it links (clgather, or clgather_testing in tests).
set(CLGATHER_CASES_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/..)
set(CLGATHER_CASES_SOURCES ${CMAKE_CURRENT_LIST_DIR}/case.c
  ${CMAKE_CURRENT_LIST_DIR}/operators.c)
foreach(op IN LISTS CLGATHER_OPERATORS)
  if(NOT EXISTS ${CMAKE_CURRENT_LIST_DIR}/${op}.c)
    message(FATAL_ERROR "operator file ${op} (host/ops/operators.def) has "
      "no case description tools/cases/${op}.c")
  endif()
  list(APPEND CLGATHER_CASES_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${op}.c)
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/${op}_bad.c)
    list(APPEND CLGATHER_CASES_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${op}_bad.c)
  endif()
endforeach()
