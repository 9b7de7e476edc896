/* What a call costs at steady state, counted (the test build's OpenCL
 * wrappers, host/core/faults.h): per operator, mode (synchronous,
 * asynchronous, a plan's enqueue) and way of checking the index values
 * (host/run/strategy.c), the kernels it enqueues, the host waits inside it,
 * the OpenCL objects it creates and the events it makes when the caller
 * asks for none. The table below is docs/pipelines.md's "What a call
 * costs"; a call that waits more, or creates an object or event where the
 * table says none, fails it.
 *
 * Steady state: the same call made four times before (programs built,
 * variants chosen, the context's verdict and scratch buffers made), each
 * waited for. Every call here has valid indices and no wait list (a wait
 * list adds one wait to the gated ways: the verdict's event is waited for
 * before its read, host/run/verdict.c). An asynchronous call's outcome is
 * waited for after the count (clg_outcome_wait: one wait of its own). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "internal.h"
#include "support/testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgather/clgather_bag.h"

typedef enum { SYNC, ASYNC, PLAN, PLAN_ASYNC } mode;
static const char *const mode_names[] = {"sync", "async", "plan",
                                         "plan async"};

typedef enum {
  GATHER,
  GATHER_ELEMENTS,
  GATHER_ND,
  SCATTER_ND,
  SCATTER_ELEMENTS,
  BAG,
  BAG_SEGMENTS,
  GBQ
} opk;
static const char *const op_names[] = {"Gather",
                                       "GatherElements",
                                       "GatherND",
                                       "ScatterND",
                                       "ScatterElements",
                                       "EmbeddingBag",
                                       "EmbeddingBag (segment ids)",
                                       "GatherBlockQuantized"};

/* One row: the call, and what it may cost. */
typedef struct row {
  opk op;
  mode m;
  bool host_indices, host_output, large;
  const char *forced; /* CLGATHER_TEST_DEVICE_VALIDATION, or NULL; "rule":
                       * CLGATHER_TEST_HOST_RUN=rule and host data (the
                       * library's rule for running on the host); "fused":
                       * CLGATHER_TEST_FUSED=rule (the rule for Gather's
                       * fused kernel) */
  const char *way;    /* the strategy's name, for the message */
  unsigned kernels, waits, objects;
  /* The events its kernels and markers make when the caller asks for none
   * (clg_fault_events), on the context's queue (in order). */
  unsigned events;
} row;

/* Small: 10 entries (80 bytes of int64 indices); large: 8192 (64 KiB,
 * past the validation kernel's threshold). */
