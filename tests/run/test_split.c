/* host/run/split.c: host tensors larger than the device's largest buffer.
 * The device's limit is lowered for each test (CLGATHER_TEST_MAX_ALLOC,
 * read when a context is created), so small tensors take every split path:
 * whole data rows per part, output rows cut into runs of indices, indices
 * larger than the limit, the axis cut into parts (an embedding table larger
 * than one buffer), with batch_dims, every mode, int32 and int64 indices,
 * host and cl_mem operands. Every result is compared byte for byte with the
 * plain-C reference (tools/reference/reference.c); a bad index is an error
 * before any part runs, with the output unchanged; what cannot be split is
 * an error that names the sizes and the limit. GatherElements, GatherND
 * and the scatters (every reduction, duplicates last, in place or not)
 * split through their slices (the slices() hook of each operator file). */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"
#include "reference/ref_scatter.h"
#include "reference/reference.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(split, .timeout = 120);

static clg_context *context_with_limit(const char *limit) {
  cr_assert_eq(setenv("CLGATHER_TEST_MAX_ALLOC", limit, 1), 0);
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS,
               "no OpenCL device: %s", clg_last_error());
  cr_assert_eq(ctx->max_alloc, (cl_ulong)strtoull(limit, NULL, 10));
  return ctx;
}

/* A deterministic fill of n bytes. */
static void fill(unsigned char *p, size_t n, unsigned seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    p[i] = (unsigned char)(x >> 24);
  }
}

typedef struct split_case {
  const char *what;
  clg_dtype dtype;
  int32_t r;
  int64_t dshape[4];
  int32_t q;
  int64_t ishape[3];
  int64_t axis, batch_dims;
  clg_index_mode mode;
  clg_dtype itype;
  bool data_buf, idx_buf, out_buf; /* cl_mem operands */
} split_case;

/* Random valid (or, for wrap/clip, wild) indices for axis size s. */
static void make_indices(void *idx, clg_dtype it, int64_t n, int64_t s,
                         clg_index_mode mode, unsigned seed) {
  uint32_t x = seed * 747796405u + 7;
  for (int64_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    int64_t span = mode == CLG_MODE_RAISE ? 2 * s : 6 * s + 5;
    int64_t v = (int64_t)(x >> 8) % span - (mode == CLG_MODE_RAISE ? s : 3 * s);
    if (it == CLG_DTYPE_INT64)
      ((int64_t *)idx)[i] = v;
    else
      ((int32_t *)idx)[i] = (int32_t)v;
  }
}

static cl_mem buffer_of(clg_context *ctx, const void *host, size_t bytes) {
  cl_int err;
  cl_context cl = clg_context_cl_context(ctx);
  cl_mem m = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            bytes ? bytes : 1, (void *)host, &err);
  cr_assert_not_null(m, "clCreateBuffer: %d", err);
  return m;
}

