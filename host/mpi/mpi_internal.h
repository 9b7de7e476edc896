/* host/mpi/: clgather_mpi's internal header. mpi_checks.c: messages,
 * agreement, argument checks, geometry and bounds; mpi_exchange.c: the
 * all-to-all exchanges; mpi_plan.c: the plan, its workspace and staging;
 * mpi_gather.c and mpi_scatter.c: the two operations; mpi_bag.c:
 * EmbeddingBag, a gather of the distinct rows then the core library's
 * EmbeddingBag on them. Not installed. Uses
 * only the public headers of clgather and MPI. */
#ifndef CLGATHER_HOST_MPI_INTERNAL_H
#define CLGATHER_HOST_MPI_INTERNAL_H

#include <clgather/clgather_mpi.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The calling thread's message (clg_mpi_last_error). */
clg_status clg__mpi_fail(clg_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* An MPI call's failure (MPI_ERRORS_RETURN on comm) as a status. */
clg_status clg__mpi_error(int err, const char *call);

/* Clears the calling thread's message (every entry point starts so). */
void clg__mpi_clear(void);

/* A local clgather call's failure: "rank R's WHAT: " and the core
 * library's message. */
clg_status clg__mpi_local(clg_status st, int rank, const char *what);

/* Every rank's `st` agreed: the lowest failing rank's status and message
 * become every rank's. Collective. */
clg_status clg__mpi_agree(MPI_Comm comm, int rank, clg_status st);

/* The product of t's dimensions from `from` on (SIZE_MAX on overflow), and
 * whether n items of `size` bytes fit a malloc. */
size_t clg__mpi_numel(const clg_tensor *t, int32_t from);
bool clg__mpi_fits(size_t n, size_t size);

/* This rank's own arguments (no communication). */
clg_status clg__mpi_check_table(const clg_mpi_table *t);
clg_status clg__mpi_check_indices(const clg_tensor *x);
/* `t` (output or updates) is host memory of the table's type with shape
 * lead[0 .. nlead-1] + the shard's row dimensions. */
clg_status clg__mpi_check_rows_tensor(const clg_mpi_table *table,
                                      const clg_tensor *t, const char *name,
                                      int32_t nlead, const int64_t *lead);

/* One more item for one rank in an exchange (MPI counts are ints). */
clg_status clg__mpi_count(int *count);

/* Every rank's geometry, agreed: lo/hi of each rank (size + 1 bounds:
 * rank r holds [bound[r], bound[r + 1])), the row's bytes. */
typedef struct clg_mpi_geometry {
  int rank, size;
  int64_t *bound; /* size + 1 */
  size_t row_bytes;
  int64_t rows;
  MPI_Datatype row_type; /* row_bytes bytes; MPI_DATATYPE_NULL if 0 */
} clg_mpi_geometry;

/* The geometry agreed (collective; same status everywhere); freed by
 * clg__mpi_geometry_free() whatever the status. */
clg_status clg__mpi_geometry(const clg_mpi_table *t, clg_mpi_geometry *g);
void clg__mpi_geometry_free(clg_mpi_geometry *g);

/* Every rank passed the same n option words (e.g. a scatter's reduction):
 * else CLG_ERROR_INVALID_ARGUMENT everywhere naming the first rank that
 * differs from rank 0 and `what`. Collective. */
clg_status clg__mpi_same_options(MPI_Comm comm, const clg_mpi_geometry *g,
                                 const int64_t *w, int n, const char *what);

/* Index value i of host indices at any address (int32 or int64). */
int64_t clg__mpi_index(const clg_tensor *x, size_t i);

/* This rank's indices against [-rows, rows - 1], with no communication:
 * the first offender named with this rank's number, so that the agreement
 * after it (lowest failing rank) makes the first offender of all ranks
 * (lowest rank, then position) every rank's error. On success ids[] (n of
 * them) holds the normalised ids. */
clg_status clg__mpi_bounds_local(const clg_mpi_table *t,
                                 const clg_mpi_geometry *g,
                                 const clg_tensor *x, size_t n, int64_t *ids);

/* The owner of global row id (normalised, in [0, rows)). */
int clg__mpi_owner(const clg_mpi_geometry *g, int64_t id);

/* Counts and displacements of one all-to-all. */
typedef struct clg_mpi_counts {
  int *send, *sdispl, *recv, *rdispl; /* size each */
  size_t send_total, recv_total;
} clg_mpi_counts;

/* counts->send[] filled by the caller: exchange them (MPI_Alltoall) and
 * compute the displacements; totals beyond INT_MAX are an error. */
clg_status clg__mpi_counts_exchange(MPI_Comm comm, clg_mpi_counts *c,
                                    int size);
clg_status clg__mpi_counts_alloc(clg_mpi_counts *c, int size);
void clg__mpi_counts_free(clg_mpi_counts *c);

/* MPI_Alltoallv of `type` items by c (forward: send -> recv). */
clg_status clg__mpi_alltoallv(MPI_Comm comm, const void *sendbuf,
                              void *recvbuf, const clg_mpi_counts *c,
                              MPI_Datatype type, bool forward);

/* Counts already in c->send and c->recv: the displacements and totals
 * (no communication); totals beyond INT_MAX are an error. */
clg_status clg__mpi_counts_displace(clg_mpi_counts *c, int size);

/* ----------------------------------------------------------- the plan */

/* A plan's workspace: host buffers that only grow, kept from call to call
 * (allocating them afresh made every call fault its pages in again). */
enum {
  CLG_MPI_IDS,       /* gather: normalised ids, then the distinct ones (kept) */
  CLG_MPI_PAIRS,     /* gather: (id, position) sorted by id (kept) */
  CLG_MPI_SLOT,      /* gather: each position's place among the distinct */
  CLG_MPI_SORT,      /* gather: the sort's scratch pairs */
  CLG_MPI_REQ,       /* gather: the local ids requested of this rank (kept) */
  CLG_MPI_ROWS_OUT,  /* gather: the rows this rank serves (host staging) */
  CLG_MPI_ROWS_BACK, /* gather: the rows this rank receives */
  CLG_MPI_NORM,      /* scatter: normalised ids in indices' order */
  CLG_MPI_SID,       /* scatter: owners' local ids sent, bucketed by owner */
  CLG_MPI_SPOS,      /* scatter: their positions */
  CLG_MPI_SUPD,      /* scatter: their update rows */
  CLG_MPI_SMULT,     /* scatter reusing a gather: entries per distinct id */
  CLG_MPI_RID,       /* scatter: local ids received, in the global order */
  CLG_MPI_RPOS,      /* scatter: their senders' positions */
  CLG_MPI_RUPD,      /* scatter: their update rows (host staging) */
  CLG_MPI_RMULT,     /* scatter reusing a gather: entries per id received */
  CLG_MPI_BAG_IDS,   /* EmbeddingBag: the distinct ids its bags name */
  CLG_MPI_BAG_X,     /* EmbeddingBag: each entry's row in the local table */
  CLG_MPI_BAG_PAIRS, /* EmbeddingBag: (id, position) sorted by id */
  CLG_MPI_BAG_SORT,  /* EmbeddingBag: the sort's scratch pairs */
  CLG_MPI_BAG_ROWS,  /* EmbeddingBag: the local table (distinct rows) */
  CLG_MPI_NBUF
};

typedef struct clg_mpi_buf {
  void *p;
  size_t cap;
} clg_mpi_buf;

/* (id, position) of one index, sorted by id then position. */
typedef struct clg_id_pos {
  int64_t id, pos;
} clg_id_pos;
/* Sorts n pairs in position order by (id, position); ids in [0, max_id];
 * tmp holds n pairs. */
void clg__mpi_sort_pairs(clg_id_pos *p, clg_id_pos *tmp, size_t n,
                         int64_t max_id);

struct clg_mpi_plan {
  clg_mpi_table table; /* the caller's, copied */
  clg_mpi_geometry g;
  cl_command_queue queue; /* table.queue or the context's */
  clg_mpi_buf buf[CLG_MPI_NBUF];
  clg_mpi_counts gc; /* the last gather's exchange of distinct ids (kept) */
  clg_mpi_counts sc; /* a scatter's exchange of entries */
  /* The last successful gather's index, for a scatter reusing it. */
  bool have_index;
  size_t n, u;
  int32_t index_rank;
  int64_t index_shape[CLG_MAX_RANK];
  /* Mapped staging (CL_MEM_ALLOC_HOST_PTR buffers on the device, mapped
   * for MPI): ids and rows; else host buffers the core library wraps or
   * copies. */
  bool mapped;
  cl_mem st_ids, st_rows;
  size_t st_ids_cap, st_rows_cap;
  /* Rows exchanged point to point, one message per peer, overlapping the
   * staging (mpi_overlap.c), over `comm`, the plan's own duplicate of the
   * table's communicator (MPI_COMM_NULL when not overlapping). The same on
   * every rank. */
  bool overlap;
  MPI_Comm comm;
};

/* Buffer `which` with room for `bytes` (at least 1); NULL with a message
 * when out of host memory. The content is not kept when it grows. */
void *clg__mpi_ws(clg_mpi_plan *p, int which, size_t bytes);

/* The staging buffers with room for ids_bytes and rows_bytes. */
clg_status clg__mpi_stage_reserve(clg_mpi_plan *p, size_t ids_bytes,
                                  size_t rows_bytes);
/* Map `bytes` of staging buffer m (blocking, after `wait` if not NULL) for
 * reading or (invalidating) writing; unmap, waiting for the unmap. */
clg_status clg__mpi_map(clg_mpi_plan *p, cl_mem m, bool write, size_t bytes,
                        cl_event wait, void **ptr);
clg_status clg__mpi_unmap(clg_mpi_plan *p, cl_mem m, void *ptr);
/* m local ids into the ids staging buffer (mapped, written, unmapped). */
clg_status clg__mpi_stage_ids(clg_mpi_plan *p, const int64_t *ids, size_t m);

/* The gather's rows back (owner -> requester), overlapped: `done` the
 * gather kernel's event (mapped plans) or host_rows the served rows (host
 * plans); back receives this rank's rows. Collective; the caller agrees on
 * the status. */
clg_status clg__mpi_rows_back_overlapped(clg_mpi_plan *p,
                                         const clg_mpi_counts *c,
                                         cl_event done,
                                         const unsigned char *host_rows,
                                         unsigned char *back);
/* The scatter's update rows (sender -> owner), overlapped: received into
 * the rows' staging buffer (mapped plans, which end unmapped) or host_rupd.
 * Collective; the caller agrees on the status. */
clg_status clg__mpi_rows_in_overlapped(clg_mpi_plan *p,
                                       const clg_mpi_counts *c,
                                       const unsigned char *supd,
                                       unsigned char *host_rupd);

#endif /* CLGATHER_HOST_MPI_INTERNAL_H */
