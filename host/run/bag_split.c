/* EmbeddingBag with a host weight larger than one device buffer
 * (run/bag_split.h): the call runs on compact tables, as clgather-mpi's
 * clg_mpi_embedding_bag() does across machines (mpi/mpi_bag.c).
 *
 * Steps:
 *  1. the values, as the host's path checks them (run/embedding_bag.c):
 *     cl_mem indices and bags read back (blocking, after the wait list),
 *     then ops/embedding_bag.c's pass over them, its first fault the
 *     call's error with the same status and message; nothing enqueued yet,
 *     the output untouched;
 *  2. the plan: the bags in order, grouped greedily so that everything a
 *     group's call puts in one buffer fits the limit: its distinct rows (in
 *     order of first appearance, entries equal to padding_idx left out),
 *     and, where they are host memory, its renumbered indices, its bags,
 *     its per_sample_weights and its output rows. With padding_idx every
 *     table's row 0 is the padding row and the group's call has
 *     padding_idx 0: entries equal to padding_idx, and only they, are
 *     renumbered to 0, so they are skipped and left out of the count as in
 *     the whole call. A single bag that cannot fit on its own (one row
 *     larger than the limit, its distinct rows, or its entries) is
 *     CLG_ERROR_OPENCL naming the sizes and the limit, as run/split.c
 *     names what it cannot split, before any group runs;
 *  3. each group: its rows copied (memcpy) into a host table, and
 *     clg_embedding_bag() on that table, the group's renumbered indices
 *     and rebased bags (offsets as B + 1 offsets, include_last_offset; ids
 *     less the group's first bag), views of per_sample_weights and of the
 *     output at the group's first entry and bag. Each bag is still reduced
 *     entry by entry in index order by the same kernels, so the bits are
 *     the one-buffer call's. The call is blocking (its host weight makes
 *     it so): one table is reused.
 * An OpenCL failure in a later group leaves the earlier groups' output
 * rows written (a device error, not a bad input: every check ran first),
 * as in run/split.c. */
#include "run/bag_split.h"
#include "run/run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SPLIT_W, SPLIT_X, SPLIT_B, SPLIT_S };

static bool split_host_over(const clg_tensor *t, size_t bytes, cl_ulong limit) {
  return t && t->storage == CLG_STORAGE_HOST && (cl_ulong)bytes > limit;
}

bool clg__bag_split_needed(const clg_context *ctx, const clg_tensor *const *in,
                           const clg_tensor_facts *inf,
                           const clg_tensor *output,
                           const clg_tensor_facts *of) {
  cl_ulong limit = ctx->max_alloc;
  if (limit == 0 || in[SPLIT_W]->storage != CLG_STORAGE_HOST)
    return false;
  for (int k = SPLIT_W; k <= SPLIT_S; ++k)
    if (split_host_over(in[k], inf[k].bytes, limit))
      return true;
  return split_host_over(output, of->bytes, limit);
}

/* A group of bags [b0, b1), their entries [e0, e1), its d distinct rows
 * at rows[list .. list + d). */
typedef struct split_group {
  int64_t b0, b1, e0, e1;
  size_t list;
  int64_t d;
} split_group;

typedef struct split_work {
  clg_context *ctx;
  clg_bag_call_fn run; /* a group's call (clg_embedding_bag) */
  const clg_bag_geom *g;
  const clg_tensor *const *in;
  const clg_tensor *output;
  cl_ulong limit;
  size_t row;  /* bytes of a weight row */
  size_t orow; /* bytes of an output row */
  size_t isize, bsize, esize;
  int64_t pad;           /* 1 with padding_idx: each table's row 0 */
  int64_t cap_rows;      /* the rows a table may hold */
  const void *x, *b;     /* indices and bags, on the host */
  const int64_t *starts; /* segment ids: each segment's first entry */
  void *renum;           /* the indices renumbered, in indices' type */
  int64_t *rows;         /* each group's distinct rows, one after another */
  size_t nrows;
  int64_t *slots; /* open addressing: a table row, or -1 */
  size_t mask;
  split_group *groups;
  size_t ngroups, gcap;
  int64_t max_table; /* the largest group's table rows */
  size_t max_bags;   /* the largest group's rebased bags (elements) */
} split_work;

