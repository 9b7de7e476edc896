/*
 * host/run/plans.c: plans (clg_plan_create / bake / enqueue / destroy),
 * their reuse of programs and their results (test_plans, part 1 of 5).
 *
 *  - Plans reuse programs, counted on a clg_context of the test's own (its
 *    `builds` counter counts every program created, from source or from the
 *    disk cache): bake builds what the header promises, and enqueues on new
 *    memory build nothing; every result equals the plain-C reference
 *    (tools/reference/ref_*.c) byte for byte, with the guard bytes around it
 *    and the inputs unchanged.
 *  - Bake is idempotent and optional; a plan gives clg_run()'s bytes; other
 *    offsets than the template's, and misaligned host memory, still give the
 *    right result; the templates' memory is not kept.
 *
 * The rest of test_plans: test_plans_create.c (clg_plan_create()'s
 * errors), test_plans_enqueue.c (clg_plan_enqueue()'s errors, injected
 * faults, out-of-bounds indices), test_plans_async.c (empty tensors, an
 * asynchronous enqueue that does not wait, destroy, two threads),
 * test_plans_supported.c (clg_supported()); their shared specs, jobs and
 * runs: plans_fx.h / plans_fx.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/plans_fx.h"

/* What the header says clg_plan_bake() builds: the gather kernel and, for
 * mode RAISE with cl_mem indices (whose values are read on the device), the
 * validation kernel. (Specs here all have indices and an output.) */
static unsigned spec_bake_programs(const spec *s) {
  return 1u +
         (s->p.mode == CLG_MODE_RAISE && s->st[1].kind == CLG_STORAGE_BUFFER);
}

/* ------------------------------------------- the specs used here only */

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
static spec s_elements_host(void) {
  return mkspec("elements i32 [5,4] axis 0, int32 [7,4], host",
                CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_RAISE, CLG_DTYPE_INT32,
                2, D(5, 4), CLG_DTYPE_INT32, 2, D(7, 4), H(), H(), H());
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
  /* An async plan needs the same two, the validation kernel and the
   * gated gather (which a synchronous call on cl_mem indices and output
   * gates too): nothing more to build. */
  clg_plan *p3 = spec_plan(ctx, &s, CLG_PLAN_ASYNC_CHECK);
  cr_assert_eq(clg_plan_bake(p3), CLG_SUCCESS, "%s", clg_last_error());
  cr_expect_eq(ctx->builds, b, "the async plan built %u programs",
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
