/* Fuzz harness: validation, planning and execution of the whole gather
 * family through the public API (clg_run, clg_validate, clg_output_shape).
 *
 * The input is decoded into a clg_run call (or, for one input in two, a
 * clg_run_async call whose status is its outcome's): a clg_params (op Gather,
 * GatherElements, GatherND, rarely an unknown op or NULL params; axis,
 * batch_dims and mode, each sometimes out of range or a field the operator
 * does not take), element types (valid and not), ranks (in and out of
 * [0, CLG_MAX_RANK]), shapes (small dims and hostile ones), index values,
 * where each tensor lives (host memory at any byte address, or a cl_mem at
 * a byte offset, sometimes one byte too small), an output descriptor that is
 * either the right one or broken in one way (dtype, shape, rank, aliasing an
 * input, NULL pointer, bad storage), a wait list that is sometimes
 * malformed, and whether an event is asked for. Optional "fix-ups" make the
 * shapes agree with an operator's rules (GatherElements' ranks and dims,
 * batch dimensions, GatherND's tuple length) so that valid calls are common.
 * Tensors are capped at FZ_MAX_ELEMS elements so every input runs quickly.
 *
 * The oracle is computed here from the header's rules, independently of
 * host/: the set of statuses the broken rules allow. Then
 *  - no rule broken: clg_run must succeed, return an event if asked, and the
 *    output must equal the plain-C references (tools/reference/ref_*.c)
 *    byte for byte, with every byte around it untouched;
 *  - some rule broken: clg_run must fail with one of those statuses, with a
 *    message, set no event, and leave the output's memory untouched.
 * Inputs are never written. clg_validate must fail exactly when an input
 * rule is broken (with one of those statuses) and, for an input error other
 * than an index out of bounds, with clg_run's status and message.
 * clg_output_shape must fail exactly when a shape rule is broken and agree
 * with the reference's shape functions otherwise. One clg_context (the
 * default device) is created on first use and kept.
 *
 * This file is the call and its oracle; the helpers it calls (more of the
 * decoding, the context, the tensors and their backing memory, the rules
 * every tensor follows) are in fuzz_family_fx.c, one harness with it.
 */
#include "fuzz_common.h"

#include <clgather/clgather.h>

#include "reference/reference.h"

#define FZ_MAX_ELEMS 4096

#include "fuzz_decode.h"
#include "fuzz_family_fx.h"

