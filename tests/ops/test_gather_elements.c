/*
 * GatherElements (clg_run with CLG_OP_GATHER_ELEMENTS, clg_gather_elements)
 * against the reference, byte for byte, on the real device: every element
 * size and several dtypes, int32/int64 indices, ranks 1-5 with every axis in
 * both forms, indices dims smaller than data's, both kernels (the collapsed
 * [pre, axis, post] one and the general one), negative indices, empty
 * tensors, host and cl_mem storage with aligned and misaligned offsets,
 * clg_output_shape and clg_validate, events and wait lists.
 *
 * Each Test loops over many generated cases; a failure names the case.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include "support/gather_case.h"

static const clg_dtype index_types[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};
/* One dtype per element size: 1, 2, 4, 8, 16 bytes. */
static const clg_dtype sized[5] = {CLG_DTYPE_UINT8, CLG_DTYPE_FLOAT16,
                                   CLG_DTYPE_FLOAT, CLG_DTYPE_INT64,
                                   CLG_DTYPE_COMPLEX128};

static gather_case ge_case(clg_dtype dtype, clg_dtype idt, int32_t r,
                           const int64_t *ds, const int64_t *is, int64_t axis) {
  gather_case c;
  memset(&c, 0, sizeof c);
  c.p.op = CLG_OP_GATHER_ELEMENTS;
  c.p.axis = axis;
  c.dtype = dtype;
  c.idt = idt;
  c.r = c.q = r;
  gc_set_shape(c.dshape, r, ds);
  gc_set_shape(c.ishape, r, is);
  c.mode = TU_IDX_ANY;
  c.st[0] = c.st[1] = c.st[2] = gc_host();
  return c;
}

/* ------------------------------------------------------- all dtypes */

GC_CASES(gather_elements, every_dtype) {
  static const struct {
    int32_t r;
    int64_t d[4], i[4], axis;
  } shapes[] = {
      {1, {7}, {5}, 0},
      {2, {3, 4}, {2, 6}, 1},
      {3, {2, 3, 5}, {2, 3, 9}, -1},
      {4, {4, 1, 3, 2}, {2, 1, 5, 2}, 2},
      {2, {6, 5}, {9, 5}, -2},
  };
  for (size_t t = 0; t < 15; ++t)
    for (size_t k = 0; k < 2; ++k)
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        bool bufs = (t + s) % 2;
        gather_case c = ge_case(tu_all_dtypes[t], index_types[k], shapes[s].r,
                                shapes[s].d, shapes[s].i, shapes[s].axis);
        for (int j = 0; j < 3; ++j) {
          size_t es = clg_dtype_size(j == 1 ? c.idt : c.dtype);
          c.st[j] = bufs ? gc_buf(es * (size_t)(j + 1)) : gc_host();
        }
        c.want_event = bufs;
        c.api = (gather_api)(s % 2);
        gc_run(rn, &c, 1000u + t * 100u + k * 10u + s);
      }
}

/* ------------------------- ranks 1-5 x every axis x every element size */

GC_CASES(gather_elements, ranks_axes_sizes) {
  tu_rng rng = tu_rng_make(4242);
  int n = 0;
  for (int32_t r = 1; r <= 5; ++r)
    for (int64_t axis = -r; axis < r; ++axis)
      for (size_t e = 0; e < 5; ++e) {
        int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
        int64_t ds[5], is[5];
        for (int32_t i = 0; i < r; ++i) {
          ds[i] = tu_rng_range(&rng, 1, r > 3 ? 3 : 5);
          /* Often whole (collapsible), sometimes smaller. */
          is[i] =
              tu_rng_range(&rng, 0, 2) ? ds[i] : tu_rng_range(&rng, 1, ds[i]);
        }
        is[a] = tu_rng_range(&rng, 1, 6);
        gather_case c = ge_case(sized[e], index_types[n % 2], r, ds, is, axis);
        gc_storage_for(&c, n, 3);
        c.want_event = (n % 3) == 0;
        c.api = (gather_api)((n / 2) % 2);
        gc_run(rn, &c, 5000u + (uint64_t)n);
        ++n;
      }
}

