/* GatherND's random cases (gather.h; the family's description is
 * gather.c). */
#include "cases/gather.h"

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
