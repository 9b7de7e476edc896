/* Gather (ONNX Gather, TensorFlow batch_dims, numpy.take modes) as a byte
 * copy.
 *
 * data is viewed as [outer][s][inner] copy units and the output as
 * [outer][n][inner] units, where outer = batch * outer_pb and batch bi reads
 * its own n indices, indices[bi * n .. bi * n + n). A unit is CLG_UNIT
 * (uchar .. uint16, 1 to 64 bytes; up to uint4 in clg_gather_small and
 * clg_gather_rows), the widest type the slice size and buffer offsets
 * allow.
 *
 * In mode RAISE every index was validated on the host before this kernel
 * was enqueued; the range check below is only defence in depth (an invalid
 * slice is skipped, never read). WRAP and CLIP map every index into [0, s).
 *
 * Build options (-D): CLG_UNIT (copy unit type), CLG_INDEX (int or long),
 * CLG_ROWS_PER_ITEM (slices per work-item in clg_gather_small), CLG_MODE
 * (CLG_MODE_RAISE, CLG_MODE_WRAP or CLG_MODE_CLIP); for clg_gather_item and
 * clg_gather_plane and clg_gather_block, CLG_INNER (units per slice as a
 * build constant, one part per slice; 0: the inner, parts and part_units
 * arguments give the slice's units, the work-items per slice (item) and
 * the units per part). The variants a shape class times against each other
 * differ in run-time arguments only, so one program holds them all (one
 * build, not one per candidate): `ahead` (item and block: prefetch the
 * slice of the index this many slices ahead; plane: prefetch the whole
 * plane first, unless `staged` copies it into local memory; 0: none; not
 * named `prefetch`, which would hide OpenCL's prefetch() from
 * CLG_PREFETCH_LINE) and `stream` (item: non-temporal stores).
 * Offsets are in units (data, output) and in index elements (indices).
 */
#ifndef CLG_UNIT
#error "build with -DCLG_UNIT=<type>"
#endif
#ifndef CLG_INDEX
#error "build with -DCLG_INDEX=int|long"
#endif
#ifndef CLG_ROWS_PER_ITEM
#define CLG_ROWS_PER_ITEM 8
#endif
#ifndef CLG_MODE
#define CLG_MODE CLG_MODE_RAISE
#endif
/* The slice's shape: build constants when CLG_INNER > 0 (short slices: the
 * copy becomes straight-line code), else the kernel arguments inner, parts
 * and part_units (long slices, where a loop costs nothing: one program
 * serves every length). */
#ifndef CLG_INNER
#define CLG_INNER 0
#endif
/* clg_gather_item with CLG_WHOLE 1: a short slice (CLG_INNER > 0) in one
 * part, and an NDRange exactly n work-items wide (no padding). */
#ifndef CLG_WHOLE
#define CLG_WHOLE 0
#endif
#if CLG_INNER > 0
#define INNER ((ulong)CLG_INNER)
#define PARTS ((ulong)1)
#define PART_UNITS ((ulong)CLG_INNER)
#else
#define INNER inner
#define PARTS parts
#define PART_UNITS part_units
#endif

/* The kernels a program holds: -DCLG_KERNELS=<mask>, a bit per kernel in
 * the order rows, small, item, plane, block (the host sets those of the
 * variants a shape class may run: POCL compiles every kernel of a program
 * when it builds it, so a kernel no variant needs costs a compile), and
 * checked (32: way FUSED's kernel, in a program of its own). */
#ifndef CLG_KERNELS
#define CLG_KERNELS 31
#endif
#define CLG_KERNEL_ROWS (CLG_KERNELS & 1)
#define CLG_KERNEL_SMALL ((CLG_KERNELS >> 1) & 1)
#define CLG_KERNEL_ITEM ((CLG_KERNELS >> 2) & 1)
#define CLG_KERNEL_PLANE ((CLG_KERNELS >> 3) & 1)
#define CLG_KERNEL_BLOCK ((CLG_KERNELS >> 4) & 1)

/* Streaming stores of clg_gather_item: non-temporal where the compiler has
 * them and the device allows hints (CLG_HINTS, prelude.cl): the line is
 * written without being read first and bypasses the cache (large outputs);
 * else plain. */
#if defined(CLG_HINTS) && defined(__clang__)
#define CLG_STORE_NT(p, v) __builtin_nontemporal_store((v), (p))
#else
#define CLG_STORE_NT(p, v) (*(p) = (v))
#endif

/* The data row an index selects on an axis of size s (s > 0), or -1 if the
 * index is invalid (RAISE only). */
