/*
 * Strided operands for the strided tensors' suite (tests/run/test_strided.c):
 * a tensor's values laid out in a parent allocation, host memory or a
 * cl_mem at a byte offset, as a column block (a row pitch), transposed,
 * reversed (negative strides) or broadcast (stride 0), with the
 * clg_strided_tensor that describes it; and the checks of an output's
 * parent: its elements equal a C-order reference, every byte between them
 * untouched (SENTINEL).
 */
#ifndef CLGATHER_TESTS_STRIDED_OPERAND_H
#define CLGATHER_TESTS_STRIDED_OPERAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/testutil.h"

#define SENTINEL 0xA5

/* A layout of a tensor in a parent allocation: dims laid out innermost
 * first in the order `perm` names them (perm[rank-1] innermost), each
 * padded by pad[d] elements, reversed (negative stride) where neg[d]. */
typedef struct layout {
  int perm[CLG_MAX_RANK];
  int64_t pad[CLG_MAX_RANK];
  bool neg[CLG_MAX_RANK];
  int zero; /* a dim (>= 0) of stride 0: an input broadcast along it */
} layout;

/* The kinds the cases use; STEP2: every other element along each
 * dimension (every stride doubled). */
typedef enum lk { DENSE, PITCH, TRANSPOSED, REVERSED, BROADCAST0, STEP2 } lk;

/* A strided operand: its parent allocation (host, or a cl_mem at `boff`
 * bytes), where element [0, ..., 0] is, and the strides. */
typedef struct st_operand {
  clg_dtype dtype;
  size_t es;
  int32_t rank;
  int64_t shape[CLG_MAX_RANK], strides[CLG_MAX_RANK];
  int64_t base;        /* elements from the parent's start to [0, ..., 0] */
  size_t pbytes;       /* the parent's bytes (from the buffer offset) */
  unsigned char *host; /* the parent (host copy) */
  bool on_device;
  size_t boff; /* byte offset of the parent in the cl_mem */
  cl_mem mem;
  clg_strided_tensor view;
} st_operand;

/* Element position (in the parent) of flat C-order position i. */
int64_t st_at(const st_operand *o, int64_t i);

/* Lay out `dense` (C order; NULL: an output, the parent all sentinel). */
void st_make(st_operand *o, clg_dtype dtype, int32_t rank, const int64_t *shape,
             lk kind, bool device, const void *dense);

/* The parent as it is now (from the device for a cl_mem). */
void st_parent(const st_operand *o, unsigned char *dst);

/* The output's elements equal `want` (C order) and every other byte of the
 * parent is the sentinel. */
void st_expect_output(const st_operand *o, const void *want, const char *what);

/* The parent still all sentinel: nothing written. */
void st_expect_untouched(const st_operand *o, const char *what);

/* Free the parent (and release its cl_mem). */
void st_free(st_operand *o);

/* Random values; for a broadcast input, equal along dim 0. */
void *st_values(tu_rng *rng, clg_dtype dt, int32_t r, const int64_t *s,
                lk kind);

/* `count` index values of type idt drawn from [lo, hi] (malloc'd). */
void *st_index_values(tu_rng *rng, clg_dtype idt, int64_t count, int64_t lo,
                      int64_t hi);

/* "dense", "pitch", "transposed", "reversed", "broadcast", "step2". */
const char *st_kind_name(lk k);

#endif /* CLGATHER_TESTS_STRIDED_OPERAND_H */
