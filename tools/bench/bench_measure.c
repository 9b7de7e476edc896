/* clgather-bench: measuring. Interleaved sampling and medians, the samples
 * several measurements share ((a) the gather kernel, (d) the copy
 * reference, (iii) the checked call end to end), result checks, buffers,
 * and a workload's inputs in a cl_context. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Measure `n` functions interleaved (round i runs each once), after
 * cfg->warmup warm-up rounds. The number of rounds is cfg->reps, or
 * budget / (time of one round) clamped to [min_reps, max_reps]. */
int measure_set(const settings *cfg, double budget, int n, sample_fn *fns,
                void **states, stats *out, char *msg, size_t msglen) {
  double t;
  for (int w = 0; w < cfg->warmup; ++w)
    for (int i = 0; i < n; ++i)
      if (fns[i](states[i], &t, msg, msglen) != 0)
        return -1;
  double round = 0.0;
  double first[8];
  for (int i = 0; i < n; ++i) {
    double t0 = bench_now();
    if (fns[i](states[i], &first[i], msg, msglen) != 0)
      return -1;
    round += bench_now() - t0;
  }
  int reps = cfg->reps;
  if (reps <= 0) {
    double r = round > 0 ? budget / round : cfg->max_reps;
    reps = r > cfg->max_reps   ? cfg->max_reps
           : r < cfg->min_reps ? cfg->min_reps
                               : (int)r;
  }
  double *samples = malloc((size_t)reps * (size_t)n * sizeof *samples);
  if (!samples) {
    snprintf(msg, msglen, "out of host memory");
    return -1;
  }
  for (int i = 0; i < n; ++i)
    samples[(size_t)i * (size_t)reps] = first[i];
  for (int k = 1; k < reps; ++k)
    for (int i = 0; i < n; ++i)
      if (fns[i](states[i], &samples[(size_t)i * (size_t)reps + (size_t)k], msg,
                 msglen) != 0) {
        free(samples);
        return -1;
      }
  for (int i = 0; i < n; ++i) {
    double *s = samples + (size_t)i * (size_t)reps;
    qsort(s, (size_t)reps, sizeof *s, cmp_double);
    out[i].reps = reps;
    out[i].min = s[0];
    out[i].max = s[reps - 1];
    out[i].median =
        reps % 2 ? s[reps / 2] : 0.5 * (s[reps / 2 - 1] + s[reps / 2]);
  }
  free(samples);
  return 0;
}

void set_clg_message(char *msg, size_t len, clg_status st) {
  snprintf(msg, len, "%s: %s", clg_status_string(st), clg_last_error());
}

/* (a) the library's kernel on device-resident tensors. */
int sample_kernel(void *state, double *seconds, char *msg, size_t msglen) {
  run_state *s = state;
  cl_event ev = NULL;
  clg_status st = clg_run(s->ctx, s->params, s->data, s->indices, s->output,
                          s->queue, 0, NULL, &ev);
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  cl_int e = clWaitForEvents(1, &ev);
  double t = e == CL_SUCCESS ? bench_event_seconds(ev) : -1.0;
  clReleaseEvent(ev);
  if (t < 0) {
    snprintf(msg, msglen, "no profiling time for the gather's event (%s)",
             bench_cl_error(e));
    return -1;
  }
  *seconds = t;
  return 0;
}

/* (d) copy reference. */
int sample_copy(void *state, double *seconds, char *msg, size_t msglen) {
  copy_state *s = state;
  if (bench_cl_copy(s->cl, s->method, s->src, s->dst, s->bytes, seconds) != 0) {
    snprintf(msg, msglen, "%s failed",
             s->method ? "the copy kernel" : "clEnqueueCopyBuffer");
    return -1;
  }
  return 0;
}

/* (iii) clg_run on cl_mem data, indices and output: wall clock from the
 * call to the completion of its event (validation, launch, kernel). */
int sample_e2e(void *state, double *seconds, char *msg, size_t msglen) {
  run_state *s = state;
  cl_event ev = NULL;
  double t0 = bench_now();
  clg_status st = clg_run(s->ctx, s->params, s->data, s->indices, s->output,
                          s->queue, 0, NULL, &ev);
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  cl_int e = clWaitForEvents(1, &ev);
  *seconds = bench_now() - t0;
  clReleaseEvent(ev);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "waiting for the gather's event: %s",
             bench_cl_error(e));
    return -1;
  }
  return 0;
}

