/* The public entry points clg_gather_block_quantized() and
 * clg_gather_block_quantized_async() (clgather/clgather_quantized.h), as
 * its plans' enqueues run them too (gbq_plans.c): GatherBlockQuantized's
 * call, step by step. Its rules are ops/gather_block_quantized.c's; the
 * index pass, the validation kernel, its verdict and outcomes, staging
 * and launching are the family's (run/index_pass.c, run/verdict.c,
 * run/outcome.c, device/enqueue.c), the way the values are checked
 * strategy.c's, as for a Gather.
 *
 * The steps: every check that reads no value (params, types, shapes, then
 * each operand's descriptor and memory, alignment, overlaps, the queue,
 * what the device offers); then the way (clg__check_way, with the
 * operator's index rule, clg__gbq_rule): host indices scanned in place,
 * cl_mem ones read back or checked by the validation kernel before the
 * kernel is enqueued (HOST, READ_BACK, DEVICE), or, with cl_mem indices
 * and output, the validation kernel and the kernel gated on its verdict
 * enqueued together, the verdict read after them (GATED_READ, a
 * synchronous call without a wait list) or by the outcome (GATED); then
 * the operands staged and the one kernel enqueued, a host output read
 * back. */
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
  clg_checked rule;  /* the index rule (clg__gbq_rule) */
  clg_tensor values; /* the descriptor it reads (the values' shape) */
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

/* The call of these operands (zero_points may be NULL); nothing checked
 * yet. */
static void gbq_call_of(gbq_call *c, const clg_tensor *data,
                        const clg_tensor *indices, const clg_tensor *scales,
                        const clg_tensor *zero_points,
                        const clg_tensor *output) {
  memset(c, 0, sizeof *c);
  c->in[GBQ_DATA] = data;
  c->in[GBQ_INDICES] = indices;
  c->in[GBQ_SCALES] = scales;
  c->in[GBQ_ZP] = zero_points;
  c->output = output;
}

/* A plan's template as clg__check_tensor() checks it without memory: host
 * storage at an address never read (as call_checks.c's templates). */
static const clg_tensor *gbq_desc(const clg_tensor *t, bool templates,
                                  clg_tensor *copy) {
  static unsigned char nowhere;
  if (!templates)
    return t;
  *copy = *t;
  copy->storage = CLG_STORAGE_HOST;
  copy->host = &nowhere;
  copy->buffer = NULL;
  return copy;
}

/* Every check that reads no value; `templates` (a plan's, gbq_plans.c):
 * every one that looks at no memory (no buffer, overlap, queue or
 * device). */
static clg_status gbq_check_call(clg_context *ctx, const clg_gbq_params *params,
                                 cl_command_queue queue, cl_uint num_events,
                                 const cl_event *wait_list, gbq_call *c,
                                 bool templates) {
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
    clg_tensor copy, desc;
    const clg_tensor *d = k == GBQ_DATA ? gbq_bytes_view(t, c->g.data_bytes,
                                                         &copy)
                          : k == GBQ_ZP ? gbq_bytes_view(t, c->g.zp_bytes,
                                                         &copy)
                                        : t;
    size_t elem = clg_dtype_size(t->dtype);
    if ((st = clg__check_tensor(ctx, name, gbq_desc(d, templates, &desc), elem,
                                f)) != CLG_SUCCESS)
      return st;
    if (t->storage == CLG_STORAGE_BUFFER && t->offset % elem != 0)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "%s->offset is %zu bytes, not a multiple of its "
                       "element size %zu",
                       name, t->offset, elem);
  }
  clg__gbq_rule(&c->g, c->in[GBQ_INDICES], &c->inf[GBQ_INDICES],
                clg__context_host_threads(ctx), &c->rule, &c->values);
  if (templates)
    return CLG_SUCCESS;
  /* What the device offers, before any value is read: a device that
   * cannot give the promised bits refuses the call whichever way its
   * values would be checked (as a plan's creation refuses it). */
  if (c->g.count > 0 && (st = clg__gbq_device_check(ctx, &c->g)) != CLG_SUCCESS)
    return st;
  for (int k = 0; k < GBQ_INPUTS; ++k)
    if (c->in[k] &&
        (st = clg__check_no_overlap(gbq_names[k], c->in[k], c->inf[k].bytes,
                                    c->output, c->of.bytes)) != CLG_SUCCESS)
      return st;
  return clg__resolve_queue(ctx, queue, &c->queue);
}

