/* clgather_mpi's distributed EmbeddingBag (clg_mpi_embedding_bag,
 * clg_mpi_plan_embedding_bag): every rank's own bags over the row-sharded
 * table. Each rank checks its call as the core library would on the whole
 * table (a dry run of clg_embedding_bag() on a table of the global rows
 * and no columns: the same rules and messages, no kernel), and every rank
 * agrees; then the distinct rows its indices name come through the plan's
 * gather into a local table (packed, for rows quantized per row), the indices
 * are renumbered to that table's rows (their order kept), and
 * clg_embedding_bag() reduces the bags on this rank's device. Every bag is so
 * reduced from the same row values in the same order as on the whole table: the
 * same bits, for any number of ranks. */
#include "mpi_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const mode_names[] = {"sum", "mean", "max", "sqrt_n"};

static bool bag_has_fp64(cl_device_id dev) {
  char ext[4096] = {0};
  return clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext,
                         NULL) == CL_SUCCESS &&
         strstr(ext, "cl_khr_fp64") != NULL;
}

/* What the device must offer for EmbeddingBag's bits (the core library
 * checks it only when it enqueues the kernel, after the rows moved; the
 * same rule): doubles for float64; subnormals kept for float32 and
 * bfloat16; for float mean and sqrt_n a correctly rounded division and
 * square root, the device's own or through doubles. */
static clg_status bag_device_can(const clg_mpi_plan *p,
                                 const clg_bag_params *bp) {
  cl_device_id dev = clg_context_device(p->table.ctx);
  /* quantized rows: float32 arithmetic */
  clg_dtype dt = bp->weight_format != CLG_BAG_WEIGHT_DENSE
                     ? CLG_DTYPE_FLOAT
                     : p->table.shard.dtype;
  const char *type = clg_dtype_name(dt);
  if (dt == CLG_DTYPE_DOUBLE) {
    if (!bag_has_fp64(dev))
      return clg__mpi_fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                           "rank %d's EmbeddingBag on float64 needs doubles, "
                           "which its device lacks (no cl_khr_fp64)",
                           p->g.rank);
    return CLG_SUCCESS;
  }
  cl_device_fp_config fp = 0;
  cl_int err = clGetDeviceInfo(dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp,
                               &fp, NULL);
  if (err != CL_SUCCESS)
    return clg__mpi_fail(CLG_ERROR_OPENCL,
                         "rank %d: clGetDeviceInfo(CL_DEVICE_SINGLE_FP_CONFIG) "
                         "failed (%d)",
                         p->g.rank, (int)err);
  if (dt != CLG_DTYPE_FLOAT16 && !(fp & CL_FP_DENORM))
    return clg__mpi_fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                         "rank %d's EmbeddingBag on %s cannot give the "
                         "promised bits: its device flushes subnormal floats "
                         "to zero (no CL_FP_DENORM)",
                         p->g.rank, type);
  if ((bp->mode == CLG_BAG_MEAN || bp->mode == CLG_BAG_SQRT_N) &&
      !(fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) && !bag_has_fp64(dev))
    return clg__mpi_fail(CLG_ERROR_UNSUPPORTED_DTYPE,
                         "rank %d's EmbeddingBag mode %s on %s needs a "
                         "correctly rounded division and square root, which "
                         "its device lacks (no "
                         "CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, and no "
                         "cl_khr_fp64 to divide through doubles)",
                         p->g.rank, mode_names[bp->mode], type);
  return CLG_SUCCESS;
}

/* A host operand or NULL (bags and per_sample_weights may be NULL). */
static clg_status bag_host(const clg_tensor *t, const char *name) {
  if (t && t->storage != CLG_STORAGE_HOST)
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "%s must be host memory", name);
  return CLG_SUCCESS;
}

/* Host bytes of a checked tensor (0 for NULL). */
static size_t bag_bytes(const clg_tensor *t) {
  return t ? clg__mpi_numel(t, 0) * clg_dtype_size(t->dtype) : 0;
}

/* The output must not alias an input (the core library's rule, checked
 * here before any row moves: the local call sees renumbered indices). */
