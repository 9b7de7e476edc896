/* clgather-bench: performance of the gather family against the device's own
 * copy bandwidth, measured in the same run.
 *
 * A client of the public API (clgather.h); OpenCL is used directly only for
 * the profiling queue, the device-resident buffers, the copy reference
 * (clEnqueueCopyBuffer and a plain copy kernel) and the empty kernel.
 *
 * For every workload, after checking both the device-resident and the
 * host-resident result byte for byte against a plain-C reference:
 *  (a) kernel: clg_run on cl_mem data/indices/output with our profiling
 *      queue, END - START of the returned event (the blocking read-back of
 *      the indices that validation does is outside that event);
 *  (d) copy-ref: the faster of clEnqueueCopyBuffer and a plain copy kernel
 *      of the output's bytes, event-profiled; (a) and (d) are interleaved
 *      sample by sample so that load on the machine hits both alike;
 *  (b) call: clg_run on host memory (staging, validation, kernel, read-back
 *      included), wall clock;
 *  (c) validate: clg_validate(NULL, ...) on the same host tensors, wall
 *      clock, interleaved with (b);
 *  (e) once per run: the empty kernel, event-profiled and wall clock.
 * Every figure is the median of its samples after warm-up.
 *
 * Two extras (--only pipeline, --only coldstart):
 *  device-resident validation, W1 and W2 with data, indices and output in
 *  cl_mem, after the same byte-for-byte check: (a) again, interleaved with
 *  (i) clg_validate on the cl_mem indices (the library's chosen path),
 *  (ii) the read-back path done by the bench (blocking clEnqueueReadBuffer
 *  of the indices + clg_validate(NULL) on the copy), (iii) the checked
 *  clg_run, wall clock from the call to its event's completion;
 *  (iv) clg_run_async on the same tensors, wall clock from the call to its
 *  event's completion and clg_outcome_wait(), and (v) the same call timed
 *  only until clg_run_async returns;
 *  cold start: this binary run as a child (--cold-start-child) that creates
 *  a context and runs one W1 gather on host memory, with CLGATHER_CACHE_DIR
 *  a fresh empty directory, the same directory again, and "off".
 *
 * Two more (--only plans, --only shard), W1 and W2 on cl_mem tensors:
 *  plans: the host overhead per call (wall clock call -> event completion
 *  less the kernel's event time) of clg_plan_enqueue on a baked plan and of
 *  clg_run, interleaved with (a); and the first call of an unbaked plan and
 *  of a baked one (clg_plan_bake timed apart) on new clg_contexts with
 *  CLGATHER_CACHE_DIR=off (set in this process for those calls only);
 *  shard: with two devices on the platform of the bench's device (POCL:
 *  POCL_DEVICES="pthread pthread"), one cl_context holding both,
 *  clg_run_sharded over the two against clg_run on the first, end to end,
 *  as ratios to the copy reference of the first device; a
 *  clg_run_sharded that fails (not implemented yet) skips its row.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------- settings */

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

/* ------------------------------------------------------------ workloads */

enum { GROUP_STANDARD = 0, GROUP_SWEEP = 1, GROUP_FAMILY = 2 };

typedef struct workload {
  char name[24];  /* id for --only: "W1", "S4K-i32", "GE-a1" */
  char label[24]; /* short description for the table */
  int group;
  bench_op op;
} workload;

typedef struct stats {
  double median, min, max;
  int reps;
} stats;

enum { ST_OK = 0, ST_NA = 1, ST_WRONG = 2, ST_ERROR = 3 };

typedef struct result {
  int status;
  char message[600];
  uint64_t data_bytes, index_bytes, out_bytes;
  stats kernel, copybuf, copykern, call, validate;
  double copy_ref;         /* min of the two copy medians */
  const char *copy_method; /* which one */
  double seconds;          /* wall time spent on the workload */
  double reference_s;      /* one run of the plain-C reference (info) */
  const char *variant;     /* the kernel variant (a) ran */
  clg_choice choice;       /* how the library chose it */
} result;

#define MAX_WORKLOADS 96

static workload g_work[MAX_WORKLOADS];
static int g_nwork;

static workload *add_work(const char *name, const char *label, int group,
                          clg_op opk, int64_t axis, int64_t batch_dims,
                          clg_index_mode mode, clg_dtype dtype, int32_t drank,
                          const int64_t *dshape, clg_dtype itype, int32_t irank,
                          const int64_t *ishape) {
  if (g_nwork >= MAX_WORKLOADS)
    return NULL;
  workload *w = &g_work[g_nwork++];
  memset(w, 0, sizeof *w);
  snprintf(w->name, sizeof w->name, "%s", name);
  snprintf(w->label, sizeof w->label, "%s", label);
  w->group = group;
  w->op.params.op = opk;
  w->op.params.axis = axis;
  w->op.params.batch_dims = batch_dims;
  w->op.params.mode = mode;
  w->op.dtype = dtype;
  w->op.drank = drank;
  memcpy(w->op.dshape, dshape, (size_t)drank * sizeof *dshape);
  w->op.itype = itype;
  w->op.irank = irank;
  memcpy(w->op.ishape, ishape, (size_t)irank * sizeof *ishape);
  return w;
}

#define SHAPE(...)                                                             \
  (const int64_t[]) { __VA_ARGS__ }
#define RANK(...) ((int32_t)(sizeof((const int64_t[]){__VA_ARGS__}) / 8))
#define F32 CLG_DTYPE_FLOAT
#define F16 CLG_DTYPE_FLOAT16
#define I32 CLG_DTYPE_INT32
#define I64 CLG_DTYPE_INT64
#define GATHER(name, label, group, axis, dt, dshape, it, ishape)               \
  add_work(name, label, group, CLG_OP_GATHER, axis, 0, CLG_MODE_RAISE, dt,     \
           RANK dshape, SHAPE dshape, it, RANK ishape, SHAPE ishape)

static void size_name(char *buf, size_t len, uint64_t bytes) {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
    snprintf(buf, len, "%" PRIu64 "M", bytes / (1024 * 1024));
  else if (bytes >= 1024 && bytes % 1024 == 0)
    snprintf(buf, len, "%" PRIu64 "K", bytes / 1024);
  else
    snprintf(buf, len, "%" PRIu64, bytes);
}

static void define_workloads(const settings *cfg) {
  /* The standard workloads of the performance issue. */
  GATHER("W1", "embedding", GROUP_STANDARD, 0, F32, (50000, 768), I64, (4096));
  GATHER("W1-i32", "embedding", GROUP_STANDARD, 0, F32, (50000, 768), I32,
         (4096));
  GATHER("W2", "rows16", GROUP_STANDARD, 0, F32, (1000000, 16), I64, (1000000));
  GATHER("W2-i32", "rows16", GROUP_STANDARD, 0, F32, (1000000, 16), I32,
         (1000000));
  GATHER("W3", "lastaxis", GROUP_STANDARD, 1, F32, (4096, 4096), I64, (1024));
  GATHER("W4", "midaxis", GROUP_STANDARD, 1, F16, (64, 1024, 256), I64, (512));
  GATHER("W5", "tiny", GROUP_STANDARD, 0, F32, (100, 64), I64, (10));
  GATHER("W6", "bigrows", GROUP_STANDARD, 0, F32, (20000, 4096), I64, (8192));

  /* The rest of the family. */
  add_work("G-b1", "batch_dims1", GROUP_FAMILY, CLG_OP_GATHER, 1, 1,
           CLG_MODE_RAISE, F32, 3, SHAPE(64, 1000, 256), I64, 2,
           SHAPE(64, 128));
  add_work("W1-wrap", "emb wrap", GROUP_FAMILY, CLG_OP_GATHER, 0, 0,
           CLG_MODE_WRAP, F32, 2, SHAPE(50000, 768), I64, 1, SHAPE(4096));
  add_work("W1-clip", "emb clip", GROUP_FAMILY, CLG_OP_GATHER, 0, 0,
           CLG_MODE_CLIP, F32, 2, SHAPE(50000, 768), I64, 1, SHAPE(4096));
  add_work("GE-a1", "elements a1", GROUP_FAMILY, CLG_OP_GATHER_ELEMENTS, 1, 0,
           CLG_MODE_RAISE, F32, 2, SHAPE(1024, 4096), I64, 2,
           SHAPE(1024, 1024));
  add_work("GE-a0", "elements a0", GROUP_FAMILY, CLG_OP_GATHER_ELEMENTS, 0, 0,
           CLG_MODE_RAISE, F32, 2, SHAPE(1024, 4096), I64, 2,
           SHAPE(1024, 1024));
  add_work("ND", "nd m2", GROUP_FAMILY, CLG_OP_GATHER_ND, 0, 0, CLG_MODE_RAISE,
           F32, 3, SHAPE(1000, 1000, 64), I64, 2, SHAPE(100000, 2));
  add_work("ND-b1", "nd b1 m1", GROUP_FAMILY, CLG_OP_GATHER_ND, 0, 1,
           CLG_MODE_RAISE, F32, 3, SHAPE(64, 1000, 256), I64, 3,
           SHAPE(64, 128, 1));

  /* Slice-size sweep: float32 data [s, slice/4], axis 0, at a fixed output
   * size; data as large as the output. int64, then int32 indices. */
  for (int it = 0; it < 2; ++it)
    for (uint64_t slice = 4; slice <= 65536; slice *= 2) {
      if (cfg->quick && it == 0 && slice != 4 && slice != 16 && slice != 64 &&
          slice != 256 && slice != 1024 && slice != 4096 && slice != 16384 &&
          slice != 65536)
        continue;
      if (cfg->quick && it == 1 && slice != 4 && slice != 64 && slice != 4096)
        continue;
      if (!cfg->quick && it == 1 && slice > 4096 && slice != 65536)
        continue;
      char sz[8], name[16], label[24];
      size_name(sz, sizeof sz, slice);
      snprintf(name, sizeof name, "S%s%s", sz, it ? "-i32" : "");
      snprintf(label, sizeof label, "slice %sB %s", sz, it ? "i32" : "i64");
      int64_t rows = (int64_t)(cfg->sweep_bytes / slice);
      if (rows < 1)
        rows = 1;
      add_work(name, label, GROUP_SWEEP, CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE,
               F32, 2, SHAPE(rows, (int64_t)(slice / 4)), it ? I32 : I64, 1,
               SHAPE(rows));
    }
}

/* "--only W1,S4*": exact names (case-insensitive) or prefixes ending in '*';
 * the words "standard", "sweep", "family" select groups. */
static int selected(const settings *cfg, const workload *w) {
  if (!cfg->only)
    return 1;
  const char *p = cfg->only;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > 0) {
      if (p[len - 1] == '*') {
        if (strncasecmp(p, w->name, len - 1) == 0)
          return 1;
      } else if (strlen(w->name) == len && strncasecmp(p, w->name, len) == 0) {
        return 1;
      } else if ((len == 8 && strncasecmp(p, "standard", 8) == 0 &&
                  w->group == GROUP_STANDARD) ||
                 (len == 5 && strncasecmp(p, "sweep", 5) == 0 &&
                  w->group == GROUP_SWEEP) ||
                 (len == 6 && strncasecmp(p, "family", 6) == 0 &&
                  w->group == GROUP_FAMILY)) {
        return 1;
      }
    }
    p += len;
    if (*p == ',')
      ++p;
  }
  return 0;
}

/* Whether an extra ("pipeline", "coldstart") runs: always without --only,
 * else when the list names it (case-insensitive). */
static int only_has(const settings *cfg, const char *word) {
  if (!cfg->only)
    return 1;
  size_t wl = strlen(word);
  for (const char *p = cfg->only; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == wl && strncasecmp(p, word, len) == 0)
      return 1;
    p += len;
    if (*p == ',')
      ++p;
  }
  return 0;
}

static const char *op_name(clg_op op) {
  return op == CLG_OP_GATHER            ? "Gather"
         : op == CLG_OP_GATHER_ELEMENTS ? "GatherElements"
                                        : "GatherND";
}

static const char *mode_name(clg_index_mode m) {
  return m == CLG_MODE_WRAP ? "wrap" : m == CLG_MODE_CLIP ? "clip" : "raise";
}

static void format_shape(char *buf, size_t len, int32_t rank,
                         const int64_t *shape) {
  size_t n = (size_t)snprintf(buf, len, "[");
  for (int32_t i = 0; i < rank && n < len; ++i)
    n += (size_t)snprintf(buf + n, len - n, "%s%" PRId64, i ? ", " : "",
                          shape[i]);
  if (n < len)
    snprintf(buf + n, len - n, "]");
}

/* "Gather f32[50000, 768] i64[4096] axis 0" */
static void describe(char *buf, size_t len, const bench_op *op) {
  char ds[128], is[128];
  format_shape(ds, sizeof ds, op->drank, op->dshape);
  format_shape(is, sizeof is, op->irank, op->ishape);
  const char *dt = op->dtype == F16 ? "f16" : "f32";
  const char *it = op->itype == I32 ? "i32" : "i64";
  int n = snprintf(buf, len, "%s %s%s %s%s", op_name(op->params.op), dt, ds, it,
                   is);
  if (n < 0 || (size_t)n >= len)
    return;
  if (op->params.op != CLG_OP_GATHER_ND)
    n += snprintf(buf + n, len - (size_t)n, " axis %" PRId64, op->params.axis);
  if (op->params.batch_dims && (size_t)n < len)
    n += snprintf(buf + n, len - (size_t)n, " batch_dims %" PRId64,
                  op->params.batch_dims);
  if (op->params.mode != CLG_MODE_RAISE && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, " mode %s", mode_name(op->params.mode));
}

/* ------------------------------------------------------------ measuring */

