/* run/strided.c, strided_layout.c and strided_gather.c: strided tensors run
 * as the same call on dense ones, their layouts, and the Gather that reads
 * strided data in place;
 * run/bag_strided.c: EmbeddingBag's strided operands, on the same
 * machinery. Not installed. */
#ifndef CLGATHER_HOST_RUN_STRIDED_H
#define CLGATHER_HOST_RUN_STRIDED_H

#include "device/quirks.h"
#include "run/run.h"

/* The most operands a call has: data, indices, updates, output. */
#define CLG_OPERANDS (CLG_MAX_INPUTS + 1)
#define CLG_OUT CLG_MAX_INPUTS
/* Work-group size of the copy kernel's NDRange. */
#define CLG_STRIDED_LOCAL 64
/* The most events of a wait list the copies take one by one (a longer
 * one: a marker); an events array holds this many plus one per operand. */
#define CLG_STRIDED_WAITS 64

/* One operand as the dense call sees it. */
typedef struct clg_dense_operand {
  clg_tensor t;   /* the dense descriptor */
  void *host_tmp; /* ours: host memory the operand was packed into */
  cl_mem scratch; /* ours: a device buffer it was packed into */
  bool copy_back; /* an output computed into host_tmp or scratch */
  clg_strided_facts f;
} clg_dense_operand;

/* A layout to copy between: dims merged, in elements. */
typedef struct clg_copy_layout {
  int rank;
  int64_t shape[CLG_MAX_RANK], src[CLG_MAX_RANK], dst[CLG_MAX_RANK],
      idx[CLG_MAX_RANK];
} clg_copy_layout;

/* strided_layout.c: strides of the dense C-order tensor of `shape`. */
void clg__dense_strides(int32_t rank, const int64_t *shape, int64_t *strides);
/* Coalesce dimensions: drop those of size 1 and merge neighbours every
 * layout lays out alike; `idx` (NULL: none) is a third layout, the direct
 * Gather's index positions. */
void clg__coalesce_dims(int32_t rank, const int64_t *shape, const int64_t *src,
                        const int64_t *dst, const int64_t *idx,
                        clg_copy_layout *l);
/* The 2-D NDRange of kernels/strided.cl for layout l (rank >= 1 after
 * this), and its rows. */
void clg__strided_range(const clg_context *ctx, clg_copy_layout *l,
                        size_t *global, size_t *local, cl_ulong *rows_out);

/* The steps of a call with strided operands, for strided.c's calls and
 * bag_strided.c's:
 *
 * Check strided operand t (clg__check_strided(); a dense one: nothing) and
 * make o its dense stand-in, o->t: the same memory as a dense storage kind
 * (o zeroed first). */
clg_status clg__strided_operand(const clg_context *ctx, const char *name,
                                const clg_tensor *t, size_t elem_size,
                                bool is_output, clg_dense_operand *o);
/* The call's wait list as what the copies of inputs wait for: its events
 * retained into events[0 .. *nev), or one marker after all of them when
 * there are more than CLG_STRIDED_WAITS. */
clg_status clg__strided_wait_list(cl_command_queue queue, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *events,
                                  cl_uint *nev);
/* Give operand `orig` (stand-in o from clg__strided_operand()) dense memory
 * where its strides are not dense and it has elements: host memory (an
 * input copied in by a loop) or a scratch buffer (an input copied in by
 * the copy kernel after events[0 .. waits), its event appended at
 * events[*nev]); o->t then names that memory and, for an output,
 * o->copy_back is set. `name` is for messages. */
clg_status clg__strided_pack(clg_context *ctx, cl_command_queue queue,
                             const clg_tensor *orig, const char *name,
                             bool out, clg_dense_operand *o, cl_uint waits,
                             cl_event *events, cl_uint *nev);
/* Copy a packed output (o->copy_back) to the strided `output`'s elements:
 * from scratch by the copy kernel after `ran` (*done: its event, where not
 * NULL), or from host memory at once. */
clg_status clg__strided_copy_out(clg_context *ctx, cl_command_queue queue,
                                 const clg_tensor *output,
                                 const clg_dense_operand *o, cl_event ran,
                                 cl_event *done);
/* Free what the `count` operands own and release events[0 .. num). */
void clg__strided_release(clg_dense_operand *op, int count, cl_event *events,
                          cl_uint num);

/* embedding_bag.c's call on dense operands (clg__bag_run_dense, below):
 * what bag_strided.c runs the dense call with, given by embedding_bag.c,
 * which calls bag_strided.c (so that it does not call back). */
typedef clg_status (*clg_bag_dense_fn)(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *const *in,
    const clg_tensor *output, int64_t w_ld, int64_t o_ld,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event, clg_outcome **outcome);
/* bag_strided.c: does an EmbeddingBag call (inputs weight, indices, bags,
 * per_sample_weights; NULL: none) take a strided tensor? */
bool clg__bag_strided(const clg_tensor *const *in, const clg_tensor *output);
/* Run it as the same call on dense operands (by `dense_run`:
 * clg__bag_run_dense): checks the strided descriptors, reads a column-block
 * cl_mem weight and writes a column-block cl_mem output in place (their row
 * pitches), copies other inputs whose strides are not dense into dense memory,
 * and another output from dense memory after the call succeeded. `names`: the
 * inputs' names in messages. `outcome` NULL: the synchronous call. */
clg_status clg__bag_run_strided(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *const *in,
    const char *const *names, const clg_tensor *output, cl_command_queue queue,
    cl_uint num_events, const cl_event *wait_list, cl_event *event,
    clg_outcome **outcome, clg_bag_dense_fn dense_run);
/* embedding_bag.c: the call on dense operands (in[4] as above), the weight's
 * and the output's rows w_ld and o_ld elements apart (0: dim), for
 * cl_mem operands whose memory bag_strided.c has checked. */
clg_status clg__bag_run_dense(clg_context *ctx, const clg_bag_params *params,
                              const clg_tensor *const *in,
                              const clg_tensor *output, int64_t w_ld,
                              int64_t o_ld, cl_command_queue queue,
                              cl_uint num_events, const cl_event *wait_list,
                              cl_event *event, clg_outcome **outcome);

/* strided_gather.c: does the call's Gather read its data in place (the
 * rule is the comment there)? */
bool clg__direct_eligible(const clg_call *call, const clg_dense_operand *op);
/* Run it: checks the dense operands' memory, every index value (blocking),
 * then one kernel after the wait list; the call's event and outcome. */
clg_status clg__direct_gather(const clg_call *call, cl_command_queue queue,
                              const clg_dense_operand *op, cl_uint num_events,
                              const cl_event *wait_list);

#endif /* CLGATHER_HOST_RUN_STRIDED_H */
