/*
 * Every status clg_gather() and clg_gather_output_shape() return for bad
 * input: the status, what the message (clg_last_error()) names, that the
 * output (host and cl_mem, filled with a sentinel) is left exactly as it
 * was, that no event is returned, and that the context still works for a
 * correct call afterwards.
 *
 * This file: NULL arguments, storage and buffers, overlaps, ranks, shapes
 * and axis, dtypes, the output shape, size overflow. Index values,
 * clg_validate, the bounds scan and buffer access flags are in
 * test_checks_indices.c; clg_gather_output_shape and the tensor builders in
 * test_checks_shapes.c; the shared checks in checks_fx.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checks_fx.h"
#include "support/gather_case.h"

/* A standard valid setup: data float [5, 3], indices int64 [2, 3], axis 0,
 * output float [2, 3, 3]. */
typedef struct basic {
  float data[15];
  int64_t idx[6];
  int64_t dshape[2], ishape[2], oshape[3];
  clg_tensor d, i;
  out_spec o;
} basic;

static void basic_init(basic *b) {
  memset(b, 0, sizeof *b);
  for (int k = 0; k < 15; ++k)
    b->data[k] = (float)k;
  const int64_t idx[6] = {0, 4, -5, 2, -1, 3};
  memcpy(b->idx, idx, sizeof idx);
  b->dshape[0] = 5;
  b->dshape[1] = 3;
  b->ishape[0] = 2;
  b->ishape[1] = 3;
  b->oshape[0] = 2;
  b->oshape[1] = 3;
  b->oshape[2] = 3;
  b->d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, b->dshape, b->data);
  b->i = clg_tensor_host(CLG_DTYPE_INT64, 2, b->ishape, b->idx);
  b->o = out_of(CLG_DTYPE_FLOAT, 3, b->oshape);
}

/* ---------------------------------------------------------- sanity */

/* The basic setup itself succeeds (so the error cases below differ from a
 * good call only in what they break). */
Test(checks, basic_setup_is_valid) {
  basic b;
  basic_init(&b);
  float out[18], want[18];
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, b.oshape, out);
  clg_status st = clg_gather(tu_ctx(), &b.d, &b.i, 0, &o, NULL, 0, NULL, NULL);
  cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
  cr_assert(ref_gather(b.data, 4, 2, b.dshape, b.idx, REF_INDEX_I64, 2,
                       b.ishape, 0, want) == 0);
  cr_assert(memcmp(out, want, sizeof out) == 0);
}

/* ------------------------------------------------------------- NULL */