/* One sample: 0 and *seconds, or -1 with a message in msg. */
typedef int (*sample_fn)(void *state, double *seconds, char *msg,
                         size_t msglen);

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Measure `n` functions interleaved (round i runs each once), after
 * cfg->warmup warm-up rounds. The number of rounds is cfg->reps, or
 * budget / (time of one round) clamped to [min_reps, max_reps]. */
static int measure_set(const settings *cfg, double budget, int n,
                       sample_fn *fns, void **states, stats *out, char *msg,
                       size_t msglen) {
  double t;
  for (int w = 0; w < cfg->warmup; ++w)
    for (int i = 0; i < n; ++i)
      if (fns[i](states[i], &t, msg, msglen) != 0)
        return -1;
  double round = 0.0;
  double first[8];
  for (int i = 0; i < n; ++i) {
    double t0 = bench_now();
    if (fns[i](states[i], &first[i], msg, msglen) != 0)
      return -1;
    round += bench_now() - t0;
  }
  int reps = cfg->reps;
  if (reps <= 0) {
    double r = round > 0 ? budget / round : cfg->max_reps;
    reps = r > cfg->max_reps   ? cfg->max_reps
           : r < cfg->min_reps ? cfg->min_reps
                               : (int)r;
  }
  double *samples = malloc((size_t)reps * (size_t)n * sizeof *samples);
  if (!samples) {
    snprintf(msg, msglen, "out of host memory");
    return -1;
  }
  for (int i = 0; i < n; ++i)
    samples[(size_t)i * (size_t)reps] = first[i];
  for (int k = 1; k < reps; ++k)
    for (int i = 0; i < n; ++i)
      if (fns[i](states[i], &samples[(size_t)i * (size_t)reps + (size_t)k], msg,
                 msglen) != 0) {
        free(samples);
        return -1;
      }
  for (int i = 0; i < n; ++i) {
    double *s = samples + (size_t)i * (size_t)reps;
    qsort(s, (size_t)reps, sizeof *s, cmp_double);
    out[i].reps = reps;
    out[i].min = s[0];
    out[i].max = s[reps - 1];
    out[i].median =
        reps % 2 ? s[reps / 2] : 0.5 * (s[reps / 2 - 1] + s[reps / 2]);
  }
  free(samples);
  return 0;
}

static void set_clg_message(char *msg, size_t len, clg_status st) {
  snprintf(msg, len, "%s: %s", clg_status_string(st), clg_last_error());
}

/* (a) the library's kernel on device-resident tensors. */
typedef struct run_state {
  clg_context *ctx;
  const clg_params *params;
  const clg_tensor *data, *indices, *output;
  cl_command_queue queue;
} run_state;

static int sample_kernel(void *state, double *seconds, char *msg,
                         size_t msglen) {
  run_state *s = state;
  cl_event ev = NULL;
  clg_status st = clg_run(s->ctx, s->params, s->data, s->indices, s->output,
                          s->queue, 0, NULL, &ev);
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  cl_int e = clWaitForEvents(1, &ev);
  double t = e == CL_SUCCESS ? bench_event_seconds(ev) : -1.0;
  clReleaseEvent(ev);
  if (t < 0) {
    snprintf(msg, msglen, "no profiling time for the gather's event (%s)",
             bench_cl_error(e));
    return -1;
  }
  *seconds = t;
  return 0;
}

/* (b) the whole call on host-resident tensors, wall clock. */
static int sample_call(void *state, double *seconds, char *msg, size_t msglen) {
  run_state *s = state;
  double t0 = bench_now();
  clg_status st = clg_run(s->ctx, s->params, s->data, s->indices, s->output,
                          s->queue, 0, NULL, NULL);
  *seconds = bench_now() - t0;
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return 0;
}

/* (c) validation alone on host tensors, without a context. */
static int sample_validate(void *state, double *seconds, char *msg,
                           size_t msglen) {
  run_state *s = state;
  double t0 = bench_now();
  clg_status st =
      clg_validate(NULL, s->params, s->data, s->indices, NULL, 0, NULL);
  *seconds = bench_now() - t0;
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return 0;
}

/* (d) copy reference. */
typedef struct copy_state {
  bench_cl *cl;
  int method;
  cl_mem src, dst;
  size_t bytes;
} copy_state;

static int sample_copy(void *state, double *seconds, char *msg, size_t msglen) {
  copy_state *s = state;
  if (bench_cl_copy(s->cl, s->method, s->src, s->dst, s->bytes, seconds) != 0) {
    snprintf(msg, msglen, "%s failed",
             s->method ? "the copy kernel" : "clEnqueueCopyBuffer");
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------- workload */

typedef struct env {
  clg_context *ctx;
  bench_cl cl;
  const settings *cfg;
} env;

/* Compare, describing the first difference. */
static int compare(const unsigned char *got, const unsigned char *want,
                   size_t bytes, const char *path, char *msg, size_t msglen) {
  if (memcmp(got, want, bytes) == 0)
    return 0;
  size_t first = 0, count = 0;
  for (size_t i = bytes; i-- > 0;)
    if (got[i] != want[i]) {
      first = i;
      ++count;
    }
  snprintf(msg, msglen,
           "WRONG result (%s): %zu of %zu bytes differ, the first at byte "
           "%zu (got 0x%02x, expected 0x%02x)",
           path, count, bytes, first, got[first], want[first]);
  return -1;
}

static cl_mem make_buffer(cl_context c, cl_mem_flags flags, size_t bytes,
                          void *host, char *msg, size_t msglen) {
  cl_int e = CL_SUCCESS;
  cl_mem m = clCreateBuffer(c, flags, bytes ? bytes : 1, host, &e);
  if (!m)
    snprintf(msg, msglen, "clCreateBuffer of %zu bytes: %s", bytes,
             bench_cl_error(e));
  return m;
}

static void run_workload(env *E, const workload *w, result *r) {
  const settings *cfg = E->cfg;
  const bench_op *op = &w->op;
  cl_context clctx = clg_context_cl_context(E->ctx);
  char *msg = r->message;
  size_t msglen = sizeof r->message;
  double t_start = bench_now();
  memset(r, 0, sizeof *r);
  r->status = ST_ERROR;
  r->copy_method = "";

  int32_t orank = 0;
  int64_t oshape[CLG_MAX_RANK];
  if (bench_ref_shape(op, &orank, oshape) != 0) {
    snprintf(msg, msglen, "the bench cannot describe this workload");
    return;
  }
  size_t es = clg_dtype_size(op->dtype), xs = clg_dtype_size(op->itype);
  r->data_bytes = bench_numel(op->drank, op->dshape) * es;
  r->index_bytes = bench_numel(op->irank, op->ishape) * xs;
  r->out_bytes = bench_numel(orank, oshape) * es;

  unsigned char *data = malloc(r->data_bytes ? r->data_bytes : 1);
  void *indices = malloc(r->index_bytes ? r->index_bytes : 1);
  unsigned char *want = malloc(r->out_bytes ? r->out_bytes : 1);
  unsigned char *got = malloc(r->out_bytes ? r->out_bytes : 1);
  cl_mem dmem = NULL, xmem = NULL, omem = NULL, cmem = NULL;
  if (!data || !indices || !want || !got) {
    snprintf(msg, msglen,
             "out of host memory for %" PRIu64 " + %" PRIu64 " + 2 x %" PRIu64
             " bytes",
             r->data_bytes, r->index_bytes, r->out_bytes);
    goto done;
  }
  /* Fixed seed per workload: the same inputs in every run. */
  bench_rng rng = {0x5eed0000u + (uint64_t)(w - g_work)};
  bench_fill_random(data, r->data_bytes, &rng);
  bench_make_indices(op, indices, &rng);
  double t_ref = bench_now();
  int ref_status = bench_reference(op, data, indices, want);
  r->reference_s = bench_now() - t_ref;
  if (ref_status != 0) {
    snprintf(msg, msglen, "the reference rejected the generated indices");
    goto done;
  }

  if (!(dmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           r->data_bytes, data, msg, msglen)) ||
      !(xmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           r->index_bytes, indices, msg, msglen)) ||
      !(omem = make_buffer(clctx, CL_MEM_READ_WRITE, r->out_bytes, NULL, msg,
                           msglen)) ||
      !(cmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           r->out_bytes, want, msg, msglen)))
    goto done;

  clg_tensor dd = clg_tensor_buffer(op->dtype, op->drank, op->dshape, dmem, 0);
  clg_tensor xd = clg_tensor_buffer(op->itype, op->irank, op->ishape, xmem, 0);
  clg_tensor od = clg_tensor_buffer(op->dtype, orank, oshape, omem, 0);
  clg_tensor dh = clg_tensor_host(op->dtype, op->drank, op->dshape, data);
  clg_tensor xh = clg_tensor_host(op->itype, op->irank, op->ishape, indices);
  clg_tensor oh = clg_tensor_host(op->dtype, orank, oshape, got);
  run_state dev = {E->ctx, &op->params, &dd, &xd, &od, E->cl.queue};
  run_state host = {E->ctx, &op->params, &dh, &xh, &oh, NULL};
  double t;

  /* Verify the device-resident path: poison the output, run, read back. */
  unsigned char poison = 0xA5;
  cl_int e = clEnqueueFillBuffer(E->cl.queue, omem, &poison, 1, 0, r->out_bytes,
                                 0, NULL, NULL);
  if (e == CL_SUCCESS)
    e = clFinish(E->cl.queue);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueFillBuffer: %s", bench_cl_error(e));
    goto done;
  }
  if (sample_kernel(&dev, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  e = clEnqueueReadBuffer(E->cl.queue, omem, CL_TRUE, 0, r->out_bytes, got, 0,
                          NULL, NULL);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueReadBuffer: %s", bench_cl_error(e));
    goto done;
  }
  if (compare(got, want, r->out_bytes, "device-resident", msg, msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }
  /* Verify the host-resident path. */
  memset(got, 0x5A, r->out_bytes);
  if (sample_call(&host, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  if (compare(got, want, r->out_bytes, "host-resident", msg, msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }
  if (sample_validate(&host, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  free(want);
  want = NULL;

  /* (a) + (d), interleaved. */
  copy_state cb = {&E->cl, 0, cmem, omem, r->out_bytes};
  copy_state ck = {&E->cl, 1, cmem, omem, r->out_bytes};
  sample_fn kfns[] = {sample_kernel, sample_copy, sample_copy};
  void *kstates[] = {&dev, &cb, &ck};
  stats ks[3];
  if (measure_set(cfg, cfg->budget, 3, kfns, kstates, ks, msg, msglen) != 0)
    goto done;
  r->kernel = ks[0];
  r->variant = clg_context_last_variant(dev.ctx, &r->choice);
  r->copybuf = ks[1];
  r->copykern = ks[2];
  r->copy_ref = ks[1].median <= ks[2].median ? ks[1].median : ks[2].median;
  r->copy_method =
      ks[1].median <= ks[2].median ? "clEnqueueCopyBuffer" : "copy kernel";
  /* (b) + (c), interleaved. */
  sample_fn cfns[] = {sample_call, sample_validate};
  void *cstates[] = {&host, &host};
  stats cs[2];
  if (measure_set(cfg, cfg->budget, 2, cfns, cstates, cs, msg, msglen) != 0)
    goto done;
  r->call = cs[0];
  r->validate = cs[1];
  r->status = ST_OK;
  msg[0] = '\0';

done:
  if (dmem)
    clReleaseMemObject(dmem);
  if (xmem)
    clReleaseMemObject(xmem);
  if (omem)
    clReleaseMemObject(omem);
  if (cmem)
    clReleaseMemObject(cmem);
  free(data);
  free(indices);
  free(want);
  free(got);
  r->seconds = bench_now() - t_start;
}

/* ---------------------------------------- device-resident validation */

/* The library validates cl_mem indices with its validation kernel from this
 * many index bytes up and by read-back + host scan below
 * (CLG_VALIDATE_DEVICE_MIN_BYTES in host/index_pass.c). The bench cannot
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

/* (i) clg_validate on cl_mem indices: the library's own path, wall clock. */
static int sample_dev_validate(void *state, double *seconds, char *msg,
                               size_t msglen) {
  run_state *s = state;
  double t0 = bench_now();
  clg_status st =
      clg_validate(s->ctx, s->params, s->data, s->indices, s->queue, 0, NULL);
  *seconds = bench_now() - t0;
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return 0;
}

/* (ii) what the library's read-back path does, done by the bench: allocate,
 * blocking clEnqueueReadBuffer of the indices, clg_validate(NULL) on the
 * host copy, free; wall clock. */
typedef struct readback_state {
  const clg_params *params;
  const clg_tensor *data_host; /* shape only: validation reads no data */
  const bench_op *op;
  cl_mem indices;
  size_t bytes;
  cl_command_queue queue;
} readback_state;

static int sample_rb_validate(void *state, double *seconds, char *msg,
                              size_t msglen) {
  readback_state *s = state;
  double t0 = bench_now();
  void *copy = malloc(s->bytes ? s->bytes : 1);
  if (!copy) {
    snprintf(msg, msglen, "out of host memory reading back %zu bytes",
             s->bytes);
    return -1;
  }
  cl_int e = clEnqueueReadBuffer(s->queue, s->indices, CL_TRUE, 0, s->bytes,
                                 copy, 0, NULL, NULL);
  clg_status st = CLG_SUCCESS;
  if (e == CL_SUCCESS) {
    clg_tensor xh =
        clg_tensor_host(s->op->itype, s->op->irank, s->op->ishape, copy);
    st = clg_validate(NULL, s->params, s->data_host, &xh, NULL, 0, NULL);
  }
  free(copy);
  *seconds = bench_now() - t0;
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueReadBuffer of the indices: %s",
             bench_cl_error(e));
    return -1;
  }
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return 0;
}

/* (iii) clg_run on cl_mem data, indices and output: wall clock from the
 * call to the completion of its event (validation, launch, kernel). */
static int sample_e2e(void *state, double *seconds, char *msg, size_t msglen) {
  run_state *s = state;
  cl_event ev = NULL;
  double t0 = bench_now();
  clg_status st = clg_run(s->ctx, s->params, s->data, s->indices, s->output,
                          s->queue, 0, NULL, &ev);
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  cl_int e = clWaitForEvents(1, &ev);
  *seconds = bench_now() - t0;
  clReleaseEvent(ev);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "waiting for the gather's event: %s",
             bench_cl_error(e));
    return -1;
  }
  return 0;
}

/* Wait for an asynchronously checked call: its event, then its outcome.
 * Releases both. 0, or -1 with a message. */
static int finish_async(cl_event ev, clg_outcome *oc, char *msg,
                        size_t msglen) {
  cl_int e = ev ? clWaitForEvents(1, &ev) : CL_SUCCESS;
  clg_status st = clg_outcome_wait(oc);
  if (ev)
    clReleaseEvent(ev);
  clg_outcome_release(oc);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "waiting for clg_run_async's event: %s",
             bench_cl_error(e));
    return -1;
  }
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return 0;
}

