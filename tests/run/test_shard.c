/*
 * clg_run_sharded() over two devices of one cl_context. ctest runs this
 * with POCL_DEVICES="pthread pthread", which makes POCL expose two CPU
 * devices; with fewer than two devices the tests fail (never skip).
 *
 * Every case is compared byte for byte with clg_run() on one device and
 * with the plain-C reference (Gather on axis 0 / axis > 0 / batch_dims /
 * WRAP / CLIP, GatherElements, GatherND with and without batch_dims;
 * int32/int64 indices; host and cl_mem tensors at offsets; odd first
 * dimensions; unsplittable and empty outputs). Then: out-of-bounds indices
 * (same status and message as clg_run(), output untouched, no event), the
 * argument checks, the wait list, that both devices really ran a part, and
 * OpenCL failures injected at every call (faults.h): a failure after parts
 * were enqueued returns only once they are done.
 *
 * A cl_mem output is written through one sub-buffer per part, each starting
 * at a multiple of the devices' CL_DEVICE_MEM_BASE_ADDR_ALIGN (g_align):
 * split points rounded for rows of awkward sizes (3-byte rows), and the
 * fallbacks to device 0 alone (one part left after rounding, an unaligned
 * output offset, an output that is itself a sub-buffer, an input in the
 * output's cl_mem or a sub-buffer of it), each seen with device 1's queue
 * held (device 0 must write every row); clCreateSubBuffer failing.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/testutil.h"

#include "core/faults.h" /* test builds: OpenCL fault injection */

/* ------------------------------------------------------------ devices */

/* Two devices of the first platform, one cl_context over both, one
 * clg_context per device, and a queue of the test's own for buffer I/O. */
static cl_device_id g_dev[2];
static cl_context g_cl;
static clg_context *g_ctx[2];
static cl_command_queue g_io;
/* The larger CL_DEVICE_MEM_BASE_ADDR_ALIGN of the two devices, in bytes:
 * sub-buffer origins (so sharded cl_mem outputs) are multiples of it. */
static size_t g_align;

static void setup(void) {
  cl_platform_id plat = NULL;
  cl_uint nplat = 0, ndev = 0;
  cl_int err = clGetPlatformIDs(1, &plat, &nplat);
  cr_assert(err == CL_SUCCESS && nplat >= 1, "no OpenCL platform (%d)",
            (int)err);
  err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 2, g_dev, &ndev);
  cr_assert(err == CL_SUCCESS && ndev >= 2,
            "the first OpenCL platform has %u device(s) (%d); this test needs "
            "two: run it through ctest, which sets POCL_DEVICES=\"pthread "
            "pthread\" so that POCL exposes two CPU devices",
            (unsigned)ndev, (int)err);
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)plat, 0};
  g_cl = clCreateContext(props, 2, g_dev, NULL, NULL, &err);
  tu_cl_check(err, "clCreateContext (two devices)");
  for (int i = 0; i < 2; ++i) {
    clg_status st = clg_context_create(g_cl, g_dev[i], &g_ctx[i]);
    cr_assert(st == CLG_SUCCESS, "clg_context_create: %s", clg_last_error());
  }
  g_io = clCreateCommandQueue(g_cl, g_dev[0], 0, &err);
  tu_cl_check(err, "clCreateCommandQueue");
  g_align = 1;
  for (int i = 0; i < 2; ++i) {
    cl_uint bits = 0;
    tu_cl_check(clGetDeviceInfo(g_dev[i], CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                                sizeof bits, &bits, NULL),
                "clGetDeviceInfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN)");
    if (bits / 8 > g_align)
      g_align = bits / 8;
  }
}

static void teardown(void) {
  if (g_io)
    clReleaseCommandQueue(g_io);
  clg_context_destroy(g_ctx[0]);
  clg_context_destroy(g_ctx[1]);
  if (g_cl)
    clReleaseContext(g_cl);
}

TestSuite(shard, .init = setup, .fini = teardown);

static cl_command_queue new_queue(cl_context cl, cl_device_id dev) {
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(cl, dev, 0, &err);
  tu_cl_check(err, "clCreateCommandQueue");
  return q;
}

/* ------------------------------------------------------------ tensors */

/* A tensor in host memory or in a cl_mem of the shared context, with
 * TU_SENTINEL guard bytes around it (as tu_tensor, on g_cl). */
typedef struct sh_tensor {
  clg_tensor desc;
  size_t bytes, offset, total;
  unsigned char *alloc; /* host storage */
  cl_mem buf;           /* buffer storage */
} sh_tensor;

static void sh_init(sh_tensor *t, clg_dtype dt, int32_t rank,
                    const int64_t *shape, bool buffer, size_t offset,
                    const void *init) {
  memset(t, 0, sizeof *t);
  t->bytes = (size_t)tu_numel(rank, shape) * clg_dtype_size(dt);
  t->offset = buffer ? offset : TU_GUARD;
  t->total = t->offset + t->bytes + TU_GUARD;
  unsigned char *img = malloc(t->total);
  cr_assert(img != NULL, "out of host memory");
  memset(img, (int)TU_SENTINEL, t->total);
  if (init && t->bytes)
    memcpy(img + t->offset, init, t->bytes);
  if (buffer) {
    cl_int err = CL_SUCCESS;
    t->buf = clCreateBuffer(g_cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            t->total, img, &err);
    tu_cl_check(err, "clCreateBuffer");
    free(img);
    t->desc = clg_tensor_buffer(dt, rank, shape, t->buf, offset);
  } else {
    t->alloc = img;
    t->desc = clg_tensor_host(dt, rank, shape, img + t->offset);
  }
}

static void sh_free(sh_tensor *t) {
  if (t->buf)
    clReleaseMemObject(t->buf);
  free(t->alloc);
}

/* The whole allocation (guards included) into dst (t->total bytes). */
static void sh_read_all(const sh_tensor *t, unsigned char *dst) {
  if (t->buf)
    tu_cl_check(clEnqueueReadBuffer(g_io, t->buf, CL_TRUE, 0, t->total, dst, 0,
                                    NULL, NULL),
                "clEnqueueReadBuffer");
  else
    memcpy(dst, t->alloc, t->total);
}

/* Does the tensor hold `want` (t->bytes; NULL: all sentinel) with every
 * byte around it still TU_SENTINEL? Writes the first difference to why. */
static bool sh_holds(const sh_tensor *t, const unsigned char *want, char *why,
                     size_t cap) {
  unsigned char *all = malloc(t->total);
  cr_assert(all != NULL, "out of host memory");
  sh_read_all(t, all);
  bool ok = true;
  for (size_t k = 0; ok && k < t->total; ++k) {
    bool inside = k >= t->offset && k < t->offset + t->bytes;
    unsigned char w = inside && want ? want[k - t->offset] : TU_SENTINEL;
    if (all[k] != w) {
      snprintf(why, cap, "%s byte %td: got 0x%02x, want 0x%02x",
               inside ? "tensor" : "guard", (ptrdiff_t)k - (ptrdiff_t)t->offset,
               all[k], w);
      ok = false;
    }
  }
  free(all);
  return ok;
}

