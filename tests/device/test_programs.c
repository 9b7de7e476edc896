/* host/device/programs.c: programs are built once per context and (source,
 * options) and kernels are reused; a build failure returns the log. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "internal.h"
#include "support/testutil.h"
#include "support/tmpdir.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static clg_context *ctx;

/* No disk cache: these Tests count builds and fail them, which a program
 * an earlier run stored would skip (a second run of the suite in one build
 * folder failed so); the quirk Tests give their contexts caches of their
 * own. */
static void setup(void) {
  setenv("CLGATHER_CACHE_DIR", "off", 1);
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS,
               "no OpenCL device: %s", clg_last_error());
}
static void teardown(void) { clg_context_destroy(ctx); }

/* ctx's cl_context's settled reference count (testutil.h). */
static cl_uint context_refs(void) { return tu_context_refs(ctx->cl_ctx); }

TestSuite(programs, .init = setup, .fini = teardown);

static const char good_source[] =
    "kernel void twice(global int *p) { p[get_global_id(0)] *= 2 * K; }\n";
static const char bad_source[] =
    "kernel void broken(global int *p) { p[0] = undeclared_name; }\n";

Test(programs, cached_per_options) {
  clg_kernel_entry *a = NULL, *b = NULL, *c = NULL;
  cr_assert_eq(clg__get_kernel(ctx, good_source, "-DK=1", "twice", &a),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(ctx->builds, 1);
  cr_assert_eq(clg__get_kernel(ctx, good_source, "-DK=1", "twice", &b),
               CLG_SUCCESS);
  cr_expect_eq(a, b, "same key must return the cached kernel");
  cr_expect_eq(ctx->builds, 1, "a cached program must not be rebuilt");
  cr_assert_eq(clg__get_kernel(ctx, good_source, "-DK=2", "twice", &c),
               CLG_SUCCESS);
  cr_expect_neq(a, c);
  cr_expect_eq(ctx->builds, 2);
}

Test(programs, build_failure_returns_log) {
  clg_kernel_entry *k = NULL;
  cr_assert_eq(clg__get_kernel(ctx, bad_source, "", "broken", &k),
               CLG_ERROR_BUILD_FAILED);
  cr_expect_null(k);
  cr_expect(strstr(clg_last_error(), "undeclared_name") != NULL,
            "build log missing from: %s", clg_last_error());
  cr_expect(strstr(clg_last_error(), "CL_BUILD_PROGRAM_FAILURE") != NULL);
  cr_expect_eq(ctx->build_retries, CLG_BUILD_ATTEMPTS - 1,
               "a compile error is built %d times in all",
               CLG_BUILD_ATTEMPTS);
  /* The context still works afterwards. */
  cr_expect_eq(clg__get_kernel(ctx, good_source, "-DK=3", "twice", &k),
               CLG_SUCCESS, "%s", clg_last_error());
}

Test(programs, unknown_kernel_name) {
  clg_kernel_entry *k = NULL;
  cr_assert_eq(clg__get_kernel(ctx, good_source, "-DK=1", "nope", &k),
               CLG_ERROR_OPENCL);
  cr_expect(strstr(clg_last_error(), "CL_INVALID_KERNEL_NAME") != NULL, "%s",
            clg_last_error());
}

Test(programs, embedded_gather_source_builds_for_every_unit) {
  static const char *units[] = {"uchar", "ushort", "uint", "uint2", "uint4"};
  for (size_t i = 0; i < 5; ++i) {
    char opts[96];
    clg_kernel_entry *k = NULL;
    snprintf(opts, sizeof opts, "-DCLG_UNIT=%s -DCLG_INDEX=int", units[i]);
    cr_expect_eq(
        clg__get_kernel(ctx, clg_kernel_gather, opts, "clg_gather_small", &k),
        CLG_SUCCESS, "%s: %s", units[i], clg_last_error());
  }
}

Test(programs, non_compiler_build_failure_is_an_opencl_error) {
  clg_kernel_entry *k = NULL;
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, 1, CL_OUT_OF_RESOURCES);
  cr_assert_eq(clg__get_kernel(ctx, good_source, "-DK=4", "twice", &k),
               CLG_ERROR_OPENCL, "%s", clg_last_error());
  cr_expect(strstr(clg_last_error(),
                   "clBuildProgram failed: CL_OUT_OF_RESOURCES") != NULL,
            "%s", clg_last_error());
  clg_fault_reset();
  cr_expect_eq(clg__get_kernel(ctx, good_source, "-DK=4", "twice", &k),
               CLG_SUCCESS, "nothing may be cached after a failed build: %s",
               clg_last_error());
}

