/* The scatters' device index pass tests' cases (scatter_device_fx.h). */
#define _POSIX_C_SOURCE 200809L

#include "scatter_device_fx.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_scatter.h"

int32_t sd_updates_shape(const sd_case *c, int64_t *us) {
  if (c->op != CLG_OP_SCATTER_ND) {
    memcpy(us, c->is, sizeof c->is);
    return c->q;
  }
  int32_t n = 0, k = (int32_t)c->is[c->q - 1];
  for (int32_t i = 0; i < c->q - 1; ++i)
    us[n++] = c->is[i];
  for (int32_t i = k; i < c->r; ++i)
    us[n++] = c->ds[i];
  return n;
}

/* Index positions and the bound each one has. */
int64_t sd_bound(const sd_case *c, int64_t pos) {
  if (c->op == CLG_OP_SCATTER_ND)
    return c->ds[pos % c->is[c->q - 1]];
  int64_t a = c->axis < 0 ? c->axis + c->r : c->axis;
  return c->ds[a];
}

bool sd_cpu_plan(void) {
  return (clg__kernel_device(tu_ctx()) & CL_DEVICE_TYPE_CPU) != 0;
}

/* Does the device schedule of this call check the index values itself
 * (ops/op.h: checks_values), so that a synchronous call runs no validation
 * kernel (but to name an offender)? */
bool sd_plan_checks(clg_op op, int64_t axis,
                           const clg_scatter_params *sp, clg_context *ctx,
                           const clg_tensor *data, const clg_tensor *x) {
  const clg_op_impl *impl = clg__op_impl(op);
  clg_params norm = {op, axis < 0 ? axis + data->rank : axis, 0,
                     CLG_MODE_RAISE};
  void *state = NULL;
  cr_assert_eq(impl->device_schedule(ctx, &norm, sp, data, x, &state),
               CLG_SUCCESS);
  bool checks = state && impl->checks_values && impl->checks_values(state);
  if (state)
    impl->release_state(state);
  return checks;
}

/* The case on float data: host indices (async: false, host path) or
 * cl_mem everything; fills *res. */
