/*
 * host/run/bag_strided.c: clg_embedding_bag() and clg_embedding_bag_async()
 * with strided operands (clg_strided_tensor).
 *
 *  - Each operand strided in turn (weight, indices, offsets or segment ids,
 *    per_sample_weights, output), then all at once: column blocks (a row
 *    pitch, read and written in place for cl_mem), transposed fixed-form
 *    indices, reversed axes (negative strides), every other element
 *    (stride 2), a broadcast weight (stride 0), dense strides; host memory
 *    and cl_mem at byte offsets; sync and async; several modes, element
 *    types and forms. The output's elements equal the plain-C reference
 *    (tools/reference/ref_embedding_bag.c) on dense copies of the same
 *    values, byte for byte; every byte of the output's parent allocation
 *    between its elements is untouched, and every input's parent too.
 *  - What is copied (clg_context's strided_copies): column blocks of cl_mem
 *    weight and output none; a weight and an output in one cl_mem whose
 *    bytes interleave, the output through scratch.
 *  - Errors: an index out of bounds and offsets that decrease through
 *    strided views (status, message naming the logical position, output
 *    and its gaps untouched, sync and async), strides past the buffer's
 *    end or before its start (CLG_ERROR_BUFFER_TOO_SMALL), output strides
 *    that share memory, a misaligned strided offset.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h" /* clg_context's strided_copies */

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/reference.h"
#include "support/bag_case.h"
#include "support/strided_operand.h"
#include "support/testutil.h"

/* A call: the operands' shapes from (E, dim, B, L or n), each operand's
 * layout and memory. */
typedef struct scase {
  clg_bag_mode mode;
  clg_bag_form form;
  clg_dtype dt, idt, bdt;
  int64_t E, dim, B;
  int64_t n; /* offsets, segment ids: indices; fixed: L per bag */
  bool psw, last, pad;
  lk kind[5]; /* weight, indices, bags, per_sample_weights, output */
  bool dev[5];
  bool async;
  bool dense_views; /* DENSE operands as strided views of dense strides */
} scase;

/* The operands of a case with their values, and the reference output. */
typedef struct sdata {
  st_operand o[5];
  clg_tensor plain[5]; /* DENSE kind: the view as a plain dense tensor */
  void *v[4];          /* dense values: weight, indices, bags, psw */
  void *want;
  int64_t ishape[2], bags_len;
} sdata;

static const char *const onames[5] = {"weight", "indices", "bags", "psw",
                                      "output"};

static void describe(const scase *c, char *buf, size_t cap) {
  static const char *const modes[] = {"sum", "mean", "max", "sqrt_n"};
  static const char *const forms[] = {"offsets", "fixed", "segment_ids"};
  int at = snprintf(buf, cap, "%s %s %s%s%s%s%s", modes[c->mode],
                    forms[c->form], clg_dtype_name(c->dt),
                    c->psw ? " psw" : "", c->pad ? " padding_idx" : "",
                    c->async ? " async" : "",
                    c->dense_views ? " (dense ones as views)" : "");
  for (int k = 0; k < 5 && at > 0 && (size_t)at < cap; ++k)
    at += snprintf(buf + at, cap - (size_t)at, ", %s %s%s", onames[k],
                   st_kind_name(c->kind[k]), c->dev[k] ? " (cl_mem)" : "");
}

