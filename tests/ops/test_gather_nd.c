/*
 * GatherND (clg_run with CLG_OP_GATHER_ND, clg_gather_nd) against the
 * reference, byte for byte, on the real device: every element size and
 * several dtypes, int32/int64 indices, data ranks 1-5, batch_dims 0-2,
 * tuple lengths m from 1 to r - b (m == r - b: scalar slices), indices
 * ranks up to 4, both kernel variants (short and long slices), negative
 * indices, empty tensors, host and cl_mem storage with aligned and
 * misaligned offsets, clg_output_shape, clg_validate and the out-of-bounds
 * message.
 *
 * Each Test loops over many generated cases; a failure names the case.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include "support/gather_case.h"

static const clg_dtype index_types[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};
/* One dtype per element size: 1, 2, 4, 8, 16 bytes. */
static const clg_dtype sized[5] = {CLG_DTYPE_INT8, CLG_DTYPE_BFLOAT16,
                                   CLG_DTYPE_INT32, CLG_DTYPE_DOUBLE,
                                   CLG_DTYPE_COMPLEX128};

static gather_case nd_case(clg_dtype dtype, clg_dtype idt, int32_t r,
                           const int64_t *ds, int32_t q, const int64_t *is,
                           int64_t b) {
  gather_case c;
  memset(&c, 0, sizeof c);
  c.p.op = CLG_OP_GATHER_ND;
  c.p.batch_dims = b;
  c.dtype = dtype;
  c.idt = idt;
  c.r = r;
  c.q = q;
  gc_set_shape(c.dshape, r, ds);
  gc_set_shape(c.ishape, q, is);
  c.mode = TU_IDX_ANY;
  c.st[0] = c.st[1] = c.st[2] = gc_host();
  return c;
}

/* ------------------------------------------------------- all dtypes */

GC_CASES(gather_nd, every_dtype) {
  static const struct {
    int32_t r, q;
    int64_t d[3], i[3], b;
  } shapes[] = {
      {1, 2, {5}, {3, 1}, 0},          /* scalar slices */
      {2, 2, {4, 3}, {2, 1}, 0},       /* rows */
      {2, 3, {4, 3}, {2, 2, 2}, 0},    /* elements */
      {3, 2, {2, 3, 4}, {2, 1}, 1},    /* batch */
      {3, 3, {2, 3, 4}, {2, 5, 2}, 1}, /* batch, scalar slices */
      {3, 1, {2, 3, 4}, {2}, 0},       /* a single tuple */
  };
  for (size_t t = 0; t < 15; ++t)
    for (size_t k = 0; k < 2; ++k)
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        bool bufs = (t + s) % 2;
        gather_case c =
            nd_case(tu_all_dtypes[t], index_types[k], shapes[s].r, shapes[s].d,
                    shapes[s].q, shapes[s].i, shapes[s].b);
        for (int j = 0; j < 3; ++j) {
          size_t es = clg_dtype_size(j == 1 ? c.idt : c.dtype);
          c.st[j] = bufs ? gc_buf(es * (size_t)(j + 1)) : gc_host();
        }
        c.want_event = bufs;
        c.api = (gather_api)(s % 2);
        gc_run(rn, &c, 2000u + t * 100u + k * 10u + s);
      }
}

/* ----------- data ranks 1-5 x batch_dims 0-2 x m 1..r-b x indices ranks */

GC_CASES(gather_nd, ranks_batch_dims_tuple_lengths) {
  tu_rng rng = tu_rng_make(5151);
  int n = 0;
  for (int32_t r = 1; r <= 5; ++r)
    for (int32_t b = 0; b <= 2 && b < r; ++b)
      for (int32_t q = b + 1; q <= b + 3 && q <= 5; ++q)
        for (int32_t m = 1; m <= r - b; ++m) {
          int64_t ds[5], is[5];
          for (int32_t i = 0; i < r; ++i)
            ds[i] = tu_rng_range(&rng, 1, r > 3 ? 3 : 4);
          for (int32_t i = 0; i < q - 1; ++i)
            is[i] = i < b ? ds[i] : tu_rng_range(&rng, 1, 3);
          is[q - 1] = m;
          gather_case c =
              nd_case(sized[n % 5], index_types[(n / 5) % 2], r, ds, q, is, b);
          gc_storage_for(&c, n, 3);
          c.want_event = (n % 3) == 0;
          c.api = (gather_api)((n / 2) % 2);
          gc_run(rn, &c, 6000u + (uint64_t)n);
          ++n;
        }
}

