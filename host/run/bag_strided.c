/* EmbeddingBag's strided operands (clg_strided_tensor): clg_embedding_bag()
 * and clg_embedding_bag_async() with strided views run as the same call on
 * dense ones (run/embedding_bag.c's), on strided.c's machinery:
 *  - an operand whose strides are those of the dense tensor is that
 *    tensor, at no cost;
 *  - a cl_mem weight or output whose rows are contiguous (a column block
 *    of a larger matrix: column stride 1, a row stride of at least dim)
 *    is read or written in place, the kernel taking its row pitch; the
 *    output only where its bytes lie apart from every input read in place;
 *  - any other input is copied into dense memory first (the copy kernel,
 *    or a loop for host memory), any other output computed into dense
 *    memory and copied to its elements once the call has succeeded; in
 *    the asynchronous mode such a cl_mem output makes the call check the
 *    values before it returns (the copy cannot be gated).
 * Every value is checked before anything is written, as for dense
 * tensors. */
#include "ops/embedding_bag.h"
#include "run/strided.h"

#include <string.h>

enum { BAG_IN = 4, BAG_OUT = 4, BAG_OPS = 5 };

bool clg__bag_strided(const clg_tensor *const *in, const clg_tensor *output) {
  for (int k = 0; k < BAG_IN; ++k)
    if (in[k] && clg__strides(in[k]))
      return true;
  return output && clg__strides(output);
}

/* One operand: its stand-in (op.t), its facts where dense, and how it is
 * seen by the dense call. */
typedef struct bag_operand {
  const clg_tensor *orig;
  clg_dense_operand op;
  clg_tensor_facts facts; /* a dense operand's (clg__check_tensor()) */
  bool pitched;           /* read or written in place with a row pitch */
} bag_operand;

/* A cl_mem operand's bytes, from the lowest element to past the highest:
 * false where it has none. */
static bool bag_span(const bag_operand *b, size_t *lo, size_t *hi) {
  const clg_tensor *t = b->orig;
  if (!clg__strides(t)) {
    *lo = t->offset;
    *hi = t->offset + b->facts.bytes;
    return t->storage == CLG_STORAGE_BUFFER && b->facts.bytes;
  }
  size_t es = b->op.f.dense.elem_size;
  *lo = t->offset - (size_t)(-b->op.f.lo) * es;
  *hi = t->offset + (size_t)(b->op.f.hi + 1) * es;
  return t->storage == CLG_STORAGE_BUFFER_STRIDED && b->op.f.dense.count;
}

static bool bag_apart(const bag_operand *a, const bag_operand *b) {
  size_t a0, a1, b0, b1;
  if (!bag_span(a, &a0, &a1) || !bag_span(b, &b0, &b1) ||
      a->orig->buffer != b->orig->buffer)
    return true;
  return a1 <= b0 || b1 <= a0;
}

/* Is this strided cl_mem [rows, dim] operand's row pitch one the kernel
 * can take: rows contiguous (column stride 1, or one column), a row stride
 * of at least dim (a column block; the dense call's checks then hold for
 * the dense tensor at the same place)? */
static bool bag_pitch_ok(const bag_operand *b) {
  const clg_tensor *t = b->orig;
  const int64_t *s = clg__strides(t);
  return s && t->storage == CLG_STORAGE_BUFFER_STRIDED && t->rank == 2 &&
         !b->op.f.dense_order && b->op.f.dense.count > 0 &&
         (s[1] == 1 || t->shape[1] == 1) && s[0] >= t->shape[1];
}

/* Read or written where it is, with no copy (dense, in dense order, or
 * pitched)? */
static bool bag_in_place(const bag_operand *b) {
  return !clg__strides(b->orig) || b->op.f.dense_order ||
         b->op.f.dense.count == 0 || b->pitched;
}

/* The checks that read no value: the dense call's, on the stand-ins, plus
 * the strided descriptors' own (clg__check_strided()). */
static clg_status bag_check(clg_context *ctx, const clg_bag_params *params,
                            const char *const *names, cl_uint num_events,
                            const cl_event *wait_list, bag_operand *b) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  if (!b[0].orig)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "weight is NULL");
  if (!b[1].orig)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  if (!b[BAG_OUT].orig)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  clg_status st = clg__check_wait_list(num_events, wait_list);
  if (st == CLG_SUCCESS)
    st = clg__bag_check_types(params, b[0].orig, b[1].orig, b[2].orig,
                              b[3].orig, b[BAG_OUT].orig);
  for (int k = 0; k < BAG_OPS && st == CLG_SUCCESS; ++k) {
    const clg_tensor *t = b[k].orig;
    if (!t)
      continue;
    const char *name = k == BAG_OUT ? "output" : names[k];
    size_t es = clg_dtype_size(t->dtype);
    if (clg__strides(t)) {
      st = clg__strided_operand(ctx, name, t, es, k == BAG_OUT, &b[k].op);
      continue;
    }
    b[k].op.t = *t;
    st = clg__check_tensor(ctx, name, t, es, &b[k].facts);
    if (st == CLG_SUCCESS && t->storage == CLG_STORAGE_BUFFER &&
        t->offset % es)
      st = clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                     "%s->offset is %zu bytes, not a multiple of its element "
                     "size %zu",
                     name, t->offset, es);
  }
  if (st != CLG_SUCCESS)
    return st;
  clg_bag_geom g;
  return clg__bag_check_shapes(params, &b[0].op.t, &b[1].op.t,
                               b[2].orig ? &b[2].op.t : NULL,
                               b[3].orig ? &b[3].op.t : NULL,
                               &b[BAG_OUT].op.t, &g);
}

