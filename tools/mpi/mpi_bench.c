/*
 * `clgather-mpi bench`: the distributed gather (clg_mpi_gather) and
 * scatter-add (clg_mpi_scatter, reduction add) of float32 rows, on
 * synthetic tables split evenly over the ranks:
 *   W1-like: 50000 rows x 768 (an embedding table, 3 KiB rows),
 *   W2-like: 1000000 rows x 16 (many small rows),
 * or one table of --rows x --width. Every rank looks up --lookups row ids
 * drawn uniformly from the whole table (its own seed).
 *
 * What is measured (MPI_Wtime; before each timed call an MPI_Barrier; a
 * call's time is the slowest rank's, MPI_Allreduce MAX; the median over
 * --reps rounds after one untimed warm-up round, each round timing the
 * three below one after the other):
 *   call   the library call itself, as a user sees it;
 *   local  the device part alone: a clg_gather (clg_scatter ScatterND add)
 *          on this rank's own shard of as many rows as this rank serves in
 *          the call (its distinct requested rows; for the scatter, the
 *          entries it receives), timed by itself;
 *   mpi    the exchange alone: the library's collectives replayed with the
 *          same counts and sizes (MPI_Alltoall of the counts, MPI_Alltoallv
 *          of the ids [and of the positions, scatter], MPI_Alltoallv of the
 *          rows);
 *   other  call - local - mpi: checks, sorting/deduplication, bucketing,
 *          the host copies, the agreements.
 * Four ops per table: clg_mpi_gather and clg_mpi_scatter (a plan made and
 * dropped in every call), then the same through one clg_mpi_plan kept
 * across the rounds ("plan gather"), its scatter-add reusing the gather's
 * index ("plan scatter reuse": replayed as an MPI_Alltoallv of the entry
 * counts per distinct id and one of the rows).
 * lookups/s counts every rank's lookups (P x L per call). "sent MB/rank" is
 * what a rank sends to the other ranks in one call (ids, positions and rows
 * that leave the rank, not those it sends itself), the mean over ranks,
 * computed from the index sets by the library's algorithm (gather:
 * deduplicated ids out, their rows back; scatter: every entry, 8-byte id +
 * 8-byte position + row; reused: a 4-byte count per distinct id + every
 * entry's row).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>
#include <clgather/clgather_mpi.h>

#include "cli.h"
#include "mpi_cli.h"

typedef struct workload {
  const char *name;
  int64_t rows, width;
} workload;

typedef struct bench_cfg {
  int rank, size;
  int64_t lookups;
  int reps;
  clg_context *ctx;
  bool device_shard; /* --shard device: each shard a cl_mem */
} bench_cfg;

