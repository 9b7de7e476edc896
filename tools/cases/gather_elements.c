/* GatherElements' random cases (gather.h; the family's description is
 * gather.c). */
#include "cases/gather.h"

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