/* Run one case on ctx and compare with the reference. */
static void run_case(clg_context *ctx, const split_case *c, unsigned seed) {
  size_t es = clg_dtype_size(c->dtype), is = clg_dtype_size(c->itype);
  int64_t dn = ref_numel(c->r, c->dshape), xn = ref_numel(c->q, c->ishape);
  int64_t s = c->dshape[c->axis < 0 ? c->axis + c->r : c->axis];
  unsigned char *data = malloc((size_t)dn * es + 1);
  void *idx = malloc((size_t)xn * is + 1);
  fill(data, (size_t)dn * es, seed);
  make_indices(idx, c->itype, xn, s, c->mode, seed);
  int32_t orank;
  int64_t oshape[CLG_MAX_RANK];
  cr_assert_eq(ref_gather_ex_shape(c->r, c->dshape, c->q, c->ishape, c->axis,
                                   c->batch_dims, &orank, oshape),
               0);
  size_t ob = (size_t)ref_numel(orank, oshape) * es;
  unsigned char *want = malloc(ob + 1), *got = malloc(ob + 1);
  cr_assert_eq(ref_gather_ex(data, es, c->r, c->dshape, idx,
                             c->itype == CLG_DTYPE_INT64 ? REF_INDEX_I64
                                                         : REF_INDEX_I32,
                             c->q, c->ishape, c->axis, c->batch_dims,
                             (ref_mode)c->mode, want, &orank, oshape),
               0);
  memset(got, 0xab, ob);
  cl_mem dm = NULL, xm = NULL, om = NULL;
  clg_tensor d = clg_tensor_host(c->dtype, c->r, c->dshape, data);
  clg_tensor x = clg_tensor_host(c->itype, c->q, c->ishape, idx);
  clg_tensor o = clg_tensor_host(c->dtype, orank, oshape, got);
  if (c->data_buf)
    d = clg_tensor_buffer(c->dtype, c->r, c->dshape,
                          dm = buffer_of(ctx, data, (size_t)dn * es), 0);
  if (c->idx_buf)
    x = clg_tensor_buffer(c->itype, c->q, c->ishape,
                          xm = buffer_of(ctx, idx, (size_t)xn * is), 0);
  if (c->out_buf)
    o = clg_tensor_buffer(c->dtype, orank, oshape, om = buffer_of(ctx, got, ob),
                          0);
  clg_params p = {.op = CLG_OP_GATHER,
                  .axis = c->axis,
                  .batch_dims = c->batch_dims,
                  .mode = c->mode};
  cl_event ev = NULL;
  clg_status st = clg_run(ctx, &p, &d, &x, &o, NULL, 0, NULL, &ev);
  cr_assert_eq(st, CLG_SUCCESS, "%s: %s", c->what, clg_last_error());
  cr_assert_not_null(ev, "%s: no event", c->what);
  cr_assert_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
  clReleaseEvent(ev);
  if (om)
    cr_assert_eq(clEnqueueReadBuffer(clg_context_queue(ctx), om, CL_TRUE, 0,
                                     ob, got, 0, NULL, NULL),
                 CL_SUCCESS);
  cr_expect_eq(memcmp(got, want, ob), 0, "%s (seed %u): wrong bytes", c->what,
               seed);
  if (dm)
    clReleaseMemObject(dm);
  if (xm)
    clReleaseMemObject(xm);
  if (om)
    clReleaseMemObject(om);
  free(data);
  free(idx);
  free(want);
  free(got);
}

#define F CLG_DTYPE_FLOAT
#define I64 CLG_DTYPE_INT64
#define I32 CLG_DTYPE_INT32

/* Limit 4096 bytes for every case below. */
static const split_case cases[] = {
    /* An embedding table [300, 16] f32 (19200 bytes): the axis in parts of
     * 64 rows, 1000 indices into a scratch of at most 64 slices. */
    {"table, axis parts", F, 2, {300, 16}, 1, {1000}, 0, 0, CLG_MODE_RAISE,
     I64, false, false, false},
    {"table, int32, cl_mem output", F, 2, {300, 16}, 2, {25, 40}, 0, 0,
     CLG_MODE_RAISE, I32, false, false, true},
    {"table, wrap, cl_mem indices", F, 2, {300, 16}, 1, {500}, 0, 0,
     CLG_MODE_WRAP, I64, false, true, false},
    {"table, clip", CLG_DTYPE_UINT8, 2, {5000, 3}, 1, {777}, 0, 0,
     CLG_MODE_CLIP, I32, false, false, false},
    /* Rows that fit: data [40, 50, 8] f32 on axis 1 (1600-byte rows). */
    {"rows, axis 1", F, 3, {40, 50, 8}, 1, {30}, 1, 0, CLG_MODE_RAISE, I64,
     false, false, false},
    {"rows, axis 2, wrap", CLG_DTYPE_INT16, 3, {30, 20, 40}, 2, {3, 7}, 2, 0,
     CLG_MODE_WRAP, I32, false, false, true},
    /* An output row larger than the limit: runs of indices. */
    {"output runs", F, 3, {6, 10, 16}, 1, {200}, 1, 0, CLG_MODE_RAISE, I64,
     true, false, false},
    /* Indices larger than the limit, data and output in cl_mem. */
    {"indices runs", CLG_DTYPE_UINT8, 2, {100, 2}, 1, {3000}, 0, 0,
     CLG_MODE_RAISE, I64, true, false, true},
    /* batch_dims: parts never span two batch rows. */
    {"batch_dims 1, rows", F, 3, {7, 40, 10}, 2, {7, 9}, 1, 1, CLG_MODE_RAISE,
     I64, false, false, false},
    {"batch_dims 1, axis parts", F, 3, {3, 200, 8}, 2, {3, 150}, 1, 1,
     CLG_MODE_CLIP, I32, false, true, false},
    {"batch_dims 2, axis 3", CLG_DTYPE_DOUBLE, 4, {2, 3, 8, 30}, 3, {2, 3, 11},
     3, 2, CLG_MODE_RAISE, I64, false, false, false},
    {"rank-0 indices", F, 2, {400, 4}, 0, {0}, 0, 0, CLG_MODE_RAISE, I64,
     false, false, false},
};

