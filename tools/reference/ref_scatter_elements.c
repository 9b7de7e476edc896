/* Plain-C reference of ONNX ScatterElements (and Scatter, opset 9): entry
 * idx, in the C order of indices, updates output[idx with idx[axis] =
 * indices[idx]]. */
#include "reference/ref_scatter.h"

#include <stdlib.h>
#include <string.h>

int ref_scatter_elements(void *out, clg_dtype dtype, int32_t r,
                         const int64_t *data_shape, const void *indices,
                         ref_index_type itype, const int64_t *indices_shape,
                         const void *updates, int64_t axis, ref_reduction red,
                         int dup_last, int64_t *bad_pos, int64_t *first_pos) {
  if (r < 1 || r > REF_MAX_RANK || axis < -r || axis >= r)
    return REF_BAD_SHAPE;
  int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
  for (int32_t d = 0; d < r; ++d)
    if (d != a && indices_shape[d] > data_shape[d])
      return REF_BAD_SHAPE;
  size_t es = clg_dtype_size(dtype);
  int64_t n = ref_numel(r, indices_shape), s = data_shape[a];
  int64_t *t = malloc((size_t)(n ? n : 1) * sizeof *t);
  if (!t)
    return REF_BAD_SHAPE;
  /* targets, checking every index first */
  for (int64_t e = 0; e < n; ++e) {
    int64_t v = ref_index_at(indices, itype, e);
    if (v < -s || v >= s) {
      *bad_pos = e;
      free(t);
      return REF_OOB;
    }
    if (v < 0)
      v += s;
    int64_t rest = e, flat = 0, mul = 1;
    for (int32_t d = r - 1; d >= 0; --d) {
      int64_t c = rest % indices_shape[d];
      rest /= indices_shape[d];
      flat += (d == a ? v : c) * mul;
      mul *= data_shape[d];
    }
    t[e] = flat;
  }
  if (red == REF_RED_NONE && !dup_last &&
      ref_scatter_first_repeat(t, n, first_pos, bad_pos)) {
    free(t);
    return REF_DUPLICATE;
  }
  unsigned char *o = out;
  const unsigned char *u = updates;
  for (int64_t e = 0; e < n; ++e)
    if (ref_scatter_apply(dtype, red, o + (size_t)t[e] * es,
                          u + (size_t)e * es) != REF_OK) {
      free(t);
      return REF_UNSUPPORTED;
    }
  free(t);
  return REF_OK;
}
