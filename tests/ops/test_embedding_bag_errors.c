/*
 * EmbeddingBag's errors (the rest of its suite: test_embedding_bag.c): every
 * error of clgather/clgather_bag.h's list that a call can produce, each
 * checked for its status, its message (the tensor, the position and the
 * value where the header says so) and the output left byte for byte as it
 * was (sentinel bytes), with host operands, a cl_mem output, and every
 * operand in cl_mem through clg_embedding_bag_async (support/bag_fx.c):
 * bags (offsets, segment ids) breaking their form's rules, checked before
 * the indices; index values out of [0, num_embeddings); NULL arguments;
 * unknown modes, forms, flags, reserved bits; per_sample_weights with a mode
 * other than sum; padding_idx out of range; element types, ranks and
 * shapes of every operand; sizes that overflow; cl_mem buffers too small.
 * Strided operands and their errors: tests/run/test_bag_strided.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <string.h>

#include "support/bag_case.h"

/* ------------------------------------------------------------- errors */

/* Shorthand: the expected status and the message's items. */
#define EXPECT(f, st, needles, what)                                           \
  bag_fx_expect(f, st, CLG_SUCCESS, needles, NULL, 0, what)

/* The shared catalogue (tools/cases/embedding_bag_bad.c, which `clgather
 * selftest` runs too): bags of each form, indices, parameters. */
static void run_catalogue(bool (*pick)(const bag_bad *e), const char *what) {
  int ran = 0;
  for (size_t k = 0; k < bag_bad_count; ++k)
    if (pick(&bag_bad_inputs[k])) {
      bag_fx_bad(&bag_bad_inputs[k]);
      ++ran;
    }
  cr_assert(ran > 0, "%s: the catalogue has no entry", what);
}

static bool is_bags(const bag_bad *e, clg_bag_form form) {
  return e->form == form && (e->want == CLG_ERROR_INVALID_BAGS ||
                             e->want == CLG_ERROR_INCOMPATIBLE_SHAPES);
}
static bool is_offsets(const bag_bad *e) {
  return is_bags(e, CLG_BAGS_OFFSETS);
}
static bool is_segment_ids(const bag_bad *e) {
  return is_bags(e, CLG_BAGS_SEGMENT_IDS);
}
static bool is_indices(const bag_bad *e) {
  return e->want == CLG_ERROR_INDEX_OUT_OF_BOUNDS;
}
static bool is_parameters(const bag_bad *e) {
  return e->want == CLG_ERROR_INVALID_ARGUMENT;
}

Test(embedding_bag, errors_offsets) {
  bag_fx f;
  bag_fx_base(&f, CLG_BAGS_OFFSETS);
  EXPECT(&f, CLG_SUCCESS, "", "the valid base call");
  run_catalogue(is_offsets, "the offsets");
  /* include_last_offset: offsets [0 3 7 9 12] */
  const int64_t five[1] = {5};
  bag_fx_desc(&f, BAG_B, CLG_DTYPE_INT64, 1, five);
  bag_fx_set(&f, BAG_B, 4, 12);
  f.p.flags = CLG_BAG_INCLUDE_LAST_OFFSET;
  EXPECT(&f, CLG_SUCCESS, "", "include_last_offset, valid");
  /* include_last_offset with no offset */
  const int64_t zero[1] = {0}, out0[2] = {0, 3};
  bag_fx_desc(&f, BAG_B, CLG_DTYPE_INT64, 1, zero);
  bag_fx_desc(&f, BAG_O, CLG_DTYPE_FLOAT, 2, out0);
  EXPECT(&f, CLG_ERROR_INCOMPATIBLE_SHAPES, "", "include_last, no offset");
}

Test(embedding_bag, errors_segment_ids) {
  bag_fx f;
  bag_fx_base(&f, CLG_BAGS_SEGMENT_IDS);
  EXPECT(&f, CLG_SUCCESS, "", "the valid base call");
  run_catalogue(is_segment_ids, "the segment ids");
}

