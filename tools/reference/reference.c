/* Plain-C references: what every operator's reference shares. */
#include "reference/reference.h"
#include "reference/ref_scatter.h"

#include <math.h>
#include <stdbool.h>
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

/* ---------------------------------------------------------- the scatters */

/* float16 / bfloat16 <-> float (reference.h): bit exact. */
float ref_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu,
           m = h & 0x3FFu, u;
  if (e == 0x1F)
    u = sign | 0x7F800000u | (m << 13);
  else if (e != 0)
    u = sign | ((e + 112u) << 23) | (m << 13);
  else if (m == 0)
    u = sign;
  else { /* subnormal: normalise */
    int shift = 0;
    while (!(m & 0x400u)) {
      m <<= 1;
      ++shift;
    }
    u = sign | ((uint32_t)(113 - shift) << 23) | ((m & 0x3FFu) << 13);
  }
  float f;
  memcpy(&f, &u, 4);
  return f;
}

uint16_t ref_float_to_half(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t e = (u >> 23) & 0xFFu, m = u & 0x7FFFFFu;
  if (e == 0xFF)
    return (uint16_t)(sign | 0x7C00u | (m ? 0x200u | (m >> 13) : 0u));
  int32_t he = (int32_t)e - 127 + 15;
  if (he >= 0x1F)
    return (uint16_t)(sign | 0x7C00u); /* overflow: inf */
  if (he <= 0) { /* subnormal or zero: shift in the implicit bit */
    if (he < -10)
      return sign;
    uint32_t mant = m | 0x800000u;
    uint32_t shift = (uint32_t)(14 - he);
    uint32_t half = mant >> shift, rest = mant & ((1u << shift) - 1u),
             mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1u)))
      ++half;
    return (uint16_t)(sign | half);
  }
  uint32_t half = ((uint32_t)he << 10) | (m >> 13), rest = m & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half; /* may carry into the exponent, up to inf: correct */
  return (uint16_t)(sign | half);
}

float ref_canon_f(float f) {
  if (!isnan(f))
    return f;
  uint32_t u = 0x7FC00000u;
  memcpy(&f, &u, 4);
  return f;
}

double ref_canon_d(double d) {
  if (!isnan(d))
    return d;
  uint64_t u = 0x7FF8000000000000u;
  memcpy(&d, &u, 8);
  return d;
}

