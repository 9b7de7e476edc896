/* ScatterND's own cases (scatter.h; the family's description is
 * scatter_elements.c): its random cases, its conformance set, its hooks. */
#include "cases/operators.h"
#include "cases/scatter.h"

#include <stdlib.h>
#include <string.h>

scatter_case scatter_nd_case_random(uint64_t seed, clg_dtype dtype,
                                    clg_dtype idt, clg_scatter_params sp,
                                    scatter_targets targets) {
  case_rng rng = case_rng_make(seed);
  scatter_case c;
  memset(&c, 0, sizeof c);
  c.op = CLG_OP_SCATTER_ND;
  c.sp = sp;
  c.dtype = dtype;
  c.idt = case_rng_range(&rng, 0, 1) ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
  if (idt != CLG_DTYPE_UNDEFINED)
    c.idt = idt;
  c.r = (int32_t)case_rng_range(&rng, 1, 5);
  for (int32_t d = 0; d < c.r; ++d)
    c.ds[d] = case_rng_range(&rng, 1, 4);
  int32_t k = (int32_t)case_rng_range(&rng, 1, c.r);
  c.q = (int32_t)case_rng_range(&rng, 1, 3);
  int64_t slices = ref_numel(k, c.ds), tuples = 1;
  for (int32_t d = 0; d < c.q - 1; ++d) {
    c.is[d] = case_rng_range(&rng, 1, 3);
    tuples *= c.is[d];
  }
  if (targets == SCATTER_TARGETS_DISTINCT && tuples > slices) {
    c.q = 2; /* one tuple per slice at most */
    c.is[0] = case_rng_range(&rng, 1, slices);
  } else if (targets == SCATTER_TARGETS_REPEATED && tuples < 3) {
    c.q = 2; /* three tuples or more: repeats */
    c.is[0] = case_rng_range(&rng, 3, 6);
  }
  c.is[c.q - 1] = k;
  c.storage =
      case_rng_range(&rng, 0, 1) ? CLG_STORAGE_BUFFER : CLG_STORAGE_HOST;
  c.offset = c.storage == CLG_STORAGE_BUFFER
                 ? 16 * (size_t)case_rng_range(&rng, 0, 2)
                 : 0;
  c.in_place = case_rng_range(&rng, 0, 1) != 0;
  c.targets = targets;
  c.special = case_rng_range(&rng, 0, 3) == 0;
  c.seed = seed * 104729u + 3u;
  return c;
}

/* updates: indices.shape[:-1] + data.shape[k:] */
static int32_t updates_shape(const scatter_case *c, int64_t *us) {
  int32_t n = 0, k = (int32_t)c->is[c->q - 1];
  for (int32_t d = 0; d < c->q - 1; ++d)
    us[n++] = c->is[d];
  for (int32_t d = k; d < c->r; ++d)
    us[n++] = c->ds[d];
  return n;
}

/* Whole tuples: each target slice drawn, then written as its k
 * components. */
static int fill_indices(const scatter_case *c, case_rng *rng, void *idx) {
  int64_t n = ref_numel(c->q, c->is);
  int32_t k = (int32_t)c->is[c->q - 1];
  int64_t tuples = k ? n / k : 0, slices = ref_numel(k, c->ds);
  int64_t *t = malloc((size_t)(tuples ? tuples : 1) * sizeof *t);
  if (t == NULL || scatter_targets_draw(c, rng, t, tuples, slices) != 0) {
    free(t);
    return -1;
  }
  for (int64_t e = 0; e < tuples; ++e)
    for (int32_t j = k - 1; j >= 0; --j) {
      int64_t v = t[e] % c->ds[j];
      t[e] /= c->ds[j];
      case_set_index(idx, c->idt, e * k + j,
                     scatter_signed_index(rng, v, c->ds[j]));
    }
  free(t);
  return 0;
}

static int expect(const scatter_case *c, const scatter_inputs *in, void *want) {
  int64_t bad = -1, first = -1;
  return ref_scatter_nd(want, c->dtype, c->r, c->ds, in->indices,
                        case_ref_index_type(c->idt), c->q, c->is, in->updates,
                        (ref_reduction)c->sp.reduction,
                        c->sp.duplicates == CLG_DUPLICATES_LAST, &bad, &first);
}

static scatter_case random_case(uint64_t seed, clg_op op, clg_dtype dtype,
                                clg_dtype idt, clg_scatter_params sp,
                                scatter_targets targets) {
  (void)op;
  return scatter_nd_case_random(seed, dtype, idt, sp, targets);
}

static void conformance(bool quick, case_visit visit, void *ctx) {
  scatter_conformance(CLG_OP_SCATTER_ND, 5, quick, visit, ctx);
}

static const scatter_hooks own = {updates_shape, fill_indices, expect,
                                  random_case};
const case_operator case_scatter_nd = {CASE_FAMILY_SCATTER, conformance, NULL,
                                       &own};
