/* clgather-mpi's shared pieces: printing once, agreement, reads, row
 * transfers and the usage text (mpi_cli.h). */
#define _POSIX_C_SOURCE 200809L

#include "mpi_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mpi_cli_launcher_rank(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                     "PMI_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    const char *v = getenv(vars[i]);
    if (v != NULL && v[0] != '\0')
      return atoi(v);
  }
  return 0;
}

void mpi_cli_error0(int rank, const char *fmt, ...) {
  if (rank != 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs(MPI_CLI_PROG ": ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int mpi_cli_agree(int rank, int code, char *msg) {
  int mine = code != 0 ? rank : INT_MAX, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT_MAX)
    return 0;
  struct {
    int code;
    char msg[MPI_CLI_MSG];
  } v;
  memset(&v, 0, sizeof v);
  if (rank == first) {
    v.code = code;
    snprintf(v.msg, sizeof v.msg, "%s", msg);
  }
  MPI_Bcast(&v, (int)sizeof v, MPI_BYTE, first, MPI_COMM_WORLD);
  snprintf(msg, MPI_CLI_MSG, "%s", v.msg);
  mpi_cli_error0(rank, "%s", msg);
  return v.code;
}

int mpi_cli_pread(int fd, const char *path, void *buf, size_t n, uint64_t off,
                  char *err, size_t errlen) {
  unsigned char *p = buf;
  while (n > 0) {
    size_t chunk = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n;
    ssize_t got = pread(fd, p, chunk, (off_t)off);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      snprintf(err, errlen, "cannot read '%s': %s", path,
               got < 0 ? strerror(errno) : "unexpected end of file");
      return -1;
    }
    p += got;
    off += (uint64_t)got;
    n -= (size_t)got;
  }
  return 0;
}

void mpi_cli_send_rows(int rank, int from, int to, void *buf, int64_t n,
                       size_t row_bytes) {
  if (from == to || n <= 0 || row_bytes == 0 || row_bytes > INT_MAX ||
      (rank != from && rank != to))
    return;
  MPI_Datatype row;
  MPI_Type_contiguous((int)row_bytes, MPI_BYTE, &row);
  MPI_Type_commit(&row);
  int64_t per = (int64_t)(((size_t)1 << 30) / row_bytes);
  if (per < 1)
    per = 1;
  unsigned char *p = buf;
  for (int64_t done = 0; done < n; done += per) {
    int count = (int)(n - done < per ? n - done : per);
    if (rank == from)
      MPI_Send(p + (size_t)done * row_bytes, count, row, to, 0,
               MPI_COMM_WORLD);
    else
      MPI_Recv(p + (size_t)done * row_bytes, count, row, from, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Type_free(&row);
}

void mpi_cli_usage(int to_stderr) {
  FILE *f = to_stderr ? stderr : stdout;
  fputs(
      "usage: mpirun -np P " MPI_CLI_PROG " <command> [options]\n"
      "\n"
      "commands:\n"
      "  gather [--device SPEC] DATA INDICES -o OUT\n"
      "      ONNX Gather on axis 0 of a table split by rows over the P "
      "ranks:\n"
      "      OUT has shape INDICES.shape + DATA.shape[1:]; the same bytes as\n"
      "      `clgather gather DATA INDICES -o OUT`.\n"
      "  scatter-nd [--reduction none|add|mul|min|max] [--duplicates "
      "error|last]\n"
      "         [--device SPEC] DATA INDICES UPDATES -o OUT\n"
      "      ONNX ScatterND of rows: INDICES [N, 1] (or [N]: row ids), "
      "UPDATES\n"
      "      [N] + DATA.shape[1:]; the same bytes as `clgather scatter-nd`\n"
      "      with INDICES [N, 1], the updates applied in INDICES' order.\n"
      "  embedding-bag [--mode sum|mean|max|sqrt_n] [--offsets OFFSETS |\n"
      "         --segment-ids IDS [--num-segments K]] [--per-sample-weights "
      "W]\n"
      "         [--padding-idx P] [--include-last-offset] [--device SPEC]\n"
      "         WEIGHT INDICES -o OUT\n"
      "      EmbeddingBag (PyTorch's embedding_bag, TensorFlow's sparse "
      "segment\n"
      "      reductions; mode mean by default; INDICES [B, L] without "
      "OFFSETS or\n"
      "      IDS) of a WEIGHT split by rows over the P ranks, the bags split "
      "by\n"
      "      count (each bag on one rank, reduced in its order): the same "
      "bytes\n"
      "      as the single-process EmbeddingBag. Every rank reads all of "
      "OFFSETS\n"
      "      or IDS.\n"
      "  bench [--rows R] [--width W] [--lookups L] [--reps K] [--device "
      "SPEC]\n"
      "        [--shard host|device]\n"
      "      Distributed gather and scatter-add of float32 rows, by call and\n"
      "      through a plan: lookups per second, bytes exchanged per rank,\n"
      "      and the call's time split into the local device work, the MPI\n"
      "      exchange and the rest; shards in host memory or cl_mem.\n"
      "\n"
      "Each rank reads only its rows of DATA (the even split: the first\n"
      "rows % P ranks hold one row more) and its contiguous block of "
      "INDICES\n"
      "(and UPDATES) under the same split of their count; rank 0 writes "
      "OUT\n"
      "(.npy, through a temporary file renamed at the end: OUT is never\n"
      "created or changed on an error). Every rank opens its own device\n"
      "(--device SPEC as for clgather, else CLGATHER_DEVICE, else the "
      "default).\n"
      "\n"
      "options:\n"
      "  -o, --output OUT     the output file (.npy), written by rank 0\n"
      "  -r, --reduction R    scatter-nd: none (default), add, mul, min, max\n"
      "  -D, --duplicates D   scatter-nd: error (default) or last, for "
      "reduction\n"
      "                       none\n"
      "  --mode M, --offsets O, --segment-ids IDS, --num-segments K,\n"
      "  --per-sample-weights W, --padding-idx P, --include-last-offset\n"
      "                       embedding-bag: as `clgather embedding-bag`\n"
      "  -d, --device SPEC    the OpenCL device of every rank\n"
      "  -h, --help           show this help and exit\n"
      "  -V, --version        show the version and exit\n"
      "\n"
      "exit status (the same on every rank, and mpirun's):\n"
      "  0  success\n"
      "  1  invalid input (unreadable file, bad shape or type, index out "
      "of\n"
      "     bounds, duplicate index under reduction none), on any rank\n"
      "  2  usage error\n"
      "  3  device or OpenCL error, or an MPI failure\n",
      f);
}
