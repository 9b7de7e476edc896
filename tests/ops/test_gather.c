/*
 * Gather (clg_run with CLG_OP_GATHER, clg_gather) against the reference
 * gather, byte for byte, on the real device: every element size and
 * fixed-size dtype, int32/int64 indices, data ranks 1-6 with every axis in
 * both forms, index ranks 0-3, negative indices, empty tensors, every
 * host/cl_mem storage combination with offsets, clg_output_shape and
 * clg_validate, events, caller queues, and each CPU kernel variant forced
 * over these generators (the case runner: support/gather_case.h).
 *
 * Each Test loops over many generated cases; a failure names the case.
 * The rest of the suite, its Tests written out by hand (the index modes on
 * one known tensor, wait lists, chained events, concurrent callers), is in
 * test_gather_calls.c; index_types is in gather_fx.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <string.h>

#include "gather_fx.h"
#include "support/gather_case.h"

/* ------------------------------------------------------- all dtypes */

GC_CASES(gather, every_dtype) {
  static const struct {
    int32_t r, q;
    int64_t d[4], i[3], axis;
  } shapes[] = {
      {1, 1, {7}, {5}, 0},
      {2, 2, {3, 4}, {2, 3}, 1},
      {3, 0, {2, 3, 5}, {0}, -2},
      {4, 3, {2, 1, 3, 2}, {2, 2, 2}, 2},
      {2, 1, {6, 5}, {9}, -2},
  };
  for (size_t t = 0; t < 15; ++t)
    for (size_t k = 0; k < 2; ++k)
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int bufs = 0; bufs < 2; ++bufs) {
          gather_case c = {0};
          c.dtype = tu_all_dtypes[t];
          c.idt = index_types[k];
          c.r = shapes[s].r;
          c.q = shapes[s].q;
          gc_set_shape(c.dshape, c.r, shapes[s].d);
          gc_set_shape(c.ishape, c.q, shapes[s].i);
          c.p.axis = shapes[s].axis;
          c.mode = TU_IDX_ANY;
          for (int j = 0; j < 3; ++j) {
            size_t es = clg_dtype_size(j == 1 ? c.idt : c.dtype);
            c.st[j] = bufs ? gc_buf(es * (size_t)(j + 1)) : gc_host();
          }
          c.want_event = bufs;
          c.api = (gather_api)(s % 2); /* clg_run or clg_gather */
          gc_run(rn, &c, 1000u + t * 100u + k * 10u + s);
        }
}

/* ------------------------------------- data ranks 1-6 x every axis x q 0-3 */

static void ranks_and_axes(gc_runner *rn, clg_dtype dtype, uint64_t seed0) {
  tu_rng rng = tu_rng_make(seed0);
  int n = 0;
  for (int32_t r = 1; r <= 6; ++r)
    for (int64_t axis = -r; axis < r; ++axis)
      for (int32_t q = 0; q <= 3; ++q)
        for (size_t k = 0; k < 2; ++k) {
          gather_case c = {0};
          c.dtype = dtype;
          c.idt = index_types[k];
          c.r = r;
          c.q = q;
          c.p.axis = axis;
          int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
          for (int32_t i = 0; i < r; ++i)
            c.dshape[i] = tu_rng_range(&rng, 1, r > 4 ? 3 : 4);
          c.dshape[a] = tu_rng_range(&rng, 1, 5);
          for (int32_t i = 0; i < q; ++i)
            c.ishape[i] = tu_rng_range(&rng, 1, 3);
          c.mode = TU_IDX_ANY;
          gc_storage_for(&c, n, 4);
          c.want_event = (n % 3) == 0;
          gc_run(rn, &c, seed0 + (uint64_t)n);
          ++n;
        }
}

GC_CASES(gather, ranks_axes_1byte) {
  ranks_and_axes(rn, CLG_DTYPE_UINT8, 10000);
}
GC_CASES(gather, ranks_axes_2byte) {
  ranks_and_axes(rn, CLG_DTYPE_FLOAT16, 20000);
}
GC_CASES(gather, ranks_axes_4byte) {
  ranks_and_axes(rn, CLG_DTYPE_FLOAT, 30000);
}
GC_CASES(gather, ranks_axes_8byte) {
  ranks_and_axes(rn, CLG_DTYPE_INT64, 40000);
}
GC_CASES(gather, ranks_axes_16byte) {
  ranks_and_axes(rn, CLG_DTYPE_COMPLEX128, 50000);
}

