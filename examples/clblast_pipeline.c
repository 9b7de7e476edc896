/*
 * clblast_pipeline.c — clgather feeding CLBlast on one command queue.
 *
 * The first two layers of a small model, as a runtime that keeps its
 * tensors in cl_mem buffers would run them:
 *
 *   1. embedding lookup: output[b, :] = data[indices[b], :], ONNX Gather on
 *      axis 0 (clg_gather), data [V, D] float, indices [B] int64 (negative
 *      indices count from the end), output [B, D] float;
 *   2. a dense layer without bias: result = output × weights, [B, D] × [D, H]
 *      → [B, H] (CLBlastSgemm, row-major).
 *
 * Both run on ONE in-order command queue and the gathered rows never come
 * back to the host between the two: clg_gather only enqueues (after checking
 * every index), and the GEMM reads its output buffer on the device.
 *
 * Ordering. CLBlast's C API takes a cl_command_queue* and returns a cl_event
 * for its last kernel, but has no event wait list: it relies on the queue's
 * order. On an in-order queue every command starts after the previous one
 * has completed, so the GEMM already runs after the gather. The program
 * still puts the gather's event into the chain explicitly, with a barrier
 * that waits for it (clEnqueueBarrierWithWaitList), so the dependency is
 * written down rather than implied and survives reordering of the code. An
 * out-of-order queue is not an option here: CLBlast's routines expect
 * in-order queues.
 *
 * Then the program reads both results back, compares the gathered rows byte
 * for byte and the product within a rounding bound against a plain-C gather
 * and matrix product, and shows the checked error: a gather with one index
 * out of bounds fails in clg_gather itself, before anything is enqueued; the
 * program prints the library's message, enqueues no GEMM, and checks that
 * the output buffer was not written.
 *
 * Exit status: 0 when both parts behave as expected, 1 on a mismatch or any
 * error, 2 on a usage error (the program takes no arguments).
 */
/* clgather.h first: it sets the OpenCL 1.2 target before CL/cl.h, which
 * clblast_c.h would otherwise include with the headers' default target. */
#include <clgather/clgather.h>

#include <clblast_c.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  V = 5000, /* vocabulary: data is [V, D] */
  D = 96,   /* embedding width, the GEMM's k */
  B = 300,  /* indices per batch: output is [B, D] */
  H = 80,   /* dense layer's width: weights [D, H], result [B, H] */
  BAD_POS = 123 /* the out-of-bounds index's position in the second part */
};

/* Deterministic pseudo-random numbers (a 64-bit LCG, top bits). */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint32_t rng_next(void) {
  rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
  return (uint32_t)(rng_state >> 33);
}
/* Uniform in [-1, 1), a multiple of 2^-12: exact in float. */
static float rng_float(void) {
  return (float)((int32_t)(rng_next() % 8192u) - 4096) / 4096.0f;
}

static int cl_failed(const char *call, cl_int err) {
  fprintf(stderr, "clblast_pipeline: %s failed: OpenCL error %d\n", call,
          (int)err);
  return 1;
}

/* clg_last_error() is the calling thread's detail of its last failed call. */
static int clg_failed(const char *call, clg_status st) {
  fprintf(stderr, "clblast_pipeline: %s failed: %s: %s\n", call,
          clg_status_string(st), clg_last_error());
  return 1;
}

/* The first GPU of the first platform that has one, else the first device of
 * the first platform that has any (as examples/embed.c). */
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
  cl_mem d_data, d_idx, d_bad_idx, d_out, d_weights, d_result;
  cl_event ev_gather, ev_gemm;
  clg_context *g;
  float *data, *weights, *out, *result, *out_after;
  int64_t *idx;
};

static cl_mem make_buffer(struct app *a, cl_mem_flags flags, size_t bytes,
                          void *host, cl_int *err) {
  if (*err != CL_SUCCESS)
    return NULL;
  return clCreateBuffer(a->context, flags | (host ? CL_MEM_COPY_HOST_PTR : 0),
                        bytes, host, err);
}

