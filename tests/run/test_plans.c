/*
 * host/run/plans.c: plans (clg_plan_create / bake / enqueue / destroy), and
 * clg_supported() (host/run/api.c, from the registry).
 *
 *  - Plans reuse programs, counted on a clg_context of the test's own (its
 *    `builds` counter counts every program created, from source or from the
 *    disk cache): bake builds what the header promises, and enqueues on new
 *    memory build nothing; every result equals the plain-C reference
 *    (tools/reference/ref_*.c) byte for byte, with the guard bytes around it
 *    and the inputs unchanged.
 *  - Bake is idempotent and optional; a plan gives clg_run()'s bytes; other
 *    offsets than the template's still give the right result.
 *  - Every error of clg_plan_create() and clg_plan_enqueue(): its status, a
 *    message naming the issue, *out / *event / *outcome not set, and the
 *    sentinel-filled output unchanged byte for byte.
 *  - Empty tensors; an asynchronous plan does not wait for its wait list;
 *    injected OpenCL and allocation failures.
 *  - clg_plan_destroy(NULL); outcomes outlive their plan; plans shared by
 *    two threads (racing to build their programs).
 *  - clg_supported() over ops x dtypes x index dtypes x ranks x modes
 *    against the rules the header documents, cross-checked by real calls.
 */
#define _POSIX_C_SOURCE 200809L

#include "internal.h" /* clg_context's builds / device_validations counters */

#include <criterion/criterion.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/testutil.h"

/* ------------------------------------------------------------ helpers */

/* Values no call may write on failure (*out, *event, *outcome). */
static int g_poison;
#define POISON_PLAN ((clg_plan *)(void *)&g_poison)
#define POISON_EVENT ((cl_event)(void *)&g_poison)
#define POISON_OUTCOME ((clg_outcome *)(void *)&g_poison)

/* A clg_context of the test's own on the shared cl_context and device, so
 * its program counter is exact and tu_*() buffers and queues belong to it. */
static clg_context *fresh_ctx(void) {
  clg_context *c = NULL;
  clg_status st = clg_context_create(tu_cl_context(), tu_device(), &c);
  cr_assert(st == CLG_SUCCESS && c != NULL, "clg_context_create: %s: %s",
            clg_status_string(st), clg_last_error());
  cr_assert_eq(c->builds, 0u, "a new context has built %u programs", c->builds);
  return c;
}

static tu_storage H(void) {
  tu_storage s = {CLG_STORAGE_HOST, 0, false, false};
  return s;
}

static tu_storage B(size_t offset) {
  tu_storage s = {CLG_STORAGE_BUFFER, offset, false, false};
  return s;
}

/* One operator call fixed in everything but its memory. */
typedef struct spec {
  const char *name;
  clg_params p;
  clg_dtype dtype, idt;
  int32_t r, q;
  int64_t ds[CLG_MAX_RANK], is[CLG_MAX_RANK];
  tu_storage st[3]; /* data, indices, output */
} spec;

static spec mkspec(const char *name, clg_op op, int64_t axis, int64_t bd,
                   clg_index_mode mode, clg_dtype dtype, int32_t r,
                   const int64_t *ds, clg_dtype idt, int32_t q,
                   const int64_t *is, tu_storage sd, tu_storage sx,
                   tu_storage so) {
  spec s;
  memset(&s, 0, sizeof s);
  s.name = name;
  s.p.op = op;
  s.p.axis = axis;
  s.p.batch_dims = bd;
  s.p.mode = mode;
  s.dtype = dtype;
  s.idt = idt;
  s.r = r;
  s.q = q;
  for (int32_t i = 0; i < r && i < CLG_MAX_RANK; ++i)
    s.ds[i] = ds[i];
  for (int32_t i = 0; i < q && i < CLG_MAX_RANK; ++i)
    s.is[i] = is[i];
  s.st[0] = sd;
  s.st[1] = sx;
  s.st[2] = so;
  return s;
}

/* The output shape, from the reference (not from the library). */
static void spec_out(const spec *s, int32_t *orank, int64_t *oshape) {
  int rc = -1;
  switch (s->p.op) {
  case CLG_OP_GATHER:
    rc = ref_gather_ex_shape(s->r, s->ds, s->q, s->is, s->p.axis,
                             s->p.batch_dims, orank, oshape);
    break;
  case CLG_OP_GATHER_ELEMENTS:
    rc = ref_gather_elements_shape(s->r, s->ds, s->q, s->is, s->p.axis, orank,
                                   oshape);
    break;
  case CLG_OP_GATHER_ND:
    rc = ref_gather_nd_shape(s->r, s->ds, s->q, s->is, s->p.batch_dims,
                             CLG_MAX_RANK, orank, oshape);
    break;
  default: break; /* the scatters have suites of their own */
  }
  cr_assert(rc == 0 && *orank <= CLG_MAX_RANK, "test bug: invalid spec %s",
            s->name);
}

/* The size of the data axis that the index at flat position i indexes. */
static int64_t spec_bound(const spec *s, int64_t i) {
  if (s->p.op == CLG_OP_GATHER_ND) {
    int64_t m = s->is[s->q - 1];
    return s->ds[s->p.batch_dims + i % m];
  }
  int64_t a = s->p.axis < 0 ? s->p.axis + s->r : s->p.axis;
  return s->ds[a];
}

static void spec_ref(const spec *s, const void *data, const void *idx,
                     void *want) {
  size_t es = clg_dtype_size(s->dtype);
  ref_index_type t = tu_ref_index_type(s->idt);
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  int rc = -1;
  switch (s->p.op) {
  case CLG_OP_GATHER:
    rc = ref_gather_ex(data, es, s->r, s->ds, idx, t, s->q, s->is, s->p.axis,
                       s->p.batch_dims, (ref_mode)s->p.mode, want, &orank,
                       oshape);
    break;
  case CLG_OP_GATHER_ELEMENTS:
    rc = ref_gather_elements(data, es, s->r, s->ds, idx, t, s->q, s->is,
                             s->p.axis, want);
    break;
  case CLG_OP_GATHER_ND:
    rc = ref_gather_nd(data, es, s->r, s->ds, idx, t, s->q, s->is,
                       s->p.batch_dims, want);
    break;
  default: break; /* the scatters have suites of their own */
  }
  cr_assert(rc == 0, "test bug: the reference failed on %s", s->name);
}

static clg_tensor tmpl_tensor(clg_dtype dt, int32_t rank, const int64_t *shape,
                              tu_storage st) {
  return st.kind == CLG_STORAGE_BUFFER
             ? clg_tensor_buffer(dt, rank, shape, NULL, st.offset)
             : clg_tensor_host(dt, rank, shape, NULL);
}

/* Templates without memory (NULL host pointers and buffers). */
static void spec_templates(const spec *s, clg_tensor *d, clg_tensor *x,
                           clg_tensor *o) {
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  spec_out(s, &orank, oshape);
  *d = tmpl_tensor(s->dtype, s->r, s->ds, s->st[0]);
  *x = tmpl_tensor(s->idt, s->q, s->is, s->st[1]);
  *o = tmpl_tensor(s->dtype, orank, oshape, s->st[2]);
}

static clg_plan *spec_plan(clg_context *ctx, const spec *s, unsigned flags) {
  clg_tensor d, x, o;
  spec_templates(s, &d, &x, &o);
  clg_plan *p = NULL;
  clg_status st = clg_plan_create(ctx, &s->p, &d, &x, &o, flags, &p);
  cr_assert(st == CLG_SUCCESS && p != NULL, "%s: clg_plan_create: %s: %s",
            s->name, clg_status_string(st), clg_last_error());
  cr_expect_str_empty(clg_last_error(), "%s: message after success: %s",
                      s->name, clg_last_error());
  return p;
}

/* What the header says clg_plan_bake() builds: the gather kernel and, for
 * mode RAISE with cl_mem indices (whose values are read on the device), the
 * validation kernel. (Specs here all have indices and an output.) */
static unsigned spec_bake_programs(const spec *s) {
  return 1u +
         (s->p.mode == CLG_MODE_RAISE && s->st[1].kind == CLG_STORAGE_BUFFER);
}

/* One call's memory: data and indices drawn from a seed, the output full of
 * TU_SENTINEL, the reference result. */
typedef struct job {
  const spec *s;
  tu_tensor d, x, o;
  unsigned char *data, *idx, *want;
  size_t dbytes, ibytes, obytes;
  int32_t orank;
  int64_t oshape[REF_MAX_RANK];
  int64_t oob_pos; /* -1, or where an out-of-bounds index was put */
} job;

/* extra: added to every buffer offset (keep it a multiple of 64 to keep the
 * template's alignment). oob_pos >= 0: indices[oob_pos] is out of bounds
 * (bound + 3, or -bound - 1 when oob_value_neg), and there is no
 * reference. */
static void job_make_ex(job *j, const spec *s, uint64_t seed, size_t extra,
                        int64_t oob_pos, bool oob_value_neg) {
  memset(j, 0, sizeof *j);
  j->s = s;
  j->oob_pos = oob_pos;
  spec_out(s, &j->orank, j->oshape);
  size_t es = clg_dtype_size(s->dtype), is = clg_dtype_size(s->idt);
  int64_t dn = tu_numel(s->r, s->ds), in = tu_numel(s->q, s->is),
          on = tu_numel(j->orank, j->oshape);
  j->dbytes = (size_t)dn * es;
  j->ibytes = (size_t)in * is;
  j->obytes = (size_t)on * es;
  j->data = malloc(j->dbytes + 1);
  j->idx = malloc(j->ibytes + 1);
  j->want = malloc(j->obytes + 1);
  cr_assert(j->data && j->idx && j->want, "out of host memory");
  tu_rng rng = tu_rng_make(seed);
  tu_rng_bytes(&rng, j->data, j->dbytes);
  for (int64_t i = 0; i < in; ++i) {
    int64_t b = spec_bound(s, i);
    cr_assert(b >= 1, "test bug: an index into an empty axis in %s", s->name);
    int64_t v = s->p.mode == CLG_MODE_RAISE
                    ? tu_rng_range(&rng, -b, b - 1)
                    : tu_rng_range(&rng, -3 * b - 2, 3 * b + 2); /* any */
    tu_set_index(j->idx, s->idt, i, v);
  }
  if (oob_pos >= 0) {
    cr_assert(oob_pos < in, "test bug: oob_pos");
    int64_t b = spec_bound(s, oob_pos);
    tu_set_index(j->idx, s->idt, oob_pos, oob_value_neg ? -b - 1 : b + 3);
  } else {
    spec_ref(s, j->data, j->idx, j->want);
  }
  tu_storage st[3];
  for (int k = 0; k < 3; ++k) {
    st[k] = s->st[k];
    if (st[k].kind == CLG_STORAGE_BUFFER)
      st[k].offset += extra;
  }
  tu_tensor_init(&j->d, s->dtype, s->r, s->ds, st[0], j->data);
  tu_tensor_init(&j->x, s->idt, s->q, s->is, st[1], j->idx);
  tu_tensor_init(&j->o, s->dtype, j->orank, j->oshape, st[2], NULL);
}

static void job_make(job *j, const spec *s, uint64_t seed, size_t extra) {
  job_make_ex(j, s, seed, extra, -1, false);
}

static void job_free(job *j) {
  tu_tensor_free(&j->d);
  tu_tensor_free(&j->x);
  tu_tensor_free(&j->o);
  free(j->data);
  free(j->idx);
  free(j->want);
  memset(j, 0, sizeof *j);
}

/* Inputs unchanged? */
static bool job_inputs_ok(const job *j) {
  size_t n = j->dbytes > j->ibytes ? j->dbytes : j->ibytes;
  unsigned char *back = malloc(n + 1);
  cr_assert(back != NULL, "out of host memory");
  tu_tensor_read(&j->d, back);
  bool ok = tu_first_diff(back, j->data, j->dbytes) < 0;
  tu_tensor_read(&j->x, back);
  ok = ok && tu_first_diff(back, j->idx, j->ibytes) < 0;
  free(back);
  return ok;
}

/* The output is the reference's, nothing around it was written, the inputs
 * are unchanged. False and why in msg otherwise. */
static bool job_ok(const job *j, char *msg, size_t cap) {
  unsigned char *got = malloc(j->obytes + 1);
  cr_assert(got != NULL, "out of host memory");
  tu_tensor_read(&j->o, got);
  ptrdiff_t d = tu_first_diff(got, j->want, j->obytes);
  bool ok = false;
  if (d >= 0)
    snprintf(msg, cap,
             "%s: output differs from the reference at byte %td of %zu: got "
             "0x%02x, want 0x%02x",
             j->s->name, d, j->obytes, got[d], j->want[d]);
  else if (!tu_tensor_guards_ok(&j->o))
    snprintf(msg, cap, "%s: bytes around the output were written", j->s->name);
  else if (!job_inputs_ok(j))
    snprintf(msg, cap, "%s: an input was modified", j->s->name);
  else
    ok = true;
  free(got);
  return ok;
}

/* The output and everything around it still hold TU_SENTINEL, and the
 * inputs are unchanged. */
static bool job_untouched(const job *j) {
  return tu_tensor_all_sentinel(&j->o) && job_inputs_ok(j);
}

/* Enqueue job j on plan and wait for it (its event; its outcome for an
 * asynchronous plan). Returns the call's status, or the outcome's; the
 * message goes to msg. Breaches of the contract (no event or outcome on
 * success, one set on failure) go to why (empty when none). No Criterion
 * assertion: usable from any thread. */