Test(checks, null_arguments) {
  basic b;
  basic_init(&b);
  check_error("ctx NULL", NULL, &b.d, &b.i, 0, &b.o,
              (expect){CLG_ERROR_NULL_ARGUMENT, 0, {"ctx|context", NULL}, {0}, 0});
  check_error("data NULL", tu_ctx(), NULL, &b.i, 0, &b.o,
              (expect){CLG_ERROR_NULL_ARGUMENT, 0, {"data", NULL}, {0}, 0});
  check_error("indices NULL", tu_ctx(), &b.d, NULL, 0, &b.o,
              (expect){CLG_ERROR_NULL_ARGUMENT, 0, {"indices", NULL}, {0}, 0});
  check_error("output NULL", tu_ctx(), &b.d, &b.i, 0, NULL,
              (expect){CLG_ERROR_NULL_ARGUMENT, 0, {"output", NULL}, {0}, 0});

  clg_tensor dn = b.d;
  dn.host = NULL;
  check_error("data->host NULL", tu_ctx(), &dn, &b.i, 0, &b.o,
              (expect){CLG_ERROR_NULL_ARGUMENT, 0, {"data", NULL}, {0}, 0});
  clg_tensor in = b.i;
  in.host = NULL;
  check_error("indices->host NULL", tu_ctx(), &b.d, &in, 0, &b.o,
              (expect){CLG_ERROR_NULL_ARGUMENT, 0, {"indices", NULL}, {0}, 0});
  out_spec on = b.o;
  on.variants = 1;
  on.host_null = true;
  check_error("output->host NULL", tu_ctx(), &b.d, &b.i, 0, &on,
              (expect){CLG_ERROR_NULL_ARGUMENT, 0, {"output", NULL}, {0}, 0});

  clg_tensor db = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, b.dshape, NULL, 0);
  check_error("data->buffer NULL", tu_ctx(), &db, &b.i, 0, &b.o,
              (expect){CLG_ERROR_NULL_ARGUMENT, 0, {"data", NULL}, {0}, 0});
  clg_tensor ib = clg_tensor_buffer(CLG_DTYPE_INT64, 2, b.ishape, NULL, 0);
  check_error("indices->buffer NULL", tu_ctx(), &b.d, &ib, 0, &b.o,
              (expect){CLG_ERROR_NULL_ARGUMENT, 0, {"indices", NULL}, {0}, 0});

  /* A wait list with a NULL event in it. */
  cl_event nullev[1] = {NULL};
  check_error_wl("wait_list[0] NULL", tu_ctx(), &b.d, &b.i, 0, &b.o, 1,
                 nullev,
                 (expect){CLG_ERROR_NULL_ARGUMENT, CLG_ERROR_INVALID_ARGUMENT,
                          {"wait|event", NULL}, {0}, 0});
  /* A list with a zero count (as in clEnqueueNDRangeKernel: invalid). */
  cl_event marker = NULL;
  tu_cl_check(clEnqueueMarkerWithWaitList(tu_queue(), 0, NULL, &marker),
              "clEnqueueMarkerWithWaitList");
  tu_cl_check(clWaitForEvents(1, &marker), "clWaitForEvents");
  check_error_wl("num_events 0, wait_list not NULL", tu_ctx(), &b.d, &b.i, 0,
                 &b.o, 0, &marker,
                 (expect){CLG_ERROR_INVALID_ARGUMENT, 0, {"wait|event", NULL},
                          {0}, 0});
  clReleaseEvent(marker);
  /* A wait list count without a list. */
  check_error_wl("num_events 2, wait_list NULL", tu_ctx(), &b.d, &b.i, 0,
                 &b.o, 2, NULL,
                 (expect){CLG_ERROR_INVALID_ARGUMENT, CLG_ERROR_NULL_ARGUMENT,
                          {"wait|event", NULL}, {0}, 0});
}

