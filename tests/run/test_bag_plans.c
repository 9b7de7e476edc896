/*
 * host/run/bag_plans.c: EmbeddingBag's plans (clg_plan_create_embedding_bag,
 * clg_plan_enqueue_embedding_bag; clg_plan_bake and clg_plan_destroy on
 * them; host/run/plans.c keeping each kind of plan to its own enqueue).
 *
 *  - A plan enqueued several times on new tensors (new values, other cl_mem
 *    offsets than its templates', an event, a wait list, a queue of the
 *    caller's) gives the plain-C reference's bytes
 *    (tools/reference/ref_embedding_bag.c, through support/bag_case.c's
 *    runner, which also checks the guard bytes and the unchanged inputs):
 *    each form, two modes and element types per form, host, cl_mem and
 *    mixed operands, synchronous and asynchronous, baked and not; an
 *    enqueue after the bake (or after the first enqueue) builds nothing.
 *  - Bake builds what the header says on a context of the test's own (its
 *    `builds` counter counts every program created, from source or from the
 *    disk cache), and nothing afterwards: not a second bake, not another
 *    plan for the same call, not an enqueue.
 *  - Values are checked at every enqueue: a bad index or offset is the
 *    enqueue's error (synchronous, or host values) or clg_outcome_wait()'s
 *    (asynchronous, cl_mem operands), the output's bytes unchanged, and the
 *    next good enqueue is right.
 *  - Every error of create and enqueue, and the kinds of plans refused at
 *    each other's entry points: test_bag_plans_errors.c.
 * The small call the fault Tests break is bag_plans_fx.c's.
 */
#define _POSIX_C_SOURCE 200809L

#include "internal.h" /* clg_context's builds counter */

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/bag_plans_fx.h"
#include "support/bag_case.h"

/* ------------------------------------------------------------ helpers */

/* A clg_context of the test's own on the shared cl_context and device, so
 * that its program counter is exact and tu_*() buffers belong to it. */
static clg_context *fresh_ctx(void) {
  clg_context *c = NULL;
  clg_status st = clg_context_create(tu_cl_context(), tu_device(), &c);
  cr_assert(st == CLG_SUCCESS && c != NULL, "clg_context_create: %s: %s",
            clg_status_string(st), clg_last_error());
  cr_assert_eq(c->builds, 0u, "a new context has built %u programs", c->builds);
  return c;
}

/* The plan of a case on ctx, from its templates (no memory), with
 * CLG_PLAN_ASYNC_CHECK iff c->async; NULL where the device cannot run the
 * case (create must then say so, as bag_expected() says). */
static clg_plan *case_plan(clg_context *ctx, const bag_case *c,
                           const char *what) {
  clg_tensor t[5];
  bag_templates(c, t);
  clg_plan *plan = POISON_PLAN;
  clg_status st = clg_plan_create_embedding_bag(
      ctx, &c->p, &t[BAG_W], &t[BAG_I],
      c->p.form == CLG_BAGS_FIXED ? NULL : &t[BAG_B], c->psw ? &t[BAG_S] : NULL,
      &t[BAG_O], c->async ? (unsigned)CLG_PLAN_ASYNC_CHECK : 0u, &plan);
  clg_status want = bag_expected(c);
  cr_assert_eq(st, want, "%s: clg_plan_create_embedding_bag: %s (%s), want %s",
               what, clg_status_string(st), clg_last_error(),
               clg_status_string(want));
  if (st != CLG_SUCCESS) {
    cr_assert_null(plan, "%s: *out not NULL after a failed create", what);
    return NULL;
  }
  cr_assert_not_null(plan, "%s: no plan", what);
  cr_expect_str_empty(clg_last_error(), "%s: message after success: %s", what,
                      clg_last_error());
  return plan;
}

static size_t operand_esize(const bag_case *c, int k) {
  return clg_dtype_size(k == BAG_I ? c->idt : k == BAG_B ? c->bdt : c->dtype);
}

/* Enqueue i of a plan: cl_mem operands at other offsets than the
 * template's (i * 3 elements further), and in turn
 * nothing more, an event, or a wait list on a queue of the test's. */
static bag_case enqueue_case(const bag_case *c, int i) {
  bag_case e = *c;
  for (int k = 0; k < 5; ++k)
    if (e.st[k].kind == CLG_STORAGE_BUFFER)
      e.st[k].offset += (size_t)i * 3u * operand_esize(c, k);
  e.want_event = i % 3 == 1;
  e.wait_list = i % 3 == 2;
  e.own_queue = i % 3 == 2;
  return e;
}

