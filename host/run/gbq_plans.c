/* GatherBlockQuantized's plans (clgather/clgather_quantized.h):
 * clg_plan_create_gather_block_quantized() checks the templates once (the
 * call's own checks on descriptors without memory,
 * gather_block_quantized.c) and what the device must offer;
 * clg_plan_bake() (plans.c) builds through gbq_plan_bake();
 * clg_plan_enqueue_gather_block_quantized() matches the tensors with the
 * templates, then runs the one-shot call (clg__gbq_call), index values
 * checked at every enqueue. The clg_plan itself, its lock and its kinds
 * are plans.c's. */
#include "run/run.h"
#include "device/tune.h"

#include <stdlib.h>

enum { GP_DATA, GP_INDICES, GP_SCALES, GP_ZP, GP_INPUTS };
static const char *const gp_names[GP_INPUTS] = {"data", "indices", "scales",
                                                "zero_points"};

typedef struct clg_gbq_plan {
  clg_context *ctx;
  bool async; /* CLG_PLAN_ASYNC_CHECK */
  clg_gbq_params params;
  clg_tensor in[GP_INPUTS], output; /* the templates, by value */
  bool zp;                          /* zero_points given */
  clg_gbq_geom g;
} clg_gbq_plan;

/* The programs the enqueues need (plans.c's clg_plan_bake(), under the
 * plan's lock), as the call decides (gather_block_quantized.c): the
 * kernel where the output has elements, gated where an enqueue may gate
 * it (cl_mem indices with values and a cl_mem output), ungated where an
 * enqueue may check first (every synchronous plan: after a wait list it
 * does; any plan with host indices or a host output); the validation
 * kernel where an enqueue may check cl_mem values on the device. */
static clg_status gbq_plan_bake(const void *part) {
  const clg_gbq_plan *p = part;
  const clg_tensor *x = &p->in[GP_INDICES];
  size_t isz = clg_dtype_size(x->dtype);
  bool on_device = x->storage == CLG_STORAGE_BUFFER && p->g.n > 0;
  bool gate =
      on_device && p->output.storage == CLG_STORAGE_BUFFER && p->g.count > 0;
  clg_status st = CLG_SUCCESS;
  clg_kernel_entry *kernel = NULL;
  /* Each variant the tuner may pick. */
  const int variants[2] = {CLG_VARIANT_ITEM, CLG_VARIANT_BLOCK};
  for (int v = 0; v < 2 && st == CLG_SUCCESS; ++v) {
    if (p->g.count > 0 && !(gate && p->async))
      st = clg__gbq_kernel(p->ctx, &p->g, isz, false, variants[v], &kernel);
    if (st == CLG_SUCCESS && gate)
      st = clg__gbq_kernel(p->ctx, &p->g, isz, true, variants[v], &kernel);
  }
  if (st == CLG_SUCCESS && on_device) {
    clg_tensor_facts xf = {.elem_size = isz,
                           .count = (size_t)p->g.n,
                           .bytes = (size_t)p->g.n * isz};
    clg_checked rule;
    clg_tensor values;
    clg__gbq_rule(&p->g, x, &xf, 1, &rule, &values);
    st = clg__verdict_kernel(p->ctx, &rule, &values, x);
  }
  return st;
}

static void gbq_plan_free(void *part) { free(part); }

clg_status clg_plan_create_gather_block_quantized(
    clg_context *ctx, const clg_gbq_params *params, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *scales,
    const clg_tensor *zero_points, const clg_tensor *output, unsigned flags,
    clg_plan **out) {
  clg_status st = clg__plan_start(out, flags);
  if (st != CLG_SUCCESS)
    return st;
  clg_gbq_geom g;
  if ((st = clg__gbq_check_templates(ctx, params, data, indices, scales,
                                     zero_points, output, &g)) != CLG_SUCCESS)
    return st;
  /* The device's arithmetic, where there is an output (as in the call). */
  if (g.count > 0 && (st = clg__gbq_device_check(ctx, &g)) != CLG_SUCCESS)
    return st;
  clg_gbq_plan *p = CLG_CALLOC(1, sizeof *p);
  if (!p)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory allocating a plan");
  p->ctx = ctx;
  p->async = (flags & CLG_PLAN_ASYNC_CHECK) != 0;
  p->params = *params;
  p->g = g;
  const clg_tensor *in[GP_INPUTS] = {data, indices, scales, zero_points};
  for (int k = 0; k < GP_INPUTS; ++k)
    if (in[k])
      p->in[k] = *in[k];
  p->zp = zero_points != NULL;
  p->output = *output;
  clg_plan_part_fns fns = {gbq_plan_bake, gbq_plan_free};
  if ((st = clg__plan_new_part(ctx, flags, CLG_PLAN_GBQ, p, fns, out)) !=
      CLG_SUCCESS)
    return st;
  return clg__ok();
}

clg_status clg_plan_enqueue_gather_block_quantized(
    clg_plan *plan, const clg_tensor *data, const clg_tensor *indices,
    const clg_tensor *scales, const clg_tensor *zero_points,
    const clg_tensor *output, cl_command_queue queue, cl_uint num_events,
    const cl_event *wait_list, cl_event *event, clg_outcome **outcome) {
  if (event)
    *event = NULL;
  if (outcome)
    *outcome = NULL;
  void *part = NULL;
  clg_status st = clg__plan_part(plan, CLG_PLAN_GBQ, outcome, &part);
  if (st != CLG_SUCCESS)
    return st;
  const clg_gbq_plan *p = part;
  const clg_tensor *in[GP_INPUTS] = {data, indices, scales, zero_points};
  for (int k = 0; k < GP_INPUTS; ++k) {
    if (k == GP_ZP && !p->zp && in[k])
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "zero_points is not NULL, but the plan was made "
                       "without zero_points");
    if ((k != GP_ZP || p->zp) &&
        (st = clg__plan_match(gp_names[k], in[k], &p->in[k])) != CLG_SUCCESS)
      return st;
  }
  if ((st = clg__plan_match("output", output, &p->output)) != CLG_SUCCESS)
    return st;
  return clg__gbq_call(p->ctx, &p->params, data, indices, scales, zero_points,
                       output, queue, num_events, wait_list, event, outcome);
}
