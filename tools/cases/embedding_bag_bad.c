/* EmbeddingBag's bad inputs (embedding_bag.h): the one catalogue, each a
 * valid base call broken in one place, with the status and the message
 * clgather_bag.h gives it. The Criterion suite (tests/ops/
 * test_embedding_bag_errors.c) and `clgather selftest` (selftest_bad.c)
 * run every entry; the errors no table of values can make (NULL
 * arguments, tensor descriptors, sizes that overflow, small buffers) are
 * the suite's own. */
#include "cases/embedding_bag.h"

#include <stdlib.h>
#include <string.h>

#define OFFSETS CLG_BAGS_OFFSETS
#define FIXED CLG_BAGS_FIXED
#define SEGMENTS CLG_BAGS_SEGMENT_IDS
#define S(x) CLG_ERROR_##x
#define SET1(op, pos, v) .set = {{op, pos, v}}, .nsets = 1
#define SET2(op, pos, v, op2, pos2, v2)                                        \
  .set = {{op, pos, v}, {op2, pos2, v2}}, .nsets = 2
#define AT1(a) .ints = {a}, .nints = 1
#define AT2(a, b) .ints = {a, b}, .nints = 2
#define PARAMS(m, f, fl, r, pad)                                               \
  .params = true, .mode = m, .form_value = f, .flags = fl, .weight_format = r, \
  .padding_idx = pad

/* The base calls (bag_bad_make()): offsets {0 3 7 9}, segment ids
 * {0 0 1 1 1 2 2 3 3 3 3 3}, 12 indices {0 4 2 1 3 3 0 2 4 1 1 0} of a
 * weight of 5 rows, 4 bags. */
