/*
 * host/run/api.c: clg_supported(), from the registry (test_plans, part 5
 * of 5; the rest: test_plans.c, whose header lists the parts).
 *
 *  - clg_supported() over ops x dtypes x index dtypes x ranks x modes
 *    against the rules the header documents, cross-checked by real calls
 *    (clg_run() and clg_plan_create()).
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "run/plans_fx.h"

/* --------------------------------------------------------- clg_supported */

/*
 * The expectation, written from the header (not from plans.c):
 *  - ops: CLG_OP_GATHER (0), CLG_OP_GATHER_ELEMENTS (1), CLG_OP_GATHER_ND (2);
 *  - modes (clg_params): Gather takes RAISE (0), WRAP (1), CLIP (2);
 *    GatherElements and GatherND RAISE only; anything else is invalid;
 *  - data types: "every fixed-size type (bool, int8-64, uint8-64, float16,
 *    bfloat16, float, double, complex64, complex128)", i.e. the ONNX numbers
 *    1..16 except string (8); undefined (0) and unknown values are not;
 *  - indices: int32 (6) or int64 (7);
 *  - ranks: data rank in [1, CLG_MAX_RANK], indices rank in [0,
 *    CLG_MAX_RANK] (rank 0 is a scalar);
 *  - Gather: the output rank r - 1 + q may not exceed CLG_MAX_RANK
 *    (clg_gather_output_shape: "q + r - 1 > CLG_MAX_RANK" is an error);
 *  - GatherElements: q == r;
 *  - GatherND: q >= 1 (a tuple length m = r - b keeps the output rank at
 *    q - 1, so every such rank pair has a valid shape);
 *  - ScatterElements (3) and Scatter (5): q == r, mode RAISE; ScatterND
 *    (4): q >= 1, mode RAISE;
 *  - EmbeddingBag (6): mode RAISE, weight float32 (1), float16 (10),
 *    float64 (11) or bfloat16 (16) of rank 2, indices rank 1 or 2.
 */
static int expect_supported(int op, int dt, int idt, int r, int q, int mode) {
  if (op < 0 || op > 6)
    return 0;
  if (op == 6 && !(dt == 1 || dt == 10 || dt == 11 || dt == 16))
    return 0;
  if (op == 0 ? !(mode == 0 || mode == 1 || mode == 2) : mode != 0)
    return 0;
  if (dt < 1 || dt > 16 || dt == 8)
    return 0;
  if (idt != 6 && idt != 7)
    return 0;
  if (r < 1 || r > 16 || q < 0 || q > 16)
    return 0;
  switch (op) {
  case 0: return r - 1 + q <= 16;
  case 6: return r == 2 && (q == 1 || q == 2);
  case 1:
  case 3:
  case 5: return q == r;
  default: return q >= 1;
  }
}

Test(plans, supported_table) {
  static const int ops[] = {-1, 0, 1, 2, 3, 4, 5, 6, 100};
  static const int modes[] = {-1, 0, 1, 2, 3};
  long checked = 0, yes = 0, bad = 0;
  for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; ++oi)
    for (int dt = -1; dt <= 18; ++dt)
      for (int idt = -1; idt <= 18; ++idt)
        for (int r = -1; r <= CLG_MAX_RANK + 1; ++r)
          for (int q = -1; q <= CLG_MAX_RANK + 1; ++q)
            for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; ++mi) {
              int want = expect_supported(ops[oi], dt, idt, r, q, modes[mi]);
              int got =
                  clg_supported((clg_op)ops[oi], (clg_dtype)dt, (clg_dtype)idt,
                                r, q, (clg_index_mode)modes[mi]);
              ++checked;
              yes += want;
              if (got != want && ++bad <= 10)
                cr_expect(false,
                          "clg_supported(op %d, dtype %d, indices %d, ranks "
                          "%d/%d, mode %d) = %d, expected %d",
                          ops[oi], dt, idt, r, q, modes[mi], got, want);
            }
  cr_expect_eq(bad, 0, "%ld of %ld combinations differ", bad, checked);
  /* The expectation itself, on points the header spells out. */
  cr_expect(yes > 0);
  cr_expect(expect_supported(CLG_OP_GATHER, CLG_DTYPE_FLOAT, CLG_DTYPE_INT64, 1,
                             0, CLG_MODE_RAISE));
  cr_expect(expect_supported(CLG_OP_GATHER, CLG_DTYPE_BFLOAT16, CLG_DTYPE_INT32,
                             16, 1, CLG_MODE_CLIP));
  cr_expect(!expect_supported(CLG_OP_GATHER, CLG_DTYPE_STRING, CLG_DTYPE_INT64,
                              1, 1, CLG_MODE_RAISE));
  cr_expect(!expect_supported(CLG_OP_GATHER_ND, CLG_DTYPE_FLOAT,
                              CLG_DTYPE_INT64, 2, 2, CLG_MODE_WRAP));
  cr_expect(!expect_supported(CLG_OP_GATHER, CLG_DTYPE_FLOAT, CLG_DTYPE_INT64,
                              16, 2, CLG_MODE_RAISE));
  /* Every fixed-size type by name. */
  for (size_t i = 0; i < 15; ++i)
    cr_expect_eq(clg_supported(CLG_OP_GATHER, tu_all_dtypes[i], CLG_DTYPE_INT32,
                               2, 1, CLG_MODE_RAISE),
                 1, "%s", clg_dtype_name(tu_all_dtypes[i]));
}