/* Part 1: gather, then GEMM, on one queue; compare with plain C. */
static int pipeline(struct app *a, cl_device_id device, const char *name) {
  cl_int err = CL_SUCCESS;
  /* Tensors on the device: the inputs copied at creation, the output and
   * the result written by the device only. */
  a->d_data = make_buffer(a, CL_MEM_READ_ONLY, sizeof(float) * V * D, a->data,
                          &err);
  a->d_idx = make_buffer(a, CL_MEM_READ_ONLY, sizeof(int64_t) * B, a->idx,
                         &err);
  a->d_weights = make_buffer(a, CL_MEM_READ_ONLY, sizeof(float) * D * H,
                             a->weights, &err);
  a->d_out = make_buffer(a, CL_MEM_READ_WRITE, sizeof(float) * B * D, NULL,
                         &err);
  a->d_result = make_buffer(a, CL_MEM_READ_WRITE, sizeof(float) * B * H, NULL,
                            &err);
  if (err != CL_SUCCESS)
    return cl_failed("clCreateBuffer", err);

  /* 1. The embedding lookup. All three tensors are cl_mem: the call checks
   * every index (these 2.4 KB of indices by reading them back; large arrays
   * by a validation kernel), then enqueues the gather and returns. */
  clg_status st = clg_context_create(a->context, device, &a->g);
  if (st != CLG_SUCCESS)
    return clg_failed("clg_context_create", st);
  int64_t dshape[2] = {V, D}, ishape[1] = {B}, oshape[2] = {B, D};
  clg_tensor t_data = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, dshape, a->d_data,
                                        0);
  clg_tensor t_idx = clg_tensor_buffer(CLG_DTYPE_INT64, 1, ishape, a->d_idx, 0);
  clg_tensor t_out = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, oshape, a->d_out, 0);
  st = clg_gather(a->g, &t_data, &t_idx, /*axis=*/0, &t_out, a->queue, 0, NULL,
                  &a->ev_gather);
  if (st != CLG_SUCCESS)
    return clg_failed("clg_gather", st);

  /* 2. The GEMM, after the gather: implied by the in-order queue, and
   * spelled out by a barrier on the gather's event (CLBlast takes no wait
   * list). result[B, H] = 1 * output[B, D] x weights[D, H] + 0 * result. */
  err = clEnqueueBarrierWithWaitList(a->queue, 1, &a->ev_gather, NULL);
  if (err != CL_SUCCESS)
    return cl_failed("clEnqueueBarrierWithWaitList", err);
  CLBlastStatusCode bs = CLBlastSgemm(
      CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, B, H, D,
      1.0f, a->d_out, 0, D, a->d_weights, 0, H, 0.0f, a->d_result, 0, H,
      &a->queue, &a->ev_gemm);
  if (bs != CLBlastSuccess) {
    fprintf(stderr,
            "clblast_pipeline: CLBlastSgemm failed: CLBlast status %d "
            "(clblast_c.h's CLBlastStatusCode)\n",
            (int)bs);
    return 1;
  }

  /* 3. Back to the host, after the GEMM (the in-order queue again; the wait
   * list names it). The gathered rows too, to check the gather alone. */
  err = clEnqueueReadBuffer(a->queue, a->d_result, CL_TRUE, 0,
                            sizeof(float) * B * H, a->result, 1, &a->ev_gemm,
                            NULL);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(a->queue, a->d_out, CL_TRUE, 0,
                              sizeof(float) * B * D, a->out, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return cl_failed("clEnqueueReadBuffer", err);

  /* The plain-C reference. The gather moves bytes: compared exactly. */
  for (int b = 0; b < B; ++b) {
    int64_t k = a->idx[b] < 0 ? a->idx[b] + V : a->idx[b];
    if (memcmp(&a->out[b * D], &a->data[k * D], sizeof(float) * D) != 0) {
      fprintf(stderr, "clblast_pipeline: output row %d is not data row %ld\n",
              b, (long)k);
      return 1;
    }
  }
  /* The product is a float sum whose order the GEMM chooses (tiles, vector
   * lanes, fused multiply-adds), so it is compared within the classic
   * bound for a dot product of length D computed in floating point in ANY
   * order: |computed - exact| <= gamma_D * sum_d |a_d * w_d|, with
   * gamma_D = D*u / (1 - D*u) and u = FLT_EPSILON / 2, the unit roundoff
   * (Higham, Accuracy and Stability of Numerical Algorithms, eq. 3.5). The
   * reference is summed in double, whose own error is ~2^-29 of that bound.
   * A wrong row, column or weight breaks it by orders of magnitude. */
  const double u = FLT_EPSILON / 2.0;
  const double gamma = D * u / (1.0 - D * u);
  double worst = 0.0; /* largest |error| / bound */
  for (int b = 0; b < B; ++b) {
    int64_t k = a->idx[b] < 0 ? a->idx[b] + V : a->idx[b];
    for (int h = 0; h < H; ++h) {
      double exact = 0.0, mag = 0.0;
      for (int d = 0; d < D; ++d) {
        double p = (double)a->data[k * D + d] * (double)a->weights[d * H + h];
        exact += p;
        mag += fabs(p);
      }
      double got = a->result[b * H + h], bound = gamma * mag;
      double e = fabs(got - exact);
      if (!(e <= bound)) { /* NaN fails too */
        fprintf(stderr,
                "clblast_pipeline: result[%d, %d] = %.9g, expected %.9g "
                "(|error| %.3g > bound %.3g)\n",
                b, h, got, exact, e, bound);
        return 1;
      }
      if (bound > 0.0 && e / bound > worst)
        worst = e / bound;
    }
  }
  printf("clblast_pipeline: embedding [%d, %d] gathered by %d int64 indices, "
         "then [%d, %d] x [%d, %d] by CLBlastSgemm, one in-order queue on %s: "
         "gathered rows exact, product within the rounding bound "
         "(worst |error| = %.3f of it)\n",
         V, D, B, B, D, D, H, name, worst);
  return 0;
}

/* Part 2: the checked error. The output buffer holds part 1's rows; a
 * gather with one index out of bounds must fail in the call, enqueue
 * nothing, and leave them as they are. */