Test(split, every_path_matches_the_reference) {
  clg_context *ctx = context_with_limit("4096");
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    for (unsigned seed = 1; seed <= 3; ++seed)
      run_case(ctx, &cases[k], seed * 31 + (unsigned)k);
  clg_context_destroy(ctx);
}

/* Control: the same cases with the real limit run in one piece. */
Test(split, same_cases_unsplit) {
  cr_assert_eq(unsetenv("CLGATHER_TEST_MAX_ALLOC"), 0);
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    run_case(ctx, &cases[k], 5);
  clg_context_destroy(ctx);
}

/* A bad index: the error before any part runs, the output untouched. */
Test(split, bad_index_writes_nothing) {
  clg_context *ctx = context_with_limit("1024");
  float data[500][4];
  fill((unsigned char *)data, sizeof data, 9);
  int64_t idx[300];
  for (int i = 0; i < 300; ++i)
    idx[i] = (i * 37) % 500;
  idx[211] = 500;
  float out[300][4];
  memset(out, 0x5c, sizeof out);
  int64_t ds[2] = {500, 4}, is[1] = {300}, os[2] = {300, 4};
  clg_tensor d = clg_tensor_host(F, 2, ds, data);
  clg_tensor x = clg_tensor_host(I64, 1, is, idx);
  clg_tensor o = clg_tensor_host(F, 2, os, out);
  cr_assert_eq(clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, NULL),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  cr_expect(strstr(clg_last_error(), "indices[211]") != NULL, "%s",
            clg_last_error());
  for (size_t i = 0; i < sizeof out; ++i)
    cr_assert_eq(((unsigned char *)out)[i], 0x5c, "output byte %zu written", i);
  clg_context_destroy(ctx);
}

/* What cannot be split: the sizes and the limit in the message. */
Test(split, unsplittable_errors_name_sizes) {
  clg_context *ctx = context_with_limit("1000");
  /* One slice (the dimensions after the axis) larger than the limit. */
  float big[3][400], out[2][400];
  memset(big, 0, sizeof big);
  memset(out, 0x11, sizeof out);
  int64_t ds[2] = {3, 400}, is[1] = {2}, os[2] = {2, 400};
  int64_t idx[2] = {0, 2};
  clg_tensor d = clg_tensor_host(F, 2, ds, big);
  clg_tensor x = clg_tensor_host(I64, 1, is, idx);
  clg_tensor o = clg_tensor_host(F, 2, os, out);
  cr_assert_eq(clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, NULL),
               CLG_ERROR_OPENCL);
  const char *m = clg_last_error();
  cr_expect(strstr(m, "Gather's host data is 4800 bytes") != NULL, "%s", m);
  cr_expect(strstr(m, "CL_DEVICE_MAX_MEM_ALLOC_SIZE = 1000 bytes") != NULL,
            "%s", m);
  cr_expect(strstr(m, "one slice") != NULL, "%s", m);
  for (size_t i = 0; i < sizeof out; ++i)
    cr_assert_eq(((unsigned char *)out)[i], 0x11);
  clg_context_destroy(ctx);
}

