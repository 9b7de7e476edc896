/*
 * OpenCL failures injected at every call of clg_run_sharded() (faults.h):
 * the call fails cleanly or is tolerated with the right output; a failure
 * after parts were enqueued returns only once they are done. Part of
 * test_shard (run/test_shard.c says what the suite covers and where each
 * part is).
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/shard_fx.h"

#include "core/faults.h" /* test builds: OpenCL fault injection */

/* ------------------------------------------------------------- faults */

/* 70 rows of 12 bytes: enough for two parts whatever the rounding of the
 * split for sub-buffers (up to 32 rows with 128-byte alignment). */
#define FAULT_ROWS 70

static void fault_indices(int32_t *idx) {
  static const int32_t pattern[7] = {0, 4, -1, 2, -5, 3, 1};
  for (int k = 0; k < FAULT_ROWS; ++k)
    idx[k] = pattern[k % 7];
}

/* Every OpenCL call (and host allocation) of a sharded call made to fail in
 * turn, all cl_mem (mode WRAP: enqueue only; the output at an aligned
 * offset, written through sub-buffers) and all host (mode RAISE): either
 * the call fails with no event, or it succeeds (a failed query of compute
 * units only makes the split equal; one of the base alignment or of a
 * buffer's parent runs the call on device 0) with the right output; after
 * a failure nothing of the call is still running and the next call
 * works. */
Test(shard, faults) {
  static const int64_t dshape[2] = {5, 3}, ishape[1] = {FAULT_ROWS},
                       oshape[2] = {FAULT_ROWS, 3};
  int32_t idx[FAULT_ROWS];
  fault_indices(idx);
  float data[15], want[FAULT_ROWS * 3];
  for (int k = 0; k < 15; ++k)
    data[k] = (float)k;
  cr_assert(ref_gather(data, 4, 2, dshape, idx, REF_INDEX_I32, 1, ishape, 0,
                       want) == 0);
  int failed = 0, tolerated = 0;
  unsigned long sub_buffer_faults = 0;
  for (int buf = 0; buf < 2; ++buf) {
    clg_params p = {CLG_OP_GATHER, 0, 0, buf ? CLG_MODE_WRAP : CLG_MODE_RAISE};
    sh_tensor td, ti;
    sh_init(&td, CLG_DTYPE_FLOAT, 2, dshape, buf, 4, data);
    sh_init(&ti, CLG_DTYPE_INT32, 1, ishape, buf, 8, idx);
    for (int k = 0; k < CLG_FAULT_COUNT; ++k) {
      /* Count the calls of kind k of one (warm) sharded call. */
      unsigned long calls = 0;
      for (int pass = 0; pass < 2; ++pass) {
        sh_tensor to;
        sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, buf, g_align, NULL);
        clg_fault_reset();
        cl_event ev = NULL;
        cr_assert(clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc, &to.desc,
                                  NULL, 0, NULL, &ev) == CLG_SUCCESS,
                  "%s", clg_last_error());
        calls = clg_fault_calls((clg_fault)k);
        if (k == CLG_FAULT_CREATE_SUB_BUFFER && pass == 1)
          sub_buffer_faults += calls;
        tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
        clReleaseEvent(ev);
        sh_free(&to);
      }
      for (unsigned long pos = 0; pos < calls; ++pos) {
        sh_tensor to;
        sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, buf, g_align, NULL);
        clg_fault_reset();
        clg_fault_inject((clg_fault)k, (unsigned)pos, 1, CL_OUT_OF_RESOURCES);
        cl_event ev = NULL;
        clg_status st = clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc,
                                        &to.desc, NULL, 0, NULL, &ev);
        char what[160], why[256];
        snprintf(what, sizeof what, "%s tensors, %s call %lu of %lu",
                 buf ? "cl_mem" : "host", clg_fault_call_name((clg_fault)k),
                 pos + 1, calls);
        clg_fault_reset();
        if (st == CLG_SUCCESS) {
          ++tolerated;
          cr_expect(ev != NULL, "%s: success but no event", what);
          if (ev) {
            tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
            clReleaseEvent(ev);
          }
          cr_expect(sh_holds(&to, (const unsigned char *)want, why, sizeof why),
                    "%s: tolerated, but %s", what, why);
        } else {
          ++failed;
          cr_expect(ev == NULL, "%s: an event after %s", what,
                    clg_status_string(st));
          cr_expect(clg_last_error()[0] != '\0', "%s: no message", what);
          /* Nothing still runs: two reads of the output agree with a
           * read after both queues are finished. */
          unsigned char *a = malloc(to.total), *b = malloc(to.total);
          cr_assert(a && b);
          sh_read_all(&to, a);
          for (int q = 0; q < 2; ++q)
            tu_cl_check(clFinish(clg_context_queue(g_ctx[q])), "clFinish");
          sh_read_all(&to, b);
          cr_expect(memcmp(a, b, to.total) == 0,
                    "%s: the output changed after the call failed", what);
          free(a);
          free(b);
        }
        sh_free(&to);
      }
    }
    sh_free(&td);
    sh_free(&ti);
  }
  cr_log_info("faults: %d failed cleanly, %d tolerated", failed, tolerated);
  cr_expect(failed > 0, "no fault made a sharded call fail");
  cr_expect(sub_buffer_faults > 0, "no clCreateSubBuffer call was reached");
}

