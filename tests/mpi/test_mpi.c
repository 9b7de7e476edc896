/* clgather_mpi (host/mpi/) under mpirun: run with 1, 2, 3 and 4 ranks by
 * ctest. Every rank builds the whole (small) table and every rank's
 * indices and updates from fixed seeds, so each can compute the
 * single-process result with the plain-C references (tests/support) and
 * compare its own part byte for byte: gathers with heavy duplicates,
 * negative ids, int32 and int64, even, uneven and empty shards, a rank
 * without indices, host and cl_mem shards; scatters with every reduction
 * applied in the global order of the entries (rank 0's first), duplicates
 * last; and every error path on every rank: the same status and message
 * everywhere, outputs and shards untouched. A plain C program (MPI and
 * Criterion's fork-per-test do not mix); exits 1 on any failure. */
#include "mpi_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_scatter.h"
#include "reference/reference.h"

/* ------------------------------------------------------------- gathers */

static void check_gather(int64_t rows, int64_t width, int layout,
                         bool on_device, int64_t per_rank, int64_t distinct,
                         clg_dtype itype, unsigned seed) {
  table_set s;
  table_open(&s, rows, width, layout, on_device, seed);
  /* Rank 0 has no indices in every other case. */
  int64_t n = (seed % 2 && g_rank == 0) ? 0 : per_rank + g_rank;
  int64_t *ids = make_ids(g_rank, n, rows, distinct, seed);
  int32_t *ids32 = malloc((size_t)(n ? n : 1) * 4);
  for (int64_t i = 0; i < n; ++i)
    ids32[i] = (int32_t)ids[i];
  float *out = malloc((size_t)(n * width) * 4 + 4),
        *want = malloc((size_t)(n * width) * 4 + 4);
  int64_t ds[2] = {rows, width}, is[1] = {n};
  CHECK(ref_gather(s.all, 4, 2, ds, ids, REF_INDEX_I64, 1, is, 0, want) == 0,
        "reference gather");
  memset(out, 0xab, (size_t)(n * width) * 4);
  int64_t os[2] = {n, width};
  clg_tensor x = itype == CLG_DTYPE_INT64
                     ? clg_tensor_host(CLG_DTYPE_INT64, 1, is, ids)
                     : clg_tensor_host(CLG_DTYPE_INT32, 1, is, ids32);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_status st = clg_mpi_gather(&s.t, &x, &o);
  CHECK(st == CLG_SUCCESS, "gather rows %ld layout %d: %s", (long)rows, layout,
        clg_mpi_last_error());
  CHECK(memcmp(out, want, (size_t)(n * width) * 4) == 0,
        "gather rows %ld width %ld layout %d device %d seed %u: wrong rows",
        (long)rows, (long)width, layout, on_device, seed);
  free(ids);
  free(ids32);
  free(out);
  free(want);
  table_close(&s);
}

/* ------------------------------------------------------------ scatters */

static void check_scatter(int64_t rows, int64_t width, int layout,
                          bool on_device, int64_t per_rank, int64_t distinct,
                          clg_reduction red, unsigned seed) {
  table_set s;
  table_open(&s, rows, width, layout, on_device, seed);
  entries e;
  make_entries(&e, rows, width, per_rank, distinct, seed);
  /* The single-process result: all entries in the global order. */
  int64_t ds[2] = {rows, width}, is[2] = {e.n_all, 1}, bad = 0, first = 0;
  int rc = ref_scatter_nd(s.all, CLG_DTYPE_FLOAT, 2, ds, e.ids, REF_INDEX_I64,
                          2, is, e.upd, (ref_reduction)red, 1, &bad, &first);
  CHECK(rc == REF_OK, "reference scatter %d", rc);
  int64_t mis[2] = {e.n_mine, 1}, mus[2] = {e.n_mine, width};
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 2, mis, e.ids + e.first_mine);
  clg_tensor u =
      clg_tensor_host(CLG_DTYPE_FLOAT, 2, mus, e.upd + e.first_mine * width);
  clg_scatter_params sc = {.reduction = red, .duplicates = CLG_DUPLICATES_LAST};
  clg_status st = clg_mpi_scatter(&s.t, &x, &u, &sc);
  CHECK(st == CLG_SUCCESS, "scatter reduction %d: %s", (int)red,
        clg_mpi_last_error());
  const float *got = table_rows(&s);
  size_t bytes = (size_t)((s.t.hi - s.t.lo) * width) * 4;
  CHECK(memcmp(got, s.all + s.t.lo * width, bytes) == 0,
        "scatter reduction %d rows %ld layout %d device %d: shard differs from "
        "the single-process result",
        (int)red, (long)rows, layout, on_device);
  free(e.ids);
  free(e.upd);
  table_close(&s);
}

