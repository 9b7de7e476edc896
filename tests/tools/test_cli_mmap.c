/*
 * Mapped .npy files (tools/formats/npy_map.c) and the CLI on them: .npy
 * inputs are mapped read-only and handed to the library in place, a .npy
 * OUT is written through a mapped temporary file renamed at the end.
 *
 * - npy_map(): the mapping is used when the data offset is a multiple of
 *   the element size, the file is read (a copy) otherwise, the bytes are
 *   those written, hostile files get npy_read()'s messages;
 * - `clgather gather` and `scatter-nd` / `scatter-elements` on such files:
 *   OUT byte for byte the .npy image of the plain-C references
 *   (tests/support/), the input files' bytes unchanged on disk;
 * - truncated files and shapes larger than the file: exit 1, a clear
 *   message, OUT absent or unchanged, no temporary file;
 * - errors after the temporary OUT exists (a scatter's duplicates, OUT a
 *   directory) leave no temporary file behind.
 *
 * CLGATHER_CLI_PATH is the built binary.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_testutil.h"
#include "npy.h"
#include "reference/ref_scatter.h"
#include "reference/reference.h"
#include "tensor_file.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif

TestSuite(cli_mmap, .fini = ct_cleanup, .timeout = 120);

#define KEEP "an existing output, not a tensor\n"

/* ------------------------------------------------------------- helpers */

static int run_cli(char **err, const char *const *args) {
  char *argv[32];
  size_t n = 0;
  argv[n++] = (char *)CLGATHER_CLI_PATH;
  for (; args[n - 1] != NULL; ++n) {
    cr_assert_lt(n, 31);
    argv[n] = (char *)args[n - 1];
  }
  argv[n] = NULL;
  return ct_run(argv, NULL, err);
}
#define CLI(err, ...) run_cli(err, (const char *[]){__VA_ARGS__, NULL})

/* A version 1.0 .npy image whose data starts exactly `offset` bytes in: the
 * dict, spaces, '\n' (the reader takes any header length; writers pad to
 * 64, older ones to 16). */
static unsigned char *npy_at_offset(const char *dict, size_t offset,
                                    const void *data, size_t data_len,
                                    size_t *len) {
  size_t dlen = strlen(dict);
  cr_assert_geq(offset, 10 + dlen + 1, "offset %zu too small", offset);
  unsigned char *buf = malloc(offset + data_len + 1);
  cr_assert_not_null(buf);
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  size_t hlen = offset - 10;
  buf[8] = (unsigned char)(hlen & 0xff);
  buf[9] = (unsigned char)(hlen >> 8);
  memcpy(buf + 10, dict, dlen);
  memset(buf + 10 + dlen, ' ', hlen - dlen - 1);
  buf[offset - 1] = '\n';
  if (data_len)
    memcpy(buf + offset, data, data_len);
  *len = offset + data_len;
  return buf;
}

/* Write a .npy file (data at `offset`; 0: ct_make_npy's 64-byte padding). */
static void save_npy(const char *name, const char *dict, size_t offset,
                     const void *data, size_t data_len) {
  size_t len;
  unsigned char *buf = offset ? npy_at_offset(dict, offset, data, data_len,
                                              &len)
                              : ct_make_npy(1, dict, data, data_len, &len);
  ct_write_file(ct_path(name), buf, len);
  free(buf);
}

/* OUT must be, byte for byte, the .npy image (64-byte padded header, as
 * numpy writes it) of `dict` and `data`. */
static void expect_npy_image(const char *name, const char *dict,
                             const void *data, size_t data_len) {
  size_t want_len, got_len = 0;
  unsigned char *want = ct_make_npy(1, dict, data, data_len, &want_len);
  unsigned char *got = ct_read_file(ct_path(name), &got_len);
  cr_assert_not_null(got, "%s was not written", name);
  cr_assert_eq(got_len, want_len, "%s: %zu bytes, expected %zu", name,
               got_len, want_len);
  cr_assert_eq(memcmp(got, want, want_len), 0,
               "%s differs from the reference", name);
  free(got);
  free(want);
}

/* A file's bytes, to compare after a run. */
typedef struct snapshot {
  unsigned char *bytes;
  size_t len;
} snapshot;

static snapshot snap(const char *name) {
  snapshot s = {NULL, 0};
  s.bytes = ct_read_file(ct_path(name), &s.len);
  cr_assert_not_null(s.bytes, "%s missing", name);
  return s;
}

