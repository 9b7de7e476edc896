/* EmbeddingBag's kernel calls (kernels/embedding_bag.cl): what the device
 * must offer for the definition's bits, the reduction's variants ITEM,
 * BLOCK and VEC timed per shape class (device/tune.c), the checks on the device
 * and the segments' starts. Its rules are ops/embedding_bag.c's. */
#include "device/tune.h"
#include "ops/embedding_bag.h"

#include <inttypes.h>
#include <stdio.h>

/* Work-items per work-group: columns of a bag, times bags. */
#define BAG_LOCAL 64
/* Columns per work-item of variant BLOCK (CLG_BAG_BLOCK in the kernel). */
#define BAG_BLOCK 64

static const char *const bag_mode_names[] = {"sum", "mean", "max", "sqrt_n"};

static bool bag_has_fp64(clg_context *ctx) {
  char ext[4096] = {0};
  return clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, sizeof ext - 1,
                         ext, NULL) == CL_SUCCESS &&
         strstr(ext, "cl_khr_fp64") != NULL;
}

/* What the device must offer for the definition's bits: doubles
 * (cl_khr_fp64) for float64; for float arithmetic, subnormals kept
 * (float32 and bfloat16 values may be subnormal floats; float16's never
 * are) and, for mean and sqrt_n, a correctly rounded division and square
 * root: the device's own (*div_double false) or, failing that, through
 * doubles (*div_double true). */
static clg_status bag_device_can(clg_context *ctx, const clg_bag_geom *g,
                                  bool *div_double) {
  const char *type = clg_dtype_name(g->dtype);
  *div_double = false;
  if (g->dtype == CLG_DTYPE_DOUBLE) {
    if (!bag_has_fp64(ctx))
      return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                       "EmbeddingBag on float64 needs doubles, which the "
                       "device lacks (no cl_khr_fp64)");
    return CLG_SUCCESS;
  }
  cl_device_fp_config fp = 0;
  clg_status st = clg__fp_config(ctx, false, &fp);
  if (st != CLG_SUCCESS)
    return st;
  if (g->dtype != CLG_DTYPE_FLOAT16 && !(fp & CL_FP_DENORM))
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "EmbeddingBag on %s cannot give the promised bits on "
                     "this device: it flushes subnormal floats to zero "
                     "(CL_DEVICE_SINGLE_FP_CONFIG lacks CL_FP_DENORM)",
                     type);
  bool divides =
      g->p.mode == CLG_BAG_MEAN || g->p.mode == CLG_BAG_SQRT_N;
  if (!divides || (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT))
    return CLG_SUCCESS;
  if (bag_has_fp64(ctx)) {
    *div_double = true;
    return CLG_SUCCESS;
  }
  return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                   "EmbeddingBag mode %s on %s needs a correctly rounded "
                   "division and square root, which the device lacks "
                   "(CL_DEVICE_SINGLE_FP_CONFIG without "
                   "CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, and no cl_khr_fp64 "
                   "to divide through doubles)",
                   bag_mode_names[g->p.mode], type);
}

static size_t bag_pow2_at_least(uint64_t v, size_t cap) {
  size_t p = 1;
  while (p < v && p < cap)
    p *= 2;
  return p;
}

/* Variant VEC's columns per work-item: the widest vector of 4, 8 or 16
 * elements that divides dim and spans at most a cache line (64 bytes);
 * quantized rows: 16 where it divides dim (their codes unpacked into a
 * float16); 0 where none does (no VEC candidate). */
static unsigned bag_vec_width(const clg_bag_geom *g) {
  if (g->p.weight_format != CLG_BAG_WEIGHT_DENSE)
    return g->dim % 16 == 0 ? 16 : 0; /* clg_embedding_bag_q_vec's */
  size_t es = clg_dtype_size(g->dtype);
  for (unsigned w = 16; w >= 4; w /= 2)
    if ((uint64_t)g->dim % w == 0 && w * es <= 64)
      return w;
  return 0;
}

