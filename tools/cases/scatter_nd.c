/* ScatterND's random cases (scatter.h; the family's description is
 * scatter_elements.c). */
#include "cases/scatter.h"

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
