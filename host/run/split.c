/* Tables larger than one device allocation: a call whose host data,
 * indices, updates or output is larger than the device's largest buffer
 * (CL_DEVICE_MAX_MEM_ALLOC_SIZE, ctx->max_alloc) runs as several ordinary
 * calls (clg__run with the index values already checked), each on parts
 * that fit. The whole call's index values are checked once first (bounds,
 * and a scatter's repeats), before anything runs; the result is byte for
 * byte the one-buffer result.
 *
 * A gather whose operator gives its call as whole rows (the rows hook,
 * ops/op.h: Gather) and whose data rows fit, viewed as data [R, s, inner]
 * and output [R, n, inner] (R: the rows before the axis, batch rows
 * included; n: the indices of one batch row): groups of whole rows run as
 * one Gather each (data rows [r0, r1), output rows [r0, r1), the indices of
 * their batch row; a group never spans two batch rows); an output row or a
 * batch row's indices too large on their own are cut into runs of indices.
 * No index value is read here.
 *
 * Every other case goes through the operator's slices() hook (ops/op.h):
 * entry e moves one slice between data (or the output) viewed as [units,
 * inner] and its own place. The units are cut into parts that fit; for each
 * part, the entries whose slice lies in it, at most a buffer's worth at a
 * time and in entry order, run as
 *  - gathers: a Gather of those slices from the part into a scratch output,
 *    whose slices are copied to their places in the output;
 *  - scatters: after the output starts as data, a ScatterND in place on the
 *    part with those entries' update slices, in entry order, with the
 *    call's reduction and duplicates rule (so repeated targets combine in
 *    the same order as in one call).
 * A slice larger than the limit cannot be split: that is an error naming
 * the sizes and the limit, as it is for an operator without slices().
 *
 * The split call is synchronous (its host tensors make it so anyway): it
 * waits for the wait list first, and the event it returns is a marker
 * enqueued after its parts. An OpenCL failure in a later part leaves the
 * earlier parts' rows written (a device error, not a bad input: every
 * check ran before the first part). */
#include "run/run.h"

/* The smallest limit split.c works with: the parts' 8-byte local indices
 * and scratch slices must fit it (a lower one comes only from tests). */
#define CLG_SPLIT_MIN_LIMIT 64

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is `t` host memory of more than `limit` bytes? */
static bool clg_host_over(const clg_tensor *t, size_t bytes, cl_ulong limit) {
  return t->storage == CLG_STORAGE_HOST && (cl_ulong)bytes > limit;
}

bool clg__split_needed(const clg_context *ctx, const clg_checked *c,
                       const clg_call *call, const clg_tensor_facts *of) {
  cl_ulong limit = ctx->max_alloc;
  if (limit == 0)
    return false;
  for (int k = 0; k < c->num_inputs; ++k)
    if (clg_host_over(call->in[k], c->inf[k].bytes, limit))
      return true;
  return clg_host_over(call->output, of->bytes, limit);
}

void clg__size_text(char *buf, size_t cap, uint64_t bytes) {
  if (bytes >= ((uint64_t)1 << 30))
    snprintf(buf, cap, "%.2f GiB (%" PRIu64 " bytes)",
             (double)bytes / (double)((uint64_t)1 << 30), bytes);
  else if (bytes >= ((uint64_t)1 << 20))
    snprintf(buf, cap, "%.2f MiB (%" PRIu64 " bytes)",
             (double)bytes / (double)((uint64_t)1 << 20), bytes);
  else
    snprintf(buf, cap, "%" PRIu64 " bytes", bytes);
}

/* The error for what cannot be split. */
static clg_status clg_too_large(const clg_context *ctx, const char *what,
                                uint64_t bytes, const char *why) {
  char size[64], lim[64];
  clg__size_text(size, sizeof size, bytes);
  clg__size_text(lim, sizeof lim, ctx->max_alloc);
  return clg__fail(CLG_ERROR_OPENCL,
                   "%s is %s, larger than the device's largest buffer "
                   "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %s), and %s",
                   what, size, lim, why);
}