Test(checks, bad_storage_and_buffers) {
  basic b;
  basic_init(&b);
  clg_tensor d = b.d;
  d.storage = (clg_storage)7;
  check_error("data storage 7", tu_ctx(), &d, &b.i, 0, &b.o,
              (expect){CLG_ERROR_INVALID_ARGUMENT, 0, {"data", NULL}, {7}, 1});
  clg_tensor i = b.i;
  i.storage = (clg_storage)-1;
  check_error("indices storage -1", tu_ctx(), &b.d, &i, 0, &b.o,
              (expect){CLG_ERROR_INVALID_ARGUMENT, 0, {"indices", NULL}, {0}, 0});

  /* A cl_mem that is not a buffer (an image), where the device has images. */
  cl_bool images = CL_FALSE;
  tu_cl_check(clGetDeviceInfo(tu_device(), CL_DEVICE_IMAGE_SUPPORT,
                              sizeof images, &images, NULL),
              "clGetDeviceInfo(CL_DEVICE_IMAGE_SUPPORT)");
  if (images) {
    cl_image_format fmt = {CL_R, CL_FLOAT};
    cl_image_desc idesc;
    memset(&idesc, 0, sizeof idesc);
    idesc.image_type = CL_MEM_OBJECT_IMAGE2D;
    idesc.image_width = 16;
    idesc.image_height = 16;
    cl_int err = CL_SUCCESS;
    cl_mem img = clCreateImage(tu_cl_context(), CL_MEM_READ_WRITE, &fmt,
                               &idesc, NULL, &err);
    tu_cl_check(err, "clCreateImage");
    clg_tensor di = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, b.dshape, img, 0);
    check_error("data is an image", tu_ctx(), &di, &b.i, 0, &b.o,
                (expect){CLG_ERROR_INVALID_ARGUMENT, 0, {"data", NULL}, {0}, 0});
    clReleaseMemObject(img);
  } else {
    cr_log_info("device has no image support: image-as-buffer case not run");
  }

  /* Buffers smaller than offset + bytes. */
  cl_mem small = tu_buffer_create(60, b.data); /* data needs 60 bytes */
  clg_tensor d1 = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, b.dshape, small, 4);
  check_error("data buffer 60 bytes, offset 4", tu_ctx(), &d1, &b.i, 0, &b.o,
              (expect){CLG_ERROR_BUFFER_TOO_SMALL, 0, {"data", NULL}, {60}, 1});
  cl_mem small2 = tu_buffer_create(59, b.data);
  clg_tensor d2 = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, b.dshape, small2, 0);
  check_error("data buffer 59 bytes", tu_ctx(), &d2, &b.i, 0, &b.o,
              (expect){CLG_ERROR_BUFFER_TOO_SMALL, 0, {"data", NULL}, {59}, 1});
  clg_tensor d3 = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, b.dshape, small,
                                    SIZE_MAX - 8);
  check_error("data offset SIZE_MAX-8", tu_ctx(), &d3, &b.i, 0, &b.o,
              (expect){CLG_ERROR_BUFFER_TOO_SMALL, CLG_ERROR_SIZE_OVERFLOW,
                       {"data", NULL}, {0}, 0});

  cl_mem ismall = tu_buffer_create(48, b.idx); /* indices need 48 bytes */
  clg_tensor i1 = clg_tensor_buffer(CLG_DTYPE_INT64, 2, b.ishape, ismall, 8);
  /* An indices offset that is not a multiple of the index size. The header
   * does not say so, but the library rejects it (reported to the lead). */
  cl_mem ibig = tu_buffer_create(64, NULL);
  clg_tensor i2 = clg_tensor_buffer(CLG_DTYPE_INT64, 2, b.ishape, ibig, 4);
  check_error("indices offset 4 for int64", tu_ctx(), &b.d, &i2, 0, &b.o,
              (expect){CLG_ERROR_INVALID_ARGUMENT, 0, {"indices", "offset", NULL},
                       {4}, 1});
  clReleaseMemObject(ibig);
  check_error("indices buffer 48 bytes, offset 8", tu_ctx(), &b.d, &i1, 0,
              &b.o,
              (expect){CLG_ERROR_BUFFER_TOO_SMALL, 0, {"indices", NULL}, {48}, 1});

  out_spec o1 = b.o; /* output needs 72 bytes */
  o1.variants = 2;
  o1.alloc = 70;
  check_error("output buffer 70 bytes", tu_ctx(), &b.d, &b.i, 0, &o1,
              (expect){CLG_ERROR_BUFFER_TOO_SMALL, 0, {"output", NULL}, {70}, 1});
  out_spec o2 = b.o;
  o2.variants = 2;
  o2.alloc = 71;
  o2.offset = 1; /* 72 bytes of buffer, tensor at 1: one short */
  check_error("output buffer 72 bytes, offset 1", tu_ctx(), &b.d, &b.i, 0, &o2,
              (expect){CLG_ERROR_BUFFER_TOO_SMALL, 0, {"output", NULL}, {72}, 1});
  clReleaseMemObject(small);
  clReleaseMemObject(small2);
  clReleaseMemObject(ismall);
}

