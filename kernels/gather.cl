/* Gather (ONNX Gather, TensorFlow batch_dims, numpy.take modes) as a byte
 * copy.
 *
 * data is viewed as [outer][s][inner] copy units and the output as
 * [outer][n][inner] units, where outer = batch * outer_pb and batch bi reads
 * its own n indices, indices[bi * n .. bi * n + n). A unit is CLG_UNIT
 * (uchar .. uint4, 1 to 16 bytes), the widest type the slice size and buffer
 * offsets allow.
 *
 * In mode RAISE every index was validated on the host before this kernel
 * was enqueued; the range check below is only defence in depth (an invalid
 * slice is skipped, never read). WRAP and CLIP map every index into [0, s).
 *
 * Build options (-D): CLG_UNIT (copy unit type), CLG_INDEX (int or long),
 * CLG_ROWS_PER_ITEM (slices per work-item in clg_gather_small), CLG_MODE
 * (CLG_MODE_RAISE, CLG_MODE_WRAP or CLG_MODE_CLIP).
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
#define CLG_MODE_RAISE 0
#define CLG_MODE_WRAP 1
#define CLG_MODE_CLIP 2
#ifndef CLG_MODE
#define CLG_MODE CLG_MODE_RAISE
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

/* The data row an index selects on an axis of size s (s > 0), or -1 if the
 * index is invalid (RAISE only). */
inline long clg_source_row(index_t value, ulong s) {
  long k = (long)value;
#if CLG_MODE == CLG_MODE_WRAP
  k %= (long)s;
  return k < 0 ? k + (long)s : k;
#elif CLG_MODE == CLG_MODE_CLIP
  return k < 0 ? 0 : (ulong)k >= s ? (long)s - 1 : k;
#else
  if (k < 0)
    k += (long)s;
  return (k >= 0 && (ulong)k < s) ? k : -1;
#endif
}

/* Long slices: NDRange (units, slices). Work-items of dim 0 stride over the
 * units of one slice; dim 1 is the output slice o * n + j. */
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

/* Short slices: each work-item copies CLG_ROWS_PER_ITEM consecutive output
 * slices, loading each index once and walking (o, j) without division. */
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

/* CPU devices (POCL and the like): one work-item per contiguous block of the
 * output, work-groups of one work-item, so that each work-item runs plain
 * loops the compiler vectorizes. NDRange (parts, row groups): work-item
 * (p, g) copies units [p * units_per_item, ..) of the slices of output rows
 * [g * rows_per_item, ..). Each index is loaded once per slice and a
 * work-item divides only once, to find its first (o, j). */
kernel void clg_gather_chunk(global const unit_t *restrict data,
                             ulong data_off,
                             global const index_t *restrict indices,
                             ulong indices_off, global unit_t *restrict out,
                             ulong out_off, ulong n, ulong s, ulong inner,
                             ulong outer_pb, ulong rows, ulong rows_per_item,
                             ulong units_per_item CLG_GATE_ARG) {
  CLG_GATE
  ulong r0 = get_global_id(1) * rows_per_item;
  ulong u0 = get_global_id(0) * units_per_item;
  if (r0 >= rows || u0 >= inner)
    return;
  ulong r1 = min(r0 + rows_per_item, rows);
  ulong len = min(units_per_item, inner - u0);
  ulong o = r0 / n;
  ulong j = r0 - o * n;
  global unit_t *dst = out + out_off + r0 * inner + u0;
  for (ulong row = r0; row < r1; j = 0, ++o) {
    ulong cnt = min(n - j, r1 - row);
    global const index_t *idx =
        indices + indices_off + (o / outer_pb) * n + j;
    global const unit_t *plane = data + data_off + o * s * inner + u0;
    for (ulong t = 0; t < cnt; ++t) {
      long k = clg_source_row(idx[t], s);
      if (k >= 0) {
        global const unit_t *src = plane + (ulong)k * inner;
        global unit_t *d = dst + t * inner;
        for (ulong u = 0; u < len; ++u)
          d[u] = src[u];
      }
    }
    dst += cnt * inner;
    row += cnt;
  }
}

/* CPU devices, slices of exactly one unit (last-axis gathers): as
 * clg_gather_chunk with inner == 1 and one part, so that the loop over the
 * indices of an outer row (contiguous index loads and output stores, loads
 * within one data row) vectorizes. */
kernel void clg_gather_chunk1(global const unit_t *restrict data,
                              ulong data_off,
                              global const index_t *restrict indices,
                              ulong indices_off, global unit_t *restrict out,
                              ulong out_off, ulong n, ulong s, ulong inner,
                              ulong outer_pb, ulong rows, ulong rows_per_item,
                              ulong units_per_item CLG_GATE_ARG) {
  CLG_GATE
  ulong r0 = get_global_id(1) * rows_per_item;
  if (r0 >= rows)
    return;
  ulong r1 = min(r0 + rows_per_item, rows);
  ulong o = r0 / n;
  ulong j = r0 - o * n;
  global unit_t *dst = out + out_off + r0;
  for (ulong row = r0; row < r1; j = 0, ++o) {
    ulong cnt = min(n - j, r1 - row);
    global const index_t *idx =
        indices + indices_off + (o / outer_pb) * n + j;
    global const unit_t *plane = data + data_off + o * s;
    for (ulong t = 0; t < cnt; ++t) {
      long k = clg_source_row(idx[t], s);
      if (k >= 0)
        dst[t] = plane[k];
    }
    dst += cnt;
    row += cnt;
  }
}
