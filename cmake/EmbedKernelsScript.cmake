# Run with cmake -P: writes OUT, a C file holding each of SOURCES as a
# NUL-terminated char array named clg_kernel_<basename>. PRELUDE (a file)
# is prepended to each of SOURCES (every kernel file today), not to PLAIN
# (a kernel that must not see it). clg_kernels_digest: the SHA-256 of all
# of them, in hexadecimal (the tuning records' key: a choice measured on
# other kernels is not kept).
cmake_minimum_required(VERSION 3.25)
set(text "/* Generated from the kernel sources by cmake/EmbedKernelsScript.cmake. */\n")
set(prelude_hex "")
set(all_hex "")
if(PRELUDE)
  file(READ ${PRELUDE} prelude_hex HEX)
endif()
foreach(src IN LISTS SOURCES PLAIN)
  get_filename_component(name ${src} NAME_WE)
  file(READ ${src} hex HEX)
  if(src IN_LIST SOURCES)
    set(hex "${prelude_hex}${hex}")
  endif()
  string(APPEND all_hex "${name}:${hex};")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n  " bytes "${bytes}")
  string(APPEND text "extern const char clg_kernel_${name}[];\n"
         "const char clg_kernel_${name}[] = {\n  ${bytes}0x00};\n")
endforeach()
string(SHA256 digest "${all_hex}")
string(APPEND text "extern const char clg_kernels_digest[];\n"
       "const char clg_kernels_digest[] = \"${digest}\";\n")
file(WRITE ${OUT}.tmp "${text}")
file(RENAME ${OUT}.tmp ${OUT})
