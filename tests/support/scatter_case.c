#include "support/scatter_case.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

const clg_dtype sc_dtypes[] = {
    CLG_DTYPE_FLOAT,  CLG_DTYPE_DOUBLE,    CLG_DTYPE_FLOAT16,
    CLG_DTYPE_BFLOAT16, CLG_DTYPE_INT8,    CLG_DTYPE_UINT8,
    CLG_DTYPE_INT16,  CLG_DTYPE_UINT16,    CLG_DTYPE_INT32,
    CLG_DTYPE_UINT32, CLG_DTYPE_INT64,     CLG_DTYPE_UINT64,
    CLG_DTYPE_BOOL,   CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128};
const size_t sc_ndtypes = sizeof sc_dtypes / sizeof sc_dtypes[0];

int32_t sc_updates_shape(const sc_case *c, int64_t *us) {
  if (c->op != CLG_OP_SCATTER_ND) {
    for (int32_t d = 0; d < c->q; ++d)
      us[d] = c->is[d];
    return c->q;
  }
  int32_t n = 0, k = (int32_t)c->is[c->q - 1];
  for (int32_t d = 0; d < c->q - 1; ++d)
    us[n++] = c->is[d];
  for (int32_t d = k; d < c->r; ++d)
    us[n++] = c->ds[d];
  return n;
}

/* float bits of small quarter-integers (exact in every float type), or,
 * with `special`, sometimes NaN, +-inf or -0. */
static float sc_value(tu_rng *rng, bool special) {
  if (special) {
    switch (tu_rng_range(rng, 0, 9)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -0.0f;
    default: break;
    }
  }
  return (float)tu_rng_range(rng, -64, 64) / 4.0f;
}

static uint16_t sc_half_bits(float f) { /* exact for sc_value()'s values */
  uint32_t u;
  memcpy(&u, &f, 4);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  if (isnan(f))
    return 0x7E00u;
  if (isinf(f))
    return (uint16_t)(sign | 0x7C00u);
  if (f == 0.0f)
    return sign;
  int e = (int)((u >> 23) & 0xFF) - 127 + 15;
  return (uint16_t)(sign | (uint16_t)(e << 10) | (uint16_t)((u >> 13) & 0x3FF));
}

/* Fills count elements of dtype: value-like data for the reductions. */
static void sc_fill(tu_rng *rng, clg_dtype dt, void *dst, size_t count,
                    bool special) {
  unsigned char *p = dst;
  for (size_t i = 0; i < count; ++i) {
    float f = sc_value(rng, special);
    switch (dt) {
    case CLG_DTYPE_FLOAT: memcpy(p + 4 * i, &f, 4); break;
    case CLG_DTYPE_DOUBLE: {
      double d = f;
      memcpy(p + 8 * i, &d, 8);
    } break;
    case CLG_DTYPE_FLOAT16: {
      uint16_t h = sc_half_bits(f);
      memcpy(p + 2 * i, &h, 2);
    } break;
    case CLG_DTYPE_BFLOAT16: {
      uint32_t u;
      memcpy(&u, &f, 4);
      uint16_t b = (uint16_t)(u >> 16); /* exact for these values */
      memcpy(p + 2 * i, &b, 2);
    } break;
    case CLG_DTYPE_BOOL: p[i] = (unsigned char)tu_rng_range(rng, 0, 1); break;
    case CLG_DTYPE_COMPLEX64: {
      float z[2] = {f, sc_value(rng, false)};
      memcpy(p + 8 * i, z, 8);
    } break;
    case CLG_DTYPE_COMPLEX128: {
      double z[2] = {f, sc_value(rng, false)};
      memcpy(p + 16 * i, z, 16);
    } break;
    default: /* integers: any bits (wrapping is part of the test) */
      tu_rng_bytes(rng, p + clg_dtype_size(dt) * i, clg_dtype_size(dt));
    }
  }
}

/* A random permutation prefix: `n` distinct values of [0, s). */
static void sc_distinct(tu_rng *rng, int64_t *out, int64_t n, int64_t s) {
  int64_t *perm = malloc((size_t)(s ? s : 1) * sizeof *perm);
  cr_assert(perm != NULL);
  for (int64_t i = 0; i < s; ++i)
    perm[i] = i;
  for (int64_t i = 0; i < n; ++i) {
    int64_t j = tu_rng_range(rng, i, s - 1);
    int64_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
    out[i] = perm[i];
  }
  free(perm);
}