/* The output must not overlap an input. */
Test(checks, output_overlaps_input) {
  basic b;
  basic_init(&b);
  /* Host: output starts inside data. */
  float block[64];
  for (int k = 0; k < 64; ++k)
    block[k] = (float)k;
  float copy[64];
  memcpy(copy, block, sizeof block);
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, b.dshape, block);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, b.oshape, block + 10);
  clg_status st = clg_gather(tu_ctx(), &d, &b.i, 0, &o, NULL, 0, NULL, NULL);
  cr_expect(st == CLG_ERROR_INVALID_ARGUMENT,
            "host output overlapping data: got %s: %s", clg_status_string(st),
            clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "output") &&
                tu_contains(clg_last_error(), "data"),
            "%s", clg_last_error());
  cr_expect(memcmp(block, copy, sizeof block) == 0, "memory changed on error");

  /* Host: output overlapping indices. */
  int64_t iblock[32] = {0, 1, 2, 3, 4, 0};
  int64_t icopy[32];
  memcpy(icopy, iblock, sizeof iblock);
  clg_tensor i = clg_tensor_host(CLG_DTYPE_INT64, 2, b.ishape, iblock);
  clg_tensor o2 = clg_tensor_host(CLG_DTYPE_FLOAT, 3, b.oshape, iblock + 2);
  st = clg_gather(tu_ctx(), &b.d, &i, 0, &o2, NULL, 0, NULL, NULL);
  cr_expect(st == CLG_ERROR_INVALID_ARGUMENT,
            "host output overlapping indices: got %s: %s",
            clg_status_string(st), clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "indices"), "%s", clg_last_error());
  cr_expect(memcmp(iblock, icopy, sizeof iblock) == 0, "memory changed on error");

  /* cl_mem: data at 0 (60 bytes), output at 32 in the same buffer. */
  cl_mem buf = tu_buffer_create(sizeof block, block);
  clg_tensor db = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, b.dshape, buf, 0);
  clg_tensor ob = clg_tensor_buffer(CLG_DTYPE_FLOAT, 3, b.oshape, buf, 32);
  cl_event ev = NULL;
  st = clg_gather(tu_ctx(), &db, &b.i, 0, &ob, NULL, 0, NULL, &ev);
  cr_expect(st == CLG_ERROR_INVALID_ARGUMENT,
            "cl_mem output overlapping data: got %s: %s", clg_status_string(st),
            clg_last_error());
  cr_expect(ev == NULL);
  tu_cl_check(clFinish(clg_context_queue(tu_ctx())), "clFinish");
  float back[64];
  tu_buffer_read(buf, 0, sizeof back, back);
  cr_expect(memcmp(back, copy, sizeof back) == 0, "buffer changed on error");
  clReleaseMemObject(buf);
  gc_assert_context_works("overlap errors");
}

/* ------------------------------------------------------------- ranks */

