/* .npz archives (tools/formats/npz.c) and "-" for stdin and stdout: the
 * reader on archives this test builds byte by byte as numpy writes them
 * (zipfile with force_zip64: ZIP64 extras, sizes 0xffffffff in the local
 * header; stored, and deflated with zlib), damaged ones refused; the
 * writer's archive parsed here with the test's own CRC-32; and the clgather
 * binary on them, its result against a gather computed here. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#if CLGATHER_CLI_ZLIB
#include <zlib.h>
#endif

#include "cli_testutil.h"
#include "npz.h"
#include "tensor_file.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif

TestSuite(cli_npz, .fini = ct_cleanup, .timeout = 120);

/* -------------------------------------------------- the test's own zip */

static uint32_t crc_bitwise(const unsigned char *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k)
      c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

static void put(unsigned char *p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}

typedef struct member {
  const char *name;
  const unsigned char *bytes; /* the .npy image */
  size_t len;
  int deflate;
} member;

/* A zip of the members, as Python's zipfile writes for numpy.savez
 * (force_zip64: a ZIP64 extra in each local header, whose 32-bit sizes are
 * 0xffffffff; the central directory's plain). */
static unsigned char *make_zip(const member *m, int n, size_t *len) {
  unsigned char *z = malloc(1 << 20), cd[4096];
  size_t at = 0, cdl = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned char *data = m[i].bytes;
    size_t csize = m[i].len;
    unsigned char *packed = NULL;
#if CLGATHER_CLI_ZLIB
    if (m[i].deflate) {
      packed = malloc(m[i].len + 1024);
      z_stream s;
      memset(&s, 0, sizeof s);
      cr_assert_eq(deflateInit2(&s, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY),
                   Z_OK);
      s.next_in = (unsigned char *)m[i].bytes;
      s.avail_in = (uInt)m[i].len;
      s.next_out = packed;
      s.avail_out = (uInt)(m[i].len + 1024);
      cr_assert_eq(deflate(&s, Z_FINISH), Z_STREAM_END);
      csize = s.total_out;
      deflateEnd(&s);
      data = packed;
    }
#endif
    size_t nl = strlen(m[i].name);
    uint32_t crc = crc_bitwise(m[i].bytes, m[i].len);
    unsigned char *lh = z + at;
    put(lh, 0x04034b50u, 4);
    put(lh + 4, 45, 2);
    put(lh + 6, 0, 2);
    put(lh + 8, m[i].deflate ? 8 : 0, 2);
    put(lh + 10, 0, 4);
    put(lh + 14, crc, 4);
    put(lh + 18, 0xffffffffu, 4);
    put(lh + 22, 0xffffffffu, 4);
    put(lh + 26, nl, 2);
    put(lh + 28, 20, 2);
    memcpy(lh + 30, m[i].name, nl);
    put(lh + 30 + nl, 1, 2);
    put(lh + 32 + nl, 16, 2);
    put(lh + 34 + nl, m[i].len, 8);
    put(lh + 42 + nl, csize, 8);
    memcpy(lh + 50 + nl, data, csize);
    unsigned char *c = cd + cdl;
    put(c, 0x02014b50u, 4);
    put(c + 4, 20, 2);
    put(c + 6, 20, 2);
    put(c + 8, 0, 2);
    put(c + 10, m[i].deflate ? 8 : 0, 2);
    put(c + 12, 0, 4);
    put(c + 16, crc, 4);
    put(c + 20, csize, 4);
    put(c + 24, m[i].len, 4);
    put(c + 28, nl, 2);
    memset(c + 30, 0, 12);
    put(c + 42, at, 4);
    memcpy(c + 46, m[i].name, nl);
    cdl += 46 + nl;
    at += 50 + nl + csize;
    free(packed);
  }
  memcpy(z + at, cd, cdl);
  unsigned char *e = z + at + cdl;
  put(e, 0x06054b50u, 4);
  put(e + 4, 0, 4);
  put(e + 8, (uint64_t)n, 2);
  put(e + 10, (uint64_t)n, 2);
  put(e + 12, cdl, 4);
  put(e + 16, at, 4);
  put(e + 20, 0, 2);
  *len = at + cdl + 22;
  return z;
}

