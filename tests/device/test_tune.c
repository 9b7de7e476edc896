/* host/device/tune.c and Gather's variants in host/ops/gather_geometry.c:
 * candidates, forced variants, choices measured on the device (with CPU and
 * with GPU kernels) and kept in the context and the disk cache, the size
 * threshold, a failing trial, and the NDRange of each variant covering
 * every slice. Results are compared byte for byte with the plain-C
 * reference whichever variant ran. Each test runs in its own process
 * (Criterion), so the environment set here does not leak. */
#define _XOPEN_SOURCE 700

#include "internal.h"
#include "support/testutil.h"
#include "support/tmpdir.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *g_cache; /* the cache directory of the test */

static void setup(void) {
  g_cache = tu_tmpdir_cache("tune");
  unsetenv("CLGATHER_VARIANT");
  unsetenv("CLGATHER_TUNE");
}

TestSuite(tune, .init = setup, .fini = tu_tmpdir_remove);

/* Tuning records in the cache directory (0 while it does not exist). */
static int count_tune_files(void) {
  int n = tu_count_files(g_cache, ".tune", NULL, 0);
  return n < 0 ? 0 : n;
}

/* Gather f32 [rows, cols] on axis `axis` with `n` int64 indices on ctx,
 * host tensors; checks the output byte for byte against the reference and
 * returns the variant the call used (and how). */
static const char *gather_on(clg_context *ctx, int64_t rows, int64_t cols,
                             int64_t n, int64_t axis, clg_choice *how) {
  int64_t dshape[2] = {rows, cols}, ishape[1] = {n}, oshape[2];
  int32_t orank = 0;
  cr_assert_eq(
      clg_gather_output_shape(2, dshape, 1, ishape, axis, &orank, oshape),
      CLG_SUCCESS);
  size_t dcount = (size_t)(rows * cols),
         ocount = (size_t)(oshape[0] * oshape[1]);
  /* 64-byte aligned: the shape class includes the copy unit the pointers'
   * alignment allows, so two calls see the same class. */
  float *data = aligned_alloc(64, (dcount * sizeof *data + 63) / 64 * 64);
  float *out = aligned_alloc(64, (ocount * sizeof *out + 63) / 64 * 64);
  float *want = malloc(ocount * sizeof *want);
  int64_t *idx = malloc((size_t)n * sizeof *idx);
  cr_assert(data && out && want && idx);
  tu_rng rng = tu_rng_make(0x7e57u + (uint64_t)n);
  tu_rng_bytes(&rng, data, dcount * sizeof *data);
  tu_fill_indices(&rng, idx, CLG_DTYPE_INT64, n, dshape[axis], TU_IDX_ANY);
  memset(out, TU_SENTINEL, ocount * sizeof *out);
  cr_assert_eq(
      ref_gather(data, 4, 2, dshape, idx, REF_INDEX_I64, 1, ishape, axis, want),
      0);
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, dshape, data);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, orank, oshape, out);
  cr_assert_eq(clg_gather(ctx, &d, &x, axis, &o, NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  ptrdiff_t diff = tu_first_diff(out, want, ocount * sizeof *out);
  const char *v = clg_context_last_variant(ctx, how);
  cr_assert_eq(diff, -1, "variant %s: output differs at byte %td", v ? v : "?",
               diff);
  free(data);
  free(out);
  free(want);
  free(idx);
  return v;
}

static clg_context *new_context(void) {
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS,
               "no OpenCL device: %s", clg_last_error());
  return ctx;
}

/* gather_on() on a new context, destroyed after. */
static const char *gather_once(int64_t rows, int64_t cols, int64_t n,
                               int64_t axis, clg_choice *how) {
  clg_context *ctx = new_context();
  const char *v = gather_on(ctx, rows, cols, n, axis, how);
  clg_context_destroy(ctx);
  return v;
}

/* Large enough to be timed (>= CLG_TUNE_MIN_BYTES of output). */
#define BIG_ROWS 4096
#define BIG_COLS 64
#define BIG_N 8192

