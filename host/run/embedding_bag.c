/* The public entry points clg_embedding_bag() and clg_embedding_bag_async()
 * (clgather/clgather_bag.h): EmbeddingBag's call, step by step. Its rules
 * are ops/embedding_bag.c's; staging and launching are the family's
 * (device/enqueue.c), and so is the choice of how its values are checked
 * (run/strategy.c, clg__bag_check_way).
 *
 * The steps: every check that reads no value (params, types, descriptors,
 * shapes, queue, overlaps: run/bag_checks.c); then the values of indices and
 * bags, either
 *  - on the host (HOST, READ_BACK: a cl_mem one read back, blocking, after
 *    the wait list), segment ids turned into each segment's first entry
 *    (`starts`), then the reduction, or
 *  - on the device, checked first (DEVICE: the validation kernel, its
 *    verdict read, then the reduction), or
 *  - on the device, gated (GATED, GATED_READ): the validation kernel and
 *    the reduction gated on its verdict enqueued together, the verdict
 *    read by the outcome (asynchronous) or once, after the reduction (a
 *    synchronous call's one wait); the segments' starts computed by a
 *    kernel.
 * A host weight larger than the device's largest buffer takes
 * run/bag_split.c's path instead, once the first checks have passed.
 * Plans (bag_plans.c) make the first checks on templates at their
 * creation (clg__bag_check_templates) and run this same call at each
 * enqueue (clg__bag_call). Strided operands: run/bag_strided.c, which
 * calls this on dense ones. */
#include "ops/embedding_bag.h"
#include "run/bag_call.h"
#include "run/bag_split.h"
#include "run/run.h"
#include "run/strided.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The values of an int tensor on the host: its own memory, or a copy read
 * back from its cl_mem (blocking, after the wait list) into *copy. */
static clg_status bag_values(const clg_bag_call *c, int k, cl_uint num_events,
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
  if (!(*copy = CLG_MALLOC(c->inf[k].bytes)))
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "allocating %zu bytes to check %s", c->inf[k].bytes,
                     c->names[k]);
  clg_status st = clg__read_buffer(c->queue, t, c->inf[k].bytes, *copy,
                                   num_events, wait_list, false, c->names[k]);
  *values = *copy;
  return st;
}

/* The staged operands and temporary buffers of a launch. */
typedef struct bag_run {
  clg_staged in[BAG_INPUTS], o;
  /* The segments' starts: the host's (made per call; wrapped where the
   * device works on host memory, so the call waits for its kernel, else
   * copied), or a scratch buffer of the context's (starts_size bytes) the
   * device fills, given back once `busy` (retained), its last user, has
   * ended. 8 bytes a segment: an output of many short rows (2^26 segments
   * of 4 floats) took half its size again twice before the host's were
   * wrapped. */
  cl_mem starts;
  bool starts_wrapped;
  size_t starts_size;
  cl_event busy;
  cl_mem verdict; /* the context's (ctx->bag_verdicts) */
  cl_uint gen;    /* the checks' run number */
  /* The queue is in order and the call came after no events of the
   * caller's: its kernels follow one another without events between
   * them. */
  bool in_order;
  clg_bag_mems m;
} bag_run;

static void bag_run_release(clg_context *ctx, bag_run *r) {
  for (int k = 0; k < BAG_INPUTS; ++k)
    clg__unstage(&r->in[k]);
  clg__unstage(&r->o);
  if (r->starts && r->starts_size)
    clg__scratch_give(ctx, r->starts, r->starts_size, r->busy != NULL, r->busy);
  else if (r->starts)
    clReleaseMemObject(r->starts);
  if (r->busy)
    clReleaseEvent(r->busy);
  if (r->verdict)
    clReleaseMemObject(r->verdict);
}

/* Stage every operand; host_starts (segment ids checked on the host) or a
 * device buffer for the starts the device computes. */