static clg_status bag_no_overlap(const clg_tensor *in, const char *name,
                                 const clg_tensor *out) {
  size_t a = bag_bytes(in), b = bag_bytes(out);
  uintptr_t a0 = a ? (uintptr_t)in->host : 0, b0 = (uintptr_t)out->host;
  if (a && b && a0 < b0 + b && b0 < a0 + a)
    return clg__mpi_fail(CLG_ERROR_INVALID_ARGUMENT,
                         "output overlaps %s in memory; the output must not "
                         "alias an input",
                         name);
  return CLG_SUCCESS;
}

/* The number of bags these arguments make, when their descriptors say it
 * (for the output's message); -1 otherwise. */
static int64_t bag_count(const clg_bag_params *bp, const clg_tensor *indices,
                         const clg_tensor *bags, const clg_tensor *output) {
  switch (bp->form) {
  case CLG_BAGS_FIXED:
    return indices->rank == 2 ? indices->shape[0] : -1;
  case CLG_BAGS_OFFSETS:
    if (!bags || bags->rank != 1)
      return -1;
    return (bp->flags & CLG_BAG_INCLUDE_LAST_OFFSET) ? bags->shape[0] - 1
                                                     : bags->shape[0];
  default:
    return output->rank >= 1 ? output->shape[0] : -1;
  }
}

/* This rank's call checked as clg_embedding_bag() would check it on the
 * whole table, with no communication: the core library's own checks, run
 * on a table of the global rows and no columns, into an output of no
 * columns (nothing to enqueue: no kernel runs, nothing is written), then
 * the columns and the device. */
static clg_status bag_check(clg_mpi_plan *p, const clg_bag_params *bp,
                            const clg_tensor *indices, const clg_tensor *bags,
                            const clg_tensor *psw, const clg_tensor *output) {
  const clg_mpi_table *t = &p->table;
  int rank = p->g.rank;
  clg_status st = clg__mpi_check_indices(indices);
  if (st == CLG_SUCCESS)
    st = bag_host(bags, "bags");
  if (st == CLG_SUCCESS)
    st = bag_host(psw, "per_sample_weights");
  if (st == CLG_SUCCESS && !output)
    st = clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "output is NULL");
  if (st == CLG_SUCCESS)
    st = bag_host(output, "output");
  if (st == CLG_SUCCESS && t->shard.rank != 2)
    st = clg__mpi_fail(CLG_ERROR_INVALID_RANK,
                       "the shard has rank %d; EmbeddingBag needs a table of "
                       "rank 2 ([rows, dim])",
                       (int)t->shard.rank);
  if (st != CLG_SUCCESS)
    return st;
  /* Rows quantized per row (clg_bag_params.weight_format) move packed:
   * the shard is uint8 [rows, row_bytes], dim follows from row_bytes. The
   * dry run's table has rows of their scale and bias alone (no codes: no
   * columns), so the shard's row length is checked here. */
  int64_t dim = t->shard.shape[1], tail = 0;
  if (bp->weight_format != CLG_BAG_WEIGHT_DENSE &&
      bp->weight_format <= CLG_BAG_WEIGHT_2BIT_ROWWISE) {
    static const int64_t tails[4] = {0, 8, 4, 4}, per[4] = {1, 1, 2, 4};
    tail = tails[bp->weight_format];
    /* (a shard of another type: the dry run's message, types first) */
    if (t->shard.dtype == CLG_DTYPE_UINT8 && dim < tail)
      return clg__mpi_fail(CLG_ERROR_INVALID_SHAPE,
                           "the shard's rows have %" PRId64 " bytes; rows "
                           "of weight_format %u end with a scale and a bias "
                           "of %" PRId64 " bytes",
                           dim, (unsigned)bp->weight_format, tail);
    dim = (dim - tail) * per[bp->weight_format];
  }
  unsigned char none = 0;
  int64_t wshape[2] = {t->rows, tail}, oshape[CLG_MAX_RANK];
  clg_tensor w = clg_tensor_host(t->shard.dtype, 2, wshape, &none);
  clg_tensor o = *output;
  if (o.rank == 2) { /* no columns: the checks without the kernel */
    memcpy(oshape, o.shape, sizeof o.shape[0] * 2);
    oshape[1] = 0;
    o = clg_tensor_host(o.dtype, 2, oshape, o.host ? o.host : &none);
  }
  st = clg_embedding_bag(t->ctx, bp, &w, indices, bags, psw, &o, p->queue, 0,
                         NULL, NULL);
  int64_t nb = bag_count(bp, indices, bags, output);
  if (st == CLG_ERROR_SHAPE_MISMATCH && output->rank == 2 && nb >= 0)
    return clg__mpi_fail(st,
                         "rank %d's output has shape [%" PRId64 ", %" PRId64
                         "]; EmbeddingBag with these bags makes [%" PRId64
                         ", %" PRId64 "] ([bags, dim])",
                         rank, output->shape[0], output->shape[1], nb, dim);
  if (st != CLG_SUCCESS)
    return clg__mpi_local(st, rank, "EmbeddingBag");
  if (output->shape[1] != dim)
    return clg__mpi_fail(CLG_ERROR_SHAPE_MISMATCH,
                         "rank %d's output has shape [%" PRId64 ", %" PRId64
                         "]; EmbeddingBag with these bags makes [%" PRId64
                         ", %" PRId64 "] ([bags, dim])",
                         rank, output->shape[0], output->shape[1],
                         output->shape[0], dim);
  if (clg__mpi_numel(output, 0) > 0 && !output->host)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "output->host is NULL");
  if ((st = bag_no_overlap(indices, "indices", output)) != CLG_SUCCESS ||
      (st = bag_no_overlap(bags, "bags", output)) != CLG_SUCCESS ||
      (st = bag_no_overlap(psw, "per_sample_weights", output)) != CLG_SUCCESS)
    return st;
  if (clg__mpi_numel(output, 0) > 0)
    st = bag_device_can(p, bp);
  return st;
}

