/*
 * The bad-input catalogue: the one authoritative list of every input the
 * public API rejects, with the status it must return and substrings its
 * message (clg_last_error()) must contain.
 *
 * Each entry is a builder that breaks one thing in a valid base call:
 *
 *   data    float [5, 3] = 0 .. 14          (host memory)
 *   indices int64 [2, 3] = {0, 4, -5, 2, -1, 3}  (host memory)
 *   axis    0
 *   output  float [2, 3, 3]
 *
 * and one runner executes every entry with a host output AND with a cl_mem
 * output (entries about index values also with the indices in a cl_mem, so
 * the device-resident read-back validation is covered; with a cl_mem output
 * the data then goes to a cl_mem too: the non-blocking all-device call),
 * and checks:
 *   (i)   no gather kernel was enqueued: clg_fault_calls(ENQUEUE_KERNEL)
 *         stays 0 across the call;
 *   (ii)  the host output's bytes, and TU_GUARD bytes on each side, still
 *         hold TU_SENTINEL;
 *   (iii) the cl_mem output buffer (every byte, the tensor starts OUT_OFF
 *         bytes in) still holds TU_SENTINEL;
 *   (iv)  the context is still usable: a correct gather (host and cl_mem
 *         output) on it gives the reference result.
 * Also: no event is returned. Entries for clg_context_create*() and
 * clg_gather_output_shape() check that *out stays NULL / the out arrays are
 * not written, and (iv) on the shared context.
 *
 * Entries for GatherElements, GatherND and Gather's batch_dims / index modes
 * call clg_run() (or clg_output_shape()) with their clg_params instead of
 * clg_gather(); their bases are described at their builders.
 *
 * Every status the API can return appears at least once (checked at the end):
 * NO_DEVICE by a device spec that matches nothing, OPENCL / BUILD_FAILED /
 * OUT_OF_HOST_MEMORY by test-only fault injection (host/core/faults.h).
 *
 * One Test loops over the table (Criterion forks a process per Test; one
 * process keeps the suite at a few seconds); every failure message names the
 * entry and the variant.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/testutil.h"

/* The fault-injection API without the macros that would route this file's
 * own OpenCL calls through the counting wrappers: only host/ is counted. */
#define CLG_FAULTS_IMPL
#include "core/faults.h"
#include "internal.h" /* clg_context::device_validations */

/* CLGATHER_TEST_DEVICE_VALIDATION=always: cl_mem indices are validated by a
 * kernel (host/run/index_pass.c), never read back. */
static bool device_validation_forced(void) {
  const char *e = getenv("CLGATHER_TEST_DEVICE_VALIDATION");
  return e && strcmp(e, "always") == 0;
}

/* Sentinel bytes behind every output (>= any entry's output). */
#define OUT_ALLOC 256
/* Byte offset of a cl_mem output in its buffer. */
#define OUT_OFF 16
/* Byte offset of cl_mem indices, and spare bytes after them. */
#define IDX_OFF 8
#define IDX_TAIL 16

/* --------------------------------------------------------- the call */

typedef enum cat_kind {
  K_GATHER = 0,   /* clg_gather */
  K_CTX_DEFAULT,  /* clg_context_create_default(spec, out) */
  K_CTX_CREATE,   /* clg_context_create(cc_ctx, cc_dev, out) */
  K_OUTPUT_SHAPE, /* clg_gather_output_shape(d.rank, d.shape, i.rank, ...) */
} cat_kind;

typedef struct cat_call {
  cat_kind kind;
  /* The variant, set by the runner before the builder runs. */
  bool out_buf; /* cl_mem output (else host) */
  bool idx_buf; /* indices moved to a cl_mem after the builder */
  clg_context *ctx;
  cl_context clctx;
  cl_command_queue io_q; /* the test's queue on clctx */

  /* Memory behind the base tensors. */
  _Alignas(16) float data[64];
  _Alignas(16) unsigned char idx[128];
  _Alignas(16) unsigned char out_host[TU_GUARD + OUT_ALLOC + TU_GUARD];
  cl_mem out_mem; /* cl_mem output: OUT_OFF + OUT_ALLOC + TU_GUARD bytes */
  size_t out_mem_size;
  cl_command_queue out_q; /* a queue to read out_mem back */

  /* The arguments. */
  clg_tensor d, i, o;
  bool no_ctx, no_data, no_indices, no_output;
  int64_t axis;
  cl_command_queue queue;
  cl_uint nev;
  const cl_event *wl;
  size_t idx_extra_off; /* added to IDX_OFF in the cl_mem indices variant */
  bool use_params;      /* clg_run / clg_output_shape with `params` */
  clg_params params;

  /* Other entry points. */
  const char *spec; /* K_CTX_DEFAULT */
  bool no_out;      /* K_CTX_DEFAULT, K_CTX_CREATE */
  cl_context cc_ctx;
  cl_device_id cc_dev;
  bool no_out_rank, no_out_shape; /* K_OUTPUT_SHAPE */

  /* An OpenCL / host-allocation failure to inject for the call. */
  bool fault;
  clg_fault fkind;
  unsigned fskip;
  cl_int ferr;

  cl_mem owned[4]; /* made by the builder, released by the runner */
  int nowned;
  cl_device_id owned_dev; /* a sub-device made by the builder */
  const char *skip;       /* the device cannot express this entry */
} cat_call;

typedef void (*cat_builder)(cat_call *c, const int64_t *p);

enum {
  CAT_OUT_HOST = 1u,     /* only with a host output */
  CAT_OUT_BUF = 2u,      /* only with a cl_mem output */
  CAT_IDX_BUF = 4u,      /* also with cl_mem indices */
  CAT_IDX_BUF_ONLY = 8u, /* only with cl_mem indices */
  CAT_FRESH = 16u,       /* on a fresh clg_context (program cache empty) */
  CAT_ONCE = 32u,        /* not a gather: one run */
};

typedef struct cat_case {
  const char *name;
  cat_builder build;
  int64_t p[6];
  clg_status status;
  const char *msg[4]; /* all must appear in clg_last_error() */
  unsigned flags;
} cat_case;

/* ------------------------------------------------------- helpers */

static const int64_t base_dshape[2] = {5, 3};
static const int64_t base_ishape[2] = {2, 3};
static const int64_t base_oshape[3] = {2, 3, 3};
static const int64_t base_idx[6] = {0, 4, -5, 2, -1, 3};

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

/* A buffer of `bytes` on `ctx`, all TU_SENTINEL, then `init` at `at`. */
static cl_mem mkbuf(cl_context ctx, size_t bytes, const void *init, size_t at,
                    size_t n) {
  unsigned char *img = malloc(bytes ? bytes : 1);
  cr_assert(img != NULL);
  memset(img, (int)TU_SENTINEL, bytes ? bytes : 1);
  if (init && n)
    memcpy(img + at, init, n);
  cl_int err = CL_SUCCESS;
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            bytes ? bytes : 1, img, &err);
  free(img);
  tu_cl_check(err, "clCreateBuffer (test)");
  return b;
}

static cl_mem own(cat_call *c, cl_mem m) {
  cr_assert(c->nowned < 4, "test bug: too many owned buffers");
  c->owned[c->nowned++] = m;
  return m;
}

static bool all_sentinel(const unsigned char *p, size_t n) {
  for (size_t k = 0; k < n; ++k)
    if (p[k] != TU_SENTINEL)
      return false;
  return true;
}

static void to_int32(cat_call *c) {
  if (c->i.dtype == CLG_DTYPE_INT32)
    return;
  int64_t v[16];
  memcpy(v, c->idx, sizeof v);
  for (int k = 0; k < 16; ++k) {
    int32_t w = (int32_t)v[k];
    memcpy(c->idx + 4 * k, &w, 4);
  }
  c->i.dtype = CLG_DTYPE_INT32;
}

static void set_shape(clg_tensor *t, int32_t rank, const int64_t *dims) {
  t->rank = rank;
  for (int32_t k = 0; k < rank && k < CLG_MAX_RANK; ++k)
    t->shape[k] = dims[k];
}

