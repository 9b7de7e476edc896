/* Moving tensors to and from the device, and launching kernels on the
 * caller's command queue. */
#include "internal.h"

#include <stdio.h>

clg_status clg__check_wait_list(cl_uint num_events, const cl_event *wait_list) {
  if ((num_events == 0) != (wait_list == NULL))
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "event wait list: num_events is %u but wait_list is %s",
                     (unsigned)num_events, wait_list ? "not NULL" : "NULL");
  for (cl_uint i = 0; i < num_events; ++i)
    if (!wait_list[i])
      return clg__fail(CLG_ERROR_NULL_ARGUMENT, "wait_list[%u] is NULL",
                       (unsigned)i);
  return CLG_SUCCESS;
}

clg_status clg__resolve_queue(clg_context *ctx, cl_command_queue queue,
                              cl_command_queue *out) {
  if (!queue) {
    *out = clg_context_queue(ctx);
    return *out ? CLG_SUCCESS : CLG_ERROR_OPENCL; /* message already set */
  }
  cl_context qctx = NULL;
  cl_device_id qdev = NULL;
  cl_int err =
      clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
  if (err == CL_SUCCESS)
    err =
        clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clGetCommandQueueInfo", "checking the queue");
  if (qctx != ctx->cl_ctx || qdev != ctx->device)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "the command queue belongs to another %s than the "
                     "clg_context's",
                     qctx != ctx->cl_ctx ? "cl_context" : "device");
  *out = queue;
  return CLG_SUCCESS;
}

clg_status clg__stage_input(clg_context *ctx, const clg_tensor *t, size_t bytes,
                            const char *name, clg_staged *out) {
  out->mem = NULL;
  out->offset = 0;
  out->temporary = false;
  if (t->storage == CLG_STORAGE_BUFFER) {
    out->mem = t->buffer;
    out->offset = t->offset;
    return CLG_SUCCESS;
  }
  if (bytes == 0)
    return CLG_SUCCESS; /* nothing will read it */
  cl_int err = CL_SUCCESS;
  out->mem =
      clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                     bytes, t->host, &err);
  if (!out->mem) {
    char what[96];
    snprintf(what, sizeof what, "copying %zu bytes of host %s to the device",
             bytes, name);
    return clg__fail_cl(err, "clCreateBuffer", what);
  }
  out->temporary = true;
  return CLG_SUCCESS;
}

clg_status clg__stage_output(clg_context *ctx, const clg_tensor *t,
                             size_t bytes, clg_staged *out) {
  out->mem = NULL;
  out->offset = 0;
  out->temporary = false;
  if (t->storage == CLG_STORAGE_BUFFER) {
    out->mem = t->buffer;
    out->offset = t->offset;
    return CLG_SUCCESS;
  }
  if (bytes == 0)
    return CLG_SUCCESS;
  cl_int err = CL_SUCCESS;
  out->mem = clCreateBuffer(ctx->cl_ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
  if (!out->mem) {
    char what[96];
    snprintf(what, sizeof what, "allocating %zu bytes of device output", bytes);
    return clg__fail_cl(err, "clCreateBuffer", what);
  }
  out->temporary = true;
  return CLG_SUCCESS;
}

void clg__unstage(clg_staged *s) {
  if (s->temporary && s->mem)
    clReleaseMemObject(s->mem);
  s->mem = NULL;
  s->temporary = false;
}

clg_status clg__read_buffer(cl_command_queue queue, const clg_tensor *t,
                            size_t bytes, void *dst, cl_uint num_events,
                            const cl_event *wait_list, const char *what) {
  cl_int err = clEnqueueReadBuffer(queue, t->buffer, CL_TRUE, t->offset, bytes,
                                   dst, num_events, wait_list, NULL);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clEnqueueReadBuffer", what);
  return CLG_SUCCESS;
}

clg_status clg__launch(clg_kernel_entry *k, cl_command_queue queue,
                       cl_uint nargs, const size_t *sizes,
                       const void *const *values, cl_uint work_dim,
                       const size_t *global, const size_t *local,
                       cl_uint num_events, const cl_event *wait_list,
                       cl_event *event) {
  pthread_mutex_lock(&k->lock);
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < nargs && err == CL_SUCCESS; ++i)
    err = clSetKernelArg(k->kernel, i, sizes[i], values[i]);
  if (err != CL_SUCCESS) {
    pthread_mutex_unlock(&k->lock);
    return clg__fail_cl(err, "clSetKernelArg", k->name);
  }
  err = clEnqueueNDRangeKernel(queue, k->kernel, work_dim, NULL, global, local,
                               num_events, wait_list, event);
  pthread_mutex_unlock(&k->lock);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clEnqueueNDRangeKernel", k->name);
  return CLG_SUCCESS;
}
