/*
 * clgather selftest: GatherBlockQuantized (clg_gather_block_quantized()).
 * Its calls (st_gbq_exec(): host, or cl_mem at an offset with guard
 * bytes) and one case of its conformance set
 * (tools/cases/gather_block_quantized.h, which the test suites draw from:
 * every kind and bits (uint8 8 and 4, uint4, int4), float32 and float16
 * scales, with and without zero points, the axes each kind allows, partial
 * last blocks, negative, empty and rank-0 int32 and int64 indices),
 * compared byte for byte with the plain-C reference
 * ref_gather_block_quantized() (tools/reference/).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/reference.h"
#include "selftest.h"

/* ------------------------------------------------------------- the call */

/* clg_gather_block_quantized(), or its asynchronous call whose outcome
 * st_finish() waits for (as selftest_bag.c's bag_call()). */
static clg_status gbq_call(st_run *r, const gbq_case *c, const clg_tensor *t,
                           cl_command_queue q, char *why, size_t whylen) {
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  const clg_tensor *zp = c->zp ? &t[GBQC_ZERO_POINTS] : NULL;
  clg_status st =
      c->async
          ? clg_gather_block_quantized_async(
                r->ctx, &c->p, &t[GBQC_DATA], &t[GBQC_INDICES], &t[GBQC_SCALES],
                zp, &t[GBQC_OUTPUT], q, 0, NULL, q ? &ev : NULL, &oc)
          : clg_gather_block_quantized(
                r->ctx, &c->p, &t[GBQC_DATA], &t[GBQC_INDICES], &t[GBQC_SCALES],
                zp, &t[GBQC_OUTPUT], q, 0, NULL, q ? &ev : NULL);
  return st_finish(st, ev, oc, why, whylen);
}

/* The guard bytes around an output image: 0, or 1 with why. */
static int guards_intact(const unsigned char *img, size_t out_bytes, char *why,
                         size_t whylen) {
  for (size_t i = 0; i < ST_GUARD; ++i)
    if (img[i] != ST_GUARD_BYTE ||
        img[ST_GUARD + out_bytes + i] != ST_GUARD_BYTE) {
      snprintf(why, whylen,
               "the call wrote outside the output (guard byte %s the "
               "output)",
               img[i] != ST_GUARD_BYTE ? "before" : "after");
      return 1;
    }
  return 0;
}

void st_gbq_storage(gbq_case *c, case_call s) {
  c->async = s == CASE_CALL_ASYNC;
  for (int k = 0; k < GBQC_NOPS; ++k) {
    c->st[k].kind = s == CASE_CALL_HOST ? CLG_STORAGE_HOST : CLG_STORAGE_BUFFER;
    c->st[k].offset = s == CASE_CALL_HOST ? 0 : ST_GUARD;
  }
}

