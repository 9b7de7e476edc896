/* The helpers of the fuzz_family harness (fuzz_family.c, whose
 * LLVMFuzzerTestOneInput is the call and its oracle): see fuzz_family_fx.h. */
#include "fuzz_common.h"

#include <clgather/clgather.h>

#include "fuzz_decode.h"
#include "fuzz_family_fx.h"

/* ------------------------------------------------------------ decoding */

/* Mostly -5 .. 4, sometimes a wild value. */
int64_t take_small(fz_in *in) {
  uint8_t b = take8(in);
  return b < 240 ? (int64_t)(b % 10) - 5 : wild[b % 16];
}

/* For a field the operator does not take: mostly 0, sometimes not. */
int64_t take_mostly_zero(fz_in *in) {
  uint8_t b = take8(in);
  if (b < 224)
    return 0;
  return b < 240 ? (int64_t)(b % 10) - 5 : wild[b % 16];
}

/* op: 0..2 mostly; 249: NULL params; 250..255: unknown operators. */
const int bad_ops[6] = {6, 1000, -1, 100, 42, 0x7fffffff}; /* 3-5: the scatters, not run by this harness */

/* -------------------------------------------------------------- context */

static clg_context *fz_ctx;
unsigned long fz_calls, fz_successes, fz_by_op[3]; /* FZ_STATS=1 */

static void print_stats(void) {
  fprintf(stderr,
          "fuzz_family: %lu clg_run calls, %lu succeeded (Gather %lu, "
          "GatherElements %lu, GatherND %lu)\n",
          fz_calls, fz_successes, fz_by_op[0], fz_by_op[1], fz_by_op[2]);
}

clg_context *context(void) {
  if (fz_ctx == NULL) {
    clg_status st = clg_context_create_default(NULL, &fz_ctx);
    if (st != CLG_SUCCESS) {
      fprintf(stderr, "fuzz_family: no OpenCL device: %s: %s\n",
              clg_status_string(st), clg_last_error());
      abort();
    }
    if (getenv("FZ_STATS") != NULL)
      atexit(print_stats);
  }
  return fz_ctx;
}

/* ------------------------------------------------------------- tensors */

/* Storage details from one byte: offset and slack (or shortfall). */
void take_place(fz_in *in, fz_tensor *x, int is_indices) {
  uint8_t b = take8(in);
  if (is_indices) {
    x->off = (size_t)(b % 4) * x->esize;
    if ((b & 0xe0) == 0xe0)
      x->off += 1 + b % 3; /* misaligned */
  } else {
    x->off = b % 19;
  }
  unsigned k = (b >> 5) & 7;
  x->shortfall = x->buffer && k == 1;
  x->cap = x->off + x->bytes + (k >= 2 ? 2 * (k - 2) : 0);
}

static cl_mem make_buffer(size_t bytes, const void *init) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(clg_context_cl_context(context()),
                            CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
  FZ_CHECK(m != NULL, "clCreateBuffer(%zu): %d", bytes, (int)err);
  if (bytes > 0) {
    err = clEnqueueWriteBuffer(clg_context_queue(context()), m, CL_TRUE, 0,
                               bytes, init, 0, NULL, NULL);
    FZ_CHECK(err == CL_SUCCESS, "clEnqueueWriteBuffer: %d", (int)err);
  }
  return m;
}

/* Allocate x's backing (host or cl_mem) from its mirror and point the
 * descriptor at it. */
void fz_back(fz_tensor *x) {
  if (x->buffer) {
    /* A cl_mem has at least one byte: a shortfall needs cap >= 2. */
    size_t size = x->cap;
    if (x->shortfall && size >= 2)
      size -= 1;
    x->cap = size;
    x->mem = make_buffer(size, x->mirror);
    x->t.storage = CLG_STORAGE_BUFFER;
    x->t.buffer = x->null ? NULL : x->mem;
    x->t.offset = x->off;
    x->t.host = NULL;
  } else {
    x->host = malloc(x->cap ? x->cap : 1);
    FZ_CHECK(x->host != NULL, "malloc");
    memcpy(x->host, x->mirror, x->cap);
    x->t.host = x->null ? NULL : x->host + x->off;
  }
}

/* The backing's bytes now (cap of them, into a new allocation). */
unsigned char *fz_contents(fz_tensor *x) {
  unsigned char *now = malloc(x->cap ? x->cap : 1);
  FZ_CHECK(now != NULL, "malloc");
  if (x->buffer) {
    if (x->cap > 0) {
      cl_int err = clEnqueueReadBuffer(clg_context_queue(context()), x->mem,
                                       CL_TRUE, 0, x->cap, now, 0, NULL, NULL);
      FZ_CHECK(err == CL_SUCCESS, "clEnqueueReadBuffer: %d", (int)err);
    }
  } else {
    memcpy(now, x->host, x->cap);
  }
  return now;
}

void fz_free(fz_tensor *x) {
  if (x->alias == NULL) {
    if (x->mem)
      clReleaseMemObject(x->mem);
    free(x->host);
    free(x->mirror);
  }
}

/* The tensor rules common to every operator (storage, rank, shape, size,
 * pointers, buffer size), as statuses. */
unsigned tensor_rules(const fz_tensor *x, size_t cap) {
  unsigned m = 0;
  if (x->t.storage != CLG_STORAGE_HOST && x->t.storage != CLG_STORAGE_BUFFER)
    m |= BIT(CLG_ERROR_INVALID_ARGUMENT);
  if (x->size == FZ_BAD_RANK)
    m |= BIT(CLG_ERROR_INVALID_RANK);
  if (x->size == FZ_NEG)
    m |= BIT(CLG_ERROR_INVALID_SHAPE);
  if (x->size == FZ_OVF)
    m |= BIT(CLG_ERROR_SIZE_OVERFLOW);
  if (x->t.storage == CLG_STORAGE_HOST && x->t.host == NULL && x->bytes > 0)
    m |= BIT(CLG_ERROR_NULL_ARGUMENT);
  if (x->t.storage == CLG_STORAGE_BUFFER) {
    if (x->t.buffer == NULL)
      m |= BIT(CLG_ERROR_NULL_ARGUMENT);
    else if (x->size == FZ_OK && (x->off > cap || x->bytes > cap - x->off))
      m |= BIT(CLG_ERROR_BUFFER_TOO_SMALL);
  }
  return m;
}

int index_ok(clg_dtype t) {
  return t == CLG_DTYPE_INT32 || t == CLG_DTYPE_INT64;
}
