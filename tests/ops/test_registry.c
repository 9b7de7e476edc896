/*
 * The operator registry (host/ops/operators.def, ops/registry.c):
 * clg_operators() and the parameter rules derived from it, checked against
 * the ONNX operator names and the fields each operator takes.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "support/testutil.h"

/* What the released operators take (written from the ONNX operator docs):
 * each stays listed with these values; an operator added later may follow
 * them (its own description, tools/cases/, is checked against the table
 * by tests/ops/test_conformance.c). */
static const struct {
  clg_op op;
  const char *name, *command;
  unsigned params;
} expected[] = {
    {CLG_OP_GATHER, "Gather", "gather",
     CLG_PARAM_AXIS | CLG_PARAM_BATCH_DIMS | CLG_PARAM_MODE},
    {CLG_OP_GATHER_ELEMENTS, "GatherElements", "gather-elements",
     CLG_PARAM_AXIS},
    {CLG_OP_GATHER_ND, "GatherND", "gather-nd", CLG_PARAM_BATCH_DIMS},
    {CLG_OP_SCATTER_ELEMENTS, "ScatterElements", "scatter-elements",
     CLG_PARAM_AXIS | CLG_PARAM_SCATTER},
    {CLG_OP_SCATTER_ND, "ScatterND", "scatter-nd", CLG_PARAM_SCATTER},
    {CLG_OP_SCATTER, "Scatter", "scatter", CLG_PARAM_AXIS | CLG_PARAM_SCATTER},
    {CLG_OP_EMBEDDING_BAG, "EmbeddingBag", "embedding-bag", CLG_PARAM_BAGS},
    {CLG_OP_GATHER_BLOCK_QUANTIZED, "GatherBlockQuantized",
     "gather-block-quantized", CLG_PARAM_GBQ},
};
#define N_EXPECTED (sizeof expected / sizeof expected[0])

Test(registry, lists_every_operator_once) {
  size_t n = 0;
  const clg_op_info *ops = clg_operators(&n);
  cr_assert_not_null(ops);
  cr_assert_geq(n, N_EXPECTED);
  cr_assert_eq(clg_operators(NULL), ops, "the table is static");
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < i; ++j)
      cr_expect(ops[i].op != ops[j].op && strcmp(ops[i].name, ops[j].name) &&
                    strcmp(ops[i].command, ops[j].command),
                "entries %zu and %zu share an operator, a name or a command", j,
                i);
  for (size_t k = 0; k < N_EXPECTED; ++k) {
    size_t hits = 0;
    for (size_t i = 0; i < n; ++i)
      if (ops[i].op == expected[k].op) {
        ++hits;
        cr_expect_str_eq(ops[i].name, expected[k].name);
        cr_expect_str_eq(ops[i].command, expected[k].command);
        cr_expect_eq(ops[i].params, expected[k].params, "%s",
                     expected[k].name);
      }
    cr_expect_eq(hits, 1, "%s listed %zu times", expected[k].name, hits);
  }
}

/* Every field an operator does not take is refused when set, and taken
 * (not refused as "takes no") when it does. */
Test(registry, fields_not_taken_are_refused) {
  const int64_t shape[2] = {4, 3};
  const int64_t ishape[2] = {2, 1};
  size_t n = 0;
  const clg_op_info *ops = clg_operators(&n);
  for (size_t i = 0; i < n; ++i) {
    struct {
      unsigned bit;
      clg_params p;
    } probes[] = {
        {CLG_PARAM_AXIS, {ops[i].op, 1, 0, CLG_MODE_RAISE}},
        {CLG_PARAM_BATCH_DIMS, {ops[i].op, 0, 1, CLG_MODE_RAISE}},
        {CLG_PARAM_MODE, {ops[i].op, 0, 0, CLG_MODE_CLIP}},
    };
    for (size_t k = 0; k < 3; ++k) {
      int32_t rank = 0;
      int64_t out[CLG_MAX_RANK];
      clg_status st = clg_output_shape(&probes[k].p, 2, shape, 2, ishape,
                                       &rank, out);
      const char *msg = clg_last_error();
      bool refused = st == CLG_ERROR_INVALID_ARGUMENT &&
                     strstr(msg, "takes no") != NULL;
      if (ops[i].params & CLG_PARAM_BAGS) /* no clg_params at all */
        cr_expect(st == CLG_ERROR_INVALID_ARGUMENT &&
                      strstr(msg, "clg_embedding_bag()") != NULL,
                  "%s: status %d, %s", ops[i].name, (int)st, msg);
      else if (ops[i].params & CLG_PARAM_GBQ) /* nor here */
        cr_expect(st == CLG_ERROR_INVALID_ARGUMENT &&
                      strstr(msg, "clg_gather_block_quantized()") != NULL,
                  "%s: status %d, %s", ops[i].name, (int)st, msg);
      else if (ops[i].params & probes[k].bit)
        cr_expect(!refused, "%s refused a field it takes: %s", ops[i].name,
                  msg);
      else
        cr_expect(refused, "%s accepted field %u: status %d, %s",
                  ops[i].name, probes[k].bit, (int)st, msg);
    }
  }
}

/* clg_supported() follows the registry: modes only where taken, unknown
 * operators never (the released operators, which all take data and
 * indices of rank 2). */
