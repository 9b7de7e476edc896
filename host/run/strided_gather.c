/* The Gather that reads strided data in place (clg_strided_gather of
 * kernels/strided.cl), for strided.c: no dense copy of its data, and its
 * output's elements written directly. */
#include "run/strided.h"

#include <stdio.h>
#include <string.h>

/* Gather (batch_dims 0, mode RAISE) on cl_mem data into a cl_mem output,
 * read in place by clg_strided_gather instead of through scratch copies,
 * when either
 *  - data is strided (not in dense order) and has more elements than the
 *    output: its dense copy would move more bytes than the gather (an
 *    embedding table's column block); or
 *  - the output is strided (not in dense order), data is dense, and the
 *    device is not a CPU: there the direct kernel beat the operator's
 *    kernel into scratch plus the copy to the output (NVIDIA H200, 4096
 *    rows of 768 floats into a column block: 0.08 against 0.17-0.19 ms),
 *    where on a CPU the two are even (POCL: 7.9 against 7.2 ms) and the
 *    operator's kernels are the tuned ones;
 * and the unit-aligned offsets and data's and the output's bytes lie
 * apart. */
bool clg__direct_eligible(const clg_call *call, const clg_dense_operand *op) {
  const clg_params *p = call->params ? call->params : &clg__default_params;
  const clg_tensor *d = call->data, *o = call->output, *x = call->indices;
  const clg_dense_operand *od = &op[CLG_IN_DATA], *oo = &op[CLG_OUT];
  if (call->is_scatter || p->op != CLG_OP_GATHER || p->mode != CLG_MODE_RAISE ||
      (p->batch_dims != 0 && p->batch_dims != -(int64_t)x->rank) ||
      (d->storage != CLG_STORAGE_BUFFER &&
       d->storage != CLG_STORAGE_BUFFER_STRIDED) ||
      (o->storage != CLG_STORAGE_BUFFER &&
       o->storage != CLG_STORAGE_BUFFER_STRIDED))
    return false;
  size_t es = clg_dtype_size(d->dtype), unit = es < 8 ? es : 8;
  size_t d_count = 1, o_count = 1;
  for (int32_t i = 0; i < d->rank; ++i)
    d_count *= (size_t)d->shape[i];
  for (int32_t i = 0; i < o->rank; ++i)
    o_count *= (size_t)o->shape[i];
  bool d_strided = clg__strides(d) && !od->f.dense_order,
       o_strided = clg__strides(o) && !oo->f.dense_order;
  bool wins = (d_strided && o_count <= d_count) ||
              (o_strided && !d_strided &&
               !(clg__kernel_device(call->ctx) & CL_DEVICE_TYPE_CPU));
  if (!wins || d_count == 0 || o_count == 0 || d->offset % unit ||
      o->offset % unit)
    return false;
  if (o->buffer != d->buffer)
    return true;
  /* The bytes each reaches, from its first to its last. */
  size_t d0 = d->offset, d1 = d->offset + d_count * es;
  size_t o0 = o->offset, o1 = o->offset + o_count * es;
  if (clg__strides(d)) {
    d0 = d->offset - (size_t)(-od->f.lo) * es;
    d1 = d->offset + (size_t)(od->f.hi + 1) * es;
  }
  if (clg__strides(o)) {
    o0 = o->offset - (size_t)(-oo->f.lo) * es;
    o1 = o->offset + (size_t)(oo->f.hi + 1) * es;
  }
  return o1 <= d0 || d1 <= o0;
}