typedef struct flagged_completer {
  cl_event user;
  atomic_int done;
} flagged_completer;

static void *complete_flagged(void *arg) {
  flagged_completer *c = arg;
  sleep_ms(200);
  atomic_store(&c->done, 1);
  clSetUserEventStatus(c->user, CL_COMPLETE);
  return NULL;
}

/* A failure after a part was enqueued (the second part's sub-buffer or
 * kernel, or the marker joining the parts): the call returns only when the
 * enqueued parts are done. The parts wait for a user event that another
 * thread completes after 200 ms; the call must not return before. */
Test(shard, failure_waits_for_enqueued_parts) {
  static const int64_t dshape[2] = {5, 3}, ishape[1] = {FAULT_ROWS},
                       oshape[2] = {FAULT_ROWS, 3};
  static const clg_params p = {CLG_OP_GATHER, 0, 0, CLG_MODE_WRAP};
  static const struct {
    clg_fault kind;
    unsigned skip;
  } faults[] = {{CLG_FAULT_CREATE_SUB_BUFFER, 1},
                {CLG_FAULT_ENQUEUE_KERNEL, 1},
                {CLG_FAULT_MARKER, 0}};
  int32_t idx[FAULT_ROWS];
  fault_indices(idx);
  float data[15] = {0};
  sh_tensor td, ti;
  sh_init(&td, CLG_DTYPE_FLOAT, 2, dshape, true, 0, data);
  sh_init(&ti, CLG_DTYPE_INT32, 1, ishape, true, 0, idx);
  for (size_t k = 0; k < sizeof faults / sizeof faults[0]; ++k) {
    sh_tensor to;
    sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, true, 0, NULL);
    cl_int err = CL_SUCCESS;
    flagged_completer c;
    c.user = clCreateUserEvent(g_cl, &err);
    atomic_init(&c.done, 0);
    tu_cl_check(err, "clCreateUserEvent");
    pthread_t th;
    cr_assert(pthread_create(&th, NULL, complete_flagged, &c) == 0);
    clg_fault_reset();
    clg_fault_inject(faults[k].kind, faults[k].skip, 1, CL_OUT_OF_RESOURCES);
    cl_event ev = NULL;
    clg_status st = clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc, &to.desc,
                                    NULL, 1, &c.user, &ev);
    int waited = atomic_load(&c.done);
    unsigned long hit = clg_fault_calls(faults[k].kind);
    clg_fault_reset();
    pthread_join(th, NULL);
    const char *name = clg_fault_call_name(faults[k].kind);
    cr_expect(hit > faults[k].skip, "%s: the fault was not reached", name);
    cr_expect(st == CLG_ERROR_OPENCL && ev == NULL, "%s: got %s, event %p",
              name, clg_status_string(st), (void *)ev);
    cr_expect(waited, "%s: returned before the enqueued part could run", name);
    for (int q = 0; q < 2; ++q)
      tu_cl_check(clFinish(clg_context_queue(g_ctx[q])), "clFinish");
    clReleaseEvent(c.user);
    sh_free(&to);
  }
  sh_free(&td);
  sh_free(&ti);
}