/* Operand storages: every operand in host memory; every one a cl_mem
 * (asynchronously: checked on the device, the reduction gated); indices
 * and bags cl_mem, the rest host memory (read back and checked on the
 * host, asynchronously too: nothing gated, the output read back). */
static const int k_storages[] = {0, 31, 6};
#define N_STORAGES (int)(sizeof k_storages / sizeof k_storages[0])
#define N_ENQUEUES 3

/* Each case in each storage, synchronous and asynchronous, baked and not:
 * a plan enqueued N_ENQUEUES times on new tensors, each result against
 * the reference, and no program built after the bake (or, unbaked, after
 * the first enqueue). One context for the Test's plans. */
static void check_reuse(const bag_case *cases, int ncases, uint64_t seed,
                        const char *what) {
  clg_context *ctx = fresh_ctx();
  bag_runner rn = {0, 0, 0};
  for (int ci = 0; ci < ncases; ++ci)
    for (int si = 0; si < N_STORAGES; ++si)
      for (int v = 0; v < 4; ++v) {
        bag_case c = cases[ci];
        bag_storage_for(&c, k_storages[si]);
        c.async = (v & 1) != 0;
        bool bake = (v & 2) != 0;
        char desc[1024], name[1200];
        snprintf(name, sizeof name, "%s: %s%s", what,
                 bag_case_str(&c, desc, sizeof desc),
                 bake ? " baked" : " unbaked");
        clg_plan *plan = case_plan(ctx, &c, name);
        if (!plan) {
          rn.skipped++;
          continue;
        }
        unsigned built = ctx->builds;
        if (bake) {
          cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s: bake: %s", name,
                       clg_last_error());
          built = ctx->builds;
        }
        for (int i = 0; i < N_ENQUEUES; ++i) {
          bag_case e = enqueue_case(&c, i);
          seed = seed * 6364136223846793005ull + 1442695040888963407ull;
          bag_run_plan(&rn, &e, ctx, plan, seed);
          if (!bake && i == 0)
            built = ctx->builds;
          cr_expect_eq(ctx->builds, built, "%s: enqueue %d built %u programs",
                       name, i, ctx->builds - built);
          built = ctx->builds;
        }
        clg_plan_destroy(plan);
      }
  cr_expect_eq(rn.failures, 0, "%s: %d failures", what, rn.failures);
  cr_assert(rn.cases > 0, "%s: no case ran", what);
  cr_log_info("%s: %d enqueues (%d plans the device cannot run)", what,
              rn.cases, rn.skipped);
  clg_context_destroy(ctx);
}

/* -------------------------------------------------------------- reuse */

Test(bag_plans, reuse_offsets) {
  bag_case c[2];
  /* sum with per_sample_weights, include_last_offset, 70 columns (two of
   * BLOCK's blocks), int32 indices. */
  c[0] =
      bag_make(CLG_BAG_SUM, CLG_BAGS_OFFSETS, CLG_DTYPE_FLOAT, 23, 70, 40, 7);
  c[0].psw = true;
  c[0].idt = CLG_DTYPE_INT32;
  c[0].p.flags |= CLG_BAG_INCLUDE_LAST_OFFSET;
  /* float16 mean with a padding index counted from the back, int32
   * offsets. */
  c[1] =
      bag_make(CLG_BAG_MEAN, CLG_BAGS_OFFSETS, CLG_DTYPE_FLOAT16, 17, 9, 30, 6);
  c[1].bdt = CLG_DTYPE_INT32;
  bag_set_padding(&c[1], -2, 20);
  check_reuse(c, 2, 0x0FF5E75u, "offsets");
}

Test(bag_plans, reuse_fixed) {
  bag_case c[2];
  /* float64 max over NaNs and signed zeros, with a padding index. */
  c[0] = bag_make(CLG_BAG_MAX, CLG_BAGS_FIXED, CLG_DTYPE_DOUBLE, 19, 5, 4, 6);
  c[0].data = BAG_DATA_SPECIAL;
  bag_set_padding(&c[0], 3, 15);
  /* bfloat16 sum with per_sample_weights, 66 columns, int32 indices. */
  c[1] =
      bag_make(CLG_BAG_SUM, CLG_BAGS_FIXED, CLG_DTYPE_BFLOAT16, 21, 66, 3, 5);
  c[1].psw = true;
  c[1].idt = CLG_DTYPE_INT32;
  check_reuse(c, 2, 0xF1CEDu, "fixed");
}