static const clg_tensor *desc(sdata *d, const scase *c, int k) {
  if (c->kind[k] != DENSE || c->dense_views)
    return &d->o[k].view.tensor;
  d->plain[k] = d->o[k].view.tensor;
  d->plain[k].storage =
      c->dev[k] ? CLG_STORAGE_BUFFER : CLG_STORAGE_HOST;
  return &d->plain[k];
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Values, reference, operands. */
static void make_case(const scase *c, uint64_t seed, sdata *d) {
  memset(d, 0, sizeof *d);
  tu_rng rng = tu_rng_make(seed);
  bool fixed = c->form == CLG_BAGS_FIXED;
  int64_t n = fixed ? c->B * c->n : c->n;
  int64_t ws[2] = {c->E, c->dim}, os[2] = {c->B, c->dim};
  d->ishape[0] = fixed ? c->B : n;
  d->ishape[1] = c->n;
  int32_t irank = fixed ? 2 : 1;
  d->v[0] = st_values(&rng, c->dt, 2, ws, c->kind[0]);
  d->v[1] = st_index_values(&rng, c->idt, n, 0, c->E - 1);
  if (c->pad) /* a few entries equal to padding_idx (row 1) */
    for (int64_t i = 0; i < n; i += 3)
      tu_set_index(d->v[1], c->idt, i, 1);
  d->bags_len = c->form == CLG_BAGS_OFFSETS ? c->B + (c->last ? 1 : 0)
                : fixed                     ? 0
                                            : n;
  int64_t *b = malloc(sizeof *b * (size_t)(d->bags_len + 1));
  for (int64_t i = 0; i < d->bags_len; ++i)
    b[i] = c->form == CLG_BAGS_OFFSETS ? (i ? tu_rng_range(&rng, 0, n) : 0)
                                       : tu_rng_range(&rng, 0, c->B - 1);
  qsort(b, (size_t)d->bags_len, sizeof *b, cmp_i64);
  if (c->last)
    b[c->B] = n;
  d->v[2] = malloc((size_t)d->bags_len * 8 + 1);
  for (int64_t i = 0; i < d->bags_len; ++i)
    tu_set_index(d->v[2], c->bdt, i, b[i]);
  free(b);
  d->v[3] = st_values(&rng, c->dt, irank, d->ishape, DENSE);

  size_t es = clg_dtype_size(c->dt);
  d->want = malloc((size_t)(c->B * c->dim) * es + 1);
  ref_bag_args a;
  memset(&a, 0, sizeof a);
  a.mode = (int)c->mode;
  a.form = (int)c->form;
  a.include_last_offset = c->last;
  a.has_padding_idx = c->pad;
  a.padding_idx = 1;
  a.dtype = (int32_t)c->dt;
  a.weight = d->v[0];
  a.num_embeddings = c->E;
  a.dim = c->dim;
  a.indices = d->v[1];
  a.index_type = tu_ref_index_type(c->idt);
  a.indices_rank = irank;
  a.indices_shape[0] = d->ishape[0];
  a.indices_shape[1] = d->ishape[1];
  a.bags = fixed ? NULL : d->v[2];
  a.bags_type = tu_ref_index_type(c->bdt);
  a.bags_len = d->bags_len;
  a.per_sample_weights = c->psw ? d->v[3] : NULL;
  a.num_bags = c->B;
  cr_assert_eq(ref_embedding_bag(&a, d->want), 0, "test bug: the reference "
                                                  "refuses the case");

  int64_t bs[1] = {d->bags_len};
  st_make(&d->o[0], c->dt, 2, ws, c->kind[0], c->dev[0], d->v[0]);
  st_make(&d->o[1], c->idt, irank, d->ishape, c->kind[1], c->dev[1], d->v[1]);
  st_make(&d->o[2], c->bdt, 1, bs, c->kind[2], c->dev[2], d->v[2]);
  st_make(&d->o[3], c->dt, irank, d->ishape, c->kind[3], c->dev[3], d->v[3]);
  st_make(&d->o[4], c->dt, 2, os, c->kind[4], c->dev[4], NULL);
}

static void free_case(sdata *d) {
  for (int k = 0; k < 5; ++k)
    st_free(&d->o[k]);
  for (int k = 0; k < 4; ++k)
    free(d->v[k]);
  free(d->want);
}

/* The call (async: its outcome waited for); *deferred: the error came
 * from clg_outcome_wait(). */
static clg_status call_case(sdata *d, const scase *c, bool *deferred) {
  clg_bag_params p = {0};
  p.mode = c->mode;
  p.form = c->form;
  if (c->last)
    p.flags |= CLG_BAG_INCLUDE_LAST_OFFSET;
  if (c->pad) {
    p.flags |= CLG_BAG_PADDING_IDX;
    p.padding_idx = 1;
  }
  const clg_tensor *w = desc(d, c, 0), *x = desc(d, c, 1),
                   *b = c->form == CLG_BAGS_FIXED ? NULL : desc(d, c, 2),
                   *s = c->psw ? desc(d, c, 3) : NULL, *o = desc(d, c, 4);
  clg_status st;
  if (deferred)
    *deferred = false;
  if (c->async) {
    clg_outcome *oc = NULL;
    cl_event ev = NULL;
    st = clg_embedding_bag_async(tu_ctx(), &p, w, x, b, s, o, tu_queue(), 0,
                                 NULL, &ev, &oc);
    if (st == CLG_SUCCESS) {
      cr_expect(ev != NULL, "async: no event");
      if (ev) {
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
      }
      st = clg_outcome_wait(oc);
      if (deferred)
        *deferred = st != CLG_SUCCESS;
    }
    clg_outcome_release(oc);
  } else {
    st = clg_embedding_bag(tu_ctx(), &p, w, x, b, s, o, tu_queue(), 0, NULL,
                           NULL);
  }
  clFinish(tu_queue());
  return st;
}

/* The inputs' parents as they were made. */
static void expect_inputs_kept(const sdata *d, const char *what) {
  for (int k = 0; k < 4; ++k) {
    const st_operand *o = &d->o[k];
    unsigned char *now = malloc(o->pbytes + 1);
    st_parent(o, now);
    cr_expect(tu_first_diff(now, o->host, o->pbytes) < 0,
              "%s: input %s was written", what, onames[k]);
    free(now);
  }
}

static clg_status expected_status(const scase *c) {
  bag_case bc = bag_make(c->mode, c->form, c->dt, c->E, c->dim, c->n, c->B);
  return bag_expected(&bc);
}

static void run_case(const scase *c, uint64_t seed) {
  char what[512];
  describe(c, what, sizeof what);
  sdata d;
  make_case(c, seed, &d);
  clg_status want = expected_status(c);
  clg_status st = call_case(&d, c, NULL);
  cr_expect_eq(st, want, "%s: %s, want %s: %s", what, clg_status_string(st),
               clg_status_string(want), clg_last_error());
  if (st == CLG_SUCCESS && want == CLG_SUCCESS)
    st_expect_output(&d.o[4], d.want, what);
  else
    st_expect_untouched(&d.o[4], what);
  expect_inputs_kept(&d, what);
  free_case(&d);
}

static scase base(clg_bag_form form) {
  scase c;
  memset(&c, 0, sizeof c);
  c.mode = CLG_BAG_SUM;
  c.form = form;
  c.dt = CLG_DTYPE_FLOAT;
  c.idt = CLG_DTYPE_INT64;
  c.bdt = CLG_DTYPE_INT64;
  c.E = 11;
  c.dim = 5;
  c.B = 4;
  c.n = form == CLG_BAGS_FIXED ? 3 : 13;
  return c;
}

/* ------------------------------------------------------------- results */

/* The sweeps' cases: one in CLGATHER_TEST_SAMPLE (tu_sampled()); the fixed
 * Tests below run every one. */
static void run_sampled(const scase *c, uint64_t seed) {
  if (tu_sampled())
    run_case(c, seed);
}

Test(bag_strided, each_operand_in_turn) {
  /* The kinds each operand takes (DENSE ends a list). */
  static const lk kw[] = {PITCH, TRANSPOSED, REVERSED, STEP2, BROADCAST0,
                          DENSE};
  static const lk k2[] = {TRANSPOSED, REVERSED, PITCH, STEP2, DENSE};
  static const lk k1[] = {REVERSED, STEP2, DENSE};
  static const lk ko[] = {PITCH, TRANSPOSED, REVERSED, STEP2, DENSE};
  static const clg_bag_mode modes[] = {CLG_BAG_SUM, CLG_BAG_MEAN, CLG_BAG_MAX,
                                       CLG_BAG_SQRT_N};
  static const clg_dtype dts[] = {CLG_DTYPE_FLOAT, CLG_DTYPE_FLOAT16,
                                  CLG_DTYPE_DOUBLE};
  uint64_t seed = 1;
  int count = 0;
  for (int k = 0; k < 5; ++k)
    for (int form = 0; form < 3; ++form) {
      if (k == 2 && form == CLG_BAGS_FIXED)
        continue;
      bool two = form == CLG_BAGS_FIXED && (k == 1 || k == 3);
      const lk *kinds = k == 0 ? kw : k == 4 ? ko : two ? k2 : k1;
      for (int j = 0; kinds[j] != DENSE; ++j)
        for (int dev = 0; dev < 2; ++dev) {
          scase c = base((clg_bag_form)form);
          c.kind[k] = kinds[j];
          c.dev[k] = dev;
          /* the others in the other memory, half the time */
          for (int m = 0; m < 5; ++m)
            if (m != k)
              c.dev[m] = (int)((seed + (uint64_t)m) % 2) == 1;
          c.psw = k == 3;
          if (!c.psw) {
            c.mode = modes[seed % 4];
            c.dt = dts[seed % 3];
          }
          c.idt = seed % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
          c.bdt = seed % 3 ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
          c.last = form == CLG_BAGS_OFFSETS && seed % 4 == 1;
          run_sampled(&c, seed++);
          ++count;
        }
    }
  cr_log_info("%d cases", count);
}

Test(bag_strided, all_at_once) {
  uint64_t seed = 100;
  for (int form = 0; form < 3; ++form)
    for (int mem = 0; mem < 3; ++mem)
      for (int async = 0; async < 2; ++async) {
        scase c = base((clg_bag_form)form);
        bool fixed = form == CLG_BAGS_FIXED;
        c.kind[0] = PITCH;                    /* a column block */
        c.kind[1] = fixed ? TRANSPOSED : STEP2;
        c.kind[2] = REVERSED;
        c.kind[3] = STEP2;
        c.kind[4] = async ? PITCH : (mem == 1 ? REVERSED : PITCH);
        /* every operand host, every one cl_mem, or mixed */
        for (int m = 0; m < 5; ++m)
          c.dev[m] = mem == 1 || (mem == 2 && m % 2 == 0);
        c.async = async;
        c.psw = form != CLG_BAGS_SEGMENT_IDS;
        c.mode = c.psw ? CLG_BAG_SUM
                 : async ? CLG_BAG_MAX
                         : CLG_BAG_MEAN;
        c.dt = mem == 2 ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT;
        c.pad = form == CLG_BAGS_OFFSETS && mem == 0;
        c.idt = async ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
        run_sampled(&c, seed++);
        /* the same with strides that are the dense ones */
        scase dn = c;
        for (int m = 0; m < 5; ++m)
          dn.kind[m] = DENSE;
        dn.dense_views = true;
        run_sampled(&dn, seed++);
      }
}

/* Large enough that cl_mem indices and offsets are checked on the device
 * (above 32 KiB: a validation kernel reading the dense scratch copy). */
Test(bag_strided, checked_on_the_device) {
  for (int async = 0; async < 2; ++async) {
    scase c = base(CLG_BAGS_OFFSETS);
    c.E = 300;
    c.dim = 9;
    c.B = 64;
    c.n = 6000;
    c.kind[0] = PITCH;
    c.kind[1] = REVERSED;
    c.kind[2] = STEP2;
    c.kind[4] = async ? PITCH : TRANSPOSED;
    for (int m = 0; m < 5; ++m)
      c.dev[m] = true;
    c.async = async;
    run_case(&c, 700 + (uint64_t)async);
  }
}

/* --------------------------------------------------- what is copied */

static unsigned copies_of(const scase *c, uint64_t seed) {
  clg_context *ctx = tu_ctx();
  unsigned c0 = atomic_load(&ctx->strided_copies);
  run_case(c, seed);
  return atomic_load(&ctx->strided_copies) - c0;
}

Test(bag_strided, column_blocks_in_place) {
  for (int async = 0; async < 2; ++async) {
    scase c = base(CLG_BAGS_OFFSETS);
    c.kind[0] = PITCH;
    c.kind[4] = PITCH;
    for (int m = 0; m < 5; ++m)
      c.dev[m] = true;
    c.async = async;
    cr_expect_eq(copies_of(&c, 800 + (uint64_t)async), 0,
                 "column blocks of cl_mem weight and output were copied");
    /* A column of a matrix (dim 1): in place too. */
    c.dim = 1;
    cr_expect_eq(copies_of(&c, 810 + (uint64_t)async), 0,
                 "a one-column weight was copied");
  }
  /* Views whose strides are the dense ones: nothing copied. */
  scase v = base(CLG_BAGS_SEGMENT_IDS);
  for (int m = 0; m < 5; ++m)
    v.dev[m] = true;
  v.dense_views = true;
  cr_expect_eq(copies_of(&v, 815), 0, "dense strides: copied");
  /* Host column blocks, a transposed cl_mem weight, a reversed cl_mem
   * output: copied. */
  scase h = base(CLG_BAGS_FIXED);
  h.kind[0] = PITCH;
  h.kind[4] = PITCH;
  cr_expect_eq(copies_of(&h, 820), 0, "host operands: copied on the device");
  h.kind[0] = TRANSPOSED;
  h.dev[0] = true;
  cr_expect_eq(copies_of(&h, 821), 1, "a transposed cl_mem weight");
  h.kind[0] = DENSE;
  h.kind[4] = REVERSED;
  h.dev[4] = true;
  cr_expect_eq(copies_of(&h, 822), 1, "a reversed cl_mem output");
}

/* A weight and an output in one cl_mem: table [E, 12] float; the weight
 * its columns 0..3 (row pitch 12), the output columns 4..7 of its first B
 * rows (their bytes interleave: the output goes through scratch), or a
 * dense output in the gap of the weight's first row, columns 4..11 (the
 * weight is copied). The weight's elements stay as they were. */
Test(bag_strided, weight_and_output_in_one_buffer) {
  enum { E = 6, D = 4, B = 2, LD = 12 };
  float table[E * LD], want[B * D];
  for (int i = 0; i < E * LD; ++i)
    table[i] = (float)(i % 13) * 0.25f - 1.0f;
  int64_t idx[5] = {5, 0, 3, 3, 1}, off[B] = {0, 2};
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < D; ++j) {
      float acc = 0.0f;
      for (int i = (int)off[b]; i < (b + 1 < B ? (int)off[b + 1] : 5); ++i)
        acc = acc + table[idx[i] * LD + j];
      want[b * D + j] = acc;
    }
  int64_t ws[2] = {E, D}, os[2] = {B, D}, is[1] = {5}, bs[1] = {B};
  int64_t pitch[2] = {LD, 1};
  clg_tensor xt = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  clg_tensor bt = clg_tensor_host(CLG_DTYPE_INT64, 1, bs, off);
  for (int k = 0; k < 2; ++k) {
    cl_mem m = tu_buffer_create(sizeof table, table);
    clg_tensor wd = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ws, m, 0);
    clg_strided_tensor w = clg_tensor_strided(&wd, pitch);
    clg_tensor od =
        clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, m, D * sizeof(float));
    clg_strided_tensor o = clg_tensor_strided(&od, pitch);
    const clg_tensor *out = k == 0 ? &o.tensor : &od;
    unsigned c0 = atomic_load(&tu_ctx()->strided_copies);
    clg_status st = clg_embedding_bag(tu_ctx(), NULL, &w.tensor, &xt, &bt,
                                      NULL, out, tu_queue(), 0, NULL, NULL);
    cr_expect_eq(st, CLG_SUCCESS, "%d: %s", k, clg_last_error());
    clFinish(tu_queue());
    cr_expect_eq(atomic_load(&tu_ctx()->strided_copies) - c0, 1,
                 "%d: one copy (%s)", k, k ? "the weight" : "the output");
    float back[E * LD], exp[E * LD];
    memcpy(exp, table, sizeof exp);
    for (int b = 0; b < B; ++b)
      for (int j = 0; j < D; ++j)
        exp[D + (k == 0 ? b * LD : b * D) + j] = want[b * D + j];
    tu_buffer_read(m, 0, sizeof back, back);
    cr_expect(memcmp(back, exp, sizeof back) == 0,
              "%d: the table differs from the expected one", k);
    clReleaseMemObject(m);
  }
}

