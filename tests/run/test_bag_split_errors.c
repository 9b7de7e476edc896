/*
 * host/run/bag_split.c's errors (the suite bag_split of test_bag_split,
 * with tests/run/test_bag_split.c), the weight in host memory past the
 * lowered limit: a bad index or bad bags give the one-buffer call's
 * status and message, with host or cl_mem indices and bags, a host or
 * cl_mem output, synchronous or asynchronous, the output untouched, no
 * event, no outcome, no kernel enqueued (clg_fault_calls); what cannot be
 * split (one row, one bag's distinct rows with or without the padding
 * row, one bag's indices over the limit) is CLG_ERROR_OPENCL naming the
 * sizes and the limit, before anything runs; a host allocation failed at
 * each of the call's allocations is CLG_ERROR_OUT_OF_HOST_MEMORY, and the
 * call succeeds again after.
 */
#define _POSIX_C_SOURCE 200809L

#include "bag_split_hand.h"
#include "internal.h"

#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

/* The error case: weight float32 [300, 16] (19200 bytes) in host memory,
 * int64 indices and bags of the form, output [B, 16] of sentinel bytes. */
typedef struct err_case {
  clg_bag_params p;
  int64_t E, dim;
  int64_t idx[128];
  int64_t n;
  int64_t bags[128];
  int64_t blen;
  int64_t B;
} err_case;

static err_case err_base(clg_bag_form form) {
  err_case e;
  memset(&e, 0, sizeof e);
  e.p.form = form;
  e.E = 300;
  e.dim = 16;
  e.n = 40;
  e.B = 4;
  for (int i = 0; i < 40; ++i)
    e.idx[i] = (i * 37) % 300;
  if (form == CLG_BAGS_OFFSETS) {
    e.blen = 4;
    int64_t off[4] = {0, 10, 10, 25};
    memcpy(e.bags, off, sizeof off);
  } else if (form == CLG_BAGS_SEGMENT_IDS) {
    e.blen = 40;
    for (int i = 0; i < 40; ++i)
      e.bags[i] = i < 12 ? 0 : i < 30 ? 2 : 3;
  }
  return e;
}

/* Variant 0: host operands; 1: indices and bags in cl_mem; 2: the output
 * in a cl_mem; 3: indices, bags and output in cl_mem,
 * clg_embedding_bag_async(). Each: the status, every needle in the
 * message, no event, no outcome, the output's bytes untouched, no kernel
 * enqueued, and the call taken by the packed tables' path. */
static void expect_error(const err_case *e, clg_status want,
                         const char *needle1, const char *needle2,
                         const char *what) {
  clg_context *ctx = bs_ctx();
  float *w = bs_weight(e->E, e->dim, 5);
  bool fixed = e->p.form == CLG_BAGS_FIXED;
  size_t ob = (size_t)(e->B * e->dim) * sizeof(float);
  int64_t ws[2] = {e->E, e->dim}, os[2] = {e->B, e->dim};
  int64_t is[2] = {fixed ? e->B : e->n, fixed ? e->n / e->B : 0};
  int64_t bs[1] = {e->blen};
  for (int v = 0; v < 4; ++v) {
    static const char *const vname[4] = {"host", "cl_mem indices and bags",
                                         "cl_mem output",
                                         "all but the weight cl_mem, async"};
    bool in_buf = v == 1 || v == 3, out_buf = v >= 2;
    unsigned char *out = malloc(ob + 1);
    cr_assert(out != NULL);
    memset(out, (int)TU_SENTINEL, ob);
    cl_mem xm = NULL, bm = NULL, om = NULL;
    clg_tensor wt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, w);
    clg_tensor xt =
        clg_tensor_host(CLG_DTYPE_INT64, fixed ? 2 : 1, is, (void *)e->idx);
    clg_tensor bt = clg_tensor_host(CLG_DTYPE_INT64, 1, bs, (void *)e->bags);
    clg_tensor ot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
    if (in_buf) {
      xt = clg_tensor_buffer(CLG_DTYPE_INT64, fixed ? 2 : 1, is,
                             xm = tu_buffer_create(sizeof e->idx, e->idx), 0);
      bt = clg_tensor_buffer(CLG_DTYPE_INT64, 1, bs,
                             bm = tu_buffer_create(sizeof e->bags, e->bags), 0);
    }
    if (out_buf)
      ot = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os,
                             om = tu_buffer_create(ob ? ob : 1, out), 0);
    unsigned s0 = atomic_load(&ctx->bag_splits);
    clg_fault_reset();
    cl_event ev = NULL;
    clg_outcome *oc = NULL;
    clg_status st =
        v == 3
            ? clg_embedding_bag_async(ctx, &e->p, &wt, &xt, fixed ? NULL : &bt,
                                      NULL, &ot, NULL, 0, NULL, &ev, &oc)
            : clg_embedding_bag(ctx, &e->p, &wt, &xt, fixed ? NULL : &bt, NULL,
                                &ot, NULL, 0, NULL, &ev);
    unsigned long kernels = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
    const char *msg = clg_last_error();
    cr_expect_eq(st, want, "%s (%s): got %s: %s", what, vname[v],
                 clg_status_string(st), msg);
    cr_expect(tu_contains(msg, needle1), "%s (%s): no \"%s\" in: %s", what,
              vname[v], needle1, msg);
    cr_expect(!needle2 || tu_contains(msg, needle2),
              "%s (%s): no \"%s\" in: %s", what, vname[v], needle2, msg);
    cr_expect(ev == NULL && oc == NULL, "%s (%s): an event or an outcome", what,
              vname[v]);
    cr_expect_eq(kernels, 0ul, "%s (%s): %lu kernels enqueued", what, vname[v],
                 kernels);
    cr_expect_eq(atomic_load(&ctx->bag_splits) - s0, 1u,
                 "%s (%s): not the packed tables' path", what, vname[v]);
    if (om)
      tu_buffer_read(om, 0, ob, out);
    for (size_t k = 0; k < ob; ++k)
      if (out[k] != TU_SENTINEL) {
        cr_expect(false, "%s (%s): output byte %zu written", what, vname[v], k);
        break;
      }
    if (ev)
      clReleaseEvent(ev);
    clg_outcome_release(oc);
    if (xm)
      clReleaseMemObject(xm);
    if (bm)
      clReleaseMemObject(bm);
    if (om)
      clReleaseMemObject(om);
    free(out);
  }
  free(w);
}

