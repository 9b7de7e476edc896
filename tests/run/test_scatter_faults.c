/*
 * OpenCL and host-allocation failures injected at every call position of
 * the scatters' paths (core/faults.h, test builds only), as
 * tests/run/test_faults.c does for the gathers: for each setup a clean run
 * counts the calls of each kind, then each call in turn fails and the test
 * checks the status (CLG_ERROR_OPENCL, CLG_ERROR_BUILD_FAILED,
 * CLG_ERROR_OUT_OF_HOST_MEMORY), that the message names the call, that no
 * event is returned, that the output (data itself, in place) is unchanged
 * unless a kernel had been enqueued before the failing call, and that the
 * next call without a fault gives the reference's result.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/scatter_case.h"

#define CLG_FAULTS_IMPL
#include "core/faults.h"

typedef struct fs_setup {
  const char *name;
  clg_op op;
  clg_reduction red;
  clg_storage data, indices, updates, output;
  bool in_place, want_event;
} fs_setup;

#define H CLG_STORAGE_HOST
#define B CLG_STORAGE_BUFFER
static const fs_setup setups[] = {
    {"ScatterND add, repeats (copy, permute, segments); all host", CLG_OP_SCATTER_ND,
     CLG_REDUCTION_ADD, H, H, H, H, false, true},
    {"ScatterND add, repeats; all cl_mem, in place", CLG_OP_SCATTER_ND,
     CLG_REDUCTION_ADD, B, B, B, B, true, true},
    {"ScatterElements none, distinct (direct); cl_mem indices read back; "
     "host data in place",
     CLG_OP_SCATTER_ELEMENTS, CLG_REDUCTION_NONE, H, B, H, H, true, false},
    {"ScatterND none, duplicates last (segments); cl_mem data and output",
     CLG_OP_SCATTER_ND, CLG_REDUCTION_NONE, B, H, H, B, false, true},
};

/* data f32 [6, 4]; ScatterND: indices [5, 1] with repeats; ScatterElements:
 * indices [6, 3] distinct per row (axis 1). */
typedef struct fs_env {
  const fs_setup *s;
  int64_t ds[2], is[2], us[2];
  float data[24], upd[24], want[24];
  int64_t idx[18];
  tu_tensor td, tx, tu, to;
} fs_env;

static void fs_init(fs_env *e, const fs_setup *s) {
  memset(e, 0, sizeof *e);
  e->s = s;
  e->ds[0] = 6;
  e->ds[1] = 4;
  for (int i = 0; i < 24; ++i) {
    e->data[i] = (float)i;
    e->upd[i] = 0.5f * (float)(i + 1);
  }
  if (s->op == CLG_OP_SCATTER_ND) {
    e->is[0] = 5;
    e->is[1] = 1;
    e->us[0] = 5;
    e->us[1] = 4;
    const int64_t v[5] = {2, -1, 2, 0, 5};
    memcpy(e->idx, v, sizeof v);
  } else {
    e->is[0] = e->us[0] = 6;
    e->is[1] = e->us[1] = 3;
    for (int r = 0; r < 6; ++r)
      for (int j = 0; j < 3; ++j)
        e->idx[r * 3 + j] = (r + j) % 4 - (j == 1 ? 4 : 0);
  }
  memcpy(e->want, e->data, sizeof e->want);
  int64_t bad = -1, first = -1;
  int rc = s->op == CLG_OP_SCATTER_ND
               ? ref_scatter_nd(e->want, CLG_DTYPE_FLOAT, 2, e->ds, e->idx,
                                REF_INDEX_I64, 2, e->is, e->upd,
                                (ref_reduction)s->red, 1, &bad, &first)
               : ref_scatter_elements(e->want, CLG_DTYPE_FLOAT, 2, e->ds,
                                      e->idx, REF_INDEX_I64, e->is, e->upd, 1,
                                      (ref_reduction)s->red, 0, &bad, &first);
  cr_assert_eq(rc, REF_OK);
}

