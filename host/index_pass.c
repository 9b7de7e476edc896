/* The index-value pass of every operator: host indices scanned in place,
 * cl_mem indices read back or checked by the validation kernel. */
#include "internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* Mode RAISE reads every index value. Host indices are scanned in place
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

static bool clg_validate_on_device(const clg_context *ctx, size_t bytes,
                                   cl_mem_flags flags) {
  /* Indices the host may not read (CL_MEM_HOST_NO_ACCESS, ..._WRITE_ONLY)
   * can only be checked on the device. */
  if (flags & (CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_WRITE_ONLY))
    return true;
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
static clg_status
clg_check_read_back(const clg_checked *c, cl_command_queue queue,
                    const clg_tensor *data, const clg_tensor *indices,
                    cl_uint num_events, const cl_event *wait_list) {
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
  const void *values[] = {&indices->buffer, &x_off, &n, &ch, &per,
                          &bounds,          &res};
  const size_t sizes[] = {sizeof(cl_mem), sizeof x_off, sizeof n,
                          sizeof ch,      sizeof per,   sizeof bounds,
                          sizeof(cl_mem)};
  size_t global = groups * local;
  cl_event vev = NULL;
  st = clg__launch(kernel, queue, 7, sizes, values, 1, &global, &local,
                   num_events, wait_list, &vev);
  if (st != CLG_SUCCESS) {
    clReleaseMemObject(res);
    return st;
  }
  atomic_fetch_add_explicit(&ctx->device_validations, 1, memory_order_relaxed);
  err = clEnqueueReadBuffer(queue, res, CL_TRUE, 0, groups * sizeof verdict[0],
                            verdict, 1, &vev, NULL);
  clReleaseEvent(vev);
  if (err != CL_SUCCESS) {
    clReleaseMemObject(res);
    return clg__fail_cl(err, "clEnqueueReadBuffer",
                        "reading the validation verdict of indices");
  }
  size_t pos = count;
  for (size_t g = 0; g < groups && pos == count; ++g)
    if (verdict[g] < (cl_ulong)count)
      pos = (size_t)verdict[g];
  if (pos == count) {
    clReleaseMemObject(res);
    return CLG_SUCCESS;
  }
  /* Failure only: the one offending value, for the message. It is copied
   * into the verdict buffer first, so indices the host may not read
   * (CL_MEM_HOST_NO_ACCESS) are never read by the host. */
  unsigned char value[8] = {0};
  cl_event cev = NULL;
  err = clEnqueueCopyBuffer(queue, indices->buffer, res,
                            indices->offset + pos * isz, 0, isz, 0, NULL, &cev);
  if (err == CL_SUCCESS) {
    err =
        clEnqueueReadBuffer(queue, res, CL_TRUE, 0, isz, value, 1, &cev, NULL);
    clReleaseEvent(cev);
  }
  clReleaseMemObject(res);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clEnqueueCopyBuffer/clEnqueueReadBuffer",
                        "reading back an out-of-bounds value of indices");
  return c->impl->report(&c->norm, data, indices, pos,
                         clg__index_at(value, isz, 0));
}

/* The index-value pass: the operator's mode rule, then (mode RAISE) every
 * value, in place for host indices, on the device or read back for cl_mem
 * indices. */
clg_status clg__check_index_values(clg_context *ctx, const clg_checked *c,
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
  if (clg_validate_on_device(ctx, c->xf.bytes, c->xf.flags))
    return clg_check_on_device(ctx, c, queue, data, indices, num_events,
                               wait_list);
  return clg_check_read_back(c, queue, data, indices, num_events, wait_list);
}
