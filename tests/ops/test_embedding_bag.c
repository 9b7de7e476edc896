/*
 * EmbeddingBag (clg_embedding_bag, clgather/clgather_bag.h) against the
 * reference, byte for byte, on the real device.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include "support/testutil.h"

/* EmbeddingBag takes bags: every clg_params entry point refuses it. */
Test(embedding_bag, refused_by_clg_run) {
  float w[4] = {0}, out[2] = {0};
  int32_t idx[1] = {0};
  int64_t ws[2] = {2, 2}, is[1] = {1}, os[1] = {2};
  clg_tensor wt = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ws, w);
  clg_tensor it = clg_tensor_host(CLG_DTYPE_INT32, 1, is, idx);
  clg_tensor ot = clg_tensor_host(CLG_DTYPE_FLOAT, 1, os, out);
  clg_params p = {CLG_OP_EMBEDDING_BAG, 0, 0, CLG_MODE_RAISE};
  cr_assert_eq(clg_run(tu_ctx(), &p, &wt, &it, &ot, NULL, 0, NULL, NULL),
               CLG_ERROR_INVALID_ARGUMENT, "%s", clg_last_error());
  cr_assert(strstr(clg_last_error(), "clg_embedding_bag()"), "%s",
            clg_last_error());
}
