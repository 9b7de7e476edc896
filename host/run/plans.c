/* Plans: one operator call fixed in everything but its memory, checked once
 * (clg_plan_create), its kernels built up front (clg_plan_bake), enqueued
 * many times (clg_plan_enqueue, clg_plan_enqueue_scatter) through the
 * one-shot calls' own path (call.c: clg__run). Kernel planning itself is
 * ops/gather_geometry.c. An EmbeddingBag plan (bag_plans.c) and a
 * GatherBlockQuantized plan (gbq_plans.c) are clg_plans too, each holding
 * its own part (`part`): this file takes it through bake and destroy (by
 * the functions its file gives it, so that this file does not call into
 * that one, which calls it), and keeps each kind to its own enqueue. */
#include "run/run.h"

#include <stdlib.h>

struct clg_plan {
  clg_context *ctx;
  clg_params params;
  bool scatter; /* made by clg_plan_create_scatter() */
  clg_scatter_params sc;
  unsigned flags;
  clg_tensor in[CLG_MAX_INPUTS], output; /* the templates (no updates: a
                                          * gather) */
  clg_checked checked;
  clg_tensor_facts of;
  pthread_mutex_t lock; /* guards baked */
  bool baked;
  clg_plan_kind kind;
  void *part; /* an entry point's own part (kind not CLG_PLAN_FAMILY) */
  clg_plan_part_fns part_fns; /* how to bake and free it (its file's) */
};

clg_status clg__plan_start(clg_plan **out, unsigned flags) {
  if (out)
    *out = NULL;
  if (!out)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "out is NULL");
  if (flags & ~(unsigned)CLG_PLAN_ASYNC_CHECK)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown plan flags 0x%x (only CLG_PLAN_ASYNC_CHECK is "
                     "defined)",
                     flags & ~(unsigned)CLG_PLAN_ASYNC_CHECK);
  return CLG_SUCCESS;
}

static clg_plan *clg_plan_alloc(void) {
  clg_plan *p = CLG_CALLOC(1, sizeof *p);
  if (!p) {
    clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
              "out of host memory allocating a plan");
    return NULL;
  }
  if (pthread_mutex_init(&p->lock, NULL) != 0) {
    free(p);
    clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
              "cannot initialise a mutex for a plan");
    return NULL;
  }
  return p;
}

clg_status clg__plan_new_part(clg_context *ctx, unsigned flags,
                              clg_plan_kind kind, void *part,
                              clg_plan_part_fns fns, clg_plan **out) {
  clg_plan *p = clg_plan_alloc();
  if (!p) {
    fns.free(part);
    return CLG_ERROR_OUT_OF_HOST_MEMORY;
  }
  p->ctx = ctx;
  p->flags = flags;
  p->kind = kind;
  p->part = part;
  p->part_fns = fns;
  *out = p;
  return CLG_SUCCESS;
}

/* clg_plan_create() and clg_plan_create_scatter() (updates not NULL). */
/* A template kept by value: a strided one (only its shape and memory kind
 * count) as the dense kind of memory it is, since its strides stay with
 * the caller's clg_strided_tensor. */
static void clg_plan_template(const clg_tensor *t, clg_tensor *out) {
  *out = *t;
  if (t->storage == CLG_STORAGE_HOST_STRIDED)
    out->storage = CLG_STORAGE_HOST;
  else if (t->storage == CLG_STORAGE_BUFFER_STRIDED)
    out->storage = CLG_STORAGE_BUFFER;
}

static clg_status clg_plan_make(clg_context *ctx, const clg_params *params,
                                const clg_scatter_params *scatter,
                                bool is_scatter, const clg_tensor *const *in,
                                const clg_tensor *output, unsigned flags,
                                clg_plan **out) {
  clg_status st = clg__plan_start(out, flags);
  if (st != CLG_SUCCESS)
    return st;
  if (!params)
    params = &clg__default_params;
  clg_checked c;
  clg_tensor_facts of;
  st = clg__check_templates(ctx, params, scatter, is_scatter, in, output, &c,
                            &of);
  if (st != CLG_SUCCESS)
    return st;
  clg_plan *p = clg_plan_alloc();
  if (!p)
    return CLG_ERROR_OUT_OF_HOST_MEMORY;
  p->ctx = ctx;
  p->params = *params;
  p->scatter = is_scatter;
  p->sc = c.sc; /* checked, defaults filled in */
  p->flags = flags;
  for (int k = 0; k < CLG_MAX_INPUTS; ++k)
    if (in[k])
      clg_plan_template(in[k], &p->in[k]);
  clg_plan_template(output, &p->output);
  p->checked = c;
  p->of = of;
  *out = p;
  return clg__ok();
}