/* -------------------------------------------------------------- errors */

/* A fixed-form call [B=4, L=3] into a column-block output (cl_mem or
 * host), every input in `mem`, indices transposed, spoilt by `spoil`;
 * expected to fail with `want` (sync and async), the message containing
 * `needle`, the output's parent (its gaps included) unchanged. */
typedef void (*spoil_fn)(sdata *d, scase *c);

static void expect_error(spoil_fn spoil, lk out_kind, bool dev,
                         clg_status want, const char *needle,
                         const char *what) {
  for (int async = 0; async < 2; ++async) {
    scase c = base(CLG_BAGS_FIXED);
    c.kind[0] = PITCH;
    c.kind[1] = TRANSPOSED;
    c.kind[3] = STEP2;
    c.kind[4] = out_kind;
    c.psw = true;
    for (int m = 0; m < 5; ++m)
      c.dev[m] = dev;
    c.async = async;
    sdata d;
    make_case(&c, 900, &d);
    spoil(&d, &c);
    bool deferred = false;
    clg_status st = call_case(&d, &c, &deferred);
    char full[600];
    describe(&c, full, sizeof full);
    cr_expect_eq(st, want, "%s (%s): %s, want %s: %s", what, full,
                 clg_status_string(st), clg_status_string(want),
                 clg_last_error());
    cr_expect(tu_contains(clg_last_error(), needle),
              "%s (%s): the message lacks '%s': %s", what, full, needle,
              clg_last_error());
    /* Gated on the device only where nothing is copied to the output. */
    if (deferred)
      cr_expect(dev && out_kind == PITCH,
                "%s (%s): the error came from the outcome", what, full);
    st_expect_untouched(&d.o[4], what);
    free_case(&d);
  }
}

