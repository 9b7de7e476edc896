/* EmbeddingBag (host/ops/embedding_bag.c; semantics and arithmetic:
 * include/clgather/clgather_bag.h). One work-item per output element
 * (column `col` of bag `b`): it walks the bag's entries in index order,
 * reads one element of each entry's weight row and reduces it, so the
 * work-items of a work-group read neighbouring elements of one row. No
 * atomics, no reduction across work-items: the order of the operations is
 * the definition's on every device and for any NDRange.
 *
 * Build constants:
 *   CLG_INDEX     int or long (prelude.cl): indices' type
 *   CLG_BAG_KIND  1 float, 2 float16, 3 bfloat16, 4 double: the weight's
 *   CLG_BAG_MODE  0 sum, 1 mean, 2 max, 3 sqrt_n (clg_bag_mode)
 *   CLG_BAG_PSW   1: per-sample weights (mode sum)
 *   CLG_BAG_FIXED 1: bag b is entries [b * fixed, (b + 1) * fixed); else
 *                 [starts[b], starts[b + 1])
 * The host builds float32, float16 and bfloat16 mean and sqrt_n with
 * -cl-fp32-correctly-rounded-divide-sqrt. */

/* No fused a * b + c where the definition has two roundings. */
#pragma OPENCL FP_CONTRACT OFF

#if CLG_BAG_KIND == 4
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double elem_t;
typedef double acc_t;
#define LOADF(p, i) ((p)[i])
#define STOREF(v) (v)
#elif CLG_BAG_KIND == 1
typedef float elem_t;
typedef float acc_t;
#define LOADF(p, i) ((p)[i])
#define STOREF(v) (v)
#else
/* float16 and bfloat16: their bits as ushort, computed in float. */
typedef ushort elem_t;
typedef float acc_t;
#if CLG_BAG_KIND == 2
/* vload_half / vstore_half_rte take half pointers (half itself may not be
 * declared without cl_khr_fp16). */
static float clg_to_float(ushort h) { return vload_half(0, (const half *)&h); }
/* Round to nearest even; a NaN keeps its sign and top payload bits, quiet
 * (drivers differ in the NaN they store), as the scatters round. */
static ushort clg_from_float(float f) {
  if (isnan(f)) {
    uint u = as_uint(f);
    return (ushort)(((u >> 16) & 0x8000u) | 0x7E00u | ((u >> 13) & 0x3FFu));
  }
  ushort h;
  vstore_half_rte(f, 0, (half *)&h);
  return h;
}
#else
static float clg_to_float(ushort b) { return as_float((uint)b << 16); }
/* Round to nearest even; a NaN stays a quiet NaN with its sign and top
 * payload bits. */
static ushort clg_from_float(float f) {
  uint u = as_uint(f);
  if (isnan(f))
    return (ushort)((u >> 16) | 0x40u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
#endif
#define LOADF(p, i) clg_to_float((p)[i])
#define STOREF(v) clg_from_float(v)
#endif

/* max: keep acc when it is NaN; else take v when it is NaN; else the
 * larger, +0 above -0 (IEEE 754-2019 maximum). */
#define CLG_KEEP(a, b)                                                         \
  (isnan(a) || (!isnan(b) && ((a) > (b) || ((a) == (b) && !signbit(a)))))

__kernel void clg_embedding_bag(global const elem_t *restrict weight,
                                ulong w_off, ulong dim,
                                global const index_t *restrict indices,
                                ulong x_off, ulong fixed,
                                global const long *restrict starts,
                                global const elem_t *restrict psw, ulong p_off,
                                global elem_t *restrict out, ulong o_off,
                                long padding, ulong num_bags) {
  ulong col = get_global_id(0), b = get_global_id(1);
  if (col >= dim || b >= num_bags)
    return;
#if CLG_BAG_FIXED
  ulong begin = b * fixed, end = begin + fixed;
#else
  ulong begin = (ulong)starts[b], end = (ulong)starts[b + 1];
#endif
  weight += w_off + col;
  indices += x_off;
  acc_t acc = 0;
  ulong count = 0;
  for (ulong i = begin; i < end; ++i) {
    long k = (long)indices[i];
    if (k == padding)
      continue;
    acc_t v = LOADF(weight, (ulong)k * dim);
#if CLG_BAG_MODE == 2
    acc = count == 0 || !CLG_KEEP(acc, v) ? v : acc;
#elif CLG_BAG_PSW
    acc = fma(LOADF(psw, p_off + i), v, acc);
#else
    acc = acc + v;
#endif
    ++count;
  }
  elem_t r;
  if (count == 0) {
    r = STOREF((acc_t)0);
  } else {
#if CLG_BAG_MODE == 1 || CLG_BAG_MODE == 3
#if CLG_BAG_KIND == 2 || CLG_BAG_KIND == 3
    /* The sum rounded to the weight's type first, then divided. */
    acc = clg_to_float(clg_from_float(acc));
#endif
#if CLG_BAG_MODE == 1
    acc = acc / (acc_t)count;
#else
    acc = acc / sqrt((acc_t)count);
#endif
#endif
    r = STOREF(acc);
  }
  out[o_off + b * dim + col] = r;
}
