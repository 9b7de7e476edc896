/* ScatterND: ONNX ScatterND (opsets 11, 13, 16, 18; reduction from 16,
 * min/max from 18), tf.tensor_scatter_nd_update / _add / _min / _max.
 * Shape rules, per-component bounds, targets; what the scatters share is
 * scatter.c. */
#include "ops/scatter.h"

#include <inttypes.h>
#include <stdio.h>

static clg_status snd_shape(const clg_params *params, int32_t r,
                            const int64_t *ds, int32_t q, const int64_t *qs,
                            clg_params *norm, int32_t *out_rank,
                            int64_t *out_shape) {
  (void)params;
  if (q < 1)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "indices has rank %d; ScatterND needs indices of rank "
                     ">= 1 (its last dimension holds the index tuples)",
                     (int)q);
  int64_t k = qs[q - 1];
  if (k < 1 || k > r) {
    char ishape[512];
    clg__format_shape(ishape, sizeof ishape, q, qs);
    return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                     "ScatterND: the last dimension of indices (shape %s), "
                     "the index tuple length, is %" PRId64 "; with data of "
                     "rank %d it must be in [1, %d]",
                     ishape, k, (int)r, (int)r);
  }
  for (int32_t d = 0; d < r; ++d)
    out_shape[d] = ds[d];
  *out_rank = r;
  norm->axis = 0;
  norm->batch_dims = 0;
  return CLG_SUCCESS;
}

/* updates.shape == indices.shape[:q-1] + data.shape[k:]. */
static clg_status snd_check_updates(const clg_params *norm,
                                    const clg_tensor *data,
                                    const clg_tensor *indices,
                                    const clg_tensor *updates) {
  (void)norm;
  int32_t q = indices->rank, r = data->rank;
  int32_t k = (int32_t)indices->shape[q - 1];
  int64_t want[2 * CLG_MAX_RANK];
  int32_t n = 0;
  for (int32_t i = 0; i < q - 1; ++i)
    want[n++] = indices->shape[i];
  for (int32_t i = k; i < r; ++i)
    want[n++] = data->shape[i];
  bool same = updates->rank == n;
  for (int32_t i = 0; same && i < n; ++i)
    same = updates->shape[i] == want[i];
  if (same)
    return CLG_SUCCESS;
  char us[512], ws[512];
  clg__format_shape(us, sizeof us, updates->rank, updates->shape);
  clg__format_shape(ws, sizeof ws, n > CLG_MAX_RANK ? CLG_MAX_RANK : n, want);
  return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                   "ScatterND: updates has shape %s but indices.shape[:-1] + "
                   "data.shape[%d:] is %s%s",
                   us, (int)k, ws,
                   n > CLG_MAX_RANK ? " (and more: above the rank limit)" : "");
}

/* Component j of every tuple is bounded by data.shape[j]. */
static size_t snd_bounds(const clg_params *norm, const clg_tensor *data,
                         const clg_tensor *indices, int64_t *s) {
  (void)norm;
  size_t k = (size_t)indices->shape[indices->rank - 1];
  for (size_t j = 0; j < k; ++j)
    s[j] = data->shape[j];
  return k;
}

static clg_status snd_report(const clg_params *norm, const clg_tensor *data,
                             const clg_tensor *indices, size_t pos,
                             int64_t value) {
  (void)norm;
  size_t k = (size_t)indices->shape[indices->rank - 1];
  size_t j = pos % k;
  int64_t d = data->shape[j];
  char at[512], shape[512];
  clg__format_position(at, sizeof at, pos, indices->rank, indices->shape);
  clg__format_shape(shape, sizeof shape, indices->rank, indices->shape);
  if (d == 0)
    return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                     "index out of bounds: indices[%zu] (position %s in "
                     "indices of shape %s) = %" PRId64 ", component %zu of "
                     "the index tuple indexes axis %zu of data, of size 0: "
                     "no index is valid",
                     pos, at, shape, value, j, j);
  return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                   "index out of bounds: indices[%zu] (position %s in indices "
                   "of shape %s) = %" PRId64 ", component %zu of the index "
                   "tuple indexes axis %zu of data, of size %" PRId64 ": valid "
                   "range is [%" PRId64 ", %" PRId64 "]",
                   pos, at, shape, value, j, j, d, -d, d - 1);
}

static void snd_geometry(const clg_params *norm, const clg_tensor *data,
                         const clg_tensor *indices, size_t *entries,
                         uint64_t *inner, uint64_t *targets) {
  (void)norm;
  int32_t q = indices->rank, k = (int32_t)indices->shape[q - 1];
  uint64_t n = 1, t = 1, in = 1;
  for (int32_t i = 0; i < q - 1; ++i)
    n *= (uint64_t)indices->shape[i];
  for (int32_t i = 0; i < k; ++i)
    t *= (uint64_t)data->shape[i];
  for (int32_t i = k; i < data->rank; ++i)
    in *= (uint64_t)data->shape[i];
  *entries = (size_t)n;
  *inner = in;
  *targets = t;
}

