/* clgather-bench-gbq: GatherBlockQuantized's workload on cl_mem tensors,
 * as ratios within one run (rounds interleaved, medians of each):
 *
 *   QG1  a language model's token embedding: uint4 values [32000, 4096]
 *        (2048 bytes a row), blocks of 32 along the last axis, float16
 *        scales [32000, 128], no zero points, 4096 random int32 indices,
 *        gather_axis 0, quantize_axis 1: output float16 [4096, 4096].
 *
 * Each round runs once each, in rotating order, after two warm-up rounds:
 *   gbq     clg_gather_block_quantized(), checks included, then clFinish;
 *   gather  clg_gather() (checked) of the same 4096 rows from the table
 *           dequantized to float16 [32000, 4096] (4x the bytes a row): what
 *           keeping the table quantized saves in bytes moved;
 *   copy    clEnqueueCopyBuffer of the packed bytes the call reads (4096
 *           rows x 2048 bytes): what it must at least read.
 * Printed: the device, each median (ms), gather/gbq and copy/gbq (> 1: gbq
 * faster).
 *
 *   clgather-bench-gbq [--rounds N] [--device SPEC]
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"
#include "reference/reference.h"
#include "cases/case.h"

#include <clgather/clgather.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "clgather-bench-gbq"
#define ROWS 32000
#define COLS 4096
#define BLOCK 32
#define NIDX 4096

static case_rng rng_state = {0x9E3779B97F4A7C15ull}; /* case_rng_make(0) */
static uint64_t rng(void) { return case_rng_u64(&rng_state); }

static int fail(const char *what) {
  fprintf(stderr, PROG ": %s: %s\n", what, clg_last_error());
  return 1;
}

static cl_mem upload(cl_context c, const void *p, size_t n) {
  cl_int err = CL_SUCCESS;
  cl_mem m =
      clCreateBuffer(c, CL_MEM_READ_WRITE | (p ? CL_MEM_COPY_HOST_PTR : 0),
                     n ? n : 1, (void *)p, &err);
  if (!m)
    fprintf(stderr, PROG ": clCreateBuffer of %zu bytes: %d\n", n, (int)err);
  return m;
}