static clg_status run_plan(clg_plan *plan, bool async, job *j,
                           cl_command_queue q, char *msg, size_t mcap,
                           char *why, size_t wcap) {
  static int poison;
  cl_event const ev_poison = (cl_event)(void *)&poison;
  clg_outcome *const oc_poison = (clg_outcome *)(void *)&poison;
  cl_event ev = ev_poison;
  clg_outcome *oc = oc_poison;
  why[0] = '\0';
  msg[0] = '\0';
  clg_status st = clg_plan_enqueue(plan, &j->d.desc, &j->x.desc, &j->o.desc, q,
                                   0, NULL, &ev, async ? &oc : NULL);
  snprintf(msg, mcap, "%s", clg_last_error());
  if (st != CLG_SUCCESS) {
    if (ev != ev_poison || oc != oc_poison)
      snprintf(why, wcap, "event or outcome set on failure");
    return st;
  }
  if (msg[0])
    snprintf(why, wcap, "message after success: %s", msg);
  if (ev == ev_poison || ev == NULL) {
    snprintf(why, wcap, "success but no event");
    ev = NULL;
  }
  if (!async && oc != oc_poison)
    snprintf(why, wcap, "outcome written by a plan without async check");
  if (async && (oc == oc_poison || oc == NULL)) {
    snprintf(why, wcap, "success but no outcome");
    oc = NULL;
  }
  if (async && oc) {
    st = clg_outcome_wait(oc);
    snprintf(msg, mcap, "%s", clg_last_error());
  }
  if (ev) {
    cl_int err = clWaitForEvents(1, &ev);
    if (err != CL_SUCCESS)
      snprintf(why, wcap, "clWaitForEvents on the event: %d", (int)err);
    clReleaseEvent(ev);
  }
  if (async)
    clg_outcome_release(oc);
  return st;
}

/* run_plan, asserting success and the reference's bytes. */
static void plan_ok(clg_plan *plan, bool async, job *j, cl_command_queue q,
                    const char *what) {
  char msg[1024], why[256];
  clg_status st = run_plan(plan, async, j, q, msg, sizeof msg, why, sizeof why);
  cr_expect(st == CLG_SUCCESS, "%s (%s): %s: %s", j->s->name, what,
            clg_status_string(st), msg);
  cr_expect(why[0] == '\0', "%s (%s): %s", j->s->name, what, why);
  if (st == CLG_SUCCESS) {
    char m[1024];
    cr_expect(job_ok(j, m, sizeof m), "%s (%s)", m, what);
  }
}

/* The same job through the one-shot calls (clg_run, or clg_run_async then
 * its outcome), waited for. */
static clg_status run_oneshot(clg_context *ctx, bool async, job *j, char *msg,
                              size_t cap) {
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  clg_status st = async ? clg_run_async(ctx, &j->s->p, &j->d.desc, &j->x.desc,
                                        &j->o.desc, NULL, 0, NULL, &ev, &oc)
                        : clg_run(ctx, &j->s->p, &j->d.desc, &j->x.desc,
                                  &j->o.desc, NULL, 0, NULL, &ev);
  snprintf(msg, cap, "%s", clg_last_error());
  if (st != CLG_SUCCESS)
    return st;
  cr_assert(ev != NULL, "%s: success but no event", j->s->name);
  if (async) {
    cr_assert(oc != NULL, "%s: success but no outcome", j->s->name);
    st = clg_outcome_wait(oc);
    snprintf(msg, cap, "%s", clg_last_error());
  }
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
  clg_outcome_release(oc);
  return st;
}

/* ---------------------------------------------------------- the specs */

#define D(...) ((const int64_t[]){__VA_ARGS__})

/* Gather on cl_mem, offsets multiples of the element size. */
static spec s_gather_buf(void) {
  return mkspec("gather f32 [50,8] axis 0, int32 [12], buffers", CLG_OP_GATHER,
                0, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2, D(50, 8),
                CLG_DTYPE_INT32, 1, D(12), B(16), B(8), B(32));
}
static spec s_gather_bd(void) {
  return mkspec("gather u16 [3,5,7,4] axis 2 batch_dims 1, int64 [3,6], "
                "host data",
                CLG_OP_GATHER, 2, 1, CLG_MODE_RAISE, CLG_DTYPE_UINT16, 4,
                D(3, 5, 7, 4), CLG_DTYPE_INT64, 2, D(3, 6), H(), B(24), B(6));
}
static spec s_gather_wrap(void) {
  return mkspec("gather i8 [9,5] axis -1 WRAP, int32 [4,3], buffers",
                CLG_OP_GATHER, -1, 0, CLG_MODE_WRAP, CLG_DTYPE_INT8, 2, D(9, 5),
                CLG_DTYPE_INT32, 2, D(4, 3), B(0), B(4), B(1));
}
static spec s_gather_clip(void) {
  return mkspec("gather c128 [7,2] axis 0 CLIP, int64 [10], buffers",
                CLG_OP_GATHER, 0, 0, CLG_MODE_CLIP, CLG_DTYPE_COMPLEX128, 2,
                D(7, 2), CLG_DTYPE_INT64, 1, D(10), B(32), B(16), B(16));
}
static spec s_gather_mixed(void) {
  return mkspec("gather f64 [6,3,2] axis 1, int64 [] (scalar), host data",
                CLG_OP_GATHER, 1, 0, CLG_MODE_RAISE, CLG_DTYPE_DOUBLE, 3,
                D(6, 3, 2), CLG_DTYPE_INT64, 0, NULL, H(), B(8), B(0));
}
/* cl_mem indices, host output: an asynchronous plan checks the values in
 * the call (the header: only a cl_mem output defers the verdict). */
static spec s_gather_host_out(void) {
  return mkspec("gather f16 [10,6] axis 1, int64 [4], buffers, host output",
                CLG_OP_GATHER, 1, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT16, 2,
                D(10, 6), CLG_DTYPE_INT64, 1, D(4), B(0), B(16), H());
}
static spec s_elements_buf(void) {
  return mkspec("elements f64 [4,6,3] axis 1, int64 [4,5,3], buffers",
                CLG_OP_GATHER_ELEMENTS, 1, 0, CLG_MODE_RAISE, CLG_DTYPE_DOUBLE,
                3, D(4, 6, 3), CLG_DTYPE_INT64, 3, D(4, 5, 3), B(8), B(16),
                B(24));
}
static spec s_nd_buf(void) {
  return mkspec("nd i8 [3,4,5,6] batch_dims 1, int32 [3,7,2], buffers",
                CLG_OP_GATHER_ND, 0, 1, CLG_MODE_RAISE, CLG_DTYPE_INT8, 4,
                D(3, 4, 5, 6), CLG_DTYPE_INT32, 3, D(3, 7, 2), B(3), B(12),
                B(5));
}
static spec s_gather_host(void) {
  return mkspec("gather bf16 [20,3] axis -1, int64 [2,5], host", CLG_OP_GATHER,
                -1, 0, CLG_MODE_RAISE, CLG_DTYPE_BFLOAT16, 2, D(20, 3),
                CLG_DTYPE_INT64, 2, D(2, 5), H(), H(), H());
}
static spec s_elements_host(void) {
  return mkspec("elements i32 [5,4] axis 0, int32 [7,4], host",
                CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_RAISE, CLG_DTYPE_INT32,
                2, D(5, 4), CLG_DTYPE_INT32, 2, D(7, 4), H(), H(), H());
}
static spec s_nd_host(void) {
  return mkspec("nd f32 [4,5,6], int64 [3,2], host", CLG_OP_GATHER_ND, 0, 0,
                CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 3, D(4, 5, 6), CLG_DTYPE_INT64,
                2, D(3, 2), H(), H(), H());
}
/* 8192 int32 indices: 32 KiB, from which the header says cl_mem indices
 * are checked by the validation kernel. */
static spec s_gather_big(void) {
  return mkspec("gather f32 [64,4], int32 [8192] (32 KiB), buffers",
                CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2,
                D(64, 4), CLG_DTYPE_INT32, 1, D(8192), B(0), B(0), B(0));
}

/* ---------------------------------------------- reuse, counted programs */

#define REUSE_CALLS 20

/* A fresh context: create builds nothing, bake builds what the header
 * promises, then REUSE_CALLS enqueues on new memory (new cl_mem or host
 * blocks, new data, offsets moved by multiples of 64 bytes, the context's
 * queue or the caller's) build nothing and give the reference's bytes. */