/* A small valid call for (op, dtype, idt, r, q, mode): data dims of 1
 * except a leading 2 and, where a slice follows the gathered axes, 16
 * elements in the last one (so every element size copies with the same
 * units: few programs). */
static spec supported_spec(int op, clg_dtype dt, clg_dtype idt, int32_t r,
                           int32_t q, clg_index_mode mode) {
  int64_t ds[CLG_MAX_RANK], is[CLG_MAX_RANK];
  for (int i = 0; i < CLG_MAX_RANK; ++i)
    ds[i] = is[i] = 1;
  ds[0] = 2;
  if (op == CLG_OP_GATHER) {
    if (r >= 2)
      ds[r - 1] = 16;
    if (q >= 1)
      is[0] = 3;
  } else if (op == CLG_OP_GATHER_ELEMENTS) {
    is[0] = 3; /* axis 0 */
    if (r >= 2)
      ds[r - 1] = is[r - 1] = 4;
  } else { /* GatherND: tuples of r - 1 components (r >= 2) or 1 */
    if (r >= 2)
      ds[r - 1] = 16;
    is[q - 1] = r >= 2 ? r - 1 : 1;
    if (q >= 2)
      is[0] = 3;
  }
  return mkspec("supported sample", (clg_op)op, 0, 0, mode, dt, r, ds, idt, q,
                is, H(), H(), H());
}

