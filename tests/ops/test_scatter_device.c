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
#include "scatter_device_fx.h"

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
