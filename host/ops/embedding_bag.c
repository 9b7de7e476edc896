/* EmbeddingBag: PyTorch's embedding_bag, TensorFlow's sparse segment
 * reductions (include/clgather/clgather_bag.h, the semantics). Its rules
 * on descriptors and on values, and its kernel (kernels/embedding_bag.cl);
 * the call's steps are run/embedding_bag.c's. */
#include "ops/embedding_bag.h"
#include "device/tune.h"

#include <inttypes.h>
#include <stdio.h>

/* Work-items per work-group: columns of a bag, times bags. */
#define BAG_LOCAL 64
/* Columns per work-item of variant BLOCK (CLG_BAG_BLOCK in the kernel). */
#define BAG_BLOCK 64

static const char *const bag_mode_names[] = {"sum", "mean", "max", "sqrt_n"};

static bool embedding_bag_supported(int32_t data_rank, int32_t indices_rank) {
  return data_rank == 2 && (indices_rank == 1 || indices_rank == 2);
}

const clg_op_impl clg__op_embedding_bag = {
    .supported = embedding_bag_supported,
};

static clg_status bag_check_params(const clg_bag_params *p) {
  if ((unsigned)p->mode > CLG_BAG_SQRT_N)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown EmbeddingBag mode %d (expected CLG_BAG_SUM, "
                     "CLG_BAG_MEAN, CLG_BAG_MAX or CLG_BAG_SQRT_N)",
                     (int)p->mode);
  if ((unsigned)p->form > CLG_BAGS_SEGMENT_IDS)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown EmbeddingBag form %d (expected "
                     "CLG_BAGS_OFFSETS, CLG_BAGS_FIXED or "
                     "CLG_BAGS_SEGMENT_IDS)",
                     (int)p->form);
  if (p->flags & ~(CLG_BAG_INCLUDE_LAST_OFFSET | CLG_BAG_PADDING_IDX))
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown EmbeddingBag flags 0x%x",
                     p->flags & ~(CLG_BAG_INCLUDE_LAST_OFFSET |
                                  CLG_BAG_PADDING_IDX));
  if (p->reserved != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "clg_bag_params.reserved must be 0 (got %u)",
                     (unsigned)p->reserved);
  if ((p->flags & CLG_BAG_INCLUDE_LAST_OFFSET) &&
      p->form != CLG_BAGS_OFFSETS)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "CLG_BAG_INCLUDE_LAST_OFFSET needs bags given by offsets "
                     "(CLG_BAGS_OFFSETS)");
  return CLG_SUCCESS;
}

static clg_status bag_rank(const char *name, const clg_tensor *t,
                           int32_t rank, const char *why) {
  if (t->rank == rank)
    return CLG_SUCCESS;
  return clg__fail(CLG_ERROR_INVALID_RANK,
                   "%s has rank %d; EmbeddingBag needs %s of rank %d (%s)",
                   name, (int)t->rank, name, (int)rank, why);
}

static int64_t bag_numel(const clg_tensor *t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->rank; ++d)
    n *= t->shape[d]; /* clg__check_tensor() checked the product */
  return n;
}

