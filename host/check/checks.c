/* Validation of everything a caller passes in: descriptors, element types,
 * axis, sizes, buffers, and the index-bounds pass. Nothing here touches the
 * output. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "check/check.h"
#include "device/context.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

clg_status clg__check_data_dtype(const char *name, clg_dtype dtype) {
  if (dtype == CLG_DTYPE_STRING)
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "%s has element type string, which is not supported yet "
                     "(fixed-size ONNX types only)",
                     name);
  if (clg_dtype_size(dtype) == 0)
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "%s has unsupported element type %d (%s); expected an "
                     "ONNX TensorProto.DataType of fixed size",
                     name, (int)dtype, clg_dtype_name(dtype));
  return CLG_SUCCESS;
}

clg_status clg__check_index_dtype(clg_dtype dtype) {
  if (dtype != CLG_DTYPE_INT32 && dtype != CLG_DTYPE_INT64)
    return clg__fail(CLG_ERROR_INVALID_INDICES_DTYPE,
                     "indices has element type %d (%s); it must be int32 or "
                     "int64",
                     (int)dtype, clg_dtype_name(dtype));
  return CLG_SUCCESS;
}

clg_status clg__normalize_axis(int64_t axis, int32_t rank, const char *what,
                               int32_t *out) {
  if (axis < -(int64_t)rank || axis >= (int64_t)rank)
    return clg__fail(CLG_ERROR_INVALID_AXIS,
                     "%s %" PRId64 " is out of range for data of rank %d: "
                     "valid range is [%d, %d]",
                     what, axis, (int)rank, -(int)rank, (int)rank - 1);
  *out = (int32_t)(axis < 0 ? axis + rank : axis);
  return CLG_SUCCESS;
}

clg_status clg__check_tensor(const clg_context *ctx, const char *name,
                             const clg_tensor *t, size_t elem_size,
                             clg_tensor_facts *facts) {
  if (clg__strides(t))
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s is a strided tensor (clg_strided_tensor), which this "
                     "entry point does not take: clg_run_sharded() and the "
                     "clgather_mpi library take dense tensors only",
                     name);
  if (t->storage != CLG_STORAGE_HOST && t->storage != CLG_STORAGE_BUFFER)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s has unknown storage kind %d (expected "
                     "CLG_STORAGE_HOST or CLG_STORAGE_BUFFER)",
                     name, (int)t->storage);
  if (t->rank < 0 || t->rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "%s has rank %d; ranks must be in [0, %d]", name,
                     (int)t->rank, CLG_MAX_RANK);
  uint64_t count = 1;
  bool overflow = false;
  for (int32_t i = 0; i < t->rank; ++i) {
    int64_t d = t->shape[i];
    if (d < 0)
      return clg__fail(CLG_ERROR_INVALID_SHAPE,
                       "%s has a negative dimension: shape[%d] = %" PRId64,
                       name, (int)i, d);
    if (count != 0 && (uint64_t)d > UINT64_MAX / count)
      overflow = true; /* keep going: a later 0 or a negative dim wins */
    else
      count *= (uint64_t)d;
  }
  if (count == 0)
    overflow = false;
  if (overflow || count > (uint64_t)INT64_MAX || count > SIZE_MAX / elem_size) {
    char shape[512];
    clg__format_shape(shape, sizeof shape, t->rank, t->shape);
    return clg__fail(CLG_ERROR_SIZE_OVERFLOW,
                     "%s of shape %s with %zu-byte elements does not fit in "
                     "memory: its byte size overflows size_t",
                     name, shape, elem_size);
  }
  facts->elem_size = elem_size;
  facts->count = (size_t)count;
  facts->bytes = (size_t)count * elem_size;
  facts->flags = 0;

  if (t->storage == CLG_STORAGE_HOST) {
    if (!t->host && facts->bytes > 0)
      return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                       "%s->host is NULL but %s holds %zu bytes", name, name,
                       facts->bytes);
    return CLG_SUCCESS;
  }

  if (!t->buffer)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "%s->buffer is NULL", name);
  cl_mem_object_type type = 0;
  cl_int err =
      clGetMemObjectInfo(t->buffer, CL_MEM_TYPE, sizeof type, &type, NULL);
  if (err != CL_SUCCESS) {
    char what[64];
    snprintf(what, sizeof what, "checking %s->buffer", name);
    return clg__fail_cl(err, "clGetMemObjectInfo", what);
  }
  if (type != CL_MEM_OBJECT_BUFFER)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s->buffer is not a buffer memory object", name);
  cl_context owner = NULL;
  size_t size = 0;
  err =
      clGetMemObjectInfo(t->buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
  if (err == CL_SUCCESS)
    err = clGetMemObjectInfo(t->buffer, CL_MEM_SIZE, sizeof size, &size, NULL);
  if (err == CL_SUCCESS)
    err = clGetMemObjectInfo(t->buffer, CL_MEM_FLAGS, sizeof facts->flags,
                             &facts->flags, NULL);
  if (err != CL_SUCCESS) {
    char what[64];
    snprintf(what, sizeof what, "checking %s->buffer", name);
    return clg__fail_cl(err, "clGetMemObjectInfo", what);
  }
  if (owner != ctx->cl_ctx)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s->buffer belongs to another cl_context than the "
                     "clg_context's",
                     name);
  /* Kernels write the output and read the inputs. */
  bool is_output = strcmp(name, "output") == 0;
  if (is_output && (facts->flags & CL_MEM_READ_ONLY))
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "output->buffer was created with CL_MEM_READ_ONLY: "
                     "kernels cannot write it");
  if (!is_output && (facts->flags & CL_MEM_WRITE_ONLY))
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s->buffer was created with CL_MEM_WRITE_ONLY: kernels "
                     "cannot read it",
                     name);
  if (t->offset > size || facts->bytes > size - t->offset)
    return clg__fail(CLG_ERROR_BUFFER_TOO_SMALL,
                     "%s->buffer holds %zu bytes, but offset %zu + %zu bytes "
                     "of %s are needed",
                     name, size, t->offset, facts->bytes, name);
  return CLG_SUCCESS;
}

