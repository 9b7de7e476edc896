/*
 * clgather selftest: EmbeddingBag (clg_embedding_bag()). Its calls
 * (st_bag_exec(): host, cl_mem at an offset with guard bytes, or
 * asynchronously checked operands) and its generated cases: every weight
 * type (float32, float16, bfloat16, float64), every mode (sum, mean, max,
 * sqrt_n) and every form of the bags (offsets, with and without
 * include_last_offset; fixed-size rows; segment ids, with empty and
 * trailing segments), int32 and int64 indices and bags, per-sample weights
 * (sum) and padding_idx, each compared byte for byte with the plain-C
 * reference ref_embedding_bag() (tools/reference/).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/reference.h"
#include "selftest.h"

/* ------------------------------------------------------------- the call */

static clg_status bag_call(st_run *r, const st_bag_call *c, const clg_tensor *t,
                           cl_command_queue q, bool async, char *why,
                           size_t whylen) {
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  const clg_tensor *bags = c->bags ? &t[2] : NULL;
  const clg_tensor *psw = c->psw ? &t[3] : NULL;
  clg_status st =
      async ? clg_embedding_bag_async(r->ctx, &c->p, &t[0], &t[1], bags, psw,
                                      &t[4], q, 0, NULL, &ev, &oc)
            : clg_embedding_bag(r->ctx, &c->p, &t[0], &t[1], bags, psw, &t[4],
                                q, 0, NULL, q ? &ev : NULL);
  return st_finish(st, ev, oc, why, whylen);
}

/* The guard bytes around an output image: 0, or 1 with why. */
static int guards_intact(const unsigned char *img, size_t out_bytes, char *why,
                         size_t whylen) {
  for (size_t i = 0; i < ST_GUARD; ++i)
    if (img[i] != ST_GUARD_BYTE ||
        img[ST_GUARD + out_bytes + i] != ST_GUARD_BYTE) {
      snprintf(why, whylen,
               "the call wrote outside the output (guard byte "
               "%s the output)",
               img[i] != ST_GUARD_BYTE ? "before" : "after");
      return 1;
    }
  return 0;
}

