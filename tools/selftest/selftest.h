/*
 * `clgather selftest`: the conformance of a user's own OpenCL device, in
 * the shape of the Khronos conformance suite (OpenCL-CTS): tables of small
 * cases, each comparing what the device computes with the plain-C
 * references (tools/reference/, the specification) byte for byte, and one
 * harness (selftest.c) that runs them and prints a summary.
 *
 * Modules, each calling only those before it: selftest_exec.c (one call of
 * the library on the device, with host, cl_mem or asynchronously checked
 * operands, the output's guard bytes checked) <- selftest_gather.c,
 * selftest_scatter.c, selftest_bag.c (the generated cases; selftest_bag.c
 * also runs EmbeddingBag's calls, whose operands st_call cannot hold),
 * selftest_bad.c (the bad-input catalogue) <- selftest.c (the command, the table, the exit status). A
 * client of the public API only.
 */
#ifndef CLGATHER_TOOLS_SELFTEST_H
#define CLGATHER_TOOLS_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather.h>

#include "cases/embedding_bag.h"

/* The rows of the summary table. */
enum {
  ST_ROW_GATHER = 0,
  ST_ROW_GATHER_ELEMENTS,
  ST_ROW_GATHER_ND,
  ST_ROW_SCATTER_ELEMENTS,
  ST_ROW_SCATTER_ND,
  ST_ROW_SCATTER,
  ST_ROW_EMBEDDING_BAG,
  ST_ROW_BAD_INPUT,
  ST_ROW_ONNX,
  ST_NROWS
};

/* How many failing cases are kept, in full, for the report. */
#define ST_MAX_FAILS 8
#define ST_DESC 640

typedef struct st_row {
  const char *name;
  int cases, passed, failed;
  unsigned variants; /* bits of st_variant_names(), from
                        clg_context_last_variant() after each case */
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
  st_row rows[ST_NROWS];
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

/* Storage of a call's operands (selftest_exec.c). */
typedef enum st_storage {
  ST_HOST = 0,   /* every tensor in host memory */
  ST_BUFFER,     /* every tensor a cl_mem (at an offset), clg_run/clg_scatter */
  ST_ASYNC,      /* every tensor a cl_mem, clg_run_async/clg_scatter_async
                    and clg_outcome_wait */
  ST_IN_PLACE,   /* scatters: cl_mem, the output is data's own buffer */
  ST_NSTORAGE
} st_storage;

const char *st_storage_name(st_storage s);

/* One call: the operator, its attributes and its operands' host values
 * (the storage decides where they go). */
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
  st_storage storage;
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
 * it; *status is the library's (for ST_ASYNC the outcome's when the call
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
/* The device properties the library's refusals follow, from the run. */
void st_case_device(const st_run *r, case_device *dev);
/* Puts the case's operands where a selftest storage says (ST_HOST,
 * ST_BUFFER at ST_GUARD, ST_ASYNC: the same, asynchronously checked). */
void st_bag_storage(bag_case *c, st_storage s);

/* The case tables. */
void st_gather_cases(st_run *r);
void st_scatter_cases(st_run *r);
void st_bag_cases(st_run *r);
void st_bad_input_cases(st_run *r);

/* The variant names the table reports (bit i is names[i]). */
const char *const *st_variant_names(size_t *count);

#endif /* CLGATHER_TOOLS_SELFTEST_H */
