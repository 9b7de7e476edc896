/* Validation of everything a caller passes in: descriptors, element types,
 * axis, sizes, buffers, and the index-bounds pass. Nothing here touches the
 * output. */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

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
  if (t->offset > size || facts->bytes > size - t->offset)
    return clg__fail(CLG_ERROR_BUFFER_TOO_SMALL,
                     "%s->buffer holds %zu bytes, but offset %zu + %zu bytes "
                     "of %s are needed",
                     name, size, t->offset, facts->bytes, name);
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

/* Compose the out-of-bounds message for the value at flat position `pos`. */
static clg_status clg_report_oob(size_t pos, int64_t value, int32_t idx_rank,
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

/* One branch-free min/max pass per index type: vectorizes. */
#define CLG_DEFINE_MINMAX(NAME, T)                                             \
  static void NAME(const T *v, size_t n, int64_t *lo, int64_t *hi) {           \
    T mn = v[0], mx = v[0];                                                    \
    for (size_t i = 1; i < n; ++i) {                                           \
      mn = v[i] < mn ? v[i] : mn;                                              \
      mx = v[i] > mx ? v[i] : mx;                                              \
    }                                                                          \
    *lo = mn;                                                                  \
    *hi = mx;                                                                  \
  }
CLG_DEFINE_MINMAX(clg_minmax_i32, int32_t)
CLG_DEFINE_MINMAX(clg_minmax_i64, int64_t)

clg_status clg__check_index_bounds(const void *indices, size_t index_size,
                                   size_t count, int32_t idx_rank,
                                   const int64_t *idx_shape, int64_t s,
                                   int32_t axis) {
  if (count == 0)
    return CLG_SUCCESS;
  int64_t lo = 0, hi = 0;
  if (index_size == 4)
    clg_minmax_i32(indices, count, &lo, &hi);
  else
    clg_minmax_i64(indices, count, &lo, &hi);
  if (lo >= -s && hi <= s - 1)
    return CLG_SUCCESS;
  /* Failure only: a second scan finds the first offender for the message. */
  for (size_t i = 0; i < count; ++i) {
    int64_t k = index_size == 4 ? ((const int32_t *)indices)[i]
                                : ((const int64_t *)indices)[i];
    if (k < -s || k > s - 1)
      return clg_report_oob(i, k, idx_rank, idx_shape, s, axis);
  }
  return CLG_SUCCESS; /* unreachable */
}
