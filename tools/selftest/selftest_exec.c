/*
 * clgather selftest: one call of the library on the device with its
 * operands in host memory, in cl_mem buffers (at an offset, with guard
 * bytes around them), asynchronously checked, or in place; the record of a
 * case; descriptions; the generator of values.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

/* Guard bytes around every tensor (selftest.h). */
#define GUARD ST_GUARD
#define GUARD_BYTE ST_GUARD_BYTE

static const char *const call_names[CASE_NCALLS] = {"host", "buffer", "async",
                                                    "in-place"};

const char *st_call_name(case_call s) {
  return (unsigned)s < CASE_NCALLS ? call_names[s] : "?";
}

static const char *const variant_names[] = {
    "item", "item_pf", "item_nt", "plane", "rows", "small", "block", "other"};

const char *const *st_variant_names(size_t *count) {
  *count = sizeof variant_names / sizeof variant_names[0];
  return variant_names;
}

size_t st_nbytes(clg_dtype dtype, int32_t rank, const int64_t *shape) {
  size_t n = clg_dtype_size(dtype);
  if (rank < 0 || rank > CLG_MAX_RANK)
    return 0;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] <= 0 || shape[i] > (1 << 20))
      return 0;
    n *= (size_t)shape[i];
  }
  return n;
}

/* ------------------------------------------------------------ buffers */

cl_mem st_make_buffer(cl_context cl, cl_command_queue q, const void *bytes,
                      size_t n, unsigned char **image, cl_int *err) {
  size_t total = n + 2 * GUARD;
  *image = malloc(total);
  if (*image == NULL) {
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  memset(*image, GUARD_BYTE, total);
  if (n)
    memcpy(*image + GUARD, bytes, n);
  cl_mem m = clCreateBuffer(cl, CL_MEM_READ_WRITE, total, NULL, err);
  if (m == NULL)
    return NULL;
  *err = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, total, *image, 0, NULL, NULL);
  if (*err != CL_SUCCESS) {
    clReleaseMemObject(m);
    return NULL;
  }
  return m;
}

int st_check_unchanged(cl_command_queue q, cl_mem m, const void *image,
                       size_t total, const char *what, char *why,
                       size_t whylen) {
  unsigned char *now = malloc(total);
  if (now == NULL)
    return -1;
  cl_int e = clEnqueueReadBuffer(q, m, CL_TRUE, 0, total, now, 0, NULL, NULL);
  int rc = 0;
  if (e != CL_SUCCESS) {
    snprintf(why, whylen, "reading %s back failed with OpenCL error %d", what,
             (int)e);
    rc = -1;
  } else {
    const unsigned char *want = image;
    for (size_t i = 0; i < total; ++i)
      if (now[i] != want[i]) {
        snprintf(why, whylen, "the call changed %s at buffer byte %zu", what,
                 i);
        rc = 1;
        break;
      }
  }
  free(now);
  return rc;
}

/* ---------------------------------------------------------------- calls */

clg_status st_finish(clg_status st, cl_event ev, clg_outcome *oc, char *why,
                     size_t whylen) {
  if (st != CLG_SUCCESS)
    snprintf(why, whylen, "%s", clg_last_error());
  if (st == CLG_SUCCESS && oc != NULL) {
    st = clg_outcome_wait(oc);
    if (st != CLG_SUCCESS)
      snprintf(why, whylen, "%s", clg_last_error());
  }
  if (ev != NULL) {
    cl_int e = clWaitForEvents(1, &ev), done = CL_COMPLETE;
    if (e == CL_SUCCESS)
      e = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof done,
                         &done, NULL);
    if ((e != CL_SUCCESS || done != CL_COMPLETE) && st == CLG_SUCCESS) {
      snprintf(why, whylen, "the call's event did not complete (OpenCL "
               "error %d, status %d)", (int)e, (int)done);
      st = CLG_ERROR_OPENCL;
    }
    clReleaseEvent(ev);
  }
  clg_outcome_release(oc);
  return st;
}

