/* Cases of the scatters' index pass on the device, shared by the Tests of
 * test_scatter_device (ops/test_scatter_device.c: random cases, errors,
 * the asynchronous call; ops/test_scatter_device_rows.c: the CPU's row
 * claim and runs): a case on float data, its inputs, the plain-C
 * reference, and one call through clg_scatter() or clg_scatter_async(). */
#ifndef CLGATHER_TESTS_SCATTER_DEVICE_FX_H
#define CLGATHER_TESTS_SCATTER_DEVICE_FX_H

#include <stdbool.h>
#include <stdint.h>

#include "support/testutil.h"

#include "internal.h" /* clg_context::device_validations */

typedef struct sd_case {
  clg_op op;
  int64_t axis;
  clg_scatter_params sp;
  clg_dtype idt;
  int32_t r, q;
  int64_t ds[4], is[4];
  bool in_place;
  size_t offset; /* bytes into every buffer, plus 16 */
} sd_case;

typedef struct sd_run {
  clg_status st;
  char msg[1024];
  float *out; /* the output's bytes after the call */
  bool bare;  /* a synchronous call whose plan checked the values itself */
} sd_run;

/* The updates' shape of a case into us[]; its rank. */
int32_t sd_updates_shape(const sd_case *c, int64_t *us);
/* The bound of the index at flat position `pos`. */
int64_t sd_bound(const sd_case *c, int64_t pos);
/* Is the test context's device given a CPU's kernels? */
bool sd_cpu_plan(void);
/* Does the device schedule of this call check the index values itself
 * (ops/op.h: checks_values)? */
bool sd_plan_checks(clg_op op, int64_t axis, const clg_scatter_params *sp,
                    clg_context *ctx, const clg_tensor *data,
                    const clg_tensor *x);
/* The case on float data: host indices (device false, the host path) or
 * cl_mem everything, synchronous or not; fills *res (res->out: malloc'd). */
void sd_call(const sd_case *c, const float *data, const void *idx,
             const float *upd, bool device, bool async, sd_run *res);
/* Inputs of a case (malloc'd): data and updates with fractions, valid
 * indices, negative half the time, with repeats. */
void sd_inputs(const sd_case *c, tu_rng *rng, float **data, void **idx,
               float **upd);
/* The plain-C sequential reference applied to `want` (data's values):
 * REF_OK, REF_OOB or REF_DUPLICATE (tools/reference/ref_scatter.h). */
int sd_reference(const sd_case *c, float *want, const void *idx,
                 const float *upd);
/* A random case: ScatterElements or ScatterND, rank 1-3. */
sd_case sd_random(tu_rng *rng, int big);

#endif
