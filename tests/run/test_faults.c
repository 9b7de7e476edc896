/*
 * OpenCL and host-allocation failures, injected at every call position of
 * every path (host/core/faults.h, test builds only).
 *
 * For each setup (a gather path, or a context constructor) the test first
 * counts, in a clean run, how many calls of each fault kind the path makes;
 * then, for every kind and every position p (the p+1-th call of that kind),
 * it makes exactly that call fail and checks:
 *  - the status: CLG_ERROR_BUILD_FAILED for clBuildProgram,
 *    CLG_ERROR_OUT_OF_HOST_MEMORY for malloc/calloc, CLG_ERROR_OPENCL for the
 *    rest;
 *  - the message names the OpenCL call and the injected error's name (e.g.
 *    "clCreateBuffer failed: CL_MEM_OBJECT_ALLOCATION_FAILURE");
 *  - no event is returned (and *out stays NULL for constructors);
 *  - the output (host and cl_mem, with TU_GUARD sentinel bytes around it) is
 *    untouched, except where the failure comes after the gather kernel was
 *    enqueued (see check_after_kernel());
 *  - nothing leaks: the cl_context's reference count is back to its value
 *    before the call once the test's own objects are gone (every cl_mem,
 *    program, kernel, queue and event holds a reference to it, directly or
 *    through its queue/program), and the ASan/LSan build finds no leak;
 *  - a later call without injection succeeds with the right result on the
 *    same clg_context: nothing is poisoned (a failed build caches nothing
 *    and is built again by the next call).
 * Setups that need an empty program cache (create program, build, create
 * kernel, their host allocations, the context's own queue) use a fresh
 * clg_context per injection, borrowing the shared cl_context (so buffers
 * are shared and POCL's kernel cache keeps rebuilds cheap).
 *
 * Asynchronous setups call clg_run_async() and then clg_outcome_wait() on
 * its outcome, both inside the counted (and injected) region: with cl_mem
 * indices and output the validation kernel's verdict buffer, its launch,
 * the gated gather kernel, the outcome's allocation, and the outcome's
 * verdict read (and the context's own queue, created by the wait when the
 * call used the caller's queue) each fail in turn. A failure of the call
 * leaves *outcome untouched and returns no event; a failure of the wait
 * (the call succeeded: its event is returned, the gather ran on a good
 * verdict and the output is correct) names the call, and a second wait
 * without the fault succeeds ("may be tried again").
 *
 * This file: the gather paths and every_injection_point, which also runs
 * the constructors' injections and two extras (test_faults_ctors.c, with
 * transient_build_failure_recovers); shared helpers in faults_fx.h /
 * faults_fx.c. One binary, test_faults.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/testutil.h"

/* The fault-injection API without the macros that would route this file's
 * own OpenCL calls through the counting wrappers: only host/ is counted. */
#define CLG_FAULTS_IMPL
#include "core/faults.h"
#include "internal.h" /* device_validations, CLG_BUILD_MAX_CALLS */

#include "run/faults_fx.h"

/* ------------------------------------------------------ gather paths */

typedef enum fshape {
  SHAPE_SMALL = 0, /* data float [5, 3], indices int64 [2, 3]: SMALL kernel */
  SHAPE_ROWS = 1,  /* data float [4, 128], indices int32 [3]: ROWS kernel */
  SHAPE_EMPTY = 2, /* data float [5, 3], indices int64 [0]: nothing to copy */
} fshape;

typedef struct fsetup {
  const char *name;
  bool fresh; /* a fresh clg_context for every run */
  fshape shape;
  tu_storage st[3];  /* data, indices, output */
  bool caller_queue; /* pass the test's queue (else NULL: context's queue) */
  bool want_event;
  bool async; /* clg_run_async + clg_outcome_wait (else clg_gather) */
} fsetup;

#define HOST                                                                   \
  { CLG_STORAGE_HOST, 0, false, false }
#define BUF(off)                                                               \
  { CLG_STORAGE_BUFFER, off, false, false }

