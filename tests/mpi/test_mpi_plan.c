/* clgather_mpi's plans (clg_mpi_plan_*) under mpirun: run with 1, 2, 3 and
 * 4 ranks by ctest, and again with the staging forced each way
 * (CLGATHER_MPI_STAGING). Every rank builds the whole table and every
 * rank's entries from fixed seeds and compares its part byte for byte with
 * the plain-C references (tests/support), step after step through one plan:
 * a gather, a scatter with fresh indices, then a scatter reusing the
 * gather's index, with every reduction, index sets growing and shrinking
 * between steps (the workspace), host and cl_mem shards, even, uneven and
 * empty shards; a reused index's duplicate error is the fresh one's, word
 * for word; and every error of the plan API on every rank, shards and
 * outputs untouched, a rank without doubles (hide_fp64.c) included. A
 * plain C program; exits 1 on any failure. */
#include "mpi_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_scatter.h"
#include "reference/reference.h"

/* The staging the plan should have taken. */
static const char *expected_staging(bool on_device) {
  const char *env = getenv("CLGATHER_MPI_STAGING");
  if (env && (strcmp(env, "host") == 0 || strcmp(env, "mapped") == 0))
    return env;
  return on_device ? "mapped" : "host";
}

/* This rank's index shape for n ids: [2, n/2] when n is even, else [n]. */
static int32_t index_shape(int64_t n, int64_t *shape) {
  if (n % 2 == 0 && n > 0) {
    shape[0] = 2;
    shape[1] = n / 2;
    return 2;
  }
  shape[0] = n;
  return 1;
}

/* Applies every rank's entries of e to the reference table in the global
 * order. */
static void ref_apply(table_set *s, const entries *e, int64_t width,
                      clg_reduction red) {
  int64_t ds[2] = {s->t.rows, width}, is[2] = {e->n_all, 1}, bad, first;
  int rc = ref_scatter_nd(s->all, CLG_DTYPE_FLOAT, 2, ds, e->ids,
                          REF_INDEX_I64, 2, is, e->upd, (ref_reduction)red, 1,
                          &bad, &first);
  CHECK(rc == REF_OK, "reference scatter %d", rc);
}

static void expect_shard(table_set *s, int64_t width, const char *what,
                         int step) {
  const float *got = table_rows(s);
  size_t bytes = (size_t)((s->t.hi - s->t.lo) * width) * 4;
  CHECK(memcmp(got, s->all + s->t.lo * width, bytes) == 0,
        "%s, step %d: the shard differs from the single-process result", what,
        step);
}

/* Three steps through one plan: gather A, fresh scatter-add B, scatter of
 * A's gradient reusing A's index with `red`; sizes change every step. */
