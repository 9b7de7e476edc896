/*
 * The asynchronous checked mode: clg_run_async(), clg_outcome_wait(),
 * clg_outcome_release() (include/clgather/clgather.h).
 *
 * What is checked, against a plain-C reference (tools/reference/reference.c)
 * and against the synchronous clg_run() on host indices (its status and
 * message are the yardstick for every verdict):
 *  - every out-of-bounds case of the bad-input catalogue (tests/
 *    test_catalogue.c: Gather on axes 0 and -1, scalar indices, an empty
 *    axis; GatherElements; GatherND with and without batch_dims), plus
 *    Gather with batch_dims, an empty output and arrays of 100k+ indices
 *    spanning many validation work-groups (the first, a middle, the last
 *    offender, several offenders, group boundaries), int32 and int64 with
 *    their extremes, indices at buffer offsets: with cl_mem indices and a
 *    cl_mem output the call returns CLG_SUCCESS and an event that
 *    completes, clg_outcome_wait() returns CLG_ERROR_INDEX_OUT_OF_BOUNDS
 *    with exactly clg_run()'s message (twice), and the output (and the
 *    bytes around it) is untouched; with a host output (the call blocks
 *    anyway) the call itself fails as clg_run() does, also for a host
 *    output at an address the library cannot wrap in place;
 *  - valid inputs: the output equals the reference byte for byte, for each
 *    operator and every storage mix (all cl_mem, host output, host data,
 *    host indices: decided at once), modes WRAP and CLIP (no verdict), no
 *    indices, an empty output;
 *  - the wait list: indices written by a non-blocking write or by a kernel
 *    that waits for a user event, on in-order and out-of-order queues; the
 *    call returns while the user event is still pending (it does not block)
 *    and the verdict and the gather see the written values;
 *  - outcomes: waited twice (same status and message), from two threads at
 *    once, released without a wait (no leak: the cl_context's reference
 *    count comes back), after the caller released its queue, NULL
 *    arguments; argument errors come from the call itself with *outcome and
 *    *event untouched and nothing enqueued; a failed wait-list event makes
 *    the wait return CLG_ERROR_OPENCL (not hang); the wait does not wait for
 *    commands enqueued after the call (nor for other calls' wait lists);
 *  - the context's device_validations counter (host/internal.h) counts the
 *    validation kernels of asynchronous cl_mem RAISE calls, and only those;
 *  - a pipeline of two asynchronous calls chained only by events (the first
 *    one's output as the second one's indices, or as its data), outcomes
 *    waited at the end, including a failing first stage.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/testutil.h"

/* The fault-injection API (its call counters) without the macros that would
 * route this file's own OpenCL calls through the counting wrappers. */
#define CLG_FAULTS_IMPL
#include "core/faults.h"
#include "internal.h" /* clg_context::device_validations */

#define OOB CLG_ERROR_INDEX_OUT_OF_BOUNDS
#define I32 CLG_DTYPE_INT32
#define I64 CLG_DTYPE_INT64
#define G(axis, bd)                                                            \
  { CLG_OP_GATHER, axis, bd, CLG_MODE_RAISE }
#define GM(axis, mode)                                                         \
  { CLG_OP_GATHER, axis, 0, mode }
#define GE(axis)                                                               \
  { CLG_OP_GATHER_ELEMENTS, axis, 0, CLG_MODE_RAISE }
#define ND(bd)                                                                 \
  { CLG_OP_GATHER_ND, 0, bd, CLG_MODE_RAISE }

static const tu_storage HOST = {CLG_STORAGE_HOST, 0, false, false};

static tu_storage buf_at(size_t off) {
  tu_storage s = {CLG_STORAGE_BUFFER, off, false, false};
  return s;
}

static unsigned validations(void) {
  return atomic_load(&tu_ctx()->device_validations);
}

/* ------------------------------------------------------------ queues */

/* An out-of-order queue on the test device, or NULL where the device has
 * none (then the cases that need one are logged as skipped). */
static cl_command_queue ooo_queue(void) {
  static cl_command_queue q;
  static bool tried;
  if (!tried) {
    tried = true;
    cl_command_queue_properties props = 0;
    tu_cl_check(clGetDeviceInfo(tu_device(), CL_DEVICE_QUEUE_PROPERTIES,
                                sizeof props, &props, NULL),
                "clGetDeviceInfo(CL_DEVICE_QUEUE_PROPERTIES)");
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
      cl_int err = CL_SUCCESS;
      q = clCreateCommandQueue(tu_cl_context(), tu_device(),
                               CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
      tu_cl_check(err, "clCreateCommandQueue (out-of-order)");
    } else {
      cr_log_info("the device has no out-of-order queues: those cases are "
                  "skipped");
    }
  }
  return q;
}

/* A second in-order queue of the test's own. */
static cl_command_queue inorder_queue(void) {
  static cl_command_queue q;
  if (!q) {
    cl_int err = CL_SUCCESS;
    q = clCreateCommandQueue(tu_cl_context(), tu_device(), 0, &err);
    tu_cl_check(err, "clCreateCommandQueue (in-order)");
  }
  return q;
}

static cl_int event_status(cl_event ev) {
  cl_int s = 0;
  tu_cl_check(
      clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL),
      "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)");
  return s;
}

/* The shared cl_context's settled reference count (testutil.h), once the
 * shared clg_context's queue is finished. */
static cl_uint settled_refs(void) {
  tu_cl_check(clFinish(clg_context_queue(tu_ctx())), "clFinish (ctx queue)");
  return tu_context_refs(tu_cl_context());
}

/* ------------------------------------------------- a user event's guard */

/* Completes a user event after `ms` milliseconds unless cancelled first: a
 * call that wrongly blocks on it cannot hang the suite, and `fired` tells
 * that it blocked. */
typedef struct watchdog {
  cl_event user;
  long ms;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool done, fired;
  pthread_t th;
} watchdog;

static void *watchdog_main(void *p) {
  watchdog *w = p;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += w->ms / 1000;
  until.tv_nsec += (w->ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec += 1;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&w->lock);
  while (!w->done)
    if (pthread_cond_timedwait(&w->cond, &w->lock, &until) != 0)
      break;
  if (!w->done) {
    w->fired = true;
    w->done = true;
    clSetUserEventStatus(w->user, CL_COMPLETE);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

static void watchdog_start(watchdog *w, cl_event user, long ms) {
  memset(w, 0, sizeof *w);
  w->user = user;
  w->ms = ms;
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->cond, NULL);
  cr_assert(pthread_create(&w->th, NULL, watchdog_main, w) == 0);
}

static bool watchdog_fired(watchdog *w) {
  pthread_mutex_lock(&w->lock);
  bool f = w->fired;
  pthread_mutex_unlock(&w->lock);
  return f;
}

/* Complete the user event now (unless the watchdog did) and stop it;
 * returns whether the watchdog had fired. */
static bool watchdog_release(watchdog *w) {
  pthread_mutex_lock(&w->lock);
  if (!w->done) {
    w->done = true;
    tu_cl_check(clSetUserEventStatus(w->user, CL_COMPLETE),
                "clSetUserEventStatus");
  }
  bool fired = w->fired;
  pthread_cond_signal(&w->cond);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->th, NULL);
  pthread_mutex_destroy(&w->lock);
  pthread_cond_destroy(&w->cond);
  return fired;
}

static cl_event user_event(void) {
  cl_int err = CL_SUCCESS;
  cl_event u = clCreateUserEvent(tu_cl_context(), &err);
  tu_cl_check(err, "clCreateUserEvent");
  return u;
}

/* ------------------------------------------------------------- inputs */

/* One operator call: params, element type, shapes, index type, and index
 * values: valid ones drawn from a seed, then up to 4 overrides (position,
 * value; position -1 is the last). */
typedef struct ocase {
  const char *name;
  clg_params p;
  clg_dtype dt;
  int32_t r;
  int64_t ds[4];
  int32_t q;
  int64_t is[4];
  clg_dtype idt;
  int nset;
  int64_t set[4][2];
  const char *msg[3]; /* must appear in the message (from the catalogue) */
} ocase;

static size_t isz_of(clg_dtype t) { return t == I32 ? 4u : 8u; }

/* The bounds of index value i: [-s[i % period], s[i % period] - 1], from
 * the operators' definitions. */
static size_t bounds_of(const ocase *k, int64_t *s) {
  if (k->p.op == CLG_OP_GATHER_ND) {
    size_t m = (size_t)k->is[k->q - 1];
    for (size_t j = 0; j < m; ++j)
      s[j] = k->ds[k->p.batch_dims + (int64_t)j];
    return m;
  }
  int64_t a = k->p.axis < 0 ? k->p.axis + k->r : k->p.axis;
  s[0] = k->ds[a];
  return 1;
}

static int ref_shape(const ocase *k, int32_t *orank, int64_t *os) {
  switch (k->p.op) {
  case CLG_OP_GATHER:
    return ref_gather_ex_shape(k->r, k->ds, k->q, k->is, k->p.axis,
                               k->p.batch_dims, orank, os);
  case CLG_OP_GATHER_ELEMENTS:
    return ref_gather_elements_shape(k->r, k->ds, k->q, k->is, k->p.axis, orank,
                                     os);
  default:
    return ref_gather_nd_shape(k->r, k->ds, k->q, k->is, k->p.batch_dims,
                               REF_MAX_RANK, orank, os);
  }
}

/* The reference output for (data, idx); 0 on success. */
static int ref_run(const ocase *k, const void *data, const void *idx,
                   void *out) {
  size_t es = clg_dtype_size(k->dt);
  ref_index_type t = tu_ref_index_type(k->idt);
  switch (k->p.op) {
  case CLG_OP_GATHER: {
    int32_t orank = 0;
    int64_t os[REF_MAX_RANK];
    return ref_gather_ex(data, es, k->r, k->ds, idx, t, k->q, k->is, k->p.axis,
                         k->p.batch_dims, (ref_mode)k->p.mode, out, &orank, os);
  }
  case CLG_OP_GATHER_ELEMENTS:
    return ref_gather_elements(data, es, k->r, k->ds, idx, t, k->q, k->is,
                               k->p.axis, out);
  default:
    return ref_gather_nd(data, es, k->r, k->ds, idx, t, k->q, k->is,
                         k->p.batch_dims, out);
  }
}

typedef struct oinputs {
  int64_t count;
  size_t dbytes, ibytes, obytes;
  int32_t orank;
  int64_t os[REF_MAX_RANK];
  unsigned char *data, *idx;
} oinputs;

/* Data (random bytes) and indices (valid values in the case's bounds, or
 * anything for WRAP / CLIP; then the overrides) drawn from `seed`. */
static void inputs_make(const ocase *k, uint64_t seed, oinputs *in) {
  memset(in, 0, sizeof *in);
  cr_assert(ref_shape(k, &in->orank, in->os) == 0, "test bug: %s: bad shapes",
            k->name);
  cr_assert(in->orank <= CLG_MAX_RANK, "test bug: %s: output rank", k->name);
  in->count = tu_numel(k->q, k->is);
  in->dbytes = (size_t)tu_numel(k->r, k->ds) * clg_dtype_size(k->dt);
  in->ibytes = (size_t)in->count * isz_of(k->idt);
  in->obytes = (size_t)tu_numel(in->orank, in->os) * clg_dtype_size(k->dt);
  in->data = malloc(in->dbytes + 1);
  in->idx = calloc(1, in->ibytes + 1);
  cr_assert(in->data && in->idx);
  tu_rng rng = tu_rng_make(seed);
  tu_rng_bytes(&rng, in->data, in->dbytes);
  int64_t s[CLG_MAX_RANK];
  size_t period = bounds_of(k, s);
  bool wild = k->p.mode != CLG_MODE_RAISE;
  for (int64_t i = 0; i < in->count; ++i) {
    int64_t d = s[(size_t)i % period], v = 0;
    if (wild)
      tu_fill_indices(&rng, &v, I64, 1, d > 0 ? d : 1, TU_IDX_WILD);
    else if (d > 0)
      v = tu_rng_range(&rng, -d, d - 1);
    if (k->idt == I32 && (v > INT32_MAX || v < INT32_MIN))
      v = (int32_t)(uint32_t)(uint64_t)v;
    tu_set_index(in->idx, k->idt, i, v);
  }
  for (int n = 0; n < k->nset; ++n) {
    int64_t pos = k->set[n][0] < 0 ? in->count + k->set[n][0] : k->set[n][0];
    tu_set_index(in->idx, k->idt, pos, k->set[n][1]);
  }
}

