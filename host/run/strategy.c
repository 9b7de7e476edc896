/* How a call's index values are checked: one table of the ways, and the
 * pure functions that pick a row, used by a call (call.c: clg__run;
 * embedding_bag.c: EmbeddingBag's, whose checks cover its bags too) and
 * by a plan's baking (call.c: clg__bake) alike. A new way is a row here
 * and a case in clg__run() (and in EmbeddingBag's call where it applies). */
#include "run/run.h"

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

/* cl_mem indices of `bytes` (buffer `flags`) are checked on the device from
 * `min_bytes` up, or as the test build's environment forces it. */
static bool clg_on_device_from(size_t bytes, cl_mem_flags flags,
                               size_t min_bytes) {
  /* Indices the host may not read (CL_MEM_HOST_NO_ACCESS, ..._WRITE_ONLY)
   * can only be checked on the device. */
  if (flags & (CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_WRITE_ONLY))
    return true;
#if defined(CLGATHER_TESTING)
  int forced = clg__fi_device_validation();
  if (forced >= 0)
    return forced == 1;
#endif
  return bytes >= min_bytes;
}

bool clg__validate_on_device(const clg_context *ctx, size_t bytes,
                             cl_mem_flags flags) {
  (void)ctx;
  return clg_on_device_from(bytes, flags, CLG_VALIDATE_DEVICE_MIN_BYTES);
}

/* A synchronous call with cl_mem indices and output gates its kernels on
 * the validation kernel (GATED_READ) at every size: no round trip between
 * the check and the gather, one host wait. The referee on POCL 3.1 (AMD
 * EPYC Zen 3, two runs alternating with 00eca6b's library, which checked
 * first: read back under 32 KiB, else the validation kernel and its
 * verdict's read): W5 (10 indices) 1.11, 0.85 against 0.53, 0.52 of the
 * naive kernel + finish; W1 1.20, 1.15 against 1.21, 1.07; W4 1.29, 1.13
 * against 1.20, 1.22; W6 1.40, 1.35 against 1.35, 1.38; W2 (10^6 indices
 * of 16-byte rows) 0.96, 0.96 against 1.01, 1.06. The variants of a
 * gated call are timed once its verdict has passed (call.c, clg_retime):
 * untimed, the default had cost W2 0.64-0.68. */
bool clg__gate_sync(const clg_context *ctx, size_t bytes, cl_mem_flags flags,
                    uint64_t out_bytes) {
  (void)ctx;
#if defined(CLGATHER_TESTING)
  int forced = clg__fi_device_validation(); /* always: gated; never: read */
  if (forced >= 0)
    return forced == 1;
#endif
  (void)bytes;
  (void)flags;
  (void)out_bytes;
  return true; /* every size, every device, so far (see above) */
}

/* Does the index-value pass of this call read cl_mem values? */
bool clg__values_on_device(const clg_checked *c, const clg_tensor *indices) {
  return c->norm.mode == CLG_MODE_RAISE && c->xf.count > 0 &&
         indices->storage == CLG_STORAGE_BUFFER;
}

static const clg_check_row clg_check_table[CLG_CHECK_WAYS] = {
    [CLG_CHECK_NONE] = {"none", false, false,
                        "nothing to read: the values were checked before "
                        "(the parts of a split or sharded call), or mode WRAP "
                        "or CLIP (the operator's mode rule only), or no "
                        "index"},
    [CLG_CHECK_HOST] = {"host", false, false,
                        "host indices scanned in place before anything is "
                        "enqueued"},
    [CLG_CHECK_READ_BACK] = {"read-back", false, true,
                             "cl_mem indices under the device threshold, "
                             "a host output: read back (blocking, after "
                             "the wait list) and scanned on the host; then "
                             "the kernels"},
    [CLG_CHECK_DEVICE] = {"device", false, true,
                          "cl_mem indices from the threshold up, a host "
                          "output (or clg_validate()): the validation "
                          "kernel, its verdict read (blocking) before any "
                          "kernel of the operator is enqueued"},
    [CLG_CHECK_GATED] = {"gated", true, false,
                         "asynchronous checked mode, cl_mem output: the "
                         "validation kernel, the operator's kernels gated on "
                         "its verdict on the device; the outcome reads it"},
    [CLG_CHECK_GATED_READ] = {"gated, read after", true, false,
                              "a synchronous call, cl_mem indices and "
                              "output: the validation kernel, the "
                              "operator's kernels gated on its verdict, "
                              "then the verdict read after the last of "
                              "them (the call's one wait); the variants "
                              "the kernels could not time gated are timed "
                              "once it has passed"},
    [CLG_CHECK_HOST_RUN] = {"host run", false, false,
                            "a gather with host data, indices and output "
                            "on a CPU device, no wait list, an output of at "
                            "most CLG_OPTION_HOST_RUN_BYTES: the values "
                            "scanned in place, then the output copied on "
                            "the calling thread (run/host_run.c): no "
                            "kernel"},
    [CLG_CHECK_FUSED] = {"fused", true, false,
                         "a synchronous gather that would be gated, small "
                         "(clg__fused_applies): one kernel, one work-group, "
                         "checks every index and, all valid, writes the "
                         "output; its verdict read after it (the call's "
                         "one wait)"},
    [CLG_CHECK_HOST_SCHEDULE] =
        {"host schedule", false, true,
         "an operator with an index schedule (the "
         "scatters): values on the host (read back from "
         "a cl_mem), checked unless checked before, and "
         "scheduled; then the kernels"},
    [CLG_CHECK_DEVICE_SCHEDULE] =
        {"device schedule", true, false,
         "the scatters' schedule on the device (cl_mem "
         "indices and output): the validation kernel "
         "(none in a synchronous call whose schedule's "
         "kernels check the values: checks_values), "
         "the schedule's kernels and the operator's, "
         "gated; the verdict read after the last "
         "(synchronous) or by the outcome"},
};

