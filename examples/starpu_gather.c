/*
 * starpu_gather.c — clgather inside StarPU, a task-based runtime.
 *
 * StarPU owns the OpenCL context, the command queue and the buffers; it
 * moves data between host and device and calls a codelet's OpenCL or CPU
 * implementation on whichever worker it picks. This program shows the
 * rules for embedding clgather in such a runtime (docs/runtimes.md,
 * "Embedding in a runtime"):
 *
 *   1. one clg_context per OpenCL device, created on the device's worker
 *      when StarPU starts (starpu_execute_on_each_worker), its kernels built
 *      there (a plan baked) so that no task pays for a build; destroyed
 *      after starpu_shutdown();
 *   2. an OpenCL codelet calls clg_run() on StarPU's context and queue with
 *      the handles' cl_mem and byte offsets; a CPU codelet is a plain loop;
 *      the two outputs are compared byte for byte. Indices and outputs are
 *      partitioned into blocks of whole rows, so the device copies start at
 *      non-zero byte offsets;
 *   3. both checked modes: clg_run() (synchronous codelet) and clg_run_async()
 *      in StarPU's asynchronous OpenCL mode, its outcome waited for inside
 *      the task, before StarPU releases the output to later tasks;
 *   4. the error path: a codelet returns void, and clg_last_error() is per
 *      thread, so the status and the message are copied inside the worker
 *      into a struct of the task's cl_arg. The output is declared STARPU_RW:
 *      a failed call leaves the device copy as it was, and StarPU keeps it.
 *      (Declared STARPU_W, the device copy would be a recycled buffer that
 *      StarPU marks valid after the task, failed or not.)
 *
 * Column blocks of a matrix (starpu_matrix_filter_block) have rows ld
 * elements apart with ld > nx on the device: they are passed as strided
 * tensors (clg_tensor_strided), by run_column_blocks().
 *
 * POCL's CPU device is an OpenCL device StarPU ignores unless
 * STARPU_OPENCL_ON_CPUS=1 (set here unless already set). Exit status: 0
 * when every check passes, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <starpu.h> /* includes CL/cl.h with CL_TARGET_OPENCL_VERSION 100 */
/* After it: clgather.h needs only OpenCL 1.0 types and keeps that value. */
#include <clgather/clgather.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  ROWS = 512,  /* data: ROWS x COLS floats */
  COLS = 64,   /* output: NIDX x COLS floats */
  NIDX = 1024, /* indices: NIDX int64 */
  NPARTS = 4,  /* indices and outputs in NPARTS blocks of whole rows */
  BAD_POS = 37 /* in the failing tasks' indices: the out-of-bounds entry */
};

/* What a task hands back: a StarPU codelet returns void. */
struct task_result {
  clg_status status;
  char message[512]; /* clg_last_error(), copied on the worker's thread */
  size_t out_offset; /* the output's byte offset in its cl_mem, as seen */
};

/* Per OpenCL device (StarPU's devid): its clg_context. */
static struct {
  clg_context *ctx;
  clg_status status;
  char message[512];
} devices[STARPU_MAXOPENCLDEVS];

static void record(struct task_result *res, clg_status st) {
  res->status = st;
  snprintf(res->message, sizeof res->message, "%s",
           st == CLG_SUCCESS ? "" : clg_last_error());
}

/* A matrix handle's device copy as a tensor of shape [ny, nx]: its cl_mem
 * and the byte offset of its first element, and its rows ld elements apart
 * (a strided tensor when ld != nx; the returned clg_tensor is then the
 * first member of *d, which holds the strides). */
static const clg_tensor *matrix_tensor(void *iface, clg_strided_tensor *d) {
  int64_t shape[2] = {STARPU_MATRIX_GET_NY(iface), STARPU_MATRIX_GET_NX(iface)};
  int64_t ld = STARPU_MATRIX_GET_LD(iface);
  d->tensor = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, shape,
                                (cl_mem)STARPU_MATRIX_GET_DEV_HANDLE(iface),
                                STARPU_MATRIX_GET_OFFSET(iface));
  if (ld == shape[1])
    return &d->tensor;
  int64_t strides[2] = {ld, 1}; /* in elements */
  clg_tensor dense = d->tensor;
  *d = clg_tensor_strided(&dense, strides);
  return &d->tensor;
}

