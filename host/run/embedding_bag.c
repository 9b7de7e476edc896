/* The public entry points clg_embedding_bag() and clg_embedding_bag_async()
 * (clgather/clgather_bag.h): EmbeddingBag's call, step by step. Its rules
 * are ops/embedding_bag.c's; staging and launching are the family's
 * (device/enqueue.c).
 *
 * The steps: every check that reads no value (params, types, descriptors,
 * shapes, queue, overlaps); the values of indices and bags, on the host
 * (a cl_mem one read back, blocking, after the wait list), checked, and
 * the bags turned into each bag's first entry (`starts`); then, and only
 * then, one kernel, and a host output read back. */
#include "ops/embedding_bag.h"
#include "run/run.h"

#include <inttypes.h>
#include <stdlib.h>

enum { BAG_WEIGHT, BAG_INDICES, BAG_BAGS, BAG_PSW, BAG_INPUTS };

typedef struct bag_call {
  const clg_tensor *in[BAG_INPUTS];
  const char *names[BAG_INPUTS];
  clg_tensor_facts inf[BAG_INPUTS];
  const clg_tensor *output;
  clg_tensor_facts of;
  clg_bag_geom g;
  cl_command_queue queue;
} bag_call;

/* A cl_mem tensor's elements must be aligned for its kernel's loads. */
static clg_status bag_check_offset(const char *name, const clg_tensor *t,
                                   size_t elem) {
  if (t->storage != CLG_STORAGE_BUFFER || t->offset % elem == 0)
    return CLG_SUCCESS;
  return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                   "%s->offset is %zu bytes, not a multiple of its element "
                   "size %zu",
                   name, t->offset, elem);
}

/* Every check that reads no value. */
static clg_status bag_check_call(clg_context *ctx, const clg_bag_params *params,
                                 cl_command_queue queue, cl_uint num_events,
                                 const cl_event *wait_list, bag_call *c) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  if (!c->in[BAG_WEIGHT])
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "weight is NULL");
  if (!c->in[BAG_INDICES])
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  if (!c->output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  clg_status st = clg__check_wait_list(num_events, wait_list);
  if (st != CLG_SUCCESS)
    return st;
  for (int k = 0; k < BAG_INPUTS + 1; ++k) {
    const clg_tensor *t = k < BAG_INPUTS ? c->in[k] : c->output;
    if (t && clg__strides(t))
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "%s is a strided tensor (clg_strided_tensor); "
                       "clg_embedding_bag() takes dense tensors",
                       k < BAG_INPUTS ? c->names[k] : "output");
  }
  if ((st = clg__bag_check_types(params, c->in[BAG_WEIGHT],
                                 c->in[BAG_INDICES], c->in[BAG_BAGS],
                                 c->in[BAG_PSW], c->output)) != CLG_SUCCESS)
    return st;
  for (int k = 0; k < BAG_INPUTS; ++k) {
    const clg_tensor *t = c->in[k];
    if (!t)
      continue;
    size_t elem = clg_dtype_size(t->dtype);
    if ((st = clg__check_tensor(ctx, c->names[k], t, elem, &c->inf[k])) !=
            CLG_SUCCESS ||
        (st = bag_check_offset(c->names[k], t, elem)) != CLG_SUCCESS)
      return st;
  }
  size_t oelem = clg_dtype_size(c->output->dtype);
  if ((st = clg__check_tensor(ctx, "output", c->output, oelem, &c->of)) !=
          CLG_SUCCESS ||
      (st = bag_check_offset("output", c->output, oelem)) != CLG_SUCCESS)
    return st;
  if ((st = clg__bag_check_shapes(params, c->in[BAG_WEIGHT],
                                  c->in[BAG_INDICES], c->in[BAG_BAGS],
                                  c->in[BAG_PSW], c->output, &c->g)) !=
      CLG_SUCCESS)
    return st;
  for (int k = 0; k < BAG_INPUTS; ++k)
    if (c->in[k] &&
        (st = clg__check_no_overlap(c->names[k], c->in[k], c->inf[k].bytes,
                                    c->output, c->of.bytes)) != CLG_SUCCESS)
      return st;
  return clg__resolve_queue(ctx, queue, &c->queue);
}

