/* What the Tests of test_gather share: see gather_fx.h. */
#include "gather_fx.h"

const clg_dtype index_types[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};
