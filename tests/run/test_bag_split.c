/*
 * host/run/bag_split.c: EmbeddingBag with a host weight larger than the
 * device's largest buffer. The suite lowers that buffer to 4096 bytes
 * (CLGATHER_TEST_MAX_ALLOC, set by bs_ctx() before the test process's
 * context is created, and by ctest), so weights of a few KiB take the
 * path: every mode, the three forms (offsets with and without
 * include_last_offset, fixed rows, segment ids), float32 and float16,
 * tables quantized per row (8-, 4- and 2-bit),
 * int32 and int64 indices and bags, per_sample_weights, padding_idx (first,
 * last, negative, bags of padding only, a flag with no padding entry),
 * empty bags, B = 0, N = 0, repeated indices, cl_mem indices, bags,
 * per_sample_weights and output, events, wait lists, the caller's queue
 * and the asynchronous call; groups of bags whose distinct rows together
 * pass the limit; host indices, per_sample_weights, segment ids and output
 * past the limit. Every result is compared byte for byte with the plain-C
 * reference (tools/reference/ref_embedding_bag.c, through
 * support/bag_case.c or by hand below), and every call is proved to have
 * taken the path (the context's bag_splits and bag_split_groups counters,
 * test builds). The errors are test_bag_split_errors.c's.
 */
#define _POSIX_C_SOURCE 200809L

#include "bag_split_hand.h"
#include "internal.h"

#include <criterion/criterion.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(bag_split, .timeout = 180);

clg_context *bs_ctx(void) {
  /* before tu_ctx() creates the context, which reads it */
  cr_assert_eq(setenv("CLGATHER_TEST_MAX_ALLOC", "4096", 1), 0);
  clg_context *ctx = tu_ctx();
  cr_assert_eq(ctx->max_alloc, (cl_ulong)LIMIT,
               "the context's largest buffer is %llu bytes, not the suite's "
               "%d (CLGATHER_TEST_MAX_ALLOC)",
               (unsigned long long)ctx->max_alloc, LIMIT);
  return ctx;
}

static const clg_dtype itypes[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};

/* Form k of 4: offsets, offsets + include_last_offset, fixed, segment ids;
 * n entries (fixed: bags of n / B). */
static bag_case make4(clg_bag_mode mode, int k, clg_dtype dt, int64_t E,
                      int64_t dim, int64_t n, int64_t B) {
  clg_bag_form f = k <= 1   ? CLG_BAGS_OFFSETS
                   : k == 2 ? CLG_BAGS_FIXED
                            : CLG_BAGS_SEGMENT_IDS;
  bag_case c = bag_make(mode, f, dt, E, dim,
                        f == CLG_BAGS_FIXED ? (B ? n / B : 0) : n, B);
  if (k == 1)
    c.p.flags |= CLG_BAG_INCLUDE_LAST_OFFSET;
  return c;
}

/* Operands k (bit j: operand j of indices, bags, per_sample_weights,
 * output in a cl_mem) with offsets that vary; the weight in host memory. */
static void storage(bag_case *c, int k) {
  bag_storage_for(c, k << 1);
  c->st[BAG_W].kind = CLG_STORAGE_HOST;
}

typedef struct split_tally {
  bag_runner rn;
  unsigned groups; /* groups run, over every case */
  int multi;       /* cases run in more than one group */
} split_tally;

/* bag_run() (the reference, byte for byte), and the proof that the call
 * took the packed tables: exactly one call of the path, and its groups. */
