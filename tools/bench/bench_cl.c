/* clgather-bench: the references measured with OpenCL directly, outside the
 * library: clEnqueueCopyBuffer, a plain copy kernel that splits the bytes
 * into one contiguous block per work-group with several work-groups per
 * compute unit, and an empty kernel (the launch floor). */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>

static const char bench_cl_source[] =
    "kernel void bench_copy16(global const uint4 *restrict src,\n"
    "                         global uint4 *restrict dst, ulong n,\n"
    "                         ulong chunk) {\n"
    "  ulong start = get_global_id(0) * chunk;\n"
    "  ulong end = min(start + chunk, n);\n"
    "  for (ulong i = start; i < end; ++i)\n"
    "    dst[i] = src[i];\n"
    "}\n"
    "kernel void bench_copy1(global const uchar *restrict src,\n"
    "                        global uchar *restrict dst, ulong n,\n"
    "                        ulong chunk) {\n"
    "  ulong start = get_global_id(0) * chunk;\n"
    "  ulong end = min(start + chunk, n);\n"
    "  for (ulong i = start; i < end; ++i)\n"
    "    dst[i] = src[i];\n"
    "}\n"
    "kernel void bench_empty(void) {}\n";

/* Work-groups per compute unit for the copy kernel (load balance). */
#define BENCH_GROUPS_PER_CU 4

const char *bench_cl_error(cl_int err) {
  switch (err) {
#define E(x)                                                                   \
  case x: return #x;
    E(CL_SUCCESS)
    E(CL_DEVICE_NOT_FOUND)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    E(CL_OUT_OF_RESOURCES)
    E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE)
    E(CL_BUILD_PROGRAM_FAILURE)
    E(CL_INVALID_VALUE)
    E(CL_INVALID_CONTEXT)
    E(CL_INVALID_COMMAND_QUEUE)
    E(CL_INVALID_MEM_OBJECT)
    E(CL_INVALID_KERNEL)
    E(CL_INVALID_KERNEL_ARGS)
    E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_EVENT)
#undef E
  default: return "CL error";
  }
}

int bench_cl_init(bench_cl *b, cl_context ctx, cl_device_id dev, char *err,
                  size_t errlen) {
  cl_int e = CL_SUCCESS;
  b->ctx = ctx;
  b->dev = dev;
  b->queue = NULL;
  b->program = NULL;
  b->copy16 = b->copy1 = b->empty = NULL;
  b->compute_units = 1;
  b->max_wg = 1;
  clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof b->compute_units,
                  &b->compute_units, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof b->max_wg,
                  &b->max_wg, NULL);
  if (b->compute_units < 1)
    b->compute_units = 1;
  b->queue = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e);
  if (!b->queue) {
    snprintf(err, errlen, "clCreateCommandQueue (profiling): %s (%d)",
             bench_cl_error(e), (int)e);
    return -1;
  }
  const char *src = bench_cl_source;
  b->program = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
  if (!b->program) {
    snprintf(err, errlen, "clCreateProgramWithSource: %s (%d)",
             bench_cl_error(e), (int)e);
    return -1;
  }
  e = clBuildProgram(b->program, 1, &dev, "", NULL, NULL);
  if (e != CL_SUCCESS) {
    char log[2048] = "";
    clGetProgramBuildInfo(b->program, dev, CL_PROGRAM_BUILD_LOG,
                          sizeof log - 1, log, NULL);
    snprintf(err, errlen, "building the copy/empty kernels: %s (%d): %s",
             bench_cl_error(e), (int)e, log);
    return -1;
  }
  b->copy16 = clCreateKernel(b->program, "bench_copy16", &e);
  if (b->copy16)
    b->copy1 = clCreateKernel(b->program, "bench_copy1", &e);
  if (b->copy1)
    b->empty = clCreateKernel(b->program, "bench_empty", &e);
  if (!b->empty) {
    snprintf(err, errlen, "clCreateKernel: %s (%d)", bench_cl_error(e),
             (int)e);
    return -1;
  }
  return 0;
}

void bench_cl_release(bench_cl *b) {
  if (b->copy16)
    clReleaseKernel(b->copy16);
  if (b->copy1)
    clReleaseKernel(b->copy1);
  if (b->empty)
    clReleaseKernel(b->empty);
  if (b->program)
    clReleaseProgram(b->program);
  if (b->queue)
    clReleaseCommandQueue(b->queue);
  b->copy16 = b->copy1 = b->empty = NULL;
  b->program = NULL;
  b->queue = NULL;
}

double bench_event_seconds(cl_event ev) {
  cl_ulong t0 = 0, t1 = 0;
  if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0,
                              NULL) != CL_SUCCESS ||
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1,
                              NULL) != CL_SUCCESS)
    return -1.0;
  return (double)(t1 - t0) * 1e-9;
}

/* Wait for ev, take its profiled time, release it. */
static int bench_finish(cl_event ev, double *seconds) {
  cl_int e = clWaitForEvents(1, &ev);
  double t = e == CL_SUCCESS ? bench_event_seconds(ev) : -1.0;
  clReleaseEvent(ev);
  if (t < 0)
    return -1;
  *seconds = t;
  return 0;
}

int bench_cl_copy(bench_cl *b, int method, cl_mem src, cl_mem dst,
                  size_t bytes, double *seconds) {
  cl_event ev = NULL;
  cl_int e;
  if (method == 0) {
    e = clEnqueueCopyBuffer(b->queue, src, dst, 0, 0, bytes, 0, NULL, &ev);
  } else {
    cl_kernel k = bytes % 16 == 0 ? b->copy16 : b->copy1;
    cl_ulong n = bytes % 16 == 0 ? bytes / 16 : bytes;
    /* One contiguous chunk per work-item, work-groups of one work-item,
     * BENCH_GROUPS_PER_CU of them per compute unit: on a CPU device each
     * work-group is a plain memcpy-like loop on one core. */
    size_t local = 1;
    size_t items = (size_t)b->compute_units * BENCH_GROUPS_PER_CU;
    cl_ulong chunk = (n + items - 1) / items;
    if (chunk < 1)
      chunk = 1;
    size_t global = (size_t)((n + chunk - 1) / chunk);
    e = clSetKernelArg(k, 0, sizeof src, &src);
    if (e == CL_SUCCESS)
      e = clSetKernelArg(k, 1, sizeof dst, &dst);
    if (e == CL_SUCCESS)
      e = clSetKernelArg(k, 2, sizeof n, &n);
    if (e == CL_SUCCESS)
      e = clSetKernelArg(k, 3, sizeof chunk, &chunk);
    if (e == CL_SUCCESS)
      e = clEnqueueNDRangeKernel(b->queue, k, 1, NULL, &global, &local, 0,
                                 NULL, &ev);
  }
  if (e != CL_SUCCESS)
    return -1;
  return bench_finish(ev, seconds);
}

int bench_cl_empty(bench_cl *b, double *event_s, double *wall_s) {
  size_t one = 1;
  cl_event ev = NULL;
  double t0 = bench_now();
  cl_int e =
      clEnqueueNDRangeKernel(b->queue, b->empty, 1, NULL, &one, &one, 0, NULL,
                             &ev);
  if (e != CL_SUCCESS)
    return -1;
  e = clWaitForEvents(1, &ev);
  *wall_s = bench_now() - t0;
  double t = e == CL_SUCCESS ? bench_event_seconds(ev) : -1.0;
  clReleaseEvent(ev);
  if (t < 0)
    return -1;
  *event_s = t;
  return 0;
}
