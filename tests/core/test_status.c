/*
 * clg_status_string(), clg_last_error() and its per-thread behaviour.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "support/testutil.h"

#define LAST_STATUS CLG_ERROR_INVALID_BAGS

Test(status, numeric_values_are_fixed) {
  cr_expect_eq(CLG_SUCCESS, 0);
  cr_expect_eq(CLG_ERROR_NULL_ARGUMENT, 1);
  cr_expect_eq(CLG_ERROR_INVALID_ARGUMENT, 2);
  cr_expect_eq(CLG_ERROR_INVALID_RANK, 3);
  cr_expect_eq(CLG_ERROR_INVALID_SHAPE, 4);
  cr_expect_eq(CLG_ERROR_INVALID_AXIS, 5);
  cr_expect_eq(CLG_ERROR_UNSUPPORTED_DTYPE, 6);
  cr_expect_eq(CLG_ERROR_INVALID_INDICES_DTYPE, 7);
  cr_expect_eq(CLG_ERROR_DTYPE_MISMATCH, 8);
  cr_expect_eq(CLG_ERROR_SHAPE_MISMATCH, 9);
  cr_expect_eq(CLG_ERROR_SIZE_OVERFLOW, 10);
  cr_expect_eq(CLG_ERROR_BUFFER_TOO_SMALL, 11);
  cr_expect_eq(CLG_ERROR_INDEX_OUT_OF_BOUNDS, 12);
  cr_expect_eq(CLG_ERROR_NO_DEVICE, 13);
  cr_expect_eq(CLG_ERROR_OPENCL, 14);
  cr_expect_eq(CLG_ERROR_BUILD_FAILED, 15);
  cr_expect_eq(CLG_ERROR_OUT_OF_HOST_MEMORY, 16);
  cr_expect_eq(CLG_ERROR_INVALID_BATCH_DIMS, 17);
  cr_expect_eq(CLG_ERROR_INCOMPATIBLE_SHAPES, 18);
  cr_expect_eq(CLG_ERROR_DUPLICATE_INDEX, 19);
  cr_expect_eq(CLG_ERROR_INTERNAL, 20);
}

Test(status, strings_distinct_and_non_empty) {
  for (int s = 0; s <= (int)LAST_STATUS; ++s) {
    const char *a = clg_status_string((clg_status)s);
    cr_assert(a != NULL, "status %d: NULL string", s);
    cr_expect(a[0] != '\0', "status %d: empty string", s);
    cr_expect(strcmp(a, "unknown status") != 0,
              "status %d is known but named \"unknown status\"", s);
    for (int t = 0; t < s; ++t)
      cr_expect(strcmp(a, clg_status_string((clg_status)t)) != 0,
                "statuses %d and %d share the string \"%s\"", t, s, a);
  }
  cr_expect_str_eq(clg_status_string(CLG_ERROR_INDEX_OUT_OF_BOUNDS),
                   "index out of bounds");
  /* The pointer is static storage: stable across calls. */
  cr_expect(clg_status_string(CLG_ERROR_OPENCL) ==
            clg_status_string(CLG_ERROR_OPENCL));
}

Test(status, unknown_values) {
  const int unknown[] = {(int)LAST_STATUS + 1, 22, 100, -1, -1000, 0x7fffffff};
  for (size_t k = 0; k < sizeof unknown / sizeof unknown[0]; ++k) {
    const char *s = clg_status_string((clg_status)unknown[k]);
    cr_assert(s != NULL);
    cr_expect_str_eq(s, "unknown status", "status %d", unknown[k]);
  }
}

/* A failing and a succeeding call that need no device. */
static clg_status fail_call(void) {
  int32_t r;
  int64_t os[CLG_MAX_RANK];
  const int64_t ds[2] = {2, 3};
  return clg_gather_output_shape(2, ds, 0, NULL, 7, &r, os);
}

static clg_status ok_call(void) {
  int32_t r;
  int64_t os[CLG_MAX_RANK];
  const int64_t ds[2] = {2, 3};
  return clg_gather_output_shape(2, ds, 0, NULL, 1, &r, os);
}

