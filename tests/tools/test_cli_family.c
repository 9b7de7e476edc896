/* The gather family through the clgather binary: `gather --batch-dims
 * --mode`, `gather-elements`, `gather-nd` and `onnx-test` on GatherElements
 * and GatherND. Results are compared byte for byte with plain-C references
 * (tools/reference/reference.c for Gather, small ones written here for
 * GatherElements and GatherND), never with the library.
 * CLGATHER_CLI_PATH is the built binary. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_testutil.h"
#include "onnx_pb.h"
#include "reference/reference.h"
#include "tensor_file.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif

TestSuite(cli_family, .fini = ct_cleanup, .timeout = 120);

/* Run the CLI with the NULL-terminated argument list args. */
static int run_cli(char **out, char **err, const char *const *args) {
  char *argv[32];
  size_t n = 0;
  argv[n++] = (char *)CLGATHER_CLI_PATH;
  for (; args[n - 1] != NULL; ++n) {
    cr_assert_lt(n, 31);
    argv[n] = (char *)args[n - 1];
  }
  argv[n] = NULL;
  return ct_run(argv, out, err);
}
#define CLI(out, err, ...)                                                     \
  run_cli(out, err, (const char *[]){__VA_ARGS__, NULL})

/* ---------------------------------------------------------------- helpers */

static void make_tensor(cli_tensor *t, clg_dtype dtype, int32_t rank,
                        const int64_t *shape, unsigned seed) {
  char err[256];
  cr_assert_eq(cli_tensor_alloc(t, dtype, rank, shape, err, sizeof err), 0,
               "%s", err);
  ct_fill_pattern(t->data, t->nbytes, seed);
}

/* An int32 or int64 indices tensor holding values[0 .. count-1]. */
static void make_indices(cli_tensor *t, clg_dtype dtype, int32_t rank,
                         const int64_t *shape, const int64_t *values) {
  make_tensor(t, dtype, rank, shape, 0);
  size_t count = t->nbytes / clg_dtype_size(dtype);
  for (size_t i = 0; i < count; ++i) {
    if (dtype == CLG_DTYPE_INT64) {
      ((int64_t *)t->data)[i] = values[i];
    } else {
      ((int32_t *)t->data)[i] = (int32_t)values[i];
    }
  }
}

static int64_t index_at(const cli_tensor *t, int64_t i) {
  return t->dtype == CLG_DTYPE_INT64 ? ((const int64_t *)t->data)[i]
                                     : ((const int32_t *)t->data)[i];
}

static void save(const char *path, const cli_tensor *t) {
  char err[256];
  cr_assert_eq(cli_tensor_write(path, t, err, sizeof err), 0, "%s", err);
}

static void expect_same(const char *path, const cli_tensor *want) {
  char err[512];
  cli_tensor got;
  cr_assert_eq(cli_tensor_read(path, &got, err, sizeof err), 0, "%s", err);
  cr_assert_eq(got.dtype, want->dtype);
  cr_assert_eq(got.rank, want->rank);
  for (int32_t i = 0; i < got.rank; ++i)
    cr_assert_eq(got.shape[i], want->shape[i], "dim %d", i);
  cr_assert_eq(got.nbytes, want->nbytes);
  cr_assert_eq(memcmp(got.data, want->data, got.nbytes), 0,
               "output bytes differ from the reference");
  cli_tensor_free(&got);
}

static void expect_unchanged(const char *path, const char *contents) {
  size_t len = 0;
  unsigned char *now = ct_read_file(path, &len);
  cr_assert_not_null(now, "%s vanished", path);
  cr_assert_eq(len, strlen(contents));
  cr_assert_eq(memcmp(now, contents, len), 0, "%s was changed", path);
  free(now);
}

/* ------------------------------------------------------------- references */