Test(registry, supported_follows_the_table) {
  for (size_t k = 0; k < N_EXPECTED; ++k) {
    /* GatherBlockQuantized's data: its uint8 storage */
    clg_dtype dt = (expected[k].params & CLG_PARAM_GBQ) ? CLG_DTYPE_UINT8
                                                        : CLG_DTYPE_FLOAT;
    cr_expect_eq(clg_supported(expected[k].op, dt, CLG_DTYPE_INT64, 2, 2,
                               CLG_MODE_RAISE),
                 1, "%s", expected[k].name);
    int wrap =
        clg_supported(expected[k].op, dt, CLG_DTYPE_INT64, 2, 2, CLG_MODE_WRAP);
    cr_expect_eq(wrap, (expected[k].params & CLG_PARAM_MODE) ? 1 : 0, "%s",
                 expected[k].name);
  }
  cr_expect_eq(clg_supported((clg_op)99, CLG_DTYPE_FLOAT, CLG_DTYPE_INT64, 2,
                             1, CLG_MODE_RAISE),
               0);
}

/* GatherBlockQuantized's rule (clg_supported()'s documentation): data
 * uint8 only, indices int32 or int64, mode RAISE, and an output rank
 * data_rank - 1 + indices_rank of at most CLG_MAX_RANK. */
Test(registry, supported_gather_block_quantized) {
  const clg_op op = CLG_OP_GATHER_BLOCK_QUANTIZED;
  const clg_index_mode raise = CLG_MODE_RAISE;
  cr_expect_eq(clg_supported(op, CLG_DTYPE_UINT8, CLG_DTYPE_INT32, 1, 0, raise),
               1);
  cr_expect_eq(clg_supported(op, CLG_DTYPE_UINT8, CLG_DTYPE_INT64, 3, 2, raise),
               1);
  static const clg_dtype others[] = {CLG_DTYPE_INT8, CLG_DTYPE_FLOAT,
                                     CLG_DTYPE_FLOAT16, CLG_DTYPE_UINT16};
  for (size_t k = 0; k < sizeof others / sizeof others[0]; ++k)
    cr_expect_eq(clg_supported(op, others[k], CLG_DTYPE_INT64, 2, 1, raise), 0,
                 "data %s", clg_dtype_name(others[k]));
  cr_expect_eq(clg_supported(op, CLG_DTYPE_UINT8, CLG_DTYPE_INT16, 2, 1, raise),
               0);
  cr_expect_eq(
      clg_supported(op, CLG_DTYPE_UINT8, CLG_DTYPE_UINT32, 2, 1, raise), 0);
  cr_expect_eq(
      clg_supported(op, CLG_DTYPE_UINT8, CLG_DTYPE_INT64, 2, 1, CLG_MODE_CLIP),
      0);
  cr_expect_eq(clg_supported(op, CLG_DTYPE_UINT8, CLG_DTYPE_INT64, CLG_MAX_RANK,
                             1, raise),
               1);
  cr_expect_eq(clg_supported(op, CLG_DTYPE_UINT8, CLG_DTYPE_INT64, CLG_MAX_RANK,
                             2, raise),
               0, "an output of rank CLG_MAX_RANK + 1");
  cr_expect_eq(clg_supported(op, CLG_DTYPE_UINT8, CLG_DTYPE_INT64, 2,
                             CLG_MAX_RANK, raise),
               0);
}

/* clg_run(), clg_run_async(), clg_scatter() and clg_plan_create() refuse
 * GatherBlockQuantized, naming its entry point, with nothing written. */
Test(registry, clg_params_paths_refuse_gather_block_quantized) {
  const int64_t ds[2] = {4, 32}, is[1] = {2}, os[2] = {2, 32};
  unsigned char data[128] = {0};
  int64_t idx[2] = {0, 1};
  float out[64];
  memset(out, (int)TU_SENTINEL, sizeof out);
  clg_tensor d = clg_tensor_host(CLG_DTYPE_UINT8, 2, ds, data),
             i = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx),
             o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_params p = {CLG_OP_GATHER_BLOCK_QUANTIZED, 0, 0, CLG_MODE_RAISE};
  clg_status st[4];
  const char *msg[4];
  char keep[4][512];
  st[0] = clg_run(tu_ctx(), &p, &d, &i, &o, NULL, 0, NULL, NULL);
  snprintf(keep[0], sizeof keep[0], "%s", clg_last_error());
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  st[1] = clg_run_async(tu_ctx(), &p, &d, &i, &o, NULL, 0, NULL, &ev, &oc);
  snprintf(keep[1], sizeof keep[1], "%s", clg_last_error());
  st[2] = clg_scatter(tu_ctx(), &p, NULL, &d, &i, &d, &o, NULL, 0, NULL, NULL);
  snprintf(keep[2], sizeof keep[2], "%s", clg_last_error());
  clg_plan *plan = NULL;
  st[3] = clg_plan_create(tu_ctx(), &p, &d, &i, &o, 0, &plan);
  snprintf(keep[3], sizeof keep[3], "%s", clg_last_error());
  for (int k = 0; k < 4; ++k) {
    msg[k] = keep[k];
    cr_expect_eq(st[k], CLG_ERROR_INVALID_ARGUMENT, "call %d: status %d, %s", k,
                 (int)st[k], msg[k]);
    cr_expect(strstr(msg[k], "clg_gather_block_quantized()") != NULL &&
                  strstr(msg[k], "GatherBlockQuantized") != NULL,
              "call %d: %s", k, msg[k]);
  }
  cr_expect(ev == NULL && oc == NULL && plan == NULL, "an object returned");
  for (size_t k = 0; k < sizeof out; ++k)
    cr_assert_eq(((unsigned char *)out)[k], TU_SENTINEL, "output written");
}
