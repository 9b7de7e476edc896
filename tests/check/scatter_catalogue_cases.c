/*
 * The scatters' bad-input catalogue: the base calls, the builders that each
 * break one thing in them, and the table (run by test_scatter_catalogue.c).
 *
 * Bases (host values; the runner places them):
 *   ScatterElements / Scatter: data float [4, 3] = 100 .. 111, axis 0,
 *     indices int64 [2, 3] = {0, 3, -2, 2, -4, 1} (no repeated target),
 *     updates float [2, 3], output float [4, 3];
 *   ScatterND: the same data, indices int64 [3, 2] = {0, 1, 3, -1, -2, 0}
 *     (tuples (0, 1), (3, 2), (2, 0)), updates float [3], output [4, 3].
 * Reduction none, duplicates an error. Each entry's expected message parts
 * are worked out by hand from these values (positions, values, ranges,
 * targets), not taken from the library.
 */
#include "scatter_catalogue.h"

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cases/scatter.h"

static const int64_t base_ds[2] = {4, 3};

void sct_base(sct_call *c, clg_op op) {
  static const int64_t se_is[2] = {2, 3}, nd_is[2] = {3, 2}, nd_us[1] = {3};
  static const int64_t se_idx[6] = {0, 3, -2, 2, -4, 1};
  static const int64_t nd_idx[6] = {0, 1, 3, -1, -2, 0};
  for (int k = 0; k < 12; ++k) {
    float v = 100.0f + (float)k, u = -0.5f * (float)(k + 1);
    memcpy(c->data + 4 * k, &v, 4);
    memcpy(c->upd + 4 * k, &u, 4);
  }
  bool nd = op == CLG_OP_SCATTER_ND;
  memcpy(c->idx, nd ? nd_idx : se_idx, sizeof se_idx);
  c->kind = SCT_SCATTER;
  c->params = (clg_params){op, 0, 0, CLG_MODE_RAISE};
  c->sp = (clg_scatter_params){CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
  c->d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, base_ds, NULL);
  c->i = clg_tensor_host(CLG_DTYPE_INT64, 2, nd ? nd_is : se_is, NULL);
  c->u = nd ? clg_tensor_host(CLG_DTYPE_FLOAT, 1, nd_us, NULL)
            : clg_tensor_host(CLG_DTYPE_FLOAT, 2, se_is, NULL);
  c->o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, base_ds, NULL);
}

/* ------------------------------------------------------- helpers */

static clg_tensor *pick(sct_call *c, int64_t which) {
  return which == 0 ? &c->d : which == 1 ? &c->i : which == 2 ? &c->u : &c->o;
}

/* ------------------------------------------------------- builders */

#define B(name) static void name(sct_call *c, const int64_t *p)

/* p[0] bits: NULL 1 ctx, 2 params, 4 data, 8 indices, 16 updates,
 * 32 output. */
B(b_null) {
  c->no_ctx = p[0] & 1;
  c->no_params = p[0] & 2;
  c->no_data = p[0] & 4;
  c->no_indices = p[0] & 8;
  c->no_updates = p[0] & 16;
  c->no_output = p[0] & 32;
}
B(b_kind) { c->kind = (sct_kind)p[0]; }
/* data, updates and output of element type p[0]; reduction p[1]. */
B(b_dtypes) {
  c->d.dtype = c->u.dtype = c->o.dtype = (clg_dtype)p[0];
  c->sp.reduction = (clg_reduction)p[1];
}
/* Reduction p[0]; p[1] != 0: data, updates and output of that type. */
B(b_red) {
  int64_t q[2] = {p[1] ? p[1] : CLG_DTYPE_FLOAT, p[0]};
  b_dtypes(c, q);
}
/* p[0]: 0 {NULL} with 1 event, 1 count 2 without a list, 2 list with 0. */
B(b_wait_list) {
  static const cl_event none[1] = {NULL};
  c->nev = p[0] == 0 ? 1u : p[0] == 1 ? 2u : 0u;
  c->wl = p[0] == 1 ? NULL : none;
}
/* cl_mem indices p[0] bytes further into their buffer. */
B(b_idx_off) { c->idx_extra_off = (size_t)p[0]; }

/* ---- after placement */

/* Tensor p[0] (0 data, 1 indices, 2 updates) placed p[1] bytes into the
 * output's own memory. */
B(p_overlap) {
  clg_tensor *t = pick(c, p[0]);
  if (c->out_buf) {
    t->storage = CLG_STORAGE_BUFFER;
    t->buffer = c->out_mem;
    t->offset = SCT_OUT_OFF + (size_t)p[1];
    t->host = NULL;
  } else {
    t->storage = CLG_STORAGE_HOST;
    t->host = c->out_host + TU_GUARD + p[1];
  }
}
/* cl_mem tensor p[2] (0 data, 2 updates, 3 output) p[3] bytes further on;
 * in place, data and output together (they stay one storage). */