/* ------------------------------------------------------------ the call */

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size) {
  fz_in in = {input, size};
  fz_tensor d, x, o;
  memset(&d, 0, sizeof d);
  memset(&x, 0, sizeof x);
  memset(&o, 0, sizeof o);

  /* ---- params ---- */
  uint8_t opb = take8(&in);
  int null_params = opb == 249;
  int op = opb < 249 ? opb % 3 : opb == 249 ? 0 : bad_ops[opb - 250];
  clg_dtype ddt = take_data_dtype(&in);
  clg_dtype xdt = take_index_dtype(&in);
  int32_t r = take_rank(&in, 1, 4);
  int32_t q = take_rank(&in, 0, 4);
  int64_t ds[REF_MAX_RANK] = {0}, xs[REF_MAX_RANK] = {0};
  for (int32_t i = 0; i < r && i < CLG_MAX_RANK; ++i)
    ds[i] = take_dim(&in);
  for (int32_t i = 0; i < q && i < CLG_MAX_RANK; ++i)
    xs[i] = take_dim(&in);
  int64_t axis = op == CLG_OP_GATHER_ND ? take_mostly_zero(&in)
                                        : take_small(&in);
  int64_t bd = op == CLG_OP_GATHER_ELEMENTS ? take_mostly_zero(&in)
                                            : take_small(&in);
  uint8_t mb = take8(&in);
  int mode;
  if (op == CLG_OP_GATHER)
    mode = mb < 240 ? mb % 3 : mb == 255 ? -1 : mb - 237;
  else
    mode = mb < 224 ? 0 : mb < 240 ? mb % 3 : mb == 255 ? -1 : mb - 237;
  if (null_params)
    axis = 0, bd = 0, mode = 0;
  clg_params params = {(clg_op)op, axis, bd, (clg_index_mode)mode};

  /* ---- fix-ups towards valid shapes ---- */
  uint8_t fix = take8(&in);
  int rin = r >= 1 && r <= CLG_MAX_RANK;
  int32_t a_fix = rin && axis >= -(int64_t)r && axis < r
                      ? (int32_t)(axis < 0 ? axis + r : axis)
                      : -1;
  if ((fix & 1) && rin) { /* GatherElements: q = r, dims off the axis fit */
    for (int32_t i = q < 0 ? 0 : q; i < r; ++i)
      xs[i] = ds[i];
    q = r;
    for (int32_t i = 0; i < r; ++i)
      if (i != a_fix && xs[i] > ds[i] && ds[i] >= 0)
        xs[i] = ds[i];
  }
  if ((fix & 2) && rin && q >= 0 && q <= CLG_MAX_RANK) { /* batch dims */
    int32_t nb = (fix >> 4) & 7;
    for (int32_t i = 0; i < nb && i < r && i < q; ++i)
      xs[i] = ds[i];
  }
  if ((fix & 4) && rin && q >= 1 && q <= CLG_MAX_RANK) { /* tuple length */
    int64_t b0 = bd >= 0 && bd < (r < q ? r : q) ? bd : 0;
    if (xs[q - 1] >= 0)
      xs[q - 1] = 1 + xs[q - 1] % (r - b0);
  }

  /* ---- shape rules (those of clg_output_shape) ---- */
  unsigned sm = 0;
  int op_known = op >= 0 && op <= 2;
  if (!op_known)
    sm |= BIT(CLG_ERROR_INVALID_ARGUMENT);
  if (mode < 0 || mode > 2)
    sm |= BIT(CLG_ERROR_INVALID_ARGUMENT);
  if (op != CLG_OP_GATHER && mode != CLG_MODE_RAISE)
    sm |= BIT(CLG_ERROR_INVALID_ARGUMENT);
  if (op == CLG_OP_GATHER_ELEMENTS && bd != 0)
    sm |= BIT(CLG_ERROR_INVALID_ARGUMENT);
  if (op == CLG_OP_GATHER_ND && axis != 0)
    sm |= BIT(CLG_ERROR_INVALID_ARGUMENT);
  if (r < 1 || r > CLG_MAX_RANK || q < 0 || q > CLG_MAX_RANK)
    sm |= BIT(CLG_ERROR_INVALID_RANK);
  int dims_ok = r >= 1 && r <= CLG_MAX_RANK && q >= 0 && q <= CLG_MAX_RANK;
  for (int32_t i = 0; r <= CLG_MAX_RANK && i < r; ++i)
    if (ds[i] < 0)
      sm |= BIT(CLG_ERROR_INVALID_SHAPE), dims_ok = 0;
  for (int32_t i = 0; q <= CLG_MAX_RANK && i < q; ++i)
    if (xs[i] < 0)
      sm |= BIT(CLG_ERROR_INVALID_SHAPE), dims_ok = 0;
  int32_t a = -1, b = -1, erank = -1;
  int64_t eshape[REF_MAX_RANK];
  if (op_known && dims_ok) {
    if (op == CLG_OP_GATHER) {
      if (axis >= -(int64_t)r && axis < r)
        a = (int32_t)(axis < 0 ? axis + r : axis);
      else
        sm |= BIT(CLG_ERROR_INVALID_AXIS);
      if (bd >= -(int64_t)q && bd <= q)
        b = (int32_t)(bd < 0 ? bd + q : bd);
      else
        sm |= BIT(CLG_ERROR_INVALID_BATCH_DIMS);
      if (a >= 0 && b > a)
        sm |= BIT(CLG_ERROR_INVALID_BATCH_DIMS);
      for (int32_t i = 0; b >= 0 && i < b && i < r; ++i)
        if (ds[i] != xs[i])
          sm |= BIT(CLG_ERROR_INCOMPATIBLE_SHAPES);
      if (a >= 0 && b >= 0 && b <= a) {
        erank = r - 1 + q - b;
        int32_t k = 0;
        for (int32_t i = 0; i < a; ++i)
          eshape[k++] = ds[i];
        for (int32_t i = b; i < q; ++i)
          eshape[k++] = xs[i];
        for (int32_t i = a + 1; i < r; ++i)
          eshape[k++] = ds[i];
      }
    } else if (op == CLG_OP_GATHER_ELEMENTS) {
      if (q != r)
        sm |= BIT(CLG_ERROR_INCOMPATIBLE_SHAPES);
      if (axis >= -(int64_t)r && axis < r)
        a = (int32_t)(axis < 0 ? axis + r : axis);
      else
        sm |= BIT(CLG_ERROR_INVALID_AXIS);
      if (q == r && a >= 0) {
        for (int32_t i = 0; i < r; ++i)
          if (i != a && xs[i] > ds[i])
            sm |= BIT(CLG_ERROR_INCOMPATIBLE_SHAPES);
        erank = r;
        memcpy(eshape, xs, sizeof eshape);
      }
    } else {
      if (q < 1) {
        /* No tuple dimension; the batch_dims range [0, -1] is empty. */
        sm |= BIT(CLG_ERROR_INVALID_RANK) | BIT(CLG_ERROR_INVALID_BATCH_DIMS);
      } else if (bd < 0 || bd > (r < q ? r : q) - 1) {
        sm |= BIT(CLG_ERROR_INVALID_BATCH_DIMS);
      } else {
        b = (int32_t)bd;
        int64_t m = xs[q - 1];
        for (int32_t i = 0; i < b; ++i)
          if (ds[i] != xs[i])
            sm |= BIT(CLG_ERROR_INCOMPATIBLE_SHAPES);
        if (m < 1 || m > r - b) {
          sm |= BIT(CLG_ERROR_INCOMPATIBLE_SHAPES);
        } else {
          erank = q - 1 + r - b - (int32_t)m;
          int32_t k = 0;
          for (int32_t i = 0; i < q - 1; ++i)
            eshape[k++] = xs[i];
          for (int32_t i = b + (int32_t)m; i < r; ++i)
            eshape[k++] = ds[i];
        }
      }
    }
    if (erank > CLG_MAX_RANK)
      sm |= BIT(CLG_ERROR_INVALID_RANK);
  }

  /* clg_output_shape against the rules and the reference. */
  const clg_params *pp = null_params ? NULL : &params;
  int32_t lrank = -7;
  int64_t lshape[CLG_MAX_RANK];
  memset(lshape, 0x5a, sizeof lshape);
  clg_status sst = clg_output_shape(pp, r, ds, q, xs, &lrank, lshape);
  if (sm == 0) {
    FZ_CHECK(sst == CLG_SUCCESS, "clg_output_shape failed: %s: %s",
             clg_status_string(sst), clg_last_error());
    FZ_CHECK(lrank == erank, "output rank %d, expected %d", (int)lrank,
             (int)erank);
    for (int32_t i = 0; i < erank; ++i)
      FZ_CHECK(lshape[i] == eshape[i], "output dim %d: %lld, expected %lld",
               (int)i, (long long)lshape[i], (long long)eshape[i]);
    int32_t rrank = -1;
    int64_t rshape[REF_MAX_RANK];
    int rok = op == CLG_OP_GATHER
                  ? ref_gather_ex_shape(r, ds, q, xs, axis, bd, &rrank, rshape)
              : op == CLG_OP_GATHER_ELEMENTS
                  ? ref_gather_elements_shape(r, ds, q, xs, axis, &rrank,
                                              rshape)
                  : ref_gather_nd_shape(r, ds, q, xs, bd, CLG_MAX_RANK, &rrank,
                                        rshape);
    FZ_CHECK(rok == 0 && rrank == erank &&
                 memcmp(rshape, eshape, sizeof(int64_t) * (size_t)erank) == 0,
             "the reference's output shape disagrees (%d, rank %d)", rok,
             (int)rrank);
  } else {
    FZ_CHECK(sst != CLG_SUCCESS && (sm & BIT(sst)),
             "clg_output_shape: got %s (%s); expected one of mask 0x%x",
             clg_status_string(sst), clg_last_error(), sm);
    FZ_CHECK(clg_last_error()[0] != '\0', "no message for %s",
             clg_status_string(sst));
    FZ_CHECK(lrank == -7, "out_rank written on failure");
  }

  /* ---- tensors ---- */
  size_t des = clg_dtype_size(ddt), xes = clg_dtype_size(xdt);
  d.t = clg_tensor_host(ddt, r, ds, NULL);
  x.t = clg_tensor_host(xdt, q, xs, NULL);
  d.esize = des ? des : 1;
  x.esize = xes ? xes : 1;
  d.size = classify(r, ds, d.esize, &d.count);
  x.size = classify(q, xs, x.esize, &x.count);

  int32_t orank = erank;
  int64_t oshape[CLG_MAX_RANK];
  if (sm == 0) {
    memcpy(oshape, eshape, sizeof oshape);
  } else { /* no valid output shape: describe a plausible one anyway */
    orank = rin ? r : 1;
    memcpy(oshape, ds, sizeof oshape);
  }
  o.t = clg_tensor_host(ddt, orank, oshape, NULL);

  uint8_t variant = take8(&in);
  int alias = 0, bad_wait = 0;
  if (variant >= 200) {
    switch (variant % 8) {
    case 0: /* another element type */
      o.t.dtype = fixed_types[(variant / 8) % 15];
      if (o.t.dtype == ddt)
        o.t.dtype = (clg_dtype)(((int)ddt + 1) % 20);
      break;
    case 1: /* one dim off by one, or a rank-0 output that should not be */
      if (o.t.rank > 0) {
        int64_t *dim = &o.t.shape[(variant / 8) % o.t.rank];
        *dim = *dim == INT64_MAX ? *dim - 1 : *dim + 1;
      } else
        o.t.rank = 1, o.t.shape[0] = 1;
      break;
    case 2: /* one more dim of 1 */
      if (o.t.rank < CLG_MAX_RANK)
        o.t.shape[o.t.rank] = 1;
      o.t.rank += 1;
      break;
    case 3: alias = 1 + ((variant / 8) & 1); break; /* data or indices */
    case 4: o.null = 1; break;
    case 5: d.null = 1; break;
    case 6: x.null = 1; break;
    default: bad_wait = 1; break;
    }
  }
  o.esize = d.esize; /* the output is sized with data's element type */
  o.size = classify(o.t.rank, o.t.shape, o.esize, &o.count);
  fz_tensor *all[3] = {&d, &x, &o};
  for (int k = 0; k < 3; ++k) {
    fz_tensor *t = all[k];
    if (t->size == FZ_OK && t->count > FZ_MAX_ELEMS)
      return 0;
    t->bytes = t->size == FZ_OK ? (size_t)t->count * t->esize : 0;
  }

  /* Storage: from 128 up, bits 0..2 of sb put data, indices, output in
   * cl_mem; 0x78 set gives one of them an unknown storage kind. */
  uint8_t sb = take8(&in);
  if (sb >= 128) {
    d.buffer = sb & 1;
    x.buffer = (sb >> 1) & 1;
    o.buffer = (sb >> 2) & 1;
  }
  take_place(&in, &d, 0);
  take_place(&in, &x, 1);
  take_place(&in, &o, 0);
  if (d.size != FZ_OK)
    d.cap = 16;
  if (x.size != FZ_OK)
    x.cap = 16;
  if (o.size != FZ_OK)
    o.cap = 16;
  if (alias) {
    fz_tensor *tgt = alias == 1 ? &d : &x;
    o.alias = tgt;
    o.buffer = tgt->buffer;
    o.off = tgt->off;
    if (tgt->cap < o.off + o.bytes)
      tgt->cap = o.off + o.bytes;
    tgt->shortfall = 0;
  }
  uint8_t eb = take8(&in);
  uint8_t value_mode = take8(&in);

  /* Contents: data a pattern, output another, indices the decoded values. */
  d.mirror = malloc(d.cap ? d.cap : 1);
  x.mirror = calloc(x.cap ? x.cap : 1, 1);
  FZ_CHECK(d.mirror && x.mirror, "malloc");
  for (size_t i = 0; i < d.cap; ++i)
    d.mirror[i] = (unsigned char)(i * 131u + 7u + variant);
  int64_t m_nd = op == CLG_OP_GATHER_ND && b >= 0 && q >= 1 && xs[q - 1] >= 1
                     ? xs[q - 1]
                     : 0;
  if (x.size == FZ_OK && index_ok(xdt)) {
    for (uint64_t i = 0; i < x.count; ++i) {
      int64_t s = 3;
      if (op == CLG_OP_GATHER_ND && m_nd > 0 && b + m_nd <= r)
        s = ds[b + (int64_t)(i % (uint64_t)m_nd)];
      else if (op != CLG_OP_GATHER_ND && a >= 0)
        s = ds[a];
      int64_t span = s > 1000 || s < 0 ? 1000 : s;
      int64_t v;
      if (value_mode & 1)
        v = (int64_t)take64(&in);
      else
        v = (int64_t)(take8(&in) % (uint64_t)(2 * span + 2)) - span - 1;
      if (value_mode & 2)
        v = (int64_t)((uint64_t)v * 3u);
      if (xdt == CLG_DTYPE_INT32) {
        int32_t v32 = (int32_t)v;
        memcpy(x.mirror + x.off + 4 * i, &v32, 4);
      } else {
        memcpy(x.mirror + x.off + 8 * i, &v, 8);
      }
    }
  } else {
    for (size_t i = 0; i < x.cap; ++i)
      x.mirror[i] = take8(&in);
  }
  fz_back(&d);
  fz_back(&x);
  if (alias) {
    fz_tensor *tgt = o.alias;
    o.mirror = tgt->mirror;
    o.host = tgt->host;
    o.mem = tgt->mem;
    o.cap = tgt->cap;
    if (o.buffer) {
      o.t.storage = CLG_STORAGE_BUFFER;
      o.t.buffer = o.null ? NULL : o.mem;
      o.t.offset = o.off;
    } else {
      o.t.host = o.null ? NULL : o.host + o.off;
    }
  } else {
    o.mirror = malloc(o.cap ? o.cap : 1);
    FZ_CHECK(o.mirror != NULL, "malloc");
    for (size_t i = 0; i < o.cap; ++i)
      o.mirror[i] = (unsigned char)(0xc5u ^ (i * 17u));
    fz_back(&o);
  }
  if ((sb & 0x78) == 0x78) { /* an unknown storage kind on one of the three */
    clg_tensor *victim = &all[(sb & 7) % 3]->t;
    victim->storage = (clg_storage)((sb & 0x80) ? 7 : -1);
  }

  /* ---- the oracle: every rule of the header this call breaks ---- */
  unsigned im = sm; /* input rules: what clg_validate checks */
  if (des == 0)
    im |= BIT(CLG_ERROR_UNSUPPORTED_DTYPE);
  if (!index_ok(xdt))
    im |= BIT(CLG_ERROR_INVALID_INDICES_DTYPE);
  im |= tensor_rules(&d, d.cap) | tensor_rules(&x, x.cap);
  if (x.t.storage == CLG_STORAGE_BUFFER && index_ok(xdt) && x.off % xes != 0)
    im |= BIT(CLG_ERROR_INVALID_ARGUMENT);
  if (bad_wait)
    im |= BIT(CLG_ERROR_INVALID_ARGUMENT);
  /* Index values, per operator and mode. */
  ref_index_type rtype = xdt == CLG_DTYPE_INT32 ? REF_INDEX_I32 : REF_INDEX_I64;
  unsigned char *xv = NULL; /* the index values, aligned */
  if (index_ok(xdt) && x.size == FZ_OK) {
    xv = malloc(x.bytes ? x.bytes : 1);
    FZ_CHECK(xv != NULL, "malloc");
    memcpy(xv, x.mirror + x.off, x.bytes);
  }
  if (sm == 0 && xv != NULL && !x.null && x.count > 0) {
    int oob = 0;
    if (op == CLG_OP_GATHER && mode != CLG_MODE_RAISE)
      oob = ds[a] == 0;
    else if (op != CLG_OP_GATHER_ND)
      oob = ref_first_oob(xv, rtype, (int64_t)x.count, ds[a]) >= 0;
    else
      for (uint64_t i = 0; i < x.count && !oob; ++i) {
        int64_t dim = ds[b + (int64_t)(i % (uint64_t)m_nd)];
        int64_t k = ref_index_at(xv, rtype, (int64_t)i);
        oob = k < -dim || k > dim - 1;
      }
    if (oob)
      im |= BIT(CLG_ERROR_INDEX_OUT_OF_BOUNDS);
  }
  unsigned em = im; /* everything clg_run checks */
  if (o.t.dtype != ddt)
    em |= BIT(CLG_ERROR_DTYPE_MISMATCH);
  em |= tensor_rules(&o, o.cap);
  if (sm == 0) {
    int same = o.t.rank == erank;
    for (int32_t i = 0; same && i < erank; ++i)
      same = o.t.shape[i] == eshape[i];
    if (!same)
      em |= BIT(CLG_ERROR_SHAPE_MISMATCH);
  }
  if (alias && o.bytes > 0 && o.alias->bytes > 0 &&
      o.t.storage == o.alias->t.storage &&
      (o.buffer ? o.t.buffer == o.alias->t.buffer && o.t.buffer != NULL
                : o.t.host == o.alias->t.host && o.t.host != NULL))
    em |= BIT(CLG_ERROR_INVALID_ARGUMENT);

  /* ---- the call ---- */
  clg_context *ctx = context();
  cl_event user = NULL;
  cl_uint nev = 0;
  const cl_event *wl = NULL;
  if (bad_wait) {
    if (eb & 2)
      nev = 1; /* a count without a list */
    else
      wl = &user; /* a list without a count */
  }
  cl_event sentinel = (cl_event)(uintptr_t)0x5e17;
  cl_event ev = sentinel;
  int want_event = eb & 1;
  /* Asynchronous checked mode (clg_run_async) for one input in two: its
   * status is the call's, or, when the call succeeded, the outcome's. */
  int async = (eb & 8) != 0;
  clg_outcome *outcome = NULL;
  clg_status st =
      async ? clg_run_async(ctx, pp, &d.t, &x.t, &o.t, NULL, nev, wl,
                            want_event ? &ev : NULL, &outcome)
            : clg_run(ctx, pp, &d.t, &x.t, &o.t, NULL, nev, wl,
                      want_event ? &ev : NULL);
  char run_msg[2048];
  snprintf(run_msg, sizeof run_msg, "%s", clg_last_error());
  if (async && st == CLG_SUCCESS) {
    FZ_CHECK(outcome != NULL, "clg_run_async succeeded without an outcome");
    /* The call's event completes whatever the verdict. */
    if (want_event) {
      FZ_CHECK(ev != sentinel && ev != NULL, "no event after success");
      FZ_CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS, "clWaitForEvents");
      clReleaseEvent(ev);
      ev = sentinel;
    }
    st = clg_outcome_wait(outcome);
    snprintf(run_msg, sizeof run_msg, "%s", clg_last_error());
    clg_outcome_release(outcome);
    /* Only an out-of-bounds index in a cl_mem, gathered into a cl_mem, can
     * be left to the outcome. */
    FZ_CHECK(st == CLG_SUCCESS || (st == CLG_ERROR_INDEX_OUT_OF_BOUNDS &&
                                   x.t.storage == CLG_STORAGE_BUFFER &&
                                   o.t.storage == CLG_STORAGE_BUFFER),
             "clg_outcome_wait returned %s (%s)", clg_status_string(st),
             run_msg);
  } else if (async) {
    FZ_CHECK(outcome == NULL, "an outcome set although %s",
             clg_status_string(st));
  }
  ++fz_calls;
  if (st == CLG_SUCCESS) {
    ++fz_successes;
    if (op_known)
      ++fz_by_op[op];
  }

  if (em == 0) {
    FZ_CHECK(st == CLG_SUCCESS,
             "a valid call failed: %s: %s (op %d, axis %lld, batch_dims %lld, "
             "mode %d)",
             clg_status_string(st), run_msg, op, (long long)axis,
             (long long)bd, mode);
    FZ_CHECK(run_msg[0] == '\0', "message after success: %s", run_msg);
    if (want_event && !async) {
      FZ_CHECK(ev != sentinel && ev != NULL, "no event after success");
      FZ_CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS, "clWaitForEvents");
      clReleaseEvent(ev);
    }
    unsigned char *want = malloc(o.bytes ? o.bytes : 1);
    FZ_CHECK(want != NULL, "malloc");
    const unsigned char *dv = d.mirror + d.off;
    int rr;
    if (op == CLG_OP_GATHER) {
      int32_t rrank;
      int64_t rshape[REF_MAX_RANK];
      rr = ref_gather_ex(dv, des, r, ds, xv, rtype, q, xs, axis, bd,
                         (ref_mode)mode, want, &rrank, rshape);
    } else if (op == CLG_OP_GATHER_ELEMENTS) {
      rr = ref_gather_elements(dv, des, r, ds, xv, rtype, q, xs, axis, want);
    } else {
      rr = ref_gather_nd(dv, des, r, ds, xv, rtype, q, xs, bd, want);
    }
    FZ_CHECK(rr == 0, "the reference rejects a call the oracle accepts");
    unsigned char *now = fz_contents(&o);
    for (size_t i = 0; i < o.cap; ++i) {
      int inside = i >= o.off && i < o.off + o.bytes;
      unsigned char exp = inside ? want[i - o.off] : o.mirror[i];
      FZ_CHECK(now[i] == exp,
               "output memory byte %zu (%s) is 0x%02x, expected 0x%02x (op %d, "
               "dtype %s, data rank %d, indices rank %d, axis %lld, "
               "batch_dims %lld, mode %d, %s output at offset %zu)",
               i, inside ? "inside the output" : "outside the output", now[i],
               exp, op, clg_dtype_name(ddt), (int)r, (int)q, (long long)axis,
               (long long)bd, mode, o.buffer ? "cl_mem" : "host", o.off);
    }
    free(now);
    free(want);
  } else {
    FZ_CHECK(st != CLG_SUCCESS && st <= CLG_ERROR_INCOMPATIBLE_SHAPES &&
                 (em & BIT(st)),
             "got %s (%d: %s); expected one of mask 0x%x", clg_status_string(st),
             (int)st, run_msg, em);
    FZ_CHECK(run_msg[0] != '\0', "%s without a message",
             clg_status_string(st));
    FZ_CHECK(!want_event || ev == sentinel, "event set although %s",
             clg_status_string(st)); /* (async: released above) */
    if (!o.alias) {
      unsigned char *now = fz_contents(&o);
      FZ_CHECK(memcmp(now, o.mirror, o.cap) == 0,
               "the output's memory changed although clg_run failed with %s",
               clg_status_string(st));
      free(now);
    }
  }
  /* Inputs are never written (an aliased output that overlaps made the call
   * fail; one that did not overlap an empty input may have written). */
  for (int k = 0; k < 2; ++k) {
    if (o.alias == all[k] && st == CLG_SUCCESS)
      continue;
    unsigned char *now = fz_contents(all[k]);
    FZ_CHECK(memcmp(now, all[k]->mirror, all[k]->cap) == 0,
             "%s's memory changed (clg_run returned %s)",
             k == 0 ? "data" : "indices", clg_status_string(st));
    free(now);
  }

  /* ---- clg_validate: input rules only, same messages as clg_run ---- */
  {
    int host_inputs = d.t.storage != CLG_STORAGE_BUFFER &&
                      x.t.storage != CLG_STORAGE_BUFFER;
    clg_status vst = clg_validate(host_inputs && (eb & 4) ? NULL : ctx, pp,
                                  &d.t, &x.t, NULL, nev, wl);
    if (im == 0) {
      FZ_CHECK(vst == CLG_SUCCESS, "clg_validate failed: %s: %s",
               clg_status_string(vst), clg_last_error());
      FZ_CHECK(clg_last_error()[0] == '\0', "message after success");
    } else {
      FZ_CHECK(vst != CLG_SUCCESS && (im & BIT(vst)),
               "clg_validate: got %s (%s); expected one of mask 0x%x",
               clg_status_string(vst), clg_last_error(), im);
      FZ_CHECK(clg_last_error()[0] != '\0', "no message for %s",
               clg_status_string(vst));
      if (vst != CLG_ERROR_INDEX_OUT_OF_BOUNDS || st == vst)
        FZ_CHECK(st == vst && strcmp(run_msg, clg_last_error()) == 0,
                 "input error differs: clg_run %s (%s), validate %s (%s)",
                 clg_status_string(st), run_msg, clg_status_string(vst),
                 clg_last_error());
    }
  }

  free(xv);
  fz_free(&o);
  fz_free(&d);
  fz_free(&x);
  return 0;
}
