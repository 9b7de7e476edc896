/* GatherND: placeholder until its implementation lands. */
#include "internal.h"

static clg_status gather_nd_shape(const clg_params *params, int32_t r,
                                  const int64_t *ds, int32_t q,
                                  const int64_t *qs, clg_params *norm,
                                  int32_t *out_rank, int64_t *out_shape) {
  (void)params, (void)r, (void)ds, (void)q, (void)qs, (void)norm;
  (void)out_rank, (void)out_shape;
  return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                   "GatherND is not implemented yet");
}

static clg_status gather_nd_check_indices(const clg_params *norm,
                                          const clg_tensor *data,
                                          const clg_tensor *indices,
                                          const void *values, size_t count,
                                          size_t index_size) {
  (void)norm, (void)data, (void)indices, (void)values, (void)count;
  (void)index_size;
  return CLG_SUCCESS;
}

static clg_status gather_nd_enqueue(clg_context *ctx, const clg_params *norm,
                                    const clg_launch *l, cl_event *event) {
  (void)ctx, (void)norm, (void)l, (void)event;
  return CLG_ERROR_INVALID_ARGUMENT;
}

const clg_op_impl clg__op_gather_nd = {
    "GatherND", gather_nd_shape, gather_nd_check_indices, gather_nd_enqueue};
