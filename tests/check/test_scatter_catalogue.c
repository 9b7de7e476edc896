/*
 * The scatters' bad-input catalogue: every input clg_scatter() and
 * clg_scatter_async() reject, with the status and message parts each must
 * give (the table and its builders: scatter_catalogue_cases.c; the
 * gathers' catalogue is test_catalogue.c).
 *
 * Each entry breaks one thing in a valid base ScatterElements, ScatterND or
 * Scatter call. The runner executes it with a host output and a cl_mem
 * output, not in place and in place (the output is data's own storage: the
 * same host pointer, or the same cl_mem at the same offset, holding data's
 * known values), and entries about index values also with cl_mem indices
 * (with a cl_mem output every tensor is then a cl_mem, so the device's
 * index pass runs: always under CLGATHER_TEST_DEVICE_VALIDATION=always,
 * else from 32 KiB of indices, which the large entries have). It checks:
 *   - the status, and that clg_last_error() holds every message part;
 *   - no event is returned;
 *   - the output's memory, byte for byte, is as it was before the call: the
 *     host output with TU_GUARD bytes on each side, or the whole cl_mem
 *     (in place: data's own bytes);
 *   - host-side checks enqueue no kernel (the fault counting hook,
 *     core/faults.h) and run no validation kernel; where the device's index
 *     pass is expected, that it ran (its kernels are gated: only the bytes
 *     are checked);
 *   - clg_scatter_async() on the same call: where it defers the index
 *     values (cl_mem indices and output) it succeeds, and clg_outcome_wait()
 *     gives the same status and message; otherwise it returns them itself,
 *     with no outcome and no event; the output is unchanged either way;
 *   - the context still works: a correct ScatterElements (host) and
 *     ScatterND (cl_mem) afterwards match the plain-C references.
 * One Test loops over the table (one process: a few seconds); every failure
 * message names the entry and the variant.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scatter_catalogue.h"
#include "reference/ref_scatter.h"

/* Count host/'s OpenCL calls without routing this file's own through the
 * counting wrappers. */
#define CLG_FAULTS_IMPL
#include "core/faults.h"
#include "internal.h" /* clg_context::device_validations */

/* Indices from this many bytes are checked on the device (with a cl_mem
 * output), unless forced (host/run/index_pass.c). */
#define SCT_DEVICE_MIN_BYTES ((size_t)32 << 10)

static bool device_validation_forced(void) {
  const char *e = getenv("CLGATHER_TEST_DEVICE_VALIDATION");
  return e && strcmp(e, "always") == 0;
}

cl_mem sct_buffer(size_t bytes, const void *init, size_t at, size_t n) {
  unsigned char *img = malloc(bytes ? bytes : 1);
  cr_assert(img != NULL);
  memset(img, (int)TU_SENTINEL, bytes ? bytes : 1);
  if (init && n)
    memcpy(img + at, init, n);
  cl_int err = CL_SUCCESS;
  cl_mem b =
      clCreateBuffer(tu_cl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                     bytes ? bytes : 1, img, &err);
  free(img);
  tu_cl_check(err, "clCreateBuffer (test)");
  return b;
}

cl_mem sct_own(sct_call *c, cl_mem m) {
  cr_assert(c->nowned < 6, "test bug: too many buffers");
  c->owned[c->nowned++] = m;
  return m;
}

/* A tensor's bytes as far as the runner allocates them: 0 for odd shapes,
 * at most SCT_CAP. */
static size_t tbytes(const clg_tensor *t) {
  if (t->rank < 0 || t->rank > CLG_MAX_RANK)
    return 0;
  uint64_t n = clg_dtype_size(t->dtype);
  for (int32_t k = 0; k < t->rank; ++k) {
    if (t->shape[k] < 0)
      return 0;
    n = t->shape[k] && n > SCT_CAP / (uint64_t)t->shape[k]
            ? SCT_CAP
            : n * (uint64_t)t->shape[k];
  }
  return n > SCT_CAP ? SCT_CAP : (size_t)n;
}

static void to_buffer(sct_call *c, clg_tensor *t, const unsigned char *v,
                      size_t off, size_t extra) {
  size_t n = tbytes(t);
  t->storage = CLG_STORAGE_BUFFER;
  t->buffer = sct_own(c, sct_buffer(off + n + TU_GUARD, v, off, n));
  t->offset = off + extra;
  t->host = NULL;
}

/* Storage for the variant: the output (data's values in it, in place),
 * then data, updates, indices. */
