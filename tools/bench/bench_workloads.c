/* clgather-bench: the workload table (the performance issue's standard
 * workloads, the rest of the family, the slice-size sweep), --only
 * selection, and the names and descriptions the reports print. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

workload g_work[MAX_WORKLOADS];
int g_nwork;

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

void define_workloads(const settings *cfg) {
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
int selected(const settings *cfg, const workload *w) {
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
int only_has(const settings *cfg, const char *word) {
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

const char *op_name(clg_op op) {
  return op == CLG_OP_GATHER            ? "Gather"
         : op == CLG_OP_GATHER_ELEMENTS ? "GatherElements"
                                        : "GatherND";
}

const char *mode_name(clg_index_mode m) {
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
void describe(char *buf, size_t len, const bench_op *op) {
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

int find_work(const char *name) {
  for (int i = 0; i < g_nwork; ++i)
    if (!strcmp(g_work[i].name, name))
      return i;
  return -1;
}

const char *choice_name(clg_choice c) {
  return c == CLG_CHOICE_MEASURED  ? "measured"
         : c == CLG_CHOICE_FORCED  ? "forced"
         : c == CLG_CHOICE_DEFAULT ? "default"
                                   : "none";
}
