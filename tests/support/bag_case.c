#define _POSIX_C_SOURCE 200809L
#include "support/bag_case.h"

#include <criterion/criterion.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bag_case bag_make(clg_bag_mode mode, clg_bag_form form, clg_dtype dtype,
                  int64_t num_embeddings, int64_t dim, int64_t n, int64_t B) {
  bag_case c;
  memset(&c, 0, sizeof c);
  c.p.mode = mode;
  c.p.form = form;
  c.dtype = dtype;
  c.num_embeddings = num_embeddings;
  c.dim = dim;
  c.idt = CLG_DTYPE_INT64;
  c.bdt = CLG_DTYPE_INT64;
  c.B = B;
  if (form == CLG_BAGS_FIXED) {
    c.L = n;
    c.n = B * n;
  } else {
    c.n = n;
  }
  for (int k = 0; k < 5; ++k)
    c.st[k].kind = CLG_STORAGE_HOST;
  return c;
}

void bag_set_padding(bag_case *c, int64_t padding_idx, int pct) {
  c->p.flags |= CLG_BAG_PADDING_IDX;
  c->p.padding_idx = padding_idx;
  c->pad_pct = pct;
}

static size_t operand_esize(const bag_case *c, int k) {
  return clg_dtype_size(k == BAG_I ? c->idt : k == BAG_B ? c->bdt : c->dtype);
}

void bag_storage_for(bag_case *c, int k) {
  for (int j = 0; j < 5; ++j) {
    c->st[j].kind = ((k >> j) & 1) ? CLG_STORAGE_BUFFER : CLG_STORAGE_HOST;
    c->st[j].offset = (size_t)((k / 3 + j) % 4) * operand_esize(c, j) * 2u;
    c->st[j].tight = ((k + j) % 5) == 0;
    c->st[j].null_empty = ((k + j) % 3) == 0;
  }
}

const char *bag_case_str(const bag_case *c, char *buf, size_t cap) {
  static const char *const modes[] = {"sum", "mean", "max", "sqrt_n"};
  static const char *const forms[] = {"offsets", "fixed", "segment_ids"};
  static const char *const data[] = {"random", "special", "small-int"};
  char st[5][40];
  for (int k = 0; k < 5; ++k) {
    if (c->st[k].kind == CLG_STORAGE_BUFFER)
      snprintf(st[k], sizeof st[k], "buf+%zu%s", c->st[k].offset,
               c->st[k].tight ? "(tight)" : "");
    else
      snprintf(st[k], sizeof st[k], "host%s",
               c->st[k].null_empty ? "(null-if-empty)" : "");
  }
  snprintf(buf, cap,
           "mode=%s form=%s%s dtype=%s weight=[%" PRId64 ", %" PRId64
           "] indices=%s n=%" PRId64 " L=%" PRId64 " bags=%s B=%" PRId64
           " seg_gap=%" PRId64 "%s padding_idx=%s%" PRId64 "(%d%%) data=%s "
           "storage(w/i/b/psw/out)=%s/%s/%s/%s/%s%s%s%s%s",
           (unsigned)c->p.mode < 4 ? modes[c->p.mode] : "?",
           (unsigned)c->p.form < 3 ? forms[c->p.form] : "?",
           (c->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET) ? "+last" : "",
           clg_dtype_name(c->dtype), c->num_embeddings, c->dim,
           clg_dtype_name(c->idt), c->n, c->L, clg_dtype_name(c->bdt), c->B,
           c->seg_gap, c->psw ? " per_sample_weights" : "",
           (c->p.flags & CLG_BAG_PADDING_IDX) ? "" : "(off)", c->p.padding_idx,
           c->pad_pct, data[c->data], st[0], st[1], st[2], st[3], st[4],
           c->want_event ? " event" : "", c->wait_list ? " wait-list" : "",
           c->async ? " async" : "", c->own_queue ? " own-queue" : "");
  return buf;
}

/* ------------------------------------------------------ device limits */

static cl_device_fp_config fp_config(cl_device_info what) {
  cl_device_fp_config cfg = 0;
  if (clGetDeviceInfo(tu_device(), what, sizeof cfg, &cfg, NULL) != CL_SUCCESS)
    cfg = 0;
  return cfg;
}

