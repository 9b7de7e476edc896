/*
 * Contexts: borrowing the caller's cl_context/device (reference counts are
 * restored on destroy), device selection by spec and CLGATHER_DEVICE, NULL
 * handling, queues, lifetime of enqueued work, a foreign byte order, and
 * the version functions. The contexts' options (clg_context_set_option,
 * clg_context_set_cache_dir, the environment's defaults, two threads
 * setting them) are in device/test_context_options.c, the same binary
 * test_context; the small gather both use in device/context_fx.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/faults.h"
#include "support/testutil.h"

#include "device/context_fx.h"

static cl_device_id first_device(cl_platform_id *platform_out) {
  cl_platform_id p = NULL;
  cl_uint np = 0;
  tu_cl_check(clGetPlatformIDs(1, &p, &np), "clGetPlatformIDs");
  cr_assert(np >= 1, "no OpenCL platform: the tests need one (POCL)");
  cl_device_id d = NULL;
  cl_uint nd = 0;
  tu_cl_check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, &nd),
              "clGetDeviceIDs");
  cr_assert(nd >= 1, "no OpenCL device on platform 0");
  if (platform_out)
    *platform_out = p;
  return d;
}

static cl_uint context_refcount(cl_context c) {
  cl_uint n = 0;
  tu_cl_check(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL),
              "clGetContextInfo(CL_CONTEXT_REFERENCE_COUNT)");
  return n;
}

/* POCL drops the references held by finished commands on its own worker
 * thread, a moment after the blocking call that waited for them returns, so
 * a count read right after a release can still be one high.  Wait (up to
 * 2 s) for it to reach `want`; a real leak never does and still fails. */
static cl_uint context_refcount_settled(cl_context c, cl_uint want) {
  cl_uint n = context_refcount(c);
  for (int ms = 0; n != want && ms < 2000; ++ms) {
    nanosleep(&(struct timespec){0, 1000000L}, NULL);
    n = context_refcount(c);
  }
  return n;
}

static cl_uint device_refcount(cl_device_id d) {
  cl_uint n = 0;
  tu_cl_check(clGetDeviceInfo(d, CL_DEVICE_REFERENCE_COUNT, sizeof n, &n, NULL),
              "clGetDeviceInfo(CL_DEVICE_REFERENCE_COUNT)");
  return n;
}

Test(context, borrowed_objects_survive_destroy) {
  cl_device_id dev = first_device(NULL);
  cl_int err = CL_SUCCESS;
  cl_context cl = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  tu_cl_check(err, "clCreateContext");
  /* The caller's own queue and buffers (they hold context references too,
   * so they exist before the count is taken). */
  cl_command_queue myq = clCreateCommandQueue(cl, dev, 0, &err);
  tu_cl_check(err, "clCreateCommandQueue");
  float data[6] = {1, 2, 3, 4, 5, 6}, out[4] = {0}, want[4] = {5, 6, 1, 2};
  int32_t idx[2] = {-1, 0};
  cl_mem bd = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             sizeof data, data, &err);
  tu_cl_check(err, "clCreateBuffer");
  cl_mem bo = clCreateBuffer(cl, CL_MEM_READ_WRITE, 64, NULL, &err);
  tu_cl_check(err, "clCreateBuffer");
  cl_uint ctx_before = context_refcount(cl);
  cl_uint dev_before = device_refcount(dev);

  clg_context *ctx = NULL;
  clg_status st = clg_context_create(cl, dev, &ctx);
  cr_assert(st == CLG_SUCCESS && ctx, "clg_context_create: %s", clg_last_error());
  cr_expect(clg_context_cl_context(ctx) == cl);
  cr_expect(clg_context_device(ctx) == dev);
  cl_command_queue q = clg_context_queue(ctx);
  cr_assert(q != NULL, "clg_context_queue is NULL");
  cr_expect(clg_context_queue(ctx) == q, "the queue changes between calls");
  cl_context qctx = NULL;
  tu_cl_check(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL),
              "clGetCommandQueueInfo");
  cr_expect(qctx == cl, "the context's queue is not on the caller's context");
  assert_gathers(ctx, "caller's context");

  /* cl_mem tensors in the caller's context, the caller's queue. */
  const int64_t ds[2] = {3, 2}, is[1] = {2}, os[2] = {2, 2};
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, bd, 0);
  clg_tensor i = clg_tensor_host(CLG_DTYPE_INT32, 1, is, idx);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, bo, 16);
  cl_event ev = NULL;
  st = clg_gather(ctx, &d, &i, 0, &o, myq, 0, NULL, &ev);
  cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
  cr_assert(ev != NULL);
  tu_cl_check(clEnqueueReadBuffer(myq, bo, CL_TRUE, 16, sizeof out, out, 1, &ev,
                                  NULL),
              "clEnqueueReadBuffer");
  cr_expect(memcmp(out, want, sizeof out) == 0, "wrong output via caller queue");
  clReleaseEvent(ev);

  clg_context_destroy(ctx);
  cl_uint ctx_after = context_refcount_settled(cl, ctx_before);
  cr_expect_eq(ctx_after, ctx_before,
               "context reference count %u after destroy, %u before",
               ctx_after, ctx_before);
  cr_expect_eq(device_refcount(dev), dev_before);
  /* The caller's objects still work. */
  float back[6] = {0};
  tu_cl_check(clEnqueueReadBuffer(myq, bd, CL_TRUE, 0, sizeof back, back, 0,
                                  NULL, NULL),
              "clEnqueueReadBuffer after destroy");
  cr_expect(memcmp(back, data, sizeof data) == 0);

  /* Creating and destroying several times leaks no reference. */
  for (int k = 0; k < 3; ++k) {
    cr_assert(clg_context_create(cl, dev, &ctx) == CLG_SUCCESS);
    (void)clg_context_queue(ctx);
    clg_context_destroy(ctx);
  }
  cr_expect_eq(context_refcount_settled(cl, ctx_before), ctx_before);
  clReleaseMemObject(bd);
  clReleaseMemObject(bo);
  clReleaseCommandQueue(myq);
  cr_expect_eq(context_refcount_settled(cl, 1u), 1u,
               "the caller holds the last reference");
  clReleaseContext(cl);
}

