/*
 * `clgather-mpi embedding-bag` (clg_mpi_embedding_bag from the shell):
 *
 *   mpirun -np P clgather-mpi embedding-bag [--mode sum|mean|max|sqrt_n]
 *       [--offsets OFFSETS | --segment-ids IDS [--num-segments K]]
 *       [--per-sample-weights W] [--padding-idx P] [--include-last-offset]
 *       [--device SPEC] WEIGHT INDICES -o OUT
 *
 * Each rank reads (pread) only its rows of WEIGHT (the even split) and the
 * entries of its bags: the bags are split evenly by count over the ranks
 * (clg_mpi_even_rows), a bag never across two ranks, so that each bag is
 * reduced whole, in its order, on one rank. Every rank reads the whole
 * OFFSETS (or IDS) to find its bags' entries, and checks it as
 * clg_embedding_bag() would (the same verdict everywhere without talking);
 * then its block of INDICES (and W) and its offsets rebased (or its
 * segment ids less its first bag's). Rank 0 collects the output rows and
 * writes OUT (.npy) through a temporary file, as gather does. OUT is byte
 * for byte the single-process EmbeddingBag's, whatever P. The mode
 * defaults to mean (PyTorch's); without --offsets or --segment-ids INDICES
 * is [B, L], fixed-size bags; IDS' num_segments defaults to IDS[N-1] + 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mpi_cli.h"
#include "mpi_run.h"

typedef struct bag_args {
  const char *pos[2];
  int npos;
  const char *out, *device, *mode, *offsets, *segments, *nseg, *psw, *pad;
  bool last;
  clg_bag_params bp;
  int64_t num_segments; /* -1: from IDS */
} bag_args;

static int bag_usage(int rank, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int bag_usage(int rank, const char *fmt, ...) {
  if (rank == 0) {
    va_list ap;
    va_start(ap, fmt);
    fputs(MPI_CLI_PROG ": embedding-bag: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
    mpi_cli_usage(1);
  }
  return CLI_EXIT_USAGE;
}

/* argv[0] is the command. -1 to go on, else the exit status; no MPI. */
static int bag_parse(int argc, char **argv, bag_args *a, int rank) {
  memset(a, 0, sizeof *a);
  static const struct {
    const char *l, *s;
    size_t at;
  } opts[] = {
      {"--output", "-o", offsetof(bag_args, out)},
      {"--device", "-d", offsetof(bag_args, device)},
      {"--mode", NULL, offsetof(bag_args, mode)},
      {"--offsets", NULL, offsetof(bag_args, offsets)},
      {"--segment-ids", NULL, offsetof(bag_args, segments)},
      {"--num-segments", NULL, offsetof(bag_args, nseg)},
      {"--per-sample-weights", NULL, offsetof(bag_args, psw)},
      {"--padding-idx", NULL, offsetof(bag_args, pad)},
  };
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
      if (strcmp(arg, "--include-last-offset") == 0) {
        a->last = true;
        continue;
      }
      int m = 0;
      for (size_t k = 0; m == 0 && k < sizeof opts / sizeof opts[0]; ++k)
        if ((m = cli_match_option(argc, argv, &i, opts[k].l, opts[k].s,
                                  &v)) == 1)
          *(const char **)((char *)a + opts[k].at) = v;
      if (m == 1)
        continue;
      if (m < 0)
        return bag_usage(rank, "option '%s' needs a value", arg);
      return bag_usage(rank, "unknown option '%s'", arg);
    }
    if (a->npos == 2)
      return bag_usage(rank, "unexpected argument '%s' (embedding-bag takes "
                             "WEIGHT and INDICES)", arg);
    a->pos[a->npos++] = arg;
  }
  if (a->npos < 2)
    return bag_usage(rank, "needs WEIGHT and INDICES files");
  if (a->out == NULL || a->out[0] == '\0')
    return bag_usage(rank, "needs an output file: -o OUT");
  static const char *const modes[] = {"sum", "mean", "max", "sqrt_n"};
  a->bp.mode = CLG_BAG_MEAN;
  if (a->mode) {
    int m = 0;
    while (m < 4 && strcmp(a->mode, modes[m]) != 0)
      ++m;
    if (m == 4)
      return bag_usage(rank, "invalid --mode '%s' (expected sum, mean, max "
                             "or sqrt_n)", a->mode);
    a->bp.mode = (clg_bag_mode)m;
  }
  if (a->offsets && a->segments)
    return bag_usage(rank, "--offsets and --segment-ids exclude each other");
  if (a->nseg && !a->segments)
    return bag_usage(rank, "--num-segments goes with --segment-ids");
  if (a->last && !a->offsets)
    return bag_usage(rank, "--include-last-offset goes with --offsets");
  a->bp.form = a->offsets    ? CLG_BAGS_OFFSETS
               : a->segments ? CLG_BAGS_SEGMENT_IDS
                             : CLG_BAGS_FIXED;
  a->bp.flags = a->last ? CLG_BAG_INCLUDE_LAST_OFFSET : 0;
  a->num_segments = -1;
  if (a->nseg &&
      (cli_parse_int64(a->nseg, &a->num_segments) != 0 || a->num_segments < 0))
    return bag_usage(rank, "invalid --num-segments '%s' (an integer >= 0)",
                     a->nseg);
  if (a->pad) {
    if (cli_parse_int64(a->pad, &a->bp.padding_idx) != 0)
      return bag_usage(rank, "invalid --padding-idx '%s' (an integer)",
                       a->pad);
    a->bp.flags |= CLG_BAG_PADDING_IDX;
  }
  return -1;
}

