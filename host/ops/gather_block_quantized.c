/* GatherBlockQuantized: ONNX Runtime's com.microsoft GatherBlockQuantized-1
 * (include/clgather/clgather_quantized.h, the semantics). Its rules on
 * params, types and shapes, on index values, their messages, and its
 * kernel call (kernels/gather_block_quantized.cl); the call's steps are
 * run/gather_block_quantized.c's. */
#include "ops/gather_block_quantized.h"
#include "device/tune.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const gbq_kind_names[] = {"CLG_GBQ_UINT8", "CLG_GBQ_UINT4",
                                             "CLG_GBQ_INT4"};

static clg_status gbq_check_params(const clg_gbq_params *p) {
  if (p->kind > CLG_GBQ_INT4)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown GatherBlockQuantized kind %u (expected "
                     "CLG_GBQ_UINT8, CLG_GBQ_UINT4 or CLG_GBQ_INT4)",
                     (unsigned)p->kind);
  if (p->kind == CLG_GBQ_UINT8 ? p->bits != 8 && p->bits != 4 : p->bits != 4)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "bits is %d; %s takes %s", (int)p->bits,
                     gbq_kind_names[p->kind],
                     p->kind == CLG_GBQ_UINT8 ? "8 or 4" : "4 only");
  if (p->block_size < 16 || (p->block_size & (p->block_size - 1)) != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "block_size is %" PRId64 "; it must be a power of two, "
                     "at least 16 (ONNX Runtime)",
                     p->block_size);
  for (int i = 0; i < 4; ++i)
    if (p->reserved[i] != 0)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "clg_gbq_params.reserved[%d] is %u; it must be 0", i,
                       (unsigned)p->reserved[i]);
  return CLG_SUCCESS;
}

/* Rank in [lo, CLG_MAX_RANK] and no negative dimension. */
static clg_status gbq_check_dims(const char *name, const clg_tensor *t,
                                 int32_t lo) {
  if (t->rank < lo || t->rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "%s has rank %d; GatherBlockQuantized takes %d to %d",
                     name, (int)t->rank, (int)lo, CLG_MAX_RANK);
  for (int32_t d = 0; d < t->rank; ++d)
    if (t->shape[d] < 0)
      return clg__fail(CLG_ERROR_INVALID_SHAPE,
                       "%s.shape[%d] is %" PRId64 "; dimensions must not be "
                       "negative",
                       name, (int)d, t->shape[d]);
  return CLG_SUCCESS;
}

/* The product of `rank` dims into *out (size_t and int64 both), else
 * CLG_ERROR_SIZE_OVERFLOW naming `name`. */
static clg_status gbq_numel(const char *name, int32_t rank,
                            const int64_t *shape, int64_t *out) {
  uint64_t n = 1;
  uint64_t cap = SIZE_MAX < INT64_MAX ? SIZE_MAX : INT64_MAX;
  for (int32_t d = 0; d < rank; ++d) {
    uint64_t x = (uint64_t)shape[d];
    if (x && n > cap / x)
      return clg__fail(CLG_ERROR_SIZE_OVERFLOW,
                       "%s's element count overflows", name);
    n *= x;
  }
  *out = (int64_t)n;
  return CLG_SUCCESS;
}

/* t's shape must be `want` (rank r), else `status` naming both. */
static clg_status gbq_check_shape(clg_status status, const char *name,
                                  const clg_tensor *t, int32_t r,
                                  const int64_t *want, const char *why) {
  bool same = t->rank == r;
  for (int32_t d = 0; same && d < r; ++d)
    same = t->shape[d] == want[d];
  if (same)
    return CLG_SUCCESS;
  char got[512], exp[512];
  clg__format_shape(got, sizeof got, t->rank, t->shape);
  clg__format_shape(exp, sizeof exp, r, want);
  return clg__fail(status, "%s has shape %s; expected %s (%s)", name, got, exp,
                   why);
}

