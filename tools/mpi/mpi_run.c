/* clgather-mpi's commands' shared steps (mpi_run.h). */
#define _POSIX_C_SOURCE 200809L

#include "mpi_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_sigbus.h"

/* ------------------------------------------------------ OUT and SIGBUS */

/* Rank 0 writes OUT through a mapping of a temporary file (npy_out), whose
 * blocks are reserved up front; should a write still fault (a file system
 * that cannot reserve, full), the handler of cli_sigbus.h removes the
 * temporary file and exits 1, as clgather does. Installed once OUT has a
 * temporary file. */
static void mpi_sigbus_set_temp(const char *path) {
  cli_sigbus_set_temp(path);
  if (path != NULL)
    cli_sigbus_install(MPI_CLI_PROG ": bus error (SIGBUS) writing OUT's "
                                    "temporary file (disk full?); OUT was "
                                    "not written\n",
                       CLI_EXIT_INPUT);
}

/* ---------------------------------------------------------- the inputs */

int mpi_open_input(mpi_input *in, const char *path, char *msg) {
  in->path = path;
  if (npy_open(path, &in->fd, &in->info, msg, MPI_CLI_MSG) != 0) {
    in->fd = -1;
    return CLI_EXIT_INPUT;
  }
  return 0;
}

size_t mpi_row_bytes(const npy_info *info) {
  size_t b = clg_dtype_size(info->dtype);
  for (int32_t i = 1; i < info->rank; ++i)
    b *= (size_t)info->shape[i];
  return b;
}

/* Read rows [lo, hi) of a file whose rows are `rb` bytes into buf. */
int mpi_read_rows(const mpi_input *in, size_t rb, int64_t lo, int64_t hi,
                  void *buf, char *msg) {
  return mpi_cli_pread(in->fd, in->path, buf, (size_t)(hi - lo) * rb,
                       in->info.data_offset + (uint64_t)lo * rb, msg,
                       MPI_CLI_MSG) == 0
             ? 0
             : CLI_EXIT_INPUT;
}

void mpi_run_free(mpi_run *r) {
  mpi_sigbus_set_temp(NULL);
  npy_out_discard(&r->out); /* removes the temporary file after an error */
  for (int i = 0; i < MPI_RUN_INPUTS; ++i)
    if (r->in[i].fd >= 0)
      close(r->in[i].fd);
  clg_context_destroy(r->ctx);
  free(r->shard);
  free(r->idx);
  free(r->upd);
  free(r->res);
  free(r->aux);
}

void *mpi_alloc_or_fail(size_t n, int *code, char *msg) {
  void *p = malloc(n ? n : 1);
  if (p == NULL && *code == 0) {
    *code = CLI_EXIT_DEVICE;
    snprintf(msg, MPI_CLI_MSG, "out of host memory (%zu bytes)", n);
  }
  return p;
}

/* Rank 0 creates OUT's temporary file of this shape; the other ranks do
 * nothing. Returns an exit status (agreed by the caller). */
int mpi_begin_out(mpi_run *r, const char *path, clg_dtype dtype, int32_t rank,
                  const int64_t *shape) {
  if (r->rank != 0)
    return 0;
  if (npy_out_open(path, dtype, rank, shape, &r->out, &r->out_data, r->msg,
                   MPI_CLI_MSG) != 0)
    return CLI_EXIT_INPUT;
  mpi_sigbus_set_temp(cli_outfile_temp_path(&r->out.file));
  return 0;
}

/* Rank 0 puts the temporary file in place of OUT; every rank learns whether
 * that worked. */
int mpi_commit_out(mpi_run *r, const char *path) {
  int code = 0;
  if (r->rank == 0) {
    mpi_sigbus_set_temp(NULL);
    if (npy_out_commit(&r->out, path, r->msg, MPI_CLI_MSG) != 0)
      code = CLI_EXIT_INPUT;
  }
  return mpi_cli_agree(r->rank, code, r->msg);
}

/* Every rank's own device. */
int mpi_open_device(mpi_run *r, const char *device) {
  clg_status st = clg_context_create_default(device, &r->ctx);
  if (st != CLG_SUCCESS) {
    snprintf(r->msg, MPI_CLI_MSG, "%s", cli_library_message(st));
    return cli_exit_for_status(st);
  }
  return 0;
}

/* A failed collective library call: the same status and message on every
 * rank (the library agreed them); rank 0 prints it. */
int mpi_library_failure(mpi_run *r, clg_status st) {
  const char *m = clg_mpi_last_error();
  mpi_cli_error0(r->rank, "%s", m && m[0] ? m : clg_status_string(st));
  return cli_exit_for_status(st);
}

void mpi_collect_even_rows(const mpi_run *r, int64_t total, size_t rb,
                           void *local) {
  for (int k = 1; k < r->size; ++k) {
    int64_t klo, khi;
    clg_mpi_even_rows(total, r->size, k, &klo, &khi);
    mpi_cli_send_rows(r->rank, k, 0,
                      r->rank == 0
                          ? (unsigned char *)r->out_data + (size_t)klo * rb
                          : local,
                      khi - klo, rb);
  }
}

int mpi_run_command(int *argc, char ***argv, int rank, const char *out,
                    int (*fn)(const void *args, mpi_run *r), const void *args) {
  size_t n = strlen(out);
  if (n < 4 ||
      (strcmp(out + n - 4, ".npy") != 0 && strcmp(out + n - 4, ".NPY") != 0)) {
    if (rank == 0)
      fprintf(stderr,
              MPI_CLI_PROG ": OUT '%s' must be a .npy file (the only format "
                           "clgather-mpi writes)\n",
              out);
    return CLI_EXIT_INPUT;
  }
  MPI_Init(argc, argv);
  mpi_run r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < MPI_RUN_INPUTS; ++i)
    r.in[i].fd = -1;
  r.out.file.fd = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r.size);
  int code = fn(args, &r);
  mpi_run_free(&r);
  MPI_Finalize();
  return code;
}
