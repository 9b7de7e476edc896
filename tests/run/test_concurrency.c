/*
 * Concurrency: 8 threads share one clg_context for a bounded number of
 * gathers each — different shapes, element sizes (1, 2, 4, 8, 16 bytes),
 * int32/int64 indices, axes, host and cl_mem storage, the context's queue
 * and queues of their own — and every output is compared byte for byte with
 * the plain-C reference (tools/reference/reference.h).
 *
 * All threads start at a barrier and their first gathers pair up on kernel
 * variants nobody has built yet, so the shared program cache sees concurrent
 * first use; at the end the cache must hold each (options, kernel) once and
 * have built each program once. Threads also provoke index-out-of-bounds
 * errors now and then and check that clg_last_error() is their own message.
 *
 * A plain C program (no Criterion): Criterion's forked workers get in the
 * way of ThreadSanitizer, and this test is what the TSan build runs
 * (scripts/sanitize.sh). It is part of the normal ctest run too.
 */
#define _POSIX_C_SOURCE 200809L

#include "internal.h" /* clg_context internals: the program/kernel cache */
#include "reference/reference.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_THREADS 8
#define N_ITERS 40
#define GUARD 32
#define SENTINEL 0xA5u

static clg_context *g_ctx;
static pthread_barrier_t g_start;
static atomic_int g_failures;
static atomic_long g_gathers;

#define FAIL(...)                                                              \
  do {                                                                         \
    fprintf(stderr, "test_concurrency: " __VA_ARGS__);                         \
    fputc('\n', stderr);                                                       \
    atomic_fetch_add(&g_failures, 1);                                          \
  } while (0)

/* ---------------------------------------------------------------- RNG */

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi) {
  return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}
static void rng_bytes(uint64_t *s, unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    p[i] = (unsigned char)rng_next(s);
}

/* ------------------------------------------------------------- cases */

/* Element types of every size: 1, 2, 4, 8, 16 bytes. */
static const clg_dtype k_dtypes[] = {
    CLG_DTYPE_UINT8,  CLG_DTYPE_BOOL,      CLG_DTYPE_INT16,
    CLG_DTYPE_FLOAT16, CLG_DTYPE_BFLOAT16, CLG_DTYPE_FLOAT,
    CLG_DTYPE_INT32,  CLG_DTYPE_DOUBLE,    CLG_DTYPE_INT64,
    CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128};
#define N_DTYPES (sizeof k_dtypes / sizeof k_dtypes[0])

typedef struct gcase {
  clg_dtype dtype, idt;
  int32_t r, q;
  int64_t dshape[4], ishape[3];
  int64_t axis;
  unsigned storage; /* bit 0 data, 1 indices, 2 output: set = cl_mem */
  size_t doff, ooff; /* byte offsets in their buffers (buffer storage) */
  int own_queue;     /* pass the thread's queue instead of NULL */
} gcase;

/* First gathers, right after the barrier: thread t runs k_first[t % 4], so
 * two threads at a time race to build each of four new kernel variants. */
static const gcase k_first[4] = {
    {CLG_DTYPE_UINT8, CLG_DTYPE_INT32, 2, 1, {7, 3}, {5}, 1, 0, 0, 0, 0},
    {CLG_DTYPE_FLOAT16, CLG_DTYPE_INT64, 3, 2, {4, 5, 6}, {2, 3}, 0, 7, 0, 0, 0},
    {CLG_DTYPE_DOUBLE, CLG_DTYPE_INT32, 2, 1, {9, 33}, {4}, 0, 0, 0, 0, 1},
    {CLG_DTYPE_COMPLEX128, CLG_DTYPE_INT64, 1, 1, {6}, {10}, -1, 5, 16, 32, 1},
};

static void random_case(uint64_t *rng, gcase *c) {
  memset(c, 0, sizeof *c);
  c->dtype = k_dtypes[rng_next(rng) % N_DTYPES];
  c->idt = (rng_next(rng) & 1) ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
  c->r = (int32_t)rng_range(rng, 1, 4);
  c->q = (int32_t)rng_range(rng, 0, 3);
  for (int32_t i = 0; i < c->r; ++i)
    c->dshape[i] = rng_range(rng, 1, 6);
  for (int32_t i = 0; i < c->q; ++i)
    c->ishape[i] = rng_range(rng, 0, 4);
  c->axis = rng_range(rng, -c->r, c->r - 1);
  if (rng_next(rng) % 8 == 0) /* now and then a long inner slice */
    c->dshape[c->r - 1] = rng_range(rng, 20, 70);
  c->storage = (unsigned)(rng_next(rng) % 8);
  static const size_t offs[] = {0, 1, 3, 16, 64};
  c->doff = offs[rng_next(rng) % 5];
  c->ooff = offs[rng_next(rng) % 5];
  c->own_queue = (int)(rng_next(rng) & 1);
}

