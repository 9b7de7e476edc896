/* The index-value pass of every operator: host indices scanned in place,
 * cl_mem indices read back or checked by the validation kernel. */
#include "run/run.h"
#include "device/quirks.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Mode RAISE reads every index value. Host indices are scanned in place
 * (clg__first_index_out_of_range). cl_mem indices are checked one of two
 * ways, chosen per call by clg__validate_on_device():
 *  - read-back: the whole array is read (blocking, after the wait list)
 *    into host memory and scanned there;
 *  - device: the validation kernel (kernels/validate.cl) reduces the array
 *    to one verdict per work-group (the group's first offending position and
 *    its value, or none), waiting for the wait list; the host reads those
 *    few bytes (blocking: the only host wait of the device-resident path).
 * In asynchronous checked mode (call.c) the verdict is not read here: the
 * gated gather kernel reads it on the device, and clg_outcome_wait() reads
 * it later (outcome.c).
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
 * sizes, so 32 KiB. A discrete GPU pays a bus transfer for the read-back
 * and a launch for the kernel; on an NVIDIA H200 (a standalone timing, 25
 * runs), at 32 KiB of int64 the read-back and scan took 33 us, the kernel
 * and its verdict's read 28-31 us: the crossover is about there too. */
#ifndef CLG_VALIDATE_DEVICE_MIN_BYTES
#define CLG_VALIDATE_DEVICE_MIN_BYTES ((size_t)32 << 10)
#endif
/* Work-group size of the validation kernel (lowered to the largest power of
 * two the device allows), indices per work-item before another work-group
 * is added (a CPU's one work-item per group scans CLG_VALIDATE_LOCAL times
 * as many), and the most work-groups (the verdict is 16 bytes per group).
 * Other devices: a few indices per work-item and many groups, so that the
 * whole device reads them (an NVIDIA H200 took ~200 us for 10^6 int64
 * indices with 256 per work-item: 62 groups of 64). */
#define CLG_VALIDATE_LOCAL 64
#define CLG_VALIDATE_PER_ITEM 256
#define CLG_VALIDATE_PER_ITEM_GPU 32
#define CLG_VALIDATE_MAX_GROUPS 1024

bool clg__validate_on_device(const clg_context *ctx, size_t bytes,
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
clg_status clg__check_host_index_values(const clg_checked *c,
                                        const clg_tensor *data,
                                        const clg_tensor *indices,
                                        const void *values) {
  int64_t s[CLG_MAX_RANK];
  size_t period = c->impl->bounds(&c->norm, data, indices, s);
  size_t pos = clg__first_index_out_of_range(
      values, c->xf.elem_size, c->xf.count, s, period, c->host_threads);
  if (pos == c->xf.count)
    return CLG_SUCCESS;
  return c->impl->report(&c->norm, data, indices, pos,
                         clg__index_at(values, c->xf.elem_size, pos));
}

/* Mode RAISE, cl_mem indices, read back whole and scanned on the host. */
static clg_status
clg_check_read_back(const clg_context *ctx, const clg_checked *c,
                    cl_command_queue queue,
                    const clg_tensor *data, const clg_tensor *indices,
                    cl_uint num_events, const cl_event *wait_list) {
  void *owned = CLG_MALLOC(c->xf.bytes);
  if (!owned)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "out of host memory reading back %zu bytes of indices",
                     c->xf.bytes);
  clg_status st = clg__read_buffer(queue, indices, c->xf.bytes, owned,
                                   num_events, wait_list,
                                   clg__poll_brief(ctx, c->xf.bytes),
                                   "reading back indices to check their "
                                   "bounds");
  if (st == CLG_SUCCESS)
    st = clg__check_host_index_values(c, data, indices, owned);
  free(owned);
  return st;
}

/* The verdict buffer: the flag word, then (position, value) per group, then
 * the operator's own words (device_plan()). */
static size_t clg_verdict_bytes(size_t groups, size_t extra) {
  return (1 + 2 * groups + extra) * sizeof(cl_ulong);
}

/* Zeros to initialise a verdict buffer from (CL_MEM_COPY_HOST_PTR): the flag
 * and the operator's words must start clear; the rest is written by the
 * kernel. */
