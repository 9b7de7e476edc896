/* The gather family's common path: parameter and argument checks, output
 * shape, staging and the read-back, shared by every
 * operator. Each operator (gather.c, gather_elements.c, gather_nd.c) supplies
 * its shape rules, its index checks and its kernel launch (clg_op_impl). */
#include "run/run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const char *const clg_input_names[CLG_MAX_INPUTS] = {
    "data", "indices", "updates"};

/* Which entry point checks: clg_run() and the plans and shards built on it
 * take the gathers; clg_scatter() the scatters (with updates);
 * clg_validate() any operator, without updates. */
typedef enum clg_entry {
  CLG_ENTRY_GATHER,
  CLG_ENTRY_SCATTER,
  CLG_ENTRY_VALIDATE
} clg_entry;

/* The scatters' attributes: NULL means the defaults. */
static clg_status clg_check_scatter(const clg_scatter_params *sc,
                                    clg_scatter_params *out) {
  clg_scatter_params none = {CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
  if (!sc)
    sc = &none;
  if (sc->reduction < CLG_REDUCTION_NONE || sc->reduction > CLG_REDUCTION_MAX)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown reduction %d (expected CLG_REDUCTION_NONE, "
                     "_ADD, _MUL, _MIN or _MAX)",
                     (int)sc->reduction);
  if (sc->duplicates != CLG_DUPLICATES_ERROR &&
      sc->duplicates != CLG_DUPLICATES_LAST)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown duplicates rule %d (expected "
                     "CLG_DUPLICATES_ERROR or CLG_DUPLICATES_LAST)",
                     (int)sc->duplicates);
  *out = *sc;
  return CLG_SUCCESS;
}

/* Arguments every entry point takes, then the inputs (in[CLG_IN_*]) and
 * params: everything but index values and the output. */
static clg_status clg_check_inputs(clg_context *ctx, const clg_params *params,
                                   const clg_scatter_params *sc,
                                   clg_entry entry, const clg_tensor *const *in,
                                   cl_uint num_events,
                                   const cl_event *wait_list, clg_checked *c) {
  const clg_tensor *data = in[CLG_IN_DATA], *indices = in[CLG_IN_INDICES];
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
  bool scatter = (c->info->params & CLG_PARAM_SCATTER) != 0;
  if (entry == CLG_ENTRY_GATHER && scatter)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s is a scatter: it takes updates and is run by "
                     "clg_scatter()",
                     c->info->name);
  if (entry == CLG_ENTRY_SCATTER && !scatter)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s is not a scatter: run it with clg_run()",
                     c->info->name);
  c->sc = (clg_scatter_params){CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
  if (entry == CLG_ENTRY_SCATTER &&
      ((st = clg_check_scatter(sc, &c->sc)) != CLG_SUCCESS ||
       (c->impl->check_scatter &&
        (st = c->impl->check_scatter(&c->sc)) != CLG_SUCCESS)))
    return st;
  c->num_inputs = c->impl->num_inputs ? c->impl->num_inputs : 2;
  if (entry == CLG_ENTRY_VALIDATE)
    c->num_inputs = 2; /* index values need no updates */
  if (c->num_inputs > CLG_IN_UPDATES && entry != CLG_ENTRY_VALIDATE &&
      !in[CLG_IN_UPDATES])
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "updates is NULL");
  if ((st = clg__check_data_dtype("data", data->dtype)) != CLG_SUCCESS ||
      (st = clg__check_index_dtype(indices->dtype)) != CLG_SUCCESS)
    return st;
  if (entry == CLG_ENTRY_SCATTER &&
      (c->sc.reduction == CLG_REDUCTION_MIN ||
       c->sc.reduction == CLG_REDUCTION_MAX) &&
      (data->dtype == CLG_DTYPE_COMPLEX64 ||
       data->dtype == CLG_DTYPE_COMPLEX128))
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "reduction %s is not defined on complex numbers (%s)",
                     c->sc.reduction == CLG_REDUCTION_MIN ? "min" : "max",
                     clg_dtype_name(data->dtype));
  if (c->num_inputs > CLG_IN_UPDATES &&
      in[CLG_IN_UPDATES]->dtype != data->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "updates has element type %s but data has %s; %s "
                     "updates must have data's type",
                     clg_dtype_name(in[CLG_IN_UPDATES]->dtype),
                     clg_dtype_name(data->dtype), c->info->name);
  if (data->rank < 1)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; %s needs data of rank >= 1",
                     (int)data->rank, c->info->name);
  for (int k = 0; k < c->num_inputs; ++k) {
    size_t elem = clg_dtype_size(k == CLG_IN_INDICES ? indices->dtype
                                                     : data->dtype);
    if ((st = clg__check_tensor(ctx, clg_input_names[k], in[k], elem,
                                &c->inf[k])) != CLG_SUCCESS)
      return st;
  }
  if ((st = clg__output_shape(params, data->rank, data->shape, indices->rank,
                              indices->shape, &c->norm, &c->out_rank,
                              c->out_shape)) != CLG_SUCCESS)
    return st;
  if (c->num_inputs > CLG_IN_UPDATES &&
      (st = c->impl->check_updates(&c->norm, data, indices,
                                   in[CLG_IN_UPDATES])) != CLG_SUCCESS)
    return st;
  return clg_check_indices_offset(indices, c->xf.elem_size);
}

