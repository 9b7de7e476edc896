/* EmbeddingBag's reference (reference.h), from the definition in
 * include/clgather/clgather_bag.h: every bag reduced one entry at a time in
 * the order of indices, each step one IEEE 754 operation of C rounded to
 * nearest even. float32 in float, float64 in double, float16 and bfloat16
 * widened to float, summed in float, rounded once into their type. */
#include "reference/reference.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* No a * b + c is ever contracted: fmaf()/fma() are written where the
 * definition says fma (per_sample_weights), and nowhere else is there a
 * product to fuse. GCC does not know the pragma (it warns); -std=c11, with
 * which the project builds, means -ffp-contract=off there. */
#if defined(__clang__) || !defined(__GNUC__)
#pragma STDC FP_CONTRACT OFF
#endif

/* clg_dtype values (reference.h keeps its own header free of clgather.h). */
enum { BAG_F32 = 1, BAG_F16 = 10, BAG_F64 = 11, BAG_BF16 = 16 };
enum { BAG_SUM = 0, BAG_MEAN = 1, BAG_MAX = 2, BAG_SQRT_N = 3 };
enum { BAG_OFFSETS = 0, BAG_FIXED = 1, BAG_SEGMENT_IDS = 2 };

static size_t elem_size(int32_t dtype) {
  switch (dtype) {
  case BAG_F32: return 4;
  case BAG_F64: return 8;
  case BAG_F16:
  case BAG_BF16: return 2;
  default: return 0;
  }
}

/* Element k of a float32/float16/bfloat16 array, as a float (exact). */
static float load_f(int32_t dtype, const void *p, int64_t k) {
  const unsigned char *b = p;
  if (dtype == BAG_F32) {
    float f;
    memcpy(&f, b + (size_t)k * 4u, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, b + (size_t)k * 2u, 2);
  return dtype == BAG_F16 ? ref_half_to_float(h) : ref_bf16_to_float(h);
}

static double load_d(const void *p, int64_t k) {
  double d;
  memcpy(&d, (const unsigned char *)p + (size_t)k * 8u, 8);
  return d;
}

/* A float rounded (to nearest even) into dtype, stored at element k. */
static void store_f(int32_t dtype, void *p, int64_t k, float f) {
  unsigned char *b = p;
  if (dtype == BAG_F32) {
    memcpy(b + (size_t)k * 4u, &f, 4);
    return;
  }
  uint16_t h = dtype == BAG_F16 ? ref_float_to_half(f) : ref_float_to_bf16(f);
  memcpy(b + (size_t)k * 2u, &h, 2);
}

/* The value of float f once rounded into dtype, widened back (exact). */
static float round_to(int32_t dtype, float f) {
  if (dtype == BAG_F16)
    return ref_half_to_float(ref_float_to_half(f));
  if (dtype == BAG_BF16)
    return ref_bf16_to_float(ref_float_to_bf16(f));
  return f;
}

int64_t ref_qrow_bytes(int32_t weight_format, int64_t dim) {
  if (dim < 0)
    return -1;
  switch (weight_format) {
  case REF_QROW_8BIT: return dim + 8;
  case REF_QROW_4BIT: return dim % 2 ? -1 : dim / 2 + 4;
  case REF_QROW_2BIT: return dim % 4 ? -1 : dim / 4 + 4;
  default: return -1;
  }
}

/* Row k's code j, scale and bias (float32, exact) of a quantized table. */
static void qrow_load(const ref_bag_args *a, int64_t k, int64_t j, float *q,
                      float *scale, float *bias) {
  int64_t rb = ref_qrow_bytes(a->weight_format, a->dim);
  const unsigned char *row =
      (const unsigned char *)a->weight + (size_t)(k * rb);
  if (a->weight_format == REF_QROW_8BIT) {
    *q = (float)row[j];
    memcpy(scale, row + a->dim, 4);
    memcpy(bias, row + a->dim + 4, 4);
    return;
  }
  int bits = a->weight_format == REF_QROW_4BIT ? 4 : 2, per = 8 / bits;
  int64_t codes = a->dim / per;
  *q = (float)((row[j / per] >> ((j % per) * bits)) & ((1 << bits) - 1));
  uint16_t h;
  memcpy(&h, row + codes, 2);
  *scale = ref_half_to_float(h);
  memcpy(&h, row + codes + 2, 2);
  *bias = ref_half_to_float(h);
}

/* IEEE 754-2019 maximum as the definition states it: acc is kept when it
 * is a NaN; else a NaN x is taken; else the larger, +0 above -0. Returns
 * whether x replaces acc (the caller copies x's bits). */
static bool max_takes(double acc, double x) {
  if (isnan(acc))
    return false;
  if (isnan(x))
    return true;
  if (x > acc)
    return true;
  return x == acc && !signbit(x) && signbit(acc);
}

/* The bags against their form's rules (and num_bags): 0, or -1. */
static int check_bags(const ref_bag_args *a, int64_t n) {
  int64_t B = a->num_bags;
  if (B < 0)
    return -1;
  switch (a->form) {
  case BAG_OFFSETS: {
    if (!a->bags || a->bags_len < 0)
      return -1;
    if (a->include_last_offset && a->bags_len < 1)
      return -1; /* include_last_offset with no offset */
    if (B != a->bags_len - (a->include_last_offset ? 1 : 0))
      return -1;
    for (int64_t k = 0; k < a->bags_len; ++k) {
      int64_t v = ref_index_at(a->bags, a->bags_type, k);
      if (k == 0 && v != 0)
        return -1;
      if (k > 0 && v < ref_index_at(a->bags, a->bags_type, k - 1))
        return -1;
      if (v > n) /* (none is negative: offsets[0] is 0, none decreases) */
        return -1;
    }
    if (a->include_last_offset &&
        ref_index_at(a->bags, a->bags_type, a->bags_len - 1) != n)
      return -1;
    return 0;
  }
  case BAG_FIXED:
    if (a->bags || a->include_last_offset)
      return -1;
    return B == a->indices_shape[0] ? 0 : -1;
  case BAG_SEGMENT_IDS:
    if (!a->bags || a->include_last_offset || a->bags_len != n)
      return -1;
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = ref_index_at(a->bags, a->bags_type, k);
      if (v < 0 || v >= B)
        return -1;
      if (k > 0 && v < ref_index_at(a->bags, a->bags_type, k - 1))
        return -1;
    }
    return 0;
  default: return -1;
  }
}

