/*
 * host/run/strided.c and clg__check_strided() (host/check/checks.c):
 * strided tensors (clg_strided_tensor).
 *
 *  - Every operator (Gather with batch_dims, GatherElements, GatherND,
 *    ScatterElements with a reduction, ScatterND) with every st_operand
 *    strided: column blocks (a row pitch), transposed layouts, reversed
 *    axes (negative strides), a broadcast input (stride 0) and strides that
 *    are the dense ones; host memory and cl_mem at byte offsets; 1-, 2-,
 *    4- and 16-byte elements. The output's elements equal the plain-C
 *    reference (tools/reference/ref_*.c) on dense copies of the same
 *    values, byte for byte, and every byte of the output's parent
 *    allocation between its elements is untouched.
 *  - clg_run_async() (a strided output: the outcome is decided at once),
 *    plans made from strided templates, clg_validate() on strided indices.
 *  - Errors: an out-of-bounds index in strided indices (the message names
 *    its logical position), an output whose strides share memory, strides
 *    reaching past either end of a buffer, a misaligned offset, strides
 *    that overflow, clg_run_sharded(); each leaves the output's parent
 *    unchanged byte for byte.
 */
#include "internal.h" /* clg_context's strided_copies, strided_gathers */

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_scatter.h"
#include "reference/reference.h"
#include "support/testutil.h"

#include "support/strided_operand.h"

/* ------------------------------------------------------------ gathers */

typedef struct gcase {
  clg_params p;
  clg_dtype dt, idt;
  int32_t r, q;
  int64_t ds[CLG_MAX_RANK], is[CLG_MAX_RANK];
  lk kd, ki, ko;
  bool dev_d, dev_i, dev_o;
  bool async;
} gcase;

static void run_gather_case(const gcase *c, uint64_t seed) {
  tu_rng rng = tu_rng_make(seed);
  char what[160];
  snprintf(what, sizeof what, "op %d %s data %s%s, indices %s%s, output %s%s",
           (int)c->p.op, clg_dtype_name(c->dt), st_kind_name(c->kd),
           c->dev_d ? " (cl_mem)" : "", st_kind_name(c->ki),
           c->dev_i ? " (cl_mem)" : "", st_kind_name(c->ko),
           c->dev_o ? " (cl_mem)" : "");
  /* Index bounds: the axis (Gather, GatherElements) or the smallest of the
   * dims GatherND indexes. */
  int64_t s = c->ds[c->p.op == CLG_OP_GATHER_ND ? c->p.batch_dims : c->p.axis];
  if (c->p.op == CLG_OP_GATHER_ND)
    for (int j = 0; j < c->is[c->q - 1]; ++j)
      if (c->ds[c->p.batch_dims + j] < s)
        s = c->ds[c->p.batch_dims + j];
  void *d = st_values(&rng, c->dt, c->r, c->ds, c->kd);
  void *x = st_index_values(&rng, c->idt, tu_numel(c->q, c->is), -s, s - 1);
  int32_t orank = 0;
  int64_t os[CLG_MAX_RANK];
  size_t es = clg_dtype_size(c->dt);
  cr_assert(clg_output_shape(&c->p, c->r, c->ds, c->q, c->is, &orank, os) ==
            CLG_SUCCESS);
  void *want = malloc((size_t)tu_numel(orank, os) * es + 1);
  ref_index_type rt = tu_ref_index_type(c->idt);
  int rc;
  int32_t rr;
  int64_t rs[CLG_MAX_RANK];
  if (c->p.op == CLG_OP_GATHER)
    rc = ref_gather_ex(d, es, c->r, c->ds, x, rt, c->q, c->is, c->p.axis,
                       c->p.batch_dims, REF_RAISE, want, &rr, rs);
  else if (c->p.op == CLG_OP_GATHER_ELEMENTS)
    rc = ref_gather_elements(d, es, c->r, c->ds, x, rt, c->q, c->is, c->p.axis,
                             want);
  else
    rc = ref_gather_nd(d, es, c->r, c->ds, x, rt, c->q, c->is, c->p.batch_dims,
                       want);
  cr_assert_eq(rc, 0, "%s: the reference failed", what);
  st_operand od, oi, oo;
  st_make(&od, c->dt, c->r, c->ds, c->kd, c->dev_d, d);
  st_make(&oi, c->idt, c->q, c->is, c->ki, c->dev_i, x);
  st_make(&oo, c->dt, orank, os, c->ko, c->dev_o, NULL);
  clg_status st;
  if (c->async) {
    clg_outcome *out = NULL;
    st = clg_run_async(tu_ctx(), &c->p, &od.view.tensor, &oi.view.tensor,
                       &oo.view.tensor, tu_queue(), 0, NULL, NULL, &out);
    if (st == CLG_SUCCESS)
      st = clg_outcome_wait(out);
    clg_outcome_release(out);
  } else {
    st = clg_run(tu_ctx(), &c->p, &od.view.tensor, &oi.view.tensor,
                 &oo.view.tensor, tu_queue(), 0, NULL, NULL);
  }
  cr_expect_eq(st, CLG_SUCCESS, "%s: %s: %s", what, clg_status_string(st),
               clg_last_error());
  clFinish(tu_queue());
  if (st == CLG_SUCCESS)
    st_expect_output(&oo, want, what);
  st_free(&od);
  st_free(&oi);
  st_free(&oo);
  free(d);
  free(x);
  free(want);
}