/* The values of an int tensor on the host: its own memory, or a copy read
 * back from its cl_mem (blocking, after the wait list) into *copy. */
static clg_status bag_values(const bag_call *c, int k, cl_uint num_events,
                             const cl_event *wait_list, const void **values,
                             void **copy) {
  const clg_tensor *t = c->in[k];
  *values = NULL;
  *copy = NULL;
  if (!t || c->inf[k].bytes == 0)
    return CLG_SUCCESS;
  if (t->storage == CLG_STORAGE_HOST) {
    *values = t->host;
    return CLG_SUCCESS;
  }
  if (!(*copy = malloc(c->inf[k].bytes)))
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "allocating %zu bytes to check %s", c->inf[k].bytes,
                     c->names[k]);
  clg_status st = clg__read_buffer(c->queue, t, c->inf[k].bytes, *copy,
                                   num_events, wait_list, c->names[k]);
  *values = *copy;
  return st;
}

/* Nothing to write: an event after the wait list, where one is asked. */
static clg_status bag_marker(const bag_call *c, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event) {
  if (!event)
    return CLG_SUCCESS;
  cl_int err =
      clEnqueueMarkerWithWaitList(c->queue, num_events, wait_list, event);
  return err == CL_SUCCESS
             ? CLG_SUCCESS
             : clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                            "completing an EmbeddingBag with an empty output");
}

/* Stage, launch the kernel, read a host output back, release. */
static clg_status bag_launch(clg_context *ctx, const bag_call *c,
                             const int64_t *starts, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event) {
  clg_staged in[BAG_INPUTS] = {{0}}, o = {0};
  cl_mem smem = NULL;
  cl_event kevent = NULL;
  clg_status st = CLG_SUCCESS;
  bool blocking = c->output->storage == CLG_STORAGE_HOST;
  for (int k = 0; k < BAG_INPUTS && st == CLG_SUCCESS; ++k) {
    if (!c->in[k] || k == BAG_BAGS) /* the kernel takes starts instead */
      continue;
    blocking = blocking || c->in[k]->storage == CLG_STORAGE_HOST;
    st = clg__stage_input(ctx, c->in[k], c->inf[k].bytes, c->inf[k].elem_size,
                          true, c->names[k], &in[k]);
  }
  if (st == CLG_SUCCESS && c->g.p.form != CLG_BAGS_FIXED) {
    cl_int err = CL_SUCCESS;
    smem = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          (size_t)(c->g.num_bags + 1) * sizeof *starts,
                          (void *)starts, &err);
    if (!smem)
      st = clg__fail_cl(err, "clCreateBuffer",
                        "a copy of EmbeddingBag's bag starts");
  }
  if (st == CLG_SUCCESS)
    st = clg__stage_output(ctx, c->output, c->of.bytes, c->of.elem_size, false,
                           false, &o);
  clg_kernel_call call;
  if (st == CLG_SUCCESS)
    st = clg__bag_prepare(ctx, &c->g, c->inf[BAG_INDICES].elem_size,
                          in[BAG_WEIGHT].mem, in[BAG_WEIGHT].offset,
                          in[BAG_INDICES].mem, in[BAG_INDICES].offset, smem,
                          in[BAG_PSW].mem, in[BAG_PSW].offset, o.mem, o.offset,
                          &call);
  if (st == CLG_SUCCESS)
    st = clg__check_wait_failed(num_events, wait_list);
  if (st == CLG_SUCCESS)
    st = clg__call_launch(&call, c->queue, NULL, num_events, wait_list,
                          event || blocking ? &kevent : NULL);
  bool done = false;
  if (st == CLG_SUCCESS && c->output->storage == CLG_STORAGE_HOST) {
    cl_event revent = NULL;
    cl_int err = clEnqueueReadBuffer(c->queue, o.mem, CL_TRUE, 0, c->of.bytes,
                                     c->output->host, 1, &kevent, &revent);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clEnqueueReadBuffer",
                        "reading EmbeddingBag's output back to host memory");
    else {
      clReleaseEvent(kevent);
      kevent = revent;
      done = true;
    }
  } else if (st == CLG_SUCCESS && blocking) {
    cl_int err = clWaitForEvents(1, &kevent);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clWaitForEvents", "waiting for EmbeddingBag");
    done = err == CL_SUCCESS;
  }
  /* The kernel may still use wrapped host memory: not past the call. */
  if (st != CLG_SUCCESS && kevent && !done)
    (void)clWaitForEvents(1, &kevent);
  for (int k = 0; k < BAG_INPUTS; ++k)
    clg__unstage(&in[k]);
  clg__unstage(&o);
  if (smem)
    clReleaseMemObject(smem);
  if (st == CLG_SUCCESS && event)
    *event = kevent;
  else if (kevent)
    clReleaseEvent(kevent);
  return st;
}

