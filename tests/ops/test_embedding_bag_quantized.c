/*
 * EmbeddingBag over tables quantized per row (clg_bag_params.weight_format,
 * clgather/clgather_bag.h: PyTorch's 8-, 4- and 2-bit prepacked rows):
 *  - the library against PyTorch's own operators, bit for bit: the vectors
 *    of tests/reference/quantized_torch_vectors.h (computed once by
 *    torch.ops.quantized.embedding_bag_*_rowwise_offsets,
 *    scripts/make_quantized_vectors.py), sum with and without
 *    per_sample_weights, in host memory, in cl_mem and asynchronously;
 *  - against the plain-C reference (ref_embedding_bag()) byte for byte on
 *    generated cases: every format, mode and form, per-sample weights,
 *    padding_idx, empty bags, int32 and int64 indices and bags, each
 *    operand in host memory or a cl_mem at odd byte offsets (scales read
 *    unaligned), through plans too, strided weights (a column block read
 *    in place, reversed rows packed);
 *  - every error a quantized table adds, with its status, its message and
 *    the output untouched (host, cl_mem, asynchronous).
 * This file is part of test_embedding_bag, so its reruns force each
 * kernel variant (ITEM and BLOCK: clg_embedding_bag_q*) over it.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "support/bag_case.h"
#include "support/strided_operand.h"

#include "../reference/quantized_torch_vectors.h"

#define QV_CASES (sizeof qv_cases / sizeof qv_cases[0])

/* One torch vector through the library: offsets, sum, per-sample weights
 * where the vector has them, with storage `how` (0 host, 1 every operand
 * cl_mem, 2 the same asynchronously). */
