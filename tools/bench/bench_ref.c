/* clgather-bench: random inputs and a plain-C reference of the gather family,
 * written from the operators' definitions (ONNX's, as the "Semantics" at
 * the top of include/clgather/clgather.h cites them):
 *  - Gather with batch_dims b and axis a (b <= a):
 *      out[p_0..p_{a-1}, i_b..i_{q-1}, t..] =
 *        data[p_0..p_{a-1}, map(indices[p_0..p_{b-1}, i_b..i_{q-1}]), t..]
 *    map: RAISE k (+s if negative, else error), WRAP Python modulo, CLIP clamp.
 *  - GatherElements: out[c] = data[c with c_axis replaced by indices[c]].
 *  - GatherND with batch_dims b, m = indices.shape[-1]:
 *      out[p_0..p_{b-1}, i.., t..] = data[p_0..p_{b-1}, k_0..k_{m-1}, t..]
 *    where (k_0..k_{m-1}) = indices[p_0..p_{b-1}, i.., :].
 * Contiguous trailing dimensions are copied with memcpy; nothing here is
 * taken from the library. */
#include "bench.h"

#include <string.h>

uint64_t bench_numel(int32_t rank, const int64_t *shape) {
  uint64_t n = 1;
  for (int32_t i = 0; i < rank; ++i)
    n *= (uint64_t)shape[i];
  return n;
}

/* Normalised axis (GatherElements, Gather) and batch_dims. */
static int32_t ref_axis(const bench_op *op) {
  int64_t a = op->params.axis;
  return (int32_t)(a < 0 ? a + op->drank : a);
}
static int32_t ref_batch(const bench_op *op) {
  int64_t b = op->params.batch_dims;
  return (int32_t)(b < 0 ? b + op->irank : b);
}

int bench_ref_shape(const bench_op *op, int32_t *out_rank,
                    int64_t *out_shape) {
  int32_t r = op->drank, q = op->irank, n = 0;
  switch (op->params.op) {
  case CLG_OP_GATHER: {
    int32_t a = ref_axis(op), b = ref_batch(op);
    if (a < 0 || a >= r || b < 0 || b > a || r - 1 + q - b > CLG_MAX_RANK)
      return -1;
    for (int32_t i = 0; i < a; ++i)
      out_shape[n++] = op->dshape[i];
    for (int32_t i = b; i < q; ++i)
      out_shape[n++] = op->ishape[i];
    for (int32_t i = a + 1; i < r; ++i)
      out_shape[n++] = op->dshape[i];
    break;
  }
  case CLG_OP_GATHER_ELEMENTS:
    if (q != r)
      return -1;
    for (int32_t i = 0; i < q; ++i)
      out_shape[n++] = op->ishape[i];
    break;
  case CLG_OP_GATHER_ND: {
    int32_t b = ref_batch(op);
    if (q < 1)
      return -1;
    int64_t m = op->ishape[q - 1];
    if (m < 1 || m > r - b || q - 1 + r - b - m > CLG_MAX_RANK)
      return -1;
    for (int32_t i = 0; i < q - 1; ++i)
      out_shape[n++] = op->ishape[i];
    for (int32_t i = b + (int32_t)m; i < r; ++i)
      out_shape[n++] = op->dshape[i];
    break;
  }
  default:
    return -1;
  }
  *out_rank = n;
  return 0;
}

static void put_index(void *indices, clg_dtype t, uint64_t i, int64_t v) {
  if (t == CLG_DTYPE_INT32)
    ((int32_t *)indices)[i] = (int32_t)v;
  else
    ((int64_t *)indices)[i] = v;
}

