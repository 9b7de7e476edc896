/*
 * clg_run_async() and events (test_outcome; the out-of-bounds verdicts are
 * in test_outcome.c, which lists the other files; shared helpers in
 * outcome_fx.h):
 *  - the wait list: indices written by a non-blocking write or by a kernel
 *    that waits for a user event, on in-order and out-of-order queues; the
 *    call returns while the user event is still pending (it does not block)
 *    and the verdict and the gather see the written values;
 *  - the wait does not wait for commands enqueued after the call (nor for
 *    other calls' wait lists);
 *  - a pipeline of two asynchronous calls chained only by events (the first
 *    one's output as the second one's indices, or as its data), outcomes
 *    waited at the end, including a failing first stage.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/outcome_fx.h"

/* ------------------------------------------------------ wait lists */

/* A kernel of the test's own that writes one int64 (built once). */
static cl_kernel put_kernel(void) {
  static cl_kernel k;
  if (!k) {
    static const char *src =
        "kernel void put(global long *p, ulong i, long v) { p[i] = v; }\n";
    cl_int err = CL_SUCCESS;
    cl_program prog =
        clCreateProgramWithSource(tu_cl_context(), 1, &src, NULL, &err);
    tu_cl_check(err, "clCreateProgramWithSource (test kernel)");
    cl_device_id dev = tu_device();
    tu_cl_check(clBuildProgram(prog, 1, &dev, "", NULL, NULL),
                "clBuildProgram (test kernel)");
    k = clCreateKernel(prog, "put", &err);
    tu_cl_check(err, "clCreateKernel (test kernel)");
    clReleaseProgram(prog);
  }
  return k;
}

/* Indices [6] (int64) in a cl_mem at element offset 2 whose element 4 is
 * made `final` by a command (a non-blocking write, or the test's kernel)
 * on queue q that waits for a user event; clg_run_async gets that
 * command's event as its wait list, on q. The call must return while the
 * user event is pending; after it completes, the verdict and the gather
 * must have seen `final`. */
