/* clgather-bench: sharding (--only shard), W1 and W2 on cl_mem tensors of
 * one cl_context holding the bench's device and the next device of its
 * platform: clg_run_sharded over both against clg_run on the first, end to
 * end, as ratios to the first device's copy reference. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void shard_env_release(shard_env *S) {
  if (S->cl_init)
    bench_cl_release(&S->cl);
  S->cl_init = 0;
  for (int i = 0; i < SHARD_DEVICES; ++i) {
    clg_context_destroy(S->ctxs[i]);
    S->ctxs[i] = NULL;
  }
  if (S->clctx)
    clReleaseContext(S->clctx);
  S->clctx = NULL;
}

void shard_env_init(env *E, shard_env *S) {
  memset(S, 0, sizeof *S);
  S->status = ST_ERROR;
  cl_device_id dev0 = E->cl.dev, devs[SHARD_DEVICES] = {dev0, NULL};
  cl_platform_id plat = NULL;
  cl_int e =
      clGetDeviceInfo(dev0, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
  cl_uint n = 0;
  if (e == CL_SUCCESS)
    e = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
  cl_device_id *all = n ? malloc(n * sizeof *all) : NULL;
  if (e == CL_SUCCESS && n && !all) {
    snprintf(S->message, sizeof S->message, "out of host memory");
    return;
  }
  if (e == CL_SUCCESS && n)
    e = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, n, all, NULL);
  if (e != CL_SUCCESS) {
    free(all);
    snprintf(S->message, sizeof S->message,
             "listing the devices of the platform: %s", bench_cl_error(e));
    return;
  }
  S->platform_devices = n;
  for (cl_uint i = 0; i < n && !devs[1]; ++i)
    if (all[i] != dev0)
      devs[1] = all[i];
  free(all);
  clGetDeviceInfo(dev0, CL_DEVICE_NAME, sizeof S->names[0] - 1, S->names[0],
                  NULL);
  if (!devs[1]) {
    S->status = ST_NA;
    snprintf(S->message, sizeof S->message,
             "the platform of %.200s has %u device(s): nothing to shard "
             "over (on POCL, POCL_DEVICES=\"pthread pthread\" gives two)",
             S->names[0], (unsigned)n);
    return;
  }
  clGetDeviceInfo(devs[1], CL_DEVICE_NAME, sizeof S->names[1] - 1, S->names[1],
                  NULL);
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)plat, 0};
  S->clctx = clCreateContext(props, SHARD_DEVICES, devs, NULL, NULL, &e);
  if (!S->clctx) {
    snprintf(S->message, sizeof S->message,
             "clCreateContext with %d devices: %s", SHARD_DEVICES,
             bench_cl_error(e));
    return;
  }
  for (int i = 0; i < SHARD_DEVICES; ++i) {
    clg_status st = clg_context_create(S->clctx, devs[i], &S->ctxs[i]);
    if (st != CLG_SUCCESS) {
      set_clg_message(S->message, sizeof S->message, st);
      shard_env_release(S);
      return;
    }
  }
  S->cl_init = 1;
  if (bench_cl_init(&S->cl, S->clctx, devs[0], S->message, sizeof S->message) !=
      0) {
    shard_env_release(S);
    return;
  }
  S->status = ST_OK;
  S->message[0] = '\0';
}

/* clg_run_sharded on cl_mem tensors: wall clock from the call to its
 * event's completion (validation on ctxs[0], every shard). */
typedef struct sharded_state {
  clg_context *const *ctxs;
  cl_uint n;
  run_state run; /* params and tensors; ctx and queue unused */
} sharded_state;

static int sample_sharded(void *state, double *seconds, char *msg,
                          size_t msglen) {
  sharded_state *s = state;
  cl_event ev = NULL;
  double t0 = bench_now();
  clg_status st =
      clg_run_sharded(s->ctxs, s->n, s->run.params, s->run.data, s->run.indices,
                      s->run.output, NULL, 0, NULL, &ev);
  if (st != CLG_SUCCESS) {
    snprintf(msg, msglen, "clg_run_sharded: %s: %s", clg_status_string(st),
             clg_last_error());
    return -1;
  }
  cl_int e = clWaitForEvents(1, &ev);
  *seconds = bench_now() - t0;
  clReleaseEvent(ev);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "waiting for clg_run_sharded's event: %s",
             bench_cl_error(e));
    return -1;
  }
  return 0;
}

void run_shard(env *E, shard_env *S, int wi, shard_result *r) {
  const settings *cfg = E->cfg;
  const bench_op *op = &g_work[wi].op;
  char *msg = r->message;
  size_t msglen = sizeof r->message;
  double t_start = bench_now();
  memset(r, 0, sizeof *r);
  r->work = wi;
  r->status = ST_ERROR;
  r->copy_method = "";
  wl_inputs in;
  if (wl_prepare(&in, wi, S->clctx, 1, msg, msglen) != 0)
    goto done;
  r->out_bytes = in.out_bytes;
  cl_command_queue q = S->cl.queue;
  run_state single = {S->ctxs[0], &op->params, &in.dd, &in.xd, &in.od, NULL};
  run_state prof = single;
  prof.queue = q;
  sharded_state sh = {S->ctxs, SHARD_DEVICES, single};
  double t;

  /* clg_run_sharded first: if it cannot run, the row is skipped. */
  if (poison_buffer(q, in.omem, in.out_bytes, 0xA5, msg, msglen) != 0)
    goto done;
  if (sample_sharded(&sh, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  if (read_buffer(q, in.omem, in.out_bytes, in.got, msg, msglen) != 0)
    goto done;
  if (compare(in.got, in.want, in.out_bytes, "clg_run_sharded", msg, msglen) !=
      0) {
    r->status = ST_WRONG;
    goto done;
  }
  /* clg_run on ctxs[0] in the same cl_context. */
  if (poison_buffer(q, in.omem, in.out_bytes, 0xA5, msg, msglen) != 0)
    goto done;
  if (sample_e2e(&single, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  if (read_buffer(q, in.omem, in.out_bytes, in.got, msg, msglen) != 0)
    goto done;
  if (compare(in.got, in.want, in.out_bytes, "clg_run in the 2-device context",
              msg, msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }

  /* copy-ref (d), kernel (a), clg_run and clg_run_sharded end to end,
   * interleaved. */
  copy_state cb = {&S->cl, 0, in.cmem, in.omem, (size_t)in.out_bytes};
  copy_state ck = {&S->cl, 1, in.cmem, in.omem, (size_t)in.out_bytes};
  sample_fn fns[] = {sample_copy, sample_copy, sample_kernel, sample_e2e,
                     sample_sharded};
  void *states[] = {&cb, &ck, &prof, &single, &sh};
  stats ss[5];
  if (measure_set(cfg, cfg->budget, 5, fns, states, ss, msg, msglen) != 0)
    goto done;
  r->copybuf = ss[0];
  r->copykern = ss[1];
  r->kernel = ss[2];
  r->single = ss[3];
  r->sharded = ss[4];
  r->copy_ref = ss[0].median <= ss[1].median ? ss[0].median : ss[1].median;
  r->copy_method =
      ss[0].median <= ss[1].median ? "clEnqueueCopyBuffer" : "copy kernel";
  r->status = ST_OK;
  msg[0] = '\0';
done:
  wl_release(&in);
  r->seconds = bench_now() - t_start;
}
