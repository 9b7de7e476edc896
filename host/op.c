/* The gather family's common path: parameter and argument checks, output
 * shape, the index-value pass, staging and the read-back, shared by every
 * operator. Each operator (gather.c, gather_elements.c, gather_nd.c) supplies
 * its shape rules, its index checks and its kernel launch (clg_op_impl). */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const clg_params clg_default_params = {CLG_OP_GATHER, 0, 0,
                                              CLG_MODE_RAISE};

/* The operator's implementation, after checking the fields it takes. */
static clg_status clg_check_params(const clg_params *p,
                                   const clg_op_impl **impl) {
  switch (p->op) {
  case CLG_OP_GATHER: *impl = &clg__op_gather; break;
  case CLG_OP_GATHER_ELEMENTS: *impl = &clg__op_gather_elements; break;
  case CLG_OP_GATHER_ND: *impl = &clg__op_gather_nd; break;
  default:
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown operator %d in params->op", (int)p->op);
  }
  if (p->mode != CLG_MODE_RAISE && p->mode != CLG_MODE_WRAP &&
      p->mode != CLG_MODE_CLIP)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "unknown index mode %d (expected CLG_MODE_RAISE, "
                     "CLG_MODE_WRAP or CLG_MODE_CLIP)",
                     (int)p->mode);
  if (p->op != CLG_OP_GATHER && p->mode != CLG_MODE_RAISE)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s takes no index mode (only RAISE): out-of-bounds "
                     "indices are errors",
                     (*impl)->name);
  if (p->op == CLG_OP_GATHER_ELEMENTS && p->batch_dims != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "GatherElements takes no batch_dims (got %" PRId64 ")",
                     p->batch_dims);
  if (p->op == CLG_OP_GATHER_ND && p->axis != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "GatherND takes no axis (got %" PRId64 ")", p->axis);
  return CLG_SUCCESS;
}

clg_status clg__normalize_batch_dims(int64_t batch_dims, int32_t indices_rank,
                                     int32_t *out) {
  if (batch_dims < -(int64_t)indices_rank || batch_dims > indices_rank)
    return clg__fail(CLG_ERROR_INVALID_BATCH_DIMS,
                     "batch_dims %" PRId64 " is out of range for indices of "
                     "rank %d: valid range is [%d, %d]",
                     batch_dims, (int)indices_rank, -(int)indices_rank,
                     (int)indices_rank);
  *out = (int32_t)(batch_dims < 0 ? batch_dims + indices_rank : batch_dims);
  return CLG_SUCCESS;
}

clg_status clg__check_batch_shapes(const char *op, int32_t b,
                                   const int64_t *data_shape,
                                   const int64_t *indices_shape) {
  for (int32_t i = 0; i < b; ++i)
    if (data_shape[i] != indices_shape[i])
      return clg__fail(CLG_ERROR_INCOMPATIBLE_SHAPES,
                       "%s with batch_dims %d: batch dimension %d differs, "
                       "data has %" PRId64 " and indices has %" PRId64,
                       op, (int)b, (int)i, data_shape[i], indices_shape[i]);
  return CLG_SUCCESS;
}

static clg_status clg_check_dims(const char *name, int32_t rank,
                                 const int64_t *shape) {
  if (rank < 0 || rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "%s has rank %d; ranks must be in [0, %d]", name,
                     (int)rank, CLG_MAX_RANK);
  for (int32_t i = 0; i < rank; ++i)
    if (shape[i] < 0)
      return clg__fail(CLG_ERROR_INVALID_SHAPE,
                       "%s has a negative dimension: shape[%d] = %" PRId64,
                       name, (int)i, shape[i]);
  return CLG_SUCCESS;
}

