/* Test-only OpenCL fault injection and call counting.
 *
 * Compiled only into the `clgather_testing` library (CLGATHER_TESTING
 * defined); the shipped libraries contain none of it. In a testing build
 * every OpenCL call below made by host/ goes through a wrapper that counts it
 * and, when armed, fails it with a chosen error code instead of calling
 * OpenCL, so tests can prove each failure returns a status naming the OpenCL
 * error, leaks nothing and leaves the output untouched. Not thread-safe to
 * arm while other threads call the library. */
#ifndef CLGATHER_HOST_FAULTS_H
#define CLGATHER_HOST_FAULTS_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdbool.h>

/* The kinds of OpenCL call that can be made to fail. */
typedef enum clg_fault {
  CLG_FAULT_CREATE_CONTEXT, /* clCreateContext */
  CLG_FAULT_CREATE_QUEUE,   /* clCreateCommandQueue */
  CLG_FAULT_DEVICE_INFO,    /* clGetDeviceInfo */
  CLG_FAULT_MEM_INFO,       /* clGetMemObjectInfo */
  CLG_FAULT_QUEUE_INFO,     /* clGetCommandQueueInfo */
  CLG_FAULT_CREATE_BUFFER,  /* clCreateBuffer */
  CLG_FAULT_CREATE_PROGRAM, /* clCreateProgramWithSource */
  CLG_FAULT_BUILD_PROGRAM,  /* clBuildProgram */
  CLG_FAULT_CREATE_KERNEL,  /* clCreateKernel */
  CLG_FAULT_SET_KERNEL_ARG, /* clSetKernelArg */
  CLG_FAULT_ENQUEUE_KERNEL, /* clEnqueueNDRangeKernel */
  CLG_FAULT_READ_BUFFER,    /* clEnqueueReadBuffer */
  CLG_FAULT_MARKER,         /* clEnqueueMarkerWithWaitList */
  CLG_FAULT_WAIT,           /* clWaitForEvents */
  CLG_FAULT_HOST_ALLOC,     /* malloc/calloc in host/ (fails with NULL) */
  CLG_FAULT_CREATE_PROGRAM_BINARY, /* clCreateProgramWithBinary */
  CLG_FAULT_PROGRAM_INFO,          /* clGetProgramInfo */
  CLG_FAULT_CREATE_SUB_BUFFER,     /* clCreateSubBuffer */
  CLG_FAULT_COUNT
} clg_fault;

/* After `skip` more calls of `kind` succeed, fail the next `count` with
 * `error`. count 0 disarms. `error` CL_SUCCESS is taken as
 * CL_OUT_OF_HOST_MEMORY (a failure must fail); CLG_FAULT_HOST_ALLOC ignores
 * the code and returns NULL. */
void clg_fault_inject(clg_fault kind, unsigned skip, unsigned count,
                      cl_int error);
/* Calls of `kind` made since the last clg_fault_reset(), failed ones too. */
unsigned long clg_fault_calls(clg_fault kind);
/* Host waits since the last clg_fault_reset(): clWaitForEvents calls,
 * blocking reads, and polled reads (device/enqueue.c, clg__read_wait: one
 * each, however its wait ends). What a call costs is counted with it
 * (tests/run/test_call_costs.c). */
unsigned long clg_fault_host_waits(void);
/* Events asked for since the last clg_fault_reset() by kernel and marker
 * enqueues that went to the driver (not reads': a polled read makes one
 * of its own, or not, by measured time, device/enqueue.c). */
unsigned long clg_fault_events(void);
/* The way (run/run.h's clg_check_way, as an int) by which the calling
 * thread's last call of an operator checked its index values, as the call
 * chose it (run/call.c, run/embedding_bag.c); -1 where none was chosen
 * since the thread's last clg_fault_reset(). The suites that force each
 * way check with it that the way they force is the one taken
 * (tests/run/test_ways.c). */
int clg_fault_last_way(void);
/* Disarm every kind and zero the counters (and the calling thread's last
 * way). */
void clg_fault_reset(void);
/* While `hide` is set, CL_DEVICE_EXTENSIONS comes back without
 * cl_khr_fp64 (blanked out, same length): the refusal of reductions that
 * need doubles on a device without them, reachable on POCL (which has
 * them). clg_fault_reset() clears it. */