static const float DATA[6] = {1, 2, 3, 4, 5, 6};
static const int64_t IDX[2] = {2, 0};
/* numpy.take(DATA.reshape(3, 2), [2, 0], axis=0) */
static const float WANT[4] = {5, 6, 1, 2};

static unsigned char *data_npy(size_t *len) {
  return ct_make_npy(
      1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", DATA,
      sizeof DATA, len);
}
static unsigned char *idx_npy(size_t *len) {
  return ct_make_npy(
      1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", IDX,
      sizeof IDX, len);
}

static void write_archive(const char *path, int deflate) {
  size_t dl, il, zl;
  unsigned char *d = data_npy(&dl), *i = idx_npy(&il);
  member m[2] = {{"data.npy", d, dl, deflate}, {"idx.npy", i, il, 0}};
  unsigned char *z = make_zip(m, 2, &zl);
  ct_write_file(path, z, zl);
  free(z);
  free(d);
  free(i);
}

/* ------------------------------------------------------------- reading */

Test(cli_npz, reads_members_as_numpy_writes_them) {
  write_archive(ct_path("s.npz"), 0);
  char err[512];
  cli_tensor t;
  cr_assert_eq(cli_format_of_path(ct_path("s.npz")), CLI_FORMAT_NPZ);
  cr_assert_eq(cli_format_of_path("a.NPZ:x"), CLI_FORMAT_NPZ);
  char spec[600];
  snprintf(spec, sizeof spec, "%s:data", ct_path("s.npz"));
  cr_assert_eq(cli_tensor_read(spec, &t, err, sizeof err), 0, "%s", err);
  cr_expect_eq(t.dtype, CLG_DTYPE_FLOAT);
  cr_expect(t.rank == 2 && t.shape[0] == 3 && t.shape[1] == 2);
  cr_expect_eq(memcmp(t.data, DATA, sizeof DATA), 0);
  cli_tensor_free(&t);
  snprintf(spec, sizeof spec, "%s:idx.npy", ct_path("s.npz"));
  cr_assert_eq(cli_tensor_read(spec, &t, err, sizeof err), 0, "%s", err);
  cr_expect_eq(memcmp(t.data, IDX, sizeof IDX), 0);
  cli_tensor_free(&t);
  /* two members: one must be named */
  cr_assert_eq(cli_tensor_read(ct_path("s.npz"), &t, err, sizeof err), -1);
  cr_expect(strstr(err, "holds 2 arrays") && strstr(err, "data, idx"), "%s",
            err);
  snprintf(spec, sizeof spec, "%s:nope", ct_path("s.npz"));
  cr_assert_eq(cli_tensor_read(spec, &t, err, sizeof err), -1);
  cr_expect(strstr(err, "no array 'nope'") != NULL, "%s", err);
  /* one member: the archive alone names it */
  size_t dl, zl;
  unsigned char *d = data_npy(&dl);
  member one = {"arr_0.npy", d, dl, 0};
  unsigned char *z = make_zip(&one, 1, &zl);
  ct_write_file(ct_path("one.npz"), z, zl);
  cr_assert_eq(cli_tensor_read(ct_path("one.npz"), &t, err, sizeof err), 0,
               "%s", err);
  cr_expect_eq(memcmp(t.data, DATA, sizeof DATA), 0);
  cli_tensor_free(&t);
  /* damaged: a flipped data byte (CRC), a cut archive, no archive */
  z[60] ^= 0x40;
  ct_write_file(ct_path("bad.npz"), z, zl);
  cr_assert_eq(cli_tensor_read(ct_path("bad.npz"), &t, err, sizeof err), -1);
  cr_expect(strstr(err, "CRC-32") != NULL, "%s", err);
  z[60] ^= 0x40;
  ct_write_file(ct_path("cut.npz"), z, zl - 30);
  cr_assert_eq(cli_tensor_read(ct_path("cut.npz"), &t, err, sizeof err), -1);
  ct_write_file(ct_path("junk.npz"), d, dl);
  cr_assert_eq(cli_tensor_read(ct_path("junk.npz"), &t, err, sizeof err), -1);
  cr_expect(strstr(err, "not a zip archive") != NULL, "%s", err);
  free(z);
  free(d);
}