/* One part: a Gather on axis 1 of data [rows, s, inner] with indices [n]
 * into output [rows, n, inner], everything already checked. */
typedef struct clg_part {
  clg_tensor data, indices, output;
} clg_part;

/* t's storage advanced by `bytes`, with a new rank-`rank` shape. */
static clg_tensor clg_view(const clg_tensor *t, clg_dtype dtype, size_t bytes,
                           int32_t rank, int64_t d0, int64_t d1, int64_t d2) {
  clg_tensor v = *t;
  v.dtype = dtype;
  v.rank = rank;
  v.shape[0] = d0;
  v.shape[1] = d1;
  v.shape[2] = d2;
  if (v.storage == CLG_STORAGE_BUFFER)
    v.offset += bytes;
  else
    v.host = (unsigned char *)v.host + bytes;
  return v;
}

static clg_status clg_run_part(clg_runner runner, const clg_call *call,
                               cl_command_queue queue, const clg_params *p,
                               clg_part *part) {
  clg_call sub = {.ctx = call->ctx,
                  .params = p,
                  .data = &part->data,
                  .indices = &part->indices,
                  .output = &part->output,
                  .queue = queue,
                  .values_checked = true};
  return runner(&sub);
}

/* A gather as whole rows (the operator's rows hook, ops/op.h), with the
 * bytes of an element and of a slice. */
typedef struct clg_gather_view {
  int64_t batch, outer, s, n, inner; /* inner: elements of a slice */
  size_t esize, slice;               /* bytes: an element, a slice */
} clg_gather_view;

/* False: the operator has no rows hook. */
static bool clg_view_of(const clg_checked *c, const clg_call *call,
                        clg_gather_view *g) {
  clg_row_view r;
  if (!c->impl->rows)
    return false;
  c->impl->rows(&c->norm, call->data, call->indices, &r);
  g->batch = r.batch;
  g->outer = r.outer;
  g->s = r.s;
  g->n = r.n;
  g->inner = r.inner;
  g->esize = c->df.elem_size;
  g->slice = (size_t)g->inner * g->esize;
  return true;
}

/* Rows that fit: whole data rows (and their output rows) per part. */
static clg_status clg_split_rows(clg_runner runner, const clg_call *call,
                                 const clg_checked *c, cl_command_queue queue,
                                 const clg_gather_view *g, cl_ulong limit) {
  const clg_tensor *data = call->data, *idx = call->indices,
                   *out = call->output;
  size_t row = (size_t)g->s * g->slice, orow = (size_t)g->n * g->slice;
  bool data_big = data->storage == CLG_STORAGE_HOST,
       out_big = out->storage == CLG_STORAGE_HOST;
  clg_params p = {.op = CLG_OP_GATHER, .axis = 1, .mode = c->norm.mode};
  size_t isize = c->xf.elem_size;
  int64_t rows = g->batch * g->outer;
  for (int64_t r0 = 0; r0 < rows;) {
    int64_t beta = r0 / g->outer;
    int64_t g_rows = g->outer - r0 % g->outer; /* to the batch row's end */
    if (data_big && row && (cl_ulong)row * (cl_ulong)g_rows > limit)
      g_rows = (int64_t)(limit / row);
    if (out_big && orow && (cl_ulong)orow * (cl_ulong)g_rows > limit)
      g_rows = (int64_t)(limit / orow);
    if (g_rows < 1)
      g_rows = 1;
    /* An output row, or a batch row's indices, larger than the limit:
     * runs of its indices. */
    int64_t span = g->n;
    if (out_big && g->slice && (cl_ulong)orow > limit)
      span = (int64_t)(limit / g->slice);
    if (idx->storage == CLG_STORAGE_HOST && (cl_ulong)span * isize > limit)
      span = (int64_t)(limit / isize);
    if (span < 1)
      span = 1;
    if (span < g->n)
      g_rows = 1;
    for (int64_t j0 = 0; j0 < g->n; j0 += span) {
      int64_t len = g->n - j0 < span ? g->n - j0 : span;
      clg_part part;
      part.data = clg_view(data, data->dtype, (size_t)r0 * row, 3, g_rows,
                           g->s, g->inner);
      part.indices = clg_view(idx, idx->dtype,
                              (size_t)(beta * g->n + j0) * isize, 1, len, 0,
                              0);
      part.output = clg_view(out, out->dtype,
                             (size_t)r0 * orow + (size_t)j0 * g->slice, 3,
                             g_rows, len, g->inner);
      clg_status st = clg_run_part(runner, call, queue, &p, &part);
      if (st != CLG_SUCCESS)
        return st;
    }
    r0 += g_rows;
  }
  return CLG_SUCCESS;
}