static clg_status call(st_run *r, const st_call *c, const clg_tensor *td,
                       const clg_tensor *ti, const clg_tensor *tu,
                       const clg_tensor *to, cl_command_queue q, bool async,
                       char *why, size_t whylen) {
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  clg_status st;
  if (c->scatter)
    st = async ? clg_scatter_async(r->ctx, &c->params, &c->sp, td, ti, tu, to,
                                   q, 0, NULL, &ev, &oc)
               : clg_scatter(r->ctx, &c->params, &c->sp, td, ti, tu, to, q, 0,
                             NULL, q ? &ev : NULL);
  else
    st = async ? clg_run_async(r->ctx, &c->params, td, ti, to, q, 0, NULL, &ev,
                               &oc)
               : clg_run(r->ctx, &c->params, td, ti, to, q, 0, NULL,
                         q ? &ev : NULL);
  return st_finish(st, ev, oc, why, whylen);
}

int st_exec(st_run *r, const st_call *c, const void *init, size_t out_bytes,
            void *got, clg_status *status, char *why, size_t whylen) {
  why[0] = '\0';
  st_describe(c, r->current, sizeof r->current);
  size_t db = st_nbytes(c->dtype, c->dr, c->dshape);
  size_t ib = st_nbytes(c->itype, c->ir, c->ishape);
  clg_dtype udt = c->utype ? c->utype : c->dtype;
  clg_dtype odt = c->otype ? c->otype : c->dtype;
  size_t ub = c->scatter ? st_nbytes(udt, c->ur, c->ushape) : 0;
  clg_tensor td = clg_tensor_host(c->dtype, c->dr, c->dshape, (void *)c->data);
  clg_tensor ti =
      clg_tensor_host(c->itype, c->ir, c->ishape, (void *)c->indices);
  clg_tensor tu = clg_tensor_host(udt, c->ur, c->ushape, (void *)c->updates);
  if (c->call == CASE_CALL_HOST) {
    unsigned char *out = malloc(out_bytes + 2 * GUARD);
    if (out == NULL) {
      snprintf(why, whylen, "out of host memory");
      return -1;
    }
    memset(out, GUARD_BYTE, out_bytes + 2 * GUARD);
    if (out_bytes)
      memcpy(out + GUARD, init, out_bytes);
    clg_tensor to = clg_tensor_host(odt, c->orank, c->oshape, out + GUARD);
    *status = call(r, c, &td, &ti, &tu, &to, NULL, false, why, whylen);
    int rc = 0;
    for (size_t i = 0; i < GUARD && rc == 0; ++i)
      if (out[i] != GUARD_BYTE || out[GUARD + out_bytes + i] != GUARD_BYTE) {
        snprintf(why, whylen, "the call wrote outside the output (guard "
                 "byte %s the output)", out[i] != GUARD_BYTE ? "before"
                 : "after");
        rc = 1;
      }
    memcpy(got, out + GUARD, out_bytes);
    free(out);
    return rc;
  }
  /* cl_mem operands, each at offset GUARD in a buffer with guards. */
  cl_context cl = clg_context_cl_context(r->ctx);
  cl_command_queue q = clg_context_queue(r->ctx);
  if (q == NULL) {
    snprintf(why, whylen, "the context has no command queue");
    return -1;
  }
  cl_mem m[4] = {NULL, NULL, NULL, NULL};
  unsigned char *img[4] = {NULL, NULL, NULL, NULL};
  size_t sizes[4] = {db, ib, ub, out_bytes};
  const void *src[4] = {c->data, c->indices, c->updates, init};
  static const char *const what[4] = {"data", "indices", "updates",
                                      "the output's guard bytes"};
  bool in_place = c->call == CASE_CALL_IN_PLACE;
  int rc = 0;
  cl_int e = CL_SUCCESS;
  for (int k = 0; k < 4 && rc == 0; ++k) {
    if ((k == 2 && !c->scatter) || (k == 3 && in_place))
      continue;
    m[k] = st_make_buffer(cl, q, src[k], sizes[k], &img[k], &e);
    if (m[k] == NULL) {
      snprintf(why, whylen, "creating the %s buffer failed with OpenCL "
               "error %d", k == 3 ? "output" : what[k], (int)e);
      rc = -1;
    }
  }
  if (rc == 0) {
    td = clg_tensor_buffer(c->dtype, c->dr, c->dshape, m[0], GUARD);
    ti = clg_tensor_buffer(c->itype, c->ir, c->ishape, m[1], GUARD);
    tu = clg_tensor_buffer(udt, c->ur, c->ushape, m[2], GUARD);
    cl_mem om = in_place ? m[0] : m[3];
    clg_tensor to = clg_tensor_buffer(odt, c->orank, c->oshape, om, GUARD);
    *status = call(r, c, &td, &ti, &tu, &to, q, c->call == CASE_CALL_ASYNC, why,
                   whylen);
    e = clFinish(q);
    size_t total = out_bytes + 2 * GUARD;
    unsigned char *now = malloc(total);
    if (e == CL_SUCCESS && now != NULL)
      e = clEnqueueReadBuffer(q, om, CL_TRUE, 0, total, now, 0, NULL, NULL);
    if (e != CL_SUCCESS || now == NULL) {
      snprintf(why, whylen, "reading the output back failed (OpenCL error "
               "%d)", (int)e);
      rc = -1;
    } else {
      memcpy(got, now + GUARD, out_bytes);
      for (size_t i = 0; i < GUARD && rc == 0; ++i)
        if (now[i] != GUARD_BYTE || now[GUARD + out_bytes + i] != GUARD_BYTE) {
          snprintf(why, whylen, "the call wrote outside the output (guard "
                   "byte %s the output)", now[i] != GUARD_BYTE ? "before"
                   : "after");
          rc = 1;
        }
    }
    free(now);
    /* The inputs are the caller's: a call never writes them. */
    for (int k = 0; k < 3 && rc == 0; ++k)
      if (m[k] != NULL && !(k == 0 && in_place))
        rc = st_check_unchanged(q, m[k], img[k], sizes[k] + 2 * GUARD, what[k],
                                why, whylen);
  }
  for (int k = 0; k < 4; ++k) {
    if (m[k] != NULL)
      clReleaseMemObject(m[k]);
    free(img[k]);
  }
  return rc;
}