clg_status clg_plan_create(clg_context *ctx, const clg_params *params,
                           const clg_tensor *data, const clg_tensor *indices,
                           const clg_tensor *output, unsigned flags,
                           clg_plan **out) {
  const clg_tensor *in[CLG_MAX_INPUTS] = {data, indices, NULL};
  return clg_plan_make(ctx, params, NULL, false, in, output, flags, out);
}

clg_status clg_plan_create_scatter(clg_context *ctx, const clg_params *params,
                                   const clg_scatter_params *scatter,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   const clg_tensor *updates,
                                   const clg_tensor *output, unsigned flags,
                                   clg_plan **out) {
  if (out)
    *out = NULL;
  if (!params)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                     "params is NULL (a scatter names its operator)");
  const clg_tensor *in[CLG_MAX_INPUTS] = {data, indices, updates};
  return clg_plan_make(ctx, params, scatter, true, in, output, flags, out);
}

clg_status clg_plan_bake(clg_plan *plan) {
  if (!plan)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "plan is NULL");
  pthread_mutex_lock(&plan->lock);
  clg_status st = CLG_SUCCESS;
  if (!plan->baked && plan->part) {
    st = plan->part_fns.bake(plan->part);
    plan->baked = st == CLG_SUCCESS;
  } else if (!plan->baked) {
    const clg_tensor *in[CLG_MAX_INPUTS] = {
        &plan->in[0], &plan->in[1], plan->scatter ? &plan->in[2] : NULL};
    st = clg__bake(plan->ctx, &plan->checked, in, &plan->output, &plan->of,
                   (plan->flags & CLG_PLAN_ASYNC_CHECK) != 0);
    plan->baked = st == CLG_SUCCESS;
  }
  pthread_mutex_unlock(&plan->lock);
  return st == CLG_SUCCESS ? clg__ok() : st;
}

clg_status clg__plan_match(const char *name, const clg_tensor *t,
                           const clg_tensor *tmpl) {
  if (!t)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "%s is NULL", name);
  if (t->dtype != tmpl->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "%s has element type %s but the plan was made for %s",
                     name, clg_dtype_name(t->dtype),
                     clg_dtype_name(tmpl->dtype));
  bool same = t->rank == tmpl->rank;
  for (int32_t i = 0; same && i < t->rank && i < CLG_MAX_RANK; ++i)
    same = t->shape[i] == tmpl->shape[i];
  if (!same) {
    char got[512], exp[512];
    clg__format_shape(got, sizeof got,
                      t->rank < 0 || t->rank > CLG_MAX_RANK ? 0 : t->rank,
                      t->shape);
    clg__format_shape(exp, sizeof exp, tmpl->rank, tmpl->shape);
    return clg__fail(CLG_ERROR_SHAPE_MISMATCH,
                     "%s has shape %s (rank %d) but the plan was made for %s",
                     name, got, (int)t->rank, exp);
  }
  /* Strided or not, the same kind of memory. */
  bool buf = t->storage == CLG_STORAGE_BUFFER ||
             t->storage == CLG_STORAGE_BUFFER_STRIDED,
       tbuf = tmpl->storage == CLG_STORAGE_BUFFER ||
              tmpl->storage == CLG_STORAGE_BUFFER_STRIDED;
  if (buf != tbuf)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s is %s but the plan was made for %s", name,
                     buf ? "a cl_mem" : "host memory",
                     tbuf ? "a cl_mem" : "host memory");
  return CLG_SUCCESS;
}

/* The refusal of a plan of another kind than the entry point's, naming
 * the plan's own. */