/* ----------------------------------------------------- per-thread state */

typedef struct worker {
  int id;
  cl_command_queue queue; /* the thread's own queue, for buffer I/O too */
  uint64_t rng;
  long gathers, oob_checks;
} worker;

static cl_mem make_buffer(size_t bytes, const void *init) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(clg_context_cl_context(g_ctx),
                            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                            (void *)init, &err);
  if (!m)
    FAIL("clCreateBuffer(%zu) failed: %d", bytes, (int)err);
  return m;
}

static void case_str(const gcase *c, char *buf, size_t cap) {
  snprintf(buf, cap,
           "%s[r=%d: %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
           "] idx %s[q=%d: %" PRId64 " %" PRId64 " %" PRId64
           "] axis %" PRId64 " storage %u doff %zu ooff %zu own_queue %d",
           clg_dtype_name(c->dtype), (int)c->r, c->dshape[0], c->dshape[1],
           c->dshape[2], c->dshape[3], clg_dtype_name(c->idt), (int)c->q,
           c->ishape[0], c->ishape[1], c->ishape[2], c->axis, c->storage,
           c->doff, c->ooff, c->own_queue);
}

/* Run one gather (out of bounds at position `oob_pos` when >= 0) and check
 * it: byte-for-byte output, untouched guard bytes; for an OOB case the status,
 * this thread's own message and an untouched output. */
