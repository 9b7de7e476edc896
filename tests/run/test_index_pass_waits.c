/*
 * The index pass's device validation and its waits (part of test_index_pass;
 * run/test_index_pass.c has its messages against the host's): the
 * validation waits for the caller's wait list (in-order and out-of-order
 * queues) and turns a failed event in it into an error, clg_run() through
 * the device path gathers correctly, and the synchronous check keeps its
 * verdict buffer in the context between calls.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/testutil.h"

#define CLG_FAULTS_IMPL
#include "core/faults.h"
#include "internal.h" /* clg_context::device_validations */

static float g_dummy;

#define OOB CLG_ERROR_INDEX_OUT_OF_BOUNDS
#define G(axis, bd)                                                            \
  { CLG_OP_GATHER, axis, bd, CLG_MODE_RAISE }

typedef struct release_arg {
  cl_event ev;
} release_arg;

static void *release_later(void *p) {
  struct timespec t = {0, 100 * 1000 * 1000};
  nanosleep(&t, NULL);
  clSetUserEventStatus(((release_arg *)p)->ev, CL_COMPLETE);
  return NULL;
}

/* The indices become bad only by a write that waits for a user event,
 * released by another thread 100 ms later; the validation (given the write's
 * event) must see the bad value. */
static void wait_list_case(const char *path, bool out_of_order) {
  cl_context cc = tu_cl_context();
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(
      cc, tu_device(),
      out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &err);
  if (!q && out_of_order) {
    cr_log_info("no out-of-order queue on this device: skipped");
    return;
  }
  tu_cl_check(err, "clCreateCommandQueue");
  int64_t good[6] = {0, 1, 2, 3, 4, 0}, bad = 7;
  cl_mem m = tu_buffer_create(sizeof good, good);
  cl_event user = clCreateUserEvent(cc, &err);
  tu_cl_check(err, "clCreateUserEvent");
  cl_event wrote = NULL;
  tu_cl_check(
      clEnqueueWriteBuffer(q, m, CL_FALSE, 4 * 8, 8, &bad, 1, &user, &wrote),
      "clEnqueueWriteBuffer");
  tu_cl_check(clFlush(q), "clFlush");
  release_arg ra = {user};
  pthread_t th;
  cr_assert(pthread_create(&th, NULL, release_later, &ra) == 0);
  int64_t ds[2] = {5, 3}, is[1] = {6};
  clg_tensor data = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, &g_dummy);
  clg_tensor idx = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, m, 0);
  clg_params p = G(0, 0);
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", path, 1);
  clg_status st = clg_validate(tu_ctx(), &p, &data, &idx, q, 1, &wrote);
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  pthread_join(th, NULL);
  cr_expect(st == OOB && tu_contains(clg_last_error(), "indices[4]") &&
                tu_contains(clg_last_error(), "= 7"),
            "[%s%s] the validation did not wait for the wait list: %s", path,
            out_of_order ? ", out-of-order queue" : "", clg_last_error());
  tu_cl_check(clFinish(q), "clFinish");
  clReleaseEvent(wrote);
  clReleaseEvent(user);
  clReleaseMemObject(m);
  clReleaseCommandQueue(q);
}

Test(index_pass, waits_for_the_wait_list) {
  wait_list_case("always", false);
  wait_list_case("always", true);
  wait_list_case("never", false);
  wait_list_case("never", true);
}

/* Fail a user event after a delay (another thread). */
static void *fail_later(void *arg) {
  struct timespec t = {0, 100 * 1000 * 1000};
  nanosleep(&t, NULL);
  clSetUserEventStatus((cl_event)arg, -1);
  return NULL;
}

/* A failed event in the wait list, failed before the call or while it
 * waits: both paths report CLG_ERROR_OPENCL and return (a command waiting
 * for a failed event may never complete on POCL), and nothing is written.
 * Run under a timeout: a hang fails. */
