/* Test-only OpenCL fault injection (see faults.h). Built only into the
 * clgather_testing library. */
#define CLG_FAULTS_IMPL
#include "faults.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_ulong clg_calls[CLG_FAULT_COUNT];
static atomic_ulong clg_waits;
static atomic_ulong clg_events;
static atomic_uint clg_skip[CLG_FAULT_COUNT];
static atomic_uint clg_fail[CLG_FAULT_COUNT];
static atomic_int clg_error[CLG_FAULT_COUNT];
static atomic_bool clg_no_fp64;
static atomic_bool clg_no_denorm;
static atomic_bool clg_flip_endian;
static atomic_bool clg_kill_in_cache_write;

void clg_fault_hide_fp64(bool hide) { atomic_store(&clg_no_fp64, hide); }
void clg_fault_hide_denorm(bool hide) { atomic_store(&clg_no_denorm, hide); }
void clg_fault_flip_endian(bool flip) { atomic_store(&clg_flip_endian, flip); }
bool clg_fault_claims_denorm(void) {
  static atomic_int claim = -1; /* the environment, read once */
  int c = atomic_load(&claim);
  if (c < 0) {
    c = getenv("CLGATHER_TEST_CLAIM_DENORM") != NULL;
    atomic_store(&claim, c);
  }
  return c != 0;
}
void clg_fault_kill_in_cache_write(bool kill) {
  atomic_store(&clg_kill_in_cache_write, kill);
}
void clg__fi_cache_written(void) {
  if (atomic_load(&clg_kill_in_cache_write))
    raise(SIGKILL);
}

void clg_fault_inject(clg_fault kind, unsigned skip, unsigned count,
                      cl_int error) {
  /* CL_SUCCESS would make the failure invisible (clg_hit() returns the error
   * and CL_SUCCESS means "go ahead"): e.g. a CLG_FAULT_HOST_ALLOC armed with
   * error 0 would silently never fail. */
  if (error == CL_SUCCESS)
    error = CL_OUT_OF_HOST_MEMORY;
  atomic_store(&clg_skip[kind], skip);
  atomic_store(&clg_error[kind], error);
  atomic_store(&clg_fail[kind], count);
}

unsigned long clg_fault_calls(clg_fault kind) {
  return atomic_load(&clg_calls[kind]);
}

unsigned long clg_fault_host_waits(void) { return atomic_load(&clg_waits); }

unsigned long clg_fault_events(void) { return atomic_load(&clg_events); }

static void clg_note_event(const cl_event *e) {
  if (e)
    atomic_fetch_add(&clg_events, 1);
}

void clg__fi_note_wait(void) { atomic_fetch_add(&clg_waits, 1); }

static _Thread_local int clg_last_way = -1;

int clg_fault_last_way(void) { return clg_last_way; }

void clg__fi_note_way(int way) { clg_last_way = way; }

void clg_fault_reset(void) {
  atomic_store(&clg_waits, 0);
  atomic_store(&clg_events, 0);
  clg_last_way = -1;
  atomic_store(&clg_no_fp64, false);
  atomic_store(&clg_no_denorm, false);
  atomic_store(&clg_flip_endian, false);
  atomic_store(&clg_kill_in_cache_write, false);
  for (int k = 0; k < CLG_FAULT_COUNT; ++k) {
    atomic_store(&clg_calls[k], 0);
    atomic_store(&clg_skip[k], 0);
    atomic_store(&clg_fail[k], 0);
  }
}

const char *clg_fault_call_name(clg_fault kind) {
  static const char *const names[CLG_FAULT_COUNT] = {
      "clCreateContext",
      "clCreateCommandQueue",
      "clGetDeviceInfo",
      "clGetMemObjectInfo",
      "clGetCommandQueueInfo",
      "clCreateBuffer",
      "clCreateProgramWithSource",
      "clBuildProgram",
      "clCreateKernel",
      "clSetKernelArg",
      "clEnqueueNDRangeKernel",
      "clEnqueueReadBuffer",
      "clEnqueueMarkerWithWaitList",
      "clWaitForEvents",
      "malloc",
      "clCreateProgramWithBinary",
      "clGetProgramInfo",
      "clCreateSubBuffer"};
  return (unsigned)kind < CLG_FAULT_COUNT ? names[kind] : "unknown";
}

/* Count a call of `kind`; CL_SUCCESS to go ahead, else the error to return. */
static cl_int clg_hit(clg_fault kind) {
  atomic_fetch_add(&clg_calls[kind], 1);
  if (atomic_load(&clg_fail[kind]) == 0)
    return CL_SUCCESS;
  if (atomic_load(&clg_skip[kind]) > 0) {
    atomic_fetch_sub(&clg_skip[kind], 1);
    return CL_SUCCESS;
  }
  atomic_fetch_sub(&clg_fail[kind], 1);
  return atomic_load(&clg_error[kind]);
}

