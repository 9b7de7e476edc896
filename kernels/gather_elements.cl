/* GatherElements (ONNX GatherElements, numpy.take_along_axis) as an element
 * copy.
 *
 * The output has the indices' shape; out[c] = data[c with c_axis replaced
 * by indices[c]]. The host collapses the shapes first (dims where indices
 * has size 1 are dropped, adjacent dims merged where the inner one is whole
 * in both tensors), so most calls reach clg_gather_elements_3d: output
 * [np, n, nq] and data addresses p * ps + k * as + q * qs. Anything else
 * (a partial dimension inside the block before or after the axis) goes to
 * clg_gather_elements_nd, which walks the collapsed output dims with an
 * odometer.
 *
 * An element is CLG_EU units of type CLG_UNIT (uchar .. uint4): the widest
 * unit dividing the element size and both byte offsets. Strides are in
 * elements; offsets are in units (data, output) and in index elements
 * (indices).
 *
 * Each work-item copies per_item consecutive output elements (a kernel
 * argument: a few on GPUs, one large contiguous block per work-item on CPU
 * devices), decomposing only the first one (divisions) and stepping through
 * the rest.
 *
 * Every index was validated on the host before this kernel was enqueued; the
 * range check below is only defence in depth: an invalid element is skipped,
 * never read.
 *
 * Two more kernels for the [np, n, nq] view run one element per
 * work-item (clg_gather_elements_item) or one output row per work-item after
 * prefetching its data row (clg_gather_elements_plane); the host picks one
 * of the three by timing them on the device (host/device/tune.c).
 *
 * Build options (-D): CLG_UNIT, CLG_EU (units per element), CLG_INDEX (int
 * or long), CLG_LAST (item: 1 when nq == 1, the NDRange then runs over
 * (n, np)). The block kernels take their elements per work-item as an
 * argument (per_item).
 */
#ifndef CLG_UNIT
#error "build with -DCLG_UNIT=<type>"
#endif
#ifndef CLG_INDEX
#error "build with -DCLG_INDEX=int|long"
#endif
#ifndef CLG_EU
#define CLG_EU 1
#endif
#ifndef CLG_LAST
#define CLG_LAST 0
#endif

/* The data position an index selects on an axis of size s, or -1. */
static inline long clg_ge_source(index_t value, ulong s) {
  const long k = CLG_FROM_END(value, s); /* prelude.cl: signs, Rusticl */
  return (ulong)k < s ? k : -1;
}

/* No restrict on a helper's parameters: inlined, they become LLVM's
 * noalias scope intrinsics, which Oclgrind cannot execute (the kernels'
 * own restrict parameters say the same). */
static inline void clg_ge_copy(global const unit_t *src, global unit_t *dst) {
  for (uint u = 0; u < CLG_EU; ++u)
    dst[u] = src[u];
}

/* Collapsed to [np, n, nq] (output) with data strides ps, as, qs. */
kernel void clg_gather_elements_3d(global const unit_t *restrict data,
                                   ulong data_off,
                                   global const index_t *restrict indices,
                                   ulong indices_off,
                                   global unit_t *restrict out, ulong out_off,
                                   ulong total, ulong n, ulong nq, ulong s,
                                   ulong ps, ulong as, ulong qs,
                                   ulong per_item CLG_GATE_ARG) {
  CLG_GATE
  ulong e0 = get_global_id(0) * per_item;
  if (e0 >= total)
    return;
  ulong e1 = min(e0 + per_item, total);
  ulong t = e0 / nq;
  ulong q = e0 - t * nq;
  ulong p = t / n;
  ulong j = t - p * n;
  ulong base = p * ps + q * qs;
  global const index_t *idx = indices + indices_off;
  global const unit_t *src = data + data_off;
  global unit_t *dst = out + out_off;
  for (ulong e = e0; e < e1; ++e) {
    long k = clg_ge_source(idx[e], s);
    if (k >= 0)
      clg_ge_copy(src + (base + (ulong)k * as) * CLG_EU, dst + e * CLG_EU);
    base += qs;
    if (++q == nq) {
      q = 0;
      if (++j == n) {
        j = 0;
        ++p;
      }
      base = p * ps;
    }
  }
}

/* The general case: `rank` collapsed output dims `dims` with data strides
 * `strides` (0 at the axis position), the axis stride `as`. */
