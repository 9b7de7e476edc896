/* ops/: what an operator of the family supplies (clg_op_impl), the
 * registry that lists them (operators.def, registry.c) and what operators
 * share (op_shared.c). Not installed. */
#ifndef CLGATHER_HOST_OPS_OP_H
#define CLGATHER_HOST_OPS_OP_H

#include "check/check.h"
#include "device/enqueue.h"
#include "device/quirks.h"

#include <string.h>

/* A call's inputs, in the ONNX operator's order: data, indices, then (the
 * scatters) updates. Every operand list below is indexed by these. */
#define CLG_MAX_INPUTS 3
enum { CLG_IN_DATA = 0, CLG_IN_INDICES = 1, CLG_IN_UPDATES = 2 };

/* Everything an operator's enqueue step gets: the caller's tensors, their
 * facts, the cl_mem each is staged in, and where to enqueue. The inputs are
 * a list (in[], inf[], ins[]) that the named members alias. */
typedef struct clg_launch {
  union {
    const clg_tensor *in[CLG_MAX_INPUTS];
    struct {
      const clg_tensor *data, *indices, *updates;
    };
  };
  union {
    clg_tensor_facts inf[CLG_MAX_INPUTS];
    struct {
      clg_tensor_facts df, xf, uf;
    };
  };
  union {
    struct clg_staged *ins[CLG_MAX_INPUTS];
    struct {
      struct clg_staged *d, *x, *u;
    };
  };
  int num_inputs;
  const clg_tensor *output;
  clg_tensor_facts of;
  struct clg_staged *o;
  clg_scatter_params sc; /* the scatters' attributes (defaults otherwise) */
  void *state; /* what the operator's index_schedule() or
                * device_schedule() made */
  size_t verdict_extra; /* device_schedule(): the 64-bit word of the verdict
                         * where the operator's own words start */
  cl_command_queue queue;
  cl_uint num_events;
  const cl_event *wait_list;
  /* The queue is in order: the call's kernels follow one another without
   * events between them (false: each waits for the one before's). */
  bool in_order;
  bool baking; /* a plan being baked (clg__bake): prepare() builds its
                * kernels and allocates, uploads and launches nothing */
  /* Way FUSED (run/strategy.c): not NULL, the verdict buffer the fused
   * kernel (the fused() hook's) writes, one group's, with run number
   * `fused_gen`. */
  cl_mem fused;
  cl_uint fused_gen;
  /* Not NULL: prepare() sets *retime when, gated, it could not time its
   * variants and would have (clg__tune_pick_gated): a synchronous call
   * whose verdict passed may call it again, ungated, on the same tensors
   * to time them (run/call.c). */
  bool *retime;
} clg_launch;

/* The operator's own 64-bit words in a device_schedule() call's verdict: a
 * repeat's flag, its entries and its target (kernels/scatter_index.cl). */
#define CLG_VERDICT_EXTRA 4
/* The verdict's first work-group word (host/run/verdict.c's layout: the
 * flag, the operator's words, then a (position, value) pair per group):
 * the fused() hook's kernel writes its one group there. */
#define CLG_VERDICT_GROUPS_AT (1 + CLG_VERDICT_EXTRA)

/* A gather seen as whole rows (the rows hook), in elements: data [batch *
 * outer, s, inner] and output [batch * outer, n, inner], where the n
 * indices of batch row b (output rows [b * outer, (b + 1) * outer)) are
 * indices' elements [b * n, (b + 1) * n). Any run of rows within one batch
 * row is a Gather on axis 1 of [rows, s, inner] by those n indices. */
typedef struct clg_row_view {
  int64_t batch, outer, s, n, inner;
} clg_row_view;

/* One operator of the family: the hooks its file (ops/FILE.c, registered
 * in ops/operators.def) supplies. Optional hooks may be NULL. */
