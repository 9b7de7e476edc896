/* device/programs.c: built kernels and the in-memory program cache, the
 * embedded kernel sources (the on-disk cache: device/cache.h). Not installed.
 */
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
 * when it never builds: CLG_BUILD_ATTEMPTS with hints, as many for the
 * hints probe (the first refusal in a context), as many without (the
 * quirk fallback, programs.c and quirks.c). */
#define CLG_BUILD_MAX_CALLS (3 * CLG_BUILD_ATTEMPTS)

/* Get (building on first use) kernel `name` of `source` built with
 * `options` for ctx's device. Thread-safe. On a build failure:
 * CLG_ERROR_BUILD_FAILED with the build log in the message. */
clg_status clg__get_kernel(clg_context *ctx, const char *source,
                           const char *options, const char *name,
                           clg_kernel_entry **out);
/* Release every cached program and kernel. */
void clg__programs_release(clg_context *ctx);

/* Embedded kernel sources (generated from the files of kernels/), and the
 * SHA-256 of them all (hexadecimal). */
extern const char clg_kernels_digest[];
extern const char clg_kernel_validate[];
/* Copies between strided and dense layouts (run/strided.c). */
extern const char clg_kernel_strided[];
/* The scatters' index pass on the device (ops/scatter_device.c). */
extern const char clg_kernel_scatter_index[];
/* The operators' own: ops/op.h, from the registry. */

#endif /* CLGATHER_HOST_DEVICE_PROGRAMS_H */
