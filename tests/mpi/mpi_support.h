/* tests/mpi/mpi_support.c's helpers for the clgather_mpi test programs. */
#ifndef CLGATHER_TESTS_MPI_SUPPORT_H
#define CLGATHER_TESTS_MPI_SUPPORT_H

#include <clgather/clgather_mpi.h>

#include <stdbool.h>
#include <stdint.h>

extern int g_rank, g_size, g_failures;
extern clg_context *g_ctx;
/* hide_fp64.c (test_mpi_plan only): while set, this process's device has
 * no cl_khr_fp64 (as clGetDeviceInfo reports it). */
extern _Atomic bool g_hide_fp64;

void mpi_test_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond))                                                               \
      mpi_test_fail(__FILE__, __LINE__, __VA_ARGS__);                          \
  } while (0)

/* MPI_Init, g_rank, g_size and g_ctx (the default device; MPI_Abort
 * without one). */
void mpi_test_start(int *argc, char ***argv);
/* Every rank's failures summed, "NAME: P ranks, F failures" printed by rank
 * 0 (ctest's pass pattern), the context destroyed, MPI_Finalize: the exit
 * status. */
int mpi_test_end(const char *name);

uint32_t mix(uint64_t x);
/* The table: rows x width floats, small distinct values (exact sums). */
float *make_table(int64_t rows, int64_t width, unsigned seed);
/* Rank r's indices: n of them, from `distinct` ids, some negative. */
int64_t *make_ids(int r, int64_t n, int64_t rows, int64_t distinct,
                  unsigned seed);
/* This rank's shard bounds under `layout`: 0 even, 1 uneven, 2 all on the
 * last rank. */
void bounds(int64_t rows, int layout, int r, int64_t *lo, int64_t *hi);

typedef struct table_set {
  clg_mpi_table t;
  float *all, *shard;
  cl_mem mem;
} table_set;
void table_open(table_set *s, int64_t rows, int64_t width, int layout,
                bool on_device, unsigned seed);
/* The shard's current bytes (read back from the device if there). */
const float *table_rows(table_set *s);
void table_close(table_set *s);

/* Every rank got `st` and the same message as rank 0 (containing needle
 * when not NULL). */
void expect_everywhere(clg_status st, clg_status want, const char *needle,
                       const char *what);

/* Every rank's entries, concatenated in rank order (the global order). */
typedef struct entries {
  int64_t n_all, first_mine, n_mine;
  int64_t *ids; /* n_all */
  float *upd;   /* n_all x width */
} entries;
void make_entries(entries *e, int64_t rows, int64_t width, int64_t per_rank,
                  int64_t distinct, unsigned seed);

#endif /* CLGATHER_TESTS_MPI_SUPPORT_H */