/* -------------------------------------------------------------- cases */

typedef struct sh_case {
  clg_params p;
  int32_t r, q;
  int64_t d[6], i[6];
} sh_case;

/* How a case is stored and called. */
typedef struct sh_how {
  clg_dtype dtype, idt;
  bool buf[3];   /* data, indices, output in a cl_mem */
  size_t off[3]; /* their byte offsets (buffers) */
  bool event;    /* ask for an event and wait on it */
  bool queues;   /* pass the test's own queues */
} sh_how;

static const char *op_name(clg_op op) {
  return op == CLG_OP_GATHER      ? "Gather"
         : op == CLG_OP_GATHER_ND ? "GatherND"
                                  : "GatherElements";
}

static const char *case_str(const sh_case *c, const sh_how *h, char *buf,
                            size_t cap) {
  char ds[128], is[128];
  snprintf(buf, cap,
           "%s axis=%" PRId64 " batch_dims=%" PRId64 " mode=%d %s%s %s%s "
           "storage=%s+%zu/%s+%zu/%s+%zu%s%s",
           op_name(c->p.op), c->p.axis, c->p.batch_dims, (int)c->p.mode,
           clg_dtype_name(h->dtype), tu_shape_str(c->r, c->d, ds, sizeof ds),
           clg_dtype_name(h->idt), tu_shape_str(c->q, c->i, is, sizeof is),
           h->buf[0] ? "buf" : "host", h->off[0], h->buf[1] ? "buf" : "host",
           h->off[1], h->buf[2] ? "buf" : "host", h->off[2],
           h->event ? " event" : "", h->queues ? " queues" : "");
  return buf;
}

/* Valid indices for the case (mode RAISE), or anything (WRAP, CLIP). */
static void fill_indices(const sh_case *c, clg_dtype idt, tu_rng *rng,
                         void *dst, int64_t count) {
  if (c->p.op == CLG_OP_GATHER_ND) {
    int64_t b = c->p.batch_dims, m = c->i[c->q - 1];
    for (int64_t k = 0; k < count; ++k) {
      int64_t s = c->d[b + k % m];
      tu_set_index(dst, idt, k, tu_rng_range(rng, -s, s - 1));
    }
    return;
  }
  int64_t a = c->p.axis < 0 ? c->p.axis + c->r : c->p.axis;
  tu_fill_indices(rng, dst, idt, count, c->d[a],
                  c->p.mode == CLG_MODE_RAISE ? TU_IDX_ANY : TU_IDX_WILD);
}

static int reference(const sh_case *c, clg_dtype idt, const void *data,
                     size_t es, const void *idx, void *out) {
  ref_index_type t = tu_ref_index_type(idt);
  int32_t orank;
  int64_t oshape[REF_MAX_RANK];
  switch (c->p.op) {
  case CLG_OP_GATHER:
    return ref_gather_ex(data, es, c->r, c->d, idx, t, c->q, c->i, c->p.axis,
                         c->p.batch_dims, (ref_mode)c->p.mode, out, &orank,
                         oshape);
  case CLG_OP_GATHER_ELEMENTS:
    return ref_gather_elements(data, es, c->r, c->d, idx, t, c->q, c->i,
                               c->p.axis, out);
  default:
    return ref_gather_nd(data, es, c->r, c->d, idx, t, c->q, c->i,
                         c->p.batch_dims, out);
  }
}

/* Runs the case sharded and on one device; true if both match the
 * reference byte for byte (guards and inputs untouched), else why in msg. */
static bool run_case(const sh_case *c, const sh_how *h, uint64_t seed,
                     char *msg, size_t cap) {
  char desc[512];
  case_str(c, h, desc, sizeof desc);
  int32_t orank = 0;
  int64_t oshape[CLG_MAX_RANK];
  clg_status st =
      clg_output_shape(&c->p, c->r, c->d, c->q, c->i, &orank, oshape);
  cr_assert(st == CLG_SUCCESS, "test bug: %s: %s", desc, clg_last_error());
  size_t es = clg_dtype_size(h->dtype);
  int64_t dn = tu_numel(c->r, c->d), in = tu_numel(c->q, c->i),
          on = tu_numel(orank, oshape);
  size_t dbytes = (size_t)dn * es, ibytes = (size_t)in * clg_dtype_size(h->idt),
         obytes = (size_t)on * es;
  tu_rng rng = tu_rng_make(seed);
  unsigned char *data = malloc(dbytes + 1), *idx = malloc(ibytes + 1),
                *want = malloc(obytes + 1);
  cr_assert(data && idx && want, "out of host memory");
  tu_rng_bytes(&rng, data, dbytes);
  fill_indices(c, h->idt, &rng, idx, in);
  cr_assert(reference(c, h->idt, data, es, idx, want) == 0,
            "test bug: the reference failed on %s", desc);

  sh_tensor td, ti, one, sharded;
  sh_init(&td, h->dtype, c->r, c->d, h->buf[0], h->off[0], data);
  sh_init(&ti, h->idt, c->q, c->i, h->buf[1], h->off[1], idx);
  sh_init(&one, h->dtype, orank, oshape, h->buf[2], h->off[2], NULL);
  sh_init(&sharded, h->dtype, orank, oshape, h->buf[2], h->off[2], NULL);
  cl_command_queue qs[2] = {NULL, NULL};
  if (h->queues)
    for (int k = 0; k < 2; ++k)
      qs[k] = new_queue(g_cl, g_dev[k]);
  bool ok = false;
  char why[256];

  st = clg_run(g_ctx[0], &c->p, &td.desc, &ti.desc, &one.desc, NULL, 0, NULL,
               NULL);
  if (st != CLG_SUCCESS) {
    snprintf(msg, cap, "%s: clg_run: %s: %s", desc, clg_status_string(st),
             clg_last_error());
    goto done;
  }
  tu_cl_check(clFinish(clg_context_queue(g_ctx[0])), "clFinish");
  cl_event ev = NULL;
  st = clg_run_sharded(g_ctx, 2, &c->p, &td.desc, &ti.desc, &sharded.desc,
                       h->queues ? qs : NULL, 0, NULL, h->event ? &ev : NULL);
  if (st != CLG_SUCCESS) {
    snprintf(msg, cap, "%s: clg_run_sharded: %s: %s", desc,
             clg_status_string(st), clg_last_error());
    goto done;
  }
  if (h->event) {
    if (!ev) {
      snprintf(msg, cap, "%s: success but no event", desc);
      goto done;
    }
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  } else {
    for (int k = 0; k < 2; ++k)
      tu_cl_check(clFinish(h->queues ? qs[k] : clg_context_queue(g_ctx[k])),
                  "clFinish");
  }
  if (!sh_holds(&sharded, want, why, sizeof why)) {
    snprintf(msg, cap, "%s: sharded output vs the reference: %s", desc, why);
    goto done;
  }
  if (!sh_holds(&one, want, why, sizeof why)) {
    snprintf(msg, cap, "%s: one-device output vs the reference: %s", desc, why);
    goto done;
  }
  if (!sh_holds(&td, data, why, sizeof why) ||
      !sh_holds(&ti, idx, why, sizeof why)) {
    snprintf(msg, cap, "%s: an input changed: %s", desc, why);
    goto done;
  }
  ok = true;
done:
  for (int k = 0; k < 2; ++k)
    if (qs[k])
      clReleaseCommandQueue(qs[k]);
  sh_free(&td);
  sh_free(&ti);
  sh_free(&one);
  sh_free(&sharded);
  free(data);
  free(idx);
  free(want);
  return ok;
}

