#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "support/testutil.h"

#include <criterion/criterion.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------- device */

static clg_context *g_ctx;
static cl_command_queue g_queue;

void tu_cl_check(cl_int err, const char *what) {
  cr_assert(err == CL_SUCCESS, "OpenCL call %s failed with %d", what, (int)err);
}

static cl_uint tu_read_refs(cl_context c) {
  cl_uint n = 0;
  tu_cl_check(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n,
                               NULL),
              "clGetContextInfo(CL_CONTEXT_REFERENCE_COUNT)");
  return n;
}

cl_uint tu_context_refs(cl_context c) {
  tu_cl_check(clFinish(tu_queue()), "clFinish (test queue)");
  cl_uint last = tu_read_refs(c);
  for (int stable = 0, n = 0; stable < 3 && n < 1000; ++n) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    cl_uint now = tu_read_refs(c);
    stable = now == last ? stable + 1 : 0;
    last = now;
  }
  return last;
}

cl_uint tu_context_refs_after(cl_context c, cl_uint before) {
  cl_uint now = tu_context_refs(c);
  for (int n = 0; now != before && n < 200; ++n) {
    struct timespec ten_ms = {0, 10000000};
    nanosleep(&ten_ms, NULL);
    now = tu_read_refs(c);
  }
  return now;
}

clg_context *tu_ctx(void) {
  if (!g_ctx) {
    clg_context *ctx = NULL;
    clg_status st = clg_context_create_default(NULL, &ctx);
    cr_assert(st == CLG_SUCCESS && ctx != NULL,
              "clg_context_create_default(NULL) failed: %s (%s); the tests "
              "need an OpenCL device (POCL) and never skip",
              clg_status_string(st), clg_last_error());
    g_ctx = ctx;
  }
  return g_ctx;
}

cl_context tu_cl_context(void) {
  cl_context c = clg_context_cl_context(tu_ctx());
  cr_assert(c != NULL, "clg_context_cl_context returned NULL");
  return c;
}

cl_device_id tu_device(void) {
  cl_device_id d = clg_context_device(tu_ctx());
  cr_assert(d != NULL, "clg_context_device returned NULL");
  return d;
}

cl_command_queue tu_queue(void) {
  if (!g_queue) {
    cl_int err = CL_SUCCESS;
    g_queue = clCreateCommandQueue(tu_cl_context(), tu_device(), 0, &err);
    tu_cl_check(err, "clCreateCommandQueue (test queue)");
  }
  return g_queue;
}

/* ---------------------------------------------------------------- RNG */

tu_rng tu_rng_make(uint64_t seed) {
  tu_rng r = {seed ^ 0x9E3779B97F4A7C15ull};
  return r;
}

