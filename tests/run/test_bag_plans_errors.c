/*
 * host/run/bag_plans.c and plans.c: the errors of EmbeddingBag's plans
 * (test_bag_plans, with test_bag_plans.c).
 *
 *  - Every check clg_plan_create_embedding_bag() makes on templates, as
 *    clg_embedding_bag() makes it: its status, a message naming the
 *    tensor or attribute, *out NULL.
 *  - Enqueues whose tensors differ from the templates (dtype, shape, kind
 *    of memory, present or not) or whose outcome goes against the plan's
 *    flags: refused before anything runs, with the messages of
 *    clg_plan_enqueue()'s checks, no event, no outcome, the output's bytes
 *    unchanged.
 *  - Gather, scatter and EmbeddingBag plans refused at each other's
 *    entry points, naming the plan's own; each still runs at its own,
 *    against the reference.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "run/bag_plans_fx.h"

/* ------------------------------------------------------------- errors */

/* A create that must fail: its status, a message holding `needle`, *out
 * set to NULL. */
static void create_fails(clg_context *ctx, const clg_bag_params *p,
                         const clg_tensor *w, const clg_tensor *x,
                         const clg_tensor *b, const clg_tensor *s,
                         const clg_tensor *o, unsigned flags, clg_status want,
                         const char *needle, const char *what) {
  clg_plan *plan = POISON_PLAN;
  clg_status st =
      clg_plan_create_embedding_bag(ctx, p, w, x, b, s, o, flags, &plan);
  cr_expect_eq(st, want, "%s: %s (%s), want %s", what, clg_status_string(st),
               clg_last_error(), clg_status_string(want));
  cr_expect_null(plan, "%s: *out not NULL after a failure", what);
  if (st != CLG_SUCCESS)
    expect_message(needle, what);
  else
    clg_plan_destroy(plan);
}

/* Every check create makes without memory, as clg_embedding_bag() makes
 * it (the header's errors), on templates. */
