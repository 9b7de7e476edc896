/* Gather: ONNX Gather (opsets 1, 11, 13), TensorFlow's batch_dims
 * (tf.gather / GatherV2) and numpy.take's index modes. Shape rules, the
 * index-bounds pass and the kernel launch; the common path is run/call.c. */
#include "ops/op.h"
#include "ops/gather_geometry.h"
#include "device/tune.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static clg_status gather_shape(const clg_params *params, int32_t r,
                               const int64_t *ds, int32_t q, const int64_t *qs,
                               clg_params *norm, int32_t *out_rank,
                               int64_t *out_shape) {
  int32_t a = 0, b = 0;
  clg_status st;
  if ((st = clg__normalize_axis(params->axis, r, "axis", &a)) != CLG_SUCCESS ||
      (st = clg__normalize_batch_dims(params->batch_dims, q, &b)) !=
          CLG_SUCCESS)
    return st;
  if (b > a)
    return clg__fail(CLG_ERROR_INVALID_BATCH_DIMS,
                     "batch_dims %d must not exceed axis %d (Gather with "
                     "batch_dims gathers within each batch)",
                     (int)b, (int)a);
  if ((st = clg__check_batch_shapes("Gather", b, ds, qs)) != CLG_SUCCESS)
    return st;
  int32_t rank = r - 1 + q - b;
  if (rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "the output would have rank %d (data rank %d - 1 + "
                     "indices rank %d - batch_dims %d), above the limit %d",
                     (int)rank, (int)r, (int)q, (int)b, CLG_MAX_RANK);
  int32_t n = 0;
  for (int32_t i = 0; i < a; ++i)
    out_shape[n++] = ds[i];
  for (int32_t i = b; i < q; ++i)
    out_shape[n++] = qs[i];
  for (int32_t i = a + 1; i < r; ++i)
    out_shape[n++] = ds[i];
  *out_rank = rank;
  norm->axis = a;
  norm->batch_dims = b;
  return CLG_SUCCESS;
}

/* Modes WRAP and CLIP read no value, but an empty axis admits no index. */
static clg_status gather_check_mode(const clg_params *norm,
                                    const clg_tensor *data, size_t count) {
  int32_t a = (int32_t)norm->axis;
  if (norm->mode != CLG_MODE_RAISE && count > 0 && data->shape[a] == 0)
    return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                     "index out of bounds: axis %d of data has size 0, so "
                     "mode %s has no position to map the %zu indices to",
                     (int)a, norm->mode == CLG_MODE_WRAP ? "wrap" : "clip",
                     count);
  return CLG_SUCCESS;
}

/* Every index is bounded by data.shape[axis]. */
static size_t gather_bounds(const clg_params *norm, const clg_tensor *data,
                            const clg_tensor *indices, int64_t *s) {
  (void)indices;
  s[0] = data->shape[norm->axis];
  return 1;
}

static clg_status gather_report(const clg_params *norm, const clg_tensor *data,
                                const clg_tensor *indices, size_t pos,
                                int64_t value) {
  int32_t a = (int32_t)norm->axis;
  return clg__report_index_oob(pos, value, indices->rank, indices->shape,
                               data->shape[a], a);
}

static const char *gather_mode_name(clg_index_mode mode) {
  return mode == CLG_MODE_WRAP   ? "WRAP"
         : mode == CLG_MODE_CLIP ? "CLIP"
                                 : "RAISE";
}

/* The kernel of gather.cl (its bit in CLG_KERNELS) a variant runs. */
static unsigned gather_kernel_bit(int variant) {
  return variant == CLG_VARIANT_ROWS    ? 1u
         : variant == CLG_VARIANT_SMALL ? 2u
         : variant == CLG_VARIANT_PLANE ? 8u
         : variant == CLG_VARIANT_BLOCK ? 16u
                                        : 4u; /* ITEM, ITEM_PF, ITEM_NT */
}

/* The kernel call of Gather variant `variant` of `geom0` (a copy is
 * fitted to it), from the program holding the kernels in `kernels`
 * (gather_kernel_bit()s: the shape class's candidates, so that timing them
 * builds one program). */