static void check_reuse(const spec *s, unsigned flags, uint64_t seed) {
  bool async = (flags & CLG_PLAN_ASYNC_CHECK) != 0;
  clg_context *ctx = fresh_ctx();
  clg_plan *plan = spec_plan(ctx, s, flags);
  cr_expect_eq(ctx->builds, 0u, "%s: clg_plan_create built %u programs",
               s->name, ctx->builds);
  clg_status st = clg_plan_bake(plan);
  cr_assert_eq(st, CLG_SUCCESS, "%s: clg_plan_bake: %s: %s", s->name,
               clg_status_string(st), clg_last_error());
  unsigned want = spec_bake_programs(s);
  cr_expect_eq(ctx->builds, want, "%s%s: bake built %u programs, expected %u",
               s->name, async ? " (async)" : "", ctx->builds, want);
  unsigned baked = ctx->builds;
  for (int i = 0; i < REUSE_CALLS; ++i) {
    job j;
    job_make(&j, s, seed + (uint64_t)i, (size_t)(i % 4) * 64u);
    char what[64];
    snprintf(what, sizeof what, "%s enqueue %d", async ? "async" : "sync", i);
    plan_ok(plan, async, &j, (i & 1) ? tu_queue() : NULL, what);
    if (ctx->builds != baked) { /* reported once per new program */
      cr_expect(false, "%s%s: %s built programs (%u -> %u)", s->name,
                async ? " (async)" : "", what, baked, ctx->builds);
      baked = ctx->builds;
    }
    job_free(&j);
  }
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

Test(plans, reuse_gather_buffers) {
  spec s = s_gather_buf();
  check_reuse(&s, 0, 100);
  check_reuse(&s, CLG_PLAN_ASYNC_CHECK, 200);
}

Test(plans, reuse_gather_batch_dims_mixed_storage) {
  spec s1 = s_gather_bd(), s2 = s_gather_mixed();
  check_reuse(&s1, 0, 300);
  check_reuse(&s1, CLG_PLAN_ASYNC_CHECK, 400);
  check_reuse(&s2, 0, 500);
  check_reuse(&s2, CLG_PLAN_ASYNC_CHECK, 600);
}

/* cl_mem indices and a host output: the asynchronous plan checks the
 * values in the call, so its gather kernel is the ungated one, and the bake
 * must build that one. */
Test(plans, reuse_async_host_output) {
  spec s = s_gather_host_out();
  check_reuse(&s, 0, 650);
  check_reuse(&s, CLG_PLAN_ASYNC_CHECK, 660);
}

/* Modes WRAP and CLIP read no index value: no validation kernel. */
Test(plans, reuse_gather_wrap_clip) {
  spec s1 = s_gather_wrap(), s2 = s_gather_clip();
  check_reuse(&s1, 0, 700);
  check_reuse(&s1, CLG_PLAN_ASYNC_CHECK, 800);
  check_reuse(&s2, 0, 900);
  check_reuse(&s2, CLG_PLAN_ASYNC_CHECK, 1000);
}

Test(plans, reuse_gather_elements) {
  spec s = s_elements_buf();
  check_reuse(&s, 0, 1100);
  check_reuse(&s, CLG_PLAN_ASYNC_CHECK, 1200);
}

Test(plans, reuse_gather_nd) {
  spec s = s_nd_buf();
  check_reuse(&s, 0, 1300);
  check_reuse(&s, CLG_PLAN_ASYNC_CHECK, 1400);
}

/* Host templates: new host blocks each call; host indices are scanned on
 * the host, so only the gather kernel is built. */
Test(plans, reuse_host_templates) {
  spec s1 = s_gather_host(), s2 = s_elements_host(), s3 = s_nd_host();
  check_reuse(&s1, 0, 1500);
  check_reuse(&s1, CLG_PLAN_ASYNC_CHECK, 1600);
  check_reuse(&s2, 0, 1700);
  check_reuse(&s3, 0, 1800);
  check_reuse(&s3, CLG_PLAN_ASYNC_CHECK, 1900);
}

/* Indices from 32 KiB: checked by the (baked) validation kernel on every
 * enqueue, sync or async, and still nothing is built. */
Test(plans, reuse_device_validation) {
  spec s = s_gather_big();
  /* (Test builds can force the read-back: CLGATHER_TEST_DEVICE_VALIDATION.) */
  const char *force = getenv("CLGATHER_TEST_DEVICE_VALIDATION");
  for (int async = 0; async < 2; ++async) {
    unsigned forced_off =
        !async && force && strcmp(force, "never") == 0 ? 0u : 1u;
    clg_context *ctx = fresh_ctx();
    clg_plan *plan = spec_plan(ctx, &s, async ? CLG_PLAN_ASYNC_CHECK : 0);
    cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
    cr_expect_eq(ctx->builds, 2u, "bake built %u programs, expected 2",
                 ctx->builds);
    for (int i = 0; i < 5; ++i) {
      job j;
      job_make(&j, &s, 2000u + (uint64_t)(10 * async + i), (size_t)i * 64u);
      unsigned v0 = atomic_load(&ctx->device_validations);
      plan_ok(plan, async, &j, NULL, async ? "async" : "sync");
      cr_expect_eq(atomic_load(&ctx->device_validations), v0 + forced_off,
                   "%s enqueue %d: the indices were not validated on the "
                   "device",
                   async ? "async" : "sync", i);
      cr_expect_eq(ctx->builds, 2u, "enqueue %d built programs", i);
      job_free(&j);
    }
    clg_plan_destroy(plan);
    clg_context_destroy(ctx);
  }
}

/* ----------------------------------------------------- bake and reuse */

Test(plans, bake_is_idempotent_and_shared) {
  spec s = s_gather_buf();
  clg_context *ctx = fresh_ctx();
  clg_plan *p1 = spec_plan(ctx, &s, 0);
  cr_assert_eq(clg_plan_bake(p1), CLG_SUCCESS, "%s", clg_last_error());
  unsigned b = ctx->builds;
  cr_expect_eq(b, 2u);
  cr_assert_eq(clg_plan_bake(p1), CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_str_empty(clg_last_error());
  cr_expect_eq(ctx->builds, b, "a second bake built %u programs",
               ctx->builds - b);
  /* Another plan for the same call shares the context's programs. */
  clg_plan *p2 = spec_plan(ctx, &s, 0);
  cr_assert_eq(clg_plan_bake(p2), CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(ctx->builds, b, "a second plan's bake built %u programs",
               ctx->builds - b);
  /* An async plan needs the gated gather kernel only: the validation
   * kernel is shared. */
  clg_plan *p3 = spec_plan(ctx, &s, CLG_PLAN_ASYNC_CHECK);
  cr_assert_eq(clg_plan_bake(p3), CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(ctx->builds, b + 1, "the async plan built %u programs",
               ctx->builds - b);
  /* So does a one-shot call of the same shape. */
  unsigned b3 = ctx->builds;
  job j;
  job_make(&j, &s, 2100, 0);
  char msg[1024];
  cr_expect_eq(run_oneshot(ctx, false, &j, msg, sizeof msg), CLG_SUCCESS, "%s",
               msg);
  cr_expect(job_ok(&j, msg, sizeof msg), "%s", msg);
  cr_expect_eq(ctx->builds, b3, "clg_run after the bake built a program");
  job_free(&j);
  cr_expect_eq(clg_plan_bake(NULL), CLG_ERROR_NULL_ARGUMENT);
  cr_expect(tu_contains(clg_last_error(), "plan"), "%s", clg_last_error());
  clg_plan_destroy(p1);
  clg_plan_destroy(p2);
  clg_plan_destroy(p3);
  clg_context_destroy(ctx);
}

/* An unbaked plan builds on its first enqueue, then never again. */
Test(plans, unbaked_plan_builds_on_first_enqueue) {
  static const struct {
    spec (*make)(void);
    unsigned flags;
    unsigned programs; /* built by the first enqueue */
  } cases[] = {
      /* async, cl_mem indices: the validation kernel and the gated
       * gather kernel */
      {s_gather_buf, CLG_PLAN_ASYNC_CHECK, 2},
      {s_nd_buf, CLG_PLAN_ASYNC_CHECK, 2},
      /* host indices: the gather kernel only */
      {s_gather_host, 0, 1},
      {s_elements_host, CLG_PLAN_ASYNC_CHECK, 1},
      {s_gather_wrap, 0, 1},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    spec s = cases[c].make();
    bool async = (cases[c].flags & CLG_PLAN_ASYNC_CHECK) != 0;
    clg_context *ctx = fresh_ctx();
    clg_plan *plan = spec_plan(ctx, &s, cases[c].flags);
    cr_expect_eq(ctx->builds, 0u);
    for (int i = 0; i < 3; ++i) {
      job j;
      job_make(&j, &s, 2200u + 10u * c + (uint64_t)i, 0);
      plan_ok(plan, async, &j, NULL, "unbaked");
      cr_expect_eq(ctx->builds, cases[c].programs,
                   "%s: after enqueue %d: %u programs built, expected %u",
                   s.name, i, ctx->builds, cases[c].programs);
      job_free(&j);
    }
    /* Baking afterwards finds everything built. */
    cr_expect_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
    cr_expect_eq(ctx->builds, cases[c].programs, "%s: bake after use built",
                 s.name);
    clg_plan_destroy(plan);
    clg_context_destroy(ctx);
  }
}

/* A sync plan with small cl_mem indices (read back, not validated on the
 * device): the first enqueue builds at least the gather kernel; the
 * second builds nothing. */
Test(plans, unbaked_sync_plan_then_cached) {
  spec s = s_elements_buf();
  clg_context *ctx = fresh_ctx();
  clg_plan *plan = spec_plan(ctx, &s, 0);
  job j;
  job_make(&j, &s, 2300, 0);
  plan_ok(plan, false, &j, NULL, "first");
  job_free(&j);
  unsigned b = ctx->builds;
  cr_expect(b >= 1u, "the first enqueue ran without building a program");
  job_make(&j, &s, 2301, 64);
  plan_ok(plan, false, &j, NULL, "second");
  job_free(&j);
  cr_expect_eq(ctx->builds, b, "the second enqueue built a program");
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

/* Same inputs, same bytes as the one-shot calls (the whole allocation or
 * buffer, guard bytes included), and the reference's. */
Test(plans, same_bytes_as_clg_run) {
  spec (*const makers[])(void) = {
      s_gather_buf, s_gather_bd,   s_gather_clip, s_gather_wrap, s_elements_buf,
      s_nd_buf,     s_gather_host, s_nd_host,     s_gather_mixed};
  clg_context *ctx = fresh_ctx();
  for (size_t m = 0; m < sizeof makers / sizeof makers[0]; ++m) {
    spec s = makers[m]();
    for (int async = 0; async < 2; ++async) {
      clg_plan *plan = spec_plan(ctx, &s, async ? CLG_PLAN_ASYNC_CHECK : 0);
      job a, b;
      uint64_t seed = 2400u + 10u * m + (uint64_t)async;
      job_make(&a, &s, seed, 0);
      job_make(&b, &s, seed, 0);
      plan_ok(plan, async, &a, NULL, "plan");
      char msg[1024];
      clg_status st = run_oneshot(ctx, async, &b, msg, sizeof msg);
      cr_expect_eq(st, CLG_SUCCESS, "%s: one-shot: %s", s.name, msg);
      cr_assert_eq(a.o.total, b.o.total);
      unsigned char *ga = malloc(a.o.total + 1), *gb = malloc(b.o.total + 1);
      cr_assert(ga && gb);
      tu_tensor_read_all(&a.o, ga);
      tu_tensor_read_all(&b.o, gb);
      ptrdiff_t d = tu_first_diff(ga, gb, a.o.total);
      cr_expect(d < 0, "%s%s: plan and one-shot differ at byte %td", s.name,
                async ? " (async)" : "", d);
      cr_expect(job_ok(&b, msg, sizeof msg), "one-shot: %s", msg);
      free(ga);
      free(gb);
      job_free(&a);
      job_free(&b);
      clg_plan_destroy(plan);
    }
  }
  clg_context_destroy(ctx);
}

/* Offsets whose alignment differs from the template's: right bytes (a
 * program may be built once for them, then reused). */
Test(plans, other_offset_alignment) {
  /* 32-byte slices: the template's offsets (0) allow 16-byte copies. */
  spec s = mkspec("gather f32 [50,8] axis 0, int64 [9], buffers at 0",
                  CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2,
                  D(50, 8), CLG_DTYPE_INT64, 1, D(9), B(0), B(0), B(0));
  static const size_t offs[][3] = {
      {1, 16, 3}, /* any byte for data and output */
      {0, 0, 0},  /* back to the template's */
      {4, 8, 12}, /* element-aligned, narrower copies */
      {5, 24, 7}, /* byte-aligned again */
      {33, 8, 2},
  };
  for (int async = 0; async < 2; ++async) {
    /* (Each new alignment may cost a compile: the async plan tries two.) */
    size_t nk = async ? 2 : sizeof offs / sizeof offs[0];
    clg_context *ctx = fresh_ctx();
    clg_plan *plan = spec_plan(ctx, &s, async ? CLG_PLAN_ASYNC_CHECK : 0);
    cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
    unsigned baked = ctx->builds;
    for (size_t k = 0; k < nk; ++k) {
      for (int rep = 0; rep < 2; ++rep) {
        spec sk = s;
        for (int t = 0; t < 3; ++t)
          sk.st[t].offset = offs[k][t];
        job j;
        job_make(&j, &sk, 2500u + 10u * k + (uint64_t)rep, 0);
        unsigned before = ctx->builds;
        char what[64];
        snprintf(what, sizeof what, "offsets %zu/%zu/%zu rep %d", offs[k][0],
                 offs[k][1], offs[k][2], rep);
        plan_ok(plan, async, &j, rep ? tu_queue() : NULL, what);
        if (rep == 1)
          cr_expect_eq(ctx->builds, before,
                       "%s: the same offsets built a program again", what);
        if (offs[k][0] == 0 && offs[k][2] == 0)
          cr_expect_eq(ctx->builds, before,
                       "%s: the template's own alignment built a program",
                       what);
        job_free(&j);
      }
    }
    cr_expect(ctx->builds >= baked);
    clg_plan_destroy(plan);
    clg_context_destroy(ctx);
  }
}

/* Host memory at addresses that are not aligned like the templates (which
 * plan for aligned host memory). */
Test(plans, misaligned_host_memory) {
  spec s = s_gather_host(); /* bf16 [20,3], int64 [2,5] */
  clg_context *ctx = fresh_ctx();
  clg_plan *plan = spec_plan(ctx, &s, 0);
  cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
  job j;
  job_make(&j, &s, 2600, 0);
  for (size_t shift = 1; shift < 4; ++shift) {
    unsigned char *dblk = malloc(j.dbytes + 8), *iblk = malloc(j.ibytes + 8),
                  *oblk = malloc(j.obytes + 8);
    cr_assert(dblk && iblk && oblk);
    memcpy(dblk + shift, j.data, j.dbytes);
    memcpy(iblk + shift, j.idx, j.ibytes); /* indices at an odd address */
    memset(oblk, TU_SENTINEL, j.obytes + 8);
    clg_tensor d = clg_tensor_host(s.dtype, s.r, s.ds, dblk + shift);
    clg_tensor x = clg_tensor_host(s.idt, s.q, s.is, iblk + shift);
    clg_tensor o = clg_tensor_host(s.dtype, j.orank, j.oshape, oblk + shift);
    clg_status st =
        clg_plan_enqueue(plan, &d, &x, &o, NULL, 0, NULL, NULL, NULL);
    cr_expect_eq(st, CLG_SUCCESS, "shift %zu: %s", shift, clg_last_error());
    cr_expect(tu_first_diff(oblk + shift, j.want, j.obytes) < 0,
              "shift %zu: output differs from the reference", shift);
    for (size_t b = 0; b < shift; ++b)
      cr_expect_eq(oblk[b], TU_SENTINEL, "shift %zu: byte before written",
                   shift);
    for (size_t b = shift + j.obytes; b < j.obytes + 8; ++b)
      cr_expect_eq(oblk[b], TU_SENTINEL, "shift %zu: byte after written",
                   shift);
    free(dblk);
    free(iblk);
    free(oblk);
  }
  job_free(&j);
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

/* An asynchronous plan with cl_mem indices and a host output at an
 * address that cannot be wrapped in place (staged through a device
 * buffer): a bad index leaves every byte of the host output as it was
 * (checked in the call, as the header says for a host output), and a good
 * call writes exactly the output. */
Test(plans, async_host_output_misaligned) {
  spec s = s_gather_host_out(); /* f16 [10,6] axis 1, int64 [4] */
  clg_context *ctx = fresh_ctx();
  clg_plan *plan = spec_plan(ctx, &s, CLG_PLAN_ASYNC_CHECK);
  for (int bad = 0; bad < 2; ++bad) {
    job j;
    job_make_ex(&j, &s, 2650u + (uint64_t)bad, 0, bad ? 2 : -1, false);
    unsigned char *oblk = malloc(j.obytes + 8);
    cr_assert(oblk != NULL);
    memset(oblk, TU_SENTINEL, j.obytes + 8);
    clg_tensor o = clg_tensor_host(s.dtype, j.orank, j.oshape, oblk + 1);
    cl_event ev = POISON_EVENT;
    clg_outcome *oc = POISON_OUTCOME;
    clg_status st = clg_plan_enqueue(plan, &j.d.desc, &j.x.desc, &o, NULL, 0,
                                     NULL, &ev, &oc);
    if (bad) {
      cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s: %s",
                   clg_status_string(st), clg_last_error());
      cr_expect(ev == POISON_EVENT && oc == POISON_OUTCOME,
                "event or outcome set on failure");
      for (size_t b = 0; b < j.obytes + 8; ++b)
        if (oblk[b] != TU_SENTINEL) {
          cr_expect(false, "byte %zu of the host output block was written", b);
          break;
        }
    } else {
      cr_expect_eq(st, CLG_SUCCESS, "%s", clg_last_error());
      cr_assert(ev != POISON_EVENT && ev && oc != POISON_OUTCOME && oc);
      cr_expect_eq(clg_outcome_wait(oc), CLG_SUCCESS, "%s", clg_last_error());
      tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
      clReleaseEvent(ev);
      clg_outcome_release(oc);
      cr_expect(tu_first_diff(oblk + 1, j.want, j.obytes) < 0,
                "output differs from the reference");
      cr_expect(oblk[0] == TU_SENTINEL && oblk[j.obytes + 1] == TU_SENTINEL,
                "bytes around the output written");
    }
    cr_expect(job_inputs_ok(&j));
    free(oblk);
    job_free(&j);
  }
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

/* The templates' memory is not used: a plan made from templates with real
 * buffers works after those buffers are released. */
Test(plans, template_memory_not_kept) {
  spec s = s_gather_buf();
  clg_context *ctx = fresh_ctx();
  job t;
  job_make(&t, &s, 2700, 0);
  clg_plan *plan = NULL;
  cr_assert_eq(clg_plan_create(ctx, &s.p, &t.d.desc, &t.x.desc, &t.o.desc,
                               CLG_PLAN_ASYNC_CHECK, &plan),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_expect(tu_tensor_all_sentinel(&t.o), "clg_plan_create wrote the output");
  job_free(&t);
  cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
  job j;
  job_make(&j, &s, 2701, 128);
  plan_ok(plan, true, &j, NULL, "after the template's buffers are gone");
  job_free(&j);
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

/* Tensors without elements: an empty output still has its indices checked;
 * no indices at all need no kernel. Enqueues after the bake build nothing
 * and return an event. */
Test(plans, empty_tensors) {
  spec s1 = mkspec("gather f32 [5,0], int32 [3], buffers (empty output)",
                   CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2,
                   D(5, 0), CLG_DTYPE_INT32, 1, D(3), B(0), B(4), B(0));
  spec s2 = mkspec("gather f32 [5,2], int64 [0], buffers (no indices)",
                   CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2,
                   D(5, 2), CLG_DTYPE_INT64, 1, D(0), B(0), B(8), B(0));
  const spec *specs[2] = {&s1, &s2};
  for (int k = 0; k < 2; ++k)
    for (int async = 0; async < 2; ++async) {
      const spec *s = specs[k];
      clg_context *ctx = fresh_ctx();
      clg_plan *plan = spec_plan(ctx, s, async ? CLG_PLAN_ASYNC_CHECK : 0);
      cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
      unsigned baked = ctx->builds;
      cr_expect(baked <= 1u, "%s: bake built %u programs for no output bytes",
                s->name, baked);
      if (k == 1)
        cr_expect_eq(baked, 0u, "%s: nothing to run, yet %u programs built",
                     s->name, baked);
      for (int i = 0; i < 3; ++i) {
        job j;
        job_make(&j, s, 2800u + (uint64_t)(10 * k + 2 * i + async), 0);
        plan_ok(plan, async, &j, NULL, "empty");
        job_free(&j);
      }
      if (k == 0) { /* a bad index is still found */
        job j;
        job_make_ex(&j, s, 2890u + (uint64_t)async, 0, 1, false);
        char msg[1024], why[256];
        clg_status st =
            run_plan(plan, async, &j, NULL, msg, sizeof msg, why, sizeof why);
        cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s: %s: %s", s->name,
                     clg_status_string(st), msg);
        cr_expect(tu_contains(msg, "indices[1]"), "%s", msg);
        cr_expect(why[0] == '\0', "%s", why);
        cr_expect(job_untouched(&j));
        job_free(&j);
      }
      cr_expect_eq(ctx->builds, baked, "%s: enqueues built programs", s->name);
      clg_plan_destroy(plan);
      clg_context_destroy(ctx);
    }
}

typedef struct gate_setter {
  cl_event gate;
  atomic_int returned; /* the enqueue has returned */
  atomic_int set;      /* the gate was completed */
} gate_setter;

/* Completes the gate once the enqueue has returned, or after 5 s (an
 * enqueue that waits for its wait list would otherwise never return). */
static void *gate_main(void *arg) {
  gate_setter *g = arg;
  struct timespec ts = {0, 1000 * 1000};
  for (int i = 0; i < 5000 && !atomic_load(&g->returned); ++i)
    nanosleep(&ts, NULL);
  atomic_store(&g->set, 1);
  clSetUserEventStatus(g->gate, CL_COMPLETE);
  return NULL;
}

/* An asynchronous plan on cl_mem returns without waiting for its wait list
 * (a user event another thread completes later), writes nothing before it,
 * and then the right bytes. */
Test(plans, async_enqueue_does_not_wait) {
  spec s = s_gather_buf();
  clg_context *ctx = fresh_ctx();
  clg_plan *plan = spec_plan(ctx, &s, CLG_PLAN_ASYNC_CHECK);
  cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
  job j;
  job_make(&j, &s, 2900, 0);
  cl_int err = CL_SUCCESS;
  gate_setter g;
  g.gate = clCreateUserEvent(tu_cl_context(), &err);
  tu_cl_check(err, "clCreateUserEvent");
  atomic_init(&g.set, 0);
  atomic_init(&g.returned, 0);
  pthread_t th;
  cr_assert(pthread_create(&th, NULL, gate_main, &g) == 0);
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  /* On the context's queue: the output is looked at on the tests' own. */
  clg_status st = clg_plan_enqueue(plan, &j.d.desc, &j.x.desc, &j.o.desc, NULL,
                                   1, &g.gate, &ev, &oc);
  int early = !atomic_load(&g.set);
  bool untouched = early && tu_tensor_all_sentinel(&j.o);
  atomic_store(&g.returned, 1);
  pthread_join(th, NULL);
  cr_assert_eq(st, CLG_SUCCESS, "%s", clg_last_error());
  cr_expect(early, "the asynchronous enqueue waited for its wait list");
  cr_expect(!early || untouched, "output written before the wait list");
  cr_expect_eq(clg_outcome_wait(oc), CLG_SUCCESS, "%s", clg_last_error());
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  char msg[1024];
  cr_expect(job_ok(&j, msg, sizeof msg), "%s", msg);
  clReleaseEvent(ev);
  clReleaseEvent(g.gate);
  clg_outcome_release(oc);
  job_free(&j);
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

/* ------------------------------------------------ clg_plan_create errors */

static void create_fails(const char *what, clg_status want, const char *needle,
                         clg_context *ctx, const clg_params *p,
                         const clg_tensor *d, const clg_tensor *x,
                         const clg_tensor *o, unsigned flags) {
  clg_plan *plan = POISON_PLAN;
  clg_status st = clg_plan_create(ctx, p, d, x, o, flags, &plan);
  cr_expect_eq(st, want, "%s: got %s, want %s: %s", what, clg_status_string(st),
               clg_status_string(want), clg_last_error());
  cr_expect_null(plan, "%s: *out not set to NULL on failure", what);
  cr_expect(tu_contains_ci(clg_last_error(), needle),
            "%s: the message does not name \"%s\": %s", what, needle,
            clg_last_error());
  if (st == CLG_SUCCESS && plan != POISON_PLAN)
    clg_plan_destroy(plan);
}

static void create_ok(const char *what, clg_context *ctx, const clg_params *p,
                      const clg_tensor *d, const clg_tensor *x,
                      const clg_tensor *o, unsigned flags) {
  clg_plan *plan = NULL;
  clg_status st = clg_plan_create(ctx, p, d, x, o, flags, &plan);
  cr_expect_eq(st, CLG_SUCCESS, "%s: %s: %s", what, clg_status_string(st),
               clg_last_error());
  cr_expect(plan != NULL, "%s: no plan", what);
  cr_expect_str_empty(clg_last_error(), "%s", what);
  clg_plan_destroy(plan);
}

Test(plans, create_errors) {
  clg_context *ctx = fresh_ctx();
  const clg_params g0 = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  const int64_t ds[2] = {3, 4}, is[1] = {5}, os[2] = {5, 4};
  const clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, NULL, 16);
  const clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT32, 1, is, NULL, 8);
  const clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, NULL, 4);
  create_ok("the base case (NULL buffers)", ctx, &g0, &d, &x, &o, 0);
  create_ok("params NULL", ctx, NULL, &d, &x, &o, CLG_PLAN_ASYNC_CHECK);

  /* NULL pointers. */
  create_fails("ctx NULL", CLG_ERROR_NULL_ARGUMENT, "ctx", NULL, &g0, &d, &x,
               &o, 0);
  create_fails("data NULL", CLG_ERROR_NULL_ARGUMENT, "data", ctx, &g0, NULL, &x,
               &o, 0);
  create_fails("indices NULL", CLG_ERROR_NULL_ARGUMENT, "indices", ctx, &g0, &d,
               NULL, &o, 0);
  create_fails("output NULL", CLG_ERROR_NULL_ARGUMENT, "output", ctx, &g0, &d,
               &x, NULL, 0);
  cr_expect_eq(clg_plan_create(ctx, &g0, &d, &x, &o, 0, NULL),
               CLG_ERROR_NULL_ARGUMENT);
  cr_expect(tu_contains(clg_last_error(), "out"), "%s", clg_last_error());

  /* Flags. */
  create_fails("flag bit 1", CLG_ERROR_INVALID_ARGUMENT, "flag", ctx, &g0, &d,
               &x, &o, 2u);
  create_fails("flag bit 31", CLG_ERROR_INVALID_ARGUMENT, "flag", ctx, &g0, &d,
               &x, &o, CLG_PLAN_ASYNC_CHECK | 0x80000000u);

  /* Params. */
  clg_params p = g0;
  p.op = (clg_op)7;
  create_fails("unknown op", CLG_ERROR_INVALID_ARGUMENT, "operator", ctx, &p,
               &d, &x, &o, 0);
  p = g0;
  p.mode = (clg_index_mode)3;
  create_fails("unknown mode", CLG_ERROR_INVALID_ARGUMENT, "mode", ctx, &p, &d,
               &x, &o, 0);
  p = g0;
  p.axis = 2;
  create_fails("axis 2 of rank 2", CLG_ERROR_INVALID_AXIS, "axis", ctx, &p, &d,
               &x, &o, 0);
  p.axis = -3;
  create_fails("axis -3 of rank 2", CLG_ERROR_INVALID_AXIS, "axis", ctx, &p, &d,
               &x, &o, 0);
  p = g0;
  p.batch_dims = 2;
  create_fails("batch_dims 2 with indices of rank 1",
               CLG_ERROR_INVALID_BATCH_DIMS, "batch_dims", ctx, &p, &d, &x, &o,
               0);
  p.batch_dims = 1; /* > axis 0 */
  create_fails("batch_dims 1 above axis 0", CLG_ERROR_INVALID_BATCH_DIMS,
               "batch_dims", ctx, &p, &d, &x, &o, 0);
  {
    const int64_t bds[2] = {3, 4}, bis[2] = {2, 5}, bos[2] = {3, 5};
    clg_tensor bd = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, bds, NULL, 0);
    clg_tensor bx = clg_tensor_buffer(CLG_DTYPE_INT32, 2, bis, NULL, 0);
    clg_tensor bo = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, bos, NULL, 0);
    clg_params bp = {CLG_OP_GATHER, 1, 1, CLG_MODE_RAISE};
    create_fails("batch dimension differs", CLG_ERROR_INCOMPATIBLE_SHAPES,
                 "batch", ctx, &bp, &bd, &bx, &bo, 0);
  }
  {
    clg_params ep = {CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_WRAP};
    const int64_t eis[2] = {2, 4};
    clg_tensor ex = clg_tensor_buffer(CLG_DTYPE_INT64, 2, eis, NULL, 0);
    clg_tensor eo = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, eis, NULL, 0);
    create_fails("GatherElements mode WRAP", CLG_ERROR_INVALID_ARGUMENT, "mode",
                 ctx, &ep, &d, &ex, &eo, 0);
    ep.mode = CLG_MODE_RAISE;
    ep.batch_dims = 1;
    create_fails("GatherElements batch_dims", CLG_ERROR_INVALID_ARGUMENT,
                 "batch_dims", ctx, &ep, &d, &ex, &eo, 0);
    ep.batch_dims = 0;
    create_ok("GatherElements", ctx, &ep, &d, &ex, &eo, 0);
    create_fails("GatherElements ranks differ", CLG_ERROR_INCOMPATIBLE_SHAPES,
                 "rank", ctx, &ep, &d, &x, &o, 0);
    const int64_t big[2] = {2, 5};
    clg_tensor ex2 = clg_tensor_buffer(CLG_DTYPE_INT64, 2, big, NULL, 0);
    clg_tensor eo2 = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, big, NULL, 0);
    create_fails("GatherElements indices dim above data's",
                 CLG_ERROR_INCOMPATIBLE_SHAPES, "indices", ctx, &ep, &d, &ex2,
                 &eo2, 0);
  }
  {
    clg_params np = {CLG_OP_GATHER_ND, 1, 0, CLG_MODE_RAISE};
    const int64_t nis[2] = {5, 2}, nos[1] = {5};
    clg_tensor nx = clg_tensor_buffer(CLG_DTYPE_INT64, 2, nis, NULL, 0);
    clg_tensor no = clg_tensor_buffer(CLG_DTYPE_FLOAT, 1, nos, NULL, 0);
    create_fails("GatherND axis", CLG_ERROR_INVALID_ARGUMENT, "axis", ctx, &np,
                 &d, &nx, &no, 0);
    np.axis = 0;
    create_ok("GatherND", ctx, &np, &d, &nx, &no, 0);
    np.mode = CLG_MODE_CLIP;
    create_fails("GatherND mode CLIP", CLG_ERROR_INVALID_ARGUMENT, "mode", ctx,
                 &np, &d, &nx, &no, 0);
    np.mode = CLG_MODE_RAISE;
    np.batch_dims = 2;
    create_fails("GatherND batch_dims 2 of min rank 2",
                 CLG_ERROR_INVALID_BATCH_DIMS, "batch_dims", ctx, &np, &d, &nx,
                 &no, 0);
    np.batch_dims = 0;
    const int64_t nis3[2] = {5, 3};
    clg_tensor nx3 = clg_tensor_buffer(CLG_DTYPE_INT64, 2, nis3, NULL, 0);
    create_fails("GatherND tuple longer than data's rank",
                 CLG_ERROR_INCOMPATIBLE_SHAPES, "last dimension", ctx, &np, &d,
                 &nx3, &no, 0);
    clg_tensor nx0 = clg_tensor_buffer(CLG_DTYPE_INT64, 0, NULL, NULL, 0);
    create_fails("GatherND scalar indices", CLG_ERROR_INVALID_RANK, "rank", ctx,
                 &np, &d, &nx0, &no, 0);
  }

  /* Element types. */
  static const struct {
    clg_dtype dt;
    const char *needle;
  } bad_data[] = {{CLG_DTYPE_STRING, "string"},
                  {CLG_DTYPE_UNDEFINED, "element type"},
                  {(clg_dtype)17, "element type"},
                  {(clg_dtype)-1, "element type"}};
  for (size_t i = 0; i < sizeof bad_data / sizeof bad_data[0]; ++i) {
    clg_tensor d2 = d, o2 = o;
    d2.dtype = o2.dtype = bad_data[i].dt;
    char what[64];
    snprintf(what, sizeof what, "data dtype %d", (int)bad_data[i].dt);
    create_fails(what, CLG_ERROR_UNSUPPORTED_DTYPE, bad_data[i].needle, ctx,
                 &g0, &d2, &x, &o2, 0);
  }
  static const clg_dtype bad_idx[] = {
      CLG_DTYPE_FLOAT,  CLG_DTYPE_UINT32, CLG_DTYPE_UINT64, CLG_DTYPE_INT16,
      CLG_DTYPE_INT8,   CLG_DTYPE_BOOL,   CLG_DTYPE_STRING, CLG_DTYPE_UNDEFINED,
      CLG_DTYPE_DOUBLE, (clg_dtype)99};
  for (size_t i = 0; i < sizeof bad_idx / sizeof bad_idx[0]; ++i) {
    clg_tensor x2 = x;
    x2.dtype = bad_idx[i];
    x2.offset = 0;
    char what[64];
    snprintf(what, sizeof what, "indices dtype %d", (int)bad_idx[i]);
    create_fails(what, CLG_ERROR_INVALID_INDICES_DTYPE, "int32 or int64", ctx,
                 &g0, &d, &x2, &o, 0);
  }
  {
    clg_tensor o2 = o;
    o2.dtype = CLG_DTYPE_DOUBLE;
    create_fails("output dtype double for float data", CLG_ERROR_DTYPE_MISMATCH,
                 "output", ctx, &g0, &d, &x, &o2, 0);
    o2.dtype = CLG_DTYPE_INT32; /* same size, other type */
    create_fails("output dtype int32 for float data", CLG_ERROR_DTYPE_MISMATCH,
                 "int32", ctx, &g0, &d, &x, &o2, 0);
  }

  /* Shapes and ranks. */
  {
    clg_tensor o2 = o;
    o2.shape[0] = 4;
    create_fails("output shape [4, 4]", CLG_ERROR_SHAPE_MISMATCH, "output", ctx,
                 &g0, &d, &x, &o2, 0);
    o2 = o;
    o2.rank = 3;
    o2.shape[2] = 1;
    create_fails("output rank 3", CLG_ERROR_SHAPE_MISMATCH, "output", ctx, &g0,
                 &d, &x, &o2, 0);
    o2 = o;
    o2.rank = 1;
    o2.shape[0] = 20;
    create_fails("output flattened", CLG_ERROR_SHAPE_MISMATCH, "output", ctx,
                 &g0, &d, &x, &o2, 0);
    clg_tensor d2 = d;
    d2.shape[1] = -4;
    create_fails("data negative dim", CLG_ERROR_INVALID_SHAPE, "negative", ctx,
                 &g0, &d2, &x, &o, 0);
    clg_tensor x2 = x;
    x2.shape[0] = -5;
    create_fails("indices negative dim", CLG_ERROR_INVALID_SHAPE, "negative",
                 ctx, &g0, &d, &x2, &o, 0);
    o2 = o;
    o2.shape[1] = -4;
    create_fails("output negative dim", CLG_ERROR_INVALID_SHAPE, "negative",
                 ctx, &g0, &d, &x, &o2, 0);
    d2 = d;
    d2.rank = 0;
    create_fails("data rank 0", CLG_ERROR_INVALID_RANK, "rank", ctx, &g0, &d2,
                 &x, &o, 0);
    d2.rank = CLG_MAX_RANK + 1;
    create_fails("data rank 17", CLG_ERROR_INVALID_RANK, "rank", ctx, &g0, &d2,
                 &x, &o, 0);
    x2 = x;
    x2.rank = -1;
    create_fails("indices rank -1", CLG_ERROR_INVALID_RANK, "rank", ctx, &g0,
                 &d, &x2, &o, 0);
    /* Output rank 16 + 2 - 1 = 17. */
    int64_t ones[CLG_MAX_RANK];
    for (int i = 0; i < CLG_MAX_RANK; ++i)
      ones[i] = 1;
    clg_tensor d16 = clg_tensor_buffer(CLG_DTYPE_FLOAT, 16, ones, NULL, 0);
    clg_tensor x2r = clg_tensor_buffer(CLG_DTYPE_INT32, 2, ones, NULL, 0);
    clg_tensor o16 = clg_tensor_buffer(CLG_DTYPE_FLOAT, 16, ones, NULL, 0);
    create_fails("output rank 17", CLG_ERROR_INVALID_RANK, "rank", ctx, &g0,
                 &d16, &x2r, &o16, 0);
    /* Byte size overflow. */
    const int64_t huge[2] = {INT64_C(1) << 62, 8}, hos[2] = {5, 8};
    clg_tensor dh = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, huge, NULL, 0);
    clg_tensor oh = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, hos, NULL, 0);
    create_fails("data bytes overflow", CLG_ERROR_SIZE_OVERFLOW, "overflow",
                 ctx, &g0, &dh, &x, &oh, 0);
  }

  /* Storage kinds and offsets. */
  {
    clg_tensor d2 = d;
    d2.storage = (clg_storage)5;
    create_fails("data storage 5", CLG_ERROR_INVALID_ARGUMENT, "storage", ctx,
                 &g0, &d2, &x, &o, 0);
    clg_tensor x2 = x;
    x2.storage = (clg_storage)-1;
    create_fails("indices storage -1", CLG_ERROR_INVALID_ARGUMENT, "storage",
                 ctx, &g0, &d, &x2, &o, 0);
    clg_tensor o2 = o;
    o2.storage = (clg_storage)4;
    create_fails("output storage 4", CLG_ERROR_INVALID_ARGUMENT, "storage", ctx,
                 &g0, &d, &x, &o2, 0);
    x2 = x;
    x2.offset = 2;
    create_fails("int32 indices at offset 2", CLG_ERROR_INVALID_ARGUMENT,
                 "offset", ctx, &g0, &d, &x2, &o, 0);
    create_fails("int32 indices at offset 2 (async)",
                 CLG_ERROR_INVALID_ARGUMENT, "offset", ctx, &g0, &d, &x2, &o,
                 CLG_PLAN_ASYNC_CHECK);
    x2.dtype = CLG_DTYPE_INT64;
    x2.offset = 12;
    create_fails("int64 indices at offset 12", CLG_ERROR_INVALID_ARGUMENT,
                 "offset", ctx, &g0, &d, &x2, &o, 0);
    x2.offset = 24;
    create_ok("int64 indices at offset 24", ctx, &g0, &d, &x2, &o, 0);
    /* Data and output offsets may be any byte. */
    d2 = d;
    o2 = o;
    d2.offset = 3;
    o2.offset = 7;
    create_ok("data and output at odd offsets", ctx, &g0, &d2, &x, &o2, 0);
  }

  /* Memory need not be given: NULL host pointers too, any storage mix. */
  {
    clg_tensor dh = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, NULL);
    clg_tensor xh = clg_tensor_host(CLG_DTYPE_INT32, 1, is, NULL);
    clg_tensor oh = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, NULL);
    create_ok("host templates with NULL pointers", ctx, &g0, &dh, &xh, &oh, 0);
    create_ok("host templates with NULL pointers (async)", ctx, &g0, &dh, &xh,
              &oh, CLG_PLAN_ASYNC_CHECK);
    create_ok("host data, buffer indices and output", ctx, &g0, &dh, &x, &o, 0);
    create_ok("buffer data, host indices, buffer output", ctx, &g0, &d, &xh, &o,
              0);
    /* The rule is checked for cl_mem indices only: a host template's
     * offset field is not used. */
    clg_tensor xo = xh;
    xo.offset = 2;
    create_ok("host indices with an unused offset field", ctx, &g0, &d, &xo, &o,
              0);
  }
  cr_expect_eq(ctx->builds, 0u, "clg_plan_create built programs");
  clg_context_destroy(ctx);
}