static void place(sct_call *c, bool dev_inputs) {
  size_t db = tbytes(&c->d), ob = tbytes(&c->o);
  c->out_bytes = ((db > ob ? db : ob) + 15) / 16 * 16;
  if (c->out_bytes < 64)
    c->out_bytes = 64;
  bool dev = c->out_buf && (c->idx_buf || dev_inputs);
  if (c->out_buf) {
    size_t size = SCT_OUT_OFF + c->out_bytes + TU_GUARD;
    c->out_mem = sct_buffer(size, c->in_place ? c->data : NULL, SCT_OUT_OFF,
                            c->in_place ? db : 0);
    c->o.storage = CLG_STORAGE_BUFFER;
    c->o.buffer = c->out_mem;
    c->o.offset = SCT_OUT_OFF;
  } else {
    c->out_host = malloc(2 * TU_GUARD + c->out_bytes);
    cr_assert(c->out_host != NULL);
    memset(c->out_host, (int)TU_SENTINEL, 2 * TU_GUARD + c->out_bytes);
    if (c->in_place)
      memcpy(c->out_host + TU_GUARD, c->data, db);
    c->o.storage = CLG_STORAGE_HOST;
    c->o.host = c->out_host + TU_GUARD;
  }
  if (c->in_place) {
    c->d.storage = c->o.storage;
    c->d.host = c->o.host;
    c->d.buffer = c->o.buffer;
    c->d.offset = c->o.offset;
  } else if (dev)
    to_buffer(c, &c->d, c->data, SCT_IN_OFF, 0);
  else
    c->d.host = c->data;
  if (dev)
    to_buffer(c, &c->u, c->upd, SCT_IN_OFF, 0);
  else
    c->u.host = c->upd;
  if (c->idx_buf)
    to_buffer(c, &c->i, c->idx, SCT_IDX_OFF, c->idx_extra_off);
  else
    c->i.host = c->idx;
}

/* The output's memory: the host block with its guards, or the whole
 * cl_mem. */
static size_t image_size(const sct_call *c) {
  return c->out_buf ? SCT_OUT_OFF + c->out_bytes + TU_GUARD
                    : 2 * TU_GUARD + c->out_bytes;
}
static void read_image(const sct_call *c, unsigned char *dst) {
  if (c->out_buf)
    tu_cl_check(clEnqueueReadBuffer(tu_queue(), c->out_mem, CL_TRUE, 0,
                                    image_size(c), dst, 0, NULL, NULL),
                "clEnqueueReadBuffer (output)");
  else
    memcpy(dst, c->out_host, image_size(c));
}

static const char *status_name(clg_status s) {
  static const char *const n[] = {"CLG_SUCCESS",
                                  "CLG_ERROR_NULL_ARGUMENT",
                                  "CLG_ERROR_INVALID_ARGUMENT",
                                  "CLG_ERROR_INVALID_RANK",
                                  "CLG_ERROR_INVALID_SHAPE",
                                  "CLG_ERROR_INVALID_AXIS",
                                  "CLG_ERROR_UNSUPPORTED_DTYPE",
                                  "CLG_ERROR_INVALID_INDICES_DTYPE",
                                  "CLG_ERROR_DTYPE_MISMATCH",
                                  "CLG_ERROR_SHAPE_MISMATCH",
                                  "CLG_ERROR_SIZE_OVERFLOW",
                                  "CLG_ERROR_BUFFER_TOO_SMALL",
                                  "CLG_ERROR_INDEX_OUT_OF_BOUNDS",
                                  "CLG_ERROR_NO_DEVICE",
                                  "CLG_ERROR_OPENCL",
                                  "CLG_ERROR_BUILD_FAILED",
                                  "CLG_ERROR_OUT_OF_HOST_MEMORY",
                                  "CLG_ERROR_INVALID_BATCH_DIMS",
                                  "CLG_ERROR_INCOMPATIBLE_SHAPES",
                                  "CLG_ERROR_DUPLICATE_INDEX"};
  return (unsigned)s < sizeof n / sizeof n[0] ? n[s] : "?";
}

static const char *op_name(clg_op op) {
  return op == CLG_OP_SCATTER_ND         ? "ScatterND"
         : op == CLG_OP_SCATTER_ELEMENTS ? "ScatterElements"
                                         : "Scatter";
}

/* The context still works: ScatterElements with reduction add and repeats
 * (host tensors) and ScatterND (cl_mem tensors, an event) against the
 * plain-C references. */