/* The reduction's program: its build options. */
static void bag_options(const clg_bag_geom *g, const clg_bag_mems *m,
                        bool gated, bool div_double, char *options,
                        size_t cap) {
  int kind = g->p.weight_format != CLG_BAG_WEIGHT_DENSE ? 5
             : g->dtype == CLG_DTYPE_FLOAT              ? 1
             : g->dtype == CLG_DTYPE_FLOAT16            ? 2
             : g->dtype == CLG_DTYPE_BFLOAT16           ? 3
                                                        : 4;
  bool divides = g->p.mode == CLG_BAG_MEAN || g->p.mode == CLG_BAG_SQRT_N;
  snprintf(options, cap,
           "-DCLG_INDEX=%s -DCLG_BAG_INDEX=%s -DCLG_BAG_KIND=%d "
           "-DCLG_BAG_QFMT=%u -DCLG_BAG_MODE=%d -DCLG_BAG_PSW=%d "
           "-DCLG_BAG_FIXED=%d -DCLG_BAG_PAD=%d -DCLG_BAG_DIV_DOUBLE=%d "
           "-DCLG_BAG_VEC=%u%s%s",
           m->index_size == 4 ? "int" : "long",
           m->bags_size == 4 ? "int" : "long", kind,
           (unsigned)g->p.weight_format, (int)g->p.mode, g->psw ? 1 : 0,
           g->p.form == CLG_BAGS_FIXED ? 1 : 0, g->p.padding_idx >= 0 ? 1 : 0,
           div_double ? 1 : 0, bag_vec_width(g), gated ? " -DCLG_GATED" : "",
           divides && kind != 4 && !div_double
               ? " -cl-fp32-correctly-rounded-divide-sqrt"
               : "");
}

/* The kernel of a variant: ITEM, BLOCK or VEC, of dense or quantized
 * rows. */
static const char *bag_kernel_name(const clg_bag_geom *g, int variant) {
  bool q = g->p.weight_format != CLG_BAG_WEIGHT_DENSE;
  return variant == CLG_VARIANT_BLOCK
             ? (q ? "clg_embedding_bag_q_block" : "clg_embedding_bag_block")
         : variant == CLG_VARIANT_ITEM_PF
             ? (q ? "clg_embedding_bag_q_vec" : "clg_embedding_bag_vec")
         : q ? "clg_embedding_bag_q"
             : "clg_embedding_bag";
}

/* The kernel call of variant ITEM (one work-item per output element),
 * BLOCK (one per bag and block of 64 columns) or VEC (CLG_VARIANT_ITEM_PF:
 * one per bag and vector of columns, prefetching). */
