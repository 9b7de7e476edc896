/* Every way of checking index values (host/run/strategy.c), forced on
 * every operator that can take it, twice: a valid call writes the plain-C
 * reference's bytes, and a call with one index out of range returns
 * CLG_ERROR_INDEX_OUT_OF_BOUNDS naming its position and value and leaves
 * every byte of the output as it was (synchronous calls, and asynchronous
 * ones once their outcome is waited for). Each case checks that the call
 * took the way it forces (clg_fault_last_way(): a test-build record of
 * the way run/call.c or run/embedding_bag.c chose), so that a change of
 * rule cannot turn a row into a second run of another way. The operator
 * suites run the same ways on many shapes; this file is the one matrix of
 * ways by operator. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "internal.h"
#include "reference/ref_scatter.h"
#include "reference/reference.h"
#include "support/testutil.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Data (weight) [8, 4] float32; the bad index's value is 8 (the axis'
 * size) at flat position `bad` of the indices. */
enum { ROWS = 8, COLS = 4, BAD_VALUE = ROWS };

typedef struct way_case {
  const char *name;
  clg_op op;
  bool dev_indices, dev_output, async;
  const char *validation; /* CLGATHER_TEST_DEVICE_VALIDATION, or NULL */
  const char *host_run;   /* CLGATHER_TEST_HOST_RUN, or NULL (never) */
  const char *fused;      /* CLGATHER_TEST_FUSED, or NULL (never) */
  clg_check_way want;
} way_case;

/* An operator's operands: indices (int64) and, for the scatters, updates;
 * EmbeddingBag's offsets. */
typedef struct operands {
  int32_t q;
  int64_t ishape[2];
  int64_t idx[12];
  int64_t count;
  int64_t bad; /* the flat position the bad call puts BAD_VALUE at */
  int32_t out_rank;
  int64_t oshape[2];
  float upd[8];
  int64_t offsets[3];
} operands;

static operands operands_of(clg_op op) {
  operands o;
  memset(&o, 0, sizeof o);
  switch (op) {
  case CLG_OP_GATHER:
    o = (operands){.q = 1, .ishape = {6}, .idx = {3, 0, 7, -1, 5, 2},
                   .count = 6, .bad = 4, .out_rank = 2, .oshape = {6, COLS}};
    break;
  case CLG_OP_GATHER_ELEMENTS:
    o = (operands){.q = 2, .ishape = {3, COLS},
                   .idx = {1, 7, -2, 0, 4, 4, 3, 6, -8, 2, 5, 1},
                   .count = 12, .bad = 9, .out_rank = 2,
                   .oshape = {3, COLS}};
    break;
  case CLG_OP_GATHER_ND:
    o = (operands){.q = 2, .ishape = {5, 1}, .idx = {6, 1, -3, 0, 2},
                   .count = 5, .bad = 3, .out_rank = 2,
                   .oshape = {5, COLS}};
    break;
  case CLG_OP_SCATTER_ELEMENTS: /* targets distinct in each column */
    o = (operands){.q = 2, .ishape = {2, COLS},
                   .idx = {1, 5, 2, -2, 0, 3, 7, 4},
                   .count = 8, .bad = 6, .out_rank = 2,
                   .oshape = {ROWS, COLS},
                   .upd = {-1, -2, -3, -4, -5, -6, -7, -8}};
    break;
  case CLG_OP_SCATTER_ND:
    o = (operands){.q = 2, .ishape = {2, 1}, .idx = {1, -3}, .count = 2,
                   .bad = 1, .out_rank = 2, .oshape = {ROWS, COLS},
                   .upd = {-1, -2, -3, -4, -5, -6, -7, -8}};
    break;
  default: /* EmbeddingBag: sum over bags {0, 1}, {2, 3}, {4, 5} */
    o = (operands){.q = 1, .ishape = {6}, .idx = {3, 0, 7, 7, 5, 2},
                   .count = 6, .bad = 4, .out_rank = 2,
                   .oshape = {3, COLS}, .offsets = {0, 2, 4}};
    break;
  }
  return o;
}

/* EmbeddingBag's element type here: float, or float16 on a device that
 * flushes subnormal floats (the library refuses float EmbeddingBags there,
 * before any way is taken: tu_reduces_exactly()). */
static clg_dtype bag_dtype(void) {
  return tu_reduces_exactly(CLG_DTYPE_FLOAT) ? CLG_DTYPE_FLOAT
                                             : CLG_DTYPE_FLOAT16;
}