/* ---------------------------------------------- clg_plan_enqueue errors */

/* One failing enqueue: its status, a message naming the issue, no event,
 * no outcome, and `watch` (the output) unchanged. pass_outcome: give an
 * outcome pointer. */
static void enqueue_fails(const char *what, clg_plan *plan, bool pass_outcome,
                          const clg_tensor *d, const clg_tensor *x,
                          const clg_tensor *o, cl_command_queue q, cl_uint nev,
                          const cl_event *wl, clg_status want,
                          const char *needle, const tu_tensor *watch) {
  cl_event ev = POISON_EVENT;
  clg_outcome *oc = POISON_OUTCOME;
  clg_status st = clg_plan_enqueue(plan, d, x, o, q, nev, wl, &ev,
                                   pass_outcome ? &oc : NULL);
  cr_expect_eq(st, want, "%s: got %s, want %s: %s", what, clg_status_string(st),
               clg_status_string(want), clg_last_error());
  cr_expect(tu_contains_ci(clg_last_error(), needle),
            "%s: the message does not name \"%s\": %s", what, needle,
            clg_last_error());
  cr_expect(ev == POISON_EVENT, "%s: *event set on failure", what);
  cr_expect(oc == POISON_OUTCOME, "%s: *outcome set on failure", what);
  if (st == CLG_SUCCESS) { /* the test has failed: clean up */
    if (ev != POISON_EVENT && ev) {
      clWaitForEvents(1, &ev);
      clReleaseEvent(ev);
    }
    if (oc != POISON_OUTCOME)
      clg_outcome_release(oc);
  }
  if (watch)
    cr_expect(tu_tensor_all_sentinel(watch), "%s: the output was written",
              what);
}

