/*
 * Fault injection (test_faults; the method and the gather paths are in
 * test_faults.c, shared helpers in faults_fx.h / faults_fx.c): the context
 * constructors failed at every call position, a real compiler error whose
 * build log cannot be allocated, clg_context_queue() failing, all run by
 * every_injection_point (test_faults.c); and
 * transient_build_failure_recovers: a build that fails then succeeds is
 * invisible to the caller.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/testutil.h"

/* The fault-injection API without the macros that would route this file's
 * own OpenCL calls through the counting wrappers: only host/ is counted. */
#define CLG_FAULTS_IMPL
#include "core/faults.h"
#include "internal.h" /* clg__get_kernel, for a real build failure */

#include "run/faults_fx.h"

/* -------------------------------------------------------- constructors */

static clg_status construct(ctor which, clg_context **out) {
  return which == CTOR_DEFAULT
             ? clg_context_create_default(NULL, out)
             : clg_context_create(tu_cl_context(), tu_device(), out);
}

static void inject_ctor(ctor which, clg_fault k, unsigned pos) {
  const char *name = which == CTOR_DEFAULT
                         ? "clg_context_create_default(NULL)"
                         : "clg_context_create(borrowed cl_context)";
  char label[256];
  snprintf(label, sizeof label, "[%s] %s fails at call #%u", name,
           clg_fault_call_name(k), pos + 1);
  cl_uint refs0 = context_refs();
  clg_context *ctx = (clg_context *)&refs0; /* must become NULL */
  clg_fault_reset();
  clg_fault_inject(k, pos, 1, fault_error(k));
  clg_status st = construct(which, &ctx);
  unsigned long hits = clg_fault_calls(k);
  clg_fault_reset();
  char msg[4096];
  snprintf(msg, sizeof msg, "%s", clg_last_error());
  cr_expect(hits > pos, "%s: only %lu such calls", label, hits);
  cr_expect(st == expected_status(k), "%s: want %s, got %s: \"%s\"", label,
            clg_status_string(expected_status(k)), clg_status_string(st), msg);
  check_message(label, k, msg);
  cr_expect(ctx == NULL, "%s: *out is not NULL after a failure", label);
  if (st == CLG_SUCCESS && ctx)
    clg_context_destroy(ctx);
  /* The borrowed cl_context was not retained (no reference leaked). */
  cr_expect(context_refs_after(refs0) == refs0,
            "%s: the borrowed cl_context's reference count changed", label);
  /* And a later call works. */
  ctx = NULL;
  st = construct(which, &ctx);
  cr_expect(st == CLG_SUCCESS && ctx != NULL, "%s: the retry fails: %s", label,
            clg_last_error());
  clg_context_destroy(ctx);
  count_point(k);
}

void run_ctor(ctor which) {
  unsigned long counts[CLG_FAULT_COUNT];
  clg_context *ctx = NULL;
  clg_fault_reset();
  clg_status st = construct(which, &ctx);
  for (int k = 0; k < CLG_FAULT_COUNT; ++k)
    counts[k] = clg_fault_calls((clg_fault)k);
  clg_fault_reset();
  cr_assert(st == CLG_SUCCESS, "clean construction fails: %s",
            clg_last_error());
  clg_context_destroy(ctx);
  for (int k = 0; k < CLG_FAULT_COUNT; ++k)
    for (unsigned p = 0; p < counts[k]; ++p)
      inject_ctor(which, (clg_fault)k, p);
}

/* ------------------------------------------------------------- extras */

/* A real compiler error (a broken source through the internal program
 * cache) whose build log's buffer cannot be allocated: still
 * CLG_ERROR_BUILD_FAILED naming the error, with "(no log)", nothing cached,
 * nothing leaked. (An injected clBuildProgram failure never reaches the log
 * allocation: POCL has no build log for a program that was never built.) */
static const char broken_source[] =
    "kernel void broken(global int *p) { p[0] = undeclared_name; }\n";

