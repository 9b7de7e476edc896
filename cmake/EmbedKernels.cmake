# clgather_embed_kernels(OUT_VAR PRELUDE prelude.cl SOURCES file.cl ...
#                        PLAIN file.cl ...)
# Generates one C file that defines, for each kernel source kernels/NAME.cl,
#   const char clg_kernel_NAME[];  (NUL-terminated source text)
# with PRELUDE's text in front of each of SOURCES (the operators' kernels
# share it) and PLAIN as they are. The generation runs at build time, so
# editing a .cl file rebuilds the library.
function(clgather_embed_kernels out_var)
  cmake_parse_arguments(K "" "PRELUDE" "SOURCES;PLAIN" ${ARGN})
  set(out_c ${CMAKE_CURRENT_BINARY_DIR}/clgather_kernels.c)
  add_custom_command(
    OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_c} -DPRELUDE=${K_PRELUDE}
            "-DSOURCES=${K_SOURCES}" "-DPLAIN=${K_PLAIN}"
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedKernelsScript.cmake
    DEPENDS ${K_PRELUDE} ${K_SOURCES} ${K_PLAIN}
            ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedKernelsScript.cmake
    COMMENT "Embedding OpenCL kernel sources"
    VERBATIM)
  set(${out_var} ${out_c} PARENT_SCOPE)
endfunction()
