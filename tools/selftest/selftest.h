/*
 * `clgather selftest`: the conformance of a user's own OpenCL device, in
 * the shape of the Khronos conformance suite (OpenCL-CTS): a row of small
 * cases per registered operator, each comparing what the device computes
 * with the plain-C references (tools/reference/, the specification) byte
 * for byte, and one harness (selftest.c) that runs them and prints a
 * summary. Which cases a row runs is the operator's case description's
 * conformance set (tools/cases/operators.h): a new operator of a family
 * with a runner gets its row from its description alone.
 *
 * Modules, each calling only those before it: selftest_exec.c (one call of
 * the library on the device, with host, cl_mem or asynchronously checked
 * operands, the output's guard bytes checked) <- selftest_gather.c,
 * selftest_scatter.c, selftest_bag.c, selftest_gbq.c (each family's
 * runner of one case; selftest_bag.c and selftest_gbq.c also run
 * EmbeddingBag's and GatherBlockQuantized's calls, whose operands st_call
 * cannot hold), selftest_bad.c (the bad-input catalogues) <- selftest.c
 * (the command, the rows, the exit status). A client of the public API
 * only.
 */
#ifndef CLGATHER_TOOLS_SELFTEST_H
#define CLGATHER_TOOLS_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather.h>

#include "cases/operators.h"

/* The rows of the summary table: one per registered operator
 * (tools/cases/operators.h, in the registry's order), then the bad
 * inputs' and the ONNX node folders'. */
#define ST_MAX_ROWS 32

/* How many failing cases are kept, in full, for the report. */
#define ST_MAX_FAILS 8
#define ST_DESC 640

typedef struct st_row {
  const char *name;
  int cases, passed, failed;
  /* clg_context_last_variant() reports the operator's kernel variants
   * (the gather family's); then `variants`, bits of st_variant_names(),
   * after each case */
  bool has_variants;
  unsigned variants;
  double seconds;
  char note[300]; /* e.g. where ONNX data was looked for */
} st_row;

typedef struct st_run {
  clg_context *ctx;
  bool quick, json;
  bool fp64; /* the device has cl_khr_fp64 */
  /* CL_FP_DENORM in CL_DEVICE_SINGLE_FP_CONFIG / DOUBLE_FP_CONFIG: without
   * it the library refuses those types' reductions (clg_reduction) */
  bool single_denorm, double_denorm;
  st_row rows[ST_MAX_ROWS];
  int nrows, noperators; /* rows[0 .. noperators) are the operators' */
  int row; /* the row cases are counted in */
  char fails[ST_MAX_FAILS][ST_DESC];
  int nfails; /* failures in all (fails[] keeps the first) */
  bool device_error; /* a call failed with an OpenCL error */
  char device_msg[ST_DESC];
  /* The case being run (st_exec), for the report when the process dies
   * in it: the cases run in a child process (a crashing kernel on a CPU
   * device kills the process running it), this struct is shared. */
  char current[ST_DESC];
  char device[256], version[256];
} st_run;

/* "host", "buffer", "async", "in-place" (selftest_exec.c). */
const char *st_call_name(case_call s);

/* One call: the operator, its attributes and its operands' host values
 * (`call` decides where they go and which entry point runs). */
typedef struct st_call {
  clg_params params;
  clg_scatter_params sp;
  bool scatter;
  clg_dtype dtype, itype;
  clg_dtype otype, utype; /* output's and updates' (0: dtype) */
  int32_t dr, ir, ur, orank;
  int64_t dshape[CLG_MAX_RANK], ishape[CLG_MAX_RANK], ushape[CLG_MAX_RANK],
      oshape[CLG_MAX_RANK];
  const void *data, *indices, *updates;
  case_call call;
} st_call;

/* Guard bytes before and after every tensor of a call (a multiple of every
 * element size: also the cl_mem offset), and their value. */
#define ST_GUARD 64
#define ST_GUARD_BYTE 0x5A

/* A cl_mem of ST_GUARD + n + ST_GUARD bytes holding guards around `bytes`
 * (n may be 0); *image (malloc'ed, the caller frees) is what it holds.
 * NULL with *err set on failure. */
cl_mem st_make_buffer(cl_context cl, cl_command_queue q, const void *bytes,
                      size_t n, unsigned char **image, cl_int *err);

/* Read a buffer back: 0 when it still holds `image` (total bytes), 1 when
 * it changed (where, in why, naming it `what`), -1 on an OpenCL error. */
int st_check_unchanged(cl_command_queue q, cl_mem m, const void *image,
                       size_t total, const char *what, char *why,
                       size_t whylen);

/* Bytes of a tensor of `dtype` and shape; 0 for no elements. */
size_t st_nbytes(clg_dtype dtype, int32_t rank, const int64_t *shape);

/* Run the call on r->ctx. The output starts as `init` (out_bytes bytes:
 * data's for an in-place scatter, else any pattern) with guard bytes around
 * it; *status is the library's (for CASE_CALL_ASYNC the outcome's when the call
 * succeeded), got[] receives the output's bytes after the call. Returns 0,
 * or -1 when the harness itself could not run the call (what failed in
 * `why`): an OpenCL call of its own failed, or a guard byte changed. */
int st_exec(st_run *r, const st_call *c, const void *init, size_t out_bytes,
            void *got, clg_status *status, char *why, size_t whylen);

