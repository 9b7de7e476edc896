#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "support/testutil.h"

#include "cases/scatter.h"
#if defined(CLGATHER_TESTING)
/* The context's kept buffers (tu_kept, tu_drop_kept), without the fault
 * wrappers' names: the helpers' own OpenCL calls are not the library's,
 * and the fault tests count and fail only those. */
#define CLG_FAULTS_IMPL
#include "internal.h"
#endif

#include <criterion/criterion.h>

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

#if defined(CLGATHER_TESTING)
/* Let go of the ended events of a context's kept buffers (what a later
 * take would do) and count the buffers: each holds a reference to the
 * cl_context that is the context's keeping, not a leak. */
static cl_uint tu_kept_in(clg_kept_buffers *k) {
  for (unsigned i = 0; i < k->count; ++i)
    if (k->busy[i] && clg__event_ended(k->busy[i])) {
      clReleaseEvent(k->busy[i]);
      k->busy[i] = NULL;
    }
  return k->count;
}

void tu_drop_kept(clg_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  clg_kept_buffers *both[2] = {&ctx->verdicts, &ctx->bag_verdicts};
  for (int b = 0; b < 2; ++b) {
    for (unsigned i = 0; i < both[b]->count; ++i)
      if (both[b]->busy[i])
        (void)clWaitForEvents(1, &both[b]->busy[i]);
    clg__kept_release(both[b]);
  }
  for (int i = 0; i < CLG_SCRATCH_SLOTS; ++i) {
    if (ctx->scratch_busy[i]) {
      (void)clWaitForEvents(1, &ctx->scratch_busy[i]);
      clReleaseEvent(ctx->scratch_busy[i]);
      ctx->scratch_busy[i] = NULL;
    }
    if (ctx->scratch[i])
      clReleaseMemObject(ctx->scratch[i]);
    ctx->scratch[i] = NULL;
  }
  ctx->scratch_kept = 0;
  pthread_mutex_unlock(&ctx->lock);
}

static cl_uint tu_kept(cl_context c) {
  clg_context *ctx = g_ctx;
  if (!ctx || clg_context_cl_context(ctx) != c)
    return 0;
  pthread_mutex_lock(&ctx->lock);
  cl_uint n = tu_kept_in(&ctx->verdicts) + tu_kept_in(&ctx->bag_verdicts);
  for (int i = 0; i < CLG_SCRATCH_SLOTS; ++i) {
    if (ctx->scratch_busy[i] && clg__event_ended(ctx->scratch_busy[i])) {
      clReleaseEvent(ctx->scratch_busy[i]);
      ctx->scratch_busy[i] = NULL;
    }
    n += ctx->scratch[i] != NULL;
  }
  pthread_mutex_unlock(&ctx->lock);
  return n;
}
#else
static cl_uint tu_kept(cl_context c) {
  (void)c;
  return 0;
}
#endif

/* The count less the buffers the shared clg_context keeps between calls
 * (test builds: verdicts and scratch buffers, whose number depends on how
 * far the calls before had run when the next came). */
static cl_uint tu_refs_now(cl_context c) {
  cl_uint kept = tu_kept(c), n = tu_read_refs(c);
  return n - kept;
}

cl_uint tu_context_refs(cl_context c) {
  tu_cl_check(clFinish(tu_queue()), "clFinish (test queue)");
  cl_uint last = tu_refs_now(c);
  for (int stable = 0, n = 0; stable < 3 && n < 1000; ++n) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    cl_uint now = tu_refs_now(c);
    stable = now == last ? stable + 1 : 0;
    last = now;
  }
  return last;
}

cl_uint tu_context_refs_after(cl_context c, cl_uint before) {
  /* Up to 10 s: a driver may release a buffer's reference to the context
   * only when the last command that used it has run, which a loaded CI
   * machine running two suites at once delays (2 s once were not enough:
   * test_faults_device_validation, a count one above, in a passing run of
   * the same test under ASan a minute earlier). A real leak still fails. */
  cl_uint now = tu_context_refs(c);
  for (int n = 0; now != before && n < 1000; ++n) {
    struct timespec ten_ms = {0, 10000000};
    nanosleep(&ten_ms, NULL);
    now = tu_refs_now(c);
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

tu_rng tu_rng_make(uint64_t seed) { return case_rng_make(seed); }

uint64_t tu_rng_u64(tu_rng *rng) { return case_rng_u64(rng); }

int64_t tu_rng_range(tu_rng *rng, int64_t lo, int64_t hi) {
  return case_rng_range(rng, lo, hi);
}

void tu_rng_bytes(tu_rng *rng, void *dst, size_t n) {
  case_rng_bytes(rng, dst, n);
}

/* ------------------------------------------------------------- shapes */

int64_t tu_numel(int32_t rank, const int64_t *shape) {
  return ref_numel(rank, shape);
}

const char *tu_shape_str(int32_t rank, const int64_t *shape, char *buf,
                         size_t cap) {
  return case_shape_str(rank, shape, buf, cap);
}

ref_index_type tu_ref_index_type(clg_dtype idt) {
  return case_ref_index_type(idt);
}

/* ------------------------------------------------------------ indices */

void tu_set_index(void *dst, clg_dtype idt, int64_t pos, int64_t value) {
  case_set_index(dst, idt, pos, value);
}

void tu_fill_indices(tu_rng *rng, void *dst, clg_dtype idt, int64_t count,
                     int64_t s, tu_index_mode mode) {
  if (count > 0)
    cr_assert(s >= 1, "tu_fill_indices: %" PRId64 " indices for s = 0", count);
  case_fill_indices(rng, dst, idt, count, s, mode);
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
  return case_contains_ci(hay, needle);
}

bool tu_contains_int(const char *hay, int64_t v) {
  return case_message_has_int(hay, v);
}

/* ------------------------------------------------------------- dtypes */

const clg_dtype tu_all_dtypes[15] = {
    CLG_DTYPE_BOOL,    CLG_DTYPE_INT8,      CLG_DTYPE_UINT8,
    CLG_DTYPE_INT16,   CLG_DTYPE_UINT16,    CLG_DTYPE_FLOAT16,
    CLG_DTYPE_BFLOAT16, CLG_DTYPE_INT32,    CLG_DTYPE_UINT32,
    CLG_DTYPE_FLOAT,   CLG_DTYPE_INT64,     CLG_DTYPE_UINT64,
    CLG_DTYPE_DOUBLE,  CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128,
};

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

const case_device *tu_case_device(void) {
  static case_device dev;
  static bool known;
  if (!known) {
    tu_cl_check(case_device_query(tu_device(), &dev) == 0 ? CL_SUCCESS
                                                          : CL_INVALID_DEVICE,
                "case_device_query");
    /* The test build's claim (core/faults.h, clg_fault_claims_denorm). */
    if (getenv("CLGATHER_TEST_CLAIM_DENORM") != NULL)
      dev.single_denorm = true;
    known = true;
  }
  return &dev;
}

bool tu_reduces_exactly(clg_dtype dtype) {
  /* The scatters' rule (tools/cases/scatter.h): a reduction the device
   * cannot give the promised bits for is refused. */
  scatter_case c;
  memset(&c, 0, sizeof c);
  c.dtype = dtype;
  c.sp.reduction = CLG_REDUCTION_ADD;
  return scatter_case_status(&c, tu_case_device()) == CLG_SUCCESS;
}
