/*
 * clg_run_async() on valid inputs (test_outcome; the out-of-bounds verdicts
 * are in test_outcome.c, which lists the other files; shared helpers in
 * outcome_fx.h): the output equals the reference byte for byte, for each
 * operator and every storage mix (all cl_mem, host output, host data, host
 * indices: decided at once), modes WRAP and CLIP (no verdict), no indices,
 * an empty output.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "run/outcome_fx.h"

/* ------------------------------------------------------ valid inputs */

/* clang-format off */
static const ocase g_ok[] = {
    {"Gather axis 0", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {2, 3}, I64, 0,
     {{0}}, {NULL}},
    {"Gather axis 1, int32, double", G(1, 0), CLG_DTYPE_DOUBLE, 3, {3, 7, 2},
     2, {4, 5}, I32, 0, {{0}}, {NULL}},
    {"Gather axis -1, bfloat16, valid edges", G(-1, 0), CLG_DTYPE_BFLOAT16, 2,
     {6, 9}, 1, {4}, I64, 4, {{0, -9}, {1, 8}, {2, 0}, {3, -1}}, {NULL}},
    {"Gather scalar index", G(0, 0), CLG_DTYPE_INT32, 2, {5, 3}, 0, {0}, I64,
     0, {{0}}, {NULL}},
    {"Gather batch_dims 1 axis 2, complex128", G(2, 1), CLG_DTYPE_COMPLEX128,
     3, {3, 2, 5}, 2, {3, 4}, I64, 0, {{0}}, {NULL}},
    {"Gather big, int32 (many work-groups)", G(0, 0), CLG_DTYPE_UINT16, 2,
     {300, 3}, 1, {120000}, I32, 0, {{0}}, {NULL}},
    {"GatherElements axis 1", GE(1), CLG_DTYPE_FLOAT, 2, {4, 6}, 2, {3, 5},
     I64, 0, {{0}}, {NULL}},
    {"GatherElements axis 0, int32, int8", GE(0), CLG_DTYPE_INT8, 3,
     {5, 4, 3}, 3, {7, 4, 2}, I32, 0, {{0}}, {NULL}},
    {"GatherND m 2", ND(0), CLG_DTYPE_FLOAT, 3, {4, 5, 3}, 2, {6, 2}, I64, 0,
     {{0}}, {NULL}},
    {"GatherND m 1, batch_dims 1, int32", ND(1), CLG_DTYPE_UINT64, 3,
     {3, 4, 2}, 3, {3, 5, 1}, I32, 0, {{0}}, {NULL}},
    {"GatherND m 3 full tuples, big", ND(0), CLG_DTYPE_UINT8, 3, {7, 8, 9}, 2,
     {40000, 3}, I64, 0, {{0}}, {NULL}},
};
/* clang-format on */
#define NOK (sizeof g_ok / sizeof g_ok[0])

/* A valid case in a variant: CLG_SUCCESS from the call and from the
 * outcome (twice), the event completes, the reference output byte for byte,
 * nothing around it written, and the validation kernels counted. */