static clg_tensor *pick(cat_call *c, int64_t which) {
  return which == 0 ? &c->d : which == 1 ? &c->i : &c->o;
}

/* ------------------------------------------------------- builders */

#define B(name) static void name(cat_call *c, const int64_t *p)
#define UNUSED_P (void)p

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
/* p[0]: tensor, p[1]: rank. */
B(b_rank) { pick(c, p[0])->rank = (int32_t)p[1]; }
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
/* p[0]: tensor, p[1]: dim, p[2]: value. */
B(b_dim) { pick(c, p[0])->shape[p[1]] = p[2]; }
B(b_axis) { c->axis = p[0]; }
/* p[0]: tensor, p[1]: dtype. */
B(b_dtype) { pick(c, p[0])->dtype = (clg_dtype)p[1]; }
/* Output shape: p[0] rank, p[1..4] dims. */
B(b_oshape) { set_shape(&c->o, (int32_t)p[0], p + 1); }
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
/* Index values: idx[p[0]] = p[1], idx[p[2]] = p[3] if p[2] >= 0; p[4] = 32
 * for int32 indices. */
B(b_oob) {
  memcpy(c->idx + 8 * p[0], &p[1], 8);
  if (p[2] >= 0)
    memcpy(c->idx + 8 * p[2], &p[3], 8);
  if (p[4] == 32)
    to_int32(c);
}
/* Axis of size 0: data shape [p[0], p[1]], axis p[2]; idx[p[3]] = p[4]. */
B(b_s_zero) {
  const int64_t ds[2] = {p[0], p[1]};
  set_shape(&c->d, 2, ds);
  c->axis = p[2];
  memcpy(c->idx + 8 * p[3], &p[4], 8);
  if (p[2] == 1) {
    const int64_t os[3] = {p[0], 2, 3};
    set_shape(&c->o, 3, os);
  }
}
/* A scalar index p[0]: output [3]. */
B(b_scalar_oob) {
  memcpy(c->idx, &p[0], 8);
  c->i.rank = 0;
  const int64_t os[1] = {3};
  set_shape(&c->o, 1, os);
}
/* Axis -1 (s = 3): idx[p[0]] = p[1]; output [5, 2, 3]. */
B(b_oob_last_axis) {
  static const int64_t valid3[6] = {0, 1, -3, 2, -1, 2};
  memcpy(c->idx, valid3, sizeof valid3);
  c->axis = -1;
  memcpy(c->idx + 8 * p[0], &p[1], 8);
  const int64_t os[3] = {5, 2, 3};
  set_shape(&c->o, 3, os);
}
/* A fault: p[0] kind, p[1] skip, p[2] error. */
B(b_fault) {
  c->fault = true;
  c->fkind = (clg_fault)p[0];
  c->fskip = (unsigned)p[1];
  c->ferr = (cl_int)p[2];
}
B(b_fault_caller_queue) {
  b_fault(c, p);
  c->queue = c->io_q;
}
/* clg_context_create_default: p[0] spec index (-1: NULL), p[1] NULL out,
 * p[2] >= 0: a fault kind, p[3] its error. */
B(b_ctx_default) {
  static const char *const specs[] = {"no-such-device-4f1c2e", "9:9", "0:999",
                                      "999:0"};
  c->kind = K_CTX_DEFAULT;
  c->spec = p[0] < 0 ? NULL : specs[p[0]];
  c->no_out = p[1] != 0;
  if (p[2] >= 0) {
    c->fault = true;
    c->fkind = (clg_fault)p[2];
    c->fskip = 0;
    c->ferr = (cl_int)p[3];
  }
}
/* clg_context_create: p[0] 1: context NULL, p[1] 1: device NULL, p[2] 1:
 * out NULL, p[3] >= 0: a fault kind, p[4] its error. */
B(b_ctx_create) {
  c->kind = K_CTX_CREATE;
  c->cc_ctx = p[0] ? NULL : c->clctx;
  c->cc_dev = p[1] ? NULL : tu_device();
  c->no_out = p[2] != 0;
  if (p[3] >= 0) {
    c->fault = true;
    c->fkind = (clg_fault)p[3];
    c->fskip = 0;
    c->ferr = (cl_int)p[4];
  }
}
/* clg_context_create with a device that is not in the cl_context: a
 * sub-device of it, where the device can be partitioned. */
B(b_ctx_create_subdevice) {
  UNUSED_P;
  c->kind = K_CTX_CREATE;
  c->cc_ctx = c->clctx;
  cl_uint cu = 0;
  tu_cl_check(clGetDeviceInfo(tu_device(), CL_DEVICE_MAX_COMPUTE_UNITS,
                              sizeof cu, &cu, NULL),
              "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS)");
  const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1,
                                                0};
  cl_device_id subs[64];
  cl_uint n = 0;
  if (cu < 2 || cu > 64 ||
      clCreateSubDevices(tu_device(), props, 64, subs, &n) != CL_SUCCESS ||
      n == 0) {
    c->skip = "the device cannot be partitioned into sub-devices";
    return;
  }
  for (cl_uint k = 1; k < n; ++k)
    clReleaseDevice(subs[k]);
  c->owned_dev = subs[0];
  c->cc_dev = subs[0];
}
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

/* ---- the gather family through clg_run(): clg_params */

static void use_params(cat_call *c, clg_op op, int64_t axis, int64_t batch_dims,
                       clg_index_mode mode) {
  c->use_params = true;
  c->params.op = op;
  c->params.axis = axis;
  c->params.batch_dims = batch_dims;
  c->params.mode = mode;
}
/* Any params on the base call: p[0] op, p[1] axis, p[2] batch_dims, p[3]
 * mode. */
B(b_params) { use_params(c, (clg_op)p[0], p[1], p[2], (clg_index_mode)p[3]); }
/* GatherElements on the base data and indices, axis p[0]: output [2, 3]. */
B(b_ge_axis) {
  use_params(c, CLG_OP_GATHER_ELEMENTS, p[0], 0, CLG_MODE_RAISE);
  set_shape(&c->o, 2, base_ishape);
}
/* GatherElements on axis p[4] with indices of rank p[0], dims p[1..3]
 * (values as in the base); output of the same shape. */
B(b_ge_ishape) {
  use_params(c, CLG_OP_GATHER_ELEMENTS, p[4], 0, CLG_MODE_RAISE);
  set_shape(&c->i, (int32_t)p[0], p + 1);
  set_shape(&c->o, (int32_t)p[0], p + 1);
}
/* GatherElements on axis 0 (s = 5) with the base indices and idx[p[0]] =
 * p[1], idx[p[2]] = p[3] if p[2] >= 0; p[4] = 32 for int32 indices. */
B(b_ge_oob) {
  b_oob(c, p);
  use_params(c, CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_RAISE);
  set_shape(&c->o, 2, base_ishape);
}
/* GatherElements on axis -1 (s = 3): indices valid for s = 3, idx[p[0]] =
 * p[1]. */
B(b_ge_oob_last_axis) {
  static const int64_t valid3[6] = {0, 1, -3, 2, -1, 2};
  memcpy(c->idx, valid3, sizeof valid3);
  memcpy(c->idx + 8 * p[0], &p[1], 8);
  use_params(c, CLG_OP_GATHER_ELEMENTS, -1, 0, CLG_MODE_RAISE);
  set_shape(&c->o, 2, base_ishape);
}
/* GatherElements on axis 1 of data [5, 0] with the (non-empty) base
 * indices. */
B(b_ge_s_zero) {
  UNUSED_P;
  const int64_t ds[2] = {5, 0};
  set_shape(&c->d, 2, ds);
  use_params(c, CLG_OP_GATHER_ELEMENTS, 1, 0, CLG_MODE_RAISE);
  set_shape(&c->o, 2, base_ishape);
}

/* The GatherND base: data [5, 3], indices int64 [3, 2] = {0, 1, 4, 2, -5,
 * -3} (tuples into [5, 3]), batch_dims 0, output [3]. */