/* The end of one call of the library: `st` its status; then the outcome's
 * (oc, NULL: none) when it succeeded, and the call's event (ev, NULL:
 * none) waited for and released, an event that did not complete being
 * CLG_ERROR_OPENCL; the message of a failure in `why`. Releases oc.
 * Returns the call's status. */
clg_status st_finish(clg_status st, cl_event ev, clg_outcome *oc, char *why,
                     size_t whylen);

/* Record the case just run: passed when `ok`, else failed with its full
 * description (operator, dtype, shapes, params, storage, first differing
 * byte). The variant the library last launched is added to the row. */
void st_record(st_run *r, bool ok, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Judge and record the case just run (st_record): `rc` the runner's
 * (< 0: the device failed, which stops the run's later rows; > 0: the
 * case failed, `why` says how), `st` the call's status against `want_st`
 * (a device error among them also stops the run), then the output's `n`
 * bytes against `want` (elements of `esize` bytes; a refused call must
 * leave the output as it was, and `want` is then its first bytes). */
void st_judge(st_run *r, const char *desc, int rc, clg_status st,
              clg_status want_st, const void *got, const void *want, size_t n,
              size_t esize, const char *why);

/* "Gather int8 data [2, 3] int64 indices [4] axis=1 batch_dims=0
 * mode=wrap storage=buffer" into buf. */
void st_describe(const st_call *c, char *buf, size_t len);

/* The first byte where a and b differ: 1 and its text in buf
 * ("byte 17 (element 4) is 0x00, expected 0x3f"), or 0 when equal. */
int st_first_diff(const void *got, const void *want, size_t n, size_t esize,
                  char *buf, size_t len);

/* A deterministic generator (splitmix64). */
uint64_t st_rand(uint64_t *state);
/* Uniform in [lo, hi]. */
int64_t st_range(uint64_t *state, int64_t lo, int64_t hi);
/* Random element bytes of dtype (finite, moderate values for the
 * floating types, 0/1 for bool) into buf, n elements. */
void st_fill(uint64_t *state, clg_dtype dtype, void *buf, size_t n);
/* Store index value v as element i of an int32/int64 array. */
void st_set_index(void *indices, clg_dtype itype, size_t i, int64_t v);

/* `clgather selftest [options]`; argv[0] is "selftest". Returns the exit
 * status. */
int cli_cmd_selftest(int argc, char **argv);

/* One EmbeddingBag case (tools/cases/embedding_bag.h) on its inputs:
 * every operand where c->st[BAG_W] says (host memory, or each a cl_mem of
 * its own at ST_GUARD with guards around it) and, when c->async,
 * clg_embedding_bag_async() and its outcome. The output (out_bytes) starts
 * as `init`; the inputs must come back unchanged. Returns 0 (why then
 * holds the library's message when *status is not CLG_SUCCESS), 1 when
 * the call wrote outside its output or into an input, -1 when the harness
 * could not run it (what failed in why). */
int st_bag_exec(st_run *r, const bag_case *c, const bag_inputs *in,
                const void *init, size_t out_bytes, void *got,
                clg_status *status, char *why, size_t whylen);
/* Puts the case's operands where a selftest storage says (CASE_CALL_HOST,
 * CASE_CALL_BUFFER at ST_GUARD, CASE_CALL_ASYNC: the same, asynchronously
 * checked). */
void st_bag_storage(bag_case *c, case_call s);

/* One GatherBlockQuantized call (tools/cases/gather_block_quantized.h):
 * the operands o describes, of the values in `in` (zero_points passed when
 * c->zp), every one where c->st[GBQC_DATA] says (host memory, or each a
 * cl_mem of its own at ST_GUARD with guards around it). The output
 * (o->bytes[GBQC_OUTPUT]) starts as `init`; the inputs must come back
 * unchanged. Returns 0 (why then holds the library's message when *status
 * is not CLG_SUCCESS), 1 when the call wrote outside its output or into an
 * input, -1 when the harness could not run it (what failed in why). */
int st_gbq_exec(st_run *r, const gbq_case *c, const gbq_operands *o,
                const gbq_inputs *in, const void *init, void *got,
                clg_status *status, char *why, size_t whylen);
/* Puts the case's operands where a selftest storage says (CASE_CALL_HOST;
 * CASE_CALL_BUFFER at ST_GUARD). */
void st_gbq_storage(gbq_case *c, case_call s);

/* One case of an operator's conformance set (tools/cases/operators.h),
 * run against the reference and recorded in r's current row, by its
 * family: the gathers (selftest_gather.c), the scatters
 * (selftest_scatter.c), EmbeddingBag (selftest_bag.c),
 * GatherBlockQuantized (selftest_gbq.c). */
void st_gather_case(st_run *r, const case_item *it);
void st_scatter_case(st_run *r, const case_device *dev, const case_item *it);
void st_bag_case(st_run *r, const case_device *dev, const case_item *it);
void st_gbq_case(st_run *r, const case_device *dev, const case_item *it);
/* The bad-input catalogues of the four families (selftest_bad.c). */
void st_bad_input_cases(st_run *r);

/* The variant names the table reports (bit i is names[i]). */
const char *const *st_variant_names(size_t *count);

#endif /* CLGATHER_TOOLS_SELFTEST_H */
