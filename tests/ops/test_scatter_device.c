/*
 * The scatters' index pass on the device (host/ops/scatter_device.c,
 * kernels/scatter_index.cl): cl_mem indices and a cl_mem output, in
 * clg_scatter() (forced with CLGATHER_TEST_DEVICE_VALIDATION=always) and in
 * clg_scatter_async().
 *
 *  - results byte for byte against the plain-C sequential reference, for
 *    ScatterElements and ScatterND, every reduction, duplicates = last,
 *    int32 and int64 indices, in place and not, and sizes that make the
 *    radix sort take one to three passes over many chunks (a GPU's plan;
 *    a CPU's partitions the pairs in one pass, by 8 bits of the target,
 *    and applies each bucket's in entry order);
 *  - every out-of-bounds index and every repeat gives the host path's
 *    status and message (the same call with host indices), synchronously
 *    and through the outcome, with the output byte for byte unchanged;
 *  - the validation kernel ran (the context's counter; a synchronous
 *    call whose row claim checks the bounds runs it only to name an
 *    offender), and the
 *    asynchronous call waits for nothing: it returns while its wait list is
 *    pending.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_scatter.h"
#include "support/testutil.h"

#include "internal.h" /* clg_context::device_validations */

typedef struct sd_case {
  clg_op op;
  int64_t axis;
  clg_scatter_params sp;
  clg_dtype idt;
  int32_t r, q;
  int64_t ds[4], is[4];
  bool in_place;
  size_t offset; /* bytes into every buffer, plus 16 */
} sd_case;

static int32_t sd_updates_shape(const sd_case *c, int64_t *us) {
  if (c->op != CLG_OP_SCATTER_ND) {
    memcpy(us, c->is, sizeof c->is);
    return c->q;
  }
  int32_t n = 0, k = (int32_t)c->is[c->q - 1];
  for (int32_t i = 0; i < c->q - 1; ++i)
    us[n++] = c->is[i];
  for (int32_t i = k; i < c->r; ++i)
    us[n++] = c->ds[i];
  return n;
}

/* Index positions and the bound each one has. */
static int64_t sd_bound(const sd_case *c, int64_t pos) {
  if (c->op == CLG_OP_SCATTER_ND)
    return c->ds[pos % c->is[c->q - 1]];
  int64_t a = c->axis < 0 ? c->axis + c->r : c->axis;
  return c->ds[a];
}

typedef struct sd_run {
  clg_status st;
  char msg[1024];
  float *out; /* the output's bytes after the call */
  bool bare;  /* a synchronous call whose plan checked the values itself */
} sd_run;

static bool sd_cpu_plan(void) {
  return (clg__plan_device(tu_ctx()) & CL_DEVICE_TYPE_CPU) != 0;
}

/* Does the device plan of this call check the index values itself
 * (ops/op.h: checks_values), so that a synchronous call runs no validation
 * kernel (but to name an offender)? */
static bool sd_plan_checks(clg_op op, int64_t axis,
                           const clg_scatter_params *sp, clg_context *ctx,
                           const clg_tensor *data, const clg_tensor *x) {
  const clg_op_impl *impl = clg__op_impl(op);
  clg_params norm = {op, axis < 0 ? axis + data->rank : axis, 0,
                     CLG_MODE_RAISE};
  void *state = NULL;
  cr_assert_eq(impl->device_plan(ctx, &norm, sp, data, x, &state),
               CLG_SUCCESS);
  bool checks = state && impl->checks_values && impl->checks_values(state);
  if (state)
    impl->release_state(state);
  return checks;
}

/* The case on float data: host indices (async: false, host path) or
 * cl_mem everything; fills *res. */