static void run_split(split_tally *t, const bag_case *c, uint64_t seed) {
  clg_context *ctx = bs_ctx();
  char desc[1024];
  bag_case_str(c, desc, sizeof desc);
  int64_t ws[2];
  size_t wes = clg_dtype_size(bag_weight_shape(c, ws)); /* fills ws first */
  size_t wbytes = (size_t)(ws[0] * ws[1]) * wes;
  bool big = wbytes > LIMIT || (size_t)c->n * clg_dtype_size(c->idt) > LIMIT ||
             (size_t)(c->B * c->dim) * clg_dtype_size(c->dtype) > LIMIT;
  cr_assert(big, "test bug: nothing past the limit in %s", desc);
  unsigned s0 = atomic_load(&ctx->bag_splits),
           g0 = atomic_load(&ctx->bag_split_groups);
  int before = t->rn.cases;
  bag_run(&t->rn, c, seed);
  if (t->rn.cases == before)
    return; /* left out (CLGATHER_TEST_SAMPLE) */
  unsigned s = atomic_load(&ctx->bag_splits) - s0,
           g = atomic_load(&ctx->bag_split_groups) - g0;
  cr_expect_eq(s, 1u, "%s: %u calls on packed tables, want 1", desc, s);
  t->groups += g;
  t->multi += g > 1;
}

static void finish(const split_tally *t, const char *what, bool multi) {
  bag_finish(&t->rn, what);
  cr_log_info("%s: %u groups, %d cases in more than one", what, t->groups,
              t->multi);
  if (multi)
    cr_expect(t->multi > 0, "%s: no case ran in more than one group", what);
}

/* ------------------------------------------------ sweeps (bag_case.c) */

Test(bag_split, every_mode_form_dtype) {
  split_tally t = {0};
  int n = 0;
  for (int d = 0; d < 2; ++d)
    for (int m = 0; m < 4; ++m)
      for (int k = 0; k < 4; ++k, ++n) {
        /* float32 [300, 16] (64-byte rows, 64 to a table); float16
         * [300, 24] (48-byte rows, 85 to a table) */
        clg_dtype dt = d ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT;
        bag_case c = make4((clg_bag_mode)m, k, dt, 300, d ? 24 : 16,
                           d ? 200 : 150, d ? 16 : 12);
        c.idt = itypes[n % 2];
        c.bdt = itypes[(n / 2) % 2];
        c.seg_gap = n % 3;
        storage(&c, n % 16);
        c.want_event = n % 2 == 0;
        c.async = n % 3 == 1;
        run_split(&t, &c, 100u + (uint64_t)n);
      }
  finish(&t, "every_mode_form_dtype", true);
}

/* Tables quantized per row: their packed rows move into each group's
 * table (8-bit [300, 24 + 8], 4-bit [400, 48 / 2 + 4], 2-bit
 * [600, 64 / 4 + 4]: 32, 28 and 20-byte rows). */
Test(bag_split, quantized_rows) {
  static const uint32_t formats[3] = {CLG_BAG_WEIGHT_8BIT_ROWWISE,
                                      CLG_BAG_WEIGHT_4BIT_ROWWISE,
                                      CLG_BAG_WEIGHT_2BIT_ROWWISE};
  static const int64_t rows[3] = {300, 400, 600}, dims[3] = {24, 48, 64};
  split_tally t = {0};
  int n = 0;
  for (int f = 0; f < 3; ++f)
    for (int m = 0; m < 4; ++m, ++n) {
      bag_case c = make4((clg_bag_mode)m, n % 4, CLG_DTYPE_FLOAT, rows[f],
                         dims[f], 400, 40);
      c.p.weight_format = formats[f];
      c.psw = m == CLG_BAG_SUM && n % 2 == 0;
      if (n % 3 == 2)
        bag_set_padding(&c, -5, 30);
      storage(&c, n * 5 + 2);
      c.async = n % 4 == 1;
      run_split(&t, &c, 800u + (uint64_t)n);
    }
  finish(&t, "quantized_rows", true);
}

Test(bag_split, per_sample_weights) {
  split_tally t = {0};
  int n = 0;
  for (int d = 0; d < 2; ++d)
    for (int k = 0; k < 4; ++k)
      for (int pad = 0; pad < 2; ++pad, ++n) {
        clg_dtype dt = d ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT;
        bag_case c = make4(CLG_BAG_SUM, k, dt, 400, 16, 160, 10);
        c.psw = true;
        if (pad)
          bag_set_padding(&c, n % 4 == 1 ? 7 : -3, 30);
        c.idt = itypes[n % 2];
        storage(&c, n * 3 + 1);
        c.async = n % 4 == 3;
        run_split(&t, &c, 300u + (uint64_t)n);
      }
  finish(&t, "per_sample_weights", true);
}

