/* GatherND: ONNX GatherND (opsets 11, 12, 13, with batch_dims), tf.gather_nd.
 * Shape rules, the per-component index-bounds pass and the kernel launch;
 * the common path is run/call.c. */
#include "ops/op.h"
#include "ops/gather_geometry.h"
#include "device/tune.h"

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

/* A GatherND as a gather of rows: the geometry (batch, s rows per batch, n
 * tuples per batch, the slice) and the tuple decoding (dims, strides). */
typedef struct nd_geometry {
  clg_gather_geom geom;
  int32_t m;
  cl_ulong16 dv, sv;
} nd_geometry;

static void nd_geometry_of(const clg_context *ctx, const clg_params *norm,
                           const clg_launch *l, nd_geometry *g) {
  const clg_tensor *data = l->data;
  int32_t b = (int32_t)norm->batch_dims;
  int32_t m = (int32_t)l->indices->shape[l->indices->rank - 1];
  uint64_t batch = 1, s = 1, slice = l->df.elem_size;
  for (int32_t i = 0; i < b; ++i)
    batch *= (uint64_t)data->shape[i];
  for (int i = 0; i < 16; ++i) {
    g->dv.s[i] = 1;
    g->sv.s[i] = 0;
  }
  for (int32_t j = m - 1; j >= 0; --j) {
    g->dv.s[j] = (cl_ulong)data->shape[b + j];
    g->sv.s[j] = s;
    s *= (uint64_t)data->shape[b + j];
  }
  for (int32_t i = b + m; i < data->rank; ++i)
    slice *= (uint64_t)data->shape[i];
  uint64_t n = l->xf.count / (size_t)m / batch; /* tuples per batch */
  g->m = m;
  clg__gather_geom_fill(&g->geom, batch, 1, s, n, slice, l->xf.elem_size,
                        l->d->align, l->o->align, ctx->max_work_group_size);
}

/* The kernel call of variant `variant` (ROWS, SMALL, ITEM, ITEM_PF). */
static clg_status nd_call(clg_context *ctx, const clg_launch *l, bool gated,
                          const nd_geometry *g, int variant,
                          clg_kernel_call *call) {
  clg_gather_geom geom = g->geom;
  clg__gather_geom_variant(&geom, variant, ctx->compute_units);
  char options[256];
  int used = snprintf(options, sizeof options,
                      "-DCLG_UNIT=%s -DCLG_INDEX=%s -DCLG_ROWS_PER_ITEM=%d%s",
                      clg__unit_type(geom.unit_bytes),
                      geom.index_bytes == 4 ? "int" : "long",
                      CLG_SMALL_ROWS_PER_ITEM, gated ? " -DCLG_GATED" : "");
  bool item = variant == CLG_VARIANT_ITEM || variant == CLG_VARIANT_ITEM_PF;
  if (item)
    snprintf(options + used, sizeof options - (size_t)used,
             " -DCLG_INNER=%llu -DCLG_PREFETCH=%u -DCLG_M=%d",
             (unsigned long long)clg__inner_constant(&geom), geom.prefetch,
             (int)g->m);
  const char *kname = item                          ? "clg_gather_nd_item"
                      : variant == CLG_VARIANT_ROWS ? "clg_gather_nd_rows"
                                                    : "clg_gather_nd_small";
  clg_kernel_entry *kernel = NULL;
  clg_status st =
      clg__get_kernel(ctx, clg_kernel_gather_nd, options, kname, &kernel);
  if (st != CLG_SUCCESS)
    return st;

  cl_ulong data_off = l->d->offset / geom.unit_bytes;
  cl_ulong idx_off = l->x->offset / geom.index_bytes;
  cl_ulong out_off = l->o->offset / geom.unit_bytes;
  cl_ulong nn = geom.n, ss = geom.s, inner = geom.inner, rows = geom.rows;
  cl_uint mm = (cl_uint)g->m;
  cl_ulong parts = geom.parts, part_units = geom.part_units;
  if (item) {
    const void *values[] = {&l->d->mem, &data_off, &l->x->mem, &idx_off,
                            &l->o->mem, &out_off,  &nn,        &ss,
                            &g->dv,     &g->sv,    &inner,     &parts,
                            &part_units};
    const size_t sizes[] = {sizeof(cl_mem),   sizeof data_off, sizeof(cl_mem),
                            sizeof idx_off,   sizeof(cl_mem),  sizeof out_off,
                            sizeof nn,        sizeof ss,       sizeof g->dv,
                            sizeof g->sv,     sizeof inner,    sizeof parts,
                            sizeof part_units};
    clg__call_set(call, kernel, 13, sizes, values, geom.work_dim, geom.global,
                  geom.local);
  } else {
    const void *values[] = {
        &l->d->mem, &data_off, &l->x->mem, &idx_off, &l->o->mem, &out_off, &nn,
        &ss,        &inner,    &rows,      &mm,      &g->dv,     &g->sv};
    const size_t sizes[] = {sizeof(cl_mem), sizeof data_off, sizeof(cl_mem),
                            sizeof idx_off, sizeof(cl_mem),  sizeof out_off,
                            sizeof nn,      sizeof ss,       sizeof inner,
                            sizeof rows,    sizeof mm,       sizeof g->dv,
                            sizeof g->sv};
    clg__call_set(call, kernel, 13, sizes, values, geom.work_dim, geom.global,
                  geom.local);
  }
  return CLG_SUCCESS;
}

typedef struct nd_trial_arg {
  clg_context *ctx;
  const clg_launch *l;
  const nd_geometry *g;
} nd_trial_arg;

