/*
 * clg_gather_output_shape's results and errors, and the tensor builders
 * (part of test_checks; the rest is in test_checks.c and
 * test_checks_indices.c, the shared checks in checks_fx.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checks_fx.h"

/* ------------------------------------------- clg_gather_output_shape */

Test(checks, output_shape_results) {
  tu_rng rng = tu_rng_make(4242);
  int n = 0;
  for (int32_t r = 1; r <= 8; ++r)
    for (int32_t q = 0; q <= 4; ++q)
      for (int64_t axis = -r; axis < r; ++axis) {
        int64_t ds[8], is[4];
        for (int32_t k = 0; k < r; ++k)
          ds[k] = tu_rng_range(&rng, 0, 9);
        for (int32_t k = 0; k < q; ++k)
          is[k] = tu_rng_range(&rng, 0, 9);
        int32_t want_rank = -1, got_rank = -1;
        int64_t want[REF_MAX_RANK], got[CLG_MAX_RANK];
        cr_assert(ref_gather_shape(r, ds, q, is, axis, CLG_MAX_RANK,
                                   &want_rank, want) == 0);
        clg_status st = clg_gather_output_shape(r, ds, q, q ? is : NULL, axis,
                                                &got_rank, got);
        char a[96], b[96];
        cr_assert(st == CLG_SUCCESS, "data %s indices %s axis %" PRId64 ": %s",
                  tu_shape_str(r, ds, a, sizeof a),
                  tu_shape_str(q, is, b, sizeof b), axis, clg_last_error());
        cr_assert(got_rank == want_rank && memcmp(got, want, sizeof(int64_t) *
                                                                 (size_t)want_rank) == 0,
                  "data %s indices %s axis %" PRId64 ": got rank %d %s",
                  tu_shape_str(r, ds, a, sizeof a),
                  tu_shape_str(q, is, b, sizeof b), axis, (int)got_rank,
                  tu_shape_str(got_rank, got, b, sizeof b));
        cr_assert(clg_last_error()[0] == '\0');
        ++n;
      }
  /* Limits: rank 16 data with a scalar, rank 1 data with rank 16 indices,
   * rank 9 + rank 8. */
  int64_t ones[CLG_MAX_RANK];
  for (int k = 0; k < CLG_MAX_RANK; ++k)
    ones[k] = 2;
  int32_t orank = 0;
  int64_t oshape[CLG_MAX_RANK];
  cr_expect(clg_gather_output_shape(16, ones, 0, NULL, 15, &orank, oshape) ==
                CLG_SUCCESS && orank == 15);
  cr_expect(clg_gather_output_shape(1, ones, 16, ones, 0, &orank, oshape) ==
                CLG_SUCCESS && orank == 16);
  cr_expect(clg_gather_output_shape(9, ones, 8, ones, -9, &orank, oshape) ==
                CLG_SUCCESS && orank == 16);
  cr_log_info("output_shape_results: %d shapes", n);
}

static void shape_err(const char *label, int32_t r, const int64_t *ds,
                      int32_t q, const int64_t *is, int64_t axis,
                      int32_t *orank, int64_t *oshape, clg_status want,
                      const char *sub) {
  clg_status st = clg_gather_output_shape(r, ds, q, is, axis, orank, oshape);
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", clg_last_error());
  cr_expect(st == want, "%s: want %s, got %s: \"%s\"", label,
            clg_status_string(want), clg_status_string(st), msg);
  cr_expect(msg[0] != '\0', "%s: empty message", label);
  if (sub)
    cr_expect(has_sub(msg, sub), "%s: message lacks \"%s\": \"%s\"", label, sub,
              msg);
}

