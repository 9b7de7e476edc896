/* Online choice of kernel variants: where a shape admits several kernels
 * whose speed depends on the device (a CPU's caches and prefetchers, a
 * GPU's memory system), the second call of each shape class on a context
 * (by default; the first with CLG_TUNE_FIRST_CALL) times every candidate
 * on the call's own tensors and keeps the fastest, in the context
 * and in the on-disk program cache beside the binaries (CLBlast keeps tuned
 * parameters in a database; this one is filled on the device itself). */
#define _POSIX_C_SOURCE 200809L

#include "device/tune.h"
#include "device/cache.h"
#include "device/quirks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const clg_variant_names[CLG_VARIANT_COUNT] = {
    "rows", "small", "item", "item_pf", "plane", "block", "item_nt"};

const char *clg__variant_name(int variant) {
  return variant >= 0 && variant < CLG_VARIANT_COUNT
             ? clg_variant_names[variant]
             : "none";
}

int clg__variant_parse(const char *name) {
  for (int v = 0; name && v < CLG_VARIANT_COUNT; ++v)
    if (strcmp(name, clg_variant_names[v]) == 0)
      return v;
  return -1;
}

/* Rounds of timed runs (one run of each candidate a round; the best of a
 * candidate's counts, which filters out a neighbour's burst on a shared
 * machine); the wall time after which no further round starts is the
 * context's CLG_OPTION_TUNE_BUDGET_US (CLG_TUNE_BUDGET_US_DEFAULT). The
 * call of a new shape class that times therefore costs one warm-up run and
 * one to CLG_TUNE_ROUNDS timed runs of each candidate, each after a cache
 * eviction. */
#define CLG_TUNE_ROUNDS 5
#define CLG_TUNE_KEY_MAX 160

typedef struct clg_tune_entry {
  struct clg_tune_entry *next;
  char key[CLG_TUNE_KEY_MAX];
  int variant;
  /* Timed on this device (here or by an earlier process: the disk cache);
   * else the default of a call that could not time (too small, gated),
   * kept so that such calls look at the disk cache once, not every time,
   * and replaced by the first call that times. An entry also tells a
   * call under CLG_TUNE_SECOND_CALL that it is not the class's first on
   * the context. */
  bool measured;
} clg_tune_entry;

static bool clg_is_candidate(int v, const int *cands, int count) {
  for (int i = 0; i < count; ++i)
    if (cands[i] == v)
      return true;
  return false;
}

/* Under ctx->lock: the disk records' name space. A variant's speed
 * depends on whether the programs are built with compiler hints (its
 * prefetches and streaming stores are no-ops without), so the choices made
 * with and without are kept apart; v3: v2 records were not, and this
 * project's POCL machine had measured them all without hints. */
static const char *clg_tune_space(clg_context *ctx) {
  return clg__quirk_options(ctx)[0] ? "clgather-tune-v3"
                                    : "clgather-tune-v3 no-hints";
}

/* Under ctx->lock: the disk record's key of a class: the records' name
 * space and the kernels' digest, then the class. A choice measured on
 * other kernels is not kept: with the version unchanged, a record that
 * had timed `block` faster than `item` before item's store lost its
 * select kept the 1-D float16 gather on block (0.45-0.47 of the best
 * peer, item forced 0.55). */
static bool clg_tune_key(clg_context *ctx, const char *key, clg_hash128 *h) {
  char space[128];
  snprintf(space, sizeof space, "%s %s", clg_tune_space(ctx),
           clg_kernels_digest);
  return clg__cache_key(ctx, space, key, h);
}

/* Under ctx->lock: the remembered choice for key (*measured: timed), or
 * -1 when the context has none and the disk cache none either. *seen: a
 * call of the class ran on the context before. */
static int clg_tune_lookup(clg_context *ctx, const char *key, const int *cands,
                           int count, bool *measured, bool *seen) {
  *measured = false;
  *seen = false;
  for (clg_tune_entry *e = ctx->tuned; e; e = e->next)
    if (strcmp(e->key, key) == 0) {
      *seen = true;
      /* A class spans shapes whose candidates may differ (a power of two
       * of rows): another call's choice counts only among this one's. */
      if (!clg_is_candidate(e->variant, cands, count))
        return -1;
      *measured = e->measured;
      return e->variant;
    }
  clg_hash128 h;
  char rec[32];
  if (clg_tune_key(ctx, key, &h) &&
      clg__cache_get_record(ctx, &h, ".tune", rec, sizeof rec)) {
    int v = clg__variant_parse(rec);
    if (v >= 0 && clg_is_candidate(v, cands, count)) {
      *measured = true;
      return v;
    }
  }
  return -1;
}

/* Under ctx->lock: remember key -> variant (in memory; on disk when
 * `store`, which only a measured choice is). */
