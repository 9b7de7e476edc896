/* Plain-C reference of ONNX GatherElements. */
#include "reference/reference.h"

#include <string.h>

/* ---------------------------------------------------- GatherElements */

int ref_gather_elements_shape(int32_t r, const int64_t *data_shape, int32_t q,
                              const int64_t *indices_shape, int64_t axis,
                              int32_t *out_rank, int64_t *out_shape) {
  if (r < 1 || r > REF_MAX_RANK || q != r)
    return -1;
  if (axis < -(int64_t)r || axis > (int64_t)r - 1)
    return -1;
  int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
  for (int32_t i = 0; i < r; ++i) {
    if (data_shape[i] < 0 || indices_shape[i] < 0)
      return -1;
    if (i != a && indices_shape[i] > data_shape[i])
      return -1;
  }
  for (int32_t i = 0; i < r; ++i)
    out_shape[i] = indices_shape[i];
  *out_rank = r;
  return 0;
}

int ref_gather_elements(const void *data, size_t esize, int32_t r,
                        const int64_t *data_shape, const void *indices,
                        ref_index_type type, int32_t q,
                        const int64_t *indices_shape, int64_t axis,
                        void *out) {
  int32_t orank;
  int64_t oshape[REF_MAX_RANK];
  if (ref_gather_elements_shape(r, data_shape, q, indices_shape, axis, &orank,
                                oshape) != 0)
    return -1;
  int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
  int64_t s = data_shape[a];
  int64_t total = ref_numel(orank, oshape);
  int64_t c[REF_MAX_RANK] = {0}; /* output (= indices) multi-index */
  const unsigned char *src = data;
  unsigned char *dst = out;
  for (int64_t n = 0; n < total; ++n) {
    int64_t k = ref_index_at(indices, type, n);
    if (k < -s || k > s - 1)
      return -1;
    if (k < 0)
      k += s;
    int64_t dflat = 0;
    for (int32_t j = 0; j < r; ++j)
      dflat = dflat * data_shape[j] + (j == a ? k : c[j]);
    memcpy(dst + (size_t)n * esize, src + (size_t)dflat * esize, esize);
    for (int32_t j = r - 1; j >= 0; --j) {
      if (++c[j] < oshape[j])
        break;
      c[j] = 0;
    }
  }
  return 0;
}
