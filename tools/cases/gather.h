/*
 * The gather family's cases: Gather (ONNX Gather-13, with TensorFlow's
 * batch_dims and numpy.take's wrap and clip modes), GatherElements
 * (GatherElements-13) and GatherND (GatherND-13, batch_dims), which share
 * clg_params and so one description (gather_case). This file and gather.c
 * hold what the three share and Gather's own cases; gather_elements.c and
 * gather_nd.c each operator's own (its random cases, its conformance set
 * and its gather_hooks). The Criterion suites (tests/support/gather_case.c,
 * tests/ops/test_gather*.c) and `clgather selftest`
 * (tools/selftest/selftest_gather.c) run these.
 */
#ifndef CLGATHER_CASES_GATHER_H
#define CLGATHER_CASES_GATHER_H

#include "cases/case.h"
#include "reference/reference.h"

/* How a case calls the library. */
typedef enum gather_api {
  GATHER_API_RUN = 0,         /* clg_run(&p) */
  GATHER_API_CONVENIENCE = 1, /* clg_gather / clg_gather_elements /
                                 clg_gather_nd (Gather: batch_dims 0, raise) */
} gather_api;

typedef struct gather_case {
  clg_params p; /* op (0: Gather), axis (Gather, GatherElements),
                   batch_dims (Gather, GatherND), mode (Gather) */
  clg_dtype dtype;
  int32_t r;
  int64_t dshape[CLG_MAX_RANK];
  int32_t q;
  int64_t ishape[CLG_MAX_RANK];
  clg_dtype idt;
  case_storage st[3];   /* data, indices, output */
  case_index_draw mode; /* the index values drawn (CASE_INDEX_WILD: Gather's
                           wrap and clip only) */
  gather_api api;
  bool want_event;        /* pass an event out and wait on it */
  cl_command_queue queue; /* the call's queue; NULL: the context's */
  clg_context *ctx;       /* the call's context; NULL: the runner's */
} gather_case;

/* One-line description of a case for failure messages. */
const char *gather_case_str(const gather_case *c, char *buf, size_t cap);

/* The reference's output shape (the operator's hook); 0 if the case is
 * valid, -1 if not. */
int gather_case_shape(const gather_case *c, int32_t *orank, int64_t *oshape);

/* Random valid cases of small shapes (data rank 1-3, dims up to 5, the last
 * up to 9), every operand in host memory, clg_run:
 * - Gather: batch_dims bd (0 or 1), a random axis (negative half the
 *   time), indices rank bd-2, values in range for raise (CASE_INDEX_ANY)
 *   or anything for wrap and clip (CASE_INDEX_WILD);
 * - GatherElements: indices of data's rank, no longer than data off the
 *   axis;
 * - GatherND: batch_dims bd (0 or 1), tuples of 1 to r - bd components. */
gather_case gather_case_random(uint64_t seed, clg_dtype dtype, clg_dtype idt,
                               clg_index_mode mode, int bd);
gather_case gather_elements_case_random(uint64_t seed, clg_dtype dtype,
                                        clg_dtype idt);
gather_case gather_nd_case_random(uint64_t seed, clg_dtype dtype, clg_dtype idt,
                                  int bd);

/* The host images of a case's inputs. */
typedef struct gather_inputs {
  unsigned char *data, *indices;
  size_t data_bytes, indices_bytes;
} gather_inputs;

/* Draws the inputs of c from seed: random bytes of data (a gather moves
 * bytes), indices as c->mode says for the axis each indexes. Returns 0, or
 * -1 out of host memory (nothing then to free). */
int gather_inputs_draw(const gather_case *c, uint64_t seed, gather_inputs *in);
void gather_inputs_free(gather_inputs *in);

/* The expected output by the plain-C reference (tools/reference/): its
 * bytes into want (room for the output of gather_case_shape()). Returns 0,
 * or -1 when the reference refuses the case. */
int gather_expect(const gather_case *c, const gather_inputs *in, void *want);

/* The size of the axis the index at flat position i of c's indices
 * indexes (the operator's hook); 0 for an operator without a description. */
int64_t gather_index_bound(const gather_case *c, int64_t i);

/* What an operator of the family does its own way: its file defines these
 * and its case_operator (tools/cases/operators.h) points to them;
 * gather_case_shape(), gather_inputs_draw() and gather_expect() call the
 * case's operator's. */
typedef struct gather_hooks {
  /* The reference's output shape: 0, or -1 when the case is not valid. */
  int (*shape)(const gather_case *c, int32_t *orank, int64_t *oshape);
  /* The size of the axis the index at flat position i indexes. */
  int64_t (*index_bound)(const gather_case *c, int64_t i);
  /* The reference's output into want: 0, or -1 when it refuses the case. */
  int (*expect)(const gather_case *c, const gather_inputs *in, void *want);
} gather_hooks;

/* The element types the conformance sets draw: one per element size (1,
 * 2, 4, 8, 16 bytes; a gather moves bytes), the others of each size in
 * turn. */
extern const clg_dtype gather_dtypes_by_size[5][4];

/* ---------------------------------------------- bad inputs (gather_bad.c) */

enum { GATHER_DATA = 0, GATHER_INDICES = 1, GATHER_OUTPUT = 2 };

/* A tensor descriptor's shape replaced: its rank and its first
 * min(rank, 4) dims (the others are 1, up to CLG_MAX_RANK). */
typedef struct gather_bad_shape {
  bool set;
  int32_t rank;
  int64_t dims[4];
} gather_bad_shape;

/* One bad input of the family: a valid base call broken in one place,
 * with the status every call of it must return before writing anything
 * and what its message must hold. The bases: data float [5, 3] = 0 .. 14;
 * Gather and GatherElements int64 indices [2, 3] = {0, 4, -5, 2, -1, 3},
 * output [2, 3, 3] (Gather on axis 0) or [2, 3]; GatherND int64 indices
 * [3, 2] = {0, 1, 4, 2, -5, -3}, output [3]. */
typedef struct gather_bad {
  const char *name;
  clg_params p; /* the call's parameters; p.op picks the base */
  /* the indices' values replaced (nvalues of them), then set[] written */
  int64_t values[8];
  int nvalues;
  struct {
    int64_t pos, value;
  } set[2];
  int nsets;
  bool indices_int32;        /* the values (after the above) as int32 */
  gather_bad_shape shape[3]; /* data, indices, output */
  clg_dtype dtype[3];        /* 0: as the base */
  clg_status want;
  /* every ';'-separated item must be in the message (case_message_has()) */
  const char *needles;
} gather_bad;

extern const gather_bad gather_bad_inputs[];
extern const size_t gather_bad_count;

/* The broken call: its parameters and the three tensors' descriptors
 * (dtype, rank, shape), the data's and the indices' host bytes. */
typedef struct gather_bad_call {
  clg_params p;
  clg_dtype dtype[3];
  int32_t rank[3];
  int64_t shape[3][CLG_MAX_RANK];
  float data[15];
  unsigned char indices[128];
} gather_bad_call;

/* Fills *call with entry e's broken call. */
void gather_bad_make(const gather_bad *e, gather_bad_call *call);
/* True for a fault in index values, which a call with cl_mem indices may
 * find on the device (the asynchronous call reports it through its
 * outcome); false for one found before any command is enqueued. */
bool gather_bad_in_values(const gather_bad *e);

#endif /* CLGATHER_CASES_GATHER_H */