static clg_status gather_call(clg_context *ctx, const clg_params *norm,
                              const clg_launch *l, bool gated,
                              const clg_gather_geom *geom0, int variant,
                              unsigned kernels, clg_kernel_call *call) {
  clg_gather_geom geom = *geom0;
  clg__gather_geom_variant(&geom, variant, ctx->compute_units);
  clg__gather_geom_stage(&geom, ctx->local_bytes);
  /* On CPUs, ITEM's work-items as SIMD lanes where n allows whole
   * work-groups: decided on ITEM's geometry, so that every candidate of the
   * shape class shares the program (CLG_WHOLE only changes
   * clg_gather_item). */
  size_t whole[2] = {0, 0};
  if (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) {
    clg_gather_geom ip = *geom0;
    clg__gather_geom_variant(&ip, CLG_VARIANT_ITEM, ctx->compute_units);
    clg__gather_geom_whole(&ip, ctx->max_work_group_size, whole);
  }
  if (whole[0] &&
      (variant == CLG_VARIANT_ITEM || variant == CLG_VARIANT_ITEM_PF ||
       variant == CLG_VARIANT_ITEM_NT)) {
    geom.local[0] = whole[0];
    geom.local[1] = whole[1];
    geom.global[0] = (size_t)geom.n;
  }

  char options[256];
  snprintf(options, sizeof options,
           "-DCLG_UNIT=%s -DCLG_INDEX=%s -DCLG_ROWS_PER_ITEM=%d "
           "-DCLG_MODE=CLG_MODE_%s -DCLG_KERNELS=%u%s",
           clg__unit_type(geom.unit_bytes),
           geom.index_bytes == 4 ? "int" : "long", CLG_SMALL_ROWS_PER_ITEM,
           gather_mode_name(norm->mode), kernels | gather_kernel_bit(variant),
           gated ? " -DCLG_GATED" : "");
  bool item = variant == CLG_VARIANT_ITEM || variant == CLG_VARIANT_ITEM_PF ||
              variant == CLG_VARIANT_ITEM_NT || variant == CLG_VARIANT_PLANE ||
              variant == CLG_VARIANT_BLOCK;
  if (item) {
    size_t used = strlen(options);
    snprintf(options + used, sizeof options - used,
             " -DCLG_INNER=%llu -DCLG_WHOLE=%d",
             (unsigned long long)clg__inner_constant(&geom), whole[0] ? 1 : 0);
  }
  const char *kname = variant == CLG_VARIANT_ROWS    ? "clg_gather_rows"
                      : variant == CLG_VARIANT_SMALL ? "clg_gather_small"
                      : variant == CLG_VARIANT_PLANE ? "clg_gather_plane"
                      : variant == CLG_VARIANT_BLOCK ? "clg_gather_block"
                                                     : "clg_gather_item";
  clg_kernel_entry *kernel = NULL;
  clg_status st =
      clg__get_kernel(ctx, clg_kernel_gather, options, kname, &kernel);
  if (st != CLG_SUCCESS)
    return st;

  cl_ulong data_off = l->d->offset / geom.unit_bytes;
  cl_ulong idx_off = l->x->offset / geom.index_bytes;
  cl_ulong out_off = l->o->offset / geom.unit_bytes;
  cl_ulong nn = geom.n, s = geom.s, inner = geom.inner,
           outer_pb = geom.outer_pb, rows = geom.rows, per = geom.per_item,
           parts = geom.parts, part_units = geom.part_units,
           prefetch = geom.prefetch;
  cl_uint stream = geom.stream ? 1 : 0, staged = geom.stage_units > 0;
  if (item) {
    /* item: ..., inner, parts, part_units, prefetch, stream; plane: ...,
     * inner, prefetch, stage (local memory), staged; block: ..., inner,
     * per_item, prefetch. */
    const void *values[] = {&l->d->mem, &data_off, &l->x->mem, &idx_off,
                            &l->o->mem, &out_off,  &nn,        &s,
                            &outer_pb,  &inner,    &parts,     &part_units,
                            &prefetch,  &stream};
    size_t sizes[] = {sizeof(cl_mem), sizeof data_off, sizeof(cl_mem),
                      sizeof idx_off, sizeof(cl_mem),  sizeof out_off,
                      sizeof nn,      sizeof s,        sizeof outer_pb,
                      sizeof inner,   sizeof parts,    sizeof part_units,
                      sizeof prefetch, sizeof stream};
    cl_uint nargs = 14;
    if (variant == CLG_VARIANT_PLANE) {
      values[10] = &prefetch;
      sizes[10] = sizeof prefetch;
      values[11] = NULL;
      sizes[11] = (size_t)(staged ? geom.stage_units : 1) * geom.unit_bytes;
      values[12] = &staged;
      sizes[12] = sizeof staged;
      nargs = 13;
    } else if (variant == CLG_VARIANT_BLOCK) {
      values[10] = &per;
      sizes[10] = sizeof per;
      values[11] = &prefetch;
      sizes[11] = sizeof prefetch;
      nargs = 12;
    }
    clg__call_set(call, kernel, nargs, sizes, values, geom.work_dim,
                  geom.global, geom.local);
    return CLG_SUCCESS;
  }
  const void *values[] = {&l->d->mem, &data_off, &l->x->mem, &idx_off,
                          &l->o->mem, &out_off,  &nn,        &s,
                          &inner,     &outer_pb, &rows};
  const size_t sizes[] = {sizeof(cl_mem),  sizeof data_off, sizeof(cl_mem),
                          sizeof idx_off,  sizeof(cl_mem),  sizeof out_off,
                          sizeof nn,       sizeof s,        sizeof inner,
                          sizeof outer_pb, sizeof rows};
  clg__call_set(call, kernel, 11, sizes, values, geom.work_dim, geom.global,
                geom.local);
  return CLG_SUCCESS;
}