static void inputs_free(oinputs *in) {
  free(in->data);
  free(in->idx);
}

/* The synchronous yardstick: clg_run() on host data, indices and output.
 * Returns its status; *msg gets its message. The host output must be
 * untouched on failure. */
static clg_status sync_run(const ocase *k, const oinputs *in, char *msg,
                           size_t cap) {
  tu_tensor d, x, o;
  tu_tensor_init(&d, k->dt, k->r, k->ds, HOST, in->data);
  tu_tensor_init(&x, k->idt, k->q, k->is, HOST, in->idx);
  tu_tensor_init(&o, k->dt, in->orank, in->os, HOST, NULL);
  clg_status st =
      clg_run(tu_ctx(), &k->p, &d.desc, &x.desc, &o.desc, NULL, 0, NULL, NULL);
  snprintf(msg, cap, "%s", clg_last_error());
  if (st != CLG_SUCCESS)
    cr_expect(tu_tensor_all_sentinel(&o),
              "%s: the synchronous clg_run wrote its host output on error",
              k->name);
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o);
  return st;
}

/* ------------------------------------------------- one async call */

/* How a case is run through clg_run_async(). */
typedef struct ovariant {
  const char *name;
  bool dbuf, xbuf, obuf;         /* cl_mem (else host) data, indices, output */
  size_t doff, xoff_elems, ooff; /* buffer offsets (indices: in elements) */
  int queue;                     /* 0 NULL, 1 in-order, 2 out-of-order */
  bool event;                    /* ask for an event */
} ovariant;

static const ovariant g_variants[] = {
    {"all cl_mem, ctx queue, event", true, true, true, 0, 0, 0, 0, true},
    {"all cl_mem at offsets 3/5/7, own in-order queue, event", true, true, true,
     3, 5, 7, 1, true},
    {"host data, cl_mem indices (offset 1) and output, out-of-order queue, "
     "event",
     false, true, true, 0, 1, 16, 2, true},
    {"cl_mem data and indices (offset 2), host output, no event", true, true,
     false, 8, 2, 0, 0, false},
    {"all cl_mem, out-of-order queue, no event", true, true, true, 1, 3, 2, 2,
     false},
};
#define NVARIANTS (sizeof g_variants / sizeof g_variants[0])

static cl_command_queue variant_queue(const ovariant *v) {
  return v->queue == 1 ? inorder_queue() : v->queue == 2 ? ooo_queue() : NULL;
}

/* The result of one clg_run_async() call, waited for. */
typedef struct oresult {
  clg_status call, wait, wait2;
  char call_msg[2048], wait_msg[2048], wait2_msg[2048];
  unsigned validations; /* validation kernels the call enqueued */
  bool got_outcome, got_event, event_complete;
  bool guards_ok;     /* nothing written around the output */
  unsigned char *out; /* the output's bytes afterwards (obytes) */
  bool out_sentinel;  /* ... all of it still TU_SENTINEL */
} oresult;

static void run_async_case(const ocase *k, const oinputs *in, const ovariant *v,
                           oresult *r) {
  memset(r, 0, sizeof *r);
  size_t isz = isz_of(k->idt);
  tu_tensor d, x, o;
  tu_tensor_init(&d, k->dt, k->r, k->ds, v->dbuf ? buf_at(v->doff) : HOST,
                 in->data);
  tu_tensor_init(&x, k->idt, k->q, k->is,
                 v->xbuf ? buf_at(v->xoff_elems * isz) : HOST, in->idx);
  tu_tensor_init(&o, k->dt, in->orank, in->os, v->obuf ? buf_at(v->ooff) : HOST,
                 NULL);
  cl_command_queue q = variant_queue(v);
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  unsigned v0 = validations();
  r->call = clg_run_async(tu_ctx(), &k->p, &d.desc, &x.desc, &o.desc, q, 0,
                          NULL, v->event ? &ev : NULL, &oc);
  snprintf(r->call_msg, sizeof r->call_msg, "%s", clg_last_error());
  r->validations = validations() - v0;
  r->got_outcome = oc != NULL;
  r->got_event = ev != NULL;
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents (call's event)");
    r->event_complete = event_status(ev) == CL_COMPLETE;
    clReleaseEvent(ev);
  }
  if (oc) {
    r->wait = clg_outcome_wait(oc);
    snprintf(r->wait_msg, sizeof r->wait_msg, "%s", clg_last_error());
    r->wait2 = clg_outcome_wait(oc);
    snprintf(r->wait2_msg, sizeof r->wait2_msg, "%s", clg_last_error());
    clg_outcome_release(oc);
  }
  /* Whatever the call enqueued has finished before the output is read. */
  tu_cl_check(clFinish(q ? q : clg_context_queue(tu_ctx())), "clFinish");
  r->out = malloc(in->obytes + 1);
  cr_assert(r->out != NULL);
  tu_tensor_read(&o, r->out);
  r->guards_ok = tu_tensor_guards_ok(&o);
  r->out_sentinel = tu_tensor_all_sentinel(&o);
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o);
}

/* --------------------------------------- out-of-bounds: the verdicts */

#define SHAPE23 "in indices of shape [2, 3]"
#define RANGE5 "valid range is [-5, 4]"

/* The index-value entries of the bad-input catalogue (tests/
 * test_catalogue.c; base: data [5, 3], indices [2, 3], axis 0; GatherND
 * base: indices [3, 2]), and more: Gather with batch_dims, an empty output,
 * arrays spanning many validation work-groups. */