/* --------------------------------------------------------------- errors */

static void check_errors(void) {
  const int64_t rows = 10, width = 3;
  table_set s;
  table_open(&s, rows, width, 0, false, 99);
  size_t sbytes = (size_t)((s.t.hi - s.t.lo) * width) * 4;
  float *before = malloc(sbytes + 4);
  memcpy(before, s.shard, sbytes);

  /* An out-of-bounds id on the last rank: every rank fails, output
   * untouched everywhere. */
  int64_t ids[4] = {1, -10, 9, 0};
  if (g_rank == g_size - 1)
    ids[2] = 10;
  float out[4 * 3];
  memset(out, 0x77, sizeof out);
  int64_t is[1] = {4}, os[2] = {4, width};
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, is, ids);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  char needle[96];
  snprintf(needle, sizeof needle, "rank %d's indices[2] = 10", g_size - 1);
  expect_everywhere(clg_mpi_gather(&s.t, &x, &o), CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                    needle, "gather out of bounds");
  for (size_t i = 0; i < sizeof out; ++i)
    CHECK(((unsigned char *)out)[i] == 0x77, "gather output byte %zu written",
          i);

  /* The same through the scatter: the shard untouched everywhere. */
  int64_t sis[2] = {4, 1}, sus[2] = {4, width};
  float upd[4 * 3] = {0};
  clg_tensor sx = clg_tensor_host(CLG_DTYPE_INT64, 2, sis, ids);
  clg_tensor su = clg_tensor_host(CLG_DTYPE_FLOAT, 2, sus, upd);
  clg_scatter_params add = {.reduction = CLG_REDUCTION_ADD};
  expect_everywhere(clg_mpi_scatter(&s.t, &sx, &su, &add),
                    CLG_ERROR_INDEX_OUT_OF_BOUNDS, needle,
                    "scatter out of bounds");
  CHECK(memcmp(s.shard, before, sbytes) == 0, "shard written (out of bounds)");

  /* Duplicates under reduction none: rows targeted by two ranks (or one
   * rank twice on a single rank). */
  int64_t dup[2] = {3, g_size == 1 ? 3 : 5 + g_rank};
  int64_t dis[2] = {2, 1}, dus[2] = {2, width};
  float dupd[2 * 3] = {1, 2, 3, 4, 5, 6};
  clg_tensor dx = clg_tensor_host(CLG_DTYPE_INT64, 2, dis, dup);
  clg_tensor du = clg_tensor_host(CLG_DTYPE_FLOAT, 2, dus, dupd);
  expect_everywhere(clg_mpi_scatter(&s.t, &dx, &du, NULL),
                    CLG_ERROR_DUPLICATE_INDEX,
                    g_size == 1 ? "rank 0's indices[0] and rank 0's indices[1] "
                                  "both target row 3"
                                : "rank 0's indices[0] and rank 1's indices[0] "
                                  "both target row 3",
                    "scatter duplicates");
  CHECK(memcmp(s.shard, before, sbytes) == 0, "shard written (duplicates)");

  /* A bad argument on one rank only (float indices on the last rank). */
  float fids[4] = {0};
  clg_tensor fx = g_rank == g_size - 1
                      ? clg_tensor_host(CLG_DTYPE_FLOAT, 1, is, fids)
                      : clg_tensor_host(CLG_DTYPE_INT64, 1, is, ids);
  memset(out, 0x77, sizeof out);
  expect_everywhere(clg_mpi_gather(&s.t, &fx, &o),
                    CLG_ERROR_INVALID_INDICES_DTYPE, "int32 or int64",
                    "float indices on one rank");
  for (size_t i = 0; i < sizeof out; ++i)
    CHECK(((unsigned char *)out)[i] == 0x77, "output written (bad dtype)");

  /* Shards that do not tile the table (the last rank claims one row
   * less). */
  if (g_size > 1) {
    table_set b;
    table_open(&b, rows, width, 0, false, 5);
    if (g_rank == g_size - 1) {
      b.t.hi -= 1;
      b.t.shard.shape[0] -= 1;
    }
    int64_t ok[4] = {0, 1, 2, 3};
    clg_tensor ox = clg_tensor_host(CLG_DTYPE_INT64, 1, is, ok);
    expect_everywhere(clg_mpi_gather(&b.t, &ox, &o), CLG_ERROR_INVALID_ARGUMENT,
                      "do not tile", "bad geometry");
    table_close(&b);
  }
  /* Scatter options that differ between ranks: refused everywhere (they
   * would make ranks run different collectives). */
  if (g_size > 1) {
    int64_t one[1] = {g_rank % (int)rows};
    int64_t ois[2] = {1, 1}, ous[2] = {1, width};
    float oupd[3] = {1, 1, 1};
    clg_tensor ox = clg_tensor_host(CLG_DTYPE_INT64, 2, ois, one);
    clg_tensor ou = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ous, oupd);
    clg_scatter_params mixed = {.reduction = CLG_REDUCTION_NONE,
                                .duplicates = g_rank == 1
                                                  ? CLG_DUPLICATES_LAST
                                                  : CLG_DUPLICATES_ERROR};
    expect_everywhere(clg_mpi_scatter(&s.t, &ox, &ou, &mixed),
                      CLG_ERROR_INVALID_ARGUMENT,
                      "rank 1's scatter options", "options differ");
    CHECK(memcmp(s.shard, before, sbytes) == 0, "shard written (options)");
  }

  /* A bad shard on the last rank (no memory): refused before any rank
   * writes its shard. */
  {
    int64_t one[2] = {0, rows - 1};
    int64_t ois[2] = {2, 1}, ous[2] = {2, width};
    float oupd[6] = {1, 2, 3, 4, 5, 6};
    clg_tensor ox = clg_tensor_host(CLG_DTYPE_INT64, 2, ois, one);
    clg_tensor ou = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ous, oupd);
    clg_mpi_table bad = s.t;
    if (g_rank == g_size - 1)
      bad.shard.host = NULL;
    expect_everywhere(clg_mpi_scatter(&bad, &ox, &ou, &add),
                      CLG_ERROR_NULL_ARGUMENT, "table->shard.host is NULL",
                      "NULL shard on one rank");
    CHECK(memcmp(s.shard, before, sbytes) == 0, "shard written (bad shard)");
  }

  /* min on complex is refused before anything moves. */
  {
    int64_t cshape[2] = {s.t.hi - s.t.lo, 1};
    float cshard[2 * 10] = {0};
    clg_mpi_table ct = s.t;
    ct.shard = clg_tensor_host(CLG_DTYPE_COMPLEX64, 2, cshape, cshard);
    int64_t one[1] = {0};
    int64_t ois[1] = {1}, ous[2] = {1, 1};
    float cupd[2] = {1, 1};
    clg_tensor ox = clg_tensor_host(CLG_DTYPE_INT64, 1, ois, one);
    clg_tensor ou = clg_tensor_host(CLG_DTYPE_COMPLEX64, 2, ous, cupd);
    clg_scatter_params mn = {.reduction = CLG_REDUCTION_MIN};
    expect_everywhere(clg_mpi_scatter(&ct, &ox, &ou, &mn),
                      CLG_ERROR_UNSUPPORTED_DTYPE, "complex",
                      "min on complex");
  }
  free(before);
  table_close(&s);
}

