/* Input decoding shared by the API harnesses (fuzz_gather, fuzz_family):
 * bytes to small dims, wild dims, ranks and element types; and the
 * oracle's classification of a descriptor's size. Changing it changes what every
 * committed corpus input means. */
#ifndef CLGATHER_TESTS_FUZZ_DECODE_H
#define CLGATHER_TESTS_FUZZ_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather.h>


typedef struct fz_in {
  const uint8_t *p;
  size_t n;
} fz_in;

static inline uint8_t take8(fz_in *in) {
  if (in->n == 0)
    return 0;
  in->n--;
  return *in->p++;
}

static inline uint64_t take64(fz_in *in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v = v << 8 | take8(in);
  return v;
}

static const int64_t wild[16] = {
    INT64_MAX,           INT64_MIN,           -1,
    -2,                  (int64_t)1 << 31,    (int64_t)1 << 32,
    (int64_t)1 << 62,    3037000500,          4294967297,
    (int64_t)1 << 60,    65536,               1000000007,
    (int64_t)1 << 61,    4097,                0,
    1};

static inline int64_t take_dim(fz_in *in) {
  uint8_t b = take8(in);
  if (b < 200)
    return b % 5;
  if (b < 232)
    return b % 17;
  return wild[b % 16];
}

/* Mostly [lo, lo + span), sometimes -3 .. 27. */
static inline int32_t take_rank(fz_in *in, int32_t lo, int32_t span) {
  uint8_t b = take8(in);
  if (b < 240)
    return lo + b % span;
  return (int32_t)(b - 240) * 2 - 3;
}


static const clg_dtype fixed_types[15] = {
    CLG_DTYPE_FLOAT,     CLG_DTYPE_UINT8,      CLG_DTYPE_INT8,
    CLG_DTYPE_UINT16,    CLG_DTYPE_INT16,      CLG_DTYPE_INT32,
    CLG_DTYPE_INT64,     CLG_DTYPE_BOOL,       CLG_DTYPE_FLOAT16,
    CLG_DTYPE_DOUBLE,    CLG_DTYPE_UINT32,     CLG_DTYPE_UINT64,
    CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128, CLG_DTYPE_BFLOAT16};

static inline clg_dtype take_data_dtype(fz_in *in) {
  uint8_t b = take8(in);
  if (b < 236)
    return fixed_types[b % 15];
  return (clg_dtype)((int)b - 240); /* -4 .. 15: undefined, string, ... */
}

static inline clg_dtype take_index_dtype(fz_in *in) {
  uint8_t b = take8(in);
  if (b < 240)
    return (b & 1) ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
  return (clg_dtype)((int)b - 238); /* 2 .. 17 */
}

/* ------------------------------------------------------- tensor facts */

typedef enum fz_size { FZ_OK = 0, FZ_BAD_RANK, FZ_NEG, FZ_OVF } fz_size;

/* Classify a descriptor as the header defines it: rank outside
 * [0, CLG_MAX_RANK], a negative dim, or an element count / byte size that
 * overflows; otherwise count elements. */
static inline fz_size classify(int32_t rank, const int64_t *shape, size_t esize,
                        uint64_t *count) {
  *count = 0;
  if (rank < 0 || rank > CLG_MAX_RANK)
    return FZ_BAD_RANK;
  int zero = 0;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      return FZ_NEG;
    zero |= shape[i] == 0;
  }
  if (zero)
    return FZ_OK;
  uint64_t c = 1;
  for (int32_t i = 0; i < rank; ++i)
    if (__builtin_mul_overflow(c, (uint64_t)shape[i], &c))
      return FZ_OVF;
  uint64_t bytes;
  if (c > (uint64_t)INT64_MAX || __builtin_mul_overflow(c, esize, &bytes) ||
      bytes > (uint64_t)SIZE_MAX)
    return FZ_OVF;
  *count = c;
  return FZ_OK;
}

#endif /* CLGATHER_TESTS_FUZZ_DECODE_H */
