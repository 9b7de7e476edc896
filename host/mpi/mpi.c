/* clgather_mpi: the distributed gather and scatter over row-sharded tables
 * (include/clgather/clgather_mpi.h). Every step that can fail on some
 * ranks only ends with an agreement (clg_agree): the lowest failing rank's
 * status and message go to every rank, so all return together and no rank
 * waits in a collective the others left. */
#include "mpi_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLG_MPI_MSG 1024
static _Thread_local char g_msg[CLG_MPI_MSG];

clg_status clg__mpi_fail(clg_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_msg, sizeof g_msg, fmt, ap);
  va_end(ap);
  return st;
}

clg_status clg__mpi_error(int err, const char *call) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(err, text, &len);
  return clg__mpi_fail(CLG_ERROR_OPENCL, "%s failed: %s", call, text);
}

const char *clg_mpi_last_error(void) { return g_msg; }

void clg_mpi_even_rows(int64_t rows, int size, int rank, int64_t *lo,
                       int64_t *hi) {
  if (size < 1 || rank < 0 || rank >= size || rows < 0) {
    *lo = *hi = 0;
    return;
  }
  int64_t base = rows / size, extra = rows % size;
  *lo = rank * base + (rank < extra ? rank : extra);
  *hi = *lo + base + (rank < extra ? 1 : 0);
}

/* The local clgather call's failure, with the core library's message. */
static clg_status clg_local(clg_status st, const char *what) {
  if (st == CLG_SUCCESS)
    return st;
  return clg__mpi_fail(st, "%s: %s", what, clg_last_error());
}

/* Every rank's `st` agreed: the lowest failing rank's status and message
 * become every rank's. */
static clg_status clg_agree(MPI_Comm comm, int rank, clg_status st) {
  int mine = st == CLG_SUCCESS ? INT_MAX : rank, first = INT_MAX;
  int err = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (err != MPI_SUCCESS)
    return clg__mpi_error(err, "MPI_Allreduce");
  if (first == INT_MAX)
    return CLG_SUCCESS;
  struct {
    int status;
    char msg[CLG_MPI_MSG];
  } v = {(int)st, ""};
  if (rank == first)
    snprintf(v.msg, sizeof v.msg, "%s", g_msg);
  err = MPI_Bcast(&v, (int)sizeof v, MPI_BYTE, first, comm);
  if (err != MPI_SUCCESS)
    return clg__mpi_error(err, "MPI_Bcast");
  if (rank != first)
    snprintf(g_msg, sizeof g_msg, "%s", v.msg);
  return (clg_status)v.status;
}

/* ------------------------------------------------------------- checks */


/* The product of t's dimensions from `from` on; SIZE_MAX when it does not
 * fit (dimensions already checked non-negative). */
static size_t clg_numel(const clg_tensor *t, int32_t from) {
  size_t n = 1;
  for (int32_t i = from; i < t->rank; ++i) {
    size_t d = (size_t)t->shape[i];
    if (d && n > SIZE_MAX / d)
      return SIZE_MAX;
    n *= d;
  }
  for (int32_t i = from; i < t->rank; ++i)
    if (t->shape[i] == 0)
      return 0;
  return n;
}

/* n elements of `size` bytes fit a size_t (and a malloc). */
static bool clg_fits(size_t n, size_t size) {
  return n != SIZE_MAX && (size == 0 || n <= (SIZE_MAX / 2) / size);
}

