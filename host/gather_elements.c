/* GatherElements: ONNX GatherElements (opsets 11, 13), numpy's
 * take_along_axis. Shape rules, the index-bounds pass and the kernel launch;
 * the common path is op.c. */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

/* Work-items per work-group (capped by the device) and output elements per
 * work-item (kernel -D value). */
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

static clg_status gather_elements_prepare(clg_context *ctx,
                                          const clg_params *norm,
                                          const clg_launch *l, bool gated,
                                          clg_kernel_call *call) {
  const clg_tensor *data = l->data, *indices = l->indices;
  int32_t a = (int32_t)norm->axis;
  ge_dim dims[CLG_MAX_RANK];
  int32_t ax = 0;
  int32_t k =
      ge_collapse(data->rank, data->shape, indices->shape, a, dims, &ax);

  size_t es = l->df.elem_size;
  size_t unit = clg__copy_unit(es, l->d->align, l->o->align);
  size_t local = GE_LOCAL_SIZE;
  if (ctx->max_work_group_size && local > ctx->max_work_group_size)
    local = ctx->max_work_group_size;
  uint64_t per = GE_ITEMS;
  if (clg__plan_device(ctx) & CL_DEVICE_TYPE_CPU) {
    /* CPU devices: work-groups of one work-item, each copying one
     * contiguous block of at most GE_CPU_ITEMS blocks. */
    local = 1;
    uint64_t cpu = ((uint64_t)l->of.count + GE_CPU_ITEMS - 1) / GE_CPU_ITEMS;
    if (cpu > per)
      per = cpu;
  }
  uint64_t items = ((uint64_t)l->of.count + per - 1) / per;
  size_t global = (size_t)((items + local - 1) / local * local);

  bool three = ax <= 1 && k - ax - 1 <= 1;
  char options[160];
  snprintf(options, sizeof options,
           "-DCLG_UNIT=%s -DCLG_EU=%zu -DCLG_INDEX=%s -DCLG_ITEMS=%d%s",
           clg__unit_type(unit), es / unit,
           l->xf.elem_size == 4 ? "int" : "long", GE_ITEMS,
           gated ? " -DCLG_GATED" : "");
  clg_kernel_entry *kernel = NULL;
  clg_status st = clg__get_kernel(
      ctx, clg_kernel_gather_elements, options,
      three ? "clg_gather_elements_3d" : "clg_gather_elements_nd", &kernel);
  if (st != CLG_SUCCESS)
    return st;

  cl_ulong data_off = l->d->offset / unit;
  cl_ulong idx_off = l->x->offset / l->xf.elem_size;
  cl_ulong out_off = l->o->offset / unit;
  cl_ulong total = l->of.count;
  cl_ulong per_item = per;
  cl_ulong s = (cl_ulong)data->shape[a];
  cl_ulong as = dims[ax].stride;
  if (three) {
    cl_ulong n = dims[ax].n;
    cl_ulong ps = ax == 1 ? dims[0].stride : 0;
    cl_ulong nq = ax + 1 < k ? dims[ax + 1].n : 1;
    cl_ulong qs = ax + 1 < k ? dims[ax + 1].stride : 0;
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
  cl_uint rank = (cl_uint)k;
  cl_ulong16 dv, sv;
  for (int i = 0; i < 16; ++i) {
    dv.s[i] = i < k ? dims[i].n : 1;
    sv.s[i] = i < k && i != ax ? dims[i].stride : 0;
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

const clg_op_impl clg__op_gather_elements = {
    "GatherElements",       gather_elements_shape,  NULL,
    gather_elements_bounds, gather_elements_report, gather_elements_prepare};
