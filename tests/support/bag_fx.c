/* EmbeddingBag's error fixture (support/bag_case.h): a small valid call
 * broken in one place by a Test, run in host and cl_mem variants. */
#define _POSIX_C_SOURCE 200809L
#include "support/bag_case.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

static void set_desc(bag_fx *f, int k, clg_dtype dtype, int32_t rank,
                     const int64_t *shape) {
  clg_tensor d = clg_tensor_host(dtype, rank, shape, f->host[k]);
  memset(&f->t[k], 0, sizeof f->t[k]);
  f->t[k].tensor = d;
  f->present[k] = true;
}

void bag_fx_desc(bag_fx *f, int k, clg_dtype dtype, int32_t rank,
                 const int64_t *shape) {
  set_desc(f, k, dtype, rank, shape);
}

void bag_fx_set(bag_fx *f, int k, int64_t pos, int64_t value) {
  clg_dtype t = f->t[k].tensor.dtype;
  cr_assert(t == CLG_DTYPE_INT32 || t == CLG_DTYPE_INT64,
            "test bug: bag_fx_set on a %s operand", clg_dtype_name(t));
  cr_assert(pos >= 0 && (size_t)(pos + 1) * 8u <= BAG_FX_BYTES,
            "test bug: bag_fx_set position");
  tu_set_index(f->host[k], t, pos, value);
}

void bag_fx_base(bag_fx *f, clg_bag_form form) {
  memset(f, 0, sizeof *f);
  f->p.form = form;
  f->pp = &f->p;
  for (int k = 0; k < 5; ++k)
    memset(f->host[k], (int)TU_SENTINEL, BAG_FX_BYTES);
  /* weight [5, 3]: 0.5 * k */
  static const int64_t ws[2] = {5, 3}, os[2] = {4, 3};
  set_desc(f, BAG_W, CLG_DTYPE_FLOAT, 2, ws);
  for (int k = 0; k < 15; ++k) {
    float v = 0.5f * (float)k;
    memcpy(f->host[BAG_W] + 4 * k, &v, 4);
  }
  static const int64_t idx[12] = {0, 4, 2, 1, 3, 3, 0, 2, 4, 1, 1, 0};
  if (form == CLG_BAGS_FIXED) {
    static const int64_t is[2] = {4, 3};
    set_desc(f, BAG_I, CLG_DTYPE_INT64, 2, is);
  } else {
    static const int64_t is[1] = {12};
    set_desc(f, BAG_I, CLG_DTYPE_INT64, 1, is);
  }
  for (int k = 0; k < 12; ++k)
    bag_fx_set(f, BAG_I, k, idx[k]);
  if (form == CLG_BAGS_OFFSETS) {
    static const int64_t bs[1] = {4}, off[4] = {0, 3, 7, 9};
    set_desc(f, BAG_B, CLG_DTYPE_INT64, 1, bs);
    for (int k = 0; k < 4; ++k)
      bag_fx_set(f, BAG_B, k, off[k]);
  } else if (form == CLG_BAGS_SEGMENT_IDS) {
    static const int64_t bs[1] = {12},
                         ids[12] = {0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 3, 3};
    set_desc(f, BAG_B, CLG_DTYPE_INT64, 1, bs);
    for (int k = 0; k < 12; ++k)
      bag_fx_set(f, BAG_B, k, ids[k]);
  }
  set_desc(f, BAG_O, CLG_DTYPE_FLOAT, 2, os);
  f->present[BAG_S] = false;
}

void bag_fx_psw(bag_fx *f) {
  const clg_tensor *i = &f->t[BAG_I].tensor;
  set_desc(f, BAG_S, CLG_DTYPE_FLOAT, i->rank, i->shape);
  for (int k = 0; k < 12; ++k) {
    float v = 0.25f * (float)(k - 5);
    memcpy(f->host[BAG_S] + 4 * k, &v, 4);
  }
}

static bool all_sentinel(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != TU_SENTINEL)
      return false;
  return true;
}

/* Variant 0: as given (host); 1: the output in a cl_mem; 2: every present
 * operand in a cl_mem, clg_embedding_bag_async; 3: the same,
 * clg_embedding_bag (whose cl_mem values are read back or checked on the
 * device: CLGATHER_TEST_DEVICE_VALIDATION picks which). */