static void failed_wait_list_case(const char *path, bool later) {
  enum { N = 8192 }; /* 64 KiB of indices: the device path by default */
  int64_t ds[1] = {4}, is[1] = {N}, os[1] = {N};
  float data[4] = {1, 2, 3, 4};
  static int64_t idx[N];
  static float got[N], now[N];
  memset(got, 0xCD, sizeof got);
  cl_mem dm = tu_buffer_create(sizeof data, data);
  cl_mem xm = tu_buffer_create(sizeof idx, idx);
  cl_mem om = tu_buffer_create(sizeof got, got);
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 1, ds, dm, 0);
  clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, xm, 0);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 1, os, om, 0);
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", path, 1);
  clg_status st[2];
  char msg[2][512];
  cl_event ev = NULL;
  for (int k = 0; k < 2; ++k) {
    cl_int err = CL_SUCCESS;
    cl_event user = clCreateUserEvent(tu_cl_context(), &err);
    tu_cl_check(err, "clCreateUserEvent");
    pthread_t th;
    if (later)
      cr_assert(pthread_create(&th, NULL, fail_later, user) == 0);
    else
      tu_cl_check(clSetUserEventStatus(user, -1), "clSetUserEventStatus");
    st[k] = k == 0 ? clg_validate(tu_ctx(), NULL, &d, &x, NULL, 1, &user)
                   : clg_gather(tu_ctx(), &d, &x, 0, &o, NULL, 1, &user, &ev);
    snprintf(msg[k], sizeof msg[k], "%s", clg_last_error());
    if (later)
      pthread_join(th, NULL);
    clReleaseEvent(user);
  }
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  for (int k = 0; k < 2; ++k)
    cr_expect(st[k] == CLG_ERROR_OPENCL,
              "[%s, failed %s] %s after a failed wait-list event: %s: %s", path,
              later ? "during the call" : "before",
              k ? "clg_gather" : "clg_validate", clg_status_string(st[k]),
              msg[k]);
  cr_expect(ev == NULL, "[%s] an event after a failure", path);
  tu_buffer_read(om, 0, sizeof now, now);
  cr_expect(memcmp(now, got, sizeof now) == 0,
            "[%s] the output changed after a failed wait list", path);
  clReleaseMemObject(dm);
  clReleaseMemObject(xm);
  clReleaseMemObject(om);
}

Test(index_pass, failed_wait_list_event, .timeout = 60) {
  failed_wait_list_case("always", false);
  failed_wait_list_case("never", false);
  failed_wait_list_case("always", true);
  failed_wait_list_case("never", true);
}

/* clg_run() through the device path, all in cl_mem: a correct gather; and
 * a bad index: the validation kernel and the gather gated on its verdict,
 * which writes nothing: the output untouched. */
Test(index_pass, run_all_device) {
  int64_t ds[2] = {5, 3}, is[2] = {2, 3}, os[3] = {2, 3, 3};
  float data[15], want[18], got[18];
  for (int k = 0; k < 15; ++k)
    data[k] = (float)(k * 2 + 1);
  int64_t idx[6] = {0, 4, -5, 2, -1, 3};
  cr_assert(ref_gather(data, 4, 2, ds, idx, REF_INDEX_I64, 2, is, 0, want) ==
            0);
  cl_mem dm = tu_buffer_create(sizeof data, data);
  cl_mem xm = tu_buffer_create(sizeof idx, idx);
  memset(got, 0xAB, sizeof got);
  cl_mem om = tu_buffer_create(sizeof got, got);
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, dm, 0);
  clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT64, 2, is, xm, 0);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 3, os, om, 0);
  clg_context *ctx = tu_ctx();
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  unsigned before = atomic_load(&ctx->device_validations);
  cl_event ev = NULL;
  clg_status st = clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, &ev);
  cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
  cr_expect(atomic_load(&ctx->device_validations) == before + 1);
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
  tu_buffer_read(om, 0, sizeof got, got);
  cr_expect(memcmp(got, want, sizeof want) == 0, "wrong gather result");

  /* The whole array is written again, not its one changed element:
   * Oclgrind 21.10's uninitialized-value check takes every byte of a buffer
   * for uninitialized after a write at an offset (a 20-line pyopencl
   * kernel shows it), which the Oclgrind run of this suite would report. */
  idx[5] = -6;
  tu_cl_check(clEnqueueWriteBuffer(tu_queue(), xm, CL_TRUE, 0, sizeof idx, idx,
                                   0, NULL, NULL),
              "clEnqueueWriteBuffer");
  float fresh[18];
  memset(fresh, 0xAB, sizeof fresh);
  tu_cl_check(clEnqueueWriteBuffer(tu_queue(), om, CL_TRUE, 0, sizeof fresh,
                                   fresh, 0, NULL, NULL),
              "clEnqueueWriteBuffer");
  clg_fault_reset();
  ev = NULL;
  st = clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, &ev);
  unsigned long enq = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
  clg_fault_reset();
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  cr_expect(st == OOB && tu_contains(clg_last_error(), "indices[5]") &&
                tu_contains(clg_last_error(), "= -6"),
            "%s", clg_last_error());
  cr_expect(ev == NULL);
  cr_expect(enq == 2, "%lu kernels enqueued, want the validation and the "
                     "gated gather", enq);
  tu_cl_check(clFinish(clg_context_queue(ctx)), "clFinish");
  tu_buffer_read(om, 0, sizeof got, got);
  cr_expect(memcmp(got, fresh, sizeof fresh) == 0, "the output was written");
  clReleaseMemObject(dm);
  clReleaseMemObject(xm);
  clReleaseMemObject(om);
}

/* Does clReleaseMemObject release? Not under the Oclgrind runs
 * (tests/oclgrind/keep_buffers.c makes it do nothing). */