/* clang-format off */
static const fsetup setups[] = {
    /* name, fresh, shape, storage (data, indices, output), caller_queue,
     * want_event, async */
    {"fresh context; host data, indices, output; event",
     true, SHAPE_SMALL, {HOST, HOST, HOST}, false, true, false},
    {"fresh context; host data, cl_mem indices, host output",
     true, SHAPE_SMALL, {HOST, BUF(8), HOST}, false, false, false},
    {"all cl_mem (offsets 4/8/12); caller's queue; event: non-blocking",
     false, SHAPE_SMALL, {BUF(4), BUF(8), BUF(12)}, true, true, false},
    {"host data and indices, cl_mem output, no event: waits",
     false, SHAPE_SMALL, {HOST, HOST, BUF(0)}, false, false, false},
    {"ROWS kernel (int32 indices); host; caller's queue",
     false, SHAPE_ROWS, {HOST, HOST, HOST}, true, false, false},
    {"empty gather; host; event: a marker",
     false, SHAPE_EMPTY, {HOST, HOST, HOST}, false, true, false},
    {"empty gather; all cl_mem; event: a marker",
     false, SHAPE_EMPTY, {BUF(0), BUF(8), BUF(4)}, false, true, false},
    /* clg_run_async: the verdict stays on the device. */
    {"async; all cl_mem (offsets 4/8/12); caller's queue; event",
     false, SHAPE_SMALL, {BUF(4), BUF(8), BUF(12)}, true, true, true},
    {"async; fresh context; ROWS kernel, all cl_mem; caller's queue (the "
     "wait creates the context's own)",
     true, SHAPE_ROWS, {BUF(0), BUF(4), BUF(0)}, true, false, true},
    {"async; cl_mem indices, host data and output: checked by the call",
     false, SHAPE_SMALL, {HOST, BUF(8), HOST}, false, true, true},
    {"async; empty gather; all cl_mem; event: a marker",
     false, SHAPE_EMPTY, {BUF(0), BUF(8), BUF(4)}, false, true, true},
};
/* clang-format on */

typedef struct fenv {
  const fsetup *s;
  clg_dtype idt;
  int32_t r, q, orank;
  int64_t dshape[2], ishape[2], oshape[3];
  unsigned char *want; /* reference output */
  size_t obytes;
  tu_tensor td, ti;
} fenv;

static void env_init(fenv *e, const fsetup *s) {
  memset(e, 0, sizeof *e);
  e->s = s;
  e->r = 2;
  if (s->shape == SHAPE_ROWS) {
    e->dshape[0] = 4;
    e->dshape[1] = 128;
    e->idt = CLG_DTYPE_INT32;
    e->q = 1;
    e->ishape[0] = 3;
  } else {
    e->dshape[0] = 5;
    e->dshape[1] = 3;
    e->idt = CLG_DTYPE_INT64;
    e->q = 2;
    e->ishape[0] = s->shape == SHAPE_EMPTY ? 0 : 2;
    e->ishape[1] = 3;
  }
  int64_t os[REF_MAX_RANK];
  cr_assert(ref_gather_shape(e->r, e->dshape, e->q, e->ishape, 0, 3, &e->orank,
                             os) == 0);
  memcpy(e->oshape, os, sizeof e->oshape);
  int64_t dn = tu_numel(e->r, e->dshape), in = tu_numel(e->q, e->ishape);
  e->obytes = (size_t)tu_numel(e->orank, e->oshape) * 4u;
  unsigned char *data = malloc((size_t)dn * 4u);
  unsigned char *idx = malloc((size_t)in * 8u + 1u);
  e->want = malloc(e->obytes + 1u);
  cr_assert(data && idx && e->want);
  tu_rng rng = tu_rng_make(0xFA17u + (uint64_t)s->shape);
  tu_rng_bytes(&rng, data, (size_t)dn * 4u);
  tu_fill_indices(&rng, idx, e->idt, in, e->dshape[0], TU_IDX_ANY);
  cr_assert(ref_gather(data, 4, e->r, e->dshape, idx, tu_ref_index_type(e->idt),
                       e->q, e->ishape, 0, e->want) == 0);
  tu_tensor_init(&e->td, CLG_DTYPE_FLOAT, e->r, e->dshape, s->st[0], data);
  tu_tensor_init(&e->ti, e->idt, e->q, e->ishape, s->st[1], idx);
  free(data);
  free(idx);
}

static void env_free(fenv *e) {
  tu_tensor_free(&e->td);
  tu_tensor_free(&e->ti);
  free(e->want);
}

/* *outcome's value before an asynchronous call: it must stay so on error. */
static clg_outcome *const g_no_outcome = (clg_outcome *)(uintptr_t)0x0C0FFEE0u;

/* The path's call. Asynchronous setups: clg_run_async(), then (if it
 * succeeded) clg_outcome_wait() on *oc, which the caller releases; *in_wait
 * tells that the call succeeded and the wait failed. */