/* sorting (|stride|, size) pairs of an output's dimensions */
typedef struct clg_dim_reach {
  uint64_t stride, size;
} clg_dim_reach;

static int clg_dim_reach_cmp(const void *a, const void *b) {
  uint64_t x = ((const clg_dim_reach *)a)->stride,
           y = ((const clg_dim_reach *)b)->stride;
  return x < y ? -1 : x > y;
}

clg_status clg__check_strided(const clg_context *ctx, const char *name,
                              const clg_tensor *t, size_t elem_size,
                              bool is_output, clg_strided_facts *f) {
  static unsigned char somewhere;
  const int64_t *strides = clg__strides(t);
  bool host = t->storage == CLG_STORAGE_HOST_STRIDED;
  /* Rank, shape, sizes and the host pointer as for a dense tensor. */
  clg_tensor d = *t;
  d.storage = CLG_STORAGE_HOST;
  d.host = host ? t->host : &somewhere;
  clg_status st = clg__check_tensor(ctx, name, &d, elem_size, &f->dense);
  if (st != CLG_SUCCESS)
    return st;
  f->lo = f->hi = 0;
  f->dense_order = true;
  if (f->dense.count > 0) {
    /* Every reach fits in int64 bytes with room to add them up. */
    const uint64_t limit = (uint64_t)INT64_MAX / 16 / elem_size;
    int64_t expect = 1;
    for (int32_t i = t->rank - 1; i >= 0; --i) {
      int64_t n = t->shape[i], s = strides[i];
      if (n == 1)
        continue;
      if (s != expect)
        f->dense_order = false;
      expect *= n;
      uint64_t mag = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
      if (mag > limit / (uint64_t)(n - 1) ||
          (uint64_t)(f->hi - f->lo) + mag * (uint64_t)(n - 1) > limit) {
        char shape[512];
        clg__format_shape(shape, sizeof shape, t->rank, t->shape);
        return clg__fail(CLG_ERROR_SIZE_OVERFLOW,
                         "%s of shape %s has stride %" PRId64
                         " (elements) on dimension %d: the memory its "
                         "elements span overflows a byte offset",
                         name, shape, s, (int)i);
      }
      int64_t reach = s * (n - 1);
      if (reach < 0)
        f->lo += reach;
      else
        f->hi += reach;
    }
  }
  char shape[512], strd[512];
  if (is_output && f->dense.count > 1) {
    /* Sorted by size, each stride must exceed what the smaller ones span:
     * then no two elements share memory (a sufficient rule; numpy's
     * may_share_memory answers the general question by a search). */
    clg_dim_reach dims[CLG_MAX_RANK];
    int nd = 0;
    for (int32_t i = 0; i < t->rank; ++i)
      if (t->shape[i] > 1)
        dims[nd++] = (clg_dim_reach){
            strides[i] < 0 ? (uint64_t)0 - (uint64_t)strides[i]
                           : (uint64_t)strides[i],
            (uint64_t)t->shape[i]};
    qsort(dims, (size_t)nd, sizeof dims[0], clg_dim_reach_cmp);
    uint64_t span = 0;
    for (int i = 0; i < nd; ++i) {
      if (dims[i].stride <= span) {
        clg__format_shape(shape, sizeof shape, t->rank, t->shape);
        clg__format_shape(strd, sizeof strd, t->rank, strides);
        return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                         "output of shape %s has strides %s (elements), "
                         "which give two of its elements the same memory: "
                         "an output needs each element at a place of its "
                         "own (sorted by size, each stride must exceed the "
                         "span of the smaller ones)",
                         shape, strd);
      }
      span += dims[i].stride * (dims[i].size - 1);
    }
  }
  if (host)
    return CLG_SUCCESS;
  size_t unit = elem_size < 8 ? elem_size : 8;
  if (t->offset % unit != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s->offset %zu is not a multiple of %zu bytes: a "
                     "strided cl_mem tensor of %zu-byte elements must start "
                     "at a multiple of min(element size, 8)",
                     name, t->offset, unit, elem_size);
  uint64_t below = (uint64_t)(-f->lo) * elem_size;
  if (below > t->offset) {
    clg__format_shape(strd, sizeof strd, t->rank, strides);
    return clg__fail(CLG_ERROR_BUFFER_TOO_SMALL,
                     "%s's strides %s (elements) reach %" PRIu64
                     " bytes below its first element, but it starts at "
                     "offset %zu of %s->buffer",
                     name, strd, below, t->offset, name);
  }
  /* The buffer's checks on the range the elements reach. */
  int64_t span = f->dense.count > 0 ? f->hi - f->lo + 1 : 0;
  clg_tensor r = clg_tensor_buffer(t->dtype, 1, &span, t->buffer,
                                   t->offset - (size_t)below);
  clg_tensor_facts rf;
  if ((st = clg__check_tensor(ctx, name, &r, elem_size, &rf)) != CLG_SUCCESS)
    return st;
  f->dense.flags = rf.flags;
  return CLG_SUCCESS;
}