static void clg_tune_remember(clg_context *ctx, const char *key, int variant,
                              bool measured, bool store) {
  clg_tune_entry *e = ctx->tuned;
  while (e && strcmp(e->key, key) != 0)
    e = e->next;
  /* A memo: without memory the choice is only forgotten (the next call
   * looks again), nothing the caller sees changes; so not an allocation
   * the fault tests fail (CLG_CALLOC), which expect each to fail the call. */
  if (!e && (e = calloc(1, sizeof *e)) != NULL) {
    snprintf(e->key, sizeof e->key, "%s", key);
    e->next = ctx->tuned;
    ctx->tuned = e;
  }
  if (e) {
    e->variant = variant;
    e->measured = measured;
  }
  /* Stored whether or not the class had an entry (one a call that timed
   * nothing left, the class's first). */
  clg_hash128 h;
  if (store && clg_tune_key(ctx, key, &h))
    (void)clg__cache_put_record(ctx, &h, ".tune", clg__variant_name(variant));
}

/* The tuning buffer: twice the device's cache (at most
 * CLG_TUNE_SCRATCH_MAX and a quarter of the largest buffer), created by the
 * first of the context's tunings under way and released by the last. Timed
 * back to back on the same tensors, a kernel finds them in the cache where
 * a call in a program that does other work between calls (or the referee's
 * rounds) does not: non-temporal stores lost every such trial on a CPU
 * (12-16 MiB outputs, 32 MiB L3) and won by 17-39% in interleaved rounds.
 * Without the buffer (no cache size, allocation refused) trials run warm. */
#define CLG_TUNE_SCRATCH_MAX ((size_t)256 << 20)
static void clg_tune_scratch_hold(clg_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  if (ctx->tune_users++ == 0 && !ctx->tune_scratch) {
    size_t bytes = (size_t)ctx->cache_bytes * 2;
    if (bytes > CLG_TUNE_SCRATCH_MAX)
      bytes = CLG_TUNE_SCRATCH_MAX;
    if (ctx->max_alloc && bytes > ctx->max_alloc / 4)
      bytes = (size_t)(ctx->max_alloc / 4);
    bytes &= ~(size_t)63;
    cl_int err = CL_SUCCESS;
    if (bytes > 0)
      ctx->tune_scratch = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE |
                                                          CL_MEM_HOST_NO_ACCESS,
                                         bytes, NULL, &err);
    ctx->tune_scratch_bytes = ctx->tune_scratch ? bytes : 0;
  }
  pthread_mutex_unlock(&ctx->lock);
}

static void clg_tune_scratch_drop(clg_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  if (--ctx->tune_users == 0 && ctx->tune_scratch) {
    clReleaseMemObject(ctx->tune_scratch);
    ctx->tune_scratch = NULL;
    ctx->tune_scratch_bytes = 0;
  }
  pthread_mutex_unlock(&ctx->lock);
}

/* Would clg__tune_pick() with a trial time these candidates now? (Its
 * tests, without remembering anything.) */
static bool clg_tune_would_time(clg_context *ctx, const char *key,
                                const int *cands, int count,
                                unsigned allowed) {
  int forced = ctx->forced_variant;
  if ((forced >= 0 && ((allowed >> forced) & 1u)) || count <= 1)
    return false;
  int mode = atomic_load(&ctx->tune_mode);
  if (mode == CLG_TUNE_OFF)
    return false;
  bool measured = false, seen = false;
  pthread_mutex_lock(&ctx->lock);
  int known = clg_tune_lookup(ctx, key, cands, count, &measured, &seen);
  pthread_mutex_unlock(&ctx->lock);
  if (known >= 0 && measured)
    return false;
  return measured || seen || mode != CLG_TUNE_SECOND_CALL;
}

int clg__tune_pick_gated(clg_context *ctx, const char *key, const int *cands,
                         int count, unsigned allowed, clg_trial_fn trial,
                         void *arg, bool gated, bool *later, clg_choice *how) {
  *later = gated && trial &&
           clg_tune_would_time(ctx, key, cands, count, allowed);
  return clg__tune_pick(ctx, key, cands, count, allowed, gated ? NULL : trial,
                        arg, how);
}

