/* Way HOST_RUN (run/strategy.c): a small gather of host memory on a CPU
 * device, run on the calling thread. Its index values are checked on the
 * host as every host call's are, then each slice of the output is copied
 * from the data slice the operator's slices() names: the bytes the
 * kernels write, without staging a buffer or enqueueing a command (a
 * kernel launch, its buffers and its wait cost such a call tens of
 * microseconds, its copy one: clgather.h, CLG_OPTION_HOST_RUN_BYTES). */
#include "run/run.h"

#include <stdlib.h>
#include <string.h>

clg_status clg__run_on_host(const clg_call *call, const clg_checked *c,
                            const clg_tensor_facts *of,
                            cl_command_queue queue) {
  clg_status st = CLG_SUCCESS;
  if (!call->values_checked &&
      (st = clg__check_index_values(call->ctx, c, queue, call->data,
                                    call->indices, 0, NULL)) != CLG_SUCCESS)
    return st;
  if (of->bytes) {
    size_t entries = 0;
    uint64_t inner = 0;
    c->impl->slices(&c->norm, call->data, call->indices, NULL, 0, &entries,
                    &inner, NULL);
    int64_t *pos = CLG_MALLOC((entries ? entries : 1) * sizeof *pos);
    if (!pos)
      return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                       "out of host memory placing %zu slices of a gather",
                       entries);
    c->impl->slices(&c->norm, call->data, call->indices, call->indices->host,
                    c->xf.elem_size, &entries, &inner, pos);
    size_t slice = (size_t)inner * c->df.elem_size;
    const unsigned char *from = call->data->host;
    unsigned char *to = call->output->host;
    for (size_t e = 0; e < entries; ++e)
      memcpy(to + e * slice, from + (size_t)pos[e] * slice, slice);
    free(pos);
  }
  /* The outcome first: a failure to make it leaves no event behind. */
  clg_outcome *outcome = NULL;
  if (call->outcome && (st = clg__outcome_decided(&outcome)) != CLG_SUCCESS)
    return st;
  if ((st = clg__marker(queue, 0, NULL, call->event,
                        "completing a gather run on the host")) !=
      CLG_SUCCESS) {
    clg_outcome_release(outcome);
    return st;
  }
  if (call->outcome)
    *call->outcome = outcome;
  return clg__ok();
}