Test(embedding_bag, errors_indices) {
  bag_fx f;
  bag_fx_base(&f, CLG_BAGS_FIXED);
  EXPECT(&f, CLG_SUCCESS, "", "the valid fixed call");
  run_catalogue(is_indices, "the indices");
}

Test(embedding_bag, errors_arguments) {
  bag_fx f;
  static const clg_bag_form forms[3] = {CLG_BAGS_OFFSETS, CLG_BAGS_FIXED,
                                        CLG_BAGS_SEGMENT_IDS};
  static const char *const names[5] = {"weight", "indices", "bags|offsets",
                                       "per_sample_weights", "output"};
  for (int k = 0; k < 3; ++k) {
    bag_fx_base(&f, forms[k]);
    f.null_ctx = true;
    EXPECT(&f, CLG_ERROR_NULL_ARGUMENT, "ctx|context", "NULL ctx");
    for (int j = 0; j < 5; ++j) {
      if (j == BAG_S || (j == BAG_B && forms[k] == CLG_BAGS_FIXED))
        continue;
      bag_fx_base(&f, forms[k]);
      f.present[j] = false;
      const char *nm = forms[k] == CLG_BAGS_SEGMENT_IDS && j == BAG_B
                           ? "bags|segment"
                           : names[j];
      EXPECT(&f, CLG_ERROR_NULL_ARGUMENT, nm, names[j]);
    }
  }
  /* NULL params: sum over offsets */
  bag_fx_base(&f, CLG_BAGS_OFFSETS);
  f.pp = NULL;
  EXPECT(&f, CLG_SUCCESS, "", "NULL params");

  run_catalogue(is_parameters, "the parameters");
  /* padding_idx at both ends of its range is valid */
  bag_fx_base(&f, CLG_BAGS_OFFSETS);
  f.p.flags = CLG_BAG_PADDING_IDX;
  f.p.padding_idx = -5;
  EXPECT(&f, CLG_SUCCESS, "", "padding_idx -5");
  f.p.padding_idx = 4;
  EXPECT(&f, CLG_SUCCESS, "", "padding_idx 4");
  /* bags with the fixed form */
  bag_fx_base(&f, CLG_BAGS_FIXED);
  const int64_t four[1] = {4};
  bag_fx_desc(&f, BAG_B, CLG_DTYPE_INT64, 1, four);
  EXPECT(&f, CLG_ERROR_INVALID_ARGUMENT, "", "bags with fixed");
  /* a wait list count without a list */
  bag_fx_base(&f, CLG_BAGS_OFFSETS);
  f.num_events = 1;
  EXPECT(&f, CLG_ERROR_INVALID_ARGUMENT, "", "num_events 1, list NULL");
  /* _async without an outcome */
  bag_fx_base(&f, CLG_BAGS_OFFSETS);
  cl_event ev = NULL;
  clg_status st = clg_embedding_bag_async(
      tu_ctx(), &f.p, &f.t[0].tensor, &f.t[1].tensor, &f.t[2].tensor, NULL,
      &f.t[4].tensor, NULL, 0, NULL, &ev, NULL);
  cr_expect(st == CLG_ERROR_NULL_ARGUMENT && ev == NULL, "%s",
            clg_last_error());
  cr_expect(tu_contains_ci(clg_last_error(), "outcome"), "%s",
            clg_last_error());
  bool untouched = true;
  for (int k = 0; k < BAG_FX_BYTES; ++k)
    untouched = untouched && f.host[BAG_O][k] == TU_SENTINEL;
  cr_expect(untouched, "NULL outcome: the output was written");
}

/* Element types, ranks and shapes: operand k of the valid offsets call
 * (fixed: of the fixed call) given another descriptor. */
