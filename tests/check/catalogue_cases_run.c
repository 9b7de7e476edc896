/*
 * The gathers' bad-input catalogue, part 2 of the table: the gather family
 * through clg_run() and clg_output_shape() with clg_params (GatherElements,
 * GatherND, params, Gather's batch_dims and index modes), and the builders
 * these use. Part 1 is catalogue_cases_gather.c, part 3
 * catalogue_cases_faults.c; the runner is test_catalogue.c.
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
/* Any params on the base call: p[0] op, p[1] axis, p[2] batch_dims, p[3]
 * mode. */
B(b_params) { use_params(c, (clg_op)p[0], p[1], p[2], (clg_index_mode)p[3]); }
/* GatherElements on the base data and indices, axis p[0]: output [2, 3]. */
B(b_ge_axis) {
  use_params(c, CLG_OP_GATHER_ELEMENTS, p[0], 0, CLG_MODE_RAISE);
  set_shape(&c->o, 2, base_ishape);
}
/* GatherElements on axis p[4] with indices of rank p[0], dims p[1..3]
 * (values as in the base); output of the same shape. */
B(b_ge_ishape) {
  use_params(c, CLG_OP_GATHER_ELEMENTS, p[4], 0, CLG_MODE_RAISE);
  set_shape(&c->i, (int32_t)p[0], p + 1);
  set_shape(&c->o, (int32_t)p[0], p + 1);
}
/* GatherElements on axis 0 (s = 5) with the base indices and idx[p[0]] =
 * p[1], idx[p[2]] = p[3] if p[2] >= 0; p[4] = 32 for int32 indices. */
B(b_ge_oob) {
  b_oob(c, p);
  use_params(c, CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_RAISE);
  set_shape(&c->o, 2, base_ishape);
}
/* GatherElements on axis -1 (s = 3): indices valid for s = 3, idx[p[0]] =
 * p[1]. */
B(b_ge_oob_last_axis) {
  static const int64_t valid3[6] = {0, 1, -3, 2, -1, 2};
  memcpy(c->idx, valid3, sizeof valid3);
  memcpy(c->idx + 8 * p[0], &p[1], 8);
  use_params(c, CLG_OP_GATHER_ELEMENTS, -1, 0, CLG_MODE_RAISE);
  set_shape(&c->o, 2, base_ishape);
}
/* GatherElements on axis 1 of data [5, 0] with the (non-empty) base
 * indices. */
