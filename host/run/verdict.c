/* The verdict of the validation kernel on cl_mem indices: its buffer,
 * kept by the context between calls, its layout, the kernel's launch, its
 * read and what it says. The index pass (index_pass.c), a call's gated
 * kernels (call.c) and outcomes (outcome.c) use it.
 *
 * A verdict buffer is 64-bit words:
 *   word 0            the flag: its first four bytes 0, or 1 once a group
 *                     found an offender (the gated kernels read them:
 *                     kernels/prelude.cl's CLG_GATE); its next four the
 *                     number of the validation kernel's run (group 0
 *                     writes it), so that a read knows the words are
 *                     this run's and not a call's before it;
 *   words 1..4        the operator's own (a scatter's device schedule:
 *                     CLG_VERDICT_EXTRA), zeros at first;
 *   words 5..         a (position, value) pair per work-group, written by
 *                     every group whatever it finds.
 * The fixed places let one buffer serve any call: a buffer the context
 * keeps has its flag's first four bytes and the operator's words clear,
 * which is all a call needs of it at the start. */
#include "run/run.h"
#include "device/quirks.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Every buffer is of the largest verdict's size. */
#define CLG_VERDICT_WORDS (CLG_VERDICT_GROUPS_AT + 2 * CLG_VALIDATE_MAX_GROUPS)
#define CLG_VERDICT_BYTES (CLG_VERDICT_WORDS * sizeof(cl_ulong))

/* The bytes a read of a verdict of `groups` takes. */
static size_t clg_verdict_bytes(size_t groups) {
  return (CLG_VERDICT_GROUPS_AT + 2 * groups) * sizeof(cl_ulong);
}

/* Zeros to initialise a new verdict buffer from (CL_MEM_COPY_HOST_PTR). */
static const cl_ulong clg_verdict_zeros[CLG_VERDICT_WORDS];

/* A buffer the context kept whose last reader is done (its event complete
 * or failed), else a new one. A buffer is reused only once no command
 * that may read it is left: an asynchronous call's gated kernels read the
 * flag until they end, and a later call's validation may set it. */
static clg_status clg_verdict_take(clg_context *ctx, cl_mem *res) {
  cl_int err = CL_SUCCESS;
  *res = clg__kept_take(ctx, &ctx->verdicts, CLG_VERDICT_BYTES,
                        clg_verdict_zeros, &err);
  if (!*res)
    return clg__fail_cl(err, "clCreateBuffer",
                        "allocating the validation verdict of indices");
  return CLG_SUCCESS;
}

void clg__verdict_give(clg_context *ctx, clg_verdict *v, bool clean,
                       cl_event busy) {
  if (v->event)
    clReleaseEvent(v->event);
  v->event = NULL;
  clg__kept_give(ctx, &ctx->verdicts, v->mem, clean, busy);
  v->mem = NULL;
}

bool clg__verdict_clean(cl_ulong pos, const cl_ulong *extra) {
  if (pos != CLG_VERDICT_NONE)
    return false;
  for (size_t i = 0; extra && i < CLG_VERDICT_EXTRA; ++i)
    if (extra[i] != 0)
      return false;
  return true;
}

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
  bool contiguous = (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) != 0;
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

  char options[128];
  snprintf(options, sizeof options,
           "-DCLG_INDEX=%s -DCLG_LOCAL=%zu -DCLG_GROUPS_AT=%d",
           isz == 4 ? "int" : "long", local, (int)CLG_VERDICT_GROUPS_AT);
  return clg__get_kernel(ctx, clg_kernel_validate, options,
                         "clg_validate_indices", &lay->kernel);
}

clg_status clg__verdict_kernel(clg_context *ctx, const clg_checked *c,
                               const clg_tensor *data,
                               const clg_tensor *indices) {
  clg_vlayout lay;
  return clg_verdict_layout(ctx, c, data, indices, &lay);
}

cl_uint clg__verdict_next_gen(clg_context *ctx) {
  for (;;) {
    cl_uint gen = atomic_fetch_add_explicit(&ctx->verdict_gen, 1,
                                            memory_order_relaxed) +
                  1u;
    if (gen != 0 && gen != 0xA5A5A5A5u)
      return gen;
  }
}

/* The validation kernel into `res` (a verdict buffer, its flag and the
 * operator's words clear). On failure *v holds nothing and `res` is the
 * caller's still. */
