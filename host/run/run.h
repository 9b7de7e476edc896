/* run/: one call of the family from checks to kernels (call.c), the ways index values are checked (strategy.c), the index-value pass (index_pass.c), the validation kernel's verdict and the context's verdict buffers (verdict.c), outcomes (outcome.c), EmbeddingBag's call (embedding_bag.c) and plans (plans.c, bag_plans.c). Not installed. */
#ifndef CLGATHER_HOST_RUN_H
#define CLGATHER_HOST_RUN_H

#include "ops/embedding_bag.h"
#include "ops/gather_block_quantized.h"
#include "ops/op.h"

/* ---------------------------------------------------------- verdict.c */

/* A verdict of the validation kernel on cl_mem indices, on the device: a
 * buffer (verdict.c gives its layout: the flag word, the operator's words,
 * then a (position, value) pair per work-group) and the event of the
 * kernel that writes it. Its buffer is the context's: taken by
 * clg__verdict_enqueue() or clg__verdict_unlaunched(), given back by
 * clg__verdict_give(). */
typedef struct clg_verdict {
  cl_mem mem;
  size_t groups;
  size_t extra; /* the operator's own 64-bit words (its device_schedule():
                 * CLG_VERDICT_EXTRA) at CLG_VERDICT_EXTRA_AT, zeros at
                 * first */
  cl_event event;
  cl_uint gen; /* the validation kernel's run (0: none, a bare verdict) */
  /* The kernels behind the verdict waited for events of the caller's: a
   * failed one may cancel them without a word on some drivers, so the
   * verdict's event is waited for before its read (else the blocking read,
   * after that event, is the only wait). */
  bool after_caller;
  /* The verdict's read is polled (clg__read_polls: its event is the
   * validation kernel's, over few indices, on a CPU device). */
  bool poll;
} clg_verdict;

/* No offending position. */
#define CLG_VERDICT_NONE ((cl_ulong)0xFFFFFFFFFFFFFFFFull)
/* The 64-bit word of a verdict where the operator's words start (the
 * kernels of a scatter's device schedule take it as an argument). */
#define CLG_VERDICT_EXTRA_AT 1

/* Mode RAISE, cl_mem indices: enqueue the validation kernel (after the wait
 * list) into a verdict buffer of the context's. v->event is its event where
 * `with_event` (an outcome, commands after a wait list or on an
 * out-of-order queue wait for it), else NULL (an in-order queue runs what
 * follows after it, and a blocking read of the verdict waits for it). On
 * failure *v holds nothing. */
clg_status clg__verdict_enqueue(clg_context *ctx, const clg_checked *c,
                                cl_command_queue queue, const clg_tensor *data,
                                const clg_tensor *indices, cl_uint num_events,
                                const cl_event *wait_list, bool with_event,
                                clg_verdict *v);
/* A verdict buffer with no validation kernel behind it (no groups, no
 * event; its flag and the operator's words clear): for a device schedule whose
 * kernels check the index values themselves (clg_op_impl.checks_values). */
clg_status clg__verdict_unlaunched(clg_context *ctx, const clg_checked *c,
                                   cl_uint num_events, clg_verdict *v);
/* Read a verdict (blocking, on `queue`, after its event, or with none after
 * what the in-order `queue` ran before; a kernel that failed, e.g. for a
 * failed wait-list event, is an error): *pos is the first offending flat
 * position or CLG_VERDICT_NONE, *value its value; extra (NULL: not read)
 * the operator's CLG_VERDICT_EXTRA words. */
clg_status clg__verdict_read(const clg_verdict *v, cl_command_queue queue,
                             cl_ulong *pos, int64_t *value, cl_ulong *extra);
/* Does a verdict read as (pos, extra) leave its buffer as a call needs it
 * at the start (no offender, the operator's words clear; extra NULL: the
 * operator wrote none)? */
bool clg__verdict_clean(cl_ulong pos, const cl_ulong *extra);
/* What a read verdict says: CLG_SUCCESS, or the operator's report of the
 * first out-of-bounds index, or (device_schedule() words) of a repeat. */