static clg_status bag_stage(clg_context *ctx, const clg_bag_call *c,
                            const int64_t *host_starts, bool device,
                            bag_run *r) {
  clg_status st = CLG_SUCCESS;
  bool segments = c->g.p.form == CLG_BAGS_SEGMENT_IDS;
  for (int k = 0; k < BAG_INPUTS && st == CLG_SUCCESS; ++k)
    if (c->in[k] && !(k == BAG_BAGS && segments && !device))
      st = clg__stage_input(ctx, c->in[k], c->inf[k].bytes, c->inf[k].elem_size,
                            true, c->names[k], &r->in[k]);
  size_t sbytes = (size_t)(c->g.num_bags + 1) * sizeof(int64_t);
  if (st == CLG_SUCCESS && segments && c->of.bytes) {
    cl_int err = CL_SUCCESS;
    r->starts_wrapped = host_starts && ctx->host_unified;
    r->starts = host_starts
                    ? clCreateBuffer(ctx->cl_ctx,
                                     CL_MEM_READ_ONLY |
                                         (r->starts_wrapped
                                              ? CL_MEM_USE_HOST_PTR
                                              : CL_MEM_COPY_HOST_PTR),
                                     sbytes, (void *)host_starts, &err)
                    : clg__scratch_take(ctx, sbytes, &r->starts_size, &err);
    if (!r->starts)
      st = clg__fail_cl(err, "clCreateBuffer",
                        "the starts of EmbeddingBag's segments");
  }
  if (st == CLG_SUCCESS && c->of.bytes)
    st = clg__stage_output(ctx, c->output, c->of.bytes, c->of.elem_size, false,
                           false, &r->o);
  clg_bag_mems *m = &r->m;
  *m = (clg_bag_mems){
      .weight = r->in[BAG_WEIGHT].mem,
      .indices = r->in[BAG_INDICES].mem,
      .bags = r->in[BAG_BAGS].mem,
      .psw = r->in[BAG_PSW].mem,
      .output = r->o.mem,
      .w_off = r->in[BAG_WEIGHT].offset,
      .x_off = r->in[BAG_INDICES].offset,
      .b_off = r->in[BAG_BAGS].offset,
      .p_off = r->in[BAG_PSW].offset,
      .o_off = r->o.offset,
      .index_size = c->inf[BAG_INDICES].elem_size,
      .bags_size = c->in[BAG_BAGS] ? c->inf[BAG_BAGS].elem_size : 8,
      .bags_len = c->g.bags_len,
      .w_ld = c->w_ld,
      .o_ld = c->o_ld,
  };
  return st;
}

/* The reduction's calls: the segments' starts on the device first where
 * they are computed there, then the kernel; the mems are the offsets or
 * the starts. */
static clg_status bag_reduce_calls(clg_context *ctx, const clg_bag_call *c,
                                   const bag_run *r, bool device, bool gated,
                                   clg_kernel_calls *calls) {
  clg_bag_mems m = r->m;
  clg_status st = CLG_SUCCESS;
  m.can_time = true;
  if (c->g.p.form == CLG_BAGS_SEGMENT_IDS) {
    /* The starts computed on the device: a trial runs their kernel first
     * (the ids are checked by then; gated calls are not timed). */
    if (device &&
        (st = clg__bag_starts(ctx, &c->g, &m, r->starts, gated,
                              &calls->call[calls->count++])) != CLG_SUCCESS)
      return st;
    if (device)
      m.first = &calls->call[calls->count - 1];
    m.bags = r->starts;
    m.b_off = 0;
    m.bags_size = 8;
    m.bags_len = c->g.num_bags + 1;
  }
  return clg__bag_prepare(ctx, &c->g, &m, gated, &calls->call[calls->count++]);
}

/* The reduction enqueued after `after` (the wait list or the checks),
 * gated on `gate` when not NULL, a host output read back, host inputs
 * waited for; *last (when not NULL) its event where `want_last` (else
 * NULL). The
 * segments' scratch starts are kept for a later call once it has ended. */
