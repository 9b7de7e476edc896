/* What every benchmark (clgather-bench, -bench-scatter, -bench-bag) shares:
 * a monotonic clock, a seeded random number generator and medians
 * (bench_util.c). Plain C, no OpenCL and no clgather. */
#ifndef CLGATHER_TOOLS_BENCH_UTIL_H
#define CLGATHER_TOOLS_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);

/* splitmix64: small, fast, fixed seed => the same inputs every run. */
typedef struct bench_rng {
  uint64_t state;
} bench_rng;

/* The benchmarks' seed. */
#define BENCH_RNG_SEED 0x9E3779B97F4A7C15ull

uint64_t bench_rng_next(bench_rng *r);
/* Uniform in [lo, hi) (hi > lo). */
int64_t bench_rng_range(bench_rng *r, int64_t lo, int64_t hi);
/* Fill `bytes` bytes with random bits. */
void bench_fill_random(void *p, size_t bytes, bench_rng *r);

/* qsort's comparison of doubles, ascending. */
int cmp_double(const void *a, const void *b);
/* The median of v[0..n-1] (n > 0); sorts v. */
double median_of(double *v, int n);

#endif
