/*
 * What tests/run/test_bag_split.c and test_bag_split_errors.c share (one
 * binary, test_bag_split): the context with the device's largest buffer
 * lowered to LIMIT bytes, a float32 weight, and calls written by hand run
 * and compared with the plain-C reference (ref_embedding_bag()).
 */
#ifndef CLGATHER_TESTS_RUN_BAG_SPLIT_HAND_H
#define CLGATHER_TESTS_RUN_BAG_SPLIT_HAND_H

#include "support/bag_case.h"

/* The suite's CLGATHER_TEST_MAX_ALLOC. */
#define LIMIT 4096

/* tu_ctx(), created with the limit at LIMIT bytes (asserted): call it
 * before anything else creates the test process's context. */
clg_context *bs_ctx(void);

/* A float32 weight [E, dim] of full mantissas, both signs (malloc'd). */
float *bs_weight(int64_t E, int64_t dim, uint64_t seed);

/* A call by hand: float32 weight [E, dim] (bs_weight(E, dim, seed)),
 * int64 indices and offsets in host memory, output [B, dim]. */
typedef struct bs_hand {
  clg_bag_params p;
  int64_t E, dim;
  int64_t *idx;
  int64_t n;
  int64_t *bags; /* offsets (B of them), or NULL: fixed [B, n / B] */
  int64_t B;
  bool psw; /* per_sample_weights bs_weight(n, 1, seed + 1) */
} bs_hand;

/* Runs h, expects CLG_SUCCESS on the packed tables' path and the
 * reference's bytes; returns the groups it ran in. */
unsigned bs_hand_run(const bs_hand *h, uint64_t seed, const char *what);

#endif /* CLGATHER_TESTS_RUN_BAG_SPLIT_HAND_H */