/* Copy `len` bytes of host memory to the output at byte `at`. */
static clg_status clg_put(const clg_tensor *out, cl_command_queue queue,
                          size_t at, const void *src, size_t len) {
  if (out->storage == CLG_STORAGE_HOST) {
    memcpy((unsigned char *)out->host + at, src, len);
    return CLG_SUCCESS;
  }
  cl_int err = clEnqueueWriteBuffer(queue, out->buffer, CL_TRUE,
                                    out->offset + at, len, src, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clEnqueueWriteBuffer",
                        "writing a part of a split gather's output");
  return CLG_SUCCESS;
}

/* The slices engine's parts: units [lo, lo + span) of data (gathers) or
 * of the output (scatters), viewed as [units, inner]; for each, the entries
 * whose slice lies in it, at most `cap` at a time, in entry order. */
typedef struct clg_slices {
  const int64_t *pos; /* entries' slices */
  size_t entries;
  int64_t units, span, cap;
  size_t slice; /* bytes */
  int64_t *local, *where; /* cap each */
  unsigned char *scratch; /* cap slices */
} clg_slices;

static clg_status clg_slices_alloc(clg_slices *w, cl_ulong limit) {
  w->span = (int64_t)(limit / w->slice); /* >= 1: the slice fits */
  /* The scratch slices and the local indices are staged too. */
  w->cap = w->span;
  if ((cl_ulong)w->cap > limit / sizeof(int64_t))
    w->cap = (int64_t)(limit / sizeof(int64_t));
  if ((size_t)w->cap > w->entries)
    w->cap = (int64_t)w->entries;
  if (w->cap < 1)
    w->cap = 1;
  w->local = CLG_MALLOC((size_t)w->cap * sizeof *w->local);
  w->where = CLG_MALLOC((size_t)w->cap * sizeof *w->where);
  w->scratch = CLG_MALLOC((size_t)w->cap * w->slice);
  if (!w->local || !w->where || !w->scratch)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "splitting a call over tensors larger than the "
                     "device's largest buffer");
  return CLG_SUCCESS;
}

static void clg_slices_free(clg_slices *w) {
  free(w->local);
  free(w->where);
  free(w->scratch);
}

/* The next batch of entries in units [lo, hi), from entry *e on: their
 * local slices and entry numbers; returns how many. */
static int64_t clg_slices_next(clg_slices *w, int64_t lo, int64_t hi,
                               size_t *e) {
  int64_t m = 0;
  for (; *e < w->entries && m < w->cap; ++*e) {
    int64_t p = w->pos[*e];
    if (p >= lo && p < hi) {
      w->local[m] = p - lo;
      w->where[m++] = (int64_t)*e;
    }
  }
  return m;
}

/* Gathers: each part gathers its entries from data into the scratch, whose
 * slices are then copied to their output slices. */