/* clang-format off */
static const ocase g_oob[] = {
    /* Gather, axis 0, s = 5 */
    {"OOB first position, positive (s)", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3},
     2, {2, 3}, I64, 1, {{0, 5}},
     {"indices[0] (position [0, 0] " SHAPE23 ") = 5", RANGE5}},
    {"OOB first position, negative (-s-1)", G(0, 0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {2, 3}, I64, 1, {{0, -6}},
     {"indices[0] (position [0, 0] " SHAPE23 ") = -6", RANGE5}},
    {"OOB middle position, positive", G(0, 0), CLG_DTYPE_UINT8, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{2, 5}},
     {"indices[2] (position [0, 2] " SHAPE23 ") = 5", RANGE5}},
    {"OOB middle position, negative", G(0, 0), CLG_DTYPE_INT16, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{3, -6}},
     {"indices[3] (position [1, 0] " SHAPE23 ") = -6", RANGE5}},
    {"OOB last position, positive", G(0, 0), CLG_DTYPE_DOUBLE, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{5, 5}},
     {"indices[5] (position [1, 2] " SHAPE23 ") = 5", RANGE5}},
    {"OOB last position, negative", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{5, -6}},
     {"indices[5] (position [1, 2] " SHAPE23 ") = -6", RANGE5}},
    {"OOB INT64_MIN", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {2, 3}, I64, 1,
     {{4, INT64_MIN}}, {"indices[4]", "= -9223372036854775808", RANGE5}},
    {"OOB INT64_MAX", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {2, 3}, I64, 1,
     {{1, INT64_MAX}}, {"indices[1]", "= 9223372036854775807", RANGE5}},
    {"OOB INT32_MIN (int32 indices)", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I32, 1, {{2, INT32_MIN}},
     {"indices[2]", "= -2147483648", RANGE5}},
    {"OOB INT32_MAX (int32 indices)", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I32, 1, {{5, INT32_MAX}}, {"indices[5]", "= 2147483647", RANGE5}},
    {"OOB int32 first position, -s-1", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I32, 1, {{0, -6}}, {"indices[0]", "= -6", RANGE5}},
    {"OOB int32 last position, s", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I32, 1, {{5, 5}}, {"indices[5]", "= 5", RANGE5}},
    {"OOB several: the first is named", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I64, 2, {{3, 1000}, {1, -1000}},
     {"indices[1]", "= -1000", RANGE5}},
    {"OOB scalar index (indices rank 0)", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3},
     0, {0}, I64, 1, {{0, 5}},
     {"indices[0] (position [] in indices of shape []) = 5", RANGE5}},
    {"OOB on axis -1 (s = 3)", G(-1, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {2, 3},
     I64, 1, {{2, 3}},
     {"indices[2]", "= 3, but axis 1 of data has size 3",
      "valid range is [-3, 2]"}},
    {"s == 0 with non-empty indices (axis 0)", G(0, 0), CLG_DTYPE_FLOAT, 2,
     {0, 3}, 2, {2, 3}, I64, 0, {{0}},
     {"indices[0]", "= 0, but axis 0 of data has size 0", "no index is valid"}},
    {"s == 0 with non-empty indices (axis 1, index -1)", G(1, 0),
     CLG_DTYPE_FLOAT, 2, {5, 0}, 2, {2, 3}, I64, 1, {{0, -1}},
     {"indices[0]", "= -1, but axis 1 of data has size 0"}},
    /* Gather with batch_dims (not in the catalogue) */
    {"Gather batch_dims 1, axis 1", G(1, 1), CLG_DTYPE_FLOAT, 3, {2, 4, 3}, 2,
     {2, 3}, I64, 1, {{4, 4}},
     {"indices[4] (position [1, 1] " SHAPE23 ") = 4",
      "axis 1 of data has size 4", "valid range is [-4, 3]"}},
    {"Gather batch_dims -1 (= 1), axis 2, int32", G(2, -1), CLG_DTYPE_UINT16,
     3, {2, 3, 6}, 2, {2, 5}, I32, 1, {{7, -7}},
     {"indices[7] (position [1, 2] in indices of shape [2, 5]) = -7",
      "axis 2 of data has size 6"}},
    /* An empty output (data [5, 0], axis 0), bad index: still an error */
    {"empty output, OOB value", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 0}, 2, {2, 3},
     I64, 1, {{4, -6}}, {"indices[4]", "= -6", RANGE5}},
    /* GatherElements (base: axis 0, output [2, 3]) */
    {"GatherElements: OOB first position (s)", GE(0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {2, 3}, I64, 1, {{0, 5}},
     {"indices[0] (position [0, 0] " SHAPE23 ") = 5",
      "but axis 0 of data has size 5", RANGE5}},
    {"GatherElements: OOB middle position (-s-1)", GE(0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {2, 3}, I64, 1, {{2, -6}},
     {"indices[2] (position [0, 2] " SHAPE23 ") = -6", RANGE5}},
    {"GatherElements: OOB last position", GE(0), CLG_DTYPE_INT8, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{5, 5}},
     {"indices[5] (position [1, 2] " SHAPE23 ") = 5", RANGE5}},
    {"GatherElements: OOB INT64_MIN", GE(0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{3, INT64_MIN}},
     {"indices[3]", "= -9223372036854775808", RANGE5}},
    {"GatherElements: OOB INT64_MAX", GE(0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {2, 3}, I64, 1, {{4, INT64_MAX}},
     {"indices[4]", "= 9223372036854775807", RANGE5}},
    {"GatherElements: OOB INT32_MIN (int32 indices)", GE(0), CLG_DTYPE_FLOAT,
     2, {5, 3}, 2, {2, 3}, I32, 1, {{1, INT32_MIN}},
     {"indices[1]", "= -2147483648", RANGE5}},
    {"GatherElements: OOB several, the first is named", GE(0),
     CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {2, 3}, I64, 2, {{4, 99}, {2, -99}},
     {"indices[2]", "= -99"}},
    {"GatherElements: OOB on axis -1 (s = 3)", GE(-1), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {2, 3}, I64, 1, {{4, -4}},
     {"indices[4] (position [1, 1] " SHAPE23 ") = -4",
      "but axis 1 of data has size 3: valid range is [-3, 2]"}},
    {"GatherElements: s == 0 with non-empty indices", GE(1), CLG_DTYPE_FLOAT,
     2, {5, 0}, 2, {2, 3}, I64, 0, {{0}},
     {"indices[0] (position [0, 0] " SHAPE23 ") = 0",
      "axis 1 of data has size 0: no index is valid"}},
    /* GatherND (base: data [5, 3], indices [3, 2], output [3]) */
    {"GatherND: OOB first component (d)", ND(0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2,
     {3, 2}, I64, 1, {{2, 5}},
     {"index out of bounds: indices[2] (position [1, 0] in indices of shape "
      "[3, 2]) = 5, component 0 of the index tuple indexes axis 0 of data, "
      "of size 5: valid range is [-5, 4]"}},
    {"GatherND: OOB first component (-d-1)", ND(0), CLG_DTYPE_FLOAT, 2, {5, 3},
     2, {3, 2}, I64, 1, {{0, -6}},
     {"indices[0] (position [0, 0]", "= -6, component 0", RANGE5}},
    {"GatherND: OOB last component (d), last position", ND(0),
     CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {3, 2}, I64, 1, {{5, 3}},
     {"indices[5] (position [2, 1] in indices of shape [3, 2]) = 3, "
      "component 1 of the index tuple indexes axis 1 of data, of size 3: "
      "valid range is [-3, 2]"}},
    {"GatherND: OOB last component beyond -d", ND(0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {3, 2}, I64, 1, {{1, -4}},
     {"indices[1] (position [0, 1]", "= -4, component 1",
      "valid range is [-3, 2]"}},
    {"GatherND: OOB INT64_MIN", ND(0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {3, 2},
     I64, 1, {{3, INT64_MIN}},
     {"indices[3]", "= -9223372036854775808, component 1"}},
    {"GatherND: OOB INT64_MAX", ND(0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {3, 2},
     I64, 1, {{4, INT64_MAX}},
     {"indices[4]", "= 9223372036854775807, component 0"}},
    {"GatherND: OOB INT32_MIN (int32 indices)", ND(0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {3, 2}, I32, 1, {{2, INT32_MIN}},
     {"indices[2]", "= -2147483648, component 0", RANGE5}},
    {"GatherND: OOB int32 last component", ND(0), CLG_DTYPE_FLOAT, 2, {5, 3},
     2, {3, 2}, I32, 1, {{5, 3}}, {"indices[5]", "= 3, component 1"}},
    {"GatherND: OOB several, the first is named", ND(0), CLG_DTYPE_FLOAT, 2,
     {5, 3}, 2, {3, 2}, I64, 2, {{3, 100}, {1, -100}},
     {"indices[1]", "= -100"}},
    {"GatherND: OOB with batch_dims 1 (component 0 is axis 1)", ND(1),
     CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {5, 1}, I64, 1, {{3, 3}},
     {"indices[3] (position [3, 0] in indices of shape [5, 1]) = 3, "
      "component 0 of the index tuple indexes axis 1 of data, of size 3: "
      "valid range is [-3, 2]"}},
    {"GatherND: a component into an axis of size 0", ND(0), CLG_DTYPE_FLOAT, 2,
     {5, 0}, 2, {3, 2}, I64, 1, {{1, 1}},
     {"indices[1] (position [0, 1]", "= 1, component 1",
      "axis 1 of data, of size 0: no index is valid"}},
    {"GatherND m 3, batch_dims 1, component 2", ND(1), CLG_DTYPE_UINT8, 4,
     {2, 4, 5, 6}, 3, {2, 3, 3}, I32, 1, {{14, -7}},
     {"indices[14] (position [1, 1, 2] in indices of shape [2, 3, 3]) = -7",
      "component 2 of the index tuple indexes axis 3 of data, of size 6"}},
    /* Many validation work-groups (100k+ indices) */
    {"big Gather int32, middle", G(0, 0), CLG_DTYPE_UINT8, 2, {1000, 2}, 1,
     {200000}, I32, 1, {{123457, 1000}},
     {"indices[123457] (position [123457] in indices of shape [200000]) = "
      "1000", "valid range is [-1000, 999]"}},
    {"big Gather int64, first", G(0, 0), CLG_DTYPE_UINT8, 1, {1000}, 1,
     {150000}, I64, 1, {{0, 1000}}, {"indices[0]", "= 1000"}},
    {"big Gather int64, last", G(0, 0), CLG_DTYPE_UINT8, 1, {1000}, 1,
     {100001}, I64, 1, {{-1, -1001}}, {"indices[100000]", "= -1001"}},
    {"big Gather int32, several across groups: the first", G(0, 0),
     CLG_DTYPE_UINT8, 1, {77}, 1, {300000}, I32, 3,
     {{290000, 99}, {40000, -78}, {150000, 78}},
     {"indices[40000]", "= -78", "valid range is [-77, 76]"}},
    {"big Gather int32, several in one group: the first", G(0, 0),
     CLG_DTYPE_UINT8, 1, {77}, 1, {300000}, I32, 3,
     {{20000, 99}, {16400, -78}, {16390, 78}}, {"indices[16390]", "= 78"}},
    {"big Gather int64 INT64_MIN, batch_dims 1", G(1, 1), CLG_DTYPE_UINT8, 2,
     {4, 9}, 2, {4, 30000}, I64, 2, {{100000, INT64_MIN}, {110000, 9}},
     {"indices[100000] (position [3, 10000] in indices of shape [4, 30000]) "
      "= -9223372036854775808", "valid range is [-9, 8]"}},
    {"big GatherElements int64, axis 0", GE(0), CLG_DTYPE_UINT8, 2, {50, 2400},
     2, {50, 2400}, I64, 1, {{119999, -51}},
     {"indices[119999] (position [49, 2399]", "= -51",
      "valid range is [-50, 49]"}},
    {"big GatherND m 3, component 0", ND(0), CLG_DTYPE_UINT8, 3, {7, 8, 9}, 2,
     {40000, 3}, I32, 2, {{90003, 7}, {100001, 8}},
     {"indices[90003] (position [30001, 0]", "= 7, component 0"}},
    {"big GatherND m 2, component 1, last", ND(0), CLG_DTYPE_UINT8, 2, {7, 8},
     2, {60000, 2}, I64, 1, {{-1, 8}},
     {"indices[119999] (position [59999, 1]", "= 8, component 1"}},
};
/* clang-format on */
#define NOOB (sizeof g_oob / sizeof g_oob[0])

/* One OOB case in one variant against the synchronous message. */
static void check_oob_variant(const ocase *k, const oinputs *in,
                              const ovariant *v, const char *sync_msg) {
  if (v->queue == 2 && !ooo_queue())
    return;
  oresult r;
  run_async_case(k, in, v, &r);
  const char *label = k->name;
  if (!v->obuf) {
    /* A host output: the call blocks anyway, and checks the values itself
     * (a deferred verdict would read back an unwritten staging buffer). */
    cr_expect(r.call == OOB && strcmp(r.call_msg, sync_msg) == 0,
              "%s [%s]: with a host output the call itself must fail as "
              "clg_run does: %s: \"%s\", want \"%s\"",
              label, v->name, clg_status_string(r.call), r.call_msg, sync_msg);
    cr_expect(!r.got_outcome && !r.got_event,
              "%s [%s]: an outcome or event was returned on error", label,
              v->name);
  } else {
    cr_expect(r.call == CLG_SUCCESS,
              "%s [%s]: clg_run_async returned %s: %s (the verdict belongs "
              "to the outcome)",
              label, v->name, clg_status_string(r.call), r.call_msg);
    cr_expect(r.call != CLG_SUCCESS || r.call_msg[0] == '\0',
              "%s [%s]: a message after success: %s", label, v->name,
              r.call_msg);
    cr_expect(r.got_outcome, "%s [%s]: no outcome", label, v->name);
    cr_expect(r.got_event == v->event, "%s [%s]: event %s", label, v->name,
              r.got_event ? "returned though not asked for" : "missing");
    if (v->event)
      cr_expect(r.event_complete, "%s [%s]: the call's event did not complete",
                label, v->name);
    cr_expect(r.validations == 1, "%s [%s]: %u validation kernels, want 1",
              label, v->name, r.validations);
    cr_expect(r.wait == OOB, "%s [%s]: clg_outcome_wait returned %s: %s", label,
              v->name, clg_status_string(r.wait), r.wait_msg);
    cr_expect(strcmp(r.wait_msg, sync_msg) == 0,
              "%s [%s]: the outcome's message differs from clg_run's:\n  "
              "async: %s\n  sync:  %s",
              label, v->name, r.wait_msg, sync_msg);
    cr_expect(r.wait2 == r.wait && strcmp(r.wait2_msg, r.wait_msg) == 0,
              "%s [%s]: a second wait differs: %s: %s", label, v->name,
              clg_status_string(r.wait2), r.wait2_msg);
  }
  cr_expect(r.out_sentinel,
            "%s [%s]: the output (or the bytes around it) was written", label,
            v->name);
  free(r.out);
}

static void run_oob_case(const ocase *k, uint64_t seed, size_t nvariants) {
  oinputs in;
  inputs_make(k, seed, &in);
  char sync_msg[2048];
  clg_status st = sync_run(k, &in, sync_msg, sizeof sync_msg);
  cr_expect(st == OOB, "%s: clg_run on host indices returned %s: %s", k->name,
            clg_status_string(st), sync_msg);
  for (int n = 0; n < 3 && k->msg[n]; ++n)
    cr_expect(tu_contains(sync_msg, k->msg[n]),
              "%s: the message lacks \"%s\": %s", k->name, k->msg[n], sync_msg);
  for (size_t n = 0; n < nvariants; ++n)
    check_oob_variant(k, &in, &g_variants[(seed + n) % NVARIANTS], sync_msg);
  inputs_free(&in);
}

Test(outcome, catalogue_out_of_bounds) {
  for (size_t n = 0; n < NOOB; ++n) {
    const ocase *k = &g_oob[n];
    /* Big arrays in 2 variants, the small ones in all. */
    bool big = tu_numel(k->q, k->is) > 10000;
    run_oob_case(k, 0x0C0u + n, big ? 2 : NVARIANTS);
  }
}

/* The first of two offenders wherever it lies relative to the validation
 * kernel's blocks and work-groups (the second is always last). */
Test(outcome, first_offender_positions) {
  ocase k = {"",  G(0, 0), CLG_DTYPE_UINT8, 1,     {10}, 1, {100000},
             I32, 2,       {{0}, {0}},      {NULL}};
  const int64_t pos[] = {0, 1, 63, 64, 16383, 16384, 50000, 99998, 99999};
  for (size_t a = 0; a < sizeof pos / sizeof pos[0]; ++a) {
    char name[64], want[64];
    snprintf(name, sizeof name, "offender at %" PRId64, pos[a]);
    snprintf(want, sizeof want, "indices[%" PRId64 "]", pos[a]);
    k.name = name;
    k.msg[0] = want;
    k.set[0][0] = pos[a];
    k.set[0][1] = a % 2 ? 10 : -11;
    k.set[1][0] = 99999;
    k.set[1][1] = a % 2 ? -11 : 10;
    k.idt = a % 2 ? I64 : I32;
    run_oob_case(&k, 0xF1u + a, 1);
  }
}

/* ------------------------------------------------------ valid inputs */

/* clang-format off */
static const ocase g_ok[] = {
    {"Gather axis 0", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 2, {2, 3}, I64, 0,
     {{0}}, {NULL}},
    {"Gather axis 1, int32, double", G(1, 0), CLG_DTYPE_DOUBLE, 3, {3, 7, 2},
     2, {4, 5}, I32, 0, {{0}}, {NULL}},
    {"Gather axis -1, bfloat16, valid edges", G(-1, 0), CLG_DTYPE_BFLOAT16, 2,
     {6, 9}, 1, {4}, I64, 4, {{0, -9}, {1, 8}, {2, 0}, {3, -1}}, {NULL}},
    {"Gather scalar index", G(0, 0), CLG_DTYPE_INT32, 2, {5, 3}, 0, {0}, I64,
     0, {{0}}, {NULL}},
    {"Gather batch_dims 1 axis 2, complex128", G(2, 1), CLG_DTYPE_COMPLEX128,
     3, {3, 2, 5}, 2, {3, 4}, I64, 0, {{0}}, {NULL}},
    {"Gather big, int32 (many work-groups)", G(0, 0), CLG_DTYPE_UINT16, 2,
     {300, 3}, 1, {120000}, I32, 0, {{0}}, {NULL}},
    {"GatherElements axis 1", GE(1), CLG_DTYPE_FLOAT, 2, {4, 6}, 2, {3, 5},
     I64, 0, {{0}}, {NULL}},
    {"GatherElements axis 0, int32, int8", GE(0), CLG_DTYPE_INT8, 3,
     {5, 4, 3}, 3, {7, 4, 2}, I32, 0, {{0}}, {NULL}},
    {"GatherND m 2", ND(0), CLG_DTYPE_FLOAT, 3, {4, 5, 3}, 2, {6, 2}, I64, 0,
     {{0}}, {NULL}},
    {"GatherND m 1, batch_dims 1, int32", ND(1), CLG_DTYPE_UINT64, 3,
     {3, 4, 2}, 3, {3, 5, 1}, I32, 0, {{0}}, {NULL}},
    {"GatherND m 3 full tuples, big", ND(0), CLG_DTYPE_UINT8, 3, {7, 8, 9}, 2,
     {40000, 3}, I64, 0, {{0}}, {NULL}},
};
/* clang-format on */
#define NOK (sizeof g_ok / sizeof g_ok[0])

/* A valid case in a variant: CLG_SUCCESS from the call and from the
 * outcome (twice), the event completes, the reference output byte for byte,
 * nothing around it written, and the validation kernels counted. */
static void check_ok_variant(const ocase *k, const oinputs *in,
                             const unsigned char *want, const ovariant *v) {
  if (v->queue == 2 && !ooo_queue())
    return;
  oresult r;
  run_async_case(k, in, v, &r);
  /* A validation kernel for cl_mem indices in mode RAISE with a cl_mem
   * output; with a host output the call checks them as clg_run() does
   * (read back, or by the kernel from 32 KiB: not counted here). */
  bool values = v->xbuf && k->p.mode == CLG_MODE_RAISE && in->count > 0;
  bool device = values && v->obuf;
  cr_expect(r.call == CLG_SUCCESS && r.call_msg[0] == '\0',
            "%s [%s]: the call returned %s: %s", k->name, v->name,
            clg_status_string(r.call), r.call_msg);
  cr_expect(r.got_outcome, "%s [%s]: no outcome", k->name, v->name);
  cr_expect(r.got_event == v->event, "%s [%s]: event %s", k->name, v->name,
            r.got_event ? "returned though not asked for" : "missing");
  if (v->event)
    cr_expect(r.event_complete, "%s [%s]: the event did not complete", k->name,
              v->name);
  cr_expect(r.wait == CLG_SUCCESS && r.wait_msg[0] == '\0',
            "%s [%s]: clg_outcome_wait returned %s: %s", k->name, v->name,
            clg_status_string(r.wait), r.wait_msg);
  cr_expect(r.wait2 == CLG_SUCCESS && r.wait2_msg[0] == '\0',
            "%s [%s]: a second wait returned %s: %s", k->name, v->name,
            clg_status_string(r.wait2), r.wait2_msg);
  if (device || !values)
    cr_expect(r.validations == (device ? 1u : 0u),
              "%s [%s]: %u validation kernels, want %u", k->name, v->name,
              r.validations, device ? 1u : 0u);
  ptrdiff_t diff = tu_first_diff(r.out, want, in->obytes);
  cr_expect(diff < 0,
            "%s [%s]: the output differs from the reference at "
            "byte %td of %zu",
            k->name, v->name, diff, in->obytes);
  cr_expect(r.guards_ok, "%s [%s]: bytes around the output were written",
            k->name, v->name);
  free(r.out);
}

static void run_ok_case(const ocase *k, uint64_t seed, const ovariant *variants,
                        size_t nvariants) {
  oinputs in;
  inputs_make(k, seed, &in);
  unsigned char *want = malloc(in.obytes + 1);
  cr_assert(want != NULL);
  cr_assert(ref_run(k, in.data, in.idx, want) == 0,
            "test bug: %s: the reference rejects the case", k->name);
  for (size_t n = 0; n < nvariants; ++n)
    check_ok_variant(k, &in, want, &variants[n]);
  free(want);
  inputs_free(&in);
}

/* Host indices: the verdict is decided by the call; the other storage
 * mixes of the asynchronous call. */
static const ovariant g_host_variants[] = {
    {"host indices, cl_mem data and output, event", true, false, true, 4, 0, 12,
     0, true},
    {"host data, indices and output", false, false, false, 0, 0, 0, 1, false},
    {"host indices and output, cl_mem data, out-of-order queue", true, false,
     false, 0, 0, 0, 2, true},
};

Test(outcome, valid_inputs_match_the_reference) {
  for (size_t n = 0; n < NOK; ++n) {
    run_ok_case(&g_ok[n], 0x600Du + n, g_variants, NVARIANTS);
    run_ok_case(&g_ok[n], 0x600Du + n, g_host_variants,
                sizeof g_host_variants / sizeof g_host_variants[0]);
  }
}

/* Modes WRAP and CLIP read no value: no verdict, no validation kernel, the
 * outcome decided; indices far out of range map as numpy's take does. */
Test(outcome, wrap_and_clip_have_no_verdict) {
  static const ocase cases[] = {
      {"Gather WRAP axis 0",
       GM(0, CLG_MODE_WRAP),
       CLG_DTYPE_FLOAT,
       2,
       {5, 3},
       2,
       {3, 4},
       I64,
       2,
       {{0, INT64_MIN}, {1, INT64_MAX}},
       {NULL}},
      {"Gather CLIP axis 1, int32",
       GM(1, CLG_MODE_CLIP),
       CLG_DTYPE_INT16,
       2,
       {4, 7},
       1,
       {9},
       I32,
       2,
       {{0, INT32_MIN}, {8, INT32_MAX}},
       {NULL}},
      {"Gather WRAP big",
       GM(0, CLG_MODE_WRAP),
       CLG_DTYPE_UINT8,
       2,
       {13, 2},
       1,
       {70000},
       I32,
       0,
       {{0}},
       {NULL}},
  };
  for (size_t n = 0; n < sizeof cases / sizeof cases[0]; ++n) {
    run_ok_case(&cases[n], 0x3A90u + n, g_variants, NVARIANTS);
    run_ok_case(&cases[n], 0x3A90u + n, g_host_variants, 1);
  }

  /* Decided at once: the outcome is SUCCESS while the wait list (and so the
   * gather) is still pending behind a user event. */
  const ocase *k = &cases[0];
  oinputs in;
  inputs_make(k, 0x3A90u, &in);
  tu_tensor d, x, o;
  tu_tensor_init(&d, k->dt, k->r, k->ds, buf_at(0), in.data);
  tu_tensor_init(&x, k->idt, k->q, k->is, buf_at(0), in.idx);
  tu_tensor_init(&o, k->dt, in.orank, in.os, buf_at(0), NULL);
  cl_event u = user_event(), ev = NULL;
  watchdog w;
  watchdog_start(&w, u, 5000);
  clg_outcome *oc = NULL;
  clg_status st = clg_run_async(tu_ctx(), &k->p, &d.desc, &x.desc, &o.desc,
                                inorder_queue(), 1, &u, &ev, &oc);
  cr_expect(st == CLG_SUCCESS, "WRAP, pending wait list: %s", clg_last_error());
  clg_status ws = oc ? clg_outcome_wait(oc) : CLG_ERROR_NULL_ARGUMENT;
  bool fired = watchdog_fired(&w);
  cr_expect(ws == CLG_SUCCESS && !fired,
            "WRAP: the decided outcome waited for the wait list (%s, %s)",
            clg_status_string(ws), fired ? "the watchdog fired" : "");
  cr_expect(ev && event_status(ev) != CL_COMPLETE,
            "WRAP: the gather completed before its wait list");
  watchdog_release(&w);
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  unsigned char *want = malloc(in.obytes), *got = malloc(in.obytes);
  cr_assert(want && got && ref_run(k, in.data, in.idx, want) == 0);
  tu_tensor_read(&o, got);
  cr_expect(memcmp(got, want, in.obytes) == 0, "WRAP: wrong output");
  free(want);
  free(got);
  clg_outcome_release(oc);
  clReleaseEvent(u);
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o);
  inputs_free(&in);
}

/* No indices, or no output: nothing to gather. */
Test(outcome, empty_indices_and_empty_output) {
  static const ocase cases[] = {
      {"no indices [0]",
       G(0, 0),
       CLG_DTYPE_FLOAT,
       2,
       {5, 3},
       1,
       {0},
       I64,
       0,
       {{0}},
       {NULL}},
      {"no indices [2, 0], axis 1",
       G(1, 0),
       CLG_DTYPE_FLOAT,
       2,
       {5, 3},
       2,
       {2, 0},
       I32,
       0,
       {{0}},
       {NULL}},
      {"GatherND indices [0, 2]",
       ND(0),
       CLG_DTYPE_FLOAT,
       2,
       {5, 3},
       2,
       {0, 2},
       I64,
       0,
       {{0}},
       {NULL}},
      {"GatherElements indices [0, 3]",
       GE(0),
       CLG_DTYPE_FLOAT,
       2,
       {5, 3},
       2,
       {0, 3},
       I64,
       0,
       {{0}},
       {NULL}},
      /* Indices to check, but nothing to write: the verdict still decides. */
      {"empty output (data [5, 0]), valid indices",
       G(0, 0),
       CLG_DTYPE_FLOAT,
       2,
       {5, 0},
       2,
       {2, 3},
       I64,
       0,
       {{0}},
       {NULL}},
      {"empty output, GatherND data [4, 3, 0]",
       ND(0),
       CLG_DTYPE_FLOAT,
       3,
       {4, 3, 0},
       2,
       {5, 2},
       I32,
       0,
       {{0}},
       {NULL}},
  };
  for (size_t n = 0; n < sizeof cases / sizeof cases[0]; ++n) {
    run_ok_case(&cases[n], 0xE3u + n, g_variants, NVARIANTS);
    run_ok_case(&cases[n], 0xE3u + n, g_host_variants, 1);
  }
}

/* ------------------------------------------------------ wait lists */

/* A kernel of the test's own that writes one int64 (built once). */
static cl_kernel put_kernel(void) {
  static cl_kernel k;
  if (!k) {
    static const char *src =
        "kernel void put(global long *p, ulong i, long v) { p[i] = v; }\n";
    cl_int err = CL_SUCCESS;
    cl_program prog =
        clCreateProgramWithSource(tu_cl_context(), 1, &src, NULL, &err);
    tu_cl_check(err, "clCreateProgramWithSource (test kernel)");
    cl_device_id dev = tu_device();
    tu_cl_check(clBuildProgram(prog, 1, &dev, "", NULL, NULL),
                "clBuildProgram (test kernel)");
    k = clCreateKernel(prog, "put", &err);
    tu_cl_check(err, "clCreateKernel (test kernel)");
    clReleaseProgram(prog);
  }
  return k;
}

/* Indices [6] (int64) in a cl_mem at element offset 2 whose element 4 is
 * made `final` by a command (a non-blocking write, or the test's kernel)
 * on queue q that waits for a user event; clg_run_async gets that
 * command's event as its wait list, on q. The call must return while the
 * user event is pending; after it completes, the verdict and the gather
 * must have seen `final`. */
static void wait_list_case(cl_command_queue q, const char *qname,
                           bool by_kernel, bool to_bad) {
  char label[160];
  snprintf(label, sizeof label, "[%s, %s, indices made %s]", qname,
           by_kernel ? "written by a kernel" : "non-blocking write",
           to_bad ? "bad" : "good");
  ocase k = {label, G(0, 0), CLG_DTYPE_FLOAT, 2,     {5, 3}, 1, {6},
             I64,   1,       {{4, 0}},        {NULL}};
  const int64_t bad = 7, good = -5;
  k.set[0][1] = to_bad ? good : bad; /* before */
  oinputs in;
  inputs_make(&k, 0x3E17u, &in);
  tu_tensor d, x, o;
  tu_tensor_init(&d, k.dt, k.r, k.ds, buf_at(4), in.data);
  tu_tensor_init(&x, k.idt, k.q, k.is, buf_at(16), in.idx);
  tu_tensor_init(&o, k.dt, in.orank, in.os, buf_at(0), NULL);

  cl_event u = user_event(), wrote = NULL;
  static int64_t final_value; /* alive until the write completed */
  final_value = to_bad ? bad : good;
  if (by_kernel) {
    cl_kernel kk = put_kernel();
    cl_ulong at = 2 + 4;
    tu_cl_check(clSetKernelArg(kk, 0, sizeof(cl_mem), &x.buf), "arg 0");
    tu_cl_check(clSetKernelArg(kk, 1, sizeof at, &at), "arg 1");
    tu_cl_check(clSetKernelArg(kk, 2, sizeof final_value, &final_value),
                "arg 2");
    size_t one = 1;
    tu_cl_check(
        clEnqueueNDRangeKernel(q, kk, 1, NULL, &one, NULL, 1, &u, &wrote),
        "clEnqueueNDRangeKernel (test kernel)");
  } else {
    tu_cl_check(clEnqueueWriteBuffer(q, x.buf, CL_FALSE, 16 + 4 * 8, 8,
                                     &final_value, 1, &u, &wrote),
                "clEnqueueWriteBuffer (non-blocking)");
  }
  tu_cl_check(clFlush(q), "clFlush");

  watchdog w;
  watchdog_start(&w, u, 3000);
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  unsigned v0 = validations();
  clg_status st = clg_run_async(tu_ctx(), &k.p, &d.desc, &x.desc, &o.desc, q, 1,
                                &wrote, &ev, &oc);
  bool blocked = watchdog_fired(&w);
  cl_int ustat = event_status(u);
  cl_int estat = ev ? event_status(ev) : CL_COMPLETE;
  cr_expect(st == CLG_SUCCESS, "%s: the call returned %s: %s", label,
            clg_status_string(st), clg_last_error());
  cr_expect(!blocked && ustat != CL_COMPLETE,
            "%s: the call did not return while the user event was pending",
            label);
  cr_expect(estat != CL_COMPLETE,
            "%s: the call's event completed before its wait list", label);
  cr_expect(validations() - v0 == 1, "%s: no validation kernel", label);
  watchdog_release(&w);

  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  clg_status ws = oc ? clg_outcome_wait(oc) : CLG_ERROR_NULL_ARGUMENT;
  char wmsg[2048];
  snprintf(wmsg, sizeof wmsg, "%s", clg_last_error());
  clg_outcome_release(oc);
  tu_cl_check(clFinish(q), "clFinish");

  /* The yardstick: the inputs as they are after the write. */
  tu_set_index(in.idx, k.idt, 4, final_value);
  char sync_msg[2048];
  clg_status sync = sync_run(&k, &in, sync_msg, sizeof sync_msg);
  unsigned char *got = malloc(in.obytes);
  cr_assert(got != NULL);
  tu_tensor_read(&o, got);
  if (to_bad) {
    cr_expect(sync == OOB && tu_contains(sync_msg, "indices[4]") &&
                  tu_contains(sync_msg, "= 7"),
              "%s: test bug: %s", label, sync_msg);
    cr_expect(ws == OOB && strcmp(wmsg, sync_msg) == 0,
              "%s: the verdict did not see the written value: %s: %s", label,
              clg_status_string(ws), wmsg);
    cr_expect(tu_tensor_all_sentinel(&o), "%s: the output was written", label);
  } else {
    unsigned char *want = malloc(in.obytes);
    cr_assert(want && ref_run(&k, in.data, in.idx, want) == 0);
    cr_expect(ws == CLG_SUCCESS,
              "%s: the verdict did not see the written value: %s: %s", label,
              clg_status_string(ws), wmsg);
    cr_expect(memcmp(got, want, in.obytes) == 0 && tu_tensor_guards_ok(&o),
              "%s: the gather did not see the written value", label);
    free(want);
  }
  free(got);
  clReleaseEvent(wrote);
  clReleaseEvent(u);
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o);
  inputs_free(&in);
}

Test(outcome, wait_list_is_respected_without_blocking) {
  for (int by_kernel = 0; by_kernel < 2; ++by_kernel)
    for (int to_bad = 0; to_bad < 2; ++to_bad) {
      wait_list_case(inorder_queue(), "in-order queue", by_kernel, to_bad);
      if (ooo_queue())
        wait_list_case(ooo_queue(), "out-of-order queue", by_kernel, to_bad);
    }
}

/* clg_outcome_wait() waits for the validation kernel, not for commands
 * enqueued after the call: its verdict read must not sit behind them.
 *  1. The documented gating pattern on the context's own queue (queue
 *     NULL): the call, then a consumer command on clg_context_queue() held
 *     back by a user event that the host completes only once the outcome
 *     says SUCCESS. The wait must return while the consumer is held.
 *  2. Two calls: A on the context's own queue behind a pending user event,
 *     B on a queue of the caller's with nothing to wait for. Waiting for
 *     B's outcome must not wait for A's wait list.
 * Each wait is given 1.5 s (a watchdog then completes the user event, so a
 * wait that blocks cannot hang the suite). */
static void later_commands_case(int scenario) {
  ocase k = {"later", G(0, 0), CLG_DTYPE_FLOAT, 2,     {5, 3}, 1, {6},
             I64,     0,       {{0}},           {NULL}};
  oinputs in;
  inputs_make(&k, 0x1A7Eu + (unsigned)scenario, &in);
  tu_tensor d, x, o1, o2;
  tu_tensor_init(&d, k.dt, k.r, k.ds, buf_at(0), in.data);
  tu_tensor_init(&x, k.idt, k.q, k.is, buf_at(0), in.idx);
  tu_tensor_init(&o1, k.dt, in.orank, in.os, buf_at(0), NULL);
  tu_tensor_init(&o2, k.dt, in.orank, in.os, buf_at(0), NULL);
  cl_command_queue own = clg_context_queue(tu_ctx());
  cl_event u = user_event(), held = NULL;
  clg_outcome *a = NULL, *b = NULL;
  watchdog w;
  clg_status st, ws;
  if (scenario == 1) {
    st = clg_run_async(tu_ctx(), &k.p, &d.desc, &x.desc, &o1.desc, NULL, 0,
                       NULL, NULL, &a);
    cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
    tu_cl_check(clEnqueueMarkerWithWaitList(own, 1, &u, &held),
                "clEnqueueMarkerWithWaitList (the held consumer)");
    tu_cl_check(clFlush(own), "clFlush");
    watchdog_start(&w, u, 1500);
    ws = clg_outcome_wait(a);
  } else {
    st = clg_run_async(tu_ctx(), &k.p, &d.desc, &x.desc, &o1.desc, NULL, 1, &u,
                       NULL, &a);
    cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
    st = clg_run_async(tu_ctx(), &k.p, &d.desc, &x.desc, &o2.desc,
                       inorder_queue(), 0, NULL, NULL, &b);
    cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
    watchdog_start(&w, u, 1500);
    ws = clg_outcome_wait(b);
  }
  bool fired = watchdog_release(&w);
  cr_expect(ws == CLG_SUCCESS, "scenario %d: the outcome is %s: %s", scenario,
            clg_status_string(ws), clg_last_error());
  cr_expect(!fired,
            "scenario %d: clg_outcome_wait() waited for %s: it reads the "
            "verdict on the context's own in-order queue (host/run/outcome.c), "
            "behind every command enqueued there since",
            scenario,
            scenario == 1 ? "a command enqueued after the call"
                          : "another call's wait list");
  cr_expect(clg_outcome_wait(a) == CLG_SUCCESS, "%s", clg_last_error());
  clg_outcome_release(a);
  clg_outcome_release(b);
  tu_cl_check(clFinish(own), "clFinish");
  tu_cl_check(clFinish(inorder_queue()), "clFinish");
  if (held)
    clReleaseEvent(held);
  clReleaseEvent(u);
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o1);
  tu_tensor_free(&o2);
  inputs_free(&in);
}

Test(outcome, wait_does_not_wait_for_later_commands, .timeout = 30) {
  later_commands_case(1);
  later_commands_case(2);
}

/* ---------------------------------------------- outcomes themselves */

typedef struct waiter {
  clg_outcome *oc;
  clg_status st;
  char msg[2048];
  atomic_bool done;
} waiter;

static void *wait_thread(void *p) {
  waiter *w = p;
  w->st = clg_outcome_wait(w->oc);
  snprintf(w->msg, sizeof w->msg, "%s", clg_last_error());
  atomic_store(&w->done, true);
  return NULL;
}

/* clg_outcome_wait() in another thread, given `ms` milliseconds to return;
 * false if it did not (the thread is then left behind, stuck). */
static bool wait_within(waiter *w, long ms) {
  pthread_t th;
  atomic_store(&w->done, false);
  cr_assert(pthread_create(&th, NULL, wait_thread, w) == 0);
  for (long t = 0; t < ms && !atomic_load(&w->done); ++t) {
    struct timespec one = {0, 1000000};
    nanosleep(&one, NULL);
  }
  if (!atomic_load(&w->done)) {
    pthread_detach(th);
    return false;
  }
  pthread_join(th, NULL);
  return true;
}

/* A pending all-cl_mem call of case k whose wait list is user event *u
 * (created here); returns the outcome, *ev its event. */
typedef struct pending {
  oinputs in;
  tu_tensor d, x, o;
  cl_event u, ev;
  clg_outcome *oc;
} pending;

static void pending_start(pending *p, const ocase *k, uint64_t seed,
                          cl_command_queue q) {
  memset(p, 0, sizeof *p);
  inputs_make(k, seed, &p->in);
  tu_tensor_init(&p->d, k->dt, k->r, k->ds, buf_at(0), p->in.data);
  tu_tensor_init(&p->x, k->idt, k->q, k->is, buf_at(8), p->in.idx);
  tu_tensor_init(&p->o, k->dt, p->in.orank, p->in.os, buf_at(4), NULL);
  p->u = user_event();
  clg_status st = clg_run_async(tu_ctx(), &k->p, &p->d.desc, &p->x.desc,
                                &p->o.desc, q, 1, &p->u, &p->ev, &p->oc);
  cr_assert(st == CLG_SUCCESS && p->oc && p->ev, "%s: %s", k->name,
            clg_last_error());
}

static void pending_free(pending *p) {
  if (p->ev)
    clReleaseEvent(p->ev);
  clReleaseEvent(p->u);
  tu_tensor_free(&p->d);
  tu_tensor_free(&p->x);
  tu_tensor_free(&p->o);
  inputs_free(&p->in);
}

/* The lifecycle of outcomes; run twice (the first run builds the programs,
 * which the context keeps: they hold references to the cl_context too). */
static void outcome_lifecycle(void) {
  static const ocase bad = {"bad",  G(0, 0),   CLG_DTYPE_FLOAT, 2,
                            {5, 3}, 2,         {2, 3},          I64,
                            1,      {{4, -6}}, {NULL}};
  static const ocase good = {"good", GE(1), CLG_DTYPE_FLOAT, 2,
                             {4, 3}, 2,     {4, 5},          I32,
                             0,      {{0}}, {NULL}};

  /* Two threads wait at once on a pending OOB outcome, then a third wait:
   * the same status and message every time, and clg_run's. */
  for (int which = 0; which < 2; ++which) {
    const ocase *k = which ? &good : &bad;
    pending p;
    pending_start(&p, k, 0x7770u + (unsigned)which, inorder_queue());
    char sync_msg[2048];
    clg_status sync = sync_run(k, &p.in, sync_msg, sizeof sync_msg);
    cr_assert(sync == (which ? CLG_SUCCESS : OOB), "test bug: %s", sync_msg);
    waiter w[2] = {{p.oc, CLG_SUCCESS, {0}, false},
                   {p.oc, CLG_SUCCESS, {0}, false}};
    pthread_t th[2];
    for (int t = 0; t < 2; ++t)
      cr_assert(pthread_create(&th[t], NULL, wait_thread, &w[t]) == 0);
    struct timespec ms20 = {0, 20 * 1000 * 1000};
    nanosleep(&ms20, NULL);
    tu_cl_check(clSetUserEventStatus(p.u, CL_COMPLETE), "clSetUserEventStatus");
    for (int t = 0; t < 2; ++t)
      pthread_join(th[t], NULL);
    clg_status again = clg_outcome_wait(p.oc);
    char again_msg[2048];
    snprintf(again_msg, sizeof again_msg, "%s", clg_last_error());
    for (int t = 0; t < 2; ++t)
      cr_expect(w[t].st == sync && strcmp(w[t].msg, sync_msg) == 0,
                "[%s] thread %d: %s: \"%s\", want %s: \"%s\"", k->name, t,
                clg_status_string(w[t].st), w[t].msg, clg_status_string(sync),
                sync_msg);
    cr_expect(again == sync && strcmp(again_msg, sync_msg) == 0,
              "[%s] a third wait: %s: %s", k->name, clg_status_string(again),
              again_msg);
    /* An unrelated failure in between does not change what the outcome
     * says (the message is the thread's last call's). */
    cr_expect(clg_outcome_wait(NULL) == CLG_ERROR_NULL_ARGUMENT);
    cr_expect(clg_outcome_wait(p.oc) == sync &&
                  strcmp(clg_last_error(), sync_msg) == 0,
              "[%s] after another error the outcome's message changed: %s",
              k->name, clg_last_error());
    tu_cl_check(clWaitForEvents(1, &p.ev), "clWaitForEvents");
    clg_outcome_release(p.oc);
    if (which) {
      unsigned char *want = malloc(p.in.obytes), *got = malloc(p.in.obytes);
      cr_assert(want && got && ref_run(k, p.in.data, p.in.idx, want) == 0);
      tu_tensor_read(&p.o, got);
      cr_expect(memcmp(got, want, p.in.obytes) == 0, "[%s] wrong output",
                k->name);
      free(want);
      free(got);
    } else {
      cr_expect(tu_tensor_all_sentinel(&p.o), "[%s] output written", k->name);
    }
    pending_free(&p);
  }

  /* Released without a wait while still pending (its verdict not even
   * computed): no crash, the gather still runs to completion. */
  {
    pending p;
    pending_start(&p, &good, 0x7772u, inorder_queue());
    clg_outcome_release(p.oc);
    tu_cl_check(clSetUserEventStatus(p.u, CL_COMPLETE), "clSetUserEventStatus");
    tu_cl_check(clWaitForEvents(1, &p.ev), "clWaitForEvents");
    unsigned char *want = malloc(p.in.obytes), *got = malloc(p.in.obytes);
    cr_assert(want && got && ref_run(&good, p.in.data, p.in.idx, want) == 0);
    tu_tensor_read(&p.o, got);
    cr_expect(memcmp(got, want, p.in.obytes) == 0,
              "released unwaited: the gather did not complete correctly");
    free(want);
    free(got);
    pending_free(&p);
  }
  /* Released without a wait after completing, OOB; and on the caller's
   * queue that the caller released before waiting (the outcome keeps its
   * own reference). */
  {
    cl_int err = CL_SUCCESS;
    cl_command_queue q =
        clCreateCommandQueue(tu_cl_context(), tu_device(), 0, &err);
    tu_cl_check(err, "clCreateCommandQueue");
    pending p, p2;
    pending_start(&p, &bad, 0x7773u, q);
    pending_start(&p2, &bad, 0x7774u, q);
    clReleaseCommandQueue(q);
    tu_cl_check(clSetUserEventStatus(p.u, CL_COMPLETE), "user event");
    tu_cl_check(clSetUserEventStatus(p2.u, CL_COMPLETE), "user event");
    tu_cl_check(clWaitForEvents(1, &p.ev), "clWaitForEvents");
    clg_outcome_release(p.oc);
    clg_status st = clg_outcome_wait(p2.oc);
    cr_expect(st == OOB && tu_contains(clg_last_error(), "indices[4]"),
              "wait after the caller released its queue: %s: %s",
              clg_status_string(st), clg_last_error());
    tu_cl_check(clWaitForEvents(1, &p2.ev), "clWaitForEvents");
    clg_outcome_release(p2.oc);
    cr_expect(tu_tensor_all_sentinel(&p.o) && tu_tensor_all_sentinel(&p2.o),
              "OOB, released: the output was written");
    pending_free(&p);
    pending_free(&p2);
  }
  /* Decided outcomes (host indices; WRAP) released without a wait. */
  {
    static const ocase wrap = {"wrap",
                               GM(0, CLG_MODE_WRAP),
                               CLG_DTYPE_FLOAT,
                               2,
                               {5, 3},
                               2,
                               {2, 3},
                               I64,
                               1,
                               {{0, 99}},
                               {NULL}};
    oinputs in;
    inputs_make(&wrap, 0x7775u, &in);
    tu_tensor d, x, o;
    tu_tensor_init(&d, wrap.dt, wrap.r, wrap.ds, buf_at(0), in.data);
    tu_tensor_init(&x, wrap.idt, wrap.q, wrap.is, buf_at(0), in.idx);
    tu_tensor_init(&o, wrap.dt, in.orank, in.os, buf_at(0), NULL);
    clg_outcome *oc = NULL;
    cr_expect(clg_run_async(tu_ctx(), &wrap.p, &d.desc, &x.desc, &o.desc, NULL,
                            0, NULL, NULL, &oc) == CLG_SUCCESS &&
              oc != NULL);
    clg_outcome_release(oc);
    /* Host indices: all zeros are valid. */
    int64_t zeros[6] = {0};
    clg_tensor xz = clg_tensor_host(I64, 2, wrap.is, zeros);
    oc = NULL;
    clg_params raise = G(0, 0);
    cr_expect(clg_run_async(tu_ctx(), &raise, &d.desc, &xz, &o.desc, NULL, 0,
                            NULL, NULL, &oc) == CLG_SUCCESS &&
              oc != NULL);
    clg_outcome_release(oc);
    clg_outcome_release(NULL); /* a no-op */
    tu_tensor_free(&d);
    tu_tensor_free(&x);
    tu_tensor_free(&o);
    inputs_free(&in);
  }
}

Test(outcome, wait_twice_from_two_threads_and_release) {
  (void)inorder_queue(); /* the test's own queue, before counting */
  outcome_lifecycle();
  cl_uint refs0 = settled_refs();
  outcome_lifecycle();
  /* Nothing leaked: every outcome let go of its queue and verdict. */
  tu_cl_check(clFinish(clg_context_queue(tu_ctx())), "clFinish (ctx queue)");
  cl_uint refs1 = tu_context_refs_after(tu_cl_context(), refs0);
  cr_expect(refs1 == refs0,
            "the cl_context's reference count went from %u to %u: an "
            "outcome leaked",
            (unsigned)refs0, (unsigned)refs1);
}

/* A wait list event that fails: the verdict cannot be read, so the outcome
 * is CLG_ERROR_OPENCL (the output's state unknown), every time; the wait
 * must return (it is given 3 s). */
Test(outcome, failed_wait_list_event, .timeout = 20) {
  ocase k = {
      "failed event", G(0, 0), CLG_DTYPE_FLOAT, 2, {5, 3}, 1, {6}, I64, 0,
      {{0}},          {NULL}};
  oinputs in;
  inputs_make(&k, 0xFA11u, &in);
  tu_tensor d, x, o;
  tu_tensor_init(&d, k.dt, k.r, k.ds, buf_at(0), in.data);
  tu_tensor_init(&x, k.idt, k.q, k.is, buf_at(0), in.idx);
  tu_tensor_init(&o, k.dt, in.orank, in.os, buf_at(0), NULL);
  cl_event u = user_event(), ev = NULL;
  clg_outcome *oc = NULL;
  clg_status st = clg_run_async(tu_ctx(), &k.p, &d.desc, &x.desc, &o.desc,
                                inorder_queue(), 1, &u, &ev, &oc);
  cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
  tu_cl_check(clSetUserEventStatus(u, -1), "clSetUserEventStatus(-1)");
  waiter w1 = {oc, CLG_SUCCESS, {0}, false};
  cr_assert(wait_within(&w1, 3000),
            "clg_outcome_wait() did not return within 3 s after an event of "
            "the call's wait list failed (it hangs in the blocking read of "
            "the verdict: host/run/index_pass.c, clg__verdict_read)");
  waiter w2 = {oc, CLG_SUCCESS, {0}, false};
  cr_assert(wait_within(&w2, 3000), "a second clg_outcome_wait() hangs");
  cr_expect(w1.st == CLG_ERROR_OPENCL && tu_contains(w1.msg, "verdict"),
            "a failed wait list: the outcome is %s: %s",
            clg_status_string(w1.st), w1.msg);
  cr_expect(w2.st == w1.st, "a second wait gives %s", clg_status_string(w2.st));
  clg_outcome_release(oc);
  clWaitForEvents(1, &ev); /* fails: the command was never run */
  clReleaseEvent(ev);
  clReleaseEvent(u);
  tu_cl_check(clFinish(inorder_queue()), "clFinish");
  cr_expect(tu_tensor_all_sentinel(&o), "the output was written");
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o);
  inputs_free(&in);
}

/* ------------------------------------------------ errors of the call */

/* The base: Gather axis 0 on data float [5, 3] (cl_mem), indices int64
 * [2, 3] (cl_mem, valid), output [2, 3, 3] (cl_mem, sentinel). */
typedef struct ecall {
  clg_context *ctx;
  clg_params p;
  clg_tensor d, x, o;
  cl_uint nev;
  const cl_event *wl;
  bool null_outcome;
} ecall;

typedef void (*ebreak)(ecall *c, cl_mem scratch);

static void e_null_outcome(ecall *c, cl_mem m) {
  (void)m;
  c->null_outcome = true;
}
static void e_null_ctx(ecall *c, cl_mem m) {
  (void)m;
  c->ctx = NULL;
}
static void e_shape(ecall *c, cl_mem m) {
  (void)m;
  c->o.shape[2] = 4;
}
static void e_axis(ecall *c, cl_mem m) {
  (void)m;
  c->p.axis = 2;
}
static void e_batch_dims(ecall *c, cl_mem m) {
  (void)m;
  c->p.batch_dims = 3;
}
static void e_nd_m(ecall *c, cl_mem m) {
  (void)m;
  c->p.op = CLG_OP_GATHER_ND; /* indices [2, 3]: m 3 > rank 2 */
}
static void e_dtype(ecall *c, cl_mem m) {
  (void)m;
  c->o.dtype = CLG_DTYPE_INT32;
}
static void e_idx_dtype(ecall *c, cl_mem m) {
  (void)m;
  c->x.dtype = CLG_DTYPE_FLOAT;
}
static void e_misaligned(ecall *c, cl_mem m) {
  (void)m;
  c->x.offset = 4;
}
static void e_wait_list(ecall *c, cl_mem m) {
  (void)m;
  c->nev = 2;
  c->wl = NULL;
}
static void e_too_small(ecall *c, cl_mem m) {
  c->x.buffer = m;
  c->x.offset = 8;
}
static void e_overlap(ecall *c, cl_mem m) {
  (void)m;
  c->x.buffer = c->o.buffer;
}
static void e_mode(ecall *c, cl_mem m) {
  (void)m;
  c->p.mode = (clg_index_mode)9;
}
static void e_wrap_empty_axis(ecall *c, cl_mem m) {
  (void)m;
  c->p.mode = CLG_MODE_WRAP;
  c->p.axis = 1;
  c->d.shape[1] = 0;
  c->o.shape[0] = 5;
  c->o.shape[1] = 2;
  c->o.shape[2] = 3;
}
static void e_host_oob(ecall *c, cl_mem m) {
  (void)m;
  static int64_t v[6] = {0, 1, 2, 3, 5, 0};
  c->x = clg_tensor_host(I64, 2, c->x.shape, v);
}
static void e_ge_oob_host(ecall *c, cl_mem m) {
  (void)m;
  static int32_t v[6] = {0, 1, 2, -4, 0, 0};
  c->p.op = CLG_OP_GATHER_ELEMENTS;
  c->p.axis = 1;
  c->x = clg_tensor_host(I32, 2, c->x.shape, v);
  c->o.rank = 2;
  c->o.shape[0] = 2;
  c->o.shape[1] = 3;
}
/* cl_mem indices (int32, indices[4] = 5) with a host output: the call
 * checks them itself. */
static float g_host_out[18];
static void e_host_output_oob(ecall *c, cl_mem m) {
  c->x = clg_tensor_buffer(I32, 2, c->x.shape, m, 0);
  c->o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, c->o.shape, g_host_out);
}
static void e_null_data(ecall *c, cl_mem m) {
  (void)m;
  c->d.storage = CLG_STORAGE_BUFFER;
  c->d.buffer = NULL;
}

typedef struct ecase {
  const char *name;
  ebreak brk;
  clg_status status;
  const char *msg;
} ecase;

Test(outcome, errors_are_returned_by_the_call) {
  static const ecase cases[] = {
      {"outcome NULL", e_null_outcome, CLG_ERROR_NULL_ARGUMENT,
       "outcome is NULL"},
      {"ctx NULL", e_null_ctx, CLG_ERROR_NULL_ARGUMENT, "ctx is NULL"},
      {"data->buffer NULL", e_null_data, CLG_ERROR_NULL_ARGUMENT,
       "data->buffer is NULL"},
      {"output shape", e_shape, CLG_ERROR_SHAPE_MISMATCH,
       "output has shape [2, 3, 4]"},
      {"axis 2", e_axis, CLG_ERROR_INVALID_AXIS, "axis 2 is out of range"},
      {"batch_dims 3", e_batch_dims, CLG_ERROR_INVALID_BATCH_DIMS,
       "batch_dims 3 is out of range"},
      {"GatherND m 3", e_nd_m, CLG_ERROR_INCOMPATIBLE_SHAPES,
       "it must be in [1, 2]"},
      {"output dtype", e_dtype, CLG_ERROR_DTYPE_MISMATCH,
       "output has element type int32"},
      {"indices dtype", e_idx_dtype, CLG_ERROR_INVALID_INDICES_DTYPE, "float"},
      {"indices offset 4", e_misaligned, CLG_ERROR_INVALID_ARGUMENT,
       "indices->offset 4 is not a multiple of the index size 8"},
      {"wait list", e_wait_list, CLG_ERROR_INVALID_ARGUMENT, "num_events is 2"},
      {"indices buffer too small", e_too_small, CLG_ERROR_BUFFER_TOO_SMALL,
       "indices->buffer holds"},
      {"output overlaps indices", e_overlap, CLG_ERROR_INVALID_ARGUMENT,
       "output overlaps indices"},
      {"mode 9", e_mode, CLG_ERROR_INVALID_ARGUMENT, "unknown index mode 9"},
      {"WRAP on an empty axis (cl_mem indices)", e_wrap_empty_axis, OOB,
       "axis 1 of data has size 0, so mode wrap has no position"},
      {"host indices OOB", e_host_oob, OOB,
       "indices[4] (position [1, 1] in indices of shape [2, 3]) = 5"},
      {"GatherElements host indices OOB", e_ge_oob_host, OOB,
       "indices[3] (position [1, 0] in indices of shape [2, 3]) = -4"},
      {"cl_mem indices OOB, host output", e_host_output_oob, OOB,
       "indices[4] (position [1, 1] in indices of shape [2, 3]) = 5"},
  };
  static const int64_t ds[2] = {5, 3}, is[2] = {2, 3}, os[3] = {2, 3, 3};
  static const int64_t idx[6] = {0, 4, -5, 2, -1, 3};
  float data[15];
  for (int n = 0; n < 15; ++n)
    data[n] = (float)n;
  tu_tensor d, x, o;
  tu_tensor_init(&d, CLG_DTYPE_FLOAT, 2, ds, buf_at(0), data);
  tu_tensor_init(&x, I64, 2, is, buf_at(0), idx);
  tu_tensor_init(&o, CLG_DTYPE_FLOAT, 3, os, buf_at(0), NULL);
  /* 40 bytes: too small for the int64 indices at offset 8; int32 indices
   * with an out-of-bounds value at 0. */
  static const int32_t bad32[10] = {0, 1, 2, 3, 5, 0, 0, 0, 0, 0};
  cl_mem small = tu_buffer_create(sizeof bad32, bad32);
  clg_outcome *const oc_sentinel = (clg_outcome *)(uintptr_t)0x0C0FFEE0u;
  cl_event const ev_sentinel = (cl_event)(uintptr_t)0x0BADE7E0u;

  for (size_t n = 0; n < sizeof cases / sizeof cases[0]; ++n) {
    const ecase *e = &cases[n];
    ecall c = {tu_ctx(), G(0, 0), d.desc, x.desc, o.desc, 0, NULL, false};
    memset(g_host_out, (int)TU_SENTINEL, sizeof g_host_out);
    e->brk(&c, small);
    /* clg_run's verdict on the same arguments (no outcome argument). */
    char sync_msg[2048] = "";
    clg_status sync = CLG_SUCCESS;
    if (!c.null_outcome) {
      sync = clg_run(c.ctx, &c.p, &c.d, &c.x, &c.o, NULL, c.nev, c.wl, NULL);
      snprintf(sync_msg, sizeof sync_msg, "%s", clg_last_error());
    }
    clg_outcome *oc = oc_sentinel;
    cl_event ev = ev_sentinel;
    unsigned v0 = validations();
    clg_fault_reset();
    clg_status st = clg_run_async(c.ctx, &c.p, &c.d, &c.x, &c.o, NULL, c.nev,
                                  c.wl, &ev, c.null_outcome ? NULL : &oc);
    unsigned long kernels = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
    clg_fault_reset();
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", clg_last_error());
    cr_expect(st == e->status, "%s: want %s, got %s: %s", e->name,
              clg_status_string(e->status), clg_status_string(st), msg);
    cr_expect(tu_contains(msg, e->msg), "%s: the message lacks \"%s\": %s",
              e->name, e->msg, msg);
    if (!c.null_outcome)
      cr_expect(sync == st && strcmp(sync_msg, msg) == 0,
                "%s: clg_run says otherwise: %s: %s", e->name,
                clg_status_string(sync), sync_msg);
    cr_expect(oc == oc_sentinel, "%s: *outcome was written", e->name);
    cr_expect(ev == ev_sentinel, "%s: *event was written", e->name);
    cr_expect(kernels == 0 && validations() == v0,
              "%s: %lu kernel(s) enqueued on error", e->name, kernels);
    tu_cl_check(clFinish(clg_context_queue(tu_ctx())), "clFinish");
    cr_expect(tu_tensor_all_sentinel(&o), "%s: the output was written",
              e->name);
    const unsigned char *h = (const unsigned char *)g_host_out;
    for (size_t b = 0; b < sizeof g_host_out; ++b)
      if (h[b] != TU_SENTINEL) {
        cr_expect(false, "%s: the host output was written", e->name);
        break;
      }
  }
  /* clg_outcome_wait(NULL), clg_outcome_release(NULL). */
  cr_expect(clg_outcome_wait(NULL) == CLG_ERROR_NULL_ARGUMENT &&
                tu_contains(clg_last_error(), "outcome is NULL"),
            "clg_outcome_wait(NULL): %s", clg_last_error());
  clg_outcome_release(NULL);
  clReleaseMemObject(small);
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&o);
}

