/* Status codes, their names, and the calling thread's error message. */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>

/* Long enough for a build log excerpt; longer messages are truncated. */
#define CLG_MESSAGE_CAP 8192

static _Thread_local char clg_message[CLG_MESSAGE_CAP];

const char *clg_status_string(clg_status status) {
  switch (status) {
  case CLG_SUCCESS: return "success";
  case CLG_ERROR_NULL_ARGUMENT: return "null argument";
  case CLG_ERROR_INVALID_ARGUMENT: return "invalid argument";
  case CLG_ERROR_INVALID_RANK: return "invalid rank";
  case CLG_ERROR_INVALID_SHAPE: return "invalid shape";
  case CLG_ERROR_INVALID_AXIS: return "invalid axis";
  case CLG_ERROR_UNSUPPORTED_DTYPE: return "unsupported element type";
  case CLG_ERROR_INVALID_INDICES_DTYPE: return "invalid indices element type";
  case CLG_ERROR_DTYPE_MISMATCH: return "element type mismatch";
  case CLG_ERROR_SHAPE_MISMATCH: return "output shape mismatch";
  case CLG_ERROR_SIZE_OVERFLOW: return "size overflow";
  case CLG_ERROR_BUFFER_TOO_SMALL: return "buffer too small";
  case CLG_ERROR_INDEX_OUT_OF_BOUNDS: return "index out of bounds";
  case CLG_ERROR_NO_DEVICE: return "no OpenCL device";
  case CLG_ERROR_OPENCL: return "OpenCL error";
  case CLG_ERROR_BUILD_FAILED: return "kernel build failed";
  case CLG_ERROR_OUT_OF_HOST_MEMORY: return "out of host memory";
  case CLG_ERROR_INVALID_BATCH_DIMS: return "invalid batch_dims";
  case CLG_ERROR_INCOMPATIBLE_SHAPES: return "incompatible shapes";
  case CLG_ERROR_DUPLICATE_INDEX: return "duplicate index";
  case CLG_ERROR_INTERNAL: return "internal error";
  case CLG_ERROR_INVALID_BAGS: return "invalid bags";
  }
  return "unknown status";
}

const char *clg_last_error(void) { return clg_message; }

clg_status clg__ok(void) {
  clg_message[0] = '\0';
  return CLG_SUCCESS;
}

clg_status clg__fail(clg_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(clg_message, sizeof clg_message, fmt, ap);
  va_end(ap);
  return status;
}

const char *clg__cl_error_name(cl_int err) {
  switch (err) {
#define CLG_CL_ERR(e)                                                          \
  case e: return #e;
    CLG_CL_ERR(CL_SUCCESS)
    CLG_CL_ERR(CL_DEVICE_NOT_FOUND)
    CLG_CL_ERR(CL_DEVICE_NOT_AVAILABLE)
    CLG_CL_ERR(CL_COMPILER_NOT_AVAILABLE)
    CLG_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    CLG_CL_ERR(CL_OUT_OF_RESOURCES)
    CLG_CL_ERR(CL_OUT_OF_HOST_MEMORY)
    CLG_CL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE)
    CLG_CL_ERR(CL_MEM_COPY_OVERLAP)
    CLG_CL_ERR(CL_IMAGE_FORMAT_MISMATCH)
    CLG_CL_ERR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    CLG_CL_ERR(CL_BUILD_PROGRAM_FAILURE)
    CLG_CL_ERR(CL_MAP_FAILURE)
    CLG_CL_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CLG_CL_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    CLG_CL_ERR(CL_COMPILE_PROGRAM_FAILURE)
    CLG_CL_ERR(CL_LINKER_NOT_AVAILABLE)
    CLG_CL_ERR(CL_LINK_PROGRAM_FAILURE)
    CLG_CL_ERR(CL_DEVICE_PARTITION_FAILED)
    CLG_CL_ERR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    CLG_CL_ERR(CL_INVALID_VALUE)
    CLG_CL_ERR(CL_INVALID_DEVICE_TYPE)
    CLG_CL_ERR(CL_INVALID_PLATFORM)
    CLG_CL_ERR(CL_INVALID_DEVICE)
    CLG_CL_ERR(CL_INVALID_CONTEXT)
    CLG_CL_ERR(CL_INVALID_QUEUE_PROPERTIES)
    CLG_CL_ERR(CL_INVALID_COMMAND_QUEUE)
    CLG_CL_ERR(CL_INVALID_HOST_PTR)
    CLG_CL_ERR(CL_INVALID_MEM_OBJECT)
    CLG_CL_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    CLG_CL_ERR(CL_INVALID_IMAGE_SIZE)
    CLG_CL_ERR(CL_INVALID_SAMPLER)
    CLG_CL_ERR(CL_INVALID_BINARY)
    CLG_CL_ERR(CL_INVALID_BUILD_OPTIONS)
    CLG_CL_ERR(CL_INVALID_PROGRAM)
    CLG_CL_ERR(CL_INVALID_PROGRAM_EXECUTABLE)
    CLG_CL_ERR(CL_INVALID_KERNEL_NAME)
    CLG_CL_ERR(CL_INVALID_KERNEL_DEFINITION)
    CLG_CL_ERR(CL_INVALID_KERNEL)
    CLG_CL_ERR(CL_INVALID_ARG_INDEX)
    CLG_CL_ERR(CL_INVALID_ARG_VALUE)
    CLG_CL_ERR(CL_INVALID_ARG_SIZE)
    CLG_CL_ERR(CL_INVALID_KERNEL_ARGS)
    CLG_CL_ERR(CL_INVALID_WORK_DIMENSION)
    CLG_CL_ERR(CL_INVALID_WORK_GROUP_SIZE)
    CLG_CL_ERR(CL_INVALID_WORK_ITEM_SIZE)
    CLG_CL_ERR(CL_INVALID_GLOBAL_OFFSET)
    CLG_CL_ERR(CL_INVALID_EVENT_WAIT_LIST)
    CLG_CL_ERR(CL_INVALID_EVENT)
    CLG_CL_ERR(CL_INVALID_OPERATION)
    CLG_CL_ERR(CL_INVALID_GL_OBJECT)
    CLG_CL_ERR(CL_INVALID_BUFFER_SIZE)
    CLG_CL_ERR(CL_INVALID_MIP_LEVEL)
    CLG_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
    CLG_CL_ERR(CL_INVALID_PROPERTY)
    CLG_CL_ERR(CL_INVALID_IMAGE_DESCRIPTOR)
    CLG_CL_ERR(CL_INVALID_COMPILER_OPTIONS)
    CLG_CL_ERR(CL_INVALID_LINKER_OPTIONS)
    CLG_CL_ERR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef CLG_CL_ERR
  case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
  }
  return "unknown OpenCL error";
}

clg_status clg__fail_cl(cl_int err, const char *call, const char *what) {
  return clg__fail(CLG_ERROR_OPENCL, "%s failed: %s (%d) while %s", call,
                   clg__cl_error_name(err), (int)err, what);
}

void clg__format_shape(char *buf, size_t cap, int32_t rank,
                       const int64_t *shape) {
  size_t used = 0;
  int n = snprintf(buf, cap, "[");
  used = n > 0 ? (size_t)n : 0;
  for (int32_t i = 0; i < rank && used < cap; ++i) {
    n = snprintf(buf + used, cap - used, "%s%lld", i ? ", " : "",
                 (long long)shape[i]);
    used += n > 0 ? (size_t)n : 0;
  }
  if (used < cap)
    snprintf(buf + used, cap - used, "]");
}
