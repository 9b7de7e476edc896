/* ONNX Gather (opsets 1, 11, 13): output shape inference, validation order,
 * and execution. */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

clg_status clg_gather_output_shape(int32_t data_rank, const int64_t *data_shape,
                                   int32_t indices_rank,
                                   const int64_t *indices_shape, int64_t axis,
                                   int32_t *out_rank, int64_t *out_shape) {
  if (!data_shape)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data_shape is NULL");
  if (!indices_shape && indices_rank > 0)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                     "indices_shape is NULL but indices_rank is %d",
                     (int)indices_rank);
  if (!out_rank)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "out_rank is NULL");
  if (!out_shape)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "out_shape is NULL");
  if (data_rank < 1 || data_rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; Gather needs data of rank in [1, %d]",
                     (int)data_rank, CLG_MAX_RANK);
  if (indices_rank < 0 || indices_rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "indices has rank %d; ranks must be in [0, %d]",
                     (int)indices_rank, CLG_MAX_RANK);
  for (int32_t i = 0; i < data_rank; ++i)
    if (data_shape[i] < 0)
      return clg__fail(CLG_ERROR_INVALID_SHAPE,
                       "data has a negative dimension: shape[%d] = %" PRId64,
                       (int)i, data_shape[i]);
  for (int32_t i = 0; i < indices_rank; ++i)
    if (indices_shape[i] < 0)
      return clg__fail(CLG_ERROR_INVALID_SHAPE,
                       "indices has a negative dimension: shape[%d] = %" PRId64,
                       (int)i, indices_shape[i]);
  int32_t a = 0;
  clg_status st = clg__normalize_axis(axis, data_rank, "axis", &a);
  if (st != CLG_SUCCESS)
    return st;
  int32_t rank = data_rank - 1 + indices_rank;
  if (rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "the output would have rank %d (data rank %d - 1 + "
                     "indices rank %d), above the limit %d",
                     (int)rank, (int)data_rank, (int)indices_rank,
                     CLG_MAX_RANK);
  int32_t r = 0;
  for (int32_t i = 0; i < a; ++i)
    out_shape[r++] = data_shape[i];
  for (int32_t i = 0; i < indices_rank; ++i)
    out_shape[r++] = indices_shape[i];
  for (int32_t i = a + 1; i < data_rank; ++i)
    out_shape[r++] = data_shape[i];
  *out_rank = rank;
  return clg__ok();
}

/* Data, indices and axis: everything but index values and the output. */
static clg_status clg_gather_check_inputs(clg_context *ctx,
                                          const clg_tensor *data,
                                          const clg_tensor *indices,
                                          int64_t axis, int32_t *axis_out,
                                          clg_tensor_facts *df,
                                          clg_tensor_facts *xf) {
  clg_status st;
  if ((st = clg__check_data_dtype("data", data->dtype)) != CLG_SUCCESS ||
      (st = clg__check_index_dtype(indices->dtype)) != CLG_SUCCESS)
    return st;
  if (data->rank < 1)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; Gather needs data of rank >= 1",
                     (int)data->rank);
  if ((st = clg__check_tensor(ctx, "data", data, clg_dtype_size(data->dtype),
                              df)) != CLG_SUCCESS ||
      (st = clg__check_tensor(ctx, "indices", indices,
                              clg_dtype_size(indices->dtype), xf)) !=
          CLG_SUCCESS)
    return st;
  if ((st = clg__normalize_axis(axis, data->rank, "axis", axis_out)) !=
      CLG_SUCCESS)
    return st;
  if (indices->storage == CLG_STORAGE_BUFFER &&
      indices->offset % xf->elem_size != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "indices->offset %zu is not a multiple of the index size "
                     "%zu bytes",
                     indices->offset, xf->elem_size);
  return CLG_SUCCESS;
}

/* The output against validated inputs: type, shape, size, no aliasing. */
static clg_status
clg_gather_check_output(clg_context *ctx, const clg_tensor *data,
                        const clg_tensor *indices, int32_t axis,
                        const clg_tensor *output, const clg_tensor_facts *df,
                        const clg_tensor_facts *xf, clg_tensor_facts *of) {
  clg_status st;
  if (output->dtype != data->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "output has element type %s but data has %s; Gather "
                     "output must have data's type",
                     clg_dtype_name(output->dtype),
                     clg_dtype_name(data->dtype));
  int32_t want_rank = 0;
  int64_t want[CLG_MAX_RANK];
  if ((st = clg_gather_output_shape(data->rank, data->shape, indices->rank,
                                    indices->shape, axis, &want_rank, want)) !=
      CLG_SUCCESS)
    return st;
  if ((st = clg__check_tensor(ctx, "output", output, df->elem_size, of)) !=
      CLG_SUCCESS)
    return st;
  bool same = output->rank == want_rank;
  for (int32_t i = 0; same && i < want_rank; ++i)
    same = output->shape[i] == want[i];
  if (!same) {
    char got[512], exp[512];
    clg__format_shape(got, sizeof got, output->rank, output->shape);
    clg__format_shape(exp, sizeof exp, want_rank, want);
    return clg__fail(CLG_ERROR_SHAPE_MISMATCH,
                     "output has shape %s but Gather on axis %d produces %s",
                     got, (int)axis, exp);
  }
  if ((st = clg__check_no_overlap("data", data, df->bytes, output,
                                  of->bytes)) != CLG_SUCCESS ||
      (st = clg__check_no_overlap("indices", indices, xf->bytes, output,
                                  of->bytes)) != CLG_SUCCESS)
    return st;
  return CLG_SUCCESS;
}