static void expect_unchanged(snapshot *s, const char *name) {
  size_t len = 0;
  unsigned char *now = ct_read_file(ct_path(name), &len);
  cr_assert_not_null(now, "%s was removed", name);
  cr_assert(len == s->len && memcmp(now, s->bytes, len) == 0,
            "%s was changed on disk", name);
  free(now);
  free(s->bytes);
  s->bytes = NULL;
}

static void expect_no_temp(const char *what) {
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0,
               "%s: a temporary file was left in OUT's folder", what);
}

/* ------------------------------------------------------ npy_map itself */

#define F4_5x3 "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 3), }"

/* Map a file whose data starts at `offset`: the right bytes, and mapped in
 * place exactly when `mapped`. */
static void expect_map(size_t offset, int mapped) {
  float d[15];
  ct_fill_pattern(d, sizeof d, (unsigned)offset);
  save_npy("m.npy", F4_5x3, offset, d, sizeof d);
  char err[512];
  cli_tensor t;
  cr_assert_eq(npy_map(ct_path("m.npy"), &t, err, sizeof err), 0,
               "offset %zu: %s", offset, err);
  cr_assert_eq(t.dtype, CLG_DTYPE_FLOAT);
  cr_assert_eq(t.rank, 2);
  cr_assert(t.shape[0] == 5 && t.shape[1] == 3);
  cr_assert_eq(t.nbytes, sizeof d);
  cr_assert_eq(memcmp(t.data, d, sizeof d), 0, "offset %zu: wrong bytes",
               offset);
  if (mapped) {
    size_t file_len = 0;
    free(ct_read_file(ct_path("m.npy"), &file_len));
    size_t at = file_len - sizeof d; /* offset, or ct_make_npy's padding */
    cr_assert(offset == 0 || at == offset);
    cr_assert_not_null(t.mapping, "offset %zu: not mapped", offset);
    cr_assert_eq((unsigned char *)t.data - (unsigned char *)t.mapping,
                 (ptrdiff_t)at);
    cr_assert_eq(t.mapping_len, at + sizeof d);
  } else {
    cr_assert_null(t.mapping, "offset %zu: mapped, not aligned to 4",
                   offset);
  }
  cli_tensor_free(&t);
  cr_assert_null(t.data);
  cr_assert_null(t.mapping);
}

Test(cli_mmap, map_uses_the_mapping_when_aligned) {
  expect_map(0 /* numpy's padding to 64: 128 here */, 1);
  expect_map(80, 1);  /* 16-byte padding of older writers */
  expect_map(132, 1); /* any multiple of the element size */
}

Test(cli_mmap, map_reads_an_unaligned_file) {
  expect_map(81, 0);
  expect_map(82, 0);
  expect_map(127, 0);
}

Test(cli_mmap, map_reads_empty_data) {
  save_npy("e.npy",
           "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 0), }", 0,
           NULL, 0);
  char err[512];
  cli_tensor t;
  cr_assert_eq(npy_map(ct_path("e.npy"), &t, err, sizeof err), 0, "%s", err);
  cr_assert_eq(t.nbytes, 0);
  cr_assert_not_null(t.data);
  cr_assert_null(t.mapping);
  cli_tensor_free(&t);
}

Test(cli_mmap, map_rejects_truncated_and_oversized_files) {
  float d[15] = {0};
  char err[512];
  cli_tensor t;
  /* Header only: the data was cut off. */
  save_npy("cut.npy", F4_5x3, 0, d, 0);
  cr_assert_eq(npy_map(ct_path("cut.npy"), &t, err, sizeof err), -1);
  cr_assert(strstr(err, "needs 60 data bytes but the file holds 0 "
                        "(truncated)") != NULL,
            "%s", err);
  cr_assert_null(t.data);
  /* A shape far larger than the file. */
  save_npy("huge.npy",
           "{'descr': '<f4', 'fortran_order': False, 'shape': "
           "(1000000, 768), }",
           0, d, sizeof d);
  cr_assert_eq(npy_map(ct_path("huge.npy"), &t, err, sizeof err), -1);
  cr_assert(strstr(err, "needs 3072000000 data bytes but the file holds 60 "
                        "(truncated)") != NULL,
            "%s", err);
  cr_assert_null(t.data);
  cr_assert_null(t.mapping);
}

/* ---------------------------------------------------------- the gather */

