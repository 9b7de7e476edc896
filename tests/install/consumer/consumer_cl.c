/* A consumer that calls OpenCL itself as well as clgather, as a runtime
 * does: it picks a device, creates its own cl_context and command queue with
 * OpenCL calls, lends them to clgather (clg_context_create), gathers rows on
 * its own queue and checks them against a plain loop. Built by the install
 * test with nothing but `pkg-config --cflags --libs clgather` (so that file
 * must name -lOpenCL: a missing `Requires: OpenCL` fails the link with
 * "undefined reference to clGetPlatformIDs"), and through find_package. */
#include <clgather/clgather.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  cl_platform_id platforms[8];
  cl_uint np = 0;
  if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS || np == 0) {
    fprintf(stderr, "consumer_cl: no OpenCL platform\n");
    return 1;
  }
  cl_device_id device = NULL;
  for (cl_uint p = 0; p < np && device == NULL; ++p)
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &device, NULL) !=
        CL_SUCCESS)
      device = NULL;
  if (device == NULL) {
    fprintf(stderr, "consumer_cl: no OpenCL device\n");
    return 1;
  }
  cl_int err = CL_SUCCESS;
  cl_context cl_ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "consumer_cl: clCreateContext failed (%d)\n", (int)err);
    return 1;
  }
  cl_command_queue queue = clCreateCommandQueue(cl_ctx, device, 0, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "consumer_cl: clCreateCommandQueue failed (%d)\n",
            (int)err);
    clReleaseContext(cl_ctx);
    return 1;
  }

  clg_context *ctx = NULL;
  clg_status st = clg_context_create(cl_ctx, device, &ctx);
  float data[4][3], out[2][3], want[2][3];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c)
      data[r][c] = (float)(r * 10 + c);
  int32_t idx[2] = {3, -4};
  for (int i = 0; i < 2; ++i)
    memcpy(want[i], data[idx[i] < 0 ? idx[i] + 4 : idx[i]], sizeof want[i]);
  if (st == CLG_SUCCESS) {
    int64_t dshape[2] = {4, 3}, ishape[1] = {2}, oshape[CLG_MAX_RANK];
    int32_t orank = 0;
    st = clg_gather_output_shape(2, dshape, 1, ishape, 0, &orank, oshape);
    clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, dshape, data);
    clg_tensor x = clg_tensor_host(CLG_DTYPE_INT32, 1, ishape, idx);
    clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, orank, oshape, out);
    if (st == CLG_SUCCESS)
      st = clg_gather(ctx, &d, &x, 0, &o, queue, 0, NULL, NULL);
  }
  if (st != CLG_SUCCESS)
    fprintf(stderr, "consumer_cl: %s: %s\n", clg_status_string(st),
            clg_last_error());
  clg_context_destroy(ctx);
  clReleaseCommandQueue(queue);
  clReleaseContext(cl_ctx);
  if (st != CLG_SUCCESS)
    return 1;
  if (memcmp(out, want, sizeof out) != 0) {
    fprintf(stderr, "consumer_cl: wrong gather result\n");
    return 1;
  }
  printf("consumer_cl OK: clgather %s on the caller's own OpenCL context\n",
         clg_version_string());
  return 0;
}