clg_status clg__verdict_status(const clg_op_impl *impl, const clg_params *norm,
                               const clg_tensor *data,
                               const clg_tensor *indices, cl_ulong pos,
                               int64_t value, const cl_ulong *extra);
/* Give v's buffer back to the context and drop its event: kept for a later
 * call when `clean` (read, and clg__verdict_clean) and the context keeps
 * fewer than CLG_KEPT_SLOTS, reused once `busy` (the last command that
 * may read it; NULL: none left) has ended; else released. */
void clg__verdict_give(clg_context *ctx, clg_verdict *v, bool clean,
                       cl_event busy);
/* Drop v's references (buffer and event) without giving the buffer back:
 * for a verdict whose state is not known. */
void clg__verdict_release(clg_verdict *v);
/* The next number of a checks' run on ctx, which its kernel writes into
 * its verdict (the validation kernel's, EmbeddingBag's checks'): never 0
 * and never the 0xA5 fill of a read that returned without its data. */
cl_uint clg__verdict_next_gen(clg_context *ctx);
/* Get (building on first use) the validation kernel a verdict on these
 * indices uses: for plans baking. */
clg_status clg__verdict_kernel(clg_context *ctx, const clg_checked *c,
                               const clg_tensor *data,
                               const clg_tensor *indices);

/* ------------------------------------------------------- index_pass.c */

/* Mode RAISE: every one of the index values at `values` (host memory, the
 * indices' count of them) against the operator's bounds; an offender is
 * reported by the operator. */
clg_status clg__check_host_index_values(const clg_checked *c,
                                        const clg_tensor *data,
                                        const clg_tensor *indices,
                                        const void *values);

/* index_pass.c: the operator's mode rule, then (mode RAISE) every index
 * value, in place for host indices, on the device or read back for cl_mem
 * indices; an offender is reported by the operator. */
clg_status clg__check_index_values(clg_context *ctx, const clg_checked *c,
                                   cl_command_queue queue,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   cl_uint num_events,
                                   const cl_event *wait_list);

/* --------------------------------------------------------- strategy.c */

/* Are cl_mem indices of `bytes` (buffer `flags`) checked by the validation
 * kernel rather than read back? */
bool clg__validate_on_device(const clg_context *ctx, size_t bytes,
                             cl_mem_flags flags);
/* Does a synchronous call with cl_mem indices of `bytes` (buffer `flags`)
 * and a cl_mem output of `out_bytes` gate its kernels on the validation
 * kernel's verdict (GATED_READ) rather than check the indices first
 * (READ_BACK, DEVICE)? (strategy.c says what was measured.) */
bool clg__gate_sync(const clg_context *ctx, size_t bytes, cl_mem_flags flags,
                    uint64_t out_bytes);

/* Does the index-value pass of this call read cl_mem values (mode RAISE,
 * cl_mem indices with elements)? */
bool clg__values_on_device(const clg_checked *c, const clg_tensor *indices);

/* The ways a call's index values are checked (strategy.c's table says
 * when each applies, what it enqueues and how its verdict completes). */
typedef enum clg_check_way {
  CLG_CHECK_NONE = 0,
  CLG_CHECK_HOST,
  CLG_CHECK_READ_BACK,
  CLG_CHECK_DEVICE,
  CLG_CHECK_GATED,
  CLG_CHECK_HOST_SCHEDULE,
  CLG_CHECK_DEVICE_SCHEDULE,
  CLG_CHECK_GATED_READ,
  CLG_CHECK_HOST_RUN,
  CLG_CHECK_FUSED,
  CLG_CHECK_WAYS
} clg_check_way;

typedef struct clg_check_row {
  const char *name;
  bool gated;  /* the operator's kernels read the verdict on the device */
  bool blocks; /* the host waits for the device before the kernels */
  const char *what;
} clg_check_row;

/* The row of `way` (NULL when out of range). */
const clg_check_row *clg__check_row(clg_check_way way);
/* The way of a call (a pure function of its arguments and the context's
 * device facts; clg__run and clg__bake both ask it): `async` is the
 * asynchronous checked mode (or a plan baked for it), `values_checked`
 * the parts of a call whose values were checked whole. DEVICE_SCHEDULE
 * becomes HOST_SCHEDULE where the operator's device_schedule() declines. */