static inline long clg_source_row(index_t value, ulong s) {
#if CLG_MODE == CLG_MODE_WRAP
  const long k = (long)value % (long)s;
  return k < 0 ? k + (long)s : k;
#elif CLG_MODE == CLG_MODE_CLIP
  return value < 0 ? 0 : (ulong)value >= s ? (long)s - 1 : (long)value;
#else
  const long k = CLG_FROM_END(value, s); /* prelude.cl: signs, Rusticl */
  return (ulong)k < s ? k : -1;
#endif
}

/* Long slices: NDRange (units, slices). Work-items of dim 0 stride over the
 * units of one slice; dim 1 is the output slice o * n + j. */
#if CLG_KERNEL_ROWS
kernel void clg_gather_rows(global const unit_t *restrict data, ulong data_off,
                            global const index_t *restrict indices,
                            ulong indices_off, global unit_t *restrict out,
                            ulong out_off, ulong n, ulong s, ulong inner,
                            ulong outer_pb, ulong rows CLG_GATE_ARG) {
  CLG_GATE
  /* Dim 1 may be capped below rows (some drivers limit it to 65535): the
   * work-items stride over the remaining slices. */
  ulong step = get_global_size(0);
  for (ulong row = get_global_id(1); row < rows; row += get_global_size(1)) {
    ulong o = row / n;
    ulong j = row - o * n;
    ulong batch = o / outer_pb;
    long k = clg_source_row(indices[indices_off + batch * n + j], s);
    if (k < 0)
      continue;
    global const unit_t *src = data + data_off + (o * s + (ulong)k) * inner;
    global unit_t *dst = out + out_off + row * inner;
    for (ulong u = get_global_id(0); u < inner; u += step)
      dst[u] = src[u];
  }
}
#endif

/* Short slices: each work-item copies CLG_ROWS_PER_ITEM consecutive output
 * slices, loading each index once and walking (o, j) without division. */
#if CLG_KERNEL_SMALL
kernel void clg_gather_small(global const unit_t *restrict data,
                             ulong data_off,
                             global const index_t *restrict indices,
                             ulong indices_off, global unit_t *restrict out,
                             ulong out_off, ulong n, ulong s, ulong inner,
                             ulong outer_pb, ulong rows CLG_GATE_ARG) {
  CLG_GATE
  ulong r0 = get_global_id(0) * CLG_ROWS_PER_ITEM;
  if (r0 >= rows)
    return;
  ulong r1 = min(r0 + (ulong)CLG_ROWS_PER_ITEM, rows);
  ulong o = r0 / n;
  ulong j = r0 - o * n;
  global const index_t *idx = indices + indices_off + (o / outer_pb) * n;
  global unit_t *dst = out + out_off + r0 * inner;
  for (ulong row = r0; row < r1; ++row) {
    long k = clg_source_row(idx[j], s);
    if (k >= 0) {
      global const unit_t *src = data + data_off + (o * s + (ulong)k) * inner;
      for (ulong u = 0; u < inner; ++u)
        dst[u] = src[u];
    }
    dst += inner;
    if (++j == n) {
      j = 0;
      ++o;
      idx = indices + indices_off + (o / outer_pb) * n;
    }
  }
}
#endif

/* One work-item per part of an output slice, a short slice's length a
 * build constant, so the copy is straight-line code and a CPU compiler maps
 * the work-items of a work-group onto SIMD lanes. NDRange (n * PARTS
 * rounded up to the work-group size, outer_pb, batch): work-item (g, p, bi)
 * copies part g % PARTS of slice j = g / PARTS of outer row
 * o = bi * outer_pb + p; for short slices PARTS is the constant 1, so no
 * division by a run-time value is left. */