clg_status clg__output_shape(const clg_params *params, int32_t data_rank,
                             const int64_t *data_shape, int32_t indices_rank,
                             const int64_t *indices_shape, clg_params *norm,
                             int32_t *out_rank, int64_t *out_shape) {
  const clg_op_impl *impl = NULL;
  clg_status st = clg_check_params(params, &impl);
  if (st != CLG_SUCCESS)
    return st;
  if (data_rank < 1 || data_rank > CLG_MAX_RANK)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; %s needs data of rank in [1, %d]",
                     (int)data_rank, impl->name, CLG_MAX_RANK);
  if ((st = clg_check_dims("data", data_rank, data_shape)) != CLG_SUCCESS ||
      (st = clg_check_dims("indices", indices_rank, indices_shape)) !=
          CLG_SUCCESS)
    return st;
  *norm = *params;
  return impl->shape(params, data_rank, data_shape, indices_rank, indices_shape,
                     norm, out_rank, out_shape);
}

clg_status clg_output_shape(const clg_params *params, int32_t data_rank,
                            const int64_t *data_shape, int32_t indices_rank,
                            const int64_t *indices_shape, int32_t *out_rank,
                            int64_t *out_shape) {
  if (!data_shape)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data_shape is NULL");
  if (!indices_shape && indices_rank > 0)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                     "indices_shape is NULL but indices_rank is %d",
                     (int)indices_rank);
  if (!out_rank)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "out_rank is NULL");
  if (!out_shape)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "out_shape is NULL");
  clg_params norm;
  int64_t shape[CLG_MAX_RANK];
  int32_t rank = 0;
  clg_status st = clg__output_shape(params ? params : &clg_default_params,
                                    data_rank, data_shape, indices_rank,
                                    indices_shape, &norm, &rank, shape);
  if (st != CLG_SUCCESS)
    return st;
  for (int32_t i = 0; i < rank; ++i)
    out_shape[i] = shape[i];
  *out_rank = rank;
  return clg__ok();
}

/* Checked inputs of a call: the operator, normalised params, facts. */
typedef struct clg_checked {
  const clg_op_impl *impl;
  clg_params norm;
  clg_tensor_facts df, xf;
  int32_t out_rank;
  int64_t out_shape[CLG_MAX_RANK];
} clg_checked;

/* Arguments every entry point takes, then data, indices and params:
 * everything but index values and the output. */
static clg_status clg_check_inputs(clg_context *ctx, const clg_params *params,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   cl_uint num_events,
                                   const cl_event *wait_list, clg_checked *c) {
  if (!data)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "data is NULL");
  if (!indices)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  clg_status st = clg__check_wait_list(num_events, wait_list);
  if (st != CLG_SUCCESS)
    return st;
  if (!params)
    params = &clg_default_params;
  if ((st = clg_check_params(params, &c->impl)) != CLG_SUCCESS)
    return st;
  if ((st = clg__check_data_dtype("data", data->dtype)) != CLG_SUCCESS ||
      (st = clg__check_index_dtype(indices->dtype)) != CLG_SUCCESS)
    return st;
  if (data->rank < 1)
    return clg__fail(CLG_ERROR_INVALID_RANK,
                     "data has rank %d; %s needs data of rank >= 1",
                     (int)data->rank, c->impl->name);
  if ((st = clg__check_tensor(ctx, "data", data, clg_dtype_size(data->dtype),
                              &c->df)) != CLG_SUCCESS ||
      (st = clg__check_tensor(ctx, "indices", indices,
                              clg_dtype_size(indices->dtype), &c->xf)) !=
          CLG_SUCCESS)
    return st;
  if ((st = clg__output_shape(params, data->rank, data->shape, indices->rank,
                              indices->shape, &c->norm, &c->out_rank,
                              c->out_shape)) != CLG_SUCCESS)
    return st;
  if (indices->storage == CLG_STORAGE_BUFFER &&
      indices->offset % c->xf.elem_size != 0)
    return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "indices->offset %zu is not a multiple of the index size "
                     "%zu bytes",
                     indices->offset, c->xf.elem_size);
  return CLG_SUCCESS;
}

