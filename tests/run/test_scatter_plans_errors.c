/*
 * Plans for the scatters (host/run/plans.c: clg_plan_create_scatter,
 * clg_plan_enqueue_scatter): their errors (test_scatter_plans, with
 * test_scatter_plans.c: results and bake).
 *
 *  - errors: every check clg_plan_create_scatter() and
 *    clg_plan_enqueue_scatter() add, *out / *event left alone, the output
 *    unchanged.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <string.h>

#include "support/testutil.h"

static int g_poison;
#define POISON_PLAN ((clg_plan *)(void *)&g_poison)
#define POISON_EVENT ((cl_event)(void *)&g_poison)

/* ------------------------------------------------------------- errors */

/* ScatterND add on float [6, 4], indices int64 [3, 1], updates [3, 4]. */
typedef struct sp_base {
  tu_tensor d, x, u, o;
  clg_params p;
  clg_scatter_params sc;
} sp_base;

static void sp_base_init(sp_base *b, bool idx_buf) {
  static const int64_t ds[2] = {6, 4}, xs[2] = {3, 1}, us[2] = {3, 4};
  static const int64_t idx[3] = {5, -6, 2};
  float data[24], upd[12];
  for (int i = 0; i < 24; ++i)
    data[i] = (float)i / 4.0f;
  for (int i = 0; i < 12; ++i)
    upd[i] = 100.0f + (float)i;
  tu_storage buf = {CLG_STORAGE_BUFFER, 16, false, false};
  tu_storage host = {CLG_STORAGE_HOST, 0, false, false};
  tu_tensor_init(&b->d, CLG_DTYPE_FLOAT, 2, ds, buf, data);
  tu_tensor_init(&b->x, CLG_DTYPE_INT64, 2, xs, idx_buf ? buf : host, idx);
  tu_tensor_init(&b->u, CLG_DTYPE_FLOAT, 2, us, buf, upd);
  tu_tensor_init(&b->o, CLG_DTYPE_FLOAT, 2, ds, buf, NULL); /* sentinel */
  b->p = (clg_params){CLG_OP_SCATTER_ND, 0, 0, CLG_MODE_RAISE};
  b->sc = (clg_scatter_params){CLG_REDUCTION_ADD, CLG_DUPLICATES_ERROR};
}

static void sp_base_free(sp_base *b) {
  tu_tensor_free(&b->d);
  tu_tensor_free(&b->x);
  tu_tensor_free(&b->u);
  tu_tensor_free(&b->o);
}

/* The output still all sentinel. */
static void sp_untouched(const sp_base *b, const char *what) {
  unsigned char got[24 * 4], want[24 * 4];
  memset(want, TU_SENTINEL, sizeof want);
  tu_tensor_read(&b->o, got);
  cr_expect_eq(tu_first_diff(got, want, sizeof got), -1,
               "%s: the output was written", what);
}

static void sp_expect_create(clg_status want, const char *needle,
                             clg_status got, clg_plan *plan,
                             const char *what) {
  cr_expect_eq(got, want, "%s: status %s, expected %s (%s)", what,
               clg_status_string(got), clg_status_string(want),
               clg_last_error());
  cr_expect_null(plan, "%s: *out not NULL after a failure", what);
  cr_expect(strstr(clg_last_error(), needle) != NULL,
            "%s: message '%s' lacks '%s'", what, clg_last_error(), needle);
}

