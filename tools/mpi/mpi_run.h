/*
 * clgather-mpi's commands' shared steps (tools/mpi/mpi_run.c): the inputs
 * each rank opens and reads its part of, OUT written by rank 0 through a
 * temporary file (SIGBUS guarded), the device, and a failed collective
 * library call reported once. Used by clgather_mpi.c (gather, scatter-nd)
 * and mpi_bag_cli.c (embedding-bag).
 */
#ifndef CLGATHER_TOOLS_MPI_RUN_H
#define CLGATHER_TOOLS_MPI_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather.h>
#include <clgather/clgather_mpi.h>

#include "mpi_cli.h"
#include "npy.h"

/* One input file, opened by every rank. */
typedef struct mpi_input {
  const char *path;
  int fd;
  npy_info info;
} mpi_input;

#define MPI_RUN_INPUTS 4

/* The shared state of one run of a command. */
typedef struct mpi_run {
  int rank, size;
  char msg[MPI_CLI_MSG];
  mpi_input in[MPI_RUN_INPUTS];
  npy_out out; /* rank 0 */
  void *out_data;
  clg_context *ctx;
  void *shard, *idx, *upd, *res, *aux; /* malloc'ed, or NULL */
} mpi_run;

/* Opens `path` as a .npy input (fd -1 on failure): 0 or CLI_EXIT_INPUT
 * with the message in msg. */
int mpi_open_input(mpi_input *in, const char *path, char *msg);
/* Bytes of one row of a tensor (its dimensions after the first). */
size_t mpi_row_bytes(const npy_info *info);
/* Read rows [lo, hi) of a file whose rows are `rb` bytes into buf: 0 or
 * CLI_EXIT_INPUT. */
int mpi_read_rows(const mpi_input *in, size_t rb, int64_t lo, int64_t hi,
                  void *buf, char *msg);
/* Closes, frees and discards everything the run holds. */
void mpi_run_free(mpi_run *r);
/* malloc (at least 1 byte); on failure *code CLI_EXIT_DEVICE (if 0) and
 * the message. */
void *mpi_alloc_or_fail(size_t n, int *code, char *msg);
/* Rank 0 creates OUT's temporary file of this shape; the other ranks do
 * nothing. Returns an exit status (agreed by the caller). */
int mpi_begin_out(mpi_run *r, const char *path, clg_dtype dtype, int32_t rank,
                  const int64_t *shape);
/* Rank 0 puts the temporary file in place of OUT; every rank learns
 * whether that worked. */
int mpi_commit_out(mpi_run *r, const char *path);
/* Every rank's own device: 0 or an exit status with the message. */
int mpi_open_device(mpi_run *r, const char *device);
/* A failed collective library call: rank 0 prints the agreed message; the
 * exit status. */
int mpi_library_failure(mpi_run *r, clg_status st);
/* Collect OUT's rows on rank 0 when each rank k computed rows
 * mpi_even_rows(total, size, k) of it: rank 0's own are already in place
 * (r->out_data), every other rank sends `local` (rows of `rb` bytes). */
void mpi_collect_even_rows(const mpi_run *r, int64_t total, size_t rb,
                           void *local);
/* A command's run from its parsed arguments: refuses an OUT that is not a
 * .npy file (the only format rank 0 writes in place; decided from the name
 * alone, so every rank agrees without talking), then MPI_Init, a fresh
 * mpi_run, fn(args, &run), its release and MPI_Finalize. `rank` is the
 * launcher's (mpi_cli_launcher_rank()). Returns fn's exit status. */
int mpi_run_command(int *argc, char ***argv, int rank, const char *out,
                    int (*fn)(const void *args, mpi_run *r), const void *args);

#endif /* CLGATHER_TOOLS_MPI_RUN_H */
