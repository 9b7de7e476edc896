/* EmbeddingBag's plans (clgather/clgather_bag.h):
 * clg_plan_create_embedding_bag() checks the templates once (the call's
 * own checks on descriptors without memory, embedding_bag.c) and what the
 * device must offer; clg_plan_bake() (plans.c) builds through
 * bag_plan_bake(); clg_plan_enqueue_embedding_bag() matches the
 * tensors with the templates, then runs the one-shot call
 * (clg__bag_call), values checked at every enqueue. The clg_plan itself,
 * its lock and its kinds are plans.c's. */
#include "run/run.h"

#include <stdlib.h>

enum { BP_WEIGHT, BP_INDICES, BP_BAGS, BP_PSW, BP_INPUTS };

typedef struct clg_bag_plan {
  clg_context *ctx;
  bool async; /* CLG_PLAN_ASYNC_CHECK */
  clg_bag_params params;
  clg_tensor in[BP_INPUTS], output; /* the templates, by value */
  bool present[BP_INPUTS];          /* bags and per_sample_weights given */
  clg_bag_geom g;
} clg_bag_plan;

/* The names the call's messages give the operands. */
static const char *bag_plan_name(const clg_bag_plan *b, int k) {
  static const char *const names[BP_INPUTS] = {"weight", "indices", NULL,
                                               "per_sample_weights"};
  if (k != BP_BAGS)
    return names[k];
  return b->params.form == CLG_BAGS_SEGMENT_IDS ? "segment_ids"
         : b->params.form == CLG_BAGS_OFFSETS   ? "offsets"
                                                : "bags";
}

static clg_status bag_plan_bake(const void *part);
static void bag_plan_free(void *part) { free(part); }

clg_status clg_plan_create_embedding_bag(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *weight,
    const clg_tensor *indices, const clg_tensor *bags,
    const clg_tensor *per_sample_weights, const clg_tensor *output,
    unsigned flags, clg_plan **out) {
  clg_status st = clg__plan_start(out, flags);
  if (st != CLG_SUCCESS)
    return st;
  clg_bag_geom g;
  if ((st = clg__bag_check_templates(ctx, params, weight, indices, bags,
                                     per_sample_weights, output, &g)) !=
      CLG_SUCCESS)
    return st;
  /* The device's arithmetic, where there is a reduction (an empty output
   * needs none, as in the call). */
  if (g.num_bags > 0 && g.dim > 0 &&
      (st = clg__bag_device_check(ctx, &g)) != CLG_SUCCESS)
    return st;
  clg_bag_plan *b = CLG_CALLOC(1, sizeof *b);
  if (!b)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory allocating a plan");
  b->ctx = ctx;
  b->async = (flags & CLG_PLAN_ASYNC_CHECK) != 0;
  b->params = params ? *params : (clg_bag_params){0};
  b->g = g;
  const clg_tensor *in[BP_INPUTS] = {weight, indices, bags, per_sample_weights};
  for (int k = 0; k < BP_INPUTS; ++k)
    if ((b->present[k] = in[k] != NULL))
      b->in[k] = *in[k];
  b->output = *output;
  clg_plan_part_fns fns = {bag_plan_bake, bag_plan_free};
  if ((st = clg__plan_new_part(ctx, flags, CLG_PLAN_BAG, b, fns, out)) !=
      CLG_SUCCESS)
    return st;
  return clg__ok();
}

/* The programs an EmbeddingBag plan's enqueues need (plans.c's
 * clg_plan_bake(), under the plan's lock). */
static clg_status bag_plan_bake(const void *part) {
  const clg_bag_plan *b = part;
  const clg_tensor *x = &b->in[BP_INDICES],
                   *bags = b->present[BP_BAGS] ? &b->in[BP_BAGS] : NULL;
  /* As the call decides (strategy.c, clg__bag_check_way): checks on the
   * device wherever an enqueue may make them (cl_mem indices and bags;
   * read back or not is decided per enqueue, by size and the buffers'
   * flags), the reduction gated where an enqueue without a wait list is
   * (a cl_mem output), a reduction where the output has elements. */
  bool checks = clg__bag_device_checkable(&b->g, x, bags);
  clg_tensor_facts xf = {.bytes = (size_t)b->g.n * clg_dtype_size(x->dtype)},
                   bf = {.bytes = bags ? (size_t)b->g.bags_len *
                                             clg_dtype_size(bags->dtype)
                                       : 0};
  bool gated = checks && clg__check_row(clg__bag_check_way(
                                            b->ctx, &b->g, x, &xf, bags, &bf,
                                            &b->output, b->async, 0))
                             ->gated;
  bool reduce = b->g.num_bags > 0 && b->g.dim > 0;
  size_t xsize = clg_dtype_size(x->dtype),
         bsize = bags ? clg_dtype_size(bags->dtype) : 8;
  clg_status st =
      clg__bag_bake(b->ctx, &b->g, xsize, bsize, checks, reduce, gated);
  /* A synchronous enqueue after events of the caller's checks first: its
   * reduction is not gated. */
  if (st == CLG_SUCCESS && gated && !b->async)
    st = clg__bag_bake(b->ctx, &b->g, xsize, bsize, checks, reduce, false);
  return st;
}

clg_status clg_plan_enqueue_embedding_bag(
    clg_plan *plan, const clg_tensor *weight, const clg_tensor *indices,
    const clg_tensor *bags, const clg_tensor *per_sample_weights,
    const clg_tensor *output, cl_command_queue queue, cl_uint num_events,
    const cl_event *wait_list, cl_event *event, clg_outcome **outcome) {
  void *part = NULL;
  clg_status st = clg__plan_part(plan, CLG_PLAN_BAG, outcome, &part);
  clg_bag_plan *b = part;
  if (st != CLG_SUCCESS)
    return st;
  const clg_tensor *in[BP_INPUTS] = {weight, indices, bags, per_sample_weights};
  for (int k = 0; k < BP_INPUTS; ++k) {
    const char *name = bag_plan_name(b, k);
    if (!b->present[k] && in[k])
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "%s is not NULL, but the plan was made without %s", name,
                       name);
    if (b->present[k] &&
        (st = clg__plan_match(name, in[k], &b->in[k])) != CLG_SUCCESS)
      return st;
  }
  if ((st = clg__plan_match("output", output, &b->output)) != CLG_SUCCESS)
    return st;
  return clg__bag_call(b->ctx, &b->params, weight, indices, bags,
                       per_sample_weights, output, queue, num_events, wait_list,
                       event, outcome);
}
