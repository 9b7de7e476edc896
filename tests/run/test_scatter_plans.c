/*
 * Plans for the scatters (host/run/plans.c: clg_plan_create_scatter,
 * clg_plan_enqueue_scatter; baking in host/run/call.c): results and bake
 * (test_scatter_plans, with test_scatter_plans_errors.c: every check the
 * two calls add).
 *
 *  - results: random ScatterElements / ScatterND cases, every reduction,
 *    both duplicates rules, int32 and int64 indices, host or cl_mem
 *    indices, in place or not, synchronous and asynchronous plans, each plan
 *    made from templates without memory and enqueued twice on new inputs:
 *    byte for byte the plain-C sequential reference, or (repeats under
 *    reduction none) the host path's error with the output unchanged;
 *  - bake: a fresh context builds nothing at create, every program at bake,
 *    and nothing more at the enqueues (cl_mem operands at the templates'
 *    offsets), for the host's plan and the device's index pass.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_scatter.h"
#include "support/testutil.h"

#include "internal.h" /* clg_context's builds counter */

/* A clg_context of the test's own on the shared cl_context and device, so
 * its program counter is exact. */
static clg_context *fresh_ctx(void) {
  clg_context *c = NULL;
  clg_status st = clg_context_create(tu_cl_context(), tu_device(), &c);
  cr_assert(st == CLG_SUCCESS && c != NULL, "clg_context_create: %s",
            clg_last_error());
  return c;
}

typedef struct sp_case {
  clg_op op;
  int64_t axis;
  clg_scatter_params sp;
  clg_dtype idt;
  int32_t r, q;
  int64_t ds[4], is[4];
  bool in_place, idx_host, async;
} sp_case;

static int32_t sp_updates_shape(const sp_case *c, int64_t *us) {
  if (c->op != CLG_OP_SCATTER_ND) {
    memcpy(us, c->is, sizeof c->is);
    return c->q;
  }
  int32_t n = 0, k = (int32_t)c->is[c->q - 1];
  for (int32_t i = 0; i < c->q - 1; ++i)
    us[n++] = c->is[i];
  for (int32_t i = k; i < c->r; ++i)
    us[n++] = c->ds[i];
  return n;
}

static sp_case sp_random(tu_rng *rng, bool big) {
  sp_case c;
  memset(&c, 0, sizeof c);
  c.op = tu_rng_range(rng, 0, 1) ? CLG_OP_SCATTER_ND : CLG_OP_SCATTER_ELEMENTS;
  c.sp.reduction = (clg_reduction)tu_rng_range(rng, 0, 4);
  c.sp.duplicates = tu_rng_range(rng, 0, 1) ? CLG_DUPLICATES_LAST
                                            : CLG_DUPLICATES_ERROR;
  c.idt = tu_rng_range(rng, 0, 1) ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
  c.r = (int32_t)tu_rng_range(rng, 1, 3);
  for (int32_t d = 0; d < c.r; ++d)
    c.ds[d] = tu_rng_range(rng, 1, big ? 40 : 6);
  if (c.op == CLG_OP_SCATTER_ND) {
    c.q = 2;
    c.is[0] = tu_rng_range(rng, 1, big ? 6000 : 12);
    c.is[1] = tu_rng_range(rng, 1, c.r);
  } else {
    c.q = c.r;
    int32_t a = (int32_t)tu_rng_range(rng, 0, c.r - 1);
    c.axis = tu_rng_range(rng, 0, 1) ? a - c.r : a;
    for (int32_t d = 0; d < c.r; ++d)
      c.is[d] = d == a ? tu_rng_range(rng, 1, big ? 9000 : 8)
                       : tu_rng_range(rng, 1, c.ds[d]);
  }
  c.in_place = tu_rng_range(rng, 0, 1) != 0;
  c.idx_host = tu_rng_range(rng, 0, 2) == 0;
  c.async = tu_rng_range(rng, 0, 1) != 0;
  return c;
}

static int64_t sp_bound(const sp_case *c, int64_t pos) {
  if (c->op == CLG_OP_SCATTER_ND)
    return c->ds[pos % c->is[c->q - 1]];
  return c->ds[c->axis < 0 ? c->axis + c->r : c->axis];
}

/* Inputs: fractions (so a reduction's order shows in its rounding), valid
 * indices, negative half the time, with repeats. */
