/*
 * EmbeddingBag's case runner (tests/ops/test_embedding_bag.c), as
 * support/gather_case.h is the gather family's. The cases are described
 * in tools/cases/embedding_bag.h (bag_case: shapes, types, forms, where
 * each operand lives; its inputs drawn from a seed; its bad inputs); this
 * runs clg_embedding_bag() or clg_embedding_bag_async() with each operand
 * in host memory or a cl_mem of its own (at the case's byte offset), and
 * compares the output with the plain-C reference (ref_embedding_bag()) byte
 * for byte, plus the guard bytes around it and the unchanged inputs. Or,
 * the same, through a plan (tests/run/test_bag_plans.c).
 *
 * And the error fixture: a small valid call (bag_fx_base) that a Test
 * breaks in one place, then bag_fx_expect() runs it with every operand in
 * host memory, with a cl_mem output, and with every operand in cl_mem
 * (asynchronous), and checks the status, the message and the untouched
 * output (sentinel bytes) each time; bag_fx_bad() runs an entry of the
 * shared catalogue (bag_bad_inputs) through it.
 */
#ifndef CLGATHER_TESTS_BAG_CASE_H
#define CLGATHER_TESTS_BAG_CASE_H

#include <criterion/criterion.h>

#include "cases/embedding_bag.h"
#include "support/testutil.h"

/* The status the device must give the case (bag_case_status() on
 * tu_device()'s properties, CLGATHER_TEST_CLAIM_DENORM's claim included). */
clg_status bag_expected(const bag_case *c);

typedef struct bag_runner {
  int cases, failures, skipped;
} bag_runner;

#define BAG_MAX_FAILURES 8

/* Runs the case (one in CLGATHER_TEST_SAMPLE, tu_sampled()); a failure is
 * a failed expectation naming it; BAG_MAX_FAILURES of them end the Test. */
void bag_run(bag_runner *rn, const bag_case *c, uint64_t seed);
/* Logs the count and asserts that a case ran. */
void bag_finish(const bag_runner *rn, const char *what);

/* A plan's templates for the case (clg_plan_create_embedding_bag()): each
 * operand's dtype, shape and storage kind (cl_mem ones at the case's
 * offset), no memory; t[BAG_B] and t[BAG_S] are filled whether the case
 * takes them or not. */
void bag_templates(const bag_case *c, clg_tensor t[5]);
/* Runs the case (always: not sampled) through `plan` (made on ctx for the
 * case's templates, with CLG_PLAN_ASYNC_CHECK iff c->async): the enqueue
 * on new tensors drawn from seed, the same expectations as bag_run(). A
 * failure is a failed expectation naming the case; false then. */
bool bag_run_plan(bag_runner *rn, const bag_case *c, clg_context *ctx,
                  clg_plan *plan, uint64_t seed);

/* -------------------------------------------------------- error fixture */

#define BAG_FX_BYTES 512

typedef struct bag_fx {
  clg_bag_params p;
  const clg_bag_params *pp; /* &p (bag_fx_base), or NULL */
  clg_strided_tensor t[5];  /* weight, indices, bags, psw, output */
  bool present[5];          /* passed, or NULL */
  unsigned char host[5][BAG_FX_BYTES];
  bool null_ctx;
  /* bag_fx_expect's variants: with host operands only, skip the cl_mem
   * ones (strided descriptors, which the fixture does not convert). */
  bool host_only;
  cl_uint num_events; /* with wait_list NULL */
} bag_fx;

/* A valid call: weight float [5, 3], int64 indices [12] (fixed: [4, 3])
 * of values in [0, 4], int64 bags of the form (offsets [0, 3, 7, 9]; ids
 * 0 0 1 1 1 2 2 3 3 3 3 3), mode sum, output float [4, 3] all TU_SENTINEL,
 * no per_sample_weights (bag_fx_psw adds float [12]). */
void bag_fx_base(bag_fx *f, clg_bag_form form);
void bag_fx_psw(bag_fx *f);
/* Sets element pos of operand k (an int32 or int64 tensor). */
void bag_fx_set(bag_fx *f, int k, int64_t pos, int64_t value);
/* Makes operand k's descriptor: dtype, rank, shape (its host bytes stay). */
void bag_fx_desc(bag_fx *f, int k, clg_dtype dtype, int32_t rank,
                 const int64_t *shape);

/* Runs the broken call in its variants (host; cl_mem output; every
 * operand cl_mem with clg_embedding_bag_async) and expects `want` (or
 * `alt`, when not CLG_SUCCESS) each time, a message holding every
 * ';'-separated item of `needles` (each a '|'-separated list of
 * alternatives, case-insensitive) and every number of ints[0..nints-1],
 * no event, no outcome, and the output's bytes untouched. */
void bag_fx_expect(const bag_fx *f, clg_status want, clg_status alt,
                   const char *needles, const int64_t *ints, int nints,
                   const char *what);
/* The catalogue's entry e (tools/cases/embedding_bag_bad.c) on float
 * weights, through bag_fx_expect(): its status, its message, the output
 * untouched. */
void bag_fx_bad(const bag_bad *e);

#endif /* CLGATHER_TESTS_BAG_CASE_H */