static clg_status bag_call(clg_context *ctx, const clg_bag_geom *g,
                           const clg_bag_mems *m, bool gated, bool div_double,
                           int variant, clg_kernel_call *call) {
  char options[320];
  bag_options(g, m, gated, div_double, options, sizeof options);
  bool block = variant == CLG_VARIANT_BLOCK;
  unsigned vec = variant == CLG_VARIANT_ITEM_PF ? bag_vec_width(g) : 0;
  clg_kernel_entry *kernel = NULL;
  clg_status st = clg__get_kernel(ctx, clg_kernel_embedding_bag, options,
                                  bag_kernel_name(g, variant), &kernel);
  if (st != CLG_SUCCESS)
    return st;
  /* Offsets in elements: the weight's own (bytes for quantized rows). */
  size_t es = clg_dtype_size(g->dtype), wes = clg_dtype_size(g->wdtype);
  cl_ulong wo = m->w_off / wes, xo = m->x_off / m->index_size,
           bo = m->b_off / m->bags_size, po = m->p_off / es, oo = m->o_off / es;
  /* Row pitches: dense rows unless a column block says otherwise. */
  cl_ulong w_ld = (cl_ulong)(m->w_ld ? m->w_ld : g->wcols),
           o_ld = (cl_ulong)(m->o_ld ? m->o_ld : g->dim);
  cl_ulong dim = (cl_ulong)g->dim, fixed = (cl_ulong)g->fixed,
           n = (cl_ulong)g->n, bags_len = (cl_ulong)m->bags_len,
           bags = (cl_ulong)g->num_bags;
  cl_long padding = g->p.padding_idx;
  size_t cap = ctx->max_work_group_size < BAG_LOCAL ? ctx->max_work_group_size
                                                    : BAG_LOCAL;
  if (cap == 0)
    cap = 1;
  /* ITEM and VEC: work-groups of BAG_LOCAL work-items (at most the
   * device's), the columns (vectors) of one bag first, then as many bags as
   * fill it. BLOCK: a work-item per (block, bag), in work-groups of one (a
   * CPU's). */
  uint64_t cols = block ? (dim + BAG_BLOCK - 1) / BAG_BLOCK
                  : vec ? dim / vec
                        : dim;
  size_t l0 = block ? 1 : bag_pow2_at_least(cols, cap);
  while (l0 > cap)
    l0 /= 2;
  size_t l1 = block ? 1 : cap / l0;
  if (l1 > bags)
    l1 = bag_pow2_at_least(bags, l1);
  size_t local[2] = {l0, l1};
  size_t global[2] = {(size_t)((cols + l0 - 1) / l0 * l0),
                      (size_t)((bags + l1 - 1) / l1 * l1)};
  const void *values[] = {&m->weight, &wo,      &dim,    &w_ld,    &m->indices,
                          &xo,        &n,       &fixed,  &m->bags, &bo,
                          &bags_len,  &m->psw,  &po,     &m->output, &oo,
                          &o_ld,      &padding, &bags};
  const size_t sizes[] = {sizeof(cl_mem), sizeof wo,       sizeof dim,
                          sizeof w_ld,    sizeof(cl_mem),  sizeof xo,
                          sizeof n,       sizeof fixed,    sizeof(cl_mem),
                          sizeof bo,      sizeof bags_len, sizeof(cl_mem),
                          sizeof po,      sizeof(cl_mem),  sizeof oo,
                          sizeof o_ld,    sizeof padding,  sizeof bags};
  clg__call_set(call, kernel, 18, sizes, values, 2, global, local);
  return CLG_SUCCESS;
}

typedef struct bag_trial_arg {
  clg_context *ctx;
  const clg_bag_geom *g;
  const clg_bag_mems *m;
  bool div_double;
  bool first_done; /* m->first has run */
} bag_trial_arg;

static clg_status bag_trial(void *arg, int variant, double *seconds) {
  bag_trial_arg *t = arg;
  clg_kernel_call call;
  clg_status st = CLG_SUCCESS;
  if (t->m->first && !t->first_done) {
    /* The bags put in place once, after the wait list, waited for. */
    cl_event ev = NULL;
    st = clg__call_launch(t->m->first, t->m->queue, NULL, t->m->num_events,
                          t->m->wait_list, &ev);
    if (st == CLG_SUCCESS) {
      cl_int err = clWaitForEvents(1, &ev);
      if (err != CL_SUCCESS)
        st = clg__fail_cl(err, "clWaitForEvents",
                          "placing the bags of an EmbeddingBag trial");
    }
    if (ev)
      clReleaseEvent(ev);
    if (st != CLG_SUCCESS)
      return st;
    t->first_done = true;
  }
  st = bag_call(t->ctx, t->g, t->m, false, t->div_double, variant, &call);
  return st == CLG_SUCCESS
             ? clg__time_call(t->ctx, &call, t->m->queue, t->m->num_events,
                              t->m->wait_list, seconds)
             : st;
}

