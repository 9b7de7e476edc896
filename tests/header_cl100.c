/* The public header after another header that defined
 * CL_TARGET_OPENCL_VERSION as 100 (as StarPU's starpu_opencl.h does), with
 * -std=c11 -pedantic-errors: it compiles, keeps the caller's value (it
 * needs only OpenCL 1.0 types), and the library works: a host-memory gather
 * on the default device, and an out-of-bounds index refused. Exit status 0
 * when all of that holds. */
#define CL_TARGET_OPENCL_VERSION 100
#include <CL/cl.h>

#include <clgather/clgather.h>

#include <stdio.h>
#include <string.h>

_Static_assert(CL_TARGET_OPENCL_VERSION == 100,
               "clgather.h changed the caller's CL_TARGET_OPENCL_VERSION");

int main(void) {
  clg_context *ctx = NULL;
  clg_status st = clg_context_create_default(NULL, &ctx);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, "header_cl100: %s\n", clg_last_error());
    return 1;
  }
  float data[4] = {1.0f, 2.0f, 3.0f, 4.0f}, out[3] = {0};
  int64_t idx[3] = {3, -4, 1}, bad[3] = {0, 4, 1};
  const float want[3] = {4.0f, 1.0f, 2.0f};
  int64_t n = 4, m = 3;
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 1, &n, data);
  clg_tensor i = clg_tensor_host(CLG_DTYPE_INT64, 1, &m, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 1, &m, out);
  st = clg_gather(ctx, &d, &i, 0, &o, NULL, 0, NULL, NULL);
  int ok = st == CLG_SUCCESS && memcmp(out, want, sizeof out) == 0;
  i.host = bad;
  st = clg_gather(ctx, &d, &i, 0, &o, NULL, 0, NULL, NULL);
  ok = ok && st == CLG_ERROR_INDEX_OUT_OF_BOUNDS &&
       memcmp(out, want, sizeof out) == 0;
  if (!ok)
    fprintf(stderr, "header_cl100: failed: %s\n", clg_last_error());
  clg_context_destroy(ctx);
  return ok ? 0 : 1;
}