static void sp_inputs(const sp_case *c, tu_rng *rng, float *data, void *idx,
                      float *upd) {
  int64_t us[8];
  int32_t ur = sp_updates_shape(c, us);
  int64_t dn = tu_numel(c->r, c->ds), xn = tu_numel(c->q, c->is),
          un = tu_numel(ur, us);
  for (int64_t i = 0; i < dn; ++i)
    data[i] = (float)tu_rng_range(rng, -1000, 1000) / 7.0f;
  for (int64_t i = 0; i < un; ++i)
    upd[i] = (float)tu_rng_range(rng, -1000, 1000) / 3.0f;
  for (int64_t i = 0; i < xn; ++i) {
    int64_t s = sp_bound(c, i), v = tu_rng_range(rng, 0, s - 1);
    tu_set_index(idx, c->idt, i, tu_rng_range(rng, 0, 1) ? v : v - s);
  }
}

static int sp_reference(const sp_case *c, float *want, const void *idx,
                        const float *upd) {
  int64_t bad = -1, first = -1;
  bool last = c->sp.duplicates == CLG_DUPLICATES_LAST;
  return c->op == CLG_OP_SCATTER_ND
             ? ref_scatter_nd(want, CLG_DTYPE_FLOAT, c->r, c->ds, idx,
                              tu_ref_index_type(c->idt), c->q, c->is, upd,
                              (ref_reduction)c->sp.reduction, last, &bad,
                              &first)
             : ref_scatter_elements(want, CLG_DTYPE_FLOAT, c->r, c->ds, idx,
                                    tu_ref_index_type(c->idt), c->is, upd,
                                    c->axis, (ref_reduction)c->sp.reduction,
                                    last, &bad, &first);
}

/* A template of t: no memory. */
static clg_tensor sp_template(const tu_tensor *t) {
  clg_tensor d = t->desc;
  d.host = NULL;
  d.buffer = NULL;
  return d;
}

/* One enqueue of `plan` on the case's inputs; the status (the outcome's for
 * an asynchronous plan) and the output's bytes after it. */
static clg_status sp_enqueue(clg_plan *plan, const sp_case *c,
                             const float *data, const void *idx,
                             const float *upd, float *got, char *msg,
                             size_t cap) {
  int64_t us[8];
  int32_t ur = sp_updates_shape(c, us);
  tu_storage buf = {CLG_STORAGE_BUFFER, 16, false, false};
  tu_storage host = {CLG_STORAGE_HOST, 0, false, false};
  tu_tensor td, tx, tu, to;
  tu_tensor_init(&td, CLG_DTYPE_FLOAT, c->r, c->ds, buf, data);
  tu_tensor_init(&tx, c->idt, c->q, c->is, c->idx_host ? host : buf, idx);
  tu_tensor_init(&tu, CLG_DTYPE_FLOAT, ur, us, buf, upd);
  if (!c->in_place)
    tu_tensor_init(&to, CLG_DTYPE_FLOAT, c->r, c->ds, buf, data);
  const tu_tensor *out = c->in_place ? &td : &to;
  cl_event ev = NULL;
  clg_outcome *o = NULL;
  clg_status st = clg_plan_enqueue_scatter(plan, &td.desc, &tx.desc, &tu.desc,
                                           &out->desc, NULL, 0, NULL, &ev,
                                           c->async ? &o : NULL);
  if (st == CLG_SUCCESS && c->async) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    st = clg_outcome_wait(o);
    clg_outcome_release(o);
  } else if (ev)
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  snprintf(msg, cap, "%s", st == CLG_SUCCESS ? "" : clg_last_error());
  if (ev)
    clReleaseEvent(ev);
  tu_tensor_read(out, got);
  cr_expect(tu_tensor_guards_ok(out), "bytes outside the output written");
  tu_tensor_free(&td);
  tu_tensor_free(&tx);
  tu_tensor_free(&tu);
  if (!c->in_place)
    tu_tensor_free(&to);
  return st;
}