/* Compare, describing the first difference. */
int compare(const unsigned char *got, const unsigned char *want, size_t bytes,
            const char *path, char *msg, size_t msglen) {
  if (memcmp(got, want, bytes) == 0)
    return 0;
  size_t first = 0, count = 0;
  for (size_t i = bytes; i-- > 0;)
    if (got[i] != want[i]) {
      first = i;
      ++count;
    }
  snprintf(msg, msglen,
           "WRONG result (%s): %zu of %zu bytes differ, the first at byte "
           "%zu (got 0x%02x, expected 0x%02x)",
           path, count, bytes, first, got[first], want[first]);
  return -1;
}

cl_mem make_buffer(cl_context c, cl_mem_flags flags, size_t bytes, void *host,
                   char *msg, size_t msglen) {
  cl_int e = CL_SUCCESS;
  cl_mem m = clCreateBuffer(c, flags, bytes ? bytes : 1, host, &e);
  if (!m)
    snprintf(msg, msglen, "clCreateBuffer of %zu bytes: %s", bytes,
             bench_cl_error(e));
  return m;
}

/* Fill a buffer with the poison byte and wait. 0, or -1 with a message. */
int poison_buffer(cl_command_queue q, cl_mem m, size_t bytes,
                  unsigned char poison, char *msg, size_t msglen) {
  cl_int e = clEnqueueFillBuffer(q, m, &poison, 1, 0, bytes, 0, NULL, NULL);
  if (e == CL_SUCCESS)
    e = clFinish(q);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueFillBuffer: %s", bench_cl_error(e));
    return -1;
  }
  return 0;
}

/* Read a buffer back (blocking) into got. 0, or -1 with a message. */
int read_buffer(cl_command_queue q, cl_mem m, size_t bytes, void *got,
                char *msg, size_t msglen) {
  cl_int e = clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, got, 0, NULL, NULL);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueReadBuffer: %s", bench_cl_error(e));
    return -1;
  }
  return 0;
}

/* -------------------------------------------------- inputs in a cl_context */

void wl_release(wl_inputs *in) {
  if (in->dmem)
    clReleaseMemObject(in->dmem);
  if (in->xmem)
    clReleaseMemObject(in->xmem);
  if (in->omem)
    clReleaseMemObject(in->omem);
  if (in->cmem)
    clReleaseMemObject(in->cmem);
  free(in->data);
  free(in->indices);
  free(in->want);
  free(in->got);
  memset(in, 0, sizeof *in);
}

/* 0, or -1 with a message (in->* released by wl_release either way). With
 * copy_src, also a read-only buffer holding the reference output. */
int wl_prepare(wl_inputs *in, int wi, cl_context clctx, int copy_src, char *msg,
               size_t msglen) {
  memset(in, 0, sizeof *in);
  const bench_op *op = &g_work[wi].op;
  if (bench_ref_shape(op, &in->orank, in->oshape) != 0) {
    snprintf(msg, msglen, "the bench cannot describe this workload");
    return -1;
  }
  size_t es = clg_dtype_size(op->dtype), xs = clg_dtype_size(op->itype);
  in->data_bytes = bench_numel(op->drank, op->dshape) * es;
  in->index_bytes = bench_numel(op->irank, op->ishape) * xs;
  in->out_bytes = bench_numel(in->orank, in->oshape) * es;
  in->data = malloc(in->data_bytes ? in->data_bytes : 1);
  in->indices = malloc(in->index_bytes ? in->index_bytes : 1);
  in->want = malloc(in->out_bytes ? in->out_bytes : 1);
  in->got = malloc(in->out_bytes ? in->out_bytes : 1);
  if (!in->data || !in->indices || !in->want || !in->got) {
    snprintf(msg, msglen, "out of host memory");
    return -1;
  }
  case_rng rng = case_rng_make(0x5eed0000u + (uint64_t)wi);
  case_rng_bytes(&rng, in->data, in->data_bytes);
  bench_make_indices(op, in->indices, &rng);
  if (bench_reference(op, in->data, in->indices, in->want) != 0) {
    snprintf(msg, msglen, "the reference rejected the generated indices");
    return -1;
  }
  if (!(in->dmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               in->data_bytes, in->data, msg, msglen)) ||
      !(in->xmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               in->index_bytes, in->indices, msg, msglen)) ||
      !(in->omem = make_buffer(clctx, CL_MEM_READ_WRITE, in->out_bytes, NULL,
                               msg, msglen)))
    return -1;
  if (copy_src &&
      !(in->cmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               in->out_bytes, in->want, msg, msglen)))
    return -1;
  in->dd = clg_tensor_buffer(op->dtype, op->drank, op->dshape, in->dmem, 0);
  in->xd = clg_tensor_buffer(op->itype, op->irank, op->ishape, in->xmem, 0);
  in->od = clg_tensor_buffer(op->dtype, in->orank, in->oshape, in->omem, 0);
  return 0;
}
