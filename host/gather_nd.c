/* GatherND: ONNX GatherND (opsets 11, 12, 13, with batch_dims), tf.gather_nd.
 * Shape rules, the per-component index-bounds pass and the kernel launch;
 * the common path is op.c. */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static clg_status gather_nd_shape(const clg_params *params, int32_t r,
                                  const int64_t *ds, int32_t q,
                                  const int64_t *qs, clg_params *norm,
                                  int32_t *out_rank, int64_t *out_shape) {
  if (q < 1)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "indices has rank %d; GatherND needs indices of rank >= "
                     "1 (its last dimension holds the index tuples)",
                     (int)q);
  int32_t lim = (r < q ? r : q) - 1;
  if (params->batch_dims < 0 || params->batch_dims > lim)
    return clg__fail(CLG_ERROR_INVALID_BATCH_DIMS,
                     "batch_dims %" PRId64 " is out of range for GatherND "
                     "with data of rank %d and indices of rank %d: valid "
                     "range is [0, %d]",
                     params->batch_dims, (int)r, (int)q, (int)lim);
  int32_t b = (int32_t)params->batch_dims;
  int64_t m = qs[q - 1];
  if (m < 1 || m > r - b) {
    char ishape[512];
    clg__format_shape(ishape, sizeof ishape, q, qs);
    return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                     "GatherND: the last dimension of indices (shape %s), "
                     "the index tuple length, is %" PRId64 "; with data of "
                     "rank %d and batch_dims %d it must be in [1, %d]",
                     ishape, m, (int)r, (int)b, (int)(r - b));
  }
  clg_status st = clg__check_batch_shapes("GatherND", b, ds, qs);
  if (st != CLG_SUCCESS)
    return st;
  int32_t rank = q - 1 + r - b - (int32_t)m;
  if (rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "the output would have rank %d (indices rank %d - 1 + "
                     "data rank %d - batch_dims %d - tuple length %d), above "
                     "the limit %d",
                     (int)rank, (int)q, (int)r, (int)b, (int)m, CLG_MAX_RANK);
  int32_t n = 0;
  for (int32_t i = 0; i < q - 1; ++i)
    out_shape[n++] = qs[i];
  for (int32_t i = b + (int32_t)m; i < r; ++i)
    out_shape[n++] = ds[i];
  *out_rank = rank;
  norm->axis = 0;
  norm->batch_dims = b;
  return CLG_SUCCESS;
}

/* Component j of every tuple is bounded by data.shape[batch_dims + j]: the
 * period is the tuple length m. */
static size_t gather_nd_bounds(const clg_params *norm, const clg_tensor *data,
                               const clg_tensor *indices, int64_t *s) {
  size_t m = (size_t)indices->shape[indices->rank - 1];
  for (size_t j = 0; j < m; ++j)
    s[j] = data->shape[norm->batch_dims + (int64_t)j];
  return m;
}

/* The message for the out-of-bounds value at flat position `pos`. */
static clg_status gather_nd_report(const clg_params *norm,
                                   const clg_tensor *data,
                                   const clg_tensor *indices, size_t pos,
                                   int64_t value) {
  /* Component j of the tuple indexes axis b + j of data. */
  size_t m = (size_t)indices->shape[indices->rank - 1];
  size_t j = pos % m;
  int32_t axis = (int32_t)norm->batch_dims + (int32_t)j;
  int64_t d = data->shape[axis];
  int64_t coord[CLG_MAX_RANK];
  size_t rest = pos;
  for (int32_t i = indices->rank - 1; i >= 0; --i) {
    uint64_t dim = (uint64_t)indices->shape[i];
    coord[i] = dim ? (int64_t)(rest % dim) : 0;
    rest = dim ? rest / dim : 0;
  }
  char at[512], shape[512];
  clg__format_shape(at, sizeof at, indices->rank, coord);
  clg__format_shape(shape, sizeof shape, indices->rank, indices->shape);
  if (d == 0)
    return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                     "index out of bounds: indices[%zu] (position %s in "
                     "indices of shape %s) = %" PRId64 ", component %zu of "
                     "the index tuple indexes axis %d of data, of size 0: no "
                     "index is valid",
                     pos, at, shape, value, j, (int)axis);
  return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                   "index out of bounds: indices[%zu] (position %s in indices "
                   "of shape %s) = %" PRId64 ", component %zu of the index "
                   "tuple indexes axis %d of data, of size %" PRId64 ": valid "
                   "range is [%" PRId64 ", %" PRId64 "]",
                   pos, at, shape, value, j, (int)axis, d, -d, d - 1);
}