/* The OpenCL implementation: Gather on axis 0 of buffers[0] (data matrix)
 * by buffers[1] (int64 vector) into buffers[2] (output matrix), on the
 * device and queue of the worker running the task. */
static void gather_opencl(void *buffers[], void *arg, int async) {
  struct task_result *res = arg;
  int devid = starpu_worker_get_devid(starpu_worker_get_id());
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);

  clg_strided_tensor data_d, out_d;
  const clg_tensor *data = matrix_tensor(buffers[0], &data_d);
  const clg_tensor *out = matrix_tensor(buffers[2], &out_d);
  int64_t n = STARPU_VECTOR_GET_NX(buffers[1]);
  clg_tensor idx = clg_tensor_buffer(
      CLG_DTYPE_INT64, 1, &n, (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[1]),
      STARPU_VECTOR_GET_OFFSET(buffers[1]));
  res->out_offset = STARPU_MATRIX_GET_OFFSET(buffers[2]);

  clg_params gather = {.op = CLG_OP_GATHER, .axis = 0};
  if (!async) {
    /* Checked before anything is enqueued; clFinish: a synchronous
     * codelet's work is done when it returns. */
    clg_status st = clg_run(devices[devid].ctx, &gather, data, &idx, out, queue,
                            0, NULL, NULL);
    if (st == CLG_SUCCESS && clFinish(queue) != CL_SUCCESS)
      st = CLG_ERROR_OPENCL;
    record(res, st);
    return;
  }
  /* STARPU_OPENCL_ASYNC: StarPU waits for the queue after we return. The
   * verdict is waited for here (the validation kernel only, not the
   * gather), so that it leaves the task with it; copy the message before
   * the next clgather call (clg_outcome_release) replaces it. */
  clg_outcome *outcome = NULL;
  clg_status st = clg_run_async(devices[devid].ctx, &gather, data, &idx, out,
                                queue, 0, NULL, NULL, &outcome);
  if (st == CLG_SUCCESS)
    st = clg_outcome_wait(outcome);
  record(res, st);
  clg_outcome_release(outcome);
}

static void gather_opencl_sync(void *buffers[], void *arg) {
  gather_opencl(buffers, arg, 0);
}
static void gather_opencl_async(void *buffers[], void *arg) {
  gather_opencl(buffers, arg, 1);
}

/* The CPU implementation, the reference: a plain loop. */
static void gather_cpu(void *buffers[], void *arg) {
  struct task_result *res = arg;
  const float *data = (const float *)STARPU_MATRIX_GET_PTR(buffers[0]);
  const int64_t *idx = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
  float *out = (float *)STARPU_MATRIX_GET_PTR(buffers[2]);
  uint32_t rows = STARPU_MATRIX_GET_NY(buffers[0]);
  uint32_t cols = STARPU_MATRIX_GET_NX(buffers[0]);
  uint32_t ld = STARPU_MATRIX_GET_LD(buffers[0]);
  uint32_t out_ld = STARPU_MATRIX_GET_LD(buffers[2]);
  for (uint32_t i = 0; i < STARPU_VECTOR_GET_NX(buffers[1]); ++i) {
    int64_t k = idx[i] < 0 ? idx[i] + rows : idx[i];
    memcpy(out + (size_t)i * out_ld, data + (size_t)k * ld, cols * sizeof *out);
  }
  res->status = CLG_SUCCESS;
}

/* One codelet per implementation, so that each task runs where we say. */
static struct starpu_codelet cl_sync = {
    .opencl_funcs = {gather_opencl_sync},
    .nbuffers = 3,
    .modes = {STARPU_R, STARPU_R, STARPU_RW}, /* RW: see the top comment */
    .name = "clg_gather_sync"};