/* The local table's index: the distinct ids the entries name (padding
 * entries left out: they are skipped, their row never read), ascending,
 * in ids[0 .. *u - 1]; x[i] entry i's row in the local table, the padding
 * entries' the extra row *u (zeros). */
static clg_status bag_renumber(clg_mpi_plan *p, const clg_tensor *indices,
                               size_t n, int64_t pad, int64_t **ids_out,
                               int64_t **x_out, size_t *u_out) {
  int64_t *ids = clg__mpi_ws(p, CLG_MPI_BAG_IDS, n * sizeof *ids);
  int64_t *x = ids ? clg__mpi_ws(p, CLG_MPI_BAG_X, n * sizeof *x) : NULL;
  clg_id_pos *pairs =
      x ? clg__mpi_ws(p, CLG_MPI_BAG_PAIRS, n * sizeof *pairs) : NULL;
  clg_id_pos *scratch =
      pairs ? clg__mpi_ws(p, CLG_MPI_BAG_SORT, n * sizeof *scratch) : NULL;
  if (!scratch)
    return CLG_ERROR_OUT_OF_HOST_MEMORY;
  size_t m = 0, u = 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t v = clg__mpi_index(indices, i);
    if (v == pad)
      continue;
    pairs[m++] = (clg_id_pos){v, (int64_t)i};
  }
  clg__mpi_sort_pairs(pairs, scratch, m, p->g.rows - 1);
  for (size_t i = 0; i < m; ++i) {
    if (i == 0 || pairs[i].id != pairs[i - 1].id)
      ids[u++] = pairs[i].id;
    x[pairs[i].pos] = (int64_t)u - 1;
  }
  for (size_t i = 0; pad >= 0 && i < n; ++i)
    if (clg__mpi_index(indices, i) == pad)
      x[i] = (int64_t)u;
  *ids_out = ids;
  *x_out = x;
  *u_out = u;
  return CLG_SUCCESS;
}

