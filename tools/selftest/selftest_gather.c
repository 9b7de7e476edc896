/*
 * clgather selftest: generated cases of the gathers (Gather with
 * batch_dims and the index modes, GatherElements, GatherND with
 * batch_dims), every element size, int32 and int64 indices, host, cl_mem
 * and asynchronously checked operands, each against the plain-C reference
 * (tools/reference/reference.h) byte for byte.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/reference.h"
#include "selftest.h"

/* One element type per element size (1, 2, 4, 8, 16 bytes), and the other
 * types of each size in turn: a gather moves bytes. */
static const clg_dtype by_size[5][4] = {
    {CLG_DTYPE_INT8, CLG_DTYPE_UINT8, CLG_DTYPE_BOOL, CLG_DTYPE_INT8},
    {CLG_DTYPE_FLOAT16, CLG_DTYPE_BFLOAT16, CLG_DTYPE_INT16, CLG_DTYPE_UINT16},
    {CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, CLG_DTYPE_UINT32, CLG_DTYPE_FLOAT},
    {CLG_DTYPE_DOUBLE, CLG_DTYPE_INT64, CLG_DTYPE_UINT64, CLG_DTYPE_COMPLEX64},
    {CLG_DTYPE_COMPLEX128, CLG_DTYPE_COMPLEX128, CLG_DTYPE_COMPLEX128,
     CLG_DTYPE_COMPLEX128}};

/* Room for any case's tensors (elements are at most 16 bytes). */
#define CAP (1u << 16)

typedef struct gbuf {
  unsigned char data[CAP], idx[CAP], want[CAP], got[CAP], init[CAP];
} gbuf;

static int64_t dim(uint64_t *s, int64_t lo, int64_t hi) {
  return st_range(s, lo, hi);
}

/* Runs c (its data and indices already filled) against want (wbytes), and
 * records the case. want_status is CLG_SUCCESS here. */
static void run_case(st_run *r, st_call *c, gbuf *b, size_t wbytes,
                     int ref_rc, int32_t ref_rank, const int64_t *ref_shape) {
  char desc[400], why[512], diff[160];
  st_describe(c, desc, sizeof desc);
  if (ref_rc != 0) {
    st_record(r, false, "%s: the case generator made an invalid case "
              "(reference refused it)", desc);
    return;
  }
  int32_t orank = -1;
  int64_t oshape[CLG_MAX_RANK];
  clg_status st = clg_output_shape(&c->params, c->dr, c->dshape, c->ir,
                                   c->ishape, &orank, oshape);
  bool same = st == CLG_SUCCESS && orank == ref_rank;
  for (int32_t i = 0; same && i < orank; ++i)
    same = oshape[i] == ref_shape[i];
  if (!same) {
    st_record(r, false, "%s: clg_output_shape gives %s (rank %d), not the "
              "reference's shape", desc, clg_status_string(st), (int)orank);
    return;
  }
  c->orank = ref_rank;
  memcpy(c->oshape, ref_shape, sizeof(int64_t) * (size_t)ref_rank);
  memset(b->init, 0xA5, wbytes); /* a sentinel: a kernel not run shows */
  int rc = st_exec(r, c, b->init, wbytes, b->got, &st, why, sizeof why);
  if (rc < 0) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
    st_record(r, false, "%s: %s", desc, why);
  } else if (rc > 0)
    st_record(r, false, "%s: %s", desc, why);
  else if (st != CLG_SUCCESS) {
    if (st == CLG_ERROR_OPENCL || st == CLG_ERROR_BUILD_FAILED ||
        st == CLG_ERROR_OUT_OF_HOST_MEMORY) {
      r->device_error = true;
      snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
    }
    st_record(r, false, "%s: returned %s, expected CLG_SUCCESS: %s", desc,
              clg_status_string(st), why);
  } else if (st_first_diff(b->got, b->want, wbytes, clg_dtype_size(c->dtype),
                           diff, sizeof diff))
    st_record(r, false, "%s: %s", desc, diff);
  else
    st_record(r, true, "%s", desc);
}

static ref_index_type rtype(clg_dtype t) {
  return t == CLG_DTYPE_INT32 ? REF_INDEX_I32 : REF_INDEX_I64;
}