int st_gbq_exec(st_run *r, const gbq_case *c, const gbq_operands *o,
                const gbq_inputs *in, const void *init, void *got,
                clg_status *status, char *why, size_t whylen) {
  why[0] = '\0';
  gbq_case_str(c, r->current, sizeof r->current);
  size_t out_bytes = o->bytes[GBQC_OUTPUT];
  const void *src[GBQC_NOPS] = {in->op[0], in->op[1], in->op[2],
                                c->zp ? in->op[3] : NULL, init};
  size_t sizes[GBQC_NOPS] = {in->bytes[0], in->bytes[1], in->bytes[2],
                             in->bytes[3], out_bytes};
  clg_tensor t[GBQC_NOPS];
  if (c->st[GBQC_DATA].kind == CLG_STORAGE_HOST) {
    unsigned char *out = malloc(out_bytes + 2 * ST_GUARD);
    if (out == NULL) {
      snprintf(why, whylen, "out of host memory");
      return -1;
    }
    memset(out, ST_GUARD_BYTE, out_bytes + 2 * ST_GUARD);
    if (out_bytes)
      memcpy(out + ST_GUARD, init, out_bytes);
    src[GBQC_OUTPUT] = out + ST_GUARD;
    for (int k = 0; k < GBQC_NOPS; ++k)
      t[k] =
          clg_tensor_host(o->dtype[k], o->rank[k], o->shape[k], (void *)src[k]);
    *status = gbq_call(r, c, t, NULL, why, whylen);
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
  static const char *const what[GBQC_NOPS] = {"data", "indices", "scales",
                                              "zero_points", "output"};
  cl_mem m[GBQC_NOPS] = {NULL, NULL, NULL, NULL, NULL};
  unsigned char *img[GBQC_NOPS] = {NULL, NULL, NULL, NULL, NULL};
  int rc = 0;
  cl_int e = CL_SUCCESS;
  for (int k = 0; k < GBQC_NOPS && rc == 0; ++k) {
    if (src[k] == NULL) /* no zero points */
      continue;
    m[k] = st_make_buffer(cl, q, src[k], sizes[k], &img[k], &e);
    if (m[k] == NULL) {
      snprintf(why, whylen,
               "creating the %s buffer failed with OpenCL error %d", what[k],
               (int)e);
      rc = -1;
    }
  }
  if (rc == 0) {
    for (int k = 0; k < GBQC_NOPS; ++k)
      t[k] = clg_tensor_buffer(o->dtype[k], o->rank[k], o->shape[k], m[k],
                               ST_GUARD);
    *status = gbq_call(r, c, t, q, why, whylen);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", why);
    e = clFinish(q);
    size_t total = out_bytes + 2 * ST_GUARD;
    unsigned char *now = malloc(total);
    if (e == CL_SUCCESS && now != NULL)
      e = clEnqueueReadBuffer(q, m[GBQC_OUTPUT], CL_TRUE, 0, total, now, 0,
                              NULL, NULL);
    if (e != CL_SUCCESS || now == NULL) {
      snprintf(why, whylen, "reading the output back failed (OpenCL error %d)",
               (int)e);
      rc = -1;
    } else {
      memcpy(got, now + ST_GUARD, out_bytes);
      rc = guards_intact(now, out_bytes, why, whylen);
    }
    free(now);
    /* The inputs are the caller's: a call never writes them. */
    for (int k = 0; k < GBQC_OUTPUT && rc == 0; ++k)
      if (m[k] != NULL)
        rc = st_check_unchanged(q, m[k], img[k], sizes[k] + 2 * ST_GUARD,
                                what[k], why, whylen);
    if (rc == 0)
      snprintf(why, whylen, "%s", msg);
  }
  for (int k = 0; k < GBQC_NOPS; ++k) {
    if (m[k] != NULL)
      clReleaseMemObject(m[k]);
    free(img[k]);
  }
  return rc;
}

/* ------------------------------------------------------------- the cases */

void st_gbq_case(st_run *r, const case_device *dev, const case_item *it) {
  gbq_case c = it->c.gbq;
  st_gbq_storage(&c, it->call);
  gbq_operands o;
  gbq_case_operands(&c, &o);
  gbq_inputs in;
  size_t ob = o.bytes[GBQC_OUTPUT];
  unsigned char *init = malloc(ob + 1), *want = malloc(ob + 1),
                *got = malloc(ob + 1);
  char desc[ST_DESC], why[512];
  gbq_case_str(&c, desc, sizeof desc);
  if (!init || !want || !got || gbq_inputs_draw(&c, it->seed, &in) != 0) {
    free(init);
    free(want);
    free(got);
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
    return;
  }
  if (gbq_expect(&c, &in, want) != 0) {
    st_record(r, false,
              "%s: the reference refused the generated case "
              "(ref_gather_block_quantized() returned -1)",
              desc);
    goto done;
  }
  clg_status want_st = gbq_case_status(&c, dev);
  memset(init, 0xA5, ob);
  if (want_st != CLG_SUCCESS)
    memcpy(want, init, ob); /* refused: the output as it was */
  clg_status st = CLG_SUCCESS;
  int rc = st_gbq_exec(r, &c, &o, &in, init, got, &st, why, sizeof why);
  st_judge(r, desc, rc, st, want_st, got, want, ob, clg_dtype_size(c.sdt), why);
done:
  gbq_inputs_free(&in);
  free(init);
  free(want);
  free(got);
}
