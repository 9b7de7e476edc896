/* Way HOST_RUN (host/run/host_run.c, host/run/strategy.c): a small gather
 * of host memory on a CPU device runs on the calling thread. Under the
 * library's own rule (CLGATHER_TEST_HOST_RUN=rule; test builds default to
 * never, so that the suites reach the kernels): no kernel, buffer or wait
 * in the call, and the bytes of a plain-C reference; a bad index leaves
 * the output as it was; the calls the rule leaves to the kernels (past
 * CLG_OPTION_HOST_RUN_BYTES, the option at 0, a wait list, a cl_mem
 * operand) enqueue their kernels. The suites run again with
 * CLGATHER_TEST_HOST_RUN=always (tests/CMakeLists.txt) for every shape,
 * dtype and mode they cover. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "internal.h"
#include "reference/reference.h"
#include "support/testutil.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 50
#define COLS 6
#define N 7

static float data[ROWS * COLS];
static int64_t idx[N] = {3, -1, 0, 49, 7, -50, 3};

static void setup(void) {
  setenv("CLGATHER_TEST_HOST_RUN", "rule", 1);
  for (int i = 0; i < ROWS * COLS; ++i)
    data[i] = (float)i * 0.5f - 3.0f;
}

/* True when the device is a CPU: the rule runs on the host only there. */
static bool cpu_device(void) {
  return (tu_ctx()->device_type & CL_DEVICE_TYPE_CPU) != 0;
}

typedef struct counts {
  unsigned long kernels, objects, waits;
} counts;

static counts counted(void) {
  counts c = {clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL),
              clg_fault_calls(CLG_FAULT_CREATE_BUFFER) +
                  clg_fault_calls(CLG_FAULT_CREATE_SUB_BUFFER),
              clg_fault_host_waits()};
  clg_fault_reset();
  return c;
}

/* Gather, GatherElements and GatherND of host tensors under the rule:
 * the reference's bytes, nothing enqueued, no buffer, no wait. */
