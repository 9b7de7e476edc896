/* The reproductions' one setup (the programs of tests/rusticl/): the first
 * device of the first platform (Rusticl's, with OCL_ICD_VENDORS naming its ICD
 * alone), a context, an in-order queue, and kernel "t" built from `src`.
 * False, with the reason on stderr, when there is no device or the source
 * does not build (the reproduction then exits 2: not the bug). */
#ifndef CLGATHER_TESTS_RUSTICL_REPRO_H
#define CLGATHER_TESTS_RUSTICL_REPRO_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>

typedef struct repro {
  cl_context ctx;
  cl_command_queue q;
  cl_kernel k;
} repro;

static bool repro_open(const char *src, repro *r) {
  cl_platform_id p;
  cl_device_id dev;
  cl_int err;
  if (clGetPlatformIDs(1, &p, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) {
    fprintf(stderr, "no OpenCL device\n");
    return false;
  }
  r->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  r->q = clCreateCommandQueue(r->ctx, dev, 0, &err);
  cl_program prog = clCreateProgramWithSource(r->ctx, 1, &src, NULL, &err);
  if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
    fprintf(stderr, "build failed\n");
    return false;
  }
  r->k = clCreateKernel(prog, "t", &err);
  return r->k != NULL;
}

#endif /* CLGATHER_TESTS_RUSTICL_REPRO_H */
