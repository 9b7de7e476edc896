/* The public entry points that are shorthands or questions: the
 * convenience calls of one operator (clg_gather, clg_gather_elements,
 * clg_gather_nd, clg_gather_output_shape) over clg_run() and
 * clg_output_shape(), the registry's answers (clg_operators,
 * clg_supported), and clg_validate() (dense tensors: call_checks.c;
 * strided ones: strided.c, which checks their dense stand-ins there).
 * Here, above the operators, so that ops/ defines no exported function
 * and calls nothing of run/ (scripts/check_layers.sh checks both).
 *
 * Every function the library exports is defined in core/ (status.c,
 * dtype.c, version.c), device/ (context.c, cache.c's clg_context_cache_info,
 * cache_dir.c's clg_context_set_cache_dir, tune.c's
 * clg_context_last_variant) or run/: this file, call.c (clg_run,
 * clg_run_async, clg_scatter, clg_scatter_async), call_checks.c
 * (clg_output_shape), outcome.c, plans.c, shard.c,
 * embedding_bag.c (clg_embedding_bag, clg_embedding_bag_async) and
 * bag_plans.c (clg_plan_create_embedding_bag,
 * clg_plan_enqueue_embedding_bag) and gather_block_quantized.c
 * (clg_gather_block_quantized). */
#include "run/run.h"

clg_status clg_gather_output_shape(int32_t data_rank, const int64_t *data_shape,
                                   int32_t indices_rank,
                                   const int64_t *indices_shape, int64_t axis,
                                   int32_t *out_rank, int64_t *out_shape) {
  clg_params p = {CLG_OP_GATHER, axis, 0, CLG_MODE_RAISE};
  return clg_output_shape(&p, data_rank, data_shape, indices_rank,
                          indices_shape, out_rank, out_shape);
}

clg_status clg_gather(clg_context *ctx, const clg_tensor *data,
                      const clg_tensor *indices, int64_t axis,
                      const clg_tensor *output, cl_command_queue queue,
                      cl_uint num_events, const cl_event *wait_list,
                      cl_event *event) {
  clg_params p = {CLG_OP_GATHER, axis, 0, CLG_MODE_RAISE};
  return clg_run(ctx, &p, data, indices, output, queue, num_events, wait_list,
                 event);
}

clg_status clg_gather_elements(clg_context *ctx, const clg_tensor *data,
                               const clg_tensor *indices, int64_t axis,
                               const clg_tensor *output, cl_command_queue queue,
                               cl_uint num_events, const cl_event *wait_list,
                               cl_event *event) {
  clg_params p = {CLG_OP_GATHER_ELEMENTS, axis, 0, CLG_MODE_RAISE};
  return clg_run(ctx, &p, data, indices, output, queue, num_events, wait_list,
                 event);
}

clg_status clg_gather_nd(clg_context *ctx, const clg_tensor *data,
                         const clg_tensor *indices, int64_t batch_dims,
                         const clg_tensor *output, cl_command_queue queue,
                         cl_uint num_events, const cl_event *wait_list,
                         cl_event *event) {
  clg_params p = {CLG_OP_GATHER_ND, 0, batch_dims, CLG_MODE_RAISE};
  return clg_run(ctx, &p, data, indices, output, queue, num_events, wait_list,
                 event);
}

const clg_op_info *clg_operators(size_t *count) { return clg__op_table(count); }

int clg_supported(clg_op op, clg_dtype data_dtype, clg_dtype indices_dtype,
                  int32_t data_rank, int32_t indices_rank,
                  clg_index_mode mode) {
  const clg_op_info *info = clg__op_info(op);
  if (!info)
    return 0;
  if (mode != CLG_MODE_RAISE &&
      (!(info->params & CLG_PARAM_MODE) ||
       (mode != CLG_MODE_WRAP && mode != CLG_MODE_CLIP)))
    return 0;
  if (data_dtype == CLG_DTYPE_STRING || clg_dtype_size(data_dtype) == 0)
    return 0;
  if ((info->params & CLG_PARAM_BAGS) && data_dtype != CLG_DTYPE_FLOAT &&
      data_dtype != CLG_DTYPE_FLOAT16 && data_dtype != CLG_DTYPE_BFLOAT16 &&
      data_dtype != CLG_DTYPE_DOUBLE)
    return 0; /* EmbeddingBag's weight: a floating-point type */
  if ((info->params & CLG_PARAM_GBQ) && data_dtype != CLG_DTYPE_UINT8)
    return 0; /* GatherBlockQuantized's data: its stored bytes */
  if (indices_dtype != CLG_DTYPE_INT32 && indices_dtype != CLG_DTYPE_INT64)
    return 0;
  if (data_rank < 1 || data_rank > CLG_MAX_RANK || indices_rank < 0 ||
      indices_rank > CLG_MAX_RANK)
    return 0;
  return clg__op_impl(op)->supported(data_rank, indices_rank) ? 1 : 0;
}

clg_status clg_validate(clg_context *ctx, const clg_params *params,
                        const clg_tensor *data, const clg_tensor *indices,
                        cl_command_queue queue, cl_uint num_events,
                        const cl_event *wait_list) {
  if (data && indices && (clg__strides(data) || clg__strides(indices))) {
    if (!ctx && (data->storage == CLG_STORAGE_BUFFER_STRIDED ||
                 indices->storage == CLG_STORAGE_BUFFER_STRIDED))
      return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                       "ctx is NULL, but data or indices is a cl_mem");
    return clg__validate_strided(ctx, params, data, indices, queue, num_events,
                                 wait_list);
  }
  return clg__validate_dense(ctx, params, data, indices, queue, num_events,
                             wait_list);
}
