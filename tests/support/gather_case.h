/*
 * One case runner for the gather family (Gather, GatherElements, GatherND),
 * shared by their suites, as support/scatter_case.h is for the scatters.
 * The cases are described in tools/cases/gather.h (shapes, types, where
 * each operand lives, inputs drawn from a seed, the reference's output);
 * a run checks clg_output_shape()
 * against the reference's shape and clg_validate() (with the context, and
 * without one for host inputs), runs the operator through clg_run() or its
 * convenience call (clg_gather, clg_gather_elements, clg_gather_nd) on the
 * case's context and queue, and compares the output with the plain-C
 * reference byte for byte, plus the guard bytes around it and the
 * unchanged inputs.
 *
 * A runner counts a Test's cases and stops it after GC_MAX_FAILURES; it may
 * run its cases on a context of its own (one created with CLGATHER_VARIANT
 * set, to force a kernel variant: read when a context is created), keep one
 * case in `every`, and count the cases that ran its forced variant.
 */
#ifndef CLGATHER_TESTS_GATHER_CASE_H
#define CLGATHER_TESTS_GATHER_CASE_H

#include <criterion/criterion.h>

#include "cases/gather.h"
#include "support/testutil.h"

/* Runs the case with data and indices drawn from seed (gather_inputs_draw)
 * on its context (NULL: tu_ctx()). Returns true on success; otherwise
 * writes why to msg. */
bool gc_run_case(const gather_case *c, uint64_t seed, char *msg, size_t cap);

/* Checks clg_output_shape() against the reference on a shape pair that may
 * be invalid: both accept with the same shape, or both reject (the library
 * with a shape/axis/batch_dims/rank status and a message). */
bool gc_shape_agrees(const gather_case *c, char *msg, size_t cap);

#define GC_MAX_FAILURES 8

typedef struct gc_runner {
  int cases;
  int failures;
  clg_context *ctx;    /* cases without a context of their own run here
                          (NULL: tu_ctx()) */
  int every;           /* 0 or 1: every case; n > 1: about one in n */
  uint64_t seen;       /* cases offered since `every` was set */
  uint64_t salt;       /* which one in n */
  const char *variant; /* the variant forced on ctx (its name), or NULL */
  int forced;          /* cases that ran `variant`, forced */
} gc_runner;

/* Runs the case (one in CLGATHER_TEST_SAMPLE; with rn->every > 1, the first
 * case offered and about one in `every` of the others, drawn by a hash of
 * their number and the salt, so that no loop of the generator aliases with
 * the choice); a failure is a failed expectation naming the case, and
 * GC_MAX_FAILURES of them end the Test. */
void gc_run(gc_runner *rn, const gather_case *c, uint64_t seed);
/* Logs the count; asserts that a case ran, and, with a variant, that one
 * ran it. */
void gc_finish(const gc_runner *rn, const char *what);

/* A generator of cases: it hands each to gc_run(rn, ...). */
typedef void (*gc_cases_fn)(gc_runner *rn);

/* GC_CASES(suite, name) { body }: the generator name_cases(rn), and a Test
 * suite::name that runs every case it makes on the shared context. The
 * forced-variant Tests run the same generators (gc_run_forced). */
#define GC_CASES(suite, name)                                                  \
  static void name##_cases(gc_runner *rn);                                     \
  Test(suite, name) {                                                          \
    gc_runner rn = {0};                                                        \
    name##_cases(&rn);                                                         \
    gc_finish(&rn, #name);                                                     \
  }                                                                            \
  static void name##_cases(gc_runner *rn)

/* Kernel variant `variant` forced (CLGATHER_VARIANT, read when a context is
 * created) on a context of its own on the shared cl_context: each of the
 * `count` generators runs its first case and about one in `every` of the
 * others there (a different choice per variant), and the variant must have
 * run, forced, in at least one case. Skipped in the suites' reruns under
 * CLGATHER_TEST_KERNEL_DEVICE, CLGATHER_TEST_DEVICE_VALIDATION or
 * CLGATHER_TEST_MAX_ALLOC. */
void gc_run_forced(const char *variant, const gc_cases_fn *gens, size_t count,
                   int every);
/* GC_FORCED(suite, variant, gens, every): the Test
 * suite::forced_variant_VARIANT, gc_run_forced() over the array gens. Test
 * builds only: the suites' run against the shipped library
 * (tests/CMakeLists.txt) checks its build, not the kernels again. */
#if defined(CLGATHER_TESTING)
#define GC_FORCED(suite, variant, gens, every)                                 \
  Test(suite, forced_variant_##variant) {                                      \
    gc_run_forced(#variant, gens, sizeof gens / sizeof gens[0], every);        \
  }
#else
#define GC_FORCED(suite, variant, gens, every)                                 \
  __attribute__((unused)) static const gc_cases_fn *forced_variant_##variant( \
      void) {                                                                  \
    return gens;                                                               \
  }
#endif

/* Storage: host memory; a cl_mem with the tensor `offset` bytes in. */
tu_storage gc_host(void);
tu_storage gc_buf(size_t offset);
/* Cycles through the 8 host/buffer combinations with case number n, the
 * offsets multiples of `unit` elements. */
void gc_storage_for(gather_case *c, int n, size_t unit);
void gc_set_shape(int64_t *dst, int32_t rank, const int64_t *src);

/* Runs a small known-good gather on the shared context (host and buffer
 * storage) and asserts it matches: "the context still works". */
void gc_assert_context_works(const char *after);

#endif /* CLGATHER_TESTS_GATHER_CASE_H */
