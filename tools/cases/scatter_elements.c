/* The scatter family's cases (scatter.h): what ScatterElements, ScatterND
 * and Scatter share, and the elements' own (ScatterElements' and
 * Scatter's): random cases, conformance sets, hooks. */
#define _POSIX_C_SOURCE 200809L
#include "cases/operators.h"
#include "cases/scatter.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const clg_dtype scatter_dtypes[] = {
    CLG_DTYPE_FLOAT,    CLG_DTYPE_DOUBLE,    CLG_DTYPE_FLOAT16,
    CLG_DTYPE_BFLOAT16, CLG_DTYPE_INT8,      CLG_DTYPE_UINT8,
    CLG_DTYPE_INT16,    CLG_DTYPE_UINT16,    CLG_DTYPE_INT32,
    CLG_DTYPE_UINT32,   CLG_DTYPE_INT64,     CLG_DTYPE_UINT64,
    CLG_DTYPE_BOOL,     CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128};
const size_t scatter_ndtypes = sizeof scatter_dtypes / sizeof scatter_dtypes[0];

/* The case's operator's hooks, or NULL. */
static const scatter_hooks *hooks(const scatter_case *c) {
  const case_registered *o = case_operator_of(c->op);
  return o != NULL ? o->d->scatter : NULL;
}

int32_t scatter_updates_shape(const scatter_case *c, int64_t *us) {
  const scatter_hooks *h = hooks(c);
  return h != NULL ? h->updates_shape(c, us) : 0;
}

const char *scatter_case_str(const scatter_case *c, char *buf, size_t cap) {
  static const char *const targets[3] = {"any", "distinct", "repeated"};
  char ds[200], is[200];
  const char *dn = clg_dtype_name(c->dtype), *in = clg_dtype_name(c->idt);
  snprintf(buf, cap,
           "%s dtype=%s data=%s axis=%" PRId64 " indices=%s%s reduction=%d "
           "duplicates=%d targets=%s%s storage=%s+%zu%s seed=%" PRIu64,
           case_operator_name(c->op), dn ? dn : "?",
           case_shape_str(c->r, c->ds, ds, sizeof ds), c->axis, in ? in : "?",
           case_shape_str(c->q, c->is, is, sizeof is), (int)c->sp.reduction,
           (int)c->sp.duplicates,
           (unsigned)c->targets < 3 ? targets[c->targets] : "?",
           c->special ? " special-values" : "",
           c->storage == CLG_STORAGE_BUFFER ? "buffer" : "host", c->offset,
           c->in_place ? " in-place" : "", c->seed);
  return buf;
}

scatter_case scatter_elements_case_random(uint64_t seed, clg_op op,
                                          clg_dtype dtype, clg_dtype idt,
                                          clg_scatter_params sp,
                                          scatter_targets targets) {
  case_rng rng = case_rng_make(seed);
  scatter_case c;
  memset(&c, 0, sizeof c);
  c.op = op;
  c.sp = sp;
  c.dtype = dtype;
  c.idt = case_rng_range(&rng, 0, 1) ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
  if (idt != CLG_DTYPE_UNDEFINED)
    c.idt = idt;
  c.r = c.q = (int32_t)case_rng_range(&rng, 1, 4);
  int32_t a = (int32_t)case_rng_range(&rng, 0, c.r - 1);
  c.axis = case_rng_range(&rng, 0, 1) ? a - c.r : a;
  for (int32_t d = 0; d < c.r; ++d) {
    c.ds[d] = case_rng_range(&rng, 1, 5);
    /* off the axis indices may be shorter; along it, longer (repeats)
     * unless the targets must be distinct, 3 or more when they must
     * repeat */
    c.is[d] =
        d != a                                ? case_rng_range(&rng, 1, c.ds[d])
        : targets == SCATTER_TARGETS_DISTINCT ? case_rng_range(&rng, 1, c.ds[d])
        : targets == SCATTER_TARGETS_REPEATED ? case_rng_range(&rng, 3, 7)
                                              : case_rng_range(&rng, 1, 7);
  }
  c.storage =
      case_rng_range(&rng, 0, 1) ? CLG_STORAGE_BUFFER : CLG_STORAGE_HOST;
  c.offset = c.storage == CLG_STORAGE_BUFFER
                 ? 16 * (size_t)case_rng_range(&rng, 0, 2)
                 : 0;
  c.in_place = case_rng_range(&rng, 0, 1) != 0;
  c.targets = targets;
  c.special = case_rng_range(&rng, 0, 3) == 0;
  c.seed = seed * 7919u + 1u;
  return c;
}

