/* Multi-device sharding (clg_run_sharded): one call split along the
 * output's first dimension over several devices of one cl_context. The
 * whole call is checked once, on the first context, as clg_run() checks it;
 * each part then runs as an ordinary call (clg__run) whose index values are
 * known to be valid, and a marker joins the parts' events.
 *
 * A cl_mem output is written by each part through a sub-buffer of its own
 * (clCreateSubBuffer, a region of exactly the part's rows): OpenCL defines
 * concurrent writes by different devices only to distinct, non-overlapping
 * sub-buffers, not to disjoint bytes of one buffer (a runtime that migrates
 * whole buffers between discrete devices could lose one device's rows).
 * A sub-buffer's origin must be a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN,
 * so the split points are rounded to a multiple of the rows that keep every
 * part's origin aligned to the largest alignment of the devices; parts left
 * empty are dropped. The call runs on ctxs[0] alone (writing the output as
 * it is) when that leaves one part, when the output's own offset is not
 * aligned, when the output is itself a sub-buffer (it cannot be
 * sub-buffered), when an input lies in the output's cl_mem or in a
 * sub-buffer of it (reading a buffer while its sub-buffers are written is
 * undefined), or when a device or buffer query fails. Inputs stay whole
 * buffers, read concurrently by every part (defined). Host outputs are
 * split as they are: each part stages its own rows. */
#include "run/run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Compute units above this count as this many: keeps the split arithmetic
 * in 64 bits (weights sum to less than 2^32 for any real device count). */
#define CLG_MAX_WEIGHT 1024u

/* One device's share of the call. */
typedef struct clg_shard {
  cl_command_queue queue; /* queues[i] or the context's own */
  cl_uint weight;         /* compute units, or 1 for all when unknown */
  uint64_t end;           /* the part: output rows [previous end, end) */
  cl_event event;         /* completion of the part; NULL if none ran */
} clg_shard;

/* Rows [lo, lo + n) of `t` along its first dimension (elements of
 * elem_size bytes): the same storage, shape[0] = n, start advanced. */
static clg_tensor clg_rows(const clg_tensor *t, size_t elem_size, int64_t lo,
                           int64_t n) {
  clg_tensor s = *t;
  size_t row = elem_size;
  for (int32_t i = 1; i < t->rank; ++i)
    row *= (size_t)t->shape[i]; /* <= the tensor's bytes, checked */
  size_t skip = row * (size_t)lo;
  s.shape[0] = n;
  if (skip && s.storage == CLG_STORAGE_BUFFER)
    s.offset += skip;
  else if (skip)
    s.host = (unsigned char *)s.host + skip;
  return s;
}

/* Weights in proportion to the devices' compute units; all 1 when a device
 * does not say. */
static void clg_weigh(clg_context *const *ctxs, clg_shard *shards, cl_uint n) {
  bool known = true;
  for (cl_uint i = 0; i < n; ++i) {
    cl_uint cu = 0;
    if (clGetDeviceInfo(ctxs[i]->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu,
                        &cu, NULL) != CL_SUCCESS ||
        cu == 0)
      known = false;
    shards[i].weight = cu < CLG_MAX_WEIGHT ? cu : CLG_MAX_WEIGHT;
  }
  for (cl_uint i = 0; !known && i < n; ++i)
    shards[i].weight = 1;
}

/* Sub-buffer origins must be multiples of this many bytes on every device:
 * the least common multiple of the devices' CL_DEVICE_MEM_BASE_ADDR_ALIGN
 * (in bits; the largest of them, for the powers of two devices report).
 * 0 when a device does not say or the multiple is absurd. */
#define CLG_MAX_BASE_ALIGN ((size_t)1 << 20)

