/* clgather-bench: shared declarations of the benchmark's parts.
 *
 * bench.c            options, the driver (main) and its progress lines.
 * bench_gather.c     the main table per workload: (a) kernel, (b) call,
 *                    (c) validate, (d) copy reference.
 * bench_pipeline.c   device-resident validation (--only pipeline).
 * bench_coldstart.c  new process -> first result (--only coldstart).
 * bench_plans.c      clg_plan_enqueue vs clg_run (--only plans).
 * bench_shard.c      clg_run_sharded over two devices (--only shard).
 * bench_report.c     the text tables on stdout.
 * bench_json.c       the JSON document on stdout (--json).
 * bench_measure.c    interleaved sampling and medians, the samples several
 *                    measurements share, result checks, buffers, a
 *                    workload's inputs in a cl_context.
 * bench_workloads.c  the workload table, --only selection, names.
 * bench_ref.c        random inputs of Gather (batch_dims, modes),
 *                    GatherElements and GatherND, and their expected
 *                    outputs by the one plain-C reference
 *                    (tools/reference/: the tests' and selftest's).
 * bench_cl.c         the OpenCL-only references: clEnqueueCopyBuffer, a
 *                    plain copy kernel over every compute unit, and an empty
 *                    kernel.
 *
 * Every part includes only this header (and the library's). Calls go one
 * way, down this list, never back up:
 *   bench.c
 *   -> bench_gather.c, bench_pipeline.c, bench_coldstart.c, bench_plans.c,
 *      bench_shard.c, bench_report.c, bench_json.c
 *   -> bench_measure.c -> bench_workloads.c -> bench_ref.c, bench_cl.c
 * (bench_report.c and bench_json.c call only bench_workloads.c.) The
 * sections below go bottom-up, from bench_ref.c to bench.c.
 */
#ifndef CLGATHER_TOOLS_BENCH_H
#define CLGATHER_TOOLS_BENCH_H

#include <clgather/clgather.h>

#include <stddef.h>
#include <stdint.h>

#include "bench_util.h"   /* clock, medians */
#include "cases/gather.h" /* random source, shapes, expected outputs */

/* ------------------------------------------------------------ bench_ref.c */

/* One operator call's description: params, data and indices shapes. */
typedef struct bench_op {
  clg_params params;
  clg_dtype dtype;
  int32_t drank;
  int64_t dshape[CLG_MAX_RANK];
  clg_dtype itype; /* CLG_DTYPE_INT32 or CLG_DTYPE_INT64 */
  int32_t irank;
  int64_t ishape[CLG_MAX_RANK];
} bench_op;

/* Element count of a shape (1 for rank 0). */
uint64_t bench_numel(int32_t rank, const int64_t *shape);

/* The operator call as a case of its description (tools/cases/gather.h):
 * every operand in host memory. */
gather_case bench_case(const bench_op *op);

/* Output shape from the operator's definition (its case description's,
 * params normalised as the ONNX/TF rules say). Returns 0, or -1 for shapes
 * the bench cannot handle. */
int bench_ref_shape(const bench_op *op, int32_t *out_rank, int64_t *out_shape);

/* Fill `indices` with uniform random values: in range for mode RAISE (for
 * Gather and GatherElements [0, s), for GatherND component j [0, d_j)); in
 * [-2s, 2s) for WRAP and [-s/16, s + s/16) for CLIP, so that the mode's
 * mapping is exercised while the rows read stay spread as in RAISE. */
void bench_make_indices(const bench_op *op, void *indices, case_rng *r);

/* out = the operator applied to data and indices, from its definition
 * (the plain-C reference, through its case description). Returns 0, or -1
 * on an out-of-range index in mode RAISE. */
int bench_reference(const bench_op *op, const void *data, const void *indices,
                    void *out);

/* ------------------------------------------------------------- bench_cl.c */

/* OpenCL objects the bench uses outside the library. */
typedef struct bench_cl {
  cl_context ctx;
  cl_device_id dev;
  cl_command_queue queue; /* in-order, CL_QUEUE_PROFILING_ENABLE */
  cl_program program;
  cl_kernel copy16, copy1, empty;
  cl_uint compute_units;
  size_t max_wg;
} bench_cl;