/* The output against checked inputs: type, shape, size, no aliasing. */
static clg_status clg_check_output(clg_context *ctx, const clg_checked *c,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   const clg_tensor *output,
                                   clg_tensor_facts *of) {
  if (output->dtype != data->dtype)
    return clg__fail(CLG_ERROR_DTYPE_MISMATCH,
                     "output has element type %s but data has %s; %s "
                     "output must have data's type",
                     clg_dtype_name(output->dtype), clg_dtype_name(data->dtype),
                     c->impl->name);
  clg_status st = clg__check_tensor(ctx, "output", output, c->df.elem_size, of);
  if (st != CLG_SUCCESS)
    return st;
  bool same = output->rank == c->out_rank;
  for (int32_t i = 0; same && i < c->out_rank; ++i)
    same = output->shape[i] == c->out_shape[i];
  if (!same) {
    char got[512], exp[512];
    clg__format_shape(got, sizeof got, output->rank, output->shape);
    clg__format_shape(exp, sizeof exp, c->out_rank, c->out_shape);
    if (c->norm.op == CLG_OP_GATHER_ND)
      return clg__fail(CLG_ERROR_SHAPE_MISMATCH,
                       "output has shape %s but GatherND with batch_dims "
                       "%" PRId64 " produces %s",
                       got, c->norm.batch_dims, exp);
    return clg__fail(CLG_ERROR_SHAPE_MISMATCH,
                     "output has shape %s but %s on axis %" PRId64
                     " produces %s",
                     got, c->impl->name, c->norm.axis, exp);
  }
  if ((st = clg__check_no_overlap("data", data, c->df.bytes, output,
                                  of->bytes)) != CLG_SUCCESS ||
      (st = clg__check_no_overlap("indices", indices, c->xf.bytes, output,
                                  of->bytes)) != CLG_SUCCESS)
    return st;
  return CLG_SUCCESS;
}

/* ------------------------------------------------ the index-value pass
 *
 * Mode RAISE reads every index value. Host indices are scanned in place
 * (clg__first_index_out_of_range). cl_mem indices are checked one of two
 * ways, chosen per call by clg_validate_on_device():
 *  - read-back: the whole array is read (blocking, after the wait list)
 *    into host memory and scanned there;
 *  - device: the validation kernel (kernels/validate.cl) reduces the array
 *    to one verdict per work-group (the group's first offending position,
 *    or none), waiting for the wait list; the host reads those few bytes
 *    (blocking: the only host wait of the device-resident path) and, only on
 *    failure, the single offending value.
 * Both end in the operator's report(pos, value): one message either way.
 * The gather kernel, enqueued later with the same wait list, needs no
 * dependency on the validation kernel: that one has completed (its verdict
 * was read) and both only read the indices. */

/* Device validation from this many index bytes up; below, the read-back.
 * Measured with a standalone timing of clg_validate() on cl_mem indices
 * (Gather, valid values; median of 15 calls, 7 from 16 MiB; both paths
 * forced through CLGATHER_TEST_DEVICE_VALIDATION) on POCL's CPU device
 * (2 shared cores, host-unified memory: the read-back is a malloc + memcpy,
 * then the vectorized host scan), microseconds, read-back / device:
 *   bytes     int32: rb    dev  ratio   int64: rb    dev  ratio
 *   1 KiB           11.1   15.7  0.71         11.7   16.8  0.70
 *   4 KiB           12.1   14.8  0.82         12.3   15.6  0.79
 *   16 KiB          14.6   15.6  0.94         15.1   15.4  0.98
 *   24 KiB          12.8   16.2  0.79         17.5   16.1  1.09
 *   32 KiB          18.3   16.2  1.13         19.2   15.9  1.21
 *   48 KiB          21.6   16.5  1.31         23.4   16.2  1.44
 *   64 KiB          24.4   16.8  1.45         29.4   16.5  1.78
 *   256 KiB         25.5   20.2  1.27         42.1   19.3  2.18
 *   1 MiB           70.4   35.7  1.97        143.4   32.9  4.37
 *   4 MiB          482.5  117.8  4.09        663.2  155.4  4.27
 *   16 MiB        2197.9  728.0  3.02       2664.0  320.4  8.31
 *   64 MiB       36299   1935   18.8       37499   1307   28.7
 * The kernel costs a near-constant ~15 us up to 64 KiB (launch + verdict
 * read); the read-back overtakes it between 16 and 32 KiB for both index
 * sizes, so 32 KiB. Devices without host-unified memory (discrete GPUs) pay
 * a bus transfer for the read-back and only a launch for the kernel: not
 * measured here, 32 KiB too (the transfer only moves the crossover down). */