/* ----------------------------------------- long slices, larger tensors */

GC_CASES(gather_nd, long_slices_and_larger_tensors) {
  static const struct {
    int32_t r, q;
    int64_t d[4], i[3], b;
    clg_dtype dtype;
  } shapes[] = {
      {2, 2, {6, 200}, {5, 1}, 0, CLG_DTYPE_FLOAT},       /* rows variant */
      {3, 3, {3, 4, 100}, {3, 7, 1}, 1, CLG_DTYPE_INT64}, /* rows, batch */
      {2, 2, {9, 1001}, {40, 1}, 0, CLG_DTYPE_UINT8},     /* odd slices */
      {3, 2, {50, 60, 7}, {3000, 2}, 0, CLG_DTYPE_FLOAT16},
      {4, 3, {4, 30, 20, 3}, {4, 500, 2}, 1, CLG_DTYPE_FLOAT},
      {3, 3, {8, 16, 16}, {8, 300, 2}, 1, CLG_DTYPE_COMPLEX64},
  };
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (int v = 0; v < 2; ++v) {
      gather_case c = nd_case(shapes[s].dtype, index_types[(s + (size_t)v) % 2],
                              shapes[s].r, shapes[s].d, shapes[s].q,
                              shapes[s].i, shapes[s].b);
      gc_storage_for(&c, (int)s * 3 + v * 7, 3);
      gc_run(rn, &c, 16000u + s * 10u + (uint64_t)v);
    }
}

/* --------------------------------------------------------- negatives */

GC_CASES(gather_nd, negative_and_edge_indices) {
  static const struct {
    int32_t r, q;
    int64_t d[3], i[3], b;
  } shapes[] = {
      {1, 2, {9}, {20, 1}, 0},      {2, 3, {4, 6}, {3, 3, 2}, 0},
      {3, 2, {3, 5, 2}, {7, 2}, 0}, {3, 3, {3, 5, 2}, {3, 4, 2}, 1},
      {2, 2, {1, 4}, {5, 2}, 0}, /* size 1: only 0 and -1 are valid */
  };
  static const tu_index_mode modes[] = {TU_IDX_NEG, TU_IDX_EDGES,
                                        TU_IDX_NONNEG};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (size_t m = 0; m < 3; ++m)
      for (size_t k = 0; k < 2; ++k) {
        gather_case c = nd_case(s % 2 ? CLG_DTYPE_UINT32 : CLG_DTYPE_UINT64,
                                index_types[k], shapes[s].r, shapes[s].d,
                                shapes[s].q, shapes[s].i, shapes[s].b);
        c.mode = modes[m];
        c.st[1] = k ? gc_buf(16) : gc_host();
        gc_run(rn, &c, 17000u + s * 100u + m * 10u + k);
      }
}

/* ------------------------------------------------------------- empty */

GC_CASES(gather_nd, empty_tensors) {
  static const struct {
    int32_t r, q;
    int64_t d[3], i[3], b;
  } shapes[] = {
      {2, 2, {3, 4}, {0, 2}, 0},    /* no tuples */
      {2, 2, {3, 0}, {2, 1}, 0},    /* empty slices */
      {2, 2, {0, 3}, {0, 1}, 0},    /* empty data, no tuples */
      {2, 2, {0, 3}, {0, 1}, 1},    /* empty batch */
      {3, 2, {2, 0, 3}, {2, 1}, 0}, /* slice with a zero */
      {2, 3, {3, 0}, {2, 0, 2}, 0}, {3, 3, {2, 3, 4}, {2, 0, 1}, 1},
  };
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (int v = 0; v < 4; ++v) {
      gather_case c = nd_case(v % 2 ? CLG_DTYPE_FLOAT : CLG_DTYPE_UINT16,
                              index_types[v % 2], shapes[s].r, shapes[s].d,
                              shapes[s].q, shapes[s].i, shapes[s].b);
      for (int j = 0; j < 3; ++j) {
        switch (v) {
        case 0: c.st[j] = gc_host(); break;
        case 1:
          c.st[j] = gc_host();
          c.st[j].null_empty = true;
          break;
        case 2: c.st[j] = gc_buf(0); break;
        default:
          c.st[j] = (j % 2) ? gc_buf(8) : gc_host();
          c.st[j].tight = true;
          c.st[j].null_empty = true;
          break;
        }
      }
      c.want_event = v >= 2;
      c.api = (gather_api)(v / 2);
      gc_run(rn, &c, 18000u + s * 10u + (uint64_t)v);
    }
}

