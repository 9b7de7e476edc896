/*
 * A cl_mem output of clg_run_sharded() is written through one sub-buffer
 * per part, each starting at a multiple of the devices'
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN (g_align): split points rounded for rows
 * of awkward sizes (3-byte rows), and the fallbacks to device 0 alone (one
 * part left after rounding, an unaligned output offset, an output that is
 * itself a sub-buffer, an input in the output's cl_mem or a sub-buffer of
 * it), each seen with device 1's queue held (device 0 must write every
 * row); clCreateSubBuffer failing. Part of test_shard (run/test_shard.c
 * says what the suite covers and where each part is).
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/shard_fx.h"

#include "core/faults.h" /* test builds: OpenCL fault injection */

/* ------------------------------------------- sub-buffers and fallbacks */

/* Gather on axis 0 (mode RAISE) of data [9, w] of type dt by `rows` int32
 * indices, in cl_mem: random data and indices, and the expected output. */
typedef struct rows_call {
  clg_params p;
  int64_t dshape[2], ishape[1], oshape[2];
  size_t row;          /* output row bytes */
  size_t dbytes, ibytes, obytes;
  unsigned char *data; /* dbytes */
  int32_t *idx;        /* rows */
  unsigned char *want; /* obytes */
} rows_call;

static void rows_init(rows_call *r, clg_dtype dt, int64_t w, int64_t rows,
                      uint64_t seed) {
  memset(r, 0, sizeof *r);
  r->p = (clg_params){CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  r->dshape[0] = 9;
  r->dshape[1] = w;
  r->ishape[0] = rows;
  r->oshape[0] = rows;
  r->oshape[1] = w;
  r->row = (size_t)w * clg_dtype_size(dt);
  r->dbytes = 9 * r->row;
  r->ibytes = (size_t)rows * sizeof *r->idx;
  r->obytes = (size_t)rows * r->row;
  r->data = malloc(r->dbytes);
  r->idx = malloc(r->ibytes);
  r->want = malloc(r->obytes);
  cr_assert(r->data && r->idx && r->want, "out of host memory");
  tu_rng rng = tu_rng_make(seed);
  tu_rng_bytes(&rng, r->data, r->dbytes);
  tu_fill_indices(&rng, r->idx, CLG_DTYPE_INT32, rows, 9, TU_IDX_ANY);
  cr_assert(ref_gather(r->data, clg_dtype_size(dt), 2, r->dshape, r->idx,
                       REF_INDEX_I32, 1, r->ishape, 0, r->want) == 0,
            "test bug: the reference failed");
}

static void rows_free(rows_call *r) {
  free(r->data);
  free(r->idx);
  free(r->want);
}

/* `total` bytes of TU_SENTINEL with `n` bytes of `src` at `at` added. */
static unsigned char *image_with(unsigned char *img, size_t total, size_t at,
                                 const void *src, size_t n) {
  if (!img) {
    img = malloc(total);
    cr_assert(img != NULL, "out of host memory");
    memset(img, (int)TU_SENTINEL, total);
  }
  cr_assert(at + n <= total, "test bug: image overflow");
  memcpy(img + at, src, n);
  return img;
}

static cl_uint mem_refs(cl_mem m) {
  cl_uint refs = 0;
  tu_cl_check(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs,
                                 NULL),
              "clGetMemObjectInfo(CL_MEM_REFERENCE_COUNT)");
  return refs;
}

/* A sub-buffer of `parent`: bytes [origin, origin + size). */
static cl_mem sub_buffer(cl_mem parent, size_t origin, size_t size) {
  cl_buffer_region region = {origin, size};
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region,
                               &err);
  tu_cl_check(err, "clCreateSubBuffer");
  return m;
}

/* Run r sharded (d, x, o its tensors) on the test's own queues with device
 * 1's queue held behind a user event. Returns how many leading rows of the
 * output (at byte `at` of cl_mem `buf`, `total` bytes) device 0 wrote
 * meanwhile, *rest_untouched whether every later output byte was still
 * TU_SENTINEL; then releases device 1 and expects all of `buf` to be
 * `image` and `buf` to be referenced by nothing of the call (its
 * sub-buffers released). */