static void check_steps(int64_t rows, int64_t width, int layout,
                        bool on_device, int64_t per_rank, int64_t distinct,
                        clg_reduction red, unsigned seed) {
  table_set s;
  table_open(&s, rows, width, layout, on_device, seed);
  char what[128];
  snprintf(what, sizeof what,
           "rows %ld width %ld layout %d device %d reduction %d",
           (long)rows, (long)width, layout, on_device, (int)red);
  clg_mpi_plan *plan = NULL;
  clg_status st = clg_mpi_plan_create(&s.t, &plan);
  CHECK(st == CLG_SUCCESS && plan, "%s: plan: %s", what, clg_mpi_last_error());
  if (!plan) {
    table_close(&s);
    return;
  }
  CHECK(strcmp(clg_mpi_plan_staging(plan), expected_staging(on_device)) == 0,
        "%s: staging %s, expected %s", what, clg_mpi_plan_staging(plan),
        expected_staging(on_device));
  const int64_t scale[3] = {3, 1, 6}; /* per_rank x scale / 3 */
  for (int step = 0; step < 3; ++step) {
    int64_t k = per_rank * scale[step] / 3;
    entries a, b;
    make_entries(&a, rows, width, k, distinct, seed * 7 + (unsigned)step);
    make_entries(&b, rows, width, k / 2 + 1, distinct,
                 seed * 11 + (unsigned)step);
    /* Gather A: against the table as it stands. */
    int64_t n = a.n_mine, ishape[2], oshape[3];
    int32_t q = index_shape(n, ishape);
    memcpy(oshape, ishape, sizeof ishape);
    oshape[q] = width;
    float *want = malloc((size_t)(n * width) * 4 + 4);
    float *out = malloc((size_t)(n * width) * 4 + 4);
    int64_t ds[2] = {rows, width};
    CHECK(ref_gather(s.all, 4, 2, ds, a.ids + a.first_mine, REF_INDEX_I64, q,
                     ishape, 0, want) == 0,
          "reference gather");
    memset(out, 0xab, (size_t)(n * width) * 4);
    clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, q, ishape,
                                   a.ids + a.first_mine);
    clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, q + 1, oshape, out);
    st = clg_mpi_plan_gather(plan, &x, &o);
    CHECK(st == CLG_SUCCESS, "%s, step %d: gather: %s", what, step,
          clg_mpi_last_error());
    CHECK(memcmp(out, want, (size_t)(n * width) * 4) == 0,
          "%s, step %d: gathered rows differ", what, step);
    /* Scatter-add B with its own indices: the kept index stays A's. */
    int64_t bis[2] = {b.n_mine, 1}, bus[2] = {b.n_mine, width};
    clg_tensor bx = clg_tensor_host(CLG_DTYPE_INT64, 2, bis,
                                    b.ids + b.first_mine);
    clg_tensor bu = clg_tensor_host(CLG_DTYPE_FLOAT, 2, bus,
                                    b.upd + b.first_mine * width);
    clg_scatter_params add = {.reduction = CLG_REDUCTION_ADD};
    st = clg_mpi_plan_scatter(plan, &bx, &bu, &add);
    CHECK(st == CLG_SUCCESS, "%s, step %d: fresh scatter: %s", what, step,
          clg_mpi_last_error());
    ref_apply(&s, &b, width, CLG_REDUCTION_ADD);
    expect_shard(&s, width, what, step);
    /* A's gradient, reusing A's index: updates in the gather's output
     * shape. */
    clg_tensor au = clg_tensor_host(CLG_DTYPE_FLOAT, q + 1, oshape,
                                    a.upd + a.first_mine * width);
    clg_scatter_params sc = {.reduction = red,
                             .duplicates = CLG_DUPLICATES_LAST};
    st = clg_mpi_plan_scatter(plan, NULL, &au, &sc);
    CHECK(st == CLG_SUCCESS, "%s, step %d: reused scatter: %s", what, step,
          clg_mpi_last_error());
    ref_apply(&s, &a, width, red);
    expect_shard(&s, width, what, step);
    free(want);
    free(out);
    free(a.ids);
    free(a.upd);
    free(b.ids);
    free(b.upd);
  }
  clg_mpi_plan_destroy(plan);
  table_close(&s);
}

/* Reduction none, duplicates an error, reusing an index with repeats: the
 * same status and message as with the indices given; nothing written. */
