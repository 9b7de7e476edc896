/* ops/: EmbeddingBag's own rules (ops/embedding_bag.c), which run/'s
 * clg_embedding_bag() (run/embedding_bag.c) calls: the checks of its
 * operands' shapes and types, of the bags' and indices' values, and the
 * planning of its kernel. EmbeddingBag's registry entry only names it (it
 * takes no clg_params); these functions are its entry into the library's
 * common steps. Not installed. */
#ifndef CLGATHER_HOST_OPS_EMBEDDING_BAG_H
#define CLGATHER_HOST_OPS_EMBEDDING_BAG_H

#include "ops/op.h"

/* A call's geometry once its descriptors are checked (no value read). */
typedef struct clg_bag_geom {
  clg_bag_params p;     /* checked; padding_idx normalised, or -1 */
  clg_dtype dtype;      /* the arithmetic's: output's, per_sample_weights'
                           (and a dense weight's) */
  int64_t rows, dim;    /* weight [rows, dim] (output [B, dim]) */
  /* The weight's own element type and row length in its elements: dtype
   * and dim for dense rows; uint8 and the row's bytes for rows quantized
   * per row (p.weight_format; dim then follows from them). */
  clg_dtype wdtype;
  int64_t wcols;
  int64_t n;            /* index entries (indices' elements) */
  int64_t num_bags;     /* B: output [B, dim] */
  int64_t fixed;        /* CLG_BAGS_FIXED: L, the entries per bag; else 0 */
  int64_t bags_len;     /* the bags tensor's elements (0 when NULL) */
  bool psw;             /* per_sample_weights given */
} clg_bag_geom;

/* The params and the element types (clgather_bag.h), tensors already
 * NULL-checked (bags and per_sample_weights may be NULL), before their
 * descriptors are: bags NULL or not as the form says, per_sample_weights
 * with mode sum only. */
clg_status clg__bag_check_types(const clg_bag_params *params,
                                const clg_tensor *weight,
                                const clg_tensor *indices,
                                const clg_tensor *bags, const clg_tensor *psw,
                                const clg_tensor *output);

/* The shapes (clgather_bag.h), after clg__bag_check_types() and the
 * descriptors' own checks (clg__check_tensor()): fills *g. */
clg_status clg__bag_check_shapes(const clg_bag_params *params,
                                 const clg_tensor *weight,
                                 const clg_tensor *indices,
                                 const clg_tensor *bags,
                                 const clg_tensor *per_sample_weights,
                                 const clg_tensor *output, clg_bag_geom *g);

/* The first broken rule among the values (the bags' first, then the
 * indices'), in the order the host's pass meets them. */
enum {
  CLG_BAG_FAULT_NONE = 0,
  CLG_BAG_FAULT_FIRST,      /* offsets[0] != 0 */
  CLG_BAG_FAULT_DECREASING, /* offsets or segment ids decrease */
  CLG_BAG_FAULT_PAST,       /* an offset past N */
  CLG_BAG_FAULT_LAST,       /* include_last_offset: the last is not N */
  CLG_BAG_FAULT_SEGMENT,    /* a segment id outside [0, B) */
  CLG_BAG_FAULT_INDEX,      /* an index outside [0, rows) */
};
typedef struct clg_bag_fault {
  int kind;
  int64_t pos, value, prev; /* position, value, the value before it */
} clg_bag_fault;

/* The host's pass over the values: bags (bags_size 4 or 8 bytes per
 * element; NULL for CLG_BAGS_FIXED), then every index (index_size 4 or 8)
 * in C order. True with *f the first fault; false when every value is
 * good, and then, for segment ids, starts[0 .. num_bags] (when not NULL)
 * the first entry of each segment. */
bool clg__bag_find_fault(const clg_bag_geom *g, const void *indices,
                         size_t index_size, const void *bags,
                         size_t bags_size, int64_t *starts, clg_bag_fault *f);
/* The fault the device's checks found (kernels/embedding_bag.cl's
 * verdict: its first three 32-bit words, then its three values). */
