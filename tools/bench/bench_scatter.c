/* clgather-bench-scatter: the scatters' workloads (issue "The scatter
 * family"), on cl_mem tensors, as ratios within one run:
 *
 *   SE1  ScatterElements none, in place, f32 [4096, 4096], axis 1, 1024
 *        distinct indices per row;
 *   SN1  ScatterND add, in place, f32 [50000, 768], indices [4096, 1]
 *        uniform (repeats), updates [4096, 768] (an embedding's backward
 *        pass);
 *   SN2  ScatterND add, in place, f32 [1000000, 16], 1e6 uniform indices
 *        (many repeats; W2's backward pass).
 *
 * For each: the clg_scatter() call end to end (index checks on the host
 * included, clFinish), the device's copy of the updated bytes
 * (clEnqueueCopyBuffer of updates' bytes: copy-ref), their ratio, and the
 * host's share of the call (1 - the kernels' event time / the call), the
 * cost of the index checks, duplicate search and ordering. Medians of
 * interleaved samples. --json prints one JSON object (for
 * scripts/bench_scatter_numpy.py, which adds np.add.at in the same run).
 *
 *   clgather-bench-scatter [--json] [--reps N] [--only SE1,SN1,SN2]
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"
#include "cases/case.h"

#include <clgather/clgather.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct work {
  const char *name, *what;
  clg_op op;
  int64_t axis;
  clg_reduction red;
  int64_t ds[2], is[2], us[2];
} work;

static const work works[] = {
    {"SE1", "ScatterElements none f32[4096,4096] axis 1, 1024/row",
     CLG_OP_SCATTER_ELEMENTS, 1, CLG_REDUCTION_NONE, {4096, 4096},
     {4096, 1024}, {4096, 1024}},
    {"SN1", "ScatterND add f32[50000,768] idx[4096,1]", CLG_OP_SCATTER_ND, 0,
     CLG_REDUCTION_ADD, {50000, 768}, {4096, 1}, {4096, 768}},
    {"SN2", "ScatterND add f32[1000000,16] idx[1e6,1]", CLG_OP_SCATTER_ND, 0,
     CLG_REDUCTION_ADD, {1000000, 16}, {1000000, 1}, {1000000, 16}},
};
#define NWORK (sizeof works / sizeof works[0])

static case_rng rng_state = {0x9E3779B97F4A7C15ull}; /* case_rng_make(0) */
static uint64_t rng(void) { return case_rng_u64(&rng_state); }

static cl_mem buffer(cl_context c, size_t bytes, void *init) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            bytes, init, &err);
  if (!m) {
    fprintf(stderr, "clgather-bench-scatter: clCreateBuffer: %d\n", err);
    exit(3);
  }
  return m;
}

/* Inputs of work w: data zeros, updates ones, indices as described. */
static void make_inputs(const work *w, float **data, int64_t **idx,
                        float **upd) {
  size_t dn = (size_t)(w->ds[0] * w->ds[1]), xn = (size_t)(w->is[0] * w->is[1]),
         un = (size_t)(w->us[0] * w->us[1]);
  *data = calloc(dn, sizeof **data);
  *idx = malloc(xn * sizeof **idx);
  *upd = malloc(un * sizeof **upd);
  if (!*data || !*idx || !*upd) {
    fprintf(stderr, "clgather-bench-scatter: out of host memory\n");
    exit(3);
  }
  for (size_t i = 0; i < un; ++i)
    (*upd)[i] = 1.0f;
  if (w->op == CLG_OP_SCATTER_ELEMENTS) { /* distinct per row */
    int64_t s = w->ds[1], n = w->is[1];
    int64_t *perm = malloc((size_t)s * sizeof *perm);
    for (int64_t r = 0; r < w->is[0]; ++r) {
      for (int64_t i = 0; i < s; ++i)
        perm[i] = i;
      for (int64_t i = 0; i < n; ++i) {
        int64_t j = i + (int64_t)(rng() % (uint64_t)(s - i)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        (*idx)[r * n + i] = perm[i];
      }
    }
    free(perm);
  } else
    for (size_t i = 0; i < xn; ++i)
      (*idx)[i] = (int64_t)(rng() % (uint64_t)w->ds[0]);
}

typedef struct row {
  double call, kernel, copy;
} row;

static row measure(clg_context *ctx, cl_command_queue q, const work *w,
                   int reps) {
  cl_context c = NULL;
  clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof c, &c, NULL);
  float *data, *upd;
  int64_t *idx;
  make_inputs(w, &data, &idx, &upd);
  size_t dbytes = (size_t)(w->ds[0] * w->ds[1]) * 4,
         xbytes = (size_t)(w->is[0] * w->is[1]) * 8,
         ubytes = (size_t)(w->us[0] * w->us[1]) * 4;
  cl_mem bd = buffer(c, dbytes, data), bx = buffer(c, xbytes, idx),
         bu = buffer(c, ubytes, upd), bc = buffer(c, ubytes, upd);
  clg_tensor td = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, w->ds, bd, 0);
  clg_tensor tx = clg_tensor_buffer(CLG_DTYPE_INT64, 2, w->is, bx, 0);
  clg_tensor tu = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, w->us, bu, 0);
  clg_params p = {w->op, w->axis, 0, CLG_MODE_RAISE};
  clg_scatter_params sp = {w->red, CLG_DUPLICATES_ERROR};
  double *call = malloc((size_t)reps * sizeof *call),
         *kern = malloc((size_t)reps * sizeof *kern),
         *copy = malloc((size_t)reps * sizeof *copy);
  for (int i = -1; i < reps; ++i) { /* one warm-up: program builds */
    cl_event ev = NULL;
    double t0 = bench_now();
    clg_status st =
        clg_scatter(ctx, &p, &sp, &td, &tx, &tu, &td, q, 0, NULL, &ev);
    clFinish(q);
    double t = bench_now() - t0;
    if (st != CLG_SUCCESS) {
      fprintf(stderr, "clgather-bench-scatter: %s: %s\n", w->name,
              clg_last_error());
      exit(1);
    }
    cl_ulong a = 0, b = 0;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a,
                            NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
    clReleaseEvent(ev);
    t0 = bench_now();
    clEnqueueCopyBuffer(q, bu, bc, 0, 0, ubytes, 0, NULL, NULL);
    clFinish(q);
    if (i >= 0) {
      copy[i] = bench_now() - t0;
      call[i] = t;
      kern[i] = (double)(b - a) * 1e-9;
    }
  }
  row r = {median_of(call, reps), median_of(kern, reps), median_of(copy, reps)};
  free(call);
  free(kern);
  free(copy);
  clReleaseMemObject(bd);
  clReleaseMemObject(bx);
  clReleaseMemObject(bu);
  clReleaseMemObject(bc);
  free(data);
  free(idx);
  free(upd);
  return r;
}