/* The case's plan, from templates without memory. */
static clg_plan *sp_plan(clg_context *ctx, const sp_case *c) {
  int64_t us[8];
  int32_t ur = sp_updates_shape(c, us);
  tu_storage buf = {CLG_STORAGE_BUFFER, 16, false, false};
  tu_storage host = {CLG_STORAGE_HOST, 0, false, false};
  tu_tensor td, tx, tu;
  tu_tensor_init(&td, CLG_DTYPE_FLOAT, c->r, c->ds, buf, NULL);
  tu_tensor_init(&tx, c->idt, c->q, c->is, c->idx_host ? host : buf, NULL);
  tu_tensor_init(&tu, CLG_DTYPE_FLOAT, ur, us, buf, NULL);
  clg_tensor d = sp_template(&td), x = sp_template(&tx), u = sp_template(&tu);
  clg_params p = {c->op, c->axis, 0, CLG_MODE_RAISE};
  clg_plan *plan = NULL;
  clg_status st = clg_plan_create_scatter(
      ctx, &p, &c->sp, &d, &x, &u, &d,
      c->async ? (unsigned)CLG_PLAN_ASYNC_CHECK : 0u, &plan);
  cr_assert_eq(st, CLG_SUCCESS, "clg_plan_create_scatter: %s",
               clg_last_error());
  tu_tensor_free(&td);
  tu_tensor_free(&tx);
  tu_tensor_free(&tu);
  return plan;
}

static void sp_results(bool big, unsigned count, uint64_t seed) {
  tu_rng rng = tu_rng_make(seed);
  clg_context *ctx = tu_ctx();
  for (unsigned k = 0; k < count; ++k) {
    sp_case c = sp_random(&rng, big);
    int64_t us[8];
    int32_t ur = sp_updates_shape(&c, us);
    size_t dn = (size_t)tu_numel(c.r, c.ds), xn = (size_t)tu_numel(c.q, c.is),
           un = (size_t)tu_numel(ur, us);
    float *data = malloc(dn * 4 + 1), *upd = malloc(un * 4 + 1),
          *want = malloc(dn * 4 + 1), *got = malloc(dn * 4 + 1);
    void *idx = malloc(xn * 8 + 1);
    cr_assert(data && upd && want && got && idx);
    clg_plan *plan = sp_plan(ctx, &c);
    if (k % 2)
      cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "bake: %s",
                   clg_last_error());
    for (int rep = 0; rep < 2; ++rep) {
      sp_inputs(&c, &rng, data, idx, upd);
      memcpy(want, data, dn * 4);
      int rc = sp_reference(&c, want, idx, upd);
      char msg[1024];
      clg_status st = sp_enqueue(plan, &c, data, idx, upd, got, msg, sizeof msg);
#define SP_ARGS                                                                \
  k, rep, (int)c.op, (int)c.sp.reduction, (int)c.sp.duplicates,                \
      (int)c.idx_host, (int)c.async, (int)c.in_place
      if (rc == REF_OK) {
        cr_expect_eq(st, CLG_SUCCESS,
                     "case %u rep %d (op %d red %d dup %d idx_host %d async "
                     "%d in_place %d): %s",
                     SP_ARGS, msg);
        cr_expect_eq(tu_first_diff(got, want, dn * 4), -1,
                     "case %u rep %d (op %d red %d dup %d idx_host %d async "
                     "%d in_place %d): output differs from the reference",
                     SP_ARGS);
      } else {
        cr_expect_eq(rc, REF_DUPLICATE, "test bug: reference rc %d", rc);
        cr_expect_eq(st, CLG_ERROR_DUPLICATE_INDEX,
                     "case %u rep %d (op %d red %d dup %d idx_host %d async "
                     "%d in_place %d): status %s",
                     SP_ARGS, clg_status_string(st));
        cr_expect(strstr(msg, "repeat") || strstr(msg, "duplicate") ||
                      strstr(msg, "same"),
                  "case %u: message '%s'", k, msg);
        cr_expect_eq(tu_first_diff(got, data, dn * 4), -1,
                     "case %u rep %d: output changed by a failed enqueue", k,
                     rep);
      }
#undef SP_ARGS
    }
    clg_plan_destroy(plan);
    free(data);
    free(upd);
    free(want);
    free(got);
    free(idx);
  }
}

Test(scatter_plans, small_cases_match_the_reference) {
  sp_results(false, 80, 21);
}
Test(scatter_plans, large_cases_match_the_reference) {
  sp_results(true, 10, 22);
}

/* A fresh context: create builds nothing, bake every program, the enqueues
 * nothing more (cl_mem operands at the templates' offsets). */
