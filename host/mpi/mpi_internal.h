/* host/mpi/: clgather_mpi's internal header (mpi.c: checks, agreement,
 * the entry points; mpi_exchange.c: the all-to-all exchanges). Not
 * installed. Uses only the public headers of clgather and MPI. */
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

/* Every rank's geometry, agreed: lo/hi of each rank (size + 1 bounds:
 * rank r holds [bound[r], bound[r + 1])), the row's bytes. */
typedef struct clg_mpi_geometry {
  int rank, size;
  int64_t *bound; /* size + 1 */
  size_t row_bytes;
  int64_t rows;
  MPI_Datatype row_type; /* row_bytes bytes; MPI_DATATYPE_NULL if 0 */
} clg_mpi_geometry;

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

#endif /* CLGATHER_HOST_MPI_INTERNAL_H */
