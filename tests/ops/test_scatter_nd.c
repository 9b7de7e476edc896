/*
 * ScatterND against the plain-C sequential reference
 * (tools/reference/ref_scatter_nd.c), byte for byte: every element type
 * under every reduction, data ranks 1-5, tuple lengths 1-r, negative
 * indices, int32 and int64 indices, repeated tuples, host and cl_mem
 * tensors, in place and not; ONNX's documented examples; errors before
 * anything is written.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "support/scatter_case.h"

/* per_type random cases (tools/cases/scatter.h) of every element type with
 * arithmetic for the reduction. */
static void snd_sweep(clg_reduction red, clg_duplicates dup, bool unique,
                      unsigned per_type) {
  for (size_t t = 0; t < scatter_ndtypes; ++t) {
    bool complex = scatter_dtypes[t] == CLG_DTYPE_COMPLEX64 ||
                   scatter_dtypes[t] == CLG_DTYPE_COMPLEX128;
    if (complex && (red == CLG_REDUCTION_MIN || red == CLG_REDUCTION_MAX))
      continue;
    for (unsigned k = 0; k < per_type; ++k) {
      scatter_case c = scatter_nd_case_random(
          1000u * (unsigned)red + 100u * (unsigned)t + k, scatter_dtypes[t],
          CLG_DTYPE_UNDEFINED, (clg_scatter_params){red, dup},
          unique ? SCATTER_TARGETS_DISTINCT : SCATTER_TARGETS_ANY);
      sc_run(&c);
    }
  }
}

Test(scatter_nd, none_unique_every_type) {
  snd_sweep(CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR, true, 4);
}
Test(scatter_nd, none_duplicates_last_every_type) {
  snd_sweep(CLG_REDUCTION_NONE, CLG_DUPLICATES_LAST, false, 4);
}
Test(scatter_nd, add_every_type) {
  snd_sweep(CLG_REDUCTION_ADD, CLG_DUPLICATES_ERROR, false, 4);
}
Test(scatter_nd, mul_every_type) {
  snd_sweep(CLG_REDUCTION_MUL, CLG_DUPLICATES_ERROR, false, 4);
}
Test(scatter_nd, min_every_type) {
  snd_sweep(CLG_REDUCTION_MIN, CLG_DUPLICATES_ERROR, false, 4);
}
Test(scatter_nd, max_every_type) {
  snd_sweep(CLG_REDUCTION_MAX, CLG_DUPLICATES_ERROR, false, 4);
}

/* The embedding backward pass in small: rows added into a table, many rows
 * per target, in place, on cl_mem. */
Test(scatter_nd, embedding_backward_add) {
  scatter_case c;
  memset(&c, 0, sizeof c);
  c.op = CLG_OP_SCATTER_ND;
  c.sp.reduction = CLG_REDUCTION_ADD;
  c.dtype = CLG_DTYPE_FLOAT;
  c.idt = CLG_DTYPE_INT64;
  c.r = 2;
  c.ds[0] = 50;
  c.ds[1] = 33;
  c.q = 2;
  c.is[0] = 400;
  c.is[1] = 1;
  c.storage = CLG_STORAGE_BUFFER;
  c.in_place = true;
  c.seed = 5;
  sc_run(&c);
  c.dtype = CLG_DTYPE_BFLOAT16;
  c.storage = CLG_STORAGE_HOST;
  sc_run(&c);
}