uint64_t tu_rng_u64(tu_rng *rng) { /* splitmix64 */
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t tu_rng_range(tu_rng *rng, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u;
  if (span == 0)
    return (int64_t)tu_rng_u64(rng);
  return (int64_t)((uint64_t)lo + tu_rng_u64(rng) % span);
}

void tu_rng_bytes(tu_rng *rng, void *dst, size_t n) {
  unsigned char *p = dst;
  while (n >= 8) {
    uint64_t v = tu_rng_u64(rng);
    memcpy(p, &v, 8);
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t v = tu_rng_u64(rng);
    memcpy(p, &v, n);
  }
}

/* ------------------------------------------------------------- shapes */

int64_t tu_numel(int32_t rank, const int64_t *shape) {
  return ref_numel(rank, shape);
}

const char *tu_shape_str(int32_t rank, const int64_t *shape, char *buf,
                         size_t cap) {
  size_t k = 0;
  int n = snprintf(buf, cap, "[");
  k = n > 0 ? (size_t)n : 0;
  for (int32_t i = 0; i < rank && k < cap; ++i) {
    n = snprintf(buf + k, cap - k, "%s%" PRId64, i ? ", " : "", shape[i]);
    if (n > 0)
      k += (size_t)n;
  }
  if (k < cap)
    snprintf(buf + k, cap - k, "]");
  return buf;
}

ref_index_type tu_ref_index_type(clg_dtype idt) {
  return idt == CLG_DTYPE_INT32 ? REF_INDEX_I32 : REF_INDEX_I64;
}

/* ------------------------------------------------------------ indices */

void tu_set_index(void *dst, clg_dtype idt, int64_t pos, int64_t value) {
  unsigned char *p = dst;
  if (idt == CLG_DTYPE_INT32) {
    int32_t v = (int32_t)value;
    memcpy(p + (size_t)pos * 4u, &v, 4);
  } else {
    memcpy(p + (size_t)pos * 8u, &value, 8);
  }
}

void tu_fill_indices(tu_rng *rng, void *dst, clg_dtype idt, int64_t count,
                     int64_t s, tu_index_mode mode) {
  if (count > 0)
    cr_assert(s >= 1, "tu_fill_indices: %" PRId64 " indices for s = 0", count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t v = 0;
    switch (mode) {
    case TU_IDX_ANY:
      v = tu_rng_range(rng, -s, s - 1);
      break;
    case TU_IDX_NONNEG:
      v = tu_rng_range(rng, 0, s - 1);
      break;
    case TU_IDX_NEG:
      v = tu_rng_range(rng, -s, -1);
      break;
    case TU_IDX_EDGES: {
      const int64_t edges[4] = {-s, -1, 0, s - 1};
      v = edges[tu_rng_range(rng, 0, 3)];
      break;
    }
    case TU_IDX_WILD: {
      int64_t lo = idt == CLG_DTYPE_INT32 ? INT32_MIN : INT64_MIN;
      int64_t hi = idt == CLG_DTYPE_INT32 ? INT32_MAX : INT64_MAX;
      const int64_t far[6] = {lo, hi, -s - 1, s, 3 * s + 1, -5 * s - 2};
      int64_t pick = tu_rng_range(rng, 0, 9);
      v = pick < 6 ? far[pick] : tu_rng_range(rng, -4 * s, 4 * s);
      break;
    }
    }
    tu_set_index(dst, idt, i, v);
  }
}

/* ------------------------------------------------------------ tensors */

cl_mem tu_buffer_create(size_t bytes, const void *init) {
  cl_int err = CL_SUCCESS;
  cl_mem b = clCreateBuffer(tu_cl_context(), CL_MEM_READ_WRITE, bytes ? bytes : 1,
                            NULL, &err);
  tu_cl_check(err, "clCreateBuffer");
  if (init && bytes) {
    err = clEnqueueWriteBuffer(tu_queue(), b, CL_TRUE, 0, bytes, init, 0, NULL,
                               NULL);
    tu_cl_check(err, "clEnqueueWriteBuffer");
  }
  return b;
}

void tu_buffer_read(cl_mem buf, size_t offset, size_t n, void *dst) {
  if (n == 0)
    return;
  cl_int err =
      clEnqueueReadBuffer(tu_queue(), buf, CL_TRUE, offset, n, dst, 0, NULL, NULL);
  tu_cl_check(err, "clEnqueueReadBuffer");
}

void tu_tensor_init(tu_tensor *t, clg_dtype dtype, int32_t rank,
                    const int64_t *shape, tu_storage st, const void *init) {
  memset(t, 0, sizeof *t);
  int64_t n = tu_numel(rank, shape);
  size_t es = clg_dtype_size(dtype);
  t->bytes = (size_t)n * es;
  if (st.kind == CLG_STORAGE_BUFFER) {
    t->offset = st.offset;
    t->total = st.offset + t->bytes + (st.tight ? 0u : (size_t)TU_GUARD);
  } else {
    t->offset = TU_GUARD;
    t->total = t->bytes + 2u * TU_GUARD;
  }
  size_t total = t->total ? t->total : 1u;
  unsigned char *img = malloc(total);
  cr_assert(img != NULL, "out of host memory");
  memset(img, (int)TU_SENTINEL, total);
  if (init && t->bytes)
    memcpy(img + t->offset, init, t->bytes);
  if (st.kind == CLG_STORAGE_BUFFER) {
    t->buf = tu_buffer_create(t->total, img);
    free(img);
    t->desc = clg_tensor_buffer(dtype, rank, shape, t->buf, st.offset);
  } else {
    t->alloc = img;
    void *host = img + t->offset;
    if (t->bytes == 0 && st.null_empty)
      host = NULL;
    t->desc = clg_tensor_host(dtype, rank, shape, host);
  }
}

void tu_tensor_free(tu_tensor *t) {
  if (t->buf)
    clReleaseMemObject(t->buf);
  free(t->alloc);
  memset(t, 0, sizeof *t);
}

void tu_tensor_read(const tu_tensor *t, void *dst) {
  if (t->bytes == 0)
    return;
  if (t->buf)
    tu_buffer_read(t->buf, t->offset, t->bytes, dst);
  else
    memcpy(dst, t->alloc + t->offset, t->bytes);
}

void tu_tensor_read_all(const tu_tensor *t, void *dst) {
  if (t->buf)
    tu_buffer_read(t->buf, 0, t->total, dst);
  else
    memcpy(dst, t->alloc, t->total);
}

static bool all_sentinel(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != TU_SENTINEL)
      return false;
  return true;
}