int clg__tune_pick(clg_context *ctx, const char *key, const int *cands,
                   int count, unsigned allowed, clg_trial_fn trial, void *arg,
                   clg_choice *how) {
  int forced = ctx->forced_variant;
  if (forced >= 0 && ((allowed >> forced) & 1u)) {
    *how = CLG_CHOICE_FORCED;
    return forced;
  }
  *how = CLG_CHOICE_DEFAULT;
  if (count <= 1)
    return cands[0];
  /* The options as this call found them (clg_context_set_option). */
  int mode = atomic_load(&ctx->tune_mode);
  bool measured = false, seen = false,
       timing = trial && mode != CLG_TUNE_OFF;
  double budget_s = 1e-6 * (double)atomic_load(&ctx->tune_budget_us);
  pthread_mutex_lock(&ctx->lock);
  int known = clg_tune_lookup(ctx, key, cands, count, &measured, &seen);
  int fallback = known >= 0 ? known : cands[0];
  /* The class's first call on the context under CLG_TUNE_SECOND_CALL runs
   * its default untimed and leaves the timing to the next call. A cold
   * first call then builds and launches one kernel: timing Gather's three
   * candidates on a CPU had cost a one-call process (the CLI) 0.3 s of its
   * 1.5-1.8 s (Zen 3, POCL 3.1, empty caches): their first launches and
   * the evictions of the trials. */
  bool defer = timing && !measured && !seen && mode == CLG_TUNE_SECOND_CALL;
  /* Kept in memory: a choice from the disk, and the default of a call that
   * does not time (the next call of the class then finds it here). */
  if ((known >= 0 && measured) || !timing || defer)
    clg_tune_remember(ctx, key, fallback, measured, false);
  pthread_mutex_unlock(&ctx->lock);
  if (known >= 0 && measured) {
    *how = CLG_CHOICE_MEASURED;
    return known;
  }
  if (!timing || defer)
    return fallback;

  /* Each candidate once untimed (a driver may finish compiling a kernel
   * at its first launch: POCL builds the work-group function for the
   * NDRange's work-group size then), then rounds of one timed run of each
   * candidate, the best of each counting, until CLG_TUNE_ROUNDS rounds or
   * the budget (at least one round). Every timed run starts from
   * cold caches (clg__time_call), so the order leaves no candidate the
   * cache state of another (back to back without eviction, a
   * plane-streaming kernel after a random-read one ran 35% slower than
   * after itself), and a burst of a neighbour's on a shared machine falls
   * on one round of every candidate rather than on all runs of one. */
  double best[CLG_VARIANT_COUNT];
  clg_tune_scratch_hold(ctx);
  bool ok = true;
  for (int i = 0; i < count && ok; ++i) {
    double t = 0.0;
    ok = trial(arg, cands[i], &t) == CLG_SUCCESS;
    best[i] = -1.0;
  }
  double start = clg__now();
  for (int round = 0; round < CLG_TUNE_ROUNDS && ok; ++round) {
    for (int i = 0; i < count && ok; ++i) {
      double t = 0.0;
      ok = trial(arg, cands[i], &t) == CLG_SUCCESS;
      if (ok && (best[i] < 0.0 || t < best[i]))
        best[i] = t;
    }
    if (clg__now() - start >= budget_s)
      break;
  }
  if (!ok) {
    clg_tune_scratch_drop(ctx);
    return cands[0]; /* the real launch will report what is wrong */
  }
  clg_tune_scratch_drop(ctx);
  int pick = 0;
  for (int i = 1; i < count; ++i)
    if (best[i] < best[pick])
      pick = i;
  pthread_mutex_lock(&ctx->lock);
  clg_tune_remember(ctx, key, cands[pick], true, true);
  pthread_mutex_unlock(&ctx->lock);
  *how = CLG_CHOICE_MEASURED;
  return cands[pick];
}

void clg__tune_note(clg_context *ctx, int variant, clg_choice how) {
  pthread_mutex_lock(&ctx->lock);
  ctx->last_variant = clg__variant_name(variant);
  ctx->last_choice = how;
  pthread_mutex_unlock(&ctx->lock);
}

void clg__tune_release(clg_context *ctx) {
  clg_tune_entry *e = ctx->tuned;
  while (e) {
    clg_tune_entry *next = e->next;
    free(e);
    e = next;
  }
  ctx->tuned = NULL;
}

clg_status clg__time_call(clg_context *ctx, const clg_kernel_call *call,
                          cl_command_queue queue, cl_uint num_events,
                          const cl_event *wait_list, double *seconds) {
  /* Held by the tuning that runs this trial (clg__tune_pick): the buffer
   * stays while the trial runs. A failed fill only makes the trial warm. */
  pthread_mutex_lock(&ctx->lock);
  cl_mem scratch = ctx->tune_scratch;
  size_t bytes = ctx->tune_scratch_bytes;
  pthread_mutex_unlock(&ctx->lock);
  if (scratch) {
    const cl_uint pattern = 0;
    if (clEnqueueFillBuffer(queue, scratch, &pattern, sizeof pattern, 0, bytes,
                            0, NULL, NULL) == CL_SUCCESS)
      (void)clFinish(queue);
  }
  cl_event ev = NULL;
  double t0 = clg__now();
  clg_status st =
      clg__call_launch(call, queue, NULL, num_events, wait_list, &ev);
  if (st != CLG_SUCCESS)
    return st;
  cl_int err = clWaitForEvents(1, &ev);
  *seconds = clg__now() - t0;
  clReleaseEvent(ev);
  if (err != CL_SUCCESS)
    return clg__fail_cl(err, "clWaitForEvents", "timing a kernel variant");
  return CLG_SUCCESS;
}

unsigned clg__log2(uint64_t v) {
  unsigned b = 0;
  while (v > 1) {
    v >>= 1;
    ++b;
  }
  return b;
}

const char *clg_context_last_variant(clg_context *ctx, clg_choice *how) {
  if (how)
    *how = CLG_CHOICE_NONE;
  if (!ctx)
    return NULL;
  pthread_mutex_lock(&ctx->lock);
  const char *name = ctx->last_variant;
  if (how)
    *how = ctx->last_choice;
  pthread_mutex_unlock(&ctx->lock);
  return name;
}
