/* The gather family's cases (gather.h): what Gather, GatherElements and
 * GatherND share, and Gather's own: its random cases, its conformance set,
 * its hooks. */
#define _POSIX_C_SOURCE 200809L
#include "cases/gather.h"
#include "cases/operators.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const clg_dtype gather_dtypes_by_size[5][4] = {
    {CLG_DTYPE_INT8, CLG_DTYPE_UINT8, CLG_DTYPE_BOOL, CLG_DTYPE_INT8},
    {CLG_DTYPE_FLOAT16, CLG_DTYPE_BFLOAT16, CLG_DTYPE_INT16, CLG_DTYPE_UINT16},
    {CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, CLG_DTYPE_UINT32, CLG_DTYPE_FLOAT},
    {CLG_DTYPE_DOUBLE, CLG_DTYPE_INT64, CLG_DTYPE_UINT64, CLG_DTYPE_COMPLEX64},
    {CLG_DTYPE_COMPLEX128, CLG_DTYPE_COMPLEX128, CLG_DTYPE_COMPLEX128,
     CLG_DTYPE_COMPLEX128}};

/* The case's operator's hooks, or NULL. */
static const gather_hooks *hooks(const gather_case *c) {
  const case_registered *o = case_operator_of(c->p.op);
  return o != NULL ? o->d->gather : NULL;
}

const char *gather_case_str(const gather_case *c, char *buf, size_t cap) {
  char ds[200], is[200], s0[48], s1[48], s2[48];
  static const char *const modes[] = {"any", "nonneg", "neg", "edges", "wild"};
  static const char *const gmodes[] = {"raise", "wrap", "clip"};
  const char *dn = clg_dtype_name(c->dtype), *in = clg_dtype_name(c->idt);
  snprintf(buf, cap,
           "%s dtype=%s data=%s axis=%" PRId64 " batch_dims=%" PRId64
           " mode=%s indices=%s%s storage(data/indices/output)=%s/%s/%s "
           "idx=%s api=%s%s%s",
           case_operator_name(c->p.op), dn ? dn : "?",
           case_shape_str(c->r, c->dshape, ds, sizeof ds), c->p.axis,
           c->p.batch_dims, (unsigned)c->p.mode < 3 ? gmodes[c->p.mode] : "?",
           in ? in : "?", case_shape_str(c->q, c->ishape, is, sizeof is),
           case_storage_str(c->st[0], s0, sizeof s0),
           case_storage_str(c->st[1], s1, sizeof s1),
           case_storage_str(c->st[2], s2, sizeof s2),
           (unsigned)c->mode < 5 ? modes[c->mode] : "?",
           c->api == GATHER_API_RUN ? "clg_run" : "convenience",
           c->want_event ? " event" : "", c->queue ? " own-queue" : "");
  return buf;
}

int gather_case_shape(const gather_case *c, int32_t *orank, int64_t *oshape) {
  const gather_hooks *h = hooks(c);
  return h != NULL ? h->shape(c, orank, oshape) : -1;
}

gather_case gather_case_random(uint64_t seed, clg_dtype dtype, clg_dtype idt,
                               clg_index_mode mode, int bd) {
  case_rng rng = case_rng_make(seed);
  gather_case c;
  memset(&c, 0, sizeof c);
  c.dtype = dtype;
  c.idt = idt;
  c.r = (int32_t)case_rng_range(&rng, bd ? 2 : 1, 3);
  for (int32_t i = 0; i < c.r; ++i)
    c.dshape[i] = case_rng_range(&rng, 1, i == c.r - 1 ? 9 : 5);
  int32_t a = (int32_t)case_rng_range(&rng, bd, c.r - 1);
  c.q = (int32_t)case_rng_range(&rng, bd, 2);
  for (int32_t i = 0; i < c.q; ++i)
    c.ishape[i] = i < bd ? c.dshape[i] : case_rng_range(&rng, 1, 4);
  c.p = (clg_params){CLG_OP_GATHER, case_rng_range(&rng, 0, 1) ? a - c.r : a,
                     bd, mode};
  c.mode = mode == CLG_MODE_RAISE ? CASE_INDEX_ANY : CASE_INDEX_WILD;
  for (int k = 0; k < 3; ++k)
    c.st[k].kind = CLG_STORAGE_HOST;
  return c;
}