Test(host_run, gathers_run_on_the_calling_thread, .init = setup) {
  cr_assert(cpu_device(), "POCL's CPU device expected: the rule is the "
                          "CPU's");
  int64_t ds[2] = {ROWS, COLS}, xs[1] = {N}, os[2] = {N, COLS};
  float want[N * COLS], got[N * COLS];
  cr_assert_eq(ref_gather(data, 4, 2, ds, idx, REF_INDEX_I64, 1, xs, 0,
                          want),
               0, "test bug");
  memset(got, TU_SENTINEL, sizeof got);
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data),
             x = clg_tensor_host(CLG_DTYPE_INT64, 1, xs, idx),
             o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, got);
  clg_fault_reset();
  cr_assert_eq(clg_gather(tu_ctx(), &d, &x, 0, &o, NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  counts c = counted();
  cr_expect_eq(tu_first_diff(got, want, sizeof got), -1, "Gather's bytes");
  cr_expect_eq(c.kernels, 0, "Gather enqueued %lu kernels", c.kernels);
  cr_expect_eq(c.objects, 0, "Gather made %lu buffers", c.objects);
  cr_expect_eq(c.waits, 0, "Gather waited %lu times", c.waits);

  /* GatherElements on axis 1: indices [N, 2]. */
  int64_t es[2] = {N, 2}, ev[N * 2];
  for (int i = 0; i < N * 2; ++i)
    ev[i] = (i * 5) % COLS - (i % 3 == 0 ? COLS : 0);
  float ewant[N * 2], egot[N * 2];
  cr_assert_eq(ref_gather_elements(data, 4, 2, ds, ev, REF_INDEX_I64, 2, es,
                                   1, ewant),
               0, "test bug");
  memset(egot, TU_SENTINEL, sizeof egot);
  clg_params pe = {CLG_OP_GATHER_ELEMENTS, 1, 0, CLG_MODE_RAISE};
  clg_tensor ex = clg_tensor_host(CLG_DTYPE_INT64, 2, es, ev),
             eo = clg_tensor_host(CLG_DTYPE_FLOAT, 2, es, egot);
  cr_assert_eq(clg_run(tu_ctx(), &pe, &d, &ex, &eo, NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  c = counted();
  cr_expect_eq(tu_first_diff(egot, ewant, sizeof egot), -1,
               "GatherElements' bytes");
  cr_expect_eq(c.kernels + c.objects + c.waits, 0,
               "GatherElements: %lu kernels, %lu buffers, %lu waits",
               c.kernels, c.objects, c.waits);

  /* GatherND: int32 indices [N, 2] (row, column). */
  int64_t ns[2] = {N, 2};
  int32_t nv[N * 2];
  for (int i = 0; i < N; ++i) {
    nv[2 * i] = (int32_t)((i * 11) % ROWS);
    nv[2 * i + 1] = (int32_t)(i % COLS) - (i % 2 ? COLS : 0);
  }
  float nwant[N], ngot[N];
  cr_assert_eq(ref_gather_nd(data, 4, 2, ds, nv, REF_INDEX_I32, 2, ns, 0,
                             nwant),
               0, "test bug");
  memset(ngot, TU_SENTINEL, sizeof ngot);
  int64_t nos[1] = {N};
  clg_params pn = {CLG_OP_GATHER_ND, 0, 0, CLG_MODE_RAISE};
  clg_tensor nx = clg_tensor_host(CLG_DTYPE_INT32, 2, ns, nv),
             no = clg_tensor_host(CLG_DTYPE_FLOAT, 1, nos, ngot);
  cr_assert_eq(clg_run(tu_ctx(), &pn, &d, &nx, &no, NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  c = counted();
  cr_expect_eq(tu_first_diff(ngot, nwant, sizeof ngot), -1, "GatherND's bytes");
  cr_expect_eq(c.kernels + c.objects + c.waits, 0,
               "GatherND: %lu kernels, %lu buffers, %lu waits", c.kernels,
               c.objects, c.waits);
}

/* Modes WRAP and CLIP on the host: numpy.take's mapping, as the
 * reference's. */
Test(host_run, wrap_and_clip, .init = setup) {
  int64_t far[N] = {-51, 50, 123, -1000, 0, 49, -1};
  int64_t ds[2] = {ROWS, COLS}, xs[1] = {N}, os[2] = {N, COLS};
  for (int mode = CLG_MODE_WRAP; mode <= CLG_MODE_CLIP; ++mode) {
    float want[N * COLS], got[N * COLS];
    int32_t orank;
    int64_t oshape[CLG_MAX_RANK];
    cr_assert_eq(ref_gather_ex(data, 4, 2, ds, far, REF_INDEX_I64, 1, xs, 0,
                               0, (ref_mode)mode, want, &orank, oshape),
                 0, "test bug");
    memset(got, TU_SENTINEL, sizeof got);
    clg_params p = {CLG_OP_GATHER, 0, 0, (clg_index_mode)mode};
    clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data),
               x = clg_tensor_host(CLG_DTYPE_INT64, 1, xs, far),
               o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, got);
    clg_fault_reset();
    cr_assert_eq(clg_run(tu_ctx(), &p, &d, &x, &o, NULL, 0, NULL, NULL),
                 CLG_SUCCESS, "mode %d: %s", mode, clg_last_error());
    counts c = counted();
    cr_expect_eq(tu_first_diff(got, want, sizeof got), -1, "mode %d", mode);
    cr_expect_eq(c.kernels, 0, "mode %d: %lu kernels", mode, c.kernels);
  }
}

/* An index out of range: the error names it, the output keeps its bytes;
 * a failed allocation of the slices' places: out of host memory, the
 * output kept too. */
Test(host_run, bad_index_and_no_memory_leave_the_output, .init = setup) {
  int64_t bad[N] = {3, 1, 0, 50, 7, 2, 3};
  int64_t ds[2] = {ROWS, COLS}, xs[1] = {N}, os[2] = {N, COLS};
  unsigned char got[N * COLS * 4], old[N * COLS * 4];
  memset(got, TU_SENTINEL, sizeof got);
  memcpy(old, got, sizeof old);
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data),
             x = clg_tensor_host(CLG_DTYPE_INT64, 1, xs, bad),
             o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, got);
  cl_event ev = NULL;
  clg_fault_reset();
  cr_expect_eq(clg_gather(tu_ctx(), &d, &x, 0, &o, NULL, 0, NULL, &ev),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s", clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "indices[3]") &&
                tu_contains(clg_last_error(), "50"),
            "%s", clg_last_error());
  cr_expect_null(ev, "an event after an error");
  cr_expect_eq(memcmp(got, old, sizeof got), 0, "the output was written");
  cr_expect_eq(counted().kernels, 0);

  x = clg_tensor_host(CLG_DTYPE_INT64, 1, xs, idx);
  clg_fault_inject(CLG_FAULT_HOST_ALLOC, 0, 1, 0);
  cr_expect_eq(clg_gather(tu_ctx(), &d, &x, 0, &o, NULL, 0, NULL, &ev),
               CLG_ERROR_OUT_OF_HOST_MEMORY, "%s", clg_last_error());
  clg_fault_reset();
  cr_expect_null(ev, "an event after an error");
  cr_expect_eq(memcmp(got, old, sizeof got), 0, "the output was written");
}

/* An event asked for completes (a marker); the asynchronous mode's
 * outcome is decided, with success. */
Test(host_run, event_and_outcome, .init = setup) {
  int64_t ds[2] = {ROWS, COLS}, xs[1] = {N}, os[2] = {N, COLS};
  float want[N * COLS], got[N * COLS];
  cr_assert_eq(ref_gather(data, 4, 2, ds, idx, REF_INDEX_I64, 1, xs, 0,
                          want),
               0, "test bug");
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data),
             x = clg_tensor_host(CLG_DTYPE_INT64, 1, xs, idx),
             o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, got);
  for (int async = 0; async < 2; ++async) {
    memset(got, TU_SENTINEL, sizeof got);
    cl_event ev = NULL;
    clg_outcome *oc = NULL;
    clg_params p = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
    clg_fault_reset();
    clg_status st =
        async ? clg_run_async(tu_ctx(), &p, &d, &x, &o, NULL, 0, NULL, &ev,
                              &oc)
              : clg_run(tu_ctx(), &p, &d, &x, &o, NULL, 0, NULL, &ev);
    cr_assert_eq(st, CLG_SUCCESS, "%s", clg_last_error());
    cr_expect_eq(counted().kernels, 0, "async %d: kernels enqueued", async);
    cr_expect_eq(tu_first_diff(got, want, sizeof got), -1, "async %d",
                 async);
    cr_assert_not_null(ev);
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    if (async) {
      cr_assert_not_null(oc);
      cr_expect_eq(clg_outcome_wait(oc), CLG_SUCCESS, "%s",
                   clg_last_error());
      clg_outcome_release(oc);
    }
  }
}

