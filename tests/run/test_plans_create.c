/*
 * host/run/plans.c: every error of clg_plan_create() (test_plans, part 2
 * of 5; the rest: test_plans.c, whose header lists the parts).
 *
 *  - NULL pointers, flags, params, element types, shapes and ranks, storage
 *    kinds and offsets: each error's status, a message naming the issue,
 *    *out set to NULL; templates need no memory; nothing is built.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>

#include "run/plans_fx.h"

/* ------------------------------------------------ clg_plan_create errors */

static void create_fails(const char *what, clg_status want, const char *needle,
                         clg_context *ctx, const clg_params *p,
                         const clg_tensor *d, const clg_tensor *x,
                         const clg_tensor *o, unsigned flags) {
  clg_plan *plan = POISON_PLAN;
  clg_status st = clg_plan_create(ctx, p, d, x, o, flags, &plan);
  cr_expect_eq(st, want, "%s: got %s, want %s: %s", what, clg_status_string(st),
               clg_status_string(want), clg_last_error());
  cr_expect_null(plan, "%s: *out not set to NULL on failure", what);
  cr_expect(tu_contains_ci(clg_last_error(), needle),
            "%s: the message does not name \"%s\": %s", what, needle,
            clg_last_error());
  if (st == CLG_SUCCESS && plan != POISON_PLAN)
    clg_plan_destroy(plan);
}

static void create_ok(const char *what, clg_context *ctx, const clg_params *p,
                      const clg_tensor *d, const clg_tensor *x,
                      const clg_tensor *o, unsigned flags) {
  clg_plan *plan = NULL;
  clg_status st = clg_plan_create(ctx, p, d, x, o, flags, &plan);
  cr_expect_eq(st, CLG_SUCCESS, "%s: %s: %s", what, clg_status_string(st),
               clg_last_error());
  cr_expect(plan != NULL, "%s: no plan", what);
  cr_expect_str_empty(clg_last_error(), "%s", what);
  clg_plan_destroy(plan);
}

