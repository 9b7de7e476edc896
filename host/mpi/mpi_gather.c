/* clgather_mpi's distributed gather (clg_mpi_gather, clg_mpi_plan_gather):
 * check every id collectively, deduplicate and bucket by owner, exchange
 * counts and ids, gather the requested rows on each owner's device,
 * exchange the rows back, place them in indices' order. */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

/* The rows requested of this rank (`m` local ids in req) gathered on its
 * device. Host staging: into a host buffer (*rows). Mapped staging: the
 * ids staged, the kernel writing the rows' staging buffer; *done its event
 * (the caller maps the rows after it, then releases it). */
static clg_status clg_serve(clg_mpi_plan *p, const int64_t *req, size_t m,
                            unsigned char **rows, cl_event *done) {
  const clg_mpi_table *t = &p->table;
  size_t rb = p->g.row_bytes;
  *done = NULL;
  *rows = clg__mpi_ws(p, CLG_MPI_ROWS_OUT, p->mapped ? 1 : m * rb);
  if (!*rows)
    return CLG_ERROR_OUT_OF_HOST_MEMORY;
  if (m == 0)
    return CLG_SUCCESS;
  int64_t ishape[1] = {(int64_t)m}, oshape[CLG_MAX_RANK];
  oshape[0] = (int64_t)m;
  for (int32_t i = 1; i < t->shard.rank; ++i)
    oshape[i] = t->shard.shape[i];
  if (!p->mapped) {
    clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, (void *)req);
    clg_tensor o = clg_tensor_host(t->shard.dtype, t->shard.rank, oshape, *rows);
    return clg__mpi_local(clg_gather(t->ctx, &t->shard, &x, 0, &o, p->queue,
                                     0, NULL, NULL),
                          p->g.rank, "local gather");
  }
  clg_status st = clg__mpi_stage_reserve(p, m * sizeof *req, m * rb);
  if (st == CLG_SUCCESS)
    st = clg__mpi_stage_ids(p, req, m);
  if (st != CLG_SUCCESS)
    return st;
  clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT64, 1, ishape, p->st_ids, 0);
  clg_tensor o = clg_tensor_buffer(t->shard.dtype, t->shard.rank, oshape,
                                   p->st_rows, 0);
  return clg__mpi_local(clg_gather(t->ctx, &t->shard, &x, 0, &o, p->queue, 0,
                                   NULL, done),
                        p->g.rank, "local gather");
}

/* The served rows back to their requesters: one MPI_Alltoallv from the
 * host rows or from the whole staging buffer mapped (the map's success
 * agreed first: every rank must take part in the exchange), or
 * overlapped. */
static clg_status clg_rows_back(clg_mpi_plan *p, const clg_mpi_counts *c,
                                cl_event done, unsigned char *rows,
                                unsigned char *back) {
  if (p->overlap)
    return clg__mpi_rows_back_overlapped(p, c, done, rows, back);
  void *ptr = rows;
  clg_status st = CLG_SUCCESS;
  bool mapped = p->mapped && c->recv_total > 0;
  if (mapped)
    st = clg__mpi_map(p, p->st_rows, false, c->recv_total * p->g.row_bytes,
                      done, &ptr);
  mapped = mapped && st == CLG_SUCCESS;
  if ((st = clg__mpi_agree(p->table.comm, p->g.rank, st)) == CLG_SUCCESS)
    st = clg__mpi_alltoallv(p->table.comm, ptr, back, c, p->g.row_type,
                            false);
  if (mapped) {
    clg_status un = clg__mpi_unmap(p, p->st_rows, ptr);
    st = st != CLG_SUCCESS ? st : un;
  }
  return st;
}

