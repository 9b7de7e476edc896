/* clgather-bench: shared declarations of the benchmark's parts.
 *
 * bench.c      options, the workloads, measuring, the table and JSON.
 * bench_ref.c  random inputs and a plain-C reference for Gather (batch_dims,
 *              modes), GatherElements and GatherND, written from the
 *              operators' definitions (DESIGN.md "Semantics"), not from the
 *              library's code.
 * bench_cl.c   the OpenCL-only references: clEnqueueCopyBuffer, a plain copy
 *              kernel over every compute unit, and an empty kernel.
 */
#ifndef CLGATHER_TOOLS_BENCH_H
#define CLGATHER_TOOLS_BENCH_H

#include <clgather/clgather.h>

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ bench_ref.c */

/* splitmix64: small, fast, fixed seed => the same inputs every run. */
typedef struct bench_rng {
  uint64_t state;
} bench_rng;

uint64_t bench_rng_next(bench_rng *r);
/* Uniform in [lo, hi) (hi > lo). */
int64_t bench_rng_range(bench_rng *r, int64_t lo, int64_t hi);
/* Fill `bytes` bytes with random bits. */
void bench_fill_random(void *p, size_t bytes, bench_rng *r);

/* One operator call's description: params, data and indices shapes. */
typedef struct bench_op {
  clg_params params;
  clg_dtype dtype;
  int32_t drank;
  int64_t dshape[CLG_MAX_RANK];
  clg_dtype itype; /* CLG_DTYPE_INT32 or CLG_DTYPE_INT64 */
  int32_t irank;
  int64_t ishape[CLG_MAX_RANK];
} bench_op;

/* Element count of a shape (1 for rank 0). */
uint64_t bench_numel(int32_t rank, const int64_t *shape);

/* Output shape from the operator's definition (params normalised as the
 * ONNX/TF rules say). Returns 0, or -1 for shapes the bench cannot handle. */
int bench_ref_shape(const bench_op *op, int32_t *out_rank, int64_t *out_shape);

/* Fill `indices` with uniform random values: in range for mode RAISE (for
 * Gather and GatherElements [0, s), for GatherND component j [0, d_j)); in
 * [-2s, 2s) for WRAP and [-s/16, s + s/16) for CLIP, so that the mode's
 * mapping is exercised while the rows read stay spread as in RAISE. */
void bench_make_indices(const bench_op *op, void *indices, bench_rng *r);

/* out = the operator applied to data and indices, from its definition.
 * Returns 0, or -1 on an out-of-range index in mode RAISE. */
int bench_reference(const bench_op *op, const void *data, const void *indices,
                    void *out);

/* ------------------------------------------------------------- bench_cl.c */

/* OpenCL objects the bench uses outside the library. */
typedef struct bench_cl {
  cl_context ctx;
  cl_device_id dev;
  cl_command_queue queue; /* in-order, CL_QUEUE_PROFILING_ENABLE */
  cl_program program;
  cl_kernel copy16, copy1, empty;
  cl_uint compute_units;
  size_t max_wg;
} bench_cl;

/* Create the profiling queue and build the copy and empty kernels. Returns
 * 0, or -1 with a message in err. */
int bench_cl_init(bench_cl *b, cl_context ctx, cl_device_id dev, char *err,
                  size_t errlen);
void bench_cl_release(bench_cl *b);

/* END - START of a completed, profiled event, in seconds; < 0 on error. */
double bench_event_seconds(cl_event ev);

/* Copy `bytes` from src to dst with clEnqueueCopyBuffer (method 0) or the
 * copy kernel (method 1) on b->queue; wait; *seconds = event time. */
int bench_cl_copy(bench_cl *b, int method, cl_mem src, cl_mem dst,
                  size_t bytes, double *seconds);
/* Launch the empty kernel (one work-item) and wait: *event_s the profiled
 * time, *wall_s enqueue-to-completion wall clock. */
int bench_cl_empty(bench_cl *b, double *event_s, double *wall_s);

/* Monotonic wall clock in seconds. */
double bench_now(void);

/* Name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *bench_cl_error(cl_int err);

#endif /* CLGATHER_TOOLS_BENCH_H */