/* Value i of an int32 or int64 array. */
static int64_t int_at(const void *p, size_t es, int64_t i) {
  if (es == 8) {
    int64_t v;
    memcpy(&v, (const unsigned char *)p + 8 * i, 8);
    return v;
  }
  int32_t v;
  memcpy(&v, (const unsigned char *)p + 4 * i, 4);
  return v;
}
static void int_put(void *p, size_t es, int64_t i, int64_t v) {
  if (es == 8)
    memcpy((unsigned char *)p + 8 * i, &v, 8);
  else {
    int32_t w = (int32_t)v;
    memcpy((unsigned char *)p + 4 * i, &w, 4);
  }
}

/* The files' shapes and types, as far as the split needs them. */
static int bag_shapes(const bag_args *a, mpi_run *r) {
  const npy_info *w = &r->in[0].info, *x = &r->in[1].info;
  char ws[256], xs[256], bs[256];
  cli_shape_string(w->rank, w->shape, ws, sizeof ws);
  cli_shape_string(x->rank, x->shape, xs, sizeof xs);
  int want = a->bp.form == CLG_BAGS_FIXED ? 2 : 1;
  if (w->rank != 2)
    snprintf(r->msg, MPI_CLI_MSG,
             "WEIGHT '%s' must have shape [rows, dim], not %s", r->in[0].path,
             ws);
  else if (x->dtype != CLG_DTYPE_INT32 && x->dtype != CLG_DTYPE_INT64)
    snprintf(r->msg, MPI_CLI_MSG, "INDICES '%s' must be int32 or int64, not %s",
             r->in[1].path, clg_dtype_name(x->dtype));
  else if (x->rank != want)
    snprintf(r->msg, MPI_CLI_MSG,
             "INDICES '%s' must have shape %s, not %s", r->in[1].path,
             want == 2 ? "[B, L] (fixed-size bags: no --offsets or "
                         "--segment-ids)"
                       : "[N] (bags by --offsets or --segment-ids)",
             xs);
  else if (r->in[2].fd >= 0 && r->in[2].info.dtype != CLG_DTYPE_INT32 &&
           r->in[2].info.dtype != CLG_DTYPE_INT64)
    snprintf(r->msg, MPI_CLI_MSG, "'%s' must be int32 or int64, not %s",
             r->in[2].path, clg_dtype_name(r->in[2].info.dtype));
  else if (r->in[2].fd >= 0 &&
           (r->in[2].info.rank != 1 ||
            (a->segments && r->in[2].info.shape[0] != x->shape[0]))) {
    cli_shape_string(r->in[2].info.rank, r->in[2].info.shape, bs, sizeof bs);
    snprintf(r->msg, MPI_CLI_MSG, "'%s' must have shape %s, not %s",
             r->in[2].path, a->segments ? "[N] (one id per index)" : "[B]",
             bs);
  } else if (r->in[3].fd >= 0 &&
             (r->in[3].info.rank != x->rank ||
              memcmp(r->in[3].info.shape, x->shape,
                     (size_t)x->rank * sizeof x->shape[0]) != 0)) {
    cli_shape_string(r->in[3].info.rank, r->in[3].info.shape, bs, sizeof bs);
    snprintf(r->msg, MPI_CLI_MSG,
             "per-sample weights '%s' have shape %s but INDICES has %s",
             r->in[3].path, bs, xs);
  } else
    return 0;
  return CLI_EXIT_INPUT;
}

