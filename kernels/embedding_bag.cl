/* EmbeddingBag (host/ops/embedding_bag.c; semantics and arithmetic:
 * include/clgather/clgather_bag.h). The reduction's two variants: ITEM
 * (clg_embedding_bag), one work-item per output element (column `col` of
 * bag `b`) walking the bag's entries in index order, so the work-items of
 * a work-group read neighbouring elements of one row; BLOCK
 * (clg_embedding_bag_block), one per bag and block of columns. Neither
 * uses atomics or reduces across work-items: the order of the operations
 * is the definition's on every device and for any NDRange. Row r of the
 * weight starts w_ld elements after row r - 1, row b of the output o_ld
 * after b - 1: dim for dense ones, a leading dimension for column blocks
 * of larger matrices (host/run/bag_strided.c). Then the
 * checks on the device (their atomics only lower a verdict's positions)
 * and the segments' starts.
 *
 * Build constants:
 *   CLG_INDEX     int or long (prelude.cl): indices' type
 *   CLG_BAG_KIND  1 float, 2 float16, 3 bfloat16, 4 double: the weight's;
 *                 5 rows quantized per row (clg_embedding_bag_q*)
 *   CLG_BAG_QFMT  with kind 5: 1 8-bit, 2 4-bit, 3 2-bit rowwise
 *                 (clg_bag_weight_format)
 *   CLG_BAG_MODE  0 sum, 1 mean, 2 max, 3 sqrt_n (clg_bag_mode)
 *   CLG_BAG_PSW   1: per-sample weights (mode sum)
 *   CLG_BAG_PAD   1: a padding index (entries equal to `padding` skipped)
 *   CLG_BAG_FIXED 1: bag b is entries [b * fixed, (b + 1) * fixed); else
 *                 [bags[b], bags[b + 1]) (n for the last of the offsets):
 *                 the offsets themselves, or the segments' starts
 *   CLG_BAG_INDEX the bags' type (int or long; long for the starts)
 *   CLG_GATED     the asynchronous checked mode's gate (prelude.cl)
 *   CLG_BAG_DIV_DOUBLE 1: mean and sqrt_n divide float sums through double
 *                 (devices without a correctly rounded float division)
 *   CLG_BAG_VEC   columns per work-item of variant VEC (4, 8 or 16,
 *                 dividing dim), 0 where none does
 *   CLG_FMA_ZERO  1: the device's fma(a, b, +0) is -0 where a * b is -0
 *                 (quirk fma-zero, host/device/quirks.c): see CLG_FMA
 * The host builds float32, float16 and bfloat16 mean and sqrt_n with
 * -cl-fp32-correctly-rounded-divide-sqrt where the device offers it, else
 * with CLG_BAG_DIV_DOUBLE where it has doubles. */

#ifdef CLG_BAG_KIND /* the reduction */

/* No fused a * b + c where the definition has two roundings. */
#pragma OPENCL FP_CONTRACT OFF

/* fma(a, b, c) as IEEE 754 defines it (per-sample weights' step). With
 * CLG_FMA_ZERO (Rusticl on llvmpipe: tests/rusticl/fma_zero.c) the
 * device's fma of a product that is -0 and c = +0 gives -0, not +0, so a
 * bag's first weighted entry of a zero row came out -0. Where c is zero,
 * fma's one rounding is the product's and adding c after it is exact and
 * gives IEEE's sign of zero (contraction is off above, so the two stay
 * apart); elsewhere the device's fma. Vectors: componentwise. */
#ifdef CLG_FMA_ZERO
#define CLG_FMA(a, b, c) ((c) == 0 ? (a) * (b) + (c) : fma((a), (b), (c)))
#else
#define CLG_FMA(a, b, c) fma((a), (b), (c))
#endif

#if CLG_BAG_KIND == 4 || CLG_BAG_DIV_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if CLG_BAG_KIND == 4
typedef double elem_t;
typedef double acc_t;
#define TOF(e) (e)
#define STOREF(v) (v)
#elif CLG_BAG_KIND == 1 || CLG_BAG_KIND == 5
/* 5: rows quantized per row, dequantized into float (below); elem_t is
 * the output's and the per-sample weights' type. */
typedef float elem_t;
typedef float acc_t;
#define TOF(e) (e)
#define STOREF(v) (v)
#else
/* float16 and bfloat16: their bits as ushort, computed in float. */
typedef ushort elem_t;
typedef float acc_t;
#if CLG_BAG_KIND == 2
/* vload_half / vstore_half_rte take half pointers (half itself may not be
 * declared without cl_khr_fp16). */
static float clg_to_float(ushort h) { return vload_half(0, (const half *)&h); }
/* Round to nearest even; a NaN is the quiet NaN of clg_bag_finish (drivers
 * differ in the NaN they store), as the scatters round. */
