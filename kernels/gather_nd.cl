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
 * A unit is CLG_UNIT (uchar .. uint4, 1 to 16 bytes), the widest type the
 * slice size and the buffer offsets allow. Offsets are in units (data,
 * output) and in index elements (indices).
 *
 * Every index was validated on the host before this kernel was enqueued; the
 * range check below is only defence in depth (a tuple with an invalid
 * component is skipped, never read).
 *
 * Build options (-D): CLG_UNIT, CLG_INDEX (int or long), CLG_ROWS_PER_ITEM
 * (slices per work-item in clg_gather_nd_small).
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

typedef CLG_UNIT unit_t;
typedef CLG_INDEX index_t;

/* Asynchronous checked mode (-DCLG_GATED): one more argument, the verdict
 * of the validation kernel (kernels/validate.cl), read first; when it is set
 * the kernel writes nothing and the output stays as it was. */
#ifdef CLG_GATED
#define CLG_GATE_ARG , global const uint *restrict verdict
#define CLG_GATE                                                               \
  if (verdict[0] != 0)                                                         \
    return;
#else
#define CLG_GATE_ARG
#define CLG_GATE
#endif

/* The data row (within a batch) a tuple of m components selects, or -1. */
inline long clg_nd_row(global const index_t *t, uint m, const ulong *dims,
                       const ulong *strides) {
  long row = 0;
  for (uint j = 0; j < m; ++j) {
    long k = (long)t[j];
    long d = (long)dims[j];
    if (k < 0)
      k += d;
    if (k < 0 || k >= d)
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
  vstore16(dims_v, 0, dims);
  vstore16(strides_v, 0, strides);
  /* Dim 1 may be capped below rows (see clg_gather_rows). */
  ulong step = get_global_size(0);
  for (ulong row = get_global_id(1); row < rows; row += get_global_size(1)) {
    long k = clg_nd_row(indices + indices_off + row * m, m, dims, strides);
    if (k < 0)
      continue;
    ulong batch = row / n;
    global const unit_t *src =
        data + data_off + (batch * s + (ulong)k) * inner;
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
  vstore16(dims_v, 0, dims);
  vstore16(strides_v, 0, strides);
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

/* CPU devices: as clg_gather_chunk of gather.cl. NDRange (parts, row
 * groups), work-groups of one work-item: work-item (p, g) copies units
 * [p * units_per_item, ..) of the slices of output rows
 * [g * rows_per_item, ..), decoding each tuple once per slice. */
kernel void clg_gather_nd_chunk(global const unit_t *restrict data,
                                ulong data_off,
                                global const index_t *restrict indices,
                                ulong indices_off, global unit_t *restrict out,
                                ulong out_off, ulong n, ulong s, ulong inner,
                                ulong rows, uint m, ulong16 dims_v,
                                ulong16 strides_v, ulong rows_per_item,
                                ulong units_per_item CLG_GATE_ARG) {
  CLG_GATE
  ulong r0 = get_global_id(1) * rows_per_item;
  ulong u0 = get_global_id(0) * units_per_item;
  if (r0 >= rows || u0 >= inner)
    return;
  ulong r1 = min(r0 + rows_per_item, rows);
  ulong len = min(units_per_item, inner - u0);
  ulong dims[16], strides[16];
  vstore16(dims_v, 0, dims);
  vstore16(strides_v, 0, strides);
  ulong batch = r0 / n;
  ulong j = r0 - batch * n;
  global const index_t *t = indices + indices_off + r0 * m;
  global unit_t *dst = out + out_off + r0 * inner + u0;
  global const unit_t *plane = data + data_off + batch * s * inner + u0;
  for (ulong row = r0; row < r1; ++row) {
    long k = m == 1 ? clg_nd_row(t, 1, dims, strides)
                    : clg_nd_row(t, m, dims, strides);
    if (k >= 0) {
      global const unit_t *src = plane + (ulong)k * inner;
      for (ulong u = 0; u < len; ++u)
        dst[u] = src[u];
    }
    t += m;
    dst += inner;
    if (++j == n) {
      j = 0;
      plane += s * inner;
    }
  }
}
