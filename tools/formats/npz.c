/* .npz archives (npz.h): the zip records numpy reads and writes, and no
 * more. The member's bytes go through npy_decode_owned(), so an .npz
 * member is checked exactly as a .npy file is. */
#define _POSIX_C_SOURCE 200809L

#include "npz.h"
#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if CLGATHER_CLI_ZLIB
#include <zlib.h>
#endif

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOCATOR64 0x07064b50u
#define ZIP64_EXTRA 0x0001u

/* ----------------------------------------------------------------- CRC-32 */

uint32_t npz_crc32(uint32_t crc, const void *buf, size_t n) {
  static uint32_t table[256];
  static int ready; /* the table is the same whoever fills it */
  if (!ready) {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    ready = 1;
  }
  const unsigned char *p = buf;
  crc = ~crc;
  for (size_t i = 0; i < n; ++i)
    crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

/* ------------------------------------------------------------------ names */

size_t npz_path_length(const char *spec) {
  if (spec == NULL)
    return 0;
  size_t best = 0;
  for (const char *p = spec; *p != '\0'; ++p)
    if (p[0] == '.' && (p[1] == 'n' || p[1] == 'N') &&
        (p[2] == 'p' || p[2] == 'P') && (p[3] == 'z' || p[3] == 'Z') &&
        (p[4] == '\0' || p[4] == ':'))
      best = (size_t)(p - spec) + 4;
  return best;
}

/* spec's archive path (malloc'ed) and member name (into spec, or NULL). */
static int split_spec(const char *spec, char **path, const char **name,
                      char *err, size_t errlen) {
  size_t n = npz_path_length(spec);
  if (n == 0)
    return cli_fail(err, errlen, "'%s' names no .npz file", spec);
  *path = malloc(n + 1);
  if (*path == NULL)
    return cli_fail(err, errlen, "out of memory");
  memcpy(*path, spec, n);
  (*path)[n] = '\0';
  *name = spec[n] == ':' ? spec + n + 1 : NULL;
  if (*name != NULL && **name == '\0') {
    free(*path);
    return cli_fail(err, errlen, "'%s': no member name after ':'", spec);
  }
  return 0;
}

/* ------------------------------------------------------------------- read */

static uint64_t le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

static int read_at(int fd, void *buf, size_t n, uint64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r =
        pread(fd, (unsigned char *)buf + got, n - got, (off_t)(off + got));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    got += (size_t)r;
  }
  return 0;
}

/* One member of the central directory. */
typedef struct zentry {
  const unsigned char *name;
  size_t name_len;
  unsigned method, flags;
  uint32_t crc;
  uint64_t csize, usize, offset;
} zentry;

/* The central directory's record at cd[*pos], its ZIP64 extra applied. */
static int parse_central(const unsigned char *cd, size_t len, size_t *pos,
                         zentry *e) {
  if (len - *pos < 46 || le(cd + *pos, 4) != SIG_CENTRAL)
    return -1;
  const unsigned char *r = cd + *pos;
  size_t nl = (size_t)le(r + 28, 2), xl = (size_t)le(r + 30, 2),
         cl = (size_t)le(r + 32, 2);
  if (len - *pos - 46 < nl + xl + cl)
    return -1;
  e->flags = (unsigned)le(r + 8, 2);
  e->method = (unsigned)le(r + 10, 2);
  e->crc = (uint32_t)le(r + 16, 4);
  e->csize = le(r + 20, 4);
  e->usize = le(r + 24, 4);
  e->offset = le(r + 42, 4);
  e->name = r + 46;
  e->name_len = nl;
  const unsigned char *x = r + 46 + nl, *xend = x + xl;
  while (xend - x >= 4) {
    unsigned id = (unsigned)le(x, 2);
    size_t sz = (size_t)le(x + 2, 2);
    if ((size_t)(xend - x - 4) < sz)
      return -1;
    if (id == ZIP64_EXTRA) {
      const unsigned char *f = x + 4, *fend = f + sz;
      uint64_t *fields[3] = {&e->usize, &e->csize, &e->offset};
      for (int k = 0; k < 3; ++k)
        if (*fields[k] == 0xffffffffu) {
          if (fend - f < 8)
            return -1;
          *fields[k] = le(f, 8);
          f += 8;
        }
    }
    x += 4 + sz;
  }
  *pos += 46 + nl + xl + cl;
  return 0;
}