Test(plans, supported_cross_check) {
  /* Supported: every op x every fixed-size dtype, rank pairs from each
   * op's list (the limits included); Gather with both index types and every
   * mode in turn, GatherElements with int32, GatherND with int64 indices.
   * (Chosen so that few programs are compiled: the rank-1 data samples,
   * whose copy width is the element's, fall on complex128, t = 14.) */
  static const int32_t gr[][2] = {{2, 1}, {3, 2}, {16, 1}, {2, 15},
                                  {5, 0}, {4, 3}, {3, 1}};
  static const int32_t er[][2] = {{2, 2}, {1, 1}, {4, 4}, {16, 16}, {3, 3}};
  static const int32_t nr[][2] = {{2, 1}, {3, 3}, {16, 16}, {2, 16},
                                  {5, 2}, {3, 2}, {4, 1}};
  clg_context *ctx = fresh_ctx();
  int runs = 0;
  for (int op = 0; op < 3; ++op)
    for (size_t t = 0; t < 15; ++t) {
      int n = op * 15 + (int)t;
      clg_dtype dt = tu_all_dtypes[t];
      clg_dtype idt = op == CLG_OP_GATHER_ELEMENTS ? CLG_DTYPE_INT32
                      : op == CLG_OP_GATHER_ND     ? CLG_DTYPE_INT64
                      : (t / 3) % 2                ? CLG_DTYPE_INT64
                                                   : CLG_DTYPE_INT32;
      clg_index_mode mode =
          op == CLG_OP_GATHER ? (clg_index_mode)(t % 3) : CLG_MODE_RAISE;
      static const int32_t r1[2][2] = {{1, 1}, {1, 2}};
      const int32_t *rq = op == 0   ? (t == 14 ? r1[0] : gr[t % 7])
                          : op == 1 ? er[t % 5]
                                    : (t == 14 ? r1[1] : nr[t % 7]);
      cr_assert(expect_supported(op, dt, idt, rq[0], rq[1], mode),
                "test bug: sample %d unsupported", n);
      cr_expect_eq(clg_supported((clg_op)op, dt, idt, rq[0], rq[1], mode), 1,
                   "sample %d", n);
      spec s = supported_spec(op, dt, idt, rq[0], rq[1], mode);
      char name[128];
      snprintf(name, sizeof name, "op %d %s idx %s ranks %d/%d mode %d", op,
               clg_dtype_name(dt), clg_dtype_name(idt), (int)rq[0], (int)rq[1],
               (int)mode);
      s.name = name;
      job j;
      job_make(&j, &s, 7000u + (uint64_t)n, 0);
      char msg[1024];
      clg_status st = run_oneshot(ctx, false, &j, msg, sizeof msg);
      cr_expect_eq(st, CLG_SUCCESS, "%s: clg_run: %s: %s", name,
                   clg_status_string(st), msg);
      if (st == CLG_SUCCESS)
        cr_expect(job_ok(&j, msg, sizeof msg), "%s", msg);
      job_free(&j);
      ++runs;
    }
  cr_expect_eq(runs, 45);

  /* Unsupported: one rule broken at a time, from a supported call; the
   * call fails with the status of that rule. */
  static unsigned char mem[3][1 << 16]; /* zeros: index 0 is valid */
  static const struct {
    int op, dt, idt, r, q, mode;
    clg_status want;
  } un[] = {
      {3, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 1, 0,
       CLG_ERROR_INVALID_ARGUMENT},
      {-1, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 1, 0,
       CLG_ERROR_INVALID_ARGUMENT},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 1, 3,
       CLG_ERROR_INVALID_ARGUMENT},
      {1, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 2, CLG_MODE_WRAP,
       CLG_ERROR_INVALID_ARGUMENT},
      {2, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 2, CLG_MODE_CLIP,
       CLG_ERROR_INVALID_ARGUMENT},
      {0, CLG_DTYPE_STRING, CLG_DTYPE_INT32, 2, 1, 0,
       CLG_ERROR_UNSUPPORTED_DTYPE},
      {1, CLG_DTYPE_UNDEFINED, CLG_DTYPE_INT64, 2, 2, 0,
       CLG_ERROR_UNSUPPORTED_DTYPE},
      {2, 17, CLG_DTYPE_INT64, 2, 2, 0, CLG_ERROR_UNSUPPORTED_DTYPE},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_UINT32, 2, 1, 0,
       CLG_ERROR_INVALID_INDICES_DTYPE},
      {1, CLG_DTYPE_INT8, CLG_DTYPE_INT16, 2, 2, 0,
       CLG_ERROR_INVALID_INDICES_DTYPE},
      {2, CLG_DTYPE_DOUBLE, CLG_DTYPE_UINT64, 2, 2, 0,
       CLG_ERROR_INVALID_INDICES_DTYPE},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 0, 1, 0, CLG_ERROR_INVALID_RANK},
      {1, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 17, 17, 0, CLG_ERROR_INVALID_RANK},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 17, 0, CLG_ERROR_INVALID_RANK},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, -1, 0, CLG_ERROR_INVALID_RANK},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 16, 2, 0, CLG_ERROR_INVALID_RANK},
      {0, CLG_DTYPE_UINT8, CLG_DTYPE_INT64, 3, 15, 1, CLG_ERROR_INVALID_RANK},
      {1, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 3, 2, 0,
       CLG_ERROR_INCOMPATIBLE_SHAPES},
      {2, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 0, 0, CLG_ERROR_INVALID_RANK},
  };
  for (size_t i = 0; i < sizeof un / sizeof un[0]; ++i) {
    cr_expect(!expect_supported(un[i].op, un[i].dt, un[i].idt, un[i].r, un[i].q,
                                un[i].mode),
              "test bug: case %zu is supported", i);
    cr_expect_eq(clg_supported((clg_op)un[i].op, (clg_dtype)un[i].dt,
                               (clg_dtype)un[i].idt, un[i].r, un[i].q,
                               (clg_index_mode)un[i].mode),
                 0, "case %zu", i);
    int64_t ones[CLG_MAX_RANK];
    for (int k = 0; k < CLG_MAX_RANK; ++k)
      ones[k] = 1;
    clg_params p = {(clg_op)un[i].op, 0, 0, (clg_index_mode)un[i].mode};
    clg_tensor d = clg_tensor_host((clg_dtype)un[i].dt, un[i].r, ones, mem[0]);
    clg_tensor x = clg_tensor_host((clg_dtype)un[i].idt, un[i].q, ones, mem[1]);
    if (un[i].op == CLG_OP_GATHER_ND && un[i].q >= 1)
      x.shape[un[i].q - 1] = un[i].r; /* full tuples */
    /* The output a valid call of these ranks would have (all ones). */
    int32_t orank = un[i].op == CLG_OP_GATHER      ? un[i].r - 1 + un[i].q
                    : un[i].op == CLG_OP_GATHER_ND ? un[i].q - 1
                                                   : un[i].q;
    if (orank < 0)
      orank = 0;
    if (orank > CLG_MAX_RANK)
      orank = CLG_MAX_RANK;
    unsigned char before[64];
    memset(mem[2], TU_SENTINEL, sizeof mem[2]);
    memcpy(before, mem[2], sizeof before);
    clg_tensor o = clg_tensor_host((clg_dtype)un[i].dt, orank, ones, mem[2]);
    clg_status st = clg_run(ctx, &p, &d, &x, &o, NULL, 0, NULL, NULL);
    cr_expect(st != CLG_SUCCESS, "case %zu: unsupported, yet clg_run succeeded",
              i);
    cr_expect_eq(st, un[i].want, "case %zu: clg_run: %s, want %s: %s", i,
                 clg_status_string(st), clg_status_string(un[i].want),
                 clg_last_error());
    cr_expect(memcmp(before, mem[2], sizeof before) == 0,
              "case %zu: the output was written", i);
    /* A plan cannot be made for it either. */
    clg_plan *plan = POISON_PLAN;
    st = clg_plan_create(ctx, &p, &d, &x, &o, 0, &plan);
    cr_expect_eq(st, un[i].want, "case %zu: clg_plan_create: %s: %s", i,
                 clg_status_string(st), clg_last_error());
    cr_expect_null(plan, "case %zu", i);
  }
  clg_context_destroy(ctx);
}