clg_status clg__bag_check_types(const clg_bag_params *params,
                                const clg_tensor *weight,
                                const clg_tensor *indices,
                                const clg_tensor *bags, const clg_tensor *psw,
                                const clg_tensor *output) {
  static const clg_bag_params defaults = {0};
  const clg_bag_params *p = params ? params : &defaults;
  clg_status st = bag_check_params(p);
  if (st != CLG_SUCCESS)
    return st;
  if (weight->dtype != CLG_DTYPE_FLOAT && weight->dtype != CLG_DTYPE_FLOAT16 &&
      weight->dtype != CLG_DTYPE_BFLOAT16 && weight->dtype != CLG_DTYPE_DOUBLE)
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "weight has element type %s; EmbeddingBag takes float32, "
                     "float16, bfloat16 or float64",
                     clg_dtype_name(weight->dtype));
  if (indices->dtype != CLG_DTYPE_INT32 && indices->dtype != CLG_DTYPE_INT64)
    return clg__fail(CLG_ERROR_INVALID_INDICES_DTYPE,
                     "indices has element type %s; EmbeddingBag takes int32 "
                     "or int64 indices",
                     clg_dtype_name(indices->dtype));
  const char *bname =
      p->form == CLG_BAGS_SEGMENT_IDS ? "segment_ids" : "offsets";
  if (p->form == CLG_BAGS_FIXED && bags)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "bags must be NULL for fixed-size bags "
                     "(CLG_BAGS_FIXED: indices [B, L])");
  if (p->form != CLG_BAGS_FIXED && !bags)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                     "bags (%s) is NULL; EmbeddingBag's %s form takes them",
                     bname, p->form == CLG_BAGS_OFFSETS ? "offsets"
                                                        : "segment-ids");
  if (bags && bags->dtype != CLG_DTYPE_INT32 && bags->dtype != CLG_DTYPE_INT64)
    return clg__fail(CLG_ERROR_INVALID_INDICES_DTYPE,
                     "%s has element type %s; EmbeddingBag takes int32 or "
                     "int64 %s",
                     bname, clg_dtype_name(bags->dtype), bname);
  if (psw && psw->dtype != weight->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "per_sample_weights has element type %s but weight has "
                     "%s; they must agree",
                     clg_dtype_name(psw->dtype), clg_dtype_name(weight->dtype));
  if (output->dtype != weight->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "output has element type %s but weight has %s; "
                     "EmbeddingBag's output has weight's type",
                     clg_dtype_name(output->dtype),
                     clg_dtype_name(weight->dtype));
  if (psw && p->mode != CLG_BAG_SUM)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "per_sample_weights are taken with mode sum only (as "
                     "PyTorch), not with mode %s",
                     bag_mode_names[p->mode]);
  return CLG_SUCCESS;
}

clg_status clg__bag_check_shapes(const clg_bag_params *params,
                                 const clg_tensor *weight,
                                 const clg_tensor *indices,
                                 const clg_tensor *bags,
                                 const clg_tensor *psw,
                                 const clg_tensor *output, clg_bag_geom *g) {
  static const clg_bag_params defaults = {0};
  const clg_bag_params *p = params ? params : &defaults;
  const char *bname =
      p->form == CLG_BAGS_SEGMENT_IDS ? "segment_ids" : "offsets";
  memset(g, 0, sizeof *g);
  g->p = *p;
  g->dtype = weight->dtype;
  clg_status st = bag_rank("weight", weight, 2, "[num_embeddings, dim]");
  if (st != CLG_SUCCESS)
    return st;
  g->rows = weight->shape[0];
  g->dim = weight->shape[1];
  if (p->form == CLG_BAGS_FIXED)
    st = bag_rank("indices", indices, 2, "fixed-size bags: [B, L]");
  else
    st = bag_rank("indices", indices, 1,
                  p->form == CLG_BAGS_OFFSETS ? "bags by offsets: [N]"
                                              : "bags by segment ids: [N]");
  if (st != CLG_SUCCESS)
    return st;
  if (bags && (st = bag_rank(bname, bags, 1, "a list")) != CLG_SUCCESS)
    return st;
  g->n = bag_numel(indices);
  g->bags_len = bags ? bags->shape[0] : 0;
  g->psw = psw != NULL;
  if (psw) {
    bool same = psw->rank == indices->rank;
    for (int32_t d = 0; same && d < indices->rank; ++d)
      same = psw->shape[d] == indices->shape[d];
    if (!same) {
      char ps[512], is[512];
      clg__format_shape(ps, sizeof ps, psw->rank, psw->shape);
      clg__format_shape(is, sizeof is, indices->rank, indices->shape);
      return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                       "per_sample_weights has shape %s but indices has %s; "
                       "they must agree (one weight per entry)",
                       ps, is);
    }
  }
  switch (p->form) {
  case CLG_BAGS_OFFSETS:
    if (p->flags & CLG_BAG_INCLUDE_LAST_OFFSET) {
      if (g->bags_len == 0)
        return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                         "offsets has no entry; with include_last_offset it "
                         "holds B + 1 offsets, the last one N");
      g->num_bags = g->bags_len - 1;
    } else
      g->num_bags = g->bags_len;
    break;
  case CLG_BAGS_FIXED:
    g->num_bags = indices->shape[0];
    g->fixed = indices->shape[1];
    break;
  default:
    if (g->bags_len != g->n)
      return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                       "segment_ids has %" PRId64 " entries but indices has "
                       "%" PRId64 "; one segment id per index",
                       g->bags_len, g->n);
    if (output->rank < 1)
      return clg__fail(CLG_ERROR_SHAPE_MISMATCH,
                       "output has rank %d; EmbeddingBag's output is "
                       "[num_segments, dim]",
                       (int)output->rank);
    g->num_bags = output->shape[0];
  }
  int64_t want[2] = {g->num_bags, g->dim};
  if (output->rank != 2 || output->shape[0] != want[0] ||
      output->shape[1] != want[1]) {
    char os[512], ws[512];
    clg__format_shape(os, sizeof os, output->rank, output->shape);
    clg__format_shape(ws, sizeof ws, 2, want);
    return clg__fail(CLG_ERROR_SHAPE_MISMATCH,
                     "output has shape %s; EmbeddingBag with these bags makes "
                     "%s ([bags, dim])",
                     os, ws);
  }
  g->p.padding_idx = -1;
  if (p->flags & CLG_BAG_PADDING_IDX) {
    if (p->padding_idx < -g->rows || p->padding_idx >= g->rows)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "padding_idx %" PRId64 " is outside [%" PRId64
                       ", %" PRId64 "] for weight of %" PRId64 " rows",
                       p->padding_idx, -g->rows, g->rows - 1, g->rows);
    g->p.padding_idx =
        p->padding_idx < 0 ? p->padding_idx + g->rows : p->padding_idx;
  }
  return CLG_SUCCESS;
}