/* ------------------------------------------ batch_dims and index modes */

static const clg_dtype one_per_size[5] = {CLG_DTYPE_INT8, CLG_DTYPE_BFLOAT16,
                                          CLG_DTYPE_FLOAT, CLG_DTYPE_DOUBLE,
                                          CLG_DTYPE_COMPLEX128};

/* TensorFlow batch_dims (tf.gather, GatherV2): every b in [1, min(q, a)],
 * in both the positive and the negative (b - q) form, every axis a >= b,
 * ranks up to 5, all element sizes, storages and both index types. */
GC_CASES(gather, batch_dims) {
  tu_rng rng = tu_rng_make(61000);
  int n = 0;
  for (int32_t r = 2; r <= 5; ++r)
    for (int32_t q = 1; q <= 3; ++q)
      for (int32_t b = 1; b <= q && b < r; ++b)
        for (int32_t a = b; a < r; ++a) {
          gather_case c = {0};
          c.dtype = one_per_size[n % 5];
          c.idt = index_types[(n / 5) % 2];
          c.r = r;
          c.q = q;
          c.p.axis = (n & 1) ? a - r : a;
          c.p.batch_dims = (n & 2) ? b - q : b;
          for (int32_t i = 0; i < r; ++i)
            c.dshape[i] = tu_rng_range(&rng, 1, 3);
          c.dshape[a] = tu_rng_range(&rng, 1, 6);
          for (int32_t i = 0; i < q; ++i)
            c.ishape[i] = i < b ? c.dshape[i] : tu_rng_range(&rng, 1, 4);
          c.mode = TU_IDX_ANY;
          c.p.mode = (clg_index_mode)(n % 3); /* RAISE, WRAP, CLIP */
          gc_storage_for(&c, n, 4);
          c.want_event = (n % 4) == 0;
          gc_run(rn, &c, 61000u + (uint64_t)n);
          ++n;
        }
}

/* More output slices than NDRange dim 1 may hold on some drivers (65535):
 * the ROWS kernel (run by the *_gpu_kernels ctest) strides over the rest. */
GC_CASES(gather, more_slices_than_ndrange_dim1) {
  gather_case c = {0};
  c.dtype = CLG_DTYPE_FLOAT;
  c.idt = CLG_DTYPE_INT32;
  c.r = 2;
  c.dshape[0] = 100;
  c.dshape[1] = 128; /* 512-byte slices: the ROWS variant on GPUs */
  c.q = 1;
  c.ishape[0] = 70000;
  c.mode = TU_IDX_ANY;
  c.st[0] = c.st[1] = c.st[2] = gc_buf(0);
  gc_run(rn, &c, 64000);
  c.p.batch_dims = 0;
  c.p.mode = CLG_MODE_WRAP;
  c.mode = TU_IDX_WILD;
  gc_run(rn, &c, 64001);
}

/* numpy.take's wrap and clip: any index value, the index types' extremes
 * included, maps into [0, s) (clip sends negatives to 0). */
GC_CASES(gather, wrap_and_clip_modes) {
  static const struct {
    int32_t r;
    int64_t dshape[4];
    int64_t axis;
    int32_t q;
    int64_t ishape[3];
  } shapes[] = {
      {1, {7}, 0, 1, {40}},           {2, {5, 3}, 0, 2, {4, 6}},
      {2, {6, 33}, -1, 1, {50}},      {3, {2, 9, 40}, 1, 0, {0}},
      {3, {4, 1, 5}, 1, 2, {3, 3}},   {4, {2, 3, 4, 70}, 2, 1, {17}},
      {2, {1000, 4}, 0, 1, {300}},    {3, {3, 2, 600}, -2, 1, {5}},
  };
  int n = 0;
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
    for (int m = 1; m <= 2; ++m)
      for (int k = 0; k < 5; ++k) {
        gather_case c = {0};
        c.dtype = one_per_size[k];
        c.idt = index_types[(n / 3) % 2];
        c.r = shapes[i].r;
        gc_set_shape(c.dshape, c.r, shapes[i].dshape);
        c.p.axis = shapes[i].axis;
        c.q = shapes[i].q;
        gc_set_shape(c.ishape, c.q, shapes[i].ishape);
        c.mode = TU_IDX_WILD;
        c.p.mode = (clg_index_mode)m;
        gc_storage_for(&c, n, 4);
        gc_run(rn, &c, 62000u + (uint64_t)n);
        ++n;
      }
}

