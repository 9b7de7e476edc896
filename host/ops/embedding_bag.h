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
  clg_dtype dtype;      /* weight's (output's, per_sample_weights') */
  int64_t rows, dim;    /* weight [rows, dim] */
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

/* The values: bags (bags_size 4 or 8 bytes per element, NULL for
 * CLG_BAGS_FIXED), then every index (index_size 4 or 8) in C order. On
 * success writes starts[0 .. num_bags] (bag b is entries
 * [starts[b], starts[b+1])). The first offender is the error. */
clg_status clg__bag_check_values(const clg_bag_geom *g, const void *indices,
                                 size_t index_size, const void *bags,
                                 size_t bags_size, int64_t *starts);

/* The kernel call for a non-empty output, its arguments set: weight,
 * indices (index_size bytes each), starts (num_bags + 1 int64), per-sample
 * weights (NULL mem when none), output: each a cl_mem and byte offset. */
clg_status clg__bag_prepare(clg_context *ctx, const clg_bag_geom *g,
                            size_t index_size, cl_mem weight, size_t w_off,
                            cl_mem indices, size_t x_off, cl_mem starts,
                            cl_mem psw, size_t p_off, cl_mem output,
                            size_t o_off, clg_kernel_call *call);

#endif /* CLGATHER_HOST_OPS_EMBEDDING_BAG_H */