/* What the rule leaves to the kernels: an output past the option's bytes,
 * the option at 0, a wait list, a cl_mem output. Each still gives the
 * reference's bytes. */
Test(host_run, what_the_rule_leaves_to_the_kernels, .init = setup) {
  int64_t ds[2] = {ROWS, COLS}, xs[1] = {N}, os[2] = {N, COLS};
  float want[N * COLS], got[N * COLS];
  cr_assert_eq(ref_gather(data, 4, 2, ds, idx, REF_INDEX_I64, 1, xs, 0,
                          want),
               0, "test bug");
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create(tu_cl_context(), tu_device(), &ctx),
               CLG_SUCCESS, "%s", clg_last_error());
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data),
             x = clg_tensor_host(CLG_DTYPE_INT64, 1, xs, idx),
             o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, got);
  cl_int err = CL_SUCCESS;
  cl_event user = clCreateUserEvent(tu_cl_context(), &err);
  tu_cl_check(err, "clCreateUserEvent");
  tu_cl_check(clSetUserEventStatus(user, CL_COMPLETE), "clSetUserEventStatus");
  cl_mem om = tu_buffer_create(sizeof got, NULL);
  clg_tensor ob = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, om, 0);
  static const char *const names[] = {"past the bytes", "option 0",
                                      "a wait list", "a cl_mem output"};
  for (int k = 0; k < 4; ++k) {
    int64_t most = k == 0 ? (int64_t)sizeof got - 1
                   : k == 1 ? 0
                            : CLG_HOST_RUN_BYTES_DEFAULT;
    cr_assert_eq(clg_context_set_option(ctx, CLG_OPTION_HOST_RUN_BYTES, most),
                 CLG_SUCCESS);
    memset(got, TU_SENTINEL, sizeof got);
    clg_fault_reset();
    clg_status st = clg_gather(ctx, &d, &x, 0, k == 3 ? &ob : &o, NULL,
                               k == 2 ? 1 : 0, k == 2 ? &user : NULL, NULL);
    counts c = counted();
    cr_assert_eq(st, CLG_SUCCESS, "%s: %s", names[k], clg_last_error());
    if (k == 3)
      tu_buffer_read(om, 0, sizeof got, got);
    cr_expect_eq(tu_first_diff(got, want, sizeof got), -1, "%s", names[k]);
    cr_expect_geq(c.kernels, 1, "%s: no kernel enqueued", names[k]);
  }
  /* Back under the bytes: on the host again. */
  cr_assert_eq(clg_context_set_option(ctx, CLG_OPTION_HOST_RUN_BYTES,
                                      (int64_t)sizeof got),
               CLG_SUCCESS);
  clg_fault_reset();
  cr_assert_eq(clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(counted().kernels, 0, "an output of exactly the bytes");
  clReleaseMemObject(om);
  clReleaseEvent(user);
  clg_context_destroy(ctx);
}
