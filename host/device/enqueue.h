/* device/enqueue.c: staging tensors as cl_mem, kernel calls, queues and wait lists. Not installed. */
#ifndef CLGATHER_HOST_DEVICE_ENQUEUE_H
#define CLGATHER_HOST_DEVICE_ENQUEUE_H

#include "device/programs.h"

/* ----------------------------------------------------------- enqueue.c */

/* A tensor made available to a kernel as a cl_mem: the caller's buffer, a
 * temporary one wrapping host memory in place (CL_MEM_USE_HOST_PTR, devices
 * with host-unified memory), or a temporary one holding a copy of it. */
typedef struct clg_staged {
  cl_mem mem;
  size_t offset;  /* bytes, within mem */
  size_t align;   /* the alignment to plan with: the tensor's first byte is
                   * aligned like this value (offset for a caller's buffer
                   * or a copy, the host address for wrapped memory) */
  bool temporary; /* mem is ours to release */
  bool wrapped;   /* mem is the caller's host memory (CL_MEM_USE_HOST_PTR):
                   * no command may still use it when the call returns */
} clg_staged;

/* Make a cl_mem for input `t` (`bytes` long, elements of `elem_size`): the
 * caller's buffer as is, or a new read-only buffer over host memory (wrapped
 * in place on host-unified devices when `may_wrap` and the pointer is
 * aligned to the element size, else initialised with a copy). `bytes` may
 * be 0. */
clg_status clg__stage_input(clg_context *ctx, const clg_tensor *t, size_t bytes,
                            size_t elem_size, bool may_wrap, const char *name,
                            clg_staged *out);
/* Make a cl_mem for output `t`: the caller's buffer, or a new buffer
 * (wrapping host memory in place as for inputs, else on the device) whose
 * content is read back into host memory after the kernel (a read into a
 * wrapped buffer's own memory only synchronises). Its flags are what the
 * kernels need: write-only when they only write it; `read` (the kernels
 * also read it: a scatter's reduction) read-write; `keep` (the output is
 * also an input, updated in place) read-write, starting with the host
 * content. */
clg_status clg__stage_output(clg_context *ctx, const clg_tensor *t,
                             size_t bytes, size_t elem_size, bool keep,
                             bool read, clg_staged *out);
void clg__unstage(clg_staged *s);

/* Read `bytes` of `mem` from `offset` into `dst` after the wait list, and
 * wait for the read: a blocking read, or with `poll` a read whose status is
 * polled for a while before a blocking wait (enqueue.c). CL_SUCCESS, an
 * error of the calls, or the read's negative status (`status`: checked on
 * every device; else where an event is made anyway, a polled read's), and
 * in *call the name of the OpenCL function that reported it. */
cl_int clg__read_wait(cl_command_queue queue, cl_mem mem, size_t offset,
                      size_t bytes, void *dst, cl_uint num_events,
                      const cl_event *wait_list, bool status, bool poll,
                      const char **call);
/* Whether to poll a read on ctx's device that waits for at most `bytes` of
 * work (a read of that many bytes, or a validation of that many bytes of
 * indices): on a CPU device, whose runtime's threads share the host's
 * cores, a blocking wait sleeps and its wake-up is the OS scheduler's; up
 * to CLG_BRIEF_BYTES (a read of a few microseconds; the validation kernel
 * about 35 us, POCL 3.1, Zen 3), where a polling thread does not hold a
 * core long from the runtime's threads running what it waits for. */
#define CLG_BRIEF_BYTES ((size_t)1 << 20)
bool clg__read_polls(const clg_context *ctx, size_t bytes);

/* Read `bytes` from a buffer tensor into `dst` after the wait list, and
 * wait for it (clg__read_wait). */
clg_status clg__read_buffer(cl_command_queue queue, const clg_tensor *t,
                            size_t bytes, void *dst, cl_uint num_events,
                            const cl_event *wait_list, bool poll,
                            const char *what);

/* Has the command of `event` ended (complete, or failed), or is there none
 * (NULL)? Asks without waiting. */
bool clg__event_ended(cl_event event);
/* A buffer of `bytes` (every buffer of `kept` is) from `kept` whose last
 * user has ended, else a new read-write one holding a copy of `init`; NULL
 * and *err on failure. */
cl_mem clg__kept_take(clg_context *ctx, clg_kept_buffers *kept, size_t bytes,
                      const void *init, cl_int *err);
/* `mem` (from clg__kept_take) back to `kept` when `clean` (as a call needs
 * it at its start) and a slot is free, to be reused once `busy` (the last
 * command that may use it; NULL: none runs any more) has ended; else
 * released. */
void clg__kept_give(clg_context *ctx, clg_kept_buffers *kept, cl_mem mem,
                    bool clean, cl_event busy);
/* Release what `kept` holds (the context's end). */
void clg__kept_release(clg_kept_buffers *kept);
/* A read-write buffer of at least `bytes` (1 if 0) for a call's own use,
 * *size bytes long: one the context kept from an earlier call (at most
 * twice as large; the last command that used it has ended), else a new
 * one; NULL and *err on failure. Scratch buffers made fresh at each call
 * had cost the scatters their pages' faults at every call. */
cl_mem clg__scratch_take(clg_context *ctx, size_t bytes, size_t *size,
                         cl_int *err);