/* ONNX's documented examples (ScatterND operator page), written out. */
Test(scatter_nd, onnx_examples) {
  /* example 1: data [8], indices [[4], [3], [1], [7]] */
  float d1[8] = {1, 2, 3, 4, 5, 6, 7, 8}, o1[8];
  int64_t i1[4] = {4, 3, 1, 7};
  float u1[4] = {9, 10, 11, 12};
  const float w1[8] = {1, 11, 3, 10, 9, 6, 7, 12};
  int64_t s8[1] = {8}, si1[2] = {4, 1}, su1[1] = {4};
  clg_tensor td = clg_tensor_host(CLG_DTYPE_FLOAT, 1, s8, d1);
  clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 2, si1, i1);
  clg_tensor tu = clg_tensor_host(CLG_DTYPE_FLOAT, 1, su1, u1);
  clg_tensor to = clg_tensor_host(CLG_DTYPE_FLOAT, 1, s8, o1);
  clg_params p = {CLG_OP_SCATTER_ND, 0, 0, CLG_MODE_RAISE};
  cr_assert_eq(clg_scatter(tu_ctx(), &p, NULL, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_arr_eq(o1, w1, sizeof w1);

  /* ScatterND-16 example with reduction add: indices [[1], [1]] on data
   * [[1..4]] x ... in one dimension: data [4], updates [5, 6] */
  float d2[4] = {1, 2, 3, 4}, o2[4];
  int64_t i2[2] = {1, 1};
  float u2[2] = {5, 6};
  const float w2add[4] = {1, 13, 3, 4}, w2mul[4] = {1, 60, 3, 4};
  int64_t s4[1] = {4}, si2[2] = {2, 1}, su2[1] = {2};
  td = clg_tensor_host(CLG_DTYPE_FLOAT, 1, s4, d2);
  tx = clg_tensor_host(CLG_DTYPE_INT64, 2, si2, i2);
  tu = clg_tensor_host(CLG_DTYPE_FLOAT, 1, su2, u2);
  to = clg_tensor_host(CLG_DTYPE_FLOAT, 1, s4, o2);
  clg_scatter_params add = {CLG_REDUCTION_ADD, CLG_DUPLICATES_ERROR};
  cr_assert_eq(clg_scatter(tu_ctx(), &p, &add, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_arr_eq(o2, w2add, sizeof w2add);
  clg_scatter_params mul = {CLG_REDUCTION_MUL, CLG_DUPLICATES_ERROR};
  cr_assert_eq(clg_scatter(tu_ctx(), &p, &mul, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_arr_eq(o2, w2mul, sizeof w2mul);
}

/* ---------------------------------------------------------------- errors */

Test(scatter_nd_errors, out_of_bounds_and_duplicates) {
  float data[6] = {0, 1, 2, 3, 4, 5}, out[6], before[6];
  for (int i = 0; i < 6; ++i)
    out[i] = before[i] = -1.0f;
  int64_t ds[2] = {3, 2}, is[2] = {2, 1}, us[2] = {2, 2};
  int64_t idx[2] = {0, 3};
  float upd[4] = {7, 7, 8, 8};
  clg_tensor td = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data);
  clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 2, is, idx);
  clg_tensor tu = clg_tensor_host(CLG_DTYPE_FLOAT, 2, us, upd);
  clg_tensor to = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, out);
  clg_params p = {CLG_OP_SCATTER_ND, 0, 0, CLG_MODE_RAISE};
  cr_expect_eq(clg_scatter(tu_ctx(), &p, NULL, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  cr_expect(strstr(clg_last_error(), "indices[1]") &&
                strstr(clg_last_error(), "[-3, 2]"),
            "%s", clg_last_error());
  cr_expect_arr_eq(out, before, sizeof out);
  idx[1] = -3; /* = 0: the same slice as tuple 0 */
  cr_expect_eq(clg_scatter(tu_ctx(), &p, NULL, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_ERROR_DUPLICATE_INDEX);
  cr_expect(strstr(clg_last_error(), "tuples 0") &&
                strstr(clg_last_error(), "and 1") &&
                strstr(clg_last_error(), "data[0]"),
            "%s", clg_last_error());
  cr_expect_arr_eq(out, before, sizeof out);
  /* updates of the wrong shape */
  tu.shape[1] = 1;
  cr_expect_eq(clg_scatter(tu_ctx(), &p, NULL, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_ERROR_INCOMPATIBLE_SHAPES);
  /* a tuple longer than data's rank */
  is[1] = 3;
  tx = clg_tensor_host(CLG_DTYPE_INT64, 2, is, idx);
  cr_expect_eq(clg_scatter(tu_ctx(), &p, NULL, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_ERROR_INCOMPATIBLE_SHAPES);
  cr_expect_arr_eq(out, before, sizeof out);
}

/* cl_mem indices are read back and checked as host ones are. */
Test(scatter_nd_errors, cl_mem_indices_checked) {
  tu_storage buf = {CLG_STORAGE_BUFFER, 0, false, false};
  float data[4] = {1, 2, 3, 4};
  int64_t idx[2] = {2, 4};
  float upd[2] = {5, 6};
  int64_t ds[1] = {4}, is[2] = {2, 1}, us[1] = {2};
  tu_tensor td, tx, tu;
  tu_tensor_init(&td, CLG_DTYPE_FLOAT, 1, ds, buf, data);
  tu_tensor_init(&tx, CLG_DTYPE_INT64, 2, is, buf, idx);
  tu_tensor_init(&tu, CLG_DTYPE_FLOAT, 1, us, buf, upd);
  clg_params p = {CLG_OP_SCATTER_ND, 0, 0, CLG_MODE_RAISE};
  cr_expect_eq(clg_scatter(tu_ctx(), &p, NULL, &td.desc, &tx.desc, &tu.desc,
                           &td.desc, NULL, 0, NULL, NULL),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  float got[4];
  tu_tensor_read(&td, got);
  cr_expect_arr_eq(got, data, sizeof data, "in-place data changed");
  tu_tensor_free(&td);
  tu_tensor_free(&tx);
  tu_tensor_free(&tu);
}
