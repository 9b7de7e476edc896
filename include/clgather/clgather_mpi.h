/**
 * @file
 * clgather_mpi — row-sharded tables over MPI: a checked, deterministic
 * distributed gather, scatter and EmbeddingBag, on any OpenCL device of
 * each rank.
 *
 * Library `clgather_mpi` (CMake target clgather::clgather_mpi, pkg-config
 * clgather-mpi); the core library `clgather` does not depend on MPI.
 *
 * A table of `rows` rows (any element type; a row is the table's
 * dimensions after the first, `row_bytes` bytes) is split by rows over the
 * ranks of an MPI communicator: rank r holds rows [lo_r, hi_r), contiguous
 * and in rank order (lo_0 = 0, lo_{r+1} = hi_r, hi_{P-1} = rows; empty
 * shards allowed), as a clg_tensor on its own device (clg_context): host
 * memory or a cl_mem. Indices are global row ids, int32 or int64;
 * negative ids count from the back (id + rows), as ONNX Gather's do.
 *
 * Every function here but clg_mpi_last_error, clg_mpi_even_rows and
 * clg_mpi_plan_staging is collective: each rank of the communicator calls
 * it with the same table geometry, its own indices (and updates), and gets
 * the same status. MPI itself must be initialised (MPI_Init) by the caller;
 * MPI_THREAD_SINGLE suffices when one thread calls. Blocking: each call
 * returns when its own outputs are written and its shard is updated.
 * No MPI implementation knows OpenCL buffers: rows cross ranks through host
 * memory (the shard's rows are gathered on its device, then mapped or read
 * back; see clg_mpi_plan_create for the staging).
 *
 * Errors: a clg_status, with every rank agreeing, and the message in
 * clg_mpi_last_error() (the calling thread's; the core library's message is
 * copied there when a local clgather call fails). Each rank checks its own
 * arguments and indices, then all agree: every rank returns the lowest
 * failing rank's status and message. An index outside [-rows, rows-1] is
 * so CLG_ERROR_INDEX_OUT_OF_BOUNDS on every rank, checked before any row
 * moves; the message names the first offending rank (lowest rank, then
 * lowest position), the position, the value and the valid range, and no
 * output or shard is written on any rank. A NULL table is CLG_ERROR_NULL_ARGUMENT on that rank alone, before
 * any collective (the other ranks then wait in theirs: a caller's bug, as
 * with any collective called by only some ranks). MPI's own failures abort
 * the job under MPI's default error handler (MPI_ERRORS_ARE_FATAL); with
 * MPI_ERRORS_RETURN set on comm, an MPI call that fails makes the function
 * return CLG_ERROR_OPENCL (the status of a failure in the platform below the
 * library) with MPI's error string on the ranks that saw it, and ranks that
 * did not may wait in the next collective: keep the default handler.
 */
#ifndef CLGATHER_CLGATHER_MPI_H
#define CLGATHER_CLGATHER_MPI_H

#include <clgather/clgather.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CLG_MPI_API __attribute__((visibility("default")))
#else
#define CLG_MPI_API
#endif

/**
 * One rank's view of a row-sharded table.
 *
 * comm: the communicator whose ranks hold the shards (borrowed).
 * ctx: this rank's clgather context (its device; borrowed).
 * rows: the table's global row count (the same on every rank).
 * lo, hi: this rank's rows [lo, hi) (0 <= lo <= hi <= rows).
 * shard: this rank's rows: rank >= 1, shape [hi - lo, row dims...] (the row
 *   dims the same on every rank), host memory or a cl_mem on ctx's
 *   context; the element type the same on every rank.
 * queue: the command queue for this rank's device work (NULL: ctx's own).
 */
typedef struct clg_mpi_table {
  /** The communicator whose ranks hold the shards (borrowed). */
  MPI_Comm comm;
  /** This rank's clgather context (its device; borrowed). */
  clg_context *ctx;
  /** The table's global row count (the same on every rank). */
  int64_t rows;
  /** This rank's rows [lo, hi) (0 <= lo <= hi <= rows): lo, then hi. */
  int64_t lo, hi; /**< hi: one past this rank's last row. */
  /** This rank's rows, shape [hi - lo, row dims...]: host or cl_mem. */
  clg_tensor shard;
  /** The command queue for this rank's device work (NULL: ctx's own). */
  cl_command_queue queue;
} clg_mpi_table;