Test(bag_split, padding_idx) {
  /* the first and the last row, negative ones, bags of padding only
   * (100%), the flag with no padding entry (0%) */
  static const struct {
    int64_t pad;
    int pct;
  } pads[] = {{0, 25}, {299, 40}, {-1, 30}, {-150, 50}, {42, 100}, {5, 0}};
  split_tally t = {0};
  int n = 0;
  for (size_t p = 0; p < sizeof pads / sizeof pads[0]; ++p)
    for (int m = 0; m < 4; ++m, ++n) {
      clg_dtype dt = n % 2 ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT;
      bag_case c = make4((clg_bag_mode)m, n % 4, dt, 300, 16, 120, 8);
      bag_set_padding(&c, pads[p].pad, pads[p].pct);
      c.idt = itypes[n % 2];
      c.bdt = itypes[(n / 2) % 2];
      storage(&c, n * 5);
      run_split(&t, &c, 400u + (uint64_t)n);
    }
  finish(&t, "padding_idx", true);
}

Test(bag_split, empty_bags) {
  static const struct {
    int form; /* as make4 */
    int64_t n, B, seg_gap, L;
  } shapes[] = {
      {0, 0, 0, 0, 0},   /* B = 0, N = 0: nothing to write */
      {0, 6, 0, 0, 0},   /* B = 0, N = 6 */
      {0, 0, 4, 0, 0},   /* N = 0: four empty bags */
      {1, 0, 3, 0, 0},   /* offsets [0, 0, 0, 0] */
      {0, 30, 40, 0, 0}, /* more bags than entries: most empty */
      {1, 90, 25, 0, 0}, /* include_last_offset, some empty */
      {2, 0, 4, 0, 0},   /* fixed [4, 0] */
      {3, 0, 5, 0, 0},   /* segment ids: N = 0, 5 empty segments */
      {3, 80, 12, 5, 0}, /* ids in [0, 6], 12 segments */
      {3, 10, 30, 0, 0}, /* more segments than entries */
  };
  split_tally t = {0};
  int n = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (int m = 0; m < 4; ++m, ++n) {
      bag_case c = make4((clg_bag_mode)m, shapes[s].form,
                         n % 2 ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT, 300, 16,
                         shapes[s].n, shapes[s].B);
      if (shapes[s].form == 2) {
        c.L = shapes[s].L;
        c.n = c.B * c.L;
      }
      c.seg_gap = shapes[s].seg_gap;
      c.idt = itypes[n % 2];
      c.bdt = itypes[(n / 2) % 2];
      if (n % 3 == 0)
        bag_set_padding(&c, 11, 20);
      storage(&c, n * 7);
      c.want_event = n % 2 == 0;
      c.async = n % 5 == 2;
      run_split(&t, &c, 500u + (uint64_t)n);
    }
  finish(&t, "empty_bags", false);
}

Test(bag_split, storage_events_async) {
  split_tally t = {0};
  for (int k = 0; k < 32; ++k) {
    bag_case c = make4((clg_bag_mode)(k % 4), k % 4,
                       (k / 4) % 2 ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT, 300,
                       16, 140, 9);
    c.psw = c.p.mode == CLG_BAG_SUM && k % 8 == 0;
    storage(&c, k % 16);
    c.idt = itypes[k % 2];
    c.bdt = itypes[(k / 2) % 2];
    c.want_event = (k / 2) % 2 == 0;
    c.wait_list = k % 3 != 2;
    c.async = (k / 16) % 2 == 1 || k % 5 == 0;
    c.own_queue = k % 5 == 3;
    run_split(&t, &c, 700u + (uint64_t)k);
  }
  finish(&t, "storage_events_async", true);
}

/* Other host operands past the limit, with a weight past it and with one
 * that fits (40 rows of 64 bytes): groups of bags sized by those too. */
