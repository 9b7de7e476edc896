/* clgather_mpi's distributed scatter (clg_mpi_scatter, clg_mpi_plan_scatter):
 * each rank's (index, update row) entries go to the rows' owners, which
 * apply them in the global order of the entries (rank 0's first, each
 * rank's in its order) with the core library's ScatterND. Fresh indices
 * are checked, bucketed by owner and sent as the owners' local ids; a
 * scatter reusing the plan's last gather sends only, per distinct id, how
 * many entries it has, and the update rows grouped by id. */
#include "mpi_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* One received entry: its local row, its sender and its sender's position:
 * (src, pos) is its place in the global order. */
typedef struct clg_entry {
  int64_t id, src, pos;
} clg_entry;

static int clg_by_entry(const void *a, const void *b) {
  const clg_entry *x = a, *y = b;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  if (x->src != y->src)
    return x->src < y->src ? -1 : 1;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/* A repeated row: the earliest entry (global order) that is a row's second,
 * and that row's first, as (rank, position); none: later_rank INT64_MAX. */
typedef struct clg_repeat {
  int64_t later_rank, later_pos, first_rank, first_pos, row;
} clg_repeat;

static bool clg_before(const clg_repeat *a, const clg_repeat *b) {
  return a->later_rank < b->later_rank ||
         (a->later_rank == b->later_rank && a->later_pos < b->later_pos);
}

/* Reduction none, duplicates an error: any row targeted twice anywhere is
 * every rank's CLG_ERROR_DUPLICATE_INDEX. Collective. */
static clg_status clg_find_repeat(clg_mpi_plan *p, const int64_t *rid,
                                  const int64_t *rpos,
                                  const clg_mpi_counts *c) {
  const clg_mpi_geometry *g = &p->g;
  size_t m = c->recv_total;
  clg_repeat mine = {INT64_MAX, 0, 0, 0, 0};
  clg_entry *e = malloc((m ? m : 1) * sizeof *e);
  if (e) {
    for (int r = 0; r < g->size; ++r)
      for (int k = 0; k < c->recv[r]; ++k) {
        size_t i = (size_t)c->rdispl[r] + (size_t)k;
        e[i] = (clg_entry){rid[i], r, rpos[i]};
      }
    qsort(e, m, sizeof *e, clg_by_entry);
    /* Runs of one row in the global order: a run's second entry is its
     * earliest repeat, its first the entry repeated. */
    for (size_t i = 1; i < m; ++i)
      if (e[i].id == e[i - 1].id && (i == 1 || e[i - 2].id != e[i].id)) {
        clg_repeat r = {e[i].src, e[i].pos, e[i - 1].src, e[i - 1].pos,
                        e[i].id + p->table.lo};
        if (clg_before(&r, &mine))
          mine = r;
      }
  }
  free(e);
  clg_status st = e ? CLG_SUCCESS
                    : clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                                    "out of host memory checking repeats");
  clg_repeat *all = st == CLG_SUCCESS
                        ? malloc((size_t)g->size * sizeof *all)
                        : NULL;
  if (st == CLG_SUCCESS && !all)
    st = clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                       "out of host memory checking repeats");
  if ((st = clg__mpi_agree(p->table.comm, g->rank, st)) != CLG_SUCCESS) {
    free(all);
    return st;
  }
  int err = MPI_Allgather(&mine, 5, MPI_INT64_T, all, 5, MPI_INT64_T,
                          p->table.comm);
  if (err != MPI_SUCCESS) {
    free(all);
    return clg__mpi_error(err, "MPI_Allgather");
  }
  clg_repeat best = {INT64_MAX, 0, 0, 0, 0};
  for (int r = 0; r < g->size; ++r)
    if (clg_before(&all[r], &best))
      best = all[r];
  free(all);
  if (best.later_rank == INT64_MAX)
    return CLG_SUCCESS;
  return clg__mpi_fail(CLG_ERROR_DUPLICATE_INDEX,
                       "duplicate index: rank %" PRId64 "'s indices[%" PRId64
                       "] and rank %" PRId64 "'s indices[%" PRId64
                       "] both target row %" PRId64
                       ", and reduction none with duplicates an error "
                       "allows one update per row",
                       best.first_rank, best.first_pos, best.later_rank,
                       best.later_pos, best.row);
}

/* Fresh indices: checked, bucketed by owner (stable: each owner gets the
 * entries in their order), counts and local ids exchanged. On success
 * p->sc holds the entry counts, *rid the m local ids received in the
 * global order, and supd/spos the rows and positions bucketed. */
