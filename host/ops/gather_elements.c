/* GatherElements: ONNX GatherElements (opsets 11, 13), numpy's
 * take_along_axis. Shape rules, the index-bounds pass and the kernel launch;
 * the common path is run/call.c. */
#include "ops/op.h"
#include "device/tune.h"

#include <inttypes.h>
#include <stdio.h>

/* Work-items per work-group (capped by the device) and output elements per
 * work-item (the block kernels' per_item argument). */
#define GE_LOCAL_SIZE 64
#define GE_ITEMS 16
/* CPU devices: at most this many work-items (a few per core). */
#define GE_CPU_ITEMS 64

static clg_status gather_elements_shape(const clg_params *params, int32_t r,
                                        const int64_t *ds, int32_t q,
                                        const int64_t *qs, clg_params *norm,
                                        int32_t *out_rank, int64_t *out_shape) {
  if (q != r) {
    char dshape[512], ishape[512];
    clg__format_shape(dshape, sizeof dshape, r, ds);
    clg__format_shape(ishape, sizeof ishape, q, qs);
    return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                     "GatherElements needs indices of data's rank: data has "
                     "rank %d (shape %s) but indices has rank %d (shape %s)",
                     (int)r, dshape, (int)q, ishape);
  }
  int32_t a = 0;
  clg_status st = clg__normalize_axis(params->axis, r, "axis", &a);
  if (st != CLG_SUCCESS)
    return st;
  for (int32_t d = 0; d < r; ++d)
    if (d != a && qs[d] > ds[d])
      return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                       "GatherElements on axis %d: indices dimension %d is "
                       "%" PRId64 " but data's is %" PRId64 "; off the axis, "
                       "indices must not exceed data",
                       (int)a, (int)d, qs[d], ds[d]);
  for (int32_t d = 0; d < r; ++d)
    out_shape[d] = qs[d];
  *out_rank = r;
  norm->axis = a;
  norm->batch_dims = 0;
  return CLG_SUCCESS;
}

/* Every index is bounded by data.shape[axis]. */
static size_t gather_elements_bounds(const clg_params *norm,
                                     const clg_tensor *data,
                                     const clg_tensor *indices, int64_t *s) {
  (void)indices;
  s[0] = data->shape[norm->axis];
  return 1;
}

static clg_status gather_elements_report(const clg_params *norm,
                                         const clg_tensor *data,
                                         const clg_tensor *indices, size_t pos,
                                         int64_t value) {
  int32_t a = (int32_t)norm->axis;
  return clg__report_index_oob(pos, value, indices->rank, indices->shape,
                               data->shape[a], a);
}

/* One collapsed output dimension: its size and the data stride (elements)
 * of its coordinate. */
typedef struct ge_dim {
  uint64_t n;
  uint64_t stride;
} ge_dim;

/* Collapse the output dims (indices' shape) against data's: dims where
 * indices has size 1 (coordinate always 0) are dropped, and a dim is merged
 * into the one before it when it is whole in both tensors and the two are
 * adjacent in data. Returns the number of dims; *ax is the axis' position. */
static int32_t ge_collapse(int32_t r, const int64_t *ds, const int64_t *is,
                           int32_t a, ge_dim *dims, int32_t *ax) {
  uint64_t dstride[CLG_MAX_RANK], acc = 1;
  for (int32_t d = r - 1; d >= 0; --d) {
    dstride[d] = acc;
    acc *= (uint64_t)ds[d];
  }
  int32_t k = 0, axpos = -1;
  for (int32_t d = 0; d < r; ++d) {
    uint64_t n = (uint64_t)is[d];
    if (d == a) {
      axpos = k;
      dims[k].n = n;
      dims[k].stride = dstride[d];
      ++k;
      continue;
    }
    if (n == 1)
      continue;
    if (k > 0 && k - 1 != axpos && is[d] == ds[d] &&
        dims[k - 1].stride == dstride[d] * (uint64_t)ds[d]) {
      dims[k - 1].n *= n;
      dims[k - 1].stride = dstride[d];
      continue;
    }
    dims[k].n = n;
    dims[k].stride = dstride[d];
    ++k;
  }
  *ax = axpos;
  return k;
}