/* Which of the weight and the output are read or written in place with
 * their row pitch. The weight, unless an output written in place (not
 * pitched: dense, or in dense order) shares its bytes; then the output,
 * unless the weight is host memory or it shares bytes with an input read
 * in place. */
static void bag_choose_pitches(bag_operand *b) {
  bag_operand *w = &b[0], *o = &b[BAG_OUT];
  w->pitched = bag_pitch_ok(w) && (!bag_in_place(o) || bag_apart(w, o));
  /* A host weight may be too large for one buffer, and run/bag_split.c's
   * groups write dense output rows: its output goes through scratch. */
  if (!bag_pitch_ok(o) || w->orig->storage == CLG_STORAGE_HOST ||
      w->orig->storage == CLG_STORAGE_HOST_STRIDED)
    return;
  o->pitched = true;
  for (int k = 0; k < BAG_IN; ++k)
    if (b[k].orig && bag_in_place(&b[k]) && !bag_apart(&b[k], o))
      o->pitched = false;
}

clg_status clg__bag_run_strided(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *const *in,
    const char *const *names, const clg_tensor *output, cl_command_queue queue,
    cl_uint num_events, const cl_event *wait_list, cl_event *event,
    clg_outcome **outcome, clg_bag_dense_fn dense_run) {
  bag_operand b[BAG_OPS];
  memset(b, 0, sizeof b);
  for (int k = 0; k < BAG_IN; ++k)
    b[k].orig = in[k];
  b[BAG_OUT].orig = output;
  clg_status st = bag_check(ctx, params, names, num_events, wait_list, b);
  cl_command_queue q = NULL;
  if (st == CLG_SUCCESS)
    st = clg__resolve_queue(ctx, queue, &q);
  if (st != CLG_SUCCESS)
    return st;
  bag_choose_pitches(b);

  /* Inputs into dense memory, the output from it, where not in place. */
  clg_dense_operand op[BAG_OPS];
  for (int k = 0; k < BAG_OPS; ++k)
    op[k] = b[k].op;
  cl_event events[BAG_OPS + CLG_STRIDED_WAITS];
  cl_uint nev = 0;
  st = clg__strided_wait_list(q, num_events, wait_list, events, &nev);
  const cl_uint waits = nev;
  for (int k = 0; k < BAG_OPS && st == CLG_SUCCESS; ++k)
    if (b[k].orig && !b[k].pitched)
      st = clg__strided_pack(ctx, q, b[k].orig,
                             k == BAG_OUT ? "output" : names[k], k == BAG_OUT,
                             &op[k], waits, events, &nev);
  if (st != CLG_SUCCESS) {
    clg__strided_release(op, BAG_OPS, events, nev);
    return st;
  }

  /* The dense call. An output copied from scratch cannot be gated on an
   * asynchronous verdict: the values are checked now. */
  const clg_dense_operand *out = &op[BAG_OUT];
  bool device_back = out->copy_back && out->scratch;
  const clg_tensor *dense[BAG_IN];
  for (int k = 0; k < BAG_IN; ++k)
    dense[k] = in[k] ? &op[k].t : NULL;
  int64_t w_ld = b[0].pitched ? clg__strides(in[0])[0] : 0;
  int64_t o_ld = b[BAG_OUT].pitched ? clg__strides(output)[0] : 0;
  cl_event ran = NULL;
  st = dense_run(ctx, params, dense, &out->t, w_ld, o_ld, q, nev,
                 nev ? events : NULL, device_back ? &ran : event,
                 device_back ? NULL : outcome);
  if (st == CLG_SUCCESS && device_back) {
    /* The outcome first: nothing is left to undo if it cannot be made. */
    clg_outcome *decided = NULL;
    if (outcome)
      st = clg__outcome_decided(&decided);
    cl_event done = NULL;
    if (st == CLG_SUCCESS)
      st = clg__strided_copy_out(ctx, q, output, out, ran,
                                 event ? &done : NULL);
    clReleaseEvent(ran);
    if (st == CLG_SUCCESS) {
      if (event)
        *event = done;
      if (outcome)
        *outcome = decided;
    } else {
      clg_outcome_release(decided);
    }
  } else if (st == CLG_SUCCESS && out->copy_back) {
    /* A host output: the dense call has written host_tmp (it blocks). */
    st = clg__strided_copy_out(ctx, q, output, out, NULL, NULL);
  }
  clg__strided_release(op, BAG_OPS, events, nev);
  return st;
}