static clg_status clg_route_fresh(clg_mpi_plan *p, const clg_tensor *indices,
                                  const clg_tensor *updates, size_t n,
                                  unsigned char *supd, int64_t *spos,
                                  int64_t **rid) {
  const clg_mpi_geometry *g = &p->g;
  MPI_Comm comm = p->table.comm;
  clg_mpi_counts *c = &p->sc;
  size_t rb = g->row_bytes;
  /* The workspace, the bounds, the bucketing: this rank's own work, one
   * agreement after it. */
  int64_t *norm = clg__mpi_ws(p, CLG_MPI_NORM, n * sizeof *norm);
  int64_t *sid = norm ? clg__mpi_ws(p, CLG_MPI_SID, n * sizeof *sid) : NULL;
  clg_status st = sid ? CLG_SUCCESS : CLG_ERROR_OUT_OF_HOST_MEMORY;
  if (st == CLG_SUCCESS)
    st = clg__mpi_bounds_local(&p->table, g, indices, n, norm);
  if (st == CLG_SUCCESS)
    memset(c->send, 0, (size_t)g->size * sizeof *c->send);
  for (size_t i = 0; i < n && st == CLG_SUCCESS; ++i)
    st = clg__mpi_count(&c->send[clg__mpi_owner(g, norm[i])]);
  if (st == CLG_SUCCESS) {
    int *next = c->rdispl; /* scratch until the counts are exchanged */
    for (int r = 0, at = 0; r < g->size; ++r) {
      next[r] = at;
      at += c->send[r];
    }
    for (size_t i = 0; i < n; ++i) {
      int o = clg__mpi_owner(g, norm[i]);
      size_t at = (size_t)next[o]++;
      sid[at] = norm[i] - g->bound[o];
      spos[at] = (int64_t)i;
      memcpy(supd + at * rb, (const unsigned char *)updates->host + i * rb,
             rb);
    }
  }
  if ((st = clg__mpi_agree(comm, g->rank, st)) != CLG_SUCCESS)
    return st;
  st = clg__mpi_counts_exchange(comm, c, g->size);
  if (st == CLG_SUCCESS) {
    *rid = clg__mpi_ws(p, CLG_MPI_RID, c->recv_total * sizeof **rid);
    st = *rid ? CLG_SUCCESS : CLG_ERROR_OUT_OF_HOST_MEMORY;
  }
  if ((st = clg__mpi_agree(comm, g->rank, st)) == CLG_SUCCESS)
    st = clg__mpi_alltoallv(comm, sid, *rid, c, MPI_INT64_T, true);
  return st;
}

/* The sum of n ints as an MPI count. */
static clg_status clg_sum(const int *v, int n, int *out) {
  size_t s = 0;
  for (int i = 0; i < n; ++i)
    s += (size_t)v[i];
  if (s > INT_MAX)
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "%zu entries for one rank exceed MPI's int counts",
                         s);
  *out = (int)s;
  return CLG_SUCCESS;
}

/* The plan's last gather reused: its distinct ids went to the owners
 * already (the owners kept them), so each rank sends per distinct id the
 * number of its entries, then the rows grouped by id (each id's in their
 * order): the owner repeats each kept id that many times. Same result:
 * only the order of entries on one row matters, and it is the global one. */