static const cl_ulong
    clg_verdict_zeros[1 + 2 * CLG_VALIDATE_MAX_GROUPS + CLG_VERDICT_EXTRA];

/* The validation kernel's layout for these indices: its kernel, work-group
 * size, groups, indices per group and bounds. */
typedef struct clg_vlayout {
  clg_kernel_entry *kernel;
  size_t local, groups, chunk, period;
  int64_t s[CLG_MAX_RANK];
} clg_vlayout;

static clg_status clg_verdict_layout(clg_context *ctx, const clg_checked *c,
                                     const clg_tensor *data,
                                     const clg_tensor *indices,
                                     clg_vlayout *lay) {
  lay->period = c->impl->bounds(&c->norm, data, indices, lay->s);
  size_t isz = c->xf.elem_size, count = c->xf.count;

  /* CPU devices: one work-item per group, scanning contiguously (see
   * kernels/validate.cl); its branch-free test needs every bound <= 2^62. */
  bool contiguous = (clg__plan_device(ctx) & CL_DEVICE_TYPE_CPU) != 0;
  for (size_t j = 0; j < lay->period; ++j)
    contiguous = contiguous && lay->s[j] <= ((int64_t)1 << 62);
  size_t local = contiguous ? 1 : CLG_VALIDATE_LOCAL;
  while (ctx->max_work_group_size && local > ctx->max_work_group_size)
    local /= 2;
  size_t per_group = contiguous
                         ? CLG_VALIDATE_LOCAL * CLG_VALIDATE_PER_ITEM
                         : local * CLG_VALIDATE_PER_ITEM_GPU;
  size_t groups = count / per_group + (count % per_group != 0);
  if (groups > CLG_VALIDATE_MAX_GROUPS)
    groups = CLG_VALIDATE_MAX_GROUPS;
  size_t chunk = count / groups + (count % groups != 0);
  lay->groups = count / chunk + (count % chunk != 0);
  lay->chunk = chunk;
  lay->local = local;

  char options[96];
  snprintf(options, sizeof options, "-DCLG_INDEX=%s -DCLG_LOCAL=%zu",
           isz == 4 ? "int" : "long", local);
  return clg__get_kernel(ctx, clg_kernel_validate, options,
                         "clg_validate_indices", &lay->kernel);
}

clg_status clg__verdict_kernel(clg_context *ctx, const clg_checked *c,
                               const clg_tensor *data,
                               const clg_tensor *indices) {
  clg_vlayout lay;
  return clg_verdict_layout(ctx, c, data, indices, &lay);
}

/* A new verdict buffer of `bytes` into *res, its flag and the operator's
 * words clear. */
static clg_status clg_verdict_buffer(clg_context *ctx, size_t bytes,
                                     cl_mem *res) {
  cl_int err = CL_SUCCESS;
  *res = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        bytes, (void *)clg_verdict_zeros, &err);
  if (!*res)
    return clg__fail_cl(err, "clCreateBuffer",
                        "allocating the validation verdict of indices");
  return CLG_SUCCESS;
}

/* The validation kernel into `res` (a verdict buffer large enough for the
 * layout's groups, and clear where the verdict's readers need it). On
 * failure *v holds nothing and `res` is the caller's still. */
static clg_status clg_verdict_launch(clg_context *ctx, const clg_checked *c,
                                     cl_command_queue queue,
                                     const clg_vlayout *lay,
                                     const clg_tensor *indices,
                                     cl_uint num_events,
                                     const cl_event *wait_list, cl_mem res,
                                     clg_verdict *v) {
  size_t isz = c->xf.elem_size, count = c->xf.count, groups = lay->groups;
  size_t local = lay->local, period = lay->period, chunk = lay->chunk;
  const int64_t *s = lay->s;
  clg_status st;
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
  st = clg__launch(lay->kernel, queue, 7, sizes, values, 1, &global, &local,
                   num_events, wait_list, &v->event);
  if (st != CLG_SUCCESS)
    return st;
  atomic_fetch_add_explicit(&ctx->device_validations, 1, memory_order_relaxed);
  v->mem = res;
  v->groups = groups;
  v->poll = clg__poll_brief(ctx, c->xf.bytes);
  return CLG_SUCCESS;
}