bool tu_tensor_guards_ok(const tu_tensor *t) {
  unsigned char *img = malloc(t->total ? t->total : 1u);
  cr_assert(img != NULL, "out of host memory");
  tu_tensor_read_all(t, img);
  bool ok = all_sentinel(img, t->offset) &&
            all_sentinel(img + t->offset + t->bytes,
                         t->total - t->offset - t->bytes);
  free(img);
  return ok;
}

bool tu_tensor_all_sentinel(const tu_tensor *t) {
  unsigned char *img = malloc(t->total ? t->total : 1u);
  cr_assert(img != NULL, "out of host memory");
  tu_tensor_read_all(t, img);
  bool ok = all_sentinel(img, t->total);
  free(img);
  return ok;
}

ptrdiff_t tu_first_diff(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (size_t i = 0; i < n; ++i)
    if (x[i] != y[i])
      return (ptrdiff_t)i;
  return -1;
}

/* ----------------------------------------------------------- messages */

bool tu_contains(const char *hay, const char *needle) {
  return hay && strstr(hay, needle) != NULL;
}

bool tu_contains_ci(const char *hay, const char *needle) {
  if (!hay)
    return false;
  size_t n = strlen(needle);
  for (const char *p = hay; *p; ++p) {
    size_t i = 0;
    while (i < n && p[i] &&
           tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i]))
      ++i;
    if (i == n)
      return true;
  }
  return n == 0;
}

bool tu_contains_int(const char *hay, int64_t v) {
  if (!hay)
    return false;
  char num[32];
  snprintf(num, sizeof num, "%" PRId64, v);
  size_t n = strlen(num);
  for (const char *p = strstr(hay, num); p; p = strstr(p + 1, num)) {
    bool before_ok = p == hay || !isdigit((unsigned char)p[-1]);
    if (v >= 0 && p != hay && p[-1] == '-')
      before_ok = false;
    bool after_ok = !isdigit((unsigned char)p[n]);
    if (before_ok && after_ok)
      return true;
  }
  return false;
}

/* -------------------------------------------------------------- cases */

const clg_dtype tu_all_dtypes[15] = {
    CLG_DTYPE_BOOL,    CLG_DTYPE_INT8,      CLG_DTYPE_UINT8,
    CLG_DTYPE_INT16,   CLG_DTYPE_UINT16,    CLG_DTYPE_FLOAT16,
    CLG_DTYPE_BFLOAT16, CLG_DTYPE_INT32,    CLG_DTYPE_UINT32,
    CLG_DTYPE_FLOAT,   CLG_DTYPE_INT64,     CLG_DTYPE_UINT64,
    CLG_DTYPE_DOUBLE,  CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128,
};

