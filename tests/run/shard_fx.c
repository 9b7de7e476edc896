/* The two-device setup of test_shard and what its files share
 * (shard_fx.h): the suite's init and fini, the test's tensors with guard
 * bytes, the cases' description and indices, a sleep. */
#define _POSIX_C_SOURCE 200809L

#include "run/shard_fx.h"

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ devices */

cl_device_id g_dev[2];
cl_context g_cl;
clg_context *g_ctx[2];
cl_command_queue g_io;
size_t g_align;

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

cl_command_queue new_queue(cl_context cl, cl_device_id dev) {
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(cl, dev, 0, &err);
  tu_cl_check(err, "clCreateCommandQueue");
  return q;
}

/* ------------------------------------------------------------ tensors */

void sh_init(sh_tensor *t, clg_dtype dt, int32_t rank, const int64_t *shape,
             bool buffer, size_t offset, const void *init) {
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

void sh_free(sh_tensor *t) {
  if (t->buf)
    clReleaseMemObject(t->buf);
  free(t->alloc);
}

/* The whole allocation (guards included) into dst (t->total bytes). */
void sh_read_all(const sh_tensor *t, unsigned char *dst) {
  if (t->buf)
    tu_cl_check(clEnqueueReadBuffer(g_io, t->buf, CL_TRUE, 0, t->total, dst, 0,
                                    NULL, NULL),
                "clEnqueueReadBuffer");
  else
    memcpy(dst, t->alloc, t->total);
}

/* Does the tensor hold `want` (t->bytes; NULL: all sentinel) with every
 * byte around it still TU_SENTINEL? Writes the first difference to why. */
bool sh_holds(const sh_tensor *t, const unsigned char *want, char *why,
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

static const char *op_name(clg_op op) {
  return op == CLG_OP_GATHER      ? "Gather"
         : op == CLG_OP_GATHER_ND ? "GatherND"
                                  : "GatherElements";
}

const char *case_str(const sh_case *c, const sh_how *h, char *buf, size_t cap) {
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
void fill_indices(const sh_case *c, clg_dtype idt, tu_rng *rng, void *dst,
                  int64_t count) {
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

/* ---------------------------------------------------------------- waits */

void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}
