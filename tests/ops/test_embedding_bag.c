/*
 * EmbeddingBag (clg_embedding_bag, clg_embedding_bag_async,
 * clgather/clgather_bag.h) against the reference (ref_embedding_bag), byte
 * for byte, on the real device: the three forms (offsets with and without
 * include_last_offset, fixed [B, L] rows, segment ids with empty segments
 * and num_segments past the last id + 1), the four modes, per_sample_weights
 * (sum), padding_idx (positive and negative, bags of padding only), the four
 * element types (float64 expects CLG_ERROR_UNSUPPORTED_DTYPE, logged, on a
 * device without cl_khr_fp64), int32 and int64 indices and bags apart, empty
 * bags, B = 0, N = 0, num_embeddings 0, dims 0, 1, 3, 7, 64 and 129, random
 * shapes, every operand in host memory or a cl_mem of its own (offsets,
 * exact fits), events, wait lists, the caller's queue and the asynchronous
 * call; max on ties of +0 and -0 and on NaNs (their bits). The reference
 * itself is checked by hand on a few values first.
 *
 * Then every error of the header's list that a call can produce, each with
 * its status, its message (the tensor, position and value where the header
 * says so) and the output untouched, with host and cl_mem outputs.
 *
 * Each Test loops over generated cases (tu_sampled() thins them under
 * CLGATHER_TEST_SAMPLE); a failure names the case.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/bag_case.h"

/* EmbeddingBag takes bags: every clg_params entry point refuses it. */
Test(embedding_bag, refused_by_clg_run) {
  float w[4] = {0}, out[2] = {0};
  int32_t idx[1] = {0};
  int64_t ws[2] = {2, 2}, is[1] = {1}, os[1] = {2};
  clg_tensor wt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, w);
  clg_tensor it = clg_tensor_host(CLG_DTYPE_INT32, 1, is, idx);
  clg_tensor ot = clg_tensor_host(CLG_DTYPE_FLOAT, 1, os, out);
  clg_params p = {CLG_OP_EMBEDDING_BAG, 0, 0, CLG_MODE_RAISE};
  cr_assert_eq(clg_run(tu_ctx(), &p, &wt, &it, &ot, NULL, 0, NULL, NULL),
               CLG_ERROR_INVALID_ARGUMENT, "%s", clg_last_error());
  cr_assert(strstr(clg_last_error(), "clg_embedding_bag()"), "%s",
            clg_last_error());
}

static const clg_dtype dtypes[4] = {CLG_DTYPE_FLOAT, CLG_DTYPE_FLOAT16,
                                    CLG_DTYPE_BFLOAT16, CLG_DTYPE_DOUBLE};
static const clg_dtype itypes[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};

/* Form k of 4: offsets, offsets + include_last_offset, fixed, segment ids. */
static bag_case make4(clg_bag_mode mode, int k, clg_dtype dt, int64_t E,
                      int64_t dim, int64_t n, int64_t B) {
  clg_bag_form f = k <= 1 ? CLG_BAGS_OFFSETS
                   : k == 2 ? CLG_BAGS_FIXED
                            : CLG_BAGS_SEGMENT_IDS;
  bag_case c = bag_make(mode, f, dt, E, dim, f == CLG_BAGS_FIXED ? 3 : n, B);
  if (k == 1)
    c.p.flags |= CLG_BAG_INCLUDE_LAST_OFFSET;
  return c;
}

/* ------------------------------------------------ the reference by hand */