/* POCL's kernel cache race (pocl/pocl#1480) fails a build with
 * CL_BUILD_PROGRAM_FAILURE when another process builds the same program:
 * the build is tried again, CLG_BUILD_ATTEMPTS builds in all. */
Test(programs, build_failure_tried_again) {
  clg_kernel_entry *k = NULL;
  unsigned builds0 = ctx->builds;
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, CLG_BUILD_ATTEMPTS - 1,
                   CL_BUILD_PROGRAM_FAILURE);
  cr_assert_eq(clg__get_kernel(ctx, good_source, "-DK=5", "twice", &k),
               CLG_SUCCESS, "the last attempt's build was lost: %s",
               clg_last_error());
  cr_expect_eq(clg_fault_calls(CLG_FAULT_BUILD_PROGRAM), CLG_BUILD_ATTEMPTS);
  cr_expect_eq(ctx->build_retries, CLG_BUILD_ATTEMPTS - 1);
  cr_expect_eq(ctx->builds, builds0 + 1);

  /* Every attempt failing: the error, nothing cached, and no program left
   * holding the cl_context (each attempt's program is released). */
  cl_uint refs0 = context_refs();
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, CLG_BUILD_ATTEMPTS,
                   CL_BUILD_PROGRAM_FAILURE);
  k = NULL;
  cr_assert_eq(clg__get_kernel(ctx, good_source, "-DK=6", "twice", &k),
               CLG_ERROR_BUILD_FAILED, "%s", clg_last_error());
  cr_expect_null(k);
  cr_expect_eq(clg_fault_calls(CLG_FAULT_BUILD_PROGRAM), CLG_BUILD_ATTEMPTS);
  cr_expect(strstr(clg_last_error(), "CL_BUILD_PROGRAM_FAILURE") != NULL,
            "%s", clg_last_error());
  cr_expect_eq(tu_context_refs_after(ctx->cl_ctx, refs0), refs0,
               "a failed attempt's program still holds the cl_context");

  /* CL_INVALID_BUILD_OPTIONS is a verdict on the options: not retried. */
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, 1, CL_INVALID_BUILD_OPTIONS);
  cr_expect_eq(clg__get_kernel(ctx, good_source, "-DK=7", "twice", &k),
               CLG_ERROR_BUILD_FAILED, "%s", clg_last_error());
  cr_expect_eq(clg_fault_calls(CLG_FAULT_BUILD_PROGRAM), 1,
               "CL_INVALID_BUILD_OPTIONS was retried");
  clg_fault_reset();
  cr_expect_eq(clg__get_kernel(ctx, good_source, "-DK=6", "twice", &k),
               CLG_SUCCESS, "nothing may be cached after a failed build: %s",
               clg_last_error());
}

/* ------------------------------------------------- device quirks (hints) */

static const char *hint_opts = "-DCLG_UNIT=uint -DCLG_INDEX=int";

/* A context of its own, its disk cache in `dir` ("off" for none). */
static clg_context *quirk_context(const char *dir) {
  setenv("CLGATHER_CACHE_DIR", dir, 1);
  clg_context *c = NULL;
  cr_assert_eq(clg_context_create(ctx->cl_ctx, ctx->device, &c), CLG_SUCCESS,
               "%s", clg_last_error());
  return c;
}

/* A device whose runtime cannot create a kernel that uses a compiler hint
 * (Oclgrind: CL_INVALID_KERNEL_NAME, llvm.prefetch), the program's kernel
 * and the probe's alike: the program is built again without hints, the
 * kernel works, and the context (and, through the disk cache, a later
 * context on the device) builds without them. */