/**
 * Distributed Gather on axis 0 (ONNX Gather, opset 13, of the whole table):
 * each rank's output[i, ...] = table[indices[i], ...] for its own indices.
 *
 * indices: this rank's global row ids, host memory, int32 or int64, any
 *   rank q >= 0 (may be empty on some ranks).
 * output: host memory, the table's element type, shape indices.shape +
 *   row dims (rank q + shard.rank - 1 <= CLG_MAX_RANK).
 *
 * Algorithm: every id checked (collectively) first; then per rank the ids
 * are deduplicated and bucketed by owner; MPI_Alltoall of the counts,
 * MPI_Alltoallv of the ids; each owner gathers the requested rows from its
 * shard with clg_gather() on its device; the rows go back (MPI_Alltoallv,
 * or point to point when a plan overlaps, see clg_mpi_plan_create); each
 * rank places them in indices' order. Results are byte for byte the
 * single-process gather of the whole table.
 *
 * Errors (the same on every rank): CLG_ERROR_NULL_ARGUMENT,
 * CLG_ERROR_INVALID_ARGUMENT (a shard geometry that does not tile
 * [0, rows) in rank order, a shard buffer of another context, cl_mem
 * indices or output, a count beyond MPI's int counts), CLG_ERROR_INVALID_RANK
 * (indices' or the shard's rank), CLG_ERROR_INVALID_SHAPE (a negative
 * dimension), CLG_ERROR_UNSUPPORTED_DTYPE (the shard's element type),
 * CLG_ERROR_DTYPE_MISMATCH and CLG_ERROR_SHAPE_MISMATCH
 * (element types or row shapes that differ between ranks, the output's
 * shape), CLG_ERROR_BUFFER_TOO_SMALL (a shard buffer), CLG_ERROR_SIZE_OVERFLOW,
 * CLG_ERROR_INVALID_INDICES_DTYPE, CLG_ERROR_INDEX_OUT_OF_BOUNDS,
 * CLG_ERROR_OUT_OF_HOST_MEMORY, CLG_ERROR_OPENCL, and the core library's
 * errors of the local gather.
 */
CLG_MPI_API clg_status clg_mpi_gather(const clg_mpi_table *table, const clg_tensor *indices,
                   const clg_tensor *output);

/**
 * Distributed scatter of rows into the table (ONNX ScatterND, opset 18,
 * with indices [N, 1] over the whole table): each rank's (index, update
 * row) pairs go to the rows' owners, which apply them to their shards in
 * place. With reduction add this is the backward pass of a distributed
 * embedding lookup.
 *
 * indices: this rank's global row ids, host memory, int32 or int64, shape
 *   [N] or [N, 1] (N may be 0).
 * updates: host memory, the table's element type, shape [N, row dims...].
 * scatter: reduction and duplicates rule as clg_scatter() takes them (NULL:
 *   reduction none, duplicates an error).
 *
 * Order: the updates apply in the global order of the entries — rank 0's in
 * their order, then rank 1's, and so on — each step in the element type,
 * so the result is bit for bit the single-process ScatterND of all ranks'
 * entries concatenated in rank order, whatever the number of ranks.
 * Under reduction none, a row targeted twice anywhere is
 * CLG_ERROR_DUPLICATE_INDEX on every rank (naming the two entries as
 * (rank, position) pairs), unless duplicates is CLG_DUPLICATES_LAST (the
 * later entry in the global order wins). Bounds and duplicates are checked
 * collectively before any shard is written.
 *
 * Every rank must pass the same reduction and duplicates rule
 * (CLG_ERROR_INVALID_ARGUMENT otherwise, on every rank).
 *
 * Errors: as clg_mpi_gather(), plus CLG_ERROR_INVALID_RANK (indices not
 * [N] or [N, 1]), CLG_ERROR_DUPLICATE_INDEX, CLG_ERROR_UNSUPPORTED_DTYPE
 * (a reduction the element type does not define, such as min/max on
 * complex types, or one on float64/complex128 on a rank whose device lacks
 * cl_khr_fp64) and CLG_ERROR_INVALID_ARGUMENT (also: more than INT_MAX
 * entries on a rank; with a reduction, a cl_mem shard's offset that is not
 * a multiple of its element, or of a complex element's component). Every
 * check the owners' local ScatterND would make is made, and agreed, before
 * any rank writes its shard; only a failure of the device itself (OpenCL,
 * a program build, memory) can come after some shards were written.
 */
