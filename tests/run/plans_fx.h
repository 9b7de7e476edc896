/*
 * What the Tests of test_plans share (test_plans.c, test_plans_create.c,
 * test_plans_enqueue.c, test_plans_async.c, test_plans_supported.c; one
 * binary): poisoned out-values, a clg_context of the test's own, storage
 * shorthands, specs of gather calls and jobs (their memory and reference
 * result), and runs of a job through a plan or the one-shot calls
 * (plans_fx.c).
 */
#ifndef CLGATHER_TESTS_PLANS_FX_H
#define CLGATHER_TESTS_PLANS_FX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/testutil.h"

#include "internal.h" /* clg_context's builds / device_validations counters */

/* Values no call may write on failure (*out, *event, *outcome). */
extern int plans_poison;
#define POISON_PLAN ((clg_plan *)(void *)&plans_poison)
#define POISON_EVENT ((cl_event)(void *)&plans_poison)
#define POISON_OUTCOME ((clg_outcome *)(void *)&plans_poison)

/* A shape or index list literal. */
#define D(...) ((const int64_t[]){__VA_ARGS__})

/* One operator call fixed in everything but its memory. */
typedef struct spec {
  const char *name;
  clg_params p;
  clg_dtype dtype, idt;
  int32_t r, q;
  int64_t ds[CLG_MAX_RANK], is[CLG_MAX_RANK];
  tu_storage st[3]; /* data, indices, output */
} spec;

/* One call's memory: data and indices drawn from a seed, the output full of
 * TU_SENTINEL, the reference result. */
typedef struct job {
  const spec *s;
  tu_tensor d, x, o;
  unsigned char *data, *idx, *want;
  size_t dbytes, ibytes, obytes;
  int32_t orank;
  int64_t oshape[REF_MAX_RANK];
  int64_t oob_pos; /* -1, or where an out-of-bounds index was put */
} job;

/* A clg_context of the test's own (its builds counter exact, starting at 0). */
clg_context *fresh_ctx(void);
/* Host memory. */
tu_storage H(void);
/* A cl_mem of its own, the tensor at `offset`. */
tu_storage B(size_t offset);

/* A spec from its fields (shapes copied up to CLG_MAX_RANK). */
spec mkspec(const char *name, clg_op op, int64_t axis, int64_t bd,
            clg_index_mode mode, clg_dtype dtype, int32_t r, const int64_t *ds,
            clg_dtype idt, int32_t q, const int64_t *is, tu_storage sd,
            tu_storage sx, tu_storage so);
/* The spec's templates without memory (NULL host pointers and buffers). */
void spec_templates(const spec *s, clg_tensor *d, clg_tensor *x, clg_tensor *o);
/* A plan for the spec's templates with `flags`; asserts success, no message. */
clg_plan *spec_plan(clg_context *ctx, const spec *s, unsigned flags);

/* A job's memory and reference result; `extra` added to buffer offsets, an
 * out-of-bounds index at oob_pos >= 0 (then no reference). */
void job_make_ex(job *j, const spec *s, uint64_t seed, size_t extra,
                 int64_t oob_pos, bool oob_value_neg);
/* job_make_ex without an out-of-bounds index. */
void job_make(job *j, const spec *s, uint64_t seed, size_t extra);
/* Frees a job's memory. */
void job_free(job *j);
/* The job's inputs are unchanged. */
bool job_inputs_ok(const job *j);
/* The output is the reference's, nothing around it written, the inputs
 * unchanged; false and why in msg otherwise. */
bool job_ok(const job *j, char *msg, size_t cap);
/* The output and its guards still TU_SENTINEL, the inputs unchanged. */
bool job_untouched(const job *j);
/* Enqueues the job on plan and waits; the status, message in msg, contract
 * breaches in why (empty when none); no Criterion assertion (any thread). */
clg_status run_plan(clg_plan *plan, bool async, job *j, cl_command_queue q,
                    char *msg, size_t mcap, char *why, size_t wcap);
/* run_plan, expecting success and the reference's bytes. */
void plan_ok(clg_plan *plan, bool async, job *j, cl_command_queue q,
             const char *what);
/* The job through clg_run (or clg_run_async and its outcome), waited for. */
clg_status run_oneshot(clg_context *ctx, bool async, job *j, char *msg,
                       size_t cap);

/* The specs of several files (plans_fx.c says what each exercises). */
/* gather f32 [50,8] axis 0, int32 [12], buffers. */
spec s_gather_buf(void);
/* gather u16 [3,5,7,4] axis 2 batch_dims 1, int64 [3,6], host data. */
spec s_gather_bd(void);
/* gather f16 [10,6] axis 1, int64 [4], buffers, host output. */
spec s_gather_host_out(void);
/* elements f64 [4,6,3] axis 1, int64 [4,5,3], buffers. */
spec s_elements_buf(void);
/* nd i8 [3,4,5,6] batch_dims 1, int32 [3,7,2], buffers. */
spec s_nd_buf(void);
/* gather bf16 [20,3] axis -1, int64 [2,5], host. */
spec s_gather_host(void);
/* nd f32 [4,5,6], int64 [3,2], host. */
spec s_nd_host(void);
/* gather f32 [64,4], int32 [8192] (32 KiB: device validation), buffers. */
spec s_gather_big(void);

#endif /* CLGATHER_TESTS_PLANS_FX_H */
