/*
 * clg_run_sharded()'s errors (test_shard; run/test_shard.c says what the
 * suite covers and where each part is): an out-of-bounds index gives the
 * status and message of clg_run(), the output untouched, no event; the
 * checks of the contexts and queues; the call's own errors as clg_run()
 * reports them.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/shard_fx.h"

/* ------------------------------------------------------------- errors */

/* The calling thread's message, copied. */
static void last_error(char *buf, size_t cap) {
  snprintf(buf, cap, "%s", clg_last_error());
}

/* An out-of-bounds index: the status and message of clg_run(), the output
 * untouched, no event. Host indices, small cl_mem indices (read back) and
 * large ones (>= 32 KiB: checked on the device); the offender sits in the
 * second device's part. */
Test(shard, out_of_bounds) {
  static const struct {
    sh_case c;
    int64_t pos, value; /* pos < 0: all indices 0 */
  } cases[] = {
      {{G(0, 0, RAISE), 2, 1, {5, 3}, {7}}, 5, 9},
      {{G(1, 1, RAISE), 3, 2, {7, 5, 3}, {7, 4}}, 27, -6},
      {{G(1, 0, RAISE), 2, 1, {7, 5}, {3}}, 1, 5},
      {{E(1), 2, 2, {7, 5}, {7, 3}}, 20, 5},
      {{E(0), 2, 2, {5, 4}, {7, 3}}, 19, -6},
      {{N(1), 3, 3, {7, 5, 3}, {7, 2, 1}}, 13, 5},
      {{N(0), 3, 2, {5, 4, 3}, {7, 2}}, 11, 4},
      {{G(0, 0, RAISE), 2, 1, {5, 3}, {10000}}, 9000, -6},
      {{G(0, 0, CLG_MODE_WRAP), 2, 1, {0, 3}, {4}}, -1, 0},
  };
  int count = 0;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    for (int buf = 0; buf < 2; ++buf) {
      const sh_case *c = &cases[k].c;
      sh_how h = {0};
      h.dtype = CLG_DTYPE_FLOAT;
      h.idt = buf ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
      h.buf[0] = h.buf[1] = h.buf[2] = buf;
      h.off[1] = buf ? 8 : 0;
      char desc[512];
      case_str(c, &h, desc, sizeof desc);
      int32_t orank;
      int64_t oshape[CLG_MAX_RANK];
      cr_assert(clg_output_shape(&c->p, c->r, c->d, c->q, c->i, &orank,
                                 oshape) == CLG_SUCCESS);
      int64_t dn = tu_numel(c->r, c->d), in = tu_numel(c->q, c->i);
      float *data = calloc((size_t)dn + 1, sizeof *data);
      int64_t *idx = calloc((size_t)in + 1, 8);
      cr_assert(data && idx, "out of host memory");
      tu_rng rng = tu_rng_make(500 + k);
      if (cases[k].pos >= 0) {
        fill_indices(c, h.idt, &rng, idx, in);
        tu_set_index(idx, h.idt, cases[k].pos, cases[k].value);
      }
      sh_tensor td, ti, one, sharded;
      sh_init(&td, h.dtype, c->r, c->d, buf, 0, data);
      sh_init(&ti, h.idt, c->q, c->i, buf, h.off[1], idx);
      sh_init(&one, h.dtype, orank, oshape, buf, 0, NULL);
      sh_init(&sharded, h.dtype, orank, oshape, buf, 0, NULL);

      cl_event ev = NULL;
      clg_status want = clg_run(g_ctx[0], &c->p, &td.desc, &ti.desc, &one.desc,
                                NULL, 0, NULL, &ev);
      char want_msg[1024], got_msg[1024], why[256];
      last_error(want_msg, sizeof want_msg);
      cr_assert(want == CLG_ERROR_INDEX_OUT_OF_BOUNDS && ev == NULL,
                "%s: clg_run: %s", desc, want_msg);
      clg_status got = clg_run_sharded(g_ctx, 2, &c->p, &td.desc, &ti.desc,
                                       &sharded.desc, NULL, 0, NULL, &ev);
      last_error(got_msg, sizeof got_msg);
      cr_expect(got == want, "%s: got %s, want %s", desc,
                clg_status_string(got), clg_status_string(want));
      cr_expect(strcmp(got_msg, want_msg) == 0,
                "%s: message \"%s\", clg_run's \"%s\"", desc, got_msg,
                want_msg);
      cr_expect(ev == NULL, "%s: an event after an error", desc);
      for (int q = 0; q < 2; ++q)
        tu_cl_check(clFinish(clg_context_queue(g_ctx[q])), "clFinish");
      cr_expect(sh_holds(&sharded, NULL, why, sizeof why),
                "%s: output written after an error: %s", desc, why);
      sh_free(&td);
      sh_free(&ti);
      sh_free(&one);
      sh_free(&sharded);
      free(data);
      free(idx);
      ++count;
    }
  cr_log_info("out_of_bounds: %d cases", count);
}