/* Is `out` exactly input `in`'s storage (same bytes at the same place)? */
static bool clg_same_storage(const clg_tensor *in, size_t in_bytes,
                             const clg_tensor *out, size_t out_bytes) {
  if (in->storage != out->storage || in_bytes != out_bytes)
    return false;
  return in->storage == CLG_STORAGE_BUFFER
             ? in->buffer == out->buffer && in->offset == out->offset
             : in->host == out->host;
}

/* The output against checked inputs: type, shape, size, and (unless
 * `shapes_only`: plan templates have no memory) no overlap with an input,
 * except the exact aliasing the operator allows (output_may_alias). */
static clg_status clg_check_output(clg_context *ctx, const clg_checked *c,
                                   const clg_tensor *const *in,
                                   const clg_tensor *output, bool shapes_only,
                                   clg_tensor_facts *of) {
  const clg_tensor *data = in[CLG_IN_DATA];
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
  for (int k = 0; k < c->num_inputs; ++k) {
    if (c->impl->output_may_alias && c->impl->output_may_alias(k) &&
        clg_same_storage(in[k], c->inf[k].bytes, output, of->bytes))
      continue;
    if ((st = clg__check_no_overlap(clg_input_names[k], in[k],
                                    c->inf[k].bytes, output, of->bytes)) !=
        CLG_SUCCESS)
      return st;
  }
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
  const clg_tensor *in[CLG_MAX_INPUTS] = {data, indices, NULL};
  clg_status st = clg_check_inputs(ctx, params, NULL, CLG_ENTRY_VALIDATE, in,
                                   num_events, wait_list, &c);
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

/* Stage, enqueue the operator's kernel calls (each gated on `verdict` when
 * not NULL), bring a host output back, release. Host storage makes the call
 * blocking, so wrapped host memory (zero-copy staging) is never used by a
 * command after the call returns. */
static clg_status clg_run_kernels(clg_context *ctx, const clg_checked *c,
                                  clg_launch *l, cl_mem verdict,
                                  cl_event *event) {
  clg_staged in[CLG_MAX_INPUTS] = {{0}}, o = {0};
  clg_status st = CLG_SUCCESS;
  bool blocking = l->output->storage == CLG_STORAGE_HOST;
  /* An input the output is (in place, as the operator allows): staged once,
   * as the output, keeping its content. */
  bool alias[CLG_MAX_INPUTS] = {false, false, false}, keep = false;
  for (int k = 0; k < l->num_inputs; ++k) {
    alias[k] = c->impl->output_may_alias && c->impl->output_may_alias(k) &&
               clg_same_storage(l->in[k], l->inf[k].bytes, l->output,
                                l->of.bytes);
    keep = keep || alias[k];
  }
  for (int k = 0; k < l->num_inputs; ++k) {
    blocking = blocking || l->in[k]->storage == CLG_STORAGE_HOST;
    if (alias[k])
      continue;
    /* OpenCL leaves buffers over overlapping host memory undefined: a host
     * input that overlaps another (already staged) host input is copied,
     * not wrapped. */
    bool may_wrap = true;
    for (int j = 0; j < k && may_wrap; ++j) {
      const clg_tensor *a = l->in[j], *b = l->in[k];
      if (a->storage == CLG_STORAGE_HOST && b->storage == CLG_STORAGE_HOST &&
          l->inf[j].bytes && l->inf[k].bytes) {
        uintptr_t a0 = (uintptr_t)a->host, b0 = (uintptr_t)b->host;
        may_wrap = !(a0 < b0 + l->inf[k].bytes && b0 < a0 + l->inf[j].bytes);
      }
    }
    if ((st = clg__stage_input(ctx, l->in[k], l->inf[k].bytes,
                               l->inf[k].elem_size, may_wrap,
                               clg_input_names[k], &in[k])) != CLG_SUCCESS)
      break;
    l->ins[k] = &in[k];
  }
  if (st == CLG_SUCCESS)
    st = clg__stage_output(ctx, l->output, l->of.bytes, l->of.elem_size, keep,
                           &o);
  l->o = &o;
  for (int k = 0; k < l->num_inputs; ++k)
    if (alias[k])
      l->ins[k] = &o;
  cl_event kevent = NULL;
  clg_kernel_calls calls;
  calls.count = 0;
  if (st == CLG_SUCCESS)
    st = c->impl->prepare(ctx, &c->norm, l, verdict != NULL, &calls);
  /* No kernel to run (a scatter in place with no entries): an event all
   * the same, after the wait list. */
  if (st == CLG_SUCCESS && calls.count == 0) {
    cl_int err = clEnqueueMarkerWithWaitList(l->queue, l->num_events,
                                             l->wait_list, &kevent);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                        "completing a call with nothing to write");
  }
  /* The calls in order, each after the one before. */
  for (int i = 0; st == CLG_SUCCESS && i < calls.count; ++i) {
    cl_event prev = kevent;
    kevent = NULL;
    st = prev ? clg__call_launch(&calls.call[i], l->queue, verdict, 1, &prev,
                                 &kevent)
              : clg__call_launch(&calls.call[i], l->queue, verdict,
                                 l->num_events, l->wait_list, &kevent);
    if (st != CLG_SUCCESS) {
      kevent = prev; /* the last enqueued, waited for below if need be */
      break;
    }
    if (prev)
      clReleaseEvent(prev);
  }
  bool wrapped = o.wrapped;
  for (int k = 0; k < l->num_inputs; ++k)
    wrapped = wrapped || in[k].wrapped;
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
  /* A failure after a kernel was enqueued: it may still run on the
   * caller's wrapped host memory; it must not outlive the call. */
  if (st != CLG_SUCCESS && kevent && !done && wrapped)
    (void)clWaitForEvents(1, &kevent); /* best effort: the error stands */
  for (int k = 0; k < l->num_inputs; ++k)
    clg__unstage(&in[k]);
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
  clg_status st = clg_check_inputs(
      call->ctx, call->params, call->scatter,
      call->is_scatter ? CLG_ENTRY_SCATTER : CLG_ENTRY_GATHER, call->in,
      call->num_events, call->wait_list, c);
  if (st != CLG_SUCCESS)
    return st;
  if (!call->output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  if ((st = clg_check_output(call->ctx, c, call->in, call->output, false,
                             of)) != CLG_SUCCESS)
    return st;
  return clg__resolve_queue(call->ctx, call->queue, queue);
}

/* A launch of checked inputs (no queue, no staging yet). */
static void clg_launch_init(clg_launch *l, const clg_checked *c,
                            const clg_tensor *const *in,
                            const clg_tensor *output) {
  memset(l, 0, sizeof *l);
  l->num_inputs = c->num_inputs;
  for (int k = 0; k < c->num_inputs; ++k) {
    l->in[k] = in[k];
    l->inf[k] = c->inf[k];
  }
  l->output = output;
  l->sc = c->sc;
}

/* The operator's index_plan() on the index values in host memory (read
 * back once from a cl_mem, after the wait list), checked against the
 * bounds first when `check`; l->state receives its state. */
static clg_status clg_index_plan(clg_context *ctx, const clg_checked *c,
                                 clg_launch *l, const clg_tensor *data,
                                 const clg_tensor *indices, bool check) {
  size_t count = c->xf.count;
  const void *values = indices->host;
  void *copy = NULL;
  clg_status st;
  if (indices->storage == CLG_STORAGE_BUFFER && c->xf.bytes) {
    copy = CLG_MALLOC(c->xf.bytes);
    if (!copy)
      return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                       "reading back %zu bytes of indices", c->xf.bytes);
    if ((st = clg__read_buffer(l->queue, indices, c->xf.bytes, copy,
                               l->num_events, l->wait_list,
                               "reading back the indices")) != CLG_SUCCESS) {
      free(copy);
      return st;
    }
    values = copy;
  }
  st = CLG_SUCCESS;
  if (check && count > 0)
    st = clg__check_host_index_values(c, data, indices, values);
  if (st == CLG_SUCCESS)
    st = c->impl->index_plan(ctx, &c->norm, &c->sc, data, indices, values,
                             count, &l->state);
  free(copy);
  return st;
}