static bool has_fp64(void) {
  static int known = -1;
  if (known < 0) {
    char ext[8192] = {0};
    cl_int err = clGetDeviceInfo(tu_device(), CL_DEVICE_EXTENSIONS,
                                 sizeof ext - 1, ext, NULL);
    known = err == CL_SUCCESS && strstr(ext, "cl_khr_fp64") != NULL;
    if (!known)
      /* info, not warn: Criterion 2.4 exits 1 after a warning, which
       * failed the suite on a device without doubles (Rusticl). */
      cr_log_info("the device lacks cl_khr_fp64: float64 cases expect "
                  "CLG_ERROR_UNSUPPORTED_DTYPE");
  }
  return known == 1;
}

clg_status bag_expected(const bag_case *c) {
  /* An empty output needs no arithmetic: nothing is refused. */
  if (c->B == 0 || c->dim == 0)
    return CLG_SUCCESS;
  if (c->dtype == CLG_DTYPE_DOUBLE) {
    if (!has_fp64() || !(fp_config(CL_DEVICE_DOUBLE_FP_CONFIG) & CL_FP_DENORM))
      return CLG_ERROR_UNSUPPORTED_DTYPE;
    return CLG_SUCCESS;
  }
  cl_device_fp_config single = fp_config(CL_DEVICE_SINGLE_FP_CONFIG);
  if (c->dtype != CLG_DTYPE_FLOAT16 && !tu_reduces_exactly(CLG_DTYPE_FLOAT))
    return CLG_ERROR_UNSUPPORTED_DTYPE;
  /* A correctly rounded division: the device's own, or through doubles. */
  if ((c->p.mode == CLG_BAG_MEAN || c->p.mode == CLG_BAG_SQRT_N) &&
      !(single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) && !has_fp64())
    return CLG_ERROR_UNSUPPORTED_DTYPE;
  return CLG_SUCCESS;
}

/* --------------------------------------------------------------- data */

/* A float of both signs, magnitude in [2^-6, 2^4), full mantissa; one in
 * 24 subnormal in the dtype (its smallest normal times a fraction). */
static double draw_value(tu_rng *rng, clg_dtype dt, bag_data kind) {
  double sign = tu_rng_range(rng, 0, 1) ? -1.0 : 1.0;
  if (kind == BAG_DATA_SMALL_INT)
    return (double)tu_rng_range(rng, -4, 4);
  if (kind == BAG_DATA_SPECIAL) {
    switch (tu_rng_range(rng, 0, 7)) {
    case 0:
    case 1: return 0.0;
    case 2:
    case 3: return -0.0;
    case 4: return sign;
    case 5: return NAN; /* replaced by a NaN of a payload of its own */
    default: break;
    }
  }
  double frac = (double)(tu_rng_u64(rng) >> 11) / 9007199254740992.0;
  if (tu_rng_range(rng, 0, 23) == 0) {
    double min_normal = dt == CLG_DTYPE_FLOAT16   ? 0x1p-14
                        : dt == CLG_DTYPE_DOUBLE ? 0x1p-1022
                                                 : 0x1p-126;
    return sign * frac * min_normal;
  }
  return sign * ldexp(1.0 + frac, (int)tu_rng_range(rng, -6, 3));
}

/* Stores v (rounded to nearest) as element k of dtype; a NaN becomes a
 * quiet NaN whose sign and payload come from `tag`. */