Test(checks, ranks) {
  basic b;
  basic_init(&b);
  int64_t big[CLG_MAX_RANK + 4];
  for (int k = 0; k < CLG_MAX_RANK + 4; ++k)
    big[k] = 1;

  clg_tensor d0 = clg_tensor_host(CLG_DTYPE_FLOAT, 0, NULL, b.data);
  out_spec o0 = out_of(CLG_DTYPE_FLOAT, 1, b.ishape); /* whatever */
  check_error("data rank 0", tu_ctx(), &d0, &b.i, 0, &o0,
              (expect){CLG_ERROR_INVALID_RANK, 0, {"data", "rank", NULL}, {0}, 0});

  clg_tensor dneg = clg_tensor_host(CLG_DTYPE_FLOAT, -1, NULL, b.data);
  check_error("data rank -1", tu_ctx(), &dneg, &b.i, 0, &o0,
              (expect){CLG_ERROR_INVALID_RANK, 0, {"data", NULL}, {-1}, 1});

  clg_tensor d17 = clg_tensor_host(CLG_DTYPE_FLOAT, 17, big, b.data);
  cr_expect(d17.rank == 17, "clg_tensor_host must store rank 17 as given");
  check_error("data rank 17", tu_ctx(), &d17, &b.i, 0, &b.o,
              (expect){CLG_ERROR_INVALID_RANK, 0, {"data", NULL}, {17, 16}, 2});

  clg_tensor i17 = clg_tensor_host(CLG_DTYPE_INT64, 17, big, b.idx);
  check_error("indices rank 17", tu_ctx(), &b.d, &i17, 0, &b.o,
              (expect){CLG_ERROR_INVALID_RANK, 0, {"indices", NULL}, {17}, 1});
  clg_tensor ineg = clg_tensor_host(CLG_DTYPE_INT64, -2, big, b.idx);
  check_error("indices rank -2", tu_ctx(), &b.d, &ineg, 0, &b.o,
              (expect){CLG_ERROR_INVALID_RANK, 0, {"indices", NULL}, {-2}, 1});

  out_spec o17 = out_of(CLG_DTYPE_FLOAT, 17, big);
  o17.rank = 17;
  o17.alloc = 64;
  check_error("output rank 17", tu_ctx(), &b.d, &b.i, 0, &o17,
              (expect){CLG_ERROR_INVALID_RANK, 0, {"output", NULL}, {17}, 1});

  /* q + r - 1 = 17: data rank 10, indices rank 8. */
  float one = 1.0f;
  int64_t zero = 0;
  clg_tensor d10 = clg_tensor_host(CLG_DTYPE_FLOAT, 10, big, &one);
  clg_tensor i8 = clg_tensor_host(CLG_DTYPE_INT64, 8, big, &zero);
  out_spec o16 = out_of(CLG_DTYPE_FLOAT, 16, big);
  check_error("output rank 10+8-1 = 17", tu_ctx(), &d10, &i8, 0, &o16,
              (expect){CLG_ERROR_INVALID_RANK, 0, {"rank", NULL}, {17}, 1});
  /* At the limit it works: data rank 9, indices rank 8 -> output rank 16. */
  float out16 = 0.0f;
  clg_tensor d9 = clg_tensor_host(CLG_DTYPE_FLOAT, 9, big, &one);
  clg_tensor o16t = clg_tensor_host(CLG_DTYPE_FLOAT, 16, big, &out16);
  clg_status st = clg_gather(tu_ctx(), &d9, &i8, -1, &o16t, NULL, 0, NULL, NULL);
  cr_expect(st == CLG_SUCCESS && out16 == 1.0f,
            "data rank 9 + indices rank 8 (output rank 16) should work: %s",
            clg_last_error());
  /* And rank 16 data with a scalar index. */
  clg_tensor d16 = clg_tensor_host(CLG_DTYPE_FLOAT, 16, big, &one);
  clg_tensor i0 = clg_tensor_host(CLG_DTYPE_INT64, 0, NULL, &zero);
  clg_tensor o15 = clg_tensor_host(CLG_DTYPE_FLOAT, 15, big, &out16);
  out16 = 0.0f;
  st = clg_gather(tu_ctx(), &d16, &i0, 7, &o15, NULL, 0, NULL, NULL);
  cr_expect(st == CLG_SUCCESS && out16 == 1.0f,
            "data rank 16, scalar index should work: %s", clg_last_error());
}

/* ----------------------------------------------------- shapes, axis */

Test(checks, negative_dims_and_axis) {
  basic b;
  basic_init(&b);
  const int64_t dneg_shape[2] = {5, -3};
  clg_tensor dneg = clg_tensor_host(CLG_DTYPE_FLOAT, 2, dneg_shape, b.data);
  check_error("data dim -3", tu_ctx(), &dneg, &b.i, 0, &b.o,
              (expect){CLG_ERROR_INVALID_SHAPE, 0, {"data", NULL}, {-3}, 1});
  const int64_t ineg_shape[2] = {-2, 3};
  clg_tensor ineg = clg_tensor_host(CLG_DTYPE_INT64, 2, ineg_shape, b.idx);
  check_error("indices dim -2", tu_ctx(), &b.d, &ineg, 0, &b.o,
              (expect){CLG_ERROR_INVALID_SHAPE, 0, {"indices", NULL}, {-2}, 1});
  const int64_t oneg_shape[3] = {2, 3, -3};
  out_spec oneg = out_of(CLG_DTYPE_FLOAT, 3, oneg_shape);
  oneg.alloc = 72;
  check_error("output dim -3", tu_ctx(), &b.d, &b.i, 0, &oneg,
              (expect){CLG_ERROR_INVALID_SHAPE, 0, {"output", NULL}, {-3}, 1});

  /* data rank 2: axis must be in [-2, 1]. */
  const int64_t axes[] = {2, -3, 100, INT64_MAX, INT64_MIN};
  for (size_t k = 0; k < sizeof axes / sizeof axes[0]; ++k) {
    char label[64];
    snprintf(label, sizeof label, "axis %" PRId64 " for rank 2", axes[k]);
    check_error(label, tu_ctx(), &b.d, &b.i, axes[k], &b.o,
                (expect){CLG_ERROR_INVALID_AXIS, 0, {"axis", NULL}, {axes[k]}, 1});
  }
  /* Rank 3 data, axis 3 and -4. */
  const int64_t d3[3] = {2, 2, 2}, o3[4] = {2, 2, 3, 2};
  (void)o3;
  clg_tensor t3 = clg_tensor_host(CLG_DTYPE_FLOAT, 3, d3, b.data);
  out_spec os = out_of(CLG_DTYPE_FLOAT, 4, o3);
  check_error("axis 3 for rank 3", tu_ctx(), &t3, &b.i, 3, &os,
              (expect){CLG_ERROR_INVALID_AXIS, 0, {"axis", NULL}, {3}, 1});
  check_error("axis -4 for rank 3", tu_ctx(), &t3, &b.i, -4, &os,
              (expect){CLG_ERROR_INVALID_AXIS, 0, {"axis", NULL}, {-4}, 1});
}

