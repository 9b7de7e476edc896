/* NumPy .npy reading and writing. */
#define _POSIX_C_SOURCE 200809L

#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

typedef struct npy_type {
  const char *code; /* descr without the byte-order character */
  clg_dtype dtype;
} npy_type;

static const npy_type npy_types[] = {
    {"f2", CLG_DTYPE_FLOAT16},   {"f4", CLG_DTYPE_FLOAT},
    {"f8", CLG_DTYPE_DOUBLE},    {"b1", CLG_DTYPE_BOOL},
    {"i1", CLG_DTYPE_INT8},      {"u1", CLG_DTYPE_UINT8},
    {"i2", CLG_DTYPE_INT16},     {"u2", CLG_DTYPE_UINT16},
    {"i4", CLG_DTYPE_INT32},     {"u4", CLG_DTYPE_UINT32},
    {"i8", CLG_DTYPE_INT64},     {"u8", CLG_DTYPE_UINT64},
    {"c8", CLG_DTYPE_COMPLEX64}, {"c16", CLG_DTYPE_COMPLEX128},
};

const char *npy_descr_of(clg_dtype dtype) {
  switch (dtype) {
  case CLG_DTYPE_FLOAT16: return "<f2";
  case CLG_DTYPE_FLOAT: return "<f4";
  case CLG_DTYPE_DOUBLE: return "<f8";
  case CLG_DTYPE_BOOL: return "|b1";
  case CLG_DTYPE_INT8: return "|i1";
  case CLG_DTYPE_UINT8: return "|u1";
  case CLG_DTYPE_INT16: return "<i2";
  case CLG_DTYPE_UINT16: return "<u2";
  case CLG_DTYPE_INT32: return "<i4";
  case CLG_DTYPE_UINT32: return "<u4";
  case CLG_DTYPE_INT64: return "<i8";
  case CLG_DTYPE_UINT64: return "<u8";
  case CLG_DTYPE_COMPLEX64: return "<c8";
  case CLG_DTYPE_COMPLEX128: return "<c16";
  default: return NULL; /* bfloat16, string, undefined, unknown */
  }
}

int npy_dtype_of_descr(const char *descr, clg_dtype *dtype, char *err,
                       size_t errlen) {
  char order = descr[0];
  const char *code = descr;
  if (order == '<' || order == '>' || order == '|' || order == '=')
    ++code;
  else
    order = 0;
  for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; ++i) {
    if (strcmp(code, npy_types[i].code) != 0)
      continue;
    clg_dtype d = npy_types[i].dtype;
    if (clg_dtype_size(d) == 1) {
      /* Byte order is meaningless for one-byte types: any marker is fine. */
      *dtype = d;
      return 0;
    }
    if (order == '<') {
      *dtype = d;
      return 0;
    }
    if (order == '>')
      return cli_fail(err, errlen, "big-endian dtype '%s' is not supported; "
                      "save a little-endian array (a.astype('<%s'))", descr,
                      code);
    return cli_fail(err, errlen, "dtype '%s' does not say little-endian; "
                    "expected '<%s'", descr, code);
  }
  if (code[0] == 'O')
    return cli_fail(err, errlen, "object arrays (dtype '%s') are not "
                    "supported", descr);
  if (code[0] == 'U' || code[0] == 'S' || code[0] == 'a')
    return cli_fail(err, errlen, "string arrays (dtype '%s') are not "
                    "supported", descr);
  if (code[0] == 'V')
    return cli_fail(err, errlen, "void/record arrays (dtype '%s') are not "
                    "supported", descr);
  if (code[0] == 'M' || code[0] == 'm')
    return cli_fail(err, errlen, "datetime arrays (dtype '%s') are not "
                    "supported", descr);
  return cli_fail(err, errlen, "unsupported dtype '%s' (supported: <f2 <f4 "
                  "<f8 |b1 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 <c8 <c16)", descr);
}

/* ------------------------------------------------------------------ header */

typedef struct cursor {
  const char *p;
  const char *end;
} cursor;