static void check_reused_duplicates(bool on_device) {
  const int64_t rows = 23, width = 3;
  table_set s;
  table_open(&s, rows, width, 1, on_device, 41);
  size_t sbytes = (size_t)((s.t.hi - s.t.lo) * width) * 4;
  float *before = malloc(sbytes + 4);
  memcpy(before, table_rows(&s), sbytes);
  entries e;
  make_entries(&e, rows, width, 5, 4, 43);
  clg_mpi_plan *plan = NULL;
  CHECK(clg_mpi_plan_create(&s.t, &plan) == CLG_SUCCESS, "plan: %s",
        clg_mpi_last_error());
  int64_t n = e.n_mine, is[1] = {n}, os[2] = {n, width}, xs[2] = {n, 1};
  float *out = malloc((size_t)(n * width) * 4 + 4);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, is, e.ids + e.first_mine);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  CHECK(clg_mpi_plan_gather(plan, &x, &o) == CLG_SUCCESS, "gather: %s",
        clg_mpi_last_error());
  clg_tensor u = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os,
                                 e.upd + e.first_mine * width);
  clg_tensor x2 = clg_tensor_host(CLG_DTYPE_INT64, 2, xs,
                                  e.ids + e.first_mine);
  clg_status fresh = clg_mpi_plan_scatter(plan, &x2, &u, NULL);
  char fresh_msg[1024];
  snprintf(fresh_msg, sizeof fresh_msg, "%s", clg_mpi_last_error());
  expect_everywhere(fresh, CLG_ERROR_DUPLICATE_INDEX, "both target row",
                    "fresh duplicates");
  expect_everywhere(clg_mpi_plan_scatter(plan, NULL, &u, NULL),
                    CLG_ERROR_DUPLICATE_INDEX, fresh_msg, "reused duplicates");
  CHECK(strcmp(clg_mpi_last_error(), fresh_msg) == 0,
        "reused duplicates: '%s', fresh '%s'", clg_mpi_last_error(),
        fresh_msg);
  CHECK(memcmp(table_rows(&s), before, sbytes) == 0,
        "shard written (duplicates)");
  clg_mpi_plan_destroy(plan);
  free(out);
  free(before);
  free(e.ids);
  free(e.upd);
  table_close(&s);
}

static void check_plan_errors(bool on_device) {
  const int64_t rows = 10, width = 3;
  table_set s;
  table_open(&s, rows, width, 0, on_device, 77);
  size_t sbytes = (size_t)((s.t.hi - s.t.lo) * width) * 4;
  float *before = malloc(sbytes + 4);
  memcpy(before, table_rows(&s), sbytes);
  clg_mpi_plan *plan = NULL;
  CHECK(clg_mpi_plan_create(&s.t, &plan) == CLG_SUCCESS, "plan: %s",
        clg_mpi_last_error());
  int64_t ids[4] = {1, -10, 9, 0}, is[1] = {4}, os[2] = {4, width};
  float out[4 * 3], upd[4 * 3] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, is, ids);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_tensor u = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, upd);
  clg_scatter_params add = {.reduction = CLG_REDUCTION_ADD};

  /* Nothing to reuse yet. */
  expect_everywhere(clg_mpi_plan_scatter(plan, NULL, &u, &add),
                    CLG_ERROR_INVALID_ARGUMENT, "no index to reuse",
                    "reuse before any gather");
  /* A gather that fails (out of bounds on the last rank) drops the kept
   * index on every rank; the output is untouched. */
  CHECK(clg_mpi_plan_gather(plan, &x, &o) == CLG_SUCCESS, "gather: %s",
        clg_mpi_last_error());
  if (g_rank == g_size - 1)
    ids[3] = -11;
  memset(out, 0x5a, sizeof out);
  char needle[96];
  snprintf(needle, sizeof needle, "rank %d's indices[3] = -11", g_size - 1);
  expect_everywhere(clg_mpi_plan_gather(plan, &x, &o),
                    CLG_ERROR_INDEX_OUT_OF_BOUNDS, needle,
                    "plan gather out of bounds");
  for (size_t i = 0; i < sizeof out; ++i)
    CHECK(((unsigned char *)out)[i] == 0x5a, "output byte %zu written", i);
  expect_everywhere(clg_mpi_plan_scatter(plan, NULL, &u, &add),
                    CLG_ERROR_INVALID_ARGUMENT, "no index to reuse",
                    "reuse after a failed gather");
  ids[3] = 0;
  CHECK(clg_mpi_plan_gather(plan, &x, &o) == CLG_SUCCESS, "gather: %s",
        clg_mpi_last_error());
  /* Updates not in the gather's output shape (on the last rank). */
  int64_t bad_shape[2] = {4, g_rank == g_size - 1 ? width - 1 : width};
  clg_tensor bu = clg_tensor_host(CLG_DTYPE_FLOAT, 2, bad_shape, upd);
  expect_everywhere(clg_mpi_plan_scatter(plan, NULL, &bu, &add),
                    CLG_ERROR_SHAPE_MISMATCH, "updates must have shape",
                    "reused updates' shape");
  /* Indices reused on rank 0 only. */
  if (g_size > 1) {
    int64_t xs[2] = {4, 1};
    clg_tensor x2 = clg_tensor_host(CLG_DTYPE_INT64, 2, xs, ids);
    expect_everywhere(
        clg_mpi_plan_scatter(plan, g_rank == 0 ? NULL : &x2, &u, &add),
        CLG_ERROR_INVALID_ARGUMENT, "indices reused", "reuse on one rank");
  }
  CHECK(memcmp(table_rows(&s), before, sbytes) == 0, "shard written");
  /* clg_mpi_scatter has no index to reuse: NULL indices (on the last rank
   * only) are every rank's error. */
  {
    int64_t xs[2] = {4, 1};
    clg_tensor x2 = clg_tensor_host(CLG_DTYPE_INT64, 2, xs, ids);
    expect_everywhere(
        clg_mpi_scatter(&s.t, g_rank == g_size - 1 ? NULL : &x2, &u, &add),
        CLG_ERROR_NULL_ARGUMENT, "indices is NULL", "scatter NULL indices");
    CHECK(memcmp(table_rows(&s), before, sbytes) == 0, "shard written");
  }
  /* NULL plans: each rank's own error, no collective. */
  CHECK(clg_mpi_plan_gather(NULL, &x, &o) == CLG_ERROR_NULL_ARGUMENT,
        "NULL plan gather");
  CHECK(clg_mpi_plan_scatter(NULL, NULL, &u, &add) == CLG_ERROR_NULL_ARGUMENT,
        "NULL plan scatter");
  CHECK(clg_mpi_plan_create(&s.t, NULL) == CLG_ERROR_NULL_ARGUMENT,
        "NULL plan pointer");
  clg_mpi_plan *none = (clg_mpi_plan *)&none;
  CHECK(clg_mpi_plan_create(NULL, &none) == CLG_ERROR_NULL_ARGUMENT &&
            none == NULL,
        "NULL table: status or *plan");
  CHECK(strcmp(clg_mpi_plan_staging(NULL), "") == 0, "staging of NULL");
  clg_mpi_plan_destroy(NULL);
  /* A bad geometry: no plan on any rank. */
  if (g_size > 1) {
    clg_mpi_table bad = s.t;
    if (g_rank == 0)
      bad.rows += 1;
    clg_mpi_plan *p2 = (clg_mpi_plan *)&p2;
    expect_everywhere(clg_mpi_plan_create(&bad, &p2),
                      CLG_ERROR_INVALID_ARGUMENT, "rows", "plan geometry");
    CHECK(p2 == NULL, "a plan was returned for a bad geometry");
  }
  clg_mpi_plan_destroy(plan);
  free(before);
  table_close(&s);
}

