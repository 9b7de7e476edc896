/* Device quirks: what a device takes beyond OpenCL C, in one place (as
 * CLBlast keeps its per-device kernel workarounds), each with its reason.
 *
 * Compiler hints (__builtin_prefetch, __builtin_nontemporal_store: not
 * OpenCL C, clang's) are given only to the compilers known to take them
 * (the allowlist below): another may refuse them with a failed build, and
 * one ends the whole process instead (Mesa's Rusticl: its SPIR-V
 * translator exits on llvm.prefetch), where no fallback can run. On a
 * listed device a program built with hints that fails to build or to give
 * a kernel is still rebuilt once without them (programs.c); when a minimal
 * kernel with the same hints (clg__hint_probe_source) is refused too, the
 * choice is kept with the context and, when the disk cache is on, in a
 * ".quirks" record keyed by the device, driver and platform (cache.c), so
 * a later process does not fail again.
 *
 * Other quirks are known ahead (the table below: a device whose failure
 * is certain). */
#include "device/quirks.h"
#include "device/cache.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef struct clg_quirk_rule {
  const char *platform; /* substring of CL_PLATFORM_NAME */
  unsigned quirks;
  const char *why;
} clg_quirk_rule;

/* The compilers given hints: a platform here starts without
 * CLG_QUIRK_NO_HINTS, every other with it. */
static const clg_quirk_rule clg_hints_allowed[] = {
    {"Portable Computing Language", 0,
     /* POCL 3.1 (Debian 12, LLVM 15), pthread and basic drivers: clang
      * lowers both builtins for the CPU, and EmbeddingBag's BLOCK and VEC
      * variants prefetch rows ahead in the index stream, which took a
      * [100000, 64] lookup of 2048 bags of 32 from 1.9 to 0.6 ms on Zen 3
      * (docs/performance.md, EmbeddingBag). */
     "clang for the host's CPU: the prefetch is measured to pay"},
};

/* Devices known to refuse hints, kept for the record (they are not on the
 * allowlist, so they build without hints), and other quirks. */
static const clg_quirk_rule clg_quirk_table[] = {
    {"Oclgrind", CLG_QUIRK_NO_HINTS | CLG_QUIRK_COPY_HOST,
     /* Oclgrind 21.10 (Debian 12). NO_HINTS: its compiler lowers
      * __builtin_prefetch to llvm.prefetch, which its interpreter cannot
      * run: clCreateKernel fails with CL_INVALID_KERNEL_NAME, "Undefined
      * external function: llvm.prefetch.p1i8". COPY_HOST: it says it
      * shares host memory, but its --uninitialized check takes the
      * contents of a CL_MEM_USE_HOST_PTR buffer for uninitialized (a
      * kernel branching on them is reported; the same bytes through
      * CL_MEM_COPY_HOST_PTR are not), which would hide real reports among
      * false ones. */
     "llvm.prefetch is not executable; wrapped host memory unchecked"},
    {"NVIDIA CUDA", CLG_QUIRK_NO_HINTS,
     /* NVIDIA's OpenCL (driver 580, CUDA 13.0, on an H200): its compiler
      * takes __builtin_prefetch's argument for a generic pointer and
      * refuses a global one ("passing 'const __global void *' to parameter
      * of type 'const void *' changes address space of pointer"), after a
      * failed build per program and "1 error generated." on the process's
      * stderr from the driver. */
     "__builtin_prefetch refuses global pointers"},
    {"rusticl", CLG_QUIRK_NO_HINTS | CLG_QUIRK_GPU_KERNELS | CLG_QUIRK_FMA_ZERO,
     /* Mesa 22.3.6's Rusticl (Debian 12, llvmpipe). NO_HINTS: OpenCL C
      * goes to SPIR-V through the LLVM-SPIRV translator, which prints
      * "InvalidFunctionCall: Unexpected llvm intrinsic: llvm.prefetch.p1i8"
      * and ends the process (exit status 8) inside clBuildProgram.
      * GPU_KERNELS: llvmpipe's shaders run a loop at most 65535 times per
      * work-item (gallivm's loop limit, LP_MAX_TGSI_LOOP_ITERATIONS) and
      * drop the rest without an error; a Gather made for a CPU copies
      * a whole plane or a block of slices per work-item (a [50000] gather
      * of 70000 indices stopped at output element 65535).
      * tests/rusticl/loop_limit.c reproduces it.
      * FMA_ZERO: its fma(a, b, c) with c = +0 and a * b = -0 gives -0
      * (IEEE 754: +0), so EmbeddingBag's per-sample weights gave a -0
      * where a bag's first entry was a zero times a negative weight
      * (float16, which it reduces exactly otherwise); a * b + c apart does
      * not. tests/rusticl/fma_zero.c reproduces it. */
     "its SPIR-V translator exits the process on llvm.prefetch; llvmpipe "
     "cuts loops at 65535 iterations; its fma(a, b, +0) keeps a -0 "
     "product"},
};

