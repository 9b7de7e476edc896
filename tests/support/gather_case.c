#define _POSIX_C_SOURCE 200809L /* setenv */
#include "support/gather_case.h"

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static clg_status call(const gather_case *c, clg_context *ctx,
                       const clg_tensor *d, const clg_tensor *i,
                       const clg_tensor *o, cl_event *ev) {
  if (c->api == GATHER_API_RUN)
    return clg_run(ctx, &c->p, d, i, o, c->queue, 0, NULL, ev);
  switch (c->p.op) {
  case CLG_OP_GATHER_ELEMENTS:
    return clg_gather_elements(ctx, d, i, c->p.axis, o, c->queue, 0, NULL, ev);
  case CLG_OP_GATHER_ND:
    return clg_gather_nd(ctx, d, i, c->p.batch_dims, o, c->queue, 0, NULL, ev);
  default:
    cr_assert(c->p.batch_dims == 0 && c->p.mode == CLG_MODE_RAISE,
              "test bug: clg_gather() takes neither batch_dims nor a mode");
    return clg_gather(ctx, d, i, c->p.axis, o, c->queue, 0, NULL, ev);
  }
}

static bool same_shape(int32_t ra, const int64_t *a, int32_t rb,
                       const int64_t *b) {
  bool same = ra == rb;
  for (int32_t k = 0; same && k < ra; ++k)
    same = a[k] == b[k];
  return same;
}

bool gc_run_case(const gather_case *c, uint64_t seed, char *msg, size_t cap) {
  char desc[1024];
  gather_case_str(c, desc, sizeof desc);
  clg_context *ctx = c->ctx ? c->ctx : tu_ctx();
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  cr_assert(gather_case_shape(c, &orank, oshape) == 0,
            "test bug: invalid case %s", desc);
  cr_assert(orank <= CLG_MAX_RANK, "test bug: output rank in %s", desc);

  /* Output-shape inference agrees with the reference. */
  int32_t grank = -1;
  int64_t gshape[CLG_MAX_RANK];
  clg_status st =
      clg_output_shape(&c->p, c->r, c->dshape, c->q, c->ishape, &grank, gshape);
  if (st != CLG_SUCCESS) {
    snprintf(msg, cap, "%s: clg_output_shape: %s: %s", desc,
             clg_status_string(st), clg_last_error());
    return false;
  }
  if (!same_shape(grank, gshape, orank, oshape)) {
    char g[200], w[200];
    snprintf(msg, cap, "%s: clg_output_shape gives %s, the reference %s", desc,
             tu_shape_str(grank, gshape, g, sizeof g),
             tu_shape_str(orank, oshape, w, sizeof w));
    return false;
  }

  size_t es = clg_dtype_size(c->dtype);
  cr_assert(es > 0, "test bug: dtype size 0 in %s", desc);
  int64_t on = tu_numel(orank, oshape);
  size_t obytes = (size_t)on * es;
  gather_inputs in;
  cr_assert(gather_inputs_draw(c, seed, &in) == 0, "out of host memory");
  const unsigned char *data = in.data, *idx = in.indices;
  size_t dbytes = in.data_bytes, ibytes = in.indices_bytes;
  unsigned char *want = malloc(obytes + 1), *got = malloc(obytes + 1);
  cr_assert(want && got, "out of host memory");
  cr_assert(gather_expect(c, &in, want) == 0,
            "test bug: reference failed on %s", desc);

  tu_tensor td, ti, to;
  tu_tensor_init(&td, c->dtype, c->r, c->dshape, c->st[0], data);
  tu_tensor_init(&ti, c->idt, c->q, c->ishape, c->st[1], idx);
  tu_tensor_init(&to, c->dtype, orank, oshape, c->st[2], NULL);
  bool ok = false;

  /* clg_validate: with the context, and without one for host inputs. */
  st = clg_validate(ctx, &c->p, &td.desc, &ti.desc, NULL, 0, NULL);
  if (st == CLG_SUCCESS && c->st[0].kind == CLG_STORAGE_HOST &&
      c->st[1].kind == CLG_STORAGE_HOST)
    st = clg_validate(NULL, &c->p, &td.desc, &ti.desc, NULL, 0, NULL);
  if (st != CLG_SUCCESS) {
    snprintf(msg, cap, "%s: clg_validate returned %s: %s", desc,
             clg_status_string(st), clg_last_error());
    goto done;
  }

  cl_event ev = NULL;
  st = call(c, ctx, &td.desc, &ti.desc, &to.desc, c->want_event ? &ev : NULL);
  if (st != CLG_SUCCESS) {
    snprintf(msg, cap, "%s: the call returned %s (%d): %s", desc,
             clg_status_string(st), (int)st, clg_last_error());
    goto done;
  }
  if (c->want_event) {
    if (!ev) {
      snprintf(msg, cap, "%s: success but no event returned", desc);
      goto done;
    }
    cl_int err = clWaitForEvents(1, &ev);
    cl_int es_status = CL_QUEUED;
    cl_int err2 = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                 sizeof es_status, &es_status, NULL);
    clReleaseEvent(ev);
    if (err != CL_SUCCESS || err2 != CL_SUCCESS || es_status != CL_COMPLETE) {
      snprintf(msg, cap, "%s: waiting on the event: %d/%d, status %d", desc,
               (int)err, (int)err2, (int)es_status);
      goto done;
    }
  } else {
    cl_command_queue q = c->queue ? c->queue : clg_context_queue(ctx);
    cr_assert(q != NULL, "clg_context_queue returned NULL");
    tu_cl_check(clFinish(q), "clFinish");
  }

  tu_tensor_read(&to, got);
  ptrdiff_t d = tu_first_diff(got, want, obytes);
  if (d >= 0) {
    snprintf(msg, cap,
             "%s: output differs from the reference at byte %td (element %td "
             "of %" PRId64 "): got 0x%02x, want 0x%02x",
             desc, d, d / (ptrdiff_t)es, on, got[d], want[d]);
    goto done;
  }
  if (!tu_tensor_guards_ok(&to)) {
    snprintf(msg, cap, "%s: bytes outside the output were written", desc);
    goto done;
  }
  /* Inputs are read-only. */
  unsigned char *back = malloc((dbytes > ibytes ? dbytes : ibytes) + 1);
  cr_assert(back != NULL, "out of host memory");
  tu_tensor_read(&td, back);
  bool din = tu_first_diff(back, data, dbytes) < 0;
  tu_tensor_read(&ti, back);
  bool iin = tu_first_diff(back, idx, ibytes) < 0;
  free(back);
  if (!din || !iin) {
    snprintf(msg, cap, "%s: the %s input was modified", desc,
             din ? "indices" : "data");
    goto done;
  }
  ok = true;