static void put_value(void *dst, clg_dtype dt, int64_t k, double v,
                      uint64_t tag) {
  unsigned char *p = (unsigned char *)dst + (size_t)k * clg_dtype_size(dt);
  bool nan = isnan(v);
  uint64_t sign = tag & 1u, pay = 1u + (tag >> 1) % 30u;
  switch (dt) {
  case CLG_DTYPE_DOUBLE: {
    if (nan) {
      uint64_t u = (sign << 63) | 0x7FF8000000000000ull | pay;
      memcpy(p, &u, 8);
    } else
      memcpy(p, &v, 8);
    break;
  }
  case CLG_DTYPE_FLOAT: {
    float f = (float)v;
    if (nan) {
      uint32_t u = (uint32_t)(sign << 31) | 0x7FC00000u | (uint32_t)pay;
      memcpy(p, &u, 4);
    } else
      memcpy(p, &f, 4);
    break;
  }
  default: {
    bool h = dt == CLG_DTYPE_FLOAT16;
    uint16_t u = h ? ref_float_to_half((float)v) : ref_float_to_bf16((float)v);
    if (nan)
      u = (uint16_t)((sign << 15) | (h ? 0x7E00u : 0x7FC0u) |
                     (pay & (h ? 0x1FFu : 0x3Fu)));
    memcpy(p, &u, 2);
    break;
  }
  }
}

typedef struct bag_data_set {
  unsigned char *op[4]; /* weight, indices, bags, psw host images */
  size_t bytes[4];
  int64_t bags_len;
} bag_data_set;

