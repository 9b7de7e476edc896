/*
 * One scatter run against the plain-C sequential reference
 * (tools/reference/ref_scatter.h), shared by the scatter suites: a case of
 * tools/cases/scatter.h, its inputs drawn from its seed, clg_scatter() on host
 * or cl_mem tensors, in place or not, the output compared byte for byte, the
 * guard bytes around every tensor checked.
 */
#ifndef CLGATHER_TESTS_SCATTER_CASE_H
#define CLGATHER_TESTS_SCATTER_CASE_H

#include "cases/scatter.h"
#include "support/testutil.h"

/* Runs the case (tools/cases/scatter.h: its inputs drawn from c->seed)
 * and asserts the output equals the reference's, byte for byte, and that
 * nothing outside the tensors was written; where the reference refuses
 * the case (repeated targets under reduction none and duplicates an
 * error; min / max on complex) or the device cannot give a reduction's
 * bits (scatter_case_status()), that the call returned that refusal and
 * wrote nothing. */
void sc_run(const scatter_case *c);

#endif /* CLGATHER_TESTS_SCATTER_CASE_H */
