/*
 * host/run/plans.c: empty tensors, asynchrony, destroy and threads
 * (test_plans, part 4 of 5; the rest: test_plans.c, whose header lists the
 * parts).
 *
 *  - Empty tensors; an asynchronous plan does not wait for its wait list.
 *  - clg_plan_destroy(NULL); commands and outcomes outlive their plan;
 *    plans shared by two threads (racing to build their programs).
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "run/plans_fx.h"

/* ------------------------------------------- empty tensors, asynchrony */

/* Tensors without elements: an empty output still has its indices checked;
 * no indices at all need no kernel. Enqueues after the bake build nothing
 * and return an event. */
Test(plans, empty_tensors) {
  spec s1 = mkspec("gather f32 [5,0], int32 [3], buffers (empty output)",
                   CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2,
                   D(5, 0), CLG_DTYPE_INT32, 1, D(3), B(0), B(4), B(0));
  spec s2 = mkspec("gather f32 [5,2], int64 [0], buffers (no indices)",
                   CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2,
                   D(5, 2), CLG_DTYPE_INT64, 1, D(0), B(0), B(8), B(0));
  const spec *specs[2] = {&s1, &s2};
  for (int k = 0; k < 2; ++k)
    for (int async = 0; async < 2; ++async) {
      const spec *s = specs[k];
      clg_context *ctx = fresh_ctx();
      clg_plan *plan = spec_plan(ctx, s, async ? CLG_PLAN_ASYNC_CHECK : 0);
      cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
      unsigned baked = ctx->builds;
      cr_expect(baked <= 1u, "%s: bake built %u programs for no output bytes",
                s->name, baked);
      if (k == 1)
        cr_expect_eq(baked, 0u, "%s: nothing to run, yet %u programs built",
                     s->name, baked);
      for (int i = 0; i < 3; ++i) {
        job j;
        job_make(&j, s, 2800u + (uint64_t)(10 * k + 2 * i + async), 0);
        plan_ok(plan, async, &j, NULL, "empty");
        job_free(&j);
      }
      if (k == 0) { /* a bad index is still found */
        job j;
        job_make_ex(&j, s, 2890u + (uint64_t)async, 0, 1, false);
        char msg[1024], why[256];
        clg_status st =
            run_plan(plan, async, &j, NULL, msg, sizeof msg, why, sizeof why);
        cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s: %s: %s", s->name,
                     clg_status_string(st), msg);
        cr_expect(tu_contains(msg, "indices[1]"), "%s", msg);
        cr_expect(why[0] == '\0', "%s", why);
        cr_expect(job_untouched(&j));
        job_free(&j);
      }
      cr_expect_eq(ctx->builds, baked, "%s: enqueues built programs", s->name);
      clg_plan_destroy(plan);
      clg_context_destroy(ctx);
    }
}

typedef struct gate_setter {
  cl_event gate;
  atomic_int returned; /* the enqueue has returned */
  atomic_int set;      /* the gate was completed */
} gate_setter;

/* Completes the gate once the enqueue has returned, or after 5 s (an
 * enqueue that waits for its wait list would otherwise never return). */
static void *gate_main(void *arg) {
  gate_setter *g = arg;
  struct timespec ts = {0, 1000 * 1000};
  for (int i = 0; i < 5000 && !atomic_load(&g->returned); ++i)
    nanosleep(&ts, NULL);
  atomic_store(&g->set, 1);
  clSetUserEventStatus(g->gate, CL_COMPLETE);
  return NULL;
}

/* An asynchronous plan on cl_mem returns without waiting for its wait list
 * (a user event another thread completes later), writes nothing before it,
 * and then the right bytes. */