Test(embedding_bag, errors_types_shapes) {
  static const struct {
    clg_bag_form form;
    int k;
    clg_dtype dtype;
    int32_t rank;
    int64_t shape[3];
    bool psw;
    clg_status want, alt;
    const char *needles, *what;
  } bad[] = {
      {CLG_BAGS_OFFSETS, BAG_W, CLG_DTYPE_INT32, 2, {5, 3}, false,
       CLG_ERROR_UNSUPPORTED_DTYPE, CLG_ERROR_DTYPE_MISMATCH, "", "weight int32"},
      {CLG_BAGS_OFFSETS, BAG_I, CLG_DTYPE_FLOAT, 1, {12}, false,
       CLG_ERROR_INVALID_INDICES_DTYPE, 0, "indices", "indices float"},
      {CLG_BAGS_OFFSETS, BAG_I, CLG_DTYPE_INT16, 1, {12}, false,
       CLG_ERROR_INVALID_INDICES_DTYPE, 0, "indices", "indices int16"},
      {CLG_BAGS_OFFSETS, BAG_B, CLG_DTYPE_FLOAT, 1, {4}, false,
       CLG_ERROR_INVALID_INDICES_DTYPE, 0, "bags|offsets", "bags float"},
      {CLG_BAGS_SEGMENT_IDS, BAG_B, CLG_DTYPE_UINT64, 1, {12}, false,
       CLG_ERROR_INVALID_INDICES_DTYPE, 0, "bags|segment", "ids uint64"},
      {CLG_BAGS_OFFSETS, BAG_O, CLG_DTYPE_DOUBLE, 2, {4, 3}, false,
       CLG_ERROR_DTYPE_MISMATCH, 0, "output", "output double"},
      {CLG_BAGS_OFFSETS, BAG_O, CLG_DTYPE_FLOAT16, 2, {4, 3}, false,
       CLG_ERROR_DTYPE_MISMATCH, 0, "output", "output float16"},
      {CLG_BAGS_OFFSETS, BAG_S, CLG_DTYPE_DOUBLE, 1, {12}, true,
       CLG_ERROR_DTYPE_MISMATCH, 0, "per_sample_weights", "psw double"},
      {CLG_BAGS_OFFSETS, BAG_S, CLG_DTYPE_FLOAT, 1, {11}, true,
       CLG_ERROR_INCOMPATIBLE_SHAPES, 0, "per_sample_weights", "psw [11]"},
      {CLG_BAGS_FIXED, BAG_S, CLG_DTYPE_FLOAT, 2, {3, 4}, true,
       CLG_ERROR_INCOMPATIBLE_SHAPES, 0, "per_sample_weights", "psw [3, 4]"},
      {CLG_BAGS_OFFSETS, BAG_S, CLG_DTYPE_FLOAT, 2, {12, 1}, true,
       CLG_ERROR_INCOMPATIBLE_SHAPES, CLG_ERROR_INVALID_RANK,
       "per_sample_weights", "psw [12, 1]"},
      {CLG_BAGS_OFFSETS, BAG_W, CLG_DTYPE_FLOAT, 3, {5, 3, 1}, false,
       CLG_ERROR_INVALID_RANK, 0, "weight", "weight rank 3"},
      {CLG_BAGS_OFFSETS, BAG_W, CLG_DTYPE_FLOAT, 1, {15}, false,
       CLG_ERROR_INVALID_RANK, 0, "weight", "weight rank 1"},
      {CLG_BAGS_OFFSETS, BAG_I, CLG_DTYPE_INT64, 2, {4, 3}, false,
       CLG_ERROR_INVALID_RANK, 0, "indices", "indices rank 2, offsets"},
      {CLG_BAGS_FIXED, BAG_I, CLG_DTYPE_INT64, 1, {12}, false,
       CLG_ERROR_INVALID_RANK, 0, "indices", "indices rank 1, fixed"},
      {CLG_BAGS_OFFSETS, BAG_B, CLG_DTYPE_INT64, 2, {2, 2}, false,
       CLG_ERROR_INVALID_RANK, 0, "bags|offsets", "offsets rank 2"},
      {CLG_BAGS_OFFSETS, BAG_O, CLG_DTYPE_FLOAT, 2, {4, 4}, false,
       CLG_ERROR_SHAPE_MISMATCH, 0, "output", "output [4, 4]"},
      {CLG_BAGS_OFFSETS, BAG_O, CLG_DTYPE_FLOAT, 2, {5, 3}, false,
       CLG_ERROR_SHAPE_MISMATCH, 0, "output", "output [5, 3]"},
      {CLG_BAGS_FIXED, BAG_O, CLG_DTYPE_FLOAT, 2, {3, 3}, false,
       CLG_ERROR_SHAPE_MISMATCH, 0, "output", "fixed, output [3, 3]"},
      {CLG_BAGS_OFFSETS, BAG_O, CLG_DTYPE_FLOAT, 1, {12}, false,
       CLG_ERROR_SHAPE_MISMATCH, CLG_ERROR_INVALID_RANK, "output",
       "output rank 1"},
      {CLG_BAGS_OFFSETS, BAG_W, CLG_DTYPE_FLOAT, 2, {5, -3}, false,
       CLG_ERROR_INVALID_SHAPE, 0, "weight", "weight [5, -3]"},
      {CLG_BAGS_SEGMENT_IDS, BAG_I, CLG_DTYPE_INT64, 1, {-12}, false,
       CLG_ERROR_INVALID_SHAPE, 0, "indices", "indices [-12]"},
      {CLG_BAGS_OFFSETS, BAG_W, CLG_DTYPE_FLOAT, 2,
       {INT64_C(1) << 62, 3}, false, CLG_ERROR_SIZE_OVERFLOW, 0, "",
       "weight [2^62, 3]"},
      {CLG_BAGS_OFFSETS, BAG_W, CLG_DTYPE_FLOAT, 2,
       {INT64_C(1) << 31, INT64_C(1) << 32}, false, CLG_ERROR_SIZE_OVERFLOW, 0,
       "", "weight [2^31, 2^32]"},
  };
  for (size_t j = 0; j < sizeof bad / sizeof bad[0]; ++j) {
    bag_fx f;
    bag_fx_base(&f, bad[j].form);
    if (bad[j].psw)
      bag_fx_psw(&f);
    bag_fx_desc(&f, bad[j].k, bad[j].dtype, bad[j].rank, bad[j].shape);
    if (bad[j].k == BAG_W && bad[j].dtype == CLG_DTYPE_INT32)
      bag_fx_desc(&f, BAG_O, CLG_DTYPE_INT32, 2, f.t[BAG_O].tensor.shape);
    bag_fx_expect(&f, bad[j].want, bad[j].alt, bad[j].needles, NULL, 0,
                  bad[j].what);
  }
}