static void skip_ws(cursor *c) {
  while (c->p < c->end &&
         (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    ++c->p;
}

static int expect_char(cursor *c, char ch, const char *what, char *err,
                       size_t errlen) {
  skip_ws(c);
  if (c->p >= c->end || *c->p != ch)
    return cli_fail(err, errlen, "malformed .npy header: expected '%c' %s",
                    ch, what);
  ++c->p;
  return 0;
}

static int parse_string(cursor *c, char *out, size_t cap, char *err,
                        size_t errlen) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return cli_fail(err, errlen, "malformed .npy header: expected a quoted "
                    "string");
  char q = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\\')
      return cli_fail(err, errlen, "malformed .npy header: escape sequences "
                      "are not supported");
    if (n + 1 >= cap)
      return cli_fail(err, errlen, "malformed .npy header: string too long");
    out[n++] = *c->p++;
  }
  if (c->p >= c->end)
    return cli_fail(err, errlen, "malformed .npy header: unterminated string");
  ++c->p;
  out[n] = '\0';
  return 0;
}

static int parse_bool(cursor *c, int *value, char *err, size_t errlen) {
  skip_ws(c);
  size_t left = (size_t)(c->end - c->p);
  if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
    c->p += 4;
    *value = 1;
    return 0;
  }
  if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
    c->p += 5;
    *value = 0;
    return 0;
  }
  return cli_fail(err, errlen, "malformed .npy header: fortran_order must be "
                  "True or False");
}

static int parse_shape(cursor *c, int32_t *rank, int64_t *shape, char *err,
                       size_t errlen) {
  if (expect_char(c, '(', "to open the shape tuple", err, errlen) != 0)
    return -1;
  int32_t r = 0;
  for (;;) {
    skip_ws(c);
    if (c->p < c->end && *c->p == ')') {
      ++c->p;
      break;
    }
    if (c->p < c->end && *c->p == '-')
      return cli_fail(err, errlen, "invalid .npy header: negative dimension "
                      "in shape");
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
      return cli_fail(err, errlen, "malformed .npy header: shape must be a "
                      "tuple of integers");
    uint64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
      unsigned digit = (unsigned)(*c->p - '0');
      if (v > ((uint64_t)INT64_MAX - digit) / 10)
        return cli_fail(err, errlen, "invalid .npy header: a dimension does "
                        "not fit in 64 bits");
      v = v * 10 + digit;
      ++c->p;
    }
    if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
      ++c->p; /* Python 2 long suffix */
    if (r >= CLG_MAX_RANK)
      return cli_fail(err, errlen, "invalid .npy header: rank exceeds the "
                      "maximum of %d", CLG_MAX_RANK);
    shape[r++] = (int64_t)v;
    skip_ws(c);
    if (c->p < c->end && *c->p == ',') {
      ++c->p;
      continue;
    }
    if (c->p < c->end && *c->p == ')') {
      ++c->p;
      break;
    }
    return cli_fail(err, errlen, "malformed .npy header: expected ',' or ')' "
                    "in shape");
  }
  *rank = r;
  return 0;
}

typedef struct npy_header {
  clg_dtype dtype;
  int fortran_order;
  int32_t rank;
  int64_t shape[CLG_MAX_RANK];
} npy_header;

static int parse_header_dict(const char *text, size_t len, npy_header *h,
                             char *err, size_t errlen) {
  cursor c = {text, text + len};
  int have_descr = 0, have_fortran = 0, have_shape = 0;
  if (expect_char(&c, '{', "at the start of the header dict", err, errlen))
    return -1;
  for (;;) {
    skip_ws(&c);
    if (c.p < c.end && *c.p == '}') {
      ++c.p;
      break;
    }
    char key[32];
    if (parse_string(&c, key, sizeof key, err, errlen) != 0)
      return -1;
    if (expect_char(&c, ':', "after a key", err, errlen) != 0)
      return -1;
    if (strcmp(key, "descr") == 0) {
      if (have_descr++)
        return cli_fail(err, errlen, "invalid .npy header: duplicate 'descr'");
      skip_ws(&c);
      if (c.p < c.end && *c.p == '[')
        return cli_fail(err, errlen, "structured dtypes are not supported");
      char descr[32];
      if (parse_string(&c, descr, sizeof descr, err, errlen) != 0)
        return -1;
      if (npy_dtype_of_descr(descr, &h->dtype, err, errlen) != 0)
        return -1;
    } else if (strcmp(key, "fortran_order") == 0) {
      if (have_fortran++)
        return cli_fail(err, errlen, "invalid .npy header: duplicate "
                        "'fortran_order'");
      if (parse_bool(&c, &h->fortran_order, err, errlen) != 0)
        return -1;
    } else if (strcmp(key, "shape") == 0) {
      if (have_shape++)
        return cli_fail(err, errlen, "invalid .npy header: duplicate 'shape'");
      if (parse_shape(&c, &h->rank, h->shape, err, errlen) != 0)
        return -1;
    } else {
      return cli_fail(err, errlen, "invalid .npy header: unexpected key '%s'",
                      key);
    }
    skip_ws(&c);
    if (c.p < c.end && *c.p == ',') {
      ++c.p;
      continue;
    }
    if (c.p < c.end && *c.p == '}') {
      ++c.p;
      break;
    }
    return cli_fail(err, errlen, "malformed .npy header: expected ',' or '}'");
  }
  skip_ws(&c);
  while (c.p < c.end && *c.p == '\0') /* tolerate NUL padding */
    ++c.p;
  if (c.p != c.end)
    return cli_fail(err, errlen, "malformed .npy header: unexpected text "
                    "after the dict");
  if (!have_descr || !have_fortran || !have_shape)
    return cli_fail(err, errlen, "invalid .npy header: missing '%s'",
                    !have_descr ? "descr"
                    : !have_fortran ? "fortran_order"
                                    : "shape");
  if (h->fortran_order) {
    int big = 0; /* Fortran order differs from C order iff 2+ dims exceed 1 */
    for (int32_t i = 0; i < h->rank; ++i)
      big += h->shape[i] > 1;
    if (big >= 2)
      return cli_fail(err, errlen, "Fortran-order arrays (fortran_order: "
                      "True) are not supported; save a C-order array "
                      "(np.ascontiguousarray)");
  }
  return 0;
}