/* ------------------------------------------- the validation counter */

/* device_validations counts the validation kernels enqueued: one per
 * asynchronous cl_mem RAISE call with indices (whatever their size), none
 * for host indices, modes WRAP / CLIP, no indices, or an error of the call;
 * the synchronous clg_run() on small cl_mem indices reads them back. */
Test(outcome, validation_counter) {
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  static const int64_t ds[2] = {5, 3}, is[2] = {2, 3}, os[3] = {2, 3, 3};
  static const int64_t is0[1] = {0}, os0[2] = {0, 3};
  static const int64_t idx[6] = {0, 4, -5, 2, -1, 3};
  float data[15] = {0};
  tu_tensor d, x, x0, o, o0;
  tu_tensor_init(&d, CLG_DTYPE_FLOAT, 2, ds, buf_at(0), data);
  tu_tensor_init(&x, I64, 2, is, buf_at(0), idx);
  tu_tensor_init(&x0, I64, 1, is0, buf_at(0), NULL);
  tu_tensor_init(&o, CLG_DTYPE_FLOAT, 3, os, buf_at(0), NULL);
  tu_tensor_init(&o0, CLG_DTYPE_FLOAT, 2, os0, buf_at(0), NULL);
  clg_tensor xh = clg_tensor_host(I64, 2, is, (void *)idx);
  struct {
    const char *name;
    clg_params p;
    const clg_tensor *x, *o;
    bool async;
    clg_status want;
    unsigned vals;
  } steps[] = {
      {"async RAISE cl_mem", G(0, 0), &x.desc, &o.desc, true, CLG_SUCCESS, 1},
      {"async RAISE cl_mem again", G(0, 0), &x.desc, &o.desc, true, CLG_SUCCESS,
       1},
      {"async RAISE host indices", G(0, 0), &xh, &o.desc, true, CLG_SUCCESS, 0},
      {"async WRAP cl_mem", GM(0, CLG_MODE_WRAP), &x.desc, &o.desc, true,
       CLG_SUCCESS, 0},
      {"async CLIP cl_mem", GM(0, CLG_MODE_CLIP), &x.desc, &o.desc, true,
       CLG_SUCCESS, 0},
      {"async RAISE no indices", G(0, 0), &x0.desc, &o0.desc, true, CLG_SUCCESS,
       0},
      {"async RAISE shape error", G(0, 0), &x.desc, &o0.desc, true,
       CLG_ERROR_SHAPE_MISMATCH, 0},
      {"sync RAISE small cl_mem (read back)", G(0, 0), &x.desc, &o.desc, false,
       CLG_SUCCESS, 0},
  };
  for (size_t n = 0; n < sizeof steps / sizeof steps[0]; ++n) {
    unsigned v0 = validations();
    clg_outcome *oc = NULL;
    cl_event ev = NULL;
    clg_status st =
        steps[n].async
            ? clg_run_async(tu_ctx(), &steps[n].p, &d.desc, steps[n].x,
                            steps[n].o, NULL, 0, NULL, &ev, &oc)
            : clg_run(tu_ctx(), &steps[n].p, &d.desc, steps[n].x, steps[n].o,
                      NULL, 0, NULL, &ev);
    unsigned got = validations() - v0;
    cr_expect(st == steps[n].want, "%s: %s: %s", steps[n].name,
              clg_status_string(st), clg_last_error());
    cr_expect(got == steps[n].vals, "%s: the counter moved by %u, want %u",
              steps[n].name, got, steps[n].vals);
    if (oc) {
      cr_expect(clg_outcome_wait(oc) == CLG_SUCCESS, "%s: %s", steps[n].name,
                clg_last_error());
      clg_outcome_release(oc);
    }
    if (ev) {
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
    }
  }
  tu_tensor_free(&d);
  tu_tensor_free(&x);
  tu_tensor_free(&x0);
  tu_tensor_free(&o);
  tu_tensor_free(&o0);
}