static int64_t held_run(const rows_call *r, const clg_tensor *d,
                        const clg_tensor *x, const clg_tensor *o, cl_mem buf,
                        size_t total, size_t at, const unsigned char *image,
                        bool *rest_untouched, const char *what) {
  cl_command_queue qs[2] = {new_queue(g_cl, g_dev[0]),
                            new_queue(g_cl, g_dev[1])};
  cl_uint refs0 = mem_refs(buf);
  cl_int err = CL_SUCCESS;
  cl_event user = clCreateUserEvent(g_cl, &err);
  tu_cl_check(err, "clCreateUserEvent");
  tu_cl_check(clEnqueueBarrierWithWaitList(qs[1], 1, &user, NULL),
              "clEnqueueBarrierWithWaitList");
  tu_cl_check(clFlush(qs[1]), "clFlush");
  clg_status st =
      clg_run_sharded(g_ctx, 2, &r->p, d, x, o, qs, 0, NULL, NULL);
  if (st != CLG_SUCCESS) {
    clSetUserEventStatus(user, CL_COMPLETE);
    cr_assert(false, "%s: %s", what, clg_last_error());
  }
  /* qs[0] holds device 0's part only (or the whole call). */
  tu_cl_check(clFinish(qs[0]), "clFinish");
  sleep_ms(20); /* device 1's part, were it not held, would show */
  unsigned char *got = malloc(total);
  cr_assert(got != NULL);
  tu_cl_check(
      clEnqueueReadBuffer(g_io, buf, CL_TRUE, 0, total, got, 0, NULL, NULL),
      "clEnqueueReadBuffer");
  int64_t rows = r->oshape[0], done = 0;
  while (done < rows && memcmp(got + at + (size_t)done * r->row,
                               r->want + (size_t)done * r->row, r->row) == 0)
    ++done;
  *rest_untouched = true;
  for (size_t b = at + (size_t)done * r->row; b < at + r->obytes; ++b)
    *rest_untouched &= got[b] == TU_SENTINEL;
  tu_cl_check(clSetUserEventStatus(user, CL_COMPLETE), "clSetUserEventStatus");
  tu_cl_check(clFinish(qs[1]), "clFinish");
  tu_cl_check(clFinish(qs[0]), "clFinish");
  tu_cl_check(
      clEnqueueReadBuffer(g_io, buf, CL_TRUE, 0, total, got, 0, NULL, NULL),
      "clEnqueueReadBuffer");
  size_t k = 0;
  while (k < total && got[k] == image[k])
    ++k;
  cr_expect(k == total, "%s: byte %zu of the buffer is 0x%02x, want 0x%02x",
            what, k, k < total ? got[k] : 0, k < total ? image[k] : 0);
  /* The sub-buffers may be freed a little after their commands complete. */
  for (int tries = 0; tries < 100 && mem_refs(buf) != refs0; ++tries)
    sleep_ms(5);
  cr_expect(mem_refs(buf) == refs0, "%s: the output's cl_mem has %u "
            "references after the call, %u before (a sub-buffer leaked?)",
            what, mem_refs(buf), refs0);
  free(got);
  clReleaseEvent(user);
  clReleaseCommandQueue(qs[0]);
  clReleaseCommandQueue(qs[1]);
  return done;
}

/* Rows per multiple of g_align for rows of `row` bytes. */
static int64_t align_unit(size_t row) {
  size_t a = g_align, b = row;
  while (b) {
    size_t t = a % b;
    a = b;
    b = t;
  }
  return (int64_t)(g_align / a);
}

/* The split points round to keep each part's first byte aligned: rows of
 * 3 bytes (128 rows per 128-byte multiple), 6, 20, 24 and 1 byte, outputs
 * at offset 0 and at an aligned offset. Device 0 writes a proper prefix
 * ending at an aligned byte while device 1 is held; all is right after.
 * With fewer rows than the rounding unit, one part is left: device 0 alone
 * writes everything. */