/* Fresh tensors (the output: data's bytes when in place, else sentinels). */
static void fs_tensors(fs_env *e) {
  tu_storage st[4] = {{e->s->data, 8, false, false},
                      {e->s->indices, 16, false, false},
                      {e->s->updates, 4, false, false},
                      {e->s->output, 12, false, false}};
  tu_tensor_init(&e->td, CLG_DTYPE_FLOAT, 2, e->ds, st[0], e->data);
  tu_tensor_init(&e->tx, CLG_DTYPE_INT64, 2, e->is, st[1], e->idx);
  tu_tensor_init(&e->tu, CLG_DTYPE_FLOAT, 2, e->us, st[2], e->upd);
  if (!e->s->in_place)
    tu_tensor_init(&e->to, CLG_DTYPE_FLOAT, 2, e->ds, st[3], NULL);
}

static void fs_free(fs_env *e) {
  tu_tensor_free(&e->td);
  tu_tensor_free(&e->tx);
  tu_tensor_free(&e->tu);
  if (!e->s->in_place)
    tu_tensor_free(&e->to);
}

static const tu_tensor *fs_out(const fs_env *e) {
  return e->s->in_place ? &e->td : &e->to;
}

static clg_status fs_call(fs_env *e, cl_event *ev) {
  clg_params p = {e->s->op, e->s->op == CLG_OP_SCATTER_ND ? 0 : 1, 0,
                  CLG_MODE_RAISE};
  clg_scatter_params sp = {e->s->red, CLG_DUPLICATES_LAST};
  return clg_scatter(tu_ctx(), &p, &sp, &e->td.desc, &e->tx.desc, &e->tu.desc,
                     &fs_out(e)->desc, NULL, 0, NULL,
                     e->s->want_event ? ev : NULL);
}

static void fs_finish(cl_event ev) {
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
}

static void fs_run(const fs_setup *s, unsigned *points) {
  fs_env e;
  fs_init(&e, s);
  /* warm: programs built, so the counts are those of a call's own path */
  fs_tensors(&e);
  cl_event ev = NULL;
  cr_assert_eq(fs_call(&e, &ev), CLG_SUCCESS, "%s: %s", s->name,
               clg_last_error());
  fs_finish(ev);
  fs_free(&e);
  /* Every call below starts with no buffer kept by the context (the
   * verdict's, the index pass's scratch): its OpenCL calls, counted here
   * and failed one by one below, are then the same each time. */
  tu_drop_kept(tu_ctx());
  clg_fault_reset();
  fs_tensors(&e);
  ev = NULL;
  cr_assert_eq(fs_call(&e, &ev), CLG_SUCCESS, "%s: %s", s->name,
               clg_last_error());
  fs_finish(ev);
  unsigned long counts[CLG_FAULT_COUNT];
  for (int k = 0; k < CLG_FAULT_COUNT; ++k)
    counts[k] = clg_fault_calls((clg_fault)k);
  fs_free(&e);
  for (int k = 0; k < CLG_FAULT_COUNT; ++k)
    for (unsigned long pos = 0; pos < counts[k]; ++pos) {
      char label[300];
      snprintf(label, sizeof label, "%s: %s #%lu", s->name,
               clg_fault_call_name((clg_fault)k), pos);
      fs_tensors(&e);
      unsigned char before[24 * 4];
      tu_tensor_read(fs_out(&e), before);
      tu_drop_kept(tu_ctx());
      clg_fault_reset();
      clg_fault_inject((clg_fault)k, (unsigned)pos, 1, CL_OUT_OF_RESOURCES);
      ev = NULL;
      clg_status st = fs_call(&e, &ev);
      unsigned long kernels = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
      bool after_kernel = kernels > (k == CLG_FAULT_ENQUEUE_KERNEL ? 1u : 0u);
      clg_fault_reset();
      clg_status want = k == CLG_FAULT_BUILD_PROGRAM  ? CLG_ERROR_BUILD_FAILED
                        : k == CLG_FAULT_HOST_ALLOC ? CLG_ERROR_OUT_OF_HOST_MEMORY
                                                    : CLG_ERROR_OPENCL;
      cr_expect_eq(st, want, "%s: status %d (%s)", label, (int)st,
                   clg_last_error());
      if (k != CLG_FAULT_HOST_ALLOC)
        cr_expect(strstr(clg_last_error(),
                         clg_fault_call_name((clg_fault)k)) != NULL,
                  "%s: message \"%s\"", label, clg_last_error());
      /* ... and names the scatter, not another operator */
      char lower[1024];
      snprintf(lower, sizeof lower, "%s", clg_last_error());
      for (char *ch = lower; *ch; ++ch)
        if (*ch >= 'A' && *ch <= 'Z')
          *ch = (char)(*ch - 'A' + 'a');
      cr_expect(strstr(lower, "gather") == NULL,
                "%s: the message names a gather: \"%s\"", label,
                clg_last_error());
      cr_expect(ev == NULL, "%s: an event on error", label);
      if (ev)
        clReleaseEvent(ev);
      /* a failure once a kernel was enqueued may leave it running: drain */
      clFinish(clg_context_queue(tu_ctx()));
      if (!after_kernel) {
        unsigned char now[24 * 4];
        tu_tensor_read(fs_out(&e), now);
        cr_expect_eq(memcmp(now, before, sizeof now), 0,
                     "%s: the output changed", label);
      }
      fs_free(&e);
      /* nothing poisoned: the same call succeeds */
      fs_tensors(&e);
      ev = NULL;
      cr_expect_eq(fs_call(&e, &ev), CLG_SUCCESS, "%s: retry: %s", label,
                   clg_last_error());
      fs_finish(ev);
      float got[24];
      tu_tensor_read(fs_out(&e), got);
      cr_expect_eq(memcmp(got, e.want, sizeof got), 0,
                   "%s: retry's output differs from the reference", label);
      fs_free(&e);
      ++*points;
    }
}