Test(tune, no_launch_no_variant) {
  clg_choice how = CLG_CHOICE_MEASURED;
  cr_expect_null(clg_context_last_variant(NULL, &how));
  cr_expect_eq(how, CLG_CHOICE_NONE);
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
  cr_expect_null(clg_context_last_variant(ctx, &how));
  cr_expect_eq(how, CLG_CHOICE_NONE);
  cr_expect_null(clg_context_last_variant(ctx, NULL));
  clg_context_destroy(ctx);
}

Test(tune, every_forced_variant_is_reported_and_exact) {
  static const char *const names[] = {"item",  "item_pf", "item_nt", "plane",
                                      "block", "rows",    "small"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    cr_assert_eq(setenv("CLGATHER_VARIANT", names[i], 1), 0);
    clg_choice how = CLG_CHOICE_NONE;
    /* a big one (would be timed) and a small one; axis 0 and 1 */
    const char *v = gather_once(BIG_ROWS, BIG_COLS, BIG_N, 0, &how);
    cr_expect_str_eq(v, names[i]);
    cr_expect_eq(how, CLG_CHOICE_FORCED);
    v = gather_once(7, 3, 5, 1, &how);
    cr_expect_str_eq(v, names[i]);
    cr_expect_eq(how, CLG_CHOICE_FORCED);
  }
  cr_expect_eq(count_tune_files(), 0, "a forced variant is not a measurement");
}

Test(tune, unknown_forced_name_is_ignored) {
  cr_assert_eq(setenv("CLGATHER_VARIANT", "warp-speed", 1), 0);
  clg_choice how = CLG_CHOICE_NONE;
  const char *v = gather_once(7, 3, 5, 0, &how);
  cr_expect_not_null(v);
  cr_expect_eq(how, CLG_CHOICE_DEFAULT);
}

Test(tune, small_outputs_take_the_first_candidate_untimed) {
  clg_choice how = CLG_CHOICE_NONE;
  const char *v = gather_once(100, 64, 10, 0, &how);
  cr_expect_not_null(v);
  cr_expect_eq(how, CLG_CHOICE_DEFAULT);
  cr_expect_eq(count_tune_files(), 0);
}

/* Whether `v` is among the variants the plans of `plan_device` ("cpu",
 * "gpu") time for the BIG shape (f32 [4096, 64], axis 0, 8192 indices:
 * 256-byte slices, one outer row; host/ops/gather_geometry.c,
 * clg__gather_candidates). A CPU has ITEM and ITEM_PF, and ITEM_NT where
 * the 2 MiB output is over a quarter of its cache; not BLOCK (slices under
 * a cache line) nor PLANE (several outer rows), nor the GPU kernels. A GPU
 * has its coalesced plan (ROWS or SMALL, by the slice's length in copy
 * units) and ITEM, whose NDRange fits the 65535 limit of dims 1 and 2
 * here: two candidates, so it times them as a CPU does. */
static bool is_candidate(const char *plan_device, const char *v) {
  static const char *const cpu[] = {"item", "item_pf", "item_nt"};
  static const char *const gpu[] = {"rows", "small", "item"};
  bool on_cpu = strcmp(plan_device, "cpu") == 0;
  const char *const *names = on_cpu ? cpu : gpu;
  size_t count =
      on_cpu ? sizeof cpu / sizeof cpu[0] : sizeof gpu / sizeof gpu[0];
  for (size_t i = 0; v && i < count; ++i)
    if (strcmp(v, names[i]) == 0)
      return true;
  return false;
}

/* gather_on() of the BIG class; *launches: the kernels it enqueued (a
 * host call stages no kernel of its own besides the gather's). */
static const char *gather_big_counted(clg_context *ctx, clg_choice *how,
                                      unsigned long *launches) {
  clg_fault_reset();
  const char *v = gather_on(ctx, BIG_ROWS, BIG_COLS, BIG_N, 0, how);
  *launches = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
  clg_fault_reset();
  return v;
}

/* CLG_TUNE_SECOND_CALL (the default): the first call of the shape class
 * launches its first candidate alone, untimed, and keeps nothing on disk;
 * the second times the candidates (one untimed and at least one timed run
 * of each, then its own launch) and keeps the fastest in the context and
 * on disk; the third launches it alone; a new context (a new process
 * would be the same) reads it back at its first call. The plans of either
 * device type, whatever the device (test builds read
 * CLGATHER_TEST_KERNEL_DEVICE at each call). */
