/*
 * embed.c — clgather inside an application that owns its OpenCL objects.
 *
 * A runtime (an inference engine, a simulation) already has a cl_context, a
 * device and a command queue, and keeps its tensors in cl_mem buffers. This
 * program plays that runtime:
 *
 *   1. it picks a device and creates its own context and in-order queue;
 *   2. it produces int64 indices on the device with its own kernel, and
 *      uploads a float data matrix [ROWS, COLS] with a non-blocking write;
 *   3. it hands those buffers to clgather's Gather (axis 0) in asynchronous
 *      checked mode (clg_run_async), which waits for the two commands above
 *      through an event wait list and returns without waiting for the device;
 *   4. it chains the read of the output on clgather's completion event, and
 *      only then asks for the verdict on the indices (clg_outcome_wait).
 *
 * Nothing blocks between steps 2 and 4: the whole pipeline is enqueued first.
 *
 * Usage: clgather-example-embed [--bad]
 *   With --bad the index kernel writes one index out of bounds: clgather must
 *   report CLG_ERROR_INDEX_OUT_OF_BOUNDS and leave the output untouched.
 * Exit status: 0 when the expected outcome is observed, 1 on any error or
 * wrong result, 2 on a usage error.
 */
#include <clgather/clgather.h> /* also includes CL/cl.h, OpenCL 1.2 target */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  ROWS = 1000, /* data: ROWS x COLS floats */
  COLS = 64,
  NIDX = 4096,   /* indices: NIDX int64 values; output: NIDX x COLS floats */
  BAD_POS = 1234 /* with --bad, the position of the out-of-bounds index */
};
static const float SENTINEL = -7.5f; /* the output's fill before the gather */

/* The application's own kernel: idx[i] = (i * 7 + 3) % rows, with every odd
 * position written as the equivalent negative index (ONNX counts a negative
 * index from the end: -1 is the last row). At bad_pos (-1: none) it writes
 * `rows`, one past the last valid index. */
static const char index_kernel_source[] =
    "kernel void make_indices(global long *idx, long rows, long bad_pos) {\n"
    "  long i = (long)get_global_id(0);\n"
    "  long v = (i * 7 + 3) % rows;\n"
    "  if (i % 2 == 1) v -= rows;\n"
    "  if (i == bad_pos) v = rows;\n"
    "  idx[i] = v;\n"
    "}\n";

/* Print a failed OpenCL call; returns 1 so that callers can `goto done`. */
static int cl_failed(const char *call, cl_int err) {
  fprintf(stderr, "embed: %s failed: OpenCL error %d\n", call, (int)err);
  return 1;
}

/* Print a failed clgather call with its detail, clg_last_error(), which is
 * only valid until this thread's next clgather call. */
static int clg_failed(const char *call, clg_status st) {
  fprintf(stderr, "embed: %s failed: %s: %s\n", call, clg_status_string(st),
          clg_last_error());
  return 1;
}

/* The first GPU of the first platform that has one, else the first device of
 * the first platform that has any. (clgather's CLGATHER_DEVICE variable only
 * concerns clg_context_create_default(): an embedding application chooses
 * its device itself.) */
static cl_int pick_device(cl_platform_id *platform, cl_device_id *device) {
  cl_platform_id platforms[16];
  cl_uint count = 0;
  cl_int err = clGetPlatformIDs(16, platforms, &count);
  if (err != CL_SUCCESS)
    return err;
  if (count > 16)
    count = 16;
  const cl_device_type types[2] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL};
  for (int t = 0; t < 2; ++t)
    for (cl_uint p = 0; p < count; ++p) {
      cl_uint n = 0;
      if (clGetDeviceIDs(platforms[p], types[t], 1, device, &n) == CL_SUCCESS &&
          n > 0) {
        *platform = platforms[p];
        return CL_SUCCESS;
      }
    }
  return CL_DEVICE_NOT_FOUND;
}

/* Everything the program creates, released by app_release(). */
struct app {
  cl_context context;
  cl_command_queue queue;
  cl_program program;
  cl_kernel kernel;
  cl_mem d_data, d_idx, d_out;
  cl_event ev_write, ev_fill, ev_idx, ev_gather, ev_read_out, ev_read_idx;
  clg_context *g;
  clg_outcome *outcome;
  float *data, *out; /* host copies of the data and the output */
  cl_long *idx;      /* host copy of the indices */
};