/* Create the profiling queue and build the copy and empty kernels. Returns
 * 0, or -1 with a message in err. */
int bench_cl_init(bench_cl *b, cl_context ctx, cl_device_id dev, char *err,
                  size_t errlen);
void bench_cl_release(bench_cl *b);

/* END - START of a completed, profiled event, in seconds; < 0 on error. */
double bench_event_seconds(cl_event ev);

/* Copy `bytes` from src to dst with clEnqueueCopyBuffer (method 0) or the
 * copy kernel (method 1) on b->queue; wait; *seconds = event time. */
int bench_cl_copy(bench_cl *b, int method, cl_mem src, cl_mem dst,
                  size_t bytes, double *seconds);
/* Launch the empty kernel (one work-item) and wait: *event_s the profiled
 * time, *wall_s enqueue-to-completion wall clock. */
int bench_cl_empty(bench_cl *b, double *event_s, double *wall_s);

/* Name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *bench_cl_error(cl_int err);

/* ------------------------------------------------------- bench.c: settings */

typedef struct settings {
  const char *device; /* --device SPEC, NULL: library default */
  int json;
  int quick;
  int reps;         /* --reps N: fixed sample count; 0: adaptive */
  const char *only; /* --only LIST */
  double budget;    /* seconds of samples per measured set (adaptive) */
  int min_reps, max_reps, warmup;
  size_t sweep_bytes; /* output bytes of each sweep workload */
} settings;

/* ------------------------------------------------------- bench_workloads.c */

enum { GROUP_STANDARD = 0, GROUP_SWEEP = 1, GROUP_FAMILY = 2 };

typedef struct workload {
  char name[24];  /* id for --only: "W1", "S4K-i32", "GE-a1" */
  char label[24]; /* short description for the table */
  int group;
  bench_op op;
} workload;

#define MAX_WORKLOADS 96

/* The workload table, filled by define_workloads(). */
extern workload g_work[MAX_WORKLOADS];
extern int g_nwork;

/* Fill g_work: the standard workloads, the rest of the family and the
 * slice-size sweep (fewer slices with cfg->quick). */
void define_workloads(const settings *cfg);

/* "--only W1,S4*": exact names (case-insensitive) or prefixes ending in '*';
 * the words "standard", "sweep", "family" select groups. */
int selected(const settings *cfg, const workload *w);

/* Whether an extra ("pipeline", "coldstart") runs: always without --only,
 * else when the list names it (case-insensitive). */
int only_has(const settings *cfg, const char *word);

/* Index of the workload called `name` in g_work, or -1. */
int find_work(const char *name);

/* "Gather f32[50000, 768] i64[4096] axis 0" */
void describe(char *buf, size_t len, const bench_op *op);

/* Names of the library's enums as the reports print them. */
const char *op_name(clg_op op);
const char *mode_name(clg_index_mode m);
const char *choice_name(clg_choice c);

/* --------------------------------------------------------- bench_measure.c */

typedef struct stats {
  double median, min, max;
  int reps;
} stats;

enum { ST_OK = 0, ST_NA = 1, ST_WRONG = 2, ST_ERROR = 3 };

/* The bench's own clg_context and OpenCL objects on its device. */
typedef struct env {
  clg_context *ctx;
  bench_cl cl;
  const settings *cfg;
} env;

/* One sample: 0 and *seconds, or -1 with a message in msg. */
typedef int (*sample_fn)(void *state, double *seconds, char *msg,
                         size_t msglen);

/* Measure `n` functions interleaved (round i runs each once), after
 * cfg->warmup warm-up rounds. The number of rounds is cfg->reps, or
 * budget / (time of one round) clamped to [min_reps, max_reps]. */
int measure_set(const settings *cfg, double budget, int n, sample_fn *fns,
                void **states, stats *out, char *msg, size_t msglen);

/* "STATUS: clg_last_error()" into msg. */
void set_clg_message(char *msg, size_t len, clg_status st);

/* A clg_run call's context, params, tensors and queue, for the samples. */
typedef struct run_state {
  clg_context *ctx;
  const clg_params *params;
  const clg_tensor *data, *indices, *output;
  cl_command_queue queue;
} run_state;

/* (a) the library's kernel on device-resident tensors: the event's
 * START..END. */