static int checked_error(struct app *a) {
  a->idx[BAD_POS] = V; /* one past the last row */
  cl_int err = CL_SUCCESS;
  a->d_bad_idx = make_buffer(a, CL_MEM_READ_ONLY, sizeof(int64_t) * B, a->idx,
                             &err);
  if (err != CL_SUCCESS)
    return cl_failed("clCreateBuffer", err);
  int64_t dshape[2] = {V, D}, ishape[1] = {B}, oshape[2] = {B, D};
  clg_tensor t_data = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, dshape, a->d_data,
                                        0);
  clg_tensor t_idx = clg_tensor_buffer(CLG_DTYPE_INT64, 1, ishape, a->d_bad_idx,
                                       0);
  clg_tensor t_out = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, oshape, a->d_out, 0);
  cl_event ev = NULL;
  clg_status st = clg_gather(a->g, &t_data, &t_idx, 0, &t_out, a->queue, 0,
                             NULL, &ev);
  if (st != CLG_ERROR_INDEX_OUT_OF_BOUNDS) {
    fprintf(stderr, "clblast_pipeline: expected %s from clg_gather, got %s%s%s\n",
            clg_status_string(CLG_ERROR_INDEX_OUT_OF_BOUNDS),
            clg_status_string(st), st != CLG_SUCCESS ? ": " : "",
            st != CLG_SUCCESS ? clg_last_error() : "");
    if (ev)
      clReleaseEvent(ev);
    return 1;
  }
  /* No event on error, and nothing was enqueued: so no GEMM either. */
  printf("clblast_pipeline: bad index refused before anything was enqueued "
         "(%s): %s\n",
         clg_status_string(st), clg_last_error());
  if (ev != NULL) {
    fprintf(stderr, "clblast_pipeline: clg_gather set an event on error\n");
    clReleaseEvent(ev);
    return 1;
  }
  err = clEnqueueReadBuffer(a->queue, a->d_out, CL_TRUE, 0,
                            sizeof(float) * B * D, a->out_after, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return cl_failed("clEnqueueReadBuffer", err);
  if (memcmp(a->out_after, a->out, sizeof(float) * B * D) != 0) {
    fprintf(stderr, "clblast_pipeline: the refused gather changed the output\n");
    return 1;
  }
  printf("clblast_pipeline: the output buffer is unchanged; no GEMM was "
         "enqueued\n");
  return 0;
}

static int run(struct app *a) {
  a->data = malloc(sizeof(float) * V * D);
  a->weights = malloc(sizeof(float) * D * H);
  a->out = malloc(sizeof(float) * B * D);
  a->out_after = malloc(sizeof(float) * B * D);
  a->result = malloc(sizeof(float) * B * H);
  a->idx = malloc(sizeof(int64_t) * B);
  if (!a->data || !a->weights || !a->out || !a->out_after || !a->result ||
      !a->idx) {
    fprintf(stderr, "clblast_pipeline: out of host memory\n");
    return 1;
  }
  for (int i = 0; i < V * D; ++i)
    a->data[i] = rng_float();
  for (int i = 0; i < D * H; ++i)
    a->weights[i] = rng_float();
  for (int b = 0; b < B; ++b) { /* every third index negative (from the end) */
    int64_t k = (int64_t)(rng_next() % V);
    a->idx[b] = b % 3 == 2 ? k - V : k;
  }

  cl_platform_id platform;
  cl_device_id device;
  cl_int err = pick_device(&platform, &device);
  if (err != CL_SUCCESS)
    return cl_failed("finding an OpenCL device", err);
  char name[256] = "";
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)platform, 0};
  a->context = clCreateContext(props, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS)
    return cl_failed("clCreateContext", err);
  a->queue = clCreateCommandQueue(a->context, device, 0, &err); /* in-order */
  if (err != CL_SUCCESS)
    return cl_failed("clCreateCommandQueue", err);

  int rc = pipeline(a, device, name);
  if (rc == 0)
    rc = checked_error(a);
  return rc;
}

/* Wait for everything enqueued, then release in reverse order of creation:
 * CLBlast's cached programs and clgather's context before the OpenCL
 * context they use. */
static void app_release(struct app *a) {
  if (a->queue)
    clFinish(a->queue);
  CLBlastClearCache();
  clg_context_destroy(a->g);
  if (a->ev_gemm)
    clReleaseEvent(a->ev_gemm);
  if (a->ev_gather)
    clReleaseEvent(a->ev_gather);
  cl_mem mems[] = {a->d_result, a->d_weights, a->d_out,
                   a->d_bad_idx, a->d_idx, a->d_data};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; ++i)
    if (mems[i])
      clReleaseMemObject(mems[i]);
  if (a->queue)
    clReleaseCommandQueue(a->queue);
  if (a->context)
    clReleaseContext(a->context);
  free(a->idx);
  free(a->result);
  free(a->out_after);
  free(a->out);
  free(a->weights);
  free(a->data);
}

int main(int argc, char **argv) {
  if (argc > 1) {
    fprintf(stderr, "usage: %s (no arguments)\n", argv[0]);
    return 2;
  }
  struct app a = {0};
  int rc = run(&a);
  app_release(&a);
  return rc;
}