static int64_t get_index(const void *indices, clg_dtype t, uint64_t i) {
  return t == CLG_DTYPE_INT32 ? ((const int32_t *)indices)[i]
                              : ((const int64_t *)indices)[i];
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

/* Map index k onto [0, s) as the mode says; -1 if invalid (RAISE). */
static int64_t ref_map(int64_t k, int64_t s, clg_index_mode mode) {
  switch (mode) {
  case CLG_MODE_WRAP: {
    int64_t v = k % s;
    return v < 0 ? v + s : v;
  }
  case CLG_MODE_CLIP: return k < 0 ? 0 : k >= s ? s - 1 : k;
  default:
    if (k < 0)
      k += s;
    return (k >= 0 && k < s) ? k : -1;
  }
}

static int ref_gather(const bench_op *op, const unsigned char *data,
                      const void *indices, unsigned char *out) {
  size_t es = clg_dtype_size(op->dtype);
  int32_t a = ref_axis(op), b = ref_batch(op);
  uint64_t batch = bench_numel(b, op->dshape);
  uint64_t outer = bench_numel(a - b, op->dshape + b); /* per batch */
  int64_t s = op->dshape[a];
  uint64_t slice = bench_numel(op->drank - a - 1, op->dshape + a + 1) * es;
  uint64_t n = bench_numel(op->irank - b, op->ishape + b); /* per batch */
  for (uint64_t bi = 0; bi < batch; ++bi)
    for (uint64_t o = 0; o < outer; ++o) {
      uint64_t base = (bi * outer + o) * (uint64_t)s; /* data row of k=0 */
      for (uint64_t j = 0; j < n; ++j) {
        int64_t k = ref_map(get_index(indices, op->itype, bi * n + j), s,
                            op->params.mode);
        if (k < 0)
          return -1;
        memcpy(out + ((bi * outer + o) * n + j) * slice,
               data + (base + (uint64_t)k) * slice, slice);
      }
    }
  return 0;
}

static int ref_gather_elements(const bench_op *op, const unsigned char *data,
                               const void *indices, unsigned char *out) {
  size_t es = clg_dtype_size(op->dtype);
  int32_t r = op->drank, a = ref_axis(op);
  uint64_t count = bench_numel(op->irank, op->ishape);
  uint64_t dstride[CLG_MAX_RANK];
  int64_t c[CLG_MAX_RANK] = {0}; /* multi-index of the output element */
  uint64_t st = 1;
  for (int32_t i = r - 1; i >= 0; --i) {
    dstride[i] = st;
    st *= (uint64_t)op->dshape[i];
  }
  for (uint64_t p = 0; p < count; ++p) {
    int64_t k = ref_map(get_index(indices, op->itype, p), op->dshape[a],
                        CLG_MODE_RAISE);
    if (k < 0)
      return -1;
    uint64_t off = 0;
    for (int32_t i = 0; i < r; ++i)
      off += (uint64_t)(i == a ? k : c[i]) * dstride[i];
    memcpy(out + p * es, data + off * es, es);
    for (int32_t i = r - 1; i >= 0; --i) { /* next multi-index, C order */
      if (++c[i] < op->ishape[i])
        break;
      c[i] = 0;
    }
  }
  return 0;
}

static int ref_gather_nd(const bench_op *op, const unsigned char *data,
                         const void *indices, unsigned char *out) {
  size_t es = clg_dtype_size(op->dtype);
  int32_t r = op->drank, q = op->irank, b = ref_batch(op);
  int32_t m = (int32_t)op->ishape[q - 1];
  uint64_t batch = bench_numel(b, op->ishape);
  uint64_t tuples = bench_numel(q - 1 - b, op->ishape + b); /* per batch */
  uint64_t slice = bench_numel(r - b - m, op->dshape + b + m) * es;
  uint64_t bstride = bench_numel(r - b, op->dshape + b) * es;
  for (uint64_t bi = 0; bi < batch; ++bi)
    for (uint64_t t = 0; t < tuples; ++t) {
      uint64_t tuple = (bi * tuples + t) * (uint64_t)m, off = 0;
      for (int32_t j = 0; j < m; ++j) {
        int64_t d = op->dshape[b + j];
        int64_t k = ref_map(get_index(indices, op->itype, tuple + (uint64_t)j),
                            d, CLG_MODE_RAISE);
        if (k < 0)
          return -1;
        off = off * (uint64_t)d + (uint64_t)k;
      }
      memcpy(out + (bi * tuples + t) * slice, data + bi * bstride + off * slice,
             slice);
    }
  return 0;
}

int bench_reference(const bench_op *op, const void *data, const void *indices,
                    void *out) {
  switch (op->params.op) {
  case CLG_OP_GATHER: return ref_gather(op, data, indices, out);
  case CLG_OP_GATHER_ELEMENTS:
    return ref_gather_elements(op, data, indices, out);
  case CLG_OP_GATHER_ND: return ref_gather_nd(op, data, indices, out);
  default: return -1;
  }
}
