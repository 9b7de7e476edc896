/*
 * clg_run_sharded()'s wait list (nothing runs before it; the indices are
 * read after it), and both devices at work: device 0's part completes
 * while device 1's queue is held. Part of test_shard (run/test_shard.c
 * says what the suite covers and where each part is).
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "run/shard_fx.h"

/* ---------------------------------------------------- wait list, devices */

static cl_int status_of(cl_event ev) {
  cl_int s = CL_QUEUED;
  tu_cl_check(
      clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL),
      "clGetEventInfo");
  return s;
}

/* Mode WRAP, all cl_mem (the call only enqueues): data is written by a
 * command gated on a user event, which the sharded call's wait list names.
 * Nothing may run before the user event completes; then all is right. */
Test(shard, wait_list_enqueue_only) {
  static const int64_t dshape[2] = {5, 3}, ishape[1] = {1001},
                       oshape[2] = {1001, 3};
  static const clg_params p = {CLG_OP_GATHER, 0, 0, CLG_MODE_WRAP};
  float data[15], *want = malloc(1001 * 3 * sizeof *want);
  int64_t *idx = malloc(1001 * sizeof *idx);
  cr_assert(want && idx);
  tu_rng rng = tu_rng_make(600);
  tu_rng_bytes(&rng, data, sizeof data);
  tu_fill_indices(&rng, idx, CLG_DTYPE_INT64, 1001, 5, TU_IDX_WILD);
  int32_t orank;
  int64_t os[8];
  cr_assert(ref_gather_ex(data, 4, 2, dshape, idx, REF_INDEX_I64, 1, ishape, 0,
                          0, REF_WRAP, want, &orank, os) == 0);
  sh_tensor td, ti, to;
  const float zeros[15] = {0}; /* until the gated write */
  sh_init(&td, CLG_DTYPE_FLOAT, 2, dshape, true, 8, zeros);
  sh_init(&ti, CLG_DTYPE_INT64, 1, ishape, true, 16, idx);
  sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, true, g_align, NULL);
  cl_int err = CL_SUCCESS;
  cl_event user = clCreateUserEvent(g_cl, &err);
  tu_cl_check(err, "clCreateUserEvent");
  cl_event written = NULL;
  tu_cl_check(clEnqueueWriteBuffer(g_io, td.buf, CL_FALSE, td.offset,
                                   sizeof data, data, 1, &user, &written),
              "clEnqueueWriteBuffer");
  tu_cl_check(clFlush(g_io), "clFlush");

  cl_event ev = NULL;
  clg_status st = clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc, &to.desc,
                                  NULL, 1, &written, &ev);
  cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
  cr_assert(ev != NULL, "no event");
  sleep_ms(100);
  cr_expect(status_of(ev) != CL_COMPLETE,
            "the event completed before the wait list");
  /* Through a queue of its own (g_io waits behind the write): a shard run
   * early would have written gathered zeros. */
  cl_command_queue look = new_queue(g_cl, g_dev[1]);
  unsigned char *early = malloc(to.total);
  cr_assert(early != NULL);
  tu_cl_check(clEnqueueReadBuffer(look, to.buf, CL_TRUE, 0, to.total, early, 0,
                                  NULL, NULL),
              "clEnqueueReadBuffer");
  bool untouched = true;
  for (size_t b = 0; b < to.total; ++b)
    untouched &= early[b] == TU_SENTINEL;
  cr_expect(untouched, "the output was written before the wait list");
  free(early);
  clReleaseCommandQueue(look);
  tu_cl_check(clSetUserEventStatus(user, CL_COMPLETE), "clSetUserEventStatus");
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  cr_expect(status_of(written) == CL_COMPLETE,
            "the event completed before the wait list's event");
  char why[256];
  cr_expect(sh_holds(&to, (const unsigned char *)want, why, sizeof why), "%s",
            why);
  clReleaseEvent(ev);
  clReleaseEvent(written);
  clReleaseEvent(user);
  sh_free(&td);
  sh_free(&ti);
  sh_free(&to);
  free(want);
  free(idx);
}

