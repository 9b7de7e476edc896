/* clgather_mpi's overlapped row exchanges: point to point, one message per
 * peer, so that staging and communication overlap. Gather: each peer's
 * served rows are mapped on their own (non-blocking, after the gather
 * kernel) and sent as soon as they are on the host while the later ones
 * are still crossing the bus. Scatter: each peer's update rows are received
 * into their own mapped segment, unmapped (sent to the device) as soon as
 * they arrive while the later ones are still on the network. Pays where a
 * map is a real copy (a discrete device); on a device sharing host memory
 * it only adds commands, so plans take it there only when told
 * (CLGATHER_MPI_OVERLAP=1, as the tests do). Messages go over the plan's
 * own duplicate of the communicator, never matching the caller's. */
#include "mpi_internal.h"

#include <stdlib.h>

#define CLG_MPI_TAG 7

typedef struct clg_segments {
  cl_event *ev;
  void **ptr;
  MPI_Request *rq;
  int *src; /* the peer of each receive request */
} clg_segments;

static clg_status clg_segments_alloc(clg_segments *s, int size) {
  s->ev = calloc((size_t)size, sizeof *s->ev);
  s->ptr = calloc((size_t)size, sizeof *s->ptr);
  s->rq = malloc(2 * (size_t)size * sizeof *s->rq);
  s->src = malloc((size_t)size * sizeof *s->src);
  if (s->ev && s->ptr && s->rq && s->src)
    return CLG_SUCCESS;
  return clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                       "out of host memory for %d peers' messages", size);
}

/* Unmaps every mapped segment (after its map completed) and frees. */
static clg_status clg_segments_free(clg_mpi_plan *p, clg_segments *s,
                                    int size, clg_status st) {
  cl_event *un = s->ev ? calloc((size_t)size, sizeof *un) : NULL;
  int n = 0;
  for (int k = 0; s->ptr && k < size; ++k) {
    if (!s->ptr[k])
      continue;
    cl_int err = clEnqueueUnmapMemObject(p->queue, p->st_rows, s->ptr[k],
                                         s->ev[k] ? 1 : 0,
                                         s->ev[k] ? &s->ev[k] : NULL,
                                         un ? &un[n] : NULL);
    if (err == CL_SUCCESS && un)
      ++n;
    else if (err != CL_SUCCESS && st == CLG_SUCCESS)
      st = clg__mpi_fail(CLG_ERROR_OPENCL,
                         "clEnqueueUnmapMemObject failed (OpenCL error %d) "
                         "unmapping a staging segment",
                         (int)err);
  }
  if (n && clWaitForEvents((cl_uint)n, un) != CL_SUCCESS &&
      st == CLG_SUCCESS)
    st = clg__mpi_fail(CLG_ERROR_OPENCL, "unmapping a staging segment failed");
  if (!un)
    clFinish(p->queue);
  for (int k = 0; k < n; ++k)
    clReleaseEvent(un[k]);
  for (int k = 0; s->ev && k < size; ++k)
    if (s->ev[k])
      clReleaseEvent(s->ev[k]);
  free(un);
  free(s->ev);
  free(s->ptr);
  free(s->rq);
  free(s->src);
  return st;
}

/* After an MPI failure (MPI_ERRORS_RETURN on the communicator): the
 * requests already posted are cancelled and completed, so that no message
 * lands in a segment once it is unmapped or reused. */
static void clg_drain(MPI_Request *rq, int n) {
  for (int i = 0; i < n; ++i)
    if (rq[i] != MPI_REQUEST_NULL)
      MPI_Cancel(&rq[i]);
  MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
}

/* Maps (non-blocking) the rows segment [at, at + count) of the staging
 * buffer: read after `wait`, or written (invalidated). */
static clg_status clg_map_segment(clg_mpi_plan *p, clg_segments *s, int k,
                                  size_t at, size_t count, bool write,
                                  cl_event wait) {
  size_t rb = p->g.row_bytes;
  cl_int err = CL_SUCCESS;
  s->ptr[k] = clEnqueueMapBuffer(
      p->queue, p->st_rows, CL_FALSE,
      write ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_READ, at * rb,
      count * rb, wait ? 1 : 0, wait ? &wait : NULL, &s->ev[k], &err);
  if (!s->ptr[k])
    return clg__mpi_fail(CLG_ERROR_OPENCL,
                         "clEnqueueMapBuffer failed (OpenCL error %d) mapping "
                         "a staging segment",
                         (int)err);
  return CLG_SUCCESS;
}