static clg_status clg_route_reuse(clg_mpi_plan *p, const clg_tensor *updates,
                                  unsigned char *supd, int64_t *spos,
                                  int64_t **rid) {
  const clg_mpi_geometry *g = &p->g;
  MPI_Comm comm = p->table.comm;
  const clg_mpi_counts *gc = &p->gc;
  clg_mpi_counts *c = &p->sc;
  size_t rb = g->row_bytes, n = p->n;
  const clg_id_pos *pairs = p->buf[CLG_MPI_PAIRS].p;
  const int64_t *req = p->buf[CLG_MPI_REQ].p;
  int *smult = clg__mpi_ws(p, CLG_MPI_SMULT, p->u * sizeof *smult);
  int *rmult = smult ? clg__mpi_ws(p, CLG_MPI_RMULT,
                                   gc->recv_total * sizeof *rmult)
                     : NULL;
  clg_status st = rmult ? CLG_SUCCESS : CLG_ERROR_OUT_OF_HOST_MEMORY;
  if (st == CLG_SUCCESS) {
    size_t k = 0;
    for (size_t j = 0; j < n && st == CLG_SUCCESS; ++j) {
      if (j > 0 && pairs[j].id != pairs[j - 1].id)
        ++k;
      if (j == 0 || pairs[j].id != pairs[j - 1].id)
        smult[k] = 0;
      st = clg__mpi_count(&smult[k]);
      spos[j] = pairs[j].pos;
      memcpy(supd + j * rb,
             (const unsigned char *)updates->host + (size_t)pairs[j].pos * rb,
             rb);
    }
    for (int o = 0; o < g->size && st == CLG_SUCCESS; ++o)
      st = clg_sum(smult + gc->sdispl[o], gc->send[o], &c->send[o]);
  }
  if ((st = clg__mpi_agree(comm, g->rank, st)) == CLG_SUCCESS) {
    int err = MPI_Alltoallv(smult, gc->send, gc->sdispl, MPI_INT, rmult,
                            gc->recv, gc->rdispl, MPI_INT, comm);
    if (err != MPI_SUCCESS)
      st = clg__mpi_error(err, "MPI_Alltoallv");
  }
  for (int r = 0; r < g->size && st == CLG_SUCCESS; ++r)
    st = clg_sum(rmult + gc->rdispl[r], gc->recv[r], &c->recv[r]);
  if (st == CLG_SUCCESS)
    st = clg__mpi_counts_displace(c, g->size);
  *rid = st == CLG_SUCCESS
             ? clg__mpi_ws(p, CLG_MPI_RID, c->recv_total * sizeof **rid)
             : NULL;
  if (st == CLG_SUCCESS && !*rid)
    st = CLG_ERROR_OUT_OF_HOST_MEMORY;
  if (st == CLG_SUCCESS)
    for (size_t k = 0, at = 0; k < gc->recv_total; ++k)
      for (int x = 0; x < rmult[k]; ++x)
        (*rid)[at++] = req[k];
  return clg__mpi_agree(comm, g->rank, st);
}

/* The m received entries applied to this rank's shard in place, in order:
 * ids and rows staged (mapped) or host memory. Blocking. */
static clg_status clg_apply(clg_mpi_plan *p, const int64_t *rid, size_t m,
                            const clg_scatter_params *sc) {
  const clg_mpi_table *t = &p->table;
  if (m == 0)
    return CLG_SUCCESS;
  int64_t ishape[2] = {(int64_t)m, 1}, ushape[CLG_MAX_RANK];
  ushape[0] = (int64_t)m;
  for (int32_t i = 1; i < t->shard.rank; ++i)
    ushape[i] = t->shard.shape[i];
  clg_params params = {.op = CLG_OP_SCATTER_ND};
  clg_tensor x, u;
  if (p->mapped) {
    clg_status st = clg__mpi_stage_ids(p, rid, m);
    if (st != CLG_SUCCESS)
      return st;
    x = clg_tensor_buffer(CLG_DTYPE_INT64, 2, ishape, p->st_ids, 0);
    u = clg_tensor_buffer(t->shard.dtype, t->shard.rank, ushape, p->st_rows,
                          0);
  } else {
    x = clg_tensor_host(CLG_DTYPE_INT64, 2, ishape, (void *)rid);
    u = clg_tensor_host(t->shard.dtype, t->shard.rank, ushape,
                        p->buf[CLG_MPI_RUPD].p);
  }
  cl_event done = NULL;
  clg_status st = clg__mpi_local(clg_scatter(t->ctx, &params, sc, &t->shard,
                                             &x, &u, &t->shard, p->queue, 0,
                                             NULL, &done),
                                 p->g.rank, "local scatter");
  if (st == CLG_SUCCESS && done) {
    cl_int err = clWaitForEvents(1, &done);
    clReleaseEvent(done);
    if (err != CL_SUCCESS)
      st = clg__mpi_fail(CLG_ERROR_OPENCL,
                         "rank %d's local scatter failed (OpenCL error %d)",
                         p->g.rank, (int)err);
  }
  return st;
}

/* What the core library's ScatterND would refuse on this rank's shard
 * once the entries are there, checked (and agreed) before any rank writes
 * its shard: a reduction undefined on the element type, one needing
 * doubles the device lacks, a cl_mem shard whose offset is not a multiple
 * of the unit the reduction reads and writes. */
