/*
 * EmbeddingBag's cases (clg_embedding_bag(), clgather/clgather_bag.h; the
 * semantics of PyTorch's torch.nn.functional.embedding_bag and
 * TensorFlow's segment reductions): its argument space, random valid cases
 * drawn from it, their inputs, their expected output by the plain-C
 * reference (ref_embedding_bag(), tools/reference/), the status a device
 * must give, and the catalogue of bad inputs (embedding_bag_bad.c). The
 * Criterion suites (tests/support/bag_case.c, bag_fx.c) and `clgather
 * selftest` (tools/selftest/selftest_bag.c, selftest_bad.c) run these and
 * describe none of their own.
 */
#ifndef CLGATHER_CASES_EMBEDDING_BAG_H
#define CLGATHER_CASES_EMBEDDING_BAG_H

#include "cases/case.h"
#include "reference/reference.h"

/* What the weight table (and per_sample_weights) hold. */
typedef enum bag_data {
  BAG_DATA_RANDOM = 0,  /* finite values of both signs, full mantissas, one
                           in 24 subnormal in the element type */
  BAG_DATA_SPECIAL = 1, /* mostly +0, -0, +-1 (ties) and quiet NaNs of
                           distinct payloads: for max */
  BAG_DATA_SMALL_INT = 2, /* small integers: many ties, exact sums */
} bag_data;

/* The operands, in this order everywhere: weight, indices, bags,
 * per_sample_weights, output. */
enum { BAG_W = 0, BAG_I = 1, BAG_B = 2, BAG_S = 3, BAG_O = 4 };

/* One call: its arguments, the shapes and element types of its operands,
 * what their values are drawn as, and where each lives. */
typedef struct bag_case {
  clg_bag_params p; /* mode, form, flags (include_last_offset, padding_idx),
                       padding_idx as passed (may be negative),
                       weight_format */
  clg_dtype dtype;  /* per_sample_weights, output, a dense weight (float32
                       with a quantized one: uint8, bag_weight_shape()) */
  int64_t num_embeddings, dim;
  clg_dtype idt, bdt; /* indices, bags */
  int64_t n;          /* offsets and segment ids: the number of indices */
  int64_t B;          /* bags (segment ids: num_segments) */
  int64_t L;          /* fixed: entries per bag */
  int64_t seg_gap;    /* segment ids: drawn in [0, B - 1 - seg_gap] */
  int pad_pct;        /* with padding_idx: percent of entries equal to it */
  bool psw;
  bag_data data;
  case_storage st[5]; /* each operand's */
  /* the call: an event asked for, a wait list, clg_embedding_bag_async(),
   * the caller's own command queue (else the context's) */
  bool want_event, wait_list, async, own_queue;
} bag_case;

/* A case with every operand in host memory, int64 indices and bags, no
 * padding, no per_sample_weights, random data. For CLG_BAGS_FIXED, n is
 * the entries per bag (L) and the indices are [B, n]. */
bag_case bag_make(clg_bag_mode mode, clg_bag_form form, clg_dtype dtype,
                  int64_t num_embeddings, int64_t dim, int64_t n, int64_t B);
/* Sets padding_idx (as passed; negative counts from the back) and the
 * percent of entries that equal it. */
void bag_set_padding(bag_case *c, int64_t padding_idx, int pct);
/* Cycles through host / cl_mem for each of the 5 operands with case number
 * k (bit j: operand j in cl_mem), offsets aligned multiples of the element
 * size that vary with k. */
void bag_storage_for(bag_case *c, int k);

/* A random valid case of (dtype, mode, form), shapes of a few rows and
 * dims (weight [1..6, 1..9], up to 9 indices, up to 4 bags, empty bags,
 * and segments), every operand in host memory; `variant` picks int32
 * indices (bit 0), int32 bags (1), include_last_offset or empty fixed rows
 * (2), per_sample_weights with sum (3), padding_idx (4). */
bag_case bag_case_random(uint64_t seed, clg_dtype dtype, clg_bag_mode mode,
                         clg_bag_form form, unsigned variant);

/* A random valid case over a table quantized per row (weight_format
 * CLG_BAG_WEIGHT_8BIT_ROWWISE, _4BIT_ or _2BIT_): bag_case_random()'s
 * draw for float32, dim made a multiple of the codes a byte. */
bag_case bag_case_quantized(uint64_t seed, uint32_t weight_format,
                            clg_bag_mode mode, clg_bag_form form,
                            unsigned variant);
/* The weight tensor's element type (returned) and shape: c->dtype
 * [num_embeddings, dim], or uint8 [num_embeddings, row bytes] for a table
 * quantized per row. */