/* ------------------------------------------------------------ the record */

void st_judge(st_run *r, const char *desc, int rc, clg_status st,
              clg_status want_st, const void *got, const void *want, size_t n,
              size_t esize, const char *why) {
  char diff[160];
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
  } else if (st_first_diff(got, want, n, esize, diff, sizeof diff))
    st_record(r, false, "%s: %s%s", desc, diff,
              want_st != CLG_SUCCESS ? " (a refused call must leave the "
                                       "output as it was)"
                                     : "");
  else
    st_record(r, true, "%s", desc);
}

void st_record(st_run *r, bool ok, const char *fmt, ...) {
  st_row *row = &r->rows[r->row];
  row->cases++;
  /* The variant of the gathers' and GatherBlockQuantized's kernels
   * (clg_context_last_variant(): the scatters do not set it). */
  const char *v =
      row->has_variants && ok ? clg_context_last_variant(r->ctx, NULL) : NULL;
  if (v != NULL) {
    size_t n, i;
    const char *const *names = st_variant_names(&n);
    for (i = 0; i + 1 < n && strcmp(names[i], v) != 0; ++i)
      ;
    row->variants |= 1u << i;
  }
  if (ok) {
    row->passed++;
    return;
  }
  row->failed++;
  if (r->nfails < ST_MAX_FAILS) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->fails[r->nfails], ST_DESC, fmt, ap);
    va_end(ap);
  }
  r->nfails++;
}

static const char *op_name(clg_op op) {
  size_t n = 0;
  const clg_op_info *ops = clg_operators(&n);
  for (size_t i = 0; i < n; ++i)
    if (ops[i].op == op)
      return ops[i].name;
  return "?";
}

static size_t put_shape(char *buf, size_t len, int32_t rank,
                        const int64_t *shape) {
  size_t at = (size_t)snprintf(buf, len, "[");
  for (int32_t i = 0; i < rank && i < CLG_MAX_RANK && at < len; ++i)
    at += (size_t)snprintf(buf + at, len - at, "%s%lld", i ? ", " : "",
                           (long long)shape[i]);
  if (at < len)
    at += (size_t)snprintf(buf + at, len - at, "]");
  return at;
}