static clg_status clg_split_gather(clg_runner runner, const clg_call *call,
                                   const clg_checked *c, cl_command_queue queue,
                                   clg_slices *w, uint64_t inner) {
  const clg_tensor *data = call->data, *out = call->output;
  clg_params p = {.op = CLG_OP_GATHER, .axis = 1, .mode = CLG_MODE_RAISE};
  (void)c;
  clg_status st = CLG_SUCCESS;
  for (int64_t lo = 0; st == CLG_SUCCESS && lo < w->units; lo += w->span) {
    int64_t hi = w->units - lo < w->span ? w->units : lo + w->span;
    size_t e = 0;
    for (int64_t m;
         st == CLG_SUCCESS && (m = clg_slices_next(w, lo, hi, &e));) {
      const int64_t sshape[3] = {1, m, (int64_t)inner};
      clg_part part = {
          .data = clg_view(data, data->dtype, (size_t)lo * w->slice, 3, 1,
                           hi - lo, (int64_t)inner),
          .indices = clg_tensor_host(CLG_DTYPE_INT64, 1, &m, w->local),
          .output = clg_tensor_host(data->dtype, 3, sshape, w->scratch)};
      st = clg_run_part(runner, call, queue, &p, &part);
      /* Runs of consecutive entries are consecutive output slices: one
       * copy (one write to a cl_mem output) per run. */
      for (int64_t t = 0, run; st == CLG_SUCCESS && t < m; t += run) {
        for (run = 1; t + run < m && w->where[t + run] == w->where[t] + run;)
          ++run;
        st = clg_put(out, queue, (size_t)w->where[t] * w->slice,
                     w->scratch + (size_t)t * w->slice, (size_t)run * w->slice);
      }
    }
  }
  return st;
}

/* Copy `bytes` of `from` to `to` (either storage). */
static clg_status clg_copy_tensor(cl_command_queue queue,
                                  const clg_tensor *from, const clg_tensor *to,
                                  size_t bytes) {
  cl_int err = CL_SUCCESS;
  const char *what = "clEnqueueCopyBuffer";
  if (bytes == 0)
    return CLG_SUCCESS;
  if (from->storage == CLG_STORAGE_HOST && to->storage == CLG_STORAGE_HOST) {
    memmove(to->host, from->host, bytes);
    return CLG_SUCCESS;
  }
  if (from->storage == CLG_STORAGE_HOST) {
    what = "clEnqueueWriteBuffer";
    err = clEnqueueWriteBuffer(queue, to->buffer, CL_TRUE, to->offset, bytes,
                               from->host, 0, NULL, NULL);
  } else if (to->storage == CLG_STORAGE_HOST) {
    what = "clEnqueueReadBuffer";
    err = clEnqueueReadBuffer(queue, from->buffer, CL_TRUE, from->offset, bytes,
                              to->host, 0, NULL, NULL);
  } else {
    err = clEnqueueCopyBuffer(queue, from->buffer, to->buffer, from->offset,
                              to->offset, bytes, 0, NULL, NULL);
    if (err == CL_SUCCESS)
      err = clFinish(queue);
  }
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, what,
                        "copying data into a split scatter's output");
  return CLG_SUCCESS;
}

/* Scatters: the output starts as data; each part applies its entries, in
 * entry order, as a ScatterND in place on its slices, with the updates'
 * slices gathered into the scratch. */
static clg_status clg_split_scatter(clg_runner runner, const clg_call *call,
                                    const clg_checked *c,
                                    const clg_tensor_facts *of,
                                    cl_command_queue queue, clg_slices *w,
                                    uint64_t inner, const unsigned char *upd) {
  const clg_tensor *out = call->output;
  clg_status st = CLG_SUCCESS;
  if (!clg__same_storage(call->data, c->df.bytes, out, of->bytes))
    st = clg_copy_tensor(queue, call->data, out, of->bytes);
  clg_params p = {.op = CLG_OP_SCATTER_ND};
  for (int64_t lo = 0; st == CLG_SUCCESS && lo < w->units; lo += w->span) {
    int64_t hi = w->units - lo < w->span ? w->units : lo + w->span;
    size_t e = 0;
    for (int64_t m;
         st == CLG_SUCCESS && (m = clg_slices_next(w, lo, hi, &e));) {
      for (int64_t t = 0; t < m; ++t)
        memcpy(w->scratch + (size_t)t * w->slice,
               upd + (size_t)w->where[t] * w->slice, w->slice);
      const int64_t ishape[2] = {m, 1}, ushape[2] = {m, (int64_t)inner};
      clg_tensor part = clg_view(out, out->dtype, (size_t)lo * w->slice, 2,
                                 hi - lo, (int64_t)inner, 0);
      clg_tensor ix = clg_tensor_host(CLG_DTYPE_INT64, 2, ishape, w->local);
      clg_tensor up = clg_tensor_host(out->dtype, 2, ushape, w->scratch);
      clg_call sub = {.ctx = call->ctx,
                      .params = &p,
                      .data = &part,
                      .indices = &ix,
                      .updates = &up,
                      .output = &part,
                      .is_scatter = true,
                      .scatter = &c->sc,
                      .queue = queue,
                      .values_checked = true};
      st = runner(&sub);
    }
  }
  return st;
}

