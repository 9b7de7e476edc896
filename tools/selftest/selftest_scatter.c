/*
 * clgather selftest: generated cases of the scatters (ScatterElements,
 * ScatterND, ONNX Scatter 9): every reduction (none, add, mul, min, max)
 * over several element types, the duplicates rule under reduction none
 * (distinct targets; repeats refused by default; the last one wins on
 * request), int32 and int64 indices, host, cl_mem, asynchronously checked
 * and in-place operands, each against the plain-C sequential references
 * (tools/reference/ref_scatter.h) byte for byte.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_scatter.h"
#include "selftest.h"

#define CAP (1u << 16)

typedef struct sbuf {
  unsigned char data[CAP], idx[CAP], upd[CAP], want[CAP], got[CAP],
      init[CAP];
} sbuf;

/* What the indices hold under reduction none. */
typedef enum dup_kind { D_DISTINCT = 0, D_REPEAT_ERROR, D_REPEAT_LAST } dup_kind;
static const char *const dup_names[3] = {"distinct targets",
                                         "repeated targets",
                                         "repeated targets"};

static bool needs_fp64(clg_dtype t) {
  return t == CLG_DTYPE_DOUBLE || t == CLG_DTYPE_COMPLEX128;
}

/* The reductions the library refuses on this device (clg_reduction): in
 * double without cl_khr_fp64, and wherever the device flushes the type's
 * subnormals (float16 runs everywhere). */
static bool refused_here(const st_run *r, clg_dtype t, clg_reduction red) {
  if (red == CLG_REDUCTION_NONE)
    return false;
  if (needs_fp64(t))
    return !r->fp64 || !r->double_denorm;
  if (t == CLG_DTYPE_FLOAT || t == CLG_DTYPE_BFLOAT16 ||
      t == CLG_DTYPE_COMPLEX64)
    return !r->single_denorm;
  return false;
}

/* Runs c against the reference's verdict (ref_rc) and result (want). */
static void run_case(st_run *r, st_call *c, sbuf *b, int ref_rc,
                     const char *what) {
  char desc[480], why[512], diff[160];
  st_describe(c, desc, sizeof desc);
  size_t ob = st_nbytes(c->dtype, c->dr, c->dshape);
  c->orank = c->dr;
  memcpy(c->oshape, c->dshape, sizeof c->dshape);
  clg_status want_st = CLG_SUCCESS;
  if (ref_rc == REF_DUPLICATE)
    want_st = CLG_ERROR_DUPLICATE_INDEX;
  else if (ref_rc == REF_UNSUPPORTED)
    want_st = CLG_ERROR_UNSUPPORTED_DTYPE;
  else if (ref_rc != REF_OK) {
    st_record(r, false, "%s (%s): the case generator made an invalid case "
              "(reference: %d)", desc, what, ref_rc);
    return;
  }
  if (refused_here(r, c->dtype, c->sp.reduction))
    want_st = CLG_ERROR_UNSUPPORTED_DTYPE;
  if (c->storage == ST_IN_PLACE)
    memcpy(b->init, b->data, ob);
  else
    memset(b->init, 0xA5, ob);
  if (want_st != CLG_SUCCESS)
    memcpy(b->want, b->init, ob); /* refused: the output as it was */
  clg_status st;
  int rc = st_exec(r, c, b->init, ob, b->got, &st, why, sizeof why);
  if (rc < 0) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
    st_record(r, false, "%s (%s): %s", desc, what, why);
  } else if (rc > 0)
    st_record(r, false, "%s (%s): %s", desc, what, why);
  else if (st != want_st) {
    if (st == CLG_ERROR_OPENCL || st == CLG_ERROR_BUILD_FAILED ||
        st == CLG_ERROR_OUT_OF_HOST_MEMORY) {
      r->device_error = true;
      snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
    }
    st_record(r, false, "%s (%s): returned %s, expected %s%s%s", desc, what,
              clg_status_string(st), clg_status_string(want_st),
              why[0] ? ": " : "", why);
  } else if (st_first_diff(b->got, b->want, ob, clg_dtype_size(c->dtype), diff,
                           sizeof diff))
    st_record(r, false, "%s (%s): %s%s", desc, what, diff,
              want_st != CLG_SUCCESS ? " (a refused call must leave the "
                                       "output as it was)"
                                     : "");
  else
    st_record(r, true, "%s", desc);
}

/* A value in [-s, s-1] for target coordinate v in [0, s): v or v - s. */
static int64_t signed_index(uint64_t *s, int64_t v, int64_t size) {
  return (st_rand(s) & 1) ? v - size : v;
}

/* ScatterElements (or Scatter 9): indices and updates of one shape, at
 * most data's off the axis. */