static const lk kinds[] = {DENSE, PITCH, TRANSPOSED, REVERSED};

Test(strided, gather_every_layout) {
  gcase c = {.p = {CLG_OP_GATHER, 1, 0, CLG_MODE_RAISE},
             .dt = CLG_DTYPE_FLOAT,
             .idt = CLG_DTYPE_INT64,
             .r = 3,
             .q = 2,
             .ds = {3, 7, 5},
             .is = {2, 4}};
  uint64_t seed = 1;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      for (int o = 0; o < 4; ++o) {
        c.kd = kinds[a];
        c.ki = kinds[b];
        c.ko = kinds[o];
        c.dev_d = (a + b) % 2 == 0;
        c.dev_i = (b + o) % 2 == 0;
        c.dev_o = (a + o) % 2 == 1;
        run_gather_case(&c, seed++);
      }
}

Test(strided, gather_dtypes_batch_dims_broadcast) {
  static const clg_dtype dts[] = {CLG_DTYPE_INT8, CLG_DTYPE_FLOAT16,
                                  CLG_DTYPE_DOUBLE, CLG_DTYPE_COMPLEX128};
  for (int k = 0; k < 4; ++k) {
    gcase c = {.p = {CLG_OP_GATHER, 1, 1, CLG_MODE_RAISE},
               .dt = dts[k],
               .idt = CLG_DTYPE_INT32,
               .r = 3,
               .q = 2,
               .ds = {4, 6, 3},
               .is = {4, 5},
               .kd = k % 2 ? BROADCAST0 : PITCH,
               .ki = TRANSPOSED,
               .ko = k % 2 ? REVERSED : PITCH,
               .dev_d = true,
               .dev_i = k < 2,
               .dev_o = k != 1};
    run_gather_case(&c, 100 + (uint64_t)k);
  }
}