/* Index values in host memory: the caller's, or read back (*copy). */
static clg_status clg_host_values(const clg_tensor *t, size_t bytes,
                                  cl_command_queue queue, const char *what,
                                  const void **values, void **copy) {
  *copy = NULL;
  *values = t->host;
  if (t->storage == CLG_STORAGE_HOST || bytes == 0)
    return CLG_SUCCESS;
  *copy = CLG_MALLOC(bytes);
  if (!*copy)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "reading back %zu bytes of %s", bytes, what);
  *values = *copy;
  char msg[64];
  snprintf(msg, sizeof msg, "reading back the %s", what);
  return clg__read_buffer(queue, t, bytes, *copy, 0, NULL, false, msg);
}

/* Every call the row path does not take: the operator's slices. */
static clg_status clg_split_slices(clg_runner runner, const clg_call *call,
                                   const clg_checked *c,
                                   const clg_tensor_facts *of,
                                   cl_command_queue queue, cl_ulong limit,
                                   const void *values) {
  clg_slices w = {0};
  uint64_t inner = 0;
  size_t isize = c->xf.elem_size;
  c->impl->slices(&c->norm, call->data, call->indices, values, isize,
                  &w.entries, &inner, NULL);
  w.slice = (size_t)inner * c->df.elem_size;
  w.units = inner ? (int64_t)(c->df.count / inner) : 0;
  if (w.entries == 0 || w.slice == 0)
    return c->num_inputs == 3 && !clg__same_storage(call->data, c->df.bytes,
                                                    call->output, of->bytes)
               ? clg_copy_tensor(queue, call->data, call->output, of->bytes)
               : CLG_SUCCESS;
  int64_t *pos = CLG_MALLOC(w.entries * sizeof *pos);
  clg_status st = pos ? clg_slices_alloc(&w, limit)
                      : clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                                  "splitting a call over tensors larger than "
                                  "the device's largest buffer");
  void *ucopy = NULL;
  const void *upd = NULL;
  if (st == CLG_SUCCESS) {
    c->impl->slices(&c->norm, call->data, call->indices, values, isize,
                    &w.entries, &inner, pos);
    w.pos = pos;
    if (c->num_inputs == 3)
      st = clg_host_values(call->updates, c->uf.bytes, queue, "updates", &upd,
                           &ucopy);
  }
  if (st == CLG_SUCCESS)
    st = c->num_inputs == 3
             ? clg_split_scatter(runner, call, c, of, queue, &w, inner, upd)
             : clg_split_gather(runner, call, c, queue, &w, inner);
  free(ucopy);
  free(pos);
  clg_slices_free(&w);
  return st;
}