static struct starpu_codelet cl_async = {
    .opencl_funcs = {gather_opencl_async},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 3,
    .modes = {STARPU_R, STARPU_R, STARPU_RW},
    .name = "clg_gather_async"};
static struct starpu_codelet cl_cpu = {.cpu_funcs = {gather_cpu},
                                       .nbuffers = 3,
                                       .modes = {STARPU_R, STARPU_R, STARPU_RW},
                                       .name = "gather_cpu"};

/* Run on each OpenCL worker as StarPU starts: the device's clg_context on
 * StarPU's cl_context, and a plan of the tasks' shape baked, so that its
 * kernels are built now rather than in the first task. The plan's programs
 * stay in the context's cache; a runtime with fixed shapes could also keep
 * the plan and call clg_plan_enqueue() in its tasks. */
static void device_start(void *arg) {
  (void)arg;
  int devid = starpu_worker_get_devid(starpu_worker_get_id());
  cl_context context;
  cl_device_id device;
  starpu_opencl_get_context(devid, &context);
  starpu_opencl_get_device(devid, &device);
  clg_context *ctx = NULL;
  clg_status st = clg_context_create(context, device, &ctx);
  for (unsigned flags = 0; st == CLG_SUCCESS && flags <= CLG_PLAN_ASYNC_CHECK;
       flags += CLG_PLAN_ASYNC_CHECK) {
    int64_t data_shape[2] = {ROWS, COLS}, n = NIDX / NPARTS;
    int64_t out_shape[2] = {NIDX / NPARTS, COLS};
    clg_tensor data =
        clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, data_shape, NULL, 0);
    clg_tensor idx = clg_tensor_buffer(CLG_DTYPE_INT64, 1, &n, NULL, 0);
    clg_tensor out = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, out_shape, NULL, 0);
    clg_plan *plan = NULL;
    st = clg_plan_create(ctx, NULL, &data, &idx, &out, flags, &plan);
    if (st == CLG_SUCCESS)
      st = clg_plan_bake(plan);
    clg_plan_destroy(plan);
  }
  devices[devid].ctx = ctx;
  devices[devid].status = st;
  snprintf(devices[devid].message, sizeof devices[devid].message, "%s",
           st == CLG_SUCCESS ? "" : clg_last_error());
}

static void submit(struct starpu_codelet *cl, starpu_data_handle_t data,
                   starpu_data_handle_t idx, starpu_data_handle_t out,
                   struct task_result *res) {
  struct starpu_task *task = starpu_task_create();
  task->cl = cl;
  task->handles[0] = data;
  task->handles[1] = idx;
  task->handles[2] = out;
  task->cl_arg = res; /* ours: StarPU does not free it (cl_arg_free 0) */
  task->cl_arg_size = sizeof *res;
  if (starpu_task_submit(task) != 0) {
    res->status = CLG_ERROR_INTERNAL;
    snprintf(res->message, sizeof res->message, "starpu_task_submit failed");
  }
}

static int failures = 0;
static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "starpu_gather: FAILED: %s\n", what);
    ++failures;
  }
}

/* Put a handle's valid copy on the device (as a previous task would), so
 * that its children, once partitioned, are views into that one buffer. */
static void to_device(starpu_data_handle_t h) {
  unsigned node = starpu_worker_get_memory_node(
      (unsigned)starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0));
  starpu_data_fetch_on_node(h, node, 0);
}

/* Column blocks: data[:, c0:c1] gathered into out[:, c0:c1]. On the device
 * both are views of the whole matrices, rows COLS elements apart. */
static void run_column_blocks(starpu_data_handle_t data,
                              starpu_data_handle_t idx,
                              starpu_data_handle_t out) {
  enum { NCOLPARTS = 2 };
  struct starpu_data_filter by_cols = {
      .filter_func = starpu_matrix_filter_block, .nchildren = NCOLPARTS};
  struct task_result res[NCOLPARTS] = {0};
  to_device(out);
  starpu_data_partition(data, &by_cols);
  starpu_data_partition(out, &by_cols);
  for (int p = 0; p < NCOLPARTS; ++p)
    submit(p % 2 ? &cl_async : &cl_sync, starpu_data_get_sub_data(data, 1, p),
           idx, starpu_data_get_sub_data(out, 1, p), &res[p]);
  starpu_task_wait_for_all();
  for (int p = 0; p < NCOLPARTS; ++p)
    check(res[p].status == CLG_SUCCESS, res[p].message);
  starpu_data_unpartition(data, STARPU_MAIN_RAM);
  starpu_data_unpartition(out, STARPU_MAIN_RAM);
}