int st_bag_exec(st_run *r, const st_bag_call *c, const void *init,
                size_t out_bytes, void *got, clg_status *status, char *why,
                size_t whylen) {
  why[0] = '\0';
  st_bag_describe(c, r->current, sizeof r->current);
  clg_dtype pdt = c->pdtype ? c->pdtype : c->dtype;
  clg_dtype odt = c->odtype ? c->odtype : c->dtype;
  const int64_t wshape[2] = {c->rows, c->dim},
                oshape[2] = {c->num_bags, c->dim};
  const int64_t bshape[1] = {c->blen};
  /* weight, indices, bags, per-sample weights, output */
  const clg_dtype types[5] = {c->dtype, c->itype, c->btype, pdt, odt};
  const int32_t ranks[5] = {2, c->ir, 1, c->ir, 2};
  const int64_t *shapes[5] = {wshape, c->ishape, bshape, c->ishape, oshape};
  const void *src[5] = {c->weight, c->indices, c->bags, c->psw, init};
  size_t sizes[5];
  for (int k = 0; k < 5; ++k)
    sizes[k] = st_nbytes(types[k], ranks[k], shapes[k]);
  sizes[4] = out_bytes;
  clg_tensor t[5];
  if (c->storage == ST_HOST) {
    unsigned char *out = malloc(out_bytes + 2 * ST_GUARD);
    if (out == NULL) {
      snprintf(why, whylen, "out of host memory");
      return -1;
    }
    memset(out, ST_GUARD_BYTE, out_bytes + 2 * ST_GUARD);
    if (out_bytes)
      memcpy(out + ST_GUARD, init, out_bytes);
    src[4] = out + ST_GUARD;
    for (int k = 0; k < 5; ++k)
      t[k] = clg_tensor_host(types[k], ranks[k], shapes[k], (void *)src[k]);
    *status = bag_call(r, c, t, NULL, false, why, whylen);
    int rc = guards_intact(out, out_bytes, why, whylen);
    memcpy(got, out + ST_GUARD, out_bytes);
    free(out);
    return rc;
  }
  cl_context cl = clg_context_cl_context(r->ctx);
  cl_command_queue q = clg_context_queue(r->ctx);
  if (q == NULL) {
    snprintf(why, whylen, "the context has no command queue");
    return -1;
  }
  static const char *const what[5] = {"weight", "indices", "bags",
                                      "per_sample_weights", "output"};
  cl_mem m[5] = {NULL, NULL, NULL, NULL, NULL};
  unsigned char *img[5] = {NULL, NULL, NULL, NULL, NULL};
  int rc = 0;
  cl_int e = CL_SUCCESS;
  for (int k = 0; k < 5 && rc == 0; ++k) {
    if (src[k] == NULL) /* no bags (fixed form), no per-sample weights */
      continue;
    m[k] = st_make_buffer(cl, q, src[k], sizes[k], &img[k], &e);
    if (m[k] == NULL) {
      snprintf(why, whylen,
               "creating the %s buffer failed with OpenCL "
               "error %d",
               what[k], (int)e);
      rc = -1;
    }
  }
  if (rc == 0) {
    for (int k = 0; k < 5; ++k)
      t[k] = clg_tensor_buffer(types[k], ranks[k], shapes[k], m[k], ST_GUARD);
    *status = bag_call(r, c, t, q, c->storage == ST_ASYNC, why, whylen);
    e = clFinish(q);
    size_t total = out_bytes + 2 * ST_GUARD;
    unsigned char *now = malloc(total);
    if (e == CL_SUCCESS && now != NULL)
      e = clEnqueueReadBuffer(q, m[4], CL_TRUE, 0, total, now, 0, NULL, NULL);
    if (e != CL_SUCCESS || now == NULL) {
      snprintf(why, whylen,
               "reading the output back failed (OpenCL error "
               "%d)",
               (int)e);
      rc = -1;
    } else {
      memcpy(got, now + ST_GUARD, out_bytes);
      rc = guards_intact(now, out_bytes, why, whylen);
    }
    free(now);
    /* The inputs are the caller's: a call never writes them. */
    for (int k = 0; k < 4 && rc == 0; ++k)
      if (m[k] != NULL)
        rc = st_check_unchanged(q, m[k], img[k], sizes[k] + 2 * ST_GUARD,
                                what[k], why, whylen);
  }
  for (int k = 0; k < 5; ++k) {
    if (m[k] != NULL)
      clReleaseMemObject(m[k]);
    free(img[k]);
  }
  return rc;
}

void st_bag_describe(const st_bag_call *c, char *buf, size_t len) {
  static const char *const modes[] = {"sum", "mean", "max", "sqrt_n"};
  static const char *const forms[] = {"offsets", "fixed", "segment_ids"};
  const char *dn = clg_dtype_name(c->dtype), *in = clg_dtype_name(c->itype);
  const char *bn = clg_dtype_name(c->btype);
  char is[64];
  if (c->ir == 2)
    snprintf(is, sizeof is, "[%lld, %lld]", (long long)c->ishape[0],
             (long long)c->ishape[1]);
  else
    snprintf(is, sizeof is, "[%lld]", (long long)c->ishape[0]);
  int n = snprintf(
      buf, len, "EmbeddingBag %s weight [%lld, %lld], %s indices %s, form=%s",
      dn ? dn : "?", (long long)c->rows, (long long)c->dim, in ? in : "?", is,
      (unsigned)c->p.form < 3 ? forms[c->p.form] : "?");
  if (n < 0 || (size_t)n >= len)
    return;
  size_t at = (size_t)n;
  if (c->bags != NULL && at < len)
    at += (size_t)snprintf(
        buf + at, len - at, " (%s [%lld]%s)", bn ? bn : "?", (long long)c->blen,
        c->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET ? ", include_last_offset"
                                                 : "");
  if (at < len)
    at += (size_t)snprintf(buf + at, len - at, ", mode=%s%s",
                           (unsigned)c->p.mode < 4 ? modes[c->p.mode] : "?",
                           c->psw ? " per_sample_weights" : "");
  if ((c->p.flags & CLG_BAG_PADDING_IDX) && at < len)
    at += (size_t)snprintf(buf + at, len - at, " padding_idx=%lld",
                           (long long)c->p.padding_idx);
  if (at < len)
    snprintf(buf + at, len - at, ", output [%lld, %lld], storage=%s",
             (long long)c->num_bags, (long long)c->dim,
             st_storage_name(c->storage));
}

/* ------------------------------------------------------------- the cases */

#define CAP 4096

