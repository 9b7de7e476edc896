/* The index-value pass of every operator: host indices scanned in place,
 * cl_mem indices read back or checked by the validation kernel. */
#include "run/run.h"
#include "device/tune.h"

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
 *    few bytes (blocking) before anything else is enqueued.
 * Here that is the way of a call with a host output and of clg_validate();
 * a call with cl_mem indices and a cl_mem output does not come here: its
 * kernels are gated on the verdict on the device (call.c, strategy.c's
 * GATED_READ and GATED), which the call reads after them or
 * clg_outcome_wait() reads later (outcome.c).
 * Every way ends in the operator's report(pos, value): one message. The
 * gather kernel, enqueued later with the same wait list, needs no
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

/* Mode RAISE, cl_mem indices, checked by the validation kernel: the verdict
 * (with the offending value, when there is one) read back, blocking, before
 * anything else is enqueued: the way of clg_validate() and of a call whose
 * output the kernels may not leave unwritten (a host output's staging). The
 * verdict buffer is the context's (verdict.c): given back once read, kept
 * only when it is clear again. */
static clg_status clg_check_on_device(clg_context *ctx, const clg_checked *c,
                                      cl_command_queue queue,
                                      const clg_tensor *data,
                                      const clg_tensor *indices,
                                      cl_uint num_events,
                                      const cl_event *wait_list) {
  clg_verdict v;
  clg_status st = clg__verdict_enqueue(ctx, c, queue, data, indices,
                                       num_events, wait_list, true, &v);
  if (st != CLG_SUCCESS)
    return st;
  cl_ulong pos = 0;
  int64_t value = 0;
  st = clg__verdict_read(&v, queue, &pos, &value, NULL);
  clg__verdict_give(ctx, &v,
                    st == CLG_SUCCESS && clg__verdict_clean(pos, NULL), NULL);
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
