/*
 * The checks' Tests (tests/check/test_checks.c: clg_gather()'s argument
 * errors; test_checks_indices.c: index values, clg_validate, the bounds
 * scan, buffer access flags; test_checks_shapes.c: clg_gather_output_shape
 * and the tensor builders): what an error must look like, and the call
 * that checks it with a host and a cl_mem output (checks_fx.c).
 */
#ifndef CLGATHER_TESTS_CHECKS_FX_H
#define CLGATHER_TESTS_CHECKS_FX_H

#include <stdbool.h>
#include <stdint.h>

#include "support/testutil.h"

typedef struct expect {
  clg_status status;
  clg_status alt;      /* also accepted, unless CLG_SUCCESS */
  const char *subs[6]; /* NULL-terminated; "a|b" accepts either */
  int64_t ints[4];     /* whole numbers the message must contain */
  int nints;
} expect;

typedef struct out_spec {
  clg_dtype dtype;
  int32_t rank;
  int64_t shape[CLG_MAX_RANK];
  size_t alloc;  /* bytes of storage; 0: the shape's bytes (min 1) */
  size_t offset; /* buffer variant */
  unsigned variants; /* bit 0: host output, bit 1: cl_mem output; 0: both */
  bool host_null;    /* host variant passes host = NULL */
} out_spec;

/* Does msg contain (case-insensitively) one of the "|"-separated alts? */
bool has_sub(const char *msg, const char *alts);
/* Calls clg_gather with each requested output variant and checks status,
 * message, untouched output, no event, and a working context after. */
void check_error_wl(const char *label, clg_context *ctx,
                    const clg_tensor *data, const clg_tensor *indices,
                    int64_t axis, const out_spec *o, cl_uint nev,
                    const cl_event *wl, expect e);
/* check_error_wl without a wait list. */
void check_error(const char *label, clg_context *ctx, const clg_tensor *data,
                 const clg_tensor *indices, int64_t axis, const out_spec *o,
                 expect e);
/* An output of dt, rank and shape (the rest 0: both variants). */
out_spec out_of(clg_dtype dt, int32_t rank, const int64_t *shape);

#endif /* CLGATHER_TESTS_CHECKS_FX_H */