/* --------------------------------------------------------- negatives */

GC_CASES(gather, negative_indices) {
  static const struct {
    int32_t r, q;
    int64_t d[3], i[2], axis;
  } shapes[] = {
      {1, 1, {9}, {20}, 0},         {2, 2, {4, 6}, {3, 3}, -1},
      {3, 1, {3, 5, 2}, {7}, 1},    {3, 0, {3, 5, 2}, {0}, -3},
      {2, 1, {1, 4}, {5}, 0}, /* s = 1: only 0 and -1 are valid */
  };
  static const tu_index_mode modes[] = {TU_IDX_NEG, TU_IDX_ANY, TU_IDX_EDGES};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (size_t m = 0; m < 3; ++m)
      for (size_t k = 0; k < 2; ++k)
        for (int bufs = 0; bufs < 2; ++bufs) {
          gather_case c = {0};
          c.dtype = s % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_DOUBLE;
          c.idt = index_types[k];
          c.r = shapes[s].r;
          c.q = shapes[s].q;
          gc_set_shape(c.dshape, c.r, shapes[s].d);
          gc_set_shape(c.ishape, c.q, shapes[s].i);
          c.p.axis = shapes[s].axis;
          c.mode = modes[m];
          c.st[0] = gc_host();
          c.st[1] = bufs ? gc_buf(8) : gc_host();
          c.st[2] = bufs ? gc_buf(0) : gc_host();
          gc_run(rn, &c, 60000u + s * 100u + m * 10u + k);
        }
}

/* ------------------------------------------------------------- empty */

GC_CASES(gather, empty_tensors) {
  static const struct {
    int32_t r, q;
    int64_t d[3], i[2], axis;
  } shapes[] = {
      {3, 1, {3, 0, 2}, {2}, 0},  /* zero after the axis */
      {2, 1, {0, 3}, {2}, 1},     /* zero before the axis */
      {3, 2, {2, 3, 0}, {2, 2}, -2},
      {2, 1, {4, 3}, {0}, 0},     /* no indices */
      {2, 2, {4, 3}, {2, 0}, 1},  /* no indices, rank 2 */
      {1, 1, {0}, {0}, 0},        /* zero-size axis, empty indices */
      {3, 2, {2, 0, 3}, {0, 5}, 1},
      {2, 1, {2, 0}, {0}, -1},
      {2, 1, {0, 0}, {0}, 0},
  };
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (size_t k = 0; k < 2; ++k)
      for (int v = 0; v < 4; ++v) {
        gather_case c = {0};
        c.dtype = k ? CLG_DTYPE_FLOAT : CLG_DTYPE_UINT16;
        c.idt = index_types[k];
        c.r = shapes[s].r;
        c.q = shapes[s].q;
        gc_set_shape(c.dshape, c.r, shapes[s].d);
        gc_set_shape(c.ishape, c.q, shapes[s].i);
        c.p.axis = shapes[s].axis;
        c.mode = TU_IDX_ANY;
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
        gc_run(rn, &c, 70000u + s * 10u + k);
      }
}

/* ----------------------------------------------------------- storage */

