/* device/programs.c and cache.c: built kernels, the in-memory and on-disk program caches, the embedded kernel sources. Not installed. */
#ifndef CLGATHER_HOST_DEVICE_PROGRAMS_H
#define CLGATHER_HOST_DEVICE_PROGRAMS_H

#include "device/context.h"

/* ---------------------------------------------------------- programs.c */

/* A built kernel and the lock that serializes clSetKernelArg + enqueue on it.
 */
typedef struct clg_kernel_entry {
  struct clg_kernel_entry *next;
  const char *source; /* embedded source (identity) */
  char *options;      /* build options */
  char *name;         /* kernel function name */
  cl_kernel kernel;
  pthread_mutex_t lock;
} clg_kernel_entry;

/* Builds of one program tried on CL_BUILD_PROGRAM_FAILURE (programs.c). */
#define CLG_BUILD_ATTEMPTS 3
/* clBuildProgram calls a kernel source that can use compiler hints costs
 * when it never builds: CLG_BUILD_ATTEMPTS with hints, as many without
 * (the quirk fallback, programs.c and quirks.c). */
#define CLG_BUILD_MAX_CALLS (2 * CLG_BUILD_ATTEMPTS)

/* Get (building on first use) kernel `name` of `source` built with
 * `options` for ctx's device. Thread-safe. On a build failure:
 * CLG_ERROR_BUILD_FAILED with the build log in the message. */
clg_status clg__get_kernel(clg_context *ctx, const char *source,
                           const char *options, const char *name,
                           clg_kernel_entry **out);
/* Release every cached program and kernel. */
void clg__programs_release(clg_context *ctx);

/* ------------------------------------------------------------- cache.c */

/* The on-disk program cache (see cache.c for the location, key and file
 * format). Every function is silent: failure only means "not cached", and
 * no message is recorded. Called with ctx->lock held. */

/* The cache key of (source, options) on ctx's device; false when the cache
 * is off or unusable (checked once per context). */
bool clg__cache_key(clg_context *ctx, const char *source, const char *options,
                    clg_hash128 *key);
/* Load and build (with `options`) the program stored under `key`; false on
 * a miss, an invalid file or any OpenCL failure (nothing is left behind). */
bool clg__cache_load(clg_context *ctx, const clg_hash128 *key,
                     const char *options, cl_program *out);
/* Write the binary of built program `prog` under `key` (temporary file +
 * rename); false when anything fails (nothing is left behind). */
bool clg__cache_store(clg_context *ctx, const clg_hash128 *key,
                      cl_program prog);
/* Free the context's cache state. */
void clg__cache_release(clg_context *ctx);
/* A small record (a tuning choice) under `key` with `suffix` (".tune"):
 * read into buf (at most cap - 1 bytes, terminated); false on a miss. */
bool clg__cache_get_record(clg_context *ctx, const clg_hash128 *key,
                           const char *suffix, char *buf, size_t cap);
/* Write a small record (temporary file + rename); false on failure. */
bool clg__cache_put_record(clg_context *ctx, const clg_hash128 *key,
                           const char *suffix, const char *text);

/* Embedded kernel sources (generated from the files of kernels/). */
extern const char clg_kernel_validate[];
/* Copies between strided and dense layouts (run/strided.c). */
extern const char clg_kernel_strided[];
/* The scatters' index pass on the device (ops/scatter_device.c). */
extern const char clg_kernel_scatter_index[];
/* The operators' own: ops/op.h, from the registry. */

#endif /* CLGATHER_HOST_DEVICE_PROGRAMS_H */
