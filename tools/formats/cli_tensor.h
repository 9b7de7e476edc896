/*
 * The clgather command-line tool's in-memory tensor (cli_tensor) and the
 * helpers the file-format modules share: shape arithmetic, allocation,
 * whole-file reads (cli_tensor.c), output files that a kill leaves no trace
 * of, atomic writes (cli_outfile.c) and error messages.
 *
 * Include order in tools/formats/ (each header includes only those before it):
 *   cli_tensor.h <- npy.h, onnx_pb.h <- tensor_file.h
 * This header is the bottom layer: it includes only the library's public
 * header and knows no file format.
 *
 * Every function that can fail returns 0 on success and -1 on failure, with
 * a one-line English message (no trailing newline, not prefixed by the
 * program name) in the caller's `err` buffer. Nothing here prints or exits.
 */
#ifndef CLGATHER_TOOLS_CLI_TENSOR_H
#define CLGATHER_TOOLS_CLI_TENSOR_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include <clgather/clgather.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A tensor owned by the CLI: `data` holds `nbytes` bytes, C order, densely
 * packed (never NULL after a successful read, even when empty). `data` is
 * malloc'ed when `mapping` is NULL; otherwise it points into `mapping`, a
 * read-only mmap of a file (`mapping_len` bytes from the file's start;
 * npy_map()), and must not be written. Release with cli_tensor_free(). */
typedef struct cli_tensor {
  clg_dtype dtype;
  int32_t rank;
  int64_t shape[CLG_MAX_RANK];
  void *data;
  size_t nbytes;
  void *mapping;
  size_t mapping_len;
} cli_tensor;

/** Element count and byte size of a shape of `elem_size`-byte elements.
 * Fails on a rank outside [0, CLG_MAX_RANK], a negative dimension, or a
 * product that overflows int64 or size_t. */
int cli_shape_size(int32_t rank, const int64_t *shape, size_t elem_size,
                   int64_t *count, size_t *nbytes, char *err, size_t errlen);

/** Format a shape as "[2, 3]" into buf (always NUL-terminated). */
void cli_shape_string(int32_t rank, const int64_t *shape, char *buf,
                      size_t buflen);

/** Allocate a zeroed tensor of the given dtype and shape. */
int cli_tensor_alloc(cli_tensor *t, clg_dtype dtype, int32_t rank,
                     const int64_t *shape, char *err, size_t errlen);

/** Free t->data (or unmap t->mapping) and reset *t. NULL-tolerant. */
void cli_tensor_free(cli_tensor *t);

/* ----- helpers shared by the format modules (npy.c, onnx_pb.c) ----- */

/** Open `path` for reading without blocking (a FIFO with no writer would
 * block open() for good) and check that it is a regular file: the open
 * stream and its size in *size, or NULL and the reason in err ("cannot
 * open LABEL'NAME': ...", "LABEL'NAME' is not a regular file"). `name`
 * is the path the messages show (the caller's, where `path` is resolved),
 * `label` words before it ("" or e.g. "external data file "). */
FILE *cli_open_regular(const char *path, const char *name, const char *label,
                       uint64_t *size, char *err, size_t errlen);

/** Read the whole of a regular file into a malloc'ed buffer (at least one
 * byte is allocated, so *buf is never NULL on success). */
int cli_read_whole_file(const char *path, unsigned char **buf, size_t *len,
                        char *err, size_t errlen);

/** An output file on its way to `path` (cli_outfile.c): an unnamed file
 * (O_TMPFILE) in path's directory where the file system and kernel have
 * them, linked into place only by cli_outfile_commit(), so that a process
 * killed before that (SIGKILL included) leaves nothing behind; otherwise a
 * named temporary file ".BASE.tmp.XXXXXX" next to `path`, renamed over it.
 * Mode 0666 & ~umask either way; open read-write (it may be mapped). */
typedef struct cli_outfile {
  int fd;      /* -1 when closed */
  int named;   /* 1: `tmp` is a file on disk (the named fallback) */
  char *tmp;   /* its name; for an unnamed file, the template of the name it
                * is linked as before replacing an existing `path` */
  char *label; /* how messages name it */
} cli_outfile;

/** Create the output file for `path` (unnamed where possible; named when
 * `allow_unnamed` is 0: the tests' way to the fallback). */
int cli_outfile_create(const char *path, cli_outfile *o, int allow_unnamed,
                       char *err, size_t errlen);

/** How messages name the file ("'DIR/.BASE.tmp.XXXXXX'" or "the unnamed
 * temporary file for 'PATH'"). */
const char *cli_outfile_label(const cli_outfile *o);

/** The named temporary file on disk (to remove from a signal handler), or
 * NULL for an unnamed one, which needs no removing. */
const char *cli_outfile_temp_path(const cli_outfile *o);

/** Close the file and put it in place of `path`: an absent `path` is
 * created by linking the unnamed file to it; an existing one is replaced
 * by rename() (of the named file, or of the unnamed one linked as a fresh
 * ".BASE.tmp.XXXXXX" first: a kill between that link and the rename, a
 * window of microseconds, leaves that name). On failure `path` is neither
 * created nor changed and no file remains. *o is released either way. */
int cli_outfile_commit(cli_outfile *o, const char *path, char *err,
                       size_t errlen);

/** Close the file and remove it (a named one is unlinked); *o is reset.
 * NULL-tolerant and safe on a released cli_outfile. */
void cli_outfile_discard(cli_outfile *o);

/** Write `len` bytes to `path` atomically (cli_outfile_create, write,
 * cli_outfile_commit). */
int cli_write_file_atomic(const char *path, const void *buf, size_t len,
                          char *err, size_t errlen);

/** printf into err (always NUL-terminated; NULL err is allowed). Returns -1
 * so that callers can `return cli_fail(...)`. */
int cli_fail(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** 1 on a little-endian host. */
int cli_host_is_little_endian(void);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_CLI_TENSOR_H */
