/*
 * Tensor files for the clgather command-line tool: reading and writing a
 * cli_tensor as .npy, .npz (one member) or ONNX TensorProto (.pb), chosen
 * by the file's extension; "-" is .npy on stdin or stdout.
 *
 * Include order in tools/formats/ (each header includes only those before it):
 *   cli_tensor.h <- npy.h, onnx_pb.h <- npz.h <- tensor_file.h
 * This header is the top of that order: it includes cli_tensor.h and npy.h
 * (for the mapped output's state), and tensor_file.c dispatches to npy.c,
 * npy_map.c and onnx_pb.c; no format module includes this header.
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
#include "npy.h"

#ifdef __cplusplus
extern "C" {
#endif

/** File formats, chosen by extension (case-insensitive). */
typedef enum cli_format {
  CLI_FORMAT_UNKNOWN = 0,
  CLI_FORMAT_NPY = 1, /* .npy */
  CLI_FORMAT_PB = 2,  /* .pb: one serialized onnx.TensorProto */
  CLI_FORMAT_NPZ = 3, /* .npz or .npz:NAME, one member of it (npz.h) */
} cli_format;

/** The format `path`'s extension names ("-", stdin or stdout, is .npy),
 * or CLI_FORMAT_UNKNOWN. */
cli_format cli_format_of_path(const char *path);

/** 1 if path is "-": .npy read from stdin (an input) or written to stdout
 * (an output), in memory, neither mapped nor written atomically. */
int cli_path_is_stdio(const char *path);

/** Read a tensor from `path` (.npy or .pb). On failure *t is zeroed. */
int cli_tensor_read(const char *path, cli_tensor *t, char *err, size_t errlen);

/** Like cli_tensor_read(), but a .npy file is mapped read-only rather than
 * read when it can be (npy_map(): t->data then points into t->mapping and
 * must not be written); .pb files are read. The same checks and messages.
 * The file must not shrink while the tensor is in use (SIGBUS). */
int cli_tensor_open(const char *path, cli_tensor *t, char *err,
                    size_t errlen);

/** Check, without touching the disk, that `t` can be written to `path`
 * (known extension; dtype representable in that format). */
int cli_tensor_check_writable(const char *path, const cli_tensor *t,
                              char *err, size_t errlen);

/** Write `t` to `path` (.npy or .pb) atomically: the bytes go to a temporary
 * file in the same directory (unnamed where O_TMPFILE works: cli_outfile.c)
 * which takes `path`'s name once complete. On failure the temporary file is
 * removed and `path` is neither created nor changed. */
int cli_tensor_write(const char *path, const cli_tensor *t, char *err,
                     size_t errlen);

/** An output tensor on its way to a file. For .npy, `t.data` lies in a
 * temporary file next to the output, mapped read-write (npy_out): the
 * result is written in place and the file renamed at the end, so no copy
 * of the output is held in memory. For .pb, `t.data` is malloc'ed and
 * encoded at the end (cli_tensor_write()). */
typedef struct cli_output {
  cli_format format;
  int mapped;   /* 1: a .npy file written in place (npy); else t.data is
                 * malloc'ed and encoded at the end (.pb, .npz, stdout) */
  cli_tensor t; /* dtype, shape, and where the nbytes of the result go */
  npy_out npy;  /* .npy: the mapped temporary file */
} cli_output;

/** Prepare an output of this dtype and shape for `path` (.npy or .pb):
 * checks as cli_tensor_check_writable(); for .npy creates the temporary
 * file. On failure nothing is left on disk. */
int cli_output_begin(cli_output *o, const char *path, clg_dtype dtype,
                     int32_t rank, const int64_t *shape, char *err,
                     size_t errlen);

/** The temporary file an output is being written to (.npy), or NULL. */
const char *cli_output_temp_path(const cli_output *o);

/** Write the output to `path` atomically (rename of the temporary file, or
 * the .pb encoding through cli_tensor_write()) and release it. On failure
 * `path` is neither created nor changed and no temporary file remains. */
int cli_output_commit(cli_output *o, const char *path, char *err,
                      size_t errlen);

/** Release an output that will not be written: the temporary file is
 * removed. NULL-tolerant; safe after cli_output_commit() or a failed
 * cli_output_begin() and on a zeroed cli_output. */
void cli_output_discard(cli_output *o);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_TENSOR_FILE_H */
