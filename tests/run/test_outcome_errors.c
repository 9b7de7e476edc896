/*
 * Errors of clg_run_async() and the validation counter (test_outcome; the
 * out-of-bounds verdicts are in test_outcome.c, which lists the other
 * files; shared helpers in outcome_fx.h):
 *  - argument errors come from the call itself with *outcome and *event
 *    untouched and nothing enqueued, as clg_run() reports them;
 *  - the context's device_validations counter (host/internal.h) counts the
 *    validation kernels of asynchronous cl_mem RAISE calls, and only those.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/outcome_fx.h"

/* The fault-injection API (its call counters) without the macros that would
 * route this file's own OpenCL calls through the counting wrappers. */
#define CLG_FAULTS_IMPL
#include "core/faults.h"

/* ------------------------------------------------ errors of the call */

/* The base: Gather axis 0 on data float [5, 3] (cl_mem), indices int64
 * [2, 3] (cl_mem, valid), output [2, 3, 3] (cl_mem, sentinel). */
typedef struct ecall {
  clg_context *ctx;
  clg_params p;
  clg_tensor d, x, o;
  cl_uint nev;
  const cl_event *wl;
  bool null_outcome;
} ecall;

typedef void (*ebreak)(ecall *c, cl_mem scratch);

static void e_null_outcome(ecall *c, cl_mem m) {
  (void)m;
  c->null_outcome = true;
}
static void e_null_ctx(ecall *c, cl_mem m) {
  (void)m;
  c->ctx = NULL;
}
static void e_shape(ecall *c, cl_mem m) {
  (void)m;
  c->o.shape[2] = 4;
}
static void e_axis(ecall *c, cl_mem m) {
  (void)m;
  c->p.axis = 2;
}
static void e_batch_dims(ecall *c, cl_mem m) {
  (void)m;
  c->p.batch_dims = 3;
}
static void e_nd_m(ecall *c, cl_mem m) {
  (void)m;
  c->p.op = CLG_OP_GATHER_ND; /* indices [2, 3]: m 3 > rank 2 */
}
static void e_dtype(ecall *c, cl_mem m) {
  (void)m;
  c->o.dtype = CLG_DTYPE_INT32;
}
static void e_idx_dtype(ecall *c, cl_mem m) {
  (void)m;
  c->x.dtype = CLG_DTYPE_FLOAT;
}
static void e_misaligned(ecall *c, cl_mem m) {
  (void)m;
  c->x.offset = 4;
}
static void e_wait_list(ecall *c, cl_mem m) {
  (void)m;
  c->nev = 2;
  c->wl = NULL;
}
static void e_too_small(ecall *c, cl_mem m) {
  c->x.buffer = m;
  c->x.offset = 8;
}
static void e_overlap(ecall *c, cl_mem m) {
  (void)m;
  c->x.buffer = c->o.buffer;
}
static void e_mode(ecall *c, cl_mem m) {
  (void)m;
  c->p.mode = (clg_index_mode)9;
}
static void e_wrap_empty_axis(ecall *c, cl_mem m) {
  (void)m;
  c->p.mode = CLG_MODE_WRAP;
  c->p.axis = 1;
  c->d.shape[1] = 0;
  c->o.shape[0] = 5;
  c->o.shape[1] = 2;
  c->o.shape[2] = 3;
}
static void e_host_oob(ecall *c, cl_mem m) {
  (void)m;
  static int64_t v[6] = {0, 1, 2, 3, 5, 0};
  c->x = clg_tensor_host(I64, 2, c->x.shape, v);
}
static void e_ge_oob_host(ecall *c, cl_mem m) {
  (void)m;
  static int32_t v[6] = {0, 1, 2, -4, 0, 0};
  c->p.op = CLG_OP_GATHER_ELEMENTS;
  c->p.axis = 1;
  c->x = clg_tensor_host(I32, 2, c->x.shape, v);
  c->o.rank = 2;
  c->o.shape[0] = 2;
  c->o.shape[1] = 3;
}
/* cl_mem indices (int32, indices[4] = 5) with a host output: the call
 * checks them itself. */