done:
  tu_tensor_free(&td);
  tu_tensor_free(&ti);
  tu_tensor_free(&to);
  gather_inputs_free(&in);
  free(want);
  free(got);
  return ok;
}

bool gc_shape_agrees(const gather_case *c, char *msg, size_t cap) {
  char desc[1024];
  gather_case_str(c, desc, sizeof desc);
  int32_t orank = 0, grank = -1;
  int64_t oshape[REF_MAX_RANK], gshape[CLG_MAX_RANK];
  int rc = gather_case_shape(c, &orank, oshape);
  clg_status st =
      clg_output_shape(&c->p, c->r, c->dshape, c->q, c->ishape, &grank, gshape);
  if ((rc == 0) != (st == CLG_SUCCESS)) {
    snprintf(msg, cap, "%s: reference %s, clg_output_shape %s: %s", desc,
             rc == 0 ? "accepts" : "rejects", clg_status_string(st),
             clg_last_error());
    return false;
  }
  if (st != CLG_SUCCESS) {
    if (st != CLG_ERROR_INCOMPATIBLE_SHAPES && st != CLG_ERROR_INVALID_AXIS &&
        st != CLG_ERROR_INVALID_BATCH_DIMS && st != CLG_ERROR_INVALID_RANK &&
        st != CLG_ERROR_INVALID_SHAPE) {
      snprintf(msg, cap, "%s: unexpected status %s", desc,
               clg_status_string(st));
      return false;
    }
    if (clg_last_error()[0] == '\0') {
      snprintf(msg, cap, "%s: %s without a message", desc,
               clg_status_string(st));
      return false;
    }
    return true;
  }
  if (!same_shape(grank, gshape, orank, oshape)) {
    char g[200], w[200];
    snprintf(msg, cap, "%s: clg_output_shape gives %s, the reference %s", desc,
             tu_shape_str(grank, gshape, g, sizeof g),
             tu_shape_str(orank, oshape, w, sizeof w));
    return false;
  }
  return true;
}

/* ------------------------------------------------------------ runners */

/* splitmix64's finalizer. */
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