Test(scatter_faults, every_injection_point, .timeout = 300) {
  unsigned points = 0;
  for (size_t i = 0; i < sizeof setups / sizeof setups[0]; ++i)
    fs_run(&setups[i], &points);
  cr_log_info("%u injection points", points);
  cr_expect_gt(points, 20u, "too few injection points: %u", points);
}

/* A device without doubles (cl_khr_fp64 hidden, core/faults.h): every
 * reduction on float64 and add/mul on complex128 is refused with
 * CLG_ERROR_UNSUPPORTED_DTYPE before anything is enqueued, for ScatterND
 * and ScatterElements, host and cl_mem outputs; the output is untouched;
 * reduction none (which moves bytes) still runs. With the extension back
 * the same calls succeed. */
Test(scatter_faults, reductions_needing_doubles_without_fp64) {
  static const clg_reduction reds[] = {CLG_REDUCTION_ADD, CLG_REDUCTION_MUL,
                                       CLG_REDUCTION_MIN, CLG_REDUCTION_MAX};
  static const char *const red_names[] = {"add", "mul", "min", "max"};
  const int64_t ds[2] = {4, 2}, xs_nd[2] = {2, 1}, us_nd[2] = {2, 2},
                xs_el[2] = {1, 2};
  /* double [4, 2] or complex128 [4, 2] (its components as 16 doubles) */
  double data[16], upd[8];
  for (int k = 0; k < 16; ++k)
    data[k] = 0.5 * k + 1;
  for (int k = 0; k < 8; ++k)
    upd[k] = 0.25 * k - 1;
  int64_t idx_nd[2] = {3, 0}, idx_el[2] = {1, 3}; /* ScatterElements: axis 0 */
  for (int complex = 0; complex < 2; ++complex)
    for (int op = 0; op < 2; ++op)
      for (int r = 0; r < 4; ++r)
        for (int on_device = 0; on_device < 2; ++on_device) {
          if (complex && r >= 2)
            continue; /* min/max: not defined on complex (catalogued) */
          clg_dtype dt = complex ? CLG_DTYPE_COMPLEX128 : CLG_DTYPE_DOUBLE;
          bool nd = op == 0;
          char label[160];
          snprintf(label, sizeof label, "%s %s on %s, %s output",
                   nd ? "ScatterND" : "ScatterElements", red_names[r],
                   complex ? "complex128" : "float64",
                   on_device ? "cl_mem" : "host");
          tu_storage out_st = {on_device ? B : H, on_device ? 16u : 0u,
                               false, false};
          tu_tensor to;
          tu_tensor_init(&to, dt, 2, ds, out_st, NULL);
          clg_tensor td = clg_tensor_host(dt, 2, ds, data);
          clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 2,
                                          nd ? xs_nd : xs_el,
                                          nd ? idx_nd : idx_el);
          clg_tensor tu = clg_tensor_host(dt, 2, nd ? us_nd : xs_el, upd);
          clg_params p = {nd ? CLG_OP_SCATTER_ND : CLG_OP_SCATTER_ELEMENTS,
                          0, 0, CLG_MODE_RAISE};
          clg_scatter_params sc = {reds[r], CLG_DUPLICATES_ERROR};
          clg_fault_reset();
          clg_fault_hide_fp64(true);
          cl_event ev = NULL;
          clg_status st = clg_scatter(tu_ctx(), &p, &sc, &td, &tx, &tu,
                                      &to.desc, NULL, 0, NULL, &ev);
          unsigned long kernels = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
          clg_fault_reset();
          cr_expect_eq(st, CLG_ERROR_UNSUPPORTED_DTYPE, "%s: status %s: %s",
                       label, clg_status_string(st), clg_last_error());
          char want[160];
          snprintf(want, sizeof want,
                   "reduction %s on %s needs double precision, which this "
                   "device lacks (no cl_khr_fp64)",
                   red_names[r], clg_dtype_name(dt));
          cr_expect(strstr(clg_last_error(), want) != NULL,
                    "%s: message \"%s\"", label, clg_last_error());
          cr_expect(ev == NULL && kernels == 0,
                    "%s: an event or a kernel on error", label);
          cr_expect(tu_tensor_all_sentinel(&to),
                    "%s: the output (or the bytes around it) changed", label);
          /* The device's doubles back: the same call runs. */
          st = clg_scatter(tu_ctx(), &p, &sc, &td, &tx, &tu, &to.desc, NULL,
                           0, NULL, NULL);
          cr_expect_eq(st, CLG_SUCCESS, "%s with cl_khr_fp64: %s", label,
                       clg_last_error());
          tu_tensor_free(&to);
        }
  /* Reduction none moves bytes: no doubles needed. */
  double out[8];
  clg_tensor td = clg_tensor_host(CLG_DTYPE_DOUBLE, 2, ds, data);
  clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 2, xs_nd, idx_nd);
  clg_tensor tu = clg_tensor_host(CLG_DTYPE_DOUBLE, 2, us_nd, upd);
  clg_tensor to = clg_tensor_host(CLG_DTYPE_DOUBLE, 2, ds, out);
  clg_params p = {CLG_OP_SCATTER_ND, 0, 0, CLG_MODE_RAISE};
  clg_fault_hide_fp64(true);
  clg_status st = clg_scatter(tu_ctx(), &p, NULL, &td, &tx, &tu, &to, NULL, 0,
                              NULL, NULL);
  clg_fault_reset();
  cr_expect_eq(st, CLG_SUCCESS, "reduction none on float64 without "
               "cl_khr_fp64: %s", clg_last_error());
  double want[8];
  memcpy(want, data, sizeof want);
  memcpy(want + 6, upd, 2 * sizeof *upd); /* row 3 */
  memcpy(want + 0, upd + 2, 2 * sizeof *upd); /* row 0 */
  cr_expect(memcmp(out, want, sizeof want) == 0,
            "reduction none on float64: wrong output");
}

