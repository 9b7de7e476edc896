/* GatherND's own cases (gather.h; the family's description is gather.c):
 * its random cases, its conformance set, its hooks. */
#include "cases/gather.h"
#include "cases/operators.h"

#include <string.h>

gather_case gather_nd_case_random(uint64_t seed, clg_dtype dtype, clg_dtype idt,
                                  int bd) {
  case_rng rng = case_rng_make(seed);
  gather_case c;
  memset(&c, 0, sizeof c);
  c.dtype = dtype;
  c.idt = idt;
  c.r = (int32_t)case_rng_range(&rng, bd + 1, 3);
  for (int32_t i = 0; i < c.r; ++i)
    c.dshape[i] = case_rng_range(&rng, 1, i == c.r - 1 ? 9 : 5);
  int64_t m = case_rng_range(&rng, 1, c.r - bd);
  c.q = (int32_t)case_rng_range(&rng, bd + 1, bd + 2);
  for (int32_t i = 0; i < c.q - 1; ++i)
    c.ishape[i] = i < bd ? c.dshape[i] : case_rng_range(&rng, 1, 4);
  c.ishape[c.q - 1] = m;
  c.p = (clg_params){CLG_OP_GATHER_ND, 0, bd, CLG_MODE_RAISE};
  c.mode = CASE_INDEX_ANY;
  for (int k = 0; k < 3; ++k)
    c.st[k].kind = CLG_STORAGE_HOST;
  return c;
}

static int shape(const gather_case *c, int32_t *orank, int64_t *oshape) {
  return ref_gather_nd_shape(c->r, c->dshape, c->q, c->ishape, c->p.batch_dims,
                             CLG_MAX_RANK, orank, oshape);
}

/* A tuple's components index the dims after the batch dims in turn. */
static int64_t index_bound(const gather_case *c, int64_t i) {
  int64_t m = c->ishape[c->q - 1];
  int64_t b = c->p.batch_dims < 0 ? c->p.batch_dims + c->q : c->p.batch_dims;
  return c->dshape[b + i % m];
}

static int expect(const gather_case *c, const gather_inputs *in, void *want) {
  return ref_gather_nd(in->data, clg_dtype_size(c->dtype), c->r, c->dshape,
                       in->indices, case_ref_index_type(c->idt), c->q,
                       c->ishape, c->p.batch_dims, want) == 0
             ? 0
             : -1;
}

/* Every element size x index type x batch_dims (0, 1), two seeds (quick:
 * one), the call in turn (quick: one call a case). */
static void conformance(bool quick, case_visit visit, void *ctx) {
  static const clg_dtype itypes[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};
  unsigned n = 0;
  for (int sd = 0; sd < (quick ? 1 : 2); ++sd)
    for (int z = 0; z < 5; ++z)
      for (int k = 0; k < 2; ++k)
        for (int bd = 0; bd < 2; ++bd)
          for (int call = 0; call < 3; ++call, ++n) {
            if (quick && call != (int)(n / 3 % 3))
              continue;
            case_item it = {.family = CASE_FAMILY_GATHER,
                            .seed = 0x9d000u + n,
                            .call = (case_call)call};
            it.c.gather = gather_nd_case_random(
                it.seed, gather_dtypes_by_size[z][(n / 5) % 4], itypes[k], bd);
            visit(ctx, &it);
          }
}

static const gather_hooks own = {shape, index_bound, expect};
const case_operator case_gather_nd = {CASE_FAMILY_GATHER, conformance, &own,
                                      NULL};
