/* Contexts: borrowed or default OpenCL context + device, the context's own
 * command queue, and the program cache's lifetime. */
#include "device/context.h"
#include "device/cache.h"
#include "device/programs.h"
#include "device/quirks.h"
#include "device/tune.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most threads CLG_OPTION_HOST_THREADS takes (more would only be
 * bounded lower by the scan itself). */
#define CLG_HOST_THREADS_MAX 1024

/* A count from the environment: a decimal integer in [0,
 * CLG_HOST_THREADS_MAX]; anything else (unset included) is 0, the
 * default. */
static size_t clg_env_count(const char *s) {
  if (!s || !*s)
    return 0;
  char *end = NULL;
  long v = strtol(s, &end, 10);
  return *end || v < 0 || v > CLG_HOST_THREADS_MAX ? 0 : (size_t)v;
}

/* A byte count from the environment: a decimal integer >= 0, else
 * `fallback`. */
static int64_t clg_env_bytes(const char *s, int64_t fallback) {
  if (!s || !*s)
    return fallback;
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  return *end || v < 0 ? fallback : (int64_t)v;
}

static clg_status clg_context_init(cl_context cl_ctx, cl_device_id device,
                                   bool owns, clg_context **out) {
  clg_context *ctx = CLG_CALLOC(1, sizeof *ctx);
  if (!ctx)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory allocating a context");
  cl_int err = clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                               sizeof ctx->max_work_group_size,
                               &ctx->max_work_group_size, NULL);
  if (err == CL_SUCCESS)
    err = clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof ctx->device_type,
                          &ctx->device_type, NULL);
  if (err == CL_SUCCESS)
    err = clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE,
                          sizeof ctx->cache_bytes, &ctx->cache_bytes, NULL);
  if (err == CL_SUCCESS)
    err = clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE,
                          sizeof ctx->local_bytes, &ctx->local_bytes, NULL);
  if (err == CL_SUCCESS)
    err = clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS,
                          sizeof ctx->compute_units, &ctx->compute_units, NULL);
  if (err == CL_SUCCESS)
    err = clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                          sizeof ctx->max_alloc, &ctx->max_alloc, NULL);
#if defined(CLGATHER_TESTING)
  ctx->max_alloc = clg__fi_max_alloc(ctx->max_alloc);
#endif
  ctx->forced_variant = clg__variant_parse(getenv("CLGATHER_VARIANT"));
  const char *tune = getenv("CLGATHER_TUNE");
  int mode = CLG_TUNE_SECOND_CALL;
  if (tune && (strcmp(tune, "off") == 0 || strcmp(tune, "0") == 0))
    mode = CLG_TUNE_OFF;
  else if (tune && (strcmp(tune, "first") == 0 || strcmp(tune, "2") == 0))
    mode = CLG_TUNE_FIRST_CALL;
  atomic_init(&ctx->tune_mode, mode);
  atomic_init(&ctx->tune_budget_us, CLG_TUNE_BUDGET_US_DEFAULT);
  atomic_init(&ctx->host_threads,
              clg_env_count(getenv("CLGATHER_HOST_THREADS")));
  atomic_init(&ctx->host_run_bytes,
              clg_env_bytes(getenv("CLGATHER_HOST_RUN_BYTES"),
                            CLG_HOST_RUN_BYTES_DEFAULT));
  cl_bool unified = CL_FALSE;
  if (err == CL_SUCCESS)
    err = clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified,
                          &unified, NULL);
  ctx->host_unified = unified == CL_TRUE;
  cl_bool little = CL_TRUE;
  if (err == CL_SUCCESS)
    err = clGetDeviceInfo(device, CL_DEVICE_ENDIAN_LITTLE, sizeof little,
                          &little, NULL);
  if (err == CL_SUCCESS)
    err = clg__quirks_known(device, &ctx->quirks);
  ctx->device_type = clg__quirk_device_type(ctx->device_type);
  if (ctx->quirks & CLG_QUIRK_COPY_HOST)
    ctx->host_unified = false;
  if (err != CL_SUCCESS) {
    free(ctx);
    return clg__fail_cl(err, "clGetDeviceInfo", "creating a context");
  }
  /* Tensors move between host and device as raw bytes (index values,
   * elements, the verdict words), so the two must share a byte order. */
  const uint16_t probe = 1;
  bool host_little = *(const unsigned char *)&probe == 1;
  if ((little == CL_TRUE) != host_little) {
    free(ctx);
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "the device is %s-endian and the host %s-endian: "
                     "clgather moves tensors between them as raw bytes and "
                     "cannot use it",
                     little == CL_TRUE ? "little" : "big",
                     host_little ? "little" : "big");
  }
  if (!clg__cache_settings_init(ctx)) {
    free(ctx);
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory reading the program cache's "
                     "directory for a context");
  }
  if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
    clg__cache_release(ctx);
    free(ctx);
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "cannot initialise a mutex for the context");
  }
  ctx->cl_ctx = cl_ctx;
  ctx->device = device;
  ctx->owns_cl_ctx = owns;
  *out = ctx;
  return clg__ok();
}