/* ------------------------------------------------------------------- read */

static uint32_t read_le(const unsigned char *p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

/* Read up to `n` bytes at `off`; returns the count read (short only at the
 * end of the file) or -1 on an error. */
static ssize_t pread_full(int fd, void *buf, size_t n, uint64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, (unsigned char *)buf + got, n - got,
                      (off_t)(off + got));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return -1;
    if (r == 0)
      break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

/* Where a .npy image is read from: a descriptor (pread) or memory. */
typedef struct npy_src {
  int fd;
  const unsigned char *mem; /* non-NULL: the image, `size` bytes */
  uint64_t size;
} npy_src;

static ssize_t src_read(const npy_src *s, void *buf, size_t n, uint64_t off) {
  if (s->mem == NULL)
    return pread_full(s->fd, buf, n, off);
  if (off >= s->size)
    return 0;
  size_t k = s->size - off < n ? (size_t)(s->size - off) : n;
  memcpy(buf, s->mem + off, k);
  return (ssize_t)k;
}

static int npy_check_src(const npy_src *src, const char *path, npy_info *info,
                         char *err, size_t errlen);

/* The checks of npy_open() on an open descriptor. */
static int npy_check_fd(int fd, const char *path, npy_info *info, char *err,
                        size_t errlen) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return cli_fail(err, errlen, "cannot stat '%s': %s", path,
                    strerror(errno));
  if (!S_ISREG(st.st_mode))
    return cli_fail(err, errlen, "'%s' is not a regular file", path);
  npy_src src = {fd, NULL, (uint64_t)st.st_size};
  return npy_check_src(&src, path, info, err, errlen);
}

