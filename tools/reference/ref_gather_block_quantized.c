/* GatherBlockQuantized's reference (reference.h): ONNX Runtime's
 * com.microsoft GatherBlockQuantized-1, the same as ONNX Gather followed by
 * DequantizeLinear-21 with block_size, except that an index out of range
 * is refused (ONNX Runtime's CPU kernel writes zeros there). */
#include "reference/reference.h"

#include <stdbool.h>
#include <string.h>

#if defined(__clang__) || !defined(__GNUC__)
#pragma STDC FP_CONTRACT OFF
#endif

enum { GBQ_F32 = 1, GBQ_F16 = 10 };

/* Value e of a packed array of kind (and bits, for uint8 storage). */
static int32_t code_at(int32_t kind, int bits, const unsigned char *p,
                       int64_t e) {
  if (kind == REF_GBQ_UINT8 && bits == 8)
    return p[e];
  int32_t v = (p[e >> 1] >> ((e & 1) * 4)) & 15;
  return kind == REF_GBQ_INT4 && v > 7 ? v - 16 : v;
}

static float scale_at(int32_t dtype, const void *p, int64_t k) {
  if (dtype == GBQ_F32) {
    float f;
    memcpy(&f, (const unsigned char *)p + (size_t)k * 4u, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, (const unsigned char *)p + (size_t)k * 2u, 2);
  return ref_half_to_float(h);
}

int ref_gather_block_quantized(const ref_gbq_args *a, void *out) {
  int32_t r = a->rank;
  if (r < 1 || r > REF_MAX_RANK || a->indices_rank < 0 ||
      r - 1 + a->indices_rank > REF_MAX_RANK)
    return -1;
  bool four_bit = a->kind == REF_GBQ_UINT4 || a->kind == REF_GBQ_INT4;
  if (a->kind == REF_GBQ_UINT8 ? a->bits != 8 && a->bits != 4
                               : !four_bit || a->bits != 4)
    return -1;
  if (a->scale_dtype != GBQ_F32 && a->scale_dtype != GBQ_F16)
    return -1;
  if (a->block_size < 16 || (a->block_size & (a->block_size - 1)) != 0)
    return -1;
  int64_t ga = a->gather_axis < 0 ? a->gather_axis + r : a->gather_axis;
  int64_t qa = a->quantize_axis < 0 ? a->quantize_axis + r : a->quantize_axis;
  if (ga < 0 || ga >= r || qa < 0 || qa >= r)
    return -1;
  /* uint8 storage: ONNX Runtime's rule (rows gathered, packed along them) */
  if (a->kind == REF_GBQ_UINT8 && (ga != 0 || qa != r - 1))
    return -1;
  for (int32_t d = 0; d < r; ++d)
    if (a->shape[d] < 0)
      return -1;
  int64_t s = a->shape[ga];
  int64_t n = ref_numel(a->indices_rank, a->indices_shape);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = ref_index_at(a->indices, a->index_type, i);
    if (v < -s || v > s - 1)
      return -1;
  }
  /* data as [M, s, inner] around the gather axis; as [X, Q, N] around the
   * quantize axis, with nb = ceil(Q / block_size) blocks on it */
  int64_t M = ref_numel((int32_t)ga, a->shape);
  int64_t inner = ref_numel(r - (int32_t)ga - 1, a->shape + ga + 1);
  int64_t Q = a->shape[qa];
  int64_t N = ref_numel(r - (int32_t)qa - 1, a->shape + qa + 1);
  int64_t nb = (Q + a->block_size - 1) / a->block_size;
  int64_t zp_row = (nb + 1) / 2; /* uint8 storage, bits 4: per row */
  const unsigned char *data = a->data, *zp = a->zero_points;
  int64_t o = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = ref_index_at(a->indices, a->index_type, i);
      v = v < 0 ? v + s : v;
      for (int64_t t = 0; t < inner; ++t, ++o) {
        int64_t e = (m * s + v) * inner + t;
        int64_t x = e / (Q * N), y = e / N % Q, z = e % N;
        int64_t k = (x * nb + y / a->block_size) * N + z;
        int32_t q = code_at(a->kind, a->bits, data, e), p;
        if (zp == NULL)
          p = a->kind == REF_GBQ_UINT8 ? 1 << (a->bits - 1) : 0;
        else if (a->kind == REF_GBQ_UINT8 && a->bits == 8)
          p = zp[k];
        else if (a->kind == REF_GBQ_UINT8) /* N is 1: k = x * nb + block */
          p = (zp[k / nb * zp_row + k % nb / 2] >> (k % nb % 2 * 4)) & 15;
        else
          p = code_at(a->kind, 4, zp, k);
        float f = (float)(q - p) * scale_at(a->scale_dtype, a->scales, k);
        if (a->scale_dtype == GBQ_F32)
          memcpy((unsigned char *)out + (size_t)o * 4u, &f, 4);
        else {
          uint16_t h = ref_float_to_half(f);
          memcpy((unsigned char *)out + (size_t)o * 2u, &h, 2);
        }
      }
    }
  return 0;
}
