/*
 * The gathers' bad-input catalogue, part 1 of the table: clg_gather()'s
 * arguments that the family's shared catalogue (tools/cases/gather_bad.c:
 * index values, ranks, dims, axes, element types, output shapes) cannot
 * express: NULL pointers, malformed arguments, storages, other
 * cl_contexts, overlaps, size overflow, cl_mem too small, with
 * clg_gather_output_shape()'s entries among them; the builders these use. The
 * base call is described in test_catalogue.c (the runner); the rest of the
 * table is in catalogue_cases_run.c and catalogue_cases_faults.c
 * (catalogue_fx.h).
 */
#include "catalogue_fx.h"

#include <string.h>

static cl_context g_foreign_ctx; /* a second cl_context on the device */
static cl_command_queue g_foreign_q;

static void foreign_init(void) {
  if (g_foreign_ctx)
    return;
  cl_device_id dev = tu_device();
  cl_int err = CL_SUCCESS;
  g_foreign_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  tu_cl_check(err, "clCreateContext (foreign)");
  g_foreign_q = clCreateCommandQueue(g_foreign_ctx, dev, 0, &err);
  tu_cl_check(err, "clCreateCommandQueue (foreign)");
}

static clg_tensor *pick(cat_call *c, int64_t which) {
  return which == 0 ? &c->d : which == 1 ? &c->i : &c->o;
}

/* ------------------------------------------------------- builders */

B(b_null_ctx) {
  UNUSED_P;
  c->no_ctx = true;
}
B(b_null_data) {
  UNUSED_P;
  c->no_data = true;
}
B(b_null_indices) {
  UNUSED_P;
  c->no_indices = true;
}
B(b_null_output) {
  UNUSED_P;
  c->no_output = true;
}
/* p[0]: 0 data, 1 indices, 2 output. */
B(b_host_null) { pick(c, p[0])->host = NULL; }
B(b_buffer_null) {
  clg_tensor *t = pick(c, p[0]);
  t->storage = CLG_STORAGE_BUFFER;
  t->buffer = NULL;
  t->offset = 0;
}
B(b_output_buffer_null) {
  UNUSED_P;
  c->o.buffer = NULL;
}
/* p[0]: 0 {NULL} with 1 event, 1 count 2 without a list, 2 list with 0. */
B(b_wait_list) {
  static const cl_event none[1] = {NULL};
  c->nev = p[0] == 0 ? 1u : p[0] == 1 ? 2u : 0u;
  c->wl = p[0] == 1 ? NULL : none;
}
/* p[0]: tensor, p[1]: storage value. */
B(b_storage) { pick(c, p[0])->storage = (clg_storage)p[1]; }
B(b_image_data) {
  UNUSED_P;
  cl_bool images = CL_FALSE;
  tu_cl_check(clGetDeviceInfo(tu_device(), CL_DEVICE_IMAGE_SUPPORT,
                              sizeof images, &images, NULL),
              "clGetDeviceInfo(CL_DEVICE_IMAGE_SUPPORT)");
  if (!images) {
    c->skip = "the device has no image support";
    return;
  }
  cl_image_format fmt = {CL_R, CL_FLOAT};
  cl_image_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 16;
  desc.image_height = 16;
  cl_int err = CL_SUCCESS;
  cl_mem img =
      clCreateImage(c->clctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
  tu_cl_check(err, "clCreateImage");
  c->d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, base_dshape, own(c, img), 0);
}
/* p[0]: tensor (data or output) in a buffer of another cl_context. */
B(b_foreign_buffer) {
  foreign_init();
  if (p[0] == 0) {
    cl_mem m = own(c, mkbuf(g_foreign_ctx, 60, c->data, 0, 60));
    c->d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, base_dshape, m, 0);
  } else {
    clReleaseMemObject(c->out_mem);
    c->out_mem = mkbuf(g_foreign_ctx, c->out_mem_size, NULL, 0, 0);
    c->out_q = g_foreign_q;
    c->o.buffer = c->out_mem;
  }
}
B(b_foreign_queue) {
  UNUSED_P;
  foreign_init();
  c->queue = g_foreign_q;
}
/* The output overlaps p[0] (0 data, 1 indices): the input is placed in the
 * output's own (sentinel) memory. */
