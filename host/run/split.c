/* Tables larger than one device allocation: a call whose host data or host
 * output is larger than the device's largest buffer
 * (CL_DEVICE_MAX_MEM_ALLOC_SIZE, ctx->max_alloc) runs as several ordinary
 * calls (clg__run with the index values already checked), each on parts
 * that fit. The whole call's index values are checked once first, before
 * anything runs; the result is byte for byte the one-buffer result.
 *
 * Gather, viewed as data [R, s, inner] and output [R, n, inner] (R: the
 * rows before the axis, batch rows included; n: the indices of one batch
 * row; a slice is inner elements):
 *  - while one data row (s slices) fits, groups of whole rows run as one
 *    Gather each (data rows [r0, r1), output rows [r0, r1), the indices of
 *    their batch row; a group never spans two batch rows); an output row
 *    too large on its own is cut into runs of indices;
 *  - when one data row does not fit (an embedding table: R = 1), the axis
 *    is cut into parts of at most max_alloc bytes; for each part, the
 *    indices that select a slice in it (as their mode maps them) are
 *    gathered from that part into a scratch output that fits, and its
 *    slices are copied to their places in the output.
 * A single slice larger than the limit cannot be split: that is an error
 * naming the sizes and the limit. Other operators with a host tensor over
 * the limit get the same error (the split is Gather's only, so far).
 *
 * The split call is synchronous (its host tensors make it so anyway): it
 * waits for the wait list first, and the event it returns is a marker
 * enqueued after its parts. An OpenCL failure in a later part leaves the
 * earlier parts' rows written (a device error, not a bad input: every
 * check ran before the first part). */
#include "run/run.h"

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

