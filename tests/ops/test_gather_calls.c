/*
 * Gather's Tests written out by hand rather than generated (test_gather,
 * one binary with test_gather.c, whose generators cover dtypes, ranks,
 * axes, batch_dims, modes, storage, queues and the forced kernel variants):
 * WRAP, CLIP and RAISE on one known tensor and their errors, a wait list
 * honoured (the call in a second thread, held by a user event), two gathers
 * chained through events, and threads sharing one context.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gather_fx.h"
#include "support/gather_case.h"

/* ----------------------------------------- index modes on a known tensor */

/* Out-of-range indices in WRAP/CLIP are not errors, but RAISE rejects the
 * same indices; an empty axis is an error in every mode. */
Test(gather, modes_and_errors) {
  int64_t dshape[2] = {4, 2}, ishape[1] = {3}, oshape[2] = {3, 2};
  int32_t data[8] = {0, 1, 10, 11, 20, 21, 30, 31};
  int64_t idx[3] = {-9, 4, 7};
  int32_t out[6];
  clg_tensor d = clg_tensor_host(CLG_DTYPE_INT32, 2, dshape, data);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_INT32, 2, oshape, out);
  /* wrap: -9 mod 4 = 3, 4 mod 4 = 0, 7 mod 4 = 3 (Python modulo). */
  clg_params wrap = {CLG_OP_GATHER, 0, 0, CLG_MODE_WRAP};
  cr_assert_eq(clg_run(tu_ctx(), &wrap, &d, &x, &o, NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  const int32_t want_wrap[6] = {30, 31, 0, 1, 30, 31};
  cr_expect_arr_eq(out, want_wrap, sizeof out);
  /* clip: -9 -> 0 (numpy clips negatives to 0), 4 -> 3, 7 -> 3. */
  clg_params clip = {CLG_OP_GATHER, 0, 0, CLG_MODE_CLIP};
  cr_assert_eq(clg_run(tu_ctx(), &clip, &d, &x, &o, NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  const int32_t want_clip[6] = {0, 1, 30, 31, 30, 31};
  cr_expect_arr_eq(out, want_clip, sizeof out);
  /* raise: the first offender is named; the output keeps its bytes. */
  int32_t before[6];
  memcpy(before, out, sizeof out);
  clg_params raise = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  cr_assert_eq(clg_run(tu_ctx(), &raise, &d, &x, &o, NULL, 0, NULL, NULL),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  cr_expect(tu_contains(clg_last_error(), "indices[0]") &&
                tu_contains(clg_last_error(), "= -9") &&
                tu_contains(clg_last_error(), "[-4, 3]"),
            "%s", clg_last_error());
  cr_expect_arr_eq(out, before, sizeof out);
  /* An empty axis has no position to wrap or clip into. */
  int64_t eshape[2] = {0, 2};
  clg_tensor de = clg_tensor_host(CLG_DTYPE_INT32, 2, eshape, data);
  for (int m = 1; m <= 2; ++m) {
    clg_params p = {CLG_OP_GATHER, 0, 0, (clg_index_mode)m};
    cr_expect_eq(clg_run(tu_ctx(), &p, &de, &x, &o, NULL, 0, NULL, NULL),
                 CLG_ERROR_INDEX_OUT_OF_BOUNDS, "mode %d: %s", m,
                 clg_last_error());
    cr_expect(tu_contains(clg_last_error(), "size 0"), "%s", clg_last_error());
    cr_expect_arr_eq(out, before, sizeof out);
  }
}

/* ------------------------------------------------ wait lists (threaded) */

typedef struct waiter {
  clg_tensor data, indices, output;
  cl_event gate;
  cl_event done_event;
  clg_status status;
  char error[512];
  atomic_int returned;
} waiter;

static void *waiter_main(void *arg) {
  waiter *w = arg;
  w->status = clg_gather(tu_ctx(), &w->data, &w->indices, 0, &w->output, NULL,
                         1, &w->gate, &w->done_event);
  snprintf(w->error, sizeof w->error, "%s", clg_last_error());
  atomic_store(&w->returned, 1);
  return NULL;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* The gather must wait for its wait list: with a user event as the wait
 * list, the output stays untouched until the event is completed. The call
 * runs in a second thread because it may block (host storage, or the
 * read-back of cl_mem indices after the wait list). */
Test(gather, wait_list_is_honoured) {
  /* variants: indices host / buffer, output buffer / host */
  for (int v = 0; v < 3; ++v) {
    const int64_t dshape[2] = {6, 4}, ishape[1] = {5};
    const int64_t oshape[2] = {5, 4};
    float data[24];
    int64_t idx[5] = {5, -1, 0, 2, -6};
    for (int i = 0; i < 24; ++i)
      data[i] = (float)i * 1.5f;
    float want[20];
    cr_assert(ref_gather(data, 4, 2, dshape, idx, REF_INDEX_I64, 1, ishape, 0,
                         want) == 0);
    tu_tensor td, ti, to;
    tu_tensor_init(&td, CLG_DTYPE_FLOAT, 2, dshape, gc_buf(0), data);
    tu_tensor_init(&ti, CLG_DTYPE_INT64, 1, ishape,
                   v == 1 ? gc_buf(8) : gc_host(), idx);
    tu_tensor_init(&to, CLG_DTYPE_FLOAT, 2, oshape,
                   v == 2 ? gc_host() : gc_buf(4), NULL);
    cl_int err = CL_SUCCESS;
    waiter w;
    memset(&w, 0, sizeof w);
    atomic_init(&w.returned, 0);
    w.data = td.desc;
    w.indices = ti.desc;
    w.output = to.desc;
    w.gate = clCreateUserEvent(tu_cl_context(), &err);
    tu_cl_check(err, "clCreateUserEvent");
    pthread_t th;
    cr_assert(pthread_create(&th, NULL, waiter_main, &w) == 0);
    sleep_ms(150);
    /* Not run yet: the output still holds its sentinel. (For a host
     * output, looking at it is a race only if the library is wrong.) */
    bool untouched = tu_tensor_all_sentinel(&to);
    int returned_early = atomic_load(&w.returned);
    tu_cl_check(clSetUserEventStatus(w.gate, CL_COMPLETE), "clSetUserEventStatus");
    pthread_join(th, NULL);
    cr_expect(untouched, "variant %d: output written before the wait list "
              "completed", v);
    cr_expect(!returned_early,
              "variant %d: host memory or cl_mem indices, yet the call "
              "returned before its wait list completed", v);
    cr_assert(w.status == CLG_SUCCESS, "variant %d: %s: %s", v,
              clg_status_string(w.status), w.error);
    cr_assert(w.done_event != NULL, "variant %d: no event returned", v);
    tu_cl_check(clWaitForEvents(1, &w.done_event), "clWaitForEvents");
    float got[20];
    tu_tensor_read(&to, got);
    cr_expect(tu_first_diff(got, want, sizeof want) < 0,
              "variant %d: output differs from the reference", v);
    cr_expect(tu_tensor_guards_ok(&to), "variant %d: guard bytes written", v);
    clReleaseEvent(w.done_event);
    clReleaseEvent(w.gate);
    tu_tensor_free(&td);
    tu_tensor_free(&ti);
    tu_tensor_free(&to);
  }
}

/* A wait list of already-complete events and of an event from an earlier
 * gather (chaining two gathers through cl_mem without host sync). */
Test(gather, chained_events) {
  const int64_t dshape[1] = {10}, ishape[1] = {10};
  int32_t data[10], idx1[10], idx2[10];
  for (int i = 0; i < 10; ++i) {
    data[i] = 100 + i;
    idx1[i] = 9 - i;       /* reverse */
    idx2[i] = (i * 3) % 10 - 10; /* permutation, negative form */
  }
  int32_t mid[10], want[10];
  cr_assert(ref_gather(data, 4, 1, dshape, idx1, REF_INDEX_I32, 1, ishape, 0, mid) == 0);
  cr_assert(ref_gather(mid, 4, 1, dshape, idx2, REF_INDEX_I32, 1, ishape, 0, want) == 0);
  tu_tensor td, ti1, ti2, tm, to;
  tu_tensor_init(&td, CLG_DTYPE_INT32, 1, dshape, gc_buf(0), data);
  tu_tensor_init(&ti1, CLG_DTYPE_INT32, 1, ishape, gc_host(), idx1);
  tu_tensor_init(&ti2, CLG_DTYPE_INT32, 1, ishape, gc_host(), idx2);
  tu_tensor_init(&tm, CLG_DTYPE_INT32, 1, dshape, gc_buf(12), NULL);
  tu_tensor_init(&to, CLG_DTYPE_INT32, 1, dshape, gc_buf(4), NULL);
  cl_event marker = NULL;
  tu_cl_check(clEnqueueMarkerWithWaitList(tu_queue(), 0, NULL, &marker),
              "clEnqueueMarkerWithWaitList");
  tu_cl_check(clWaitForEvents(1, &marker), "clWaitForEvents");
  cl_event e1 = NULL, e2 = NULL;
  clg_status st = clg_gather(tu_ctx(), &td.desc, &ti1.desc, 0, &tm.desc, NULL,
                             1, &marker, &e1);
  cr_assert(st == CLG_SUCCESS, "first gather: %s", clg_last_error());
  cr_assert(e1 != NULL);
  st = clg_gather(tu_ctx(), &tm.desc, &ti2.desc, -1, &to.desc, tu_queue(), 1,
                  &e1, &e2);
  cr_assert(st == CLG_SUCCESS, "second gather: %s", clg_last_error());
  cr_assert(e2 != NULL);
  tu_cl_check(clWaitForEvents(1, &e2), "clWaitForEvents");
  int32_t got[10];
  tu_tensor_read(&to, got);
  cr_expect(tu_first_diff(got, want, sizeof want) < 0,
            "chained gather output differs from the reference");
  clReleaseEvent(marker);
  clReleaseEvent(e1);
  clReleaseEvent(e2);
  tu_tensor_free(&td);
  tu_tensor_free(&ti1);
  tu_tensor_free(&ti2);
  tu_tensor_free(&tm);
  tu_tensor_free(&to);
}

/* ------------------------------------------------ concurrent callers */

typedef struct worker {
  int id;
  int cases;
  int failures;
  char first_failure[2048];
} worker;

static void *worker_main(void *arg) {
  worker *w = arg;
  tu_rng rng = tu_rng_make(130000u + (uint64_t)w->id);
  for (int n = 0; n < 24; ++n) {
    gather_case c = {0};
    c.dtype = tu_all_dtypes[(w->id * 5 + n) % 15];
    c.idt = index_types[n % 2];
    c.r = (int32_t)tu_rng_range(&rng, 1, 4);
    for (int32_t i = 0; i < c.r; ++i)
      c.dshape[i] = tu_rng_range(&rng, 1, 6);
    c.q = (int32_t)tu_rng_range(&rng, 0, 2);
    for (int32_t i = 0; i < c.q; ++i)
      c.ishape[i] = tu_rng_range(&rng, 1, 6);
    c.p.axis = tu_rng_range(&rng, -c.r, c.r - 1);
    c.mode = TU_IDX_ANY;
    for (int j = 0; j < 3; ++j)
      c.st[j] = ((n + w->id) >> j) & 1 ? gc_buf(8) : gc_host();
    c.want_event = true;
    char msg[2048];
    w->cases++;
    if (!gc_run_case(&c, 140000u + (uint64_t)(w->id * 100 + n), msg,
                     sizeof msg)) {
      if (w->failures++ == 0)
        snprintf(w->first_failure, sizeof w->first_failure, "%s", msg);
    }
  }
  return NULL;
}

Test(gather, concurrent_threads_share_context) {
  (void)tu_ctx();
  (void)tu_queue();
  enum { NT = 4 };
  worker ws[NT];
  pthread_t th[NT];
  for (int i = 0; i < NT; ++i) {
    memset(&ws[i], 0, sizeof ws[i]);
    ws[i].id = i;
    cr_assert(pthread_create(&th[i], NULL, worker_main, &ws[i]) == 0);
  }
  for (int i = 0; i < NT; ++i)
    pthread_join(th[i], NULL);
  for (int i = 0; i < NT; ++i)
    cr_expect(ws[i].failures == 0, "thread %d: %d of %d cases failed; first: %s",
              i, ws[i].failures, ws[i].cases, ws[i].first_failure);
}
