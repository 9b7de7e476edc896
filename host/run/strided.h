/* run/strided.c and run/strided_gather.c: strided tensors run as the same
 * call on dense ones, and the Gather that reads strided data in place. Not
 * installed. */
#ifndef CLGATHER_HOST_RUN_STRIDED_H
#define CLGATHER_HOST_RUN_STRIDED_H

#include "device/quirks.h"
#include "run/run.h"

/* The most operands a call has: data, indices, updates, output. */
#define CLG_OPERANDS (CLG_MAX_INPUTS + 1)
#define CLG_OUT CLG_MAX_INPUTS
/* Work-group size of the copy kernel's NDRange. */
#define CLG_STRIDED_LOCAL 64

/* One operand as the dense call sees it. */
typedef struct clg_dense_operand {
  clg_tensor t;   /* the dense descriptor */
  void *host_tmp; /* ours: host memory the operand was packed into */
  cl_mem scratch; /* ours: a device buffer it was packed into */
  bool copy_back; /* an output computed into host_tmp or scratch */
  clg_strided_facts f;
} clg_dense_operand;

/* A layout to copy between: dims merged, in elements. */
typedef struct clg_copy_layout {
  int rank;
  int64_t shape[CLG_MAX_RANK], src[CLG_MAX_RANK], dst[CLG_MAX_RANK],
      idx[CLG_MAX_RANK];
} clg_copy_layout;

/* Strides of the dense C-order tensor of `shape`. */
void clg__dense_strides(int32_t rank, const int64_t *shape, int64_t *strides);
/* Drop dimensions of size 1 and merge neighbours every layout lays out
 * alike; `idx` (NULL: none) is a third layout, the direct Gather's index
 * positions. */
void clg__layout3(int32_t rank, const int64_t *shape, const int64_t *src,
                  const int64_t *dst, const int64_t *idx, clg_copy_layout *l);
/* The 2-D NDRange of kernels/strided.cl for layout l (rank >= 1 after
 * this), and its rows. */
void clg__strided_range(const clg_context *ctx, clg_copy_layout *l,
                        size_t *global, size_t *local, cl_ulong *rows_out);

/* strided_gather.c: does the call's Gather read its data in place (the
 * rule is the comment there)? */
bool clg__direct_eligible(const clg_call *call, const clg_dense_operand *op);
/* Run it: checks the dense operands' memory, every index value (blocking),
 * then one kernel after the wait list; the call's event and outcome. */
clg_status clg__direct_gather(const clg_call *call, cl_command_queue queue,
                              const clg_dense_operand *op, cl_uint num_events,
                              const cl_event *wait_list);

#endif /* CLGATHER_HOST_RUN_STRIDED_H */