/* The pipeline; returns the exit status. */
static int run(struct app *a, int bad) {
  cl_int err;
  a->data = malloc(sizeof(float) * ROWS * COLS);
  a->out = malloc(sizeof(float) * NIDX * COLS);
  a->idx = malloc(sizeof(cl_long) * NIDX);
  if (!a->data || !a->out || !a->idx) {
    fprintf(stderr, "embed: out of host memory\n");
    return 1;
  }

  /* ---- 1. The application's OpenCL objects. ---- */
  cl_platform_id platform;
  cl_device_id device;
  if ((err = pick_device(&platform, &device)) != CL_SUCCESS)
    return cl_failed("finding an OpenCL device", err);
  char name[256] = "";
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)platform, 0};
  a->context = clCreateContext(props, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS)
    return cl_failed("clCreateContext", err);
  /* In-order (properties 0). The events below would make an out-of-order
   * queue work as well: clgather honours wait lists either way. */
  a->queue = clCreateCommandQueue(a->context, device, 0, &err);
  if (err != CL_SUCCESS)
    return cl_failed("clCreateCommandQueue", err);

  /* ---- 2. The application's own kernel, and its buffers. ---- */
  const char *src = index_kernel_source;
  a->program = clCreateProgramWithSource(a->context, 1, &src, NULL, &err);
  if (err != CL_SUCCESS)
    return cl_failed("clCreateProgramWithSource", err);
  if ((err = clBuildProgram(a->program, 1, &device, "", NULL, NULL)) !=
      CL_SUCCESS) {
    char log[4096] = "";
    clGetProgramBuildInfo(a->program, device, CL_PROGRAM_BUILD_LOG,
                          sizeof log - 1, log, NULL);
    fprintf(stderr, "embed: build log:\n%s\n", log);
    return cl_failed("clBuildProgram", err);
  }
  a->kernel = clCreateKernel(a->program, "make_indices", &err);
  if (err != CL_SUCCESS)
    return cl_failed("clCreateKernel", err);

  /* clgather reads data and indices and writes the output: inputs must not
   * be CL_MEM_WRITE_ONLY, the output not CL_MEM_READ_ONLY. */
  a->d_data = clCreateBuffer(a->context, CL_MEM_READ_ONLY,
                             sizeof(float) * ROWS * COLS, NULL, &err);
  if (err == CL_SUCCESS)
    a->d_idx = clCreateBuffer(a->context, CL_MEM_READ_WRITE,
                              sizeof(cl_long) * NIDX, NULL, &err);
  if (err == CL_SUCCESS)
    a->d_out = clCreateBuffer(a->context, CL_MEM_READ_WRITE,
                              sizeof(float) * NIDX * COLS, NULL, &err);
  if (err != CL_SUCCESS)
    return cl_failed("clCreateBuffer", err);

  /* Data: row r, column c holds r * 100 + c (exact in float). The write is
   * non-blocking: a->data must stay alive until ev_write completes. */
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < COLS; ++c)
      a->data[r * COLS + c] = (float)(r * 100 + c);
  err = clEnqueueWriteBuffer(a->queue, a->d_data, CL_FALSE, 0,
                             sizeof(float) * ROWS * COLS, a->data, 0, NULL,
                             &a->ev_write);
  if (err != CL_SUCCESS)
    return cl_failed("clEnqueueWriteBuffer", err);
  /* The output starts as a sentinel, so that we can see what was written. */
  err = clEnqueueFillBuffer(a->queue, a->d_out, &SENTINEL, sizeof SENTINEL, 0,
                            sizeof(float) * NIDX * COLS, 0, NULL, &a->ev_fill);
  if (err != CL_SUCCESS)
    return cl_failed("clEnqueueFillBuffer", err);
  /* The indices, produced on the device: the host never sees them before
   * clgather has checked them. */
  cl_long rows_arg = ROWS, bad_arg = bad ? BAD_POS : -1;
  size_t global = NIDX;
  err = clSetKernelArg(a->kernel, 0, sizeof a->d_idx, &a->d_idx);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(a->kernel, 1, sizeof rows_arg, &rows_arg);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(a->kernel, 2, sizeof bad_arg, &bad_arg);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(a->queue, a->kernel, 1, NULL, &global, NULL, 0,
                                 NULL, &a->ev_idx);
  if (err != CL_SUCCESS)
    return cl_failed("enqueueing make_indices", err);

  /* ---- 3. clgather on the application's objects. ---- */
  /* Borrows (retains) the context and device; compiles nothing yet. */
  clg_status st = clg_context_create(a->context, device, &a->g);
  if (st != CLG_SUCCESS)
    return clg_failed("clg_context_create", st);
  clg_params params = {.op = CLG_OP_GATHER, .axis = 0, .mode = CLG_MODE_RAISE};
  int64_t dshape[2] = {ROWS, COLS}, ishape[1] = {NIDX}, oshape[CLG_MAX_RANK];
  int32_t orank = 0;
  st = clg_output_shape(&params, 2, dshape, 1, ishape, &orank, oshape);
  if (st != CLG_SUCCESS)
    return clg_failed("clg_output_shape", st);
  /* Here orank == 2 and oshape == {NIDX, COLS}: the size of d_out. */
  clg_tensor t_data =
      clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, dshape, a->d_data, 0);
  clg_tensor t_idx = clg_tensor_buffer(CLG_DTYPE_INT64, 1, ishape, a->d_idx, 0);
  clg_tensor t_out =
      clg_tensor_buffer(CLG_DTYPE_FLOAT, orank, oshape, a->d_out, 0);

  /* Every command clgather enqueues waits for these three events. The call
   * checks at once everything it can without the index values (shapes,
   * types, buffer sizes and flags) and returns such errors itself; the
   * index values are checked on the device, and the verdict kept there. */
  cl_event deps[3] = {a->ev_write, a->ev_fill, a->ev_idx};
  st = clg_run_async(a->g, &params, &t_data, &t_idx, &t_out, a->queue, 3, deps,
                     &a->ev_gather, &a->outcome);
  if (st != CLG_SUCCESS)
    return clg_failed("clg_run_async", st);

  /* ---- 4. Chain the consumers, then ask for the verdict. ---- */
  err = clEnqueueReadBuffer(a->queue, a->d_out, CL_FALSE, 0,
                            sizeof(float) * NIDX * COLS, a->out, 1,
                            &a->ev_gather, &a->ev_read_out);
  if (err == CL_SUCCESS) /* the indices too, for the host reference */
    err = clEnqueueReadBuffer(a->queue, a->d_idx, CL_FALSE, 0,
                              sizeof(cl_long) * NIDX, a->idx, 1, &a->ev_idx,
                              &a->ev_read_idx);
  if (err != CL_SUCCESS)
    return cl_failed("clEnqueueReadBuffer", err);
  /* Blocks until the validation kernel has run; flushes our queue. On a bad
   * index the gather kernel still runs (and completes ev_gather) but writes
   * nothing, so the read above returns the untouched output. */
  st = clg_outcome_wait(a->outcome);
  char verdict[1024]; /* clg_last_error() lasts until the next clg_ call */
  snprintf(verdict, sizeof verdict, "%s", clg_last_error());
  cl_event reads[2] = {a->ev_read_out, a->ev_read_idx};
  if ((err = clWaitForEvents(2, reads)) != CL_SUCCESS)
    return cl_failed("clWaitForEvents", err);

  if (bad) {
    if (st != CLG_ERROR_INDEX_OUT_OF_BOUNDS) {
      fprintf(stderr, "embed: expected \"%s\", got \"%s\": %s\n",
              clg_status_string(CLG_ERROR_INDEX_OUT_OF_BOUNDS),
              clg_status_string(st), verdict);
      return 1;
    }
    printf("embed: rejected as expected: %s\n", verdict);
    for (int i = 0; i < NIDX * COLS; ++i)
      if (memcmp(&a->out[i], &SENTINEL, sizeof SENTINEL) != 0) {
        fprintf(stderr, "embed: output element %d was written (%g)\n", i,
                (double)a->out[i]);
        return 1;
      }
    printf("embed: the output still holds its initial fill\n");
    return 0;
  }
  if (st != CLG_SUCCESS) {
    fprintf(stderr, "embed: clg_outcome_wait: %s: %s\n", clg_status_string(st),
            verdict);
    return 1;
  }
  /* The plain-C gather: output row i is data row idx[i] (a negative index
   * counts from the end), compared byte for byte. */
  for (int i = 0; i < NIDX; ++i) {
    cl_long k = a->idx[i] < 0 ? a->idx[i] + ROWS : a->idx[i];
    if (k < 0 || k >= ROWS ||
        memcmp(&a->out[i * COLS], &a->data[k * COLS], sizeof(float) * COLS) !=
            0) {
      fprintf(stderr, "embed: output row %d is not data row %ld\n", i, (long)k);
      return 1;
    }
  }
  printf("embed: gathered %d rows of %d floats from [%d, %d] on %s: "
         "matches the host reference\n",
         NIDX, COLS, ROWS, COLS, name);
  return 0;
}