Test(status, last_error_follows_the_latest_call) {
  cr_assert(clg_last_error() != NULL);
  cr_expect(ok_call() == CLG_SUCCESS);
  cr_expect_str_eq(clg_last_error(), "");
  cr_expect(fail_call() == CLG_ERROR_INVALID_AXIS);
  cr_expect(clg_last_error()[0] != '\0', "no message after a failure");
  cr_expect(tu_contains_int(clg_last_error(), 7), "message: %s",
            clg_last_error());
  cr_expect(ok_call() == CLG_SUCCESS);
  cr_expect_str_eq(clg_last_error(), "", "message not cleared by a success");

  /* The same with clg_gather on the device. */
  float data[4] = {1, 2, 3, 4}, out[2];
  int32_t idx[2] = {3, 9};
  const int64_t ds[1] = {4}, is[1] = {2};
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, data);
  clg_tensor i = clg_tensor_host(CLG_DTYPE_INT32, 1, is, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 1, is, out);
  cr_expect(clg_gather(tu_ctx(), &d, &i, 0, &o, NULL, 0, NULL, NULL) ==
            CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  cr_expect(tu_contains(clg_last_error(), "[-4, 3]"), "message: %s",
            clg_last_error());
  idx[1] = -4;
  cr_expect(clg_gather(tu_ctx(), &d, &i, 0, &o, NULL, 0, NULL, NULL) ==
            CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_str_eq(clg_last_error(), "");
  cr_expect(out[0] == 4.0f && out[1] == 1.0f);
}

typedef struct thread_result {
  char before[256];
  char after_fail[256];
  char after_ok[256];
  clg_status st;
} thread_result;

static void *fail_then_ok(void *arg) {
  thread_result *res = arg;
  snprintf(res->before, sizeof res->before, "%s", clg_last_error());
  /* Data rank 0: a different failure from the main thread's. */
  int32_t r;
  int64_t os[CLG_MAX_RANK];
  const int64_t ds[1] = {3};
  res->st = clg_gather_output_shape(0, ds, 0, NULL, 0, &r, os);
  snprintf(res->after_fail, sizeof res->after_fail, "%s", clg_last_error());
  (void)ok_call();
  snprintf(res->after_ok, sizeof res->after_ok, "%s", clg_last_error());
  return NULL;
}

static void *only_ok(void *arg) {
  thread_result *res = arg;
  res->st = ok_call();
  snprintf(res->after_ok, sizeof res->after_ok, "%s", clg_last_error());
  return NULL;
}

Test(status, last_error_is_per_thread) {
  cr_assert(fail_call() == CLG_ERROR_INVALID_AXIS);
  char mine[512];
  snprintf(mine, sizeof mine, "%s", clg_last_error());
  cr_assert(mine[0] != '\0');

  /* Another thread starts with no error, has its own, and clears its own. */
  thread_result r1;
  memset(&r1, 0, sizeof r1);
  pthread_t t;
  cr_assert(pthread_create(&t, NULL, fail_then_ok, &r1) == 0);
  pthread_join(t, NULL);
  cr_expect_str_eq(r1.before, "", "a new thread sees another's error: %s",
                   r1.before);
  cr_expect(r1.st == CLG_ERROR_INVALID_RANK);
  cr_expect(r1.after_fail[0] != '\0');
  cr_expect(strcmp(r1.after_fail, mine) != 0,
            "the thread's message equals the main thread's");
  cr_expect_str_eq(r1.after_ok, "");

  /* A success in another thread does not clear this thread's error. */
  thread_result r2;
  memset(&r2, 0, sizeof r2);
  cr_assert(pthread_create(&t, NULL, only_ok, &r2) == 0);
  pthread_join(t, NULL);
  cr_expect(r2.st == CLG_SUCCESS);
  cr_expect_str_eq(clg_last_error(), mine,
                   "this thread's message changed by another thread");
}

/* Several threads failing and succeeding at the same time keep their own
 * messages. */
typedef struct hammer {
  int id;
  int bad;
} hammer;

static void *hammer_main(void *arg) {
  hammer *h = arg;
  const int64_t ds[3] = {2, 3, 4};
  for (int n = 0; n < 2000; ++n) {
    int32_t r;
    int64_t os[CLG_MAX_RANK];
    int64_t axis = 100 + h->id; /* invalid, thread-specific value */
    clg_status st = clg_gather_output_shape(3, ds, 0, NULL, axis, &r, os);
    if (st != CLG_ERROR_INVALID_AXIS || !tu_contains_int(clg_last_error(), axis))
      h->bad++;
    if (n % 2 && (ok_call() != CLG_SUCCESS || clg_last_error()[0] != '\0'))
      h->bad++;
  }
  return NULL;
}

Test(status, concurrent_messages) {
  enum { NT = 4 };
  hammer hs[NT];
  pthread_t th[NT];
  for (int k = 0; k < NT; ++k) {
    hs[k].id = k;
    hs[k].bad = 0;
    cr_assert(pthread_create(&th[k], NULL, hammer_main, &hs[k]) == 0);
  }
  for (int k = 0; k < NT; ++k)
    pthread_join(th[k], NULL);
  for (int k = 0; k < NT; ++k)
    cr_expect(hs[k].bad == 0, "thread %d saw %d wrong messages", k, hs[k].bad);
}