int main(void) {
  static float table[ROWS * COLS], out_cl[NIDX * COLS], out_cpu[NIDX * COLS];
  static float out_cols[NIDX * COLS], before[NIDX / NPARTS * COLS];
  static int64_t idx[NIDX], bad[NIDX / NPARTS];
  for (int i = 0; i < ROWS * COLS; ++i)
    table[i] = (float)i * 0.5f;
  for (int i = 0; i < NIDX; ++i) /* odd positions count from the end */
    idx[i] = (i * 37 + 11) % ROWS - (i % 2 ? ROWS : 0);
  memcpy(bad, idx + NIDX / NPARTS, sizeof bad); /* part 1's indices */
  bad[BAD_POS] = ROWS;                          /* one past the last row */
  memset(out_cl, 0xA5, sizeof out_cl);
  memset(out_cpu, 0x5A, sizeof out_cpu);
  memset(out_cols, 0x3C, sizeof out_cols);

  setenv("STARPU_OPENCL_ON_CPUS", "1", 0);
  if (starpu_init(NULL) != 0 || starpu_opencl_worker_get_count() == 0) {
    fprintf(stderr, "starpu_gather: StarPU has no OpenCL worker\n");
    return 1;
  }
  unsigned ndevices = starpu_opencl_worker_get_count();
  starpu_execute_on_each_worker(device_start, NULL, STARPU_OPENCL);
  for (unsigned d = 0; d < ndevices; ++d)
    check(devices[d].status == CLG_SUCCESS, devices[d].message);

  starpu_data_handle_t h_data, h_idx, h_bad, h_cl, h_cpu, h_cols;
  starpu_matrix_data_register(&h_data, STARPU_MAIN_RAM, (uintptr_t)table, COLS,
                              COLS, ROWS, sizeof(float));
  starpu_vector_data_register(&h_idx, STARPU_MAIN_RAM, (uintptr_t)idx, NIDX,
                              sizeof(int64_t));
  starpu_vector_data_register(&h_bad, STARPU_MAIN_RAM, (uintptr_t)bad,
                              NIDX / NPARTS, sizeof(int64_t));
  starpu_matrix_data_register(&h_cl, STARPU_MAIN_RAM, (uintptr_t)out_cl, COLS,
                              COLS, NIDX, sizeof(float));
  starpu_matrix_data_register(&h_cpu, STARPU_MAIN_RAM, (uintptr_t)out_cpu, COLS,
                              COLS, NIDX, sizeof(float));
  starpu_matrix_data_register(&h_cols, STARPU_MAIN_RAM, (uintptr_t)out_cols,
                              COLS, COLS, NIDX, sizeof(float));

  /* Blocks of whole rows: each child is contiguous (ld == nx), at a byte
   * offset into its parent's device buffer. */
  struct starpu_data_filter idx_parts = {
      .filter_func = starpu_vector_filter_block, .nchildren = NPARTS};
  struct starpu_data_filter row_parts = {
      .filter_func = starpu_matrix_filter_vertical_block, .nchildren = NPARTS};
  to_device(h_idx);
  to_device(h_cl);
  starpu_data_partition(h_idx, &idx_parts);
  starpu_data_partition(h_cl, &row_parts);
  starpu_data_partition(h_cpu, &row_parts);

  static struct task_result res[NPARTS], ref[NPARTS], fail[2];
  for (int p = 0; p < NPARTS; ++p) {
    starpu_data_handle_t ip = starpu_data_get_sub_data(h_idx, 1, p);
    submit(p % 2 ? &cl_async : &cl_sync, h_data, ip,
           starpu_data_get_sub_data(h_cl, 1, p), &res[p]);
    submit(&cl_cpu, h_data, ip, starpu_data_get_sub_data(h_cpu, 1, p), &ref[p]);
  }
  starpu_task_wait_for_all();
  int offsets = 0;
  for (int p = 0; p < NPARTS; ++p) {
    check(res[p].status == CLG_SUCCESS, res[p].message);
    check(ref[p].status == CLG_SUCCESS, "the CPU codelet did not run");
    offsets += res[p].out_offset != 0;
  }
  check(offsets > 0, "no task saw an output at a non-zero byte offset");

  /* The error path. Part 1's rows get a new fill on the host, so that the
   * device's copy is stale, then a task on each checked mode gathers into
   * them by indices with one out of bounds. Each must fail, say where, and
   * change nothing: as STARPU_RW, the new fill goes to the device first and
   * comes back. (As STARPU_W, nothing would go to the device and the host
   * would get its stale bytes back: a plausible, wrong, earlier result.) */
  starpu_data_handle_t part1 = starpu_data_get_sub_data(h_cl, 1, 1);
  float *part1_host = out_cl + NIDX / NPARTS * COLS; /* its rows */
  memset(before, 0xEE, sizeof before);
  starpu_data_acquire(part1, STARPU_W); /* valid on the host until release */
  memcpy(part1_host, before, sizeof before);
  starpu_data_release(part1);
  submit(&cl_sync, h_data, h_bad, part1, &fail[0]);
  submit(&cl_async, h_data, h_bad, part1, &fail[1]);
  starpu_task_wait_for_all();
  char where[32];
  snprintf(where, sizeof where, "indices[%d]", BAD_POS);
  for (int m = 0; m < 2; ++m) {
    check(fail[m].status == CLG_ERROR_INDEX_OUT_OF_BOUNDS,
          "a bad index was not reported");
    check(strstr(fail[m].message, where) != NULL, "message misses position");
    printf("starpu_gather: %s task failed as expected: %s\n",
           m ? "asynchronous" : "synchronous", fail[m].message);
  }
  starpu_data_acquire(part1, STARPU_R);
  check(memcmp(before, part1_host, sizeof before) == 0,
        "a failed task changed its output");
  starpu_data_release(part1);
  /* The same context goes on after an error: part 1 with good indices. */
  submit(&cl_sync, h_data, starpu_data_get_sub_data(h_idx, 1, 1), part1,
         &res[1]);
  starpu_task_wait_for_all();
  check(res[1].status == CLG_SUCCESS, res[1].message);

  starpu_data_unpartition(h_idx, STARPU_MAIN_RAM);
  starpu_data_unpartition(h_cl, STARPU_MAIN_RAM);
  starpu_data_unpartition(h_cpu, STARPU_MAIN_RAM);
  run_column_blocks(h_data, h_idx, h_cols);
  starpu_data_handle_t handles[] = {h_data, h_idx, h_bad, h_cl, h_cpu, h_cols};
  for (size_t i = 0; i < sizeof handles / sizeof *handles; ++i)
    starpu_data_unregister(handles[i]); /* brings the data back to the host */
  starpu_shutdown();
  /* Only now: StarPU's tasks are over. Each clg_context holds its own
   * reference to StarPU's cl_context, released here. */
  for (unsigned d = 0; d < STARPU_MAXOPENCLDEVS; ++d)
    clg_context_destroy(devices[d].ctx);

  check(memcmp(out_cl, out_cpu, sizeof out_cl) == 0,
        "OpenCL and CPU outputs differ");
  check(memcmp(out_cols, out_cpu, sizeof out_cols) == 0,
        "column blocks differ from the CPU output");
  if (failures == 0)
    printf("starpu_gather: %d x %d rows gathered on %u OpenCL device(s), "
           "equal to the CPU codelet's; bad indices reported\n",
           NPARTS, NIDX / NPARTS, ndevices);
  return failures ? 1 : 0;
}
