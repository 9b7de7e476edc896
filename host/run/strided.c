/* Strided tensors (clg_strided_tensor): a call with strided operands is run
 * as the same call on dense ones. An operand whose strides are those of
 * the dense tensor is that tensor, at no cost. Any other input is copied
 * into a dense scratch buffer first (kernels/strided.cl on the device, a
 * loop on the host for host memory); any other output is computed into a
 * dense scratch and copied to its elements after the operator's kernels,
 * which only happens once the call has succeeded: every index value is
 * checked before anything is written, as for dense tensors. A Gather that
 * can read its strided data in place does (strided_gather.c). */
#include "run/strided.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool clg__call_strided(const clg_call *call) {
  for (int k = 0; k < CLG_MAX_INPUTS; ++k)
    if (call->in[k] && clg__strides(call->in[k]))
      return true;
  return call->output && clg__strides(call->output);
}

static void clg_layout(int32_t rank, const int64_t *shape, const int64_t *src,
                       const int64_t *dst, clg_copy_layout *l) {
  clg__coalesce_dims(rank, shape, src, dst, NULL, l);
}

/* Copy `count` elements of `es` bytes between host layouts (src and dst
 * point at element [0, ..., 0]). */
static void clg_host_copy(unsigned char *dst, const unsigned char *src,
                          const clg_copy_layout *l, size_t count, size_t es) {
  if (count == 0)
    return;
  int r = l->rank;
  int64_t n = r ? l->shape[r - 1] : 1, sin = r ? l->src[r - 1] : 0,
          din = r ? l->dst[r - 1] : 0;
  int64_t c[CLG_MAX_RANK] = {0};
  ptrdiff_t so = 0, dof = 0;
  for (size_t done = 0; done < count; done += (size_t)n) {
    const unsigned char *s = src + so * (ptrdiff_t)es;
    unsigned char *d = dst + dof * (ptrdiff_t)es;
    if (sin == 1 && din == 1)
      memcpy(d, s, (size_t)n * es);
    else
      for (int64_t j = 0; j < n; ++j)
        memcpy(d + j * din * (ptrdiff_t)es, s + j * sin * (ptrdiff_t)es, es);
    /* The next row: an odometer over the outer dimensions. */
    for (int i = r - 2; i >= 0; --i) {
      so += l->src[i];
      dof += l->dst[i];
      if (++c[i] < l->shape[i])
        break;
      so -= l->src[i] * l->shape[i];
      dof -= l->dst[i] * l->shape[i];
      c[i] = 0;
    }
  }
}

/* Enqueue the copy kernel: the layout's elements from (src, src_off bytes, the
 * layout's src strides) to (dst, dst_off, its dst strides). */
static clg_status clg_device_copy(clg_context *ctx, cl_command_queue queue,
                                  cl_mem src, size_t src_off, cl_mem dst,
                                  size_t dst_off, const clg_copy_layout *l,
                                  size_t es, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event) {
  static const char *const units[] = {"uchar", "ushort", NULL, "uint",
                                      NULL,    NULL,     NULL, "ulong"};
  size_t unit = es < 8 ? es : 8;
  clg_copy_layout lr = *l;
  size_t global[2], local[2];
  cl_ulong rows = 0;
  clg__strided_range(ctx, &lr, global, local, &rows);
  char options[80];
  snprintf(options, sizeof options, "-DCLG_UNIT=%s -DCLG_PER=%zu -DCLG_RANK=%d",
           units[unit - 1], es / unit, lr.rank);
  clg_kernel_entry *k = NULL;
  clg_status st =
      clg__get_kernel(ctx, clg_kernel_strided, options, "clg_strided_copy", &k);
  if (st != CLG_SUCCESS)
    return st;
  cl_long so = (cl_long)(src_off / unit), dof = (cl_long)(dst_off / unit);
  cl_long16 shape, ss, ds;
  for (int i = 0; i < 16; ++i) {
    shape.s[i] = i < lr.rank ? lr.shape[i] : 1;
    ss.s[i] = i < lr.rank ? lr.src[i] : 0;
    ds.s[i] = i < lr.rank ? lr.dst[i] : 0;
  }
  const void *values[] = {&src, &so, &dst, &dof, &rows, &shape, &ss, &ds};
  const size_t sizes[] = {sizeof(cl_mem), sizeof so,   sizeof(cl_mem),
                          sizeof dof,     sizeof rows, sizeof shape,
                          sizeof ss,      sizeof ds};
  st = clg__launch(k, queue, 8, sizes, values, 2, global, local, num_events,
                   wait_list, event);
  if (st == CLG_SUCCESS)
    atomic_fetch_add_explicit(&ctx->strided_copies, 1, memory_order_relaxed);
  return st;
}