/* Every error of clg_plan_enqueue() for a plan on cl_mem (sync and async):
 * all before anything is enqueued. */
Test(plans, enqueue_errors) {
  spec s = mkspec("gather f32 [6,4], int32 [5], buffers", CLG_OP_GATHER, 0, 0,
                  CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2, D(6, 4), CLG_DTYPE_INT32,
                  1, D(5), B(16), B(8), B(32));
  clg_context *ctx = fresh_ctx();
  cl_int err = CL_SUCCESS;
  cl_device_id dev = tu_device();
  cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  tu_cl_check(err, "clCreateContext");
  cl_command_queue other_q = clCreateCommandQueue(other, dev, 0, &err);
  tu_cl_check(err, "clCreateCommandQueue");

  for (int async = 0; async < 2; ++async) {
    clg_plan *plan = spec_plan(ctx, &s, async ? CLG_PLAN_ASYNC_CHECK : 0);
    job j;
    job_make(&j, &s, 3000u + (uint64_t)async, 0);
    const clg_tensor *d = &j.d.desc, *x = &j.x.desc, *o = &j.o.desc;
    const tu_tensor *w = &j.o;
    bool po = async; /* the outcome argument the plan wants */
    char what[160];
#define WHAT(str)                                                              \
  (snprintf(what, sizeof what, "%s: %s", async ? "async" : "sync", str), what)

    enqueue_fails(WHAT("plan NULL"), NULL, po, d, x, o, NULL, 0, NULL,
                  CLG_ERROR_NULL_ARGUMENT, "plan", w);
    enqueue_fails(WHAT("data NULL"), plan, po, NULL, x, o, NULL, 0, NULL,
                  CLG_ERROR_NULL_ARGUMENT, "data", w);
    enqueue_fails(WHAT("indices NULL"), plan, po, d, NULL, o, NULL, 0, NULL,
                  CLG_ERROR_NULL_ARGUMENT, "indices", w);
    enqueue_fails(WHAT("output NULL"), plan, po, d, x, NULL, NULL, 0, NULL,
                  CLG_ERROR_NULL_ARGUMENT, "output", w);
    if (async)
      enqueue_fails(WHAT("outcome NULL"), plan, false, d, x, o, NULL, 0, NULL,
                    CLG_ERROR_NULL_ARGUMENT, "outcome", w);
    else
      enqueue_fails(WHAT("outcome given"), plan, true, d, x, o, NULL, 0, NULL,
                    CLG_ERROR_INVALID_ARGUMENT, "outcome", w);

    /* Against the template. */
    clg_tensor d2 = *d, x2 = *x, o2 = *o;
    d2.dtype = CLG_DTYPE_DOUBLE;
    enqueue_fails(WHAT("data dtype"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_DTYPE_MISMATCH, "double", w);
    d2 = *d;
    d2.dtype = CLG_DTYPE_INT32; /* same size */
    enqueue_fails(WHAT("data dtype int32"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_DTYPE_MISMATCH, "data", w);
    x2.dtype = CLG_DTYPE_INT64;
    enqueue_fails(WHAT("indices dtype"), plan, po, d, &x2, o, NULL, 0, NULL,
                  CLG_ERROR_DTYPE_MISMATCH, "indices", w);
    o2.dtype = CLG_DTYPE_UINT32;
    enqueue_fails(WHAT("output dtype"), plan, po, d, x, &o2, NULL, 0, NULL,
                  CLG_ERROR_DTYPE_MISMATCH, "output", w);
    d2 = *d;
    d2.shape[0] = 5; /* smaller: fits in the buffer */
    enqueue_fails(WHAT("data shape"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "data", w);
    d2 = *d;
    d2.rank = 3;
    d2.shape[2] = 1;
    enqueue_fails(WHAT("data rank"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "rank", w);
    d2 = *d;
    d2.rank = 1;
    d2.shape[0] = 24;
    enqueue_fails(WHAT("data flattened"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "data", w);
    x2 = *x;
    x2.shape[0] = 4;
    enqueue_fails(WHAT("indices shape"), plan, po, d, &x2, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "indices", w);
    x2 = *x;
    x2.rank = 0;
    enqueue_fails(WHAT("indices rank 0"), plan, po, d, &x2, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "indices", w);
    x2 = *x;
    x2.rank = 40; /* out of range, must not be read past CLG_MAX_RANK */
    enqueue_fails(WHAT("indices rank 40"), plan, po, d, &x2, o, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "indices", w);
    o2 = *o;
    o2.shape[1] = 3;
    enqueue_fails(WHAT("output shape"), plan, po, d, x, &o2, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "output", w);
    o2 = *o;
    o2.rank = 3;
    o2.shape[2] = 1;
    enqueue_fails(WHAT("output rank"), plan, po, d, x, &o2, NULL, 0, NULL,
                  CLG_ERROR_SHAPE_MISMATCH, "output", w);

    /* Storage kind: host memory where the plan was made for cl_mem. */
    unsigned char *hd = malloc(j.dbytes), *hx = malloc(j.ibytes),
                  *ho = malloc(j.obytes);
    cr_assert(hd && hx && ho);
    memcpy(hd, j.data, j.dbytes);
    memcpy(hx, j.idx, j.ibytes);
    memset(ho, TU_SENTINEL, j.obytes);
    d2 = clg_tensor_host(s.dtype, s.r, s.ds, hd);
    x2 = clg_tensor_host(s.idt, s.q, s.is, hx);
    o2 = clg_tensor_host(s.dtype, j.orank, j.oshape, ho);
    enqueue_fails(WHAT("host data"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_INVALID_ARGUMENT, "host memory", w);
    enqueue_fails(WHAT("host indices"), plan, po, d, &x2, o, NULL, 0, NULL,
                  CLG_ERROR_INVALID_ARGUMENT, "indices", w);
    enqueue_fails(WHAT("host output"), plan, po, d, x, &o2, NULL, 0, NULL,
                  CLG_ERROR_INVALID_ARGUMENT, "output", w);
    for (size_t b = 0; b < j.obytes; ++b)
      if (ho[b] != TU_SENTINEL) {
        cr_expect(false, "%s: the host output was written", what);
        break;
      }
    o2 = *o;
    o2.storage = (clg_storage)6;
    enqueue_fails(WHAT("output storage 6"), plan, po, d, x, &o2, NULL, 0, NULL,
                  CLG_ERROR_INVALID_ARGUMENT, "output", w);
    free(hd);
    free(hx);
    free(ho);

    /* Memory checks, as clg_run() makes them. */
    d2 = *d;
    d2.buffer = NULL;
    enqueue_fails(WHAT("data buffer NULL"), plan, po, &d2, x, o, NULL, 0, NULL,
                  CLG_ERROR_NULL_ARGUMENT, "buffer", w);
    x2 = *x;
    x2.buffer = NULL;
    enqueue_fails(WHAT("indices buffer NULL"), plan, po, d, &x2, o, NULL, 0,
                  NULL, CLG_ERROR_NULL_ARGUMENT, "indices", w);
    o2 = *o;
    o2.buffer = NULL;
    enqueue_fails(WHAT("output buffer NULL"), plan, po, d, x, &o2, NULL, 0,
                  NULL, CLG_ERROR_NULL_ARGUMENT, "output", w);
    cl_mem small = tu_buffer_create(16 + j.dbytes - 1, NULL);
    d2 = *d;
    d2.buffer = small;
    enqueue_fails(WHAT("data buffer too small"), plan, po, &d2, x, o, NULL, 0,
                  NULL, CLG_ERROR_BUFFER_TOO_SMALL, "data", w);
    x2 = *x;
    x2.offset = j.x.total - j.ibytes + 4; /* one index past the end */
    enqueue_fails(WHAT("indices past the buffer"), plan, po, d, &x2, o, NULL, 0,
                  NULL, CLG_ERROR_BUFFER_TOO_SMALL, "indices", w);
    o2 = *o;
    o2.offset = j.o.total - j.obytes + 1; /* one byte past the end */
    enqueue_fails(WHAT("output past the buffer"), plan, po, d, x, &o2, NULL, 0,
                  NULL, CLG_ERROR_BUFFER_TOO_SMALL, "output", w);
    o2 = *o;
    o2.buffer = small; /* 16 + 96 - 1 bytes < offset 32 + 80 */
    o2.offset = 32;
    enqueue_fails(WHAT("output buffer too small"), plan, po, d, x, &o2, NULL, 0,
                  NULL, CLG_ERROR_BUFFER_TOO_SMALL, "output", w);
    clReleaseMemObject(small);
    x2 = *x;
    x2.offset = 10; /* not a multiple of 4 */
    enqueue_fails(WHAT("misaligned indices offset"), plan, po, d, &x2, o, NULL,
                  0, NULL, CLG_ERROR_INVALID_ARGUMENT, "offset", w);
    /* The output over the data's bytes. */
    o2 = *o;
    o2.buffer = j.d.buf;
    o2.offset = 16;
    enqueue_fails(WHAT("output aliases data"), plan, po, d, x, &o2, NULL, 0,
                  NULL, CLG_ERROR_INVALID_ARGUMENT, "overlap", w);
    cr_expect(job_inputs_ok(&j), "%s: the data was written", what);
    /* Queue and wait list. */
    enqueue_fails(WHAT("queue of another cl_context"), plan, po, d, x, o,
                  other_q, 0, NULL, CLG_ERROR_INVALID_ARGUMENT, "queue", w);
    enqueue_fails(WHAT("num_events without wait_list"), plan, po, d, x, o, NULL,
                  1, NULL, CLG_ERROR_INVALID_ARGUMENT, "wait list", w);
    cl_event nulls[1] = {NULL};
    enqueue_fails(WHAT("NULL event in the wait list"), plan, po, d, x, o, NULL,
                  1, nulls, CLG_ERROR_NULL_ARGUMENT, "wait_list", w);
    /* A buffer of another cl_context. */
    cl_mem foreign =
        clCreateBuffer(other, CL_MEM_READ_WRITE, j.d.total, NULL, &err);
    tu_cl_check(err, "clCreateBuffer");
    d2 = *d;
    d2.buffer = foreign;
    enqueue_fails(WHAT("data of another cl_context"), plan, po, &d2, x, o, NULL,
                  0, NULL, CLG_ERROR_INVALID_ARGUMENT, "cl_context", w);
    clReleaseMemObject(foreign);
#undef WHAT

    /* The plan still works, on the very same memory. */
    plan_ok(plan, async, &j, NULL, "after the errors");
    job_free(&j);
    clg_plan_destroy(plan);
  }
  clReleaseCommandQueue(other_q);
  clReleaseContext(other);
  clg_context_destroy(ctx);
}

/* Host plans: the host-pointer checks. */
Test(plans, enqueue_errors_host) {
  spec s = s_nd_host();
  clg_context *ctx = fresh_ctx();
  clg_plan *plan = spec_plan(ctx, &s, 0);
  job j;
  job_make(&j, &s, 3100, 0);
  clg_tensor d2 = j.d.desc, x2 = j.x.desc, o2 = j.o.desc;
  d2.host = NULL;
  enqueue_fails("data host NULL", plan, false, &d2, &j.x.desc, &j.o.desc, NULL,
                0, NULL, CLG_ERROR_NULL_ARGUMENT, "data", &j.o);
  x2.host = NULL;
  enqueue_fails("indices host NULL", plan, false, &j.d.desc, &x2, &j.o.desc,
                NULL, 0, NULL, CLG_ERROR_NULL_ARGUMENT, "indices", &j.o);
  o2.host = NULL;
  enqueue_fails("output host NULL", plan, false, &j.d.desc, &j.x.desc, &o2,
                NULL, 0, NULL, CLG_ERROR_NULL_ARGUMENT, "output", &j.o);
  /* A cl_mem where the plan was made for host memory. */
  cl_mem buf = tu_buffer_create(j.obytes, NULL);
  o2 = clg_tensor_buffer(s.dtype, j.orank, j.oshape, buf, 0);
  enqueue_fails("cl_mem output for a host plan", plan, false, &j.d.desc,
                &j.x.desc, &o2, NULL, 0, NULL, CLG_ERROR_INVALID_ARGUMENT,
                "cl_mem", &j.o);
  clReleaseMemObject(buf);
  /* The output over the indices' host memory. */
  o2 = j.o.desc;
  o2.host = j.x.desc.host;
  enqueue_fails("output aliases indices", plan, false, &j.d.desc, &j.x.desc,
                &o2, NULL, 0, NULL, CLG_ERROR_INVALID_ARGUMENT, "overlap",
                &j.o);
  cr_expect(job_inputs_ok(&j), "the indices were written");
  plan_ok(plan, false, &j, NULL, "after the errors");
  job_free(&j);
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

/* OpenCL and host-allocation failures (test builds inject them): each
 * returns its status, sets nothing, writes nothing, and a later call
 * works. */
Test(plans, faults) {
  spec s = s_gather_buf();
  clg_context *ctx = fresh_ctx();
  clg_tensor d, x, o;
  spec_templates(&s, &d, &x, &o);

  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_HOST_ALLOC, 0, 1, CL_OUT_OF_HOST_MEMORY);
  clg_plan *p = POISON_PLAN;
  clg_status st = clg_plan_create(ctx, &s.p, &d, &x, &o, 0, &p);
  clg_fault_reset();
  cr_expect_eq(st, CLG_ERROR_OUT_OF_HOST_MEMORY, "create: %s: %s",
               clg_status_string(st), clg_last_error());
  cr_expect_null(p, "create: *out not NULL on failure");
  cr_expect(tu_contains(clg_last_error(), "memory"), "%s", clg_last_error());

  /* Bake: no compiler (an OpenCL error), then a compiler verdict. */
  clg_plan *plan = spec_plan(ctx, &s, 0);
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, 1000, CL_OUT_OF_RESOURCES);
  st = clg_plan_bake(plan);
  clg_fault_reset();
  cr_expect_eq(st, CLG_ERROR_OPENCL, "bake: %s: %s", clg_status_string(st),
               clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "clBuildProgram"), "%s",
            clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "CL_OUT_OF_RESOURCES"), "%s",
            clg_last_error());
  cr_expect_eq(ctx->builds, 0u);
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, 1000, CL_BUILD_PROGRAM_FAILURE);
  st = clg_plan_bake(plan);
  clg_fault_reset();
  cr_expect_eq(st, CLG_ERROR_BUILD_FAILED, "bake: %s: %s",
               clg_status_string(st), clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "build log"), "%s", clg_last_error());
  /* A failed bake is not remembered as done. */
  st = clg_plan_bake(plan);
  cr_expect_eq(st, CLG_SUCCESS, "bake after the faults: %s", clg_last_error());
  cr_expect_eq(ctx->builds, 2u);

  /* Enqueue: the indices' read-back, then the kernel launch. */
  job j;
  job_make(&j, &s, 3200, 0);
  clg_fault_inject(CLG_FAULT_READ_BUFFER, 0, 1, CL_OUT_OF_RESOURCES);
  enqueue_fails("indices read-back fails", plan, false, &j.d.desc, &j.x.desc,
                &j.o.desc, NULL, 0, NULL, CLG_ERROR_OPENCL,
                "clEnqueueReadBuffer", &j.o);
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_ENQUEUE_KERNEL, 0, 1, CL_OUT_OF_RESOURCES);
  enqueue_fails("kernel launch fails", plan, false, &j.d.desc, &j.x.desc,
                &j.o.desc, NULL, 0, NULL, CLG_ERROR_OPENCL,
                "clEnqueueNDRangeKernel", &j.o);
  clg_fault_reset();
  plan_ok(plan, false, &j, NULL, "after the faults");
  job_free(&j);
  clg_plan_destroy(plan);

  /* Async: the verdict buffer, then reading the verdict (which may be
   * tried again). */
  plan = spec_plan(ctx, &s, CLG_PLAN_ASYNC_CHECK);
  cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
  job_make(&j, &s, 3201, 0);
  clg_fault_inject(CLG_FAULT_CREATE_BUFFER, 0, 1,
                   CL_MEM_OBJECT_ALLOCATION_FAILURE);
  enqueue_fails("verdict buffer fails", plan, true, &j.d.desc, &j.x.desc,
                &j.o.desc, NULL, 0, NULL, CLG_ERROR_OPENCL, "clCreateBuffer",
                &j.o);
  clg_fault_reset();
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  cr_assert_eq(clg_plan_enqueue(plan, &j.d.desc, &j.x.desc, &j.o.desc, NULL, 0,
                                NULL, &ev, &oc),
               CLG_SUCCESS, "%s", clg_last_error());
  clg_fault_inject(CLG_FAULT_READ_BUFFER, 0, 1, CL_OUT_OF_RESOURCES);
  st = clg_outcome_wait(oc);
  clg_fault_reset();
  cr_expect_eq(st, CLG_ERROR_OPENCL, "outcome wait: %s: %s",
               clg_status_string(st), clg_last_error());
  cr_expect_eq(clg_outcome_wait(oc), CLG_SUCCESS, "the second wait: %s",
               clg_last_error());
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  char msg[1024];
  cr_expect(job_ok(&j, msg, sizeof msg), "%s", msg);
  clReleaseEvent(ev);
  clg_outcome_release(oc);
  job_free(&j);
  clg_plan_destroy(plan);
  clg_context_destroy(ctx);
}

