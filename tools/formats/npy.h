/*
 * NumPy .npy files (format versions 1.0, 2.0 and 3.0): little-endian, C order,
 * fixed-size numeric and bool dtypes. See
 * https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
 *
 * All functions return 0 on success, -1 on failure with a message in `err`.
 *
 * Include order in tools/formats/ (each header includes only those before it):
 *   cli_tensor.h <- npy.h, onnx_pb.h <- tensor_file.h
 * This header includes cli_tensor.h; tensor_file.c calls it, it never
 * calls tensor_file.c.
 */
#ifndef CLGATHER_TOOLS_NPY_H
#define CLGATHER_TOOLS_NPY_H

#include <stddef.h>
#include <stdint.h>

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

/** Largest header npy_header_encode() writes (rank 16, 19-digit dims). */
#define NPY_WRITE_HEADER_MAX 1024

/** What a .npy file's header says, checked against the file's size. */
typedef struct npy_info {
  clg_dtype dtype;
  int32_t rank;
  int64_t shape[CLG_MAX_RANK];
  uint64_t data_offset; /* bytes from the file's start to the first element */
  size_t nbytes;        /* data bytes: exactly what follows the header */
} npy_info;

/** Open `path` read-only and check it: a regular file, the preamble, the
 * header dict, and a size of exactly data_offset + nbytes (a truncated file
 * or trailing bytes are errors). On success *fd is open (the caller closes
 * it); on failure it is -1. Allocates nothing the header claims. */
int npy_open(const char *path, int *fd, npy_info *info, char *err,
             size_t errlen);

/** Read the data of a file checked by npy_open() into a malloc'ed tensor. */
int npy_read_data(int fd, const char *path, const npy_info *info,
                  cli_tensor *t, char *err, size_t errlen);

/** Read a .npy file (into malloc'ed memory). */
int npy_read(const char *path, cli_tensor *t, char *err, size_t errlen);

/** Decode a .npy image held in memory (stdin's bytes, an .npz entry):
 * the same checks and messages as npy_read(), the file named `name` in
 * them. Takes `buf` (malloc'ed, `len` bytes) either way: on success it
 * becomes t->data, the elements moved to its start; on failure it is
 * freed. */
int npy_decode_owned(unsigned char *buf, size_t len, const char *name,
                     cli_tensor *t, char *err, size_t errlen);

/** Map a .npy file read-only (PROT_READ, MAP_PRIVATE) instead of reading
 * it: t->data points into t->mapping, after the header; nothing is copied
 * and only the pages a caller touches are read. Checks as npy_read() first,
 * with the same messages. Falls back to npy_read_data() (a copy) when the
 * data offset is not a multiple of the element size, when the tensor is
 * empty, or when mmap fails. The file must not shrink while mapped: an
 * access past its new end raises SIGBUS. */
int npy_map(const char *path, cli_tensor *t, char *err, size_t errlen);

/** Serialize `t` as a .npy image in a malloc'ed buffer. `version` is 1, 2 or
 * 3, or 0 for the smallest that fits (1.0 unless the header is too long). */
int npy_encode(const cli_tensor *t, int version, unsigned char **out,
               size_t *out_len, char *err, size_t errlen);

/** Write `t` as .npy (version 0 = automatic) atomically to `path`. */
int npy_write(const char *path, const cli_tensor *t, int version, char *err,
              size_t errlen);

/** The .npy header (magic to '\n', padded so that the data starts at a
 * multiple of 64 bytes) for a tensor of this dtype and shape, into
 * buf[0 .. cap-1]; *len is its length. `version` as for npy_encode(). */
int npy_header_encode(clg_dtype dtype, int32_t rank, const int64_t *shape,
                      int version, unsigned char *buf, size_t cap,
                      size_t *len, char *err, size_t errlen);

/** A .npy output written in place: an output file (cli_outfile: unnamed
 * where the file system allows, else a named temporary file next to the
 * output), sized up front and mapped read-write (MAP_SHARED), put in place
 * of the output by npy_out_commit(). */
typedef struct npy_out {
  cli_outfile file;   /* file.fd is -1 when closed */
  unsigned char *map; /* the whole file: header, then the data */
  size_t map_len;
} npy_out;

/** Create the output file for `path`, write the header of a tensor of
 * this dtype and shape, reserve the data's space (posix_fallocate, so that
 * a full disk is an error here rather than a SIGBUS later) and map it;
 * *data is where the nbytes of elements go (64-byte aligned). On failure
 * nothing is left on disk and *o is reset. */
int npy_out_open(const char *path, clg_dtype dtype, int32_t rank,
                 const int64_t *shape, npy_out *o, void **data, char *err,
                 size_t errlen);

/** Unmap the file and put it in place of `path` (cli_outfile_commit()). On
 * failure no file remains and `path` is neither created nor changed. *o
 * is reset either way. */
int npy_out_commit(npy_out *o, const char *path, char *err, size_t errlen);

/** Unmap, close and remove the output file; *o is reset. NULL-tolerant
 * and safe on a reset npy_out. */
void npy_out_discard(npy_out *o);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_NPY_H */