/* One timed run of a candidate, on the call's own tensors and queue. */
typedef struct gather_trial_arg {
  clg_context *ctx;
  const clg_params *norm;
  const clg_launch *l;
  const clg_gather_geom *geom;
  unsigned kernels;
} gather_trial_arg;

static clg_status gather_trial(void *arg, int variant, double *seconds) {
  const gather_trial_arg *t = arg;
  clg_kernel_call call;
  clg_status st = gather_call(t->ctx, t->norm, t->l, false, t->geom, variant,
                              t->kernels, &call);
  return st == CLG_SUCCESS ? clg__time_call(t->ctx, &call, t->l->queue, t->l->num_events,
                                            t->l->wait_list, seconds) : st;
}

/* The call's geometry: data [batch, outer, s, slice bytes], batch_dims'
 * and the axis's dimensions merged. */
static void gather_geometry(const clg_params *norm, const clg_launch *l,
                            uint64_t *batch, uint64_t *outer,
                            uint64_t *slice) {
  const clg_tensor *data = l->data;
  int32_t a = (int32_t)norm->axis, b = (int32_t)norm->batch_dims;
  *batch = *outer = 1;
  *slice = l->df.elem_size;
  for (int32_t i = 0; i < b; ++i)
    *batch *= (uint64_t)data->shape[i];
  for (int32_t i = b; i < a; ++i)
    *outer *= (uint64_t)data->shape[i];
  for (int32_t i = a + 1; i < data->rank; ++i)
    *slice *= (uint64_t)data->shape[i];
}

