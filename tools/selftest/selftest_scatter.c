/*
 * clgather selftest: one case of a scatter's conformance set
 * (ScatterElements, ScatterND, ONNX Scatter 9: tools/cases/scatter.h,
 * which the test suites draw from; every reduction, the duplicates rule
 * under reduction none) with host, cl_mem, asynchronously checked or
 * in-place operands, against the plain-C sequential references
 * (tools/reference/ref_scatter.h) byte for byte: their verdict (repeated
 * targets refused), the device's refusals, the output. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

void st_scatter_case(st_run *r, const case_device *dev, const case_item *it) {
  const scatter_case *g = &it->c.scatter;
  case_call sto = it->call;
  const char *what = it->label != NULL ? it->label : "random targets";
  char desc[480], why[512], diff[160];
  scatter_inputs in;
  if (scatter_inputs_draw(g, &in) != 0) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
    return;
  }
  st_call c;
  memset(&c, 0, sizeof c);
  c.scatter = true;
  c.params = (clg_params){g->op, g->axis, 0, CLG_MODE_RAISE};
  c.sp = g->sp;
  c.dtype = g->dtype;
  c.itype = g->idt;
  c.dr = c.orank = g->r;
  c.ir = g->q;
  c.ur = in.ur;
  memcpy(c.dshape, g->ds, sizeof c.dshape);
  memcpy(c.oshape, g->ds, sizeof c.oshape);
  memcpy(c.ishape, g->is, sizeof c.ishape);
  memcpy(c.ushape, in.us, sizeof c.ushape);
  c.data = in.data;
  c.indices = in.indices;
  c.updates = in.updates;
  c.call = sto;
  st_describe(&c, desc, sizeof desc);
  size_t ob = in.data_bytes;
  unsigned char *want = malloc(ob + 1), *got = malloc(ob + 1),
                *init = malloc(ob + 1);
  if (!want || !got || !init) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
    goto done;
  }
  int ref_rc = scatter_expect(g, &in, want);
  clg_status want_st = CLG_SUCCESS;
  if (ref_rc == REF_DUPLICATE)
    want_st = CLG_ERROR_DUPLICATE_INDEX;
  else if (ref_rc == REF_UNSUPPORTED)
    want_st = CLG_ERROR_UNSUPPORTED_DTYPE;
  else if (ref_rc != REF_OK) {
    st_record(r, false, "%s (%s): the case generator made an invalid case "
              "(reference: %d)", desc, what, ref_rc);
    goto done;
  }
  if (scatter_case_status(g, dev) != CLG_SUCCESS)
    want_st = CLG_ERROR_UNSUPPORTED_DTYPE;
  if (sto == CASE_CALL_IN_PLACE)
    memcpy(init, in.data, ob);
  else
    memset(init, 0xA5, ob);
  if (want_st != CLG_SUCCESS)
    memcpy(want, init, ob); /* refused: the output as it was */
  clg_status st;
  int rc = st_exec(r, &c, init, ob, got, &st, why, sizeof why);
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
  } else if (st_first_diff(got, want, ob, clg_dtype_size(c.dtype), diff,
                           sizeof diff))
    st_record(r, false, "%s (%s): %s%s", desc, what, diff,
              want_st != CLG_SUCCESS ? " (a refused call must leave the "
                                       "output as it was)"
                                     : "");
  else
    st_record(r, true, "%s", desc);
done:
  scatter_inputs_free(&in);
  free(want);
  free(got);
  free(init);
}