static clg_status nd_trial(void *arg, int variant, double *seconds) {
  const nd_trial_arg *t = arg;
  clg_kernel_call call;
  clg_status st = nd_call(t->ctx, t->l, false, t->g, variant, &call);
  return st == CLG_SUCCESS ? clg__time_call(t->ctx, &call, t->l->queue, t->l->num_events,
                                            t->l->wait_list, seconds) : st;
}

static clg_status gather_nd_prepare(clg_context *ctx, const clg_params *norm,
                                    const clg_launch *l, bool gated,
                                    clg_kernel_calls *calls) {
  clg_kernel_call *call = &calls->call[0];
  calls->count = 1;
  nd_geometry g;
  nd_geometry_of(ctx, norm, l, &g);
  /* CPUs: the ITEM kernels (one work-item per slice, shape and m as build
   * constants), with and without prefetching, timed as Gather's are; other
   * devices: the coalesced ROWS / SMALL geometry. CLGATHER_VARIANT may force
   * any of them. */
  cl_device_type dev = clg__kernel_device(ctx);
  uint64_t batch = g.geom.outer;
  int cands[2] = {CLG_VARIANT_ITEM, CLG_VARIANT_ITEM_PF}, count = 2;
  if (!(dev & CL_DEVICE_TYPE_CPU)) {
    cands[0] = (int)g.geom.variant;
    count = 1;
  }
  unsigned allowed = 1u << CLG_VARIANT_ROWS | 1u << CLG_VARIANT_SMALL;
  if ((dev & CL_DEVICE_TYPE_CPU) || batch <= 65535)
    allowed |= 1u << CLG_VARIANT_ITEM | 1u << CLG_VARIANT_ITEM_PF;
  char key[160];
  snprintf(key, sizeof key,
           "GatherND m=%d slice=2^%u align=%zu s=2^%u rows=2^%u batch=2^%u "
           "index=%zu dev=%d",
           (int)g.m, clg__log2(g.geom.slice_bytes),
           clg__copy_unit_max(g.geom.slice_bytes, l->d->align, l->o->align, 64),
           clg__log2(g.geom.s), clg__log2(g.geom.rows), clg__log2(batch),
           g.geom.index_bytes, (dev & CL_DEVICE_TYPE_CPU) ? 1 : 0);
  nd_trial_arg arg = {ctx, l, &g};
  bool can_time = l->d->mem && l->x->mem && l->o->mem && l->queue &&
                  l->of.bytes >= CLG_TUNE_MIN_BYTES;
  clg_choice how;
  bool later = false;
  int variant = clg__tune_pick_gated(ctx, key, cands, count, allowed,
                                     can_time ? nd_trial : NULL, &arg, gated,
                                     &later, &how);
  if (l->retime)
    *l->retime = later;
  clg_status st = nd_call(ctx, l, gated, &g, variant, call);
  if (st == CLG_SUCCESS && l->queue) /* a launch, not a plan's bake */
    clg__tune_note(ctx, variant, how);
  return st;
}

static bool gather_nd_supported(int32_t data_rank, int32_t indices_rank) {
  (void)data_rank;
  return indices_rank >= 1; /* the last dimension holds the tuples */
}

static void gather_nd_describe(const clg_params *norm, char *buf, size_t cap) {
  snprintf(buf, cap, "GatherND with batch_dims %" PRId64, norm->batch_dims);
}

/* Output indices.shape[:q-1] + data.shape[b+m:]. */
static bool gather_nd_split(const clg_params *p, const clg_tensor *indices,
                            bool *data_rows, bool *index_rows) {
  *data_rows = *index_rows = false;
  if (p->batch_dims > 0)
    *data_rows = *index_rows = true;
  else if (indices->rank >= 2)
    *index_rows = true;
  else
    return false; /* one tuple: the output is one slice of data */
  return true;
}

/* Slices (op.h): data [B * S, inner] (S = the product of the m indexed
 * dimensions); tuple e of batch row beta reads slice beta * S + its flat
 * position among those dimensions. */
static void gather_nd_slices(const clg_params *norm, const clg_tensor *data,
                             const clg_tensor *indices, const void *values,
                             size_t index_size, size_t *entries,
                             uint64_t *inner, int64_t *pos) {
  int32_t b = (int32_t)norm->batch_dims, q = indices->rank;
  int32_t m = (int32_t)indices->shape[q - 1];
  int64_t batch = 1, span = 1, in = 1, tuples = 1;
  for (int32_t i = 0; i < b; ++i)
    batch *= data->shape[i];
  for (int32_t i = b; i < b + m; ++i)
    span *= data->shape[i];
  for (int32_t i = b + m; i < data->rank; ++i)
    in *= data->shape[i];
  for (int32_t i = 0; i < q - 1; ++i)
    tuples *= indices->shape[i];
  *entries = (size_t)tuples;
  *inner = (uint64_t)in;
  if (!pos || tuples == 0)
    return;
  int64_t per_batch = tuples / batch;
  for (int64_t e = 0; e < tuples; ++e) {
    int64_t flat = 0;
    for (int32_t j = 0; j < m; ++j) {
      int64_t v = clg__index_value(values, index_size,
                                   (size_t)(e * m + j));
      int64_t d = data->shape[b + j];
      flat = flat * d + (v < 0 ? v + d : v);
    }
    pos[e] = (e / per_batch) * span + flat;
  }
}

const clg_op_impl clg__op_gather_nd = {
    .check_params = NULL,
    .supported = gather_nd_supported,
    .shape = gather_nd_shape,
    .check_mode = NULL,
    .bounds = gather_nd_bounds,
    .report = gather_nd_report,
    .prepare = gather_nd_prepare,
    .describe = gather_nd_describe,
    .split = gather_nd_split,
    .slices = gather_nd_slices,
};
