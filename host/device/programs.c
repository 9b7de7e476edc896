/* The per-context cache of built programs and kernels. A program is built
 * once per (source, options) for the context's device (or loaded from the
 * on-disk cache, cache.c); its kernels are
 * created once and reused, with a lock per kernel object because
 * clSetKernelArg + enqueue is not atomic. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "device/programs.h"
#include "device/cache.h"
#include "device/quirks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct clg_program_entry {
  struct clg_program_entry *next;
  const char *source;
  char *options;
  cl_program program;
} clg_program_entry;

/* s + t in a new string (free()d by the caller); NULL when out of memory. */
static char *clg_strcat2(const char *s, const char *t) {
  size_t n = strlen(s), m = strlen(t) + 1;
  char *p = CLG_MALLOC(n + m);
  if (p) {
    memcpy(p, s, n);
    memcpy(p + n, t, m);
  }
  return p;
}

/* The build log of a failed build, or NULL (the caller frees it). */
static char *clg_build_log(clg_context *ctx, cl_program prog) {
  size_t len = 0;
  char *log = NULL;
  if (clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                            &len) == CL_SUCCESS &&
      (log = CLG_MALLOC(len + 1)) != NULL) {
    if (clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, len,
                              log, NULL) != CL_SUCCESS)
      len = 0;
    log[len] = '\0';
  }
  return log;
}

/* Build a program; on failure the build log goes into the message. Called
 * with ctx->lock held.
 *
 * A compiler verdict (CL_BUILD_PROGRAM_FAILURE) is tried again with a fresh
 * program object, CLG_BUILD_ATTEMPTS builds in all, after a pause of 10 ms,
 * then 100 ms: POCL's kernel cache fails a build when another process builds
 * the same program at the same moment (pocl/pocl#1480: MPI ranks, or
 * parallel test runs, on a cold cache; seen in this project's CI with POCL
 * 3.1, the log saying only that the device "failed to build the program"),
 * and a later build finds the other process's result. Any driver's verdict
 * is tried again (others may keep caches as fragile): a real compile error,
 * which our own kernels should never meet, then costs two more builds and
 * 110 ms, the context's lock held, before its last log is reported.
 * Anything else clBuildProgram returns (CL_INVALID_BUILD_OPTIONS included)
 * is not retried. */
static clg_status clg_build(clg_context *ctx, const char *source,
                            const char *options, cl_program *out,
                            cl_int *cl_err) {
  cl_int err = CL_SUCCESS;
  cl_program prog = NULL;
  for (int attempt = 0;; ++attempt) {
    prog = clCreateProgramWithSource(ctx->cl_ctx, 1, &source, NULL, &err);
    if (!prog)
      return clg__fail_cl(err, "clCreateProgramWithSource",
                          "creating a kernel program");
    err = clBuildProgram(prog, 1, &ctx->device, options, NULL, NULL);
    *cl_err = err;
    if (err != CL_BUILD_PROGRAM_FAILURE || attempt + 1 == CLG_BUILD_ATTEMPTS)
      break;
    clReleaseProgram(prog);
    ctx->build_retries++;
    struct timespec pause = {0, attempt == 0 ? 10000000L : 100000000L};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
      ; /* a signal: sleep the rest */
  }
  if (err != CL_SUCCESS && err != CL_BUILD_PROGRAM_FAILURE &&
      err != CL_INVALID_BUILD_OPTIONS) {
    /* Not a compiler verdict (out of resources, no compiler, ...). */
    clReleaseProgram(prog);
    return clg__fail_cl(err, "clBuildProgram", "building a kernel program");
  }
  if (err != CL_SUCCESS) {
    char *log = clg_build_log(ctx, prog);
    clReleaseProgram(prog);
    clg_status st = clg__fail(CLG_ERROR_BUILD_FAILED,
                              "clBuildProgram failed: %s (%d) with options "
                              "\"%s\"; build log:\n%s",
                              clg__cl_error_name(err), (int)err, options,
                              log ? log : "(no log)");
    free(log);
    return st;
  }
  ctx->builds++;
  *out = prog;
  return CLG_SUCCESS;
}

/* The program of `source` built with `options` + `extra` (the quirks').
 * `cl_err`: clBuildProgram's last result when a build was tried. */
static clg_status clg_get_program(clg_context *ctx, const char *source,
                                  const char *options, const char *extra,
                                  cl_program *out, cl_int *cl_err) {
  size_t n = strlen(options);
  for (clg_program_entry *p = ctx->programs; p; p = p->next)
    if (p->source == source && strncmp(p->options, options, n) == 0 &&
        strcmp(p->options + n, extra) == 0) {
      *out = p->program;
      return CLG_SUCCESS;
    }
  clg_program_entry *e = CLG_CALLOC(1, sizeof *e);
  char *opts = clg_strcat2(options, extra);
  if (!e || !opts) {
    free(e);
    free(opts);
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
  }
  /* The disk cache first; any failure there falls back to the source. */
  options = opts;
  clg_hash128 key;
  bool cached = clg__cache_key(ctx, source, options, &key);
  if (cached && clg__cache_load(ctx, &key, options, &e->program)) {
    ctx->builds++;
    ctx->disk_loads++;
  } else {
    clg_status st = clg_build(ctx, source, options, &e->program, cl_err);
    if (st != CLG_SUCCESS) {
      free(e);
      free(opts);
      return st;
    }
    if (cached && clg__cache_store(ctx, &key, e->program))
      ctx->disk_stores++;
  }
  e->source = source;
  e->options = opts;
  e->next = ctx->programs;
  ctx->programs = e;
  *out = e->program;
  return CLG_SUCCESS;
}

