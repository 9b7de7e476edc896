/* The scatters (ScatterElements, ScatterND, Scatter): the host turns the
 * index values into targets (a target is an element of ScatterElements, a
 * slice of `inner` elements of ScatterND) and, when targets repeat, into
 * segments of updates sorted by target in the C order of indices. Each
 * work-item owns one element of one target, so no two work-items write the
 * same element and the result does not depend on their order.
 *
 * Build constants:
 *   CLG_KIND  element kind, one of the CLG_K_NAME the host defines from
 *             its table (host/ops/scatter_kinds.def): CLG_K_RAW raw units
 *             of CLG_UNIT (reduction none), CLG_K_FLOAT ... CLG_K_COMPLEX128
 *   CLG_VEC   with CLG_VECT float|double: elements per vector (add, mul)
 *   CLG_POS   targets' and entries' type: long (host index pass) or uint
 *   CLG_GATED the gate of the asynchronous checked mode (kernels/prelude.cl)
 *   CLG_RED   reduction: 0 none, 1 add, 2 mul, 3 min, 4 max
 *   CLG_UNIT  the copy kernel's unit, and kind 0's element
 *   CLG_LOOP  1: a work-item per entry (CPUs); 0: per element (GPUs)
 *
 * Each reduction step is computed and rounded in the element type, as
 * numpy's ufunc.at: float16 / bfloat16 in float, rounded to nearest even
 * after every step; a NaN that add or mul makes is the type's one quiet
 * NaN (clg_canon); min / max keep a NaN element, else take a NaN update,
 * and put -0 below +0 (CLG_KEEP); integers wrap; bool add/max = or,
 * mul/min = and. The complex product is (ac - bd) + (ad + bc)i, four
 * rounded products and two rounded sums: no contraction into fused
 * multiply-adds (FP_CONTRACT OFF, and the products are named values). */
#pragma OPENCL FP_CONTRACT OFF

#if !defined(CLG_KIND) || !defined(CLG_K_RAW)
#error "build with -DCLG_KIND and the kinds' names (host/ops/scatter_kinds.def)"
#endif
#ifndef CLG_RED
#define CLG_RED 0
#endif
#ifndef CLG_UNIT
#error "build with -DCLG_UNIT=<type>"
#endif
#ifndef CLG_LOOP
#define CLG_LOOP 0
#endif
/* The type of targets and entry numbers: long from the host's index pass,
 * uint from the device's (kernels/scatter_index.cl). */
#ifndef CLG_POS
#define CLG_POS long
#endif
typedef CLG_POS pos_t;
/* Elements of a target accumulated together (CLG_LOOP). */
#define CLG_CHUNK 16
/* Sorted positions a work-item prefetches ahead (CLG_LOOP). */
#define CLG_AHEAD 16

#if CLG_KIND == CLG_K_DOUBLE || CLG_KIND == CLG_K_COMPLEX128
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* ------------------------------------------------- element type, access */

#define CLG_CAT2(a, b) a##b
#define CLG_CAT(a, b) CLG_CAT2(a, b)
#if defined(CLG_VEC) && (CLG_KIND == CLG_K_FLOAT || CLG_KIND == CLG_K_DOUBLE)
/* float / double add or mul, CLG_VEC elements a vector (the host passes
 * offsets and inner in vectors): the same operation lane by lane, so the
 * same rounding as one element at a time. */
typedef CLG_CAT(CLG_VECT, CLG_VEC) elem_t;
#elif CLG_KIND == CLG_K_RAW
typedef CLG_UNIT elem_t;
#elif CLG_KIND == CLG_K_FLOAT
typedef float elem_t;
#elif CLG_KIND == CLG_K_DOUBLE
typedef double elem_t;
#elif CLG_KIND == CLG_K_HALF || CLG_KIND == CLG_K_BFLOAT16 ||                \
    CLG_KIND == CLG_K_USHORT