Test(bag_plans, reuse_segment_ids) {
  bag_case c[2];
  /* sqrt_n, int32 indices and ids, the last two segments empty. */
  c[0] = bag_make(CLG_BAG_SQRT_N, CLG_BAGS_SEGMENT_IDS, CLG_DTYPE_FLOAT, 20, 8,
                  35, 9);
  c[0].idt = CLG_DTYPE_INT32;
  c[0].bdt = CLG_DTYPE_INT32;
  c[0].seg_gap = 2;
  /* float64 mean over 67 columns. */
  c[1] = bag_make(CLG_BAG_MEAN, CLG_BAGS_SEGMENT_IDS, CLG_DTYPE_DOUBLE, 16, 67,
                  25, 5);
  check_reuse(c, 2, 0x5E6u, "segment_ids");
}

/* --------------------------------------------------------------- bake */

/* What the header says clg_plan_bake() builds for the case: the
 * reduction's program where the output has elements; the checks' where an
 * enqueue may check on the device (cl_mem indices and bags, something to
 * check); with CLG_PLAN_ASYNC_CHECK and a cl_mem output the reduction is
 * the gated one, and segment ids' starts come from a gated program of
 * their own (the ungated one is the checks' program). */
static unsigned bake_programs(const bag_case *c) {
  bool reduce = c->B > 0 && c->dim > 0;
  bool bags = c->p.form != CLG_BAGS_FIXED;
  bool device = c->st[BAG_I].kind == CLG_STORAGE_BUFFER &&
                (!bags || c->st[BAG_B].kind == CLG_STORAGE_BUFFER) &&
                (c->n > 0 || (bags && c->B > 0));
  /* Gated with a cl_mem output (a synchronous enqueue without a wait list
   * too); a synchronous plan's enqueue after a wait list checks first: the
   * ungated reduction as well. */
  bool gated = device && c->st[BAG_O].kind == CLG_STORAGE_BUFFER;
  return (reduce ? 1u : 0u) + (device ? 1u : 0u) +
         (gated && reduce && c->p.form == CLG_BAGS_SEGMENT_IDS ? 1u : 0u) +
         (gated && reduce && !c->async ? 1u : 0u);
}

/* On a context of its own each: create builds nothing; bake builds what
 * the header says; a second bake, a second plan for the same call and its
 * bake, and enqueues at other offsets build nothing more, and give the
 * reference's bytes. */