GC_CASES(gather, storage_combinations) {
  static const clg_dtype dtypes[] = {CLG_DTYPE_UINT8, CLG_DTYPE_FLOAT,
                                     CLG_DTYPE_COMPLEX128};
  for (int combo = 0; combo < 8; ++combo)
    for (int offs = 0; offs < 5; ++offs)
      for (size_t t = 0; t < 3; ++t)
        for (size_t k = 0; k < 2; ++k) {
          gather_case c = {0};
          c.dtype = dtypes[t];
          c.idt = index_types[k];
          c.r = 3;
          c.dshape[0] = 5;
          c.dshape[1] = 6;
          c.dshape[2] = 7;
          c.q = 2;
          c.ishape[0] = 3;
          c.ishape[1] = 4;
          c.p.axis = (combo + offs) % 2 ? 1 : -2;
          c.mode = TU_IDX_ANY;
          for (int j = 0; j < 3; ++j) {
            size_t es = clg_dtype_size(j == 1 ? c.idt : c.dtype);
            /* offs 0: none, 1-3: one tensor, 4: all (large offset). */
            size_t off = 0;
            if (offs == 4)
              off = es * 64u;
            else if (offs == j + 1)
              off = es * 3u;
            c.st[j] = ((combo >> j) & 1) ? gc_buf(off) : gc_host();
            c.st[j].tight = (k == 1);
          }
          c.want_event = (t == 1);
          gc_run(rn, &c,
                 80000u + (uint64_t)(combo * 100 + offs * 10) + t * 2 + k);
        }
}

/* data/output offsets that are not a multiple of the element size: the
 * header allows any byte offset. (The indices offset stays a multiple of the
 * index size: the library rejects others, see test_checks.) */
GC_CASES(gather, buffer_unaligned_offsets) {
  static const clg_dtype dtypes[] = {CLG_DTYPE_UINT16, CLG_DTYPE_FLOAT,
                                     CLG_DTYPE_DOUBLE, CLG_DTYPE_COMPLEX128};
  static const size_t offs[] = {1, 3, 5, 7};
  for (size_t t = 0; t < 4; ++t)
    for (size_t o = 0; o < 4; ++o)
      for (size_t k = 0; k < 2; ++k) {
        gather_case c = {0};
        c.dtype = dtypes[t];
        c.idt = index_types[k];
        c.r = 2;
        c.dshape[0] = 7;
        c.dshape[1] = 5;
        c.q = 1;
        c.ishape[0] = 6;
        c.p.axis = (int64_t)(o % 2);
        c.mode = TU_IDX_ANY;
        for (int j = 0; j < 3; ++j)
          c.st[j] = gc_buf(offs[(o + (size_t)j) % 4]);
        c.st[1] = gc_buf(clg_dtype_size(c.idt) * (o + 1));
        c.want_event = true;
        gc_run(rn, &c, 90000u + t * 10u + o);
      }
}

/* Slices of every byte width from 1 to 17 elements, and larger tensors, to
 * reach every copy width the planner can choose. */
GC_CASES(gather, slice_widths_and_sizes) {
  static const clg_dtype dtypes[] = {CLG_DTYPE_INT8, CLG_DTYPE_INT16,
                                     CLG_DTYPE_UINT32, CLG_DTYPE_DOUBLE,
                                     CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128};
  for (size_t t = 0; t < 6; ++t)
    for (int64_t inner = 1; inner <= 17; ++inner) {
      gather_case c = {0};
      c.dtype = dtypes[t];
      c.idt = inner % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
      c.r = 3;
      c.dshape[0] = 2;
      c.dshape[1] = 9;
      c.dshape[2] = inner;
      c.q = 1;
      c.ishape[0] = 11;
      c.p.axis = 1;
      c.mode = TU_IDX_ANY;
      for (int j = 0; j < 3; ++j) {
        size_t es = clg_dtype_size(j == 1 ? c.idt : c.dtype);
        c.st[j] =
            (inner + j) % 3 ? gc_buf(es * (size_t)(inner % 4)) : gc_host();
      }
      gc_run(rn, &c, 100000u + t * 100u + (uint64_t)inner);
    }
  static const struct {
    clg_dtype dt;
    int32_t r, q;
    int64_t d[3], i[2], axis;
  } big[] = {
      {CLG_DTYPE_FLOAT, 2, 1, {64, 257}, {300}, 0},
      {CLG_DTYPE_UINT8, 2, 2, {1000, 33}, {7, 5}, 1},
      {CLG_DTYPE_INT8, 2, 1, {3, 100000}, {4}, 0},
      {CLG_DTYPE_DOUBLE, 1, 1, {50000}, {70000}, 0},
      {CLG_DTYPE_BFLOAT16, 3, 1, {17, 300, 19}, {100}, -2},
      {CLG_DTYPE_COMPLEX128, 2, 1, {1000, 16}, {2000}, 0},
  };
  for (size_t b = 0; b < sizeof big / sizeof big[0]; ++b)
    for (int bufs = 0; bufs < 2; ++bufs) {
      gather_case c = {0};
      c.dtype = big[b].dt;
      c.idt = bufs ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
      c.r = big[b].r;
      c.q = big[b].q;
      gc_set_shape(c.dshape, c.r, big[b].d);
      gc_set_shape(c.ishape, c.q, big[b].i);
      c.p.axis = big[b].axis;
      c.mode = TU_IDX_ANY;
      for (int j = 0; j < 3; ++j)
        c.st[j] = bufs ? gc_buf(16) : gc_host();
      c.want_event = bufs;
      gc_run(rn, &c, 110000u + b * 2u + (uint64_t)bufs);
    }
}

