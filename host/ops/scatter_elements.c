/* ScatterElements: ONNX ScatterElements (opsets 11, 13, 16, 18; reduction
 * from 16, min/max from 18), numpy's put_along_axis, PyTorch's scatter_ /
 * scatter_reduce_; and the deprecated ONNX Scatter (opsets 9, 10), the same
 * without reduction. Shape rules, bounds, targets; what the scatters share
 * is scatter.c. */
#include "ops/scatter.h"

#include <inttypes.h>
#include <stdio.h>

/* The operator the caller named: ScatterElements, or the deprecated ONNX
 * Scatter that shares this file's code. */
static const char *se_name(const clg_params *p) {
  return p->op == CLG_OP_SCATTER ? "Scatter" : "ScatterElements";
}

static clg_status se_shape(const clg_params *params, int32_t r,
                           const int64_t *ds, int32_t q, const int64_t *qs,
                           clg_params *norm, int32_t *out_rank,
                           int64_t *out_shape) {
  if (q != r) {
    char dshape[512], ishape[512];
    clg__format_shape(dshape, sizeof dshape, r, ds);
    clg__format_shape(ishape, sizeof ishape, q, qs);
    return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                     "%s needs indices of data's rank: data has rank %d "
                     "(shape %s) but indices has rank %d (shape %s)",
                     se_name(params), (int)r, dshape, (int)q, ishape);
  }
  int32_t a = 0;
  clg_status st = clg__normalize_axis(params->axis, r, "axis", &a);
  if (st != CLG_SUCCESS)
    return st;
  for (int32_t d = 0; d < r; ++d)
    if (d != a && qs[d] > ds[d])
      return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                       "%s on axis %d: indices dimension %d is %" PRId64
                       " but data's is %" PRId64 "; off the axis, indices "
                       "must not exceed data",
                       se_name(params), (int)a, (int)d, qs[d], ds[d]);
  for (int32_t d = 0; d < r; ++d)
    out_shape[d] = ds[d];
  *out_rank = r;
  norm->axis = a;
  return CLG_SUCCESS;
}

/* updates has indices' shape. */
static clg_status se_check_updates(const clg_params *norm,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   const clg_tensor *updates) {
  (void)data;
  bool same = updates->rank == indices->rank;
  for (int32_t d = 0; same && d < indices->rank; ++d)
    same = updates->shape[d] == indices->shape[d];
  if (same)
    return CLG_SUCCESS;
  char us[512], is[512];
  clg__format_shape(us, sizeof us, updates->rank, updates->shape);
  clg__format_shape(is, sizeof is, indices->rank, indices->shape);
  return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                   "%s: updates has shape %s but indices has %s; they must "
                   "be equal",
                   se_name(norm), us, is);
}

/* Every index is bounded by data.shape[axis]. */
static size_t se_bounds(const clg_params *norm, const clg_tensor *data,
                        const clg_tensor *indices, int64_t *s) {
  (void)indices;
  s[0] = data->shape[norm->axis];
  return 1;
}

static clg_status se_report(const clg_params *norm, const clg_tensor *data,
                            const clg_tensor *indices, size_t pos,
                            int64_t value) {
  int32_t a = (int32_t)norm->axis;
  return clg__report_index_oob(pos, value, indices->rank, indices->shape,
                               data->shape[a], a);
}

static void se_geometry(const clg_params *norm, const clg_tensor *data,
                        const clg_tensor *indices, size_t *entries,
                        uint64_t *inner, uint64_t *targets) {
  (void)norm;
  uint64_t n = 1, t = 1;
  for (int32_t d = 0; d < indices->rank; ++d) {
    n *= (uint64_t)indices->shape[d];
    t *= (uint64_t)data->shape[d];
  }
  *entries = (size_t)n;
  *inner = 1;
  *targets = t;
}

static clg_status se_report_duplicate(const clg_params *norm,
                                      const clg_tensor *data,
                                      const clg_tensor *indices, size_t first,
                                      size_t later, int64_t target) {
  char p1[256], p2[256], at[256], shape[256], dshape[256];
  clg__format_position(p1, sizeof p1, first, indices->rank, indices->shape);
  clg__format_position(p2, sizeof p2, later, indices->rank, indices->shape);
  clg__format_position(at, sizeof at, (size_t)target, data->rank,
                       data->shape);
  clg__format_shape(shape, sizeof shape, indices->rank, indices->shape);
  clg__format_shape(dshape, sizeof dshape, data->rank, data->shape);
  return clg__fail(CLG_ERROR_DUPLICATE_INDEX,
                   "duplicate index: indices[%zu] (position %s) and "
                   "indices[%zu] (position %s) of indices of shape %s both "
                   "write output element %s (data of shape %s, axis %" PRId64
                   "); with reduction none ONNX requires distinct targets "
                   "(duplicates = last lets the later one win)",
                   first, p1, later, p2, shape, at, dshape, norm->axis);
}

