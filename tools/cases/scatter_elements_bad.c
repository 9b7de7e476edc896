/* The scatter family's bad inputs (scatter.h): one catalogue of the
 * parameters, element types, shapes and index values ScatterElements,
 * ScatterND and Scatter reject, each with its status and the words of its
 * message, worked out by hand from the bases' values (positions, values,
 * ranges, targets), not taken from the library. The Criterion catalogue
 * (tests/check/test_scatter_catalogue.c, which adds what no table of
 * values can make: NULL arguments, the wrong entry point, storages,
 * overlaps, misaligned or small buffers, wait lists) and `clgather
 * selftest` (selftest_bad.c) run every entry. */
#include "cases/scatter.h"

#include <string.h>

#define SE CLG_OP_SCATTER_ELEMENTS
#define ND CLG_OP_SCATTER_ND
#define S9 CLG_OP_SCATTER
#define ST(x) .want = CLG_ERROR_##x
#define R(x) CLG_REDUCTION_##x
#define DT(x) CLG_DTYPE_##x
#define PARAMS(op, a, b, m) .params = true, .p = {op, a, b, m}
#define SP(red, dup) .set_sp = true, .sp = {red, dup}
#define SET1(pos, v) .set = {{pos, v}}, .nsets = 1
#define SET2(p1, v1, p2, v2) .set = {{p1, v1}, {p2, v2}}, .nsets = 2
#define I32 .indices_int32 = true
#define SHAPE(t, r, ...) .shape[t] = {true, r, {__VA_ARGS__}}
#define TYPE(t, dt) .dtype[t] = dt
#define TYPES(dt) TYPE(D, dt), TYPE(U, dt), TYPE(O, dt)
#define AXIS1                                                                  \
  .values = {0, 2, -2, -1, 1, 0}, .nvalues = 6, .set_axis = true, .axis = -1
#define D SCATTER_DATA
#define I SCATTER_INDICES
#define U SCATTER_UPDATES
#define O SCATTER_OUTPUT
#define MSG(s) .needles = s
#define RANGE4 "valid range is [-4, 3]"
#define RANGE3 "valid range is [-3, 2]"
#define IN23 "in indices of shape [2, 3]) = "
#define IN32 "in indices of shape [3, 2]) = "
#define COMP0 "component 0 of the index tuple indexes axis 0 of data, of size 4"
#define COMP1 "component 1 of the index tuple indexes axis 1 of data, of size 3"