B(p_misalign) {
  pick(c, p[2])->offset += (size_t)p[3];
  if (c->in_place && p[2] != 2)
    pick(c, p[2] == 0 ? 3 : 0)->offset += (size_t)p[3];
}
/* Host tensor p[0] at NULL. */
B(p_host_null) { pick(c, p[0])->host = NULL; }
/* Tensor p[0] in a cl_mem that is NULL. */
B(p_buffer_null) {
  clg_tensor *t = pick(c, p[0]);
  t->storage = CLG_STORAGE_BUFFER;
  t->buffer = NULL;
  t->offset = 0;
}
/* Tensor p[0] in a cl_mem of p[1] bytes, at offset 0. */
B(p_small_buffer) {
  clg_tensor *t = pick(c, p[0]);
  t->storage = CLG_STORAGE_BUFFER;
  t->buffer = sct_own(c, sct_buffer((size_t)p[1], NULL, 0, 0));
  t->offset = 0;
}
/* Tensor p[0] with storage kind p[1]. */
B(p_storage) { pick(c, p[0])->storage = (clg_storage)p[1]; }

/* ---- the family's shared catalogue (tools/cases/scatter_elements_bad.c) */

/* The call of scatter_bad_inputs[p[0]]: its parameters, descriptors and
 * values on the base. */
B(b_shared) {
  scatter_bad_call *x = malloc(sizeof *x);
  cr_assert(x != NULL, "out of host memory");
  scatter_bad_make(&scatter_bad_inputs[p[0]], x);
  c->params = x->p;
  c->sp = x->sp;
  c->no_sp = x->sp_null;
  clg_tensor *t[4] = {&c->d, &c->i, &c->u, &c->o};
  for (int k = 0; k < 4; ++k) {
    t[k]->dtype = x->dtype[k];
    t[k]->rank = x->rank[k];
    memcpy(t[k]->shape, x->shape[k], sizeof t[k]->shape);
  }
  _Static_assert(SCATTER_BAD_CAP == SCT_CAP, "one room for the values");
  memcpy(c->data, x->data, SCT_CAP);
  memcpy(c->idx, x->indices, SCT_CAP);
  memcpy(c->upd, x->updates, SCT_CAP);
  free(x);
}

sct_case sct_shared_cases[128];
size_t sct_nshared_cases;

void sct_shared_init(void) {
  cr_assert(scatter_bad_count <=
                sizeof sct_shared_cases / sizeof sct_shared_cases[0],
            "test bug: sct_shared_cases has no room for the catalogue");
  for (size_t k = 0; k < scatter_bad_count; ++k) {
    const scatter_bad *e = &scatter_bad_inputs[k];
    sct_case *x = &sct_shared_cases[k];
    memset(x, 0, sizeof *x);
    x->name = e->name;
    x->op = e->op;
    x->build = b_shared;
    x->p[0] = (int64_t)k;
    x->status = e->want;
    x->msg[0] = e->needles;
    x->flags = SCT_NEEDLES | (scatter_bad_in_values(e) ? SCT_VALUES : 0u);
  }
  sct_nshared_cases = scatter_bad_count;
}

#undef B

/* ------------------------------------------------------- the table */

#define SE CLG_OP_SCATTER_ELEMENTS
#define ND CLG_OP_SCATTER_ND
#define S9 CLG_OP_SCATTER
#define ST(x) CLG_ERROR_##x
#define R(x) CLG_REDUCTION_##x
#define DT(x) CLG_DTYPE_##x
#define MISALIGNED "not a multiple of 4 bytes (the float element)"