Test(strided, gather_elements_and_nd) {
  for (int k = 0; k < 8; ++k) {
    gcase e = {.p = {CLG_OP_GATHER_ELEMENTS, k % 2, 0, CLG_MODE_RAISE},
               .dt = k < 4 ? CLG_DTYPE_FLOAT : CLG_DTYPE_UINT16,
               .idt = k % 3 ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32,
               .r = 2,
               .q = 2,
               .ds = {5, 6},
               .is = {4, 6},
               .kd = kinds[k % 4],
               .ki = kinds[(k + 1) % 4],
               .ko = kinds[(k + 2) % 4],
               .dev_d = k & 1,
               .dev_i = (k & 2) != 0,
               .dev_o = (k & 4) != 0};
    run_gather_case(&e, 200 + (uint64_t)k);
    gcase n = {.p = {CLG_OP_GATHER_ND, 0, k % 2, CLG_MODE_RAISE},
               .dt = CLG_DTYPE_FLOAT,
               .idt = CLG_DTYPE_INT64,
               .r = 3,
               .q = 3,
               .ds = {3, 4, 6},
               .is = {3, 5, 1 + (k % 2 ? 0 : 1)},
               .kd = kinds[(k + 3) % 4],
               .ki = kinds[k % 4],
               .ko = kinds[(k + 1) % 4],
               .dev_d = (k & 2) != 0,
               .dev_i = k & 1,
               .dev_o = (k & 4) == 0};
    run_gather_case(&n, 300 + (uint64_t)k);
  }
}

Test(strided, async_and_empty) {
  for (int k = 0; k < 4; ++k) {
    gcase c = {.p = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE},
               .dt = CLG_DTYPE_FLOAT,
               .idt = CLG_DTYPE_INT64,
               .r = 2,
               .q = 1,
               .ds = {9, 4},
               .is = {k == 3 ? 0 : 40},
               .kd = PITCH,
               .ki = REVERSED,
               .ko = k == 1 ? DENSE : TRANSPOSED,
               .dev_d = true,
               .dev_i = true,
               .dev_o = k != 2,
               .async = true};
    run_gather_case(&c, 400 + (uint64_t)k);
  }
}

/* Gather (batch_dims 0) on strided cl_mem data larger than the output:
 * the data is read in place by the direct kernel (no copy of it), into
 * every layout of output; host outputs, and data smaller than the output,
 * take the copies. */
Test(strided, gather_reads_strided_data_in_place) {
  static const lk dk[] = {PITCH, TRANSPOSED, REVERSED, BROADCAST0};
  uint64_t seed = 700;
  for (int a = 0; a < 4; ++a)
    for (int o = 0; o < 4; ++o)
      for (int axis = 0; axis < 2; ++axis) {
        gcase c = {.p = {CLG_OP_GATHER, axis, 0, CLG_MODE_RAISE},
                   .dt = a == 1 ? CLG_DTYPE_COMPLEX128 : CLG_DTYPE_FLOAT16,
                   .idt = o % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64,
                   .r = 3,
                   .q = 2,
                   .ds = {4, 9, 5},
                   .is = {2, 2},
                   .kd = dk[a],
                   .ki = kinds[(a + o) % 4],
                   .ko = kinds[o],
                   .dev_d = true,
                   .dev_i = (a + o + axis) % 2 == 0,
                   .dev_o = true,
                   .async = o == 3};
        if (axis == 1)
          c.is[0] = 1;
        clg_context *ctx = tu_ctx();
        unsigned g0 = atomic_load(&ctx->strided_gathers),
                 c0 = atomic_load(&ctx->strided_copies);
        run_gather_case(&c, seed++);
        unsigned copies = atomic_load(&ctx->strided_copies) - c0;
        cr_expect_eq(atomic_load(&ctx->strided_gathers) - g0, 1,
                     "case %d %d %d: the direct kernel did not run", a, o,
                     axis);
        /* Strided indices not in dense order (transposed, reversed) are
         * copied; data and output never. */
        cr_expect(copies <= 1, "case %d %d %d: %u copies", a, o, axis, copies);
      }
  /* Dense data into a strided cl_mem output: the direct kernel on GPUs
   * (kernels for a GPU: CLGATHER_TEST_KERNEL_DEVICE=gpu,
   * test_strided_gpu_kernels), the operator's own kernel and a copy on CPUs. */
  bool gpu = !(clg__kernel_device(tu_ctx()) & CL_DEVICE_TYPE_CPU);
  for (int o = 1; o < 4; ++o) {
    gcase c = {.p = {CLG_OP_GATHER, o - 1, 0, CLG_MODE_RAISE},
               .dt = CLG_DTYPE_FLOAT,
               .idt = CLG_DTYPE_INT64,
               .r = 3,
               .q = 1,
               .ds = {3, 4, 5},
               .is = {7},
               .kd = DENSE,
               .ki = kinds[o],
               .ko = kinds[o],
               .dev_d = true,
               .dev_i = o != 2,
               .dev_o = true};
    unsigned g0 = atomic_load(&tu_ctx()->strided_gathers);
    run_gather_case(&c, 900 + (uint64_t)o);
    cr_expect_eq(atomic_load(&tu_ctx()->strided_gathers) - g0, gpu ? 1u : 0u,
                 "dense data, %s output, %s plans", st_kind_name(kinds[o]),
                 gpu ? "GPU" : "CPU");
  }
  /* A host output and data smaller than the output: copies instead. */
  gcase h = {.p = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE},
             .dt = CLG_DTYPE_FLOAT,
             .idt = CLG_DTYPE_INT64,
             .r = 2,
             .q = 1,
             .ds = {5, 3},
             .is = {4},
             .kd = PITCH,
             .ki = DENSE,
             .ko = PITCH,
             .dev_d = true,
             .dev_o = false};
  for (int k = 0; k < 2; ++k) {
    if (k == 1) {
      h.is[0] = 9; /* output 27 elements, data 15 */
      h.dev_o = true;
    }
    unsigned g0 = atomic_load(&tu_ctx()->strided_gathers);
    run_gather_case(&h, 800 + (uint64_t)k);
    cr_expect_eq(atomic_load(&tu_ctx()->strided_gathers), g0,
                 "the direct kernel ran for %s",
                 k ? "data smaller than the output" : "a host output");
  }
}

