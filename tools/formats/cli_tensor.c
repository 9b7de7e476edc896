/* An in-memory tensor (cli_tensor): shape arithmetic, allocation, whole-file
 * reads and the error helper the format modules share (output files and
 * atomic writes: cli_outfile.c). */
#define _POSIX_C_SOURCE 200809L

#include "cli_tensor.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

int cli_fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

int cli_host_is_little_endian(void) {
  const uint16_t probe = 1;
  unsigned char first;
  memcpy(&first, &probe, 1);
  return first == 1;
}

void cli_shape_string(int32_t rank, const int64_t *shape, char *buf,
                      size_t buflen) {
  if (buf == NULL || buflen == 0)
    return;
  size_t pos = 0;
  buf[0] = '\0';
  int n = snprintf(buf, buflen, "[");
  if (n > 0)
    pos = (size_t)n;
  for (int32_t i = 0; i < rank && i < CLG_MAX_RANK && pos < buflen; ++i) {
    n = snprintf(buf + pos, buflen - pos, "%s%lld", i ? ", " : "",
                 (long long)shape[i]);
    if (n < 0)
      return;
    pos += (size_t)n;
  }
  if (pos < buflen)
    snprintf(buf + pos, buflen - pos, "]");
}

int cli_shape_size(int32_t rank, const int64_t *shape, size_t elem_size,
                   int64_t *count, size_t *nbytes, char *err, size_t errlen) {
  if (rank < 0 || rank > CLG_MAX_RANK)
    return cli_fail(err, errlen, "rank %ld is outside [0, %d]", (long)rank,
                    CLG_MAX_RANK);
  int64_t n = 1;
  int zero = 0;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      return cli_fail(err, errlen, "dimension %ld is negative (%lld)",
                      (long)i, (long long)shape[i]);
    if (shape[i] == 0)
      zero = 1;
  }
  if (zero) {
    n = 0;
  } else {
    for (int32_t i = 0; i < rank; ++i) {
      if (n > INT64_MAX / shape[i]) {
        char s[CLG_MAX_RANK * 24 + 4];
        cli_shape_string(rank, shape, s, sizeof s);
        return cli_fail(err, errlen,
                        "shape %s has more elements than fit in 64 bits", s);
      }
      n *= shape[i];
    }
  }
  if ((uint64_t)n > SIZE_MAX / (elem_size ? elem_size : 1) ||
      (uint64_t)n * (elem_size ? elem_size : 1) > (uint64_t)INT64_MAX) {
    char s[CLG_MAX_RANK * 24 + 4];
    cli_shape_string(rank, shape, s, sizeof s);
    return cli_fail(err, errlen, "shape %s of %zu-byte elements overflows the "
                    "addressable size", s, elem_size);
  }
  if (count)
    *count = n;
  if (nbytes)
    *nbytes = (size_t)n * elem_size;
  return 0;
}

int cli_tensor_alloc(cli_tensor *t, clg_dtype dtype, int32_t rank,
                     const int64_t *shape, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  size_t es = clg_dtype_size(dtype);
  if (es == 0)
    return cli_fail(err, errlen, "unsupported element type %s (%d)",
                    clg_dtype_name(dtype), (int)dtype);
  size_t nbytes;
  if (cli_shape_size(rank, shape, es, NULL, &nbytes, err, errlen) != 0)
    return -1;
  void *p = calloc(nbytes ? nbytes : 1, 1);
  if (p == NULL)
    return cli_fail(err, errlen, "out of memory allocating %zu bytes", nbytes);
  t->dtype = dtype;
  t->rank = rank;
  for (int32_t i = 0; i < rank; ++i)
    t->shape[i] = shape[i];
  t->data = p;
  t->nbytes = nbytes;
  return 0;
}

void cli_tensor_free(cli_tensor *t) {
  if (t == NULL)
    return;
  if (t->mapping != NULL)
    munmap(t->mapping, t->mapping_len);
  else
    free(t->data);
  memset(t, 0, sizeof *t);
}

FILE *cli_open_regular(const char *path, const char *name, const char *label,
                       uint64_t *size, char *err, size_t errlen) {
  *size = 0;
  /* O_NONBLOCK: a FIFO opens at once and is refused below; on a regular
   * file it changes nothing. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
  if (f == NULL) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    cli_fail(err, errlen, "cannot open %s'%s': %s", label, name, strerror(e));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) != 0) {
    int e = errno;
    fclose(f);
    cli_fail(err, errlen, "cannot stat %s'%s': %s", label, name, strerror(e));
    return NULL;
  }
  if (!S_ISREG(st.st_mode) || st.st_size < 0) {
    fclose(f);
    cli_fail(err, errlen, "%s'%s' is not a regular file", label, name);
    return NULL;
  }
  *size = (uint64_t)st.st_size;
  return f;
}

int cli_read_whole_file(const char *path, unsigned char **buf, size_t *len,
                        char *err, size_t errlen) {
  *buf = NULL;
  *len = 0;
  uint64_t fsize = 0;
  FILE *f = cli_open_regular(path, path, "", &fsize, err, errlen);
  if (f == NULL)
    return -1;
  if (fsize >= SIZE_MAX) {
    fclose(f);
    return cli_fail(err, errlen, "'%s' is too large to read", path);
  }
  size_t size = (size_t)fsize;
  unsigned char *p = malloc(size ? size : 1);
  if (p == NULL) {
    fclose(f);
    return cli_fail(err, errlen, "out of memory reading '%s' (%zu bytes)", path,
                    size);
  }
  size_t got = size ? fread(p, 1, size, f) : 0;
  int read_error = ferror(f);
  fclose(f);
  if (got != size || read_error) {
    free(p);
    return cli_fail(err, errlen, "cannot read '%s': short read (%zu of %zu "
                    "bytes)", path, got, size);
  }
  *buf = p;
  *len = size;
  return 0;
}
