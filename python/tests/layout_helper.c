/*
 * The C side of python/tests/test_layout.py: the layout of every structure
 * the ctypes code of the Python package mirrors (python/clgather/_lib.py),
 * and the values of the constants it copies from clgather.h, as the C
 * compiler sees them. One record per line, fields separated by one space:
 *
 *   struct NAME SIZE ALIGN
 *   field STRUCT NAME OFFSET SIZE      (in declaration order)
 *   const NAME VALUE
 *
 * Built by python/CMakeLists.txt with the library's include directories
 * only; it calls nothing in the library.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>

#include <clgather/clgather.h>

#define STRUCT(T)                                                              \
  printf("struct %s %zu %zu\n", #T, sizeof(T), (size_t)alignof(T))
#define FIELD(T, f)                                                            \
  printf("field %s %s %zu %zu\n", #T, #f, offsetof(T, f), sizeof(((T *)0)->f))
#define CONST(c) printf("const %s %lld\n", #c, (long long)(c))

int main(void) {
  STRUCT(clg_tensor);
  FIELD(clg_tensor, dtype);
  FIELD(clg_tensor, rank);
  FIELD(clg_tensor, shape);
  FIELD(clg_tensor, storage);
  FIELD(clg_tensor, host);
  FIELD(clg_tensor, buffer);
  FIELD(clg_tensor, offset);

  STRUCT(clg_strided_tensor);
  FIELD(clg_strided_tensor, tensor);
  FIELD(clg_strided_tensor, strides);

  STRUCT(clg_params);
  FIELD(clg_params, op);
  FIELD(clg_params, axis);
  FIELD(clg_params, batch_dims);
  FIELD(clg_params, mode);

  STRUCT(clg_scatter_params);
  FIELD(clg_scatter_params, reduction);
  FIELD(clg_scatter_params, duplicates);

  STRUCT(clg_bag_params);
  FIELD(clg_bag_params, mode);
  FIELD(clg_bag_params, form);
  FIELD(clg_bag_params, flags);
  FIELD(clg_bag_params, weight_format); /* = reserved: one union */
  FIELD(clg_bag_params, padding_idx);

  STRUCT(clg_gbq_params);
  FIELD(clg_gbq_params, gather_axis);
  FIELD(clg_gbq_params, quantize_axis);
  FIELD(clg_gbq_params, block_size);
  FIELD(clg_gbq_params, bits);
  FIELD(clg_gbq_params, kind);
  FIELD(clg_gbq_params, reserved);

  CONST(CLG_MAX_RANK);
  CONST(CLG_STORAGE_HOST);
  CONST(CLG_STORAGE_BUFFER);
  CONST(CLG_STORAGE_HOST_STRIDED);
  CONST(CLG_STORAGE_BUFFER_STRIDED);
  CONST(CLG_OP_GATHER);
  CONST(CLG_OP_GATHER_ELEMENTS);
  CONST(CLG_OP_GATHER_ND);
  CONST(CLG_OP_SCATTER_ELEMENTS);
  CONST(CLG_OP_SCATTER_ND);
  CONST(CLG_MODE_RAISE);
  CONST(CLG_MODE_WRAP);
  CONST(CLG_MODE_CLIP);
  CONST(CLG_REDUCTION_NONE);
  CONST(CLG_REDUCTION_ADD);
  CONST(CLG_REDUCTION_MUL);
  CONST(CLG_REDUCTION_MIN);
  CONST(CLG_REDUCTION_MAX);
  CONST(CLG_DUPLICATES_ERROR);
  CONST(CLG_DUPLICATES_LAST);
  CONST(CLG_BAG_SUM);
  CONST(CLG_BAG_MEAN);
  CONST(CLG_BAG_MAX);
  CONST(CLG_BAG_SQRT_N);
  CONST(CLG_BAGS_OFFSETS);
  CONST(CLG_BAGS_FIXED);
  CONST(CLG_BAGS_SEGMENT_IDS);
  CONST(CLG_BAG_INCLUDE_LAST_OFFSET);
  CONST(CLG_BAG_PADDING_IDX);
  CONST(CLG_GBQ_UINT8);
  CONST(CLG_GBQ_UINT4);
  CONST(CLG_GBQ_INT4);

  CONST(CLG_DTYPE_FLOAT);
  CONST(CLG_DTYPE_UINT8);
  CONST(CLG_DTYPE_INT8);
  CONST(CLG_DTYPE_UINT16);
  CONST(CLG_DTYPE_INT16);
  CONST(CLG_DTYPE_INT32);
  CONST(CLG_DTYPE_INT64);
  CONST(CLG_DTYPE_BOOL);
  CONST(CLG_DTYPE_FLOAT16);
  CONST(CLG_DTYPE_DOUBLE);
  CONST(CLG_DTYPE_UINT32);
  CONST(CLG_DTYPE_UINT64);
  CONST(CLG_DTYPE_COMPLEX64);
  CONST(CLG_DTYPE_COMPLEX128);
  CONST(CLG_DTYPE_BFLOAT16);

  CONST(CLG_SUCCESS);
  CONST(CLG_ERROR_NULL_ARGUMENT);
  CONST(CLG_ERROR_INVALID_ARGUMENT);
  CONST(CLG_ERROR_INVALID_RANK);
  CONST(CLG_ERROR_INVALID_SHAPE);
  CONST(CLG_ERROR_INVALID_AXIS);
  CONST(CLG_ERROR_UNSUPPORTED_DTYPE);
  CONST(CLG_ERROR_INVALID_INDICES_DTYPE);
  CONST(CLG_ERROR_DTYPE_MISMATCH);
  CONST(CLG_ERROR_SHAPE_MISMATCH);
  CONST(CLG_ERROR_SIZE_OVERFLOW);
  CONST(CLG_ERROR_BUFFER_TOO_SMALL);
  CONST(CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  CONST(CLG_ERROR_NO_DEVICE);
  CONST(CLG_ERROR_OPENCL);
  CONST(CLG_ERROR_BUILD_FAILED);
  CONST(CLG_ERROR_OUT_OF_HOST_MEMORY);
  CONST(CLG_ERROR_INVALID_BATCH_DIMS);
  CONST(CLG_ERROR_INCOMPATIBLE_SHAPES);
  CONST(CLG_ERROR_DUPLICATE_INDEX);
  CONST(CLG_ERROR_INTERNAL);
  CONST(CLG_ERROR_INVALID_BAGS);
  return 0;
}
