/* What the scatters share. The host turns the checked index values into
 * targets, finds repeated targets (an error under reduction none unless
 * duplicates = last), and when targets repeat sorts the entries by target,
 * stably, into segments: the kernel then applies each target's updates in
 * the C order of indices, one work-item per element of a target, so the
 * result is the sequential one on any device, whatever the work-group
 * sizes (kernels/scatter.cl). */
#include "ops/scatter.h"
#include "device/tune.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void clg__scatter_release(void *state) {
  clg_scatter_state *s = state;
  if (!s)
    return;
  for (int i = 0; i < 4; ++i)
    if (s->mem[i])
      clReleaseMemObject(s->mem[i]);
  for (int i = 0; i < 6; ++i)
    if (s->dmem[i])
      clg__scratch_give(s->ctx, s->dmem[i], s->dsize[i], s->done, s->busy);
  if (s->busy)
    clReleaseEvent(s->busy);
  free(s->targets);
  free(s->order);
  free(s->seg_start);
  free(s->seg_target);
  free(s);
}

void clg__scatter_done(void *state, cl_event last) {
  clg_scatter_state *s = state;
  if (!s)
    return;
  s->done = true;
  if (s->busy)
    clReleaseEvent(s->busy);
  s->busy = last;
  if (last)
    clRetainEvent(last);
}

bool clg__scatter_may_alias(int input) { return input == CLG_IN_DATA; }

void clg__format_position(char *buf, size_t cap, size_t pos, int32_t r,
                          const int64_t *shape) {
  int64_t coord[CLG_MAX_RANK];
  size_t rest = pos;
  for (int32_t i = r - 1; i >= 0; --i) {
    uint64_t dim = (uint64_t)shape[i];
    coord[i] = dim ? (int64_t)(rest % dim) : 0;
    rest = dim ? rest / dim : 0;
  }
  clg__format_shape(buf, cap, r, coord);
}