clg_status clg_context_create(cl_context context, cl_device_id device,
                              clg_context **out) {
  if (out)
    *out = NULL;
  if (!context)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "context is NULL");
  if (!device)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "device is NULL");
  if (!out)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "out is NULL");

  cl_uint ndev = 0;
  cl_int err = clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof ndev,
                                &ndev, NULL);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clGetContextInfo",
                        "reading the context's devices");
  cl_device_id *devs = CLG_CALLOC(ndev ? ndev : 1, sizeof *devs);
  if (!devs)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
  err = clGetContextInfo(context, CL_CONTEXT_DEVICES, ndev * sizeof *devs, devs,
                         NULL);
  bool found = false;
  for (cl_uint i = 0; err == CL_SUCCESS && i < ndev; ++i)
    found |= devs[i] == device;
  free(devs);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clGetContextInfo",
                        "reading the context's devices");
  if (!found)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "the device is not one of the cl_context's devices");

  clg_status st = clg_context_init(context, device, false, out);
  if (st != CLG_SUCCESS)
    return st;
  clRetainContext(context);
  clRetainDevice(device);
  return clg__ok();
}

static bool clg_contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  if (n == 0)
    return true;
  for (; *hay; ++hay) {
    size_t i = 0;
    while (i < n && hay[i] &&
           tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      ++i;
    if (i == n)
      return true;
  }
  return false;
}

/* "P:D" with two decimal numbers? */
static bool clg_parse_index_spec(const char *spec, unsigned long *p,
                                 unsigned long *d) {
  char *end = NULL;
  if (!isdigit((unsigned char)spec[0]))
    return false;
  *p = strtoul(spec, &end, 10);
  if (*end != ':' || !isdigit((unsigned char)end[1]))
    return false;
  *d = strtoul(end + 1, &end, 10);
  return *end == '\0';
}