#ifndef CLG_VALIDATE_DEVICE_MIN_BYTES
#define CLG_VALIDATE_DEVICE_MIN_BYTES ((size_t)32 << 10)
#endif
/* Work-group size of the validation kernel (lowered to the largest power of
 * two the device allows), indices per work-item before another work-group
 * is added, and the most work-groups (the verdict is 8 bytes per group). */
#define CLG_VALIDATE_LOCAL 64
#define CLG_VALIDATE_PER_ITEM 256
#define CLG_VALIDATE_MAX_GROUPS 256

static bool clg_validate_on_device(const clg_context *ctx, size_t bytes) {
#if defined(CLGATHER_TESTING)
  int forced = clg__fi_device_validation();
  if (forced >= 0)
    return forced == 1;
#endif
  (void)ctx;
  return bytes >= CLG_VALIDATE_DEVICE_MIN_BYTES;
}

/* Mode RAISE, host values: the first offender, reported by the operator. */
static clg_status clg_check_host_values(const clg_checked *c,
                                        const clg_tensor *data,
                                        const clg_tensor *indices,
                                        const void *values) {
  int64_t s[CLG_MAX_RANK];
  size_t period = c->impl->bounds(&c->norm, data, indices, s);
  size_t pos = clg__first_index_out_of_range(values, c->xf.elem_size,
                                             c->xf.count, s, period);
  if (pos == c->xf.count)
    return CLG_SUCCESS;
  return c->impl->report(&c->norm, data, indices, pos,
                         clg__index_at(values, c->xf.elem_size, pos));
}

/* Mode RAISE, cl_mem indices, read back whole and scanned on the host. */
static clg_status clg_check_read_back(const clg_checked *c,
                                      cl_command_queue queue,
                                      const clg_tensor *data,
                                      const clg_tensor *indices,
                                      cl_uint num_events,
                                      const cl_event *wait_list) {
  void *owned = CLG_MALLOC(c->xf.bytes);
  if (!owned)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory reading back %zu bytes of indices",
                     c->xf.bytes);
  clg_status st = clg__read_buffer(queue, indices, c->xf.bytes, owned,
                                   num_events, wait_list,
                                   "reading back indices to check their "
                                   "bounds");
  if (st == CLG_SUCCESS)
    st = clg_check_host_values(c, data, indices, owned);
  free(owned);
  return st;
}