/* A call's operands staged (device/enqueue.c) and the kernel's view of
 * them; host memory makes the call blocking (the kernel may read it in
 * place). */
typedef struct gbq_staged {
  clg_staged in[GBQ_INPUTS], o;
  clg_gbq_mems m;
  bool blocking;
} gbq_staged;

static void gbq_unstage(gbq_staged *s) {
  for (int k = 0; k < GBQ_INPUTS; ++k)
    clg__unstage(&s->in[k]);
  clg__unstage(&s->o);
}

static clg_status gbq_stage(clg_context *ctx, const gbq_call *c,
                            gbq_staged *s) {
  memset(s, 0, sizeof *s);
  s->blocking = c->output->storage == CLG_STORAGE_HOST;
  clg_status st = CLG_SUCCESS;
  for (int k = 0; k < GBQ_INPUTS && st == CLG_SUCCESS; ++k)
    if (c->in[k]) {
      s->blocking = s->blocking || c->in[k]->storage == CLG_STORAGE_HOST;
      st = clg__stage_input(ctx, c->in[k], c->inf[k].bytes, c->inf[k].elem_size,
                            true, gbq_names[k], &s->in[k]);
    }
  if (st == CLG_SUCCESS)
    st = clg__stage_output(ctx, c->output, c->of.bytes, c->of.elem_size, false,
                           false, &s->o);
  if (st != CLG_SUCCESS) {
    gbq_unstage(s);
    return st;
  }
  s->m = (clg_gbq_mems){
      .data = s->in[GBQ_DATA].mem,
      .indices = s->in[GBQ_INDICES].mem,
      .scales = s->in[GBQ_SCALES].mem,
      .zp = s->in[GBQ_ZP].mem,
      .output = s->o.mem,
      .data_off = s->in[GBQ_DATA].offset,
      .indices_off = s->in[GBQ_INDICES].offset,
      .scales_off = s->in[GBQ_SCALES].offset,
      .zp_off = s->in[GBQ_ZP].offset,
      .output_off = s->o.offset,
      .index_size = c->inf[GBQ_INDICES].elem_size,
      .queue = c->queue,
  };
  return CLG_SUCCESS;
}

/* Enqueue the kernel after the wait list (gated on `gate` when not NULL;
 * ungated, its variants may be timed first, after the wait list too),
 * then read a host output back, or wait for the kernel where the call
 * blocks. *event gets the last command's event; event NULL: nothing waits
 * by it (an in-order queue orders what follows), and a call that does not
 * block makes none. */
static clg_status gbq_launch(clg_context *ctx, const gbq_call *c, gbq_staged *s,
                             cl_mem gate, cl_uint num_events,
                             const cl_event *wait_list, bool *retime,
                             cl_event *event) {
  s->m.num_events = num_events;
  s->m.wait_list = wait_list;
  s->m.can_time = gate == NULL;
  s->m.retime = retime;
  clg_kernel_call call;
  clg_status st = clg__gbq_prepare(ctx, &c->g, &s->m, gate != NULL, &call);
  if (st == CLG_SUCCESS)
    st = clg__check_wait_failed(num_events, wait_list);
  cl_event kevent = NULL;
  if (st == CLG_SUCCESS)
    st = clg__call_launch(&call, c->queue, gate, num_events, wait_list,
                          event || s->blocking ? &kevent : NULL);
  bool done = false;
  if (st == CLG_SUCCESS)
    st = clg__finish_call(
        c->queue, s->o.mem, c->of.bytes,
        c->output->storage == CLG_STORAGE_HOST ? c->output->host : NULL,
        s->blocking, &kevent, "GatherBlockQuantized's output",
        "GatherBlockQuantized", &done);
  /* The kernel may still use wrapped host memory: not past the call. */
  if (st != CLG_SUCCESS && kevent && !done)
    (void)clWaitForEvents(1, &kevent);
  if (st == CLG_SUCCESS && event)
    *event = kevent;
  else if (kevent)
    clReleaseEvent(kevent);
  return st;
}