/* This rank's own arguments (no communication). */
static clg_status clg_check_table(const clg_mpi_table *t) {
  const clg_tensor *s = &t->shard;
  if (!t->ctx)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "table->ctx is NULL");
  if (t->rows < 0 || t->lo < 0 || t->lo > t->hi || t->hi > t->rows)
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "the shard's rows [%" PRId64 ", %" PRId64
                         ") are not within a table of %" PRId64 " rows",
                         t->lo, t->hi, t->rows);
  if (s->rank < 1 || s->rank > CLG_MAX_RANK || s->shape[0] != t->hi - t->lo)
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "the shard must have rank >= 1 and hi - lo = %" PRId64
                         " rows (rank %d, first dimension %" PRId64 ")",
                         t->hi - t->lo, (int)s->rank,
                         s->rank >= 1 ? s->shape[0] : -1);
  for (int32_t i = 0; i < s->rank; ++i)
    if (s->shape[i] < 0)
      return clg__mpi_fail(CLG_ERROR_INVALID_SHAPE,
                           "the shard's dimension %d is negative", (int)i);
  size_t es = clg_dtype_size(s->dtype);
  if (es == 0)
    return clg__mpi_fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                         "the shard's element type is not supported");
  size_t n = clg_numel(s, 0);
  if (!clg_fits(n, es))
    return clg__mpi_fail(CLG_ERROR_SIZE_OVERFLOW,
                         "the shard's size overflows size_t");
  size_t bytes = n * es;
  /* The shard's memory, checked here: a bad shard found later, inside
   * the local call, would come after other ranks wrote theirs. */
  if (s->storage == CLG_STORAGE_HOST) {
    if (bytes && !s->host)
      return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "table->shard.host is NULL");
  } else if (s->storage == CLG_STORAGE_BUFFER) {
    size_t size = 0;
    cl_context owner = NULL;
    if (!s->buffer)
      return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT,
                           "table->shard.buffer is NULL");
    if (clGetMemObjectInfo(s->buffer, CL_MEM_SIZE, sizeof size, &size,
                           NULL) != CL_SUCCESS ||
        clGetMemObjectInfo(s->buffer, CL_MEM_CONTEXT, sizeof owner, &owner,
                           NULL) != CL_SUCCESS)
      return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                           "table->shard.buffer is not a valid cl_mem");
    if (owner != clg_context_cl_context(t->ctx))
      return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                           "table->shard.buffer belongs to another cl_context "
                           "than table->ctx's");
    if (s->offset > size || size - s->offset < bytes)
      return clg__mpi_fail(CLG_ERROR_BUFFER_TOO_SMALL,
                           "table->shard.buffer holds %zu bytes, too few for "
                           "offset %zu + %zu bytes of rows",
                           size, s->offset, bytes);
  } else {
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "table->shard.storage is unknown");
  }
  return CLG_SUCCESS;
}

static clg_status clg_check_indices(const clg_tensor *x) {
  if (!x)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "indices is NULL");
  if (x->storage != CLG_STORAGE_HOST)
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "indices must be host memory");
  if (x->dtype != CLG_DTYPE_INT32 && x->dtype != CLG_DTYPE_INT64)
    return clg__mpi_fail(CLG_ERROR_INVALID_INDICES_DTYPE,
                         "indices must be int32 or int64");
  if (x->rank < 0 || x->rank > CLG_MAX_RANK)
    return clg__mpi_fail(CLG_ERROR_INVALID_RANK, "indices' rank %d",
                         (int)x->rank);
  for (int32_t i = 0; i < x->rank; ++i)
    if (x->shape[i] < 0)
      return clg__mpi_fail(CLG_ERROR_INVALID_SHAPE,
                           "indices' dimension %d is negative", (int)i);
  size_t n = clg_numel(x, 0);
  /* Per index value: its id, a sorting pair, a slot (32 bytes). */
  if (!clg_fits(n, 4 * sizeof(int64_t)))
    return clg__mpi_fail(CLG_ERROR_SIZE_OVERFLOW,
                         "indices' element count overflows");
  if (n && !x->host)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "indices->host is NULL");
  return CLG_SUCCESS;
}

/* `t` (output or updates) is host memory of the table's type with shape
 * lead[0 .. nlead-1] + the shard's row dimensions. */
