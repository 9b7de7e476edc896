/* ops/scatter.c: what the scatters (scatter_elements.c, scatter_nd.c) share:
 * targets, duplicates, the order updates apply in, and the kernel calls.
 * Not installed. */
#ifndef CLGATHER_HOST_OPS_SCATTER_H
#define CLGATHER_HOST_OPS_SCATTER_H

#include "ops/op.h"

#include <string.h>

/* How the device's index pass (kernels/scatter_index.cl) computes targets
 * from index values. */
typedef struct clg_scatter_keys {
  bool elements;          /* ScatterElements; else ScatterND */
  uint32_t rank;          /* ND: the tuple length m; SE: collapsed rank */
  uint64_t dims[CLG_MAX_RANK];    /* ND: data.shape[:m]; SE: indices' shape,
                                   * adjacent dimensions merged */
  uint64_t strides[CLG_MAX_RANK]; /* SE: data's strides (elements) */
  uint32_t axis;                  /* SE: the axis among the merged dims */
  uint64_t abound;                /* SE: data.shape[axis] */
} clg_scatter_keys;

/* What makes one scatter operator: its geometry and the targets of its
 * entries (an entry is one index of ScatterElements, one index tuple of
 * ScatterND; a target is an output element, or a slice of `inner`
 * elements). */
typedef struct clg_scatter_kind {
  /* Entries, elements per target and the number of possible targets. */
  void (*geometry)(const clg_params *norm, const clg_tensor *data,
                   const clg_tensor *indices, size_t *entries,
                   uint64_t *inner, uint64_t *targets);
  /* t[e] = the target of entry e, for every entry; values in host memory
   * (index_size 4 or 8), already checked against the bounds. */
  void (*targets)(const clg_params *norm, const clg_tensor *data,
                  const clg_tensor *indices, const void *values,
                  size_t index_size, int64_t *t);
  /* CLG_ERROR_DUPLICATE_INDEX for entries `first` < `later` that share
   * `target`. */
  clg_status (*report_duplicate)(const clg_params *norm,
                                 const clg_tensor *data,
                                 const clg_tensor *indices, size_t first,
                                 size_t later, int64_t target);
  /* The same targets as `targets`, described for the device. */
  void (*keys)(const clg_params *norm, const clg_tensor *data,
               const clg_tensor *indices, clg_scatter_keys *k);
} clg_scatter_kind;

/* A scatter's schedule (index_schedule() or device_schedule()), prepare()'s
 * input. */
typedef struct clg_scatter_state {
  size_t entries;
  uint64_t inner;
  int64_t *targets; /* entries: direct (no target repeats) */
  size_t segments;  /* > 0: order / seg_start / seg_target instead */
  int64_t *order, *seg_start, *seg_target;
  cl_mem mem[4]; /* their device copies and the permuted updates, made by
                  * prepare() */
  /* The device's index pass instead (scatter_device.c): no host array. */
  bool device;
  uint64_t ntargets;
  size_t index_size;
  clg_scatter_keys keys;
  cl_mem dmem[6]; /* keys, entries, their sorted copies, histogram, bitmap */
  size_t dsize[6]; /* their sizes: scratch buffers of ctx (enqueue.h), */
  clg_context *ctx; /* given back when the state is released, kept for */
  bool done;        /* a later call once the call's commands are all */
  cl_event busy;    /* enqueued (`done`), after `busy`, the last (NULL:
                     * none runs any more; retained) */
  int sorted;     /* which pair of dmem holds the sorted pairs: 0 or 2;
                   * -1: not sorted (direct) */
  bool rows;      /* ScatterElements, innermost axis of a rank-2 view, on a
                   * CPU, duplicates an error: the claim and the scatter
                   * compute targets from the indices (no dmem[0] unless a
                   * repeat was found), the claim checks their bounds */
  size_t chunk, chunks; /* the sort's: pairs per work-item, work-items */
  unsigned buckets; /* > 0: the sorted pairs are in this many buckets of
                     * targets, each in entry order (one radix pass),
                     * dmem[4] their starts (the counts summed, `chunks`
                     * a bucket) */
} clg_scatter_state;

/* The device_schedule() of a scatter of `kind` (cl_mem indices, a cl_mem
 * output): targets, repeats and order left to the device, after the
 * validation kernel. *state NULL (and success): the device cannot take it
 * (2^32 - 1 entries or more, more than 2^32 targets); the host pass does. */