/* (iv) clg_run_async on cl_mem tensors: wall clock from the call to its
 * event's completion and clg_outcome_wait() returning CLG_SUCCESS. */
static int sample_async_e2e(void *state, double *seconds, char *msg,
                            size_t msglen) {
  run_state *s = state;
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  double t0 = bench_now();
  clg_status st = clg_run_async(s->ctx, s->params, s->data, s->indices,
                                s->output, s->queue, 0, NULL, &ev, &oc);
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  int rc = finish_async(ev, oc, msg, msglen);
  *seconds = bench_now() - t0;
  return rc;
}

/* (v) the same call, timed only until clg_run_async returns; the event and
 * the outcome are then waited for outside the sample. */
static int sample_async_return(void *state, double *seconds, char *msg,
                               size_t msglen) {
  run_state *s = state;
  cl_event ev = NULL;
  clg_outcome *oc = NULL;
  double t0 = bench_now();
  clg_status st = clg_run_async(s->ctx, s->params, s->data, s->indices,
                                s->output, s->queue, 0, NULL, &ev, &oc);
  *seconds = bench_now() - t0;
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  return finish_async(ev, oc, msg, msglen);
}

/* Store `value` at flat position `pos` of an index array. */
static void set_index(void *indices, clg_dtype itype, uint64_t pos,
                      int64_t value) {
  if (itype == I32)
    ((int32_t *)indices)[pos] = (int32_t)value;
  else
    ((int64_t *)indices)[pos] = value;
}

/* Expect CLG_ERROR_INDEX_OUT_OF_BOUNDS from a validation that should fail;
 * 0, or -1 with a message. */
static int expect_oob(clg_status st, const char *path, char *msg,
                      size_t msglen) {
  if (st == CLG_ERROR_INDEX_OUT_OF_BOUNDS)
    return 0;
  snprintf(msg, msglen,
           "WRONG: %s validation of indices with one out-of-range value "
           "returned %s%s%s",
           path, clg_status_string(st), st ? ": " : "",
           st ? clg_last_error() : "");
  return -1;
}

/* Fill a buffer with the poison byte and wait. 0, or -1 with a message. */
static int poison_buffer(cl_command_queue q, cl_mem m, size_t bytes,
                         unsigned char poison, char *msg, size_t msglen) {
  cl_int e = clEnqueueFillBuffer(q, m, &poison, 1, 0, bytes, 0, NULL, NULL);
  if (e == CL_SUCCESS)
    e = clFinish(q);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueFillBuffer: %s", bench_cl_error(e));
    return -1;
  }
  return 0;
}

/* Read a buffer back (blocking) into got. 0, or -1 with a message. */
static int read_buffer(cl_command_queue q, cl_mem m, size_t bytes, void *got,
                       char *msg, size_t msglen) {
  cl_int e = clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, got, 0, NULL, NULL);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueReadBuffer: %s", bench_cl_error(e));
    return -1;
  }
  return 0;
}

/* 0 if every byte is `poison`, else -1 with a message naming the path. */
static int expect_untouched(const unsigned char *got, size_t bytes,
                            unsigned char poison, const char *path, char *msg,
                            size_t msglen) {
  for (size_t i = 0; i < bytes; ++i)
    if (got[i] != poison) {
      snprintf(msg, msglen,
               "WRONG: %s wrote to the output although an index was out of "
               "range (byte %zu is 0x%02x, was 0x%02x)",
               path, i, got[i], poison);
      return -1;
    }
  return 0;
}

static void run_pipeline(env *E, int wi, pipe_result *r) {
  const settings *cfg = E->cfg;
  const workload *w = &g_work[wi];
  const bench_op *op = &w->op;
  cl_context clctx = clg_context_cl_context(E->ctx);
  char *msg = r->message;
  size_t msglen = sizeof r->message;
  double t_start = bench_now();
  memset(r, 0, sizeof *r);
  r->work = wi;
  r->status = ST_ERROR;

  int32_t orank = 0;
  int64_t oshape[CLG_MAX_RANK];
  if (bench_ref_shape(op, &orank, oshape) != 0) {
    snprintf(msg, msglen, "the bench cannot describe this workload");
    return;
  }
  size_t es = clg_dtype_size(op->dtype), xs = clg_dtype_size(op->itype);
  uint64_t nidx = bench_numel(op->irank, op->ishape);
  r->data_bytes = bench_numel(op->drank, op->dshape) * es;
  r->index_bytes = nidx * xs;
  r->out_bytes = bench_numel(orank, oshape) * es;
  r->device_path = r->index_bytes >= BENCH_VALIDATE_DEVICE_MIN_BYTES;

  unsigned char *data = malloc(r->data_bytes ? r->data_bytes : 1);
  void *indices = malloc(r->index_bytes ? r->index_bytes : 1);
  unsigned char *want = malloc(r->out_bytes ? r->out_bytes : 1);
  unsigned char *got = malloc(r->out_bytes ? r->out_bytes : 1);
  cl_mem dmem = NULL, xmem = NULL, omem = NULL, bmem = NULL;
  if (!data || !indices || !want || !got) {
    snprintf(msg, msglen, "out of host memory");
    goto done;
  }
  /* The same inputs as the workload's row in the main table. */
  bench_rng rng = {0x5eed0000u + (uint64_t)wi};
  bench_fill_random(data, r->data_bytes, &rng);
  bench_make_indices(op, indices, &rng);
  if (bench_reference(op, data, indices, want) != 0) {
    snprintf(msg, msglen, "the reference rejected the generated indices");
    goto done;
  }
  if (!(dmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           r->data_bytes, data, msg, msglen)) ||
      !(xmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           r->index_bytes, indices, msg, msglen)) ||
      !(omem = make_buffer(clctx, CL_MEM_READ_WRITE, r->out_bytes, NULL, msg,
                           msglen)))
    goto done;

  clg_tensor dd = clg_tensor_buffer(op->dtype, op->drank, op->dshape, dmem, 0);
  clg_tensor xd = clg_tensor_buffer(op->itype, op->irank, op->ishape, xmem, 0);
  clg_tensor od = clg_tensor_buffer(op->dtype, orank, oshape, omem, 0);
  clg_tensor dh = clg_tensor_host(op->dtype, op->drank, op->dshape, data);
  run_state dev = {E->ctx, &op->params, &dd, &xd, &od, E->cl.queue};
  readback_state rb = {&op->params, &dh, op, xmem, (size_t)r->index_bytes,
                       E->cl.queue};
  double t;

  /* Correctness first: the checked end-to-end call on a poisoned output,
   * read back and compared byte for byte with the reference. */
  unsigned char poison = 0xA5;
  cl_int e = clEnqueueFillBuffer(E->cl.queue, omem, &poison, 1, 0, r->out_bytes,
                                 0, NULL, NULL);
  if (e == CL_SUCCESS)
    e = clFinish(E->cl.queue);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueFillBuffer: %s", bench_cl_error(e));
    goto done;
  }
  if (sample_e2e(&dev, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  e = clEnqueueReadBuffer(E->cl.queue, omem, CL_TRUE, 0, r->out_bytes, got, 0,
                          NULL, NULL);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "clEnqueueReadBuffer: %s", bench_cl_error(e));
    goto done;
  }
  if (compare(got, want, r->out_bytes, "device-resident", msg, msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }
  /* The same for the asynchronously checked call. */
  if (poison_buffer(E->cl.queue, omem, r->out_bytes, poison, msg, msglen) != 0)
    goto done;
  if (sample_async_e2e(&dev, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  if (read_buffer(E->cl.queue, omem, r->out_bytes, got, msg, msglen) != 0)
    goto done;
  if (compare(got, want, r->out_bytes, "device-resident, clg_run_async", msg,
              msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }
  /* Both validation paths accept the valid indices... */
  if (sample_dev_validate(&dev, &t, msg, msglen) != 0 ||
      sample_rb_validate(&rb, &t, msg, msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }
  /* ...and reject the same indices with one value out of range (s, the
   * first invalid one), placed in the last quarter of the array. */
  if (op->params.mode == CLG_MODE_RAISE && op->params.op == CLG_OP_GATHER &&
      nidx > 0) {
    int64_t s = op->dshape[op->params.axis];
    uint64_t pos = nidx - 1 - nidx / 8;
    set_index(indices, op->itype, pos, s);
    bmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                       r->index_bytes, indices, msg, msglen);
    if (!bmem)
      goto done;
    clg_tensor xb =
        clg_tensor_buffer(op->itype, op->irank, op->ishape, bmem, 0);
    clg_tensor xh = clg_tensor_host(op->itype, op->irank, op->ishape, indices);
    if (expect_oob(
            clg_validate(E->ctx, &op->params, &dd, &xb, E->cl.queue, 0, NULL),
            "clg_validate (cl_mem)", msg, msglen) != 0 ||
        expect_oob(clg_validate(NULL, &op->params, &dh, &xh, NULL, 0, NULL),
                   "read-back (host)", msg, msglen) != 0) {
      r->status = ST_WRONG;
      goto done;
    }
    /* clg_run_async: the outcome reports the index, the gather kernel runs
     * and writes nothing. */
    if (poison_buffer(E->cl.queue, omem, r->out_bytes, poison, msg, msglen) !=
        0)
      goto done;
    cl_event aev = NULL;
    clg_outcome *oc = NULL;
    clg_status ast = clg_run_async(E->ctx, &op->params, &dd, &xb, &od,
                                   E->cl.queue, 0, NULL, &aev, &oc);
    if (ast != CLG_SUCCESS) {
      snprintf(msg, msglen,
               "WRONG: clg_run_async with one out-of-range cl_mem index "
               "returned %s: %s (expected success and the error from its "
               "outcome)",
               clg_status_string(ast), clg_last_error());
      r->status = ST_WRONG;
      goto done;
    }
    e = clWaitForEvents(1, &aev);
    clReleaseEvent(aev);
    ast = clg_outcome_wait(oc);
    clg_outcome_release(oc);
    if (e != CL_SUCCESS) {
      snprintf(msg, msglen, "waiting for clg_run_async's event: %s",
               bench_cl_error(e));
      goto done;
    }
    if (expect_oob(ast, "clg_run_async (outcome)", msg, msglen) != 0) {
      r->status = ST_WRONG;
      goto done;
    }
    if (read_buffer(E->cl.queue, omem, r->out_bytes, got, msg, msglen) != 0)
      goto done;
    if (expect_untouched(got, r->out_bytes, poison, "clg_run_async", msg,
                         msglen) != 0) {
      r->status = ST_WRONG;
      goto done;
    }
    clReleaseMemObject(bmem);
    bmem = NULL;
  }
  free(want);
  want = NULL;

  /* (a), (i), (ii), (iii), (iv), (v) interleaved sample by sample. */
  sample_fn fns[] = {sample_kernel, sample_dev_validate, sample_rb_validate,
                     sample_e2e,    sample_async_e2e,    sample_async_return};
  void *states[] = {&dev, &dev, &rb, &dev, &dev, &dev};
  stats ps[6];
  if (measure_set(cfg, cfg->budget, 6, fns, states, ps, msg, msglen) != 0)
    goto done;
  r->kernel = ps[0];
  r->devval = ps[1];
  r->rbval = ps[2];
  r->e2e = ps[3];
  r->async_e2e = ps[4];
  r->async_ret = ps[5];
  r->status = ST_OK;
  msg[0] = '\0';

done:
  if (dmem)
    clReleaseMemObject(dmem);
  if (xmem)
    clReleaseMemObject(xmem);
  if (omem)
    clReleaseMemObject(omem);
  if (bmem)
    clReleaseMemObject(bmem);
  free(data);
  free(indices);
  free(want);
  free(got);
  r->seconds = bench_now() - t_start;
}

/* ----------------------------------------------------------- cold start */

/* A child process (this binary, --cold-start-child) creates a context and
 * runs one W1 gather on host memory. It prepares W1's inputs first, before
 * touching OpenCL, and reports CLOCK_MONOTONIC (system-wide) times, so the
 * parent measures spawn -> first result and takes out the input
 * preparation, which is no cost of the library. */

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

static const char *const cold_case_name[COLD_CASES] = {"cold", "warm", "off"};

static int find_work(const char *name) {
  for (int i = 0; i < g_nwork; ++i)
    if (!strcmp(g_work[i].name, name))
      return i;
  return -1;
}

/* The child: prints one line "clgather-bench-cold main=T inputs=T ctx=T
 * result=T ok=0|1" (monotonic seconds) on stdout. */
static int cold_start_child(const settings *cfg, double t_main) {
  int wi = find_work("W1");
  if (wi < 0)
    return 3;
  const bench_op *op = &g_work[wi].op;
  int32_t orank = 0;
  int64_t oshape[CLG_MAX_RANK];
  if (bench_ref_shape(op, &orank, oshape) != 0)
    return 3;
  size_t es = clg_dtype_size(op->dtype), xs = clg_dtype_size(op->itype);
  size_t db = (size_t)bench_numel(op->drank, op->dshape) * es;
  size_t xb = (size_t)bench_numel(op->irank, op->ishape) * xs;
  size_t ob = (size_t)bench_numel(orank, oshape) * es;
  unsigned char *data = malloc(db), *got = malloc(ob), *want = malloc(ob);
  void *indices = malloc(xb);
  if (!data || !got || !want || !indices) {
    fprintf(stderr, "clgather-bench (cold-start child): out of memory\n");
    return 3;
  }
  bench_rng rng = {0x5eed0000u + (uint64_t)wi};
  bench_fill_random(data, db, &rng);
  bench_make_indices(op, indices, &rng);
  memset(got, 0x5A, ob);
  double t_inputs = bench_now();

  clg_context *ctx = NULL;
  clg_status st = clg_context_create_default(cfg->device, &ctx);
  double t_ctx = bench_now();
  if (st == CLG_SUCCESS) {
    clg_tensor dh = clg_tensor_host(op->dtype, op->drank, op->dshape, data);
    clg_tensor xh = clg_tensor_host(op->itype, op->irank, op->ishape, indices);
    clg_tensor oh = clg_tensor_host(op->dtype, orank, oshape, got);
    st = clg_run(ctx, &op->params, &dh, &xh, &oh, NULL, 0, NULL, NULL);
  }
  double t_result = bench_now();
  if (st != CLG_SUCCESS) {
    fprintf(stderr, "clgather-bench (cold-start child): %s: %s\n",
            clg_status_string(st), clg_last_error());
    clg_context_destroy(ctx);
    return 3;
  }
  int ok = bench_reference(op, data, indices, want) == 0 &&
           memcmp(got, want, ob) == 0;
  printf("clgather-bench-cold main=%.9f inputs=%.9f ctx=%.9f result=%.9f "
         "ok=%d\n",
         t_main, t_inputs, t_ctx, t_result, ok);
  fflush(stdout);
  clg_context_destroy(ctx);
  free(data);
  free(got);
  free(want);
  free(indices);
  return ok ? 0 : 1;
}

extern char **environ;

/* Spawn one child with CLGATHER_CACHE_DIR=cache_dir; 0 and *out, or -1
 * (message in msg; *wrong set when the child's result was wrong). */
static int cold_spawn(const settings *cfg, const char *argv0,
                      const char *cache_dir, cold_sample *out, int *wrong,
                      char *msg, size_t msglen) {
  size_t nenv = 0;
  while (environ[nenv])
    ++nenv;
  char **envp = malloc((nenv + 2) * sizeof *envp);
  size_t vlen = strlen("CLGATHER_CACHE_DIR=") + strlen(cache_dir) + 1;
  char *var = malloc(vlen);
  if (!envp || !var) {
    free(envp);
    free(var);
    snprintf(msg, msglen, "out of host memory");
    return -1;
  }
  snprintf(var, vlen, "CLGATHER_CACHE_DIR=%s", cache_dir);
  size_t k = 0;
  for (size_t i = 0; i < nenv; ++i)
    if (strncmp(environ[i], "CLGATHER_CACHE_DIR=", 19) != 0)
      envp[k++] = environ[i];
  envp[k++] = var;
  envp[k] = NULL;
  char *args[5];
  int na = 0;
  args[na++] = (char *)argv0;
  args[na++] = (char *)"--cold-start-child";
  if (cfg->device) {
    args[na++] = (char *)"--device";
    args[na++] = (char *)cfg->device;
  }
  args[na] = NULL;

  int fds[2];
  if (pipe(fds) != 0) {
    snprintf(msg, msglen, "pipe: %s", strerror(errno));
    free(envp);
    free(var);
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[1]);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = 0;
  double t_spawn = bench_now();
  int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, args, envp);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  free(envp);
  free(var);
  if (rc != 0) {
    close(fds[0]);
    snprintf(msg, msglen, "posix_spawn of /proc/self/exe: %s", strerror(rc));
    return -1;
  }
  char line[512];
  size_t used = 0;
  for (;;) {
    ssize_t got = read(fds[0], line + used, sizeof line - 1 - used);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    used += (size_t)got;
    if (used == sizeof line - 1)
      break;
  }
  line[used] = '\0';
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  double tm = 0, ti = 0, tc = 0, tr = 0;
  int ok = 0;
  if (sscanf(line,
             "clgather-bench-cold main=%lf inputs=%lf ctx=%lf "
             "result=%lf ok=%d",
             &tm, &ti, &tc, &tr, &ok) != 5) {
    snprintf(msg, msglen,
             "the cold-start child (CLGATHER_CACHE_DIR=%s) reported nothing "
             "(exit status %d)",
             cache_dir, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
  }
  if (!ok) {
    *wrong = 1;
    snprintf(msg, msglen,
             "WRONG result in the cold-start child "
             "(CLGATHER_CACHE_DIR=%s)",
             cache_dir);
    return -1;
  }
  out->startup = tm - t_spawn;
  out->inputs = ti - tm;
  out->context = tc - ti;
  out->call = tr - tc;
  out->first = (tr - t_spawn) - out->inputs;
  return 0;
}

/* Files in dir; with remove_all, delete them and the directory (the cache
 * is flat: one file per program). */
static int dir_files(const char *dir, int remove_all) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *ent;
  char path[4096];
  while ((ent = readdir(d)) != NULL) {
    if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
      continue;
    ++n;
    if (remove_all) {
      snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
      unlink(path);
    }
  }
  closedir(d);
  if (remove_all)
    rmdir(dir);
  return n;
}

static double median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void run_cold_start(const settings *cfg, const char *argv0,
                           cold_result *r) {
  double t_start = bench_now();
  memset(r, 0, sizeof *r);
  r->status = ST_ERROR;
  r->cache_files = -1;
  int reps = cfg->quick ? 1 : 3;
  cold_sample s[COLD_CASES][3];
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp)
    tmp = "/tmp";
  int wrong = 0;
  for (int k = 0; k < reps; ++k) {
    /* A fresh empty directory for the cold child, the same one again for
     * the warm child, then the cache off; the three interleaved. */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/clgather-bench-cache-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
      snprintf(r->message, sizeof r->message, "mkdtemp %.400s: %s", dir,
               strerror(errno));
      goto done;
    }
    const char *dirs[COLD_CASES] = {dir, dir, "off"};
    int failed = 0;
    for (int c = 0; c < COLD_CASES && !failed; ++c) {
      fprintf(stderr, ".");
      failed = cold_spawn(cfg, argv0, dirs[c], &s[c][k], &wrong, r->message,
                          sizeof r->message) != 0;
      if (!failed && c == 0 && k == 0)
        r->cache_files = dir_files(dir, 0);
    }
    dir_files(dir, 1);
    if (failed) {
      if (wrong)
        r->status = ST_WRONG;
      goto done;
    }
  }
  for (int c = 0; c < COLD_CASES; ++c) {
    double v[5][3];
    for (int k = 0; k < reps; ++k) {
      v[0][k] = s[c][k].first;
      v[1][k] = s[c][k].startup;
      v[2][k] = s[c][k].context;
      v[3][k] = s[c][k].call;
      v[4][k] = s[c][k].inputs;
    }
    r->med[c].first = median_of(v[0], reps);
    r->first_min[c] = v[0][0];
    r->first_max[c] = v[0][reps - 1];
    r->med[c].startup = median_of(v[1], reps);
    r->med[c].context = median_of(v[2], reps);
    r->med[c].call = median_of(v[3], reps);
    r->med[c].inputs = median_of(v[4], reps);
  }
  r->reps = reps;
  r->status = ST_OK;
  r->message[0] = '\0';
done:
  r->seconds = bench_now() - t_start;
}