/* Tuple e writes the slice data[indices[e]]: its index over data.shape[:k]. */
static void snd_targets(const clg_params *norm, const clg_tensor *data,
                        const clg_tensor *indices, const void *values,
                        size_t index_size, int64_t *t) {
  (void)norm;
  int32_t q = indices->rank, k = (int32_t)indices->shape[q - 1];
  size_t n = 1;
  for (int32_t i = 0; i < q - 1; ++i)
    n *= (size_t)indices->shape[i];
  for (size_t e = 0; e < n; ++e) {
    int64_t flat = 0;
    for (int32_t j = 0; j < k; ++j) {
      int64_t v = clg__scatter_index(values, index_size, e * (size_t)k + (size_t)j);
      if (v < 0)
        v += data->shape[j];
      flat = flat * data->shape[j] + v;
    }
    t[e] = flat;
  }
}

static clg_status snd_report_duplicate(const clg_params *norm,
                                       const clg_tensor *data,
                                       const clg_tensor *indices, size_t first,
                                       size_t later, int64_t target) {
  (void)norm;
  int32_t q = indices->rank, k = (int32_t)indices->shape[q - 1];
  char p1[256], p2[256], at[256], shape[256];
  clg__format_position(p1, sizeof p1, first, q - 1, indices->shape);
  clg__format_position(p2, sizeof p2, later, q - 1, indices->shape);
  clg__format_position(at, sizeof at, (size_t)target, k, data->shape);
  clg__format_shape(shape, sizeof shape, q, indices->shape);
  return clg__fail(CLG_ERROR_DUPLICATE_INDEX,
                   "duplicate index: index tuples %zu (position %s) and %zu "
                   "(position %s) of indices of shape %s both write the "
                   "slice data%s; with reduction none ONNX requires distinct "
                   "targets (duplicates = last lets the later one win)",
                   first, p1, later, p2, shape, at);
}

/* snd_targets for the device: the tuple's components, data's first m
 * dimensions as the radix. */
static void snd_keys(const clg_params *norm, const clg_tensor *data,
                     const clg_tensor *indices, clg_scatter_keys *k) {
  (void)norm;
  k->elements = false;
  k->rank = (uint32_t)indices->shape[indices->rank - 1];
  for (uint32_t j = 0; j < k->rank; ++j) {
    k->dims[j] = (uint64_t)data->shape[j];
    k->strides[j] = 0;
  }
  k->axis = 0;
  k->abound = 0;
}

static const clg_scatter_kind snd_kind = {snd_geometry, snd_targets,
                                          snd_report_duplicate, snd_keys};

static clg_status snd_device_schedule(clg_context *ctx, const clg_params *norm,
                                      const clg_scatter_params *sc,
                                      const clg_tensor *data,
                                      const clg_tensor *indices, void **state) {
  return clg__scatter_device_schedule(ctx, &snd_kind, norm, sc, data, indices,
                                      state);
}

static clg_status snd_index_schedule(clg_context *ctx, const clg_params *norm,
                                     const clg_scatter_params *sc,
                                     const clg_tensor *data,
                                     const clg_tensor *indices,
                                     const void *values, size_t count,
                                     void **state) {
  (void)ctx;
  return clg__scatter_schedule(&snd_kind, norm, sc, data, indices, values,
                               count, state);
}

static void snd_slices(const clg_params *norm, const clg_tensor *data,
                       const clg_tensor *indices, const void *values,
                       size_t index_size, size_t *entries, uint64_t *inner,
                       int64_t *pos) {
  clg__scatter_slices(&snd_kind, norm, data, indices, values, index_size,
                      entries, inner, pos);
}

static bool snd_supported(int32_t data_rank, int32_t indices_rank) {
  (void)data_rank;
  return indices_rank >= 1;
}

static void snd_describe(const clg_params *norm, char *buf, size_t cap) {
  (void)norm;
  snprintf(buf, cap, "ScatterND");
}

static bool snd_split(const clg_params *norm, const clg_tensor *indices,
                      bool *data_rows, bool *index_rows) {
  (void)norm;
  (void)indices;
  *data_rows = *index_rows = false;
  return false; /* one device: targets may fall anywhere */
}

const clg_op_impl clg__op_scatter_nd = {
    .check_params = NULL,
    .supported = snd_supported,
    .shape = snd_shape,
    .check_mode = NULL,
    .bounds = snd_bounds,
    .report = snd_report,
    .prepare = clg__scatter_prepare,
    .describe = snd_describe,
    .split = snd_split,
    .num_inputs = 3,
    .check_updates = snd_check_updates,
    .index_schedule = snd_index_schedule,
    .release_state = clg__scatter_release,
    .state_done = clg__scatter_done,
    .device_schedule = snd_device_schedule,
    .report_duplicate = snd_report_duplicate,
    .slices = snd_slices,
    .output_may_alias = clg__scatter_may_alias,
};