int sample_kernel(void *state, double *seconds, char *msg, size_t msglen);

/* (iii) clg_run on cl_mem data, indices and output: wall clock from the
 * call to the completion of its event (validation, launch, kernel). */
int sample_e2e(void *state, double *seconds, char *msg, size_t msglen);

/* (d) copy reference: clEnqueueCopyBuffer (method 0) or the copy kernel
 * (method 1) of `bytes` from src to dst, event-profiled. */
typedef struct copy_state {
  bench_cl *cl;
  int method;
  cl_mem src, dst;
  size_t bytes;
} copy_state;

int sample_copy(void *state, double *seconds, char *msg, size_t msglen);

/* Compare, describing the first difference. */
int compare(const unsigned char *got, const unsigned char *want, size_t bytes,
            const char *path, char *msg, size_t msglen);

/* clCreateBuffer of `bytes` (at least 1); NULL with a message on failure. */
cl_mem make_buffer(cl_context c, cl_mem_flags flags, size_t bytes, void *host,
                   char *msg, size_t msglen);

/* Fill a buffer with the poison byte and wait. 0, or -1 with a message. */
int poison_buffer(cl_command_queue q, cl_mem m, size_t bytes,
                  unsigned char poison, char *msg, size_t msglen);

/* Read a buffer back (blocking) into got. 0, or -1 with a message. */
int read_buffer(cl_command_queue q, cl_mem m, size_t bytes, void *got,
                char *msg, size_t msglen);

/* A workload's inputs, its reference output and its cl_mem tensors in one
 * cl_context: the same inputs (same seed) as the workload's row in the main
 * table. */
typedef struct wl_inputs {
  int32_t orank;
  int64_t oshape[CLG_MAX_RANK];
  uint64_t data_bytes, index_bytes, out_bytes;
  unsigned char *data, *want, *got;
  void *indices;
  cl_mem dmem, xmem, omem, cmem; /* cmem: the reference output (copy src) */
  clg_tensor dd, xd, od;
} wl_inputs;

/* 0, or -1 with a message (in->* released by wl_release either way). With
 * copy_src, also a read-only buffer holding the reference output. */
int wl_prepare(wl_inputs *in, int wi, cl_context clctx, int copy_src, char *msg,
               size_t msglen);
void wl_release(wl_inputs *in);

/* ---------------------------------------------------------- bench_gather.c */

typedef struct result {
  int status;
  char message[600];
  uint64_t data_bytes, index_bytes, out_bytes;
  stats kernel, copybuf, copykern, call, validate;
  double copy_ref;         /* min of the two copy medians */
  const char *copy_method; /* which one */
  double seconds;          /* wall time spent on the workload */
  double reference_s;      /* one run of the plain-C reference (info) */
  double first_call_s;     /* the workload's first clg_run on its cl_mem
                            * tensors, wall clock to completion: its shape
                            * class's first use in the process (programs
                            * from the disk cache or built, the variant
                            * from the disk cache or timed) */
  const char *variant;     /* the kernel variant (a) ran */
  clg_choice choice;       /* how the library chose it */
} result;

/* The main table's row of one workload: check, then measure (a)-(d). */
void run_workload(env *E, const workload *w, result *r);

/* -------------------------------------------------------- bench_pipeline.c */

/* The library validates cl_mem indices with its validation kernel from this
 * many index bytes up and by read-back + host scan below
 * (CLG_VALIDATE_DEVICE_MIN_BYTES in host/run/index_pass.c). The bench cannot
 * ask which path a call took: it infers it from this threshold. */
#define BENCH_VALIDATE_DEVICE_MIN_BYTES ((uint64_t)32 << 10)

typedef struct pipe_result {
  int work; /* index into g_work, -1: not defined */
  int status;
  char message[600];
  uint64_t data_bytes, index_bytes, out_bytes;
  int device_path; /* the library's choice, inferred from the threshold */
  stats kernel, devval, rbval, e2e;
  stats async_e2e, async_ret; /* (iv), (v): clg_run_async */
  double seconds;
} pipe_result;

/* W1 or W2 (g_work[wi]) device-resident: (a), (i)-(v). */
void run_pipeline(env *E, int wi, pipe_result *r);

/* ------------------------------------------------------- bench_coldstart.c */