static void check_ok_variant(const ocase *k, const oinputs *in,
                             const unsigned char *want, const ovariant *v) {
  if (v->queue == 2 && !ooo_queue())
    return;
  oresult r;
  run_async_case(k, in, v, &r);
  /* A validation kernel for cl_mem indices in mode RAISE with a cl_mem
   * output; with a host output the call checks them as clg_run() does
   * (read back, or by the kernel from 32 KiB: not counted here). */
  bool values = v->xbuf && k->p.mode == CLG_MODE_RAISE && in->count > 0;
  bool device = values && v->obuf;
  cr_expect(r.call == CLG_SUCCESS && r.call_msg[0] == '\0',
            "%s [%s]: the call returned %s: %s", k->name, v->name,
            clg_status_string(r.call), r.call_msg);
  cr_expect(r.got_outcome, "%s [%s]: no outcome", k->name, v->name);
  cr_expect(r.got_event == v->event, "%s [%s]: event %s", k->name, v->name,
            r.got_event ? "returned though not asked for" : "missing");
  if (v->event)
    cr_expect(r.event_complete, "%s [%s]: the event did not complete", k->name,
              v->name);
  cr_expect(r.wait == CLG_SUCCESS && r.wait_msg[0] == '\0',
            "%s [%s]: clg_outcome_wait returned %s: %s", k->name, v->name,
            clg_status_string(r.wait), r.wait_msg);
  cr_expect(r.wait2 == CLG_SUCCESS && r.wait2_msg[0] == '\0',
            "%s [%s]: a second wait returned %s: %s", k->name, v->name,
            clg_status_string(r.wait2), r.wait2_msg);
  if (device || !values)
    cr_expect(r.validations == (device ? 1u : 0u),
              "%s [%s]: %u validation kernels, want %u", k->name, v->name,
              r.validations, device ? 1u : 0u);
  ptrdiff_t diff = tu_first_diff(r.out, want, in->obytes);
  cr_expect(diff < 0,
            "%s [%s]: the output differs from the reference at "
            "byte %td of %zu",
            k->name, v->name, diff, in->obytes);
  cr_expect(r.guards_ok, "%s [%s]: bytes around the output were written",
            k->name, v->name);
  free(r.out);
}

static void run_ok_case(const ocase *k, uint64_t seed, const ovariant *variants,
                        size_t nvariants) {
  oinputs in;
  inputs_make(k, seed, &in);
  unsigned char *want = malloc(in.obytes + 1);
  cr_assert(want != NULL);
  cr_assert(ref_run(k, in.data, in.idx, want) == 0,
            "test bug: %s: the reference rejects the case", k->name);
  for (size_t n = 0; n < nvariants; ++n)
    check_ok_variant(k, &in, want, &variants[n]);
  free(want);
  inputs_free(&in);
}

/* Host indices: the verdict is decided by the call; the other storage
 * mixes of the asynchronous call. */
static const ovariant g_host_variants[] = {
    {"host indices, cl_mem data and output, event", true, false, true, 4, 0, 12,
     0, true},
    {"host data, indices and output", false, false, false, 0, 0, 0, 1, false},
    {"host indices and output, cl_mem data, out-of-order queue", true, false,
     false, 0, 0, 0, 2, true},
};

Test(outcome, valid_inputs_match_the_reference) {
  for (size_t n = 0; n < NOK; ++n) {
    run_ok_case(&g_ok[n], 0x600Du + n, g_variants, NVARIANTS);
    run_ok_case(&g_ok[n], 0x600Du + n, g_host_variants,
                sizeof g_host_variants / sizeof g_host_variants[0]);
  }
}

/* Modes WRAP and CLIP read no value: no verdict, no validation kernel, the
 * outcome decided; indices far out of range map as numpy's take does. */