clg_status clg__gbq_check(const clg_gbq_params *params, const clg_tensor *data,
                          const clg_tensor *indices, const clg_tensor *scales,
                          const clg_tensor *zero_points,
                          const clg_tensor *output, clg_gbq_geom *g) {
  memset(g, 0, sizeof *g);
  clg_status st = gbq_check_params(params);
  if (st != CLG_SUCCESS)
    return st;
  g->p = *params;
  const clg_gbq_params *p = &g->p;
  bool four = p->bits == 4;
  /* Element types. */
  if (data->dtype != CLG_DTYPE_UINT8)
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "data is %s; GatherBlockQuantized's data is uint8 (the "
                     "kind says how its bytes hold the values)",
                     clg_dtype_name(data->dtype));
  if ((st = clg__check_index_dtype(indices->dtype)) != CLG_SUCCESS)
    return st;
  if (scales->dtype != CLG_DTYPE_FLOAT && scales->dtype != CLG_DTYPE_FLOAT16)
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "scales is %s; GatherBlockQuantized takes float32 or "
                     "float16 scales",
                     clg_dtype_name(scales->dtype));
  if (zero_points && zero_points->dtype != CLG_DTYPE_UINT8)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "zero_points is %s; they are stored as data is, in "
                     "uint8",
                     clg_dtype_name(zero_points->dtype));
  if (output->dtype != scales->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "output is %s but scales is %s; the output takes the "
                     "scales' type",
                     clg_dtype_name(output->dtype),
                     clg_dtype_name(scales->dtype));
  g->sdtype = scales->dtype;
  g->zp = zero_points != NULL;
  /* Ranks and dimensions. */
  if ((st = gbq_check_dims("data", data, 1)) != CLG_SUCCESS ||
      (st = gbq_check_dims("indices", indices, 0)) != CLG_SUCCESS ||
      (st = gbq_check_dims("scales", scales, 0)) != CLG_SUCCESS ||
      (zero_points &&
       (st = gbq_check_dims("zero_points", zero_points, 0)) != CLG_SUCCESS) ||
      (st = gbq_check_dims("output", output, 0)) != CLG_SUCCESS)
    return st;
  int32_t r = g->rank = data->rank;
  memcpy(g->values, data->shape, (size_t)r * sizeof *g->values);
  /* uint8 bits 4: data's shape is its bytes', two values a byte. */
  if (p->kind == CLG_GBQ_UINT8 && four) {
    if (g->values[r - 1] > INT64_MAX / 2)
      return clg__fail(CLG_ERROR_SIZE_OVERFLOW,
                       "data's last dimension, %" PRId64 " bytes, holds "
                       "more 4-bit values than an int64 counts",
                       data->shape[r - 1]);
    g->values[r - 1] *= 2;
  }
  /* Axes. */
  if ((st = clg__normalize_axis(p->gather_axis, r, "gather_axis", &g->ga)) !=
          CLG_SUCCESS ||
      (st = clg__normalize_axis(p->quantize_axis, r, "quantize_axis",
                                &g->qa)) != CLG_SUCCESS)
    return st;
  g->p.gather_axis = g->ga;
  g->p.quantize_axis = g->qa;
  if (p->kind == CLG_GBQ_UINT8 && (g->ga != 0 || g->qa != r - 1))
    return clg__fail(CLG_ERROR_INVALID_AXIS,
                     "CLG_GBQ_UINT8 data takes gather_axis 0 and "
                     "quantize_axis the last (%d) (ONNX Runtime's rule); "
                     "got gather_axis %" PRId64 ", quantize_axis %" PRId64,
                     (int)(r - 1), params->gather_axis, params->quantize_axis);
  /* Sizes. */
  int64_t numel, tail = 1;
  if ((st = gbq_numel("data", r, g->values, &numel)) != CLG_SUCCESS ||
      (st = gbq_numel("indices", indices->rank, indices->shape, &g->n)) !=
          CLG_SUCCESS)
    return st;
  g->data_bytes =
      p->kind == CLG_GBQ_UINT8 && !four ? (size_t)numel
      : p->kind == CLG_GBQ_UINT8        ? (size_t)numel / 2
                                        : (size_t)(numel / 2 + numel % 2);
  g->s = g->values[g->ga];
  g->q_len = g->values[g->qa];
  g->nb = g->q_len / p->block_size + (g->q_len % p->block_size != 0);
  for (int32_t d = g->ga + 1; d < r; ++d)
    tail *= g->values[d]; /* at most numel */
  g->inner = tail;
  tail = 1;
  for (int32_t d = g->qa + 1; d < r; ++d)
    tail *= g->values[d];
  g->n_after = tail;
  /* Scales: V with nb on the quantize axis. */
  int64_t want[CLG_MAX_RANK];
  memcpy(want, g->values, (size_t)r * sizeof *want);
  want[g->qa] = g->nb;
  char why[96];
  snprintf(why, sizeof why, "data's values with ceil(%" PRId64 " / %" PRId64
           ") on quantize_axis %d", g->q_len, p->block_size, (int)g->qa);
  if ((st = gbq_check_shape(CLG_ERROR_INCOMPATIBLE_SHAPES, "scales", scales, r,
                            want, why)) != CLG_SUCCESS)
    return st;
  int64_t nscales = 0;
  (void)gbq_numel("scales", r, want, &nscales); /* at most numel */
  /* Zero points: scales' shape (uint8 bits 4: ceil(nb / 2) bytes a row). */
  if (zero_points) {
    int64_t zs[CLG_MAX_RANK];
    memcpy(zs, want, (size_t)r * sizeof *zs);
    if (p->kind == CLG_GBQ_UINT8 && four) {
      g->zp_row = g->nb / 2 + g->nb % 2;
      zs[r - 1] = g->zp_row;
      snprintf(why, sizeof why, "scales' with ceil(%" PRId64 " / 2) bytes "
               "on the last axis: two zero points a byte",
               g->nb);
    } else
      snprintf(why, sizeof why, "scales' shape");
    if ((st = gbq_check_shape(CLG_ERROR_INCOMPATIBLE_SHAPES, "zero_points",
                              zero_points, r, zs, why)) != CLG_SUCCESS)
      return st;
    if (g->nb == 0) /* no block: no byte */
      g->zp_bytes = 0;
    else if (p->kind == CLG_GBQ_UINT8 && four)
      g->zp_bytes = (size_t)(nscales / g->nb * g->zp_row);
    else if (p->kind == CLG_GBQ_UINT8)
      g->zp_bytes = (size_t)nscales;
    else
      g->zp_bytes = (size_t)(nscales / 2 + nscales % 2);
  }
  /* Output: V[:ga] + indices' shape + V[ga+1:]. */
  int32_t orank = r - 1 + indices->rank;
  if (orank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "the output would have rank %d (data's %d - 1 + "
                     "indices' %d), above CLG_MAX_RANK %d",
                     (int)orank, (int)r, (int)indices->rank, CLG_MAX_RANK);
  int64_t oshape[CLG_MAX_RANK];
  int32_t k = 0;
  for (int32_t d = 0; d < g->ga; ++d)
    oshape[k++] = g->values[d];
  for (int32_t d = 0; d < indices->rank; ++d)
    oshape[k++] = indices->shape[d];
  for (int32_t d = g->ga + 1; d < r; ++d)
    oshape[k++] = g->values[d];
  int64_t ocount;
  if ((st = gbq_numel("output", orank, oshape, &ocount)) != CLG_SUCCESS)
    return st;
  g->count = (size_t)ocount;
  return gbq_check_shape(CLG_ERROR_SHAPE_MISMATCH, "output", output, orank,
                         oshape, "data's values' shape with indices' in "
                                 "place of gather_axis");
}