#define CLG_FI_OBJECT(kind, errp)                                              \
  do {                                                                         \
    cl_int e_ = clg_hit(kind);                                                 \
    if (e_ != CL_SUCCESS) {                                                    \
      if (errp)                                                                \
        *(errp) = e_;                                                          \
      return NULL;                                                             \
    }                                                                          \
  } while (0)

#define CLG_FI_STATUS(kind)                                                    \
  do {                                                                         \
    cl_int e_ = clg_hit(kind);                                                 \
    if (e_ != CL_SUCCESS)                                                      \
      return e_;                                                               \
  } while (0)

cl_context clg__fi_clCreateContext(
    const cl_context_properties *p, cl_uint n, const cl_device_id *d,
    void(CL_CALLBACK *cb)(const char *, const void *, size_t, void *), void *u,
    cl_int *err) {
  CLG_FI_OBJECT(CLG_FAULT_CREATE_CONTEXT, err);
  return clCreateContext(p, n, d, cb, u, err);
}

cl_command_queue clg__fi_clCreateCommandQueue(cl_context c, cl_device_id d,
                                              cl_command_queue_properties p,
                                              cl_int *err) {
  CLG_FI_OBJECT(CLG_FAULT_CREATE_QUEUE, err);
  return clCreateCommandQueue(c, d, p, err);
}

cl_int clg__fi_clGetDeviceInfo(cl_device_id d, cl_device_info i, size_t s,
                               void *v, size_t *r) {
  CLG_FI_STATUS(CLG_FAULT_DEVICE_INFO);
  cl_int err = clGetDeviceInfo(d, i, s, v, r);
  if (err == CL_SUCCESS && i == CL_DEVICE_EXTENSIONS && v &&
      atomic_load(&clg_no_fp64))
    for (char *at = strstr(v, "cl_khr_fp64"); at;
         at = strstr(at, "cl_khr_fp64"))
      memset(at, ' ', strlen("cl_khr_fp64"));
  if (err == CL_SUCCESS && v && s >= sizeof(cl_device_fp_config) &&
      i == CL_DEVICE_SINGLE_FP_CONFIG && clg_fault_claims_denorm())
    *(cl_device_fp_config *)v |= (cl_device_fp_config)CL_FP_DENORM;
  if (err == CL_SUCCESS && v && s >= sizeof(cl_device_fp_config) &&
      (i == CL_DEVICE_SINGLE_FP_CONFIG || i == CL_DEVICE_DOUBLE_FP_CONFIG) &&
      atomic_load(&clg_no_denorm))
    *(cl_device_fp_config *)v &= ~(cl_device_fp_config)CL_FP_DENORM;
  if (err == CL_SUCCESS && v && s >= sizeof(cl_bool) &&
      i == CL_DEVICE_ENDIAN_LITTLE && atomic_load(&clg_flip_endian))
    *(cl_bool *)v = *(cl_bool *)v ? CL_FALSE : CL_TRUE;
  return err;
}

cl_int clg__fi_clGetMemObjectInfo(cl_mem m, cl_mem_info i, size_t s, void *v,
                                  size_t *r) {
  CLG_FI_STATUS(CLG_FAULT_MEM_INFO);
  return clGetMemObjectInfo(m, i, s, v, r);
}

cl_int clg__fi_clGetCommandQueueInfo(cl_command_queue q,
                                     cl_command_queue_info i, size_t s, void *v,
                                     size_t *r) {
  CLG_FI_STATUS(CLG_FAULT_QUEUE_INFO);
  return clGetCommandQueueInfo(q, i, s, v, r);
}

cl_mem clg__fi_clCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *h,
                              cl_int *err) {
  CLG_FI_OBJECT(CLG_FAULT_CREATE_BUFFER, err);
  return clCreateBuffer(c, f, s, h, err);
}

cl_mem clg__fi_clCreateSubBuffer(cl_mem m, cl_mem_flags f,
                                 cl_buffer_create_type t, const void *info,
                                 cl_int *err) {
  CLG_FI_OBJECT(CLG_FAULT_CREATE_SUB_BUFFER, err);
  return clCreateSubBuffer(m, f, t, info, err);
}

cl_program clg__fi_clCreateProgramWithSource(cl_context c, cl_uint n,
                                             const char **src,
                                             const size_t *len, cl_int *err) {
  CLG_FI_OBJECT(CLG_FAULT_CREATE_PROGRAM, err);
  return clCreateProgramWithSource(c, n, src, len, err);
}

cl_int clg__fi_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d,
                              const char *o,
                              void(CL_CALLBACK *cb)(cl_program, void *),
                              void *u) {
  CLG_FI_STATUS(CLG_FAULT_BUILD_PROGRAM);
  return clBuildProgram(p, n, d, o, cb, u);
}