Test(embedding_bag, reference_by_hand) {
  /* weight [4, 2] float; offsets [0, 2, 2] over indices 3 1 | (empty) |
   * 0 3 1 2; padding_idx 1 in a second run. */
  float w[8] = {1.5f, -2.0f, 0.25f, 3.0f, -0.0f, 0.0f, 2.0f, -1.0f};
  int64_t idx[6] = {3, 1, 0, 3, 1, 2}, off[3] = {0, 2, 2};
  ref_bag_args a;
  memset(&a, 0, sizeof a);
  a.dtype = CLG_DTYPE_FLOAT;
  a.weight = w;
  a.num_embeddings = 4;
  a.dim = 2;
  a.indices = idx;
  a.index_type = REF_INDEX_I64;
  a.indices_rank = 1;
  a.indices_shape[0] = 6;
  a.bags = off;
  a.bags_type = REF_INDEX_I64;
  a.bags_len = 3;
  a.num_bags = 3;
  float o[6];
  cr_assert_eq(ref_embedding_bag(&a, o), 0);
  float sum[6] = {2.25f, 2.0f, 0.0f, 0.0f, 3.75f, 0.0f};
  cr_expect(memcmp(o, sum, sizeof o) == 0, "sum %g %g %g %g %g %g", o[0], o[1],
            o[2], o[3], o[4], o[5]);
  a.mode = CLG_BAG_MEAN;
  cr_assert_eq(ref_embedding_bag(&a, o), 0);
  cr_expect(o[0] == 1.125f && o[1] == 1.0f && o[4] == 0.9375f && o[5] == 0.0f);
  a.mode = CLG_BAG_MAX;
  cr_assert_eq(ref_embedding_bag(&a, o), 0);
  cr_expect(o[0] == 2.0f && o[1] == 3.0f && o[4] == 2.0f && o[5] == 3.0f);
  cr_expect(o[2] == 0.0f && !signbit(o[2]), "empty bag: +0");
  a.has_padding_idx = 1;
  a.padding_idx = -3; /* = 1 */
  a.mode = CLG_BAG_SQRT_N;
  cr_assert_eq(ref_embedding_bag(&a, o), 0);
  cr_expect(o[0] == 2.0f && o[1] == -1.0f / sqrtf(1.0f));
  cr_expect(o[4] == 3.5f / sqrtf(3.0f) && o[5] == -3.0f / sqrtf(3.0f));
  /* max: +0 above -0 either way round; a NaN in acc stays. */
  int64_t zi[2] = {2, 2}, zo[1] = {0};
  float zw[8] = {-0.0f, 0.0f, 0.0f, -0.0f, NAN, 1.0f, 5.0f, 7.0f};
  a.weight = zw;
  a.has_padding_idx = 0;
  a.mode = CLG_BAG_MAX;
  a.indices = zi;
  a.indices_shape[0] = 2;
  a.bags = zo;
  a.bags_len = 1;
  a.num_bags = 1;
  int64_t pairs[3][2] = {{0, 1}, {1, 0}, {2, 3}};
  for (int k = 0; k < 3; ++k) {
    zi[0] = pairs[k][0];
    zi[1] = pairs[k][1];
    cr_assert_eq(ref_embedding_bag(&a, o), 0);
    if (k < 2)
      cr_expect(o[0] == 0.0f && !signbit(o[0]) && o[1] == 0.0f &&
                !signbit(o[1]));
    else
      cr_expect(isnan(o[0]) && o[1] == 7.0f);
  }
  /* sum, mean, sqrt_n: a NaN result is 0x7FC00000 (clgather_bag.h), the
   * operand's sign and payload dropped, as on every device */
  const uint32_t neg_payload = 0xFFC12345u;
  memcpy(&zw[4], &neg_payload, 4);
  zi[0] = 2;
  zi[1] = 3;
  for (int m = CLG_BAG_SUM; m <= CLG_BAG_SQRT_N; ++m) {
    if (m == CLG_BAG_MAX)
      continue;
    a.mode = (clg_bag_mode)m;
    cr_assert_eq(ref_embedding_bag(&a, o), 0);
    uint32_t bits;
    memcpy(&bits, &o[0], 4);
    cr_expect_eq(bits, 0x7FC00000u, "mode %d: NaN bits %08x", m, bits);
  }
  /* refusals */
  a.mode = CLG_BAG_MEAN;
  a.per_sample_weights = zw;
  cr_expect_eq(ref_embedding_bag(&a, o), -1, "psw with mean");
  a.per_sample_weights = NULL;
  zi[1] = 4;
  cr_expect_eq(ref_embedding_bag(&a, o), -1, "index == num_embeddings");
  zi[1] = -1;
  cr_expect_eq(ref_embedding_bag(&a, o), -1, "negative index");
}

/* ------------------------------------- every mode x form x element type */

Test(embedding_bag, every_mode_form_dtype) {
  bag_runner rn = {0};
  int n = 0;
  for (int t = 0; t < 4; ++t)
    for (int m = 0; m < 4; ++m)
      for (int k = 0; k < 4; ++k, ++n) {
        static const int64_t dims[3] = {1, 3, 7};
        bag_case c = make4((clg_bag_mode)m, k, dtypes[t], 11, dims[n % 3], 17,
                           5);
        c.idt = itypes[n % 2];
        c.bdt = itypes[(n / 2) % 2];
        c.seg_gap = n % 3;
        bag_storage_for(&c, n * 7);
        c.want_event = n % 3 == 0;
        c.async = n % 4 == 1;
        bag_run(&rn, &c, 100u + (uint64_t)n);
      }
  bag_finish(&rn, "every_mode_form_dtype");
}

/* ------------------------------------------------------ dims, odd sizes */