/* The index rule, Gather's on the gather axis: `data` describes the
 * values' shape and norm->axis is the gather axis (clg__gbq_rule()). */
static size_t gbq_bounds(const clg_params *norm, const clg_tensor *data,
                         const clg_tensor *indices, int64_t *s) {
  (void)indices;
  s[0] = data->shape[norm->axis];
  return 1;
}

static clg_status gbq_report(const clg_params *norm, const clg_tensor *data,
                             const clg_tensor *indices, size_t pos,
                             int64_t value) {
  return clg__report_index_oob(pos, value, indices->rank, indices->shape,
                               data->shape[norm->axis], (int32_t)norm->axis);
}

/* clg_supported()'s rule on ranks. */
static bool gbq_supported(int32_t data_rank, int32_t indices_rank) {
  return data_rank - 1 + indices_rank <= CLG_MAX_RANK;
}

/* The registry's entry (ops/operators.def): clg_supported()'s rule, and
 * the index rule the family's index pass, validation kernel and outcomes
 * take (clg__gbq_rule). clg_params cannot hold the operator
 * (CLG_PARAM_GBQ: clg_run() and the others refuse it by the registry's
 * flag). */
const clg_op_impl clg__op_gather_block_quantized = {
    .supported = gbq_supported,
    .bounds = gbq_bounds,
    .report = gbq_report,
};

void clg__gbq_rule(const clg_gbq_geom *g, const clg_tensor *indices,
                   const clg_tensor_facts *xf, size_t host_threads,
                   clg_checked *c, clg_tensor *values) {
  memset(c, 0, sizeof *c);
  c->impl = &clg__op_gather_block_quantized;
  c->norm.mode = CLG_MODE_RAISE;
  c->norm.axis = g->ga;
  c->num_inputs = 2;
  c->host_threads = host_threads;
  c->xf = *xf;
  c->df.elem_size = clg_dtype_size(g->sdtype);
  memset(values, 0, sizeof *values);
  values->dtype = CLG_DTYPE_UINT8;
  values->rank = g->rank;
  memcpy(values->shape, g->values, sizeof values->shape);
  values->storage = indices->storage;
}