typedef struct bag_bufs {
  unsigned char weight[CAP], idx[CAP], bags[CAP], psw[CAP], init[CAP],
      want[CAP], got[CAP];
} bag_bufs;

/* What the device lets the library run (clgather_bag.h): float64 needs
 * cl_khr_fp64 and its denormals, float32 and bfloat16 the single
 * denormals; float32, float16 and bfloat16 mean and sqrt_n a correctly
 * rounded divide and sqrt, the device's own or through doubles. */
static bool refused_here(const st_run *r, bool cr_div, clg_dtype t,
                         clg_bag_mode mode) {
  if (t == CLG_DTYPE_DOUBLE)
    return !r->fp64 || !r->double_denorm;
  if ((t == CLG_DTYPE_FLOAT || t == CLG_DTYPE_BFLOAT16) && !r->single_denorm)
    return true;
  return (mode == CLG_BAG_MEAN || mode == CLG_BAG_SQRT_N) && !cr_div &&
         !r->fp64;
}

/* One generated case of (dtype, mode, form); `variant` picks the index
 * types, include_last_offset, per-sample weights (sum), padding_idx. */
static void bag_case(st_run *r, bool cr_div, bag_bufs *b, uint64_t seed,
                     clg_dtype dt, clg_bag_mode mode, clg_bag_form form,
                     unsigned variant, st_storage sto) {
  uint64_t s = seed;
  st_bag_call c;
  memset(&c, 0, sizeof c);
  c.p.mode = mode;
  c.p.form = form;
  c.dtype = dt;
  c.storage = sto;
  c.itype = variant & 1 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
  c.btype = variant & 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
  c.rows = st_range(&s, 1, 6);
  c.dim = st_range(&s, 1, 9);
  int64_t n = 0;
  if (form == CLG_BAGS_FIXED) {
    c.ir = 2;
    c.ishape[0] = c.num_bags = st_range(&s, 1, 4);
    c.ishape[1] = st_range(&s, variant & 4 ? 0 : 1, 4);
    n = c.ishape[0] * c.ishape[1];
  } else {
    c.ir = 1;
    c.ishape[0] = n = st_range(&s, 0, 9);
    c.num_bags = st_range(&s, n ? 1 : 0, 4);
  }
  if (form == CLG_BAGS_OFFSETS) {
    bool last = (variant & 4) != 0;
    if (last)
      c.p.flags |= CLG_BAG_INCLUDE_LAST_OFFSET;
    c.blen = c.num_bags + (last ? 1 : 0);
    int64_t prev = 0;
    for (int64_t i = 0; i < c.num_bags; ++i) {
      /* the first is 0; then non-decreasing (empty bags too) up to n */
      prev = i == 0 ? 0 : st_range(&s, prev, n);
      st_set_index(b->bags, c.btype, (size_t)i, prev);
    }
    if (last)
      st_set_index(b->bags, c.btype, (size_t)c.num_bags, n);
    c.bags = b->bags;
  } else if (form == CLG_BAGS_SEGMENT_IDS) {
    /* non-decreasing ids in [0, B): gaps and trailing segments empty */
    c.blen = n;
    int64_t id = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (st_rand(&s) % 3 == 0)
        id = st_range(&s, id, c.num_bags - 1);
      st_set_index(b->bags, c.btype, (size_t)i, id);
    }
    c.bags = b->bags;
  }
  size_t es = clg_dtype_size(dt);
  st_fill(&s, dt, b->weight, (size_t)(c.rows * c.dim));
  for (int64_t i = 0; i < n; ++i)
    st_set_index(b->idx, c.itype, (size_t)i, st_range(&s, 0, c.rows - 1));
  if ((variant & 8) && mode == CLG_BAG_SUM) {
    st_fill(&s, dt, b->psw, (size_t)n);
    c.psw = b->psw;
  }
  if (variant & 16) {
    int64_t p = st_range(&s, 0, c.rows - 1);
    c.p.flags |= CLG_BAG_PADDING_IDX;
    c.p.padding_idx = st_rand(&s) & 1 ? p - c.rows : p;
  }
  c.weight = b->weight;
  c.indices = b->idx;
  size_t ob = (size_t)(c.num_bags * c.dim) * es;
  ref_bag_args ra = {
      .mode = (int)mode,
      .form = (int)form,
      .include_last_offset = (c.p.flags & CLG_BAG_INCLUDE_LAST_OFFSET) != 0,
      .has_padding_idx = (c.p.flags & CLG_BAG_PADDING_IDX) != 0,
      .padding_idx = c.p.padding_idx,
      .dtype = (int32_t)dt,
      .weight = b->weight,
      .num_embeddings = c.rows,
      .dim = c.dim,
      .indices = b->idx,
      .index_type = c.itype == CLG_DTYPE_INT32 ? REF_INDEX_I32 : REF_INDEX_I64,
      .indices_rank = c.ir,
      .indices_shape = {c.ishape[0], c.ishape[1]},
      .bags = c.bags,
      .bags_type = c.btype == CLG_DTYPE_INT32 ? REF_INDEX_I32 : REF_INDEX_I64,
      .bags_len = c.blen,
      .per_sample_weights = c.psw,
      .num_bags = c.num_bags};
  char desc[480], why[512], diff[160];
  st_bag_describe(&c, desc, sizeof desc);
  if (ref_embedding_bag(&ra, b->want) != 0) {
    st_record(r, false,
              "%s: the reference refused the generated case "
              "(ref_embedding_bag() returned -1)",
              desc);
    return;
  }
  /* An empty output needs no arithmetic: nothing is refused. */
  clg_status want_st = ob > 0 && refused_here(r, cr_div, dt, mode)
                           ? CLG_ERROR_UNSUPPORTED_DTYPE
                           : CLG_SUCCESS;
  memset(b->init, 0xA5, ob);
  if (want_st != CLG_SUCCESS)
    memcpy(b->want, b->init, ob); /* refused: the output as it was */
  clg_status st = CLG_SUCCESS;
  int rc = st_bag_exec(r, &c, b->init, ob, b->got, &st, why, sizeof why);
  if (rc < 0) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
    st_record(r, false, "%s: %s", desc, why);
  } else if (rc > 0)
    st_record(r, false, "%s: %s", desc, why);
  else if (st != want_st) {
    if (st == CLG_ERROR_OPENCL || st == CLG_ERROR_BUILD_FAILED ||
        st == CLG_ERROR_OUT_OF_HOST_MEMORY) {
      r->device_error = true;
      snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
    }
    st_record(r, false, "%s: returned %s, expected %s%s%s", desc,
              clg_status_string(st), clg_status_string(want_st),
              why[0] ? ": " : "", why);
  } else if (st_first_diff(b->got, b->want, ob, es, diff, sizeof diff))
    st_record(r, false, "%s: %s%s", desc, diff,
              want_st != CLG_SUCCESS ? " (a refused call must leave the "
                                       "output as it was)"
                                     : "");
  else
    st_record(r, true, "%s", desc);
}