/* The whole OFFSETS or IDS checked as clg_embedding_bag() checks them
 * (every rank the same verdict on the same file); *nbags the bag count. */
static int bag_descriptor(const bag_args *a, mpi_run *r, const void *d,
                          size_t es, int64_t len, int64_t n, int64_t *nbags) {
  if (a->bp.form == CLG_BAGS_OFFSETS) {
    if (a->last && len == 0) {
      snprintf(r->msg, MPI_CLI_MSG,
               "offsets has no entry; with include_last_offset it holds "
               "B + 1 offsets, the last one N");
      return CLI_EXIT_INPUT;
    }
    *nbags = a->last ? len - 1 : len;
    for (int64_t b = 0, prev = 0; b < len; ++b) {
      int64_t v = int_at(d, es, b);
      if ((b == 0 && v != 0) || v < prev || v > n) {
        snprintf(r->msg, MPI_CLI_MSG,
                 "offsets[%" PRId64 "] is %" PRId64 "; %s", b, v,
                 b == 0 && v != 0 ? "the first bag must start at 0"
                 : v < prev       ? "offsets must not decrease"
                                  : "past the indices");
        return CLI_EXIT_INPUT;
      }
      prev = v;
    }
    if (a->last && int_at(d, es, len - 1) != n) {
      snprintf(r->msg, MPI_CLI_MSG,
               "offsets[%" PRId64 "] (the last, include_last_offset) is "
               "%" PRId64 " but there are %" PRId64 " indices; they must "
               "agree",
               len - 1, int_at(d, es, len - 1), n);
      return CLI_EXIT_INPUT;
    }
    return 0;
  }
  int64_t top = n > 0 ? int_at(d, es, n - 1) : -1;
  if (a->num_segments < 0 && top == INT64_MAX) {
    snprintf(r->msg, MPI_CLI_MSG,
             "segment_ids[%" PRId64 "] is %" PRId64 ": num_segments (the "
             "last id + 1) overflows",
             n - 1, top);
    return CLI_EXIT_INPUT;
  }
  *nbags = a->num_segments >= 0 ? a->num_segments : top + 1;
  for (int64_t i = 0, prev = 0; i < n; ++i) {
    int64_t v = int_at(d, es, i);
    if (v < 0 || v >= *nbags || v < prev) {
      snprintf(r->msg, MPI_CLI_MSG,
               "segment_ids[%" PRId64 "] is %" PRId64 ", %s", i, v,
               v < 0 || v >= *nbags
                   ? "outside [0, num_segments - 1]"
                   : "below the one before; segment ids must not decrease");
      return CLI_EXIT_INPUT;
    }
    prev = v;
  }
  return 0;
}

