/* What the Tests of test_cli_family share: see cli_family_fx.h. */
#define _POSIX_C_SOURCE 200809L

#include "cli_family_fx.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cli_testutil.h"
#include "tensor_file.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif

/* Run the CLI with the NULL-terminated argument list args. */
int run_cli(char **out, char **err, const char *const *args) {
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

/* ---------------------------------------------------------------- helpers */

void make_tensor(cli_tensor *t, clg_dtype dtype, int32_t rank,
                 const int64_t *shape, unsigned seed) {
  char err[256];
  cr_assert_eq(cli_tensor_alloc(t, dtype, rank, shape, err, sizeof err), 0,
               "%s", err);
  ct_fill_pattern(t->data, t->nbytes, seed);
}

/* An int32 or int64 indices tensor holding values[0 .. count-1]. */
void make_indices(cli_tensor *t, clg_dtype dtype, int32_t rank,
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

void save(const char *path, const cli_tensor *t) {
  char err[256];
  cr_assert_eq(cli_tensor_write(path, t, err, sizeof err), 0, "%s", err);
}

void expect_same(const char *path, const cli_tensor *want) {
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

void expect_unchanged(const char *path, const char *contents) {
  size_t len = 0;
  unsigned char *now = ct_read_file(path, &len);
  cr_assert_not_null(now, "%s vanished", path);
  cr_assert_eq(len, strlen(contents));
  cr_assert_eq(memcmp(now, contents, len), 0, "%s was changed", path);
  free(now);
}

/* ------------------------------------------------------------- references */

/* ONNX GatherElements, from its definition:
 *   out[p] = data[p with p[axis] replaced by indices[p]]. */
void reference_gather_elements(const cli_tensor *data, const cli_tensor *idx,
                               int64_t axis, cli_tensor *out) {
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
void reference_gather_nd(const cli_tensor *data, const cli_tensor *idx,
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