/* Gather: data rank 1-3 (rank >= 2 with batch_dims 1), random axis (also
 * negative), indices rank 0-2, values in range (raise) or up to 3 times
 * out of it (wrap, clip). */
static void gather_case(st_run *r, gbuf *b, uint64_t seed, clg_dtype dt,
                        clg_dtype it, clg_index_mode mode, int bd,
                        st_storage sto) {
  uint64_t s = seed;
  st_call c;
  memset(&c, 0, sizeof c);
  c.dtype = dt;
  c.itype = it;
  c.storage = sto;
  c.dr = (int32_t)dim(&s, bd ? 2 : 1, 3);
  for (int32_t i = 0; i < c.dr; ++i)
    c.dshape[i] = dim(&s, 1, i == c.dr - 1 ? 9 : 5);
  int32_t a = (int32_t)dim(&s, bd, c.dr - 1);
  c.ir = (int32_t)dim(&s, bd, 2);
  for (int32_t i = 0; i < c.ir; ++i)
    c.ishape[i] = i < bd ? c.dshape[i] : dim(&s, 1, 4);
  c.params = (clg_params){CLG_OP_GATHER, (st_rand(&s) & 1) ? a - c.dr : a, bd,
                          mode};
  size_t nd = st_nbytes(dt, c.dr, c.dshape) / clg_dtype_size(dt);
  size_t ni = st_nbytes(it, c.ir, c.ishape) / clg_dtype_size(it);
  st_fill(&s, dt, b->data, nd);
  int64_t sz = c.dshape[a];
  for (size_t i = 0; i < ni; ++i)
    st_set_index(b->idx, it, i,
                 mode == CLG_MODE_RAISE ? dim(&s, -sz, sz - 1)
                                        : dim(&s, -3 * sz, 3 * sz));
  c.data = b->data;
  c.indices = b->idx;
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  int rc = ref_gather_ex(b->data, clg_dtype_size(dt), c.dr, c.dshape, b->idx,
                         rtype(it), c.ir, c.ishape, c.params.axis, bd,
                         (ref_mode)mode, b->want, &orank, oshape);
  run_case(r, &c, b, st_nbytes(dt, orank, oshape), rc, orank, oshape);
}

/* GatherElements: q == r, indices.shape[d] <= data.shape[d] off the axis. */
static void elements_case(st_run *r, gbuf *b, uint64_t seed, clg_dtype dt,
                          clg_dtype it, st_storage sto) {
  uint64_t s = seed;
  st_call c;
  memset(&c, 0, sizeof c);
  c.dtype = dt;
  c.itype = it;
  c.storage = sto;
  c.dr = c.ir = (int32_t)dim(&s, 1, 3);
  int32_t a = (int32_t)dim(&s, 0, c.dr - 1);
  for (int32_t i = 0; i < c.dr; ++i) {
    c.dshape[i] = dim(&s, 1, i == c.dr - 1 ? 9 : 5);
    c.ishape[i] = i == a ? dim(&s, 1, 6) : dim(&s, 1, c.dshape[i]);
  }
  c.params = (clg_params){CLG_OP_GATHER_ELEMENTS, a, 0, CLG_MODE_RAISE};
  size_t nd = st_nbytes(dt, c.dr, c.dshape) / clg_dtype_size(dt);
  size_t ni = st_nbytes(it, c.ir, c.ishape) / clg_dtype_size(it);
  st_fill(&s, dt, b->data, nd);
  for (size_t i = 0; i < ni; ++i)
    st_set_index(b->idx, it, i, dim(&s, -c.dshape[a], c.dshape[a] - 1));
  c.data = b->data;
  c.indices = b->idx;
  int rc = ref_gather_elements(b->data, clg_dtype_size(dt), c.dr, c.dshape,
                               b->idx, rtype(it), c.ir, c.ishape, a, b->want);
  run_case(r, &c, b, st_nbytes(dt, c.ir, c.ishape), rc, c.ir, c.ishape);
}

