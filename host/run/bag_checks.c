/* EmbeddingBag's checks of a call that read no value (as call_checks.c's
 * for the family's other operators): params, element types, descriptors,
 * shapes, cl_mem offsets' alignment, overlaps and the queue, on a call's
 * tensors or (without memory) on a plan's templates; and whether its
 * values may be checked on the device. The rules themselves are
 * ops/embedding_bag.c's; run/embedding_bag.c runs the call. */
#include "run/bag_call.h"
#include "run/run.h"

/* A cl_mem tensor's elements must be aligned for its kernel's loads. */
static clg_status bag_check_offset(const char *name, const clg_tensor *t,
                                   size_t elem) {
  if (t->storage != CLG_STORAGE_BUFFER || t->offset % elem == 0)
    return CLG_SUCCESS;
  return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                   "%s->offset is %zu bytes, not a multiple of its element "
                   "size %zu",
                   name, t->offset, elem);
}

/* A plan's template as clg__check_tensor() checks it without memory: host
 * storage at an address never read (call_checks.c's rule for templates). */
static const clg_tensor *bag_desc(const clg_tensor *t, bool templates,
                                  clg_tensor *copy) {
  static unsigned char nowhere;
  if (!templates ||
      (t->storage != CLG_STORAGE_HOST && t->storage != CLG_STORAGE_BUFFER))
    return t;
  *copy = *t;
  copy->storage = CLG_STORAGE_HOST;
  copy->host = &nowhere;
  copy->buffer = NULL;
  return copy;
}

clg_status clg__bag_check_call(clg_context *ctx, const clg_bag_params *params,
                               cl_command_queue queue, cl_uint num_events,
                               const cl_event *wait_list, clg_bag_call *c,
                               bool templates) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  if (!c->in[BAG_WEIGHT])
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "weight is NULL");
  if (!c->in[BAG_INDICES])
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  if (!c->output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  clg_status st = clg__check_wait_list(num_events, wait_list);
  if (st != CLG_SUCCESS)
    return st;
  if ((st = clg__bag_check_types(params, c->in[BAG_WEIGHT], c->in[BAG_INDICES],
                                 c->in[BAG_BAGS], c->in[BAG_PSW], c->output)) !=
      CLG_SUCCESS)
    return st;
  clg_tensor copy;
  for (int k = 0; k < BAG_INPUTS; ++k) {
    const clg_tensor *t = c->in[k];
    if (!t)
      continue;
    size_t elem = clg_dtype_size(t->dtype);
    if ((st = clg__check_tensor(ctx, c->names[k], bag_desc(t, templates, &copy),
                                elem, &c->inf[k])) != CLG_SUCCESS ||
        (st = bag_check_offset(c->names[k], t, elem)) != CLG_SUCCESS)
      return st;
  }
  size_t oelem = clg_dtype_size(c->output->dtype);
  if ((st = clg__check_tensor(ctx, "output",
                              bag_desc(c->output, templates, &copy), oelem,
                              &c->of)) != CLG_SUCCESS ||
      (st = bag_check_offset("output", c->output, oelem)) != CLG_SUCCESS)
    return st;
  if ((st = clg__bag_check_shapes(params, c->in[BAG_WEIGHT], c->in[BAG_INDICES],
                                  c->in[BAG_BAGS], c->in[BAG_PSW], c->output,
                                  &c->g)) != CLG_SUCCESS ||
      templates)
    return st;
  /* The device's arithmetic, where there is a reduction (an empty output
   * needs none), before any value is read: a device that cannot give the
   * promised bits refuses the call whichever way its values would be
   * checked (the host's found a bad index first, the device's ways the
   * refusal), as a plan's creation refuses it (bag_plans.c). */
  if (c->g.num_bags > 0 && c->g.dim > 0 &&
      (st = clg__bag_device_check(ctx, &c->g)) != CLG_SUCCESS)
    return st;
  for (int k = 0; k < BAG_INPUTS; ++k)
    if (c->in[k] &&
        (st = clg__check_no_overlap(c->names[k], c->in[k], c->inf[k].bytes,
                                    c->output, c->of.bytes)) != CLG_SUCCESS)
      return st;
  return clg__resolve_queue(ctx, queue, &c->queue);
}

clg_bag_call clg__bag_call_of(const clg_bag_params *params,
                              const clg_tensor *weight,
                              const clg_tensor *indices, const clg_tensor *bags,
                              const clg_tensor *psw, const clg_tensor *output) {
  return (clg_bag_call){
      .in = {weight, indices, bags, psw},
      .names = {"weight", "indices",
                params && params->form == CLG_BAGS_SEGMENT_IDS ? "segment_ids"
                                                               : "offsets",
                "per_sample_weights"},
      .output = output,
  };
}

clg_status clg__bag_check_templates(clg_context *ctx,
                                    const clg_bag_params *params,
                                    const clg_tensor *weight,
                                    const clg_tensor *indices,
                                    const clg_tensor *bags,
                                    const clg_tensor *per_sample_weights,
                                    const clg_tensor *output, clg_bag_geom *g) {
  clg_bag_call c = clg__bag_call_of(params, weight, indices, bags,
                                    per_sample_weights, output);
  clg_status st = clg__bag_check_call(ctx, params, NULL, 0, NULL, &c, true);
  if (st == CLG_SUCCESS)
    *g = c.g;
  return st;
}

/* The first part of clg__bag_check_way()'s rule (run.h). */
bool clg__bag_device_checkable(const clg_bag_geom *g, const clg_tensor *indices,
                               const clg_tensor *bags) {
  return indices->storage == CLG_STORAGE_BUFFER &&
         (!bags || bags->storage == CLG_STORAGE_BUFFER) &&
         (g->n > 0 || g->bags_len > 0) && g->n < UINT32_MAX &&
         g->bags_len < UINT32_MAX;
}
