/* EmbeddingBag's case runner (support/bag_case.h): the cases of
 * tools/cases/embedding_bag.h run on the test device, directly or through a
 * plan. */
#define _POSIX_C_SOURCE 200809L
#include "support/bag_case.h"

#include <criterion/criterion.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ device limits */

clg_status bag_expected(const bag_case *c) {
  if (!tu_case_device()->fp64) {
    static bool told;
    if (!told)
      /* info, not warn: Criterion 2.4 exits 1 after a warning, which
       * failed the suite on a device without doubles (Rusticl). */
      cr_log_info("the device lacks cl_khr_fp64: float64 cases expect "
                  "CLG_ERROR_UNSUPPORTED_DTYPE");
    told = true;
  }
  return bag_case_status(c, tu_case_device());
}

/* ---------------------------------------------------------------- run */

void bag_templates(const bag_case *c, clg_tensor t[5]) {
  bool fixed = c->p.form == CLG_BAGS_FIXED;
  int64_t ws[2], os[2] = {c->B, c->dim};
  int64_t is[2] = {fixed ? c->B : c->n, c->L}, bs[1] = {bag_bags_len(c)};
  const clg_dtype dt[5] = {bag_weight_shape(c, ws), c->idt, c->bdt, c->dtype,
                           c->dtype};
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
  bag_inputs d;
  cr_assert(bag_inputs_draw(c, seed, &d) == 0, "out of host memory");
  size_t es = clg_dtype_size(c->dtype);
  size_t obytes = (size_t)(c->B * c->dim) * es;
  unsigned char *want = malloc(obytes + 1), *got = malloc(obytes + 1);
  cr_assert(want && got, "out of host memory");
  cr_assert(bag_expect(c, &d, want) == 0,
            "test bug: the reference refuses %s", desc);

  /* The operands, each in its own storage. */
  tu_tensor t[5];
  bool fixed = c->p.form == CLG_BAGS_FIXED;
  int64_t ws[2], os[2] = {c->B, c->dim};
  clg_dtype wdt = bag_weight_shape(c, ws);
  int64_t is[2] = {fixed ? c->B : c->n, c->L}, bs[1] = {d.bags_len};
  bool wait_write = c->wait_list && c->st[BAG_W].kind == CLG_STORAGE_BUFFER &&
                    d.bytes[BAG_W] > 0;
  tu_tensor_init(&t[BAG_W], wdt, 2, ws, c->st[BAG_W],
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
  bag_inputs_free(&d);
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