CLG_MPI_API clg_status clg_mpi_scatter(const clg_mpi_table *table, const clg_tensor *indices,
                    const clg_tensor *updates,
                    const clg_scatter_params *scatter);

/**
 * A plan: one table's geometry agreed once, and a workspace kept from call
 * to call, for a training loop's repeated lookups (forward gathers) and
 * their gradients (backward scatter-adds). clg_mpi_gather() and
 * clg_mpi_scatter() are a plan created, used once and destroyed.
 *
 * The plan copies *table (the struct, not the shard): the shard's memory
 * and the communicator, context and queue must stay valid, and the geometry
 * unchanged, until clg_mpi_plan_destroy(); the shard's contents may change
 * (scatters through the plan write them).
 *
 * Workspace: host buffers that only grow, to the largest call's needs, per
 * rank: a gather about 48 bytes per index (ids, sorting pairs and their
 * scratch, slots) and 8 per id requested of the rank; a scatter about 24
 * per entry sent and 16 per entry received; plus the rows sent and
 * received. Freed by clg_mpi_plan_destroy().
 *
 * Staging (clg_mpi_plan_staging()): with a cl_mem shard ("mapped"), the
 * rows cross between the device and MPI through a buffer the plan
 * allocates with CL_MEM_ALLOC_HOST_PTR on the shard's context, mapped while
 * MPI reads or writes it (MPI sends from and receives into the mapped
 * memory); the ids an owner serves or applies go to the device through a
 * second such buffer. That memory is pinned host memory on a discrete GPU
 * (a map is one DMA at full bus speed, no pageable bounce), and the
 * device's own on a device sharing host memory (a map copies nothing). With a host shard ("host"), host buffers the
 * core library wraps in place on such devices (copies otherwise). The
 * environment variable CLGATHER_MPI_STAGING=host|mapped, read at creation,
 * overrides the choice.
 *
 * Overlap: on a device that does not share host memory (a mapped plan,
 * more than one rank), rows are exchanged point to point, one message per
 * peer, so that staging and communication overlap: a gather's served rows
 * are mapped peer by peer and each peer's sent as soon as it is on the
 * host; a scatter's update rows are unmapped (sent to the device) source by
 * source as they arrive. Where a map copies nothing (CPU and integrated
 * devices) this would only add commands: one MPI_Alltoallv moves the rows
 * instead. CLGATHER_MPI_OVERLAP=0|1 overrides the choice; one choice holds
 * for all ranks (any rank's wish makes every rank's). An overlapping plan
 * sends its messages over its own duplicate of table->comm (MPI_Comm_dup),
 * never matching the caller's.
 *
 * Collective (every rank of table->comm, the same geometry as in
 * clg_mpi_gather()); *plan is set on success only (NULL otherwise).
 * Errors (the same on every rank): CLG_ERROR_NULL_ARGUMENT (plan, table,
 * table->ctx; a NULL table or plan is that rank's alone, before any
 * collective), and the table's errors of clg_mpi_gather():
 * CLG_ERROR_INVALID_ARGUMENT, CLG_ERROR_DTYPE_MISMATCH,
 * CLG_ERROR_SHAPE_MISMATCH, CLG_ERROR_BUFFER_TOO_SMALL,
 * CLG_ERROR_SIZE_OVERFLOW, CLG_ERROR_INVALID_SHAPE,
 * CLG_ERROR_UNSUPPORTED_DTYPE, CLG_ERROR_OUT_OF_HOST_MEMORY,
 * CLG_ERROR_OPENCL.
 */
typedef struct clg_mpi_plan clg_mpi_plan;
/** Makes a plan for `table` on every rank (collective): see clg_mpi_plan
 * for what it keeps and the errors it returns. */
CLG_MPI_API clg_status clg_mpi_plan_create(const clg_mpi_table *table,
                                           clg_mpi_plan **plan);