/* The header checks on any source: its size is the file's. */
static int npy_check_src(const npy_src *src, const char *path, npy_info *info,
                         char *err, size_t errlen) {
  uint64_t file_size = src->size;
  unsigned char pre[12];
  size_t want = file_size < sizeof pre ? (size_t)file_size : sizeof pre;
  if (src_read(src, pre, want, 0) != (ssize_t)want)
    return cli_fail(err, errlen, "cannot read '%s'", path);
  size_t cmp = want < sizeof npy_magic ? want : sizeof npy_magic;
  if (memcmp(pre, npy_magic, cmp) != 0)
    return cli_fail(err, errlen, "'%s' is not a .npy file (wrong magic; "
                    "expected \\x93NUMPY)", path);
  if (want < 8)
    return cli_fail(err, errlen, "'%s' is truncated: %llu bytes, too short "
                    "for a .npy preamble", path,
                    (unsigned long long)file_size);
  unsigned major = pre[6], minor = pre[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return cli_fail(err, errlen, "'%s': unsupported .npy format version "
                    "%u.%u (supported: 1.0, 2.0, 3.0)", path, major, minor);
  size_t prefix = major == 1 ? 10 : 12;
  if (want < prefix)
    return cli_fail(err, errlen, "'%s' is truncated: %llu bytes, too short "
                    "for a .npy %u.0 preamble", path,
                    (unsigned long long)file_size, major);
  uint32_t hlen = read_le(pre + 8, major == 1 ? 2 : 4);
  if ((uint64_t)hlen > file_size - prefix)
    return cli_fail(err, errlen, "'%s' is truncated: header claims %lu bytes "
                    "but only %llu follow the preamble", path,
                    (unsigned long)hlen,
                    (unsigned long long)(file_size - prefix));
  if (hlen > NPY_MAX_HEADER_BYTES)
    return cli_fail(err, errlen, "'%s': .npy header of %lu bytes is larger "
                    "than the %u-byte limit", path, (unsigned long)hlen,
                    (unsigned)NPY_MAX_HEADER_BYTES);
  char *header = malloc((size_t)hlen + 1);
  if (header == NULL)
    return cli_fail(err, errlen, "out of memory");
  if (src_read(src, header, hlen, prefix) != (ssize_t)hlen) {
    free(header);
    return cli_fail(err, errlen, "cannot read the header of '%s'", path);
  }
  header[hlen] = '\0';
  npy_header h;
  memset(&h, 0, sizeof h);
  char why[256];
  int rc = parse_header_dict(header, hlen, &h, why, sizeof why);
  free(header);
  if (rc != 0)
    return cli_fail(err, errlen, "'%s': %s", path, why);
  size_t nbytes;
  if (cli_shape_size(h.rank, h.shape, clg_dtype_size(h.dtype), NULL, &nbytes,
                     why, sizeof why) != 0)
    return cli_fail(err, errlen, "'%s': %s", path, why);
  uint64_t avail = file_size - prefix - hlen;
  if ((uint64_t)nbytes != avail) {
    char s[CLG_MAX_RANK * 24 + 4];
    cli_shape_string(h.rank, h.shape, s, sizeof s);
    return cli_fail(err, errlen, "'%s': %s of shape %s needs %zu data bytes "
                    "but the file holds %llu%s", path, npy_descr_of(h.dtype),
                    s, nbytes, (unsigned long long)avail,
                    (uint64_t)nbytes > avail ? " (truncated)"
                                             : " (trailing data)");
  }
  info->dtype = h.dtype;
  info->rank = h.rank;
  memcpy(info->shape, h.shape, sizeof h.shape);
  info->data_offset = prefix + hlen;
  info->nbytes = nbytes;
  return 0;
}

int npy_open(const char *path, int *fd, npy_info *info, char *err,
             size_t errlen) {
  *fd = -1;
  memset(info, 0, sizeof *info);
  /* O_NONBLOCK: a FIFO with no writer opens at once (and is refused as no
   * regular file below) instead of blocking the open for good; on a
   * regular file it changes nothing. */
  int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (f < 0)
    return cli_fail(err, errlen, "cannot open '%s': %s", path,
                    strerror(errno));
  if (npy_check_fd(f, path, info, err, errlen) != 0) {
    close(f);
    memset(info, 0, sizeof *info);
    return -1;
  }
  *fd = f;
  return 0;
}

int npy_read_data(int fd, const char *path, const npy_info *info,
                  cli_tensor *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  size_t nbytes = info->nbytes;
  void *data = malloc(nbytes ? nbytes : 1);
  if (data == NULL)
    return cli_fail(err, errlen, "out of memory allocating %zu bytes", nbytes);
  if (nbytes > 0 &&
      pread_full(fd, data, nbytes, info->data_offset) != (ssize_t)nbytes) {
    free(data);
    return cli_fail(err, errlen, "cannot read the data of '%s'", path);
  }
  t->dtype = info->dtype;
  t->rank = info->rank;
  memcpy(t->shape, info->shape, sizeof t->shape);
  t->data = data;
  t->nbytes = nbytes;
  return 0;
}

int npy_read(const char *path, cli_tensor *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  int fd;
  npy_info info;
  if (npy_open(path, &fd, &info, err, errlen) != 0)
    return -1;
  int rc = npy_read_data(fd, path, &info, t, err, errlen);
  close(fd);
  return rc;
}

int npy_decode_owned(unsigned char *buf, size_t len, const char *name,
                     cli_tensor *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  npy_info info;
  memset(&info, 0, sizeof info);
  npy_src src = {-1, buf, (uint64_t)len};
  if (npy_check_src(&src, name, &info, err, errlen) != 0) {
    free(buf);
    return -1;
  }
  /* The elements to the buffer's start: malloc's alignment for them. */
  memmove(buf, buf + info.data_offset, info.nbytes);
  unsigned char *data = realloc(buf, info.nbytes ? info.nbytes : 1);
  t->dtype = info.dtype;
  t->rank = info.rank;
  memcpy(t->shape, info.shape, sizeof t->shape);
  t->data = data != NULL ? data : buf; /* a failed shrink keeps it as is */
  t->nbytes = info.nbytes;
  return 0;
}

/* ------------------------------------------------------------------ write */

int npy_header_encode(clg_dtype dtype, int32_t rank, const int64_t *shape,
                      int version, unsigned char *buf, size_t cap,
                      size_t *len, char *err, size_t errlen) {
  *len = 0;
  const char *descr = npy_descr_of(dtype);
  if (descr == NULL)
    return cli_fail(err, errlen, "NumPy has no %s dtype: cannot write it to "
                    ".npy (use .pb)", clg_dtype_name(dtype));
  if (cli_shape_size(rank, shape, clg_dtype_size(dtype), NULL, NULL, err,
                     errlen) != 0)
    return -1;
  if (version < 0 || version > 3)
    return cli_fail(err, errlen, "unknown .npy version %d", version);

  char dict[64 + CLG_MAX_RANK * 24];
  int n = snprintf(dict, sizeof dict,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int32_t i = 0; i < rank; ++i)
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%lld",
                  i ? ", " : "", (long long)shape[i]);
  n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }",
                rank == 1 ? "," : "");
  size_t dict_len = (size_t)n;

  if (version == 0)
    version = dict_len + 1 + 10 <= 65535 ? 1 : 2;
  size_t prefix = version == 1 ? 10 : 12;
  size_t total_header = prefix + dict_len + 1; /* + '\n' */
  size_t padded = (total_header + 63) / 64 * 64;
  size_t hlen = padded - prefix;
  if (version == 1 && hlen > 65535)
    return cli_fail(err, errlen, "header too long for .npy version 1.0");
  if (padded > cap)
    return cli_fail(err, errlen, ".npy header of %zu bytes does not fit in "
                    "%zu", padded, cap);
  memcpy(buf, npy_magic, sizeof npy_magic);
  buf[6] = (unsigned char)version;
  buf[7] = 0;
  for (size_t i = 0; i < prefix - 8; ++i)
    buf[8 + i] = (unsigned char)((hlen >> (8 * i)) & 0xff);
  memcpy(buf + prefix, dict, dict_len);
  memset(buf + prefix + dict_len, ' ', hlen - dict_len - 1);
  buf[padded - 1] = '\n';
  *len = padded;
  return 0;
}

