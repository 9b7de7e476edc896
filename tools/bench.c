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
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------- settings */

typedef struct settings {
  const char *device; /* --device SPEC, NULL: library default */
  int json;
  int quick;
  int reps;        /* --reps N: fixed sample count; 0: adaptive */
  const char *only; /* --only LIST */
  double budget;   /* seconds of samples per measured set (adaptive) */
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
  double copy_ref;        /* min of the two copy medians */
  const char *copy_method; /* which one */
  double seconds;          /* wall time spent on the workload */
  double reference_s;      /* one run of the plain-C reference (info) */
} result;

#define MAX_WORKLOADS 96

static workload g_work[MAX_WORKLOADS];
static int g_nwork;

static workload *add_work(const char *name, const char *label, int group,
                          clg_op opk, int64_t axis, int64_t batch_dims,
                          clg_index_mode mode, clg_dtype dtype, int32_t drank,
                          const int64_t *dshape, clg_dtype itype,
                          int32_t irank, const int64_t *ishape) {
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

#define SHAPE(...) (const int64_t[]){__VA_ARGS__}
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
  GATHER("W1", "embedding", GROUP_STANDARD, 0, F32, (50000, 768), I64,
         (4096));
  GATHER("W1-i32", "embedding", GROUP_STANDARD, 0, F32, (50000, 768), I32,
         (4096));
  GATHER("W2", "rows16", GROUP_STANDARD, 0, F32, (1000000, 16), I64,
         (1000000));
  GATHER("W2-i32", "rows16", GROUP_STANDARD, 0, F32, (1000000, 16), I32,
         (1000000));
  GATHER("W3", "lastaxis", GROUP_STANDARD, 1, F32, (4096, 4096), I64, (1024));
  GATHER("W4", "midaxis", GROUP_STANDARD, 1, F16, (64, 1024, 256), I64,
         (512));
  GATHER("W5", "tiny", GROUP_STANDARD, 0, F32, (100, 64), I64, (10));
  GATHER("W6", "bigrows", GROUP_STANDARD, 0, F32, (20000, 4096), I64,
         (8192));

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
  add_work("ND", "nd m2", GROUP_FAMILY, CLG_OP_GATHER_ND, 0, 0,
           CLG_MODE_RAISE, F32, 3, SHAPE(1000, 1000, 64), I64, 2,
           SHAPE(100000, 2));
  add_work("ND-b1", "nd b1 m1", GROUP_FAMILY, CLG_OP_GATHER_ND, 0, 1,
           CLG_MODE_RAISE, F32, 3, SHAPE(64, 1000, 256), I64, 3,
           SHAPE(64, 128, 1));

  /* Slice-size sweep: float32 data [s, slice/4], axis 0, at a fixed output
   * size; data as large as the output. int64, then int32 indices. */
  for (int it = 0; it < 2; ++it)
    for (uint64_t slice = 4; slice <= 65536; slice *= 2) {
      if (cfg->quick && it == 0 && slice != 4 && slice != 16 &&
          slice != 64 && slice != 256 && slice != 1024 && slice != 4096 &&
          slice != 16384 && slice != 65536)
        continue;
      if (cfg->quick && it == 1 && slice != 4 && slice != 64 &&
          slice != 4096)
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
  int n = snprintf(buf, len, "%s %s%s %s%s", op_name(op->params.op), dt, ds,
                   it, is);
  if (n < 0 || (size_t)n >= len)
    return;
  if (op->params.op != CLG_OP_GATHER_ND)
    n += snprintf(buf + n, len - (size_t)n, " axis %" PRId64,
                  op->params.axis);
  if (op->params.batch_dims && (size_t)n < len)
    n += snprintf(buf + n, len - (size_t)n, " batch_dims %" PRId64,
                  op->params.batch_dims);
  if (op->params.mode != CLG_MODE_RAISE && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, " mode %s",
             mode_name(op->params.mode));
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
    reps = r > cfg->max_reps ? cfg->max_reps
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
      if (fns[i](states[i], &samples[(size_t)i * (size_t)reps + (size_t)k],
                 msg, msglen) != 0) {
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
static int sample_call(void *state, double *seconds, char *msg,
                       size_t msglen) {
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
  clg_status st = clg_validate(NULL, s->params, s->data, s->indices, NULL, 0,
                               NULL);
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

static int sample_copy(void *state, double *seconds, char *msg,
                       size_t msglen) {
  copy_state *s = state;
  if (bench_cl_copy(s->cl, s->method, s->src, s->dst, s->bytes, seconds) !=
      0) {
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
    snprintf(msg, msglen, "out of host memory for %" PRIu64 " + %" PRIu64
             " + 2 x %" PRIu64 " bytes",
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
  cl_int e = clEnqueueFillBuffer(E->cl.queue, omem, &poison, 1, 0,
                                 r->out_bytes, 0, NULL, NULL);
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
  r->copybuf = ks[1];
  r->copykern = ks[2];
  r->copy_ref = ks[1].median <= ks[2].median ? ks[1].median : ks[2].median;
  r->copy_method = ks[1].median <= ks[2].median ? "clEnqueueCopyBuffer"
                                                : "copy kernel";
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

static void print_table(const run_info *info, const settings *cfg,
                        const int *idx, const result *res, int n) {
  printf("clgather-bench %s on %s (%s; driver %s), %u compute units\n",
         clg_version_string(), info->device, info->version, info->driver,
         (unsigned)info->cus);
  printf("settings: %s, %s reps per figure, budget %.2f s per set, sweep "
         "output %zu MiB\n",
         cfg->quick ? "quick" : "default",
         cfg->reps ? "fixed" : "adaptive", cfg->budget,
         cfg->sweep_bytes / (1024 * 1024));
  printf("launch floor (empty kernel, median of %d): %.1f us event, %.1f us "
         "wall (enqueue to completion)\n\n",
         info->floor_reps, info->floor_event * 1e6, info->floor_wall * 1e6);
  printf("%-8s %-14s %10s %9s %9s %9s %9s %9s %7s %8s\n", "workload", "",
         "out", "kern ms", "kern GB/s", "copy GB/s", "x copy-ref", "call ms",
         "valid", "bounds");
  printf("%-8s %-14s %10s %9s %9s %9s %9s %9s %7s %8s\n", "", "", "bytes",
         "(a)", "", "(d)", "", "(b)", "/call", "GB/s (c)");
  for (int i = 0; i < n; ++i) {
    const workload *w = &g_work[idx[i]];
    const result *r = &res[i];
    char ob[24];
    human_bytes(ob, sizeof ob, (double)r->out_bytes);
    if (r->status != ST_OK) {
      printf("%-8s %-14s %10s %s%s\n", w->name, w->label, ob,
             r->status == ST_NA ? "n/a: " : r->status == ST_WRONG ? "" :
             "error: ", r->message);
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
    printf("%-8s %-14s %10s %9s %9s %9s %9.2f %9s %6.1f%% %8s\n", w->name,
           w->label, ob, km, kg, cg, r->copy_ref / r->kernel.median, cm,
           100.0 * r->validate.median / r->call.median, bg);
  }
  printf("\n(a) gather kernel on cl_mem tensors, event START..END; "
         "(d) copy-ref = faster of clEnqueueCopyBuffer and a copy kernel of "
         "the output's bytes;\nx copy-ref = copy-ref time / kernel time "
         "(1.0 = as fast as a copy); (b) clg_run on host memory, wall clock; "
         "valid/call = (c) clg_validate(NULL) / (b);\nbounds GB/s = index "
         "bytes / (c) ('-': modes wrap/clip read no index values). Medians.\n"
         "\nworkloads:\n");
  for (int i = 0; i < n; ++i) {
    char d[256];
    describe(d, sizeof d, &g_work[idx[i]].op);
    printf("  %-8s %s\n", g_work[idx[i]].name, d);
  }
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

static void print_json(const run_info *info, const settings *cfg,
                       const int *idx, const result *res, int n) {
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
  printf(",\n \"total_seconds\": %.3f,\n \"workloads\": [", info->total_seconds);
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
    printf(", \"status\": \"%s\", \"message\": ",
           r->status == ST_OK       ? "ok"
           : r->status == ST_NA     ? "n/a"
           : r->status == ST_WRONG ? "wrong"
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
      printf(", \"copy_ref_s\": %.6g, \"copy_ref_method\": \"%s\"",
             r->copy_ref, r->copy_method);
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
  printf("\n ]}\n");
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
          "                  prefix; standard, sweep, family select groups\n"
          "  --reps N        exactly N samples per figure (default: "
          "adaptive)\n"
          "  --budget S      seconds of samples per measured set (default "
          "0.8; quick 0.15)\n"
          "  --sweep-mib N   output size of each sweep workload (default 64; "
          "quick 8)\n"
          "  --list          list the workloads and exit\n"
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
  settings cfg = {0};
  int list = 0;
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
  cfg.sweep_bytes =
      (size_t)(sweep_mib > 0 ? sweep_mib : cfg.quick ? 8 : 64) * 1024 * 1024;
  define_workloads(&cfg);

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
    return 0;
  }
  if (n == 0) {
    fprintf(stderr, "clgather-bench: --only '%s' selects no workload (see "
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
    return 3;
  }
  char err[4096];
  if (bench_cl_init(&E.cl, clg_context_cl_context(E.ctx),
                    clg_context_device(E.ctx), err, sizeof err) != 0) {
    fprintf(stderr, "clgather-bench: %s\n", err);
    bench_cl_release(&E.cl);
    clg_context_destroy(E.ctx);
    return 3;
  }
  run_info info;
  memset(&info, 0, sizeof info);
  clGetDeviceInfo(E.cl.dev, CL_DEVICE_NAME, sizeof info.device - 1,
                  info.device, NULL);
  clGetDeviceInfo(E.cl.dev, CL_DEVICE_VERSION, sizeof info.version - 1,
                  info.version, NULL);
  clGetDeviceInfo(E.cl.dev, CL_DRIVER_VERSION, sizeof info.driver - 1,
                  info.driver, NULL);
  info.cus = E.cl.compute_units;
  fprintf(stderr, "clgather-bench: %s, %u compute units; %d workloads\n",
          info.device, (unsigned)info.cus, n);

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

  result *res = calloc((size_t)n, sizeof *res);
  if (!res) {
    fprintf(stderr, "clgather-bench: out of host memory\n");
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
    fprintf(stderr, "%-5s %5.1f s (total %5.1f s)%s%s\n",
            r->status == ST_OK      ? "ok"
            : r->status == ST_NA    ? "n/a"
            : r->status == ST_WRONG ? "WRONG"
                                    : "error",
            r->seconds, bench_now() - t_begin, r->status ? ": " : "",
            r->status ? r->message : "");
  }
  info.total_seconds = bench_now() - t_begin;
  if (cfg.json)
    print_json(&info, &cfg, idx, res, n);
  else
    print_table(&info, &cfg, idx, res, n);
  free(res);
  bench_cl_release(&E.cl);
  clg_context_destroy(E.ctx);
  return wrong ? 1 : 0;
}