Test(cli_mmap, gather_on_mapped_files_matches_reference) {
  /* float [37, 5] at numpy's offset, int64 indices [2, 3] with negatives. */
  float d[37 * 5];
  ct_fill_pattern(d, sizeof d, 1);
  const int64_t idx[6] = {0, 36, -1, 17, -37, 5};
  save_npy("d.npy", "{'descr': '<f4', 'fortran_order': False, "
                    "'shape': (37, 5), }",
           0, d, sizeof d);
  save_npy("i.npy", "{'descr': '<i8', 'fortran_order': False, "
                    "'shape': (2, 3), }",
           0, idx, sizeof idx);
  snapshot sd = snap("d.npy"), si = snap("i.npy");
  char *err = NULL;
  int rc = CLI(&err, "gather", ct_path("d.npy"), ct_path("i.npy"), "-o",
               ct_path("o.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  const int64_t ds[2] = {37, 5}, is[2] = {2, 3};
  float want[6 * 5];
  cr_assert_eq(ref_gather(d, 4, 2, ds, idx, REF_INDEX_I64, 2, is, 0, want),
               0);
  expect_npy_image("o.npy", "{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (2, 3, 5), }",
                   want, sizeof want);
  expect_unchanged(&sd, "d.npy");
  expect_unchanged(&si, "i.npy");
  expect_no_temp("gather");
}

Test(cli_mmap, gather_on_unaligned_files_falls_back_and_matches) {
  /* int16 [4, 9] whose data starts at an odd offset, int32 indices at an
   * offset that is not a multiple of 4: both are read, not mapped. */
  int16_t d[4 * 9];
  ct_fill_pattern(d, sizeof d, 2);
  const int32_t idx[5] = {8, 0, -2, 3, 3};
  save_npy("d.npy", "{'descr': '<i2', 'fortran_order': False, "
                    "'shape': (4, 9), }",
           75, d, sizeof d);
  save_npy("i.npy", "{'descr': '<i4', 'fortran_order': False, "
                    "'shape': (5,), }",
           70, idx, sizeof idx);
  char *err = NULL;
  int rc = CLI(&err, "gather", "--axis", "1", ct_path("d.npy"),
               ct_path("i.npy"), "-o", ct_path("o.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  const int64_t ds[2] = {4, 9}, is[1] = {5};
  int16_t want[4 * 5];
  cr_assert_eq(ref_gather(d, 2, 2, ds, idx, REF_INDEX_I32, 1, is, 1, want),
               0);
  expect_npy_image("o.npy", "{'descr': '<i2', 'fortran_order': False, "
                            "'shape': (4, 5), }",
                   want, sizeof want);
  expect_no_temp("unaligned gather");
}

Test(cli_mmap, gather_empty_results_and_pb_out) {
  double d[3 * 2];
  ct_fill_pattern(d, sizeof d, 3);
  const int64_t none[1] = {0}, one[1] = {-3};
  save_npy("d.npy", "{'descr': '<f8', 'fortran_order': False, "
                    "'shape': (3, 2), }",
           0, d, sizeof d);
  save_npy("i0.npy", "{'descr': '<i8', 'fortran_order': False, "
                     "'shape': (0,), }",
           0, none, 0);
  save_npy("i1.npy", "{'descr': '<i8', 'fortran_order': False, "
                     "'shape': (1,), }",
           0, one, sizeof one);
  char *err = NULL;
  /* No index: an OUT of shape (0, 2), the header alone. */
  int rc = CLI(&err, "gather", ct_path("d.npy"), ct_path("i0.npy"), "-o",
               ct_path("o.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  expect_npy_image("o.npy", "{'descr': '<f8', 'fortran_order': False, "
                            "'shape': (0, 2), }",
                   NULL, 0);
  /* A .pb OUT still goes through host memory and the encoder. */
  rc = CLI(&err, "gather", ct_path("d.npy"), ct_path("i1.npy"), "-o",
           ct_path("o.pb"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  char msg[512];
  cli_tensor got;
  cr_assert_eq(cli_tensor_read(ct_path("o.pb"), &got, msg, sizeof msg), 0,
               "%s", msg);
  cr_assert_eq(got.nbytes, 2 * sizeof(double));
  cr_assert_eq(memcmp(got.data, d, 2 * sizeof(double)), 0,
               "row -3 is row 0");
  cli_tensor_free(&got);
  expect_no_temp("empty gather");
}

/* -------------------------------------------------------- the scatters */

#define I4_6x4 "{'descr': '<i4', 'fortran_order': False, 'shape': (6, 4), }"

Test(cli_mmap, scatter_nd_on_mapped_files_keeps_data_on_disk) {
  int32_t d[6 * 4], u[3 * 4];
  for (int i = 0; i < 24; ++i)
    d[i] = 1000 + i;
  for (int i = 0; i < 12; ++i)
    u[i] = -i;
  const int64_t idx[3] = {5, -6, 5}; /* row 5 twice: added in order */
  save_npy("d.npy", I4_6x4, 0, d, sizeof d);
  save_npy("i.npy", "{'descr': '<i8', 'fortran_order': False, "
                    "'shape': (3, 1), }",
           0, idx, sizeof idx);
  save_npy("u.npy", "{'descr': '<i4', 'fortran_order': False, "
                    "'shape': (3, 4), }",
           0, u, sizeof u);
  snapshot sd = snap("d.npy"), si = snap("i.npy"), su = snap("u.npy");
  char *err = NULL;
  int rc = CLI(&err, "scatter-nd", "--reduction", "add", ct_path("d.npy"),
               ct_path("i.npy"), ct_path("u.npy"), "-o", ct_path("o.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  int32_t want[24];
  memcpy(want, d, sizeof want);
  const int64_t ds[2] = {6, 4}, is[2] = {3, 1};
  int64_t bad = -1, first = -1;
  cr_assert_eq(ref_scatter_nd(want, CLG_DTYPE_INT32, 2, ds, idx,
                              REF_INDEX_I64, 2, is, u, REF_RED_ADD, 0, &bad,
                              &first),
               REF_OK);
  expect_npy_image("o.npy", I4_6x4, want, sizeof want);
  expect_unchanged(&sd, "d.npy");
  expect_unchanged(&si, "i.npy");
  expect_unchanged(&su, "u.npy");
  expect_no_temp("scatter-nd");
}

Test(cli_mmap, scatter_elements_onto_its_own_data_file) {
  /* OUT names DATA: DATA stays mapped, OUT is a new file renamed over it at
   * the end, so the result is computed from the original DATA. The
   * updates start at an unaligned offset (read, not mapped). */
  int32_t d[6 * 4], u[2 * 2];
  for (int i = 0; i < 24; ++i)
    d[i] = 7 * i;
  for (int i = 0; i < 4; ++i)
    u[i] = 90 + i;
  const int64_t idx[4] = {3, 0, -1, 1};
  save_npy("d.npy", I4_6x4, 0, d, sizeof d);
  save_npy("i.npy", "{'descr': '<i8', 'fortran_order': False, "
                    "'shape': (2, 2), }",
           0, idx, sizeof idx);
  save_npy("u.npy", "{'descr': '<i4', 'fortran_order': False, "
                    "'shape': (2, 2), }",
           77, u, sizeof u);
  char *err = NULL;
  int rc = CLI(&err, "scatter-elements", "--axis", "1", ct_path("d.npy"),
               ct_path("i.npy"), ct_path("u.npy"), "-o", ct_path("d.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  int32_t want[24];
  memcpy(want, d, sizeof want);
  const int64_t ds[2] = {6, 4}, is[2] = {2, 2};
  int64_t bad = -1, first = -1;
  cr_assert_eq(ref_scatter_elements(want, CLG_DTYPE_INT32, 2, ds, idx,
                                    REF_INDEX_I64, is, u, 1, REF_RED_NONE, 0,
                                    &bad, &first),
               REF_OK);
  expect_npy_image("d.npy", I4_6x4, want, sizeof want);
  expect_no_temp("scatter onto DATA");
}

/* ------------------------------------------------------ hostile inputs */

/* Every role of a file: exit 1 with `needle` in a one-line message, an
 * absent OUT not created, an existing OUT unchanged, no temporary file. */
static void expect_rejected_everywhere(const char *bad, const char *needle) {
  int32_t d[24] = {0}, u[4] = {0};
  const int64_t idx[2] = {1, 2};
  save_npy("d.npy", I4_6x4, 0, d, sizeof d);
  save_npy("i.npy", "{'descr': '<i8', 'fortran_order': False, "
                    "'shape': (2, 1), }",
           0, idx, sizeof idx);
  save_npy("u.npy", "{'descr': '<i4', 'fortran_order': False, "
                    "'shape': (2, 4), }",
           0, u, sizeof u);
  static const char *roles[] = {"DATA", "INDICES", "UPDATES"};
  for (int role = 0; role < 3; ++role) {
    for (int existing = 0; existing < 2; ++existing) {
      char what[256];
      snprintf(what, sizeof what, "%s as %s, OUT %s", bad, roles[role],
               existing ? "existing" : "absent");
      const char *out = ct_path("o.npy");
      remove(out);
      if (existing)
        ct_write_file(out, KEEP, strlen(KEEP));
      char data[1024], ind[1024], upd[1024], o[1024];
      snprintf(data, sizeof data, "%s", ct_path(role == 0 ? bad : "d.npy"));
      snprintf(ind, sizeof ind, "%s", ct_path(role == 1 ? bad : "i.npy"));
      snprintf(upd, sizeof upd, "%s", ct_path(role == 2 ? bad : "u.npy"));
      snprintf(o, sizeof o, "%s", out);
      char *err = NULL;
      int rc = role == 2 ? CLI(&err, "scatter-nd", data, ind, upd, "-o", o)
                         : CLI(&err, "gather", data, ind, "-o", o);
      cr_assert_eq(rc, 1, "%s: exit %d, stderr: %s", what, rc, err);
      cr_assert_eq(strncmp(err, "clgather: ", 10), 0, "%s: %s", what, err);
      cr_assert(strstr(err, needle) != NULL, "%s: expected '%s' in: %s", what,
                needle, err);
      cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1,
                   "%s: expected one line: %s", what, err);
      free(err);
      if (existing) {
        size_t len = 0;
        unsigned char *now = ct_read_file(out, &len);
        cr_assert(now && len == strlen(KEEP) && memcmp(now, KEEP, len) == 0,
                  "%s: OUT was changed", what);
        free(now);
      } else {
        cr_assert(!ct_exists(out), "%s: OUT was created", what);
      }
      expect_no_temp(what);
    }
  }
}

Test(cli_mmap, truncated_after_header_exits_1) {
  /* The header of an int64 [2, 1] / int32 [2, 4] / [6, 4] tensor, no data:
   * the same file is too short in every role. */
  save_npy("cut.npy", "{'descr': '<i8', 'fortran_order': False, "
                      "'shape': (2, 1), }",
           0, NULL, 0);
  expect_rejected_everywhere("cut.npy", "needs 16 data bytes but the file "
                                        "holds 0 (truncated)");
}

Test(cli_mmap, shape_larger_than_file_exits_1) {
  int64_t some[8] = {0};
  save_npy("big.npy", "{'descr': '<i8', 'fortran_order': False, "
                      "'shape': (4096, 100000), }",
           0, some, sizeof some);
  expect_rejected_everywhere("big.npy", "needs 3276800000 data bytes but the "
                                        "file holds 64 (truncated)");
}

/* ------------------------------- errors after the temporary OUT exists */

Test(cli_mmap, errors_after_out_is_opened_leave_no_temp_file) {
  int32_t d[24] = {0}, u[8] = {0};
  const int64_t dup[2] = {4, 4};
  save_npy("d.npy", I4_6x4, 0, d, sizeof d);
  save_npy("i.npy", "{'descr': '<i8', 'fortran_order': False, "
                    "'shape': (2, 1), }",
           0, dup, sizeof dup);
  save_npy("u.npy", "{'descr': '<i4', 'fortran_order': False, "
                    "'shape': (2, 4), }",
           0, u, sizeof u);
  /* Repeated targets under reduction none: found by the library, after
   * the temporary OUT was created and mapped. */
  char *err = NULL;
  int rc = CLI(&err, "scatter-nd", ct_path("d.npy"), ct_path("i.npy"),
               ct_path("u.npy"), "-o", ct_path("o.npy"));
  cr_assert_eq(rc, 1, "stderr: %s", err);
  cr_assert(strstr(err, "duplicate") != NULL, "%s", err);
  free(err);
  cr_assert(!ct_exists(ct_path("o.npy")), "OUT was created");
  expect_no_temp("duplicates");
  /* OUT is a folder: the final rename fails. */
  cr_assert_eq(mkdir(ct_path("dir.npy"), 0700), 0);
  rc = CLI(&err, "scatter-nd", "--reduction", "add", ct_path("d.npy"),
           ct_path("i.npy"), ct_path("u.npy"), "-o", ct_path("dir.npy"));
  cr_assert_eq(rc, 1, "stderr: %s", err);
  cr_assert(strstr(err, "cannot rename") != NULL, "%s", err);
  free(err);
  expect_no_temp("OUT a folder");
  rmdir(ct_path("dir.npy"));
  /* OUT in a folder that does not exist: no temporary file can be made. */
  rc = CLI(&err, "gather", ct_path("d.npy"), ct_path("i.npy"), "-o",
           ct_path("missing/o.npy"));
  cr_assert_eq(rc, 1, "stderr: %s", err);
  cr_assert(strstr(err, "cannot create a temporary file") != NULL, "%s", err);
  free(err);
  expect_no_temp("missing folder");
}