static void split_put(void *dst, size_t size, int64_t i, int64_t v) {
  if (size == 4) {
    int32_t w = (int32_t)v;
    memcpy((unsigned char *)dst + (size_t)i * 4, &w, 4);
  } else
    memcpy((unsigned char *)dst + (size_t)i * 8, &v, 8);
}

/* Bag b's entries [*s, *e). */
static void split_entries(const split_work *p, int64_t b, int64_t *s,
                          int64_t *e) {
  const clg_bag_geom *g = p->g;
  if (g->p.form == CLG_BAGS_FIXED) {
    *s = b * g->fixed;
    *e = *s + g->fixed;
  } else if (g->p.form == CLG_BAGS_SEGMENT_IDS) {
    *s = p->starts[b];
    *e = p->starts[b + 1];
  } else {
    *s = clg__index_at(p->b, p->bsize, (size_t)b);
    *e = b + 1 < g->bags_len ? clg__index_at(p->b, p->bsize, (size_t)b + 1)
                             : g->n;
  }
}

static size_t split_slot(const split_work *p, int64_t v) {
  return (size_t)(((uint64_t)v * 0x9E3779B97F4A7C15ull) >> 17) & p->mask;
}

/* The table row of weight row v in the group whose rows start at `list`:
 * found, or added (-1 when the table is full: cap_rows). */
static int64_t split_row_of(split_work *p, size_t list, int64_t v) {
  size_t s = split_slot(p, v);
  for (;; s = (s + 1) & p->mask) {
    int64_t t = p->slots[s];
    if (t < 0)
      break;
    if (p->rows[list + (size_t)(t - p->pad)] == v)
      return t;
  }
  int64_t t = p->pad + (int64_t)(p->nrows - list);
  if (t >= p->cap_rows)
    return -1;
  p->rows[p->nrows++] = v;
  p->slots[s] = t;
  return t;
}

/* Empty the table of the rows from `list` on. */
static void split_forget(split_work *p, size_t list) {
  for (size_t k = list; k < p->nrows; ++k) {
    size_t s = split_slot(p, p->rows[k]);
    while (p->slots[s] < 0 ||
           p->rows[list + (size_t)(p->slots[s] - p->pad)] != p->rows[k])
      s = (s + 1) & p->mask;
    p->slots[s] = -1;
  }
}

/* The rebased bags of a group of nb bags and ne entries (int64, whatever
 * the call's bags are: a group's last offset is its entry count): B + 1
 * offsets, or one segment id per entry, or none. */
static size_t split_bags_len(const split_work *p, int64_t nb, int64_t ne) {
  return p->g->p.form == CLG_BAGS_OFFSETS       ? (size_t)nb + 1
         : p->g->p.form == CLG_BAGS_SEGMENT_IDS ? (size_t)ne
                                                : 0;
}

/* What of a group of nb bags and ne entries does not fit one buffer
 * (beside its table, which split_row_of() keeps to cap_rows): NULL when
 * all of it does; else its name, and *bytes its size. */
static const char *split_misfit(const split_work *p, int64_t nb, int64_t ne,
                                uint64_t *bytes) {
  const clg_tensor *psw = p->in[SPLIT_S];
  if ((*bytes = (uint64_t)ne * p->isize) > p->limit)
    return "indices";
  if (psw && psw->storage == CLG_STORAGE_HOST &&
      (*bytes = (uint64_t)ne * p->esize) > p->limit)
    return "per_sample_weights";
  if ((*bytes = (uint64_t)split_bags_len(p, nb, ne) * 8u) > p->limit)
    return p->g->p.form == CLG_BAGS_OFFSETS ? "offsets" : "segment ids";
  if (p->output->storage == CLG_STORAGE_HOST &&
      (*bytes = (uint64_t)nb * p->orow) > p->limit)
    return "output rows";
  return NULL;
}