static void assert_works(const char *label) {
  static const int64_t ds[2] = {4, 3}, is[2] = {3, 3}, nis[2] = {2, 1};
  static const int64_t idx[9] = {0, 3, -1, 0, -4, 2, 3, 1, -1};
  static const int64_t nidx[2] = {3, -4};
  float data[12], upd[9], want[12], got[12];
  for (int k = 0; k < 12; ++k)
    data[k] = want[k] = 0.25f * (float)k - 1.0f;
  for (int k = 0; k < 9; ++k)
    upd[k] = (float)k + 0.5f;
  int64_t bad = -1, first = -1;
  cr_assert(ref_scatter_elements(want, CLG_DTYPE_FLOAT, 2, ds, idx,
                                 REF_INDEX_I64, is, upd, 0, REF_RED_ADD, 0,
                                 &bad, &first) == REF_OK);
  clg_params p = {CLG_OP_SCATTER_ELEMENTS, 0, 0, CLG_MODE_RAISE};
  clg_scatter_params sp = {CLG_REDUCTION_ADD, CLG_DUPLICATES_ERROR};
  clg_tensor td = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, data);
  clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 2, is, (void *)idx);
  clg_tensor tu = clg_tensor_host(CLG_DTYPE_FLOAT, 2, is, upd);
  clg_tensor to = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, got);
  clg_status st =
      clg_scatter(tu_ctx(), &p, &sp, &td, &tx, &tu, &to, NULL, 0, NULL, NULL);
  cr_assert(st == CLG_SUCCESS,
            "%s: afterwards a correct ScatterElements fails: %s", label,
            clg_last_error());
  cr_assert(memcmp(got, want, sizeof want) == 0,
            "%s: afterwards a correct ScatterElements is wrong", label);

  memcpy(want, data, sizeof want);
  cr_assert(ref_scatter_nd(want, CLG_DTYPE_FLOAT, 2, ds, nidx, REF_INDEX_I64, 2,
                           nis, upd, REF_RED_NONE, 0, &bad, &first) == REF_OK);
  cl_mem bd = sct_buffer(sizeof data, data, 0, sizeof data),
         bx = sct_buffer(sizeof nidx, nidx, 0, sizeof nidx),
         bu = sct_buffer(6 * sizeof(float), upd, 0, 6 * sizeof(float)),
         bo = sct_buffer(sizeof got, NULL, 0, 0);
  const int64_t us[2] = {2, 3};
  td = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, bd, 0);
  tx = clg_tensor_buffer(CLG_DTYPE_INT64, 2, nis, bx, 0);
  tu = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, us, bu, 0);
  to = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, bo, 0);
  p.op = CLG_OP_SCATTER_ND;
  cl_event ev = NULL;
  st = clg_scatter(tu_ctx(), &p, NULL, &td, &tx, &tu, &to, NULL, 0, NULL, &ev);
  cr_assert(st == CLG_SUCCESS && ev != NULL,
            "%s: afterwards a correct ScatterND (cl_mem) fails: %s", label,
            clg_last_error());
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
  tu_buffer_read(bo, 0, sizeof got, got);
  cr_assert(memcmp(got, want, sizeof want) == 0,
            "%s: afterwards a correct ScatterND (cl_mem) is wrong", label);
  clReleaseMemObject(bd);
  clReleaseMemObject(bx);
  clReleaseMemObject(bu);
  clReleaseMemObject(bo);
}

/* The entry's call: clg_scatter, clg_run, or clg_scatter_async (outcome
 * NULL: SCT_ASYNC_NO_OUTCOME; else `outcome`). */
static clg_status call(const sct_call *c, cl_event *ev, clg_outcome **outcome,
                       bool async) {
  clg_context *ctx = c->no_ctx ? NULL : tu_ctx();
  const clg_params *p = c->no_params ? NULL : &c->params;
  const clg_scatter_params *sp = c->no_sp ? NULL : &c->sp;
  const clg_tensor *d = c->no_data ? NULL : &c->d,
                   *i = c->no_indices ? NULL : &c->i,
                   *u = c->no_updates ? NULL : &c->u,
                   *o = c->no_output ? NULL : &c->o;
  if (c->kind == SCT_RUN)
    return clg_run(ctx, p, d, i, o, NULL, c->nev, c->wl, ev);
  if (c->kind == SCT_ASYNC_NO_OUTCOME)
    return clg_scatter_async(ctx, p, sp, d, i, u, o, NULL, c->nev, c->wl, ev,
                             NULL);
  if (async)
    return clg_scatter_async(ctx, p, sp, d, i, u, o, NULL, c->nev, c->wl, ev,
                             outcome);
  return clg_scatter(ctx, p, sp, d, i, u, o, NULL, c->nev, c->wl, ev);
}

