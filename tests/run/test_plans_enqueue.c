/*
 * host/run/plans.c: the failures of clg_plan_enqueue() (test_plans, part 3
 * of 5; the rest: test_plans.c, whose header lists the parts).
 *
 *  - Every error of clg_plan_enqueue(), for plans on cl_mem (sync and
 *    async) and on host memory: its status, a message naming the issue,
 *    *event / *outcome not set, and the sentinel-filled output unchanged
 *    byte for byte; the plan still works afterwards.
 *  - Injected OpenCL and allocation failures in create, bake, enqueue and
 *    the outcome's wait.
 *  - Out-of-bounds indices: clg_run()'s status and message, from the call
 *    or from the outcome; an empty axis in modes WRAP and CLIP.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/plans_fx.h"

/* ---------------------------------------------- clg_plan_enqueue errors */

/* One failing enqueue: its status, a message naming the issue, no event,
 * no outcome, and `watch` (the output) unchanged. pass_outcome: give an
 * outcome pointer. */
static void enqueue_fails(const char *what, clg_plan *plan, bool pass_outcome,
                          const clg_tensor *d, const clg_tensor *x,
                          const clg_tensor *o, cl_command_queue q, cl_uint nev,
                          const cl_event *wl, clg_status want,
                          const char *needle, const tu_tensor *watch) {
  cl_event ev = POISON_EVENT;
  clg_outcome *oc = POISON_OUTCOME;
  clg_status st = clg_plan_enqueue(plan, d, x, o, q, nev, wl, &ev,
                                   pass_outcome ? &oc : NULL);
  cr_expect_eq(st, want, "%s: got %s, want %s: %s", what, clg_status_string(st),
               clg_status_string(want), clg_last_error());
  cr_expect(tu_contains_ci(clg_last_error(), needle),
            "%s: the message does not name \"%s\": %s", what, needle,
            clg_last_error());
  cr_expect(ev == POISON_EVENT, "%s: *event set on failure", what);
  cr_expect(oc == POISON_OUTCOME, "%s: *outcome set on failure", what);
  if (st == CLG_SUCCESS) { /* the test has failed: clean up */
    if (ev != POISON_EVENT && ev) {
      clWaitForEvents(1, &ev);
      clReleaseEvent(ev);
    }
    if (oc != POISON_OUTCOME)
      clg_outcome_release(oc);
  }
  if (watch)
    cr_expect(tu_tensor_all_sentinel(watch), "%s: the output was written",
              what);
}

/* Every error of clg_plan_enqueue() for a plan on cl_mem (sync and async):
 * all before anything is enqueued. */
