/* The per-context cache of built programs and kernels. A program is built
 * once per (source, options) for the context's device (or loaded from the
 * on-disk cache, cache.c); its kernels are
 * created once and reused, with a lock per kernel object because
 * clSetKernelArg + enqueue is not atomic. */
#include "device/programs.h"

#include <stdlib.h>
#include <string.h>

typedef struct clg_program_entry {
  struct clg_program_entry *next;
  const char *source;
  char *options;
  cl_program program;
} clg_program_entry;

static char *clg_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = CLG_MALLOC(n);
  if (p)
    memcpy(p, s, n);
  return p;
}

/* Build a program; on failure the build log goes into the message. Called
 * with ctx->lock held. */
static clg_status clg_build(clg_context *ctx, const char *source,
                            const char *options, cl_program *out) {
  cl_int err = CL_SUCCESS;
  cl_program prog =
      clCreateProgramWithSource(ctx->cl_ctx, 1, &source, NULL, &err);
  if (!prog)
    return clg__fail_cl(err, "clCreateProgramWithSource",
                        "creating a kernel program");
  err = clBuildProgram(prog, 1, &ctx->device, options, NULL, NULL);
  if (err != CL_SUCCESS && err != CL_BUILD_PROGRAM_FAILURE &&
      err != CL_INVALID_BUILD_OPTIONS) {
    /* Not a compiler verdict (out of resources, no compiler, ...). */
    clReleaseProgram(prog);
    return clg__fail_cl(err, "clBuildProgram", "building a kernel program");
  }
  if (err != CL_SUCCESS) {
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

static clg_status clg_get_program(clg_context *ctx, const char *source,
                                  const char *options, cl_program *out) {
  for (clg_program_entry *p = ctx->programs; p; p = p->next)
    if (p->source == source && strcmp(p->options, options) == 0) {
      *out = p->program;
      return CLG_SUCCESS;
    }
  clg_program_entry *e = CLG_CALLOC(1, sizeof *e);
  char *opts = clg_strdup(options);
  if (!e || !opts) {
    free(e);
    free(opts);
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
  }
  /* The disk cache first; any failure there falls back to the source. */
  clg_hash128 key;
  bool cached = clg__cache_key(ctx, source, options, &key);
  if (cached && clg__cache_load(ctx, &key, options, &e->program)) {
    ctx->builds++;
    ctx->disk_loads++;
  } else {
    clg_status st = clg_build(ctx, source, options, &e->program);
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

  cl_program prog = NULL;
  clg_status st = clg_get_program(ctx, source, options, &prog);
  if (st != CLG_SUCCESS) {
    pthread_mutex_unlock(&ctx->lock);
    return st;
  }
  clg_kernel_entry *e = CLG_CALLOC(1, sizeof *e);
  char *opts = clg_strdup(options);
  char *nm = clg_strdup(name);
  if (!e || !opts || !nm || pthread_mutex_init(&e->lock, NULL) != 0) {
    free(e);
    free(opts);
    free(nm);
    pthread_mutex_unlock(&ctx->lock);
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
  }
  cl_int err = CL_SUCCESS;
  e->kernel = clCreateKernel(prog, name, &err);
  if (!e->kernel) {
    pthread_mutex_destroy(&e->lock);
    free(e);
    free(opts);
    free(nm);
    pthread_mutex_unlock(&ctx->lock);
    return clg__fail_cl(err, "clCreateKernel", name);
  }
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