typedef struct clg_op_impl {
  /* Optional: rules on params beyond the registry's (fields the operator
   * does not take are 0 / CLG_MODE_RAISE, the mode is known: checked). */
  clg_status (*check_params)(const clg_params *params);
  /* clg_supported()'s rule on ranks (data_rank in [1, CLG_MAX_RANK] and
   * indices_rank in [0, CLG_MAX_RANK] already checked). */
  bool (*supported)(int32_t data_rank, int32_t indices_rank);
  /* Check params against the shapes (ranks in [0, CLG_MAX_RANK] and dims
   * non-negative already checked; data rank >= 1), normalise axis and
   * batch_dims into *norm, and write the output shape. */
  clg_status (*shape)(const clg_params *params, int32_t data_rank,
                      const int64_t *data_shape, int32_t indices_rank,
                      const int64_t *indices_shape, clg_params *norm,
                      int32_t *out_rank, int64_t *out_shape);
  /* The index checks that read no value (Gather's modes WRAP and CLIP: an
   * empty axis admits no index), or NULL. Run in every mode, before any
   * value is read; values are read (and checked against `bounds`) only in
   * mode RAISE. */
  clg_status (*check_mode)(const clg_params *norm, const clg_tensor *data,
                           size_t count);
  /* Mode RAISE: the periodic bounds of the call. Index value at flat
   * position i must lie in [-s[i % period], s[i % period] - 1]; writes
   * s[0..period-1] (period <= CLG_MAX_RANK) and returns period. */
  size_t (*bounds)(const clg_params *norm, const clg_tensor *data,
                   const clg_tensor *indices, int64_t *s);
  /* Mode RAISE: the failure (CLG_ERROR_INDEX_OUT_OF_BOUNDS and its message)
   * for the out-of-bounds `value` at flat position `pos` of indices. Shared
   * by the host scan and the device verdict, so both give one message. */
  clg_status (*report)(const clg_params *norm, const clg_tensor *data,
                       const clg_tensor *indices, size_t pos, int64_t value);
  /* Choose, get (building on first use) and set up the kernels for a
   * non-empty output: calls->call[0 .. count-1] receive the kernels, their
   * arguments and NDRanges, ready for clg__call_launch(), run in that
   * order. `gated`: the kernel variants of the asynchronous checked mode,
   * which take the verdict buffer as one more, last, argument (appended by
   * clg__call_launch()); every call of a gated run is gated, so a failed
   * verdict leaves the output as it was. Tensors whose staged mem is NULL
   * (a plan being baked) give NULL mem arguments. */
  clg_status (*prepare)(clg_context *ctx, const clg_params *norm,
                        const clg_launch *launch, bool gated,
                        clg_kernel_calls *calls);
  /* What produces the output shape, for a mismatch message: "Gather on
   * axis 1", "GatherND with batch_dims 0" (at most cap bytes). */
  void (*describe)(const clg_params *norm, char *buf, size_t cap);
  /* Sharding (run/shard.c): can the output be split along its first
   * dimension, and which inputs have that dimension as their own first one
   * (sliced with it)? The others go whole to every part. */
  bool (*split)(const clg_params *norm, const clg_tensor *indices,
                bool *data_rows, bool *index_rows);
  /* How many inputs it takes (CLG_IN_*): 2 (data, indices) when 0, or 3
   * (+ updates, of data's element type). */
  int num_inputs;
  /* The scatters (num_inputs 3): updates' shape against data's and
   * indices' (CLG_ERROR_INCOMPATIBLE_SHAPES), after the shape hook. */
  clg_status (*check_updates)(const clg_params *norm, const clg_tensor *data,
                              const clg_tensor *indices,
                              const clg_tensor *updates);
  /* Optional, scatters: rules on the scatter attributes (known values
   * already checked). */
  clg_status (*check_scatter)(const clg_scatter_params *sc);
  /* Optional: the host's work on index values once they are checked
   * against the bounds, before anything is staged (the scatters: targets,
   * duplicates, the order in which updates apply). `values` are the
   * `count` index values in host memory. *state (freed by release_state)
   * reaches prepare() as launch->state. Operators with this hook always
   * check index values when called (never deferred to the device). */
  clg_status (*index_schedule)(clg_context *ctx, const clg_params *norm,
                               const clg_scatter_params *sc,
                               const clg_tensor *data,
                               const clg_tensor *indices, const void *values,
                               size_t count, void **state);
  void (*release_state)(void *state);
  /* Optional: told, before release_state, that the call's commands are all
   * enqueued and `last` ends after every one of them (NULL: none runs any
   * more, the call waited for its last kernel), so release_state may keep
   * the state's buffers for a later call, reused once `last` has ended
   * (the scatters' scratch buffers: device/enqueue.h,
   * clg__scratch_give). */
  void (*state_done)(void *state, cl_event last);
  /* Optional, with index_schedule: the same work left to the device, for
   * cl_mem indices and a cl_mem output: a state for prepare() without
   * reading any value (kernels that follow the validation kernel and read
   * its verdict, with CLG_VERDICT_EXTRA words of their own). *state NULL:
   * this call cannot (the host's index_schedule() then runs). */
  clg_status (*device_schedule)(clg_context *ctx, const clg_params *norm,
                                const clg_scatter_params *sc,
                                const clg_tensor *data,
                                const clg_tensor *indices, void **state);
  /* Optional, with device_schedule: true if the state's kernels check every
   * index value against its bounds themselves (a value out of range sets
   * bit 1 of the operator's first verdict word and stops the operator's
   * kernels), so that a synchronous call launches no validation kernel
   * before them and, on that bit, locates the first offender with one
   * (run/call.c). Asynchronous calls keep the validation kernel (their
   * outcome reports the offender from its verdict). */
  bool (*checks_values)(const void *state);
  /* With device_schedule: the failure (CLG_ERROR_DUPLICATE_INDEX) for entries
   * `first` < `later` sharing `target`, as index_schedule() reports it. */
  clg_status (*report_duplicate)(const clg_params *norm,
                                 const clg_tensor *data,
                                 const clg_tensor *indices, size_t first,
                                 size_t later, int64_t target);
  /* Optional: the call as slices, for host tensors larger than one device
   * buffer (run/split.c). Entry e moves one slice of *inner elements:
   * gathers read output slice e from data slice pos[e]; scatters write
   * update slice e onto output slice pos[e]; data and output are viewed as
   * [units, inner]. With pos NULL only *entries and *inner are written;
   * else `values` (host memory, index_size 4 or 8, already checked) give
   * pos[0 .. entries-1]. NULL: the call cannot be split. */
  void (*slices)(const clg_params *norm, const clg_tensor *data,
                 const clg_tensor *indices, const void *values,
                 size_t index_size, size_t *entries, uint64_t *inner,
                 int64_t *pos);
  /* Optional: may the output be input `input`'s own storage (the same host
   * pointer, or the same cl_mem at the same offset, with the same bytes)?
   * An operator that updates in place says yes for data; NULL: no input.
   * Any other overlap of the output with an input is an error. */
  bool (*output_may_alias)(int input);
  /* Optional: the checked call in one kernel (way FUSED, run/strategy.c:
   * small index counts and outputs): one work-group checks every index
   * value against the operator's bounds, writes the verdict as the
   * validation kernel writes one group's (launch->fused, with run number
   * launch->fused_gen; host/run/verdict.c's layout) and, every value
   * valid, writes the output. Sets up *call. NULL: the operator has
   * none. */
  clg_status (*fused)(clg_context *ctx, const clg_params *norm,
                      const clg_launch *launch, clg_kernel_call *call);
  /* Optional, gathers: the call as whole rows (clg_row_view), for host tensors
   * larger than one device buffer: where a data row fits one buffer,
   * run/split.c runs groups of rows as Gathers on axis 1 and reads no index
   * value (else, or NULL, it uses slices()). */
  void (*rows)(const clg_params *norm, const clg_tensor *data,
               const clg_tensor *indices, clg_row_view *rows);
} clg_op_impl;