clg_status clg__check_no_overlap(const char *in_name, const clg_tensor *in,
                                 size_t in_bytes, const clg_tensor *out,
                                 size_t out_bytes) {
  if (in_bytes == 0 || out_bytes == 0 || in->storage != out->storage)
    return CLG_SUCCESS;
  uintptr_t a0, b0;
  if (in->storage == CLG_STORAGE_HOST) {
    a0 = (uintptr_t)in->host;
    b0 = (uintptr_t)out->host;
  } else {
    if (in->buffer != out->buffer)
      return CLG_SUCCESS;
    a0 = in->offset;
    b0 = out->offset;
  }
  if (a0 < b0 + out_bytes && b0 < a0 + in_bytes)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "output overlaps %s in memory; the output must not "
                     "alias an input",
                     in_name);
  return CLG_SUCCESS;
}

clg_status clg__report_index_oob(size_t pos, int64_t value, int32_t idx_rank,
                                 const int64_t *idx_shape, int64_t s,
                                 int32_t axis) {
  int64_t coord[CLG_MAX_RANK];
  size_t rest = pos;
  for (int32_t i = idx_rank - 1; i >= 0; --i) {
    uint64_t d = (uint64_t)idx_shape[i];
    coord[i] = d ? (int64_t)(rest % d) : 0;
    rest = d ? rest / d : 0;
  }
  char at[512], shape[512];
  clg__format_shape(at, sizeof at, idx_rank, coord);
  clg__format_shape(shape, sizeof shape, idx_rank, idx_shape);
  if (s == 0)
    return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                     "index out of bounds: indices[%zu] (position %s in "
                     "indices of shape %s) = %" PRId64 ", but axis %d of data "
                     "has size 0: no index is valid",
                     pos, at, shape, value, (int)axis);
  return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                   "index out of bounds: indices[%zu] (position %s in indices "
                   "of shape %s) = %" PRId64 ", but axis %d of data has size "
                   "%" PRId64 ": valid range is [%" PRId64 ", %" PRId64 "]",
                   pos, at, shape, value, (int)axis, s, -s, s - 1);
}