clg_status clg_mpi_plan_embedding_bag(clg_mpi_plan *plan,
                                      const clg_bag_params *params,
                                      const clg_tensor *indices,
                                      const clg_tensor *bags,
                                      const clg_tensor *per_sample_weights,
                                      const clg_tensor *output) {
  clg__mpi_clear();
  if (!plan)
    return clg__mpi_fail(CLG_ERROR_NULL_ARGUMENT, "plan is NULL");
  clg_mpi_plan *p = plan;
  const clg_mpi_table *t = &p->table;
  MPI_Comm comm = t->comm;
  int rank = p->g.rank;
  p->have_index = false;
  static const clg_bag_params defaults = {0};
  clg_bag_params bp = params ? *params : defaults;
  /* This rank's checks, its renumbering and its workspace; then one
   * agreement: the lowest failing rank's verdict, before any row moves. */
  clg_status st = bag_check(p, &bp, indices, bags, per_sample_weights,
                            output);
  size_t n = 0, u = 0, rb = p->g.row_bytes;
  int64_t *ids = NULL, *x = NULL, pad = -1;
  unsigned char *rows = NULL;
  if (st == CLG_SUCCESS) {
    if (bp.flags & CLG_BAG_PADDING_IDX)
      pad = bp.padding_idx < 0 ? bp.padding_idx + t->rows : bp.padding_idx;
    n = clg__mpi_numel(indices, 0);
    st = bag_renumber(p, indices, n, pad, &ids, &x, &u);
  }
  size_t local = u + (pad >= 0 ? 1 : 0);
  if (st == CLG_SUCCESS && rb && local > SIZE_MAX / rb)
    st = clg__mpi_fail(CLG_ERROR_SIZE_OVERFLOW,
                       "rank %d: %zu distinct rows of %zu bytes overflow "
                       "size_t",
                       rank, local, rb);
  if (st == CLG_SUCCESS) {
    rows = clg__mpi_ws(p, CLG_MPI_BAG_ROWS, local * rb);
    st = rows ? CLG_SUCCESS : CLG_ERROR_OUT_OF_HOST_MEMORY;
  }
  if ((st = clg__mpi_agree(comm, rank, st)) != CLG_SUCCESS)
    return st;
  /* The distinct rows, through the plan's gather (collective, agreed). */
  int64_t ushape[1] = {(int64_t)u}, lshape[2] = {(int64_t)u, t->shard.shape[1]};
  clg_tensor ut = clg_tensor_host(CLG_DTYPE_INT64, 1, ushape, ids);
  clg_tensor lt = clg_tensor_host(t->shard.dtype, 2, lshape, rows);
  st = clg_mpi_plan_gather(p, &ut, &lt);
  p->have_index = false; /* not this call's index: no scatter reuses it */
  if (st != CLG_SUCCESS)
    return st;
  if (pad >= 0) { /* the padding entries' row: never read */
    memset(rows + u * rb, 0, rb);
    bp.padding_idx = (int64_t)u;
  }
  lshape[0] = (int64_t)local;
  clg_tensor w = clg_tensor_host(t->shard.dtype, 2, lshape, rows);
  clg_tensor xt = clg_tensor_host(CLG_DTYPE_INT64, indices->rank,
                                  indices->shape, x);
  st = clg_embedding_bag(t->ctx, &bp, &w, &xt, bags, per_sample_weights,
                         output, p->queue, 0, NULL, NULL);
  st = clg__mpi_local(st, rank, "EmbeddingBag");
  return clg__mpi_agree(comm, rank, st);
}

clg_status clg_mpi_embedding_bag(const clg_mpi_table *table,
                                 const clg_bag_params *params,
                                 const clg_tensor *indices,
                                 const clg_tensor *bags,
                                 const clg_tensor *per_sample_weights,
                                 const clg_tensor *output) {
  clg_mpi_plan *p = NULL;
  clg_status st = clg_mpi_plan_create(table, &p);
  if (st == CLG_SUCCESS)
    st = clg_mpi_plan_embedding_bag(p, params, indices, bags,
                                    per_sample_weights, output);
  clg_mpi_plan_destroy(p);
  return st;
}