/* Each case in three ways: all host; all cl_mem at offsets with an event
 * (the output's aligned for sub-buffers); a mix (rotating with k) with the
 * test's own queues (a cl_mem output at an odd offset: one device). And int32 / int64,
 * one element size per case (rotating). */
static int run_cases(const sh_case *cases, size_t n, uint64_t seed) {
  static const clg_dtype dtypes[] = {CLG_DTYPE_FLOAT, CLG_DTYPE_INT8,
                                     CLG_DTYPE_DOUBLE, CLG_DTYPE_FLOAT16,
                                     CLG_DTYPE_COMPLEX128};
  int count = 0, failures = 0;
  char msg[1024];
  for (size_t k = 0; k < n; ++k)
    for (int way = 0; way < 3; ++way) {
      sh_how h = {0};
      h.dtype = dtypes[(k + (size_t)way) % 5];
      h.idt = (k + (size_t)way) % 2 ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
      size_t es = clg_dtype_size(h.dtype), is = clg_dtype_size(h.idt);
      for (int j = 0; j < 3; ++j) {
        h.buf[j] = way == 1 || (way == 2 && ((k + (size_t)j) % 2));
        h.off[j] = h.buf[j] ? (j == 1 ? is : es) * (size_t)(2 * j + 3) : 0;
      }
      /* A cl_mem output: at a sub-buffer-aligned offset (split through
       * sub-buffers) in way 1, at an odd one (device 0 alone) in way 2. */
      if (way == 1)
        h.off[2] = g_align;
      h.event = way == 1;
      h.queues = way == 2;
      ++count;
      if (!run_case(&cases[k], &h, seed + k * 3 + (uint64_t)way, msg,
                    sizeof msg)) {
        cr_expect(false, "%s", msg);
        cr_assert(++failures < 8, "too many failures, stopping");
      }
    }
  return count;
}

#define G(ax, b, m)                                                            \
  { CLG_OP_GATHER, ax, b, m }
#define E(ax)                                                                  \
  { CLG_OP_GATHER_ELEMENTS, ax, 0, CLG_MODE_RAISE }
#define N(b)                                                                   \
  { CLG_OP_GATHER_ND, 0, b, CLG_MODE_RAISE }
#define RAISE CLG_MODE_RAISE

Test(shard, gather) {
  static const sh_case cases[] = {
      /* axis 0: indices sliced, data whole */
      {G(0, 0, RAISE), 2, 1, {5, 3}, {7}},
      {G(0, 0, RAISE), 2, 1, {4, 6}, {1001}},
      {G(0, 0, RAISE), 3, 2, {3, 4, 5}, {2, 3}},
      {G(-3, 0, RAISE), 3, 3, {6, 2, 3}, {3, 2, 2}},
      /* axis > 0: data sliced, indices whole (scalar too) */
      {G(1, 0, RAISE), 2, 1, {7, 5}, {3}},
      {G(-1, 0, RAISE), 2, 2, {1001, 4}, {2, 2}},
      {G(2, 0, RAISE), 3, 1, {3, 5, 2}, {4}},
      {G(1, 0, RAISE), 2, 0, {7, 5}, {0}},
      /* batch_dims: both sliced */
      {G(1, 1, RAISE), 3, 2, {7, 5, 3}, {7, 4}},
      {G(2, 2, RAISE), 3, 3, {3, 4, 6}, {3, 4, 2}},
      {G(1, -1, RAISE), 2, 2, {7, 6}, {7, 3}},
      /* modes WRAP and CLIP (indices anywhere) */
      {G(0, 0, CLG_MODE_WRAP), 2, 1, {5, 3}, {1001}},
      {G(1, 0, CLG_MODE_CLIP), 2, 1, {7, 4}, {5}},
      {G(1, 1, CLG_MODE_WRAP), 3, 2, {3, 5, 2}, {3, 4}},
      {G(0, 0, CLG_MODE_CLIP), 2, 2, {4, 3}, {3, 3}},
      /* unsplittable: scalar index on axis 0, rank-0 output, one row */
      {G(0, 0, RAISE), 2, 0, {6, 5}, {0}},
      {G(0, 0, RAISE), 1, 0, {6}, {0}},
      {G(1, 0, RAISE), 2, 1, {1, 8}, {3}},
      {G(0, 0, RAISE), 1, 1, {9}, {1}},
      /* empty outputs */
      {G(0, 0, RAISE), 2, 1, {5, 3}, {0}},
      {G(0, 0, RAISE), 2, 1, {7, 0}, {4}},
      {G(1, 0, RAISE), 2, 1, {6, 4}, {0}},
      {G(0, 0, RAISE), 2, 1, {0, 3}, {0}},
  };
  int n = run_cases(cases, sizeof cases / sizeof cases[0], 100);
  cr_log_info("gather: %d cases", n);
}

Test(shard, gather_elements) {
  static const sh_case cases[] = {
      {E(0), 2, 2, {5, 4}, {7, 3}}, /* indices sliced, data whole */
      {E(0), 1, 1, {9}, {1001}},
      {E(1), 2, 2, {7, 5}, {7, 3}},       /* both sliced */
      {E(1), 2, 2, {1001, 3}, {1000, 4}}, /* data has more rows */
      {E(-1), 3, 3, {3, 4, 5}, {2, 4, 6}},
      {E(1), 3, 3, {3, 6, 2}, {3, 2, 2}},
      {E(-3), 3, 3, {4, 2, 3}, {3, 2, 3}},
      {E(1), 2, 2, {1, 5}, {1, 7}}, /* one row */
      {E(1), 2, 2, {4, 3}, {0, 3}}, /* empty */
      {E(0), 2, 2, {4, 3}, {5, 0}},
  };
  int n = run_cases(cases, sizeof cases / sizeof cases[0], 200);
  cr_log_info("gather_elements: %d cases", n);
}

Test(shard, gather_nd) {
  static const sh_case cases[] = {
      {N(0), 3, 2, {5, 4, 3}, {7, 2}}, /* indices sliced, data whole */
      {N(0), 2, 2, {6, 5}, {1001, 1}},
      {N(0), 2, 3, {4, 5}, {3, 2, 2}},
      {N(0), 2, 2, {4, 5}, {3, 2}},
      {N(1), 3, 3, {7, 5, 3}, {7, 2, 1}}, /* batch: both sliced */
      {N(2), 4, 4, {3, 4, 5, 2}, {3, 4, 2, 1}},
      {N(1), 3, 2, {1001, 3, 2}, {1001, 2}},
      {N(0), 3, 1, {4, 5, 3}, {2}},    /* unsplittable: one tuple */
      {N(0), 2, 1, {4, 5}, {2}},       /* rank-0 output */
      {N(0), 2, 2, {4, 5}, {1, 1}},    /* one row */
      {N(0), 2, 2, {4, 5}, {0, 2}},    /* empty */
      {N(1), 3, 2, {3, 4, 0}, {3, 1}}, /* empty rows */
  };
  int n = run_cases(cases, sizeof cases / sizeof cases[0], 300);
  cr_log_info("gather_nd: %d cases", n);
}