static clg_status split_oom(const char *what, size_t bytes) {
  return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                   "allocating %zu bytes for %s of EmbeddingBag on packed "
                   "tables",
                   bytes, what);
}

/* The error for what cannot be split: the first host operand over the
 * limit, its size, the limit, and why. */
static clg_status split_too_large(const split_work *p,
                                  const clg_tensor_facts *inf,
                                  const clg_tensor_facts *of, const char *why) {
  static const char *const names[5] = {"weight", "indices", "bags",
                                       "per_sample_weights", "output"};
  int big = 0;
  for (int k = 0; k < 5; ++k) {
    const clg_tensor *t = k < 4 ? p->in[k] : p->output;
    if (split_host_over(t, k < 4 ? inf[k].bytes : of->bytes, p->limit)) {
      big = k;
      break;
    }
  }
  char size[64], lim[64];
  clg__size_text(size, sizeof size, big < 4 ? inf[big].bytes : of->bytes);
  clg__size_text(lim, sizeof lim, p->limit);
  const char *name = big == 2 && p->g->p.form == CLG_BAGS_SEGMENT_IDS
                         ? "segment_ids"
                     : big == 2 ? "offsets"
                                : names[big];
  return clg__fail(CLG_ERROR_OPENCL,
                   "EmbeddingBag's host %s is %s, larger than the device's "
                   "largest buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE = %s), and "
                   "%s",
                   name, size, lim, why);
}

static clg_status split_add_group(split_work *p, int64_t b0, int64_t b1,
                                  int64_t e0, int64_t e1, size_t list) {
  if (p->ngroups == p->gcap) {
    size_t cap = p->gcap ? 2 * p->gcap : 16;
    split_group *grown = CLG_MALLOC(cap * sizeof *grown);
    if (!grown)
      return split_oom("the groups of bags", cap * sizeof *grown);
    if (p->ngroups)
      memcpy(grown, p->groups, p->ngroups * sizeof *grown);
    free(p->groups);
    p->groups = grown;
    p->gcap = cap;
  }
  int64_t d = (int64_t)(p->nrows - list);
  p->groups[p->ngroups++] = (split_group){b0, b1, e0, e1, list, d};
  if (p->pad + d > p->max_table)
    p->max_table = p->pad + d;
  size_t nbags = split_bags_len(p, b1 - b0, e1 - e0);
  if (nbags > p->max_bags)
    p->max_bags = nbags;
  return CLG_SUCCESS;
}

/* Step 2: the groups, the indices renumbered, each group's rows listed;
 * the table emptied after each group. */
