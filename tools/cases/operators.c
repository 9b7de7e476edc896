/* Every registered operator's case description (operators.h), from the
 * registry itself. */
#include "cases/operators.h"

/* Each operator's description, defined in its file. */
#define CLG_OPERATOR(e, impl, file, kernel, onnx, command, params)             \
  extern const case_operator case_##impl;
#include "../../host/ops/operators.def"
#undef CLG_OPERATOR

const case_registered case_operators[] = {
#define CLG_OPERATOR(e, impl, file, kernel, onnx, command, params)             \
  {e, onnx, &case_##impl},
#include "../../host/ops/operators.def"
#undef CLG_OPERATOR
};
const size_t case_operator_count =
    sizeof case_operators / sizeof case_operators[0];

const case_registered *case_operator_of(clg_op op) {
  for (size_t i = 0; i < case_operator_count; ++i)
    if (case_operators[i].op == op)
      return &case_operators[i];
  return NULL;
}

const char *case_operator_name(clg_op op) {
  const case_registered *o = case_operator_of(op);
  return o != NULL ? o->name : "?";
}