static int bag_run(const void *args, mpi_run *r) {
  const bag_args *a = args;
  const char *paths[4] = {a->pos[0], a->pos[1],
                          a->offsets ? a->offsets : a->segments, a->psw};
  int code = 0;
  for (int i = 0; code == 0 && i < 4; ++i)
    if (paths[i])
      code = mpi_open_input(&r->in[i], paths[i], r->msg);
  if (code == 0)
    code = bag_shapes(a, r);
  if ((code = mpi_cli_agree(r->rank, code, r->msg)) != 0)
    return code;

  /* The bags: all of OFFSETS or IDS, checked; this rank's block. */
  const npy_info *w = &r->in[0].info, *x = &r->in[1].info;
  int64_t n = x->rank == 1 ? x->shape[0] : x->shape[0] * x->shape[1];
  int64_t nbags = x->shape[0], len = 0, fixed = x->rank == 2 ? x->shape[1] : 1;
  size_t des = r->in[2].fd >= 0 ? clg_dtype_size(r->in[2].info.dtype) : 8;
  if (r->in[2].fd >= 0) {
    len = r->in[2].info.shape[0];
    r->aux = mpi_alloc_or_fail((size_t)len * des, &code, r->msg);
    if (code == 0)
      code = mpi_read_rows(&r->in[2], des, 0, len, r->aux, r->msg);
    if (code == 0)
      code = bag_descriptor(a, r, r->aux, des, len, n, &nbags);
  }
  if ((code = mpi_cli_agree(r->rank, code, r->msg)) != 0)
    return code;
  int64_t blo, bhi, s, e, lo, hi, dim = w->shape[1], rows = w->shape[0];
  clg_mpi_even_rows(nbags, r->size, r->rank, &blo, &bhi);
  clg_mpi_even_rows(rows, r->size, r->rank, &lo, &hi);
  int64_t mybags = bhi - blo, nlocal = 0; /* this rank's descriptor words */
  if (a->bp.form == CLG_BAGS_FIXED) {
    s = blo * fixed;
    e = bhi * fixed;
  } else if (a->bp.form == CLG_BAGS_OFFSETS) {
    s = blo < nbags ? int_at(r->aux, des, blo) : n;
    e = bhi < nbags ? int_at(r->aux, des, bhi) : n;
    nlocal = mybags + (a->last ? 1 : 0);
    for (int64_t b = 0; b < nlocal; ++b) /* rebased in place (b <= blo + b) */
      int_put(r->aux, des, b,
              (blo + b < nbags ? int_at(r->aux, des, blo + b) : n) - s);
  } else {
    for (s = 0; s < n && int_at(r->aux, des, s) < blo; ++s)
      ;
    for (e = s; e < n && int_at(r->aux, des, e) < bhi; ++e)
      ;
    nlocal = e - s;
    for (int64_t i = 0; i < nlocal; ++i)
      int_put(r->aux, des, i, int_at(r->aux, des, s + i) - blo);
  }
  size_t rb = mpi_row_bytes(w), isz = clg_dtype_size(x->dtype);
  size_t psz = r->in[3].fd >= 0 ? clg_dtype_size(r->in[3].info.dtype) : 0;
  int64_t oshape[2] = {nbags, dim};
  code = mpi_begin_out(r, a->out, w->dtype, 2, oshape);
  if (code == 0) {
    r->shard = mpi_alloc_or_fail((size_t)(hi - lo) * rb, &code, r->msg);
    r->idx = mpi_alloc_or_fail((size_t)(e - s) * isz, &code, r->msg);
    r->upd = mpi_alloc_or_fail((size_t)(e - s) * psz, &code, r->msg);
    if (r->rank != 0)
      r->res = mpi_alloc_or_fail((size_t)mybags * rb, &code, r->msg);
  }
  if (code == 0)
    code = mpi_read_rows(&r->in[0], rb, lo, hi, r->shard, r->msg);
  if (code == 0)
    code = mpi_read_rows(&r->in[1], isz, s, e, r->idx, r->msg);
  if (code == 0 && psz)
    code = mpi_read_rows(&r->in[3], psz, s, e, r->upd, r->msg);
  if (code == 0)
    code = mpi_open_device(r, a->device);
  if ((code = mpi_cli_agree(r->rank, code, r->msg)) != 0)
    return code;

  int64_t sshape[2] = {hi - lo, dim}, xs[2] = {e - s, 0}, ds[1] = {nlocal},
          os[2] = {mybags, dim};
  if (a->bp.form == CLG_BAGS_FIXED) {
    xs[0] = mybags;
    xs[1] = fixed;
  }
  clg_bag_params bp = a->bp;
  clg_mpi_table table = {MPI_COMM_WORLD, r->ctx, rows, lo, hi,
                         clg_tensor_host(w->dtype, 2, sshape, r->shard), NULL};
  clg_tensor ti = clg_tensor_host(x->dtype, x->rank, xs, r->idx);
  clg_tensor td = clg_tensor_host(r->in[2].fd >= 0 ? r->in[2].info.dtype
                                                   : CLG_DTYPE_INT64,
                                  1, ds, r->aux);
  clg_tensor tp = clg_tensor_host(psz ? r->in[3].info.dtype : w->dtype,
                                  x->rank, xs, r->upd);
  /* Rank 0's bags are the first: the library writes them in OUT's place. */
  clg_tensor to = clg_tensor_host(w->dtype, 2, os,
                                  r->rank == 0 ? r->out_data : r->res);
  clg_status st = clg_mpi_embedding_bag(
      &table, &bp, &ti, a->bp.form == CLG_BAGS_FIXED ? NULL : &td,
      psz ? &tp : NULL, &to);
  if (st != CLG_SUCCESS)
    return mpi_library_failure(r, st);
  mpi_collect_even_rows(r, nbags, rb, r->res);
  return mpi_commit_out(r, a->out);
}

int mpi_cli_embedding_bag(int argc, char **argv) {
  int rank = mpi_cli_launcher_rank();
  bag_args a;
  int code = bag_parse(argc, argv, &a, rank);
  if (code >= 0)
    return code;
  return mpi_run_command(&argc, &argv, rank, a.out, bag_run, &a);
}
