/* How a call's index values are checked: one table of the ways, and the
 * pure functions that pick a row, used by a call (call.c: clg__run;
 * embedding_bag.c: EmbeddingBag's, whose checks cover its bags too) and
 * by a plan's baking (call.c: clg__bake) alike. A new way is a row here
 * and a case in clg__run() (and in EmbeddingBag's call where it applies). */
#include "run/run.h"

static const clg_check_row clg_check_table[CLG_CHECK_WAYS] = {
    [CLG_CHECK_NONE] = {"none", false, false,
                        "nothing to read: the values were checked before "
                        "(the parts of a split or sharded call), or mode WRAP "
                        "or CLIP (the operator's mode rule only), or no "
                        "index"},
    [CLG_CHECK_HOST] = {"host", false, false,
                        "host indices scanned in place before anything is "
                        "enqueued"},
    [CLG_CHECK_READ_BACK] = {"read-back", false, true,
                             "cl_mem indices under the device threshold, "
                             "a host output: read back (blocking, after "
                             "the wait list) and scanned on the host; then "
                             "the kernels"},
    [CLG_CHECK_DEVICE] = {"device", false, true,
                          "cl_mem indices from the threshold up, a host "
                          "output (or clg_validate()): the validation "
                          "kernel, its verdict read (blocking) before any "
                          "kernel of the operator is enqueued"},
    [CLG_CHECK_GATED] = {"gated", true, false,
                         "asynchronous checked mode, cl_mem output: the "
                         "validation kernel, the operator's kernels gated on "
                         "its verdict on the device; the outcome reads it"},
    [CLG_CHECK_GATED_READ] = {"gated, read after", true, false,
                              "a synchronous call, cl_mem indices and "
                              "output: the validation kernel, the "
                              "operator's kernels gated on its verdict, "
                              "then the verdict read after the last of "
                              "them (the call's one wait); the variants "
                              "the kernels could not time gated are timed "
                              "once it has passed"},
    [CLG_CHECK_HOST_RUN] = {"host run", false, false,
                            "a gather with host data, indices and output "
                            "on a CPU device, no wait list, an output of at "
                            "most CLG_OPTION_HOST_RUN_BYTES: the values "
                            "scanned in place, then the output copied on "
                            "the calling thread (run/host_run.c): no "
                            "kernel"},
    [CLG_CHECK_FUSED] = {"fused", true, false,
                         "a synchronous gather that would be gated, small "
                         "(clg__fused_applies): one kernel, one work-group, "
                         "checks every index and, all valid, writes the "
                         "output; its verdict read after it (the call's "
                         "one wait)"},
    [CLG_CHECK_HOST_PLAN] = {"host plan", false, true,
                             "an operator with an index plan (the "
                             "scatters): values on the host (read back from "
                             "a cl_mem), checked unless checked before, and "
                             "planned; then the kernels"},
    [CLG_CHECK_DEVICE_PLAN] = {"device plan", true, false,
                               "the scatters' plan on the device (cl_mem "
                               "indices and output): the validation kernel "
                               "(none in a synchronous call whose plan's "
                               "kernels check the values: checks_values), "
                               "the plan's kernels and the operator's, "
                               "gated; the verdict read after the last "
                               "(synchronous) or by the outcome"},
};

/* The output's bytes, from the checked shape. */
static uint64_t clg_output_bytes(const clg_checked *c) {
  uint64_t n = c->df.elem_size;
  for (int32_t i = 0; i < c->out_rank; ++i)
    n *= (uint64_t)c->out_shape[i];
  return n;
}

const clg_check_row *clg__check_row(clg_check_way way) {
  return way >= 0 && way < CLG_CHECK_WAYS ? &clg_check_table[way] : NULL;
}

clg_check_way clg__check_values_way(const clg_context *ctx,
                                    const clg_checked *c,
                                    const clg_tensor *indices) {
  if (c->norm.mode != CLG_MODE_RAISE || c->xf.count == 0)
    return CLG_CHECK_NONE;
  if (indices->storage == CLG_STORAGE_HOST)
    return CLG_CHECK_HOST;
  return clg__validate_on_device(ctx, c->xf.bytes, c->xf.flags)
             ? CLG_CHECK_DEVICE
             : CLG_CHECK_READ_BACK;
}

