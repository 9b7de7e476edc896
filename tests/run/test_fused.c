/* Way FUSED (host/run/strategy.c; kernels/gather.cl, clg_gather_checked):
 * a small synchronous Gather on cl_mem indices and output checks and
 * gathers in one kernel. Under the library's own rule
 * (CLGATHER_TEST_FUSED=rule; test builds default to never, so that the
 * suites reach the two-kernel path): one kernel, one wait, the reference's
 * bytes; an index out of range anywhere gives the validation kernel's
 * message and leaves the output as it was; past the thresholds the call
 * takes the validation kernel and the gated gather. test_gather and the
 * catalogue run again with CLGATHER_TEST_FUSED=always
 * (tests/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "internal.h"
#include "reference/reference.h"
#include "support/testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void setup(void) { setenv("CLGATHER_TEST_FUSED", "rule", 1); }

/* Gather on axis `axis` of float32 data [d0, d1, d2] by `n` indices of
 * `isize` bytes (values[i]); *kernels and *waits counted. Returns the
 * status; `got` the output's bytes after the call. */
static clg_status run(int64_t d0, int64_t d1, int64_t d2, int axis,
                      const int64_t *values, int64_t n, size_t isize,
                      void *got, size_t *obytes, unsigned long *kernels,
                      unsigned long *waits) {
  int64_t ds[3] = {d0, d1, d2}, xs[1] = {n};
  size_t dcount = (size_t)(d0 * d1 * d2);
  float *data = malloc(dcount * sizeof *data);
  void *idx = malloc((size_t)n * isize);
  cr_assert(data && idx);
  for (size_t i = 0; i < dcount; ++i)
    data[i] = (float)i + 0.25f;
  for (int64_t i = 0; i < n; ++i) {
    if (isize == 4) {
      int32_t v = (int32_t)values[i];
      memcpy((char *)idx + 4 * i, &v, 4);
    } else
      memcpy((char *)idx + 8 * i, &values[i], 8);
  }
  int64_t os[3] = {axis == 0 ? n : d0, axis == 1 ? n : d1,
                   axis == 2 ? n : d2};
  *obytes = (size_t)(os[0] * os[1] * os[2]) * sizeof(float);
  cl_mem dm = tu_buffer_create(dcount * sizeof *data, data);
  cl_mem xm = tu_buffer_create((size_t)n * isize, idx);
  unsigned char *sentinel = malloc(*obytes);
  cr_assert(sentinel);
  memset(sentinel, TU_SENTINEL, *obytes);
  cl_mem om = tu_buffer_create(*obytes, sentinel);
  free(sentinel);
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 3, ds, dm, 0);
  clg_tensor x = clg_tensor_buffer(isize == 4 ? CLG_DTYPE_INT32
                                              : CLG_DTYPE_INT64,
                                   1, xs, xm, 0);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 3, os, om, 0);
  clg_fault_reset();
  clg_status st = clg_gather(tu_ctx(), &d, &x, axis, &o, NULL, 0, NULL, NULL);
  *kernels = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
  *waits = clg_fault_host_waits();
  clg_fault_reset();
  tu_cl_check(clFinish(tu_queue()), "clFinish");
  tu_buffer_read(om, 0, *obytes, got);
  clReleaseMemObject(dm);
  clReleaseMemObject(xm);
  clReleaseMemObject(om);
  free(data);
  free(idx);
  return st;
}

static void reference(int64_t d0, int64_t d1, int64_t d2, int axis,
                      const int64_t *values, int64_t n, float *want) {
  int64_t ds[3] = {d0, d1, d2}, xs[1] = {n};
  size_t dcount = (size_t)(d0 * d1 * d2);
  float *data = malloc(dcount * sizeof *data);
  cr_assert(data);
  for (size_t i = 0; i < dcount; ++i)
    data[i] = (float)i + 0.25f;
  cr_assert_eq(ref_gather(data, 4, 3, ds, values, REF_INDEX_I64, 1, xs, axis,
                          want),
               0, "test bug");
  free(data);
}

/* Every axis, both index types, negative indices: one kernel, one wait,
 * the reference's bytes. */