static clg_status clg_check_rows_tensor(const clg_mpi_table *table,
                                        const clg_tensor *t, const char *name,
                                        int32_t nlead, const int64_t *lead) {
  const clg_tensor *s = &table->shard;
  if (!t)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "%s is NULL", name);
  if (t->storage != CLG_STORAGE_HOST)
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "%s must be host memory", name);
  if (t->dtype != s->dtype)
    return clg__mpi_fail(CLG_ERROR_DTYPE_MISMATCH,
                         "%s's element type differs from the table's", name);
  int32_t want = nlead + s->rank - 1;
  bool ok = want <= CLG_MAX_RANK && t->rank == want;
  for (int32_t i = 0; ok && i < nlead; ++i)
    ok = t->shape[i] == lead[i];
  for (int32_t i = 1; ok && i < s->rank; ++i)
    ok = t->shape[nlead + i - 1] == s->shape[i];
  if (!ok)
    return clg__mpi_fail(CLG_ERROR_SHAPE_MISMATCH,
                         "%s must have shape (indices' leading dimensions) + "
                         "the table's row dimensions",
                         name);
  size_t n = clg_numel(t, 0);
  if (!clg_fits(n, clg_dtype_size(t->dtype)))
    return clg__mpi_fail(CLG_ERROR_SIZE_OVERFLOW, "%s's size overflows", name);
  if (n && !t->host)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "%s->host is NULL", name);
  return CLG_SUCCESS;
}

/* Every rank's geometry (bounds, element type, row shape), agreed: the
 * shards must tile [0, rows) in rank order with one element type and row
 * shape. Collective; every rank returns the same status. */
#define CLG_GEO_WORDS (7 + CLG_MAX_RANK)
static clg_status clg_geometry(const clg_mpi_table *t,
                               const clg_scatter_params *sc,
                               clg_mpi_geometry *g) {
  MPI_Comm_rank(t->comm, &g->rank);
  MPI_Comm_size(t->comm, &g->size);
  g->bound = NULL;
  g->row_type = MPI_DATATYPE_NULL;
  g->rows = t->rows;
  int64_t mine[CLG_GEO_WORDS] = {t->rows, t->lo, t->hi, t->shard.dtype,
                                 t->shard.rank};
  for (int32_t i = 1; i < t->shard.rank; ++i)
    mine[5 + i] = t->shard.shape[i];
  /* A scatter's options: every rank must run the same collectives and
   * apply the same reduction. */
  mine[5 + CLG_MAX_RANK] = sc ? (int64_t)sc->reduction : -1;
  mine[6 + CLG_MAX_RANK] = sc ? (int64_t)sc->duplicates : -1;
  int64_t *all = malloc((size_t)g->size * sizeof mine);
  g->bound = malloc(((size_t)g->size + 1) * sizeof *g->bound);
  clg_status st = all && g->bound
                      ? CLG_SUCCESS
                      : clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                                      "out of host memory for the geometry");
  st = clg_agree(t->comm, g->rank, st);
  if (st == CLG_SUCCESS) {
    int err = MPI_Allgather(mine, CLG_GEO_WORDS, MPI_INT64_T, all,
                            CLG_GEO_WORDS, MPI_INT64_T, t->comm);
    if (err != MPI_SUCCESS)
      st = clg__mpi_error(err, "MPI_Allgather");
  }
  /* Every rank judges the same words against rank 0's: one verdict and
   * one message everywhere. */
  for (int r = 0; st == CLG_SUCCESS && r < g->size; ++r) {
    const int64_t *w = all + (size_t)r * CLG_GEO_WORDS;
    int64_t expect_lo = r == 0 ? 0 : all[(size_t)(r - 1) * CLG_GEO_WORDS + 2];
    if (w[0] != all[0])
      st = clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "rank %d's table has %" PRId64 " rows, rank 0's %"
                         PRId64, r, w[0], all[0]);
    else if (w[3] != all[3])
      st = clg__mpi_fail(CLG_ERROR_DTYPE_MISMATCH,
                         "rank %d's shard has element type %s, rank 0's %s",
                         r, clg_dtype_name((clg_dtype)w[3]),
                         clg_dtype_name((clg_dtype)all[3]));
    else if (w[4] != all[4] ||
             memcmp(w + 5, all + 5, CLG_MAX_RANK * sizeof *w) != 0)
      st = clg__mpi_fail(CLG_ERROR_SHAPE_MISMATCH,
                         "rank %d's rows have another shape than rank 0's "
                         "(the shard's dimensions after the first)",
                         r);
    else if (w[5 + CLG_MAX_RANK] != all[5 + CLG_MAX_RANK] ||
             w[6 + CLG_MAX_RANK] != all[6 + CLG_MAX_RANK])
      st = clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "rank %d's scatter options (reduction %" PRId64
                         ", duplicates %" PRId64 ") differ from rank 0's (%"
                         PRId64 ", %" PRId64 ")",
                         r, w[5 + CLG_MAX_RANK], w[6 + CLG_MAX_RANK],
                         all[5 + CLG_MAX_RANK], all[6 + CLG_MAX_RANK]);
    else if (w[1] != expect_lo || w[2] < w[1] ||
             (r == g->size - 1 && w[2] != all[0]))
      st = clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "the shards do not tile the table's %" PRId64
                         " rows in rank order: rank %d holds [%" PRId64
                         ", %" PRId64 ")",
                         all[0], r, w[1], w[2]);
    else
      g->bound[r] = w[1];
  }
  if (st == CLG_SUCCESS) {
    g->bound[g->size] = t->rows;
    g->row_bytes = clg_numel(&t->shard, 1) * clg_dtype_size(t->shard.dtype);
    if (g->row_bytes > INT_MAX)
      st = clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "a row of %zu bytes exceeds MPI's int counts",
                         g->row_bytes);
  }
  if (st == CLG_SUCCESS && g->row_bytes) {
    int err = MPI_Type_contiguous((int)g->row_bytes, MPI_BYTE, &g->row_type);
    if (err == MPI_SUCCESS)
      err = MPI_Type_commit(&g->row_type);
    if (err != MPI_SUCCESS)
      st = clg__mpi_error(err, "MPI_Type_contiguous");
  }
  free(all);
  /* Every rank computed the same verdict from the same words. */
  return st;
}

