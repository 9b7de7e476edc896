/*
 * clgather selftest: EmbeddingBag (clg_embedding_bag()). Its calls
 * (st_bag_exec(): host, cl_mem at an offset with guard bytes, or
 * asynchronously checked operands) and one case of its conformance set
 * (tools/cases/embedding_bag.h, which the test suites draw from: every weight
 * type (float32, float16, bfloat16, float64), every mode (sum, mean, max,
 * sqrt_n) and every form of the bags (offsets, with and without
 * include_last_offset; fixed-size rows; segment ids, with empty and
 * trailing segments), int32 and int64 indices and bags, per-sample weights
 * (sum) and padding_idx), compared byte for byte with the plain-C
 * reference ref_embedding_bag() (tools/reference/).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/reference.h"
#include "selftest.h"

/* ------------------------------------------------------------- the call */

static clg_status bag_call(st_run *r, const bag_case *c, const clg_tensor *t,
                           cl_command_queue q, char *why, size_t whylen) {
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  const clg_tensor *bags = c->p.form == CLG_BAGS_FIXED ? NULL : &t[BAG_B];
  const clg_tensor *psw = c->psw ? &t[BAG_S] : NULL;
  clg_status st =
      c->async ? clg_embedding_bag_async(r->ctx, &c->p, &t[BAG_W], &t[BAG_I],
                                         bags, psw, &t[BAG_O], q, 0, NULL, &ev,
                                         &oc)
               : clg_embedding_bag(r->ctx, &c->p, &t[BAG_W], &t[BAG_I], bags,
                                   psw, &t[BAG_O], q, 0, NULL, q ? &ev : NULL);
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

void st_bag_storage(bag_case *c, case_call s) {
  for (int k = 0; k < 5; ++k) {
    c->st[k].kind = s == CASE_CALL_HOST ? CLG_STORAGE_HOST : CLG_STORAGE_BUFFER;
    c->st[k].offset = s == CASE_CALL_HOST ? 0 : ST_GUARD;
  }
  c->async = s == CASE_CALL_ASYNC;
}

int st_bag_exec(st_run *r, const bag_case *c, const bag_inputs *in,
                const void *init, size_t out_bytes, void *got,
                clg_status *status, char *why, size_t whylen) {
  why[0] = '\0';
  bag_case_str(c, r->current, sizeof r->current);
  bool fixed = c->p.form == CLG_BAGS_FIXED;
  int64_t wshape[2];
  const clg_dtype wdt = bag_weight_shape(c, wshape);
  const int64_t oshape[2] = {c->B, c->dim};
  const int64_t bshape[1] = {in->bags_len};
  int64_t ishape[2];
  int32_t ir = bag_indices_shape(c, ishape);
  /* weight, indices, bags, per-sample weights, output */
  const clg_dtype types[5] = {wdt, c->idt, c->bdt, c->dtype, c->dtype};
  const int32_t ranks[5] = {2, ir, 1, ir, 2};
  const int64_t *shapes[5] = {wshape, ishape, bshape, ishape, oshape};
  const void *src[5] = {in->op[BAG_W], in->op[BAG_I],
                        fixed ? NULL : in->op[BAG_B],
                        c->psw ? in->op[BAG_S] : NULL, init};
  size_t sizes[5];
  for (int k = 0; k < 4; ++k)
    sizes[k] = in->bytes[k];
  sizes[4] = out_bytes;
  clg_tensor t[5];
  if (c->st[BAG_W].kind == CLG_STORAGE_HOST) {
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
    *status = bag_call(r, c, t, NULL, why, whylen);
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
    *status = bag_call(r, c, t, q, why, whylen);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", why);
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
    if (rc == 0)
      snprintf(why, whylen, "%s", msg);
  }
  for (int k = 0; k < 5; ++k) {
    if (m[k] != NULL)
      clReleaseMemObject(m[k]);
    free(img[k]);
  }
  return rc;
}

/* ------------------------------------------------------------- the cases */

void st_bag_case(st_run *r, const case_device *dev, const case_item *it) {
  uint64_t seed = it->seed;
  bag_case c = it->c.bag;
  st_bag_storage(&c, it->call);
  bag_inputs in;
  size_t ob = bag_output_bytes(&c);
  unsigned char *init = malloc(ob + 1), *want = malloc(ob + 1),
                *got = malloc(ob + 1);
  char desc[ST_DESC], why[512];
  bag_case_str(&c, desc, sizeof desc);
  if (!init || !want || !got || bag_inputs_draw(&c, seed, &in) != 0) {
    free(init);
    free(want);
    free(got);
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
    return;
  }
  if (bag_expect(&c, &in, want) != 0) {
    st_record(r, false,
              "%s: the reference refused the generated case "
              "(ref_embedding_bag() returned -1)",
              desc);
    goto done;
  }
  clg_status want_st = bag_case_status(&c, dev);
  memset(init, 0xA5, ob);
  if (want_st != CLG_SUCCESS)
    memcpy(want, init, ob); /* refused: the output as it was */
  clg_status st = CLG_SUCCESS;
  int rc = st_bag_exec(r, &c, &in, init, ob, got, &st, why, sizeof why);
  st_judge(r, desc, rc, st, want_st, got, want, ob, clg_dtype_size(c.dtype),
           why);
done:
  bag_inputs_free(&in);
  free(init);
  free(want);
  free(got);
}
