/* EmbeddingBag's valid cases (embedding_bag.h): the argument space, random
 * cases, their inputs, the reference's output, the device's status, the
 * conformance set. */
#define _POSIX_C_SOURCE 200809L
#include "cases/embedding_bag.h"
#include "cases/operators.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bag_case bag_make(clg_bag_mode mode, clg_bag_form form, clg_dtype dtype,
                  int64_t num_embeddings, int64_t dim, int64_t n, int64_t B) {
  bag_case c;
  memset(&c, 0, sizeof c);
  c.p.mode = mode;
  c.p.form = form;
  c.dtype = dtype;
  c.num_embeddings = num_embeddings;
  c.dim = dim;
  c.idt = CLG_DTYPE_INT64;
  c.bdt = CLG_DTYPE_INT64;
  c.B = B;
  if (form == CLG_BAGS_FIXED) {
    c.L = n;
    c.n = B * n;
  } else {
    c.n = n;
  }
  for (int k = 0; k < 5; ++k)
    c.st[k].kind = CLG_STORAGE_HOST;
  return c;
}

void bag_set_padding(bag_case *c, int64_t padding_idx, int pct) {
  c->p.flags |= CLG_BAG_PADDING_IDX;
  c->p.padding_idx = padding_idx;
  c->pad_pct = pct;
}

clg_dtype bag_weight_shape(const bag_case *c, int64_t shape[2]) {
  shape[0] = c->num_embeddings;
  shape[1] = c->dim;
  if (c->p.weight_format == CLG_BAG_WEIGHT_DENSE)
    return c->dtype;
  shape[1] = ref_qrow_bytes((int32_t)c->p.weight_format, c->dim);
  return CLG_DTYPE_UINT8;
}

static size_t operand_esize(const bag_case *c, int k) {
  int64_t ws[2];
  return clg_dtype_size(k == BAG_I   ? c->idt
                        : k == BAG_B ? c->bdt
                        : k == BAG_W ? bag_weight_shape(c, ws)
                                     : c->dtype);
}

void bag_storage_for(bag_case *c, int k) {
  for (int j = 0; j < 5; ++j) {
    c->st[j].kind = ((k >> j) & 1) ? CLG_STORAGE_BUFFER : CLG_STORAGE_HOST;
    c->st[j].offset = (size_t)((k / 3 + j) % 4) * operand_esize(c, j) * 2u;
    c->st[j].tight = ((k + j) % 5) == 0;
    c->st[j].null_empty = ((k + j) % 3) == 0;
  }
}

bag_case bag_case_random(uint64_t seed, clg_dtype dtype, clg_bag_mode mode,
                         clg_bag_form form, unsigned variant) {
  case_rng rng = case_rng_make(seed);
  int64_t rows = case_rng_range(&rng, 1, 6), dim = case_rng_range(&rng, 1, 9);
  bag_case c;
  if (form == CLG_BAGS_FIXED) {
    int64_t B = case_rng_range(&rng, 1, 4);
    int64_t L = case_rng_range(&rng, variant & 4 ? 0 : 1, 4);
    c = bag_make(mode, form, dtype, rows, dim, L, B);
  } else {
    int64_t n = case_rng_range(&rng, 0, 9);
    int64_t B = case_rng_range(&rng, n ? 1 : 0, 4);
    c = bag_make(mode, form, dtype, rows, dim, n, B);
    if (form == CLG_BAGS_OFFSETS && (variant & 4))
      c.p.flags |= CLG_BAG_INCLUDE_LAST_OFFSET;
    if (form == CLG_BAGS_SEGMENT_IDS && B > 0) /* trailing empty segments */
      c.seg_gap = case_rng_range(&rng, 0, B - 1);
  }
  c.idt = variant & 1 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
  c.bdt = variant & 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
  c.psw = (variant & 8) && mode == CLG_BAG_SUM;
  if (variant & 16) {
    int64_t p = case_rng_range(&rng, 0, rows - 1);
    bag_set_padding(&c, case_rng_range(&rng, 0, 1) ? p - rows : p, 25);
  }
  return c;
}