static const char *storage_str(tu_storage s, char *buf, size_t cap) {
  if (s.kind == CLG_STORAGE_BUFFER)
    snprintf(buf, cap, "buffer+%zu%s", s.offset, s.tight ? "(tight)" : "");
  else
    snprintf(buf, cap, "host%s", s.null_empty ? "(null-if-empty)" : "");
  return buf;
}

const char *tu_case_str(const tu_case *c, char *buf, size_t cap) {
  char ds[160], is[160], s0[48], s1[48], s2[48];
  static const char *const modes[] = {"any", "nonneg", "neg", "edges",
                                      "wild"};
  static const char *const gmodes[] = {"raise", "wrap", "clip"};
  snprintf(buf, cap,
           "dtype=%s data=%s axis=%" PRId64 " batch_dims=%" PRId64
           " mode=%s indices=%s%s storage(data/indices/output)=%s/%s/%s "
           "idx=%s%s%s",
           clg_dtype_name(c->dtype), tu_shape_str(c->r, c->dshape, ds, sizeof ds),
           c->axis, c->batch_dims, gmodes[c->gmode], clg_dtype_name(c->idt),
           tu_shape_str(c->q, c->ishape, is, sizeof is),
           storage_str(c->st[0], s0, sizeof s0),
           storage_str(c->st[1], s1, sizeof s1),
           storage_str(c->st[2], s2, sizeof s2), modes[c->mode],
           c->want_event ? " event" : "", c->queue ? " own-queue" : "");
  return buf;
}

