/* The scatters' index pass on the device, for cl_mem indices and a cl_mem
 * output: after the validation kernel has checked the bounds (or, the
 * CPU's row claim of ScatterElements, checking them itself), kernels
 * (kernels/scatter_index.cl) compute each entry's target, look for repeated
 * targets (reduction none, duplicates an error: a bitmap claimed with
 * atomics) and sort the (target, entry) pairs by target, stably, when
 * updates must apply in order (reductions, duplicates = last; on a CPU one
 * pass of the sort, into buckets of targets) or when a repeat needs its
 * message (the sort then runs only if one was found). No
 * index value crosses to the host, every kernel reads the verdict first,
 * and the scatter itself (clg__scatter_device_apply, at the end; scatter.c
 * builds its program) is gated on it: the output stays as it was when a
 * check fails, in place included. */
#include "ops/scatter.h"

#include <stdio.h>
#include <stdlib.h>

/* Pairs per sorting chunk (one work-item each) and the most chunks. */
#define CLG_SORT_CHUNK_CPU 4096
#define CLG_SORT_CHUNK_GPU 256
#define CLG_SORT_MAX_CHUNKS 4096
/* Work-items of the sort's scan of the counts on a GPU (one on a CPU). */
#define CLG_SORT_SCAN_GPU 256
/* The per-entry kernels (targets, bitmap, claim) on a CPU: work-groups of
 * one work-item, each a run of at least this many entries and at most
 * CLG_SCATTER_INDEX_RUNS_CPU runs, as the validation kernel's (a plain loop the
 * compiler vectorizes; a work-item per entry cost POCL about 4 ns an entry
 * in its work-item loop: ScatterElements' targets of 4M entries 17 ms
 * against 3.4 ms for the validation of the same indices). On a GPU a
 * work-item per entry (neighbours read neighbouring entries). */
#define CLG_SCATTER_INDEX_PER_CPU 4096
#define CLG_SCATTER_INDEX_RUNS_CPU 1024

uint64_t clg__scatter_run(uint64_t entries, uint64_t inner) {
  uint64_t per = (entries + CLG_SCATTER_INDEX_RUNS_CPU - 1) /
                 CLG_SCATTER_INDEX_RUNS_CPU,
           least =
               (CLG_SCATTER_INDEX_PER_CPU + inner - 1) / (inner ? inner : 1);
  return per > least ? per : least;
}

clg_status clg__scatter_device_schedule(
    clg_context *ctx, const clg_scatter_kind *kind, const clg_params *norm,
    const clg_scatter_params *sc, const clg_tensor *data,
    const clg_tensor *indices, void **state) {
  *state = NULL;
  size_t entries = 0;
  uint64_t inner = 0, ntargets = 0;
  kind->geometry(norm, data, indices, &entries, &inner, &ntargets);
  if (entries == 0 || (uint64_t)entries >= UINT32_MAX ||
      ntargets > ((uint64_t)1 << 32))
    return CLG_SUCCESS;
  clg_scatter_state *s = CLG_CALLOC(1, sizeof *s);
  if (!s)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY, "scheduling a scatter");
  s->device = true;
  s->entries = entries;
  s->inner = inner;
  s->ntargets = ntargets;
  s->index_size = clg_dtype_size(indices->dtype);
  s->sorted = -1;
  kind->keys(norm, data, indices, &s->keys);
  /* ScatterElements on the innermost axis of a rank-2 (merged) view, on a
   * CPU, duplicates an error, with each row's targets whole bitmap words:
   * the claim and the scatter compute the targets from the indices, and
   * the targets are written (for the sort) only once a repeat was found.
   * Writing them at every call had cost SE1 (4M entries, Zen 3) a 16 MiB
   * buffer's page faults and a pass over the indices. The claim checks
   * the bounds as well (clg__scatter_checks_values). */
  const clg_scatter_keys *k = &s->keys;
  s->rows = (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) != 0 &&
            sc->reduction == CLG_REDUCTION_NONE &&
            sc->duplicates == CLG_DUPLICATES_ERROR && k->elements &&
            k->rank == 2 && k->axis == 1 &&
            (k->abound * k->strides[1]) % 32 == 0;
  *state = s;
  return CLG_SUCCESS;
}