Test(shard, split_rounding) {
  static const struct {
    clg_dtype dt;
    int64_t w, rows; /* rows 0: the rounding unit - 1 (one part) */
  } cases[] = {
      {CLG_DTYPE_INT8, 3, 1000},   {CLG_DTYPE_UINT8, 3, 0},
      {CLG_DTYPE_INT8, 3, 301},    {CLG_DTYPE_INT8, 1, 255},
      {CLG_DTYPE_FLOAT16, 3, 777}, {CLG_DTYPE_FLOAT, 5, 301},
      {CLG_DTYPE_DOUBLE, 3, 1001}, {CLG_DTYPE_FLOAT16, 3, 0},
      {CLG_DTYPE_INT8, 7, 2000},
  };
  cr_assert(g_align >= 16, "CL_DEVICE_MEM_BASE_ADDR_ALIGN of %zu bytes: "
                           "nothing to round",
            g_align);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    size_t row = (size_t)cases[k].w * clg_dtype_size(cases[k].dt);
    int64_t unit = align_unit(row);
    int64_t rows = cases[k].rows ? cases[k].rows : unit - 1;
    bool alone = rows < unit; /* every split point rounds to 0 or past the end */
    rows_call r;
    rows_init(&r, cases[k].dt, cases[k].w, rows, 900 + k);
    sh_tensor td, ti, to;
    sh_init(&td, cases[k].dt, 2, r.dshape, true, 0, r.data);
    sh_init(&ti, CLG_DTYPE_INT32, 1, r.ishape, true, 4, r.idx);
    size_t at = k % 2 ? 0 : 2 * g_align;
    sh_init(&to, cases[k].dt, 2, r.oshape, true, at, NULL);
    unsigned char *img = image_with(NULL, to.total, at, r.want, r.obytes);
    char what[128];
    snprintf(what, sizeof what, "%s [%" PRId64 ", %" PRId64 "] at %zu",
             clg_dtype_name(cases[k].dt), rows, cases[k].w, at);
    bool rest = false;
    int64_t done = held_run(&r, &td.desc, &ti.desc, &to.desc, to.buf,
                            to.total, at, img, &rest, what);
    if (alone) {
      cr_expect(done == rows, "%s: one part after rounding, but device 0 "
                "wrote %" PRId64 " rows", what, done);
    } else {
      cr_expect(done > 0 && done < rows && rest,
                "%s: device 0 wrote %" PRId64 " rows (the rest %s)", what,
                done, rest ? "untouched" : "written too");
      cr_expect((at + (size_t)done * row) % g_align == 0,
                "%s: device 1's part starts at byte %zu, not a multiple of "
                "%zu",
                what, at + (size_t)done * row, g_align);
    }
    cr_log_info("split_rounding: %s: device 0 wrote rows [0, %" PRId64 ")",
                what, done);
    free(img);
    sh_free(&td);
    sh_free(&ti);
    sh_free(&to);
    rows_free(&r);
  }
}

/* An output at an offset that is no multiple of the alignment (but of its
 * element size): device 0 alone writes it all, byte for byte right. */
Test(shard, unaligned_output) {
  static const struct {
    clg_dtype dt;
    int64_t w, rows;
    size_t extra; /* offset: g_align + extra */
  } cases[] = {
      {CLG_DTYPE_FLOAT, 4, 1001, 4},
      {CLG_DTYPE_INT8, 3, 1000, 1},
      {CLG_DTYPE_DOUBLE, 2, 700, 8},
  };
  cr_assert(g_align >= 16, "alignment %zu", g_align);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    rows_call r;
    rows_init(&r, cases[k].dt, cases[k].w, cases[k].rows, 950 + k);
    sh_tensor td, ti, to;
    sh_init(&td, cases[k].dt, 2, r.dshape, true, 0, r.data);
    sh_init(&ti, CLG_DTYPE_INT32, 1, r.ishape, true, 0, r.idx);
    size_t at = g_align + cases[k].extra;
    sh_init(&to, cases[k].dt, 2, r.oshape, true, at, NULL);
    unsigned char *img = image_with(NULL, to.total, at, r.want, r.obytes);
    char what[128];
    snprintf(what, sizeof what, "%s [%" PRId64 ", %" PRId64 "] at %zu",
             clg_dtype_name(cases[k].dt), cases[k].rows, cases[k].w, at);
    bool rest = false;
    int64_t done = held_run(&r, &td.desc, &ti.desc, &to.desc, to.buf,
                            to.total, at, img, &rest, what);
    cr_expect(done == cases[k].rows,
              "%s: device 0 wrote %" PRId64 " rows while device 1 was held: "
              "not run on device 0 alone",
              what, done);
    free(img);
    sh_free(&td);
    sh_free(&ti);
    sh_free(&to);
    rows_free(&r);
  }
}

/* An output that is itself a sub-buffer (cannot be sub-buffered): device
 * 0 alone, at offset 0 of the sub-buffer and at an aligned offset in it. */