Test(bag_split, bad_values_are_the_same_errors) {
  err_case e = err_base(CLG_BAGS_OFFSETS);
  e.idx[37] = 300;
  expect_error(&e, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "indices[37] is 300",
               "outside [0, 299]", "index = num_embeddings");
  e = err_base(CLG_BAGS_FIXED);
  e.idx[13] = -1;
  expect_error(&e, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "indices[13]",
               "[1, 3]) is -1", "negative index, fixed");
  e = err_base(CLG_BAGS_OFFSETS);
  e.bags[0] = 1;
  expect_error(&e, CLG_ERROR_INVALID_BAGS, "offsets[0] is 1", NULL,
               "offsets[0] not 0");
  e = err_base(CLG_BAGS_OFFSETS);
  e.bags[2] = 9;
  e.idx[39] = 1000; /* the bags come first */
  expect_error(&e, CLG_ERROR_INVALID_BAGS, "offsets[2] is 9",
               "below offsets[1] = 10", "offsets decreasing");
  e = err_base(CLG_BAGS_OFFSETS);
  e.bags[3] = 41;
  expect_error(&e, CLG_ERROR_INVALID_BAGS, "offsets[3] is 41",
               "past the 40 indices", "offset past N");
  e = err_base(CLG_BAGS_OFFSETS);
  e.p.flags = CLG_BAG_INCLUDE_LAST_OFFSET;
  e.B = 3;
  e.bags[3] = 39;
  expect_error(&e, CLG_ERROR_INVALID_BAGS, "offsets[3]", "is 39",
               "include_last_offset, last not N");
  e = err_base(CLG_BAGS_SEGMENT_IDS);
  e.bags[20] = 1;
  expect_error(&e, CLG_ERROR_INVALID_BAGS, "segment_ids[20] is 1",
               "must not decrease", "segment ids decreasing");
  e = err_base(CLG_BAGS_SEGMENT_IDS);
  e.bags[39] = 4;
  expect_error(&e, CLG_ERROR_INVALID_BAGS, "segment_ids[39] is 4",
               "outside [0, 3]", "segment id = num_segments");
  /* a bad index with a row too large to split: the index first */
  e = err_base(CLG_BAGS_OFFSETS);
  e.E = 3;
  e.dim = 1100; /* 4400-byte rows */
  for (int i = 0; i < 40; ++i)
    e.idx[i] = i == 5 ? 3 : i % 3;
  expect_error(&e, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "indices[5] is 3", NULL,
               "bad index and rows past the limit");
}