/* ------------------------------------------------------- pipelines */

/* Two asynchronous gathers chained only by events, on queue q: stage 1
 * writes O1 = Gather(T, I1) (int64: indices for stage 2) or O1 =
 * GatherElements(D, I1) (float: data for stage 2); stage 2 gathers with O1
 * as its indices or its data, waiting for stage 1's event only; nothing
 * waits on the host until stage 2's event, then both outcomes are waited.
 * O1 starts as sentinel bytes, which are no valid index: a stage 2 that ran
 * ahead of stage 1 would fail. `bad1`: stage 1 has an out-of-bounds index,
 * so O1 keeps its sentinel bytes and stage 2 must fail on them too (its
 * output untouched), as clg_run on those values does. */
static void pipeline(cl_command_queue q, const char *qname, bool as_indices,
                     bool bad1) {
  char label[160];
  snprintf(label, sizeof label, "[pipeline, O1 as %s, %s%s]",
           as_indices ? "indices" : "data", qname,
           bad1 ? ", stage 1 out of bounds" : "");
  /* Stage 1. */
  ocase k1, k2;
  if (as_indices) {
    /* T int64 [8] holds valid indices for D's axis 0 (size 6); I1 int32
     * [300] indexes T; O1 int64 [300]; stage 2: Gather(D [6, 5], O1). */
    ocase a = {"stage 1", G(0, 0), CLG_DTYPE_INT64, 1,     {8}, 1, {300},
               I32,       0,       {{0}},           {NULL}};
    ocase b = {"stage 2", G(0, 0), CLG_DTYPE_FLOAT, 2,     {6, 5}, 1, {300},
               I64,       0,       {{0}},           {NULL}};
    k1 = a;
    k2 = b;
  } else {
    /* O1 = GatherElements(D [9, 4], I1 [6, 4], axis 0) float [6, 4];
     * stage 2: GatherND(O1, J [50, 2]). */
    ocase a = {"stage 1", GE(0), CLG_DTYPE_FLOAT, 2,     {9, 4}, 2, {6, 4},
               I64,       0,     {{0}},           {NULL}};
    ocase b = {"stage 2", ND(0), CLG_DTYPE_FLOAT, 2,     {6, 4}, 2, {50, 2},
               I32,       0,     {{0}},           {NULL}};
    k1 = a;
    k2 = b;
  }
  if (bad1) {
    k1.nset = 1;
    k1.set[0][0] = 17;
    k1.set[0][1] = as_indices ? 8 : -10;
  }
  oinputs in1, in2;
  inputs_make(&k1, 0x9191u, &in1);
  inputs_make(&k2, 0x9292u, &in2);
  if (as_indices) /* T's values: valid indices for stage 2's axis (6). */
    for (int j = 0; j < 8; ++j)
      tu_set_index(in1.data, I64, j, (j * 5) % 12 - 6);

  tu_tensor d1, x1, o1, d2, x2, o2;
  tu_tensor_init(&d1, k1.dt, k1.r, k1.ds, buf_at(8), in1.data);
  tu_tensor_init(&x1, k1.idt, k1.q, k1.is, buf_at(4 * isz_of(k1.idt)), in1.idx);
  tu_tensor_init(&o1, k1.dt, in1.orank, in1.os, buf_at(16), NULL);
  if (as_indices) {
    tu_tensor_init(&d2, k2.dt, k2.r, k2.ds, buf_at(0), in2.data);
    x2 = o1;
    x2.buf = NULL; /* o1 owns the buffer */
  } else {
    d2 = o1;
    d2.buf = NULL;
    tu_tensor_init(&x2, k2.idt, k2.q, k2.is, buf_at(0), in2.idx);
  }
  tu_tensor_init(&o2, k2.dt, in2.orank, in2.os, buf_at(12), NULL);

  unsigned v0 = validations();
  cl_event e1 = NULL, e2 = NULL;
  clg_outcome *oc1 = NULL, *oc2 = NULL;
  clg_status s1 = clg_run_async(tu_ctx(), &k1.p, &d1.desc, &x1.desc, &o1.desc,
                                q, 0, NULL, &e1, &oc1);
  cr_assert(s1 == CLG_SUCCESS, "%s stage 1: %s", label, clg_last_error());
  clg_status s2 = clg_run_async(tu_ctx(), &k2.p, &d2.desc, &x2.desc, &o2.desc,
                                q, 1, &e1, &e2, &oc2);
  cr_assert(s2 == CLG_SUCCESS, "%s stage 2: %s", label, clg_last_error());
  cr_expect(validations() - v0 == 2, "%s: %u validation kernels, want 2", label,
            validations() - v0);
  tu_cl_check(clWaitForEvents(1, &e2), "clWaitForEvents (stage 2)");
  clg_status w1 = clg_outcome_wait(oc1);
  char m1[2048];
  snprintf(m1, sizeof m1, "%s", clg_last_error());
  clg_status w2 = clg_outcome_wait(oc2);
  char m2[2048];
  snprintf(m2, sizeof m2, "%s", clg_last_error());
  tu_cl_check(clWaitForEvents(1, &e1), "clWaitForEvents (stage 1)");

  /* What each stage should have seen, by the synchronous path and the
   * reference. */
  char sync1[2048], sync2[2048];
  clg_status want1 = sync_run(&k1, &in1, sync1, sizeof sync1);
  unsigned char *mid = malloc(in1.obytes), *fin = malloc(in2.obytes);
  unsigned char *got_mid = malloc(in1.obytes), *got = malloc(in2.obytes);
  cr_assert(mid && fin && got_mid && got);
  if (bad1)
    memset(mid, (int)TU_SENTINEL, in1.obytes); /* O1 as it was */
  else
    cr_assert(ref_run(&k1, in1.data, in1.idx, mid) == 0, "test bug");
  if (as_indices)
    memcpy(in2.idx, mid, in1.obytes);
  else
    memcpy(in2.data, mid, in1.obytes);
  clg_status want2 = sync_run(&k2, &in2, sync2, sizeof sync2);
  cr_expect(want1 == (bad1 ? OOB : CLG_SUCCESS), "%s: test bug: %s", label,
            sync1);
  cr_expect(w1 == want1 && strcmp(m1, sync1) == 0,
            "%s stage 1: outcome %s: \"%s\", want %s: \"%s\"", label,
            clg_status_string(w1), m1, clg_status_string(want1), sync1);
  cr_expect(w2 == want2 && strcmp(m2, sync2) == 0,
            "%s stage 2: outcome %s: \"%s\", want %s: \"%s\"", label,
            clg_status_string(w2), m2, clg_status_string(want2), sync2);
  tu_tensor_read(&o1, got_mid);
  cr_expect(memcmp(got_mid, mid, in1.obytes) == 0 && tu_tensor_guards_ok(&o1),
            "%s: stage 1's output is wrong", label);
  if (want2 == CLG_SUCCESS) {
    cr_assert(ref_run(&k2, in2.data, in2.idx, fin) == 0, "test bug");
    tu_tensor_read(&o2, got);
    cr_expect(memcmp(got, fin, in2.obytes) == 0 && tu_tensor_guards_ok(&o2),
              "%s: stage 2's output differs from the reference", label);
  } else {
    cr_expect(tu_tensor_all_sentinel(&o2), "%s: stage 2 wrote its output",
              label);
  }
  /* Sentinel bytes as indices fail: a failing stage 1 fails stage 2. */
  if (bad1 && as_indices)
    cr_expect(w2 == OOB, "%s: stage 2 gathered with stage 1's garbage", label);
  clg_outcome_release(oc1);
  clg_outcome_release(oc2);
  clReleaseEvent(e1);
  clReleaseEvent(e2);
  free(mid);
  free(fin);
  free(got_mid);
  free(got);
  tu_tensor_free(&d1);
  tu_tensor_free(&x1);
  tu_tensor_free(&o1);
  tu_tensor_free(as_indices ? &d2 : &x2);
  tu_tensor_free(&o2);
  inputs_free(&in1);
  inputs_free(&in2);
}