Test(embedding_bag, dims) {
  static const int64_t dims[5] = {1, 3, 7, 64, 129};
  bag_runner rn = {0};
  int n = 0;
  for (int d = 0; d < 5; ++d)
    for (int t = 0; t < 4; ++t)
      for (int j = 0; j < 2; ++j, ++n) {
        bag_case c = make4((clg_bag_mode)((n + j) % 4), n % 4, dtypes[t],
                           dims[d] > 64 ? 40 : 23, dims[d], 29, 6);
        c.idt = itypes[j];
        c.bdt = itypes[1 - j];
        bag_storage_for(&c, n * 5);
        bag_run(&rn, &c, 2000u + (uint64_t)n);
      }
  bag_finish(&rn, "dims");
}

/* ----------------------------------------------- per_sample_weights, sum */

Test(embedding_bag, per_sample_weights) {
  bag_runner rn = {0};
  int n = 0;
  for (int t = 0; t < 4; ++t)
    for (int k = 0; k < 4; ++k)
      for (int pad = 0; pad < 2; ++pad, ++n) {
        bag_case c = make4(CLG_BAG_SUM, k, dtypes[t], 9, 5, 23, 6);
        c.psw = true;
        if (pad)
          bag_set_padding(&c, n % 2 ? 4 : -2, 30);
        c.idt = itypes[n % 2];
        bag_storage_for(&c, n * 3 + 1);
        bag_run(&rn, &c, 3000u + (uint64_t)n);
      }
  bag_finish(&rn, "per_sample_weights");
}

/* ------------------------------------------------------------ padding */

Test(embedding_bag, padding_idx) {
  /* positive, negative, the first and the last row; some bags (or all)
   * of padding only, which give +0 */
  static const struct {
    int64_t pad;
    int pct;
  } pads[] = {{0, 25}, {6, 40}, {-1, 30}, {-7, 50}, {3, 100}, {-4, 0}};
  bag_runner rn = {0};
  int n = 0;
  for (size_t p = 0; p < sizeof pads / sizeof pads[0]; ++p)
    for (int m = 0; m < 4; ++m, ++n) {
      bag_case c = make4((clg_bag_mode)m, n % 4, dtypes[n % 4], 7, 4, 19, 5);
      bag_set_padding(&c, pads[p].pad, pads[p].pct);
      c.idt = itypes[n % 2];
      c.bdt = itypes[(n / 2) % 2];
      bag_storage_for(&c, n * 11);
      bag_run(&rn, &c, 4000u + (uint64_t)n);
    }
  bag_finish(&rn, "padding_idx");
}

/* -------------------------------------------------------------- empty */

Test(embedding_bag, empty) {
  static const struct {
    int form; /* as make4 */
    int64_t E, dim, n, B, seg_gap, L;
  } shapes[] = {
      {0, 5, 3, 0, 0, 0, 0},  /* offsets: B = 0, N = 0 */
      {0, 5, 3, 6, 0, 0, 0},  /* B = 0, N = 6: no bag holds them */
      {1, 5, 3, 0, 0, 0, 0},  /* include_last_offset: offsets [0], B = 0 */
      {0, 5, 3, 0, 4, 0, 0},  /* N = 0: four empty bags */
      {1, 5, 3, 0, 3, 0, 0},  /* offsets [0, 0, 0, 0] */
      {0, 6, 2, 3, 9, 0, 0},  /* more bags than indices: most empty */
      {2, 5, 3, 0, 0, 0, 3},  /* fixed: indices [0, 3] */
      {2, 5, 3, 0, 4, 0, 0},  /* fixed: indices [4, 0], four empty bags */
      {3, 5, 3, 0, 0, 0, 0},  /* segment ids: N = 0, num_segments 0 */
      {3, 5, 3, 0, 5, 0, 0},  /* N = 0, 5 empty segments */
      {3, 5, 3, 9, 8, 4, 0},  /* ids in [0, 3], num_segments 8 */
      {3, 5, 3, 3, 12, 0, 0}, /* more segments than entries */
      {0, 0, 3, 0, 2, 0, 0},  /* num_embeddings 0 */
      {3, 0, 2, 0, 3, 0, 0},
      {0, 5, 0, 7, 3, 0, 0},  /* dim 0 */
      {2, 4, 0, 0, 3, 0, 2},
  };
  bag_runner rn = {0};
  int n = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (int m = 0; m < 4; ++m, ++n) {
      bag_case c = make4((clg_bag_mode)m, shapes[s].form, dtypes[n % 4],
                         shapes[s].E, shapes[s].dim, shapes[s].n, shapes[s].B);
      if (shapes[s].form == 2) {
        c.L = shapes[s].L;
        c.n = c.B * c.L;
      }
      c.seg_gap = shapes[s].seg_gap;
      c.idt = itypes[n % 2];
      c.bdt = itypes[(n / 2) % 2];
      bag_storage_for(&c, n * 13);
      c.want_event = n % 2 == 0;
      c.async = n % 5 == 2;
      bag_run(&rn, &c, 5000u + (uint64_t)n);
    }
  bag_finish(&rn, "empty");
}