unsigned clg__quirks_of_platform(const char *name) {
  unsigned quirks = CLG_QUIRK_NO_HINTS;
  for (size_t i = 0; i < sizeof clg_hints_allowed / sizeof *clg_hints_allowed;
       ++i)
    if (strstr(name, clg_hints_allowed[i].platform))
      quirks = 0;
  for (size_t i = 0; i < sizeof clg_quirk_table / sizeof *clg_quirk_table; ++i)
    if (strstr(name, clg_quirk_table[i].platform))
      quirks |= clg_quirk_table[i].quirks;
  return quirks;
}

const char clg__hint_probe_source[] =
    "kernel void clg_hint_probe(global uint *p) {\n"
    "#if defined(CLG_HINTS) && defined(__clang__)\n"
    "  __builtin_prefetch((const global void *)(p + 16), 0, 3);\n"
    "  __builtin_nontemporal_store(1u, p);\n"
    "#else\n"
    "  p[0] = 1u;\n"
    "#endif\n"
    "}\n";

/* The disk-cache key of the device's quirks record. v2: v1 records were
 * written on any program's refusal with hints, without the probe (a POCL
 * 3.1 device of ours had been recorded without hints, by a refusal no
 * probe repeats, and its prefetching kernels ran without prefetching
 * since): they are not read. */
static bool clg_quirk_key(clg_context *ctx, clg_hash128 *key) {
  return clg__cache_key(ctx, "", "clgather device quirks v2", key);
}

cl_int clg__quirks_known(cl_device_id device, unsigned *out) {
  char name[256] = "";
  cl_platform_id plat = NULL;
  *out = 0;
  cl_int err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof plat, &plat,
                               NULL);
  if (err == CL_SUCCESS)
    err = clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof name - 1, name,
                            NULL);
  if (err != CL_SUCCESS)
    return err;
  *out = clg__quirks_of_platform(name);
  return CL_SUCCESS;
}

/* The disk cache's record, read on first use. */
static void clg_quirks_init(clg_context *ctx) {
  ctx->quirks_ready = true;
  clg_hash128 key;
  char rec[32];
  unsigned found = 0;
  if (clg_quirk_key(ctx, &key) &&
      clg__cache_get_record(ctx, &key, ".quirks", rec, sizeof rec) &&
      sscanf(rec, "quirks %u", &found) == 1)
    ctx->quirks |= found & CLG_QUIRK_NO_HINTS;
}

const char *clg__quirk_options(clg_context *ctx) {
  if (!ctx->quirks_ready)
    clg_quirks_init(ctx);
  return (ctx->quirks & CLG_QUIRK_NO_HINTS) ? "" : " -DCLG_HINTS=1";
}

bool clg__quirk_drop_hints(clg_context *ctx) {
  if (!ctx->quirks_ready)
    clg_quirks_init(ctx);
  if (ctx->quirks & CLG_QUIRK_NO_HINTS)
    return false;
  ctx->quirks |= CLG_QUIRK_NO_HINTS;
  clg_hash128 key;
  char rec[32];
  snprintf(rec, sizeof rec, "quirks %u\n", ctx->quirks);
  if (clg_quirk_key(ctx, &key))
    (void)clg__cache_put_record(ctx, &key, ".quirks", rec);
  return true;
}

const char *clg__quirk_fixes(const clg_context *ctx, const char *source) {
  return (ctx->quirks & CLG_QUIRK_FMA_ZERO) && strstr(source, "CLG_FMA")
             ? " -DCLG_FMA_ZERO=1"
             : "";
}

/* Every combination of the quirks' names, made once. */
#define CLG_QUIRK_BITS 4
static const char *const clg_quirk_bit_names[CLG_QUIRK_BITS] = {
    "no-hints", "copy-host", "gpu-kernels", "fma-zero"};
static char clg_quirk_name_table[1u << CLG_QUIRK_BITS][64];
static pthread_once_t clg_quirk_names_once = PTHREAD_ONCE_INIT;

static void clg_quirk_names_make(void) {
  for (unsigned q = 0; q < (1u << CLG_QUIRK_BITS); ++q) {
    char *at = clg_quirk_name_table[q];
    size_t left = sizeof clg_quirk_name_table[q];
    for (unsigned b = 0; b < CLG_QUIRK_BITS; ++b)
      if (q & (1u << b)) {
        int n = snprintf(at, left, "%s%s", at == clg_quirk_name_table[q]
                                               ? "" : ",",
                         clg_quirk_bit_names[b]);
        at += n;
        left -= (size_t)n;
      }
  }
}

const char *clg__quirk_names(unsigned quirks) {
  pthread_once(&clg_quirk_names_once, clg_quirk_names_make);
  return clg_quirk_name_table[quirks & ((1u << CLG_QUIRK_BITS) - 1u)];
}

cl_device_type clg__quirk_device_type(cl_device_type reported) {
  if (reported & CL_DEVICE_TYPE_GPU)
    return CL_DEVICE_TYPE_GPU;
  if (reported & CL_DEVICE_TYPE_CPU)
    return CL_DEVICE_TYPE_CPU;
  return reported;
}

cl_device_type clg__kernel_device(const clg_context *ctx) {
  cl_device_type type = (ctx->quirks & CLG_QUIRK_GPU_KERNELS)
                            ? CL_DEVICE_TYPE_GPU
                            : ctx->device_type;
#if defined(CLGATHER_TESTING)
  return clg__fi_kernel_device(type);
#else
  return type;
#endif
}