Test(plans, create_errors) {
  clg_context *ctx = fresh_ctx();
  const clg_params g0 = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  const int64_t ds[2] = {3, 4}, is[1] = {5}, os[2] = {5, 4};
  const clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, NULL, 16);
  const clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT32, 1, is, NULL, 8);
  const clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, NULL, 4);
  create_ok("the base case (NULL buffers)", ctx, &g0, &d, &x, &o, 0);
  create_ok("params NULL", ctx, NULL, &d, &x, &o, CLG_PLAN_ASYNC_CHECK);

  /* NULL pointers. */
  create_fails("ctx NULL", CLG_ERROR_NULL_ARGUMENT, "ctx", NULL, &g0, &d, &x,
               &o, 0);
  create_fails("data NULL", CLG_ERROR_NULL_ARGUMENT, "data", ctx, &g0, NULL, &x,
               &o, 0);
  create_fails("indices NULL", CLG_ERROR_NULL_ARGUMENT, "indices", ctx, &g0, &d,
               NULL, &o, 0);
  create_fails("output NULL", CLG_ERROR_NULL_ARGUMENT, "output", ctx, &g0, &d,
               &x, NULL, 0);
  cr_expect_eq(clg_plan_create(ctx, &g0, &d, &x, &o, 0, NULL),
               CLG_ERROR_NULL_ARGUMENT);
  cr_expect(tu_contains(clg_last_error(), "out"), "%s", clg_last_error());

  /* Flags. */
  create_fails("flag bit 1", CLG_ERROR_INVALID_ARGUMENT, "flag", ctx, &g0, &d,
               &x, &o, 2u);
  create_fails("flag bit 31", CLG_ERROR_INVALID_ARGUMENT, "flag", ctx, &g0, &d,
               &x, &o, CLG_PLAN_ASYNC_CHECK | 0x80000000u);

  /* Params. */
  clg_params p = g0;
  p.op = (clg_op)42;
  create_fails("unknown op", CLG_ERROR_INVALID_ARGUMENT, "operator", ctx, &p,
               &d, &x, &o, 0);
  p = g0;
  p.mode = (clg_index_mode)3;
  create_fails("unknown mode", CLG_ERROR_INVALID_ARGUMENT, "mode", ctx, &p, &d,
               &x, &o, 0);
  p = g0;
  p.axis = 2;
  create_fails("axis 2 of rank 2", CLG_ERROR_INVALID_AXIS, "axis", ctx, &p, &d,
               &x, &o, 0);
  p.axis = -3;
  create_fails("axis -3 of rank 2", CLG_ERROR_INVALID_AXIS, "axis", ctx, &p, &d,
               &x, &o, 0);
  p = g0;
  p.batch_dims = 2;
  create_fails("batch_dims 2 with indices of rank 1",
               CLG_ERROR_INVALID_BATCH_DIMS, "batch_dims", ctx, &p, &d, &x, &o,
               0);
  p.batch_dims = 1; /* > axis 0 */
  create_fails("batch_dims 1 above axis 0", CLG_ERROR_INVALID_BATCH_DIMS,
               "batch_dims", ctx, &p, &d, &x, &o, 0);
  {
    const int64_t bds[2] = {3, 4}, bis[2] = {2, 5}, bos[2] = {3, 5};
    clg_tensor bd = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, bds, NULL, 0);
    clg_tensor bx = clg_tensor_buffer(CLG_DTYPE_INT32, 2, bis, NULL, 0);
    clg_tensor bo = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, bos, NULL, 0);
    clg_params bp = {CLG_OP_GATHER, 1, 1, CLG_MODE_RAISE};
    create_fails("batch dimension differs", CLG_ERROR_INCOMPATIBLE_SHAPES,
                 "batch", ctx, &bp, &bd, &bx, &bo, 0);
  }
  {
    clg_params ep = {CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_WRAP};
    const int64_t eis[2] = {2, 4};
    clg_tensor ex = clg_tensor_buffer(CLG_DTYPE_INT64, 2, eis, NULL, 0);
    clg_tensor eo = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, eis, NULL, 0);
    create_fails("GatherElements mode WRAP", CLG_ERROR_INVALID_ARGUMENT, "mode",
                 ctx, &ep, &d, &ex, &eo, 0);
    ep.mode = CLG_MODE_RAISE;
    ep.batch_dims = 1;
    create_fails("GatherElements batch_dims", CLG_ERROR_INVALID_ARGUMENT,
                 "batch_dims", ctx, &ep, &d, &ex, &eo, 0);
    ep.batch_dims = 0;
    create_ok("GatherElements", ctx, &ep, &d, &ex, &eo, 0);
    create_fails("GatherElements ranks differ", CLG_ERROR_INCOMPATIBLE_SHAPES,
                 "rank", ctx, &ep, &d, &x, &o, 0);
    const int64_t big[2] = {2, 5};
    clg_tensor ex2 = clg_tensor_buffer(CLG_DTYPE_INT64, 2, big, NULL, 0);
    clg_tensor eo2 = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, big, NULL, 0);
    create_fails("GatherElements indices dim above data's",
                 CLG_ERROR_INCOMPATIBLE_SHAPES, "indices", ctx, &ep, &d, &ex2,
                 &eo2, 0);
  }
  {
    clg_params np = {CLG_OP_GATHER_ND, 1, 0, CLG_MODE_RAISE};
    const int64_t nis[2] = {5, 2}, nos[1] = {5};
    clg_tensor nx = clg_tensor_buffer(CLG_DTYPE_INT64, 2, nis, NULL, 0);
    clg_tensor no = clg_tensor_buffer(CLG_DTYPE_FLOAT, 1, nos, NULL, 0);
    create_fails("GatherND axis", CLG_ERROR_INVALID_ARGUMENT, "axis", ctx, &np,
                 &d, &nx, &no, 0);
    np.axis = 0;
    create_ok("GatherND", ctx, &np, &d, &nx, &no, 0);
    np.mode = CLG_MODE_CLIP;
    create_fails("GatherND mode CLIP", CLG_ERROR_INVALID_ARGUMENT, "mode", ctx,
                 &np, &d, &nx, &no, 0);
    np.mode = CLG_MODE_RAISE;
    np.batch_dims = 2;
    create_fails("GatherND batch_dims 2 of min rank 2",
                 CLG_ERROR_INVALID_BATCH_DIMS, "batch_dims", ctx, &np, &d, &nx,
                 &no, 0);
    np.batch_dims = 0;
    const int64_t nis3[2] = {5, 3};
    clg_tensor nx3 = clg_tensor_buffer(CLG_DTYPE_INT64, 2, nis3, NULL, 0);
    create_fails("GatherND tuple longer than data's rank",
                 CLG_ERROR_INCOMPATIBLE_SHAPES, "last dimension", ctx, &np, &d,
                 &nx3, &no, 0);
    clg_tensor nx0 = clg_tensor_buffer(CLG_DTYPE_INT64, 0, NULL, NULL, 0);
    create_fails("GatherND scalar indices", CLG_ERROR_INVALID_RANK, "rank", ctx,
                 &np, &d, &nx0, &no, 0);
  }

  /* Element types. */
  static const struct {
    clg_dtype dt;
    const char *needle;
  } bad_data[] = {{CLG_DTYPE_STRING, "string"},
                  {CLG_DTYPE_UNDEFINED, "element type"},
                  {(clg_dtype)17, "element type"},
                  {(clg_dtype)-1, "element type"}};
  for (size_t i = 0; i < sizeof bad_data / sizeof bad_data[0]; ++i) {
    clg_tensor d2 = d, o2 = o;
    d2.dtype = o2.dtype = bad_data[i].dt;
    char what[64];
    snprintf(what, sizeof what, "data dtype %d", (int)bad_data[i].dt);
    create_fails(what, CLG_ERROR_UNSUPPORTED_DTYPE, bad_data[i].needle, ctx,
                 &g0, &d2, &x, &o2, 0);
  }
  static const clg_dtype bad_idx[] = {
      CLG_DTYPE_FLOAT,  CLG_DTYPE_UINT32, CLG_DTYPE_UINT64, CLG_DTYPE_INT16,
      CLG_DTYPE_INT8,   CLG_DTYPE_BOOL,   CLG_DTYPE_STRING, CLG_DTYPE_UNDEFINED,
      CLG_DTYPE_DOUBLE, (clg_dtype)99};
  for (size_t i = 0; i < sizeof bad_idx / sizeof bad_idx[0]; ++i) {
    clg_tensor x2 = x;
    x2.dtype = bad_idx[i];
    x2.offset = 0;
    char what[64];
    snprintf(what, sizeof what, "indices dtype %d", (int)bad_idx[i]);
    create_fails(what, CLG_ERROR_INVALID_INDICES_DTYPE, "int32 or int64", ctx,
                 &g0, &d, &x2, &o, 0);
  }
  {
    clg_tensor o2 = o;
    o2.dtype = CLG_DTYPE_DOUBLE;
    create_fails("output dtype double for float data", CLG_ERROR_DTYPE_MISMATCH,
                 "output", ctx, &g0, &d, &x, &o2, 0);
    o2.dtype = CLG_DTYPE_INT32; /* same size, other type */
    create_fails("output dtype int32 for float data", CLG_ERROR_DTYPE_MISMATCH,
                 "int32", ctx, &g0, &d, &x, &o2, 0);
  }

  /* Shapes and ranks. */
  {
    clg_tensor o2 = o;
    o2.shape[0] = 4;
    create_fails("output shape [4, 4]", CLG_ERROR_SHAPE_MISMATCH, "output", ctx,
                 &g0, &d, &x, &o2, 0);
    o2 = o;
    o2.rank = 3;
    o2.shape[2] = 1;
    create_fails("output rank 3", CLG_ERROR_SHAPE_MISMATCH, "output", ctx, &g0,
                 &d, &x, &o2, 0);
    o2 = o;
    o2.rank = 1;
    o2.shape[0] = 20;
    create_fails("output flattened", CLG_ERROR_SHAPE_MISMATCH, "output", ctx,
                 &g0, &d, &x, &o2, 0);
    clg_tensor d2 = d;
    d2.shape[1] = -4;
    create_fails("data negative dim", CLG_ERROR_INVALID_SHAPE, "negative", ctx,
                 &g0, &d2, &x, &o, 0);
    clg_tensor x2 = x;
    x2.shape[0] = -5;
    create_fails("indices negative dim", CLG_ERROR_INVALID_SHAPE, "negative",
                 ctx, &g0, &d, &x2, &o, 0);
    o2 = o;
    o2.shape[1] = -4;
    create_fails("output negative dim", CLG_ERROR_INVALID_SHAPE, "negative",
                 ctx, &g0, &d, &x, &o2, 0);
    d2 = d;
    d2.rank = 0;
    create_fails("data rank 0", CLG_ERROR_INVALID_RANK, "rank", ctx, &g0, &d2,
                 &x, &o, 0);
    d2.rank = CLG_MAX_RANK + 1;
    create_fails("data rank 17", CLG_ERROR_INVALID_RANK, "rank", ctx, &g0, &d2,
                 &x, &o, 0);
    x2 = x;
    x2.rank = -1;
    create_fails("indices rank -1", CLG_ERROR_INVALID_RANK, "rank", ctx, &g0,
                 &d, &x2, &o, 0);
    /* Output rank 16 + 2 - 1 = 17. */
    int64_t ones[CLG_MAX_RANK];
    for (int i = 0; i < CLG_MAX_RANK; ++i)
      ones[i] = 1;
    clg_tensor d16 = clg_tensor_buffer(CLG_DTYPE_FLOAT, 16, ones, NULL, 0);
    clg_tensor x2r = clg_tensor_buffer(CLG_DTYPE_INT32, 2, ones, NULL, 0);
    clg_tensor o16 = clg_tensor_buffer(CLG_DTYPE_FLOAT, 16, ones, NULL, 0);
    create_fails("output rank 17", CLG_ERROR_INVALID_RANK, "rank", ctx, &g0,
                 &d16, &x2r, &o16, 0);
    /* Byte size overflow. */
    const int64_t huge[2] = {INT64_C(1) << 62, 8}, hos[2] = {5, 8};
    clg_tensor dh = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, huge, NULL, 0);
    clg_tensor oh = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, hos, NULL, 0);
    create_fails("data bytes overflow", CLG_ERROR_SIZE_OVERFLOW, "overflow",
                 ctx, &g0, &dh, &x, &oh, 0);
  }

  /* Storage kinds and offsets. */
  {
    clg_tensor d2 = d;
    d2.storage = (clg_storage)5;
    create_fails("data storage 5", CLG_ERROR_INVALID_ARGUMENT, "storage", ctx,
                 &g0, &d2, &x, &o, 0);
    clg_tensor x2 = x;
    x2.storage = (clg_storage)-1;
    create_fails("indices storage -1", CLG_ERROR_INVALID_ARGUMENT, "storage",
                 ctx, &g0, &d, &x2, &o, 0);
    clg_tensor o2 = o;
    o2.storage = (clg_storage)4;
    create_fails("output storage 4", CLG_ERROR_INVALID_ARGUMENT, "storage", ctx,
                 &g0, &d, &x, &o2, 0);
    x2 = x;
    x2.offset = 2;
    create_fails("int32 indices at offset 2", CLG_ERROR_INVALID_ARGUMENT,
                 "offset", ctx, &g0, &d, &x2, &o, 0);
    create_fails("int32 indices at offset 2 (async)",
                 CLG_ERROR_INVALID_ARGUMENT, "offset", ctx, &g0, &d, &x2, &o,
                 CLG_PLAN_ASYNC_CHECK);
    x2.dtype = CLG_DTYPE_INT64;
    x2.offset = 12;
    create_fails("int64 indices at offset 12", CLG_ERROR_INVALID_ARGUMENT,
                 "offset", ctx, &g0, &d, &x2, &o, 0);
    x2.offset = 24;
    create_ok("int64 indices at offset 24", ctx, &g0, &d, &x2, &o, 0);
    /* Data and output offsets may be any byte. */
    d2 = d;
    o2 = o;
    d2.offset = 3;
    o2.offset = 7;
    create_ok("data and output at odd offsets", ctx, &g0, &d2, &x, &o2, 0);
  }

  /* Memory need not be given: NULL host pointers too, any storage mix. */
  {
    clg_tensor dh = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, NULL);
    clg_tensor xh = clg_tensor_host(CLG_DTYPE_INT32, 1, is, NULL);
    clg_tensor oh = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, NULL);
    create_ok("host templates with NULL pointers", ctx, &g0, &dh, &xh, &oh, 0);
    create_ok("host templates with NULL pointers (async)", ctx, &g0, &dh, &xh,
              &oh, CLG_PLAN_ASYNC_CHECK);
    create_ok("host data, buffer indices and output", ctx, &g0, &dh, &x, &o, 0);
    create_ok("buffer data, host indices, buffer output", ctx, &g0, &d, &xh, &o,
              0);
    /* The rule is checked for cl_mem indices only: a host template's
     * offset field is not used. */
    clg_tensor xo = xh;
    xo.offset = 2;
    create_ok("host indices with an unused offset field", ctx, &g0, &d, &xo, &o,
              0);
  }
  cr_expect_eq(ctx->builds, 0u, "clg_plan_create built programs");
  clg_context_destroy(ctx);
}