static size_t clg_operand_elem(const clg_call *call, int k) {
  return clg_dtype_size(k == CLG_IN_INDICES ? call->indices->dtype
                                            : call->data->dtype);
}

void clg__strided_release(clg_dense_operand *op, int count, cl_event *events,
                          cl_uint num) {
  for (int k = 0; k < count; ++k) {
    free(op[k].host_tmp);
    if (op[k].scratch)
      clReleaseMemObject(op[k].scratch); /* freed once its commands ran */
  }
  for (cl_uint i = 0; i < num; ++i)
    clReleaseEvent(events[i]);
}

clg_status clg__strided_operand(const clg_context *ctx, const char *name,
                                const clg_tensor *t, size_t elem_size,
                                bool is_output, clg_dense_operand *o) {
  memset(o, 0, sizeof *o);
  o->t = *t;
  if (!clg__strides(t))
    return CLG_SUCCESS;
  clg_status st = clg__check_strided(ctx, name, t, elem_size, is_output, &o->f);
  o->t.storage = t->storage == CLG_STORAGE_HOST_STRIDED ? CLG_STORAGE_HOST
                                                        : CLG_STORAGE_BUFFER;
  return st;
}

clg_status clg__strided_wait_list(cl_command_queue queue, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *events,
                                  cl_uint *nev) {
  *nev = 0;
  /* A wait list longer than CLG_STRIDED_WAITS: the copies wait for all of
   * it through a marker. */
  if (num_events > CLG_STRIDED_WAITS) {
    cl_int err = clEnqueueMarkerWithWaitList(queue, num_events, wait_list,
                                             &events[0]);
    if (err != CL_SUCCESS)
      return clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                          "waiting for the wait list of a strided call");
    *nev = 1;
    return CLG_SUCCESS;
  }
  for (cl_uint i = 0; i < num_events; ++i) {
    cl_int err = clRetainEvent(wait_list[i]);
    if (err != CL_SUCCESS)
      return clg__fail_cl(err, "clRetainEvent", "taking the wait list");
    events[(*nev)++] = wait_list[i];
  }
  return CLG_SUCCESS;
}

clg_status clg__strided_pack(clg_context *ctx, cl_command_queue queue,
                             const clg_tensor *orig, const char *name,
                             bool out, clg_dense_operand *o, cl_uint waits,
                             cl_event *events, cl_uint *nev) {
  const int64_t *strides = clg__strides(orig);
  if (!strides || o->f.dense_order || o->f.dense.count == 0)
    return CLG_SUCCESS;
  int64_t dense[CLG_MAX_RANK];
  clg__dense_strides(orig->rank, orig->shape, dense);
  size_t es = o->f.dense.elem_size, bytes = o->f.dense.bytes;
  clg_copy_layout l;
  clg_layout(orig->rank, orig->shape, strides, dense, &l);
  o->copy_back = out;
  if (o->t.storage == CLG_STORAGE_HOST) {
    if (!(o->host_tmp = CLG_MALLOC(bytes)))
      return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                       "out of host memory: %zu bytes for a dense copy of "
                       "the strided %s",
                       bytes, name);
    if (!out)
      clg_host_copy(o->host_tmp, orig->host, &l, o->f.dense.count, es);
    o->t.host = o->host_tmp;
    return CLG_SUCCESS;
  }
  cl_int err = CL_SUCCESS;
  o->scratch =
      clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (!o->scratch) {
    char what[96];
    snprintf(what, sizeof what, "allocating a dense copy of the strided %s",
             name);
    return clg__fail_cl(err, "clCreateBuffer", what);
  }
  o->t.buffer = o->scratch;
  o->t.offset = 0;
  if (out)
    return CLG_SUCCESS;
  clg_status st = clg_device_copy(ctx, queue, orig->buffer, orig->offset,
                                  o->scratch, 0, &l, es, waits,
                                  waits ? events : NULL, &events[*nev]);
  if (st == CLG_SUCCESS)
    ++*nev;
  return st;
}