static clg_status split_plan_groups(split_work *p, const clg_tensor_facts *inf,
                                    const clg_tensor_facts *of) {
  const clg_bag_geom *g = p->g;
  int64_t pad_idx = g->p.padding_idx; /* -1: none */
  int64_t b0 = 0, e0 = 0; /* every form's first bag starts at entry 0 */
  size_t list = 0;
  for (int64_t b = 0; b < g->num_bags;) {
    int64_t s, e;
    split_entries(p, b, &s, &e);
    size_t before = p->nrows;
    bool full = false;
    for (int64_t i = s; i < e && !full; ++i) {
      int64_t v = clg__index_at(p->x, p->isize, (size_t)i);
      int64_t t = v == pad_idx ? 0 : split_row_of(p, list, v);
      full = t < 0;
      split_put(p->renum, p->isize, i, t);
    }
    uint64_t bytes = 0;
    const char *what =
        full ? NULL : split_misfit(p, b + 1 - b0, e - e0, &bytes);
    if (!full && !what) {
      ++b;
      continue;
    }
    char why[320], size[64], row[64];
    if (b == b0) { /* bag b alone does not fit */
      clg__size_text(row, sizeof row, p->row);
      if (full)
        snprintf(why, sizeof why,
                 "bag %" PRId64 " alone references more distinct rows of "
                 "weight than that buffer holds (%" PRId64 " rows of %s%s): "
                 "a bag cannot be split",
                 b, p->cap_rows, row,
                 p->pad ? ", the padding row one of them" : "");
      else {
        clg__size_text(size, sizeof size, bytes);
        snprintf(why, sizeof why,
                 "bag %" PRId64 "'s %s alone are %s, larger than that "
                 "buffer: a bag cannot be split",
                 b, what, size);
      }
      return split_too_large(p, inf, of, why);
    }
    /* Bags [b0, b) make a group; bag b starts the next. */
    split_forget(p, list);
    p->nrows = before;
    clg_status st = split_add_group(p, b0, b, e0, s, list);
    if (st != CLG_SUCCESS)
      return st;
    list = before;
    b0 = b;
    e0 = s;
  }
  if (g->num_bags > b0) {
    int64_t s, e;
    split_entries(p, g->num_bags - 1, &s, &e);
    split_forget(p, list);
    return split_add_group(p, b0, g->num_bags, e0, e, list);
  }
  return CLG_SUCCESS;
}

/* t's storage advanced by `bytes`, with a new rank-`rank` shape. */
static clg_tensor split_view(const clg_tensor *t, size_t bytes, int32_t rank,
                             int64_t d0, int64_t d1) {
  clg_tensor v = *t;
  v.rank = rank;
  v.shape[0] = d0;
  v.shape[1] = d1;
  if (v.storage == CLG_STORAGE_BUFFER)
    v.offset += bytes;
  else
    v.host = (unsigned char *)v.host + bytes;
  return v;
}

/* Step 3: one group's table and bags, and its call. */
static clg_status split_run_group(const split_work *p, const split_group *gr,
                                  unsigned char *table, void *bags,
                                  cl_command_queue queue) {
  const clg_bag_geom *g = p->g;
  const unsigned char *w = p->in[SPLIT_W]->host;
  if (p->pad)
    memcpy(table, w + (size_t)g->p.padding_idx * p->row, p->row);
  for (int64_t k = 0; k < gr->d; ++k)
    memcpy(table + (size_t)(p->pad + k) * p->row,
           w + (size_t)p->rows[gr->list + (size_t)k] * p->row, p->row);
  int64_t nb = gr->b1 - gr->b0, ne = gr->e1 - gr->e0;
  if (g->p.form == CLG_BAGS_OFFSETS) {
    for (int64_t k = 0; k < nb; ++k) {
      int64_t s, e;
      split_entries(p, gr->b0 + k, &s, &e);
      split_put(bags, 8, k, s - gr->e0);
    }
    split_put(bags, 8, nb, ne);
  } else if (g->p.form == CLG_BAGS_SEGMENT_IDS) {
    for (int64_t i = 0; i < ne; ++i)
      split_put(bags, 8, i,
                clg__index_at(p->b, p->bsize, (size_t)(gr->e0 + i)) - gr->b0);
  }
  clg_bag_params sp = g->p; /* the weight's format kept */
  if (g->p.form == CLG_BAGS_OFFSETS)
    sp.flags |= CLG_BAG_INCLUDE_LAST_OFFSET;
  sp.padding_idx = 0; /* the table's row 0 (ignored without the flag) */
  bool fixed = g->p.form == CLG_BAGS_FIXED;
  int64_t ws[2] = {p->pad + gr->d, g->wcols};
  int64_t is[2] = {fixed ? nb : ne, g->fixed};
  int64_t bs[1] = {(int64_t)split_bags_len(p, nb, ne)};
  clg_tensor wt = clg_tensor_host(g->wdtype, 2, ws, table);
  clg_tensor xt =
      clg_tensor_host(p->in[SPLIT_X]->dtype, fixed ? 2 : 1, is,
                      (unsigned char *)p->renum + (size_t)gr->e0 * p->isize);
  clg_tensor bt =
      fixed ? (clg_tensor){0} : clg_tensor_host(CLG_DTYPE_INT64, 1, bs, bags);
  clg_tensor pt = {0}, ot = split_view(p->output, (size_t)gr->b0 * p->orow, 2,
                                       nb, g->dim);
  if (p->in[SPLIT_S])
    pt = split_view(p->in[SPLIT_S], (size_t)gr->e0 * p->esize, fixed ? 2 : 1,
                    is[0], is[1]);
  atomic_fetch_add(&p->ctx->bag_split_groups, 1u);
  return p->run(p->ctx, &sp, &wt, &xt, fixed ? NULL : &bt,
                p->in[SPLIT_S] ? &pt : NULL, &ot, queue, 0, NULL, NULL);
}