/* The first fault of the offsets at position b (value v, the one before
 * prev: 0 at b = 0), as the host's pass finds it; false if none there. */
static bool bag_offset_fault(const clg_bag_geom *g, int64_t b, int64_t v,
                             int64_t prev, clg_bag_fault *f) {
  int kind = b == 0 && v != 0 ? CLG_BAG_FAULT_FIRST
             : v < prev       ? CLG_BAG_FAULT_DECREASING
             : v > g->n       ? CLG_BAG_FAULT_PAST
             : (g->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET) &&
                     b + 1 == g->bags_len && v != g->n
                 ? CLG_BAG_FAULT_LAST
                 : CLG_BAG_FAULT_NONE;
  *f = (clg_bag_fault){kind, b, v, prev};
  return kind != CLG_BAG_FAULT_NONE;
}

/* The same for segment ids at position i. */
static bool bag_segment_fault(const clg_bag_geom *g, int64_t i, int64_t v,
                              int64_t prev, clg_bag_fault *f) {
  int kind = v < 0 || v >= g->num_bags ? CLG_BAG_FAULT_SEGMENT
             : v < prev                ? CLG_BAG_FAULT_DECREASING
                                       : CLG_BAG_FAULT_NONE;
  *f = (clg_bag_fault){kind, i, v, prev};
  return kind != CLG_BAG_FAULT_NONE;
}

static bool bag_index_fault(const clg_bag_geom *g, int64_t i, int64_t v,
                            clg_bag_fault *f) {
  int kind = v < 0 || v >= g->rows ? CLG_BAG_FAULT_INDEX : CLG_BAG_FAULT_NONE;
  *f = (clg_bag_fault){kind, i, v, 0};
  return kind != CLG_BAG_FAULT_NONE;
}