static void run_case(worker *w, const gcase *c, int64_t oob_pos) {
  char desc[400];
  case_str(c, desc, sizeof desc);
  size_t es = clg_dtype_size(c->dtype);
  size_t is = c->idt == CLG_DTYPE_INT64 ? 8 : 4;
  int32_t a = (int32_t)(c->axis < 0 ? c->axis + c->r : c->axis);
  int64_t s = c->dshape[a];
  int64_t dn = ref_numel(c->r, c->dshape), in = ref_numel(c->q, c->ishape);
  int64_t oshape[CLG_MAX_RANK];
  int32_t orank = 0;
  if (ref_gather_shape(c->r, c->dshape, c->q, c->ishape, c->axis,
                       CLG_MAX_RANK, &orank, oshape) != 0) {
    FAIL("thread %d: bad test case %s", w->id, desc);
    return;
  }
  int64_t on = ref_numel(orank, oshape);
  size_t dbytes = (size_t)dn * es, ibytes = (size_t)in * is,
         obytes = (size_t)on * es;

  unsigned char *data = malloc(dbytes + 1), *idx = malloc(ibytes + 1);
  unsigned char *want = malloc(obytes + 1);
  unsigned char *out = malloc(obytes + 2 * GUARD); /* host output + guards */
  unsigned char *got = malloc(obytes + 1);
  if (!data || !idx || !want || !out || !got) {
    FAIL("thread %d: out of memory", w->id);
    goto done;
  }
  rng_bytes(&w->rng, data, dbytes);
  for (int64_t i = 0; i < in; ++i) {
    int64_t v = rng_range(&w->rng, -s, s - 1);
    if (i == oob_pos)
      v = (w->rng & 1) ? s + w->id : -s - 1 - w->id;
    if (is == 8)
      memcpy(idx + i * 8, &v, 8);
    else {
      int32_t v32 = (int32_t)v;
      memcpy(idx + i * 4, &v32, 4);
    }
  }
  ref_index_type rt = is == 8 ? REF_INDEX_I64 : REF_INDEX_I32;
  if (oob_pos < 0 && ref_gather(data, es, c->r, c->dshape, idx, rt, c->q,
                                c->ishape, c->axis, want) != 0) {
    FAIL("thread %d: reference rejected %s", w->id, desc);
    goto done;
  }
  memset(out, SENTINEL, obytes + 2 * GUARD);

  /* Buffers: [offset bytes of sentinel][tensor][GUARD bytes of sentinel]. */
  cl_mem dbuf = NULL, ibuf = NULL, obuf = NULL;
  size_t ioff = (c->doff / is) * is; /* indices: a multiple of their size */
  clg_tensor dt = clg_tensor_host(c->dtype, c->r, c->dshape, data);
  clg_tensor it = clg_tensor_host(c->idt, c->q, c->ishape, idx);
  clg_tensor ot = clg_tensor_host(c->dtype, orank, oshape, out + GUARD);
  if (c->storage & 1) {
    unsigned char *tmp = malloc(c->doff + dbytes + GUARD);
    if (tmp) {
      memset(tmp, SENTINEL, c->doff + dbytes + GUARD);
      memcpy(tmp + c->doff, data, dbytes);
      dbuf = make_buffer(c->doff + dbytes + GUARD, tmp);
      free(tmp);
    }
    dt = clg_tensor_buffer(c->dtype, c->r, c->dshape, dbuf, c->doff);
  }
  if (c->storage & 2) {
    unsigned char *tmp = malloc(ioff + ibytes + GUARD);
    if (tmp) {
      memset(tmp, SENTINEL, ioff + ibytes + GUARD);
      memcpy(tmp + ioff, idx, ibytes);
      ibuf = make_buffer(ioff + ibytes + GUARD, tmp);
      free(tmp);
    }
    it = clg_tensor_buffer(c->idt, c->q, c->ishape, ibuf, ioff);
  }
  if (c->storage & 4) {
    unsigned char *tmp = malloc(c->ooff + obytes + GUARD);
    if (tmp) {
      memset(tmp, SENTINEL, c->ooff + obytes + GUARD);
      obuf = make_buffer(c->ooff + obytes + GUARD, tmp);
      free(tmp);
    }
    ot = clg_tensor_buffer(c->dtype, orank, oshape, obuf, c->ooff);
  }
  if (((c->storage & 1) && !dbuf) || ((c->storage & 2) && !ibuf) ||
      ((c->storage & 4) && !obuf)) {
    FAIL("thread %d: buffer setup failed for %s", w->id, desc);
    goto release;
  }

  cl_event ev = NULL;
  clg_status st = clg_gather(g_ctx, &dt, &it, c->axis, &ot,
                             c->own_queue ? w->queue : NULL, 0, NULL, &ev);
  w->gathers++;
  atomic_fetch_add(&g_gathers, 1);
  if (oob_pos >= 0) {
    char want_pos[64];
    snprintf(want_pos, sizeof want_pos, "indices[%" PRId64 "]", oob_pos);
    const char *msg = clg_last_error();
    if (st != CLG_ERROR_INDEX_OUT_OF_BOUNDS)
      FAIL("thread %d: OOB at %" PRId64 " gave %s, not index out of bounds: "
           "%s (%s)",
           w->id, oob_pos, clg_status_string(st), msg, desc);
    else if (!strstr(msg, want_pos))
      FAIL("thread %d: message is not this thread's: wanted %s in \"%s\"",
           w->id, want_pos, msg);
    if (ev)
      FAIL("thread %d: event set on error", w->id);
    w->oob_checks++;
  } else if (st != CLG_SUCCESS) {
    FAIL("thread %d: clg_gather failed: %s: %s (%s)", w->id,
         clg_status_string(st), clg_last_error(), desc);
    goto release;
  } else if (clg_last_error()[0] != '\0') {
    FAIL("thread %d: success left a message: %s", w->id, clg_last_error());
  }
  if (ev) {
    cl_int e = clWaitForEvents(1, &ev);
    if (e != CL_SUCCESS)
      FAIL("thread %d: clWaitForEvents: %d (%s)", w->id, (int)e, desc);
    clReleaseEvent(ev);
  }

  /* The output: the result for a good case, untouched for an OOB one. */
  if (c->storage & 4) {
    size_t total = c->ooff + obytes + GUARD;
    unsigned char *all = malloc(total);
    if (!all) {
      FAIL("thread %d: out of memory", w->id);
      goto release;
    }
    cl_int e = clEnqueueReadBuffer(w->queue, obuf, CL_TRUE, 0, total, all, 0,
                                   NULL, NULL);
    if (e != CL_SUCCESS)
      FAIL("thread %d: clEnqueueReadBuffer: %d", w->id, (int)e);
    memcpy(got, all + c->ooff, obytes);
    for (size_t i = 0; i < total; ++i)
      if ((i < c->ooff || i >= c->ooff + obytes) && all[i] != SENTINEL) {
        FAIL("thread %d: output buffer byte %zu outside the tensor changed "
             "(%s)",
             w->id, i, desc);
        break;
      }
    free(all);
  } else {
    memcpy(got, out + GUARD, obytes);
    for (size_t i = 0; i < GUARD; ++i)
      if (out[i] != SENTINEL || out[GUARD + obytes + i] != SENTINEL) {
        FAIL("thread %d: host output guard byte changed (%s)", w->id, desc);
        break;
      }
  }
  if (oob_pos >= 0) {
    for (size_t i = 0; i < obytes; ++i)
      if (got[i] != SENTINEL) {
        FAIL("thread %d: OOB gather wrote output byte %zu (%s)", w->id, i,
             desc);
        break;
      }
  } else {
    for (size_t i = 0; i < obytes; ++i)
      if (got[i] != want[i]) {
        FAIL("thread %d: output byte %zu is 0x%02x, reference 0x%02x (%s)",
             w->id, i, got[i], want[i], desc);
        break;
      }
  }

release:
  if (dbuf)
    clReleaseMemObject(dbuf);
  if (ibuf)
    clReleaseMemObject(ibuf);
  if (obuf)
    clReleaseMemObject(obuf);
done:
  free(data);
  free(idx);
  free(want);
  free(out);
  free(got);
}