kernel void clg_gather_elements_nd(global const unit_t *restrict data,
                                   ulong data_off,
                                   global const index_t *restrict indices,
                                   ulong indices_off,
                                   global unit_t *restrict out, ulong out_off,
                                   ulong total, ulong s, ulong as, uint rank,
                                   ulong16 dims_v, ulong16 strides_v,
                                   ulong per_item CLG_GATE_ARG) {
  CLG_GATE
  ulong e0 = get_global_id(0) * per_item;
  if (e0 >= total)
    return;
  ulong e1 = min(e0 + per_item, total);
  ulong dims[16], str[16], coord[16];
  CLG_LANES16(dims_v, dims);
  CLG_LANES16(strides_v, str);
  ulong rest = e0, base = 0;
  for (int d = (int)rank - 1; d >= 0; --d) {
    /* The remainder as rest - q * dims[d], not rest % dims[d]: LLVM turns
     * a division and remainder pair into that with a `freeze`, which
     * Oclgrind 21.10's uninitialized-value check cannot execute (a fatal
     * error, the kernel never runs). */
    ulong q = rest / dims[d];
    ulong c = rest - q * dims[d];
    rest = q;
    coord[d] = c;
    base += c * str[d];
  }
  global const index_t *idx = indices + indices_off;
  global const unit_t *src = data + data_off;
  global unit_t *dst = out + out_off;
  for (ulong e = e0; e < e1; ++e) {
    long k = clg_ge_source(idx[e], s);
    if (k >= 0)
      clg_ge_copy(src + (base + (ulong)k * as) * CLG_EU, dst + e * CLG_EU);
    for (int d = (int)rank - 1; d >= 0; --d) {
      base += str[d];
      if (++coord[d] < dims[d])
        break;
      base -= dims[d] * str[d];
      coord[d] = 0;
    }
  }
}

/* One output element per work-item of the [np, n, nq] view, no division:
 * NDRange (nq rounded up to the work-group size, n, np), or with CLG_LAST
 * (nq == 1) (n rounded up, np, 1), so that dim 0 always runs along
 * contiguous indices and output and a CPU compiler maps it onto SIMD
 * lanes. */
kernel void clg_gather_elements_item(global const unit_t *restrict data,
                                     ulong data_off,
                                     global const index_t *restrict indices,
                                     ulong indices_off,
                                     global unit_t *restrict out,
                                     ulong out_off, ulong n, ulong nq, ulong s,
                                     ulong ps, ulong as,
                                     ulong qs CLG_GATE_ARG) {
  CLG_GATE
#if CLG_LAST
  ulong q = 0, j = get_global_id(0), p = get_global_id(1);
  if (j >= n)
    return;
#else
  ulong q = get_global_id(0), j = get_global_id(1), p = get_global_id(2);
  if (q >= nq)
    return;
#endif
  ulong e = (p * n + j) * nq + q;
  long k = clg_ge_source(indices[indices_off + e], s);
  if (k < 0)
    return;
  clg_ge_copy(data + data_off + (p * ps + (ulong)k * as + q * qs) * CLG_EU,
              out + out_off + e * CLG_EU);
}

/* nq == 1 and as == 1 (the axis innermost in data): one work-item per
 * output row p (work-groups of one), which prefetches the row's s data
 * elements line by line (a sequential stream) and then gathers from them in
 * cache. NDRange (np). */
kernel void clg_gather_elements_plane(global const unit_t *restrict data,
                                      ulong data_off,
                                      global const index_t *restrict indices,
                                      ulong indices_off,
                                      global unit_t *restrict out,
                                      ulong out_off, ulong n, ulong nq,
                                      ulong s, ulong ps, ulong as,
                                      ulong qs CLG_GATE_ARG) {
  CLG_GATE
  ulong p = get_global_id(0);
  global const unit_t *row = data + data_off + p * ps * CLG_EU;
  global const uchar *line = (global const uchar *)row;
  ulong lines = (s * CLG_EU * sizeof(unit_t) + 63) / 64;
  for (ulong i = 0; i < lines; ++i)
    CLG_PREFETCH_LINE(line + i * 64);
  global const index_t *idx = indices + indices_off + p * n;
  global unit_t *dst = out + out_off + p * n * CLG_EU;
  for (ulong j = 0; j < n; ++j) {
    long k = clg_ge_source(idx[j], s);
    if (k >= 0)
      clg_ge_copy(row + (ulong)k * CLG_EU, dst + j * CLG_EU);
  }
}