static uint64_t rng_next(uint64_t *s) {
  /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median over reps of the slowest rank's time. */
static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_dbl);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static double slowest(double dt) {
  double m = dt;
  MPI_Allreduce(&dt, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

/* The counts of one all-to-all as the library forms them. */
typedef struct exch {
  int *send, *sdispl, *recv, *rdispl;
  int64_t send_total, recv_total;
} exch;

static void exch_free(exch *e) {
  free(e->send);
  free(e->sdispl);
  free(e->recv);
  free(e->rdispl);
}

static int exch_make(exch *e, int size, const int64_t *bound,
                     const int64_t *ids, size_t n) {
  e->send = calloc((size_t)size, sizeof(int));
  e->sdispl = calloc((size_t)size, sizeof(int));
  e->recv = calloc((size_t)size, sizeof(int));
  e->rdispl = calloc((size_t)size, sizeof(int));
  if (!e->send || !e->sdispl || !e->recv || !e->rdispl)
    return -1;
  int owner = 0;
  for (size_t i = 0; i < n; ++i) {
    owner = 0;
    while (owner + 1 < size && bound[owner + 1] <= ids[i])
      ++owner;
    e->send[owner]++;
  }
  MPI_Alltoall(e->send, 1, MPI_INT, e->recv, 1, MPI_INT, MPI_COMM_WORLD);
  e->send_total = e->recv_total = 0;
  for (int k = 0; k < size; ++k) {
    e->sdispl[k] = (int)e->send_total;
    e->rdispl[k] = (int)e->recv_total;
    e->send_total += e->send[k];
    e->recv_total += e->recv[k];
  }
  return 0;
}

/* The replayed exchange: counts (unless reused), then `nid` int64 arrays
 * forward, then the rows forward (scatter) or back (gather). */
static void exch_replay(const exch *e, MPI_Datatype row, bool counts, int nid,
                        bool rows_back, int64_t *sid, int64_t *rid,
                        void *srows, void *rrows) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *c = malloc((size_t)size * sizeof *c);
  if (counts)
    MPI_Alltoall(e->send, 1, MPI_INT, c, 1, MPI_INT, MPI_COMM_WORLD);
  free(c);
  for (int k = 0; k < nid; ++k)
    MPI_Alltoallv(sid, e->send, e->sdispl, MPI_INT64_T, rid, e->recv,
                  e->rdispl, MPI_INT64_T, MPI_COMM_WORLD);
  if (rows_back)
    MPI_Alltoallv(rrows, e->recv, e->rdispl, row, srows, e->send, e->sdispl,
                  row, MPI_COMM_WORLD);
  else
    MPI_Alltoallv(srows, e->send, e->sdispl, row, rrows, e->recv, e->rdispl,
                  row, MPI_COMM_WORLD);
}

typedef struct result {
  double call, local, mpi; /* seconds */
  double sent_bytes;       /* per rank, mean */
} result;

static void print_row(const bench_cfg *c, const workload *w, const char *op,
                      const result *r) {
  if (c->rank != 0)
    return;
  char name[64];
  snprintf(name, sizeof name, "%s %" PRId64 "x%" PRId64 " f32", w->name,
           w->rows, w->width);
  double lookups = (double)c->lookups * c->size;
  double other = r->call - r->local - r->mpi;
  printf("%-24s %-18s %9.3f %10.3f %12.3f %9.3f %8.3f %6.1f %5.1f %6.1f\n",
         name, op, r->call * 1e3, r->call > 0 ? lookups / r->call / 1e6 : 0.0,
         r->sent_bytes / 1e6, r->local * 1e3, r->mpi * 1e3,
         100.0 * r->local / r->call, 100.0 * r->mpi / r->call,
         100.0 * other / r->call);
}

/* One workload: the gather and the scatter-add. Returns an exit status
 * (agreed). */
static int bench_workload(const bench_cfg *c, const workload *w) {
  char msg[MPI_CLI_MSG] = "";
  int code = 0;
  int64_t lo, hi, L = c->lookups;
  clg_mpi_even_rows(w->rows, c->size, c->rank, &lo, &hi);
  size_t rb = (size_t)w->width * sizeof(float);
  size_t nloc = (size_t)(hi - lo);
  int64_t *bound = malloc(((size_t)c->size + 1) * sizeof *bound);
  float *shard = malloc(nloc * rb + 1);
  int64_t *ids = malloc((size_t)L * sizeof *ids + 8);
  int64_t *uniq = malloc((size_t)L * sizeof *uniq + 8);
  float *out = malloc((size_t)L * rb + 1);
  float *upd = malloc((size_t)L * rb + 1);
  double *t = malloc(3 * (size_t)c->reps * sizeof *t);
  if (!bound || !shard || !ids || !uniq || !out || !upd || !t) {
    code = CLI_EXIT_DEVICE;
    snprintf(msg, sizeof msg, "out of host memory for the %s workload",
             w->name);
  }
  if ((code = mpi_cli_agree(c->rank, code, msg)) != 0)
    goto done;
  for (int k = 0; k < c->size; ++k) {
    int64_t bhi;
    clg_mpi_even_rows(w->rows, c->size, k, &bound[k], &bhi);
  }
  bound[c->size] = w->rows;
  for (size_t i = 0; i < nloc; ++i)
    for (int64_t j = 0; j < w->width; ++j)
      shard[i * (size_t)w->width + (size_t)j] =
          (float)((lo + (int64_t)i) % 1000) + 0.001f * (float)j;
  for (size_t i = 0; i < (size_t)L * (size_t)w->width; ++i)
    upd[i] = 1.0f;
  uint64_t seed = 0x1234567ull + 7919ull * (uint64_t)c->rank;
  for (int64_t i = 0; i < L; ++i)
    ids[i] = (int64_t)(rng_next(&seed) % (uint64_t)w->rows);

  /* The library's exchanges, from the index sets: gather deduplicates. */
  memcpy(uniq, ids, (size_t)L * sizeof *ids);
  qsort(uniq, (size_t)L, sizeof *uniq, cmp_i64);
  size_t u = 0;
  for (int64_t i = 0; i < L; ++i)
    if (i == 0 || uniq[i] != uniq[u - 1])
      uniq[u++] = uniq[i];
  exch eg = {0}, es = {0};
  if (exch_make(&eg, c->size, bound, uniq, u) != 0 ||
      exch_make(&es, c->size, bound, ids, (size_t)L) != 0) {
    code = CLI_EXIT_DEVICE;
    snprintf(msg, sizeof msg, "out of host memory");
  }
  int64_t served = eg.recv_total, received = es.recv_total;
  int64_t most = served > received ? served : received;
  int64_t most_sent = eg.send_total > es.send_total ? eg.send_total
                                                     : es.send_total;
  /* Buffers for the local runs and the replays. */
  int64_t *lid = malloc((size_t)most * sizeof *lid + 8);
  int64_t *rid = malloc((size_t)most * sizeof *rid + 8);
  unsigned char *rrows = malloc((size_t)most * rb + 1);
  unsigned char *srows = malloc((size_t)most_sent * rb + 1);
  if (!lid || !rid || !rrows || !srows) {
    code = CLI_EXIT_DEVICE;
    snprintf(msg, sizeof msg, "out of host memory");
  }
  if ((code = mpi_cli_agree(c->rank, code, msg)) != 0)
    goto free_exch;
  memset(rrows, 0, (size_t)most * rb + 1);
  memset(srows, 0, (size_t)most_sent * rb + 1);
  double sent_g = 0, sent_s = 0, sent_r = 0;
  for (int k = 0; k < c->size; ++k)
    if (k != c->rank) {
      sent_g += (double)eg.send[k] * 8.0 + (double)eg.recv[k] * (double)rb;
      sent_s += (double)es.send[k] * (16.0 + (double)rb);
      sent_r += (double)eg.send[k] * 4.0 + (double)es.send[k] * (double)rb;
    }
  double sums[3] = {sent_g, sent_s, sent_r}, tot[3];
  MPI_Allreduce(sums, tot, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  MPI_Datatype row;
  MPI_Type_contiguous((int)rb, MPI_BYTE, &row);
  MPI_Type_commit(&row);
  int64_t sshape[2] = {hi - lo, w->width}, ishape[2] = {L, 1},
          oshape[2] = {L, w->width};
  clg_mpi_table table = {MPI_COMM_WORLD, c->ctx, w->rows, lo, hi,
                         clg_tensor_host(CLG_DTYPE_FLOAT, 2, sshape, shard),
                         NULL};
  /* --shard device: the shard in a cl_mem (plans stage it mapped). */
  cl_mem shard_mem = NULL;
  if (c->device_shard) {
    cl_int err = CL_SUCCESS;
    shard_mem = clCreateBuffer(clg_context_cl_context(c->ctx),
                               CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               nloc * rb + 4, shard, &err);
    if (!shard_mem) {
      code = CLI_EXIT_DEVICE;
      snprintf(msg, sizeof msg, "clCreateBuffer of the shard: OpenCL error %d",
               (int)err);
    }
    table.shard = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, sshape, shard_mem, 0);
  }
  if ((code = mpi_cli_agree(c->rank, code, msg)) != 0)
    goto free_shard;
  clg_tensor ti = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, ids);
  clg_tensor to = clg_tensor_host(CLG_DTYPE_FLOAT, 2, oshape, out);
  clg_tensor ti2 = clg_tensor_host(CLG_DTYPE_INT64, 2, ishape, ids);
  clg_tensor tu = clg_tensor_host(CLG_DTYPE_FLOAT, 2, oshape, upd);
  clg_scatter_params add = {CLG_REDUCTION_ADD, CLG_DUPLICATES_ERROR};
  clg_params snd = {.op = CLG_OP_SCATTER_ND};
  /* Ops 2 and 3 go through one plan: its gathers keep their index, which
   * its scatters (indices NULL) reuse. */
  clg_mpi_plan *plan = NULL;
  clg_status pst = clg_mpi_plan_create(&table, &plan);
  if (pst != CLG_SUCCESS) { /* agreed by the library */
    mpi_cli_error0(c->rank, "%s", clg_mpi_last_error());
    code = cli_exit_for_status(pst);
  }
  static const char *const names[4] = {"gather", "scatter-add", "plan gather",
                                        "plan scatter reuse"};

  for (int op = 0; op < 4 && code == 0; ++op) {
    bool gather = op % 2 == 0, planned = op >= 2;
    result res = {0, 0, 0,
                  (op == 3 ? tot[2] : gather ? tot[0] : tot[1]) / c->size};
    /* The local part alone: as many rows (entries) as this rank handles. */
    int64_t m = gather ? served : received;
    uint64_t lseed = 99991ull + (uint64_t)c->rank;
    for (int64_t i = 0; i < m; ++i)
      lid[i] = nloc ? (int64_t)(rng_next(&lseed) % (uint64_t)nloc) : 0;
    int64_t lshape[2] = {m, 1}, rshape[2] = {m, w->width};
    clg_tensor li = clg_tensor_host(CLG_DTYPE_INT64, gather ? 1 : 2, lshape,
                                    lid);
    clg_tensor lr = clg_tensor_host(CLG_DTYPE_FLOAT, 2, rshape, rrows);
    /* The three measurements interleaved, rep by rep, so that a machine's
     * changing load falls on all three alike; rep -1 is the untimed
     * warm-up (program builds, variant tuning). */
    double *tc = t, *tl = t + c->reps, *tm = t + 2 * c->reps;
    for (int rep = -1; rep < c->reps && code == 0; ++rep) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      clg_status st =
          planned ? (gather ? clg_mpi_plan_gather(plan, &ti, &to)
                            : clg_mpi_plan_scatter(plan, NULL, &tu, &add))
          : gather ? clg_mpi_gather(&table, &ti, &to)
                   : clg_mpi_scatter(&table, &ti2, &tu, &add);
      double dt = slowest(MPI_Wtime() - t0);
      if (st != CLG_SUCCESS) { /* agreed by the library */
        mpi_cli_error0(c->rank, "%s", clg_mpi_last_error());
        code = cli_exit_for_status(st);
        break;
      }
      if (rep >= 0)
        tc[rep] = dt;

      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      st = CLG_SUCCESS;
      if (m > 0)
        st = gather ? clg_gather(c->ctx, &table.shard, &li, 0, &lr, NULL, 0,
                                 NULL, NULL)
                    : clg_scatter(c->ctx, &snd, &add, &table.shard, &li, &lr,
                                  &table.shard, NULL, 0, NULL, NULL);
      dt = MPI_Wtime() - t0;
      if (st != CLG_SUCCESS)
        snprintf(msg, sizeof msg, "the local %s: %s",
                 gather ? "gather" : "scatter", clg_last_error());
      if ((code = mpi_cli_agree(c->rank,
                                st != CLG_SUCCESS ? cli_exit_for_status(st) : 0,
                                msg)) != 0)
        break;
      dt = slowest(dt);
      if (rep >= 0)
        tl[rep] = dt;

      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      if (gather) {
        exch_replay(&eg, row, true, 1, true, uniq, rid, srows, rrows);
      } else if (!planned) {
        exch_replay(&es, row, true, 2, false, ids, rid, srows, rrows);
      } else {
        /* Reused: entries per distinct id (ints, the gather's counts),
         * then the rows. */
        MPI_Alltoallv(uniq, eg.send, eg.sdispl, MPI_INT, rid, eg.recv,
                      eg.rdispl, MPI_INT, MPI_COMM_WORLD);
        exch_replay(&es, row, false, 0, false, ids, rid, srows, rrows);
      }
      dt = slowest(MPI_Wtime() - t0);
      if (rep >= 0)
        tm[rep] = dt;
    }
    if (code != 0)
      break;
    res.call = median(tc, c->reps);
    res.local = median(tl, c->reps);
    res.mpi = median(tm, c->reps);
    print_row(c, w, names[op], &res);
  }
  clg_mpi_plan_destroy(plan);