static void elements_case(st_run *r, sbuf *b, uint64_t seed, clg_op op,
                          clg_dtype dt, clg_dtype it, clg_reduction red,
                          dup_kind dup, st_storage sto) {
  uint64_t s = seed;
  st_call c;
  memset(&c, 0, sizeof c);
  c.scatter = true;
  c.dtype = dt;
  c.itype = it;
  c.storage = sto;
  c.sp = (clg_scatter_params){red, dup == D_REPEAT_LAST ? CLG_DUPLICATES_LAST
                                                        : CLG_DUPLICATES_ERROR};
  c.dr = c.ir = c.ur = (int32_t)st_range(&s, 1, 3);
  int32_t a = (int32_t)st_range(&s, 0, c.dr - 1);
  bool distinct = red == CLG_REDUCTION_NONE && dup == D_DISTINCT;
  for (int32_t i = 0; i < c.dr; ++i) {
    c.dshape[i] = st_range(&s, 1, i == c.dr - 1 ? 7 : 5);
    if (i != a)
      c.ishape[i] = st_range(&s, 1, c.dshape[i]);
    else
      c.ishape[i] = distinct ? st_range(&s, 1, c.dshape[i]) : st_range(&s, 3, 6);
    c.ushape[i] = c.ishape[i];
  }
  c.params = (clg_params){op, (st_rand(&s) & 1) ? a - c.dr : a, 0,
                          CLG_MODE_RAISE};
  size_t es = clg_dtype_size(dt);
  size_t nd = st_nbytes(dt, c.dr, c.dshape) / es;
  size_t ni = st_nbytes(dt, c.ir, c.ishape) / es;
  st_fill(&s, dt, b->data, nd);
  st_fill(&s, dt, b->upd, ni);
  int64_t sz = c.dshape[a], shift = st_range(&s, 0, sz - 1);
  for (size_t e = 0; e < ni; ++e) {
    int64_t rest = (int64_t)e, ca = 0;
    for (int32_t d = c.ir - 1; d >= 0; --d) {
      if (d == a)
        ca = rest % c.ishape[d];
      rest /= c.ishape[d];
    }
    /* distinct: one target per position along the axis in each fiber;
     * else two values at most, three entries or more: repeats. */
    int64_t v = distinct ? (ca + shift) % sz : st_range(&s, 0, sz < 2 ? 0 : 1);
    st_set_index(b->idx, it, e, signed_index(&s, v, sz));
  }
  c.data = b->data;
  c.indices = b->idx;
  c.updates = b->upd;
  memcpy(b->want, b->data, nd * es);
  int64_t bad = 0, first = 0;
  int rc = ref_scatter_elements(
      b->want, dt, c.dr, c.dshape, b->idx,
      it == CLG_DTYPE_INT32 ? REF_INDEX_I32 : REF_INDEX_I64, c.ishape, b->upd,
      c.params.axis, (ref_reduction)red, dup == D_REPEAT_LAST, &bad, &first);
  run_case(r, &c, b, rc, red == CLG_REDUCTION_NONE ? dup_names[dup]
                                                   : "repeated targets");
}

/* ScatterND: tuples of k components, updates indices.shape[:-1] +
 * data.shape[k:]. */
static void nd_case(st_run *r, sbuf *b, uint64_t seed, clg_dtype dt,
                    clg_dtype it, clg_reduction red, dup_kind dup,
                    st_storage sto) {
  uint64_t s = seed;
  st_call c;
  memset(&c, 0, sizeof c);
  c.scatter = true;
  c.dtype = dt;
  c.itype = it;
  c.storage = sto;
  c.sp = (clg_scatter_params){red, dup == D_REPEAT_LAST ? CLG_DUPLICATES_LAST
                                                        : CLG_DUPLICATES_ERROR};
  c.params = (clg_params){CLG_OP_SCATTER_ND, 0, 0, CLG_MODE_RAISE};
  c.dr = (int32_t)st_range(&s, 1, 3);
  for (int32_t i = 0; i < c.dr; ++i)
    c.dshape[i] = st_range(&s, 1, i == c.dr - 1 ? 7 : 5);
  int32_t k = (int32_t)st_range(&s, 1, c.dr);
  int64_t p = 1;
  for (int32_t i = 0; i < k; ++i)
    p *= c.dshape[i];
  bool distinct = red == CLG_REDUCTION_NONE && dup == D_DISTINCT;
  int64_t n = distinct ? st_range(&s, 1, p < 6 ? p : 6) : st_range(&s, 3, 6);
  c.ir = 2;
  c.ishape[0] = n;
  c.ishape[1] = k;
  c.ur = 1 + c.dr - k;
  c.ushape[0] = n;
  for (int32_t i = k; i < c.dr; ++i)
    c.ushape[1 + i - k] = c.dshape[i];
  size_t es = clg_dtype_size(dt);
  size_t nd = st_nbytes(dt, c.dr, c.dshape) / es;
  size_t nu = st_nbytes(dt, c.ur, c.ushape) / es;
  st_fill(&s, dt, b->data, nd);
  st_fill(&s, dt, b->upd, nu);
  int64_t shift = st_range(&s, 0, p - 1);
  for (int64_t e = 0; e < n; ++e) {
    int64_t t = distinct ? (e + shift) % p : st_range(&s, 0, p < 2 ? 0 : 1);
    for (int32_t j = k - 1; j >= 0; --j) {
      st_set_index(b->idx, it, (size_t)(e * k + j),
                   signed_index(&s, t % c.dshape[j], c.dshape[j]));
      t /= c.dshape[j];
    }
  }
  c.data = b->data;
  c.indices = b->idx;
  c.updates = b->upd;
  memcpy(b->want, b->data, nd * es);
  int64_t bad = 0, first = 0;
  int rc = ref_scatter_nd(b->want, dt, c.dr, c.dshape, b->idx,
                          it == CLG_DTYPE_INT32 ? REF_INDEX_I32 : REF_INDEX_I64,
                          c.ir, c.ishape, b->upd, (ref_reduction)red,
                          dup == D_REPEAT_LAST, &bad, &first);
  run_case(r, &c, b, rc, red == CLG_REDUCTION_NONE ? dup_names[dup]
                                                   : "repeated targets");
}

