/* clgather-bench: device-resident validation (--only pipeline), W1 and W2
 * with data, indices and output in cl_mem: (a) interleaved with (i)
 * clg_validate on the cl_mem indices, (ii) read-back validation done by the
 * bench, (iii) the checked clg_run end to end, (iv) clg_run_async end to
 * end and (v) until clg_run_async returns; both validation paths and
 * clg_run_async checked to reject one out-of-range index. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* (i) clg_validate on cl_mem indices: the library's own path, wall clock. */
static int sample_dev_validate(void *state, double *seconds, char *msg,
                               size_t msglen) {
  run_state *s = state;
  double t0 = bench_now();
  clg_status st =
      clg_validate(s->ctx, s->params, s->data, s->indices, s->queue, 0, NULL);
  *seconds = bench_now() - t0;
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return 0;
}

/* (ii) what the library's read-back path does, done by the bench: allocate,
 * blocking clEnqueueReadBuffer of the indices, clg_validate(NULL) on the
 * host copy, free; wall clock. */
typedef struct readback_state {
  const clg_params *params;
  const clg_tensor *data_host; /* shape only: validation reads no data */
  const bench_op *op;
  cl_mem indices;
  size_t bytes;
  cl_command_queue queue;
} readback_state;

static int sample_rb_validate(void *state, double *seconds, char *msg,
                              size_t msglen) {
  readback_state *s = state;
  double t0 = bench_now();
  void *copy = malloc(s->bytes ? s->bytes : 1);
  if (!copy) {
    snprintf(msg, msglen, "out of host memory reading back %zu bytes",
             s->bytes);
    return -1;
  }
  cl_int e = clEnqueueReadBuffer(s->queue, s->indices, CL_TRUE, 0, s->bytes,
                                 copy, 0, NULL, NULL);
  clg_status st = CLG_SUCCESS;
  if (e == CL_SUCCESS) {
    clg_tensor xh =
        clg_tensor_host(s->op->itype, s->op->irank, s->op->ishape, copy);
    st = clg_validate(NULL, s->params, s->data_host, &xh, NULL, 0, NULL);
  }
  free(copy);
  *seconds = bench_now() - t0;
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueReadBuffer of the indices: %s",
             bench_cl_error(e));
    return -1;
  }
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return 0;
}

/* Wait for an asynchronously checked call: its event, then its outcome.
 * Releases both. 0, or -1 with a message. */
static int finish_async(cl_event ev, clg_outcome *oc, char *msg,
                        size_t msglen) {
  cl_int e = ev ? clWaitForEvents(1, &ev) : CL_SUCCESS;
  clg_status st = clg_outcome_wait(oc);
  if (ev)
    clReleaseEvent(ev);
  clg_outcome_release(oc);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "waiting for clg_run_async's event: %s",
             bench_cl_error(e));
    return -1;
  }
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return 0;
}

/* (iv) clg_run_async on cl_mem tensors: wall clock from the call to its
 * event's completion and clg_outcome_wait() returning CLG_SUCCESS. */
static int sample_async_e2e(void *state, double *seconds, char *msg,
                            size_t msglen) {
  run_state *s = state;
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  double t0 = bench_now();
  clg_status st = clg_run_async(s->ctx, s->params, s->data, s->indices,
                                s->output, s->queue, 0, NULL, &ev, &oc);
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  int rc = finish_async(ev, oc, msg, msglen);
  *seconds = bench_now() - t0;
  return rc;
}

/* (v) the same call, timed only until clg_run_async returns; the event and
 * the outcome are then waited for outside the sample. */
static int sample_async_return(void *state, double *seconds, char *msg,
                               size_t msglen) {
  run_state *s = state;
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  double t0 = bench_now();
  clg_status st = clg_run_async(s->ctx, s->params, s->data, s->indices,
                                s->output, s->queue, 0, NULL, &ev, &oc);
  *seconds = bench_now() - t0;
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return finish_async(ev, oc, msg, msglen);
}

/* Store `value` at flat position `pos` of an index array. */
static void set_index(void *indices, clg_dtype itype, uint64_t pos,
                      int64_t value) {
  if (itype == CLG_DTYPE_INT32)
    ((int32_t *)indices)[pos] = (int32_t)value;
  else
    ((int64_t *)indices)[pos] = value;
}

/* Expect CLG_ERROR_INDEX_OUT_OF_BOUNDS from a validation that should fail;
 * 0, or -1 with a message. */