bag_case bag_case_quantized(uint64_t seed, uint32_t weight_format,
                            clg_bag_mode mode, clg_bag_form form,
                            unsigned variant) {
  bag_case c = bag_case_random(seed, CLG_DTYPE_FLOAT, mode, form, variant);
  c.p.weight_format = weight_format;
  c.dim *= weight_format == CLG_BAG_WEIGHT_4BIT_ROWWISE   ? 2
           : weight_format == CLG_BAG_WEIGHT_2BIT_ROWWISE ? 4
                                                          : 1;
  return c;
}

const char *bag_case_str(const bag_case *c, char *buf, size_t cap) {
  static const char *const modes[] = {"sum", "mean", "max", "sqrt_n"};
  static const char *const forms[] = {"offsets", "fixed", "segment_ids"};
  static const char *const data[] = {"random", "special", "small-int"};
  char st[5][40];
  for (int k = 0; k < 5; ++k)
    case_storage_str(c->st[k], st[k], sizeof st[k]);
  const char *dn = clg_dtype_name(c->dtype), *in = clg_dtype_name(c->idt);
  const char *bn = clg_dtype_name(c->bdt);
  static const char *const formats[] = {"", " weight_format=8bit-rowwise",
                                        " weight_format=4bit-rowwise",
                                        " weight_format=2bit-rowwise"};
  snprintf(buf, cap,
           "mode=%s form=%s%s dtype=%s%s weight=[%" PRId64 ", %" PRId64
           "] indices=%s n=%" PRId64 " L=%" PRId64 " bags=%s B=%" PRId64
           " seg_gap=%" PRId64 "%s padding_idx=%s%" PRId64 "(%d%%) data=%s "
           "storage(w/i/b/psw/out)=%s/%s/%s/%s/%s%s%s%s%s",
           (unsigned)c->p.mode < 4 ? modes[c->p.mode] : "?",
           (unsigned)c->p.form < 3 ? forms[c->p.form] : "?",
           (c->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET) ? "+last" : "",
           dn ? dn : "?",
           c->p.weight_format < 4 ? formats[c->p.weight_format] : " ?",
           c->num_embeddings, c->dim, in ? in : "?", c->n, c->L, bn ? bn : "?",
           c->B, c->seg_gap, c->psw ? " per_sample_weights" : "",
           (c->p.flags & CLG_BAG_PADDING_IDX) ? "" : "(off)", c->p.padding_idx,
           c->pad_pct, (unsigned)c->data < 3 ? data[c->data] : "?", st[0],
           st[1], st[2], st[3], st[4], c->want_event ? " event" : "",
           c->wait_list ? " wait-list" : "", c->async ? " async" : "",
           c->own_queue ? " own-queue" : "");
  return buf;
}

int64_t bag_bags_len(const bag_case *c) {
  bool last = (c->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET) != 0;
  return c->p.form == CLG_BAGS_OFFSETS       ? c->B + (last ? 1 : 0)
         : c->p.form == CLG_BAGS_SEGMENT_IDS ? c->n
                                             : 0;
}

int32_t bag_indices_shape(const bag_case *c, int64_t shape[2]) {
  bool fixed = c->p.form == CLG_BAGS_FIXED;
  shape[0] = fixed ? c->B : c->n;
  shape[1] = c->L;
  return fixed ? 2 : 1;
}

clg_status bag_case_status(const bag_case *c, const case_device *dev) {
  /* An empty output needs no arithmetic: nothing is refused. */
  if (c->B == 0 || c->dim == 0)
    return CLG_SUCCESS;
  if (c->dtype == CLG_DTYPE_DOUBLE)
    return dev->fp64 && dev->double_denorm ? CLG_SUCCESS
                                           : CLG_ERROR_UNSUPPORTED_DTYPE;
  if (c->dtype != CLG_DTYPE_FLOAT16 && !dev->single_denorm)
    return CLG_ERROR_UNSUPPORTED_DTYPE;
  /* A correctly rounded division: the device's own, or through doubles. */
  if ((c->p.mode == CLG_BAG_MEAN || c->p.mode == CLG_BAG_SQRT_N) &&
      !dev->single_cr_divide && !dev->fp64)
    return CLG_ERROR_UNSUPPORTED_DTYPE;
  return CLG_SUCCESS;
}