Test(bag_split, what_cannot_be_split) {
  /* bag 2 of 68 distinct rows of 64 bytes (4352 bytes; 64 fit) */
  err_case e = err_base(CLG_BAGS_OFFSETS);
  int64_t off[3] = {0, 2, 2};
  memcpy(e.bags, off, sizeof off);
  e.blen = e.B = 3;
  e.n = 70;
  for (int i = 0; i < 70; ++i)
    e.idx[i] = 4 * i;
  expect_error(&e, CLG_ERROR_OPENCL,
               "EmbeddingBag's host weight is 19200 bytes, larger than the "
               "device's largest buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE = "
               "4096 bytes)",
               "bag 2 alone references more distinct rows of weight than "
               "that buffer holds (64 rows of 64 bytes)",
               "one bag's rows");
  /* With padding_idx 1 (a row no other entry names): 63 distinct rows and
   * 5 padding entries fit, the padding row the table's 64th; bags 0 and 1
   * (2 rows) make the first group. */
  e.p.flags = CLG_BAG_PADDING_IDX;
  e.p.padding_idx = 1;
  for (int i = 65; i < 70; ++i)
    e.idx[i] = 1;
  bs_hand h = {.p = e.p,
               .E = 300,
               .dim = 16,
               .idx = e.idx,
               .n = 70,
               .bags = e.bags,
               .B = 3};
  cr_expect_eq(bs_hand_run(&h, 71u, "63 rows and the padding row"), 2u);
  /* 64 distinct rows and the padding row: no */
  e.idx[65] = 296;
  expect_error(&e, CLG_ERROR_OPENCL, "bag 2 alone",
               "64 rows of 64 bytes, the padding row one of them",
               "64 rows and the padding row");
  /* one row of 4400 bytes */
  e = err_base(CLG_BAGS_SEGMENT_IDS);
  e.E = 5;
  e.dim = 1100;
  for (int i = 0; i < 40; ++i)
    e.idx[i] = i % 5;
  expect_error(&e, CLG_ERROR_OPENCL, "host weight is 22000 bytes",
               "one of weight's rows (4400 bytes) is larger than that "
               "buffer",
               "a row past the limit");
}

/* One bag's host indices past the limit (600 int64: 4800 bytes). */
Test(bag_split, one_bag_of_indices_past_the_limit) {
  clg_context *ctx = bs_ctx();
  enum { N = 600 };
  int64_t *idx = malloc(N * sizeof *idx), off[2] = {0, 1};
  cr_assert(idx != NULL);
  for (int i = 0; i < N; ++i)
    idx[i] = i % 7;
  float *w = bs_weight(300, 16, 3), out[2][16];
  memset(out, (int)TU_SENTINEL, sizeof out);
  int64_t ws[2] = {300, 16}, is[1] = {N}, bs[1] = {2}, os[2] = {2, 16};
  clg_tensor wt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, w);
  clg_tensor xt = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  clg_tensor bt = clg_tensor_host(CLG_DTYPE_INT64, 1, bs, off);
  clg_tensor ot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_status st = clg_embedding_bag(ctx, NULL, &wt, &xt, &bt, NULL, &ot, NULL,
                                    0, NULL, NULL);
  cr_expect_eq(st, CLG_ERROR_OPENCL, "%s", clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "bag 1's indices alone are 4792 "
                                          "bytes"),
            "%s", clg_last_error());
  for (size_t k = 0; k < sizeof out; ++k)
    cr_assert_eq(((unsigned char *)out)[k], TU_SENTINEL, "output written");
  free(idx);
  free(w);
}

/* A host allocation failed at each of the path's positions: out of host
 * memory, then the same call succeeds. */
Test(bag_split, host_allocation_failures) {
  enum { B = 10, PER = 30 };
  int64_t idx[B * PER], off[B];
  for (int b = 0; b < B; ++b) {
    off[b] = b * PER;
    for (int j = 0; j < PER; ++j)
      idx[b * PER + j] = (b * 61 + j * 3) % 300;
  }
  float *w = bs_weight(300, 16, 9), out[B][16];
  int64_t ws[2] = {300, 16}, is[1] = {B * PER}, bs[1] = {B}, os[2] = {B, 16};
  clg_tensor wt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, w);
  clg_tensor xt = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  clg_tensor bt = clg_tensor_host(CLG_DTYPE_INT64, 1, bs, off);
  clg_tensor ot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_context *ctx = bs_ctx();
  /* a clean run first: its kernels built, its allocations counted */
  cr_assert_eq(clg_embedding_bag(ctx, NULL, &wt, &xt, &bt, NULL, &ot, NULL, 0,
                                 NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  clg_fault_reset();
  cr_assert_eq(clg_embedding_bag(ctx, NULL, &wt, &xt, &bt, NULL, &ot, NULL, 0,
                                 NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  unsigned long allocs = clg_fault_calls(CLG_FAULT_HOST_ALLOC);
  cr_assert_geq(allocs, 5ul, "the path's allocations were not counted");
  for (unsigned p = 0; p < allocs; ++p) {
    clg_fault_reset();
    clg_fault_inject(CLG_FAULT_HOST_ALLOC, p, 1, CL_SUCCESS);
    clg_status st = clg_embedding_bag(ctx, NULL, &wt, &xt, &bt, NULL, &ot, NULL,
                                      0, NULL, NULL);
    cr_expect_eq(st, CLG_ERROR_OUT_OF_HOST_MEMORY, "allocation %u: %s (%s)", p,
                 clg_status_string(st), clg_last_error());
  }
  clg_fault_reset();
  cr_expect_eq(clg_embedding_bag(ctx, NULL, &wt, &xt, &bt, NULL, &ot, NULL, 0,
                                 NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  free(w);
}