B(b_overlap) {
  size_t at = p[0] == 0 ? 8 : 16;
  clg_tensor *t = pick(c, p[0]);
  if (c->out_buf) {
    t->storage = CLG_STORAGE_BUFFER;
    t->buffer = c->out_mem;
    t->offset = OUT_OFF + at;
    t->host = NULL;
  } else {
    t->host = (unsigned char *)c->o.host + at;
  }
}
B(b_idx_misaligned) {
  UNUSED_P;
  c->idx_extra_off = 4;
}
/* data rank 10, indices rank 8: the output would have rank 17. */
B(b_rank_sum) {
  UNUSED_P;
  int64_t ones[CLG_MAX_RANK];
  for (int k = 0; k < CLG_MAX_RANK; ++k)
    ones[k] = 1;
  set_shape(&c->d, 10, ones);
  set_shape(&c->i, 8, ones);
  set_shape(&c->o, 16, ones);
}
/* p[0]: tensor, p[1]: dtype. */
B(b_dtype) { pick(c, p[0])->dtype = (clg_dtype)p[1]; }
/* Data and output: p[0] dtype; data rank p[1] dims p[2..4]; axis p[5];
 * indices [2, 3]; output shape as Gather would make it (may overflow). */
B(b_big) {
  c->d.dtype = c->o.dtype = (clg_dtype)p[0];
  set_shape(&c->d, (int32_t)p[1], p + 2);
  c->axis = p[5];
  int32_t r = (int32_t)p[1], a = (int32_t)(p[5] < 0 ? p[5] + r : p[5]);
  int64_t os[CLG_MAX_RANK];
  int32_t n = 0;
  for (int32_t k = 0; k < a; ++k)
    os[n++] = p[2 + k];
  os[n++] = 2;
  os[n++] = 3;
  for (int32_t k = a + 1; k < r; ++k)
    os[n++] = p[2 + k];
  set_shape(&c->o, n, os);
}
/* Indices of shape [p[0], p[1]]; output [p[0], p[1], 3]. */
B(b_big_indices) {
  const int64_t is[2] = {p[0], p[1]}, os[3] = {p[0], p[1], 3};
  set_shape(&c->i, 2, is);
  set_shape(&c->o, 3, os);
}
/* Data in a cl_mem of p[0] bytes at byte offset p[1] (offset may exceed). */
B(b_data_buffer) {
  size_t size = (size_t)p[0];
  cl_mem m = own(c, mkbuf(c->clctx, size, c->data, 0, size < 60 ? size : 60));
  c->d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, base_dshape, m, (size_t)p[1]);
  if (p[2])
    c->d.shape[0] = 0; /* empty data: only the offset is wrong */
}
/* Indices in a cl_mem of p[0] bytes. */
B(b_indices_buffer) {
  size_t size = (size_t)p[0];
  cl_mem m = own(c, mkbuf(c->clctx, size, c->idx, 0, size < 48 ? size : 48));
  c->i = clg_tensor_buffer(CLG_DTYPE_INT64, 2, base_ishape, m, 0);
}
/* Output offset: p[0] bytes before the end of the buffer (negative: past
 * it). */
B(b_output_offset) { c->o.offset = c->out_mem_size - (size_t)p[0]; }
/* clg_gather_output_shape with the base shapes; p[0] bit 0: data_shape
 * NULL, bit 1: indices_shape NULL, bit 2: out_rank NULL, bit 3: out_shape
 * NULL; p[1] >= 0: data rank p[1]; p[2] != -99: indices rank p[2];
 * p[3]: axis; p[4] != 0: data shape[1] = p[4]. p[1] == -2: keep. */