/* Whether entry i belongs to bag b. */
static bool in_bag(const ref_bag_args *a, int64_t n, int64_t b, int64_t i) {
  switch (a->form) {
  case BAG_OFFSETS: {
    int64_t lo = ref_index_at(a->bags, a->bags_type, b);
    int64_t hi = b + 1 < a->bags_len ? ref_index_at(a->bags, a->bags_type, b + 1)
                                     : n;
    return i >= lo && i < hi;
  }
  case BAG_FIXED: return i / a->indices_shape[1] == b;
  default: return ref_index_at(a->bags, a->bags_type, i) == b;
  }
}

int ref_embedding_bag(const ref_bag_args *a, void *out) {
  size_t es = a ? elem_size(a->dtype) : 0;
  if (es == 0 || a->mode < BAG_SUM || a->mode > BAG_SQRT_N ||
      a->form < BAG_OFFSETS || a->form > BAG_SEGMENT_IDS)
    return -1;
  if (a->include_last_offset && a->form != BAG_OFFSETS)
    return -1;
  if (a->per_sample_weights && a->mode != BAG_SUM)
    return -1;
  int64_t E = a->num_embeddings, dim = a->dim;
  if (E < 0 || dim < 0)
    return -1;
  bool quantized = a->weight_format != REF_QROW_NONE;
  if (quantized &&
      (a->dtype != BAG_F32 || ref_qrow_bytes(a->weight_format, dim) < 0))
    return -1;
  if (a->indices_rank != (a->form == BAG_FIXED ? 2 : 1))
    return -1;
  if (a->indices_shape[0] < 0 ||
      (a->indices_rank == 2 && a->indices_shape[1] < 0))
    return -1;
  int64_t n = ref_numel(a->indices_rank, a->indices_shape);
  /* padding_idx in [-E, E - 1], negative counting from the back. */
  int64_t pad = -1;
  if (a->has_padding_idx) {
    if (a->padding_idx < -E || a->padding_idx > E - 1)
      return -1;
    pad = a->padding_idx < 0 ? a->padding_idx + E : a->padding_idx;
  }
  /* The bags first, then every index value in C order. */
  if (check_bags(a, n) != 0)
    return -1;
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = ref_index_at(a->indices, a->index_type, i);
    if (k < 0 || k > E - 1)
      return -1;
  }

  for (int64_t b = 0; b < a->num_bags; ++b)
    for (int64_t j = 0; j < dim; ++j) {
      int64_t o = b * dim + j, count = 0;
      bool f64 = a->dtype == BAG_F64;
      float accf = 0.0f;
      double accd = 0.0;
      int64_t maxk = -1; /* max: the weight element taken (its bits) */
      for (int64_t i = 0; i < n; ++i) {
        if (!in_bag(a, n, b, i))
          continue;
        int64_t k = ref_index_at(a->indices, a->index_type, i);
        if (k == pad)
          continue;
        int64_t w = k * dim + j;
        ++count;
        if (quantized) {
          float q, s, c;
          qrow_load(a, k, j, &q, &s, &c);
          if (a->mode == BAG_MAX) {
            float v = fmaf(s, q, c);
            if (count == 1 || max_takes(accf, v))
              accf = v;
            continue;
          }
          if (a->per_sample_weights) {
            float wt = load_f(BAG_F32, a->per_sample_weights, i);
            s = s * wt;
            c = c * wt;
          }
          accf = fmaf(s, q, accf + c);
          continue;
        }
        if (a->mode == BAG_MAX) {
          if (maxk < 0)
            maxk = w;
          else if (f64 ? max_takes(load_d(a->weight, maxk),
                                   load_d(a->weight, w))
                       : max_takes(load_f(a->dtype, a->weight, maxk),
                                   load_f(a->dtype, a->weight, w)))
            maxk = w;
          continue;
        }
        if (f64) {
          double x = load_d(a->weight, w);
          accd = a->per_sample_weights
                     ? fma(load_d(a->per_sample_weights, i), x, accd)
                     : accd + x;
        } else {
          float x = load_f(a->dtype, a->weight, w);
          accf = a->per_sample_weights
                     ? fmaf(load_f(a->dtype, a->per_sample_weights, i), x,
                            accf)
                     : accf + x;
        }
      }
      unsigned char *dst = (unsigned char *)out + (size_t)o * es;
      if (count == 0) { /* an empty bag: +0 in every mode */
        memset(dst, 0, es);
        continue;
      }
      if (a->mode == BAG_MAX && quantized) { /* a value computed, not read */
        store_f(BAG_F32, out, o, ref_canon_f(accf));
        continue;
      }
      if (a->mode == BAG_MAX) {
        memcpy(dst, (const unsigned char *)a->weight + (size_t)maxk * es, es);
        continue;
      }
      if (f64) {
        double r = accd;
        if (a->mode == BAG_MEAN)
          r = accd / (double)count;
        else if (a->mode == BAG_SQRT_N)
          r = accd / sqrt((double)count);
        r = ref_canon_d(r);
        memcpy(dst, &r, 8);
        continue;
      }
      /* The sum rounded into the type, then divided in float and rounded
       * again (float32: the first rounding is none). */
      float s = round_to(a->dtype, accf), r = s;
      if (a->mode == BAG_MEAN)
        r = s / (float)count;
      else if (a->mode == BAG_SQRT_N)
        r = s / sqrtf((float)count);
      store_f(a->dtype, out, o, ref_canon_f(r));
    }
  return 0;
}