/* "2.46 GB (2641264640 bytes)"-style sizes for messages. */
static void clg_size_text(char *buf, size_t cap, uint64_t bytes) {
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
  clg_size_text(size, sizeof size, bytes);
  clg_size_text(lim, sizeof lim, ctx->max_alloc);
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

static clg_status clg_run_part(const clg_call *call, cl_command_queue queue,
                               const clg_params *p, clg_part *part) {
  clg_call sub = {.ctx = call->ctx,
                  .params = p,
                  .data = &part->data,
                  .indices = &part->indices,
                  .output = &part->output,
                  .queue = queue,
                  .values_checked = true};
  return clg__run(&sub);
}

/* The slice index value k selects on an axis of size s under `mode` (the
 * value is known valid). */
static int64_t clg_source(int64_t k, int64_t s, clg_index_mode mode) {
  if (mode == CLG_MODE_WRAP) {
    k %= s;
    return k < 0 ? k + s : k;
  }
  if (mode == CLG_MODE_CLIP)
    return k < 0 ? 0 : k >= s ? s - 1 : k;
  return k < 0 ? k + s : k;
}

/* Gather's geometry (see the top of the file). */
typedef struct clg_gather_view {
  int64_t batch, outer, s, n, inner; /* inner: elements of a slice */
  size_t esize, slice;               /* bytes: an element, a slice */
} clg_gather_view;

static void clg_view_of(const clg_checked *c, const clg_tensor *data,
                        clg_gather_view *g) {
  int32_t a = c->norm.axis, b = c->norm.batch_dims;
  g->batch = g->outer = g->inner = 1;
  for (int32_t i = 0; i < b; ++i)
    g->batch *= data->shape[i];
  for (int32_t i = b; i < a; ++i)
    g->outer *= data->shape[i];
  g->s = data->shape[a];
  for (int32_t i = a + 1; i < data->rank; ++i)
    g->inner *= data->shape[i];
  g->esize = c->df.elem_size;
  g->slice = (size_t)g->inner * g->esize;
  g->n = g->batch ? (int64_t)(c->xf.count / (size_t)g->batch) : 0;
}

/* Rows that fit: whole data rows (and their output rows) per part. */
static clg_status clg_split_rows(const clg_call *call, const clg_checked *c,
                                 cl_command_queue queue,
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
    int64_t run = g->n;
    if (out_big && g->slice && (cl_ulong)orow > limit)
      run = (int64_t)(limit / g->slice);
    if (idx->storage == CLG_STORAGE_HOST && (cl_ulong)run * isize > limit)
      run = (int64_t)(limit / isize);
    if (run < 1)
      run = 1;
    if (run < g->n)
      g_rows = 1;
    for (int64_t j0 = 0; j0 < g->n; j0 += run) {
      int64_t len = g->n - j0 < run ? g->n - j0 : run;
      clg_part part;
      part.data = clg_view(data, data->dtype, (size_t)r0 * row, 3, g_rows,
                           g->s, g->inner);
      part.indices = clg_view(idx, idx->dtype,
                              (size_t)(beta * g->n + j0) * isize, 1, len, 0,
                              0);
      part.output = clg_view(out, out->dtype,
                             (size_t)r0 * orow + (size_t)j0 * g->slice, 3,
                             g_rows, len, g->inner);
      clg_status st = clg_run_part(call, queue, &p, &part);
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

/* Data rows that do not fit: parts of the axis, the indices that fall in
 * each gathered into a scratch output and copied to their places. */
static clg_status clg_split_axis(const clg_call *call, const clg_checked *c,
                                 cl_command_queue queue,
                                 const clg_gather_view *g, cl_ulong limit,
                                 const void *values) {
  const clg_tensor *data = call->data, *out = call->output;
  int64_t span = (int64_t)(limit / g->slice); /* slices per part, >= 1 */
  /* Indices gathered at a time: the scratch output and the local indices
   * are staged too, so both must fit. */
  int64_t cap = span;
  if ((cl_ulong)cap > limit / sizeof(int64_t))
    cap = (int64_t)(limit / sizeof(int64_t));
  if (cap > g->n)
    cap = g->n;
  if (cap < 1)
    cap = 1;
  int64_t *local = CLG_MALLOC((size_t)(cap ? cap : 1) * sizeof *local);
  int64_t *where = CLG_MALLOC((size_t)(cap ? cap : 1) * sizeof *where);
  unsigned char *scratch = CLG_MALLOC(cap ? (size_t)cap * g->slice : 1);
  clg_status st = CLG_SUCCESS;
  if (!local || !where || !scratch)
    st = clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                   "splitting a gather from a table larger than the "
                   "device's largest buffer");
  clg_params p = {.op = CLG_OP_GATHER, .axis = 1, .mode = CLG_MODE_RAISE};
  bool wide = c->xf.elem_size == 8;
  size_t row = (size_t)g->s * g->slice, orow = (size_t)g->n * g->slice;
  int64_t rows = g->batch * g->outer;
  for (int64_t r = 0; st == CLG_SUCCESS && r < rows; ++r) {
    int64_t beta = r / g->outer;
    for (int64_t lo = 0; st == CLG_SUCCESS && lo < g->s; lo += span) {
      int64_t hi = g->s - lo < span ? g->s : lo + span;
      int64_t m = 0, j = 0;
      while (st == CLG_SUCCESS && (j < g->n || m > 0)) {
        /* Collect up to cap indices of this part, then gather them. */
        for (; j < g->n && m < cap; ++j) {
          size_t at = (size_t)(beta * g->n + j);
          int64_t v = wide ? ((const int64_t *)values)[at]
                           : ((const int32_t *)values)[at];
          int64_t k = clg_source(v, g->s, c->norm.mode);
          if (k >= lo && k < hi) {
            local[m] = k - lo;
            where[m++] = j;
          }
        }
        if (m == 0)
          break;
        const int64_t sshape[3] = {1, m, g->inner};
        clg_tensor ix = clg_tensor_host(CLG_DTYPE_INT64, 1, &m, local);
        clg_tensor sc = clg_tensor_host(data->dtype, 3, sshape, scratch);
        clg_part part = {
            .data = clg_view(data, data->dtype,
                             (size_t)r * row + (size_t)lo * g->slice, 3, 1,
                             hi - lo, g->inner),
            .indices = ix,
            .output = sc};
        st = clg_run_part(call, queue, &p, &part);
        for (int64_t t = 0; st == CLG_SUCCESS && t < m; ++t)
          st = clg_put(out, queue,
                       (size_t)r * orow + (size_t)where[t] * g->slice,
                       scratch + (size_t)t * g->slice, g->slice);
        m = 0;
      }
    }
  }
  free(local);
  free(where);
  free(scratch);
  return st;
}

clg_status clg__run_split(const clg_call *call, const clg_checked *c,
                          const clg_tensor_facts *of, cl_command_queue queue) {
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
  char what[48];
  snprintf(what, sizeof what, "%s's host %s", c->info->name, names[big]);
  if (c->info->op != CLG_OP_GATHER)
    return clg_too_large(ctx, what, bytes[big],
                         "only Gather splits its host tensors over several "
                         "buffers so far");
  clg_gather_view g;
  clg_view_of(c, call->data, &g);
  if ((cl_ulong)g.slice > limit)
    return clg_too_large(ctx, what, bytes[big],
                         "one slice of it (the dimensions after the axis) "
                         "is larger than that buffer: it cannot be split");

  /* The whole call's index values, once, before any part runs. */
  clg_status st = CLG_SUCCESS;
  if (!call->values_checked)
    st = clg__check_index_values(ctx, c, queue, call->data, call->indices,
                                 call->num_events, call->wait_list);
  if (st == CLG_SUCCESS && call->num_events) {
    cl_int err = clWaitForEvents(call->num_events, call->wait_list);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clWaitForEvents", "waiting for the wait list");
  }
  bool axis_split = call->data->storage == CLG_STORAGE_HOST &&
                    (cl_ulong)g.s * g.slice > limit;
  void *copy = NULL;
  const void *values = call->indices->host;
  if (st == CLG_SUCCESS && axis_split &&
      call->indices->storage == CLG_STORAGE_BUFFER && c->xf.bytes) {
    copy = CLG_MALLOC(c->xf.bytes);
    if (!copy)
      st = clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "reading back %zu bytes of indices", c->xf.bytes);
    else
      st = clg__read_buffer(queue, call->indices, c->xf.bytes, copy, 0, NULL,
                            "reading back the indices");
    values = copy;
  }
  if (st == CLG_SUCCESS && of->bytes)
    st = axis_split ? clg_split_axis(call, c, queue, &g, limit, values)
                    : clg_split_rows(call, c, queue, &g, limit);
  free(copy);
  if (st == CLG_SUCCESS && call->event) {
    cl_int err = clEnqueueMarkerWithWaitList(queue, 0, NULL, call->event);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                        "completing a split gather");
  }
  if (st == CLG_SUCCESS && call->outcome)
    st = clg__outcome_decided(call->outcome);
  return st == CLG_SUCCESS ? clg__ok() : st;
}
