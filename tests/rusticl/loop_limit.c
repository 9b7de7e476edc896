/* Mesa 22.3.6's Rusticl on llvmpipe (Debian 12, RUSTICL_ENABLE=llvmpipe):
 * a loop runs at most 65535 times per work-item (gallivm's loop limit,
 * LP_MAX_TGSI_LOOP_ITERATIONS) and the rest of it is dropped without an
 * error. Minimal reproduction of the quirk CLG_QUIRK_GPU_KERNELS
 * (host/device/quirks.c: clgather plans its kernels for a GPU there, where
 * no work-item loops that long).
 *
 *   cc -o loop_limit tests/rusticl/loop_limit.c -lOpenCL
 *   RUSTICL_ENABLE=llvmpipe OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd \
 *     ./loop_limit
 *
 * One work-item writes 200000 words in one loop; exits 1 when fewer were
 * written (the bug), 0 when all were (POCL 3.1 writes all). */
#include "repro.h"
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  static const char *src =
      "kernel void t(global uint *o, ulong n) {\n"
      "  for (ulong i = 0; i < n; ++i)\n"
      "    o[i] = 1u;\n"
      "}\n";
  repro r;
  if (!repro_open(src, &r))
    return 2;
  cl_context ctx = r.ctx;
  cl_command_queue q = r.q;
  cl_kernel k = r.k;
  cl_int err;
  cl_ulong n = 200000;
  cl_uint *h = calloc((size_t)n, sizeof *h);
  if (!h)
    return 2;
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            (size_t)n * sizeof *h, h, &err);
  clSetKernelArg(k, 0, sizeof b, &b);
  clSetKernelArg(k, 1, sizeof n, &n);
  size_t global = 1;
  clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
  clEnqueueReadBuffer(q, b, CL_TRUE, 0, (size_t)n * sizeof *h, h, 0, NULL,
                      NULL);
  cl_ulong written = 0;
  for (cl_ulong i = 0; i < n; ++i)
    written += h[i];
  printf("one work-item's loop wrote %lu of %lu words\n",
         (unsigned long)written, (unsigned long)n);
  free(h);
  return written == n ? 0 : 1;
}
