/* GatherBlockQuantized's case runner (support/gbq_case.h): the cases of
 * tools/cases/gather_block_quantized.h run on the test device. */
#define _POSIX_C_SOURCE 200809L
#include "support/gbq_case.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

clg_status gbq_expected(const gbq_case *c) {
  return gbq_case_status(c, tu_case_device());
}

/* Operand k as o describes it, its `bytes` bytes from src (NULL: all
 * TU_SENTINEL) where st says, sentinels around them: the descriptor's
 * dtype and shape, which for packed data and zero points count more
 * values than bytes. */
static void operand_init(tu_tensor *t, const gbq_operands *o, int k,
                         size_t bytes, case_storage st, const void *src) {
  int64_t n[1] = {(int64_t)bytes};
  tu_tensor_init(t, CLG_DTYPE_UINT8, 1, n, st, src);
  t->desc.dtype = o->dtype[k];
  t->desc.rank = o->rank[k];
  memcpy(t->desc.shape, o->shape[k], sizeof o->shape[k]);
}

/* The whole allocation of t (TU_SENTINEL around `want`, its bytes), as it
 * must still be. */
static bool operand_intact(const tu_tensor *t, const void *want) {
  unsigned char *all = malloc(t->total + 1);
  cr_assert(all != NULL, "out of host memory");
  tu_tensor_read_all(t, all);
  bool ok = tu_tensor_guards_ok(t) &&
            (t->bytes == 0 || memcmp(all + t->offset, want, t->bytes) == 0);
  free(all);
  return ok;
}

/* One call on the operands, clg_gather_block_quantized() or (c->async) its
 * asynchronous call and clg_outcome_wait(): its status (the message in
 * msg). */
static clg_status call(const gbq_case *c, tu_tensor *t, char *msg, size_t cap) {
  bool buffer = c->st[GBQC_OUTPUT].kind == CLG_STORAGE_BUFFER;
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  const clg_tensor *zp = c->zp ? &t[GBQC_ZERO_POINTS].desc : NULL;
  clg_status st =
      c->async ? clg_gather_block_quantized_async(
                     tu_ctx(), &c->p, &t[GBQC_DATA].desc, &t[GBQC_INDICES].desc,
                     &t[GBQC_SCALES].desc, zp, &t[GBQC_OUTPUT].desc, NULL, 0,
                     NULL, buffer ? &ev : NULL, &oc)
               : clg_gather_block_quantized(
                     tu_ctx(), &c->p, &t[GBQC_DATA].desc, &t[GBQC_INDICES].desc,
                     &t[GBQC_SCALES].desc, zp, &t[GBQC_OUTPUT].desc, NULL, 0,
                     NULL, buffer ? &ev : NULL);
  if (st == CLG_SUCCESS && oc)
    st = clg_outcome_wait(oc);
  clg_outcome_release(oc);
  snprintf(msg, cap, "%s", st == CLG_SUCCESS ? "" : clg_last_error());
  if (ev) {
    cr_assert_eq(clWaitForEvents(1, &ev), CL_SUCCESS, "clWaitForEvents");
    clReleaseEvent(ev);
  }
  return st;
}

/* The operands of a call (each input's image from in, the output all
 * TU_SENTINEL), where c->st says. */
static void operands_make(const gbq_case *c, const gbq_operands *o,
                          const gbq_inputs *in, tu_tensor t[GBQC_NOPS]) {
  for (int k = 0; k < GBQC_OUTPUT; ++k)
    operand_init(&t[k], o, k, in->bytes[k], c->st[k], in->op[k]);
  operand_init(&t[GBQC_OUTPUT], o, GBQC_OUTPUT, o->bytes[GBQC_OUTPUT],
               c->st[GBQC_OUTPUT], NULL);
}

static void operands_free(tu_tensor t[GBQC_NOPS]) {
  for (int k = 0; k < GBQC_NOPS; ++k)
    tu_tensor_free(&t[k]);
}

/* The inputs' allocations as they were: "" or the first changed one. */
static const char *inputs_changed(const tu_tensor t[GBQC_NOPS],
                                  const gbq_inputs *in) {
  static const char *const names[] = {"data", "indices", "scales",
                                      "zero_points"};
  for (int k = 0; k < GBQC_OUTPUT; ++k)
    if (!operand_intact(&t[k], in->op[k]))
      return names[k];
  return "";
}