static void clg_verdict_init(const clg_checked *c, cl_uint num_events,
                             clg_verdict *v) {
  v->mem = NULL;
  v->event = NULL;
  v->groups = 0;
  v->poll = false;
  v->extra = c->impl->device_plan ? CLG_VERDICT_EXTRA : 0;
  v->after_caller = num_events > 0;
}

clg_status clg__verdict_enqueue(clg_context *ctx, const clg_checked *c,
                                cl_command_queue queue, const clg_tensor *data,
                                const clg_tensor *indices, cl_uint num_events,
                                const cl_event *wait_list, clg_verdict *v) {
  clg_verdict_init(c, num_events, v);
  clg_vlayout lay;
  clg_status st = clg_verdict_layout(ctx, c, data, indices, &lay);
  if (st != CLG_SUCCESS)
    return st;
  cl_mem res;
  st = clg_verdict_buffer(ctx, clg_verdict_bytes(lay.groups, v->extra), &res);
  if (st != CLG_SUCCESS)
    return st;
  st = clg_verdict_launch(ctx, c, queue, &lay, indices, num_events, wait_list,
                          res, v);
  if (st != CLG_SUCCESS)
    clReleaseMemObject(res);
  return st;
}

clg_status clg__verdict_bare(clg_context *ctx, const clg_checked *c,
                             cl_uint num_events, clg_verdict *v) {
  clg_verdict_init(c, num_events, v);
  return clg_verdict_buffer(ctx, clg_verdict_bytes(0, v->extra), &v->mem);
}

void clg__verdict_release(clg_verdict *v) {
  if (v->mem)
    clReleaseMemObject(v->mem);
  if (v->event)
    clReleaseEvent(v->event);
  v->mem = NULL;
  v->event = NULL;
}

clg_status clg__verdict_read(const clg_verdict *v, cl_command_queue queue,
                             cl_ulong *pos, int64_t *value, cl_ulong *extra) {
  cl_ulong host[1 + 2 * CLG_VALIDATE_MAX_GROUPS + CLG_VERDICT_EXTRA];
  /* Waiting first turns a failed kernel (a failed event in the caller's
   * wait list) into an error: a blocking read that waits for a failed event
   * may never return (POCL). */
  /* That wait is one more round trip to the device; with no event of the
   * caller's behind the kernels, the blocking read after the verdict's
   * event is the only one. */
  cl_int err = v->after_caller ? clWaitForEvents(1, &v->event) : CL_SUCCESS;
  /* A driver may return from the wait, and from the blocking read after
   * it, without an error when the kernel was abandoned for a failed event
   * in its wait list (POCL 3.1's basic driver: the read then leaves `host`
   * as it was): each command's own status says whether it ran. */
  cl_int status = CL_COMPLETE;
  if (err == CL_SUCCESS && v->after_caller &&
      clGetEventInfo(v->event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                     sizeof status, &status, NULL) == CL_SUCCESS &&
      status < 0)
    err = status;
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clWaitForEvents",
                        "waiting for the validation verdict of indices");
  /* The read's own status matters only after the caller's events (see
   * above): a blocking read that returns CL_SUCCESS has completed, and an
   * event costs ~4 us of host time on an NVIDIA GPU. */
  memset(host, 0xA5, clg_verdict_bytes(v->groups, v->extra)); /* see below */
  const char *call = "clEnqueueReadBuffer";
  err = clg__read_wait(queue, v->mem, 0, clg_verdict_bytes(v->groups, v->extra),
                       host, 1, &v->event, v->after_caller, v->poll, &call);
  if (err == CL_SUCCESS && !v->after_caller &&
      clGetEventInfo(v->event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                     sizeof status, &status, NULL) == CL_SUCCESS &&
      status < 0) {
    err = status;
    call = "clEnqueueReadBuffer";
  }
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, call, "reading the validation verdict of indices");
  /* The flag word's first four bytes are 0 or 1 (the kernel's only store),
   * the next four 0. Anything else is the fill above: the read returned
   * without the data, as POCL 3.1's basic driver does when a failed event
   * in the caller's wait list cancelled the kernel and every status still
   * says complete. Never read a verdict that was not written. */
  uint32_t flag[2];
  memcpy(flag, host, sizeof flag);
  if (flag[0] > 1 || flag[1] != 0)
    return clg__fail(CLG_ERROR_OPENCL,
                     "reading the validation verdict of indices: the read "
                     "returned without its data (a command it waited for "
                     "did not run, most likely an event in the wait list "
                     "that failed; the driver reported no error)");
  *pos = CLG_VERDICT_NONE;
  *value = 0;
  /* The operator's words (kernels/scatter_index.cl): the first three hold
   * a 32-bit value in their first four bytes (OpenCL 1.2's atomics are
   * 32-bit), the last a 64-bit one. Read at their bytes, not as the low
   * half of a 64-bit word, so that the layout holds on a big-endian device
   * too (whose host shares its byte order: buffers hold raw index values
   * either way). */
  for (size_t i = 0; extra && i < CLG_VERDICT_EXTRA; ++i) {
    const cl_ulong *word = &host[1 + 2 * v->groups + i];
    uint32_t first = 0; /* the first four bytes */
    memcpy(&first, word, sizeof first);
    extra[i] = i >= v->extra ? 0 : i + 1 < CLG_VERDICT_EXTRA ? first : *word;
  }
  for (size_t g = 0; g < v->groups; ++g)
    if (host[1 + 2 * g] != CLG_VERDICT_NONE) {
      *pos = host[1 + 2 * g];
      *value = (int64_t)host[2 + 2 * g];
      break;
    }
  return CLG_SUCCESS;
}