/* ------------------------------------- the collapse and both kernels */

GC_CASES(gather_elements, collapse_paths) {
  static const struct {
    int32_t r;
    int64_t d[10], i[10], axis;
  } shapes[] = {
      /* [pre, axis, post] after merging whole inner dims */
      {4, {4, 3, 5, 2}, {2, 3, 5, 4}, 3},
      {4, {2, 3, 5, 2}, {2, 3, 7, 2}, 2},
      /* dims of size 1 in indices (not in data) are dropped */
      {4, {5, 3, 7, 4}, {1, 3, 1, 4}, 1},
      {3, {3, 2, 4}, {3, 1, 4}, 2},
      {3, {3, 2, 4}, {3, 1, 1}, 0},
      /* a partial dim inside the post block: the general kernel */
      {3, {2, 3, 5}, {2, 3, 4}, 0},
      {4, {4, 3, 5, 2}, {2, 2, 5, 3}, 3},
      {5, {3, 4, 2, 5, 3}, {2, 3, 2, 4, 3}, 2},
      {6, {2, 3, 2, 3, 2, 3}, {1, 2, 2, 2, 2, 3}, -3},
      /* rank 10, every other dim partial */
      {10, {2, 3, 2, 3, 2, 3, 2, 3, 2, 3}, {2, 2, 2, 2, 3, 2, 2, 2, 2, 2}, 4},
      {10, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, {2, 3, 1, 3, 2, 3, 3, 2, 3, 2}, -1},
      /* axis dim 1 in indices */
      {3, {4, 5, 6}, {4, 1, 6}, 1},
      {3, {4, 5, 6}, {3, 1, 5}, 1},
  };
  int n = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (size_t e = 0; e < 5; e += 2)
      for (size_t k = 0; k < 2; ++k) {
        gather_case c = ge_case(sized[e], index_types[k], shapes[s].r,
                                shapes[s].d, shapes[s].i, shapes[s].axis);
        gc_storage_for(&c, n, 3);
        gc_run(rn, &c, 9000u + (uint64_t)n);
        ++n;
      }
}

/* --------------------------------------------------------- negatives */

GC_CASES(gather_elements, negative_and_edge_indices) {
  static const struct {
    int32_t r;
    int64_t d[3], i[3], axis;
  } shapes[] = {
      {1, {9}, {20}, 0},
      {2, {4, 6}, {3, 6}, -1},
      {3, {3, 5, 2}, {3, 7, 2}, 1},
      {2, {1, 4}, {5, 4}, 0}, /* s = 1: only 0 and -1 are valid */
  };
  static const tu_index_mode modes[] = {TU_IDX_NEG, TU_IDX_EDGES,
                                        TU_IDX_NONNEG};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (size_t m = 0; m < 3; ++m)
      for (size_t k = 0; k < 2; ++k) {
        gather_case c =
            ge_case(s % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_DOUBLE, index_types[k],
                    shapes[s].r, shapes[s].d, shapes[s].i, shapes[s].axis);
        c.mode = modes[m];
        c.st[1] = k ? gc_buf(8) : gc_host();
        gc_run(rn, &c, 12000u + s * 100u + m * 10u + k);
      }
}

/* ------------------------------------------------------------- empty */

GC_CASES(gather_elements, empty_tensors) {
  static const struct {
    int32_t r;
    int64_t d[3], i[3], axis;
  } shapes[] = {
      {3, {3, 0, 2}, {3, 0, 2}, 0}, /* zero off the axis */
      {2, {0, 3}, {0, 3}, 1},
      {2, {4, 3}, {0, 3}, 0}, /* no indices along the axis */
      {2, {4, 3}, {4, 0}, 1},
      {2, {4, 0}, {4, 0}, 1}, /* s = 0, no indices */
      {1, {0}, {0}, 0},
      {3, {2, 3, 4}, {2, 0, 4}, -1}, /* zero in indices only */
      {2, {2, 5}, {0, 0}, 0},
  };
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (int v = 0; v < 4; ++v) {
      gather_case c = ge_case(v % 2 ? CLG_DTYPE_FLOAT : CLG_DTYPE_UINT16,
                              index_types[v % 2], shapes[s].r, shapes[s].d,
                              shapes[s].i, shapes[s].axis);
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
      gc_run(rn, &c, 13000u + s * 10u + (uint64_t)v);
    }
}