#if CLG_KERNEL_ITEM
kernel void clg_gather_item(global const unit_t *restrict data, ulong data_off,
                            global const index_t *restrict indices,
                            ulong indices_off, global unit_t *restrict out,
                            ulong out_off, ulong n, ulong s, ulong outer_pb,
                            ulong inner, ulong parts, ulong part_units,
                            ulong ahead, uint stream CLG_GATE_ARG) {
  CLG_GATE
  ulong g = get_global_id(0);
  ulong j = g / PARTS;
#if CLG_WHOLE
  /* Every work-item has a slice (the NDRange is exactly n wide) and no
   * work-item returns early or stores conditionally, so that a CPU
   * compiler runs the work-items of a work-group as SIMD lanes (a
   * conditional return or store keeps them scalar). An invalid index
   * (RAISE) never comes here: the call checked every index before this
   * kernel, or the gate stops it. Should the indices change after the
   * check (a race of the caller's), it reads slice 0 of its row, so no
   * read leaves data; storing back what the output held instead, a read
   * of the output and a select, had cost 35-45% of the kernel (1-D
   * float16, 10^6 indices, Zen 3: 1235 against 832 us, Boost.Compute's
   * element gather 665). */
  ulong bi = get_global_id(2);
  ulong o = bi * outer_pb + get_global_id(1);
  global const index_t *idx = indices + indices_off + bi * n;
  if (ahead > 0) {
    long kp = clg_source_row(idx[min(j + ahead, n - 1)], s);
    CLG_PREFETCH_LINE(data + data_off +
                      (o * s + (kp >= 0 ? (ulong)kp : 0)) * INNER);
  }
  long k = clg_source_row(idx[j], s);
  global const unit_t *src =
      data + data_off + (o * s + (k >= 0 ? (ulong)k : 0)) * INNER;
  global unit_t *dst = out + out_off + (o * n + j) * INNER;
  if (stream)
    for (ulong u = 0; u < INNER; ++u)
      CLG_STORE_NT(dst + u, src[u]);
  else
    for (ulong u = 0; u < INNER; ++u)
      dst[u] = src[u];
#else
  if (j >= n)
    return;
  ulong bi = get_global_id(2);
  ulong o = bi * outer_pb + get_global_id(1);
  global const index_t *idx = indices + indices_off + bi * n;
  if (ahead > 0 && j + ahead < n) {
    long kp = clg_source_row(idx[j + ahead], s);
    if (kp >= 0)
      CLG_PREFETCH_LINE(data + data_off + (o * s + (ulong)kp) * INNER);
  }
  long k = clg_source_row(idx[j], s);
  if (k < 0)
    return;
  global const unit_t *src = data + data_off + (o * s + (ulong)k) * INNER;
  global unit_t *dst = out + out_off + (o * n + j) * INNER;
#if CLG_INNER > 0
  /* One part of a build-constant length: bounds the compiler sees as
   * constants, so the copy is unrolled straight-line code (from the
   * general form below POCL kept a loop of CLG_INNER trips a work-item:
   * 128-byte float16 rows, 1.3-1.5x the time of the same copy unrolled,
   * Zen 3). */
  const ulong u0 = 0, u1 = INNER;
#else
  ulong u0 = (g - j * PARTS) * PART_UNITS;
  ulong u1 = min(u0 + PART_UNITS, INNER);
#endif
  if (stream)
    for (ulong u = u0; u < u1; ++u)
      CLG_STORE_NT(dst + u, src[u]);
  else
    for (ulong u = u0; u < u1; ++u)
      dst[u] = src[u];
#endif
}
#endif

/* One work-item per outer row (work-groups of one): it copies the row's n
 * slices in order, from the row's plane of data (its s slices) that it
 * first brings close: with `staged` set, it copies the plane into `stage`
 * (local memory of at least s * INNER units), a sequential stream the
 * memory system serves at full bandwidth, and gathers from there; else,
 * with `ahead` set, it prefetches the plane line by line and gathers from
 * global memory. For short slices gathered densely from their plane
 * (last-axis gathers), where reading the whole plane in order beats
 * reading its lines in the indices' order. NDRange (outer_pb, batch). */
#if CLG_KERNEL_PLANE
kernel void clg_gather_plane(global const unit_t *restrict data,
                             ulong data_off,
                             global const index_t *restrict indices,
                             ulong indices_off, global unit_t *restrict out,
                             ulong out_off, ulong n, ulong s, ulong outer_pb,
                             ulong inner, ulong ahead,
                             local unit_t *restrict stage,
                             uint staged CLG_GATE_ARG) {
  CLG_GATE
  ulong bi = get_global_id(1);
  ulong o = bi * outer_pb + get_global_id(0);
  global const index_t *idx = indices + indices_off + bi * n;
  global const unit_t *plane = data + data_off + o * s * INNER;
  global unit_t *dst = out + out_off + o * n * INNER;
  if (staged) {
    for (ulong u = 0; u < s * INNER; ++u)
      stage[u] = plane[u];
    for (ulong j = 0; j < n; ++j) {
      long k = clg_source_row(idx[j], s);
      if (k >= 0)
        for (ulong u = 0; u < INNER; ++u)
          dst[j * INNER + u] = stage[(ulong)k * INNER + u];
    }
    return;
  }
  if (ahead > 0) {
    global const uchar *line = (global const uchar *)plane;
    ulong lines = (s * INNER * sizeof(unit_t) + 63) / 64;
    for (ulong i = 0; i < lines; ++i)
      CLG_PREFETCH_LINE(line + i * 64);
  }
  for (ulong j = 0; j < n; ++j) {
    long k = clg_source_row(idx[j], s);
    if (k >= 0) {
      global const unit_t *src = plane + (ulong)k * INNER;
      for (ulong u = 0; u < INNER; ++u)
        dst[j * INNER + u] = src[u];
    }
  }
}
#endif