clg_status clg__run(const clg_call *call) {
  clg_checked c;
  clg_launch l;
  clg_tensor_facts of;
  cl_command_queue queue = NULL;
  clg_status st = clg__check_call(call, &c, &of, &queue);
  if (st != CLG_SUCCESS)
    return st;
  clg_launch_init(&l, &c, call->in, call->output);
  l.of = of;
  l.queue = queue;
  l.num_events = call->num_events;
  l.wait_list = call->wait_list;
  clg_context *ctx = call->ctx;
  /* Asynchronous checked mode with cl_mem indices in mode RAISE and a
   * cl_mem output: the verdict stays on the device and gates the
   * operator's kernels. Everything else checks values now: host indices,
   * modes WRAP / CLIP, and a host output (the call blocks then anyway, and
   * the read-back of a gated kernel's unwritten staging buffer would change
   * it). */
  bool deferred = call->outcome && !call->values_checked &&
                  !c.impl->index_plan &&
                  call->output->storage == CLG_STORAGE_BUFFER &&
                  clg__values_on_device(&c, call->indices);
  clg_verdict v = {NULL, 0, NULL};
  if (deferred)
    st = clg__verdict_enqueue(ctx, &c, l.queue, call->data, call->indices,
                              call->num_events, call->wait_list, &v);
  else if (c.impl->index_plan) /* the values are checked on the host */
    st = clg_index_plan(ctx, &c, &l, call->data, call->indices,
                        !call->values_checked);
  else if (!call->values_checked)
    st = clg__check_index_values(ctx, &c, l.queue, call->data, call->indices,
                                 call->num_events, call->wait_list);
  if (st != CLG_SUCCESS)
    return st;
  if (deferred) {
    /* The kernels wait for the verdict, which waited for the wait list. */
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
  if (l.state)
    c.impl->release_state(l.state);
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
  clg_call call = {.ctx = ctx,
                   .params = params,
                   .data = data,
                   .indices = indices,
                   .output = output,
                   .queue = queue,
                   .num_events = num_events,
                   .wait_list = wait_list,
                   .event = event};
  return clg__run(&call);
}

clg_status clg_run_async(clg_context *ctx, const clg_params *params,
                         const clg_tensor *data, const clg_tensor *indices,
                         const clg_tensor *output, cl_command_queue queue,
                         cl_uint num_events, const cl_event *wait_list,
                         cl_event *event, clg_outcome **outcome) {
  if (!outcome)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "outcome is NULL");
  clg_call call = {.ctx = ctx,
                   .params = params,
                   .data = data,
                   .indices = indices,
                   .output = output,
                   .queue = queue,
                   .num_events = num_events,
                   .wait_list = wait_list,
                   .event = event,
                   .outcome = outcome};
  return clg__run(&call);
}