static void measured_at_the_second_call(const char *plan_device) {
  cr_assert_eq(setenv("CLGATHER_TEST_KERNEL_DEVICE", plan_device, 1), 0);
  clg_context *ctx = new_context();
  clg_choice how = CLG_CHOICE_NONE;
  unsigned long launches = 0;
  const char *v = gather_big_counted(ctx, &how, &launches);
  cr_expect_eq(how, CLG_CHOICE_DEFAULT, "%s plans, first call: %d",
               plan_device, how);
  cr_expect(is_candidate(plan_device, v), "%s plans ran %s", plan_device,
            v ? v : "nothing");
  cr_expect_eq(launches, 1, "%s plans: the first call launched %lu kernels",
               plan_device, launches);
  cr_expect_eq(count_tune_files(), 0, "a default is not a measurement");
  const char *first = gather_big_counted(ctx, &how, &launches);
  cr_expect_eq(how, CLG_CHOICE_MEASURED, "%s plans, second call: %d",
               plan_device, how);
  cr_expect(is_candidate(plan_device, first), "%s plans measured %s",
            plan_device, first ? first : "nothing");
  cr_expect_geq(launches, 5, "%s plans: the second call launched %lu kernels",
                plan_device, launches);
  cr_expect_eq(count_tune_files(), 1, "the choice is kept on disk");
  v = gather_big_counted(ctx, &how, &launches);
  cr_expect_eq(how, CLG_CHOICE_MEASURED, "%s plans, third call: %d",
               plan_device, how);
  cr_expect_str_eq(v, first);
  cr_expect_eq(launches, 1, "%s plans: the third call launched %lu kernels",
               plan_device, launches);
  clg_context_destroy(ctx);
  const char *again = gather_once(BIG_ROWS, BIG_COLS, BIG_N, 0, &how);
  cr_expect_eq(how, CLG_CHOICE_MEASURED, "%s plans: %d", plan_device, how);
  cr_expect_str_eq(again, first);
  cr_expect_eq(count_tune_files(), 1);
}

Test(tune, measured_at_the_second_call_cpu_plans) {
  measured_at_the_second_call("cpu");
}

Test(tune, measured_at_the_second_call_gpu_kernels) {
  measured_at_the_second_call("gpu");
}

/* The BIG class all in cl_mem, synchronous: gated on the validation
 * kernel (run/strategy.c, GATED_READ), so that its variants are timed
 * only once the verdict has passed (run/call.c, clg_retime). `bad`: one
 * index out of range. *launches: the kernels enqueued; the output is
 * compared with the reference (a good call) or with its old bytes. */
static const char *gather_big_gated(clg_context *ctx, bool bad,
                                    clg_choice *how, unsigned long *launches) {
  int64_t ds[2] = {BIG_ROWS, BIG_COLS}, is[1] = {BIG_N},
          os[2] = {BIG_N, BIG_COLS};
  size_t dcount = (size_t)BIG_ROWS * BIG_COLS, ocount = (size_t)BIG_N * BIG_COLS;
  float *data = malloc(dcount * sizeof *data);
  float *want = malloc(ocount * sizeof *want), *got = malloc(ocount * 4);
  int64_t *idx = malloc((size_t)BIG_N * sizeof *idx);
  cr_assert(data && want && got && idx);
  tu_rng rng = tu_rng_make(0x6a7e);
  tu_rng_bytes(&rng, data, dcount * sizeof *data);
  tu_fill_indices(&rng, idx, CLG_DTYPE_INT64, BIG_N, BIG_ROWS, TU_IDX_ANY);
  cr_assert_eq(ref_gather(data, 4, 2, ds, idx, REF_INDEX_I64, 1, is, 0, want),
               0);
  if (bad)
    idx[BIG_N / 2] = BIG_ROWS;
  memset(got, TU_SENTINEL, ocount * sizeof *got);
  cl_mem dm = tu_buffer_create(dcount * sizeof *data, data);
  cl_mem xm = tu_buffer_create((size_t)BIG_N * sizeof *idx, idx);
  cl_mem om = tu_buffer_create(ocount * sizeof *got, got);
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, dm, 0);
  clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, xm, 0);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, om, 0);
  clg_fault_reset();
  clg_status st = clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, NULL);
  *launches = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
  clg_fault_reset();
  cr_assert_eq(st, bad ? CLG_ERROR_INDEX_OUT_OF_BOUNDS : CLG_SUCCESS, "%s",
               clg_last_error());
  tu_cl_check(clFinish(clg_context_queue(ctx)), "clFinish");
  unsigned char *old = malloc(ocount * 4);
  cr_assert(old);
  memset(old, TU_SENTINEL, ocount * 4);
  tu_buffer_read(om, 0, ocount * sizeof *got, got);
  ptrdiff_t diff = tu_first_diff(got, bad ? (void *)old : (void *)want,
                                 ocount * sizeof *got);
  cr_expect_eq(diff, -1, "%s (byte %td)",
               bad ? "the bad call wrote the output"
                   : "the output differs from the reference",
               diff);
  const char *v = clg_context_last_variant(ctx, how);
  clReleaseMemObject(dm);
  clReleaseMemObject(xm);
  clReleaseMemObject(om);
  free(data);
  free(want);
  free(got);
  free(idx);
  free(old);
  return v;
}