typedef struct completer {
  cl_event user;
  long ms;
} completer;

static void *complete_later(void *arg) {
  completer *c = arg;
  sleep_ms(c->ms);
  clSetUserEventStatus(c->user, CL_COMPLETE);
  return NULL;
}

/* Mode RAISE, cl_mem indices (the call validates them, blocking): the
 * indices hold out-of-bounds garbage until a command gated on a user event
 * writes the real ones; another thread completes the user event. The call
 * must read the indices after its wait list: success and the right output.
 * Small indices (read back) and large ones (checked on the device). */
Test(shard, wait_list_validation) {
  static const clg_params p = {CLG_OP_GATHER, 1, 0, CLG_MODE_RAISE};
  for (int large = 0; large < 2; ++large) {
    int64_t n = large ? 10000 : 9;
    int64_t dshape[2] = {7, 6}, ishape[1] = {n}, oshape[2] = {7, n};
    float data[42];
    int32_t *idx = malloc((size_t)n * sizeof *idx),
            *junk = malloc((size_t)n * sizeof *junk);
    float *want = malloc((size_t)(7 * n) * sizeof *want);
    cr_assert(idx && junk && want);
    tu_rng rng = tu_rng_make(700 + (uint64_t)large);
    tu_rng_bytes(&rng, data, sizeof data);
    tu_fill_indices(&rng, idx, CLG_DTYPE_INT32, n, 6, TU_IDX_ANY);
    for (int64_t k = 0; k < n; ++k)
      junk[k] = 1000 + (int32_t)k;
    int32_t orank;
    int64_t os[8];
    cr_assert(ref_gather_ex(data, 4, 2, dshape, idx, REF_INDEX_I32, 1, ishape,
                            1, 0, REF_RAISE, want, &orank, os) == 0);
    sh_tensor td, ti, to;
    sh_init(&td, CLG_DTYPE_FLOAT, 2, dshape, true, 0, data);
    sh_init(&ti, CLG_DTYPE_INT32, 1, ishape, true, 4, junk);
    sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, true, 0, NULL);
    cl_int err = CL_SUCCESS;
    completer c = {clCreateUserEvent(g_cl, &err), 150};
    tu_cl_check(err, "clCreateUserEvent");
    cl_event written = NULL;
    tu_cl_check(clEnqueueWriteBuffer(g_io, ti.buf, CL_FALSE, ti.offset,
                                     (size_t)n * sizeof *idx, idx, 1, &c.user,
                                     &written),
                "clEnqueueWriteBuffer");
    tu_cl_check(clFlush(g_io), "clFlush");
    pthread_t th;
    cr_assert(pthread_create(&th, NULL, complete_later, &c) == 0);
    cl_event ev = NULL;
    clg_status st = clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc, &to.desc,
                                    NULL, 1, &written, &ev);
    pthread_join(th, NULL);
    cr_expect(st == CLG_SUCCESS, "%s indices: %s", large ? "large" : "small",
              clg_last_error());
    if (st == CLG_SUCCESS) {
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
      char why[256];
      cr_expect(sh_holds(&to, (const unsigned char *)want, why, sizeof why),
                "%s indices: %s", large ? "large" : "small", why);
    }
    tu_cl_check(clFinish(g_io), "clFinish");
    clReleaseEvent(written);
    clReleaseEvent(c.user);
    sh_free(&td);
    sh_free(&ti);
    sh_free(&to);
    free(idx);
    free(junk);
    free(want);
  }
}

/* Both devices run a part. The test's queue of device 1 is held behind a
 * barrier on a user event before the call; device 0's part must complete
 * regardless (a proper, non-empty prefix of the rows written, the rest
 * untouched), device 1's only after the user event; so if one device did
 * all the work, one of the two checks fails. Then the same with an event:
 * it must not complete while device 1 is held. */
