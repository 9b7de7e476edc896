/*
 * cl_mem indices validated on the device (kernels/validate.cl) against the
 * read-back + host scan: both paths must give the same status and the same
 * message (clg_last_error()) for every case, and the same as host indices.
 *
 * The path is forced per call with CLGATHER_TEST_DEVICE_VALIDATION
 * (always|never, read by test builds only, host/core/faults.h); the context's
 * device_validations counter proves which path ran. Cases: Gather (axis,
 * batch_dims, modes), GatherElements and GatherND (tuple lengths 1..3, with
 * batch_dims), int32 and int64 indices, buffer offsets, arrays spanning one
 * or many work-groups, the first / a middle / the last position offending,
 * several offenders (the first is reported), INT32/INT64 extremes, the
 * valid edges -s and s-1, an axis of size 0 and no indices at all. The
 * waits, clg_run() through the device path and the kept verdict buffer:
 * run/test_index_pass_waits.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/testutil.h"

#define CLG_FAULTS_IMPL
#include "core/faults.h"
#include "internal.h" /* clg_context::device_validations */

typedef struct dv_case {
  const char *name;
  clg_params p;
  int32_t r;
  int64_t ds[4];
  int32_t q;
  int64_t is[4];
  clg_dtype idt;
  size_t off_elems; /* indices start this many elements into the buffer */
  /* Up to 4 (position, value) overrides on valid indices; position -1 is
   * the last. */
  int nset;
  int64_t set[4][2];
} dv_case;

/* Valid indices for the case: in [-s_j, s_j - 1] of each position's bound. */
static void fill_valid(const dv_case *k, void *v, size_t count) {
  size_t period = 1;
  int64_t s[CLG_MAX_RANK];
  if (k->p.op == CLG_OP_GATHER_ND) {
    period = (size_t)k->is[k->q - 1];
    for (size_t j = 0; j < period; ++j)
      s[j] = k->ds[k->p.batch_dims + (int64_t)j];
  } else {
    int64_t a = k->p.axis < 0 ? k->p.axis + k->r : k->p.axis;
    s[0] = k->ds[a];
  }
  tu_rng rng = tu_rng_make(0xD5u + count);
  for (size_t i = 0; i < count; ++i) {
    int64_t d = s[i % period];
    int64_t x = d > 0 ? tu_rng_range(&rng, -d, d - 1) : 0;
    tu_set_index(v, k->idt, (int64_t)i, x);
  }
}

/* Data is never read by clg_validate(): any non-NULL host pointer. */
static float g_dummy;

static size_t isz_of(clg_dtype t) { return t == CLG_DTYPE_INT32 ? 4 : 8; }

/* Status and message of clg_validate() on the case's indices in `m`. */
static clg_status validate_once(const dv_case *k, cl_mem m, const void *host,
                                const char *path, char *msg, size_t cap,
                                unsigned *dev_runs) {
  clg_context *ctx = tu_ctx();
  clg_tensor data = clg_tensor_host(CLG_DTYPE_UINT8, k->r, k->ds, &g_dummy);
  clg_tensor idx =
      m ? clg_tensor_buffer(k->idt, k->q, k->is, m,
                            k->off_elems * isz_of(k->idt))
        : clg_tensor_host(k->idt, k->q, k->is, (void *)(uintptr_t)host);
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", path, 1);
  unsigned before = atomic_load(&ctx->device_validations);
  clg_status st = clg_validate(ctx, &k->p, &data, &idx, NULL, 0, NULL);
  *dev_runs = atomic_load(&ctx->device_validations) - before;
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  snprintf(msg, cap, "%s", clg_last_error());
  return st;
}

