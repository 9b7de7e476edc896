/*
 * clgather selftest: one case of a gather's conformance set (Gather with
 * batch_dims and the index modes, GatherElements, GatherND with
 * batch_dims: tools/cases/gather.h, which the test suites draw from) with
 * host, cl_mem or asynchronously checked operands, against the plain-C
 * reference (tools/reference/reference.h) byte for byte.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

void st_gather_case(st_run *r, const case_item *it) {
  const gather_case *g = &it->c.gather;
  uint64_t seed = it->seed;
  char desc[400], why[512];
  st_call c;
  memset(&c, 0, sizeof c);
  c.params = g->p;
  c.dtype = g->dtype;
  c.itype = g->idt;
  c.dr = g->r;
  c.ir = g->q;
  memcpy(c.dshape, g->dshape, sizeof c.dshape);
  memcpy(c.ishape, g->ishape, sizeof c.ishape);
  c.call = it->call;
  st_describe(&c, desc, sizeof desc);
  int32_t orank = 0;
  int64_t oshape[REF_MAX_RANK];
  if (gather_case_shape(g, &orank, oshape) != 0 || orank > CLG_MAX_RANK) {
    st_record(r, false, "%s: the case generator made an invalid case "
              "(reference refused it)", desc);
    return;
  }
  size_t wbytes = st_nbytes(g->dtype, orank, oshape);
  gather_inputs in;
  unsigned char *want = malloc(wbytes + 1), *got = malloc(wbytes + 1),
                *init = malloc(wbytes + 1);
  if (!want || !got || !init || gather_inputs_draw(g, seed, &in) != 0) {
    free(want);
    free(got);
    free(init);
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "out of host memory");
    return;
  }
  c.data = in.data;
  c.indices = in.indices;
  if (gather_expect(g, &in, want) != 0) {
    st_record(r, false,
              "%s: the case generator made an invalid case "
              "(reference refused it)",
              desc);
    goto done;
  }
  int32_t grank = -1;
  int64_t gshape[CLG_MAX_RANK];
  clg_status st = clg_output_shape(&c.params, c.dr, c.dshape, c.ir, c.ishape,
                                   &grank, gshape);
  bool same = st == CLG_SUCCESS && grank == orank;
  for (int32_t i = 0; same && i < orank; ++i)
    same = gshape[i] == oshape[i];
  if (!same) {
    st_record(r, false,
              "%s: clg_output_shape gives %s (rank %d), not the "
              "reference's shape",
              desc, clg_status_string(st), (int)grank);
    goto done;
  }
  c.orank = orank;
  memcpy(c.oshape, oshape, sizeof(int64_t) * (size_t)orank);
  memset(init, 0xA5, wbytes); /* a sentinel: a kernel not run shows */
  int rc = st_exec(r, &c, init, wbytes, got, &st, why, sizeof why);
  st_judge(r, desc, rc, st, CLG_SUCCESS, got, want, wbytes,
           clg_dtype_size(c.dtype), why);
done:
  gather_inputs_free(&in);
  free(want);
  free(got);
  free(init);
}