Test(plans, async_enqueue_does_not_wait) {
  spec s = s_gather_buf();
  clg_context *ctx = fresh_ctx();
  clg_plan *plan = spec_plan(ctx, &s, CLG_PLAN_ASYNC_CHECK);
  cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
  job j;
  job_make(&j, &s, 2900, 0);
  cl_int err = CL_SUCCESS;
  gate_setter g;
  g.gate = clCreateUserEvent(tu_cl_context(), &err);
  tu_cl_check(err, "clCreateUserEvent");
  atomic_init(&g.set, 0);
  atomic_init(&g.returned, 0);
  pthread_t th;
  cr_assert(pthread_create(&th, NULL, gate_main, &g) == 0);
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  /* On the context's queue: the output is looked at on the tests' own. */
  clg_status st = clg_plan_enqueue(plan, &j.d.desc, &j.x.desc, &j.o.desc, NULL,
                                   1, &g.gate, &ev, &oc);
  int early = !atomic_load(&g.set);
  bool untouched = early && tu_tensor_all_sentinel(&j.o);
  atomic_store(&g.returned, 1);
  pthread_join(th, NULL);
  cr_assert_eq(st, CLG_SUCCESS, "%s", clg_last_error());
  cr_expect(early, "the asynchronous enqueue waited for its wait list");
  cr_expect(!early || untouched, "output written before the wait list");
  cr_expect_eq(clg_outcome_wait(oc), CLG_SUCCESS, "%s", clg_last_error());
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  char msg[1024];
  cr_expect(job_ok(&j, msg, sizeof msg), "%s", msg);
  clReleaseEvent(ev);
  clReleaseEvent(g.gate);
  clg_outcome_release(oc);
  job_free(&j);
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

/* --------------------------------------------------- destroy, threads */

Test(plans, destroy) {
  clg_plan_destroy(NULL); /* a no-op */
  /* Commands enqueued and outcomes returned survive the plan. */
  spec s = s_gather_buf();
  clg_context *ctx = fresh_ctx();
  clg_plan *plan = spec_plan(ctx, &s, CLG_PLAN_ASYNC_CHECK);
  job bad, good;
  job_make_ex(&bad, &s, 5000, 0, 4, false);
  job_make(&good, &s, 5001, 64);
  cl_event e1 = NULL, e2 = NULL;
  clg_outcome *o1 = NULL, *o2 = NULL;
  cr_assert_eq(clg_plan_enqueue(plan, &bad.d.desc, &bad.x.desc, &bad.o.desc,
                                NULL, 0, NULL, &e1, &o1),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_assert_eq(clg_plan_enqueue(plan, &good.d.desc, &good.x.desc, &good.o.desc,
                                NULL, 0, NULL, &e2, &o2),
               CLG_SUCCESS, "%s", clg_last_error());
  clg_plan_destroy(plan);
  cr_expect_eq(clg_outcome_wait(o1), CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s",
               clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "indices[4]"), "%s",
            clg_last_error());
  cr_expect_eq(clg_outcome_wait(o2), CLG_SUCCESS, "%s", clg_last_error());
  tu_cl_check(clWaitForEvents(1, &e1), "clWaitForEvents");
  tu_cl_check(clWaitForEvents(1, &e2), "clWaitForEvents");
  char msg[1024];
  cr_expect(job_untouched(&bad), "the bad call wrote the output");
  cr_expect(job_ok(&good, msg, sizeof msg), "%s", msg);
  clReleaseEvent(e1);
  clReleaseEvent(e2);
  clg_outcome_release(o1);
  clg_outcome_release(o2);
  job_free(&bad);
  job_free(&good);
  clg_context_destroy(ctx);
}

#define THREAD_JOBS 12

typedef struct tjob {
  job j;
  clg_plan *plan;
  bool async;
  cl_command_queue q;
  clg_status want;
  clg_status st;
  char msg[512];
  char why[128];
} tjob;

static void *tworker_main(void *arg) {
  tjob *js = arg;
  for (int k = 0; k < THREAD_JOBS; ++k)
    js[k].st = run_plan(js[k].plan, js[k].async, &js[k].j, js[k].q, js[k].msg,
                        sizeof js[k].msg, js[k].why, sizeof js[k].why);
  return NULL;
}

/* Two threads share three unbaked plans on one context (racing to build
 * their programs): every result right, every bad index reported, and no
 * program built twice. */
Test(plans, two_threads) {
  spec s1 = s_gather_buf(), s2 = s_nd_host(), s3 = s_elements_buf();
  clg_context *ctx = fresh_ctx();
  clg_plan *plans[3] = {spec_plan(ctx, &s1, 0),
                        spec_plan(ctx, &s1, CLG_PLAN_ASYNC_CHECK),
                        spec_plan(ctx, &s2, 0)};
  clg_plan *p4 = spec_plan(ctx, &s3, CLG_PLAN_ASYNC_CHECK);
  const spec *specs[4] = {&s1, &s1, &s2, &s3};
  clg_plan *all[4] = {plans[0], plans[1], plans[2], p4};
  cl_int err = CL_SUCCESS;
  cl_command_queue qs[2];
  for (int t = 0; t < 2; ++t) {
    qs[t] = clCreateCommandQueue(tu_cl_context(), tu_device(), 0, &err);
    tu_cl_check(err, "clCreateCommandQueue");
  }
  static tjob jobs[2][THREAD_JOBS];
  for (int t = 0; t < 2; ++t)
    for (int k = 0; k < THREAD_JOBS; ++k) {
      tjob *tj = &jobs[t][k];
      int which = (k + t) % 4;
      bool oob = k == 5 + t || k == 8;
      tj->plan = all[which];
      tj->async = which == 1 || which == 3;
      tj->q = (k % 3 == 0) ? NULL : qs[t];
      tj->want = oob ? CLG_ERROR_INDEX_OUT_OF_BOUNDS : CLG_SUCCESS;
      job_make_ex(&tj->j, specs[which],
                  6000u + 100u * (uint64_t)t + (uint64_t)k,
                  (size_t)(k % 2) * 64u, oob ? 1 : -1, false);
    }
  pthread_t th[2];
  for (int t = 0; t < 2; ++t)
    cr_assert(pthread_create(&th[t], NULL, tworker_main, jobs[t]) == 0);
  for (int t = 0; t < 2; ++t)
    pthread_join(th[t], NULL);
  for (int t = 0; t < 2; ++t)
    for (int k = 0; k < THREAD_JOBS; ++k) {
      tjob *tj = &jobs[t][k];
      cr_expect_eq(tj->st, tj->want, "thread %d job %d (%s): %s: %s", t, k,
                   tj->j.s->name, clg_status_string(tj->st), tj->msg);
      cr_expect(tj->why[0] == '\0', "thread %d job %d: %s", t, k, tj->why);
      char msg[1024];
      if (tj->want == CLG_SUCCESS)
        cr_expect(job_ok(&tj->j, msg, sizeof msg), "thread %d job %d: %s", t, k,
                  msg);
      else {
        cr_expect(job_untouched(&tj->j), "thread %d job %d: output written", t,
                  k);
        cr_expect(tu_contains(tj->msg, "indices[1]"), "thread %d job %d: %s", t,
                  k, tj->msg);
      }
      job_free(&tj->j);
    }
  /* After baking every plan, the context holds exactly what baking them
   * alone builds on a fresh context: the threads built nothing twice. */
  for (int i = 0; i < 4; ++i)
    cr_expect_eq(clg_plan_bake(all[i]), CLG_SUCCESS, "%s", clg_last_error());
  clg_context *ref = fresh_ctx();
  for (int i = 0; i < 4; ++i) {
    clg_plan *rp =
        spec_plan(ref, specs[i], i == 1 || i == 3 ? CLG_PLAN_ASYNC_CHECK : 0);
    cr_expect_eq(clg_plan_bake(rp), CLG_SUCCESS, "%s", clg_last_error());
    clg_plan_destroy(rp);
  }
  cr_expect_eq(ctx->builds, ref->builds,
               "two threads built %u programs, baking alone builds %u",
               ctx->builds, ref->builds);
  clg_context_destroy(ref);
  for (int i = 0; i < 4; ++i)
    clg_plan_destroy(all[i]);
  for (int t = 0; t < 2; ++t)
    clReleaseCommandQueue(qs[t]);
  clg_context_destroy(ctx);
}