/* Gather with batch_dims and a mode: tools/reference/reference.c. */
static void reference_gather(const cli_tensor *data, const cli_tensor *idx,
                             int64_t axis, int64_t batch_dims, ref_mode mode,
                             cli_tensor *out) {
  int32_t rank = 0;
  int64_t shape[REF_MAX_RANK];
  /* Shape first, to size the output. */
  cr_assert_eq(ref_gather_ex_shape(data->rank, data->shape, idx->rank,
                                   idx->shape, axis, batch_dims, &rank, shape),
               0, "reference: bad shapes");
  char err[256];
  cr_assert_eq(cli_tensor_alloc(out, data->dtype, rank, shape, err, sizeof err),
               0, "%s", err);
  cr_assert_eq(ref_gather_ex(data->data, clg_dtype_size(data->dtype),
                             data->rank, data->shape, idx->data,
                             idx->dtype == CLG_DTYPE_INT64 ? REF_INDEX_I64
                                                           : REF_INDEX_I32,
                             idx->rank, idx->shape, axis, batch_dims, mode,
                             out->data, &rank, shape),
               0, "reference gather failed");
}

/* ONNX GatherElements, from its definition:
 *   out[p] = data[p with p[axis] replaced by indices[p]]. */
static void reference_gather_elements(const cli_tensor *data,
                                      const cli_tensor *idx, int64_t axis,
                                      cli_tensor *out) {
  int32_t r = data->rank;
  int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
  cr_assert_eq(idx->rank, r);
  char err[256];
  cr_assert_eq(cli_tensor_alloc(out, data->dtype, idx->rank, idx->shape, err,
                                sizeof err),
               0, "%s", err);
  size_t es = clg_dtype_size(data->dtype);
  int64_t total = 1;
  for (int32_t d = 0; d < r; ++d)
    total *= idx->shape[d];
  int64_t p[CLG_MAX_RANK] = {0};
  for (int64_t n = 0; n < total; ++n) {
    int64_t k = index_at(idx, n);
    if (k < 0)
      k += data->shape[a];
    cr_assert(k >= 0 && k < data->shape[a], "reference: index out of range");
    int64_t src = 0;
    for (int32_t d = 0; d < r; ++d)
      src = src * data->shape[d] + (d == a ? k : p[d]);
    memcpy((unsigned char *)out->data + (size_t)n * es,
           (const unsigned char *)data->data + (size_t)src * es, es);
    for (int32_t d = r - 1; d >= 0; --d) {
      if (++p[d] < idx->shape[d])
        break;
      p[d] = 0;
    }
  }
}

/* ONNX GatherND with batch_dims b, from its definition: m = last dimension
 * of indices; for each index tuple t (over indices.shape[:q-1]), whose first
 * b coordinates are the batch,
 *   out[t] = data[t[0..b), indices[t][0..m), :]. */
static void reference_gather_nd(const cli_tensor *data, const cli_tensor *idx,
                                int32_t b, cli_tensor *out) {
  int32_t r = data->rank, q = idx->rank;
  int64_t m = idx->shape[q - 1];
  cr_assert(m >= 1 && b + m <= r);
  int64_t shape[CLG_MAX_RANK];
  int32_t rank = 0;
  for (int32_t i = 0; i < q - 1; ++i)
    shape[rank++] = idx->shape[i];
  for (int32_t i = b + (int32_t)m; i < r; ++i)
    shape[rank++] = data->shape[i];
  char err[256];
  cr_assert_eq(cli_tensor_alloc(out, data->dtype, rank, shape, err, sizeof err),
               0, "%s", err);
  size_t es = clg_dtype_size(data->dtype);
  int64_t slice = 1, tuples = 1;
  for (int32_t i = b + (int32_t)m; i < r; ++i)
    slice *= data->shape[i];
  for (int32_t i = 0; i < q - 1; ++i)
    tuples *= idx->shape[i];
  int64_t t[CLG_MAX_RANK] = {0};
  for (int64_t n = 0; n < tuples; ++n) {
    int64_t src = 0;
    for (int32_t d = 0; d < b + m; ++d) {
      int64_t c;
      if (d < b) {
        c = t[d];
      } else {
        c = index_at(idx, n * m + (d - b));
        if (c < 0)
          c += data->shape[d];
        cr_assert(c >= 0 && c < data->shape[d], "reference: out of range");
      }
      src = src * data->shape[d] + c;
    }
    memcpy((unsigned char *)out->data + (size_t)(n * slice) * es,
           (const unsigned char *)data->data + (size_t)(src * slice) * es,
           (size_t)slice * es);
    for (int32_t d = q - 2; d >= 0; --d) {
      if (++t[d] < idx->shape[d])
        break;
      t[d] = 0;
    }
  }
}

