/* clgather-bench: random inputs of the gather family, and their expected
 * outputs, through each operator's case description (tools/cases/: the
 * one plain-C reference, the specification `clgather selftest` and the
 * test suites use): nothing here is taken from the library. */
#include "bench.h"

#include <string.h>

uint64_t bench_numel(int32_t rank, const int64_t *shape) {
  uint64_t n = 1;
  for (int32_t i = 0; i < rank; ++i)
    n *= (uint64_t)shape[i];
  return n;
}

gather_case bench_case(const bench_op *op) {
  gather_case c;
  memset(&c, 0, sizeof c);
  c.p = op->params;
  c.dtype = op->dtype;
  c.r = op->drank;
  memcpy(c.dshape, op->dshape, sizeof c.dshape);
  c.q = op->irank;
  memcpy(c.ishape, op->ishape, sizeof c.ishape);
  c.idt = op->itype;
  for (int k = 0; k < 3; ++k)
    c.st[k].kind = CLG_STORAGE_HOST;
  return c;
}

int bench_ref_shape(const bench_op *op, int32_t *out_rank,
                    int64_t *out_shape) {
  gather_case c = bench_case(op);
  int64_t shape[REF_MAX_RANK];
  int32_t rank = 0;
  if (gather_case_shape(&c, &rank, shape) != 0 || rank > CLG_MAX_RANK)
    return -1;
  memcpy(out_shape, shape, (size_t)rank * sizeof *shape);
  *out_rank = rank;
  return 0;
}

void bench_make_indices(const bench_op *op, void *indices, case_rng *r) {
  gather_case c = bench_case(op);
  uint64_t count = bench_numel(op->irank, op->ishape);
  for (uint64_t i = 0; i < count; ++i) {
    /* the size of the axis this index indexes */
    int64_t s = gather_index_bound(&c, (int64_t)i);
    int64_t lo = 0, hi = s - 1;
    if (op->params.mode == CLG_MODE_WRAP) {
      lo = -2 * s; /* every value maps, uniformly */
      hi = 2 * s - 1;
    } else if (op->params.mode == CLG_MODE_CLIP) {
      lo = -(s / 16); /* ~11% clip, the rest stays uniform */
      hi = s + s / 16 - 1;
    }
    case_set_index(indices, op->itype, (int64_t)i, case_rng_range(r, lo, hi));
  }
}

int bench_reference(const bench_op *op, const void *data, const void *indices,
                    void *out) {
  gather_case c = bench_case(op);
  gather_inputs in = {(unsigned char *)data, (unsigned char *)indices, 0, 0};
  return gather_expect(&c, &in, out);
}