/* The output's bytes, from the checked shape. */
static uint64_t clg_output_bytes(const clg_checked *c) {
  uint64_t n = c->df.elem_size;
  for (int32_t i = 0; i < c->out_rank; ++i)
    n *= (uint64_t)c->out_shape[i];
  return n;
}

const clg_check_row *clg__check_row(clg_check_way way) {
  return way >= 0 && way < CLG_CHECK_WAYS ? &clg_check_table[way] : NULL;
}

clg_check_way clg__check_values_way(const clg_context *ctx,
                                    const clg_checked *c,
                                    const clg_tensor *indices) {
  if (c->norm.mode != CLG_MODE_RAISE || c->xf.count == 0)
    return CLG_CHECK_NONE;
  if (indices->storage == CLG_STORAGE_HOST)
    return CLG_CHECK_HOST;
  return clg__validate_on_device(ctx, c->xf.bytes, c->xf.flags)
             ? CLG_CHECK_DEVICE
             : CLG_CHECK_READ_BACK;
}

clg_check_way clg__check_way(const clg_context *ctx, const clg_checked *c,
                             const clg_tensor *indices,
                             const clg_tensor *output, bool async,
                             bool values_checked) {
  bool on_device = clg__values_on_device(c, indices) && !values_checked;
  bool device_output = output->storage == CLG_STORAGE_BUFFER;
  if (c->impl->device_schedule && on_device && device_output &&
      (async || clg__validate_on_device(ctx, c->xf.bytes, c->xf.flags)))
    return CLG_CHECK_DEVICE_SCHEDULE; /* HOST_SCHEDULE where the operator
                                         declines */
  if (c->impl->index_schedule)
    return CLG_CHECK_HOST_SCHEDULE;
  if (values_checked)
    return CLG_CHECK_NONE;
  if (on_device && device_output && async)
    return CLG_CHECK_GATED;
  if (on_device && device_output &&
      clg__gate_sync(ctx, c->xf.bytes, c->xf.flags, clg_output_bytes(c)))
    return CLG_CHECK_GATED_READ;
  return clg__check_values_way(ctx, c, indices);
}

clg_check_way clg__bag_check_way(const clg_context *ctx, const clg_bag_geom *g,
                                 const clg_tensor *indices,
                                 const clg_tensor_facts *xf,
                                 const clg_tensor *bags,
                                 const clg_tensor_facts *bf,
                                 const clg_tensor *output, bool async,
                                 cl_uint num_events) {
  bool values_in_mem = (indices->storage == CLG_STORAGE_BUFFER && xf->bytes) ||
                       (bags && bags->storage == CLG_STORAGE_BUFFER &&
                        bf->bytes);
  if (!clg__bag_device_checkable(g, indices, bags))
    return values_in_mem ? CLG_CHECK_READ_BACK : CLG_CHECK_HOST;
  size_t bytes = xf->bytes + (bags ? bf->bytes : 0);
  cl_mem_flags flags = xf->flags | (bags ? bf->flags : 0);
  bool device_output = output->storage == CLG_STORAGE_BUFFER;
  if (device_output && async)
    return CLG_CHECK_GATED;
  /* As the gathers' (clg__run): after events of the caller's, checked
   * first. */
  uint64_t out_bytes = (uint64_t)g->num_bags * (uint64_t)g->dim *
                       clg_dtype_size(g->dtype);
  if (device_output && num_events == 0 &&
      clg__gate_sync(ctx, bytes, flags, out_bytes))
    return CLG_CHECK_GATED_READ;
  return clg__validate_on_device(ctx, bytes, flags) ? CLG_CHECK_DEVICE
                                                    : CLG_CHECK_READ_BACK;
}

bool clg__host_run_applies(const clg_context *ctx, const clg_checked *c,
                           const clg_call *call, const clg_tensor_facts *of) {
  if (!c->impl->slices || c->impl->index_schedule || c->num_inputs != 2 ||
      call->num_events > 0)
    return false;
  if (call->data->storage != CLG_STORAGE_HOST ||
      call->indices->storage != CLG_STORAGE_HOST ||
      call->output->storage != CLG_STORAGE_HOST)
    return false;
#if defined(CLGATHER_TESTING)
  int forced = clg__fi_host_run();
  if (forced >= 0)
    return forced == 1;
#endif
  /* A variant forced (CLGATHER_VARIANT) asks for its kernel. */
  int64_t most = atomic_load(&((clg_context *)ctx)->host_run_bytes);
  return (ctx->device_type & CL_DEVICE_TYPE_CPU) && most > 0 &&
         of->bytes <= (uint64_t)most && ctx->forced_variant < 0;
}

/* The thresholds (run.h) keep the one work-group's work small: its check
 * and copy are serial in steps of its work-group size, where two kernels
 * spread both over the device. W5 (10 int64 indices into [100, 64]
 * float32, 2.5 KiB out) on POCL 3.1, Zen 3: see docs/pipelines.md, "What
 * a call costs". */
bool clg__fused_applies(const clg_context *ctx, const clg_checked *c,
                        const clg_tensor_facts *of) {
  (void)ctx;
  if (!c->impl->fused || c->norm.mode != CLG_MODE_RAISE ||
      c->xf.count == 0 || of->bytes == 0)
    return false;
#if defined(CLGATHER_TESTING)
  int forced = clg__fi_fused();
  if (forced >= 0)
    return forced == 1;
#endif
  return c->xf.count <= CLG_FUSED_MAX_INDICES &&
         of->bytes <= CLG_FUSED_MAX_BYTES;
}