Test(bag_plans, bake_builds_what_enqueues_need) {
  struct {
    bag_case c;
    int storage; /* bag_storage_for(): bit k, operand k in cl_mem */
    bool async;
  } cfg[7];
  int n = 0;
  cfg[n].c =
      bag_make(CLG_BAG_SUM, CLG_BAGS_OFFSETS, CLG_DTYPE_FLOAT, 11, 6, 20, 4);
  cfg[n].storage = 0; /* host values: the reduction only */
  cfg[n++].async = false;
  cfg[n].c = cfg[0].c;
  cfg[n].storage = 31; /* + the checks (read back or not by size) */
  cfg[n++].async = false;
  cfg[n].c = bag_make(CLG_BAG_MEAN, CLG_BAGS_SEGMENT_IDS, CLG_DTYPE_FLOAT, 12,
                      5, 24, 6);
  cfg[n].storage = 31; /* checks, gated starts, gated reduction */
  cfg[n++].async = true;
  cfg[n].c = cfg[2].c;
  cfg[n].storage = 31; /* checks (with the starts), reduction */
  cfg[n++].async = false;
  cfg[n].c = bag_make(CLG_BAG_MAX, CLG_BAGS_FIXED, CLG_DTYPE_FLOAT, 9, 7, 3, 5);
  cfg[n].storage = 2; /* cl_mem indices, host output: not gated */
  cfg[n++].async = true;
  cfg[n].c =
      bag_make(CLG_BAG_SUM, CLG_BAGS_OFFSETS, CLG_DTYPE_FLOAT, 8, 0, 10, 3);
  cfg[n].storage = 31; /* no column: the checks only */
  cfg[n++].async = true;
  cfg[n].c = bag_make(CLG_BAG_SUM, CLG_BAGS_FIXED, CLG_DTYPE_FLOAT, 8, 0, 2, 3);
  cfg[n].storage = 0; /* nothing at all */
  cfg[n++].async = false;
  bag_runner rn = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    bag_case c = cfg[i].c;
    bag_storage_for(&c, cfg[i].storage);
    c.async = cfg[i].async;
    char desc[1024];
    bag_case_str(&c, desc, sizeof desc);
    clg_context *ctx = fresh_ctx();
    clg_plan *plan = case_plan(ctx, &c, desc);
    cr_assert_not_null(plan, "%s: the device refuses a float32 case", desc);
    cr_expect_eq(ctx->builds, 0u, "%s: create built %u programs", desc,
                 ctx->builds);
    cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s: bake: %s", desc,
                 clg_last_error());
    unsigned want = bake_programs(&c);
    cr_expect_eq(ctx->builds, want, "%s: bake built %u programs, want %u", desc,
                 ctx->builds, want);
    cr_expect_str_empty(clg_last_error(), "%s: message after bake", desc);
    unsigned b = ctx->builds;
    cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
    clg_plan *again = case_plan(ctx, &c, desc);
    cr_assert_eq(clg_plan_bake(again), CLG_SUCCESS, "%s", clg_last_error());
    cr_expect_eq(ctx->builds, b, "%s: a second bake built %u programs", desc,
                 ctx->builds - b);
    clg_plan_destroy(again);
    for (int e = 0; e < N_ENQUEUES; ++e) {
      bag_case ec = enqueue_case(&c, e + 1);
      bag_run_plan(&rn, &ec, ctx, plan, 7000u + (uint64_t)(10 * i + e));
      cr_expect_eq(ctx->builds, b, "%s: enqueue %d built %u programs", desc, e,
                   ctx->builds - b);
    }
    clg_plan_destroy(plan);
    clg_context_destroy(ctx);
  }
  cr_expect_eq(rn.failures, 0);
  cr_expect_eq(clg_plan_bake(NULL), CLG_ERROR_NULL_ARGUMENT);
  clg_plan_destroy(NULL);
}

/* -------------------------------------------------- values, every time */

/* Enqueue the small call on plan, on its context's queue, with ev and oc
 * as they are (oc NULL for a synchronous plan). */
static clg_status small_enqueue(clg_plan *plan, small *s, cl_event *ev,
                                clg_outcome **oc) {
  clg_status st =
      clg_plan_enqueue_embedding_bag(plan, &s->w.desc, &s->x.desc, &s->b.desc,
                                     NULL, &s->o.desc, NULL, 0, NULL, ev, oc);
  return st;
}

/* Asynchronous, every operand a cl_mem: a bad index and a decreasing
 * offset come out of clg_outcome_wait(), the enqueue itself succeeding,
 * the output's bytes untouched (the reduction gated on the verdict); the
 * good enqueues around them are right. */
Test(bag_plans, async_faults_from_the_outcome) {
  clg_context *ctx = fresh_ctx();
  for (int round = 0; round < 2; ++round) { /* baked, then not */
    small s;
    small_make(&s, true, true, true);
    clg_plan *plan = small_plan(ctx, &s, true);
    if (round == 0)
      cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
    for (int step = 0; step < 4; ++step) {
      /* 0 good, 1 a bad index, 2 a bad offset, 3 good */
      small t;
      small_make(&t, true, true, true);
      if (step == 1) {
        t.idx[7] = SM_E + 2;
      }
      if (step == 2)
        t.off[2] = 1;
      if (step > 0) { /* new values into the tensors */
        tu_tensor_free(&t.x);
        tu_tensor_free(&t.b);
        tu_tensor_init(&t.x, CLG_DTYPE_INT64, 1, sm_xs, B(8 * (size_t)step),
                       t.idx);
        tu_tensor_init(&t.b, CLG_DTYPE_INT64, 1, sm_bs, B(8), t.off);
      }
      clg_outcome *oc = POISON_OUTCOME;
      cl_event ev = POISON_EVENT;
      clg_status st = small_enqueue(plan, &t, &ev, &oc);
      cr_assert_eq(st, CLG_SUCCESS, "round %d step %d: enqueue: %s", round,
                   step, clg_last_error());
      cr_assert(oc != POISON_OUTCOME && oc != NULL, "no outcome");
      cr_assert(ev != POISON_EVENT && ev != NULL, "no event");
      clg_status ost = clg_outcome_wait(oc);
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
      clg_outcome_release(oc);
      clg_status want = step == 1   ? CLG_ERROR_INDEX_OUT_OF_BOUNDS
                        : step == 2 ? CLG_ERROR_INVALID_BAGS
                                    : CLG_SUCCESS;
      cr_expect_eq(ost, want,
                   "round %d step %d: the outcome gave %s (%s), "
                   "want %s",
                   round, step, clg_status_string(ost), clg_last_error(),
                   clg_status_string(want));
      if (step == 1) {
        expect_message("indices[7]", "bad index");
        cr_expect(tu_contains_int(clg_last_error(), SM_E + 2),
                  "the value is not in \"%s\"", clg_last_error());
      } else if (step == 2) {
        expect_message("offsets[2]", "bad offset");
      }
      if (step == 1 || step == 2) {
        cr_expect(tu_tensor_all_sentinel(&t.o),
                  "round %d step %d: the output was written", round, step);
      } else {
        float want_out[SM_B * SM_D];
        small_want(&t, want_out);
        expect_output(&t, want_out, "good enqueue");
      }
      small_free(&t);
    }
    clg_plan_destroy(plan);
    small_free(&s);
  }
  clg_context_destroy(ctx);
}