Test(outcome, chained_pipeline) {
  for (int as_indices = 0; as_indices < 2; ++as_indices)
    for (int bad1 = 0; bad1 < 2; ++bad1) {
      pipeline(inorder_queue(), "in-order queue", as_indices, bad1);
      if (ooo_queue())
        pipeline(ooo_queue(), "out-of-order queue", as_indices, bad1);
    }
}

/* ------------------------------------------ host output, not wrapped */

/* A host output at an address that is not aligned to its element size is
 * not wrapped in place (host/device/enqueue.c) but staged in a device buffer
 * and read back: a deferred verdict would let that read-back copy the
 * staging buffer's unwritten bytes into the caller's memory. With a host
 * output the call checks the values itself (include/clgather/clgather.h),
 * and the output stays exactly as it was, aligned or not. */
Test(outcome, oob_leaves_an_unaligned_host_output_untouched) {
  static const int64_t ds[2] = {5, 3}, is[2] = {2, 3}, os[3] = {2, 3, 3};
  static const int64_t idx[6] = {0, 4, -5, 2, 5, 3}; /* indices[4] = 5 */
  float data[15];
  for (int n = 0; n < 15; ++n)
    data[n] = (float)n + 0.5f;
  tu_tensor d, x;
  tu_tensor_init(&d, CLG_DTYPE_FLOAT, 2, ds, buf_at(0), data);
  tu_tensor_init(&x, I64, 2, is, buf_at(0), idx);
  _Alignas(16) unsigned char host[2 * TU_GUARD + 72 + 1];
  for (int misalign = 0; misalign < 2; ++misalign) {
    memset(host, (int)TU_SENTINEL, sizeof host);
    unsigned char *at = host + TU_GUARD + (misalign ? 1 : 0);
    clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, os, at);
    clg_outcome *oc = NULL;
    clg_status st = clg_run_async(tu_ctx(), NULL, &d.desc, &x.desc, &o, NULL, 0,
                                  NULL, NULL, &oc);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", clg_last_error());
    cr_expect(st == OOB && oc == NULL &&
                  tu_contains(msg, "indices[4] (position [1, 1]"),
              "host output%s: the call returned %s: %s", misalign ? " +1" : "",
              clg_status_string(st), msg);
    if (oc) { /* a deferred verdict: it must still say OOB */
      clg_status w = clg_outcome_wait(oc);
      cr_expect(w == OOB, "host output%s: the outcome is %s",
                misalign ? " +1" : "", clg_status_string(w));
      clg_outcome_release(oc);
    }
    size_t changed = 0;
    for (size_t b = 0; b < sizeof host; ++b)
      changed += host[b] != TU_SENTINEL;
    cr_expect(changed == 0,
              "host output at an address %saligned to 4: %zu bytes changed "
              "after an out-of-bounds index",
              misalign ? "not " : "", changed);
  }
  tu_tensor_free(&d);
  tu_tensor_free(&x);
}