clg_status clg_scatter(clg_context *ctx, const clg_params *params,
                       const clg_scatter_params *scatter,
                       const clg_tensor *data, const clg_tensor *indices,
                       const clg_tensor *updates, const clg_tensor *output,
                       cl_command_queue queue, cl_uint num_events,
                       const cl_event *wait_list, cl_event *event) {
  if (!params)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "params is NULL");
  clg_call call = {.ctx = ctx,
                   .params = params,
                   .data = data,
                   .indices = indices,
                   .updates = updates,
                   .output = output,
                   .is_scatter = true,
                   .scatter = scatter,
                   .queue = queue,
                   .num_events = num_events,
                   .wait_list = wait_list,
                   .event = event};
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
                                const clg_tensor *const *in,
                                const clg_tensor *output, clg_checked *c,
                                clg_tensor_facts *of) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  if (!in[CLG_IN_DATA])
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data is NULL");
  if (!in[CLG_IN_INDICES])
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  if (!output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  clg_tensor t[CLG_MAX_INPUTS], o;
  const clg_tensor *tin[CLG_MAX_INPUTS] = {NULL, NULL, NULL};
  for (int k = 0; k < CLG_MAX_INPUTS; ++k)
    if (in[k]) {
      clg_template(in[k], &t[k]);
      tin[k] = &t[k];
    }
  clg_template(output, &o);
  clg_status st =
      clg_check_inputs(ctx, params, NULL, CLG_ENTRY_GATHER, tin, 0, NULL, c);
  if (st == CLG_SUCCESS)
    st = clg_check_output(ctx, c, tin, &o, true, of);
  if (st != CLG_SUCCESS)
    return st;
  return clg_check_indices_offset(in[CLG_IN_INDICES], c->xf.elem_size);
}