/* data, indices and output side by side in one cl_mem (and in one host
 * block): allowed, since the output overlaps neither input. Two cases, run
 * whatever the runner's sampling (every kernel variant must take one
 * buffer behind all three of its pointers). */
GC_CASES(gather, tensors_share_one_allocation) {
  clg_context *ctx = rn->ctx ? rn->ctx : tu_ctx();
  rn->cases += 2;
  const int64_t ds[2] = {6, 5}, is[1] = {7}, os[2] = {6, 7};
  uint16_t data[30], want[42];
  int32_t idx[7] = {4, -5, 0, 3, -1, 1, 2};
  for (int k = 0; k < 30; ++k)
    data[k] = (uint16_t)(k * 977 + 13);
  cr_assert(ref_gather(data, 2, 2, ds, idx, REF_INDEX_I32, 1, is, 1, want) == 0);
  /* Layout: data at 4 (60 bytes), indices at 64 (28), output at 92 (84). */
  unsigned char img[200];
  memset(img, TU_SENTINEL, sizeof img);
  memcpy(img + 4, data, sizeof data);
  memcpy(img + 64, idx, sizeof idx);
  cl_mem buf = tu_buffer_create(sizeof img, img);
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_UINT16, 2, ds, buf, 4);
  clg_tensor i = clg_tensor_buffer(CLG_DTYPE_INT32, 1, is, buf, 64);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_UINT16, 2, os, buf, 92);
  cl_event ev = NULL;
  clg_status st = clg_gather(ctx, &d, &i, -1, &o, NULL, 0, NULL, &ev);
  cr_assert(st == CLG_SUCCESS, "one cl_mem: %s", clg_last_error());
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
  unsigned char back[200];
  tu_buffer_read(buf, 0, sizeof back, back);
  cr_expect(memcmp(back + 92, want, sizeof want) == 0, "one cl_mem: wrong output");
  memcpy(img + 92, want, sizeof want);
  cr_expect(tu_first_diff(back, img, sizeof img) < 0,
            "one cl_mem: bytes outside the output changed");
  clReleaseMemObject(buf);

  /* The same in one host block. */
  memset(img, TU_SENTINEL, sizeof img);
  memcpy(img + 4, data, sizeof data);
  memcpy(img + 64, idx, sizeof idx);
  d = clg_tensor_host(CLG_DTYPE_UINT16, 2, ds, img + 4);
  i = clg_tensor_host(CLG_DTYPE_INT32, 1, is, img + 64);
  o = clg_tensor_host(CLG_DTYPE_UINT16, 2, os, img + 92);
  st = clg_gather(ctx, &d, &i, 1, &o, NULL, 0, NULL, NULL);
  cr_assert(st == CLG_SUCCESS, "one host block: %s", clg_last_error());
  unsigned char expect_img[200];
  memset(expect_img, TU_SENTINEL, sizeof expect_img);
  memcpy(expect_img + 4, data, sizeof data);
  memcpy(expect_img + 64, idx, sizeof idx);
  memcpy(expect_img + 92, want, sizeof want);
  cr_expect(tu_first_diff(img, expect_img, sizeof img) < 0,
            "one host block: wrong bytes");
}

