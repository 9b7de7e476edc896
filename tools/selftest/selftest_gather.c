/*
 * clgather selftest: generated cases of the gathers (Gather with
 * batch_dims and the index modes, GatherElements, GatherND with
 * batch_dims), every element size, int32 and int64 indices, host, cl_mem
 * and asynchronously checked operands, each against the plain-C reference
 * (tools/reference/reference.h) byte for byte. The cases are drawn by
 * tools/cases/gather.h, which the test suites draw from.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/gather.h"
#include "selftest.h"

/* One element type per element size (1, 2, 4, 8, 16 bytes), and the other
 * types of each size in turn: a gather moves bytes. */
static const clg_dtype by_size[5][4] = {
    {CLG_DTYPE_INT8, CLG_DTYPE_UINT8, CLG_DTYPE_BOOL, CLG_DTYPE_INT8},
    {CLG_DTYPE_FLOAT16, CLG_DTYPE_BFLOAT16, CLG_DTYPE_INT16, CLG_DTYPE_UINT16},
    {CLG_DTYPE_FLOAT, CLG_DTYPE_INT32, CLG_DTYPE_UINT32, CLG_DTYPE_FLOAT},
    {CLG_DTYPE_DOUBLE, CLG_DTYPE_INT64, CLG_DTYPE_UINT64, CLG_DTYPE_COMPLEX64},
    {CLG_DTYPE_COMPLEX128, CLG_DTYPE_COMPLEX128, CLG_DTYPE_COMPLEX128,
     CLG_DTYPE_COMPLEX128}};

/* Runs the generated case c (tools/cases/gather.h) with its inputs drawn
 * from seed, in storage sto, against the reference, and records it. */
static void family_case(st_run *r, const gather_case *g, uint64_t seed,
                        st_storage sto) {
  char desc[400], why[512], diff[160];
  st_call c;
  memset(&c, 0, sizeof c);
  c.params = g->p;
  c.dtype = g->dtype;
  c.itype = g->idt;
  c.dr = g->r;
  c.ir = g->q;
  memcpy(c.dshape, g->dshape, sizeof c.dshape);
  memcpy(c.ishape, g->ishape, sizeof c.ishape);
  c.storage = sto;
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
  if (rc < 0) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
    st_record(r, false, "%s: %s", desc, why);
  } else if (rc > 0)
    st_record(r, false, "%s: %s", desc, why);
  else if (st != CLG_SUCCESS) {
    if (st == CLG_ERROR_OPENCL || st == CLG_ERROR_BUILD_FAILED ||
        st == CLG_ERROR_OUT_OF_HOST_MEMORY) {
      r->device_error = true;
      snprintf(r->device_msg, sizeof r->device_msg, "%s", why);
    }
    st_record(r, false, "%s: returned %s, expected CLG_SUCCESS: %s", desc,
              clg_status_string(st), why);
  } else if (st_first_diff(got, want, wbytes, clg_dtype_size(c.dtype), diff,
                           sizeof diff))
    st_record(r, false, "%s: %s", desc, diff);
  else
    st_record(r, true, "%s", desc);
done:
  gather_inputs_free(&in);
  free(want);
  free(got);
  free(init);
}

void st_gather_cases(st_run *r) {
  static const clg_dtype itypes[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};
  /* Quick: every element size x index type x mode (x batch_dims for
   * GatherND) once, the storage in turn; full: every storage, batch_dims
   * 0 and 1 for Gather, and two seeds. */
  int seeds = r->quick ? 1 : 2;
  unsigned n = 0;
  r->row = ST_ROW_GATHER;
  for (int sd = 0; sd < seeds; ++sd)
    for (int z = 0; z < 5; ++z)
      for (int k = 0; k < 2; ++k)
        for (int mode = 0; mode < 3; ++mode)
          for (int bd = 0; bd < 2; ++bd)
            for (int sto = 0; sto < 3; ++sto, ++n) {
              if (r->quick && bd * 3 + sto != (int)(n / 6 % 6))
                continue;
              uint64_t seed = 0x6a7e000u + n;
              gather_case g =
                  gather_case_random(seed, by_size[z][(n / 7) % 4], itypes[k],
                                     (clg_index_mode)mode, bd);
              family_case(r, &g, seed, (st_storage)sto);
            }
  r->row = ST_ROW_GATHER_ELEMENTS;
  n = 0;
  for (int sd = 0; sd < seeds * 2; ++sd)
    for (int z = 0; z < 5; ++z)
      for (int k = 0; k < 2; ++k)
        for (int sto = 0; sto < 3; ++sto, ++n) {
          if (r->quick && sto != (int)(n / 3 % 3))
            continue;
          uint64_t seed = 0xe1e000u + n;
          gather_case g = gather_elements_case_random(
              seed, by_size[z][(n / 5) % 4], itypes[k]);
          family_case(r, &g, seed, (st_storage)sto);
        }
  r->row = ST_ROW_GATHER_ND;
  n = 0;
  for (int sd = 0; sd < seeds; ++sd)
    for (int z = 0; z < 5; ++z)
      for (int k = 0; k < 2; ++k)
        for (int bd = 0; bd < 2; ++bd)
          for (int sto = 0; sto < 3; ++sto, ++n) {
            if (r->quick && sto != (int)(n / 3 % 3))
              continue;
            uint64_t seed = 0x9d000u + n;
            gather_case g = gather_nd_case_random(seed, by_size[z][(n / 5) % 4],
                                                  itypes[k], bd);
            family_case(r, &g, seed, (st_storage)sto);
          }
}