clg_status clg_embedding_bag(clg_context *ctx, const clg_bag_params *params,
                             const clg_tensor *weight,
                             const clg_tensor *indices, const clg_tensor *bags,
                             const clg_tensor *per_sample_weights,
                             const clg_tensor *output, cl_command_queue queue,
                             cl_uint num_events, const cl_event *wait_list,
                             cl_event *event) {
  bag_call c = {
      .in = {weight, indices, bags, per_sample_weights},
      .names = {"weight", "indices",
                params && params->form == CLG_BAGS_SEGMENT_IDS ? "segment_ids"
                                                                : "offsets",
                "per_sample_weights"},
      .output = output,
  };
  clg_status st =
      bag_check_call(ctx, params, queue, num_events, wait_list, &c);
  if (st != CLG_SUCCESS)
    return st;
  const void *xv = NULL, *bv = NULL;
  void *xcopy = NULL, *bcopy = NULL;
  int64_t *starts = malloc((size_t)(c.g.num_bags + 1) * sizeof *starts);
  if (!starts)
    st = clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                   "allocating EmbeddingBag's %" PRId64 " bag starts",
                   c.g.num_bags + 1);
  if (st == CLG_SUCCESS)
    st = bag_values(&c, BAG_BAGS, num_events, wait_list, &bv, &bcopy);
  if (st == CLG_SUCCESS)
    st = bag_values(&c, BAG_INDICES, num_events, wait_list, &xv, &xcopy);
  if (st == CLG_SUCCESS)
    st = clg__bag_check_values(&c.g, xv, c.inf[BAG_INDICES].elem_size, bv,
                               bags ? c.inf[BAG_BAGS].elem_size : 0, starts);
  if (st == CLG_SUCCESS)
    st = c.of.bytes == 0
             ? bag_marker(&c, num_events, wait_list, event)
             : bag_launch(ctx, &c, starts, num_events, wait_list, event);
  free(xcopy);
  free(bcopy);
  free(starts);
  return st == CLG_SUCCESS ? clg__ok() : st;
}

clg_status clg_embedding_bag_async(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *weight,
    const clg_tensor *indices, const clg_tensor *bags,
    const clg_tensor *per_sample_weights, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event, clg_outcome **outcome) {
  if (!outcome)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "outcome is NULL");
  /* Every check is made before the call returns: the outcome is decided,
   * made first so that nothing can fail once the kernel is enqueued. */
  clg_outcome *o = NULL;
  clg_status st = clg__outcome_decided(&o);
  if (st != CLG_SUCCESS)
    return st;
  st = clg_embedding_bag(ctx, params, weight, indices, bags,
                         per_sample_weights, output, queue, num_events,
                         wait_list, event);
  if (st != CLG_SUCCESS) {
    clg_outcome_release(o);
    return st;
  }
  *outcome = o;
  return CLG_SUCCESS;
}