clg_status clg__run_split(const clg_call *call, const clg_checked *c,
                          const clg_tensor_facts *of, cl_command_queue queue,
                          clg_runner runner) {
  clg_context *ctx = call->ctx;
  cl_ulong limit = ctx->max_alloc;
  const char *names[CLG_MAX_INPUTS + 1] = {"data", "indices", "updates",
                                           "output"};
  const clg_tensor *t[CLG_MAX_INPUTS + 1] = {call->in[0], call->in[1],
                                             call->in[2], call->output};
  size_t bytes[CLG_MAX_INPUTS + 1] = {c->inf[0].bytes, c->inf[1].bytes,
                                      c->inf[2].bytes, of->bytes};
  int big = -1; /* the first tensor over the limit */
  for (int k = 0; k <= CLG_MAX_INPUTS && big < 0; ++k)
    if ((k == CLG_MAX_INPUTS || k < c->num_inputs) &&
        clg_host_over(t[k], bytes[k], limit))
      big = k;
  if (big < 0 || limit < CLG_SPLIT_MIN_LIMIT)
    return clg__fail(CLG_ERROR_INTERNAL,
                     "internal: a split call with no tensor over the limit, "
                     "or a limit of %" PRIu64 " bytes",
                     (uint64_t)limit);
  char what[48];
  snprintf(what, sizeof what, "%s's host %s", c->info->name, names[big]);
  if (!c->impl->slices)
    return clg_too_large(ctx, what, bytes[big],
                         "this operator cannot be split over several buffers");
  /* The slice each entry moves must fit one buffer. */
  size_t entries = 0;
  uint64_t inner = 0;
  c->impl->slices(&c->norm, call->data, call->indices, NULL,
                  c->xf.elem_size, &entries, &inner, NULL);
  if ((cl_ulong)inner * c->df.elem_size > limit) {
    char why[224], slice[64];
    clg__size_text(slice, sizeof slice, (uint64_t)inner * c->df.elem_size);
    snprintf(why, sizeof why,
             "one slice it moves (data's dimensions after the indexed ones, "
             "%s) is larger than that buffer: it cannot be split",
             slice);
    return clg_too_large(ctx, what, bytes[big], why);
  }

  /* A gather as whole rows (its rows hook) whose data rows fit: whole rows
   * per part, no index value read here. */
  clg_gather_view g = {0};
  bool rows = clg_view_of(c, call, &g);
  if (rows && call->data->storage == CLG_STORAGE_HOST)
    rows = (cl_ulong)g.s * g.slice <= limit;

  /* The whole call's index values, once, before any part runs. */
  clg_status st = CLG_SUCCESS;
  const void *values = call->indices->host;
  void *copy = NULL;
  if (c->num_inputs == 2) {
    if (!call->values_checked)
      st = clg__check_index_values(ctx, c, queue, call->data, call->indices,
                                   call->num_events, call->wait_list);
    if (st == CLG_SUCCESS && call->num_events) {
      cl_int err = clWaitForEvents(call->num_events, call->wait_list);
      if (err != CL_SUCCESS)
        st = clg__fail_cl(err, "clWaitForEvents", "waiting for the wait list");
    }
    if (st == CLG_SUCCESS && !rows)
      st = clg_host_values(call->indices, c->xf.bytes, queue, "indices",
                           &values, &copy);
  } else {
    /* A scatter: bounds, then repeats (the operator's index schedule). */
    if (call->num_events) {
      cl_int err = clWaitForEvents(call->num_events, call->wait_list);
      if (err != CL_SUCCESS)
        st = clg__fail_cl(err, "clWaitForEvents", "waiting for the wait list");
    }
    if (st == CLG_SUCCESS)
      st = clg_host_values(call->indices, c->xf.bytes, queue, "indices",
                           &values, &copy);
    void *state = NULL;
    if (st == CLG_SUCCESS && !call->values_checked && c->xf.count)
      st = clg__check_host_index_values(c, call->data, call->indices, values);
    if (st == CLG_SUCCESS && c->impl->index_schedule)
      st = c->impl->index_schedule(ctx, &c->norm, &c->sc, call->data,
                                   call->indices, values, c->xf.count, &state);
    if (state)
      c->impl->release_state(state);
  }
  if (st == CLG_SUCCESS && rows && of->bytes)
    st = clg_split_rows(runner, call, c, queue, &g, limit);
  else if (st == CLG_SUCCESS)
    st = clg_split_slices(runner, call, c, of, queue, limit, values);
  free(copy);
  if (st == CLG_SUCCESS && call->event) {
    cl_int err = clEnqueueMarkerWithWaitList(queue, 0, NULL, call->event);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                        "completing a split call");
  }
  if (st == CLG_SUCCESS && call->outcome)
    st = clg__outcome_decided(call->outcome);
  return st == CLG_SUCCESS ? clg__ok() : st;
}