/* Host copy of the index values: the caller's memory, or a read-back. */
static clg_status clg_gather_index_values(cl_command_queue queue,
                                          const clg_tensor *indices,
                                          size_t bytes, cl_uint num_events,
                                          const cl_event *wait_list,
                                          const void **values, void **owned) {
  *owned = NULL;
  if (indices->storage == CLG_STORAGE_HOST || bytes == 0) {
    *values = indices->host;
    return CLG_SUCCESS;
  }
  void *copy = CLG_MALLOC(bytes);
  if (!copy)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory reading back %zu bytes of indices",
                     bytes);
  clg_status st =
      clg__read_buffer(queue, indices, bytes, copy, num_events, wait_list,
                       "reading back indices to check "
                       "their bounds");
  if (st != CLG_SUCCESS) {
    free(copy);
    return st;
  }
  *values = copy;
  *owned = copy;
  return CLG_SUCCESS;
}

/* The bounds pass: every index value, before anything is enqueued. */
static clg_status
clg_gather_check_bounds(cl_command_queue queue, const clg_tensor *data,
                        const clg_tensor *indices, int32_t axis,
                        const clg_tensor_facts *xf, cl_uint num_events,
                        const cl_event *wait_list) {
  const void *values = NULL;
  void *owned = NULL;
  clg_status st = clg_gather_index_values(queue, indices, xf->bytes, num_events,
                                          wait_list, &values, &owned);
  if (st != CLG_SUCCESS)
    return st;
  st = clg__check_index_bounds(values, xf->elem_size, xf->count, indices->rank,
                               indices->shape, data->shape[axis], axis);
  free(owned);
  return st;
}

/* Arguments every Gather entry point takes. */
static clg_status clg_gather_check_common(clg_context *ctx,
                                          const clg_tensor *data,
                                          const clg_tensor *indices,
                                          cl_uint num_events,
                                          const cl_event *wait_list) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  if (!data)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data is NULL");
  if (!indices)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  return clg__check_wait_list(num_events, wait_list);
}

/* Nothing to copy: an event that completes after the wait list. */
static clg_status clg_gather_empty(cl_command_queue queue, cl_uint num_events,
                                   const cl_event *wait_list, cl_event *event) {
  if (!event)
    return clg__ok();
  cl_int err = clEnqueueMarkerWithWaitList(queue, num_events, wait_list, event);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                        "completing an empty gather");
  return clg__ok();
}

static clg_status
clg_gather_run(clg_context *ctx, const clg_gather_plan *plan,
               const clg_tensor *data, const clg_tensor *indices,
               const clg_tensor *output, const clg_tensor_facts *df,
               const clg_tensor_facts *xf, const clg_tensor_facts *of,
               cl_command_queue queue, cl_uint num_events,
               const cl_event *wait_list, cl_event *event) {
  char options[128];
  snprintf(options, sizeof options,
           "-DCLG_UNIT=%s -DCLG_INDEX=%s -DCLG_ROWS_PER_ITEM=%d",
           clg__unit_type(plan->unit_bytes),
           plan->index_bytes == 4 ? "int" : "long", CLG_SMALL_ROWS_PER_ITEM);
  const char *kname = plan->variant == CLG_VARIANT_ROWS ? "clg_gather_rows"
                                                        : "clg_gather_small";
  clg_kernel_entry *kernel = NULL;
  clg_status st =
      clg__get_kernel(ctx, clg_kernel_gather, options, kname, &kernel);
  if (st != CLG_SUCCESS)
    return st;

  clg_staged d = {0}, x = {0}, o = {0};
  if ((st = clg__stage_input(ctx, data, df->bytes, "data", &d)) !=
          CLG_SUCCESS ||
      (st = clg__stage_input(ctx, indices, xf->bytes, "indices", &x)) !=
          CLG_SUCCESS ||
      (st = clg__stage_output(ctx, output, of->bytes, &o)) != CLG_SUCCESS) {
    clg__unstage(&d);
    clg__unstage(&x);
    clg__unstage(&o);
    return st;
  }

  cl_ulong data_off = d.offset / plan->unit_bytes;
  cl_ulong idx_off = x.offset / plan->index_bytes;
  cl_ulong out_off = o.offset / plan->unit_bytes;
  cl_ulong n = plan->n, s = plan->s, inner = plan->inner, rows = plan->rows;
  const void *values[] = {&d.mem,   &data_off, &x.mem, &idx_off, &o.mem,
                          &out_off, &n,        &s,     &inner,   &rows};
  const size_t sizes[] = {sizeof(cl_mem), sizeof data_off, sizeof(cl_mem),
                          sizeof idx_off, sizeof(cl_mem),  sizeof out_off,
                          sizeof n,       sizeof s,        sizeof inner,
                          sizeof rows};
  cl_uint nargs = plan->variant == CLG_VARIANT_ROWS ? 9 : 10;

  bool blocking = data->storage == CLG_STORAGE_HOST ||
                  indices->storage == CLG_STORAGE_HOST ||
                  output->storage == CLG_STORAGE_HOST;
  cl_event kevent = NULL;
  st = clg__launch(kernel, queue, nargs, sizes, values, plan->work_dim,
                   plan->global, plan->local, num_events, wait_list, &kevent);
  if (st == CLG_SUCCESS && output->storage == CLG_STORAGE_HOST) {
    cl_event revent = NULL;
    cl_int err = clEnqueueReadBuffer(queue, o.mem, CL_TRUE, 0, of->bytes,
                                     output->host, 1, &kevent, &revent);
    clReleaseEvent(kevent);
    kevent = revent;
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clEnqueueReadBuffer",
                        "reading the output back to host memory");
  } else if (st == CLG_SUCCESS && blocking) {
    cl_int err = clWaitForEvents(1, &kevent);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clWaitForEvents", "waiting for the gather");
  }
  clg__unstage(&d);
  clg__unstage(&x);
  clg__unstage(&o);
  if (st != CLG_SUCCESS) {
    if (kevent)
      clReleaseEvent(kevent);
    return st;
  }
  if (event)
    *event = kevent;
  else
    clReleaseEvent(kevent);
  return clg__ok();
}