/* The values checked before the kernel is enqueued (HOST, READ_BACK,
 * DEVICE, NONE): an asynchronous call's outcome is decided. */
static clg_status gbq_run_checked(clg_context *ctx, const gbq_call *c,
                                  cl_uint num_events, const cl_event *wait_list,
                                  cl_event *event, clg_outcome **outcome) {
  clg_status st =
      clg__check_index_values(ctx, &c->rule, c->queue, &c->values,
                              c->in[GBQ_INDICES], num_events, wait_list);
  clg_outcome *o = NULL;
  if (st == CLG_SUCCESS && outcome)
    st = clg__outcome_decided(&o);
  if (st == CLG_SUCCESS && c->g.count == 0)
    st = clg__marker(c->queue, num_events, wait_list, event,
                     "completing a GatherBlockQuantized with an empty output");
  else if (st == CLG_SUCCESS) {
    gbq_staged staged;
    if ((st = gbq_stage(ctx, c, &staged)) == CLG_SUCCESS) {
      st =
          gbq_launch(ctx, c, &staged, NULL, num_events, wait_list, NULL, event);
      gbq_unstage(&staged);
    }
  }
  if (st != CLG_SUCCESS) {
    clg_outcome_release(o);
    return st;
  }
  if (outcome)
    *outcome = o;
  return CLG_SUCCESS;
}

/* GATED and GATED_READ: the validation kernel and the kernel gated on its
 * verdict, enqueued together; the verdict read after the kernel (a
 * synchronous call: its one wait) or by the outcome (which takes the
 * verdict's buffer and gives it back to the context once read). A
 * synchronous call whose kernel could not time its variants gated times
 * them once its verdict has passed (each trial writes the same output). */
static clg_status gbq_run_gated(clg_context *ctx, const gbq_call *c,
                                cl_uint num_events, const cl_event *wait_list,
                                cl_event *event, clg_outcome **outcome) {
  const clg_tensor *indices = c->in[GBQ_INDICES];
  /* Events only where something waits by them: the outcome, the kernel
   * on an out-of-order queue. An in-order queue runs the kernel after the
   * validation, and the verdict's blocking read comes after both. */
  bool in_order = false;
  clg_status st = CLG_SUCCESS;
  if (num_events == 0)
    st = clg__queue_in_order(c->queue, &in_order);
  if (st != CLG_SUCCESS)
    return st;
  clg_verdict v = {.mem = NULL};
  st = clg__verdict_enqueue(ctx, &c->rule, c->queue, &c->values, indices,
                            num_events, wait_list, outcome || !in_order, &v);
  if (st != CLG_SUCCESS)
    return st;
  /* The outcome exists before the kernel is enqueued: failing to make it
   * fails the call with nothing written. */
  clg_outcome *o = NULL;
  if (outcome)
    st = clg__outcome_pending(ctx, &c->rule, &c->values, indices, c->queue, &v,
                              &o);
  cl_mem verdict = v.mem;
  if (o)
    v.mem = NULL; /* the outcome's */
  cl_event last = NULL;
  gbq_staged staged;
  bool staged_ok = false, retime = false;
  if (st == CLG_SUCCESS)
    staged_ok = (st = gbq_stage(ctx, c, &staged)) == CLG_SUCCESS;
  /* The kernel's event where something waits by it: the outcome, the
   * verdict's read on an out-of-order queue, the caller. */
  bool want_last = o || !in_order || event;
  if (st == CLG_SUCCESS)
    st = gbq_launch(ctx, c, &staged, verdict, v.event ? 1 : 0,
                    v.event ? &v.event : NULL, o ? NULL : &retime,
                    want_last ? &last : NULL);
  if (st == CLG_SUCCESS && o)
    clg__outcome_enqueued(o, last, false);
  else if (st == CLG_SUCCESS) {
    clg_verdict dv = v;
    dv.event = last;
    dv.poll = clg__read_polls(ctx, c->inf[GBQ_INDICES].bytes > c->of.bytes
                                       ? c->inf[GBQ_INDICES].bytes
                                       : c->of.bytes);
    cl_ulong pos = CLG_VERDICT_NONE;
    int64_t value = 0;
    st = clg__verdict_read(&dv, c->queue, &pos, &value, NULL);
    clg__verdict_give(ctx, &v,
                      st == CLG_SUCCESS && clg__verdict_clean(pos, NULL), last);
    if (st == CLG_SUCCESS && pos != CLG_VERDICT_NONE)
      st = c->rule.impl->report(&c->rule.norm, &c->values, indices, (size_t)pos,
                                value);
    if (st == CLG_SUCCESS && retime) {
      /* The values passed: time the variants now, ungated (the caller's
       * events, if any, are complete: the verdict waited for them). */
      cl_event again = NULL;
      st = gbq_launch(ctx, c, &staged, NULL, 0, NULL, NULL,
                      want_last ? &again : NULL);
      if (again) {
        clReleaseEvent(last);
        last = again;
      }
    }
  }
  if (staged_ok)
    gbq_unstage(&staged);
  if (st == CLG_SUCCESS && event)
    *event = last;
  else if (last)
    clReleaseEvent(last);
  /* A verdict still held here was not read (a failure on the way): its
   * state is not known, so it is released, not given back. */
  clg__verdict_release(&v);
  if (st != CLG_SUCCESS) {
    clg_outcome_release(o);
    return st;
  }
  if (outcome)
    *outcome = o;
  return CLG_SUCCESS;
}