clg_status clg_mpi_plan_gather(clg_mpi_plan *plan, const clg_tensor *indices,
                               const clg_tensor *output) {
  clg__mpi_clear();
  if (!plan)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "plan is NULL");
  clg_mpi_plan *p = plan;
  const clg_mpi_table *t = &p->table;
  const clg_mpi_geometry *g = &p->g;
  MPI_Comm comm = t->comm;
  p->have_index = false;
  /* Everything before the first exchange is this rank's own work (the
   * arguments, the workspace, the bounds, the deduplication, the counts):
   * one agreement after it, the lowest failing rank's verdict. */
  clg_status st = clg__mpi_check_indices(indices);
  if (st == CLG_SUCCESS)
    st = clg__mpi_check_rows_tensor(t, output, "output", indices->rank,
                                    indices->shape);
  size_t n = 0, u = 0, rb = g->row_bytes;
  int64_t *ids = NULL;
  clg_id_pos *pairs = NULL, *scratch = NULL;
  size_t *slot = NULL;
  if (st == CLG_SUCCESS) {
    n = clg__mpi_numel(indices, 0);
    ids = clg__mpi_ws(p, CLG_MPI_IDS, n * sizeof *ids);
    pairs = ids ? clg__mpi_ws(p, CLG_MPI_PAIRS, n * sizeof *pairs) : NULL;
    slot = pairs ? clg__mpi_ws(p, CLG_MPI_SLOT, n * sizeof *slot) : NULL;
    scratch = slot ? clg__mpi_ws(p, CLG_MPI_SORT, n * sizeof *scratch) : NULL;
    st = scratch ? CLG_SUCCESS : CLG_ERROR_OUT_OF_HOST_MEMORY;
  }
  if (st == CLG_SUCCESS)
    st = clg__mpi_bounds_local(t, g, indices, n, ids);
  /* Deduplicate: sorted by id, each distinct id once (ids[] reused for
   * them), slot[i] its place among them; sorted ids are grouped by owner. */
  clg_mpi_counts *c = &p->gc;
  if (st == CLG_SUCCESS) {
    for (size_t i = 0; i < n; ++i)
      pairs[i] = (clg_id_pos){ids[i], (int64_t)i};
    clg__mpi_sort_pairs(pairs, scratch, n, t->rows - 1);
    for (size_t i = 0; i < n; ++i) {
      if (i == 0 || pairs[i].id != pairs[i - 1].id)
        ids[u++] = pairs[i].id;
      slot[pairs[i].pos] = u - 1;
    }
    memset(c->send, 0, (size_t)g->size * sizeof *c->send);
    for (size_t i = 0; i < u && st == CLG_SUCCESS; ++i)
      st = clg__mpi_count(&c->send[clg__mpi_owner(g, ids[i])]);
  }
  if ((st = clg__mpi_agree(comm, g->rank, st)) != CLG_SUCCESS)
    return st;
  int64_t *req = NULL;
  unsigned char *back = NULL;
  st = clg__mpi_counts_exchange(comm, c, g->size);
  if (st == CLG_SUCCESS) {
    req = clg__mpi_ws(p, CLG_MPI_REQ, c->recv_total * sizeof *req);
    back = req ? clg__mpi_ws(p, CLG_MPI_ROWS_BACK, u * rb) : NULL;
    st = back ? CLG_SUCCESS : CLG_ERROR_OUT_OF_HOST_MEMORY;
  }
  if ((st = clg__mpi_agree(comm, g->rank, st)) != CLG_SUCCESS)
    return st;
  st = clg__mpi_alltoallv(comm, ids, req, c, MPI_INT64_T, true);
  unsigned char *rows = NULL;
  cl_event done = NULL;
  if (st == CLG_SUCCESS) {
    for (size_t i = 0; i < c->recv_total; ++i)
      req[i] -= t->lo;
    st = clg_serve(p, req, c->recv_total, &rows, &done);
    st = clg__mpi_agree(comm, g->rank, st);
  }
  if (st == CLG_SUCCESS && rb) {
    st = clg_rows_back(p, c, done, rows, back);
    st = clg__mpi_agree(comm, g->rank, st);
  }
  if (done) { /* the kernel is done before its buffers are used again */
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
  }
  if (st != CLG_SUCCESS)
    return st;
  for (size_t i = 0; i < n; ++i)
    memcpy((unsigned char *)output->host + i * rb, back + slot[i] * rb, rb);
  p->have_index = true;
  p->n = n;
  p->u = u;
  p->index_rank = indices->rank;
  memcpy(p->index_shape, indices->shape,
         (size_t)indices->rank * sizeof *indices->shape);
  return CLG_SUCCESS;
}

clg_status clg_mpi_gather(const clg_mpi_table *table, const clg_tensor *indices,
                          const clg_tensor *output) {
  clg_mpi_plan *p = NULL;
  clg_status st = clg_mpi_plan_create(table, &p);
  if (st == CLG_SUCCESS)
    st = clg_mpi_plan_gather(p, indices, output);
  clg_mpi_plan_destroy(p);
  return st;
}