static clg_status bag_reduce(clg_context *ctx, const clg_bag_call *c,
                             bag_run *r, bool device, cl_mem gate,
                             cl_uint num_after, const cl_event *after,
                             bool want_last, cl_event *last) {
  want_last = want_last && last;
  if (last)
    *last = NULL;
  if (c->of.bytes == 0)
    return clg__marker(c->queue, num_after, after, want_last ? last : NULL,
                       "completing an EmbeddingBag with an empty output");
  clg_kernel_calls calls;
  calls.count = 0;
  /* Host memory the kernel reads in place must outlive it. */
  bool blocking = c->output->storage == CLG_STORAGE_HOST || r->starts_wrapped;
  for (int k = 0; k < BAG_INPUTS; ++k)
    blocking = blocking || (c->in[k] && c->in[k]->storage == CLG_STORAGE_HOST);
  r->m.queue = c->queue;
  r->m.num_events = num_after;
  r->m.wait_list = after;
  clg_status st = bag_reduce_calls(ctx, c, r, device, gate != NULL, &calls);
  cl_event kevent = NULL;
  if (st == CLG_SUCCESS)
    st = clg__check_wait_failed(num_after, after);
  if (st == CLG_SUCCESS)
    st =
        clg__calls_launch(&calls, c->queue, gate, num_after, after, r->in_order,
                          want_last || blocking || r->starts_size, &kevent);
  bool done = false;
  if (st == CLG_SUCCESS)
    st = clg__finish_call(
        c->queue, r->o.mem, c->of.bytes,
        c->output->storage == CLG_STORAGE_HOST ? c->output->host : NULL,
        blocking, &kevent, "EmbeddingBag's output", "EmbeddingBag", &done);
  /* The kernel may still use wrapped host memory: not past the call. */
  if (st != CLG_SUCCESS && kevent && !done)
    (void)clWaitForEvents(1, &kevent);
  if (st == CLG_SUCCESS && r->starts_size && kevent) {
    r->busy = kevent;
    clRetainEvent(kevent);
  }
  if (st == CLG_SUCCESS && want_last)
    *last = kevent;
  else if (kevent)
    clReleaseEvent(kevent);
  return st;
}

/* The checks on the device: the verdict's buffer and the validation
 * kernel, then (`values`) the kernel copying the offenders' values into
 * the verdict, enqueued after the wait list; *checked the last one's
 * event (NULL where r->in_order and not `values`: nothing waits for
 * it). A synchronous call leaves the second out unless the verdict
 * says a check failed (one launch fewer on the path that passes). */
static clg_status bag_check_on_device(clg_context *ctx, const clg_bag_call *c,
                                      bag_run *r, bool values,
                                      cl_uint num_events,
                                      const cl_event *wait_list,
                                      cl_event *checked) {
  /* A buffer the context kept (its flag 0 and positions all ones, as a
   * call that passed leaves them), or a new one. */
  static const uint32_t init[CLG_BAG_VERDICT_BYTES / 4] = {0, UINT32_MAX,
                                                           UINT32_MAX};
  cl_int err = CL_SUCCESS;
  r->verdict = clg__kept_take(ctx, &ctx->bag_verdicts, sizeof init, init, &err);
  if (!r->verdict)
    return clg__fail_cl(err, "clCreateBuffer",
                        "the verdict of EmbeddingBag's checks");
  r->gen = clg__verdict_next_gen(ctx);
  clg_kernel_calls calls;
  calls.count = 0;
  clg_status st =
      clg__bag_checks(ctx, &c->g, &r->m, r->verdict, r->gen, &calls);
  if (!values)
    calls.count = 1;
  if (st == CLG_SUCCESS)
    st = clg__check_wait_failed(num_events, wait_list);
  if (st == CLG_SUCCESS)
    st = clg__calls_launch(&calls, c->queue, NULL, num_events, wait_list,
                           r->in_order, values || !r->in_order, checked);
  return st;
}

/* A synchronous call's verdict, read after `after` (the validation
 * kernel, or the reduction gated on it: then the call's one wait); where
 * a check failed, the offenders' values found and the error made. The
 * verdict's buffer goes back to the context (nothing reads it any more:
 * the read waited for its last reader). */