static float g_host_out[18];
static void e_host_output_oob(ecall *c, cl_mem m) {
  c->x = clg_tensor_buffer(I32, 2, c->x.shape, m, 0);
  c->o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, c->o.shape, g_host_out);
}
static void e_null_data(ecall *c, cl_mem m) {
  (void)m;
  c->d.storage = CLG_STORAGE_BUFFER;
  c->d.buffer = NULL;
}

typedef struct ecase {
  const char *name;
  ebreak brk;
  clg_status status;
  const char *msg;
} ecase;

Test(outcome, errors_are_returned_by_the_call) {
  static const ecase cases[] = {
      {"outcome NULL", e_null_outcome, CLG_ERROR_NULL_ARGUMENT,
       "outcome is NULL"},
      {"ctx NULL", e_null_ctx, CLG_ERROR_NULL_ARGUMENT, "ctx is NULL"},
      {"data->buffer NULL", e_null_data, CLG_ERROR_NULL_ARGUMENT,
       "data->buffer is NULL"},
      {"output shape", e_shape, CLG_ERROR_SHAPE_MISMATCH,
       "output has shape [2, 3, 4]"},
      {"axis 2", e_axis, CLG_ERROR_INVALID_AXIS, "axis 2 is out of range"},
      {"batch_dims 3", e_batch_dims, CLG_ERROR_INVALID_BATCH_DIMS,
       "batch_dims 3 is out of range"},
      {"GatherND m 3", e_nd_m, CLG_ERROR_INCOMPATIBLE_SHAPES,
       "it must be in [1, 2]"},
      {"output dtype", e_dtype, CLG_ERROR_DTYPE_MISMATCH,
       "output has element type int32"},
      {"indices dtype", e_idx_dtype, CLG_ERROR_INVALID_INDICES_DTYPE, "float"},
      {"indices offset 4", e_misaligned, CLG_ERROR_INVALID_ARGUMENT,
       "indices->offset 4 is not a multiple of the index size 8"},
      {"wait list", e_wait_list, CLG_ERROR_INVALID_ARGUMENT, "num_events is 2"},
      {"indices buffer too small", e_too_small, CLG_ERROR_BUFFER_TOO_SMALL,
       "indices->buffer holds"},
      {"output overlaps indices", e_overlap, CLG_ERROR_INVALID_ARGUMENT,
       "output overlaps indices"},
      {"mode 9", e_mode, CLG_ERROR_INVALID_ARGUMENT, "unknown index mode 9"},
      {"WRAP on an empty axis (cl_mem indices)", e_wrap_empty_axis, OOB,
       "axis 1 of data has size 0, so mode wrap has no position"},
      {"host indices OOB", e_host_oob, OOB,
       "indices[4] (position [1, 1] in indices of shape [2, 3]) = 5"},
      {"GatherElements host indices OOB", e_ge_oob_host, OOB,
       "indices[3] (position [1, 0] in indices of shape [2, 3]) = -4"},
      {"cl_mem indices OOB, host output", e_host_output_oob, OOB,
       "indices[4] (position [1, 1] in indices of shape [2, 3]) = 5"},
  };
  static const int64_t ds[2] = {5, 3}, is[2] = {2, 3}, os[3] = {2, 3, 3};
  static const int64_t idx[6] = {0, 4, -5, 2, -1, 3};
  float data[15];
  for (int n = 0; n < 15; ++n)
    data[n] = (float)n;
  tu_tensor d, x, o;
  tu_tensor_init(&d, CLG_DTYPE_FLOAT, 2, ds, buf_at(0), data);
  tu_tensor_init(&x, I64, 2, is, buf_at(0), idx);
  tu_tensor_init(&o, CLG_DTYPE_FLOAT, 3, os, buf_at(0), NULL);
  /* 40 bytes: too small for the int64 indices at offset 8; int32 indices
   * with an out-of-bounds value at 0. */
  static const int32_t bad32[10] = {0, 1, 2, 3, 5, 0, 0, 0, 0, 0};
  cl_mem small = tu_buffer_create(sizeof bad32, bad32);
  clg_outcome *const oc_sentinel = (clg_outcome *)(uintptr_t)0x0C0FFEE0u;
  cl_event const ev_sentinel = (cl_event)(uintptr_t)0x0BADE7E0u;

  for (size_t n = 0; n < sizeof cases / sizeof cases[0]; ++n) {
    const ecase *e = &cases[n];
    ecall c = {tu_ctx(), G(0, 0), d.desc, x.desc, o.desc, 0, NULL, false};
    memset(g_host_out, (int)TU_SENTINEL, sizeof g_host_out);
    e->brk(&c, small);
    /* clg_run's verdict on the same arguments (no outcome argument). */
    char sync_msg[2048] = "";
    clg_status sync = CLG_SUCCESS;
    if (!c.null_outcome) {
      sync = clg_run(c.ctx, &c.p, &c.d, &c.x, &c.o, NULL, c.nev, c.wl, NULL);
      snprintf(sync_msg, sizeof sync_msg, "%s", clg_last_error());
    }
    clg_outcome *oc = oc_sentinel;
    cl_event ev = ev_sentinel;
    unsigned v0 = validations();
    clg_fault_reset();
    clg_status st = clg_run_async(c.ctx, &c.p, &c.d, &c.x, &c.o, NULL, c.nev,
                                  c.wl, &ev, c.null_outcome ? NULL : &oc);
    unsigned long kernels = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
    clg_fault_reset();
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", clg_last_error());
    cr_expect(st == e->status, "%s: want %s, got %s: %s", e->name,
              clg_status_string(e->status), clg_status_string(st), msg);
    cr_expect(tu_contains(msg, e->msg), "%s: the message lacks \"%s\": %s",
              e->name, e->msg, msg);
    if (!c.null_outcome)
      cr_expect(sync == st && strcmp(sync_msg, msg) == 0,
                "%s: clg_run says otherwise: %s: %s", e->name,
                clg_status_string(sync), sync_msg);
    cr_expect(oc == oc_sentinel, "%s: *outcome was written", e->name);
    cr_expect(ev == ev_sentinel, "%s: *event was written", e->name);
    cr_expect(kernels == 0 && validations() == v0,
              "%s: %lu kernel(s) enqueued on error", e->name, kernels);
    tu_cl_check(clFinish(clg_context_queue(tu_ctx())), "clFinish");
    cr_expect(tu_tensor_all_sentinel(&o), "%s: the output was written",
              e->name);
    const unsigned char *h = (const unsigned char *)g_host_out;
    for (size_t b = 0; b < sizeof g_host_out; ++b)
      if (h[b] != TU_SENTINEL) {
        cr_expect(false, "%s: the host output was written", e->name);
        break;
      }
  }
  /* clg_outcome_wait(NULL), clg_outcome_release(NULL). */
  cr_expect(clg_outcome_wait(NULL) == CLG_ERROR_NULL_ARGUMENT &&
                tu_contains(clg_last_error(), "outcome is NULL"),
            "clg_outcome_wait(NULL): %s", clg_last_error());
  clg_outcome_release(NULL);
  clReleaseMemObject(small);
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o);
}