#if CLGATHER_CLI_ZLIB
Test(cli_npz, reads_deflated_members) {
  write_archive(ct_path("c.npz"), 1);
  char err[512], spec[600];
  cli_tensor t;
  snprintf(spec, sizeof spec, "%s:data", ct_path("c.npz"));
  cr_assert_eq(cli_tensor_read(spec, &t, err, sizeof err), 0, "%s", err);
  cr_expect_eq(memcmp(t.data, DATA, sizeof DATA), 0);
  cli_tensor_free(&t);
}
#endif

/* ------------------------------------------------------------- writing */

/* The one member of an archive written by npz_write(), parsed here. */
static unsigned char *only_member(const char *path, char *name, size_t cap,
                                  size_t *len) {
  size_t zl;
  unsigned char *z = ct_read_file(path, &zl);
  cr_assert(z != NULL && zl > 30 + 46 + 22);
  cr_assert_eq(get(z, 4), 0x04034b50u);
  cr_assert_eq(get(z + 8, 2), 0, "not stored");
  size_t nl = (size_t)get(z + 26, 2), xl = (size_t)get(z + 28, 2);
  size_t n = (size_t)get(z + 22, 4);
  cr_assert_lt(nl, cap);
  memcpy(name, z + 30, nl);
  name[nl] = '\0';
  cr_assert_eq(get(z + 14, 4), crc_bitwise(z + 30 + nl + xl, n), "CRC");
  const unsigned char *e = z + zl - 22;
  cr_assert_eq(get(e, 4), 0x06054b50u);
  cr_assert_eq(get(e + 10, 2), 1);
  const unsigned char *c = z + get(e + 16, 4);
  cr_assert_eq(get(c, 4), 0x02014b50u);
  cr_assert_eq(get(c + 16, 4), get(z + 14, 4));
  cr_assert_eq(get(c + 24, 4), n);
  unsigned char *m = malloc(n);
  memcpy(m, z + 30 + nl + xl, n);
  free(z);
  *len = n;
  return m;
}

/* ------------------------------------------------------- the binary */

/* Run the CLI with stdin from in_path (NULL: /dev/null), stdout to
 * out_path; returns the exit status, stderr in *err. */