/* ------------------------------------------------------------ scatters */

static void run_scatter_case(clg_op op, clg_reduction red, lk kd, lk ki, lk ku,
                             lk ko, bool dev, uint64_t seed) {
  tu_rng rng = tu_rng_make(seed);
  char what[160];
  snprintf(what, sizeof what,
           "op %d red %d data %s indices %s updates %s "
           "output %s%s",
           (int)op, (int)red, st_kind_name(kd), st_kind_name(ki),
           st_kind_name(ku), st_kind_name(ko), dev ? " (cl_mem)" : "");
  clg_dtype dt = CLG_DTYPE_FLOAT, idt = CLG_DTYPE_INT64;
  int64_t ds[2] = {6, 5}, is[2], us[2];
  int32_t q;
  if (op == CLG_OP_SCATTER_ELEMENTS) {
    q = 2;
    is[0] = 4;
    is[1] = 5;
    us[0] = 4;
    us[1] = 5;
  } else {
    q = 2;
    is[0] = 3;
    is[1] = 1;
    us[0] = 3;
    us[1] = 5;
  }
  int64_t ni = tu_numel(q, is);
  void *d = st_values(&rng, dt, 2, ds, kd);
  void *u = st_values(&rng, dt, 2, us, ku);
  void *x = malloc((size_t)ni * 8);
  /* Distinct targets (reduction none needs them): a permutation. */
  for (int64_t i = 0; i < ni; ++i)
    tu_set_index(x, idt, i,
                 op == CLG_OP_SCATTER_ELEMENTS ? (i / 5 + i % 5) % 6
                                               : (2 * i + 1) % 6);
  size_t bytes = 30 * 4;
  void *want = malloc(bytes);
  memcpy(want, d, bytes);
  int64_t bad = -1, first = -1;
  int rc = op == CLG_OP_SCATTER_ELEMENTS
               ? ref_scatter_elements(want, dt, 2, ds, x, REF_INDEX_I64, is, u,
                                      0, (ref_reduction)red, 0, &bad, &first)
               : ref_scatter_nd(want, dt, 2, ds, x, REF_INDEX_I64, q, is, u,
                                (ref_reduction)red, 0, &bad, &first);
  cr_assert_eq(rc, REF_OK, "%s: reference %d", what, rc);
  st_operand od, oi, ou, oo;
  st_make(&od, dt, 2, ds, kd, dev, d);
  st_make(&oi, idt, q, is, ki, !dev, x);
  st_make(&ou, dt, 2, us, ku, dev, u);
  st_make(&oo, dt, 2, ds, ko, dev, NULL);
  clg_params p = {op, 0, 0, CLG_MODE_RAISE};
  clg_scatter_params sp = {red, CLG_DUPLICATES_ERROR};
  clg_status st =
      clg_scatter(tu_ctx(), &p, &sp, &od.view.tensor, &oi.view.tensor,
                  &ou.view.tensor, &oo.view.tensor, tu_queue(), 0, NULL, NULL);
  cr_expect_eq(st, CLG_SUCCESS, "%s: %s: %s", what, clg_status_string(st),
               clg_last_error());
  clFinish(tu_queue());
  if (st == CLG_SUCCESS)
    st_expect_output(&oo, want, what);
  st_free(&od);
  st_free(&oi);
  st_free(&ou);
  st_free(&oo);
  free(d);
  free(u);
  free(x);
  free(want);
}