clg_status clg__gbq_device_check(clg_context *ctx, const clg_gbq_geom *g) {
  /* The same bits on every device: a float32 product below 2^-126 is
   * subnormal, which a device without CL_FP_DENORM flushes (float16
   * scales round such products to a zero of the same sign anyway). */
  if (g->sdtype != CLG_DTYPE_FLOAT)
    return CLG_SUCCESS;
  cl_device_fp_config fp = 0;
  clg_status st = clg__fp_config(ctx, false, &fp);
  if (st != CLG_SUCCESS)
    return st;
  if (!(fp & CL_FP_DENORM))
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "GatherBlockQuantized with float32 scales cannot give "
                     "the promised bits on this device: it flushes "
                     "subnormal floats to zero (CL_DEVICE_SINGLE_FP_CONFIG "
                     "lacks CL_FP_DENORM); float16 scales run there");
  return CLG_SUCCESS;
}

/* The kernel's variants: the output elements a work-item writes
 * (GBQ_CHUNK), one (ITEM: neighbouring work-items write neighbouring
 * bytes, as a GPU wants) or a run of GBQ_RUN (BLOCK: the position's
 * divisions spread over the run, whose stores a CPU's compiler
 * vectorizes). Timed per shape class on the device (clg__gbq_prepare). */
#define GBQ_RUN 128u

static unsigned gbq_chunk(int variant) {
  return variant == CLG_VARIANT_BLOCK ? GBQ_RUN : 1u;
}

clg_status clg__gbq_kernel(clg_context *ctx, const clg_gbq_geom *g,
                           size_t index_size, bool gated, int variant,
                           clg_kernel_entry **kernel) {
  unsigned chunk = gbq_chunk(variant);
  /* Positions in 32 bits where every one fits: data's values (and a
   * block past the last), the output's elements, the work-items. */
  uint64_t nvalues = 1;
  for (int32_t d = 0; d < g->rank; ++d)
    nvalues *= (uint64_t)g->values[d];
  uint64_t runs = g->inner ? (uint64_t)(g->count / (size_t)g->inner) *
                                 (((uint64_t)g->inner + chunk - 1) / chunk)
                           : 0;
  bool narrow = nvalues + (uint64_t)g->p.block_size < UINT32_MAX &&
                (uint64_t)g->count < UINT32_MAX && runs + 64 < UINT32_MAX;
#if defined(CLGATHER_TESTING)
  /* The 64-bit form on the suite's small tensors (ctest's
   * test_gather_block_quantized_wide). */
  if (getenv("CLGATHER_TEST_GBQ_WIDE"))
    narrow = false;
#endif
  char options[240];
  snprintf(options, sizeof options,
           "-DCLG_INDEX=%s -DGBQ_KIND=%u -DGBQ_BITS=%d -DGBQ_HALF=%d "
           "-DGBQ_CHUNK=%u -DGBQ_POS=%s%s%s",
           index_size == 4 ? "int" : "long", (unsigned)g->p.kind,
           (int)g->p.bits, g->sdtype == CLG_DTYPE_FLOAT16 ? 1 : 0, chunk,
           narrow ? "uint" : "ulong", g->zp ? " -DGBQ_ZP" : "",
           gated ? " -DCLG_GATED" : "");
  return clg__get_kernel(ctx, clg_kernel_gather_block_quantized, options,
                         "clg_gather_block_quantized", kernel);
}