static void clg_geometry_free(clg_mpi_geometry *g) {
  free(g->bound);
  g->bound = NULL;
  if (g->row_type != MPI_DATATYPE_NULL)
    MPI_Type_free(&g->row_type);
}

/* Index value i at any address (a mapped file may leave it unaligned). */
static int64_t clg_index(const clg_tensor *x, size_t i) {
  if (x->dtype == CLG_DTYPE_INT64) {
    int64_t v;
    memcpy(&v, (const unsigned char *)x->host + 8 * i, 8);
    return v;
  }
  int32_t v;
  memcpy(&v, (const unsigned char *)x->host + 4 * i, 4);
  return v;
}

/* Every rank's indices against [-rows, rows - 1], agreed: the first
 * offender (lowest rank, then position) is every rank's error. On success
 * ids[] (n of them) holds the normalised ids. */
static clg_status clg_check_bounds(const clg_mpi_table *t,
                                   const clg_mpi_geometry *g,
                                   const clg_tensor *x, size_t n,
                                   int64_t *ids) {
  int64_t bad[2] = {-1, 0}; /* position, value */
  for (size_t i = 0; i < n; ++i) {
    int64_t v = clg_index(x, i);
    if (v < -t->rows || v >= t->rows) {
      bad[0] = (int64_t)i;
      bad[1] = v;
      break;
    }
    ids[i] = v < 0 ? v + t->rows : v;
  }
  int mine = bad[0] >= 0 ? g->rank : INT_MAX, first = INT_MAX;
  int err = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, t->comm);
  if (err != MPI_SUCCESS)
    return clg__mpi_error(err, "MPI_Allreduce");
  if (first == INT_MAX)
    return CLG_SUCCESS;
  err = MPI_Bcast(bad, 2, MPI_INT64_T, first, t->comm);
  if (err != MPI_SUCCESS)
    return clg__mpi_error(err, "MPI_Bcast");
  if (t->rows == 0)
    return clg__mpi_fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                         "index out of bounds: rank %d's indices[%" PRId64
                         "] = %" PRId64 ", but the table has no rows: no "
                         "index is valid",
                         first, bad[0], bad[1]);
  return clg__mpi_fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                       "index out of bounds: rank %d's indices[%" PRId64
                       "] = %" PRId64 ", but the table has %" PRId64
                       " rows: valid range is [%" PRId64 ", %" PRId64 "]",
                       first, bad[0], bad[1], t->rows, -t->rows, t->rows - 1);
}