clg_status clg__bake(clg_context *ctx, const clg_checked *c,
                     const clg_tensor *const *in, const clg_tensor *output,
                     const clg_tensor_facts *of, bool gated) {
  clg_status st;
  const clg_tensor *data = in[CLG_IN_DATA], *indices = in[CLG_IN_INDICES];
  if (clg__values_on_device(c, indices) &&
      (st = clg__verdict_kernel(ctx, c, data, indices)) != CLG_SUCCESS)
    return st;
  if (of->bytes == 0)
    return CLG_SUCCESS;
  /* The kernels for the templates' offsets (host memory: aligned). */
  clg_launch l;
  clg_launch_init(&l, c, in, output);
  l.of = *of;
  clg_staged staged[CLG_MAX_INPUTS], o;
  for (int k = 0; k < c->num_inputs; ++k) {
    size_t off = in[k]->storage == CLG_STORAGE_BUFFER ? in[k]->offset : 0;
    staged[k] = (clg_staged){NULL, off, k == CLG_IN_INDICES ? 0 : off, false,
                             false};
    l.ins[k] = &staged[k];
  }
  size_t off = output->storage == CLG_STORAGE_BUFFER ? output->offset : 0;
  o = (clg_staged){NULL, off, off, false, false};
  l.o = &o;
  clg_kernel_calls calls;
  /* Gated as clg__run() gates: a cl_mem output and values on the device. */
  return c->impl->prepare(ctx, &c->norm, &l,
                          gated && output->storage == CLG_STORAGE_BUFFER &&
                              clg__values_on_device(c, indices),
                          &calls);
}