Test(scatter_plans, create_errors) {
  clg_context *ctx = tu_ctx();
  sp_base b;
  sp_base_init(&b, false);
  clg_tensor d = b.d.desc, x = b.x.desc, u = b.u.desc, o = b.o.desc;
  clg_plan *plan = POISON_PLAN;
  clg_params gather = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  clg_status st;

  st = clg_plan_create(ctx, &b.p, &d, &x, &o, 0, &plan);
  sp_expect_create(CLG_ERROR_INVALID_ARGUMENT, "scatter", st, plan,
                   "clg_plan_create on ScatterND");
  plan = POISON_PLAN;
  st = clg_plan_create_scatter(ctx, NULL, &b.sc, &d, &x, &u, &o, 0, &plan);
  sp_expect_create(CLG_ERROR_NULL_ARGUMENT, "params", st, plan, "NULL params");
  plan = POISON_PLAN;
  st = clg_plan_create_scatter(ctx, &gather, &b.sc, &d, &x, &u, &o, 0, &plan);
  sp_expect_create(CLG_ERROR_INVALID_ARGUMENT, "not a scatter", st, plan,
                   "a gather");
  plan = POISON_PLAN;
  st = clg_plan_create_scatter(ctx, &b.p, &b.sc, &d, &x, NULL, &o, 0, &plan);
  sp_expect_create(CLG_ERROR_NULL_ARGUMENT, "updates", st, plan,
                   "NULL updates");
  plan = POISON_PLAN;
  st = clg_plan_create_scatter(ctx, &b.p, &b.sc, &d, &x, &u, &o, 0x10, &plan);
  sp_expect_create(CLG_ERROR_INVALID_ARGUMENT, "flags", st, plan, "a flag");
  st = clg_plan_create_scatter(ctx, &b.p, &b.sc, &d, &x, &u, &o, 0, NULL);
  cr_expect_eq(st, CLG_ERROR_NULL_ARGUMENT, "NULL out: %s",
               clg_status_string(st));
  clg_scatter_params bad = {(clg_reduction)9, CLG_DUPLICATES_ERROR};
  plan = POISON_PLAN;
  st = clg_plan_create_scatter(ctx, &b.p, &bad, &d, &x, &u, &o, 0, &plan);
  sp_expect_create(CLG_ERROR_INVALID_ARGUMENT, "reduction", st, plan,
                   "reduction 9");
  bad = (clg_scatter_params){CLG_REDUCTION_NONE, (clg_duplicates)7};
  plan = POISON_PLAN;
  st = clg_plan_create_scatter(ctx, &b.p, &bad, &d, &x, &u, &o, 0, &plan);
  sp_expect_create(CLG_ERROR_INVALID_ARGUMENT, "duplicates", st, plan,
                   "duplicates 7");
  clg_tensor ui = u;
  ui.dtype = CLG_DTYPE_INT32;
  plan = POISON_PLAN;
  st = clg_plan_create_scatter(ctx, &b.p, &b.sc, &d, &x, &ui, &o, 0, &plan);
  sp_expect_create(CLG_ERROR_DTYPE_MISMATCH, "updates", st, plan,
                   "int32 updates");
  clg_tensor us = u;
  us.shape[1] = 3;
  plan = POISON_PLAN;
  st = clg_plan_create_scatter(ctx, &b.p, &b.sc, &d, &x, &us, &o, 0, &plan);
  sp_expect_create(CLG_ERROR_INCOMPATIBLE_SHAPES, "updates", st, plan,
                   "updates [3, 3]");
  clg_tensor dc = d, uc = u, oc = o;
  dc.dtype = uc.dtype = oc.dtype = CLG_DTYPE_COMPLEX64;
  clg_scatter_params mn = {CLG_REDUCTION_MIN, CLG_DUPLICATES_ERROR};
  plan = POISON_PLAN;
  st = clg_plan_create_scatter(ctx, &b.p, &mn, &dc, &x, &uc, &oc, 0, &plan);
  sp_expect_create(CLG_ERROR_UNSUPPORTED_DTYPE, "complex", st, plan,
                   "min on complex64");
  clg_tensor os = o;
  os.shape[0] = 5;
  plan = POISON_PLAN;
  st = clg_plan_create_scatter(ctx, &b.p, &b.sc, &d, &x, &u, &os, 0, &plan);
  cr_expect_eq(st, CLG_ERROR_SHAPE_MISMATCH, "output [5, 4]: %s",
               clg_status_string(st));
  cr_expect_null(plan, "output [5, 4]: *out not NULL");
  sp_base_free(&b);
}

static void sp_expect_enqueue(clg_status want, const char *needle,
                              clg_status got, cl_event ev, const sp_base *b,
                              const char *what) {
  cr_expect_eq(got, want, "%s: status %s, expected %s (%s)", what,
               clg_status_string(got), clg_status_string(want),
               clg_last_error());
  cr_expect(ev == POISON_EVENT, "%s: *event written", what);
  cr_expect(strstr(clg_last_error(), needle) != NULL,
            "%s: message '%s' lacks '%s'", what, clg_last_error(), needle);
  sp_untouched(b, what);
}

