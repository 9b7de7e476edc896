/*
 * host/device/enqueue.c's waits and scratch buffers, through the calls
 * that use them:
 *  - reads of a few index bytes, and verdicts of few indices, waited for
 *    one of two ways on a CPU device (blocking, or polled), each way taken
 *    by these calls: results byte for byte against the reference, errors
 *    with the output unchanged;
 *  - the scatters' index-pass scratch buffers, kept by the context after a
 *    synchronous call and taken again by the next, none kept after an
 *    asynchronous one, results against the reference throughout.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_scatter.h"
#include "support/testutil.h"

#include "internal.h" /* clg_context::scratch */

#define OOB CLG_ERROR_INDEX_OUT_OF_BOUNDS

/* Reads of few index bytes and verdicts of few indices are waited for one
 * of two ways on a CPU device (blocking, or polled: device/enqueue.c), the
 * way chosen by their measured times and the other taken one read in
 * eight, so that these calls take both. The indices change before every
 * call (a write enqueued just before it): a read that returned before its
 * data, or before the write, gives a wrong result or a wrong verdict. */
Test(enqueue, brief_reads_either_way) {
  int64_t ds[2] = {6, 2}, is[1] = {5}, os[2] = {5, 2};
  float data[12], want[10], got[10], before[10];
  for (int k = 0; k < 12; ++k)
    data[k] = (float)(k * 5 + 1);
  cl_mem dm = tu_buffer_create(sizeof data, data);
  int64_t idx[5] = {0};
  cl_mem xm = tu_buffer_create(sizeof idx, idx);
  memset(got, 0, sizeof got);
  cl_mem om = tu_buffer_create(sizeof got, got);
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, dm, 0);
  clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, xm, 0);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, om, 0);
  clg_context *ctx = tu_ctx();
  cl_command_queue q = tu_queue();
  const char *ways[2] = {"never", "always"}; /* read-back, device */
  for (int w = 0; w < 2; ++w) {
    setenv("CLGATHER_TEST_DEVICE_VALIDATION", ways[w], 1);
    for (int call = 0; call < 24; ++call) {
      bool bad = call % 5 == 3;
      for (int j = 0; j < 5; ++j)
        idx[j] = (int64_t)((call * 7 + j * 5) % 12) - 6; /* in [-6, 5] */
      if (bad)
        idx[(size_t)call % 5] = call % 2 ? 6 : -7;
      tu_buffer_read(om, 0, sizeof before, before);
      tu_cl_check(clEnqueueWriteBuffer(q, xm, CL_FALSE, 0, sizeof idx, idx, 0,
                                       NULL, NULL),
                  "clEnqueueWriteBuffer");
      clg_status st = clg_gather(ctx, &d, &x, 0, &o, q, 0, NULL, NULL);
      tu_cl_check(clFinish(q), "clFinish");
      tu_buffer_read(om, 0, sizeof got, got);
      if (bad) {
        char pos[32];
        snprintf(pos, sizeof pos, "indices[%d]", call % 5);
        cr_expect(st == OOB && tu_contains(clg_last_error(), pos),
                  "%s, call %d: %s", ways[w], call, clg_last_error());
        cr_expect(memcmp(got, before, sizeof got) == 0,
                  "%s, call %d: the output changed", ways[w], call);
        continue;
      }
      cr_assert(ref_gather(data, 4, 2, ds, idx, REF_INDEX_I64, 1, is, 0,
                           want) == 0);
      cr_expect_eq(st, CLG_SUCCESS, "%s, call %d: %s", ways[w], call,
                   clg_last_error());
      cr_expect(memcmp(got, want, sizeof want) == 0,
                "%s, call %d: wrong result", ways[w], call);
    }
  }
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  clReleaseMemObject(dm);
  clReleaseMemObject(xm);
  clReleaseMemObject(om);
}

/* The kept scratch buffers of a context: how many, into `mem`. */
static int kept(clg_context *ctx, cl_mem *mem) {
  int n = 0;
  for (int i = 0; i < CLG_SCRATCH_SLOTS; ++i)
    if (ctx->scratch[i])
      mem[n++] = ctx->scratch[i];
  return n;
}

static bool same_set(const cl_mem *a, int na, const cl_mem *b, int nb) {
  if (na != nb)
    return false;
  for (int i = 0; i < na; ++i) {
    bool found = false;
    for (int j = 0; j < nb; ++j)
      found = found || a[i] == b[j];
    if (!found)
      return false;
  }
  return true;
}

/* The device index pass's scratch buffers (device/enqueue.h): after a
 * synchronous call, which waited for its last kernel, the context keeps
 * them and the next call takes them again (the same buffers); an
 * asynchronous call takes them too and gives them back with its last
 * kernel's event: held back by an event of the caller's, its kernels have
 * not run when a synchronous call on another queue comes, which then makes
 * buffers of its own and leaves those alone. ScatterND add: targets,
 * entries and the sort's three buffers. */