/* GatherND: batch_dims 0 or 1, tuples of m in [1, r - b] components. */
static void nd_case(st_run *r, gbuf *b, uint64_t seed, clg_dtype dt,
                    clg_dtype it, int bd, st_storage sto) {
  uint64_t s = seed;
  st_call c;
  memset(&c, 0, sizeof c);
  c.dtype = dt;
  c.itype = it;
  c.storage = sto;
  c.dr = (int32_t)dim(&s, bd + 1, 3);
  for (int32_t i = 0; i < c.dr; ++i)
    c.dshape[i] = dim(&s, 1, i == c.dr - 1 ? 9 : 5);
  int64_t m = dim(&s, 1, c.dr - bd);
  c.ir = (int32_t)dim(&s, bd + 1, bd + 2);
  for (int32_t i = 0; i < c.ir - 1; ++i)
    c.ishape[i] = i < bd ? c.dshape[i] : dim(&s, 1, 4);
  c.ishape[c.ir - 1] = m;
  c.params = (clg_params){CLG_OP_GATHER_ND, 0, bd, CLG_MODE_RAISE};
  size_t nd = st_nbytes(dt, c.dr, c.dshape) / clg_dtype_size(dt);
  size_t ni = st_nbytes(it, c.ir, c.ishape) / clg_dtype_size(it);
  st_fill(&s, dt, b->data, nd);
  for (size_t i = 0; i < ni; ++i) {
    int64_t d = c.dshape[bd + (int64_t)(i % (size_t)m)];
    st_set_index(b->idx, it, i, dim(&s, -d, d - 1));
  }
  c.data = b->data;
  c.indices = b->idx;
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  int rc = ref_gather_nd_shape(c.dr, c.dshape, c.ir, c.ishape, bd,
                               REF_MAX_RANK, &orank, oshape);
  if (rc == 0)
    rc = ref_gather_nd(b->data, clg_dtype_size(dt), c.dr, c.dshape, b->idx,
                       rtype(it), c.ir, c.ishape, bd, b->want);
  run_case(r, &c, b, st_nbytes(dt, orank, oshape), rc, orank, oshape);
}

void st_gather_cases(st_run *r) {
  gbuf *b = malloc(sizeof *b);
  if (b == NULL) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
    return;
  }
  static const clg_dtype itypes[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};
  /* Quick: every element size x index type x mode (x batch_dims for
   * GatherND) once, the storage in turn; full: every storage, batch_dims
   * 0 and 1 for Gather, and two seeds. */
  int seeds = r->quick ? 1 : 2;
  unsigned n = 0;
  r->row = ST_ROW_GATHER;
  for (int sd = 0; sd < seeds; ++sd)
    for (int z = 0; z < 5; ++z)
      for (int k = 0; k < 2; ++k)
        for (int mode = 0; mode < 3; ++mode)
          for (int bd = 0; bd < 2; ++bd)
            for (int sto = 0; sto < 3; ++sto, ++n) {
              if (r->quick && bd * 3 + sto != (int)(n / 6 % 6))
                continue;
              gather_case(r, b, 0x6a7e000u + n, by_size[z][(n / 7) % 4],
                          itypes[k], (clg_index_mode)mode, bd,
                          (st_storage)sto);
            }
  r->row = ST_ROW_GATHER_ELEMENTS;
  n = 0;
  for (int sd = 0; sd < seeds * 2; ++sd)
    for (int z = 0; z < 5; ++z)
      for (int k = 0; k < 2; ++k)
        for (int sto = 0; sto < 3; ++sto, ++n) {
          if (r->quick && sto != (int)(n / 3 % 3))
            continue;
          elements_case(r, b, 0xe1e000u + n, by_size[z][(n / 5) % 4],
                        itypes[k], (st_storage)sto);
        }
  r->row = ST_ROW_GATHER_ND;
  n = 0;
  for (int sd = 0; sd < seeds; ++sd)
    for (int z = 0; z < 5; ++z)
      for (int k = 0; k < 2; ++k)
        for (int bd = 0; bd < 2; ++bd)
          for (int sto = 0; sto < 3; ++sto, ++n) {
            if (r->quick && sto != (int)(n / 3 % 3))
              continue;
            nd_case(r, b, 0x9d000u + n, by_size[z][(n / 5) % 4], itypes[k],
                    bd, (st_storage)sto);
          }
  free(b);
}