static int name_is(const zentry *e, const char *name, const char *suffix) {
  size_t n = strlen(name), s = strlen(suffix);
  return e->name_len == n + s && memcmp(e->name, name, n) == 0 &&
         memcmp(e->name + n, suffix, s) == 0;
}

/* The member's bytes, checked against its CRC-32 (malloc'ed). */
static int extract(int fd, uint64_t file_size, const zentry *e,
                   const char *spec, unsigned char **out, char *err,
                   size_t errlen) {
  unsigned char lh[30];
  if (e->offset > file_size || file_size - e->offset < 30 ||
      read_at(fd, lh, 30, e->offset) != 0 || le(lh, 4) != SIG_LOCAL)
    return cli_fail(err, errlen,
                    "'%s': the member's local header is missing "
                    "or damaged",
                    spec);
  uint64_t data = e->offset + 30 + le(lh + 26, 2) + le(lh + 28, 2);
  if (data > file_size || file_size - data < e->csize)
    return cli_fail(err, errlen,
                    "'%s' is truncated: the member needs %llu "
                    "bytes past offset %llu of a %llu-byte file",
                    spec, (unsigned long long)e->csize,
                    (unsigned long long)data, (unsigned long long)file_size);
  if (e->flags & 1u)
    return cli_fail(err, errlen,
                    "'%s' is encrypted, which clgather does not "
                    "read",
                    spec);
  if (e->method == 0 && e->usize != e->csize)
    return cli_fail(err, errlen,
                    "'%s': a stored member of %llu bytes claims "
                    "%llu",
                    spec, (unsigned long long)e->csize,
                    (unsigned long long)e->usize);
#if CLGATHER_CLI_ZLIB
  /* deflate expands at most 1032:1: a larger claim is a lie */
  if (e->method == 8 && e->usize / 1032 > e->csize + 1)
    return cli_fail(err, errlen,
                    "'%s': %llu deflated bytes cannot hold the "
                    "%llu claimed",
                    spec, (unsigned long long)e->csize,
                    (unsigned long long)e->usize);
#endif
  if (e->method != 0
#if CLGATHER_CLI_ZLIB
      && e->method != 8
#endif
  )
    return cli_fail(err, errlen,
                    "'%s': compression method %u is not "
                    "supported (%s)",
                    spec, e->method,
#if CLGATHER_CLI_ZLIB
                    "stored and deflated are"
#else
                    "only stored; this clgather was built without zlib, "
                    "so numpy.savez_compressed's deflated files are not"
#endif
    );
  if (e->usize > SIZE_MAX - 1 || e->csize > SIZE_MAX - 1)
    return cli_fail(err, errlen, "'%s': too large for this host", spec);
  unsigned char *buf = malloc(e->usize ? (size_t)e->usize : 1);
  if (buf == NULL)
    return cli_fail(err, errlen, "out of memory allocating %llu bytes",
                    (unsigned long long)e->usize);
  int ok = 1;
  if (e->method == 0) {
    ok = read_at(fd, buf, (size_t)e->usize, data) == 0;
  } else {
#if CLGATHER_CLI_ZLIB
    unsigned char *in = malloc(e->csize ? (size_t)e->csize : 1);
    ok = in != NULL && read_at(fd, in, (size_t)e->csize, data) == 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (ok && inflateInit2(&z, -15) == Z_OK) {
      size_t done_in = 0, done_out = 0;
      int zr = Z_OK;
      while (zr == Z_OK) {
        size_t cin = (size_t)e->csize - done_in,
               cout = (size_t)e->usize - done_out;
        z.next_in = in + done_in;
        z.avail_in = cin > (1u << 30) ? (1u << 30) : (uInt)cin;
        z.next_out = buf + done_out;
        z.avail_out = cout > (1u << 30) ? (1u << 30) : (uInt)cout;
        uInt ai = z.avail_in, ao = z.avail_out;
        zr = inflate(&z, Z_NO_FLUSH);
        done_in += ai - z.avail_in;
        done_out += ao - z.avail_out;
        if (zr == Z_OK && ai == z.avail_in && ao == z.avail_out)
          zr = Z_BUF_ERROR; /* no progress: truncated or too long */
      }
      ok = zr == Z_STREAM_END && done_out == (size_t)e->usize;
      inflateEnd(&z);
    } else {
      ok = 0;
    }
    free(in);
    if (!ok) {
      free(buf);
      return cli_fail(err, errlen,
                      "'%s': the deflated member is damaged or "
                      "not %llu bytes long",
                      spec, (unsigned long long)e->usize);
    }
#endif
  }
  if (!ok) {
    free(buf);
    return cli_fail(err, errlen, "cannot read '%s'", spec);
  }
  uint32_t crc = npz_crc32(0, buf, (size_t)e->usize);
  if (crc != e->crc) {
    free(buf);
    return cli_fail(err, errlen,
                    "'%s': CRC-32 mismatch (the file says "
                    "%08x, the bytes give %08x): the archive is damaged",
                    spec, (unsigned)e->crc, (unsigned)crc);
  }
  *out = buf;
  return 0;
}