Test(checks, output_shape_errors) {
  int64_t ds[CLG_MAX_RANK + 2], is[CLG_MAX_RANK + 2];
  for (int k = 0; k < CLG_MAX_RANK + 2; ++k)
    ds[k] = is[k] = 3;
  int32_t orank;
  int64_t os[CLG_MAX_RANK];
  shape_err("data_shape NULL", 2, NULL, 1, is, 0, &orank, os,
            CLG_ERROR_NULL_ARGUMENT, "data");
  shape_err("indices_shape NULL, q 1", 2, ds, 1, NULL, 0, &orank, os,
            CLG_ERROR_NULL_ARGUMENT, "indices");
  shape_err("out_rank NULL", 2, ds, 1, is, 0, NULL, os,
            CLG_ERROR_NULL_ARGUMENT, NULL);
  shape_err("out_shape NULL", 2, ds, 1, is, 0, &orank, NULL,
            CLG_ERROR_NULL_ARGUMENT, NULL);
  shape_err("data rank 0", 0, ds, 1, is, 0, &orank, os, CLG_ERROR_INVALID_RANK,
            "data");
  shape_err("data rank -1", -1, ds, 1, is, 0, &orank, os,
            CLG_ERROR_INVALID_RANK, "data");
  shape_err("data rank 17", 17, ds, 0, is, 0, &orank, os,
            CLG_ERROR_INVALID_RANK, "17");
  shape_err("indices rank 17", 1, ds, 17, is, 0, &orank, os,
            CLG_ERROR_INVALID_RANK, "17");
  shape_err("indices rank -1", 2, ds, -1, is, 0, &orank, os,
            CLG_ERROR_INVALID_RANK, "indices");
  shape_err("q + r - 1 = 17", 9, ds, 9, is, 0, &orank, os,
            CLG_ERROR_INVALID_RANK, "17");
  ds[1] = -4;
  shape_err("data dim -4", 3, ds, 1, is, 0, &orank, os,
            CLG_ERROR_INVALID_SHAPE, "-4");
  ds[1] = 3;
  is[0] = -1;
  shape_err("indices dim -1", 3, ds, 1, is, 0, &orank, os,
            CLG_ERROR_INVALID_SHAPE, "indices");
  is[0] = 3;
  shape_err("axis r", 3, ds, 1, is, 3, &orank, os, CLG_ERROR_INVALID_AXIS, "3");
  shape_err("axis -r-1", 3, ds, 1, is, -4, &orank, os, CLG_ERROR_INVALID_AXIS,
            "-4");
  shape_err("axis INT64_MIN", 1, ds, 0, NULL, INT64_MIN, &orank, os,
            CLG_ERROR_INVALID_AXIS, NULL);
}

/* ----------------------------------------------------- tensor builders */

Test(checks, tensor_builders) {
  int64_t shape[20];
  for (int k = 0; k < 20; ++k)
    shape[k] = k + 1;
  int dummy = 0;
  clg_tensor t = clg_tensor_host(CLG_DTYPE_INT16, 3, shape, &dummy);
  cr_expect(t.dtype == CLG_DTYPE_INT16 && t.rank == 3 &&
            t.storage == CLG_STORAGE_HOST && t.host == &dummy);
  cr_expect(t.shape[0] == 1 && t.shape[1] == 2 && t.shape[2] == 3);
  t = clg_tensor_host(CLG_DTYPE_FLOAT, 0, NULL, &dummy);
  cr_expect(t.rank == 0 && t.host == &dummy);
  t = clg_tensor_host(CLG_DTYPE_FLOAT, 20, shape, &dummy);
  cr_expect(t.rank == 20, "rank outside [0, 16] is stored as given");
  cr_expect(t.shape[15] == 16, "the shape copy is clamped to 16 entries");
  t = clg_tensor_host(CLG_DTYPE_FLOAT, -3, shape, &dummy);
  cr_expect(t.rank == -3);

  cl_mem b = tu_buffer_create(64, NULL);
  t = clg_tensor_buffer(CLG_DTYPE_COMPLEX64, 2, shape, b, 24);
  cr_expect(t.dtype == CLG_DTYPE_COMPLEX64 && t.rank == 2 &&
            t.storage == CLG_STORAGE_BUFFER && t.buffer == b && t.offset == 24 &&
            t.shape[0] == 1 && t.shape[1] == 2);
  t = clg_tensor_buffer(CLG_DTYPE_FLOAT, 17, shape, b, 0);
  cr_expect(t.rank == 17 && t.shape[15] == 16);
  clReleaseMemObject(b);
}