static void run_dv_case(const dv_case *k, clg_status want,
                        const char *want_msg) {
  int64_t count = tu_numel(k->q, k->is);
  size_t isz = isz_of(k->idt);
  size_t bytes = (size_t)count * isz, off = k->off_elems * isz;
  unsigned char *v = calloc(1, bytes + off + 8);
  cr_assert(v != NULL);
  fill_valid(k, v + off, (size_t)count);
  for (int n = 0; n < k->nset; ++n) {
    int64_t pos = k->set[n][0] < 0 ? count + k->set[n][0] : k->set[n][0];
    tu_set_index(v + off, k->idt, pos, k->set[n][1]);
  }
  cl_mem m = tu_buffer_create(bytes + off + 8, v);

  char host_msg[4096], rb_msg[4096], dev_msg[4096];
  unsigned runs_h = 0, runs_rb = 0, runs_dev = 0;
  clg_status sh = validate_once(k, NULL, v + off, "always", host_msg,
                                sizeof host_msg, &runs_h);
  clg_status srb =
      validate_once(k, m, NULL, "never", rb_msg, sizeof rb_msg, &runs_rb);
  clg_status sdev =
      validate_once(k, m, NULL, "always", dev_msg, sizeof dev_msg, &runs_dev);

  cr_expect(sh == want, "%s: host indices: want status %d, got %d: %s", k->name,
            (int)want, (int)sh, host_msg);
  if (want_msg)
    cr_expect(tu_contains(host_msg, want_msg),
              "%s: host message lacks \"%s\": %s", k->name, want_msg, host_msg);
  cr_expect(srb == sh && strcmp(rb_msg, host_msg) == 0,
            "%s: read-back differs from host indices:\n  %s\n  %s", k->name,
            rb_msg, host_msg);
  cr_expect(sdev == sh && strcmp(dev_msg, host_msg) == 0,
            "%s: device validation differs from host indices:\n  device: "
            "%s\n  host:   %s",
            k->name, dev_msg, host_msg);
  bool reads = k->p.mode == CLG_MODE_RAISE && count > 0;
  cr_expect(runs_h == 0 && runs_rb == 0,
            "%s: the validation kernel ran for host indices or a read-back",
            k->name);
  /* An empty axis in mode WRAP/CLIP fails before any value is read. */
  cr_expect(runs_dev == (reads ? 1u : 0u),
            "%s: the validation kernel ran %u times, want %u", k->name,
            runs_dev, reads ? 1u : 0u);
  clReleaseMemObject(m);
  free(v);
}

#define OOB CLG_ERROR_INDEX_OUT_OF_BOUNDS
#define OK CLG_SUCCESS
#define G(axis, bd)                                                            \
  { CLG_OP_GATHER, axis, bd, CLG_MODE_RAISE }
#define GE(axis)                                                               \
  { CLG_OP_GATHER_ELEMENTS, axis, 0, CLG_MODE_RAISE }
#define ND(bd)                                                                 \
  { CLG_OP_GATHER_ND, 0, bd, CLG_MODE_RAISE }
#define I32 CLG_DTYPE_INT32
#define I64 CLG_DTYPE_INT64