clg_status clg__scatter_device_schedule(
    clg_context *ctx, const clg_scatter_kind *kind, const clg_params *norm,
    const clg_scatter_params *sc, const clg_tensor *data,
    const clg_tensor *indices, void **state);
/* The checks_values() hook of the scatters (ops/op.h): the device schedule's
 * row claim checks every index's bounds (state->rows). */
bool clg__scatter_checks_values(const void *state);
/* Entries per work-item of a per-entry kernel on a CPU after the device's
 * index pass: runs of at least CLG_SCATTER_INDEX_PER_CPU elements (entries of
 * `inner` elements), at most CLG_SCATTER_INDEX_RUNS_CPU runs
 * (scatter_device.c). */
uint64_t clg__scatter_run(uint64_t entries, uint64_t inner);

/* The device's index pass as kernel calls appended to *calls (each takes
 * the verdict, whose scatter words start at 64-bit word l->verdict_extra,
 * last). */
clg_status clg__scatter_device_calls(clg_context *ctx, clg_scatter_state *s,
                                     const clg_launch *l,
                                     clg_kernel_calls *calls);
/* The scatter after the device's index pass, appended to *calls: each
 * entry to its target (targets in entry order, none repeating), each run
 * of the sorted pairs to its target in order, or (a CPU's partition) each
 * bucket's pairs in order. `opts`: the scatter program's build options;
 * `loop`: CPU kernels; offsets and `inner` in units of `unit` bytes, `per`
 * units a LOAD, `vec` LOADs a vector (scatter.c, clg__scatter_prepare). */
clg_status clg__scatter_device_apply(clg_context *ctx,
                                     const clg_scatter_state *s,
                                     const clg_launch *l, const char *opts,
                                     bool loop, size_t unit, size_t per,
                                     size_t units_per_elem, size_t vec,
                                     clg_kernel_calls *calls);
/* Work-items per work-group of the scatter kernels along the entries (or
 * segments), and `n` up to whole work-groups of them. */
#define CLG_SCATTER_LOCAL 64
static inline size_t clg__scatter_round_up(uint64_t n) {
  return (size_t)((n + CLG_SCATTER_LOCAL - 1) / CLG_SCATTER_LOCAL *
                  CLG_SCATTER_LOCAL);
}

/* The index_schedule() of a scatter of `kind`: targets, then (reduction none,
 * duplicates an error) the first repeated target as an error, or the
 * segments the kernel applies in order when targets repeat. */
clg_status clg__scatter_schedule(const clg_scatter_kind *kind,
                                 const clg_params *norm,
                                 const clg_scatter_params *sc,
                                 const clg_tensor *data,
                                 const clg_tensor *indices, const void *values,
                                 size_t count, void **state);
void clg__scatter_release(void *state);
/* The op's state_done(): the device schedule's scratch buffers go back to the
 * context's keeping at release, to be reused once `last` has ended. */
void clg__scatter_done(void *state, cl_event last);

/* The prepare() of every scatter: a copy of data into the output unless in
 * place, then the updates. */
clg_status clg__scatter_prepare(clg_context *ctx, const clg_params *norm,
                                const clg_launch *l, bool gated,
                                clg_kernel_calls *calls);

/* The slices() hook of every scatter (op.h): entries and their targets as
 * `kind` computes them. */
void clg__scatter_slices(const clg_scatter_kind *kind, const clg_params *norm,
                         const clg_tensor *data, const clg_tensor *indices,
                         const void *values, size_t index_size,
                         size_t *entries, uint64_t *inner, int64_t *pos);

/* The output may be data's own storage. */
bool clg__scatter_may_alias(int input);

/* Index value i of an int32 (size 4) or int64 (size 8) array at any byte
 * address: inlined in the targets' loops. */
static inline int64_t clg__scatter_index(const void *values, size_t size,
                                         size_t i) {
  return clg__index_value(values, size, i);
}

/* The unravelled position of flat `pos` in `shape` (rank r), formatted
 * "[i, j, ...]" into buf. */
void clg__format_position(char *buf, size_t cap, size_t pos, int32_t r,
                          const int64_t *shape);

#endif /* CLGATHER_HOST_OPS_SCATTER_H */
