/* core/: allocation hooks, the clock (clock.c), the per-thread status and
 * message (status.c). Not installed. */
#ifndef CLGATHER_HOST_CORE_H
#define CLGATHER_HOST_CORE_H

#include <clgather/clgather.h>

#include "core/faults.h" /* test builds only: wraps OpenCL calls */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Host allocations go through these so test builds can make them fail. */
#if defined(CLGATHER_TESTING)
#define CLG_MALLOC(n) clg__fi_malloc(n)
#define CLG_CALLOC(n, size) clg__fi_calloc(n, size)
#else
#define CLG_MALLOC(n) malloc(n)
#define CLG_CALLOC(n, size) calloc(n, size)
#endif

#if defined(__GNUC__)
#define CLG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLG_PRINTF(f, a)
#endif

/* ------------------------------------------------------------- clock.c */

/* Seconds of a monotonic clock. */
double clg__now(void);

/* ------------------------------------------------------------ status.c */

/* Record `status` and a printf-style message for the calling thread; returns
 * `status` so callers can `return clg__fail(...)`. */
clg_status clg__fail(clg_status status, const char *fmt, ...) CLG_PRINTF(2, 3);
/* Record success (empty message); returns CLG_SUCCESS. */
clg_status clg__ok(void);
/* Record a failed OpenCL call: CLG_ERROR_OPENCL with "CALL failed: NAME (code)
 * while WHAT". */
clg_status clg__fail_cl(cl_int err, const char *call, const char *what);
/* Symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *clg__cl_error_name(cl_int err);
/* Append a formatted shape "[2, 3, 4]" to buf (bounded, always terminated). */
void clg__format_shape(char *buf, size_t cap, int32_t rank,
                       const int64_t *shape);

/* A tensor with strides (CLG_STORAGE_HOST_STRIDED, _BUFFER_STRIDED): the
 * strides of the clg_strided_tensor whose first member it is; NULL for any
 * other storage. */
static inline const int64_t *clg__strides(const clg_tensor *t) {
  if (t->storage != CLG_STORAGE_HOST_STRIDED &&
      t->storage != CLG_STORAGE_BUFFER_STRIDED)
    return NULL;
  return ((const clg_strided_tensor *)(const void *)t)->strides;
}

#endif /* CLGATHER_HOST_CORE_H */