int main(int argc, char **argv) {
  int rounds = 15;
  const char *device = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--device") && i + 1 < argc)
      device = argv[++i];
    else {
      fprintf(stderr, "usage: " PROG " [--rounds N] [--device SPEC]\n");
      return 2;
    }
  }
  if (rounds < 1)
    rounds = 1;
  clg_context *ctx = NULL;
  if (clg_context_create_default(device, &ctx) != CLG_SUCCESS)
    return fail("creating the context");
  cl_context cl = clg_context_cl_context(ctx);
  cl_command_queue q = clg_context_queue(ctx);
  char name[256] = {0};
  clGetDeviceInfo(clg_context_device(ctx), CL_DEVICE_NAME, sizeof name - 1,
                  name, NULL);
  printf("device: %s; %d rounds, medians\n", name, rounds);

  const size_t nb = COLS / BLOCK, rowb = COLS / 2;
  size_t pbytes = (size_t)ROWS * rowb, sbytes = (size_t)ROWS * nb * 2,
         dbytes = (size_t)ROWS * COLS * 2, obytes = (size_t)NIDX * COLS * 2,
         cbytes = (size_t)NIDX * rowb;
  unsigned char *packed = malloc(pbytes);
  uint16_t *scales = malloc(sbytes), *dense = malloc(dbytes);
  int32_t *idx = malloc(NIDX * sizeof *idx);
  double *t[3] = {malloc((size_t)rounds * sizeof(double)),
                  malloc((size_t)rounds * sizeof(double)),
                  malloc((size_t)rounds * sizeof(double))};
  cl_mem pm = NULL, sm = NULL, dm = NULL, xm = NULL, om = NULL, cm = NULL,
         cd = NULL;
  int rc = 1;
  if (!packed || !scales || !dense || !idx || !t[0] || !t[1] || !t[2]) {
    fprintf(stderr, PROG ": out of host memory\n");
    goto done;
  }
  /* Random packed values, scales in (0, 0.025]; the dense table is each
   * value times its block's scale, rounded to float16 as the call does
   * (no zero points: uint4's is 0). */
  for (size_t e = 0; e < pbytes; ++e)
    packed[e] = (unsigned char)rng();
  for (size_t e = 0; e < (size_t)ROWS * nb; ++e)
    scales[e] = ref_float_to_half((float)(1 + rng() % 100) / 4096.0f);
  for (size_t r = 0; r < ROWS; ++r)
    for (size_t c = 0; c < COLS; ++c) {
      unsigned v = (packed[r * rowb + c / 2] >> (c % 2 * 4)) & 15u;
      dense[r * COLS + c] = ref_float_to_half(
          (float)v * ref_half_to_float(scales[r * nb + c / BLOCK]));
    }
  for (int i = 0; i < NIDX; ++i)
    idx[i] = (int32_t)(rng() % ROWS);
  pm = upload(cl, packed, pbytes);
  sm = upload(cl, scales, sbytes);
  dm = upload(cl, dense, dbytes);
  xm = upload(cl, idx, NIDX * sizeof *idx);
  om = upload(cl, NULL, obytes);
  cm = upload(cl, NULL, cbytes);
  cd = upload(cl, NULL, cbytes);
  if (!pm || !sm || !dm || !xm || !om || !cm || !cd)
    goto done;
  int64_t vs[2] = {ROWS, COLS}, ss[2] = {ROWS, (int64_t)nb}, is[1] = {NIDX},
          os[2] = {NIDX, COLS};
  clg_tensor pt = clg_tensor_buffer(CLG_DTYPE_UINT8, 2, vs, pm, 0),
             st = clg_tensor_buffer(CLG_DTYPE_FLOAT16, 2, ss, sm, 0),
             dt = clg_tensor_buffer(CLG_DTYPE_FLOAT16, 2, vs, dm, 0),
             xt = clg_tensor_buffer(CLG_DTYPE_INT32, 1, is, xm, 0),
             ot = clg_tensor_buffer(CLG_DTYPE_FLOAT16, 2, os, om, 0);
  clg_gbq_params gp;
  memset(&gp, 0, sizeof gp);
  gp.kind = CLG_GBQ_UINT4;
  gp.bits = 4;
  gp.block_size = BLOCK;
  gp.quantize_axis = 1;
  for (int r = -2; r < rounds; ++r) /* two warm-up rounds */
    for (int j = 0; j < 3; ++j) {
      int k = (j + (r < 0 ? 0 : r)) % 3;
      double t0 = bench_now();
      clg_status s = CLG_SUCCESS;
      if (k == 0)
        s = clg_gather_block_quantized(ctx, &gp, &pt, &xt, &st, NULL, &ot, q, 0,
                                       NULL, NULL);
      else if (k == 1)
        s = clg_gather(ctx, &dt, &xt, 0, &ot, q, 0, NULL, NULL);
      else
        clEnqueueCopyBuffer(q, cm, cd, 0, 0, cbytes, 0, NULL, NULL);
      if (s != CLG_SUCCESS) {
        rc = fail(k == 0 ? "QG1 gbq" : "QG1 gather");
        goto done;
      }
      clFinish(q);
      if (r >= 0)
        t[k][r] = bench_now() - t0;
    }
  double m[3];
  for (int k = 0; k < 3; ++k)
    m[k] = median_of(t[k], rounds);
  printf("QG1  uint4 [32000, 4096] block 32, f16 scales, 4096 rows  "
         "gbq %8.3f ms | gather f16 %8.3f copy %8.3f | gather/gbq %5.2f "
         "copy/gbq %5.2f\n",
         m[0] * 1e3, m[1] * 1e3, m[2] * 1e3, m[1] / m[0], m[2] / m[0]);
  rc = 0;
done:
  for (cl_mem *mm = (cl_mem[]){pm, sm, dm, xm, om, cm, cd}, *e = mm + 7; mm < e;
       ++mm)
    if (*mm)
      clReleaseMemObject(*mm);
  free(packed);
  free(scales);
  free(dense);
  free(idx);
  for (int k = 0; k < 3; ++k)
    free(t[k]);
  clg_context_destroy(ctx);
  return rc;
}