clg_status clg__direct_gather(const clg_call *call, cl_command_queue queue,
                              const clg_dense_operand *op, cl_uint num_events,
                              const cl_event *wait_list) {
  static unsigned char somewhere;
  clg_context *ctx = call->ctx;
  const clg_params *p = call->params ? call->params : &clg__default_params;
  const clg_tensor *d = call->data, *o = call->output;
  const clg_tensor *x = &op[CLG_IN_INDICES].t; /* dense */
  size_t es = clg_dtype_size(d->dtype);
  clg_status st;
  /* The memory of data and output where dense (strided ones were
   * checked). */
  clg_tensor_facts of;
  if (!clg__strides(d) &&
      (st = clg__check_tensor(ctx, "data", d, es, &of)) != CLG_SUCCESS)
    return st;
  if (!clg__strides(o) &&
      (st = clg__check_tensor(ctx, "output", o, es, &of)) != CLG_SUCCESS)
    return st;
  /* Every index value, before anything is written (blocking). */
  clg_tensor shape_only = *d;
  shape_only.storage = CLG_STORAGE_HOST;
  shape_only.host = &somewhere;
  if ((st = clg__validate_dense(ctx, p, &shape_only, x, queue, num_events,
                                wait_list)) != CLG_SUCCESS)
    return st;
  int32_t r = d->rank, q = x->rank,
          a = (int32_t)(p->axis < 0 ? p->axis + r : p->axis);
  int64_t ds[CLG_MAX_RANK], ostr[CLG_MAX_RANK], xstr[CLG_MAX_RANK],
      src[CLG_MAX_RANK] = {0}, idx[CLG_MAX_RANK] = {0};
  if (clg__strides(d))
    memcpy(ds, clg__strides(d), sizeof ds);
  else
    clg__dense_strides(r, d->shape, ds);
  if (clg__strides(o))
    memcpy(ostr, clg__strides(o), sizeof ostr);
  else
    clg__dense_strides(o->rank, o->shape, ostr);
  clg__dense_strides(q, x->shape, xstr);
  for (int32_t i = 0; i < o->rank; ++i) {
    bool in_idx = i >= a && i < a + q;
    src[i] = in_idx ? 0 : ds[i < a ? i : i - q + 1];
    idx[i] = in_idx ? xstr[i - a] : 0;
  }
  clg_copy_layout l;
  clg__coalesce_dims(o->rank, o->shape, src, ostr, idx, &l);

  /* Host indices go to the device (they are few: the output is larger). */
  size_t isz = clg_dtype_size(x->dtype);
  cl_mem xm = x->buffer, own = NULL;
  size_t xoff = x->storage == CLG_STORAGE_BUFFER ? x->offset / isz : 0;
  if (x->storage == CLG_STORAGE_HOST) {
    size_t n = 1;
    for (int32_t i = 0; i < q; ++i)
      n *= (size_t)x->shape[i];
    cl_int err = CL_SUCCESS;
    own = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                         n * isz, x->host, &err);
    if (!own)
      return clg__fail_cl(err, "clCreateBuffer", "staging indices");
    xm = own;
  }
  static const char *const units[] = {"uchar", "ushort", NULL, "uint",
                                      NULL,    NULL,     NULL, "ulong"};
  size_t unit = es < 8 ? es : 8;
  size_t global[2], local[2];
  cl_ulong rows = 0;
  clg__strided_range(ctx, &l, global, local, &rows);
  char options[112];
  snprintf(options, sizeof options,
           "-DCLG_UNIT=%s -DCLG_PER=%zu -DCLG_INDEX=%s -DCLG_RANK=%d",
           units[unit - 1], es / unit, isz == 4 ? "int" : "long", l.rank);
  clg_kernel_entry *k = NULL;
  clg_outcome *decided = NULL;
  st = clg__get_kernel(ctx, clg_kernel_strided, options, "clg_strided_gather",
                       &k);
  if (st == CLG_SUCCESS && call->outcome)
    st = clg__outcome_decided(&decided);
  if (st == CLG_SUCCESS) {
    cl_long so = (cl_long)(d->offset / unit), dof = (cl_long)(o->offset / unit);
    cl_long xo = (cl_long)xoff, as = ds[a], an = d->shape[a];
    cl_long16 shape, ss, dd, xx;
    for (int i = 0; i < 16; ++i) {
      shape.s[i] = i < l.rank ? l.shape[i] : 1;
      ss.s[i] = i < l.rank ? l.src[i] : 0;
      dd.s[i] = i < l.rank ? l.dst[i] : 0;
      xx.s[i] = i < l.rank ? l.idx[i] : 0;
    }
    const void *values[] = {&d->buffer, &so,   &o->buffer, &dof, &xm, &xo, &as,
                            &an,        &rows, &shape,     &ss,  &dd, &xx};
    const size_t sizes[] = {
        sizeof(cl_mem), sizeof so, sizeof(cl_mem), sizeof dof,  sizeof(cl_mem),
        sizeof xo,      sizeof as, sizeof an,      sizeof rows, sizeof shape,
        sizeof ss,      sizeof dd, sizeof xx};
    st = clg__launch(k, queue, 13, sizes, values, 2, global, local, num_events,
                     wait_list, call->event);
    if (st == CLG_SUCCESS)
      atomic_fetch_add_explicit(&ctx->strided_gathers, 1, memory_order_relaxed);
  }
  if (own)
    clReleaseMemObject(own);
  if (st == CLG_SUCCESS && call->outcome)
    *call->outcome = decided;
  else
    clg_outcome_release(decided);
  return st;
}