/* The kernel call of `variant` (its program built or found first). */
static clg_status gbq_call(clg_context *ctx, const clg_gbq_geom *g,
                           const clg_gbq_mems *m, bool gated, int variant,
                           clg_kernel_call *call) {
  clg_kernel_entry *kernel = NULL;
  clg_status st =
      clg__gbq_kernel(ctx, g, m->index_size, gated, variant, &kernel);
  if (st != CLG_SUCCESS)
    return st;
  unsigned chunk = gbq_chunk(variant);
  size_t ses = clg_dtype_size(g->sdtype);
  cl_ulong data_off = m->data_off, idx_off = m->indices_off / m->index_size,
           sc_off = m->scales_off / ses, zp_off = m->zp_off,
           out_off = m->output_off / ses;
  unsigned shift = 0;
  while (((int64_t)1 << shift) < g->p.block_size)
    ++shift;
  /* inner, n, s, Q * N, N, nb, log2(block_size), runs of a slice */
  uint64_t chunks = ((uint64_t)g->inner + chunk - 1) / chunk;
  cl_ulong8 geo = {{(cl_ulong)g->inner, (cl_ulong)g->n, (cl_ulong)g->s,
                    (cl_ulong)(g->q_len * g->n_after), (cl_ulong)g->n_after,
                    (cl_ulong)g->nb, shift, chunks}};
  cl_ulong zp_row = (cl_ulong)g->zp_row;
  /* slices: the output's elements over a slice's (count > 0: inner > 0) */
  cl_ulong slices = (cl_ulong)(g->count / (size_t)g->inner);
  cl_mem zp = g->zp ? m->zp : m->scales; /* never read without them */
  const void *values[] = {
      &m->data, &data_off,  &m->indices, &idx_off, &m->scales, &sc_off, &zp,
      &zp_off,  &m->output, &out_off,    &geo,     &zp_row,    &slices};
  const size_t sizes[] = {sizeof(cl_mem), sizeof data_off, sizeof(cl_mem),
                          sizeof idx_off, sizeof(cl_mem),  sizeof sc_off,
                          sizeof(cl_mem), sizeof zp_off,   sizeof(cl_mem),
                          sizeof out_off, sizeof geo,      sizeof zp_row,
                          sizeof slices};
  size_t local = ctx->max_work_group_size < 64 ? ctx->max_work_group_size : 64;
  if (local == 0)
    local = 1;
  size_t items = (size_t)(slices * chunks);
  size_t global = (items + local - 1) / local * local;
  clg__call_set(call, kernel, 13, sizes, values, 1, &global, &local);
  return CLG_SUCCESS;
}

/* A trial of the tuner: one variant, ungated, timed. */
typedef struct gbq_trial_arg {
  clg_context *ctx;
  const clg_gbq_geom *g;
  const clg_gbq_mems *m;
} gbq_trial_arg;

static clg_status gbq_trial(void *arg, int variant, double *seconds) {
  const gbq_trial_arg *t = arg;
  clg_kernel_call call;
  clg_status st = gbq_call(t->ctx, t->g, t->m, false, variant, &call);
  return st == CLG_SUCCESS
             ? clg__time_call(t->ctx, &call, t->m->queue, t->m->num_events,
                              t->m->wait_list, seconds)
             : st;
}

/* The shape class a choice is kept for. */
static void gbq_key(clg_context *ctx, const clg_gbq_geom *g, size_t index_size,
                    char *key, size_t cap) {
  bool cpu = (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) != 0;
  snprintf(key, cap,
           "GatherBlockQuantized inner=2^%u slices=2^%u q_inner=%d kind=%u "
           "bits=%d half=%d zp=%d idx=%zu dev=%d",
           clg__log2((uint64_t)g->inner),
           clg__log2((uint64_t)(g->count / (size_t)g->inner)),
           g->n_after == 1 ? 1 : 0, (unsigned)g->p.kind, (int)g->p.bits,
           g->sdtype == CLG_DTYPE_FLOAT16 ? 1 : 0, g->zp ? 1 : 0, index_size,
           cpu ? 1 : 0);
}

clg_status clg__gbq_prepare(clg_context *ctx, const clg_gbq_geom *g,
                            const clg_gbq_mems *m, bool gated,
                            clg_kernel_call *call) {
  /* Both variants on every device, the device type's likely one first;
   * timed once per shape class where the call can run on its own: not
   * gated (a gated synchronous call is told it may time them once its
   * verdict has passed: m->retime). */
  bool cpu = (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) != 0;
  int cands[2] = {cpu ? CLG_VARIANT_BLOCK : CLG_VARIANT_ITEM,
                  cpu ? CLG_VARIANT_ITEM : CLG_VARIANT_BLOCK};
  unsigned allowed = (1u << CLG_VARIANT_ITEM) | (1u << CLG_VARIANT_BLOCK);
  char key[200];
  gbq_key(ctx, g, m->index_size, key, sizeof key);
  /* The call's work: the packed values it reads and the output. */
  size_t work_bytes =
      g->count * clg_dtype_size(g->sdtype) + g->count * (size_t)g->p.bits / 8;
  bool can_time = m->can_time && m->queue && work_bytes >= CLG_TUNE_MIN_BYTES;
  gbq_trial_arg arg = {ctx, g, m};
  clg_choice how;
  bool later = false;
  int variant = clg__tune_pick_gated(ctx, key, cands, 2, allowed,
                                     can_time ? gbq_trial : NULL, &arg, gated,
                                     &later, &how);
  if (later && m->retime)
    *m->retime = true;
  clg_status st = gbq_call(ctx, g, m, gated, variant, call);
  if (st == CLG_SUCCESS)
    clg__tune_note(ctx, variant, how);
  return st;
}
