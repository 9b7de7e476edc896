/* Outcomes of asynchronously checked calls: the validation kernel's verdict,
 * kept on the device until the caller asks for it (clg_outcome_wait), and
 * the read of EmbeddingBag's verdict, which its synchronous call
 * (embedding_bag.c) makes too. */
#include "run/run.h"

#include <stdlib.h>
#include <string.h>

struct clg_outcome {
  pthread_mutex_t lock;
  bool decided;      /* status/pos/value known */
  clg_status status; /* CLG_SUCCESS, or the failure to report (with pos) */
  cl_ulong pos;      /* first offending flat position, or CLG_VERDICT_NONE */
  int64_t value;     /* its value */
  cl_ulong extra[CLG_VERDICT_EXTRA]; /* the operator's words: a repeat */
  /* Pending only (decided == false until the first successful wait): */
  clg_context *ctx;       /* whose verdict queue reads the verdict */
  cl_command_queue queue; /* the call's queue (retained): flushed */
  /* The verdict: its event retained, its buffer the outcome's (given back
   * to the context once read: clg__verdict_give, reused once `busy`, the
   * call's last kernel, has ended; EmbeddingBag's: retained). */
  clg_verdict verdict;
  cl_event busy;
  /* What the message needs: the operator, its normalised params, and the
   * shapes of data and indices (copies of the descriptors). */
  const clg_op_impl *impl;
  clg_params norm;
  clg_tensor data, indices;
  /* EmbeddingBag (clg_embedding_bag_async()): its geometry (own copy), the
   * first fault its checks found, and where `verdict` holds them. */
  clg_bag_geom *bag;
  clg_bag_fault fault;
};

clg_status clg__bag_verdict_read(cl_mem verdict, cl_event event,
                                 bool after_caller, cl_uint gen,
                                 cl_command_queue queue, bool poll,
                                 uint32_t *words, int64_t *values) {
  /* As clg__verdict_read(): a kernel abandoned for a failed event of the
   * caller's must not pass for a good verdict. */
  cl_int err = after_caller ? clWaitForEvents(1, &event) : CL_SUCCESS;
  cl_int status = CL_COMPLETE;
  if (err == CL_SUCCESS && after_caller &&
      clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                     &status, NULL) == CL_SUCCESS &&
      status < 0)
    err = status;
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clWaitForEvents",
                        "waiting for EmbeddingBag's checks on the device");
  unsigned char host[CLG_BAG_VERDICT_BYTES];
  memset(host, 0xA5, sizeof host);
  const char *call = "clEnqueueReadBuffer";
  err = clg__read_wait(queue, verdict, 0, sizeof host, host, event ? 1 : 0,
                       event ? &event : NULL, false, poll, &call);
  if (err == CL_SUCCESS && event &&
      clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                     &status, NULL) == CL_SUCCESS &&
      status < 0)
    err = status;
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, call,
                        "reading the verdict of EmbeddingBag's checks");
  memcpy(words, host, 4 * sizeof *words);
  memcpy(values, host + 16, 3 * sizeof *values);
  /* The flag is 0 or 1 and the fourth word the run's number: anything else
   * is the fill above, or words a run before this one wrote (the buffer
   * is kept between calls): a read that returned without its data. */
  if (words[0] > 1 || words[3] != gen)
    return clg__fail(CLG_ERROR_OPENCL,
                     "reading the verdict of EmbeddingBag's checks: the read "
                     "returned without its data (a command it waited for "
                     "did not run, most likely an event in the wait list "
                     "that failed; the driver reported no error)");
  return CLG_SUCCESS;
}

static clg_status clg_outcome_alloc(clg_outcome **out) {
  clg_outcome *o = CLG_CALLOC(1, sizeof *o);
  if (!o)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory allocating an outcome");
  if (pthread_mutex_init(&o->lock, NULL) != 0) {
    free(o);
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "cannot initialise a mutex for an outcome");
  }
  o->pos = CLG_VERDICT_NONE;
  *out = o;
  return CLG_SUCCESS;
}

clg_status clg__outcome_decided(clg_outcome **out) {
  clg_status st = clg_outcome_alloc(out);
  if (st != CLG_SUCCESS)
    return st;
  (*out)->decided = true;
  (*out)->status = CLG_SUCCESS;
  return CLG_SUCCESS;
}

void clg__outcome_enqueued(clg_outcome *o, cl_event last, bool read_after) {
  o->busy = last;
  clRetainEvent(last);
  if (read_after) {
    if (o->verdict.event)
      clReleaseEvent(o->verdict.event);
    o->verdict.event = last;
    clRetainEvent(last);
  }
}

clg_status clg__outcome_pending(clg_context *ctx, const clg_checked *c,
                                const clg_tensor *data,
                                const clg_tensor *indices,
                                cl_command_queue queue, const clg_verdict *v,
                                clg_outcome **out) {
  clg_outcome *o = NULL;
  clg_status st = clg_outcome_alloc(&o);
  if (st != CLG_SUCCESS)
    return st;
  o->ctx = ctx;
  o->queue = queue;
  clRetainCommandQueue(queue);
  o->verdict = *v;
  if (v->event)
    clRetainEvent(v->event);
  o->impl = c->impl;
  o->norm = c->norm;
  o->data = *data;
  o->indices = *indices;
  *out = o;
  return CLG_SUCCESS;
}