/* The collapsed view of a call: output dims and data strides (ge_collapse),
 * the axis position, and the [np, n, nq] view when there is one. */
typedef struct ge_geometry {
  ge_dim dims[CLG_MAX_RANK];
  int32_t k, ax;
  bool three;                    /* the [np, n, nq] view applies */
  cl_ulong n, nq, s, ps, as, qs; /* that view */
  size_t unit, eu;               /* copy unit, units per element */
} ge_geometry;

static void ge_geometry_of(const clg_params *norm, const clg_launch *l,
                           ge_geometry *g) {
  const clg_tensor *data = l->data, *indices = l->indices;
  int32_t a = (int32_t)norm->axis;
  g->k =
      ge_collapse(data->rank, data->shape, indices->shape, a, g->dims, &g->ax);
  int32_t ax = g->ax, k = g->k;
  g->three = ax <= 1 && k - ax - 1 <= 1;
  g->n = g->dims[ax].n;
  g->ps = ax == 1 ? g->dims[0].stride : 0;
  g->nq = ax + 1 < k ? g->dims[ax + 1].n : 1;
  g->qs = ax + 1 < k ? g->dims[ax + 1].stride : 0;
  g->as = g->dims[ax].stride;
  g->s = (cl_ulong)data->shape[a];
  size_t es = l->df.elem_size;
  g->unit = clg__copy_unit(es, l->d->align, l->o->align);
  g->eu = es / g->unit;
}

/* The kernel call of variant BLOCK (the 3d or nd kernel, a block of
 * elements per work-item), ITEM or PLANE (the [np, n, nq] view only). */