/* ------------------------------------------------------------ dtypes */

Test(checks, dtypes) {
  basic b;
  basic_init(&b);
  static const struct {
    clg_dtype dt;
    const char *name;
  } bad[] = {{CLG_DTYPE_STRING, "string"},
             {CLG_DTYPE_UNDEFINED, "undefined"},
             {(clg_dtype)99, "99"}};
  for (size_t k = 0; k < 3; ++k) {
    char label[64];
    snprintf(label, sizeof label, "data and output dtype %s", bad[k].name);
    clg_tensor d = b.d;
    d.dtype = bad[k].dt;
    out_spec o = b.o;
    o.dtype = bad[k].dt;
    o.alloc = 72;
    check_error(label, tu_ctx(), &d, &b.i, 0, &o,
                (expect){CLG_ERROR_UNSUPPORTED_DTYPE, 0, {bad[k].name, NULL}, {0}, 0});
  }
  static const struct {
    clg_dtype dt;
    const char *name;
  } badidx[] = {{CLG_DTYPE_FLOAT, "float"},
                {CLG_DTYPE_INT16, "int16"},
                {CLG_DTYPE_UINT64, "uint64"},
                {CLG_DTYPE_UINT32, "uint32"},
                {CLG_DTYPE_DOUBLE, "double"}};
  for (size_t k = 0; k < sizeof badidx / sizeof badidx[0]; ++k) {
    char label[64];
    snprintf(label, sizeof label, "indices dtype %s", badidx[k].name);
    clg_tensor i = b.i;
    i.dtype = badidx[k].dt;
    check_error(label, tu_ctx(), &b.d, &i, 0, &b.o,
                (expect){CLG_ERROR_INVALID_INDICES_DTYPE, 0,
                         {"indices", badidx[k].name, NULL}, {0}, 0});
  }
  out_spec o = b.o;
  o.dtype = CLG_DTYPE_INT32;
  check_error("float data, int32 output", tu_ctx(), &b.d, &b.i, 0, &o,
              (expect){CLG_ERROR_DTYPE_MISMATCH, 0, {"float", "int32", NULL}, {0}, 0});
  o.dtype = CLG_DTYPE_DOUBLE;
  o.alloc = 144;
  check_error("float data, double output", tu_ctx(), &b.d, &b.i, 0, &o,
              (expect){CLG_ERROR_DTYPE_MISMATCH, 0, {"float", "double", NULL}, {0}, 0});
}

/* ---------------------------------------------------- output shape */