free_shard:
  if (shard_mem)
    clReleaseMemObject(shard_mem);
  MPI_Type_free(&row);
free_exch:
  free(lid);
  free(rid);
  free(rrows);
  free(srows);
  exch_free(&eg);
  exch_free(&es);
done:
  free(bound);
  free(shard);
  free(ids);
  free(uniq);
  free(out);
  free(upd);
  free(t);
  return code;
}

static int bench_usage(int rank, const char *fmt, const char *arg) {
  if (rank == 0) {
    fputs(MPI_CLI_PROG ": bench: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    mpi_cli_usage(1);
  }
  return CLI_EXIT_USAGE;
}

int mpi_cli_bench(int argc, char **argv) {
  int rank = mpi_cli_launcher_rank();
  const char *rows_s = NULL, *width_s = NULL, *look_s = NULL, *reps_s = NULL,
             *device = NULL, *shard_s = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      if (rank == 0)
        mpi_cli_usage(0);
      return CLI_EXIT_OK;
    }
    int m;
    if ((m = cli_match_option(argc, argv, &i, "--rows", NULL, &v)) == 1)
      rows_s = v;
    else if (m == 0 &&
             (m = cli_match_option(argc, argv, &i, "--width", NULL, &v)) == 1)
      width_s = v;
    else if (m == 0 && (m = cli_match_option(argc, argv, &i, "--lookups",
                                             NULL, &v)) == 1)
      look_s = v;
    else if (m == 0 &&
             (m = cli_match_option(argc, argv, &i, "--reps", NULL, &v)) == 1)
      reps_s = v;
    else if (m == 0 && (m = cli_match_option(argc, argv, &i, "--device", "-d",
                                             &v)) == 1)
      device = v;
    else if (m == 0 &&
             (m = cli_match_option(argc, argv, &i, "--shard", NULL, &v)) == 1)
      shard_s = v;
    else if (m < 0)
      return bench_usage(rank, "option '%s' needs a value", argv[i]);
    else
      return bench_usage(rank, "unexpected argument '%s'", argv[i]);
  }
  int64_t rows = 0, width = 0, lookups = 4096, reps = 10;
  if (rows_s && (cli_parse_int64(rows_s, &rows) != 0 || rows < 1))
    return bench_usage(rank, "invalid --rows '%s' (a positive integer)",
                       rows_s);
  if (width_s && (cli_parse_int64(width_s, &width) != 0 || width < 1 ||
                  width > (1 << 24)))
    return bench_usage(rank, "invalid --width '%s' (1 to 16777216)", width_s);
  if (look_s && (cli_parse_int64(look_s, &lookups) != 0 || lookups < 1 ||
                 lookups > (1 << 26)))
    return bench_usage(rank, "invalid --lookups '%s' (1 to 67108864)",
                       look_s);
  if (reps_s && (cli_parse_int64(reps_s, &reps) != 0 || reps < 1 ||
                 reps > 1000))
    return bench_usage(rank, "invalid --reps '%s' (1 to 1000)", reps_s);
  if (shard_s && strcmp(shard_s, "host") != 0 && strcmp(shard_s, "device") != 0)
    return bench_usage(rank, "invalid --shard '%s' (host or device)",
                       shard_s);
  workload wl[2] = {{"W1", 50000, 768}, {"W2", 1000000, 16}};
  int nwl = 2;
  if (rows_s || width_s) {
    wl[0] = (workload){"custom", rows_s ? rows : 50000, width_s ? width : 768};
    nwl = 1;
  }

  MPI_Init(&argc, &argv);
  bench_cfg c = {0, 1, lookups, (int)reps, NULL,
                 shard_s && strcmp(shard_s, "device") == 0};
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size);
  char msg[MPI_CLI_MSG] = "";
  int code = 0;
  clg_status st = clg_context_create_default(device, &c.ctx);
  if (st != CLG_SUCCESS) {
    snprintf(msg, sizeof msg, "%s", cli_library_message(st));
    code = cli_exit_for_status(st);
  }
  code = mpi_cli_agree(c.rank, code, msg);
  if (code == 0 && c.rank == 0) {
    char dev[256] = "?";
    clGetDeviceInfo(clg_context_device(c.ctx), CL_DEVICE_NAME, sizeof dev - 1,
                    dev, NULL);
    printf("clgather-mpi bench: %d ranks, device of rank 0: %s, shards in "
           "%s memory\n"
           "%" PRId64 " lookups per rank (uniform over the table); median of "
           "%d rounds (call, local, mpi timed in turn) after a warm-up "
           "round;\neach time is the slowest rank's\n\n",
           c.size, dev, c.device_shard ? "device (cl_mem)" : "host", lookups,
           c.reps);
    printf("%-24s %-18s %9s %10s %12s %9s %8s %6s %5s %6s\n", "table", "op",
           "call ms", "Mlookup/s", "sent MB/rank", "local ms", "mpi ms",
           "local%", "mpi%", "other%");
    fflush(stdout);
  }
  for (int k = 0; k < nwl && code == 0; ++k) {
    code = bench_workload(&c, &wl[k]);
    if (c.rank == 0)
      fflush(stdout);
  }
  if (code == 0 && c.rank == 0)
    printf(
        "\ncall: clg_mpi_gather / clg_mpi_scatter (add), barrier before, "
        "wall time of the slowest rank;\nplan: the same through one "
        "clg_mpi_plan (workspace kept), its scatter-add reusing the "
        "gather's index (indices NULL).\n"
        "local: a clg_gather / clg_scatter alone on the rank's shard of as "
        "many rows as it serves in the call.\n"
        "mpi: the call's MPI_Alltoall + MPI_Alltoallv exchanges replayed "
        "alone with the same counts.\n"
        "other = call - local - mpi: bounds check, dedup/sort, bucketing, "
        "host copies, agreements.\n"
        "sent MB/rank: bytes a rank sends to other ranks per call (ids, "
        "positions or entry counts, rows), mean over ranks.\n");
  clg_context_destroy(c.ctx);
  MPI_Finalize();
  return code;
}