Test(enqueue, scratch_buffers_kept_between_calls) {
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create(tu_cl_context(), tu_device(), &ctx),
               CLG_SUCCESS, "%s", clg_last_error());
  int64_t ds[2] = {300, 4}, is[2] = {500, 1}, us[2] = {500, 4};
  float data[1200], upd[2000], want[1200], got[1200];
  int64_t idx[500];
  tu_rng rng = tu_rng_make(21);
  for (int i = 0; i < 1200; ++i)
    data[i] = (float)tu_rng_range(&rng, -1000, 1000) / 7.0f;
  for (int i = 0; i < 2000; ++i)
    upd[i] = (float)tu_rng_range(&rng, -1000, 1000) / 3.0f;
  for (int i = 0; i < 500; ++i)
    idx[i] = tu_rng_range(&rng, -300, 299);
  memcpy(want, data, sizeof want);
  int64_t bad = -1, first = -1;
  cr_assert_eq(ref_scatter_nd(want, CLG_DTYPE_FLOAT, 2, ds, idx, REF_INDEX_I64,
                              2, is, upd, REF_RED_ADD, 0, &bad, &first),
               REF_OK);
  clg_params p = {CLG_OP_SCATTER_ND, 0, 0, CLG_MODE_RAISE};
  clg_scatter_params sp = {CLG_REDUCTION_ADD, CLG_DUPLICATES_ERROR};
  tu_storage buf = {CLG_STORAGE_BUFFER, 16, false, false};
  cl_mem first_set[CLG_SCRATCH_SLOTS], now[CLG_SCRATCH_SLOTS];
  int nfirst = 0;
  for (int k = 0; k < 4; ++k) { /* sync, sync, async, sync */
    bool async = k == 2;
    tu_tensor td, tx, tu;
    tu_tensor_init(&td, CLG_DTYPE_FLOAT, 2, ds, buf, data);
    tu_tensor_init(&tx, CLG_DTYPE_INT64, 2, is, buf, idx);
    tu_tensor_init(&tu, CLG_DTYPE_FLOAT, 2, us, buf, upd);
    clg_status st;
    if (async) {
      clg_outcome *oc = NULL;
      cl_event ev = NULL;
      cl_int err = CL_SUCCESS;
      cl_event hold = clCreateUserEvent(tu_cl_context(), &err);
      tu_cl_check(err, "clCreateUserEvent");
      st = clg_scatter_async(ctx, &p, &sp, &td.desc, &tx.desc, &tu.desc,
                             &td.desc, NULL, 1, &hold, &ev, &oc);
      cr_assert_eq(st, CLG_SUCCESS, "%s", clg_last_error());
      int n = kept(ctx, now); /* its kernels wait for `hold` */
      cr_expect(same_set(first_set, nfirst, now, n),
                "the asynchronous call did not take and give back the kept "
                "buffers (%d kept)", n);
      for (int i = 0; i < CLG_SCRATCH_SLOTS; ++i)
        cr_expect(!ctx->scratch[i] || ctx->scratch_busy[i],
                  "a buffer the held call uses was given back as idle");
      /* A synchronous call meanwhile, on another queue: its own buffers. */
      tu_tensor sd, sx, su;
      tu_tensor_init(&sd, CLG_DTYPE_FLOAT, 2, ds, buf, data);
      tu_tensor_init(&sx, CLG_DTYPE_INT64, 2, is, buf, idx);
      tu_tensor_init(&su, CLG_DTYPE_FLOAT, 2, us, buf, upd);
      cr_expect_eq(clg_scatter(ctx, &p, &sp, &sd.desc, &sx.desc, &su.desc,
                               &sd.desc, tu_queue(), 0, NULL, NULL),
                   CLG_SUCCESS, "%s", clg_last_error());
      tu_tensor_read(&sd, got);
      cr_expect_eq(tu_first_diff(got, want, sizeof want), -1,
                   "the call beside the held one differs from the "
                   "reference");
      tu_tensor_free(&sd);
      tu_tensor_free(&sx);
      tu_tensor_free(&su);
      int held = 0;
      for (int i = 0; i < nfirst; ++i)
        for (int j = 0; j < CLG_SCRATCH_SLOTS; ++j)
          held += ctx->scratch[j] == first_set[i];
      cr_expect_eq(held, nfirst, "the call beside took %d of the held "
                   "call's buffers", nfirst - held);
      tu_cl_check(clSetUserEventStatus(hold, CL_COMPLETE),
                  "clSetUserEventStatus");
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
      clReleaseEvent(hold);
      st = clg_outcome_wait(oc);
      clg_outcome_release(oc);
    } else
      st = clg_scatter(ctx, &p, &sp, &td.desc, &tx.desc, &tu.desc, &td.desc,
                       NULL, 0, NULL, NULL);
    cr_expect_eq(st, CLG_SUCCESS, "call %d: %s", k, clg_last_error());
    tu_tensor_read(&td, got);
    cr_expect_eq(tu_first_diff(got, want, sizeof want), -1,
                 "call %d: the result differs from the reference", k);
    tu_tensor_free(&td);
    tu_tensor_free(&tx);
    tu_tensor_free(&tu);
    if (async)
      continue;
    /* the last: the held call's five, and three of the call beside's (the
     * context keeps CLG_SCRATCH_SLOTS) */
    int n = kept(ctx, now);
    cr_expect_eq(n, k < 2 ? 5 : CLG_SCRATCH_SLOTS, "call %d left %d buffers "
                 "kept", k, n);
    if (k == 0) {
      nfirst = n;
      memcpy(first_set, now, sizeof first_set);
    } else if (k == 1)
      cr_expect(same_set(first_set, nfirst, now, n),
                "the second call did not take the kept buffers");
  }
  clg_context_destroy(ctx);
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
}