Test(plans, enqueue_errors) {
  spec s = mkspec("gather f32 [6,4], int32 [5], buffers", CLG_OP_GATHER, 0, 0,
                  CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2, D(6, 4), CLG_DTYPE_INT32,
                  1, D(5), B(16), B(8), B(32));
  clg_context *ctx = fresh_ctx();
  cl_int err = CL_SUCCESS;
  cl_device_id dev = tu_device();
  cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  tu_cl_check(err, "clCreateContext");
  cl_command_queue other_q = clCreateCommandQueue(other, dev, 0, &err);
  tu_cl_check(err, "clCreateCommandQueue");

  for (int async = 0; async < 2; ++async) {
    clg_plan *plan = spec_plan(ctx, &s, async ? CLG_PLAN_ASYNC_CHECK : 0);
    job j;
    job_make(&j, &s, 3000u + (uint64_t)async, 0);
    const clg_tensor *d = &j.d.desc, *x = &j.x.desc, *o = &j.o.desc;
    const tu_tensor *w = &j.o;
    bool po = async; /* the outcome argument the plan wants */
    char what[160];
#define WHAT(str)                                                              \
  (snprintf(what, sizeof what, "%s: %s", async ? "async" : "sync", str), what)

    enqueue_fails(WHAT("plan NULL"), NULL, po, d, x, o, NULL, 0, NULL,
                  CLG_ERROR_NULL_ARGUMENT, "plan", w);
    enqueue_fails(WHAT("data NULL"), plan, po, NULL, x, o, NULL, 0, NULL,
                  CLG_ERROR_NULL_ARGUMENT, "data", w);
    enqueue_fails(WHAT("indices NULL"), plan, po, d, NULL, o, NULL, 0, NULL,
                  CLG_ERROR_NULL_ARGUMENT, "indices", w);
    enqueue_fails(WHAT("output NULL"), plan, po, d, x, NULL, NULL, 0, NULL,
                  CLG_ERROR_NULL_ARGUMENT, "output", w);
    if (async)
      enqueue_fails(WHAT("outcome NULL"), plan, false, d, x, o, NULL, 0, NULL,
                    CLG_ERROR_NULL_ARGUMENT, "outcome", w);
    else
      enqueue_fails(WHAT("outcome given"), plan, true, d, x, o, NULL, 0, NULL,
                    CLG_ERROR_INVALID_ARGUMENT, "outcome", w);

    /* Against the template. */
    clg_tensor d2 = *d, x2 = *x, o2 = *o;
    d2.dtype = CLG_DTYPE_DOUBLE;
    enqueue_fails(WHAT("data dtype"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_DTYPE_MISMATCH, "double", w);
    d2 = *d;
    d2.dtype = CLG_DTYPE_INT32; /* same size */
    enqueue_fails(WHAT("data dtype int32"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_DTYPE_MISMATCH, "data", w);
    x2.dtype = CLG_DTYPE_INT64;
    enqueue_fails(WHAT("indices dtype"), plan, po, d, &x2, o, NULL, 0, NULL,
                  CLG_ERROR_DTYPE_MISMATCH, "indices", w);
    o2.dtype = CLG_DTYPE_UINT32;
    enqueue_fails(WHAT("output dtype"), plan, po, d, x, &o2, NULL, 0, NULL,
                  CLG_ERROR_DTYPE_MISMATCH, "output", w);
    d2 = *d;
    d2.shape[0] = 5; /* smaller: fits in the buffer */
    enqueue_fails(WHAT("data shape"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "data", w);
    d2 = *d;
    d2.rank = 3;
    d2.shape[2] = 1;
    enqueue_fails(WHAT("data rank"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "rank", w);
    d2 = *d;
    d2.rank = 1;
    d2.shape[0] = 24;
    enqueue_fails(WHAT("data flattened"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "data", w);
    x2 = *x;
    x2.shape[0] = 4;
    enqueue_fails(WHAT("indices shape"), plan, po, d, &x2, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "indices", w);
    x2 = *x;
    x2.rank = 0;
    enqueue_fails(WHAT("indices rank 0"), plan, po, d, &x2, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "indices", w);
    x2 = *x;
    x2.rank = 40; /* out of range, must not be read past CLG_MAX_RANK */
    enqueue_fails(WHAT("indices rank 40"), plan, po, d, &x2, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "indices", w);
    o2 = *o;
    o2.shape[1] = 3;
    enqueue_fails(WHAT("output shape"), plan, po, d, x, &o2, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "output", w);
    o2 = *o;
    o2.rank = 3;
    o2.shape[2] = 1;
    enqueue_fails(WHAT("output rank"), plan, po, d, x, &o2, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "output", w);

    /* Storage kind: host memory where the plan was made for cl_mem. */
    unsigned char *hd = malloc(j.dbytes), *hx = malloc(j.ibytes),
                  *ho = malloc(j.obytes);
    cr_assert(hd && hx && ho);
    memcpy(hd, j.data, j.dbytes);
    memcpy(hx, j.idx, j.ibytes);
    memset(ho, TU_SENTINEL, j.obytes);
    d2 = clg_tensor_host(s.dtype, s.r, s.ds, hd);
    x2 = clg_tensor_host(s.idt, s.q, s.is, hx);
    o2 = clg_tensor_host(s.dtype, j.orank, j.oshape, ho);
    enqueue_fails(WHAT("host data"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_INVALID_ARGUMENT, "host memory", w);
    enqueue_fails(WHAT("host indices"), plan, po, d, &x2, o, NULL, 0, NULL,
                  CLG_ERROR_INVALID_ARGUMENT, "indices", w);
    enqueue_fails(WHAT("host output"), plan, po, d, x, &o2, NULL, 0, NULL,
                  CLG_ERROR_INVALID_ARGUMENT, "output", w);
    for (size_t b = 0; b < j.obytes; ++b)
      if (ho[b] != TU_SENTINEL) {
        cr_expect(false, "%s: the host output was written", what);
        break;
      }
    o2 = *o;
    o2.storage = (clg_storage)6;
    enqueue_fails(WHAT("output storage 6"), plan, po, d, x, &o2, NULL, 0, NULL,
                  CLG_ERROR_INVALID_ARGUMENT, "output", w);
    free(hd);
    free(hx);
    free(ho);

    /* Memory checks, as clg_run() makes them. */
    d2 = *d;
    d2.buffer = NULL;
    enqueue_fails(WHAT("data buffer NULL"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_NULL_ARGUMENT, "buffer", w);
    x2 = *x;
    x2.buffer = NULL;
    enqueue_fails(WHAT("indices buffer NULL"), plan, po, d, &x2, o, NULL, 0,
                  NULL, CLG_ERROR_NULL_ARGUMENT, "indices", w);
    o2 = *o;
    o2.buffer = NULL;
    enqueue_fails(WHAT("output buffer NULL"), plan, po, d, x, &o2, NULL, 0,
                  NULL, CLG_ERROR_NULL_ARGUMENT, "output", w);
    cl_mem small = tu_buffer_create(16 + j.dbytes - 1, NULL);
    d2 = *d;
    d2.buffer = small;
    enqueue_fails(WHAT("data buffer too small"), plan, po, &d2, x, o, NULL, 0,
                  NULL, CLG_ERROR_BUFFER_TOO_SMALL, "data", w);
    x2 = *x;
    x2.offset = j.x.total - j.ibytes + 4; /* one index past the end */
    enqueue_fails(WHAT("indices past the buffer"), plan, po, d, &x2, o, NULL, 0,
                  NULL, CLG_ERROR_BUFFER_TOO_SMALL, "indices", w);
    o2 = *o;
    o2.offset = j.o.total - j.obytes + 1; /* one byte past the end */
    enqueue_fails(WHAT("output past the buffer"), plan, po, d, x, &o2, NULL, 0,
                  NULL, CLG_ERROR_BUFFER_TOO_SMALL, "output", w);
    o2 = *o;
    o2.buffer = small; /* 16 + 96 - 1 bytes < offset 32 + 80 */
    o2.offset = 32;
    enqueue_fails(WHAT("output buffer too small"), plan, po, d, x, &o2, NULL, 0,
                  NULL, CLG_ERROR_BUFFER_TOO_SMALL, "output", w);
    clReleaseMemObject(small);
    x2 = *x;
    x2.offset = 10; /* not a multiple of 4 */
    enqueue_fails(WHAT("misaligned indices offset"), plan, po, d, &x2, o, NULL,
                  0, NULL, CLG_ERROR_INVALID_ARGUMENT, "offset", w);
    /* The output over the data's bytes. */
    o2 = *o;
    o2.buffer = j.d.buf;
    o2.offset = 16;
    enqueue_fails(WHAT("output aliases data"), plan, po, d, x, &o2, NULL, 0,
                  NULL, CLG_ERROR_INVALID_ARGUMENT, "overlap", w);
    cr_expect(job_inputs_ok(&j), "%s: the data was written", what);
    /* Queue and wait list. */
    enqueue_fails(WHAT("queue of another cl_context"), plan, po, d, x, o,
                  other_q, 0, NULL, CLG_ERROR_INVALID_ARGUMENT, "queue", w);
    enqueue_fails(WHAT("num_events without wait_list"), plan, po, d, x, o, NULL,
                  1, NULL, CLG_ERROR_INVALID_ARGUMENT, "wait list", w);
    cl_event nulls[1] = {NULL};
    enqueue_fails(WHAT("NULL event in the wait list"), plan, po, d, x, o, NULL,
                  1, nulls, CLG_ERROR_NULL_ARGUMENT, "wait_list", w);
    /* A buffer of another cl_context. */
    cl_mem foreign =
        clCreateBuffer(other, CL_MEM_READ_WRITE, j.d.total, NULL, &err);
    tu_cl_check(err, "clCreateBuffer");
    d2 = *d;
    d2.buffer = foreign;
    enqueue_fails(WHAT("data of another cl_context"), plan, po, &d2, x, o, NULL,
                  0, NULL, CLG_ERROR_INVALID_ARGUMENT, "cl_context", w);
    clReleaseMemObject(foreign);
#undef WHAT

    /* The plan still works, on the very same memory. */
    plan_ok(plan, async, &j, NULL, "after the errors");
    job_free(&j);
    clg_plan_destroy(plan);
  }
  clReleaseCommandQueue(other_q);
  clReleaseContext(other);
  clg_context_destroy(ctx);
}

/* Host plans: the host-pointer checks. */
Test(plans, enqueue_errors_host) {
  spec s = s_nd_host();
  clg_context *ctx = fresh_ctx();
  clg_plan *plan = spec_plan(ctx, &s, 0);
  job j;
  job_make(&j, &s, 3100, 0);
  clg_tensor d2 = j.d.desc, x2 = j.x.desc, o2 = j.o.desc;
  d2.host = NULL;
  enqueue_fails("data host NULL", plan, false, &d2, &j.x.desc, &j.o.desc, NULL,
                0, NULL, CLG_ERROR_NULL_ARGUMENT, "data", &j.o);
  x2.host = NULL;
  enqueue_fails("indices host NULL", plan, false, &j.d.desc, &x2, &j.o.desc,
                NULL, 0, NULL, CLG_ERROR_NULL_ARGUMENT, "indices", &j.o);
  o2.host = NULL;
  enqueue_fails("output host NULL", plan, false, &j.d.desc, &j.x.desc, &o2,
                NULL, 0, NULL, CLG_ERROR_NULL_ARGUMENT, "output", &j.o);
  /* A cl_mem where the plan was made for host memory. */
  cl_mem buf = tu_buffer_create(j.obytes, NULL);
  o2 = clg_tensor_buffer(s.dtype, j.orank, j.oshape, buf, 0);
  enqueue_fails("cl_mem output for a host plan", plan, false, &j.d.desc,
                &j.x.desc, &o2, NULL, 0, NULL, CLG_ERROR_INVALID_ARGUMENT,
                "cl_mem", &j.o);
  clReleaseMemObject(buf);
  /* The output over the indices' host memory. */
  o2 = j.o.desc;
  o2.host = j.x.desc.host;
  enqueue_fails("output aliases indices", plan, false, &j.d.desc, &j.x.desc,
                &o2, NULL, 0, NULL, CLG_ERROR_INVALID_ARGUMENT, "overlap",
                &j.o);
  cr_expect(job_inputs_ok(&j), "the indices were written");
  plan_ok(plan, false, &j, NULL, "after the errors");
  job_free(&j);
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

/* OpenCL and host-allocation failures (test builds inject them): each
 * returns its status, sets nothing, writes nothing, and a later call
 * works. */
Test(plans, faults) {
  spec s = s_gather_buf();
  clg_context *ctx = fresh_ctx();
  clg_tensor d, x, o;
  spec_templates(&s, &d, &x, &o);

  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_HOST_ALLOC, 0, 1, CL_OUT_OF_HOST_MEMORY);
  clg_plan *p = POISON_PLAN;
  clg_status st = clg_plan_create(ctx, &s.p, &d, &x, &o, 0, &p);
  clg_fault_reset();
  cr_expect_eq(st, CLG_ERROR_OUT_OF_HOST_MEMORY, "create: %s: %s",
               clg_status_string(st), clg_last_error());
  cr_expect_null(p, "create: *out not NULL on failure");
  cr_expect(tu_contains(clg_last_error(), "memory"), "%s", clg_last_error());

  /* Bake: no compiler (an OpenCL error), then a compiler verdict. */
  clg_plan *plan = spec_plan(ctx, &s, 0);
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, 1000, CL_OUT_OF_RESOURCES);
  st = clg_plan_bake(plan);
  clg_fault_reset();
  cr_expect_eq(st, CLG_ERROR_OPENCL, "bake: %s: %s", clg_status_string(st),
               clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "clBuildProgram"), "%s",
            clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "CL_OUT_OF_RESOURCES"), "%s",
            clg_last_error());
  cr_expect_eq(ctx->builds, 0u);
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, 1000, CL_BUILD_PROGRAM_FAILURE);
  st = clg_plan_bake(plan);
  clg_fault_reset();
  cr_expect_eq(st, CLG_ERROR_BUILD_FAILED, "bake: %s: %s",
               clg_status_string(st), clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "build log"), "%s", clg_last_error());
  /* A failed bake is not remembered as done. */
  st = clg_plan_bake(plan);
  cr_expect_eq(st, CLG_SUCCESS, "bake after the faults: %s", clg_last_error());
  cr_expect_eq(ctx->builds, 2u);

  /* Enqueue (cl_mem indices and output: the validation kernel, the gated
   * gather, the verdict read after it): the validation's launch, which
   * fails the call before anything is written; the verdict's read, after
   * the gated gather was enqueued on valid indices (the output then holds
   * its old bytes or the result: tests/run/test_faults.c says why), and
   * a later call works. */
  job j;
  job_make(&j, &s, 3200, 0);
  clg_fault_inject(CLG_FAULT_ENQUEUE_KERNEL, 0, 1, CL_OUT_OF_RESOURCES);
  enqueue_fails("validation launch fails", plan, false, &j.d.desc, &j.x.desc,
                &j.o.desc, NULL, 0, NULL, CLG_ERROR_OPENCL,
                "clEnqueueNDRangeKernel", &j.o);
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_READ_BUFFER, 0, 1, CL_OUT_OF_RESOURCES);
  enqueue_fails("verdict read fails", plan, false, &j.d.desc, &j.x.desc,
                &j.o.desc, NULL, 0, NULL, CLG_ERROR_OPENCL,
                "clEnqueueReadBuffer", NULL);
  clg_fault_reset();
  tu_cl_check(clFinish(clg_context_queue(ctx)), "clFinish");
  plan_ok(plan, false, &j, NULL, "after the faults");
  job_free(&j);
  clg_plan_destroy(plan);

  /* Async: the verdict buffer (on a context that keeps none yet: this
   * one's calls above left one, which the enqueue takes), then reading
   * the verdict (which may be tried again). */
  clg_context_destroy(ctx);
  ctx = fresh_ctx();
  plan = spec_plan(ctx, &s, CLG_PLAN_ASYNC_CHECK);
  cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
  job_make(&j, &s, 3201, 0);
  clg_fault_inject(CLG_FAULT_CREATE_BUFFER, 0, 1,
                   CL_MEM_OBJECT_ALLOCATION_FAILURE);
  enqueue_fails("verdict buffer fails", plan, true, &j.d.desc, &j.x.desc,
                &j.o.desc, NULL, 0, NULL, CLG_ERROR_OPENCL, "clCreateBuffer",
                &j.o);
  clg_fault_reset();
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  cr_assert_eq(clg_plan_enqueue(plan, &j.d.desc, &j.x.desc, &j.o.desc, NULL, 0,
                                NULL, &ev, &oc),
               CLG_SUCCESS, "%s", clg_last_error());
  clg_fault_inject(CLG_FAULT_READ_BUFFER, 0, 1, CL_OUT_OF_RESOURCES);
  st = clg_outcome_wait(oc);
  clg_fault_reset();
  cr_expect_eq(st, CLG_ERROR_OPENCL, "outcome wait: %s: %s",
               clg_status_string(st), clg_last_error());
  cr_expect_eq(clg_outcome_wait(oc), CLG_SUCCESS, "the second wait: %s",
               clg_last_error());
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  char msg[1024];
  cr_expect(job_ok(&j, msg, sizeof msg), "%s", msg);
  clReleaseEvent(ev);
  clg_outcome_release(oc);
  job_free(&j);
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

/* Out-of-bounds indices: the same status and message as clg_run(), from
 * the call (sync plans, and async plans with host indices) or from the
 * outcome (async plans with cl_mem indices); the output unchanged. */
static void check_oob(clg_context *ctx, const spec *s, unsigned flags,
                      int64_t pos, bool neg, uint64_t seed) {
  bool async = (flags & CLG_PLAN_ASYNC_CHECK) != 0;
  bool from_outcome = async && s->st[1].kind == CLG_STORAGE_BUFFER &&
                      s->st[2].kind == CLG_STORAGE_BUFFER &&
                      s->p.mode == CLG_MODE_RAISE;
  clg_plan *plan = spec_plan(ctx, s, flags);
  job a, b;
  job_make_ex(&a, s, seed, 0, pos, neg);
  job_make_ex(&b, s, seed, 0, pos, neg);
  char want[2048], got[2048], why[256];
  clg_status st = run_oneshot(ctx, false, &b, want, sizeof want);
  cr_assert_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s: clg_run: %s: %s",
               s->name, clg_status_string(st), want);
  cr_expect(job_untouched(&b), "%s: clg_run wrote the output", s->name);
  cr_expect(tu_contains(want, "indices["), "%s", want);

  if (from_outcome) {
    cl_event ev = POISON_EVENT;
    clg_outcome *oc = POISON_OUTCOME;
    st = clg_plan_enqueue(plan, &a.d.desc, &a.x.desc, &a.o.desc, NULL, 0, NULL,
                          &ev, &oc);
    cr_assert_eq(st, CLG_SUCCESS, "%s: async enqueue: %s", s->name,
                 clg_last_error());
    cr_assert(ev != POISON_EVENT && ev != NULL && oc != POISON_OUTCOME &&
              oc != NULL);
    for (int k = 0; k < 2; ++k) { /* the same answer every time */
      st = clg_outcome_wait(oc);
      cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                   "%s: outcome wait %d: %s: %s", s->name, k,
                   clg_status_string(st), clg_last_error());
      cr_expect_str_eq(clg_last_error(), want, "%s: outcome wait %d", s->name,
                       k);
    }
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    clg_outcome_release(oc);
  } else {
    st = run_plan(plan, async, &a, NULL, got, sizeof got, why, sizeof why);
    cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s%s: %s: %s", s->name,
                 async ? " (async)" : "", clg_status_string(st), got);
    cr_expect(why[0] == '\0', "%s: %s", s->name, why);
    cr_expect_str_eq(got, want,
                     "%s%s: the plan's message differs from "
                     "clg_run's",
                     s->name, async ? " (async)" : "");
  }
  cr_expect(job_untouched(&a), "%s%s: the output was written", s->name,
            async ? " (async)" : "");
  job_free(&a);
  job_free(&b);
  clg_plan_destroy(plan);
}