/* ------------------------------------------------------ random shapes */

Test(embedding_bag, random_shapes) {
  tu_rng rng = tu_rng_make(20240611u);
  bag_runner rn = {0};
  for (int n = 0; n < 160; ++n) {
    clg_dtype dt = dtypes[tu_rng_range(&rng, 0, 3)];
    int64_t dim = tu_rng_range(&rng, 1, 40);
    int64_t E = tu_rng_range(&rng, 1, 60);
    int k = (int)tu_rng_range(&rng, 0, 3);
    clg_bag_mode m = (clg_bag_mode)tu_rng_range(&rng, 0, 3);
    bag_case c = make4(m, k, dt, E, dim, tu_rng_range(&rng, 0, 90),
                       tu_rng_range(&rng, 0, 20));
    if (k == 2) {
      c.L = tu_rng_range(&rng, 0, 6);
      c.n = c.B * c.L;
    }
    if (k == 3 && c.n > 0 && c.B == 0)
      c.B = 1;
    c.seg_gap = tu_rng_range(&rng, 0, 2);
    c.psw = m == CLG_BAG_SUM && tu_rng_range(&rng, 0, 1);
    if (tu_rng_range(&rng, 0, 2) == 0)
      bag_set_padding(&c, tu_rng_range(&rng, -E, E - 1),
                      (int)tu_rng_range(&rng, 0, 60));
    c.data = (bag_data)tu_rng_range(&rng, 0, 2);
    /* NaNs, infinities and signed zeros in every mode: a NaN result's
     * bits are defined (one quiet NaN), as max's kept ones */
    /* include_last_offset with no bag: offsets [0] (see
     * include_last_offset_no_bag) */
    if (k == 1 && c.B == 0)
      c.n = 0;
    c.idt = itypes[tu_rng_range(&rng, 0, 1)];
    c.bdt = itypes[tu_rng_range(&rng, 0, 1)];
    bag_storage_for(&c, (int)tu_rng_range(&rng, 0, 1000));
    c.want_event = tu_rng_range(&rng, 0, 1);
    c.async = tu_rng_range(&rng, 0, 3) == 0;
    bag_run(&rn, &c, 6000u + (uint64_t)n);
  }
  bag_finish(&rn, "random_shapes");
}

/* ----------------------------------------- storage, events, wait lists */

Test(embedding_bag, storage_events_async) {
  bag_runner rn = {0};
  for (int k = 0; k < 32; ++k) {
    bag_case c = make4((clg_bag_mode)(k % 4), k % 4, dtypes[(k / 4) % 4], 13,
                       6, 21, 4);
    c.psw = c.p.mode == CLG_BAG_SUM && k % 8 == 0;
    bag_storage_for(&c, k);
    /* offsets: every one aligned to the element, nonzero on most */
    for (int j = 0; j < 5; ++j)
      c.st[j].offset = (size_t)((k + j) % 3) *
                       clg_dtype_size(j == BAG_I   ? c.idt
                                      : j == BAG_B ? c.bdt
                                                   : c.dtype) *
                       4u;
    c.idt = itypes[k % 2];
    c.want_event = (k / 2) % 2 == 0;
    c.wait_list = k % 3 != 2;
    c.async = (k / 4) % 2 == 1;
    c.own_queue = k % 5 == 3;
    bag_run(&rn, &c, 7000u + (uint64_t)k);
  }
  bag_finish(&rn, "storage_events_async");
}

/* ------------------------------------- max: signed zeros, NaNs, ties */

Test(embedding_bag, max_zeros_nans_ties) {
  bag_runner rn = {0};
  int n = 0;
  for (int t = 0; t < 4; ++t)
    for (int k = 0; k < 4; ++k)
      for (int v = 0; v < 2; ++v, ++n) {
        bag_case c = make4(CLG_BAG_MAX, k, dtypes[t], 6, 5, 25, 5);
        c.data = v ? BAG_DATA_SMALL_INT : BAG_DATA_SPECIAL;
        if (n % 3 == 0)
          bag_set_padding(&c, -2, 20);
        c.idt = itypes[n % 2];
        bag_storage_for(&c, n * 9);
        bag_run(&rn, &c, 8000u + (uint64_t)n);
      }
  /* sum and mean of small integers (exact) and signed zeros */
  for (int t = 0; t < 4; ++t)
    for (int m = 0; m < 4; m += 1, ++n) {
      if (m == CLG_BAG_MAX)
        continue;
      bag_case c = make4((clg_bag_mode)m, n % 4, dtypes[t], 6, 3, 25, 5);
      c.data = BAG_DATA_SMALL_INT;
      bag_run(&rn, &c, 8500u + (uint64_t)n);
    }
  bag_finish(&rn, "max_zeros_nans_ties");
}