clg_dtype bag_weight_shape(const bag_case *c, int64_t shape[2]);

/* "mode=sum form=offsets dtype=float weight=[5, 3] ..." into buf. */
const char *bag_case_str(const bag_case *c, char *buf, size_t cap);

/* Entries of the bags operand: B (+1 with include_last_offset) offsets,
 * n segment ids, 0 for fixed. */
int64_t bag_bags_len(const bag_case *c);
/* The indices' (and per_sample_weights') rank and shape: [n] or [B, L]. */
int32_t bag_indices_shape(const bag_case *c, int64_t shape[2]);

/* The status the device must give: CLG_SUCCESS, or
 * CLG_ERROR_UNSUPPORTED_DTYPE where clgather_bag.h says the device cannot
 * (float64 without cl_khr_fp64 or its denormals; float32 and bfloat16
 * without single denormals; mean and sqrt_n without a correctly rounded
 * divide and sqrt, the device's own or through doubles). An empty output
 * is never refused. */
clg_status bag_case_status(const bag_case *c, const case_device *dev);

/* ------------------------------------------------------------ inputs */

/* The host images of a case's inputs (weight, indices, bags,
 * per_sample_weights; each allocated, bags and per_sample_weights even
 * where the call passes none). */
typedef struct bag_inputs {
  unsigned char *op[4];
  size_t bytes[4];
  int64_t bags_len;
} bag_inputs;

/* Draws the inputs of c from seed: values of c->data (a quantized table:
 * random codes, scales and biases of c->data without subnormals, as its
 * per-sample weights), valid indices
 * (c->pad_pct percent equal to padding_idx), valid bags of the form
 * (sorted draws: equal ones make empty bags). Returns 0, or -1 out of host
 * memory (nothing then to free). */
int bag_inputs_draw(const bag_case *c, uint64_t seed, bag_inputs *in);
void bag_inputs_free(bag_inputs *in);

/* The reference's arguments for c on in. */
void bag_ref_args(const bag_case *c, const bag_inputs *in, ref_bag_args *a);
/* The output bytes: B * dim elements of c->dtype. */
size_t bag_output_bytes(const bag_case *c);
/* The expected output (bag_output_bytes() bytes into want) by
 * ref_embedding_bag(). Returns 0, or -1 when the reference refuses the
 * case (a bug of the case). */
int bag_expect(const bag_case *c, const bag_inputs *in, void *want);

/* ------------------------------------------- bad inputs (embedding_bag_bad.c) */

/* One bad input: a valid base call (bag_bad_make()) broken in one place,
 * with the status every call of it must return before writing anything,
 * and what its message must name. */
typedef struct bag_bad {
  const char *name;
  clg_bag_form form; /* the base call's */
  /* element pos of operand (BAG_I or BAG_B) set to value; nsets of them */
  struct {
    int operand;
    int64_t pos, value;
  } set[2];
  int nsets;
  /* the bags operand: int32 (its values kept), and/or `bags_len` entries
   * (0: as the base) */
  bool bags_int32;
  int64_t bags_len;
  /* the indices as int32 */
  bool indices_int32;
  /* parameters: replace the base's when `params` */
  bool params;
  int mode, form_value;
  uint32_t flags, weight_format;
  int64_t padding_idx;
  bool psw; /* pass per_sample_weights */
  clg_status want;
  /* what the message names: every ';'-item (case_message_has()) and
   * every number of ints[0..nints-1] */
  const char *needles;
  int64_t ints[2];
  int nints;
} bag_bad;

extern const bag_bad bag_bad_inputs[];
extern const size_t bag_bad_count;

/* True for a fault in operand values (bags, indices), which a cl_mem call
 * may find on the device (clg_embedding_bag_async() reports it through
 * its outcome); false for one in shapes or parameters, found before any
 * command is enqueued. */
bool bag_bad_in_values(const bag_bad *e);

/* The base call of e's form, broken by e: weight [5, 3] of dtype (float,
 * float16 or bfloat16; values 0.5 * k), 12 int64 indices
 * {0 4 2 1 3 3 0 2 4 1 1 0} ([4, 3] fixed), int64 offsets {0 3 7 9} or
 * segment ids {0 0 1 1 1 2 2 3 3 3 3 3}, mode sum, output [4, 3]; with
 * e->psw, per_sample_weights 0.25 * (k - 5). The inputs are drawn into
 * *in (bag_inputs_free()). Returns 0, or -1 out of host memory. */
int bag_bad_make(const bag_bad *e, clg_dtype dtype, bag_case *c,
                 bag_inputs *in);

#endif /* CLGATHER_CASES_EMBEDDING_BAG_H */