/* ---------------------------------------------------- storage, offsets */

GC_CASES(gather_elements, storage_and_misaligned_offsets) {
  static const clg_dtype dtypes[] = {CLG_DTYPE_UINT8, CLG_DTYPE_BFLOAT16,
                                     CLG_DTYPE_FLOAT, CLG_DTYPE_DOUBLE,
                                     CLG_DTYPE_COMPLEX128};
  static const size_t offsets[] = {0, 1, 2, 3, 4, 8, 12, 16};
  static const int64_t ds[3] = {5, 6, 7}, is[3] = {4, 6, 9};
  int n = 0;
  for (int combo = 0; combo < 8; ++combo)
    for (size_t t = 0; t < 5; ++t) {
      gather_case c = ge_case(dtypes[t], index_types[combo % 2], 3, ds, is,
                              combo % 3 == 0 ? 2 : -1);
      size_t xs = clg_dtype_size(c.idt);
      for (int j = 0; j < 3; ++j) {
        bool buf = (combo >> j) & 1;
        size_t off =
            j == 1 ? xs * (size_t)(n % 3) : offsets[(size_t)(n + 3 * j) % 8];
        c.st[j] = buf ? gc_buf(off) : gc_host();
      }
      c.want_event = combo == 7;
      gc_run(rn, &c, 14000u + (uint64_t)n);
      ++n;
    }
}

/* ------------------------------------------------------------- large */

GC_CASES(gather_elements, larger_tensors) {
  static const struct {
    int32_t r;
    int64_t d[3], i[3], axis;
    clg_dtype dtype;
  } shapes[] = {
      {3, {64, 300, 33}, {64, 257, 33}, 1, CLG_DTYPE_FLOAT},
      {3, {64, 30, 40}, {60, 30, 37}, 2, CLG_DTYPE_UINT8},
      {2, {1000, 17}, {2500, 16}, 0, CLG_DTYPE_COMPLEX64},
      {3, {33, 64, 20}, {30, 50, 20}, -3, CLG_DTYPE_FLOAT16},
  };
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
    gather_case c = ge_case(shapes[s].dtype, index_types[s % 2], shapes[s].r,
                            shapes[s].d, shapes[s].i, shapes[s].axis);
    gc_storage_for(&c, (int)s * 3, 3);
    gc_run(rn, &c, 15000u + s);
  }
}

/* ------------------------------------------------ forced kernel variants */

/* Each kernel variant a CPU's tuner may pick for GatherElements, forced
 * (CLGATHER_VARIANT) on a context of its own, over the generators above
 * (each one's first case and about one in GATHER_ELEMENTS_FORCED_EVERY of
 * the others), as tests/ops/test_gather.c does for Gather: PLANE (rows
 * gathered along data's innermost axis), ITEM (the [np, n, nq] view) and
 * BLOCK (any view); a case whose view admits no forced variant runs the
 * tuner's choice. BLOCK, ITEM on GPUs, runs every case with GPU kernels in
 * the *_gpu_kernels ctest run. Left out on POCL's basic driver and on
 * Oclgrind (scripts/test-devices.sh) and under the sanitizers
 * (scripts/sanitize.sh). */
#define GATHER_ELEMENTS_FORCED_EVERY 2
static const gc_cases_fn gather_elements_cases[] = {
    every_dtype_cases,    ranks_axes_sizes_cases,
    collapse_paths_cases, negative_and_edge_indices_cases,
    empty_tensors_cases,  storage_and_misaligned_offsets_cases,
    larger_tensors_cases,
};
GC_FORCED(gather_elements, item, gather_elements_cases,
          GATHER_ELEMENTS_FORCED_EVERY)
GC_FORCED(gather_elements, plane, gather_elements_cases,
          GATHER_ELEMENTS_FORCED_EVERY)
