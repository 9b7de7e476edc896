/*
 * Every registered operator's case description, found by its clg_op: the
 * registry (host/ops/operators.def) read once more, so that a runner
 * (`clgather selftest`, the suites) goes over the operators without
 * naming any. An operator's file tools/cases/FILE.c defines
 *
 *   const case_operator case_IMPL;   (IMPL: the registry line's impl name)
 *
 * its family, its conformance set (the cases `clgather selftest` runs, in
 * a fixed order) and the hooks by which its family's shared code
 * (gather.c, scatter_elements.c) does what this operator does its own
 * way. A new operator of a family with a description is then one file
 * here; a new family adds its case type to case_item and a runner.
 */
#ifndef CLGATHER_CASES_OPERATORS_H
#define CLGATHER_CASES_OPERATORS_H

#include "cases/embedding_bag.h"
#include "cases/gather.h"
#include "cases/gather_block_quantized.h"
#include "cases/scatter.h"

typedef enum case_family {
  CASE_FAMILY_GATHER = 0, /* gather_case: clg_run() */
  CASE_FAMILY_SCATTER,    /* scatter_case: clg_scatter() */
  CASE_FAMILY_BAG,        /* bag_case: clg_embedding_bag() */
  CASE_FAMILY_GBQ,        /* gbq_case: clg_gather_block_quantized() */
} case_family;

/* One case of a conformance set, as the runner receives it. */
typedef struct case_item {
  case_family family;
  union {
    gather_case gather;
    scatter_case scatter;
    bag_case bag;
    gbq_case gbq;
  } c;
  uint64_t seed;     /* its inputs' seed (gather_inputs_draw(),
                        bag_inputs_draw(), gbq_inputs_draw(); a
                        scatter_case holds its own) */
  case_call call;    /* how the runner calls the library */
  const char *label; /* what the case is about ("distinct targets"), or
                        NULL */
} case_item;

typedef struct case_operator {
  case_family family;
  /* Hands every case of the operator's conformance set (fewer when
   * `quick`) to visit(ctx, item), in a fixed order: the same cases on
   * every machine. */
  void (*conformance)(bool quick, case_visit visit, void *ctx);
  const gather_hooks *gather;   /* CASE_FAMILY_GATHER, else NULL */
  const scatter_hooks *scatter; /* CASE_FAMILY_SCATTER, else NULL */
} case_operator;

/* A registry line's operator and its description. */
typedef struct case_registered {
  clg_op op;
  const char *name; /* the ONNX op_type ("GatherElements") */
  const case_operator *d;
} case_registered;

/* Every registered operator, in the registry's order. */
extern const case_registered case_operators[];
extern const size_t case_operator_count;

/* op's entry, or NULL for an operator the registry does not list. */
const case_registered *case_operator_of(clg_op op);
/* op's ONNX name, "?" for an unlisted one. */
const char *case_operator_name(clg_op op);

#endif /* CLGATHER_CASES_OPERATORS_H */