void gc_run(gc_runner *rn, const gather_case *c, uint64_t seed) {
  if (!tu_sampled())
    return;
  if (rn->every > 1 && rn->seen++ > 0 &&
      mix(rn->salt * 0x100000001b3u + rn->seen) % (uint64_t)rn->every != 0)
    return;
  gather_case cc = *c;
  if (!cc.ctx)
    cc.ctx = rn->ctx;
  rn->cases++;
  char msg[2048];
  if (!gc_run_case(&cc, seed, msg, sizeof msg)) {
    rn->failures++;
    cr_expect(false, "%s", msg);
    cr_assert(rn->failures < GC_MAX_FAILURES, "too many failures, stopping");
    return;
  }
  if (rn->variant) {
    clg_choice how = CLG_CHOICE_NONE;
    const char *v = clg_context_last_variant(cc.ctx ? cc.ctx : tu_ctx(), &how);
    if (how == CLG_CHOICE_FORCED && v && strcmp(v, rn->variant) == 0)
      rn->forced++;
  }
}

void gc_finish(const gc_runner *rn, const char *what) {
  if (rn->variant)
    cr_log_info("%s: %d cases, %d of them ran %s, forced", what, rn->cases,
                rn->forced, rn->variant);
  else
    cr_log_info("%s: %d cases", what, rn->cases);
  cr_assert(rn->cases > 0, "%s: no cases ran", what);
  if (rn->variant)
    cr_assert(rn->forced > 0, "%s: no case ran variant %s, forced", what,
              rn->variant);
}

void gc_run_forced(const char *variant, const gc_cases_fn *gens, size_t count,
                   int every) {
  /* ctest reruns the suites with other plans, other index checks and a
   * lowered buffer size (tests/CMakeLists.txt); what varies here is the
   * kernel, so once, in the plain run, is enough. */
  static const char *const reruns[] = {"CLGATHER_TEST_KERNEL_DEVICE",
                                       "CLGATHER_TEST_DEVICE_VALIDATION",
                                       "CLGATHER_TEST_MAX_ALLOC"};
  for (size_t i = 0; i < sizeof reruns / sizeof reruns[0]; ++i) {
    const char *e = getenv(reruns[i]);
    if (e && *e)
      cr_skip_test("%s is set: the forced variants run in the suite's plain "
                   "run",
                   reruns[i]);
  }
  /* On the shared cl_context (created first, unforced): the cases'
   * buffers and queues are its. */
  cl_context shared = tu_cl_context();
  cr_assert_eq(setenv("CLGATHER_VARIANT", variant, 1), 0);
  clg_context *ctx = NULL;
  clg_status st = clg_context_create(shared, tu_device(), &ctx);
  cr_assert(st == CLG_SUCCESS, "clg_context_create: %s", clg_last_error());
  cr_assert_eq(unsetenv("CLGATHER_VARIANT"), 0);
  gc_runner rn = {0};
  rn.ctx = ctx;
  rn.every = every;
  rn.variant = variant;
  for (const char *p = variant; *p; ++p)
    rn.salt = rn.salt * 31u + (unsigned char)*p;
  for (size_t i = 0; i < count; ++i) {
    rn.seen = 0;
    gens[i](&rn);
  }
  gc_finish(&rn, variant);
  clg_context_destroy(ctx);
}

tu_storage gc_host(void) {
  tu_storage s = {CLG_STORAGE_HOST, 0, false, false};
  return s;
}

tu_storage gc_buf(size_t offset) {
  tu_storage s = {CLG_STORAGE_BUFFER, offset, false, false};
  return s;
}

void gc_storage_for(gather_case *c, int n, size_t unit) {
  size_t es = clg_dtype_size(c->dtype);
  size_t is = clg_dtype_size(c->idt);
  for (int j = 0; j < 3; ++j) {
    bool buf = (n >> j) & 1;
    size_t off = (size_t)((n / 8 + j) % 3) * (j == 1 ? is : es) * unit;
    c->st[j] = buf ? gc_buf(off) : gc_host();
  }
}

void gc_set_shape(int64_t *dst, int32_t rank, const int64_t *src) {
  for (int32_t i = 0; i < rank; ++i)
    dst[i] = src[i];
}

void gc_assert_context_works(const char *after) {
  gather_case c = {0};
  c.dtype = CLG_DTYPE_FLOAT;
  c.r = 2;
  c.dshape[0] = 5;
  c.dshape[1] = 3;
  c.q = 1;
  c.ishape[0] = 4;
  c.idt = CLG_DTYPE_INT64;
  c.mode = TU_IDX_ANY;
  char msg[2048];
  for (int v = 0; v < 2; ++v) {
    c.st[0] = c.st[1] = c.st[2] = v ? gc_buf(8) : gc_host();
    cr_assert(gc_run_case(&c, 77u + (uint64_t)v, msg, sizeof msg),
              "after %s the context no longer works: %s", after, msg);
  }
}