static void put_int(void *dst, clg_dtype t, int64_t pos, int64_t v) {
  tu_set_index(dst, t, pos, v);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static void draw(const bag_case *c, uint64_t seed, bag_data_set *d) {
  tu_rng rng = tu_rng_make(seed);
  int64_t E = c->num_embeddings, n = c->n, B = c->B;
  bool last = (c->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET) != 0;
  d->bags_len = c->p.form == CLG_BAGS_OFFSETS ? B + (last ? 1 : 0)
                : c->p.form == CLG_BAGS_SEGMENT_IDS ? n
                                                    : 0;
  d->bytes[BAG_W] = (size_t)(E * c->dim) * clg_dtype_size(c->dtype);
  d->bytes[BAG_I] = (size_t)n * clg_dtype_size(c->idt);
  d->bytes[BAG_B] = (size_t)d->bags_len * clg_dtype_size(c->bdt);
  d->bytes[BAG_S] = (size_t)n * clg_dtype_size(c->dtype);
  for (int k = 0; k < 4; ++k) {
    d->op[k] = malloc(d->bytes[k] + 1);
    cr_assert(d->op[k] != NULL, "out of host memory");
  }
  for (int64_t k = 0; k < E * c->dim; ++k)
    put_value(d->op[BAG_W], c->dtype, k, draw_value(&rng, c->dtype, c->data),
              tu_rng_u64(&rng));
  for (int64_t k = 0; k < n; ++k)
    put_value(d->op[BAG_S], c->dtype, k,
              draw_value(&rng, c->dtype,
                         c->data == BAG_DATA_SMALL_INT ? c->data
                                                       : BAG_DATA_RANDOM),
              0);
  int64_t pad = -1;
  if (c->p.flags & CLG_BAG_PADDING_IDX)
    pad = c->p.padding_idx < 0 ? c->p.padding_idx + E : c->p.padding_idx;
  for (int64_t k = 0; k < n; ++k) {
    int64_t v = tu_rng_range(&rng, 0, E - 1);
    if (pad >= 0 && tu_rng_range(&rng, 0, 99) < c->pad_pct)
      v = pad;
    put_int(d->op[BAG_I], c->idt, k, v);
  }
  /* The bags: sorted draws (equal ones make empty bags). */
  int64_t m = c->p.form == CLG_BAGS_OFFSETS ? B : n;
  int64_t *v = malloc(sizeof *v * (size_t)(m + 1));
  cr_assert(v != NULL, "out of host memory");
  if (c->p.form == CLG_BAGS_OFFSETS) {
    for (int64_t k = 0; k < m; ++k)
      v[k] = k == 0 ? 0 : tu_rng_range(&rng, 0, n);
  } else if (c->p.form == CLG_BAGS_SEGMENT_IDS) {
    int64_t hi = B - 1 - c->seg_gap;
    for (int64_t k = 0; k < m; ++k)
      v[k] = tu_rng_range(&rng, 0, hi < 0 ? 0 : hi);
  }
  if (m > 0 && c->p.form != CLG_BAGS_FIXED)
    qsort(v, (size_t)m, sizeof *v, cmp_i64);
  for (int64_t k = 0; c->p.form != CLG_BAGS_FIXED && k < m; ++k)
    put_int(d->op[BAG_B], c->bdt, k, v[k]);
  if (c->p.form == CLG_BAGS_OFFSETS && last)
    put_int(d->op[BAG_B], c->bdt, B, n);
  free(v);
}

static void ref_args(const bag_case *c, const bag_data_set *d,
                     ref_bag_args *a) {
  memset(a, 0, sizeof *a);
  a->mode = (int)c->p.mode;
  a->form = (int)c->p.form;
  a->include_last_offset = (c->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET) != 0;
  a->has_padding_idx = (c->p.flags & CLG_BAG_PADDING_IDX) != 0;
  a->padding_idx = c->p.padding_idx;
  a->dtype = (int32_t)c->dtype;
  a->weight = d->op[BAG_W];
  a->num_embeddings = c->num_embeddings;
  a->dim = c->dim;
  a->indices = d->op[BAG_I];
  a->index_type = tu_ref_index_type(c->idt);
  a->indices_rank = c->p.form == CLG_BAGS_FIXED ? 2 : 1;
  a->indices_shape[0] = c->p.form == CLG_BAGS_FIXED ? c->B : c->n;
  a->indices_shape[1] = c->L;
  a->bags = c->p.form == CLG_BAGS_FIXED ? NULL : d->op[BAG_B];
  a->bags_type = tu_ref_index_type(c->bdt);
  a->bags_len = d->bags_len;
  a->per_sample_weights = c->psw ? d->op[BAG_S] : NULL;
  a->num_bags = c->B;
}

/* ---------------------------------------------------------------- run */

/* The bags' entries of the case's form. */
static int64_t bags_len_of(const bag_case *c) {
  bool last = (c->p.flags & CLG_BAG_INCLUDE_LAST_OFFSET) != 0;
  return c->p.form == CLG_BAGS_OFFSETS ? c->B + (last ? 1 : 0)
         : c->p.form == CLG_BAGS_SEGMENT_IDS ? c->n
                                              : 0;
}

void bag_templates(const bag_case *c, clg_tensor t[5]) {
  bool fixed = c->p.form == CLG_BAGS_FIXED;
  int64_t ws[2] = {c->num_embeddings, c->dim}, os[2] = {c->B, c->dim};
  int64_t is[2] = {fixed ? c->B : c->n, c->L}, bs[1] = {bags_len_of(c)};
  const clg_dtype dt[5] = {c->dtype, c->idt, c->bdt, c->dtype, c->dtype};
  const int32_t rank[5] = {2, fixed ? 2 : 1, 1, fixed ? 2 : 1, 2};
  const int64_t *shape[5] = {ws, is, bs, is, os};
  for (int k = 0; k < 5; ++k)
    t[k] = c->st[k].kind == CLG_STORAGE_BUFFER
               ? clg_tensor_buffer(dt[k], rank[k], shape[k], NULL,
                                   c->st[k].offset)
               : clg_tensor_host(dt[k], rank[k], shape[k], NULL);
}

/* One call of the case: clg_embedding_bag() / _async() on tu_ctx(), or
 * (plan not NULL) the plan's enqueue, on ctx. */
static bool run_case(const bag_case *c, clg_context *ctx, clg_plan *plan,
                     uint64_t seed, char *msg, size_t cap) {
  char desc[1024];
  bag_case_str(c, desc, sizeof desc);
  bag_data_set d;
  draw(c, seed, &d);
  size_t es = clg_dtype_size(c->dtype);
  size_t obytes = (size_t)(c->B * c->dim) * es;
  unsigned char *want = malloc(obytes + 1), *got = malloc(obytes + 1);
  cr_assert(want && got, "out of host memory");
  ref_bag_args ra;
  ref_args(c, &d, &ra);
  cr_assert(ref_embedding_bag(&ra, want) == 0,
            "test bug: the reference refuses %s", desc);

  /* The operands, each in its own storage. */
  tu_tensor t[5];
  bool fixed = c->p.form == CLG_BAGS_FIXED;
  int64_t ws[2] = {c->num_embeddings, c->dim}, os[2] = {c->B, c->dim};
  int64_t is[2] = {fixed ? c->B : c->n, c->L}, bs[1] = {d.bags_len};
  bool wait_write = c->wait_list && c->st[BAG_W].kind == CLG_STORAGE_BUFFER &&
                    d.bytes[BAG_W] > 0;
  tu_tensor_init(&t[BAG_W], c->dtype, 2, ws, c->st[BAG_W],
                 wait_write ? NULL : d.op[BAG_W]);
  tu_tensor_init(&t[BAG_I], c->idt, fixed ? 2 : 1, is, c->st[BAG_I],
                 d.op[BAG_I]);
  tu_tensor_init(&t[BAG_B], c->bdt, 1, bs, c->st[BAG_B], d.op[BAG_B]);
  tu_tensor_init(&t[BAG_S], c->dtype, fixed ? 2 : 1, is, c->st[BAG_S],
                 d.op[BAG_S]);
  tu_tensor_init(&t[BAG_O], c->dtype, 2, os, c->st[BAG_O], NULL);
  bool ok = false;

  /* The wait list: the weight's bytes written by a command the call must
   * wait for (when the weight is a cl_mem), and a user event completed
   * before the call (cl_mem operands are read back after the list, so it
   * cannot be left pending). */
  cl_event wl[2] = {NULL, NULL};
  cl_uint nwl = 0;
  unsigned char *img = NULL; /* the weight's buffer as written */
  if (c->wait_list) {
    cl_int err = CL_SUCCESS;
    wl[nwl] = clCreateUserEvent(tu_cl_context(), &err);
    tu_cl_check(err, "clCreateUserEvent");
    tu_cl_check(clSetUserEventStatus(wl[nwl++], CL_COMPLETE),
                "clSetUserEventStatus");
    if (wait_write) {
      /* The whole buffer, its guard bytes TU_SENTINEL again: Oclgrind's
       * uninitialized-value check loses track of a write into part of a
       * buffer, and reported the reduction's stores from such a weight
       * (their values right). */
      img = malloc(t[BAG_W].total);
      cr_assert(img != NULL, "out of host memory");
      memset(img, (int)TU_SENTINEL, t[BAG_W].total);
      memcpy(img + t[BAG_W].offset, d.op[BAG_W], d.bytes[BAG_W]);
      tu_cl_check(clEnqueueWriteBuffer(tu_queue(), t[BAG_W].buf, CL_FALSE, 0,
                                       t[BAG_W].total, img, 0, NULL,
                                       &wl[nwl++]),
                  "clEnqueueWriteBuffer");
      tu_cl_check(clFlush(tu_queue()), "clFlush");
    }
  }
  cl_command_queue q = c->own_queue ? tu_queue() : NULL;
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  const clg_tensor *bags = fixed ? NULL : &t[BAG_B].desc;
  const clg_tensor *psw = c->psw ? &t[BAG_S].desc : NULL;
  clg_status st =
      plan ? clg_plan_enqueue_embedding_bag(
                 plan, &t[BAG_W].desc, &t[BAG_I].desc, bags, psw,
                 &t[BAG_O].desc, q, nwl, nwl ? wl : NULL,
                 c->want_event ? &ev : NULL, c->async ? &oc : NULL)
      : c->async ? clg_embedding_bag_async(
                     ctx, &c->p, &t[BAG_W].desc, &t[BAG_I].desc, bags,
                     psw, &t[BAG_O].desc, q, nwl, nwl ? wl : NULL,
                     c->want_event ? &ev : NULL, &oc)
               : clg_embedding_bag(ctx, &c->p, &t[BAG_W].desc,
                                   &t[BAG_I].desc, bags, psw, &t[BAG_O].desc,
                                   q, nwl, nwl ? wl : NULL,
                                   c->want_event ? &ev : NULL);
  clg_status expect = bag_expected(c);
  if (st != expect) {
    snprintf(msg, cap, "%s: the call returned %s (%d), want %s: %s", desc,
             clg_status_string(st), (int)st, clg_status_string(expect),
             clg_last_error());
    goto done;
  }
  if (st != CLG_SUCCESS) { /* refused by this device, as the header says */
    if (ev || oc || !tu_tensor_all_sentinel(&t[BAG_O])) {
      snprintf(msg, cap, "%s: refused, but an event, an outcome or output "
               "bytes came out", desc);
      goto done;
    }
    ok = true;
    goto done;
  }
  if (c->async) {
    clg_status ost = oc ? clg_outcome_wait(oc) : CLG_ERROR_NULL_ARGUMENT;
    clg_outcome_release(oc);
    oc = NULL;
    if (ost != CLG_SUCCESS) {
      snprintf(msg, cap, "%s: the outcome gave %s: %s", desc,
               clg_status_string(ost), clg_last_error());
      goto done;
    }
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
    tu_cl_check(clFinish(q ? q : clg_context_queue(ctx)), "clFinish");
  }

  tu_tensor_read(&t[BAG_O], got);
  ptrdiff_t at = tu_first_diff(got, want, obytes);
  if (at >= 0) {
    size_t e0 = (size_t)at / es * es;
    char g[40] = "", w[40] = "";
    for (size_t k = es; k-- > 0;) { /* the element's bytes, little end last */
      snprintf(g + strlen(g), sizeof g - strlen(g), "%02x", got[e0 + k]);
      snprintf(w + strlen(w), sizeof w - strlen(w), "%02x", want[e0 + k]);
    }
    snprintf(msg, cap,
             "%s (seed %" PRIu64 "): output differs from the reference at "
             "element %zu ([%" PRId64 ", %" PRId64 "]): got 0x%s, want 0x%s",
             desc, seed, e0 / es, (int64_t)(e0 / es) / (c->dim ? c->dim : 1),
             (int64_t)(e0 / es) % (c->dim ? c->dim : 1), g, w);
    goto done;
  }
  if (!tu_tensor_guards_ok(&t[BAG_O])) {
    snprintf(msg, cap, "%s: bytes outside the output were written", desc);
    goto done;
  }
  for (int k = 0; k < 4; ++k) {
    if (t[k].bytes == 0 || (k == BAG_B && fixed) || (k == BAG_S && !c->psw))
      continue;
    unsigned char *back = malloc(t[k].bytes);
    cr_assert(back != NULL, "out of host memory");
    tu_tensor_read(&t[k], back);
    bool same = tu_first_diff(back, d.op[k], t[k].bytes) < 0;
    free(back);
    if (!same) {
      snprintf(msg, cap, "%s: input operand %d was modified", desc, k);
      goto done;
    }
  }
  ok = true;

done:
  clg_outcome_release(oc);
  tu_cl_check(clFinish(tu_queue()), "clFinish (test queue)");
  free(img);
  for (cl_uint k = 0; k < nwl; ++k)
    clReleaseEvent(wl[k]);
  for (int k = 0; k < 5; ++k)
    tu_tensor_free(&t[k]);
  for (int k = 0; k < 4; ++k)
    free(d.op[k]);
  free(want);
  free(got);
  return ok;
}

void bag_run(bag_runner *rn, const bag_case *c, uint64_t seed) {
  if (!tu_sampled()) {
    rn->skipped++;
    return;
  }
  rn->cases++;
  char msg[2048];
  if (!run_case(c, tu_ctx(), NULL, seed, msg, sizeof msg)) {
    rn->failures++;
    cr_expect(false, "%s", msg);
    cr_assert(rn->failures < BAG_MAX_FAILURES, "too many failures, stopping");
  }
}

bool bag_run_plan(bag_runner *rn, const bag_case *c, clg_context *ctx,
                  clg_plan *plan, uint64_t seed) {
  rn->cases++;
  char msg[2048];
  if (run_case(c, ctx, plan, seed, msg, sizeof msg))
    return true;
  rn->failures++;
  cr_expect(false, "through a plan: %s", msg);
  cr_assert(rn->failures < BAG_MAX_FAILURES, "too many failures, stopping");
  return false;
}

void bag_finish(const bag_runner *rn, const char *what) {
  cr_log_info("%s: %d cases (%d left out by CLGATHER_TEST_SAMPLE)", what,
              rn->cases, rn->skipped);
  cr_assert(rn->cases > 0, "%s: no cases ran", what);
}