Test(strided, scatters) {
  for (int k = 0; k < 8; ++k) {
    run_scatter_case(CLG_OP_SCATTER_ELEMENTS,
                     k % 2 ? CLG_REDUCTION_ADD : CLG_REDUCTION_NONE,
                     kinds[k % 4], kinds[(k + 1) % 4], kinds[(k + 2) % 4],
                     kinds[(k + 3) % 4], k < 4, 500 + (uint64_t)k);
    run_scatter_case(CLG_OP_SCATTER_ND,
                     k % 2 ? CLG_REDUCTION_MAX : CLG_REDUCTION_NONE,
                     kinds[(k + 2) % 4], kinds[k % 4], kinds[(k + 3) % 4],
                     kinds[(k + 1) % 4], k >= 4, 600 + (uint64_t)k);
  }
}

/* ------------------------------------------------- plans and validate */

Test(strided, plan_from_strided_templates) {
  tu_rng rng = tu_rng_make(7);
  int64_t ds[2] = {8, 6}, is[1] = {5}, os[2] = {5, 6};
  void *d = st_values(&rng, CLG_DTYPE_FLOAT, 2, ds, DENSE);
  void *x = st_index_values(&rng, CLG_DTYPE_INT32, 5, -8, 7);
  void *want = malloc(5 * 6 * 4);
  int32_t rr;
  int64_t rs[CLG_MAX_RANK];
  cr_assert_eq(ref_gather_ex(d, 4, 2, ds, x, REF_INDEX_I32, 1, is, 0, 0,
                             REF_RAISE, want, &rr, rs),
               0);
  st_operand od, oi, oo;
  st_make(&od, CLG_DTYPE_FLOAT, 2, ds, PITCH, true, d);
  st_make(&oi, CLG_DTYPE_INT32, 1, is, REVERSED, true, x);
  st_make(&oo, CLG_DTYPE_FLOAT, 2, os, TRANSPOSED, true, NULL);
  clg_plan *plan = NULL;
  clg_status st = clg_plan_create(tu_ctx(), NULL, &od.view.tensor,
                                  &oi.view.tensor, &oo.view.tensor, 0, &plan);
  cr_assert_eq(st, CLG_SUCCESS, "%s", clg_last_error());
  cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
  for (int rep = 0; rep < 2; ++rep) {
    st = clg_plan_enqueue(plan, &od.view.tensor, &oi.view.tensor,
                          &oo.view.tensor, tu_queue(), 0, NULL, NULL, NULL);
    cr_expect_eq(st, CLG_SUCCESS, "%s", clg_last_error());
    clFinish(tu_queue());
    st_expect_output(&oo, want, "plan");
  }
  clg_plan_destroy(plan);
  st_free(&od);
  st_free(&oi);
  st_free(&oo);
  free(d);
  free(x);
  free(want);
}

