/* GatherBlockQuantized's bad inputs (gather_block_quantized.h): the one
 * catalogue, each a valid base call broken in one place, with the status
 * and the message clgather_quantized.h gives it. The Criterion suite
 * (tests/check/test_gbq_catalogue.c) and `clgather selftest`
 * (selftest_bad.c) run every entry; the errors no table of values can make
 * (NULL arguments, strided descriptors, misaligned offsets, overlapping
 * operands, small buffers) are tests/ops/test_gather_block_quantized.c's
 * own. */
#include "cases/gather_block_quantized.h"

#include <stdlib.h>
#include <string.h>

#define S(x) CLG_ERROR_##x
#define AT1(a) .ints = {a}, .nints = 1
#define AT2(a, b) .ints = {a, b}, .nints = 2
#define ONE -1 /* pos2: a single index value set */

/* The base call (gbq_bad_make()): uint4 values [4, 32] in blocks of 16
 * along axis 1, scales and zero points [4, 2], int64 indices {0, -1, 2},
 * output [3, 32]. */
const gbq_bad gbq_bad_inputs[] = {
    /* the attributes */
    {"kind 7", GBQ_BAD_KIND, .value = 7, .want = S(INVALID_ARGUMENT),
     .needles = "kind", AT1(7)},
    {"uint8 with bits 6", GBQ_BAD_KIND_BITS, .value = 6,
     .want = S(INVALID_ARGUMENT), .needles = "bits;8 or 4", AT1(6)},
    {"uint4 with bits 8", GBQ_BAD_BITS, .value = 8, .want = S(INVALID_ARGUMENT),
     .needles = "bits;CLG_GBQ_UINT4", AT1(8)},
    {"block_size 24 (not a power of two)", GBQ_BAD_BLOCK_SIZE, .value = 24,
     .want = S(INVALID_ARGUMENT), .needles = "block_size", AT1(24)},
    {"block_size 8 (under 16)", GBQ_BAD_BLOCK_SIZE, .value = 8,
     .want = S(INVALID_ARGUMENT), .needles = "block_size", AT1(8)},
    {"reserved[2] = 1", GBQ_BAD_RESERVED, .value = 1,
     .want = S(INVALID_ARGUMENT), .needles = "reserved"},
    {"gather_axis 2 of rank 2", GBQ_BAD_GATHER_AXIS, .value = 2,
     .want = S(INVALID_AXIS), .needles = "gather_axis"},
    {"quantize_axis -3 of rank 2", GBQ_BAD_QUANTIZE_AXIS, .value = -3,
     .want = S(INVALID_AXIS), .needles = "quantize_axis"},
    {"uint8 with gather_axis 1", GBQ_BAD_UINT8_GATHER_AXIS, .value = 1,
     .want = S(INVALID_AXIS), .needles = "CLG_GBQ_UINT8;gather_axis 1"},
    {"uint8 with quantize_axis 0 (not the last)", GBQ_BAD_UINT8_QUANTIZE_AXIS,
     .value = 0, .want = S(INVALID_AXIS),
     .needles = "CLG_GBQ_UINT8;quantize_axis 0"},
    /* the element types */
    {"data int8", GBQ_BAD_DTYPE, .operand = GBQC_DATA, .value = CLG_DTYPE_INT8,
     .want = S(UNSUPPORTED_DTYPE), .needles = "data;int8"},
    {"scales and output float64", GBQ_BAD_SCALES_DTYPE,
     .value = CLG_DTYPE_DOUBLE, .want = S(UNSUPPORTED_DTYPE),
     .needles = "scales;double"},
    {"zero_points int8", GBQ_BAD_DTYPE, .operand = GBQC_ZERO_POINTS,
     .value = CLG_DTYPE_INT8, .want = S(DTYPE_MISMATCH),
     .needles = "zero_points;int8"},
    {"output not scales' type", GBQ_BAD_OTHER_FLOAT, .operand = GBQC_OUTPUT,
     .want = S(DTYPE_MISMATCH), .needles = "output"},
    {"indices float", GBQ_BAD_DTYPE, .operand = GBQC_INDICES,
     .value = CLG_DTYPE_FLOAT, .want = S(INVALID_INDICES_DTYPE),
     .needles = "indices"},
    /* the shapes */
    {"scales [4, 3] for 2 blocks a row", GBQ_BAD_DIM, .operand = GBQC_SCALES,
     .dim = 1, .value = 3, .want = S(INCOMPATIBLE_SHAPES),
     .needles = "scales;[4, 3];[4, 2]"},
    {"zero_points [4, 1] for 2 blocks a row", GBQ_BAD_DIM,
     .operand = GBQC_ZERO_POINTS, .dim = 1, .value = 1,
     .want = S(INCOMPATIBLE_SHAPES), .needles = "zero_points;[4, 1];[4, 2]"},
    {"uint8 bits 4 zero_points unpacked ([4, 2], not [4, 1])",
     GBQ_BAD_UINT8_BITS4_DATA, .want = S(INCOMPATIBLE_SHAPES),
     .needles = "zero_points;[4, 2];[4, 1]"},
    {"output [3, 31]", GBQ_BAD_DIM, .operand = GBQC_OUTPUT, .dim = 1,
     .value = 31, .want = S(SHAPE_MISMATCH),
     .needles = "output;[3, 31];[3, 32]"},
    {"output [3, 33]", GBQ_BAD_DIM, .operand = GBQC_OUTPUT, .dim = 1,
     .value = 33, .want = S(SHAPE_MISMATCH),
     .needles = "output;[3, 33];[3, 32]"},
    {"data of rank 0", GBQ_BAD_RANK, .operand = GBQC_DATA, .value = 0,
     .want = S(INVALID_RANK), .needles = "data;rank 0"},
    {"data [-4, 32]", GBQ_BAD_DIM, .operand = GBQC_DATA, .dim = 0, .value = -4,
     .want = S(INVALID_SHAPE), .needles = "data", AT1(-4)},
    /* the index values: [-4, 3], the first bad one named */
    {"index 4 of 4 rows", GBQ_BAD_INDEX, .pos = 2, .value = 4, .pos2 = ONE,
     .want = S(INDEX_OUT_OF_BOUNDS), .needles = "indices[2];[-4, 3]", AT1(4)},
    {"index -5 of 4 rows", GBQ_BAD_INDEX, .pos = 2, .value = -5, .pos2 = ONE,
     .want = S(INDEX_OUT_OF_BOUNDS), .needles = "indices[2];[-4, 3]", AT1(-5)},
    {"two bad indices: the first named", GBQ_BAD_INDEX, .pos = 1, .value = 9,
     .pos2 = 2, .value2 = -7, .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[1];[-4, 3]", AT1(9)},
    {"int32 indices, index INT32_MIN", GBQ_BAD_INDEX, .pos = 0,
     .value = INT32_MIN, .pos2 = ONE, .indices_int32 = true,
     .want = S(INDEX_OUT_OF_BOUNDS), .needles = "indices[0];[-4, 3]",
     AT1(INT32_MIN)},
    {"int64 index INT64_MAX", GBQ_BAD_INDEX, .pos = 0, .value = INT64_MAX,
     .pos2 = ONE, .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[0];[-4, 3]", AT1(INT64_MAX)},
};
const size_t gbq_bad_count = sizeof gbq_bad_inputs / sizeof gbq_bad_inputs[0];

static size_t bytes_of(clg_dtype dt, int32_t rank, const int64_t *shape) {
  size_t n = clg_dtype_size(dt);
  for (int32_t d = 0; d < rank; ++d)
    n *= shape[d] > 0 ? (size_t)shape[d] : 0u;
  return n;
}

int gbq_bad_make(const gbq_bad *e, clg_dtype sdt, gbq_case *c, gbq_operands *o,
                 gbq_inputs *in) {
  static const int64_t idx[3] = {0, -1, 2};
  memset(in, 0, sizeof *in);
  memset(c, 0, sizeof *c);
  c->p.kind = CLG_GBQ_UINT4;
  c->p.bits = 4;
  c->p.gather_axis = 0;
  c->p.quantize_axis = 1;
  c->p.block_size = 16;
  c->rank = 2;
  c->shape[0] = 4;
  c->shape[1] = 32;
  c->idt = e->indices_int32 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
  c->irank = 1;
  c->ishape[0] = 3;
  c->sdt = sdt;
  c->zp = true;
  for (int k = 0; k < GBQC_NOPS; ++k)
    c->st[k].kind = CLG_STORAGE_HOST;
  gbq_case_operands(c, o);
  size_t base[GBQC_NOPS];
  for (int k = 0; k < GBQC_NOPS; ++k)
    base[k] = o->bytes[k];
  switch (e->edit) {
  case GBQ_BAD_KIND: c->p.kind = (uint32_t)e->value; break;
  case GBQ_BAD_BITS: c->p.bits = (int32_t)e->value; break;
  case GBQ_BAD_KIND_BITS:
    c->p.kind = CLG_GBQ_UINT8;
    c->p.bits = (int32_t)e->value;
    break;
  case GBQ_BAD_BLOCK_SIZE: c->p.block_size = e->value; break;
  case GBQ_BAD_RESERVED: c->p.reserved[2] = (uint32_t)e->value; break;
  case GBQ_BAD_GATHER_AXIS: c->p.gather_axis = e->value; break;
  case GBQ_BAD_QUANTIZE_AXIS: c->p.quantize_axis = e->value; break;
  case GBQ_BAD_UINT8_GATHER_AXIS:
  case GBQ_BAD_UINT8_QUANTIZE_AXIS:
    /* uint8 bits 8 [4, 32] takes these very operands, but for the axis */
    c->p.kind = CLG_GBQ_UINT8;
    c->p.bits = 8;
    if (e->edit == GBQ_BAD_UINT8_GATHER_AXIS)
      c->p.gather_axis = e->value;
    else
      c->p.quantize_axis = e->value;
    break;
  case GBQ_BAD_DTYPE: o->dtype[e->operand] = (clg_dtype)e->value; break;
  case GBQ_BAD_SCALES_DTYPE:
    o->dtype[GBQC_SCALES] = o->dtype[GBQC_OUTPUT] = (clg_dtype)e->value;
    break;
  case GBQ_BAD_OTHER_FLOAT:
    o->dtype[e->operand] =
        sdt == CLG_DTYPE_FLOAT ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT;
    break;
  case GBQ_BAD_DIM: o->shape[e->operand][e->dim] = e->value; break;
  case GBQ_BAD_RANK: o->rank[e->operand] = (int32_t)e->value; break;
  case GBQ_BAD_UINT8_BITS4_DATA:
    /* [4, 16] bytes: 32 values a row in 2 blocks, whose zero points are
     * one byte a row ([4, 1]); the base's [4, 2] is scales' shape */
    c->p.kind = CLG_GBQ_UINT8;
    o->shape[GBQC_DATA][1] = 16;
    break;
  case GBQ_BAD_INDEX: break;
  }
  /* Each input's bytes: the base's, or the broken descriptor's where they
   * are more (counted a value a byte: never too few); the output's, its
   * descriptor's. */
  for (int k = 0; k < GBQC_NOPS; ++k) {
    size_t b = bytes_of(o->dtype[k], o->rank[k], o->shape[k]);
    o->bytes[k] = k == GBQC_OUTPUT || b > base[k] ? b : base[k];
  }
  for (int k = 0; k < 4; ++k) {
    in->bytes[k] = o->bytes[k];
    in->op[k] = calloc(1, in->bytes[k] + 16);
    if (in->op[k] == NULL) {
      gbq_inputs_free(in);
      return -1;
    }
  }
  for (size_t k = 0; k < base[GBQC_DATA]; ++k)
    in->op[GBQC_DATA][k] = (unsigned char)(k * 37);
  memset(in->op[GBQC_ZERO_POINTS], 0x53, base[GBQC_ZERO_POINTS]);
  for (int k = 0; k < 8; ++k) {
    float f = 0.25f * (float)(k + 1);
    if (sdt == CLG_DTYPE_FLOAT16) {
      uint16_t h = ref_float_to_half(f);
      memcpy(in->op[GBQC_SCALES] + 2 * k, &h, 2);
    } else
      memcpy(in->op[GBQC_SCALES] + 4 * k, &f, 4);
  }
  for (int k = 0; k < 3; ++k)
    case_set_index(in->op[GBQC_INDICES], c->idt, k, idx[k]);
  if (e->edit == GBQ_BAD_INDEX) {
    case_set_index(in->op[GBQC_INDICES], c->idt, e->pos, e->value);
    if (e->pos2 >= 0)
      case_set_index(in->op[GBQC_INDICES], c->idt, e->pos2, e->value2);
  }
  return 0;
}