Test(programs, refused_hints_fall_back_and_are_remembered) {
  const char *dir = tu_tmpdir_make("quirks");
  clg_context *c = quirk_context(dir);
  clg_kernel_entry *k = NULL;
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_CREATE_KERNEL, 0, 2, CL_INVALID_KERNEL_NAME);
  cr_assert_eq(clg__get_kernel(c, clg_kernel_gather, hint_opts,
                               "clg_gather_small", &k),
               CLG_SUCCESS, "no fallback: %s", clg_last_error());
  /* With hints, the probe's, without hints. */
  cr_expect_eq(clg_fault_calls(CLG_FAULT_CREATE_KERNEL), 3);
  clg_fault_reset();
  cr_expect_eq(c->hint_fallbacks, 1);
  cr_expect(c->quirks & CLG_QUIRK_NO_HINTS);
  cr_expect_str_eq(clg__quirk_names(c->quirks), "no-hints");
  cr_expect_str_eq(clg_last_error(), "", "a message left after success");
  /* Later programs are built without hints at the first try. */
  unsigned builds = c->builds;
  cr_assert_eq(clg__get_kernel(c, clg_kernel_gather, hint_opts,
                               "clg_gather_item", &k),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(c->builds, builds, "the hint-less program was not reused");
  clg_context_destroy(c);

  /* A new context on the same device reads the choice from the disk
   * cache: no failure needed. */
  c = quirk_context(dir);
  cr_assert_eq(clg__get_kernel(c, clg_kernel_gather, hint_opts,
                               "clg_gather_small", &k),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect(c->quirks & CLG_QUIRK_NO_HINTS, "the quirk was not remembered");
  cr_expect_eq(c->hint_fallbacks, 0);
  clg_context_destroy(c);

  /* Without a disk cache a new context starts with hints again. */
  c = quirk_context("off");
  cr_assert_eq(clg__get_kernel(c, clg_kernel_gather, hint_opts,
                               "clg_gather_small", &k),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(c->quirks & CLG_QUIRK_NO_HINTS, 0u);
  clg_context_destroy(c);
  tu_tmpdir_remove();
}

/* One program refused with hints while the probe passes (a compile error
 * of that program's hinted code, or a failure that passed): that program
 * is built without hints, the device keeps them, for this context and, on
 * disk, for the next; the probe is not built again in the context. */
Test(programs, one_programs_refusal_keeps_the_device_hints) {
  const char *dir = tu_tmpdir_make("quirks1");
  clg_context *c = quirk_context(dir);
  clg_kernel_entry *k = NULL;
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_CREATE_KERNEL, 0, 1, CL_INVALID_KERNEL_NAME);
  unsigned builds = c->builds;
  cr_assert_eq(clg__get_kernel(c, clg_kernel_gather, hint_opts,
                               "clg_gather_small", &k),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(clg_fault_calls(CLG_FAULT_CREATE_KERNEL), 3);
  /* The hinted program, the probe, the program without hints. */
  cr_expect_eq(c->builds - builds, 3u);
  cr_expect_eq(c->hint_fallbacks, 1);
  cr_expect_eq(c->quirks & CLG_QUIRK_NO_HINTS, 0u, "the device lost hints");
  cr_expect_str_eq(clg_last_error(), "", "a message left after success");
  /* A second program's refusal: no probe again. */
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_CREATE_KERNEL, 0, 1, CL_INVALID_KERNEL_NAME);
  builds = c->builds;
  cr_assert_eq(clg__get_kernel(c, clg_kernel_gather,
                               "-DCLG_UNIT=uint2 -DCLG_INDEX=int",
                               "clg_gather_small", &k),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(clg_fault_calls(CLG_FAULT_CREATE_KERNEL), 2);
  cr_expect_eq(c->builds - builds, 2u);
  cr_expect_eq(c->quirks & CLG_QUIRK_NO_HINTS, 0u);
  clg_fault_reset();
  clg_context_destroy(c);
  /* Nothing was recorded: a new context on the device builds with hints. */
  c = quirk_context(dir);
  cr_assert_eq(clg__get_kernel(c, clg_kernel_gather, hint_opts,
                               "clg_gather_item", &k),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(c->quirks & CLG_QUIRK_NO_HINTS, 0u);
  cr_expect_eq(c->hint_fallbacks, 0);
  clg_context_destroy(c);
  tu_tmpdir_remove();
}

/* A compiler that refuses the hints (a verdict on every build with them)
 * gets the program without; a failure that is no verdict (here
 * CL_INVALID_KERNEL_DEFINITION) is returned as it is, hints kept; a
 * program failing with and without hints returns the error and keeps them,
 * after CLG_BUILD_MAX_CALLS builds. */
Test(programs, hint_fallback_only_for_refusals) {
  clg_context *c = quirk_context("off");
  clg_kernel_entry *k = NULL;
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_CREATE_KERNEL, 0, 1,
                   CL_INVALID_KERNEL_DEFINITION);
  cr_expect_eq(clg__get_kernel(c, clg_kernel_gather, hint_opts,
                               "clg_gather_small", &k),
               CLG_ERROR_OPENCL, "%s", clg_last_error());
  cr_expect_eq(c->quirks & CLG_QUIRK_NO_HINTS, 0u);
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, CLG_BUILD_MAX_CALLS,
                   CL_BUILD_PROGRAM_FAILURE);
  const char *opts2 = "-DCLG_UNIT=uint2 -DCLG_INDEX=int";
  cr_expect_eq(clg__get_kernel(c, clg_kernel_gather, opts2, "clg_gather_item",
                               &k),
               CLG_ERROR_BUILD_FAILED, "%s", clg_last_error());
  cr_expect_eq(clg_fault_calls(CLG_FAULT_BUILD_PROGRAM), CLG_BUILD_MAX_CALLS);
  cr_expect_eq(c->quirks & CLG_QUIRK_NO_HINTS, 0u,
               "a program that fails either way dropped the hints");
  clg_fault_reset();
  /* The program's builds with hints and the probe's. */
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, 2 * CLG_BUILD_ATTEMPTS,
                   CL_BUILD_PROGRAM_FAILURE);
  cr_expect_eq(clg__get_kernel(c, clg_kernel_gather, opts2, "clg_gather_item",
                               &k),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(clg_fault_calls(CLG_FAULT_BUILD_PROGRAM),
               2 * CLG_BUILD_ATTEMPTS + 1);
  cr_expect(c->quirks & CLG_QUIRK_NO_HINTS);
  cr_expect_eq(c->hint_fallbacks, 1);
  clg_fault_reset();
  clg_context_destroy(c);
}

/* A device type with several bits is taken for one: GPU first (Oclgrind
 * reports all four bits), then CPU. */
Test(programs, one_device_type_for_plans) {
  cr_expect_eq(clg__quirk_device_type(CL_DEVICE_TYPE_DEFAULT |
                                      CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                      CL_DEVICE_TYPE_ACCELERATOR),
               CL_DEVICE_TYPE_GPU);
  cr_expect_eq(clg__quirk_device_type(CL_DEVICE_TYPE_DEFAULT |
                                      CL_DEVICE_TYPE_CPU),
               CL_DEVICE_TYPE_CPU);
  cr_expect_eq(clg__quirk_device_type(CL_DEVICE_TYPE_ACCELERATOR),
               CL_DEVICE_TYPE_ACCELERATOR);
  cr_expect_eq(ctx->device_type, clg__quirk_device_type(ctx->device_type),
               "the context keeps the reported bits");
  cr_expect_str_eq(clg__quirk_names(CLG_QUIRK_NO_HINTS | CLG_QUIRK_COPY_HOST),
                   "no-hints,copy-host");
  cr_expect_str_eq(clg__quirk_names(0), "");
  cr_expect_str_eq(clg__quirk_names(CLG_QUIRK_NO_HINTS | CLG_QUIRK_GPU_KERNELS |
                                    CLG_QUIRK_FMA_ZERO),
                   "no-hints,gpu-kernels,fma-zero");
}

/* Compiler hints go only to the compilers on quirks.c's allowlist (POCL's
 * clang); any other platform, known or not, builds without them: one
 * compiler (Rusticl's SPIR-V translator) ends the process on a hint
 * instead of failing the build, where no fallback can run. */
Test(programs, hints_only_for_allowed_compilers) {
  cr_expect_eq(clg__quirks_of_platform("Portable Computing Language"), 0u);
  cr_expect_eq(clg__quirks_of_platform("rusticl"),
               CLG_QUIRK_NO_HINTS | CLG_QUIRK_GPU_KERNELS | CLG_QUIRK_FMA_ZERO);
  cr_expect_eq(clg__quirks_of_platform("Oclgrind Simulator"),
               CLG_QUIRK_NO_HINTS | CLG_QUIRK_COPY_HOST);
  cr_expect_eq(clg__quirks_of_platform("NVIDIA CUDA"), CLG_QUIRK_NO_HINTS);
  cr_expect_eq(clg__quirks_of_platform("Clover"), CLG_QUIRK_NO_HINTS);
  cr_expect_eq(clg__quirks_of_platform("Intel(R) OpenCL Graphics"),
               CLG_QUIRK_NO_HINTS);
  cr_expect_eq(clg__quirks_of_platform(""), CLG_QUIRK_NO_HINTS);
}