static int run_io(const char *in_path, const char *out_path, char **err,
                  const char *const *args) {
  char *argv[16] = {(char *)CLGATHER_CLI_PATH};
  int n = 1;
  for (; args[n - 1] != NULL; ++n)
    argv[n] = (char *)args[n - 1];
  argv[n] = NULL;
  char ep[600];
  snprintf(ep, sizeof ep, "%s", ct_path("stderr.txt"));
  pid_t pid = fork();
  cr_assert(pid >= 0);
  if (pid == 0) {
    int i = open(in_path ? in_path : "/dev/null", O_RDONLY);
    int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(ep, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(i, 0);
    dup2(o, 1);
    dup2(e, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    ;
  size_t len;
  unsigned char *e = ct_read_file(ep, &len);
  *err = realloc(e, len + 1);
  (*err)[len] = '\0';
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
#define RUN(in, out, err, ...)                                                 \
  run_io(in, out, err, (const char *const[]){__VA_ARGS__, NULL})

/* The .npy file's elements are WANT's (its header checked by npy_read). */
static void expect_result(const unsigned char *npy, size_t len) {
  unsigned char *copy = malloc(len);
  memcpy(copy, npy, len);
  char err[256];
  cli_tensor t;
  cr_assert_eq(npy_decode_owned(copy, len, "result", &t, err, sizeof err), 0,
               "%s", err);
  cr_expect(t.rank == 2 && t.shape[0] == 2 && t.shape[1] == 2);
  cr_expect_eq(t.nbytes, sizeof WANT);
  cr_expect_eq(memcmp(t.data, WANT, sizeof WANT), 0, "result differs");
  cli_tensor_free(&t);
}

Test(cli_npz, gather_reads_and_writes_npz_stdin_and_stdout) {
  size_t dl, il;
  unsigned char *d = data_npy(&dl), *i = idx_npy(&il);
  ct_write_file(ct_path("d.npy"), d, dl);
  ct_write_file(ct_path("i.npy"), i, il);
  write_archive(ct_path("s.npz"), 0);
  char dz[600], iz[600], oz[600];
  snprintf(dz, sizeof dz, "%s:data", ct_path("s.npz"));
  snprintf(iz, sizeof iz, "%s:idx", ct_path("s.npz"));
  char *err = NULL;
  char sink[600]; /* ct_path's buffers are a ring: keep a copy */
  snprintf(sink, sizeof sink, "%s", ct_path("stdout.bin"));

  /* .npz in, .npz out (a member named after the file) */
  int rc = RUN(NULL, sink, &err, "gather", dz, iz, "-o", ct_path("o.npz"));
  cr_assert_eq(rc, 0, "rc %d: %s", rc, err);
  free(err);
  char name[256];
  size_t n;
  unsigned char *m = only_member(ct_path("o.npz"), name, sizeof name, &n);
  cr_expect_str_eq(name, "o.npy");
  expect_result(m, n);
  free(m);
  /* -o FILE.npz:NAME names the member */
  snprintf(oz, sizeof oz, "%s:result", ct_path("p.npz"));
  rc = RUN(NULL, sink, &err, "gather", dz, ct_path("i.npy"), "-o", oz);
  cr_assert_eq(rc, 0, "rc %d: %s", rc, err);
  free(err);
  m = only_member(ct_path("p.npz"), name, sizeof name, &n);
  cr_expect_str_eq(name, "result.npy");
  expect_result(m, n);
  free(m);

  /* DATA from stdin, OUT to stdout */
  rc = RUN(ct_path("d.npy"), sink, &err, "gather", "-", ct_path("i.npy"), "-o",
           "-");
  cr_assert_eq(rc, 0, "rc %d: %s", rc, err);
  cr_expect_str_empty(err);
  free(err);
  m = ct_read_file(sink, &n);
  expect_result(m, n);
  free(m);
  /* INDICES from stdin, OUT a file */
  rc = RUN(ct_path("i.npy"), sink, &err, "gather", ct_path("d.npy"), "-",
           "--output=-");
  cr_assert_eq(rc, 0, "rc %d: %s", rc, err);
  free(err);
  m = ct_read_file(sink, &n);
  expect_result(m, n);
  free(m);

  /* bad data on stdin: exit 1, nothing on stdout */
  rc = RUN(ct_path("s.npz"), sink, &err, "gather", "-", ct_path("i.npy"), "-o",
           "-");
  cr_expect_eq(rc, 1, "rc %d: %s", rc, err);
  cr_expect(strstr(err, "'-'") != NULL, "%s", err);
  free(err);
  m = ct_read_file(sink, &n);
  cr_expect_eq(n, 0, "wrote %zu bytes to stdout", n);
  free(m);
  /* an archive with two arrays, none named: exit 1 */
  rc = RUN(NULL, sink, &err, "gather", ct_path("s.npz"), ct_path("i.npy"), "-o",
           ct_path("x.npy"));
  cr_expect_eq(rc, 1, "rc %d: %s", rc, err);
  free(err);
  /* usage errors: stdin twice, a format that cannot be told */
  rc = RUN(ct_path("d.npy"), sink, &err, "gather", "-", "-", "-o", "-");
  cr_expect_eq(rc, 2, "rc %d: %s", rc, err);
  cr_expect(ct_is_usage_line(err, "gather"), "%s", err);
  free(err);
  rc = RUN(NULL, sink, &err, "gather", ct_path("d.npy"), ct_path("i.npy"), "-o",
           ct_path("o.dat"));
  cr_expect_eq(rc, 2, "rc %d: %s", rc, err);
  cr_expect(ct_is_usage_line(err, "gather") && strstr(err, "o.dat"), "%s", err);
  free(err);
  cr_expect(!ct_exists(ct_path("o.dat")) && !ct_exists(ct_path("x.npy")));
  cr_expect_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  free(d);
  free(i);
}