void clg__bag_fault_of_verdict(const clg_bag_geom *g, const uint32_t *words,
                               const int64_t *values, clg_bag_fault *f);
/* The error for a fault: CLG_ERROR_INVALID_BAGS or
 * CLG_ERROR_INDEX_OUT_OF_BOUNDS naming the tensor, position and value. */
clg_status clg__bag_report(const clg_bag_geom *g, const clg_bag_fault *f);

/* The verdict buffer of the device's checks: 16 bytes of words, 3 values. */
#define CLG_BAG_VERDICT_BYTES 40

/* A call's cl_mem operands as its kernels take them: each mem and byte
 * offset (NULL mem: none); bags are the offsets, the segment ids or (for
 * the reduction of segments) their starts, bags_len of them, of bags_size
 * bytes (8 for starts). */
typedef struct clg_bag_mems {
  cl_mem weight, indices, bags, psw, output;
  size_t w_off, x_off, b_off, p_off, o_off;
  size_t index_size, bags_size;
  int64_t bags_len;
  /* The weight's and the output's row pitches in elements (column blocks
   * of larger matrices, run/bag_strided.c); 0: dense rows (dim). */
  int64_t w_ld, o_ld;
  /* Where a variant may be timed (device/tune.c) before the call's launch:
   * the queue and wait list, and whether the kernel can run on its own
   * there; `first`: a kernel that puts its bags in place (the segments'
   * starts), run once before the trials. */
  cl_command_queue queue;
  cl_uint num_events;
  const cl_event *wait_list;
  bool can_time;
  const clg_kernel_call *first;
  /* Not NULL: a gated call sets *retime where it would have timed its
   * variants ungated (device/tune.h, clg__tune_pick_gated), so that once
   * its verdict has passed it may time them (run/embedding_bag.c). */
  bool *retime;
} clg_bag_mems;

/* The reduction's kernel call for a non-empty output (gated: the
 * asynchronous checked mode's variant, which takes the verdict last). */
clg_status clg__bag_prepare(clg_context *ctx, const clg_bag_geom *g,
                            const clg_bag_mems *m, bool gated,
                            clg_kernel_call *call);
/* The device's checks of indices and bags (n > 0 or bags): two calls
 * appended to calls, writing `verdict` (CLG_BAG_VERDICT_BYTES, words 1 and
 * 2 set to all ones and word 0 to 0 before them; the first call writes
 * `gen`, the run's number, to word 3). */
clg_status clg__bag_checks(clg_context *ctx, const clg_bag_geom *g,
                           const clg_bag_mems *m, cl_mem verdict, cl_uint gen,
                           clg_kernel_calls *calls);
/* Segment ids checked on the device: the call writing their starts
 * (num_bags + 1 int64) into `starts` (n > 0). */
clg_status clg__bag_starts(clg_context *ctx, const clg_bag_geom *g,
                           const clg_bag_mems *m, cl_mem starts, bool gated,
                           clg_kernel_call *call);
/* Can the device give the definition's bits for this call (fp64 for
 * float64, subnormals, a correctly rounded division for mean and sqrt_n)?
 * CLG_ERROR_UNSUPPORTED_DTYPE naming what it lacks; clg__bag_prepare()
 * asks the same. For plans, at their creation. */
clg_status clg__bag_device_check(clg_context *ctx, const clg_bag_geom *g);
/* Build, without launching, a plan's programs (run/bag_plans.c): with
 * `checks` the device's checks (validation and offenders' values), and the
 * segments' starts (gated or not) where there is a reduction; with
 * `reduce` the reduction's two variants, gated or not; for indices of
 * index_size bytes and bags of bags_size (8 where there are none). */
clg_status clg__bag_bake(clg_context *ctx, const clg_bag_geom *g,
                         size_t index_size, size_t bags_size, bool checks,
                         bool reduce, bool gated);

#endif /* CLGATHER_HOST_OPS_EMBEDDING_BAG_H */