/* ------------------------------------------- the validation counter */

/* device_validations counts the validation kernels enqueued: one per
 * asynchronous cl_mem RAISE call with indices (whatever their size), none
 * for host indices, modes WRAP / CLIP, no indices, or an error of the call;
 * the synchronous clg_run() on small cl_mem indices and a cl_mem output
 * gates its kernels on one too (GATED_READ); with a host output it reads
 * them back. */
Test(outcome, validation_counter) {
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  static const int64_t ds[2] = {5, 3}, is[2] = {2, 3}, os[3] = {2, 3, 3};
  static const int64_t is0[1] = {0}, os0[2] = {0, 3};
  static const int64_t idx[6] = {0, 4, -5, 2, -1, 3};
  float data[15] = {0};
  tu_tensor d, x, x0, o, o0;
  tu_tensor_init(&d, CLG_DTYPE_FLOAT, 2, ds, buf_at(0), data);
  tu_tensor_init(&x, I64, 2, is, buf_at(0), idx);
  tu_tensor_init(&x0, I64, 1, is0, buf_at(0), NULL);
  tu_tensor_init(&o, CLG_DTYPE_FLOAT, 3, os, buf_at(0), NULL);
  tu_tensor_init(&o0, CLG_DTYPE_FLOAT, 2, os0, buf_at(0), NULL);
  clg_tensor xh = clg_tensor_host(I64, 2, is, (void *)idx);
  float host_out[18];
  clg_tensor oh = clg_tensor_host(CLG_DTYPE_FLOAT, 3, os, host_out);
  struct {
    const char *name;
    clg_params p;
    const clg_tensor *x, *o;
    bool async;
    clg_status want;
    unsigned vals;
  } steps[] = {
      {"async RAISE cl_mem", G(0, 0), &x.desc, &o.desc, true, CLG_SUCCESS, 1},
      {"async RAISE cl_mem again", G(0, 0), &x.desc, &o.desc, true, CLG_SUCCESS,
       1},
      {"async RAISE host indices", G(0, 0), &xh, &o.desc, true, CLG_SUCCESS, 0},
      {"async WRAP cl_mem", GM(0, CLG_MODE_WRAP), &x.desc, &o.desc, true,
       CLG_SUCCESS, 0},
      {"async CLIP cl_mem", GM(0, CLG_MODE_CLIP), &x.desc, &o.desc, true,
       CLG_SUCCESS, 0},
      {"async RAISE no indices", G(0, 0), &x0.desc, &o0.desc, true, CLG_SUCCESS,
       0},
      {"async RAISE shape error", G(0, 0), &x.desc, &o0.desc, true,
       CLG_ERROR_SHAPE_MISMATCH, 0},
      {"sync RAISE small cl_mem (gated, read after)", G(0, 0), &x.desc,
       &o.desc, false, CLG_SUCCESS, 1},
      {"sync RAISE small cl_mem, host output (read back)", G(0, 0), &x.desc,
       &oh, false, CLG_SUCCESS, 0},
  };
  for (size_t n = 0; n < sizeof steps / sizeof steps[0]; ++n) {
    unsigned v0 = validations();
    clg_outcome *oc = NULL;
    cl_event ev = NULL;
    clg_status st =
        steps[n].async
            ? clg_run_async(tu_ctx(), &steps[n].p, &d.desc, steps[n].x,
                            steps[n].o, NULL, 0, NULL, &ev, &oc)
            : clg_run(tu_ctx(), &steps[n].p, &d.desc, steps[n].x, steps[n].o,
                      NULL, 0, NULL, &ev);
    unsigned got = validations() - v0;
    cr_expect(st == steps[n].want, "%s: %s: %s", steps[n].name,
              clg_status_string(st), clg_last_error());
    cr_expect(got == steps[n].vals, "%s: the counter moved by %u, want %u",
              steps[n].name, got, steps[n].vals);
    if (oc) {
      cr_expect(clg_outcome_wait(oc) == CLG_SUCCESS, "%s: %s", steps[n].name,
                clg_last_error());
      clg_outcome_release(oc);
    }
    if (ev) {
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
    }
  }
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&x0);
  tu_tensor_free(&o);
  tu_tensor_free(&o0);
}