static clg_status ge_call(clg_context *ctx, const clg_launch *l, bool gated,
                          const ge_geometry *g, int variant,
                          clg_kernel_call *call) {
  cl_ulong per_row = g->n * g->nq;
  cl_ulong np = per_row ? (cl_ulong)l->of.count / per_row : 0;
  bool last = g->nq == 1;
  char options[192];
  snprintf(options, sizeof options,
           "-DCLG_UNIT=%s -DCLG_EU=%zu -DCLG_INDEX=%s -DCLG_LAST=%d%s",
           clg__unit_type(g->unit), g->eu,
           l->xf.elem_size == 4 ? "int" : "long",
           variant == CLG_VARIANT_ITEM && last, gated ? " -DCLG_GATED" : "");
  const char *kname = variant == CLG_VARIANT_ITEM ? "clg_gather_elements_item"
                      : variant == CLG_VARIANT_PLANE
                          ? "clg_gather_elements_plane"
                      : g->three ? "clg_gather_elements_3d"
                                 : "clg_gather_elements_nd";
  clg_kernel_entry *kernel = NULL;
  clg_status st =
      clg__get_kernel(ctx, clg_kernel_gather_elements, options, kname, &kernel);
  if (st != CLG_SUCCESS)
    return st;

  cl_ulong data_off = l->d->offset / g->unit;
  cl_ulong idx_off = l->x->offset / l->xf.elem_size;
  cl_ulong out_off = l->o->offset / g->unit;
  cl_ulong n = g->n, nq = g->nq, s = g->s, ps = g->ps, as = g->as, qs = g->qs;
  if (variant == CLG_VARIANT_ITEM || variant == CLG_VARIANT_PLANE) {
    const void *values[] = {&l->d->mem, &data_off, &l->x->mem, &idx_off,
                            &l->o->mem, &out_off,  &n,         &nq,
                            &s,         &ps,       &as,        &qs};
    const size_t sizes[] = {sizeof(cl_mem), sizeof data_off, sizeof(cl_mem),
                            sizeof idx_off, sizeof(cl_mem),  sizeof out_off,
                            sizeof n,       sizeof nq,       sizeof s,
                            sizeof ps,      sizeof as,       sizeof qs};
    size_t global[3], local[3] = {1, 1, 1};
    if (variant == CLG_VARIANT_PLANE) {
      global[0] = (size_t)np;
      global[1] = global[2] = 1;
    } else {
      size_t lo = GE_LOCAL_SIZE;
      if (ctx->max_work_group_size && lo > ctx->max_work_group_size)
        lo = ctx->max_work_group_size;
      uint64_t d0 = last ? n : nq;
      while (lo > 1 && lo / 2 >= d0)
        lo /= 2;
      local[0] = lo;
      global[0] = (size_t)((d0 + lo - 1) / lo * lo);
      global[1] = (size_t)(last ? np : n);
      global[2] = (size_t)(last ? 1 : np);
    }
    clg__call_set(call, kernel, 12, sizes, values, 3, global, local);
    return CLG_SUCCESS;
  }

  size_t local = GE_LOCAL_SIZE;
  if (ctx->max_work_group_size && local > ctx->max_work_group_size)
    local = ctx->max_work_group_size;
  uint64_t per = GE_ITEMS;
  if (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) {
    /* CPU devices: work-groups of one work-item, each copying one
     * contiguous block of at most GE_CPU_ITEMS blocks. */
    local = 1;
    uint64_t cpu = ((uint64_t)l->of.count + GE_CPU_ITEMS - 1) / GE_CPU_ITEMS;
    if (cpu > per)
      per = cpu;
  }
  uint64_t items = ((uint64_t)l->of.count + per - 1) / per;
  size_t global = (size_t)((items + local - 1) / local * local);
  cl_ulong total = l->of.count;
  cl_ulong per_item = per;
  if (g->three) {
    const void *values[] = {&l->d->mem, &data_off, &l->x->mem, &idx_off,
                            &l->o->mem, &out_off,  &total,     &n,
                            &nq,        &s,        &ps,        &as,
                            &qs,        &per_item};
    const size_t sizes[] = {sizeof(cl_mem), sizeof data_off, sizeof(cl_mem),
                            sizeof idx_off, sizeof(cl_mem),  sizeof out_off,
                            sizeof total,   sizeof n,        sizeof nq,
                            sizeof s,       sizeof ps,       sizeof as,
                            sizeof qs,      sizeof per_item};
    clg__call_set(call, kernel, 14, sizes, values, 1, &global, &local);
    return CLG_SUCCESS;
  }
  cl_uint rank = (cl_uint)g->k;
  cl_ulong16 dv, sv;
  for (int i = 0; i < 16; ++i) {
    dv.s[i] = i < g->k ? g->dims[i].n : 1;
    sv.s[i] = i < g->k && i != g->ax ? g->dims[i].stride : 0;
  }
  const void *values[] = {
      &l->d->mem, &data_off, &l->x->mem, &idx_off, &l->o->mem, &out_off, &total,
      &s,         &as,       &rank,      &dv,      &sv,        &per_item};
  const size_t sizes[] = {sizeof(cl_mem), sizeof data_off, sizeof(cl_mem),
                          sizeof idx_off, sizeof(cl_mem),  sizeof out_off,
                          sizeof total,   sizeof s,        sizeof as,
                          sizeof rank,    sizeof dv,       sizeof sv,
                          sizeof per_item};
  clg__call_set(call, kernel, 13, sizes, values, 1, &global, &local);
  return CLG_SUCCESS;
}

typedef struct ge_trial_arg {
  clg_context *ctx;
  const clg_launch *l;
  const ge_geometry *g;
} ge_trial_arg;

static clg_status ge_trial(void *arg, int variant, double *seconds) {
  const ge_trial_arg *t = arg;
  clg_kernel_call call;
  clg_status st = ge_call(t->ctx, t->l, false, t->g, variant, &call);
  return st == CLG_SUCCESS ? clg__time_call(t->ctx, &call, t->l->queue, t->l->num_events,
                                            t->l->wait_list, seconds) : st;
}