/* --------------------------------------------------------------- data */

/* A value of kind: both signs, magnitude in [2^-6, 2^4), full mantissa;
 * one in 24 subnormal in dt (its smallest normal times a fraction). */
static double draw_value(case_rng *rng, clg_dtype dt, bag_data kind) {
  double sign = case_rng_range(rng, 0, 1) ? -1.0 : 1.0;
  if (kind == BAG_DATA_SMALL_INT)
    return (double)case_rng_range(rng, -4, 4);
  if (kind == BAG_DATA_SPECIAL) {
    switch (case_rng_range(rng, 0, 7)) {
    case 0:
    case 1: return 0.0;
    case 2:
    case 3: return -0.0;
    case 4: return sign;
    case 5: return NAN; /* replaced by a NaN of a payload of its own */
    default: break;
    }
  }
  double frac = (double)(case_rng_u64(rng) >> 11) / 9007199254740992.0;
  if (case_rng_range(rng, 0, 23) == 0) {
    double min_normal = dt == CLG_DTYPE_FLOAT16  ? 0x1p-14
                        : dt == CLG_DTYPE_DOUBLE ? 0x1p-1022
                                                 : 0x1p-126;
    return sign * frac * min_normal;
  }
  return sign * ldexp(1.0 + frac, (int)case_rng_range(rng, -6, 3));
}

/* draw_value() without its subnormals: a quantized table's scales,
 * biases and per-sample weights. Their products and sums are then never
 * subnormal (magnitudes of at least 2^-12, or zero), so the cases hold on
 * a device that flushes subnormals and is told it keeps them
 * (CLGATHER_TEST_CLAIM_DENORM, tests/rusticl/suites.sh) as on one that
 * keeps them. */
static double draw_normal(case_rng *rng, clg_dtype dt, bag_data kind) {
  double min_normal = dt == CLG_DTYPE_FLOAT16 ? 0x1p-14 : 0x1p-126;
  for (;;) {
    double v = draw_value(rng, dt, kind);
    if (!(v != 0 && fabs(v) < min_normal))
      return v;
  }
}

/* Stores v (rounded to nearest) as element k of dt; a NaN becomes a quiet
 * NaN whose sign and payload come from `tag`. */