bool clg__scatter_checks_values(const void *state) {
  return ((const clg_scatter_state *)state)->rows;
}

/* Scratch buffer `i` of the state, `bytes` long, for the device's index
 * pass (none for a plan being baked: its calls are never launched): one
 * the context kept, or a new one (clg__scratch_take). */
static clg_status clg_scratch(clg_context *ctx, const clg_launch *l,
                              clg_scatter_state *s, int i, size_t bytes,
                              const char *what) {
  cl_int err = CL_SUCCESS;
  if (l->baking)
    return CLG_SUCCESS;
  s->ctx = ctx;
  s->dmem[i] = clg__scratch_take(ctx, bytes ? bytes : 4, &s->dsize[i], &err);
  if (!s->dmem[i])
    return clg__fail_cl(err, "clCreateBuffer", what);
  return CLG_SUCCESS;
}

/* One more call: kernel `name` of scatter_index.cl, one work-item per
 * `items`; `one`: work-groups of one (each item owns a chunk of the sort,
 * so the device's threads take chunks). */
static clg_status clg_add(clg_context *ctx, clg_kernel_calls *calls,
                          const char *opts, const char *name, cl_uint nargs,
                          const size_t *sizes, const void *const *vals,
                          size_t items, bool one) {
  if (calls->count >= CLG_MAX_CALLS)
    return clg__fail(CLG_ERROR_INTERNAL,
                     "internal: too many kernel calls for a scatter");
  clg_kernel_entry *k = NULL;
  clg_status st = clg__get_kernel(ctx, clg_kernel_scatter_index, opts, name, &k);
  if (st != CLG_SUCCESS)
    return st;
  /* Per-entry kernels: whole work-groups of 64 (the kernels ignore the
   * padding; a driver left to choose may pick groups of one). */
  size_t grp = one || ctx->max_work_group_size < 64 ? 1 : 64;
  size_t global[1] = {((items ? items : 1) + grp - 1) / grp * grp};
  size_t local[1] = {grp};
  clg__call_set(&calls->call[calls->count++], k, nargs, sizes, vals, 1, global,
                local);
  return CLG_SUCCESS;
}

/* The radix sort of dmem[0..1] by target, gate 0 (always, unless a check
 * failed) or 1 (only once a repeat was found); s->sorted says where the
 * sorted pairs end. `block` >= 0: one pass only, stably, by the 8 bits of
 * the target above its low `block` bits (fewer where the targets have
 * fewer than block + 8): s->buckets set, the pairs in 256 buckets, each in
 * entry order, bucket b holding the blocks of 2^block targets whose number
 * is b modulo 256. */