/* The central directory of the archive open on fd: *cd (malloc'ed),
 * *cd_len bytes, *count records. */
static int read_directory(int fd, uint64_t size, const char *path,
                          unsigned char **cd, size_t *cd_len, uint64_t *count,
                          char *err, size_t errlen) {
  /* the end record: 22 bytes and a comment of up to 65535 */
  size_t tail = size < 22 + 65535 ? (size_t)size : 22 + 65535;
  unsigned char *t = malloc(tail ? tail : 1);
  if (t == NULL)
    return cli_fail(err, errlen, "out of memory");
  if (tail < 22 || read_at(fd, t, tail, size - tail) != 0) {
    free(t);
    return cli_fail(err, errlen,
                    "'%s' is not a zip archive (.npz): too "
                    "short",
                    path);
  }
  size_t at = tail - 22 + 1;
  int found = 0;
  while (at-- > 0)
    if (le(t + at, 4) == SIG_END && at + 22 + le(t + at + 20, 2) <= tail) {
      found = 1;
      break;
    }
  if (!found) {
    free(t);
    return cli_fail(err, errlen,
                    "'%s' is not a zip archive (.npz): no end "
                    "of central directory record",
                    path);
  }
  uint64_t end_pos = size - tail + at;
  uint64_t n = le(t + at + 10, 2), cd_size = le(t + at + 12, 4),
           cd_off = le(t + at + 16, 4);
  free(t);
  if (n == 0xffff || cd_size == 0xffffffffu || cd_off == 0xffffffffu) {
    unsigned char loc[20], e64[56];
    if (end_pos < 20 || read_at(fd, loc, 20, end_pos - 20) != 0 ||
        le(loc, 4) != SIG_LOCATOR64 || le(loc + 8, 8) > size - 56 ||
        read_at(fd, e64, 56, le(loc + 8, 8)) != 0 || le(e64, 4) != SIG_END64)
      return cli_fail(err, errlen,
                      "'%s': its ZIP64 end records are missing "
                      "or damaged",
                      path);
    n = le(e64 + 32, 8);
    cd_size = le(e64 + 40, 8);
    cd_off = le(e64 + 48, 8);
  }
  if (cd_off > size || size - cd_off < cd_size || cd_size > SIZE_MAX ||
      n > cd_size / 46)
    return cli_fail(err, errlen,
                    "'%s': its central directory (%llu records, "
                    "%llu bytes at %llu) does not fit in the %llu-byte file",
                    path, (unsigned long long)n, (unsigned long long)cd_size,
                    (unsigned long long)cd_off, (unsigned long long)size);
  *cd = malloc(cd_size ? (size_t)cd_size : 1);
  if (*cd == NULL)
    return cli_fail(err, errlen, "out of memory");
  if (read_at(fd, *cd, (size_t)cd_size, cd_off) != 0) {
    free(*cd);
    return cli_fail(err, errlen, "cannot read '%s'", path);
  }
  *cd_len = (size_t)cd_size;
  *count = n;
  return 0;
}