Test(bag_split, host_operands_past_the_limit) {
  split_tally t = {0};
  int n = 0;
  for (int small = 0; small < 2; ++small)
    for (int k = 0; k < 4; ++k)
      for (int m = 0; m < 4; m += 3, ++n) {
        int64_t E = small ? 40 : 300;
        /* host output [100, 16] (6400 bytes), or int64 indices (and
         * segment ids) of 700 entries (5600 bytes) in 60 bags */
        bag_case c =
            k == 2 ? make4((clg_bag_mode)m, k, CLG_DTYPE_FLOAT, E, 16, 700, 100)
                   : make4((clg_bag_mode)m, k, CLG_DTYPE_FLOAT, E, 16,
                           n % 2 ? 700 : 200, n % 2 ? 60 : 100);
        c.psw = m == CLG_BAG_SUM && n % 3 == 0; /* 2800 bytes of them */
        if (n % 4 == 1)
          bag_set_padding(&c, -2, 25);
        c.want_event = true;
        c.async = n % 2 == 0;
        run_split(&t, &c, 900u + (uint64_t)n);
      }
  finish(&t, "host_operands_past_the_limit", true);
}

/* --------------------------------------------------------- by hand */

float *bs_weight(int64_t E, int64_t dim, uint64_t seed) {
  tu_rng rng = tu_rng_make(seed);
  float *w = malloc((size_t)(E * dim) * sizeof *w + 1);
  cr_assert(w != NULL);
  for (int64_t k = 0; k < E * dim; ++k) {
    double frac = (double)(tu_rng_u64(&rng) >> 11) / 9007199254740992.0;
    w[k] = (float)((tu_rng_range(&rng, 0, 1) ? -1 : 1) *
                   ldexp(1.0 + frac, (int)tu_rng_range(&rng, -4, 4)));
  }
  return w;
}

static ref_bag_args bs_hand_ref(const bs_hand *h, const float *w,
                                const float *psw) {
  ref_bag_args a;
  memset(&a, 0, sizeof a);
  a.mode = (int)h->p.mode;
  a.form = (int)h->p.form;
  a.has_padding_idx = (h->p.flags & CLG_BAG_PADDING_IDX) != 0;
  a.padding_idx = h->p.padding_idx;
  a.dtype = CLG_DTYPE_FLOAT;
  a.weight = w;
  a.num_embeddings = h->E;
  a.dim = h->dim;
  a.indices = h->idx;
  a.index_type = REF_INDEX_I64;
  a.indices_rank = h->bags ? 1 : 2;
  a.indices_shape[0] = h->bags ? h->n : h->B;
  a.indices_shape[1] = h->bags ? 0 : h->n / h->B;
  a.bags = h->bags;
  a.bags_type = REF_INDEX_I64;
  a.bags_len = h->bags ? h->B : 0;
  a.per_sample_weights = psw;
  a.num_bags = h->B;
  return a;
}

unsigned bs_hand_run(const bs_hand *h, uint64_t seed, const char *what) {
  clg_context *ctx = bs_ctx();
  float *w = bs_weight(h->E, h->dim, seed);
  float *psw = h->psw ? bs_weight(h->n, 1, seed + 1) : NULL;
  size_t ob = (size_t)(h->B * h->dim) * sizeof(float);
  unsigned char *want = malloc(ob + 1), *got = malloc(ob + 1);
  cr_assert(want && got);
  ref_bag_args a = bs_hand_ref(h, w, psw);
  cr_assert_eq(ref_embedding_bag(&a, want), 0, "%s: the reference refuses",
               what);
  memset(got, 0xA5, ob);
  int64_t ws[2] = {h->E, h->dim}, os[2] = {h->B, h->dim};
  int64_t is[2] = {h->bags ? h->n : h->B, h->bags ? 0 : h->n / h->B};
  int64_t bs[1] = {h->B};
  clg_tensor wt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, w);
  clg_tensor xt = clg_tensor_host(CLG_DTYPE_INT64, h->bags ? 1 : 2, is, h->idx);
  clg_tensor bt = clg_tensor_host(CLG_DTYPE_INT64, 1, bs, h->bags);
  clg_tensor pt = clg_tensor_host(CLG_DTYPE_FLOAT, h->bags ? 1 : 2, is, psw);
  clg_tensor ot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, got);
  unsigned s0 = atomic_load(&ctx->bag_splits),
           g0 = atomic_load(&ctx->bag_split_groups);
  clg_status st = clg_embedding_bag(ctx, &h->p, &wt, &xt, h->bags ? &bt : NULL,
                                    psw ? &pt : NULL, &ot, NULL, 0, NULL, NULL);
  cr_assert_eq(st, CLG_SUCCESS, "%s: %s", what, clg_last_error());
  cr_expect_eq(atomic_load(&ctx->bag_splits) - s0, 1u,
               "%s: not run on packed tables", what);
  ptrdiff_t at = tu_first_diff(got, want, ob);
  cr_expect(at < 0, "%s: output differs from the reference at byte %td", what,
            at);
  free(w);
  free(psw);
  free(want);
  free(got);
  return atomic_load(&ctx->bag_split_groups) - g0;
}