clg_status clg__strided_copy_out(clg_context *ctx, cl_command_queue queue,
                                 const clg_tensor *output,
                                 const clg_dense_operand *o, cl_event ran,
                                 cl_event *done) {
  const int64_t *strides = clg__strides(output);
  int64_t d[CLG_MAX_RANK];
  clg__dense_strides(output->rank, output->shape, d);
  clg_copy_layout l;
  clg_layout(output->rank, output->shape, d, strides, &l);
  if (o->scratch)
    return clg_device_copy(ctx, queue, o->scratch, 0, output->buffer,
                           output->offset, &l, o->f.dense.elem_size, 1, &ran,
                           done);
  clg_host_copy(output->host, o->host_tmp, &l, o->f.dense.count,
                o->f.dense.elem_size);
  return CLG_SUCCESS;
}

/* The checks that need no memory, on dense stand-ins of the operands (their
 * shapes and types): params, shapes, types, sizes. */
static clg_status clg_check_shapes(const clg_call *call,
                                   const clg_tensor *const *orig) {
  static unsigned char somewhere;
  clg_tensor t[CLG_OPERANDS];
  const clg_tensor *in[CLG_MAX_INPUTS] = {NULL, NULL, NULL};
  for (int k = 0; k < CLG_OPERANDS; ++k) {
    if (!orig[k])
      continue;
    t[k] = *orig[k];
    if (clg__strides(orig[k])) {
      t[k].storage = CLG_STORAGE_HOST;
      t[k].host = &somewhere;
    }
    if (k < CLG_MAX_INPUTS)
      in[k] = &t[k];
  }
  clg_checked c;
  clg_tensor_facts of;
  return clg__check_templates(call->ctx, call->params, call->scatter,
                              call->is_scatter, in,
                              orig[CLG_OUT] ? &t[CLG_OUT] : NULL, &c, &of);
}

clg_status clg__run_strided(const clg_call *call, clg_runner run) {
  clg_context *ctx = call->ctx;
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  const clg_tensor *orig[CLG_OPERANDS] = {
      call->data, call->indices, call->is_scatter ? call->updates : NULL,
      call->output};
  clg_status st = clg__check_wait_list(call->num_events, call->wait_list);
  if (st == CLG_SUCCESS)
    st = clg_check_shapes(call, orig);
  if (st != CLG_SUCCESS)
    return st;
  clg_dense_operand op[CLG_OPERANDS];
  memset(op, 0, sizeof op);
  for (int k = 0; k < CLG_OPERANDS; ++k) {
    if (!orig[k])
      continue;
    const char *name = k == CLG_OUT ? "output" : clg__input_names[k];
    if ((st = clg__strided_operand(ctx, name, orig[k],
                                   clg_operand_elem(call, k), k == CLG_OUT,
                                   &op[k])) != CLG_SUCCESS)
      return st;
  }
  cl_command_queue queue = NULL;
  if ((st = clg__resolve_queue(ctx, call->queue, &queue)) != CLG_SUCCESS)
    return st;

  /* Inputs into dense memory, outputs from it: the operands that are not
   * dense already. */
  cl_event events[CLG_OPERANDS + CLG_STRIDED_WAITS];
  cl_uint nev = 0;
  st = clg__strided_wait_list(queue, call->num_events, call->wait_list, events,
                              &nev);
  if (st != CLG_SUCCESS) {
    clg__strided_release(op, CLG_OPERANDS, events, nev);
    return st;
  }
  const cl_uint waits = nev; /* what the copies of inputs wait for */
  /* Data read in place by the direct Gather: only indices are copied. */
  bool direct = clg__direct_eligible(call, op);
  for (int k = 0; k < CLG_OPERANDS && st == CLG_SUCCESS; ++k)
    if (orig[k] && (!direct || k == CLG_IN_INDICES))
      st = clg__strided_pack(ctx, queue, orig[k],
                             k == CLG_OUT ? "output" : clg__input_names[k],
                             k == CLG_OUT, &op[k], waits, events, &nev);
  if (st == CLG_SUCCESS && direct)
    st = clg__direct_gather(call, queue, op, nev, nev ? events : NULL);
  if (st != CLG_SUCCESS || direct) {
    clg__strided_release(op, CLG_OPERANDS, events, nev);
    return st == CLG_SUCCESS ? clg__ok() : st;
  }

  /* The dense call. A strided output copied from scratch cannot be gated
   * on an asynchronous verdict: its index values are checked now. */
  const clg_dense_operand *out = &op[CLG_OUT];
  bool device_back = out->copy_back && out->scratch;
  clg_call dense = *call;
  for (int k = 0; k < CLG_MAX_INPUTS; ++k)
    dense.in[k] = orig[k] ? &op[k].t : call->in[k];
  dense.output = &op[CLG_OUT].t;
  dense.num_events = nev;
  dense.wait_list = nev ? events : NULL;
  cl_event ran = NULL;
  if (device_back) {
    dense.event = &ran;
    dense.outcome = NULL;
  }
  st = run(&dense);
  if (st == CLG_SUCCESS && device_back) {
    /* The outcome first: nothing is left to undo if it cannot be made. */
    clg_outcome *decided = NULL;
    if (call->outcome)
      st = clg__outcome_decided(&decided);
    cl_event done = NULL;
    if (st == CLG_SUCCESS)
      st = clg__strided_copy_out(ctx, queue, call->output, out, ran,
                                 call->event ? &done : NULL);
    clReleaseEvent(ran);
    if (st == CLG_SUCCESS) {
      if (call->event)
        *call->event = done;
      if (call->outcome)
        *call->outcome = decided;
    } else {
      clg_outcome_release(decided);
    }
  } else if (st == CLG_SUCCESS && out->copy_back) {
    /* A host output: the dense call has written host_tmp (it blocks). */
    st = clg__strided_copy_out(ctx, queue, call->output, out, NULL, NULL);
  }
  clg__strided_release(op, CLG_OPERANDS, events, nev);
  return st == CLG_SUCCESS ? clg__ok() : st;
}