Test(fused, small_gathers_take_one_kernel, .init = setup) {
  int64_t values[10] = {0, -1, 3, 2, -4, 1, 0, 3, -2, 2};
  for (int axis = 0; axis < 3; ++axis)
    for (size_t isize = 4; isize <= 8; isize += 4) {
      float want[5 * 4 * 10 * 3], got[5 * 4 * 10 * 3];
      size_t obytes = 0;
      unsigned long kernels = 0, waits = 0;
      reference(4, 4, 4, axis, values, 10, want);
      clg_status st = run(4, 4, 4, axis, values, 10, isize, got, &obytes,
                          &kernels, &waits);
      cr_assert_eq(st, CLG_SUCCESS, "axis %d: %s", axis, clg_last_error());
      cr_expect_eq(tu_first_diff(got, want, obytes), -1,
                   "axis %d, %zu-byte indices: output differs", axis, isize);
      cr_expect_eq(kernels, 1, "axis %d: %lu kernels", axis, kernels);
      cr_expect_eq(waits, 1, "axis %d: %lu waits", axis, waits);
    }
}

/* An index out of range at the first, a middle and the last position,
 * above and below: the validation kernel's message (position, value,
 * range), the output's bytes unchanged, one kernel. */
Test(fused, bad_index_writes_nothing, .init = setup) {
  static const int64_t bad[] = {4, -5, INT32_MAX, INT32_MIN};
  static const int64_t where[] = {0, 4, 9};
  for (size_t b = 0; b < 4; ++b)
    for (size_t w = 0; w < 3; ++w)
      for (size_t isize = 4; isize <= 8; isize += 4) {
        int64_t values[10] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1};
        values[where[w]] = bad[b];
        /* A second offender later: the first is named. */
        if (where[w] < 9)
          values[9] = 7;
        unsigned char got[4 * 10 * 4 * 4], old[sizeof got];
        memset(old, TU_SENTINEL, sizeof old);
        size_t obytes = 0;
        unsigned long kernels = 0, waits = 0;
        clg_status st = run(4, 4, 4, 1, values, 10, isize, got, &obytes,
                            &kernels, &waits);
        cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s",
                     clg_last_error());
        char want[64], value[32];
        snprintf(want, sizeof want, "indices[%lld] ", (long long)where[w]);
        snprintf(value, sizeof value, "= %lld,", (long long)bad[b]);
        cr_expect(tu_contains(clg_last_error(), want) &&
                      tu_contains(clg_last_error(), value) &&
                      tu_contains(clg_last_error(), "[-4, 3]"),
                  "want \"%s\", \"%s\": %s", want, value, clg_last_error());
        cr_expect_eq(memcmp(got, old, obytes), 0,
                     "the output was written (bad %lld at %lld)",
                     (long long)bad[b], (long long)where[w]);
        cr_expect_eq(kernels, 1, "%lu kernels", kernels);
      }
}

/* Past CLG_FUSED_MAX_INDICES or CLG_FUSED_MAX_BYTES: the validation kernel
 * and the gated gather. */
Test(fused, larger_calls_take_two_kernels, .init = setup) {
  int64_t n = CLG_FUSED_MAX_INDICES + 1;
  int64_t *values = malloc((size_t)n * sizeof *values);
  cr_assert(values);
  for (int64_t i = 0; i < n; ++i)
    values[i] = (i * 7) % 16;
  float *got = malloc((size_t)n * 4), *want = malloc((size_t)n * 4);
  cr_assert(got && want);
  size_t obytes = 0;
  unsigned long kernels = 0, waits = 0;
  reference(16, 1, 1, 0, values, n, want);
  cr_assert_eq(run(16, 1, 1, 0, values, n, 8, got, &obytes, &kernels, &waits),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(tu_first_diff(got, want, obytes), -1);
  cr_expect_eq(kernels, 2, "%lld indices: %lu kernels", (long long)n,
               kernels);
  /* 10 indices of 8 KiB rows: 80 KiB out. */
  int64_t ten[10] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1};
  float *g2 = malloc(10 * 2048 * 4), *w2 = malloc(10 * 2048 * 4);
  cr_assert(g2 && w2);
  reference(4, 2048, 1, 0, ten, 10, w2);
  cr_assert_eq(run(4, 2048, 1, 0, ten, 10, 8, g2, &obytes, &kernels, &waits),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(tu_first_diff(g2, w2, obytes), -1);
  cr_expect_eq(kernels, 2, "80 KiB out: %lu kernels", kernels);
  free(values);
  free(got);
  free(want);
  free(g2);
  free(w2);
}