/* ------------------------------------------------- the index-range scan
 *
 * k is in [-s, s-1] iff k + s >= 0 and k - s < 0: with s <= 2^62 neither
 * can overflow for a k in range, and a k out of range that overflows one
 * still fails the other (k + s wraps only for k > s - 1, where k - s >= 0;
 * k - s wraps only for k < -s, where k + s < 0). So OR-ing
 * (k + s) | ~(k - s) over all values (in wrapping uint64 arithmetic) leaves
 * the sign bit clear iff every value is in range: add, sub, andn, or per
 * value, no compare, which vectorizes with plain SSE2 for int64 too (int32
 * values against bounds <= 2^30: the same in uint32, by the same argument
 * with 2^30 for 2^62). The
 * values are scanned in blocks of CLG_SCAN_BLOCK with a compile-time trip
 * count (vectorized even under -O2's cheap cost model); s may vary with the
 * position (GatherND: s[j] for component j = position % period), so each
 * block reads its bounds from a pattern that repeats them. */

#define CLG_SCAN_BLOCK 64
/* Below twice this many index bytes one thread scans; above, one thread
 * per online CPU scans, at most one per this many bytes and at most
 * CLG_SCAN_MAX_THREADS. Measured on POCL's 2-core CPU host: a second thread
 * scans up to ~1.6x faster when a core is idle, and ~10% slower than one
 * thread when the other core is busy, so only large arrays are split. */
#ifndef CLG_SCAN_SPLIT_BYTES
#define CLG_SCAN_SPLIT_BYTES ((size_t)8 << 20)
#endif
#define CLG_SCAN_MAX_THREADS 8
/* Values a thread takes at a time in a split scan (a multiple of
 * CLG_SCAN_BLOCK values of either size). */
#define CLG_SCAN_CHUNK_BYTES ((size_t)256 << 10)
#define CLG_SCAN_MAX_S ((int64_t)1 << 62)

/* The bounds as a repeating pattern: pat[i] = s[(phase0 + i) % period] for
 * i < CLG_SCAN_BLOCK + period; a block starting at phase p reads pat + p. */
typedef struct clg_scan {
  const unsigned char *values;
  size_t index_size;
  size_t period;
  bool narrow; /* int32 values and every s[j] <= 2^30: uint32 arithmetic */
  uint64_t pat[CLG_SCAN_BLOCK + CLG_MAX_RANK];
  uint32_t pat32[CLG_SCAN_BLOCK + CLG_MAX_RANK];
} clg_scan;