/* The synchronous check's verdict buffer comes from the context
 * (ctx->verdict_spare, of the most groups' size) when the call has no wait
 * list (clg_check_on_device says why). On an NVIDIA H200, with a new
 * buffer per call (CL_MEM_COPY_HOST_PTR) and an event on the verdict's
 * read, W2's checked call (10^6 indices, 489 groups) took 187-280 us; with
 * the kept buffer and no such event, 111 us (one run, the two libraries
 * alternating; a standalone timing did not tell the two apart, so which of
 * them cost what is not known). Nothing clears it between calls: the flag
 * word, which a failed check leaves set, is read by gated kernels only
 * (they have buffers of their own), and every group writes its position
 * and value whatever it finds. One per context, taken under `lock`; a
 * thread that finds it taken makes one for its call. It is given back
 * once no kernel can write it any more (its event complete, or failed),
 * whatever the call's outcome, so the context's reference count does not
 * depend on which call failed; only if that cannot be known is it
 * released (the next call makes another). */
static clg_status clg_spare_take(clg_context *ctx, cl_mem *res,
                                 bool *owned) {
  clg_status st = CLG_SUCCESS;
  *res = NULL;
  pthread_mutex_lock(&ctx->lock);
  *owned = !ctx->verdict_taken;
  if (*owned && !ctx->verdict_spare)
    st = clg_verdict_buffer(ctx, clg_verdict_bytes(CLG_VALIDATE_MAX_GROUPS, 0),
                            &ctx->verdict_spare);
  if (*owned && st == CLG_SUCCESS) {
    *res = ctx->verdict_spare;
    ctx->verdict_taken = true;
  } else
    *owned = false;
  pthread_mutex_unlock(&ctx->lock);
  return st;
}

/* `done`: its verdict was read (the kernel has completed). */
static void clg_spare_give_back(clg_context *ctx, const clg_verdict *v,
                                bool done) {
  bool idle = done || !v->event;
  if (!idle) {
    /* Its kernel ran to an end: kept only if that end is known (complete
     * or failed), the wait's own result aside. */
    cl_int status = CL_COMPLETE;
    (void)clWaitForEvents(1, &v->event);
    idle = clGetEventInfo(v->event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                          sizeof status, &status, NULL) == CL_SUCCESS &&
           status <= CL_COMPLETE;
  }
  pthread_mutex_lock(&ctx->lock);
  ctx->verdict_taken = false;
  if (!idle) {
    clReleaseMemObject(ctx->verdict_spare);
    ctx->verdict_spare = NULL;
  }
  pthread_mutex_unlock(&ctx->lock);
}

/* Mode RAISE, cl_mem indices, checked by the validation kernel: the verdict
 * (with the offending value, when there is one) read back, blocking. */
