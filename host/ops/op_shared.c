/* What several operators share (ops/op.h): copy units and their OpenCL C
 * types (every operator's kernels copy in units), and the flat positions of
 * GatherElements' and ScatterElements' entries. An operator's file uses
 * these and never another operator's file. */
#include "ops/op.h"

#include <string.h>

size_t clg__copy_unit_max(uint64_t bytes, size_t align_a, size_t align_b,
                          size_t max) {
  size_t unit = max;
  while (unit > 1 && (bytes % unit || align_a % unit || align_b % unit))
    unit /= 2;
  return unit;
}

size_t clg__copy_unit(uint64_t bytes, size_t align_a, size_t align_b) {
  return clg__copy_unit_max(bytes, align_a, align_b, 16);
}

const char *clg__unit_type(size_t unit_bytes) {
  switch (unit_bytes) {
  case 64: return "uint16";
  case 32: return "uint8";
  case 16: return "uint4";
  case 8: return "uint2";
  case 4: return "uint";
  case 2: return "ushort";
  default: return "uchar";
  }
}

/* The targets of one run of `len` entries along the innermost dimension,
 * starting at entry e0 whose offset without the axis' term is `base`:
 * a tight loop per index type. `inner_axis`: the innermost dimension is the
 * axis (the value is the coordinate), else the value's term is v * sa and
 * the coordinate's is j. */
#define CLG_ELEMENTS_RUN(T)                                                    \
  do {                                                                         \
    const unsigned char *src = (const unsigned char *)values + e0 * sizeof(T); \
    for (int64_t j = 0; j < len; ++j) {                                        \
      T raw;                                                                   \
      memcpy(&raw, src + (size_t)j * sizeof(T), sizeof raw);                   \
      int64_t v = (int64_t)raw;                                                \
      v += v < 0 ? s : 0;                                                      \
      t[e0 + (size_t)j] = inner_axis ? base + v : base + v * sa + j;           \
    }                                                                          \
  } while (0)

/* An odometer over the outer dimensions (no division), a tight loop along
 * the innermost one. */
void clg__elements_positions(const clg_params *norm, const clg_tensor *data,
                             const clg_tensor *indices, const void *values,
                             size_t index_size, int64_t *t) {
  int32_t r = indices->rank, a = (int32_t)norm->axis, last = r - 1;
  int64_t stride[CLG_MAX_RANK] = {0}, coord[CLG_MAX_RANK] = {0};
  int64_t acc = 1;
  for (int32_t d = r - 1; d >= 0; --d) {
    stride[d] = acc;
    acc *= data->shape[d];
  }
  int64_t s = data->shape[a], sa = stride[a], len = indices->shape[last];
  bool inner_axis = a == last;
  size_t runs = 1;
  for (int32_t d = 0; d < last; ++d)
    runs *= (size_t)indices->shape[d];
  if (len == 0)
    return;
  int64_t base = 0; /* the offset of the run's first entry, axis term aside */
  for (size_t run = 0; run < runs; ++run) {
    size_t e0 = run * (size_t)len;
    if (index_size == 8)
      CLG_ELEMENTS_RUN(int64_t);
    else
      CLG_ELEMENTS_RUN(int32_t);
    for (int32_t d = last - 1; d >= 0; --d) { /* the next run */
      if (d != a)
        base += stride[d];
      if (++coord[d] < indices->shape[d])
        break;
      if (d != a)
        base -= stride[d] * coord[d];
      coord[d] = 0;
    }
  }
}

clg_status clg__fp_config(const clg_context *ctx, bool dbl,
                          cl_device_fp_config *fp) {
  *fp = 0;
  cl_int err = clGetDeviceInfo(ctx->device,
                               dbl ? CL_DEVICE_DOUBLE_FP_CONFIG
                                   : CL_DEVICE_SINGLE_FP_CONFIG,
                               sizeof *fp, fp, NULL);
  if (err != CL_SUCCESS)
    return clg__fail_cl(
        err, "clGetDeviceInfo",
        dbl ? "reading the device's CL_DEVICE_DOUBLE_FP_CONFIG"
            : "reading the device's CL_DEVICE_SINGLE_FP_CONFIG");
  return CLG_SUCCESS;
}