/* Ten bags of 40 distinct rows each (and repeats): 400 distinct rows, the
 * limit holds 64, so one bag per table. */
Test(bag_split, distinct_rows_past_the_limit_make_groups) {
  enum { B = 10, PER = 60 };
  int64_t idx[B * PER], off[B];
  for (int b = 0; b < B; ++b) {
    off[b] = b * PER;
    for (int j = 0; j < PER; ++j) /* rows 97b + (j mod 40), some twice */
      idx[b * PER + j] = (97 * b + (j * 7) % 40) % 1000;
  }
  bs_hand h = {
      .E = 1000, .dim = 16, .idx = idx, .n = B * PER, .bags = off, .B = B};
  for (int m = 0; m < 4; ++m) {
    h.p.mode = (clg_bag_mode)m;
    char what[64];
    snprintf(what, sizeof what, "mode %d", m);
    cr_expect_eq(bs_hand_run(&h, 11u + (uint64_t)m, what), (unsigned)B,
                 "%s: one group per bag expected", what);
  }
  /* With a padding row in every table: 41 rows, still one bag each. */
  h.p.mode = CLG_BAG_MEAN;
  h.p.flags = CLG_BAG_PADDING_IDX;
  h.p.padding_idx = 97 * 3 + 5; /* in bag 3 */
  cr_expect_eq(bs_hand_run(&h, 21u, "mean, padding"), (unsigned)B);
  /* Fixed rows of 20 distinct rows: three bags to a table. */
  h.p = (clg_bag_params){.mode = CLG_BAG_SUM, .form = CLG_BAGS_FIXED};
  for (int k = 0; k < B * PER; ++k)
    idx[k] = (k / 60) * 97 + (k % 20) * 3;
  h.bags = NULL;
  h.psw = true;
  cr_expect_eq(bs_hand_run(&h, 31u, "fixed, per_sample_weights"), 4u);
}

/* A bag of 500 entries over 3 rows (heavy repeats), a bag of one row
 * repeated, and padding entries among repeats. */
Test(bag_split, repeated_indices) {
  enum { N = 510 };
  int64_t idx[N], off[4] = {0, 500, 505, 505};
  for (int i = 0; i < 500; ++i)
    idx[i] = 23 + (i * i) % 5 * 50;
  for (int i = 500; i < N; ++i)
    idx[i] = i < 505 ? 299 : (i % 2 ? 7 : 0);
  bs_hand h = {.E = 300, .dim = 16, .idx = idx, .n = N, .bags = off, .B = 4};
  for (int m = 0; m < 4; ++m) {
    h.p = (clg_bag_params){.mode = (clg_bag_mode)m};
    bs_hand_run(&h, 41u + (uint64_t)m, "repeats");
    /* padding_idx 7: bag 3's 7s skipped, its 0s (the table's row 0
     * otherwise) counted */
    h.p.flags = CLG_BAG_PADDING_IDX;
    h.p.padding_idx = 7;
    bs_hand_run(&h, 51u + (uint64_t)m, "repeats, padding_idx 7");
    h.p.padding_idx = -300; /* row 0 */
    bs_hand_run(&h, 61u + (uint64_t)m, "repeats, padding_idx 0");
  }
}