/* Build (or find) program `source` with `options` + `extra` and create
 * kernel `name` of it. `refused`: the failure is one a compiler or runtime
 * gives for what it does not take (a compiler verdict, or a kernel it
 * cannot create from a built program). Called with ctx->lock held. */
static clg_status clg_try_kernel(clg_context *ctx, const char *source,
                                 const char *options, const char *extra,
                                 const char *name, cl_kernel *out,
                                 bool *refused) {
  *refused = false;
  cl_program prog = NULL;
  cl_int err = CL_SUCCESS;
  clg_status st = clg_get_program(ctx, source, options, extra, &prog, &err);
  if (st != CLG_SUCCESS) {
    *refused = err == CL_BUILD_PROGRAM_FAILURE;
    return st;
  }
  *out = clCreateKernel(prog, name, &err);
  if (*out)
    return CLG_SUCCESS;
  *refused = err == CL_INVALID_KERNEL_NAME;
  return clg__fail_cl(err, "clCreateKernel", name);
}

/* Whether the device takes the compiler hints at all: the probe kernel
 * (quirks.c) built with them and created. Asked after a program's refusal
 * with hints, until it once passes in the context (ctx->hints_probed); a
 * failure of the probe that is no verdict (out of resources) counts as
 * taking them. Called with ctx->lock held. */
static bool clg_device_takes_hints(clg_context *ctx) {
  if (ctx->hints_probed)
    return true;
  cl_program prog = NULL;
  cl_int err = CL_SUCCESS;
  clg_status st = clg_build(ctx, clg__hint_probe_source,
                            clg__quirk_options(ctx), &prog, &err);
  if (st != CLG_SUCCESS)
    return err != CL_BUILD_PROGRAM_FAILURE;
  cl_kernel k = clCreateKernel(prog, "clg_hint_probe", &err);
  if (k)
    clReleaseKernel(k);
  clReleaseProgram(prog);
  if (!k && err == CL_INVALID_KERNEL_NAME)
    return false;
  ctx->hints_probed = true;
  return true;
}

/* Kernel `name` of `source` built with `options` plus the device's quirk
 * options (quirks.c). A kernel source that can use compiler hints and
 * fails with them in a way a compiler or runtime refuses what it does not
 * take is tried once without them. When that works, the device is taken
 * not to take hints from then on (clg__quirk_drop_hints, remembered on
 * disk) only if a minimal kernel with the same hints is refused too; else
 * the refusal was this program's (a compile error of its own hinted code,
 * or a build that failed for a reason that passed: POCL's cache race), and
 * only this program goes without. When the build without hints fails too,
 * its failure is returned (a real compile error: its log, built without).
 * Called with ctx->lock held. */
static clg_status clg_create_kernel(clg_context *ctx, const char *source,
                                    const char *options, const char *name,
                                    cl_kernel *out) {
  const char *hints = strstr(source, "CLG_HINTS") ? clg__quirk_options(ctx)
                                                  : "";
  const char *fixes = clg__quirk_fixes(ctx, source);
  char extra[128];
  snprintf(extra, sizeof extra, "%s%s", hints, fixes);
  bool refused = false;
  clg_status st =
      clg_try_kernel(ctx, source, options, extra, name, out, &refused);
  if (st == CLG_SUCCESS || !refused || hints[0] == '\0')
    return st;
  bool device_refuses = !clg_device_takes_hints(ctx);
  bool again = false;
  st = clg_try_kernel(ctx, source, options, fixes, name, out, &again);
  if (st != CLG_SUCCESS)
    return st;
  if (device_refuses)
    clg__quirk_drop_hints(ctx);
  ctx->hint_fallbacks++;
  return clg__ok();
}

clg_status clg__get_kernel(clg_context *ctx, const char *source,
                           const char *options, const char *name,
                           clg_kernel_entry **out) {
  pthread_mutex_lock(&ctx->lock);
  for (clg_kernel_entry *k = ctx->kernels; k; k = k->next)
    if (k->source == source && strcmp(k->name, name) == 0 &&
        strcmp(k->options, options) == 0) {
      pthread_mutex_unlock(&ctx->lock);
      *out = k;
      return CLG_SUCCESS;
    }

  cl_kernel kernel = NULL;
  clg_status st = clg_create_kernel(ctx, source, options, name, &kernel);
  if (st != CLG_SUCCESS) {
    pthread_mutex_unlock(&ctx->lock);
    return st;
  }
  clg_kernel_entry *e = CLG_CALLOC(1, sizeof *e);
  char *opts = clg_strcat2(options, "");
  char *nm = clg_strcat2(name, "");
  if (!e || !opts || !nm || pthread_mutex_init(&e->lock, NULL) != 0) {
    clReleaseKernel(kernel);
    free(e);
    free(opts);
    free(nm);
    pthread_mutex_unlock(&ctx->lock);
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
  }
  e->kernel = kernel;
  e->source = source;
  e->options = opts;
  e->name = nm;
  e->next = ctx->kernels;
  ctx->kernels = e;
  pthread_mutex_unlock(&ctx->lock);
  *out = e;
  return CLG_SUCCESS;
}

void clg__programs_release(clg_context *ctx) {
  for (clg_kernel_entry *k = ctx->kernels, *next; k; k = next) {
    next = k->next;
    clReleaseKernel(k->kernel);
    pthread_mutex_destroy(&k->lock);
    free(k->options);
    free(k->name);
    free(k);
  }
  for (clg_program_entry *p = ctx->programs, *next; p; p = next) {
    next = p->next;
    clReleaseProgram(p->program);
    free(p->options);
    free(p);
  }
  ctx->kernels = NULL;
  ctx->programs = NULL;
  clg__cache_release(ctx);
}
