/* Mesa 22.3.6's Rusticl (Debian 12, RUSTICL_ENABLE=llvmpipe): an int
 * widened to long and compared with a constant is compared as if it had
 * been widened without its sign. Minimal reproduction of the rule
 * kernels/prelude.cl states at CLG_FROM_END (clgather's kernels test an
 * index's sign on its own type, and compare widened indices with run-time
 * bounds only).
 *
 *   cc -o sext_compare tests/rusticl/sext_compare.c -lOpenCL
 *   RUSTICL_ENABLE=llvmpipe OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd \
 *     ./sext_compare
 *
 * Prints each expression's results beside the C compiler's; exits 1 when
 * the device disagrees (the bug), 0 when it agrees (POCL 3.1 agrees). */
#include "repro.h"
#include <stdio.h>

#define N 6
static const int in[N] = {3, -2, -7, 0, -9, 6};

int main(void) {
  static const char *src =
      "kernel void t(global const int *in, global long *out, long d) {\n"
      "  size_t i = get_global_id(0);\n"
      "  int v = in[i];\n"
      "  out[4 * i + 0] = (long)v < 0;            /* broken: all 0 */\n"
      "  out[4 * i + 1] = (long)v > -3L;          /* broken: all 1 */\n"
      "  out[4 * i + 2] = v < 0;                  /* right */\n"
      "  out[4 * i + 3] = (long)v < -d;           /* right: run-time */\n"
      "}\n";
  repro r;
  if (!repro_open(src, &r))
    return 2;
  cl_context ctx = r.ctx;
  cl_command_queue q = r.q;
  cl_kernel k = r.k;
  cl_int err;
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            sizeof in, (void *)in, &err);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 4 * N * sizeof(cl_long),
                            NULL, &err);
  cl_long d = 7, out[4 * N];
  clSetKernelArg(k, 0, sizeof a, &a);
  clSetKernelArg(k, 1, sizeof b, &b);
  clSetKernelArg(k, 2, sizeof d, &d);
  size_t global = N;
  clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
  clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
  static const char *const what[4] = {"(long)v < 0", "(long)v > -3L",
                                      "v < 0", "(long)v < -d"};
  int wrong = 0;
  for (int e = 0; e < 4; ++e) {
    printf("%-14s device:", what[e]);
    for (int i = 0; i < N; ++i)
      printf(" %ld", (long)out[4 * i + e]);
    printf("   C:");
    for (int i = 0; i < N; ++i) {
      long v = in[i];
      long want = e == 0 ? v < 0 : e == 1 ? v > -3 : e == 2 ? v < 0 : v < -d;
      printf(" %ld", want);
      wrong += out[4 * i + e] != want;
    }
    printf("\n");
  }
  printf("%s\n", wrong ? "the device compares a widened int with a constant "
                         "wrongly"
                       : "the device agrees");
  return wrong ? 1 : 0;
}