clg_status clg__gbq_call(clg_context *ctx, const clg_gbq_params *params,
                         const clg_tensor *data, const clg_tensor *indices,
                         const clg_tensor *scales,
                         const clg_tensor *zero_points,
                         const clg_tensor *output, cl_command_queue queue,
                         cl_uint num_events, const cl_event *wait_list,
                         cl_event *event, clg_outcome **outcome) {
  gbq_call c;
  gbq_call_of(&c, data, indices, scales, zero_points, output);
  if (event)
    *event = NULL;
  if (outcome)
    *outcome = NULL;
  clg_status st =
      gbq_check_call(ctx, params, queue, num_events, wait_list, &c, false);
  if (st != CLG_SUCCESS)
    return st;
  /* The way, as a Gather's (strategy.c); an empty output has no kernel to
   * gate. After events of the caller's, a synchronous call checks
   * first (call.c says why). */
  clg_check_way way = c.g.count == 0
                          ? clg__check_values_way(ctx, &c.rule, indices)
                          : clg__check_way(ctx, &c.rule, indices, output,
                                           outcome != NULL, false);
  if (way == CLG_CHECK_GATED_READ && num_events > 0)
    way = clg__check_values_way(ctx, &c.rule, indices);
  clg__fi_note_way(way);
  st = clg__check_row(way)->gated
           ? gbq_run_gated(ctx, &c, num_events, wait_list, event, outcome)
           : gbq_run_checked(ctx, &c, num_events, wait_list, event, outcome);
  return st == CLG_SUCCESS ? clg__ok() : st;
}

clg_status clg__gbq_check_templates(
    clg_context *ctx, const clg_gbq_params *params, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *scales,
    const clg_tensor *zero_points, const clg_tensor *output, clg_gbq_geom *g) {
  gbq_call c;
  gbq_call_of(&c, data, indices, scales, zero_points, output);
  clg_status st = gbq_check_call(ctx, params, NULL, 0, NULL, &c, true);
  if (st == CLG_SUCCESS)
    *g = c.g;
  return st;
}

clg_status clg_gather_block_quantized(
    clg_context *ctx, const clg_gbq_params *params, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *scales,
    const clg_tensor *zero_points, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event) {
  return clg__gbq_call(ctx, params, data, indices, scales, zero_points, output,
                       queue, num_events, wait_list, event, NULL);
}

clg_status clg_gather_block_quantized_async(
    clg_context *ctx, const clg_gbq_params *params, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *scales,
    const clg_tensor *zero_points, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event, clg_outcome **outcome) {
  if (event)
    *event = NULL;
  if (outcome)
    *outcome = NULL;
  if (!outcome)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "outcome is NULL");
  return clg__gbq_call(ctx, params, data, indices, scales, zero_points, output,
                       queue, num_events, wait_list, event, outcome);
}