clg_check_way clg__check_way(const clg_context *ctx, const clg_checked *c,
                             const clg_tensor *indices,
                             const clg_tensor *output, bool async,
                             bool values_checked);
/* The synchronous value pass of an operator without an index schedule: NONE
 * (no value to read), HOST, READ_BACK or DEVICE. */
clg_check_way clg__check_values_way(const clg_context *ctx,
                                    const clg_checked *c,
                                    const clg_tensor *indices);

/* Does a synchronous or asynchronous call whose values are checked on the
 * host (way HOST or NONE) run on the calling thread (HOST_RUN,
 * run/host_run.c)? A gather (an operator with slices() and no index
 * plan), a CPU device, data, indices and output in host memory, no wait
 * list, an output of at most the context's CLG_OPTION_HOST_RUN_BYTES. */
/* Does a call that would gate and read after (GATED_READ) run the
 * operator's fused kernel instead (FUSED: one work-group checks and
 * gathers)? An operator with fused(), at most CLG_FUSED_MAX_INDICES
 * indices and CLG_FUSED_MAX_BYTES of output, neither empty. */
#define CLG_FUSED_MAX_INDICES 4096
#define CLG_FUSED_MAX_BYTES ((uint64_t)64 << 10)
bool clg__fused_applies(const clg_context *ctx, const clg_checked *c,
                        const clg_tensor_facts *of);
struct clg_call;
bool clg__host_run_applies(const clg_context *ctx, const clg_checked *c,
                           const struct clg_call *call,
                           const clg_tensor_facts *of);

/* EmbeddingBag's way (its checks cover the bags' values too): HOST (host
 * indices and bags, or none), READ_BACK (cl_mem ones the device cannot
 * check, or under the device threshold), DEVICE (checked first: a host
 * output, or after events of the caller's), GATED (asynchronous, cl_mem
 * output) or GATED_READ (synchronous, cl_mem output, no wait list). */
clg_check_way clg__bag_check_way(const clg_context *ctx, const clg_bag_geom *g,
                                 const clg_tensor *indices,
                                 const clg_tensor_facts *xf,
                                 const clg_tensor *bags,
                                 const clg_tensor_facts *bf,
                                 const clg_tensor *output, bool async,
                                 cl_uint num_events);

/* ------------------------------------------------------ call_checks.c */

/* ONNX Gather on axis 0: what NULL params mean. */
extern const clg_params clg__default_params;

/* One call of the family, as every entry point (clg_run, clg_run_async,
 * plans, shards) describes it to clg__run(). */
typedef struct clg_call {
  clg_context *ctx;
  const clg_params *params; /* NULL: Gather on axis 0 */
  union { /* the operator's inputs (CLG_IN_*); updates NULL for gathers */
    const clg_tensor *in[CLG_MAX_INPUTS];
    struct {
      const clg_tensor *data, *indices, *updates;
    };
  };
  const clg_tensor *output;
  bool is_scatter; /* clg_scatter(): the operator must be a scatter */
  const clg_scatter_params *scatter; /* scatters only; NULL: defaults */
  cl_command_queue queue; /* NULL: the context's own */
  cl_uint num_events;
  const cl_event *wait_list;
  cl_event *event;       /* may be NULL */
  clg_outcome **outcome; /* not NULL: asynchronous checked mode */
  bool values_checked;   /* index values already checked (shards) */
} clg_call;

/* "2.46 GiB (2641264640 bytes)"-style sizes for messages (split.c). */
void clg__size_text(char *buf, size_t cap, uint64_t bytes);
/* split.c: tables larger than one device allocation. Is a host tensor of
 * the checked call larger than the device's largest buffer? */
bool clg__split_needed(const clg_context *ctx, const clg_checked *c,
                       const clg_call *call, const clg_tensor_facts *of);
/* A runner of whole calls (clg__run): what split.c and strided.c run their
 * parts and dense stand-ins with, given by call.c, which calls them (so
 * that neither calls back into call.c). */
typedef clg_status (*clg_runner)(const clg_call *call);
/* Run the checked call in parts that fit (index values checked once
 * first; each part a call run by `run`), or fail naming the sizes and the
 * limit. Blocking. */
