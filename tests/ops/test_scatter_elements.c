/*
 * ScatterElements (and ONNX Scatter, opset 9) against the plain-C
 * sequential reference (tools/reference/ref_scatter_elements.c), byte for byte:
 * every element type under every reduction, ranks 1-4, negative axes and
 * indices, int32 and int64 indices, repeated targets, host and cl_mem
 * tensors, in place and not; ONNX's documented examples; every error
 * before anything is written, with the output unchanged.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#if defined(CLGATHER_TESTING) /* not in the run against the shipped library */
#include "internal.h" /* clg__stage_output, for the staged flags */
#endif
#include "support/scatter_case.h"

/* per_type random cases of op (tools/cases/scatter.h) of every element
 * type with arithmetic for the reduction. */
static void se_sweep(clg_op op, clg_reduction red, clg_duplicates dup,
                     bool unique, unsigned per_type) {
  for (size_t t = 0; t < scatter_ndtypes; ++t) {
    bool complex = scatter_dtypes[t] == CLG_DTYPE_COMPLEX64 ||
                   scatter_dtypes[t] == CLG_DTYPE_COMPLEX128;
    if (complex && (red == CLG_REDUCTION_MIN || red == CLG_REDUCTION_MAX))
      continue;
    for (unsigned k = 0; k < per_type; ++k) {
      scatter_case c = scatter_elements_case_random(
          1000u * (unsigned)red + 100u * (unsigned)t + k, op, scatter_dtypes[t],
          CLG_DTYPE_UNDEFINED, (clg_scatter_params){red, dup},
          unique ? SCATTER_TARGETS_DISTINCT : SCATTER_TARGETS_ANY);
      sc_run(&c);
    }
  }
}

Test(scatter_elements, none_unique_every_type) {
  se_sweep(CLG_OP_SCATTER_ELEMENTS, CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR,
           true, 4);
}
Test(scatter_elements, none_duplicates_last_every_type) {
  se_sweep(CLG_OP_SCATTER_ELEMENTS, CLG_REDUCTION_NONE, CLG_DUPLICATES_LAST,
           false, 4);
}
Test(scatter_elements, add_every_type) {
  se_sweep(CLG_OP_SCATTER_ELEMENTS, CLG_REDUCTION_ADD, CLG_DUPLICATES_ERROR,
           false, 4);
}
Test(scatter_elements, mul_every_type) {
  se_sweep(CLG_OP_SCATTER_ELEMENTS, CLG_REDUCTION_MUL, CLG_DUPLICATES_ERROR,
           false, 4);
}
Test(scatter_elements, min_every_type) {
  se_sweep(CLG_OP_SCATTER_ELEMENTS, CLG_REDUCTION_MIN, CLG_DUPLICATES_ERROR,
           false, 4);
}
Test(scatter_elements, max_every_type) {
  se_sweep(CLG_OP_SCATTER_ELEMENTS, CLG_REDUCTION_MAX, CLG_DUPLICATES_ERROR,
           false, 4);
}
Test(scatter_elements, scatter_opset9_is_none) {
  se_sweep(CLG_OP_SCATTER, CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR, true, 2);
}

/* Many updates to few targets: long segments, applied in order. */
Test(scatter_elements, long_segments_in_order) {
  clg_reduction reds[] = {CLG_REDUCTION_ADD, CLG_REDUCTION_MUL,
                          CLG_REDUCTION_MIN, CLG_REDUCTION_MAX};
  for (size_t i = 0; i < 4; ++i) {
    scatter_case c;
    memset(&c, 0, sizeof c);
    c.op = CLG_OP_SCATTER_ELEMENTS;
    c.sp.reduction = reds[i];
    c.dtype = i % 2 ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT;
    c.idt = CLG_DTYPE_INT64;
    c.r = c.q = 2;
    c.ds[0] = 3;
    c.ds[1] = 2;
    c.is[0] = 300;
    c.is[1] = 2;
    c.axis = 0;
    c.storage = CLG_STORAGE_BUFFER;
    c.special = i >= 2;
    c.seed = 77 + i;
    sc_run(&c);
  }
}

