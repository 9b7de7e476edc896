/* clgather-bench: plans (--only plans), W1 and W2 on cl_mem tensors: the
 * host overhead per call of clg_plan_enqueue on a baked plan and of
 * clg_run, interleaved with (a); and the first call of an unbaked and of a
 * baked plan on new clg_contexts with CLGATHER_CACHE_DIR=off. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_FIRST_MAX_REPS 5

/* One call of clg_run or clg_plan_enqueue, waited for: *wall_s from the
 * call to its event's completion, *kernel_s the event's START..END. */
typedef struct plan_state {
  clg_plan *plan; /* NULL: clg_run with run */
  run_state run;
} plan_state;

static int call_and_wait(plan_state *s, double *wall_s, double *kernel_s,
                         char *msg, size_t msglen) {
  const run_state *r = &s->run;
  cl_event ev = NULL;
  double t0 = bench_now();
  clg_status st =
      s->plan ? clg_plan_enqueue(s->plan, r->data, r->indices, r->output,
                                 r->queue, 0, NULL, &ev, NULL)
              : clg_run(r->ctx, r->params, r->data, r->indices, r->output,
                        r->queue, 0, NULL, &ev);
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  cl_int e = clWaitForEvents(1, &ev);
  *wall_s = bench_now() - t0;
  double k = e == CL_SUCCESS ? bench_event_seconds(ev) : -1.0;
  clReleaseEvent(ev);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "waiting for the gather's event: %s",
             bench_cl_error(e));
    return -1;
  }
  if (kernel_s) {
    if (k < 0) {
      snprintf(msg, msglen, "no profiling time for the gather's event");
      return -1;
    }
    *kernel_s = k;
  }
  return 0;
}

/* Host overhead of one call: wall clock from the call to its event's
 * completion, less the gather kernel's own START..END. */
static int sample_overhead(void *state, double *seconds, char *msg,
                           size_t msglen) {
  double wall = 0, k = 0;
  if (call_and_wait(state, &wall, &k, msg, msglen) != 0)
    return -1;
  *seconds = wall - k;
  return 0;
}

/* The first enqueue of a plan on a new clg_context of the bench's
 * cl_context and device (so nothing is built yet), baked first or not:
 * *bake_s the clg_plan_bake, *first_s the first clg_plan_enqueue to its
 * event's completion (on the bench's queue). With check, the output is
 * poisoned before and compared after. 0, or -1 with a message (*wrong set
 * for a wrong result). */
static int plan_first_call(env *E, const bench_op *op, wl_inputs *in, int baked,
                           int check, double *first_s, double *bake_s,
                           int *wrong, char *msg, size_t msglen) {
  clg_context *c = NULL;
  clg_plan *p = NULL;
  int rc = -1;
  *bake_s = 0;
  if (check &&
      poison_buffer(E->cl.queue, in->omem, in->out_bytes, 0xA5, msg, msglen))
    return -1;
  clg_status st = clg_context_create(E->cl.ctx, E->cl.dev, &c);
  if (st == CLG_SUCCESS)
    st = clg_plan_create(c, &op->params, &in->dd, &in->xd, &in->od, 0, &p);
  if (st == CLG_SUCCESS && baked) {
    double t0 = bench_now();
    st = clg_plan_bake(p);
    *bake_s = bench_now() - t0;
  }
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    goto out;
  }
  plan_state ps = {p, {c, &op->params, &in->dd, &in->xd, &in->od, E->cl.queue}};
  if (call_and_wait(&ps, first_s, NULL, msg, msglen) != 0)
    goto out;
  if (check) {
    if (read_buffer(E->cl.queue, in->omem, in->out_bytes, in->got, msg,
                    msglen) != 0)
      goto out;
    if (compare(in->got, in->want, in->out_bytes,
                baked ? "first enqueue of a baked plan"
                      : "first enqueue of an unbaked plan",
                msg, msglen) != 0) {
      *wrong = 1;
      goto out;
    }
  }
  rc = 0;
out:
  clg_plan_destroy(p);
  clg_context_destroy(c);
  return rc;
}