GC_FORCED(gather_elements, block, gather_elements_cases,
          GATHER_ELEMENTS_FORCED_EVERY)

/* ------------------------------------ shapes, validate, events, errors */

Test(gather_elements, output_shape_matches_reference) {
  tu_rng rng = tu_rng_make(777);
  gc_runner rn = {0};
  int accepted = 0;
  for (int n = 0; n < 3000; ++n) {
    gather_case c;
    memset(&c, 0, sizeof c);
    c.p.op = CLG_OP_GATHER_ELEMENTS;
    c.r = (int32_t)tu_rng_range(&rng, 1, 5);
    c.q = tu_rng_range(&rng, 0, 5) ? c.r : (int32_t)tu_rng_range(&rng, 0, 6);
    c.p.axis = tu_rng_range(&rng, -c.r - 1, c.r);
    for (int32_t i = 0; i < c.r; ++i)
      c.dshape[i] = tu_rng_range(&rng, 0, 4);
    for (int32_t i = 0; i < c.q; ++i)
      c.ishape[i] = i < c.r && tu_rng_range(&rng, 0, 2)
                        ? c.dshape[i]
                        : tu_rng_range(&rng, 0, 5);
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
  cr_expect(accepted > 300 && accepted < 2700, "%d of 3000 accepted", accepted);
  gc_finish(&rn, "output_shape_matches_reference");
}

Test(gather_elements, validate_and_wait_list) {
  /* clg_validate without a context names the same offender as clg_run. */
  float data[12];
  for (int k = 0; k < 12; ++k)
    data[k] = (float)k;
  int64_t idx[6] = {0, 2, -3, 1, 3, 0};
  const int64_t ds[2] = {3, 4}, is[2] = {2, 3};
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data);
  clg_tensor i = clg_tensor_host(CLG_DTYPE_INT64, 2, is, idx);
  clg_params p = {CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_RAISE};
  clg_status st = clg_validate(NULL, &p, &d, &i, NULL, 0, NULL);
  cr_expect(st == CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s", clg_last_error());
  cr_expect(tu_contains(clg_last_error(),
                        "indices[4] (position [1, 1] in indices of shape "
                        "[2, 3]) = 3, but axis 0 of data has size 3: valid "
                        "range is [-3, 2]"),
            "%s", clg_last_error());
  idx[4] = -1;
  cr_expect(clg_validate(NULL, &p, &d, &i, NULL, 0, NULL) == CLG_SUCCESS, "%s",
            clg_last_error());

  /* All in cl_mem, with a wait list (the cl_mem indices are read back,
   * blocking, after it: so the user event is completed first). */
  float out[6], want[6];
  cr_assert(ref_gather_elements(data, 4, 2, ds, idx, REF_INDEX_I64, 2, is, 0,
                                want) == 0);
  cl_mem dm = tu_buffer_create(sizeof data, data);
  cl_mem im = tu_buffer_create(sizeof idx, idx);
  cl_mem om = tu_buffer_create(sizeof out, NULL);
  cl_int err = CL_SUCCESS;
  cl_event user = clCreateUserEvent(tu_cl_context(), &err);
  tu_cl_check(err, "clCreateUserEvent");
  clg_tensor db = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, dm, 0);
  clg_tensor ib = clg_tensor_buffer(CLG_DTYPE_INT64, 2, is, im, 0);
  clg_tensor ob = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, is, om, 0);
  tu_cl_check(clSetUserEventStatus(user, CL_COMPLETE), "clSetUserEventStatus");
  cl_event ev = NULL;
  st = clg_gather_elements(tu_ctx(), &db, &ib, 0, &ob, NULL, 1, &user, &ev);
  cr_assert(st == CLG_SUCCESS && ev, "%s", clg_last_error());
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
  clReleaseEvent(user);
  tu_buffer_read(om, 0, sizeof out, out);
  cr_expect(memcmp(out, want, sizeof want) == 0, "cl_mem GatherElements wrong");
  clReleaseMemObject(dm);
  clReleaseMemObject(im);
  clReleaseMemObject(om);
}
