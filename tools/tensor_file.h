/*
 * Tensor files for the clgather command-line tool: reading and writing a
 * cli_tensor as .npy or ONNX TensorProto (.pb), chosen by the file's
 * extension.
 *
 * Include order in tools/ (each header includes only those before it):
 *   cli_tensor.h <- npy.h, onnx_pb.h <- tensor_file.h
 * This header is the top of that order: it includes cli_tensor.h only, and
 * tensor_file.c dispatches to npy.c and onnx_pb.c; neither format module
 * includes this header.
 *
 * Readers never trust sizes written in a file: they check the file's real
 * size first, check every shape product for overflow, and allocate at most
 * what the file can actually hold. Every function that can fail returns 0 on
 * success and -1 on failure, with a one-line English message (no trailing
 * newline, not prefixed by the program name) in the caller's `err` buffer.
 * Nothing here prints or exits.
 *
 * Element bytes are held in the host's byte order; both formats store
 * little-endian, and readers and writers refuse to run on a big-endian host.
 */
#ifndef CLGATHER_TOOLS_TENSOR_FILE_H
#define CLGATHER_TOOLS_TENSOR_FILE_H

#include "cli_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** File formats, chosen by extension (case-insensitive). */
typedef enum cli_format {
  CLI_FORMAT_UNKNOWN = 0,
  CLI_FORMAT_NPY = 1, /* .npy */
  CLI_FORMAT_PB = 2,  /* .pb: one serialized onnx.TensorProto */
} cli_format;

/** The format `path`'s extension names, or CLI_FORMAT_UNKNOWN. */
cli_format cli_format_of_path(const char *path);

/** Read a tensor from `path` (.npy or .pb). On failure *t is zeroed. */
int cli_tensor_read(const char *path, cli_tensor *t, char *err, size_t errlen);

/** Check, without touching the disk, that `t` can be written to `path`
 * (known extension; dtype representable in that format). */
int cli_tensor_check_writable(const char *path, const cli_tensor *t,
                              char *err, size_t errlen);

/** Write `t` to `path` (.npy or .pb) atomically: the bytes go to a temporary
 * file in the same directory which is then renamed over `path`. On failure
 * the temporary file is removed and `path` is neither created nor changed. */
int cli_tensor_write(const char *path, const cli_tensor *t, char *err,
                     size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_TENSOR_FILE_H */
