/*
 * What device/test_context.c and test_context_options.c (one binary,
 * test_context) share: a small gather that must work on a context
 * (context_fx.c).
 */
#ifndef CLGATHER_TESTS_CONTEXT_FX_H
#define CLGATHER_TESTS_CONTEXT_FX_H

#include "support/testutil.h"

/* A small gather on ctx with host tensors, checked against the reference. */
void assert_gathers(clg_context *ctx, const char *what);

#endif /* CLGATHER_TESTS_CONTEXT_FX_H */