Test(bag_plans, create_errors) {
  clg_context *ctx = tu_ctx();
  static const int64_t ws[2] = {SM_E, SM_D}, xs[1] = {SM_N}, bs[1] = {SM_B},
                       os[2] = {SM_B, SM_D}, x2[2] = {5, 2};
  clg_tensor w = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, NULL),
             x = clg_tensor_host(CLG_DTYPE_INT64, 1, xs, NULL),
             b = clg_tensor_buffer(CLG_DTYPE_INT64, 1, bs, NULL, 8),
             o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, NULL, 0),
             s = clg_tensor_host(CLG_DTYPE_FLOAT, 1, xs, NULL);
  clg_bag_params p = {0};
  /* The templates themselves are good: */
  clg_plan *plan = NULL;
  cr_assert_eq(clg_plan_create_embedding_bag(ctx, &p, &w, &x, &b, &s, &o,
                                             CLG_PLAN_ASYNC_CHECK, &plan),
               CLG_SUCCESS, "%s", clg_last_error());
  clg_plan_destroy(plan);
  cr_assert_eq(
      clg_plan_create_embedding_bag(ctx, NULL, &w, &x, &b, NULL, &o, 0, &plan),
      CLG_SUCCESS, "params NULL: %s", clg_last_error());
  clg_plan_destroy(plan);

  cr_expect_eq(
      clg_plan_create_embedding_bag(ctx, &p, &w, &x, &b, NULL, &o, 0, NULL),
      CLG_ERROR_NULL_ARGUMENT);
  expect_message("out", "out NULL");
  create_fails(ctx, &p, &w, &x, &b, NULL, &o, 2u, CLG_ERROR_INVALID_ARGUMENT,
               "flags", "flag 2");
  create_fails(NULL, &p, &w, &x, &b, NULL, &o, 0, CLG_ERROR_NULL_ARGUMENT,
               "ctx", "ctx NULL");
  create_fails(ctx, &p, NULL, &x, &b, NULL, &o, 0, CLG_ERROR_NULL_ARGUMENT,
               "weight", "weight NULL");
  create_fails(ctx, &p, &w, NULL, &b, NULL, &o, 0, CLG_ERROR_NULL_ARGUMENT,
               "indices", "indices NULL");
  create_fails(ctx, &p, &w, &x, NULL, NULL, &o, 0, CLG_ERROR_NULL_ARGUMENT,
               "offsets", "offsets NULL");
  create_fails(ctx, &p, &w, &x, &b, NULL, NULL, 0, CLG_ERROR_NULL_ARGUMENT,
               "output", "output NULL");
  clg_bag_params q = p;
  q.mode = (clg_bag_mode)7;
  create_fails(ctx, &q, &w, &x, &b, NULL, &o, 0, CLG_ERROR_INVALID_ARGUMENT,
               "mode", "mode 7");
  q = p;
  q.weight_format = 9;
  create_fails(ctx, &q, &w, &x, &b, NULL, &o, 0, CLG_ERROR_INVALID_ARGUMENT,
               "weight_format", "weight_format 9");
  q = p;
  q.flags = CLG_BAG_PADDING_IDX;
  q.padding_idx = SM_E;
  create_fails(ctx, &q, &w, &x, &b, NULL, &o, 0, CLG_ERROR_INVALID_ARGUMENT,
               "padding_idx", "padding_idx 7");
  q = p;
  q.mode = CLG_BAG_MEAN;
  create_fails(ctx, &q, &w, &x, &b, &s, &o, 0, CLG_ERROR_INVALID_ARGUMENT,
               "per_sample_weights", "per_sample_weights with mean");
  q = p;
  q.form = CLG_BAGS_FIXED;
  create_fails(ctx, &q, &w, &x, &b, NULL, &o, 0, CLG_ERROR_INVALID_ARGUMENT,
               "CLG_BAGS_FIXED", "bags with the fixed form");
  clg_tensor t = w;
  t.dtype = CLG_DTYPE_INT32;
  create_fails(ctx, &p, &t, &x, &b, NULL, &o, 0, CLG_ERROR_UNSUPPORTED_DTYPE,
               "weight", "int32 weight");
  t = x;
  t.dtype = CLG_DTYPE_FLOAT;
  create_fails(ctx, &p, &w, &t, &b, NULL, &o, 0,
               CLG_ERROR_INVALID_INDICES_DTYPE, "indices", "float indices");
  t = o;
  t.dtype = CLG_DTYPE_DOUBLE;
  create_fails(ctx, &p, &w, &x, &b, NULL, &t, 0, CLG_ERROR_DTYPE_MISMATCH,
               "output", "float64 output");
  t = o;
  t.shape[0] = SM_B - 1;
  create_fails(ctx, &p, &w, &x, &b, NULL, &t, 0, CLG_ERROR_SHAPE_MISMATCH,
               "output", "output [3, 4]");
  t = clg_tensor_host(CLG_DTYPE_INT64, 2, x2, NULL);
  create_fails(ctx, &p, &w, &t, &b, NULL, &o, 0, CLG_ERROR_INVALID_RANK,
               "indices", "2-D indices with offsets");
  t = w;
  t.shape[0] = -1;
  create_fails(ctx, &p, &t, &x, &b, NULL, &o, 0, CLG_ERROR_INVALID_SHAPE,
               "weight", "negative dim");
  t = b;
  t.offset = 12; /* not a multiple of 8 */
  create_fails(ctx, &p, &w, &x, &t, NULL, &o, 0, CLG_ERROR_INVALID_ARGUMENT,
               "offset", "misaligned offsets template");
  t = w;
  t.storage = (clg_storage)9;
  create_fails(ctx, &p, &t, &x, &b, NULL, &o, 0, CLG_ERROR_INVALID_ARGUMENT,
               "storage", "unknown storage kind");
  static const int64_t strides[2] = {SM_D, 1};
  clg_strided_tensor sw = clg_tensor_strided(&w, strides);
  create_fails(ctx, &p, &sw.tensor, &x, &b, NULL, &o, 0,
               CLG_ERROR_INVALID_ARGUMENT, "strided", "strided weight");
}

/* An enqueue that must fail before anything runs: its status, a message
 * holding every ';'-separated needle, no event, no outcome, the output's
 * bytes untouched. */
static void enqueue_fails(clg_plan *plan, const clg_tensor *w,
                          const clg_tensor *x, const clg_tensor *b,
                          const clg_tensor *s, const tu_tensor *o,
                          const clg_tensor *od, bool with_outcome,
                          clg_status want, const char *needles,
                          const char *what) {
  cl_event ev = POISON_EVENT;
  clg_outcome *oc = POISON_OUTCOME;
  clg_status st =
      clg_plan_enqueue_embedding_bag(plan, w, x, b, s, od ? od : &o->desc, NULL,
                                     0, NULL, &ev, with_outcome ? &oc : NULL);
  cr_expect_eq(st, want, "%s: %s (%s), want %s", what, clg_status_string(st),
               clg_last_error(), clg_status_string(want));
  char buf[256];
  snprintf(buf, sizeof buf, "%s", needles);
  for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";"))
    expect_message(tok, what);
  cr_expect(ev == POISON_EVENT && oc == POISON_OUTCOME,
            "%s: an event or outcome came out of a failure", what);
  cr_expect(tu_tensor_all_sentinel(o), "%s: the output was written", what);
}