static void put_value(void *dst, clg_dtype dt, int64_t k, double v,
                      uint64_t tag) {
  unsigned char *p = (unsigned char *)dst + (size_t)k * clg_dtype_size(dt);
  bool nan = isnan(v);
  uint64_t sign = tag & 1u, pay = 1u + (tag >> 1) % 30u;
  switch (dt) {
  case CLG_DTYPE_DOUBLE: {
    if (nan) {
      uint64_t u = (sign << 63) | 0x7FF8000000000000ull | pay;
      memcpy(p, &u, 8);
    } else
      memcpy(p, &v, 8);
    break;
  }
  case CLG_DTYPE_FLOAT: {
    float f = (float)v;
    if (nan) {
      uint32_t u = (uint32_t)(sign << 31) | 0x7FC00000u | (uint32_t)pay;
      memcpy(p, &u, 4);
    } else
      memcpy(p, &f, 4);
    break;
  }
  default: {
    bool h = dt == CLG_DTYPE_FLOAT16;
    uint16_t u = h ? ref_float_to_half((float)v) : ref_float_to_bf16((float)v);
    if (nan)
      u = (uint16_t)((sign << 15) | (h ? 0x7E00u : 0x7FC0u) |
                     (pay & (h ? 0x1FFu : 0x3Fu)));
    memcpy(p, &u, 2);
    break;
  }
  }
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

void bag_inputs_free(bag_inputs *in) {
  for (int k = 0; k < 4; ++k) {
    free(in->op[k]);
    in->op[k] = NULL;
  }
}

int bag_inputs_draw(const bag_case *c, uint64_t seed, bag_inputs *in) {
  memset(in, 0, sizeof *in);
  case_rng rng = case_rng_make(seed);
  int64_t E = c->num_embeddings, n = c->n, B = c->B;
  in->bags_len = bag_bags_len(c);
  int64_t ws[2];
  clg_dtype wdt = bag_weight_shape(c, ws);
  in->bytes[BAG_W] = (size_t)(ws[0] * ws[1]) * clg_dtype_size(wdt);
  in->bytes[BAG_I] = (size_t)n * clg_dtype_size(c->idt);
  in->bytes[BAG_B] = (size_t)in->bags_len * clg_dtype_size(c->bdt);
  in->bytes[BAG_S] = (size_t)n * clg_dtype_size(c->dtype);
  int64_t m = c->p.form == CLG_BAGS_OFFSETS ? B : n;
  int64_t *v = malloc(sizeof *v * (size_t)(m + 1));
  for (int k = 0; k < 4; ++k)
    in->op[k] = malloc(in->bytes[k] + 1);
  if (v == NULL || !in->op[0] || !in->op[1] || !in->op[2] || !in->op[3]) {
    free(v);
    bag_inputs_free(in);
    return -1;
  }
  if (wdt != c->dtype) {
    /* Quantized rows: random codes, then a scale and a bias drawn as
     * values of their type (float32 for 8-bit, else float16). */
    clg_dtype st = c->p.weight_format == CLG_BAG_WEIGHT_8BIT_ROWWISE
                       ? CLG_DTYPE_FLOAT
                       : CLG_DTYPE_FLOAT16;
    int64_t tail = 2 * (int64_t)clg_dtype_size(st), codes = ws[1] - tail;
    for (int64_t r = 0; r < E; ++r) {
      unsigned char *row = in->op[BAG_W] + (size_t)(r * ws[1]);
      for (int64_t j = 0; j < codes; ++j)
        row[j] = (unsigned char)case_rng_u64(&rng);
      for (int k = 0; k < 2; ++k)
        put_value(row + codes, st, k, draw_normal(&rng, st, c->data),
                  case_rng_u64(&rng));
    }
  } else
    for (int64_t k = 0; k < E * c->dim; ++k)
      put_value(in->op[BAG_W], c->dtype, k, draw_value(&rng, c->dtype, c->data),
                case_rng_u64(&rng));
  for (int64_t k = 0; k < n; ++k) {
    bag_data kind = c->data == BAG_DATA_SMALL_INT ? c->data : BAG_DATA_RANDOM;
    put_value(in->op[BAG_S], c->dtype, k,
              wdt != c->dtype ? draw_normal(&rng, c->dtype, kind)
                              : draw_value(&rng, c->dtype, kind),
              0);
  }
  int64_t pad = -1;
  if (c->p.flags & CLG_BAG_PADDING_IDX)
    pad = c->p.padding_idx < 0 ? c->p.padding_idx + E : c->p.padding_idx;
  for (int64_t k = 0; k < n; ++k) {
    int64_t x = case_rng_range(&rng, 0, E - 1);
    if (pad >= 0 && case_rng_range(&rng, 0, 99) < c->pad_pct)
      x = pad;
    case_set_index(in->op[BAG_I], c->idt, k, x);
  }
  /* The bags: sorted draws (equal ones make empty bags). */
  if (c->p.form == CLG_BAGS_OFFSETS) {
    for (int64_t k = 0; k < m; ++k)
      v[k] = k == 0 ? 0 : case_rng_range(&rng, 0, n);
  } else if (c->p.form == CLG_BAGS_SEGMENT_IDS) {
    int64_t hi = B - 1 - c->seg_gap;
    for (int64_t k = 0; k < m; ++k)
      v[k] = case_rng_range(&rng, 0, hi < 0 ? 0 : hi);
  }
  if (m > 0 && c->p.form != CLG_BAGS_FIXED)
    qsort(v, (size_t)m, sizeof *v, cmp_i64);
  for (int64_t k = 0; c->p.form != CLG_BAGS_FIXED && k < m; ++k)
    case_set_index(in->op[BAG_B], c->bdt, k, v[k]);
  if (c->p.form == CLG_BAGS_OFFSETS &&
      (c->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET))
    case_set_index(in->op[BAG_B], c->bdt, B, n);
  free(v);
  return 0;
}

void bag_ref_args(const bag_case *c, const bag_inputs *in, ref_bag_args *a) {
  memset(a, 0, sizeof *a);
  a->mode = (int)c->p.mode;
  a->form = (int)c->p.form;
  a->include_last_offset = (c->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET) != 0;
  a->has_padding_idx = (c->p.flags & CLG_BAG_PADDING_IDX) != 0;
  a->padding_idx = c->p.padding_idx;
  a->dtype = (int32_t)c->dtype;
  a->weight = in->op[BAG_W];
  a->num_embeddings = c->num_embeddings;
  a->dim = c->dim;
  a->indices = in->op[BAG_I];
  a->index_type = case_ref_index_type(c->idt);
  a->indices_rank = bag_indices_shape(c, a->indices_shape);
  a->bags = c->p.form == CLG_BAGS_FIXED ? NULL : in->op[BAG_B];
  a->bags_type = case_ref_index_type(c->bdt);
  a->bags_len = in->bags_len;
  a->per_sample_weights = c->psw ? in->op[BAG_S] : NULL;
  a->num_bags = c->B;
  a->weight_format = (int32_t)c->p.weight_format; /* REF_QROW_*: the same */
}

size_t bag_output_bytes(const bag_case *c) {
  return (size_t)(c->B * c->dim) * clg_dtype_size(c->dtype);
}

int bag_expect(const bag_case *c, const bag_inputs *in, void *want) {
  ref_bag_args a;
  bag_ref_args(c, in, &a);
  return ref_embedding_bag(&a, want) == 0 ? 0 : -1;
}

/* Every (weight type or quantized format, mode, form) once (quick: every
 * (type, mode) once, the form in turn), the call (host, buffer, async) and the
 * mix of index types, offsets, weights and padding in turn: each case is a
 * program of its own to build on a cold device (the 576 cases of a first
 * version took five minutes of CI's ASan run, cold). */
static void conformance(bool quick, case_visit visit, void *ctx) {
  static const clg_dtype types[] = {CLG_DTYPE_FLOAT, CLG_DTYPE_FLOAT16,
                                    CLG_DTYPE_BFLOAT16, CLG_DTYPE_DOUBLE};
  unsigned n = 0;
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
    for (int mode = 0; mode < 4; ++mode)
      for (int form = 0; form < 3; ++form) {
        unsigned k = (unsigned)(t * 4 + (size_t)mode);
        if (quick && form != (int)(k % 3))
          continue;
        case_item it = {.family = CASE_FAMILY_BAG,
                        .seed = 0xba9000u + n,
                        .call = (case_call)((k + (unsigned)form) % 3)};
        /* index and bag types, include_last_offset or empty rows,
         * per-sample weights, padding_idx: a different mix each time */
        it.c.bag = bag_case_random(it.seed, types[t], (clg_bag_mode)mode,
                                   (clg_bag_form)form, (n * 7u) & 31u);
        visit(ctx, &it);
        ++n;
      }
  /* Tables quantized per row: every (format, mode) with a form in turn
   * (every form in the full set). */
  for (uint32_t fmt = CLG_BAG_WEIGHT_8BIT_ROWWISE;
       fmt <= CLG_BAG_WEIGHT_2BIT_ROWWISE; ++fmt)
    for (int mode = 0; mode < 4; ++mode)
      for (int form = 0; form < 3; ++form) {
        unsigned k = fmt * 4u + (unsigned)mode;
        if (quick && form != (int)(k % 3))
          continue;
        case_item it = {.family = CASE_FAMILY_BAG,
                        .seed = 0xba9000u + n,
                        .call = (case_call)((k + (unsigned)form) % 3)};
        it.c.bag = bag_case_quantized(it.seed, fmt, (clg_bag_mode)mode,
                                      (clg_bag_form)form, (n * 7u) & 31u);
        visit(ctx, &it);
        ++n;
      }
}

const case_operator case_embedding_bag = {CASE_FAMILY_BAG, conformance, NULL,
                                          NULL};
