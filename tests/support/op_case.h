/*
 * A case runner for the gather family beyond Gather (GatherElements and
 * GatherND), shared by tests/ops/test_gather_elements.c and
 * tests/ops/test_gather_nd.c: it draws data and valid indices from a seed,
 * checks clg_output_shape() against the reference's shape, clg_validate()
 * (with and without a context), runs the operator through clg_run() or its
 * convenience call, and compares the output with the reference byte for
 * byte, plus the guard bytes around it and the unchanged inputs.
 *
 * Header-only (static functions) so that it needs no build change.
 */
#ifndef CLGATHER_TESTS_OP_CASE_H
#define CLGATHER_TESTS_OP_CASE_H

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/testutil.h"

/* How a case calls the library. */
typedef enum oc_api {
  OC_RUN = 0,         /* clg_run(&params) */
  OC_CONVENIENCE = 1, /* clg_gather_elements / clg_gather_nd */
} oc_api;

typedef struct oc_case {
  clg_params p; /* op, axis (GatherElements), batch_dims (GatherND) */
  clg_dtype dtype;
  int32_t r;
  int64_t dshape[CLG_MAX_RANK];
  int32_t q;
  int64_t ishape[CLG_MAX_RANK];
  clg_dtype idt;
  tu_storage st[3]; /* data, indices, output */
  tu_index_mode mode;
  oc_api api;
  bool want_event;
} oc_case;

typedef struct oc_runner {
  int cases;
  int failures;
} oc_runner;

#define OC_MAX_FAILURES 8

static inline tu_storage oc_host(void) {
  tu_storage s = {CLG_STORAGE_HOST, 0, false, false};
  return s;
}

static inline tu_storage oc_buf(size_t offset) {
  tu_storage s = {CLG_STORAGE_BUFFER, offset, false, false};
  return s;
}

/* Cycles through the 8 host/buffer combinations, offsets multiples of the
 * element sizes. */
static inline void oc_storage_for(oc_case *c, int n) {
  size_t es = clg_dtype_size(c->dtype);
  size_t is = clg_dtype_size(c->idt);
  for (int j = 0; j < 3; ++j) {
    bool buf = (n >> j) & 1;
    size_t off = (size_t)((n / 8 + j) % 3) * (j == 1 ? is : es) * 3u;
    c->st[j] = buf ? oc_buf(off) : oc_host();
  }
}

/* The reference's output shape; 0 if the case is valid. */
static inline int oc_ref_shape(const oc_case *c, int32_t *orank,
                               int64_t *oshape) {
  if (c->p.op == CLG_OP_GATHER_ELEMENTS)
    return ref_gather_elements_shape(c->r, c->dshape, c->q, c->ishape,
                                     c->p.axis, orank, oshape);
  return ref_gather_nd_shape(c->r, c->dshape, c->q, c->ishape, c->p.batch_dims,
                             CLG_MAX_RANK, orank, oshape);
}

/* The size of the axis the index at flat position i indexes. */
static inline int64_t oc_bound(const oc_case *c, int64_t i) {
  if (c->p.op == CLG_OP_GATHER_ELEMENTS) {
    int64_t a = c->p.axis < 0 ? c->p.axis + c->r : c->p.axis;
    return c->dshape[a];
  }
  int64_t m = c->ishape[c->q - 1];
  return c->dshape[c->p.batch_dims + i % m];
}

static inline void oc_fill_indices(const oc_case *c, tu_rng *rng, void *dst,
                                   int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    int64_t s = oc_bound(c, i);
    cr_assert(s >= 1, "test bug: an index into an axis of size 0");
    int64_t v = 0;
    switch (c->mode) {
    default: /* only valid indices here (mode RAISE) */
    case TU_IDX_ANY: v = tu_rng_range(rng, -s, s - 1); break;
    case TU_IDX_NONNEG: v = tu_rng_range(rng, 0, s - 1); break;
    case TU_IDX_NEG: v = tu_rng_range(rng, -s, -1); break;
    case TU_IDX_EDGES: {
      const int64_t edges[4] = {-s, -1, 0, s - 1};
      v = edges[tu_rng_range(rng, 0, 3)];
      break;
    }
    }
    tu_set_index(dst, c->idt, i, v);
  }
}