Test(shard, every_dtype) {
  static const sh_case cases[] = {
      {G(0, 0, RAISE), 2, 1, {5, 3}, {7}},
      {G(1, 0, RAISE), 2, 1, {7, 5}, {3}},
  };
  char msg[1024];
  int count = 0;
  for (size_t t = 0; t < 15; ++t)
    for (size_t k = 0; k < 2; ++k) {
      sh_how h = {0};
      h.dtype = tu_all_dtypes[t];
      h.idt = t % 2 ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
      h.buf[0] = h.buf[1] = h.buf[2] = k == 1;
      h.off[2] = k == 1 ? clg_dtype_size(h.dtype) : 0;
      h.event = k == 1;
      ++count;
      cr_expect(run_case(&cases[k], &h, 400 + t, msg, sizeof msg), "%s", msg);
    }
  cr_log_info("every_dtype: %d cases", count);
}

/* One context: the whole call on it. */
Test(shard, one_context) {
  static const int64_t dshape[2] = {5, 3}, ishape[1] = {7}, oshape[2] = {7, 3};
  static const clg_params p = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  float data[15], out[21], want[21];
  int64_t idx[7] = {0, 4, -1, 2, -5, 3, 1};
  for (int k = 0; k < 15; ++k)
    data[k] = (float)k;
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, dshape, data);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, oshape, out);
  cr_assert(ref_gather(data, 4, 2, dshape, idx, REF_INDEX_I64, 1, ishape, 0,
                       want) == 0);
  for (cl_uint k = 0; k < 2; ++k) {
    memset(out, 0xA5, sizeof out);
    clg_status st =
        clg_run_sharded(&g_ctx[k], 1, &p, &d, &x, &o, NULL, 0, NULL, NULL);
    cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
    cr_expect(memcmp(out, want, sizeof out) == 0, "ctxs = {g_ctx[%u]}", k);
  }
}

/* ------------------------------------------------------------- errors */

/* The calling thread's message, copied. */
static void last_error(char *buf, size_t cap) {
  snprintf(buf, cap, "%s", clg_last_error());
}

/* An out-of-bounds index: the status and message of clg_run(), the output
 * untouched, no event. Host indices, small cl_mem indices (read back) and
 * large ones (>= 32 KiB: checked on the device); the offender sits in the
 * second device's part. */
Test(shard, out_of_bounds) {
  static const struct {
    sh_case c;
    int64_t pos, value; /* pos < 0: all indices 0 */
  } cases[] = {
      {{G(0, 0, RAISE), 2, 1, {5, 3}, {7}}, 5, 9},
      {{G(1, 1, RAISE), 3, 2, {7, 5, 3}, {7, 4}}, 27, -6},
      {{G(1, 0, RAISE), 2, 1, {7, 5}, {3}}, 1, 5},
      {{E(1), 2, 2, {7, 5}, {7, 3}}, 20, 5},
      {{E(0), 2, 2, {5, 4}, {7, 3}}, 19, -6},
      {{N(1), 3, 3, {7, 5, 3}, {7, 2, 1}}, 13, 5},
      {{N(0), 3, 2, {5, 4, 3}, {7, 2}}, 11, 4},
      {{G(0, 0, RAISE), 2, 1, {5, 3}, {10000}}, 9000, -6},
      {{G(0, 0, CLG_MODE_WRAP), 2, 1, {0, 3}, {4}}, -1, 0},
  };
  int count = 0;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    for (int buf = 0; buf < 2; ++buf) {
      const sh_case *c = &cases[k].c;
      sh_how h = {0};
      h.dtype = CLG_DTYPE_FLOAT;
      h.idt = buf ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
      h.buf[0] = h.buf[1] = h.buf[2] = buf;
      h.off[1] = buf ? 8 : 0;
      char desc[512];
      case_str(c, &h, desc, sizeof desc);
      int32_t orank;
      int64_t oshape[CLG_MAX_RANK];
      cr_assert(clg_output_shape(&c->p, c->r, c->d, c->q, c->i, &orank,
                                 oshape) == CLG_SUCCESS);
      int64_t dn = tu_numel(c->r, c->d), in = tu_numel(c->q, c->i);
      float *data = calloc((size_t)dn + 1, sizeof *data);
      int64_t *idx = calloc((size_t)in + 1, 8);
      cr_assert(data && idx, "out of host memory");
      tu_rng rng = tu_rng_make(500 + k);
      if (cases[k].pos >= 0) {
        fill_indices(c, h.idt, &rng, idx, in);
        tu_set_index(idx, h.idt, cases[k].pos, cases[k].value);
      }
      sh_tensor td, ti, one, sharded;
      sh_init(&td, h.dtype, c->r, c->d, buf, 0, data);
      sh_init(&ti, h.idt, c->q, c->i, buf, h.off[1], idx);
      sh_init(&one, h.dtype, orank, oshape, buf, 0, NULL);
      sh_init(&sharded, h.dtype, orank, oshape, buf, 0, NULL);

      cl_event ev = NULL;
      clg_status want = clg_run(g_ctx[0], &c->p, &td.desc, &ti.desc, &one.desc,
                                NULL, 0, NULL, &ev);
      char want_msg[1024], got_msg[1024], why[256];
      last_error(want_msg, sizeof want_msg);
      cr_assert(want == CLG_ERROR_INDEX_OUT_OF_BOUNDS && ev == NULL,
                "%s: clg_run: %s", desc, want_msg);
      clg_status got = clg_run_sharded(g_ctx, 2, &c->p, &td.desc, &ti.desc,
                                       &sharded.desc, NULL, 0, NULL, &ev);
      last_error(got_msg, sizeof got_msg);
      cr_expect(got == want, "%s: got %s, want %s", desc,
                clg_status_string(got), clg_status_string(want));
      cr_expect(strcmp(got_msg, want_msg) == 0,
                "%s: message \"%s\", clg_run's \"%s\"", desc, got_msg,
                want_msg);
      cr_expect(ev == NULL, "%s: an event after an error", desc);
      for (int q = 0; q < 2; ++q)
        tu_cl_check(clFinish(clg_context_queue(g_ctx[q])), "clFinish");
      cr_expect(sh_holds(&sharded, NULL, why, sizeof why),
                "%s: output written after an error: %s", desc, why);
      sh_free(&td);
      sh_free(&ti);
      sh_free(&one);
      sh_free(&sharded);
      free(data);
      free(idx);
      ++count;
    }
  cr_log_info("out_of_bounds: %d cases", count);
}

/* A small valid call for the argument checks: all in cl_mem, the output
 * sentinel. */
typedef struct small_call {
  sh_tensor d, x, o;
  clg_params p;
} small_call;