void st_describe(const st_call *c, char *buf, size_t len) {
  static const char *const modes[] = {"raise", "wrap", "clip"};
  static const char *const reds[] = {"none", "add", "mul", "min", "max"};
  char ds[200], is[200], us[200];
  put_shape(ds, sizeof ds, c->dr, c->dshape);
  put_shape(is, sizeof is, c->ir, c->ishape);
  put_shape(us, sizeof us, c->ur, c->ushape);
  const char *dn = clg_dtype_name(c->dtype), *in = clg_dtype_name(c->itype);
  int n = snprintf(buf, len, "%s %s (%zu bytes) data %s, %s indices %s",
                   op_name(c->params.op), dn ? dn : "?",
                   clg_dtype_size(c->dtype), ds, in ? in : "?", is);
  if (n < 0 || (size_t)n >= len)
    return;
  size_t at = (size_t)n;
  if (c->scatter)
    at += (size_t)snprintf(buf + at, len - at,
                           ", updates %s, axis=%lld reduction=%s "
                           "duplicates=%s",
                           us, (long long)c->params.axis,
                           (unsigned)c->sp.reduction < 5
                               ? reds[c->sp.reduction]
                               : "?",
                           c->sp.duplicates == CLG_DUPLICATES_LAST ? "last"
                                                                   : "error");
  else
    at += (size_t)snprintf(
        buf + at, len - at, ", axis=%lld batch_dims=%lld mode=%s",
        (long long)c->params.axis, (long long)c->params.batch_dims,
        (unsigned)c->params.mode < 3 ? modes[c->params.mode] : "?");
  if (at < len)
    snprintf(buf + at, len - at, ", storage=%s", st_call_name(c->call));
}

int st_first_diff(const void *got, const void *want, size_t n, size_t esize,
                  char *buf, size_t len) {
  const unsigned char *g = got, *w = want;
  for (size_t i = 0; i < n; ++i)
    if (g[i] != w[i]) {
      snprintf(buf, len, "output byte %zu (element %zu) is 0x%02x, expected "
               "0x%02x", i, esize ? i / esize : i, g[i], w[i]);
      return 1;
    }
  return 0;
}

/* ------------------------------------------------------------- values */

uint64_t st_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t st_range(uint64_t *s, int64_t lo, int64_t hi) {
  return lo + (int64_t)(st_rand(s) % (uint64_t)(hi - lo + 1));
}

/* k/8 for k in [-64, 64] \ {0} mostly: exact, never subnormal. */
static float small_float(uint64_t *s) {
  int64_t k = st_range(s, -64, 64);
  return (float)(k == 0 ? 1 : k) / 8.0f;
}

static uint16_t float_to_half_simple(float f) {
  /* Exact for k/8 with |k| <= 64 (normal, few mantissa bits). */
  uint32_t u;
  memcpy(&u, &f, 4);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  int32_t e = (int32_t)((u >> 23) & 0xFF) - 127 + 15;
  return (uint16_t)(sign | (uint32_t)e << 10 | ((u & 0x7FFFFFu) >> 13));
}

void st_fill(uint64_t *s, clg_dtype dtype, void *buf, size_t n) {
  unsigned char *b = buf;
  size_t es = clg_dtype_size(dtype);
  for (size_t i = 0; i < n; ++i, b += es) {
    switch (dtype) {
    case CLG_DTYPE_BOOL: *b = (unsigned char)(st_rand(s) & 1u); break;
    case CLG_DTYPE_FLOAT: {
      float f = small_float(s);
      memcpy(b, &f, 4);
      break;
    }
    case CLG_DTYPE_COMPLEX64: {
      float f[2] = {small_float(s), small_float(s)};
      memcpy(b, f, 8);
      break;
    }
    case CLG_DTYPE_DOUBLE: {
      double d = small_float(s);
      memcpy(b, &d, 8);
      break;
    }
    case CLG_DTYPE_COMPLEX128: {
      double d[2] = {small_float(s), small_float(s)};
      memcpy(b, d, 16);
      break;
    }
    case CLG_DTYPE_FLOAT16: {
      uint16_t h = float_to_half_simple(small_float(s));
      memcpy(b, &h, 2);
      break;
    }
    case CLG_DTYPE_BFLOAT16: {
      float f = small_float(s);
      uint32_t u;
      memcpy(&u, &f, 4);
      uint16_t h = (uint16_t)(u >> 16); /* exact: few mantissa bits */
      memcpy(b, &h, 2);
      break;
    }
    default: {
      uint64_t v = st_rand(s);
      memcpy(b, &v, es < 8 ? es : 8);
      if (es > 8)
        memset(b + 8, 0, es - 8);
    }
    }
  }
}

void st_set_index(void *indices, clg_dtype itype, size_t i, int64_t v) {
  if (itype == CLG_DTYPE_INT32) {
    int32_t x = (int32_t)v;
    memcpy((unsigned char *)indices + i * 4, &x, 4);
  } else
    memcpy((unsigned char *)indices + i * 8, &v, 8);
}