int main(int argc, char **argv) {
  mpi_test_start(&argc, &argv);
  unsigned seed = 1;
  for (int layout = 0; layout < 3; ++layout)
    for (int dev = 0; dev < 2; ++dev) {
      /* Heavy duplicates (8 distinct ids), many distinct, few rows. */
      check_gather(97, 5, layout, dev, 40, 8, CLG_DTYPE_INT64, seed++);
      check_gather(97, 5, layout, dev, 25, 1000, CLG_DTYPE_INT32, seed++);
      check_gather(3, 4, layout, dev, 6, 3, CLG_DTYPE_INT64, seed++);
      check_gather(1, 2, layout, dev, 2, 1, CLG_DTYPE_INT32, seed++);
      for (int red = 0; red <= 4; ++red)
        check_scatter(61, 4, layout, dev, 30, 7, (clg_reduction)red, seed++);
      check_scatter(3, 2, layout, dev, 5, 3, CLG_REDUCTION_ADD, seed++);
    }
  /* Tall tables: the deduplication's radix sort takes 2 and 3 passes. */
  check_gather(70001, 1, 0, false, 300, 100000, CLG_DTYPE_INT64, seed++);
  check_gather(4200001, 1, 1, true, 300, 5000000, CLG_DTYPE_INT32, seed++);
  check_errors();
  return mpi_test_end("test_mpi");
}