clg_check_way clg__check_way(const clg_context *ctx, const clg_checked *c,
                             const clg_tensor *indices,
                             const clg_tensor *output, bool async,
                             bool values_checked) {
  bool on_device = clg__values_on_device(c, indices) && !values_checked;
  bool device_output = output->storage == CLG_STORAGE_BUFFER;
  if (c->impl->device_plan && on_device && device_output &&
      (async || clg__validate_on_device(ctx, c->xf.bytes, c->xf.flags)))
    return CLG_CHECK_DEVICE_PLAN; /* HOST_PLAN where the operator declines */
  if (c->impl->index_plan)
    return CLG_CHECK_HOST_PLAN;
  if (values_checked)
    return CLG_CHECK_NONE;
  if (on_device && device_output && async)
    return CLG_CHECK_GATED;
  if (on_device && device_output &&
      clg__gate_sync(ctx, c->xf.bytes, c->xf.flags, clg_output_bytes(c)))
    return CLG_CHECK_GATED_READ;
  return clg__check_values_way(ctx, c, indices);
}

clg_check_way clg__bag_check_way(const clg_context *ctx, const clg_bag_geom *g,
                                 const clg_tensor *indices,
                                 const clg_tensor_facts *xf,
                                 const clg_tensor *bags,
                                 const clg_tensor_facts *bf,
                                 const clg_tensor *output, bool async,
                                 cl_uint num_events) {
  bool values_in_mem = (indices->storage == CLG_STORAGE_BUFFER && xf->bytes) ||
                       (bags && bags->storage == CLG_STORAGE_BUFFER &&
                        bf->bytes);
  if (!clg__bag_device_checkable(g, indices, bags))
    return values_in_mem ? CLG_CHECK_READ_BACK : CLG_CHECK_HOST;
  size_t bytes = xf->bytes + (bags ? bf->bytes : 0);
  cl_mem_flags flags = xf->flags | (bags ? bf->flags : 0);
  bool device_output = output->storage == CLG_STORAGE_BUFFER;
  if (device_output && async)
    return CLG_CHECK_GATED;
  /* As the gathers' (clg__run): after events of the caller's, checked
   * first. */
  uint64_t out_bytes = (uint64_t)g->num_bags * (uint64_t)g->dim *
                       clg_dtype_size(g->dtype);
  if (device_output && num_events == 0 &&
      clg__gate_sync(ctx, bytes, flags, out_bytes))
    return CLG_CHECK_GATED_READ;
  return clg__validate_on_device(ctx, bytes, flags) ? CLG_CHECK_DEVICE
                                                    : CLG_CHECK_READ_BACK;
}

bool clg__host_run_applies(const clg_context *ctx, const clg_checked *c,
                           const clg_call *call, const clg_tensor_facts *of) {
  if (!c->impl->slices || c->impl->index_plan || c->num_inputs != 2 ||
      call->num_events > 0)
    return false;
  if (call->data->storage != CLG_STORAGE_HOST ||
      call->indices->storage != CLG_STORAGE_HOST ||
      call->output->storage != CLG_STORAGE_HOST)
    return false;
#if defined(CLGATHER_TESTING)
  int forced = clg__fi_host_run();
  if (forced >= 0)
    return forced == 1;
#endif
  /* A variant forced (CLGATHER_VARIANT) asks for its kernel. */
  int64_t most = atomic_load(&((clg_context *)ctx)->host_run_bytes);
  return (ctx->device_type & CL_DEVICE_TYPE_CPU) && most > 0 &&
         of->bytes <= (uint64_t)most && ctx->forced_variant < 0;
}

/* The thresholds (run.h) keep the one work-group's work small: its check
 * and copy are serial in steps of its work-group size, where two kernels
 * spread both over the device. W5 (10 int64 indices into [100, 64]
 * float32, 2.5 KiB out) on POCL 3.1, Zen 3: see README's "What a call
 * costs". */
bool clg__fused_applies(const clg_context *ctx, const clg_checked *c,
                        const clg_tensor_facts *of) {
  (void)ctx;
  if (!c->impl->fused || c->norm.mode != CLG_MODE_RAISE ||
      c->xf.count == 0 || of->bytes == 0)
    return false;
#if defined(CLGATHER_TESTING)
  int forced = clg__fi_fused();
  if (forced >= 0)
    return forced == 1;
#endif
  return c->xf.count <= CLG_FUSED_MAX_INDICES &&
         of->bytes <= CLG_FUSED_MAX_BYTES;
}