void gather_inputs_free(gather_inputs *in) {
  free(in->data);
  free(in->indices);
  in->data = in->indices = NULL;
}

int gather_inputs_draw(const gather_case *c, uint64_t seed, gather_inputs *in) {
  memset(in, 0, sizeof *in);
  int64_t dn = ref_numel(c->r, c->dshape), n = ref_numel(c->q, c->ishape);
  in->data_bytes = (size_t)dn * clg_dtype_size(c->dtype);
  in->indices_bytes = (size_t)n * clg_dtype_size(c->idt);
  in->data = malloc(in->data_bytes + 1);
  in->indices = malloc(in->indices_bytes + 1);
  if (in->data == NULL || in->indices == NULL) {
    gather_inputs_free(in);
    return -1;
  }
  const gather_hooks *h = hooks(c);
  if (h == NULL) {
    gather_inputs_free(in);
    return -1;
  }
  case_rng rng = case_rng_make(seed);
  case_rng_bytes(&rng, in->data, in->data_bytes);
  size_t is = clg_dtype_size(c->idt);
  for (int64_t i = 0; i < n; ++i)
    case_fill_indices(&rng, in->indices + (size_t)i * is, c->idt, 1,
                      h->index_bound(c, i), c->mode);
  return 0;
}

int64_t gather_index_bound(const gather_case *c, int64_t i) {
  const gather_hooks *h = hooks(c);
  return h != NULL ? h->index_bound(c, i) : 0;
}

int gather_expect(const gather_case *c, const gather_inputs *in, void *want) {
  const gather_hooks *h = hooks(c);
  return h != NULL ? h->expect(c, in, want) : -1;
}

/* ----------------------------------------------------- Gather's own */

static int shape(const gather_case *c, int32_t *orank, int64_t *oshape) {
  return ref_gather_ex_shape(c->r, c->dshape, c->q, c->ishape, c->p.axis,
                             c->p.batch_dims, orank, oshape);
}

static int64_t index_bound(const gather_case *c, int64_t i) {
  (void)i;
  return c->dshape[c->p.axis < 0 ? c->p.axis + c->r : c->p.axis];
}

static int expect(const gather_case *c, const gather_inputs *in, void *want) {
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  return ref_gather_ex(in->data, clg_dtype_size(c->dtype), c->r, c->dshape,
                       in->indices, case_ref_index_type(c->idt), c->q,
                       c->ishape, c->p.axis, c->p.batch_dims,
                       (ref_mode)c->p.mode, want, &orank, oshape) == 0
             ? 0
             : -1;
}

/* Quick: every element size x index type x mode once, batch_dims 0 and 1
 * and the call in turn; full: every call, batch_dims 0 and 1, two seeds. */
static void conformance(bool quick, case_visit visit, void *ctx) {
  static const clg_dtype itypes[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};
  unsigned n = 0;
  for (int sd = 0; sd < (quick ? 1 : 2); ++sd)
    for (int z = 0; z < 5; ++z)
      for (int k = 0; k < 2; ++k)
        for (int mode = 0; mode < 3; ++mode)
          for (int bd = 0; bd < 2; ++bd)
            for (int call = 0; call < 3; ++call, ++n) {
              if (quick && bd * 3 + call != (int)(n / 6 % 6))
                continue;
              case_item it = {.family = CASE_FAMILY_GATHER,
                              .seed = 0x6a7e000u + n,
                              .call = (case_call)call};
              it.c.gather = gather_case_random(
                  it.seed, gather_dtypes_by_size[z][(n / 7) % 4], itypes[k],
                  (clg_index_mode)mode, bd);
              visit(ctx, &it);
            }
}

static const gather_hooks gather_own = {shape, index_bound, expect};
const case_operator case_gather = {CASE_FAMILY_GATHER, conformance, &gather_own,
                                   NULL};
