/* The family's common path once the arguments are checked (call_checks.c): the
 * index values, staging, the operator's kernel calls, the read-back; and
 * the public entry points clg_run, clg_run_async and clg_scatter. Each
 * operator (ops/) supplies its shape rules, index checks and kernels
 * (clg_op_impl). */
#include "run/run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The end of a call: the host output read back, or host inputs waited
 * for (run.h). */
clg_status clg__finish_call(cl_command_queue queue, cl_mem out, size_t bytes,
                            void *host_out, bool blocking, cl_event *kevent,
                            const char *output_name, const char *call_name,
                            bool *done) {
  cl_int err = CL_SUCCESS;
  if (host_out) {
    /* For a wrapped output this reads the buffer into its own host memory:
     * a synchronisation point only (no copy on POCL). */
    cl_event revent = NULL;
    err = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, bytes, host_out, 1,
                              kevent, &revent);
    if (err != CL_SUCCESS) {
      char what[96];
      snprintf(what, sizeof what, "reading %s back to host memory",
               output_name);
      return clg__fail_cl(err, "clEnqueueReadBuffer", what);
    }
    clReleaseEvent(*kevent);
    *kevent = revent;
  } else if (blocking) {
    err = clWaitForEvents(1, kevent);
    if (err != CL_SUCCESS) {
      char what[96];
      snprintf(what, sizeof what, "waiting for %s", call_name);
      return clg__fail_cl(err, "clWaitForEvents", what);
    }
  } else
    return CLG_SUCCESS;
  *done = true;
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
               clg__same_storage(l->in[k], l->inf[k].bytes, l->output,
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
                               clg__input_names[k], &in[k])) != CLG_SUCCESS)
      break;
    l->ins[k] = &in[k];
  }
  if (st == CLG_SUCCESS)
    st = clg__stage_output(ctx, l->output, l->of.bytes, l->of.elem_size, keep,
                           clg__reads_output(c), &o);
  l->o = &o;
  for (int k = 0; k < l->num_inputs; ++k)
    if (alias[k])
      l->ins[k] = &o;
  cl_event kevent = NULL;
  clg_kernel_calls calls;
  calls.count = 0;
  if (st == CLG_SUCCESS && l->fused) {
    calls.count = 1;
    st = c->impl->fused(ctx, &c->norm, l, &calls.call[0]);
  } else if (st == CLG_SUCCESS)
    st = c->impl->prepare(ctx, &c->norm, l, verdict != NULL, &calls);
  /* No kernel to run (a scatter in place with no entries): an event all
   * the same, after the wait list. Else the calls in order, the last one's
   * event only where something waits for it: the caller, this call (host
   * memory) or the next call. */
  if (st == CLG_SUCCESS && calls.count == 0)
    st = clg__marker(l->queue, l->num_events, l->wait_list, &kevent,
                     "completing a call with nothing to write");
  else if (st == CLG_SUCCESS)
    st = clg__calls_launch(&calls, l->queue, verdict, l->num_events,
                           l->wait_list, l->in_order, event || blocking,
                           &kevent);
  bool wrapped = o.wrapped;
  for (int k = 0; k < l->num_inputs; ++k)
    wrapped = wrapped || in[k].wrapped;
  bool done = false; /* kevent known complete */
  char op_name[64];  /* "the ScatterND": the operator's messages */
  snprintf(op_name, sizeof op_name, "the %s", c->info->name);
  if (st == CLG_SUCCESS)
    st = clg__finish_call(
        l->queue, o.mem, l->of.bytes,
        l->output->storage == CLG_STORAGE_HOST ? l->output->host : NULL,
        blocking, &kevent, "the output", op_name, &done);
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
  else if (kevent)
    clReleaseEvent(kevent);
  return CLG_SUCCESS;
}

/* The tuner's trials that a gated call's prepare() could not run (it set
 * l->retime), once the call's verdict has passed: prepare() again,
 * ungated, on the call's own tensors, its kernel calls not launched. Every
 * candidate writes the output the gated kernel wrote, byte for byte, from
 * indices now known valid. All in cl_mem only (host tensors' staging is
 * gone with the kernels' launch; the class's next such call times). */
