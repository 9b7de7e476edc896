/* The specs, jobs and plan runs shared by the Tests of test_plans
 * (plans_fx.h). */
#define _POSIX_C_SOURCE 200809L

#include "run/plans_fx.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int plans_poison;

/* A clg_context of the test's own on the shared cl_context and device, so
 * its program counter is exact and tu_*() buffers and queues belong to it. */
clg_context *fresh_ctx(void) {
  clg_context *c = NULL;
  clg_status st = clg_context_create(tu_cl_context(), tu_device(), &c);
  cr_assert(st == CLG_SUCCESS && c != NULL, "clg_context_create: %s: %s",
            clg_status_string(st), clg_last_error());
  cr_assert_eq(c->builds, 0u, "a new context has built %u programs", c->builds);
  return c;
}

tu_storage H(void) {
  tu_storage s = {CLG_STORAGE_HOST, 0, false, false};
  return s;
}

tu_storage B(size_t offset) {
  tu_storage s = {CLG_STORAGE_BUFFER, offset, false, false};
  return s;
}

spec mkspec(const char *name, clg_op op, int64_t axis, int64_t bd,
            clg_index_mode mode, clg_dtype dtype, int32_t r, const int64_t *ds,
            clg_dtype idt, int32_t q, const int64_t *is, tu_storage sd,
            tu_storage sx, tu_storage so) {
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
void spec_templates(const spec *s, clg_tensor *d, clg_tensor *x,
                    clg_tensor *o) {
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  spec_out(s, &orank, oshape);
  *d = tmpl_tensor(s->dtype, s->r, s->ds, s->st[0]);
  *x = tmpl_tensor(s->idt, s->q, s->is, s->st[1]);
  *o = tmpl_tensor(s->dtype, orank, oshape, s->st[2]);
}

clg_plan *spec_plan(clg_context *ctx, const spec *s, unsigned flags) {
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

/* extra: added to every buffer offset (keep it a multiple of 64 to keep the
 * template's alignment). oob_pos >= 0: indices[oob_pos] is out of bounds
 * (bound + 3, or -bound - 1 when oob_value_neg), and there is no
 * reference. */
void job_make_ex(job *j, const spec *s, uint64_t seed, size_t extra,
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

void job_make(job *j, const spec *s, uint64_t seed, size_t extra) {
  job_make_ex(j, s, seed, extra, -1, false);
}

void job_free(job *j) {
  tu_tensor_free(&j->d);
  tu_tensor_free(&j->x);
  tu_tensor_free(&j->o);
  free(j->data);
  free(j->idx);
  free(j->want);
  memset(j, 0, sizeof *j);
}

/* Inputs unchanged? */
bool job_inputs_ok(const job *j) {
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
bool job_ok(const job *j, char *msg, size_t cap) {
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
bool job_untouched(const job *j) {
  return tu_tensor_all_sentinel(&j->o) && job_inputs_ok(j);
}

/* Enqueue job j on plan and wait for it (its event; its outcome for an
 * asynchronous plan). Returns the call's status, or the outcome's; the
 * message goes to msg. Breaches of the contract (no event or outcome on
 * success, one set on failure) go to why (empty when none). No Criterion
 * assertion: usable from any thread. */
clg_status run_plan(clg_plan *plan, bool async, job *j, cl_command_queue q,
                    char *msg, size_t mcap, char *why, size_t wcap) {
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
void plan_ok(clg_plan *plan, bool async, job *j, cl_command_queue q,
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
clg_status run_oneshot(clg_context *ctx, bool async, job *j, char *msg,
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

/* Gather on cl_mem, offsets multiples of the element size. */
spec s_gather_buf(void) {
  return mkspec("gather f32 [50,8] axis 0, int32 [12], buffers", CLG_OP_GATHER,
                0, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2, D(50, 8),
                CLG_DTYPE_INT32, 1, D(12), B(16), B(8), B(32));
}
spec s_gather_bd(void) {
  return mkspec("gather u16 [3,5,7,4] axis 2 batch_dims 1, int64 [3,6], "
                "host data",
                CLG_OP_GATHER, 2, 1, CLG_MODE_RAISE, CLG_DTYPE_UINT16, 4,
                D(3, 5, 7, 4), CLG_DTYPE_INT64, 2, D(3, 6), H(), B(24), B(6));
}
/* cl_mem indices, host output: an asynchronous plan checks the values in
 * the call (the header: only a cl_mem output defers the verdict). */
spec s_gather_host_out(void) {
  return mkspec("gather f16 [10,6] axis 1, int64 [4], buffers, host output",
                CLG_OP_GATHER, 1, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT16, 2,
                D(10, 6), CLG_DTYPE_INT64, 1, D(4), B(0), B(16), H());
}
spec s_elements_buf(void) {
  return mkspec("elements f64 [4,6,3] axis 1, int64 [4,5,3], buffers",
                CLG_OP_GATHER_ELEMENTS, 1, 0, CLG_MODE_RAISE, CLG_DTYPE_DOUBLE,
                3, D(4, 6, 3), CLG_DTYPE_INT64, 3, D(4, 5, 3), B(8), B(16),
                B(24));
}
spec s_nd_buf(void) {
  return mkspec("nd i8 [3,4,5,6] batch_dims 1, int32 [3,7,2], buffers",
                CLG_OP_GATHER_ND, 0, 1, CLG_MODE_RAISE, CLG_DTYPE_INT8, 4,
                D(3, 4, 5, 6), CLG_DTYPE_INT32, 3, D(3, 7, 2), B(3), B(12),
                B(5));
}
spec s_gather_host(void) {
  return mkspec("gather bf16 [20,3] axis -1, int64 [2,5], host", CLG_OP_GATHER,
                -1, 0, CLG_MODE_RAISE, CLG_DTYPE_BFLOAT16, 2, D(20, 3),
                CLG_DTYPE_INT64, 2, D(2, 5), H(), H(), H());
}
spec s_nd_host(void) {
  return mkspec("nd f32 [4,5,6], int64 [3,2], host", CLG_OP_GATHER_ND, 0, 0,
                CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 3, D(4, 5, 6), CLG_DTYPE_INT64,
                2, D(3, 2), H(), H(), H());
}
/* 8192 int32 indices: 32 KiB, from which the header says cl_mem indices
 * are checked by the validation kernel. */
spec s_gather_big(void) {
  return mkspec("gather f32 [64,4], int32 [8192] (32 KiB), buffers",
                CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE, CLG_DTYPE_FLOAT, 2,
                D(64, 4), CLG_DTYPE_INT32, 1, D(8192), B(0), B(0), B(0));
}