bool clg__bag_find_fault(const clg_bag_geom *g, const void *indices,
                         size_t index_size, const void *bags,
                         size_t bags_size, int64_t *starts, clg_bag_fault *f) {
  int64_t prev = 0;
  for (int64_t b = 0; b < g->bags_len; ++b) {
    int64_t v = clg__index_at(bags, bags_size, (size_t)b);
    if (g->p.form == CLG_BAGS_OFFSETS ? bag_offset_fault(g, b, v, prev, f)
                                      : bag_segment_fault(g, b, v, prev, f))
      return true;
    prev = v;
  }
  if (starts && g->p.form == CLG_BAGS_SEGMENT_IDS) {
    /* Segment s starts at the first entry whose id is >= s. */
    int64_t s = 0;
    for (int64_t i = 0; i < g->n; ++i)
      for (int64_t v = clg__index_at(bags, bags_size, (size_t)i); s <= v; ++s)
        starts[s] = i;
    for (; s <= g->num_bags; ++s)
      starts[s] = g->n;
  }
  for (int64_t i = 0; i < g->n; ++i)
    if (bag_index_fault(g, i, clg__index_at(indices, index_size, (size_t)i),
                        f))
      return true;
  f->kind = CLG_BAG_FAULT_NONE;
  return false;
}

void clg__bag_fault_of_verdict(const clg_bag_geom *g, const uint32_t *words,
                               const int64_t *values, clg_bag_fault *f) {
  f->kind = CLG_BAG_FAULT_NONE;
  if (words[1] != UINT32_MAX) {
    if (g->p.form == CLG_BAGS_OFFSETS)
      bag_offset_fault(g, words[1], values[0], values[1], f);
    else
      bag_segment_fault(g, words[1], values[0], values[1], f);
  } else if (words[2] != UINT32_MAX)
    bag_index_fault(g, words[2], values[2], f);
}

clg_status clg__bag_report(const clg_bag_geom *g, const clg_bag_fault *f) {
  int64_t b = f->pos, v = f->value, prev = f->prev;
  const char *name =
      g->p.form == CLG_BAGS_SEGMENT_IDS ? "segment_ids" : "offsets";
  switch (f->kind) {
  case CLG_BAG_FAULT_FIRST:
    return clg__fail(CLG_ERROR_INVALID_BAGS,
                     "offsets[0] is %" PRId64 "; the first bag must start "
                     "at 0",
                     v);
  case CLG_BAG_FAULT_DECREASING:
    return clg__fail(CLG_ERROR_INVALID_BAGS,
                     "%s[%" PRId64 "] is %" PRId64 ", below %s[%" PRId64
                     "] = %" PRId64 "; %s must not decrease",
                     name, b, v, name, b - 1, prev,
                     g->p.form == CLG_BAGS_SEGMENT_IDS ? "segment ids"
                                                       : "offsets");
  case CLG_BAG_FAULT_PAST:
    return clg__fail(CLG_ERROR_INVALID_BAGS,
                     "offsets[%" PRId64 "] is %" PRId64
                     ", past the %" PRId64 " indices",
                     b, v, g->n);
  case CLG_BAG_FAULT_LAST:
    return clg__fail(CLG_ERROR_INVALID_BAGS,
                     "offsets[%" PRId64 "] (the last, include_last_offset) "
                     "is %" PRId64 " but there are %" PRId64 " indices; "
                     "they must agree",
                     b, v, g->n);
  case CLG_BAG_FAULT_SEGMENT:
    return clg__fail(CLG_ERROR_INVALID_BAGS,
                     "segment_ids[%" PRId64 "] is %" PRId64
                     ", outside [0, %" PRId64 "] (num_segments %" PRId64
                     ", the output's rows)",
                     b, v, g->num_bags - 1, g->num_bags);
  case CLG_BAG_FAULT_INDEX:
    if (g->p.form == CLG_BAGS_FIXED && g->fixed > 0)
      return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                       "indices[%" PRId64 "] (position [%" PRId64
                       ", %" PRId64 "]) is %" PRId64 ", outside [0, %" PRId64
                       "]: weight has %" PRId64 " rows (EmbeddingBag takes "
                       "no negative indices)",
                       b, b / g->fixed, b % g->fixed, v, g->rows - 1, g->rows);
    return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                     "indices[%" PRId64 "] is %" PRId64 ", outside [0, %" PRId64
                     "]: weight has %" PRId64 " rows (EmbeddingBag takes no "
                     "negative indices)",
                     b, v, g->rows - 1, g->rows);
  default:
    return clg__fail(CLG_ERROR_INTERNAL,
                     "internal: EmbeddingBag's checks found a fault on the "
                     "device that the host's rules do not name");
  }
}

