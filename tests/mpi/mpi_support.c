/* Shared by the clgather_mpi test programs (test_mpi.c, test_mpi_plan.c):
 * failure counting, the synthetic tables, index sets and entries every rank
 * builds from fixed seeds, shard layouts, and the check that every rank got
 * the same status and message. */
#include "mpi_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int g_rank, g_size, g_failures;
clg_context *g_ctx;

void mpi_test_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "rank %d: %s:%d: ", g_rank, file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  ++g_failures;
}

void mpi_test_start(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (clg_context_create_default(NULL, &g_ctx) != CLG_SUCCESS) {
    fprintf(stderr, "rank %d: no OpenCL device: %s\n", g_rank,
            clg_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int mpi_test_end(const char *name) {
  int total = 0;
  MPI_Allreduce(&g_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0)
    printf("%s: %d ranks, %d failures\n", name, g_size, total);
  clg_context_destroy(g_ctx);
  MPI_Finalize();
  return total ? 1 : 0;
}

uint32_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return (uint32_t)(x ^ (x >> 33));
}

/* The table: rows x width floats, small distinct values (exact sums). */
float *make_table(int64_t rows, int64_t width, unsigned seed) {
  float *t = malloc((size_t)(rows * width) * 4 + 4);
  for (int64_t i = 0; i < rows * width; ++i)
    t[i] = (float)((int)(mix((uint64_t)i * 31 + seed) % 2001) - 1000) / 64.0f;
  return t;
}

/* Rank r's indices: n of them, from `distinct` ids (heavy duplicates when
 * small), some negative. */
int64_t *make_ids(int r, int64_t n, int64_t rows, int64_t distinct,
                         unsigned seed) {
  int64_t *v = malloc((size_t)(n ? n : 1) * 8);
  for (int64_t i = 0; i < n; ++i) {
    int64_t id = (int64_t)(mix((uint64_t)r * 1000003 + (uint64_t)i * 7 + seed) %
                           (uint64_t)distinct) % rows;
    v[i] = (mix((uint64_t)i + seed * 13u) & 1) ? id - rows : id;
  }
  return v;
}

/* This rank's shard bounds under `layout`: 0 even, 1 uneven (rank r
 * weighs r + 1), 2 everything on the last rank. */
void bounds(int64_t rows, int layout, int r, int64_t *lo, int64_t *hi) {
  if (layout == 0) {
    clg_mpi_even_rows(rows, g_size, r, lo, hi);
    return;
  }
  if (layout == 2) {
    *lo = r == g_size - 1 ? 0 : 0;
    *hi = r == g_size - 1 ? rows : 0;
    return;
  }
  int64_t total = (int64_t)g_size * (g_size + 1) / 2, acc = 0;
  for (int k = 0; k < r; ++k)
    acc += k + 1;
  *lo = rows * acc / total;
  *hi = rows * (acc + r + 1) / total;
}


void table_open(table_set *s, int64_t rows, int64_t width, int layout,
                       bool on_device, unsigned seed) {
  memset(s, 0, sizeof *s);
  s->all = make_table(rows, width, seed);
  int64_t lo, hi;
  bounds(rows, layout, g_rank, &lo, &hi);
  size_t bytes = (size_t)((hi - lo) * width) * 4;
  s->shard = malloc(bytes + 4);
  memcpy(s->shard, s->all + lo * width, bytes);
  int64_t shape[2] = {hi - lo, width};
  s->t = (clg_mpi_table){.comm = MPI_COMM_WORLD,
                         .ctx = g_ctx,
                         .rows = rows,
                         .lo = lo,
                         .hi = hi};
  if (on_device) {
    cl_int err;
    s->mem = clCreateBuffer(clg_context_cl_context(g_ctx),
                            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            bytes ? bytes : 4, s->shard, &err);
    CHECK(s->mem != NULL, "clCreateBuffer %d", err);
    s->t.shard = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, shape, s->mem, 0);
  } else {
    s->t.shard = clg_tensor_host(CLG_DTYPE_FLOAT, 2, shape, s->shard);
  }
}

/* The shard's current bytes (read back from the device if there). */
const float *table_rows(table_set *s) {
  size_t bytes = (size_t)((s->t.hi - s->t.lo) * s->t.shard.shape[1]) * 4;
  if (s->mem && bytes)
    clEnqueueReadBuffer(clg_context_queue(g_ctx), s->mem, CL_TRUE, 0, bytes,
                        s->shard, 0, NULL, NULL);
  return s->shard;
}

void table_close(table_set *s) {
  if (s->mem)
    clReleaseMemObject(s->mem);
  free(s->all);
  free(s->shard);
}

/* Every rank got `st` and the same message as rank 0. */
void expect_everywhere(clg_status st, clg_status want,
                              const char *needle, const char *what) {
  CHECK(st == want, "%s: status %d, expected %d (%s)", what, (int)st,
        (int)want, clg_mpi_last_error());
  char mine[1024], root[1024];
  snprintf(mine, sizeof mine, "%s", clg_mpi_last_error());
  memcpy(root, mine, sizeof root);
  MPI_Bcast(root, sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK(strcmp(mine, root) == 0, "%s: message differs from rank 0's: '%s' vs '%s'",
        what, mine, root);
  if (needle)
    CHECK(strstr(mine, needle) != NULL, "%s: '%s' not in '%s'", what, needle,
          mine);
}

/* Every rank's entries, concatenated in rank order (the global order). */

void make_entries(entries *e, int64_t rows, int64_t width,
                         int64_t per_rank, int64_t distinct, unsigned seed) {
  e->n_all = e->first_mine = e->n_mine = 0;
  for (int r = 0; r < g_size; ++r)
    e->n_all += per_rank + r;
  e->ids = malloc((size_t)(e->n_all ? e->n_all : 1) * 8);
  e->upd = malloc((size_t)(e->n_all * width) * 4 + 4);
  int64_t at = 0;
  for (int r = 0; r < g_size; ++r) {
    int64_t n = per_rank + r;
    int64_t *v = make_ids(r, n, rows, distinct, seed);
    if (r == g_rank) {
      e->first_mine = at;
      e->n_mine = n;
    }
    memcpy(e->ids + at, v, (size_t)n * 8);
    free(v);
    at += n;
  }
  for (int64_t i = 0; i < e->n_all * width; ++i)
    e->upd[i] = (float)((int)(mix((uint64_t)i * 5 + seed) % 301) - 150) / 32.0f;
}
