/* The public entry point clg_gather_block_quantized()
 * (clgather/clgather_quantized.h): GatherBlockQuantized's call, step by
 * step. Its rules are ops/gather_block_quantized.c's; staging and
 * launching are the family's (device/enqueue.c).
 *
 * The steps: every check that reads no value (params, types, shapes, then
 * each operand's descriptor and memory, alignment, overlaps, the queue);
 * then the index values on the host (a cl_mem's read back, blocking,
 * after the wait list: this first version has no check on the device);
 * then the operands staged and the one kernel enqueued after the wait
 * list, a host output read back. */
#include "ops/gather_block_quantized.h"
#include "run/run.h"

#include <stdlib.h>

enum { GBQ_DATA, GBQ_INDICES, GBQ_SCALES, GBQ_ZP, GBQ_INPUTS };
static const char *const gbq_names[GBQ_INPUTS] = {"data", "indices", "scales",
                                                  "zero_points"};

/* A call's operands, their facts once checked, and its geometry. */
typedef struct gbq_call {
  const clg_tensor *in[GBQ_INPUTS];
  clg_tensor_facts inf[GBQ_INPUTS];
  const clg_tensor *output;
  clg_tensor_facts of;
  clg_gbq_geom g;
  cl_command_queue queue;
} gbq_call;

/* The packed operands (data, zero points) as what their memory holds: a
 * 1-D uint8 tensor of their bytes (the 4-bit kinds' shapes count values,
 * two a byte), so that the descriptor's checks ask the memory for the
 * bytes there are. */
static const clg_tensor *gbq_bytes_view(const clg_tensor *t, size_t bytes,
                                        clg_tensor *copy) {
  *copy = *t;
  copy->rank = 1;
  memset(copy->shape, 0, sizeof copy->shape);
  copy->shape[0] = (int64_t)bytes;
  return copy;
}

static clg_status gbq_check_call(clg_context *ctx, const clg_gbq_params *params,
                                 cl_command_queue queue, cl_uint num_events,
                                 const cl_event *wait_list, gbq_call *c) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  if (!params)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "params is NULL");
  for (int k = 0; k < GBQ_INPUTS; ++k)
    if (!c->in[k] && k != GBQ_ZP)
      return clg__fail(CLG_ERROR_NULL_ARGUMENT, "%s is NULL", gbq_names[k]);
  if (!c->output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  clg_status st = clg__check_wait_list(num_events, wait_list);
  if (st != CLG_SUCCESS)
    return st;
  for (int k = 0; k <= GBQ_INPUTS; ++k) {
    const clg_tensor *t = k < GBQ_INPUTS ? c->in[k] : c->output;
    if (t && t->storage != CLG_STORAGE_HOST &&
        t->storage != CLG_STORAGE_BUFFER)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "%s's storage is %d; GatherBlockQuantized takes host "
                       "memory (CLG_STORAGE_HOST) or a cl_mem "
                       "(CLG_STORAGE_BUFFER), not strided views",
                       k < GBQ_INPUTS ? gbq_names[k] : "output",
                       (int)t->storage);
  }
  if ((st = clg__gbq_check(params, c->in[GBQ_DATA], c->in[GBQ_INDICES],
                           c->in[GBQ_SCALES], c->in[GBQ_ZP], c->output,
                           &c->g)) != CLG_SUCCESS)
    return st;
  /* Descriptors and memory; cl_mem offsets aligned for the kernel's
   * loads. */
  for (int k = 0; k <= GBQ_INPUTS; ++k) {
    const clg_tensor *t = k < GBQ_INPUTS ? c->in[k] : c->output;
    const char *name = k < GBQ_INPUTS ? gbq_names[k] : "output";
    clg_tensor_facts *f = k < GBQ_INPUTS ? &c->inf[k] : &c->of;
    if (!t)
      continue;
    clg_tensor copy;
    const clg_tensor *d = k == GBQ_DATA ? gbq_bytes_view(t, c->g.data_bytes,
                                                         &copy)
                          : k == GBQ_ZP ? gbq_bytes_view(t, c->g.zp_bytes,
                                                         &copy)
                                        : t;
    size_t elem = clg_dtype_size(t->dtype);
    if ((st = clg__check_tensor(ctx, name, d, elem, f)) != CLG_SUCCESS)
      return st;
    if (t->storage == CLG_STORAGE_BUFFER && t->offset % elem != 0)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "%s->offset is %zu bytes, not a multiple of its "
                       "element size %zu",
                       name, t->offset, elem);
  }
  for (int k = 0; k < GBQ_INPUTS; ++k)
    if (c->in[k] &&
        (st = clg__check_no_overlap(gbq_names[k], c->in[k], c->inf[k].bytes,
                                    c->output, c->of.bytes)) != CLG_SUCCESS)
      return st;
  return clg__resolve_queue(ctx, queue, &c->queue);
}

/* The index values on the host: in place, or read back from their cl_mem
 * (blocking, after the wait list) into a copy. */
