/* The operator registry: the table of operators.def, and the checks of
 * clg_params that follow from it. */
#include "ops/op.h"

#include <inttypes.h>
#include <stddef.h>

static const clg_op_info clg_infos[] = {
#define CLG_OPERATOR(ENUM, impl, file, kernel, name, command, params)                        \
  {ENUM, name, command, params},
#include "ops/operators.def"
#undef CLG_OPERATOR
};

static const clg_op_impl *const clg_impls[] = {
#define CLG_OPERATOR(ENUM, impl, file, kernel, name, command, params) &clg__op_##impl,
#include "ops/operators.def"
#undef CLG_OPERATOR
};

#define CLG_OP_COUNT (sizeof clg_infos / sizeof clg_infos[0])

const clg_op_info *clg__op_table(size_t *count) {
  if (count)
    *count = CLG_OP_COUNT;
  return clg_infos;
}

static size_t clg_op_slot(clg_op op) {
  for (size_t i = 0; i < CLG_OP_COUNT; ++i)
    if (clg_infos[i].op == op)
      return i;
  return CLG_OP_COUNT;
}

const clg_op_info *clg__op_info(clg_op op) {
  size_t i = clg_op_slot(op);
  return i < CLG_OP_COUNT ? &clg_infos[i] : NULL;
}

const clg_op_impl *clg__op_impl(clg_op op) {
  size_t i = clg_op_slot(op);
  return i < CLG_OP_COUNT ? clg_impls[i] : NULL;
}

clg_status clg__check_params(const clg_params *p, const clg_op_info **info,
                             const clg_op_impl **impl) {
  size_t i = clg_op_slot(p->op);
  if (i == CLG_OP_COUNT)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown operator %d in params->op", (int)p->op);
  *info = &clg_infos[i];
  *impl = clg_impls[i];
  unsigned takes = clg_infos[i].params;
  if (takes & CLG_PARAM_BAGS)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s takes bags and per-sample weights, which clg_params "
                     "cannot hold: run it with clg_embedding_bag()",
                     (*info)->name);
  if (takes & CLG_PARAM_GBQ)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s takes scales, zero points and block quantization "
                     "attributes, which clg_params cannot hold: run it with "
                     "clg_gather_block_quantized()",
                     (*info)->name);
  if (p->mode != CLG_MODE_RAISE && p->mode != CLG_MODE_WRAP &&
      p->mode != CLG_MODE_CLIP)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown index mode %d (expected CLG_MODE_RAISE, "
                     "CLG_MODE_WRAP or CLG_MODE_CLIP)",
                     (int)p->mode);
  if (!(takes & CLG_PARAM_MODE) && p->mode != CLG_MODE_RAISE)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s takes no index mode (only RAISE): out-of-bounds "
                     "indices are errors",
                     (*info)->name);
  if (!(takes & CLG_PARAM_BATCH_DIMS) && p->batch_dims != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s takes no batch_dims (got %" PRId64 ")", (*info)->name,
                     p->batch_dims);
  if (!(takes & CLG_PARAM_AXIS) && p->axis != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s takes no axis (got %" PRId64 ")", (*info)->name,
                     p->axis);
  return (*impl)->check_params ? (*impl)->check_params(p) : CLG_SUCCESS;
}