/* An in-range index value for v in [0, s): sometimes counted from the
 * back. */
static int64_t sc_signed(tu_rng *rng, int64_t v, int64_t s) {
  return tu_rng_range(rng, 0, 1) ? v - s : v;
}

static void sc_fill_indices(const sc_case *c, tu_rng *rng, void *idx) {
  int64_t n = tu_numel(c->q, c->is);
  if (c->op == CLG_OP_SCATTER_ND) {
    int32_t k = (int32_t)c->is[c->q - 1];
    int64_t tuples = k ? n / k : 0, slices = tu_numel(k, c->ds);
    int64_t *t = malloc((size_t)(tuples ? tuples : 1) * sizeof *t);
    cr_assert(t != NULL);
    if (c->unique)
      sc_distinct(rng, t, tuples, slices);
    else
      for (int64_t e = 0; e < tuples; ++e)
        t[e] = tu_rng_range(rng, 0, slices - 1);
    for (int64_t e = 0; e < tuples; ++e)
      for (int32_t j = k - 1; j >= 0; --j) {
        int64_t v = t[e] % c->ds[j];
        t[e] /= c->ds[j];
        tu_set_index(idx, c->idt, e * k + j, sc_signed(rng, v, c->ds[j]));
      }
    free(t);
    return;
  }
  int32_t a = (int32_t)(c->axis < 0 ? c->axis + c->r : c->axis);
  int64_t s = c->ds[a], len = c->is[a];
  int64_t stride = tu_numel(c->q - a - 1, c->is + a + 1);
  int64_t lines = len ? n / len : 0;
  int64_t *v = malloc((size_t)(len ? len : 1) * sizeof *v);
  cr_assert(v != NULL);
  for (int64_t line = 0; line < lines; ++line) {
    /* the positions of one line along the axis */
    int64_t outer = line / stride, in = line % stride;
    if (c->unique)
      sc_distinct(rng, v, len, s);
    else
      for (int64_t i = 0; i < len; ++i)
        v[i] = tu_rng_range(rng, 0, s - 1);
    for (int64_t i = 0; i < len; ++i)
      tu_set_index(idx, c->idt, (outer * len + i) * stride + in,
                   sc_signed(rng, v[i], s));
  }
  free(v);
}

static ref_reduction sc_ref_red(clg_reduction r) { return (ref_reduction)r; }