/* Out-of-bounds indices: the same status and message as clg_run(), from
 * the call (sync plans, and async plans with host indices) or from the
 * outcome (async plans with cl_mem indices); the output unchanged. */
static void check_oob(clg_context *ctx, const spec *s, unsigned flags,
                      int64_t pos, bool neg, uint64_t seed) {
  bool async = (flags & CLG_PLAN_ASYNC_CHECK) != 0;
  bool from_outcome = async && s->st[1].kind == CLG_STORAGE_BUFFER &&
                      s->st[2].kind == CLG_STORAGE_BUFFER &&
                      s->p.mode == CLG_MODE_RAISE;
  clg_plan *plan = spec_plan(ctx, s, flags);
  job a, b;
  job_make_ex(&a, s, seed, 0, pos, neg);
  job_make_ex(&b, s, seed, 0, pos, neg);
  char want[2048], got[2048], why[256];
  clg_status st = run_oneshot(ctx, false, &b, want, sizeof want);
  cr_assert_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s: clg_run: %s: %s",
               s->name, clg_status_string(st), want);
  cr_expect(job_untouched(&b), "%s: clg_run wrote the output", s->name);
  cr_expect(tu_contains(want, "indices["), "%s", want);

  if (from_outcome) {
    cl_event ev = POISON_EVENT;
    clg_outcome *oc = POISON_OUTCOME;
    st = clg_plan_enqueue(plan, &a.d.desc, &a.x.desc, &a.o.desc, NULL, 0, NULL,
                          &ev, &oc);
    cr_assert_eq(st, CLG_SUCCESS, "%s: async enqueue: %s", s->name,
                 clg_last_error());
    cr_assert(ev != POISON_EVENT && ev != NULL && oc != POISON_OUTCOME &&
              oc != NULL);
    for (int k = 0; k < 2; ++k) { /* the same answer every time */
      st = clg_outcome_wait(oc);
      cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                   "%s: outcome wait %d: %s: %s", s->name, k,
                   clg_status_string(st), clg_last_error());
      cr_expect_str_eq(clg_last_error(), want, "%s: outcome wait %d", s->name,
                       k);
    }
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    clg_outcome_release(oc);
  } else {
    st = run_plan(plan, async, &a, NULL, got, sizeof got, why, sizeof why);
    cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s%s: %s: %s", s->name,
                 async ? " (async)" : "", clg_status_string(st), got);
    cr_expect(why[0] == '\0', "%s: %s", s->name, why);
    cr_expect_str_eq(got, want,
                     "%s%s: the plan's message differs from "
                     "clg_run's",
                     s->name, async ? " (async)" : "");
  }
  cr_expect(job_untouched(&a), "%s%s: the output was written", s->name,
            async ? " (async)" : "");
  job_free(&a);
  job_free(&b);
  clg_plan_destroy(plan);
}

