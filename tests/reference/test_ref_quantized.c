/*
 * The plain-C reference of EmbeddingBag over tables quantized per row
 * (tools/reference/ref_embedding_bag.c, ref_bag_args.weight_format: 8, 4
 * and 2 bits) held to PyTorch's own operators, bit for bit: the vectors in
 * quantized_torch_vectors.h were computed by
 * torch.ops.quantized.embedding_bag_*_rowwise_offsets (FBGEMM, Debian's
 * python3-torch 1.13; scripts/make_quantized_vectors.py), so this suite
 * needs no Python. Sum with and without per-sample weights is torch's
 * result; mean and max (torch 1.13 returns the sum for both) are derived
 * here from torch's sums and from each entry's dequantized row.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "reference/reference.h"

#include "quantized_torch_vectors.h"

#define NCASES (sizeof qv_cases / sizeof qv_cases[0])

static float bits_f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static ref_bag_args args(const qv_case *c, int mode, const float *psw) {
  ref_bag_args a;
  memset(&a, 0, sizeof a);
  a.mode = mode;
  a.form = 0;  /* offsets */
  a.dtype = 1; /* float32 */
  a.weight_format = c->weight_format;
  a.weight = c->weight;
  a.num_embeddings = QV_E;
  a.dim = QV_DIM;
  a.indices = qv_indices;
  a.index_type = REF_INDEX_I64;
  a.indices_rank = 1;
  a.indices_shape[0] = QV_N;
  a.bags = qv_offsets;
  a.bags_type = REF_INDEX_I64;
  a.bags_len = QV_B;
  a.per_sample_weights = psw;
  a.num_bags = QV_B;
  return a;
}

static int64_t bag_end(int64_t b) {
  return b + 1 < QV_B ? qv_offsets[b + 1] : QV_N;
}

Test(ref_quantized, row_bytes_are_torch_prepack_widths) {
  for (size_t k = 0; k < NCASES; ++k)
    cr_expect_eq(ref_qrow_bytes(qv_cases[k].weight_format, QV_DIM),
                 qv_cases[k].row_bytes, "format %d",
                 (int)qv_cases[k].weight_format);
  cr_expect_eq(ref_qrow_bytes(REF_QROW_4BIT, 7), -1, "4 bits, odd dim");
  cr_expect_eq(ref_qrow_bytes(REF_QROW_2BIT, 6), -1, "2 bits, dim 6");
  cr_expect_eq(ref_qrow_bytes(9, 16), -1, "unknown format");
}

/* Sum, with and without per-sample weights: torch's bits. */
Test(ref_quantized, sum_is_torch_bit_for_bit) {
  float psw[QV_N], out[QV_B * QV_DIM];
  for (int i = 0; i < QV_N; ++i)
    psw[i] = bits_f(qv_psw[i]);
  for (size_t k = 0; k < NCASES; ++k) {
    const qv_case *c = &qv_cases[k];
    ref_bag_args a = args(c, 0, c->psw ? psw : NULL);
    cr_assert_eq(ref_embedding_bag(&a, out), 0, "case %zu refused", k);
    for (int e = 0; e < QV_B * QV_DIM; ++e) {
      uint32_t got;
      memcpy(&got, &out[e], 4);
      cr_expect_eq(got, c->out[e],
                   "format %d%s: bag %d column %d: %a, torch %a",
                   (int)c->weight_format, c->psw ? " weighted" : "", e / QV_DIM,
                   e % QV_DIM, (double)out[e], (double)bits_f(c->out[e]));
    }
  }
}

/* Mean: torch's sum divided by the bag's count, in float32; max: the
 * largest of the bag's dequantized rows (each torch's bag of one entry);
 * an empty bag is +0 in both. */
Test(ref_quantized, mean_and_max_follow_torch_rows) {
  float out[QV_B * QV_DIM];
  for (size_t k = 0; k < NCASES; k += 2) { /* the unweighted cases */
    const qv_case *c = &qv_cases[k];
    ref_bag_args a = args(c, 1, NULL);
    cr_assert_eq(ref_embedding_bag(&a, out), 0);
    for (int e = 0; e < QV_B * QV_DIM; ++e) {
      int64_t b = e / QV_DIM, count = bag_end(b) - qv_offsets[b];
      float want = count ? bits_f(c->out[e]) / (float)count : 0.0f;
      cr_expect(memcmp(&out[e], &want, 4) == 0,
                "format %d mean: bag %d column %d: %a, want %a",
                (int)c->weight_format, (int)b, e % QV_DIM, (double)out[e],
                (double)want);
    }
    a = args(c, 2, NULL);
    cr_assert_eq(ref_embedding_bag(&a, out), 0);
    for (int e = 0; e < QV_B * QV_DIM; ++e) {
      int64_t b = e / QV_DIM, j = e % QV_DIM;
      float want = 0.0f;
      for (int64_t i = qv_offsets[b]; i < bag_end(b); ++i) {
        float v = bits_f(c->rows[i * QV_DIM + j]);
        if (i == qv_offsets[b] || v > want)
          want = v;
      }
      cr_expect(memcmp(&out[e], &want, 4) == 0,
                "format %d max: bag %d column %d: %a, want %a",
                (int)c->weight_format, (int)b, (int)j, (double)out[e],
                (double)want);
    }
  }
}

/* A quantized table is float32's only, and its dim must fit the packing. */
Test(ref_quantized, refuses_what_it_cannot_define) {
  float out[QV_B * QV_DIM];
  ref_bag_args a = args(&qv_cases[0], 0, NULL);
  a.dtype = 10; /* float16 */
  cr_expect_eq(ref_embedding_bag(&a, out), -1, "float16 output");
  a = args(&qv_cases[2], 0, NULL);
  a.dim = 15;
  cr_expect_eq(ref_embedding_bag(&a, out), -1, "4 bits, odd dim");
}
