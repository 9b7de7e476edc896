/* Uses only the installed header and library: gathers rows of a small matrix
 * on the default device and checks them against a plain loop. */
#include <clgather/clgather.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  clg_context *ctx = NULL;
  if (clg_context_create_default(NULL, &ctx) != CLG_SUCCESS) {
    fprintf(stderr, "consumer: %s\n", clg_last_error());
    return 1;
  }
  int32_t data[6][4];
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 4; ++c)
      data[r][c] = r * 100 + c;
  int64_t idx[3] = {5, -6, 2};
  int32_t out[3][4], want[3][4];
  for (int i = 0; i < 3; ++i)
    memcpy(want[i], data[idx[i] < 0 ? idx[i] + 6 : idx[i]], sizeof want[i]);
  int64_t dshape[2] = {6, 4}, ishape[1] = {3}, oshape[2] = {3, 4};
  clg_tensor d = clg_tensor_host(CLG_DTYPE_INT32, 2, dshape, data);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_INT32, 2, oshape, out);
  clg_status st = clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, NULL);
  clg_context_destroy(ctx);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, "consumer: %s\n", clg_last_error());
    return 1;
  }
  if (memcmp(out, want, sizeof out) != 0) {
    fprintf(stderr, "consumer: wrong gather result\n");
    return 1;
  }
  printf("consumer OK: clgather %s\n", clg_version_string());
  return 0;
}