Test(index_pass, same_message_as_host) {
  /* Large arrays (> 16384 values per work-group) span many work-groups. */
  static const dv_case cases[] = {
      {"gather i64 first", G(0, 0), 2, {5, 3}, 2, {2, 3}, I64, 0, 1, {{0, 5}}},
      {"gather i32 last", G(0, 0), 2, {5, 3}, 2, {2, 3}, I32, 0, 1, {{-1, -6}}},
      {"gather i64 offset 3, middle",
       G(1, 0),
       2,
       {5, 7},
       1,
       {9},
       I64,
       3,
       1,
       {{4, 7}}},
      {"gather i32 valid edges",
       G(0, 0),
       1,
       {4},
       1,
       {4},
       I32,
       1,
       4,
       {{0, -4}, {1, 3}, {2, 0}, {3, -1}}},
      {"gather i64 INT64_MIN",
       G(0, 0),
       1,
       {4},
       1,
       {8},
       I64,
       0,
       1,
       {{5, INT64_MIN}}},
      {"gather i64 INT64_MAX",
       G(0, 0),
       1,
       {4},
       1,
       {8},
       I64,
       0,
       1,
       {{6, INT64_MAX}}},
      {"gather i32 INT32_MIN / MAX",
       G(0, 0),
       1,
       {4},
       1,
       {8},
       I32,
       0,
       2,
       {{7, INT32_MAX}, {6, INT32_MIN}}},
      {"gather i64 huge axis, s - 1 ok, INT64_MIN bad",
       G(0, 0),
       1,
       {INT64_MAX / 8},
       1,
       {4},
       I64,
       0,
       2,
       {{0, INT64_MAX / 8 - 1}, {3, INT64_MIN}}},
      {"gather i64 huge axis > 2^62 (generic kernel), INT64_MAX bad",
       G(0, 0),
       1,
       {((int64_t)1 << 62) + 5},
       1,
       {40000},
       I64,
       0,
       2,
       {{7, ((int64_t)1 << 62) + 4}, {39000, INT64_MAX}}},
      {"gather i32 big, middle",
       G(0, 0),
       2,
       {1000, 2},
       1,
       {200000},
       I32,
       5,
       1,
       {{123457, 1000}}},
      {"gather i64 big, last",
       G(0, 0),
       1,
       {1000},
       1,
       {100001},
       I64,
       1,
       1,
       {{-1, -1001}}},
      {"gather i32 big, first of several (groups)",
       G(0, 0),
       1,
       {77},
       1,
       {300000},
       I32,
       0,
       3,
       {{290000, 99}, {40000, -78}, {150000, 78}}},
      {"gather i32 big, first of several (one group)",
       G(0, 0),
       1,
       {77},
       1,
       {300000},
       I32,
       0,
       3,
       {{20000, 99}, {16400, -78}, {16390, 78}}},
      {"gather i64 big, valid", G(0, 0), 1, {3}, 1, {70000}, I64, 2, 0, {{0}}},
      {"gather batch_dims 1 axis 1",
       G(1, 1),
       2,
       {3, 4},
       2,
       {3, 5},
       I64,
       0,
       1,
       {{11, 4}}},
      {"gather axis -1 of size 0",
       G(-1, 0),
       2,
       {3, 0},
       1,
       {2},
       I32,
       0,
       0,
       {{0}}},
      {"gather no indices", G(0, 0), 1, {3}, 2, {0, 4}, I64, 0, 0, {{0}}},
      {"gather wrap on empty axis",
       {CLG_OP_GATHER, 0, 0, CLG_MODE_WRAP},
       1,
       {0},
       1,
       {3},
       I64,
       0,
       0,
       {{0}}},
      {"gather clip, far out of range (valid)",
       {CLG_OP_GATHER, 0, 0, CLG_MODE_CLIP},
       1,
       {3},
       1,
       {3},
       I64,
       0,
       1,
       {{1, INT64_MAX}}},
      {"gather_elements i32 axis 1",
       GE(1),
       2,
       {4, 6},
       2,
       {3, 6},
       I32,
       0,
       1,
       {{13, 6}}},
      {"gather_elements i64 axis 0 big",
       GE(0),
       2,
       {50, 400},
       2,
       {50, 400},
       I64,
       1,
       1,
       {{19999, -51}}},
      {"gather_nd m 1", ND(0), 2, {5, 3}, 2, {4, 1}, I64, 0, 1, {{2, 5}}},
      {"gather_nd m 2 component 1",
       ND(0),
       2,
       {5, 3},
       2,
       {4, 2},
       I32,
       3,
       1,
       {{5, 3}}},
      {"gather_nd m 3 component 2, batch 1",
       ND(1),
       4,
       {2, 4, 5, 6},
       3,
       {2, 3, 3},
       I64,
       0,
       1,
       {{14, -7}}},
      {"gather_nd m 3 big, component 0",
       ND(0),
       3,
       {7, 8, 9},
       2,
       {40000, 3},
       I32,
       0,
       2,
       {{90003, 7}, {100001, 8}}},
      {"gather_nd m 2 big, component 1 last",
       ND(0),
       2,
       {7, 8},
       2,
       {50000, 2},
       I64,
       7,
       1,
       {{-1, 8}}},
      {"gather_nd axis of size 0",
       ND(0),
       2,
       {5, 0},
       2,
       {1, 2},
       I64,
       0,
       0,
       {{0}}},
      {"gather_nd valid, big",
       ND(0),
       3,
       {7, 8, 9},
       2,
       {30000, 3},
       I64,
       0,
       0,
       {{0}}},
  };
  for (size_t n = 0; n < sizeof cases / sizeof cases[0]; ++n) {
    const dv_case *k = &cases[n];
    bool bad = k->nset > 0 && k->p.mode == CLG_MODE_RAISE &&
               strstr(k->name, "valid") == NULL;
    bool empty_axis = strstr(k->name, "size 0") != NULL ||
                      strstr(k->name, "empty axis") != NULL;
    bool edges_ok = strstr(k->name, "valid edges") != NULL ||
                    strstr(k->name, "(valid)") != NULL;
    const char *want_msg = NULL;
    if (strstr(k->name, "huge axis, s - 1") != NULL)
      want_msg = "-9223372036854775808";
    if (strstr(k->name, "2^62") != NULL)
      want_msg = "indices[39000]";
    clg_status want = (bad && !edges_ok) || empty_axis ? OOB : OK;
    if (strstr(k->name, "no indices") != NULL)
      want = OK;
    run_dv_case(k, want, want_msg);
  }
}

