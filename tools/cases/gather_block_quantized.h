/*
 * GatherBlockQuantized's cases (clg_gather_block_quantized(),
 * clgather/clgather_quantized.h: ONNX Runtime's com.microsoft
 * GatherBlockQuantized-1): its argument space, random valid cases drawn
 * from it, their inputs, their expected output by the plain-C reference
 * (ref_gather_block_quantized(), tools/reference/), the status a device
 * must give, the conformance set and the catalogue of bad inputs
 * (gather_block_quantized_bad.c). The Criterion suites (tests/support/
 * gbq_case.c: tests/ops/test_conformance.c, tests/check/
 * test_gbq_catalogue.c) and `clgather selftest` (tools/selftest/
 * selftest_gbq.c, selftest_bad.c) run these and describe none of their
 * own.
 */
#ifndef CLGATHER_CASES_GATHER_BLOCK_QUANTIZED_H
#define CLGATHER_CASES_GATHER_BLOCK_QUANTIZED_H

#include "cases/case.h"
#include "reference/reference.h"

/* The operands, in this order everywhere: data, indices, scales,
 * zero_points, output. */
enum {
  GBQC_DATA = 0,
  GBQC_INDICES = 1,
  GBQC_SCALES = 2,
  GBQC_ZERO_POINTS = 3,
  GBQC_OUTPUT = 4,
  GBQC_NOPS = 5
};

/* Values' shapes (and indices') stay this small: rank 3 at most. */
#define GBQC_MAX_RANK 3

/* One call: its attributes, the values' shape, the indices' shape and
 * type, the scales' type (the output's too), zero points or none, and
 * where each operand lives. */
typedef struct gbq_case {
  clg_gbq_params p; /* kind, bits, block_size, the axes as passed (negative
                       ones count from the back) */
  int32_t rank;     /* the values' (not the bytes') shape: 1 to 3 */
  int64_t shape[GBQC_MAX_RANK];
  clg_dtype idt; /* int32 or int64 */
  int32_t irank; /* 0 to 2 */
  int64_t ishape[GBQC_MAX_RANK];
  clg_dtype sdt; /* float32 or float16: scales and output */
  bool zp;       /* zero_points passed (else NULL: the kind's default) */
  case_storage st[GBQC_NOPS]; /* each operand's */
  bool async; /* the call: clg_gather_block_quantized_async() and its
                 outcome (else clg_gather_block_quantized()) */
} gbq_case;

/* The operands' descriptors for a call: each one's dtype, rank, shape
 * (data's and zero_points' are their bytes' shapes, as
 * clgather_quantized.h says for the kind) and bytes. */
typedef struct gbq_operands {
  clg_dtype dtype[GBQC_NOPS];
  int32_t rank[GBQC_NOPS];
  int64_t shape[GBQC_NOPS][CLG_MAX_RANK];
  size_t bytes[GBQC_NOPS];
} gbq_operands;

/* A random valid case of (kind, bits, scales' dtype, zero points), every
 * operand in host memory, drawn from seed: the values' rank 1 to 3 (odd
 * sizes: the 4-bit kinds' rows then share bytes), block_size 16 or 32, one
 * to three blocks along the quantize axis (the last partial in three draws
 * of four), the axes the kind allows (the
 * 4-bit kinds: any pair, the same axis too; negative forms in one draw of
 * three); `variant` picks int32 indices (bit 0), an empty indices' shape
 * (bit 1: a zero in it), indices of rank 0 (bit 2, else 1 or 2). */
gbq_case gbq_case_random(uint64_t seed, clg_gbq_kind kind, int32_t bits,
                         clg_dtype sdt, bool zp, unsigned variant);

/* Each operand's descriptor for c (the output's shape: V[:ga] + indices'
 * shape + V[ga+1:]). */
void gbq_case_operands(const gbq_case *c, gbq_operands *o);

/* "kind=uint4 bits=4 values=[5, 40] ga=0 qa=1 block=16 ..." into buf. */
const char *gbq_case_str(const gbq_case *c, char *buf, size_t cap);

/* The output's element count, and its bytes. */
int64_t gbq_output_count(const gbq_case *c);
size_t gbq_output_bytes(const gbq_case *c);

/* The status the device must give: CLG_SUCCESS, or
 * CLG_ERROR_UNSUPPORTED_DTYPE for float32 scales on a device without
 * single denormals (clgather_quantized.h). An empty output is never
 * refused. */
clg_status gbq_case_status(const gbq_case *c, const case_device *dev);

/* ------------------------------------------------------------ inputs */

/* The host images of a case's inputs (data, indices, scales, zero_points:
 * each allocated, zero_points even where the call passes none). */