static clg_status clg_sort(clg_context *ctx, const clg_launch *l,
                           clg_scatter_state *s, const char *opts,
                           cl_uint gate, cl_ulong vx, int block,
                           clg_kernel_calls *calls) {
  bool partition = block >= 0;
  bool cpu = (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) != 0;
  size_t n = s->entries;
  size_t per = cpu ? CLG_SORT_CHUNK_CPU : CLG_SORT_CHUNK_GPU;
  size_t chunks = n / per + (n % per != 0);
  if (chunks > CLG_SORT_MAX_CHUNKS)
    chunks = CLG_SORT_MAX_CHUNKS;
  size_t chunk = n / chunks + (n % chunks != 0);
  chunks = n / chunk + (n % chunk != 0);
  s->chunk = chunk;
  s->chunks = chunks;
  clg_status st;
  if (!s->dmem[2] &&
      ((st = clg_scratch(ctx, l, s, 2, n * 4, "the sorted scatter targets")) !=
           CLG_SUCCESS ||
       (st = clg_scratch(ctx, l, s, 3, n * 4, "the sorted scatter entries")) !=
           CLG_SUCCESS ||
       (st = clg_scratch(ctx, l, s, 4, chunks * 256 * 4,
                         "the scatter sort's counts")) != CLG_SUCCESS))
    return st;
  int bits = 1; /* the targets' width: targets < ntargets */
  while (bits < 32 && ((uint64_t)1 << bits) < s->ntargets)
    ++bits;
  int passes = partition ? 1 : (bits + 7) / 8;
  int low = !partition ? 0 : bits - 8 < block ? bits - 8 : block;
  if (low < 0)
    low = 0;
  cl_ulong nn = n, ch = chunk;
  cl_uint C = (cl_uint)chunks, total = (cl_uint)(chunks * 256);
  size_t scan = cpu ? 1 : CLG_SORT_SCAN_GPU;
  if (scan > ctx->max_work_group_size)
    scan = ctx->max_work_group_size;
  int src = 0;
  for (int p = 0; p < passes; ++p) {
    cl_uint shift = (cl_uint)(low + 8 * p);
    int dst = 2 - src;
    const void *hv[9] = {&s->dmem[src], &nn, &ch, &shift, &s->dmem[4],
                         &C, &gate, &vx};
    size_t hs[8] = {sizeof(cl_mem), 8, 8, 4, sizeof(cl_mem), 4, 4, 8};
    if ((st = clg_add(ctx, calls, opts, "clg_scatter_index_hist", 8, hs, hv,
                      chunks, true)) != CLG_SUCCESS)
      return st;
    /* The scan: one work-group of `scan` work-items, local memory for
     * their sums (kernels/scatter_index.cl). */
    const void *sv[5] = {&s->dmem[4], &total, NULL, &gate, &vx};
    size_t ss[5] = {sizeof(cl_mem), 4, scan * 4, 4, 8};
    if ((st = clg_add(ctx, calls, opts, "clg_scatter_index_scan", 5, ss, sv,
                      scan, true)) != CLG_SUCCESS)
      return st;
    calls->call[calls->count - 1].local[0] = scan;
    cl_uint iota = p == 0;
    const void *pv[12] = {&s->dmem[src], &s->dmem[src + 1], &s->dmem[dst],
                          &s->dmem[dst + 1], &nn, &ch, &shift, &s->dmem[4],
                          &C, &iota, &gate, &vx};
    size_t ps[12] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem),
                     sizeof(cl_mem), 8, 8, 4, sizeof(cl_mem), 4, 4, 4, 8};
    if ((st = clg_add(ctx, calls, opts, "clg_scatter_index_place", 12, ps, pv,
                      chunks, true)) != CLG_SUCCESS)
      return st;
    src = dst;
  }
  s->sorted = src;
  s->buckets = partition ? 256 : 0;
  return CLG_SUCCESS;
}

/* The targets of every entry into s->dmem[0], gate 0 (unless a check
 * failed) or 1 (once a repeat was found). */
static clg_status clg_keys(clg_context *ctx, const clg_scatter_state *s,
                           const clg_launch *l, const char *opts, cl_ulong per,
                           bool cpu, cl_uint gate, clg_kernel_calls *calls) {
  cl_ulong x_off = l->x->offset / s->index_size, nn = s->entries,
           vx = l->verdict_extra;
  size_t items = (size_t)((nn + per - 1) / per);
  const clg_scatter_keys *k = &s->keys;
  cl_ulong16 dims, strides;
  for (int j = 0; j < 16; ++j) {
    dims.s[j] = j < (int)k->rank ? k->dims[j] : 1;
    strides.s[j] = j < (int)k->rank ? k->strides[j] : 0;
  }
  cl_uint r = k->rank, a = k->axis;
  cl_ulong abound = k->abound;
  if (k->elements) {
    cl_ulong n0 = k->dims[k->rank - 1];
    const void *v[13] = {&l->x->mem, &x_off,   &nn,         &n0,  &r,
                         &dims,      &strides, &a,          &abound, &per,
                         &s->dmem[0], &gate,   &vx};
    size_t z[13] = {sizeof(cl_mem), 8, 8, 8, 4, sizeof dims, sizeof strides,
                    4, 8, 8, sizeof(cl_mem), 4, 8};
    return clg_add(ctx, calls, opts, "clg_scatter_index_keys_elements", 13, z,
                   v, items, cpu);
  }
  const void *v[8] = {&l->x->mem, &x_off, &nn, &r, &dims, &per, &s->dmem[0],
                      &vx};
  size_t z[8] = {sizeof(cl_mem), 8, 8, 4, sizeof dims, 8, sizeof(cl_mem), 8};
  return clg_add(ctx, calls, opts, "clg_scatter_index_keys_nd", 8, z, v, items,
                 cpu);
}