static clg_status gather(const fenv *e, clg_context *ctx, const tu_tensor *out,
                         cl_event *ev, clg_outcome **oc, bool *in_wait) {
  cl_command_queue q = e->s->caller_queue ? tu_queue() : NULL;
  *in_wait = false;
  *oc = g_no_outcome;
  if (!e->s->async)
    return clg_gather(ctx, &e->td.desc, &e->ti.desc, 0, &out->desc, q, 0, NULL,
                      e->s->want_event ? ev : NULL);
  clg_status st = clg_run_async(ctx, NULL, &e->td.desc, &e->ti.desc,
                                &out->desc, q, 0, NULL,
                                e->s->want_event ? ev : NULL, oc);
  if (st != CLG_SUCCESS)
    return st;
  st = clg_outcome_wait(*oc);
  *in_wait = st != CLG_SUCCESS;
  return st;
}

/* Release an outcome gather() returned, if any. */
static void outcome_done(clg_outcome *oc) {
  if (oc != g_no_outcome)
    clg_outcome_release(oc);
}

/* Let everything the call may have enqueued finish. */
static void drain(const fenv *e, clg_context *ctx) {
  cl_command_queue q = clg_context_queue(ctx);
  cr_assert(q != NULL, "clg_context_queue: %s", clg_last_error());
  tu_cl_check(clFinish(q), "clFinish (context queue)");
  if (e->s->caller_queue)
    tu_cl_check(clFinish(tu_queue()), "clFinish (caller queue)");
}

/* The output after a failure that came AFTER the gather kernel was
 * successfully enqueued. Two places can fail there:
 *  - clEnqueueReadBuffer of a host output (the read-back of the temporary
 *    device output into the caller's memory);
 *  - clWaitForEvents of a blocking call with a cl_mem output.
 * What clgather guarantees then: the kernel only ever writes the correct
 * gathered value of each output element and nothing outside the tensor's
 * bytes, and clgather writes a host output only through that one blocking
 * read of the complete result. So, whatever the OpenCL runtime managed to do
 * before failing, every byte of the output holds either its old value or
 * its correct result, and every byte around it is untouched; a cl_mem
 * output whose kernel was enqueued keeps being written by it (clgather
 * cannot recall an enqueued kernel), so it may end up complete. No event is
 * returned and the call's temporary buffers are released (OpenCL keeps them
 * alive until the kernel is done). */
static void check_after_kernel(const char *label, const fenv *e,
                               const tu_tensor *out) {
  unsigned char *img = malloc(out->total + 1u);
  cr_assert(img != NULL);
  tu_tensor_read_all(out, img);
  bool guards = true, each = true;
  for (size_t b = 0; b < out->total; ++b) {
    bool inside = b >= out->offset && b < out->offset + out->bytes;
    if (!inside)
      guards = guards && img[b] == TU_SENTINEL;
    else
      each =
          each && (img[b] == TU_SENTINEL || img[b] == e->want[b - out->offset]);
  }
  free(img);
  cr_expect(guards, "%s: bytes around the output were written", label);
  cr_expect(each,
            "%s: an output byte holds neither its old value nor the "
            "correct result",
            label);
}

/* Output equals the reference and nothing around it was written. */
static void check_correct(const char *label, const fenv *e,
                          const tu_tensor *out) {
  unsigned char *got = malloc(e->obytes + 1u);
  cr_assert(got != NULL);
  tu_tensor_read(out, got);
  ptrdiff_t d = tu_first_diff(got, e->want, e->obytes);
  free(got);
  cr_expect(d < 0, "%s: the retry's output differs at byte %td", label, d);
  cr_expect(tu_tensor_guards_ok(out), "%s: the retry wrote around the output",
            label);
}

/* Counts of every kind in one clean run of the path. */
static void clean_counts(const fenv *e, unsigned long counts[CLG_FAULT_COUNT]) {
  clg_context *ctx = e->s->fresh ? fresh_context() : tu_ctx();
  tu_tensor out;
  tu_tensor_init(&out, CLG_DTYPE_FLOAT, e->orank, e->oshape, e->s->st[2], NULL);
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  bool in_wait = false;
  /* No buffer kept by the context (verdicts): the path's calls are the
   * same in this count and in each failing run (inject_gather). */
  tu_drop_kept(ctx);
  clg_fault_reset();
  clg_status st = gather(e, ctx, &out, &ev, &oc, &in_wait);
  for (int k = 0; k < CLG_FAULT_COUNT; ++k)
    counts[k] = clg_fault_calls((clg_fault)k);
  clg_fault_reset();
  cr_assert(st == CLG_SUCCESS, "%s: the clean run fails: %s", e->s->name,
            clg_last_error());
  cr_assert(!e->s->async || (oc != NULL && oc != g_no_outcome),
            "%s: no outcome", e->s->name);
  outcome_done(oc);
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  drain(e, ctx);
  check_correct(e->s->name, e, &out);
  tu_tensor_free(&out);
  if (e->s->fresh)
    clg_context_destroy(ctx);
}