/* A gated synchronous call cannot time its variants before its verdict:
 * under CLG_TUNE_SECOND_CALL its class's first call launches the default
 * (the validation kernel and the gated gather); the second, once its
 * verdict has passed, times the candidates on its own tensors (writing the
 * same output) and keeps the fastest on disk; the third launches it,
 * gated, with no trial. A call whose verdict fails times nothing. */
Test(tune, gated_calls_time_after_their_verdict) {
  cr_assert_eq(setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1), 0);
  clg_context *ctx = NULL; /* on the test's cl_context: its buffers */
  cr_assert_eq(clg_context_create(tu_cl_context(), tu_device(), &ctx),
               CLG_SUCCESS, "%s", clg_last_error());
  clg_choice how = CLG_CHOICE_NONE;
  unsigned long launches = 0;
  gather_big_gated(ctx, false, &how, &launches);
  cr_expect_eq(how, CLG_CHOICE_DEFAULT, "first call: %d", how);
  cr_expect_eq(launches, 2, "the first call launched %lu kernels", launches);
  gather_big_gated(ctx, true, &how, &launches);
  cr_expect_eq(launches, 2, "a bad call launched %lu kernels", launches);
  cr_expect_eq(count_tune_files(), 0, "a bad call timed its variants");
  const char *first = gather_big_gated(ctx, false, &how, &launches);
  cr_expect_eq(how, CLG_CHOICE_MEASURED, "second good call: %d", how);
  cr_expect_geq(launches, 2 + 4, "the second good call launched %lu kernels",
                launches);
  cr_expect_eq(count_tune_files(), 1, "the choice is kept on disk");
  const char *v = gather_big_gated(ctx, false, &how, &launches);
  cr_expect_eq(how, CLG_CHOICE_MEASURED, "third call: %d", how);
  cr_expect_str_eq(v, first);
  cr_expect_eq(launches, 2, "the third call launched %lu kernels", launches);
  clg_context_destroy(ctx);
}

/* CLG_TUNE_FIRST_CALL (CLGATHER_TUNE=first, or 2 as the option): the
 * class's first call measures and keeps its choice on disk. */