void sc_run(const sc_case *c) {
  if (!tu_sampled())
    return;
  tu_rng rng = tu_rng_make(c->seed);
  int64_t us[2 * CLG_MAX_RANK];
  int32_t ur = sc_updates_shape(c, us);
  size_t es = clg_dtype_size(c->dtype);
  size_t dn = (size_t)tu_numel(c->r, c->ds), xn = (size_t)tu_numel(c->q, c->is),
         un = (size_t)tu_numel(ur, us);
  unsigned char *data = malloc(dn * es + 1), *upd = malloc(un * es + 1),
                *idx = malloc(xn * clg_dtype_size(c->idt) + 1),
                *want = malloc(dn * es + 1), *got = malloc(dn * es + 1);
  cr_assert(data && upd && idx && want && got);
  bool arith = c->sp.reduction != CLG_REDUCTION_NONE;
  if (arith) {
    sc_fill(&rng, c->dtype, data, dn, c->special);
    sc_fill(&rng, c->dtype, upd, un, c->special);
  } else {
    tu_rng_bytes(&rng, data, dn * es);
    tu_rng_bytes(&rng, upd, un * es);
  }
  sc_fill_indices(c, &rng, idx);

  memcpy(want, data, dn * es);
  int64_t bad = -1, first = -1;
  int rc = c->op == CLG_OP_SCATTER_ND
               ? ref_scatter_nd(want, c->dtype, c->r, c->ds, idx,
                                tu_ref_index_type(c->idt), c->q, c->is, upd,
                                sc_ref_red(c->sp.reduction),
                                c->sp.duplicates == CLG_DUPLICATES_LAST, &bad,
                                &first)
               : ref_scatter_elements(want, c->dtype, c->r, c->ds, idx,
                                      tu_ref_index_type(c->idt), c->is, upd,
                                      c->axis, sc_ref_red(c->sp.reduction),
                                      c->sp.duplicates == CLG_DUPLICATES_LAST,
                                      &bad, &first);
  cr_assert_eq(rc, REF_OK, "test bug: reference rc %d (seed %llu)", rc,
               (unsigned long long)c->seed);

  tu_storage st = {c->storage, c->offset, false, false};
  tu_tensor td, tx, tu, to;
  tu_tensor_init(&td, c->dtype, c->r, c->ds, st, data);
  tu_tensor_init(&tx, c->idt, c->q, c->is, st, idx);
  tu_tensor_init(&tu, c->dtype, ur, us, st, upd);
  if (!c->in_place)
    tu_tensor_init(&to, c->dtype, c->r, c->ds, st, NULL);
  const tu_tensor *out = c->in_place ? &td : &to;
  clg_params p = {c->op, c->axis, 0, CLG_MODE_RAISE};
  cl_event ev = NULL;
  clg_status s = clg_scatter(tu_ctx(), &p, &c->sp, &td.desc, &tx.desc,
                             &tu.desc, &out->desc, NULL, 0, NULL, &ev);
  char shape[128];
  if (c->sp.reduction != CLG_REDUCTION_NONE && !tu_reduces_exactly(c->dtype)) {
    /* A device that cannot give these bits: refused, nothing written. */
    cr_expect_eq(s, CLG_ERROR_UNSUPPORTED_DTYPE,
                 "reduction %d on %s here: got %s, want a refusal",
                 (int)c->sp.reduction, clg_dtype_name(c->dtype),
                 clg_status_string(s));
    if (ev)
      clReleaseEvent(ev);
    ev = NULL;
    /* The output as it was: data (in place), else its sentinel. */
    if (c->in_place)
      memcpy(want, data, dn * es);
    else
      memset(want, TU_SENTINEL, dn * es);
    s = CLG_SUCCESS;
  }
  cr_assert_eq(s, CLG_SUCCESS,
               "%s dtype %s data %s reduction %d dup %d in_place %d "
               "storage %d seed %llu: %s",
               c->op == CLG_OP_SCATTER_ND ? "ScatterND" : "ScatterElements",
               clg_dtype_name(c->dtype),
               tu_shape_str(c->r, c->ds, shape, sizeof shape),
               (int)c->sp.reduction, (int)c->sp.duplicates, (int)c->in_place,
               (int)c->storage, (unsigned long long)c->seed,
               clg_last_error());
  /* cl_mem tensors only: the call enqueued; its event completes it */
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  tu_tensor_read(out, got);
  ptrdiff_t diff = tu_first_diff(got, want, dn * es);
  cr_expect_eq(diff, -1,
               "%s dtype %s data %s reduction %d dup %d in_place %d storage "
               "%d offset %zu seed %llu: first differing byte %td (element "
               "%td): got %02x, want %02x",
               c->op == CLG_OP_SCATTER_ND ? "ScatterND" : "ScatterElements",
               clg_dtype_name(c->dtype),
               tu_shape_str(c->r, c->ds, shape, sizeof shape),
               (int)c->sp.reduction, (int)c->sp.duplicates, (int)c->in_place,
               (int)c->storage, c->offset, (unsigned long long)c->seed, diff,
               diff < 0 ? (ptrdiff_t)-1 : diff / (ptrdiff_t)es,
               diff < 0 ? 0u : (unsigned)got[diff],
               diff < 0 ? 0u : (unsigned)want[diff]);
  cr_expect(tu_tensor_guards_ok(out), "bytes outside the output written");
  if (!c->in_place) {
    unsigned char *again = malloc(dn * es + 1);
    cr_assert(again);
    tu_tensor_read(&td, again);
    cr_expect_eq(tu_first_diff(again, data, dn * es), -1,
                 "data changed by a scatter that is not in place");
    free(again);
    tu_tensor_free(&to);
  }
  tu_tensor_free(&td);
  tu_tensor_free(&tx);
  tu_tensor_free(&tu);
  free(data);
  free(upd);
  free(idx);
  free(want);
  free(got);
}