/* The data as `dtype` (float or float16) into dst. */
static void data_as(clg_dtype dtype, const float *data, void *dst) {
  for (int i = 0; i < ROWS * COLS; ++i)
    if (dtype == CLG_DTYPE_FLOAT16) {
      uint16_t h = ref_float_to_half(data[i]);
      memcpy((char *)dst + 2 * i, &h, 2);
    } else
      memcpy((char *)dst + 4 * i, &data[i], 4);
}

static bool is_scatter(clg_op op) {
  return op == CLG_OP_SCATTER_ELEMENTS || op == CLG_OP_SCATTER_ND;
}

/* The reference's output for valid operands. */
static void reference(clg_op op, const float *data, const operands *o,
                      float *want) {
  int64_t ds[2] = {ROWS, COLS};
  int64_t bad = -1, first = -1;
  int rc = 0;
  switch (op) {
  case CLG_OP_GATHER:
    rc = ref_gather(data, 4, 2, ds, o->idx, REF_INDEX_I64, o->q, o->ishape, 0,
                    want);
    break;
  case CLG_OP_GATHER_ELEMENTS:
    rc = ref_gather_elements(data, 4, 2, ds, o->idx, REF_INDEX_I64, o->q,
                             o->ishape, 0, want);
    break;
  case CLG_OP_GATHER_ND:
    rc = ref_gather_nd(data, 4, 2, ds, o->idx, REF_INDEX_I64, o->q, o->ishape,
                       0, want);
    break;
  case CLG_OP_SCATTER_ELEMENTS:
    memcpy(want, data, sizeof(float) * ROWS * COLS);
    rc = ref_scatter_elements(want, CLG_DTYPE_FLOAT, 2, ds, o->idx,
                              REF_INDEX_I64, o->ishape, o->upd, 0,
                              REF_RED_NONE, 0, &bad, &first);
    break;
  case CLG_OP_SCATTER_ND:
    memcpy(want, data, sizeof(float) * ROWS * COLS);
    rc = ref_scatter_nd(want, CLG_DTYPE_FLOAT, 2, ds, o->idx, REF_INDEX_I64,
                        o->q, o->ishape, o->upd, REF_RED_NONE, 0, &bad,
                        &first);
    break;
  default: {
    float weight[ROWS * COLS];
    data_as(bag_dtype(), data, weight);
    ref_bag_args a = {.mode = 0, .form = 0, .dtype = bag_dtype(),
                      .weight = weight, .num_embeddings = ROWS, .dim = COLS,
                      .indices = o->idx, .index_type = REF_INDEX_I64,
                      .indices_rank = 1, .indices_shape = {o->count},
                      .bags = o->offsets, .bags_type = REF_INDEX_I64,
                      .bags_len = 3, .num_bags = 3};
    rc = ref_embedding_bag(&a, want);
    break;
  }
  }
  cr_assert_eq(rc, 0, "the reference refused the valid operands");
}