int npz_read(const char *spec, cli_tensor *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  char *path = NULL;
  const char *name = NULL;
  if (split_spec(spec, &path, &name, err, errlen) != 0)
    return -1;
  uint64_t size = 0;
  FILE *f = cli_open_regular(path, path, "", &size, err, errlen);
  if (f == NULL) {
    free(path);
    return -1;
  }
  int fd = fileno(f);
  unsigned char *cd = NULL, *bytes = NULL;
  size_t cd_len = 0;
  uint64_t count = 0;
  int rc = read_directory(fd, size, path, &cd, &cd_len, &count, err, errlen);
  if (rc == 0) {
    zentry e, hit;
    memset(&hit, 0, sizeof hit);
    size_t pos = 0, hits = 0;
    char names[512] = "";
    for (uint64_t i = 0; i < count && rc == 0; ++i) {
      if (parse_central(cd, cd_len, &pos, &e) != 0) {
        rc = cli_fail(err, errlen,
                      "'%s': central directory record %llu is "
                      "damaged",
                      path, (unsigned long long)i);
        break;
      }
      size_t k = strlen(names), shown = e.name_len;
      if (shown > 4 && memcmp(e.name + shown - 4, ".npy", 4) == 0)
        shown -= 4;
      if (k + shown + 3 < sizeof names)
        snprintf(names + k, sizeof names - k, "%s%.*s", k ? ", " : "",
                 (int)shown, (const char *)e.name);
      if (name == NULL || name_is(&e, name, ".npy") || name_is(&e, name, ""))
        if (hits++ == 0 || (name != NULL && name_is(&e, name, ".npy")))
          hit = e;
    }
    if (rc == 0 && (hits == 0 || (name == NULL && hits > 1)))
      rc = name != NULL ? cli_fail(err, errlen,
                                   "'%s' has no array '%s' (it holds: "
                                   "%s)",
                                   path, name, count ? names : "nothing")
           : count == 0
               ? cli_fail(err, errlen, "'%s' holds no array", path)
               : cli_fail(err, errlen,
                          "'%s' holds %llu arrays: name one, "
                          "as %s:NAME (NAME one of %s)",
                          path, (unsigned long long)count, path, names);
    if (rc == 0)
      rc = extract(fd, size, &hit, spec, &bytes, err, errlen);
    if (rc == 0)
      rc = npy_decode_owned(bytes, (size_t)hit.usize, spec, t, err, errlen);
  }
  free(cd);
  fclose(f);
  free(path);
  return rc;
}

/* ------------------------------------------------------------------ write */

static void put(unsigned char *p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    p[i] = (unsigned char)(v >> (8 * i));
}

