/* Tensor files: the format chosen by the file's extension, dispatching to
 * npy.c and onnx_pb.c. A CLI built without ONNX (CLGATHER_CLI_ONNX 0,
 * tools/CMakeLists.txt) has no onnx_pb.c: .pb files are refused, saying so,
 * before any device is opened. */
#define _POSIX_C_SOURCE 200809L

#include "tensor_file.h"
#include "npz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if CLGATHER_CLI_ONNX
#include "onnx_pb.h"
#else
static int no_pb(const char *path, char *err, size_t errlen) {
  return cli_fail(err, errlen, "cannot use '%s': this clgather was built "
                  "without ONNX TensorProto (.pb) files (configure with "
                  "-DCLGATHER_BUILD_ONNX=ON); use .npy", path);
}
static int onnx_tensor_read(const char *path, cli_tensor *t, char *err,
                            size_t errlen) {
  (void)t;
  return no_pb(path, err, errlen);
}
static int onnx_tensor_write(const char *path, const cli_tensor *t, char *err,
                             size_t errlen) {
  (void)t;
  return no_pb(path, err, errlen);
}
#endif

static int ends_with_ci(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  if (n < m)
    return 0;
  for (size_t i = 0; i < m; ++i) {
    char c = s[n - m + i];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    if (c != suffix[i])
      return 0;
  }
  return 1;
}

int cli_path_is_stdio(const char *path) {
  return path != NULL && strcmp(path, "-") == 0;
}

cli_format cli_format_of_path(const char *path) {
  if (path == NULL)
    return CLI_FORMAT_UNKNOWN;
  if (cli_path_is_stdio(path))
    return CLI_FORMAT_NPY; /* nothing else tells: .npy is the default */
  if (npz_path_length(path) > 0)
    return CLI_FORMAT_NPZ;
  if (ends_with_ci(path, ".npy"))
    return CLI_FORMAT_NPY;
  if (ends_with_ci(path, ".pb"))
    return CLI_FORMAT_PB;
  return CLI_FORMAT_UNKNOWN;
}

/* All of stdin, as a .npy image. */
static int read_stdin(cli_tensor *t, char *err, size_t errlen) {
  size_t cap = 1 << 16, len = 0;
  unsigned char *buf = malloc(cap);
  if (buf == NULL)
    return cli_fail(err, errlen, "out of memory");
  for (;;) {
    if (len == cap) {
      unsigned char *more = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
      if (more == NULL) {
        free(buf);
        return cli_fail(err, errlen, "out of memory reading stdin");
      }
      buf = more;
      cap *= 2;
    }
    ssize_t r = read(0, buf + len, cap - len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int e = errno;
      free(buf);
      return cli_fail(err, errlen, "cannot read stdin: %s", strerror(e));
    }
    if (r == 0)
      break;
    len += (size_t)r;
  }
  return npy_decode_owned(buf, len, "-", t, err, errlen);
}

int cli_tensor_read(const char *path, cli_tensor *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  if (!cli_host_is_little_endian())
    return cli_fail(err, errlen, "tensor files are little-endian; this host is "
                    "not, which clgather does not support");
  switch (cli_format_of_path(path)) {
  case CLI_FORMAT_NPY:
    if (cli_path_is_stdio(path))
      return read_stdin(t, err, errlen);
    return npy_read(path, t, err, errlen);
  case CLI_FORMAT_NPZ: return npz_read(path, t, err, errlen);
  case CLI_FORMAT_PB:
    return onnx_tensor_read(path, t, err, errlen);
  case CLI_FORMAT_UNKNOWN:
  default:
    return cli_fail(
        err, errlen,
        "cannot tell the format of '%s': the file "
        "name must end in .npy, .npz or .pb (or be - for .npy on stdin or "
        "stdout)",
        path);
  }
}

int cli_tensor_open(const char *path, cli_tensor *t, char *err,
                    size_t errlen) {
  if (cli_format_of_path(path) == CLI_FORMAT_NPY && !cli_path_is_stdio(path) &&
      cli_host_is_little_endian())
    return npy_map(path, t, err, errlen);
  return cli_tensor_read(path, t, err, errlen);
}