/* Tensors that differ from the templates (dtype, shape, kind of memory,
 * present or not) and outcomes against the plan's flags: refused before
 * anything runs, with the messages of clg_plan_enqueue()'s checks. */
Test(bag_plans, enqueue_mismatches) {
  clg_context *ctx = tu_ctx();
  small s;
  small_make(&s, false, false, false);
  clg_plan *plan = small_plan(ctx, &s, false);
  clg_plan *aplan = small_plan(ctx, &s, true);
  const clg_tensor *w = &s.w.desc, *x = &s.x.desc, *b = &s.b.desc;
  /* A good enqueue first: the fixture is right. */
  cr_assert_eq(clg_plan_enqueue_embedding_bag(plan, w, x, b, NULL, &s.o.desc,
                                              NULL, 0, NULL, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  float want[SM_B * SM_D];
  small_want(&s, want);
  expect_output(&s, want, "good enqueue");
  small_free(&s);
  small_make(&s, false, false, false);
  w = &s.w.desc;
  x = &s.x.desc;
  b = &s.b.desc;

  clg_tensor t = *w;
  t.dtype = CLG_DTYPE_DOUBLE;
  enqueue_fails(plan, &t, x, b, NULL, &s.o, NULL, false,
                CLG_ERROR_DTYPE_MISMATCH, "weight;double;plan was made for",
                "float64 weight");
  t = *x;
  t.dtype = CLG_DTYPE_INT32;
  enqueue_fails(plan, w, &t, b, NULL, &s.o, NULL, false,
                CLG_ERROR_DTYPE_MISMATCH, "indices;plan was made for",
                "int32 indices");
  t = *b;
  t.dtype = CLG_DTYPE_INT32;
  enqueue_fails(plan, w, x, &t, NULL, &s.o, NULL, false,
                CLG_ERROR_DTYPE_MISMATCH, "offsets;plan was made for",
                "int32 offsets");
  t = *x;
  t.shape[0] = SM_N - 1;
  enqueue_fails(plan, w, &t, b, NULL, &s.o, NULL, false,
                CLG_ERROR_SHAPE_MISMATCH, "indices;[9];[10]", "indices [9]");
  t = *w;
  t.rank = 1;
  enqueue_fails(plan, &t, x, b, NULL, &s.o, NULL, false,
                CLG_ERROR_SHAPE_MISMATCH, "weight;rank 1", "1-D weight");
  clg_tensor od = s.o.desc;
  od.shape[1] = SM_D + 1;
  enqueue_fails(plan, w, x, b, NULL, &s.o, &od, false, CLG_ERROR_SHAPE_MISMATCH,
                "output;plan was made for", "output [4, 5]");
  cl_mem mem = tu_buffer_create(256, NULL);
  t = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, sm_ws, mem, 0);
  enqueue_fails(plan, &t, x, b, NULL, &s.o, NULL, false,
                CLG_ERROR_INVALID_ARGUMENT, "weight;cl_mem;host memory",
                "cl_mem weight for a host plan");
  t = clg_tensor_host(CLG_DTYPE_FLOAT, 1, sm_xs, s.w.desc.host);
  enqueue_fails(plan, w, x, b, &t, &s.o, NULL, false,
                CLG_ERROR_INVALID_ARGUMENT, "per_sample_weights;without",
                "per_sample_weights the plan has not");
  enqueue_fails(plan, w, x, NULL, NULL, &s.o, NULL, false,
                CLG_ERROR_NULL_ARGUMENT, "offsets", "offsets NULL");
  enqueue_fails(plan, NULL, x, b, NULL, &s.o, NULL, false,
                CLG_ERROR_NULL_ARGUMENT, "weight", "weight NULL");
  enqueue_fails(NULL, w, x, b, NULL, &s.o, NULL, false, CLG_ERROR_NULL_ARGUMENT,
                "plan", "plan NULL");
  enqueue_fails(plan, w, x, b, NULL, &s.o, NULL, true,
                CLG_ERROR_INVALID_ARGUMENT, "outcome;CLG_PLAN_ASYNC_CHECK",
                "an outcome for a synchronous plan");
  enqueue_fails(aplan, w, x, b, NULL, &s.o, NULL, false,
                CLG_ERROR_NULL_ARGUMENT, "outcome;CLG_PLAN_ASYNC_CHECK",
                "no outcome for an asynchronous plan");
  /* The one-shot call's own checks after the templates': a buffer too
   * small. (A strided view of a template's shape is taken, as
   * clg_embedding_bag() takes it: tests/run/test_bag_strided.c.) */
  clReleaseMemObject(mem);

  /* Fixed bags and per_sample_weights: bags given to a plan without them,
   * per_sample_weights missing from a plan with them. */
  static const int64_t fx[2] = {5, 2};
  clg_bag_params fp = {0};
  fp.form = CLG_BAGS_FIXED;
  clg_tensor fxt = clg_tensor_host(CLG_DTYPE_INT64, 2, fx, NULL),
             fst = clg_tensor_host(CLG_DTYPE_FLOAT, 2, fx, NULL),
             fwt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, sm_ws, NULL);
  static const int64_t fos[2] = {5, SM_D};
  clg_tensor fot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, fos, NULL);
  clg_plan *fplan = NULL;
  cr_assert_eq(clg_plan_create_embedding_bag(ctx, &fp, &fwt, &fxt, NULL, &fst,
                                             &fot, 0, &fplan),
               CLG_SUCCESS, "%s", clg_last_error());
  tu_tensor fo;
  tu_tensor_init(&fo, CLG_DTYPE_FLOAT, 2, fos, H(), NULL);
  clg_tensor fx_real = clg_tensor_host(CLG_DTYPE_INT64, 2, fx, s.x.desc.host);
  clg_tensor fs_real = clg_tensor_host(CLG_DTYPE_FLOAT, 2, fx, s.w.desc.host);
  enqueue_fails(fplan, w, &fx_real, b, &fs_real, &fo, NULL, false,
                CLG_ERROR_INVALID_ARGUMENT, "bags;without",
                "bags for a fixed plan");
  enqueue_fails(fplan, w, &fx_real, NULL, NULL, &fo, NULL, false,
                CLG_ERROR_NULL_ARGUMENT, "per_sample_weights",
                "per_sample_weights missing");
  tu_tensor_free(&fo);
  clg_plan_destroy(fplan);
  clg_plan_destroy(plan);
  clg_plan_destroy(aplan);
  small_free(&s);
}

