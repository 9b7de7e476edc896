# The plain-C references (tools/reference/): the specification of every
# operator, used by the tests (tests/) and by `clgather selftest`
# (tools/selftest/). Included by tools/CMakeLists.txt and
# tests/CMakeLists.txt (either may be built without the other); sets, in
# the including directory's scope:
#   CLGATHER_REFERENCE_SOURCES      reference.c and one ref_FILE.c per
#                                   registered operator (CLGATHER_OPERATORS)
#   CLGATHER_REFERENCE_INCLUDE_DIR  the folder holding reference/: sources
#                                   include "reference/reference.h" and
#                                   "reference/ref_scatter.h"
# The sources call the library's clg_dtype_size(): each user compiles them
# against the library it links (clgather, or clgather_testing in tests).
set(CLGATHER_REFERENCE_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/..)
set(CLGATHER_REFERENCE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/reference.c)
foreach(op IN LISTS CLGATHER_OPERATORS)
  list(APPEND CLGATHER_REFERENCE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/ref_${op}.c)
endforeach()
# ref_embedding_bag.c calls fma, fmaf, sqrt and sqrtf: every target made
# after this file (in the including directory and those below it) links
# the C math library, where the platform has one apart from its C library.
include(CheckLibraryExists)
check_library_exists(m sqrt "" CLGATHER_REFERENCE_HAVE_LIBM)
if(CLGATHER_REFERENCE_HAVE_LIBM)
  link_libraries(m)
endif()