clg_status clg__validate_strided(clg_context *ctx, const clg_params *params,
                                 const clg_tensor *data,
                                 const clg_tensor *indices,
                                 cl_command_queue queue, cl_uint num_events,
                                 const cl_event *wait_list) {
  static unsigned char somewhere;
  clg_tensor d = *data, x = *indices;
  clg_strided_facts f;
  clg_status st;
  /* Data: only its shape counts. */
  if (clg__strides(data)) {
    if ((st = clg__check_data_dtype("data", data->dtype)) != CLG_SUCCESS ||
        (st = clg__check_strided(ctx, "data", data, clg_dtype_size(data->dtype),
                                 false, &f)) != CLG_SUCCESS)
      return st;
    d.storage = CLG_STORAGE_HOST;
    d.host = &somewhere;
  }
  if (!clg__strides(indices))
    return clg__validate_dense(ctx, params, &d, &x, queue, num_events,
                               wait_list);
  if ((st = clg__check_index_dtype(indices->dtype)) != CLG_SUCCESS ||
      (st = clg__check_strided(ctx, "indices", indices,
                               clg_dtype_size(indices->dtype), false, &f)) !=
          CLG_SUCCESS)
    return st;
  const int64_t *strides = clg__strides(indices);
  x.storage = indices->storage == CLG_STORAGE_HOST_STRIDED ? CLG_STORAGE_HOST
                                                           : CLG_STORAGE_BUFFER;
  if (f.dense_order || f.dense.count == 0)
    return clg__validate_dense(ctx, params, &d, &x, queue, num_events,
                               wait_list);
  /* The values, dense, on the host: read from host memory, or from the
   * cl_mem range they span (blocking, after the wait list). */
  int64_t dense[CLG_MAX_RANK];
  clg__dense_strides(indices->rank, indices->shape, dense);
  clg_copy_layout l;
  clg_layout(indices->rank, indices->shape, strides, dense, &l);
  size_t es = f.dense.elem_size, span = (size_t)(f.hi - f.lo + 1) * es;
  unsigned char *values = CLG_MALLOC(f.dense.bytes);
  bool buffer = x.storage == CLG_STORAGE_BUFFER;
  unsigned char *raw = buffer ? CLG_MALLOC(span) : NULL;
  if (!values || (buffer && !raw)) {
    free(values);
    free(raw);
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory reading strided indices");
  }
  const unsigned char *first = indices->host;
  if (raw) {
    cl_command_queue q = NULL;
    st = clg__resolve_queue(ctx, queue, &q);
    clg_tensor range = *indices;
    range.storage = CLG_STORAGE_BUFFER;
    range.offset = indices->offset - (size_t)(-f.lo) * es;
    if (st == CLG_SUCCESS)
      st = clg__read_buffer(q, &range, span, raw, num_events, wait_list, false,
                            "reading strided indices");
    first = raw + (size_t)(-f.lo) * es;
  }
  if (st == CLG_SUCCESS) {
    clg_host_copy(values, first, &l, f.dense.count, es);
    x.storage = CLG_STORAGE_HOST;
    x.host = values;
    st = clg__validate_dense(ctx, params, &d, &x, NULL, 0, NULL);
  }
  free(values);
  free(raw);
  return st;
}
