/* GatherBlockQuantized (include/clgather/clgather_quantized.h): one
 * work-item per run of GBQ_CHUNK output elements, reading each element's
 * packed value, the scale and zero point of its block, and writing
 * (float)(q - p) * scale. Every index value is checked before this
 * writes: by the host before it is enqueued, or (-DCLG_GATED) by the
 * validation kernel whose verdict it reads first. Build constants:
 *
 *   CLG_INDEX   int or long (prelude.cl: index_t)
 *   GBQ_KIND    0 uint8 storage, 1 uint4, 2 int4 (clg_gbq_kind)
 *   GBQ_BITS    8 or 4
 *   GBQ_HALF    1: float16 scales and output; 0: float32
 *   GBQ_ZP      defined when zero points are given
 *   GBQ_CHUNK   output elements a work-item writes (a run of a slice)
 *   GBQ_POS     uint or ulong: the positions' type (pos_t below)
 *   CLG_GATED   the verdict's gate (prelude.cl)
 */

/* Positions (elements of data and output, work-items): 32-bit where
 * every one fits (GBQ_POS uint, the host's choice: a GPU divides those
 * several times faster), else 64-bit. */
typedef GBQ_POS pos_t;

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

/* Block k's scale and zero point. (No `restrict` here: inlined, it
 * becomes llvm.experimental.noalias.scope.decl, which Oclgrind 21.10
 * cannot run.) */
static void gbq_block(global const scale_t *scales, global const uchar *zp,
                      ulong zp_off, pos_t k, pos_t nb, ulong zp_row,
                      float *scale, int *p) {
  *scale = SCALE_AT(scales, k);
#if defined(GBQ_ZP) && GBQ_KIND == 0 && GBQ_BITS == 4
  /* ONNX Runtime's uint8 zero points: two a byte per row (N is 1) */
  pos_t row = k / nb, b = k - row * nb;
  *p = (zp[zp_off + row * zp_row + b / 2] >> ((uint)(b & 1) * 4u)) & 15;
#elif defined(GBQ_ZP)
  *p = gbq_code(zp + zp_off, k);
#elif GBQ_KIND == 0
  *p = 1 << (GBQ_BITS - 1);
#else
  *p = 0;
#endif
}

/* geo: inner (data's elements after the gather axis), n (indices), s (the
 * gather axis' size), Q * N (the quantize axis and after), N (after it),
 * nb (blocks on it), log2(block_size), chunks (GBQ_CHUNK-element runs of
 * inner, rounded up). Work-item g takes run g % chunks of output slice
 * g / chunks (a slice: one index's `inner` elements, contiguous in data
 * and in the output): the position's divisions once, then element by
 * element along the run, the quantize axis' position carried. */
kernel void clg_gather_block_quantized(
    global const uchar *restrict data, ulong data_off,
    global const index_t *restrict indices, ulong idx_off,
    global const scale_t *restrict scales, ulong sc_off,
    global const uchar *restrict zp, ulong zp_off, global scale_t *out,
    ulong out_off, ulong8 geo, ulong zp_row, ulong slices CLG_GATE_ARG) {
  CLG_GATE
  pos_t g = (pos_t)get_global_id(0);
  pos_t inner = (pos_t)geo.s0, n = (pos_t)geo.s1, s = (pos_t)geo.s2,
        qn = (pos_t)geo.s3, nn = (pos_t)geo.s4, nb = (pos_t)geo.s5,
        chunks = (pos_t)geo.s7, shift = (pos_t)geo.s6;
  /* Remainders as a - (a / b) * b: LLVM otherwise pairs each division
   * with its remainder through a `freeze`, which Oclgrind 21.10 cannot
   * run (tests/oclgrind/suites.sh). */
  pos_t slice = g / chunks, c0 = (g - slice * chunks) * GBQ_CHUNK;
  if ((ulong)slice >= slices)
    return;
  pos_t m = slice / n, i = slice - m * n;
  long v = CLG_FROM_END(indices[idx_off + i], s);
  /* e: the element of data; x, y, z: its place around the quantize axis
   * (before it, on it, after it); k: its block's scale (and zero point) */
  pos_t e = (m * s + (pos_t)v) * inner + c0;
  pos_t x = e / qn, r = e - x * qn, y = r / nn, z = r - y * nn;
  pos_t q_len = qn / nn;
  pos_t len = inner - c0 < GBQ_CHUNK ? inner - c0 : GBQ_CHUNK;
  global scale_t *dst = out + out_off + slice * inner + c0;
  data += data_off;
  scales += sc_off;
  float scale = 0, f[GBQ_CHUNK];
  int p = 0;
  if (nn == 1) {
    /* The quantize axis is the innermost: the run is segments of whole
     * blocks (the last of a row maybe partial), each one scale and zero
     * point and a loop with nothing carried (which the compiler
     * vectorizes). */
    for (pos_t j = 0; j < len;) {
      pos_t blk = y >> shift, stop = (blk + 1) << shift;
      stop = stop < q_len ? stop : q_len;
      pos_t seg = stop - y < len - j ? stop - y : len - j;
      gbq_block(scales, zp, zp_off, x * nb + blk, nb, zp_row, &scale, &p);
      for (pos_t t = j; t < j + seg; ++t)
        f[t] = (float)(gbq_code(data, e + t) - p) * scale;
      j += seg;
      if ((y += seg) == q_len) {
        y = 0;
        ++x;
      }
    }
  } else {
    /* Element by element, the position carried; the block's scale and
     * zero point read again where the block changes. */
    pos_t last = ~(pos_t)0;
    for (pos_t j = 0; j < len; ++j) {
      pos_t k = (x * nb + (y >> shift)) * nn + z;
      if (k != last) {
        last = k;
        gbq_block(scales, zp, zp_off, k, nb, zp_row, &scale, &p);
      }
      f[j] = (float)(gbq_code(data, e + j) - p) * scale;
      if (++z == nn) {
        z = 0;
        if (++y == q_len) {
          y = 0;
          ++x;
        }
      }
    }
  }
  /* The run's stores together: whole vectors where it is whole. */
#if GBQ_CHUNK % 16 == 0
  if (len == GBQ_CHUNK) {
    for (uint j = 0; j < GBQ_CHUNK; j += 16)
#if GBQ_HALF
      vstore_half16_rte(vload16(0, f + j), 0, dst + j);
#else
      vstore16(vload16(0, f + j), 0, dst + j);
#endif
    return;
  }
#endif
  for (pos_t j = 0; j < len; ++j)
#if GBQ_HALF
    vstore_half_rte(f[j], j, dst);
#else
    dst[j] = f[j];
#endif
}