static inline const char *oc_case_str(const oc_case *c, char *buf, size_t cap) {
  char ds[200], is[200];
  static const char *const modes[] = {"any", "nonneg", "neg", "edges", "wild"};
  snprintf(buf, cap,
           "%s %s=%" PRId64 " dtype=%s data=%s indices=%s%s "
           "storage=%s+%zu/%s+%zu/%s+%zu idx=%s api=%s%s",
           c->p.op == CLG_OP_GATHER_ELEMENTS ? "GatherElements" : "GatherND",
           c->p.op == CLG_OP_GATHER_ELEMENTS ? "axis" : "batch_dims",
           c->p.op == CLG_OP_GATHER_ELEMENTS ? c->p.axis : c->p.batch_dims,
           clg_dtype_name(c->dtype),
           tu_shape_str(c->r, c->dshape, ds, sizeof ds), clg_dtype_name(c->idt),
           tu_shape_str(c->q, c->ishape, is, sizeof is),
           c->st[0].kind ? "buf" : "host", c->st[0].offset,
           c->st[1].kind ? "buf" : "host", c->st[1].offset,
           c->st[2].kind ? "buf" : "host", c->st[2].offset, modes[c->mode],
           c->api == OC_RUN ? "clg_run" : "convenience",
           c->want_event ? " event" : "");
  return buf;
}

static inline clg_status oc_call(const oc_case *c, const clg_tensor *d,
                                 const clg_tensor *i, const clg_tensor *o,
                                 cl_uint nev, const cl_event *wl,
                                 cl_event *ev) {
  if (c->api == OC_RUN)
    return clg_run(tu_ctx(), &c->p, d, i, o, NULL, nev, wl, ev);
  if (c->p.op == CLG_OP_GATHER_ELEMENTS)
    return clg_gather_elements(tu_ctx(), d, i, c->p.axis, o, NULL, nev, wl, ev);
  return clg_gather_nd(tu_ctx(), d, i, c->p.batch_dims, o, NULL, nev, wl, ev);
}

