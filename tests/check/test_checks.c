/*
 * Every status clg_gather() and clg_gather_output_shape() return for bad
 * input: the status, what the message (clg_last_error()) names, that the
 * output (host and cl_mem, filled with a sentinel) is left exactly as it
 * was, that no event is returned, and that the context still works for a
 * correct call afterwards.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* sysconf */

#include "internal.h" /* clg__any_index_out_of_range */
#include "support/gather_case.h"

/* ONNX Gather parameters on `axis`, for clg_validate. */
#define GP(axis) (&(clg_params){CLG_OP_GATHER, (axis), 0, CLG_MODE_RAISE})

/* ------------------------------------------------------------ helper */

typedef struct expect {
  clg_status status;
  clg_status alt;      /* also accepted, unless CLG_SUCCESS */
  const char *subs[6]; /* NULL-terminated; "a|b" accepts either */
  int64_t ints[4];     /* whole numbers the message must contain */
  int nints;
} expect;

typedef struct out_spec {
  clg_dtype dtype;
  int32_t rank;
  int64_t shape[CLG_MAX_RANK];
  size_t alloc;  /* bytes of storage; 0: the shape's bytes (min 1) */
  size_t offset; /* buffer variant */
  unsigned variants; /* bit 0: host output, bit 1: cl_mem output; 0: both */
  bool host_null;    /* host variant passes host = NULL */
} out_spec;

static bool has_sub(const char *msg, const char *alts) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", alts);
  char *save = NULL;
  for (char *p = strtok_r(buf, "|", &save); p; p = strtok_r(NULL, "|", &save))
    if (tu_contains_ci(msg, p))
      return true;
  return false;
}

static void check_message(const char *label, const char *variant,
                          const char *msg, const expect *e) {
  cr_expect(msg[0] != '\0', "%s (%s): empty clg_last_error()", label, variant);
  for (int i = 0; i < 6 && e->subs[i]; ++i)
    cr_expect(has_sub(msg, e->subs[i]),
              "%s (%s): message lacks \"%s\": \"%s\"", label, variant,
              e->subs[i], msg);
  for (int i = 0; i < e->nints; ++i)
    cr_expect(tu_contains_int(msg, e->ints[i]),
              "%s (%s): message lacks the number %" PRId64 ": \"%s\"", label,
              variant, e->ints[i], msg);
}

static void check_status(const char *label, const char *variant,
                         clg_status got, const expect *e, const char *msg) {
  bool ok = got == e->status || (e->alt != CLG_SUCCESS && got == e->alt);
  cr_expect(ok, "%s (%s): want %s (%d), got %s (%d): \"%s\"", label, variant,
            clg_status_string(e->status), (int)e->status,
            clg_status_string(got), (int)got, msg);
}

/* Calls clg_gather with each requested output variant and checks status,
 * message, untouched output, no event, and a working context after. */
static void check_error_wl(const char *label, clg_context *ctx,
                           const clg_tensor *data, const clg_tensor *indices,
                           int64_t axis, const out_spec *o, cl_uint nev,
                           const cl_event *wl, expect e) {
  char msg[2048];
  if (!o) {
    cl_event ev = NULL;
    clg_status st =
        clg_gather(ctx, data, indices, axis, NULL, NULL, nev, wl, &ev);
    snprintf(msg, sizeof msg, "%s", clg_last_error());
    check_status(label, "no output", st, &e, msg);
    check_message(label, "no output", msg, &e);
    cr_expect(ev == NULL, "%s: an event was returned on error", label);
    gc_assert_context_works(label);
    return;
  }
  unsigned variants = o->variants ? o->variants : 3u;
  size_t need = (size_t)0;
  {
    int64_t n = ref_numel(o->rank > 0 ? o->rank : 0, o->shape);
    size_t es = clg_dtype_size(o->dtype);
    if (n > 0 && n < (int64_t)1 << 20)
      need = (size_t)n * (es ? es : 1);
  }
  size_t alloc = o->alloc ? o->alloc : (need ? need : 1);
  for (int v = 0; v < 2; ++v) {
    if (!((variants >> v) & 1))
      continue;
    const char *vname = v ? "cl_mem output" : "host output";
    unsigned char *img = malloc(alloc + o->offset);
    cr_assert(img != NULL);
    memset(img, (int)TU_SENTINEL, alloc + o->offset);
    cl_mem buf = NULL;
    clg_tensor out;
    if (v) {
      buf = tu_buffer_create(alloc + o->offset, img);
      out = clg_tensor_buffer(o->dtype, o->rank, o->shape, buf, o->offset);
    } else {
      out = clg_tensor_host(o->dtype, o->rank, o->shape,
                            o->host_null ? NULL : img);
    }
    cl_event ev = NULL;
    clg_status st =
        clg_gather(ctx, data, indices, axis, &out, NULL, nev, wl, &ev);
    snprintf(msg, sizeof msg, "%s", clg_last_error());
    check_status(label, vname, st, &e, msg);
    check_message(label, vname, msg, &e);
    cr_expect(ev == NULL, "%s (%s): an event was returned on error", label,
              vname);
    if (ev)
      clReleaseEvent(ev);
    if (ctx) {
      cl_command_queue q = clg_context_queue(ctx);
      cr_assert(q != NULL);
      tu_cl_check(clFinish(q), "clFinish");
    }
    unsigned char *back = malloc(alloc + o->offset);
    cr_assert(back != NULL);
    if (v)
      tu_buffer_read(buf, 0, alloc + o->offset, back);
    else
      memcpy(back, img, alloc + o->offset);
    memset(img, (int)TU_SENTINEL, alloc + o->offset);
    ptrdiff_t d = tu_first_diff(back, img, alloc + o->offset);
    cr_expect(d < 0, "%s (%s): output byte %td changed on error", label, vname,
              d);
    free(back);
    free(img);
    if (buf)
      clReleaseMemObject(buf);
  }
  gc_assert_context_works(label);
}