/* Mode RAISE, cl_mem indices, checked by the validation kernel. */
static clg_status clg_check_on_device(clg_context *ctx, const clg_checked *c,
                                      cl_command_queue queue,
                                      const clg_tensor *data,
                                      const clg_tensor *indices,
                                      cl_uint num_events,
                                      const cl_event *wait_list) {
  int64_t s[CLG_MAX_RANK];
  size_t period = c->impl->bounds(&c->norm, data, indices, s);
  size_t isz = c->xf.elem_size, count = c->xf.count;

  /* CPU devices: one work-item per group, scanning contiguously (see
   * kernels/validate.cl); its branch-free test needs every bound <= 2^62. */
  bool contiguous = (ctx->device_type & CL_DEVICE_TYPE_CPU) != 0;
  for (size_t j = 0; j < period; ++j)
    contiguous = contiguous && s[j] <= ((int64_t)1 << 62);
  size_t local = contiguous ? 1 : CLG_VALIDATE_LOCAL;
  while (ctx->max_work_group_size && local > ctx->max_work_group_size)
    local /= 2;
  size_t per_group =
      (contiguous ? CLG_VALIDATE_LOCAL : local) * CLG_VALIDATE_PER_ITEM;
  size_t groups = count / per_group + (count % per_group != 0);
  if (groups > CLG_VALIDATE_MAX_GROUPS)
    groups = CLG_VALIDATE_MAX_GROUPS;
  size_t chunk = count / groups + (count % groups != 0);
  groups = count / chunk + (count % chunk != 0);

  char options[96];
  snprintf(options, sizeof options, "-DCLG_INDEX=%s -DCLG_LOCAL=%zu",
           isz == 4 ? "int" : "long", local);
  clg_kernel_entry *kernel = NULL;
  clg_status st = clg__get_kernel(ctx, clg_kernel_validate, options,
                                  "clg_validate_indices", &kernel);
  if (st != CLG_SUCCESS)
    return st;

  cl_ulong verdict[CLG_VALIDATE_MAX_GROUPS];
  cl_int err = CL_SUCCESS;
  cl_mem res = clCreateBuffer(ctx->cl_ctx, CL_MEM_WRITE_ONLY,
                              groups * sizeof verdict[0], NULL, &err);
  if (!res)
    return clg__fail_cl(err, "clCreateBuffer",
                        "allocating the validation verdict of indices");
  cl_ulong x_off = indices->offset / isz, n = count, ch = chunk;
  cl_uint per = (cl_uint)period;
  cl_ulong16 bounds;
  for (int j = 0; j < 16; ++j)
    bounds.s[j] = j < (int)period ? (cl_ulong)s[j] : 0;
  const void *values[] = {&indices->buffer, &x_off, &n,      &ch,
                          &per,             &bounds, &res};
  const size_t sizes[] = {sizeof(cl_mem), sizeof x_off,  sizeof n,
                          sizeof ch,      sizeof per,    sizeof bounds,
                          sizeof(cl_mem)};
  size_t global = groups * local;
  cl_event vev = NULL;
  st = clg__launch(kernel, queue, 7, sizes, values, 1, &global, &local,
                   num_events, wait_list, &vev);
  if (st != CLG_SUCCESS) {
    clReleaseMemObject(res);
    return st;
  }
  atomic_fetch_add_explicit(&ctx->device_validations, 1,
                            memory_order_relaxed);
  err = clEnqueueReadBuffer(queue, res, CL_TRUE, 0,
                            groups * sizeof verdict[0], verdict, 1, &vev,
                            NULL);
  clReleaseEvent(vev);
  clReleaseMemObject(res);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clEnqueueReadBuffer",
                        "reading the validation verdict of indices");
  size_t pos = count;
  for (size_t g = 0; g < groups && pos == count; ++g)
    if (verdict[g] < (cl_ulong)count)
      pos = (size_t)verdict[g];
  if (pos == count)
    return CLG_SUCCESS;
  /* Failure only: the one offending value, for the message. */
  unsigned char value[8] = {0};
  err = clEnqueueReadBuffer(queue, indices->buffer, CL_TRUE,
                            indices->offset + pos * isz, isz, value, 0, NULL,
                            NULL);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clEnqueueReadBuffer",
                        "reading back an out-of-bounds value of indices");
  return c->impl->report(&c->norm, data, indices, pos,
                         clg__index_at(value, isz, 0));
}

/* The index-value pass: the operator's mode rule, then (mode RAISE) every
 * value, in place for host indices, on the device or read back for cl_mem
 * indices. */
