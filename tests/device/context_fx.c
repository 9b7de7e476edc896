/* The small gather of test_context's files (context_fx.h). */
#define _POSIX_C_SOURCE 200809L

#include "device/context_fx.h"

#include <criterion/criterion.h>

#include <string.h>

/* A small gather on ctx with host tensors, checked against the reference. */
void assert_gathers(clg_context *ctx, const char *what) {
  const int64_t ds[2] = {4, 3}, is[1] = {5}, os[2] = {5, 3};
  int16_t data[12], out[15], want[15];
  int64_t idx[5] = {3, -1, 0, -4, 2};
  for (int k = 0; k < 12; ++k)
    data[k] = (int16_t)(k * 7 - 20);
  memset(out, 0xA5, sizeof out);
  cr_assert(ref_gather(data, 2, 2, ds, idx, REF_INDEX_I64, 1, is, 0, want) == 0);
  clg_tensor d = clg_tensor_host(CLG_DTYPE_INT16, 2, ds, data);
  clg_tensor i = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_INT16, 2, os, out);
  clg_status st = clg_gather(ctx, &d, &i, 0, &o, NULL, 0, NULL, NULL);
  cr_assert(st == CLG_SUCCESS, "%s: gather failed: %s", what, clg_last_error());
  cr_assert(memcmp(out, want, sizeof out) == 0, "%s: wrong output", what);
}
