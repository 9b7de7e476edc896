/*
 * clgather-mpi — the distributed gather and scatter of clgather_mpi from
 * the shell, under mpirun:
 *
 *   mpirun -np P clgather-mpi gather [--device SPEC] DATA INDICES -o OUT
 *   mpirun -np P clgather-mpi scatter-nd [--reduction R] [--duplicates D]
 *                       [--device SPEC] DATA INDICES UPDATES -o OUT
 *   mpirun -np P clgather-mpi embedding-bag [--mode M] [--offsets O |
 *                       --segment-ids IDS [--num-segments K]]
 *                       [--per-sample-weights W] [--padding-idx P]
 *                       [--include-last-offset] [--device SPEC]
 *                       WEIGHT INDICES -o OUT   (mpi_bag_cli.c)
 *   mpirun -np P clgather-mpi bench [--rows R] [--width W] [--lookups L]
 *                       [--reps K] [--device SPEC]
 *   clgather-mpi --help | -V | --version
 *
 * Each rank reads (pread) only its rows of DATA, split evenly
 * (clg_mpi_even_rows), and its contiguous block of the flattened INDICES
 * (and of UPDATES), split by the same rule over their count; rank 0
 * collects the result and writes OUT (.npy) through a mapped temporary
 * file (unnamed until then where the file system has O_TMPFILE:
 * cli_outfile.c) put in place at the end. OUT is byte for byte what `clgather gather` /
 * `clgather scatter-nd` write, whatever P.
 *
 * Exit status, the same on every rank: 0 success, 1 invalid input, 2 usage
 * error (decided from the arguments alone, before MPI_Init), 3 device,
 * OpenCL or MPI error. Every step that can fail on some ranks only ends
 * with an agreement (mpi_cli_agree), so no rank waits in a collective the
 * others have left; the message is printed once, by rank 0.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>
#include <clgather/clgather_mpi.h>

#include "cli.h"
#include "mpi_cli.h"
#include "mpi_run.h"
#include "npy.h"

/* ------------------------------------------------------------ arguments */

typedef struct mpi_args {
  const char *pos[3];
  int npos;
  const char *out, *reduction, *duplicates, *device;
  clg_scatter_params sp;
} mpi_args;

static const char *dtype_name(clg_dtype t) { return clg_dtype_name(t); }