typedef struct gbq_inputs {
  unsigned char *op[4];
  size_t bytes[4];
} gbq_inputs;

/* Draws the inputs of c from seed: random bytes of data and zero points,
 * valid indices (the first -s and the last s-1 where there are two, the
 * others uniform in [-s, s-1]), scales of both signs, magnitudes in
 * [2^-14, 2^4) or zero, never subnormal in their type (their products
 * with q - p are then never subnormal either, so a case holds on a device
 * that flushes subnormals and is told it keeps them,
 * CLGATHER_TEST_CLAIM_DENORM, as on one that keeps them). Returns 0, or -1
 * out of host memory (nothing then to free). */
int gbq_inputs_draw(const gbq_case *c, uint64_t seed, gbq_inputs *in);
void gbq_inputs_free(gbq_inputs *in);

/* The reference's arguments for c on in. */
void gbq_ref_args(const gbq_case *c, const gbq_inputs *in, ref_gbq_args *a);
/* The expected output (gbq_output_bytes() bytes into want) by
 * ref_gather_block_quantized(). Returns 0, or -1 when the reference
 * refuses the case (a bug of the case). */
int gbq_expect(const gbq_case *c, const gbq_inputs *in, void *want);

/* --------------------------- bad inputs (gather_block_quantized_bad.c) */

/* What a bad input changes in the base call (gbq_bad_make()). */
typedef enum gbq_bad_edit {
  GBQ_BAD_KIND = 0,            /* params.kind = value */
  GBQ_BAD_BITS,                /* params.bits = value */
  GBQ_BAD_KIND_BITS,           /* params.kind = CLG_GBQ_UINT8, bits = value */
  GBQ_BAD_BLOCK_SIZE,          /* params.block_size = value */
  GBQ_BAD_RESERVED,            /* params.reserved[2] = value */
  GBQ_BAD_GATHER_AXIS,         /* params.gather_axis = value */
  GBQ_BAD_QUANTIZE_AXIS,       /* params.quantize_axis = value */
  GBQ_BAD_UINT8_GATHER_AXIS,   /* kind uint8 bits 8, gather_axis = value */
  GBQ_BAD_UINT8_QUANTIZE_AXIS, /* kind uint8 bits 8, quantize_axis = value */
  GBQ_BAD_DTYPE,               /* operand's dtype = value (a clg_dtype) */
  GBQ_BAD_SCALES_DTYPE,        /* scales' and output's dtype = value */
  GBQ_BAD_OTHER_FLOAT,      /* operand's dtype: the other of float32/float16 */
  GBQ_BAD_DIM,              /* operand's shape[dim] = value */
  GBQ_BAD_RANK,             /* operand's rank = value */
  GBQ_BAD_UINT8_BITS4_DATA, /* kind uint8 bits 4, data's bytes [4, 16] */
  GBQ_BAD_INDEX, /* indices[pos] = value (and pos2 = value2 if set) */
} gbq_bad_edit;

/* One bad input: the valid base call broken in one place, with the status
 * every call of it must return before writing anything, and what its
 * message must name. */
typedef struct gbq_bad {
  const char *name;
  gbq_bad_edit edit;
  int operand; /* GBQC_*, for the edits of an operand */
  int dim;     /* GBQ_BAD_DIM */
  int64_t value;
  int64_t pos, pos2, value2; /* GBQ_BAD_INDEX (pos2 < 0: one value) */
  bool indices_int32;        /* the base's indices as int32 */
  clg_status want;
  /* what the message names: every ';'-item (case_message_has()) and
   * every number of ints[0..nints-1] */
  const char *needles;
  int64_t ints[2];
  int nints;
} gbq_bad;

extern const gbq_bad gbq_bad_inputs[];
extern const size_t gbq_bad_count;

/* The base call broken by e: kind uint4 bits 4, values [4, 32] (16 bytes
 * of data), gather_axis 0, quantize_axis 1, block_size 16, scales [4, 2]
 * of sdt (float32 or float16; 0.25 * (k + 1)), zero points [4, 2] (4
 * bytes), int64 indices [3] {0, -1, 2}, output [3, 32] of sdt. *c holds
 * the params and the storage (every operand host memory: set c->st
 * before a call), *o the (broken) descriptors (an input's bytes: at least
 * the base's), *in the inputs' images of o's bytes (gbq_inputs_free()).
 * Returns 0, or -1 out of host memory. */
int gbq_bad_make(const gbq_bad *e, clg_dtype sdt, gbq_case *c, gbq_operands *o,
                 gbq_inputs *in);

#endif /* CLGATHER_CASES_GATHER_BLOCK_QUANTIZED_H */