/* Checked inputs of a call: the operator, normalised params, facts. */
typedef struct clg_checked {
  const clg_op_info *info;
  const clg_op_impl *impl;
  clg_params norm;
  clg_scatter_params sc; /* the scatters' attributes (defaults otherwise) */
  int num_inputs;        /* impl's, 2 or 3 */
  size_t host_threads;   /* the context's bound on a host scan's threads */
  union {
    clg_tensor_facts inf[CLG_MAX_INPUTS];
    struct {
      clg_tensor_facts df, xf, uf;
    };
  };
  int32_t out_rank;
  int64_t out_shape[CLG_MAX_RANK];
} clg_checked;


/* Index value i of an int32 (size 4) or int64 (size 8) array at any byte
 * address. */
static inline int64_t clg__index_value(const void *values, size_t size,
                                       size_t i) {
  if (size == 8) {
    int64_t v;
    memcpy(&v, (const unsigned char *)values + 8 * i, 8);
    return v;
  }
  int32_t v;
  memcpy(&v, (const unsigned char *)values + 4 * i, 4);
  return v;
}

/* ------------------------------------------------------- op_shared.c */
/* What several operators use; an operator's file calls no other operator's
 * file (scripts/check_layers.sh checks it). */

/* The widest copy unit (16, 8, 4, 2 or 1 bytes) dividing `bytes` and both
 * byte offsets `align_a` and `align_b`. */