clg_status clg__mpi_rows_back_overlapped(clg_mpi_plan *p,
                                         const clg_mpi_counts *c,
                                         cl_event done,
                                         const unsigned char *host_rows,
                                         unsigned char *back) {
  const clg_mpi_geometry *g = &p->g;
  size_t rb = g->row_bytes;
  clg_segments s = {0};
  clg_status st = clg_segments_alloc(&s, g->size);
  /* A mapped plan maps each peer's served rows on its own. */
  for (int k = 0; k < g->size && st == CLG_SUCCESS && p->mapped; ++k)
    if (c->recv[k] > 0)
      st = clg_map_segment(p, &s, k, (size_t)c->rdispl[k],
                           (size_t)c->recv[k], false, done);
  if (p->mapped)
    clFlush(p->queue);
  if ((st = clg__mpi_agree(p->table.comm, g->rank, st)) != CLG_SUCCESS)
    return clg_segments_free(p, &s, g->size, st);
  int nreq = 0, err = MPI_SUCCESS;
  for (int k = 0; k < g->size && err == MPI_SUCCESS; ++k)
    if (c->send[k] > 0 &&
        (err = MPI_Irecv(back + (size_t)c->sdispl[k] * rb, c->send[k],
                         g->row_type, k, CLG_MPI_TAG, p->comm,
                         &s.rq[nreq])) == MPI_SUCCESS)
      ++nreq;
  /* Each peer's rows as soon as they are on the host, self first, then
   * the next ranks (so that the ranks do not all start with rank 0). A
   * segment whose map failed is still sent (the verdict, agreed later,
   * keeps its bytes out of any output). */
  for (int j = 0; j < g->size && err == MPI_SUCCESS; ++j) {
    int k = (g->rank + j) % g->size;
    if (c->recv[k] <= 0)
      continue;
    const void *rows = host_rows + (size_t)c->rdispl[k] * rb;
    if (p->mapped) {
      if (clWaitForEvents(1, &s.ev[k]) != CL_SUCCESS && st == CLG_SUCCESS)
        st = clg__mpi_fail(CLG_ERROR_OPENCL,
                           "reading the served rows back from the device "
                           "failed");
      rows = s.ptr[k];
    }
    if ((err = MPI_Isend(rows, c->recv[k], g->row_type, k, CLG_MPI_TAG,
                         p->comm, &s.rq[nreq])) == MPI_SUCCESS)
      ++nreq;
  }
  if (err == MPI_SUCCESS)
    err = MPI_Waitall(nreq, s.rq, MPI_STATUSES_IGNORE);
  if (err != MPI_SUCCESS) {
    clg_drain(s.rq, nreq);
    if (st == CLG_SUCCESS)
      st = clg__mpi_error(err, "a point-to-point exchange of rows");
  }
  return clg_segments_free(p, &s, g->size, st);
}

clg_status clg__mpi_rows_in_overlapped(clg_mpi_plan *p,
                                       const clg_mpi_counts *c,
                                       const unsigned char *supd,
                                       unsigned char *host_rupd) {
  const clg_mpi_geometry *g = &p->g;
  size_t rb = g->row_bytes;
  clg_segments s = {0};
  clg_status st = clg_segments_alloc(&s, g->size);
  for (int r = 0; r < g->size && st == CLG_SUCCESS && p->mapped; ++r)
    if (c->recv[r] > 0)
      st = clg_map_segment(p, &s, r, (size_t)c->rdispl[r],
                           (size_t)c->recv[r], true, NULL);
  for (int r = 0; r < g->size && st == CLG_SUCCESS && p->mapped; ++r)
    if (s.ev[r] && clWaitForEvents(1, &s.ev[r]) != CL_SUCCESS)
      st = clg__mpi_fail(CLG_ERROR_OPENCL, "mapping a staging segment failed");
  if ((st = clg__mpi_agree(p->table.comm, g->rank, st)) != CLG_SUCCESS)
    return clg_segments_free(p, &s, g->size, st);
  int nrecv = 0, nreq = 0, err = MPI_SUCCESS;
  for (int r = 0; r < g->size && err == MPI_SUCCESS; ++r)
    if (c->recv[r] > 0) {
      void *dst = p->mapped ? s.ptr[r]
                            : (void *)(host_rupd + (size_t)c->rdispl[r] * rb);
      s.src[nrecv] = r;
      if ((err = MPI_Irecv(dst, c->recv[r], g->row_type, r, CLG_MPI_TAG,
                           p->comm, &s.rq[nreq])) == MPI_SUCCESS) {
        ++nrecv;
        ++nreq;
      }
    }
  for (int j = 0; j < g->size && err == MPI_SUCCESS; ++j) {
    int o = (g->rank + j) % g->size;
    if (c->send[o] > 0 &&
        (err = MPI_Isend(supd + (size_t)c->sdispl[o] * rb, c->send[o],
                         g->row_type, o, CLG_MPI_TAG, p->comm,
                         &s.rq[nreq])) == MPI_SUCCESS)
      ++nreq;
  }
  /* Each source's rows go to the device as soon as they are in. */
  for (int left = nrecv; left > 0 && err == MPI_SUCCESS; --left) {
    int i = MPI_UNDEFINED;
    err = MPI_Waitany(nrecv, s.rq, &i, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS || i == MPI_UNDEFINED || !p->mapped)
      continue;
    int r = s.src[i];
    cl_event un = NULL;
    cl_int cerr = clEnqueueUnmapMemObject(p->queue, p->st_rows, s.ptr[r], 0,
                                          NULL, &un);
    clFlush(p->queue);
    if (cerr == CL_SUCCESS) {
      s.ptr[r] = NULL; /* unmapped: clg_segments_free waits for `un` */
      clReleaseEvent(s.ev[r]);
      s.ev[r] = un;
    } else if (st == CLG_SUCCESS) {
      st = clg__mpi_fail(CLG_ERROR_OPENCL,
                         "clEnqueueUnmapMemObject failed (OpenCL error %d)",
                         (int)cerr);
    }
  }
  if (err == MPI_SUCCESS)
    err = MPI_Waitall(nreq - nrecv, s.rq + nrecv, MPI_STATUSES_IGNORE);
  if (err != MPI_SUCCESS) {
    clg_drain(s.rq, nreq);
    if (st == CLG_SUCCESS)
      st = clg__mpi_error(err, "a point-to-point exchange of rows");
  }
  /* The unmaps enqueued above complete before the segments are freed. */
  if (p->mapped)
    for (int r = 0; r < g->size; ++r)
      if (!s.ptr[r] && s.ev[r] && clWaitForEvents(1, &s.ev[r]) != CL_SUCCESS &&
          st == CLG_SUCCESS)
        st = clg__mpi_fail(CLG_ERROR_OPENCL,
                           "sending update rows to the device failed");
  return clg_segments_free(p, &s, g->size, st);
}