/* Runs the case; true on success, else why in msg. */
static inline bool oc_run_case(const oc_case *c, uint64_t seed, char *msg,
                               size_t cap) {
  char desc[768];
  oc_case_str(c, desc, sizeof desc);
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  cr_assert(oc_ref_shape(c, &orank, oshape) == 0, "test bug: invalid case %s",
            desc);

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
  bool same = grank == orank;
  for (int32_t k = 0; same && k < orank; ++k)
    same = gshape[k] == oshape[k];
  if (!same) {
    char g[200], w[200];
    snprintf(msg, cap, "%s: clg_output_shape gives %s, the reference %s", desc,
             tu_shape_str(grank, gshape, g, sizeof g),
             tu_shape_str(orank, oshape, w, sizeof w));
    return false;
  }

  size_t es = clg_dtype_size(c->dtype);
  int64_t dn = tu_numel(c->r, c->dshape), in = tu_numel(c->q, c->ishape),
          on = tu_numel(orank, oshape);
  size_t dbytes = (size_t)dn * es, ibytes = (size_t)in * clg_dtype_size(c->idt),
         obytes = (size_t)on * es;
  tu_rng rng = tu_rng_make(seed);
  unsigned char *data = malloc(dbytes + 1), *idx = malloc(ibytes + 1),
                *want = malloc(obytes + 1), *got = malloc(obytes + 1);
  cr_assert(data && idx && want && got, "out of host memory");
  tu_rng_bytes(&rng, data, dbytes);
  oc_fill_indices(c, &rng, idx, in);
  int rc = c->p.op == CLG_OP_GATHER_ELEMENTS
               ? ref_gather_elements(data, es, c->r, c->dshape, idx,
                                     tu_ref_index_type(c->idt), c->q, c->ishape,
                                     c->p.axis, want)
               : ref_gather_nd(data, es, c->r, c->dshape, idx,
                               tu_ref_index_type(c->idt), c->q, c->ishape,
                               c->p.batch_dims, want);
  cr_assert(rc == 0, "test bug: reference failed on %s", desc);

  tu_tensor td, ti, to;
  tu_tensor_init(&td, c->dtype, c->r, c->dshape, c->st[0], data);
  tu_tensor_init(&ti, c->idt, c->q, c->ishape, c->st[1], idx);
  tu_tensor_init(&to, c->dtype, orank, oshape, c->st[2], NULL);
  bool ok = false;

  /* clg_validate: with the context, and without one for host inputs. */
  st = clg_validate(tu_ctx(), &c->p, &td.desc, &ti.desc, NULL, 0, NULL);
  if (st == CLG_SUCCESS && c->st[0].kind == CLG_STORAGE_HOST &&
      c->st[1].kind == CLG_STORAGE_HOST)
    st = clg_validate(NULL, &c->p, &td.desc, &ti.desc, NULL, 0, NULL);
  if (st != CLG_SUCCESS) {
    snprintf(msg, cap, "%s: clg_validate returned %s: %s", desc,
             clg_status_string(st), clg_last_error());
    goto done;
  }

  cl_event ev = NULL;
  st = oc_call(c, &td.desc, &ti.desc, &to.desc, 0, NULL,
               c->want_event ? &ev : NULL);
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
    clReleaseEvent(ev);
    if (err != CL_SUCCESS) {
      snprintf(msg, cap, "%s: waiting on the event: %d", desc, (int)err);
      goto done;
    }
  } else {
    cl_command_queue q = clg_context_queue(tu_ctx());
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
  free(data);
  free(idx);
  free(want);
  free(got);
  return ok;
}

static inline void oc_run(oc_runner *rn, const oc_case *c, uint64_t seed) {
  char msg[2048];
  if (!tu_sampled())
    return;
  rn->cases++;
  if (!oc_run_case(c, seed, msg, sizeof msg)) {
    rn->failures++;
    cr_expect(false, "%s", msg);
    cr_assert(rn->failures < OC_MAX_FAILURES, "too many failures, stopping");
  }
}

static inline void oc_finish(const oc_runner *rn, const char *what) {
  cr_log_info("%s: %d cases", what, rn->cases);
  cr_assert(rn->cases > 0, "no cases ran");
}

static inline void oc_set_shape(int64_t *dst, int32_t rank,
                                const int64_t *src) {
  for (int32_t i = 0; i < rank; ++i)
    dst[i] = src[i];
}

/* Checks clg_output_shape() against the reference on a shape pair that may
 * be invalid: both accept with the same shape, or both reject (the library
 * with a shape/axis/batch_dims/rank status and a message). */
static inline bool oc_shape_agrees(const oc_case *c, char *msg, size_t cap) {
  char desc[768];
  oc_case_str(c, desc, sizeof desc);
  int32_t orank = 0, grank = -1;
  int64_t oshape[REF_MAX_RANK], gshape[CLG_MAX_RANK];
  int rc = oc_ref_shape(c, &orank, oshape);
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
  bool same = grank == orank;
  for (int32_t k = 0; same && k < orank; ++k)
    same = gshape[k] == oshape[k];
  if (!same) {
    char g[200], w[200];
    snprintf(msg, cap, "%s: clg_output_shape gives %s, the reference %s", desc,
             tu_shape_str(grank, gshape, g, sizeof g),
             tu_shape_str(orank, oshape, w, sizeof w));
    return false;
  }
  return true;
}

#endif /* CLGATHER_TESTS_OP_CASE_H */