clg_status clg_gather_validate(clg_context *ctx, const clg_tensor *data,
                               const clg_tensor *indices, int64_t axis,
                               cl_command_queue queue, cl_uint num_events,
                               const cl_event *wait_list) {
  if (!data)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data is NULL");
  if (!indices)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  /* Host inputs need no device: ctx may be NULL for them. */
  if (!ctx && (data->storage == CLG_STORAGE_BUFFER ||
               indices->storage == CLG_STORAGE_BUFFER))
    return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                     "ctx is NULL, but data or indices is a cl_mem");
  clg_status st = clg__check_wait_list(num_events, wait_list);
  int32_t a = 0;
  clg_tensor_facts df, xf;
  if (st != CLG_SUCCESS ||
      (st = clg_gather_check_inputs(ctx, data, indices, axis, &a, &df, &xf)) !=
          CLG_SUCCESS)
    return st;
  if (indices->storage == CLG_STORAGE_BUFFER &&
      (st = clg__resolve_queue(ctx, queue, &queue)) != CLG_SUCCESS)
    return st;
  if ((st = clg_gather_check_bounds(queue, data, indices, a, &xf, num_events,
                                    wait_list)) != CLG_SUCCESS)
    return st;
  return clg__ok();
}

clg_status clg_gather(clg_context *ctx, const clg_tensor *data,
                      const clg_tensor *indices, int64_t axis,
                      const clg_tensor *output, cl_command_queue queue,
                      cl_uint num_events, const cl_event *wait_list,
                      cl_event *event) {
  clg_status st =
      clg_gather_check_common(ctx, data, indices, num_events, wait_list);
  if (st != CLG_SUCCESS)
    return st;
  if (!output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  int32_t a = 0;
  clg_tensor_facts df, xf, of;
  if ((st = clg_gather_check_inputs(ctx, data, indices, axis, &a, &df, &xf)) !=
          CLG_SUCCESS ||
      (st = clg_gather_check_output(ctx, data, indices, a, output, &df, &xf,
                                    &of)) != CLG_SUCCESS ||
      (st = clg__resolve_queue(ctx, queue, &queue)) != CLG_SUCCESS ||
      (st = clg_gather_check_bounds(queue, data, indices, a, &xf, num_events,
                                    wait_list)) != CLG_SUCCESS)
    return st;

  if (of.bytes == 0)
    return clg_gather_empty(queue, num_events, wait_list, event);

  uint64_t outer = 1, slice = df.elem_size;
  for (int32_t i = 0; i < a; ++i)
    outer *= (uint64_t)data->shape[i];
  for (int32_t i = a + 1; i < data->rank; ++i)
    slice *= (uint64_t)data->shape[i];
  size_t data_align = data->storage == CLG_STORAGE_BUFFER ? data->offset : 0;
  size_t out_align = output->storage == CLG_STORAGE_BUFFER ? output->offset : 0;
  clg_gather_plan plan;
  clg__plan_gather(&plan, outer, (uint64_t)data->shape[a], xf.count, slice,
                   xf.elem_size, data_align, out_align,
                   ctx->max_work_group_size);
  return clg_gather_run(ctx, &plan, data, indices, output, &df, &xf, &of, queue,
                        num_events, wait_list, event);
}