int main(int argc, char **argv) {
  int json = 0, reps = 7;
  const char *only = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--json") == 0)
      json = 1;
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else {
      fprintf(stderr, "usage: clgather-bench-scatter [--json] [--reps N] "
                      "[--only SE1,SN1,SN2]\n");
      return 2;
    }
  }
  if (reps < 1)
    reps = 1;
  clg_context *ctx = NULL;
  if (clg_context_create_default(NULL, &ctx) != CLG_SUCCESS) {
    fprintf(stderr, "clgather-bench-scatter: %s\n", clg_last_error());
    return 3;
  }
  cl_command_queue q0 = clg_context_queue(ctx);
  cl_context c = NULL;
  cl_device_id dev = NULL;
  clGetCommandQueueInfo(q0, CL_QUEUE_CONTEXT, sizeof c, &c, NULL);
  clGetCommandQueueInfo(q0, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
  cl_int err = CL_SUCCESS;
  cl_command_queue q =
      clCreateCommandQueue(c, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  char name[256] = {0};
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  if (!q) {
    fprintf(stderr, "clgather-bench-scatter: clCreateCommandQueue: %d\n", err);
    return 3;
  }
  if (json)
    printf("{\"device\": \"%s\", \"reps\": %d, \"workloads\": [", name, reps);
  else
    printf("clgather-bench-scatter on %s, medians of %d\n\n"
           "%-4s %-52s %9s %9s %9s %9s %6s\n",
           name, reps, "", "workload", "call ms", "kern ms", "copy ms",
           "copy/call", "host");
  int first = 1;
  for (size_t k = 0; k < NWORK; ++k) {
    if (only && !strstr(only, works[k].name))
      continue;
    row r = measure(ctx, q, &works[k], reps);
    double host = 1.0 - r.kernel / r.call;
    if (json)
      printf("%s{\"name\": \"%s\", \"call_s\": %.6g, \"kernel_s\": %.6g, "
             "\"copy_ref_s\": %.6g, \"x_copy_ref\": %.4f, "
             "\"host_share\": %.4f}",
             first ? "" : ", ", works[k].name, r.call, r.kernel, r.copy,
             r.copy / r.call, host);
    else
      printf("%-4s %-52s %9.3f %9.3f %9.3f %9.2f %5.0f%%\n", works[k].name,
             works[k].what, r.call * 1e3, r.kernel * 1e3, r.copy * 1e3,
             r.copy / r.call, host * 100);
    first = 0;
    fflush(stdout);
  }
  if (json)
    printf("]}\n");
  else
    printf("\ncall: clg_scatter() on cl_mem tensors, in place, + clFinish "
           "(the index pass included: bounds, targets, the duplicate search "
           "and the ordering, on the device from 32 KiB of indices);\nkern: "
           "the last kernel's event (the scatter); copy: clEnqueueCopyBuffer "
           "of the updates' bytes (copy-ref);\nhost: 1 - kern / call, the "
           "share of the call outside the scatter kernel (the index pass's "
           "kernels included).\n");
  clReleaseCommandQueue(q);
  clg_context_destroy(ctx);
  return 0;
}