void run_plans(env *E, int wi, plans_result *r) {
  const settings *cfg = E->cfg;
  const bench_op *op = &g_work[wi].op;
  char *msg = r->message;
  size_t msglen = sizeof r->message;
  double t_start = bench_now();
  memset(r, 0, sizeof *r);
  r->work = wi;
  r->status = ST_ERROR;
  wl_inputs in;
  clg_plan *plan = NULL;
  char *saved_cache = NULL;
  int cache_set = 0, had_cache = 0;
  if (wl_prepare(&in, wi, E->cl.ctx, 0, msg, msglen) != 0)
    goto done;
  r->data_bytes = in.data_bytes;
  r->index_bytes = in.index_bytes;
  r->out_bytes = in.out_bytes;

  /* A baked plan on the bench's context; its result checked. */
  clg_status st =
      clg_plan_create(E->ctx, &op->params, &in.dd, &in.xd, &in.od, 0, &plan);
  if (st == CLG_SUCCESS)
    st = clg_plan_bake(plan);
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    r->status = ST_NA;
    goto done;
  }
  run_state dev = {E->ctx, &op->params, &in.dd, &in.xd, &in.od, E->cl.queue};
  plan_state via_run = {NULL, dev};
  plan_state via_plan = {plan, dev};
  double t;
  if (poison_buffer(E->cl.queue, in.omem, in.out_bytes, 0xA5, msg, msglen))
    goto done;
  if (sample_overhead(&via_plan, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  if (read_buffer(E->cl.queue, in.omem, in.out_bytes, in.got, msg, msglen))
    goto done;
  if (compare(in.got, in.want, in.out_bytes, "clg_plan_enqueue", msg, msglen) !=
      0) {
    r->status = ST_WRONG;
    goto done;
  }

  /* (a), clg_run overhead, plan overhead, interleaved. */
  sample_fn fns[] = {sample_kernel, sample_overhead, sample_overhead};
  void *states[] = {&dev, &via_run, &via_plan};
  stats ps[3];
  if (measure_set(cfg, cfg->budget, 3, fns, states, ps, msg, msglen) != 0)
    goto done;
  r->kernel = ps[0];
  r->run_over = ps[1];
  r->plan_over = ps[2];

  /* First calls on new contexts, the disk cache off, unbaked and baked
   * interleaved. */
  const char *old = getenv("CLGATHER_CACHE_DIR");
  had_cache = old != NULL;
  if (old && !(saved_cache = strdup(old))) {
    snprintf(msg, msglen, "out of host memory");
    goto done;
  }
  if (setenv("CLGATHER_CACHE_DIR", "off", 1) != 0) {
    snprintf(msg, msglen, "setenv CLGATHER_CACHE_DIR: %s", strerror(errno));
    goto done;
  }
  cache_set = 1;
  int reps = cfg->quick ? 3 : PLAN_FIRST_MAX_REPS;
  if (cfg->reps)
    reps = cfg->reps < PLAN_FIRST_MAX_REPS ? cfg->reps : PLAN_FIRST_MAX_REPS;
  double unb[PLAN_FIRST_MAX_REPS], bake[PLAN_FIRST_MAX_REPS],
      bkd[PLAN_FIRST_MAX_REPS];
  for (int k = 0; k < reps; ++k) {
    int wrong = 0;
    double unused;
    if (plan_first_call(E, op, &in, 0, k == 0, &unb[k], &unused, &wrong, msg,
                        msglen) != 0 ||
        plan_first_call(E, op, &in, 1, k == 0, &bkd[k], &bake[k], &wrong, msg,
                        msglen) != 0) {
      r->status = wrong ? ST_WRONG : ST_ERROR;
      goto done;
    }
  }
  r->first_reps = reps;
  r->unbaked_first = median_of(unb, reps);
  r->unbaked_min = unb[0];
  r->unbaked_max = unb[reps - 1];
  r->baked_first = median_of(bkd, reps);
  r->baked_min = bkd[0];
  r->baked_max = bkd[reps - 1];
  r->bake = median_of(bake, reps);
  r->status = ST_OK;
  msg[0] = '\0';

done:
  if (cache_set) {
    if (had_cache && saved_cache)
      setenv("CLGATHER_CACHE_DIR", saved_cache, 1);
    else
      unsetenv("CLGATHER_CACHE_DIR");
  }
  free(saved_cache);
  clg_plan_destroy(plan);
  wl_release(&in);
  r->seconds = bench_now() - t_start;
}