#define COLD_CASES 3 /* disk cache cold, warm, off */

typedef struct cold_sample {
  double first;   /* spawn -> first result, less input preparation */
  double startup; /* spawn -> main */
  double context; /* clg_context_create_default */
  double call;    /* the first clg_run, blocking */
  double inputs;  /* input preparation in the child (excluded) */
} cold_sample;

typedef struct cold_result {
  int status;
  char message[600];
  int reps;
  cold_sample med[COLD_CASES]; /* medians, field by field */
  double first_min[COLD_CASES], first_max[COLD_CASES];
  int cache_files; /* files in the cold dir after the first cold child */
  double seconds;
} cold_result;

/* "cold", "warm", "off" */
extern const char *const cold_case_name[COLD_CASES];

/* The child (--cold-start-child): one W1 gather in a new process; prints
 * its times on stdout. Returns the exit status. */
int cold_start_child(const settings *cfg, double t_main);

/* Spawn children of this binary (argv0) with the disk cache cold, warm and
 * off, interleaved, and take the medians. */
void run_cold_start(const settings *cfg, const char *argv0, cold_result *r);

/* ----------------------------------------------------------- bench_plans.c */

typedef struct plans_result {
  int work; /* index into g_work */
  int status;
  char message[600];
  uint64_t data_bytes, index_bytes, out_bytes;
  stats kernel, run_over, plan_over;
  int first_reps;
  /* medians over first_reps, seconds */
  double unbaked_first, bake, baked_first;
  double unbaked_min, unbaked_max, baked_min, baked_max;
  double seconds;
} plans_result;

/* W1 or W2 (g_work[wi]) on cl_mem tensors: plan vs clg_run overhead, first
 * calls unbaked and baked. */
void run_plans(env *E, int wi, plans_result *r);

/* ----------------------------------------------------------- bench_shard.c */

#define SHARD_DEVICES 2

/* The two-device setup: the bench's device and the next device of its
 * platform, in one cl_context, a clg_context on each. */
typedef struct shard_env {
  int status; /* ST_OK: ready; ST_NA: fewer than 2 devices; ST_ERROR */
  char message[600];
  cl_uint platform_devices;
  char names[SHARD_DEVICES][256];
  cl_context clctx;
  clg_context *ctxs[SHARD_DEVICES];
  bench_cl cl; /* profiling queue and copy kernels on ctxs[0]'s device */
  int cl_init;
} shard_env;

typedef struct shard_result {
  int work;
  int status;
  char message[600];
  uint64_t out_bytes;
  stats copybuf, copykern, kernel, single, sharded;
  double copy_ref;
  const char *copy_method;
  double seconds;
} shard_result;

/* Set up the two devices (S->status ST_OK), or say why not (ST_NA: fewer
 * than 2 devices on the platform; ST_ERROR). */
void shard_env_init(env *E, shard_env *S);
void shard_env_release(shard_env *S);

/* W1 or W2 (g_work[wi]): copy-ref, kernel, clg_run and clg_run_sharded. */
void run_shard(env *E, shard_env *S, int wi, shard_result *r);

/* -------------------------------------------- bench_report.c, bench_json.c */

typedef struct run_info {
  char device[256], version[256], driver[128];
  cl_uint cus;
  double floor_event, floor_wall;
  int floor_reps;
  double total_seconds;
} run_info;

typedef struct extras {
  int pipeline, coldstart, plans, shard; /* selected and run */
  pipe_result pipe[2];
  int npipe;
  cold_result cold;
  plans_result plan[2];
  int nplan;
  /* shard: the setup's outcome (ST_OK, ST_NA: one device, ST_ERROR) */
  int shard_status;
  char shard_message[600];
  unsigned shard_platform_devices;
  char shard_names[SHARD_DEVICES][256];
  shard_result shard_rows[2];
  int nshard;
} extras;

/* The text report; idx[0..n-1] index g_work, res[i] is idx[i]'s result. */
void print_table(const run_info *info, const settings *cfg, const int *idx,
                 const result *res, int n, const extras *x);

/* The same as a JSON document. */
void print_json(const run_info *info, const settings *cfg, const int *idx,
                const result *res, int n, const extras *x);

#endif /* CLGATHER_TOOLS_BENCH_H */