static ushort clg_from_float(float f) {
  if (isnan(f))
    return (ushort)0x7E00u;
  ushort h;
  vstore_half_rte(f, 0, (half *)&h);
  return h;
}
#else
static float clg_to_float(ushort b) { return as_float((uint)b << 16); }
/* Round to nearest even; a NaN is the quiet NaN of clg_bag_finish. */
static ushort clg_from_float(float f) {
  uint u = as_uint(f);
  if (isnan(f))
    return (ushort)0x7FC0u;
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
#endif
#define TOF(e) clg_to_float(e)
#define STOREF(v) clg_from_float(v)
#endif
#define LOADF(p, i) TOF((p)[i])

/* max: keep acc when it is NaN; else take v when it is NaN; else the
 * larger, +0 above -0 (IEEE 754-2019 maximum). */
#define CLG_KEEP(a, b)                                                         \
  (isnan(a) || (!isnan(b) && ((a) > (b) || ((a) == (b) && !signbit(a)))))

/* A bag's result from its reduced value and count: +0 for an empty bag;
 * mean and sqrt_n divide the sum (float16 and bfloat16: rounded to the
 * type first); rounded to the weight's type. A NaN result is the type's one
 * quiet NaN, positive with no payload (float 0x7FC00000, double
 * 0x7FF8000000000000, float16 0x7E00, bfloat16 0x7FC0): devices differ in
 * the NaN their arithmetic returns (x86 keeps an operand's payload, NVIDIA
 * GPUs return 0x7FFFFFFF), and a NaN sum stays NaN to the end. */
#if CLG_BAG_KIND == 4
#define CLG_QNAN as_double(0x7FF8000000000000UL)
#else
#define CLG_QNAN as_float(0x7FC00000u)
#endif
static elem_t clg_bag_finish(acc_t acc, ulong count) {
  elem_t r;
  if (count == 0) {
    r = STOREF((acc_t)0);
  } else {
#if CLG_BAG_MODE == 1 || CLG_BAG_MODE == 3
#if CLG_BAG_KIND == 2 || CLG_BAG_KIND == 3
    /* The sum rounded to the weight's type first, then divided. */
    acc = clg_to_float(clg_from_float(acc));
#endif
#if CLG_BAG_DIV_DOUBLE
    /* A float division and square root correctly rounded through double:
     * a double result (53 bits >= 2 * 24 + 2) rounded to float is the
     * correctly rounded float result, for the division and the square root
     * alike. */
#if CLG_BAG_MODE == 1
    acc = (float)((double)acc / (double)(float)count);
#else
    acc = (float)((double)acc / (double)(float)sqrt((double)(float)count));
#endif
#elif CLG_BAG_MODE == 1
    acc = acc / (acc_t)count;
#else
    acc = acc / sqrt((acc_t)count);
#endif
#endif
    r = STOREF(isnan(acc) ? CLG_QNAN : acc);
  }
  return r;
}

typedef CLG_BAG_INDEX bag_t;

/* Bag b's entries [*begin, *end): [b * fixed, (b + 1) * fixed) for fixed-size
 * bags; else
 * from the offsets (the last bag ends at n) or the segments' starts. */
static void clg_bag_bounds(ulong b, ulong fixed, global const bag_t *bags,
                           ulong b_off, ulong bags_len, ulong n, ulong *begin,
                           ulong *end) {
#if CLG_BAG_FIXED
  *begin = b * fixed;
  *end = *begin + fixed;
#else
  *begin = (ulong)bags[b_off + b];
  *end = b + 1 < bags_len ? (ulong)bags[b_off + b + 1] : n;
#endif
}

/* BLOCK and VEC prefetch the row this many bytes of rows ahead in the
 * index stream: at least 8 and at most 256 entries ahead. */
#ifndef CLG_BAG_AHEAD_BYTES
#define CLG_BAG_AHEAD_BYTES 16384
#endif
static ulong clg_bag_ahead(ulong dim) {
  ulong ahead = CLG_BAG_AHEAD_BYTES / (dim * sizeof(elem_t));
  return ahead < 8 ? 8 : ahead > 256 ? 256 : ahead;
}

/* Columns per work-item of variant BLOCK (host/ops/bag_kernels.c's
 * BAG_BLOCK). */
#define CLG_BAG_BLOCK 64

#if CLG_BAG_KIND != 5 /* dense rows */
kernel void clg_embedding_bag(global const elem_t *restrict weight,
                                ulong w_off, ulong dim, ulong w_ld,
                                global const index_t *restrict indices,
                                ulong x_off, ulong n, ulong fixed,
                                global const bag_t *restrict bags, ulong b_off,
                                ulong bags_len,
                                global const elem_t *restrict psw, ulong p_off,
                                global elem_t *restrict out, ulong o_off,
                                ulong o_ld, long padding,
                                ulong num_bags CLG_GATE_ARG) {
  CLG_GATE
  ulong col = get_global_id(0), b = get_global_id(1);
  if (col >= dim || b >= num_bags)
    return;
  ulong begin, end;
  clg_bag_bounds(b, fixed, bags, b_off, bags_len, n, &begin, &end);
  weight += w_off + col;
  indices += x_off;
  acc_t acc = 0;
#if CLG_BAG_MODE == 2
  /* max returns an operand: its own bits, kept beside its value (a
   * float16 NaN's payload does not survive vload_half on every device). */
  elem_t kept = 0;
#endif
#if CLG_BAG_PAD
  ulong count = 0;
#else
  /* No padding index: every entry counts, and the loop has no branch. */
  ulong count = end - begin;
#if CLG_BAG_MODE == 2
  if (begin < end) {
    kept = weight[(ulong)(long)indices[begin] * w_ld];
    acc = TOF(kept);
    ++begin;
  }
#endif
#endif
  for (ulong i = begin; i < end; ++i) {
    long k = (long)indices[i];
#if CLG_BAG_PAD
    if (k == padding)
      continue;
#endif
#if CLG_BAG_MODE == 2
    elem_t e = weight[(ulong)k * w_ld];
    acc_t v = TOF(e);
#if CLG_BAG_PAD
    bool take = count == 0 || !CLG_KEEP(acc, v);
#else
    bool take = !CLG_KEEP(acc, v);
#endif
    acc = take ? v : acc;
    kept = take ? e : kept;
#else
    acc_t v = LOADF(weight, (ulong)k * w_ld);
#endif
#if CLG_BAG_MODE == 2
#elif CLG_BAG_PSW
    acc = CLG_FMA(LOADF(psw, p_off + i), v, acc);
#else
    acc = acc + v;
#endif
#if CLG_BAG_PAD
    ++count;
#endif
  }
#if CLG_BAG_MODE == 2
  out[o_off + b * o_ld + col] = count ? kept : STOREF((acc_t)0);
#else
  out[o_off + b * o_ld + col] = clg_bag_finish(acc, count);
#endif
}

/* Variant BLOCK (CPUs): one work-item per bag and block of CLG_BAG_BLOCK
 * columns, each entry's row block added into a private accumulator by a
 * loop over contiguous columns (which the compiler vectorizes); the same
 * operations in the same order per element as clg_embedding_bag. */
kernel void clg_embedding_bag_block(
    global const elem_t *restrict weight, ulong w_off, ulong dim, ulong w_ld,
    global const index_t *restrict indices, ulong x_off, ulong n, ulong fixed,
    global const bag_t *restrict bags, ulong b_off, ulong bags_len,
    global const elem_t *restrict psw, ulong p_off, global elem_t *restrict out,
    ulong o_off, ulong o_ld, long padding, ulong num_bags CLG_GATE_ARG) {
  CLG_GATE
  ulong col = get_global_id(0) * CLG_BAG_BLOCK, b = get_global_id(1);
  if (col >= dim || b >= num_bags)
    return;
  uint w = dim - col < CLG_BAG_BLOCK ? (uint)(dim - col) : CLG_BAG_BLOCK;
  ulong begin, end;
  clg_bag_bounds(b, fixed, bags, b_off, bags_len, n, &begin, &end);
  weight += w_off + col;
  indices += x_off;
  acc_t acc[CLG_BAG_BLOCK];
  for (uint j = 0; j < CLG_BAG_BLOCK; ++j)
    acc[j] = 0;
#if CLG_BAG_MODE == 2
  elem_t kept[CLG_BAG_BLOCK]; /* the operands' own bits, as above */
#endif
  /* The count in closed form without a padding index: counted in the
   * loop, LLVM turns it into llvm.usub.sat(end, begin), which Oclgrind
   * 21.10 cannot run. */
#if CLG_BAG_PAD
  ulong count = 0;
#else
  ulong count = end - begin;
#endif
#if CLG_BAG_MODE == 2
  bool first = true;
#endif
  /* The block of the row CLG_BAG_AHEAD_BYTES ahead brought closer, line
   * by line (as VEC's). */
  ulong ahead = clg_bag_ahead(dim);
  for (ulong i = begin; i < end; ++i) {
    long k = (long)indices[i];
    if (i + ahead < n) {
      global const elem_t *later =
          weight + (ulong)(long)indices[i + ahead] * w_ld;
      for (uint j = 0; j < w; j += 64 / sizeof(elem_t))
        CLG_PREFETCH_LINE(later + j);
    }
#if CLG_BAG_PAD
    if (k == padding)
      continue;
#endif
    global const elem_t *row = weight + (ulong)k * w_ld;
#if CLG_BAG_MODE == 2
    if (first) {
      for (uint j = 0; j < w; ++j) {
        kept[j] = row[j];
        acc[j] = TOF(kept[j]);
      }
      first = false;
    } else
      for (uint j = 0; j < w; ++j) {
        elem_t e = row[j];
        acc_t v = TOF(e);
        bool take = !CLG_KEEP(acc[j], v);
        acc[j] = take ? v : acc[j];
        kept[j] = take ? e : kept[j];
      }
#elif CLG_BAG_PSW
    acc_t s = LOADF(psw, p_off + i);
    for (uint j = 0; j < w; ++j)
      acc[j] = CLG_FMA(s, LOADF(row, j), acc[j]);
#else
    for (uint j = 0; j < w; ++j)
      acc[j] = acc[j] + LOADF(row, j);
#endif
#if CLG_BAG_PAD
    ++count;
#endif
  }
  for (uint j = 0; j < w; ++j)
#if CLG_BAG_MODE == 2
    out[o_off + b * o_ld + col + j] = count ? kept[j] : STOREF((acc_t)0);
#else
    out[o_off + b * o_ld + col + j] = clg_bag_finish(acc[j], count);
#endif
}

/* Variant VEC (item_pf): one work-item per bag and CLG_BAG_VEC columns
 * (a vector: 4, 8 or 16 elements, chosen by the host to divide dim), with
 * the same columns of the row CLG_BAG_AHEAD_BYTES ahead in the index
 * stream brought closer: random rows are latency bound on CPUs, and the
 * hint keeps a few pages of reads in flight. Vector operations are
 * element-wise, so each element sees the same operations in the same order
 * as in clg_embedding_bag; the end (division, rounding) is its scalar code,
 * element by element. CLG_BAG_VEC 0: no vector width divides dim, no
 * kernel. */
#if CLG_BAG_VEC
#define CLG_CAT_(a, b) a##b
#define CLG_CAT(a, b) CLG_CAT_(a, b)
#define VLOAD CLG_CAT(vload, CLG_BAG_VEC)
#define VSTORE CLG_CAT(vstore, CLG_BAG_VEC)
#if CLG_BAG_KIND == 4
typedef CLG_CAT(double, CLG_BAG_VEC) vacc_t;
typedef CLG_CAT(long, CLG_BAG_VEC) vmask_t;
#else
typedef CLG_CAT(float, CLG_BAG_VEC) vacc_t;
typedef CLG_CAT(int, CLG_BAG_VEC) vmask_t;
#endif
/* velem_t: a vector of the weight's bits; VTOF: its values; VLOADF(row):
 * the values of the work-item's columns of a row. */
#if CLG_BAG_KIND == 1 || CLG_BAG_KIND == 4
typedef vacc_t velem_t;
#define VTOF(e) (e)
#define VMASK_E(m) (m)
#define VLOADF(row) VLOAD(0, row)
#else
typedef CLG_CAT(ushort, CLG_BAG_VEC) velem_t;
#define VMASK_E(m) CLG_CAT(convert_short, CLG_BAG_VEC)(m)
#if CLG_BAG_KIND == 2
#define VTOF(e) CLG_CAT(vload_half, CLG_BAG_VEC)(0, (const half *)&(e))
#define VLOADF(row)                                                            \
  CLG_CAT(vload_half, CLG_BAG_VEC)(0, (const global half *)(row))
#else
#define VTOF(e)                                                                \
  CLG_CAT(as_float, CLG_BAG_VEC)                                               \
  (CLG_CAT(convert_uint, CLG_BAG_VEC)(e) << 16)
#define VLOADF(row) VTOF(VLOAD(0, row))
#endif
#endif
/* CLG_KEEP element-wise: all bits set where acc is kept. */
#define CLG_VKEEP(a, b)                                                        \
  (isnan(a) | (~isnan(b) & (((a) > (b)) | (((a) == (b)) & ~signbit(a)))))

kernel void clg_embedding_bag_vec(
    global const elem_t *restrict weight, ulong w_off, ulong dim, ulong w_ld,
    global const index_t *restrict indices, ulong x_off, ulong n, ulong fixed,
    global const bag_t *restrict bags, ulong b_off, ulong bags_len,
    global const elem_t *restrict psw, ulong p_off, global elem_t *restrict out,
    ulong o_off, ulong o_ld, long padding, ulong num_bags CLG_GATE_ARG) {
  CLG_GATE
  ulong col = get_global_id(0) * CLG_BAG_VEC, b = get_global_id(1);
  if (col >= dim || b >= num_bags)
    return;
  ulong begin, end;
  clg_bag_bounds(b, fixed, bags, b_off, bags_len, n, &begin, &end);
  ulong ahead = clg_bag_ahead(dim);
  weight += w_off + col;
  indices += x_off;
  vacc_t acc = 0;
#if CLG_BAG_MODE == 2
  velem_t kept = 0; /* the operands' own bits, as above */
#endif
#if CLG_BAG_PAD
  ulong count = 0;
#else
  ulong count = end - begin;
#endif
  for (ulong i = begin; i < end; ++i) {
    long k = (long)indices[i];
    if (i + ahead < n)
      CLG_PREFETCH_LINE(weight + (ulong)(long)indices[i + ahead] * w_ld);
#if CLG_BAG_PAD
    if (k == padding)
      continue;
#endif
    global const elem_t *row = weight + (ulong)k * w_ld;
#if CLG_BAG_MODE == 2
    velem_t e = VLOAD(0, row);
    vacc_t v = VTOF(e);
#if CLG_BAG_PAD /* the first entry that is not padding */
    if (count == 0) {
#else
    if (i == begin) {
#endif
      acc = v;
      kept = e;
    } else {
      vmask_t take = ~CLG_VKEEP(acc, v);
      acc = select(acc, v, take);
      kept = select(kept, e, VMASK_E(take));
    }
#elif CLG_BAG_PSW
    acc = CLG_FMA((vacc_t)LOADF(psw, p_off + i), VLOADF(row), acc);
#else
    acc = acc + VLOADF(row);
#endif
#if CLG_BAG_PAD
    ++count;
#endif
  }
  acc_t a[CLG_BAG_VEC];
  VSTORE(acc, 0, a);
#if CLG_BAG_MODE == 2
  elem_t kp[CLG_BAG_VEC];
  VSTORE(kept, 0, kp);
#endif
  out += o_off + b * o_ld + col;
  for (uint j = 0; j < CLG_BAG_VEC; ++j)
#if CLG_BAG_MODE == 2
    out[j] = count ? kp[j] : STOREF((acc_t)0);
#else
    out[j] = clg_bag_finish(a[j], count);
#endif
}
#endif /* CLG_BAG_VEC */
#endif /* dense rows */

#if CLG_BAG_KIND == 5
/* Rows quantized per row (include/clgather/clgather_bag.h's diagrams):
 * row k starts w_ld bytes after row k - 1 and holds dim codes, CLG_Q_PER
 * of them a byte, low bits first, then its scale and bias (float32 for
 * 8-bit, float16 otherwise), read byte by byte (no alignment) and put
 * together little-endian whatever the device's order. Each entry adds
 * fma(scale, q, acc + bias) in float32 (PyTorch's FBGEMM kernels' steps),
 * per-sample weights first multiplied into scale and bias (each product
 * rounded); max takes the larger fma(scale, q, bias). The variants are
 * the dense rows': ITEM (clg_embedding_bag_q, one work-item per output
 * element: neighbouring work-items read neighbouring codes), BLOCK
 * (clg_embedding_bag_q_block, one per bag and CLG_BAG_BLOCK columns) and
 * VEC (clg_embedding_bag_q_vec, one per bag and 16 columns). */
#define CLG_Q_PER (CLG_BAG_QFMT == 1 ? 1 : CLG_BAG_QFMT == 2 ? 2 : 4)
#define CLG_Q_BITS (8 / CLG_Q_PER)

static float clg_q_f32(global const uchar *p) {
  return as_float((uint)p[0] | (uint)p[1] << 8 | (uint)p[2] << 16 |
                  (uint)p[3] << 24);
}
static float clg_q_f16(global const uchar *p) {
  ushort h = (ushort)((uint)p[0] | (uint)p[1] << 8);
  return vload_half(0, (const half *)&h);
}
/* A row's scale and bias, after its `codes` bytes of codes. */
static void clg_q_params(global const uchar *row, ulong codes, float *scale,
                         float *bias) {
#if CLG_BAG_QFMT == 1
  *scale = clg_q_f32(row + codes);
  *bias = clg_q_f32(row + codes + 4);
#else
  *scale = clg_q_f16(row + codes);
  *bias = clg_q_f16(row + codes + 2);
#endif
}
/* A row's code j, as a float (exact). */
static float clg_q_code(global const uchar *row, ulong j) {
#if CLG_BAG_QFMT == 1
  return (float)row[j];
#else
  uint byte = row[j / CLG_Q_PER];
  return (float)((byte >> ((uint)(j % CLG_Q_PER) * CLG_Q_BITS)) &
                 ((1u << CLG_Q_BITS) - 1u));
#endif
}

kernel void clg_embedding_bag_q(
    global const uchar *restrict weight, ulong w_off, ulong dim, ulong w_ld,
    global const index_t *restrict indices, ulong x_off, ulong n, ulong fixed,
    global const bag_t *restrict bags, ulong b_off, ulong bags_len,
    global const float *restrict psw, ulong p_off, global float *restrict out,
    ulong o_off, ulong o_ld, long padding, ulong num_bags CLG_GATE_ARG) {
  CLG_GATE
  ulong col = get_global_id(0), b = get_global_id(1);
  if (col >= dim || b >= num_bags)
    return;
  ulong begin, end;
  clg_bag_bounds(b, fixed, bags, b_off, bags_len, n, &begin, &end);
  weight += w_off;
  indices += x_off;
  ulong codes = dim / CLG_Q_PER;
  float acc = 0;
#if CLG_BAG_PAD
  ulong count = 0;
#else
  ulong count = end - begin;
#endif
#if CLG_BAG_MODE == 2
  bool first = true;
#endif
  for (ulong i = begin; i < end; ++i) {
    long k = (long)indices[i];
#if CLG_BAG_PAD
    if (k == padding)
      continue;
    ++count;
#endif
    global const uchar *row = weight + (ulong)k * w_ld;
    float scale, bias;
    clg_q_params(row, codes, &scale, &bias);
    float q = clg_q_code(row, col);
#if CLG_BAG_MODE == 2
    float v = CLG_FMA(scale, q, bias);
    acc = first || !CLG_KEEP(acc, v) ? v : acc;
    first = false;
#else
#if CLG_BAG_PSW
    float w = psw[p_off + i];
    scale = scale * w;
    bias = bias * w;
#endif
    acc = CLG_FMA(scale, q, acc + bias);
#endif
  }
  out[o_off + b * o_ld + col] = clg_bag_finish(acc, count);
}

kernel void clg_embedding_bag_q_block(
    global const uchar *restrict weight, ulong w_off, ulong dim, ulong w_ld,
    global const index_t *restrict indices, ulong x_off, ulong n, ulong fixed,
    global const bag_t *restrict bags, ulong b_off, ulong bags_len,
    global const float *restrict psw, ulong p_off, global float *restrict out,
    ulong o_off, ulong o_ld, long padding, ulong num_bags CLG_GATE_ARG) {
  CLG_GATE
  ulong col = get_global_id(0) * CLG_BAG_BLOCK, b = get_global_id(1);
  if (col >= dim || b >= num_bags)
    return;
  uint w = dim - col < CLG_BAG_BLOCK ? (uint)(dim - col) : CLG_BAG_BLOCK;
  ulong begin, end;
  clg_bag_bounds(b, fixed, bags, b_off, bags_len, n, &begin, &end);
  weight += w_off;
  indices += x_off;
  ulong codes = dim / CLG_Q_PER;
  float acc[CLG_BAG_BLOCK];
  for (uint j = 0; j < CLG_BAG_BLOCK; ++j)
    acc[j] = 0;
#if CLG_BAG_PAD
  ulong count = 0;
#else
  ulong count = end - begin;
#endif
#if CLG_BAG_MODE == 2
  bool first = true;
#endif
  /* The block's codes of the row CLG_BAG_AHEAD_BYTES ahead brought
   * closer, as the dense rows' BLOCK does. */
  ulong ahead = CLG_BAG_AHEAD_BYTES / (w_ld ? w_ld : 1);
  ahead = ahead < 8 ? 8 : ahead > 256 ? 256 : ahead;
  for (ulong i = begin; i < end; ++i) {
    long k = (long)indices[i];
    if (i + ahead < n)
      CLG_PREFETCH_LINE(weight + (ulong)(long)indices[i + ahead] * w_ld +
                        col / CLG_Q_PER);
#if CLG_BAG_PAD
    if (k == padding)
      continue;
    ++count;
#endif
    global const uchar *row = weight + (ulong)k * w_ld;
    float scale, bias;
    clg_q_params(row, codes, &scale, &bias);
    /* The block's codes a byte at a time (col and w are multiples of
     * CLG_Q_PER: dim is, and CLG_BAG_BLOCK is): no division per code. */
    global const uchar *cb = row + col / CLG_Q_PER;
#if CLG_BAG_MODE == 2
    for (uint j = 0; j < w; j += CLG_Q_PER) {
      uint byte = cb[j / CLG_Q_PER];
      for (uint t = 0; t < CLG_Q_PER; ++t) {
        float q = (float)((byte >> (t * CLG_Q_BITS)) & ((1u << CLG_Q_BITS) - 1u));
        float v = CLG_FMA(scale, q, bias);
        acc[j + t] = first || !CLG_KEEP(acc[j + t], v) ? v : acc[j + t];
      }
    }
    first = false;
#else
#if CLG_BAG_PSW
    float s = psw[p_off + i];
    scale = scale * s;
    bias = bias * s;
#endif
    for (uint j = 0; j < w; j += CLG_Q_PER) {
      uint byte = cb[j / CLG_Q_PER];
      for (uint t = 0; t < CLG_Q_PER; ++t) {
        float q = (float)((byte >> (t * CLG_Q_BITS)) & ((1u << CLG_Q_BITS) - 1u));
        acc[j + t] = CLG_FMA(scale, q, acc[j + t] + bias);
      }
    }
#endif
  }
  for (uint j = 0; j < w; ++j)
    out[o_off + b * o_ld + col + j] = clg_bag_finish(acc[j], count);
}

/* Variant VEC (CLG_VARIANT_ITEM_PF) of quantized rows: one work-item per
 * bag and 16 columns (CLG_BAG_VEC 16: dim a multiple of 16), its codes
 * loaded as one vector (16, 8 or 4 bytes), unpacked into a float16 in
 * column order, each element the same operations in the same order as
 * clg_embedding_bag_q; the row CLG_BAG_AHEAD_BYTES ahead prefetched, as
 * the dense rows' VEC does. */
#if CLG_BAG_VEC == 16
/* CLG_KEEP element-wise: all bits set where acc is kept. */
#define CLG_QVKEEP(a, b)                                                       \
  (isnan(a) | (~isnan(b) & (((a) > (b)) | (((a) == (b)) & ~signbit(a)))))

/* The 16 codes of a row from byte `at` on, as floats in column order. */
static float16 clg_q_codes16(global const uchar *at) {
#if CLG_BAG_QFMT == 1
  return convert_float16(vload16(0, at));
#elif CLG_BAG_QFMT == 2
  uchar8 b = vload8(0, at);
  float8 lo = convert_float8(b & (uchar)15), hi = convert_float8(b >> 4);
  return shuffle2(lo, hi,
                  (uint16)(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7,
                           15));
#else
  uchar4 b = vload4(0, at);
  float4 t0 = convert_float4(b & (uchar)3),
         t1 = convert_float4((b >> 2) & (uchar)3),
         t2 = convert_float4((b >> 4) & (uchar)3),
         t3 = convert_float4(b >> 6);
  float8 even = shuffle2(t0, t2, (uint8)(0, 4, 1, 5, 2, 6, 3, 7)),
         odd = shuffle2(t1, t3, (uint8)(0, 4, 1, 5, 2, 6, 3, 7));
  /* even: t0[i], t2[i] pairs; odd: t1[i], t3[i]; column 4i + t. */
  return shuffle2(even, odd,
                  (uint16)(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7,
                           15));
#endif
}

kernel void clg_embedding_bag_q_vec(
    global const uchar *restrict weight, ulong w_off, ulong dim, ulong w_ld,
    global const index_t *restrict indices, ulong x_off, ulong n, ulong fixed,
    global const bag_t *restrict bags, ulong b_off, ulong bags_len,
    global const float *restrict psw, ulong p_off, global float *restrict out,
    ulong o_off, ulong o_ld, long padding, ulong num_bags CLG_GATE_ARG) {
  CLG_GATE
  ulong col = get_global_id(0) * 16, b = get_global_id(1);
  if (col >= dim || b >= num_bags)
    return;
  ulong begin, end;
  clg_bag_bounds(b, fixed, bags, b_off, bags_len, n, &begin, &end);
  weight += w_off;
  indices += x_off;
  ulong codes = dim / CLG_Q_PER, at = col / CLG_Q_PER;
  ulong ahead = CLG_BAG_AHEAD_BYTES / (w_ld ? w_ld : 1);
  ahead = ahead < 8 ? 8 : ahead > 256 ? 256 : ahead;
  float16 acc = 0;
#if CLG_BAG_PAD
  ulong count = 0;
#else
  ulong count = end - begin;
#endif
#if CLG_BAG_MODE == 2
  bool first = true;
#endif
  for (ulong i = begin; i < end; ++i) {
    long k = (long)indices[i];
    if (i + ahead < n)
      CLG_PREFETCH_LINE(weight + (ulong)(long)indices[i + ahead] * w_ld + at);
#if CLG_BAG_PAD
    if (k == padding)
      continue;
    ++count;
#endif
    global const uchar *row = weight + (ulong)k * w_ld;
    float scale, bias;
    clg_q_params(row, codes, &scale, &bias);
    float16 q = clg_q_codes16(row + at);
#if CLG_BAG_MODE == 2
    float16 v = CLG_FMA((float16)scale, q, (float16)bias);
    int16 take = first ? (int16)(-1) : ~CLG_QVKEEP(acc, v);
    acc = select(acc, v, take);
    first = false;
#else
#if CLG_BAG_PSW
    float s = psw[p_off + i];
    scale = scale * s;
    bias = bias * s;
#endif
    acc = CLG_FMA((float16)scale, q, acc + (float16)bias);
#endif
  }
  float a[16];
  vstore16(acc, 0, a);
  out += o_off + b * o_ld + col;
  for (uint j = 0; j < 16; ++j)
    out[j] = clg_bag_finish(a[j], count);
}
#endif /* CLG_BAG_VEC == 16 */
#endif /* CLG_BAG_KIND == 5 */
#endif /* CLG_BAG_KIND */

/* ---------------------------------------------- checks on the device */

/* cl_mem indices and bags checked on the device (host/run/embedding_bag.c:
 * the same rules as the host's, ops/embedding_bag.c). The verdict buffer:
 *   uint  v[0]  1 when anything is wrong (the gate of -DCLG_GATED kernels)
 *   uint  v[1]  the first bad position of the bags, or 0xFFFFFFFF
 *   uint  v[2]  the first bad position of the indices, or 0xFFFFFFFF
 *   uint  v[3]  `gen`, the run's number (work-item 0 of clg_bag_validate
 *               writes it: the host knows the words it reads are this
 *               run's, the buffer being kept between calls)
 *   long  at byte 16: bags[v[1]], bags[v[1] - 1] (0 at 0), indices[v[2]]
 *               (written by clg_bag_verdict_values)
 * Positions are 32-bit (the host takes this path below 2^32 - 1 entries):
 * work-items lower them with atomic_min, so the first offender wins
 * whatever the order the work-items run in.
 *
 * Build constants: CLG_INDEX (indices), CLG_BAG_INDEX (bags: int or long),
 * CLG_BAG_FORM (0 offsets, 1 fixed, 2 segment ids), CLG_BAG_LAST
 * (include_last_offset). */
#ifdef CLG_BAG_FORM /* the checks */
typedef CLG_BAG_INDEX bag_t;
#define CLG_BAG_NONE 0xFFFFFFFFu

kernel void clg_bag_validate(global const index_t *restrict indices,
                               ulong x_off, ulong n,
                               global const bag_t *restrict bags, ulong b_off,
                               ulong bags_len, long rows, long num_bags,
                               global uint *restrict verdict, uint gen) {
  ulong i = get_global_id(0);
  if (i == 0)
    verdict[3] = gen;
  if (i < n) {
    /* Unsigned, against the run-time row count: a negative index is
     * large (prelude.cl, CLG_FROM_END: Rusticl). */
    if ((ulong)(long)indices[x_off + i] >= (ulong)rows) {
      atomic_min(&verdict[2], (uint)i);
      atomic_xchg(&verdict[0], 1u);
    }
  }
#if CLG_BAG_FORM != 1
  if (i < bags_len) {
    /* Compared with run-time values only (prelude.cl, CLG_FROM_END:
     * Rusticl). */
    long v = (long)bags[b_off + i];
    bool down = i > 0 && v < (long)bags[b_off + i - 1];
#if CLG_BAG_FORM == 0
    bool bad = (i == 0 && v != 0) || down || v > (long)n;
#if CLG_BAG_LAST
    bad = bad || (i + 1 == bags_len && v != (long)n);
#endif
#else
    bool bad = (ulong)v >= (ulong)num_bags || down;
#endif
    if (bad) {
      atomic_min(&verdict[1], (uint)i);
      atomic_xchg(&verdict[0], 1u);
    }
  }
#endif
}

/* One work-item, after clg_bag_validate: the values at the positions it
 * found, for the host's message. */
kernel void clg_bag_verdict_values(global const index_t *restrict indices,
                                     ulong x_off,
                                     global const bag_t *restrict bags,
                                     ulong b_off, global uint *restrict verdict) {
  global long *vals = (global long *)(verdict + 4);
  uint b = verdict[1], x = verdict[2];
  if (b != CLG_BAG_NONE) {
    vals[0] = (long)bags[b_off + b];
    vals[1] = b > 0 ? (long)bags[b_off + b - 1] : 0;
  }
  if (x != CLG_BAG_NONE)
    vals[2] = (long)indices[x_off + x];
}

/* Segment ids already checked: starts[s] = the first entry of segment s,
 * for s in [0, num_bags], a segment no id names starting where the next
 * one does. Entry i writes the starts of the segments after the previous
 * entry's up to its own (the last entry also those after it, and
 * starts[num_bags]); with no entry the host writes them. */
kernel void clg_bag_segment_starts(global const bag_t *restrict ids,
                                     ulong b_off, ulong n, long num_bags,
                                     global long *restrict starts CLG_GATE_ARG) {
  CLG_GATE
  ulong i = get_global_id(0);
  if (i >= n)
    return;
  long cur = (long)ids[b_off + i];
  long prev = i > 0 ? (long)ids[b_off + i - 1] : -1;
  for (long s = prev + 1; s <= cur; ++s)
    starts[s] = (long)i;
  if (i + 1 == n)
    for (long s = cur + 1; s <= num_bags; ++s)
      starts[s] = (long)n;
}
#endif