/* The values of an int operand on the host: its memory, or a copy read
 * back (blocking, after the wait list) into *copy. */
static clg_status split_values(const clg_tensor *t, size_t bytes,
                               const char *name, cl_command_queue queue,
                               cl_uint num_events, const cl_event *wait_list,
                               const void **values, void **copy) {
  *values = NULL;
  *copy = NULL;
  if (!t || bytes == 0)
    return CLG_SUCCESS;
  if (t->storage == CLG_STORAGE_HOST) {
    *values = t->host;
    return CLG_SUCCESS;
  }
  if (!(*copy = CLG_MALLOC(bytes)))
    return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                     "allocating %zu bytes to check %s", bytes, name);
  *values = *copy;
  return clg__read_buffer(queue, t, bytes, *copy, num_events, wait_list,
                          false, name);
}

static size_t split_pow2_at_least(size_t v) {
  size_t p = 1;
  while (p < v)
    p *= 2;
  return p;
}

/* Steps 2 and 3, the values checked. */
static clg_status split_groups(split_work *p, const clg_tensor_facts *inf,
                               const clg_tensor_facts *of,
                               cl_command_queue queue) {
  const clg_bag_geom *g = p->g;
  if ((cl_ulong)p->row > p->limit) {
    char why[192], row[64];
    clg__size_text(row, sizeof row, p->row);
    snprintf(why, sizeof why,
             "one of weight's rows (%s) is larger than that buffer: it "
             "cannot be split",
             row);
    return split_too_large(p, inf, of, why);
  }
  uint64_t cap = p->limit / p->row, most = (uint64_t)p->pad + (uint64_t)g->n;
  if (p->isize == 4 && cap > INT32_MAX)
    cap = INT32_MAX; /* renumbered into int32 indices */
  p->cap_rows = (int64_t)(cap < most ? cap : most);
  /* Slots for the most rows a table takes (pad + rows <= cap_rows). */
  uint64_t in_table = (uint64_t)(p->cap_rows < g->rows ? p->cap_rows : g->rows);
  size_t nslots = split_pow2_at_least((size_t)in_table * 2 + 2);
  size_t nx = (size_t)g->n;
  p->mask = nslots - 1;
  if (!(p->slots = CLG_MALLOC(nslots * sizeof *p->slots)))
    return split_oom("a table of rows", nslots * sizeof *p->slots);
  memset(p->slots, 0xFF, nslots * sizeof *p->slots);
  if (!(p->rows = CLG_MALLOC((nx ? nx : 1) * sizeof *p->rows)))
    return split_oom("the rows of each group", nx * sizeof *p->rows);
  if (!(p->renum = CLG_MALLOC(nx ? nx * p->isize : 1)))
    return split_oom("the renumbered indices", nx * p->isize);
  clg_status st = split_plan_groups(p, inf, of);
  if (st != CLG_SUCCESS)
    return st;
  size_t tbytes = (size_t)p->max_table * p->row;
  size_t bbytes = p->max_bags * 8u;
  unsigned char *table = CLG_MALLOC(tbytes ? tbytes : 1);
  void *bags = CLG_MALLOC(bbytes ? bbytes : 1);
  if (!table || !bags)
    st = split_oom(table ? "the rebased bags" : "a packed table",
                   table ? bbytes : tbytes);
  for (size_t k = 0; k < p->ngroups && st == CLG_SUCCESS; ++k)
    st = split_run_group(p, &p->groups[k], table, bags, queue);
  free(table);
  free(bags);
  return st;
}