Test(plans, out_of_bounds) {
  clg_context *ctx = fresh_ctx();
  spec sg = s_gather_buf(), se = s_elements_buf(), sn = s_nd_buf(),
       sh = s_gather_host(), snh = s_nd_host(), sbd = s_gather_bd(),
       sbig = s_gather_big(), sho = s_gather_host_out();
  for (unsigned f = 0; f <= CLG_PLAN_ASYNC_CHECK; ++f) {
    check_oob(ctx, &sg, f, 7, false, 4000);
    check_oob(ctx, &sg, f, 0, true, 4001);
    check_oob(ctx, &se, f, 41, false, 4002);
    check_oob(ctx, &sn, f, 13, true, 4003); /* second component */
    check_oob(ctx, &sn, f, 40, false, 4004);
    check_oob(ctx, &sh, f, 9, false, 4005);
    check_oob(ctx, &snh, f, 3, true, 4006);
    check_oob(ctx, &sbd, f, 17, false, 4007);
    check_oob(ctx, &sbig, f, 5000, false, 4008); /* device validation */
    check_oob(ctx, &sho, f, 2, true, 4009);
  }
  clg_context_destroy(ctx);
}

/* An empty axis in modes WRAP and CLIP: an error in every plan, from the
 * call itself (no value is read). */
Test(plans, empty_axis_wrap_clip) {
  clg_context *ctx = fresh_ctx();
  for (int mode = CLG_MODE_WRAP; mode <= CLG_MODE_CLIP; ++mode)
    for (unsigned f = 0; f <= CLG_PLAN_ASYNC_CHECK; ++f) {
      spec s = mkspec("gather f32 [0,3], int32 [4], buffers", CLG_OP_GATHER, 0,
                      0, (clg_index_mode)mode, CLG_DTYPE_FLOAT, 2, D(0, 3),
                      CLG_DTYPE_INT32, 1, D(4), B(0), B(0), B(0));
      clg_plan *plan = spec_plan(ctx, &s, f);
      tu_tensor td, tx, to;
      int32_t idx[4] = {0, 1, 2, 3};
      const int64_t os[2] = {4, 3};
      tu_tensor_init(&td, CLG_DTYPE_FLOAT, 2, s.ds, B(0), NULL);
      tu_tensor_init(&tx, CLG_DTYPE_INT32, 1, s.is, B(0), idx);
      tu_tensor_init(&to, CLG_DTYPE_FLOAT, 2, os, B(0), NULL);
      enqueue_fails(mode == CLG_MODE_WRAP ? "empty axis, wrap"
                                          : "empty axis, clip",
                    plan, f != 0, &td.desc, &tx.desc, &to.desc, NULL, 0, NULL,
                    CLG_ERROR_INDEX_OUT_OF_BOUNDS, "size 0", &to);
      tu_tensor_free(&td);
      tu_tensor_free(&tx);
      tu_tensor_free(&to);
      clg_plan_destroy(plan);
    }
  clg_context_destroy(ctx);
}

/* --------------------------------------------------- destroy, threads */

Test(plans, destroy) {
  clg_plan_destroy(NULL); /* a no-op */
  /* Commands enqueued and outcomes returned survive the plan. */
  spec s = s_gather_buf();
  clg_context *ctx = fresh_ctx();
  clg_plan *plan = spec_plan(ctx, &s, CLG_PLAN_ASYNC_CHECK);
  job bad, good;
  job_make_ex(&bad, &s, 5000, 0, 4, false);
  job_make(&good, &s, 5001, 64);
  cl_event e1 = NULL, e2 = NULL;
  clg_outcome *o1 = NULL, *o2 = NULL;
  cr_assert_eq(clg_plan_enqueue(plan, &bad.d.desc, &bad.x.desc, &bad.o.desc,
                                NULL, 0, NULL, &e1, &o1),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_assert_eq(clg_plan_enqueue(plan, &good.d.desc, &good.x.desc, &good.o.desc,
                                NULL, 0, NULL, &e2, &o2),
               CLG_SUCCESS, "%s", clg_last_error());
  clg_plan_destroy(plan);
  cr_expect_eq(clg_outcome_wait(o1), CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s",
               clg_last_error());
  cr_expect(tu_contains(clg_last_error(), "indices[4]"), "%s",
            clg_last_error());
  cr_expect_eq(clg_outcome_wait(o2), CLG_SUCCESS, "%s", clg_last_error());
  tu_cl_check(clWaitForEvents(1, &e1), "clWaitForEvents");
  tu_cl_check(clWaitForEvents(1, &e2), "clWaitForEvents");
  char msg[1024];
  cr_expect(job_untouched(&bad), "the bad call wrote the output");
  cr_expect(job_ok(&good, msg, sizeof msg), "%s", msg);
  clReleaseEvent(e1);
  clReleaseEvent(e2);
  clg_outcome_release(o1);
  clg_outcome_release(o2);
  job_free(&bad);
  job_free(&good);
  clg_context_destroy(ctx);
}

#define THREAD_JOBS 12

typedef struct tjob {
  job j;
  clg_plan *plan;
  bool async;
  cl_command_queue q;
  clg_status want;
  clg_status st;
  char msg[512];
  char why[128];
} tjob;

static void *tworker_main(void *arg) {
  tjob *js = arg;
  for (int k = 0; k < THREAD_JOBS; ++k)
    js[k].st = run_plan(js[k].plan, js[k].async, &js[k].j, js[k].q, js[k].msg,
                        sizeof js[k].msg, js[k].why, sizeof js[k].why);
  return NULL;
}

/* Two threads share three unbaked plans on one context (racing to build
 * their programs): every result right, every bad index reported, and no
 * program built twice. */
Test(plans, two_threads) {
  spec s1 = s_gather_buf(), s2 = s_nd_host(), s3 = s_elements_buf();
  clg_context *ctx = fresh_ctx();
  clg_plan *plans[3] = {spec_plan(ctx, &s1, 0),
                        spec_plan(ctx, &s1, CLG_PLAN_ASYNC_CHECK),
                        spec_plan(ctx, &s2, 0)};
  clg_plan *p4 = spec_plan(ctx, &s3, CLG_PLAN_ASYNC_CHECK);
  const spec *specs[4] = {&s1, &s1, &s2, &s3};
  clg_plan *all[4] = {plans[0], plans[1], plans[2], p4};
  cl_int err = CL_SUCCESS;
  cl_command_queue qs[2];
  for (int t = 0; t < 2; ++t) {
    qs[t] = clCreateCommandQueue(tu_cl_context(), tu_device(), 0, &err);
    tu_cl_check(err, "clCreateCommandQueue");
  }
  static tjob jobs[2][THREAD_JOBS];
  for (int t = 0; t < 2; ++t)
    for (int k = 0; k < THREAD_JOBS; ++k) {
      tjob *tj = &jobs[t][k];
      int which = (k + t) % 4;
      bool oob = k == 5 + t || k == 8;
      tj->plan = all[which];
      tj->async = which == 1 || which == 3;
      tj->q = (k % 3 == 0) ? NULL : qs[t];
      tj->want = oob ? CLG_ERROR_INDEX_OUT_OF_BOUNDS : CLG_SUCCESS;
      job_make_ex(&tj->j, specs[which],
                  6000u + 100u * (uint64_t)t + (uint64_t)k,
                  (size_t)(k % 2) * 64u, oob ? 1 : -1, false);
    }
  pthread_t th[2];
  for (int t = 0; t < 2; ++t)
    cr_assert(pthread_create(&th[t], NULL, tworker_main, jobs[t]) == 0);
  for (int t = 0; t < 2; ++t)
    pthread_join(th[t], NULL);
  for (int t = 0; t < 2; ++t)
    for (int k = 0; k < THREAD_JOBS; ++k) {
      tjob *tj = &jobs[t][k];
      cr_expect_eq(tj->st, tj->want, "thread %d job %d (%s): %s: %s", t, k,
                   tj->j.s->name, clg_status_string(tj->st), tj->msg);
      cr_expect(tj->why[0] == '\0', "thread %d job %d: %s", t, k, tj->why);
      char msg[1024];
      if (tj->want == CLG_SUCCESS)
        cr_expect(job_ok(&tj->j, msg, sizeof msg), "thread %d job %d: %s", t, k,
                  msg);
      else {
        cr_expect(job_untouched(&tj->j), "thread %d job %d: output written", t,
                  k);
        cr_expect(tu_contains(tj->msg, "indices[1]"), "thread %d job %d: %s", t,
                  k, tj->msg);
      }
      job_free(&tj->j);
    }
  /* After baking every plan, the context holds exactly what baking them
   * alone builds on a fresh context: the threads built nothing twice. */
  for (int i = 0; i < 4; ++i)
    cr_expect_eq(clg_plan_bake(all[i]), CLG_SUCCESS, "%s", clg_last_error());
  clg_context *ref = fresh_ctx();
  for (int i = 0; i < 4; ++i) {
    clg_plan *rp =
        spec_plan(ref, specs[i], i == 1 || i == 3 ? CLG_PLAN_ASYNC_CHECK : 0);
    cr_expect_eq(clg_plan_bake(rp), CLG_SUCCESS, "%s", clg_last_error());
    clg_plan_destroy(rp);
  }
  cr_expect_eq(ctx->builds, ref->builds,
               "two threads built %u programs, baking alone builds %u",
               ctx->builds, ref->builds);
  clg_context_destroy(ref);
  for (int i = 0; i < 4; ++i)
    clg_plan_destroy(all[i]);
  for (int t = 0; t < 2; ++t)
    clReleaseCommandQueue(qs[t]);
  clg_context_destroy(ctx);
}

/* --------------------------------------------------------- clg_supported */

/*
 * The expectation, written from the header (not from plans.c):
 *  - ops: CLG_OP_GATHER (0), CLG_OP_GATHER_ELEMENTS (1), CLG_OP_GATHER_ND (2);
 *  - modes (clg_params): Gather takes RAISE (0), WRAP (1), CLIP (2);
 *    GatherElements and GatherND RAISE only; anything else is invalid;
 *  - data types: "every fixed-size type (bool, int8-64, uint8-64, float16,
 *    bfloat16, float, double, complex64, complex128)", i.e. the ONNX numbers
 *    1..16 except string (8); undefined (0) and unknown values are not;
 *  - indices: int32 (6) or int64 (7);
 *  - ranks: data rank in [1, CLG_MAX_RANK], indices rank in [0,
 *    CLG_MAX_RANK] (rank 0 is a scalar);
 *  - Gather: the output rank r - 1 + q may not exceed CLG_MAX_RANK
 *    (clg_gather_output_shape: "q + r - 1 > CLG_MAX_RANK" is an error);
 *  - GatherElements: q == r;
 *  - GatherND: q >= 1 (a tuple length m = r - b keeps the output rank at
 *    q - 1, so every such rank pair has a valid shape);
 *  - ScatterElements (3) and Scatter (5): q == r, mode RAISE; ScatterND
 *    (4): q >= 1, mode RAISE;
 *  - EmbeddingBag (6): mode RAISE, weight float32 (1), float16 (10),
 *    float64 (11) or bfloat16 (16) of rank 2, indices rank 1 or 2.
 */
static int expect_supported(int op, int dt, int idt, int r, int q, int mode) {
  if (op < 0 || op > 6)
    return 0;
  if (op == 6 && !(dt == 1 || dt == 10 || dt == 11 || dt == 16))
    return 0;
  if (op == 0 ? !(mode == 0 || mode == 1 || mode == 2) : mode != 0)
    return 0;
  if (dt < 1 || dt > 16 || dt == 8)
    return 0;
  if (idt != 6 && idt != 7)
    return 0;
  if (r < 1 || r > 16 || q < 0 || q > 16)
    return 0;
  switch (op) {
  case 0: return r - 1 + q <= 16;
  case 6: return r == 2 && (q == 1 || q == 2);
  case 1:
  case 3:
  case 5: return q == r;
  default: return q >= 1;
  }
}

Test(plans, supported_table) {
  static const int ops[] = {-1, 0, 1, 2, 3, 4, 5, 6, 100};
  static const int modes[] = {-1, 0, 1, 2, 3};
  long checked = 0, yes = 0, bad = 0;
  for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; ++oi)
    for (int dt = -1; dt <= 18; ++dt)
      for (int idt = -1; idt <= 18; ++idt)
        for (int r = -1; r <= CLG_MAX_RANK + 1; ++r)
          for (int q = -1; q <= CLG_MAX_RANK + 1; ++q)
            for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; ++mi) {
              int want = expect_supported(ops[oi], dt, idt, r, q, modes[mi]);
              int got =
                  clg_supported((clg_op)ops[oi], (clg_dtype)dt, (clg_dtype)idt,
                                r, q, (clg_index_mode)modes[mi]);
              ++checked;
              yes += want;
              if (got != want && ++bad <= 10)
                cr_expect(false,
                          "clg_supported(op %d, dtype %d, indices %d, ranks "
                          "%d/%d, mode %d) = %d, expected %d",
                          ops[oi], dt, idt, r, q, modes[mi], got, want);
            }
  cr_expect_eq(bad, 0, "%ld of %ld combinations differ", bad, checked);
  /* The expectation itself, on points the header spells out. */
  cr_expect(yes > 0);
  cr_expect(expect_supported(CLG_OP_GATHER, CLG_DTYPE_FLOAT, CLG_DTYPE_INT64, 1,
                             0, CLG_MODE_RAISE));
  cr_expect(expect_supported(CLG_OP_GATHER, CLG_DTYPE_BFLOAT16, CLG_DTYPE_INT32,
                             16, 1, CLG_MODE_CLIP));
  cr_expect(!expect_supported(CLG_OP_GATHER, CLG_DTYPE_STRING, CLG_DTYPE_INT64,
                              1, 1, CLG_MODE_RAISE));
  cr_expect(!expect_supported(CLG_OP_GATHER_ND, CLG_DTYPE_FLOAT,
                              CLG_DTYPE_INT64, 2, 2, CLG_MODE_WRAP));
  cr_expect(!expect_supported(CLG_OP_GATHER, CLG_DTYPE_FLOAT, CLG_DTYPE_INT64,
                              16, 2, CLG_MODE_RAISE));
  /* Every fixed-size type by name. */
  for (size_t i = 0; i < 15; ++i)
    cr_expect_eq(clg_supported(CLG_OP_GATHER, tu_all_dtypes[i], CLG_DTYPE_INT32,
                               2, 1, CLG_MODE_RAISE),
                 1, "%s", clg_dtype_name(tu_all_dtypes[i]));
}