clg_status clg__run_split(const clg_call *call, const clg_checked *c,
                          const clg_tensor_facts *of, cl_command_queue queue,
                          clg_runner run);

/* strided.c: does the call take a strided tensor (clg_strided_tensor)? */
bool clg__call_strided(const clg_call *call);
/* Run a call with strided tensors as the same call on dense ones: checks
 * the strided descriptors, copies inputs whose strides are not dense into
 * dense scratch, runs the dense call by `run` (clg__run), copies a dense
 * scratch output to the strided one after it succeeded. */
clg_status clg__run_strided(const clg_call *call, clg_runner run);
/* call_checks.c: clg_validate() on dense tensors (api.c's clg_validate()
 * sends strided ones to clg__validate_strided(), which comes back here
 * with their dense stand-ins). */
clg_status clg__validate_dense(clg_context *ctx, const clg_params *params,
                               const clg_tensor *data,
                               const clg_tensor *indices,
                               cl_command_queue queue, cl_uint num_events,
                               const cl_event *wait_list);
/* clg_validate() with strided data or indices: data by its shape, strided
 * index values made dense on the host first. */
clg_status clg__validate_strided(clg_context *ctx, const clg_params *params,
                                 const clg_tensor *data,
                                 const clg_tensor *indices,
                                 cl_command_queue queue, cl_uint num_events,
                                 const cl_event *wait_list);

/* The names of the inputs in messages: "data", "indices", "updates". */
extern const char *const clg__input_names[CLG_MAX_INPUTS];

/* Is `out` exactly input `in`'s storage (the same bytes at the same place:
 * the same host pointer, or the same cl_mem and offset)? */
bool clg__same_storage(const clg_tensor *in, size_t in_bytes,
                       const clg_tensor *out, size_t out_bytes);

/* Do the operator's kernels read its output, not only write it? A scatter
 * with a reduction combines each update with the element it lands on (the
 * output is then staged read-write, and a caller's CL_MEM_WRITE_ONLY
 * output refused). The gathers and reduction none only write it. */
bool clg__reads_output(const clg_checked *c);

/* Every check clg_run() makes that reads no index value: inputs, params,
 * output, queue (resolved into *queue). */
clg_status clg__check_call(const clg_call *call, clg_checked *c,
                           clg_tensor_facts *of, cl_command_queue *queue);

/* The checks of clg__check_call() that need no memory, on plan templates
 * (plans.c): shapes, types, params (and, `scatter`: the scatter's
 * attributes and updates), sizes, the indices offset's alignment. No queue,
 * no wait list, no buffer is looked at. */
clg_status clg__check_templates(clg_context *ctx, const clg_params *params,
                                const clg_scatter_params *sc, bool scatter,
                                const clg_tensor *const *in,
                                const clg_tensor *output, clg_checked *c,
                                clg_tensor_facts *of);

/* Output shape of any operator: argument checks (NULL shapes, ranks, negative
 * dims, params) and then the operator's own rules; *norm gets the
 * normalised params. */
clg_status clg__output_shape(const clg_params *params, int32_t data_rank,
                             const int64_t *data_shape, int32_t indices_rank,
                             const int64_t *indices_shape, clg_params *norm,
                             int32_t *out_rank, int64_t *out_shape);

/* ------------------------------------------------------------- call.c */

/* The end of a call whose last command's event is *kevent: a host output
 * (host_out not NULL) read back from `out`, `bytes` of it, blocking, after
 * *kevent (which then becomes the read's event); else, where `blocking`
 * (host inputs), *kevent waited for. *done: *kevent known complete.
 * `output_name` and `call_name` word the messages ("reading the output
 * back to host memory", "waiting for the gather"). (call.c) */
clg_status clg__finish_call(cl_command_queue queue, cl_mem out, size_t bytes,
                            void *host_out, bool blocking, cl_event *kevent,
                            const char *output_name, const char *call_name,
                            bool *done);
/* Run a call: checks, index values, kernels (see clg_run, clg_run_async). */
clg_status clg__run(const clg_call *call);

/* ---------------------------------------------------------- host_run.c */

