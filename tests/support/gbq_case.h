/*
 * GatherBlockQuantized's case runner (tests/ops/test_conformance.c,
 * tests/check/test_gbq_catalogue.c), as support/bag_case.h is
 * EmbeddingBag's. The cases are described in
 * tools/cases/gather_block_quantized.h (gbq_case: attributes, shapes,
 * types, where each operand lives; its inputs drawn from a seed; its bad
 * inputs); this runs clg_gather_block_quantized() with each operand in
 * host memory or a cl_mem of its own (at the case's byte offset; `tight`:
 * no byte after it) and compares the output with the plain-C reference
 * (ref_gather_block_quantized()) byte for byte, plus the sentinel bytes
 * around it and the unchanged inputs.
 */
#ifndef CLGATHER_TESTS_GBQ_CASE_H
#define CLGATHER_TESTS_GBQ_CASE_H

#include <criterion/criterion.h>

#include "cases/gather_block_quantized.h"
#include "support/testutil.h"

/* The status the device must give the case (gbq_case_status() on
 * tu_device()'s properties, CLGATHER_TEST_CLAIM_DENORM's claim included). */
clg_status gbq_expected(const gbq_case *c);

typedef struct gbq_runner {
  int cases, failures;
} gbq_runner;

#define GBQ_MAX_FAILURES 8

/* Runs the case (one in CLGATHER_TEST_SAMPLE, tu_sampled()); a failure is
 * a failed expectation naming it; GBQ_MAX_FAILURES of them end the Test. */
void gbq_run(gbq_runner *rn, const gbq_case *c, uint64_t seed);
/* Logs the count and asserts that a case ran. */
void gbq_finish(const gbq_runner *rn, const char *what);

/* Runs entry e of the bad-input catalogue (gbq_bad_inputs) with every
 * operand in host memory (buffer false) or each a cl_mem at an offset,
 * scales of sdt: the status, what the message names, the output's bytes
 * and the sentinels around it unchanged (an entry that wants CLG_SUCCESS:
 * the reference's output), the inputs unchanged. */
void gbq_run_bad(const gbq_bad *e, clg_dtype sdt, bool buffer);

#endif /* CLGATHER_TESTS_GBQ_CASE_H */
