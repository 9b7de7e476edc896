/* clgather-bench: random inputs of the gather family, and their expected
 * outputs by the one plain-C reference (tools/reference/, the
 * specification `clgather selftest` and the test suites use): nothing
 * here is taken from the library. */
#include "bench.h"
#include "reference/reference.h"

#include <string.h>

uint64_t bench_numel(int32_t rank, const int64_t *shape) {
  uint64_t n = 1;
  for (int32_t i = 0; i < rank; ++i)
    n *= (uint64_t)shape[i];
  return n;
}

static ref_index_type ref_type(const bench_op *op) {
  return op->itype == CLG_DTYPE_INT32 ? REF_INDEX_I32 : REF_INDEX_I64;
}

int bench_ref_shape(const bench_op *op, int32_t *out_rank,
                    int64_t *out_shape) {
  const clg_params *p = &op->params;
  int64_t shape[REF_MAX_RANK];
  int32_t rank = 0;
  int st = -1;
  switch (p->op) {
  case CLG_OP_GATHER:
    st = ref_gather_ex_shape(op->drank, op->dshape, op->irank, op->ishape,
                             p->axis, p->batch_dims, &rank, shape);
    break;
  case CLG_OP_GATHER_ELEMENTS:
    st = ref_gather_elements_shape(op->drank, op->dshape, op->irank, op->ishape,
                                   p->axis, &rank, shape);
    break;
  case CLG_OP_GATHER_ND:
    st = ref_gather_nd_shape(op->drank, op->dshape, op->irank, op->ishape,
                             p->batch_dims, REF_MAX_RANK, &rank, shape);
    break;
  default: break;
  }
  if (st != 0 || rank > CLG_MAX_RANK)
    return -1;
  memcpy(out_shape, shape, (size_t)rank * sizeof *shape);
  *out_rank = rank;
  return 0;
}

static void put_index(void *indices, clg_dtype t, uint64_t i, int64_t v) {
  if (t == CLG_DTYPE_INT32)
    ((int32_t *)indices)[i] = (int32_t)v;
  else
    ((int64_t *)indices)[i] = v;
}

/* The axis (Gather, GatherElements) and batch_dims counted from 0. */
static int32_t ref_axis(const bench_op *op) {
  int64_t a = op->params.axis;
  return (int32_t)(a < 0 ? a + op->drank : a);
}
static int32_t ref_batch(const bench_op *op) {
  int64_t b = op->params.batch_dims;
  return (int32_t)(b < 0 ? b + op->irank : b);
}

void bench_make_indices(const bench_op *op, void *indices, bench_rng *r) {
  uint64_t count = bench_numel(op->irank, op->ishape);
  if (op->params.op == CLG_OP_GATHER_ND) {
    int32_t b = ref_batch(op);
    uint64_t m = (uint64_t)op->ishape[op->irank - 1];
    for (uint64_t i = 0; i < count; ++i)
      put_index(indices, op->itype, i,
                bench_rng_range(r, 0, op->dshape[b + (int32_t)(i % m)]));
    return;
  }
  int64_t s = op->dshape[ref_axis(op)];
  int64_t lo = 0, hi = s;
  if (op->params.mode == CLG_MODE_WRAP) {
    lo = -2 * s; /* every value maps, uniformly */
    hi = 2 * s;
  } else if (op->params.mode == CLG_MODE_CLIP) {
    lo = -(s / 16); /* ~11% clip, the rest stays uniform */
    hi = s + s / 16;
  }
  for (uint64_t i = 0; i < count; ++i)
    put_index(indices, op->itype, i, bench_rng_range(r, lo, hi));
}

int bench_reference(const bench_op *op, const void *data, const void *indices,
                    void *out) {
  const clg_params *p = &op->params;
  size_t es = clg_dtype_size(op->dtype);
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  switch (p->op) {
  case CLG_OP_GATHER:
    return ref_gather_ex(data, es, op->drank, op->dshape, indices, ref_type(op),
                         op->irank, op->ishape, p->axis, p->batch_dims,
                         (ref_mode)p->mode, out, &orank, oshape);
  case CLG_OP_GATHER_ELEMENTS:
    return ref_gather_elements(data, es, op->drank, op->dshape, indices,
                               ref_type(op), op->irank, op->ishape, p->axis,
                               out);
  case CLG_OP_GATHER_ND:
    return ref_gather_nd(data, es, op->drank, op->dshape, indices, ref_type(op),
                         op->irank, op->ishape, p->batch_dims, out);
  default: return -1;
  }
}