Test(shard, both_devices_work) {
  static const int64_t dshape[2] = {9, 4}, ishape[1] = {1001},
                       oshape[2] = {1001, 4};
  static const clg_params p = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  const size_t row = 4 * sizeof(float), bytes = 1001 * row;
  float data[36];
  int32_t idx[1001];
  unsigned char *want = malloc(bytes), *got = malloc(bytes);
  cr_assert(want && got);
  tu_rng rng = tu_rng_make(800);
  tu_rng_bytes(&rng, data, sizeof data);
  tu_fill_indices(&rng, idx, CLG_DTYPE_INT32, 1001, 9, TU_IDX_ANY);
  int32_t orank;
  int64_t os[8];
  cr_assert(ref_gather_ex(data, 4, 2, dshape, idx, REF_INDEX_I32, 1, ishape, 0,
                          0, REF_RAISE, want, &orank, os) == 0);
  sh_tensor td, ti;
  sh_init(&td, CLG_DTYPE_FLOAT, 2, dshape, true, 0, data);
  sh_init(&ti, CLG_DTYPE_INT32, 1, ishape, true, 0, idx);
  cl_command_queue qs[2] = {new_queue(g_cl, g_dev[0]),
                            new_queue(g_cl, g_dev[1])};
  for (int with_event = 0; with_event < 2; ++with_event) {
    sh_tensor to;
    sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, true, 0, NULL);
    cl_int err = CL_SUCCESS;
    cl_event user = clCreateUserEvent(g_cl, &err);
    tu_cl_check(err, "clCreateUserEvent");
    tu_cl_check(clEnqueueBarrierWithWaitList(qs[1], 1, &user, NULL),
                "clEnqueueBarrierWithWaitList");
    tu_cl_check(clFlush(qs[1]), "clFlush");
    cl_event ev = NULL;
    clg_status st = clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc, &to.desc,
                                    qs, 0, NULL, with_event ? &ev : NULL);
    if (st != CLG_SUCCESS) {
      clSetUserEventStatus(user, CL_COMPLETE);
      cr_assert(false, "%s", clg_last_error());
    }
    if (with_event) {
      sleep_ms(100);
      cr_expect(status_of(ev) != CL_COMPLETE,
                "the event completed while device 1 was held");
    } else {
      /* qs[0] holds device 0's part only: wait for it, then look. */
      tu_cl_check(clFinish(qs[0]), "clFinish");
      sleep_ms(50); /* device 1's part, were it not held, would show */
      tu_cl_check(clEnqueueReadBuffer(g_io, to.buf, CL_TRUE, 0, bytes, got, 0,
                                      NULL, NULL),
                  "clEnqueueReadBuffer");
      size_t done_rows = 0;
      while (done_rows < 1001 &&
             memcmp(got + done_rows * row, want + done_rows * row, row) == 0)
        ++done_rows;
      bool rest_untouched = true;
      for (size_t b = done_rows * row; b < bytes; ++b)
        rest_untouched &= got[b] == TU_SENTINEL;
      cr_expect(done_rows > 0, "device 0 wrote no row");
      cr_expect(done_rows < 1001, "device 0 wrote every row");
      cr_expect(rest_untouched,
                "rows after device 0's %zu were written while device 1 "
                "was held",
                done_rows);
      cr_log_info("device 0 wrote rows [0, %zu) of 1001", done_rows);
    }
    tu_cl_check(clSetUserEventStatus(user, CL_COMPLETE),
                "clSetUserEventStatus");
    if (with_event) {
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
    }
    tu_cl_check(clFinish(qs[1]), "clFinish");
    tu_cl_check(clFinish(qs[0]), "clFinish");
    char why[256];
    cr_expect(sh_holds(&to, want, why, sizeof why), "%s", why);
    clReleaseEvent(user);
    sh_free(&to);
  }
  clReleaseCommandQueue(qs[0]);
  clReleaseCommandQueue(qs[1]);
  sh_free(&td);
  sh_free(&ti);
  free(want);
  free(got);
}