static int usage_error(int rank, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The message and the usage on stderr (rank 0); CLI_EXIT_USAGE. */
static int usage_error(int rank, const char *fmt, ...) {
  if (rank == 0) {
    va_list ap;
    va_start(ap, fmt);
    fputs(MPI_CLI_PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
    mpi_cli_usage(1);
  }
  return CLI_EXIT_USAGE;
}

/* argv[0] is the command. Returns -1 to go on, else the exit status. Uses
 * no MPI: every rank parses the same argv to the same verdict. */
static int parse_args(int argc, char **argv, bool scatter, mpi_args *a,
                      int rank) {
  memset(a, 0, sizeof *a);
  int want = scatter ? 3 : 2;
  bool only_pos = false;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i], *v = NULL;
    if (!only_pos && strcmp(arg, "--") == 0) {
      only_pos = true;
      continue;
    }
    if (!only_pos && (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)) {
      if (rank == 0)
        mpi_cli_usage(0);
      return CLI_EXIT_OK;
    }
    if (!only_pos && arg[0] == '-' && arg[1] != '\0') {
      int m = cli_match_option(argc, argv, &i, "--output", "-o", &v);
      if (m == 1) {
        a->out = v;
        continue;
      }
      if (m == 0 && scatter) {
        if ((m = cli_match_option(argc, argv, &i, "--reduction", "-r", &v)) ==
            1) {
          a->reduction = v;
          continue;
        }
        if (m == 0 && (m = cli_match_option(argc, argv, &i, "--duplicates",
                                            "-D", &v)) == 1) {
          a->duplicates = v;
          continue;
        }
      }
      if (m == 0 &&
          (m = cli_match_option(argc, argv, &i, "--device", "-d", &v)) == 1) {
        a->device = v;
        continue;
      }
      if (m < 0)
        return usage_error(rank, "option '%s' needs a value", arg);
      return usage_error(rank, "%s: unknown option '%s'", argv[0], arg);
    }
    if (a->npos == want)
      return usage_error(rank, "unexpected argument '%s' (%s)", arg,
                         scatter ? "scatter-nd takes DATA, INDICES and UPDATES"
                                 : "gather takes DATA and INDICES");
    a->pos[a->npos++] = arg;
  }
  if (a->npos < want)
    return usage_error(rank, "%s needs %s", argv[0],
                       scatter ? "DATA, INDICES and UPDATES files"
                               : "DATA and INDICES files");
  if (a->out == NULL || a->out[0] == '\0')
    return usage_error(rank, "%s needs an output file: -o OUT", argv[0]);
  a->sp = (clg_scatter_params){CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
  if (a->reduction != NULL &&
      cli_parse_reduction(a->reduction, &a->sp.reduction) != 0)
    return usage_error(rank,
                       "invalid --reduction value '%s' (expected none, add, "
                       "mul, min or max)",
                       a->reduction);
  if (a->duplicates != NULL &&
      cli_parse_duplicates(a->duplicates, &a->sp.duplicates) != 0)
    return usage_error(
        rank, "invalid --duplicates value '%s' (expected error or last)",
        a->duplicates);
  return -1;
}

/* ---------------------------------------------------------------- gather */

static int cmd_gather(const void *args, mpi_run *r) {
  const mpi_args *a = args;
  mpi_input *data = &r->in[0], *indices = &r->in[1];
  int code = mpi_open_input(data, a->pos[0], r->msg);
  if (code == 0)
    code = mpi_open_input(indices, a->pos[1], r->msg);
  int32_t out_rank = 0;
  int64_t out_shape[CLG_MAX_RANK] = {0};
  if (code == 0) {
    const npy_info *d = &data->info, *x = &indices->info;
    clg_params params = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
    clg_status st = CLG_SUCCESS;
    if (x->dtype != CLG_DTYPE_INT32 && x->dtype != CLG_DTYPE_INT64) {
      code = CLI_EXIT_INPUT;
      snprintf(r->msg, MPI_CLI_MSG,
               "INDICES '%s' must be int32 or int64, not %s", indices->path,
               dtype_name(x->dtype));
    } else if ((st = clg_output_shape(&params, d->rank, d->shape, x->rank,
                                      x->shape, &out_rank, out_shape)) !=
               CLG_SUCCESS) {
      code = cli_exit_for_status(st);
      snprintf(r->msg, MPI_CLI_MSG, "%s", cli_library_message(st));
    } else if (cli_shape_size(out_rank, out_shape, clg_dtype_size(d->dtype),
                              NULL, NULL, r->msg, MPI_CLI_MSG) != 0) {
      code = CLI_EXIT_INPUT;
    }
  }
  if ((code = mpi_cli_agree(r->rank, code, r->msg)) != 0)
    return code;

  /* This rank's rows of DATA and block of the flattened INDICES. */
  const npy_info *d = &data->info, *x = &indices->info;
  size_t rb = mpi_row_bytes(d), isz = clg_dtype_size(x->dtype);
  int64_t rows = d->shape[0], lo, hi, n = 1;
  for (int32_t i = 0; i < x->rank; ++i)
    n *= x->shape[i];
  clg_mpi_even_rows(rows, r->size, r->rank, &lo, &hi);
  int64_t (*blk)[2] = calloc((size_t)r->size, sizeof *blk);
  if (blk == NULL) {
    code = CLI_EXIT_DEVICE;
    snprintf(r->msg, MPI_CLI_MSG, "out of host memory");
  }
  for (int k = 0; blk && k < r->size; ++k)
    clg_mpi_even_rows(n, r->size, k, &blk[k][0], &blk[k][1]);
  int64_t ilo = blk ? blk[r->rank][0] : 0, ihi = blk ? blk[r->rank][1] : 0;
  if (code == 0)
    code = mpi_begin_out(r, a->out, d->dtype, out_rank, out_shape);
  if (code == 0) {
    r->shard = mpi_alloc_or_fail((size_t)(hi - lo) * rb, &code, r->msg);
    r->idx = mpi_alloc_or_fail((size_t)(ihi - ilo) * isz, &code, r->msg);
    if (r->rank != 0)
      r->res = mpi_alloc_or_fail((size_t)(ihi - ilo) * rb, &code, r->msg);
  }
  if (code == 0)
    code = mpi_read_rows(data, rb, lo, hi, r->shard, r->msg);
  if (code == 0)
    code = mpi_read_rows(indices, isz, ilo, ihi, r->idx, r->msg);
  if (code == 0)
    code = mpi_open_device(r, a->device);
  if ((code = mpi_cli_agree(r->rank, code, r->msg)) != 0) {
    free(blk);
    return code;
  }

  int64_t sshape[CLG_MAX_RANK], ishape[1] = {ihi - ilo}, oshape[CLG_MAX_RANK];
  sshape[0] = hi - lo;
  oshape[0] = ihi - ilo;
  for (int32_t i = 1; i < d->rank; ++i)
    sshape[i] = oshape[i] = d->shape[i];
  /* Rank 0's block is the first: the library writes it in OUT's place. */
  void *res = r->rank == 0 ? r->out_data : r->res;
  clg_mpi_table table = {MPI_COMM_WORLD, r->ctx, rows, lo, hi,
                         clg_tensor_host(d->dtype, d->rank, sshape, r->shard),
                         NULL};
  clg_tensor ti = clg_tensor_host(x->dtype, 1, ishape, r->idx);
  clg_tensor to = clg_tensor_host(d->dtype, d->rank, oshape, res);
  clg_status st = clg_mpi_gather(&table, &ti, &to);
  if (st != CLG_SUCCESS) {
    free(blk);
    return mpi_library_failure(r, st);
  }
  /* Collect: rank k's block of output rows goes to its place in OUT. */
  for (int k = 1; k < r->size; ++k)
    mpi_cli_send_rows(
        r->rank, k, 0,
        r->rank == 0 ? (unsigned char *)r->out_data + (size_t)blk[k][0] * rb
                     : r->res,
        blk[k][1] - blk[k][0], rb);
  free(blk);
  return mpi_commit_out(r, a->out);
}

/* ------------------------------------------------------------ scatter-nd */

static int cmd_scatter(const void *args, mpi_run *r) {
  const mpi_args *a = args;
  mpi_input *data = &r->in[0], *indices = &r->in[1], *updates = &r->in[2];
  int code = 0;
  for (int i = 0; code == 0 && i < 3; ++i)
    code = mpi_open_input(&r->in[i], a->pos[i], r->msg);
  if (code == 0) {
    const npy_info *d = &data->info, *x = &indices->info, *u = &updates->info;
    bool ushape = u->rank == d->rank && d->rank >= 1 &&
                  (x->rank < 1 || u->shape[0] == x->shape[0]);
    for (int32_t i = 1; ushape && i < d->rank; ++i)
      ushape = u->shape[i] == d->shape[i];
    char ds[256], xs[256], us[256];
    cli_shape_string(d->rank, d->shape, ds, sizeof ds);
    cli_shape_string(x->rank, x->shape, xs, sizeof xs);
    cli_shape_string(u->rank, u->shape, us, sizeof us);
    code = CLI_EXIT_INPUT;
    if (d->rank < 1)
      snprintf(r->msg, MPI_CLI_MSG, "DATA '%s' must have rank >= 1, not %s",
               data->path, ds);
    else if (x->dtype != CLG_DTYPE_INT32 && x->dtype != CLG_DTYPE_INT64)
      snprintf(r->msg, MPI_CLI_MSG,
               "INDICES '%s' must be int32 or int64, not %s", indices->path,
               dtype_name(x->dtype));
    else if (!(x->rank == 1 || (x->rank == 2 && x->shape[1] == 1)))
      snprintf(r->msg, MPI_CLI_MSG,
               "INDICES '%s' must have shape [N, 1] or [N] (row ids), not %s",
               indices->path, xs);
    else if (u->dtype != d->dtype)
      snprintf(r->msg, MPI_CLI_MSG,
               "UPDATES '%s' has element type %s, DATA has %s", updates->path,
               dtype_name(u->dtype), dtype_name(d->dtype));
    else if (!ushape)
      snprintf(r->msg, MPI_CLI_MSG,
               "UPDATES '%s' must have shape [N] + DATA.shape[1:] = [%" PRId64
               "] + %s[1:], not %s",
               updates->path, x->shape[0], ds, us);
    else
      code = 0;
  }
  if ((code = mpi_cli_agree(r->rank, code, r->msg)) != 0)
    return code;

  const npy_info *d = &data->info, *x = &indices->info;
  size_t rb = mpi_row_bytes(d), isz = clg_dtype_size(x->dtype);
  int64_t rows = d->shape[0], n = x->shape[0], lo, hi, nlo, nhi;
  clg_mpi_even_rows(rows, r->size, r->rank, &lo, &hi);
  clg_mpi_even_rows(n, r->size, r->rank, &nlo, &nhi);
  code = mpi_begin_out(r, a->out, d->dtype, d->rank, d->shape);
  if (code == 0) {
    /* Rank 0's shard is the first rows: updated in OUT's place. */
    r->shard = r->rank == 0
                   ? NULL
                   : mpi_alloc_or_fail((size_t)(hi - lo) * rb, &code, r->msg);
    r->idx = mpi_alloc_or_fail((size_t)(nhi - nlo) * isz, &code, r->msg);
    r->upd = mpi_alloc_or_fail((size_t)(nhi - nlo) * rb, &code, r->msg);
  }
  void *shard = r->rank == 0 ? r->out_data : r->shard;
  if (code == 0)
    code = mpi_read_rows(data, rb, lo, hi, shard, r->msg);
  if (code == 0)
    code = mpi_read_rows(indices, isz, nlo, nhi, r->idx, r->msg);
  if (code == 0)
    code = mpi_read_rows(updates, rb, nlo, nhi, r->upd, r->msg);
  if (code == 0)
    code = mpi_open_device(r, a->device);
  if ((code = mpi_cli_agree(r->rank, code, r->msg)) != 0)
    return code;

  int64_t sshape[CLG_MAX_RANK], ishape[2] = {nhi - nlo, 1},
                                ushape[CLG_MAX_RANK];
  sshape[0] = hi - lo;
  ushape[0] = nhi - nlo;
  for (int32_t i = 1; i < d->rank; ++i)
    sshape[i] = ushape[i] = d->shape[i];
  clg_mpi_table table = {MPI_COMM_WORLD, r->ctx, rows, lo, hi,
                         clg_tensor_host(d->dtype, d->rank, sshape, shard),
                         NULL};
  clg_tensor ti = clg_tensor_host(x->dtype, x->rank, ishape, r->idx);
  clg_tensor tu = clg_tensor_host(d->dtype, d->rank, ushape, r->upd);
  clg_status st = clg_mpi_scatter(&table, &ti, &tu, &a->sp);
  if (st != CLG_SUCCESS)
    return mpi_library_failure(r, st);
  /* Collect: rank k's shard goes to its rows of OUT. */
  mpi_collect_even_rows(r, rows, rb, r->shard);
  return mpi_commit_out(r, a->out);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
  int rank = mpi_cli_launcher_rank();
  if (argc < 2) {
    if (rank == 0) {
      fputs(MPI_CLI_PROG ": missing command\n", stderr);
      mpi_cli_usage(1);
    }
    return CLI_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
      strcmp(cmd, "help") == 0) {
    if (rank == 0)
      mpi_cli_usage(0);
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
    if (rank == 0)
      printf(MPI_CLI_PROG " %s\n", clg_version_string());
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "bench") == 0)
    return mpi_cli_bench(argc - 1, argv + 1);
  if (strcmp(cmd, "embedding-bag") == 0)
    return mpi_cli_embedding_bag(argc - 1, argv + 1);
  bool scatter = strcmp(cmd, "scatter-nd") == 0;
  if (!scatter && strcmp(cmd, "gather") != 0)
    return usage_error(rank, "unknown command '%s'", cmd);
  mpi_args a;
  int code = parse_args(argc - 1, argv + 1, scatter, &a, rank);
  if (code >= 0)
    return code;
  return mpi_run_command(&argc, &argv, rank, a.out,
                         scatter ? cmd_scatter : cmd_gather, &a);
}