Test(outcome, wrap_and_clip_have_no_verdict) {
  static const ocase cases[] = {
      {"Gather WRAP axis 0",
       GM(0, CLG_MODE_WRAP),
       CLG_DTYPE_FLOAT,
       2,
       {5, 3},
       2,
       {3, 4},
       I64,
       2,
       {{0, INT64_MIN}, {1, INT64_MAX}},
       {NULL}},
      {"Gather CLIP axis 1, int32",
       GM(1, CLG_MODE_CLIP),
       CLG_DTYPE_INT16,
       2,
       {4, 7},
       1,
       {9},
       I32,
       2,
       {{0, INT32_MIN}, {8, INT32_MAX}},
       {NULL}},
      {"Gather WRAP big",
       GM(0, CLG_MODE_WRAP),
       CLG_DTYPE_UINT8,
       2,
       {13, 2},
       1,
       {70000},
       I32,
       0,
       {{0}},
       {NULL}},
  };
  for (size_t n = 0; n < sizeof cases / sizeof cases[0]; ++n) {
    run_ok_case(&cases[n], 0x3A90u + n, g_variants, NVARIANTS);
    run_ok_case(&cases[n], 0x3A90u + n, g_host_variants, 1);
  }

  /* Decided at once: the outcome is SUCCESS while the wait list (and so the
   * gather) is still pending behind a user event. */
  const ocase *k = &cases[0];
  oinputs in;
  inputs_make(k, 0x3A90u, &in);
  tu_tensor d, x, o;
  tu_tensor_init(&d, k->dt, k->r, k->ds, buf_at(0), in.data);
  tu_tensor_init(&x, k->idt, k->q, k->is, buf_at(0), in.idx);
  tu_tensor_init(&o, k->dt, in.orank, in.os, buf_at(0), NULL);
  cl_event u = user_event(), ev = NULL;
  watchdog w;
  watchdog_start(&w, u, 5000);
  clg_outcome *oc = NULL;
  clg_status st = clg_run_async(tu_ctx(), &k->p, &d.desc, &x.desc, &o.desc,
                                inorder_queue(), 1, &u, &ev, &oc);
  cr_expect(st == CLG_SUCCESS, "WRAP, pending wait list: %s", clg_last_error());
  clg_status ws = oc ? clg_outcome_wait(oc) : CLG_ERROR_NULL_ARGUMENT;
  bool fired = watchdog_fired(&w);
  cr_expect(ws == CLG_SUCCESS && !fired,
            "WRAP: the decided outcome waited for the wait list (%s, %s)",
            clg_status_string(ws), fired ? "the watchdog fired" : "");
  cr_expect(ev && event_status(ev) != CL_COMPLETE,
            "WRAP: the gather completed before its wait list");
  watchdog_release(&w);
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  unsigned char *want = malloc(in.obytes), *got = malloc(in.obytes);
  cr_assert(want && got && ref_run(k, in.data, in.idx, want) == 0);
  tu_tensor_read(&o, got);
  cr_expect(memcmp(got, want, in.obytes) == 0, "WRAP: wrong output");
  free(want);
  free(got);
  clg_outcome_release(oc);
  clReleaseEvent(u);
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o);
  inputs_free(&in);
}

/* No indices, or no output: nothing to gather. */
Test(outcome, empty_indices_and_empty_output) {
  static const ocase cases[] = {
      {"no indices [0]",
       G(0, 0),
       CLG_DTYPE_FLOAT,
       2,
       {5, 3},
       1,
       {0},
       I64,
       0,
       {{0}},
       {NULL}},
      {"no indices [2, 0], axis 1",
       G(1, 0),
       CLG_DTYPE_FLOAT,
       2,
       {5, 3},
       2,
       {2, 0},
       I32,
       0,
       {{0}},
       {NULL}},
      {"GatherND indices [0, 2]",
       ND(0),
       CLG_DTYPE_FLOAT,
       2,
       {5, 3},
       2,
       {0, 2},
       I64,
       0,
       {{0}},
       {NULL}},
      {"GatherElements indices [0, 3]",
       GE(0),
       CLG_DTYPE_FLOAT,
       2,
       {5, 3},
       2,
       {0, 3},
       I64,
       0,
       {{0}},
       {NULL}},
      /* Indices to check, but nothing to write: the verdict still decides. */
      {"empty output (data [5, 0]), valid indices",
       G(0, 0),
       CLG_DTYPE_FLOAT,
       2,
       {5, 0},
       2,
       {2, 3},
       I64,
       0,
       {{0}},
       {NULL}},
      {"empty output, GatherND data [4, 3, 0]",
       ND(0),
       CLG_DTYPE_FLOAT,
       3,
       {4, 3, 0},
       2,
       {5, 2},
       I32,
       0,
       {{0}},
       {NULL}},
  };
  for (size_t n = 0; n < sizeof cases / sizeof cases[0]; ++n) {
    run_ok_case(&cases[n], 0xE3u + n, g_variants, NVARIANTS);
    run_ok_case(&cases[n], 0xE3u + n, g_host_variants, 1);
  }
}