float ref_bf16_to_float(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

uint16_t ref_float_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if (isnan(f))
    return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

#define REF_MINMAX(T, red, a, b)                                               \
  ((red) == REF_RED_MIN ? (((a) <= (b)) ? (a) : (b))                           \
                        : (((a) >= (b)) ? (a) : (b)))

/* min / max of floating-point values, every float type alike (the
 * library's tie rule, include/clgather/clgather.h): 1 keeps the element a,
 * 0 takes the update b. A NaN element stays; else a NaN update is taken;
 * else the smaller (larger), -0 below +0 (IEEE 754-2019 minimum and
 * maximum): the result depends on the values only. */
#define REF_FKEEP(red, a, b)                                                   \
  (isnan(a) ||                                                                 \
   (!isnan(b) && ((red) == REF_RED_MIN                                         \
                      ? ((a) < (b) || ((a) == (b) && signbit(a)))              \
                      : ((a) > (b) || ((a) == (b) && !signbit(a))))))

#define REF_INT_STEP(T, U)                                                     \
  do {                                                                         \
    T x, y;                                                                    \
    memcpy(&x, a, sizeof x);                                                   \
    memcpy(&y, b, sizeof y);                                                   \
    /* in unsigned long long: no promotion to int, no overflow */            \
    unsigned long long ux = (U)x, uy = (U)y;                                   \
    T z = red == REF_RED_ADD   ? (T)(U)(ux + uy)                               \
          : red == REF_RED_MUL ? (T)(U)(ux * uy)                               \
                               : REF_MINMAX(T, red, x, y);                     \
    memcpy(a, &z, sizeof z);                                                   \
  } while (0)

int ref_scatter_apply(clg_dtype dtype, ref_reduction red, void *a,
                      const void *b) {
  size_t es = clg_dtype_size(dtype);
  if (red == REF_RED_NONE) {
    memmove(a, b, es);
    return REF_OK;
  }
  switch (dtype) {
  case CLG_DTYPE_FLOAT: {
    float x, y, z;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    if (red == REF_RED_ADD)
      z = ref_canon_f(x + y);
    else if (red == REF_RED_MUL)
      z = ref_canon_f(x * y);
    else
      z = REF_FKEEP(red, x, y) ? x : y;
    memcpy(a, &z, 4);
    return REF_OK;
  }
  case CLG_DTYPE_DOUBLE: {
    double x, y, z;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if (red == REF_RED_ADD)
      z = ref_canon_d(x + y);
    else if (red == REF_RED_MUL)
      z = ref_canon_d(x * y);
    else
      z = REF_FKEEP(red, x, y) ? x : y;
    memcpy(a, &z, 8);
    return REF_OK;
  }
  case CLG_DTYPE_FLOAT16:
  case CLG_DTYPE_BFLOAT16: {
    bool h = dtype == CLG_DTYPE_FLOAT16;
    uint16_t hx, hy, hz;
    memcpy(&hx, a, 2);
    memcpy(&hy, b, 2);
    float x = h ? ref_half_to_float(hx) : ref_bf16_to_float(hx);
    float y = h ? ref_half_to_float(hy) : ref_bf16_to_float(hy);
    if (red == REF_RED_ADD || red == REF_RED_MUL) {
      float z = ref_canon_f(red == REF_RED_ADD ? x + y : x * y);
      hz = h ? ref_float_to_half(z) : ref_float_to_bf16(z);
    } else
      hz = REF_FKEEP(red, x, y) ? hx : hy;
    memcpy(a, &hz, 2);
    return REF_OK;
  }
  case CLG_DTYPE_INT8: REF_INT_STEP(int8_t, uint8_t); return REF_OK;
  case CLG_DTYPE_UINT8: REF_INT_STEP(uint8_t, uint8_t); return REF_OK;
  case CLG_DTYPE_INT16: REF_INT_STEP(int16_t, uint16_t); return REF_OK;
  case CLG_DTYPE_UINT16: REF_INT_STEP(uint16_t, uint16_t); return REF_OK;
  case CLG_DTYPE_INT32: REF_INT_STEP(int32_t, uint32_t); return REF_OK;
  case CLG_DTYPE_UINT32: REF_INT_STEP(uint32_t, uint32_t); return REF_OK;
  case CLG_DTYPE_INT64: REF_INT_STEP(int64_t, uint64_t); return REF_OK;
  case CLG_DTYPE_UINT64: REF_INT_STEP(uint64_t, uint64_t); return REF_OK;
  case CLG_DTYPE_BOOL: {
    uint8_t x = *(uint8_t *)a, y = *(const uint8_t *)b;
    *(uint8_t *)a = (uint8_t)(red == REF_RED_ADD || red == REF_RED_MAX
                                  ? (x | y)
                                  : (x & y));
    return REF_OK;
  }
  case CLG_DTYPE_COMPLEX64:
  case CLG_DTYPE_COMPLEX128: {
    if (red == REF_RED_MIN || red == REF_RED_MAX)
      return REF_UNSUPPORTED;
    if (dtype == CLG_DTYPE_COMPLEX64) {
      float x[2], y[2], z[2];
      memcpy(x, a, 8);
      memcpy(y, b, 8);
      if (red == REF_RED_ADD) {
        z[0] = x[0] + y[0];
        z[1] = x[1] + y[1];
      } else {
        float re1 = x[0] * y[0], re2 = x[1] * y[1], im1 = x[0] * y[1],
              im2 = x[1] * y[0];
        z[0] = re1 - re2;
        z[1] = im1 + im2;
      }
      z[0] = ref_canon_f(z[0]);
      z[1] = ref_canon_f(z[1]);
      memcpy(a, z, 8);
    } else {
      double x[2], y[2], z[2];
      memcpy(x, a, 16);
      memcpy(y, b, 16);
      if (red == REF_RED_ADD) {
        z[0] = x[0] + y[0];
        z[1] = x[1] + y[1];
      } else {
        double re1 = x[0] * y[0], re2 = x[1] * y[1], im1 = x[0] * y[1],
               im2 = x[1] * y[0];
        z[0] = re1 - re2;
        z[1] = im1 + im2;
      }
      z[0] = ref_canon_d(z[0]);
      z[1] = ref_canon_d(z[1]);
      memcpy(a, z, 16);
    }
    return REF_OK;
  }
  default: return REF_UNSUPPORTED;
  }
}

/* The first repeated target, by the smallest later entry: O(n^2), fine for
 * test sizes. */
int ref_scatter_first_repeat(const int64_t *t, int64_t n, int64_t *first,
                             int64_t *later) {
  for (int64_t j = 1; j < n; ++j)
    for (int64_t i = 0; i < j; ++i)
      if (t[i] == t[j]) {
        *first = i;
        *later = j;
        return 1;
      }
  return 0;
}