static clg_status bag_verdict(clg_context *ctx, const clg_bag_call *c,
                              bag_run *r, cl_event after, bool after_caller) {
  uint32_t words[4];
  int64_t values[3];
  bool poll = clg__read_polls(ctx, c->inf[BAG_INDICES].bytes +
                                       c->inf[BAG_BAGS].bytes + c->of.bytes);
  clg_status st = clg__bag_verdict_read(r->verdict, after, after_caller, r->gen,
                                        c->queue, poll, words, values);
  bool clean = st == CLG_SUCCESS && !words[0];
  if (st == CLG_SUCCESS && words[0]) {
    /* A check failed: the offenders' values, then the verdict again. */
    clg_kernel_calls calls;
    calls.count = 0;
    cl_event found = NULL;
    st = clg__bag_checks(ctx, &c->g, &r->m, r->verdict, r->gen, &calls);
    if (st == CLG_SUCCESS)
      st = clg__call_launch(&calls.call[1], c->queue, NULL, after ? 1 : 0,
                            after ? &after : NULL, &found);
    if (st == CLG_SUCCESS) {
      st = clg__bag_verdict_read(r->verdict, found, false, r->gen, c->queue,
                                 false, words, values);
      clReleaseEvent(found);
    }
  }
  if (st == CLG_SUCCESS && words[0]) {
    clg_bag_fault f;
    clg__bag_fault_of_verdict(&c->g, words, values, &f);
    st = clg__bag_report(&c->g, &f);
  }
  /* Read and clear: the context keeps it. */
  clg__kept_give(ctx, &ctx->bag_verdicts, r->verdict, clean, NULL);
  r->verdict = NULL;
  return st;
}

/* The end of a call checked on the device: its outcome to the caller on
 * success (else released), nothing of it left running after a failure,
 * the checks' event and the launch's buffers let go. Returns `st`. */
static clg_status bag_end(clg_context *ctx, bag_run *r, clg_status st,
                          clg_outcome *o, clg_outcome **outcome,
                          cl_event checked) {
  if (st == CLG_SUCCESS && outcome)
    *outcome = o;
  else if (o)
    clg_outcome_release(o);
  if (st != CLG_SUCCESS && checked)
    (void)clWaitForEvents(1, &checked); /* nothing left running */
  if (checked)
    clReleaseEvent(checked);
  bag_run_release(ctx, r);
  return st;
}

/* DEVICE: the validation kernel, its verdict read, then the reduction
 * (after the wait list again: the checks have completed). */
static clg_status bag_run_checked_first(clg_context *ctx, const clg_bag_call *c,
                                        cl_uint num_events,
                                        const cl_event *wait_list,
                                        cl_event *event,
                                        clg_outcome **outcome) {
  bag_run r;
  memset(&r, 0, sizeof r);
  cl_event checked = NULL;
  clg_outcome *o = NULL;
  clg_status st = bag_stage(ctx, c, NULL, true, &r);
  if (st == CLG_SUCCESS)
    st =
        bag_check_on_device(ctx, c, &r, false, num_events, wait_list, &checked);
  if (st == CLG_SUCCESS)
    st = bag_verdict(ctx, c, &r, checked, num_events > 0);
  if (st == CLG_SUCCESS && outcome)
    st = clg__outcome_decided(&o);
  if (st == CLG_SUCCESS)
    st = bag_reduce(ctx, c, &r, true, NULL, num_events, wait_list,
                    event != NULL, event);
  return bag_end(ctx, &r, st, o, outcome, checked);
}

/* The reduction's variants a gated synchronous call could not time
 * (bag_run_gated), once its verdict has passed: the reduction's calls set
 * up again, ungated, on the call's own operands (still staged), timed and
 * not launched; the trials write the bytes the gated kernel wrote. */
static clg_status bag_retime(clg_context *ctx, const clg_bag_call *c,
                             bag_run *r) {
  clg_kernel_calls calls;
  calls.count = 0;
  r->m.queue = c->queue;
  r->m.num_events = 0; /* the verdict's read waited for everything */
  r->m.wait_list = NULL;
  r->m.retime = NULL;
  return bag_reduce_calls(ctx, c, r, true, false, &calls);
}

/* GATED (`outcome` not NULL) and GATED_READ: the validation kernel and the
 * reduction gated on its verdict, enqueued together; the verdict read by
 * the outcome (which takes its buffer and gives it back to the context
 * once read, to be reused after the reduction, its last reader), or once,
 * after the reduction. */
