/*
 * The checks of index values (part of test_checks; the rest is in
 * test_checks.c and test_checks_shapes.c, the shared checks in checks_fx.c):
 * out-of-bounds indices in host and cl_mem memory, clg_validate without an
 * output, the bounds scan against a brute-force loop, and buffer access
 * flags.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* sysconf */

#include "checks_fx.h"
#include "internal.h" /* clg__any_index_out_of_range */

/* ONNX Gather parameters on `axis`, for clg_validate. */
#define GP(axis) (&(clg_params){CLG_OP_GATHER, (axis), 0, CLG_MODE_RAISE})

/* --------------------------------------------------------------- OOB */

typedef struct oob_case {
  const char *label;
  clg_dtype idt;
  int32_t r;
  int64_t dshape[3];
  int64_t axis;
  int32_t q;
  int64_t ishape[2];
  int64_t bad_pos[3]; /* positions to make out of bounds (-1: unused) */
  int64_t bad_val[3];
  const char *range; /* expected range text, NULL: not checked */
} oob_case;

static void run_oob(const oob_case *c, tu_storage ist, tu_storage dst,
                    const char *variant) {
  int32_t a = (int32_t)(c->axis < 0 ? c->axis + c->r : c->axis);
  int64_t s = c->dshape[a];
  int64_t in = ref_numel(c->q, c->ishape), dn = ref_numel(c->r, c->dshape);
  size_t isz = clg_dtype_size(c->idt);
  unsigned char *idx = calloc((size_t)in + 1, isz);
  double *data = calloc((size_t)dn + 1, sizeof(double));
  cr_assert(idx && data);
  tu_rng rng = tu_rng_make(777);
  if (s > 0)
    tu_fill_indices(&rng, idx, c->idt, in, s, TU_IDX_ANY);
  for (int k = 0; k < 3; ++k)
    if (c->bad_pos[k] >= 0)
      tu_set_index(idx, c->idt, c->bad_pos[k], c->bad_val[k]);
  int64_t first = ref_first_oob(idx, tu_ref_index_type(c->idt), in, s);
  cr_assert(first >= 0, "test bug: %s has no OOB index", c->label);
  int64_t first_val = ref_index_at(idx, tu_ref_index_type(c->idt), first);

  tu_tensor ti, td;
  tu_tensor_init(&ti, c->idt, c->q, c->ishape, ist, idx);
  tu_tensor_init(&td, CLG_DTYPE_DOUBLE, c->r, c->dshape, dst, data);
  int32_t orank;
  int64_t oshape[REF_MAX_RANK];
  cr_assert(ref_gather_shape(c->r, c->dshape, c->q, c->ishape, c->axis,
                             CLG_MAX_RANK, &orank, oshape) == 0);
  out_spec o = out_of(CLG_DTYPE_DOUBLE, orank, oshape);
  o.offset = 16;

  char label[256], pos[48];
  snprintf(label, sizeof label, "%s [indices %s, data %s]", c->label, variant,
           dst.kind == CLG_STORAGE_BUFFER ? "cl_mem" : "host");
  snprintf(pos, sizeof pos, "indices[%" PRId64 "]", first);
  expect e = {CLG_ERROR_INDEX_OUT_OF_BOUNDS, 0, {pos, NULL}, {first_val}, 1};
  if (c->range)
    e.subs[1] = c->range;
  check_error(label, tu_ctx(), &td.desc, &ti.desc, c->axis, &o, e);
  tu_tensor_free(&ti);
  tu_tensor_free(&td);
  free(idx);
  free(data);
}