static clg_status clg_check_values(clg_context *ctx, const clg_checked *c,
                                   cl_command_queue queue,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   cl_uint num_events,
                                   const cl_event *wait_list) {
  clg_status st;
  if (c->impl->check_mode &&
      (st = c->impl->check_mode(&c->norm, data, c->xf.count)) != CLG_SUCCESS)
    return st;
  if (c->norm.mode != CLG_MODE_RAISE || c->xf.count == 0)
    return CLG_SUCCESS;
  if (indices->storage == CLG_STORAGE_HOST)
    return clg_check_host_values(c, data, indices, indices->host);
  if (clg_validate_on_device(ctx, c->xf.bytes))
    return clg_check_on_device(ctx, c, queue, data, indices, num_events,
                               wait_list);
  return clg_check_read_back(c, queue, data, indices, num_events, wait_list);
}

clg_status clg_validate(clg_context *ctx, const clg_params *params,
                        const clg_tensor *data, const clg_tensor *indices,
                        cl_command_queue queue, cl_uint num_events,
                        const cl_event *wait_list) {
  if (data && indices && !ctx &&
      (data->storage == CLG_STORAGE_BUFFER ||
       indices->storage == CLG_STORAGE_BUFFER))
    return clg__fail(CLG_ERROR_NULL_ARGUMENT,
                     "ctx is NULL, but data or indices is a cl_mem");
  clg_checked c;
  clg_status st =
      clg_check_inputs(ctx, params, data, indices, num_events, wait_list, &c);
  if (st != CLG_SUCCESS)
    return st;
  if (indices->storage == CLG_STORAGE_BUFFER &&
      (st = clg__resolve_queue(ctx, queue, &queue)) != CLG_SUCCESS)
    return st;
  if ((st = clg_check_values(ctx, &c, queue, data, indices, num_events,
                             wait_list)) != CLG_SUCCESS)
    return st;
  return clg__ok();
}

/* Nothing to copy: an event that completes after the wait list. */
static clg_status clg_run_empty(cl_command_queue queue, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event) {
  if (!event)
    return clg__ok();
  cl_int err = clEnqueueMarkerWithWaitList(queue, num_events, wait_list, event);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                        "completing an empty gather");
  return clg__ok();
}

/* Stage, enqueue the operator, bring a host output back, release. Host
 * storage makes the call blocking, so wrapped host memory (zero-copy
 * staging) is never used by a command after the call returns. */