Test(tune, first_call_mode_measures_at_once) {
  static const char *const spellings[] = {"first", "2"};
  for (size_t i = 0; i < 2; ++i) {
    cr_assert_eq(setenv("CLGATHER_TUNE", spellings[i], 1), 0);
    clg_context *ctx = new_context();
    cr_assert_eq(clg_context_set_option(ctx, CLG_OPTION_DISK_CACHE, 0),
                 CLG_SUCCESS);
    clg_choice how = CLG_CHOICE_NONE;
    unsigned long launches = 0;
    const char *v = gather_big_counted(ctx, &how, &launches);
    cr_expect_eq(how, CLG_CHOICE_MEASURED, "CLGATHER_TUNE=%s: %d",
                 spellings[i], how);
    cr_expect(is_candidate("cpu", v) || is_candidate("gpu", v),
              "measured %s", v ? v : "nothing");
    cr_expect_geq(launches, 5, "CLGATHER_TUNE=%s: %lu launches", spellings[i],
                  launches);
    clg_context_destroy(ctx);
  }
  cr_assert_eq(unsetenv("CLGATHER_TUNE"), 0);
  clg_context *ctx = new_context();
  cr_assert_eq(
      clg_context_set_option(ctx, CLG_OPTION_TUNE, CLG_TUNE_FIRST_CALL),
      CLG_SUCCESS);
  clg_choice how = CLG_CHOICE_NONE;
  (void)gather_on(ctx, BIG_ROWS, BIG_COLS, BIG_N, 0, &how);
  cr_expect_eq(how, CLG_CHOICE_MEASURED, "the option: %d", how);
  cr_expect_eq(count_tune_files(), 1, "the choice is kept on disk");
  clg_context_destroy(ctx);
}

Test(tune, off_takes_the_first_candidate) {
  cr_assert_eq(setenv("CLGATHER_TUNE", "off", 1), 0);
  clg_choice how = CLG_CHOICE_NONE;
  const char *v = gather_once(BIG_ROWS, BIG_COLS, BIG_N, 0, &how);
  cr_expect_not_null(v);
  cr_expect_eq(how, CLG_CHOICE_DEFAULT);
  cr_expect_eq(count_tune_files(), 0);
}

/* Without a disk cache each context measures for itself, on the plans of
 * either device type (at the first call: CLG_TUNE_FIRST_CALL). */
Test(tune, cache_off_still_measures_per_context) {
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", "off", 1), 0);
  cr_assert_eq(setenv("CLGATHER_TUNE", "first", 1), 0);
  static const char *const plan_devices[] = {"cpu", "gpu"};
  for (size_t i = 0; i < 2; ++i) {
    cr_assert_eq(setenv("CLGATHER_TEST_KERNEL_DEVICE", plan_devices[i], 1), 0);
    for (int k = 0; k < 2; ++k) {
      clg_choice how = CLG_CHOICE_NONE;
      const char *v = gather_once(BIG_ROWS, BIG_COLS, BIG_N, 0, &how);
      cr_expect_eq(how, CLG_CHOICE_MEASURED, "%s plans, context %d: %d",
                   plan_devices[i], k, how);
      cr_expect(is_candidate(plan_devices[i], v), "%s plans measured %s",
                plan_devices[i], v ? v : "nothing");
    }
  }
  cr_expect_eq(count_tune_files(), 0);
}

/* A trial that cannot be enqueued (injected fault): no choice is kept, the
 * call runs the first candidate and succeeds. */
Test(tune, failing_trial_falls_back_to_the_first_candidate) {
  cr_assert_eq(setenv("CLGATHER_TUNE", "first", 1), 0);
  clg_fault_reset();
  /* The host call stages no kernel before the trials: the first
   * clEnqueueNDRangeKernel is the first trial's. */
  clg_fault_inject(CLG_FAULT_ENQUEUE_KERNEL, 0, 1, CL_OUT_OF_RESOURCES);
  clg_choice how = CLG_CHOICE_NONE;
  const char *v = gather_once(BIG_ROWS, BIG_COLS, BIG_N, 0, &how);
  clg_fault_reset();
  cr_expect_not_null(v);
  cr_expect_eq(how, CLG_CHOICE_DEFAULT);
  cr_expect_eq(count_tune_files(), 0);
}

/* CLG_OPTION_TUNE 0 on one context while another of the same process, on
 * the same disk cache, measures (at its first call: CLG_TUNE_FIRST_CALL):
 * the first times nothing (the first candidate, no record), the second
 * measures and keeps its choice; the first then still takes its default
 * (kept in memory), and the second's choice is unchanged. */
