/*
 * The asynchronous checked mode: clg_run_async(), clg_outcome_wait(),
 * clg_outcome_release() (include/clgather/clgather.h). This file: the
 * out-of-bounds verdicts. The rest of test_outcome (one binary):
 * test_outcome_valid.c (valid inputs, WRAP / CLIP, empty calls),
 * test_outcome_events.c (wait lists, later commands, pipelines),
 * test_outcome_lifecycle.c (outcomes themselves), test_outcome_errors.c
 * (errors of the call, the validation counter); shared helpers in
 * outcome_fx.h / outcome_fx.c.
 *
 * What is checked, against a plain-C reference (tools/reference/reference.c)
 * and against the synchronous clg_run() on host indices (its status and
 * message are the yardstick for every verdict):
 *  - every out-of-bounds case of the bad-input catalogue (tests/
 *    test_catalogue.c: Gather on axes 0 and -1, scalar indices, an empty
 *    axis; GatherElements; GatherND with and without batch_dims), plus
 *    Gather with batch_dims, an empty output and arrays of 100k+ indices
 *    spanning many validation work-groups (the first, a middle, the last
 *    offender, several offenders, group boundaries), int32 and int64 with
 *    their extremes, indices at buffer offsets: with cl_mem indices and a
 *    cl_mem output the call returns CLG_SUCCESS and an event that
 *    completes, clg_outcome_wait() returns CLG_ERROR_INDEX_OUT_OF_BOUNDS
 *    with exactly clg_run()'s message (twice), and the output (and the
 *    bytes around it) is untouched; with a host output (the call blocks
 *    anyway) the call itself fails as clg_run() does, also for a host
 *    output at an address the library cannot wrap in place.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/outcome_fx.h"

/* --------------------------------------- out-of-bounds: the verdicts */

#define SHAPE23 "in indices of shape [2, 3]"
#define RANGE5 "valid range is [-5, 4]"

/* The index-value entries of the bad-input catalogue (tests/
 * test_catalogue.c; base: data [5, 3], indices [2, 3], axis 0; GatherND
 * base: indices [3, 2]), and more: Gather with batch_dims, an empty output,
 * arrays spanning many validation work-groups. */