static void check_error(const char *label, clg_context *ctx,
                        const clg_tensor *data, const clg_tensor *indices,
                        int64_t axis, const out_spec *o, expect e) {
  check_error_wl(label, ctx, data, indices, axis, o, 0, NULL, e);
}

static out_spec out_of(clg_dtype dt, int32_t rank, const int64_t *shape) {
  out_spec o;
  memset(&o, 0, sizeof o);
  o.dtype = dt;
  o.rank = rank;
  for (int32_t i = 0; i < rank && i < CLG_MAX_RANK; ++i)
    o.shape[i] = shape[i];
  return o;
}

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

/* ------------------------------------------- clg_gather_output_shape */

Test(checks, output_shape_results) {
  tu_rng rng = tu_rng_make(4242);
  int n = 0;
  for (int32_t r = 1; r <= 8; ++r)
    for (int32_t q = 0; q <= 4; ++q)
      for (int64_t axis = -r; axis < r; ++axis) {
        int64_t ds[8], is[4];
        for (int32_t k = 0; k < r; ++k)
          ds[k] = tu_rng_range(&rng, 0, 9);
        for (int32_t k = 0; k < q; ++k)
          is[k] = tu_rng_range(&rng, 0, 9);
        int32_t want_rank = -1, got_rank = -1;
        int64_t want[REF_MAX_RANK], got[CLG_MAX_RANK];
        cr_assert(ref_gather_shape(r, ds, q, is, axis, CLG_MAX_RANK,
                                   &want_rank, want) == 0);
        clg_status st = clg_gather_output_shape(r, ds, q, q ? is : NULL, axis,
                                                &got_rank, got);
        char a[96], b[96];
        cr_assert(st == CLG_SUCCESS, "data %s indices %s axis %" PRId64 ": %s",
                  tu_shape_str(r, ds, a, sizeof a),
                  tu_shape_str(q, is, b, sizeof b), axis, clg_last_error());
        cr_assert(got_rank == want_rank && memcmp(got, want, sizeof(int64_t) *
                                                                 (size_t)want_rank) == 0,
                  "data %s indices %s axis %" PRId64 ": got rank %d %s",
                  tu_shape_str(r, ds, a, sizeof a),
                  tu_shape_str(q, is, b, sizeof b), axis, (int)got_rank,
                  tu_shape_str(got_rank, got, b, sizeof b));
        cr_assert(clg_last_error()[0] == '\0');
        ++n;
      }
  /* Limits: rank 16 data with a scalar, rank 1 data with rank 16 indices,
   * rank 9 + rank 8. */
  int64_t ones[CLG_MAX_RANK];
  for (int k = 0; k < CLG_MAX_RANK; ++k)
    ones[k] = 2;
  int32_t orank = 0;
  int64_t oshape[CLG_MAX_RANK];
  cr_expect(clg_gather_output_shape(16, ones, 0, NULL, 15, &orank, oshape) ==
                CLG_SUCCESS && orank == 15);
  cr_expect(clg_gather_output_shape(1, ones, 16, ones, 0, &orank, oshape) ==
                CLG_SUCCESS && orank == 16);
  cr_expect(clg_gather_output_shape(9, ones, 8, ones, -9, &orank, oshape) ==
                CLG_SUCCESS && orank == 16);
  cr_log_info("output_shape_results: %d shapes", n);
}

static void shape_err(const char *label, int32_t r, const int64_t *ds,
                      int32_t q, const int64_t *is, int64_t axis,
                      int32_t *orank, int64_t *oshape, clg_status want,
                      const char *sub) {
  clg_status st = clg_gather_output_shape(r, ds, q, is, axis, orank, oshape);
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", clg_last_error());
  cr_expect(st == want, "%s: want %s, got %s: \"%s\"", label,
            clg_status_string(want), clg_status_string(st), msg);
  cr_expect(msg[0] != '\0', "%s: empty message", label);
  if (sub)
    cr_expect(has_sub(msg, sub), "%s: message lacks \"%s\": \"%s\"", label, sub,
              msg);
}