/* Fail the (pos+1)-th call of kind k on the path; check; retry.
 * clean_builds: the clBuildProgram calls of the clean run. */
static void inject_gather(const fenv *e, clg_fault k, unsigned pos,
                          unsigned long clean_builds) {
  char label[320];
  snprintf(label, sizeof label, "[%s] %s fails at call #%u", e->s->name,
           clg_fault_call_name(k), pos + 1);
  cl_uint refs0 = context_refs();
  clg_context *ctx = e->s->fresh ? fresh_context() : tu_ctx();
  tu_tensor out;
  tu_tensor_init(&out, CLG_DTYPE_FLOAT, e->orank, e->oshape, e->s->st[2], NULL);

  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  bool in_wait = false;
  tu_drop_kept(ctx); /* as in clean_counts() */
  clg_fault_reset();
  /* A compiler verdict is tried CLG_BUILD_ATTEMPTS times, then as often
   * without compiler hints (programs.c): fail them all (test_programs.c
   * covers the recovered ones). */
  clg_fault_inject(k, pos,
                   k == CLG_FAULT_BUILD_PROGRAM ? CLG_BUILD_MAX_CALLS : 1,
                   fault_error(k));
  unsigned validations0 = atomic_load(&ctx->device_validations);
  clg_status st = gather(e, ctx, &out, &ev, &oc, &in_wait);
  unsigned long hits = clg_fault_calls(k);
  /* Gather kernels only: cl_mem indices may be validated by a kernel first
   * (CLGATHER_TEST_DEVICE_VALIDATION=always), which writes no output. */
  unsigned long enqueued = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL) -
                           (atomic_load(&ctx->device_validations) -
                            validations0);
  clg_fault_reset();
  char msg[8192];
  snprintf(msg, sizeof msg, "%s", clg_last_error());

  cr_expect(hits > pos, "%s: the path made only %lu such calls", label, hits);
  cr_expect(st == expected_status(k), "%s: want %s, got %s: \"%s\"", label,
            clg_status_string(expected_status(k)), clg_status_string(st), msg);
  check_message(label, k, msg);
  if (in_wait) {
    /* clg_run_async succeeded (its event is returned), the outcome's wait
     * failed: a second wait, without the fault, gives the verdict. */
    cr_expect(!e->s->want_event || ev != NULL,
              "%s: the call succeeded but returned no event", label);
    clg_status again = clg_outcome_wait(oc);
    cr_expect(again == CLG_SUCCESS && clg_last_error()[0] == '\0',
              "%s: after a failed wait, a second one gives %s: %s", label,
              clg_status_string(again), clg_last_error());
    if (ev)
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents (call's event)");
  } else {
    cr_expect(ev == NULL, "%s: an event was returned on failure", label);
    cr_expect(!e->s->async || oc == g_no_outcome,
              "%s: *outcome was written on failure", label);
  }
  if (ev)
    clReleaseEvent(ev);
  outcome_done(oc);
  drain(e, ctx);

  /* The output. enqueued counts clEnqueueNDRangeKernel attempts: 0 means
   * the failure came before any kernel; an injected failure of that very
   * call enqueued nothing either. */
  bool kernel_ran = enqueued > 0 && k != CLG_FAULT_ENQUEUE_KERNEL;
  if (in_wait) {
    /* The gated gather ran on a good verdict: the result. */
    unsigned char *got = malloc(e->obytes + 1u);
    cr_assert(got != NULL);
    tu_tensor_read(&out, got);
    ptrdiff_t d = tu_first_diff(got, e->want, e->obytes);
    free(got);
    cr_expect(d < 0 && tu_tensor_guards_ok(&out),
              "%s: the call succeeded but its output is wrong (byte %td)",
              label, d);
  } else if (!kernel_ran) {
    cr_expect(tu_tensor_all_sentinel(&out),
              "%s: the output (or the bytes around it) changed", label);
  } else {
    cr_expect(k == CLG_FAULT_READ_BUFFER || k == CLG_FAULT_WAIT,
              "%s: a %s failure after the kernel was enqueued", label,
              clg_fault_call_name(k));
    cr_expect(enqueued == 1, "%s: %lu kernels enqueued", label, enqueued);
    check_after_kernel(label, e, &out);
  }

  /* The retry, same context and output, no injection. */
  ev = NULL;
  clg_fault_reset();
  st = gather(e, ctx, &out, &ev, &oc, &in_wait);
  unsigned long builds = clg_fault_calls(CLG_FAULT_BUILD_PROGRAM);
  clg_fault_reset();
  outcome_done(oc);
  cr_expect(st == CLG_SUCCESS, "%s: the retry fails: %s: %s", label,
            clg_status_string(st), clg_last_error());
  cr_expect(clg_last_error()[0] == '\0' || st != CLG_SUCCESS,
            "%s: a message is left after success", label);
  if (e->s->want_event && st == CLG_SUCCESS) {
    cr_expect(ev != NULL, "%s: the retry returned no event", label);
    if (ev) {
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents (retry)");
      clReleaseEvent(ev);
    }
  }
  drain(e, ctx);
  check_correct(label, e, &out);
  /* A build that failed (or never started) left nothing in the cache: the
   * retry builds it and the ones after it (the validation kernel's program,
   * when there is one, is built before the gather's). */
  if (e->s->fresh &&
      (k == CLG_FAULT_BUILD_PROGRAM || k == CLG_FAULT_CREATE_PROGRAM))
    cr_expect(builds == clean_builds - pos,
              "%s: the retry made %lu clBuildProgram calls, "
              "want %lu",
              label, builds, clean_builds - pos);

  tu_tensor_free(&out);
  if (e->s->fresh)
    clg_context_destroy(ctx);
  cl_uint refs1 = context_refs_after(refs0);
  cr_expect(refs1 == refs0,
            "%s: the cl_context's reference count went from %u to %u: an "
            "OpenCL object leaked",
            label, (unsigned)refs0, (unsigned)refs1);
  count_point(k);
}

