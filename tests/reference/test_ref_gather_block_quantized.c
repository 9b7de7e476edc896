/*
 * GatherBlockQuantized's plain-C reference (tools/reference/
 * ref_gather_block_quantized.c) against values written out here from the
 * operator's definition (ONNX Runtime's contrib spec; ONNX DequantizeLinear
 * with block_size), one layout at a time: ONNX Runtime is not in Debian and
 * python3-onnx 1.12 predates blocked DequantizeLinear.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "reference/reference.h"

/* Two 4-bit values a byte, the even element in the low nibble. */
static void pack4(unsigned char *dst, const int *v, int n) {
  memset(dst, 0, (size_t)(n + 1) / 2);
  for (int e = 0; e < n; ++e)
    dst[e / 2] |= (unsigned char)((v[e] & 15) << (e % 2 * 4));
}

static ref_gbq_args base(int32_t kind, int bits, int32_t r, const int64_t *sh,
                         const void *data, const int64_t *idx, int64_t nidx,
                         const void *scales) {
  ref_gbq_args a;
  memset(&a, 0, sizeof a);
  a.kind = kind;
  a.bits = bits;
  a.data = data;
  a.rank = r;
  memcpy(a.shape, sh, (size_t)r * sizeof *sh);
  a.indices = idx;
  a.index_type = REF_INDEX_I64;
  a.indices_rank = 1;
  a.indices_shape[0] = nidx;
  a.gather_axis = 0;
  a.quantize_axis = r - 1;
  a.block_size = 16;
  a.scales = scales;
  a.scale_dtype = 1;
  return a;
}

/* uint4 [3, 32], blocks of 16 along the rows, rows 2 and 0 (-3) gathered;
 * no zero point (0), then zero points [3, 2]. */
Test(ref_gbq, uint4_rows_with_and_without_zero_points) {
  int v[96], zv[6] = {1, 15, 0, 7, 3, 8};
  unsigned char data[48], zp[3];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 32; ++c)
      v[r * 32 + c] = (r * 7 + c) % 16;
  pack4(data, v, 96);
  pack4(zp, zv, 6);
  const float scales[6] = {0.5f, 2.0f, 0.25f, 1.0f, 4.0f, 0.125f};
  const int64_t sh[2] = {3, 32}, idx[2] = {2, -3};
  float out[64];
  for (int with_zp = 0; with_zp < 2; ++with_zp) {
    ref_gbq_args a = base(REF_GBQ_UINT4, 4, 2, sh, data, idx, 2, scales);
    a.zero_points = with_zp ? zp : NULL;
    cr_assert_eq(ref_gather_block_quantized(&a, out), 0);
    for (int i = 0; i < 2; ++i) {
      int row = i == 0 ? 2 : 0;
      for (int c = 0; c < 32; ++c) {
        int p = with_zp ? zv[row * 2 + c / 16] : 0;
        float want = (float)(v[row * 32 + c] - p) * scales[row * 2 + c / 16];
        cr_expect_eq(out[i * 32 + c], want, "zp %d out[%d][%d]: %g, want %g",
                     with_zp, i, c, (double)out[i * 32 + c], (double)want);
      }
    }
  }
}

/* int4: nibbles 8..15 are -8..-1; zero points int4 too. */
Test(ref_gbq, int4_is_sign_extended) {
  int v[32], zv[2] = {-2, 3};
  unsigned char data[16], zp[1];
  for (int c = 0; c < 32; ++c)
    v[c] = (c * 3) % 16 - 8;
  pack4(data, v, 32);
  pack4(zp, zv, 2);
  const float scales[2] = {0.75f, -1.5f};
  const int64_t sh[2] = {1, 32}, idx[1] = {0};
  float out[32];
  ref_gbq_args a = base(REF_GBQ_INT4, 4, 2, sh, data, idx, 1, scales);
  a.zero_points = zp;
  cr_assert_eq(ref_gather_block_quantized(&a, out), 0);
  for (int c = 0; c < 32; ++c) {
    float want = (float)(v[c] - zv[c / 16]) * scales[c / 16];
    cr_expect_eq(out[c], want, "[%d]: %g, want %g", c, (double)out[c],
                 (double)want);
  }
}

/* uint8 storage, bits 8: [2, 20], blocks of 16 (the second holds 4), no
 * zero point: 128. */
Test(ref_gbq, uint8_bytes_default_zero_point_and_partial_block) {
  unsigned char data[40];
  for (int e = 0; e < 40; ++e)
    data[e] = (unsigned char)(e * 13 + 7);
  const float scales[4] = {0.5f, 3.0f, -0.25f, 1.0f};
  const int64_t sh[2] = {2, 20}, idx[3] = {1, 1, 0};
  float out[60];
  ref_gbq_args a = base(REF_GBQ_UINT8, 8, 2, sh, data, idx, 3, scales);
  cr_assert_eq(ref_gather_block_quantized(&a, out), 0);
  for (int i = 0; i < 3; ++i)
    for (int c = 0; c < 20; ++c) {
      int row = i < 2 ? 1 : 0;
      float want = (float)(data[row * 20 + c] - 128) * scales[row * 2 + c / 16];
      cr_expect_eq(out[i * 20 + c], want, "out[%d][%d]: %g, want %g", i, c,
                   (double)out[i * 20 + c], (double)want);
    }
}