Test(strided, validate_strided_indices) {
  int64_t ds[2] = {5, 3}, is[2] = {3, 4};
  for (int dev = 0; dev < 2; ++dev) {
    tu_rng rng = tu_rng_make(9);
    void *x = st_index_values(&rng, CLG_DTYPE_INT64, 12, -5, 4);
    tu_set_index(x, CLG_DTYPE_INT64, 6, 5); /* position [1, 2] */
    st_operand oi, od;
    st_make(&oi, CLG_DTYPE_INT64, 2, is, TRANSPOSED, dev, x);
    st_make(&od, CLG_DTYPE_FLOAT, 2, ds, PITCH, dev, NULL);
    clg_status st = clg_validate(tu_ctx(), NULL, &od.view.tensor,
                                 &oi.view.tensor, NULL, 0, NULL);
    cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s",
                 clg_status_string(st));
    cr_expect(tu_contains(clg_last_error(), "[1, 2]") &&
                  tu_contains(clg_last_error(), "= 5"),
              "the message names the logical position and value: %s",
              clg_last_error());
    tu_set_index(x, CLG_DTYPE_INT64, 6, -5);
    st_free(&oi);
    st_make(&oi, CLG_DTYPE_INT64, 2, is, TRANSPOSED, dev, x);
    st = clg_validate(tu_ctx(), NULL, &od.view.tensor, &oi.view.tensor, NULL, 0,
                      NULL);
    cr_expect_eq(st, CLG_SUCCESS, "%s", clg_last_error());
    st_free(&oi);
    st_free(&od);
    free(x);
  }
}

/* -------------------------------------------------------------- errors */

/* A Gather [6, 4] f32 (pitch, cl_mem), indices [3] (reversed), output
 * [3, 4] (transposed), spoilt by `spoil` (NULL: an index out of bounds),
 * whose call is expected to fail with `want`, the message containing
 * `needle`, the output's parent unchanged. */
typedef void (*spoil_fn)(st_operand *od, st_operand *oi, st_operand *oo);

static void expect_error(spoil_fn spoil, bool dev_out, clg_status want,
                         const char *needle, const char *what) {
  tu_rng rng = tu_rng_make(11);
  int64_t ds[2] = {6, 4}, is[1] = {3}, os[2] = {3, 4};
  void *d = st_values(&rng, CLG_DTYPE_FLOAT, 2, ds, DENSE);
  void *x = st_index_values(&rng, CLG_DTYPE_INT64, 3, 0, 5);
  if (!spoil) /* an index out of bounds: indices[1] = 6 */
    tu_set_index(x, CLG_DTYPE_INT64, 1, 6);
  st_operand od, oi, oo;
  st_make(&od, CLG_DTYPE_FLOAT, 2, ds, PITCH, true, d);
  st_make(&oi, CLG_DTYPE_INT64, 1, is, REVERSED, true, x);
  st_make(&oo, CLG_DTYPE_FLOAT, 2, os, TRANSPOSED, dev_out, NULL);
  if (spoil)
    spoil(&od, &oi, &oo);
  for (int async = 0; async < 2; ++async) {
    clg_outcome *out = NULL;
    clg_status st =
        async ? clg_run_async(tu_ctx(), NULL, &od.view.tensor, &oi.view.tensor,
                              &oo.view.tensor, tu_queue(), 0, NULL, NULL, &out)
              : clg_run(tu_ctx(), NULL, &od.view.tensor, &oi.view.tensor,
                        &oo.view.tensor, tu_queue(), 0, NULL, NULL);
    if (st == CLG_SUCCESS && out)
      st = clg_outcome_wait(out);
    clg_outcome_release(out);
    cr_expect_eq(st, want, "%s (%s): %s, expected %s: %s", what,
                 async ? "async" : "sync", clg_status_string(st),
                 clg_status_string(want), clg_last_error());
    cr_expect(tu_contains(clg_last_error(), needle),
              "%s: the message names '%s': %s", what, needle, clg_last_error());
    clFinish(tu_queue());
    st_expect_untouched(&oo, what);
  }
  st_free(&od);
  st_free(&oi);
  st_free(&oo);
  free(d);
  free(x);
}

