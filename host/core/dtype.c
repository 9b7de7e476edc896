/* Element types (ONNX TensorProto.DataType numbering) and tensor
 * descriptors. */
#include "core/core.h"

#include <string.h>

size_t clg_dtype_size(clg_dtype dtype) {
  switch (dtype) {
  case CLG_DTYPE_BOOL:
  case CLG_DTYPE_INT8:
  case CLG_DTYPE_UINT8: return 1;
  case CLG_DTYPE_FLOAT16:
  case CLG_DTYPE_BFLOAT16:
  case CLG_DTYPE_INT16:
  case CLG_DTYPE_UINT16: return 2;
  case CLG_DTYPE_FLOAT:
  case CLG_DTYPE_INT32:
  case CLG_DTYPE_UINT32: return 4;
  case CLG_DTYPE_DOUBLE:
  case CLG_DTYPE_INT64:
  case CLG_DTYPE_UINT64:
  case CLG_DTYPE_COMPLEX64: return 8;
  case CLG_DTYPE_COMPLEX128: return 16;
  case CLG_DTYPE_UNDEFINED:
  case CLG_DTYPE_STRING: return 0;
  }
  return 0;
}

const char *clg_dtype_name(clg_dtype dtype) {
  switch (dtype) {
  case CLG_DTYPE_UNDEFINED: return "undefined";
  case CLG_DTYPE_FLOAT: return "float";
  case CLG_DTYPE_UINT8: return "uint8";
  case CLG_DTYPE_INT8: return "int8";
  case CLG_DTYPE_UINT16: return "uint16";
  case CLG_DTYPE_INT16: return "int16";
  case CLG_DTYPE_INT32: return "int32";
  case CLG_DTYPE_INT64: return "int64";
  case CLG_DTYPE_STRING: return "string";
  case CLG_DTYPE_BOOL: return "bool";
  case CLG_DTYPE_FLOAT16: return "float16";
  case CLG_DTYPE_DOUBLE: return "double";
  case CLG_DTYPE_UINT32: return "uint32";
  case CLG_DTYPE_UINT64: return "uint64";
  case CLG_DTYPE_COMPLEX64: return "complex64";
  case CLG_DTYPE_COMPLEX128: return "complex128";
  case CLG_DTYPE_BFLOAT16: return "bfloat16";
  }
  return "unknown";
}

static void clg_copy_shape(clg_tensor *t, int32_t rank, const int64_t *shape) {
  int32_t n = rank < 0 ? 0 : rank > CLG_MAX_RANK ? CLG_MAX_RANK : rank;
  if (shape && n > 0)
    memcpy(t->shape, shape, (size_t)n * sizeof *shape);
}

clg_tensor clg_tensor_host(clg_dtype dtype, int32_t rank, const int64_t *shape,
                           void *host) {
  clg_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.rank = rank;
  clg_copy_shape(&t, rank, shape);
  t.storage = CLG_STORAGE_HOST;
  t.host = host;
  return t;
}

clg_tensor clg_tensor_buffer(clg_dtype dtype, int32_t rank,
                             const int64_t *shape, cl_mem buffer,
                             size_t offset) {
  clg_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.rank = rank;
  clg_copy_shape(&t, rank, shape);
  t.storage = CLG_STORAGE_BUFFER;
  t.buffer = buffer;
  t.offset = offset;
  return t;
}

clg_strided_tensor clg_tensor_strided(const clg_tensor *dense,
                                      const int64_t *strides) {
  clg_strided_tensor v;
  memset(&v, 0, sizeof v);
  if (!dense) {
    v.tensor.storage = (clg_storage)-1; /* refused by the operator */
    return v;
  }
  v.tensor = *dense;
  if (dense->storage == CLG_STORAGE_HOST)
    v.tensor.storage = CLG_STORAGE_HOST_STRIDED;
  else if (dense->storage == CLG_STORAGE_BUFFER)
    v.tensor.storage = CLG_STORAGE_BUFFER_STRIDED;
  int32_t n = dense->rank < 0             ? 0
              : dense->rank > CLG_MAX_RANK ? CLG_MAX_RANK
                                           : dense->rank;
  if (strides && n > 0)
    memcpy(v.strides, strides, (size_t)n * sizeof *strides);
  return v;
}