clg_status clg__scatter_device_calls(clg_context *ctx, clg_scatter_state *s,
                                     const clg_launch *l,
                                     clg_kernel_calls *calls) {
  clg_status st;
  size_t n = s->entries;
  char opts[64];
  snprintf(opts, sizeof opts, "-DCLG_INDEX=%s",
           s->index_size == 4 ? "int" : "long");
  cl_ulong vx = l->verdict_extra, nn = n;
  bool cpu = (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) != 0;
  cl_ulong per = cpu ? clg__scatter_run(n, 1) : 1;
  if (!s->dmem[0] &&
      ((st = clg_scratch(ctx, l, s, 0, n * 4, "the scatter targets")) !=
           CLG_SUCCESS ||
       (st = clg_scratch(ctx, l, s, 1, n * 4, "the scatter entries")) !=
           CLG_SUCCESS))
    return st;
  const clg_scatter_keys *k = &s->keys;
  bool detect = l->sc.reduction == CLG_REDUCTION_NONE &&
                l->sc.duplicates == CLG_DUPLICATES_ERROR;
  if (!s->rows && /* (clg__scatter_device_schedule) */
      (st = clg_keys(ctx, s, l, opts, per, cpu, 0, calls)) != CLG_SUCCESS)
    return st;
  /* The updates apply in target order: the pairs sorted by target, or on
   * a CPU partitioned in one pass, each bucket's pairs in entry order
   * (clg_scatter_buckets, kernels/scatter.cl). The whole sort took SN2
   * (10^6 entries, 2^20 targets) three passes, 9.4 of its 23 ms (Zen 3).
   * A bucket is the blocks of 2^block targets (at least 1 KiB of output,
   * contiguous) that share a number modulo 256: a bucket's stores stay
   * within its blocks' lines, and targets that are hot together (an
   * embedding's frequent rows) spread over the buckets. SN2 (64-byte
   * rows), alternating in one run: blocks of 16 rows 15.8, 16.3 ms;
   * 256 contiguous ranges 15.3, 17.2; blocks of one row 27.0, 25.5. */
  if (!detect) {
    size_t row = (size_t)s->inner * clg_dtype_size(l->data->dtype);
    int block = 0;
    while (block < 32 && (row << block) < 1024)
      ++block;
    return clg_sort(ctx, l, s, opts, 0, vx, cpu ? block : -1, calls);
  }

  /* Repeats: a bit per target, claimed; then, only if one was found, the
   * sort and the exact first repeat in the C order of entries. */
  cl_ulong words = s->ntargets / 32 + 1;
  if (!s->dmem[5] &&
      (st = clg_scratch(ctx, l, s, 5, (size_t)words * 4,
                        "the scatter targets' bitmap")) != CLG_SUCCESS)
    return st;
  /* ScatterElements on the innermost (merged) axis: a row of entries
   * targets a range of abound * stride elements of its own (the
   * dimensions before it have strides that are multiples of that); where
   * such a range is whole bitmap words and each run whole rows, runs touch
   * disjoint words and claim without atomics. */
  cl_ulong claim_per = per;
  cl_uint plain = 0;
  if (cpu && k->elements && k->axis == k->rank - 1 &&
      (k->abound * k->strides[k->axis]) % 32 == 0) {
    cl_ulong n0 = k->dims[k->rank - 1];
    claim_per = (per + n0 - 1) / n0 * n0;
    plain = 1;
  }
  const void *zv[4] = {&s->dmem[5], &words, &per, &vx};
  size_t zs[4] = {sizeof(cl_mem), 8, 8, 8};
  if ((st = clg_add(ctx, calls, opts, "clg_scatter_index_zero", 4, zs, zv,
                    (size_t)((words + per - 1) / per), cpu)) != CLG_SUCCESS)
    return st;
  size_t claims = (size_t)((n + claim_per - 1) / claim_per);
  if (s->rows) {
    cl_ulong x_off = l->x->offset / s->index_size, n0 = k->dims[1],
             s0 = k->strides[0], abound = k->abound;
    cl_uint s1 = (cl_uint)k->strides[1];
    const void *cv[10] = {&l->x->mem, &x_off, &nn,         &n0, &s0, &s1,
                          &abound,    &claim_per, &s->dmem[5], &vx};
    size_t cs[10] = {sizeof(cl_mem), 8, 8, 8, 8, 4, 8, 8, sizeof(cl_mem), 8};
    st = clg_add(ctx, calls, opts, "clg_scatter_index_claim_rows", 10, cs, cv,
                 claims, cpu);
    /* The targets, for the sort, once a repeat was found. */
    if (st == CLG_SUCCESS)
      st = clg_keys(ctx, s, l, opts, per, cpu, 1, calls);
  } else {
    const void *cv[6] = {&s->dmem[0], &nn,         &claim_per,
                         &plain,      &s->dmem[5], &vx};
    size_t cs[6] = {sizeof(cl_mem), 8, 8, 4, sizeof(cl_mem), 8};
    st = clg_add(ctx, calls, opts, "clg_scatter_index_claim", 6, cs, cv, claims,
                 cpu);
  }
  if (st != CLG_SUCCESS ||
      (st = clg_sort(ctx, l, s, opts, 1, vx, -1, calls)) != CLG_SUCCESS)
    return st;
  int p = s->sorted;
  s->sorted = -1; /* the scatter reads the targets in entry order */
  /* A chunk of sorted positions per work-item, as the sort's. */
  cl_ulong ch = s->chunk;
  const void *mv[5] = {&s->dmem[p], &s->dmem[p + 1], &nn, &ch, &vx};
  size_t ms[5] = {sizeof(cl_mem), sizeof(cl_mem), 8, 8, 8};
  if ((st = clg_add(ctx, calls, opts, "clg_scatter_index_later", 5, ms, mv,
                    s->chunks, true)) != CLG_SUCCESS)
    return st;
  return clg_add(ctx, calls, opts, "clg_scatter_index_first", 5, ms, mv,
                 s->chunks, true);
}