bool tu_run_case(const tu_case *c, uint64_t seed, char *msg, size_t cap) {
  char desc[512];
  tu_case_str(c, desc, sizeof desc);
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  cr_assert(ref_gather_ex_shape(c->r, c->dshape, c->q, c->ishape, c->axis,
                                c->batch_dims, &orank, oshape) == 0,
            "test bug: invalid case %s", desc);
  cr_assert(orank <= CLG_MAX_RANK, "test bug: output rank in %s", desc);
  int32_t a = (int32_t)(c->axis < 0 ? c->axis + c->r : c->axis);
  size_t es = clg_dtype_size(c->dtype);
  cr_assert(es > 0, "test bug: dtype size 0 in %s", desc);
  int64_t dn = tu_numel(c->r, c->dshape), in = tu_numel(c->q, c->ishape),
          on = tu_numel(orank, oshape);
  size_t dbytes = (size_t)dn * es, ibytes = (size_t)in * clg_dtype_size(c->idt),
         obytes = (size_t)on * es;

  tu_rng rng = tu_rng_make(seed);
  unsigned char *data = malloc(dbytes + 1), *idx = malloc(ibytes + 1),
                *want = malloc(obytes + 1), *got = malloc(obytes + 1);
  cr_assert(data && idx && want && got, "out of host memory");
  tu_rng_bytes(&rng, data, dbytes);
  tu_fill_indices(&rng, idx, c->idt, in, c->dshape[a], c->mode);
  cr_assert(ref_gather_ex(data, es, c->r, c->dshape, idx,
                          tu_ref_index_type(c->idt), c->q, c->ishape, c->axis,
                          c->batch_dims, (ref_mode)c->gmode, want, &orank,
                          oshape) == 0,
            "test bug: reference failed on %s", desc);

  tu_tensor td, ti, to;
  tu_tensor_init(&td, c->dtype, c->r, c->dshape, c->st[0], data);
  tu_tensor_init(&ti, c->idt, c->q, c->ishape, c->st[1], idx);
  tu_tensor_init(&to, c->dtype, orank, oshape, c->st[2], NULL);

  bool ok = false;
  cl_event ev = NULL;
  clg_params params = {CLG_OP_GATHER, c->axis, c->batch_dims, c->gmode};
  clg_status st = clg_run(tu_ctx(), &params, &td.desc, &ti.desc, &to.desc,
                          c->queue, 0, NULL, c->want_event ? &ev : NULL);
  if (st != CLG_SUCCESS) {
    snprintf(msg, cap, "%s: clg_run returned %s (%d): %s", desc,
             clg_status_string(st), (int)st, clg_last_error());
    goto done;
  }
  if (c->want_event) {
    if (!ev) {
      snprintf(msg, cap, "%s: success but no event returned", desc);
      goto done;
    }
    cl_int err = clWaitForEvents(1, &ev);
    cl_int es_status = CL_QUEUED;
    cl_int err2 = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                 sizeof es_status, &es_status, NULL);
    clReleaseEvent(ev);
    if (err != CL_SUCCESS || err2 != CL_SUCCESS || es_status != CL_COMPLETE) {
      snprintf(msg, cap, "%s: waiting on the event: %d/%d, status %d", desc,
               (int)err, (int)err2, (int)es_status);
      goto done;
    }
  } else {
    cl_command_queue q = c->queue ? c->queue : clg_context_queue(tu_ctx());
    cr_assert(q != NULL, "clg_context_queue returned NULL");
    tu_cl_check(clFinish(q), "clFinish");
  }

  tu_tensor_read(&to, got);
  ptrdiff_t d = tu_first_diff(got, want, obytes);
  if (d >= 0) {
    snprintf(msg, cap,
             "%s: output differs from the reference at byte %td (element %td "
             "of %" PRId64 "): got 0x%02x, want 0x%02x",
             desc, d, d / (ptrdiff_t)es, on, got[d], want[d]);
    goto done;
  }
  if (!tu_tensor_guards_ok(&to)) {
    snprintf(msg, cap, "%s: bytes outside the output were written", desc);
    goto done;
  }
  /* Inputs are read-only. */
  unsigned char *back = malloc((dbytes > ibytes ? dbytes : ibytes) + 1);
  cr_assert(back != NULL, "out of host memory");
  tu_tensor_read(&td, back);
  bool din = tu_first_diff(back, data, dbytes) < 0;
  tu_tensor_read(&ti, back);
  bool iin = tu_first_diff(back, idx, ibytes) < 0;
  free(back);
  if (!din || !iin) {
    snprintf(msg, cap, "%s: the %s input was modified", desc,
             din ? "indices" : "data");
    goto done;
  }
  ok = true;

done:
  tu_tensor_free(&td);
  tu_tensor_free(&ti);
  tu_tensor_free(&to);
  free(data);
  free(idx);
  free(want);
  free(got);
  return ok;
}

void tu_assert_context_works(const char *after) {
  static const tu_storage host = {CLG_STORAGE_HOST, 0, false, false};
  static const tu_storage buf = {CLG_STORAGE_BUFFER, 8, false, false};
  tu_case c = {0};
  c.dtype = CLG_DTYPE_FLOAT;
  c.r = 2;
  c.dshape[0] = 5;
  c.dshape[1] = 3;
  c.q = 1;
  c.ishape[0] = 4;
  c.axis = 0;
  c.idt = CLG_DTYPE_INT64;
  c.mode = TU_IDX_ANY;
  char msg[1024];
  for (int v = 0; v < 2; ++v) {
    c.st[0] = c.st[1] = c.st[2] = v ? buf : host;
    cr_assert(tu_run_case(&c, 77u + (uint64_t)v, msg, sizeof msg),
              "after %s the context no longer works: %s", after, msg);
  }
}

bool tu_sampled(void) {
  static _Atomic unsigned long next;
  static int every;
  if (every == 0) {
    const char *e = getenv("CLGATHER_TEST_SAMPLE");
    int n = e ? atoi(e) : 1;
    every = n > 1 ? n : 1;
  }
  return atomic_fetch_add(&next, 1ul) % (unsigned long)every == 0;
}