/* A cl_mem operand's parent written again from its host image: the whole
 * buffer, from byte 0 (a kernel reading bytes that a write at an offset
 * had stored: reported as uninitialized values by Oclgrind 21.10). */
static void upload(st_operand *o) {
  if (!o->on_device)
    return;
  unsigned char *img = malloc(o->boff + o->pbytes);
  memset(img, SENTINEL, o->boff);
  memcpy(img + o->boff, o->host, o->pbytes);
  tu_cl_check(clEnqueueWriteBuffer(tu_queue(), o->mem, CL_TRUE, 0,
                                   o->boff + o->pbytes, img, 0, NULL, NULL),
              "clEnqueueWriteBuffer");
  free(img);
}

/* Logical index [2, 1] (flat position 7) = 11: its memory in the
 * transposed parent is elsewhere. */
static void out_of_bounds(sdata *d, scase *c) {
  st_operand *x = &d->o[1];
  int64_t at = st_at(x, 7);
  tu_set_index(x->host, c->idt, at, 11);
  upload(x);
}
static void shared_output(sdata *d, scase *c) {
  (void)c;
  d->o[4].view.strides[0] = 2; /* [4, 5] rows 2 apart: they overlap */
}
static void zero_output(sdata *d, scase *c) {
  (void)c;
  d->o[4].view.strides[0] = 0;
}
static void past_end(sdata *d, scase *c) {
  (void)c;
  d->o[0].view.strides[0] *= 4;
}
static void below_start(sdata *d, scase *c) {
  (void)c;
  d->o[1].view.strides[0] = -100;
}
static void misaligned(sdata *d, scase *c) {
  (void)c;
  d->o[0].view.tensor.offset += 2;
}