/* A block of consecutive output slices of one outer row per work-item
 * (work-groups of one), each index loaded once, with the slice `ahead`
 * iterations ahead prefetched: for slices shorter than a cache line, where
 * the loop overlaps many random reads better than a vectorized work-group.
 * NDRange (ceil(n / per_item), outer_pb, batch). */
#if CLG_KERNEL_BLOCK
kernel void clg_gather_block(global const unit_t *restrict data,
                             ulong data_off,
                             global const index_t *restrict indices,
                             ulong indices_off, global unit_t *restrict out,
                             ulong out_off, ulong n, ulong s, ulong outer_pb,
                             ulong inner, ulong per_item,
                             ulong ahead CLG_GATE_ARG) {
  CLG_GATE
  ulong j0 = get_global_id(0) * per_item;
  if (j0 >= n)
    return;
  ulong j1 = min(j0 + per_item, n);
  ulong bi = get_global_id(2);
  ulong o = bi * outer_pb + get_global_id(1);
  global const index_t *idx = indices + indices_off + bi * n;
  global const unit_t *plane = data + data_off + o * s * INNER;
  global unit_t *dst = out + out_off + o * n * INNER;
  for (ulong j = j0; j < j1; ++j) {
    if (ahead > 0 && j + ahead < j1) {
      long kp = clg_source_row(idx[j + ahead], s);
      if (kp >= 0)
        CLG_PREFETCH_LINE(plane + (ulong)kp * INNER);
    }
    long k = clg_source_row(idx[j], s);
    if (k >= 0)
      for (ulong u = 0; u < INNER; ++u)
        dst[j * INNER + u] = plane[(ulong)k * INNER + u];
  }
}
#endif

#if (CLG_KERNELS >> 5) & 1
/* The checked call of a small Gather in one kernel (way FUSED,
 * host/run/strategy.c): a single work-group of CLG_LOCAL work-items checks
 * every index against [-s, s-1] (mode RAISE) and writes the verdict as the
 * validation kernel writes one group's (kernels/validate.cl: the flag,
 * this run's number `gen`, the first offender and its value at word
 * CLG_GROUPS_AT); only when every index is valid does it copy the output,
 * [rows][n][inner] units in order, adjacent work-items on adjacent units.
 * One launch and one small read of the verdict: no second kernel waits
 * for the first, nothing is written when an index is bad. `count`: the
 * indices, batch * n. */
#ifndef CLG_LOCAL
#error "build with -DCLG_LOCAL=<work-group size, a power of two>"
#endif
#ifndef CLG_GROUPS_AT
#error "build with -DCLG_GROUPS_AT=<the verdict's first group word>"
#endif
#define CLG_FUSED_NONE ((ulong)0xFFFFFFFFFFFFFFFFUL)
kernel __attribute__((reqd_work_group_size(CLG_LOCAL, 1, 1))) void
clg_gather_checked(global const unit_t *restrict data, ulong data_off,
                   global const index_t *restrict indices, ulong indices_off,
                   global unit_t *restrict out, ulong out_off, ulong n,
                   ulong s, ulong outer_pb, ulong inner, ulong rows,
                   ulong count, global ulong *verdict, uint gen) {
  local ulong best[CLG_LOCAL];
  const uint lid = (uint)get_local_id(0);
  const long d = (long)s;
  ulong found = CLG_FUSED_NONE;
  /* Each work-item stops at its first offender: the smallest of its
   * positions; the smallest over the group is the first of all. */
  for (ulong i = lid; i < count; i += CLG_LOCAL) {
    const long k = (long)indices[indices_off + i];
    if (k < -d || k > d - 1) {
      found = i;
      break;
    }
  }
  best[lid] = found;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = CLG_LOCAL / 2; h > 0; h >>= 1) {
    if (lid < h && best[lid + h] < best[lid])
      best[lid] = best[lid + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const ulong first = best[0];
  if (lid == 0) {
    verdict[CLG_GROUPS_AT] = first;
    verdict[CLG_GROUPS_AT + 1] =
        first == CLG_FUSED_NONE ? 0 : (ulong)(long)indices[indices_off + first];
    ((global uint *)verdict)[1] = gen;
    if (first != CLG_FUSED_NONE)
      ((global uint *)verdict)[0] = 1u;
  }
  if (first != CLG_FUSED_NONE)
    return;
  const ulong total = rows * n * inner;
  for (ulong u = lid; u < total; u += CLG_LOCAL) {
    /* u = (r * n + j) * inner + c; quotients and remainders by
     * subtraction (see gather_elements.cl: `%` and Oclgrind). */
    const ulong t = u / inner, c = u - t * inner;
    const ulong r = t / n, j = t - r * n;
    const long k =
        CLG_FROM_END(indices[indices_off + (r / outer_pb) * n + j], d);
    out[out_off + u] = data[data_off + (r * s + (ulong)k) * inner + c];
  }
}
#endif