static clg_status gather_elements_prepare(clg_context *ctx,
                                          const clg_params *norm,
                                          const clg_launch *l, bool gated,
                                          clg_kernel_calls *calls) {
  clg_kernel_call *call = &calls->call[0];
  calls->count = 1;
  ge_geometry g;
  ge_geometry_of(norm, l, &g);
  cl_device_type dev = clg__kernel_device(ctx);
  uint64_t per_row = g.n * g.nq;
  uint64_t np = per_row ? l->of.count / per_row : 0;
  /* BLOCK always; with the [np, n, nq] view, ITEM (where its NDRange fits
   * the 65535 limit some GPU drivers put on dims 1 and 2) and, for rows
   * gathered along data's innermost axis, PLANE (CPUs only: its one
   * work-item per row suits no GPU). PLANE first when a good share of each
   * data row is gathered, as for Gather. */
  unsigned allowed = 1u << CLG_VARIANT_BLOCK;
  bool cpu = (dev & CL_DEVICE_TYPE_CPU) != 0;
  if (g.three && (cpu || (np <= 65535 && (g.nq == 1 || g.n <= 65535))))
    allowed |= 1u << CLG_VARIANT_ITEM;
  bool plane = g.three && g.nq == 1 && g.as == 1;
  if (plane)
    allowed |= 1u << CLG_VARIANT_PLANE;
  bool item = (allowed & (1u << CLG_VARIANT_ITEM)) != 0;
  bool dense = plane && np >= 2 && g.n * 4 >= g.s;
  int cands[3], count = 0;
  if (cpu) {
    if (dense)
      cands[count++] = CLG_VARIANT_PLANE;
    if (item)
      cands[count++] = CLG_VARIANT_ITEM;
    cands[count++] = CLG_VARIANT_BLOCK;
    if (plane && !dense)
      cands[count++] = CLG_VARIANT_PLANE;
  } else {
    cands[count++] = CLG_VARIANT_BLOCK;
    if (item)
      cands[count++] = CLG_VARIANT_ITEM;
  }
  char key[160];
  snprintf(key, sizeof key,
           "GatherElements view=%d n=2^%u nq=2^%u np=2^%u s=2^%u as1=%d "
           "elem=%zu index=%zu dev=%d",
           g.three ? 3 : g.k, clg__log2(g.n), clg__log2(g.nq), clg__log2(np),
           clg__log2(g.s), g.as == 1, l->df.elem_size, l->xf.elem_size,
           cpu ? 1 : 0);
  ge_trial_arg arg = {ctx, l, &g};
  bool can_time = l->d->mem && l->x->mem && l->o->mem && l->queue &&
                  l->of.bytes >= CLG_TUNE_MIN_BYTES;
  clg_choice how;
  bool later = false;
  int variant = clg__tune_pick_gated(ctx, key, cands, count, allowed,
                                     can_time ? ge_trial : NULL, &arg, gated,
                                     &later, &how);
  if (l->retime)
    *l->retime = later;
  clg_status st = ge_call(ctx, l, gated, &g, variant, call);
  if (st == CLG_SUCCESS && l->queue) /* a launch, not a plan's bake */
    clg__tune_note(ctx, variant, how);
  return st;
}

static bool gather_elements_supported(int32_t data_rank, int32_t indices_rank) {
  return indices_rank == data_rank;
}

static void gather_elements_describe(const clg_params *norm, char *buf,
                                     size_t cap) {
  snprintf(buf, cap, "GatherElements on axis %" PRId64, norm->axis);
}

/* Output indices.shape; data's rows go with it off axis 0. */
static bool gather_elements_split(const clg_params *p,
                                  const clg_tensor *indices, bool *data_rows,
                                  bool *index_rows) {
  (void)indices;
  *index_rows = true;
  *data_rows = p->axis != 0;
  return true;
}

/* Slices (op.h): single elements; entry e reads data element
 * clg__elements_positions()[e]. */
static void gather_elements_slices(const clg_params *norm,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   const void *values, size_t index_size,
                                   size_t *entries, uint64_t *inner,
                                   int64_t *pos) {
  size_t n = 1;
  for (int32_t d = 0; d < indices->rank; ++d)
    n *= (size_t)indices->shape[d];
  *entries = n;
  *inner = 1;
  if (pos && n)
    clg__elements_positions(norm, data, indices, values, index_size, pos);
}

const clg_op_impl clg__op_gather_elements = {
    .check_params = NULL,
    .supported = gather_elements_supported,
    .shape = gather_elements_shape,
    .check_mode = NULL,
    .bounds = gather_elements_bounds,
    .report = gather_elements_report,
    .prepare = gather_elements_prepare,
    .describe = gather_elements_describe,
    .split = gather_elements_split,
    .slices = gather_elements_slices,
};
