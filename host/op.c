/* The gather family's common path: parameter and argument checks, output
 * shape, staging and the read-back, shared by every
 * operator. Each operator (gather.c, gather_elements.c, gather_nd.c) supplies
 * its shape rules, its index checks and its kernel launch (clg_op_impl). */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const clg_params clg_default_params = {CLG_OP_GATHER, 0, 0,
                                              CLG_MODE_RAISE};

/* The operator's implementation, after checking the fields it takes. */
static clg_status clg_check_params(const clg_params *p,
                                   const clg_op_impl **impl) {
  switch (p->op) {
  case CLG_OP_GATHER: *impl = &clg__op_gather; break;
  case CLG_OP_GATHER_ELEMENTS: *impl = &clg__op_gather_elements; break;
  case CLG_OP_GATHER_ND: *impl = &clg__op_gather_nd; break;
  default:
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown operator %d in params->op", (int)p->op);
  }
  if (p->mode != CLG_MODE_RAISE && p->mode != CLG_MODE_WRAP &&
      p->mode != CLG_MODE_CLIP)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown index mode %d (expected CLG_MODE_RAISE, "
                     "CLG_MODE_WRAP or CLG_MODE_CLIP)",
                     (int)p->mode);
  if (p->op != CLG_OP_GATHER && p->mode != CLG_MODE_RAISE)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s takes no index mode (only RAISE): out-of-bounds "
                     "indices are errors",
                     (*impl)->name);
  if (p->op == CLG_OP_GATHER_ELEMENTS && p->batch_dims != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "GatherElements takes no batch_dims (got %" PRId64 ")",
                     p->batch_dims);
  if (p->op == CLG_OP_GATHER_ND && p->axis != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "GatherND takes no axis (got %" PRId64 ")", p->axis);
  return CLG_SUCCESS;
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

static clg_status clg_check_dims(const char *name, int32_t rank,
                                 const int64_t *shape) {
  if (rank < 0 || rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "%s has rank %d; ranks must be in [0, %d]", name,
                     (int)rank, CLG_MAX_RANK);
  for (int32_t i = 0; i < rank; ++i)
    if (shape[i] < 0)
      return clg__fail(CLG_ERROR_INVALID_SHAPE,
                       "%s has a negative dimension: shape[%d] = %" PRId64,
                       name, (int)i, shape[i]);
  return CLG_SUCCESS;
}

clg_status clg__output_shape(const clg_params *params, int32_t data_rank,
                             const int64_t *data_shape, int32_t indices_rank,
                             const int64_t *indices_shape, clg_params *norm,
                             int32_t *out_rank, int64_t *out_shape) {
  const clg_op_impl *impl = NULL;
  clg_status st = clg_check_params(params, &impl);
  if (st != CLG_SUCCESS)
    return st;
  if (data_rank < 1 || data_rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; %s needs data of rank in [1, %d]",
                     (int)data_rank, impl->name, CLG_MAX_RANK);
  if ((st = clg_check_dims("data", data_rank, data_shape)) != CLG_SUCCESS ||
      (st = clg_check_dims("indices", indices_rank, indices_shape)) !=
          CLG_SUCCESS)
    return st;
  *norm = *params;
  return impl->shape(params, data_rank, data_shape, indices_rank, indices_shape,
                     norm, out_rank, out_shape);
}

clg_status clg_output_shape(const clg_params *params, int32_t data_rank,
                            const int64_t *data_shape, int32_t indices_rank,
                            const int64_t *indices_shape, int32_t *out_rank,
                            int64_t *out_shape) {
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
  clg_params norm;
  int64_t shape[CLG_MAX_RANK];
  int32_t rank = 0;
  clg_status st = clg__output_shape(params ? params : &clg_default_params,
                                    data_rank, data_shape, indices_rank,
                                    indices_shape, &norm, &rank, shape);
  if (st != CLG_SUCCESS)
    return st;
  for (int32_t i = 0; i < rank; ++i)
    out_shape[i] = shape[i];
  *out_rank = rank;
  return clg__ok();
}

/* Arguments every entry point takes, then data, indices and params:
 * everything but index values and the output. */
