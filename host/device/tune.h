/* device/tune.c: kernel variants chosen by timing on the device. Not installed. */
#ifndef CLGATHER_HOST_DEVICE_TUNE_H
#define CLGATHER_HOST_DEVICE_TUNE_H

#include "device/enqueue.h"

/* ------------------------------------------------------------- tune.c */

/* The kernel variants of the family (an operator uses some of them). */
typedef enum clg_gather_variant {
  CLG_VARIANT_ROWS = 0,    /* one work-group row per output slice */
  CLG_VARIANT_SMALL = 1,   /* several short slices per work-item */
  CLG_VARIANT_ITEM = 2,    /* one work-item per slice (part), the slice
                            * length a build constant */
  CLG_VARIANT_ITEM_PF = 3, /* ITEM prefetching the slice of a later index */
  CLG_VARIANT_PLANE = 4,   /* one work-item per outer row, its plane
                            * prefetched first */
  CLG_VARIANT_BLOCK = 5,   /* a block of consecutive output slices
                            * (GatherElements: elements) per work-item */
  CLG_VARIANT_ITEM_NT = 6, /* ITEM with non-temporal (streaming) stores:
                            * outputs larger than the device's cache */
  CLG_VARIANT_COUNT
} clg_gather_variant;

/* "rows", "small", "item", "item_pf", "plane", "block", "item_nt". */
const char *clg__variant_name(int variant);
/* The variant named `name`, or -1. */
int clg__variant_parse(const char *name);

/* Measure one candidate: run `variant` once to completion; *seconds is its
 * wall time. A failure only means "not this one". */
typedef clg_status (*clg_trial_fn)(void *arg, int variant, double *seconds);

/* The variant to run for shape class `key` (a string naming the operator
 * and the class) out of `cands` (count >= 1, best guess first):
 *  - CLGATHER_VARIANT names a variant in `allowed` (a bit per variant: those
 *    that compute this call correctly on this device, candidates or not):
 *    that one (forced; tests run every variant this way);
 *  - a choice made before for `key` on this context, or stored in the
 *    on-disk cache for this device: that one (measured);
 *  - `trial` not NULL, several candidates, the context's CLG_OPTION_TUNE
 *    not CLG_TUNE_OFF (default: CLGATHER_TUNE not "off"), and either
 *    CLG_TUNE_FIRST_CALL or a call of `key` on the context before this one
 *    (CLG_TUNE_SECOND_CALL):
 *    each candidate is run by `trial` once untimed, then in up to
 *    CLG_TUNE_ROUNDS rounds of one run of each, every run from cold caches
 *    (clg__time_call; no round starts once the context's
 *    CLG_OPTION_TUNE_BUDGET_US is spent);
 *    the fastest by its best time is kept for `key` in the context and on
 *    disk (measured);
 *  - else cands[0], or the default an earlier call of `key` ran (kept in
 *    memory only, which tells the class's next call it is not the first).
 * *how tells which. Every candidate computes the same output, so the choice
 * changes speed only. Thread-safe. */
int clg__tune_pick(clg_context *ctx, const char *key, const int *cands,
                   int count, unsigned allowed, clg_trial_fn trial, void *arg,
                   clg_choice *how);
/* clg__tune_pick() for a launch that may be gated on a verdict not known
 * yet (`gated`): then no candidate is timed (a trial writes the output)
 * and *later tells whether clg__tune_pick() with `trial` would time them
 * now (the context's options, the class's record, CLG_TUNE_SECOND_CALL's
 * first call), so that a synchronous call may ask again, ungated, once its
 * verdict has passed. Ungated: clg__tune_pick(), *later false. */
int clg__tune_pick_gated(clg_context *ctx, const char *key, const int *cands,
                         int count, unsigned allowed, clg_trial_fn trial,
                         void *arg, bool gated, bool *later, clg_choice *how);
/* CLG_OPTION_TUNE_BUDGET_US's default: 0.2 s. */
#define CLG_TUNE_BUDGET_US_DEFAULT INT64_C(200000)
/* Outputs below this many bytes are not worth timing (a launch costs more
 * than any difference between variants): the first candidate runs. */
#define CLG_TUNE_MIN_BYTES ((size_t)1 << 20)

/* Record the variant a launch used (clg_context_last_variant). */
void clg__tune_note(clg_context *ctx, int variant, clg_choice how);
/* Free the context's choices. */
void clg__tune_release(clg_context *ctx);
/* A trial's body: evict the device's caches (a fill of the context's
 * tuning buffer, waited for, untimed), then launch `call` (ungated) on
 * `queue` after the wait list and wait for it; *seconds is the wall time
 * from enqueue to completion. */
clg_status clg__time_call(clg_context *ctx, const clg_kernel_call *call,
                          cl_command_queue queue, cl_uint num_events,
                          const cl_event *wait_list, double *seconds);
/* floor(log2(v)), 0 for v <= 1: shape classes in powers of two. */
unsigned clg__log2(uint64_t v);

#endif /* CLGATHER_HOST_DEVICE_TUNE_H */