clg_status scatter_case_status(const scatter_case *c, const case_device *dev) {
  if (c->sp.reduction == CLG_REDUCTION_NONE)
    return CLG_SUCCESS;
  clg_dtype t = c->dtype;
  if (t == CLG_DTYPE_DOUBLE || t == CLG_DTYPE_COMPLEX128)
    return dev->fp64 && dev->double_denorm ? CLG_SUCCESS
                                           : CLG_ERROR_UNSUPPORTED_DTYPE;
  if (t == CLG_DTYPE_FLOAT || t == CLG_DTYPE_BFLOAT16 ||
      t == CLG_DTYPE_COMPLEX64)
    return dev->single_denorm ? CLG_SUCCESS : CLG_ERROR_UNSUPPORTED_DTYPE;
  return CLG_SUCCESS;
}

/* ------------------------------------------------------------ inputs */

/* float bits of small quarter-integers (exact in every float type), or,
 * with `special`, sometimes NaN, +-inf or -0. */
static float value(case_rng *rng, bool special) {
  if (special) {
    switch (case_rng_range(rng, 0, 9)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -0.0f;
    default: break;
    }
  }
  return (float)case_rng_range(rng, -64, 64) / 4.0f;
}

static uint16_t half_bits(float f) { /* exact for value()'s values */
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
static void fill(case_rng *rng, clg_dtype dt, void *dst, size_t count,
                 bool special) {
  unsigned char *p = dst;
  for (size_t i = 0; i < count; ++i) {
    float f = value(rng, special);
    switch (dt) {
    case CLG_DTYPE_FLOAT: memcpy(p + 4 * i, &f, 4); break;
    case CLG_DTYPE_DOUBLE: {
      double d = f;
      memcpy(p + 8 * i, &d, 8);
    } break;
    case CLG_DTYPE_FLOAT16: {
      uint16_t h = half_bits(f);
      memcpy(p + 2 * i, &h, 2);
    } break;
    case CLG_DTYPE_BFLOAT16: {
      uint32_t u;
      memcpy(&u, &f, 4);
      uint16_t b = (uint16_t)(u >> 16); /* exact for these values */
      memcpy(p + 2 * i, &b, 2);
    } break;
    case CLG_DTYPE_BOOL: p[i] = (unsigned char)case_rng_range(rng, 0, 1); break;
    case CLG_DTYPE_COMPLEX64: {
      float z[2] = {f, value(rng, false)};
      memcpy(p + 8 * i, z, 8);
    } break;
    case CLG_DTYPE_COMPLEX128: {
      double z[2] = {f, value(rng, false)};
      memcpy(p + 16 * i, z, 16);
    } break;
    default: /* integers: any bits (wrapping is part of the test) */
      case_rng_bytes(rng, p + clg_dtype_size(dt) * i, clg_dtype_size(dt));
    }
  }
}

/* A random permutation prefix: `n` distinct values of [0, s) (n <= s). */
static int distinct(case_rng *rng, int64_t *out, int64_t n, int64_t s) {
  int64_t *perm = malloc((size_t)(s ? s : 1) * sizeof *perm);
  if (perm == NULL)
    return -1;
  for (int64_t i = 0; i < s; ++i)
    perm[i] = i;
  for (int64_t i = 0; i < n; ++i) {
    int64_t j = case_rng_range(rng, i, s - 1);
    int64_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
    out[i] = perm[i];
  }
  free(perm);
  return 0;
}

int scatter_targets_draw(const scatter_case *c, case_rng *rng, int64_t *out,
                         int64_t n, int64_t s) {
  if (c->targets == SCATTER_TARGETS_DISTINCT)
    return distinct(rng, out, n, s);
  for (int64_t i = 0; i < n; ++i)
    out[i] = case_rng_range(
        rng, 0,
        c->targets == SCATTER_TARGETS_REPEATED ? (s < 2 ? 0 : 1) : s - 1);
  return 0;
}

int64_t scatter_signed_index(case_rng *rng, int64_t v, int64_t s) {
  return case_rng_range(rng, 0, 1) ? v - s : v;
}

/* Each line along the axis: its targets drawn as c->targets says. */
static int fill_indices(const scatter_case *c, case_rng *rng, void *idx) {
  int64_t n = ref_numel(c->q, c->is);
  int32_t a = (int32_t)(c->axis < 0 ? c->axis + c->r : c->axis);
  int64_t s = c->ds[a], len = c->is[a];
  int64_t stride = ref_numel(c->q - a - 1, c->is + a + 1);
  int64_t lines = len ? n / len : 0;
  int64_t *v = malloc((size_t)(len ? len : 1) * sizeof *v);
  if (v == NULL)
    return -1;
  for (int64_t line = 0; line < lines; ++line) {
    /* the positions of one line along the axis */
    int64_t outer = line / stride, in = line % stride;
    if (scatter_targets_draw(c, rng, v, len, s) != 0) {
      free(v);
      return -1;
    }
    for (int64_t i = 0; i < len; ++i)
      case_set_index(idx, c->idt, (outer * len + i) * stride + in,
                     scatter_signed_index(rng, v[i], s));
  }
  free(v);
  return 0;
}

void scatter_inputs_free(scatter_inputs *in) {
  free(in->data);
  free(in->indices);
  free(in->updates);
  in->data = in->indices = in->updates = NULL;
}

int scatter_inputs_draw(const scatter_case *c, scatter_inputs *in) {
  memset(in, 0, sizeof *in);
  if (hooks(c) == NULL)
    return -1;
  case_rng rng = case_rng_make(c->seed);
  in->ur = scatter_updates_shape(c, in->us);
  size_t es = clg_dtype_size(c->dtype);
  size_t dn = (size_t)ref_numel(c->r, c->ds),
         xn = (size_t)ref_numel(c->q, c->is),
         un = (size_t)ref_numel(in->ur, in->us);
  in->data_bytes = dn * es;
  in->indices_bytes = xn * clg_dtype_size(c->idt);
  in->updates_bytes = un * es;
  in->data = malloc(in->data_bytes + 1);
  in->indices = malloc(in->indices_bytes + 1);
  in->updates = malloc(in->updates_bytes + 1);
  if (!in->data || !in->indices || !in->updates)
    goto fail;
  if (c->sp.reduction != CLG_REDUCTION_NONE) {
    fill(&rng, c->dtype, in->data, dn, c->special);
    fill(&rng, c->dtype, in->updates, un, c->special);
  } else {
    case_rng_bytes(&rng, in->data, in->data_bytes);
    case_rng_bytes(&rng, in->updates, in->updates_bytes);
  }
  const scatter_hooks *h = hooks(c);
  if (h == NULL || h->fill_indices(c, &rng, in->indices) != 0)
    goto fail;
  return 0;
fail:
  scatter_inputs_free(in);
  return -1;
}

int scatter_expect(const scatter_case *c, const scatter_inputs *in,
                   void *want) {
  memcpy(want, in->data, in->data_bytes);
  const scatter_hooks *h = hooks(c);
  return h != NULL ? h->expect(c, in, want) : REF_UNSUPPORTED;
}

/* ------------------------------------------------- the conformance sets */

/* Element types per reduction: none by element size (1, 2, 4, 8, 16
 * bytes); the arithmetic ones over integers, floats, bool and complex. */
static const clg_dtype none_types[] = {
    CLG_DTYPE_INT8,     CLG_DTYPE_FLOAT16,    CLG_DTYPE_FLOAT,
    CLG_DTYPE_DOUBLE,   CLG_DTYPE_COMPLEX128, CLG_DTYPE_BOOL,
    CLG_DTYPE_BFLOAT16, CLG_DTYPE_UINT32,     CLG_DTYPE_INT64,
    CLG_DTYPE_COMPLEX64};
static const clg_dtype addmul_types[] = {
    CLG_DTYPE_FLOAT,     CLG_DTYPE_INT32,  CLG_DTYPE_FLOAT16,
    CLG_DTYPE_COMPLEX64, CLG_DTYPE_DOUBLE, CLG_DTYPE_BFLOAT16,
    CLG_DTYPE_INT8,      CLG_DTYPE_UINT8,  CLG_DTYPE_INT16,
    CLG_DTYPE_INT64,     CLG_DTYPE_UINT64, CLG_DTYPE_BOOL,
    CLG_DTYPE_COMPLEX128};
static const clg_dtype minmax_types[] = {
    CLG_DTYPE_FLOAT,  CLG_DTYPE_INT64,   CLG_DTYPE_BFLOAT16, CLG_DTYPE_UINT8,
    CLG_DTYPE_DOUBLE, CLG_DTYPE_FLOAT16, CLG_DTYPE_INT8,     CLG_DTYPE_UINT16,
    CLG_DTYPE_INT32,  CLG_DTYPE_UINT32,  CLG_DTYPE_BOOL};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* What the indices hold under reduction none. */
enum { DISTINCT = 0, REPEAT_ERROR, REPEAT_LAST };

void scatter_conformance(clg_op op, int reductions, bool quick,
                         case_visit visit, void *ctx) {
  static const char *const labels[3] = {"distinct targets", "repeated targets",
                                        "repeated targets"};
  const case_registered *o = case_operator_of(op);
  if (o == NULL || o->d->scatter == NULL)
    return;
  unsigned n = 0;
  for (int red = 0; red < reductions && red < 5; ++red) {
    const clg_dtype *types = red == 0   ? none_types
                             : red <= 2 ? addmul_types
                                        : minmax_types;
    size_t nt = red == 0   ? COUNT(none_types)
                : red <= 2 ? COUNT(addmul_types)
                           : COUNT(minmax_types);
    if (quick)
      nt = red == 0 ? 5 : 4;
    for (size_t t = 0; t < nt; ++t)
      for (int dup = 0; dup < (red == 0 ? 3 : 1); ++dup)
        for (int call = 0; call < CASE_NCALLS; ++call, ++n) {
          if (quick && call != (int)(n / CASE_NCALLS % CASE_NCALLS))
            continue;
          clg_dtype it = (n / 3) % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
          uint64_t seed = 0x5ca7000u + (uint64_t)op * 100000u + n;
          clg_scatter_params sp = {(clg_reduction)red,
                                   dup == REPEAT_LAST ? CLG_DUPLICATES_LAST
                                                      : CLG_DUPLICATES_ERROR};
          /* distinct targets, or repeats (every reduction but none's
           * distinct cases) */
          scatter_targets tg = red == 0 && dup == DISTINCT
                                   ? SCATTER_TARGETS_DISTINCT
                                   : SCATTER_TARGETS_REPEATED;
          case_item item = {.family = CASE_FAMILY_SCATTER,
                            .call = (case_call)call,
                            .label =
                                red == 0 ? labels[dup] : "repeated targets"};
          item.c.scatter =
              o->d->scatter->random(seed, op, types[t], it, sp, tg);
          item.seed = item.c.scatter.seed;
          visit(ctx, &item);
        }
  }
}

/* ------------------------------ ScatterElements' and Scatter's own */

static int32_t updates_shape(const scatter_case *c, int64_t *us) {
  for (int32_t d = 0; d < c->q; ++d)
    us[d] = c->is[d];
  return c->q;
}

static int expect(const scatter_case *c, const scatter_inputs *in, void *want) {
  int64_t bad = -1, first = -1;
  return ref_scatter_elements(
      want, c->dtype, c->r, c->ds, in->indices, case_ref_index_type(c->idt),
      c->is, in->updates, c->axis, (ref_reduction)c->sp.reduction,
      c->sp.duplicates == CLG_DUPLICATES_LAST, &bad, &first);
}

static void elements_conformance(bool quick, case_visit visit, void *ctx) {
  scatter_conformance(CLG_OP_SCATTER_ELEMENTS, 5, quick, visit, ctx);
}

/* ONNX Scatter (opset 9) has no reduction. */
static void scatter9_conformance(bool quick, case_visit visit, void *ctx) {
  scatter_conformance(CLG_OP_SCATTER, 1, quick, visit, ctx);
}

static const scatter_hooks own = {updates_shape, fill_indices, expect,
                                  scatter_elements_case_random};
const case_operator case_scatter_elements = {CASE_FAMILY_SCATTER,
                                             elements_conformance, NULL, &own};
const case_operator case_scatter = {CASE_FAMILY_SCATTER, scatter9_conformance,
                                    NULL, &own};
