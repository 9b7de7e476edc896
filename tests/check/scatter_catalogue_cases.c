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

#include <stdint.h>
#include <string.h>

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

static void set_shape(clg_tensor *t, int64_t rank, const int64_t *dims) {
  t->rank = (int32_t)rank;
  for (int64_t k = 0; k < rank && k < CLG_MAX_RANK; ++k)
    t->shape[k] = dims[k];
}

static void put_index(sct_call *c, int64_t pos, int64_t v) {
  memcpy(c->idx + 8 * pos, &v, 8);
}

/* The int64 index values rewritten as int32. */
static void to_int32(sct_call *c) {
  int64_t n = tu_numel(c->i.rank, c->i.shape);
  for (int64_t k = 0; k < n; ++k) {
    int64_t v;
    memcpy(&v, c->idx + 8 * k, 8);
    int32_t w = (int32_t)v;
    memcpy(c->idx + 4 * k, &w, 4);
  }
  c->i.dtype = CLG_DTYPE_INT32;
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
/* params {p[0], p[1], p[2], p[3]}: op, axis, batch_dims, mode. */
B(b_params) {
  c->params = (clg_params){(clg_op)p[0], p[1], p[2], (clg_index_mode)p[3]};
}
/* scatter params {p[0], p[1]}: reduction, duplicates. */
B(b_sp) {
  c->sp.reduction = (clg_reduction)p[0];
  c->sp.duplicates = (clg_duplicates)p[1];
}
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
/* Tensor p[0] (0 data, 1 indices, 2 updates, 3 output) of type p[1]. */
B(b_dtype) { pick(c, p[0])->dtype = (clg_dtype)p[1]; }
/* Tensor p[0] of rank p[1], dims p[2..5]. */
B(b_shape) { set_shape(pick(c, p[0]), p[1], p + 2); }
/* indices of rank p[0], dims p[1..2]; updates of rank p[3], dims p[4..5]. */
B(b_ishape) {
  set_shape(&c->i, p[0], p + 1);
  set_shape(&c->u, p[3], p + 4);
}
/* p[0]: 0 {NULL} with 1 event, 1 count 2 without a list, 2 list with 0. */
B(b_wait_list) {
  static const cl_event none[1] = {NULL};
  c->nev = p[0] == 0 ? 1u : p[0] == 1 ? 2u : 0u;
  c->wl = p[0] == 1 ? NULL : none;
}
/* cl_mem indices p[0] bytes further into their buffer. */
B(b_idx_off) { c->idx_extra_off = (size_t)p[0]; }
/* Index values: idx[p[0]] = p[1], idx[p[2]] = p[3] if p[2] >= 0; p[4] 32:
 * int32 indices; p[5] 1-4: that reduction, 9: scatter params NULL. */
B(b_idx) {
  put_index(c, p[0], p[1]);
  if (p[2] >= 0)
    put_index(c, p[2], p[3]);
  if (p[4] == 32)
    to_int32(c);
  if (p[5] >= 1 && p[5] <= 4)
    c->sp.reduction = (clg_reduction)p[5];
  c->no_sp = p[5] == 9;
}
/* ScatterElements on axis -1 (size 3): indices valid for it, {0, 2, -2,
 * -1, 1, 0} (rows {0, 2, 1} and {2, 1, 0}), then as b_idx. */
B(b_axis1) {
  static const int64_t v[6] = {0, 2, -2, -1, 1, 0};
  memcpy(c->idx, v, sizeof v);
  c->params.axis = -1;
  b_idx(c, p);
}
/* Over 32 KiB of int64 indices (the device's index pass runs for cl_mem
 * indices and output), all distinct targets, then idx[p[1]] = p[2]:
 *  p[0] 0: ScatterND, data [4100, 2], indices [4100, 1], tuple e =
 *          (7e mod 4100) (odd e counted from the back), updates [4100, 2];
 *  p[0] 1: ScatterElements on axis 1, data [2, 2050], indices and updates
 *          [2, 2050], entry (r, j) = 3j mod 2050 (odd j from the back). */
B(b_large) {
  int64_t s = p[0] ? 2050 : 4100, mul = p[0] ? 3 : 7;
  const int64_t ds[2] = {p[0] ? 2 : 4100, p[0] ? 2050 : 2};
  const int64_t is[2] = {p[0] ? 2 : 4100, p[0] ? 2050 : 1};
  int64_t n = is[0] * is[1];
  for (int64_t e = 0; e < n; ++e) {
    int64_t j = p[0] ? e % 2050 : e, v = (j * mul) % s;
    put_index(c, e, j % 2 ? v - s : v);
  }
  for (int64_t k = 0; k < ds[0] * ds[1]; ++k) {
    float v = (float)k, u = -(float)k;
    memcpy(c->data + 4 * k, &v, 4);
    memcpy(c->upd + 4 * k, &u, 4);
  }
  set_shape(&c->d, 2, ds);
  set_shape(&c->o, 2, ds);
  set_shape(&c->i, 2, is);
  set_shape(&c->u, 2, p[0] ? is : ds);
  c->params.axis = p[0] ? 1 : 0;
  put_index(c, p[1], p[2]);
}

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

#undef B

/* ------------------------------------------------------- the table */

#define SE CLG_OP_SCATTER_ELEMENTS
#define ND CLG_OP_SCATTER_ND
#define S9 CLG_OP_SCATTER
#define ST(x) CLG_ERROR_##x
#define R(x) CLG_REDUCTION_##x
#define DT(x) CLG_DTYPE_##x
#define NONE64 -1, 0, 64
#define NONE32 -1, 0, 32
#define OOB SCT_VALUES
#define RANGE4 "valid range is [-4, 3]"
#define RANGE3 "valid range is [-3, 2]"
#define IN23 "in indices of shape [2, 3]) = "
#define IN32 "in indices of shape [3, 2]) = "
#define COMP0 "component 0 of the index tuple indexes axis 0 of data, of size 4"
#define COMP1 "component 1 of the index tuple indexes axis 1 of data, of size 3"
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
    {"Gather given to clg_scatter", SE, b_params, NULL, {CLG_OP_GATHER, 0, 0, 0}, ST(INVALID_ARGUMENT), {"Gather is not a scatter", "clg_run()"}, 0},
    {"GatherND given to clg_scatter", ND, b_params, NULL, {CLG_OP_GATHER_ND, 0, 0, 0}, ST(INVALID_ARGUMENT), {"GatherND is not a scatter"}, 0},
    {"ScatterElements given to clg_run", SE, b_kind, NULL, {SCT_RUN}, ST(INVALID_ARGUMENT), {"ScatterElements is a scatter", "clg_scatter()"}, 0},
    {"ScatterND given to clg_run", ND, b_kind, NULL, {SCT_RUN}, ST(INVALID_ARGUMENT), {"ScatterND is a scatter", "clg_scatter()"}, 0},
    {"Scatter given to clg_run", S9, b_kind, NULL, {SCT_RUN}, ST(INVALID_ARGUMENT), {"Scatter is a scatter"}, 0},
    {"unknown operator 42", SE, b_params, NULL, {42, 0, 0, 0}, ST(INVALID_ARGUMENT), {"unknown operator 42 in params->op"}, 0},
    {"ScatterElements axis 2 (rank 2)", SE, b_params, NULL, {SE, 2, 0, 0}, ST(INVALID_AXIS), {"axis 2 is out of range for data of rank 2", "valid range is [-2, 1]"}, 0},
    {"ScatterElements axis -3", SE, b_params, NULL, {SE, -3, 0, 0}, ST(INVALID_AXIS), {"axis -3 is out of range for data of rank 2"}, 0},
    {"Scatter axis 7", S9, b_params, NULL, {S9, 7, 0, 0}, ST(INVALID_AXIS), {"axis 7 is out of range"}, 0},
    {"ScatterND axis 1", ND, b_params, NULL, {ND, 1, 0, 0}, ST(INVALID_ARGUMENT), {"ScatterND takes no axis (got 1)"}, 0},
    {"ScatterElements batch_dims 1", SE, b_params, NULL, {SE, 0, 1, 0}, ST(INVALID_ARGUMENT), {"ScatterElements takes no batch_dims (got 1)"}, 0},
    {"ScatterND mode CLIP", ND, b_params, NULL, {ND, 0, 0, CLG_MODE_CLIP}, ST(INVALID_ARGUMENT), {"ScatterND takes no index mode"}, 0},
    {"unknown reduction 5", SE, b_sp, NULL, {5, 0}, ST(INVALID_ARGUMENT), {"unknown reduction 5"}, 0},
    {"unknown reduction -1", ND, b_sp, NULL, {-1, 0}, ST(INVALID_ARGUMENT), {"unknown reduction -1"}, 0},
    {"unknown duplicates rule 2", ND, b_sp, NULL, {0, 2}, ST(INVALID_ARGUMENT), {"unknown duplicates rule 2"}, 0},
    {"unknown duplicates rule 7 under add", SE, b_sp, NULL, {R(ADD), 7}, ST(INVALID_ARGUMENT), {"unknown duplicates rule 7"}, 0},
    {"Scatter (opset 9) with reduction add", S9, b_sp, NULL, {R(ADD), 0}, ST(INVALID_ARGUMENT), {"Scatter (opsets 9, 10) takes no reduction"}, 0},

    /* ---- element types */
    {"reduction min on complex64", SE, b_dtypes, NULL, {DT(COMPLEX64), R(MIN)}, ST(UNSUPPORTED_DTYPE), {"reduction min is not defined on complex numbers (complex64)"}, 0},
    {"reduction max on complex128", ND, b_dtypes, NULL, {DT(COMPLEX128), R(MAX)}, ST(UNSUPPORTED_DTYPE), {"reduction max is not defined on complex numbers (complex128)"}, 0},
    {"data of type string", SE, b_dtypes, NULL, {DT(STRING), 0}, ST(UNSUPPORTED_DTYPE), {"data has element type string"}, 0},
    {"indices of type float", ND, b_dtype, NULL, {1, DT(FLOAT)}, ST(INVALID_INDICES_DTYPE), {"indices has element type 1 (float)"}, 0},
    {"updates int32, data float", SE, b_dtype, NULL, {2, DT(INT32)}, ST(DTYPE_MISMATCH), {"updates has element type int32 but data has float"}, 0},
    {"updates double, data float (ScatterND)", ND, b_dtype, NULL, {2, DT(DOUBLE)}, ST(DTYPE_MISMATCH), {"updates has element type double but data has float"}, 0},
    {"output double, data float", SE, b_dtype, NULL, {3, DT(DOUBLE)}, ST(DTYPE_MISMATCH), {"output has element type double but data has float"}, 0},

    /* ---- shapes */
    {"ScatterElements updates [2, 2]", SE, b_shape, NULL, {2, 2, 2, 2}, ST(INCOMPATIBLE_SHAPES), {"ScatterElements: updates has shape [2, 2] but indices has [2, 3]"}, 0},
    {"ScatterElements updates [2, 3, 1]", SE, b_shape, NULL, {2, 3, 2, 3, 1}, ST(INCOMPATIBLE_SHAPES), {"updates has shape [2, 3, 1] but indices has [2, 3]"}, 0},
    {"Scatter updates [3, 2]", S9, b_shape, NULL, {2, 2, 3, 2}, ST(INCOMPATIBLE_SHAPES), {"Scatter: updates has shape [3, 2] but indices has [2, 3]"}, 0},
    {"ScatterND updates [2]", ND, b_shape, NULL, {2, 1, 2}, ST(INCOMPATIBLE_SHAPES), {"updates has shape [2] but indices.shape[:-1] + data.shape[2:] is [3]"}, 0},
    {"ScatterND updates [3, 3]", ND, b_shape, NULL, {2, 2, 3, 3}, ST(INCOMPATIBLE_SHAPES), {"updates has shape [3, 3]", "is [3]"}, 0},
    {"updates with a negative dimension", SE, b_shape, NULL, {2, 2, 2, -3}, ST(INVALID_SHAPE), {"updates has a negative dimension: shape[1] = -3"}, 0},
    {"updates of 2^80 elements", ND, b_shape, NULL, {2, 2, (int64_t)1 << 40, (int64_t)1 << 40}, ST(SIZE_OVERFLOW), {"updates of shape", "overflows size_t"}, 0},
    {"ScatterElements indices rank 1, data rank 2", SE, b_ishape, NULL, {1, 6, 0, 1, 6, 0}, ST(INCOMPATIBLE_SHAPES), {"ScatterElements needs indices of data's rank", "data has rank 2 (shape [4, 3]) but indices has rank 1 (shape [6])"}, 0},
    {"ScatterElements indices.shape[1] 4 > data's 3", SE, b_ishape, NULL, {2, 1, 4, 2, 1, 4}, ST(INCOMPATIBLE_SHAPES), {"ScatterElements on axis 0: indices dimension 1 is 4 but data's is 3"}, 0},
    {"Scatter indices rank 1, data rank 2", S9, b_ishape, NULL, {1, 6, 0, 1, 6, 0}, ST(INCOMPATIBLE_SHAPES), {"Scatter needs indices of data's rank", "data has rank 2 (shape [4, 3]) but indices has rank 1 (shape [6])"}, 0},
    {"Scatter indices.shape[1] 4 > data's 3", S9, b_ishape, NULL, {2, 1, 4, 2, 1, 4}, ST(INCOMPATIBLE_SHAPES), {"Scatter on axis 0: indices dimension 1 is 4 but data's is 3"}, 0},
    {"ScatterND tuple length 3 > data rank 2", ND, b_ishape, NULL, {2, 2, 3, 1, 2, 0}, ST(INCOMPATIBLE_SHAPES), {"the index tuple length, is 3", "with data of rank 2 it must be in [1, 2]"}, 0},
    {"ScatterND tuple length 0", ND, b_ishape, NULL, {2, 3, 0, 1, 3, 0}, ST(INCOMPATIBLE_SHAPES), {"the index tuple length, is 0"}, 0},
    {"ScatterND indices rank 0", ND, b_ishape, NULL, {0, 0, 0, 1, 3, 0}, ST(INVALID_RANK), {"indices has rank 0", "ScatterND needs indices of rank >= 1"}, 0},
    {"output shape [4, 2]", SE, b_shape, NULL, {3, 2, 4, 2}, ST(SHAPE_MISMATCH), {"output has shape [4, 2] but ScatterElements on axis 0 produces [4, 3]"}, 0},
    {"output shape [12] (ScatterND)", ND, b_shape, NULL, {3, 1, 12}, ST(SHAPE_MISMATCH), {"output has shape [12] but ScatterND produces [4, 3]"}, 0},
    {"output shape [4, 3, 1] (Scatter)", S9, b_shape, NULL, {3, 3, 4, 3, 1}, ST(SHAPE_MISMATCH), {"output has shape [4, 3, 1] but Scatter on axis 0 produces [4, 3]"}, 0},

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
    {"ScatterElements index 4 (int64)", SE, b_idx, NULL, {4, 4, NONE64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[4] (position [1, 1] " IN23 "4,", "axis 0 of data has size 4", RANGE4}, OOB},
    {"ScatterElements index -5 (int32)", SE, b_idx, NULL, {2, -5, NONE32}, ST(INDEX_OUT_OF_BOUNDS), {"indices[2] (position [0, 2] " IN23 "-5,", RANGE4}, OOB},
    {"ScatterElements index 4 (int32)", SE, b_idx, NULL, {0, 4, NONE32}, ST(INDEX_OUT_OF_BOUNDS), {"indices[0] (position [0, 0] " IN23 "4,", RANGE4}, OOB},
    {"ScatterElements index -5 (int64)", SE, b_idx, NULL, {5, -5, NONE64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[5] (position [1, 2] " IN23 "-5,", RANGE4}, OOB},
    {"ScatterElements two offenders: the first is named", SE, b_idx, NULL, {5, 9, 1, -7, 64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[1] (position [0, 1] " IN23 "-7,", RANGE4}, OOB},
    {"ScatterElements index INT64_MIN", SE, b_idx, NULL, {3, INT64_MIN, NONE64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[3] (position [1, 0] " IN23 "-9223372036854775808,", RANGE4}, OOB},
    {"ScatterElements index INT64_MAX", SE, b_idx, NULL, {0, INT64_MAX, NONE64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[0] (position [0, 0] " IN23 "9223372036854775807,", RANGE4}, OOB},
    {"ScatterElements index 4 under reduction add", SE, b_idx, NULL, {4, 4, -1, 0, 64, R(ADD)}, ST(INDEX_OUT_OF_BOUNDS), {"indices[4] (position [1, 1] " IN23 "4,", RANGE4}, OOB},
    {"ScatterElements axis -1: index 3", SE, b_axis1, NULL, {5, 3, NONE64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[5] (position [1, 2] " IN23 "3,", "axis 1 of data has size 3", RANGE3}, OOB},
    {"ScatterElements axis -1: index -4 (int32)", SE, b_axis1, NULL, {1, -4, NONE32}, ST(INDEX_OUT_OF_BOUNDS), {"indices[1] (position [0, 1] " IN23 "-4,", "axis 1 of data has size 3", RANGE3}, OOB},
    {"Scatter (opset 9) index 4", S9, b_idx, NULL, {4, 4, NONE64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[4] (position [1, 1] " IN23 "4,", RANGE4}, OOB},
    {"ScatterND component 0 = 4 (int64)", ND, b_idx, NULL, {0, 4, NONE64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[0] (position [0, 0] " IN32 "4,", COMP0, RANGE4}, OOB},
    {"ScatterND component 0 = -5 (int32)", ND, b_idx, NULL, {4, -5, NONE32}, ST(INDEX_OUT_OF_BOUNDS), {"indices[4] (position [2, 0] " IN32 "-5,", COMP0, RANGE4}, OOB},
    {"ScatterND component 1 = 3 (int64)", ND, b_idx, NULL, {5, 3, NONE64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[5] (position [2, 1] " IN32 "3,", COMP1, RANGE3}, OOB},
    {"ScatterND component 1 = -4 (int32)", ND, b_idx, NULL, {3, -4, NONE32}, ST(INDEX_OUT_OF_BOUNDS), {"indices[3] (position [1, 1] " IN32 "-4,", COMP1, RANGE3}, OOB},
    {"ScatterND component 1 = 3, valid for axis 0", ND, b_idx, NULL, {1, 3, NONE64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[1] (position [0, 1] " IN32 "3,", COMP1, RANGE3}, OOB},
    {"ScatterND component 0 = -5 under reduction mul", ND, b_idx, NULL, {2, -5, -1, 0, 64, R(MUL)}, ST(INDEX_OUT_OF_BOUNDS), {"indices[2] (position [1, 0] " IN32 "-5,", COMP0, RANGE4}, OOB},
    {"out of bounds wins over a duplicate", SE, b_idx, NULL, {4, -1, 5, 7, 64}, ST(INDEX_OUT_OF_BOUNDS), {"indices[5] (position [1, 2] " IN23 "7,", RANGE4}, OOB},

    /* ---- index values: repeated targets under reduction none */
    {"ScatterElements duplicate (int64)", SE, b_idx, NULL, {4, -1, NONE64}, ST(DUPLICATE_INDEX), {"indices[1] (position [0, 1]) and indices[4] (position [1, 1]) of indices of shape [2, 3]", "output element [3, 1]"}, OOB},
    {"ScatterElements duplicate (int32)", SE, b_idx, NULL, {3, -4, NONE32}, ST(DUPLICATE_INDEX), {"indices[0] (position [0, 0]) and indices[3] (position [1, 0])", "output element [0, 0]"}, OOB},
    {"ScatterElements duplicate, scatter params NULL", SE, b_idx, NULL, {4, -1, -1, 0, 64, 9}, ST(DUPLICATE_INDEX), {"indices[1] (position [0, 1]) and indices[4] (position [1, 1])", "output element [3, 1]"}, OOB},
    {"ScatterElements axis -1 duplicate", SE, b_axis1, NULL, {4, 2, NONE64}, ST(DUPLICATE_INDEX), {"indices[3] (position [1, 0]) and indices[4] (position [1, 1])", "output element [1, 2]", "axis 1"}, OOB},
    {"Scatter (opset 9) duplicate", S9, b_idx, NULL, {4, -1, NONE64}, ST(DUPLICATE_INDEX), {"indices[1] (position [0, 1]) and indices[4] (position [1, 1])", "output element [3, 1]"}, OOB},
    {"ScatterND duplicate tuples (int64)", ND, b_idx, NULL, {4, -4, 5, -2, 64}, ST(DUPLICATE_INDEX), {"index tuples 0 (position [0]) and 2 (position [2])", "slice data[0, 1]"}, OOB},
    {"ScatterND duplicate tuples (int32)", ND, b_idx, NULL, {4, 3, 5, 2, 32}, ST(DUPLICATE_INDEX), {"index tuples 1 (position [1]) and 2 (position [2])", "slice data[3, 2]"}, OOB},

    /* ---- over 32 KiB of indices: the device's index pass */
    {"ScatterND 4100 tuples: 4100 at tuple 3000", ND, b_large, NULL, {0, 3000, 4100}, ST(INDEX_OUT_OF_BOUNDS), {"indices[3000] (position [3000, 0] in indices of shape [4100, 1]) = 4100,", "component 0 of the index tuple indexes axis 0 of data, of size 4100", "valid range is [-4100, 4099]"}, OOB},
    {"ScatterND 4100 tuples: tuple 3001 repeats 17", ND, b_large, NULL, {0, 3001, 119}, ST(DUPLICATE_INDEX), {"index tuples 17 (position [17]) and 3001 (position [3001])", "slice data[119]"}, OOB},
    {"ScatterElements [2, 2050] on axis 1: -2051", SE, b_large, NULL, {1, 2055, -2051}, ST(INDEX_OUT_OF_BOUNDS), {"indices[2055] (position [1, 5] in indices of shape [2, 2050]) = -2051,", "axis 1 of data has size 2050", "valid range is [-2050, 2049]"}, OOB},
    {"ScatterElements [2, 2050] on axis 1: a repeat", SE, b_large, NULL, {1, 2150, 120}, ST(DUPLICATE_INDEX), {"indices[2090] (position [1, 40]) and indices[2150] (position [1, 100])", "output element [1, 120]"}, OOB},
};
/* clang-format on */

const size_t sct_ncases = sizeof sct_cases / sizeof sct_cases[0];