static void small_init(small_call *s) {
  static const int64_t dshape[2] = {5, 3}, ishape[1] = {7}, oshape[2] = {7, 3};
  static const int32_t idx[7] = {0, 4, -1, 2, -5, 3, 1};
  float data[15];
  for (int k = 0; k < 15; ++k)
    data[k] = (float)k;
  sh_init(&s->d, CLG_DTYPE_FLOAT, 2, dshape, true, 4, data);
  sh_init(&s->x, CLG_DTYPE_INT32, 1, ishape, true, 0, idx);
  sh_init(&s->o, CLG_DTYPE_FLOAT, 2, oshape, true, 12, NULL);
  s->p = (clg_params){CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
}

static void small_free(small_call *s) {
  sh_free(&s->d);
  sh_free(&s->x);
  sh_free(&s->o);
}

/* Expect the sharded call to fail with `want` and a message containing
 * `needle`, the output untouched and no event. */
static void expect_fail(small_call *s, clg_context *const *ctxs, cl_uint n,
                        const cl_command_queue *queues, clg_status want,
                        const char *needle, const char *what) {
  cl_event ev = NULL;
  clg_status st = clg_run_sharded(ctxs, n, &s->p, &s->d.desc, &s->x.desc,
                                  &s->o.desc, queues, 0, NULL, &ev);
  char why[256];
  cr_expect(st == want, "%s: got %s (%s), want %s", what, clg_status_string(st),
            clg_last_error(), clg_status_string(want));
  cr_expect(tu_contains(clg_last_error(), needle),
            "%s: message \"%s\" lacks \"%s\"", what, clg_last_error(), needle);
  cr_expect(ev == NULL, "%s: an event after an error", what);
  cr_expect(sh_holds(&s->o, NULL, why, sizeof why), "%s: output written: %s",
            what, why);
}

Test(shard, bad_contexts_and_queues) {
  small_call s;
  small_init(&s);
  clg_context *same[2] = {g_ctx[0], g_ctx[0]};
  clg_context *with_null[2] = {g_ctx[0], NULL};
  clg_context *twin = NULL; /* another clg_context on device 0 */
  cr_assert(clg_context_create(g_cl, g_dev[0], &twin) == CLG_SUCCESS);
  clg_context *twins[2] = {g_ctx[0], twin};
  cl_int err = CL_SUCCESS;
  cl_context other_cl = clCreateContext(NULL, 1, &g_dev[1], NULL, NULL, &err);
  tu_cl_check(err, "clCreateContext (second)");
  clg_context *other = NULL;
  cr_assert(clg_context_create(other_cl, g_dev[1], &other) == CLG_SUCCESS);
  clg_context *mixed[2] = {g_ctx[0], other};

  expect_fail(&s, NULL, 2, NULL, CLG_ERROR_NULL_ARGUMENT, "ctxs", "ctxs NULL");
  expect_fail(&s, with_null, 2, NULL, CLG_ERROR_NULL_ARGUMENT, "ctxs[1]",
              "ctxs[1] NULL");
  expect_fail(&s, g_ctx, 0, NULL, CLG_ERROR_INVALID_ARGUMENT, "num_ctxs",
              "num_ctxs 0");
  expect_fail(&s, same, 2, NULL, CLG_ERROR_INVALID_ARGUMENT, "same device",
              "one context twice");
  expect_fail(&s, twins, 2, NULL, CLG_ERROR_INVALID_ARGUMENT, "same device",
              "two contexts on one device");
  expect_fail(&s, mixed, 2, NULL, CLG_ERROR_INVALID_ARGUMENT, "cl_context",
              "two cl_contexts");

  cl_command_queue q0 = new_queue(g_cl, g_dev[0]);
  cl_command_queue q1 = new_queue(g_cl, g_dev[1]);
  cl_command_queue q_other = new_queue(other_cl, g_dev[1]);
  cl_command_queue swapped[2] = {q1, q0}, both0[2] = {q0, q0},
                   foreign[2] = {q0, q_other};
  /* queues[0] is checked as clg_run() checks its queue: same message. */
  clg_status want = clg_run(g_ctx[0], &s.p, &s.d.desc, &s.x.desc, &s.o.desc, q1,
                            0, NULL, NULL);
  char want_msg[512];
  last_error(want_msg, sizeof want_msg);
  cr_assert(want == CLG_ERROR_INVALID_ARGUMENT, "%s", want_msg);
  expect_fail(&s, g_ctx, 2, swapped, want, want_msg, "queues swapped");
  expect_fail(&s, g_ctx, 2, both0, CLG_ERROR_INVALID_ARGUMENT, "queues[1]",
              "queues[1] of device 0");
  expect_fail(&s, g_ctx, 2, foreign, CLG_ERROR_INVALID_ARGUMENT, "queues[1]",
              "queues[1] of another cl_context");

  /* The right queues work. */
  cl_command_queue right[2] = {q0, q1};
  cl_event ev = NULL;
  cr_expect(clg_run_sharded(g_ctx, 2, &s.p, &s.d.desc, &s.x.desc, &s.o.desc,
                            right, 0, NULL, &ev) == CLG_SUCCESS,
            "%s", clg_last_error());
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  clReleaseCommandQueue(q0);
  clReleaseCommandQueue(q1);
  clReleaseCommandQueue(q_other);
  clg_context_destroy(other);
  clg_context_destroy(twin);
  clReleaseContext(other_cl);
  small_free(&s);
}

/* The call's own errors: clg_run()'s status and message, on ctxs[0]. */
Test(shard, call_errors_as_clg_run) {
  small_call s;
  small_init(&s);
  clg_tensor bad_shape = s.o.desc;
  bad_shape.shape[0] = 6;
  clg_tensor bad_type = s.o.desc;
  bad_type.dtype = CLG_DTYPE_INT32;
  clg_tensor aliased = s.o.desc; /* the output over data's buffer */
  aliased.buffer = s.d.buf;
  aliased.offset = 0;
  clg_params bad_axis = {CLG_OP_GATHER, 2, 0, CLG_MODE_RAISE};
  clg_params bad_op = {(clg_op)42, 0, 0, CLG_MODE_RAISE};
  clg_params nd_mode = {CLG_OP_GATHER_ND, 0, 0, CLG_MODE_WRAP};
  cl_event user = NULL;
  const struct {
    const char *what;
    const clg_params *p;
    const clg_tensor *d, *x, *o;
    cl_uint nev;
    const cl_event *wl;
  } calls[] = {
      {"data NULL", &s.p, NULL, &s.x.desc, &s.o.desc, 0, NULL},
      {"indices NULL", &s.p, &s.d.desc, NULL, &s.o.desc, 0, NULL},
      {"output NULL", &s.p, &s.d.desc, &s.x.desc, NULL, 0, NULL},
      {"output shape", &s.p, &s.d.desc, &s.x.desc, &bad_shape, 0, NULL},
      {"output type", &s.p, &s.d.desc, &s.x.desc, &bad_type, 0, NULL},
      {"output aliases data", &s.p, &s.d.desc, &s.x.desc, &aliased, 0, NULL},
      {"axis", &bad_axis, &s.d.desc, &s.x.desc, &s.o.desc, 0, NULL},
      {"op", &bad_op, &s.d.desc, &s.x.desc, &s.o.desc, 0, NULL},
      {"GatherND mode", &nd_mode, &s.d.desc, &s.x.desc, &s.o.desc, 0, NULL},
      {"wait list NULL", &s.p, &s.d.desc, &s.x.desc, &s.o.desc, 1, NULL},
      {"wait list entry NULL", &s.p, &s.d.desc, &s.x.desc, &s.o.desc, 1, &user},
  };
  for (size_t k = 0; k < sizeof calls / sizeof calls[0]; ++k) {
    clg_status want =
        clg_run(g_ctx[0], calls[k].p, calls[k].d, calls[k].x, calls[k].o, NULL,
                calls[k].nev, calls[k].wl, NULL);
    char want_msg[1024], why[256];
    last_error(want_msg, sizeof want_msg);
    cr_assert(want != CLG_SUCCESS, "%s: clg_run succeeded", calls[k].what);
    cl_event ev = NULL;
    clg_status got =
        clg_run_sharded(g_ctx, 2, calls[k].p, calls[k].d, calls[k].x,
                        calls[k].o, NULL, calls[k].nev, calls[k].wl, &ev);
    cr_expect(got == want && strcmp(clg_last_error(), want_msg) == 0,
              "%s: got %s \"%s\", clg_run %s \"%s\"", calls[k].what,
              clg_status_string(got), clg_last_error(), clg_status_string(want),
              want_msg);
    cr_expect(ev == NULL, "%s: an event after an error", calls[k].what);
    cr_expect(sh_holds(&s.o, NULL, why, sizeof why), "%s: output written: %s",
              calls[k].what, why);
  }
  small_free(&s);
}

/* ---------------------------------------------------- wait list, devices */

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static cl_int status_of(cl_event ev) {
  cl_int s = CL_QUEUED;
  tu_cl_check(
      clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL),
      "clGetEventInfo");
  return s;
}

