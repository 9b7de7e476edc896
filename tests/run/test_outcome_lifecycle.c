/*
 * Outcomes themselves (test_outcome; the out-of-bounds verdicts are in
 * test_outcome.c, which lists the other files; shared helpers in
 * outcome_fx.h): waited twice (same status and message), from two threads
 * at once, released without a wait (no leak: the cl_context's reference
 * count comes back), after the caller released its queue, NULL arguments;
 * a failed wait-list event makes the wait return CLG_ERROR_OPENCL (not
 * hang).
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/outcome_fx.h"

/* ---------------------------------------------- outcomes themselves */

/* The shared cl_context's settled reference count (testutil.h), once the
 * shared clg_context's queue is finished. */
static cl_uint settled_refs(void) {
  tu_cl_check(clFinish(clg_context_queue(tu_ctx())), "clFinish (ctx queue)");
  return tu_context_refs(tu_cl_context());
}

typedef struct waiter {
  clg_outcome *oc;
  clg_status st;
  char msg[2048];
  atomic_bool done;
} waiter;

static void *wait_thread(void *p) {
  waiter *w = p;
  w->st = clg_outcome_wait(w->oc);
  snprintf(w->msg, sizeof w->msg, "%s", clg_last_error());
  atomic_store(&w->done, true);
  return NULL;
}

/* clg_outcome_wait() in another thread, given `ms` milliseconds to return;
 * false if it did not (the thread is then left behind, stuck). */
static bool wait_within(waiter *w, long ms) {
  pthread_t th;
  atomic_store(&w->done, false);
  cr_assert(pthread_create(&th, NULL, wait_thread, w) == 0);
  for (long t = 0; t < ms && !atomic_load(&w->done); ++t) {
    struct timespec one = {0, 1000000};
    nanosleep(&one, NULL);
  }
  if (!atomic_load(&w->done)) {
    pthread_detach(th);
    return false;
  }
  pthread_join(th, NULL);
  return true;
}

/* A pending all-cl_mem call of case k whose wait list is user event *u
 * (created here); returns the outcome, *ev its event. */
typedef struct pending {
  oinputs in;
  tu_tensor d, x, o;
  cl_event u, ev;
  clg_outcome *oc;
} pending;

static void pending_start(pending *p, const ocase *k, uint64_t seed,
                          cl_command_queue q) {
  memset(p, 0, sizeof *p);
  inputs_make(k, seed, &p->in);
  tu_tensor_init(&p->d, k->dt, k->r, k->ds, buf_at(0), p->in.data);
  tu_tensor_init(&p->x, k->idt, k->q, k->is, buf_at(8), p->in.idx);
  tu_tensor_init(&p->o, k->dt, p->in.orank, p->in.os, buf_at(4), NULL);
  p->u = user_event();
  clg_status st = clg_run_async(tu_ctx(), &k->p, &p->d.desc, &p->x.desc,
                                &p->o.desc, q, 1, &p->u, &p->ev, &p->oc);
  cr_assert(st == CLG_SUCCESS && p->oc && p->ev, "%s: %s", k->name,
            clg_last_error());
}

static void pending_free(pending *p) {
  if (p->ev)
    clReleaseEvent(p->ev);
  clReleaseEvent(p->u);
  tu_tensor_free(&p->d);
  tu_tensor_free(&p->x);
  tu_tensor_free(&p->o);
  inputs_free(&p->in);
}

/* The lifecycle of outcomes; run twice (the first run builds the programs,
 * which the context keeps: they hold references to the cl_context too). */
