/*
 * clgather-mpi's shared pieces (tools/mpi/): the program name, printing on
 * one rank only, and the agreement every failure step ends with.
 *
 * Module order (each calls only those before it): mpi_cli.c (this header)
 * <- mpi_bench.c (the bench command) <- mpi_run.c (the commands' shared
 * steps, mpi_run.h) <- mpi_bag_cli.c (embedding-bag) <- clgather_mpi.c
 * (main, gather and scatter-nd). A client of clgather_mpi.h, clgather.h and the CLI's tensor
 * files (npy.h), nothing else.
 */
#ifndef CLGATHER_TOOLS_MPI_CLI_H
#define CLGATHER_TOOLS_MPI_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather_mpi.h>

#define MPI_CLI_PROG "clgather-mpi"
#define MPI_CLI_MSG 1024

/** This process's rank as the launcher announces it in the environment
 * (Open MPI, PMIx, MPICH), or 0 when it announces none: lets a process
 * that has not called MPI_Init print only once per job. */
int mpi_cli_launcher_rank(void);

/** "clgather-mpi: " + the message + "\n" on stderr, on rank 0 only. */
void mpi_cli_error0(int rank, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/**
 * Every rank's (code, msg) agreed, collectively on MPI_COMM_WORLD: when no
 * rank failed (code 0 everywhere) returns 0; otherwise the lowest failing
 * rank's code and message become every rank's (msg is overwritten), rank 0
 * prints the message once, and every rank returns that code. Every rank
 * must call it at the same step.
 */
int mpi_cli_agree(int rank, int code, char *msg);

/** pread() of exactly n bytes at offset off, retrying short reads;
 * 0 on success, -1 (with a message naming `path`) on failure or EOF. */
int mpi_cli_pread(int fd, const char *path, void *buf, size_t n, uint64_t off,
                  char *err, size_t errlen);

/** Send (rank `from`) or receive (rank `to`) `n` rows of `row_bytes` bytes
 * each over MPI_COMM_WORLD, in messages of at most 1 GiB, each counted in a
 * row datatype (MPI counts are ints). Called by both ranks with the same n
 * and row_bytes (<= INT_MAX); nothing happens for zero bytes or from == to. */
void mpi_cli_send_rows(int rank, int from, int to, void *buf, int64_t n,
                       size_t row_bytes);

/** `clgather-mpi bench ...` (argv[0] is "bench"); MPI not yet initialised.
 * Returns the exit status. */
int mpi_cli_bench(int argc, char **argv);

/** `clgather-mpi embedding-bag ...` (argv[0] is "embedding-bag",
 * mpi_bag_cli.c); MPI not yet initialised. Returns the exit status. */
int mpi_cli_embedding_bag(int argc, char **argv);

/** Print the usage text (stderr for errors, stdout for --help). */
void mpi_cli_usage(int to_stderr);

#endif /* CLGATHER_TOOLS_MPI_CLI_H */
