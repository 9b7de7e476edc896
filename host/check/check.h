/* check/: descriptor, type, axis and index-range checks (checks.c): functions of their arguments, which ask the OpenCL driver about a cl_mem (clGetMemObjectInfo: its context, size and flags) and, for large index arrays, scan with up to the threads they are given (started and joined within the call). Not installed. */
#ifndef CLGATHER_HOST_CHECK_H
#define CLGATHER_HOST_CHECK_H

#include "core/core.h"
#include <stdbool.h>

/* ------------------------------------------------------------ checks.c */

/* Facts about one validated tensor descriptor. */
typedef struct clg_tensor_facts {
  size_t elem_size;   /* bytes per element */
  size_t count;       /* elements */
  size_t bytes;       /* count * elem_size */
  cl_mem_flags flags; /* the buffer's flags (0 for host memory) */
} clg_tensor_facts;

/* Check a descriptor: storage kind, rank in [0, CLG_MAX_RANK], no negative
 * dim, element count and byte size fit size_t, non-NULL host pointer or
 * buffer when there are elements, buffer of ctx's context large enough for
 * offset + bytes. `elem_size` is the dtype size already checked by the
 * caller. `name` ("data", "indices", "output") is used in messages. */
clg_status clg__check_tensor(const clg_context *ctx, const char *name,
                             const clg_tensor *t, size_t elem_size,
                             clg_tensor_facts *facts);

/* What clg__check_strided() found of a strided descriptor. */
typedef struct clg_strided_facts {
  clg_tensor_facts dense; /* of the tensor's elements, as if dense */
  /* The lowest and highest element reached, relative to [0, ..., 0] (in
   * elements; lo <= 0 <= hi; both 0 when empty). */
  int64_t lo, hi;
  /* The strides are those of the dense C-order tensor (ignoring dimensions
   * of size 1; any strides when empty): it is that tensor. */
  bool dense_order;
} clg_strided_facts;

/* Check a strided descriptor (t's storage CLG_STORAGE_*_STRIDED) as
 * clg__check_tensor() checks a dense one, plus: strides whose reach
 * overflows, a host pointer or cl_mem range that does not hold every
 * element reached (the cl_mem's checks are clg__check_tensor()'s, on the
 * range), a cl_mem offset not a multiple of min(elem_size, 8), and (an
 * output, `is_output`) strides that give two elements the same memory. */
clg_status clg__check_strided(const clg_context *ctx, const char *name,
                              const clg_tensor *t, size_t elem_size,
                              bool is_output, clg_strided_facts *facts);

/* The output's bytes must not overlap an input's (same host memory or same
 * cl_mem): CLG_ERROR_INVALID_ARGUMENT otherwise. */
clg_status clg__check_no_overlap(const char *in_name, const clg_tensor *in,
                                 size_t in_bytes, const clg_tensor *out,
                                 size_t out_bytes);

/* Check an element type for data/output: fixed-size ONNX types only. */
clg_status clg__check_data_dtype(const char *name, clg_dtype dtype);
/* Check an element type for indices: int32 or int64. */
clg_status clg__check_index_dtype(clg_dtype dtype);

/* Normalize `axis` for rank r into [0, r): CLG_ERROR_INVALID_AXIS otherwise. */
clg_status clg__normalize_axis(int64_t axis, int32_t rank, const char *what,
                               int32_t *out);

/* The out-of-bounds message (CLG_ERROR_INDEX_OUT_OF_BOUNDS) for `value` at
 * flat position `pos` of indices (rank idx_rank, shape idx_shape), bounded
 * by axis `axis` of data, of size s: names the flat position, the position in
 * indices' shape, the value, the axis, its size and the valid range. */
clg_status clg__report_index_oob(size_t pos, int64_t value, int32_t idx_rank,
                                 const int64_t *idx_shape, int64_t s,
                                 int32_t axis);

/* The flat position of the first of `count` int32/int64 values (index_size
 * 4/8) outside [-s[j], s[j] - 1], j = position % period, or `count` if every
 * value is in range (the fast scan below, with up to `max_threads`, then a
 * second pass on failure). */
size_t clg__first_index_out_of_range(const void *values, size_t index_size,
                                     size_t count, const int64_t *s,
                                     size_t period, size_t max_threads);

/* Is any of `count` int32/int64 values (index_size 4/8, at any byte
 * address) outside [-s[j], s[j] - 1], j = position % period (period in
 * [1, CLG_MAX_RANK], s[j] >= 0)? Exact. Branch-free and vectorized; large
 * arrays are split across clg__scan_threads(bytes, max_threads) threads,
 * the calling thread one of them, the others started and joined here
 * (falling back to the calling thread when one cannot be created). */
bool clg__any_index_out_of_range(const void *values, size_t index_size,
                                 size_t count, const int64_t *s, size_t period,
                                 size_t max_threads);
/* The threads a scan of `bytes` of index values uses: 1 below twice
 * CLG_SCAN_SPLIT_BYTES (16 MiB), else one per online CPU, at most one per
 * 8 MiB, CLG_SCAN_MAX_THREADS (8) and `max_threads` (0: no bound of its
 * own; 1: the calling thread only). */
size_t clg__scan_threads(size_t bytes, size_t max_threads);
/* Element i of an int32 (index_size 4) or int64 array at any byte address. */
int64_t clg__index_at(const void *values, size_t index_size, size_t i);

/* Normalise a batch_dims in [-q, q] (negative counts from q). */
clg_status clg__normalize_batch_dims(int64_t batch_dims, int32_t indices_rank,
                                     int32_t *out);

/* The first `b` dims of data and indices are equal, else
 * CLG_ERROR_INCOMPATIBLE_SHAPES naming the first that differs. */
clg_status clg__check_batch_shapes(const char *op, int32_t b,
                                   const int64_t *data_shape,
                                   const int64_t *indices_shape);

#endif /* CLGATHER_HOST_CHECK_H */