static clg_status clg_check_reduction(const clg_mpi_table *t, int rank,
                                      const clg_scatter_params *sc) {
  static const char *const names[] = {"none", "add", "mul", "min", "max"};
  clg_dtype dt = t->shard.dtype;
  if (sc->reduction == CLG_REDUCTION_NONE)
    return CLG_SUCCESS; /* moves bytes: any type, any offset */
  bool complex = dt == CLG_DTYPE_COMPLEX64 || dt == CLG_DTYPE_COMPLEX128;
  bool minmax = sc->reduction == CLG_REDUCTION_MIN ||
                sc->reduction == CLG_REDUCTION_MAX;
  bool numeric = complex || dt == CLG_DTYPE_FLOAT || dt == CLG_DTYPE_DOUBLE ||
                 dt == CLG_DTYPE_FLOAT16 || dt == CLG_DTYPE_BFLOAT16 ||
                 dt == CLG_DTYPE_INT8 || dt == CLG_DTYPE_UINT8 ||
                 dt == CLG_DTYPE_INT16 || dt == CLG_DTYPE_UINT16 ||
                 dt == CLG_DTYPE_INT32 || dt == CLG_DTYPE_UINT32 ||
                 dt == CLG_DTYPE_INT64 || dt == CLG_DTYPE_UINT64 ||
                 dt == CLG_DTYPE_BOOL;
  if (!numeric || (complex && minmax))
    return clg__mpi_fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                         "reduction %s is not defined on element type %s",
                         names[sc->reduction], clg_dtype_name(dt));
  if (dt == CLG_DTYPE_DOUBLE || dt == CLG_DTYPE_COMPLEX128) {
    char ext[4096] = {0};
    if (clGetDeviceInfo(clg_context_device(t->ctx), CL_DEVICE_EXTENSIONS,
                        sizeof ext - 1, ext, NULL) != CL_SUCCESS ||
        !strstr(ext, "cl_khr_fp64"))
      return clg__mpi_fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                           "reduction %s on %s needs double precision, which "
                           "rank %d's device lacks (no cl_khr_fp64)",
                           names[sc->reduction], clg_dtype_name(dt), rank);
  }
  size_t unit = dt == CLG_DTYPE_COMPLEX64    ? 4
                : dt == CLG_DTYPE_COMPLEX128 ? 8
                                             : clg_dtype_size(dt);
  if (t->shard.storage == CLG_STORAGE_BUFFER && t->shard.offset % unit != 0)
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "rank %d's table->shard.offset %zu is not a multiple "
                         "of %zu bytes (the %s element%s), as reduction %s "
                         "needs",
                         rank, t->shard.offset, unit, clg_dtype_name(dt),
                         complex ? "'s component" : "", names[sc->reduction]);
  return CLG_SUCCESS;
}

