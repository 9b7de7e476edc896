/*
 * NumPy .npy files (format versions 1.0, 2.0 and 3.0): little-endian, C order,
 * fixed-size numeric and bool dtypes. See
 * https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
 *
 * All functions return 0 on success, -1 on failure with a message in `err`.
 *
 * Include order in tools/ (each header includes only those before it):
 *   cli_tensor.h <- npy.h, onnx_pb.h <- tensor_file.h
 * This header includes cli_tensor.h; tensor_file.c calls it, it never
 * calls tensor_file.c.
 */
#ifndef CLGATHER_TOOLS_NPY_H
#define CLGATHER_TOOLS_NPY_H

#include <stddef.h>

#include "cli_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest header (dict + padding) a reader accepts, in bytes. */
#define NPY_MAX_HEADER_BYTES (1u << 20)

/** The .npy descr written for `dtype` ("<f4", "|b1", ...), or NULL when NumPy
 * has no such dtype (bfloat16) or the dtype is not fixed-size. */
const char *npy_descr_of(clg_dtype dtype);

/** Map a descr string to a dtype. Fails, with the reason, for big-endian,
 * ambiguous byte order, object, string, structured and unknown dtypes. */
int npy_dtype_of_descr(const char *descr, clg_dtype *dtype, char *err,
                       size_t errlen);

/** Read a .npy file. */
int npy_read(const char *path, cli_tensor *t, char *err, size_t errlen);

/** Serialize `t` as a .npy image in a malloc'ed buffer. `version` is 1, 2 or
 * 3, or 0 for the smallest that fits (1.0 unless the header is too long). */
int npy_encode(const cli_tensor *t, int version, unsigned char **out,
               size_t *out_len, char *err, size_t errlen);

/** Write `t` as .npy (version 0 = automatic) atomically to `path`. */
int npy_write(const char *path, const cli_tensor *t, int version, char *err,
              size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_NPY_H */
