/* What every case description shares (case.h): the random source, the
 * device's properties, the expected messages. */
#define _POSIX_C_SOURCE 200809L
#include "cases/case.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

case_rng case_rng_make(uint64_t seed) {
  case_rng r = {seed ^ 0x9E3779B97F4A7C15ull};
  return r;
}

uint64_t case_rng_u64(case_rng *rng) {
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t case_rng_range(case_rng *rng, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u;
  if (span == 0) /* the whole range */
    return (int64_t)case_rng_u64(rng);
  return (int64_t)((uint64_t)lo + case_rng_u64(rng) % span);
}

void case_rng_bytes(case_rng *rng, void *dst, size_t n) {
  unsigned char *p = dst;
  while (n >= 8) {
    uint64_t v = case_rng_u64(rng);
    memcpy(p, &v, 8);
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t v = case_rng_u64(rng);
    memcpy(p, &v, n);
  }
}

void case_set_index(void *dst, clg_dtype idt, int64_t pos, int64_t v) {
  unsigned char *p = dst;
  if (idt == CLG_DTYPE_INT32) {
    int32_t x = (int32_t)v;
    memcpy(p + 4 * (size_t)pos, &x, 4);
  } else
    memcpy(p + 8 * (size_t)pos, &v, 8);
}

void case_fill_indices(case_rng *rng, void *dst, clg_dtype idt, int64_t count,
                       int64_t s, case_index_draw draw) {
  for (int64_t i = 0; i < count; ++i) {
    int64_t v = 0;
    switch (draw) {
    case CASE_INDEX_ANY: v = case_rng_range(rng, -s, s - 1); break;
    case CASE_INDEX_NONNEG: v = case_rng_range(rng, 0, s - 1); break;
    case CASE_INDEX_NEG: v = case_rng_range(rng, -s, -1); break;
    case CASE_INDEX_EDGES: {
      const int64_t edges[4] = {-s, -1, 0, s - 1};
      v = edges[case_rng_range(rng, 0, 3)];
      break;
    }
    case CASE_INDEX_WILD: {
      int64_t lo = idt == CLG_DTYPE_INT32 ? INT32_MIN : INT64_MIN;
      int64_t hi = idt == CLG_DTYPE_INT32 ? INT32_MAX : INT64_MAX;
      const int64_t far[6] = {lo, hi, -s - 1, s, 3 * s + 1, -5 * s - 2};
      int64_t pick = case_rng_range(rng, 0, 9);
      v = pick < 6 ? far[pick] : case_rng_range(rng, -4 * s, 4 * s);
      break;
    }
    }
    case_set_index(dst, idt, i, v);
  }
}

const char *case_storage_str(case_storage s, char *buf, size_t cap) {
  if (s.kind == CLG_STORAGE_BUFFER)
    snprintf(buf, cap, "buffer+%zu%s", s.offset, s.tight ? "(tight)" : "");
  else
    snprintf(buf, cap, "host%s", s.null_empty ? "(null-if-empty)" : "");
  return buf;
}

int case_device_query(cl_device_id device, case_device *out) {
  memset(out, 0, sizeof *out);
  if (device == NULL)
    return -1;
  char ext[8192] = {0};
  out->fp64 = clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof ext - 1,
                              ext, NULL) == CL_SUCCESS &&
              strstr(ext, "cl_khr_fp64") != NULL;
  cl_device_fp_config single = 0, dbl = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof single,
                      &single, NULL) != CL_SUCCESS)
    single = 0;
  if (out->fp64 && clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG,
                                   sizeof dbl, &dbl, NULL) != CL_SUCCESS)
    dbl = 0;
  out->single_denorm = (single & CL_FP_DENORM) != 0;
  out->double_denorm = (dbl & CL_FP_DENORM) != 0;
  out->single_cr_divide = (single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  return 0;
}

const char *case_shape_str(int32_t rank, const int64_t *shape, char *buf,
                           size_t cap) {
  size_t k = 0;
  int n = snprintf(buf, cap, "[");
  k = n > 0 ? (size_t)n : 0;
  for (int32_t i = 0; i < rank && k < cap; ++i) {
    n = snprintf(buf + k, cap - k, "%s%" PRId64, i ? ", " : "", shape[i]);
    if (n > 0)
      k += (size_t)n;
  }
  if (k < cap)
    snprintf(buf + k, cap - k, "]");
  return buf;
}

ref_index_type case_ref_index_type(clg_dtype idt) {
  return idt == CLG_DTYPE_INT32 ? REF_INDEX_I32 : REF_INDEX_I64;
}

static bool contains_ci(const char *hay, const char *needle, size_t n);

bool case_contains_ci(const char *hay, const char *needle) {
  return hay != NULL && contains_ci(hay, needle, strlen(needle));
}

static bool contains_ci(const char *hay, const char *needle, size_t n) {
  for (const char *p = hay; *p; ++p) {
    size_t i = 0;
    while (i < n && p[i] &&
           tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i]))
      ++i;
    if (i == n)
      return true;
  }
  return n == 0;
}

bool case_message_has(const char *msg, const char *needles) {
  if (needles == NULL || needles[0] == '\0')
    return true;
  if (msg == NULL)
    return false;
  /* Items end at ';', alternatives at '|' (no copy: lengths). */
  const char *item = needles;
  while (*item) {
    size_t ilen = strcspn(item, ";");
    const char *end = item + ilen;
    bool any = ilen == 0;
    for (const char *alt = item; alt < end && !any;) {
      size_t alen = 0;
      while (alt + alen < end && alt[alen] != '|')
        ++alen;
      any = alen > 0 && contains_ci(msg, alt, alen);
      alt += alen + 1;
    }
    if (!any)
      return false;
    item += ilen + (item[ilen] == ';' ? 1 : 0);
  }
  return true;
}

bool case_message_has_int(const char *msg, int64_t v) {
  if (msg == NULL)
    return false;
  char num[32];
  snprintf(num, sizeof num, "%" PRId64, v);
  size_t n = strlen(num);
  for (const char *p = strstr(msg, num); p; p = strstr(p + 1, num)) {
    bool before_ok = p == msg || !isdigit((unsigned char)p[-1]);
    if (v >= 0 && p != msg && p[-1] == '-')
      before_ok = false;
    bool after_ok = !isdigit((unsigned char)p[n]);
    if (before_ok && after_ok)
      return true;
  }
  return false;
}