/* The other ways values are checked, each at every enqueue: a synchronous
 * plan with cl_mem values (read back, or on the device from 32 KiB), an
 * asynchronous plan with host values and one with a host output: the
 * enqueue returns the error itself, with no event and no outcome, and the
 * output's bytes are untouched; then a good enqueue is right. */
Test(bag_plans, faults_from_the_enqueue) {
  clg_context *ctx = fresh_ctx();
  struct {
    bool w_buf, xb_buf, o_buf, async;
    const char *what;
  } cfg[] = {
      {true, true, true, false, "sync, cl_mem"},
      {false, false, false, false, "sync, host"},
      {true, false, true, true, "async, host values"},
      {true, true, false, true, "async, host output"},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; ++i) {
    small s;
    small_make(&s, cfg[i].w_buf, cfg[i].xb_buf, cfg[i].o_buf);
    clg_plan *plan = small_plan(ctx, &s, cfg[i].async);
    for (int step = 0; step < 3; ++step) {
      small t;
      small_make(&t, cfg[i].w_buf, cfg[i].xb_buf, cfg[i].o_buf);
      if (step == 0)
        t.idx[3] = -1;
      if (step == 1)
        t.off[3] = SM_N + 1;
      if (step < 2) {
        tu_tensor_free(&t.x);
        tu_tensor_free(&t.b);
        tu_storage st = cfg[i].xb_buf ? B(24) : H();
        tu_tensor_init(&t.x, CLG_DTYPE_INT64, 1, sm_xs, st, t.idx);
        tu_tensor_init(&t.b, CLG_DTYPE_INT64, 1, sm_bs, st, t.off);
      }
      clg_outcome *oc = POISON_OUTCOME;
      cl_event ev = POISON_EVENT;
      clg_status got = small_enqueue(plan, &t, &ev, cfg[i].async ? &oc : NULL);
      clg_status want = step == 0   ? CLG_ERROR_INDEX_OUT_OF_BOUNDS
                        : step == 1 ? CLG_ERROR_INVALID_BAGS
                                    : CLG_SUCCESS;
      cr_expect_eq(got, want, "%s step %d: %s (%s), want %s", cfg[i].what, step,
                   clg_status_string(got), clg_last_error(),
                   clg_status_string(want));
      if (step == 0)
        expect_message("indices[3] is -1", cfg[i].what);
      if (step == 1)
        expect_message("offsets[3] is 11", cfg[i].what);
      if (step < 2) {
        cr_expect(ev == POISON_EVENT && oc == POISON_OUTCOME,
                  "%s step %d: an event or outcome came out of a failure",
                  cfg[i].what, step);
        tu_cl_check(clFinish(clg_context_queue(ctx)), "clFinish");
        cr_expect(tu_tensor_all_sentinel(&t.o),
                  "%s step %d: the output was written", cfg[i].what, step);
      } else {
        if (cfg[i].async) {
          cr_expect_eq(clg_outcome_wait(oc), CLG_SUCCESS, "%s",
                       clg_last_error());
          clg_outcome_release(oc);
        }
        tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
        clReleaseEvent(ev);
        float want_out[SM_B * SM_D];
        small_want(&t, want_out);
        expect_output(&t, want_out, cfg[i].what);
      }
      small_free(&t);
    }
    clg_plan_destroy(plan);
    small_free(&s);
  }
  clg_context_destroy(ctx);
}