static void shared_output(st_operand *od, st_operand *oi, st_operand *oo) {
  (void)od;
  (void)oi;
  oo->view.strides[0] = 2; /* [3, 4] with strides [2, 1]: rows overlap */
  oo->view.strides[1] = 1;
}
static void zero_output(st_operand *od, st_operand *oi, st_operand *oo) {
  (void)od;
  (void)oi;
  oo->view.strides[0] = 0;
}
static void past_end(st_operand *od, st_operand *oi, st_operand *oo) {
  (void)oi;
  (void)oo;
  od->view.strides[0] *= 4;
}
static void below_start(st_operand *od, st_operand *oi, st_operand *oo) {
  (void)od;
  (void)oo;
  oi->view.strides[0] = -100;
}
static void misaligned(st_operand *od, st_operand *oi, st_operand *oo) {
  (void)oi;
  (void)oo;
  od->view.tensor.offset += 2;
}
static void overflow(st_operand *od, st_operand *oi, st_operand *oo) {
  (void)oi;
  (void)oo;
  od->view.strides[1] = INT64_MAX / 2;
}

Test(strided, errors_leave_the_output) {
  for (int dev = 0; dev < 2; ++dev) {
    expect_error(NULL, dev, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "indices[1]",
                 "an index out of bounds");
    expect_error(shared_output, dev, CLG_ERROR_INVALID_ARGUMENT, "same memory",
                 "an output sharing memory");
    expect_error(zero_output, dev, CLG_ERROR_INVALID_ARGUMENT, "same memory",
                 "an output with stride 0");
    expect_error(past_end, dev, CLG_ERROR_BUFFER_TOO_SMALL, "data->buffer",
                 "data past the buffer's end");
    expect_error(below_start, dev, CLG_ERROR_BUFFER_TOO_SMALL, "below",
                 "indices before the buffer's start");
    expect_error(misaligned, dev, CLG_ERROR_INVALID_ARGUMENT, "multiple of",
                 "a misaligned offset");
    expect_error(overflow, dev, CLG_ERROR_SIZE_OVERFLOW, "overflows",
                 "strides that overflow");
  }
}

Test(strided, sharded_refuses) {
  int64_t ds[1] = {4}, is[1] = {2};
  float d[4] = {1, 2, 3, 4}, o[2] = {0, 0};
  int64_t x[2] = {1, 2}, one = 1;
  clg_tensor td = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, d);
  clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 1, is, x);
  clg_tensor to = clg_tensor_host(CLG_DTYPE_FLOAT, 1, is, o);
  clg_strided_tensor vd = clg_tensor_strided(&td, &one);
  clg_context *ctx = tu_ctx();
  clg_status st =
      clg_run_sharded(&ctx, 1, NULL, &vd.tensor, &tx, &to, NULL, 0, NULL, NULL);
  cr_expect_eq(st, CLG_ERROR_INVALID_ARGUMENT, "%s", clg_status_string(st));
  cr_expect(tu_contains(clg_last_error(), "strided"), "%s", clg_last_error());
  cr_expect(o[0] == 0 && o[1] == 0);
  /* The constructor: storage kinds, strides past rank zero, NULL dense. */
  cr_expect_eq(vd.tensor.storage, CLG_STORAGE_HOST_STRIDED);
  cr_expect_eq(vd.strides[1], 0);
  clg_strided_tensor none = clg_tensor_strided(NULL, NULL);
  st = clg_run(ctx, NULL, &none.tensor, &tx, &to, NULL, 0, NULL, NULL);
  cr_expect_eq(st, CLG_ERROR_UNSUPPORTED_DTYPE, "%s", clg_status_string(st));
  cr_expect(o[0] == 0 && o[1] == 0);
}