Test(tune, off_per_context_while_another_measures) {
  clg_context *quiet = new_context(), *tuned = new_context();
  cr_assert_eq(clg_context_set_option(quiet, CLG_OPTION_TUNE, 0), CLG_SUCCESS);
  cr_assert_eq(
      clg_context_set_option(tuned, CLG_OPTION_TUNE, CLG_TUNE_FIRST_CALL),
      CLG_SUCCESS);
  clg_choice how = CLG_CHOICE_NONE;
  const char *v = gather_on(quiet, BIG_ROWS, BIG_COLS, BIG_N, 0, &how);
  cr_expect_not_null(v);
  cr_expect_eq(how, CLG_CHOICE_DEFAULT, "tune off measured: %d", how);
  cr_expect_eq(count_tune_files(), 0, "tune off wrote a record");
  const char *first = v;
  v = gather_on(tuned, BIG_ROWS, BIG_COLS, BIG_N, 0, &how);
  cr_expect_eq(how, CLG_CHOICE_MEASURED, "the other context: %d", how);
  cr_expect(is_candidate("cpu", v) || is_candidate("gpu", v), "measured %s",
            v ? v : "nothing");
  cr_expect_eq(count_tune_files(), 1);
  v = gather_on(quiet, BIG_ROWS, BIG_COLS, BIG_N, 0, &how);
  cr_expect_eq(how, CLG_CHOICE_DEFAULT, "tune off, again: %d", how);
  cr_expect_str_eq(v, first);
  /* Back on: the context measures at its next call (its default was not a
   * measurement, and the calls made while it was off were the class's
   * first). */
  cr_assert_eq(clg_context_set_option(quiet, CLG_OPTION_TUNE, 1), CLG_SUCCESS);
  cr_assert_eq(clg_context_set_option(quiet, CLG_OPTION_DISK_CACHE, 0),
               CLG_SUCCESS);
  v = gather_on(quiet, BIG_ROWS, BIG_COLS, BIG_N, 0, &how);
  cr_expect_eq(how, CLG_CHOICE_MEASURED, "tune on again: %d", how);
  clg_context_destroy(quiet);
  clg_context_destroy(tuned);
}

/* The launches of a first call of a big shape class on a context of its
 * own (no disk cache, so nothing is read back; CLG_TUNE_FIRST_CALL): one
 * untimed and `rounds` timed runs of each of the c candidates, then the
 * call's own launch. */
static unsigned long launches_with_budget(int64_t budget_us, clg_choice *how) {
  clg_context *ctx = new_context();
  cr_assert_eq(clg_context_set_option(ctx, CLG_OPTION_DISK_CACHE, 0),
               CLG_SUCCESS);
  cr_assert_eq(
      clg_context_set_option(ctx, CLG_OPTION_TUNE, CLG_TUNE_FIRST_CALL),
      CLG_SUCCESS);
  cr_assert_eq(clg_context_set_option(ctx, CLG_OPTION_TUNE_BUDGET_US,
                                      budget_us),
               CLG_SUCCESS);
  clg_fault_reset();
  (void)gather_on(ctx, BIG_ROWS, BIG_COLS, BIG_N, 0, how);
  unsigned long n = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
  clg_fault_reset();
  clg_context_destroy(ctx);
  return n;
}

/* CLG_OPTION_TUNE_BUDGET_US: 0 runs a single timed round (c untimed + c
 * timed + the call = 2c + 1 launches), a budget no five rounds reach runs
 * all five (6c + 1); both measure. */
Test(tune, budget_bounds_the_rounds) {
  clg_choice how = CLG_CHOICE_NONE;
  unsigned long one = launches_with_budget(0, &how);
  cr_expect_eq(how, CLG_CHOICE_MEASURED, "budget 0: %d", how);
  unsigned long all = launches_with_budget(INT64_C(600000000), &how);
  cr_expect_eq(how, CLG_CHOICE_MEASURED, "budget 600 s: %d", how);
  cr_assert_geq(one, 5, "%lu launches: fewer than two candidates?", one);
  cr_expect_eq((one - 1) % 2, 0, "budget 0: %lu launches", one);
  unsigned long c = (one - 1) / 2;
  cr_expect_eq(all, 6 * c + 1, "budget 600 s: %lu launches for %lu "
               "candidates (budget 0: %lu)", all, c, one);
  cr_expect_eq(count_tune_files(), 0, "the disk cache is off");
}