void gbq_run(gbq_runner *rn, const gbq_case *c, uint64_t seed) {
  if (!tu_sampled())
    return;
  rn->cases++;
  char desc[1024], msg[1024];
  gbq_case_str(c, desc, sizeof desc);
  gbq_operands o;
  gbq_case_operands(c, &o);
  gbq_inputs in;
  cr_assert(gbq_inputs_draw(c, seed, &in) == 0, "out of host memory");
  size_t ob = o.bytes[GBQC_OUTPUT];
  unsigned char *want = malloc(ob + 1);
  cr_assert(want != NULL, "out of host memory");
  cr_assert(gbq_expect(c, &in, want) == 0, "test bug: the reference refuses %s",
            desc);
  clg_status expect = gbq_expected(c);
  if (expect != CLG_SUCCESS) /* refused: the output as it was */
    memset(want, (int)TU_SENTINEL, ob);
  tu_tensor t[GBQC_NOPS];
  operands_make(c, &o, &in, t);
  clg_status st = call(c, t, msg, sizeof msg);
  const char *changed = inputs_changed(t, &in);
  bool ok = st == expect && operand_intact(&t[GBQC_OUTPUT], want) &&
            changed[0] == '\0';
  if (!ok) {
    unsigned char *got = malloc(ob + 1);
    cr_assert(got != NULL, "out of host memory");
    tu_tensor_read(&t[GBQC_OUTPUT], got);
    rn->failures++;
    cr_expect(false,
              "%s (seed %#llx): status %s (expected %s) %s; output byte %td "
              "differs; guards %s; input changed: %s",
              desc, (unsigned long long)seed, clg_status_string(st),
              clg_status_string(expect), msg, tu_first_diff(got, want, ob),
              tu_tensor_guards_ok(&t[GBQC_OUTPUT]) ? "intact" : "written",
              changed[0] ? changed : "none");
    free(got);
  }
  operands_free(t);
  gbq_inputs_free(&in);
  free(want);
  cr_assert_lt(rn->failures, GBQ_MAX_FAILURES, "too many failures");
}

void gbq_finish(const gbq_runner *rn, const char *what) {
  cr_log_info("%s: %d cases", what, rn->cases);
  cr_assert_gt(rn->cases, 0, "%s: no case ran", what);
}

void gbq_run_bad(const gbq_bad *e, clg_dtype sdt, bool buffer) {
  gbq_case c;
  gbq_operands o;
  gbq_inputs in;
  cr_assert(gbq_bad_make(e, sdt, &c, &o, &in) == 0, "out of host memory");
  for (int k = 0; k < GBQC_NOPS; ++k) {
    c.st[k].kind = buffer ? CLG_STORAGE_BUFFER : CLG_STORAGE_HOST;
    c.st[k].offset = buffer ? 8 * (size_t)(k + 1) : 0;
  }
  tu_tensor t[GBQC_NOPS];
  operands_make(&c, &o, &in, t);
  char msg[1024];
  clg_status st = call(&c, t, msg, sizeof msg);
  cr_expect_eq(st, e->want, "'%s' (%s): %s, not %s: %s", e->name,
               buffer ? "cl_mem" : "host", clg_status_string(st),
               clg_status_string(e->want), msg);
  bool named = case_message_has(msg, e->needles);
  for (int j = 0; j < e->nints; ++j)
    named = named && case_message_has_int(msg, e->ints[j]);
  cr_expect(named, "'%s': the message does not name %s: %s", e->name,
            e->needles, msg);
  if (e->want != CLG_SUCCESS)
    cr_expect(tu_tensor_all_sentinel(&t[GBQC_OUTPUT]),
              "'%s' (%s): output written", e->name, buffer ? "cl_mem" : "host");
  else { /* an unbroken call: the reference's output */
    unsigned char want[1024];
    cr_assert(o.bytes[GBQC_OUTPUT] <= sizeof want &&
                  gbq_expect(&c, &in, want) == 0,
              "test bug: the reference refuses '%s'", e->name);
    cr_expect(operand_intact(&t[GBQC_OUTPUT], want),
              "'%s' (%s): not the reference's output", e->name,
              buffer ? "cl_mem" : "host");
  }
  const char *changed = inputs_changed(t, &in);
  cr_expect(changed[0] == '\0', "'%s': %s changed", e->name, changed);
  operands_free(t);
  gbq_inputs_free(&in);
}
