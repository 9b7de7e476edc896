/* Plain-C references: what every operator's reference shares. */
#include "support/reference.h"

#include <string.h>

int64_t ref_numel(int32_t rank, const int64_t *shape) {
  int64_t n = 1;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] == 0)
      return 0;
  }
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] > 0 && n > INT64_MAX / shape[i])
      return INT64_MAX;
    n *= shape[i];
  }
  return n;
}

int64_t ref_index_at(const void *indices, ref_index_type type, int64_t i) {
  if (type == REF_INDEX_I32) {
    int32_t v;
    memcpy(&v, (const unsigned char *)indices + (size_t)i * sizeof v, sizeof v);
    return v;
  }
  int64_t v;
  memcpy(&v, (const unsigned char *)indices + (size_t)i * sizeof v, sizeof v);
  return v;
}

int64_t ref_first_oob(const void *indices, ref_index_type type, int64_t count,
                      int64_t s) {
  for (int64_t i = 0; i < count; ++i) {
    int64_t k = ref_index_at(indices, type, i);
    if (k < -s || k > s - 1)
      return i;
  }
  return -1;
}