static clg_status clg_check_inputs(clg_context *ctx, const clg_params *params,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   cl_uint num_events,
                                   const cl_event *wait_list, clg_checked *c) {
  if (!data)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data is NULL");
  if (!indices)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  clg_status st = clg__check_wait_list(num_events, wait_list);
  if (st != CLG_SUCCESS)
    return st;
  if (!params)
    params = &clg_default_params;
  if ((st = clg_check_params(params, &c->impl)) != CLG_SUCCESS)
    return st;
  if ((st = clg__check_data_dtype("data", data->dtype)) != CLG_SUCCESS ||
      (st = clg__check_index_dtype(indices->dtype)) != CLG_SUCCESS)
    return st;
  if (data->rank < 1)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; %s needs data of rank >= 1",
                     (int)data->rank, c->impl->name);
  if ((st = clg__check_tensor(ctx, "data", data, clg_dtype_size(data->dtype),
                              &c->df)) != CLG_SUCCESS ||
      (st = clg__check_tensor(ctx, "indices", indices,
                              clg_dtype_size(indices->dtype), &c->xf)) !=
          CLG_SUCCESS)
    return st;
  if ((st = clg__output_shape(params, data->rank, data->shape, indices->rank,
                              indices->shape, &c->norm, &c->out_rank,
                              c->out_shape)) != CLG_SUCCESS)
    return st;
  if (indices->storage == CLG_STORAGE_BUFFER &&
      indices->offset % c->xf.elem_size != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "indices->offset %zu is not a multiple of the index size "
                     "%zu bytes",
                     indices->offset, c->xf.elem_size);
  return CLG_SUCCESS;
}

/* The output against checked inputs: type, shape, size, no aliasing. */
static clg_status clg_check_output(clg_context *ctx, const clg_checked *c,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   const clg_tensor *output,
                                   clg_tensor_facts *of) {
  if (output->dtype != data->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "output has element type %s but data has %s; %s "
                     "output must have data's type",
                     clg_dtype_name(output->dtype), clg_dtype_name(data->dtype),
                     c->impl->name);
  clg_status st = clg__check_tensor(ctx, "output", output, c->df.elem_size, of);
  if (st != CLG_SUCCESS)
    return st;
  bool same = output->rank == c->out_rank;
  for (int32_t i = 0; same && i < c->out_rank; ++i)
    same = output->shape[i] == c->out_shape[i];
  if (!same) {
    char got[512], exp[512];
    clg__format_shape(got, sizeof got, output->rank, output->shape);
    clg__format_shape(exp, sizeof exp, c->out_rank, c->out_shape);
    if (c->norm.op == CLG_OP_GATHER_ND)
      return clg__fail(CLG_ERROR_SHAPE_MISMATCH,
                       "output has shape %s but GatherND with batch_dims "
                       "%" PRId64 " produces %s",
                       got, c->norm.batch_dims, exp);
    return clg__fail(CLG_ERROR_SHAPE_MISMATCH,
                     "output has shape %s but %s on axis %" PRId64
                     " produces %s",
                     got, c->impl->name, c->norm.axis, exp);
  }
  if ((st = clg__check_no_overlap("data", data, c->df.bytes, output,
                                  of->bytes)) != CLG_SUCCESS ||
      (st = clg__check_no_overlap("indices", indices, c->xf.bytes, output,
                                  of->bytes)) != CLG_SUCCESS)
    return st;
  return CLG_SUCCESS;
}

clg_status clg_validate(clg_context *ctx, const clg_params *params,
                        const clg_tensor *data, const clg_tensor *indices,
                        cl_command_queue queue, cl_uint num_events,
                        const cl_event *wait_list) {
  if (data && indices && !ctx &&
      (data->storage == CLG_STORAGE_BUFFER ||
       indices->storage == CLG_STORAGE_BUFFER))
    return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                     "ctx is NULL, but data or indices is a cl_mem");
  clg_checked c;
  clg_status st =
      clg_check_inputs(ctx, params, data, indices, num_events, wait_list, &c);
  if (st != CLG_SUCCESS)
    return st;
  if (indices->storage == CLG_STORAGE_BUFFER &&
      (st = clg__resolve_queue(ctx, queue, &queue)) != CLG_SUCCESS)
    return st;
  if ((st = clg__check_index_values(ctx, &c, queue, data, indices, num_events,
                                    wait_list)) != CLG_SUCCESS)
    return st;
  return clg__ok();
}

/* Nothing to copy: an event that completes after the wait list. */
static clg_status clg_run_empty(cl_command_queue queue, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event) {
  if (!event)
    return clg__ok();
  cl_int err = clEnqueueMarkerWithWaitList(queue, num_events, wait_list, event);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                        "completing an empty gather");
  return clg__ok();
}

/* Stage, enqueue the operator, bring a host output back, release. Host
 * storage makes the call blocking, so wrapped host memory (zero-copy
 * staging) is never used by a command after the call returns. */