Test(scatter_plans, enqueue_errors) {
  clg_context *ctx = tu_ctx();
  for (int idx_buf = 0; idx_buf < 2; ++idx_buf)
    for (int async = 0; async < 2; ++async) {
      sp_base b;
      sp_base_init(&b, idx_buf);
      clg_plan *plan = NULL, *gplan = NULL;
      cr_assert_eq(clg_plan_create_scatter(
                       ctx, &b.p, &b.sc, &b.d.desc, &b.x.desc, &b.u.desc,
                       &b.o.desc, async ? (unsigned)CLG_PLAN_ASYNC_CHECK : 0u,
                       &plan),
                   CLG_SUCCESS, "%s", clg_last_error());
      clg_outcome *oc = NULL, **out = async ? &oc : NULL;
      cl_event ev = POISON_EVENT;
      clg_status st = clg_plan_enqueue(plan, &b.d.desc, &b.x.desc, &b.o.desc,
                                       NULL, 0, NULL, &ev, out);
      sp_expect_enqueue(CLG_ERROR_INVALID_ARGUMENT, "clg_plan_enqueue_scatter",
                        st, ev, &b, "clg_plan_enqueue on a scatter's plan");
      clg_params g = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
      clg_tensor gx = b.x.desc, go = b.o.desc;
      gx.shape[1] = 1;
      go.rank = 3;
      go.shape[0] = 3;
      go.shape[1] = 1;
      go.shape[2] = 4;
      cr_assert_eq(clg_plan_create(ctx, &g, &b.d.desc, &gx, &go, 0, &gplan),
                   CLG_SUCCESS, "%s", clg_last_error());
      ev = POISON_EVENT;
      st = clg_plan_enqueue_scatter(gplan, &b.d.desc, &b.x.desc, &b.u.desc,
                                    &b.o.desc, NULL, 0, NULL, &ev, NULL);
      sp_expect_enqueue(CLG_ERROR_INVALID_ARGUMENT, "clg_plan_enqueue()", st,
                        ev, &b, "a gather's plan");
      clg_plan_destroy(gplan);
      ev = POISON_EVENT;
      st = clg_plan_enqueue_scatter(plan, &b.d.desc, &b.x.desc, NULL,
                                    &b.o.desc, NULL, 0, NULL, &ev, out);
      sp_expect_enqueue(CLG_ERROR_NULL_ARGUMENT, "updates", st, ev, &b,
                        "NULL updates");
      clg_tensor u = b.u.desc;
      u.shape[0] = 2;
      ev = POISON_EVENT;
      st = clg_plan_enqueue_scatter(plan, &b.d.desc, &b.x.desc, &u, &b.o.desc,
                                    NULL, 0, NULL, &ev, out);
      sp_expect_enqueue(CLG_ERROR_SHAPE_MISMATCH, "updates", st, ev, &b,
                        "updates [2, 4]");
      u = b.u.desc;
      u.dtype = CLG_DTYPE_INT32;
      ev = POISON_EVENT;
      st = clg_plan_enqueue_scatter(plan, &b.d.desc, &b.x.desc, &u, &b.o.desc,
                                    NULL, 0, NULL, &ev, out);
      sp_expect_enqueue(CLG_ERROR_DTYPE_MISMATCH, "updates", st, ev, &b,
                        "int32 updates");
      u = b.u.desc;
      u.storage = CLG_STORAGE_HOST;
      u.host = u.buffer = NULL;
      float hu[12] = {0};
      u.host = hu;
      ev = POISON_EVENT;
      st = clg_plan_enqueue_scatter(plan, &b.d.desc, &b.x.desc, &u, &b.o.desc,
                                    NULL, 0, NULL, &ev, out);
      sp_expect_enqueue(CLG_ERROR_INVALID_ARGUMENT, "updates", st, ev, &b,
                        "host updates");
      ev = POISON_EVENT;
      st = clg_plan_enqueue_scatter(plan, &b.d.desc, &b.x.desc, &b.u.desc,
                                    &b.o.desc, NULL, 0, NULL, &ev,
                                    async ? NULL : &oc);
      sp_expect_enqueue(async ? CLG_ERROR_NULL_ARGUMENT
                              : CLG_ERROR_INVALID_ARGUMENT,
                        "outcome", st, ev, &b, "the outcome argument");
      /* An out-of-bounds index at the enqueue: position 1, value 6. */
      int64_t badidx[3] = {5, 6, 2};
      tu_tensor bx;
      tu_storage xs = idx_buf
                          ? (tu_storage){CLG_STORAGE_BUFFER, 16, false, false}
                          : (tu_storage){CLG_STORAGE_HOST, 0, false, false};
      tu_tensor_init(&bx, CLG_DTYPE_INT64, 2, b.x.desc.shape, xs, badidx);
      ev = POISON_EVENT;
      oc = NULL;
      st = clg_plan_enqueue_scatter(plan, &b.d.desc, &bx.desc, &b.u.desc,
                                    &b.o.desc, NULL, 0, NULL, &ev, out);
      if (async && st == CLG_SUCCESS) {
        cr_expect(ev != POISON_EVENT, "no event from an accepted enqueue");
        tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
        clReleaseEvent(ev);
        ev = POISON_EVENT;
        st = clg_outcome_wait(oc);
        clg_outcome_release(oc);
      }
      sp_expect_enqueue(CLG_ERROR_INDEX_OUT_OF_BOUNDS, "6", st, ev, &b,
                        async ? "an out-of-bounds index (async)"
                              : "an out-of-bounds index");
      cr_expect(strstr(clg_last_error(), "[-6, 5]") ||
                    strstr(clg_last_error(), "-6"),
                "the range missing: '%s'", clg_last_error());
      tu_tensor_free(&bx);
      clg_plan_destroy(plan);
      sp_base_free(&b);
    }
}