/* The same targets for the device: indices' dimensions with data's strides,
 * adjacent ones merged where indices spans data's whole dimension (and the
 * axis kept apart), dimensions of 1 dropped. */
static void se_keys(const clg_params *norm, const clg_tensor *data,
                    const clg_tensor *indices, clg_scatter_keys *k) {
  int32_t r = indices->rank, a = (int32_t)norm->axis;
  uint64_t stride[CLG_MAX_RANK], acc = 1;
  for (int32_t d = r - 1; d >= 0; --d) {
    stride[d] = acc;
    acc *= (uint64_t)data->shape[d];
  }
  k->elements = true;
  k->rank = 0;
  k->abound = (uint64_t)data->shape[a];
  bool apart = true; /* nothing to merge into (yet, or across the axis or
                     * a dimension left out) */
  for (int32_t d = 0; d < r; ++d) {
    uint64_t n = (uint64_t)indices->shape[d];
    if (d == a) {
      k->axis = k->rank;
      k->dims[k->rank] = n;
      k->strides[k->rank++] = stride[d];
      apart = true;
    } else if (n == 1) {
      apart = apart || data->shape[d] != 1;
    } else if (!apart && indices->shape[d] == data->shape[d]) {
      k->dims[k->rank - 1] *= n;
      k->strides[k->rank - 1] = stride[d];
    } else {
      k->dims[k->rank] = n;
      k->strides[k->rank++] = stride[d];
      apart = false;
    }
  }
}

static const clg_scatter_kind se_kind = {se_geometry, clg__elements_positions,
                                         se_report_duplicate, se_keys};

static clg_status se_device_schedule(clg_context *ctx, const clg_params *norm,
                                     const clg_scatter_params *sc,
                                     const clg_tensor *data,
                                     const clg_tensor *indices, void **state) {
  return clg__scatter_device_schedule(ctx, &se_kind, norm, sc, data, indices,
                                      state);
}

static clg_status se_index_schedule(clg_context *ctx, const clg_params *norm,
                                    const clg_scatter_params *sc,
                                    const clg_tensor *data,
                                    const clg_tensor *indices,
                                    const void *values, size_t count,
                                    void **state) {
  (void)ctx;
  return clg__scatter_schedule(&se_kind, norm, sc, data, indices, values, count,
                               state);
}

static void se_slices(const clg_params *norm, const clg_tensor *data,
                      const clg_tensor *indices, const void *values,
                      size_t index_size, size_t *entries, uint64_t *inner,
                      int64_t *pos) {
  clg__scatter_slices(&se_kind, norm, data, indices, values, index_size,
                      entries, inner, pos);
}

static bool se_supported(int32_t data_rank, int32_t indices_rank) {
  return indices_rank == data_rank;
}

static void se_describe(const clg_params *norm, char *buf, size_t cap) {
  snprintf(buf, cap, "%s on axis %" PRId64, se_name(norm), norm->axis);
}

static bool se_split(const clg_params *norm, const clg_tensor *indices,
                     bool *data_rows, bool *index_rows) {
  (void)norm;
  (void)indices;
  *data_rows = *index_rows = false;
  return false; /* one device: targets may fall anywhere */
}

const clg_op_impl clg__op_scatter_elements = {
    .check_params = NULL,
    .supported = se_supported,
    .shape = se_shape,
    .check_mode = NULL,
    .bounds = se_bounds,
    .report = se_report,
    .prepare = clg__scatter_prepare,
    .describe = se_describe,
    .split = se_split,
    .num_inputs = 3,
    .check_updates = se_check_updates,
    .index_schedule = se_index_schedule,
    .release_state = clg__scatter_release,
    .state_done = clg__scatter_done,
    .device_schedule = se_device_schedule,
    .checks_values = clg__scatter_checks_values,
    .report_duplicate = se_report_duplicate,
    .slices = se_slices,
    .output_may_alias = clg__scatter_may_alias,
};

/* ONNX Scatter (opsets 9, 10): ScatterElements without reduction. */
static clg_status scatter9_check_scatter(const clg_scatter_params *sc) {
  if (sc->reduction != CLG_REDUCTION_NONE)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "Scatter (opsets 9, 10) takes no reduction; "
                     "ScatterElements does");
  return CLG_SUCCESS;
}

const clg_op_impl clg__op_scatter = {
    .check_params = NULL,
    .supported = se_supported,
    .shape = se_shape,
    .check_mode = NULL,
    .bounds = se_bounds,
    .report = se_report,
    .prepare = clg__scatter_prepare,
    .describe = se_describe,
    .split = se_split,
    .num_inputs = 3,
    .check_updates = se_check_updates,
    .check_scatter = scatter9_check_scatter,
    .index_schedule = se_index_schedule,
    .release_state = clg__scatter_release,
    .state_done = clg__scatter_done,
    .device_schedule = se_device_schedule,
    .checks_values = clg__scatter_checks_values,
    .report_duplicate = se_report_duplicate,
    .slices = se_slices,
    .output_may_alias = clg__scatter_may_alias,
};