B(b_oshape_fn) {
  c->kind = K_OUTPUT_SHAPE;
  c->no_data = (p[0] & 1) != 0;
  c->no_indices = (p[0] & 2) != 0;
  c->no_out_rank = (p[0] & 4) != 0;
  c->no_out_shape = (p[0] & 8) != 0;
  if (p[1] != -2)
    c->d.rank = (int32_t)p[1];
  if (p[2] != -99)
    c->i.rank = (int32_t)p[2];
  c->axis = p[3];
  if (p[4])
    c->d.shape[1] = p[4];
  if (c->d.rank > 2)
    for (int k = 2; k < CLG_MAX_RANK; ++k)
      c->d.shape[k] = 1;
  if (c->i.rank > 2)
    for (int k = 2; k < CLG_MAX_RANK; ++k)
      c->i.shape[k] = 1;
}

/* clang-format off */
const cat_case cat_cases_gather[] = {
    /* ---- NULL pointers, one per pointer argument */
    {"ctx NULL", b_null_ctx, {0}, ST(NULL_ARGUMENT), {"ctx is NULL"}, 0},
    {"data NULL", b_null_data, {0}, ST(NULL_ARGUMENT), {"data is NULL"}, 0},
    {"indices NULL", b_null_indices, {0}, ST(NULL_ARGUMENT),
     {"indices is NULL"}, 0},
    {"output NULL", b_null_output, {0}, ST(NULL_ARGUMENT), {"output is NULL"},
     0},
    {"data->host NULL", b_host_null, {0}, ST(NULL_ARGUMENT),
     {"data->host is NULL", "60 bytes"}, 0},
    {"indices->host NULL", b_host_null, {1}, ST(NULL_ARGUMENT),
     {"indices->host is NULL", "48 bytes"}, 0},
    {"output->host NULL", b_host_null, {2}, ST(NULL_ARGUMENT),
     {"output->host is NULL", "72 bytes"}, CAT_OUT_HOST},
    {"data->buffer NULL", b_buffer_null, {0}, ST(NULL_ARGUMENT),
     {"data->buffer is NULL"}, 0},
    {"indices->buffer NULL", b_buffer_null, {1}, ST(NULL_ARGUMENT),
     {"indices->buffer is NULL"}, 0},
    {"output->buffer NULL", b_output_buffer_null, {0}, ST(NULL_ARGUMENT),
     {"output->buffer is NULL"}, CAT_OUT_BUF},
    {"wait_list[0] NULL", b_wait_list, {0}, ST(NULL_ARGUMENT),
     {"wait_list[0] is NULL"}, 0},
    {"num_events 2, wait_list NULL", b_wait_list, {1}, ST(INVALID_ARGUMENT),
     {"num_events is 2", "wait_list is NULL"}, 0},
    {"num_events 0, wait_list not NULL", b_wait_list, {2}, ST(INVALID_ARGUMENT),
     {"num_events is 0", "not NULL"}, 0},
    {"clg_context_create_default: out NULL", b_ctx_default, {NOSPEC, 1, NOF},
     ST(NULL_ARGUMENT), {"out is NULL"}, CAT_ONCE},
    {"clg_context_create: context NULL", b_ctx_create, {1, 0, 0, NOF},
     ST(NULL_ARGUMENT), {"context is NULL"}, CAT_ONCE},
    {"clg_context_create: device NULL", b_ctx_create, {0, 1, 0, NOF},
     ST(NULL_ARGUMENT), {"device is NULL"}, CAT_ONCE},
    {"clg_context_create: out NULL", b_ctx_create, {0, 0, 1, NOF},
     ST(NULL_ARGUMENT), {"out is NULL"}, CAT_ONCE},
    {"output_shape: data_shape NULL", b_oshape_fn, {1, -2, -99, 0, 0},
     ST(NULL_ARGUMENT), {"data_shape is NULL"}, CAT_ONCE},
    {"output_shape: indices_shape NULL, rank 2", b_oshape_fn,
     {2, -2, -99, 0, 0}, ST(NULL_ARGUMENT),
     {"indices_shape is NULL", "indices_rank is 2"}, CAT_ONCE},
    {"output_shape: out_rank NULL", b_oshape_fn, {4, -2, -99, 0, 0},
     ST(NULL_ARGUMENT), {"out_rank is NULL"}, CAT_ONCE},
    {"output_shape: out_shape NULL", b_oshape_fn, {8, -2, -99, 0, 0},
     ST(NULL_ARGUMENT), {"out_shape is NULL"}, CAT_ONCE},

    /* ---- malformed arguments */
    {"data storage 7", b_storage, {0, 7}, ST(INVALID_ARGUMENT),
     {"data has unknown storage kind 7"}, 0},
    {"indices storage -1", b_storage, {1, -1}, ST(INVALID_ARGUMENT),
     {"indices has unknown storage kind -1"}, 0},
    {"output storage 4", b_storage, {2, 4}, ST(INVALID_ARGUMENT),
     {"output has unknown storage kind 4"}, 0},
    {"data cl_mem is an image", b_image_data, {0}, ST(INVALID_ARGUMENT),
     {"data->buffer is not a buffer memory object"}, 0},
    {"data cl_mem of another cl_context", b_foreign_buffer, {0},
     ST(INVALID_ARGUMENT), {"data->buffer belongs to another cl_context"}, 0},
    {"output cl_mem of another cl_context", b_foreign_buffer, {2},
     ST(INVALID_ARGUMENT), {"output->buffer belongs to another cl_context"},
     CAT_OUT_BUF},
    {"queue of another cl_context", b_foreign_queue, {0}, ST(INVALID_ARGUMENT),
     {"command queue belongs to another cl_context"}, 0},
    {"output overlaps data", b_overlap, {0}, ST(INVALID_ARGUMENT),
     {"output overlaps data"}, 0},
    {"output overlaps indices", b_overlap, {1}, ST(INVALID_ARGUMENT),
     {"output overlaps indices"}, 0},
    {"cl_mem indices offset not a multiple of 8", b_idx_misaligned, {0},
     ST(INVALID_ARGUMENT),
     {"indices->offset 12 is not a multiple of the index size 8"},
     CAT_IDX_BUF_ONLY},
    {"clg_context_create: device not in the cl_context", b_ctx_create_subdevice,
     {0}, ST(INVALID_ARGUMENT), {"not one of the cl_context's devices"},
     CAT_ONCE},

    /* ---- ranks */
    {"output rank would be 17 (data 10 + indices 8 - 1)", b_rank_sum, {0},
     ST(INVALID_RANK), {"would have rank 17", "limit 16"}, 0},
    {"output_shape: data rank 0", b_oshape_fn, {0, 0, -99, 0, 0},
     ST(INVALID_RANK), {"data has rank 0", "[1, 16]"}, CAT_ONCE},
    {"output_shape: data rank 17", b_oshape_fn, {0, 17, -99, 0, 0},
     ST(INVALID_RANK), {"data has rank 17"}, CAT_ONCE},
    {"output_shape: indices rank -1", b_oshape_fn, {0, -2, -1, 0, 0},
     ST(INVALID_RANK), {"indices has rank -1"}, CAT_ONCE},
    {"output_shape: rank 9 + rank 9 - 1 = 17", b_oshape_fn, {0, 9, 9, 0, 0},
     ST(INVALID_RANK), {"would have rank 17"}, CAT_ONCE},

    /* ---- negative dims */
    {"output_shape: data dim -4", b_oshape_fn, {0, -2, -99, 0, -4},
     ST(INVALID_SHAPE), {"data has a negative dimension: shape[1] = -4"},
     CAT_ONCE},

    /* ---- axis, data rank 2: valid range [-2, 1] */
    {"output_shape: axis 2 for rank 2", b_oshape_fn, {0, -2, -99, 2, 0},
     ST(INVALID_AXIS), {"axis 2 is out of range"}, CAT_ONCE},

    /* ---- element types */
    {"data dtype undefined", b_dtype, {0, CLG_DTYPE_UNDEFINED},
     ST(UNSUPPORTED_DTYPE), {"data has unsupported element type 0"}, 0},

    /* ---- output shape, base produces [2, 3, 3] */

    /* ---- sizes overflowing size_t bytes (or int64 elements) */
    {"data [2^32, 2^32] float: count overflows", b_big,
     {CLG_DTYPE_FLOAT, 2, TWO32, TWO32, 0, 0}, ST(SIZE_OVERFLOW),
     {"data of shape [4294967296, 4294967296]", "overflows size_t"}, 0},
    {"data [2^31, 2^32] uint8: count 2^63 > INT64_MAX", b_big,
     {CLG_DTYPE_UINT8, 2, TWO31, TWO32, 0, 0}, ST(SIZE_OVERFLOW),
     {"data of shape [2147483648, 4294967296]"}, 0},
    {"data [2^62] float: bytes overflow", b_big,
     {CLG_DTYPE_FLOAT, 1, (int64_t)1 << 62, 0, 0, 0}, ST(SIZE_OVERFLOW),
     {"data of shape [4611686018427387904] with 4-byte elements"}, 0},
    {"data [2^60] complex128: bytes overflow", b_big,
     {CLG_DTYPE_COMPLEX128, 1, (int64_t)1 << 60, 0, 0, 0}, ST(SIZE_OVERFLOW),
     {"with 16-byte elements"}, 0},
    {"indices [2^32, 2^32]: count overflows", b_big_indices, {TWO32, TWO32},
     ST(SIZE_OVERFLOW), {"indices of shape [4294967296, 4294967296]"}, 0},
    {"only the output overflows: [2^31, 2^31, 1] uint8, axis 2", b_big,
     {CLG_DTYPE_UINT8, 3, TWO31, TWO31, 1, 2}, ST(SIZE_OVERFLOW),
     {"output of shape [2147483648, 2147483648, 2, 3]"}, 0},
    {"only the output bytes overflow: [2^60, 1] double, axis 1", b_big,
     {CLG_DTYPE_DOUBLE, 2, (int64_t)1 << 60, 1, 0, 1}, ST(SIZE_OVERFLOW),
     {"output of shape [1152921504606846976, 2, 3] with 8-byte elements"}, 0},

    /* ---- cl_mem smaller than offset + bytes */
    {"data cl_mem 59 bytes (needs 60)", b_data_buffer, {59, 0, 0},
     ST(BUFFER_TOO_SMALL),
     {"data->buffer holds 59 bytes, but offset 0 + 60 bytes"}, 0},
    {"data cl_mem 60 bytes at offset 4", b_data_buffer, {60, 4, 0},
     ST(BUFFER_TOO_SMALL),
     {"data->buffer holds 60 bytes, but offset 4 + 60 bytes"}, 0},
    {"data offset SIZE_MAX - 8", b_data_buffer, {60, -9, 0},
     ST(BUFFER_TOO_SMALL), {"data->buffer holds 60 bytes, but offset "}, 0},
    {"empty data at offset 61 of a 60-byte cl_mem", b_data_buffer, {60, 61, 1},
     ST(BUFFER_TOO_SMALL),
     {"data->buffer holds 60 bytes, but offset 61 + 0 bytes"}, 0},
    {"indices cl_mem 47 bytes (needs 48)", b_indices_buffer, {47},
     ST(BUFFER_TOO_SMALL),
     {"indices->buffer holds 47 bytes, but offset 0 + 48 bytes"}, 0},
    {"output cl_mem one byte short of offset + 72", b_output_offset, {71},
     ST(BUFFER_TOO_SMALL), {"output->buffer holds", "+ 72 bytes"}, CAT_OUT_BUF},
    {"output offset past the cl_mem's end", b_output_offset, {-1},
     ST(BUFFER_TOO_SMALL), {"output->buffer holds"}, CAT_OUT_BUF},

    /* ---- index values outside [-s, s-1] (s = 5 unless said) */

};
/* clang-format on */

const size_t cat_ncases_gather =
    sizeof cat_cases_gather / sizeof cat_cases_gather[0];