static void run_variant(const bag_fx *f0, int v, clg_status want,
                        clg_status alt, const char *needles,
                        const int64_t *ints, int nints, const char *what) {
  bag_fx f = *f0;
  static const char *const vname[4] = {"host", "cl_mem output",
                                       "all cl_mem, async", "all cl_mem"};
  cl_mem bufs[5] = {NULL};
  /* Host descriptors point into f0's bytes: into the copy's instead. */
  for (int k = 0; k < 5; ++k) {
    unsigned char *h = f.t[k].tensor.host;
    if (h >= f0->host[k] && h < f0->host[k] + BAG_FX_BYTES)
      f.t[k].tensor.host = f.host[k] + (h - f0->host[k]);
  }
  for (int k = 0; k < 5; ++k) {
    bool to_buf = f.present[k] && (v >= 2 || (v == 1 && k == BAG_O));
    if (!to_buf)
      continue;
    size_t off = 8u * (size_t)(k + 1);
    unsigned char img[BAG_FX_BYTES + 64];
    memset(img, (int)TU_SENTINEL, sizeof img);
    memcpy(img + off, f.host[k], BAG_FX_BYTES);
    bufs[k] = tu_buffer_create(off + BAG_FX_BYTES, img);
    clg_tensor *d = &f.t[k].tensor;
    d->storage = CLG_STORAGE_BUFFER;
    d->buffer = bufs[k];
    d->offset = off;
    d->host = NULL;
  }
  const clg_tensor *op[5];
  for (int k = 0; k < 5; ++k)
    op[k] = f.present[k] ? &f.t[k].tensor : NULL;
  clg_context *ctx = f.null_ctx ? NULL : tu_ctx();
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  clg_status st =
      v == 2 ? clg_embedding_bag_async(ctx, f.pp, op[0], op[1], op[2], op[3],
                                       op[4], NULL, f.num_events, NULL, &ev,
                                       &oc)
             : clg_embedding_bag(ctx, f.pp, op[0], op[1], op[2], op[3], op[4],
                                 NULL, f.num_events, NULL, &ev);
  /* The asynchronous mode on cl_mem operands checks the values on the
   * device: a bad one is reported by clg_outcome_wait(), the reduction
   * gated (the output checked below all the same). */
  bool deferred = v == 2 && st == CLG_SUCCESS && oc &&
                  (want == CLG_ERROR_INVALID_BAGS ||
                   want == CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  if (deferred) {
    if (ev) {
      clWaitForEvents(1, &ev);
      clReleaseEvent(ev);
      ev = NULL;
    }
    st = clg_outcome_wait(oc);
    clg_status again = clg_outcome_wait(oc);
    cr_expect_eq(again, st, "%s (%s): a second wait gave another status",
                 what, vname[v]);
  }
  const char *msg = clg_last_error();
  cr_expect(st == want || (alt != CLG_SUCCESS && st == alt),
            "%s (%s): got %s (%d), want %s%s%s: %s", what, vname[v],
            clg_status_string(st), (int)st, clg_status_string(want),
            alt != CLG_SUCCESS ? " or " : "",
            alt != CLG_SUCCESS ? clg_status_string(alt) : "", msg);
  if (st != CLG_SUCCESS) {
    cr_expect(msg[0] != '\0', "%s (%s): no message", what, vname[v]);
    cr_expect(case_message_has(msg, needles), "%s (%s): the message lacks %s: %s",
              what, vname[v], needles, msg);
    for (int k = 0; k < nints; ++k)
      cr_expect(tu_contains_int(msg, ints[k]),
                "%s (%s): the message lacks %lld: %s", what, vname[v],
                (long long)ints[k], msg);
    cr_expect(ev == NULL, "%s (%s): an event came back on error", what,
              vname[v]);
    cr_expect(deferred || oc == NULL,
              "%s (%s): an outcome came back on error", what, vname[v]);
  }
  if (ev) {
    clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
  }
  if (oc) {
    clg_outcome_wait(oc);
    clg_outcome_release(oc);
  }
  if (f.present[BAG_O] && st != CLG_SUCCESS) {
    unsigned char img[BAG_FX_BYTES + 64];
    size_t n = BAG_FX_BYTES;
    if (bufs[BAG_O]) {
      n += 8u * (BAG_O + 1);
      tu_buffer_read(bufs[BAG_O], 0, n, img);
    } else {
      memcpy(img, f.host[BAG_O], n);
    }
    cr_expect(all_sentinel(img, n), "%s (%s): the output was written", what,
              vname[v]);
  }
  for (int k = 0; k < 5; ++k)
    if (bufs[k])
      clReleaseMemObject(bufs[k]);
}

void bag_fx_expect(const bag_fx *f, clg_status want, clg_status alt,
                   const char *needles, const int64_t *ints, int nints,
                   const char *what) {
  if (!tu_sampled())
    return;
  int variants = f->host_only ? 1 : 4;
  for (int v = 0; v < variants; ++v) {
    /* the cl_mem output variant needs an output */
    if (v == 1 && !f->present[BAG_O])
      continue;
    run_variant(f, v, want, alt, needles, ints, nints, what);
  }
}

void bag_fx_bad(const bag_bad *e) {
  bag_case c;
  bag_inputs in;
  cr_assert(bag_bad_make(e, CLG_DTYPE_FLOAT, &c, &in) == 0,
            "out of host memory");
  bag_fx f;
  memset(&f, 0, sizeof f);
  f.p = c.p;
  f.pp = &f.p;
  for (int k = 0; k < 5; ++k)
    memset(f.host[k], (int)TU_SENTINEL, BAG_FX_BYTES);
  int64_t ws[2] = {c.num_embeddings, c.dim}, os[2] = {c.B, c.dim}, is[2];
  int64_t bs[1] = {in.bags_len};
  int32_t ir = bag_indices_shape(&c, is);
  set_desc(&f, BAG_W, c.dtype, 2, ws);
  set_desc(&f, BAG_I, c.idt, ir, is);
  if (c.p.form != CLG_BAGS_FIXED)
    set_desc(&f, BAG_B, c.bdt, 1, bs);
  if (c.psw)
    set_desc(&f, BAG_S, c.dtype, ir, is);
  set_desc(&f, BAG_O, c.dtype, 2, os);
  for (int k = 0; k < 4; ++k) {
    cr_assert(in.bytes[k] <= BAG_FX_BYTES, "test bug: %s's operand %d", e->name,
              k);
    if (f.present[k])
      memcpy(f.host[k], in.op[k], in.bytes[k]);
  }
  bag_inputs_free(&in);
  bag_fx_expect(&f, e->want, CLG_SUCCESS, e->needles, e->ints, e->nints,
                e->name);
}