Test(checks, index_out_of_bounds) {
  static const oob_case cases[] = {
      {"header example: indices[3] = 7, s 5", CLG_DTYPE_INT64, 2, {5, 3}, 0,
       2, {2, 3}, {3, -1, -1}, {7, 0, 0}, "[-5, 4]"},
      {"first position = s", CLG_DTYPE_INT64, 2, {5, 3}, 0, 2, {2, 3},
       {0, -1, -1}, {5, 0, 0}, "[-5, 4]"},
      {"last position = -s-1", CLG_DTYPE_INT32, 2, {5, 3}, 0, 2, {2, 3},
       {5, -1, -1}, {-6, 0, 0}, "[-5, 4]"},
      {"middle, axis -1", CLG_DTYPE_INT32, 3, {2, 3, 4}, -1, 1, {9},
       {4, -1, -1}, {4, 0, 0}, "[-4, 3]"},
      {"middle negative, axis 1", CLG_DTYPE_INT64, 3, {2, 6, 2}, 1, 2, {3, 3},
       {4, -1, -1}, {-7, 0, 0}, "[-6, 5]"},
      {"several: the first is named", CLG_DTYPE_INT64, 1, {10}, 0, 1, {20},
       {17, 6, 12}, {-11, 10, 1000}, "[-10, 9]"},
      {"INT64_MIN", CLG_DTYPE_INT64, 1, {10}, 0, 1, {8}, {2, -1, -1},
       {INT64_MIN, 0, 0}, "[-10, 9]"},
      {"INT64_MAX", CLG_DTYPE_INT64, 1, {10}, 0, 1, {8}, {7, -1, -1},
       {INT64_MAX, 0, 0}, "[-10, 9]"},
      {"INT32_MIN", CLG_DTYPE_INT32, 1, {10}, 0, 1, {8}, {1, -1, -1},
       {INT32_MIN, 0, 0}, "[-10, 9]"},
      {"INT32_MAX", CLG_DTYPE_INT32, 2, {3, 10}, 1, 1, {8}, {6, -1, -1},
       {INT32_MAX, 0, 0}, "[-10, 9]"},
      {"scalar index", CLG_DTYPE_INT64, 2, {4, 3}, 0, 0, {0}, {0, -1, -1},
       {4, 0, 0}, "[-4, 3]"},
      {"s == 0, non-empty indices", CLG_DTYPE_INT64, 2, {0, 3}, 0, 1, {2},
       {0, 1, -1}, {0, 0, 0}, NULL},
      {"s == 0, axis 1", CLG_DTYPE_INT32, 2, {3, 0}, 1, 1, {1}, {0, -1, -1},
       {-1, 0, 0}, NULL},
      {"s == 1, index 1", CLG_DTYPE_INT32, 2, {1, 5}, 0, 1, {4},
       {3, -1, -1}, {1, 0, 0}, "[-1, 0]"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    tu_storage host = {CLG_STORAGE_HOST, 0, false, false};
    run_oob(&cases[k], host, host, "host");
  }
}

Test(checks, index_out_of_bounds_cl_mem_indices) {
  static const oob_case cases[] = {
      {"header example", CLG_DTYPE_INT64, 2, {5, 3}, 0, 2, {2, 3},
       {3, -1, -1}, {7, 0, 0}, "[-5, 4]"},
      {"last = -s-1", CLG_DTYPE_INT32, 2, {5, 3}, 0, 2, {2, 3}, {5, -1, -1},
       {-6, 0, 0}, "[-5, 4]"},
      {"several, first named", CLG_DTYPE_INT32, 2, {4, 7}, -1, 2, {5, 5},
       {13, 2, 20}, {7, -8, 100}, "[-7, 6]"},
      {"INT64_MIN", CLG_DTYPE_INT64, 1, {10}, 0, 1, {8}, {2, -1, -1},
       {INT64_MIN, 0, 0}, "[-10, 9]"},
      {"first = s", CLG_DTYPE_INT64, 2, {5, 3}, 1, 1, {4}, {0, -1, -1},
       {3, 0, 0}, "[-3, 2]"},
      {"INT64_MAX last", CLG_DTYPE_INT64, 1, {10}, 0, 1, {8}, {7, -1, -1},
       {INT64_MAX, 0, 0}, "[-10, 9]"},
      {"INT32_MIN", CLG_DTYPE_INT32, 1, {10}, 0, 1, {8}, {0, -1, -1},
       {INT32_MIN, 0, 0}, "[-10, 9]"},
      {"s == 0", CLG_DTYPE_INT64, 2, {0, 3}, 0, 1, {2}, {0, 1, -1},
       {0, 0, 0}, NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    tu_storage buf = {CLG_STORAGE_BUFFER, 0, false, false};
    tu_storage host = {CLG_STORAGE_HOST, 0, false, false};
    buf.offset = 0;
    run_oob(&cases[k], buf, host, "cl_mem");
    buf.offset = 24;
    buf.tight = true;
    run_oob(&cases[k], buf, buf, "cl_mem+24 tight");
    run_oob(&cases[k], host, buf, "host");
  }
}

/* clg_validate: the input checks of clg_gather without an output,
 * with the same statuses and messages; no device needed for host inputs. */
Test(checks, gather_validate_without_output) {
  int64_t dshape[2] = {5, 3}, ishape[2] = {2, 2};
  float data[15] = {0};
  int64_t idx[4] = {0, -5, 4, 1};
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, dshape, data);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 2, ishape, idx);

  /* Valid, with and without a context. */
  cr_expect_eq(clg_validate(NULL, GP(0), &d, &x, NULL, 0, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(clg_validate(tu_ctx(), GP(-2), &d, &x, NULL, 0, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_str_empty(clg_last_error());

  /* The same out-of-bounds message as clg_gather's. */
  idx[3] = 5;
  float out[12];
  int64_t oshape[3] = {2, 2, 3};
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, oshape, out);
  cr_assert_eq(clg_gather(tu_ctx(), &d, &x, 0, &o, NULL, 0, NULL, NULL),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  char want[1024];
  snprintf(want, sizeof want, "%s", clg_last_error());
  cr_expect_eq(clg_validate(NULL, GP(0), &d, &x, NULL, 0, NULL),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  cr_expect_str_eq(clg_last_error(), want);
  cr_expect(tu_contains(want, "indices[3]") && tu_contains(want, "[1, 1]") &&
                tu_contains(want, "= 5") && tu_contains(want, "[-5, 4]"),
            "%s", want);
  idx[3] = 1;

  /* Other input errors. */
  cr_expect_eq(clg_validate(NULL, GP(2), &d, &x, NULL, 0, NULL),
               CLG_ERROR_INVALID_AXIS);
  cr_expect_eq(clg_validate(NULL, GP(0), NULL, &x, NULL, 0, NULL),
               CLG_ERROR_NULL_ARGUMENT);
  cr_expect_eq(clg_validate(NULL, GP(0), &d, NULL, NULL, 0, NULL),
               CLG_ERROR_NULL_ARGUMENT);
  clg_tensor xf = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ishape, idx);
  cr_expect_eq(clg_validate(NULL, GP(0), &d, &xf, NULL, 0, NULL),
               CLG_ERROR_INVALID_INDICES_DTYPE);
  cl_event ev = NULL;
  cr_expect_eq(clg_validate(NULL, GP(0), &d, &x, NULL, 1, NULL),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_expect_eq(clg_validate(NULL, GP(0), &d, &x, NULL, 0, &ev),
               CLG_ERROR_INVALID_ARGUMENT);

  /* cl_mem indices: read back and checked; they need a context. */
  idx[0] = -6;
  cl_mem buf = tu_buffer_create(sizeof idx, idx);
  clg_tensor xb = clg_tensor_buffer(CLG_DTYPE_INT64, 2, ishape, buf, 0);
  cr_expect_eq(clg_validate(NULL, GP(0), &d, &xb, NULL, 0, NULL),
               CLG_ERROR_NULL_ARGUMENT);
  cr_expect(tu_contains(clg_last_error(), "ctx is NULL"), "%s",
            clg_last_error());
  cr_expect_eq(clg_validate(tu_ctx(), GP(0), &d, &xb, NULL, 0, NULL),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  cr_expect(tu_contains(clg_last_error(), "indices[0]") &&
                tu_contains(clg_last_error(), "= -6"),
            "%s", clg_last_error());
  clReleaseMemObject(buf);
}

/* The bounds scan (host/check/checks.c) against a brute-force loop: random and
 * edge values, both index types, periods 1-4 (GatherND components), bounds
 * up to the index types' extremes, unaligned addresses, and an array large
 * enough for the threaded path. */

static bool brute_out_of_range(const unsigned char *v, size_t isz, size_t n,
                               const int64_t *s, size_t period) {
  for (size_t i = 0; i < n; ++i) {
    int64_t k;
    if (isz == 4) {
      int32_t x;
      memcpy(&x, v + i * 4, 4);
      k = x;
    } else {
      memcpy(&k, v + i * 8, 8);
    }
    int64_t b = s[i % period];
    if (k < -b || k > b - 1)
      return true;
  }
  return false;
}

Test(checks, bounds_scan_matches_brute_force) {
  tu_rng rng = tu_rng_make(9100);
  static const int64_t bounds[] = {0, 1, 2, 5, 1000, (int64_t)1 << 30,
                                   ((int64_t)1 << 31) - 1, (int64_t)1 << 31,
                                   (int64_t)1 << 62, INT64_MAX};
  size_t nb = sizeof bounds / sizeof bounds[0];
  int cases = 0;
  for (int t = 0; t < 1500; ++t) {
    size_t isz = (t & 1) ? 8 : 4;
    size_t period = 1 + (size_t)tu_rng_range(&rng, 0, 3);
    size_t n = (size_t)tu_rng_range(&rng, 1, 300);
    size_t shift = (size_t)tu_rng_range(&rng, 0, 7);
    int64_t s[4];
    for (size_t j = 0; j < period; ++j)
      s[j] = bounds[tu_rng_range(&rng, 0, (int64_t)nb - 1)];
    unsigned char *buf = malloc(n * isz + 8);
    cr_assert_not_null(buf);
    unsigned char *v = buf + shift;
    for (size_t i = 0; i < n; ++i) {
      int64_t b = s[i % period], k;
      int64_t pick = tu_rng_range(&rng, 0, 9);
      if (b == 0 || pick == 0)
        k = (int64_t)tu_rng_u64(&rng);
      else if (pick == 1)
        k = -b;
      else if (pick == 2)
        k = b - 1;
      else
        k = tu_rng_range(&rng, -b, b - 1);
      /* Mostly in range: push one value out now and then. */
      if (tu_rng_range(&rng, 0, 40) == 0)
        k = tu_rng_range(&rng, 0, 1) ? (b == INT64_MAX ? INT64_MIN : b)
                                      : (b == INT64_MAX ? INT64_MIN : -b - 1);
      if (isz == 4) {
        int32_t x = (int32_t)(k < INT32_MIN ? INT32_MIN
                              : k > INT32_MAX ? INT32_MAX : k);
        memcpy(v + i * 4, &x, 4);
      } else {
        memcpy(v + i * 8, &k, 8);
      }
    }
    bool want = brute_out_of_range(v, isz, n, s, period);
    bool got = clg__any_index_out_of_range(v, isz, n, s, period, 0);
    cr_expect_eq(got, want,
                 "case %d: %zu-byte indices, n %zu, period %zu, s[0] %" PRId64
                 ": scan says %d, brute force %d",
                 t, isz, n, period, s[0], (int)got, (int)want);
    free(buf);
    ++cases;
  }
  /* Large enough for the threaded path: one offender near the end. */
  size_t n = (size_t)3 << 20; /* 24 MiB of int64 */
  int64_t *big = malloc(n * sizeof *big);
  cr_assert_not_null(big);
  for (size_t i = 0; i < n; ++i)
    big[i] = (int64_t)(i % 1000) - 500;
  int64_t s1 = 500;
  for (size_t mt = 0; mt <= 2; ++mt) /* no bound, the caller only, two */
    cr_expect(!clg__any_index_out_of_range(big, 8, n, &s1, 1, mt), "%zu", mt);
  big[n - 3] = 500;
  for (size_t mt = 0; mt <= 2; ++mt)
    cr_expect(clg__any_index_out_of_range(big, 8, n, &s1, 1, mt), "%zu", mt);
  free(big);
  /* The threads a scan takes: one below 16 MiB, never more than the bound
   * given, 8, the online CPUs or one per 8 MiB. */
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t most = cpus > 8 ? 8 : cpus > 1 ? (size_t)cpus : 1;
  cr_expect_eq(clg__scan_threads((size_t)16 << 20 >> 1, 0), 1u);
  cr_expect_eq(clg__scan_threads((size_t)1 << 30, 1), 1u);
  cr_expect_eq(clg__scan_threads((size_t)1 << 30, 0), most);
  cr_expect_eq(clg__scan_threads((size_t)1 << 30, 2), most < 2 ? most : 2u);
  cr_expect_eq(clg__scan_threads((size_t)24 << 20, 0), most < 3 ? most : 3u);
  cr_log_info("bounds scan: %d random cases", cases);
}

/* Buffer access flags: indices the host may not read are checked on the
 * device (small arrays too) with the same message as host indices; an
 * output the kernels may not write, or an input they may not read, is
 * rejected before anything runs. */
Test(checks, buffer_access_flags) {
  int64_t dshape[2] = {5, 3}, ishape[1] = {4}, oshape[2] = {4, 3};
  float data[15];
  for (int i = 0; i < 15; ++i)
    data[i] = (float)i;
  int64_t idx[4] = {4, -1, 0, 2};
  float out[12], want[12];
  for (int i = 0; i < 4; ++i)
    memcpy(want + 3 * i, data + 3 * (idx[i] < 0 ? idx[i] + 5 : idx[i]),
           3 * sizeof(float));
  cl_int err = CL_SUCCESS;
  cl_mem xb = clCreateBuffer(tu_cl_context(),
                             CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS |
                                 CL_MEM_COPY_HOST_PTR,
                             sizeof idx, idx, &err);
  tu_cl_check(err, "clCreateBuffer(HOST_NO_ACCESS)");
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, dshape, data);
  clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT64, 1, ishape, xb, 0);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, oshape, out);
  cr_assert_eq(clg_gather(tu_ctx(), &d, &x, 0, &o, NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_arr_eq(out, want, sizeof out);

  /* An out-of-bounds value in host-unreadable indices: the same message as
   * for the same indices in host memory. */
  int64_t bad[4] = {4, -1, 7, 2};
  clReleaseMemObject(xb);
  xb = clCreateBuffer(tu_cl_context(),
                      CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS |
                          CL_MEM_COPY_HOST_PTR,
                      sizeof bad, bad, &err);
  tu_cl_check(err, "clCreateBuffer(HOST_NO_ACCESS)");
  x.buffer = xb;
  clg_tensor xh = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, bad);
  cr_assert_eq(clg_gather(tu_ctx(), &d, &xh, 0, &o, NULL, 0, NULL, NULL),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  char host_msg[1024];
  snprintf(host_msg, sizeof host_msg, "%s", clg_last_error());
  float before[12];
  memcpy(before, out, sizeof out);
  cr_assert_eq(clg_gather(tu_ctx(), &d, &x, 0, &o, NULL, 0, NULL, NULL),
               CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s", clg_last_error());
  cr_expect_str_eq(clg_last_error(), host_msg);
  cr_expect_arr_eq(out, before, sizeof out);
  clReleaseMemObject(xb);

  /* A read-only output, a write-only input. */
  cl_mem ro = clCreateBuffer(tu_cl_context(), CL_MEM_READ_ONLY, sizeof out,
                             NULL, &err);
  tu_cl_check(err, "clCreateBuffer(READ_ONLY)");
  clg_tensor ob = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, oshape, ro, 0);
  x = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, idx);
  cr_expect_eq(clg_gather(tu_ctx(), &d, &x, 0, &ob, NULL, 0, NULL, NULL),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_expect(tu_contains(clg_last_error(), "CL_MEM_READ_ONLY"), "%s",
            clg_last_error());
  clReleaseMemObject(ro);
  cl_mem wo = clCreateBuffer(tu_cl_context(), CL_MEM_WRITE_ONLY, sizeof data,
                             NULL, &err);
  tu_cl_check(err, "clCreateBuffer(WRITE_ONLY)");
  clg_tensor db = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, dshape, wo, 0);
  cr_expect_eq(clg_gather(tu_ctx(), &db, &x, 0, &o, NULL, 0, NULL, NULL),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_expect(tu_contains(clg_last_error(), "data->buffer") &&
                tu_contains(clg_last_error(), "CL_MEM_WRITE_ONLY"),
            "%s", clg_last_error());
  cr_expect_arr_eq(out, before, sizeof out);
  clReleaseMemObject(wo);
}