static void torch_vector(const qv_case *v, int how) {
  bool psw = v->psw != 0;
  clg_context *ctx = tu_ctx();
  int64_t ws[2] = {QV_E, v->row_bytes}, xs[1] = {QV_N}, bs[1] = {QV_B},
          os[2] = {QV_B, QV_DIM};
  float out[QV_B * QV_DIM];
  memset(out, 0xA5, sizeof out);
  clg_bag_params p = {0};
  p.mode = CLG_BAG_SUM;
  p.form = CLG_BAGS_OFFSETS;
  p.weight_format = (uint32_t)v->weight_format;
  clg_tensor t[5];
  const void *src[5] = {v->weight, qv_indices, qv_offsets, qv_psw, out};
  const size_t bytes[5] = {(size_t)(QV_E * v->row_bytes), sizeof qv_indices,
                           sizeof qv_offsets, sizeof qv_psw, sizeof out};
  const clg_dtype dt[5] = {CLG_DTYPE_UINT8, CLG_DTYPE_INT64, CLG_DTYPE_INT64,
                           CLG_DTYPE_FLOAT, CLG_DTYPE_FLOAT};
  const int64_t *shape[5] = {ws, xs, bs, xs, os};
  const int32_t rank[5] = {2, 1, 1, 1, 2};
  cl_mem mem[5] = {NULL};
  for (int k = 0; k < 5; ++k) {
    if (how == 0) {
      t[k] = clg_tensor_host(dt[k], rank[k], shape[k], (void *)src[k]);
      continue;
    }
    cl_int err = CL_SUCCESS;
    /* The weight 3 bytes in: its scales are read at unaligned addresses. */
    size_t off = k == 0 ? 3 : 0;
    mem[k] = clCreateBuffer(tu_cl_context(), CL_MEM_READ_WRITE, bytes[k] + off,
                            NULL, &err);
    tu_cl_check(err, "clCreateBuffer");
    /* The whole buffer, its first bytes TU_SENTINEL: Oclgrind's
     * uninitialized-value check loses track of a write into part of a
     * buffer (support/bag_case.c). */
    unsigned char img[QV_E * 24 + 3];
    cr_assert(bytes[k] + off <= sizeof img, "test bug");
    memset(img, (int)TU_SENTINEL, off);
    memcpy(img + off, src[k], bytes[k]);
    tu_cl_check(clEnqueueWriteBuffer(tu_queue(), mem[k], CL_TRUE, 0,
                                     bytes[k] + off, img, 0, NULL, NULL),
                "clEnqueueWriteBuffer");
    t[k] = clg_tensor_buffer(dt[k], rank[k], shape[k], mem[k], off);
  }
  /* The test's queue, in order: the read below follows the reduction. */
  cl_command_queue q = tu_queue();
  clg_status st;
  if (how == 2) {
    clg_outcome *oc = NULL;
    st = clg_embedding_bag_async(ctx, &p, &t[0], &t[1], &t[2],
                                 psw ? &t[3] : NULL, &t[4], q, 0, NULL, NULL,
                                 &oc);
    if (st == CLG_SUCCESS) {
      st = clg_outcome_wait(oc);
      clg_outcome_release(oc);
    }
  } else {
    st = clg_embedding_bag(ctx, &p, &t[0], &t[1], &t[2], psw ? &t[3] : NULL,
                           &t[4], q, 0, NULL, NULL);
  }
  /* What the device can give (float32 needs subnormals kept). */
  bag_case c = bag_make(CLG_BAG_SUM, CLG_BAGS_OFFSETS, CLG_DTYPE_FLOAT, QV_E,
                        QV_DIM, QV_N, QV_B);
  clg_status expect = bag_expected(&c);
  cr_assert_eq(st, expect, "format %d psw %d storage %d: %s",
               (int)v->weight_format, (int)psw, how, clg_last_error());
  if (expect != CLG_SUCCESS) {
    for (int k = 0; k < 5; ++k)
      if (mem[k])
        clReleaseMemObject(mem[k]);
    return;
  }
  if (how != 0)
    tu_cl_check(clEnqueueReadBuffer(tu_queue(), mem[4], CL_TRUE, 0, sizeof out,
                                    out, 0, NULL, NULL),
                "clEnqueueReadBuffer");
  const uint32_t *want = v->out;
  for (int i = 0; i < QV_B * QV_DIM; ++i) {
    uint32_t got;
    memcpy(&got, &out[i], 4);
    cr_expect_eq(got, want[i],
                 "format %d psw %d storage %d: output[%d, %d] is 0x%08x, "
                 "torch's 0x%08x",
                 (int)v->weight_format, (int)psw, how, i / QV_DIM, i % QV_DIM,
                 got, want[i]);
  }
  for (int k = 0; k < 5; ++k)
    if (mem[k])
      clReleaseMemObject(mem[k]);
}

Test(embedding_bag_quantized, torch_bit_for_bit) {
  for (size_t k = 0; k < QV_CASES; ++k)
    for (int how = 0; how < 3; ++how)
      torch_vector(&qv_cases[k], how);
}

/* ------------------------------------------------ against the reference */

static const uint32_t formats[3] = {CLG_BAG_WEIGHT_8BIT_ROWWISE,
                                    CLG_BAG_WEIGHT_4BIT_ROWWISE,
                                    CLG_BAG_WEIGHT_2BIT_ROWWISE};

/* Every format, mode and form, the index and bag types, per-sample
 * weights, include_last_offset, empty rows and padding in turn, each
 * operand in host memory or cl_mem, events, the asynchronous call. */
Test(embedding_bag_quantized, every_format_mode_form) {
  bag_runner rn = {0};
  int n = 0;
  for (int f = 0; f < 3; ++f)
    for (int mode = 0; mode < 4; ++mode)
      for (int form = 0; form < 3; ++form)
        for (unsigned variant = 0; variant < 32; variant += 5) {
          bag_case c = bag_case_quantized(0x9b000u + (uint64_t)n, formats[f],
                                          (clg_bag_mode)mode,
                                          (clg_bag_form)form, variant);
          bag_storage_for(&c, n * 7 + 3);
          c.async = n % 5 == 1;
          c.want_event = n % 3 == 0;
          bag_run(&rn, &c, 0x9c000u + (uint64_t)n);
          ++n;
        }
  bag_finish(&rn, "every_format_mode_form");
}

