/* The index-value pass of every operator: host indices scanned in place,
 * cl_mem indices read back or checked by the validation kernel. */
#include "run/run.h"
#include "device/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Mode RAISE reads every index value. Host indices are scanned in place
 * (clg__first_index_out_of_range). cl_mem indices are checked one of two
 * ways, chosen per call by clg__validate_on_device() (strategy.c):
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
  clg_status st =
      clg__read_buffer(queue, indices, c->xf.bytes, owned, num_events,
                       wait_list, clg__read_polls(ctx, c->xf.bytes),
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
  clg_status st = clg__verdict_enqueue(ctx, c, queue, data, indices, num_events,
                                       wait_list, true, &v);
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
