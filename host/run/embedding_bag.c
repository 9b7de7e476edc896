/* The public entry points clg_embedding_bag() and clg_embedding_bag_async()
 * (clgather/clgather_bag.h). */
#include "ops/embedding_bag.h"
#include "run/run.h"

clg_status clg_embedding_bag(clg_context *ctx, const clg_bag_params *params,
                             const clg_tensor *weight,
                             const clg_tensor *indices, const clg_tensor *bags,
                             const clg_tensor *per_sample_weights,
                             const clg_tensor *output, cl_command_queue queue,
                             cl_uint num_events, const cl_event *wait_list,
                             cl_event *event) {
  (void)ctx, (void)params, (void)weight, (void)indices, (void)bags;
  (void)per_sample_weights, (void)output, (void)queue, (void)num_events;
  (void)wait_list, (void)event;
  return clg__fail(CLG_ERROR_INTERNAL, "internal: not yet");
}

clg_status clg_embedding_bag_async(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *weight,
    const clg_tensor *indices, const clg_tensor *bags,
    const clg_tensor *per_sample_weights, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event, clg_outcome **outcome) {
  (void)outcome;
  return clg_embedding_bag(ctx, params, weight, indices, bags,
                           per_sample_weights, output, queue, num_events,
                           wait_list, event);
}