/* Pick a device by spec (see the header); NULL/empty spec = default rule. */
static clg_status clg_pick_device(const char *spec, cl_platform_id *out_plat,
                                  cl_device_id *out_dev) {
  cl_platform_id plats[64];
  cl_uint nplat = 0;
  cl_int err = clGetPlatformIDs(64, plats, &nplat);
  if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ ||
      (err == CL_SUCCESS && nplat == 0))
    return clg__fail(CLG_ERROR_NO_DEVICE,
                     "no OpenCL platform found (is an ICD such as "
                     "pocl-opencl-icd installed?)");
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clGetPlatformIDs", "listing OpenCL platforms");
  if (nplat > 64)
    nplat = 64;

  unsigned long want_p = 0, want_d = 0;
  bool by_index = spec && *spec && clg_parse_index_spec(spec, &want_p, &want_d);
  bool by_name = spec && *spec && !by_index;
  cl_platform_id first_plat = NULL;
  cl_device_id first_dev = NULL;

  for (cl_uint p = 0; p < nplat; ++p) {
    cl_device_id devs[64];
    cl_uint ndev = 0;
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &ndev) !=
        CL_SUCCESS)
      continue;
    if (ndev > 64)
      ndev = 64;
    for (cl_uint d = 0; d < ndev; ++d) {
      if (by_index) {
        if (p == want_p && d == want_d) {
          *out_plat = plats[p];
          *out_dev = devs[d];
          return CLG_SUCCESS;
        }
        continue;
      }
      if (by_name) {
        char name[1024] = {0}; /* OpenCL fails a name that does not fit */
        err = clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof name - 1, name,
                              NULL);
        if (err != CL_SUCCESS)
          return clg__fail_cl(err, "clGetDeviceInfo",
                              "reading a device's name to match the spec");
        if (clg_contains_nocase(name, spec)) {
          *out_plat = plats[p];
          *out_dev = devs[d];
          return CLG_SUCCESS;
        }
        continue;
      }
      cl_device_type type = 0;
      err = clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
      if (err != CL_SUCCESS)
        return clg__fail_cl(err, "clGetDeviceInfo",
                            "reading a device's type to pick the default");
      if (type & CL_DEVICE_TYPE_GPU) {
        *out_plat = plats[p];
        *out_dev = devs[d];
        return CLG_SUCCESS;
      }
      if (!first_dev) {
        first_plat = plats[p];
        first_dev = devs[d];
      }
    }
  }
  if (by_index)
    return clg__fail(CLG_ERROR_NO_DEVICE,
                     "no OpenCL device %s (platform:device); run "
                     "`clgather devices` to list them",
                     spec);
  if (by_name)
    return clg__fail(CLG_ERROR_NO_DEVICE,
                     "no OpenCL device name contains \"%s\"; run `clgather "
                     "devices` to list them",
                     spec);
  if (!first_dev)
    return clg__fail(CLG_ERROR_NO_DEVICE,
                     "no OpenCL device found on %u "
                     "platform(s)",
                     (unsigned)nplat);
  *out_plat = first_plat;
  *out_dev = first_dev;
  return CLG_SUCCESS;
}

clg_status clg_context_create_default(const char *spec, clg_context **out) {
  if (!out)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!spec)
    spec = getenv("CLGATHER_DEVICE");
  cl_platform_id plat = NULL;
  cl_device_id dev = NULL;
  clg_status st = clg_pick_device(spec, &plat, &dev);
  if (st != CLG_SUCCESS)
    return st;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)plat, 0};
  cl_int err = CL_SUCCESS;
  cl_context cl_ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
  if (!cl_ctx)
    return clg__fail_cl(err, "clCreateContext", "creating the default context");
  st = clg_context_init(cl_ctx, dev, true, out);
  if (st != CLG_SUCCESS) {
    clReleaseContext(cl_ctx);
    return st;
  }
  return clg__ok();
}