Test(plans, out_of_bounds) {
  clg_context *ctx = fresh_ctx();
  spec sg = s_gather_buf(), se = s_elements_buf(), sn = s_nd_buf(),
       sh = s_gather_host(), snh = s_nd_host(), sbd = s_gather_bd(),
       sbig = s_gather_big(), sho = s_gather_host_out();
  for (unsigned f = 0; f <= CLG_PLAN_ASYNC_CHECK; ++f) {
    check_oob(ctx, &sg, f, 7, false, 4000);
    check_oob(ctx, &sg, f, 0, true, 4001);
    check_oob(ctx, &se, f, 41, false, 4002);
    check_oob(ctx, &sn, f, 13, true, 4003); /* second component */
    check_oob(ctx, &sn, f, 40, false, 4004);
    check_oob(ctx, &sh, f, 9, false, 4005);
    check_oob(ctx, &snh, f, 3, true, 4006);
    check_oob(ctx, &sbd, f, 17, false, 4007);
    check_oob(ctx, &sbig, f, 5000, false, 4008); /* device validation */
    check_oob(ctx, &sho, f, 2, true, 4009);
  }
  clg_context_destroy(ctx);
}

/* An empty axis in modes WRAP and CLIP: an error in every plan, from the
 * call itself (no value is read). */