Test(context, create_null_arguments) {
  cl_device_id dev = first_device(NULL);
  cl_int err = CL_SUCCESS;
  cl_context cl = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  tu_cl_check(err, "clCreateContext");
  cl_uint before = context_refcount(cl);
  static int junk;
  clg_context *out = (clg_context *)(void *)&junk;
  cr_expect(clg_context_create(NULL, dev, &out) == CLG_ERROR_NULL_ARGUMENT);
  cr_expect(out == NULL, "*out not set to NULL on failure");
  cr_expect(clg_last_error()[0] != '\0');
  out = (clg_context *)(void *)&junk;
  cr_expect(clg_context_create(cl, NULL, &out) == CLG_ERROR_NULL_ARGUMENT);
  cr_expect(out == NULL, "*out not set to NULL on failure");
  cr_expect(tu_contains(clg_last_error(), "device"), "%s", clg_last_error());
  cr_expect(clg_context_create(cl, dev, NULL) == CLG_ERROR_NULL_ARGUMENT);
  cr_expect(clg_context_create_default(NULL, NULL) == CLG_ERROR_NULL_ARGUMENT);
  cr_expect(clg_context_create_default("0:0", NULL) == CLG_ERROR_NULL_ARGUMENT);
  cr_expect_eq(context_refcount(cl), before, "a failed create leaked a reference");
  clg_context_destroy(NULL); /* no-op */
  clReleaseContext(cl);
}

/* A device that is not part of the context: a sub-device of the CPU device,
 * where the device can be partitioned. */
Test(context, device_not_in_context) {
  cl_device_id dev = first_device(NULL);
  cl_uint maxsub = 0;
  tu_cl_check(clGetDeviceInfo(dev, CL_DEVICE_PARTITION_MAX_SUB_DEVICES,
                              sizeof maxsub, &maxsub, NULL),
              "clGetDeviceInfo(PARTITION_MAX_SUB_DEVICES)");
  cl_int err = CL_SUCCESS;
  cl_context cl = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  tu_cl_check(err, "clCreateContext");
  cl_device_id subs[64] = {NULL};
  cl_device_id sub = NULL;
  cl_uint nsub = 0;
  if (maxsub >= 2) {
    const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY,
                                                  1, 0};
    err = clCreateSubDevices(dev, props, 64, subs, &nsub);
    sub = subs[0];
  }
  if (maxsub < 2 || err != CL_SUCCESS || nsub < 1) {
    cr_log_info("device cannot be partitioned: device-not-in-context case "
                "not run");
  } else {
    clg_context *out = NULL;
    clg_status st = clg_context_create(cl, sub, &out);
    cr_expect(st == CLG_ERROR_INVALID_ARGUMENT,
              "sub-device outside the context: want invalid argument, got %s: %s",
              clg_status_string(st), clg_last_error());
    cr_expect(out == NULL);
    if (out)
      clg_context_destroy(out);
    for (cl_uint k = 0; k < nsub && k < 64; ++k)
      clReleaseDevice(subs[k]);
  }
  clReleaseContext(cl);
}

static void device_name(cl_device_id d, char *buf, size_t cap) {
  tu_cl_check(clGetDeviceInfo(d, CL_DEVICE_NAME, cap, buf, NULL),
              "clGetDeviceInfo(CL_DEVICE_NAME)");
}