void clg_context_destroy(clg_context *ctx) {
  if (!ctx)
    return;
  clg__programs_release(ctx);
  clg__tune_release(ctx);
  if (ctx->queue)
    clReleaseCommandQueue(ctx->queue);
  if (ctx->verdict_queue)
    clReleaseCommandQueue(ctx->verdict_queue);
  clg__kept_release(&ctx->verdicts);
  clg__kept_release(&ctx->bag_verdicts);
  for (int i = 0; i < CLG_SCRATCH_SLOTS; ++i) {
    if (ctx->scratch[i])
      clReleaseMemObject(ctx->scratch[i]);
    if (ctx->scratch_busy[i])
      clReleaseEvent(ctx->scratch_busy[i]);
  }
  clReleaseContext(ctx->cl_ctx);
  if (!ctx->owns_cl_ctx)
    clReleaseDevice(ctx->device);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

cl_context clg_context_cl_context(const clg_context *ctx) {
  return ctx ? ctx->cl_ctx : NULL;
}

cl_device_id clg_context_device(const clg_context *ctx) {
  return ctx ? ctx->device : NULL;
}

cl_command_queue clg_context_queue(clg_context *ctx) {
  if (!ctx)
    return NULL;
  pthread_mutex_lock(&ctx->lock);
  if (!ctx->queue) {
    cl_int err = CL_SUCCESS;
    ctx->queue = clCreateCommandQueue(ctx->cl_ctx, ctx->device, 0, &err);
    if (!ctx->queue)
      clg__fail_cl(err, "clCreateCommandQueue", "creating the context's queue");
  }
  cl_command_queue q = ctx->queue;
  pthread_mutex_unlock(&ctx->lock);
  return q;
}

cl_command_queue clg__verdict_queue(clg_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  if (!ctx->verdict_queue) {
    cl_int err = CL_SUCCESS;
    ctx->verdict_queue =
        clCreateCommandQueue(ctx->cl_ctx, ctx->device, 0, &err);
    if (!ctx->verdict_queue)
      clg__fail_cl(err, "clCreateCommandQueue",
                   "creating the queue that reads validation verdicts");
  }
  cl_command_queue q = ctx->verdict_queue;
  pthread_mutex_unlock(&ctx->lock);
  return q;
}

clg_status clg_context_set_option(clg_context *ctx, clg_option option,
                                  int64_t value) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  switch (option) {
  case CLG_OPTION_HOST_THREADS:
    if (value < 0 || value > CLG_HOST_THREADS_MAX)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "CLG_OPTION_HOST_THREADS is %" PRId64
                       ", but it takes 0 (no bound) to %d threads",
                       value, CLG_HOST_THREADS_MAX);
    atomic_store(&ctx->host_threads, (size_t)value);
    return clg__ok();
  case CLG_OPTION_TUNE:
    if (value < CLG_TUNE_OFF || value > CLG_TUNE_FIRST_CALL)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "CLG_OPTION_TUNE is %" PRId64
                       ", but it takes 0 (off), 1 (time at a shape class's "
                       "second call) or 2 (at its first)",
                       value);
    atomic_store(&ctx->tune_mode, (int)value);
    return clg__ok();
  case CLG_OPTION_TUNE_BUDGET_US:
    if (value < 0)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "CLG_OPTION_TUNE_BUDGET_US is %" PRId64
                       ", but it takes a time in microseconds >= 0",
                       value);
    atomic_store(&ctx->tune_budget_us, value);
    return clg__ok();
  case CLG_OPTION_HOST_RUN_BYTES:
    if (value < 0)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "CLG_OPTION_HOST_RUN_BYTES is %" PRId64
                       ", but it takes a size in bytes >= 0 (0: never)",
                       value);
    atomic_store(&ctx->host_run_bytes, value);
    return clg__ok();
  case CLG_OPTION_DISK_CACHE:
    if (value != 0 && value != 1)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "CLG_OPTION_DISK_CACHE is %" PRId64
                       ", but it takes 0 (off) or 1 (on)",
                       value);
    clg__cache_set_enabled(ctx, value == 1);
    return clg__ok();
  }
  return clg__fail(CLG_ERROR_INVALID_ARGUMENT, "unknown context option %d",
                   (int)option);
}

size_t clg__context_host_threads(const clg_context *ctx) {
  return atomic_load(&((clg_context *)ctx)->host_threads);
}

clg_status clg__resolve_queue(clg_context *ctx, cl_command_queue queue,
                              cl_command_queue *out) {
  if (!queue) {
    *out = clg_context_queue(ctx);
    return *out ? CLG_SUCCESS : CLG_ERROR_OPENCL; /* message already set */
  }
  cl_context qctx = NULL;
  cl_device_id qdev = NULL;
  cl_int err =
      clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
  if (err == CL_SUCCESS)
    err =
        clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clGetCommandQueueInfo", "checking the queue");
  if (qctx != ctx->cl_ctx || qdev != ctx->device)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "the command queue belongs to another %s than the "
                     "clg_context's",
                     qctx != ctx->cl_ctx ? "cl_context" : "device");
  *out = queue;
  return CLG_SUCCESS;
}
