/* device/quirks.c: what a device's OpenCL C compiler and runtime take
 * beyond OpenCL C, decided per device. Not installed. */
#ifndef CLGATHER_HOST_DEVICE_QUIRKS_H
#define CLGATHER_HOST_DEVICE_QUIRKS_H

#include "device/context.h"

/* A device's quirks: bits of clg_context.quirks. */
typedef enum clg_quirk {
  /* The kernels are built without compiler hints (no -DCLG_HINTS): the
   * device's compiler or runtime refused __builtin_prefetch or
   * __builtin_nontemporal_store (kernels/prelude.cl, gather.cl), either
   * known from the table in quirks.c or found when a build or a kernel
   * creation with them failed and the same build without them worked. */
  CLG_QUIRK_NO_HINTS = 1u << 0,
  /* Host tensors are copied to the device (CL_MEM_COPY_HOST_PTR), never
   * wrapped in place (CL_MEM_USE_HOST_PTR), though the device shares host
   * memory: for a checking simulator that takes wrapped host memory for
   * uninitialized (device/enqueue.c). */
  CLG_QUIRK_COPY_HOST = 1u << 1,
  /* Kernels are made as for a GPU whatever the device's type: the
   * device runs at most 65535 iterations of each loop of a work-item and
   * silently drops the rest, which the CPU kernels' long loops per
   * work-item (a plane, a block of slices, a chunk of indices) exceed;
   * the GPU kernels give each work-item a few iterations. */
  CLG_QUIRK_GPU_KERNELS = 1u << 2,
  /* The device's fma(a, b, +0) is -0 where a * b is -0 (IEEE 754: +0):
   * kernels that use fma take -DCLG_FMA_ZERO=1 and add a zero c after
   * the product instead (kernels/embedding_bag.cl, CLG_FMA). */
  CLG_QUIRK_FMA_ZERO = 1u << 3,
} clg_quirk;

/* The quirks quirks.c gives a platform of this CL_PLATFORM_NAME: no hints
 * unless its compiler is on the allowlist of those known to take them,
 * and the table's. */
unsigned clg__quirks_of_platform(const char *name);
/* The quirks of `device` (clg__quirks_of_platform on its platform's name)
 * into *out; the OpenCL error when the name cannot be read. Called by
 * context creation. */
cl_int clg__quirks_known(cl_device_id device, unsigned *out);
/* The build options the device's quirks add to every program's own:
 * " -DCLG_HINTS=1" while hints are allowed, else "". Called with ctx->lock
 * held; reads the disk cache's record of the device on the first call. */
const char *clg__quirk_options(clg_context *ctx);
/* The build options the device's quirks add to a program that can use
 * them (its source names CLG_FMA): " -DCLG_FMA_ZERO=1" under
 * CLG_QUIRK_FMA_ZERO, else "". Hints or not. */
const char *clg__quirk_fixes(const clg_context *ctx, const char *source);
/* A kernel using every compiler hint the kernels use, as prelude.cl and
 * gather.cl spell them under CLG_HINTS (kernel clg_hint_probe): built when
 * a program was refused with hints, to tell a device that refuses them
 * from a program that fails for a reason of its own (programs.c). */
extern const char clg__hint_probe_source[];
/* A build or kernel creation with hints failed, and the probe with them
 * too: from now on build without them (remembered in the disk cache, when
 * it is on, for later contexts on the same device). False when hints were
 * already off: a retry without them would change nothing. Called with
 * ctx->lock held. */
bool clg__quirk_drop_hints(clg_context *ctx);
/* The names of ctx's quirks, comma-separated ("" for none), e.g.
 * "no-hints,gpu-kernels"; a static string. */
const char *clg__quirk_names(unsigned quirks);

/* The one device type a device's kernels are made for. OpenCL lets
 * CL_DEVICE_TYPE have several bits; Oclgrind 21.10 sets all four (15:
 * default, CPU, GPU, accelerator), and the CPU kernels, tested first, were
 * taken for a simulator of a GPU. A GPU bit wins, then a CPU bit; anything
 * else is kept as it is (given a GPU's kernels). */
cl_device_type clg__quirk_device_type(cl_device_type reported);
/* The device type kernels are chosen for (their variants, geometry and
 * NDRanges): the context's device's (the one type above; a GPU where its
 * quirks say CLG_QUIRK_GPU_KERNELS), except in test builds, where
 * CLGATHER_TEST_KERNEL_DEVICE=gpu|cpu overrides it so the GPU kernel
 * variants also run on POCL's CPU device. */
cl_device_type clg__kernel_device(const clg_context *ctx);

#endif /* CLGATHER_HOST_DEVICE_QUIRKS_H */
