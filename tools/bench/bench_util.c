/* The benchmarks' clock, random numbers and medians (bench_util.h). */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t bench_rng_next(bench_rng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t bench_rng_range(bench_rng *r, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)(hi - lo);
  /* The modulo bias is below 2^-40 for the spans used here. */
  return lo + (int64_t)(bench_rng_next(r) % span);
}

void bench_fill_random(void *p, size_t bytes, bench_rng *r) {
  unsigned char *c = p;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t v = bench_rng_next(r);
    memcpy(c + i, &v, 8);
  }
  if (i < bytes) {
    uint64_t v = bench_rng_next(r);
    memcpy(c + i, &v, bytes - i);
  }
}

int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