/* Mode WRAP, all cl_mem (the call only enqueues): data is written by a
 * command gated on a user event, which the sharded call's wait list names.
 * Nothing may run before the user event completes; then all is right. */
Test(shard, wait_list_enqueue_only) {
  static const int64_t dshape[2] = {5, 3}, ishape[1] = {1001},
                       oshape[2] = {1001, 3};
  static const clg_params p = {CLG_OP_GATHER, 0, 0, CLG_MODE_WRAP};
  float data[15], *want = malloc(1001 * 3 * sizeof *want);
  int64_t *idx = malloc(1001 * sizeof *idx);
  cr_assert(want && idx);
  tu_rng rng = tu_rng_make(600);
  tu_rng_bytes(&rng, data, sizeof data);
  tu_fill_indices(&rng, idx, CLG_DTYPE_INT64, 1001, 5, TU_IDX_WILD);
  int32_t orank;
  int64_t os[8];
  cr_assert(ref_gather_ex(data, 4, 2, dshape, idx, REF_INDEX_I64, 1, ishape, 0,
                          0, REF_WRAP, want, &orank, os) == 0);
  sh_tensor td, ti, to;
  const float zeros[15] = {0}; /* until the gated write */
  sh_init(&td, CLG_DTYPE_FLOAT, 2, dshape, true, 8, zeros);
  sh_init(&ti, CLG_DTYPE_INT64, 1, ishape, true, 16, idx);
  sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, true, g_align, NULL);
  cl_int err = CL_SUCCESS;
  cl_event user = clCreateUserEvent(g_cl, &err);
  tu_cl_check(err, "clCreateUserEvent");
  cl_event written = NULL;
  tu_cl_check(clEnqueueWriteBuffer(g_io, td.buf, CL_FALSE, td.offset,
                                   sizeof data, data, 1, &user, &written),
              "clEnqueueWriteBuffer");
  tu_cl_check(clFlush(g_io), "clFlush");

  cl_event ev = NULL;
  clg_status st = clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc, &to.desc,
                                  NULL, 1, &written, &ev);
  cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
  cr_assert(ev != NULL, "no event");
  sleep_ms(100);
  cr_expect(status_of(ev) != CL_COMPLETE,
            "the event completed before the wait list");
  /* Through a queue of its own (g_io waits behind the write): a shard run
   * early would have written gathered zeros. */
  cl_command_queue look = new_queue(g_cl, g_dev[1]);
  unsigned char *early = malloc(to.total);
  cr_assert(early != NULL);
  tu_cl_check(clEnqueueReadBuffer(look, to.buf, CL_TRUE, 0, to.total, early, 0,
                                  NULL, NULL),
              "clEnqueueReadBuffer");
  bool untouched = true;
  for (size_t b = 0; b < to.total; ++b)
    untouched &= early[b] == TU_SENTINEL;
  cr_expect(untouched, "the output was written before the wait list");
  free(early);
  clReleaseCommandQueue(look);
  tu_cl_check(clSetUserEventStatus(user, CL_COMPLETE), "clSetUserEventStatus");
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  cr_expect(status_of(written) == CL_COMPLETE,
            "the event completed before the wait list's event");
  char why[256];
  cr_expect(sh_holds(&to, (const unsigned char *)want, why, sizeof why), "%s",
            why);
  clReleaseEvent(ev);
  clReleaseEvent(written);
  clReleaseEvent(user);
  sh_free(&td);
  sh_free(&ti);
  sh_free(&to);
  free(want);
  free(idx);
}

typedef struct completer {
  cl_event user;
  long ms;
} completer;

static void *complete_later(void *arg) {
  completer *c = arg;
  sleep_ms(c->ms);
  clSetUserEventStatus(c->user, CL_COMPLETE);
  return NULL;
}

/* Mode RAISE, cl_mem indices (the call validates them, blocking): the
 * indices hold out-of-bounds garbage until a command gated on a user event
 * writes the real ones; another thread completes the user event. The call
 * must read the indices after its wait list: success and the right output.
 * Small indices (read back) and large ones (checked on the device). */