static clg_status bag_run_gated(clg_context *ctx, const clg_bag_call *c,
                                cl_uint num_events, const cl_event *wait_list,
                                cl_event *event, clg_outcome **outcome) {
  bag_run r;
  memset(&r, 0, sizeof r);
  cl_event checked = NULL, last = NULL;
  clg_outcome *o = NULL;
  bool retime = false;
  clg_status st = bag_stage(ctx, c, NULL, true, &r);
  /* Events only where something waits by them: the outcome, the kernels
   * after a wait list or on an out-of-order queue, the caller (else the
   * queue orders the kernels, and the blocking read of the verdict comes
   * after them). */
  if (st == CLG_SUCCESS && num_events == 0)
    st = clg__queue_in_order(c->queue, &r.in_order);
  if (st == CLG_SUCCESS)
    st = bag_check_on_device(ctx, c, &r, outcome != NULL, num_events, wait_list,
                             &checked);
  cl_mem verdict = r.verdict;
  if (st == CLG_SUCCESS && outcome) {
    st = clg__outcome_pending_bag(ctx, c->queue, verdict, r.gen, checked,
                                  num_events > 0, &c->g, &o);
    if (st == CLG_SUCCESS)
      r.verdict = NULL;
  }
  if (!outcome)
    r.m.retime = &retime;
  if (st == CLG_SUCCESS)
    st = bag_reduce(ctx, c, &r, true, verdict, checked ? 1 : 0,
                    checked ? &checked : NULL, outcome || event || !r.in_order,
                    &last);
  if (st == CLG_SUCCESS && outcome)
    clg__outcome_enqueued(o, last, false);
  else if (st == CLG_SUCCESS) {
    st = bag_verdict(ctx, c, &r, last, false);
    if (st == CLG_SUCCESS && retime)
      st = bag_retime(ctx, c, &r);
  }
  if (st == CLG_SUCCESS && event)
    *event = last;
  else if (last)
    clReleaseEvent(last);
  return bag_end(ctx, &r, st, o, outcome, checked);
}

/* HOST and READ_BACK: the values on the host (a cl_mem one read back,
 * blocking, after the wait list), then the reduction. */
static clg_status bag_run_host(clg_context *ctx, const clg_bag_call *c,
                               cl_uint num_events, const cl_event *wait_list,
                               cl_event *event, clg_outcome **outcome) {
  bag_run r;
  memset(&r, 0, sizeof r);
  clg_status st = CLG_SUCCESS;
  const void *xv = NULL, *bv = NULL;
  void *xcopy = NULL, *bcopy = NULL;
  int64_t *starts = NULL;
  /* The segments' starts, where there is an output to reduce into (an
   * output without columns admits any number of segments). */
  if (c->g.p.form == CLG_BAGS_SEGMENT_IDS && c->of.bytes &&
      !(starts = CLG_MALLOC((size_t)(c->g.num_bags + 1) * sizeof *starts)))
    st = clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                   "allocating EmbeddingBag's %" PRId64 " segment starts",
                   c->g.num_bags + 1);
  if (st == CLG_SUCCESS)
    st = bag_values(c, BAG_BAGS, num_events, wait_list, &bv, &bcopy);
  if (st == CLG_SUCCESS)
    st = bag_values(c, BAG_INDICES, num_events, wait_list, &xv, &xcopy);
  clg_bag_fault f;
  if (st == CLG_SUCCESS &&
      clg__bag_find_fault(&c->g, xv, c->inf[BAG_INDICES].elem_size, bv,
                          c->in[BAG_BAGS] ? c->inf[BAG_BAGS].elem_size : 0,
                          starts, &f))
    st = clg__bag_report(&c->g, &f);
  clg_outcome *o = NULL;
  if (st == CLG_SUCCESS && outcome)
    st = clg__outcome_decided(&o);
  if (st == CLG_SUCCESS && c->of.bytes)
    st = bag_stage(ctx, c, starts, false, &r);
  if (st == CLG_SUCCESS)
    st = bag_reduce(ctx, c, &r, false, NULL, num_events, wait_list,
                    event != NULL, event);
  bag_run_release(ctx, &r);
  if (st == CLG_SUCCESS && outcome)
    *outcome = o;
  else if (o)
    clg_outcome_release(o);
  free(xcopy);
  free(bcopy);
  free(starts);
  return st;
}

