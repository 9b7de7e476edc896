/* The gather family's cases (gather.h): what Gather, GatherElements and
 * GatherND share, and Gather's random cases. */
#define _POSIX_C_SOURCE 200809L
#include "cases/gather.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *op_name(clg_op op) {
  return op == CLG_OP_GATHER_ELEMENTS ? "GatherElements"
         : op == CLG_OP_GATHER_ND     ? "GatherND"
                                      : "Gather";
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
           op_name(c->p.op), dn ? dn : "?",
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
  switch (c->p.op) {
  case CLG_OP_GATHER_ELEMENTS:
    return ref_gather_elements_shape(c->r, c->dshape, c->q, c->ishape,
                                     c->p.axis, orank, oshape);
  case CLG_OP_GATHER_ND:
    return ref_gather_nd_shape(c->r, c->dshape, c->q, c->ishape,
                               c->p.batch_dims, CLG_MAX_RANK, orank, oshape);
  default:
    return ref_gather_ex_shape(c->r, c->dshape, c->q, c->ishape, c->p.axis,
                               c->p.batch_dims, orank, oshape);
  }
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

/* The size of the axis the index at flat position i indexes. */
static int64_t index_bound(const gather_case *c, int64_t i) {
  if (c->p.op == CLG_OP_GATHER_ND) {
    int64_t m = c->ishape[c->q - 1];
    return c->dshape[c->p.batch_dims + i % m];
  }
  return c->dshape[c->p.axis < 0 ? c->p.axis + c->r : c->p.axis];
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
  case_rng rng = case_rng_make(seed);
  case_rng_bytes(&rng, in->data, in->data_bytes);
  if (c->p.op != CLG_OP_GATHER_ND) {
    case_fill_indices(&rng, in->indices, c->idt, n, n ? index_bound(c, 0) : 0,
                      c->mode);
    return 0;
  }
  size_t is = clg_dtype_size(c->idt);
  for (int64_t i = 0; i < n; ++i)
    case_fill_indices(&rng, in->indices + (size_t)i * is, c->idt, 1,
                      index_bound(c, i), c->mode);
  return 0;
}

int gather_expect(const gather_case *c, const gather_inputs *in, void *want) {
  size_t es = clg_dtype_size(c->dtype);
  ref_index_type it = case_ref_index_type(c->idt);
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  switch (c->p.op) {
  case CLG_OP_GATHER_ELEMENTS:
    return ref_gather_elements(in->data, es, c->r, c->dshape, in->indices, it,
                               c->q, c->ishape, c->p.axis, want) == 0
               ? 0
               : -1;
  case CLG_OP_GATHER_ND:
    return ref_gather_nd(in->data, es, c->r, c->dshape, in->indices, it, c->q,
                         c->ishape, c->p.batch_dims, want) == 0
               ? 0
               : -1;
  default:
    return ref_gather_ex(in->data, es, c->r, c->dshape, in->indices, it, c->q,
                         c->ishape, c->p.axis, c->p.batch_dims,
                         (ref_mode)c->p.mode, want, &orank, oshape) == 0
               ? 0
               : -1;
  }
}