static void wait_list_case(cl_command_queue q, const char *qname,
                           bool by_kernel, bool to_bad) {
  char label[160];
  snprintf(label, sizeof label, "[%s, %s, indices made %s]", qname,
           by_kernel ? "written by a kernel" : "non-blocking write",
           to_bad ? "bad" : "good");
  ocase k = {label, G(0, 0), CLG_DTYPE_FLOAT, 2,     {5, 3}, 1, {6},
             I64,   1,       {{4, 0}},        {NULL}};
  const int64_t bad = 7, good = -5;
  k.set[0][1] = to_bad ? good : bad; /* before */
  oinputs in;
  inputs_make(&k, 0x3E17u, &in);
  tu_tensor d, x, o;
  tu_tensor_init(&d, k.dt, k.r, k.ds, buf_at(4), in.data);
  tu_tensor_init(&x, k.idt, k.q, k.is, buf_at(16), in.idx);
  tu_tensor_init(&o, k.dt, in.orank, in.os, buf_at(0), NULL);

  cl_event u = user_event(), wrote = NULL;
  static int64_t final_value; /* alive until the write completed */
  final_value = to_bad ? bad : good;
  if (by_kernel) {
    cl_kernel kk = put_kernel();
    cl_ulong at = 2 + 4;
    tu_cl_check(clSetKernelArg(kk, 0, sizeof(cl_mem), &x.buf), "arg 0");
    tu_cl_check(clSetKernelArg(kk, 1, sizeof at, &at), "arg 1");
    tu_cl_check(clSetKernelArg(kk, 2, sizeof final_value, &final_value),
                "arg 2");
    size_t one = 1;
    tu_cl_check(
        clEnqueueNDRangeKernel(q, kk, 1, NULL, &one, NULL, 1, &u, &wrote),
        "clEnqueueNDRangeKernel (test kernel)");
  } else {
    tu_cl_check(clEnqueueWriteBuffer(q, x.buf, CL_FALSE, 16 + 4 * 8, 8,
                                     &final_value, 1, &u, &wrote),
                "clEnqueueWriteBuffer (non-blocking)");
  }
  tu_cl_check(clFlush(q), "clFlush");

  watchdog w;
  watchdog_start(&w, u, 3000);
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  unsigned v0 = validations();
  clg_status st = clg_run_async(tu_ctx(), &k.p, &d.desc, &x.desc, &o.desc, q, 1,
                                &wrote, &ev, &oc);
  bool blocked = watchdog_fired(&w);
  cl_int ustat = event_status(u);
  cl_int estat = ev ? event_status(ev) : CL_COMPLETE;
  cr_expect(st == CLG_SUCCESS, "%s: the call returned %s: %s", label,
            clg_status_string(st), clg_last_error());
  cr_expect(!blocked && ustat != CL_COMPLETE,
            "%s: the call did not return while the user event was pending",
            label);
  cr_expect(estat != CL_COMPLETE,
            "%s: the call's event completed before its wait list", label);
  cr_expect(validations() - v0 == 1, "%s: no validation kernel", label);
  watchdog_release(&w);

  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  clg_status ws = oc ? clg_outcome_wait(oc) : CLG_ERROR_NULL_ARGUMENT;
  char wmsg[2048];
  snprintf(wmsg, sizeof wmsg, "%s", clg_last_error());
  clg_outcome_release(oc);
  tu_cl_check(clFinish(q), "clFinish");

  /* The yardstick: the inputs as they are after the write. */
  tu_set_index(in.idx, k.idt, 4, final_value);
  char sync_msg[2048];
  clg_status sync = sync_run(&k, &in, sync_msg, sizeof sync_msg);
  unsigned char *got = malloc(in.obytes);
  cr_assert(got != NULL);
  tu_tensor_read(&o, got);
  if (to_bad) {
    cr_expect(sync == OOB && tu_contains(sync_msg, "indices[4]") &&
                  tu_contains(sync_msg, "= 7"),
              "%s: test bug: %s", label, sync_msg);
    cr_expect(ws == OOB && strcmp(wmsg, sync_msg) == 0,
              "%s: the verdict did not see the written value: %s: %s", label,
              clg_status_string(ws), wmsg);
    cr_expect(tu_tensor_all_sentinel(&o), "%s: the output was written", label);
  } else {
    unsigned char *want = malloc(in.obytes);
    cr_assert(want && ref_run(&k, in.data, in.idx, want) == 0);
    cr_expect(ws == CLG_SUCCESS,
              "%s: the verdict did not see the written value: %s: %s", label,
              clg_status_string(ws), wmsg);
    cr_expect(memcmp(got, want, in.obytes) == 0 && tu_tensor_guards_ok(&o),
              "%s: the gather did not see the written value", label);
    free(want);
  }
  free(got);
  clReleaseEvent(wrote);
  clReleaseEvent(u);
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o);
  inputs_free(&in);
}

Test(outcome, wait_list_is_respected_without_blocking) {
  for (int by_kernel = 0; by_kernel < 2; ++by_kernel)
    for (int to_bad = 0; to_bad < 2; ++to_bad) {
      wait_list_case(inorder_queue(), "in-order queue", by_kernel, to_bad);
      if (ooo_queue())
        wait_list_case(ooo_queue(), "out-of-order queue", by_kernel, to_bad);
    }
}

/* clg_outcome_wait() waits for the validation kernel, not for commands
 * enqueued after the call: its verdict read must not sit behind them.
 *  1. The documented gating pattern on the context's own queue (queue
 *     NULL): the call, then a consumer command on clg_context_queue() held
 *     back by a user event that the host completes only once the outcome
 *     says SUCCESS. The wait must return while the consumer is held.
 *  2. Two calls: A on the context's own queue behind a pending user event,
 *     B on a queue of the caller's with nothing to wait for. Waiting for
 *     B's outcome must not wait for A's wait list.
 * Each wait is given 1.5 s (a watchdog then completes the user event, so a
 * wait that blocks cannot hang the suite). */