/* (target, entry) pairs in ascending order. */
static int clg_pair_cmp(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Is the target space small enough for a bitmap or a count per target? */
static bool clg_dense(uint64_t ntargets, size_t n) {
  return ntargets <= (uint64_t)n * 4 + 65536;
}

/* The entries sorted by (target, entry), as pairs; NULL when out of
 * memory. */
static int64_t (*clg_sorted_pairs(const int64_t *t, size_t n))[2] {
  int64_t(*pairs)[2] = CLG_MALLOC((n ? n : 1) * sizeof *pairs);
  if (!pairs)
    return NULL;
  for (size_t e = 0; e < n; ++e) {
    pairs[e][0] = t[e];
    pairs[e][1] = (int64_t)e;
  }
  qsort(pairs, n, sizeof *pairs, clg_pair_cmp);
  return pairs;
}

/* The first repeated target in the C order of entries: *later is the
 * smallest entry whose target an earlier entry has, *first the earliest
 * entry with that target. False if no target repeats (or, *oom, out of
 * memory). */
static bool clg_first_repeat(const int64_t *t, size_t n, uint64_t ntargets,
                             size_t *first, size_t *later, bool *oom) {
  *oom = false;
  bool found = false;
  if (clg_dense(ntargets, n)) {
    uint64_t *seen = CLG_CALLOC((size_t)(ntargets / 64 + 1), sizeof *seen);
    if (!seen) {
      *oom = true;
      return false;
    }
    for (size_t e = 0; e < n && !found; ++e) {
      uint64_t word = (uint64_t)t[e] / 64, bit = (uint64_t)1 << (t[e] % 64);
      if (seen[word] & bit) {
        *later = e;
        found = true;
      }
      seen[word] |= bit;
    }
    free(seen);
    for (size_t e = 0; found && e < *later; ++e)
      if (t[e] == t[*later]) {
        *first = e;
        break;
      }
    return found;
  }
  int64_t(*pairs)[2] = clg_sorted_pairs(t, n);
  if (!pairs) {
    *oom = true;
    return false;
  }
  /* In each run of one target the second entry is the earliest "later"
   * one, and the first the earliest entry. */
  for (size_t i = 1; i < n; ++i)
    if (pairs[i][0] == pairs[i - 1][0] &&
        (!found || (size_t)pairs[i][1] < *later)) {
      *later = (size_t)pairs[i][1];
      *first = (size_t)pairs[i - 1][1];
      found = true;
    }
  free(pairs);
  return found;
}

/* Segments: the entries sorted by target, stably (counting sort over a
 * small target space, else a sort of (target, entry) pairs). */
static clg_status clg_segments(clg_scatter_state *s, const int64_t *t,
                               uint64_t ntargets) {
  size_t n = s->entries;
  s->order = CLG_MALLOC(n * sizeof *s->order);
  s->seg_start = CLG_MALLOC((n + 1) * sizeof *s->seg_start);
  s->seg_target = CLG_MALLOC(n * sizeof *s->seg_target);
  if (!s->order || !s->seg_start || !s->seg_target)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "ordering %zu scatter updates by target", n);
  if (clg_dense(ntargets, n)) {
    size_t *next = CLG_CALLOC((size_t)ntargets + 1, sizeof *next);
    if (!next)
      return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                       "ordering %zu scatter updates by target", n);
    for (size_t e = 0; e < n; ++e)
      ++next[t[e] + 1];
    for (uint64_t k = 0; k < ntargets; ++k)
      next[k + 1] += next[k];
    for (size_t e = 0; e < n; ++e) /* ascending entries: stable */
      s->order[next[t[e]]++] = (int64_t)e;
    free(next);
  } else {
    int64_t(*pairs)[2] = clg_sorted_pairs(t, n);
    if (!pairs)
      return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                       "ordering %zu scatter updates by target", n);
    for (size_t i = 0; i < n; ++i)
      s->order[i] = pairs[i][1];
    free(pairs);
  }
  size_t g = 0;
  for (size_t i = 0; i < n; ++i)
    if (i == 0 || t[s->order[i]] != t[s->order[i - 1]]) {
      s->seg_start[g] = (int64_t)i;
      s->seg_target[g] = t[s->order[i]];
      ++g;
    }
  s->seg_start[g] = (int64_t)n;
  s->segments = g;
  return CLG_SUCCESS;
}

clg_status clg__scatter_schedule(const clg_scatter_kind *kind,
                                 const clg_params *norm,
                                 const clg_scatter_params *sc,
                                 const clg_tensor *data,
                                 const clg_tensor *indices, const void *values,
                                 size_t count, void **state) {
  (void)count;
  *state = NULL;
  clg_scatter_state *s = CLG_CALLOC(1, sizeof *s);
  if (!s)
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY, "scheduling a scatter");
  uint64_t ntargets = 0;
  kind->geometry(norm, data, indices, &s->entries, &s->inner, &ntargets);
  if (s->entries == 0) {
    *state = s; /* nothing to write */
    return CLG_SUCCESS;
  }
  /* Empty targets (a slice of no elements) still make repeated indices an
   * error: the rule is on the indices, as the reference's. */
  s->targets = CLG_MALLOC(s->entries * sizeof *s->targets);
  if (!s->targets) {
    size_t entries = s->entries;
    clg__scatter_release(s);
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "computing %zu scatter targets", entries);
  }
  kind->targets(norm, data, indices, values,
                clg_dtype_size(indices->dtype), s->targets);
  size_t first = 0, later = 0;
  bool oom = false;
  bool repeat = clg_first_repeat(s->targets, s->entries, ntargets, &first,
                                 &later, &oom);
  clg_status st = CLG_SUCCESS;
  if (oom)
    st = clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                   "looking for repeated scatter targets");
  else if (repeat && sc->reduction == CLG_REDUCTION_NONE &&
           sc->duplicates == CLG_DUPLICATES_ERROR)
    st = kind->report_duplicate(norm, data, indices, first, later,
                                s->targets[later]);
  else if (repeat && (st = clg_segments(s, s->targets, ntargets)) ==
                         CLG_SUCCESS) {
    free(s->targets);
    s->targets = NULL;
  }
  if (st != CLG_SUCCESS) {
    clg__scatter_release(s);
    return st;
  }
  *state = s;
  return CLG_SUCCESS;
}