static int write_all(int fd, const void *buf, size_t n) {
  const unsigned char *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int npz_write(const char *spec, const cli_tensor *t, char *err, size_t errlen) {
  char *path = NULL;
  const char *name = NULL;
  if (split_spec(spec, &path, &name, err, errlen) != 0)
    return -1;
  /* the member: NAME.npy, or the archive's own name with .npy */
  char member[1024];
  if (name != NULL) {
    snprintf(member, sizeof member, "%s.npy", name);
  } else {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(member, sizeof member, "%.*s.npy", (int)(strlen(base) - 4), base);
  }
  unsigned char header[NPY_WRITE_HEADER_MAX];
  size_t hlen = 0;
  if (npy_header_encode(t->dtype, t->rank, t->shape, 0, header, sizeof header,
                        &hlen, err, errlen) != 0) {
    free(path);
    return -1;
  }
  uint64_t usize = (uint64_t)hlen + t->nbytes;
  uint32_t crc = npz_crc32(npz_crc32(0, header, hlen), t->data, t->nbytes);
  int zip64 = usize >= 0xffffffffu;
  size_t nl = strlen(member);
  /* DOS time of now, as numpy's zipfile writes it */
  time_t now = time(NULL);
  struct tm tm;
  unsigned dos_time = 0, dos_date = (1 << 5) | 1; /* 1980-01-01 */
  if (localtime_r(&now, &tm) != NULL && tm.tm_year >= 80) {
    dos_time = (unsigned)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
    dos_date =
        (unsigned)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
  }
  unsigned char lh[30 + 20], cdh[46 + 20], end64[56 + 20], end[22];
  size_t lx = zip64 ? 20 : 0; /* ZIP64 extra: id, size, usize, csize */
  put(lh, SIG_LOCAL, 4);
  put(lh + 4, zip64 ? 45 : 20, 2);
  put(lh + 6, 0, 2);
  put(lh + 8, 0, 2); /* stored */
  put(lh + 10, dos_time, 2);
  put(lh + 12, dos_date, 2);
  put(lh + 14, crc, 4);
  put(lh + 18, zip64 ? 0xffffffffu : usize, 4);
  put(lh + 22, zip64 ? 0xffffffffu : usize, 4);
  put(lh + 26, nl, 2);
  put(lh + 28, lx, 2);
  if (zip64) {
    put(lh + 30, ZIP64_EXTRA, 2);
    put(lh + 32, 16, 2);
    put(lh + 34, usize, 8);
    put(lh + 42, usize, 8);
  }
  put(cdh, SIG_CENTRAL, 4);
  put(cdh + 4, 3u << 8 | (zip64 ? 45 : 20), 2); /* made on Unix */
  memcpy(cdh + 6, lh + 4, 26);                  /* needed .. name length */
  put(cdh + 32, 0, 2);                          /* comment */
  put(cdh + 34, 0, 2);                          /* disk */
  put(cdh + 36, 0, 2);                          /* internal attributes */
  put(cdh + 38, (uint64_t)0100644 << 16, 4);    /* a regular file, 0644 */
  put(cdh + 42, 0, 4);                          /* the local header's offset */
  if (zip64)
    memcpy(cdh + 46, lh + 30, 20);
  uint64_t cd_off = 30 + lx + nl + usize, cd_size = 46 + lx + nl;
  size_t e64 = 0;
  if (zip64) { /* a ZIP64 end record and its locator */
    put(end64, SIG_END64, 4);
    put(end64 + 4, 44, 8);
    put(end64 + 12, 3u << 8 | 45, 2);
    put(end64 + 14, 45, 2);
    put(end64 + 16, 0, 4);
    put(end64 + 20, 0, 4);
    put(end64 + 24, 1, 8);
    put(end64 + 32, 1, 8);
    put(end64 + 40, cd_size, 8);
    put(end64 + 48, cd_off, 8);
    put(end64 + 56, SIG_LOCATOR64, 4);
    put(end64 + 60, 0, 4);
    put(end64 + 64, cd_off + cd_size, 8);
    put(end64 + 72, 1, 4);
    e64 = 76;
  }
  put(end, SIG_END, 4);
  put(end + 4, 0, 4);
  put(end + 8, 1, 2);
  put(end + 10, 1, 2);
  put(end + 12, cd_size, 4);
  put(end + 16, zip64 ? 0xffffffffu : cd_off, 4);
  put(end + 20, 0, 2);

  cli_outfile o;
  if (cli_outfile_create(path, &o, 1, err, errlen) != 0) {
    free(path);
    return -1;
  }
  int ok = write_all(o.fd, lh, 30) == 0 && write_all(o.fd, member, nl) == 0 &&
           write_all(o.fd, lh + 30, lx) == 0 &&
           write_all(o.fd, header, hlen) == 0 &&
           write_all(o.fd, t->data, t->nbytes) == 0 &&
           write_all(o.fd, cdh, 46) == 0 && write_all(o.fd, member, nl) == 0 &&
           write_all(o.fd, cdh + 46, lx) == 0 &&
           write_all(o.fd, end64, e64) == 0 && write_all(o.fd, end, 22) == 0;
  if (!ok) {
    int e = errno;
    cli_fail(err, errlen, "cannot write %s: %s", cli_outfile_label(&o),
             strerror(e));
    cli_outfile_discard(&o);
    free(path);
    return -1;
  }
  int rc = cli_outfile_commit(&o, path, err, errlen);
  free(path);
  return rc;
}