Test(checks, output_shape_mismatch) {
  basic b;
  basic_init(&b);
  const int64_t r2[2] = {6, 3};
  out_spec o = out_of(CLG_DTYPE_FLOAT, 2, r2);
  check_error("output rank 2 instead of 3", tu_ctx(), &b.d, &b.i, 0, &o,
              (expect){CLG_ERROR_SHAPE_MISMATCH, 0, {"output", NULL}, {0}, 0});
  const int64_t r4[4] = {2, 3, 3, 1};
  o = out_of(CLG_DTYPE_FLOAT, 4, r4);
  check_error("output rank 4 instead of 3", tu_ctx(), &b.d, &b.i, 0, &o,
              (expect){CLG_ERROR_SHAPE_MISMATCH, 0, {"output", NULL}, {0}, 0});
  const int64_t wrong_dims[][3] = {{2, 3, 4}, {3, 3, 2}, {2, 3, 2}, {1, 3, 3},
                                   {2, 3, 0}};
  for (size_t k = 0; k < sizeof wrong_dims / sizeof wrong_dims[0]; ++k) {
    char label[64], s[64];
    snprintf(label, sizeof label, "output shape %s instead of [2, 3, 3]",
             tu_shape_str(3, wrong_dims[k], s, sizeof s));
    o = out_of(CLG_DTYPE_FLOAT, 3, wrong_dims[k]);
    o.alloc = 128;
    check_error(label, tu_ctx(), &b.d, &b.i, 0, &o,
                (expect){CLG_ERROR_SHAPE_MISMATCH, 0, {"output", NULL}, {0}, 0});
  }
  /* Same element count, different shape: axis 1 makes [5, 2, 3]. */
  o = b.o;
  o.alloc = 120;
  check_error("output [2, 3, 3] for axis 1 (want [5, 2, 3])", tu_ctx(), &b.d,
              &b.i, 1, &o,
              (expect){CLG_ERROR_SHAPE_MISMATCH, 0, {"output", NULL}, {0}, 0});
}

/* ---------------------------------------------------------- overflow */

Test(checks, size_overflow) {
  unsigned char tiny[64] = {0};
  int64_t zeros[8] = {0};
  const int64_t two32 = (int64_t)1 << 32;

  /* Element count overflows int64. */
  const int64_t d1[2] = {two32, two32}, i1[1] = {1}, o1[2] = {1, two32};
  clg_tensor d = clg_tensor_host(CLG_DTYPE_UINT8, 2, d1, tiny);
  clg_tensor i = clg_tensor_host(CLG_DTYPE_INT64, 1, i1, zeros);
  out_spec o = out_of(CLG_DTYPE_UINT8, 2, o1);
  o.alloc = 64;
  check_error("data [2^32, 2^32] uint8", tu_ctx(), &d, &i, 0, &o,
              (expect){CLG_ERROR_SIZE_OVERFLOW, 0, {"data", NULL}, {0}, 0});

  /* Byte size overflows size_t: 2^60 complex128 elements. */
  const int64_t d2[1] = {(int64_t)1 << 60}, o2[1] = {1};
  d = clg_tensor_host(CLG_DTYPE_COMPLEX128, 1, d2, tiny);
  o = out_of(CLG_DTYPE_COMPLEX128, 1, o2);
  check_error("data [2^60] complex128", tu_ctx(), &d, &i, 0, &o,
              (expect){CLG_ERROR_SIZE_OVERFLOW, 0, {"data", NULL}, {0}, 0});

  /* Only the output overflows: [2^31, 2^31, 1] axis 2 with 4 indices. */
  const int64_t d3[3] = {(int64_t)1 << 31, (int64_t)1 << 31, 1}, i3[1] = {4},
                o3[3] = {(int64_t)1 << 31, (int64_t)1 << 31, 4};
  d = clg_tensor_host(CLG_DTYPE_UINT8, 3, d3, tiny);
  i = clg_tensor_host(CLG_DTYPE_INT64, 1, i3, zeros);
  o = out_of(CLG_DTYPE_UINT8, 3, o3);
  o.alloc = 64;
  check_error("output [2^31, 2^31, 4] uint8", tu_ctx(), &d, &i, 2, &o,
              (expect){CLG_ERROR_SIZE_OVERFLOW, 0, {"output", NULL}, {0}, 0});

  /* Indices element count overflows. */
  const int64_t d4[1] = {4}, i4[2] = {two32, two32}, o4[2] = {two32, two32};
  d = clg_tensor_host(CLG_DTYPE_UINT8, 1, d4, tiny);
  i = clg_tensor_host(CLG_DTYPE_INT32, 2, i4, zeros);
  o = out_of(CLG_DTYPE_UINT8, 2, o4);
  o.alloc = 64;
  check_error("indices [2^32, 2^32]", tu_ctx(), &d, &i, 0, &o,
              (expect){CLG_ERROR_SIZE_OVERFLOW, 0, {"indices|output", NULL}, {0}, 0});
}