B(b_ge_s_zero) {
  UNUSED_P;
  const int64_t ds[2] = {5, 0};
  set_shape(&c->d, 2, ds);
  use_params(c, CLG_OP_GATHER_ELEMENTS, 1, 0, CLG_MODE_RAISE);
  set_shape(&c->o, 2, base_ishape);
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
/* GatherND: indices of rank p[0] with dims p[1..3], batch_dims p[4]. */
B(b_nd_shape) {
  nd_base(c);
  set_shape(&c->i, (int32_t)p[0], p + 1);
  c->params.batch_dims = p[4];
}
/* GatherND base with output shape: rank p[0], dims p[1..2]. */
B(b_nd_oshape) {
  nd_base(c);
  set_shape(&c->o, (int32_t)p[0], p + 1);
}
/* GatherND base with idx[p[0]] = p[1], idx[p[2]] = p[3] if p[2] >= 0; p[4]
 * = 32 for int32 indices. */
B(b_nd_oob) {
  nd_base(c);
  memcpy(c->idx + 8 * p[0], &p[1], 8);
  if (p[2] >= 0)
    memcpy(c->idx + 8 * p[2], &p[3], 8);
  if (p[4] == 32)
    to_int32(c);
}
/* GatherND with batch_dims 1: indices [5, 1] = {0, 1, 2, -1, -3} index axis
 * 1 (size 3) per batch, output [5]; idx[p[0]] = p[1]. */
B(b_nd_oob_batch) {
  static const int64_t v[5] = {0, 1, 2, -1, -3};
  static const int64_t is[2] = {5, 1}, os[1] = {5};
  nd_base(c);
  memcpy(c->idx, v, sizeof v);
  set_shape(&c->i, 2, is);
  set_shape(&c->o, 1, os);
  c->params.batch_dims = 1;
  memcpy(c->idx + 8 * p[0], &p[1], 8);
}
/* GatherND base on data [5, 0]: component 1 indexes an axis of size 0. */
B(b_nd_s_zero) {
  UNUSED_P;
  const int64_t ds[2] = {5, 0};
  nd_base(c);
  set_shape(&c->d, 2, ds);
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
/* Gather through clg_run: axis p[0], batch_dims p[1], mode p[2]; output as
 * Gather would make it with batch_dims 0. */
B(b_gather_bd) {
  use_params(c, CLG_OP_GATHER, p[0], p[1], (clg_index_mode)p[2]);
  if (p[0] == 1) {
    const int64_t os[3] = {5, 2, 3};
    set_shape(&c->o, 3, os);
  }
}
/* Gather mode p[0] on an axis of size 0: data [5, 0] on axis 1 (p[1] 1) or
 * [0, 3] on axis 0; the base indices; the matching output. */
B(b_gather_mode_s_zero) {
  use_params(c, CLG_OP_GATHER, p[1], 0, (clg_index_mode)p[0]);
  if (p[1] == 1) {
    const int64_t ds[2] = {5, 0}, os[3] = {5, 2, 3};
    set_shape(&c->d, 2, ds);
    set_shape(&c->o, 3, os);
  } else {
    const int64_t ds[2] = {0, 3};
    set_shape(&c->d, 2, ds);
  }
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
    {"GatherElements: indices rank 1, data rank 2", b_ge_ishape,
     {1, 6, 0, 0, 0}, ST(INCOMPATIBLE_SHAPES),
     {"GatherElements needs indices of data's rank",
      "data has rank 2 (shape [5, 3]) but indices has rank 1 (shape [6])"},
     0},
    {"GatherElements: indices rank 3, data rank 2", b_ge_ishape,
     {3, 2, 3, 1, 0}, ST(INCOMPATIBLE_SHAPES),
     {"indices has rank 3 (shape [2, 3, 1])"}, 0},
    {"GatherElements: indices dim 1 is 4 > 3 (axis 0)", b_ge_ishape,
     {2, 2, 4, 0, 0}, ST(INCOMPATIBLE_SHAPES),
     {"GatherElements on axis 0: indices dimension 1 is 4 but data's is 3"},
     0},
    {"GatherElements: indices dim 0 is 6 > 5 (axis -1)", b_ge_ishape,
     {2, 6, 2, 0, -1}, ST(INCOMPATIBLE_SHAPES),
     {"GatherElements on axis 1: indices dimension 0 is 6 but data's is 5"},
     0},
    {"GatherElements: axis 2 (= rank)", b_ge_axis, {2}, ST(INVALID_AXIS),
     {"axis 2 is out of range", "[-2, 1]"}, 0},
    {"GatherElements: axis -3 (= -rank - 1)", b_ge_axis, {-3},
     ST(INVALID_AXIS), {"axis -3 is out of range", "[-2, 1]"}, 0},
    {"GatherElements: output [2, 3, 3] (Gather's shape)", b_params,
     {CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_RAISE}, ST(SHAPE_MISMATCH),
     {"output has shape [2, 3, 3] but GatherElements on axis 0 produces "
      "[2, 3]"},
     0},
    {"GatherElements: OOB first position (s)", b_ge_oob, {0, 5, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0] (position [0, 0] " OOB_IN_BASE ") = 5",
      "but axis 0 of data has size 5", RANGE5},
     CAT_IDX_BUF},
    {"GatherElements: OOB middle position (-s-1)", b_ge_oob,
     {2, -6, -1, 0, 64}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[2] (position [0, 2] " OOB_IN_BASE ") = -6", RANGE5},
     CAT_IDX_BUF},
    {"GatherElements: OOB last position", b_ge_oob, {5, 5, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[5] (position [1, 2] " OOB_IN_BASE ") = 5", RANGE5},
     CAT_IDX_BUF},
    {"GatherElements: OOB INT64_MIN", b_ge_oob, {3, INT64_MIN, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[3]", "= -9223372036854775808", RANGE5},
     CAT_IDX_BUF},
    {"GatherElements: OOB INT64_MAX", b_ge_oob, {4, INT64_MAX, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[4]", "= 9223372036854775807", RANGE5},
     CAT_IDX_BUF},
    {"GatherElements: OOB INT32_MIN (int32 indices)", b_ge_oob,
     {1, INT32_MIN, -1, 0, 32}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[1]", "= -2147483648", RANGE5}, CAT_IDX_BUF},
    {"GatherElements: OOB several, the first is named", b_ge_oob,
     {4, 99, 2, -99, 64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[2]", "= -99"},
     CAT_IDX_BUF},
    {"GatherElements: OOB on axis -1 (s = 3)", b_ge_oob_last_axis, {4, -4},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[4] (position [1, 1] " OOB_IN_BASE ") = -4",
      "but axis 1 of data has size 3: valid range is [-3, 2]"},
     CAT_IDX_BUF},
    {"GatherElements: s == 0 with non-empty indices", b_ge_s_zero, {0},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0] (position [0, 0] " OOB_IN_BASE ") = 0",
      "axis 1 of data has size 0: no index is valid"},
     CAT_IDX_BUF},
    {"GatherElements: batch_dims 1", b_params,
     {CLG_OP_GATHER_ELEMENTS, 0, 1, CLG_MODE_RAISE}, ST(INVALID_ARGUMENT),
     {"GatherElements takes no batch_dims (got 1)"}, 0},
    {"GatherElements: mode WRAP", b_params,
     {CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_WRAP}, ST(INVALID_ARGUMENT),
     {"GatherElements takes no index mode"}, 0},
    {"clg_output_shape: GatherElements indices rank 1", b_oshape_op, {0},
     ST(INCOMPATIBLE_SHAPES), {"GatherElements needs indices of data's rank"},
     CAT_ONCE},

    /* ---- GatherND (base data [5, 3], indices [3, 2] = {0, 1, 4, 2, -5,
     * -3}, batch_dims 0, output [3]) */
    {"GatherND: indices rank 0", b_nd_shape, {0, 0, 0, 0, 0},
     ST(INVALID_RANK),
     {"indices has rank 0; GatherND needs indices of rank >= 1"}, 0},
    {"GatherND: m == 0 (indices [3, 0])", b_nd_shape, {2, 3, 0, 0, 0},
     ST(INCOMPATIBLE_SHAPES),
     {"the last dimension of indices (shape [3, 0])", "is 0",
      "it must be in [1, 2]"},
     0},
    {"GatherND: m == 3 > r - b == 2", b_nd_shape, {2, 2, 3, 0, 0},
     ST(INCOMPATIBLE_SHAPES),
     {"is 3; with data of rank 2 and batch_dims 0 it must be in [1, 2]"}, 0},
    {"GatherND: m == 2 > r - b == 1 (batch_dims 1)", b_nd_shape,
     {2, 5, 2, 0, 1}, ST(INCOMPATIBLE_SHAPES),
     {"is 2; with data of rank 2 and batch_dims 1 it must be in [1, 1]"}, 0},
    {"GatherND: batch_dims -1", b_nd_shape, {2, 3, 2, 0, -1},
     ST(INVALID_BATCH_DIMS),
     {"batch_dims -1 is out of range for GatherND", "valid range is [0, 1]"},
     0},
    {"GatherND: batch_dims 2 == min(r, q)", b_nd_shape, {2, 3, 2, 0, 2},
     ST(INVALID_BATCH_DIMS),
     {"batch_dims 2 is out of range for GatherND with data of rank 2 and "
      "indices of rank 2: valid range is [0, 1]"},
     0},
    {"GatherND: batch_dims 1 == q (indices [2])", b_nd_shape, {1, 2, 0, 0, 1},
     ST(INVALID_BATCH_DIMS),
     {"batch_dims 1 is out of range", "valid range is [0, 0]"}, 0},
    {"GatherND: batch dims differ (5 vs 4)", b_nd_shape, {2, 4, 1, 0, 1},
     ST(INCOMPATIBLE_SHAPES),
     {"GatherND with batch_dims 1: batch dimension 0 differs, data has 5 and "
      "indices has 4"},
     0},
    {"GatherND: output rank would be 30", b_nd_rank_sum, {0},
     ST(INVALID_RANK), {"would have rank 30", "limit 16"}, 0},
    {"GatherND: output [3, 3]", b_nd_oshape, {2, 3, 3}, ST(SHAPE_MISMATCH),
     {"output has shape [3, 3] but GatherND with batch_dims 0 produces [3]"},
     0},
    {"GatherND: OOB first component (d)", b_nd_oob, {2, 5, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"index out of bounds: indices[2] (position [1, 0] in indices of shape "
      "[3, 2]) = 5, component 0 of the index tuple indexes axis 0 of data, "
      "of size 5: valid range is [-5, 4]"},
     CAT_IDX_BUF},
    {"GatherND: OOB first component (-d-1)", b_nd_oob, {0, -6, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[0] (position [0, 0]", "= -6, component 0", RANGE5},
     CAT_IDX_BUF},
    {"GatherND: OOB last component (d), last position", b_nd_oob,
     {5, 3, -1, 0, 64}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[5] (position [2, 1] in indices of shape [3, 2]) = 3, "
      "component 1 of the index tuple indexes axis 1 of data, of size 3: "
      "valid range is [-3, 2]"},
     CAT_IDX_BUF},
    {"GatherND: OOB last component beyond -d", b_nd_oob, {1, -4, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[1] (position [0, 1]", "= -4, component 1",
      "valid range is [-3, 2]"},
     CAT_IDX_BUF},
    {"GatherND: OOB INT64_MIN", b_nd_oob, {3, INT64_MIN, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[3]", "= -9223372036854775808, component 1"}, CAT_IDX_BUF},
    {"GatherND: OOB INT64_MAX", b_nd_oob, {4, INT64_MAX, -1, 0, 64},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[4]", "= 9223372036854775807, component 0"}, CAT_IDX_BUF},
    {"GatherND: OOB INT32_MIN (int32 indices)", b_nd_oob,
     {2, INT32_MIN, -1, 0, 32}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[2]", "= -2147483648, component 0", RANGE5}, CAT_IDX_BUF},
    {"GatherND: OOB int32 last component", b_nd_oob, {5, 3, -1, 0, 32},
     ST(INDEX_OUT_OF_BOUNDS), {"indices[5]", "= 3, component 1"},
     CAT_IDX_BUF},
    {"GatherND: OOB several, the first is named", b_nd_oob,
     {3, 100, 1, -100, 64}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[1]", "= -100"}, CAT_IDX_BUF},
    {"GatherND: OOB with batch_dims 1 (component 0 is axis 1)",
     b_nd_oob_batch, {3, 3}, ST(INDEX_OUT_OF_BOUNDS),
     {"indices[3] (position [3, 0] in indices of shape [5, 1]) = 3, "
      "component 0 of the index tuple indexes axis 1 of data, of size 3: "
      "valid range is [-3, 2]"},
     CAT_IDX_BUF},
    {"GatherND: a component into an axis of size 0", b_nd_s_zero, {0},
     ST(INDEX_OUT_OF_BOUNDS),
     {"indices[1] (position [0, 1]", "= 1, component 1",
      "axis 1 of data, of size 0: no index is valid"},
     CAT_IDX_BUF},
    {"GatherND: axis 1", b_params, {CLG_OP_GATHER_ND, 1, 0, CLG_MODE_RAISE},
     ST(INVALID_ARGUMENT), {"GatherND takes no axis (got 1)"}, 0},
    {"GatherND: mode CLIP", b_params, {CLG_OP_GATHER_ND, 0, 0, CLG_MODE_CLIP},
     ST(INVALID_ARGUMENT), {"GatherND takes no index mode"}, 0},
    {"clg_output_shape: GatherND batch_dims -1", b_oshape_op, {1},
     ST(INVALID_BATCH_DIMS), {"batch_dims -1 is out of range for GatherND"},
     CAT_ONCE},
    {"clg_output_shape: GatherND m == 3 > 2", b_oshape_op, {2},
     ST(INCOMPATIBLE_SHAPES), {"it must be in [1, 2]"}, CAT_ONCE},

    /* ---- params */
    {"params: unknown op 7", b_params, {7, 0, 0, CLG_MODE_RAISE},
     ST(INVALID_ARGUMENT), {"unknown operator 7 in params->op"}, 0},
    {"params: unknown mode 9", b_params, {CLG_OP_GATHER, 0, 0, 9},
     ST(INVALID_ARGUMENT), {"unknown index mode 9"}, 0},

    /* ---- Gather's batch_dims and index modes (through clg_run) */
    {"Gather: batch_dims 3 > q", b_gather_bd, {0, 3, CLG_MODE_RAISE},
     ST(INVALID_BATCH_DIMS),
     {"batch_dims 3 is out of range for indices of rank 2: valid range is "
      "[-2, 2]"},
     0},
    {"Gather: batch_dims -3 < -q", b_gather_bd, {0, -3, CLG_MODE_RAISE},
     ST(INVALID_BATCH_DIMS), {"batch_dims -3 is out of range", "[-2, 2]"}, 0},
    {"Gather: batch_dims 1 > axis 0", b_gather_bd, {0, 1, CLG_MODE_RAISE},
     ST(INVALID_BATCH_DIMS), {"batch_dims 1 must not exceed axis 0"}, 0},
    {"Gather: batch_dims -1 (= 1) > axis 0", b_gather_bd,
     {0, -1, CLG_MODE_WRAP}, ST(INVALID_BATCH_DIMS),
     {"batch_dims 1 must not exceed axis 0"}, 0},
    {"Gather: batch dims differ (5 vs 2)", b_gather_bd,
     {1, 1, CLG_MODE_RAISE}, ST(INCOMPATIBLE_SHAPES),
     {"Gather with batch_dims 1: batch dimension 0 differs, data has 5 and "
      "indices has 2"},
     0},
    {"Gather: mode WRAP on an axis of size 0", b_gather_mode_s_zero,
     {CLG_MODE_WRAP, 1}, ST(INDEX_OUT_OF_BOUNDS),
     {"axis 1 of data has size 0, so mode wrap has no position to map the 6 "
      "indices to"},
     CAT_IDX_BUF},
    {"Gather: mode CLIP on an axis of size 0", b_gather_mode_s_zero,
     {CLG_MODE_CLIP, 0}, ST(INDEX_OUT_OF_BOUNDS),
     {"axis 0 of data has size 0, so mode clip has no position"}, CAT_IDX_BUF},

};
/* clang-format on */

const size_t cat_ncases_run = sizeof cat_cases_run / sizeof cat_cases_run[0];
