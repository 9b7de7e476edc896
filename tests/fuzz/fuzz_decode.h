/* Input decoding shared by the API harnesses (fuzz_gather, fuzz_family):
 * bytes to small dims, wild dims and ranks. Changing it changes what every
 * committed corpus input means. */
#ifndef CLGATHER_TESTS_FUZZ_DECODE_H
#define CLGATHER_TESTS_FUZZ_DECODE_H

#include <stddef.h>
#include <stdint.h>


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

#endif /* CLGATHER_TESTS_FUZZ_DECODE_H */
