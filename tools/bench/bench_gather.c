/* clgather-bench: the main table's figures for one workload, after checking
 * the device-resident and the host-resident result byte for byte: (a) the
 * gather kernel interleaved with (d) the copy reference, then (b) the call
 * on host memory interleaved with (c) validation alone. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* (b) the whole call on host-resident tensors, wall clock. */
static int sample_call(void *state, double *seconds, char *msg, size_t msglen) {
  run_state *s = state;
  double t0 = bench_now();
  clg_status st = clg_run(s->ctx, s->params, s->data, s->indices, s->output,
                          s->queue, 0, NULL, NULL);
  *seconds = bench_now() - t0;
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return 0;
}

/* (c) validation alone on host tensors, without a context. */
static int sample_validate(void *state, double *seconds, char *msg,
                           size_t msglen) {
  run_state *s = state;
  double t0 = bench_now();
  clg_status st =
      clg_validate(NULL, s->params, s->data, s->indices, NULL, 0, NULL);
  *seconds = bench_now() - t0;
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return 0;
}

void run_workload(env *E, const workload *w, result *r) {
  const settings *cfg = E->cfg;
  const bench_op *op = &w->op;
  cl_context clctx = clg_context_cl_context(E->ctx);
  char *msg = r->message;
  size_t msglen = sizeof r->message;
  double t_start = bench_now();
  memset(r, 0, sizeof *r);
  r->status = ST_ERROR;
  r->copy_method = "";

  int32_t orank = 0;
  int64_t oshape[CLG_MAX_RANK];
  if (bench_ref_shape(op, &orank, oshape) != 0) {
    snprintf(msg, msglen, "the bench cannot describe this workload");
    return;
  }
  size_t es = clg_dtype_size(op->dtype), xs = clg_dtype_size(op->itype);
  r->data_bytes = bench_numel(op->drank, op->dshape) * es;
  r->index_bytes = bench_numel(op->irank, op->ishape) * xs;
  r->out_bytes = bench_numel(orank, oshape) * es;

  unsigned char *data = malloc(r->data_bytes ? r->data_bytes : 1);
  void *indices = malloc(r->index_bytes ? r->index_bytes : 1);
  unsigned char *want = malloc(r->out_bytes ? r->out_bytes : 1);
  unsigned char *got = malloc(r->out_bytes ? r->out_bytes : 1);
  cl_mem dmem = NULL, xmem = NULL, omem = NULL, cmem = NULL;
  if (!data || !indices || !want || !got) {
    snprintf(msg, msglen,
             "out of host memory for %" PRIu64 " + %" PRIu64 " + 2 x %" PRIu64
             " bytes",
             r->data_bytes, r->index_bytes, r->out_bytes);
    goto done;
  }
  /* Fixed seed per workload: the same inputs in every run. */
  case_rng rng = case_rng_make(0x5eed0000u + (uint64_t)(w - g_work));
  case_rng_bytes(&rng, data, r->data_bytes);
  bench_make_indices(op, indices, &rng);
  double t_ref = bench_now();
  int ref_status = bench_reference(op, data, indices, want);
  r->reference_s = bench_now() - t_ref;
  if (ref_status != 0) {
    snprintf(msg, msglen, "the reference rejected the generated indices");
    goto done;
  }

  if (!(dmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           r->data_bytes, data, msg, msglen)) ||
      !(xmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           r->index_bytes, indices, msg, msglen)) ||
      !(omem = make_buffer(clctx, CL_MEM_READ_WRITE, r->out_bytes, NULL, msg,
                           msglen)) ||
      !(cmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           r->out_bytes, want, msg, msglen)))
    goto done;

  clg_tensor dd = clg_tensor_buffer(op->dtype, op->drank, op->dshape, dmem, 0);
  clg_tensor xd = clg_tensor_buffer(op->itype, op->irank, op->ishape, xmem, 0);
  clg_tensor od = clg_tensor_buffer(op->dtype, orank, oshape, omem, 0);
  clg_tensor dh = clg_tensor_host(op->dtype, op->drank, op->dshape, data);
  clg_tensor xh = clg_tensor_host(op->itype, op->irank, op->ishape, indices);
  clg_tensor oh = clg_tensor_host(op->dtype, orank, oshape, got);
  run_state dev = {E->ctx, &op->params, &dd, &xd, &od, E->cl.queue};
  run_state host = {E->ctx, &op->params, &dh, &xh, &oh, NULL};
  double t;

  /* Verify the device-resident path: poison the output, run, read back. */
  unsigned char poison = 0xA5;
  cl_int e = clEnqueueFillBuffer(E->cl.queue, omem, &poison, 1, 0, r->out_bytes,
                                 0, NULL, NULL);
  if (e == CL_SUCCESS)
    e = clFinish(E->cl.queue);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueFillBuffer: %s", bench_cl_error(e));
    goto done;
  }
  double t_first = bench_now();
  if (sample_kernel(&dev, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  r->first_call_s = bench_now() - t_first;
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
  /* Verify the host-resident path. */
  memset(got, 0x5A, r->out_bytes);
  if (sample_call(&host, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  if (compare(got, want, r->out_bytes, "host-resident", msg, msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }
  if (sample_validate(&host, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  free(want);
  want = NULL;

  /* (a) + (d), interleaved. */
  copy_state cb = {&E->cl, 0, cmem, omem, r->out_bytes};
  copy_state ck = {&E->cl, 1, cmem, omem, r->out_bytes};
  sample_fn kfns[] = {sample_kernel, sample_copy, sample_copy};
  void *kstates[] = {&dev, &cb, &ck};
  stats ks[3];
  if (measure_set(cfg, cfg->budget, 3, kfns, kstates, ks, msg, msglen) != 0)
    goto done;
  r->kernel = ks[0];
  r->variant = clg_context_last_variant(dev.ctx, &r->choice);
  r->copybuf = ks[1];
  r->copykern = ks[2];
  r->copy_ref = ks[1].median <= ks[2].median ? ks[1].median : ks[2].median;
  r->copy_method =
      ks[1].median <= ks[2].median ? "clEnqueueCopyBuffer" : "copy kernel";
  /* (b) + (c), interleaved. */
  sample_fn cfns[] = {sample_call, sample_validate};
  void *cstates[] = {&host, &host};
  stats cs[2];
  if (measure_set(cfg, cfg->budget, 2, cfns, cstates, cs, msg, msglen) != 0)
    goto done;
  r->call = cs[0];
  r->validate = cs[1];
  r->status = ST_OK;
  msg[0] = '\0';

done:
  if (dmem)
    clReleaseMemObject(dmem);
  if (xmem)
    clReleaseMemObject(xmem);
  if (omem)
    clReleaseMemObject(omem);
  if (cmem)
    clReleaseMemObject(cmem);
  free(data);
  free(indices);
  free(want);
  free(got);
  r->seconds = bench_now() - t_start;
}