/* Several offenders: the first is reported, by both paths. */
Test(index_pass, first_offender_positions) {
  dv_case k = {"", G(0, 0), 1, {10}, 1, {100000}, I32, 0, 2, {{0}, {0}}};
  const int64_t pos[] = {0, 1, 63, 64, 16383, 16384, 99998, 99999};
  for (size_t a = 0; a < sizeof pos / sizeof pos[0]; ++a) {
    char name[64];
    snprintf(name, sizeof name, "offender at %" PRId64, pos[a]);
    k.name = name;
    k.set[0][0] = pos[a];
    k.set[0][1] = 10;
    k.set[1][0] = 99999;
    k.set[1][1] = -11;
    k.idt = a % 2 ? I64 : I32;
    k.off_elems = a % 3;
    run_dv_case(&k, OOB, name + 12);
  }
}

/* ------------------------------------------------- wait list ordering */

/* The device schedule's verdict with bit 1 of the operator's first word set
 * (its kernels met an index out of range, the scatter gated off) and no
 * offender the re-check could locate: the indices changed during the call.
 * A clear status and message, and it wins over a repeat's bit 0; bit 0
 * alone still reports the repeat (so the test tells the two apart). */
Test(index_pass, verdict_out_of_range_not_located) {
  static float dummy;
  int64_t ds[2] = {4, 64}, is[2] = {4, 40};
  clg_tensor data = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, &dummy);
  clg_tensor idx = clg_tensor_host(CLG_DTYPE_INT64, 2, is, &dummy);
  clg_params norm = {CLG_OP_SCATTER_ELEMENTS, 1, 0, CLG_MODE_RAISE};
  const clg_op_impl *impl = clg__op_impl(CLG_OP_SCATTER_ELEMENTS);
  for (cl_ulong flag = 2; flag <= 3; ++flag) {
    cl_ulong extra[CLG_VERDICT_EXTRA] = {flag, ~(cl_ulong)5, 2, 7};
    clg_status st = clg__verdict_status(impl, &norm, &data, &idx,
                                        CLG_VERDICT_NONE, 0, extra);
    cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "flag %d: %s", (int)flag,
                 clg_last_error());
    cr_expect(tu_contains(clg_last_error(), "ScatterElements") &&
                  tu_contains(clg_last_error(), "changed during the call") &&
                  tu_contains(clg_last_error(), "nothing was written"),
              "flag %d: %s", (int)flag, clg_last_error());
  }
  cl_ulong repeat[CLG_VERDICT_EXTRA] = {1, ~(cl_ulong)5, 2, 7};
  cr_expect_eq(clg__verdict_status(impl, &norm, &data, &idx, CLG_VERDICT_NONE,
                                   0, repeat),
               CLG_ERROR_DUPLICATE_INDEX, "%s", clg_last_error());
}