static clg_status gather_prepare(clg_context *ctx, const clg_params *norm,
                                 const clg_launch *l, bool gated,
                                 clg_kernel_calls *calls) {
  clg_kernel_call *call = &calls->call[0];
  calls->count = 1;
  const clg_tensor *data = l->data;
  int32_t a = (int32_t)norm->axis;
  uint64_t batch, outer, slice;
  gather_geometry(norm, l, &batch, &outer, &slice);
  uint64_t n = batch ? l->xf.count / batch : 0; /* indices per batch */

  clg_gather_geom geom;
  clg__gather_geom_fill(&geom, batch * outer, outer, (uint64_t)data->shape[a],
                        n, slice, l->xf.elem_size, l->d->align, l->o->align,
                        ctx->max_work_group_size);
  int cands[CLG_VARIANT_COUNT];
  int count = clg__gather_candidates(&geom, clg__kernel_device(ctx),
                                     ctx->cache_bytes, cands);

  /* The shape class: what the best variant depends on, in powers of two
   * (slice bytes, table rows, rows copied, outer rows), exactly for the
   * rest. Trials run on the call's tensors, never for a plan being baked
   * (no memory) nor for a gated kernel (the verdict is not known yet: the
   * call may ask again once it is, l->retime). */
  char key[160];
  snprintf(key, sizeof key,
           "Gather slice=2^%u align=%zu s=2^%u rows=2^%u outer=2^%u "
           "index=%zu mode=%d dev=%d",
           clg__log2(slice),
           clg__copy_unit_max(slice, l->d->align, l->o->align, 64),
           clg__log2(geom.s), clg__log2(geom.rows), clg__log2(geom.outer),
           geom.index_bytes, (int)norm->mode,
           (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) ? 1 : 0);
  unsigned kernels = 0;
  for (int i = 0; i < count; ++i)
    kernels |= gather_kernel_bit(cands[i]);
  gather_trial_arg arg = {ctx, norm, l, &geom, kernels};
  bool can_time = l->d->mem && l->x->mem && l->o->mem && l->queue &&
                  l->of.bytes >= CLG_TUNE_MIN_BYTES;
  clg_choice how;
  bool later = false;
  int variant = clg__tune_pick_gated(
      ctx, key, cands, count,
      clg__gather_allowed(&geom, clg__kernel_device(ctx)),
      can_time ? gather_trial : NULL, &arg, gated, &later, &how);
  if (l->retime)
    *l->retime = later;
  clg_status st =
      gather_call(ctx, norm, l, gated, &geom, variant, kernels, call);
  if (st == CLG_SUCCESS && l->queue) /* a launch, not a plan's bake */
    clg__tune_note(ctx, variant, how);
  return st;
}

/* Way FUSED: kernels/gather.cl's clg_gather_checked, one work-group of
 * CLG_FUSED_LOCAL work-items (fewer where the device allows fewer), or of
 * one on a CPU (as the validation kernel's there: a work-group's
 * work-items are a loop on a CPU device, and 256 of them cost W5's kernel
 * (10 indices) 3.6 of its 30 us on POCL 3.1, Zen 3). */
#define CLG_FUSED_LOCAL 256
static clg_status gather_fused(clg_context *ctx, const clg_params *norm,
                               const clg_launch *l, clg_kernel_call *call) {
  const clg_tensor *data = l->data;
  int32_t a = (int32_t)norm->axis;
  uint64_t batch, outer, slice;
  gather_geometry(norm, l, &batch, &outer, &slice);
  size_t unit = clg__copy_unit_max(slice, l->d->align, l->o->align, 16);
  size_t local =
      (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) ? 1 : CLG_FUSED_LOCAL;
  while (ctx->max_work_group_size && local > ctx->max_work_group_size)
    local /= 2;
  char options[192];
  snprintf(options, sizeof options,
           "-DCLG_UNIT=%s -DCLG_INDEX=%s -DCLG_MODE=CLG_MODE_RAISE "
           "-DCLG_KERNELS=32 -DCLG_LOCAL=%zu -DCLG_GROUPS_AT=%d",
           clg__unit_type(unit), l->xf.elem_size == 4 ? "int" : "long", local,
           (int)CLG_VERDICT_GROUPS_AT);
  clg_kernel_entry *kernel = NULL;
  clg_status st = clg__get_kernel(ctx, clg_kernel_gather, options,
                                  "clg_gather_checked", &kernel);
  if (st != CLG_SUCCESS)
    return st;
  cl_ulong data_off = l->d->offset / unit, out_off = l->o->offset / unit;
  cl_ulong idx_off = l->x->offset / l->xf.elem_size;
  cl_ulong count = l->xf.count, n = batch ? count / batch : 0;
  cl_ulong s = (cl_ulong)data->shape[a], outer_pb = outer,
           inner = slice / unit, rows = batch * outer;
  cl_uint gen = l->fused_gen;
  const void *values[] = {&l->d->mem, &data_off, &l->x->mem, &idx_off,
                          &l->o->mem, &out_off,  &n,         &s,
                          &outer_pb,  &inner,    &rows,      &count,
                          &l->fused,  &gen};
  const size_t sizes[] = {sizeof(cl_mem), sizeof data_off, sizeof(cl_mem),
                          sizeof idx_off, sizeof(cl_mem),  sizeof out_off,
                          sizeof n,       sizeof s,        sizeof outer_pb,
                          sizeof inner,   sizeof rows,     sizeof count,
                          sizeof(cl_mem), sizeof gen};
  clg__call_set(call, kernel, 14, sizes, values, 1, &local, &local);
  return CLG_SUCCESS;
}