/* GatherElements and GatherND over host data larger than the limit. */
Test(split, gather_elements_and_nd) {
  clg_context *ctx = context_with_limit("2048");
  enum { R = 40, C = 30 };
  float data[R][C];
  fill((unsigned char *)data, sizeof data, 3);
  for (int axis = 0; axis < 2; ++axis) {
    int64_t is[2] = {axis ? R : 25, axis ? 17 : C};
    int64_t n = is[0] * is[1];
    int64_t *idx = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; ++i)
      idx[i] = (i * 7919 + 13) % (2 * (axis ? C : R)) - (axis ? C : R);
    float *want = malloc((size_t)n * 4), *got = malloc((size_t)n * 4);
    int64_t ds[2] = {R, C};
    cr_assert_eq(ref_gather_elements(data, 4, 2, ds, idx, REF_INDEX_I64, 2, is,
                                     axis, want),
                 0);
    memset(got, 0x3c, (size_t)n * 4);
    clg_tensor d = clg_tensor_host(F, 2, ds, data);
    clg_tensor x = clg_tensor_host(I64, 2, is, idx);
    clg_tensor o = clg_tensor_host(F, 2, is, got);
    cr_assert_eq(clg_gather_elements(ctx, &d, &x, axis, &o, NULL, 0, NULL,
                                     NULL),
                 CLG_SUCCESS, "%s", clg_last_error());
    cr_expect_eq(memcmp(got, want, (size_t)n * 4), 0, "GatherElements axis %d",
                 axis);
    free(idx);
    free(want);
    free(got);
  }
  /* GatherND, batch_dims 1: data [4, 20, 10, 3] f32, tuples of 2. */
  int64_t ds[4] = {4, 20, 10, 3}, is[3] = {4, 33, 2};
  float *nd = malloc(4 * 20 * 10 * 3 * 4);
  fill((unsigned char *)nd, 4 * 20 * 10 * 3 * 4, 4);
  int32_t tuples[4 * 33 * 2];
  for (int i = 0; i < 4 * 33; ++i) {
    tuples[2 * i] = (i * 37) % 40 - 20;
    tuples[2 * i + 1] = (i * 11) % 20 - 10;
  }
  float want[4 * 33 * 3], got[4 * 33 * 3];
  cr_assert_eq(ref_gather_nd(nd, 4, 4, ds, tuples, REF_INDEX_I32, 3, is, 1,
                             want),
               0);
  memset(got, 0x3c, sizeof got);
  int64_t os[3] = {4, 33, 3};
  clg_tensor d = clg_tensor_host(F, 4, ds, nd);
  clg_tensor x = clg_tensor_host(I32, 3, is, tuples);
  clg_tensor o = clg_tensor_host(F, 3, os, got);
  cr_assert_eq(clg_gather_nd(ctx, &d, &x, 1, &o, NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(memcmp(got, want, sizeof got), 0, "GatherND");
  free(nd);
  clg_context_destroy(ctx);
}

/* The scatters over a host table larger than the limit: every reduction,
 * repeated targets applied in entry order, in place and not. */
Test(split, scatters_every_reduction) {
  clg_context *ctx = context_with_limit("2048");
  enum { ROWS = 300, W = 6, N = 500 };
  int64_t ds[2] = {ROWS, W};
  float *data = malloc(ROWS * W * 4), *got = malloc(ROWS * W * 4),
        *want = malloc(ROWS * W * 4), *upd = malloc(N * W * 4);
  int64_t idx[N];
  for (int i = 0; i < N; ++i)
    idx[i] = (i * 131) % (2 * ROWS) - ROWS; /* repeats, negatives */
  for (int red = 0; red <= 4; ++red)
    for (int inplace = 0; inplace < 2; ++inplace) {
      fill((unsigned char *)data, ROWS * W * 4, 7 + (unsigned)red);
      fill((unsigned char *)upd, N * W * 4, 8 + (unsigned)red);
      for (int i = 0; i < ROWS * W; ++i) /* finite values */
        data[i] = (float)((i % 97) - 40) / 8.0f;
      for (int i = 0; i < N * W; ++i)
        upd[i] = (float)((i * 31) % 61 - 30) / 16.0f;
      memcpy(want, data, ROWS * W * 4);
      int64_t bad = 0, first = 0, is[2] = {N, 1}, us[2] = {N, W};
      cr_assert_eq(ref_scatter_nd(want, F, 2, ds, idx, REF_INDEX_I64, 2, is,
                                  upd, (ref_reduction)red, 1, &bad, &first),
                   REF_OK);
      clg_scatter_params sc = {.reduction = (clg_reduction)red,
                               .duplicates = CLG_DUPLICATES_LAST};
      clg_params p = {.op = CLG_OP_SCATTER_ND};
      float *out = inplace ? data : got;
      if (!inplace)
        memset(got, 0x5a, ROWS * W * 4);
      clg_tensor d = clg_tensor_host(F, 2, ds, data);
      clg_tensor x = clg_tensor_host(I64, 2, is, idx);
      clg_tensor u = clg_tensor_host(F, 2, us, upd);
      clg_tensor o = clg_tensor_host(F, 2, ds, out);
      cr_assert_eq(clg_scatter(ctx, &p, &sc, &d, &x, &u, &o, NULL, 0, NULL,
                               NULL),
                   CLG_SUCCESS, "%s", clg_last_error());
      cr_expect_eq(memcmp(out, want, ROWS * W * 4), 0,
                   "ScatterND reduction %d, in place %d", red, inplace);
    }
  /* ScatterElements add on axis 1 of the same table. */
  fill((unsigned char *)data, ROWS * W * 4, 21);
  for (int i = 0; i < ROWS * W; ++i)
    data[i] = (float)(i % 13);
  int64_t is[2] = {ROWS, 4};
  int32_t ei[ROWS * 4];
  float eu[ROWS * 4];
  for (int i = 0; i < ROWS * 4; ++i) {
    ei[i] = (i * 5) % (2 * W) - W;
    eu[i] = (float)(i % 7) - 3.0f;
  }
  memcpy(want, data, ROWS * W * 4);
  int64_t bad = 0, first = 0;
  cr_assert_eq(ref_scatter_elements(want, F, 2, ds, ei, REF_INDEX_I32, is, eu,
                                    1, REF_RED_ADD, 0, &bad, &first),
               REF_OK);
  clg_scatter_params sc = {.reduction = CLG_REDUCTION_ADD};
  clg_params p = {.op = CLG_OP_SCATTER_ELEMENTS, .axis = 1};
  memset(got, 0x5a, ROWS * W * 4);
  clg_tensor d = clg_tensor_host(F, 2, ds, data);
  clg_tensor x = clg_tensor_host(I32, 2, is, ei);
  clg_tensor u = clg_tensor_host(F, 2, is, eu);
  clg_tensor o = clg_tensor_host(F, 2, ds, got);
  cr_assert_eq(clg_scatter(ctx, &p, &sc, &d, &x, &u, &o, NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(memcmp(got, want, ROWS * W * 4), 0, "ScatterElements add");
  /* A repeated target under reduction none: the error, output unchanged. */
  clg_scatter_params none = {0};
  clg_params pn = {.op = CLG_OP_SCATTER_ND};
  int64_t nis[2] = {N, 1}, nus[2] = {N, W};
  memset(got, 0x5a, ROWS * W * 4);
  clg_tensor nd = clg_tensor_host(F, 2, ds, data);
  clg_tensor nx = clg_tensor_host(I64, 2, nis, idx);
  clg_tensor nu = clg_tensor_host(F, 2, nus, upd);
  clg_tensor no = clg_tensor_host(F, 2, ds, got);
  cr_assert_eq(clg_scatter(ctx, &pn, &none, &nd, &nx, &nu, &no, NULL, 0, NULL,
                           NULL),
               CLG_ERROR_DUPLICATE_INDEX);
  for (size_t i = 0; i < ROWS * W * 4; ++i)
    cr_assert_eq(((unsigned char *)got)[i], 0x5a, "output byte %zu", i);
  free(data);
  free(got);
  free(want);
  free(upd);
  clg_context_destroy(ctx);
}