/* One call: checks that read no value, then the way strategy.c picks.
 * `outcome` NULL: the synchronous call. */
static clg_status bag_call_run(clg_context *ctx, const clg_bag_params *params,
                               clg_bag_call *c, cl_command_queue queue,
                               cl_uint num_events, const cl_event *wait_list,
                               cl_event *event, clg_outcome **outcome) {
  if (clg__bag_strided(c->in, c->output)) /* run/bag_strided.c */
    return clg__bag_run_strided(ctx, params, c->in, c->names, c->output, queue,
                                num_events, wait_list, event, outcome,
                                clg__bag_run_dense);
  clg_status st =
      clg__bag_check_call(ctx, params, queue, num_events, wait_list, c, false);
  if (st != CLG_SUCCESS)
    return st;
  /* A host weight past the device's largest buffer: packed tables. */
  if (clg__bag_split_needed(ctx, c->in, c->inf, c->output, &c->of))
    return clg__bag_run_split(ctx, &c->g, c->in, c->inf, c->output, &c->of,
                              c->queue, num_events, wait_list, event, outcome,
                              clg_embedding_bag);
  clg_check_way way = clg__bag_check_way(
      ctx, &c->g, c->in[BAG_INDICES], &c->inf[BAG_INDICES], c->in[BAG_BAGS],
      &c->inf[BAG_BAGS], c->output, outcome != NULL, num_events);
  clg__fi_note_way(way);
  switch (way) {
  case CLG_CHECK_GATED:
  case CLG_CHECK_GATED_READ:
    return bag_run_gated(ctx, c, num_events, wait_list, event, outcome);
  case CLG_CHECK_DEVICE:
    return bag_run_checked_first(ctx, c, num_events, wait_list, event, outcome);
  default: /* HOST, READ_BACK */
    return bag_run_host(ctx, c, num_events, wait_list, event, outcome);
  }
}

clg_status clg__bag_call(clg_context *ctx, const clg_bag_params *params,
                         const clg_tensor *weight, const clg_tensor *indices,
                         const clg_tensor *bags,
                         const clg_tensor *per_sample_weights,
                         const clg_tensor *output, cl_command_queue queue,
                         cl_uint num_events, const cl_event *wait_list,
                         cl_event *event, clg_outcome **outcome) {
  clg_bag_call c = clg__bag_call_of(params, weight, indices, bags,
                                    per_sample_weights, output);
  clg_status st = bag_call_run(ctx, params, &c, queue, num_events, wait_list,
                               event, outcome);
  return st == CLG_SUCCESS ? clg__ok() : st;
}

clg_status clg__bag_run_dense(clg_context *ctx, const clg_bag_params *params,
                              const clg_tensor *const *in,
                              const clg_tensor *output, int64_t w_ld,
                              int64_t o_ld, cl_command_queue queue,
                              cl_uint num_events, const cl_event *wait_list,
                              cl_event *event, clg_outcome **outcome) {
  clg_bag_call c = clg__bag_call_of(params, in[0], in[1], in[2], in[3], output);
  c.w_ld = w_ld;
  c.o_ld = o_ld;
  return bag_call_run(ctx, params, &c, queue, num_events, wait_list, event,
                      outcome);
}

clg_status clg_embedding_bag(clg_context *ctx, const clg_bag_params *params,
                             const clg_tensor *weight,
                             const clg_tensor *indices, const clg_tensor *bags,
                             const clg_tensor *per_sample_weights,
                             const clg_tensor *output, cl_command_queue queue,
                             cl_uint num_events, const cl_event *wait_list,
                             cl_event *event) {
  return clg__bag_call(ctx, params, weight, indices, bags, per_sample_weights,
                       output, queue, num_events, wait_list, event, NULL);
}

clg_status clg_embedding_bag_async(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *weight,
    const clg_tensor *indices, const clg_tensor *bags,
    const clg_tensor *per_sample_weights, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event, clg_outcome **outcome) {
  if (!outcome)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "outcome is NULL");
  return clg__bag_call(ctx, params, weight, indices, bags, per_sample_weights,
                       output, queue, num_events, wait_list, event, outcome);
}