void build_fails_without_log(void) {
  cl_uint refs0 = context_refs();
  clg_context *ctx = fresh_context();
  clg_kernel_entry *k = NULL;
  /* The program entry and its options string are the first two
   * allocations; the build log's buffer is the third. */
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_HOST_ALLOC, 2, 1, CL_OUT_OF_HOST_MEMORY);
  clg_status st = clg__get_kernel(ctx, broken_source, "", "broken", &k);
  unsigned long allocs = clg_fault_calls(CLG_FAULT_HOST_ALLOC);
  clg_fault_reset();
  cr_expect(st == CLG_ERROR_BUILD_FAILED, "build + log allocation: got %s",
            clg_status_string(st));
  cr_expect(allocs == 3,
            "build + log allocation: %lu allocations, want 3 "
            "(entry, options, log)",
            allocs);
  cr_expect(tu_contains(clg_last_error(),
                        "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE"),
            "%s", clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "(no log)"), "%s", clg_last_error());
  cr_expect(ctx->programs == NULL && ctx->kernels == NULL,
            "a failed build was cached");
  /* Without the fault the same build reports its log. */
  st = clg__get_kernel(ctx, broken_source, "", "broken", &k);
  cr_expect(st == CLG_ERROR_BUILD_FAILED &&
                tu_contains(clg_last_error(), "undeclared_name"),
            "the build log is missing: %s", clg_last_error());
  clg_context_destroy(ctx);
  cr_expect(context_refs_after(refs0) == refs0,
            "build + log allocation: a leak");
  count_point(CLG_FAULT_HOST_ALLOC);
}

/* clg_context_queue() itself: NULL with the message, then the queue. */
void context_queue_fails(void) {
  clg_context *ctx = fresh_context();
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_CREATE_QUEUE, 0, 1, CL_OUT_OF_RESOURCES);
  cl_command_queue q = clg_context_queue(ctx);
  clg_fault_reset();
  cr_expect(q == NULL, "clg_context_queue returned a queue despite the fault");
  cr_expect(tu_contains(clg_last_error(),
                        "clCreateCommandQueue failed: CL_OUT_OF_RESOURCES"),
            "%s", clg_last_error());
  q = clg_context_queue(ctx);
  cr_expect(q != NULL, "clg_context_queue after a failure: %s",
            clg_last_error());
  cr_expect(clg_context_queue(ctx) == q, "the queue is not kept");
  clg_context_destroy(ctx);
  count_point(CLG_FAULT_CREATE_QUEUE);
}

/* A build that fails with CL_BUILD_PROGRAM_FAILURE and then succeeds (POCL's
 * kernel cache race, host/device/programs.c) is invisible to the caller:
 * on a fresh context (nothing built yet) the first gather's first program
 * fails CLG_BUILD_ATTEMPTS - 1 times, and the gather still returns the
 * reference's bytes; no OpenCL object is left behind. */
Test(faults, transient_build_failure_recovers) {
  float data[6 * 5];
  for (int k = 0; k < 30; ++k)
    data[k] = (float)k * 0.5f - 3;
  int64_t idx[4] = {5, -6, 2, 5};
  const int64_t ds[2] = {6, 5}, is[1] = {4}, os[2] = {4, 5};
  float out[20], want[20];
  cr_assert_eq(ref_gather(data, 4, 2, ds, idx, REF_INDEX_I64, 1, is, 0, want),
               0);
  /* Source builds, not the disk cache's binaries (as ctest runs it). */
  setenv("CLGATHER_CACHE_DIR", "off", 1);
  cl_uint refs0 = context_refs();
  clg_context *ctx = fresh_context();
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, CLG_BUILD_ATTEMPTS - 1,
                   CL_BUILD_PROGRAM_FAILURE);
  clg_status st = clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, NULL);
  unsigned long builds = clg_fault_calls(CLG_FAULT_BUILD_PROGRAM);
  clg_fault_reset();
  cr_expect_eq(st, CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_geq(builds, (unsigned long)CLG_BUILD_ATTEMPTS,
                "the injected failures were not reached");
  cr_expect_eq(ctx->build_retries, CLG_BUILD_ATTEMPTS - 1);
  cr_expect(memcmp(out, want, sizeof out) == 0, "wrong gather after a retry");
  clg_context_destroy(ctx);
  cr_expect_eq(context_refs_after(refs0), refs0,
               "an OpenCL object leaked after a retried build");
}
