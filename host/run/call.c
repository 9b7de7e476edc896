/* The gather family's common path: parameter and argument checks, output
 * shape, staging and the read-back, shared by every
 * operator. Each operator (gather.c, gather_elements.c, gather_nd.c) supplies
 * its shape rules, its index checks and its kernel launch (clg_op_impl). */
#include "run/run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

const clg_params clg__default_params = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};

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
  const clg_op_info *info = NULL;
  const clg_op_impl *impl = NULL;
  clg_status st = clg__check_params(params, &info, &impl);
  if (st != CLG_SUCCESS)
    return st;
  if (data_rank < 1 || data_rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; %s needs data of rank in [1, %d]",
                     (int)data_rank, info->name, CLG_MAX_RANK);
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
  clg_status st = clg__output_shape(params ? params : &clg__default_params,
                                    data_rank, data_shape, indices_rank,
                                    indices_shape, &norm, &rank, shape);
  if (st != CLG_SUCCESS)
    return st;
  for (int32_t i = 0; i < rank; ++i)
    out_shape[i] = shape[i];
  *out_rank = rank;
  return clg__ok();
}

/* cl_mem indices are read as int/long: their offset must be a multiple of
 * the index size. */
static clg_status clg_check_indices_offset(const clg_tensor *indices,
                                           size_t index_size) {
  if (indices->storage == CLG_STORAGE_BUFFER &&
      indices->offset % index_size != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "indices->offset %zu is not a multiple of the index size "
                     "%zu bytes",
                     indices->offset, index_size);
  return CLG_SUCCESS;
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
    params = &clg__default_params;
  if ((st = clg__check_params(params, &c->info, &c->impl)) != CLG_SUCCESS)
    return st;
  if ((st = clg__check_data_dtype("data", data->dtype)) != CLG_SUCCESS ||
      (st = clg__check_index_dtype(indices->dtype)) != CLG_SUCCESS)
    return st;
  if (data->rank < 1)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; %s needs data of rank >= 1",
                     (int)data->rank, c->info->name);
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
  return clg_check_indices_offset(indices, c->xf.elem_size);
}

/* The output against checked inputs: type, shape, size, and (unless
 * `shapes_only`: plan templates have no memory) no aliasing. */
static clg_status clg_check_output(clg_context *ctx, const clg_checked *c,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   const clg_tensor *output, bool shapes_only,
                                   clg_tensor_facts *of) {
  if (output->dtype != data->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "output has element type %s but data has %s; %s "
                     "output must have data's type",
                     clg_dtype_name(output->dtype), clg_dtype_name(data->dtype),
                     c->info->name);
  clg_status st = clg__check_tensor(ctx, "output", output, c->df.elem_size, of);
  if (st != CLG_SUCCESS)
    return st;
  bool same = output->rank == c->out_rank;
  for (int32_t i = 0; same && i < c->out_rank; ++i)
    same = output->shape[i] == c->out_shape[i];
  if (!same) {
    char got[512], exp[512], what[128];
    clg__format_shape(got, sizeof got, output->rank, output->shape);
    clg__format_shape(exp, sizeof exp, c->out_rank, c->out_shape);
    c->impl->describe(&c->norm, what, sizeof what);
    return clg__fail(CLG_ERROR_SHAPE_MISMATCH,
                     "output has shape %s but %s produces %s", got, what, exp);
  }
  if (shapes_only)
    return CLG_SUCCESS;
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
    return CLG_SUCCESS;
  cl_int err = clEnqueueMarkerWithWaitList(queue, num_events, wait_list, event);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                        "completing an empty gather");
  return CLG_SUCCESS;
}

/* Stage, enqueue the operator (gated on `verdict` when not NULL), bring a
 * host output back, release. Host storage makes the call blocking, so
 * wrapped host memory (zero-copy staging) is never used by a command after
 * the call returns. */
static clg_status clg_run_kernels(clg_context *ctx, const clg_checked *c,
                                  clg_launch *l, cl_mem verdict,
                                  cl_event *event) {
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
  clg_kernel_call call;
  st = c->impl->prepare(ctx, &c->norm, l, verdict != NULL, &call);
  if (st == CLG_SUCCESS)
    st = clg__call_launch(&call, l->queue, verdict, l->num_events, l->wait_list,
                          &kevent);
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
  return CLG_SUCCESS;
}