Test(shard, wait_list_validation) {
  static const clg_params p = {CLG_OP_GATHER, 1, 0, CLG_MODE_RAISE};
  for (int large = 0; large < 2; ++large) {
    int64_t n = large ? 10000 : 9;
    int64_t dshape[2] = {7, 6}, ishape[1] = {n}, oshape[2] = {7, n};
    float data[42];
    int32_t *idx = malloc((size_t)n * sizeof *idx),
            *junk = malloc((size_t)n * sizeof *junk);
    float *want = malloc((size_t)(7 * n) * sizeof *want);
    cr_assert(idx && junk && want);
    tu_rng rng = tu_rng_make(700 + (uint64_t)large);
    tu_rng_bytes(&rng, data, sizeof data);
    tu_fill_indices(&rng, idx, CLG_DTYPE_INT32, n, 6, TU_IDX_ANY);
    for (int64_t k = 0; k < n; ++k)
      junk[k] = 1000 + (int32_t)k;
    int32_t orank;
    int64_t os[8];
    cr_assert(ref_gather_ex(data, 4, 2, dshape, idx, REF_INDEX_I32, 1, ishape,
                            1, 0, REF_RAISE, want, &orank, os) == 0);
    sh_tensor td, ti, to;
    sh_init(&td, CLG_DTYPE_FLOAT, 2, dshape, true, 0, data);
    sh_init(&ti, CLG_DTYPE_INT32, 1, ishape, true, 4, junk);
    sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, true, 0, NULL);
    cl_int err = CL_SUCCESS;
    completer c = {clCreateUserEvent(g_cl, &err), 150};
    tu_cl_check(err, "clCreateUserEvent");
    cl_event written = NULL;
    tu_cl_check(clEnqueueWriteBuffer(g_io, ti.buf, CL_FALSE, ti.offset,
                                     (size_t)n * sizeof *idx, idx, 1, &c.user,
                                     &written),
                "clEnqueueWriteBuffer");
    tu_cl_check(clFlush(g_io), "clFlush");
    pthread_t th;
    cr_assert(pthread_create(&th, NULL, complete_later, &c) == 0);
    cl_event ev = NULL;
    clg_status st = clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc, &to.desc,
                                    NULL, 1, &written, &ev);
    pthread_join(th, NULL);
    cr_expect(st == CLG_SUCCESS, "%s indices: %s", large ? "large" : "small",
              clg_last_error());
    if (st == CLG_SUCCESS) {
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
      char why[256];
      cr_expect(sh_holds(&to, (const unsigned char *)want, why, sizeof why),
                "%s indices: %s", large ? "large" : "small", why);
    }
    tu_cl_check(clFinish(g_io), "clFinish");
    clReleaseEvent(written);
    clReleaseEvent(c.user);
    sh_free(&td);
    sh_free(&ti);
    sh_free(&to);
    free(idx);
    free(junk);
    free(want);
  }
}

/* Both devices run a part. The test's queue of device 1 is held behind a
 * barrier on a user event before the call; device 0's part must complete
 * regardless (a proper, non-empty prefix of the rows written, the rest
 * untouched), device 1's only after the user event; so if one device did
 * all the work, one of the two checks fails. Then the same with an event:
 * it must not complete while device 1 is held. */
Test(shard, both_devices_work) {
  static const int64_t dshape[2] = {9, 4}, ishape[1] = {1001},
                       oshape[2] = {1001, 4};
  static const clg_params p = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  const size_t row = 4 * sizeof(float), bytes = 1001 * row;
  float data[36];
  int32_t idx[1001];
  unsigned char *want = malloc(bytes), *got = malloc(bytes);
  cr_assert(want && got);
  tu_rng rng = tu_rng_make(800);
  tu_rng_bytes(&rng, data, sizeof data);
  tu_fill_indices(&rng, idx, CLG_DTYPE_INT32, 1001, 9, TU_IDX_ANY);
  int32_t orank;
  int64_t os[8];
  cr_assert(ref_gather_ex(data, 4, 2, dshape, idx, REF_INDEX_I32, 1, ishape, 0,
                          0, REF_RAISE, want, &orank, os) == 0);
  sh_tensor td, ti;
  sh_init(&td, CLG_DTYPE_FLOAT, 2, dshape, true, 0, data);
  sh_init(&ti, CLG_DTYPE_INT32, 1, ishape, true, 0, idx);
  cl_command_queue qs[2] = {new_queue(g_cl, g_dev[0]),
                            new_queue(g_cl, g_dev[1])};
  for (int with_event = 0; with_event < 2; ++with_event) {
    sh_tensor to;
    sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, true, 0, NULL);
    cl_int err = CL_SUCCESS;
    cl_event user = clCreateUserEvent(g_cl, &err);
    tu_cl_check(err, "clCreateUserEvent");
    tu_cl_check(clEnqueueBarrierWithWaitList(qs[1], 1, &user, NULL),
                "clEnqueueBarrierWithWaitList");
    tu_cl_check(clFlush(qs[1]), "clFlush");
    cl_event ev = NULL;
    clg_status st = clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc, &to.desc,
                                    qs, 0, NULL, with_event ? &ev : NULL);
    if (st != CLG_SUCCESS) {
      clSetUserEventStatus(user, CL_COMPLETE);
      cr_assert(false, "%s", clg_last_error());
    }
    if (with_event) {
      sleep_ms(100);
      cr_expect(status_of(ev) != CL_COMPLETE,
                "the event completed while device 1 was held");
    } else {
      /* qs[0] holds device 0's part only: wait for it, then look. */
      tu_cl_check(clFinish(qs[0]), "clFinish");
      sleep_ms(50); /* device 1's part, were it not held, would show */
      tu_cl_check(clEnqueueReadBuffer(g_io, to.buf, CL_TRUE, 0, bytes, got, 0,
                                      NULL, NULL),
                  "clEnqueueReadBuffer");
      size_t done_rows = 0;
      while (done_rows < 1001 &&
             memcmp(got + done_rows * row, want + done_rows * row, row) == 0)
        ++done_rows;
      bool rest_untouched = true;
      for (size_t b = done_rows * row; b < bytes; ++b)
        rest_untouched &= got[b] == TU_SENTINEL;
      cr_expect(done_rows > 0, "device 0 wrote no row");
      cr_expect(done_rows < 1001, "device 0 wrote every row");
      cr_expect(rest_untouched,
                "rows after device 0's %zu were written while device 1 "
                "was held",
                done_rows);
      cr_log_info("device 0 wrote rows [0, %zu) of 1001", done_rows);
    }
    tu_cl_check(clSetUserEventStatus(user, CL_COMPLETE),
                "clSetUserEventStatus");
    if (with_event) {
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
    }
    tu_cl_check(clFinish(qs[1]), "clFinish");
    tu_cl_check(clFinish(qs[0]), "clFinish");
    char why[256];
    cr_expect(sh_holds(&to, want, why, sizeof why), "%s", why);
    clReleaseEvent(user);
    sh_free(&to);
  }
  clReleaseCommandQueue(qs[0]);
  clReleaseCommandQueue(qs[1]);
  sh_free(&td);
  sh_free(&ti);
  free(want);
  free(got);
}

/* ------------------------------------------------------------- faults */

/* 70 rows of 12 bytes: enough for two parts whatever the rounding of the
 * split for sub-buffers (up to 32 rows with 128-byte alignment). */
#define FAULT_ROWS 70

static void fault_indices(int32_t *idx) {
  static const int32_t pattern[7] = {0, 4, -1, 2, -5, 3, 1};
  for (int k = 0; k < FAULT_ROWS; ++k)
    idx[k] = pattern[k % 7];
}

/* Every OpenCL call (and host allocation) of a sharded call made to fail in
 * turn, all cl_mem (mode WRAP: enqueue only; the output at an aligned
 * offset, written through sub-buffers) and all host (mode RAISE): either
 * the call fails with no event, or it succeeds (a failed query of compute
 * units only makes the split equal; one of the base alignment or of a
 * buffer's parent runs the call on device 0) with the right output; after
 * a failure nothing of the call is still running and the next call
 * works. */