/* ONNX's documented examples (ScatterElements operator page), written out. */
static void se_example(int64_t axis, int32_t r, const int64_t *ds,
                       const float *data, const int64_t *is,
                       const int64_t *idx, const float *upd,
                       clg_reduction red, const float *want) {
  size_t dn = (size_t)tu_numel(r, ds), xn = (size_t)tu_numel(r, is);
  float out[16];
  clg_tensor td = clg_tensor_host(CLG_DTYPE_FLOAT, r, ds, (void *)data);
  clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, r, is, (void *)idx);
  clg_tensor tu = clg_tensor_host(CLG_DTYPE_FLOAT, r, is, (void *)upd);
  clg_tensor to = clg_tensor_host(CLG_DTYPE_FLOAT, r, ds, out);
  clg_params p = {CLG_OP_SCATTER_ELEMENTS, axis, 0, CLG_MODE_RAISE};
  clg_scatter_params sp = {red, CLG_DUPLICATES_ERROR};
  cr_assert_eq(clg_scatter(tu_ctx(), &p, &sp, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  (void)xn;
  cr_expect_arr_eq(out, want, dn * sizeof(float));
}

Test(scatter_elements, onnx_examples) {
  const int64_t ds[2] = {3, 3}, is[2] = {2, 3};
  const float zero[9] = {0};
  const int64_t idx[6] = {1, 0, 2, 0, 2, 1};
  const float upd[6] = {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f};
  const float want1[9] = {2.0f, 1.1f, 0.0f, 1.0f, 0.0f,
                          2.2f, 0.0f, 2.1f, 1.2f};
  se_example(0, 2, ds, zero, is, idx, upd, CLG_REDUCTION_NONE, want1);

  const int64_t ds2[2] = {1, 5}, is2[2] = {1, 2};
  const float data2[5] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  const int64_t idx2[2] = {1, 3};
  const float upd2[2] = {1.1f, 2.1f};
  const float want2[5] = {1.0f, 1.1f, 3.0f, 2.1f, 5.0f};
  se_example(1, 2, ds2, data2, is2, idx2, upd2, CLG_REDUCTION_NONE, want2);

  /* reduction add with a repeated index (ScatterElements-16 example) */
  const int64_t idx3[2] = {1, 1};
  const float want3[5] = {1.0f, 5.2f, 3.0f, 4.0f, 5.0f};
  se_example(1, 2, ds2, data2, is2, idx3, upd2, CLG_REDUCTION_ADD, want3);
  /* reduction max / min (ScatterElements-18 examples) */
  const float want4[5] = {1.0f, 2.1f, 3.0f, 4.0f, 5.0f};
  se_example(1, 2, ds2, data2, is2, idx3, upd2, CLG_REDUCTION_MAX, want4);
  const float want5[5] = {1.0f, 1.1f, 3.0f, 4.0f, 5.0f};
  se_example(1, 2, ds2, data2, is2, idx3, upd2, CLG_REDUCTION_MIN, want5);
}

/* ---------------------------------------------------------------- errors */

typedef struct se_err {
  float data[6], upd[4], out[6], before[6];
  int64_t idx[4];
  int64_t ds[2], is[2];
  clg_tensor td, tx, tu, to;
} se_err;

/* data [2, 3], indices / updates [2, 2], output sentinel-filled. */
static void se_err_init(se_err *e) {
  for (int i = 0; i < 6; ++i) {
    e->data[i] = (float)i;
    e->out[i] = e->before[i] = -7.0f;
  }
  for (int i = 0; i < 4; ++i) {
    e->upd[i] = 10.0f + (float)i;
    e->idx[i] = i % 2;
  }
  e->ds[0] = 2;
  e->ds[1] = 3;
  e->is[0] = e->is[1] = 2;
  e->td = clg_tensor_host(CLG_DTYPE_FLOAT, 2, e->ds, e->data);
  e->tx = clg_tensor_host(CLG_DTYPE_INT64, 2, e->is, e->idx);
  e->tu = clg_tensor_host(CLG_DTYPE_FLOAT, 2, e->is, e->upd);
  e->to = clg_tensor_host(CLG_DTYPE_FLOAT, 2, e->ds, e->out);
}

static clg_status se_err_run(se_err *e, clg_op op, int64_t axis,
                             clg_reduction red, clg_duplicates dup) {
  clg_params p = {op, axis, 0, CLG_MODE_RAISE};
  clg_scatter_params sp = {red, dup};
  return clg_scatter(tu_ctx(), &p, &sp, &e->td, &e->tx, &e->tu, &e->to, NULL,
                     0, NULL, NULL);
}

static void se_expect_untouched(const se_err *e) {
  cr_expect_arr_eq(e->out, e->before, sizeof e->out, "output was written");
}

Test(scatter_elements_errors, out_of_bounds_before_anything) {
  se_err e;
  se_err_init(&e);
  e.idx[3] = 3; /* axis 1 has size 3 */
  cr_expect_eq(se_err_run(&e, CLG_OP_SCATTER_ELEMENTS, 1, CLG_REDUCTION_ADD,
                          CLG_DUPLICATES_ERROR),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  cr_expect(strstr(clg_last_error(), "indices[3]") &&
                strstr(clg_last_error(), "= 3") &&
                strstr(clg_last_error(), "[-3, 2]"),
            "%s", clg_last_error());
  se_expect_untouched(&e);
  e.idx[3] = -4;
  cr_expect_eq(se_err_run(&e, CLG_OP_SCATTER_ELEMENTS, 1, CLG_REDUCTION_NONE,
                          CLG_DUPLICATES_ERROR),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  se_expect_untouched(&e);
}

Test(scatter_elements_errors, duplicates_under_none) {
  se_err e;
  se_err_init(&e);
  e.idx[0] = 2;
  e.idx[1] = -1; /* row 0: both write column 2 */
  cr_expect_eq(se_err_run(&e, CLG_OP_SCATTER_ELEMENTS, 1, CLG_REDUCTION_NONE,
                          CLG_DUPLICATES_ERROR),
               CLG_ERROR_DUPLICATE_INDEX);
  const char *m = clg_last_error();
  cr_expect(strstr(m, "indices[0]") && strstr(m, "indices[1]") &&
                strstr(m, "[0, 2]"),
            "%s", m);
  se_expect_untouched(&e);
  /* the same with duplicates = last: the later one wins */
  cr_expect_eq(se_err_run(&e, CLG_OP_SCATTER_ELEMENTS, 1, CLG_REDUCTION_NONE,
                          CLG_DUPLICATES_LAST),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(e.out[2], e.upd[1]);
}

Test(scatter_elements_errors, arguments) {
  se_err e;
  se_err_init(&e);
  clg_params p = {CLG_OP_SCATTER_ELEMENTS, 1, 0, CLG_MODE_RAISE};
  /* a scatter through clg_run, a gather through clg_scatter */
  cr_expect_eq(clg_run(tu_ctx(), &p, &e.td, &e.tx, &e.to, NULL, 0, NULL, NULL),
               CLG_ERROR_INVALID_ARGUMENT);
  clg_params g = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  cr_expect_eq(clg_scatter(tu_ctx(), &g, NULL, &e.td, &e.tx, &e.tu, &e.to,
                           NULL, 0, NULL, NULL),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_expect_eq(clg_scatter(tu_ctx(), &p, NULL, &e.td, &e.tx, NULL, &e.to,
                           NULL, 0, NULL, NULL),
               CLG_ERROR_NULL_ARGUMENT);
  cr_expect_eq(clg_scatter(tu_ctx(), NULL, NULL, &e.td, &e.tx, &e.tu, &e.to,
                           NULL, 0, NULL, NULL),
               CLG_ERROR_NULL_ARGUMENT);
  /* unknown reduction / duplicates rule; Scatter-9 with a reduction */
  cr_expect_eq(se_err_run(&e, CLG_OP_SCATTER_ELEMENTS, 1, (clg_reduction)9,
                          CLG_DUPLICATES_ERROR),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_expect_eq(se_err_run(&e, CLG_OP_SCATTER_ELEMENTS, 1, CLG_REDUCTION_ADD,
                          (clg_duplicates)5),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_expect_eq(se_err_run(&e, CLG_OP_SCATTER, 1, CLG_REDUCTION_ADD,
                          CLG_DUPLICATES_ERROR),
               CLG_ERROR_INVALID_ARGUMENT);
  /* updates of another shape or type */
  e.tu.shape[1] = 1;
  cr_expect_eq(se_err_run(&e, CLG_OP_SCATTER_ELEMENTS, 1, CLG_REDUCTION_NONE,
                          CLG_DUPLICATES_LAST),
               CLG_ERROR_INCOMPATIBLE_SHAPES);
  e.tu.shape[1] = 2;
  e.tu.dtype = CLG_DTYPE_INT32;
  cr_expect_eq(se_err_run(&e, CLG_OP_SCATTER_ELEMENTS, 1, CLG_REDUCTION_NONE,
                          CLG_DUPLICATES_LAST),
               CLG_ERROR_DTYPE_MISMATCH);
  e.tu.dtype = CLG_DTYPE_FLOAT;
  /* min on complex numbers: every tensor of rank 1, shape [2] (16 bytes of
   * complex64 in each array) */
  e.td.dtype = e.tu.dtype = e.to.dtype = CLG_DTYPE_COMPLEX64;
  e.td.rank = e.to.rank = e.tx.rank = e.tu.rank = 1;
  e.td.shape[0] = e.to.shape[0] = 2;
  e.idx[0] = 0;
  e.idx[1] = 1;
  cr_expect_eq(se_err_run(&e, CLG_OP_SCATTER_ELEMENTS, 0, CLG_REDUCTION_MIN,
                          CLG_DUPLICATES_ERROR),
               CLG_ERROR_UNSUPPORTED_DTYPE, "%s", clg_last_error());
  se_expect_untouched(&e);
}

/* The output may be data itself, but no other overlap. */
Test(scatter_elements_errors, partial_overlap) {
  float buf[12];
  for (int i = 0; i < 12; ++i)
    buf[i] = (float)i;
  float keep[12];
  memcpy(keep, buf, sizeof buf);
  int64_t ds[1] = {6}, is[1] = {2};
  int64_t idx[2] = {0, 1};
  float upd[2] = {9, 9};
  clg_tensor td = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, buf);
  clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  clg_tensor tu = clg_tensor_host(CLG_DTYPE_FLOAT, 1, is, upd);
  clg_tensor to = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, buf + 2);
  clg_params p = {CLG_OP_SCATTER_ELEMENTS, 0, 0, CLG_MODE_RAISE};
  cr_expect_eq(clg_scatter(tu_ctx(), &p, NULL, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_expect_arr_eq(buf, keep, sizeof buf);
  /* output = updates is not allowed either */
  clg_tensor tu_out = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, buf);
  clg_tensor tu_in = clg_tensor_host(CLG_DTYPE_FLOAT, 1, is, buf);
  clg_tensor td2 = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, keep);
  cr_expect_eq(clg_scatter(tu_ctx(), &p, NULL, &td2, &tx, &tu_in, &tu_out,
                           NULL, 0, NULL, NULL),
               CLG_ERROR_INVALID_ARGUMENT);
}

/* No entries: the output is data. */
Test(scatter_elements, empty_indices) {
  float data[3] = {1, 2, 3}, out[3] = {0, 0, 0};
  int64_t ds[1] = {3}, is[1] = {0};
  clg_tensor td = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, data);
  clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 1, is, NULL);
  clg_tensor tu = clg_tensor_host(CLG_DTYPE_FLOAT, 1, is, NULL);
  clg_tensor to = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, out);
  clg_params p = {CLG_OP_SCATTER_ELEMENTS, 0, 0, CLG_MODE_RAISE};
  cr_assert_eq(clg_scatter(tu_ctx(), &p, NULL, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_arr_eq(out, data, sizeof data);
  /* in place: nothing to do */
  cr_assert_eq(clg_scatter(tu_ctx(), &p, NULL, &td, &tx, &tu, &td, NULL, 0,
                           NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
}

/* A scatter with a reduction reads its output (each update is combined with
 * the element it lands on): a caller's output buffer created
 * CL_MEM_WRITE_ONLY is refused before anything runs, naming the tensor and
 * the flag, the buffer untouched (ScatterElements and ScatterND, every
 * reduction). Reduction none only writes the output: the same buffer is
 * taken and written. CL_MEM_READ_ONLY outputs are refused for every
 * operator (test_checks). */
Test(scatter_elements_errors, write_only_output_of_a_reduction) {
  static const clg_reduction reds[] = {CLG_REDUCTION_ADD, CLG_REDUCTION_MUL,
                                       CLG_REDUCTION_MIN, CLG_REDUCTION_MAX};
  static const char *const names[] = {"add", "mul", "min", "max"};
  float data[6] = {1, 2, 3, 4, 5, 6}, upd[4] = {10, 20, 30, 40};
  float sentinel[6] = {-7, -7, -7, -7, -7, -7};
  int64_t ds[1] = {6}, is[1] = {4}, idx[4] = {5, 0, 5, 2};
  int64_t nd_is[2] = {4, 1}, nd_us[1] = {4};
  cl_int err = CL_SUCCESS;
  cl_mem wo = clCreateBuffer(tu_cl_context(),
                             CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR,
                             sizeof sentinel, sentinel, &err);
  tu_cl_check(err, "clCreateBuffer(WRITE_ONLY)");
  clg_tensor td = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, data);
  clg_tensor tu = clg_tensor_host(CLG_DTYPE_FLOAT, 1, is, upd);
  clg_tensor to = clg_tensor_buffer(CLG_DTYPE_FLOAT, 1, ds, wo, 0);
  for (int nd = 0; nd < 2; ++nd)
    for (int r = 0; r < 4; ++r) {
      clg_params p = {nd ? CLG_OP_SCATTER_ND : CLG_OP_SCATTER_ELEMENTS, 0, 0,
                      CLG_MODE_RAISE};
      clg_tensor tx = nd ? clg_tensor_host(CLG_DTYPE_INT64, 2, nd_is, idx)
                         : clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
      clg_tensor tu_ = nd ? clg_tensor_host(CLG_DTYPE_FLOAT, 1, nd_us, upd)
                          : tu;
      clg_scatter_params sp = {reds[r], CLG_DUPLICATES_ERROR};
      cl_event ev = NULL;
      clg_status st = clg_scatter(tu_ctx(), &p, &sp, &td, &tx, &tu_, &to,
                                  NULL, 0, NULL, &ev);
      const char *op = nd ? "ScatterND" : "ScatterElements";
      cr_expect_eq(st, CLG_ERROR_INVALID_ARGUMENT, "%s %s: %s", op, names[r],
                   clg_status_string(st));
      cr_expect(ev == NULL, "%s %s: an event on error", op, names[r]);
      char want[200];
      snprintf(want, sizeof want,
               "output->buffer was created with CL_MEM_WRITE_ONLY, but %s "
               "with reduction %s reads its output",
               op, names[r]);
      cr_expect(tu_contains(clg_last_error(), want), "%s %s: \"%s\"", op,
                names[r], clg_last_error());
      float got[6];
      tu_cl_check(clEnqueueReadBuffer(tu_queue(), wo, CL_TRUE, 0, sizeof got,
                                      got, 0, NULL, NULL),
                  "clEnqueueReadBuffer");
      cr_expect_arr_eq(got, sentinel, sizeof got, "%s %s: output changed",
                       op, names[r]);
    }
  /* Reduction none only writes it: taken (duplicates last). */
  clg_params p = {CLG_OP_SCATTER_ELEMENTS, 0, 0, CLG_MODE_RAISE};
  clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  clg_scatter_params sp = {CLG_REDUCTION_NONE, CLG_DUPLICATES_LAST};
  cr_expect_eq(clg_scatter(tu_ctx(), &p, &sp, &td, &tx, &tu, &to, NULL, 0,
                           NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  float got[6], want[6] = {20, 2, 40, 4, 5, 30};
  tu_cl_check(clEnqueueReadBuffer(tu_queue(), wo, CL_TRUE, 0, sizeof got, got,
                                  0, NULL, NULL),
              "clEnqueueReadBuffer");
  cr_expect_arr_eq(got, want, sizeof got, "reduction none into a write-only "
                   "output: wrong output");
  clReleaseMemObject(wo);
}

#if defined(CLGATHER_TESTING)
/* Host outputs are staged with the flags their kernels need (an internal
 * look at clg__stage_output, which call.c feeds clg__reads_output): write-only
 * when only written, read-write when read (a reduction) or kept (in
 * place); never a write-only buffer that a kernel reads. */
Test(scatter_elements, staged_output_flags) {
  float host[4] = {1, 2, 3, 4};
  int64_t ds[1] = {4};
  clg_tensor t = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, host);
  struct {
    bool keep, read;
    cl_mem_flags want;
  } cases[] = {{false, false, CL_MEM_WRITE_ONLY},
               {false, true, CL_MEM_READ_WRITE},
               {true, false, CL_MEM_READ_WRITE},
               {true, true, CL_MEM_READ_WRITE}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    clg_staged o;
    cr_assert_eq(clg__stage_output(tu_ctx(), &t, sizeof host, 4, cases[i].keep,
                                   cases[i].read, &o),
                 CLG_SUCCESS, "%s", clg_last_error());
    cl_mem_flags f = 0;
    tu_cl_check(clGetMemObjectInfo(o.mem, CL_MEM_FLAGS, sizeof f, &f, NULL),
                "clGetMemObjectInfo");
    cl_mem_flags access =
        f & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY);
    cr_expect_eq(access, cases[i].want,
                 "keep %d read %d: access flags 0x%llx, want 0x%llx",
                 cases[i].keep, cases[i].read, (unsigned long long)access,
                 (unsigned long long)cases[i].want);
    clg__unstage(&o);
  }
}
#endif

/* A NaN that add or mul gives is the type's one quiet NaN, positive with
 * no payload (include/clgather/clgather.h, clg_reduction): neither an
 * operand's payload and sign nor the hardware's own NaN (x86 0xFFC00000,
 * NVIDIA 0x7FFFFFFF) reaches the output. The bits below are written out
 * from that rule: a signalling NaN with a payload (A) and a negative quiet
 * one (B) as operands, inf - inf and inf * 0, and a plain sum and product
 * beside them. Complex: two elements, components in order. */
typedef struct se_nan {
  clg_dtype dt;
  size_t comp; /* bytes of a component */
  int n;       /* elements; complex: 2, each of 2 components */
  uint64_t data[4], upd_add[4], upd_mul[4], add[4], mul[4];
} se_nan;

#define F_(one, two, three, five, six, inf, ninf, a, b, c, dt, sz)            \
  {dt, sz, 4, {a, one, inf, two}, {one, b, ninf, three},                      \
   {one, b, 0, three}, {c, c, c, five}, {c, c, c, six}}
#define C_(one, three, five, six, two, a, b, c, dt, sz)                       \
  {dt, sz, 2, {a, one, two, 0}, {one, b, three, 0}, {one, b, three, 0},       \
   {c, c, five, 0}, {c, c, six, 0}}
static const se_nan se_nans[] = {
    F_(0x3F800000, 0x40000000, 0x40400000, 0x40A00000, 0x40C00000,
       0x7F800000, 0xFF800000, 0x7F812345, 0xFFC12345, 0x7FC00000,
       CLG_DTYPE_FLOAT, 4),
    F_(0x3FF0000000000000, 0x4000000000000000, 0x4008000000000000,
       0x4014000000000000, 0x4018000000000000, 0x7FF0000000000000,
       0xFFF0000000000000, 0x7FF0000000012345, 0xFFF8000000054321,
       0x7FF8000000000000, CLG_DTYPE_DOUBLE, 8),
    F_(0x3C00, 0x4000, 0x4200, 0x4500, 0x4600, 0x7C00, 0xFC00, 0x7D23,
       0xFE45, 0x7E00, CLG_DTYPE_FLOAT16, 2),
    F_(0x3F80, 0x4000, 0x4040, 0x40A0, 0x40C0, 0x7F80, 0xFF80, 0x7F91,
       0xFFD1, 0x7FC0, CLG_DTYPE_BFLOAT16, 2),
    C_(0x3F800000, 0x40400000, 0x40A00000, 0x40C00000, 0x40000000,
       0x7F812345, 0xFFC12345, 0x7FC00000, CLG_DTYPE_COMPLEX64, 4),
    C_(0x3FF0000000000000, 0x4008000000000000, 0x4014000000000000,
       0x4018000000000000, 0x4000000000000000, 0x7FF0000000012345,
       0xFFF8000000054321, 0x7FF8000000000000, CLG_DTYPE_COMPLEX128, 8),
};
#undef F_
#undef C_

/* Components' bits into `dst`, each in the host's byte order. */
static void se_bits(void *dst, const uint64_t *v, size_t comp) {
  for (int i = 0; i < 4; ++i) {
    unsigned char *p = (unsigned char *)dst + (size_t)i * comp;
    if (comp == 2) {
      uint16_t h = (uint16_t)v[i];
      memcpy(p, &h, 2);
    } else if (comp == 4) {
      uint32_t w = (uint32_t)v[i];
      memcpy(p, &w, 4);
    } else {
      memcpy(p, &v[i], 8);
    }
  }
}

Test(scatter_elements, nan_results_are_one_quiet_nan) {
  for (size_t k = 0; k < sizeof se_nans / sizeof se_nans[0]; ++k)
    for (int mul = 0; mul < 2; ++mul) {
      const se_nan *c = &se_nans[k];
      _Alignas(64) unsigned char data[32], upd[32], out[32], want[32];
      se_bits(data, c->data, c->comp);
      se_bits(upd, mul ? c->upd_mul : c->upd_add, c->comp);
      se_bits(want, mul ? c->mul : c->add, c->comp);
      memset(out, 0xA5, sizeof out);
      const int64_t shape[1] = {c->n}, idx[4] = {0, 1, 2, 3};
      clg_tensor td = clg_tensor_host(c->dt, 1, shape, data);
      clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 1, shape, (void *)idx);
      clg_tensor tu = clg_tensor_host(c->dt, 1, shape, upd);
      clg_tensor to = clg_tensor_host(c->dt, 1, shape, out);
      clg_params p = {CLG_OP_SCATTER_ELEMENTS, 0, 0, CLG_MODE_RAISE};
      clg_scatter_params sp = {mul ? CLG_REDUCTION_MUL : CLG_REDUCTION_ADD,
                               CLG_DUPLICATES_ERROR};
      cr_assert_eq(clg_scatter(tu_ctx(), &p, &sp, &td, &tx, &tu, &to, NULL, 0,
                               NULL, NULL),
                   CLG_SUCCESS, "%s", clg_last_error());
      ptrdiff_t d = tu_first_diff(out, want, 4 * c->comp);
      cr_expect_eq(d, -1, "%s %s: first differing byte %td: got %02x, want %02x",
                   clg_dtype_name(c->dt), mul ? "mul" : "add", d,
                   d < 0 ? 0 : out[d], d < 0 ? 0 : want[d]);
    }
}