/* A small valid call for (op, dtype, idt, r, q, mode): data dims of 1
 * except a leading 2 and, where a slice follows the gathered axes, 16
 * elements in the last one (so every element size copies with the same
 * units: few programs). */
static spec supported_spec(int op, clg_dtype dt, clg_dtype idt, int32_t r,
                           int32_t q, clg_index_mode mode) {
  int64_t ds[CLG_MAX_RANK], is[CLG_MAX_RANK];
  for (int i = 0; i < CLG_MAX_RANK; ++i)
    ds[i] = is[i] = 1;
  ds[0] = 2;
  if (op == CLG_OP_GATHER) {
    if (r >= 2)
      ds[r - 1] = 16;
    if (q >= 1)
      is[0] = 3;
  } else if (op == CLG_OP_GATHER_ELEMENTS) {
    is[0] = 3; /* axis 0 */
    if (r >= 2)
      ds[r - 1] = is[r - 1] = 4;
  } else { /* GatherND: tuples of r - 1 components (r >= 2) or 1 */
    if (r >= 2)
      ds[r - 1] = 16;
    is[q - 1] = r >= 2 ? r - 1 : 1;
    if (q >= 2)
      is[0] = 3;
  }
  return mkspec("supported sample", (clg_op)op, 0, 0, mode, dt, r, ds, idt, q,
                is, H(), H(), H());
}

Test(plans, supported_cross_check) {
  /* Supported: every op x every fixed-size dtype, rank pairs from each
   * op's list (the limits included); Gather with both index types and every
   * mode in turn, GatherElements with int32, GatherND with int64 indices.
   * (Chosen so that few programs are compiled: the rank-1 data samples,
   * whose copy width is the element's, fall on complex128, t = 14.) */
  static const int32_t gr[][2] = {{2, 1}, {3, 2}, {16, 1}, {2, 15},
                                  {5, 0}, {4, 3}, {3, 1}};
  static const int32_t er[][2] = {{2, 2}, {1, 1}, {4, 4}, {16, 16}, {3, 3}};
  static const int32_t nr[][2] = {{2, 1}, {3, 3}, {16, 16}, {2, 16},
                                  {5, 2}, {3, 2}, {4, 1}};
  clg_context *ctx = fresh_ctx();
  int runs = 0;
  for (int op = 0; op < 3; ++op)
    for (size_t t = 0; t < 15; ++t) {
      int n = op * 15 + (int)t;
      clg_dtype dt = tu_all_dtypes[t];
      clg_dtype idt = op == CLG_OP_GATHER_ELEMENTS ? CLG_DTYPE_INT32
                      : op == CLG_OP_GATHER_ND     ? CLG_DTYPE_INT64
                      : (t / 3) % 2                ? CLG_DTYPE_INT64
                                                   : CLG_DTYPE_INT32;
      clg_index_mode mode =
          op == CLG_OP_GATHER ? (clg_index_mode)(t % 3) : CLG_MODE_RAISE;
      static const int32_t r1[2][2] = {{1, 1}, {1, 2}};
      const int32_t *rq = op == 0   ? (t == 14 ? r1[0] : gr[t % 7])
                          : op == 1 ? er[t % 5]
                                    : (t == 14 ? r1[1] : nr[t % 7]);
      cr_assert(expect_supported(op, dt, idt, rq[0], rq[1], mode),
                "test bug: sample %d unsupported", n);
      cr_expect_eq(clg_supported((clg_op)op, dt, idt, rq[0], rq[1], mode), 1,
                   "sample %d", n);
      spec s = supported_spec(op, dt, idt, rq[0], rq[1], mode);
      char name[128];
      snprintf(name, sizeof name, "op %d %s idx %s ranks %d/%d mode %d", op,
               clg_dtype_name(dt), clg_dtype_name(idt), (int)rq[0], (int)rq[1],
               (int)mode);
      s.name = name;
      job j;
      job_make(&j, &s, 7000u + (uint64_t)n, 0);
      char msg[1024];
      clg_status st = run_oneshot(ctx, false, &j, msg, sizeof msg);
      cr_expect_eq(st, CLG_SUCCESS, "%s: clg_run: %s: %s", name,
                   clg_status_string(st), msg);
      if (st == CLG_SUCCESS)
        cr_expect(job_ok(&j, msg, sizeof msg), "%s", msg);
      job_free(&j);
      ++runs;
    }
  cr_expect_eq(runs, 45);

  /* Unsupported: one rule broken at a time, from a supported call; the
   * call fails with the status of that rule. */
  static unsigned char mem[3][1 << 16]; /* zeros: index 0 is valid */
  static const struct {
    int op, dt, idt, r, q, mode;
    clg_status want;
  } un[] = {
      {3, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 1, 0,
       CLG_ERROR_INVALID_ARGUMENT},
      {-1, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 1, 0,
       CLG_ERROR_INVALID_ARGUMENT},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 1, 3,
       CLG_ERROR_INVALID_ARGUMENT},
      {1, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 2, CLG_MODE_WRAP,
       CLG_ERROR_INVALID_ARGUMENT},
      {2, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 2, CLG_MODE_CLIP,
       CLG_ERROR_INVALID_ARGUMENT},
      {0, CLG_DTYPE_STRING, CLG_DTYPE_INT32, 2, 1, 0,
       CLG_ERROR_UNSUPPORTED_DTYPE},
      {1, CLG_DTYPE_UNDEFINED, CLG_DTYPE_INT64, 2, 2, 0,
       CLG_ERROR_UNSUPPORTED_DTYPE},
      {2, 17, CLG_DTYPE_INT64, 2, 2, 0, CLG_ERROR_UNSUPPORTED_DTYPE},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_UINT32, 2, 1, 0,
       CLG_ERROR_INVALID_INDICES_DTYPE},
      {1, CLG_DTYPE_INT8, CLG_DTYPE_INT16, 2, 2, 0,
       CLG_ERROR_INVALID_INDICES_DTYPE},
      {2, CLG_DTYPE_DOUBLE, CLG_DTYPE_UINT64, 2, 2, 0,
       CLG_ERROR_INVALID_INDICES_DTYPE},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 0, 1, 0, CLG_ERROR_INVALID_RANK},
      {1, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 17, 17, 0, CLG_ERROR_INVALID_RANK},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 17, 0, CLG_ERROR_INVALID_RANK},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, -1, 0, CLG_ERROR_INVALID_RANK},
      {0, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 16, 2, 0, CLG_ERROR_INVALID_RANK},
      {0, CLG_DTYPE_UINT8, CLG_DTYPE_INT64, 3, 15, 1, CLG_ERROR_INVALID_RANK},
      {1, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 3, 2, 0,
       CLG_ERROR_INCOMPATIBLE_SHAPES},
      {2, CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, 2, 0, 0, CLG_ERROR_INVALID_RANK},
  };
  for (size_t i = 0; i < sizeof un / sizeof un[0]; ++i) {
    cr_expect(!expect_supported(un[i].op, un[i].dt, un[i].idt, un[i].r, un[i].q,
                                un[i].mode),
              "test bug: case %zu is supported", i);
    cr_expect_eq(clg_supported((clg_op)un[i].op, (clg_dtype)un[i].dt,
                               (clg_dtype)un[i].idt, un[i].r, un[i].q,
                               (clg_index_mode)un[i].mode),
                 0, "case %zu", i);
    int64_t ones[CLG_MAX_RANK];
    for (int k = 0; k < CLG_MAX_RANK; ++k)
      ones[k] = 1;
    clg_params p = {(clg_op)un[i].op, 0, 0, (clg_index_mode)un[i].mode};
    clg_tensor d = clg_tensor_host((clg_dtype)un[i].dt, un[i].r, ones, mem[0]);
    clg_tensor x = clg_tensor_host((clg_dtype)un[i].idt, un[i].q, ones, mem[1]);
    if (un[i].op == CLG_OP_GATHER_ND && un[i].q >= 1)
      x.shape[un[i].q - 1] = un[i].r; /* full tuples */
    /* The output a valid call of these ranks would have (all ones). */
    int32_t orank = un[i].op == CLG_OP_GATHER      ? un[i].r - 1 + un[i].q
                    : un[i].op == CLG_OP_GATHER_ND ? un[i].q - 1
                                                   : un[i].q;
    if (orank < 0)
      orank = 0;
    if (orank > CLG_MAX_RANK)
      orank = CLG_MAX_RANK;
    unsigned char before[64];
    memset(mem[2], TU_SENTINEL, sizeof mem[2]);
    memcpy(before, mem[2], sizeof before);
    clg_tensor o = clg_tensor_host((clg_dtype)un[i].dt, orank, ones, mem[2]);
    clg_status st = clg_run(ctx, &p, &d, &x, &o, NULL, 0, NULL, NULL);
    cr_expect(st != CLG_SUCCESS, "case %zu: unsupported, yet clg_run succeeded",
              i);
    cr_expect_eq(st, un[i].want, "case %zu: clg_run: %s, want %s: %s", i,
                 clg_status_string(st), clg_status_string(un[i].want),
                 clg_last_error());
    cr_expect(memcmp(before, mem[2], sizeof before) == 0,
              "case %zu: the output was written", i);
    /* A plan cannot be made for it either. */
    clg_plan *plan = POISON_PLAN;
    st = clg_plan_create(ctx, &p, &d, &x, &o, 0, &plan);
    cr_expect_eq(st, un[i].want, "case %zu: clg_plan_create: %s: %s", i,
                 clg_status_string(st), clg_last_error());
    cr_expect_null(plan, "case %zu", i);
  }
  clg_context_destroy(ctx);
}