/* A device that flushes subnormals (CL_FP_DENORM hidden from its single and
 * double FP configs, core/faults.h): every reduction on float, bfloat16,
 * double and add/mul on complex64, complex128 is refused with
 * CLG_ERROR_UNSUPPORTED_DTYPE before anything is enqueued, naming the
 * config; the output is untouched. float16 (no subnormal float on its
 * path), the integers and reduction none still run and give the
 * reference's bytes. */
Test(scatter_faults, float_reductions_on_a_flushing_device) {
  static const clg_reduction reds[] = {CLG_REDUCTION_ADD, CLG_REDUCTION_MUL,
                                       CLG_REDUCTION_MIN, CLG_REDUCTION_MAX};
  static const char *const red_names[] = {"add", "mul", "min", "max"};
  static const clg_dtype types[] = {CLG_DTYPE_FLOAT, CLG_DTYPE_BFLOAT16,
                                    CLG_DTYPE_COMPLEX64, CLG_DTYPE_DOUBLE,
                                    CLG_DTYPE_COMPLEX128, CLG_DTYPE_FLOAT16,
                                    CLG_DTYPE_INT32};
  const int64_t ds[1] = {6}, xs[1] = {4};
  int64_t idx[4] = {1, 4, 1, 0};
  unsigned char data[6 * 16], upd[4 * 16];
  for (size_t k = 0; k < sizeof data; ++k)
    data[k] = (unsigned char)(k % 7 == 0 ? 0 : 0x3C); /* no NaN, no inf */
  for (size_t k = 0; k < sizeof upd; ++k)
    upd[k] = (unsigned char)(k % 5 == 0 ? 0 : 0x3B);
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
    for (int r = 0; r < 4; ++r)
      for (int on_device = 0; on_device < 2; ++on_device) {
        clg_dtype dt = types[t];
        bool cplx = dt == CLG_DTYPE_COMPLEX64 || dt == CLG_DTYPE_COMPLEX128;
        if (cplx && r >= 2)
          continue; /* min/max: not defined on complex (catalogued) */
        bool refused = dt != CLG_DTYPE_FLOAT16 && dt != CLG_DTYPE_INT32;
        bool dbl = dt == CLG_DTYPE_DOUBLE || dt == CLG_DTYPE_COMPLEX128;
        char label[160];
        snprintf(label, sizeof label, "ScatterElements %s on %s, %s output",
                 red_names[r], clg_dtype_name(dt),
                 on_device ? "cl_mem" : "host");
        tu_storage out_st = {on_device ? B : H, on_device ? 16u : 0u, false,
                             false};
        tu_tensor to;
        tu_tensor_init(&to, dt, 1, ds, out_st, NULL);
        clg_tensor td = clg_tensor_host(dt, 1, ds, data);
        clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 1, xs, idx);
        clg_tensor tu = clg_tensor_host(dt, 1, xs, upd);
        clg_params p = {CLG_OP_SCATTER_ELEMENTS, 0, 0, CLG_MODE_RAISE};
        clg_scatter_params sc = {reds[r], CLG_DUPLICATES_ERROR};
        clg_fault_reset();
        clg_fault_hide_denorm(true);
        cl_event ev = NULL;
        clg_status st = clg_scatter(tu_ctx(), &p, &sc, &td, &tx, &tu,
                                    &to.desc, NULL, 0, NULL, &ev);
        unsigned long kernels = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
        clg_fault_reset();
        if (!refused) {
          cr_expect_eq(st, CLG_SUCCESS, "%s: %s", label, clg_last_error());
          if (ev)
            clWaitForEvents(1, &ev), clReleaseEvent(ev);
          unsigned char want[sizeof data], got[sizeof data];
          size_t bytes = 6 * clg_dtype_size(dt);
          memcpy(want, data, bytes);
          int64_t bad = -1, first = -1;
          int rc = ref_scatter_elements(want, dt, 1, ds, idx, REF_INDEX_I64,
                                        xs, upd, 0, (ref_reduction)reds[r], 0,
                                        &bad, &first);
          cr_expect_eq(rc, REF_OK, "%s: reference %d", label, rc);
          tu_tensor_read(&to, got);
          cr_expect(memcmp(got, want, bytes) == 0, "%s: wrong output", label);
          tu_tensor_free(&to);
          continue;
        }
        cr_expect_eq(st, CLG_ERROR_UNSUPPORTED_DTYPE, "%s: status %s: %s",
                     label, clg_status_string(st), clg_last_error());
        char want[200];
        snprintf(want, sizeof want,
                 "reduction %s on %s cannot give the promised bits on this "
                 "device: it flushes subnormal %ss to zero (%s lacks "
                 "CL_FP_DENORM)",
                 red_names[r], clg_dtype_name(dt), dbl ? "double" : "float",
                 dbl ? "CL_DEVICE_DOUBLE_FP_CONFIG"
                     : "CL_DEVICE_SINGLE_FP_CONFIG");
        cr_expect(strstr(clg_last_error(), want) != NULL,
                  "%s: message \"%s\"", label, clg_last_error());
        cr_expect(ev == NULL && kernels == 0,
                  "%s: an event or a kernel on error", label);
        cr_expect(tu_tensor_all_sentinel(&to),
                  "%s: the output (or the bytes around it) changed", label);
        /* The device's subnormals back: the same call runs. */
        st = clg_scatter(tu_ctx(), &p, &sc, &td, &tx, &tu, &to.desc, NULL, 0,
                         NULL, NULL);
        cr_expect_eq(st, CLG_SUCCESS, "%s with CL_FP_DENORM: %s", label,
                     clg_last_error());
        tu_tensor_free(&to);
      }
}