const bag_bad bag_bad_inputs[] = {
    /* the bags of each form, checked before the indices */
    {"offsets[0] = 2", OFFSETS, SET1(BAG_B, 0, 2), .want = S(INVALID_BAGS),
     .needles = "offsets|bags", AT2(0, 2)},
    {"decreasing offsets (0 3 7 6)", OFFSETS, SET1(BAG_B, 3, 6),
     .want = S(INVALID_BAGS), .needles = "offsets|bags", AT2(3, 6)},
    {"an offset above the 12 indices", OFFSETS,
     SET2(BAG_B, 2, 17, BAG_B, 3, 17), .want = S(INVALID_BAGS),
     .needles = "offsets|bags", AT2(2, 17)},
    {"int32 offsets, decreasing (0 5 4 9)", OFFSETS,
     SET2(BAG_B, 1, 5, BAG_B, 2, 4), .bags_int32 = true,
     .want = S(INVALID_BAGS), .needles = "offsets|bags", AT2(2, 4)},
    {"include_last_offset's last offset 11 of 12 indices", OFFSETS,
     SET1(BAG_B, 4, 11), .bags_len = 5,
     PARAMS(CLG_BAG_SUM, OFFSETS, CLG_BAG_INCLUDE_LAST_OFFSET, 0, 0),
     .want = S(INVALID_BAGS), .needles = "offsets|bags", AT2(4, 11)},
    {"bad offsets and a bad index: the offsets named", OFFSETS,
     SET2(BAG_B, 3, 6, BAG_I, 0, 77), .want = S(INVALID_BAGS),
     .needles = "offsets|bags", AT2(3, 6)},
    {"decreasing segment ids", SEGMENTS, SET1(BAG_B, 7, 1),
     .want = S(INVALID_BAGS), .needles = "segment", AT2(7, 1)},
    {"a negative segment id", SEGMENTS, SET1(BAG_B, 0, -3),
     .want = S(INVALID_BAGS), .needles = "segment", AT2(0, -3)},
    {"segment id 9 of 4 segments", SEGMENTS, SET1(BAG_B, 11, 9),
     .want = S(INVALID_BAGS), .needles = "segment", AT2(11, 9)},
    {"segment id 4 of 4 segments", SEGMENTS, SET1(BAG_B, 11, 4),
     .want = S(INVALID_BAGS), .needles = "segment", AT2(11, 4)},
    {"11 segment ids for 12 indices", SEGMENTS, .bags_len = 11,
     .want = S(INCOMPATIBLE_SHAPES), .needles = "segment|bags"},
    {"bad segment ids and a bad index: the ids named", SEGMENTS,
     SET2(BAG_B, 0, -1, BAG_I, 3, -1), .want = S(INVALID_BAGS),
     .needles = "segment", AT2(0, -1)},
    /* the indices: [0, num_embeddings), no counting from the back */
    {"index -2", OFFSETS, SET1(BAG_I, 5, -2), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices", AT2(5, -2)},
    {"index 5 of a weight of 5 rows", OFFSETS, SET1(BAG_I, 10, 5),
     .want = S(INDEX_OUT_OF_BOUNDS), .needles = "indices", AT2(10, 5)},
    {"two bad indices: the first named", OFFSETS,
     SET2(BAG_I, 3, 37, BAG_I, 8, -1), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices", AT2(3, 37)},
    {"index -1 with padding_idx -1 (it excuses nothing)", OFFSETS,
     SET1(BAG_I, 6, -1),
     PARAMS(CLG_BAG_SUM, OFFSETS, CLG_BAG_PADDING_IDX, 0, -1),
     .want = S(INDEX_OUT_OF_BOUNDS), .needles = "indices", AT2(6, -1)},
    {"fixed rows, index 41", FIXED, SET1(BAG_I, 7, 41),
     .want = S(INDEX_OUT_OF_BOUNDS), .needles = "indices", AT1(41)},
    {"int32 indices, index 99", SEGMENTS, SET1(BAG_I, 9, 99),
     .indices_int32 = true, .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices", AT2(9, 99)},
    /* the parameters */
    {"mode 4", OFFSETS, PARAMS(4, OFFSETS, 0, 0, 0),
     .want = S(INVALID_ARGUMENT), .needles = "mode"},
    {"mode -1", OFFSETS, PARAMS(-1, OFFSETS, 0, 0, 0),
     .want = S(INVALID_ARGUMENT), .needles = "mode"},
    {"form 3", OFFSETS, PARAMS(CLG_BAG_SUM, 3, 0, 0, 0),
     .want = S(INVALID_ARGUMENT), .needles = "form"},
    {"flag 4", OFFSETS, PARAMS(CLG_BAG_SUM, OFFSETS, 4u, 0, 0),
     .want = S(INVALID_ARGUMENT), .needles = "flag"},
    {"flag 1 << 31", OFFSETS, PARAMS(CLG_BAG_SUM, OFFSETS, 0x80000000u, 0, 0),
     .want = S(INVALID_ARGUMENT), .needles = "flag"},
    {"weight_format 9", OFFSETS, PARAMS(CLG_BAG_SUM, OFFSETS, 0, 9, 0),
     .want = S(INVALID_ARGUMENT), .needles = "weight_format;9"},
    {"include_last_offset with fixed rows", FIXED,
     PARAMS(CLG_BAG_SUM, FIXED, CLG_BAG_INCLUDE_LAST_OFFSET, 0, 0),
     .want = S(INVALID_ARGUMENT), .needles = "include_last_offset"},
    {"include_last_offset with segment ids", SEGMENTS,
     PARAMS(CLG_BAG_SUM, SEGMENTS, CLG_BAG_INCLUDE_LAST_OFFSET, 0, 0),
     .want = S(INVALID_ARGUMENT), .needles = "include_last_offset"},
    {"per_sample_weights with mode mean", OFFSETS,
     PARAMS(CLG_BAG_MEAN, OFFSETS, 0, 0, 0), .psw = true,
     .want = S(INVALID_ARGUMENT), .needles = "per_sample_weights"},
    {"per_sample_weights with mode max", OFFSETS,
     PARAMS(CLG_BAG_MAX, OFFSETS, 0, 0, 0), .psw = true,
     .want = S(INVALID_ARGUMENT), .needles = "per_sample_weights"},
    {"per_sample_weights with mode sqrt_n", SEGMENTS,
     PARAMS(CLG_BAG_SQRT_N, SEGMENTS, 0, 0, 0), .psw = true,
     .want = S(INVALID_ARGUMENT), .needles = "per_sample_weights"},
    {"padding_idx 5 of a weight of 5 rows", OFFSETS,
     PARAMS(CLG_BAG_SUM, OFFSETS, CLG_BAG_PADDING_IDX, 0, 5),
     .want = S(INVALID_ARGUMENT), .needles = "padding_idx", AT1(5)},
    {"padding_idx -6 of a weight of 5 rows", OFFSETS,
     PARAMS(CLG_BAG_SUM, OFFSETS, CLG_BAG_PADDING_IDX, 0, -6),
     .want = S(INVALID_ARGUMENT), .needles = "padding_idx", AT1(-6)},
    {"padding_idx INT64_MIN", FIXED,
     PARAMS(CLG_BAG_SUM, FIXED, CLG_BAG_PADDING_IDX, 0, INT64_MIN),
     .want = S(INVALID_ARGUMENT), .needles = "padding_idx"},
};
const size_t bag_bad_count = sizeof bag_bad_inputs / sizeof bag_bad_inputs[0];

bool bag_bad_in_values(const bag_bad *e) {
  return e->want == CLG_ERROR_INVALID_BAGS ||
         e->want == CLG_ERROR_INDEX_OUT_OF_BOUNDS;
}

static void put_float(unsigned char *dst, clg_dtype dt, int64_t k, float v) {
  if (dt == CLG_DTYPE_FLOAT) {
    memcpy(dst + 4 * (size_t)k, &v, 4);
    return;
  }
  uint16_t h = dt == CLG_DTYPE_FLOAT16 ? ref_float_to_half(v)
                                       : ref_float_to_bf16(v);
  memcpy(dst + 2 * (size_t)k, &h, 2);
}

int bag_bad_make(const bag_bad *e, clg_dtype dtype, bag_case *c,
                 bag_inputs *in) {
  static const int64_t idx[12] = {0, 4, 2, 1, 3, 3, 0, 2, 4, 1, 1, 0};
  static const int64_t off[4] = {0, 3, 7, 9},
                       ids[12] = {0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 3, 3};
  memset(in, 0, sizeof *in);
  *c = bag_make(CLG_BAG_SUM, e->form, dtype, 5, 3,
                e->form == CLG_BAGS_FIXED ? 3 : 12, 4);
  c->idt = e->indices_int32 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
  c->bdt = e->bags_int32 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
  c->psw = e->psw;
  in->bags_len = e->bags_len ? e->bags_len : bag_bags_len(c);
  if (e->params) {
    c->p.mode = (clg_bag_mode)e->mode;
    c->p.form = (clg_bag_form)e->form_value;
    c->p.flags = e->flags;
    c->p.weight_format = e->weight_format;
    c->p.padding_idx = e->padding_idx;
  }
  size_t es = clg_dtype_size(dtype);
  in->bytes[BAG_W] = 15 * es;
  in->bytes[BAG_I] = 12 * clg_dtype_size(c->idt);
  in->bytes[BAG_B] = (size_t)in->bags_len * clg_dtype_size(c->bdt);
  in->bytes[BAG_S] = 12 * es;
  for (int k = 0; k < 4; ++k)
    in->op[k] = calloc(1, in->bytes[k] + 16);
  if (!in->op[0] || !in->op[1] || !in->op[2] || !in->op[3]) {
    bag_inputs_free(in);
    return -1;
  }
  for (int k = 0; k < 15; ++k)
    put_float(in->op[BAG_W], dtype, k, 0.5f * (float)k);
  for (int k = 0; k < 12; ++k) {
    put_float(in->op[BAG_S], dtype, k, 0.25f * (float)(k - 5));
    case_set_index(in->op[BAG_I], c->idt, k, idx[k]);
  }
  const int64_t *bags = e->form == CLG_BAGS_SEGMENT_IDS ? ids : off;
  int64_t nb = e->form == CLG_BAGS_SEGMENT_IDS ? 12
               : e->form == CLG_BAGS_OFFSETS   ? 4
                                               : 0;
  for (int64_t k = 0; k < nb && k < in->bags_len; ++k)
    case_set_index(in->op[BAG_B], c->bdt, k, bags[k]);
  for (int k = 0; k < e->nsets; ++k)
    case_set_index(in->op[e->set[k].operand],
                   e->set[k].operand == BAG_I ? c->idt : c->bdt, e->set[k].pos,
                   e->set[k].value);
  return 0;
}