int cli_tensor_check_writable(const char *path, const cli_tensor *t,
                              char *err, size_t errlen) {
  if (!cli_host_is_little_endian())
    return cli_fail(err, errlen, "tensor files are little-endian; this host is "
                    "not, which clgather does not support");
  if (clg_dtype_size(t->dtype) == 0)
    return cli_fail(err, errlen, "cannot write element type %s",
                    clg_dtype_name(t->dtype));
  switch (cli_format_of_path(path)) {
  case CLI_FORMAT_NPY:
  case CLI_FORMAT_NPZ:
    if (npy_descr_of(t->dtype) == NULL)
      return cli_fail(err, errlen, "cannot write %s to '%s': NumPy has no %s "
                      "dtype; use a .pb output instead",
                      clg_dtype_name(t->dtype), path,
                      clg_dtype_name(t->dtype));
    return 0;
  case CLI_FORMAT_PB:
#if CLGATHER_CLI_ONNX
    return 0;
#else
    return no_pb(path, err, errlen);
#endif
  case CLI_FORMAT_UNKNOWN:
  default:
    return cli_fail(
        err, errlen,
        "cannot tell the format of '%s': the file "
        "name must end in .npy, .npz or .pb (or be - for .npy on stdin or "
        "stdout)",
        path);
  }
}

/* t as .npy on stdout: the header, then the elements. */
static int write_stdout(const cli_tensor *t, char *err, size_t errlen) {
  unsigned char header[NPY_WRITE_HEADER_MAX];
  size_t hlen = 0;
  if (npy_header_encode(t->dtype, t->rank, t->shape, 0, header, sizeof header,
                        &hlen, err, errlen) != 0)
    return -1;
  const unsigned char *parts[2] = {header, t->data};
  size_t lens[2] = {hlen, t->nbytes};
  for (int k = 0; k < 2; ++k)
    for (size_t done = 0; done < lens[k];) {
      size_t n = lens[k] - done;
      ssize_t w = write(1, parts[k] + done, n > (1u << 30) ? (1u << 30) : n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return cli_fail(err, errlen, "cannot write to stdout: %s",
                        w < 0 ? strerror(errno) : "nothing written");
      done += (size_t)w;
    }
  return 0;
}

int cli_tensor_write(const char *path, const cli_tensor *t, char *err,
                     size_t errlen) {
  if (cli_tensor_check_writable(path, t, err, errlen) != 0)
    return -1;
  if (cli_path_is_stdio(path))
    return write_stdout(t, err, errlen);
  if (cli_format_of_path(path) == CLI_FORMAT_NPZ)
    return npz_write(path, t, err, errlen);
  if (cli_format_of_path(path) == CLI_FORMAT_NPY)
    return npy_write(path, t, 0, err, errlen);
  return onnx_tensor_write(path, t, err, errlen);
}

int cli_output_begin(cli_output *o, const char *path, clg_dtype dtype,
                     int32_t rank, const int64_t *shape, char *err,
                     size_t errlen) {
  memset(o, 0, sizeof *o);
  o->npy.file.fd = -1;
  o->t.dtype = dtype;
  if (cli_tensor_check_writable(path, &o->t, err, errlen) != 0)
    return -1;
  o->format = cli_format_of_path(path);
  o->mapped = o->format == CLI_FORMAT_NPY && !cli_path_is_stdio(path);
  if (!o->mapped)
    return cli_tensor_alloc(&o->t, dtype, rank, shape, err, errlen);
  void *data = NULL;
  if (npy_out_open(path, dtype, rank, shape, &o->npy, &data, err, errlen) !=
      0) {
    o->mapped = 0;
    return -1;
  }
  o->t.rank = rank;
  for (int32_t i = 0; i < rank; ++i)
    o->t.shape[i] = shape[i];
  o->t.data = data;
  cli_shape_size(rank, shape, clg_dtype_size(dtype), NULL, &o->t.nbytes, NULL,
                 0); /* checked by npy_out_open() */
  return 0;
}

const char *cli_output_temp_path(const cli_output *o) {
  return o->mapped ? cli_outfile_temp_path(&o->npy.file) : NULL;
}

int cli_output_commit(cli_output *o, const char *path, char *err,
                      size_t errlen) {
  int rc;
  if (o->mapped) {
    rc = npy_out_commit(&o->npy, path, err, errlen);
    memset(&o->t, 0, sizeof o->t); /* it pointed into the mapping */
  } else {
    rc = cli_tensor_write(path, &o->t, err, errlen);
  }
  cli_output_discard(o);
  return rc;
}

void cli_output_discard(cli_output *o) {
  if (o == NULL)
    return;
  if (o->mapped) {
    npy_out_discard(&o->npy);
    memset(&o->t, 0, sizeof o->t);
  } else {
    cli_tensor_free(&o->t);
  }
  o->format = CLI_FORMAT_UNKNOWN;
  o->mapped = 0;
}