/**
 * clg_mpi_gather() through a plan: the same arguments, checks, errors and
 * results (byte for byte). On success the plan keeps this gather's index
 * (the ids deduplicated and routed to their owners) for a following
 * clg_mpi_plan_scatter() with indices NULL; a failed gather drops it on
 * every rank. Collective; blocking. CLG_ERROR_NULL_ARGUMENT also for a
 * NULL plan (that rank's alone).
 */
CLG_MPI_API clg_status clg_mpi_plan_gather(clg_mpi_plan *plan,
                                           const clg_tensor *indices,
                                           const clg_tensor *output);

/**
 * clg_mpi_scatter() through a plan. indices NULL (on every rank) reuses the
 * plan's last successful gather's indices: updates then has that gather's
 * output shape (its indices' shape + the row dims: the gradient of the
 * lookup), entry i being updates' row i in C order, for row indices[i].
 * Reused, the ids are not checked nor routed again: each rank sends the
 * owners only, per distinct id, its number of entries, then the update
 * rows grouped by id; the result is bit for bit that of the same call with
 * the indices given (the order of the entries on each row, the only order
 * that matters, is the global one either way). The plan keeps the reused
 * index (scatters do not change it).
 *
 * Collective; blocking. Errors: those of clg_mpi_scatter(), plus
 * CLG_ERROR_NULL_ARGUMENT (a NULL plan, that rank's alone) and
 * CLG_ERROR_INVALID_ARGUMENT (indices NULL on some ranks and not on others,
 * or with no successful gather to reuse), on every rank.
 */
CLG_MPI_API clg_status clg_mpi_plan_scatter(
    clg_mpi_plan *plan, const clg_tensor *indices, const clg_tensor *updates,
    const clg_scatter_params *scatter);

/**
 * Distributed EmbeddingBag (clgather/clgather_bag.h's clg_embedding_bag(),
 * of the whole table as the weight): each rank's output[b, :] = the
 * reduction (params->mode) of the table's rows indices[i] over the entries
 * i of its own bag b (params->form).
 *
 * table: the weight [rows, dim], row-sharded (shard rank 2, else
 *   CLG_ERROR_INVALID_RANK): float32, float16, bfloat16 or float64.
 * params, indices, bags, per_sample_weights, output: this rank's own, as
 *   clg_embedding_bag() takes them (forms offsets [B] or [B + 1], fixed
 *   [B, L], segment ids [N]; modes sum, mean, max, sqrt_n; padding_idx a
 *   global row id in [-rows, rows - 1]), each host memory (cl_mem operands
 *   are CLG_ERROR_INVALID_ARGUMENT); bags and per_sample_weights may be
 *   NULL as clg_embedding_bag() allows. Indices are global row ids in
 *   [0, rows - 1] (no counting from the back, unlike clg_mpi_gather());
 *   output is [B, dim] in the table's element type. A table quantized per
 *   row (params->weight_format, clgather_bag.h) is sharded as uint8 rows
 *   [rows, row_bytes], which move packed; its output is float32 [B, dim],
 *   dim following from row_bytes. Ranks may pass
 *   different params (each rank's bags are its own); any rank may have no
 *   indices or no bags. The caller keeps every operand; nothing is kept.
 *
 * Result: every rank's output is byte for byte clg_embedding_bag() of its
 * own bags over the whole table on one device, for any number of ranks and
 * any shard layout: each rank checks its call as clg_embedding_bag() would
 * on the whole table; the distinct rows its indices name (padding entries
 * left out) are fetched as clg_mpi_gather() fetches rows, into a local
 * table [distinct, dim] on the host; the indices are renumbered to its
 * rows, their order kept; and clg_embedding_bag() reduces the bags on the
 * rank's own device (table->queue), each bag in the order of its entries
 * with clgather_bag.h's arithmetic. Workspace per rank: about 40 bytes per
 * index and the distinct rows (twice, with the gather's), temporary, or
 * the plan's (clg_mpi_plan_embedding_bag).
 *
 * Collective over table->comm; blocking: returns when this rank's output
 * is written. Checks, before any row moves: this rank's operands, then
 * clg_embedding_bag()'s checks on the whole table in its order (params,
 * types, shapes, padding_idx, the bags, then every index against the
 * global rows), then the device's support for the mode and type; then
 * every rank agrees, so a failure on any rank is every rank's status and
 * message (the lowest failing rank's), with no output written on any rank.
 * The core library's messages come prefixed with the rank ("rank 2's
 * EmbeddingBag: indices[7] is 1000, outside [0, 999]: weight has 1000
 * rows ..."): positions are rank-local. Only a failure of the device
 * itself (OpenCL, a program build, memory) can come after the rows moved,
 * and then outputs already written on other ranks stay written.
 *
 * Errors (the same on every rank): those of clg_mpi_gather() for the table
 * (geometry, shard, element types, MPI's int counts), and
 * CLG_ERROR_NULL_ARGUMENT (indices, output, their host memory; bags for the
 * offsets and segment-id forms), CLG_ERROR_INVALID_ARGUMENT (a cl_mem
 * operand, output aliasing an input, and clg_embedding_bag()'s: unknown
 * mode, form, flag or weight_format, bags with CLG_BAGS_FIXED,
 * include_last_offset with another form, per_sample_weights with a mode
 * other than sum, padding_idx outside [-rows, rows - 1]),
 * CLG_ERROR_INVALID_RANK, CLG_ERROR_INVALID_SHAPE (also a quantized
 * shard's rows shorter than their scale and bias),
 * CLG_ERROR_UNSUPPORTED_DTYPE (the table's type, or the device's support),
 * CLG_ERROR_INVALID_INDICES_DTYPE (indices or bags),
 * CLG_ERROR_DTYPE_MISMATCH, CLG_ERROR_INCOMPATIBLE_SHAPES,
 * CLG_ERROR_SHAPE_MISMATCH (output), CLG_ERROR_SIZE_OVERFLOW,
 * CLG_ERROR_INVALID_BAGS, CLG_ERROR_INDEX_OUT_OF_BOUNDS,
 * CLG_ERROR_OUT_OF_HOST_MEMORY, CLG_ERROR_OPENCL, CLG_ERROR_BUILD_FAILED.
 */