void st_bag_cases(st_run *r) {
  static const clg_dtype types[] = {CLG_DTYPE_FLOAT, CLG_DTYPE_FLOAT16,
                                    CLG_DTYPE_BFLOAT16, CLG_DTYPE_DOUBLE};
  r->row = ST_ROW_EMBEDDING_BAG;
  bag_bufs *b = malloc(sizeof *b);
  if (b == NULL) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
    return;
  }
  cl_device_fp_config fs = 0;
  clGetDeviceInfo(clg_context_device(r->ctx), CL_DEVICE_SINGLE_FP_CONFIG,
                  sizeof fs, &fs, NULL);
  bool cr_div = (fs & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  /* Every (type, mode, form) once (quick: every (type, mode) once, the
   * form in turn), the storage (host, buffer, async) and the mix of index
   * types, offsets, weights and padding in turn: each case is a program of
   * its own to build on a cold device (the 576 cases of a first version
   * took five minutes of CI's ASan run, cold). */
  unsigned n = 0;
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
    for (int mode = 0; mode < 4; ++mode)
      for (int form = 0; form < 3; ++form) {
        unsigned k = (unsigned)(t * 4 + (size_t)mode);
        if (r->quick && form != (int)(k % 3))
          continue;
        int sto = (int)((k + (unsigned)form) % 3);
        /* index and bag types, include_last_offset or empty rows,
         * per-sample weights, padding_idx: a different mix each time */
        unsigned variant = (n * 7u) & 31u;
        uint64_t seed = 0xba9000u + n;
        bag_case(r, cr_div, b, seed, types[t], (clg_bag_mode)mode,
                 (clg_bag_form)form, variant, (st_storage)sto);
        ++n;
      }
  free(b);
}