clg_status clg__scatter_device_apply(clg_context *ctx,
                                     const clg_scatter_state *s,
                                     const clg_launch *l, const char *opts,
                                     bool loop, size_t unit, size_t per,
                                     size_t units_per_elem, size_t vec,
                                     clg_kernel_calls *calls) {
  bool sorted = s->sorted >= 0, runs = loop && !sorted;
  clg_kernel_entry *k = NULL;
  clg_status st = clg__get_kernel(
      ctx, clg_kernel_scatter, opts,
      s->buckets ? "clg_scatter_buckets"
      : sorted   ? "clg_scatter_sorted"
      : s->rows  ? "clg_scatter_elements_rows"
      : runs    ? "clg_scatter_direct_runs"
                : "clg_scatter_direct",
      &k);
  if (st != CLG_SUCCESS)
    return st;
  cl_ulong oo = l->o->offset / unit / per / vec,
           uo = l->u->offset / unit / per / vec;
  cl_ulong inner = s->inner * units_per_elem / vec, items = s->entries;
  bool small = ctx->max_work_group_size < CLG_SCATTER_LOCAL;
  size_t padded = small ? (size_t)items : clg__scatter_round_up(items);
  size_t grp = small ? 1 : CLG_SCATTER_LOCAL;
  size_t global[2] = {loop ? padded : (size_t)inner, loop ? 1 : padded};
  size_t local[2] = {loop ? grp : 1, loop ? 1 : grp};
  int p = sorted ? s->sorted : 0;
  const void *vals[8] = {&l->o->mem, &oo, &l->u->mem, &uo, &s->dmem[p],
                         &s->dmem[p + 1], &inner, &items};
  size_t sizes[8] = {sizeof(cl_mem), sizeof oo,      sizeof(cl_mem),
                     sizeof uo,      sizeof(cl_mem), sizeof(cl_mem),
                     sizeof inner,   sizeof items};
  if (calls->count >= CLG_MAX_CALLS)
    return clg__fail(CLG_ERROR_INTERNAL,
                     "internal: too many kernel calls for a scatter");
  if (s->buckets) { /* a work-item a bucket of target ranges */
    cl_uint C = (cl_uint)s->chunks, B = s->buckets;
    size_t bg[1] = {B}, bl[1] = {1};
    const void *bv[11] = {vals[0], vals[1], vals[2], vals[3], vals[4], vals[5],
                          vals[6], vals[7], &s->dmem[4], &C, &B};
    size_t bs[11] = {sizes[0], sizes[1], sizes[2],       sizes[3],
                     sizes[4], sizes[5], sizes[6],       sizes[7],
                     sizeof(cl_mem), 4, 4};
    clg__call_set(&calls->call[calls->count++], k, 11, bs, bv, 1, bg, bl);
  } else if (sorted)
    clg__call_set(&calls->call[calls->count++], k, 8, sizes, vals, 2, global,
                  local);
  else if (s->rows) { /* targets from the indices, runs of whole rows */
    const clg_scatter_keys *ks = &s->keys;
    cl_ulong n0 = ks->dims[1], s0 = ks->strides[0], s1 = ks->strides[1],
             abound = ks->abound, x_off = l->x->offset / s->index_size;
    cl_uint x64 = s->index_size == 8;
    cl_ulong run = (clg__scatter_run(items, inner) + n0 - 1) / n0 * n0;
    size_t rg[1] = {(size_t)((items + run - 1) / run)}, rl[1] = {1};
    const void *rv[14] = {vals[0], vals[1], vals[2], vals[3], &l->x->mem,
                          &x_off,  &x64,    &n0,     &s0,     &s1,
                          &abound, &inner,  &items,  &run};
    size_t rs[14] = {sizes[0], sizes[1], sizes[2], sizes[3], sizeof(cl_mem),
                     8,        4,        8,        8,        8,
                     8,        8,        8,        8};
    clg__call_set(&calls->call[calls->count++], k, 14, rs, rv, 1, rg, rl);
  } else if (runs) { /* direct in runs of `per` entries, a work-group each */
    cl_ulong run = clg__scatter_run(items, inner);
    size_t rg[1] = {(size_t)((items + run - 1) / run)}, rl[1] = {1};
    const void *dv[8] = {vals[0], vals[1], vals[2], vals[3],
                         vals[4], vals[6], vals[7], &run};
    size_t ds[8] = {sizes[0], sizes[1], sizes[2], sizes[3],
                    sizes[4], sizes[6], sizes[7], sizeof run};
    clg__call_set(&calls->call[calls->count++], k, 8, ds, dv, 1, rg, rl);
  } else { /* direct: no entries array */
    const void *dv[7] = {vals[0], vals[1], vals[2], vals[3], vals[4],
                         vals[6], vals[7]};
    size_t ds[7] = {sizes[0], sizes[1], sizes[2], sizes[3], sizes[4],
                    sizes[6], sizes[7]};
    clg__call_set(&calls->call[calls->count++], k, 7, ds, dv, 2, global,
                  local);
  }
  return CLG_SUCCESS;
}