/* ---------------------------------------------------- storage, offsets */

GC_CASES(gather_nd, storage_and_misaligned_offsets) {
  static const clg_dtype dtypes[] = {CLG_DTYPE_BOOL, CLG_DTYPE_INT16,
                                     CLG_DTYPE_UINT32, CLG_DTYPE_UINT64,
                                     CLG_DTYPE_COMPLEX128};
  static const size_t offsets[] = {0, 1, 2, 3, 4, 8, 12, 16};
  static const int64_t ds[3] = {5, 6, 7}, is[3] = {4, 3, 1}, is2[3] = {5, 3, 1};
  int n = 0;
  for (int combo = 0; combo < 8; ++combo)
    for (size_t t = 0; t < 5; ++t) {
      bool batch = (combo + (int)t) % 2;
      gather_case c = nd_case(dtypes[t], index_types[combo % 2], 3, ds, 3,
                              batch ? is2 : is, batch ? 1 : 0);
      size_t xs = clg_dtype_size(c.idt);
      for (int j = 0; j < 3; ++j) {
        bool buf = (combo >> j) & 1;
        size_t off =
            j == 1 ? xs * (size_t)(n % 3) : offsets[(size_t)(n + 3 * j) % 8];
        c.st[j] = buf ? gc_buf(off) : gc_host();
      }
      c.want_event = combo == 7;
      gc_run(rn, &c, 19000u + (uint64_t)n);
      ++n;
    }
}

/* ------------------------------------------------ forced kernel variants */

/* Each kernel variant a CPU's tuner may pick for GatherND, ITEM and
 * ITEM_PF, forced (CLGATHER_VARIANT) on a context of its own, over the
 * generators above (each one's first case and about one in
 * GATHER_ND_FORCED_EVERY of the others), as tests/ops/test_gather.c does
 * for Gather. One in four: the ITEM kernels take the copy unit, the slice's
 * length, m and (ITEM_PF) the prefetch distance as build constants, so
 * most cases build a program of their own, each a good fraction of a
 * second on POCL with a cold cache. The GPU's plans (ROWS, SMALL) run every
 * case in the *_gpu_kernels ctest run. Left out on POCL's basic driver and on
 * Oclgrind (scripts/test-devices.sh) and under the sanitizers
 * (scripts/sanitize.sh). */
#define GATHER_ND_FORCED_EVERY 4
static const gc_cases_fn gather_nd_cases[] = {
    every_dtype_cases,
    ranks_batch_dims_tuple_lengths_cases,
    long_slices_and_larger_tensors_cases,
    negative_and_edge_indices_cases,
    empty_tensors_cases,
    storage_and_misaligned_offsets_cases,
};
GC_FORCED(gather_nd, item, gather_nd_cases, GATHER_ND_FORCED_EVERY)
GC_FORCED(gather_nd, item_pf, gather_nd_cases, GATHER_ND_FORCED_EVERY)

/* ------------------------------------ shapes, validate, the message */

Test(gather_nd, output_shape_matches_reference) {
  tu_rng rng = tu_rng_make(888);
  gc_runner rn = {0};
  int accepted = 0;
  for (int n = 0; n < 3000; ++n) {
    gather_case c;
    memset(&c, 0, sizeof c);
    c.p.op = CLG_OP_GATHER_ND;
    c.r = (int32_t)tu_rng_range(&rng, 1, 5);
    c.q = (int32_t)tu_rng_range(&rng, 0, 5);
    c.p.batch_dims = tu_rng_range(&rng, -1, 3);
    for (int32_t i = 0; i < c.r; ++i)
      c.dshape[i] = tu_rng_range(&rng, 0, 4);
    for (int32_t i = 0; i < c.q; ++i)
      c.ishape[i] = i < c.r && tu_rng_range(&rng, 0, 3)
                        ? c.dshape[i]
                        : tu_rng_range(&rng, 0, 4);
    if (c.q > 0 && tu_rng_range(&rng, 0, 1))
      c.ishape[c.q - 1] = tu_rng_range(&rng, 1, 3);
    char msg[2048];
    rn.cases++;
    if (!gc_shape_agrees(&c, msg, sizeof msg)) {
      cr_expect(false, "%s", msg);
      cr_assert(++rn.failures < GC_MAX_FAILURES, "too many failures");
    }
    int32_t orank;
    int64_t os[CLG_MAX_RANK];
    accepted += gather_case_shape(&c, &orank, os) == 0;
  }
  /* Ranks above the limit: indices 16 - 1 + data 16 - m 1 = 30. */
  gather_case big;
  memset(&big, 0, sizeof big);
  big.p.op = CLG_OP_GATHER_ND;
  big.r = big.q = 16;
  for (int i = 0; i < 16; ++i)
    big.dshape[i] = big.ishape[i] = 1;
  int32_t orank;
  int64_t os[CLG_MAX_RANK];
  cr_expect(clg_output_shape(&big.p, 16, big.dshape, 16, big.ishape, &orank,
                             os) == CLG_ERROR_INVALID_RANK);
  cr_expect(tu_contains(clg_last_error(), "would have rank 30"), "%s",
            clg_last_error());
  cr_expect(accepted > 300 && accepted < 2700, "%d of 3000 accepted", accepted);
  gc_finish(&rn, "output_shape_matches_reference");
}