Test(checks, output_shape_errors) {
  int64_t ds[CLG_MAX_RANK + 2], is[CLG_MAX_RANK + 2];
  for (int k = 0; k < CLG_MAX_RANK + 2; ++k)
    ds[k] = is[k] = 3;
  int32_t orank;
  int64_t os[CLG_MAX_RANK];
  shape_err("data_shape NULL", 2, NULL, 1, is, 0, &orank, os,
            CLG_ERROR_NULL_ARGUMENT, "data");
  shape_err("indices_shape NULL, q 1", 2, ds, 1, NULL, 0, &orank, os,
            CLG_ERROR_NULL_ARGUMENT, "indices");
  shape_err("out_rank NULL", 2, ds, 1, is, 0, NULL, os,
            CLG_ERROR_NULL_ARGUMENT, NULL);
  shape_err("out_shape NULL", 2, ds, 1, is, 0, &orank, NULL,
            CLG_ERROR_NULL_ARGUMENT, NULL);
  shape_err("data rank 0", 0, ds, 1, is, 0, &orank, os, CLG_ERROR_INVALID_RANK,
            "data");
  shape_err("data rank -1", -1, ds, 1, is, 0, &orank, os,
            CLG_ERROR_INVALID_RANK, "data");
  shape_err("data rank 17", 17, ds, 0, is, 0, &orank, os,
            CLG_ERROR_INVALID_RANK, "17");
  shape_err("indices rank 17", 1, ds, 17, is, 0, &orank, os,
            CLG_ERROR_INVALID_RANK, "17");
  shape_err("indices rank -1", 2, ds, -1, is, 0, &orank, os,
            CLG_ERROR_INVALID_RANK, "indices");
  shape_err("q + r - 1 = 17", 9, ds, 9, is, 0, &orank, os,
            CLG_ERROR_INVALID_RANK, "17");
  ds[1] = -4;
  shape_err("data dim -4", 3, ds, 1, is, 0, &orank, os,
            CLG_ERROR_INVALID_SHAPE, "-4");
  ds[1] = 3;
  is[0] = -1;
  shape_err("indices dim -1", 3, ds, 1, is, 0, &orank, os,
            CLG_ERROR_INVALID_SHAPE, "indices");
  is[0] = 3;
  shape_err("axis r", 3, ds, 1, is, 3, &orank, os, CLG_ERROR_INVALID_AXIS, "3");
  shape_err("axis -r-1", 3, ds, 1, is, -4, &orank, os, CLG_ERROR_INVALID_AXIS,
            "-4");
  shape_err("axis INT64_MIN", 1, ds, 0, NULL, INT64_MIN, &orank, os,
            CLG_ERROR_INVALID_AXIS, NULL);
}

/* ----------------------------------------------------- tensor builders */

Test(checks, tensor_builders) {
  int64_t shape[20];
  for (int k = 0; k < 20; ++k)
    shape[k] = k + 1;
  int dummy = 0;
  clg_tensor t = clg_tensor_host(CLG_DTYPE_INT16, 3, shape, &dummy);
  cr_expect(t.dtype == CLG_DTYPE_INT16 && t.rank == 3 &&
            t.storage == CLG_STORAGE_HOST && t.host == &dummy);
  cr_expect(t.shape[0] == 1 && t.shape[1] == 2 && t.shape[2] == 3);
  t = clg_tensor_host(CLG_DTYPE_FLOAT, 0, NULL, &dummy);
  cr_expect(t.rank == 0 && t.host == &dummy);
  t = clg_tensor_host(CLG_DTYPE_FLOAT, 20, shape, &dummy);
  cr_expect(t.rank == 20, "rank outside [0, 16] is stored as given");
  cr_expect(t.shape[15] == 16, "the shape copy is clamped to 16 entries");
  t = clg_tensor_host(CLG_DTYPE_FLOAT, -3, shape, &dummy);
  cr_expect(t.rank == -3);

  cl_mem b = tu_buffer_create(64, NULL);
  t = clg_tensor_buffer(CLG_DTYPE_COMPLEX64, 2, shape, b, 24);
  cr_expect(t.dtype == CLG_DTYPE_COMPLEX64 && t.rank == 2 &&
            t.storage == CLG_STORAGE_BUFFER && t.buffer == b && t.offset == 24 &&
            t.shape[0] == 1 && t.shape[1] == 2);
  t = clg_tensor_buffer(CLG_DTYPE_FLOAT, 17, shape, b, 0);
  cr_expect(t.rank == 17 && t.shape[15] == 16);
  clReleaseMemObject(b);
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
