/* What every benchmark (clgather-bench, -bench-scatter, -bench-bag) shares:
 * a monotonic clock and medians (bench_util.c). Plain C, no OpenCL and no
 * clgather. Their random inputs come from the case descriptions' source
 * (tools/cases/case.h: case_rng). */
#ifndef CLGATHER_TOOLS_BENCH_UTIL_H
#define CLGATHER_TOOLS_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);

/* qsort's comparison of doubles, ascending. */
int cmp_double(const void *a, const void *b);
/* The median of v[0..n-1] (n > 0); sorts v. */
double median_of(double *v, int n);

#endif