static size_t clg_gcd(size_t a, size_t b) {
  while (b) {
    size_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

static size_t clg_base_align(clg_context *const *ctxs, cl_uint n) {
  size_t align = 1;
  for (cl_uint i = 0; i < n; ++i) {
    cl_uint bits = 0;
    if (clGetDeviceInfo(ctxs[i]->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                        sizeof bits, &bits, NULL) != CL_SUCCESS)
      return 0;
    size_t bytes = bits >= 8 ? bits / 8 : 1;
    if (bytes > CLG_MAX_BASE_ALIGN)
      return 0;
    align = align / clg_gcd(align, bytes) * bytes;
    if (align > CLG_MAX_BASE_ALIGN)
      return 0;
  }
  return align;
}

/* Is `m` a sub-buffer (of `parent`, or of any buffer when parent is NULL)?
 * True also when the query fails: the caller then keeps to one device. */
static bool clg_sub_buffer_of(cl_mem m, cl_mem parent) {
  cl_mem assoc = NULL;
  if (clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc,
                         NULL) != CL_SUCCESS)
    return true;
  return assoc != NULL && (!parent || assoc == parent);
}

/* May each part write the cl_mem output through a sub-buffer of its own?
 * Not when the output is itself a sub-buffer, or an input with bytes lies
 * in the output's cl_mem or in a sub-buffer of it. */
static bool clg_sub_bufferable(const clg_tensor *output,
                               const clg_tensor *data, size_t data_bytes,
                               const clg_tensor *indices, size_t index_bytes) {
  if (clg_sub_buffer_of(output->buffer, NULL))
    return false;
  const clg_tensor *in[2] = {data, indices};
  const size_t bytes[2] = {data_bytes, index_bytes};
  for (int k = 0; k < 2; ++k)
    if (bytes[k] && in[k]->storage == CLG_STORAGE_BUFFER &&
        (in[k]->buffer == output->buffer ||
         clg_sub_buffer_of(in[k]->buffer, output->buffer)))
      return false;
  return true;
}

/* The common checks of the contexts: non-NULL, one cl_context, distinct
 * devices. */
static clg_status clg_check_ctxs(clg_context *const *ctxs, cl_uint num_ctxs) {
  if (!ctxs)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctxs is NULL");
  if (num_ctxs == 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "num_ctxs is 0; sharding needs at least one context");
  for (cl_uint i = 0; i < num_ctxs; ++i) {
    if (!ctxs[i])
      return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctxs[%u] is NULL", i);
    if (ctxs[i]->cl_ctx != ctxs[0]->cl_ctx)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "ctxs[%u] is on another cl_context than ctxs[0]; the "
                       "contexts of a sharded call share one cl_context",
                       i);
    for (cl_uint j = 0; j < i; ++j)
      if (ctxs[j]->device == ctxs[i]->device)
        return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                         "ctxs[%u] and ctxs[%u] are on the same device; each "
                         "context of a sharded call needs its own device",
                         j, i);
  }
  return CLG_SUCCESS;
}

/* Start every part that ran (a marker on q0 may wait on other queues'
 * events, so each is flushed), then, if `event`, join their events in one
 * marker on q0. */
static clg_status clg_join(const clg_shard *shards, cl_uint num_ctxs,
                           cl_uint parts, cl_command_queue q0,
                           cl_event *event) {
  cl_event *evs = CLG_CALLOC(parts, sizeof *evs);
  if (!evs)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory joining the shards' events");
  cl_uint k = 0;
  cl_int err = CL_SUCCESS;
  clg_status st = CLG_SUCCESS;
  for (cl_uint i = 0; i < num_ctxs; ++i)
    if (shards[i].event) {
      evs[k++] = shards[i].event;
      if (err == CL_SUCCESS && (err = clFlush(shards[i].queue)) != CL_SUCCESS)
        st = clg__fail_cl(err, "clFlush", "starting a shard");
    }
  if (err == CL_SUCCESS && event &&
      (err = clEnqueueMarkerWithWaitList(q0, k, evs, event)) != CL_SUCCESS)
    st = clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                      "joining the shards' events");
  free(evs);
  return st;
}