/* clang-format off */
static const ocase g_oob[] = {
    /* Gather, axis 0, s = 5 */
    {"OOB first position, positive (s)", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3},
     2, {2, 3}, I64, 1, {{0, 5}},
     {"indices[0] (position [0, 0] " SHAPE23 ") = 5", RANGE5}},
    {"OOB first position, negative (-s-1)", G(0, 0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {2, 3}, I64, 1, {{0, -6}},
     {"indices[0] (position [0, 0] " SHAPE23 ") = -6", RANGE5}},
    {"OOB middle position, positive", G(0, 0), CLG_DTYPE_UINT8, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{2, 5}},
     {"indices[2] (position [0, 2] " SHAPE23 ") = 5", RANGE5}},
    {"OOB middle position, negative", G(0, 0), CLG_DTYPE_INT16, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{3, -6}},
     {"indices[3] (position [1, 0] " SHAPE23 ") = -6", RANGE5}},
    {"OOB last position, positive", G(0, 0), CLG_DTYPE_DOUBLE, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{5, 5}},
     {"indices[5] (position [1, 2] " SHAPE23 ") = 5", RANGE5}},
    {"OOB last position, negative", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{5, -6}},
     {"indices[5] (position [1, 2] " SHAPE23 ") = -6", RANGE5}},
    {"OOB INT64_MIN", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {2, 3}, I64, 1,
     {{4, INT64_MIN}}, {"indices[4]", "= -9223372036854775808", RANGE5}},
    {"OOB INT64_MAX", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {2, 3}, I64, 1,
     {{1, INT64_MAX}}, {"indices[1]", "= 9223372036854775807", RANGE5}},
    {"OOB INT32_MIN (int32 indices)", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I32, 1, {{2, INT32_MIN}},
     {"indices[2]", "= -2147483648", RANGE5}},
    {"OOB INT32_MAX (int32 indices)", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I32, 1, {{5, INT32_MAX}}, {"indices[5]", "= 2147483647", RANGE5}},
    {"OOB int32 first position, -s-1", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I32, 1, {{0, -6}}, {"indices[0]", "= -6", RANGE5}},
    {"OOB int32 last position, s", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I32, 1, {{5, 5}}, {"indices[5]", "= 5", RANGE5}},
    {"OOB several: the first is named", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I64, 2, {{3, 1000}, {1, -1000}},
     {"indices[1]", "= -1000", RANGE5}},
    {"OOB scalar index (indices rank 0)", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3},
     0, {0}, I64, 1, {{0, 5}},
     {"indices[0] (position [] in indices of shape []) = 5", RANGE5}},
    {"OOB on axis -1 (s = 3)", G(-1, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {2, 3},
     I64, 1, {{2, 3}},
     {"indices[2]", "= 3, but axis 1 of data has size 3",
      "valid range is [-3, 2]"}},
    {"s == 0 with non-empty indices (axis 0)", G(0, 0), CLG_DTYPE_FLOAT, 2,
     {0, 3}, 2, {2, 3}, I64, 0, {{0}},
     {"indices[0]", "= 0, but axis 0 of data has size 0", "no index is valid"}},
    {"s == 0 with non-empty indices (axis 1, index -1)", G(1, 0),
     CLG_DTYPE_FLOAT, 2, {5, 0}, 2, {2, 3}, I64, 1, {{0, -1}},
     {"indices[0]", "= -1, but axis 1 of data has size 0"}},
    /* Gather with batch_dims (not in the catalogue) */
    {"Gather batch_dims 1, axis 1", G(1, 1), CLG_DTYPE_FLOAT, 3, {2, 4, 3}, 2,
     {2, 3}, I64, 1, {{4, 4}},
     {"indices[4] (position [1, 1] " SHAPE23 ") = 4",
      "axis 1 of data has size 4", "valid range is [-4, 3]"}},
    {"Gather batch_dims -1 (= 1), axis 2, int32", G(2, -1), CLG_DTYPE_UINT16,
     3, {2, 3, 6}, 2, {2, 5}, I32, 1, {{7, -7}},
     {"indices[7] (position [1, 2] in indices of shape [2, 5]) = -7",
      "axis 2 of data has size 6"}},
    /* An empty output (data [5, 0], axis 0), bad index: still an error */
    {"empty output, OOB value", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 0}, 2, {2, 3},
     I64, 1, {{4, -6}}, {"indices[4]", "= -6", RANGE5}},
    /* GatherElements (base: axis 0, output [2, 3]) */
    {"GatherElements: OOB first position (s)", GE(0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {2, 3}, I64, 1, {{0, 5}},
     {"indices[0] (position [0, 0] " SHAPE23 ") = 5",
      "but axis 0 of data has size 5", RANGE5}},
    {"GatherElements: OOB middle position (-s-1)", GE(0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {2, 3}, I64, 1, {{2, -6}},
     {"indices[2] (position [0, 2] " SHAPE23 ") = -6", RANGE5}},
    {"GatherElements: OOB last position", GE(0), CLG_DTYPE_INT8, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{5, 5}},
     {"indices[5] (position [1, 2] " SHAPE23 ") = 5", RANGE5}},
    {"GatherElements: OOB INT64_MIN", GE(0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{3, INT64_MIN}},
     {"indices[3]", "= -9223372036854775808", RANGE5}},
    {"GatherElements: OOB INT64_MAX", GE(0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{4, INT64_MAX}},
     {"indices[4]", "= 9223372036854775807", RANGE5}},
    {"GatherElements: OOB INT32_MIN (int32 indices)", GE(0), CLG_DTYPE_FLOAT,
     2, {5, 3}, 2, {2, 3}, I32, 1, {{1, INT32_MIN}},
     {"indices[1]", "= -2147483648", RANGE5}},
    {"GatherElements: OOB several, the first is named", GE(0),
     CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {2, 3}, I64, 2, {{4, 99}, {2, -99}},
     {"indices[2]", "= -99"}},
    {"GatherElements: OOB on axis -1 (s = 3)", GE(-1), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {2, 3}, I64, 1, {{4, -4}},
     {"indices[4] (position [1, 1] " SHAPE23 ") = -4",
      "but axis 1 of data has size 3: valid range is [-3, 2]"}},
    {"GatherElements: s == 0 with non-empty indices", GE(1), CLG_DTYPE_FLOAT,
     2, {5, 0}, 2, {2, 3}, I64, 0, {{0}},
     {"indices[0] (position [0, 0] " SHAPE23 ") = 0",
      "axis 1 of data has size 0: no index is valid"}},
    /* GatherND (base: data [5, 3], indices [3, 2], output [3]) */
    {"GatherND: OOB first component (d)", ND(0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {3, 2}, I64, 1, {{2, 5}},
     {"index out of bounds: indices[2] (position [1, 0] in indices of shape "
      "[3, 2]) = 5, component 0 of the index tuple indexes axis 0 of data, "
      "of size 5: valid range is [-5, 4]"}},
    {"GatherND: OOB first component (-d-1)", ND(0), CLG_DTYPE_FLOAT, 2, {5, 3},
     2, {3, 2}, I64, 1, {{0, -6}},
     {"indices[0] (position [0, 0]", "= -6, component 0", RANGE5}},
    {"GatherND: OOB last component (d), last position", ND(0),
     CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {3, 2}, I64, 1, {{5, 3}},
     {"indices[5] (position [2, 1] in indices of shape [3, 2]) = 3, "
      "component 1 of the index tuple indexes axis 1 of data, of size 3: "
      "valid range is [-3, 2]"}},
    {"GatherND: OOB last component beyond -d", ND(0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {3, 2}, I64, 1, {{1, -4}},
     {"indices[1] (position [0, 1]", "= -4, component 1",
      "valid range is [-3, 2]"}},
    {"GatherND: OOB INT64_MIN", ND(0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {3, 2},
     I64, 1, {{3, INT64_MIN}},
     {"indices[3]", "= -9223372036854775808, component 1"}},
    {"GatherND: OOB INT64_MAX", ND(0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {3, 2},
     I64, 1, {{4, INT64_MAX}},
     {"indices[4]", "= 9223372036854775807, component 0"}},
    {"GatherND: OOB INT32_MIN (int32 indices)", ND(0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {3, 2}, I32, 1, {{2, INT32_MIN}},
     {"indices[2]", "= -2147483648, component 0", RANGE5}},
    {"GatherND: OOB int32 last component", ND(0), CLG_DTYPE_FLOAT, 2, {5, 3},
     2, {3, 2}, I32, 1, {{5, 3}}, {"indices[5]", "= 3, component 1"}},
    {"GatherND: OOB several, the first is named", ND(0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {3, 2}, I64, 2, {{3, 100}, {1, -100}},
     {"indices[1]", "= -100"}},
    {"GatherND: OOB with batch_dims 1 (component 0 is axis 1)", ND(1),
     CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {5, 1}, I64, 1, {{3, 3}},
     {"indices[3] (position [3, 0] in indices of shape [5, 1]) = 3, "
      "component 0 of the index tuple indexes axis 1 of data, of size 3: "
      "valid range is [-3, 2]"}},
    {"GatherND: a component into an axis of size 0", ND(0), CLG_DTYPE_FLOAT, 2,
     {5, 0}, 2, {3, 2}, I64, 1, {{1, 1}},
     {"indices[1] (position [0, 1]", "= 1, component 1",
      "axis 1 of data, of size 0: no index is valid"}},
    {"GatherND m 3, batch_dims 1, component 2", ND(1), CLG_DTYPE_UINT8, 4,
     {2, 4, 5, 6}, 3, {2, 3, 3}, I32, 1, {{14, -7}},
     {"indices[14] (position [1, 1, 2] in indices of shape [2, 3, 3]) = -7",
      "component 2 of the index tuple indexes axis 3 of data, of size 6"}},
    /* Many validation work-groups (100k+ indices) */
    {"big Gather int32, middle", G(0, 0), CLG_DTYPE_UINT8, 2, {1000, 2}, 1,
     {200000}, I32, 1, {{123457, 1000}},
     {"indices[123457] (position [123457] in indices of shape [200000]) = "
      "1000", "valid range is [-1000, 999]"}},
    {"big Gather int64, first", G(0, 0), CLG_DTYPE_UINT8, 1, {1000}, 1,
     {150000}, I64, 1, {{0, 1000}}, {"indices[0]", "= 1000"}},
    {"big Gather int64, last", G(0, 0), CLG_DTYPE_UINT8, 1, {1000}, 1,
     {100001}, I64, 1, {{-1, -1001}}, {"indices[100000]", "= -1001"}},
    {"big Gather int32, several across groups: the first", G(0, 0),
     CLG_DTYPE_UINT8, 1, {77}, 1, {300000}, I32, 3,
     {{290000, 99}, {40000, -78}, {150000, 78}},
     {"indices[40000]", "= -78", "valid range is [-77, 76]"}},
    {"big Gather int32, several in one group: the first", G(0, 0),
     CLG_DTYPE_UINT8, 1, {77}, 1, {300000}, I32, 3,
     {{20000, 99}, {16400, -78}, {16390, 78}}, {"indices[16390]", "= 78"}},
    {"big Gather int64 INT64_MIN, batch_dims 1", G(1, 1), CLG_DTYPE_UINT8, 2,
     {4, 9}, 2, {4, 30000}, I64, 2, {{100000, INT64_MIN}, {110000, 9}},
     {"indices[100000] (position [3, 10000] in indices of shape [4, 30000]) "
      "= -9223372036854775808", "valid range is [-9, 8]"}},
    {"big GatherElements int64, axis 0", GE(0), CLG_DTYPE_UINT8, 2, {50, 2400},
     2, {50, 2400}, I64, 1, {{119999, -51}},
     {"indices[119999] (position [49, 2399]", "= -51",
      "valid range is [-50, 49]"}},
    {"big GatherND m 3, component 0", ND(0), CLG_DTYPE_UINT8, 3, {7, 8, 9}, 2,
     {40000, 3}, I32, 2, {{90003, 7}, {100001, 8}},
     {"indices[90003] (position [30001, 0]", "= 7, component 0"}},
    {"big GatherND m 2, component 1, last", ND(0), CLG_DTYPE_UINT8, 2, {7, 8},
     2, {60000, 2}, I64, 1, {{-1, 8}},
     {"indices[119999] (position [59999, 1]", "= 8, component 1"}},
};
/* clang-format on */
#define NOOB (sizeof g_oob / sizeof g_oob[0])

/* One OOB case in one variant against the synchronous message. */
static void check_oob_variant(const ocase *k, const oinputs *in,
                              const ovariant *v, const char *sync_msg) {
  if (v->queue == 2 && !ooo_queue())
    return;
  oresult r;
  run_async_case(k, in, v, &r);
  const char *label = k->name;
  if (!v->obuf) {
    /* A host output: the call blocks anyway, and checks the values itself
     * (a deferred verdict would read back an unwritten staging buffer). */
    cr_expect(r.call == OOB && strcmp(r.call_msg, sync_msg) == 0,
              "%s [%s]: with a host output the call itself must fail as "
              "clg_run does: %s: \"%s\", want \"%s\"",
              label, v->name, clg_status_string(r.call), r.call_msg, sync_msg);
    cr_expect(!r.got_outcome && !r.got_event,
              "%s [%s]: an outcome or event was returned on error", label,
              v->name);
  } else {
    cr_expect(r.call == CLG_SUCCESS,
              "%s [%s]: clg_run_async returned %s: %s (the verdict belongs "
              "to the outcome)",
              label, v->name, clg_status_string(r.call), r.call_msg);
    cr_expect(r.call != CLG_SUCCESS || r.call_msg[0] == '\0',
              "%s [%s]: a message after success: %s", label, v->name,
              r.call_msg);
    cr_expect(r.got_outcome, "%s [%s]: no outcome", label, v->name);
    cr_expect(r.got_event == v->event, "%s [%s]: event %s", label, v->name,
              r.got_event ? "returned though not asked for" : "missing");
    if (v->event)
      cr_expect(r.event_complete, "%s [%s]: the call's event did not complete",
                label, v->name);
    cr_expect(r.validations == 1, "%s [%s]: %u validation kernels, want 1",
              label, v->name, r.validations);
    cr_expect(r.wait == OOB, "%s [%s]: clg_outcome_wait returned %s: %s", label,
              v->name, clg_status_string(r.wait), r.wait_msg);
    cr_expect(strcmp(r.wait_msg, sync_msg) == 0,
              "%s [%s]: the outcome's message differs from clg_run's:\n  "
              "async: %s\n  sync:  %s",
              label, v->name, r.wait_msg, sync_msg);
    cr_expect(r.wait2 == r.wait && strcmp(r.wait2_msg, r.wait_msg) == 0,
              "%s [%s]: a second wait differs: %s: %s", label, v->name,
              clg_status_string(r.wait2), r.wait2_msg);
  }
  cr_expect(r.out_sentinel,
            "%s [%s]: the output (or the bytes around it) was written", label,
            v->name);
  free(r.out);
}

static void run_oob_case(const ocase *k, uint64_t seed, size_t nvariants) {
  oinputs in;
  inputs_make(k, seed, &in);
  char sync_msg[2048];
  clg_status st = sync_run(k, &in, sync_msg, sizeof sync_msg);
  cr_expect(st == OOB, "%s: clg_run on host indices returned %s: %s", k->name,
            clg_status_string(st), sync_msg);
  for (int n = 0; n < 3 && k->msg[n]; ++n)
    cr_expect(tu_contains(sync_msg, k->msg[n]),
              "%s: the message lacks \"%s\": %s", k->name, k->msg[n], sync_msg);
  for (size_t n = 0; n < nvariants; ++n)
    check_oob_variant(k, &in, &g_variants[(seed + n) % NVARIANTS], sync_msg);
  inputs_free(&in);
}

Test(outcome, catalogue_out_of_bounds) {
  for (size_t n = 0; n < NOOB; ++n) {
    const ocase *k = &g_oob[n];
    /* Big arrays in 2 variants, the small ones in all. */
    bool big = tu_numel(k->q, k->is) > 10000;
    run_oob_case(k, 0x0C0u + n, big ? 2 : NVARIANTS);
  }
}

/* The first of two offenders wherever it lies relative to the validation
 * kernel's blocks and work-groups (the second is always last). */
Test(outcome, first_offender_positions) {
  ocase k = {"",  G(0, 0), CLG_DTYPE_UINT8, 1,     {10}, 1, {100000},
             I32, 2,       {{0}, {0}},      {NULL}};
  const int64_t pos[] = {0, 1, 63, 64, 16383, 16384, 50000, 99998, 99999};
  for (size_t a = 0; a < sizeof pos / sizeof pos[0]; ++a) {
    char name[64], want[64];
    snprintf(name, sizeof name, "offender at %" PRId64, pos[a]);
    snprintf(want, sizeof want, "indices[%" PRId64 "]", pos[a]);
    k.name = name;
    k.msg[0] = want;
    k.set[0][0] = pos[a];
    k.set[0][1] = a % 2 ? 10 : -11;
    k.set[1][0] = 99999;
    k.set[1][1] = a % 2 ? -11 : 10;
    k.idt = a % 2 ? I64 : I32;
    run_oob_case(&k, 0xF1u + a, 1);
  }
}

/* ------------------------------------------ host output, not wrapped */

/* A host output at an address that is not aligned to its element size is
 * not wrapped in place (host/device/enqueue.c) but staged in a device buffer
 * and read back: a deferred verdict would let that read-back copy the
 * staging buffer's unwritten bytes into the caller's memory. With a host
 * output the call checks the values itself (include/clgather/clgather.h),
 * and the output stays exactly as it was, aligned or not. */
Test(outcome, oob_leaves_an_unaligned_host_output_untouched) {
  static const int64_t ds[2] = {5, 3}, is[2] = {2, 3}, os[3] = {2, 3, 3};
  static const int64_t idx[6] = {0, 4, -5, 2, 5, 3}; /* indices[4] = 5 */
  float data[15];
  for (int n = 0; n < 15; ++n)
    data[n] = (float)n + 0.5f;
  tu_tensor d, x;
  tu_tensor_init(&d, CLG_DTYPE_FLOAT, 2, ds, buf_at(0), data);
  tu_tensor_init(&x, I64, 2, is, buf_at(0), idx);
  _Alignas(16) unsigned char host[2 * TU_GUARD + 72 + 1];
  for (int misalign = 0; misalign < 2; ++misalign) {
    memset(host, (int)TU_SENTINEL, sizeof host);
    unsigned char *at = host + TU_GUARD + (misalign ? 1 : 0);
    clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, os, at);
    clg_outcome *oc = NULL;
    clg_status st = clg_run_async(tu_ctx(), NULL, &d.desc, &x.desc, &o, NULL, 0,
                                  NULL, NULL, &oc);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", clg_last_error());
    cr_expect(st == OOB && oc == NULL &&
                  tu_contains(msg, "indices[4] (position [1, 1]"),
              "host output%s: the call returned %s: %s", misalign ? " +1" : "",
              clg_status_string(st), msg);
    if (oc) { /* a deferred verdict: it must still say OOB */
      clg_status w = clg_outcome_wait(oc);
      cr_expect(w == OOB, "host output%s: the outcome is %s",
                misalign ? " +1" : "", clg_status_string(w));
      clg_outcome_release(oc);
    }
    size_t changed = 0;
    for (size_t b = 0; b < sizeof host; ++b)
      changed += host[b] != TU_SENTINEL;
    cr_expect(changed == 0,
              "host output at an address %saligned to 4: %zu bytes changed "
              "after an out-of-bounds index",
              misalign ? "not " : "", changed);
  }
  tu_tensor_free(&d);
  tu_tensor_free(&x);
}
