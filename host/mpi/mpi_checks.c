/* clgather_mpi: the distributed gather and scatter over row-sharded tables
 * (include/clgather/clgather_mpi.h). Every step that can fail on some
 * ranks only ends with an agreement (clg__mpi_agree): the lowest failing rank's
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

/* The local clgather call's failure, with the core library's message and
 * the rank (the agreed message reaches every rank). */
clg_status clg__mpi_local(clg_status st, int rank, const char *what) {
  if (st == CLG_SUCCESS)
    return st;
  return clg__mpi_fail(st, "rank %d's %s: %s", rank, what, clg_last_error());
}

/* Every rank's `st` agreed: the lowest failing rank's status and message
 * become every rank's. */
void clg__mpi_clear(void) { g_msg[0] = '\0'; }

clg_status clg__mpi_agree(MPI_Comm comm, int rank, clg_status st) {
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
size_t clg__mpi_numel(const clg_tensor *t, int32_t from) {
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
bool clg__mpi_fits(size_t n, size_t size) {
  return n != SIZE_MAX && (size == 0 || n <= (SIZE_MAX / 2) / size);
}

/* This rank's own arguments (no communication). */
clg_status clg__mpi_check_table(const clg_mpi_table *t) {
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
  size_t n = clg__mpi_numel(s, 0);
  if (!clg__mpi_fits(n, es))
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

clg_status clg__mpi_check_indices(const clg_tensor *x) {
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
  size_t n = clg__mpi_numel(x, 0);
  /* Per index value: its id, a sorting pair and its scratch, a slot (48
   * bytes). */
  if (!clg__mpi_fits(n, 6 * sizeof(int64_t)))
    return clg__mpi_fail(CLG_ERROR_SIZE_OVERFLOW,
                         "indices' element count overflows");
  if (n && !x->host)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "indices->host is NULL");
  return CLG_SUCCESS;
}

/* `t` (output or updates) is host memory of the table's type with shape
 * lead[0 .. nlead-1] + the shard's row dimensions. */
clg_status clg__mpi_check_rows_tensor(const clg_mpi_table *table,
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
  size_t n = clg__mpi_numel(t, 0);
  if (!clg__mpi_fits(n, clg_dtype_size(t->dtype)))
    return clg__mpi_fail(CLG_ERROR_SIZE_OVERFLOW, "%s's size overflows", name);
  if (n && !t->host)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "%s->host is NULL", name);
  return CLG_SUCCESS;
}

/* Every rank's geometry (bounds, element type, row shape), agreed: the
 * shards must tile [0, rows) in rank order with one element type and row
 * shape. Collective; every rank returns the same status. */
#define CLG_GEO_WORDS (5 + CLG_MAX_RANK)
clg_status clg__mpi_geometry(const clg_mpi_table *t, clg_mpi_geometry *g) {
  MPI_Comm_rank(t->comm, &g->rank);
  MPI_Comm_size(t->comm, &g->size);
  g->bound = NULL;
  g->row_type = MPI_DATATYPE_NULL;
  g->rows = t->rows;
  int64_t mine[CLG_GEO_WORDS] = {t->rows, t->lo, t->hi, t->shard.dtype,
                                 t->shard.rank};
  for (int32_t i = 1; i < t->shard.rank; ++i)
    mine[5 + i - 1] = t->shard.shape[i];
  int64_t *all = malloc((size_t)g->size * sizeof mine);
  g->bound = malloc(((size_t)g->size + 1) * sizeof *g->bound);
  clg_status st = all && g->bound
                      ? CLG_SUCCESS
                      : clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                                      "out of host memory for the geometry");
  st = clg__mpi_agree(t->comm, g->rank, st);
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
    g->row_bytes = clg__mpi_numel(&t->shard, 1) * clg_dtype_size(t->shard.dtype);
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

void clg__mpi_geometry_free(clg_mpi_geometry *g) {
  free(g->bound);
  g->bound = NULL;
  if (g->row_type != MPI_DATATYPE_NULL)
    MPI_Type_free(&g->row_type);
}

/* Index value i at any address (a mapped file may leave it unaligned). */
int64_t clg__mpi_index(const clg_tensor *x, size_t i) {
  if (x->dtype == CLG_DTYPE_INT64) {
    int64_t v;
    memcpy(&v, (const unsigned char *)x->host + 8 * i, 8);
    return v;
  }
  int32_t v;
  memcpy(&v, (const unsigned char *)x->host + 4 * i, 4);
  return v;
}

clg_status clg__mpi_bounds_local(const clg_mpi_table *t,
                                 const clg_mpi_geometry *g,
                                 const clg_tensor *x, size_t n, int64_t *ids) {
  for (size_t i = 0; i < n; ++i) {
    int64_t v = clg__mpi_index(x, i);
    if (v >= -t->rows && v < t->rows) {
      ids[i] = v < 0 ? v + t->rows : v;
      continue;
    }
    if (t->rows == 0)
      return clg__mpi_fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                           "index out of bounds: rank %d's indices[%zu] = "
                           "%" PRId64 ", but the table has no rows: no index "
                           "is valid",
                           g->rank, i, v);
    return clg__mpi_fail(CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                         "index out of bounds: rank %d's indices[%zu] = "
                         "%" PRId64 ", but the table has %" PRId64
                         " rows: valid range is [%" PRId64 ", %" PRId64 "]",
                         g->rank, i, v, t->rows, -t->rows, t->rows - 1);
  }
  return CLG_SUCCESS;
}

/* One more item for one rank in an exchange (MPI counts are ints). */
clg_status clg__mpi_count(int *count) {
  if (*count == INT_MAX)
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "more than %d items for one rank exceed MPI's int "
                         "counts", INT_MAX);
  ++*count;
  return CLG_SUCCESS;
}

clg_status clg__mpi_same_options(MPI_Comm comm, const clg_mpi_geometry *g,
                                 const int64_t *w, int n, const char *what) {
  int64_t *all = malloc((size_t)g->size * (size_t)n * sizeof *all);
  clg_status st = all ? CLG_SUCCESS
                      : clg__mpi_fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                                      "out of host memory for %d ranks' "
                                      "options", g->size);
  if ((st = clg__mpi_agree(comm, g->rank, st)) != CLG_SUCCESS) {
    free(all);
    return st;
  }
  int err = MPI_Allgather(w, n, MPI_INT64_T, all, n, MPI_INT64_T, comm);
  if (err != MPI_SUCCESS) {
    free(all);
    return clg__mpi_error(err, "MPI_Allgather");
  }
  /* Every rank judges the same words: one verdict everywhere. */
  for (int r = 1; r < g->size; ++r)
    if (memcmp(all + (size_t)r * (size_t)n, all, (size_t)n * sizeof *all)) {
      char mine[128] = "", first[128] = "";
      for (int i = 0, m = 0, f = 0; i < n; ++i) {
        m += snprintf(mine + m, sizeof mine - (size_t)m, "%s%" PRId64,
                      i ? ", " : "", all[(size_t)r * (size_t)n + (size_t)i]);
        f += snprintf(first + f, sizeof first - (size_t)f, "%s%" PRId64,
                      i ? ", " : "", all[i]);
      }
      free(all);
      return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                           "rank %d's %s (%s) differ from rank 0's (%s)", r,
                           what, mine, first);
    }
  free(all);
  return CLG_SUCCESS;
}