static void nd_base(cat_call *c) {
  static const int64_t v[6] = {0, 1, 4, 2, -5, -3};
  static const int64_t is[2] = {3, 2}, os[1] = {3};
  memset(c->idx, 0, sizeof c->idx);
  memcpy(c->idx, v, sizeof v);
  set_shape(&c->i, 2, is);
  set_shape(&c->o, 1, os);
  use_params(c, CLG_OP_GATHER_ND, 0, 0, CLG_MODE_RAISE);
}
/* GatherND: indices of rank p[0] with dims p[1..3], batch_dims p[4]. */
B(b_nd_shape) {
  nd_base(c);
  set_shape(&c->i, (int32_t)p[0], p + 1);
  c->params.batch_dims = p[4];
}
/* GatherND base with output shape: rank p[0], dims p[1..2]. */
B(b_nd_oshape) {
  nd_base(c);
  set_shape(&c->o, (int32_t)p[0], p + 1);
}
/* GatherND base with idx[p[0]] = p[1], idx[p[2]] = p[3] if p[2] >= 0; p[4]
 * = 32 for int32 indices. */
B(b_nd_oob) {
  nd_base(c);
  memcpy(c->idx + 8 * p[0], &p[1], 8);
  if (p[2] >= 0)
    memcpy(c->idx + 8 * p[2], &p[3], 8);
  if (p[4] == 32)
    to_int32(c);
}
/* GatherND with batch_dims 1: indices [5, 1] = {0, 1, 2, -1, -3} index axis
 * 1 (size 3) per batch, output [5]; idx[p[0]] = p[1]. */
B(b_nd_oob_batch) {
  static const int64_t v[5] = {0, 1, 2, -1, -3};
  static const int64_t is[2] = {5, 1}, os[1] = {5};
  nd_base(c);
  memcpy(c->idx, v, sizeof v);
  set_shape(&c->i, 2, is);
  set_shape(&c->o, 1, os);
  c->params.batch_dims = 1;
  memcpy(c->idx + 8 * p[0], &p[1], 8);
}
/* GatherND base on data [5, 0]: component 1 indexes an axis of size 0. */
B(b_nd_s_zero) {
  UNUSED_P;
  const int64_t ds[2] = {5, 0};
  nd_base(c);
  set_shape(&c->d, 2, ds);
}
/* GatherND with data and indices of rank 16 (all ones): the output would
 * have rank 30. */
B(b_nd_rank_sum) {
  UNUSED_P;
  int64_t ones[CLG_MAX_RANK];
  for (int k = 0; k < CLG_MAX_RANK; ++k)
    ones[k] = 1;
  nd_base(c);
  set_shape(&c->d, 16, ones);
  set_shape(&c->i, 16, ones);
  set_shape(&c->o, 16, ones);
}
/* Gather through clg_run: axis p[0], batch_dims p[1], mode p[2]; output as
 * Gather would make it with batch_dims 0. */
B(b_gather_bd) {
  use_params(c, CLG_OP_GATHER, p[0], p[1], (clg_index_mode)p[2]);
  if (p[0] == 1) {
    const int64_t os[3] = {5, 2, 3};
    set_shape(&c->o, 3, os);
  }
}
/* Gather mode p[0] on an axis of size 0: data [5, 0] on axis 1 (p[1] 1) or
 * [0, 3] on axis 0; the base indices; the matching output. */
B(b_gather_mode_s_zero) {
  use_params(c, CLG_OP_GATHER, p[1], 0, (clg_index_mode)p[0]);
  if (p[1] == 1) {
    const int64_t ds[2] = {5, 0}, os[3] = {5, 2, 3};
    set_shape(&c->d, 2, ds);
    set_shape(&c->o, 3, os);
  } else {
    const int64_t ds[2] = {0, 3};
    set_shape(&c->d, 2, ds);
  }
}
/* clg_output_shape(): p[0] 0: GatherElements with indices [6]; 1: GatherND
 * with batch_dims -1; 2: GatherND with indices [2, 3] (m = 3 > 2). */
B(b_oshape_op) {
  c->kind = K_OUTPUT_SHAPE;
  if (p[0] == 0) {
    const int64_t is[1] = {6};
    use_params(c, CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_RAISE);
    set_shape(&c->i, 1, is);
  } else {
    nd_base(c);
    if (p[0] == 1)
      c->params.batch_dims = -1;
    else
      set_shape(&c->i, 2, base_ishape);
  }
}

#undef B

/* ------------------------------------------------------- the table */

#define ST(x) CLG_ERROR_##x
#define F(x) CLG_FAULT_##x
#define TWO32 ((int64_t)1 << 32)
#define TWO31 ((int64_t)1 << 31)
#define NOF (-1) /* no fault */
#define NOSPEC (-1)
#define OOB_IN_BASE "in indices of shape [2, 3]"
#define RANGE5 "valid range is [-5, 4]"