/* ------------------------------------------------ inputs in a cl_context */

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

static void wl_release(wl_inputs *in) {
  if (in->dmem)
    clReleaseMemObject(in->dmem);
  if (in->xmem)
    clReleaseMemObject(in->xmem);
  if (in->omem)
    clReleaseMemObject(in->omem);
  if (in->cmem)
    clReleaseMemObject(in->cmem);
  free(in->data);
  free(in->indices);
  free(in->want);
  free(in->got);
  memset(in, 0, sizeof *in);
}

/* 0, or -1 with a message (in->* released by wl_release either way). With
 * copy_src, also a read-only buffer holding the reference output. */
static int wl_prepare(wl_inputs *in, int wi, cl_context clctx, int copy_src,
                      char *msg, size_t msglen) {
  memset(in, 0, sizeof *in);
  const bench_op *op = &g_work[wi].op;
  if (bench_ref_shape(op, &in->orank, in->oshape) != 0) {
    snprintf(msg, msglen, "the bench cannot describe this workload");
    return -1;
  }
  size_t es = clg_dtype_size(op->dtype), xs = clg_dtype_size(op->itype);
  in->data_bytes = bench_numel(op->drank, op->dshape) * es;
  in->index_bytes = bench_numel(op->irank, op->ishape) * xs;
  in->out_bytes = bench_numel(in->orank, in->oshape) * es;
  in->data = malloc(in->data_bytes ? in->data_bytes : 1);
  in->indices = malloc(in->index_bytes ? in->index_bytes : 1);
  in->want = malloc(in->out_bytes ? in->out_bytes : 1);
  in->got = malloc(in->out_bytes ? in->out_bytes : 1);
  if (!in->data || !in->indices || !in->want || !in->got) {
    snprintf(msg, msglen, "out of host memory");
    return -1;
  }
  bench_rng rng = {0x5eed0000u + (uint64_t)wi};
  bench_fill_random(in->data, in->data_bytes, &rng);
  bench_make_indices(op, in->indices, &rng);
  if (bench_reference(op, in->data, in->indices, in->want) != 0) {
    snprintf(msg, msglen, "the reference rejected the generated indices");
    return -1;
  }
  if (!(in->dmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               in->data_bytes, in->data, msg, msglen)) ||
      !(in->xmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               in->index_bytes, in->indices, msg, msglen)) ||
      !(in->omem = make_buffer(clctx, CL_MEM_READ_WRITE, in->out_bytes, NULL,
                               msg, msglen)))
    return -1;
  if (copy_src &&
      !(in->cmem = make_buffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               in->out_bytes, in->want, msg, msglen)))
    return -1;
  in->dd = clg_tensor_buffer(op->dtype, op->drank, op->dshape, in->dmem, 0);
  in->xd = clg_tensor_buffer(op->itype, op->irank, op->ishape, in->xmem, 0);
  in->od = clg_tensor_buffer(op->dtype, in->orank, in->oshape, in->omem, 0);
  return 0;
}

/* ---------------------------------------------------------------- plans */

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

#define PLAN_FIRST_MAX_REPS 5

/* One call of clg_run or clg_plan_enqueue, waited for: *wall_s from the
 * call to its event's completion, *kernel_s the event's START..END. */
typedef struct plan_state {
  clg_plan *plan; /* NULL: clg_run with run */
  run_state run;
} plan_state;

static int call_and_wait(plan_state *s, double *wall_s, double *kernel_s,
                         char *msg, size_t msglen) {
  const run_state *r = &s->run;
  cl_event ev = NULL;
  double t0 = bench_now();
  clg_status st =
      s->plan ? clg_plan_enqueue(s->plan, r->data, r->indices, r->output,
                                 r->queue, 0, NULL, &ev, NULL)
              : clg_run(r->ctx, r->params, r->data, r->indices, r->output,
                        r->queue, 0, NULL, &ev);
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    return -1;
  }
  cl_int e = clWaitForEvents(1, &ev);
  *wall_s = bench_now() - t0;
  double k = e == CL_SUCCESS ? bench_event_seconds(ev) : -1.0;
  clReleaseEvent(ev);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "waiting for the gather's event: %s",
             bench_cl_error(e));
    return -1;
  }
  if (kernel_s) {
    if (k < 0) {
      snprintf(msg, msglen, "no profiling time for the gather's event");
      return -1;
    }
    *kernel_s = k;
  }
  return 0;
}

/* Host overhead of one call: wall clock from the call to its event's
 * completion, less the gather kernel's own START..END. */
static int sample_overhead(void *state, double *seconds, char *msg,
                           size_t msglen) {
  double wall = 0, k = 0;
  if (call_and_wait(state, &wall, &k, msg, msglen) != 0)
    return -1;
  *seconds = wall - k;
  return 0;
}

/* The first enqueue of a plan on a new clg_context of the bench's
 * cl_context and device (so nothing is built yet), baked first or not:
 * *bake_s the clg_plan_bake, *first_s the first clg_plan_enqueue to its
 * event's completion (on the bench's queue). With check, the output is
 * poisoned before and compared after. 0, or -1 with a message (*wrong set
 * for a wrong result). */
