/*
 * The scatters' index pass on the device, the CPU's paths of whole rows
 * and runs (host/ops/scatter_device.c; ScatterElements on the innermost
 * axis: the row claim that also checks the bounds, the scatter that
 * computes targets from the indices; ScatterND's distinct slices in runs),
 * and their GPU kernels where the device is not a CPU: results byte for byte
 * against the plain-C reference, repeats and out-of-range indices with the
 * host path's message and the output unchanged. Part of test_scatter_device
 * (ops/test_scatter_device.c says what the suite covers).
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_scatter.h"
#include "scatter_device_fx.h"

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
       * a CPU (CLGATHER_TEST_KERNEL_DEVICE=cpu under Oclgrind). */
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