/* include_last_offset with one offset: no bag. offsets[0] must be 0
 * whenever there is an offset (PyTorch too), so [N] with N > 0 (entries in
 * no bag) is refused, output untouched, and [0] with N = 0 makes [0, dim]. */
Test(embedding_bag, include_last_offset_no_bag) {
  float w[6] = {1, 2, 3, 4, 5, 6}, out[1] = {42.0f};
  int64_t idx[4] = {0, 1, 2, 0}, off[1] = {4};
  int64_t ws[2] = {3, 2}, is[1] = {4}, bs[1] = {1}, os[2] = {0, 2};
  clg_tensor wt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, w);
  clg_tensor it = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  clg_tensor bt = clg_tensor_host(CLG_DTYPE_INT64, 1, bs, off);
  clg_tensor ot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_bag_params p = {0};
  p.flags = CLG_BAG_INCLUDE_LAST_OFFSET;
  clg_status st =
      clg_embedding_bag(tu_ctx(), &p, &wt, &it, &bt, NULL, &ot, NULL, 0, NULL,
                        NULL);
  cr_expect_eq(st, CLG_ERROR_INVALID_BAGS, "%s", clg_last_error());
  cr_expect(strstr(clg_last_error(), "offsets[0] is 4") != NULL, "%s",
            clg_last_error());
  cr_expect_eq(out[0], 42.0f, "the output was written");
  off[0] = 0;
  is[0] = 0;
  it = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  st = clg_embedding_bag(tu_ctx(), &p, &wt, &it, &bt, NULL, &ot, NULL, 0, NULL,
                         NULL);
  cr_expect_eq(st, CLG_SUCCESS, "%s", clg_last_error());
}

/* ------------------------------------------ calls large enough to time */

/* Rows read reach the tuner's minimum (device/tune.h): each variant is
 * timed on the call's own tensors before the launch, or (all operands
 * cl_mem: the reduction gated on the checks' verdict) once the verdict
 * has passed, the segment ids' starts put in place on the device first
 * where they are computed there; the result is still the reference's. */
Test(embedding_bag, timed_variants) {
  /* Timed unless a variant is forced, tuning is off, or the weight is
   * split into small calls (a lowered buffer limit, the _split rerun). */
  bool tuned = getenv("CLGATHER_VARIANT") == NULL &&
               getenv("CLGATHER_TEST_MAX_ALLOC") == NULL &&
               (getenv("CLGATHER_TUNE") == NULL ||
                strcmp(getenv("CLGATHER_TUNE"), "first") == 0);
  /* Each case is a shape class called once: timed at its first call (the
   * test's own process: Criterion forks one per test). */
  if (getenv("CLGATHER_TUNE") == NULL)
    cr_assert_eq(clg_context_set_option(tu_ctx(), CLG_OPTION_TUNE,
                                        CLG_TUNE_FIRST_CALL),
                 CLG_SUCCESS);
  bag_runner rn = {0};
  int n = 0;
  for (int k = 0; k < 4; ++k)
    for (int m = 0; m < 4; m += 2)
      for (int t = 0; t < 2; ++t, ++n) {
        /* 4200 rows of 256 bytes read: more than 1 MiB. */
        int64_t dim = t ? 128 : 64;
        bag_case c = make4((clg_bag_mode)m, k, dtypes[t], 3000, dim, 4200,
                           100);
        if (k == 2) {
          c.L = 42;
          c.n = c.B * c.L;
        }
        c.idt = itypes[n % 2];
        c.bdt = itypes[(n / 2) % 2];
        bag_storage_for(&c, n % 2 ? 31 : 0);
        for (int j = 0; j < 5; ++j)
          c.st[j].offset = 0;
        bag_run(&rn, &c, 9000u + (uint64_t)n);
        clg_choice how = CLG_CHOICE_NONE;
        clg_context_last_variant(tu_ctx(), &how);
        if (tuned)
          cr_expect_eq(how, CLG_CHOICE_MEASURED,
                       "case %d: the variant was not timed (%d)", n, how);
      }
  bag_finish(&rn, "timed_variants");
}