static const row rows[] = {
    /* The gathers: host indices scanned in place; cl_mem indices and a
     * cl_mem output gated on the validation kernel, its verdict read after
     * the gather (sync), or by the outcome (async); a host output: the
     * indices read back (small) or checked first (large). Host tensors
     * are staged: a buffer each per call (wrapped on a CPU device). */
    {GATHER, SYNC, false, false, false, NULL, "gated, read after", 2, 1, 0, 0},
    {GATHER, SYNC, false, false, true, NULL, "gated, read after", 2, 1, 0, 0},
    /* ... and, under the library's rule, a small one: Gather's one fused
     * kernel (the large one past its thresholds: gated). */
    {GATHER, SYNC, false, false, false, "fused", "fused", 1, 1, 0, 0},
    {GATHER, PLAN, false, false, false, "fused", "fused", 1, 1, 0, 0},
    {GATHER, SYNC, false, false, true, "fused", "gated, read after", 2, 1, 0,
     0},
    {GATHER, SYNC, false, false, false, "never", "read-back", 1, 1, 0, 0},
    {GATHER, ASYNC, false, false, false, NULL, "gated", 2, 0, 0, 2},
    {GATHER, ASYNC, false, false, true, NULL, "gated", 2, 0, 0, 2},
    {GATHER, PLAN, false, false, false, NULL, "gated, read after", 2, 1, 0, 0},
    {GATHER, PLAN_ASYNC, false, false, false, NULL, "gated", 2, 0, 0, 2},
    {GATHER, SYNC, false, true, false, NULL, "read-back", 1, 2, 1, 1},
    {GATHER, SYNC, false, true, true, NULL, "device", 2, 2, 1, 2},
    {GATHER, SYNC, true, false, false, NULL, "host", 1, 1, 1, 1},
    /* Host data, indices and output on a CPU device, a small output: on
     * the calling thread (host/run/host_run.c). */
    {GATHER, SYNC, true, true, false, "rule", "host run", 0, 0, 0, 0},
    {GATHER_ELEMENTS, SYNC, true, true, false, "rule", "host run", 0, 0, 0, 0},
    {GATHER_ND, SYNC, true, true, false, "rule", "host run", 0, 0, 0, 0},
    {GATHER_ELEMENTS, SYNC, false, false, false, NULL, "gated, read after", 2,
     1, 0, 0},
    {GATHER_ELEMENTS, ASYNC, false, false, false, NULL, "gated", 2, 0, 0, 2},
    {GATHER_ND, SYNC, false, false, false, NULL, "gated, read after", 2, 1, 0,
     0},
    {GATHER_ND, ASYNC, false, false, false, NULL, "gated", 2, 0, 0, 2},
    /* The scatters: a small synchronous call schedules on the host (the
     * indices read back: the one wait; the schedule's order is a buffer made
     * per call); a large one, or an asynchronous one, on the device: the
     * validation kernel, the index pass (targets, repeats, the radix sort:
     * POCL's device is a CPU, 256-bucket passes), the copy of data and the
     * scatter, its verdict read after the last kernel. The pass's scratch
     * buffers are the context's, reused once the call that used them last
     * has ended. */
    {SCATTER_ND, SYNC, false, false, false, NULL, "host schedule", 2, 1, 1, 0},
    {SCATTER_ND, SYNC, false, false, true, NULL, "device schedule", 14, 1, 0,
     0},
    {SCATTER_ND, ASYNC, false, false, false, NULL, "device schedule", 14, 0, 0,
     2},
    {SCATTER_ELEMENTS, SYNC, false, false, true, NULL, "device schedule", 14, 1,
     0, 0},
    {SCATTER_ELEMENTS, ASYNC, false, false, false, NULL, "device schedule", 14,
     0, 0, 2},
    /* EmbeddingBag: its checks of indices and bags as the gathers' (its
     * own validation kernel), the reduction gated on their verdict, read
     * after it (sync) or by the outcome (async, which adds the kernel
     * copying an offender's values into the verdict); the indices read
     * back where the gate is off. Segment ids add the kernel writing the
     * segments' starts, into a scratch buffer of the context's. */
    {BAG, SYNC, false, false, false, NULL, "gated, read after", 2, 1, 0, 0},
    {BAG, SYNC, false, false, true, NULL, "gated, read after", 2, 1, 0, 0},
    {BAG, SYNC, false, false, false, "never", "read-back", 1, 1, 0, 0},
    {BAG, ASYNC, false, false, false, NULL, "gated", 3, 0, 0, 2},
    {BAG, PLAN, false, false, false, NULL, "gated, read after", 2, 1, 0, 0},
    {BAG, PLAN_ASYNC, false, false, false, NULL, "gated", 3, 0, 0, 2},
    {BAG_SEGMENTS, SYNC, false, false, false, NULL, "gated, read after", 3, 1,
     0, 1},
    {BAG_SEGMENTS, ASYNC, false, false, false, NULL, "gated", 4, 0, 0, 2},
    /* GatherBlockQuantized: the gathers' ways, with their validation
     * kernel. */
    {GBQ, SYNC, false, false, false, NULL, "gated, read after", 2, 1, 0, 0},
    {GBQ, SYNC, false, false, true, NULL, "gated, read after", 2, 1, 0, 0},
    {GBQ, SYNC, false, false, false, "never", "read-back", 1, 1, 0, 0},
    {GBQ, ASYNC, false, false, false, NULL, "gated", 2, 0, 0, 2},
    {GBQ, PLAN, false, false, false, NULL, "gated, read after", 2, 1, 0, 0},
    {GBQ, PLAN_ASYNC, false, false, false, NULL, "gated", 2, 0, 0, 2},
    {GBQ, SYNC, true, false, false, NULL, "host", 1, 1, 1, 1},
};

/* The operands of one call, and its plan where it has one. */
typedef struct operands {
  clg_tensor d, x, u, o, b; /* GatherBlockQuantized: u its scales */
  cl_mem dm, xm, um, om, bm;
  void *dh, *xh, *oh, *uh;
  clg_plan *plan;
} operands;

#define ROWS 8192 /* data rows */
#define COLS 4