static clg_status clg_plan_kind_refused(const clg_plan *plan) {
  return clg__fail(
      CLG_ERROR_INVALID_ARGUMENT,
      plan->kind == CLG_PLAN_BAG ? "the plan is an EmbeddingBag's: enqueue "
                                   "it with clg_plan_enqueue_embedding_bag()"
      : plan->kind == CLG_PLAN_GBQ
          ? "the plan is a GatherBlockQuantized's: enqueue it with "
            "clg_plan_enqueue_gather_block_quantized()"
      : plan->scatter ? "the plan is a scatter's: enqueue it "
                        "with clg_plan_enqueue_scatter()"
                      : "the plan is a gather's: enqueue it with "
                        "clg_plan_enqueue()");
}

/* An enqueue's outcome against the plan's flags. */
static clg_status clg_plan_outcome(const clg_plan *plan,
                                   clg_outcome **outcome) {
  bool async = (plan->flags & CLG_PLAN_ASYNC_CHECK) != 0;
  if (async && !outcome)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                     "outcome is NULL, but the plan was made with "
                     "CLG_PLAN_ASYNC_CHECK");
  if (!async && outcome)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "outcome is not NULL, but the plan was made without "
                     "CLG_PLAN_ASYNC_CHECK");
  return CLG_SUCCESS;
}

clg_status clg__plan_part(clg_plan *plan, clg_plan_kind kind,
                          clg_outcome **outcome, void **part) {
  if (!plan)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "plan is NULL");
  if (plan->kind != kind)
    return clg_plan_kind_refused(plan);
  *part = plan->part;
  return clg_plan_outcome(plan, outcome);
}

/* clg_plan_enqueue() and clg_plan_enqueue_scatter() (in[2]: updates). */
static clg_status clg_plan_run(clg_plan *plan, bool is_scatter,
                               const clg_tensor *const *in,
                               const clg_tensor *output, cl_command_queue queue,
                               cl_uint num_events, const cl_event *wait_list,
                               cl_event *event, clg_outcome **outcome) {
  if (!plan)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "plan is NULL");
  if (plan->kind != CLG_PLAN_FAMILY || plan->scatter != is_scatter)
    return clg_plan_kind_refused(plan);
  clg_status st = clg_plan_outcome(plan, outcome);
  if (st != CLG_SUCCESS)
    return st;
  int n = is_scatter ? 3 : 2;
  for (int k = 0; k < n; ++k)
    if ((st = clg__plan_match(clg__input_names[k], in[k], &plan->in[k])) !=
        CLG_SUCCESS)
      return st;
  if ((st = clg__plan_match("output", output, &plan->output)) != CLG_SUCCESS)
    return st;
  clg_call call = {.ctx = plan->ctx,
                   .params = &plan->params,
                   .data = in[0],
                   .indices = in[1],
                   .updates = is_scatter ? in[2] : NULL,
                   .output = output,
                   .is_scatter = is_scatter,
                   .scatter = &plan->sc,
                   .queue = queue,
                   .num_events = num_events,
                   .wait_list = wait_list,
                   .event = event,
                   .outcome = outcome};
  return clg__run(&call);
}

clg_status clg_plan_enqueue(clg_plan *plan, const clg_tensor *data,
                            const clg_tensor *indices, const clg_tensor *output,
                            cl_command_queue queue, cl_uint num_events,
                            const cl_event *wait_list, cl_event *event,
                            clg_outcome **outcome) {
  const clg_tensor *in[CLG_MAX_INPUTS] = {data, indices, NULL};
  return clg_plan_run(plan, false, in, output, queue, num_events, wait_list,
                      event, outcome);
}

clg_status clg_plan_enqueue_scatter(clg_plan *plan, const clg_tensor *data,
                                    const clg_tensor *indices,
                                    const clg_tensor *updates,
                                    const clg_tensor *output,
                                    cl_command_queue queue, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event,
                                    clg_outcome **outcome) {
  const clg_tensor *in[CLG_MAX_INPUTS] = {data, indices, updates};
  return clg_plan_run(plan, true, in, output, queue, num_events, wait_list,
                      event, outcome);
}

void clg_plan_destroy(clg_plan *plan) {
  if (!plan)
    return;
  if (plan->part)
    plan->part_fns.free(plan->part);
  pthread_mutex_destroy(&plan->lock);
  free(plan);
}