static clg_status clg_check_on_device(clg_context *ctx, const clg_checked *c,
                                      cl_command_queue queue,
                                      const clg_tensor *data,
                                      const clg_tensor *indices,
                                      cl_uint num_events,
                                      const cl_event *wait_list) {
  clg_verdict v;
  clg_status st;
  bool spare = false;
  /* The context's buffer only where nothing of the caller's comes first:
   * a failed event in a wait list may cancel the kernel without a word
   * (POCL's basic driver), and a kept buffer would still hold the last
   * call's verdict where a new one holds none. The operator's words must
   * start clear: a buffer each. */
  if (c->impl->device_plan || num_events > 0)
    st = clg__verdict_enqueue(ctx, c, queue, data, indices, num_events,
                              wait_list, &v);
  else {
    clg_verdict_init(c, num_events, &v);
    clg_vlayout lay;
    st = clg_verdict_layout(ctx, c, data, indices, &lay);
    cl_mem res = NULL;
    if (st == CLG_SUCCESS)
      st = clg_spare_take(ctx, &res, &spare);
    if (st == CLG_SUCCESS && !spare) /* another thread holds it */
      st = clg_verdict_buffer(ctx, clg_verdict_bytes(lay.groups, v.extra),
                              &res);
    if (st == CLG_SUCCESS)
      st = clg_verdict_launch(ctx, c, queue, &lay, indices, num_events,
                              wait_list, res, &v);
    if (spare && st != CLG_SUCCESS)
      clg_spare_give_back(ctx, &v, true); /* no kernel was enqueued */
    else if (res && st != CLG_SUCCESS)
      clReleaseMemObject(res);
  }
  if (st != CLG_SUCCESS)
    return st;
  cl_ulong pos = 0;
  int64_t value = 0;
  st = clg__verdict_read(&v, queue, &pos, &value, NULL);
  if (spare) {
    clg_spare_give_back(ctx, &v, st == CLG_SUCCESS);
    v.mem = NULL; /* the context's */
  }
  clg__verdict_release(&v);
  if (st != CLG_SUCCESS || pos == CLG_VERDICT_NONE)
    return st;
  return c->impl->report(&c->norm, data, indices, (size_t)pos, value);
}

bool clg__values_on_device(const clg_checked *c, const clg_tensor *indices) {
  return c->norm.mode == CLG_MODE_RAISE && c->xf.count > 0 &&
         indices->storage == CLG_STORAGE_BUFFER;
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
  switch (clg__check_values_way(ctx, c, indices)) {
  case CLG_CHECK_HOST:
    return clg__check_host_index_values(c, data, indices, indices->host);
  case CLG_CHECK_DEVICE:
    return clg_check_on_device(ctx, c, queue, data, indices, num_events,
                               wait_list);
  case CLG_CHECK_READ_BACK:
    return clg_check_read_back(ctx, c, queue, data, indices, num_events,
                               wait_list);
  default:
    return CLG_SUCCESS;
  }
}

clg_status clg__verdict_status(const clg_op_impl *impl, const clg_params *norm,
                               const clg_tensor *data,
                               const clg_tensor *indices, cl_ulong pos,
                               int64_t value, const cl_ulong *extra) {
  if (pos != CLG_VERDICT_NONE)
    return impl->report(norm, data, indices, (size_t)pos, value);
  /* The repeat's words, 32-bit values (clg__verdict_read): the flag, the
   * complement of the later entry, the earlier entry; then the target.
   * Bit 1 of the flag: the operator's kernels met an index out of range
   * that no validation kernel located (checks_values(): the synchronous
   * call locates it before it comes here; found again here, the values
   * changed during the call). */
  if (extra && (extra[0] & 2u)) {
    char what[128];
    impl->describe(norm, what, sizeof what);
    return clg__fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                     "%s: an index was out of range when the index pass "
                     "read it, and in range when checked again: the "
                     "indices changed during the call (nothing was "
                     "written)",
                     what);
  }
  if (extra && extra[0] != 0 && impl->report_duplicate)
    return impl->report_duplicate(norm, data, indices, (size_t)extra[2],
                                  (size_t)(uint32_t)~(uint32_t)extra[1],
                                  (int64_t)extra[3]);
  return CLG_SUCCESS;
}