static void make(const row *r, operands *p) {
  memset(p, 0, sizeof *p);
  int64_t n = r->large ? 8192 : 10;
  size_t fbytes = (size_t)ROWS * COLS * sizeof(float);
  float *data = malloc(fbytes);
  int64_t *idx = malloc((size_t)n * sizeof *idx);
  cr_assert(data && idx);
  for (size_t k = 0; k < (size_t)ROWS * COLS; ++k)
    data[k] = (float)k;
  /* distinct targets (a scatter's reduction none) */
  for (int64_t k = 0; k < n; ++k)
    idx[k] = (k * 7919) % ROWS;
  int64_t ds[2] = {ROWS, COLS}, xs[2] = {n, 1}, os[2] = {n, COLS};
  p->dm = tu_buffer_create(fbytes, data);
  p->xm = tu_buffer_create((size_t)n * sizeof *idx, idx);
  size_t obytes = (size_t)n * COLS * sizeof(float);
  p->om = tu_buffer_create(r->op == SCATTER_ND || r->op == SCATTER_ELEMENTS
                               ? fbytes
                               : obytes,
                           NULL);
  p->xh = idx;
  p->dh = data;
  p->oh = calloc(1, obytes);
  clg_tensor xt = r->host_indices
                      ? clg_tensor_host(CLG_DTYPE_INT64, 1, xs, idx)
                      : clg_tensor_buffer(CLG_DTYPE_INT64, 1, xs, p->xm, 0);
  p->d = r->forced && strcmp(r->forced, "rule") == 0
             ? clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data)
             : clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, p->dm, 0);
  p->x = xt;
  p->o = r->host_output ? clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, p->oh)
                        : clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, p->om, 0);
  switch (r->op) {
  case GBQ: { /* uint8 [ROWS, 4], a block a row, float16 scales */
    int64_t gs[2] = {ROWS, 4}, ss[2] = {ROWS, 1}, gos[2] = {n, 4};
    uint16_t *half = malloc((size_t)ROWS * sizeof *half);
    cr_assert(half);
    for (size_t k = 0; k < ROWS; ++k)
      half[k] = 0x3C00; /* 1.0 */
    p->um = tu_buffer_create((size_t)ROWS * sizeof *half, half);
    free(half);
    p->d = clg_tensor_buffer(CLG_DTYPE_UINT8, 2, gs, p->dm, 0);
    p->u = clg_tensor_buffer(CLG_DTYPE_FLOAT16, 2, ss, p->um, 0);
    p->o = clg_tensor_buffer(CLG_DTYPE_FLOAT16, 2, gos, p->om, 0);
    break;
  }
  case GATHER:
  case BAG:
  case BAG_SEGMENTS: break;
  case GATHER_ND:
    p->x.rank = 2;
    p->x.shape[1] = 1;
    break;
  case GATHER_ELEMENTS: /* indices [n, COLS] along axis 0 */
  case SCATTER_ELEMENTS: {
    int64_t *ix = malloc((size_t)n * COLS * sizeof *ix);
    cr_assert(ix);
    for (int64_t k = 0; k < n * COLS; ++k)
      ix[k] = idx[k / COLS];
    clReleaseMemObject(p->xm);
    p->xm = tu_buffer_create((size_t)n * COLS * sizeof *ix, ix);
    p->x = clg_tensor_buffer(CLG_DTYPE_INT64, 2, os, p->xm, 0);
    if (r->host_indices) {
      free(p->xh);
      p->xh = ix;
      p->x = clg_tensor_host(CLG_DTYPE_INT64, 2, os, ix);
    } else
      free(ix);
    break;
  }
  case SCATTER_ND:
    p->x.rank = 2;
    p->x.shape[1] = 1;
    break;
  }
  if (r->op == SCATTER_ND || r->op == SCATTER_ELEMENTS) {
    p->um = tu_buffer_create(obytes, NULL);
    p->u = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, p->um, 0);
    p->o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, p->om, 0);
  }
  if (r->op == BAG) { /* fixed bags of 2 rows: indices [n/2, 2] */
    p->x.rank = 2;
    p->x.shape[0] = n / 2;
    p->x.shape[1] = 2;
    p->o.shape[0] = n / 2;
  }
  if (r->op == BAG_SEGMENTS) { /* indices [n], segment ids k / 2: n/2 bags */
    int64_t *ids = malloc((size_t)n * sizeof *ids);
    cr_assert(ids);
    for (int64_t k = 0; k < n; ++k)
      ids[k] = k / 2;
    p->bm = tu_buffer_create((size_t)n * sizeof *ids, ids);
    free(ids);
    p->b = clg_tensor_buffer(CLG_DTYPE_INT64, 1, xs, p->bm, 0);
    p->x.rank = 1;
    p->o.shape[0] = n / 2;
  }
}