static void sd_call(const sd_case *c, const float *data, const void *idx,
                    const float *upd, bool device, bool async, sd_run *res) {
  int64_t us[8];
  int32_t ur = sd_updates_shape(c, us);
  size_t dn = (size_t)tu_numel(c->r, c->ds);
  tu_storage buf = {CLG_STORAGE_BUFFER, 16 + c->offset, false, false};
  tu_storage host = {CLG_STORAGE_HOST, 0, false, false};
  tu_tensor td, tx, tu, to;
  tu_tensor_init(&td, CLG_DTYPE_FLOAT, c->r, c->ds, buf, data);
  tu_tensor_init(&tx, c->idt, c->q, c->is, device ? buf : host, idx);
  tu_tensor_init(&tu, CLG_DTYPE_FLOAT, ur, us, buf, upd);
  if (!c->in_place)
    tu_tensor_init(&to, CLG_DTYPE_FLOAT, c->r, c->ds, buf, data);
  const tu_tensor *out = c->in_place ? &td : &to;
  clg_params p = {c->op, c->axis, 0, CLG_MODE_RAISE};
  clg_context *ctx = tu_ctx();
  unsigned long v0 = atomic_load(&ctx->device_validations);
  cl_event ev = NULL;
  if (async) {
    clg_outcome *o = NULL;
    clg_status st =
        clg_scatter_async(ctx, &p, &c->sp, &td.desc, &tx.desc, &tu.desc,
                          &out->desc, NULL, 0, NULL, &ev, &o);
    cr_assert_eq(st, CLG_SUCCESS, "the asynchronous call: %s",
                 clg_last_error());
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    ev = NULL;
    res->st = clg_outcome_wait(o);
    clg_outcome_release(o);
  } else
    res->st = clg_scatter(ctx, &p, &c->sp, &td.desc, &tx.desc, &tu.desc,
                          &out->desc, NULL, 0, NULL, &ev);
  snprintf(res->msg, sizeof res->msg, "%s",
           res->st == CLG_SUCCESS ? "" : clg_last_error());
  if (ev) {
    cr_expect_eq(res->st, CLG_SUCCESS, "an event after an error");
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  res->bare = device && !async &&
              sd_plan_checks(c->op, c->axis, &c->sp, ctx, &td.desc, &tx.desc);
  unsigned long ran = atomic_load(&ctx->device_validations) - v0;
  unsigned long want = !device     ? 0
                       : !res->bare ? 1
                                    : res->st == CLG_ERROR_INDEX_OUT_OF_BOUNDS;
  cr_expect_eq(ran, want, "validation kernels run: %lu", ran);
  res->out = malloc(dn * sizeof(float) + 1);
  cr_assert(res->out);
  tu_tensor_read(out, res->out);
  cr_expect(tu_tensor_guards_ok(out), "bytes outside the output written");
  tu_tensor_free(&td);
  tu_tensor_free(&tx);
  tu_tensor_free(&tu);
  if (!c->in_place)
    tu_tensor_free(&to);
}

/* Inputs of a case: data and updates with fractions (so the order of a
 * reduction's steps shows in its rounding), valid indices, negative half
 * the time, with repeats. */
static void sd_inputs(const sd_case *c, tu_rng *rng, float **data, void **idx,
                      float **upd) {
  int64_t us[8];
  int32_t ur = sd_updates_shape(c, us);
  size_t dn = (size_t)tu_numel(c->r, c->ds), xn = (size_t)tu_numel(c->q, c->is),
         un = (size_t)tu_numel(ur, us);
  *data = malloc(dn * sizeof **data + 1);
  *upd = malloc(un * sizeof **upd + 1);
  *idx = malloc(xn * 8 + 1);
  cr_assert(*data && *upd && *idx);
  for (size_t i = 0; i < dn; ++i)
    (*data)[i] = (float)tu_rng_range(rng, -1000, 1000) / 7.0f;
  for (size_t i = 0; i < un; ++i)
    (*upd)[i] = (float)tu_rng_range(rng, -1000, 1000) / 3.0f;
  for (size_t i = 0; i < xn; ++i) {
    int64_t s = sd_bound(c, (int64_t)i);
    int64_t v = tu_rng_range(rng, 0, s - 1);
    tu_set_index(*idx, c->idt, (int64_t)i, tu_rng_range(rng, 0, 1) ? v : v - s);
  }
}

static int sd_reference(const sd_case *c, float *want, const void *idx,
                        const float *upd) {
  int64_t bad = -1, first = -1;
  bool last = c->sp.duplicates == CLG_DUPLICATES_LAST;
  return c->op == CLG_OP_SCATTER_ND
             ? ref_scatter_nd(want, CLG_DTYPE_FLOAT, c->r, c->ds, idx,
                              tu_ref_index_type(c->idt), c->q, c->is, upd,
                              (ref_reduction)c->sp.reduction, last, &bad,
                              &first)
             : ref_scatter_elements(want, CLG_DTYPE_FLOAT, c->r, c->ds, idx,
                                    tu_ref_index_type(c->idt), c->is, upd,
                                    c->axis, (ref_reduction)c->sp.reduction,
                                    last, &bad, &first);
}

/* A random case: ScatterElements or ScatterND, rank 1-3. */
static sd_case sd_random(tu_rng *rng, int big) {
  sd_case c;
  memset(&c, 0, sizeof c);
  c.op = tu_rng_range(rng, 0, 1) ? CLG_OP_SCATTER_ND : CLG_OP_SCATTER_ELEMENTS;
  c.sp.reduction = (clg_reduction)tu_rng_range(rng, 0, 4);
  c.sp.duplicates = tu_rng_range(rng, 0, 1) ? CLG_DUPLICATES_LAST
                                            : CLG_DUPLICATES_ERROR;
  c.idt = tu_rng_range(rng, 0, 1) ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
  c.r = (int32_t)tu_rng_range(rng, 1, 3);
  for (int32_t d = 0; d < c.r; ++d)
    c.ds[d] = tu_rng_range(rng, 1, big ? 60 : 6);
  if (c.op == CLG_OP_SCATTER_ND) {
    int64_t k = tu_rng_range(rng, 1, c.r);
    c.q = 2;
    c.is[0] = tu_rng_range(rng, 1, big ? 5000 : 12);
    c.is[1] = k;
  } else {
    c.q = c.r;
    int32_t a = (int32_t)tu_rng_range(rng, 0, c.r - 1);
    c.axis = tu_rng_range(rng, 0, 1) ? a - c.r : a;
    for (int32_t d = 0; d < c.r; ++d)
      c.is[d] = d == a ? tu_rng_range(rng, 1, big ? 90 : 8)
                       : tu_rng_range(rng, 1, c.ds[d]);
  }
  c.in_place = tu_rng_range(rng, 0, 1) != 0;
  return c;
}

/* Valid cases through the device path, sync and async, against the
 * reference (repeats under reduction none and duplicates = error are
 * errors: checked against the host path instead). */
static void sd_results(int big, unsigned count, uint64_t seed) {
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  tu_rng rng = tu_rng_make(seed);
  for (unsigned k = 0; k < count; ++k) {
    sd_case c = sd_random(&rng, big);
    float *data, *upd;
    void *idx;
    sd_inputs(&c, &rng, &data, &idx, &upd);
    size_t dn = (size_t)tu_numel(c.r, c.ds);
    float *want = malloc(dn * sizeof *want + 1);
    cr_assert(want);
    memcpy(want, data, dn * sizeof *want);
    int rc = sd_reference(&c, want, idx, upd);
    for (int async = 0; async < 2; ++async) {
      sd_run dev, hostr;
      sd_call(&c, data, idx, upd, true, async, &dev);
      if (rc == REF_OK) {
        cr_expect_eq(dev.st, CLG_SUCCESS, "case %u: %s", k, dev.msg);
        ptrdiff_t diff = tu_first_diff(dev.out, want, dn * sizeof *want);
        cr_expect_eq(diff, -1,
                     "case %u (op %d reduction %d dup %d async %d "
                     "in_place %d): first differing byte %td",
                     k, (int)c.op, (int)c.sp.reduction,
                     (int)c.sp.duplicates, async, (int)c.in_place, diff);
      } else {
        cr_expect_eq(rc, REF_DUPLICATE, "test bug: reference rc %d", rc);
        sd_call(&c, data, idx, upd, false, false, &hostr);
        cr_expect_eq(dev.st, hostr.st, "case %u", k);
        cr_expect_str_eq(dev.msg, hostr.msg, "case %u", k);
        cr_expect_eq(tu_first_diff(dev.out, data, dn * sizeof *data), -1,
                     "case %u: output changed by a failed call", k);
        free(hostr.out);
      }
      free(dev.out);
    }
    free(want);
    free(data);
    free(idx);
    free(upd);
  }
}

Test(scatter_device, small_cases_match_the_reference) {
  sd_results(0, 120, 11);
}
Test(scatter_device, large_cases_match_the_reference) { sd_results(1, 16, 12); }

/* Many entries into 2^16 - 2^17 targets: three radix passes over many
 * chunks on a GPU's plan, one pass by 8 bits of the target on a CPU's,
 * long and short runs, every reduction. */
Test(scatter_device, three_pass_sort) {
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  tu_rng rng = tu_rng_make(13);
  for (int red = 1; red <= 4; ++red) {
    sd_case c;
    memset(&c, 0, sizeof c);
    c.op = CLG_OP_SCATTER_ND;
    c.sp.reduction = (clg_reduction)red;
    c.idt = red % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
    c.r = 2;
    c.ds[0] = 70001;
    c.ds[1] = 2;
    c.q = 2;
    c.is[0] = 150000;
    c.is[1] = 1;
    c.in_place = red % 2 == 0;
    float *data, *upd;
    void *idx;
    sd_inputs(&c, &rng, &data, &idx, &upd);
    for (int64_t i = 0; i < 20000; ++i) /* one long run: target 5 */
      tu_set_index(idx, c.idt, i * 7, 5);
    size_t dn = (size_t)tu_numel(c.r, c.ds);
    float *want = malloc(dn * sizeof *want);
    cr_assert(want);
    memcpy(want, data, dn * sizeof *want);
    cr_assert_eq(sd_reference(&c, want, idx, upd), REF_OK);
    sd_run dev;
    sd_call(&c, data, idx, upd, true, red == 2, &dev);
    cr_expect_eq(dev.st, CLG_SUCCESS, "%s", dev.msg);
    cr_expect_eq(tu_first_diff(dev.out, want, dn * sizeof *want), -1,
                 "reduction %d", red);
    free(dev.out);
    free(want);
    free(data);
    free(idx);
    free(upd);
  }
}

/* float add and mul on whole vectors of a target (32-byte aligned
 * offsets, targets of a multiple of 8 floats) and not. */
Test(scatter_device, vector_lanes) {
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  tu_rng rng = tu_rng_make(15);
  for (int k = 0; k < 8; ++k) {
    sd_case c;
    memset(&c, 0, sizeof c);
    c.op = CLG_OP_SCATTER_ND;
    c.sp.reduction = k % 2 ? CLG_REDUCTION_MUL : CLG_REDUCTION_ADD;
    c.idt = CLG_DTYPE_INT64;
    c.r = 2;
    c.ds[0] = 50;
    c.ds[1] = k < 6 ? 8 * (k + 1) : 12;
    c.q = 2;
    c.is[0] = 400;
    c.is[1] = 1;
    c.in_place = k % 3 != 0;
    c.offset = k % 4 == 3 ? 0 : 16; /* 16 + 16: 32-byte aligned */
    float *data, *upd;
    void *idx;
    sd_inputs(&c, &rng, &data, &idx, &upd);
    size_t dn = (size_t)tu_numel(c.r, c.ds);
    float *want = malloc(dn * sizeof *want);
    cr_assert(want);
    memcpy(want, data, dn * sizeof *want);
    cr_assert_eq(sd_reference(&c, want, idx, upd), REF_OK);
    sd_run dev;
    sd_call(&c, data, idx, upd, true, false, &dev);
    cr_expect_eq(dev.st, CLG_SUCCESS, "%s", dev.msg);
    cr_expect_eq(tu_first_diff(dev.out, want, dn * sizeof *want), -1,
                 "case %d", k);
    free(dev.out);
    free(want);
    free(data);
    free(idx);
    free(upd);
  }
}

/* Reduction none with duplicates an error on the innermost axis, with more
 * entries than one run of the CPU's claim kernel: rows of targets that are
 * whole bitmap words (64 floats; each run whole rows, claimed without
 * atomics) and rows that are not (100 floats: atomics), rows of 48 and 40
 * entries that do not divide a run of 4096, and rank 3, where the rows
 * merge. Distinct targets in each row succeed; a repeat planted in a late
 * row gives the host path's status and message and leaves the output as it
 * was. */
Test(scatter_device, innermost_axis_repeats) {
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  tu_rng rng = tu_rng_make(16);
  for (int k = 0; k < 6; ++k) {
    sd_case c;
    memset(&c, 0, sizeof c);
    c.op = CLG_OP_SCATTER_ELEMENTS;
    c.idt = k % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
    c.in_place = k % 3 == 0;
    if (k < 4) {
      c.r = c.q = 2;
      c.ds[0] = c.is[0] = 300;
      c.ds[1] = k < 2 ? 64 : 100;
      c.is[1] = 48;
      c.axis = k % 2 ? -1 : 1;
    } else {
      c.r = c.q = 3;
      c.ds[0] = c.is[0] = 20;
      c.ds[1] = c.is[1] = 30;
      c.ds[2] = 64;
      c.is[2] = 40;
      c.axis = 2;
    }
    float *data, *upd;
    void *idx;
    sd_inputs(&c, &rng, &data, &idx, &upd);
    int64_t d = c.ds[c.r - 1], n0 = c.is[c.r - 1],
            rows = tu_numel(c.q, c.is) / n0;
    int64_t planted = 0; /* row rows-3's entry 5, as written */
    for (int64_t row = 0; row < rows; ++row) { /* distinct in each row */
      int64_t start = tu_rng_range(&rng, 0, d - 1);
      for (int64_t j = 0; j < n0; ++j) {
        int64_t v = (start + j * 7) % d; /* 7 is prime to 64 and 100 */
        tu_set_index(idx, c.idt, row * n0 + j, j % 3 ? v : v - d);
        if (row == rows - 3 && j == 5)
          planted = v;
      }
    }
    size_t dn = (size_t)tu_numel(c.r, c.ds);
    float *want = malloc(dn * sizeof *want);
    cr_assert(want);
    for (int repeat = 0; repeat < 2; ++repeat) {
      if (repeat) /* row rows-3: its entry 30 repeats its entry 5 */
        tu_set_index(idx, c.idt, (rows - 3) * n0 + 30, planted);
      memcpy(want, data, dn * sizeof *want);
      int rc = sd_reference(&c, want, idx, upd);
      cr_assert_eq(rc, repeat ? REF_DUPLICATE : REF_OK, "case %d", k);
      sd_run dev, hostr;
      sd_call(&c, data, idx, upd, true, false, &dev);
      /* The 64-wide rows are whole bitmap words: the row claim's path on
       * a CPU (CLGATHER_TEST_PLAN_DEVICE=cpu under Oclgrind). */
      cr_expect(k >= 2 || dev.bare == sd_cpu_plan(), "case %d: the row claim "
                "%d", k, (int)dev.bare);
      if (!repeat) {
        cr_expect_eq(dev.st, CLG_SUCCESS, "case %d: %s", k, dev.msg);
        cr_expect_eq(tu_first_diff(dev.out, want, dn * sizeof *want), -1,
                     "case %d", k);
      } else {
        sd_call(&c, data, idx, upd, false, false, &hostr);
        cr_expect_eq(dev.st, CLG_ERROR_DUPLICATE_INDEX, "case %d: %s", k,
                     dev.msg);
        cr_expect_str_eq(dev.msg, hostr.msg, "case %d", k);
        cr_expect_eq(tu_first_diff(dev.out, data, dn * sizeof *data), -1,
                     "case %d: output changed by a failed call", k);
        free(hostr.out);
      }
      free(dev.out);
    }
    free(want);
    free(data);
    free(idx);
    free(upd);
  }
}

/* ScatterND, reduction none, duplicates an error, distinct targets: the
 * scatter after the device's index pass, which a CPU runs in runs of
 * entries (clg_scatter_direct_runs: at least 4096 elements a run, at most
 * 1024 runs), with slices of 1, 3 and 40 elements over several runs and a
 * last run cut short; every entry lands (byte for byte against the
 * reference). */
Test(scatter_device, distinct_slices_in_runs) {
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  tu_rng rng = tu_rng_make(17);
  static const int64_t shapes[3][4] = {/* ds0, ds1, entries, k */
                                       {150, 80, 9001, 2},
                                       {20000, 3, 9001, 1},
                                       {3000, 40, 2500, 1}};
  for (int k = 0; k < 6; ++k) {
    const int64_t *sh = shapes[k % 3];
    sd_case c;
    memset(&c, 0, sizeof c);
    c.op = CLG_OP_SCATTER_ND;
    c.idt = k < 3 ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
    c.in_place = k % 2 == 0;
    c.r = c.q = 2;
    c.ds[0] = sh[0];
    c.ds[1] = sh[1];
    c.is[0] = sh[2];
    c.is[1] = sh[3];
    float *data, *upd;
    void *idx;
    sd_inputs(&c, &rng, &data, &idx, &upd);
    /* Distinct targets: slice t = (start + 7919 e) mod slices, 7919 prime
     * to every count of slices here; negative every third. */
    int64_t slices = sh[3] == 2 ? sh[0] * sh[1] : sh[0];
    int64_t start = tu_rng_range(&rng, 0, slices - 1);
    for (int64_t e = 0; e < sh[2]; ++e) {
      int64_t t = (start + 7919 * e) % slices;
      int64_t v[2] = {sh[3] == 2 ? t / sh[1] : t, t % sh[1]};
      for (int64_t j = 0; j < sh[3]; ++j)
        tu_set_index(idx, c.idt, e * sh[3] + j,
                     e % 3 ? v[j] : v[j] - c.ds[j]);
    }
    size_t dn = (size_t)tu_numel(c.r, c.ds);
    float *want = malloc(dn * sizeof *want);
    cr_assert(want);
    memcpy(want, data, dn * sizeof *want);
    cr_assert_eq(sd_reference(&c, want, idx, upd), REF_OK, "case %d", k);
    sd_run dev;
    sd_call(&c, data, idx, upd, true, false, &dev);
    cr_expect_eq(dev.st, CLG_SUCCESS, "case %d: %s", k, dev.msg);
    cr_expect_eq(tu_first_diff(dev.out, want, dn * sizeof *want), -1,
                 "case %d", k);
    free(dev.out);
    free(want);
    free(data);
    free(idx);
    free(upd);
  }
}

/* The same innermost-axis ScatterElements (reduction none, duplicates an
 * error) on elements of 1, 2, 8 and 16 bytes and on floats at a 2-byte
 * offset (the kernels copy units of 2 bytes then: two a target), int32
 * and int64 indices, several runs of rows: where a CPU computes the
 * targets from the indices in the claim and the scatter, each unit of
 * every entry lands (byte for byte against the reference), and a repeat
 * still gives the host path's error with the output unchanged. */
Test(scatter_device, innermost_axis_every_width) {
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  static const clg_dtype types[5] = {CLG_DTYPE_UINT8, CLG_DTYPE_FLOAT16,
                                     CLG_DTYPE_DOUBLE, CLG_DTYPE_COMPLEX128,
                                     CLG_DTYPE_FLOAT};
  tu_rng rng = tu_rng_make(18);
  int64_t ds[2] = {300, 64}, is[2] = {300, 40};
  size_t dn = 300 * 64, xn = 300 * 40;
  for (int k = 0; k < 5; ++k) {
    clg_dtype dt = types[k];
    clg_dtype idt = k % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
    size_t es = clg_dtype_size(dt);
    unsigned char *data = malloc(dn * es), *upd = malloc(xn * es),
                  *want = malloc(dn * es), *got = malloc(dn * es);
    void *idx = malloc(xn * 8);
    cr_assert(data && upd && want && got && idx);
    tu_rng_bytes(&rng, data, dn * es);
    tu_rng_bytes(&rng, upd, xn * es);
    int64_t planted = 0; /* row 250's entry 2, as written */
    for (int64_t row = 0; row < 300; ++row) { /* distinct in each row */
      int64_t start = tu_rng_range(&rng, 0, 63);
      for (int64_t j = 0; j < 40; ++j) {
        int64_t v = (start + j * 7) % 64;
        tu_set_index(idx, idt, row * 40 + j, j % 3 ? v : v - 64);
        if (row == 250 && j == 2)
          planted = v;
      }
    }
    size_t off = k == 4 ? 18 : 16; /* the floats: 2-byte units */
    tu_storage buf = {CLG_STORAGE_BUFFER, off, false, false},
               xbuf = {CLG_STORAGE_BUFFER, 16, false, false};
    clg_params p = {CLG_OP_SCATTER_ELEMENTS, 1, 0, CLG_MODE_RAISE};
    clg_scatter_params sp = {CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
    /* 0: valid; 1: a repeat; 2: the repeat and, in earlier rows, two
     * indices out of range, which the row claim finds (no validation
     * kernel before it) and the validation kernel then names. */
    for (int phase = 0; phase < 3; ++phase) {
      if (phase == 1) /* row 250: its entry 33 repeats its entry 2 */
        tu_set_index(idx, idt, 250 * 40 + 33, planted);
      if (phase == 2) { /* row 120's entry 9, row 200's entry 0 */
        tu_set_index(idx, idt, 120 * 40 + 9, k % 2 ? -65 : 64);
        tu_set_index(idx, idt, 200 * 40, k % 2 ? 64 : -65);
      }
      memcpy(want, data, dn * es);
      int64_t bad = -1, first = -1;
      int rc = ref_scatter_elements(want, dt, 2, ds, idx,
                                    tu_ref_index_type(idt), is, upd, 1,
                                    REF_RED_NONE, 0, &bad, &first);
      static const int ref_rc[3] = {REF_OK, REF_DUPLICATE, REF_OOB};
      cr_assert_eq(rc, ref_rc[phase], "type %d", k);
      cr_assert(phase < 2 || bad == 120 * 40 + 9, "type %d", k);
      tu_tensor td, tx, tu;
      tu_tensor_init(&td, dt, 2, ds, buf, data);
      tu_tensor_init(&tx, idt, 2, is, xbuf, idx);
      tu_tensor_init(&tu, dt, 2, is, buf, upd);
      clg_context *ctx = tu_ctx();
      unsigned long v0 = atomic_load(&ctx->device_validations);
      clg_status st = clg_scatter(ctx, &p, &sp, &td.desc, &tx.desc, &tu.desc,
                                  &td.desc, NULL, 0, NULL, NULL);
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", clg_last_error());
      unsigned long ran = atomic_load(&ctx->device_validations) - v0;
      /* On a CPU the row claim checks the values: a validation kernel only
       * to name an offender. */
      bool bare = sd_plan_checks(p.op, p.axis, &sp, ctx, &td.desc, &tx.desc);
      cr_expect_eq(bare, sd_cpu_plan(), "type %d", k);
      cr_expect_eq(ran, !bare || phase == 2 ? 1u : 0u,
                   "type %d phase %d: %lu", k, phase, ran);
      tu_tensor_read(&td, got);
      if (!phase) {
        cr_expect_eq(st, CLG_SUCCESS, "type %d: %s", k, msg);
        cr_expect_eq(tu_first_diff(got, want, dn * es), -1, "type %d", k);
      } else {
        cr_expect_eq(st, phase == 1 ? CLG_ERROR_DUPLICATE_INDEX
                                    : CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                     "type %d: %s", k, msg);
        cr_expect_eq(tu_first_diff(got, data, dn * es), -1,
                     "type %d: output changed by a failed call", k);
      }
      if (phase == 2) { /* the message of the host's scan */
        tu_tensor th;
        tu_tensor_init(&th, idt, 2, is,
                       (tu_storage){CLG_STORAGE_HOST, 0, false, false}, idx);
        clg_status hs = clg_scatter(ctx, &p, &sp, &td.desc, &th.desc,
                                    &tu.desc, &td.desc, NULL, 0, NULL, NULL);
        cr_expect_eq(hs, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "type %d", k);
        cr_expect_str_eq(msg, clg_last_error(), "type %d", k);
        tu_tensor_free(&th);
      }
      tu_tensor_free(&td);
      tu_tensor_free(&tx);
      tu_tensor_free(&tu);
    }
    free(data);
    free(upd);
    free(want);
    free(got);
    free(idx);
  }
}

/* Out-of-bounds values and repeats planted at random places: the device
 * gives the host's status and message, sync and async, output unchanged. */
Test(scatter_device, errors_match_the_host) {
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  tu_rng rng = tu_rng_make(14);
  for (unsigned k = 0; k < 80; ++k) {
    sd_case c = sd_random(&rng, k % 4 == 0);
    bool oob = k % 2 == 0;
    if (!oob) {
      c.sp.reduction = CLG_REDUCTION_NONE;
      c.sp.duplicates = CLG_DUPLICATES_ERROR;
    }
    float *data, *upd;
    void *idx;
    sd_inputs(&c, &rng, &data, &idx, &upd);
    size_t xn = (size_t)tu_numel(c.q, c.is), dn = (size_t)tu_numel(c.r, c.ds);
    if (oob) { /* one or two offenders */
      for (int t = 0; t < 1 + (int)(k % 3 == 0); ++t) {
        int64_t pos = tu_rng_range(&rng, 0, (int64_t)xn - 1);
        int64_t s = sd_bound(&c, pos);
        tu_set_index(idx, c.idt, pos, tu_rng_range(&rng, 0, 1) ? s : -s - 1);
      }
    }
    float *want = malloc(dn * sizeof *want);
    cr_assert(want);
    memcpy(want, data, dn * sizeof *want);
    int rc = sd_reference(&c, want, idx, upd);
    free(want);
    if (rc == REF_OK) { /* no repeat happened to be drawn */
      free(data);
      free(idx);
      free(upd);
      continue;
    }
    sd_run hostr;
    sd_call(&c, data, idx, upd, false, false, &hostr);
    cr_expect_eq(hostr.st, oob ? CLG_ERROR_INDEX_OUT_OF_BOUNDS
                               : CLG_ERROR_DUPLICATE_INDEX,
                 "case %u: %s", k, hostr.msg);
    for (int async = 0; async < 2; ++async) {
      sd_run dev;
      sd_call(&c, data, idx, upd, true, async, &dev);
      cr_expect_eq(dev.st, hostr.st, "case %u async %d: %s", k, async,
                   dev.msg);
      cr_expect_str_eq(dev.msg, hostr.msg, "case %u async %d", k, async);
      cr_expect_eq(tu_first_diff(dev.out, data, dn * sizeof *data), -1,
                   "case %u async %d in_place %d: output changed", k, async,
                   (int)c.in_place);
      free(dev.out);
    }
    free(hostr.out);
    free(data);
    free(idx);
    free(upd);
  }
}

/* clg_scatter_async() waits for nothing: indices written after a user
 * event, the call returns while it is pending; then the result (a valid
 * call) or the unchanged output (a repeat) once it completes. */
Test(scatter_device, async_returns_before_its_wait_list) {
  for (int bad = 0; bad < 2; ++bad) {
    int64_t ds[2] = {6, 3}, is[2] = {4, 1}, us[2] = {4, 3};
    float data[18], upd[12], want[18];
    for (int i = 0; i < 18; ++i)
      data[i] = want[i] = (float)i;
    for (int i = 0; i < 12; ++i)
      upd[i] = 100.0f + (float)i;
    int64_t idx[4] = {5, 0, bad ? 5 : 2, -3};
    cl_mem bd = tu_buffer_create(sizeof data, data),
           bx = tu_buffer_create(sizeof idx, NULL),
           bu = tu_buffer_create(sizeof upd, upd);
    cl_int err = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(tu_cl_context(), &err);
    tu_cl_check(err, "clCreateUserEvent");
    cl_event wrote = NULL;
    tu_cl_check(clEnqueueWriteBuffer(tu_queue(), bx, CL_FALSE, 0, sizeof idx,
                                     idx, 1, &gate, &wrote),
                "clEnqueueWriteBuffer");
    clg_tensor td = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, bd, 0);
    clg_tensor tx = clg_tensor_buffer(CLG_DTYPE_INT64, 2, is, bx, 0);
    clg_tensor tu = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, us, bu, 0);
    clg_params p = {CLG_OP_SCATTER_ND, 0, 0, CLG_MODE_RAISE};
    clg_outcome *o = NULL;
    cl_event ev = NULL;
    cr_assert_eq(clg_scatter_async(tu_ctx(), &p, NULL, &td, &tx, &tu, &td,
                                   tu_queue(), 1, &wrote, &ev, &o),
                 CLG_SUCCESS, "%s", clg_last_error());
    cl_int state = CL_COMPLETE;
    tu_cl_check(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                               sizeof state, &state, NULL),
                "clGetEventInfo");
    cr_expect_neq(state, CL_COMPLETE, "the call waited for its wait list");
    tu_cl_check(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clg_status st = clg_outcome_wait(o);
    if (bad) {
      cr_expect_eq(st, CLG_ERROR_DUPLICATE_INDEX, "%s", clg_last_error());
      cr_expect(tu_contains(clg_last_error(), "tuples 0") &&
                    tu_contains(clg_last_error(), "and 2"),
                "%s", clg_last_error());
    } else {
      cr_expect_eq(st, CLG_SUCCESS, "%s", clg_last_error());
      int rows[4] = {5, 0, 2, 3};
      for (int e = 0; e < 4; ++e)
        for (int j = 0; j < 3; ++j)
          want[rows[e] * 3 + j] = upd[e * 3 + j];
    }
    float got[18];
    tu_buffer_read(bd, 0, sizeof got, got);
    cr_expect_arr_eq(got, want, sizeof got);
    clg_outcome_release(o);
    clReleaseEvent(ev);
    clReleaseEvent(wrote);
    clReleaseEvent(gate);
    clReleaseMemObject(bd);
    clReleaseMemObject(bx);
    clReleaseMemObject(bu);
  }
}