/* ------------------------------------------------------------ queues */

GC_CASES(gather, caller_queues) {
  cl_int err = CL_SUCCESS;
  cl_command_queue in_order =
      clCreateCommandQueue(tu_cl_context(), tu_device(), 0, &err);
  tu_cl_check(err, "clCreateCommandQueue(in-order)");
  cl_command_queue_properties props = 0;
  tu_cl_check(clGetDeviceInfo(tu_device(), CL_DEVICE_QUEUE_PROPERTIES,
                              sizeof props, &props, NULL),
              "clGetDeviceInfo(CL_DEVICE_QUEUE_PROPERTIES)");
  cl_command_queue ooo = NULL;
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
    ooo = clCreateCommandQueue(tu_cl_context(), tu_device(),
                               CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    tu_cl_check(err, "clCreateCommandQueue(out-of-order)");
  } else {
    cr_log_info("device has no out-of-order queues; testing in-order only");
  }
  cl_command_queue queues[2] = {in_order, ooo};
  for (int qi = 0; qi < 2; ++qi) {
    if (!queues[qi])
      continue;
    for (int combo = 0; combo < 8; ++combo)
      for (int ev = 0; ev < 2; ++ev) {
        gather_case c = {0};
        c.dtype = combo % 2 ? CLG_DTYPE_INT16 : CLG_DTYPE_DOUBLE;
        c.idt = index_types[combo % 2];
        c.r = 2;
        c.dshape[0] = 8;
        c.dshape[1] = 9;
        c.q = 2;
        c.ishape[0] = 2;
        c.ishape[1] = 5;
        c.p.axis = combo % 3 == 0 ? 0 : 1;
        c.mode = TU_IDX_ANY;
        for (int j = 0; j < 3; ++j)
          c.st[j] = ((combo >> j) & 1) ? gc_buf(8) : gc_host();
        c.want_event = ev;
        c.queue = queues[qi];
        gc_run(rn, &c, 120000u + (uint64_t)(qi * 100 + combo * 2 + ev));
      }
  }
  clReleaseCommandQueue(in_order);
  if (ooo)
    clReleaseCommandQueue(ooo);
}

/* ------------------------------------------------ forced kernel variants */

/* Each kernel variant a CPU's tuner may pick for Gather, forced
 * (CLGATHER_VARIANT) on a context of its own, over the generators above
 * (each one's first case and about one in GATHER_FORCED_EVERY of the
 * others): each gathers every kind of case right, whatever the measurement
 * chooses on the machine running the tests. The GPU's plans (ROWS, SMALL)
 * run every case in the *_gpu_kernels ctest runs. Left out on POCL's basic
 * driver and on Oclgrind (scripts/test-devices.sh), whose runs are about
 * the driver, and under the sanitizers (scripts/sanitize.sh). */
#define GATHER_FORCED_EVERY 4
static const gc_cases_fn gather_cases[] = {
    every_dtype_cases,
    ranks_axes_1byte_cases,
    ranks_axes_2byte_cases,
    ranks_axes_4byte_cases,
    ranks_axes_8byte_cases,
    ranks_axes_16byte_cases,
    batch_dims_cases,
    more_slices_than_ndrange_dim1_cases,
    wrap_and_clip_modes_cases,
    negative_indices_cases,
    empty_tensors_cases,
    storage_combinations_cases,
    buffer_unaligned_offsets_cases,
    slice_widths_and_sizes_cases,
    caller_queues_cases,
    tensors_share_one_allocation_cases,
};
GC_FORCED(gather, item, gather_cases, GATHER_FORCED_EVERY)
GC_FORCED(gather, item_pf, gather_cases, GATHER_FORCED_EVERY)
GC_FORCED(gather, item_nt, gather_cases, GATHER_FORCED_EVERY)
GC_FORCED(gather, plane, gather_cases, GATHER_FORCED_EVERY)
GC_FORCED(gather, block, gather_cases, GATHER_FORCED_EVERY)