/* uint8 storage, bits 4: values [2, 40] in [2, 20] bytes, 3 blocks a row;
 * zero points two a byte, each row of them starting a byte (2 bytes a
 * row), as ONNX Runtime packs them. */
Test(ref_gbq, uint8_nibbles_zero_points_packed_per_row) {
  int v[80];
  unsigned char data[40];
  for (int e = 0; e < 80; ++e)
    v[e] = (e * 5 + 3) % 16;
  pack4(data, v, 80);
  const int zv[2][3] = {{4, 9, 15}, {0, 2, 11}};
  unsigned char zp[4] = {(unsigned char)(4 | 9 << 4), 15,
                         (unsigned char)(0 | 2 << 4), 11};
  const float scales[6] = {1.0f, 0.5f, 2.0f, -1.0f, 0.25f, 8.0f};
  const int64_t sh[2] = {2, 40}, idx[2] = {-1, 0};
  float out[80];
  ref_gbq_args a = base(REF_GBQ_UINT8, 4, 2, sh, data, idx, 2, scales);
  a.zero_points = zp;
  cr_assert_eq(ref_gather_block_quantized(&a, out), 0);
  for (int i = 0; i < 2; ++i)
    for (int c = 0; c < 40; ++c) {
      int row = i == 0 ? 1 : 0, b = c / 16;
      float want = (float)(v[row * 40 + c] - zv[row][b]) * scales[row * 3 + b];
      cr_expect_eq(out[i * 40 + c], want, "out[%d][%d]: %g, want %g", i, c,
                   (double)out[i * 40 + c], (double)want);
    }
}

/* Blocks along axis 0, columns gathered (axis 1): uint4 [32, 3], scales
 * [2, 3], column 2 then column 1. */
Test(ref_gbq, quantize_axis_before_gather_axis) {
  int v[96];
  unsigned char data[48];
  for (int e = 0; e < 96; ++e)
    v[e] = (e * 11) % 16;
  pack4(data, v, 96);
  const float scales[6] = {1.0f, 2.0f, 3.0f, 0.5f, 0.25f, 0.125f};
  const int64_t sh[2] = {32, 3}, idx[2] = {2, 1};
  float out[64];
  ref_gbq_args a = base(REF_GBQ_UINT4, 4, 2, sh, data, idx, 2, scales);
  a.gather_axis = 1;
  a.quantize_axis = 0;
  cr_assert_eq(ref_gather_block_quantized(&a, out), 0);
  for (int r = 0; r < 32; ++r)
    for (int i = 0; i < 2; ++i) {
      int col = i == 0 ? 2 : 1;
      float want = (float)v[r * 3 + col] * scales[(r / 16) * 3 + col];
      cr_expect_eq(out[r * 2 + i], want, "out[%d][%d]: %g, want %g", r, i,
                   (double)out[r * 2 + i], (double)want);
    }
}

/* float16 scales: the float32 product rounded once into float16. */
Test(ref_gbq, float16_scales_round_the_product) {
  int v[16];
  unsigned char data[8];
  for (int c = 0; c < 16; ++c)
    v[c] = c;
  pack4(data, v, 16);
  const uint16_t scale = 0x3555; /* 0.333251953125 */
  const int64_t sh[2] = {1, 16}, idx[1] = {0};
  uint16_t out[16];
  ref_gbq_args a = base(REF_GBQ_UINT4, 4, 2, sh, data, idx, 1, &scale);
  a.scale_dtype = 10;
  cr_assert_eq(ref_gather_block_quantized(&a, out), 0);
  for (int c = 0; c < 16; ++c) {
    uint16_t want = ref_float_to_half((float)c * 0.333251953125f);
    cr_expect_eq(out[c], want, "[%d]: %#x, want %#x", c, out[c], want);
  }
}

/* Refused: an index out of range (ONNX Runtime writes zeros), a block
 * size that is not a power of two of at least 16, uint8 storage on
 * another gather axis. */
Test(ref_gbq, refusals) {
  unsigned char data[32] = {0};
  const float scales[2] = {1.0f, 1.0f};
  const int64_t sh[2] = {2, 16}, bad[1] = {2}, neg[1] = {-3}, ok[1] = {1};
  float out[32];
  ref_gbq_args a = base(REF_GBQ_UINT8, 8, 2, sh, data, bad, 1, scales);
  cr_expect_eq(ref_gather_block_quantized(&a, out), -1, "index 2 of 2");
  a = base(REF_GBQ_UINT8, 8, 2, sh, data, neg, 1, scales);
  cr_expect_eq(ref_gather_block_quantized(&a, out), -1, "index -3 of 2");
  a = base(REF_GBQ_UINT8, 8, 2, sh, data, ok, 1, scales);
  a.block_size = 24;
  cr_expect_eq(ref_gather_block_quantized(&a, out), -1, "block 24");
  a.block_size = 8;
  cr_expect_eq(ref_gather_block_quantized(&a, out), -1, "block 8");
  a = base(REF_GBQ_UINT8, 8, 2, sh, data, ok, 1, scales);
  a.gather_axis = 1;
  a.quantize_axis = 0;
  cr_expect_eq(ref_gather_block_quantized(&a, out), -1, "uint8, axis 1");
  a = base(REF_GBQ_UINT8, 8, 2, sh, data, ok, 1, scales);
  cr_expect_eq(ref_gather_block_quantized(&a, out), 0, "the valid base");
}