/* `mem` (`size` bytes, from clg__scratch_take) back to the context: kept
 * for a later call when `keep` (the call knows which command uses it last:
 * `busy`, retained, NULL when none runs any more) and the context keeps
 * fewer than CLG_SCRATCH_SLOTS buffers and, with this one, at most
 * CLG_SCRATCH_KEEP_BYTES; else released. */
#define CLG_SCRATCH_KEEP_BYTES ((size_t)128 << 20)
void clg__scratch_give(clg_context *ctx, cl_mem mem, size_t size, bool keep,
                       cl_event busy);

/* A kernel launch set up by an operator's prepare(): the kernel, a copy of
 * its arguments (local-memory arguments by their size alone, a bit each in
 * local_args) and the NDRange. The arguments' bytes share one pool, each at
 * a multiple of 16 bytes (the most any kernel takes is about 350: two
 * ulong16 and a dozen scalars, ScatterElements' targets), so that a list of
 * CLG_MAX_CALLS calls takes about 14 KB of a caller's stack, not 45 (a
 * runtime's worker threads may have small stacks). */
#define CLG_MAX_KERNEL_ARGS 18
#define CLG_CALL_ARG_BYTES 512
typedef struct clg_kernel_call {
  clg_kernel_entry *kernel;
  cl_uint nargs;
  unsigned local_args; /* bit i: argument i is local memory of sizes[i] */
  bool too_big;        /* the arguments did not fit: launching fails */
  uint32_t sizes[CLG_MAX_KERNEL_ARGS];
  uint16_t at[CLG_MAX_KERNEL_ARGS]; /* argument i's offset in args */
  _Alignas(16) unsigned char args[CLG_CALL_ARG_BYTES];
  cl_uint work_dim;
  size_t global[3], local[3];
} clg_kernel_call;

/* Fill *call with kernel k, `nargs` arguments (sizes[i] bytes at values[i],
 * copied; values[i] NULL: local memory of sizes[i] bytes) and the NDRange;
 * `local` NULL lets the driver choose the work-group size. Arguments beyond
 * the pool (or more than CLG_MAX_KERNEL_ARGS) make clg__call_launch fail
 * with CLG_ERROR_INTERNAL. */
void clg__call_set(clg_kernel_call *call, clg_kernel_entry *k, cl_uint nargs,
                   const size_t *sizes, const void *const *values,
                   cl_uint work_dim, const size_t *global, const size_t *local);
/* Enqueue a prepared call; `verdict` (not NULL for a gated kernel) is
 * appended as the last argument. */
clg_status clg__call_launch(const clg_kernel_call *call, cl_command_queue queue,
                            cl_mem verdict, cl_uint num_events,
                            const cl_event *wait_list, cl_event *event);

/* The kernel calls an operator's prepare() sets up, run in order on one
 * queue, each after the one before (e.g. a copy of data into the output,
 * then the updates in target order, then the scatter). */
#define CLG_MAX_CALLS 20
typedef struct clg_kernel_calls {
  int count;
  clg_kernel_call call[CLG_MAX_CALLS];
} clg_kernel_calls;

/* Is `queue` in order (*in_order: its commands run one after the other, so
 * that a command need not wait for the event of the one before)?
 * CLG_SUCCESS, or the query's failure (*in_order false). */
clg_status clg__queue_in_order(cl_command_queue queue, bool *in_order);

/* The one launch loop of every operator's call: calls->call[0 ..
 * count-1] enqueued in order, the first after the wait list, each after the
 * one before (by its event, unless `in_order`: the caller knows the queue
 * is, clg__queue_in_order), each gated on `verdict` when not NULL. On
 * success *last is the last call's event where `want_last`, else NULL; on
 * failure, the event of the last call enqueued (or of a marker behind it;
 * NULL if none), for the caller to wait for before it lets go of memory
 * that call may use. An event costs: the NVIDIA H200 took 9.3 us to
 * enqueue a kernel with one and a few without (W5, 10 indices: the checked
 * call 34.5 us, a blocking read + a kernel + finish 21.5), so the last call
 * makes one only when asked. */
clg_status clg__calls_launch(const clg_kernel_calls *calls,
                             cl_command_queue queue, cl_mem verdict,
                             cl_uint num_events, const cl_event *wait_list,
                             bool in_order, bool want_last, cl_event *last);
/* A call with nothing to enqueue (an empty output, a scatter in place with
 * no entries): where `event` is not NULL, a marker after the wait list
 * sets it; `what` names the call in the message ("completing an empty
 * gather"). */
clg_status clg__marker(cl_command_queue queue, cl_uint num_events,
                       const cl_event *wait_list, cl_event *event,
                       const char *what);

/* Set `nargs` kernel arguments (sizes[i] bytes at values[i]) and enqueue the
 * NDRange under the kernel's lock. */
clg_status clg__launch(clg_kernel_entry *k, cl_command_queue queue,
                       cl_uint nargs, const size_t *sizes,
                       const void *const *values, cl_uint work_dim,
                       const size_t *global, const size_t *local,
                       cl_uint num_events, const cl_event *wait_list,
                       cl_event *event);

/* Check the event wait list arguments as OpenCL does. */
clg_status clg__check_wait_list(cl_uint num_events, const cl_event *wait_list);
/* CLG_ERROR_OPENCL when an event of the wait list has failed already
 * (checked again before each enqueue that waits for the list). */
clg_status clg__check_wait_failed(cl_uint num_events,
                                  const cl_event *wait_list);

#endif /* CLGATHER_HOST_DEVICE_ENQUEUE_H */