static void outcome_lifecycle(void) {
  static const ocase bad = {"bad",  G(0, 0),   CLG_DTYPE_FLOAT, 2,
                            {5, 3}, 2,         {2, 3},          I64,
                            1,      {{4, -6}}, {NULL}};
  static const ocase good = {"good", GE(1), CLG_DTYPE_FLOAT, 2,
                             {4, 3}, 2,     {4, 5},          I32,
                             0,      {{0}}, {NULL}};

  /* Two threads wait at once on a pending OOB outcome, then a third wait:
   * the same status and message every time, and clg_run's. */
  for (int which = 0; which < 2; ++which) {
    const ocase *k = which ? &good : &bad;
    pending p;
    pending_start(&p, k, 0x7770u + (unsigned)which, inorder_queue());
    char sync_msg[2048];
    clg_status sync = sync_run(k, &p.in, sync_msg, sizeof sync_msg);
    cr_assert(sync == (which ? CLG_SUCCESS : OOB), "test bug: %s", sync_msg);
    waiter w[2] = {{p.oc, CLG_SUCCESS, {0}, false},
                   {p.oc, CLG_SUCCESS, {0}, false}};
    pthread_t th[2];
    for (int t = 0; t < 2; ++t)
      cr_assert(pthread_create(&th[t], NULL, wait_thread, &w[t]) == 0);
    struct timespec ms20 = {0, 20 * 1000 * 1000};
    nanosleep(&ms20, NULL);
    tu_cl_check(clSetUserEventStatus(p.u, CL_COMPLETE), "clSetUserEventStatus");
    for (int t = 0; t < 2; ++t)
      pthread_join(th[t], NULL);
    clg_status again = clg_outcome_wait(p.oc);
    char again_msg[2048];
    snprintf(again_msg, sizeof again_msg, "%s", clg_last_error());
    for (int t = 0; t < 2; ++t)
      cr_expect(w[t].st == sync && strcmp(w[t].msg, sync_msg) == 0,
                "[%s] thread %d: %s: \"%s\", want %s: \"%s\"", k->name, t,
                clg_status_string(w[t].st), w[t].msg, clg_status_string(sync),
                sync_msg);
    cr_expect(again == sync && strcmp(again_msg, sync_msg) == 0,
              "[%s] a third wait: %s: %s", k->name, clg_status_string(again),
              again_msg);
    /* An unrelated failure in between does not change what the outcome
     * says (the message is the thread's last call's). */
    cr_expect(clg_outcome_wait(NULL) == CLG_ERROR_NULL_ARGUMENT);
    cr_expect(clg_outcome_wait(p.oc) == sync &&
                  strcmp(clg_last_error(), sync_msg) == 0,
              "[%s] after another error the outcome's message changed: %s",
              k->name, clg_last_error());
    tu_cl_check(clWaitForEvents(1, &p.ev), "clWaitForEvents");
    clg_outcome_release(p.oc);
    if (which) {
      unsigned char *want = malloc(p.in.obytes), *got = malloc(p.in.obytes);
      cr_assert(want && got && ref_run(k, p.in.data, p.in.idx, want) == 0);
      tu_tensor_read(&p.o, got);
      cr_expect(memcmp(got, want, p.in.obytes) == 0, "[%s] wrong output",
                k->name);
      free(want);
      free(got);
    } else {
      cr_expect(tu_tensor_all_sentinel(&p.o), "[%s] output written", k->name);
    }
    pending_free(&p);
  }

  /* Released without a wait while still pending (its verdict not even
   * computed): no crash, the gather still runs to completion. */
  {
    pending p;
    pending_start(&p, &good, 0x7772u, inorder_queue());
    clg_outcome_release(p.oc);
    tu_cl_check(clSetUserEventStatus(p.u, CL_COMPLETE), "clSetUserEventStatus");
    tu_cl_check(clWaitForEvents(1, &p.ev), "clWaitForEvents");
    unsigned char *want = malloc(p.in.obytes), *got = malloc(p.in.obytes);
    cr_assert(want && got && ref_run(&good, p.in.data, p.in.idx, want) == 0);
    tu_tensor_read(&p.o, got);
    cr_expect(memcmp(got, want, p.in.obytes) == 0,
              "released unwaited: the gather did not complete correctly");
    free(want);
    free(got);
    pending_free(&p);
  }
  /* Released without a wait after completing, OOB; and on the caller's
   * queue that the caller released before waiting (the outcome keeps its
   * own reference). */
  {
    cl_int err = CL_SUCCESS;
    cl_command_queue q =
        clCreateCommandQueue(tu_cl_context(), tu_device(), 0, &err);
    tu_cl_check(err, "clCreateCommandQueue");
    pending p, p2;
    pending_start(&p, &bad, 0x7773u, q);
    pending_start(&p2, &bad, 0x7774u, q);
    clReleaseCommandQueue(q);
    tu_cl_check(clSetUserEventStatus(p.u, CL_COMPLETE), "user event");
    tu_cl_check(clSetUserEventStatus(p2.u, CL_COMPLETE), "user event");
    tu_cl_check(clWaitForEvents(1, &p.ev), "clWaitForEvents");
    clg_outcome_release(p.oc);
    clg_status st = clg_outcome_wait(p2.oc);
    cr_expect(st == OOB && tu_contains(clg_last_error(), "indices[4]"),
              "wait after the caller released its queue: %s: %s",
              clg_status_string(st), clg_last_error());
    tu_cl_check(clWaitForEvents(1, &p2.ev), "clWaitForEvents");
    clg_outcome_release(p2.oc);
    cr_expect(tu_tensor_all_sentinel(&p.o) && tu_tensor_all_sentinel(&p2.o),
              "OOB, released: the output was written");
    pending_free(&p);
    pending_free(&p2);
  }
  /* Decided outcomes (host indices; WRAP) released without a wait. */
  {
    static const ocase wrap = {"wrap",
                               GM(0, CLG_MODE_WRAP),
                               CLG_DTYPE_FLOAT,
                               2,
                               {5, 3},
                               2,
                               {2, 3},
                               I64,
                               1,
                               {{0, 99}},
                               {NULL}};
    oinputs in;
    inputs_make(&wrap, 0x7775u, &in);
    tu_tensor d, x, o;
    tu_tensor_init(&d, wrap.dt, wrap.r, wrap.ds, buf_at(0), in.data);
    tu_tensor_init(&x, wrap.idt, wrap.q, wrap.is, buf_at(0), in.idx);
    tu_tensor_init(&o, wrap.dt, in.orank, in.os, buf_at(0), NULL);
    clg_outcome *oc = NULL;
    cr_expect(clg_run_async(tu_ctx(), &wrap.p, &d.desc, &x.desc, &o.desc, NULL,
                            0, NULL, NULL, &oc) == CLG_SUCCESS &&
              oc != NULL);
    clg_outcome_release(oc);
    /* Host indices: all zeros are valid. */
    int64_t zeros[6] = {0};
    clg_tensor xz = clg_tensor_host(I64, 2, wrap.is, zeros);
    oc = NULL;
    clg_params raise = G(0, 0);
    cr_expect(clg_run_async(tu_ctx(), &raise, &d.desc, &xz, &o.desc, NULL, 0,
                            NULL, NULL, &oc) == CLG_SUCCESS &&
              oc != NULL);
    clg_outcome_release(oc);
    clg_outcome_release(NULL); /* a no-op */
    tu_tensor_free(&d);
    tu_tensor_free(&x);
    tu_tensor_free(&o);
    inputs_free(&in);
  }
}