/* Gather and scatter plans at EmbeddingBag's enqueue, and an EmbeddingBag
 * plan at theirs: refused, naming the plan's own entry point, the output
 * untouched; each still runs at its own. */
Test(bag_plans, kinds_refused_at_each_others_enqueue) {
  clg_context *ctx = tu_ctx();
  small s;
  small_make(&s, false, false, false);
  clg_plan *bag = small_plan(ctx, &s, false);

  /* Gather on axis 0: data [7, 4], indices [4], output [4, 4] (the small
   * call's weight, offsets and output). */
  clg_params gp = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  clg_tensor gd = clg_tensor_host(CLG_DTYPE_FLOAT, 2, sm_ws, NULL),
             gx = clg_tensor_host(CLG_DTYPE_INT64, 1, sm_bs, NULL),
             go = clg_tensor_host(CLG_DTYPE_FLOAT, 2, sm_os, NULL);
  clg_plan *gather = NULL;
  cr_assert_eq(clg_plan_create(ctx, &gp, &gd, &gx, &go, 0, &gather),
               CLG_SUCCESS, "%s", clg_last_error());
  /* ScatterElements on axis 0: data [7, 4], indices and updates [1, 4]. */
  static const int64_t us[2] = {1, SM_D};
  clg_params sp = {CLG_OP_SCATTER_ELEMENTS, 0, 0, CLG_MODE_RAISE};
  clg_tensor sx = clg_tensor_host(CLG_DTYPE_INT64, 2, us, NULL),
             su = clg_tensor_host(CLG_DTYPE_FLOAT, 2, us, NULL);
  clg_plan *scatter = NULL;
  cr_assert_eq(
      clg_plan_create_scatter(ctx, &sp, NULL, &gd, &sx, &su, &gd, 0, &scatter),
      CLG_SUCCESS, "%s", clg_last_error());
  cr_assert_eq(clg_plan_bake(bag), CLG_SUCCESS, "%s", clg_last_error());

  const clg_tensor *w = &s.w.desc, *x = &s.x.desc, *b = &s.b.desc;
  enqueue_fails(gather, w, x, b, NULL, &s.o, NULL, false,
                CLG_ERROR_INVALID_ARGUMENT, "gather;clg_plan_enqueue()",
                "a gather's plan at the EmbeddingBag enqueue");
  enqueue_fails(scatter, w, x, b, NULL, &s.o, NULL, false,
                CLG_ERROR_INVALID_ARGUMENT,
                "scatter;clg_plan_enqueue_scatter()",
                "a scatter's plan at the EmbeddingBag enqueue");

  /* The bag plan at clg_plan_enqueue(): data = weight, indices = offsets
   * (values in range: a gather would run), output [4, 4]. */
  cl_event ev = POISON_EVENT;
  clg_status st =
      clg_plan_enqueue(bag, w, b, &s.o.desc, NULL, 0, NULL, &ev, NULL);
  cr_expect_eq(st, CLG_ERROR_INVALID_ARGUMENT, "clg_plan_enqueue: %s (%s)",
               clg_status_string(st), clg_last_error());
  expect_message("EmbeddingBag", "clg_plan_enqueue");
  expect_message("clg_plan_enqueue_embedding_bag()", "clg_plan_enqueue");
  cr_expect(ev == POISON_EVENT, "an event came out of a failure");
  cr_expect(tu_tensor_all_sentinel(&s.o), "clg_plan_enqueue wrote");
  /* ... and at clg_plan_enqueue_scatter(): output [7, 4], updates [1, 4]. */
  tu_tensor so, sxt, sut;
  float upd[SM_D] = {1, 2, 3, 4};
  tu_tensor_init(&so, CLG_DTYPE_FLOAT, 2, sm_ws, H(), NULL);
  tu_tensor_init(&sxt, CLG_DTYPE_INT64, 2, us, H(), NULL);
  memset(sxt.desc.host, 0, sxt.bytes);
  tu_tensor_init(&sut, CLG_DTYPE_FLOAT, 2, us, H(), upd);
  st = clg_plan_enqueue_scatter(bag, w, &sxt.desc, &sut.desc, &so.desc, NULL, 0,
                                NULL, &ev, NULL);
  cr_expect_eq(st, CLG_ERROR_INVALID_ARGUMENT,
               "clg_plan_enqueue_scatter: %s (%s)", clg_status_string(st),
               clg_last_error());
  expect_message("clg_plan_enqueue_embedding_bag()",
                 "clg_plan_enqueue_scatter");
  cr_expect(ev == POISON_EVENT, "an event came out of a failure");
  cr_expect(tu_tensor_all_sentinel(&so), "clg_plan_enqueue_scatter wrote");

  /* Each at its own entry point still runs: the gather on the first four
   * indices. */
  clg_tensor gxs = clg_tensor_host(CLG_DTYPE_INT64, 1, sm_bs, s.idx);
  cr_expect_eq(
      clg_plan_enqueue(gather, w, &gxs, &s.o.desc, NULL, 0, NULL, NULL, NULL),
      CLG_SUCCESS, "%s", clg_last_error());
  float want[SM_B * SM_D], got[SM_B * SM_D];
  for (int r = 0; r < SM_B; ++r) /* Gather: weight's rows */
    for (int c = 0; c < SM_D; ++c)
      want[r * SM_D + c] = 0.25f * (float)(s.idx[r] * SM_D + c);
  tu_tensor_read(&s.o, got);
  cr_expect(tu_first_diff(got, want, sizeof got) < 0, "the gather plan");
  tu_tensor_free(&s.o);
  tu_tensor_init(&s.o, CLG_DTYPE_FLOAT, 2, sm_os, H(), NULL);
  cr_expect_eq(clg_plan_enqueue_embedding_bag(bag, w, x, b, NULL, &s.o.desc,
                                              NULL, 0, NULL, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  small_want(&s, want);
  expect_output(&s, want, "the bag plan");

  tu_tensor_free(&so);
  tu_tensor_free(&sxt);
  tu_tensor_free(&sut);
  clg_plan_destroy(gather);
  clg_plan_destroy(scatter);
  clg_plan_destroy(bag);
  small_free(&s);
}
