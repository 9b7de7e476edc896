/*
 * The gathers' bad-input catalogue, the shared part of the table: every
 * entry of tools/cases/gather_bad.c (index values, parameters, ranks,
 * dims, element types, output shapes of Gather, GatherElements and
 * GatherND, which `clgather selftest` runs too), made into entries of this
 * table: Gather without batch_dims or index mode through clg_gather(), the
 * rest through clg_run(); index-value entries also with cl_mem indices.
 */
#include "catalogue_fx.h"

#include <criterion/criterion.h>

#include <string.h>

#include "cases/gather.h"

/* The call of gather_bad_inputs[p[0]]. */
B(b_shared) {
  const gather_bad *e = &gather_bad_inputs[p[0]];
  gather_bad_call call;
  gather_bad_make(e, &call);
  c->use_params = !(call.p.op == CLG_OP_GATHER && call.p.batch_dims == 0 &&
                    call.p.mode == CLG_MODE_RAISE);
  c->params = call.p;
  c->axis = call.p.axis;
  clg_tensor *t[3] = {&c->d, &c->i, &c->o};
  for (int k = 0; k < 3; ++k) {
    t[k]->dtype = call.dtype[k];
    t[k]->rank = call.rank[k];
    memcpy(t[k]->shape, call.shape[k], sizeof t[k]->shape);
  }
  memcpy(c->idx, call.indices, sizeof call.indices);
}

cat_case cat_cases_shared[128];
size_t cat_ncases_shared;

void cat_shared_init(void) {
  cr_assert(gather_bad_count <=
                sizeof cat_cases_shared / sizeof cat_cases_shared[0],
            "test bug: cat_cases_shared has no room for the catalogue");
  for (size_t k = 0; k < gather_bad_count; ++k) {
    const gather_bad *e = &gather_bad_inputs[k];
    cat_case *x = &cat_cases_shared[k];
    memset(x, 0, sizeof *x);
    x->name = e->name;
    x->build = b_shared;
    x->p[0] = (int64_t)k;
    x->status = e->want;
    x->msg[0] = e->needles;
    x->flags = CAT_NEEDLES | (gather_bad_in_values(e) ? CAT_IDX_BUF : 0u);
  }
  cat_ncases_shared = gather_bad_count;
}