/* clang-format off */
const sct_case sct_cases[] = {
    /* ---- NULL pointers, one per pointer argument */
    {"ctx NULL", SE, b_null, NULL, {1}, ST(NULL_ARGUMENT), {"ctx is NULL"}, 0},
    {"params NULL", SE, b_null, NULL, {2}, ST(NULL_ARGUMENT), {"params is NULL"}, 0},
    {"data NULL", ND, b_null, NULL, {4}, ST(NULL_ARGUMENT), {"data is NULL"}, 0},
    {"indices NULL", SE, b_null, NULL, {8}, ST(NULL_ARGUMENT), {"indices is NULL"}, 0},
    {"updates NULL", SE, b_null, NULL, {16}, ST(NULL_ARGUMENT), {"updates is NULL"}, 0},
    {"updates NULL (ScatterND)", ND, b_null, NULL, {16}, ST(NULL_ARGUMENT), {"updates is NULL"}, 0},
    {"output NULL", ND, b_null, NULL, {32}, ST(NULL_ARGUMENT), {"output is NULL"}, 0},
    {"clg_scatter_async: outcome NULL", SE, b_kind, NULL, {SCT_ASYNC_NO_OUTCOME}, ST(NULL_ARGUMENT), {"outcome is NULL"}, 0},
    {"updates->host NULL", SE, NULL, p_host_null, {2}, ST(NULL_ARGUMENT), {"updates->host is NULL", "24 bytes"}, 0},
    {"updates->buffer NULL", ND, NULL, p_buffer_null, {2}, ST(NULL_ARGUMENT), {"updates->buffer is NULL"}, 0},
    {"updates storage 7", SE, NULL, p_storage, {2, 7}, ST(INVALID_ARGUMENT), {"updates has unknown storage kind 7"}, 0},
    {"updates cl_mem of 8 bytes", ND, NULL, p_small_buffer, {2, 8}, ST(BUFFER_TOO_SMALL), {"updates->buffer holds 8 bytes", "offset 0 + 12 bytes of updates"}, 0},

    /* ---- not a scatter; params */
    {"ScatterElements given to clg_run", SE, b_kind, NULL, {SCT_RUN}, ST(INVALID_ARGUMENT), {"ScatterElements is a scatter", "clg_scatter()"}, 0},
    {"ScatterND given to clg_run", ND, b_kind, NULL, {SCT_RUN}, ST(INVALID_ARGUMENT), {"ScatterND is a scatter", "clg_scatter()"}, 0},
    {"Scatter given to clg_run", S9, b_kind, NULL, {SCT_RUN}, ST(INVALID_ARGUMENT), {"Scatter is a scatter"}, 0},

    /* ---- element types */

    /* ---- shapes */

    /* ---- memory: overlap, alignment, wait list */
    {"output overlaps data (4 bytes in)", SE, NULL, p_overlap, {0, 4}, ST(INVALID_ARGUMENT), {"output overlaps data"}, SCT_NOT_IN_PLACE},
    {"output overlaps updates (8 bytes in)", ND, NULL, p_overlap, {2, 8}, ST(INVALID_ARGUMENT), {"output overlaps updates"}, 0},
    {"output's last 4 bytes are updates' first", SE, NULL, p_overlap, {2, 44}, ST(INVALID_ARGUMENT), {"output overlaps updates"}, 0},
    {"output overlaps indices", SE, NULL, p_overlap, {1, 16}, ST(INVALID_ARGUMENT), {"output overlaps indices"}, 0},
    {"data offset +2 bytes (reduction add)", SE, b_red, p_misalign, {R(ADD), 0, 0, 2}, ST(INVALID_ARGUMENT), {"data starts at byte offset", MISALIGNED}, SCT_OUT_BUF | SCT_DEV_INPUTS},
    {"updates offset 34 (reduction mul)", ND, b_red, p_misalign, {R(MUL), 0, 2, 2}, ST(INVALID_ARGUMENT), {"updates starts at byte offset 34", MISALIGNED}, SCT_OUT_BUF | SCT_DEV_INPUTS},
    {"output offset 18 (reduction max)", SE, b_red, p_misalign, {R(MAX), 0, 3, 2}, ST(INVALID_ARGUMENT), {"starts at byte offset 18", MISALIGNED}, SCT_OUT_BUF | SCT_DEV_INPUTS},
    {"output offset 18 for complex64 (add)", ND, b_red, p_misalign, {R(ADD), DT(COMPLEX64), 3, 2}, ST(INVALID_ARGUMENT), {"starts at byte offset 18", "not a multiple of 4 bytes (the complex64 element's component)"}, SCT_OUT_BUF | SCT_DEV_INPUTS},
    {"indices offset 12 (int64)", SE, b_idx_off, NULL, {4}, ST(INVALID_ARGUMENT), {"indices->offset 12 is not a multiple of the index size 8 bytes"}, SCT_IDX_ONLY},
    {"wait_list[0] NULL", SE, b_wait_list, NULL, {0}, ST(NULL_ARGUMENT), {"wait_list[0] is NULL"}, 0},
    {"num_events 2, wait_list NULL", ND, b_wait_list, NULL, {1}, ST(INVALID_ARGUMENT), {"num_events is 2", "wait_list is NULL"}, 0},
    {"num_events 0, wait_list not NULL", SE, b_wait_list, NULL, {2}, ST(INVALID_ARGUMENT), {"num_events is 0", "not NULL"}, 0},

    /* ---- index values: out of bounds */

    /* ---- index values: repeated targets under reduction none */

    /* ---- over 32 KiB of indices: the device's index pass */
};
/* clang-format on */

const size_t sct_ncases = sizeof sct_cases / sizeof sct_cases[0];