/* A small valid call for the argument checks: all in cl_mem, the output
 * sentinel. */
typedef struct small_call {
  sh_tensor d, x, o;
  clg_params p;
} small_call;

static void small_init(small_call *s) {
  static const int64_t dshape[2] = {5, 3}, ishape[1] = {7}, oshape[2] = {7, 3};
  static const int32_t idx[7] = {0, 4, -1, 2, -5, 3, 1};
  float data[15];
  for (int k = 0; k < 15; ++k)
    data[k] = (float)k;
  sh_init(&s->d, CLG_DTYPE_FLOAT, 2, dshape, true, 4, data);
  sh_init(&s->x, CLG_DTYPE_INT32, 1, ishape, true, 0, idx);
  sh_init(&s->o, CLG_DTYPE_FLOAT, 2, oshape, true, 12, NULL);
  s->p = (clg_params){CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
}

static void small_free(small_call *s) {
  sh_free(&s->d);
  sh_free(&s->x);
  sh_free(&s->o);
}

/* Expect the sharded call to fail with `want` and a message containing
 * `needle`, the output untouched and no event. */
static void expect_fail(small_call *s, clg_context *const *ctxs, cl_uint n,
                        const cl_command_queue *queues, clg_status want,
                        const char *needle, const char *what) {
  cl_event ev = NULL;
  clg_status st = clg_run_sharded(ctxs, n, &s->p, &s->d.desc, &s->x.desc,
                                  &s->o.desc, queues, 0, NULL, &ev);
  char why[256];
  cr_expect(st == want, "%s: got %s (%s), want %s", what, clg_status_string(st),
            clg_last_error(), clg_status_string(want));
  cr_expect(tu_contains(clg_last_error(), needle),
            "%s: message \"%s\" lacks \"%s\"", what, clg_last_error(), needle);
  cr_expect(ev == NULL, "%s: an event after an error", what);
  cr_expect(sh_holds(&s->o, NULL, why, sizeof why), "%s: output written: %s",
            what, why);
}

Test(shard, bad_contexts_and_queues) {
  small_call s;
  small_init(&s);
  clg_context *same[2] = {g_ctx[0], g_ctx[0]};
  clg_context *with_null[2] = {g_ctx[0], NULL};
  clg_context *twin = NULL; /* another clg_context on device 0 */
  cr_assert(clg_context_create(g_cl, g_dev[0], &twin) == CLG_SUCCESS);
  clg_context *twins[2] = {g_ctx[0], twin};
  cl_int err = CL_SUCCESS;
  cl_context other_cl = clCreateContext(NULL, 1, &g_dev[1], NULL, NULL, &err);
  tu_cl_check(err, "clCreateContext (second)");
  clg_context *other = NULL;
  cr_assert(clg_context_create(other_cl, g_dev[1], &other) == CLG_SUCCESS);
  clg_context *mixed[2] = {g_ctx[0], other};

  expect_fail(&s, NULL, 2, NULL, CLG_ERROR_NULL_ARGUMENT, "ctxs", "ctxs NULL");
  expect_fail(&s, with_null, 2, NULL, CLG_ERROR_NULL_ARGUMENT, "ctxs[1]",
              "ctxs[1] NULL");
  expect_fail(&s, g_ctx, 0, NULL, CLG_ERROR_INVALID_ARGUMENT, "num_ctxs",
              "num_ctxs 0");
  expect_fail(&s, same, 2, NULL, CLG_ERROR_INVALID_ARGUMENT, "same device",
              "one context twice");
  expect_fail(&s, twins, 2, NULL, CLG_ERROR_INVALID_ARGUMENT, "same device",
              "two contexts on one device");
  expect_fail(&s, mixed, 2, NULL, CLG_ERROR_INVALID_ARGUMENT, "cl_context",
              "two cl_contexts");

  cl_command_queue q0 = new_queue(g_cl, g_dev[0]);
  cl_command_queue q1 = new_queue(g_cl, g_dev[1]);
  cl_command_queue q_other = new_queue(other_cl, g_dev[1]);
  cl_command_queue swapped[2] = {q1, q0}, both0[2] = {q0, q0},
                   foreign[2] = {q0, q_other};
  /* queues[0] is checked as clg_run() checks its queue: same message. */
  clg_status want = clg_run(g_ctx[0], &s.p, &s.d.desc, &s.x.desc, &s.o.desc, q1,
                            0, NULL, NULL);
  char want_msg[512];
  last_error(want_msg, sizeof want_msg);
  cr_assert(want == CLG_ERROR_INVALID_ARGUMENT, "%s", want_msg);
  expect_fail(&s, g_ctx, 2, swapped, want, want_msg, "queues swapped");
  expect_fail(&s, g_ctx, 2, both0, CLG_ERROR_INVALID_ARGUMENT, "queues[1]",
              "queues[1] of device 0");
  expect_fail(&s, g_ctx, 2, foreign, CLG_ERROR_INVALID_ARGUMENT, "queues[1]",
              "queues[1] of another cl_context");

  /* The right queues work. */
  cl_command_queue right[2] = {q0, q1};
  cl_event ev = NULL;
  cr_expect(clg_run_sharded(g_ctx, 2, &s.p, &s.d.desc, &s.x.desc, &s.o.desc,
                            right, 0, NULL, &ev) == CLG_SUCCESS,
            "%s", clg_last_error());
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  clReleaseCommandQueue(q0);
  clReleaseCommandQueue(q1);
  clReleaseCommandQueue(q_other);
  clg_context_destroy(other);
  clg_context_destroy(twin);
  clReleaseContext(other_cl);
  small_free(&s);
}

/* The call's own errors: clg_run()'s status and message, on ctxs[0]. */
Test(shard, call_errors_as_clg_run) {
  small_call s;
  small_init(&s);
  clg_tensor bad_shape = s.o.desc;
  bad_shape.shape[0] = 6;
  clg_tensor bad_type = s.o.desc;
  bad_type.dtype = CLG_DTYPE_INT32;
  clg_tensor aliased = s.o.desc; /* the output over data's buffer */
  aliased.buffer = s.d.buf;
  aliased.offset = 0;
  clg_params bad_axis = {CLG_OP_GATHER, 2, 0, CLG_MODE_RAISE};
  clg_params bad_op = {(clg_op)42, 0, 0, CLG_MODE_RAISE};
  clg_params nd_mode = {CLG_OP_GATHER_ND, 0, 0, CLG_MODE_WRAP};
  cl_event user = NULL;
  const struct {
    const char *what;
    const clg_params *p;
    const clg_tensor *d, *x, *o;
    cl_uint nev;
    const cl_event *wl;
  } calls[] = {
      {"data NULL", &s.p, NULL, &s.x.desc, &s.o.desc, 0, NULL},
      {"indices NULL", &s.p, &s.d.desc, NULL, &s.o.desc, 0, NULL},
      {"output NULL", &s.p, &s.d.desc, &s.x.desc, NULL, 0, NULL},
      {"output shape", &s.p, &s.d.desc, &s.x.desc, &bad_shape, 0, NULL},
      {"output type", &s.p, &s.d.desc, &s.x.desc, &bad_type, 0, NULL},
      {"output aliases data", &s.p, &s.d.desc, &s.x.desc, &aliased, 0, NULL},
      {"axis", &bad_axis, &s.d.desc, &s.x.desc, &s.o.desc, 0, NULL},
      {"op", &bad_op, &s.d.desc, &s.x.desc, &s.o.desc, 0, NULL},
      {"GatherND mode", &nd_mode, &s.d.desc, &s.x.desc, &s.o.desc, 0, NULL},
      {"wait list NULL", &s.p, &s.d.desc, &s.x.desc, &s.o.desc, 1, NULL},
      {"wait list entry NULL", &s.p, &s.d.desc, &s.x.desc, &s.o.desc, 1, &user},
  };
  for (size_t k = 0; k < sizeof calls / sizeof calls[0]; ++k) {
    clg_status want =
        clg_run(g_ctx[0], calls[k].p, calls[k].d, calls[k].x, calls[k].o, NULL,
                calls[k].nev, calls[k].wl, NULL);
    char want_msg[1024], why[256];
    last_error(want_msg, sizeof want_msg);
    cr_assert(want != CLG_SUCCESS, "%s: clg_run succeeded", calls[k].what);
    cl_event ev = NULL;
    clg_status got =
        clg_run_sharded(g_ctx, 2, calls[k].p, calls[k].d, calls[k].x,
                        calls[k].o, NULL, calls[k].nev, calls[k].wl, &ev);
    cr_expect(got == want && strcmp(clg_last_error(), want_msg) == 0,
              "%s: got %s \"%s\", clg_run %s \"%s\"", calls[k].what,
              clg_status_string(got), clg_last_error(), clg_status_string(want),
              want_msg);
    cr_expect(ev == NULL, "%s: an event after an error", calls[k].what);
    cr_expect(sh_holds(&s.o, NULL, why, sizeof why), "%s: output written: %s",
              calls[k].what, why);
  }
  small_free(&s);
}