Test(shard, sub_buffer_output) {
  for (int k = 0; k < 2; ++k) {
    rows_call r;
    rows_init(&r, CLG_DTYPE_FLOAT, 4, 1001, 970 + (uint64_t)k);
    sh_tensor td, ti, to;
    sh_init(&td, CLG_DTYPE_FLOAT, 2, r.dshape, true, 0, r.data);
    sh_init(&ti, CLG_DTYPE_INT32, 1, r.ishape, true, 0, r.idx);
    size_t at = 2 * g_align, origin = k ? g_align : at;
    sh_init(&to, CLG_DTYPE_FLOAT, 2, r.oshape, true, at, NULL);
    cl_mem sub = sub_buffer(to.buf, origin, to.total - origin);
    clg_tensor o =
        clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, r.oshape, sub, at - origin);
    unsigned char *img = image_with(NULL, to.total, at, r.want, r.obytes);
    char what[96];
    snprintf(what, sizeof what, "output at %zu of a sub-buffer", at - origin);
    bool rest = false;
    int64_t done = held_run(&r, &td.desc, &ti.desc, &o, sub, to.total - origin,
                            at - origin, img + origin, &rest, what);
    cr_expect(done == 1001,
              "%s: device 0 wrote %" PRId64 " rows while device 1 was held: "
              "not run on device 0 alone",
              what, done);
    clReleaseMemObject(sub);
    free(img);
    sh_free(&td);
    sh_free(&ti);
    sh_free(&to);
    rows_free(&r);
  }
}

/* An input in the output's cl_mem (reading a buffer while its sub-buffers
 * are written is undefined): data in the output's buffer before it, or
 * indices in a sub-buffer of it: device 0 alone. Indices in a sub-buffer of
 * another buffer do not matter: the call is split. */
Test(shard, input_in_output_buffer) {
  for (int k = 0; k < 3; ++k) {
    rows_call r;
    rows_init(&r, CLG_DTYPE_FLOAT, 4, 1001, 980 + (uint64_t)k);
    /* The inputs' room in front of the output, aligned. */
    size_t room = (r.ibytes + g_align - 1) / g_align * g_align;
    size_t at = room + g_align;
    sh_tensor td, ti, to;
    sh_init(&td, CLG_DTYPE_FLOAT, 2, r.dshape, true, 0, r.data);
    sh_init(&ti, CLG_DTYPE_INT32, 1, r.ishape, true, 0, r.idx);
    sh_init(&to, CLG_DTYPE_FLOAT, 2, r.oshape, true, at, NULL);
    unsigned char *img = image_with(NULL, to.total, at, r.want, r.obytes);
    clg_tensor d = td.desc, x = ti.desc;
    cl_mem sub = NULL, other = NULL;
    const char *what = NULL;
    if (k == 0) {
      what = "data in the output's cl_mem";
      tu_cl_check(clEnqueueWriteBuffer(g_io, to.buf, CL_TRUE, 0, r.dbytes,
                                       r.data, 0, NULL, NULL),
                  "clEnqueueWriteBuffer");
      image_with(img, to.total, 0, r.data, r.dbytes);
      d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, r.dshape, to.buf, 0);
    } else if (k == 1) {
      what = "indices in a sub-buffer of the output's cl_mem";
      tu_cl_check(clEnqueueWriteBuffer(g_io, to.buf, CL_TRUE, 0, r.ibytes,
                                       r.idx, 0, NULL, NULL),
                  "clEnqueueWriteBuffer");
      image_with(img, to.total, 0, r.idx, r.ibytes);
      sub = sub_buffer(to.buf, 0, room);
      x = clg_tensor_buffer(CLG_DTYPE_INT32, 1, r.ishape, sub, 0);
    } else {
      what = "indices in a sub-buffer of another cl_mem";
      cl_int err = CL_SUCCESS;
      other = clCreateBuffer(g_cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             r.ibytes, r.idx, &err);
      tu_cl_check(err, "clCreateBuffer");
      sub = sub_buffer(other, 0, r.ibytes);
      x = clg_tensor_buffer(CLG_DTYPE_INT32, 1, r.ishape, sub, 0);
    }
    bool rest = false;
    int64_t done =
        held_run(&r, &d, &x, &to.desc, to.buf, to.total, at, img, &rest, what);
    if (k < 2)
      cr_expect(done == 1001,
                "%s: device 0 wrote %" PRId64 " rows while device 1 was "
                "held: not run on device 0 alone",
                what, done);
    else
      cr_expect(done > 0 && done < 1001 && rest,
                "%s: device 0 wrote %" PRId64 " rows (the rest %s): not "
                "split",
                what, done, rest ? "untouched" : "written too");
    if (sub)
      clReleaseMemObject(sub);
    if (other)
      clReleaseMemObject(other);
    free(img);
    sh_free(&td);
    sh_free(&ti);
    sh_free(&to);
    rows_free(&r);
  }
}

/* clCreateSubBuffer failing: for the first part (nothing enqueued: the
 * output untouched) and for the second (the first part done when the call
 * returns: an aligned prefix of the rows written, the rest untouched).
 * CLG_ERROR_OPENCL naming the call and the code, no event, no reference
 * left on the output; then the same call succeeds. */
