/* EmbeddingBag: PyTorch's embedding_bag, TensorFlow's sparse segment
 * reductions (include/clgather/clgather_bag.h, the semantics). Its rules
 * on descriptors and on values, its faults and their messages; its kernel
 * calls are bag_kernels.c's, the call's steps run/embedding_bag.c's. */
#include "ops/embedding_bag.h"

#include <inttypes.h>
#include <stdio.h>


static const char *const bag_mode_names[] = {"sum", "mean", "max", "sqrt_n"};

/* "[lo, hi - 1]", or "the empty range" where hi == 0: no value is valid,
 * and "[0, -1]" would read as a mistake of ours. Returns buf. */
static const char *bag_range(char *buf, size_t size, int64_t lo, int64_t hi) {
  if (hi == 0)
    snprintf(buf, size, "the empty range");
  else
    snprintf(buf, size, "[%" PRId64 ", %" PRId64 "]", lo, hi - 1);
  return buf;
}

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
  if (p->weight_format > CLG_BAG_WEIGHT_2BIT_ROWWISE)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown clg_bag_params.weight_format %u (expected "
                     "CLG_BAG_WEIGHT_DENSE, CLG_BAG_WEIGHT_8BIT_ROWWISE, "
                     "CLG_BAG_WEIGHT_4BIT_ROWWISE or "
                     "CLG_BAG_WEIGHT_2BIT_ROWWISE; the field was `reserved`)",
                     (unsigned)p->weight_format);
  if ((p->flags & CLG_BAG_INCLUDE_LAST_OFFSET) &&
      p->form != CLG_BAGS_OFFSETS)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "CLG_BAG_INCLUDE_LAST_OFFSET needs bags given by offsets "
                     "(CLG_BAGS_OFFSETS)");
  return CLG_SUCCESS;
}

/* The quantized formats' names, their scale's and bias' bytes, codes a
 * byte (clgather_bag.h's diagrams). */
static const struct {
  const char *name, *scale;
  int64_t tail, per_byte;
} bag_qformats[] = {
    {"dense", "", 0, 0},
    {"8-bit rowwise", "float32", 8, 1},
    {"4-bit rowwise", "float16", 4, 2},
    {"2-bit rowwise", "float16", 4, 4},
};

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
  if (p->weight_format != CLG_BAG_WEIGHT_DENSE) {
    /* Rows quantized per row: uint8 bytes in, float32 out. */
    const char *fmt = bag_qformats[p->weight_format].name;
    if (weight->dtype != CLG_DTYPE_UINT8)
      return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                       "weight has element type %s; a table quantized per "
                       "row (weight_format %s) is uint8 bytes "
                       "[num_embeddings, row_bytes]",
                       clg_dtype_name(weight->dtype), fmt);
    if (output->dtype != CLG_DTYPE_FLOAT)
      return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                       "output has element type %s; EmbeddingBag over a "
                       "table quantized per row (weight_format %s) gives "
                       "float32",
                       clg_dtype_name(output->dtype), fmt);
    if (psw && psw->dtype != CLG_DTYPE_FLOAT)
      return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                       "per_sample_weights has element type %s; with a table "
                       "quantized per row (weight_format %s) they are "
                       "float32",
                       clg_dtype_name(psw->dtype), fmt);
  } else if (weight->dtype != CLG_DTYPE_FLOAT &&
             weight->dtype != CLG_DTYPE_FLOAT16 &&
             weight->dtype != CLG_DTYPE_BFLOAT16 &&
             weight->dtype != CLG_DTYPE_DOUBLE)
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
  bool dense = p->weight_format == CLG_BAG_WEIGHT_DENSE;
  if (dense && psw && psw->dtype != weight->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "per_sample_weights has element type %s but weight has "
                     "%s; they must agree",
                     clg_dtype_name(psw->dtype), clg_dtype_name(weight->dtype));
  if (dense && output->dtype != weight->dtype)
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
  g->wdtype = weight->dtype;
  g->wcols = weight->shape[1];
  if (p->weight_format != CLG_BAG_WEIGHT_DENSE) {
    /* dim from the row's bytes, as PyTorch's ops take it. */
    int64_t tail = bag_qformats[p->weight_format].tail;
    if (g->wcols < tail)
      return clg__fail(CLG_ERROR_INVALID_SHAPE,
                       "weight has rows of %" PRId64 " bytes; a row of "
                       "weight_format %s ends with a %s scale and bias "
                       "(%" PRId64 " bytes) after its codes",
                       g->wcols, bag_qformats[p->weight_format].name,
                       bag_qformats[p->weight_format].scale, tail);
    int64_t per = bag_qformats[p->weight_format].per_byte;
    if (g->wcols - tail > INT64_MAX / per)
      return clg__fail(CLG_ERROR_SIZE_OVERFLOW,
                       "weight's rows of %" PRId64 " bytes hold more values "
                       "than int64 counts (weight_format %s)",
                       g->wcols, bag_qformats[p->weight_format].name);
    g->dim = (g->wcols - tail) * per;
    g->dtype = CLG_DTYPE_FLOAT;
  }
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
    /* The segments' starts (num_bags + 1 of int64) must be addressable:
     * an output without columns admits any num_segments. */
    if ((uint64_t)g->num_bags >= SIZE_MAX / sizeof(int64_t) - 1)
      return clg__fail(CLG_ERROR_SIZE_OVERFLOW,
                       "num_segments (the output's rows) is %" PRId64
                       ": their starts overflow size_t",
                       g->num_bags);
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
    if (p->padding_idx < -g->rows || p->padding_idx >= g->rows) {
      char range[64];
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "padding_idx %" PRId64 " is outside %s for weight of "
                       "%" PRId64 " rows",
                       p->padding_idx,
                       bag_range(range, sizeof range, -g->rows, g->rows),
                       g->rows);
    }
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
  case CLG_BAG_FAULT_SEGMENT: {
    char range[64];
    return clg__fail(CLG_ERROR_INVALID_BAGS,
                     "segment_ids[%" PRId64 "] is %" PRId64
                     ", outside %s (num_segments %" PRId64
                     ", the output's rows)",
                     b, v, bag_range(range, sizeof range, 0, g->num_bags),
                     g->num_bags);
  }
  case CLG_BAG_FAULT_INDEX: {
    char range[64];
    bag_range(range, sizeof range, 0, g->rows);
    if (g->p.form == CLG_BAGS_FIXED && g->fixed > 0)
      return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                       "indices[%" PRId64 "] (position [%" PRId64
                       ", %" PRId64 "]) is %" PRId64 ", outside %s: weight "
                       "has %" PRId64 " rows (EmbeddingBag takes no negative "
                       "indices)",
                       b, b / g->fixed, b % g->fixed, v, range, g->rows);
    return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                     "indices[%" PRId64 "] is %" PRId64 ", outside %s: weight "
                     "has %" PRId64 " rows (EmbeddingBag takes no negative "
                     "indices)",
                     b, v, range, g->rows);
  }
  default:
    return clg__fail(CLG_ERROR_INTERNAL,
                     "internal: EmbeddingBag's checks found a fault on the "
                     "device that the host's rules do not name");
  }
}