typedef ushort elem_t;
#elif CLG_KIND == CLG_K_CHAR
typedef char elem_t;
#elif CLG_KIND == CLG_K_UCHAR || CLG_KIND == CLG_K_BOOL
typedef uchar elem_t;
#elif CLG_KIND == CLG_K_SHORT
typedef short elem_t;
#elif CLG_KIND == CLG_K_INT
typedef int elem_t;
#elif CLG_KIND == CLG_K_UINT
typedef uint elem_t;
#elif CLG_KIND == CLG_K_LONG
typedef long elem_t;
#elif CLG_KIND == CLG_K_ULONG
typedef ulong elem_t;
#elif CLG_KIND == CLG_K_COMPLEX64
typedef float comp_t;
typedef float2 elem_t;
#elif CLG_KIND == CLG_K_COMPLEX128
typedef double comp_t;
typedef double2 elem_t;
#endif

#if CLG_KIND == CLG_K_COMPLEX64 || CLG_KIND == CLG_K_COMPLEX128
/* Complex elements are read and written as pairs of components, which
 * need only the component's alignment. */
typedef comp_t mem_t;
#define LOAD(p, i) vload2((i), (p))
#define CLG_MEM_PER 2
#define STORE(p, i, v) vstore2((v), (i), (p))
#else
typedef elem_t mem_t;
#define LOAD(p, i) ((p)[i])
#define CLG_MEM_PER 1
#define STORE(p, i, v) ((p)[i] = (v))
#endif

/* --------------------------------------------------------- reductions */

/* A NaN that add or mul makes is stored as the one quiet NaN of its type,
 * positive, with no payload (float 0x7FC00000, double 0x7FF8000000000000,
 * float16 0x7E00, bfloat16 0x7FC0; complex: per component): devices differ
 * in the NaN their arithmetic returns (x86 keeps an operand's payload and
 * makes 0xFFC00000 of inf - inf, NVIDIA GPUs return 0x7FFFFFFF), and the
 * output is the same bits on every device. A NaN step stays NaN, so this
 * after every step is the same as once at the end. */
#if CLG_KIND == CLG_K_FLOAT || CLG_KIND == CLG_K_COMPLEX64
#define CLG_QNAN as_float(0x7FC00000u)
#elif CLG_KIND == CLG_K_DOUBLE || CLG_KIND == CLG_K_COMPLEX128
#define CLG_QNAN as_double(0x7FF8000000000000UL)
#endif
#if defined(CLG_QNAN) && (CLG_RED == 1 || CLG_RED == 2)
static elem_t clg_canon(elem_t v) { return isnan(v) ? (elem_t)CLG_QNAN : v; }
#endif

/* min and max of floating-point values (every float type alike; the
 * library's tie rule, include/clgather/clgather.h): keep the element a
 * when it is NaN; else take the update b when it is NaN; else the smaller
 * (larger), with -0 below +0 (IEEE 754-2019 minimum / maximum). The result
 * depends on the values only, never on which of two zeros came first. */
#if CLG_RED == 3
#define CLG_KEEP(a, b)                                                         \
  (isnan(a) || (!isnan(b) && ((a) < (b) || ((a) == (b) && signbit(a)))))
#elif CLG_RED == 4
#define CLG_KEEP(a, b)                                                         \
  (isnan(a) || (!isnan(b) && ((a) > (b) || ((a) == (b) && !signbit(a)))))
#endif

#if CLG_RED == 0
#define RED(a, b) (b)

#elif CLG_KIND == CLG_K_FLOAT || CLG_KIND == CLG_K_DOUBLE
#if CLG_RED == 1
#define RED(a, b) clg_canon((a) + (b))
#elif CLG_RED == 2
#define RED(a, b) clg_canon((a) * (b))
#else /* min, max: CLG_KEEP (below) */
#define RED(a, b) (CLG_KEEP((a), (b)) ? (a) : (b))
#endif

#elif CLG_KIND == CLG_K_HALF || CLG_KIND == CLG_K_BFLOAT16
#if CLG_KIND == CLG_K_HALF
/* vload_half / vstore_half_rte take half pointers: the bits are a ushort's
 * (half itself may not be declared without cl_khr_fp16). */
static float clg_to_float(ushort h) {
  return vload_half(0, (const half *)&h);
}
#if CLG_RED == 1 || CLG_RED == 2 /* min and max return an operand */
/* Round to nearest even (vstore_half_rte); a NaN is the quiet NaN above
 * (drivers differ in the NaN they store, and in the one they compute). */