/* ------------------------------------------------------------ kernels */

/* The kernel's element kinds (kernels/scatter.cl, CLG_KIND): one table,
 * scatter_kinds.def, gives their numbers, the names the kernel compares
 * with (clg_kind_defines, passed at every build of scatter.cl) and the
 * dtype each stands for. */
enum {
#define CLG_SCATTER_KIND(name, n, dtype) CLG_K_##name = n,
#include "ops/scatter_kinds.def"
#undef CLG_SCATTER_KIND
};
static const char clg_kind_defines[] =
#define CLG_SCATTER_KIND(name, n, dtype) " -DCLG_K_" #name "=" #n
#include "ops/scatter_kinds.def"
#undef CLG_SCATTER_KIND
    ;

/* The kind for `dtype` under a reduction; CLG_K_RAW (raw units) for
 * reduction none. -1: no arithmetic for this type (min/max on complex). */
static int clg_kind(clg_dtype dtype, clg_reduction red) {
  if (red == CLG_REDUCTION_NONE)
    return CLG_K_RAW;
  if ((red == CLG_REDUCTION_MIN || red == CLG_REDUCTION_MAX) &&
      (dtype == CLG_DTYPE_COMPLEX64 || dtype == CLG_DTYPE_COMPLEX128))
    return -1;
  switch (dtype) {
#define CLG_SCATTER_KIND(name, n, dt)                                          \
  case dt:                                                                     \
    return n == CLG_K_RAW ? -1 : n;
#include "ops/scatter_kinds.def"
#undef CLG_SCATTER_KIND
  default:
    return -1;
  }
}

static const char *const clg_reduction_names[] = {"none", "add", "mul", "min",
                                                  "max"};

/* Does the device compile doubles (cl_khr_fp64)? */
static bool clg_has_fp64(const clg_context *ctx) {
  char ext[4096] = {0};
  size_t size = 0;
  if (clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext,
                      &size) != CL_SUCCESS)
    return false;
  return strstr(ext, "cl_khr_fp64") != NULL;
}

/* Does the device keep subnormal floats (doubles: `dbl`), as the
 * reductions' bits need (include/clgather/clgather.h)? CL_FP_DENORM in
 * CL_DEVICE_SINGLE_FP_CONFIG (DOUBLE_FP_CONFIG); OpenCL 1.2 makes it
 * optional for float (a device may flush subnormals to zero) and requires
 * it for double. */
static clg_status clg_check_denormals(const clg_context *ctx, bool dbl,
                                      clg_reduction red, clg_dtype dtype) {
  cl_device_fp_config fp = 0;
  clg_status st = clg__fp_config(ctx, dbl, &fp);
  if (st != CLG_SUCCESS)
    return st;
  if (fp & CL_FP_DENORM)
    return CLG_SUCCESS;
  return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                   "reduction %s on %s cannot give the promised bits on this "
                   "device: it flushes subnormal %ss to zero (%s lacks "
                   "CL_FP_DENORM)",
                   clg_reduction_names[red], clg_dtype_name(dtype),
                   dbl ? "double" : "float",
                   dbl ? "CL_DEVICE_DOUBLE_FP_CONFIG"
                       : "CL_DEVICE_SINGLE_FP_CONFIG");
}

/* A temporary device copy of `count` int64 values. */
static clg_status clg_upload(clg_context *ctx, const int64_t *v, size_t count,
                             const char *what, cl_mem *out) {
  cl_int err = CL_SUCCESS;
  *out = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        count * sizeof *v, (void *)v, &err);
  if (!*out)
    return clg__fail_cl(err, "clCreateBuffer", what);
  return CLG_SUCCESS;
}

