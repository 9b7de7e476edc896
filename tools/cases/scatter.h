/*
 * The scatter family's cases: ScatterElements (ONNX ScatterElements-18,
 * with its reductions), ScatterND (ScatterND-18) and ONNX's deprecated
 * Scatter (Scatter-9: ScatterElements without reduction), which share
 * clg_scatter() and so one description (scatter_case). scatter_elements.c
 * holds what the three share and the elements' random cases, scatter_nd.c
 * ScatterND's. The Criterion suites (tests/support/scatter_case.c,
 * tests/ops/test_scatter_*.c) and `clgather selftest`
 * (tools/selftest/selftest_scatter.c) run these.
 */
#ifndef CLGATHER_CASES_SCATTER_H
#define CLGATHER_CASES_SCATTER_H

#include "cases/case.h"
#include "reference/ref_scatter.h"

/* Where a case's index values point (ScatterElements: along the axis of
 * each line; ScatterND: whole tuples). */
typedef enum scatter_targets {
  SCATTER_TARGETS_ANY = 0,      /* uniform: repeats by chance */
  SCATTER_TARGETS_DISTINCT = 1, /* no target twice */
  SCATTER_TARGETS_REPEATED = 2, /* two targets at most per line (tuples):
                                   repeats wherever 3 entries or more */
} scatter_targets;

typedef struct scatter_case {
  clg_op op;    /* CLG_OP_SCATTER_ELEMENTS, _ND or CLG_OP_SCATTER */
  int64_t axis; /* ScatterElements / Scatter */
  clg_scatter_params sp;
  clg_dtype dtype, idt;
  int32_t r, q;
  int64_t ds[CLG_MAX_RANK], is[CLG_MAX_RANK];
  clg_storage storage; /* of every tensor */
  size_t offset;       /* cl_mem byte offset of every tensor */
  bool in_place;       /* output = data */
  scatter_targets targets;
  bool special; /* float values may be NaN, inf, -0 */
  uint64_t seed;
} scatter_case;

/* Element types with arithmetic for every reduction (all fixed-size ONNX
 * types); complex types only for none / add / mul. */
extern const clg_dtype scatter_dtypes[];
extern const size_t scatter_ndtypes;

/* updates' shape for the case (ONNX), into us; returns its rank. */
int32_t scatter_updates_shape(const scatter_case *c, int64_t *us);

/* "ScatterND dtype float data [5, 3] reduction 1 ..." into buf. */
const char *scatter_case_str(const scatter_case *c, char *buf, size_t cap);

/* Random valid cases of small shapes (rank 1-3, dims up to 5, the last up
 * to 7), every tensor in host memory, int32 or int64 indices:
 * - ScatterElements / Scatter (op): a random axis (negative half the
 *   time), indices and updates of one shape, no longer than data off the
 *   axis; with SCATTER_TARGETS_REPEATED 3 to 6 entries along the axis;
 * - ScatterND: tuples of 1 to r components, 1 to 6 of them (3 to 6
 *   repeated). */
scatter_case scatter_elements_case_random(uint64_t seed, clg_op op,
                                          clg_dtype dtype, clg_dtype idt,
                                          clg_scatter_params sp,
                                          scatter_targets targets);
scatter_case scatter_nd_case_random(uint64_t seed, clg_dtype dtype,
                                    clg_dtype idt, clg_scatter_params sp,
                                    scatter_targets targets);

/* The status the device must give: CLG_SUCCESS, or
 * CLG_ERROR_UNSUPPORTED_DTYPE for a reduction the library refuses there
 * (clgather.h's clg_reduction: in double without cl_khr_fp64 or its
 * denormals; in float, bfloat16 and complex64 without single denormals).
 * The reference's own refusals (min / max on complex) and repeated
 * targets come from scatter_expect(). */
clg_status scatter_case_status(const scatter_case *c, const case_device *dev);

/* The host images of a case's inputs. */
typedef struct scatter_inputs {
  unsigned char *data, *indices, *updates;
  size_t data_bytes, indices_bytes, updates_bytes;
  int32_t ur;
  int64_t us[2 * CLG_MAX_RANK];
} scatter_inputs;

/* Draws the inputs of c from c->seed: for a reduction, small quarter
 * integers (exact in every float type; NaN, +-inf, -0 with c->special),
 * any bits of the integers; without one, random bytes; indices in range,
 * half counted from the back, their targets as c->targets says. Returns 0,
 * or -1 out of host memory (nothing then to free). */
int scatter_inputs_draw(const scatter_case *c, scatter_inputs *in);
void scatter_inputs_free(scatter_inputs *in);

/* The expected output (data_bytes into want) by the sequential reference
 * (tools/reference/ref_scatter.h). Returns its verdict: REF_OK,
 * REF_DUPLICATE (repeated targets under reduction none, the call must
 * fail with CLG_ERROR_DUPLICATE_INDEX) or REF_UNSUPPORTED (min / max on
 * complex: CLG_ERROR_UNSUPPORTED_DTYPE); anything else is a bug of the
 * case. */
int scatter_expect(const scatter_case *c, const scatter_inputs *in, void *want);

#endif /* CLGATHER_CASES_SCATTER_H */
