/*
 * What tests/run/test_faults.c (the gather paths, every_injection_point)
 * and test_faults_ctors.c (the constructors, the extras,
 * transient_build_failure_recovers) share: one binary, test_faults. The
 * helpers are in faults_fx.c; run_ctor(), build_fails_without_log() and
 * context_queue_fails() in test_faults_ctors.c.
 */
#ifndef CLGATHER_TESTS_FAULTS_FX_H
#define CLGATHER_TESTS_FAULTS_FX_H

/* Only host/'s OpenCL calls are counted: the includer defines
 * CLG_FAULTS_IMPL before its first include of host/core/faults.h. */
#ifndef CLG_FAULTS_IMPL
#error "define CLG_FAULTS_IMPL before including run/faults_fx.h"
#endif
#include "core/faults.h"

#include "support/testutil.h"

/* The error each kind is made to fail with (a realistic one per call). */
cl_int fault_error(clg_fault k);
/* The status a failure of kind k must give. */
clg_status expected_status(clg_fault k);
/* The message names the call and the error; a host allocation says so. */
void check_message(const char *label, clg_fault k, const char *msg);
/* The shared cl_context's settled reference count (testutil.h). */
cl_uint context_refs(void);
/* ... after the code under test ran, against `before` (testutil.h). */
cl_uint context_refs_after(cl_uint before);

extern unsigned g_points;                   /* injection points covered */
extern unsigned g_by_kind[CLG_FAULT_COUNT]; /* ... per kind */
/* Count one injection point of kind k. */
void count_point(clg_fault k);
/* A new clg_context borrowing the shared cl_context (asserts success). */
clg_context *fresh_context(void);

/* The two context constructors (test_faults_ctors.c). */
typedef enum ctor { CTOR_DEFAULT = 0, CTOR_BORROW = 1 } ctor;

/* Every call of a constructor failed in turn (test_faults_ctors.c). */
void run_ctor(ctor which);
/* A real build failure whose log cannot be allocated (test_faults_ctors.c). */
void build_fails_without_log(void);
/* clg_context_queue() failing, then recovering (test_faults_ctors.c). */
void context_queue_fails(void);

#endif /* CLGATHER_TESTS_FAULTS_FX_H */