Test(gather_nd, out_of_bounds_message_and_validate) {
  /* data [4, 3], indices [2, 2, 2]: component 1 indexes axis 1 (size 3). */
  float data[12];
  for (int k = 0; k < 12; ++k)
    data[k] = (float)k;
  const int64_t ds[2] = {4, 3}, is[3] = {2, 2, 2}, os[2] = {2, 2};
  int32_t idx32[8] = {0, 1, 3, -3, -4, 2, 1, 0};
  int64_t idx64[8];
  for (int k = 0; k < 8; ++k)
    idx64[k] = idx32[k];
  float out[4], want[4];
  cr_assert(
      ref_gather_nd(data, 4, 2, ds, idx64, REF_INDEX_I64, 3, is, 0, want) == 0);
  for (int t = 0; t < 2; ++t) {
    clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data);
    clg_tensor i = clg_tensor_host(t ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32, 3, is,
                                   t ? (void *)idx64 : (void *)idx32);
    clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
    clg_params p = {CLG_OP_GATHER_ND, 0, 0, CLG_MODE_RAISE};
    cr_expect(clg_validate(NULL, &p, &d, &i, NULL, 0, NULL) == CLG_SUCCESS,
              "%s", clg_last_error());
    memset(out, 0, sizeof out);
    cr_assert(clg_gather_nd(tu_ctx(), &d, &i, 0, &o, NULL, 0, NULL, NULL) ==
                  CLG_SUCCESS,
              "%s", clg_last_error());
    cr_expect(memcmp(out, want, sizeof want) == 0);

    /* indices[5] = 7: position [1, 0, 1], component 1. */
    if (t)
      idx64[5] = 7;
    else
      idx32[5] = 7;
    memset(out, 0xA5, sizeof out);
    clg_status st = clg_validate(NULL, &p, &d, &i, NULL, 0, NULL);
    cr_expect(st == CLG_ERROR_INDEX_OUT_OF_BOUNDS);
    cr_expect(
        tu_contains(clg_last_error(),
                    "index out of bounds: indices[5] (position [1, 0, 1] in "
                    "indices of shape [2, 2, 2]) = 7, component 1 of the "
                    "index tuple indexes axis 1 of data, of size 3: valid "
                    "range is [-3, 2]"),
        "%s", clg_last_error());
    st = clg_run(tu_ctx(), &p, &d, &i, &o, NULL, 0, NULL, NULL);
    cr_expect(st == CLG_ERROR_INDEX_OUT_OF_BOUNDS);
    cr_expect(tu_contains(clg_last_error(), "indices[5] (position [1, 0, 1]"),
              "%s", clg_last_error());
    unsigned char *ob = (unsigned char *)out;
    for (size_t k = 0; k < sizeof out; ++k)
      cr_expect(ob[k] == 0xA5, "output written on error");

    /* Component 0 beyond -d: -5 into axis 0 of size 4. */
    if (t) {
      idx64[5] = 2;
      idx64[2] = -5;
    } else {
      idx32[5] = 2;
      idx32[2] = -5;
    }
    st = clg_validate(NULL, &p, &d, &i, NULL, 0, NULL);
    cr_expect(st == CLG_ERROR_INDEX_OUT_OF_BOUNDS);
    cr_expect(tu_contains(clg_last_error(),
                          "indices[2] (position [0, 1, 0] in indices of "
                          "shape [2, 2, 2]) = -5, component 0 of the index "
                          "tuple indexes axis 0 of data, of size 4: valid "
                          "range is [-4, 3]"),
              "%s", clg_last_error());
    if (t)
      idx64[2] = 3;
    else
      idx32[2] = 3;
  }
}