/* Element types per reduction: none by element size (1, 2, 4, 8, 16
 * bytes); the arithmetic ones over integers, floats, bool and complex. */
static const clg_dtype none_types[] = {
    CLG_DTYPE_INT8,   CLG_DTYPE_FLOAT16, CLG_DTYPE_FLOAT,
    CLG_DTYPE_DOUBLE, CLG_DTYPE_COMPLEX128, CLG_DTYPE_BOOL,
    CLG_DTYPE_BFLOAT16, CLG_DTYPE_UINT32, CLG_DTYPE_INT64,
    CLG_DTYPE_COMPLEX64};
static const clg_dtype addmul_types[] = {
    CLG_DTYPE_FLOAT,     CLG_DTYPE_INT32,   CLG_DTYPE_FLOAT16,
    CLG_DTYPE_COMPLEX64, CLG_DTYPE_DOUBLE,  CLG_DTYPE_BFLOAT16,
    CLG_DTYPE_INT8,      CLG_DTYPE_UINT8,   CLG_DTYPE_INT16,
    CLG_DTYPE_INT64,     CLG_DTYPE_UINT64,  CLG_DTYPE_BOOL,
    CLG_DTYPE_COMPLEX128};
static const clg_dtype minmax_types[] = {
    CLG_DTYPE_FLOAT,  CLG_DTYPE_INT64,  CLG_DTYPE_BFLOAT16, CLG_DTYPE_UINT8,
    CLG_DTYPE_DOUBLE, CLG_DTYPE_FLOAT16, CLG_DTYPE_INT8,    CLG_DTYPE_UINT16,
    CLG_DTYPE_INT32,  CLG_DTYPE_UINT32, CLG_DTYPE_BOOL};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One operator's table: (reduction, type, duplicates) x storage. Quick:
 * the first types of each list and one storage per case, in turn. */
static void op_table(st_run *r, sbuf *b, clg_op op, int row) {
  r->row = row;
  unsigned n = 0;
  for (int red = 0; red < 5; ++red) {
    if (op == CLG_OP_SCATTER && red != CLG_REDUCTION_NONE)
      break; /* ONNX Scatter (opset 9) has no reduction */
    const clg_dtype *types = red == 0   ? none_types
                             : red <= 2 ? addmul_types
                                        : minmax_types;
    size_t nt = red == 0   ? COUNT(none_types)
                : red <= 2 ? COUNT(addmul_types)
                           : COUNT(minmax_types);
    if (r->quick)
      nt = red == 0 ? 5 : 4;
    for (size_t t = 0; t < nt; ++t)
      for (int dup = 0; dup < (red == 0 ? 3 : 1); ++dup)
        for (int sto = 0; sto < ST_NSTORAGE; ++sto, ++n) {
          if (r->quick && sto != (int)(n / ST_NSTORAGE % ST_NSTORAGE))
            continue;
          clg_dtype it = (n / 3) % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
          uint64_t seed = 0x5ca7000u + (uint64_t)op * 100000u + n;
          if (op == CLG_OP_SCATTER_ND)
            nd_case(r, b, seed, types[t], it, (clg_reduction)red,
                    (dup_kind)dup, (st_storage)sto);
          else
            elements_case(r, b, seed, op, types[t], it, (clg_reduction)red,
                          (dup_kind)dup, (st_storage)sto);
        }
  }
}

void st_scatter_cases(st_run *r) {
  sbuf *b = malloc(sizeof *b);
  if (b == NULL) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
    return;
  }
  op_table(r, b, CLG_OP_SCATTER_ELEMENTS, ST_ROW_SCATTER_ELEMENTS);
  op_table(r, b, CLG_OP_SCATTER_ND, ST_ROW_SCATTER_ND);
  op_table(r, b, CLG_OP_SCATTER, ST_ROW_SCATTER);
  free(b);
}