Test(scatter_plans, bake_builds_what_enqueues_use) {
  static const struct {
    clg_op op;
    clg_reduction red;
    clg_duplicates dup;
    bool idx_host, in_place, async, big;
  } v[] = {
      {CLG_OP_SCATTER_ELEMENTS, CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR,
       true, false, false, false},
      {CLG_OP_SCATTER_ND, CLG_REDUCTION_ADD, CLG_DUPLICATES_ERROR, true, true,
       false, false},
      {CLG_OP_SCATTER_ND, CLG_REDUCTION_NONE, CLG_DUPLICATES_LAST, false,
       false, true, false},
      {CLG_OP_SCATTER_ELEMENTS, CLG_REDUCTION_MAX, CLG_DUPLICATES_ERROR,
       false, true, true, false},
      {CLG_OP_SCATTER_ND, CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR, false,
       false, false, true}, /* >= 32 KiB of indices: the device's pass */
      {CLG_OP_SCATTER_ND, CLG_REDUCTION_MUL, CLG_DUPLICATES_ERROR, false, true,
       false, true},
  };
  tu_rng rng = tu_rng_make(23);
  for (size_t i = 0; i < sizeof v / sizeof v[0]; ++i) {
    sp_case c;
    memset(&c, 0, sizeof c);
    c.op = v[i].op;
    c.sp = (clg_scatter_params){v[i].red, v[i].dup};
    c.idt = CLG_DTYPE_INT64;
    c.r = 2;
    c.ds[0] = 50;
    c.ds[1] = 8;
    if (c.op == CLG_OP_SCATTER_ND) {
      c.q = 2;
      c.is[0] = v[i].big ? 5000 : 20;
      c.is[1] = 1;
    } else {
      c.q = 2;
      c.is[0] = 30;
      c.is[1] = 8;
    }
    c.idx_host = v[i].idx_host;
    c.in_place = v[i].in_place;
    c.async = v[i].async;
    /* Unique targets where repeats would be an error. */
    bool unique = c.sp.reduction == CLG_REDUCTION_NONE &&
                  c.sp.duplicates == CLG_DUPLICATES_ERROR;
    if (unique && c.op == CLG_OP_SCATTER_ND)
      c.ds[0] = c.is[0];
    clg_context *ctx = fresh_ctx();
    clg_plan *plan = sp_plan(ctx, &c);
    cr_expect_eq(ctx->builds, 0u, "variant %zu: create built %u programs", i,
                 ctx->builds);
    cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "variant %zu: bake: %s", i,
                 clg_last_error());
    unsigned baked = ctx->builds;
    cr_expect_gt(baked, 0u, "variant %zu: bake built nothing", i);
    int64_t us[8];
    int32_t ur = sp_updates_shape(&c, us);
    size_t dn = (size_t)tu_numel(c.r, c.ds), xn = (size_t)tu_numel(c.q, c.is),
           un = (size_t)tu_numel(ur, us);
    float *data = malloc(dn * 4), *upd = malloc(un * 4),
          *want = malloc(dn * 4), *got = malloc(dn * 4);
    void *idx = malloc(xn * 8);
    cr_assert(data && upd && want && got && idx);
    for (int rep = 0; rep < 2; ++rep) {
      sp_inputs(&c, &rng, data, idx, upd);
      if (unique) /* a permutation of the rows / a row's columns */
        for (int64_t e = 0; e < (int64_t)xn; ++e)
          tu_set_index(idx, c.idt, e,
                       c.op == CLG_OP_SCATTER_ND ? (e * 7) % c.ds[0]
                                                 : (e * 3) % c.ds[0]);
      if (unique && c.op == CLG_OP_SCATTER_ELEMENTS) /* axis 0: column-wise */
        for (int64_t e = 0; e < (int64_t)xn; ++e)
          tu_set_index(idx, c.idt, e, e / c.is[1]);
      memcpy(want, data, dn * 4);
      cr_assert_eq(sp_reference(&c, want, idx, upd), REF_OK, "test bug");
      char msg[1024];
      clg_status st = sp_enqueue(plan, &c, data, idx, upd, got, msg, sizeof msg);
      cr_expect_eq(st, CLG_SUCCESS, "variant %zu: %s", i, msg);
      cr_expect_eq(tu_first_diff(got, want, dn * 4), -1,
                   "variant %zu rep %d: output differs", i, rep);
      cr_expect_eq(ctx->builds, baked,
                   "variant %zu rep %d: the enqueue built %u programs after "
                   "the bake's %u",
                   i, rep, ctx->builds - baked, baked);
    }
    clg_plan_destroy(plan);
    clg_context_destroy(ctx);
    free(data);
    free(upd);
    free(want);
    free(got);
    free(idx);
  }
}