static int plan_first_call(env *E, const bench_op *op, wl_inputs *in, int baked,
                           int check, double *first_s, double *bake_s,
                           int *wrong, char *msg, size_t msglen) {
  clg_context *c = NULL;
  clg_plan *p = NULL;
  int rc = -1;
  *bake_s = 0;
  if (check &&
      poison_buffer(E->cl.queue, in->omem, in->out_bytes, 0xA5, msg, msglen))
    return -1;
  clg_status st = clg_context_create(E->cl.ctx, E->cl.dev, &c);
  if (st == CLG_SUCCESS)
    st = clg_plan_create(c, &op->params, &in->dd, &in->xd, &in->od, 0, &p);
  if (st == CLG_SUCCESS && baked) {
    double t0 = bench_now();
    st = clg_plan_bake(p);
    *bake_s = bench_now() - t0;
  }
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    goto out;
  }
  plan_state ps = {p, {c, &op->params, &in->dd, &in->xd, &in->od, E->cl.queue}};
  if (call_and_wait(&ps, first_s, NULL, msg, msglen) != 0)
    goto out;
  if (check) {
    if (read_buffer(E->cl.queue, in->omem, in->out_bytes, in->got, msg,
                    msglen) != 0)
      goto out;
    if (compare(in->got, in->want, in->out_bytes,
                baked ? "first enqueue of a baked plan"
                      : "first enqueue of an unbaked plan",
                msg, msglen) != 0) {
      *wrong = 1;
      goto out;
    }
  }
  rc = 0;
out:
  clg_plan_destroy(p);
  clg_context_destroy(c);
  return rc;
}

static void run_plans(env *E, int wi, plans_result *r) {
  const settings *cfg = E->cfg;
  const bench_op *op = &g_work[wi].op;
  char *msg = r->message;
  size_t msglen = sizeof r->message;
  double t_start = bench_now();
  memset(r, 0, sizeof *r);
  r->work = wi;
  r->status = ST_ERROR;
  wl_inputs in;
  clg_plan *plan = NULL;
  char *saved_cache = NULL;
  int cache_set = 0, had_cache = 0;
  if (wl_prepare(&in, wi, E->cl.ctx, 0, msg, msglen) != 0)
    goto done;
  r->data_bytes = in.data_bytes;
  r->index_bytes = in.index_bytes;
  r->out_bytes = in.out_bytes;

  /* A baked plan on the bench's context; its result checked. */
  clg_status st =
      clg_plan_create(E->ctx, &op->params, &in.dd, &in.xd, &in.od, 0, &plan);
  if (st == CLG_SUCCESS)
    st = clg_plan_bake(plan);
  if (st != CLG_SUCCESS) {
    set_clg_message(msg, msglen, st);
    r->status = ST_NA;
    goto done;
  }
  run_state dev = {E->ctx, &op->params, &in.dd, &in.xd, &in.od, E->cl.queue};
  plan_state via_run = {NULL, dev};
  plan_state via_plan = {plan, dev};
  double t;
  if (poison_buffer(E->cl.queue, in.omem, in.out_bytes, 0xA5, msg, msglen))
    goto done;
  if (sample_overhead(&via_plan, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  if (read_buffer(E->cl.queue, in.omem, in.out_bytes, in.got, msg, msglen))
    goto done;
  if (compare(in.got, in.want, in.out_bytes, "clg_plan_enqueue", msg, msglen) !=
      0) {
    r->status = ST_WRONG;
    goto done;
  }

  /* (a), clg_run overhead, plan overhead, interleaved. */
  sample_fn fns[] = {sample_kernel, sample_overhead, sample_overhead};
  void *states[] = {&dev, &via_run, &via_plan};
  stats ps[3];
  if (measure_set(cfg, cfg->budget, 3, fns, states, ps, msg, msglen) != 0)
    goto done;
  r->kernel = ps[0];
  r->run_over = ps[1];
  r->plan_over = ps[2];

  /* First calls on new contexts, the disk cache off, unbaked and baked
   * interleaved. */
  const char *old = getenv("CLGATHER_CACHE_DIR");
  had_cache = old != NULL;
  if (old && !(saved_cache = strdup(old))) {
    snprintf(msg, msglen, "out of host memory");
    goto done;
  }
  if (setenv("CLGATHER_CACHE_DIR", "off", 1) != 0) {
    snprintf(msg, msglen, "setenv CLGATHER_CACHE_DIR: %s", strerror(errno));
    goto done;
  }
  cache_set = 1;
  int reps = cfg->quick ? 3 : PLAN_FIRST_MAX_REPS;
  if (cfg->reps)
    reps = cfg->reps < PLAN_FIRST_MAX_REPS ? cfg->reps : PLAN_FIRST_MAX_REPS;
  double unb[PLAN_FIRST_MAX_REPS], bake[PLAN_FIRST_MAX_REPS],
      bkd[PLAN_FIRST_MAX_REPS];
  for (int k = 0; k < reps; ++k) {
    int wrong = 0;
    double unused;
    if (plan_first_call(E, op, &in, 0, k == 0, &unb[k], &unused, &wrong, msg,
                        msglen) != 0 ||
        plan_first_call(E, op, &in, 1, k == 0, &bkd[k], &bake[k], &wrong, msg,
                        msglen) != 0) {
      r->status = wrong ? ST_WRONG : ST_ERROR;
      goto done;
    }
  }
  r->first_reps = reps;
  r->unbaked_first = median_of(unb, reps);
  r->unbaked_min = unb[0];
  r->unbaked_max = unb[reps - 1];
  r->baked_first = median_of(bkd, reps);
  r->baked_min = bkd[0];
  r->baked_max = bkd[reps - 1];
  r->bake = median_of(bake, reps);
  r->status = ST_OK;
  msg[0] = '\0';

done:
  if (cache_set) {
    if (had_cache && saved_cache)
      setenv("CLGATHER_CACHE_DIR", saved_cache, 1);
    else
      unsetenv("CLGATHER_CACHE_DIR");
  }
  free(saved_cache);
  clg_plan_destroy(plan);
  wl_release(&in);
  r->seconds = bench_now() - t_start;
}

/* ------------------------------------------------------------ sharding */

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

static void shard_env_release(shard_env *S) {
  if (S->cl_init)
    bench_cl_release(&S->cl);
  S->cl_init = 0;
  for (int i = 0; i < SHARD_DEVICES; ++i) {
    clg_context_destroy(S->ctxs[i]);
    S->ctxs[i] = NULL;
  }
  if (S->clctx)
    clReleaseContext(S->clctx);
  S->clctx = NULL;
}

static void shard_env_init(env *E, shard_env *S) {
  memset(S, 0, sizeof *S);
  S->status = ST_ERROR;
  cl_device_id dev0 = E->cl.dev, devs[SHARD_DEVICES] = {dev0, NULL};
  cl_platform_id plat = NULL;
  cl_int e =
      clGetDeviceInfo(dev0, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
  cl_uint n = 0;
  if (e == CL_SUCCESS)
    e = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
  cl_device_id *all = n ? malloc(n * sizeof *all) : NULL;
  if (e == CL_SUCCESS && n && !all) {
    snprintf(S->message, sizeof S->message, "out of host memory");
    return;
  }
  if (e == CL_SUCCESS && n)
    e = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, n, all, NULL);
  if (e != CL_SUCCESS) {
    free(all);
    snprintf(S->message, sizeof S->message,
             "listing the devices of the platform: %s", bench_cl_error(e));
    return;
  }
  S->platform_devices = n;
  for (cl_uint i = 0; i < n && !devs[1]; ++i)
    if (all[i] != dev0)
      devs[1] = all[i];
  free(all);
  clGetDeviceInfo(dev0, CL_DEVICE_NAME, sizeof S->names[0] - 1, S->names[0],
                  NULL);
  if (!devs[1]) {
    S->status = ST_NA;
    snprintf(S->message, sizeof S->message,
             "the platform of %.200s has %u device(s): nothing to shard "
             "over (on POCL, POCL_DEVICES=\"pthread pthread\" gives two)",
             S->names[0], (unsigned)n);
    return;
  }
  clGetDeviceInfo(devs[1], CL_DEVICE_NAME, sizeof S->names[1] - 1, S->names[1],
                  NULL);
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)plat, 0};
  S->clctx = clCreateContext(props, SHARD_DEVICES, devs, NULL, NULL, &e);
  if (!S->clctx) {
    snprintf(S->message, sizeof S->message,
             "clCreateContext with %d devices: %s", SHARD_DEVICES,
             bench_cl_error(e));
    return;
  }
  for (int i = 0; i < SHARD_DEVICES; ++i) {
    clg_status st = clg_context_create(S->clctx, devs[i], &S->ctxs[i]);
    if (st != CLG_SUCCESS) {
      set_clg_message(S->message, sizeof S->message, st);
      shard_env_release(S);
      return;
    }
  }
  S->cl_init = 1;
  if (bench_cl_init(&S->cl, S->clctx, devs[0], S->message, sizeof S->message) !=
      0) {
    shard_env_release(S);
    return;
  }
  S->status = ST_OK;
  S->message[0] = '\0';
}

/* clg_run_sharded on cl_mem tensors: wall clock from the call to its
 * event's completion (validation on ctxs[0], every shard). */
typedef struct sharded_state {
  clg_context *const *ctxs;
  cl_uint n;
  run_state run; /* params and tensors; ctx and queue unused */
} sharded_state;

static int sample_sharded(void *state, double *seconds, char *msg,
                          size_t msglen) {
  sharded_state *s = state;
  cl_event ev = NULL;
  double t0 = bench_now();
  clg_status st =
      clg_run_sharded(s->ctxs, s->n, s->run.params, s->run.data, s->run.indices,
                      s->run.output, NULL, 0, NULL, &ev);
  if (st != CLG_SUCCESS) {
    snprintf(msg, msglen, "clg_run_sharded: %s: %s", clg_status_string(st),
             clg_last_error());
    return -1;
  }
  cl_int e = clWaitForEvents(1, &ev);
  *seconds = bench_now() - t0;
  clReleaseEvent(ev);
  if (e != CL_SUCCESS) {
    snprintf(msg, msglen, "waiting for clg_run_sharded's event: %s",
             bench_cl_error(e));
    return -1;
  }
  return 0;
}

