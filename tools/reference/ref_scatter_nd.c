/* Plain-C reference of ONNX ScatterND: tuple i, in the C order of
 * indices.shape[:-1], updates the slice output[indices[i]] with
 * updates[i]. */
#include "reference/ref_scatter.h"

#include <stdlib.h>
#include <string.h>

int ref_scatter_nd(void *out, clg_dtype dtype, int32_t r,
                   const int64_t *data_shape, const void *indices,
                   ref_index_type itype, int32_t q,
                   const int64_t *indices_shape, const void *updates,
                   ref_reduction red, int dup_last, int64_t *bad_pos,
                   int64_t *first_pos) {
  if (q < 1 || r < 1)
    return REF_BAD_SHAPE;
  int64_t k = indices_shape[q - 1];
  if (k < 1 || k > r)
    return REF_BAD_SHAPE;
  size_t es = clg_dtype_size(dtype);
  int64_t n = ref_numel(q - 1, indices_shape);
  int64_t inner = ref_numel(r - (int32_t)k, data_shape + k);
  int64_t *t = malloc((size_t)(n ? n : 1) * sizeof *t);
  if (!t)
    return REF_BAD_SHAPE;
  for (int64_t e = 0; e < n; ++e) {
    int64_t flat = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t v = ref_index_at(indices, itype, e * k + j), s = data_shape[j];
      if (v < -s || v >= s) {
        *bad_pos = e * k + j;
        free(t);
        return REF_OOB;
      }
      flat = flat * s + (v < 0 ? v + s : v);
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
    for (int64_t i = 0; i < inner; ++i)
      if (ref_scatter_apply(dtype, red, o + (size_t)(t[e] * inner + i) * es,
                            u + (size_t)(e * inner + i) * es) != REF_OK) {
        free(t);
        return REF_UNSUPPORTED;
      }
  free(t);
  return REF_OK;
}