clg_status clg__scatter_prepare(clg_context *ctx, const clg_params *norm,
                                const clg_launch *l, bool gated,
                                clg_kernel_calls *calls) {
  (void)norm;
  clg_scatter_state *s = l->state;
  calls->count = 0;
  clg_dtype dtype = l->data->dtype;
  clg_reduction red = l->sc.reduction;
  /* A plan being baked with no device schedule: the host's schedule is
   * made of index values, so its kernels are built for a stand-in (one
   * entry; in target order when the updates must apply in order). */
  clg_scatter_state stand_in;
  if (!s && l->baking) {
    bool ordered =
        red != CLG_REDUCTION_NONE || l->sc.duplicates == CLG_DUPLICATES_LAST;
    stand_in = (clg_scatter_state){
        .entries = 1, .inner = 1, .segments = ordered ? 1 : 0, .sorted = -1};
    s = &stand_in;
  }
  int kind = clg_kind(dtype, red);
  if (kind < 0)
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "reduction %s is not defined on element type %s",
                     clg_reduction_names[red], clg_dtype_name(dtype));
  bool fp64 = kind == CLG_K_DOUBLE || kind == CLG_K_COMPLEX128;
  if (fp64 && !clg_has_fp64(ctx))
    return clg__fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                     "reduction %s on %s needs double precision, which this "
                     "device lacks (no cl_khr_fp64)",
                     clg_reduction_names[red], clg_dtype_name(dtype));
  /* float, bfloat16, complex64 in float; double, complex128 in double.
   * float16 (CLG_K_HALF) needs no subnormal float: its values, sums and
   * products are normal floats or zero. */
  bool complex = kind == CLG_K_COMPLEX64 || kind == CLG_K_COMPLEX128;
  if (kind == CLG_K_FLOAT || kind == CLG_K_BFLOAT16 || fp64 || complex) {
    clg_status dst = clg_check_denormals(ctx, fp64, red, dtype);
    if (dst != CLG_SUCCESS)
      return dst;
  }
  size_t esize = l->df.elem_size;
  /* The unit the apply kernel reads and writes: the element, a complex
   * number's component, or for reduction none the widest power of two up
   * to 8 bytes dividing the element and every offset. */
  size_t unit = complex ? esize / 2 : esize;
  if (kind == CLG_K_RAW)
    unit = clg__copy_unit_max(esize, l->d->align, l->o->align, 8);
  if (kind == CLG_K_RAW)
    unit = clg__copy_unit_max(unit, l->u->align, unit, 8);
  size_t per = complex ? 2 : 1; /* units per LOAD */
  const clg_staged *st3[3] = {l->d, l->u, l->o};
  static const char *const names[3] = {"data", "updates", "output"};
  for (int i = 0; i < 3; ++i)
    if (st3[i]->offset % unit != 0 || st3[i]->align % unit != 0)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "%s starts at byte offset %zu, not a multiple of %zu "
                       "bytes (the %s element%s)",
                       names[i], st3[i]->offset, unit, clg_dtype_name(dtype),
                       per == 2 ? "'s component" : "");
  bool in_place = l->d == l->o || (!l->baking && l->d->mem == l->o->mem &&
                                    l->d->offset == l->o->offset);
  char opts[512]; /* the kinds' names take about 300 bytes */
  const char *gate = gated ? " -DCLG_GATED" : "";
  clg_status st;
  /* The device's index pass first (its kernels read the verdict). */
  if (s && s->device &&
      (st = clg__scatter_device_calls(ctx, s, l, calls)) != CLG_SUCCESS)
    return st;
  if (!in_place) {
    size_t cu = clg__copy_unit(l->of.bytes, l->d->align, l->o->align);
    snprintf(opts, sizeof opts, "-DCLG_KIND=0 -DCLG_RED=0 -DCLG_UNIT=%s%s%s",
             clg__unit_type(cu), gate, clg_kind_defines);
    clg_kernel_entry *k = NULL;
    if ((st = clg__get_kernel(ctx, clg_kernel_scatter, opts,
                              "clg_scatter_copy", &k)) != CLG_SUCCESS)
      return st;
    cl_ulong so = l->d->offset / cu, doff = l->o->offset / cu,
             n = l->of.bytes / cu;
    const void *vals[5] = {&l->d->mem, &so, &l->o->mem, &doff, &n};
    size_t sizes[5] = {sizeof(cl_mem), sizeof so, sizeof(cl_mem), sizeof doff,
                       sizeof n};
    bool small = ctx->max_work_group_size < CLG_SCATTER_LOCAL;
    size_t global[1] = {small ? (size_t)n : clg__scatter_round_up(n)};
    size_t local[1] = {small ? 1 : CLG_SCATTER_LOCAL};
    clg__call_set(&calls->call[calls->count++], k, 5, sizes, vals, 1, global,
                  local);
  }
  if (!s || s->entries == 0 || s->inner == 0)
    return CLG_SUCCESS; /* nothing to update */
  size_t units_per_elem = kind == CLG_K_RAW ? esize / unit : 1;
  bool loop = (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU) != 0;
  snprintf(opts, sizeof opts,
           "-DCLG_KIND=%d -DCLG_RED=%d -DCLG_UNIT=%s -DCLG_LOOP=%d%s%s%s",
           kind, (int)red, clg__unit_type(unit), loop ? 1 : 0,
           s->device ? " -DCLG_POS=uint" : "", gate, clg_kind_defines);
  if (s->device) {
    /* float / double add and mul on a CPU: CLG_VEC elements at a time
     * along a target (32 bytes), where inner and the offsets allow. */
    size_t vec = 32 / esize, vb = 32;
    bool vectors = loop && (kind == CLG_K_FLOAT || kind == CLG_K_DOUBLE) &&
                   (red == CLG_REDUCTION_ADD || red == CLG_REDUCTION_MUL) &&
                   s->inner % vec == 0 && l->o->offset % vb == 0 &&
                   l->o->align % vb == 0 && l->u->offset % vb == 0 &&
                   l->u->align % vb == 0;
    if (vectors) {
      size_t len = strlen(opts);
      snprintf(opts + len, sizeof opts - len, " -DCLG_VEC=%zu -DCLG_VECT=%s",
               vec, kind == CLG_K_FLOAT ? "float" : "double");
    }
    return clg__scatter_device_apply(ctx, s, l, opts, loop, unit, per,
                                     units_per_elem, vectors ? vec : 1, calls);
  }
  bool seg = s->segments > 0, reduce = seg && red != CLG_REDUCTION_NONE;
  clg_kernel_entry *k = NULL;
  if ((st = clg__get_kernel(ctx, clg_kernel_scatter, opts,
                            !seg      ? "clg_scatter_direct"
                            : reduce ? "clg_scatter_segments"
                                     : "clg_scatter_last",
                            &k)) != CLG_SUCCESS)
    return st;
  /* Offsets and inner in LOAD elements (pairs of components: complex). */
  cl_ulong oo = l->o->offset / unit / per, uo = l->u->offset / unit / per;
  cl_ulong inner = s->inner * units_per_elem;
  size_t row_bytes = (size_t)s->inner * esize;
  size_t pu = clg__copy_unit_max(row_bytes, l->u->align, 0, 64);
  if (!l->baking && !s->mem[0]) {
    cl_int err = CL_SUCCESS;
    if (!seg)
      st = clg_upload(ctx, s->targets, s->entries, "the scatter targets",
                      &s->mem[0]);
    else if ((st = clg_upload(ctx, s->order, s->entries, "the scatter order",
                              &s->mem[0])) == CLG_SUCCESS &&
             (st = clg_upload(ctx, s->seg_start, s->segments + 1,
                              "the scatter segments", &s->mem[1])) ==
                 CLG_SUCCESS &&
             (st = clg_upload(ctx, s->seg_target, s->segments,
                              "the scatter targets", &s->mem[2])) ==
                 CLG_SUCCESS &&
             reduce &&
             !(s->mem[3] = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE,
                                          s->entries * row_bytes, NULL, &err)))
      st = clg__fail_cl(err, "clCreateBuffer",
                        "the updates in the order of their targets");
    if (st != CLG_SUCCESS)
      return st;
  }
  /* Whole work-groups of CLG_SCATTER_LOCAL along the entries (segments): a
   * driver left to choose divides the NDRange, which for a prime count
   * means work-groups of one. */
  bool small = ctx->max_work_group_size < CLG_SCATTER_LOCAL;
  if (reduce) { /* the updates, permuted into target order */
    char popts[384];
    snprintf(popts, sizeof popts, "-DCLG_KIND=0 -DCLG_RED=0 -DCLG_UNIT=%s%s",
             clg__unit_type(pu), clg_kind_defines);
    clg_kernel_entry *pk = NULL;
    if ((st = clg__get_kernel(ctx, clg_kernel_scatter, popts,
                              "clg_scatter_permute", &pk)) != CLG_SUCCESS)
      return st;
    cl_ulong n = s->entries, pofs = l->u->offset / pu, row_units = row_bytes / pu;
    size_t global[1] = {small ? (size_t)n : clg__scatter_round_up(n)};
    size_t local[1] = {small ? 1 : CLG_SCATTER_LOCAL};
    const void *vals[6] = {&s->mem[3], &l->u->mem, &pofs, &s->mem[0],
                           &row_units, &n};
    size_t sizes[6] = {sizeof(cl_mem), sizeof(cl_mem), sizeof pofs,
                       sizeof(cl_mem), sizeof row_units, sizeof n};
    clg__call_set(&calls->call[calls->count++], pk, 6, sizes, vals, 1, global,
                  local);
  }
  cl_ulong items = seg ? s->segments : s->entries;
  size_t padded = small ? (size_t)items : clg__scatter_round_up(items);
  size_t grp = small ? 1 : CLG_SCATTER_LOCAL;
  size_t global[2] = {loop ? padded : (size_t)inner, loop ? 1 : padded};
  size_t local[2] = {loop ? grp : 1, loop ? 1 : grp};
  clg_kernel_call *c = &calls->call[calls->count++];
  if (reduce) {
    const void *vals[7] = {&l->o->mem, &oo,    &s->mem[3], &s->mem[1],
                           &s->mem[2], &inner, &items};
    size_t sizes[7] = {sizeof(cl_mem), sizeof oo,      sizeof(cl_mem),
                       sizeof(cl_mem), sizeof(cl_mem), sizeof inner,
                       sizeof items};
    clg__call_set(c, k, 7, sizes, vals, 2, global, local);
  } else if (seg) {
    const void *vals[9] = {&l->o->mem, &oo,        &l->u->mem, &uo,
                           &s->mem[0], &s->mem[1], &s->mem[2], &inner,
                           &items};
    size_t sizes[9] = {sizeof(cl_mem), sizeof oo,      sizeof(cl_mem),
                       sizeof uo,      sizeof(cl_mem), sizeof(cl_mem),
                       sizeof(cl_mem), sizeof inner,   sizeof items};
    clg__call_set(c, k, 9, sizes, vals, 2, global, local);
  } else {
    const void *vals[7] = {&l->o->mem, &oo,        &l->u->mem, &uo,
                           &s->mem[0], &inner,     &items};
    size_t sizes[7] = {sizeof(cl_mem), sizeof oo,    sizeof(cl_mem), sizeof uo,
                       sizeof(cl_mem), sizeof inner, sizeof items};
    clg__call_set(c, k, 7, sizes, vals, 2, global, local);
  }
  return CLG_SUCCESS;
}

void clg__scatter_slices(const clg_scatter_kind *kind, const clg_params *norm,
                         const clg_tensor *data, const clg_tensor *indices,
                         const void *values, size_t index_size,
                         size_t *entries, uint64_t *inner, int64_t *pos) {
  uint64_t targets = 0;
  kind->geometry(norm, data, indices, entries, inner, &targets);
  if (pos && *entries)
    kind->targets(norm, data, indices, values, index_size, pos);
}
