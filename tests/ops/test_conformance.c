/*
 * Every registered operator's conformance set (tools/cases/operators.h:
 * the cases `clgather selftest --quick` runs) through the Criterion
 * runners of its family (support/gather_case.h, scatter_case.h,
 * bag_case.h, gbq_case.h), against the plain-C reference byte for byte: an
 * operator added with its case description is tested here before it has a suite
 * of its own (tests/ops/test_FILE.c, optional).
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "cases/operators.h"
#include "support/bag_case.h"
#include "support/gather_case.h"
#include "support/gbq_case.h"
#include "support/scatter_case.h"

/* The runners' state for one operator's set. */
typedef struct conformance {
  gc_runner gather;
  bag_runner bag;
  gbq_runner gbq;
  int cases;
} conformance;

/* A cl_mem operand's byte offset: one that is a multiple of every element
 * size, as selftest's guard bytes are. */
#define OFFSET 64

static void visit(void *ctx, const case_item *it) {
  conformance *cf = ctx;
  bool buffer = it->call != CASE_CALL_HOST;
  cf->cases++;
  switch (it->family) {
  case CASE_FAMILY_GATHER: {
    gather_case c = it->c.gather;
    for (int k = 0; k < 3; ++k)
      c.st[k] = buffer ? gc_buf(OFFSET) : gc_host();
    c.want_event = it->call == CASE_CALL_ASYNC;
    gc_run(&cf->gather, &c, it->seed);
  } break;
  case CASE_FAMILY_SCATTER: {
    scatter_case c = it->c.scatter;
    c.storage = buffer ? CLG_STORAGE_BUFFER : CLG_STORAGE_HOST;
    c.offset = buffer ? c.offset : 0;
    c.in_place = it->call == CASE_CALL_IN_PLACE;
    sc_run(&c);
  } break;
  case CASE_FAMILY_BAG: {
    bag_case c = it->c.bag;
    for (int k = 0; k < 5; ++k) {
      c.st[k].kind = buffer ? CLG_STORAGE_BUFFER : CLG_STORAGE_HOST;
      c.st[k].offset = buffer ? OFFSET : 0;
    }
    c.async = it->call == CASE_CALL_ASYNC;
    bag_run(&cf->bag, &c, it->seed);
  } break;
  case CASE_FAMILY_GBQ: {
    /* cl_mem data and zero points tight: their buffers hold the packed
     * bytes and nothing after them */
    gbq_case c = it->c.gbq;
    for (int k = 0; k < GBQC_NOPS; ++k) {
      c.st[k].kind = buffer ? CLG_STORAGE_BUFFER : CLG_STORAGE_HOST;
      c.st[k].offset = buffer ? OFFSET : 0;
      c.st[k].tight = buffer && (k == GBQC_DATA || k == GBQC_ZERO_POINTS);
    }
    c.async = it->call == CASE_CALL_ASYNC;
    gbq_run(&cf->gbq, &c, it->seed);
  } break;
  }
}

ParameterizedTestParameters(conformance, each_operator) {
  static size_t index[64];
  size_t n = case_operator_count < 64 ? case_operator_count : 64;
  for (size_t i = 0; i < n; ++i)
    index[i] = i;
  return cr_make_param_array(size_t, index, n);
}

ParameterizedTest(size_t *i, conformance, each_operator) {
  const case_registered *o = &case_operators[*i];
  conformance cf = {{0}, {0}, {0}, 0};
  o->d->conformance(true, visit, &cf);
  cr_assert_gt(cf.cases, 0, "%s: an empty conformance set", o->name);
  if (o->d->family == CASE_FAMILY_GATHER)
    gc_finish(&cf.gather, o->name);
  else if (o->d->family == CASE_FAMILY_BAG)
    bag_finish(&cf.bag, o->name);
  else if (o->d->family == CASE_FAMILY_GBQ)
    gbq_finish(&cf.gbq, o->name);
}

/* The registry and the descriptions agree: every operator the library
 * lists (clg_operators()) has a description of the family its parameters
 * say, in the same order. */
Test(conformance, every_operator_described) {
  size_t n = 0;
  const clg_op_info *ops = clg_operators(&n);
  cr_assert_eq(n, case_operator_count, "%zu operators, %zu descriptions", n,
               case_operator_count);
  for (size_t i = 0; i < n; ++i) {
    const case_registered *o = &case_operators[i];
    cr_expect_eq(o->op, ops[i].op, "entry %zu", i);
    cr_expect_str_eq(o->name, ops[i].name);
    case_family want = (ops[i].params & CLG_PARAM_SCATTER) ? CASE_FAMILY_SCATTER
                       : (ops[i].params & CLG_PARAM_BAGS)  ? CASE_FAMILY_BAG
                       : (ops[i].params & CLG_PARAM_GBQ)   ? CASE_FAMILY_GBQ
                                                           : CASE_FAMILY_GATHER;
    cr_expect_eq(o->d->family, want, "%s: family %d, want %d", o->name,
                 (int)o->d->family, (int)want);
    cr_expect((o->d->gather != NULL) == (want == CASE_FAMILY_GATHER) &&
                  (o->d->scatter != NULL) == (want == CASE_FAMILY_SCATTER),
              "%s: hooks of another family", o->name);
  }
}