/* ------------------------------------------------- gather: --batch-dims */

Test(cli_family, gather_batch_dims_and_modes_match_reference) {
  int64_t dshape[4] = {2, 3, 5, 2}, ishape[2] = {2, 4};
  cli_tensor data, in_range, wild, ref;
  make_tensor(&data, CLG_DTYPE_COMPLEX64, 4, dshape, 11);
  const int64_t ok_values[8] = {0, 4, -1, -5, 2, 3, 1, -2};
  const int64_t wild_values[8] = {0, 7, -6, 12, -1, 5, -13, 4};
  make_indices(&in_range, CLG_DTYPE_INT32, 2, ishape, ok_values);
  make_indices(&wild, CLG_DTYPE_INT64, 2, ishape, wild_values);
  save(ct_path("d.npy"), &data);
  save(ct_path("ok.npy"), &in_range);
  save(ct_path("wild.pb"), &wild);

  /* raise (default and explicit), batch_dims 1 and -1 (= 1), axis 2. */
  char *err;
  int rc = CLI(NULL, &err, "gather", "--batch-dims", "1", "--axis", "2",
               ct_path("d.npy"), ct_path("ok.npy"), "-o", ct_path("o1.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &in_range, 2, 1, REF_RAISE, &ref);
  expect_same(ct_path("o1.npy"), &ref);
  rc = CLI(NULL, &err, "gather", "-b-1", "-a", "-2", "--mode=raise",
           ct_path("d.npy"), ct_path("ok.npy"), "-o", ct_path("o2.pb"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  expect_same(ct_path("o2.pb"), &ref);
  cli_tensor_free(&ref);

  /* wrap and clip accept any index. */
  rc = CLI(NULL, &err, "gather", "--mode", "wrap", "--batch-dims=1", "-a2",
           ct_path("d.npy"), ct_path("wild.pb"), "-o", ct_path("w.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &wild, 2, 1, REF_WRAP, &ref);
  expect_same(ct_path("w.npy"), &ref);
  cli_tensor_free(&ref);
  rc = CLI(NULL, &err, "gather", "-m", "clip", "-b", "1", "--axis", "2",
           ct_path("d.npy"), ct_path("wild.pb"), "-o", ct_path("c.pb"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &wild, 2, 1, REF_CLIP, &ref);
  expect_same(ct_path("c.pb"), &ref);
  cli_tensor_free(&ref);

  /* batch_dims 0 (the default) with a mode, axis 0. */
  rc = CLI(NULL, &err, "gather", "--mode", "wrap", ct_path("d.npy"),
           ct_path("wild.pb"), "-o", ct_path("w0.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &wild, 0, 0, REF_WRAP, &ref);
  expect_same(ct_path("w0.npy"), &ref);
  cli_tensor_free(&ref);
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);

  cli_tensor_free(&wild);
  cli_tensor_free(&in_range);
  cli_tensor_free(&data);
}

Test(cli_family, gather_raise_out_of_bounds_with_batch_dims) {
  int64_t dshape[3] = {2, 4, 3}, ishape[2] = {2, 3};
  cli_tensor data, idx;
  make_tensor(&data, CLG_DTYPE_INT8, 3, dshape, 12);
  const int64_t values[6] = {0, 1, 2, 3, -4, 9}; /* indices[5] = 9 at [1, 2] */
  make_indices(&idx, CLG_DTYPE_INT64, 2, ishape, values);
  save(ct_path("d.npy"), &data);
  save(ct_path("i.npy"), &idx);

  char *err;
  int rc = CLI(NULL, &err, "gather", "--batch-dims", "1", "--axis", "1",
               ct_path("d.npy"), ct_path("i.npy"), "-o", ct_path("new.npy"));
  cr_assert_eq(rc, 1, "stderr: %s", err);
  cr_assert_eq(strncmp(err, "clgather: ", 10), 0, "%s", err);
  cr_assert(strstr(err, "9") != NULL, "value missing: %s", err);
  cr_assert(strstr(err, "[1, 2]") != NULL || strstr(err, "indices[5]"),
            "position missing: %s", err);
  cr_assert(strstr(err, "[-4, 3]") != NULL, "valid range missing: %s", err);
  free(err);
  cr_assert(!ct_exists(ct_path("new.npy")), "OUT must not be created");

  /* The same indices wrap and clip fine; raise keeps an existing OUT. */
  const char *keep = "old output";
  ct_write_file(ct_path("old.pb"), keep, strlen(keep));
  rc = CLI(NULL, &err, "gather", "-b", "1", "-a", "1", "--mode", "raise",
           ct_path("d.npy"), ct_path("i.npy"), "-o", ct_path("old.pb"));
  cr_assert_eq(rc, 1, "stderr: %s", err);
  free(err);
  expect_unchanged(ct_path("old.pb"), keep);
  rc = CLI(NULL, &err, "gather", "-b", "1", "-a", "1", "--mode", "clip",
           ct_path("d.npy"), ct_path("i.npy"), "-o", ct_path("clip.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}

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

/* ------------------------------------------------------------ usage: 2 */

Test(cli_family, usage_errors_exit_2_and_write_nothing) {
  int64_t dshape[2] = {3, 2}, ishape[2] = {2, 1};
  cli_tensor data, idx;
  make_tensor(&data, CLG_DTYPE_FLOAT, 2, dshape, 41);
  const int64_t values[2] = {0, 1};
  make_indices(&idx, CLG_DTYPE_INT64, 2, ishape, values);
  save(ct_path("d.npy"), &data);
  save(ct_path("i.npy"), &idx);
  const char *d = ct_path("d.npy"), *i = ct_path("i.npy");
  const char *o = ct_path("o.npy");
  char dbuf[1024], ibuf[1024], obuf[1024];
  snprintf(dbuf, sizeof dbuf, "%s", d);
  snprintf(ibuf, sizeof ibuf, "%s", i);
  snprintf(obuf, sizeof obuf, "%s", o);
  d = dbuf;
  i = ibuf;
  o = obuf;

  struct {
    const char *args[9];
    const char *needle;
  } cases[] = {
      {{"gather", "--mode", "zero", d, i, "-o", o}, "invalid --mode value"},
      {{"gather", "--mode=Raise", d, i, "-o", o}, "invalid --mode value"},
      {{"gather", "-m", "", d, i, "-o", o}, "invalid --mode value"},
      {{"gather", d, i, "-o", o, "--mode"}, "needs a value"},
      {{"gather", "--batch-dims", "one", d, i, "-o", o},
       "invalid --batch-dims value 'one'"},
      {{"gather", "--batch-dims=1.5", d, i, "-o", o},
       "invalid --batch-dims value '1.5'"},
      {{"gather", "-b", "", d, i, "-o", o}, "invalid --batch-dims value"},
      {{"gather", d, i, "-o", o, "--batch-dims"}, "needs a value"},
      {{"gather-elements", "--axis", "x", d, i, "-o", o},
       "invalid --axis value"},
      {{"gather-elements", "--mode", "wrap", d, i, "-o", o},
       "unknown option '--mode'"},
      {{"gather-elements", "--batch-dims", "0", d, i, "-o", o},
       "unknown option '--batch-dims'"},
      {{"gather-elements", d, "-o", o}, "an INDICES file"},
      {{"gather-elements", d, i}, "-o OUT"},
      {{"gather-elements", d, i, d, "-o", o}, "unexpected argument"},
      {{"gather-nd", "--batch-dims", "0x1", d, i, "-o", o},
       "invalid --batch-dims value"},
      {{"gather-nd", "--axis", "0", d, i, "-o", o}, "unknown option '--axis'"},
      {{"gather-nd", "--mode", "clip", d, i, "-o", o},
       "unknown option '--mode'"},
      {{"gather-nd", "-o", o}, "DATA and INDICES"},
      {{"gather-nd", d, i, "-o"}, "needs a value"},
      {{"gather-nd", "--bogus", d, i, "-o", o}, "unknown option '--bogus'"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    char *err;
    int rc = run_cli(NULL, &err, cases[c].args);
    cr_assert_eq(rc, 2, "case %zu: rc %d, stderr: %s", c, rc, err);
    cr_assert(strstr(err, cases[c].needle) != NULL, "case %zu: %s", c, err);
    cr_assert(strstr(err, "usage:") != NULL, "case %zu: %s", c, err);
    free(err);
    cr_assert(!ct_exists(o), "case %zu wrote OUT", c);
  }

  /* Help names the new commands and options. */
  char *out;
  cr_assert_eq(CLI(&out, NULL, "help"), 0);
  cr_assert(strstr(out, "gather-elements [--axis A]") != NULL, "%s", out);
  cr_assert(strstr(out, "gather-nd [--batch-dims B]") != NULL, "%s", out);
  cr_assert(strstr(out, "--mode M") != NULL, "%s", out);
  free(out);
  cr_assert_eq(CLI(&out, NULL, "gather-nd", "--help"), 0);
  free(out);
  cr_assert_eq(CLI(&out, NULL, "gather-elements", "-h"), 0);
  free(out);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}

/* ------------------------------------------------------------ onnx-test */

/* A single-node model.onnx with op_type and one optional INT attribute. */
static void write_model(const char *path, const char *op_type,
                        const char *attr_name, int64_t value) {
  Onnx__AttributeProto attr = ONNX__ATTRIBUTE_PROTO__INIT;
  attr.name = (char *)attr_name;
  attr.has_type = 1;
  attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  attr.has_i = 1;
  attr.i = value;
  Onnx__AttributeProto *attrs[1] = {&attr};
  Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
  node.op_type = (char *)op_type;
  node.n_attribute = attr_name != NULL ? 1 : 0;
  node.attribute = attrs;
  Onnx__NodeProto *nodes[1] = {&node};
  Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
  graph.n_node = 1;
  graph.node = nodes;
  Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
  model.graph = &graph;
  size_t n = onnx__model_proto__get_packed_size(&model);
  unsigned char *buf = malloc(n);
  cr_assert_not_null(buf);
  onnx__model_proto__pack(&model, buf);
  ct_write_file(path, buf, n);
  free(buf);
}

/* Make folder `name` (model + test_data_set_0) in the scratch folder. */
static const char *make_case(const char *name, const char *op_type,
                             const char *attr_name, int64_t value,
                             const cli_tensor *data, const cli_tensor *idx,
                             const cli_tensor *want) {
  static char dir[1024];
  char p[1200];
  snprintf(dir, sizeof dir, "%s", ct_path(name));
  cr_assert_eq(mkdir(dir, 0777), 0);
  snprintf(p, sizeof p, "%s/test_data_set_0", dir);
  cr_assert_eq(mkdir(p, 0777), 0);
  snprintf(p, sizeof p, "%s/model.onnx", dir);
  write_model(p, op_type, attr_name, value);
  snprintf(p, sizeof p, "%s/test_data_set_0/input_0.pb", dir);
  save(p, data);
  snprintf(p, sizeof p, "%s/test_data_set_0/input_1.pb", dir);
  save(p, idx);
  snprintf(p, sizeof p, "%s/test_data_set_0/output_0.pb", dir);
  save(p, want);
  return dir;
}

static void remove_case(const char *dir) {
  static const char *const files[] = {"test_data_set_0/input_0.pb",
                                      "test_data_set_0/input_1.pb",
                                      "test_data_set_0/output_0.pb",
                                      "test_data_set_0",
                                      "model.onnx",
                                      ""};
  char p[1200];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
    snprintf(p, sizeof p, "%s/%s", dir, files[i]);
    remove(p);
  }
}

Test(cli_family, onnx_test_runs_gather_elements_and_gather_nd) {
  int64_t dshape[3] = {2, 3, 4};
  cli_tensor data, ge_idx, nd_idx, ge_ref, nd_ref;
  make_tensor(&data, CLG_DTYPE_INT16, 3, dshape, 51);
  int64_t ge_shape[3] = {2, 3, 2};
  const int64_t ge_values[12] = {0, 1, -1, 2, 3, -4, 1, 1, 0, 2, -2, 3};
  make_indices(&ge_idx, CLG_DTYPE_INT64, 3, ge_shape, ge_values);
  reference_gather_elements(&data, &ge_idx, -1, &ge_ref);
  int64_t nd_shape[3] = {2, 2, 1};
  const int64_t nd_values[4] = {2, -3, 0, 1};
  make_indices(&nd_idx, CLG_DTYPE_INT64, 3, nd_shape, nd_values);
  reference_gather_nd(&data, &nd_idx, 1, &nd_ref);

  char ge_dir[1024], nd_dir[1024];
  snprintf(ge_dir, sizeof ge_dir, "%s",
           make_case("test_gather_elements_made", "GatherElements", "axis", -1,
                     &data, &ge_idx, &ge_ref));
  snprintf(nd_dir, sizeof nd_dir, "%s",
           make_case("test_gathernd_made", "GatherND", "batch_dims", 1, &data,
                     &nd_idx, &nd_ref));

  char *out, *err;
  int rc = CLI(&out, &err, "onnx-test", ge_dir, nd_dir);
  cr_assert_eq(rc, 0, "stdout: %s stderr: %s", out, err);
  cr_assert_str_eq(out, "PASS test_gather_elements_made\n"
                        "PASS test_gathernd_made\n"
                        "2 passed, 0 failed, 0 skipped\n");
  free(out);
  free(err);

  /* The attributes are read: without them (axis 0, batch_dims 0) the
   * expected outputs are wrong, which is a FAIL, not a SKIP. */
  char p[1200];
  snprintf(p, sizeof p, "%s/model.onnx", ge_dir);
  write_model(p, "GatherElements", NULL, 0);
  snprintf(p, sizeof p, "%s/model.onnx", nd_dir);
  write_model(p, "GatherND", NULL, 0);
  rc = CLI(&out, &err, "onnx-test", "--device", "0:0", ge_dir, nd_dir);
  cr_assert_eq(rc, 1, "stdout: %s stderr: %s", out, err);
  cr_assert(strstr(out, "FAIL test_gather_elements_made: ") != NULL, "%s", out);
  cr_assert(strstr(out, "FAIL test_gathernd_made: ") != NULL, "%s", out);
  cr_assert(strstr(out, "\n0 passed, 2 failed, 0 skipped\n") != NULL, "%s",
            out);
  free(out);
  free(err);

  remove_case(nd_dir);
  remove_case(ge_dir);
  cli_tensor_free(&nd_ref);
  cli_tensor_free(&ge_ref);
  cli_tensor_free(&nd_idx);
  cli_tensor_free(&ge_idx);
  cli_tensor_free(&data);
}