Test(context, default_by_spec) {
  cl_device_id dev0 = first_device(NULL);
  clg_context *ctx = NULL;
  clg_status st = clg_context_create_default("0:0", &ctx);
  cr_assert(st == CLG_SUCCESS && ctx, "spec 0:0: %s", clg_last_error());
  cr_expect(clg_context_device(ctx) == dev0, "spec 0:0 is not device 0 of "
                                             "platform 0");
  cr_expect(clg_context_queue(ctx) != NULL);
  assert_gathers(ctx, "spec 0:0");
  clg_context_destroy(ctx);

  /* A substring of the device's name, in swapped case. */
  char name[512] = {0};
  device_name(dev0, name, sizeof name);
  size_t len = strlen(name);
  cr_assert(len >= 3, "device name too short: \"%s\"", name);
  size_t start = len / 3, n = len - start < 8 ? len - start : 8;
  char sub[16] = {0};
  for (size_t k = 0; k < n; ++k) {
    unsigned char c = (unsigned char)name[start + k];
    sub[k] = (char)(isupper(c) ? tolower(c) : toupper(c));
  }
  ctx = NULL;
  st = clg_context_create_default(sub, &ctx);
  cr_assert(st == CLG_SUCCESS && ctx, "spec \"%s\" (from \"%s\"): %s", sub, name,
            clg_last_error());
  char got[512] = {0};
  device_name(clg_context_device(ctx), got, sizeof got);
  cr_expect(tu_contains_ci(got, sub), "spec \"%s\" chose \"%s\"", sub, got);
  assert_gathers(ctx, "name spec");
  clg_context_destroy(ctx);

  /* Specs that match nothing. */
  const char *bad[] = {"no-such-device-xyzzy", "9:0", "0:99"};
  for (size_t k = 0; k < 3; ++k) {
    static int junk;
    ctx = (clg_context *)(void *)&junk;
    st = clg_context_create_default(bad[k], &ctx);
    cr_expect(st == CLG_ERROR_NO_DEVICE, "spec \"%s\": want no device, got %s",
              bad[k], clg_status_string(st));
    cr_expect(ctx == NULL, "spec \"%s\": *out not NULL on failure", bad[k]);
    cr_expect(clg_last_error()[0] != '\0');
    if (k == 0)
      cr_expect(tu_contains(clg_last_error(), bad[k]),
                "the message does not name the spec: %s", clg_last_error());
  }
}

Test(context, default_by_environment) {
  clg_context *ctx = NULL;
  cr_assert(setenv("CLGATHER_DEVICE", "no-such-device-xyzzy", 1) == 0);
  clg_status st = clg_context_create_default(NULL, &ctx);
  cr_expect(st == CLG_ERROR_NO_DEVICE, "env spec matching nothing: got %s",
            clg_status_string(st));
  cr_expect(ctx == NULL);
  cr_expect(tu_contains(clg_last_error(), "no-such-device-xyzzy") ||
                tu_contains(clg_last_error(), "CLGATHER_DEVICE"),
            "message names neither the variable nor its value: %s",
            clg_last_error());

  /* An explicit spec wins over the environment. */
  st = clg_context_create_default("0:0", &ctx);
  cr_expect(st == CLG_SUCCESS, "explicit spec with a bad env: %s",
            clg_last_error());
  clg_context_destroy(ctx);
  ctx = NULL;

  cr_assert(setenv("CLGATHER_DEVICE", "0:0", 1) == 0);
  st = clg_context_create_default(NULL, &ctx);
  cr_assert(st == CLG_SUCCESS && ctx, "env 0:0: %s", clg_last_error());
  cr_expect(clg_context_device(ctx) == first_device(NULL));
  assert_gathers(ctx, "env 0:0");
  clg_context_destroy(ctx);
  ctx = NULL;

  cr_assert(setenv("CLGATHER_DEVICE", "", 1) == 0);
  st = clg_context_create_default(NULL, &ctx);
  cr_assert(st == CLG_SUCCESS && ctx, "empty env: %s", clg_last_error());
  clg_context_destroy(ctx);
  ctx = NULL;

  cr_assert(unsetenv("CLGATHER_DEVICE") == 0);
  st = clg_context_create_default(NULL, &ctx);
  cr_assert(st == CLG_SUCCESS && ctx, "no env: %s", clg_last_error());
  clg_context_destroy(ctx);
}

/* Several contexts side by side; destroying one leaves the other working;
 * work enqueued before destroy completes. */