/* What the device must offer for the definition's bits: doubles
 * (cl_khr_fp64); for float arithmetic, subnormals kept (float32 and
 * bfloat16 values may be subnormal floats; float16's never are) and, for
 * mean and sqrt_n, a correctly rounded division and square root. */
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
  cl_int err = clGetDeviceInfo(ctx->device, CL_DEVICE_SINGLE_FP_CONFIG,
                               sizeof fp, &fp, NULL);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clGetDeviceInfo",
                        "reading the device's CL_DEVICE_SINGLE_FP_CONFIG");
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

/* The kernel call of variant ITEM (one work-item per output element) or
 * BLOCK (one per bag and block of 64 columns). */
static clg_status bag_call(clg_context *ctx, const clg_bag_geom *g,
                           const clg_bag_mems *m, bool gated, bool div_double,
                           int variant, clg_kernel_call *call) {
  int kind = g->dtype == CLG_DTYPE_FLOAT     ? 1
             : g->dtype == CLG_DTYPE_FLOAT16 ? 2
             : g->dtype == CLG_DTYPE_BFLOAT16 ? 3
                                              : 4;
  bool divides = g->p.mode == CLG_BAG_MEAN || g->p.mode == CLG_BAG_SQRT_N;
  char options[256];
  snprintf(options, sizeof options,
           "-DCLG_INDEX=%s -DCLG_BAG_INDEX=%s -DCLG_BAG_KIND=%d "
           "-DCLG_BAG_MODE=%d -DCLG_BAG_PSW=%d -DCLG_BAG_FIXED=%d "
           "-DCLG_BAG_PAD=%d -DCLG_BAG_DIV_DOUBLE=%d%s%s",
           m->index_size == 4 ? "int" : "long",
           m->bags_size == 4 ? "int" : "long", kind, (int)g->p.mode,
           g->psw ? 1 : 0, g->p.form == CLG_BAGS_FIXED ? 1 : 0,
           g->p.padding_idx >= 0 ? 1 : 0,
           div_double ? 1 : 0, gated ? " -DCLG_GATED" : "",
           divides && kind != 4 && !div_double
               ? " -cl-fp32-correctly-rounded-divide-sqrt"
               : "");
  bool block = variant == CLG_VARIANT_BLOCK;
  clg_kernel_entry *kernel = NULL;
  clg_status st = clg__get_kernel(
      ctx, clg_kernel_embedding_bag, options,
      block ? "clg_embedding_bag_block" : "clg_embedding_bag", &kernel);
  if (st != CLG_SUCCESS)
    return st;
  size_t es = clg_dtype_size(g->dtype);
  cl_ulong wo = m->w_off / es, xo = m->x_off / m->index_size,
           bo = m->b_off / m->bags_size, po = m->p_off / es,
           oo = m->o_off / es;
  cl_ulong dim = (cl_ulong)g->dim, fixed = (cl_ulong)g->fixed,
           n = (cl_ulong)g->n, bags_len = (cl_ulong)m->bags_len,
           bags = (cl_ulong)g->num_bags;
  cl_long padding = g->p.padding_idx;
  size_t cap = ctx->max_work_group_size < BAG_LOCAL ? ctx->max_work_group_size
                                                    : BAG_LOCAL;
  if (cap == 0)
    cap = 1;
  /* ITEM: work-groups of BAG_LOCAL work-items (at most the device's), the
   * columns of one bag first, then as many bags as fill it. BLOCK: a
   * work-item per (block, bag), in work-groups of one (a CPU's). */
  uint64_t cols = block ? (dim + BAG_BLOCK - 1) / BAG_BLOCK : dim;
  size_t l0 = block ? 1 : bag_pow2_at_least(cols, cap);
  while (l0 > cap)
    l0 /= 2;
  size_t l1 = block ? 1 : cap / l0;
  if (l1 > bags)
    l1 = bag_pow2_at_least(bags, l1);
  size_t local[2] = {l0, l1};
  size_t global[2] = {(size_t)((cols + l0 - 1) / l0 * l0),
                      (size_t)((bags + l1 - 1) / l1 * l1)};
  const void *values[] = {&m->weight, &wo,     &dim,     &m->indices, &xo,
                          &n,         &fixed,  &m->bags, &bo,         &bags_len,
                          &m->psw,    &po,     &m->output, &oo,       &padding,
                          &bags};
  const size_t sizes[] = {sizeof(cl_mem), sizeof wo,     sizeof dim,
                          sizeof(cl_mem), sizeof xo,     sizeof n,
                          sizeof fixed,   sizeof(cl_mem), sizeof bo,
                          sizeof bags_len, sizeof(cl_mem), sizeof po,
                          sizeof(cl_mem), sizeof oo,     sizeof padding,
                          sizeof bags};
  clg__call_set(call, kernel, 16, sizes, values, 2, global, local);
  return CLG_SUCCESS;
}