clg_status clg_mpi_plan_scatter(clg_mpi_plan *plan, const clg_tensor *indices,
                                const clg_tensor *updates,
                                const clg_scatter_params *scatter) {
  clg__mpi_clear();
  if (!plan)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "plan is NULL");
  clg_mpi_plan *p = plan;
  const clg_mpi_table *t = &p->table;
  const clg_mpi_geometry *g = &p->g;
  MPI_Comm comm = t->comm;
  clg_scatter_params sc = scatter ? *scatter : (clg_scatter_params){0};
  bool reuse = indices == NULL;
  clg_status st = CLG_SUCCESS;
  if (!reuse) {
    st = clg__mpi_check_indices(indices);
    if (st == CLG_SUCCESS && !(indices->rank == 1 || (indices->rank == 2 &&
                                                      indices->shape[1] == 1)))
      st = clg__mpi_fail(CLG_ERROR_INVALID_RANK,
                         "indices must have shape [N] or [N, 1] (row ids)");
    if (st == CLG_SUCCESS)
      st = clg__mpi_check_rows_tensor(t, updates, "updates", 1,
                                      indices->shape);
  } else if (!p->have_index) {
    st = clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                       "indices is NULL, but no gather through this plan "
                       "succeeded since the last one failed or the plan was "
                       "created: there is no index to reuse");
  } else {
    st = clg__mpi_check_rows_tensor(t, updates, "updates", p->index_rank,
                                    p->index_shape);
  }
  if (st == CLG_SUCCESS && ((unsigned)sc.reduction > CLG_REDUCTION_MAX ||
                            (unsigned)sc.duplicates > CLG_DUPLICATES_LAST))
    st = clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                       "unknown reduction or duplicates rule");
  if (st == CLG_SUCCESS)
    st = clg_check_reduction(t, g->rank, &sc);
  /* Entries are bucketed with int counts (MPI's). */
  size_t n = 0, rb = g->row_bytes;
  if (st == CLG_SUCCESS)
    n = reuse ? p->n : (size_t)indices->shape[0];
  if (n > INT_MAX)
    st = clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                       "%zu entries on one rank exceed MPI's int counts (at "
                       "most %d)",
                       n, INT_MAX);
  if ((st = clg__mpi_agree(comm, g->rank, st)) == CLG_SUCCESS) {
    /* Every rank runs the same collectives and applies the same rule. */
    int64_t w[3] = {(int64_t)sc.reduction, (int64_t)sc.duplicates, reuse};
    st = clg__mpi_same_options(comm, g, w, 3,
                               "scatter options (reduction, duplicates, "
                               "indices reused)");
  }
  if (st != CLG_SUCCESS)
    return st;
  bool want_pos = sc.reduction == CLG_REDUCTION_NONE &&
                  sc.duplicates == CLG_DUPLICATES_ERROR;
  unsigned char *supd = clg__mpi_ws(p, CLG_MPI_SUPD, n * rb);
  int64_t *spos = supd ? clg__mpi_ws(p, CLG_MPI_SPOS, n * sizeof *spos) : NULL;
  st = clg__mpi_agree(comm, g->rank,
                      spos ? CLG_SUCCESS : CLG_ERROR_OUT_OF_HOST_MEMORY);
  int64_t *rid = NULL;
  if (st == CLG_SUCCESS)
    st = reuse ? clg_route_reuse(p, updates, supd, spos, &rid)
               : clg_route_fresh(p, indices, updates, n, supd, spos, &rid);
  const clg_mpi_counts *c = &p->sc;
  size_t m = c->recv_total;
  if (st == CLG_SUCCESS && want_pos) {
    int64_t *rpos = clg__mpi_ws(p, CLG_MPI_RPOS, m * sizeof *rpos);
    st = clg__mpi_agree(comm, g->rank,
                        rpos ? CLG_SUCCESS : CLG_ERROR_OUT_OF_HOST_MEMORY);
    if (st == CLG_SUCCESS)
      st = clg__mpi_alltoallv(comm, spos, rpos, c, MPI_INT64_T, true);
    if (st == CLG_SUCCESS)
      st = clg_find_repeat(p, rid, rpos, c);
  }
  if (st != CLG_SUCCESS)
    return st;
  /* The update rows, received straight into the mapped staging buffer or
   * into host memory. */
  void *rupd = NULL;
  bool mapped = false;
  if (p->mapped) {
    st = clg__mpi_stage_reserve(p, m * sizeof *rid, m * rb);
    if (st == CLG_SUCCESS && !p->overlap)
      st = clg__mpi_map(p, p->st_rows, true, m * rb, NULL, &rupd);
    mapped = st == CLG_SUCCESS && !p->overlap;
  } else {
    rupd = clg__mpi_ws(p, CLG_MPI_RUPD, m * rb);
    st = rupd ? CLG_SUCCESS : CLG_ERROR_OUT_OF_HOST_MEMORY;
  }
  /* Overlapped, each source's rows are received into their own mapped
   * segment and unmapped as soon as they are in. */
  if ((st = clg__mpi_agree(comm, g->rank, st)) == CLG_SUCCESS && rb)
    st = p->overlap ? clg__mpi_rows_in_overlapped(p, c, supd, rupd)
                    : clg__mpi_alltoallv(comm, supd, rupd, c, g->row_type,
                                         true);
  if (mapped) {
    clg_status un = clg__mpi_unmap(p, p->st_rows, rupd);
    st = st != CLG_SUCCESS ? st : un;
  }
  /* Nothing written yet: the local apply is the first write. */
  if ((st = clg__mpi_agree(comm, g->rank, st)) == CLG_SUCCESS)
    st = clg_apply(p, rid, m, &sc);
  return clg__mpi_agree(comm, g->rank, st);
}

clg_status clg_mpi_scatter(const clg_mpi_table *table, const clg_tensor *indices,
                           const clg_tensor *updates,
                           const clg_scatter_params *scatter) {
  clg_mpi_plan *p = NULL;
  clg_status st = clg_mpi_plan_create(table, &p);
  /* Without a plan there is no gather's index to reuse: NULL indices are
   * an error, agreed as the first step of clg_mpi_plan_scatter() is. */
  if (st == CLG_SUCCESS && !indices)
    st = clg__mpi_agree(table->comm, p->g.rank,
                        clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT,
                                      "indices is NULL"));
  else if (st == CLG_SUCCESS)
    st = clg_mpi_plan_scatter(p, indices, updates, scatter);
  clg_mpi_plan_destroy(p);
  return st;
}
