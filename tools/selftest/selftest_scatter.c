/*
 * clgather selftest: generated cases of the scatters (ScatterElements,
 * ScatterND, ONNX Scatter 9): every reduction (none, add, mul, min, max)
 * over several element types, the duplicates rule under reduction none
 * (distinct targets; repeats refused by default; the last one wins on
 * request), int32 and int64 indices, host, cl_mem, asynchronously checked
 * and in-place operands, each against the plain-C sequential references
 * (tools/reference/ref_scatter.h) byte for byte. The cases are drawn by
 * tools/cases/scatter.h, which the test suites draw from.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/scatter.h"
#include "selftest.h"

/* What the indices hold under reduction none. */
typedef enum dup_kind { D_DISTINCT = 0, D_REPEAT_ERROR, D_REPEAT_LAST } dup_kind;
static const char *const dup_names[3] = {"distinct targets",
                                         "repeated targets",
                                         "repeated targets"};

/* Runs the generated case g (tools/cases/scatter.h) with its inputs drawn
 * from its seed, in storage sto, against the reference's verdict and
 * result, and records it. */
static void family_case(st_run *r, const case_device *dev,
                        const scatter_case *g, st_storage sto,
                        const char *what) {
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
  c.storage = sto;
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
  if (sto == ST_IN_PLACE)
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

/* Element types per reduction: none by element size (1, 2, 4, 8, 16
 * bytes); the arithmetic ones over integers, floats, bool and complex. */
static const clg_dtype none_types[] = {
    CLG_DTYPE_INT8,   CLG_DTYPE_FLOAT16, CLG_DTYPE_FLOAT,
    CLG_DTYPE_DOUBLE, CLG_DTYPE_COMPLEX128, CLG_DTYPE_BOOL,
    CLG_DTYPE_BFLOAT16, CLG_DTYPE_UINT32, CLG_DTYPE_INT64,
    CLG_DTYPE_COMPLEX64};
static const clg_dtype addmul_types[] = {
    CLG_DTYPE_FLOAT,     CLG_DTYPE_INT32,   CLG_DTYPE_FLOAT16,
    CLG_DTYPE_COMPLEX64, CLG_DTYPE_DOUBLE,  CLG_DTYPE_BFLOAT16,
    CLG_DTYPE_INT8,      CLG_DTYPE_UINT8,   CLG_DTYPE_INT16,
    CLG_DTYPE_INT64,     CLG_DTYPE_UINT64,  CLG_DTYPE_BOOL,
    CLG_DTYPE_COMPLEX128};
static const clg_dtype minmax_types[] = {
    CLG_DTYPE_FLOAT,  CLG_DTYPE_INT64,  CLG_DTYPE_BFLOAT16, CLG_DTYPE_UINT8,
    CLG_DTYPE_DOUBLE, CLG_DTYPE_FLOAT16, CLG_DTYPE_INT8,    CLG_DTYPE_UINT16,
    CLG_DTYPE_INT32,  CLG_DTYPE_UINT32, CLG_DTYPE_BOOL};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One operator's table: (reduction, type, duplicates) x storage. Quick:
 * the first types of each list and one storage per case, in turn. */
static void op_table(st_run *r, const case_device *dev, clg_op op, int row) {
  r->row = row;
  unsigned n = 0;
  for (int red = 0; red < 5; ++red) {
    if (op == CLG_OP_SCATTER && red != CLG_REDUCTION_NONE)
      break; /* ONNX Scatter (opset 9) has no reduction */
    const clg_dtype *types = red == 0   ? none_types
                             : red <= 2 ? addmul_types
                                        : minmax_types;
    size_t nt = red == 0   ? COUNT(none_types)
                : red <= 2 ? COUNT(addmul_types)
                           : COUNT(minmax_types);
    if (r->quick)
      nt = red == 0 ? 5 : 4;
    for (size_t t = 0; t < nt; ++t)
      for (int dup = 0; dup < (red == 0 ? 3 : 1); ++dup)
        for (int sto = 0; sto < ST_NSTORAGE; ++sto, ++n) {
          if (r->quick && sto != (int)(n / ST_NSTORAGE % ST_NSTORAGE))
            continue;
          clg_dtype it = (n / 3) % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
          uint64_t seed = 0x5ca7000u + (uint64_t)op * 100000u + n;
          clg_scatter_params sp = {(clg_reduction)red,
                                   dup == D_REPEAT_LAST ? CLG_DUPLICATES_LAST
                                                        : CLG_DUPLICATES_ERROR};
          /* distinct targets, or repeats (every reduction but none's
           * distinct cases) */
          scatter_targets tg = red == 0 && dup == D_DISTINCT
                                   ? SCATTER_TARGETS_DISTINCT
                                   : SCATTER_TARGETS_REPEATED;
          scatter_case g =
              op == CLG_OP_SCATTER_ND
                  ? scatter_nd_case_random(seed, types[t], it, sp, tg)
                  : scatter_elements_case_random(seed, op, types[t], it, sp,
                                                 tg);
          family_case(r, dev, &g, (st_storage)sto,
                      red == 0 ? dup_names[dup] : "repeated targets");
        }
  }
}

void st_scatter_cases(st_run *r) {
  case_device dev;
  st_case_device(r, &dev);
  op_table(r, &dev, CLG_OP_SCATTER_ELEMENTS, ST_ROW_SCATTER_ELEMENTS);
  op_table(r, &dev, CLG_OP_SCATTER_ND, ST_ROW_SCATTER_ND);
  op_table(r, &dev, CLG_OP_SCATTER, ST_ROW_SCATTER);
}
