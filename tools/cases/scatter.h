/*
 * The scatter family's cases: ScatterElements (ONNX ScatterElements-18,
 * with its reductions), ScatterND (ScatterND-18) and ONNX's deprecated
 * Scatter (Scatter-9: ScatterElements without reduction), which share
 * clg_scatter() and so one description (scatter_case). scatter_elements.c
 * holds what the three share and the elements' own cases (ScatterElements'
 * and Scatter's: random cases, conformance sets, scatter_hooks),
 * scatter_nd.c ScatterND's. The Criterion suites (tests/support/scatter_case.c,
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

/* What an operator of the family does its own way: its file defines these
 * and its case_operator (tools/cases/operators.h) points to them;
 * scatter_updates_shape(), scatter_inputs_draw() and scatter_expect()
 * call the case's operator's. */
typedef struct scatter_hooks {
  /* updates' shape into us; returns its rank */
  int32_t (*updates_shape)(const scatter_case *c, int64_t *us);
  /* the indices' values into idx, as c->targets says: 0, or -1 out of
   * host memory */
  int (*fill_indices)(const scatter_case *c, case_rng *rng, void *idx);
  /* the sequential reference on want (data's bytes): its verdict */
  int (*expect)(const scatter_case *c, const scatter_inputs *in, void *want);
  /* a random valid case (op: the operator) */
  scatter_case (*random)(uint64_t seed, clg_op op, clg_dtype dtype,
                         clg_dtype idt, clg_scatter_params sp,
                         scatter_targets targets);
} scatter_hooks;

/* n targets in [0, s) as c->targets says, into out: 0, or -1 out of host
 * memory. */
int scatter_targets_draw(const scatter_case *c, case_rng *rng, int64_t *out,
                         int64_t n, int64_t s);
/* v in [0, s), half the time counted from the back (v - s). */
int64_t scatter_signed_index(case_rng *rng, int64_t v, int64_t s);

/* The conformance set of op (scatter_hooks.random draws its cases), over
 * its first `reductions` reductions (1: none only; 5: all): for each
 * reduction its element types, under none distinct targets, repeats
 * refused and repeats where the last one wins, the call in turn (quick:
 * fewer types, one call a case). */
void scatter_conformance(clg_op op, int reductions, bool quick,
                         case_visit visit, void *ctx);

/* -------------------------------- bad inputs (scatter_elements_bad.c) */

enum {
  SCATTER_DATA = 0,
  SCATTER_INDICES = 1,
  SCATTER_UPDATES = 2,
  SCATTER_OUTPUT = 3
};

/* A tensor descriptor's shape replaced: its rank and its first
 * min(rank, 4) dims. */
typedef struct scatter_bad_shape {
  bool set;
  int32_t rank;
  int64_t dims[4];
} scatter_bad_shape;

/* One bad input of the family: a valid base call broken in one place,
 * with the status every call of it must return before writing anything
 * and what its message must hold. The bases: data float [4, 3] = 100 ..
 * 111, reduction none, duplicates an error, output float [4, 3];
 * ScatterElements and Scatter on axis 0: int64 indices [2, 3] = {0, 3,
 * -2, 2, -4, 1} (no repeated target), updates float [2, 3]; ScatterND:
 * int64 indices [3, 2] = {0, 1, 3, -1, -2, 0} (tuples (0, 1), (3, 2),
 * (2, 0)), updates float [3]. */
typedef struct scatter_bad {
  const char *name;
  clg_op op; /* the base */
  /* the call's clg_params, replaced when `params` */
  bool params;
  clg_params p;
  /* the scatter parameters, replaced when `set_sp`; NULL when `sp_null` */
  bool set_sp, sp_null;
  clg_scatter_params sp;
  /* the indices' values replaced (nvalues of them, and the axis by `axis`
   * when `set_axis`), then set[] written */
  int64_t values[6];
  int nvalues;
  bool set_axis;
  int64_t axis;
  struct {
    int64_t pos, value;
  } set[2];
  int nsets;
  bool indices_int32; /* the values (after the above) as int32 */
  /* over 32 KiB of indices, all targets distinct (before set[]): 1:
   * ScatterND, data [4100, 2], indices [4100, 1], tuple e = 7e mod 4100
   * (odd e counted from the back), updates [4100, 2]; 2: ScatterElements
   * on axis 1, data [2, 2050], indices and updates [2, 2050], entry
   * (r, j) = 3j mod 2050 (odd j from the back) */
  int large;
  scatter_bad_shape shape[4]; /* data, indices, updates, output */
  clg_dtype dtype[4];         /* 0: as the base */
  clg_status want;
  /* every ';'-separated item must be in the message (case_message_has()) */
  const char *needles;
} scatter_bad;

extern const scatter_bad scatter_bad_inputs[];
extern const size_t scatter_bad_count;

/* The room of each value array of a broken call (the large entries'). */
#define SCATTER_BAD_CAP (40u << 10)

/* The broken call: parameters, the four descriptors (dtype, rank, shape)
 * and the host bytes of data, indices and updates (SCATTER_BAD_CAP each). */
typedef struct scatter_bad_call {
  clg_params p;
  clg_scatter_params sp;
  bool sp_null;
  clg_dtype dtype[4];
  int32_t rank[4];
  int64_t shape[4][CLG_MAX_RANK];
  unsigned char data[SCATTER_BAD_CAP], indices[SCATTER_BAD_CAP],
      updates[SCATTER_BAD_CAP];
} scatter_bad_call;

/* Fills *call (about 120 KiB: allocate it) with entry e's broken call. */
void scatter_bad_make(const scatter_bad *e, scatter_bad_call *call);
/* True for a fault in index values (out of bounds, repeated targets),
 * which a call with cl_mem indices may find on the device. */
bool scatter_bad_in_values(const scatter_bad *e);

#endif /* CLGATHER_CASES_SCATTER_H */
