/* Strided tensors (host/run/strided.c): copy the elements of one shape
 * between two layouts, a strided one and a dense one, before an operator
 * reads a strided input or after it wrote a strided output.
 *
 * The element at coordinates c (dimensions 0 .. rank-1) is read at unit
 * src_off + CLG_PER * sum_d c_d * src_stride_d of src and written at unit
 * dst_off + CLG_PER * sum_d c_d * dst_stride_d of dst: offsets count units
 * of CLG_UNIT (uchar, ushort, uint or ulong), strides count elements of
 * CLG_PER units each (16-byte elements: 2 ulongs). The host merged the
 * dimensions the layouts lay out alike, so rank is small for the usual
 * views (a column block: 2). The NDRange is 2-D: dimension 0 walks the
 * innermost dimension, dimension 1 the `rows`, one per position of the
 * outer dimensions (both rounded up to the work-group size); a work-item
 * finds its row's offsets by dividing once per outer dimension, and
 * adjacent work-items touch adjacent elements where the innermost strides
 * are 1.
 *
 * Build options: -DCLG_UNIT=<type> -DCLG_PER=<units per element>
 * -DCLG_RANK=<rank after merging, 1 to 16>: with the rank known, the loops
 * unroll and the strides stay in registers (read from a private array per
 * work-item, a 3 MB column block took 30 ms on POCL, 15 times the gather).
 */

#ifndef CLG_RANK
#define CLG_RANK 1
#endif
#ifndef CLG_UNIT
#define CLG_UNIT uint
#endif
#ifndef CLG_PER
#define CLG_PER 1
#endif

/* Row `row`'s offsets (in elements) in up to three layouts, over the
 * dimensions before the innermost. */
static inline void clg_row_offsets(ulong row, const long *n, const long *a,
                                   const long *b, const long *x, long *oa,
                                   long *ob, long *ox) {
  long sa = 0, sb = 0, sx = 0;
  ulong rest = row;
#pragma unroll
  for (int i = CLG_RANK - 2; i >= 0; --i) {
    /* rest - q * n, not rest % n: see gather_elements.cl (LLVM's `freeze`,
     * fatal to Oclgrind 21.10's uninitialized-value check). */
    const ulong q = rest / (ulong)n[i];
    const long c = (long)(rest - q * (ulong)n[i]);
    rest = q;
    sa += c * a[i];
    sb += c * b[i];
    sx += c * x[i];
  }
  *oa = sa;
  *ob = sb;
  *ox = sx;
}

kernel void clg_strided_copy(global const CLG_UNIT *src, long src_off,
                               global CLG_UNIT *dst, long dst_off,
                               ulong rows, long16 shape, long16 src_stride,
                               long16 dst_stride) {
  long n[16], ss[16], ds[16];
  CLG_LANES16(shape, n);
  CLG_LANES16(src_stride, ss);
  CLG_LANES16(dst_stride, ds);
  const long j = (long)get_global_id(0);
  if (j >= n[CLG_RANK - 1] || get_global_id(1) >= rows)
    return;
  long s, d, unused;
  clg_row_offsets(get_global_id(1), n, ss, ds, ss, &s, &d, &unused);
  s += j * ss[CLG_RANK - 1];
  d += j * ds[CLG_RANK - 1];
  for (int k = 0; k < CLG_PER; ++k)
    dst[dst_off + d * CLG_PER + k] = src[src_off + s * CLG_PER + k];
}

/* Gather (batch_dims 0) reading strided data in place, for data whose
 * dense copy would cost more than the output (host/run/strided.c): the
 * output's element at coordinates c over `shape` (the output's, dimensions
 * merged as above; the same 2-D NDRange) is written at unit dst_off +
 * CLG_PER * sum_d c_d * dst_stride_d of dst, and read at unit src_off +
 * CLG_PER * (sum_d c_d * src_stride_d + k * axis_stride) of src, where
 * k = idx[idx_off + sum_d c_d * idx_stride_d], plus axis_size if
 * negative: src_stride is 0 on the dimensions of indices, idx_stride 0 on
 * the others. Every index value was checked before this kernel is
 * enqueued. Build options as above, plus -DCLG_INDEX=int|long. */
#ifndef CLG_INDEX
#define CLG_INDEX long
#endif
kernel void clg_strided_gather(global const CLG_UNIT *src, long src_off,
                                 global CLG_UNIT *dst, long dst_off,
                                 global const CLG_INDEX *idx, long idx_off,
                                 long axis_stride, long axis_size, ulong rows,
                                 long16 shape, long16 src_stride,
                                 long16 dst_stride, long16 idx_stride) {
  long n[16], ss[16], ds[16], xs[16];
  CLG_LANES16(shape, n);
  CLG_LANES16(src_stride, ss);
  CLG_LANES16(dst_stride, ds);
  CLG_LANES16(idx_stride, xs);
  const long j = (long)get_global_id(0);
  if (j >= n[CLG_RANK - 1] || get_global_id(1) >= rows)
    return;
  long s, d, x;
  clg_row_offsets(get_global_id(1), n, ss, ds, xs, &s, &d, &x);
  s += j * ss[CLG_RANK - 1];
  d += j * ds[CLG_RANK - 1];
  x += j * xs[CLG_RANK - 1];
  /* prelude.cl: the sign on the index's own type (Rusticl) */
  s += CLG_FROM_END(idx[idx_off + x], axis_size) * axis_stride;
  for (int u = 0; u < CLG_PER; ++u)
    dst[dst_off + d * CLG_PER + u] = src[src_off + s * CLG_PER + u];
}