clg_status clg__bag_prepare(clg_context *ctx, const clg_bag_geom *g,
                            const clg_bag_mems *m, bool gated,
                            clg_kernel_call *call) {
  bool div_double = false;
  clg_status st = bag_device_can(ctx, g, &div_double);
  if (st != CLG_SUCCESS)
    return st;
  /* Every variant on every device (VEC where a vector width divides dim),
   * the device type's likely one first; timed (device/tune.c) once per
   * shape class where the call can be run on its own: not gated (a gated
   * synchronous call is told it may time them once its verdict has
   * passed: m->retime), and its bags already in place. */
  bool cpu = (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) != 0;
  bool vec = bag_vec_width(g) != 0;
  int cands[3], count = 0;
  if (cpu && vec)
    cands[count++] = CLG_VARIANT_ITEM_PF;
  cands[count++] = cpu ? CLG_VARIANT_BLOCK : CLG_VARIANT_ITEM;
  cands[count++] = cpu ? CLG_VARIANT_ITEM : CLG_VARIANT_BLOCK;
  if (!cpu && vec)
    cands[count++] = CLG_VARIANT_ITEM_PF;
  unsigned allowed = (1u << CLG_VARIANT_ITEM) | (1u << CLG_VARIANT_BLOCK) |
                     (vec ? 1u << CLG_VARIANT_ITEM_PF : 0u);
  uint64_t per_bag = g->num_bags ? (uint64_t)g->n / (uint64_t)g->num_bags : 0;
  char key[160];
  snprintf(key, sizeof key,
           "EmbeddingBag dim=2^%u bags=2^%u per_bag=2^%u elem=%zu fmt=%u "
           "mode=%d psw=%d pad=%d vec=%u dev=%d",
           clg__log2((uint64_t)g->dim), clg__log2((uint64_t)g->num_bags),
           clg__log2(per_bag), clg_dtype_size(g->dtype),
           (unsigned)g->p.weight_format, (int)g->p.mode, g->psw ? 1 : 0,
           g->p.padding_idx >= 0 ? 1 : 0, bag_vec_width(g), cpu ? 1 : 0);
  bag_trial_arg arg = {ctx, g, m, div_double, false};
  /* The call's work is the rows it reads and writes (a bag of many
   * entries writes one row): timed where those reach the tuner's minimum,
   * as a gather's output does. */
  size_t work_bytes =
      (size_t)g->n * (size_t)g->wcols * clg_dtype_size(g->wdtype) +
      (size_t)g->num_bags * (size_t)g->dim * clg_dtype_size(g->dtype);
  bool can_time =
      m->can_time && m->queue && work_bytes >= CLG_TUNE_MIN_BYTES;
  clg_choice how;
  bool later = false;
  int variant = clg__tune_pick_gated(ctx, key, cands, count, allowed,
                                     can_time ? bag_trial : NULL, &arg, gated,
                                     &later, &how);
  if (later && m->retime)
    *m->retime = true;
  st = bag_call(ctx, g, m, gated, div_double, variant, call);
  if (st == CLG_SUCCESS)
    clg__tune_note(ctx, variant, how);
  return st;
}

/* The checks' program: indices' and bags' types, the form. */
static clg_status bag_checks_kernel(clg_context *ctx, const clg_bag_geom *g,
                                    const clg_bag_mems *m, bool gated,
                                    const char *name, clg_kernel_entry **k) {
  char options[160];
  snprintf(options, sizeof options,
           "-DCLG_INDEX=%s -DCLG_BAG_INDEX=%s -DCLG_BAG_FORM=%d "
           "-DCLG_BAG_LAST=%d%s",
           m->index_size == 4 ? "int" : "long",
           m->bags_size == 4 ? "int" : "long", (int)g->p.form,
           (g->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET) ? 1 : 0,
           gated ? " -DCLG_GATED" : "");
  return clg__get_kernel(ctx, clg_kernel_embedding_bag, options, name, k);
}

clg_status clg__bag_checks(clg_context *ctx, const clg_bag_geom *g,
                           const clg_bag_mems *m, cl_mem verdict, cl_uint gen,
                           clg_kernel_calls *calls) {
  clg_kernel_entry *validate = NULL, *values = NULL;
  clg_status st = bag_checks_kernel(ctx, g, m, false, "clg_bag_validate",
                                    &validate);
  if (st == CLG_SUCCESS)
    st = bag_checks_kernel(ctx, g, m, false, "clg_bag_verdict_values",
                           &values);
  if (st != CLG_SUCCESS)
    return st;
  cl_ulong xo = m->x_off / m->index_size, bo = m->b_off / m->bags_size;
  cl_ulong n = (cl_ulong)g->n, bags_len = (cl_ulong)m->bags_len;
  cl_long rows = g->rows, num_bags = g->num_bags;
  uint64_t items = n > bags_len ? n : bags_len;
  size_t local = ctx->max_work_group_size < BAG_LOCAL
                     ? ctx->max_work_group_size
                     : BAG_LOCAL;
  if (local == 0)
    local = 1;
  size_t global = (size_t)((items + local - 1) / local * local);
  const void *v1[] = {&m->indices, &xo,   &n,        &m->bags, &bo,
                      &bags_len,   &rows, &num_bags, &verdict, &gen};
  const size_t s1[] = {sizeof(cl_mem), sizeof xo,   sizeof n,
                       sizeof(cl_mem), sizeof bo,   sizeof bags_len,
                       sizeof rows,    sizeof num_bags, sizeof(cl_mem),
                       sizeof gen};
  clg__call_set(&calls->call[calls->count++], validate, 10, s1, v1, 1, &global,
                &local);
  size_t one = 1;
  const void *v2[] = {&m->indices, &xo, &m->bags, &bo, &verdict};
  const size_t s2[] = {sizeof(cl_mem), sizeof xo, sizeof(cl_mem), sizeof bo,
                       sizeof(cl_mem)};
  clg__call_set(&calls->call[calls->count++], values, 5, s2, v2, 1, &one,
                &one);
  return CLG_SUCCESS;
}