typedef struct bag_trial_arg {
  clg_context *ctx;
  const clg_bag_geom *g;
  const clg_bag_mems *m;
  bool div_double;
} bag_trial_arg;

static clg_status bag_trial(void *arg, int variant, double *seconds) {
  const bag_trial_arg *t = arg;
  clg_kernel_call call;
  clg_status st =
      bag_call(t->ctx, t->g, t->m, false, t->div_double, variant, &call);
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
  /* Both variants on every device, the device type's likely one first;
   * timed (device/tune.c) once per shape class where the call can be run
   * on its own: not gated, and its bags already in place. */
  bool cpu = (clg__plan_device(ctx) & CL_DEVICE_TYPE_CPU) != 0;
  int cands[2] = {cpu ? CLG_VARIANT_BLOCK : CLG_VARIANT_ITEM,
                  cpu ? CLG_VARIANT_ITEM : CLG_VARIANT_BLOCK};
  unsigned allowed = (1u << CLG_VARIANT_ITEM) | (1u << CLG_VARIANT_BLOCK);
  uint64_t per_bag = g->num_bags ? (uint64_t)g->n / (uint64_t)g->num_bags : 0;
  char key[160];
  snprintf(key, sizeof key,
           "EmbeddingBag dim=2^%u bags=2^%u per_bag=2^%u elem=%zu mode=%d "
           "psw=%d pad=%d dev=%d",
           clg__log2((uint64_t)g->dim), clg__log2((uint64_t)g->num_bags),
           clg__log2(per_bag), clg_dtype_size(g->dtype), (int)g->p.mode,
           g->psw ? 1 : 0, g->p.padding_idx >= 0 ? 1 : 0, cpu ? 1 : 0);
  bag_trial_arg arg = {ctx, g, m, div_double};
  size_t out_bytes = (size_t)g->num_bags * (size_t)g->dim *
                     clg_dtype_size(g->dtype);
  bool can_time = !gated && m->can_time && m->queue &&
                  out_bytes >= CLG_TUNE_MIN_BYTES;
  clg_choice how;
  int variant = clg__tune_pick(ctx, key, cands, 2, allowed,
                               can_time ? bag_trial : NULL, &arg, &how);
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
                           const clg_bag_mems *m, cl_mem verdict,
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
                      &bags_len,   &rows, &num_bags, &verdict};
  const size_t s1[] = {sizeof(cl_mem), sizeof xo,   sizeof n,
                       sizeof(cl_mem), sizeof bo,   sizeof bags_len,
                       sizeof rows,    sizeof num_bags, sizeof(cl_mem)};
  clg__call_set(&calls->call[calls->count++], validate, 9, s1, v1, 1, &global,
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
