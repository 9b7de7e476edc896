/* Tensor files: the format chosen by the file's extension, dispatching to
 * npy.c and onnx_pb.c. */
#include "tensor_file.h"

#include <string.h>

#include "npy.h"
#include "onnx_pb.h"

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

cli_format cli_format_of_path(const char *path) {
  if (path == NULL)
    return CLI_FORMAT_UNKNOWN;
  if (ends_with_ci(path, ".npy"))
    return CLI_FORMAT_NPY;
  if (ends_with_ci(path, ".pb"))
    return CLI_FORMAT_PB;
  return CLI_FORMAT_UNKNOWN;
}


int cli_tensor_read(const char *path, cli_tensor *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  if (!cli_host_is_little_endian())
    return cli_fail(err, errlen, "tensor files are little-endian; this host is "
                    "not, which clgather does not support");
  switch (cli_format_of_path(path)) {
  case CLI_FORMAT_NPY:
    return npy_read(path, t, err, errlen);
  case CLI_FORMAT_PB:
    return onnx_tensor_read(path, t, err, errlen);
  case CLI_FORMAT_UNKNOWN:
  default:
    return cli_fail(err, errlen, "cannot tell the format of '%s': the file "
                    "name must end in .npy or .pb", path);
  }
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
    if (npy_descr_of(t->dtype) == NULL)
      return cli_fail(err, errlen, "cannot write %s to '%s': NumPy has no %s "
                      "dtype; use a .pb output instead",
                      clg_dtype_name(t->dtype), path,
                      clg_dtype_name(t->dtype));
    return 0;
  case CLI_FORMAT_PB:
    return 0;
  case CLI_FORMAT_UNKNOWN:
  default:
    return cli_fail(err, errlen, "cannot tell the format of '%s': the file "
                    "name must end in .npy or .pb", path);
  }
}

int cli_tensor_write(const char *path, const cli_tensor *t, char *err,
                     size_t errlen) {
  if (cli_tensor_check_writable(path, t, err, errlen) != 0)
    return -1;
  if (cli_format_of_path(path) == CLI_FORMAT_NPY)
    return npy_write(path, t, 0, err, errlen);
  return onnx_tensor_write(path, t, err, errlen);
}
