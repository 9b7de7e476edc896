# Sanitizer builds: -DCLGATHER_SANITIZE=address,undefined (ASan + UBSan, the
# LeakSanitizer comes with ASan) or -DCLGATHER_SANITIZE=thread (TSan).
#
# The flags apply to every target of the build (library, tests, CLI), so a
# report can come from any of them. -fno-sanitize-recover=undefined makes
# undefined behaviour abort the process, so it fails the test that hit it
# instead of printing a line nobody reads. scripts/sanitize.sh drives both
# builds and sets the runtime options and suppressions (tests/sanitizers/).
set(CLGATHER_SANITIZE "" CACHE STRING
    "Comma-separated sanitizers for every target: address, undefined, leak, thread (empty: none)")

set(CLGATHER_SANITIZE_LIST "")
if(CLGATHER_SANITIZE)
  string(REPLACE "," ";" CLGATHER_SANITIZE_LIST "${CLGATHER_SANITIZE}")
  foreach(s IN LISTS CLGATHER_SANITIZE_LIST)
    if(NOT s MATCHES "^(address|undefined|leak|thread)$")
      message(FATAL_ERROR "CLGATHER_SANITIZE: unknown sanitizer '${s}' "
        "(use address, undefined, leak or thread, comma-separated)")
    endif()
  endforeach()
  if("thread" IN_LIST CLGATHER_SANITIZE_LIST AND
     ("address" IN_LIST CLGATHER_SANITIZE_LIST OR
      "leak" IN_LIST CLGATHER_SANITIZE_LIST))
    message(FATAL_ERROR
      "CLGATHER_SANITIZE: thread cannot be combined with address or leak")
  endif()
  if(NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "CLGATHER_SANITIZE needs gcc or clang, not "
      "${CMAKE_C_COMPILER_ID}")
  endif()
  message(STATUS "clgather: sanitizers ${CLGATHER_SANITIZE}")
  add_compile_options(-fsanitize=${CLGATHER_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${CLGATHER_SANITIZE})
  if("undefined" IN_LIST CLGATHER_SANITIZE_LIST)
    add_compile_options(-fno-sanitize-recover=undefined)
    add_link_options(-fno-sanitize-recover=undefined)
  endif()
endif()

# Address (or leak) builds also run the CLI under LeakSanitizer on a normal
# gather and on every error path (tests/sanitizers/cli_leaks.sh; with .pb
# files, so with CLGATHER_BUILD_ONNX). Registered
# at the end of the top-level directory, once the CLI target and
# enable_testing() exist.
function(clgather_sanitize_register_tests)
  if(CLGATHER_BUILD_TESTS AND CLGATHER_BUILD_TOOLS AND CLGATHER_BUILD_ONNX AND
     ("address" IN_LIST CLGATHER_SANITIZE_LIST OR
      "leak" IN_LIST CLGATHER_SANITIZE_LIST))
    add_test(NAME cli_leaks
      COMMAND bash ${PROJECT_SOURCE_DIR}/tests/sanitizers/cli_leaks.sh
              $<TARGET_FILE:clgather_cli>
              ${CMAKE_CURRENT_BINARY_DIR}/cli_leaks_work)
    # The program cache in the build tree, as for every test (tests/).
    set_tests_properties(cli_leaks PROPERTIES
      ENVIRONMENT CLGATHER_CACHE_DIR=${PROJECT_BINARY_DIR}/clgather-cache)
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR}
               CALL clgather_sanitize_register_tests)