cl_program clg__fi_clCreateProgramWithBinary(cl_context c, cl_uint n,
                                             const cl_device_id *d,
                                             const size_t *len,
                                             const unsigned char **bin,
                                             cl_int *status, cl_int *err) {
  CLG_FI_OBJECT(CLG_FAULT_CREATE_PROGRAM_BINARY, err);
  return clCreateProgramWithBinary(c, n, d, len, bin, status, err);
}

cl_int clg__fi_clGetProgramInfo(cl_program p, cl_program_info i, size_t s,
                                void *v, size_t *r) {
  CLG_FI_STATUS(CLG_FAULT_PROGRAM_INFO);
  return clGetProgramInfo(p, i, s, v, r);
}

cl_kernel clg__fi_clCreateKernel(cl_program p, const char *name, cl_int *err) {
  CLG_FI_OBJECT(CLG_FAULT_CREATE_KERNEL, err);
  return clCreateKernel(p, name, err);
}

cl_int clg__fi_clSetKernelArg(cl_kernel k, cl_uint i, size_t s, const void *v) {
  CLG_FI_STATUS(CLG_FAULT_SET_KERNEL_ARG);
  return clSetKernelArg(k, i, s, v);
}

cl_int clg__fi_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
                                      cl_uint dim, const size_t *off,
                                      const size_t *g, const size_t *l,
                                      cl_uint ne, const cl_event *w,
                                      cl_event *e) {
  CLG_FI_STATUS(CLG_FAULT_ENQUEUE_KERNEL);
  clg_note_event(e);
  return clEnqueueNDRangeKernel(q, k, dim, off, g, l, ne, w, e);
}

cl_int clg__fi_clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                                   size_t off, size_t n, void *p, cl_uint ne,
                                   const cl_event *w, cl_event *e) {
  CLG_FI_STATUS(CLG_FAULT_READ_BUFFER);
  if (b)
    clg__fi_note_wait();
  return clEnqueueReadBuffer(q, m, b, off, n, p, ne, w, e);
}

cl_int clg__fi_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint ne,
                                           const cl_event *w, cl_event *e) {
  CLG_FI_STATUS(CLG_FAULT_MARKER);
  clg_note_event(e);
  return clEnqueueMarkerWithWaitList(q, ne, w, e);
}

cl_int clg__fi_clWaitForEvents(cl_uint n, const cl_event *e) {
  CLG_FI_STATUS(CLG_FAULT_WAIT);
  clg__fi_note_wait();
  return clWaitForEvents(n, e);
}

cl_int clg__wait_uncounted(cl_uint n, const cl_event *e) {
  return clWaitForEvents(n, e);
}

void *clg__fi_malloc(size_t n) {
  return clg_hit(CLG_FAULT_HOST_ALLOC) == CL_SUCCESS ? malloc(n) : NULL;
}

void *clg__fi_calloc(size_t n, size_t size) {
  return clg_hit(CLG_FAULT_HOST_ALLOC) == CL_SUCCESS ? calloc(n, size) : NULL;
}

cl_device_type clg__fi_kernel_device(cl_device_type real) {
  const char *e = getenv("CLGATHER_TEST_KERNEL_DEVICE");
  if (e && strcmp(e, "gpu") == 0)
    return CL_DEVICE_TYPE_GPU;
  if (e && strcmp(e, "cpu") == 0)
    return CL_DEVICE_TYPE_CPU;
  return real;
}

int clg__fi_device_validation(void) {
  const char *e = getenv("CLGATHER_TEST_DEVICE_VALIDATION");
  if (e && strcmp(e, "always") == 0)
    return 1;
  if (e && strcmp(e, "never") == 0)
    return 0;
  return -1;
}

/* A way the test build leaves off unless the variable `name` says
 * "always" (1) or "rule" (-1, the library's own rule). */
static int clg_fi_way(const char *name) {
  const char *e = getenv(name);
  if (e && strcmp(e, "always") == 0)
    return 1;
  if (e && strcmp(e, "rule") == 0)
    return -1;
  return 0;
}

int clg__fi_host_run(void) { return clg_fi_way("CLGATHER_TEST_HOST_RUN"); }

int clg__fi_fused(void) { return clg_fi_way("CLGATHER_TEST_FUSED"); }

cl_ulong clg__fi_max_alloc(cl_ulong real) {
  const char *e = getenv("CLGATHER_TEST_MAX_ALLOC");
  if (!e || !*e)
    return real;
  char *end = NULL;
  unsigned long long v = strtoull(e, &end, 10);
  if (*end != '\0' || v == 0)
    return real;
  if (v < 64) /* split.c's smallest workable limit */
    v = 64;
  return real && (cl_ulong)v > real ? real : (cl_ulong)v;
}