static unsigned g_device_runs, g_async_deferred;

/* Entry k in one variant. */
static void run_case(const sct_case *k, bool out_buf, bool in_place,
                     bool idx_buf) {
  sct_call *c = calloc(1, sizeof *c);
  cr_assert(c != NULL);
  c->data = calloc(1, SCT_CAP);
  c->idx = calloc(1, SCT_CAP);
  c->upd = calloc(1, SCT_CAP);
  cr_assert(c->data && c->idx && c->upd);
  c->out_buf = out_buf;
  c->in_place = in_place;
  c->idx_buf = idx_buf;
  sct_base(c, k->op);
  if (k->build)
    k->build(c, k->p);
  place(c, (k->flags & SCT_DEV_INPUTS) != 0);
  if (k->post)
    k->post(c, k->p);
  bool values = (k->flags & SCT_VALUES) != 0;
  bool deferred = values && idx_buf && out_buf; /* all cl_mem */
  bool device = deferred && (device_validation_forced() ||
                             tbytes(&c->i) >= SCT_DEVICE_MIN_BYTES);
  g_device_runs += device;

  char label[400];
  snprintf(label, sizeof label,
           "scatter catalogue entry \"%s\" [%s, %s output, %s indices, %s%s]",
           k->name, op_name(k->op), out_buf ? "cl_mem" : "host",
           idx_buf ? "cl_mem" : "host", in_place ? "in place" : "not in place",
           device ? ", device index pass" : "");

  size_t isize = image_size(c);
  unsigned char *before = malloc(isize), *after = malloc(isize);
  cr_assert(before && after);
  read_image(c, before);

  clg_context *ctx = tu_ctx();
  unsigned v0 = atomic_load(&ctx->device_validations);
  clg_fault_reset();
  cl_event ev = NULL;
  clg_status st = call(c, &ev, NULL, false);
  unsigned long enqueued = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
  unsigned ran = atomic_load(&ctx->device_validations) - v0;
  clg_fault_reset();
  char msg[4096];
  snprintf(msg, sizeof msg, "%s", clg_last_error());

  cr_expect(st == k->status, "%s: want %s, got %s: \"%s\"", label,
            status_name(k->status), status_name(st), msg);
  for (int n = 0; n < 4 && k->msg[n]; ++n)
    cr_expect((k->flags & SCT_NEEDLES) ? case_message_has(msg, k->msg[n])
                                       : tu_contains(msg, k->msg[n]),
              "%s: message lacks \"%s\": \"%s\"", label, k->msg[n], msg);
  cr_expect(ev == NULL, "%s: an event was returned on error", label);
  if (ev)
    clReleaseEvent(ev);
  if (device)
    cr_expect(ran == 1, "%s: the device's index pass did not run (%u)", label,
              ran);
  else
    cr_expect(enqueued == 0 && ran == 0,
              "%s: %lu kernel(s) (%u validation) enqueued on error", label,
              enqueued, ran);
  tu_cl_check(clFinish(clg_context_queue(ctx)), "clFinish");
  read_image(c, after);
  ptrdiff_t diff = tu_first_diff(after, before, isize);
  cr_expect(diff < 0, "%s: the output's memory changed at byte %td of %zu",
            label, diff, isize);

  /* The same call through clg_scatter_async(). */
  if (c->kind == SCT_SCATTER) {
    clg_outcome *const sentinel = (clg_outcome *)&diff;
    clg_outcome *oc = sentinel;
    ev = NULL;
    clg_fault_reset();
    v0 = atomic_load(&ctx->device_validations);
    clg_status ast = call(c, &ev, &oc, true);
    enqueued = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
    ran = atomic_load(&ctx->device_validations) - v0;
    clg_fault_reset();
    if (deferred) {
      ++g_async_deferred;
      cr_expect(ast == CLG_SUCCESS && ev != NULL && oc != sentinel &&
                    oc != NULL,
                "%s: clg_scatter_async: want success, an event and an "
                "outcome, got %s: %s",
                label, status_name(ast), clg_last_error());
      if (ev) {
        tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents (async)");
        clReleaseEvent(ev);
      }
      if (ast == CLG_SUCCESS && oc && oc != sentinel) {
        ast = clg_outcome_wait(oc);
        clg_outcome_release(oc);
      }
      cr_expect(ran == 1, "%s: clg_scatter_async: no device index pass", label);
    } else {
      cr_expect(ev == NULL && oc == sentinel,
                "%s: clg_scatter_async: an event or outcome on error", label);
      cr_expect(enqueued == 0 && ran == 0,
                "%s: clg_scatter_async: %lu kernel(s) enqueued on error", label,
                enqueued);
      if (ev)
        clReleaseEvent(ev);
    }
    cr_expect(ast == st, "%s: clg_scatter_async%s: want %s, got %s: %s", label,
              deferred ? " + clg_outcome_wait" : "", status_name(st),
              status_name(ast), clg_last_error());
    cr_expect(strcmp(clg_last_error(), msg) == 0,
              "%s: clg_scatter_async%s: message \"%s\", clg_scatter's \"%s\"",
              label, deferred ? " + clg_outcome_wait" : "", clg_last_error(),
              msg);
    tu_cl_check(clFinish(clg_context_queue(ctx)), "clFinish");
    read_image(c, after);
    diff = tu_first_diff(after, before, isize);
    cr_expect(diff < 0,
              "%s: clg_scatter_async: the output's memory changed at byte "
              "%td",
              label, diff);
  }
  assert_works(label);

  for (int n = 0; n < c->nowned; ++n)
    clReleaseMemObject(c->owned[n]);
  if (c->out_mem)
    clReleaseMemObject(c->out_mem);
  free(c->out_host);
  free(c->data);
  free(c->idx);
  free(c->upd);
  free(c);
  free(before);
  free(after);
}