Test(bag_strided, errors_leave_the_output) {
  for (int dev = 0; dev < 2; ++dev)
    for (int ok = 0; ok < 2; ++ok) {
      lk kind = ok ? REVERSED : PITCH;
      expect_error(out_of_bounds, kind, dev, CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                   "indices[7] (position [2, 1]) is 11",
                   "an index out of bounds");
      expect_error(shared_output, kind == PITCH ? PITCH : STEP2, dev,
                   CLG_ERROR_INVALID_ARGUMENT, "same memory",
                   "an output sharing memory");
      expect_error(zero_output, kind, dev, CLG_ERROR_INVALID_ARGUMENT,
                   "same memory", "an output with stride 0");
    }
  /* Memory checks of strided cl_mem operands. */
  expect_error(past_end, PITCH, true, CLG_ERROR_BUFFER_TOO_SMALL,
               "weight->buffer", "a weight past the buffer's end");
  expect_error(below_start, PITCH, true, CLG_ERROR_BUFFER_TOO_SMALL, "below",
               "indices before the buffer's start");
  expect_error(misaligned, PITCH, true, CLG_ERROR_INVALID_ARGUMENT,
               "multiple of", "a misaligned weight");
}

/* Offsets that decrease, seen through a reversed view: the message names
 * the logical position. */