clg_status clg__outcome_pending_bag(clg_context *ctx, cl_command_queue queue,
                                    cl_mem verdict, cl_uint gen,
                                    cl_event event, bool after_caller,
                                    const clg_bag_geom *g, clg_outcome **out) {
  clg_outcome *o = NULL;
  clg_status st = clg_outcome_alloc(&o);
  if (st != CLG_SUCCESS)
    return st;
  if (!(o->bag = malloc(sizeof *o->bag))) {
    clg_outcome_release(o);
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory allocating an outcome");
  }
  *o->bag = *g;
  o->ctx = ctx;
  o->queue = queue;
  clRetainCommandQueue(queue);
  o->verdict.mem = verdict; /* the outcome's now */
  o->verdict.gen = gen;
  o->verdict.event = event;
  o->verdict.after_caller = after_caller;
  clRetainEvent(event);
  *out = o;
  return CLG_SUCCESS;
}

/* Drop what a pending outcome holds on the device side: a verdict read
 * (`read`, and clean) goes back to the context, one not read is released
 * (its state is not known). */
static void clg_outcome_drop(clg_outcome *o, bool read) {
  if (read && !o->bag)
    clg__verdict_give(o->ctx, &o->verdict,
                      clg__verdict_clean(o->pos, o->extra), o->busy);
  if (read && o->bag) {
    clg__kept_give(o->ctx, &o->ctx->bag_verdicts, o->verdict.mem,
                   o->status == CLG_SUCCESS, o->busy);
    o->verdict.mem = NULL;
  }
  clg__verdict_release(&o->verdict);
  if (o->busy)
    clReleaseEvent(o->busy);
  o->busy = NULL;
  if (o->queue)
    clReleaseCommandQueue(o->queue);
  o->queue = NULL;
}

clg_status clg_outcome_wait(clg_outcome *outcome) {
  if (!outcome)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "outcome is NULL");
  clg_outcome *o = outcome;
  pthread_mutex_lock(&o->lock);
  if (!o->decided) {
    /* The validation kernel may sit unsubmitted in the caller's queue. */
    cl_int err = clFlush(o->queue);
    if (err != CL_SUCCESS) {
      pthread_mutex_unlock(&o->lock);
      return clg__fail_cl(err, "clFlush", "submitting the validation kernel");
    }
    /* Read on a queue that holds nothing else: on the caller's queue or
     * the context's own (where callers enqueue too), the read would wait
     * for whatever was enqueued after the call. */
    cl_command_queue own = clg__verdict_queue(o->ctx);
    if (!own) {
      pthread_mutex_unlock(&o->lock);
      return CLG_ERROR_OPENCL; /* message set by clg__verdict_queue() */
    }
    clg_status st;
    if (o->bag) {
      uint32_t words[4];
      int64_t values[3];
      st = clg__bag_verdict_read(o->verdict.mem, o->verdict.event,
                                 o->verdict.after_caller, o->verdict.gen, own,
                                 false, words, values);
      if (st == CLG_SUCCESS) {
        o->fault.kind = CLG_BAG_FAULT_NONE;
        if (words[0])
          clg__bag_fault_of_verdict(o->bag, words, values, &o->fault);
        /* A set flag with no fault the rules name is reported (internal)
         * by clg__bag_report(), never passed as success. */
        o->status = !words[0] ? CLG_SUCCESS
                    : o->fault.kind == CLG_BAG_FAULT_INDEX
                        ? CLG_ERROR_INDEX_OUT_OF_BOUNDS
                    : o->fault.kind == CLG_BAG_FAULT_NONE
                        ? CLG_ERROR_INTERNAL
                        : CLG_ERROR_INVALID_BAGS;
      }
    } else {
      st = clg__verdict_read(&o->verdict, own, &o->pos, &o->value, o->extra);
      o->status = o->pos != CLG_VERDICT_NONE ? CLG_ERROR_INDEX_OUT_OF_BOUNDS
                  : (uint32_t)o->extra[0] != 0 ? CLG_ERROR_DUPLICATE_INDEX
                                               : CLG_SUCCESS;
    }
    if (st != CLG_SUCCESS) {
      pthread_mutex_unlock(&o->lock);
      return st; /* may be tried again */
    }
    o->decided = true;
    clg_outcome_drop(o, true);
  }
  clg_status status = o->status;
  cl_ulong pos = o->pos, extra[CLG_VERDICT_EXTRA];
  int64_t value = o->value;
  memcpy(extra, o->extra, sizeof extra);
  pthread_mutex_unlock(&o->lock);
  if (status == CLG_SUCCESS)
    return clg__ok();
  if (o->bag) /* the same message as clg_embedding_bag()'s */
    return clg__bag_report(o->bag, &o->fault);
  /* The same message as the synchronous path: the operator's own report. */
  return clg__verdict_status(o->impl, &o->norm, &o->data, &o->indices, pos,
                             value, extra);
}

void clg_outcome_release(clg_outcome *outcome) {
  if (!outcome)
    return;
  clg_outcome_drop(outcome, false);
  free(outcome->bag);
  pthread_mutex_destroy(&outcome->lock);
  free(outcome);
}