/* clang-format off */
const scatter_bad scatter_bad_inputs[] = {
    /* ---- not a scatter; params */
    {"Gather given to clg_scatter", SE, PARAMS(CLG_OP_GATHER, 0, 0, 0), ST(INVALID_ARGUMENT), MSG("Gather is not a scatter;clg_run()")},
    {"GatherND given to clg_scatter", ND, PARAMS(CLG_OP_GATHER_ND, 0, 0, 0), ST(INVALID_ARGUMENT), MSG("GatherND is not a scatter")},
    {"unknown operator 42", SE, PARAMS(42, 0, 0, 0), ST(INVALID_ARGUMENT), MSG("unknown operator 42 in params->op")},
    {"ScatterElements axis 2 (rank 2)", SE, PARAMS(SE, 2, 0, 0), ST(INVALID_AXIS), MSG("axis 2 is out of range for data of rank 2;valid range is [-2, 1]")},
    {"ScatterElements axis -3", SE, PARAMS(SE, -3, 0, 0), ST(INVALID_AXIS), MSG("axis -3 is out of range for data of rank 2")},
    {"Scatter axis 7", S9, PARAMS(S9, 7, 0, 0), ST(INVALID_AXIS), MSG("axis 7 is out of range")},
    {"ScatterND axis 1", ND, PARAMS(ND, 1, 0, 0), ST(INVALID_ARGUMENT), MSG("ScatterND takes no axis (got 1)")},
    {"ScatterElements batch_dims 1", SE, PARAMS(SE, 0, 1, 0), ST(INVALID_ARGUMENT), MSG("ScatterElements takes no batch_dims (got 1)")},
    {"ScatterND mode CLIP", ND, PARAMS(ND, 0, 0, CLG_MODE_CLIP), ST(INVALID_ARGUMENT), MSG("ScatterND takes no index mode")},
    {"unknown reduction 5", SE, SP(5, 0), ST(INVALID_ARGUMENT), MSG("unknown reduction 5")},
    {"unknown reduction -1", ND, SP(-1, 0), ST(INVALID_ARGUMENT), MSG("unknown reduction -1")},
    {"unknown duplicates rule 2", ND, SP(0, 2), ST(INVALID_ARGUMENT), MSG("unknown duplicates rule 2")},
    {"unknown duplicates rule 7 under add", SE, SP(R(ADD), 7), ST(INVALID_ARGUMENT), MSG("unknown duplicates rule 7")},
    {"Scatter (opset 9) with reduction add", S9, SP(R(ADD), 0), ST(INVALID_ARGUMENT), MSG("Scatter (opsets 9, 10) takes no reduction")},

    /* ---- element types */
    {"reduction min on complex64", SE, TYPES(DT(COMPLEX64)), SP(R(MIN), 0), ST(UNSUPPORTED_DTYPE), MSG("reduction min is not defined on complex numbers (complex64)")},
    {"reduction max on complex128", ND, TYPES(DT(COMPLEX128)), SP(R(MAX), 0), ST(UNSUPPORTED_DTYPE), MSG("reduction max is not defined on complex numbers (complex128)")},
    {"data of type string", SE, TYPES(DT(STRING)), ST(UNSUPPORTED_DTYPE), MSG("data has element type string")},
    {"indices of type float", ND, TYPE(I, DT(FLOAT)), ST(INVALID_INDICES_DTYPE), MSG("indices has element type 1 (float)")},
    {"updates int32, data float", SE, TYPE(U, DT(INT32)), ST(DTYPE_MISMATCH), MSG("updates has element type int32 but data has float")},
    {"updates double, data float (ScatterND)", ND, TYPE(U, DT(DOUBLE)), ST(DTYPE_MISMATCH), MSG("updates has element type double but data has float")},
    {"output double, data float", SE, TYPE(O, DT(DOUBLE)), ST(DTYPE_MISMATCH), MSG("output has element type double but data has float")},

    /* ---- shapes */
    {"ScatterElements updates [2, 2]", SE, SHAPE(U, 2, 2, 2), ST(INCOMPATIBLE_SHAPES), MSG("ScatterElements: updates has shape [2, 2] but indices has [2, 3]")},
    {"ScatterElements updates [2, 3, 1]", SE, SHAPE(U, 3, 2, 3, 1), ST(INCOMPATIBLE_SHAPES), MSG("updates has shape [2, 3, 1] but indices has [2, 3]")},
    {"Scatter updates [3, 2]", S9, SHAPE(U, 2, 3, 2), ST(INCOMPATIBLE_SHAPES), MSG("Scatter: updates has shape [3, 2] but indices has [2, 3]")},
    {"ScatterND updates [2]", ND, SHAPE(U, 1, 2), ST(INCOMPATIBLE_SHAPES), MSG("updates has shape [2] but indices.shape[:-1] + data.shape[2:] is [3]")},
    {"ScatterND updates [3, 3]", ND, SHAPE(U, 2, 3, 3), ST(INCOMPATIBLE_SHAPES), MSG("updates has shape [3, 3];is [3]")},
    {"updates with a negative dimension", SE, SHAPE(U, 2, 2, -3), ST(INVALID_SHAPE), MSG("updates has a negative dimension: shape[1] = -3")},
    {"updates of 2^80 elements", ND, SHAPE(U, 2, (int64_t)1 << 40, (int64_t)1 << 40), ST(SIZE_OVERFLOW), MSG("updates of shape;overflows size_t")},
    {"ScatterElements indices rank 1, data rank 2", SE, SHAPE(I, 1, 6), SHAPE(U, 1, 6), ST(INCOMPATIBLE_SHAPES), MSG("ScatterElements needs indices of data's rank;data has rank 2 (shape [4, 3]) but indices has rank 1 (shape [6])")},
    {"ScatterElements indices.shape[1] 4 > data's 3", SE, SHAPE(I, 2, 1, 4), SHAPE(U, 2, 1, 4), ST(INCOMPATIBLE_SHAPES), MSG("ScatterElements on axis 0: indices dimension 1 is 4 but data's is 3")},
    {"Scatter indices rank 1, data rank 2", S9, SHAPE(I, 1, 6), SHAPE(U, 1, 6), ST(INCOMPATIBLE_SHAPES), MSG("Scatter needs indices of data's rank;data has rank 2 (shape [4, 3]) but indices has rank 1 (shape [6])")},
    {"Scatter indices.shape[1] 4 > data's 3", S9, SHAPE(I, 2, 1, 4), SHAPE(U, 2, 1, 4), ST(INCOMPATIBLE_SHAPES), MSG("Scatter on axis 0: indices dimension 1 is 4 but data's is 3")},
    {"ScatterND tuple length 3 > data rank 2", ND, SHAPE(I, 2, 2, 3), SHAPE(U, 1, 2), ST(INCOMPATIBLE_SHAPES), MSG("the index tuple length, is 3;with data of rank 2 it must be in [1, 2]")},
    {"ScatterND tuple length 0", ND, SHAPE(I, 2, 3, 0), SHAPE(U, 1, 3), ST(INCOMPATIBLE_SHAPES), MSG("the index tuple length, is 0")},
    {"ScatterND indices rank 0", ND, SHAPE(I, 0, 0), SHAPE(U, 1, 3), ST(INVALID_RANK), MSG("indices has rank 0;ScatterND needs indices of rank >= 1")},
    {"output shape [4, 2]", SE, SHAPE(O, 2, 4, 2), ST(SHAPE_MISMATCH), MSG("output has shape [4, 2] but ScatterElements on axis 0 produces [4, 3]")},
    {"output shape [12] (ScatterND)", ND, SHAPE(O, 1, 12), ST(SHAPE_MISMATCH), MSG("output has shape [12] but ScatterND produces [4, 3]")},
    {"output shape [4, 3, 1] (Scatter)", S9, SHAPE(O, 3, 4, 3, 1), ST(SHAPE_MISMATCH), MSG("output has shape [4, 3, 1] but Scatter on axis 0 produces [4, 3]")},

    /* ---- index values: out of bounds */
    {"ScatterElements index 4 (int64)", SE, SET1(4, 4), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[4] (position [1, 1] " IN23 "4,;axis 0 of data has size 4;" RANGE4)},
    {"ScatterElements index -5 (int32)", SE, SET1(2, -5), I32, ST(INDEX_OUT_OF_BOUNDS), MSG("indices[2] (position [0, 2] " IN23 "-5,;" RANGE4)},
    {"ScatterElements index 4 (int32)", SE, SET1(0, 4), I32, ST(INDEX_OUT_OF_BOUNDS), MSG("indices[0] (position [0, 0] " IN23 "4,;" RANGE4)},
    {"ScatterElements index -5 (int64)", SE, SET1(5, -5), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[5] (position [1, 2] " IN23 "-5,;" RANGE4)},
    {"ScatterElements two offenders: the first is named", SE, SET2(5, 9, 1, -7), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[1] (position [0, 1] " IN23 "-7,;" RANGE4)},
    {"ScatterElements index INT64_MIN", SE, SET1(3, INT64_MIN), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[3] (position [1, 0] " IN23 "-9223372036854775808,;" RANGE4)},
    {"ScatterElements index INT64_MAX", SE, SET1(0, INT64_MAX), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[0] (position [0, 0] " IN23 "9223372036854775807,;" RANGE4)},
    {"ScatterElements index 4 under reduction add", SE, SET1(4, 4), SP(R(ADD), 0), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[4] (position [1, 1] " IN23 "4,;" RANGE4)},
    {"ScatterElements axis -1: index 3", SE, AXIS1, SET1(5, 3), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[5] (position [1, 2] " IN23 "3,;axis 1 of data has size 3;" RANGE3)},
    {"ScatterElements axis -1: index -4 (int32)", SE, AXIS1, SET1(1, -4), I32, ST(INDEX_OUT_OF_BOUNDS), MSG("indices[1] (position [0, 1] " IN23 "-4,;axis 1 of data has size 3;" RANGE3)},
    {"Scatter (opset 9) index 4", S9, SET1(4, 4), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[4] (position [1, 1] " IN23 "4,;" RANGE4)},
    {"ScatterND component 0 = 4 (int64)", ND, SET1(0, 4), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[0] (position [0, 0] " IN32 "4,;" COMP0 ";" RANGE4)},
    {"ScatterND component 0 = -5 (int32)", ND, SET1(4, -5), I32, ST(INDEX_OUT_OF_BOUNDS), MSG("indices[4] (position [2, 0] " IN32 "-5,;" COMP0 ";" RANGE4)},
    {"ScatterND component 1 = 3 (int64)", ND, SET1(5, 3), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[5] (position [2, 1] " IN32 "3,;" COMP1 ";" RANGE3)},
    {"ScatterND component 1 = -4 (int32)", ND, SET1(3, -4), I32, ST(INDEX_OUT_OF_BOUNDS), MSG("indices[3] (position [1, 1] " IN32 "-4,;" COMP1 ";" RANGE3)},
    {"ScatterND component 1 = 3, valid for axis 0", ND, SET1(1, 3), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[1] (position [0, 1] " IN32 "3,;" COMP1 ";" RANGE3)},
    {"ScatterND component 0 = -5 under reduction mul", ND, SET1(2, -5), SP(R(MUL), 0), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[2] (position [1, 0] " IN32 "-5,;" COMP0 ";" RANGE4)},
    {"out of bounds wins over a duplicate", SE, SET2(4, -1, 5, 7), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[5] (position [1, 2] " IN23 "7,;" RANGE4)},

    /* ---- index values: repeated targets under reduction none */
    {"ScatterElements duplicate (int64)", SE, SET1(4, -1), ST(DUPLICATE_INDEX), MSG("indices[1] (position [0, 1]) and indices[4] (position [1, 1]) of indices of shape [2, 3];output element [3, 1]")},
    {"ScatterElements duplicate (int32)", SE, SET1(3, -4), I32, ST(DUPLICATE_INDEX), MSG("indices[0] (position [0, 0]) and indices[3] (position [1, 0]);output element [0, 0]")},
    {"ScatterElements duplicate, scatter params NULL", SE, SET1(4, -1), .sp_null = true, ST(DUPLICATE_INDEX), MSG("indices[1] (position [0, 1]) and indices[4] (position [1, 1]);output element [3, 1]")},
    {"ScatterElements axis -1 duplicate", SE, AXIS1, SET1(4, 2), ST(DUPLICATE_INDEX), MSG("indices[3] (position [1, 0]) and indices[4] (position [1, 1]);output element [1, 2];axis 1")},
    {"Scatter (opset 9) duplicate", S9, SET1(4, -1), ST(DUPLICATE_INDEX), MSG("indices[1] (position [0, 1]) and indices[4] (position [1, 1]);output element [3, 1]")},
    {"ScatterND duplicate tuples (int64)", ND, SET2(4, -4, 5, -2), ST(DUPLICATE_INDEX), MSG("index tuples 0 (position [0]) and 2 (position [2]);slice data[0, 1]")},
    {"ScatterND duplicate tuples (int32)", ND, SET2(4, 3, 5, 2), I32, ST(DUPLICATE_INDEX), MSG("index tuples 1 (position [1]) and 2 (position [2]);slice data[3, 2]")},

    /* ---- over 32 KiB of indices: the device's index pass */
    {"ScatterND 4100 tuples: 4100 at tuple 3000", ND, .large = 1, SET1(3000, 4100), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[3000] (position [3000, 0] in indices of shape [4100, 1]) = 4100,;component 0 of the index tuple indexes axis 0 of data, of size 4100;valid range is [-4100, 4099]")},
    {"ScatterND 4100 tuples: tuple 3001 repeats 17", ND, .large = 1, SET1(3001, 119), ST(DUPLICATE_INDEX), MSG("index tuples 17 (position [17]) and 3001 (position [3001]);slice data[119]")},
    {"ScatterElements [2, 2050] on axis 1: -2051", SE, .large = 2, SET1(2055, -2051), ST(INDEX_OUT_OF_BOUNDS), MSG("indices[2055] (position [1, 5] in indices of shape [2, 2050]) = -2051,;axis 1 of data has size 2050;valid range is [-2050, 2049]")},
    {"ScatterElements [2, 2050] on axis 1: a repeat", SE, .large = 2, SET1(2150, 120), ST(DUPLICATE_INDEX), MSG("indices[2090] (position [1, 40]) and indices[2150] (position [1, 100]);output element [1, 120]")},
};
/* clang-format on */
const size_t scatter_bad_count =
    sizeof scatter_bad_inputs / sizeof scatter_bad_inputs[0];

bool scatter_bad_in_values(const scatter_bad *e) {
  return e->want == CLG_ERROR_INDEX_OUT_OF_BOUNDS ||
         e->want == CLG_ERROR_DUPLICATE_INDEX;
}

static void set_shape(scatter_bad_call *call, int t, int32_t rank,
                      const int64_t *dims) {
  int32_t given = rank < 0 ? 0 : rank < 4 ? rank : 4;
  call->rank[t] = rank;
  for (int32_t k = 0; k < CLG_MAX_RANK; ++k)
    call->shape[t][k] = k < given ? dims[k] : 1;
}

static void put_float(unsigned char *dst, int64_t k, float v) {
  memcpy(dst + 4 * (size_t)k, &v, 4);
}

/* The large entries' values and shapes (scatter_bad::large). */
static void make_large(scatter_bad_call *call, int large, int64_t *v) {
  bool se = large == 2;
  int64_t s = se ? 2050 : 4100, mul = se ? 3 : 7;
  const int64_t ds[2] = {se ? 2 : 4100, se ? 2050 : 2};
  const int64_t is[2] = {se ? 2 : 4100, se ? 2050 : 1};
  int64_t n = is[0] * is[1];
  for (int64_t e = 0; e < n; ++e) {
    int64_t j = se ? e % 2050 : e, x = (j * mul) % s;
    v[e] = j % 2 ? x - s : x;
  }
  for (int64_t k = 0; k < ds[0] * ds[1]; ++k) {
    put_float(call->data, k, (float)k);
    put_float(call->updates, k, -(float)k);
  }
  set_shape(call, SCATTER_DATA, 2, ds);
  set_shape(call, SCATTER_OUTPUT, 2, ds);
  set_shape(call, SCATTER_INDICES, 2, is);
  set_shape(call, SCATTER_UPDATES, 2, se ? is : ds);
  call->p.axis = se ? 1 : 0;
}

void scatter_bad_make(const scatter_bad *e, scatter_bad_call *call) {
  static const int64_t ds[2] = {4, 3}, se_is[2] = {2, 3}, nd_is[2] = {3, 2},
                       nd_us[1] = {3};
  static const int64_t se_idx[6] = {0, 3, -2, 2, -4, 1};
  static const int64_t nd_idx[6] = {0, 1, 3, -1, -2, 0};
  int64_t v[SCATTER_BAD_CAP / 8];
  memset(call, 0, sizeof *call);
  bool nd = e->op == CLG_OP_SCATTER_ND;
  call->p = (clg_params){e->op, 0, 0, CLG_MODE_RAISE};
  call->sp = (clg_scatter_params){CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
  for (int k = 0; k < 12; ++k) {
    put_float(call->data, k, 100.0f + (float)k);
    put_float(call->updates, k, -0.5f * (float)(k + 1));
  }
  for (int t = 0; t < 4; ++t)
    call->dtype[t] = CLG_DTYPE_FLOAT;
  call->dtype[SCATTER_INDICES] = CLG_DTYPE_INT64;
  set_shape(call, SCATTER_DATA, 2, ds);
  set_shape(call, SCATTER_OUTPUT, 2, ds);
  set_shape(call, SCATTER_INDICES, 2, nd ? nd_is : se_is);
  if (nd)
    set_shape(call, SCATTER_UPDATES, 1, nd_us);
  else
    set_shape(call, SCATTER_UPDATES, 2, se_is);
  memset(v, 0, sizeof v);
  memcpy(v, nd ? nd_idx : se_idx, sizeof se_idx);
  if (e->large)
    make_large(call, e->large, v);
  for (int k = 0; k < e->nvalues; ++k)
    v[k] = e->values[k];
  for (int k = 0; k < e->nsets; ++k)
    v[e->set[k].pos] = e->set[k].value;
  if (e->params)
    call->p = e->p;
  if (e->set_axis)
    call->p.axis = e->axis;
  if (e->set_sp)
    call->sp = e->sp;
  call->sp_null = e->sp_null;
  if (e->indices_int32)
    call->dtype[SCATTER_INDICES] = CLG_DTYPE_INT32;
  for (int64_t k = 0; k < (int64_t)(SCATTER_BAD_CAP / 8); ++k)
    case_set_index(call->indices, call->dtype[SCATTER_INDICES], k, v[k]);
  for (int t = 0; t < 4; ++t) {
    if (e->shape[t].set)
      set_shape(call, t, e->shape[t].rank, e->shape[t].dims);
    if (e->dtype[t] != 0)
      call->dtype[t] = e->dtype[t];
  }
}