CLG_MPI_API clg_status clg_mpi_embedding_bag(
    const clg_mpi_table *table, const clg_bag_params *params,
    const clg_tensor *indices, const clg_tensor *bags,
    const clg_tensor *per_sample_weights, const clg_tensor *output);

/**
 * clg_mpi_embedding_bag() through a plan: the same arguments, checks,
 * errors and results (byte for byte), with the plan's workspace kept from
 * call to call. The plan keeps no gather index after it (a following
 * clg_mpi_plan_scatter() with indices NULL is CLG_ERROR_INVALID_ARGUMENT).
 * Collective; blocking. CLG_ERROR_NULL_ARGUMENT also for a NULL plan (that
 * rank's alone).
 */
CLG_MPI_API clg_status clg_mpi_plan_embedding_bag(
    clg_mpi_plan *plan, const clg_bag_params *params,
    const clg_tensor *indices, const clg_tensor *bags,
    const clg_tensor *per_sample_weights, const clg_tensor *output);

/** The plan's staging: "mapped" or "host" (see clg_mpi_plan_create); ""
 * for NULL. */
CLG_MPI_API const char *clg_mpi_plan_staging(const clg_mpi_plan *plan);

/** Frees the plan's workspace and staging buffers, and its duplicate
 * communicator if it has one (MPI_Comm_free: call it on every rank, before
 * MPI_Finalize). NULL: nothing. The caller's objects are not released. */
CLG_MPI_API void clg_mpi_plan_destroy(clg_mpi_plan *plan);

/** The calling thread's message for the last failed clg_mpi_* call ("" if
 * none); valid until its next clg_mpi_* call. */
CLG_MPI_API const char *clg_mpi_last_error(void);

/**
 * The even split of `rows` rows over `size` ranks that the CLI uses: every
 * rank holds rows / size rows, the first rows % size ranks one more, in
 * rank order (lo = rank * (rows / size) + min(rank, rows % size)); writes
 * *lo and *hi. Ranks past the rows get empty shards. Pure function.
 */
CLG_MPI_API void clg_mpi_even_rows(int64_t rows, int size, int rank, int64_t *lo,
                       int64_t *hi);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_CLGATHER_MPI_H */