/* Let every enqueued command finish before freeing the host memory they read
 * or write, then release in reverse order of creation: clgather's objects
 * before the OpenCL context and queue they borrow. */
static void app_release(struct app *a) {
  if (a->queue)
    clFinish(a->queue);
  clg_outcome_release(a->outcome);
  clg_context_destroy(a->g);
  cl_event events[] = {a->ev_write,  a->ev_fill,     a->ev_idx,
                       a->ev_gather, a->ev_read_out, a->ev_read_idx};
  for (size_t i = 0; i < sizeof events / sizeof events[0]; ++i)
    if (events[i])
      clReleaseEvent(events[i]);
  cl_mem mems[] = {a->d_out, a->d_idx, a->d_data};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; ++i)
    if (mems[i])
      clReleaseMemObject(mems[i]);
  if (a->kernel)
    clReleaseKernel(a->kernel);
  if (a->program)
    clReleaseProgram(a->program);
  if (a->queue)
    clReleaseCommandQueue(a->queue);
  if (a->context)
    clReleaseContext(a->context);
  free(a->idx);
  free(a->out);
  free(a->data);
}

int main(int argc, char **argv) {
  int bad = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--bad") != 0) {
      fprintf(stderr, "usage: %s [--bad]\n", argv[0]);
      return 2;
    }
    bad = 1;
  }
  struct app a = {0};
  int rc = run(&a, bad);
  app_release(&a);
  return rc;
}
