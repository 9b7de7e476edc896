/*
 * The gathers' bad-input catalogue, part 2 of the table: what the family's
 * shared catalogue (tools/cases/gather_bad.c, catalogue_cases_shared.c)
 * cannot express through clg_run(): clg_output_shape() with clg_params,
 * and a GatherND output rank past the limit; the builders these use. Part
 * 1 is catalogue_cases_gather.c, part 3 catalogue_cases_faults.c; the
 * runner is test_catalogue.c.
 */
#include "catalogue_fx.h"

#include <string.h>

/* ---- the gather family through clg_run(): clg_params */

static void use_params(cat_call *c, clg_op op, int64_t axis, int64_t batch_dims,
                       clg_index_mode mode) {
  c->use_params = true;
  c->params.op = op;
  c->params.axis = axis;
  c->params.batch_dims = batch_dims;
  c->params.mode = mode;
}

/* The GatherND base: data [5, 3], indices int64 [3, 2] = {0, 1, 4, 2, -5,
 * -3} (tuples into [5, 3]), batch_dims 0, output [3]. */
static void nd_base(cat_call *c) {
  static const int64_t v[6] = {0, 1, 4, 2, -5, -3};
  static const int64_t is[2] = {3, 2}, os[1] = {3};
  memset(c->idx, 0, sizeof c->idx);
  memcpy(c->idx, v, sizeof v);
  set_shape(&c->i, 2, is);
  set_shape(&c->o, 1, os);
  use_params(c, CLG_OP_GATHER_ND, 0, 0, CLG_MODE_RAISE);
}
/* GatherND with data and indices of rank 16 (all ones): the output would
 * have rank 30. */
B(b_nd_rank_sum) {
  UNUSED_P;
  int64_t ones[CLG_MAX_RANK];
  for (int k = 0; k < CLG_MAX_RANK; ++k)
    ones[k] = 1;
  nd_base(c);
  set_shape(&c->d, 16, ones);
  set_shape(&c->i, 16, ones);
  set_shape(&c->o, 16, ones);
}
/* clg_output_shape(): p[0] 0: GatherElements with indices [6]; 1: GatherND
 * with batch_dims -1; 2: GatherND with indices [2, 3] (m = 3 > 2). */
B(b_oshape_op) {
  c->kind = K_OUTPUT_SHAPE;
  if (p[0] == 0) {
    const int64_t is[1] = {6};
    use_params(c, CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_RAISE);
    set_shape(&c->i, 1, is);
  } else {
    nd_base(c);
    if (p[0] == 1)
      c->params.batch_dims = -1;
    else
      set_shape(&c->i, 2, base_ishape);
  }
}

/* clang-format off */
const cat_case cat_cases_run[] = {
    /* ---- GatherElements (base data [5, 3], indices [2, 3], axis 0) */
    {"clg_output_shape: GatherElements indices rank 1", b_oshape_op, {0},
     ST(INCOMPATIBLE_SHAPES), {"GatherElements needs indices of data's rank"},
     CAT_ONCE},

    /* ---- GatherND (base data [5, 3], indices [3, 2] = {0, 1, 4, 2, -5,
     * -3}, batch_dims 0, output [3]) */
    {"GatherND: output rank would be 30", b_nd_rank_sum, {0},
     ST(INVALID_RANK), {"would have rank 30", "limit 16"}, 0},
    {"clg_output_shape: GatherND batch_dims -1", b_oshape_op, {1},
     ST(INVALID_BATCH_DIMS), {"batch_dims -1 is out of range for GatherND"},
     CAT_ONCE},
    {"clg_output_shape: GatherND m == 3 > 2", b_oshape_op, {2},
     ST(INCOMPATIBLE_SHAPES), {"it must be in [1, 2]"}, CAT_ONCE},

    /* ---- params */

    /* ---- Gather's batch_dims and index modes (through clg_run) */

};
/* clang-format on */

const size_t cat_ncases_run = sizeof cat_cases_run / sizeof cat_cases_run[0];