Test(scatter_catalogue, every_rejected_input) {
  bool seen[CLG_ERROR_DUPLICATE_INDEX + 1] = {false};
  unsigned runs = 0;
  sct_shared_init();
  size_t total = sct_nshared_cases + sct_ncases;
  for (size_t n = 0; n < total; ++n) {
    const sct_case *k = n < sct_nshared_cases
                            ? &sct_shared_cases[n]
                            : &sct_cases[n - sct_nshared_cases];
    cr_assert(k->status > CLG_SUCCESS && k->status <= CLG_ERROR_DUPLICATE_INDEX,
              "test bug: entry %s has status %d", k->name, (int)k->status);
    seen[k->status] = true;
    for (int ob = 0; ob < 2; ++ob) {
      if ((k->flags & (ob ? SCT_OUT_HOST : SCT_OUT_BUF)))
        continue;
      for (int ip = 0; ip < 2; ++ip) {
        if (ip && (k->flags & SCT_NOT_IN_PLACE))
          continue;
        for (int ib = 0; ib < 2; ++ib) {
          bool want = ib ? (k->flags & (SCT_VALUES | SCT_IDX_ONLY)) != 0
                         : (k->flags & SCT_IDX_ONLY) == 0;
          if (!want)
            continue;
          ++runs;
          run_case(k, ob != 0, ip != 0, ib != 0);
        }
      }
    }
  }
  /* Every error clg_scatter() documents (its own and clg_run()'s argument
   * checks; OpenCL, build and allocation failures: test_scatter_faults). */
  static const clg_status documented[] = {
      CLG_ERROR_NULL_ARGUMENT,         CLG_ERROR_INVALID_ARGUMENT,
      CLG_ERROR_INVALID_RANK,          CLG_ERROR_INVALID_SHAPE,
      CLG_ERROR_INVALID_AXIS,          CLG_ERROR_UNSUPPORTED_DTYPE,
      CLG_ERROR_INVALID_INDICES_DTYPE, CLG_ERROR_DTYPE_MISMATCH,
      CLG_ERROR_SHAPE_MISMATCH,        CLG_ERROR_SIZE_OVERFLOW,
      CLG_ERROR_BUFFER_TOO_SMALL,      CLG_ERROR_INDEX_OUT_OF_BOUNDS,
      CLG_ERROR_INCOMPATIBLE_SHAPES,   CLG_ERROR_DUPLICATE_INDEX};
  for (size_t s = 0; s < sizeof documented / sizeof documented[0]; ++s)
    cr_expect(seen[documented[s]], "no scatter catalogue entry returns %s",
              status_name(documented[s]));
  cr_expect(g_device_runs > 0, "the device's index pass never ran");
  cr_log_info("scatter catalogue: %zu entries, %u runs (%u through the "
              "device's index pass, %u deferred by clg_scatter_async)",
              total, runs, g_device_runs, g_async_deferred);
}