static clg_status gbq_check_values(clg_context *ctx, const gbq_call *c,
                                   cl_uint num_events,
                                   const cl_event *wait_list) {
  const clg_tensor *t = c->in[GBQ_INDICES];
  size_t bytes = c->inf[GBQ_INDICES].bytes;
  if (bytes == 0)
    return CLG_SUCCESS;
  void *copy = NULL;
  const void *values = t->host;
  clg_status st = CLG_SUCCESS;
  if (t->storage == CLG_STORAGE_BUFFER) {
    if (!(copy = CLG_MALLOC(bytes)))
      return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                       "allocating %zu bytes to check indices", bytes);
    st = clg__read_buffer(c->queue, t, bytes, copy, num_events, wait_list,
                          false, "indices");
    values = copy;
  }
  if (st == CLG_SUCCESS)
    st = clg__gbq_check_values(&c->g, t, values,
                               c->inf[GBQ_INDICES].elem_size,
                               clg__context_host_threads(ctx));
  free(copy);
  return st;
}

/* Stage every operand, enqueue the kernel after the wait list, read a
 * host output back; host memory makes the call blocking (the kernel may
 * read it in place). */
static clg_status gbq_launch(clg_context *ctx, const gbq_call *c,
                             cl_uint num_events, const cl_event *wait_list,
                             cl_event *event) {
  clg_staged in[GBQ_INPUTS] = {{0}}, o = {0};
  bool blocking = c->output->storage == CLG_STORAGE_HOST;
  clg_status st = CLG_SUCCESS;
  for (int k = 0; k < GBQ_INPUTS && st == CLG_SUCCESS; ++k)
    if (c->in[k]) {
      blocking = blocking || c->in[k]->storage == CLG_STORAGE_HOST;
      st = clg__stage_input(ctx, c->in[k], c->inf[k].bytes,
                            c->inf[k].elem_size, true, gbq_names[k], &in[k]);
    }
  if (st == CLG_SUCCESS)
    st = clg__stage_output(ctx, c->output, c->of.bytes, c->of.elem_size, false,
                           false, &o);
  clg_kernel_call call;
  if (st == CLG_SUCCESS) {
    clg_gbq_mems m = {
        .data = in[GBQ_DATA].mem,
        .indices = in[GBQ_INDICES].mem,
        .scales = in[GBQ_SCALES].mem,
        .zp = in[GBQ_ZP].mem,
        .output = o.mem,
        .data_off = in[GBQ_DATA].offset,
        .indices_off = in[GBQ_INDICES].offset,
        .scales_off = in[GBQ_SCALES].offset,
        .zp_off = in[GBQ_ZP].offset,
        .output_off = o.offset,
        .index_size = c->inf[GBQ_INDICES].elem_size,
    };
    st = clg__gbq_prepare(ctx, &c->g, &m, &call);
  }
  if (st == CLG_SUCCESS)
    st = clg__check_wait_failed(num_events, wait_list);
  cl_event kevent = NULL;
  if (st == CLG_SUCCESS)
    st = clg__call_launch(&call, c->queue, NULL, num_events, wait_list,
                          &kevent);
  bool done = false;
  if (st == CLG_SUCCESS)
    st = clg__finish_call(
        c->queue, o.mem, c->of.bytes,
        c->output->storage == CLG_STORAGE_HOST ? c->output->host : NULL,
        blocking, &kevent, "GatherBlockQuantized's output",
        "GatherBlockQuantized", &done);
  /* The kernel may still use wrapped host memory: not past the call. */
  if (st != CLG_SUCCESS && kevent && !done)
    (void)clWaitForEvents(1, &kevent);
  if (st == CLG_SUCCESS && event)
    *event = kevent;
  else if (kevent)
    clReleaseEvent(kevent);
  for (int k = 0; k < GBQ_INPUTS; ++k)
    clg__unstage(&in[k]);
  clg__unstage(&o);
  return st;
}

clg_status clg_gather_block_quantized(
    clg_context *ctx, const clg_gbq_params *params, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *scales,
    const clg_tensor *zero_points, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event) {
  gbq_call c;
  memset(&c, 0, sizeof c);
  c.in[GBQ_DATA] = data;
  c.in[GBQ_INDICES] = indices;
  c.in[GBQ_SCALES] = scales;
  c.in[GBQ_ZP] = zero_points;
  c.output = output;
  if (event)
    *event = NULL;
  clg_status st =
      gbq_check_call(ctx, params, queue, num_events, wait_list, &c);
  if (st == CLG_SUCCESS)
    st = gbq_check_values(ctx, &c, num_events, wait_list);
  if (st == CLG_SUCCESS && c.g.count == 0)
    st = clg__marker(c.queue, num_events, wait_list, event,
                     "completing a GatherBlockQuantized with an empty output");
  else if (st == CLG_SUCCESS)
    st = gbq_launch(ctx, &c, num_events, wait_list, event);
  return st == CLG_SUCCESS ? clg__ok() : st;
}