static void *worker_main(void *arg) {
  worker *w = arg;
  pthread_barrier_wait(&g_start);
  run_case(w, &k_first[w->id % 4], -1);
  for (int i = 1; i < N_ITERS; ++i) {
    gcase c;
    random_case(&w->rng, &c);
    int64_t in = ref_numel(c.q, c.ishape);
    /* Every 7th gather (with indices) carries one bad index. */
    int64_t oob = (i % 7 == 0 && in > 0) ? rng_range(&w->rng, 0, in - 1) : -1;
    run_case(w, &c, oob);
  }
  return NULL;
}

/* Each (options, kernel name) cached once, each program built once. */
static void check_cache(void) {
  int kernels = 0, distinct_options = 0;
  for (clg_kernel_entry *k = g_ctx->kernels; k; k = k->next) {
    ++kernels;
    int first_with_options = 1;
    for (clg_kernel_entry *j = g_ctx->kernels; j != k; j = j->next) {
      if (j->source == k->source && strcmp(j->options, k->options) == 0) {
        first_with_options = 0;
        if (strcmp(j->name, k->name) == 0)
          FAIL("kernel %s (%s) is cached twice", k->name, k->options);
      }
    }
    distinct_options += first_with_options;
  }
  if ((int)g_ctx->builds != distinct_options)
    FAIL("%u programs built for %d distinct build options: a program was "
         "built twice",
         g_ctx->builds, distinct_options);
  printf("test_concurrency: cache holds %d kernels of %u programs\n", kernels,
         g_ctx->builds);
}

int main(void) {
  clg_status st = clg_context_create_default(NULL, &g_ctx);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, "test_concurrency: no OpenCL device: %s: %s\n",
            clg_status_string(st), clg_last_error());
    return 1;
  }
  if (pthread_barrier_init(&g_start, NULL, N_THREADS) != 0) {
    fprintf(stderr, "test_concurrency: pthread_barrier_init failed\n");
    return 1;
  }
  worker w[N_THREADS];
  pthread_t th[N_THREADS];
  int started = 0;
  for (int t = 0; t < N_THREADS; ++t) {
    cl_int err = CL_SUCCESS;
    w[t] = (worker){.id = t, .rng = 0x5EED0000u + (uint64_t)t};
    w[t].queue = clCreateCommandQueue(clg_context_cl_context(g_ctx),
                                      clg_context_device(g_ctx), 0, &err);
    if (!w[t].queue) {
      fprintf(stderr, "test_concurrency: clCreateCommandQueue: %d\n",
              (int)err);
      return 1;
    }
  }
  for (int t = 0; t < N_THREADS; ++t) {
    if (pthread_create(&th[t], NULL, worker_main, &w[t]) != 0) {
      fprintf(stderr, "test_concurrency: pthread_create failed\n");
      return 1; /* the barrier would never open: give up */
    }
    ++started;
  }
  for (int t = 0; t < started; ++t)
    pthread_join(th[t], NULL);
  pthread_barrier_destroy(&g_start);

  long oob = 0;
  for (int t = 0; t < N_THREADS; ++t) {
    oob += w[t].oob_checks;
    clReleaseCommandQueue(w[t].queue);
  }
  check_cache();
  clg_context_destroy(g_ctx);
  int failures = atomic_load(&g_failures);
  printf("test_concurrency: %d threads, %ld gathers (%ld out of bounds), %d "
         "failures\n",
         N_THREADS, (long)atomic_load(&g_gathers), oob, failures);
  return failures ? 1 : 0;
}