/* clang-format off */
static const cat_case catalogue[] = {
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
    {"data rank 0", b_rank, {0, 0}, ST(INVALID_RANK),
     {"data has rank 0", ">= 1"}, 0},
    {"data rank -1", b_rank, {0, -1}, ST(INVALID_RANK), {"data has rank -1"},
     0},
    {"data rank 17", b_rank, {0, 17}, ST(INVALID_RANK),
     {"data has rank 17", "[0, 16]"}, 0},
    {"indices rank 17", b_rank, {1, 17}, ST(INVALID_RANK),
     {"indices has rank 17", "[0, 16]"}, 0},
    {"indices rank -2", b_rank, {1, -2}, ST(INVALID_RANK),
     {"indices has rank -2"}, 0},
    {"output rank 17", b_rank, {2, 17}, ST(INVALID_RANK),
     {"output has rank 17", "[0, 16]"}, 0},
    {"output rank -1", b_rank, {2, -1}, ST(INVALID_RANK),
     {"output has rank -1"}, 0},
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
    {"data dim -3", b_dim, {0, 1, -3}, ST(INVALID_SHAPE),
     {"data has a negative dimension: shape[1] = -3"}, 0},
    {"data dim INT64_MIN", b_dim, {0, 0, INT64_MIN}, ST(INVALID_SHAPE),
     {"data has a negative dimension: shape[0] = -9223372036854775808"}, 0},
    {"indices dim -1", b_dim, {1, 0, -1}, ST(INVALID_SHAPE),
     {"indices has a negative dimension: shape[0] = -1"}, 0},
    {"output dim -3", b_dim, {2, 2, -3}, ST(INVALID_SHAPE),
     {"output has a negative dimension: shape[2] = -3"}, 0},
    {"output_shape: data dim -4", b_oshape_fn, {0, -2, -99, 0, -4},
     ST(INVALID_SHAPE), {"data has a negative dimension: shape[1] = -4"},
     CAT_ONCE},

    /* ---- axis, data rank 2: valid range [-2, 1] */
    {"axis 2 (= rank)", b_axis, {2}, ST(INVALID_AXIS),
     {"axis 2 is out of range", "[-2, 1]"}, 0},
    {"axis -3 (= -rank - 1)", b_axis, {-3}, ST(INVALID_AXIS),
     {"axis -3 is out of range", "[-2, 1]"}, 0},
    {"axis INT64_MAX", b_axis, {INT64_MAX}, ST(INVALID_AXIS),
     {"axis 9223372036854775807 is out of range"}, 0},
    {"axis INT64_MIN", b_axis, {INT64_MIN}, ST(INVALID_AXIS),
     {"axis -9223372036854775808 is out of range"}, 0},
    {"output_shape: axis 2 for rank 2", b_oshape_fn, {0, -2, -99, 2, 0},
     ST(INVALID_AXIS), {"axis 2 is out of range"}, CAT_ONCE},

    /* ---- element types */
    {"data dtype string", b_dtype, {0, CLG_DTYPE_STRING}, ST(UNSUPPORTED_DTYPE),
     {"data has element type string"}, 0},
    {"data dtype undefined", b_dtype, {0, CLG_DTYPE_UNDEFINED},
     ST(UNSUPPORTED_DTYPE), {"data has unsupported element type 0"}, 0},
    {"data dtype 99", b_dtype, {0, 99}, ST(UNSUPPORTED_DTYPE),
     {"data has unsupported element type 99 (unknown)"}, 0},
    {"data dtype -1", b_dtype, {0, -1}, ST(UNSUPPORTED_DTYPE),
     {"data has unsupported element type -1"}, 0},
    {"indices dtype float", b_dtype, {1, CLG_DTYPE_FLOAT},
     ST(INVALID_INDICES_DTYPE),
     {"indices has element type 1 (float)", "int32 or int64"}, 0},
    {"indices dtype double", b_dtype, {1, CLG_DTYPE_DOUBLE},
     ST(INVALID_INDICES_DTYPE), {"(double)"}, 0},
    {"indices dtype float16", b_dtype, {1, CLG_DTYPE_FLOAT16},
     ST(INVALID_INDICES_DTYPE), {"(float16)"}, 0},
    {"indices dtype int16", b_dtype, {1, CLG_DTYPE_INT16},
     ST(INVALID_INDICES_DTYPE), {"(int16)"}, 0},
    {"indices dtype uint32", b_dtype, {1, CLG_DTYPE_UINT32},
     ST(INVALID_INDICES_DTYPE), {"(uint32)"}, 0},
    {"indices dtype uint64", b_dtype, {1, CLG_DTYPE_UINT64},
     ST(INVALID_INDICES_DTYPE), {"(uint64)"}, 0},
    {"indices dtype bool", b_dtype, {1, CLG_DTYPE_BOOL},
     ST(INVALID_INDICES_DTYPE), {"(bool)"}, 0},
    {"indices dtype string", b_dtype, {1, CLG_DTYPE_STRING},
     ST(INVALID_INDICES_DTYPE), {"(string)"}, 0},
    {"output dtype int32 for float data", b_dtype, {2, CLG_DTYPE_INT32},
     ST(DTYPE_MISMATCH), {"output has element type int32 but data has float"},
     0},
    {"output dtype double for float data", b_dtype, {2, CLG_DTYPE_DOUBLE},
     ST(DTYPE_MISMATCH), {"output has element type double"}, 0},
    {"output dtype string for float data", b_dtype, {2, CLG_DTYPE_STRING},
     ST(DTYPE_MISMATCH), {"output has element type string"}, 0},

    /* ---- output shape, base produces [2, 3, 3] */
    {"output rank 2 [6, 3]", b_oshape, {2, 6, 3}, ST(SHAPE_MISMATCH),
     {"output has shape [6, 3]", "produces [2, 3, 3]"}, 0},
    {"output rank 4 [2, 3, 3, 1]", b_oshape, {4, 2, 3, 3, 1},
     ST(SHAPE_MISMATCH), {"output has shape [2, 3, 3, 1]"}, 0},
    {"output [2, 3, 4]", b_oshape, {3, 2, 3, 4}, ST(SHAPE_MISMATCH),
     {"output has shape [2, 3, 4]"}, 0},
    {"output [3, 2, 3] (same count)", b_oshape, {3, 3, 2, 3},
     ST(SHAPE_MISMATCH), {"output has shape [3, 2, 3]"}, 0},
    {"output [2, 3, 0] (empty)", b_oshape, {3, 2, 3, 0}, ST(SHAPE_MISMATCH),
     {"output has shape [2, 3, 0]"}, 0},
    {"output rank 0", b_oshape, {0}, ST(SHAPE_MISMATCH),
     {"output has shape []"}, 0},
    {"axis 1 with the axis-0 output shape", b_axis, {1}, ST(SHAPE_MISMATCH),
     {"on axis 1 produces [5, 2, 3]"}, 0},

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
    {"OOB first position, positive (s)", b_oob, {0, 5, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0] (position [0, 0] " OOB_IN_BASE ") = 5", RANGE5}, CAT_IDX_BUF},
    {"OOB first position, negative (-s-1)", b_oob, {0, -6, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0] (position [0, 0] " OOB_IN_BASE ") = -6", RANGE5},
     CAT_IDX_BUF},
    {"OOB middle position, positive", b_oob, {2, 5, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[2] (position [0, 2] " OOB_IN_BASE ") = 5", RANGE5}, CAT_IDX_BUF},
    {"OOB middle position, negative", b_oob, {3, -6, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[3] (position [1, 0] " OOB_IN_BASE ") = -6", RANGE5},
     CAT_IDX_BUF},
    {"OOB last position, positive", b_oob, {5, 5, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[5] (position [1, 2] " OOB_IN_BASE ") = 5", RANGE5}, CAT_IDX_BUF},
    {"OOB last position, negative", b_oob, {5, -6, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[5] (position [1, 2] " OOB_IN_BASE ") = -6", RANGE5},
     CAT_IDX_BUF},
    {"OOB INT64_MIN", b_oob, {4, INT64_MIN, -1, 0, 64}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[4]", "= -9223372036854775808", RANGE5}, CAT_IDX_BUF},
    {"OOB INT64_MAX", b_oob, {1, INT64_MAX, -1, 0, 64}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[1]", "= 9223372036854775807", RANGE5}, CAT_IDX_BUF},
    {"OOB INT32_MIN (int32 indices)", b_oob, {2, INT32_MIN, -1, 0, 32},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[2]", "= -2147483648", RANGE5},
     CAT_IDX_BUF},
    {"OOB INT32_MAX (int32 indices)", b_oob, {5, INT32_MAX, -1, 0, 32},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[5]", "= 2147483647", RANGE5},
     CAT_IDX_BUF},
    {"OOB int32 first position, -s-1", b_oob, {0, -6, -1, 0, 32},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[0]", "= -6", RANGE5}, CAT_IDX_BUF},
    {"OOB int32 last position, s", b_oob, {5, 5, -1, 0, 32},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[5]", "= 5", RANGE5}, CAT_IDX_BUF},
    {"OOB several: the first is named", b_oob, {3, 1000, 1, -1000, 64},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[1]", "= -1000", RANGE5}, CAT_IDX_BUF},
    {"OOB scalar index (indices rank 0)", b_scalar_oob, {5},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0] (position [] in indices of shape []) = 5", RANGE5},
     CAT_IDX_BUF},
    {"OOB on axis -1 (s = 3)", b_oob_last_axis, {2, 3}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[2]", "= 3, but axis 1 of data has size 3",
      "valid range is [-3, 2]"},
     CAT_IDX_BUF},
    {"s == 0 with non-empty indices (axis 0)", b_s_zero, {0, 3, 0, 0, 0},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0]", "= 0, but axis 0 of data has size 0", "no index is valid"},
     CAT_IDX_BUF},
    {"s == 0 with non-empty indices (axis 1, index -1)", b_s_zero,
     {5, 0, 1, 0, -1}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0]", "= -1, but axis 1 of data has size 0"}, CAT_IDX_BUF},

    /* ---- GatherElements (base data [5, 3], indices [2, 3], axis 0) */
    {"GatherElements: indices rank 1, data rank 2", b_ge_ishape,
     {1, 6, 0, 0, 0}, ST(INCOMPATIBLE_SHAPES),
     {"GatherElements needs indices of data's rank",
      "data has rank 2 (shape [5, 3]) but indices has rank 1 (shape [6])"},
     0},
    {"GatherElements: indices rank 3, data rank 2", b_ge_ishape,
     {3, 2, 3, 1, 0}, ST(INCOMPATIBLE_SHAPES),
     {"indices has rank 3 (shape [2, 3, 1])"}, 0},
    {"GatherElements: indices dim 1 is 4 > 3 (axis 0)", b_ge_ishape,
     {2, 2, 4, 0, 0}, ST(INCOMPATIBLE_SHAPES),
     {"GatherElements on axis 0: indices dimension 1 is 4 but data's is 3"},
     0},
    {"GatherElements: indices dim 0 is 6 > 5 (axis -1)", b_ge_ishape,
     {2, 6, 2, 0, -1}, ST(INCOMPATIBLE_SHAPES),
     {"GatherElements on axis 1: indices dimension 0 is 6 but data's is 5"},
     0},
    {"GatherElements: axis 2 (= rank)", b_ge_axis, {2}, ST(INVALID_AXIS),
     {"axis 2 is out of range", "[-2, 1]"}, 0},
    {"GatherElements: axis -3 (= -rank - 1)", b_ge_axis, {-3},
     ST(INVALID_AXIS), {"axis -3 is out of range", "[-2, 1]"}, 0},
    {"GatherElements: output [2, 3, 3] (Gather's shape)", b_params,
     {CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_RAISE}, ST(SHAPE_MISMATCH),
     {"output has shape [2, 3, 3] but GatherElements on axis 0 produces "
      "[2, 3]"},
     0},
    {"GatherElements: OOB first position (s)", b_ge_oob, {0, 5, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0] (position [0, 0] " OOB_IN_BASE ") = 5",
      "but axis 0 of data has size 5", RANGE5},
     CAT_IDX_BUF},
    {"GatherElements: OOB middle position (-s-1)", b_ge_oob,
     {2, -6, -1, 0, 64}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[2] (position [0, 2] " OOB_IN_BASE ") = -6", RANGE5},
     CAT_IDX_BUF},
    {"GatherElements: OOB last position", b_ge_oob, {5, 5, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[5] (position [1, 2] " OOB_IN_BASE ") = 5", RANGE5},
     CAT_IDX_BUF},
    {"GatherElements: OOB INT64_MIN", b_ge_oob, {3, INT64_MIN, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[3]", "= -9223372036854775808", RANGE5},
     CAT_IDX_BUF},
    {"GatherElements: OOB INT64_MAX", b_ge_oob, {4, INT64_MAX, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[4]", "= 9223372036854775807", RANGE5},
     CAT_IDX_BUF},
    {"GatherElements: OOB INT32_MIN (int32 indices)", b_ge_oob,
     {1, INT32_MIN, -1, 0, 32}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[1]", "= -2147483648", RANGE5}, CAT_IDX_BUF},
    {"GatherElements: OOB several, the first is named", b_ge_oob,
     {4, 99, 2, -99, 64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[2]", "= -99"},
     CAT_IDX_BUF},
    {"GatherElements: OOB on axis -1 (s = 3)", b_ge_oob_last_axis, {4, -4},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[4] (position [1, 1] " OOB_IN_BASE ") = -4",
      "but axis 1 of data has size 3: valid range is [-3, 2]"},
     CAT_IDX_BUF},
    {"GatherElements: s == 0 with non-empty indices", b_ge_s_zero, {0},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0] (position [0, 0] " OOB_IN_BASE ") = 0",
      "axis 1 of data has size 0: no index is valid"},
     CAT_IDX_BUF},
    {"GatherElements: batch_dims 1", b_params,
     {CLG_OP_GATHER_ELEMENTS, 0, 1, CLG_MODE_RAISE}, ST(INVALID_ARGUMENT),
     {"GatherElements takes no batch_dims (got 1)"}, 0},
    {"GatherElements: mode WRAP", b_params,
     {CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_WRAP}, ST(INVALID_ARGUMENT),
     {"GatherElements takes no index mode"}, 0},
    {"clg_output_shape: GatherElements indices rank 1", b_oshape_op, {0},
     ST(INCOMPATIBLE_SHAPES), {"GatherElements needs indices of data's rank"},
     CAT_ONCE},

    /* ---- GatherND (base data [5, 3], indices [3, 2] = {0, 1, 4, 2, -5,
     * -3}, batch_dims 0, output [3]) */
    {"GatherND: indices rank 0", b_nd_shape, {0, 0, 0, 0, 0},
     ST(INVALID_RANK),
     {"indices has rank 0; GatherND needs indices of rank >= 1"}, 0},
    {"GatherND: m == 0 (indices [3, 0])", b_nd_shape, {2, 3, 0, 0, 0},
     ST(INCOMPATIBLE_SHAPES),
     {"the last dimension of indices (shape [3, 0])", "is 0",
      "it must be in [1, 2]"},
     0},
    {"GatherND: m == 3 > r - b == 2", b_nd_shape, {2, 2, 3, 0, 0},
     ST(INCOMPATIBLE_SHAPES),
     {"is 3; with data of rank 2 and batch_dims 0 it must be in [1, 2]"}, 0},
    {"GatherND: m == 2 > r - b == 1 (batch_dims 1)", b_nd_shape,
     {2, 5, 2, 0, 1}, ST(INCOMPATIBLE_SHAPES),
     {"is 2; with data of rank 2 and batch_dims 1 it must be in [1, 1]"}, 0},
    {"GatherND: batch_dims -1", b_nd_shape, {2, 3, 2, 0, -1},
     ST(INVALID_BATCH_DIMS),
     {"batch_dims -1 is out of range for GatherND", "valid range is [0, 1]"},
     0},
    {"GatherND: batch_dims 2 == min(r, q)", b_nd_shape, {2, 3, 2, 0, 2},
     ST(INVALID_BATCH_DIMS),
     {"batch_dims 2 is out of range for GatherND with data of rank 2 and "
      "indices of rank 2: valid range is [0, 1]"},
     0},
    {"GatherND: batch_dims 1 == q (indices [2])", b_nd_shape, {1, 2, 0, 0, 1},
     ST(INVALID_BATCH_DIMS),
     {"batch_dims 1 is out of range", "valid range is [0, 0]"}, 0},
    {"GatherND: batch dims differ (5 vs 4)", b_nd_shape, {2, 4, 1, 0, 1},
     ST(INCOMPATIBLE_SHAPES),
     {"GatherND with batch_dims 1: batch dimension 0 differs, data has 5 and "
      "indices has 4"},
     0},
    {"GatherND: output rank would be 30", b_nd_rank_sum, {0},
     ST(INVALID_RANK), {"would have rank 30", "limit 16"}, 0},
    {"GatherND: output [3, 3]", b_nd_oshape, {2, 3, 3}, ST(SHAPE_MISMATCH),
     {"output has shape [3, 3] but GatherND with batch_dims 0 produces [3]"},
     0},
    {"GatherND: OOB first component (d)", b_nd_oob, {2, 5, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"index out of bounds: indices[2] (position [1, 0] in indices of shape "
      "[3, 2]) = 5, component 0 of the index tuple indexes axis 0 of data, "
      "of size 5: valid range is [-5, 4]"},
     CAT_IDX_BUF},
    {"GatherND: OOB first component (-d-1)", b_nd_oob, {0, -6, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0] (position [0, 0]", "= -6, component 0", RANGE5},
     CAT_IDX_BUF},
    {"GatherND: OOB last component (d), last position", b_nd_oob,
     {5, 3, -1, 0, 64}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[5] (position [2, 1] in indices of shape [3, 2]) = 3, "
      "component 1 of the index tuple indexes axis 1 of data, of size 3: "
      "valid range is [-3, 2]"},
     CAT_IDX_BUF},
    {"GatherND: OOB last component beyond -d", b_nd_oob, {1, -4, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[1] (position [0, 1]", "= -4, component 1",
      "valid range is [-3, 2]"},
     CAT_IDX_BUF},
    {"GatherND: OOB INT64_MIN", b_nd_oob, {3, INT64_MIN, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[3]", "= -9223372036854775808, component 1"}, CAT_IDX_BUF},
    {"GatherND: OOB INT64_MAX", b_nd_oob, {4, INT64_MAX, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[4]", "= 9223372036854775807, component 0"}, CAT_IDX_BUF},
    {"GatherND: OOB INT32_MIN (int32 indices)", b_nd_oob,
     {2, INT32_MIN, -1, 0, 32}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[2]", "= -2147483648, component 0", RANGE5}, CAT_IDX_BUF},
    {"GatherND: OOB int32 last component", b_nd_oob, {5, 3, -1, 0, 32},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[5]", "= 3, component 1"},
     CAT_IDX_BUF},
    {"GatherND: OOB several, the first is named", b_nd_oob,
     {3, 100, 1, -100, 64}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[1]", "= -100"}, CAT_IDX_BUF},
    {"GatherND: OOB with batch_dims 1 (component 0 is axis 1)",
     b_nd_oob_batch, {3, 3}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[3] (position [3, 0] in indices of shape [5, 1]) = 3, "
      "component 0 of the index tuple indexes axis 1 of data, of size 3: "
      "valid range is [-3, 2]"},
     CAT_IDX_BUF},
    {"GatherND: a component into an axis of size 0", b_nd_s_zero, {0},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[1] (position [0, 1]", "= 1, component 1",
      "axis 1 of data, of size 0: no index is valid"},
     CAT_IDX_BUF},
    {"GatherND: axis 1", b_params, {CLG_OP_GATHER_ND, 1, 0, CLG_MODE_RAISE},
     ST(INVALID_ARGUMENT), {"GatherND takes no axis (got 1)"}, 0},
    {"GatherND: mode CLIP", b_params, {CLG_OP_GATHER_ND, 0, 0, CLG_MODE_CLIP},
     ST(INVALID_ARGUMENT), {"GatherND takes no index mode"}, 0},
    {"clg_output_shape: GatherND batch_dims -1", b_oshape_op, {1},
     ST(INVALID_BATCH_DIMS), {"batch_dims -1 is out of range for GatherND"},
     CAT_ONCE},
    {"clg_output_shape: GatherND m == 3 > 2", b_oshape_op, {2},
     ST(INCOMPATIBLE_SHAPES), {"it must be in [1, 2]"}, CAT_ONCE},

    /* ---- params */
    {"params: unknown op 7", b_params, {7, 0, 0, CLG_MODE_RAISE},
     ST(INVALID_ARGUMENT), {"unknown operator 7 in params->op"}, 0},
    {"params: unknown mode 9", b_params, {CLG_OP_GATHER, 0, 0, 9},
     ST(INVALID_ARGUMENT), {"unknown index mode 9"}, 0},

    /* ---- Gather's batch_dims and index modes (through clg_run) */
    {"Gather: batch_dims 3 > q", b_gather_bd, {0, 3, CLG_MODE_RAISE},
     ST(INVALID_BATCH_DIMS),
     {"batch_dims 3 is out of range for indices of rank 2: valid range is "
      "[-2, 2]"},
     0},
    {"Gather: batch_dims -3 < -q", b_gather_bd, {0, -3, CLG_MODE_RAISE},
     ST(INVALID_BATCH_DIMS), {"batch_dims -3 is out of range", "[-2, 2]"}, 0},
    {"Gather: batch_dims 1 > axis 0", b_gather_bd, {0, 1, CLG_MODE_RAISE},
     ST(INVALID_BATCH_DIMS), {"batch_dims 1 must not exceed axis 0"}, 0},
    {"Gather: batch_dims -1 (= 1) > axis 0", b_gather_bd,
     {0, -1, CLG_MODE_WRAP}, ST(INVALID_BATCH_DIMS),
     {"batch_dims 1 must not exceed axis 0"}, 0},
    {"Gather: batch dims differ (5 vs 2)", b_gather_bd,
     {1, 1, CLG_MODE_RAISE}, ST(INCOMPATIBLE_SHAPES),
     {"Gather with batch_dims 1: batch dimension 0 differs, data has 5 and "
      "indices has 2"},
     0},
    {"Gather: mode WRAP on an axis of size 0", b_gather_mode_s_zero,
     {CLG_MODE_WRAP, 1}, ST(INDEX_OUT_OF_BOUNDS),
     {"axis 1 of data has size 0, so mode wrap has no position to map the 6 "
      "indices to"},
     CAT_IDX_BUF},
    {"Gather: mode CLIP on an axis of size 0", b_gather_mode_s_zero,
     {CLG_MODE_CLIP, 0}, ST(INDEX_OUT_OF_BOUNDS),
     {"axis 0 of data has size 0, so mode clip has no position"}, CAT_IDX_BUF},

    /* ---- devices */
    {"device spec matching no name", b_ctx_default, {0, 0, NOF}, ST(NO_DEVICE),
     {"no OpenCL device name contains", "no-such-device-4f1c2e"}, CAT_ONCE},
    {"device spec 9:9", b_ctx_default, {1, 0, NOF}, ST(NO_DEVICE),
     {"no OpenCL device 9:9"}, CAT_ONCE},
    {"device spec 0:999", b_ctx_default, {2, 0, NOF}, ST(NO_DEVICE),
     {"no OpenCL device 0:999"}, CAT_ONCE},
    {"device spec 999:0", b_ctx_default, {3, 0, NOF}, ST(NO_DEVICE),
     {"no OpenCL device 999:0"}, CAT_ONCE},

    /* ---- OpenCL failures (fault injection), before any kernel */
    {"clCreateBuffer fails staging host data", b_fault,
     {F(CREATE_BUFFER), 0, CL_MEM_OBJECT_ALLOCATION_FAILURE}, ST(OPENCL),
     {"clCreateBuffer failed: CL_MEM_OBJECT_ALLOCATION_FAILURE", "host data"},
     0},
    {"clEnqueueReadBuffer fails reading back cl_mem indices", b_fault,
     {F(READ_BUFFER), 0, CL_OUT_OF_RESOURCES}, ST(OPENCL),
     {"clEnqueueReadBuffer failed: CL_OUT_OF_RESOURCES", "indices"},
     CAT_IDX_BUF_ONLY},
    {"clGetMemObjectInfo fails on the output cl_mem", b_fault,
     {F(MEM_INFO), 0, CL_INVALID_MEM_OBJECT}, ST(OPENCL),
     {"clGetMemObjectInfo failed: CL_INVALID_MEM_OBJECT", "output->buffer"},
     CAT_OUT_BUF},
    {"clGetCommandQueueInfo fails on the caller's queue", b_fault_caller_queue,
     {F(QUEUE_INFO), 0, CL_INVALID_COMMAND_QUEUE}, ST(OPENCL),
     {"clGetCommandQueueInfo failed: CL_INVALID_COMMAND_QUEUE"}, 0},
    {"clCreateCommandQueue fails (context's own queue)", b_fault,
     {F(CREATE_QUEUE), 0, CL_OUT_OF_HOST_MEMORY}, ST(OPENCL),
     {"clCreateCommandQueue failed: CL_OUT_OF_HOST_MEMORY"}, CAT_FRESH},
    {"clCreateContext fails", b_ctx_default,
     {NOSPEC, 0, F(CREATE_CONTEXT), CL_OUT_OF_HOST_MEMORY}, ST(OPENCL),
     {"clCreateContext failed: CL_OUT_OF_HOST_MEMORY"}, CAT_ONCE},
    {"clGetDeviceInfo fails in clg_context_create", b_ctx_create,
     {0, 0, 0, F(DEVICE_INFO), CL_INVALID_DEVICE}, ST(OPENCL),
     {"clGetDeviceInfo failed: CL_INVALID_DEVICE"}, CAT_ONCE},
    {"clBuildProgram fails", b_fault,
     {F(BUILD_PROGRAM), 0, CL_BUILD_PROGRAM_FAILURE}, ST(BUILD_FAILED),
     {"clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE", "build log"},
     CAT_FRESH},
    {"malloc fails for the indices read-back copy", b_fault,
     {F(HOST_ALLOC), 0, 0}, ST(OUT_OF_HOST_MEMORY),
     {"out of host memory reading back 48 bytes of indices"}, CAT_IDX_BUF_ONLY},
    {"calloc fails for the context (clg_context_create_default)", b_ctx_default,
     {NOSPEC, 0, F(HOST_ALLOC), 0}, ST(OUT_OF_HOST_MEMORY),
     {"out of host memory allocating a context"}, CAT_ONCE},
    {"calloc fails in clg_context_create", b_ctx_create,
     {0, 0, 0, F(HOST_ALLOC), 0}, ST(OUT_OF_HOST_MEMORY),
     {"out of host memory"}, CAT_ONCE},
};
/* clang-format on */

#define NCASES (sizeof catalogue / sizeof catalogue[0])

/* --------------------------------------------------------- the runner */

static void base_init(cat_call *c) {
  for (int k = 0; k < 64; ++k)
    c->data[k] = (float)k;
  memset(c->idx, 0, sizeof c->idx);
  memcpy(c->idx, base_idx, sizeof base_idx);
  c->d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, base_dshape, c->data);
  c->i = clg_tensor_host(CLG_DTYPE_INT64, 2, base_ishape, c->idx);
  c->axis = 0;
  c->cc_ctx = c->clctx;
  c->cc_dev = tu_device();
  memset(c->out_host, (int)TU_SENTINEL, sizeof c->out_host);
  if (c->out_buf) {
    c->out_mem_size = OUT_OFF + OUT_ALLOC + TU_GUARD;
    c->out_mem = mkbuf(c->clctx, c->out_mem_size, NULL, 0, 0);
    c->out_q = c->io_q;
    c->o =
        clg_tensor_buffer(CLG_DTYPE_FLOAT, 3, base_oshape, c->out_mem, OUT_OFF);
  } else {
    c->o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, base_oshape,
                           c->out_host + TU_GUARD);
  }
}

/* The indices, as the builder left them, moved into a cl_mem. */
static void indices_to_buffer(cat_call *c, const char *label) {
  cr_assert(c->i.storage == CLG_STORAGE_HOST && c->i.rank >= 0 &&
                c->i.rank <= 3,
            "%s: test bug: cl_mem indices variant of odd indices", label);
  int64_t n = tu_numel(c->i.rank, c->i.shape);
  size_t bytes = (size_t)n * clg_dtype_size(c->i.dtype);
  cr_assert(bytes <= sizeof c->idx, "%s: test bug: indices too big", label);
  cl_mem m = own(
      c, mkbuf(c->clctx, IDX_OFF + bytes + IDX_TAIL, c->idx, IDX_OFF, bytes));
  c->i = clg_tensor_buffer(c->i.dtype, c->i.rank, c->i.shape, m,
                           IDX_OFF + c->idx_extra_off);
}

static unsigned g_all_device; /* runs with data, indices, output in cl_mem */

/* The data, as the builder left it, moved into a cl_mem (at byte offset 4):
 * with cl_mem indices and output too, the call is the non-blocking one. */
static bool data_to_buffer(cat_call *c) {
  if (c->d.storage != CLG_STORAGE_HOST || c->d.host != c->data ||
      c->d.rank < 1 || c->d.rank > 2 || c->d.dtype != CLG_DTYPE_FLOAT)
    return false;
  int64_t n = tu_numel(c->d.rank, c->d.shape);
  size_t bytes = (size_t)n * 4u;
  if (n < 0 || bytes > sizeof c->data)
    return false;
  cl_mem m = own(c, mkbuf(c->clctx, 4 + bytes + IDX_TAIL, c->data, 4, bytes));
  c->d = clg_tensor_buffer(c->d.dtype, c->d.rank, c->d.shape, m, 4);
  return true;
}

static const char *status_name(clg_status s) {
  static const char *const n[] = {"CLG_SUCCESS",
                                  "CLG_ERROR_NULL_ARGUMENT",
                                  "CLG_ERROR_INVALID_ARGUMENT",
                                  "CLG_ERROR_INVALID_RANK",
                                  "CLG_ERROR_INVALID_SHAPE",
                                  "CLG_ERROR_INVALID_AXIS",
                                  "CLG_ERROR_UNSUPPORTED_DTYPE",
                                  "CLG_ERROR_INVALID_INDICES_DTYPE",
                                  "CLG_ERROR_DTYPE_MISMATCH",
                                  "CLG_ERROR_SHAPE_MISMATCH",
                                  "CLG_ERROR_SIZE_OVERFLOW",
                                  "CLG_ERROR_BUFFER_TOO_SMALL",
                                  "CLG_ERROR_INDEX_OUT_OF_BOUNDS",
                                  "CLG_ERROR_NO_DEVICE",
                                  "CLG_ERROR_OPENCL",
                                  "CLG_ERROR_BUILD_FAILED",
                                  "CLG_ERROR_OUT_OF_HOST_MEMORY",
                                  "CLG_ERROR_INVALID_BATCH_DIMS",
                                  "CLG_ERROR_INCOMPATIBLE_SHAPES"};
  return (unsigned)s < sizeof n / sizeof n[0] ? n[s] : "?";
}

/* (iv): a correct gather on ctx, with a host and a cl_mem output. */
static void assert_works(const char *label, clg_context *ctx, cl_context clctx,
                         cl_command_queue io_q) {
  float data[15], want[18], got[18];
  for (int k = 0; k < 15; ++k)
    data[k] = (float)(k * 3 + 1);
  cr_assert(ref_gather(data, 4, 2, base_dshape, base_idx, REF_INDEX_I64, 2,
                       base_ishape, 0, want) == 0);
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, base_dshape, data);
  clg_tensor i =
      clg_tensor_host(CLG_DTYPE_INT64, 2, base_ishape, (void *)base_idx);
  memset(got, 0, sizeof got);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, base_oshape, got);
  clg_status st = clg_gather(ctx, &d, &i, 0, &o, NULL, 0, NULL, NULL);
  cr_assert(st == CLG_SUCCESS,
            "%s: afterwards a correct gather (host output) fails: %s: %s",
            label, clg_status_string(st), clg_last_error());
  cr_assert(memcmp(got, want, sizeof want) == 0,
            "%s: afterwards a correct gather (host output) is wrong", label);

  cl_mem m = mkbuf(clctx, sizeof got, NULL, 0, 0);
  o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 3, base_oshape, m, 0);
  cl_event ev = NULL;
  st = clg_gather(ctx, &d, &i, 0, &o, NULL, 0, NULL, &ev);
  cr_assert(st == CLG_SUCCESS && ev != NULL,
            "%s: afterwards a correct gather (cl_mem output) fails: %s: %s",
            label, clg_status_string(st), clg_last_error());
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
  tu_cl_check(
      clEnqueueReadBuffer(io_q, m, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL),
      "clEnqueueReadBuffer");
  clReleaseMemObject(m);
  cr_assert(memcmp(got, want, sizeof want) == 0,
            "%s: afterwards a correct gather (cl_mem output) is wrong", label);
}

/* Runs entry `k` in one variant; returns false if the entry was skipped. */
static bool run_case(const cat_case *k, bool out_buf, bool idx_buf) {
  char label[320];
  snprintf(label, sizeof label,
           "catalogue entry \"%s\" [%s output, %s "
           "indices]",
           k->name, out_buf ? "cl_mem" : "host", idx_buf ? "cl_mem" : "host");

  cat_call *c = calloc(1, sizeof *c);
  cr_assert(c != NULL);
  c->out_buf = out_buf;
  c->idx_buf = idx_buf;
  bool fresh = (k->flags & CAT_FRESH) != 0;
  if (fresh) {
    clg_status st = clg_context_create_default(NULL, &c->ctx);
    cr_assert(st == CLG_SUCCESS, "%s: clg_context_create_default: %s", label,
              clg_last_error());
    c->clctx = clg_context_cl_context(c->ctx);
    cl_int err = CL_SUCCESS;
    c->io_q =
        clCreateCommandQueue(c->clctx, clg_context_device(c->ctx), 0, &err);
    tu_cl_check(err, "clCreateCommandQueue (fresh context)");
  } else {
    c->ctx = tu_ctx();
    c->clctx = tu_cl_context();
    c->io_q = tu_queue();
  }
  base_init(c);
  k->build(c, k->p);
  bool ran = c->skip == NULL;
  if (!ran) {
    cr_log_info("%s: skipped: %s", label, c->skip);
    goto cleanup;
  }
  if (idx_buf && k->build == b_fault && c->fkind == CLG_FAULT_HOST_ALLOC &&
      device_validation_forced()) {
    cr_log_info("%s: skipped: the device validation allocates no copy", label);
    ran = false;
    goto cleanup;
  }
  if (idx_buf)
    indices_to_buffer(c, label);
  if (idx_buf && out_buf && data_to_buffer(c)) {
    ++g_all_device;
    size_t len = strlen(label);
    snprintf(label + len - 1, sizeof label - len + 1, ", cl_mem data]");
  }

  int32_t out_rank = -7777;
  int64_t out_shape[CLG_MAX_RANK];
  for (int n = 0; n < CLG_MAX_RANK; ++n)
    out_shape[n] = -7777;
  clg_context *const ctx_sentinel = (clg_context *)&out_rank;
  clg_context *new_ctx = ctx_sentinel;
  cl_event ev = NULL;
  cl_uint cl_ref_before = 0, cl_ref_after = 0;
  if (c->kind == K_CTX_CREATE && c->cc_ctx)
    cl_ref_before = tu_context_refs(c->cc_ctx);

  clg_fault_reset();
  /* A compiler verdict is built CLG_BUILD_ATTEMPTS times, then as often
   * without compiler hints (programs.c): the catalogue's build failure
   * fails them all. */
  if (c->fault)
    clg_fault_inject(c->fkind, c->fskip,
                     c->ferr == CL_BUILD_PROGRAM_FAILURE ? CLG_BUILD_MAX_CALLS
                                                         : 1,
                     c->ferr);
  unsigned validations0 =
      c->ctx ? atomic_load(&c->ctx->device_validations) : 0;
  clg_status st = CLG_SUCCESS;
  switch (c->kind) {
  case K_GATHER:
    if (c->use_params)
      st = clg_run(c->no_ctx ? NULL : c->ctx, &c->params,
                   c->no_data ? NULL : &c->d, c->no_indices ? NULL : &c->i,
                   c->no_output ? NULL : &c->o, c->queue, c->nev, c->wl, &ev);
    else
      st =
          clg_gather(c->no_ctx ? NULL : c->ctx, c->no_data ? NULL : &c->d,
                     c->no_indices ? NULL : &c->i, c->axis,
                     c->no_output ? NULL : &c->o, c->queue, c->nev, c->wl, &ev);
    break;
  case K_CTX_DEFAULT:
    st = clg_context_create_default(c->spec, c->no_out ? NULL : &new_ctx);
    break;
  case K_CTX_CREATE:
    st = clg_context_create(c->cc_ctx, c->cc_dev, c->no_out ? NULL : &new_ctx);
    break;
  case K_OUTPUT_SHAPE:
    if (c->use_params)
      st = clg_output_shape(
          &c->params, c->d.rank, c->no_data ? NULL : c->d.shape, c->i.rank,
          c->no_indices ? NULL : c->i.shape, c->no_out_rank ? NULL : &out_rank,
          c->no_out_shape ? NULL : out_shape);
    else
      st = clg_gather_output_shape(c->d.rank, c->no_data ? NULL : c->d.shape,
                                   c->i.rank, c->no_indices ? NULL : c->i.shape,
                                   c->axis, c->no_out_rank ? NULL : &out_rank,
                                   c->no_out_shape ? NULL : out_shape);
    break;
  }
  /* Gather kernels only: the validation kernel of cl_mem indices (when the
   * device path is taken) writes no output. */
  unsigned long enqueued =
      clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL) -
      (c->ctx ? atomic_load(&c->ctx->device_validations) - validations0 : 0);
  clg_fault_reset();
  char msg[8192];
  snprintf(msg, sizeof msg, "%s", clg_last_error());

  /* Status and message. */
  cr_expect(st == k->status, "%s: want %s, got %s: \"%s\"", label,
            status_name(k->status), status_name(st), msg);
  for (int n = 0; n < 4 && k->msg[n]; ++n)
    cr_expect(tu_contains(msg, k->msg[n]), "%s: message lacks \"%s\": \"%s\"",
              label, k->msg[n], msg);
  /* (i) */
  cr_expect(enqueued == 0, "%s: %lu kernel(s) enqueued on error", label,
            enqueued);
  cr_expect(ev == NULL, "%s: an event was returned on error", label);
  if (ev)
    clReleaseEvent(ev);

  if (c->kind == K_GATHER) {
    cl_command_queue q = clg_context_queue(c->ctx);
    cr_assert(q != NULL, "%s: clg_context_queue: %s", label, clg_last_error());
    tu_cl_check(clFinish(q), "clFinish");
    if (c->queue)
      tu_cl_check(clFinish(c->queue), "clFinish (caller queue)");
    /* (ii) */
    cr_expect(all_sentinel(c->out_host, sizeof c->out_host),
              "%s: the host output (or its guard bytes) changed", label);
    /* (iii) */
    if (c->out_mem) {
      unsigned char *back = malloc(c->out_mem_size);
      cr_assert(back != NULL);
      tu_cl_check(clEnqueueReadBuffer(c->out_q, c->out_mem, CL_TRUE, 0,
                                      c->out_mem_size, back, 0, NULL, NULL),
                  "clEnqueueReadBuffer (output)");
      cr_expect(all_sentinel(back, c->out_mem_size),
                "%s: the cl_mem output changed", label);
      free(back);
    }
  } else if (c->kind == K_OUTPUT_SHAPE) {
    bool same = out_rank == -7777;
    for (int n = 0; n < CLG_MAX_RANK; ++n)
      same = same && out_shape[n] == -7777;
    cr_expect(same, "%s: out_rank / out_shape written on error", label);
  } else {
    if (!c->no_out)
      cr_expect(new_ctx == NULL, "%s: *out is not NULL on error", label);
    if (new_ctx != NULL && new_ctx != ctx_sentinel)
      clg_context_destroy(new_ctx);
    if (c->kind == K_CTX_CREATE && c->cc_ctx) {
      cl_ref_after = tu_context_refs_after(c->cc_ctx, cl_ref_before);
      cr_expect(cl_ref_after == cl_ref_before,
                "%s: the borrowed cl_context's reference count went from %u "
                "to %u",
                label, (unsigned)cl_ref_before, (unsigned)cl_ref_after);
    }
  }
  /* (iv) */
  assert_works(label, c->ctx, c->clctx, c->io_q);

cleanup:
  for (int n = 0; n < c->nowned; ++n)
    clReleaseMemObject(c->owned[n]);
  if (c->owned_dev)
    clReleaseDevice(c->owned_dev);
  if (c->out_mem)
    clReleaseMemObject(c->out_mem);
  if (fresh) {
    clReleaseCommandQueue(c->io_q);
    clg_context_destroy(c->ctx);
  }
  free(c);
  return ran;
}

Test(catalogue, every_rejected_input) {
  bool seen[CLG_ERROR_INCOMPATIBLE_SHAPES + 1] = {false};
  unsigned runs = 0, skipped = 0;
  for (size_t n = 0; n < NCASES; ++n) {
    const cat_case *k = &catalogue[n];
    cr_assert(k->status > CLG_SUCCESS &&
                  k->status <= CLG_ERROR_INCOMPATIBLE_SHAPES,
              "test bug: entry %s has status %d", k->name, (int)k->status);
    seen[k->status] = true;
    if (k->flags & CAT_ONCE) {
      runs += 1;
      skipped += !run_case(k, false, false);
      continue;
    }
    unsigned outs = k->flags & (CAT_OUT_HOST | CAT_OUT_BUF);
    if (!outs)
      outs = CAT_OUT_HOST | CAT_OUT_BUF;
    for (int ob = 0; ob < 2; ++ob) {
      if (!(outs & (ob ? CAT_OUT_BUF : CAT_OUT_HOST)))
        continue;
      for (int ib = 0; ib < 2; ++ib) {
        bool want = ib ? (k->flags & (CAT_IDX_BUF | CAT_IDX_BUF_ONLY)) != 0
                       : (k->flags & CAT_IDX_BUF_ONLY) == 0;
        if (!want)
          continue;
        runs += 1;
        skipped += !run_case(k, ob != 0, ib != 0);
      }
    }
  }
  /* Every error status the API can return is catalogued. */
  for (int s = CLG_ERROR_NULL_ARGUMENT; s <= CLG_ERROR_INCOMPATIBLE_SHAPES; ++s)
    cr_expect(seen[s], "no catalogue entry returns %s",
              status_name((clg_status)s));
  cr_log_info("bad-input catalogue: %zu catalogued inputs, %u runs "
              "(host/cl_mem output, host/cl_mem indices; %u all in cl_mem), "
              "%u skipped on this device",
              (size_t)NCASES, runs, g_all_device, skipped);
}
