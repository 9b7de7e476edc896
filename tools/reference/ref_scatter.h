/*
 * Plain-C sequential references of the scatters (ONNX ScatterElements,
 * ScatterND, Scatter): the updates applied one by one in the C order of
 * indices, each step computed and rounded in the element type, as ONNX's
 * reference loop and numpy's ufunc.at do.
 */
#ifndef CLGATHER_REFERENCE_REF_SCATTER_H
#define CLGATHER_REFERENCE_REF_SCATTER_H

#include <clgather/clgather.h>

#include "reference/reference.h"

typedef enum ref_reduction {
  REF_RED_NONE = 0,
  REF_RED_ADD = 1,
  REF_RED_MUL = 2,
  REF_RED_MIN = 3,
  REF_RED_MAX = 4
} ref_reduction;

#define REF_OK 0
#define REF_OOB 1         /* *bad_pos: flat position in indices */
#define REF_DUPLICATE 2   /* *first_pos < *bad_pos share a target */
#define REF_UNSUPPORTED 3 /* min/max on complex; no arithmetic */
#define REF_BAD_SHAPE 4

/* `out` holds data's bytes; the updates are applied to it in place. Every
 * index is checked first (REF_OOB, nothing written), then repeated targets
 * under reduction none without dup_last (REF_DUPLICATE: the smallest entry
 * whose target an earlier entry has, and the earliest such entry). */
int ref_scatter_elements(void *out, clg_dtype dtype, int32_t r,
                         const int64_t *data_shape, const void *indices,
                         ref_index_type itype, const int64_t *indices_shape,
                         const void *updates, int64_t axis, ref_reduction red,
                         int dup_last, int64_t *bad_pos, int64_t *first_pos);
/* ScatterND: positions of REF_DUPLICATE are tuple numbers. */
int ref_scatter_nd(void *out, clg_dtype dtype, int32_t r,
                   const int64_t *data_shape, const void *indices,
                   ref_index_type itype, int32_t q,
                   const int64_t *indices_shape, const void *updates,
                   ref_reduction red, int dup_last, int64_t *bad_pos,
                   int64_t *first_pos);

/* One reduction step on one element of `dtype` at a (in place) with b:
 * REF_OK or REF_UNSUPPORTED. Shared by both references. */
int ref_scatter_apply(clg_dtype dtype, ref_reduction red, void *a,
                      const void *b);

/* The first repeated target among t[0..n-1]: 1 with *later the smallest
 * entry whose target an earlier entry has and *first the earliest such
 * entry, else 0. */
int ref_scatter_first_repeat(const int64_t *t, int64_t n, int64_t *first,
                             int64_t *later);

#endif /* CLGATHER_REFERENCE_REF_SCATTER_H */
