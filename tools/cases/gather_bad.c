/* The gather family's bad inputs (gather.h): one catalogue of the index
 * values, parameters, shapes and element types Gather, GatherElements and
 * GatherND reject, each with its status and the words of its message. The
 * Criterion catalogue (tests/check/test_catalogue.c, which adds what no
 * table of values can make: NULL arguments, storages, other cl_contexts,
 * overlaps, small buffers, sizes that overflow, OpenCL failures) and
 * `clgather selftest` (selftest_bad.c) run every entry. */
#include "cases/gather.h"

#include <string.h>

#define S(x) CLG_ERROR_##x
#define RAISE CLG_MODE_RAISE
#define GATHER(a) .p = {CLG_OP_GATHER, a, 0, RAISE}
#define GATHER_EX(a, b, m) .p = {CLG_OP_GATHER, a, b, m}
#define ELEMENTS(a) .p = {CLG_OP_GATHER_ELEMENTS, a, 0, RAISE}
#define ND(b) .p = {CLG_OP_GATHER_ND, 0, b, RAISE}
#define PARAMS(op, a, b, m) .p = {op, a, b, m}
#define SET1(pos, v) .set = {{pos, v}}, .nsets = 1
#define SET2(p1, v1, p2, v2) .set = {{p1, v1}, {p2, v2}}, .nsets = 2
#define SHAPE(t, r, ...) .shape[t] = {true, r, {__VA_ARGS__}}
#define RANK(t, r) .shape[t] = {true, r, {0}}
#define TYPE(t, dt) .dtype[t] = dt
#define D GATHER_DATA
#define I GATHER_INDICES
#define O GATHER_OUTPUT
#define OOB_IN_BASE "in indices of shape [2, 3]"
#define RANGE5 "valid range is [-5, 4]"