static clg_status clg_run_kernels(clg_context *ctx, const clg_checked *c,
                                  clg_launch *l, cl_event *event) {
  clg_staged d = {0}, x = {0}, o = {0};
  clg_status st;
  /* OpenCL leaves buffers over overlapping host memory undefined: host
   * indices that overlap host data are copied, not wrapped. */
  bool x_may_wrap = true;
  if (l->data->storage == CLG_STORAGE_HOST &&
      l->indices->storage == CLG_STORAGE_HOST && c->df.bytes && c->xf.bytes) {
    uintptr_t d0 = (uintptr_t)l->data->host, x0 = (uintptr_t)l->indices->host;
    x_may_wrap = !(d0 < x0 + c->xf.bytes && x0 < d0 + c->df.bytes);
  }
  if ((st = clg__stage_input(ctx, l->data, c->df.bytes, c->df.elem_size, true,
                             "data", &d)) != CLG_SUCCESS ||
      (st = clg__stage_input(ctx, l->indices, c->xf.bytes, c->xf.elem_size,
                             x_may_wrap, "indices", &x)) != CLG_SUCCESS ||
      (st = clg__stage_output(ctx, l->output, l->of.bytes, l->of.elem_size,
                              &o)) != CLG_SUCCESS) {
    clg__unstage(&d);
    clg__unstage(&x);
    clg__unstage(&o);
    return st;
  }
  l->d = &d;
  l->x = &x;
  l->o = &o;
  bool blocking = l->data->storage == CLG_STORAGE_HOST ||
                  l->indices->storage == CLG_STORAGE_HOST ||
                  l->output->storage == CLG_STORAGE_HOST;
  cl_event kevent = NULL;
  st = c->impl->enqueue(ctx, &c->norm, l, &kevent);
  bool done = false; /* kevent known complete */
  if (st == CLG_SUCCESS && l->output->storage == CLG_STORAGE_HOST) {
    /* For a wrapped output this reads the buffer into its own host memory:
     * a synchronisation point only (no copy on POCL). */
    cl_event revent = NULL;
    cl_int err = clEnqueueReadBuffer(l->queue, o.mem, CL_TRUE, 0, l->of.bytes,
                                     l->output->host, 1, &kevent, &revent);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clEnqueueReadBuffer",
                        "reading the output back to host memory");
    else {
      clReleaseEvent(kevent);
      kevent = revent;
      done = true;
    }
  } else if (st == CLG_SUCCESS && blocking) {
    cl_int err = clWaitForEvents(1, &kevent);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clWaitForEvents", "waiting for the gather");
    done = err == CL_SUCCESS;
  }
  /* A failure after the kernel was enqueued: the kernel may still run on
   * the caller's wrapped host memory; it must not outlive the call. */
  if (st != CLG_SUCCESS && kevent && !done &&
      (d.wrapped || x.wrapped || o.wrapped))
    (void)clWaitForEvents(1, &kevent); /* best effort: the error stands */
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

clg_status clg_run(clg_context *ctx, const clg_params *params,
                   const clg_tensor *data, const clg_tensor *indices,
                   const clg_tensor *output, cl_command_queue queue,
                   cl_uint num_events, const cl_event *wait_list,
                   cl_event *event) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  clg_checked c;
  clg_status st =
      clg_check_inputs(ctx, params, data, indices, num_events, wait_list, &c);
  if (st != CLG_SUCCESS)
    return st;
  if (!output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  clg_launch l = {data, indices, output, c.df, c.xf,       {0, 0, 0, 0},
                  NULL, NULL,    NULL,   NULL, num_events, wait_list};
  if ((st = clg_check_output(ctx, &c, data, indices, output, &l.of)) !=
          CLG_SUCCESS ||
      (st = clg__resolve_queue(ctx, queue, &l.queue)) != CLG_SUCCESS ||
      (st = clg__check_index_values(ctx, &c, l.queue, data, indices, num_events,
                                    wait_list)) != CLG_SUCCESS)
    return st;
  if (l.of.bytes == 0)
    return clg_run_empty(l.queue, num_events, wait_list, event);
  return clg_run_kernels(ctx, &c, &l, event);
}

clg_status clg_gather_elements(clg_context *ctx, const clg_tensor *data,
                               const clg_tensor *indices, int64_t axis,
                               const clg_tensor *output, cl_command_queue queue,
                               cl_uint num_events, const cl_event *wait_list,
                               cl_event *event) {
  clg_params p = {CLG_OP_GATHER_ELEMENTS, axis, 0, CLG_MODE_RAISE};
  return clg_run(ctx, &p, data, indices, output, queue, num_events, wait_list,
                 event);
}

clg_status clg_gather_nd(clg_context *ctx, const clg_tensor *data,
                         const clg_tensor *indices, int64_t batch_dims,
                         const clg_tensor *output, cl_command_queue queue,
                         cl_uint num_events, const cl_event *wait_list,
                         cl_event *event) {
  clg_params p = {CLG_OP_GATHER_ND, 0, batch_dims, CLG_MODE_RAISE};
  return clg_run(ctx, &p, data, indices, output, queue, num_events, wait_list,
                 event);
}
