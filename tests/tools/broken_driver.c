/*
 * A broken OpenCL driver, for proving that `clgather selftest` catches one:
 * an LD_PRELOAD library that interposes clEnqueueNDRangeKernel and, as
 * CLGATHER_BROKEN says, silently drops some kernel launches while
 * returning CL_SUCCESS (and, when the caller asked for an event, a valid
 * event that completes after the wait list: a marker), as a driver with a
 * lost-dispatch bug would:
 *
 *   CLGATHER_BROKEN=drop    every 3rd launch (CLGATHER_BROKEN_EVERY=N: every
 *                           Nth) of any kernel
 *   CLGATHER_BROKEN=gather  every launch of a gather's kernels (names
 *                           starting with "clg_gather"): every other
 *                           command runs, the gathers' results are wrong
 *   CLGATHER_BROKEN=flip    every launch runs, and after every 4th one
 *                           the last buffer set as an argument of that
 *                           kernel gets one byte overwritten (a kernel
 *                           computing a wrong element; a scatter's output,
 *                           a gather's output or a scratch buffer)
 *   CLGATHER_BROKEN=exit    clBuildProgram prints a translator's complaint
 *                           and ends the process with status 8, as Mesa
 *                           22.3's Rusticl does on a builtin its SPIR-V
 *                           translator does not know
 *   unset or anything else  a faithful driver
 *
 * Used by tests/tools/test_cli_selftest.c only. Plain C, POSIX dlsym.
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

typedef cl_int (*enqueue_fn)(cl_command_queue, cl_kernel, cl_uint,
                             const size_t *, const size_t *, const size_t *,
                             cl_uint, const cl_event *, cl_event *);
typedef cl_int (*setarg_fn)(cl_kernel, cl_uint, size_t, const void *);
typedef cl_mem (*create_fn)(cl_context, cl_mem_flags, size_t, void *,
                            cl_int *);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long launches;

/* flip: the last cl_mem argument set on each of a few kernels. */
#define NK 256
static struct {
  cl_kernel k;
  cl_mem m;
} last_mem[NK];
/* flip: the buffers created lately (a kernel argument of pointer size is
 * only taken for a buffer when it is one of them: a driver does not check
 * handles). */
#define NB 4096
static cl_mem made[NB];
static unsigned long n_made;

cl_mem CL_API_CALL clCreateBuffer(cl_context ctx, cl_mem_flags flags,
                                  size_t size, void *host, cl_int *err) {
  static create_fn real;
  if (real == NULL)
    real = (create_fn)dlsym(RTLD_NEXT, "clCreateBuffer");
  cl_mem m = real(ctx, flags, size, host, err);
  if (m != NULL) {
    pthread_mutex_lock(&lock);
    made[n_made++ % NB] = m;
    pthread_mutex_unlock(&lock);
  }
  return m;
}

static int is_buffer(cl_mem m) {
  int found = 0;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < NB && !found; ++i)
    found = m != NULL && made[i] == m;
  pthread_mutex_unlock(&lock);
  return found;
}

static int mode(void) {
  const char *m = getenv("CLGATHER_BROKEN");
  if (m == NULL)
    return 0;
  return strcmp(m, "drop") == 0     ? 1
         : strcmp(m, "gather") == 0 ? 2
         : strcmp(m, "flip") == 0   ? 3
         : strcmp(m, "exit") == 0   ? 4
                                    : 0;
}

typedef cl_int (*build_fn)(cl_program, cl_uint, const cl_device_id *,
                           const char *,
                           void(CL_CALLBACK *)(cl_program, void *), void *);

cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices,
                                  const cl_device_id *devices,
                                  const char *options,
                                  void(CL_CALLBACK *notify)(cl_program,
                                                            void *),
                                  void *user_data) {
  static build_fn real;
  if (mode() == 4) {
    fputs("InvalidFunctionCall: Unexpected llvm intrinsic (broken driver)\n",
          stderr);
    _exit(8);
  }
  if (real == NULL)
    real = (build_fn)dlsym(RTLD_NEXT, "clBuildProgram");
  return real(program, num_devices, devices, options, notify, user_data);
}

static unsigned long every(void) {
  const char *e = getenv("CLGATHER_BROKEN_EVERY");
  unsigned long n = e ? strtoul(e, NULL, 10) : 0;
  return n ? n : 3;
}

cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint index,
                                  size_t size, const void *value) {
  static setarg_fn real;
  if (real == NULL)
    real = (setarg_fn)dlsym(RTLD_NEXT, "clSetKernelArg");
  cl_int rc = real(kernel, index, size, value);
  if (rc == CL_SUCCESS && mode() == 3 && size == sizeof(cl_mem) &&
      value != NULL) {
    cl_mem m;
    memcpy(&m, value, sizeof m);
    if (is_buffer(m)) {
      pthread_mutex_lock(&lock);
      size_t h = ((size_t)kernel >> 4) % NK;
      last_mem[h].k = kernel;
      last_mem[h].m = m;
      pthread_mutex_unlock(&lock);
    }
  }
  return rc;
}

cl_int CL_API_CALL clEnqueueNDRangeKernel(
    cl_command_queue queue, cl_kernel kernel, cl_uint dim,
    const size_t *offset, const size_t *global, const size_t *local,
    cl_uint nev, const cl_event *wait, cl_event *event) {
  static enqueue_fn real;
  if (real == NULL)
    real = (enqueue_fn)dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel");
  int m = mode();
  pthread_mutex_lock(&lock);
  unsigned long n = ++launches;
  pthread_mutex_unlock(&lock);
  int drop = 0;
  if (m == 1)
    drop = n % every() == 0;
  else if (m == 2) {
    char name[128] = "";
    if (clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name,
                        NULL) == CL_SUCCESS)
      drop = strncmp(name, "clg_gather", 10) == 0;
  }
  if (drop) /* nothing runs; the caller sees a success */
    return event != NULL || nev > 0
               ? clEnqueueMarkerWithWaitList(queue, nev, wait, event)
               : CL_SUCCESS;
  cl_int rc = real(queue, kernel, dim, offset, global, local, nev, wait,
                   event);
  if (rc == CL_SUCCESS && m == 3 && n % 4 == 0) {
    pthread_mutex_lock(&lock);
    size_t h = ((size_t)kernel >> 4) % NK;
    cl_mem buf = last_mem[h].k == kernel ? last_mem[h].m : NULL;
    pthread_mutex_unlock(&lock);
    size_t size = 0;
    if (buf != NULL &&
        clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL) ==
            CL_SUCCESS &&
        size > 0) {
      /* In the queue's order: after the kernel, before what follows. */
      static const unsigned char junk = 0x3C;
      clEnqueueFillBuffer(queue, buf, &junk, 1, size / 2, 1, 0, NULL, NULL);
    }
  }
  return rc;
}
