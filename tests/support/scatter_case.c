/* One scatter run (support/scatter_case.h). */
#include "support/scatter_case.h"

#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

void sc_run(const scatter_case *c) {
  if (!tu_sampled())
    return;
  scatter_inputs in;
  cr_assert(scatter_inputs_draw(c, &in) == 0, "out of host memory");
  const int64_t *us = in.us;
  int32_t ur = in.ur;
  size_t es = clg_dtype_size(c->dtype);
  size_t dn = in.data_bytes / (es ? es : 1);
  const unsigned char *data = in.data, *upd = in.updates, *idx = in.indices;
  unsigned char *want = malloc(dn * es + 1), *got = malloc(dn * es + 1);
  cr_assert(want && got);
  char desc[640];
  scatter_case_str(c, desc, sizeof desc);
  /* The reference's verdict: repeated targets under reduction none, or a
   * reduction it has no arithmetic for, refuse the call; then a device
   * that cannot give a reduction's bits refuses it too. */
  int rc = scatter_expect(c, &in, want);
  cr_assert(rc == REF_OK || rc == REF_DUPLICATE || rc == REF_UNSUPPORTED,
            "test bug: reference rc %d (%s)", rc, desc);
  clg_status want_st = rc == REF_DUPLICATE     ? CLG_ERROR_DUPLICATE_INDEX
                       : rc == REF_UNSUPPORTED ? CLG_ERROR_UNSUPPORTED_DTYPE
                                               : CLG_SUCCESS;
  if (scatter_case_status(c, tu_case_device()) != CLG_SUCCESS)
    want_st = CLG_ERROR_UNSUPPORTED_DTYPE;

  tu_storage st = {c->storage, c->offset, false, false};
  tu_tensor td, tx, tu, to;
  tu_tensor_init(&td, c->dtype, c->r, c->ds, st, data);
  tu_tensor_init(&tx, c->idt, c->q, c->is, st, idx);
  tu_tensor_init(&tu, c->dtype, ur, us, st, upd);
  if (!c->in_place)
    tu_tensor_init(&to, c->dtype, c->r, c->ds, st, NULL);
  const tu_tensor *out = c->in_place ? &td : &to;
  clg_params p = {c->op, c->axis, 0, CLG_MODE_RAISE};
  cl_event ev = NULL;
  clg_status s = clg_scatter(tu_ctx(), &p, &c->sp, &td.desc, &tx.desc,
                             &tu.desc, &out->desc, NULL, 0, NULL, &ev);
  if (want_st != CLG_SUCCESS) {
    /* Refused, nothing written. */
    cr_expect_eq(s, want_st, "%s: got %s, want %s", desc, clg_status_string(s),
                 clg_status_string(want_st));
    if (ev)
      clReleaseEvent(ev);
    ev = NULL;
    /* The output as it was: data (in place), else its sentinel. */
    if (c->in_place)
      memcpy(want, data, dn * es);
    else
      memset(want, TU_SENTINEL, dn * es);
    s = CLG_SUCCESS;
  }
  cr_assert_eq(s, CLG_SUCCESS, "%s: %s", desc, clg_last_error());
  /* cl_mem tensors only: the call enqueued; its event completes it */
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  }
  tu_tensor_read(out, got);
  ptrdiff_t diff = tu_first_diff(got, want, dn * es);
  cr_expect_eq(diff, -1,
               "%s: first differing byte %td (element %td): got %02x, want "
               "%02x",
               desc, diff, diff < 0 ? (ptrdiff_t)-1 : diff / (ptrdiff_t)es,
               diff < 0 ? 0u : (unsigned)got[diff],
               diff < 0 ? 0u : (unsigned)want[diff]);
  cr_expect(tu_tensor_guards_ok(out), "bytes outside the output written");
  if (!c->in_place) {
    unsigned char *again = malloc(dn * es + 1);
    cr_assert(again);
    tu_tensor_read(&td, again);
    cr_expect_eq(tu_first_diff(again, data, dn * es), -1,
                 "data changed by a scatter that is not in place");
    free(again);
    tu_tensor_free(&to);
  }
  tu_tensor_free(&td);
  tu_tensor_free(&tx);
  tu_tensor_free(&tu);
  scatter_inputs_free(&in);
  free(want);
  free(got);
}