static ushort clg_from_float(float f) {
  if (isnan(f))
    return (ushort)0x7E00u;
  ushort h;
  vstore_half_rte(f, 0, (half *)&h);
  return h;
}
#endif
#else
static float clg_to_float(ushort b) { return as_float((uint)b << 16); }
#if CLG_RED == 1 || CLG_RED == 2
/* Round to nearest even; a NaN is the quiet NaN above. */
static ushort clg_from_float(float f) {
  uint u = as_uint(f);
  if (isnan(f))
    return (ushort)0x7FC0u;
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
#endif
#endif
static ushort clg_red(ushort a, ushort b) {
  float x = clg_to_float(a), y = clg_to_float(b);
#if CLG_RED == 1
  return clg_from_float(x + y);
#elif CLG_RED == 2
  return clg_from_float(x * y);
#else
  return CLG_KEEP(x, y) ? a : b;
#endif
}
#define RED(a, b) clg_red((a), (b))

#elif CLG_KIND >= CLG_K_CHAR && CLG_KIND <= CLG_K_ULONG
/* Integers wrap: add and multiply in the unsigned type of the width. */
#if CLG_KIND <= CLG_K_UCHAR
typedef uchar uelem_t;
#elif CLG_KIND <= CLG_K_USHORT
typedef ushort uelem_t;
#elif CLG_KIND <= CLG_K_UINT
typedef uint uelem_t;
#else
typedef ulong uelem_t;
#endif
/* ... at least as wide as uint: narrower types would promote to int, whose
 * overflow is undefined */
#if CLG_KIND <= CLG_K_UINT
typedef uint wide_t;
#else
typedef ulong wide_t;
#endif
#if CLG_RED == 1
#define RED(a, b) ((elem_t)(uelem_t)((wide_t)(uelem_t)(a) + (wide_t)(uelem_t)(b)))
#elif CLG_RED == 2
#define RED(a, b) ((elem_t)(uelem_t)((wide_t)(uelem_t)(a) * (wide_t)(uelem_t)(b)))
#elif CLG_RED == 3
#define RED(a, b) ((a) <= (b) ? (a) : (b))
#else
#define RED(a, b) ((a) >= (b) ? (a) : (b))
#endif

#elif CLG_KIND == CLG_K_BOOL
#if CLG_RED == 1 || CLG_RED == 4
#define RED(a, b) ((elem_t)((a) | (b)))
#else
#define RED(a, b) ((elem_t)((a) & (b)))
#endif

#elif CLG_KIND == CLG_K_COMPLEX64 || CLG_KIND == CLG_K_COMPLEX128
#if CLG_RED == 1
#define RED(a, b) clg_canon((a) + (b))
#elif CLG_RED == 2
static elem_t clg_cmul(elem_t a, elem_t b) {
  comp_t re1 = a.x * b.x, re2 = a.y * b.y, im1 = a.x * b.y, im2 = a.y * b.x;
  return clg_canon((elem_t)(re1 - re2, im1 + im2));
}
#define RED(a, b) clg_cmul((a), (b))
#else
#error "min and max are not defined on complex numbers"
#endif
#endif

/* ------------------------------------------------------------ kernels */

/* data -> output before the updates, when not in place: NDRange (units). */
kernel void clg_scatter_copy(global const unit_t *restrict src, ulong src_off,
                             global unit_t *restrict dst, ulong dst_off,
                             ulong count CLG_GATE_ARG) {
  size_t i = get_global_id(0);
  CLG_GATE
  if (i < count)
    dst[dst_off + i] = src[src_off + i];
}

/* The work-item's entry (or segment) and the target elements it owns: with
 * CLG_LOOP (CPU devices) one work-item per entry looping over the target's
 * `inner` elements, so POCL vectorises across entries; else (GPUs) one
 * work-item per element, NDRange (inner, entries), coalesced along a
 * slice. */
#if CLG_LOOP
#define CLG_ENTRY get_global_id(0)
#define CLG_FOR_ELEMENTS for (size_t j = 0; j < inner; ++j)
#else
#define CLG_ENTRY get_global_id(1)
#define CLG_FOR_ELEMENTS for (size_t j = get_global_id(0); j < inner; j = inner)
#endif

/* Targets that do not repeat: entry e owns target targets[e]; offsets and
 * inner in elements. */
kernel void clg_scatter_direct(global mem_t *out, ulong out_off,
                               global const mem_t *restrict upd,
                               ulong upd_off,
                               global const pos_t *restrict targets,
                               ulong inner, ulong count CLG_GATE_ARG) {
  size_t e = CLG_ENTRY;
  if (e >= count) /* the NDRange is padded to whole work-groups */
    return;
  CLG_GATE
  size_t ob = out_off + (size_t)targets[e] * inner, ub = upd_off + e * inner;
  CLG_FOR_ELEMENTS {
#if CLG_RED == 0
    STORE(out, ob + j, LOAD(upd, ub + j));
#else
    STORE(out, ob + j, RED(LOAD(out, ob + j), LOAD(upd, ub + j)));
#endif
  }
}

#if CLG_LOOP && CLG_RED == 0
/* The same on a CPU with entries in runs (reduction none: the only direct
 * scatter after the device's index pass): work-item g takes entries
 * [g * per, (g + 1) * per) in order; a work-item an entry cost POCL its
 * per-work-item loop, 12 ms against 6 for ScatterElements' 4M
 * single-element entries on 2 cores. */
kernel void clg_scatter_direct_runs(global mem_t *out, ulong out_off,
                                    global const mem_t *restrict upd,
                                    ulong upd_off,
                                    global const pos_t *restrict targets,
                                    ulong inner, ulong count,
                                    ulong per CLG_GATE_ARG) {
  const size_t b = get_global_id(0) * per;
  if (b >= count)
    return;
  CLG_GATE
  const size_t end = min(b + per, count);
  if (inner == 1)
    for (size_t e = b; e < end; ++e)
      STORE(out, out_off + (size_t)targets[e], LOAD(upd, upd_off + e));
  else
    for (size_t e = b; e < end; ++e) {
      size_t ob = out_off + (size_t)targets[e] * inner,
             ub = upd_off + e * inner;
      for (size_t j = 0; j < inner; ++j)
        STORE(out, ob + j, LOAD(upd, ub + j));
    }
}

/* ScatterElements on the innermost axis of a rank-2 (merged) view, on a
 * CPU, none of its targets repeating (claimed by clg_scatter_index_claim_rows): each
 * entry's target computed from its index, row * s0 + value * s1 (the index
 * pass writes no targets for it), in runs of whole rows of n0 entries.
 * `x64`: the indices are long, else int. Offsets and inner in units. */
kernel void clg_scatter_elements_rows(global mem_t *out, ulong out_off,
                                      global const mem_t *restrict upd,
                                      ulong upd_off,
                                      global const int *restrict x,
                                      ulong x_off, uint x64, ulong n0,
                                      ulong s0, ulong s1, ulong abound,
                                      ulong inner, ulong count,
                                      ulong per CLG_GATE_ARG) {
  const size_t b = get_global_id(0) * per;
  if (b >= count)
    return;
  CLG_GATE
  const size_t end = min(b + per, count);
  global const long *x8 = (global const long *)x;
  for (size_t e = b, row = b / n0; e < end; ++row) {
    const size_t base = out_off + row * s0 * inner, stop = e + n0;
    if (inner == 1 && x64)
      for (; e < stop; ++e) {
        const long v = CLG_FROM_END(x8[x_off + e], abound);
        STORE(out, base + (size_t)v * s1,
              LOAD(upd, upd_off + e));
      }
    else if (inner == 1)
      for (; e < stop; ++e) {
        const long v = CLG_FROM_END(x[x_off + e], abound);
        STORE(out, base + (size_t)v * s1,
              LOAD(upd, upd_off + e));
      }
    else
      for (; e < stop; ++e) {
        const long v = x64 ? CLG_FROM_END(x8[x_off + e], abound)
                           : CLG_FROM_END(x[x_off + e], abound);
        const size_t ob = base + (size_t)v * s1 * inner;
        for (size_t j = 0; j < inner; ++j)
          STORE(out, ob + j, LOAD(upd, upd_off + e * inner + j));
      }
  }
}
#endif

/* Targets that repeat, reduction none with duplicates = last: segment g
 * owns target seg_target[g]; its last entry, order[seg_start[g+1]-1],
 * wins. */
kernel void clg_scatter_last(global mem_t *out, ulong out_off,
                             global const mem_t *restrict upd, ulong upd_off,
                             global const long *restrict order,
                             global const long *restrict seg_start,
                             global const long *restrict seg_target,
                             ulong inner, ulong count) {
  size_t g = CLG_ENTRY;
  if (g >= count)
    return;
  size_t ob = out_off + (size_t)seg_target[g] * inner;
  size_t ub = upd_off + (size_t)order[seg_start[g + 1] - 1] * inner;
  CLG_FOR_ELEMENTS { STORE(out, ob + j, LOAD(upd, ub + j)); }
}

/* The updates' rows in the order of their targets: tmp[p] = upd[order[p]]
 * (rows of row_units units). One work-item per row, every one alike, so
 * the random reads overlap (a gather); the reduction then reads tmp in
 * sequence. */
kernel void clg_scatter_permute(global unit_t *restrict tmp,
                                global const unit_t *restrict upd,
                                ulong upd_off,
                                global const long *restrict order,
                                ulong row_units, ulong count) {
  size_t p = get_global_id(0);
  if (p >= count)
    return;
  size_t src = upd_off + (size_t)order[p] * row_units, dst = p * row_units;
  for (size_t u = 0; u < row_units; ++u)
    tmp[dst + u] = upd[src + u];
}

/* Targets that repeat, with a reduction: segment g owns target
 * seg_target[g] and applies the updates tmp[seg_start[g] ..
 * seg_start[g+1]-1] (already in target order, entries ascending within a
 * target) in turn. */
kernel void clg_scatter_segments(global mem_t *out, ulong out_off,
                                 global const mem_t *restrict tmp,
                                 global const long *restrict seg_start,
                                 global const long *restrict seg_target,
                                 ulong inner, ulong count) {
  size_t g = CLG_ENTRY;
  if (g >= count)
    return;
  size_t ob = out_off + (size_t)seg_target[g] * inner;
  long begin = seg_start[g], end = seg_start[g + 1];
#if CLG_RED == 0 /* not called: reduction none takes clg_scatter_last */
  (void)out;
  (void)ob;
  (void)begin;
  (void)end;
  (void)tmp;
#elif CLG_LOOP
  /* A chunk of the target's elements at a time, accumulated across the
   * segment's updates. */
  for (size_t j0 = 0; j0 < inner; j0 += CLG_CHUNK) {
    size_t n = inner - j0 < CLG_CHUNK ? inner - j0 : CLG_CHUNK;
    elem_t acc[CLG_CHUNK];
    for (size_t jj = 0; jj < n; ++jj)
      acc[jj] = LOAD(out, ob + j0 + jj);
    for (long p = begin; p < end; ++p)
      for (size_t jj = 0; jj < n; ++jj)
        acc[jj] = RED(acc[jj], LOAD(tmp, (size_t)p * inner + j0 + jj));
    for (size_t jj = 0; jj < n; ++jj)
      STORE(out, ob + j0 + jj, acc[jj]);
  }
#else
  CLG_FOR_ELEMENTS {
    elem_t acc = LOAD(out, ob + j);
    for (long p = begin; p < end; ++p)
      acc = RED(acc, LOAD(tmp, (size_t)p * inner + j));
    STORE(out, ob + j, acc);
  }
#endif
}

/* The device's index pass (kernels/scatter_index.cl) sorted the (target,
 * entry) pairs by target, stably: position i starts a run of one target
 * when its target differs from position i-1's, and its work-item applies
 * the run's updates in the order of their entries (reduction none: the
 * last one wins). The other work-items have nothing to do. */
kernel void clg_scatter_sorted(global mem_t *out, ulong out_off,
                               global const mem_t *restrict upd,
                               ulong upd_off,
                               global const uint *restrict keys,
                               global const uint *restrict vals, ulong inner,
                               ulong count CLG_GATE_ARG) {
  size_t i = CLG_ENTRY;
  if (i >= count)
    return;
  CLG_GATE
#if CLG_LOOP
  /* The runs' random rows, fetched ahead: the loop below stalls on each. */
  if (i + CLG_AHEAD < count) {
    CLG_PREFETCH_LINE(upd + (upd_off + (size_t)vals[i + CLG_AHEAD] * inner) *
                                CLG_MEM_PER);
    CLG_PREFETCH_LINE(out + (out_off + (size_t)keys[i + CLG_AHEAD] * inner) *
                                CLG_MEM_PER);
  }
#endif
  const uint t = keys[i];
  if (i > 0 && keys[i - 1] == t)
    return;
  size_t end = i + 1;
  while (end < count && keys[end] == t)
    ++end;
  size_t ob = out_off + (size_t)t * inner;
#if CLG_RED == 0
  size_t ub = upd_off + (size_t)vals[end - 1] * inner;
  CLG_FOR_ELEMENTS { STORE(out, ob + j, LOAD(upd, ub + j)); }
#elif CLG_LOOP
  for (size_t j0 = 0; j0 < inner; j0 += CLG_CHUNK) {
    size_t n = inner - j0 < CLG_CHUNK ? inner - j0 : CLG_CHUNK;
    elem_t acc[CLG_CHUNK];
    for (size_t jj = 0; jj < n; ++jj)
      acc[jj] = LOAD(out, ob + j0 + jj);
    for (size_t p = i; p < end; ++p) {
      size_t ub = upd_off + (size_t)vals[p] * inner + j0;
      for (size_t jj = 0; jj < n; ++jj)
        acc[jj] = RED(acc[jj], LOAD(upd, ub + jj));
    }
    for (size_t jj = 0; jj < n; ++jj)
      STORE(out, ob + j0 + jj, acc[jj]);
  }
#else
  CLG_FOR_ELEMENTS {
    elem_t acc = LOAD(out, ob + j);
    for (size_t p = i; p < end; ++p)
      acc = RED(acc, LOAD(upd, upd_off + (size_t)vals[p] * inner + j));
    STORE(out, ob + j, acc);
  }
#endif
}

#if CLG_LOOP
/* CPU devices, updates in order: the device's index pass partitioned the
 * (target, entry) pairs in one stable radix pass (host/ops/
 * scatter_device.c) instead of sorting them whole: bucket b holds every
 * pair of its targets (blocks of contiguous targets), in entry order, at
 * positions [first[b * C], first[(b + 1) * C]) (that pass's summed counts,
 * C chunks a digit; the last bucket ends at `count`), and no other bucket
 * has those targets. Work-item b applies its pairs in order, each to its
 * target, so a target's updates apply in the order of their entries, as
 * the sorted runs' (the same bits). */
kernel void clg_scatter_buckets(global mem_t *out, ulong out_off,
                                global const mem_t *restrict upd,
                                ulong upd_off,
                                global const uint *restrict keys,
                                global const uint *restrict vals, ulong inner,
                                ulong count, global const uint *restrict first,
                                uint C, uint buckets CLG_GATE_ARG) {
  const uint b = (uint)get_global_id(0);
  if (b >= buckets)
    return;
  CLG_GATE
  const size_t begin = first[(size_t)b * C],
               end = b + 1 < buckets ? first[(size_t)(b + 1) * C] : count;
  for (size_t p = begin; p < end; ++p) {
    /* The random rows, fetched ahead: the loop stalls on each. */
    if (p + CLG_AHEAD < end) {
      CLG_PREFETCH_LINE(
          upd + (upd_off + (size_t)vals[p + CLG_AHEAD] * inner) * CLG_MEM_PER);
      CLG_PREFETCH_LINE(
          out + (out_off + (size_t)keys[p + CLG_AHEAD] * inner) * CLG_MEM_PER);
    }
    const size_t ob = out_off + (size_t)keys[p] * inner,
                 ub = upd_off + (size_t)vals[p] * inner;
    CLG_FOR_ELEMENTS {
#if CLG_RED == 0
      STORE(out, ob + j, LOAD(upd, ub + j));
#else
      STORE(out, ob + j, RED(LOAD(out, ob + j), LOAD(upd, ub + j)));
#endif
    }
  }
}
#endif