#define CLG_DEFINE_SCAN(NAME, T, U, PAT)                                       \
  static bool NAME(const clg_scan *sc, size_t first, size_t n) {               \
    const unsigned char *v = sc->values + first * sizeof(T);                   \
    size_t period = sc->period, phase = first % period;                        \
    size_t step = CLG_SCAN_BLOCK % period;                                     \
    const int top = (int)(8 * sizeof(U) - 1);                                  \
    U acc = 0;                                                                 \
    size_t i = 0;                                                              \
    for (; i + CLG_SCAN_BLOCK <= n; i += CLG_SCAN_BLOCK) {                     \
      const U *sp = sc->PAT + phase;                                           \
      for (size_t j = 0; j < CLG_SCAN_BLOCK; ++j) {                            \
        T x;                                                                   \
        memcpy(&x, v + (i + j) * sizeof x, sizeof x);                          \
        U k = (U)x; /* sign-extends int32 for a uint64 U */                    \
        acc |= (U)((U)(k + sp[j]) | (U) ~(U)(k - sp[j]));                      \
      }                                                                        \
      if (acc >> top)                                                          \
        return true;                                                           \
      phase += step;                                                           \
      if (phase >= period)                                                     \
        phase -= period;                                                       \
    }                                                                          \
    for (; i < n; ++i) {                                                       \
      T x;                                                                     \
      memcpy(&x, v + i * sizeof x, sizeof x);                                  \
      U k = (U)x;                                                              \
      acc |= (U)((U)(k + sc->PAT[phase]) | (U) ~(U)(k - sc->PAT[phase]));      \
      if (++phase == period)                                                   \
        phase = 0;                                                             \
    }                                                                          \
    return (acc >> top) != 0;                                                  \
  }
CLG_DEFINE_SCAN(clg_scan_i32_narrow, int32_t, uint32_t, pat32)
CLG_DEFINE_SCAN(clg_scan_i32, int32_t, uint64_t, pat)
CLG_DEFINE_SCAN(clg_scan_i64, int64_t, uint64_t, pat)

static bool clg_scan_range(const clg_scan *sc, size_t first, size_t n) {
  if (sc->index_size == 8)
    return clg_scan_i64(sc, first, n);
  return sc->narrow ? clg_scan_i32_narrow(sc, first, n)
                    : clg_scan_i32(sc, first, n);
}

/* A split scan: the threads take chunks of CLG_SCAN_CHUNK_BYTES from a
 * shared counter until none is left or one has found a bad value. Work is
 * shared dynamically, so a helper thread that the scheduler runs late (the
 * other cores busy) costs little: the calling thread scans what it has not
 * taken. */
typedef struct clg_scan_shared {
  const clg_scan *sc;
  size_t count, chunk; /* values; values per chunk (whole blocks) */
  atomic_size_t next;  /* first value of the next chunk to take */
  atomic_bool bad;
} clg_scan_shared;

static void *clg_scan_worker(void *arg) {
  clg_scan_shared *sh = arg;
  while (!atomic_load_explicit(&sh->bad, memory_order_relaxed)) {
    size_t first =
        atomic_fetch_add_explicit(&sh->next, sh->chunk, memory_order_relaxed);
    if (first >= sh->count)
      break;
    size_t n = sh->count - first < sh->chunk ? sh->count - first : sh->chunk;
    if (clg_scan_range(sh->sc, first, n))
      atomic_store_explicit(&sh->bad, true, memory_order_relaxed);
  }
  return NULL;
}

size_t clg__scan_threads(size_t bytes, size_t max_threads) {
  if (bytes < 2 * CLG_SCAN_SPLIT_BYTES)
    return 1;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t t = cpus > 1 ? (size_t)cpus : 1;
  if (t > CLG_SCAN_MAX_THREADS)
    t = CLG_SCAN_MAX_THREADS;
  if (max_threads > 0 && t > max_threads)
    t = max_threads;
  if (t > bytes / CLG_SCAN_SPLIT_BYTES)
    t = bytes / CLG_SCAN_SPLIT_BYTES;
  return t;
}