size_t clg__copy_unit(uint64_t bytes, size_t align_a, size_t align_b);
/* The same up to `max` bytes (a power of two <= 64). */
size_t clg__copy_unit_max(uint64_t bytes, size_t align_a, size_t align_b,
                          size_t max);
/* OpenCL C type name of a copy unit of `unit_bytes` ("uint4"): the kernels'
 * -DCLG_UNIT. */
const char *clg__unit_type(size_t unit_bytes);

/* The flat element of data that entry e of a GatherElements or
 * ScatterElements reads or writes, for every entry (C order over indices'
 * shape): e's position with its axis coordinate replaced by its index value
 * (values in host memory, index_size 4 or 8, checked against the bounds). */
void clg__elements_positions(const clg_params *norm, const clg_tensor *data,
                             const clg_tensor *indices, const void *values,
                             size_t index_size, int64_t *t);

/* The device's CL_DEVICE_SINGLE_FP_CONFIG (`dbl`: DOUBLE_FP_CONFIG) into
 * *fp, as the arithmetic's checks read it (CL_FP_DENORM: subnormals
 * kept); a failed query is CLG_ERROR_OPENCL. */
clg_status clg__fp_config(const clg_context *ctx, bool dbl,
                          cl_device_fp_config *fp);

/* The registry (registry.c, from operators.def). */
#define CLG_OPERATOR(ENUM, impl, file, kernel, name, command, params)       \
  extern const clg_op_impl clg__op_##impl;                                     \
  extern const char clg_kernel_##kernel[];
#include "ops/operators.def"
#undef CLG_OPERATOR

/* The registry's table, in operators.def's order (clg_operators()); its
 * length in *count when count is not NULL. */
const clg_op_info *clg__op_table(size_t *count);
/* The registered operator `op`: its description and hooks; NULL (both) if
 * there is none. */
const clg_op_info *clg__op_info(clg_op op);
const clg_op_impl *clg__op_impl(clg_op op);

/* The registry's checks of params: a registered op, a known mode, and the
 * fields it does not take at their defaults; then its own check_params.
 * Sets *info and *impl. CLG_ERROR_INVALID_ARGUMENT otherwise. */
clg_status clg__check_params(const clg_params *params,
                             const clg_op_info **info,
                             const clg_op_impl **impl);

#endif /* CLGATHER_HOST_OPS_OP_H */