/* One more item for one rank in an exchange (MPI counts are ints). */
static clg_status clg_count(int *count) {
  if (*count == INT_MAX)
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "more than %d items for one rank exceed MPI's int "
                         "counts", INT_MAX);
  ++*count;
  return CLG_SUCCESS;
}

/* ------------------------------------------------------------- gather */

typedef struct clg_id_pos {
  int64_t id, pos;
} clg_id_pos;

static int clg_by_id(const void *a, const void *b) {
  const clg_id_pos *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id ? 1 : (x->pos > y->pos) - (x->pos < y->pos);
}

/* This rank's shard rows `local[0 .. n-1]` (ids minus lo) into host `out`
 * ([n] + row dims), on its device. */
static clg_status clg_local_gather(const clg_mpi_table *t, const int64_t *local,
                                   size_t n, void *out) {
  if (n == 0)
    return CLG_SUCCESS;
  int64_t ishape[1] = {(int64_t)n}, oshape[CLG_MAX_RANK];
  oshape[0] = (int64_t)n;
  for (int32_t i = 1; i < t->shard.rank; ++i)
    oshape[i] = t->shard.shape[i];
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, (void *)local);
  clg_tensor o = clg_tensor_host(t->shard.dtype, t->shard.rank, oshape, out);
  return clg_local(clg_gather(t->ctx, &t->shard, &x, 0, &o, t->queue, 0, NULL,
                              NULL),
                   "the local gather on this rank's device");
}

clg_status clg_mpi_gather(const clg_mpi_table *table, const clg_tensor *indices,
                          const clg_tensor *output) {
  g_msg[0] = '\0';
  if (!table)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "table is NULL");
  int rank = 0;
  MPI_Comm_rank(table->comm, &rank);
  clg_status st = clg_check_table(table);
  if (st == CLG_SUCCESS)
    st = clg_check_indices(indices);
  if (st == CLG_SUCCESS)
    st = clg_check_rows_tensor(table, output, "output", indices->rank,
                               indices->shape);
  if ((st = clg_agree(table->comm, rank, st)) != CLG_SUCCESS)
    return st;
  clg_mpi_geometry g;
  if ((st = clg_geometry(table, NULL, &g)) != CLG_SUCCESS) {
    clg_geometry_free(&g);
    return st;
  }
  size_t n = clg_numel(indices, 0);
  int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
  clg_id_pos *pairs = malloc((n ? n : 1) * sizeof *pairs);
  size_t *slot = malloc((n ? n : 1) * sizeof *slot);
  clg_mpi_counts c = {0};
  st = ids && pairs && slot ? clg__mpi_counts_alloc(&c, g.size)
                            : clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                                            "out of host memory for %zu ids",
                                            n);
  if ((st = clg_agree(table->comm, rank, st)) == CLG_SUCCESS)
    st = clg_check_bounds(table, &g, indices, n, ids);
  /* Deduplicate: sorted by id, each distinct id once (uniq[]), slot[i] its
   * place among them; sorted ids are grouped by owner already. */
  size_t u = 0;
  int64_t *uniq = ids; /* reused in place once pairs hold the ids */
  if (st == CLG_SUCCESS) {
    for (size_t i = 0; i < n; ++i)
      pairs[i] = (clg_id_pos){ids[i], (int64_t)i};
    qsort(pairs, n, sizeof *pairs, clg_by_id);
    for (size_t i = 0; i < n; ++i) {
      if (i == 0 || pairs[i].id != pairs[i - 1].id)
        uniq[u++] = pairs[i].id;
      slot[pairs[i].pos] = u - 1;
    }
    for (size_t i = 0; i < u && st == CLG_SUCCESS; ++i)
      st = clg_count(&c.send[clg__mpi_owner(&g, uniq[i])]);
    if ((st = clg_agree(table->comm, rank, st)) == CLG_SUCCESS)
      st = clg__mpi_counts_exchange(table->comm, &c, g.size);
    st = clg_agree(table->comm, rank, st);
  }
  int64_t *req = NULL;
  unsigned char *rows_out = NULL, *rows_back = NULL;
  if (st == CLG_SUCCESS) {
    req = malloc((c.recv_total ? c.recv_total : 1) * sizeof *req);
    rows_out = malloc(c.recv_total * g.row_bytes + 1);
    rows_back = malloc(u * g.row_bytes + 1);
    st = req && rows_out && rows_back
             ? CLG_SUCCESS
             : clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                             "out of host memory for the exchanged rows");
    st = clg_agree(table->comm, rank, st);
  }
  if (st == CLG_SUCCESS)
    st = clg__mpi_alltoallv(table->comm, uniq, req, &c, MPI_INT64_T, true);
  if (st == CLG_SUCCESS) {
    for (size_t i = 0; i < c.recv_total; ++i)
      req[i] -= table->lo;
    st = clg_local_gather(table, req, c.recv_total, rows_out);
    st = clg_agree(table->comm, rank, st);
  }
  if (st == CLG_SUCCESS && g.row_bytes)
    st = clg__mpi_alltoallv(table->comm, rows_out, rows_back, &c, g.row_type,
                            false);
  if (st == CLG_SUCCESS)
    for (size_t i = 0; i < n; ++i)
      memcpy((unsigned char *)output->host + i * g.row_bytes,
             rows_back + slot[i] * g.row_bytes, g.row_bytes);
  free(req);
  free(rows_out);
  free(rows_back);
  free(ids);
  free(pairs);
  free(slot);
  clg__mpi_counts_free(&c);
  clg_geometry_free(&g);
  return st;
}