static int expect_oob(clg_status st, const char *path, char *msg,
                      size_t msglen) {
  if (st == CLG_ERROR_INDEX_OUT_OF_BOUNDS)
    return 0;
  snprintf(msg, msglen,
           "WRONG: %s validation of indices with one out-of-range value "
           "returned %s%s%s",
           path, clg_status_string(st), st ? ": " : "",
           st ? clg_last_error() : "");
  return -1;
}

/* 0 if every byte is `poison`, else -1 with a message naming the path. */
static int expect_untouched(const unsigned char *got, size_t bytes,
                            unsigned char poison, const char *path, char *msg,
                            size_t msglen) {
  for (size_t i = 0; i < bytes; ++i)
    if (got[i] != poison) {
      snprintf(msg, msglen,
               "WRONG: %s wrote to the output although an index was out of "
               "range (byte %zu is 0x%02x, was 0x%02x)",
               path, i, got[i], poison);
      return -1;
    }
  return 0;
}

void run_pipeline(env *E, int wi, pipe_result *r) {
  const settings *cfg = E->cfg;
  const workload *w = &g_work[wi];
  const bench_op *op = &w->op;
  cl_context clctx = clg_context_cl_context(E->ctx);
  char *msg = r->message;
  size_t msglen = sizeof r->message;
  double t_start = bench_now();
  memset(r, 0, sizeof *r);
  r->work = wi;
  r->status = ST_ERROR;

  int32_t orank = 0;
  int64_t oshape[CLG_MAX_RANK];
  if (bench_ref_shape(op, &orank, oshape) != 0) {
    snprintf(msg, msglen, "the bench cannot describe this workload");
    return;
  }
  size_t es = clg_dtype_size(op->dtype), xs = clg_dtype_size(op->itype);
  uint64_t nidx = bench_numel(op->irank, op->ishape);
  r->data_bytes = bench_numel(op->drank, op->dshape) * es;
  r->index_bytes = nidx * xs;
  r->out_bytes = bench_numel(orank, oshape) * es;
  r->device_path = r->index_bytes >= BENCH_VALIDATE_DEVICE_MIN_BYTES;

  unsigned char *data = malloc(r->data_bytes ? r->data_bytes : 1);
  void *indices = malloc(r->index_bytes ? r->index_bytes : 1);
  unsigned char *want = malloc(r->out_bytes ? r->out_bytes : 1);
  unsigned char *got = malloc(r->out_bytes ? r->out_bytes : 1);
  cl_mem dmem = NULL, xmem = NULL, omem = NULL, bmem = NULL;
  if (!data || !indices || !want || !got) {
    snprintf(msg, msglen, "out of host memory");
    goto done;
  }
  /* The same inputs as the workload's row in the main table. */
  case_rng rng = case_rng_make(0x5eed0000u + (uint64_t)wi);
  case_rng_bytes(&rng, data, r->data_bytes);
  bench_make_indices(op, indices, &rng);
  if (bench_reference(op, data, indices, want) != 0) {
    snprintf(msg, msglen, "the reference rejected the generated indices");
    goto done;
  }
  if (!(dmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           r->data_bytes, data, msg, msglen)) ||
      !(xmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           r->index_bytes, indices, msg, msglen)) ||
      !(omem = make_buffer(clctx, CL_MEM_READ_WRITE, r->out_bytes, NULL, msg,
                           msglen)))
    goto done;

  clg_tensor dd = clg_tensor_buffer(op->dtype, op->drank, op->dshape, dmem, 0);
  clg_tensor xd = clg_tensor_buffer(op->itype, op->irank, op->ishape, xmem, 0);
  clg_tensor od = clg_tensor_buffer(op->dtype, orank, oshape, omem, 0);
  clg_tensor dh = clg_tensor_host(op->dtype, op->drank, op->dshape, data);
  run_state dev = {E->ctx, &op->params, &dd, &xd, &od, E->cl.queue};
  readback_state rb = {&op->params, &dh, op, xmem, (size_t)r->index_bytes,
                       E->cl.queue};
  double t;

  /* Correctness first: the checked end-to-end call on a poisoned output,
   * read back and compared byte for byte with the reference. */
  unsigned char poison = 0xA5;
  cl_int e = clEnqueueFillBuffer(E->cl.queue, omem, &poison, 1, 0, r->out_bytes,
                                 0, NULL, NULL);
  if (e == CL_SUCCESS)
    e = clFinish(E->cl.queue);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueFillBuffer: %s", bench_cl_error(e));
    goto done;
  }
  if (sample_e2e(&dev, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  e = clEnqueueReadBuffer(E->cl.queue, omem, CL_TRUE, 0, r->out_bytes, got, 0,
                          NULL, NULL);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueReadBuffer: %s", bench_cl_error(e));
    goto done;
  }
  if (compare(got, want, r->out_bytes, "device-resident", msg, msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }
  /* The same for the asynchronously checked call. */
  if (poison_buffer(E->cl.queue, omem, r->out_bytes, poison, msg, msglen) != 0)
    goto done;
  if (sample_async_e2e(&dev, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  if (read_buffer(E->cl.queue, omem, r->out_bytes, got, msg, msglen) != 0)
    goto done;
  if (compare(got, want, r->out_bytes, "device-resident, clg_run_async", msg,
              msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }
  /* Both validation paths accept the valid indices... */
  if (sample_dev_validate(&dev, &t, msg, msglen) != 0 ||
      sample_rb_validate(&rb, &t, msg, msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }
  /* ...and reject the same indices with one value out of range (s, the
   * first invalid one), placed in the last quarter of the array. */
  if (op->params.mode == CLG_MODE_RAISE && op->params.op == CLG_OP_GATHER &&
      nidx > 0) {
    int64_t s = op->dshape[op->params.axis];
    uint64_t pos = nidx - 1 - nidx / 8;
    set_index(indices, op->itype, pos, s);
    bmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                       r->index_bytes, indices, msg, msglen);
    if (!bmem)
      goto done;
    clg_tensor xb =
        clg_tensor_buffer(op->itype, op->irank, op->ishape, bmem, 0);
    clg_tensor xh = clg_tensor_host(op->itype, op->irank, op->ishape, indices);
    if (expect_oob(
            clg_validate(E->ctx, &op->params, &dd, &xb, E->cl.queue, 0, NULL),
            "clg_validate (cl_mem)", msg, msglen) != 0 ||
        expect_oob(clg_validate(NULL, &op->params, &dh, &xh, NULL, 0, NULL),
                   "read-back (host)", msg, msglen) != 0) {
      r->status = ST_WRONG;
      goto done;
    }
    /* clg_run_async: the outcome reports the index, the gather kernel runs
     * and writes nothing. */
    if (poison_buffer(E->cl.queue, omem, r->out_bytes, poison, msg, msglen) !=
        0)
      goto done;
    cl_event aev = NULL;
    clg_outcome *oc = NULL;
    clg_status ast = clg_run_async(E->ctx, &op->params, &dd, &xb, &od,
                                   E->cl.queue, 0, NULL, &aev, &oc);
    if (ast != CLG_SUCCESS) {
      snprintf(msg, msglen,
               "WRONG: clg_run_async with one out-of-range cl_mem index "
               "returned %s: %s (expected success and the error from its "
               "outcome)",
               clg_status_string(ast), clg_last_error());
      r->status = ST_WRONG;
      goto done;
    }
    e = clWaitForEvents(1, &aev);
    clReleaseEvent(aev);
    ast = clg_outcome_wait(oc);
    clg_outcome_release(oc);
    if (e != CL_SUCCESS) {
      snprintf(msg, msglen, "waiting for clg_run_async's event: %s",
               bench_cl_error(e));
      goto done;
    }
    if (expect_oob(ast, "clg_run_async (outcome)", msg, msglen) != 0) {
      r->status = ST_WRONG;
      goto done;
    }
    if (read_buffer(E->cl.queue, omem, r->out_bytes, got, msg, msglen) != 0)
      goto done;
    if (expect_untouched(got, r->out_bytes, poison, "clg_run_async", msg,
                         msglen) != 0) {
      r->status = ST_WRONG;
      goto done;
    }
    clReleaseMemObject(bmem);
    bmem = NULL;
  }
  free(want);
  want = NULL;

  /* (a), (i), (ii), (iii), (iv), (v) interleaved sample by sample. */
  sample_fn fns[] = {sample_kernel, sample_dev_validate, sample_rb_validate,
                     sample_e2e,    sample_async_e2e,    sample_async_return};
  void *states[] = {&dev, &dev, &rb, &dev, &dev, &dev};
  stats ps[6];
  if (measure_set(cfg, cfg->budget, 6, fns, states, ps, msg, msglen) != 0)
    goto done;
  r->kernel = ps[0];
  r->devval = ps[1];
  r->rbval = ps[2];
  r->e2e = ps[3];
  r->async_e2e = ps[4];
  r->async_ret = ps[5];
  r->status = ST_OK;
  msg[0] = '\0';

done:
  if (dmem)
    clReleaseMemObject(dmem);
  if (xmem)
    clReleaseMemObject(xmem);
  if (omem)
    clReleaseMemObject(omem);
  if (bmem)
    clReleaseMemObject(bmem);
  free(data);
  free(indices);
  free(want);
  free(got);
  r->seconds = bench_now() - t_start;
}