/* Way HOST_RUN (clg__host_run_applies): the checked call's index values
 * scanned in place (unless checked before), then its output written on
 * the calling thread from the operator's slices; an event asked for is a
 * marker on `queue`, an outcome is decided. */
clg_status clg__run_on_host(const clg_call *call, const clg_checked *c,
                            const clg_tensor_facts *of,
                            cl_command_queue queue);

/* Build every kernel a call with these checked tensors would need at the
 * tensors' offsets: validation in mode RAISE; the operator's kernels, gated
 * or not (`gated`: the asynchronous checked mode); for a scatter the
 * device's index pass where a call would take it, the copy of data unless
 * the templates already share storage, and the scatter's kernel. */
clg_status clg__bake(clg_context *ctx, const clg_checked *c,
                     const clg_tensor *const *in, const clg_tensor *output,
                     const clg_tensor_facts *of, bool gated);

/* ----------------------------------------------------------- outcome.c */

/* An outcome already decided (CLG_SUCCESS: nothing to read on the device). */
clg_status clg__outcome_decided(clg_outcome **out);
/* An outcome pending on verdict `v` (its event retained; its buffer taken
 * on success: the caller drops its v->mem then, and the outcome gives it
 * back to the context once read), for the call checked as `c` on ctx with
 * `data` and `indices`; `queue` (retained) is flushed before waiting. Made
 * before the call's kernels are enqueued. */
clg_status clg__outcome_pending(clg_context *ctx, const clg_checked *c,
                                const clg_tensor *data,
                                const clg_tensor *indices,
                                cl_command_queue queue, const clg_verdict *v,
                                clg_outcome **out);
/* The call's kernels are enqueued, `last` the event of the last
 * (retained): the verdict's buffer is reused only once it has ended, and
 * with `read_after` (a device schedule: its verdict is complete only then) the
 * verdict is read after it. */
void clg__outcome_enqueued(clg_outcome *o, cl_event last, bool read_after);

/* An outcome pending on the verdict of EmbeddingBag's checks on the device
 * (run/embedding_bag.c): `verdict` taken on success (a buffer of the
 * context's bag_verdicts, given back once read: the caller drops its
 * reference then), `gen` the checks' run number, `event` (the checks'
 * last kernel) retained, `g` copied; after_caller: the checks waited for
 * events of the caller's. */
clg_status clg__outcome_pending_bag(clg_context *ctx, cl_command_queue queue,
                                    cl_mem verdict, cl_uint gen,
                                    cl_event event, bool after_caller,
                                    const clg_bag_geom *g, clg_outcome **out);
/* Read the verdict of EmbeddingBag's checks (blocking, on `queue`, after
 * `event`, or with none after what the in-order `queue` ran before;
 * `poll`: polled first, clg__read_wait): its four 32-bit words and three
 * values (kernels/embedding_bag.cl); embedding_bag.c's synchronous call
 * reads it too. */
clg_status clg__bag_verdict_read(cl_mem verdict, cl_event event,
                                 bool after_caller, cl_uint gen,
                                 cl_command_queue queue, bool poll,
                                 uint32_t *words, int64_t *values);

/* ----------------------------------------------------- embedding_bag.c */

/* clg_embedding_bag() (outcome NULL) or clg_embedding_bag_async() (outcome
 * not NULL, not checked here), as its plans' enqueues run it too
 * (bag_plans.c): every check, the values, the reduction; clg__ok() on
 * success. */
clg_status clg__bag_call(clg_context *ctx, const clg_bag_params *params,
                         const clg_tensor *weight, const clg_tensor *indices,
                         const clg_tensor *bags,
                         const clg_tensor *per_sample_weights,
                         const clg_tensor *output, cl_command_queue queue,
                         cl_uint num_events, const cl_event *wait_list,
                         cl_event *event, clg_outcome **outcome);
/* The checks of clg__bag_call() that look at no memory, on a plan's
 * templates (host pointers and buffers unused): params, types,
 * descriptors, shapes, cl_mem offsets' alignment; no queue, wait list,
 * buffer or overlap. Fills *g. */