/* ------------------------------------------------------------ scatter */

/* A repeated row among the entries an owner received (global order): the
 * smallest later entry whose row an earlier entry has, and the earliest
 * such entry, as (rank, position) pairs; none: later_rank = INT64_MAX. */
typedef struct clg_repeat {
  int64_t later_rank, later_pos, first_rank, first_pos, row;
} clg_repeat;

static clg_status clg_find_repeat(const clg_mpi_table *t,
                                  const clg_mpi_geometry *g,
                                  const int64_t *rid, const int64_t *rpos,
                                  const clg_mpi_counts *c) {
  size_t m = c->recv_total;
  clg_repeat mine = {INT64_MAX, 0, 0, 0, 0};
  clg_id_pos *p = malloc((m ? m : 1) * sizeof *p);
  int64_t *src = malloc((m ? m : 1) * sizeof *src);
  int ok = p && src;
  if (ok) {
    for (int r = 0; r < g->size; ++r)
      for (int k = 0; k < c->recv[r]; ++k)
        src[c->rdispl[r] + k] = r;
    for (size_t i = 0; i < m; ++i)
      p[i] = (clg_id_pos){rid[i], (int64_t)i}; /* i: the global order */
    qsort(p, m, sizeof *p, clg_by_id); /* pos: the global order */
    /* Runs of one row, in order: a run's second entry is its smallest
     * later one, its first the earliest. */
    for (size_t f = 0, i = 1; i < m; ++i) {
      if (p[i].id != p[f].id) {
        f = i;
        continue;
      }
      if (i != f + 1)
        continue;
      int64_t later = p[i].pos;
      if (mine.later_rank == INT64_MAX || later < mine.later_pos)
        mine = (clg_repeat){src[later], later, src[p[f].pos], p[f].pos,
                            p[i].id};
    }
  }
  free(p);
  /* Convert positions to the senders' own positions. */
  if (mine.later_rank != INT64_MAX) {
    mine.later_pos = rpos[mine.later_pos];
    mine.first_pos = rpos[mine.first_pos];
  }
  free(src);
  clg_status st = ok ? CLG_SUCCESS
                     : clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                                     "out of host memory checking repeats");
  if ((st = clg_agree(t->comm, g->rank, st)) != CLG_SUCCESS)
    return st;
  clg_repeat *all = malloc((size_t)g->size * sizeof *all);
  st = all ? CLG_SUCCESS
           : clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                           "out of host memory checking repeats");
  if ((st = clg_agree(t->comm, g->rank, st)) != CLG_SUCCESS) {
    free(all);
    return st;
  }
  int err = MPI_Allgather(&mine, 5, MPI_INT64_T, all, 5, MPI_INT64_T, t->comm);
  if (err != MPI_SUCCESS) {
    free(all);
    return clg__mpi_error(err, "MPI_Allgather");
  }
  clg_repeat best = {INT64_MAX, 0, 0, 0, 0};
  for (int r = 0; r < g->size; ++r)
    if (all[r].later_rank < best.later_rank ||
        (all[r].later_rank == best.later_rank &&
         all[r].later_pos < best.later_pos))
      best = all[r];
  free(all);
  if (best.later_rank == INT64_MAX)
    return CLG_SUCCESS;
  return clg__mpi_fail(CLG_ERROR_DUPLICATE_INDEX,
                       "duplicate index: rank %" PRId64 "'s indices[%" PRId64
                       "] and rank %" PRId64 "'s indices[%" PRId64
                       "] both target row %" PRId64
                       ", and reduction none with duplicates an error "
                       "allows one update per row",
                       best.first_rank, best.first_pos, best.later_rank,
                       best.later_pos, best.row);
}