static void run_setup(const fsetup *s) {
  fenv e;
  env_init(&e, s);
  if (!s->fresh) {
    /* Warm the shared context's program cache, until a run builds nothing:
     * the tuner's choice for a shape may take more than one call to settle
     * on a loaded machine (a timing it discards), and a program built by a
     * later clean run would leave the injected runs nothing to fail. */
    unsigned long warm[CLG_FAULT_COUNT];
    for (int tries = 0; tries < 8; ++tries) {
      clean_counts(&e, warm);
      if (warm[CLG_FAULT_CREATE_PROGRAM] == 0 &&
          warm[CLG_FAULT_BUILD_PROGRAM] == 0)
        break;
    }
  }
  unsigned long counts[CLG_FAULT_COUNT];
  clean_counts(&e, counts);
  char plan[512];
  size_t used = 0;
  for (int k = 0; k < CLG_FAULT_COUNT; ++k) {
    if (counts[k] && used < sizeof plan)
      used += (size_t)snprintf(plan + used, sizeof plan - used, " %s x%lu",
                               clg_fault_call_name((clg_fault)k), counts[k]);
    for (unsigned p = 0; p < counts[k]; ++p)
      inject_gather(&e, (clg_fault)k, p, counts[CLG_FAULT_BUILD_PROGRAM]);
  }
  cr_log_info("[%s] injected at:%s", s->name, plan);
  env_free(&e);
}

/* ------------------------------------------------------------- the test */

Test(faults, every_injection_point, .timeout = 300) {
  for (size_t n = 0; n < sizeof setups / sizeof setups[0]; ++n)
    run_setup(&setups[n]);
  run_ctor(CTOR_DEFAULT);
  run_ctor(CTOR_BORROW);
  build_fails_without_log();
  context_queue_fails();

  char kinds[1024];
  size_t used = 0;
  for (int k = 0; k < CLG_FAULT_COUNT; ++k) {
    /* The disk cache's calls fail silently (tests/device/test_cache.c); the
     * cache is off for this suite. */
    bool cache_call =
        k == CLG_FAULT_CREATE_PROGRAM_BINARY || k == CLG_FAULT_PROGRAM_INFO;
    /* clCreateSubBuffer: only sharded calls over 2+ devices (test_shard). */
    cache_call = cache_call || k == CLG_FAULT_CREATE_SUB_BUFFER;
    cr_expect(g_by_kind[k] > 0 || cache_call, "no path reaches a %s call",
              clg_fault_call_name((clg_fault)k));
    if (used < sizeof kinds)
      used += (size_t)snprintf(kinds + used, sizeof kinds - used, "%s%s %u",
                               k ? ", " : "", clg_fault_call_name((clg_fault)k),
                               g_by_kind[k]);
  }
  cr_log_info("fault injection: %u injection points covered (%s)", g_points,
              kinds);
}