Test(shard, sub_buffer_fault) {
  static const cl_int codes[2] = {CL_MISALIGNED_SUB_BUFFER_OFFSET,
                                  CL_OUT_OF_RESOURCES};
  rows_call r;
  rows_init(&r, CLG_DTYPE_FLOAT, 4, 1001, 990);
  sh_tensor td, ti;
  sh_init(&td, CLG_DTYPE_FLOAT, 2, r.dshape, true, 0, r.data);
  sh_init(&ti, CLG_DTYPE_INT32, 1, r.ishape, true, 0, r.idx);
  for (unsigned pos = 0; pos < 2; ++pos) {
    sh_tensor to;
    sh_init(&to, CLG_DTYPE_FLOAT, 2, r.oshape, true, g_align, NULL);
    cl_uint refs0 = mem_refs(to.buf);
    clg_fault_reset();
    clg_fault_inject(CLG_FAULT_CREATE_SUB_BUFFER, pos, 1, codes[pos]);
    cl_event ev = NULL;
    clg_status st = clg_run_sharded(g_ctx, 2, &r.p, &td.desc, &ti.desc,
                                    &to.desc, NULL, 0, NULL, &ev);
    unsigned long hit = clg_fault_calls(CLG_FAULT_CREATE_SUB_BUFFER);
    clg_fault_reset();
    char want_msg[128];
    snprintf(want_msg, sizeof want_msg, "clCreateSubBuffer failed: %s (%d)",
             codes[pos] == CL_OUT_OF_RESOURCES
                 ? "CL_OUT_OF_RESOURCES"
                 : "CL_MISALIGNED_SUB_BUFFER_OFFSET",
             (int)codes[pos]);
    cr_expect(hit == pos + 1, "sub-buffer %u: %lu clCreateSubBuffer calls",
              pos, hit);
    cr_expect(st == CLG_ERROR_OPENCL, "sub-buffer %u: got %s (%s)", pos,
              clg_status_string(st), clg_last_error());
    cr_expect(tu_contains(clg_last_error(), want_msg),
              "sub-buffer %u: message \"%s\" lacks \"%s\"", pos,
              clg_last_error(), want_msg);
    cr_expect(ev == NULL, "sub-buffer %u: an event after an error", pos);
    if (ev)
      clReleaseEvent(ev);
    /* Read at once: what the call left is final. */
    unsigned char *got = malloc(to.total);
    cr_assert(got != NULL);
    sh_read_all(&to, got);
    size_t done = 0;
    while (done < 1001 && memcmp(got + to.offset + done * r.row,
                                 r.want + done * r.row, r.row) == 0)
      ++done;
    bool untouched = true;
    for (size_t b = 0; b < to.total; ++b)
      if (b < to.offset || b >= to.offset + done * r.row)
        untouched &= got[b] == TU_SENTINEL;
    if (pos == 0)
      cr_expect(done == 0 && untouched,
                "sub-buffer 0: the output was written (%zu rows)", done);
    else
      cr_expect(done > 0 && done < 1001 && untouched &&
                    (to.offset + done * r.row) % g_align == 0,
                "sub-buffer 1: the first part's rows [0, %zu) are not all "
                "that was written, or it had not finished",
                done);
    for (int q = 0; q < 2; ++q)
      tu_cl_check(clFinish(clg_context_queue(g_ctx[q])), "clFinish");
    unsigned char *again = malloc(to.total);
    cr_assert(again != NULL);
    sh_read_all(&to, again);
    cr_expect(memcmp(got, again, to.total) == 0,
              "sub-buffer %u: the output changed after the call failed", pos);
    for (int tries = 0; tries < 100 && mem_refs(to.buf) != refs0; ++tries)
      sleep_ms(5);
    cr_expect(mem_refs(to.buf) == refs0,
              "sub-buffer %u: %u references on the output, %u before", pos,
              mem_refs(to.buf), refs0);
    free(got);
    free(again);
    /* Without the fault, the same call. */
    st = clg_run_sharded(g_ctx, 2, &r.p, &td.desc, &ti.desc, &to.desc, NULL, 0,
                         NULL, &ev);
    cr_expect(st == CLG_SUCCESS && ev != NULL, "after the fault: %s",
              clg_last_error());
    if (ev) {
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
    }
    char why[256];
    cr_expect(sh_holds(&to, r.want, why, sizeof why), "after the fault: %s",
              why);
    sh_free(&to);
  }
  sh_free(&td);
  sh_free(&ti);
  rows_free(&r);
}
