/* ONNX Gather as a byte copy.
 *
 * data is viewed as [outer][s][inner] copy units and the output as
 * [outer][n][inner] units; a unit is CLG_UNIT (uchar .. uint4, 1 to 16 bytes),
 * the widest type the slice size and buffer offsets allow. Every index was
 * validated on the host before this kernel was enqueued; the range check
 * below is only defence in depth (an invalid slice is skipped, never read).
 *
 * Build options (-D): CLG_UNIT (copy unit type), CLG_INDEX (int or long),
 * CLG_ROWS_PER_ITEM (slices per work-item in clg_gather_small).
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

typedef CLG_UNIT unit_t;
typedef CLG_INDEX index_t;

/* The data row for output slice (o, j), or -1 if the index is invalid. */
inline long clg_source_row(global const index_t *indices, ulong j, ulong s) {
  long k = (long)indices[j];
  if (k < 0)
    k += (long)s;
  return (k >= 0 && (ulong)k < s) ? k : -1;
}

/* Long slices: NDRange (units, slices). Work-items of dim 0 stride over the
 * units of one slice; dim 1 is the output slice o * n + j. */
kernel void clg_gather_rows(global const unit_t *restrict data, ulong data_off,
                            global const index_t *restrict indices,
                            ulong indices_off, global unit_t *restrict out,
                            ulong out_off, ulong n, ulong s, ulong inner) {
  ulong row = get_global_id(1);
  ulong o = row / n;
  ulong j = row - o * n;
  long k = clg_source_row(indices + indices_off, j, s);
  if (k < 0)
    return;
  global const unit_t *src = data + data_off + (o * s + (ulong)k) * inner;
  global unit_t *dst = out + out_off + row * inner;
  ulong step = get_global_size(0);
  for (ulong u = get_global_id(0); u < inner; u += step)
    dst[u] = src[u];
}

/* Short slices: each work-item copies CLG_ROWS_PER_ITEM consecutive output
 * slices, loading each index once and walking (o, j) without division. */
kernel void clg_gather_small(global const unit_t *restrict data,
                             ulong data_off,
                             global const index_t *restrict indices,
                             ulong indices_off, global unit_t *restrict out,
                             ulong out_off, ulong n, ulong s, ulong inner,
                             ulong rows) {
  ulong r0 = get_global_id(0) * CLG_ROWS_PER_ITEM;
  if (r0 >= rows)
    return;
  ulong r1 = min(r0 + (ulong)CLG_ROWS_PER_ITEM, rows);
  ulong o = r0 / n;
  ulong j = r0 - o * n;
  global const index_t *idx = indices + indices_off;
  global unit_t *dst = out + out_off + r0 * inner;
  for (ulong row = r0; row < r1; ++row) {
    long k = clg_source_row(idx, j, s);
    if (k >= 0) {
      global const unit_t *src = data + data_off + (o * s + (ulong)k) * inner;
      for (ulong u = 0; u < inner; ++u)
        dst[u] = src[u];
    }
    dst += inner;
    if (++j == n) {
      j = 0;
      ++o;
    }
  }
}
