/* Plain-C reference of ONNX GatherND. */
#include "reference/reference.h"

#include <string.h>

/* ---------------------------------------------------------- GatherND */

int ref_gather_nd_shape(int32_t r, const int64_t *data_shape, int32_t q,
                        const int64_t *indices_shape, int64_t batch_dims,
                        int32_t max_out_rank, int32_t *out_rank,
                        int64_t *out_shape) {
  if (r < 1 || q < 1 || r > REF_MAX_RANK || q > REF_MAX_RANK)
    return -1;
  for (int32_t i = 0; i < r; ++i)
    if (data_shape[i] < 0)
      return -1;
  for (int32_t i = 0; i < q; ++i)
    if (indices_shape[i] < 0)
      return -1;
  int32_t lim = r < q ? r : q;
  if (batch_dims < 0 || batch_dims >= lim)
    return -1;
  int32_t b = (int32_t)batch_dims;
  int64_t m = indices_shape[q - 1];
  if (m < 1 || m > r - b)
    return -1;
  for (int32_t i = 0; i < b; ++i)
    if (data_shape[i] != indices_shape[i])
      return -1;
  int32_t orank = q - 1 + r - b - (int32_t)m;
  if (orank > max_out_rank || orank > REF_MAX_RANK)
    return -1;
  int32_t k = 0;
  for (int32_t i = 0; i < q - 1; ++i)
    out_shape[k++] = indices_shape[i];
  for (int32_t i = b + (int32_t)m; i < r; ++i)
    out_shape[k++] = data_shape[i];
  *out_rank = orank;
  return 0;
}

int ref_gather_nd(const void *data, size_t esize, int32_t r,
                  const int64_t *data_shape, const void *indices,
                  ref_index_type type, int32_t q, const int64_t *indices_shape,
                  int64_t batch_dims, void *out) {
  int32_t orank;
  int64_t oshape[REF_MAX_RANK];
  if (ref_gather_nd_shape(r, data_shape, q, indices_shape, batch_dims,
                          REF_MAX_RANK, &orank, oshape) != 0)
    return -1;
  int32_t b = (int32_t)batch_dims;
  int32_t m = (int32_t)indices_shape[q - 1];
  int64_t total = ref_numel(orank, oshape);
  int64_t o[REF_MAX_RANK] = {0}; /* output multi-index */
  const unsigned char *src = data;
  unsigned char *dst = out;
  for (int64_t n = 0; n < total; ++n) {
    /* The tuple: indices[o(0)..o(q-2), :]. */
    int64_t tflat = 0;
    for (int32_t j = 0; j < q - 1; ++j)
      tflat = tflat * indices_shape[j] + o[j];
    tflat *= m;
    /* The data element: batch coords o(0..b-1), the m components, then the
     * trailing output coords o(q-1..). */
    int64_t dflat = 0;
    for (int32_t j = 0; j < r; ++j) {
      int64_t c;
      if (j < b) {
        c = o[j];
      } else if (j < b + m) {
        int64_t d = data_shape[j];
        c = ref_index_at(indices, type, tflat + (j - b));
        if (c < -d || c > d - 1)
          return -1;
        if (c < 0)
          c += d;
      } else {
        c = o[q - 1 + (j - b - m)];
      }
      dflat = dflat * data_shape[j] + c;
    }
    memcpy(dst + (size_t)n * esize, src + (size_t)dflat * esize, esize);
    for (int32_t j = orank - 1; j >= 0; --j) {
      if (++o[j] < oshape[j])
        break;
      o[j] = 0;
    }
  }
  return 0;
}