/* Longer rows and bags (work-groups of many columns, BLOCK's 64 columns
 * and a partial block), special values (zero, -0 and NaN scales and
 * biases: data, not errors) and small integers. */
Test(embedding_bag_quantized, dims_and_special_values) {
  static const int64_t dims[] = {4, 8, 64, 132, 200};
  bag_runner rn = {0};
  int n = 0;
  for (int f = 0; f < 3; ++f)
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; ++d)
      for (int mode = 0; mode < 4; ++mode) {
        bag_case c = bag_make((clg_bag_mode)mode, CLG_BAGS_OFFSETS,
                              CLG_DTYPE_FLOAT, 37, dims[d], 90, 9);
        c.p.weight_format = formats[f];
        c.data = (bag_data)(n % 3);
        c.psw = mode == CLG_BAG_SUM && n % 2;
        if (n % 4 == 3)
          bag_set_padding(&c, -2, 20);
        bag_storage_for(&c, n * 11 + 1);
        bag_run(&rn, &c, 0x9d000u + (uint64_t)n);
        ++n;
      }
  bag_finish(&rn, "dims_and_special_values");
}

/* A plan made once, enqueued on new tensors (host and cl_mem, sync and
 * async). */
Test(embedding_bag_quantized, plans) {
  bag_runner rn = {0};
  clg_context *ctx = tu_ctx();
  for (int k = 0; k < 12; ++k) {
    bag_case c = bag_case_quantized(0x9e000u + (uint64_t)k, formats[k % 3],
                                    (clg_bag_mode)(k % 4),
                                    (clg_bag_form)(k % 3), (unsigned)k * 3u);
    bag_storage_for(&c, k % 2 ? 31 : 0);
    c.async = k % 4 == 1;
    clg_tensor t[5];
    bag_templates(&c, t);
    clg_plan *plan = NULL;
    clg_status st = clg_plan_create_embedding_bag(
        ctx, &c.p, &t[BAG_W], &t[BAG_I],
        c.p.form == CLG_BAGS_FIXED ? NULL : &t[BAG_B], c.psw ? &t[BAG_S] : NULL,
        &t[BAG_O], c.async ? CLG_PLAN_ASYNC_CHECK : 0, &plan);
    clg_status expect = bag_expected(&c);
    cr_assert_eq(st, expect, "case %d: %s", k, clg_last_error());
    if (expect != CLG_SUCCESS)
      continue; /* refused at the plan's creation: nothing to enqueue */
    for (int run = 0; run < 2; ++run)
      bag_run_plan(&rn, &c, ctx, plan, 0x9f000u + (uint64_t)(k * 2 + run));
    clg_plan_destroy(plan);
  }
  bag_finish(&rn, "plans");
}

/* ------------------------------------------------------------- errors */

/* The fixture's call on an 8-bit table: weight uint8 [5, 3 + 8] (its bytes
 * whatever the base left: codes, scales and biases are data), output
 * float32 [4, 3]. */
static void quantized_base(bag_fx *f, uint32_t format, int64_t row_bytes) {
  bag_fx_base(f, CLG_BAGS_OFFSETS);
  f->p.weight_format = format;
  int64_t ws[2] = {5, row_bytes};
  bag_fx_desc(f, BAG_W, CLG_DTYPE_UINT8, 2, ws);
}

