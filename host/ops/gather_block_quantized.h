/* ops/: GatherBlockQuantized's own rules (ops/gather_block_quantized.c),
 * which run/'s clg_gather_block_quantized() (run/gather_block_quantized.c)
 * calls: the checks of its params, operands' types and shapes, its index
 * rule, and its kernel call. Its registry line (ops/operators.def,
 * CLG_PARAM_GBQ) names it and gives its index rule to the family's steps;
 * it takes no clg_params, so these functions are its entry into the
 * library's common steps. Not installed. */
#ifndef CLGATHER_HOST_OPS_GATHER_BLOCK_QUANTIZED_H
#define CLGATHER_HOST_OPS_GATHER_BLOCK_QUANTIZED_H

#include "ops/op.h"

/* A call's geometry once its descriptors are checked (no value read). */
typedef struct clg_gbq_geom {
  clg_gbq_params p;              /* checked, axes normalised */
  int32_t rank;                  /* r: the values' rank */
  int64_t values[CLG_MAX_RANK];  /* V: the values' shape */
  int32_t ga, qa;                /* the axes, in [0, r) */
  int64_t s;                     /* V[ga] */
  int64_t inner;                 /* prod V[ga+1:] */
  int64_t q_len, n_after;        /* Q = V[qa], N = prod V[qa+1:] */
  int64_t nb;                    /* ceil(Q / block_size) */
  int64_t zp_row;                /* uint8 bits 4: zero-point bytes a row */
  int64_t n;                     /* indices' elements */
  size_t data_bytes, zp_bytes;   /* the packed operands' bytes */
  size_t count;                  /* output's elements */
  clg_dtype sdtype;              /* scales' (and output's) dtype */
  bool zp;                       /* zero_points given */
} clg_gbq_geom;

/* Every rule on params, element types, ranks and shapes
 * (clgather_quantized.h), in its error order; tensors not NULL (but
 * zero_points), their storage not yet checked. Fills *g. */
clg_status clg__gbq_check(const clg_gbq_params *params, const clg_tensor *data,
                          const clg_tensor *indices, const clg_tensor *scales,
                          const clg_tensor *zero_points,
                          const clg_tensor *output, clg_gbq_geom *g);

/* The index rule as the family's index pass, validation kernel and
 * outcomes take it (run/run.h: clg__check_index_values,
 * clg__verdict_enqueue, clg__outcome_pending): ONNX Gather's on the
 * gather axis, each value in [-s, s-1], an offender reported naming its
 * position, value and range. Fills *c (its impl: bounds and report only;
 * params: mode RAISE, axis ga; xf: the indices' facts) and *values, the
 * `data` descriptor the rule reads (the values' shape; no memory). */
void clg__gbq_rule(const clg_gbq_geom *g, const clg_tensor *indices,
                   const clg_tensor_facts *xf, size_t host_threads,
                   clg_checked *c, clg_tensor *values);

/* What the device must offer for the call's bits: float32 scales need
 * CL_FP_DENORM (CLG_ERROR_UNSUPPORTED_DTYPE otherwise). */
clg_status clg__gbq_device_check(clg_context *ctx, const clg_gbq_geom *g);

/* The operands as the kernel reads them: each cl_mem and its byte offset
 * (zero_points': any buffer when there are none; never read); and where
 * a trial of the tuner may run: `queue` after the wait list, where
 * `can_time` (an ungated call, its values checked). */
typedef struct clg_gbq_mems {
  cl_mem data, indices, scales, zp, output;
  size_t data_off, indices_off, scales_off, zp_off, output_off;
  size_t index_size;
  cl_command_queue queue;
  cl_uint num_events;
  const cl_event *wait_list;
  bool can_time;
  /* Not NULL: set when, gated, the variants could not be timed and would
   * have been (clg__tune_pick_gated): a synchronous call whose verdict
   * passed may prepare again, ungated, to time them. */
  bool *retime;
} clg_gbq_mems;

/* Get (building on first use) the kernel for this geometry, index size
 * (4 or 8), gate (`gated`: it takes the verdict as one more, last,
 * argument and writes nothing when a check failed) and variant
 * (CLG_VARIANT_ITEM: one output element a work-item; CLG_VARIANT_BLOCK: a
 * run of them): for plans baking. */
clg_status clg__gbq_kernel(clg_context *ctx, const clg_gbq_geom *g,
                           size_t index_size, bool gated, int variant,
                           clg_kernel_entry **kernel);

/* The kernel's call, g->count > 0: its variant chosen (device/tune.c:
 * timed once per shape class where m allows, else the device type's
 * likely one), its program built or found; `gated` as clg__gbq_kernel()'s,
 * the verdict appended by clg__call_launch(). */
clg_status clg__gbq_prepare(clg_context *ctx, const clg_gbq_geom *g,
                            const clg_gbq_mems *m, bool gated,
                            clg_kernel_call *call);

#endif /* CLGATHER_HOST_OPS_GATHER_BLOCK_QUANTIZED_H */
