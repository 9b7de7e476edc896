/* A consumer of the distributed library clgather_mpi, built through
 * find_package(clgather COMPONENTS mpi) (clgather::clgather_mpi) and through
 * `pkg-config --cflags --libs clgather-mpi`. It never calls MPI_Init, so it
 * runs without mpirun: it checks the pure function clg_mpi_even_rows (the
 * even split of 10 rows over 3 ranks: [0, 4), [4, 7), [7, 10)) and calls
 * MPI_Initialized, which MPI allows before MPI_Init, so the link fails
 * unless MPI's library comes with clgather_mpi's flags. */
#include <clgather/clgather_mpi.h>

#include <stdio.h>

int main(void) {
  static const int64_t want[3][2] = {{0, 4}, {4, 7}, {7, 10}};
  for (int rank = 0; rank < 3; ++rank) {
    int64_t lo = -1, hi = -1;
    clg_mpi_even_rows(10, 3, rank, &lo, &hi);
    if (lo != want[rank][0] || hi != want[rank][1]) {
      fprintf(stderr,
              "consumer_mpi: rank %d of 3 holds [%lld, %lld), not [%lld, %lld)\n",
              rank, (long long)lo, (long long)hi, (long long)want[rank][0],
              (long long)want[rank][1]);
      return 1;
    }
  }
  int initialized = 1;
  if (MPI_Initialized(&initialized) != MPI_SUCCESS || initialized) {
    fprintf(stderr, "consumer_mpi: MPI_Initialized failed or says yes\n");
    return 1;
  }
  printf("consumer_mpi OK: clgather %s, rank 1 of 3 holds rows [4, 7) of 10\n",
         clg_version_string());
  return 0;
}