static clg_status clg_run_kernels(clg_context *ctx, const clg_checked *c,
                                  clg_launch *l, cl_event *event) {
  clg_staged d = {0}, x = {0}, o = {0};
  clg_status st;
  /* OpenCL leaves buffers over overlapping host memory undefined: host
   * indices that overlap host data are copied, not wrapped. */
  bool x_may_wrap = true;
  if (l->data->storage == CLG_STORAGE_HOST &&
      l->indices->storage == CLG_STORAGE_HOST && c->df.bytes && c->xf.bytes) {
    uintptr_t d0 = (uintptr_t)l->data->host, x0 = (uintptr_t)l->indices->host;
    x_may_wrap = !(d0 < x0 + c->xf.bytes && x0 < d0 + c->df.bytes);
  }
  if ((st = clg__stage_input(ctx, l->data, c->df.bytes, c->df.elem_size, true,
                             "data", &d)) != CLG_SUCCESS ||
      (st = clg__stage_input(ctx, l->indices, c->xf.bytes, c->xf.elem_size,
                             x_may_wrap, "indices", &x)) != CLG_SUCCESS ||
      (st = clg__stage_output(ctx, l->output, l->of.bytes, l->of.elem_size,
                              &o)) != CLG_SUCCESS) {
    clg__unstage(&d);
    clg__unstage(&x);
    clg__unstage(&o);
    return st;
  }
  l->d = &d;
  l->x = &x;
  l->o = &o;
  bool blocking = l->data->storage == CLG_STORAGE_HOST ||
                  l->indices->storage == CLG_STORAGE_HOST ||
                  l->output->storage == CLG_STORAGE_HOST;
  cl_event kevent = NULL;
  st = c->impl->enqueue(ctx, &c->norm, l, &kevent);
  bool done = false; /* kevent known complete */
  if (st == CLG_SUCCESS && l->output->storage == CLG_STORAGE_HOST) {
    /* For a wrapped output this reads the buffer into its own host memory:
     * a synchronisation point only (no copy on POCL). */
    cl_event revent = NULL;
    cl_int err = clEnqueueReadBuffer(l->queue, o.mem, CL_TRUE, 0, l->of.bytes,
                                     l->output->host, 1, &kevent, &revent);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clEnqueueReadBuffer",
                        "reading the output back to host memory");
    else {
      clReleaseEvent(kevent);
      kevent = revent;
      done = true;
    }
  } else if (st == CLG_SUCCESS && blocking) {
    cl_int err = clWaitForEvents(1, &kevent);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clWaitForEvents", "waiting for the gather");
    done = err == CL_SUCCESS;
  }
  /* A failure after the kernel was enqueued: the kernel may still run on
   * the caller's wrapped host memory; it must not outlive the call. */
  if (st != CLG_SUCCESS && kevent && !done &&
      (d.wrapped || x.wrapped || o.wrapped))
    (void)clWaitForEvents(1, &kevent); /* best effort: the error stands */
  clg__unstage(&d);
  clg__unstage(&x);
  clg__unstage(&o);
  if (st != CLG_SUCCESS) {
    if (kevent)
      clReleaseEvent(kevent);
    return st;
  }
  if (event)
    *event = kevent;
  else
    clReleaseEvent(kevent);
  return clg__ok();
}

clg_status clg_run(clg_context *ctx, const clg_params *params,
                   const clg_tensor *data, const clg_tensor *indices,
                   const clg_tensor *output, cl_command_queue queue,
                   cl_uint num_events, const cl_event *wait_list,
                   cl_event *event) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  clg_checked c;
  clg_status st =
      clg_check_inputs(ctx, params, data, indices, num_events, wait_list, &c);
  if (st != CLG_SUCCESS)
    return st;
  if (!output)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  clg_launch l = {data, indices, output, c.df, c.xf,       {0, 0, 0},
                  NULL, NULL,    NULL,   NULL, num_events, wait_list};
  if ((st = clg_check_output(ctx, &c, data, indices, output, &l.of)) !=
          CLG_SUCCESS ||
      (st = clg__resolve_queue(ctx, queue, &l.queue)) != CLG_SUCCESS ||
      (st = clg_check_values(ctx, &c, l.queue, data, indices, num_events,
                             wait_list)) != CLG_SUCCESS)
    return st;
  if (l.of.bytes == 0)
    return clg_run_empty(l.queue, num_events, wait_list, event);
  return clg_run_kernels(ctx, &c, &l, event);
}

clg_status clg_gather_elements(clg_context *ctx, const clg_tensor *data,
                               const clg_tensor *indices, int64_t axis,
                               const clg_tensor *output, cl_command_queue queue,
                               cl_uint num_events, const cl_event *wait_list,
                               cl_event *event) {
  clg_params p = {CLG_OP_GATHER_ELEMENTS, axis, 0, CLG_MODE_RAISE};
  return clg_run(ctx, &p, data, indices, output, queue, num_events, wait_list,
                 event);
}

clg_status clg_gather_nd(clg_context *ctx, const clg_tensor *data,
                         const clg_tensor *indices, int64_t batch_dims,
                         const clg_tensor *output, cl_command_queue queue,
                         cl_uint num_events, const cl_event *wait_list,
                         cl_event *event) {
  clg_params p = {CLG_OP_GATHER_ND, 0, batch_dims, CLG_MODE_RAISE};
  return clg_run(ctx, &p, data, indices, output, queue, num_events, wait_list,
                 event);
}