static clg_status clg_retime(clg_context *ctx, const clg_checked *c,
                             const clg_launch *gated) {
  clg_launch l = *gated;
  if (l.output->storage != CLG_STORAGE_BUFFER)
    return CLG_SUCCESS;
  for (int k = 0; k < l.num_inputs; ++k)
    if (l.in[k]->storage != CLG_STORAGE_BUFFER)
      return CLG_SUCCESS;
  clg_staged in[CLG_MAX_INPUTS] = {{0}}, o = {0};
  clg_status st = CLG_SUCCESS;
  for (int k = 0; k < l.num_inputs && st == CLG_SUCCESS; ++k) {
    st = clg__stage_input(ctx, l.in[k], l.inf[k].bytes, l.inf[k].elem_size,
                          false, clg__input_names[k], &in[k]);
    l.ins[k] = &in[k];
  }
  if (st == CLG_SUCCESS)
    st = clg__stage_output(ctx, l.output, l.of.bytes, l.of.elem_size, false,
                           clg__reads_output(c), &o);
  l.o = &o;
  l.retime = NULL;
  l.num_events = 0; /* the verdict's read waited for everything before */
  l.wait_list = NULL;
  clg_kernel_calls calls;
  if (st == CLG_SUCCESS)
    st = c->impl->prepare(ctx, &c->norm, &l, false, &calls);
  for (int k = 0; k < l.num_inputs; ++k)
    clg__unstage(&in[k]);
  clg__unstage(&o);
  return st;
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

/* The operator's index_schedule() on the index values in host memory (read
 * back once from a cl_mem, after the wait list), checked against the
 * bounds first when `check`; l->state receives its state. */
static clg_status clg_index_schedule(clg_context *ctx, const clg_checked *c,
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
                               clg__read_polls(ctx, c->xf.bytes),
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
    st = c->impl->index_schedule(ctx, &c->norm, &c->sc, data, indices, values,
                                 count, &l->state);
  free(copy);
  return st;
}

clg_status clg__run(const clg_call *call) {
  if (clg__call_strided(call)) /* strided.c: the same call, dense */
    return clg__run_strided(call, clg__run);
  clg_checked c;
  clg_launch l;
  clg_tensor_facts of;
  cl_command_queue queue = NULL;
  clg_status st = clg__check_call(call, &c, &of, &queue);
  if (st != CLG_SUCCESS)
    return st;
  /* Host tensors larger than the device's largest buffer: in parts. */
  if (clg__split_needed(call->ctx, &c, call, &of))
    return clg__run_split(call, &c, &of, queue, clg__run);
  clg_launch_init(&l, &c, call->in, call->output);
  l.of = of;
  l.queue = queue;
  l.num_events = call->num_events;
  l.wait_list = call->wait_list;
  clg_context *ctx = call->ctx;
  /* How the index values are checked (strategy.c's table). The gated
   * ways (cl_mem indices in mode RAISE and a cl_mem output) keep the
   * verdict on the device, where it gates the operator's kernels: GATED
   * (asynchronous checked mode; the outcome reads it), GATED_READ (a
   * synchronous call: read once, after the last kernel) and DEVICE_SCHEDULE
   * (an operator with an index schedule, the scatters, leaves that too to
   * the device). A host output is never gated: the read-back of a gated
   * kernel's unwritten staging buffer would change it; its values are
   * checked before any kernel of the operator is enqueued. */
  clg_check_way way =
      clg__check_way(ctx, &c, call->indices, call->output,
                     call->outcome != NULL, call->values_checked);
  /* After events of the caller's, the check comes first, as before
   * GATED_READ: a caller's event failing while the gated kernels wait
   * behind the validation kernel broke POCL 3.1's own bookkeeping
   * ("PTHREAD ERROR in pocl_update_event_failed()", then a crash:
   * index_pass::failed_wait_list_event on its basic driver), and a gated
   * read after a wait list waits twice anyway (verdict.c). */
  if (way == CLG_CHECK_GATED_READ && call->num_events > 0)
    way = clg__check_values_way(ctx, &c, call->indices);
  /* A small gated call: one kernel checks and gathers. */
  if (way == CLG_CHECK_GATED_READ && clg__fused_applies(ctx, &c, &of))
    way = CLG_CHECK_FUSED;
  /* A small gather of host memory on a CPU device: on this thread. */
  if ((way == CLG_CHECK_HOST || way == CLG_CHECK_NONE) &&
      clg__host_run_applies(ctx, &c, call, &of)) {
    clg__fi_note_way(CLG_CHECK_HOST_RUN);
    return clg__run_on_host(call, &c, &of, queue);
  }
  if (way == CLG_CHECK_DEVICE_SCHEDULE) {
    st = c.impl->device_schedule(ctx, &c.norm, &c.sc, call->data, call->indices,
                                 &l.state);
    if (st != CLG_SUCCESS)
      return st;
    if (!l.state) /* declined: the host's schedule */
      way = CLG_CHECK_HOST_SCHEDULE;
  }
  clg__fi_note_way(way);
  bool device_schedule = way == CLG_CHECK_DEVICE_SCHEDULE;
  bool deferred = clg__check_row(way)->gated;
  /* A call after no events of the caller's, on an in-order queue, makes
   * no event that nothing waits for: its kernels follow one another, and
   * a synchronous call's blocking read of the verdict (or of the output)
   * comes after them; an asynchronous call's outcome waits for its
   * validation kernel and its last kernel. An NVIDIA H200 took 2-3 us
   * more host time to enqueue a kernel with an event than without, and a
   * read waited longer after one. After a wait list, each kernel waits
   * for the event of the one before: a failed event of the caller's
   * must stop every kernel behind it (a gated kernel that ran after an
   * abandoned validation would read a clear flag). */
  if (call->num_events == 0)
    st = clg__queue_in_order(l.queue, &l.in_order);
  if (st != CLG_SUCCESS) {
    if (l.state)
      c.impl->release_state(l.state);
    return st;
  }
  bool events = call->outcome || !l.in_order; /* else only the caller's */
  clg_verdict v = {.mem = NULL};
  switch (way) {
  case CLG_CHECK_GATED:
  case CLG_CHECK_GATED_READ:
  case CLG_CHECK_DEVICE_SCHEDULE:
    /* A synchronous call whose device schedule checks the values itself runs
     * no validation kernel before it: a schedule's kernel reads the indices
     * anyway (SE1's row claim: one pass over 32 MB of indices less), and
     * the offender is located below, on the error path only. */
    if (device_schedule && !call->outcome && c.impl->checks_values &&
        c.impl->checks_values(l.state))
      st = clg__verdict_unlaunched(ctx, &c, call->num_events, &v);
    else
      st = clg__verdict_enqueue(ctx, &c, l.queue, call->data, call->indices,
                                call->num_events, call->wait_list, events, &v);
    break;
  case CLG_CHECK_FUSED: /* the operator's kernel writes the verdict */
    st = clg__verdict_unlaunched(ctx, &c, call->num_events, &v);
    if (st == CLG_SUCCESS) {
      v.groups = 1;
      v.gen = clg__verdict_next_gen(ctx);
      l.fused = v.mem;
      l.fused_gen = v.gen;
    }
    break;
  case CLG_CHECK_HOST_SCHEDULE: /* the values are checked on the host */
    st = clg_index_schedule(ctx, &c, &l, call->data, call->indices,
                            !call->values_checked);
    break;
  default: /* NONE, HOST, READ_BACK, DEVICE */
    if (!call->values_checked)
      st = clg__check_index_values(ctx, &c, l.queue, call->data,
                                   call->indices, call->num_events,
                                   call->wait_list);
    break;
  }
  if (st != CLG_SUCCESS) {
    if (l.state)
      c.impl->release_state(l.state);
    return st;
  }
  /* No validation kernel behind the verdict (run number 0): a device schedule
   * whose kernels check the values themselves. */
  bool bare = deferred && v.gen == 0;
  /* A synchronous gated call may time the variants its prepare() could not
   * once its verdict has passed (clg_retime). */
  bool retime = false;
  if (way == CLG_CHECK_GATED_READ)
    l.retime = &retime;
  if (deferred) {
    /* The kernels wait for the verdict, which waited for the wait list
     * (a bare verdict: they wait for the wait list). */
    if (v.event) {
      l.num_events = 1;
      l.wait_list = &v.event;
    }
    l.verdict_extra = CLG_VERDICT_EXTRA_AT;
  }

  /* The outcome exists before any kernel of the operator is enqueued:
   * failing to make it fails the call with nothing written. It takes the
   * verdict's buffer. */
  clg_outcome *outcome = NULL;
  if (call->outcome && !deferred)
    st = clg__outcome_decided(&outcome);
  else if (call->outcome) {
    st = clg__outcome_pending(ctx, &c, call->data, call->indices, l.queue, &v,
                              &outcome);
  }
  /* The verdict's buffer is the outcome's once it exists (its kernels
   * still read it from here). The fused kernel takes it as its own
   * argument, not as a gate. */
  cl_mem verdict = way == CLG_CHECK_FUSED ? NULL : v.mem;
  if (outcome && deferred)
    v.mem = NULL;
  /* A gated call keeps its last kernel's event: a synchronous one reads
   * the verdict after it (the one wait of the call: the kernels were all
   * enqueued before it), and the verdict buffer goes back to the context
   * to be reused once that kernel, its last reader, has ended. */
  cl_event last = NULL;
  cl_event *done_event = call->event;
  if (deferred)
    done_event = events || call->event ? &last : NULL;
  if (st == CLG_SUCCESS)
    st = l.of.bytes == 0
             ? clg__marker(l.queue, l.num_events, l.wait_list, done_event,
                           "completing a call with an empty output")
             : clg_run_kernels(ctx, &c, &l, verdict, done_event);
  /* The fused kernel is the call's validation kernel too. */
  if (st == CLG_SUCCESS && way == CLG_CHECK_FUSED)
    atomic_fetch_add_explicit(&ctx->device_validations, 1,
                              memory_order_relaxed);
  if (st == CLG_SUCCESS && deferred) {
    /* Read after the last kernel (a synchronous call, and a device schedule's
     * outcome: its verdict is complete only when its last kernel is), or,
     * an asynchronous gather's, after the validation kernel. */
    clg_verdict dv = v;
    if (device_schedule || !call->outcome) {
      dv.event = last;
      dv.poll = !device_schedule &&
                clg__read_polls(ctx, c.xf.bytes > l.of.bytes ? c.xf.bytes
                                                             : l.of.bytes);
    }
    if (call->outcome) {
      clg__outcome_enqueued(outcome, last, device_schedule);
      /* Each kernel waits for the one before: `last` ends after all. */
      if (c.impl->state_done && l.state)
        c.impl->state_done(l.state, last);
    } else {
      cl_ulong pos = CLG_VERDICT_NONE, extra[CLG_VERDICT_EXTRA] = {0};
      int64_t value = 0;
      st = clg__verdict_read(&dv, l.queue, &pos, &value, extra);
      /* The read waited for the last kernel, each kernel for the one
       * before: none of the call's runs any more. */
      if (st == CLG_SUCCESS && c.impl->state_done && l.state)
        c.impl->state_done(l.state, NULL);
      clg__verdict_give(ctx, &v,
                        st == CLG_SUCCESS && clg__verdict_clean(pos, extra),
                        last);
      /* A bare verdict's plan met an index out of range (bit 1 of its
       * first word) and wrote nothing: the validation kernel (or the
       * read-back) names the first offender. The caller's events are
       * complete: the schedule's kernels waited for them. */
      if (st == CLG_SUCCESS && bare && (extra[0] & 2u))
        st = clg__check_index_values(ctx, &c, l.queue, call->data,
                                     call->indices, 0, NULL);
      if (st == CLG_SUCCESS)
        st = clg__verdict_status(c.impl, &c.norm, call->data, call->indices,
                                 pos, value, extra);
      if (st == CLG_SUCCESS && retime)
        st = clg_retime(ctx, &c, &l);
    }
    if (st == CLG_SUCCESS && call->event)
      *call->event = last;
    else if (last)
      clReleaseEvent(last);
  }
  /* A verdict still held here was not read (a failure on the way): its
   * state is not known, so it is released, not given back. */
  clg__verdict_release(&v);
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

/* clg_scatter() and clg_scatter_async() (outcome not NULL). */
static clg_status clg_scatter_call(
    clg_context *ctx, const clg_params *params,
    const clg_scatter_params *scatter, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *updates,
    const clg_tensor *output, cl_command_queue queue, cl_uint num_events,
    const cl_event *wait_list, cl_event *event, clg_outcome **outcome) {
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
  return clg_scatter_call(ctx, params, scatter, data, indices, updates,
                          output, queue, num_events, wait_list, event, NULL);
}

clg_status clg_scatter_async(clg_context *ctx, const clg_params *params,
                             const clg_scatter_params *scatter,
                             const clg_tensor *data, const clg_tensor *indices,
                             const clg_tensor *updates,
                             const clg_tensor *output, cl_command_queue queue,
                             cl_uint num_events, const cl_event *wait_list,
                             cl_event *event, clg_outcome **outcome) {
  if (params && !outcome)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "outcome is NULL");
  return clg_scatter_call(ctx, params, scatter, data, indices, updates,
                          output, queue, num_events, wait_list, event,
                          outcome);
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
  /* The kernels for the templates' offsets (host memory: aligned). Nothing
   * is allocated and nothing launched (l.baking). */
  clg_launch l;
  clg_launch_init(&l, c, in, output);
  l.of = *of;
  l.baking = true;
  clg_staged staged[CLG_MAX_INPUTS], o;
  size_t off = output->storage == CLG_STORAGE_BUFFER ? output->offset : 0;
  o = (clg_staged){NULL, off, off, false, false};
  l.o = &o;
  for (int k = 0; k < c->num_inputs; ++k) {
    off = in[k]->storage == CLG_STORAGE_BUFFER ? in[k]->offset : 0;
    staged[k] = (clg_staged){NULL, off, k == CLG_IN_INDICES ? 0 : off, false,
                             false};
    l.ins[k] = &staged[k];
    /* In place when the templates already say so (storage they share). */
    bool known = in[k]->storage == CLG_STORAGE_BUFFER ? in[k]->buffer != NULL
                                                      : in[k]->host != NULL;
    if (known && c->impl->output_may_alias && c->impl->output_may_alias(k) &&
        clg__same_storage(in[k], c->inf[k].bytes, output, of->bytes))
      l.ins[k] = &o;
  }
  /* Gated as clg__run() gates, by the same rule (strategy.c): a scatter
   * takes the device's index pass where clg__run() would (then always
   * gated), else the host's kernels (prepare() with no state while
   * baking). */
  clg_check_way way = clg__check_way(ctx, c, indices, output, gated, false);
  if (way == CLG_CHECK_DEVICE_SCHEDULE) {
    if ((st = c->impl->device_schedule(ctx, &c->norm, &c->sc, data, indices,
                                       &l.state)) != CLG_SUCCESS)
      return st;
    if (!l.state)
      way = CLG_CHECK_HOST_SCHEDULE;
  }
  gated = clg__check_row(way)->gated;
  clg_kernel_calls calls;
  st = c->impl->prepare(ctx, &c->norm, &l, gated, &calls);
  /* A synchronous enqueue small enough runs the fused kernel instead. */
  if (st == CLG_SUCCESS && way == CLG_CHECK_GATED_READ &&
      clg__fused_applies(ctx, c, of))
    st = c->impl->fused(ctx, &c->norm, &l, &calls.call[0]);
  if (l.state)
    c->impl->release_state(l.state);
  return st;
}