/* The last rank's shard is a cl_mem at byte offset 2: a gather and a
 * scatter under reduction none take it, a reduction (which reads and writes
 * whole floats) is refused on every rank before any shard is written, and
 * the failed scatter keeps the gather's index for the next one. */
static void check_misaligned_shard(void) {
  const int64_t rows = 17, width = 3;
  table_set s;
  table_open(&s, rows, width, 0, false, 61);
  size_t sbytes = (size_t)((s.t.hi - s.t.lo) * width) * 4;
  cl_mem odd = NULL;
  const size_t off = g_rank == g_size - 1 ? 2 : 0;
  cl_int err = CL_SUCCESS;
  odd = clCreateBuffer(clg_context_cl_context(g_ctx), CL_MEM_READ_WRITE,
                       sbytes + off + 4, NULL, &err);
  CHECK(odd != NULL, "clCreateBuffer %d", err);
  cl_command_queue q = clg_context_queue(g_ctx);
  if (sbytes)
    clEnqueueWriteBuffer(q, odd, CL_TRUE, off, sbytes, s.shard, 0, NULL, NULL);
  int64_t shape[2] = {s.t.hi - s.t.lo, width};
  s.t.shard = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, shape, odd, off);
  float *got = malloc(sbytes + 4);
  clg_mpi_plan *plan = NULL;
  CHECK(clg_mpi_plan_create(&s.t, &plan) == CLG_SUCCESS, "plan: %s",
        clg_mpi_last_error());
  entries e;
  make_entries(&e, rows, width, 4, 5, 67);
  int64_t n = e.n_mine, is[1] = {n}, os[2] = {n, width};
  float *out = malloc((size_t)(n * width) * 4 + 4);
  float *want = malloc((size_t)(n * width) * 4 + 4);
  int64_t ds[2] = {rows, width};
  ref_gather(s.all, 4, 2, ds, e.ids + e.first_mine, REF_INDEX_I64, 1, is, 0,
             want);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, is, e.ids + e.first_mine);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  CHECK(clg_mpi_plan_gather(plan, &x, &o) == CLG_SUCCESS,
        "gather from an odd offset: %s", clg_mpi_last_error());
  CHECK(memcmp(out, want, (size_t)(n * width) * 4) == 0,
        "gather from an odd offset: wrong rows");
  clg_tensor u = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os,
                                 e.upd + e.first_mine * width);
  clg_scatter_params add = {.reduction = CLG_REDUCTION_ADD};
  expect_everywhere(clg_mpi_plan_scatter(plan, NULL, &u, &add),
                    CLG_ERROR_INVALID_ARGUMENT, "not a multiple of 4 bytes",
                    "reduction add on an odd offset");
  if (sbytes)
    clEnqueueReadBuffer(q, odd, CL_TRUE, off, sbytes, got, 0, NULL, NULL);
  CHECK(memcmp(got, s.all + s.t.lo * width, sbytes) == 0,
        "a shard was written by a refused scatter");
  clg_scatter_params last = {.reduction = CLG_REDUCTION_NONE,
                             .duplicates = CLG_DUPLICATES_LAST};
  CHECK(clg_mpi_plan_scatter(plan, NULL, &u, &last) == CLG_SUCCESS,
        "reduction none on an odd offset, reusing the index: %s",
        clg_mpi_last_error());
  ref_apply(&s, &e, width, CLG_REDUCTION_NONE);
  if (sbytes)
    clEnqueueReadBuffer(q, odd, CL_TRUE, off, sbytes, got, 0, NULL, NULL);
  CHECK(memcmp(got, s.all + s.t.lo * width, sbytes) == 0,
        "reduction none on an odd offset: the shard differs");
  clg_mpi_plan_destroy(plan);
  clReleaseMemObject(odd);
  free(got);
  free(out);
  free(want);
  free(e.ids);
  free(e.upd);
  table_close(&s);
}

