/* Queues, a user event's watchdog, cases, inputs, the reference and one
 * asynchronous call: what the files of test_outcome share (outcome_fx.h). */
#define _POSIX_C_SOURCE 200809L
#include "run/outcome_fx.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* No fault-injection macros (host/core/faults.h, included by internal.h):
 * this file's own OpenCL calls are not counted. */
#define CLG_FAULTS_IMPL
#include "core/faults.h"
#include "internal.h" /* clg_context::device_validations */

static const tu_storage HOST = {CLG_STORAGE_HOST, 0, false, false};

tu_storage buf_at(size_t off) {
  tu_storage s = {CLG_STORAGE_BUFFER, off, false, false};
  return s;
}

unsigned validations(void) {
  return atomic_load(&tu_ctx()->device_validations);
}

/* ------------------------------------------------------------ queues */

/* An out-of-order queue on the test device, or NULL where the device has
 * none (then the cases that need one are logged as skipped). */
cl_command_queue ooo_queue(void) {
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
cl_command_queue inorder_queue(void) {
  static cl_command_queue q;
  if (!q) {
    cl_int err = CL_SUCCESS;
    q = clCreateCommandQueue(tu_cl_context(), tu_device(), 0, &err);
    tu_cl_check(err, "clCreateCommandQueue (in-order)");
  }
  return q;
}

cl_int event_status(cl_event ev) {
  cl_int s = 0;
  tu_cl_check(
      clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL),
      "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)");
  return s;
}

/* ------------------------------------------------- a user event's guard */

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

void watchdog_start(watchdog *w, cl_event user, long ms) {
  memset(w, 0, sizeof *w);
  w->user = user;
  w->ms = ms;
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->cond, NULL);
  cr_assert(pthread_create(&w->th, NULL, watchdog_main, w) == 0);
}

bool watchdog_fired(watchdog *w) {
  pthread_mutex_lock(&w->lock);
  bool f = w->fired;
  pthread_mutex_unlock(&w->lock);
  return f;
}

/* Complete the user event now (unless the watchdog did) and stop it;
 * returns whether the watchdog had fired. */
bool watchdog_release(watchdog *w) {
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

cl_event user_event(void) {
  cl_int err = CL_SUCCESS;
  cl_event u = clCreateUserEvent(tu_cl_context(), &err);
  tu_cl_check(err, "clCreateUserEvent");
  return u;
}

/* ------------------------------------------------------------- inputs */

size_t isz_of(clg_dtype t) { return t == I32 ? 4u : 8u; }

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
int ref_run(const ocase *k, const void *data, const void *idx, void *out) {
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

/* Data (random bytes) and indices (valid values in the case's bounds, or
 * anything for WRAP / CLIP; then the overrides) drawn from `seed`. */
void inputs_make(const ocase *k, uint64_t seed, oinputs *in) {
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

void inputs_free(oinputs *in) {
  free(in->data);
  free(in->idx);
}

/* The synchronous yardstick: clg_run() on host data, indices and output.
 * Returns its status; *msg gets its message. The host output must be
 * untouched on failure. */
clg_status sync_run(const ocase *k, const oinputs *in, char *msg, size_t cap) {
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

const ovariant g_variants[] = {
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

static cl_command_queue variant_queue(const ovariant *v) {
  return v->queue == 1 ? inorder_queue() : v->queue == 2 ? ooo_queue() : NULL;
}

void run_async_case(const ocase *k, const oinputs *in, const ovariant *v,
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