void sd_call(const sd_case *c, const float *data, const void *idx,
                    const float *upd, bool device, bool async, sd_run *res) {
  int64_t us[8];
  int32_t ur = sd_updates_shape(c, us);
  size_t dn = (size_t)tu_numel(c->r, c->ds);
  tu_storage buf = {CLG_STORAGE_BUFFER, 16 + c->offset, false, false};
  tu_storage host = {CLG_STORAGE_HOST, 0, false, false};
  tu_tensor td, tx, tu, to;
  tu_tensor_init(&td, CLG_DTYPE_FLOAT, c->r, c->ds, buf, data);
  tu_tensor_init(&tx, c->idt, c->q, c->is, device ? buf : host, idx);
  tu_tensor_init(&tu, CLG_DTYPE_FLOAT, ur, us, buf, upd);
  if (!c->in_place)
    tu_tensor_init(&to, CLG_DTYPE_FLOAT, c->r, c->ds, buf, data);
  const tu_tensor *out = c->in_place ? &td : &to;
  clg_params p = {c->op, c->axis, 0, CLG_MODE_RAISE};
  clg_context *ctx = tu_ctx();
  unsigned long v0 = atomic_load(&ctx->device_validations);
  cl_event ev = NULL;
  if (async) {
    clg_outcome *o = NULL;
    clg_status st =
        clg_scatter_async(ctx, &p, &c->sp, &td.desc, &tx.desc, &tu.desc,
                          &out->desc, NULL, 0, NULL, &ev, &o);
    cr_assert_eq(st, CLG_SUCCESS, "the asynchronous call: %s",
                 clg_last_error());
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    ev = NULL;
    res->st = clg_outcome_wait(o);
    clg_outcome_release(o);
  } else
    res->st = clg_scatter(ctx, &p, &c->sp, &td.desc, &tx.desc, &tu.desc,
                          &out->desc, NULL, 0, NULL, &ev);
  snprintf(res->msg, sizeof res->msg, "%s",
           res->st == CLG_SUCCESS ? "" : clg_last_error());
  if (ev) {
    cr_expect_eq(res->st, CLG_SUCCESS, "an event after an error");
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  res->bare = device && !async &&
              sd_plan_checks(c->op, c->axis, &c->sp, ctx, &td.desc, &tx.desc);
  unsigned long ran = atomic_load(&ctx->device_validations) - v0;
  unsigned long want = !device     ? 0
                       : !res->bare ? 1
                                    : res->st == CLG_ERROR_INDEX_OUT_OF_BOUNDS;
  cr_expect_eq(ran, want, "validation kernels run: %lu", ran);
  res->out = malloc(dn * sizeof(float) + 1);
  cr_assert(res->out);
  tu_tensor_read(out, res->out);
  cr_expect(tu_tensor_guards_ok(out), "bytes outside the output written");
  tu_tensor_free(&td);
  tu_tensor_free(&tx);
  tu_tensor_free(&tu);
  if (!c->in_place)
    tu_tensor_free(&to);
}

/* Inputs of a case: data and updates with fractions (so the order of a
 * reduction's steps shows in its rounding), valid indices, negative half
 * the time, with repeats. */
void sd_inputs(const sd_case *c, tu_rng *rng, float **data, void **idx,
                      float **upd) {
  int64_t us[8];
  int32_t ur = sd_updates_shape(c, us);
  size_t dn = (size_t)tu_numel(c->r, c->ds), xn = (size_t)tu_numel(c->q, c->is),
         un = (size_t)tu_numel(ur, us);
  *data = malloc(dn * sizeof **data + 1);
  *upd = malloc(un * sizeof **upd + 1);
  *idx = malloc(xn * 8 + 1);
  cr_assert(*data && *upd && *idx);
  for (size_t i = 0; i < dn; ++i)
    (*data)[i] = (float)tu_rng_range(rng, -1000, 1000) / 7.0f;
  for (size_t i = 0; i < un; ++i)
    (*upd)[i] = (float)tu_rng_range(rng, -1000, 1000) / 3.0f;
  for (size_t i = 0; i < xn; ++i) {
    int64_t s = sd_bound(c, (int64_t)i);
    int64_t v = tu_rng_range(rng, 0, s - 1);
    tu_set_index(*idx, c->idt, (int64_t)i, tu_rng_range(rng, 0, 1) ? v : v - s);
  }
}

int sd_reference(const sd_case *c, float *want, const void *idx,
                        const float *upd) {
  int64_t bad = -1, first = -1;
  bool last = c->sp.duplicates == CLG_DUPLICATES_LAST;
  return c->op == CLG_OP_SCATTER_ND
             ? ref_scatter_nd(want, CLG_DTYPE_FLOAT, c->r, c->ds, idx,
                              tu_ref_index_type(c->idt), c->q, c->is, upd,
                              (ref_reduction)c->sp.reduction, last, &bad,
                              &first)
             : ref_scatter_elements(want, CLG_DTYPE_FLOAT, c->r, c->ds, idx,
                                    tu_ref_index_type(c->idt), c->is, upd,
                                    c->axis, (ref_reduction)c->sp.reduction,
                                    last, &bad, &first);
}

/* A random case: ScatterElements or ScatterND, rank 1-3. */
sd_case sd_random(tu_rng *rng, int big) {
  sd_case c;
  memset(&c, 0, sizeof c);
  c.op = tu_rng_range(rng, 0, 1) ? CLG_OP_SCATTER_ND : CLG_OP_SCATTER_ELEMENTS;
  c.sp.reduction = (clg_reduction)tu_rng_range(rng, 0, 4);
  c.sp.duplicates = tu_rng_range(rng, 0, 1) ? CLG_DUPLICATES_LAST
                                            : CLG_DUPLICATES_ERROR;
  c.idt = tu_rng_range(rng, 0, 1) ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
  c.r = (int32_t)tu_rng_range(rng, 1, 3);
  for (int32_t d = 0; d < c.r; ++d)
    c.ds[d] = tu_rng_range(rng, 1, big ? 60 : 6);
  if (c.op == CLG_OP_SCATTER_ND) {
    int64_t k = tu_rng_range(rng, 1, c.r);
    c.q = 2;
    c.is[0] = tu_rng_range(rng, 1, big ? 5000 : 12);
    c.is[1] = k;
  } else {
    c.q = c.r;
    int32_t a = (int32_t)tu_rng_range(rng, 0, c.r - 1);
    c.axis = tu_rng_range(rng, 0, 1) ? a - c.r : a;
    for (int32_t d = 0; d < c.r; ++d)
      c.is[d] = d == a ? tu_rng_range(rng, 1, big ? 90 : 8)
                       : tu_rng_range(rng, 1, c.ds[d]);
  }
  c.in_place = tu_rng_range(rng, 0, 1) != 0;
  return c;
}