Test(embedding_bag_quantized, errors_leave_the_output) {
  bag_fx f;
  int64_t v;

  quantized_base(&f, 9, 11);
  v = 9;
  bag_fx_expect(&f, CLG_ERROR_INVALID_ARGUMENT, CLG_SUCCESS, "weight_format",
                &v, 1, "unknown format");

  /* A float table with a quantized format. */
  bag_fx_base(&f, CLG_BAGS_OFFSETS);
  f.p.weight_format = CLG_BAG_WEIGHT_8BIT_ROWWISE;
  bag_fx_expect(&f, CLG_ERROR_UNSUPPORTED_DTYPE, CLG_SUCCESS,
                "weight;float;uint8", NULL, 0, "float table");

  /* Rows too short for the scale and bias. */
  quantized_base(&f, CLG_BAG_WEIGHT_8BIT_ROWWISE, 7);
  v = 7;
  bag_fx_expect(&f, CLG_ERROR_INVALID_SHAPE, CLG_SUCCESS,
                "weight;8-bit;float32", &v, 1, "8-bit row of 7 bytes");
  quantized_base(&f, CLG_BAG_WEIGHT_4BIT_ROWWISE, 3);
  v = 3;
  bag_fx_expect(&f, CLG_ERROR_INVALID_SHAPE, CLG_SUCCESS,
                "weight;4-bit;float16", &v, 1, "4-bit row of 3 bytes");

  /* Rows whose dim disagrees with the output's: 4-bit rows of 6 bytes
   * hold 4 values, the output has 3 columns. */
  quantized_base(&f, CLG_BAG_WEIGHT_4BIT_ROWWISE, 6);
  v = 4;
  bag_fx_expect(&f, CLG_ERROR_SHAPE_MISMATCH, CLG_SUCCESS, "output", &v, 1,
                "row bytes against the output");

  /* The output and per-sample weights are float32. */
  quantized_base(&f, CLG_BAG_WEIGHT_8BIT_ROWWISE, 11);
  int64_t os[2] = {4, 3};
  bag_fx_desc(&f, BAG_O, CLG_DTYPE_FLOAT16, 2, os);
  bag_fx_expect(&f, CLG_ERROR_DTYPE_MISMATCH, CLG_SUCCESS,
                "output;float16;float32", NULL, 0, "float16 output");
  quantized_base(&f, CLG_BAG_WEIGHT_8BIT_ROWWISE, 11);
  bag_fx_psw(&f);
  int64_t ps[1] = {12};
  bag_fx_desc(&f, BAG_S, CLG_DTYPE_DOUBLE, 1, ps);
  bag_fx_expect(&f, CLG_ERROR_DTYPE_MISMATCH, CLG_SUCCESS,
                "per_sample_weights;double;float32", NULL, 0,
                "float64 per_sample_weights");

  /* Values: an index out of range and a decreasing offset, found before
   * anything is written. */
  int64_t ints[2] = {5, 7};
  quantized_base(&f, CLG_BAG_WEIGHT_8BIT_ROWWISE, 11);
  bag_fx_set(&f, BAG_I, 7, 5);
  bag_fx_expect(&f, CLG_ERROR_INDEX_OUT_OF_BOUNDS, CLG_SUCCESS, "indices", ints,
                2, "index 5 at 7");
  quantized_base(&f, CLG_BAG_WEIGHT_2BIT_ROWWISE, 5);
  int64_t os2[2] = {4, 4};
  bag_fx_desc(&f, BAG_O, CLG_DTYPE_FLOAT, 2, os2);
  bag_fx_set(&f, BAG_B, 2, 1);
  int64_t bad[2] = {2, 1};
  bag_fx_expect(&f, CLG_ERROR_INVALID_BAGS, CLG_SUCCESS, "offsets", bad, 2,
                "decreasing offsets");
}

/* weight_format is the released `reserved` field: the same bytes, the
 * same layout. */
Test(embedding_bag_quantized, weight_format_is_the_reserved_field) {
  cr_assert_eq(sizeof(clg_bag_params), 24u, "the released layout");
  clg_bag_params p = {0};
  p.reserved = 2;
  cr_assert_eq(p.weight_format, CLG_BAG_WEIGHT_4BIT_ROWWISE,
               "reserved and weight_format are the same bytes");
}