static clg_status gather_nd_prepare(clg_context *ctx, const clg_params *norm,
                                    const clg_launch *l, bool gated,
                                    clg_kernel_call *call) {
  const clg_tensor *data = l->data;
  int32_t b = (int32_t)norm->batch_dims;
  int32_t m = (int32_t)l->indices->shape[l->indices->rank - 1];
  uint64_t batch = 1, s = 1, slice = l->df.elem_size;
  for (int32_t i = 0; i < b; ++i)
    batch *= (uint64_t)data->shape[i];
  cl_ulong16 dv, sv;
  for (int i = 0; i < 16; ++i) {
    dv.s[i] = 1;
    sv.s[i] = 0;
  }
  for (int32_t j = m - 1; j >= 0; --j) {
    dv.s[j] = (cl_ulong)data->shape[b + j];
    sv.s[j] = s;
    s *= (uint64_t)data->shape[b + j];
  }
  for (int32_t i = b + m; i < data->rank; ++i)
    slice *= (uint64_t)data->shape[i];
  uint64_t n = l->xf.count / (size_t)m / batch; /* tuples per batch */

  clg_gather_plan plan;
  clg__plan_gather(&plan, batch, 1, s, n, slice, l->xf.elem_size, l->d->align,
                   l->o->align, ctx->max_work_group_size);
  clg__plan_for_device(&plan, clg__plan_device(ctx));

  char options[160];
  snprintf(options, sizeof options,
           "-DCLG_UNIT=%s -DCLG_INDEX=%s -DCLG_ROWS_PER_ITEM=%d%s",
           clg__unit_type(plan.unit_bytes),
           plan.index_bytes == 4 ? "int" : "long", CLG_SMALL_ROWS_PER_ITEM,
           gated ? " -DCLG_GATED" : "");
  /* CHUNK1 (one-unit slices) runs the general chunk kernel here. */
  const char *kname = plan.variant == CLG_VARIANT_ROWS ? "clg_gather_nd_rows"
                      : plan.variant == CLG_VARIANT_SMALL
                          ? "clg_gather_nd_small"
                          : "clg_gather_nd_chunk";
  clg_kernel_entry *kernel = NULL;
  clg_status st =
      clg__get_kernel(ctx, clg_kernel_gather_nd, options, kname, &kernel);
  if (st != CLG_SUCCESS)
    return st;

  cl_ulong data_off = l->d->offset / plan.unit_bytes;
  cl_ulong idx_off = l->x->offset / plan.index_bytes;
  cl_ulong out_off = l->o->offset / plan.unit_bytes;
  cl_ulong nn = plan.n, ss = plan.s, inner = plan.inner, rows = plan.rows;
  cl_ulong rpi = plan.rows_per_item, upi = plan.units_per_item;
  cl_uint mm = (cl_uint)m;
  const void *values[] = {&l->d->mem, &data_off, &l->x->mem, &idx_off,
                          &l->o->mem, &out_off,  &nn,        &ss,
                          &inner,     &rows,     &mm,        &dv,
                          &sv,        &rpi,      &upi};
  const size_t sizes[] = {sizeof(cl_mem), sizeof data_off, sizeof(cl_mem),
                          sizeof idx_off, sizeof(cl_mem),  sizeof out_off,
                          sizeof nn,      sizeof ss,       sizeof inner,
                          sizeof rows,    sizeof mm,       sizeof dv,
                          sizeof sv,      sizeof rpi,      sizeof upi};
  cl_uint nargs = plan.variant >= CLG_VARIANT_CHUNK ? 15 : 13;
  clg__call_set(call, kernel, nargs, sizes, values, plan.work_dim, plan.global,
                plan.local);
  return CLG_SUCCESS;
}

const clg_op_impl clg__op_gather_nd = {
    "GatherND",       gather_nd_shape,  NULL,
    gather_nd_bounds, gather_nd_report, gather_nd_prepare};
