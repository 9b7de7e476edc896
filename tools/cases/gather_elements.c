/* GatherElements' own cases (gather.h; the family's description is
 * gather.c): its random cases, its conformance set, its hooks. */
#include "cases/gather.h"
#include "cases/operators.h"

#include <string.h>

gather_case gather_elements_case_random(uint64_t seed, clg_dtype dtype,
                                        clg_dtype idt) {
  case_rng rng = case_rng_make(seed);
  gather_case c;
  memset(&c, 0, sizeof c);
  c.dtype = dtype;
  c.idt = idt;
  c.r = c.q = (int32_t)case_rng_range(&rng, 1, 3);
  int32_t a = (int32_t)case_rng_range(&rng, 0, c.r - 1);
  for (int32_t i = 0; i < c.r; ++i) {
    c.dshape[i] = case_rng_range(&rng, 1, i == c.r - 1 ? 9 : 5);
    c.ishape[i] = i == a ? case_rng_range(&rng, 1, 6)
                         : case_rng_range(&rng, 1, c.dshape[i]);
  }
  c.p = (clg_params){CLG_OP_GATHER_ELEMENTS, a, 0, CLG_MODE_RAISE};
  c.mode = CASE_INDEX_ANY;
  for (int k = 0; k < 3; ++k)
    c.st[k].kind = CLG_STORAGE_HOST;
  return c;
}

static int shape(const gather_case *c, int32_t *orank, int64_t *oshape) {
  return ref_gather_elements_shape(c->r, c->dshape, c->q, c->ishape, c->p.axis,
                                   orank, oshape);
}

static int64_t index_bound(const gather_case *c, int64_t i) {
  (void)i;
  return c->dshape[c->p.axis < 0 ? c->p.axis + c->r : c->p.axis];
}

static int expect(const gather_case *c, const gather_inputs *in, void *want) {
  return ref_gather_elements(
             in->data, clg_dtype_size(c->dtype), c->r, c->dshape, in->indices,
             case_ref_index_type(c->idt), c->q, c->ishape, c->p.axis, want) == 0
             ? 0
             : -1;
}

/* Every element size x index type, four seeds (quick: two), the call in
 * turn (quick: one call a case). */
static void conformance(bool quick, case_visit visit, void *ctx) {
  static const clg_dtype itypes[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};
  unsigned n = 0;
  for (int sd = 0; sd < (quick ? 2 : 4); ++sd)
    for (int z = 0; z < 5; ++z)
      for (int k = 0; k < 2; ++k)
        for (int call = 0; call < 3; ++call, ++n) {
          if (quick && call != (int)(n / 3 % 3))
            continue;
          case_item it = {.family = CASE_FAMILY_GATHER,
                          .seed = 0xe1e000u + n,
                          .call = (case_call)call};
          it.c.gather = gather_elements_case_random(
              it.seed, gather_dtypes_by_size[z][(n / 5) % 4], itypes[k]);
          visit(ctx, &it);
        }
}

static const gather_hooks own = {shape, index_bound, expect};
const case_operator case_gather_elements = {CASE_FAMILY_GATHER, conformance,
                                            &own, NULL};
