# clgather_embed_kernels(OUT_VAR file.cl ...)
# Generates one C file that defines, for each kernel source kernels/NAME.cl,
#   const char clg_kernel_NAME[];  (NUL-terminated source text)
# The generation runs at build time, so editing a .cl file rebuilds the library.
function(clgather_embed_kernels out_var)
  set(out_c ${CMAKE_CURRENT_BINARY_DIR}/clgather_kernels.c)
  add_custom_command(
    OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_c} "-DSOURCES=${ARGN}"
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedKernelsScript.cmake
    DEPENDS ${ARGN} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedKernelsScript.cmake
    COMMENT "Embedding OpenCL kernel sources"
    VERBATIM)
  set(${out_var} ${out_c} PARENT_SCOPE)
endfunction()