static void later_commands_case(int scenario) {
  ocase k = {"later", G(0, 0), CLG_DTYPE_FLOAT, 2,     {5, 3}, 1, {6},
             I64,     0,       {{0}},           {NULL}};
  oinputs in;
  inputs_make(&k, 0x1A7Eu + (unsigned)scenario, &in);
  tu_tensor d, x, o1, o2;
  tu_tensor_init(&d, k.dt, k.r, k.ds, buf_at(0), in.data);
  tu_tensor_init(&x, k.idt, k.q, k.is, buf_at(0), in.idx);
  tu_tensor_init(&o1, k.dt, in.orank, in.os, buf_at(0), NULL);
  tu_tensor_init(&o2, k.dt, in.orank, in.os, buf_at(0), NULL);
  cl_command_queue own = clg_context_queue(tu_ctx());
  cl_event u = user_event(), held = NULL;
  clg_outcome *a = NULL, *b = NULL;
  watchdog w;
  clg_status st, ws;
  if (scenario == 1) {
    st = clg_run_async(tu_ctx(), &k.p, &d.desc, &x.desc, &o1.desc, NULL, 0,
                       NULL, NULL, &a);
    cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
    tu_cl_check(clEnqueueMarkerWithWaitList(own, 1, &u, &held),
                "clEnqueueMarkerWithWaitList (the held consumer)");
    tu_cl_check(clFlush(own), "clFlush");
    watchdog_start(&w, u, 1500);
    ws = clg_outcome_wait(a);
  } else {
    st = clg_run_async(tu_ctx(), &k.p, &d.desc, &x.desc, &o1.desc, NULL, 1, &u,
                       NULL, &a);
    cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
    st = clg_run_async(tu_ctx(), &k.p, &d.desc, &x.desc, &o2.desc,
                       inorder_queue(), 0, NULL, NULL, &b);
    cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
    watchdog_start(&w, u, 1500);
    ws = clg_outcome_wait(b);
  }
  bool fired = watchdog_release(&w);
  cr_expect(ws == CLG_SUCCESS, "scenario %d: the outcome is %s: %s", scenario,
            clg_status_string(ws), clg_last_error());
  cr_expect(!fired,
            "scenario %d: clg_outcome_wait() waited for %s: it reads the "
            "verdict on the context's own in-order queue (host/run/outcome.c), "
            "behind every command enqueued there since",
            scenario,
            scenario == 1 ? "a command enqueued after the call"
                          : "another call's wait list");
  cr_expect(clg_outcome_wait(a) == CLG_SUCCESS, "%s", clg_last_error());
  clg_outcome_release(a);
  clg_outcome_release(b);
  tu_cl_check(clFinish(own), "clFinish");
  tu_cl_check(clFinish(inorder_queue()), "clFinish");
  if (held)
    clReleaseEvent(held);
  clReleaseEvent(u);
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o1);
  tu_tensor_free(&o2);
  inputs_free(&in);
}

Test(outcome, wait_does_not_wait_for_later_commands, .timeout = 30) {
  later_commands_case(1);
  later_commands_case(2);
}

/* ------------------------------------------------------- pipelines */

/* Two asynchronous gathers chained only by events, on queue q: stage 1
 * writes O1 = Gather(T, I1) (int64: indices for stage 2) or O1 =
 * GatherElements(D, I1) (float: data for stage 2); stage 2 gathers with O1
 * as its indices or its data, waiting for stage 1's event only; nothing
 * waits on the host until stage 2's event, then both outcomes are waited.
 * O1 starts as sentinel bytes, which are no valid index: a stage 2 that ran
 * ahead of stage 1 would fail. `bad1`: stage 1 has an out-of-bounds index,
 * so O1 keeps its sentinel bytes and stage 2 must fail on them too (its
 * output untouched), as clg_run on those values does. */
