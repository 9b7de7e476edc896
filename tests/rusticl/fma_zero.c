/* Mesa 22.3.6's Rusticl (Debian 12, RUSTICL_ENABLE=llvmpipe): fma(a, b, c)
 * with c = +0 and a product a * b of -0 gives -0; IEEE 754 (and C's
 * fmaf) give -0 + +0 = +0. The same values through a * b + c, apart, give
 * +0. Minimal reproduction of the quirk CLG_QUIRK_FMA_ZERO
 * (host/device/quirks.c; kernels/embedding_bag.cl, CLG_FMA).
 *
 *   cc -o fma_zero tests/rusticl/fma_zero.c -lOpenCL -lm
 *   RUSTICL_ENABLE=llvmpipe OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd \
 *     ./fma_zero
 *
 * Prints each fma's bits beside fmaf's; exits 1 when the device disagrees
 * (the bug), 0 when it agrees (POCL 3.1 agrees). */
#include "repro.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 6
static const float A[N] = {-2.0f, 2.0f, -0.0f, -2.0f, 2.0f, 3.0f};
static const float B[N] = {0.0f, -0.0f, 1.0f, 0.0f, 0.0f, 0.0f};
static const float C[N] = {0.0f, 0.0f, 0.0f, -0.0f, -0.0f, 1.0f};

int main(void) {
  static const char *src =
      "kernel void t(global const float *a, global const float *b,\n"
      "              global const float *c, global float *out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  out[i] = fma(a[i], b[i], c[i]);\n"
      "}\n";
  repro r;
  if (!repro_open(src, &r))
    return 2;
  cl_context ctx = r.ctx;
  cl_command_queue q = r.q;
  cl_kernel k = r.k;
  cl_int err;
  cl_mem m[3];
  const float *host[3] = {A, B, C};
  for (int j = 0; j < 3; ++j)
    m[j] = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          sizeof A, (void *)host[j], &err);
  cl_mem o = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof A, NULL, &err);
  for (int j = 0; j < 3; ++j)
    clSetKernelArg(k, (cl_uint)j, sizeof m[j], &m[j]);
  clSetKernelArg(k, 3, sizeof o, &o);
  size_t global = N;
  float out[N];
  clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
  if (clEnqueueReadBuffer(q, o, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL) !=
      CL_SUCCESS) {
    fprintf(stderr, "the kernel did not run\n");
    return 2;
  }
  int wrong = 0;
  for (int i = 0; i < N; ++i) {
    float want = fmaf(A[i], B[i], C[i]);
    int bad = memcmp(&want, &out[i], sizeof want) != 0;
    printf("fma(%g, %g, %g): device %g, fmaf %g%s\n", A[i], B[i], C[i],
           out[i], want, bad ? "  <- wrong" : "");
    wrong += bad;
  }
  printf("%s\n", wrong ? "the device's fma keeps a -0 product's sign over +0"
                       : "the device agrees");
  return wrong ? 1 : 0;
}