static clg_status clg_verdict_launch(
    clg_context *ctx, const clg_checked *c, cl_command_queue queue,
    const clg_vlayout *lay, const clg_tensor *indices, cl_uint num_events,
    const cl_event *wait_list, cl_mem res, bool with_event, clg_verdict *v) {
  size_t isz = c->xf.elem_size, count = c->xf.count, groups = lay->groups;
  size_t local = lay->local, period = lay->period, chunk = lay->chunk;
  const int64_t *s = lay->s;
  clg_status st;
  cl_ulong x_off = indices->offset / isz, n = count, ch = chunk;
  cl_uint per = (cl_uint)period, gen = clg__verdict_next_gen(ctx);
  cl_ulong16 bounds;
  for (int j = 0; j < 16; ++j)
    bounds.s[j] = j < (int)period ? (cl_ulong)s[j] : 0;
  const void *values[] = {&indices->buffer, &x_off, &n,   &ch, &per,
                          &bounds,          &res,   &gen};
  const size_t sizes[] = {sizeof(cl_mem), sizeof x_off,  sizeof n,
                          sizeof ch,      sizeof per,    sizeof bounds,
                          sizeof(cl_mem), sizeof gen};
  size_t global = groups * local;
  st = clg__launch(lay->kernel, queue, 8, sizes, values, 1, &global, &local,
                   num_events, wait_list, with_event ? &v->event : NULL);
  if (st != CLG_SUCCESS)
    return st;
  atomic_fetch_add_explicit(&ctx->device_validations, 1, memory_order_relaxed);
  v->mem = res;
  v->groups = groups;
  v->gen = gen;
  v->poll = clg__read_polls(ctx, c->xf.bytes);
  return CLG_SUCCESS;
}

static void clg_verdict_init(const clg_checked *c, cl_uint num_events,
                             clg_verdict *v) {
  v->mem = NULL;
  v->event = NULL;
  v->groups = 0;
  v->gen = 0;
  v->poll = false;
  v->extra = c->impl->device_schedule ? CLG_VERDICT_EXTRA : 0;
  v->after_caller = num_events > 0;
}

clg_status clg__verdict_enqueue(clg_context *ctx, const clg_checked *c,
                                cl_command_queue queue, const clg_tensor *data,
                                const clg_tensor *indices, cl_uint num_events,
                                const cl_event *wait_list, bool with_event,
                                clg_verdict *v) {
  clg_verdict_init(c, num_events, v);
  clg_vlayout lay;
  clg_status st = clg_verdict_layout(ctx, c, data, indices, &lay);
  if (st != CLG_SUCCESS)
    return st;
  cl_mem res;
  if ((st = clg_verdict_take(ctx, &res)) != CLG_SUCCESS)
    return st;
  st = clg_verdict_launch(ctx, c, queue, &lay, indices, num_events, wait_list,
                          res, with_event, v);
  if (st != CLG_SUCCESS) /* no kernel was enqueued: as clean as it came */
    clg__verdict_give(ctx, &(clg_verdict){.mem = res}, true, NULL);
  return st;
}

clg_status clg__verdict_unlaunched(clg_context *ctx, const clg_checked *c,
                                   cl_uint num_events, clg_verdict *v) {
  clg_verdict_init(c, num_events, v);
  return clg_verdict_take(ctx, &v->mem);
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
  cl_ulong host[CLG_VERDICT_WORDS];
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
  memset(host, 0xA5, clg_verdict_bytes(v->groups)); /* see below */
  const char *call = "clEnqueueReadBuffer";
  err = clg__read_wait(queue, v->mem, 0, clg_verdict_bytes(v->groups), host,
                       v->event ? 1 : 0, v->event ? &v->event : NULL,
                       v->after_caller, v->poll, &call);
  if (err == CL_SUCCESS && !v->after_caller && v->event &&
      clGetEventInfo(v->event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                     &status, NULL) == CL_SUCCESS &&
      status < 0) {
    err = status;
    call = "clEnqueueReadBuffer";
  }
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, call, "reading the validation verdict of indices");
  /* The flag's first four bytes are 0 or 1 (the kernel's only store
   * there), the next four the run's number (a bare verdict's: whatever a
   * run before left). Anything else is the fill above, or words a run
   * before this one wrote: the read returned without this run's data, as
   * POCL 3.1's basic driver does when a failed event in the caller's wait
   * list cancelled the kernel and every status still says complete. Never
   * read a verdict that was not written. */
  uint32_t flag[2];
  memcpy(flag, host, sizeof flag);
  if (flag[0] > 1 || (v->gen && flag[1] != v->gen))
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
    const cl_ulong *word = &host[1 + i];
    uint32_t first = 0; /* the first four bytes */
    memcpy(&first, word, sizeof first);
    extra[i] = i >= v->extra ? 0 : i + 1 < CLG_VERDICT_EXTRA ? first : *word;
  }
  for (size_t g = 0; g < v->groups; ++g)
    if (host[CLG_VERDICT_GROUPS_AT + 2 * g] != CLG_VERDICT_NONE) {
      *pos = host[CLG_VERDICT_GROUPS_AT + 2 * g];
      *value = (int64_t)host[CLG_VERDICT_GROUPS_AT + 1 + 2 * g];
      break;
    }
  return CLG_SUCCESS;
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
