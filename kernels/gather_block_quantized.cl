/* GatherBlockQuantized (include/clgather/clgather_quantized.h): one
 * work-item per output element, reading its packed value, the scale and
 * zero point of its block, and writing (float)(q - p) * scale. The host
 * has checked every index value before this runs. Build constants:
 *
 *   CLG_INDEX   int or long (prelude.cl: index_t)
 *   GBQ_KIND    0 uint8 storage, 1 uint4, 2 int4 (clg_gbq_kind)
 *   GBQ_BITS    8 or 4
 *   GBQ_HALF    1: float16 scales and output; 0: float32
 *   GBQ_ZP      defined when zero points are given
 */

/* One multiply, never fused with anything: the same bits everywhere. */
#pragma OPENCL FP_CONTRACT OFF

#if GBQ_HALF
#define SCALE_AT(p, k) vload_half(0, (p) + (k))
typedef half scale_t;
#else
#define SCALE_AT(p, k) ((p)[k])
typedef float scale_t;
#endif

/* Value e of a packed array: a byte (bits 8), or the nibble e % 2 of byte
 * e / 2, low nibble first, sign-extended for int4. */
inline int gbq_code(global const uchar *p, ulong e) {
#if GBQ_BITS == 8
  return p[e];
#else
  int v = (p[e >> 1] >> ((uint)(e & 1) * 4u)) & 15;
#if GBQ_KIND == 2
  v = v > 7 ? v - 16 : v;
#endif
  return v;
#endif
}

/* geo: count (output elements), inner (data's elements after the gather
 * axis), n (indices), s (the gather axis' size), Q * N (the quantize axis
 * and after), N (after it), nb (blocks on it), log2(block_size). */
kernel void clg_gather_block_quantized(
    global const uchar *restrict data, ulong data_off,
    global const index_t *restrict indices, ulong idx_off,
    global const scale_t *restrict scales, ulong sc_off,
    global const uchar *restrict zp, ulong zp_off, global scale_t *out,
    ulong out_off, ulong8 geo, ulong zp_row) {
  ulong o = get_global_id(0);
  if (o >= geo.s0)
    return;
  ulong inner = geo.s1, n = geo.s2, s = geo.s3, qn = geo.s4, nn = geo.s5,
        nb = geo.s6;
  /* Remainders as a - (a / b) * b: LLVM otherwise pairs each division
   * with its remainder through a `freeze`, which Oclgrind 21.10 cannot
   * run (tests/oclgrind/suites.sh). */
  ulong rest = o / inner, t = o - rest * inner;
  ulong m = rest / n, i = rest - m * n;
  long v = CLG_FROM_END(indices[idx_off + i], s);
  /* e: the element of data; k: its block's scale (and zero point) */
  ulong e = (m * s + (ulong)v) * inner + t;
  ulong x = e / qn, r = e - x * qn, y = r / nn, z = r - y * nn;
  ulong k = (x * nb + (y >> geo.s7)) * nn + z;
  int q = gbq_code(data + data_off, e);
#if defined(GBQ_ZP) && GBQ_KIND == 0 && GBQ_BITS == 4
  /* ONNX Runtime's uint8 zero points: two a byte per row (N is 1) */
  ulong row = k / nb, b = k - row * nb;
  int p = (zp[zp_off + row * zp_row + b / 2] >> ((uint)(b & 1) * 4u)) & 15;
#elif defined(GBQ_ZP)
  int p = gbq_code(zp + zp_off, k);
#elif GBQ_KIND == 0
  int p = 1 << (GBQ_BITS - 1);
#else
  int p = 0;
#endif
  float f = (float)(q - p) * SCALE_AT(scales + sc_off, k);
#if GBQ_HALF
  vstore_half_rte(f, 0, out + out_off + o);
#else
  out[out_off + o] = f;
#endif
}