void clg_fault_hide_fp64(bool hide);
/* While `hide` is set, CL_DEVICE_SINGLE_FP_CONFIG and DOUBLE_FP_CONFIG come
 * back without CL_FP_DENORM (a device that flushes subnormals): the
 * refusal of float reductions there, reachable on POCL. clg_fault_reset()
 * clears it. */
void clg_fault_hide_denorm(bool hide);
/* With the environment variable CLGATHER_TEST_CLAIM_DENORM set (to
 * anything) when the process starts, CL_DEVICE_SINGLE_FP_CONFIG comes back
 * with CL_FP_DENORM on a device that flushes subnormal floats (Rusticl's
 * llvmpipe): the float reductions the library refuses there then run, so
 * that the suites' cases, whose values are normal floats, test the scatter
 * and EmbeddingBag kernels on such a device (tests/rusticl/suites.sh).
 * Not cleared by clg_fault_reset(); hide_denorm wins over it. */
bool clg_fault_claims_denorm(void);
/* While `flip` is set, CL_DEVICE_ENDIAN_LITTLE comes back inverted: a
 * device whose byte order is not the host's, refused by context creation
 * (device/context.c). clg_fault_reset() clears it. */
void clg_fault_flip_endian(bool flip);
/* While `kill` is set, a store to the on-disk cache (device/cache.c)
 * raises SIGKILL on the process once its bytes are written and before the
 * file is named: what a kill at that moment leaves in the directory is
 * then checked (tests/device/test_cache.c). clg_fault_reset() clears
 * it. */
void clg_fault_kill_in_cache_write(bool kill);
/* "clCreateBuffer" etc. */
const char *clg_fault_call_name(clg_fault kind);

#if defined(CLGATHER_TESTING)
/* The wrappers; host/ calls them under the OpenCL names (macros below). */
cl_context clg__fi_clCreateContext(
    const cl_context_properties *, cl_uint, const cl_device_id *,
    void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *,
    cl_int *);
cl_command_queue clg__fi_clCreateCommandQueue(cl_context, cl_device_id,
                                              cl_command_queue_properties,
                                              cl_int *);
cl_int clg__fi_clGetDeviceInfo(cl_device_id, cl_device_info, size_t, void *,
                               size_t *);
cl_int clg__fi_clGetMemObjectInfo(cl_mem, cl_mem_info, size_t, void *,
                                  size_t *);
cl_int clg__fi_clGetCommandQueueInfo(cl_command_queue, cl_command_queue_info,
                                     size_t, void *, size_t *);
cl_mem clg__fi_clCreateBuffer(cl_context, cl_mem_flags, size_t, void *,
                              cl_int *);
cl_mem clg__fi_clCreateSubBuffer(cl_mem, cl_mem_flags, cl_buffer_create_type,
                                 const void *, cl_int *);
cl_program clg__fi_clCreateProgramWithSource(cl_context, cl_uint, const char **,
                                             const size_t *, cl_int *);
cl_int clg__fi_clBuildProgram(cl_program, cl_uint, const cl_device_id *,
                              const char *,
                              void(CL_CALLBACK *)(cl_program, void *), void *);
cl_program clg__fi_clCreateProgramWithBinary(cl_context, cl_uint,
                                             const cl_device_id *,
                                             const size_t *,
                                             const unsigned char **, cl_int *,
                                             cl_int *);
cl_int clg__fi_clGetProgramInfo(cl_program, cl_program_info, size_t, void *,
                                size_t *);
cl_kernel clg__fi_clCreateKernel(cl_program, const char *, cl_int *);
cl_int clg__fi_clSetKernelArg(cl_kernel, cl_uint, size_t, const void *);
cl_int clg__fi_clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint,
                                      const size_t *, const size_t *,
                                      const size_t *, cl_uint, const cl_event *,
                                      cl_event *);
cl_int clg__fi_clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t,
                                   size_t, void *, cl_uint, const cl_event *,
                                   cl_event *);
cl_int clg__fi_clEnqueueMarkerWithWaitList(cl_command_queue, cl_uint,
                                           const cl_event *, cl_event *);