clg_status clg__bag_starts(clg_context *ctx, const clg_bag_geom *g,
                           const clg_bag_mems *m, cl_mem starts, bool gated,
                           clg_kernel_call *call) {
  clg_kernel_entry *k = NULL;
  clg_status st =
      bag_checks_kernel(ctx, g, m, gated, "clg_bag_segment_starts", &k);
  if (st != CLG_SUCCESS)
    return st;
  cl_ulong bo = m->b_off / m->bags_size, n = (cl_ulong)g->n;
  cl_long num_bags = g->num_bags;
  size_t local = ctx->max_work_group_size < BAG_LOCAL
                     ? ctx->max_work_group_size
                     : BAG_LOCAL;
  if (local == 0)
    local = 1;
  size_t global = (size_t)((n + local - 1) / local * local);
  const void *v[] = {&m->bags, &bo, &n, &num_bags, &starts};
  const size_t sz[] = {sizeof(cl_mem), sizeof bo, sizeof n, sizeof num_bags,
                       sizeof(cl_mem)};
  clg__call_set(call, k, 5, sz, v, 1, &global, &local);
  return CLG_SUCCESS;
}

clg_status clg__bag_device_check(clg_context *ctx, const clg_bag_geom *g) {
  bool div_double = false;
  return bag_device_can(ctx, g, &div_double);
}

clg_status clg__bag_bake(clg_context *ctx, const clg_bag_geom *g,
                         size_t index_size, size_t bags_size, bool checks,
                         bool reduce, bool gated) {
  clg_bag_mems m = {.index_size = index_size, .bags_size = bags_size};
  clg_kernel_entry *k = NULL;
  clg_status st = CLG_SUCCESS;
  bool segments = g->p.form == CLG_BAGS_SEGMENT_IDS;
  if (checks) {
    st = bag_checks_kernel(ctx, g, &m, false, "clg_bag_validate", &k);
    if (st == CLG_SUCCESS)
      st = bag_checks_kernel(ctx, g, &m, false, "clg_bag_verdict_values", &k);
    if (st == CLG_SUCCESS && segments && reduce)
      st = bag_checks_kernel(ctx, g, &m, gated, "clg_bag_segment_starts", &k);
  }
  if (st != CLG_SUCCESS || !reduce)
    return st;
  /* The reduction reads the segments' starts (int64), not their ids. */
  if (segments)
    m.bags_size = 8;
  bool div_double = false;
  if ((st = bag_device_can(ctx, g, &div_double)) != CLG_SUCCESS)
    return st;
  char options[320];
  bag_options(g, &m, gated, div_double, options, sizeof options);
  st = clg__get_kernel(ctx, clg_kernel_embedding_bag, options,
                       bag_kernel_name(g, CLG_VARIANT_ITEM), &k);
  if (st == CLG_SUCCESS)
    st = clg__get_kernel(ctx, clg_kernel_embedding_bag, options,
                         bag_kernel_name(g, CLG_VARIANT_BLOCK), &k);
  if (st == CLG_SUCCESS && bag_vec_width(g) != 0)
    st = clg__get_kernel(ctx, clg_kernel_embedding_bag, options,
                         bag_kernel_name(g, CLG_VARIANT_ITEM_PF), &k);
  return st;
}
