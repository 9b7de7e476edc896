/*
 * One scatter run against the plain-C sequential reference
 * (tools/reference/ref_scatter.h), shared by the scatter suites: inputs
 * built from a seed, clg_scatter() on host or cl_mem tensors, in place or
 * not, the output compared byte for byte, the guard bytes around every
 * tensor checked.
 */
#ifndef CLGATHER_TESTS_SCATTER_CASE_H
#define CLGATHER_TESTS_SCATTER_CASE_H

#include "reference/ref_scatter.h"
#include "support/testutil.h"

typedef struct sc_case {
  clg_op op;   /* CLG_OP_SCATTER_ELEMENTS, _ND or CLG_OP_SCATTER */
  int64_t axis; /* ScatterElements / Scatter */
  clg_scatter_params sp;
  clg_dtype dtype, idt;
  int32_t r, q;
  int64_t ds[CLG_MAX_RANK], is[CLG_MAX_RANK];
  clg_storage storage; /* of every tensor */
  size_t offset;       /* cl_mem byte offset of every tensor */
  bool in_place;       /* output = data */
  bool unique;         /* indices with no repeated target */
  bool special;        /* float values may be NaN, inf, -0 */
  uint64_t seed;
} sc_case;

/* updates' shape for the case (ONNX), into us; returns its rank. */
int32_t sc_updates_shape(const sc_case *c, int64_t *us);

/* Runs the case and asserts the output equals the reference's, byte for
 * byte, and that nothing outside the tensors was written. */
void sc_run(const sc_case *c);

/* Element types with arithmetic for every reduction (all fixed-size ONNX
 * types); complex types only for none / add / mul. */
extern const clg_dtype sc_dtypes[];
extern const size_t sc_ndtypes;

#endif /* CLGATHER_TESTS_SCATTER_CASE_H */