clg_status clg__bag_run_split(clg_context *ctx, const clg_bag_geom *g,
                              const clg_tensor *const *in,
                              const clg_tensor_facts *inf,
                              const clg_tensor *output,
                              const clg_tensor_facts *of,
                              cl_command_queue queue, cl_uint num_events,
                              const cl_event *wait_list, cl_event *event,
                              clg_outcome **outcome, clg_bag_call_fn run) {
  bool segments = g->p.form == CLG_BAGS_SEGMENT_IDS;
  const char *bname = segments ? "segment_ids" : "offsets";
  split_work p = {
      .ctx = ctx,
      .run = run,
      .g = g,
      .in = in,
      .output = output,
      .limit = ctx->max_alloc,
      .row = (size_t)g->wcols * clg_dtype_size(g->wdtype),
      .orow = (size_t)g->dim * clg_dtype_size(g->dtype),
      .isize = inf[SPLIT_X].elem_size,
      .bsize = in[SPLIT_B] ? inf[SPLIT_B].elem_size : 0,
      .esize = clg_dtype_size(g->dtype),
      .pad = g->p.padding_idx >= 0 ? 1 : 0,
  };
  atomic_fetch_add(&ctx->bag_splits, 1u);
  /* Step 1: the values, as the host's path checks them. */
  void *xcopy = NULL, *bcopy = NULL;
  int64_t *starts = NULL;
  clg_status st = CLG_SUCCESS;
  if (segments && of->bytes &&
      !(starts = CLG_MALLOC((size_t)(g->num_bags + 1) * sizeof *starts)))
    st = clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                   "allocating EmbeddingBag's %" PRId64 " segment starts",
                   g->num_bags + 1);
  if (st == CLG_SUCCESS)
    st = split_values(in[SPLIT_B], inf[SPLIT_B].bytes, bname, queue, num_events,
                      wait_list, &p.b, &bcopy);
  if (st == CLG_SUCCESS)
    st = split_values(in[SPLIT_X], inf[SPLIT_X].bytes, "indices", queue,
                      num_events, wait_list, &p.x, &xcopy);
  clg_bag_fault f;
  if (st == CLG_SUCCESS &&
      clg__bag_find_fault(g, p.x, p.isize, p.b, p.bsize, starts, &f))
    st = clg__bag_report(g, &f);
  p.starts = starts;
  /* Steps 2 and 3, after the wait list (the groups' calls have none). */
  if (st == CLG_SUCCESS && of->bytes && num_events) {
    cl_int err = clWaitForEvents(num_events, wait_list);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clWaitForEvents", "waiting for the wait list");
  }
  if (st == CLG_SUCCESS && of->bytes)
    st = split_groups(&p, inf, of, queue);
  cl_event mark = NULL;
  if (st == CLG_SUCCESS && event) {
    cl_int err =
        clEnqueueMarkerWithWaitList(queue, num_events, wait_list, &mark);
    if (err != CL_SUCCESS)
      st = clg__fail_cl(err, "clEnqueueMarkerWithWaitList",
                        "completing an EmbeddingBag on packed tables");
  }
  if (st == CLG_SUCCESS && outcome)
    st = clg__outcome_decided(outcome);
  if (st == CLG_SUCCESS && event)
    *event = mark;
  else if (mark)
    clReleaseEvent(mark);
  free(p.slots);
  free(p.rows);
  free(p.renum);
  free(p.groups);
  free(xcopy);
  free(bcopy);
  free(starts);
  return st;
}