clg_status clg_run_sharded(clg_context *const *ctxs, cl_uint num_ctxs,
                           const clg_params *params, const clg_tensor *data,
                           const clg_tensor *indices, const clg_tensor *output,
                           const cl_command_queue *queues, cl_uint num_events,
                           const cl_event *wait_list, cl_event *event) {
  clg_status st = clg_check_ctxs(ctxs, num_ctxs);
  if (st != CLG_SUCCESS)
    return st;
  /* The whole call, checked on ctxs[0] as clg_run() checks it. */
  clg_call whole = {.ctx = ctxs[0],
                    .params = params,
                    .data = data,
                    .indices = indices,
                    .output = output,
                    .queue = queues ? queues[0] : NULL,
                    .num_events = num_events,
                    .wait_list = wait_list};
  clg_checked c;
  clg_tensor_facts of;
  cl_command_queue q0 = NULL;
  if ((st = clg__check_call(&whole, &c, &of, &q0)) != CLG_SUCCESS)
    return st;
  clg_shard *shards = CLG_CALLOC(num_ctxs, sizeof *shards);
  if (!shards)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory sharding a call");
  shards[0].queue = q0;
  for (cl_uint i = 1; i < num_ctxs && st == CLG_SUCCESS; ++i)
    if ((st = clg__resolve_queue(ctxs[i], queues ? queues[i] : NULL,
                                 &shards[i].queue)) != CLG_SUCCESS) {
      char why[512];
      snprintf(why, sizeof why, "%s", clg_last_error());
      st = queues ? clg__fail(st, "queues[%u]: %s", i, why)
                  : clg__fail(st, "the queue of ctxs[%u]: %s", i, why);
    }
  if (st == CLG_SUCCESS)
    st = clg__check_index_values(ctxs[0], &c, q0, data, indices, num_events,
                                 wait_list);
  if (st != CLG_SUCCESS)
    goto done;

  /* Part i: output rows [end(i-1), end(i)), end(i) = n * W(<=i) / W, W the
   * weights' sum; for a cl_mem output each end but the last rounded to the
   * nearest multiple of `unit` rows, which keeps every part's first byte
   * aligned for a sub-buffer. Empty parts are skipped. */
  bool data_rows = false, index_rows = false;
  int64_t n = c.out_rank > 0 ? c.out_shape[0] : 0;
  bool split = num_ctxs > 1 && of.bytes > 0 && n >= 2 &&
               c.impl->split(&c.norm, indices, &data_rows, &index_rows);
  bool sub = split && output->storage == CLG_STORAGE_BUFFER;
  uint64_t rows = (uint64_t)n, unit = 1;
  size_t row_bytes = split ? of.bytes / (size_t)rows : 0;
  if (sub) {
    size_t align = clg_base_align(ctxs, num_ctxs);
    split = align != 0 && output->offset % align == 0 &&
            clg_sub_bufferable(output, data, c.df.bytes, indices, c.xf.bytes);
    if (split)
      unit = align / clg_gcd(row_bytes, align);
  }
  cl_uint parts = 0;
  if (split) {
    clg_weigh(ctxs, shards, num_ctxs);
    uint64_t total = 0, acc = 0, lo = 0;
    for (cl_uint i = 0; i < num_ctxs; ++i)
      total += shards[i].weight;
    for (cl_uint i = 0; i < num_ctxs; ++i) {
      acc += shards[i].weight;
      uint64_t hi = rows / total * acc + rows % total * acc / total;
      if (hi < rows) /* < 2^63 rows: no overflow */
        hi = (hi + unit / 2) / unit * unit;
      if (hi > rows)
        hi = rows;
      if (hi < lo)
        hi = lo;
      shards[i].end = hi;
      parts += hi > lo;
      lo = hi;
    }
  }

  /* Nothing to split, one device, or one part left: the whole call on
   * ctxs[0]. */
  if (parts < 2) {
    clg_call one = {.ctx = ctxs[0],
                    .params = &c.norm,
                    .data = data,
                    .indices = indices,
                    .output = output,
                    .queue = q0,
                    .num_events = num_events,
                    .wait_list = wait_list,
                    .event = event,
                    .values_checked = true};
    st = clg__run(&one);
    goto done;
  }

  /* Each part runs after the wait list. */
  uint64_t lo = 0;
  parts = 0;
  for (cl_uint i = 0; i < num_ctxs; ++i) {
    uint64_t hi = shards[i].end;
    if (hi == lo)
      continue;
    int64_t l = (int64_t)lo, k = (int64_t)(hi - lo);
    clg_tensor d = data_rows ? clg_rows(data, c.df.elem_size, l, k) : *data;
    clg_tensor x =
        index_rows ? clg_rows(indices, c.xf.elem_size, l, k) : *indices;
    clg_tensor o = clg_rows(output, of.elem_size, l, k);
    cl_mem part_mem = NULL;
    if (sub) {
      /* The part's rows of the output, as a sub-buffer of its own. */
      cl_buffer_region region = {output->offset + (size_t)lo * row_bytes,
                                 (size_t)k * row_bytes};
      cl_int err = CL_SUCCESS;
      part_mem = clCreateSubBuffer(output->buffer, 0,
                                   CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
      if (!part_mem) {
        char what[160];
        snprintf(what, sizeof what,
                 "creating the sub-buffer of output rows [%" PRIu64
                 ", %" PRIu64 ") (bytes %zu to %zu) for ctxs[%u]",
                 lo, hi, region.origin, region.origin + region.size, i);
        st = clg__fail_cl(err, "clCreateSubBuffer", what);
        goto done;
      }
      o = clg_tensor_buffer(output->dtype, output->rank, o.shape, part_mem, 0);
    }
    clg_call part = {.ctx = ctxs[i],
                     .params = &c.norm,
                     .data = &d,
                     .indices = &x,
                     .output = &o,
                     .queue = shards[i].queue,
                     .num_events = num_events,
                     .wait_list = wait_list,
                     .event = &shards[i].event,
                     .values_checked = true};
    st = clg__run(&part);
    /* Enqueued commands keep the sub-buffer alive as long as they need it. */
    if (part_mem)
      clReleaseMemObject(part_mem);
    if (st != CLG_SUCCESS)
      goto done;
    ++parts;
    lo = hi;
  }

  st = clg_join(shards, num_ctxs, parts, q0, event);

done:
  /* On an error, no part may still run on the caller's memory. */
  for (cl_uint i = 0; i < num_ctxs; ++i)
    if (shards[i].event) {
      if (st != CLG_SUCCESS)
        (void)clWaitForEvents(1, &shards[i].event); /* the error stands */
      clReleaseEvent(shards[i].event);
    }
  free(shards);
  return st == CLG_SUCCESS ? clg__ok() : st;
}
