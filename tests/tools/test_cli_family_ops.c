/* gather-elements and gather-nd through the clgather binary, against the
 * small plain-C references of cli_family_fx.c (written from the ONNX
 * definitions), byte for byte, never against the library: --axis and
 * --batch-dims, int32 and int64 indices, .npy and .pb files; their
 * out-of-bounds errors and bad shapes, which leave OUT as it was. Part of
 * test_cli_family (its suite and the gather command: test_cli_family.c;
 * onnx-test: test_cli_family_onnx.c). */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cli_family_fx.h"
#include "cli_testutil.h"
#include "tensor_file.h"

/* ------------------------------------------------------ gather-elements */

Test(cli_family, gather_elements_matches_reference) {
  int64_t dshape[3] = {3, 4, 5};
  cli_tensor data, idx, ref;
  make_tensor(&data, CLG_DTYPE_DOUBLE, 3, dshape, 21);
  save(ct_path("d.npy"), &data);

  /* axis 1, indices smaller than data on the other axes, int64, .pb out. */
  int64_t ishape[3] = {2, 6, 3};
  int64_t values[40];
  for (int i = 0; i < 36; ++i)
    values[i] = (i * 7) % 8 - 4; /* -4 .. 3 */
  make_indices(&idx, CLG_DTYPE_INT64, 3, ishape, values);
  save(ct_path("i.npy"), &idx);
  char *err;
  int rc = CLI(NULL, &err, "gather-elements", "--axis", "1", ct_path("d.npy"),
               ct_path("i.npy"), "-o", ct_path("o.pb"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather_elements(&data, &idx, 1, &ref);
  expect_same(ct_path("o.pb"), &ref);
  cli_tensor_free(&ref);
  cli_tensor_free(&idx);

  /* axis -1 (= 2), int32 .pb indices; and the default axis 0. */
  int64_t jshape[3] = {3, 4, 2};
  for (int i = 0; i < 24; ++i)
    values[i] = (i * 5) % 10 - 5; /* -5 .. 4 */
  make_indices(&idx, CLG_DTYPE_INT32, 3, jshape, values);
  save(ct_path("j.pb"), &idx);
  rc = CLI(NULL, &err, "gather-elements", ct_path("d.npy"), ct_path("j.pb"),
           "--axis=-1", "-o", ct_path("o2.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather_elements(&data, &idx, -1, &ref);
  expect_same(ct_path("o2.npy"), &ref);
  cli_tensor_free(&ref);
  cli_tensor_free(&idx);

  int64_t kshape[3] = {2, 4, 5};
  for (int i = 0; i < 40; ++i)
    values[i] = i % 3 == 0 ? -1 : i % 3;
  make_indices(&idx, CLG_DTYPE_INT64, 3, kshape, values);
  save(ct_path("k.npy"), &idx);
  rc = CLI(NULL, &err, "gather-elements", ct_path("d.npy"), ct_path("k.npy"),
           "-o", ct_path("o3.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather_elements(&data, &idx, 0, &ref);
  expect_same(ct_path("o3.npy"), &ref);
  cli_tensor_free(&ref);
  cli_tensor_free(&idx);
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  cli_tensor_free(&data);
}

Test(cli_family, gather_elements_out_of_bounds_and_bad_shapes) {
  int64_t dshape[2] = {3, 4}, ishape[2] = {2, 4};
  cli_tensor data, idx, bad_rank;
  make_tensor(&data, CLG_DTYPE_UINT16, 2, dshape, 22);
  const int64_t values[8] = {0, 1, 2, -3, 1, 2, -4, 0}; /* [1, 2] = -4 */
  make_indices(&idx, CLG_DTYPE_INT64, 2, ishape, values);
  int64_t rshape[1] = {4};
  make_indices(&bad_rank, CLG_DTYPE_INT64, 1, rshape, values);
  save(ct_path("d.npy"), &data);
  save(ct_path("i.npy"), &idx);
  save(ct_path("r.npy"), &bad_rank);

  char *err;
  int rc = CLI(NULL, &err, "gather-elements", ct_path("d.npy"),
               ct_path("i.npy"), "-o", ct_path("new.npy"));
  cr_assert_eq(rc, 1, "stderr: %s", err);
  cr_assert_eq(strncmp(err, "clgather: ", 10), 0, "%s", err);
  cr_assert(strstr(err, "-4") != NULL, "value missing: %s", err);
  cr_assert(strstr(err, "[1, 2]") != NULL || strstr(err, "indices[6]"),
            "position missing: %s", err);
  cr_assert(strstr(err, "[-3, 2]") != NULL, "valid range missing: %s", err);
  free(err);
  cr_assert(!ct_exists(ct_path("new.npy")), "OUT must not be created");

  const char *keep = "keep me";
  ct_write_file(ct_path("old.npy"), keep, strlen(keep));
  /* Out of bounds; indices rank differs from data's; axis out of range. */
  const char *cases[3][3] = {
      {"i.npy", "0", NULL}, {"r.npy", "0", NULL}, {"i.npy", "2", NULL}};
  for (size_t c = 0; c < 3; ++c) {
    rc = CLI(NULL, &err, "gather-elements", "--axis", cases[c][1],
             ct_path("d.npy"), ct_path(cases[c][0]), "-o", ct_path("old.npy"));
    cr_assert_eq(rc, 1, "case %zu: rc %d, stderr: %s", c, rc, err);
    cr_assert_eq(strncmp(err, "clgather: ", 10), 0, "%s", err);
    free(err);
    expect_unchanged(ct_path("old.npy"), keep);
  }
  /* In range on axis 1 (size 4): the same indices are fine. */
  rc = CLI(NULL, &err, "gather-elements", "--axis", "1", ct_path("d.npy"),
           ct_path("i.npy"), "-o", ct_path("old.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  cli_tensor ref;
  reference_gather_elements(&data, &idx, 1, &ref);
  expect_same(ct_path("old.npy"), &ref);
  cli_tensor_free(&ref);
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  cli_tensor_free(&bad_rank);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}

/* ------------------------------------------------------------ gather-nd */

Test(cli_family, gather_nd_matches_reference) {
  int64_t dshape[4] = {2, 3, 4, 2};
  cli_tensor data, idx, ref;
  make_tensor(&data, CLG_DTYPE_FLOAT16, 4, dshape, 31);
  save(ct_path("d.pb"), &data);
  char *err;

  /* batch_dims 0, tuples of 2: out [3, 4, 2]. */
  int64_t s1[2] = {3, 2};
  const int64_t v1[6] = {1, 2, 0, -1, -2, 0};
  make_indices(&idx, CLG_DTYPE_INT64, 2, s1, v1);
  save(ct_path("i1.npy"), &idx);
  int rc = CLI(NULL, &err, "gather-nd", ct_path("d.pb"), ct_path("i1.npy"),
               "-o", ct_path("o1.pb"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather_nd(&data, &idx, 0, &ref);
  expect_same(ct_path("o1.pb"), &ref);
  cli_tensor_free(&ref);
  cli_tensor_free(&idx);

  /* batch_dims 1, tuples of 1, int32: out [2, 5, 4, 2]. */
  int64_t s2[3] = {2, 5, 1};
  const int64_t v2[10] = {0, 2, -1, 1, -3, 2, 2, 0, -2, 1};
  make_indices(&idx, CLG_DTYPE_INT32, 3, s2, v2);
  save(ct_path("i2.npy"), &idx);
  rc = CLI(NULL, &err, "gather-nd", "--batch-dims", "1", ct_path("d.pb"),
           ct_path("i2.npy"), "-o", ct_path("o2.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather_nd(&data, &idx, 1, &ref);
  expect_same(ct_path("o2.npy"), &ref);
  cli_tensor_free(&ref);
  cli_tensor_free(&idx);

  /* batch_dims 2, full tuples of 2: out [2, 3] (scalars). */
  int64_t s3[3] = {2, 3, 2};
  const int64_t v3[12] = {0, 1, 3, -1, -4, 0, 2, 1, 1, -2, 0, 0};
  make_indices(&idx, CLG_DTYPE_INT64, 3, s3, v3);
  save(ct_path("i3.pb"), &idx);
  rc = CLI(NULL, &err, "gather-nd", "-b2", ct_path("d.pb"), ct_path("i3.pb"),
           "-o", ct_path("o3.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather_nd(&data, &idx, 2, &ref);
  expect_same(ct_path("o3.npy"), &ref);
  cli_tensor_free(&ref);
  cli_tensor_free(&idx);
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  cli_tensor_free(&data);
}

Test(cli_family, gather_nd_out_of_bounds_and_bad_shapes) {
  int64_t dshape[3] = {2, 3, 4}, ishape[2] = {3, 2};
  cli_tensor data, idx, wide;
  make_tensor(&data, CLG_DTYPE_INT32, 3, dshape, 32);
  /* tuple 1 = (1, 3): component 1 = 3 is outside [-3, 2] (axis 1, size 3) */
  const int64_t values[6] = {0, 0, 1, 3, -1, -1};
  make_indices(&idx, CLG_DTYPE_INT64, 2, ishape, values);
  int64_t wshape[2] = {1, 4}; /* 4 > rank 3 */
  const int64_t zeros[4] = {0, 0, 0, 0};
  make_indices(&wide, CLG_DTYPE_INT64, 2, wshape, zeros);
  save(ct_path("d.npy"), &data);
  save(ct_path("i.npy"), &idx);
  save(ct_path("w.npy"), &wide);

  char *err;
  int rc = CLI(NULL, &err, "gather-nd", ct_path("d.npy"), ct_path("i.npy"),
               "-o", ct_path("new.pb"));
  cr_assert_eq(rc, 1, "stderr: %s", err);
  cr_assert_eq(strncmp(err, "clgather: ", 10), 0, "%s", err);
  cr_assert(strstr(err, "3") != NULL, "value missing: %s", err);
  cr_assert(strstr(err, "[1, 1]") != NULL || strstr(err, "indices[3]"),
            "position missing: %s", err);
  cr_assert(strstr(err, "[-3, 2]") != NULL, "valid range missing: %s", err);
  free(err);
  cr_assert(!ct_exists(ct_path("new.pb")), "OUT must not be created");

  const char *keep = "keep me too";
  ct_write_file(ct_path("old.pb"), keep, strlen(keep));
  struct {
    const char *idx, *batch_dims;
  } cases[] = {
      {"i.npy", "0"}, /* out of bounds */
      {"w.npy", "0"}, /* tuple longer than data's rank */
      {"i.npy", "2"}, /* batch_dims >= indices' rank */
      {"i.npy", "1"}, /* batch dims differ: 3 vs 2 */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    rc = CLI(NULL, &err, "gather-nd", "--batch-dims", cases[c].batch_dims,
             ct_path("d.npy"), ct_path(cases[c].idx), "-o", ct_path("old.pb"));
    cr_assert_eq(rc, 1, "case %zu: rc %d, stderr: %s", c, rc, err);
    cr_assert_eq(strncmp(err, "clgather: ", 10), 0, "%s", err);
    free(err);
    expect_unchanged(ct_path("old.pb"), keep);
  }
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  cli_tensor_free(&wide);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}