clg_status clg__bag_check_templates(clg_context *ctx,
                                   const clg_bag_params *params,
                                   const clg_tensor *weight,
                                   const clg_tensor *indices,
                                   const clg_tensor *bags,
                                   const clg_tensor *per_sample_weights,
                                   const clg_tensor *output, clg_bag_geom *g);
/* May a call with these (checked) indices and bags (NULL: none) check
 * their values on the device? cl_mem ones, entries to check, each below
 * 2^32 - 1. Whether it does then depends on the mode and the size
 * (embedding_bag.c's bag_on_device()); a plan's bake builds the checks
 * wherever it may. */
bool clg__bag_device_checkable(const clg_bag_geom *g, const clg_tensor *indices,
                               const clg_tensor *bags);

/* --------------------------------------------- gather_block_quantized.c */

/* clg_gather_block_quantized() (outcome NULL) or
 * clg_gather_block_quantized_async() (outcome not NULL, not checked
 * here), as its plans' enqueues run it too (gbq_plans.c): every check,
 * the values, the kernel; clg__ok() on success. */
clg_status clg__gbq_call(clg_context *ctx, const clg_gbq_params *params,
                         const clg_tensor *data, const clg_tensor *indices,
                         const clg_tensor *scales,
                         const clg_tensor *zero_points,
                         const clg_tensor *output, cl_command_queue queue,
                         cl_uint num_events, const cl_event *wait_list,
                         cl_event *event, clg_outcome **outcome);
/* The checks of clg__gbq_call() that look at no memory, on a plan's
 * templates (host pointers and buffers unused): params, types,
 * descriptors, shapes, cl_mem offsets' alignment; no queue, wait list,
 * buffer, overlap or device. Fills *g. */
clg_status clg__gbq_check_templates(
    clg_context *ctx, const clg_gbq_params *params, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *scales,
    const clg_tensor *zero_points, const clg_tensor *output, clg_gbq_geom *g);

/* ------------------------------------ plans.c, bag_plans.c, gbq_plans.c */

/* The kinds of plan: the family's (clg_plan_create(),
 * clg_plan_create_scatter(): plans.c's own) and those of the entry points
 * with a call of their own, whose plan holds a part of theirs
 * (bag_plans.c: EmbeddingBag's; gbq_plans.c: GatherBlockQuantized's). */
typedef enum clg_plan_kind {
  CLG_PLAN_FAMILY = 0,
  CLG_PLAN_BAG,
  CLG_PLAN_GBQ,
} clg_plan_kind;

/* plans.c: what every plan's creation checks first: out not NULL (*out set
 * to NULL), known flags. */
clg_status clg__plan_start(clg_plan **out, unsigned flags);
/* How plans.c bakes (clg_plan_bake(), under the plan's lock) and frees
 * (NULL: nothing) a plan's own part: its file gives them, so that
 * plans.c does not call into the files that call it. */
typedef struct clg_plan_part_fns {
  clg_status (*bake)(const void *part);
  void (*free)(void *part);
} clg_plan_part_fns;
/* plans.c: a new plan of `kind` holding `part` (taken: freed by fns.free
 * on failure). */
clg_status clg__plan_new_part(clg_context *ctx, unsigned flags,
                              clg_plan_kind kind, void *part,
                              clg_plan_part_fns fns, clg_plan **out);
/* plans.c: the part of `plan`, of `kind`, for an enqueue with `outcome`:
 * refuses a NULL plan, a plan of another kind (naming its entry point),
 * and an outcome the plan's flags do not call for (or a missing one). */
clg_status clg__plan_part(clg_plan *plan, clg_plan_kind kind,
                          clg_outcome **outcome, void **part);
/* plans.c: an enqueue's tensor against the plan's template: NULL, dtype,
 * shape, kind of memory (CLG_ERROR_NULL_ARGUMENT,
 * CLG_ERROR_DTYPE_MISMATCH, CLG_ERROR_SHAPE_MISMATCH,
 * CLG_ERROR_INVALID_ARGUMENT), `name` in the message. */
clg_status clg__plan_match(const char *name, const clg_tensor *t,
                           const clg_tensor *tmpl);
#endif /* CLGATHER_HOST_RUN_H */