Test(plans, empty_axis_wrap_clip) {
  clg_context *ctx = fresh_ctx();
  for (int mode = CLG_MODE_WRAP; mode <= CLG_MODE_CLIP; ++mode)
    for (unsigned f = 0; f <= CLG_PLAN_ASYNC_CHECK; ++f) {
      spec s = mkspec("gather f32 [0,3], int32 [4], buffers", CLG_OP_GATHER, 0,
                      0, (clg_index_mode)mode, CLG_DTYPE_FLOAT, 2, D(0, 3),
                      CLG_DTYPE_INT32, 1, D(4), B(0), B(0), B(0));
      clg_plan *plan = spec_plan(ctx, &s, f);
      tu_tensor td, tx, to;
      int32_t idx[4] = {0, 1, 2, 3};
      const int64_t os[2] = {4, 3};
      tu_tensor_init(&td, CLG_DTYPE_FLOAT, 2, s.ds, B(0), NULL);
      tu_tensor_init(&tx, CLG_DTYPE_INT32, 1, s.is, B(0), idx);
      tu_tensor_init(&to, CLG_DTYPE_FLOAT, 2, os, B(0), NULL);
      enqueue_fails(mode == CLG_MODE_WRAP ? "empty axis, wrap"
                                          : "empty axis, clip",
                    plan, f != 0, &td.desc, &tx.desc, &to.desc, NULL, 0, NULL,
                    CLG_ERROR_INDEX_OUT_OF_BOUNDS, "size 0", &to);
      tu_tensor_free(&td);
      tu_tensor_free(&tx);
      tu_tensor_free(&to);
      clg_plan_destroy(plan);
    }
  clg_context_destroy(ctx);
}