/* Storage: a cl_mem smaller than offset + bytes. (Strided descriptors are
 * taken: tests/run/test_bag_strided.c.) */
Test(embedding_bag, errors_storage) {
  static const char *const names[5] = {"weight", "indices", "bags|offsets",
                                       "per_sample_weights", "output"};
  bag_fx f;
  unsigned char back[BAG_FX_BYTES];

  /* cl_mem operands too small: each in turn (8 bytes short), the others in
   * host memory */
  for (int k = 0; k < 5; ++k) {
    bag_fx_base(&f, CLG_BAGS_OFFSETS);
    bag_fx_psw(&f);
    f.host_only = true;
    clg_tensor *d = &f.t[k].tensor;
    size_t bytes = (size_t)tu_numel(d->rank, d->shape) *
                   clg_dtype_size(d->dtype);
    cl_mem b = tu_buffer_create(bytes + 8, f.host[k]);
    *d = clg_tensor_buffer(d->dtype, d->rank, d->shape, b, 16);
    bag_fx_expect(&f, CLG_ERROR_BUFFER_TOO_SMALL, CLG_SUCCESS, "", NULL, 0,
                  names[k]);
    if (k == BAG_O) {
      tu_buffer_read(b, 0, bytes + 8, back);
      bool same = true;
      for (size_t j = 0; j < bytes + 8; ++j)
        same = same && back[j] == TU_SENTINEL;
      cr_expect(same, "output too small: written");
    }
    clReleaseMemObject(b);
  }
}

/* Segment ids into an output without columns: any num_segments is a
 * shape the call accepts without allocating anything per segment (2^40:
 * a call that does nothing), up to where their starts would overflow
 * size_t (CLG_ERROR_SIZE_OVERFLOW). */