cl_int clg__fi_clWaitForEvents(cl_uint, const cl_event *);
void *clg__fi_malloc(size_t);
/* CLGATHER_TEST_KERNEL_DEVICE=gpu|cpu: the device type to make kernels for
 * instead of `real` (see clg__kernel_device). */
cl_device_type clg__fi_kernel_device(cl_device_type real);
void *clg__fi_calloc(size_t, size_t);
/* CLGATHER_TEST_DEVICE_VALIDATION=always|never: validate cl_mem indices on
 * the device (1) or by a read-back (0) whatever their size; -1 when unset
 * (the measured choice, CLG_VALIDATE_DEVICE_MIN_BYTES in
 * host/run/index_pass.c). */
int clg__fi_device_validation(void);
/* CLGATHER_TEST_HOST_RUN: "always" 1 (a call that may run on the host
 * does, whatever its device and size), "rule" -1 (the library's rule:
 * run/strategy.c, clg__host_run_applies), else 0 (never: the test build's
 * default, so that the suites' host tensors reach the kernels; the suites
 * that run with "always" and tests/run/test_host_run.c check the host's
 * way). */
int clg__fi_host_run(void);
/* CLGATHER_TEST_FUSED: "always" 1 (every call that may take way FUSED
 * does, whatever its size), "rule" -1 (run/strategy.c,
 * clg__fused_applies), else 0 (never: the test build's default, so that
 * the suites' small cl_mem calls reach the validation kernel and the
 * gated kernels; the suites rerun with "always"). */
int clg__fi_fused(void);
/* CLGATHER_TEST_MAX_ALLOC=BYTES: the device's largest buffer as the
 * library sees it, instead of `real` when smaller (so the suites run the
 * split paths of run/split.c on small tensors). */
cl_ulong clg__fi_max_alloc(cl_ulong real);
#endif

/* clWaitForEvents where a path's waiting depends on timing (a polled
 * read's wait once polling gave up, device/enqueue.c): never counted nor
 * failed, since the calls a path makes, which the fault tests count and
 * fail one by one, must not depend on timing. */
#if defined(CLGATHER_TESTING)
cl_int clg__wait_uncounted(cl_uint, const cl_event *);
/* A polled read's wait (clg_fault_host_waits). */
void clg__fi_note_wait(void);
/* The way a call takes (clg_fault_last_way). */
void clg__fi_note_way(int way);
/* A cache file's bytes are written, not yet named
 * (clg_fault_kill_in_cache_write). */
void clg__fi_cache_written(void);
#else
#define clg__wait_uncounted clWaitForEvents
#define clg__fi_note_wait() ((void)0)
#define clg__fi_note_way(way) ((void)(way))
#define clg__fi_cache_written() ((void)0)
#endif

#if defined(CLGATHER_TESTING) && !defined(CLG_FAULTS_IMPL)
#define clCreateContext clg__fi_clCreateContext
#define clCreateCommandQueue clg__fi_clCreateCommandQueue
#define clGetDeviceInfo clg__fi_clGetDeviceInfo
#define clGetMemObjectInfo clg__fi_clGetMemObjectInfo
#define clGetCommandQueueInfo clg__fi_clGetCommandQueueInfo
#define clCreateBuffer clg__fi_clCreateBuffer
#define clCreateSubBuffer clg__fi_clCreateSubBuffer
#define clCreateProgramWithSource clg__fi_clCreateProgramWithSource
#define clBuildProgram clg__fi_clBuildProgram
#define clCreateProgramWithBinary clg__fi_clCreateProgramWithBinary
#define clGetProgramInfo clg__fi_clGetProgramInfo
#define clCreateKernel clg__fi_clCreateKernel
#define clSetKernelArg clg__fi_clSetKernelArg
#define clEnqueueNDRangeKernel clg__fi_clEnqueueNDRangeKernel
#define clEnqueueReadBuffer clg__fi_clEnqueueReadBuffer
#define clEnqueueMarkerWithWaitList clg__fi_clEnqueueMarkerWithWaitList
#define clWaitForEvents clg__fi_clWaitForEvents
#endif

#endif /* CLGATHER_HOST_FAULTS_H */