static void run_shard(env *E, shard_env *S, int wi, shard_result *r) {
  const settings *cfg = E->cfg;
  const bench_op *op = &g_work[wi].op;
  char *msg = r->message;
  size_t msglen = sizeof r->message;
  double t_start = bench_now();
  memset(r, 0, sizeof *r);
  r->work = wi;
  r->status = ST_ERROR;
  r->copy_method = "";
  wl_inputs in;
  if (wl_prepare(&in, wi, S->clctx, 1, msg, msglen) != 0)
    goto done;
  r->out_bytes = in.out_bytes;
  cl_command_queue q = S->cl.queue;
  run_state single = {S->ctxs[0], &op->params, &in.dd, &in.xd, &in.od, NULL};
  run_state prof = single;
  prof.queue = q;
  sharded_state sh = {S->ctxs, SHARD_DEVICES, single};
  double t;

  /* clg_run_sharded first: if it cannot run, the row is skipped. */
  if (poison_buffer(q, in.omem, in.out_bytes, 0xA5, msg, msglen) != 0)
    goto done;
  if (sample_sharded(&sh, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  if (read_buffer(q, in.omem, in.out_bytes, in.got, msg, msglen) != 0)
    goto done;
  if (compare(in.got, in.want, in.out_bytes, "clg_run_sharded", msg, msglen) !=
      0) {
    r->status = ST_WRONG;
    goto done;
  }
  /* clg_run on ctxs[0] in the same cl_context. */
  if (poison_buffer(q, in.omem, in.out_bytes, 0xA5, msg, msglen) != 0)
    goto done;
  if (sample_e2e(&single, &t, msg, msglen) != 0) {
    r->status = ST_NA;
    goto done;
  }
  if (read_buffer(q, in.omem, in.out_bytes, in.got, msg, msglen) != 0)
    goto done;
  if (compare(in.got, in.want, in.out_bytes, "clg_run in the 2-device context",
              msg, msglen) != 0) {
    r->status = ST_WRONG;
    goto done;
  }

  /* copy-ref (d), kernel (a), clg_run and clg_run_sharded end to end,
   * interleaved. */
  copy_state cb = {&S->cl, 0, in.cmem, in.omem, (size_t)in.out_bytes};
  copy_state ck = {&S->cl, 1, in.cmem, in.omem, (size_t)in.out_bytes};
  sample_fn fns[] = {sample_copy, sample_copy, sample_kernel, sample_e2e,
                     sample_sharded};
  void *states[] = {&cb, &ck, &prof, &single, &sh};
  stats ss[5];
  if (measure_set(cfg, cfg->budget, 5, fns, states, ss, msg, msglen) != 0)
    goto done;
  r->copybuf = ss[0];
  r->copykern = ss[1];
  r->kernel = ss[2];
  r->single = ss[3];
  r->sharded = ss[4];
  r->copy_ref = ss[0].median <= ss[1].median ? ss[0].median : ss[1].median;
  r->copy_method =
      ss[0].median <= ss[1].median ? "clEnqueueCopyBuffer" : "copy kernel";
  r->status = ST_OK;
  msg[0] = '\0';
done:
  wl_release(&in);
  r->seconds = bench_now() - t_start;
}

/* --------------------------------------------------------------- output */

static void human_bytes(char *buf, size_t len, double bytes) {
  if (bytes >= 1024.0 * 1024.0 * 1024.0)
    snprintf(buf, len, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  else if (bytes >= 1024.0 * 1024.0)
    snprintf(buf, len, "%.2f MiB", bytes / (1024.0 * 1024.0));
  else if (bytes >= 1024.0)
    snprintf(buf, len, "%.2f KiB", bytes / 1024.0);
  else
    snprintf(buf, len, "%.0f B", bytes);
}

static void fmt_ms(char *buf, size_t len, double s) {
  double ms = s * 1e3;
  snprintf(buf, len, ms >= 100 ? "%.1f" : ms >= 1 ? "%.2f" : "%.3f", ms);
}

static void fmt_gbps(char *buf, size_t len, double bytes, double s) {
  double g = s > 0 ? bytes / s * 1e-9 : 0.0;
  snprintf(buf, len, g >= 100 ? "%.0f" : g >= 1 ? "%.2f" : "%.3f", g);
}

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

static void fmt_ratio(char *buf, size_t len, double s, double kernel) {
  char ms[16];
  fmt_ms(ms, sizeof ms, s);
  snprintf(buf, len, "%s (%.2fx)", ms, kernel > 0 ? s / kernel : 0.0);
}

/* "45.2 us (0.04x)": a time in microseconds and its ratio to `kernel`. */
static void fmt_us_ratio(char *buf, size_t len, double s, double kernel) {
  double us = s * 1e6;
  snprintf(buf, len, us >= 100 ? "%.0f us (%.2fx)" : "%.1f us (%.2fx)", us,
           kernel > 0 ? s / kernel : 0.0);
}

static void print_pipeline(const extras *x) {
  printf("\ndevice-resident validation (data, indices, output in cl_mem; "
         "medians, interleaved):\n");
  printf("%-8s %10s %8s %15s %15s %15s %15s %16s  %s\n", "workload", "index",
         "kern ms", "device-valid ms", "read-back ms", "checked e2e ms",
         "async e2e ms", "async returns", "library path");
  printf("%-8s %10s %8s %15s %15s %15s %15s %16s  %s\n", "", "bytes", "(a)",
         "(i)", "(ii)", "(iii)", "(iv)", "after (v)", "");
  for (int i = 0; i < x->npipe; ++i) {
    const pipe_result *r = &x->pipe[i];
    const char *name = r->work >= 0 ? g_work[r->work].name : "?";
    char ib[24];
    human_bytes(ib, sizeof ib, (double)r->index_bytes);
    if (r->status != ST_OK) {
      printf("%-8s %10s %s%s\n", name, ib,
             r->status == ST_NA      ? "n/a: "
             : r->status == ST_WRONG ? ""
                                     : "error: ",
             r->message);
      continue;
    }
    char km[16], dv[32], rb[32], ee[32], ae[32], ar[32];
    fmt_ms(km, sizeof km, r->kernel.median);
    fmt_ratio(dv, sizeof dv, r->devval.median, r->kernel.median);
    fmt_ratio(rb, sizeof rb, r->rbval.median, r->kernel.median);
    fmt_ratio(ee, sizeof ee, r->e2e.median, r->kernel.median);
    fmt_ratio(ae, sizeof ae, r->async_e2e.median, r->kernel.median);
    fmt_us_ratio(ar, sizeof ar, r->async_ret.median, r->kernel.median);
    printf("%-8s %10s %8s %15s %15s %15s %15s %16s  %s\n", name, ib, km, dv, rb,
           ee, ae, ar, r->device_path ? "device kernel" : "read-back");
  }
  printf("\n(a) gather kernel alone, event START..END (the x figures are "
         "ratios to it); (i) clg_validate(ctx) on the cl_mem indices, wall "
         "clock:\nthe library's own path; (ii) read-back validation by the "
         "bench: malloc + blocking clEnqueueReadBuffer of the indices +\n"
         "clg_validate(NULL) on the copy (what the library's read-back path "
         "does); (iii) clg_run on cl_mem tensors, wall clock from the\ncall "
         "to its event's completion (validation + launch + kernel); (iv) "
         "clg_run_async on the same tensors, wall clock from the call\nto "
         "its event's completion and clg_outcome_wait() (validation kernel "
         "+ gated gather kernel, nothing read back but the verdict);\n(v) "
         "the same call, wall clock until clg_run_async returns, in "
         "microseconds (it does not wait for the device). Library path\n"
         "(clg_run, clg_validate): device kernel from %" PRIu64 " KiB of "
         "indices, read-back below (CLG_VALIDATE_DEVICE_MIN_BYTES, inferred, "
         "not\nobserved). Results checked byte for byte (clg_run and "
         "clg_run_async); both validation paths checked to reject one "
         "out-of-range\nindex, and clg_run_async to report it from its "
         "outcome with the output untouched.\n",
         BENCH_VALIDATE_DEVICE_MIN_BYTES / 1024);
}

static void print_cold(const extras *x) {
  const cold_result *r = &x->cold;
  if (r->status != ST_OK) {
    printf("\ncold start: %s%s\n",
           r->status == ST_WRONG ? "" : "error: ", r->message);
    return;
  }
  char v[COLD_CASES][16];
  for (int c = 0; c < COLD_CASES; ++c)
    fmt_ms(v[c], sizeof v[c], r->med[c].first);
  printf("\ncold start (new process -> first W1 result on host memory, "
         "median of %d): disk cache cold %s ms, warm %s ms, off %s ms\n",
         r->reps, v[0], v[1], v[2]);
  printf("%-12s %9s %9s %9s %9s %9s\n", "  disk cache", "first ms", "exec ms",
         "context", "1st call", "(inputs)");
  for (int c = 0; c < COLD_CASES; ++c) {
    char f[16], e[16], cx[16], cl[16], in[16];
    fmt_ms(f, sizeof f, r->med[c].first);
    fmt_ms(e, sizeof e, r->med[c].startup);
    fmt_ms(cx, sizeof cx, r->med[c].context);
    fmt_ms(cl, sizeof cl, r->med[c].call);
    fmt_ms(in, sizeof in, r->med[c].inputs);
    printf("  %-10s %9s %9s %9s %9s %9s\n", cold_case_name[c], f, e, cx, cl,
           in);
  }
  printf("\nfirst = spawn of `clgather-bench --cold-start-child` -> its "
         "first clg_run returns, less the child's input preparation\n"
         "(inputs: W1's data and indices, made before OpenCL is touched); "
         "exec = spawn -> main; context = clg_context_create_default;\n"
         "1st call = the first clg_run (builds or loads the program, "
         "stages, runs, reads back). CLGATHER_CACHE_DIR: cold = a fresh\n"
         "empty directory (%d file(s) in it afterwards), warm = the same "
         "directory again, off = \"off\". POCL's own kernel cache is left\n"
         "as it is (warm): a cold POCL cache would add its compile time to "
         "every figure. Each child's result checked byte for byte.\n",
         r->cache_files);
}

static const char *status_prefix(int status) {
  return status == ST_NA ? "n/a: " : status == ST_WRONG ? "" : "error: ";
}

static void print_plans(const extras *x) {
  printf("\nplans (data, indices, output in cl_mem; clg_plan_enqueue vs "
         "clg_run, both synchronous, each waited for):\n");
  printf("%-8s %10s %8s %17s %17s %10s %9s %9s %9s\n", "workload", "index",
         "kern ms", "clg_run", "plan enqueue", "plan - run", "unbaked", "bake",
         "baked");
  printf("%-8s %10s %8s %17s %17s %10s %9s %9s %9s\n", "", "bytes", "(a)",
         "overhead (p1)", "overhead (p2)", "us", "1st ms", "ms", "1st ms");
  int reps = 0;
  for (int i = 0; i < x->nplan; ++i) {
    const plans_result *r = &x->plan[i];
    char ib[24];
    human_bytes(ib, sizeof ib, (double)r->index_bytes);
    if (r->status != ST_OK) {
      printf("%-8s %10s %s%s\n", g_work[r->work].name, ib,
             status_prefix(r->status), r->message);
      continue;
    }
    reps = r->first_reps;
    char km[16], ro[32], po[32], un[16], bk[16], bd[16];
    fmt_ms(km, sizeof km, r->kernel.median);
    fmt_us_ratio(ro, sizeof ro, r->run_over.median, r->kernel.median);
    fmt_us_ratio(po, sizeof po, r->plan_over.median, r->kernel.median);
    fmt_ms(un, sizeof un, r->unbaked_first);
    fmt_ms(bk, sizeof bk, r->bake);
    fmt_ms(bd, sizeof bd, r->baked_first);
    printf("%-8s %10s %8s %17s %17s %+10.1f %9s %9s %9s\n",
           g_work[r->work].name, ib, km, ro, po,
           (r->plan_over.median - r->run_over.median) * 1e6, un, bk, bd);
  }
  printf("\n(a) gather kernel alone (clg_run), event START..END; (p1), (p2) "
         "host overhead per call: wall clock from the call to its event's\n"
         "completion less that event's START..END (validation with its "
         "blocking verdict read, checks, launch), in microseconds, with\n"
         "the ratio to (a); (a), (p1), (p2) interleaved, medians. First "
         "calls (median of %d): a new clg_context on the same device,\n"
         "CLGATHER_CACHE_DIR=off, clg_plan_create, then unbaked: the first "
         "clg_plan_enqueue, which builds its programs; baked:\n"
         "clg_plan_bake (bake ms), then the first clg_plan_enqueue; both "
         "to the event's completion. POCL's own kernel cache is left as\n"
         "it is (warm). Results checked byte for byte.\n",
         reps);
}

/* "1.23 (0.88)": a time in ms and copy-ref / time (1.0 = as fast as the
 * copy). */
static void fmt_ms_copy(char *buf, size_t len, double s, double copy_ref) {
  char ms[16];
  fmt_ms(ms, sizeof ms, s);
  snprintf(buf, len, "%s (%.2f)", ms, s > 0 ? copy_ref / s : 0.0);
}

static void print_shard(const extras *x) {
  if (x->shard_status != ST_OK) {
    printf("\nshard: %s%s\n",
           x->shard_status == ST_NA ? "" : "error: ", x->shard_message);
    return;
  }
  printf("\nsharded over %d devices (data, indices, output in cl_mem of one "
         "cl_context with both devices; medians, interleaved):\n",
         SHARD_DEVICES);
  for (int i = 0; i < SHARD_DEVICES; ++i)
    printf("  device %d: %s\n", i, x->shard_names[i]);
  printf("%-8s %10s %11s %15s %15s %15s %10s\n", "workload", "out",
         "copy-ref ms", "1 dev kernel", "1 dev clg_run", "2 dev sharded",
         "sharded /");
  printf("%-8s %10s %11s %15s %15s %15s %10s\n", "", "bytes", "(d)",
         "ms (x) (a)", "ms (x) (s1)", "ms (x) (s2)", "clg_run");
  for (int i = 0; i < x->nshard; ++i) {
    const shard_result *r = &x->shard_rows[i];
    char ob[24];
    human_bytes(ob, sizeof ob, (double)r->out_bytes);
    if (r->status != ST_OK) {
      printf("%-8s %10s %s%s\n", g_work[r->work].name, ob,
             status_prefix(r->status), r->message);
      continue;
    }
    char cr[16], k[32], s1[32], s2[32];
    fmt_ms(cr, sizeof cr, r->copy_ref);
    fmt_ms_copy(k, sizeof k, r->kernel.median, r->copy_ref);
    fmt_ms_copy(s1, sizeof s1, r->single.median, r->copy_ref);
    fmt_ms_copy(s2, sizeof s2, r->sharded.median, r->copy_ref);
    printf("%-8s %10s %11s %15s %15s %15s %9.2fx\n", g_work[r->work].name, ob,
           cr, k, s1, s2, r->single.median / r->sharded.median);
  }
  printf("\n(d) copy-ref on device 0 = faster of clEnqueueCopyBuffer and a "
         "copy kernel of the output's bytes, event-profiled; (x) =\ncopy-ref "
         "/ time, as \"x copy-ref\" in the main table (1.0 = as fast as one "
         "device's copy). (a) clg_run's gather kernel on device 0,\nevent "
         "START..END; (s1) clg_run on device 0, (s2) clg_run_sharded over "
         "both devices (each context's own queue): wall clock from\nthe call "
         "to its event's completion, validation included. sharded / clg_run "
         "= (s1) / (s2): above 1 the split pays. Results\nchecked byte for "
         "byte. Devices: the bench's device and the next device of its "
         "platform (POCL: POCL_DEVICES=\"pthread pthread\").\n");
}

static const char *choice_name(clg_choice c) {
  return c == CLG_CHOICE_MEASURED  ? "measured"
         : c == CLG_CHOICE_FORCED  ? "forced"
         : c == CLG_CHOICE_DEFAULT ? "default"
                                   : "none";
}

static void print_table(const run_info *info, const settings *cfg,
                        const int *idx, const result *res, int n,
                        const extras *x) {
  printf("clgather-bench %s on %s (%s; driver %s), %u compute units\n",
         clg_version_string(), info->device, info->version, info->driver,
         (unsigned)info->cus);
  printf("settings: %s, %s reps per figure, budget %.2f s per set, sweep "
         "output %zu MiB\n",
         cfg->quick ? "quick" : "default", cfg->reps ? "fixed" : "adaptive",
         cfg->budget, cfg->sweep_bytes / (1024 * 1024));
  printf("launch floor (empty kernel, median of %d): %.1f us event, %.1f us "
         "wall (enqueue to completion)\n",
         info->floor_reps, info->floor_event * 1e6, info->floor_wall * 1e6);
  if (n == 0)
    goto extras_out;
  printf("\n");
  printf("%-8s %-14s %10s %9s %9s %9s %9s %9s %7s %8s  %s\n", "workload", "",
         "out", "kern ms", "kern GB/s", "copy GB/s", "x copy-ref", "call ms",
         "valid", "bounds", "variant (e)");
  printf("%-8s %-14s %10s %9s %9s %9s %9s %9s %7s %8s\n", "", "", "bytes",
         "(a)", "", "(d)", "", "(b)", "/call", "GB/s (c)");
  for (int i = 0; i < n; ++i) {
    const workload *w = &g_work[idx[i]];
    const result *r = &res[i];
    char ob[24];
    human_bytes(ob, sizeof ob, (double)r->out_bytes);
    if (r->status != ST_OK) {
      printf("%-8s %-14s %10s %s%s\n", w->name, w->label, ob,
             r->status == ST_NA      ? "n/a: "
             : r->status == ST_WRONG ? ""
                                     : "error: ",
             r->message);
      continue;
    }
    char km[16], kg[16], cg[16], cm[16], bg[16];
    fmt_ms(km, sizeof km, r->kernel.median);
    fmt_gbps(kg, sizeof kg, (double)r->out_bytes, r->kernel.median);
    fmt_gbps(cg, sizeof cg, (double)r->out_bytes, r->copy_ref);
    fmt_ms(cm, sizeof cm, r->call.median);
    if (w->op.params.mode == CLG_MODE_RAISE)
      fmt_gbps(bg, sizeof bg, (double)r->index_bytes, r->validate.median);
    else
      snprintf(bg, sizeof bg, "-");
    printf("%-8s %-14s %10s %9s %9s %9s %9.2f %9s %6.1f%% %8s  %s, %s\n",
           w->name, w->label, ob, km, kg, cg, r->copy_ref / r->kernel.median,
           cm, 100.0 * r->validate.median / r->call.median, bg,
           r->variant ? r->variant : "?", choice_name(r->choice));
  }
  printf("\n(a) gather kernel on cl_mem tensors, event START..END; "
         "(d) copy-ref = faster of clEnqueueCopyBuffer and a copy kernel of "
         "the output's bytes;\nx copy-ref = copy-ref time / kernel time "
         "(1.0 = as fast as a copy); (b) clg_run on host memory, wall clock; "
         "valid/call = (c) clg_validate(NULL) / (b);\nbounds GB/s = index "
         "bytes / (c) ('-': modes wrap/clip read no index values). Medians.\n"
         "(e) the kernel variant (a) ran (clg_context_last_variant) and how "
         "the library chose it: measured on this device, default (one "
         "candidate or output < 1 MiB), forced (CLGATHER_VARIANT).\n"
         "\nworkloads:\n");
  for (int i = 0; i < n; ++i) {
    char d[256];
    describe(d, sizeof d, &g_work[idx[i]].op);
    printf("  %-8s %s\n", g_work[idx[i]].name, d);
  }
extras_out:
  if (x->pipeline)
    print_pipeline(x);
  if (x->coldstart)
    print_cold(x);
  if (x->plans)
    print_plans(x);
  if (x->shard)
    print_shard(x);
  printf("\ntotal run time %.1f s\n", info->total_seconds);
}

static void json_string(const char *s) {
  putchar('"');
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

static void json_shape(int32_t rank, const int64_t *shape) {
  putchar('[');
  for (int32_t i = 0; i < rank; ++i)
    printf("%s%" PRId64, i ? ", " : "", shape[i]);
  putchar(']');
}

static void json_stats(const char *name, const stats *s) {
  printf(", \"%s\": {\"median_s\": %.6g, \"min_s\": %.6g, \"max_s\": %.6g, "
         "\"reps\": %d}",
         name, s->median, s->min, s->max, s->reps);
}

static void json_pipeline(const extras *x) {
  printf(",\n \"device_resident_validation\": ");
  if (!x->pipeline) {
    printf("null");
    return;
  }
  printf("{\"device_validation_min_index_bytes\": %" PRIu64 ", \"rows\": [",
         BENCH_VALIDATE_DEVICE_MIN_BYTES);
  for (int i = 0; i < x->npipe; ++i) {
    const pipe_result *r = &x->pipe[i];
    printf("%s\n  {\"name\": ", i ? "," : "");
    json_string(r->work >= 0 ? g_work[r->work].name : "?");
    printf(", \"data_bytes\": %" PRIu64 ", \"index_bytes\": %" PRIu64
           ", \"output_bytes\": %" PRIu64 ", \"library_path\": \"%s\"",
           r->data_bytes, r->index_bytes, r->out_bytes,
           r->device_path ? "device" : "read-back");
    printf(", \"status\": \"%s\", \"message\": ", r->status == ST_OK   ? "ok"
                                                  : r->status == ST_NA ? "n/a"
                                                  : r->status == ST_WRONG
                                                      ? "wrong"
                                                      : "error");
    json_string(r->message);
    printf(", \"seconds\": %.3f", r->seconds);
    if (r->status == ST_OK) {
      json_stats("kernel", &r->kernel);
      json_stats("device_validation", &r->devval);
      json_stats("readback_validation", &r->rbval);
      json_stats("checked_end_to_end", &r->e2e);
      json_stats("checked_async_end_to_end", &r->async_e2e);
      json_stats("checked_async_return", &r->async_ret);
      printf(", \"device_validation_x_kernel\": %.6g, "
             "\"readback_validation_x_kernel\": %.6g, "
             "\"checked_end_to_end_x_kernel\": %.6g, "
             "\"checked_async_end_to_end_x_kernel\": %.6g, "
             "\"checked_async_return_x_kernel\": %.6g",
             r->devval.median / r->kernel.median,
             r->rbval.median / r->kernel.median,
             r->e2e.median / r->kernel.median,
             r->async_e2e.median / r->kernel.median,
             r->async_ret.median / r->kernel.median);
    }
    printf("}");
  }
  printf("\n ]}");
}

static void json_cold(const extras *x) {
  const cold_result *r = &x->cold;
  printf(",\n \"cold_start\": ");
  if (!x->coldstart) {
    printf("null");
    return;
  }
  printf("{\"workload\": \"W1\", \"storage\": \"host\", "
         "\"pocl_kernel_cache\": \"as is (warm)\", \"status\": \"%s\", "
         "\"message\": ",
         r->status == ST_OK      ? "ok"
         : r->status == ST_WRONG ? "wrong"
                                 : "error");
  json_string(r->message);
  printf(", \"reps\": %d, \"cold_dir_files\": %d, \"seconds\": %.3f", r->reps,
         r->cache_files, r->seconds);
  if (r->status == ST_OK)
    for (int c = 0; c < COLD_CASES; ++c)
      printf(", \"%s\": {\"first_result_s\": %.6g, \"first_min_s\": %.6g, "
             "\"first_max_s\": %.6g, \"exec_s\": %.6g, \"context_s\": %.6g, "
             "\"first_call_s\": %.6g, \"inputs_s\": %.6g}",
             cold_case_name[c], r->med[c].first, r->first_min[c],
             r->first_max[c], r->med[c].startup, r->med[c].context,
             r->med[c].call, r->med[c].inputs);
  printf("}");
}

/* The end of a progress line on stderr: the status, the seconds this step
 * took and the total so far, and the message of a failure. */
static void progress_end(int status, double seconds, double t_begin,
                         const char *message) {
  fprintf(stderr, "%-5s %5.1f s (total %5.1f s)%s%s\n",
          status == ST_OK      ? "ok"
          : status == ST_NA    ? "n/a"
          : status == ST_WRONG ? "WRONG"
                               : "error",
          seconds, bench_now() - t_begin, status ? ": " : "",
          status ? message : "");
}

static const char *status_word(int status) {
  return status == ST_OK      ? "ok"
         : status == ST_NA    ? "n/a"
         : status == ST_WRONG ? "wrong"
                              : "error";
}

static void json_plans(const extras *x) {
  printf(",\n \"plans\": ");
  if (!x->plans) {
    printf("null");
    return;
  }
  printf("{\"first_call_disk_cache\": \"off\", \"pocl_kernel_cache\": "
         "\"as is (warm)\", \"rows\": [");
  for (int i = 0; i < x->nplan; ++i) {
    const plans_result *r = &x->plan[i];
    printf("%s\n  {\"name\": ", i ? "," : "");
    json_string(g_work[r->work].name);
    printf(", \"data_bytes\": %" PRIu64 ", \"index_bytes\": %" PRIu64
           ", \"output_bytes\": %" PRIu64,
           r->data_bytes, r->index_bytes, r->out_bytes);
    printf(", \"status\": \"%s\", \"message\": ", status_word(r->status));
    json_string(r->message);
    printf(", \"seconds\": %.3f", r->seconds);
    if (r->status == ST_OK) {
      json_stats("kernel", &r->kernel);
      json_stats("run_overhead", &r->run_over);
      json_stats("plan_overhead", &r->plan_over);
      printf(", \"run_overhead_x_kernel\": %.6g, "
             "\"plan_overhead_x_kernel\": %.6g, "
             "\"plan_minus_run_overhead_s\": %.6g",
             r->run_over.median / r->kernel.median,
             r->plan_over.median / r->kernel.median,
             r->plan_over.median - r->run_over.median);
      printf(", \"first_call\": {\"reps\": %d, "
             "\"unbaked_first_enqueue_s\": %.6g, \"unbaked_min_s\": %.6g, "
             "\"unbaked_max_s\": %.6g, \"bake_s\": %.6g, "
             "\"baked_first_enqueue_s\": %.6g, \"baked_min_s\": %.6g, "
             "\"baked_max_s\": %.6g}",
             r->first_reps, r->unbaked_first, r->unbaked_min, r->unbaked_max,
             r->bake, r->baked_first, r->baked_min, r->baked_max);
    }
    printf("}");
  }
  printf("\n ]}");
}

static void json_shard(const extras *x) {
  printf(",\n \"shard\": ");
  if (!x->shard) {
    printf("null");
    return;
  }
  printf("{\"status\": \"%s\", \"message\": ", status_word(x->shard_status));
  json_string(x->shard_message);
  printf(", \"platform_devices\": %u, \"devices\": [",
         x->shard_platform_devices);
  if (x->shard_status == ST_OK)
    for (int i = 0; i < SHARD_DEVICES; ++i) {
      printf("%s", i ? ", " : "");
      json_string(x->shard_names[i]);
    }
  printf("], \"rows\": [");
  for (int i = 0; i < x->nshard; ++i) {
    const shard_result *r = &x->shard_rows[i];
    printf("%s\n  {\"name\": ", i ? "," : "");
    json_string(g_work[r->work].name);
    printf(", \"output_bytes\": %" PRIu64 ", \"status\": \"%s\", "
           "\"message\": ",
           r->out_bytes, status_word(r->status));
    json_string(r->message);
    printf(", \"seconds\": %.3f", r->seconds);
    if (r->status == ST_OK) {
      json_stats("copy_buffer", &r->copybuf);
      json_stats("copy_kernel", &r->copykern);
      json_stats("kernel", &r->kernel);
      json_stats("run_end_to_end", &r->single);
      json_stats("sharded_end_to_end", &r->sharded);
      printf(", \"copy_ref_s\": %.6g, \"copy_ref_method\": \"%s\", "
             "\"kernel_x_copy_ref\": %.6g, "
             "\"run_end_to_end_x_copy_ref\": %.6g, "
             "\"sharded_end_to_end_x_copy_ref\": %.6g, "
             "\"sharded_speedup\": %.6g",
             r->copy_ref, r->copy_method, r->copy_ref / r->kernel.median,
             r->copy_ref / r->single.median, r->copy_ref / r->sharded.median,
             r->single.median / r->sharded.median);
    }
    printf("}");
  }
  printf("\n ]}");
}

static void print_json(const run_info *info, const settings *cfg,
                       const int *idx, const result *res, int n,
                       const extras *x) {
  printf("{\"clgather_version\": ");
  json_string(clg_version_string());
  printf(", \"device\": ");
  json_string(info->device);
  printf(", \"device_version\": ");
  json_string(info->version);
  printf(", \"driver\": ");
  json_string(info->driver);
  printf(", \"compute_units\": %u", (unsigned)info->cus);
  printf(",\n \"settings\": {\"quick\": %s, \"reps\": %d, \"budget_s\": %g, "
         "\"min_reps\": %d, \"max_reps\": %d, \"warmup\": %d, "
         "\"sweep_output_bytes\": %zu}",
         cfg->quick ? "true" : "false", cfg->reps, cfg->budget, cfg->min_reps,
         cfg->max_reps, cfg->warmup, cfg->sweep_bytes);
  printf(",\n \"launch_floor\": {\"event_s\": %.6g, \"wall_s\": %.6g, "
         "\"reps\": %d}",
         info->floor_event, info->floor_wall, info->floor_reps);
  printf(",\n \"total_seconds\": %.3f,\n \"workloads\": [",
         info->total_seconds);
  for (int i = 0; i < n; ++i) {
    const workload *w = &g_work[idx[i]];
    const result *r = &res[i];
    char d[256];
    describe(d, sizeof d, &w->op);
    printf("%s\n  {\"name\": ", i ? "," : "");
    json_string(w->name);
    printf(", \"label\": ");
    json_string(w->label);
    printf(", \"group\": \"%s\", \"description\": ",
           w->group == GROUP_STANDARD ? "standard"
           : w->group == GROUP_SWEEP  ? "sweep"
                                      : "family");
    json_string(d);
    printf(", \"op\": \"%s\", \"dtype\": \"%s\", \"data_shape\": ",
           op_name(w->op.params.op), clg_dtype_name(w->op.dtype));
    json_shape(w->op.drank, w->op.dshape);
    printf(", \"index_dtype\": \"%s\", \"indices_shape\": ",
           clg_dtype_name(w->op.itype));
    json_shape(w->op.irank, w->op.ishape);
    printf(", \"axis\": %" PRId64 ", \"batch_dims\": %" PRId64
           ", \"mode\": \"%s\"",
           w->op.params.axis, w->op.params.batch_dims,
           mode_name(w->op.params.mode));
    printf(", \"data_bytes\": %" PRIu64 ", \"index_bytes\": %" PRIu64
           ", \"output_bytes\": %" PRIu64,
           r->data_bytes, r->index_bytes, r->out_bytes);
    printf(", \"status\": \"%s\", \"message\": ", r->status == ST_OK   ? "ok"
                                                  : r->status == ST_NA ? "n/a"
                                                  : r->status == ST_WRONG
                                                      ? "wrong"
                                                      : "error");
    json_string(r->message);
    printf(", \"seconds\": %.3f, \"reference_once_s\": %.6g", r->seconds,
           r->reference_s);
    if (r->status == ST_OK) {
      json_stats("kernel", &r->kernel);
      json_stats("copy_buffer", &r->copybuf);
      json_stats("copy_kernel", &r->copykern);
      json_stats("call", &r->call);
      json_stats("validate", &r->validate);
      printf(", \"copy_ref_s\": %.6g, \"copy_ref_method\": \"%s\"", r->copy_ref,
             r->copy_method);
      printf(", \"variant\": \"%s\", \"variant_choice\": \"%s\"",
             r->variant ? r->variant : "?", choice_name(r->choice));
      printf(", \"kernel_gbps\": %.6g, \"copy_ref_gbps\": %.6g, "
             "\"x_copy_ref\": %.6g, \"call_gbps\": %.6g, "
             "\"validate_over_call\": %.6g, \"bounds_gbps\": %.6g",
             (double)r->out_bytes / r->kernel.median * 1e-9,
             (double)r->out_bytes / r->copy_ref * 1e-9,
             r->copy_ref / r->kernel.median,
             (double)r->out_bytes / r->call.median * 1e-9,
             r->validate.median / r->call.median,
             (double)r->index_bytes / r->validate.median * 1e-9);
    }
    printf("}");
  }
  printf("\n ]");
  json_pipeline(x);
  json_cold(x);
  json_plans(x);
  json_shard(x);
  printf("}\n");
}

/* ----------------------------------------------------------------- main */

static void usage(FILE *f) {
  fprintf(f,
          "usage: clgather-bench [--device SPEC] [--json] [--quick] "
          "[--only LIST] [--reps N]\n"
          "                      [--budget SECONDS] [--sweep-mib N] "
          "[--list]\n"
          "  --device SPEC   P:D or a device-name substring (default: "
          "CLGATHER_DEVICE,\n"
          "                  else the first GPU, else the first device)\n"
          "  --json          machine-readable results on stdout\n"
          "  --quick         fewer samples and a smaller sweep (~1 min on a "
          "2-core CPU)\n"
          "  --only LIST     comma-separated workload names (see --list); "
          "NAME* is a\n"
          "                  prefix; standard, sweep, family select groups; "
          "pipeline\n"
          "                  (device-resident validation, W1 and W2), "
          "coldstart\n"
          "                  (new process to first W1 result), plans "
          "(clg_plan_enqueue vs\n"
          "                  clg_run, first calls baked and unbaked) and "
          "shard\n"
          "                  (clg_run_sharded over 2 devices vs clg_run) "
          "select the extras;\n"
          "                  without --only everything runs\n"
          "  --reps N        exactly N samples per figure (default: "
          "adaptive)\n"
          "  --budget S      seconds of samples per measured set (default "
          "0.8; quick 0.15)\n"
          "  --sweep-mib N   output size of each sweep workload (default 64; "
          "quick 8)\n"
          "  --list          list the workloads and exit\n"
          "  --cold-start-child  internal: one cold-start measurement "
          "(run by coldstart)\n"
          "shard needs two devices on the platform of the bench's device; "
          "on POCL, run\n"
          "with POCL_DEVICES=\"pthread pthread\" for two CPU devices (with "
          "one, the shard\n"
          "table says so and is skipped).\n"
          "Progress goes to stderr. Exit: 0 ok (n/a rows included), 1 a "
          "wrong result,\n"
          "2 usage, 3 device or setup error.\n");
}

static int parse_int(const char *s, long lo, long hi, long *out) {
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (!s[0] || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  double t_main = bench_now();
  settings cfg = {0};
  int list = 0, child = 0;
  double budget = -1;
  long sweep_mib = -1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    long n = 0;
    if (!strcmp(a, "--json")) {
      cfg.json = 1;
    } else if (!strcmp(a, "--quick")) {
      cfg.quick = 1;
    } else if (!strcmp(a, "--list")) {
      list = 1;
    } else if (!strcmp(a, "--cold-start-child")) {
      child = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--device") && v) {
      cfg.device = v;
      ++i;
    } else if (!strcmp(a, "--only") && v) {
      cfg.only = v;
      ++i;
    } else if (!strcmp(a, "--reps") && v && parse_int(v, 1, 100000, &n) == 0) {
      cfg.reps = (int)n;
      ++i;
    } else if (!strcmp(a, "--sweep-mib") && v &&
               parse_int(v, 1, 4096, &n) == 0) {
      sweep_mib = n;
      ++i;
    } else if (!strcmp(a, "--budget") && v) {
      char *end = NULL;
      budget = strtod(v, &end);
      if (*end || !(budget > 0 && budget < 1000)) {
        fprintf(stderr, "clgather-bench: bad --budget '%s'\n", v);
        return 2;
      }
      ++i;
    } else {
      fprintf(stderr, "clgather-bench: bad argument '%s'%s\n", a,
              a[0] == '-' ? " (unknown option, or a missing or bad value)"
                          : "");
      usage(stderr);
      return 2;
    }
  }
  cfg.budget = budget > 0 ? budget : cfg.quick ? 0.15 : 0.8;
  cfg.min_reps = cfg.quick ? 3 : 5;
  cfg.max_reps = cfg.quick ? 50 : 200;
  cfg.warmup = cfg.quick ? 1 : 2;
  cfg.sweep_bytes = (size_t)(sweep_mib > 0 ? sweep_mib
                             : cfg.quick   ? 8
                                           : 64) *
                    1024 * 1024;
  define_workloads(&cfg);
  if (child)
    return cold_start_child(&cfg, t_main);

  int idx[MAX_WORKLOADS], n = 0;
  for (int i = 0; i < g_nwork; ++i)
    if (selected(&cfg, &g_work[i]))
      idx[n++] = i;
  if (list) {
    for (int i = 0; i < g_nwork; ++i) {
      char d[256];
      describe(d, sizeof d, &g_work[i].op);
      printf("%-8s %-14s %s\n", g_work[i].name, g_work[i].label, d);
    }
    printf("%-8s %-14s %s\n", "pipeline", "(extra)",
           "W1, W2 device-resident: validation paths, checked end to end");
    printf("%-8s %-14s %s\n", "coldstart", "(extra)",
           "new process -> first W1 result, disk cache cold/warm/off");
    printf("%-8s %-14s %s\n", "plans", "(extra)",
           "W1, W2 device-resident: clg_plan_enqueue vs clg_run overhead, "
           "first call unbaked/baked");
    printf("%-8s %-14s %s\n", "shard", "(extra)",
           "W1, W2 device-resident: clg_run_sharded over 2 devices vs "
           "clg_run (POCL_DEVICES=\"pthread pthread\")");
    return 0;
  }
  extras *x = calloc(1, sizeof *x);
  if (!x) {
    fprintf(stderr, "clgather-bench: out of host memory\n");
    return 3;
  }
  x->pipeline = only_has(&cfg, "pipeline");
  x->coldstart = only_has(&cfg, "coldstart");
  x->plans = only_has(&cfg, "plans");
  x->shard = only_has(&cfg, "shard");
  if (n == 0 && !x->pipeline && !x->coldstart && !x->plans && !x->shard) {
    fprintf(stderr,
            "clgather-bench: --only '%s' selects no workload (see "
            "--list)\n",
            cfg.only);
    return 2;
  }

  double t_begin = bench_now();
  env E = {NULL, {0}, &cfg};
  clg_status st = clg_context_create_default(cfg.device, &E.ctx);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, "clgather-bench: %s: %s\n", clg_status_string(st),
            clg_last_error());
    free(x);
    return 3;
  }
  char err[4096];
  if (bench_cl_init(&E.cl, clg_context_cl_context(E.ctx),
                    clg_context_device(E.ctx), err, sizeof err) != 0) {
    fprintf(stderr, "clgather-bench: %s\n", err);
    bench_cl_release(&E.cl);
    clg_context_destroy(E.ctx);
    free(x);
    return 3;
  }
  run_info info;
  memset(&info, 0, sizeof info);
  clGetDeviceInfo(E.cl.dev, CL_DEVICE_NAME, sizeof info.device - 1, info.device,
                  NULL);
  clGetDeviceInfo(E.cl.dev, CL_DEVICE_VERSION, sizeof info.version - 1,
                  info.version, NULL);
  clGetDeviceInfo(E.cl.dev, CL_DRIVER_VERSION, sizeof info.driver - 1,
                  info.driver, NULL);
  info.cus = E.cl.compute_units;
  fprintf(stderr,
          "clgather-bench: %s, %u compute units; %d workloads%s%s%s%s\n",
          info.device, (unsigned)info.cus, n, x->pipeline ? " + pipeline" : "",
          x->coldstart ? " + coldstart" : "", x->plans ? " + plans" : "",
          x->shard ? " + shard" : "");

  /* (e) the launch floor. */
  {
    int reps = cfg.reps ? cfg.reps : cfg.quick ? 50 : 200;
    double *ev = malloc((size_t)reps * sizeof *ev);
    double *wall = malloc((size_t)reps * sizeof *wall);
    int ok = ev && wall;
    for (int k = 0; ok && k < 3; ++k) /* warm-up */
      ok = bench_cl_empty(&E.cl, &ev[0], &wall[0]) == 0;
    for (int k = 0; ok && k < reps; ++k)
      ok = bench_cl_empty(&E.cl, &ev[k], &wall[k]) == 0;
    if (!ok) {
      fprintf(stderr, "clgather-bench: the empty kernel failed\n");
      free(ev);
      free(wall);
      bench_cl_release(&E.cl);
      clg_context_destroy(E.ctx);
      free(x);
      return 3;
    }
    qsort(ev, (size_t)reps, sizeof *ev, cmp_double);
    qsort(wall, (size_t)reps, sizeof *wall, cmp_double);
    info.floor_event = ev[reps / 2];
    info.floor_wall = wall[reps / 2];
    info.floor_reps = reps;
    free(ev);
    free(wall);
  }

  result *res = calloc((size_t)n + 1, sizeof *res);
  if (!res) {
    fprintf(stderr, "clgather-bench: out of host memory\n");
    free(x);
    return 3;
  }
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const workload *w = &g_work[idx[i]];
    fprintf(stderr, "[%2d/%d] %-8s %-14s ", i + 1, n, w->name, w->label);
    fflush(stderr);
    run_workload(&E, w, &res[i]);
    const result *r = &res[i];
    if (r->status == ST_WRONG)
      wrong = 1;
    progress_end(r->status, r->seconds, t_begin, r->message);
  }
  if (x->pipeline) {
    const char *names[2] = {"W1", "W2"};
    for (int i = 0; i < 2; ++i) {
      int wi = find_work(names[i]);
      if (wi < 0)
        continue;
      pipe_result *r = &x->pipe[x->npipe++];
      fprintf(stderr, "[pipeline] %-8s ", names[i]);
      fflush(stderr);
      run_pipeline(&E, wi, r);
      if (r->status == ST_WRONG)
        wrong = 1;
      progress_end(r->status, r->seconds, t_begin, r->message);
    }
  }
  if (x->coldstart) {
    fprintf(stderr, "[coldstart] W1 ");
    fflush(stderr);
    run_cold_start(&cfg, argv[0], &x->cold);
    if (x->cold.status == ST_WRONG)
      wrong = 1;
    fputc(' ', stderr);
    progress_end(x->cold.status, x->cold.seconds, t_begin, x->cold.message);
  }
  if (x->plans) {
    const char *names[2] = {"W1", "W2"};
    for (int i = 0; i < 2; ++i) {
      int wi = find_work(names[i]);
      if (wi < 0)
        continue;
      plans_result *r = &x->plan[x->nplan++];
      fprintf(stderr, "[plans] %-8s ", names[i]);
      fflush(stderr);
      run_plans(&E, wi, r);
      if (r->status == ST_WRONG)
        wrong = 1;
      progress_end(r->status, r->seconds, t_begin, r->message);
    }
  }
  if (x->shard) {
    shard_env S;
    shard_env_init(&E, &S);
    x->shard_status = S.status;
    snprintf(x->shard_message, sizeof x->shard_message, "%s", S.message);
    x->shard_platform_devices = S.platform_devices;
    memcpy(x->shard_names, S.names, sizeof x->shard_names);
    if (S.status != ST_OK)
      fprintf(stderr, "[shard] %s%s\n",
              S.status == ST_NA ? "skipped: " : "error: ", S.message);
    const char *names[2] = {"W1", "W2"};
    for (int i = 0; S.status == ST_OK && i < 2; ++i) {
      int wi = find_work(names[i]);
      if (wi < 0)
        continue;
      shard_result *r = &x->shard_rows[x->nshard++];
      fprintf(stderr, "[shard] %-8s ", names[i]);
      fflush(stderr);
      run_shard(&E, &S, wi, r);
      if (r->status == ST_WRONG)
        wrong = 1;
      progress_end(r->status, r->seconds, t_begin, r->message);
    }
    shard_env_release(&S);
  }
  info.total_seconds = bench_now() - t_begin;
  if (cfg.json)
    print_json(&info, &cfg, idx, res, n, x);
  else
    print_table(&info, &cfg, idx, res, n, x);
  free(res);
  free(x);
  bench_cl_release(&E.cl);
  clg_context_destroy(E.ctx);
  return wrong ? 1 : 0;
}