static void set_env(const char *name, const char *value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

/* One call of case `wc` with indices `idx` (valid, or one bad): its
 * status, message, the output's bytes after it (after the outcome, for an
 * asynchronous call) and the way taken. */
static clg_status run_case(const way_case *wc, const operands *o,
                           const int64_t *idx, const float *data, float *got,
                           size_t obytes, char *msg, size_t cap,
                           int *way) {
  set_env("CLGATHER_TEST_DEVICE_VALIDATION", wc->validation);
  set_env("CLGATHER_TEST_HOST_RUN", wc->host_run);
  set_env("CLGATHER_TEST_FUSED", wc->fused);
  bool any_dev = wc->dev_indices || wc->dev_output;
  tu_storage in_st = {.kind = any_dev ? CLG_STORAGE_BUFFER : CLG_STORAGE_HOST};
  tu_storage x_st = {.kind = wc->dev_indices ? CLG_STORAGE_BUFFER
                                             : CLG_STORAGE_HOST};
  tu_storage o_st = {.kind = wc->dev_output ? CLG_STORAGE_BUFFER
                                            : CLG_STORAGE_HOST};
  int64_t ds[2] = {ROWS, COLS}, us[2] = {o->ishape[0], COLS},
          bs[1] = {3};
  bool scatter = is_scatter(wc->op), bag = wc->op == CLG_OP_EMBEDDING_BAG;
  clg_dtype dt = bag ? bag_dtype() : CLG_DTYPE_FLOAT;
  float weight[ROWS * COLS];
  data_as(dt, data, weight);
  tu_tensor td, tx, to, tu, tb;
  tu_tensor_init(&td, dt, 2, ds, in_st, weight);
  tu_tensor_init(&tx, CLG_DTYPE_INT64, o->q, o->ishape, x_st, idx);
  tu_tensor_init(&to, dt, o->out_rank, o->oshape, o_st, NULL);
  if (scatter)
    tu_tensor_init(&tu, CLG_DTYPE_FLOAT, 2, us, in_st, o->upd);
  if (bag)
    tu_tensor_init(&tb, CLG_DTYPE_INT64, 1, bs, x_st, o->offsets);
  clg_context *ctx = tu_ctx();
  clg_outcome *oc = NULL;
  clg_outcome **ocp = wc->async ? &oc : NULL;
  clg_params p = {.op = wc->op};
  cl_event ev = NULL; /* the call's last command: an asynchronous call's
                       * outcome says nothing of its kernels' end */
  clg_fault_reset();
  clg_status st;
  if (bag) {
    clg_bag_params bp = {.mode = CLG_BAG_SUM, .form = CLG_BAGS_OFFSETS};
    st = wc->async ? clg_embedding_bag_async(ctx, &bp, &td.desc, &tx.desc,
                                             &tb.desc, NULL, &to.desc, NULL,
                                             0, NULL, &ev, ocp)
                   : clg_embedding_bag(ctx, &bp, &td.desc, &tx.desc, &tb.desc,
                                       NULL, &to.desc, NULL, 0, NULL, &ev);
  } else if (scatter) {
    st = wc->async ? clg_scatter_async(ctx, &p, NULL, &td.desc, &tx.desc,
                                       &tu.desc, &to.desc, NULL, 0, NULL, &ev,
                                       ocp)
                   : clg_scatter(ctx, &p, NULL, &td.desc, &tx.desc, &tu.desc,
                                 &to.desc, NULL, 0, NULL, &ev);
  } else {
    st = wc->async ? clg_run_async(ctx, &p, &td.desc, &tx.desc, &to.desc,
                                   NULL, 0, NULL, &ev, ocp)
                   : clg_run(ctx, &p, &td.desc, &tx.desc, &to.desc, NULL, 0,
                             NULL, &ev);
  }
  *way = clg_fault_last_way();
  if (st == CLG_SUCCESS && oc) {
    st = clg_outcome_wait(oc);
    clg_outcome_release(oc);
  }
  snprintf(msg, cap, "%s", clg_last_error());
  if (ev) {
    tu_cl_check(clWaitForEvents(1, &ev), "waiting for the call");
    clReleaseEvent(ev);
  }
  cr_assert_eq(to.bytes, obytes);
  tu_tensor_read(&to, got);
  cr_expect(tu_tensor_guards_ok(&to), "%s: bytes around the output written",
            wc->name);
  tu_tensor_free(&td);
  tu_tensor_free(&tx);
  tu_tensor_free(&to);
  if (scatter)
    tu_tensor_free(&tu);
  if (bag)
    tu_tensor_free(&tb);
  return st;
}

static void check_case(const way_case *wc) {
  operands o = operands_of(wc->op);
  float data[ROWS * COLS];
  for (int i = 0; i < ROWS * COLS; ++i)
    data[i] = (float)i + 0.25f;
  size_t obytes = (size_t)(o.oshape[0] * o.oshape[1]) *
                  (wc->op == CLG_OP_EMBEDDING_BAG
                       ? clg_dtype_size(bag_dtype())
                       : sizeof(float));
  float want[ROWS * COLS], got[ROWS * COLS];
  char msg[1024];
  int way = -1;
  reference(wc->op, data, &o, want);

  clg_status st =
      run_case(wc, &o, o.idx, data, got, obytes, msg, sizeof msg, &way);
  cr_assert_eq(way, (int)wc->want, "%s: the valid call took way %s, not %s",
               wc->name,
               way >= 0 ? clg__check_row((clg_check_way)way)->name : "none",
               clg__check_row(wc->want)->name);
  cr_assert_eq(st, CLG_SUCCESS, "%s: %s", wc->name, msg);
  ptrdiff_t d = tu_first_diff(got, want, obytes);
  cr_expect(d < 0, "%s: output byte %td differs from the reference",
            wc->name, d);

  int64_t bad_idx[12];
  memcpy(bad_idx, o.idx, sizeof bad_idx);
  bad_idx[o.bad] = BAD_VALUE;
  st = run_case(wc, &o, bad_idx, data, got, obytes, msg, sizeof msg, &way);
  cr_assert_eq(way, (int)wc->want, "%s: the bad call took way %s", wc->name,
               way >= 0 ? clg__check_row((clg_check_way)way)->name : "none");
  cr_expect_eq(st, CLG_ERROR_INDEX_OUT_OF_BOUNDS, "%s: status %d: %s",
               wc->name, (int)st, msg);
  cr_expect(tu_contains_int(msg, BAD_VALUE), "%s: no value in: %s", wc->name,
            msg);
  char at[32];
  snprintf(at, sizeof at, "indices[%d]", (int)o.bad);
  cr_expect(tu_contains(msg, at), "%s: no %s in: %s", wc->name, at, msg);
  unsigned char sentinel[sizeof got];
  memset(sentinel, TU_SENTINEL, obytes);
  d = tu_first_diff(got, sentinel, obytes);
  cr_expect(d < 0, "%s: output byte %td written by a refused call", wc->name,
            d);
}

#define GATHERS(OP, NAME)                                                      \
  {NAME " host", OP, false, false, false, NULL, NULL, NULL, CLG_CHECK_HOST},   \
      {NAME " host run", OP, false, false, false, NULL, "always", NULL,        \
       CLG_CHECK_HOST_RUN},                                                    \
      {NAME " read-back", OP, true, false, false, "never", NULL, NULL,         \
       CLG_CHECK_READ_BACK},                                                   \
      {NAME " device", OP, true, false, false, "always", NULL, NULL,           \
       CLG_CHECK_DEVICE},                                                      \
      {NAME " gated", OP, true, true, true, NULL, NULL, NULL,                  \
       CLG_CHECK_GATED},                                                       \
      {NAME " gated, read after", OP, true, true, false, NULL, NULL, NULL,     \
       CLG_CHECK_GATED_READ}

#define SCATTERS(OP, NAME)                                                     \
  {NAME " host schedule",  OP, false, true, false, NULL, NULL, NULL,           \
   CLG_CHECK_HOST_SCHEDULE},                                                   \
      {NAME " host schedule, read back",                                       \
       OP,                                                                     \
       true,                                                                   \
       false,                                                                  \
       false,                                                                  \
       NULL,                                                                   \
       NULL,                                                                   \
       NULL,                                                                   \
       CLG_CHECK_HOST_SCHEDULE},                                               \
      {NAME " device schedule",  OP, true, true, false, "always", NULL, NULL,  \
       CLG_CHECK_DEVICE_SCHEDULE},                                             \
  {                                                                            \
    NAME " device schedule, async", OP, true, true, true, NULL, NULL, NULL,    \
        CLG_CHECK_DEVICE_SCHEDULE                                              \
  }

static const way_case cases[] = {
    GATHERS(CLG_OP_GATHER, "Gather"),
    {"Gather fused", CLG_OP_GATHER, true, true, false, NULL, NULL, "always",
     CLG_CHECK_FUSED},
    GATHERS(CLG_OP_GATHER_ELEMENTS, "GatherElements"),
    GATHERS(CLG_OP_GATHER_ND, "GatherND"),
    SCATTERS(CLG_OP_SCATTER_ELEMENTS, "ScatterElements"),
    SCATTERS(CLG_OP_SCATTER_ND, "ScatterND"),
    {"EmbeddingBag host", CLG_OP_EMBEDDING_BAG, false, false, false, NULL,
     NULL, NULL, CLG_CHECK_HOST},
    {"EmbeddingBag read-back", CLG_OP_EMBEDDING_BAG, true, false, false,
     "never", NULL, NULL, CLG_CHECK_READ_BACK},
    {"EmbeddingBag device", CLG_OP_EMBEDDING_BAG, true, false, false,
     "always", NULL, NULL, CLG_CHECK_DEVICE},
    {"EmbeddingBag gated", CLG_OP_EMBEDDING_BAG, true, true, true, NULL, NULL,
     NULL, CLG_CHECK_GATED},
    {"EmbeddingBag gated, read after", CLG_OP_EMBEDDING_BAG, true, true,
     false, NULL, NULL, NULL, CLG_CHECK_GATED_READ},
};

/* The cases by number: Criterion hands a parameter to the test's own
 * process, where a pointer inside it (the names) need not hold. */
enum { NUM_CASES = sizeof cases / sizeof *cases };

ParameterizedTestParameters(ways, every_operator) {
  static int numbers[NUM_CASES];
  for (int i = 0; i < NUM_CASES; ++i)
    numbers[i] = i;
  return cr_make_param_array(int, numbers, NUM_CASES);
}

ParameterizedTest(int *k, ways, every_operator) { check_case(&cases[*k]); }

/* Every way of the table that a call can take is a row above, for at
 * least one operator (NONE is a call with nothing to check). */
Test(ways, every_way_is_forced) {
  bool seen[CLG_CHECK_WAYS] = {false};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i)
    seen[cases[i].want] = true;
  for (int w = 1; w < CLG_CHECK_WAYS; ++w)
    cr_expect(seen[w], "way %s has no case", clg__check_row(w)->name);
}