static bool gather_supported(int32_t data_rank, int32_t indices_rank) {
  /* The output rank with batch_dims 0; with b > 0 it is b less, which
   * clg_output_shape() checks. */
  return data_rank - 1 + indices_rank <= CLG_MAX_RANK;
}

static void gather_describe(const clg_params *norm, char *buf, size_t cap) {
  snprintf(buf, cap, "Gather on axis %" PRId64, norm->axis);
}

/* Output data.shape[:a] + indices.shape[b:] + data.shape[a+1:]. */
static bool gather_split(const clg_params *p, const clg_tensor *indices,
                         bool *data_rows, bool *index_rows) {
  *data_rows = *index_rows = false;
  if (p->batch_dims > 0)
    *data_rows = *index_rows = true; /* the batch dimension */
  else if (p->axis > 0)
    *data_rows = true;
  else if (indices->rank >= 1)
    *index_rows = true;
  else
    return false; /* axis 0, scalar index: the output is one data row */
  return true;
}

/* Rows (op.h): data [batch * outer, s, inner], output [batch * outer, n,
 * inner], n indices per batch row. */
static void gather_rows(const clg_params *norm, const clg_tensor *data,
                        const clg_tensor *indices, clg_row_view *v) {
  int32_t a = (int32_t)norm->axis, b = (int32_t)norm->batch_dims;
  v->batch = v->outer = v->inner = v->n = 1;
  for (int32_t i = 0; i < b; ++i)
    v->batch *= data->shape[i];
  for (int32_t i = b; i < a; ++i)
    v->outer *= data->shape[i];
  for (int32_t i = a + 1; i < data->rank; ++i)
    v->inner *= data->shape[i];
  for (int32_t i = b; i < indices->rank; ++i)
    v->n *= indices->shape[i];
  v->s = data->shape[a];
}

/* Slices (op.h): the rows' view; output slice r * n + j comes from data
 * slice r * s + k, k = indices[batch row of r, j] as the mode maps it. */
static void gather_slices(const clg_params *norm, const clg_tensor *data,
                          const clg_tensor *indices, const void *values,
                          size_t index_size, size_t *entries, uint64_t *inner,
                          int64_t *pos) {
  clg_row_view v;
  gather_rows(norm, data, indices, &v);
  int64_t outer = v.outer, n = v.n, s = v.s, rows = v.batch * v.outer;
  *entries = (size_t)(rows * n);
  *inner = (uint64_t)v.inner;
  if (!pos)
    return;
  for (int64_t r = 0; r < rows; ++r) {
    size_t first = (size_t)((r / outer) * n);
    for (int64_t j = 0; j < n; ++j) {
      int64_t k = clg__index_value(values, index_size, first + (size_t)j);
      if (norm->mode == CLG_MODE_WRAP) {
        k %= s;
        k += k < 0 ? s : 0;
      } else if (norm->mode == CLG_MODE_CLIP) {
        k = k < 0 ? 0 : k >= s ? s - 1 : k;
      } else if (k < 0) {
        k += s;
      }
      pos[r * n + j] = r * s + k;
    }
  }
}

const clg_op_impl clg__op_gather = {
    .check_params = NULL,
    .supported = gather_supported,
    .shape = gather_shape,
    .check_mode = gather_check_mode,
    .bounds = gather_bounds,
    .report = gather_report,
    .prepare = gather_prepare,
    .describe = gather_describe,
    .split = gather_split,
    .slices = gather_slices,
    .rows = gather_rows,
    .fused = gather_fused,
};