/* A strided weight: a column block of a wider uint8 matrix (its rows
 * read in place with their pitch from a cl_mem, packed from host memory)
 * and rows in reverse order (packed), the same bytes out as dense. */
Test(embedding_bag_quantized, strided_weight) {
  static const lk kinds[2] = {PITCH, REVERSED};
  int n = 0;
  for (int f = 0; f < 3; ++f)
    for (int k = 0; k < 2; ++k)
      for (int device = 0; device < 2; ++device, ++n) {
        bag_case c = bag_make(CLG_BAG_SUM, CLG_BAGS_OFFSETS, CLG_DTYPE_FLOAT,
                              11, 8, 30, 5);
        c.p.weight_format = formats[f];
        c.psw = n % 2 == 1;
        bag_inputs in;
        cr_assert(bag_inputs_draw(&c, 0xa1000u + (uint64_t)n, &in) == 0);
        float want[5 * 8], got[5 * 8];
        cr_assert(bag_expect(&c, &in, want) == 0, "test bug");
        int64_t ws[2], xs[1] = {c.n}, bs[1] = {in.bags_len}, os[2] = {5, 8};
        clg_dtype wdt = bag_weight_shape(&c, ws);
        st_operand w;
        st_make(&w, wdt, 2, ws, kinds[k], device != 0, in.op[BAG_W]);
        clg_tensor xt = clg_tensor_host(c.idt, 1, xs, in.op[BAG_I]);
        clg_tensor bt = clg_tensor_host(c.bdt, 1, bs, in.op[BAG_B]);
        clg_tensor pt = clg_tensor_host(CLG_DTYPE_FLOAT, 1, xs, in.op[BAG_S]);
        clg_tensor ot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, got);
        clg_status st =
            clg_embedding_bag(tu_ctx(), &c.p, &w.view.tensor, &xt, &bt,
                              c.psw ? &pt : NULL, &ot, NULL, 0, NULL, NULL);
        cr_assert_eq(st, bag_expected(&c), "format %u %s %s: %s",
                     (unsigned)formats[f], st_kind_name(kinds[k]),
                     device ? "cl_mem" : "host", clg_last_error());
        cr_expect(st != CLG_SUCCESS || memcmp(got, want, sizeof want) == 0,
                  "format %u %s %s: the output differs from the reference",
                  (unsigned)formats[f], st_kind_name(kinds[k]),
                  device ? "cl_mem" : "host");
        st_free(&w);
        bag_inputs_free(&in);
      }
}

/* A 2-bit table's rows whose value count (four a byte) passes int64:
 * refused by name, not overflowed (the bytes themselves fit size_t). */
Test(embedding_bag_quantized, values_past_int64_refused) {
  unsigned char w[8] = {0};
  int64_t idx[1] = {0}, off[1] = {0};
  float out[4] = {0};
  int64_t ws[2] = {1, (INT64_MAX / 4) + 8}, xs[1] = {1}, bs[1] = {1},
          os[2] = {1, 4};
  clg_bag_params p = {0};
  p.weight_format = CLG_BAG_WEIGHT_2BIT_ROWWISE;
  clg_tensor wt = clg_tensor_host(CLG_DTYPE_UINT8, 2, ws, w),
             xt = clg_tensor_host(CLG_DTYPE_INT64, 1, xs, idx),
             bt = clg_tensor_host(CLG_DTYPE_INT64, 1, bs, off),
             ot = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_status st = clg_embedding_bag(tu_ctx(), &p, &wt, &xt, &bt, NULL, &ot,
                                    NULL, 0, NULL, NULL);
  cr_assert_eq(st, CLG_ERROR_SIZE_OVERFLOW, "%s: %s", clg_status_string(st),
               clg_last_error());
}
