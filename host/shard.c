/* Multi-device sharding (clg_run_sharded): being written. */
#include "internal.h"

clg_status clg_run_sharded(clg_context *const *ctxs, cl_uint num_ctxs,
                           const clg_params *params, const clg_tensor *data,
                           const clg_tensor *indices, const clg_tensor *output,
                           const cl_command_queue *queues, cl_uint num_events,
                           const cl_event *wait_list, cl_event *event) {
  (void)ctxs; (void)num_ctxs; (void)params; (void)data; (void)indices;
  (void)output; (void)queues; (void)num_events; (void)wait_list; (void)event;
  return clg__fail(CLG_ERROR_INVALID_ARGUMENT, "not implemented yet");
}
