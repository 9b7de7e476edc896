/* run/bag_split.c: EmbeddingBag with a host weight larger than the
 * device's largest buffer (ctx->max_alloc, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
 * which test builds may lower: CLGATHER_TEST_MAX_ALLOC), run by
 * run/embedding_bag.c's clg_embedding_bag() and _async() once the checks
 * that read no value have passed. Not installed.
 *
 * The operands are passed as run/embedding_bag.c holds them: in[0..3]
 * weight, indices, bags, per_sample_weights (bags and per_sample_weights
 * NULL where absent), inf[0..3] their facts, the output and its facts. */
#ifndef CLGATHER_HOST_RUN_BAG_SPLIT_H
#define CLGATHER_HOST_RUN_BAG_SPLIT_H

#include "ops/embedding_bag.h"

/* Is the weight host memory, and it (or another host operand) larger than
 * the device's largest buffer? */
bool clg__bag_split_needed(const clg_context *ctx, const clg_tensor *const *in,
                           const clg_tensor_facts *inf,
                           const clg_tensor *output,
                           const clg_tensor_facts *of);

/* A synchronous EmbeddingBag call as clg_embedding_bag() takes it: what
 * the groups are run with, given by embedding_bag.c, which calls this file
 * (so that this file does not call back into it). */
typedef clg_status (*clg_bag_call_fn)(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *weight,
    const clg_tensor *indices, const clg_tensor *bags,
    const clg_tensor *per_sample_weights, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event);

/* Run the checked call (g: its geometry) on packed tables: every value
 * checked first, as the host's path checks them (cl_mem indices and bags
 * read back, after the wait list), then the bags in groups, each group's
 * distinct rows packed into a host table that fits, its indices renumbered
 * into it, and `run` (clg_embedding_bag) called on it into the group's
 * output rows. Blocking; *event (when asked) a marker after the groups;
 * *outcome (when not NULL) an outcome already decided. */
clg_status clg__bag_run_split(clg_context *ctx, const clg_bag_geom *g,
                              const clg_tensor *const *in,
                              const clg_tensor_facts *inf,
                              const clg_tensor *output,
                              const clg_tensor_facts *of,
                              cl_command_queue queue, cl_uint num_events,
                              const cl_event *wait_list, cl_event *event,
                              clg_outcome **outcome, clg_bag_call_fn run);

#endif /* CLGATHER_HOST_RUN_BAG_SPLIT_H */