/* From 32 KiB of cl_mem indices the synchronous plan checks them on the
 * device (Gather's rule; test builds may force either way): a bad index at
 * the end is the enqueue's error all the same, and good values are
 * right. */
Test(bag_plans, large_indices_every_enqueue) {
  enum { N = 5000, E = 50, D = 3, NB = 40 };
  clg_context *ctx = fresh_ctx();
  static int64_t idx[N], off[NB];
  static float wv[E * D], want[NB * D];
  static const int64_t ws[2] = {E, D}, xs[1] = {N}, bs[1] = {NB},
                       os[2] = {NB, D};
  for (int k = 0; k < E * D; ++k)
    wv[k] = (float)(k % 17) - 8.0f;
  tu_rng rng = tu_rng_make(99);
  for (int k = 0; k < N; ++k)
    idx[k] = tu_rng_range(&rng, 0, E - 1);
  for (int k = 0; k < NB; ++k)
    off[k] = (int64_t)k * (N / NB);
  clg_tensor tw = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ws, NULL, 0),
             tx = clg_tensor_buffer(CLG_DTYPE_INT64, 1, xs, NULL, 0),
             tb = clg_tensor_buffer(CLG_DTYPE_INT64, 1, bs, NULL, 0),
             to = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, NULL, 0);
  clg_bag_params p = {0};
  clg_plan *plan = NULL;
  cr_assert_eq(clg_plan_create_embedding_bag(ctx, &p, &tw, &tx, &tb, NULL, &to,
                                             0, &plan),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
  unsigned built = ctx->builds;
  for (int step = 0; step < 3; ++step) {
    idx[N - 1] = step == 1 ? E : 1;
    ref_bag_args a;
    memset(&a, 0, sizeof a);
    a.mode = CLG_BAG_SUM;
    a.dtype = CLG_DTYPE_FLOAT;
    a.weight = wv;
    a.num_embeddings = E;
    a.dim = D;
    a.indices = idx;
    a.index_type = tu_ref_index_type(CLG_DTYPE_INT64);
    a.indices_rank = 1;
    a.indices_shape[0] = N;
    a.bags = off;
    a.bags_type = a.index_type;
    a.bags_len = NB;
    a.num_bags = NB;
    if (step != 1)
      cr_assert_eq(ref_embedding_bag(&a, want), 0, "test bug");
    tu_tensor w, x, b, o;
    tu_tensor_init(&w, CLG_DTYPE_FLOAT, 2, ws, B(4u * (size_t)step), wv);
    tu_tensor_init(&x, CLG_DTYPE_INT64, 1, xs, B(8u * (size_t)step), idx);
    tu_tensor_init(&b, CLG_DTYPE_INT64, 1, bs, B(0), off);
    tu_tensor_init(&o, CLG_DTYPE_FLOAT, 2, os, B(64), NULL);
    cl_event ev = POISON_EVENT;
    clg_status st =
        clg_plan_enqueue_embedding_bag(plan, &w.desc, &x.desc, &b.desc, NULL,
                                       &o.desc, NULL, 0, NULL, &ev, NULL);
    if (step == 1) {
      cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s (%s)",
                   clg_status_string(st), clg_last_error());
      expect_message("indices[4999] is 50", "large");
      cr_expect(ev == POISON_EVENT, "an event came out of a failure");
      tu_cl_check(clFinish(clg_context_queue(ctx)), "clFinish");
      cr_expect(tu_tensor_all_sentinel(&o), "the output was written");
    } else {
      cr_assert_eq(st, CLG_SUCCESS, "step %d: %s", step, clg_last_error());
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
      float got[NB * D];
      tu_tensor_read(&o, got);
      cr_expect(tu_first_diff(got, want, sizeof got) < 0,
                "step %d: output differs from the reference", step);
    }
    cr_expect_eq(ctx->builds, built, "step %d built programs", step);
    tu_tensor_free(&w);
    tu_tensor_free(&x);
    tu_tensor_free(&b);
    tu_tensor_free(&o);
  }
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}