Test(bag_strided, bad_offsets_through_a_view) {
  for (int dev = 0; dev < 2; ++dev)
    for (int async = 0; async < 2; ++async) {
      scase c = base(CLG_BAGS_OFFSETS);
      c.kind[1] = STEP2;
      c.kind[2] = REVERSED;
      c.kind[4] = PITCH;
      for (int m = 0; m < 5; ++m)
        c.dev[m] = dev;
      c.async = async;
      sdata d;
      make_case(&c, 950, &d);
      /* offsets [0, 5, 9, 2]: offsets[3] = 2 is below offsets[2] = 9 */
      static const int64_t bad[4] = {0, 5, 9, 2};
      st_operand *b = &d.o[2];
      for (int i = 0; i < 4; ++i)
        tu_set_index(b->host, c.bdt, st_at(b, i), bad[i]);
      upload(b);
      clg_status st = call_case(&d, &c, NULL);
      cr_expect_eq(st, CLG_ERROR_INVALID_BAGS, "dev %d async %d: %s: %s", dev,
                   async, clg_status_string(st), clg_last_error());
      cr_expect(tu_contains(clg_last_error(), "offsets[3] is 2"),
                "dev %d async %d: %s", dev, async, clg_last_error());
      st_expect_untouched(&d.o[4], "bad offsets");
      free_case(&d);
    }
}