static bool releases_free(void) {
  cl_context c = tu_cl_context();
  cl_uint before = tu_context_refs(c);
  cl_mem probe = tu_buffer_create(16, NULL);
  clReleaseMemObject(probe);
  return tu_context_refs(c) == before;
}

/* The synchronous device check takes its verdict buffer from the context
 * and gives it back (verdict.c): a repeated call creates no buffer, with
 * or without a wait list; the buffer a failed check leaves with its flag
 * set is not given back (the next call makes one, and the one after it
 * none), so the flag never fails a later call; and no reference to the
 * context is left behind by a failed check. */
Test(index_pass, verdict_buffer_is_kept) {
  int64_t ds[2] = {5, 3}, is[1] = {4}, os[2] = {4, 3};
  float data[15], want[12], got[12];
  for (int k = 0; k < 15; ++k)
    data[k] = (float)(k * 3 - 7);
  int64_t idx[4] = {4, -5, 2, 1}, bad[4] = {4, 5, 2, 1};
  cr_assert(ref_gather(data, 4, 2, ds, idx, REF_INDEX_I64, 1, is, 0, want) ==
            0);
  cl_mem dm = tu_buffer_create(sizeof data, data);
  cl_mem xm = tu_buffer_create(sizeof idx, idx);
  cl_mem bm = tu_buffer_create(sizeof bad, bad);
  memset(got, 0xAB, sizeof got);
  cl_mem om = tu_buffer_create(sizeof got, got);
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, dm, 0);
  clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, xm, 0);
  clg_tensor xb = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, bm, 0);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, om, 0);
  clg_context *ctx = tu_ctx();
  cl_command_queue q = tu_queue();
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  cr_assert_eq(clg_gather(ctx, &d, &x, 0, &o, q, 0, NULL, NULL), CLG_SUCCESS,
               "%s", clg_last_error());
  tu_cl_check(clFinish(q), "clFinish");
  cl_uint refs = tu_context_refs(clg_context_cl_context(ctx));
  for (int k = 0; k < 3; ++k) { /* good, bad, good */
    const clg_tensor *xi = k == 1 ? &xb : &x;
    unsigned before = atomic_load(&ctx->device_validations);
    clg_fault_reset();
    clg_status st = clg_gather(ctx, &d, xi, 0, &o, q, 0, NULL, NULL);
    unsigned long made = clg_fault_calls(CLG_FAULT_CREATE_BUFFER);
    clg_fault_reset();
    cr_expect_eq(atomic_load(&ctx->device_validations), before + 1);
    cr_expect_eq(made, k == 2 ? 1 : 0, "call %d created %lu buffers", k,
                 made);
    if (k == 1) {
      cr_expect(st == OOB && tu_contains(clg_last_error(), "indices[1]"),
                "%s", clg_last_error());
      tu_cl_check(clFinish(q), "clFinish");
      cr_expect_eq(ctx->verdicts.count, 0, "a failed check's buffer kept");
      /* No reference left behind: at most as many as before (fewer where
       * each buffer holds one, as on Rusticl: the verdict buffer the
       * context kept is released with the failed check's flag). */
      if (releases_free()) {
        cl_uint now = tu_context_refs(clg_context_cl_context(ctx));
        for (int n = 0; now > refs && n < 1000; ++n) {
          struct timespec ten_ms = {0, 10000000};
          nanosleep(&ten_ms, NULL);
          now = tu_context_refs(clg_context_cl_context(ctx));
        }
        cr_expect_leq(now, refs, "a failed check left a reference to the "
                      "context: %u, %u before", (unsigned)now,
                      (unsigned)refs);
      }
      continue;
    }
    cr_expect_eq(st, CLG_SUCCESS, "call %d: %s", k, clg_last_error());
    tu_cl_check(clFinish(q), "clFinish");
    tu_buffer_read(om, 0, sizeof got, got);
    cr_expect(memcmp(got, want, sizeof want) == 0, "call %d: wrong result", k);
  }
  /* After an event of the caller's: the context's buffer too (the run's
   * number beside the flag tells a verdict written by this call's kernel
   * from one left by a call before: test failed_wait_list_event). */
  cl_event done = NULL;
  tu_cl_check(clEnqueueMarkerWithWaitList(q, 0, NULL, &done), "marker");
  tu_cl_check(clWaitForEvents(1, &done), "clWaitForEvents");
  clg_fault_reset();
  cr_expect_eq(clg_gather(ctx, &d, &x, 0, &o, q, 1, &done, NULL), CLG_SUCCESS,
               "%s", clg_last_error());
  unsigned long made = clg_fault_calls(CLG_FAULT_CREATE_BUFFER);
  clg_fault_reset();
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  cr_expect_eq(made, 0, "with a wait list: %lu buffers created", made);
  tu_cl_check(clFinish(q), "clFinish");
  clReleaseEvent(done);
  clReleaseMemObject(dm);
  clReleaseMemObject(xm);
  clReleaseMemObject(bm);
  clReleaseMemObject(om);
}
