/* Strided tensors (host/run/strided.c): copy `count` elements between two
 * layouts of one shape, a strided one and a dense one, before an operator
 * reads a strided input or after it wrote a strided output.
 *
 * Element e (flat position in C order over `shape`, dimensions 0 .. rank-1)
 * is read at unit src_off + CLG_PER * sum_d c_d * src_stride_d of src and
 * written at unit dst_off + CLG_PER * sum_d c_d * dst_stride_d of dst, c
 * its coordinates: offsets count units of CLG_UNIT (uchar, ushort, uint or
 * ulong), strides count elements of CLG_PER units each (16-byte elements:
 * 2 ulongs). The host
 * merged the dimensions the two layouts lay out alike, so rank is small
 * for the usual views (a column block: 2). One work-item per element; the
 * NDRange is `count` rounded up to the work-group size.
 *
 * Build options: -DCLG_UNIT=<type> -DCLG_PER=<units per element>. */

#ifndef CLG_UNIT
#define CLG_UNIT uint
#endif
#ifndef CLG_PER
#define CLG_PER 1
#endif

__kernel void clg_strided_copy(__global const CLG_UNIT *src, long src_off,
                               __global CLG_UNIT *dst, long dst_off,
                               ulong count, int rank, long16 shape,
                               long16 src_stride, long16 dst_stride) {
  const ulong e = get_global_id(0);
  if (e >= count)
    return;
  long n[16], ss[16], ds[16];
  vstore16(shape, 0, n);
  vstore16(src_stride, 0, ss);
  vstore16(dst_stride, 0, ds);
  long s = 0, d = 0;
  ulong rest = e;
  for (int i = rank - 1; i >= 0; --i) {
    /* rest - q * n, not rest % n: see gather_elements.cl (LLVM's `freeze`,
     * fatal to Oclgrind 21.10's uninitialized-value check). */
    const ulong q = rest / (ulong)n[i];
    const ulong c = rest - q * (ulong)n[i];
    rest = q;
    s += (long)c * ss[i];
    d += (long)c * ds[i];
  }
  for (int k = 0; k < CLG_PER; ++k)
    dst[dst_off + d * CLG_PER + k] = src[src_off + s * CLG_PER + k];
}