Test(outcome, wait_twice_from_two_threads_and_release) {
  (void)inorder_queue(); /* the test's own queue, before counting */
  outcome_lifecycle();
  cl_uint refs0 = settled_refs();
  outcome_lifecycle();
  /* Nothing leaked: every outcome let go of its queue and verdict. */
  tu_cl_check(clFinish(clg_context_queue(tu_ctx())), "clFinish (ctx queue)");
  cl_uint refs1 = tu_context_refs_after(tu_cl_context(), refs0);
  cr_expect(refs1 == refs0,
            "the cl_context's reference count went from %u to %u: an "
            "outcome leaked",
            (unsigned)refs0, (unsigned)refs1);
}

/* A wait list event that fails: the verdict cannot be read, so the outcome
 * is CLG_ERROR_OPENCL (the output's state unknown), every time; the wait
 * must return (it is given 3 s). */
Test(outcome, failed_wait_list_event, .timeout = 20) {
  ocase k = {
      "failed event", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 1, {6}, I64, 0,
      {{0}},          {NULL}};
  oinputs in;
  inputs_make(&k, 0xFA11u, &in);
  tu_tensor d, x, o;
  tu_tensor_init(&d, k.dt, k.r, k.ds, buf_at(0), in.data);
  tu_tensor_init(&x, k.idt, k.q, k.is, buf_at(0), in.idx);
  tu_tensor_init(&o, k.dt, in.orank, in.os, buf_at(0), NULL);
  cl_event u = user_event(), ev = NULL;
  clg_outcome *oc = NULL;
  clg_status st = clg_run_async(tu_ctx(), &k.p, &d.desc, &x.desc, &o.desc,
                                inorder_queue(), 1, &u, &ev, &oc);
  cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
  tu_cl_check(clSetUserEventStatus(u, -1), "clSetUserEventStatus(-1)");
  waiter w1 = {oc, CLG_SUCCESS, {0}, false};
  cr_assert(wait_within(&w1, 3000),
            "clg_outcome_wait() did not return within 3 s after an event of "
            "the call's wait list failed (it hangs in the blocking read of "
            "the verdict: host/run/index_pass.c, clg__verdict_read)");
  waiter w2 = {oc, CLG_SUCCESS, {0}, false};
  cr_assert(wait_within(&w2, 3000), "a second clg_outcome_wait() hangs");
  cr_expect(w1.st == CLG_ERROR_OPENCL && tu_contains(w1.msg, "verdict"),
            "a failed wait list: the outcome is %s: %s",
            clg_status_string(w1.st), w1.msg);
  cr_expect(w2.st == w1.st, "a second wait gives %s", clg_status_string(w2.st));
  clg_outcome_release(oc);
  clWaitForEvents(1, &ev); /* fails: the command was never run */
  clReleaseEvent(ev);
  clReleaseEvent(u);
  tu_cl_check(clFinish(inorder_queue()), "clFinish");
  cr_expect(tu_tensor_all_sentinel(&o), "the output was written");
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o);
  inputs_free(&in);
}