Test(shard, faults) {
  static const int64_t dshape[2] = {5, 3}, ishape[1] = {FAULT_ROWS},
                       oshape[2] = {FAULT_ROWS, 3};
  int32_t idx[FAULT_ROWS];
  fault_indices(idx);
  float data[15], want[FAULT_ROWS * 3];
  for (int k = 0; k < 15; ++k)
    data[k] = (float)k;
  cr_assert(ref_gather(data, 4, 2, dshape, idx, REF_INDEX_I32, 1, ishape, 0,
                       want) == 0);
  int failed = 0, tolerated = 0;
  unsigned long sub_buffer_faults = 0;
  for (int buf = 0; buf < 2; ++buf) {
    clg_params p = {CLG_OP_GATHER, 0, 0, buf ? CLG_MODE_WRAP : CLG_MODE_RAISE};
    sh_tensor td, ti;
    sh_init(&td, CLG_DTYPE_FLOAT, 2, dshape, buf, 4, data);
    sh_init(&ti, CLG_DTYPE_INT32, 1, ishape, buf, 8, idx);
    for (int k = 0; k < CLG_FAULT_COUNT; ++k) {
      /* Count the calls of kind k of one (warm) sharded call. */
      unsigned long calls = 0;
      for (int pass = 0; pass < 2; ++pass) {
        sh_tensor to;
        sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, buf, g_align, NULL);
        clg_fault_reset();
        cl_event ev = NULL;
        cr_assert(clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc, &to.desc,
                                  NULL, 0, NULL, &ev) == CLG_SUCCESS,
                  "%s", clg_last_error());
        calls = clg_fault_calls((clg_fault)k);
        if (k == CLG_FAULT_CREATE_SUB_BUFFER && pass == 1)
          sub_buffer_faults += calls;
        tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
        clReleaseEvent(ev);
        sh_free(&to);
      }
      for (unsigned long pos = 0; pos < calls; ++pos) {
        sh_tensor to;
        sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, buf, g_align, NULL);
        clg_fault_reset();
        clg_fault_inject((clg_fault)k, (unsigned)pos, 1, CL_OUT_OF_RESOURCES);
        cl_event ev = NULL;
        clg_status st = clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc,
                                        &to.desc, NULL, 0, NULL, &ev);
        char what[160], why[256];
        snprintf(what, sizeof what, "%s tensors, %s call %lu of %lu",
                 buf ? "cl_mem" : "host", clg_fault_call_name((clg_fault)k),
                 pos + 1, calls);
        clg_fault_reset();
        if (st == CLG_SUCCESS) {
          ++tolerated;
          cr_expect(ev != NULL, "%s: success but no event", what);
          if (ev) {
            tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
            clReleaseEvent(ev);
          }
          cr_expect(sh_holds(&to, (const unsigned char *)want, why, sizeof why),
                    "%s: tolerated, but %s", what, why);
        } else {
          ++failed;
          cr_expect(ev == NULL, "%s: an event after %s", what,
                    clg_status_string(st));
          cr_expect(clg_last_error()[0] != '\0', "%s: no message", what);
          /* Nothing still runs: two reads of the output agree with a
           * read after both queues are finished. */
          unsigned char *a = malloc(to.total), *b = malloc(to.total);
          cr_assert(a && b);
          sh_read_all(&to, a);
          for (int q = 0; q < 2; ++q)
            tu_cl_check(clFinish(clg_context_queue(g_ctx[q])), "clFinish");
          sh_read_all(&to, b);
          cr_expect(memcmp(a, b, to.total) == 0,
                    "%s: the output changed after the call failed", what);
          free(a);
          free(b);
        }
        sh_free(&to);
      }
    }
    sh_free(&td);
    sh_free(&ti);
  }
  cr_log_info("faults: %d failed cleanly, %d tolerated", failed, tolerated);
  cr_expect(failed > 0, "no fault made a sharded call fail");
  cr_expect(sub_buffer_faults > 0, "no clCreateSubBuffer call was reached");
}

typedef struct flagged_completer {
  cl_event user;
  atomic_int done;
} flagged_completer;

static void *complete_flagged(void *arg) {
  flagged_completer *c = arg;
  sleep_ms(200);
  atomic_store(&c->done, 1);
  clSetUserEventStatus(c->user, CL_COMPLETE);
  return NULL;
}

/* A failure after a part was enqueued (the second part's sub-buffer or
 * kernel, or the marker joining the parts): the call returns only when the
 * enqueued parts are done. The parts wait for a user event that another
 * thread completes after 200 ms; the call must not return before. */
Test(shard, failure_waits_for_enqueued_parts) {
  static const int64_t dshape[2] = {5, 3}, ishape[1] = {FAULT_ROWS},
                       oshape[2] = {FAULT_ROWS, 3};
  static const clg_params p = {CLG_OP_GATHER, 0, 0, CLG_MODE_WRAP};
  static const struct {
    clg_fault kind;
    unsigned skip;
  } faults[] = {{CLG_FAULT_CREATE_SUB_BUFFER, 1},
                {CLG_FAULT_ENQUEUE_KERNEL, 1},
                {CLG_FAULT_MARKER, 0}};
  int32_t idx[FAULT_ROWS];
  fault_indices(idx);
  float data[15] = {0};
  sh_tensor td, ti;
  sh_init(&td, CLG_DTYPE_FLOAT, 2, dshape, true, 0, data);
  sh_init(&ti, CLG_DTYPE_INT32, 1, ishape, true, 0, idx);
  for (size_t k = 0; k < sizeof faults / sizeof faults[0]; ++k) {
    sh_tensor to;
    sh_init(&to, CLG_DTYPE_FLOAT, 2, oshape, true, 0, NULL);
    cl_int err = CL_SUCCESS;
    flagged_completer c;
    c.user = clCreateUserEvent(g_cl, &err);
    atomic_init(&c.done, 0);
    tu_cl_check(err, "clCreateUserEvent");
    pthread_t th;
    cr_assert(pthread_create(&th, NULL, complete_flagged, &c) == 0);
    clg_fault_reset();
    clg_fault_inject(faults[k].kind, faults[k].skip, 1, CL_OUT_OF_RESOURCES);
    cl_event ev = NULL;
    clg_status st = clg_run_sharded(g_ctx, 2, &p, &td.desc, &ti.desc, &to.desc,
                                    NULL, 1, &c.user, &ev);
    int waited = atomic_load(&c.done);
    unsigned long hit = clg_fault_calls(faults[k].kind);
    clg_fault_reset();
    pthread_join(th, NULL);
    const char *name = clg_fault_call_name(faults[k].kind);
    cr_expect(hit > faults[k].skip, "%s: the fault was not reached", name);
    cr_expect(st == CLG_ERROR_OPENCL && ev == NULL, "%s: got %s, event %p",
              name, clg_status_string(st), (void *)ev);
    cr_expect(waited, "%s: returned before the enqueued part could run", name);
    for (int q = 0; q < 2; ++q)
      tu_cl_check(clFinish(clg_context_queue(g_ctx[q])), "clFinish");
    clReleaseEvent(c.user);
    sh_free(&to);
  }
  sh_free(&td);
  sh_free(&ti);
}

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