Test(context, lifetimes) {
  clg_context *a = NULL, *b = NULL;
  cr_assert(clg_context_create_default(NULL, &a) == CLG_SUCCESS);
  cr_assert(clg_context_create_default(NULL, &b) == CLG_SUCCESS);
  assert_gathers(a, "context a");
  assert_gathers(b, "context b");
  clg_context_destroy(a);
  assert_gathers(b, "context b after destroying a");

  /* All-cl_mem gather, then destroy at once; the event still completes. */
  cl_context cl = clg_context_cl_context(b);
  clRetainContext(cl);
  cl_device_id dev = clg_context_device(b);
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(cl, dev, 0, &err);
  tu_cl_check(err, "clCreateCommandQueue");
  enum { N = 4096 };
  static uint32_t data[N], out[N], want[N];
  static int64_t idx[N];
  for (int k = 0; k < N; ++k) {
    data[k] = (uint32_t)k * 2654435761u;
    idx[k] = (k * 37) % N - (k % 2 ? N : 0);
  }
  const int64_t ds[1] = {N};
  cr_assert(ref_gather(data, 4, 1, ds, idx, REF_INDEX_I64, 1, ds, 0, want) == 0);
  cl_mem bd = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             sizeof data, data, &err);
  tu_cl_check(err, "clCreateBuffer");
  cl_mem bi = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             sizeof idx, idx, &err);
  tu_cl_check(err, "clCreateBuffer");
  cl_mem bo = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof out, NULL, &err);
  tu_cl_check(err, "clCreateBuffer");
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_UINT32, 1, ds, bd, 0);
  clg_tensor i = clg_tensor_buffer(CLG_DTYPE_INT64, 1, ds, bi, 0);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_UINT32, 1, ds, bo, 0);
  cl_event ev = NULL;
  cr_assert(clg_gather(b, &d, &i, 0, &o, NULL, 0, NULL, &ev) == CLG_SUCCESS,
            "%s", clg_last_error());
  cr_assert(ev != NULL);
  clg_context_destroy(b);
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents after destroy");
  tu_cl_check(clEnqueueReadBuffer(q, bo, CL_TRUE, 0, sizeof out, out, 0, NULL,
                                  NULL),
              "clEnqueueReadBuffer");
  cr_expect(memcmp(out, want, sizeof out) == 0,
            "gather enqueued before destroy did not complete correctly");
  clReleaseEvent(ev);
  clReleaseMemObject(bd);
  clReleaseMemObject(bi);
  clReleaseMemObject(bo);
  clReleaseCommandQueue(q);
  clReleaseContext(cl);
}

Test(context, version) {
  cr_expect_eq(clg_version_number(), (unsigned)CLGATHER_VERSION_NUMBER);
  cr_expect_eq(CLGATHER_VERSION_NUMBER,
               CLGATHER_VERSION_MAJOR * 10000 + CLGATHER_VERSION_MINOR * 100 +
                   CLGATHER_VERSION_PATCH);
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", CLGATHER_VERSION_MAJOR,
           CLGATHER_VERSION_MINOR, CLGATHER_VERSION_PATCH);
  cr_assert(clg_version_string() != NULL);
  cr_expect_str_eq(clg_version_string(), want);
}

/* The shared test context is usable and its queue is on its device. */
Test(context, default_queue) {
  cl_command_queue q = clg_context_queue(tu_ctx());
  cr_assert(q != NULL);
  cl_device_id qd = NULL;
  tu_cl_check(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL),
              "clGetCommandQueueInfo(CL_QUEUE_DEVICE)");
  cr_expect(qd == clg_context_device(tu_ctx()));
  assert_gathers(tu_ctx(), "the shared test context");
}

/* A device whose byte order is not the host's (a test-build switch inverts
 * CL_DEVICE_ENDIAN_LITTLE): refused by both constructors, naming both byte
 * orders, nothing leaked. */
Test(context, foreign_byte_order_refused) {
  cl_device_id dev = first_device(NULL);
  cl_int err = CL_SUCCESS;
  cl_context cl = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  tu_cl_check(err, "clCreateContext");
  cl_uint refs0 = tu_context_refs(cl);
  clg_fault_flip_endian(true);
  clg_context *out = (clg_context *)&err;
  clg_status st = clg_context_create(cl, dev, &out);
  clg_status st2 = clg_context_create_default(NULL, &out);
  clg_fault_reset();
  cr_expect(st == CLG_ERROR_INVALID_ARGUMENT && st2 == CLG_ERROR_INVALID_ARGUMENT,
            "want invalid argument, got %s and %s", clg_status_string(st),
            clg_status_string(st2));
  cr_expect(out == NULL);
  cr_expect(strstr(clg_last_error(), "-endian and the host") != NULL, "%s",
            clg_last_error());
  cr_expect_eq(tu_context_refs_after(cl, refs0), refs0,
               "a refused context kept a reference");
  /* The real byte order is taken. */
  cr_assert_eq(clg_context_create(cl, dev, &out), CLG_SUCCESS, "%s",
               clg_last_error());
  clg_context_destroy(out);
  clReleaseContext(cl);
}