/* clang-format off */
const gather_bad gather_bad_inputs[] = {
    /* ---- Gather: index values outside [-s, s-1] (s = 5 unless said) */
    {"Gather: OOB first position, positive (s)", GATHER(0), SET1(0, 5),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[0] (position [0, 0] " OOB_IN_BASE ") = 5;" RANGE5},
    {"Gather: OOB first position, negative (-s-1)", GATHER(0), SET1(0, -6),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[0] (position [0, 0] " OOB_IN_BASE ") = -6;" RANGE5},
    {"Gather: OOB middle position, positive", GATHER(0), SET1(2, 5),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[2] (position [0, 2] " OOB_IN_BASE ") = 5;" RANGE5},
    {"Gather: OOB middle position, negative", GATHER(0), SET1(3, -6),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[3] (position [1, 0] " OOB_IN_BASE ") = -6;" RANGE5},
    {"Gather: OOB last position, positive", GATHER(0), SET1(5, 5),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[5] (position [1, 2] " OOB_IN_BASE ") = 5;" RANGE5},
    {"Gather: OOB last position, negative", GATHER(0), SET1(5, -6),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[5] (position [1, 2] " OOB_IN_BASE ") = -6;" RANGE5},
    {"Gather: OOB INT64_MIN", GATHER(0), SET1(4, INT64_MIN),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[4];= -9223372036854775808;" RANGE5},
    {"Gather: OOB INT64_MAX", GATHER(0), SET1(1, INT64_MAX),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[1];= 9223372036854775807;" RANGE5},
    {"Gather: OOB INT32_MIN (int32 indices)", GATHER(0), SET1(2, INT32_MIN),
     .indices_int32 = true, .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[2];= -2147483648;" RANGE5},
    {"Gather: OOB INT32_MAX (int32 indices)", GATHER(0), SET1(5, INT32_MAX),
     .indices_int32 = true, .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[5];= 2147483647;" RANGE5},
    {"Gather: OOB int32 first position, -s-1", GATHER(0), SET1(0, -6),
     .indices_int32 = true, .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[0];= -6;" RANGE5},
    {"Gather: OOB int32 last position, s", GATHER(0), SET1(5, 5),
     .indices_int32 = true, .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[5];= 5;" RANGE5},
    {"Gather: OOB several, the first is named", GATHER(0),
     SET2(3, 1000, 1, -1000), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[1];= -1000;" RANGE5},
    {"Gather: OOB scalar index (indices rank 0)", GATHER(0), SET1(0, 5),
     RANK(I, 0), SHAPE(O, 1, 3), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[0] (position [] in indices of shape []) = 5;" RANGE5},
    {"Gather: OOB on axis -1 (s = 3)", GATHER(-1),
     .values = {0, 1, -3, 2, -1, 2}, .nvalues = 6, SET1(2, 3),
     SHAPE(O, 3, 5, 2, 3), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[2];= 3, but axis 1 of data has size 3;"
                "valid range is [-3, 2]"},
    {"Gather: s == 0 with non-empty indices (axis 0)", GATHER(0), SET1(0, 0),
     SHAPE(D, 2, 0, 3), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[0];= 0, but axis 0 of data has size 0;"
                "no index is valid"},
    {"Gather: s == 0 with non-empty indices (axis 1, index -1)", GATHER(1),
     SET1(0, -1), SHAPE(D, 2, 5, 0), SHAPE(O, 3, 5, 2, 3),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[0];= -1, but axis 1 of data has size 0"},
    {"Gather: mode WRAP on an axis of size 0", GATHER_EX(1, 0, CLG_MODE_WRAP),
     SHAPE(D, 2, 5, 0), SHAPE(O, 3, 5, 2, 3), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "axis 1 of data has size 0, so mode wrap has no position to "
                "map the 6 indices to"},
    {"Gather: mode CLIP on an axis of size 0", GATHER_EX(0, 0, CLG_MODE_CLIP),
     SHAPE(D, 2, 0, 3), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "axis 0 of data has size 0, so mode clip has no position"},

    /* ---- Gather: axis, batch_dims, mode */
    {"Gather: axis 2 (= rank)", GATHER(2), .want = S(INVALID_AXIS),
     .needles = "axis 2 is out of range;[-2, 1]"},
    {"Gather: axis -3 (= -rank - 1)", GATHER(-3), .want = S(INVALID_AXIS),
     .needles = "axis -3 is out of range;[-2, 1]"},
    {"Gather: axis INT64_MAX", GATHER(INT64_MAX), .want = S(INVALID_AXIS),
     .needles = "axis 9223372036854775807 is out of range"},
    {"Gather: axis INT64_MIN", GATHER(INT64_MIN), .want = S(INVALID_AXIS),
     .needles = "axis -9223372036854775808 is out of range"},
    {"Gather: axis 1 with the axis-0 output shape", GATHER(1),
     .want = S(SHAPE_MISMATCH), .needles = "on axis 1 produces [5, 2, 3]"},
    {"Gather: batch_dims 3 > q", GATHER_EX(0, 3, RAISE),
     .want = S(INVALID_BATCH_DIMS),
     .needles = "batch_dims 3 is out of range for indices of rank 2: valid "
                "range is [-2, 2]"},
    {"Gather: batch_dims -3 < -q", GATHER_EX(0, -3, RAISE),
     .want = S(INVALID_BATCH_DIMS),
     .needles = "batch_dims -3 is out of range;[-2, 2]"},
    {"Gather: batch_dims 1 > axis 0", GATHER_EX(0, 1, RAISE),
     .want = S(INVALID_BATCH_DIMS),
     .needles = "batch_dims 1 must not exceed axis 0"},
    {"Gather: batch_dims -1 (= 1) > axis 0", GATHER_EX(0, -1, CLG_MODE_WRAP),
     .want = S(INVALID_BATCH_DIMS),
     .needles = "batch_dims 1 must not exceed axis 0"},
    {"Gather: batch dims differ (5 vs 2)", GATHER_EX(1, 1, RAISE),
     SHAPE(O, 3, 5, 2, 3), .want = S(INCOMPATIBLE_SHAPES),
     .needles = "Gather with batch_dims 1: batch dimension 0 differs, data "
                "has 5 and indices has 2"},
    {"params: unknown op 42", PARAMS(42, 0, 0, RAISE),
     .want = S(INVALID_ARGUMENT), .needles = "unknown operator 42 in params->op"},
    {"params: unknown mode 9", PARAMS(CLG_OP_GATHER, 0, 0, 9),
     .want = S(INVALID_ARGUMENT), .needles = "unknown index mode 9"},

    /* ---- Gather: ranks, dimensions, element types, output shape */
    {"Gather: data rank 0", GATHER(0), RANK(D, 0), .want = S(INVALID_RANK),
     .needles = "data has rank 0;>= 1"},
    {"Gather: data rank -1", GATHER(0), RANK(D, -1), .want = S(INVALID_RANK),
     .needles = "data has rank -1"},
    {"Gather: data rank 17", GATHER(0), SHAPE(D, 17, 5, 3, 1, 1),
     .want = S(INVALID_RANK), .needles = "data has rank 17;[0, 16]"},
    {"Gather: indices rank 17", GATHER(0), SHAPE(I, 17, 2, 3, 1, 1),
     .want = S(INVALID_RANK), .needles = "indices has rank 17;[0, 16]"},
    {"Gather: indices rank -2", GATHER(0), RANK(I, -2),
     .want = S(INVALID_RANK), .needles = "indices has rank -2"},
    {"Gather: output rank 17", GATHER(0), SHAPE(O, 17, 2, 3, 3, 1),
     .want = S(INVALID_RANK), .needles = "output has rank 17;[0, 16]"},
    {"Gather: output rank -1", GATHER(0), RANK(O, -1),
     .want = S(INVALID_RANK), .needles = "output has rank -1"},
    {"Gather: data dim -3", GATHER(0), SHAPE(D, 2, 5, -3),
     .want = S(INVALID_SHAPE),
     .needles = "data has a negative dimension: shape[1] = -3"},
    {"Gather: data dim INT64_MIN", GATHER(0), SHAPE(D, 2, INT64_MIN, 3),
     .want = S(INVALID_SHAPE),
     .needles = "data has a negative dimension: shape[0] = "
                "-9223372036854775808"},
    {"Gather: indices dim -1", GATHER(0), SHAPE(I, 2, -1, 3),
     .want = S(INVALID_SHAPE),
     .needles = "indices has a negative dimension: shape[0] = -1"},
    {"Gather: output dim -3", GATHER(0), SHAPE(O, 3, 2, 3, -3),
     .want = S(INVALID_SHAPE),
     .needles = "output has a negative dimension: shape[2] = -3"},
    {"Gather: data dtype string", GATHER(0), TYPE(D, CLG_DTYPE_STRING),
     TYPE(O, CLG_DTYPE_STRING), .want = S(UNSUPPORTED_DTYPE),
     .needles = "data has element type string"},
    {"Gather: data dtype 99", GATHER(0), TYPE(D, 99),
     .want = S(UNSUPPORTED_DTYPE),
     .needles = "data has unsupported element type 99 (unknown)"},
    {"Gather: data dtype -1", GATHER(0), TYPE(D, -1),
     .want = S(UNSUPPORTED_DTYPE),
     .needles = "data has unsupported element type -1"},
    {"Gather: indices dtype float", GATHER(0), TYPE(I, CLG_DTYPE_FLOAT),
     .want = S(INVALID_INDICES_DTYPE),
     .needles = "indices has element type 1 (float);int32 or int64"},
    {"Gather: indices dtype double", GATHER(0), TYPE(I, CLG_DTYPE_DOUBLE),
     .want = S(INVALID_INDICES_DTYPE), .needles = "(double)"},
    {"Gather: indices dtype float16", GATHER(0), TYPE(I, CLG_DTYPE_FLOAT16),
     .want = S(INVALID_INDICES_DTYPE), .needles = "(float16)"},
    {"Gather: indices dtype int16", GATHER(0), TYPE(I, CLG_DTYPE_INT16),
     .want = S(INVALID_INDICES_DTYPE), .needles = "(int16)"},
    {"Gather: indices dtype uint32", GATHER(0), TYPE(I, CLG_DTYPE_UINT32),
     .want = S(INVALID_INDICES_DTYPE), .needles = "(uint32)"},
    {"Gather: indices dtype uint64", GATHER(0), TYPE(I, CLG_DTYPE_UINT64),
     .want = S(INVALID_INDICES_DTYPE), .needles = "(uint64)"},
    {"Gather: indices dtype bool", GATHER(0), TYPE(I, CLG_DTYPE_BOOL),
     .want = S(INVALID_INDICES_DTYPE), .needles = "(bool)"},
    {"Gather: indices dtype string", GATHER(0), TYPE(I, CLG_DTYPE_STRING),
     .want = S(INVALID_INDICES_DTYPE), .needles = "(string)"},
    {"Gather: output dtype int32 for float data", GATHER(0),
     TYPE(O, CLG_DTYPE_INT32), .want = S(DTYPE_MISMATCH),
     .needles = "output has element type int32 but data has float"},
    {"Gather: output dtype double for float data", GATHER(0),
     TYPE(O, CLG_DTYPE_DOUBLE), .want = S(DTYPE_MISMATCH),
     .needles = "output has element type double"},
    {"Gather: output dtype string for float data", GATHER(0),
     TYPE(O, CLG_DTYPE_STRING), .want = S(DTYPE_MISMATCH),
     .needles = "output has element type string"},
    {"Gather: output rank 2 [6, 3]", GATHER(0), SHAPE(O, 2, 6, 3),
     .want = S(SHAPE_MISMATCH),
     .needles = "output has shape [6, 3];produces [2, 3, 3]"},
    {"Gather: output rank 4 [2, 3, 3, 1]", GATHER(0), SHAPE(O, 4, 2, 3, 3, 1),
     .want = S(SHAPE_MISMATCH), .needles = "output has shape [2, 3, 3, 1]"},
    {"Gather: output [2, 3, 4]", GATHER(0), SHAPE(O, 3, 2, 3, 4),
     .want = S(SHAPE_MISMATCH), .needles = "output has shape [2, 3, 4]"},
    {"Gather: output [3, 2, 3] (same count)", GATHER(0), SHAPE(O, 3, 3, 2, 3),
     .want = S(SHAPE_MISMATCH), .needles = "output has shape [3, 2, 3]"},
    {"Gather: output [2, 3, 0] (empty)", GATHER(0), SHAPE(O, 3, 2, 3, 0),
     .want = S(SHAPE_MISMATCH), .needles = "output has shape [2, 3, 0]"},
    {"Gather: output rank 0", GATHER(0), RANK(O, 0),
     .want = S(SHAPE_MISMATCH), .needles = "output has shape []"},

    /* ---- GatherElements (base indices [2, 3], axis 0, output [2, 3]) */
    {"GatherElements: indices rank 1, data rank 2", ELEMENTS(0),
     SHAPE(I, 1, 6), SHAPE(O, 1, 6), .want = S(INCOMPATIBLE_SHAPES),
     .needles = "GatherElements needs indices of data's rank;data has rank 2 "
                "(shape [5, 3]) but indices has rank 1 (shape [6])"},
    {"GatherElements: indices rank 3, data rank 2", ELEMENTS(0),
     SHAPE(I, 3, 2, 3, 1), SHAPE(O, 3, 2, 3, 1),
     .want = S(INCOMPATIBLE_SHAPES),
     .needles = "indices has rank 3 (shape [2, 3, 1])"},
    {"GatherElements: indices dim 1 is 4 > 3 (axis 0)", ELEMENTS(0),
     SHAPE(I, 2, 2, 4), SHAPE(O, 2, 2, 4), .want = S(INCOMPATIBLE_SHAPES),
     .needles = "GatherElements on axis 0: indices dimension 1 is 4 but "
                "data's is 3"},
    {"GatherElements: indices dim 0 is 6 > 5 (axis -1)", ELEMENTS(-1),
     SHAPE(I, 2, 6, 2), SHAPE(O, 2, 6, 2), .want = S(INCOMPATIBLE_SHAPES),
     .needles = "GatherElements on axis 1: indices dimension 0 is 6 but "
                "data's is 5"},
    {"GatherElements: axis 2 (= rank)", ELEMENTS(2), .want = S(INVALID_AXIS),
     .needles = "axis 2 is out of range;[-2, 1]"},
    {"GatherElements: axis -3 (= -rank - 1)", ELEMENTS(-3),
     .want = S(INVALID_AXIS), .needles = "axis -3 is out of range;[-2, 1]"},
    {"GatherElements: output [2, 3, 3] (Gather's shape)", ELEMENTS(0),
     SHAPE(O, 3, 2, 3, 3), .want = S(SHAPE_MISMATCH),
     .needles = "output has shape [2, 3, 3] but GatherElements on axis 0 "
                "produces [2, 3]"},
    {"GatherElements: OOB first position (s)", ELEMENTS(0), SET1(0, 5),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[0] (position [0, 0] " OOB_IN_BASE ") = 5;"
                "but axis 0 of data has size 5;" RANGE5},
    {"GatherElements: OOB middle position (-s-1)", ELEMENTS(0), SET1(2, -6),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[2] (position [0, 2] " OOB_IN_BASE ") = -6;" RANGE5},
    {"GatherElements: OOB last position", ELEMENTS(0), SET1(5, 5),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[5] (position [1, 2] " OOB_IN_BASE ") = 5;" RANGE5},
    {"GatherElements: OOB INT64_MIN", ELEMENTS(0), SET1(3, INT64_MIN),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[3];= -9223372036854775808;" RANGE5},
    {"GatherElements: OOB INT64_MAX", ELEMENTS(0), SET1(4, INT64_MAX),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[4];= 9223372036854775807;" RANGE5},
    {"GatherElements: OOB INT32_MIN (int32 indices)", ELEMENTS(0),
     SET1(1, INT32_MIN), .indices_int32 = true,
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[1];= -2147483648;" RANGE5},
    {"GatherElements: OOB several, the first is named", ELEMENTS(0),
     SET2(4, 99, 2, -99), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[2];= -99"},
    {"GatherElements: OOB on axis -1 (s = 3)", ELEMENTS(-1),
     .values = {0, 1, -3, 2, -1, 2}, .nvalues = 6, SET1(4, -4),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[4] (position [1, 1] " OOB_IN_BASE ") = -4;"
                "but axis 1 of data has size 3: valid range is [-3, 2]"},
    {"GatherElements: s == 0 with non-empty indices", ELEMENTS(1),
     SHAPE(D, 2, 5, 0), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[0] (position [0, 0] " OOB_IN_BASE ") = 0;"
                "axis 1 of data has size 0: no index is valid"},
    {"GatherElements: batch_dims 1",
     PARAMS(CLG_OP_GATHER_ELEMENTS, 0, 1, RAISE), .want = S(INVALID_ARGUMENT),
     .needles = "GatherElements takes no batch_dims (got 1)"},
    {"GatherElements: mode WRAP",
     PARAMS(CLG_OP_GATHER_ELEMENTS, 0, 0, CLG_MODE_WRAP),
     .want = S(INVALID_ARGUMENT),
     .needles = "GatherElements takes no index mode"},

    /* ---- GatherND (base indices [3, 2] = {0, 1, 4, 2, -5, -3}, output
     * [3]) */
    {"GatherND: indices rank 0", ND(0), RANK(I, 0), .want = S(INVALID_RANK),
     .needles = "indices has rank 0; GatherND needs indices of rank >= 1"},
    {"GatherND: m == 0 (indices [3, 0])", ND(0), SHAPE(I, 2, 3, 0),
     .want = S(INCOMPATIBLE_SHAPES),
     .needles = "the last dimension of indices (shape [3, 0]);is 0;"
                "it must be in [1, 2]"},
    {"GatherND: m == 3 > r - b == 2", ND(0), SHAPE(I, 2, 2, 3),
     .want = S(INCOMPATIBLE_SHAPES),
     .needles = "is 3;with data of rank 2 and batch_dims 0 it must be in "
                "[1, 2]"},
    {"GatherND: m == 2 > r - b == 1 (batch_dims 1)", ND(1), SHAPE(I, 2, 5, 2),
     .want = S(INCOMPATIBLE_SHAPES),
     .needles = "is 2;with data of rank 2 and batch_dims 1 it must be in "
                "[1, 1]"},
    {"GatherND: batch_dims -1", ND(-1), .want = S(INVALID_BATCH_DIMS),
     .needles = "batch_dims -1 is out of range for GatherND;valid range is "
                "[0, 1]"},
    {"GatherND: batch_dims 2 == min(r, q)", ND(2),
     .want = S(INVALID_BATCH_DIMS),
     .needles = "batch_dims 2 is out of range for GatherND with data of rank "
                "2 and indices of rank 2: valid range is [0, 1]"},
    {"GatherND: batch_dims 1 == q (indices [2])", ND(1), SHAPE(I, 1, 2),
     .want = S(INVALID_BATCH_DIMS),
     .needles = "batch_dims 1 is out of range;valid range is [0, 0]"},
    {"GatherND: batch dims differ (5 vs 4)", ND(1), SHAPE(I, 2, 4, 1),
     .want = S(INCOMPATIBLE_SHAPES),
     .needles = "GatherND with batch_dims 1: batch dimension 0 differs, data "
                "has 5 and indices has 4"},
    {"GatherND: output [3, 3]", ND(0), SHAPE(O, 2, 3, 3),
     .want = S(SHAPE_MISMATCH),
     .needles = "output has shape [3, 3] but GatherND with batch_dims 0 "
                "produces [3]"},
    {"GatherND: OOB first component (d)", ND(0), SET1(2, 5),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "index out of bounds: indices[2] (position [1, 0] in indices "
                "of shape [3, 2]) = 5, component 0 of the index tuple indexes "
                "axis 0 of data, of size 5: valid range is [-5, 4]"},
    {"GatherND: OOB first component (-d-1)", ND(0), SET1(0, -6),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[0] (position [0, 0];= -6, component 0;" RANGE5},
    {"GatherND: OOB last component (d), last position", ND(0), SET1(5, 3),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[5] (position [2, 1] in indices of shape [3, 2]) = 3, "
                "component 1 of the index tuple indexes axis 1 of data, of "
                "size 3: valid range is [-3, 2]"},
    {"GatherND: OOB last component beyond -d", ND(0), SET1(1, -4),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[1] (position [0, 1];= -4, component 1;"
                "valid range is [-3, 2]"},
    {"GatherND: OOB INT64_MIN", ND(0), SET1(3, INT64_MIN),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[3];= -9223372036854775808, component 1"},
    {"GatherND: OOB INT64_MAX", ND(0), SET1(4, INT64_MAX),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[4];= 9223372036854775807, component 0"},
    {"GatherND: OOB INT32_MIN (int32 indices)", ND(0), SET1(2, INT32_MIN),
     .indices_int32 = true, .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[2];= -2147483648, component 0;" RANGE5},
    {"GatherND: OOB int32 last component", ND(0), SET1(5, 3),
     .indices_int32 = true, .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[5];= 3, component 1"},
    {"GatherND: OOB several, the first is named", ND(0), SET2(3, 100, 1, -100),
     .want = S(INDEX_OUT_OF_BOUNDS), .needles = "indices[1];= -100"},
    {"GatherND: OOB with batch_dims 1 (component 0 is axis 1)", ND(1),
     .values = {0, 1, 2, -1, -3}, .nvalues = 5, SET1(3, 3), SHAPE(I, 2, 5, 1),
     SHAPE(O, 1, 5), .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[3] (position [3, 0] in indices of shape [5, 1]) = 3, "
                "component 0 of the index tuple indexes axis 1 of data, of "
                "size 3: valid range is [-3, 2]"},
    {"GatherND: a component into an axis of size 0", ND(0), SHAPE(D, 2, 5, 0),
     .want = S(INDEX_OUT_OF_BOUNDS),
     .needles = "indices[1] (position [0, 1];= 1, component 1;"
                "axis 1 of data, of size 0: no index is valid"},
    {"GatherND: axis 1", PARAMS(CLG_OP_GATHER_ND, 1, 0, RAISE),
     .want = S(INVALID_ARGUMENT), .needles = "GatherND takes no axis (got 1)"},
    {"GatherND: mode CLIP", PARAMS(CLG_OP_GATHER_ND, 0, 0, CLG_MODE_CLIP),
     .want = S(INVALID_ARGUMENT), .needles = "GatherND takes no index mode"},
};
/* clang-format on */
const size_t gather_bad_count =
    sizeof gather_bad_inputs / sizeof gather_bad_inputs[0];

bool gather_bad_in_values(const gather_bad *e) {
  return e->want == CLG_ERROR_INDEX_OUT_OF_BOUNDS;
}

static void set_shape(gather_bad_call *call, int t, int32_t rank,
                      const int64_t *dims, int ndims) {
  call->rank[t] = rank;
  for (int32_t k = 0; k < CLG_MAX_RANK; ++k)
    call->shape[t][k] = k < ndims ? dims[k] : 1;
}

void gather_bad_make(const gather_bad *e, gather_bad_call *call) {
  static const int64_t gather_idx[6] = {0, 4, -5, 2, -1, 3};
  static const int64_t nd_idx[6] = {0, 1, 4, 2, -5, -3};
  static const int64_t ds[2] = {5, 3}, gis[2] = {2, 3}, gos[3] = {2, 3, 3},
                       nis[2] = {3, 2}, nos[1] = {3};
  memset(call, 0, sizeof *call);
  call->p = e->p;
  for (int k = 0; k < 15; ++k)
    call->data[k] = (float)k;
  bool nd = e->p.op == CLG_OP_GATHER_ND;
  bool elements = e->p.op == CLG_OP_GATHER_ELEMENTS;
  int64_t v[16];
  memset(v, 0, sizeof v);
  memcpy(v, nd ? nd_idx : gather_idx, sizeof gather_idx);
  for (int k = 0; k < e->nvalues; ++k)
    v[k] = e->values[k];
  for (int k = 0; k < e->nsets; ++k)
    v[e->set[k].pos] = e->set[k].value;
  for (int k = 0; k < 16; ++k)
    case_set_index(call->indices,
                   e->indices_int32 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64, k,
                   v[k]);
  call->dtype[GATHER_DATA] = call->dtype[GATHER_OUTPUT] = CLG_DTYPE_FLOAT;
  call->dtype[GATHER_INDICES] =
      e->indices_int32 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
  set_shape(call, GATHER_DATA, 2, ds, 2);
  set_shape(call, GATHER_INDICES, 2, nd ? nis : gis, 2);
  if (nd)
    set_shape(call, GATHER_OUTPUT, 1, nos, 1);
  else if (elements)
    set_shape(call, GATHER_OUTPUT, 2, gis, 2);
  else
    set_shape(call, GATHER_OUTPUT, 3, gos, 3);
  for (int t = 0; t < 3; ++t) {
    int32_t r = e->shape[t].rank;
    if (e->shape[t].set) /* the dims given: the first min(rank, 4) */
      set_shape(call, t, r, e->shape[t].dims, r < 0 ? 0 : r < 4 ? r : 4);
    if (e->dtype[t] != 0)
      call->dtype[t] = e->dtype[t];
  }
}
