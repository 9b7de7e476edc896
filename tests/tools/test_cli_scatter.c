/*
 * `clgather scatter-elements`, `scatter-nd` and `scatter`: outputs against
 * the plain-C sequential references (tools/reference/ref_scatter_*.c), byte
 * for byte; duplicates and out-of-bounds indices exit 1 and leave OUT
 * absent or unchanged; usage errors exit 2.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cli_testutil.h"
#include "reference/ref_scatter.h"
#include "tensor_file.h"

TestSuite(cli_scatter, .fini = ct_cleanup, .timeout = 120);

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

static void make(cli_tensor *t, clg_dtype dt, int32_t rank,
                 const int64_t *shape, const void *values) {
  char err[256];
  cr_assert_eq(cli_tensor_alloc(t, dt, rank, shape, err, sizeof err), 0, "%s",
               err);
  memcpy(t->data, values, t->nbytes);
}

static void save(const char *path, const cli_tensor *t) {
  char err[256];
  cr_assert_eq(cli_tensor_write(path, t, err, sizeof err), 0, "%s", err);
}

static void expect_file(const char *path, const void *want, size_t n) {
  char err[512];
  cli_tensor got;
  cr_assert_eq(cli_tensor_read(path, &got, err, sizeof err), 0, "%s", err);
  cr_assert_eq(got.nbytes, n);
  cr_expect_eq(memcmp(got.data, want, n), 0, "%s differs from the reference",
               path);
  cli_tensor_free(&got);
}

Test(cli_scatter, scatter_nd_add_matches_reference) {
  const int64_t ds[2] = {4, 3}, is[2] = {5, 1}, us[2] = {5, 3};
  int32_t data[12], upd[15];
  for (int i = 0; i < 12; ++i)
    data[i] = 100 * i;
  for (int i = 0; i < 15; ++i)
    upd[i] = i - 7;
  const int64_t idx[5] = {1, -1, 1, 0, 1}; /* target 1 three times */
  cli_tensor d, x, u;
  make(&d, CLG_DTYPE_INT32, 2, ds, data);
  make(&x, CLG_DTYPE_INT64, 2, is, idx);
  make(&u, CLG_DTYPE_INT32, 2, us, upd);
  save(ct_path("d.npy"), &d);
  save(ct_path("i.npy"), &x);
  save(ct_path("u.pb"), &u);
  char *err = NULL;
  int rc = CLI(&err, "scatter-nd", "--reduction", "add", ct_path("d.npy"),
               ct_path("i.npy"), ct_path("u.pb"), "-o", ct_path("o.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  int64_t bad = -1, first = -1;
  cr_assert_eq(ref_scatter_nd(data, CLG_DTYPE_INT32, 2, ds, idx, REF_INDEX_I64,
                              2, is, upd, REF_RED_ADD, 0, &bad, &first),
               REF_OK);
  expect_file(ct_path("o.npy"), data, sizeof data);
  cli_tensor_free(&d);
  cli_tensor_free(&x);
  cli_tensor_free(&u);
}

Test(cli_scatter, duplicates_exit_1_and_write_nothing) {
  const int64_t ds[2] = {2, 3}, is[2] = {2, 2};
  const float data[6] = {0, 1, 2, 3, 4, 5}, upd[4] = {7, 8, 9, 10};
  const int64_t idx[4] = {2, 2, 0, 1}; /* row 0 writes column 2 twice */
  cli_tensor d, x, u;
  make(&d, CLG_DTYPE_FLOAT, 2, ds, data);
  make(&x, CLG_DTYPE_INT64, 2, is, idx);
  make(&u, CLG_DTYPE_FLOAT, 2, is, upd);
  save(ct_path("d.npy"), &d);
  save(ct_path("i.npy"), &x);
  save(ct_path("u.npy"), &u);
  char *err = NULL;
  int rc = CLI(&err, "scatter-elements", "--axis", "1", ct_path("d.npy"),
               ct_path("i.npy"), ct_path("u.npy"), "-o", ct_path("o.npy"));
  cr_expect_eq(rc, 1, "stderr: %s", err);
  cr_expect(strstr(err, "duplicate index") != NULL, "%s", err);
  free(err);
  cr_expect(!ct_exists(ct_path("o.npy")), "OUT was created");
  /* an existing OUT stays as it was */
  ct_write_file(ct_path("keep.npy"), "old", 3);
  rc = CLI(&err, "scatter", "-a", "1", ct_path("d.npy"), ct_path("i.npy"),
           ct_path("u.npy"), "-o", ct_path("keep.npy"));
  cr_expect_eq(rc, 1, "stderr: %s", err);
  free(err);
  size_t len = 0;
  unsigned char *now = ct_read_file(ct_path("keep.npy"), &len);
  cr_expect(now && len == 3 && memcmp(now, "old", 3) == 0, "OUT changed");
  free(now);
  /* --duplicates last: the later entry wins, as the reference says */
  rc = CLI(&err, "scatter-elements", "-a", "1", "--duplicates", "last",
           ct_path("d.npy"), ct_path("i.npy"), ct_path("u.npy"), "-o",
           ct_path("o.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  float want[6];
  memcpy(want, data, sizeof want);
  int64_t bad = -1, first = -1;
  cr_assert_eq(ref_scatter_elements(want, CLG_DTYPE_FLOAT, 2, ds, idx,
                                    REF_INDEX_I64, is, upd, 1, REF_RED_NONE, 1,
                                    &bad, &first),
               REF_OK);
  expect_file(ct_path("o.npy"), want, sizeof want);
  cli_tensor_free(&d);
  cli_tensor_free(&x);
  cli_tensor_free(&u);
}

Test(cli_scatter, usage_errors_exit_2) {
  char *err = NULL;
  int rc = CLI(&err, "scatter-nd", "--reduction", "sum", "a.npy", "b.npy",
               "c.npy", "-o", ct_path("o.npy"));
  cr_expect_eq(rc, 2, "stderr: %s", err);
  cr_expect(strstr(err, "--reduction") != NULL, "%s", err);
  free(err);
  rc = CLI(&err, "scatter-elements", "--duplicates", "first", "a.npy",
           "b.npy", "c.npy", "-o", ct_path("o.npy"));
  cr_expect_eq(rc, 2, "stderr: %s", err);
  free(err);
  rc = CLI(&err, "scatter-nd", "a.npy", "b.npy", "-o", ct_path("o.npy"));
  cr_expect_eq(rc, 2, "stderr: %s", err);
  cr_expect(strstr(err, "UPDATES") != NULL, "%s", err);
  free(err);
  cr_expect(!ct_exists(ct_path("o.npy")));
}