static void pipeline(cl_command_queue q, const char *qname, bool as_indices,
                     bool bad1) {
  char label[160];
  snprintf(label, sizeof label, "[pipeline, O1 as %s, %s%s]",
           as_indices ? "indices" : "data", qname,
           bad1 ? ", stage 1 out of bounds" : "");
  /* Stage 1. */
  ocase k1, k2;
  if (as_indices) {
    /* T int64 [8] holds valid indices for D's axis 0 (size 6); I1 int32
     * [300] indexes T; O1 int64 [300]; stage 2: Gather(D [6, 5], O1). */
    ocase a = {"stage 1", G(0, 0), CLG_DTYPE_INT64, 1,     {8}, 1, {300},
               I32,       0,       {{0}},           {NULL}};
    ocase b = {"stage 2", G(0, 0), CLG_DTYPE_FLOAT, 2,     {6, 5}, 1, {300},
               I64,       0,       {{0}},           {NULL}};
    k1 = a;
    k2 = b;
  } else {
    /* O1 = GatherElements(D [9, 4], I1 [6, 4], axis 0) float [6, 4];
     * stage 2: GatherND(O1, J [50, 2]). */
    ocase a = {"stage 1", GE(0), CLG_DTYPE_FLOAT, 2,     {9, 4}, 2, {6, 4},
               I64,       0,     {{0}},           {NULL}};
    ocase b = {"stage 2", ND(0), CLG_DTYPE_FLOAT, 2,     {6, 4}, 2, {50, 2},
               I32,       0,     {{0}},           {NULL}};
    k1 = a;
    k2 = b;
  }
  if (bad1) {
    k1.nset = 1;
    k1.set[0][0] = 17;
    k1.set[0][1] = as_indices ? 8 : -10;
  }
  oinputs in1, in2;
  inputs_make(&k1, 0x9191u, &in1);
  inputs_make(&k2, 0x9292u, &in2);
  if (as_indices) /* T's values: valid indices for stage 2's axis (6). */
    for (int j = 0; j < 8; ++j)
      tu_set_index(in1.data, I64, j, (j * 5) % 12 - 6);

  tu_tensor d1, x1, o1, d2, x2, o2;
  tu_tensor_init(&d1, k1.dt, k1.r, k1.ds, buf_at(8), in1.data);
  tu_tensor_init(&x1, k1.idt, k1.q, k1.is, buf_at(4 * isz_of(k1.idt)), in1.idx);
  tu_tensor_init(&o1, k1.dt, in1.orank, in1.os, buf_at(16), NULL);
  if (as_indices) {
    tu_tensor_init(&d2, k2.dt, k2.r, k2.ds, buf_at(0), in2.data);
    x2 = o1;
    x2.buf = NULL; /* o1 owns the buffer */
  } else {
    d2 = o1;
    d2.buf = NULL;
    tu_tensor_init(&x2, k2.idt, k2.q, k2.is, buf_at(0), in2.idx);
  }
  tu_tensor_init(&o2, k2.dt, in2.orank, in2.os, buf_at(12), NULL);

  unsigned v0 = validations();
  cl_event e1 = NULL, e2 = NULL;
  clg_outcome *oc1 = NULL, *oc2 = NULL;
  clg_status s1 = clg_run_async(tu_ctx(), &k1.p, &d1.desc, &x1.desc, &o1.desc,
                                q, 0, NULL, &e1, &oc1);
  cr_assert(s1 == CLG_SUCCESS, "%s stage 1: %s", label, clg_last_error());
  clg_status s2 = clg_run_async(tu_ctx(), &k2.p, &d2.desc, &x2.desc, &o2.desc,
                                q, 1, &e1, &e2, &oc2);
  cr_assert(s2 == CLG_SUCCESS, "%s stage 2: %s", label, clg_last_error());
  cr_expect(validations() - v0 == 2, "%s: %u validation kernels, want 2", label,
            validations() - v0);
  tu_cl_check(clWaitForEvents(1, &e2), "clWaitForEvents (stage 2)");
  clg_status w1 = clg_outcome_wait(oc1);
  char m1[2048];
  snprintf(m1, sizeof m1, "%s", clg_last_error());
  clg_status w2 = clg_outcome_wait(oc2);
  char m2[2048];
  snprintf(m2, sizeof m2, "%s", clg_last_error());
  tu_cl_check(clWaitForEvents(1, &e1), "clWaitForEvents (stage 1)");

  /* What each stage should have seen, by the synchronous path and the
   * reference. */
  char sync1[2048], sync2[2048];
  clg_status want1 = sync_run(&k1, &in1, sync1, sizeof sync1);
  unsigned char *mid = malloc(in1.obytes), *fin = malloc(in2.obytes);
  unsigned char *got_mid = malloc(in1.obytes), *got = malloc(in2.obytes);
  cr_assert(mid && fin && got_mid && got);
  if (bad1)
    memset(mid, (int)TU_SENTINEL, in1.obytes); /* O1 as it was */
  else
    cr_assert(ref_run(&k1, in1.data, in1.idx, mid) == 0, "test bug");
  if (as_indices)
    memcpy(in2.idx, mid, in1.obytes);
  else
    memcpy(in2.data, mid, in1.obytes);
  clg_status want2 = sync_run(&k2, &in2, sync2, sizeof sync2);
  cr_expect(want1 == (bad1 ? OOB : CLG_SUCCESS), "%s: test bug: %s", label,
            sync1);
  cr_expect(w1 == want1 && strcmp(m1, sync1) == 0,
            "%s stage 1: outcome %s: \"%s\", want %s: \"%s\"", label,
            clg_status_string(w1), m1, clg_status_string(want1), sync1);
  cr_expect(w2 == want2 && strcmp(m2, sync2) == 0,
            "%s stage 2: outcome %s: \"%s\", want %s: \"%s\"", label,
            clg_status_string(w2), m2, clg_status_string(want2), sync2);
  tu_tensor_read(&o1, got_mid);
  cr_expect(memcmp(got_mid, mid, in1.obytes) == 0 && tu_tensor_guards_ok(&o1),
            "%s: stage 1's output is wrong", label);
  if (want2 == CLG_SUCCESS) {
    cr_assert(ref_run(&k2, in2.data, in2.idx, fin) == 0, "test bug");
    tu_tensor_read(&o2, got);
    cr_expect(memcmp(got, fin, in2.obytes) == 0 && tu_tensor_guards_ok(&o2),
              "%s: stage 2's output differs from the reference", label);
  } else {
    cr_expect(tu_tensor_all_sentinel(&o2), "%s: stage 2 wrote its output",
              label);
  }
  /* Sentinel bytes as indices fail: a failing stage 1 fails stage 2. */
  if (bad1 && as_indices)
    cr_expect(w2 == OOB, "%s: stage 2 gathered with stage 1's garbage", label);
  clg_outcome_release(oc1);
  clg_outcome_release(oc2);
  clReleaseEvent(e1);
  clReleaseEvent(e2);
  free(mid);
  free(fin);
  free(got_mid);
  free(got);
  tu_tensor_free(&d1);
  tu_tensor_free(&x1);
  tu_tensor_free(&o1);
  tu_tensor_free(as_indices ? &d2 : &x2);
  tu_tensor_free(&o2);
  inputs_free(&in1);
  inputs_free(&in2);
}

Test(outcome, chained_pipeline) {
  for (int as_indices = 0; as_indices < 2; ++as_indices)
    for (int bad1 = 0; bad1 < 2; ++bad1) {
      pipeline(inorder_queue(), "in-order queue", as_indices, bad1);
      if (ooo_queue())
        pipeline(ooo_queue(), "out-of-order queue", as_indices, bad1);
    }
}
