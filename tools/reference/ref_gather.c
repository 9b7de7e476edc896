/* Plain-C reference of ONNX Gather (with batch_dims and index modes). */
#include "reference/reference.h"

#include <string.h>

int ref_gather_shape(int32_t r, const int64_t *data_shape, int32_t q,
                     const int64_t *indices_shape, int64_t axis,
                     int32_t max_out_rank, int32_t *out_rank,
                     int64_t *out_shape) {
  if (r < 1 || q < 0 || r > REF_MAX_RANK || q > REF_MAX_RANK)
    return -1;
  if (axis < -(int64_t)r || axis > (int64_t)r - 1)
    return -1;
  for (int32_t i = 0; i < r; ++i)
    if (data_shape[i] < 0)
      return -1;
  for (int32_t i = 0; i < q; ++i)
    if (indices_shape[i] < 0)
      return -1;
  int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
  int32_t orank = q + r - 1;
  if (orank > max_out_rank || orank > REF_MAX_RANK)
    return -1;
  int32_t k = 0;
  for (int32_t i = 0; i < a; ++i)
    out_shape[k++] = data_shape[i];
  for (int32_t i = 0; i < q; ++i)
    out_shape[k++] = indices_shape[i];
  for (int32_t i = a + 1; i < r; ++i)
    out_shape[k++] = data_shape[i];
  *out_rank = orank;
  return 0;
}

int ref_gather(const void *data, size_t esize, int32_t r,
               const int64_t *data_shape, const void *indices,
               ref_index_type type, int32_t q, const int64_t *indices_shape,
               int64_t axis, void *out) {
  int32_t orank;
  int64_t oshape[REF_MAX_RANK];
  if (ref_gather_shape(r, data_shape, q, indices_shape, axis, REF_MAX_RANK,
                       &orank, oshape) != 0)
    return -1;
  int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
  int64_t s = data_shape[a];
  int64_t total = ref_numel(orank, oshape);
  if (total == 0)
    return 0;

  /* Row-major strides of data and indices, in elements. */
  int64_t dstride[REF_MAX_RANK], istride[REF_MAX_RANK];
  int64_t acc = 1;
  for (int32_t i = r - 1; i >= 0; --i) {
    dstride[i] = acc;
    acc *= data_shape[i];
  }
  acc = 1;
  for (int32_t i = q - 1; i >= 0; --i) {
    istride[i] = acc;
    acc *= indices_shape[i];
  }

  int64_t o[REF_MAX_RANK] = {0}; /* output multi-index, C-order odometer */
  const unsigned char *src = data;
  unsigned char *dst = out;
  for (int64_t n = 0; n < total; ++n) {
    /* output[o] = data[o[:a], k, o[a+q:]] with k = indices[o[a:a+q]]. */
    int64_t iflat = 0;
    for (int32_t j = 0; j < q; ++j)
      iflat += o[a + j] * istride[j];
    int64_t k = ref_index_at(indices, type, iflat);
    if (k < -s || k > s - 1)
      return -1;
    if (k < 0)
      k += s;
    int64_t dflat = 0;
    for (int32_t j = 0; j < a; ++j)
      dflat += o[j] * dstride[j];
    dflat += k * dstride[a];
    for (int32_t j = a + 1; j < r; ++j)
      dflat += o[j + q - 1] * dstride[j];
    memcpy(dst + (size_t)n * esize, src + (size_t)dflat * esize, esize);

    for (int32_t j = orank - 1; j >= 0; --j) {
      if (++o[j] < oshape[j])
        break;
      o[j] = 0;
    }
  }
  return 0;
}

int ref_gather_ex_shape(int32_t r, const int64_t *data_shape, int32_t q,
                        const int64_t *indices_shape, int64_t axis,
                        int64_t batch_dims, int32_t *out_rank,
                        int64_t *out_shape) {
  if (r < 1 || q < 0 || r > REF_MAX_RANK || q > REF_MAX_RANK)
    return -1;
  if (axis < -(int64_t)r || axis >= r || batch_dims < -(int64_t)q ||
      batch_dims > q)
    return -1;
  int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
  int32_t b = (int32_t)(batch_dims < 0 ? batch_dims + q : batch_dims);
  if (b > a)
    return -1;
  for (int32_t i = 0; i < b; ++i)
    if (data_shape[i] != indices_shape[i])
      return -1;
  int32_t orank = r - 1 + q - b;
  if (orank > REF_MAX_RANK)
    return -1;
  int32_t k = 0;
  for (int32_t i = 0; i < a; ++i)
    out_shape[k++] = data_shape[i];
  for (int32_t i = b; i < q; ++i)
    out_shape[k++] = indices_shape[i];
  for (int32_t i = a + 1; i < r; ++i)
    out_shape[k++] = data_shape[i];
  *out_rank = orank;
  return 0;
}

int ref_gather_ex(const void *data, size_t esize, int32_t r,
                  const int64_t *data_shape, const void *indices,
                  ref_index_type type, int32_t q, const int64_t *indices_shape,
                  int64_t axis, int64_t batch_dims, ref_mode mode, void *out,
                  int32_t *out_rank, int64_t *out_shape) {
  if (ref_gather_ex_shape(r, data_shape, q, indices_shape, axis, batch_dims,
                          out_rank, out_shape) != 0)
    return -1;
  int32_t orank = *out_rank;
  int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
  int32_t b = (int32_t)(batch_dims < 0 ? batch_dims + q : batch_dims);
  int64_t s = data_shape[a];
  int64_t total = ref_numel(orank, out_shape);
  if (total == 0)
    return 0;
  int64_t o[REF_MAX_RANK] = {0};
  const unsigned char *src = data;
  unsigned char *dst = out;
  for (int64_t n = 0; n < total; ++n) {
    /* The index element: batch coordinates o[0..b), then o[a..a+q-b). */
    int64_t iflat = 0;
    for (int32_t j = 0; j < q; ++j) {
      int64_t c = j < b ? o[j] : o[a + (j - b)];
      iflat = iflat * indices_shape[j] + c;
    }
    int64_t v = ref_index_at(indices, type, iflat);
    if (s == 0)
      return -1;
    if (mode == REF_WRAP) {
      v %= s;
      if (v < 0)
        v += s;
    } else if (mode == REF_CLIP) {
      v = v < 0 ? 0 : v > s - 1 ? s - 1 : v;
    } else {
      if (v < -s || v > s - 1)
        return -1;
      if (v < 0)
        v += s;
    }
    /* The data element: o[0..a), v, then the trailing output coordinates. */
    int64_t dflat = 0;
    for (int32_t j = 0; j < r; ++j) {
      int64_t c = j < a ? o[j] : j == a ? v : o[j - a - 1 + a + (q - b)];
      dflat = dflat * data_shape[j] + c;
    }
    memcpy(dst + (size_t)n * esize, src + (size_t)dflat * esize, esize);
    for (int32_t j = orank - 1; j >= 0; --j) {
      if (++o[j] < out_shape[j])
        break;
      o[j] = 0;
    }
  }
  return 0;
}