/* The last rank's device lacks doubles (cl_khr_fp64 hidden, hide_fp64.c):
 * a reduction on a float64 table is refused on every rank with the same
 * message naming that rank, before any shard is written, with fresh
 * indices and reusing a gather's; the gather (bytes only) runs, and with
 * the extension back the same scatter-add gives the sequential result. */
static void check_no_fp64(void) {
  const int64_t rows = 13, width = 2, per = 5, total = per * g_size;
  double *all = malloc((size_t)(rows * width) * 8);
  for (int64_t i = 0; i < rows * width; ++i)
    all[i] = 0.5 * (double)i - 3;
  int64_t lo, hi;
  clg_mpi_even_rows(rows, g_size, g_rank, &lo, &hi);
  size_t sbytes = (size_t)((hi - lo) * width) * 8;
  double *shard = malloc(sbytes + 8);
  memcpy(shard, all + lo * width, sbytes);
  int64_t shape[2] = {hi - lo, width};
  clg_mpi_table t = {.comm = MPI_COMM_WORLD, .ctx = g_ctx, .rows = rows,
                     .lo = lo, .hi = hi,
                     .shard = clg_tensor_host(CLG_DTYPE_DOUBLE, 2, shape,
                                              shard)};
  /* Every rank's ids (some negative, repeats) and update rows, rank 0's
   * first: the global order. */
  int64_t *ids = malloc((size_t)total * 8);
  double *upd = malloc((size_t)(total * width) * 8);
  for (int64_t k = 0; k < total; ++k) {
    ids[k] = (k * 7 + 3) % rows - (k % 3 == 0 ? rows : 0);
    for (int64_t c = 0; c < width; ++c)
      upd[k * width + c] = 0.25 * (double)(k + c) + 1;
  }
  int64_t *mine = ids + g_rank * per;
  double *umine = upd + g_rank * per * width;
  double out[5 * 2], want[5 * 2];
  for (int64_t i = 0; i < per; ++i)
    memcpy(want + i * width, all + ((mine[i] + rows) % rows) * width,
           (size_t)width * 8);
  int64_t xs[2] = {per, 1}, os[2] = {per, width};
  clg_tensor x1 = clg_tensor_host(CLG_DTYPE_INT64, 1, xs, mine);
  clg_tensor x2 = clg_tensor_host(CLG_DTYPE_INT64, 2, xs, mine);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_DOUBLE, 2, os, out);
  clg_tensor u = clg_tensor_host(CLG_DTYPE_DOUBLE, 2, os, umine);
  clg_mpi_plan *plan = NULL;
  CHECK(clg_mpi_plan_create(&t, &plan) == CLG_SUCCESS, "plan: %s",
        clg_mpi_last_error());
  g_hide_fp64 = g_rank == g_size - 1;
  CHECK(clg_mpi_plan_gather(plan, &x1, &o) == CLG_SUCCESS,
        "gather of float64 rows without cl_khr_fp64 on the last rank: %s",
        clg_mpi_last_error());
  CHECK(memcmp(out, want, sizeof out) == 0, "gather of float64 rows: wrong");
  char needle[160];
  snprintf(needle, sizeof needle,
           "reduction add on double needs double precision, which rank %d's "
           "device lacks (no cl_khr_fp64)",
           g_size - 1);
  clg_scatter_params add = {.reduction = CLG_REDUCTION_ADD};
  expect_everywhere(clg_mpi_plan_scatter(plan, &x2, &u, &add),
                    CLG_ERROR_UNSUPPORTED_DTYPE, needle,
                    "add on float64, no cl_khr_fp64 on the last rank");
  CHECK(memcmp(shard, all + lo * width, sbytes) == 0,
        "a refused float64 scatter-add wrote a shard");
  expect_everywhere(clg_mpi_plan_scatter(plan, NULL, &u, &add),
                    CLG_ERROR_UNSUPPORTED_DTYPE, needle,
                    "add on float64 reusing the gather's index, no "
                    "cl_khr_fp64 on the last rank");
  CHECK(memcmp(shard, all + lo * width, sbytes) == 0,
        "a refused float64 scatter-add (index reused) wrote a shard");
  g_hide_fp64 = false;
  CHECK(clg_mpi_plan_scatter(plan, NULL, &u, &add) == CLG_SUCCESS,
        "add on float64 with cl_khr_fp64 back: %s", clg_mpi_last_error());
  for (int64_t k = 0; k < total; ++k)
    for (int64_t c = 0; c < width; ++c)
      all[((ids[k] + rows) % rows) * width + c] += upd[k * width + c];
  CHECK(memcmp(shard, all + lo * width, sbytes) == 0,
        "add on float64 with cl_khr_fp64 back: the shard differs");
  clg_mpi_plan_destroy(plan);
  free(ids);
  free(upd);
  free(shard);
  free(all);
}

int main(int argc, char **argv) {
  mpi_test_start(&argc, &argv);
  unsigned seed = 3;
  for (int layout = 0; layout < 3; ++layout)
    for (int dev = 0; dev < 2; ++dev) {
      for (int red = 0; red <= 4; ++red)
        check_steps(53, 4, layout, dev, 24, 6, (clg_reduction)red, seed++);
      check_steps(3, 2, layout, dev, 6, 3, CLG_REDUCTION_ADD, seed++);
    }
  for (int dev = 0; dev < 2; ++dev) {
    check_reused_duplicates(dev);
    check_plan_errors(dev);
  }
  check_misaligned_shard();
  check_no_fp64();
  return mpi_test_end("test_mpi_plan");
}