static void drop(operands *p) {
  clg_plan_destroy(p->plan);
  clReleaseMemObject(p->dm);
  clReleaseMemObject(p->xm);
  clReleaseMemObject(p->om);
  if (p->um)
    clReleaseMemObject(p->um);
  if (p->bm)
    clReleaseMemObject(p->bm);
  free(p->dh);
  free(p->xh);
  free(p->oh);
}

static clg_params params_of(opk op) {
  clg_params g = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  if (op == GATHER_ELEMENTS || op == SCATTER_ELEMENTS)
    g.op = op == GATHER_ELEMENTS ? CLG_OP_GATHER_ELEMENTS
                                 : CLG_OP_SCATTER_ELEMENTS;
  if (op == GATHER_ND)
    g.op = CLG_OP_GATHER_ND;
  if (op == SCATTER_ND)
    g.op = CLG_OP_SCATTER_ND;
  return g;
}

/* One call; *oc its outcome (async modes). */
static clg_status call(const row *r, operands *p, cl_event *ev,
                       clg_outcome **oc) {
  clg_context *ctx = tu_ctx();
  bool async = r->m == ASYNC || r->m == PLAN_ASYNC;
  bool plan = r->m == PLAN || r->m == PLAN_ASYNC;
  clg_params g = params_of(r->op);
  clg_scatter_params sp = {CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
  clg_bag_params bp;
  memset(&bp, 0, sizeof bp);
  bp.form = r->op == BAG_SEGMENTS ? CLG_BAGS_SEGMENT_IDS : CLG_BAGS_FIXED;
  bool bag = r->op == BAG || r->op == BAG_SEGMENTS;
  const clg_tensor *bags = r->op == BAG_SEGMENTS ? &p->b : NULL;
  clg_status st;
  clg_gbq_params qp;
  memset(&qp, 0, sizeof qp);
  qp.quantize_axis = 1;
  qp.block_size = 16;
  qp.bits = 8;
  qp.kind = CLG_GBQ_UINT8;
  if (plan && !p->plan) {
    unsigned flags = async ? CLG_PLAN_ASYNC_CHECK : 0;
    st = r->op == GBQ
             ? clg_plan_create_gather_block_quantized(
                   ctx, &qp, &p->d, &p->x, &p->u, NULL, &p->o, flags, &p->plan)
         : bag ? clg_plan_create_embedding_bag(ctx, &bp, &p->d, &p->x, bags,
                                               NULL, &p->o, flags, &p->plan)
         : r->op == SCATTER_ND || r->op == SCATTER_ELEMENTS
             ? clg_plan_create_scatter(ctx, &g, &sp, &p->d, &p->x, &p->u, &p->o,
                                       flags, &p->plan)
             : clg_plan_create(ctx, &g, &p->d, &p->x, &p->o, flags, &p->plan);
    if (st != CLG_SUCCESS)
      return st;
  }
  clg_outcome **out = async ? oc : NULL;
  if (plan && r->op == GBQ)
    return clg_plan_enqueue_gather_block_quantized(
        p->plan, &p->d, &p->x, &p->u, NULL, &p->o, NULL, 0, NULL, ev, out);
  if (plan)
    return bag ? clg_plan_enqueue_embedding_bag(p->plan, &p->d, &p->x, bags,
                                                NULL, &p->o, NULL, 0, NULL, ev,
                                                out)
           : r->op == SCATTER_ND || r->op == SCATTER_ELEMENTS
               ? clg_plan_enqueue_scatter(p->plan, &p->d, &p->x, &p->u,
                                          &p->o, NULL, 0, NULL, ev, out)
               : clg_plan_enqueue(p->plan, &p->d, &p->x, &p->o, NULL, 0, NULL,
                                  ev, out);
  if (r->op == GBQ)
    return async ? clg_gather_block_quantized_async(ctx, &qp, &p->d, &p->x,
                                                    &p->u, NULL, &p->o, NULL, 0,
                                                    NULL, ev, oc)
                 : clg_gather_block_quantized(ctx, &qp, &p->d, &p->x, &p->u,
                                              NULL, &p->o, NULL, 0, NULL, ev);
  if (bag)
    return async ? clg_embedding_bag_async(ctx, &bp, &p->d, &p->x, bags, NULL,
                                           &p->o, NULL, 0, NULL, ev, oc)
                 : clg_embedding_bag(ctx, &bp, &p->d, &p->x, bags, NULL,
                                     &p->o, NULL, 0, NULL, ev);
  if (r->op == SCATTER_ND || r->op == SCATTER_ELEMENTS)
    return async ? clg_scatter_async(ctx, &g, &sp, &p->d, &p->x, &p->u,
                                     &p->o, NULL, 0, NULL, ev, oc)
                 : clg_scatter(ctx, &g, &sp, &p->d, &p->x, &p->u, &p->o, NULL,
                               0, NULL, ev);
  return async ? clg_run_async(ctx, &g, &p->d, &p->x, &p->o, NULL, 0, NULL,
                               ev, oc)
               : clg_run(ctx, &g, &p->d, &p->x, &p->o, NULL, 0, NULL, ev);
}

/* The call's end, outside the count: its event, its outcome. */
static void settle(const char *label, cl_event ev, clg_outcome *oc) {
  if (oc) {
    cr_expect_eq(clg_outcome_wait(oc), CLG_SUCCESS, "%s: outcome: %s", label,
                 clg_last_error());
    clg_outcome_release(oc);
  }
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
}

static unsigned long objects_made(void) {
  static const clg_fault kinds[] = {
      CLG_FAULT_CREATE_BUFFER,  CLG_FAULT_CREATE_SUB_BUFFER,
      CLG_FAULT_CREATE_KERNEL,  CLG_FAULT_CREATE_PROGRAM,
      CLG_FAULT_CREATE_PROGRAM_BINARY, CLG_FAULT_CREATE_QUEUE};
  unsigned long n = 0;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
    n += clg_fault_calls(kinds[k]);
  return n;
}

Test(call_costs, steady_state_calls, .timeout = 240) {
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
    const row *r = &rows[i];
    char label[160];
    snprintf(label, sizeof label, "%s %s, %s indices, %s output, %s (%s)",
             op_names[r->op], mode_names[r->m],
             r->host_indices ? "host" : "cl_mem",
             r->host_output ? "host" : "cl_mem", r->large ? "large" : "small",
             r->way);
    bool host_run = r->forced && strcmp(r->forced, "rule") == 0;
    bool fused = r->forced && strcmp(r->forced, "fused") == 0;
    if (r->forced && !host_run && !fused)
      setenv("CLGATHER_TEST_DEVICE_VALIDATION", r->forced, 1);
    else
      unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
    if (host_run)
      setenv("CLGATHER_TEST_HOST_RUN", "rule", 1);
    else
      unsetenv("CLGATHER_TEST_HOST_RUN");
    if (fused)
      setenv("CLGATHER_TEST_FUSED", "rule", 1);
    else
      unsetenv("CLGATHER_TEST_FUSED");
    operands p;
    make(r, &p);
    for (int warm = 0; warm < 4; ++warm) {
      cl_event ev = NULL;
      clg_outcome *oc = NULL;
      clg_status st = call(r, &p, &ev, &oc);
      cr_assert_eq(st, CLG_SUCCESS, "%s: warm-up: %s", label,
                   clg_last_error());
      settle(label, ev, oc);
    }
    cl_event ev = NULL;
    clg_outcome *oc = NULL;
    clg_fault_reset();
    clg_status st = call(r, &p, &ev, &oc);
    unsigned long kernels = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
    unsigned long waits = clg_fault_host_waits();
    unsigned long made = objects_made();
    clg_fault_reset();
    cr_expect_eq(st, CLG_SUCCESS, "%s: %s", label, clg_last_error());
    settle(label, ev, oc);
    cr_log_info("%s: %lu kernels, %lu waits, %lu objects", label, kernels,
                waits, made);
    cr_expect_eq(kernels, r->kernels, "%s: %lu kernels enqueued, the table "
                 "says %u", label, kernels, r->kernels);
    cr_expect_eq(waits, r->waits, "%s: %lu host waits, the table says %u",
                 label, waits, r->waits);
    cr_expect_eq(made, r->objects, "%s: %lu OpenCL objects created, the "
                 "table says %u", label, made, r->objects);
    /* The same call again, the caller asking for no event: the events it
     * makes for itself. */
    oc = NULL;
    clg_fault_reset();
    st = call(r, &p, NULL, &oc);
    unsigned long events = clg_fault_events();
    clg_fault_reset();
    cr_expect_eq(st, CLG_SUCCESS, "%s (no event): %s", label, clg_last_error());
    settle(label, NULL, oc);
    tu_cl_check(clFinish(clg_context_queue(tu_ctx())), "clFinish");
    cr_expect_eq(events, r->events,
                 "%s: %lu events made with none asked for, the table says %u",
                 label, events, r->events);
    drop(&p);
  }
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  unsetenv("CLGATHER_TEST_HOST_RUN");
  unsetenv("CLGATHER_TEST_FUSED");
}
