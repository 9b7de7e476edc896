/* GatherND (ONNX GatherND with batch_dims, tf.gather_nd) as a slice copy.
 *
 * With b = batch_dims and m = indices.shape[-1], data is viewed as
 * [batch][s][inner] copy units, where s = data.shape[b] * .. *
 * data.shape[b+m-1] (the rows an index tuple can select) and inner is the
 * slice data.shape[b+m:] in units. The output is [batch * n][inner], n index
 * tuples per batch; output row `row` reads the m components at
 * indices[row * m ..] and copies data row
 *   (row / n) * s + sum_j k_j * strides[j]
 * where k_j is component j (+ dims[j] if negative) and strides[j] is the
 * product of dims[j+1 .. m-1], both computed on the host and passed by
 * value (ulong16: m <= 16).
 *
 * A unit is CLG_UNIT (uchar .. uint16, 1 to 64 bytes), the widest type the
 * slice size and the buffer offsets allow. Offsets are in units (data,
 * output) and in index elements (indices).
 *
 * Every index was validated on the host before this kernel was enqueued; the
 * range check below is only defence in depth (a tuple with an invalid
 * component is skipped, never read).
 *
 * Build options (-D): CLG_UNIT, CLG_INDEX (int or long), CLG_ROWS_PER_ITEM
 * (slices per work-item in clg_gather_nd_small); for clg_gather_nd_item,
 * CLG_INNER, CLG_PREFETCH (the slice's units as a constant or 0, and the
 * prefetch distance, as in gather.cl) and CLG_M (components per tuple).
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

/* clg_gather_nd_item's slice: build constants when CLG_INNER > 0, else the
 * kernel arguments (as in gather.cl). */
#ifndef CLG_INNER
#define CLG_INNER 0
#endif
#if CLG_INNER > 0
#define INNER ((ulong)CLG_INNER)
#define PARTS ((ulong)1)
#define PART_UNITS ((ulong)CLG_INNER)
#else
#define INNER inner_units
#define PARTS parts
#define PART_UNITS part_units
#endif
#ifndef CLG_M
#define CLG_M 1
#endif
#ifndef CLG_PREFETCH
#define CLG_PREFETCH 0
#endif

/* The data row (within a batch) a tuple of m components selects, or -1. */
static inline long clg_nd_row(global const index_t *t, uint m,
                              const ulong *dims, const ulong *strides) {
  long row = 0;
  for (uint j = 0; j < m; ++j) {
    const long k = CLG_FROM_END(t[j], dims[j]); /* prelude.cl: Rusticl */
    if ((ulong)k >= dims[j])
      return -1;
    row += k * (long)strides[j];
  }
  return row;
}

/* Long slices: NDRange (units, rows). */
kernel void clg_gather_nd_rows(global const unit_t *restrict data,
                               ulong data_off,
                               global const index_t *restrict indices,
                               ulong indices_off, global unit_t *restrict out,
                               ulong out_off, ulong n, ulong s, ulong inner,
                               ulong rows, uint m, ulong16 dims_v,
                               ulong16 strides_v CLG_GATE_ARG) {
  CLG_GATE
  ulong dims[16], strides[16];
  CLG_LANES16(dims_v, dims);
  CLG_LANES16(strides_v, strides);
  /* Dim 1 may be capped below rows (see clg_gather_rows). */
  ulong step = get_global_size(0);
  for (ulong row = get_global_id(1); row < rows; row += get_global_size(1)) {
    long k = clg_nd_row(indices + indices_off + row * m, m, dims, strides);
    if (k < 0)
      continue;
    ulong batch = row / n;
    global const unit_t *src = data + data_off + (batch * s + (ulong)k) * inner;
    global unit_t *dst = out + out_off + row * inner;
    for (ulong u = get_global_id(0); u < inner; u += step)
      dst[u] = src[u];
  }
}

/* Short slices: each work-item copies CLG_ROWS_PER_ITEM consecutive output
 * rows, walking (batch, j) without division. */
kernel void clg_gather_nd_small(global const unit_t *restrict data,
                                ulong data_off,
                                global const index_t *restrict indices,
                                ulong indices_off, global unit_t *restrict out,
                                ulong out_off, ulong n, ulong s, ulong inner,
                                ulong rows, uint m, ulong16 dims_v,
                                ulong16 strides_v CLG_GATE_ARG) {
  CLG_GATE
  ulong r0 = get_global_id(0) * CLG_ROWS_PER_ITEM;
  if (r0 >= rows)
    return;
  ulong r1 = min(r0 + (ulong)CLG_ROWS_PER_ITEM, rows);
  ulong dims[16], strides[16];
  CLG_LANES16(dims_v, dims);
  CLG_LANES16(strides_v, strides);
  ulong batch = r0 / n;
  ulong j = r0 - batch * n;
  global const index_t *t = indices + indices_off + r0 * m;
  global unit_t *dst = out + out_off + r0 * inner;
  for (ulong row = r0; row < r1; ++row) {
    long k = clg_nd_row(t, m, dims, strides);
    if (k >= 0) {
      global const unit_t *src =
          data + data_off + (batch * s + (ulong)k) * inner;
      for (ulong u = 0; u < inner; ++u)
        dst[u] = src[u];
    }
    t += m;
    dst += inner;
    if (++j == n) {
      j = 0;
      ++batch;
    }
  }
}

/* One work-item per part of an output slice, as clg_gather_item of
 * gather.cl: the slice is CLG_INNER units, one part per slice, when that is
 * a build constant, else inner_units in `parts` parts of `part_units` (the
 * arguments; PARTS and PART_UNITS above); m is the build constant CLG_M. A
 * CPU compiler maps the work-items of a work-group onto SIMD lanes and the
 * tuple decode unrolls. NDRange (n * PARTS rounded up to the work-group
 * size, 1, batch). */
kernel void clg_gather_nd_item(global const unit_t *restrict data,
                               ulong data_off,
                               global const index_t *restrict indices,
                               ulong indices_off, global unit_t *restrict out,
                               ulong out_off, ulong n, ulong s, ulong16 dims_v,
                               ulong16 strides_v, ulong inner_units,
                               ulong parts, ulong part_units CLG_GATE_ARG) {
  CLG_GATE
  ulong g = get_global_id(0);
  ulong j = g / PARTS;
  if (j >= n)
    return;
  ulong batch = get_global_id(2);
  ulong row = batch * n + j;
  ulong dims[16], strides[16];
  CLG_LANES16(dims_v, dims);
  CLG_LANES16(strides_v, strides);
#if CLG_PREFETCH > 0
  /* the slice of the tuple CLG_PREFETCH work-items ahead */
  if (j + CLG_PREFETCH < n) {
    long kp = clg_nd_row(indices + indices_off + (row + CLG_PREFETCH) * CLG_M,
                         CLG_M, dims, strides);
    if (kp >= 0)
      CLG_PREFETCH_LINE(data + data_off + (batch * s + (ulong)kp) * INNER);
  }
#endif
  long k =
      clg_nd_row(indices + indices_off + row * CLG_M, CLG_M, dims, strides);
  if (k < 0)
    return;
  global const unit_t *src =
      data + data_off + (batch * s + (ulong)k) * INNER;
  global unit_t *dst = out + out_off + row * INNER;
#if CLG_INNER > 0
  const ulong u0 = 0, u1 = INNER; /* unrolled: see gather.cl's item */
#else
  ulong u0 = (g - j * PARTS) * PART_UNITS;
  ulong u1 = min(u0 + PART_UNITS, INNER);
#endif
  for (ulong u = u0; u < u1; ++u)
    dst[u] = src[u];
}
