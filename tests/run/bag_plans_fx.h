/*
 * What tests/run/test_bag_plans.c and test_bag_plans_errors.c (one binary,
 * test_bag_plans) share: poisoned out-values, storage shorthands, and a
 * small EmbeddingBag call (bag_plans_fx.c) whose values a Test breaks and
 * whose result the plain-C reference gives.
 */
#ifndef CLGATHER_TESTS_BAG_PLANS_FX_H
#define CLGATHER_TESTS_BAG_PLANS_FX_H

#include "support/testutil.h"

/* Values no call may write on failure (*out, *event, *outcome). */
extern int bp_poison;
#define POISON_PLAN ((clg_plan *)(void *)&bp_poison)
#define POISON_EVENT ((cl_event)(void *)&bp_poison)
#define POISON_OUTCOME ((clg_outcome *)(void *)&bp_poison)

tu_storage H(void);
tu_storage B(size_t offset);

/* The small call: weight float [7, 4] (0.25 * k), indices int64 [10],
 * offsets int64 [4] (bags of 2, 3, 4 and 1 entries), mode sum, output
 * float [4, 4] (TU_SENTINEL bytes), each in host memory or a cl_mem of its
 * own (at offset 16). */
#define SM_E 7
#define SM_D 4
#define SM_N 10
#define SM_B 4

typedef struct small {
  tu_tensor w, x, b, o;
  int64_t idx[SM_N], off[SM_B]; /* the values of x and b */
} small;

extern const int64_t sm_ws[2], sm_xs[1], sm_bs[1], sm_os[2];

void small_make(small *s, bool w_buf, bool xb_buf, bool o_buf);
void small_free(small *s);
/* The reference's output for s->idx and s->off. */
void small_want(const small *s, float *want);
/* A plan for the small call's storage kinds (templates without memory),
 * with CLG_PLAN_ASYNC_CHECK iff async; asserts success. */
clg_plan *small_plan(clg_context *ctx, const small *s, bool async);
/* The output's bytes equal want's, and the bytes around it are unchanged
 * (a failed expectation naming `what` otherwise). */
void expect_output(const small *s, const float *want, const char *what);
/* clg_last_error() holds needle (case-insensitive). */
void expect_message(const char *needle, const char *what);

#endif /* CLGATHER_TESTS_BAG_PLANS_FX_H */