int npy_encode(const cli_tensor *t, int version, unsigned char **out,
               size_t *out_len, char *err, size_t errlen) {
  *out = NULL;
  *out_len = 0;
  if (npy_descr_of(t->dtype) == NULL)
    return cli_fail(err, errlen, "NumPy has no %s dtype: cannot write it to "
                    ".npy (use .pb)", clg_dtype_name(t->dtype));
  size_t nbytes;
  if (cli_shape_size(t->rank, t->shape, clg_dtype_size(t->dtype), NULL,
                     &nbytes, err, errlen) != 0)
    return -1;
  if (nbytes != t->nbytes)
    return cli_fail(err, errlen, "tensor holds %zu bytes but its shape needs "
                    "%zu", t->nbytes, nbytes);
  unsigned char header[NPY_WRITE_HEADER_MAX];
  size_t padded;
  if (npy_header_encode(t->dtype, t->rank, t->shape, version, header,
                        sizeof header, &padded, err, errlen) != 0)
    return -1;
  if (nbytes > SIZE_MAX - padded)
    return cli_fail(err, errlen, "tensor too large");
  unsigned char *buf = malloc(padded + nbytes);
  if (buf == NULL)
    return cli_fail(err, errlen, "out of memory allocating %zu bytes",
                    padded + nbytes);
  memcpy(buf, header, padded);
  if (nbytes > 0)
    memcpy(buf + padded, t->data, nbytes);
  *out = buf;
  *out_len = padded + nbytes;
  return 0;
}

int npy_write(const char *path, const cli_tensor *t, int version, char *err,
              size_t errlen) {
  unsigned char *buf;
  size_t len;
  if (npy_encode(t, version, &buf, &len, err, errlen) != 0)
    return -1;
  int rc = cli_write_file_atomic(path, buf, len, err, errlen);
  free(buf);
  return rc;
}