/* This rank's received entries applied to its shard, in place, in order. */
static clg_status clg_local_scatter(const clg_mpi_table *t, const int64_t *local,
                                    size_t m, const void *upd,
                                    const clg_scatter_params *sc) {
  if (m == 0)
    return CLG_SUCCESS;
  int64_t ishape[2] = {(int64_t)m, 1}, ushape[CLG_MAX_RANK];
  ushape[0] = (int64_t)m;
  for (int32_t i = 1; i < t->shard.rank; ++i)
    ushape[i] = t->shard.shape[i];
  clg_params p = {.op = CLG_OP_SCATTER_ND};
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 2, ishape, (void *)local);
  clg_tensor u = clg_tensor_host(t->shard.dtype, t->shard.rank, ushape,
                                 (void *)upd);
  return clg_local(clg_scatter(t->ctx, &p, sc, &t->shard, &x, &u, &t->shard,
                               t->queue, 0, NULL, NULL),
                   "the local scatter on this rank's device");
}

clg_status clg_mpi_scatter(const clg_mpi_table *table, const clg_tensor *indices,
                           const clg_tensor *updates,
                           const clg_scatter_params *scatter) {
  g_msg[0] = '\0';
  if (!table)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "table is NULL");
  int rank = 0;
  MPI_Comm_rank(table->comm, &rank);
  clg_scatter_params sc = scatter ? *scatter : (clg_scatter_params){0};
  clg_status st = clg_check_table(table);
  if (st == CLG_SUCCESS)
    st = clg_check_indices(indices);
  if (st == CLG_SUCCESS &&
      !(indices->rank == 1 || (indices->rank == 2 && indices->shape[1] == 1)))
    st = clg__mpi_fail(CLG_ERROR_INVALID_RANK,
                       "indices must have shape [N] or [N, 1] (row ids)");
  if (st == CLG_SUCCESS)
    st = clg_check_rows_tensor(table, updates, "updates", 1, indices->shape);
  if (st == CLG_SUCCESS &&
      ((unsigned)sc.reduction > CLG_REDUCTION_MAX ||
       (unsigned)sc.duplicates > CLG_DUPLICATES_LAST))
    st = clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                       "unknown reduction or duplicates rule");
  if (st == CLG_SUCCESS &&
      (sc.reduction == CLG_REDUCTION_MIN || sc.reduction == CLG_REDUCTION_MAX) &&
      (table->shard.dtype == CLG_DTYPE_COMPLEX64 ||
       table->shard.dtype == CLG_DTYPE_COMPLEX128))
    st = clg__mpi_fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                       "reduction min or max on complex numbers");
  if ((st = clg_agree(table->comm, rank, st)) != CLG_SUCCESS)
    return st;
  clg_mpi_geometry g;
  if ((st = clg_geometry(table, &sc, &g)) != CLG_SUCCESS) {
    clg_geometry_free(&g);
    return st;
  }
  size_t n = (size_t)indices->shape[0];
  int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
  int64_t *sid = malloc((n ? n : 1) * sizeof *sid);
  int64_t *spos = malloc((n ? n : 1) * sizeof *spos);
  unsigned char *supd = malloc(n * g.row_bytes + 1);
  clg_mpi_counts c = {0};
  st = ids && sid && spos && supd
           ? clg__mpi_counts_alloc(&c, g.size)
           : clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                           "out of host memory for %zu entries", n);
  if ((st = clg_agree(table->comm, rank, st)) == CLG_SUCCESS)
    st = clg_check_bounds(table, &g, indices, n, ids);
  if (st == CLG_SUCCESS) {
    /* Stable bucketing by owner: entries keep their order per owner. */
    for (size_t i = 0; i < n && st == CLG_SUCCESS; ++i)
      st = clg_count(&c.send[clg__mpi_owner(&g, ids[i])]);
    int *next = st == CLG_SUCCESS ? calloc((size_t)g.size, sizeof *next) : NULL;
    if (!next && st == CLG_SUCCESS)
      st = clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (int r = 1; next && r < g.size; ++r)
      next[r] = next[r - 1] + c.send[r - 1];
    for (size_t i = 0; next && i < n; ++i) {
      int o = clg__mpi_owner(&g, ids[i]);
      size_t at = (size_t)next[o]++;
      sid[at] = ids[i];
      spos[at] = (int64_t)i;
      memcpy(supd + at * g.row_bytes,
             (const unsigned char *)updates->host + i * g.row_bytes,
             g.row_bytes);
    }
    free(next);
    if ((st = clg_agree(table->comm, rank, st)) == CLG_SUCCESS)
      st = clg__mpi_counts_exchange(table->comm, &c, g.size);
    st = clg_agree(table->comm, rank, st);
  }
  int64_t *rid = NULL, *rpos = NULL;
  unsigned char *rupd = NULL;
  if (st == CLG_SUCCESS) {
    size_t m = c.recv_total ? c.recv_total : 1;
    rid = malloc(m * sizeof *rid);
    rpos = malloc(m * sizeof *rpos);
    rupd = malloc(c.recv_total * g.row_bytes + 1);
    st = rid && rpos && rupd
             ? CLG_SUCCESS
             : clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                             "out of host memory for the received entries");
    st = clg_agree(table->comm, rank, st);
  }
  /* Received by source rank in rank order, each source's in its order:
   * the global order of the entries. */
  if (st == CLG_SUCCESS)
    st = clg__mpi_alltoallv(table->comm, sid, rid, &c, MPI_INT64_T, true);
  if (st == CLG_SUCCESS)
    st = clg__mpi_alltoallv(table->comm, spos, rpos, &c, MPI_INT64_T, true);
  if (st == CLG_SUCCESS && sc.reduction == CLG_REDUCTION_NONE &&
      sc.duplicates == CLG_DUPLICATES_ERROR)
    st = clg_find_repeat(table, &g, rid, rpos, &c);
  if (st == CLG_SUCCESS && g.row_bytes)
    st = clg__mpi_alltoallv(table->comm, supd, rupd, &c, g.row_type, true);
  if (st == CLG_SUCCESS) {
    for (size_t i = 0; i < c.recv_total; ++i)
      rid[i] -= table->lo;
    st = clg_local_scatter(table, rid, c.recv_total, rupd, &sc);
    st = clg_agree(table->comm, rank, st);
  }
  free(rid);
  free(rpos);
  free(rupd);
  free(ids);
  free(sid);
  free(spos);
  free(supd);
  clg__mpi_counts_free(&c);
  clg_geometry_free(&g);
  return st;
}