bool clg__any_index_out_of_range(const void *values, size_t index_size,
                                 size_t count, const int64_t *s, size_t period,
                                 size_t max_threads) {
  if (count == 0)
    return false;
  for (size_t j = 0; j < period; ++j)
    if (s[j] > CLG_SCAN_MAX_S) { /* no such axis in practice: exact scan */
      for (size_t i = 0; i < count; ++i) {
        int64_t k = clg__index_at(values, index_size, i);
        int64_t d = s[i % period];
        if (k < -d || k > d - 1)
          return true;
      }
      return false;
    }
  clg_scan sc;
  sc.values = values;
  sc.index_size = index_size;
  sc.period = period;
  /* int32 values against bounds <= 2^30: the same argument holds in
   * 32-bit arithmetic (twice the values per vector). */
  sc.narrow = index_size == 4;
  for (size_t j = 0; j < period; ++j)
    sc.narrow = sc.narrow && s[j] <= ((int64_t)1 << 30);
  for (size_t i = 0; i < CLG_SCAN_BLOCK + period; ++i) {
    sc.pat[i] = (uint64_t)s[i % period];
    sc.pat32[i] = (uint32_t)sc.pat[i];
  }

  size_t nt = clg__scan_threads(count * index_size, max_threads);
  if (nt <= 1)
    return clg_scan_range(&sc, 0, count);
  /* Helpers that cannot be created are simply not there: the calling
   * thread takes every chunk left. */
  clg_scan_shared sh;
  sh.sc = &sc;
  sh.count = count;
  sh.chunk = CLG_SCAN_CHUNK_BYTES / index_size; /* a multiple of the block */
  atomic_init(&sh.next, 0);
  atomic_init(&sh.bad, false);
  pthread_t tid[CLG_SCAN_MAX_THREADS];
  bool started[CLG_SCAN_MAX_THREADS] = {false};
  for (size_t t = 1; t < nt; ++t)
    started[t] = pthread_create(&tid[t], NULL, clg_scan_worker, &sh) == 0;
  clg_scan_worker(&sh);
  for (size_t t = 1; t < nt; ++t)
    if (started[t])
      pthread_join(tid[t], NULL);
  return atomic_load(&sh.bad);
}

int64_t clg__index_at(const void *indices, size_t index_size, size_t i) {
  const unsigned char *p = (const unsigned char *)indices + i * index_size;
  if (index_size == 4) {
    int32_t k;
    memcpy(&k, p, sizeof k);
    return k;
  }
  int64_t k;
  memcpy(&k, p, sizeof k);
  return k;
}

size_t clg__first_index_out_of_range(const void *values, size_t index_size,
                                     size_t count, const int64_t *s,
                                     size_t period, size_t max_threads) {
  if (count == 0 || !clg__any_index_out_of_range(values, index_size, count, s,
                                                 period, max_threads))
    return count;
  /* Failure only: a second scan finds the first offender for the message. */
  for (size_t i = 0; i < count; ++i) {
    int64_t k = clg__index_at(values, index_size, i);
    int64_t d = s[i % period];
    if (k < -d || k > d - 1)
      return i;
  }
  return count; /* unreachable */
}

clg_status clg__normalize_batch_dims(int64_t batch_dims, int32_t indices_rank,
                                     int32_t *out) {
  if (batch_dims < -(int64_t)indices_rank || batch_dims > indices_rank)
    return clg__fail(CLG_ERROR_INVALID_BATCH_DIMS,
                     "batch_dims %" PRId64 " is out of range for indices of "
                     "rank %d: valid range is [%d, %d]",
                     batch_dims, (int)indices_rank, -(int)indices_rank,
                     (int)indices_rank);
  *out = (int32_t)(batch_dims < 0 ? batch_dims + indices_rank : batch_dims);
  return CLG_SUCCESS;
}

clg_status clg__check_batch_shapes(const char *op, int32_t b,
                                   const int64_t *data_shape,
                                   const int64_t *indices_shape) {
  for (int32_t i = 0; i < b; ++i)
    if (data_shape[i] != indices_shape[i])
      return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                       "%s with batch_dims %d: batch dimension %d differs, "
                       "data has %" PRId64 " and indices has %" PRId64,
                       op, (int)b, (int)i, data_shape[i], indices_shape[i]);
  return CLG_SUCCESS;
}