clg_status clg__check_call(const clg_call *call, clg_checked *c,
                           clg_tensor_facts *of, cl_command_queue *queue) {
  if (!call->ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  clg_status st =
      clg_check_inputs(call->ctx, call->params, call->data, call->indices,
                       call->num_events, call->wait_list, c);
  if (st != CLG_SUCCESS)
    return st;
  if (!call->output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  if ((st = clg_check_output(call->ctx, c, call->data, call->indices,
                             call->output, false, of)) != CLG_SUCCESS)
    return st;
  return clg__resolve_queue(call->ctx, call->queue, queue);
}

clg_status clg__run(const clg_call *call) {
  clg_checked c;
  clg_launch l = {call->data,
                  call->indices,
                  call->output,
                  {0, 0, 0, 0},
                  {0, 0, 0, 0},
                  {0, 0, 0, 0},
                  NULL,
                  NULL,
                  NULL,
                  NULL,
                  call->num_events,
                  call->wait_list};
  clg_status st = clg__check_call(call, &c, &l.of, &l.queue);
  if (st != CLG_SUCCESS)
    return st;
  l.df = c.df;
  l.xf = c.xf;
  clg_context *ctx = call->ctx;
  /* Asynchronous checked mode with cl_mem indices in mode RAISE and a
   * cl_mem output: the verdict stays on the device and gates the gather
   * kernel. Everything else checks values now: host indices, modes WRAP /
   * CLIP, and a host output (the call blocks then anyway, and the read-back
   * of a gated kernel's unwritten staging buffer would change it). */
  bool deferred = call->outcome && !call->values_checked &&
                  call->output->storage == CLG_STORAGE_BUFFER &&
                  clg__values_on_device(&c, call->indices);
  clg_verdict v = {NULL, 0, NULL};
  if (deferred)
    st = clg__verdict_enqueue(ctx, &c, l.queue, call->data, call->indices,
                              call->num_events, call->wait_list, &v);
  else if (!call->values_checked)
    st = clg__check_index_values(ctx, &c, l.queue, call->data, call->indices,
                                 call->num_events, call->wait_list);
  if (st != CLG_SUCCESS)
    return st;
  if (deferred) {
    /* The gather waits for the verdict, which waited for the wait list. */
    l.num_events = 1;
    l.wait_list = &v.event;
  }
  clg_outcome *outcome = NULL;
  if (call->outcome)
    st = deferred ? clg__outcome_pending(ctx, &c, call->data, call->indices,
                                         l.queue, &v, &outcome)
                  : clg__outcome_decided(&outcome);
  if (st == CLG_SUCCESS)
    st = l.of.bytes == 0
             ? clg_run_empty(l.queue, l.num_events, l.wait_list, call->event)
             : clg_run_kernels(ctx, &c, &l, v.mem, call->event);
  clg__verdict_release(&v); /* the outcome holds its own references */
  if (st != CLG_SUCCESS) {
    clg_outcome_release(outcome);
    return st;
  }
  if (call->outcome)
    *call->outcome = outcome;
  return clg__ok();
}

clg_status clg_run(clg_context *ctx, const clg_params *params,
                   const clg_tensor *data, const clg_tensor *indices,
                   const clg_tensor *output, cl_command_queue queue,
                   cl_uint num_events, const cl_event *wait_list,
                   cl_event *event) {
  clg_call call = {ctx,        params,    data,  indices, output, queue,
                   num_events, wait_list, event, NULL,    false};
  return clg__run(&call);
}

clg_status clg_run_async(clg_context *ctx, const clg_params *params,
                         const clg_tensor *data, const clg_tensor *indices,
                         const clg_tensor *output, cl_command_queue queue,
                         cl_uint num_events, const cl_event *wait_list,
                         cl_event *event, clg_outcome **outcome) {
  if (!outcome)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "outcome is NULL");
  clg_call call = {ctx,        params,    data,  indices, output, queue,
                   num_events, wait_list, event, outcome, false};
  return clg__run(&call);
}

/* A template as clg__check_call() can check without memory: host storage
 * at a non-NULL address that is never read. */
static void clg_template(const clg_tensor *t, clg_tensor *out) {
  static unsigned char nowhere;
  *out = *t;
  if (t->storage == CLG_STORAGE_HOST || t->storage == CLG_STORAGE_BUFFER) {
    out->storage = CLG_STORAGE_HOST;
    out->host = &nowhere;
    out->buffer = NULL;
  }
}

clg_status clg__check_templates(clg_context *ctx, const clg_params *params,
                                const clg_tensor *data,
                                const clg_tensor *indices,
                                const clg_tensor *output, clg_checked *c,
                                clg_tensor_facts *of) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  if (!data)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data is NULL");
  if (!indices)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  if (!output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  clg_tensor d, x, o;
  clg_template(data, &d);
  clg_template(indices, &x);
  clg_template(output, &o);
  clg_status st = clg_check_inputs(ctx, params, &d, &x, 0, NULL, c);
  if (st == CLG_SUCCESS)
    st = clg_check_output(ctx, c, &d, &x, &o, true, of);
  if (st != CLG_SUCCESS)
    return st;
  return clg_check_indices_offset(indices, c->xf.elem_size);
}

clg_status clg__bake(clg_context *ctx, const clg_checked *c,
                     const clg_tensor *data, const clg_tensor *indices,
                     const clg_tensor *output, const clg_tensor_facts *of,
                     bool gated) {
  clg_status st;
  if (clg__values_on_device(c, indices) &&
      (st = clg__verdict_kernel(ctx, c, data, indices)) != CLG_SUCCESS)
    return st;
  if (of->bytes == 0)
    return CLG_SUCCESS;
  /* The kernel for the templates' offsets (host memory: aligned). */
  clg_staged d = {NULL, data->storage == CLG_STORAGE_BUFFER ? data->offset : 0,
                  data->storage == CLG_STORAGE_BUFFER ? data->offset : 0, false,
                  false};
  clg_staged x = {NULL,
                  indices->storage == CLG_STORAGE_BUFFER ? indices->offset : 0,
                  0, false, false};
  clg_staged o = {
      NULL, output->storage == CLG_STORAGE_BUFFER ? output->offset : 0,
      output->storage == CLG_STORAGE_BUFFER ? output->offset : 0, false, false};
  clg_launch l = {data, indices, output, c->df, c->xf, *of,
                  &d,   &x,      &o,     NULL,  0,     NULL};
  clg_kernel_call call;
  /* Gated as clg__run() gates: a cl_mem output and values on the device. */
  return c->impl->prepare(ctx, &c->norm, &l,
                          gated && output->storage == CLG_STORAGE_BUFFER &&
                              clg__values_on_device(c, indices),
                          &call);
}
