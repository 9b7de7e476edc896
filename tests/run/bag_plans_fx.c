/* The small EmbeddingBag call and helpers of test_bag_plans
 * (bag_plans_fx.h). */
#define _POSIX_C_SOURCE 200809L
#include "run/bag_plans_fx.h"

#include <criterion/criterion.h>

#include <string.h>

int bp_poison;

tu_storage H(void) {
  tu_storage s = {CLG_STORAGE_HOST, 0, false, false};
  return s;
}

tu_storage B(size_t offset) {
  tu_storage s = {CLG_STORAGE_BUFFER, offset, false, false};
  return s;
}

const int64_t sm_ws[2] = {SM_E, SM_D}, sm_xs[1] = {SM_N}, sm_bs[1] = {SM_B},
              sm_os[2] = {SM_B, SM_D};

void small_make(small *s, bool w_buf, bool xb_buf, bool o_buf) {
  static const int64_t idx[SM_N] = {0, 6, 2, 3, 1, 5, 4, 4, 0, 2};
  static const int64_t off[SM_B] = {0, 2, 5, 9};
  memcpy(s->idx, idx, sizeof idx);
  memcpy(s->off, off, sizeof off);
  float wv[SM_E * SM_D];
  for (int k = 0; k < SM_E * SM_D; ++k)
    wv[k] = 0.25f * (float)k;
  tu_tensor_init(&s->w, CLG_DTYPE_FLOAT, 2, sm_ws, w_buf ? B(16) : H(), wv);
  tu_tensor_init(&s->x, CLG_DTYPE_INT64, 1, sm_xs, xb_buf ? B(16) : H(),
                 s->idx);
  tu_tensor_init(&s->b, CLG_DTYPE_INT64, 1, sm_bs, xb_buf ? B(16) : H(),
                 s->off);
  tu_tensor_init(&s->o, CLG_DTYPE_FLOAT, 2, sm_os, o_buf ? B(16) : H(), NULL);
}

void small_free(small *s) {
  tu_tensor_free(&s->w);
  tu_tensor_free(&s->x);
  tu_tensor_free(&s->b);
  tu_tensor_free(&s->o);
}

void small_want(const small *s, float *want) {
  float wv[SM_E * SM_D];
  for (int k = 0; k < SM_E * SM_D; ++k)
    wv[k] = 0.25f * (float)k;
  ref_bag_args a;
  memset(&a, 0, sizeof a);
  a.mode = CLG_BAG_SUM;
  a.form = CLG_BAGS_OFFSETS;
  a.dtype = CLG_DTYPE_FLOAT;
  a.weight = wv;
  a.num_embeddings = SM_E;
  a.dim = SM_D;
  a.indices = s->idx;
  a.index_type = tu_ref_index_type(CLG_DTYPE_INT64);
  a.indices_rank = 1;
  a.indices_shape[0] = SM_N;
  a.bags = s->off;
  a.bags_type = tu_ref_index_type(CLG_DTYPE_INT64);
  a.bags_len = SM_B;
  a.num_bags = SM_B;
  cr_assert_eq(ref_embedding_bag(&a, want), 0,
               "test bug: the reference refuses the small call");
}

clg_plan *small_plan(clg_context *ctx, const small *s, bool async) {
  clg_bag_params p = {0};
  clg_tensor w = s->w.desc, x = s->x.desc, b = s->b.desc, o = s->o.desc;
  w.host = x.host = b.host = o.host = NULL; /* templates: no memory */
  w.buffer = x.buffer = b.buffer = o.buffer = NULL;
  clg_plan *plan = NULL;
  clg_status st = clg_plan_create_embedding_bag(
      ctx, &p, &w, &x, &b, NULL, &o,
      async ? (unsigned)CLG_PLAN_ASYNC_CHECK : 0u, &plan);
  cr_assert_eq(st, CLG_SUCCESS, "small plan: %s", clg_last_error());
  return plan;
}

void expect_output(const small *s, const float *want, const char *what) {
  float got[SM_B * SM_D];
  tu_tensor_read(&s->o, got);
  ptrdiff_t at = tu_first_diff(got, want, sizeof got);
  cr_expect(at < 0, "%s: output byte %td differs from the reference", what, at);
  cr_expect(tu_tensor_guards_ok(&s->o), "%s: bytes around the output written",
            what);
}

void expect_message(const char *needle, const char *what) {
  const char *m = clg_last_error();
  cr_expect(tu_contains_ci(m, needle), "%s: the message \"%s\" lacks \"%s\"",
            what, m, needle);
}