Test(embedding_bag, segments_of_an_empty_output) {
  float w[1] = {0};
  int64_t idx[2] = {0, 2}, seg[2] = {0, 5};
  int64_t ws[2] = {3, 0}, is[1] = {2}, os[2] = {(int64_t)1 << 40, 0};
  clg_tensor wt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, w);
  clg_tensor it = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  clg_tensor st = clg_tensor_host(CLG_DTYPE_INT64, 1, is, seg);
  clg_tensor ot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, NULL);
  clg_bag_params p = {0};
  p.form = CLG_BAGS_SEGMENT_IDS;
  clg_status s = clg_embedding_bag(tu_ctx(), &p, &wt, &it, &st, NULL, &ot,
                                   NULL, 0, NULL, NULL);
  cr_expect_eq(s, CLG_SUCCESS, "2^40 segments: %s", clg_last_error());
  ot.shape[0] = (int64_t)1 << 61;
  s = clg_embedding_bag(tu_ctx(), &p, &wt, &it, &st, NULL, &ot, NULL, 0,
                        NULL, NULL);
  cr_expect_eq(s, CLG_ERROR_SIZE_OVERFLOW, "2^61 segments: %s",
               clg_last_error());
  /* The values are still checked: an index past the rows. */
  ot.shape[0] = 6;
  idx[1] = 3;
  s = clg_embedding_bag(tu_ctx(), &p, &wt, &it, &st, NULL, &ot, NULL, 0,
                        NULL, NULL);
  cr_expect_eq(s, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s", clg_last_error());
}

/* A range with no valid value is named as empty, not "[0, -1]": a weight of
 * 0 rows (indices, padding_idx) and an output of 0 segments. The output is
 * left as it was. */
Test(embedding_bag, empty_ranges_are_named) {
  float w[1] = {0}, out[3];
  int64_t idx[1] = {0}, bags[1] = {0};
  int64_t ws[2] = {0, 3}, n1[1] = {1}, os[2] = {1, 3};
  clg_tensor wt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, w);
  clg_tensor it = clg_tensor_host(CLG_DTYPE_INT64, 1, n1, idx);
  clg_tensor bt = clg_tensor_host(CLG_DTYPE_INT64, 1, n1, bags);
  clg_tensor ot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  struct {
    int form, padding;
    clg_status want;
    const char *what;
  } cases[] = {
      {CLG_BAGS_OFFSETS, 0, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "0 rows, offsets"},
      {CLG_BAGS_SEGMENT_IDS, 0, CLG_ERROR_INDEX_OUT_OF_BOUNDS,
       "0 rows, segment ids"},
      {CLG_BAGS_OFFSETS, 1, CLG_ERROR_INVALID_ARGUMENT, "0 rows, padding_idx"},
      {CLG_BAGS_SEGMENT_IDS, 0, CLG_ERROR_INVALID_BAGS, "0 segments"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    clg_bag_params p = {0};
    p.form = cases[k].form;
    if (cases[k].padding) {
      p.flags = CLG_BAG_PADDING_IDX;
      p.padding_idx = 0;
    }
    ws[0] = 0;
    os[0] = 1;
    if (cases[k].want == CLG_ERROR_INVALID_BAGS) {
      ws[0] = 4; /* rows enough; no segment to put id 0 in */
      os[0] = 0;
    }
    wt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, w);
    ot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
    memset(out, (int)TU_SENTINEL, sizeof out);
    clg_status s = clg_embedding_bag(tu_ctx(), &p, &wt, &it, &bt, NULL, &ot,
                                     NULL, 0, NULL, NULL);
    const char *msg = clg_last_error();
    cr_expect_eq(s, cases[k].want, "%s: status %d: %s", cases[k].what, s, msg);
    cr_expect(strstr(msg, "the empty range") != NULL,
              "%s: the message does not call the range empty: %s",
              cases[k].what, msg);
    cr_expect(strstr(msg, "-1]") == NULL, "%s: %s", cases[k].what, msg);
    for (size_t b = 0; b < sizeof out; ++b)
      cr_expect_eq(((unsigned char *)out)[b], TU_SENTINEL,
                   "%s: output byte %zu was written", cases[k].what, b);
  }
}
