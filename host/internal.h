/* Internal declarations shared by the files of host/. Not installed. */
#ifndef CLGATHER_HOST_INTERNAL_H
#define CLGATHER_HOST_INTERNAL_H

#include <clgather/clgather.h>

#include "faults.h" /* test builds only: wraps OpenCL calls */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Host allocations go through these so test builds can make them fail. */
#if defined(CLGATHER_TESTING)
#define CLG_MALLOC(n) clg__fi_malloc(n)
#define CLG_CALLOC(n, size) clg__fi_calloc(n, size)
#else
#define CLG_MALLOC(n) malloc(n)
#define CLG_CALLOC(n, size) calloc(n, size)
#endif

#if defined(__GNUC__)
#define CLG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLG_PRINTF(f, a)
#endif

/* ------------------------------------------------------------ status.c */

/* Record `status` and a printf-style message for the calling thread; returns
 * `status` so callers can `return clg__fail(...)`. */
clg_status clg__fail(clg_status status, const char *fmt, ...) CLG_PRINTF(2, 3);
/* Record success (empty message); returns CLG_SUCCESS. */
clg_status clg__ok(void);
/* Record a failed OpenCL call: CLG_ERROR_OPENCL with "CALL failed: NAME (code)
 * while WHAT". */
clg_status clg__fail_cl(cl_int err, const char *call, const char *what);
/* Symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *clg__cl_error_name(cl_int err);
/* Append a formatted shape "[2, 3, 4]" to buf (bounded, always terminated). */
void clg__format_shape(char *buf, size_t cap, int32_t rank,
                       const int64_t *shape);

/* ----------------------------------------------------------- context.c */

struct clg_program_entry;

/* A 128-bit hash (cache.c): program cache keys and file checksums. */
typedef struct clg_hash128 {
  uint64_t a, b;
} clg_hash128;

struct clg_context {
  cl_context cl_ctx;
  cl_device_id device;
  bool owns_cl_ctx;       /* created by clg_context_create_default */
  cl_command_queue queue; /* the context's own queue, lazily created */
  /* A queue of its own for clg_outcome_wait()'s verdict reads, lazily
   * created: a read on `queue` would wait behind the caller's commands. */
  cl_command_queue verdict_queue;
  pthread_mutex_t lock;               /* guards queue creation and the caches */
  struct clg_program_entry *programs; /* singly linked program cache */
  struct clg_kernel_entry *kernels;   /* singly linked kernel cache */
  size_t max_work_group_size;
  cl_uint compute_units; /* CL_DEVICE_MAX_COMPUTE_UNITS */
  cl_ulong cache_bytes;  /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (0: none) */
  cl_device_type device_type;
  /* CL_DEVICE_HOST_UNIFIED_MEMORY: host memory is device memory (CPU
   * devices, integrated GPUs). Host tensors are then wrapped in place
   * (CL_MEM_USE_HOST_PTR) instead of being copied. */
  bool host_unified;
  unsigned builds;      /* programs created so far, from source or from the
                         * disk cache (for tests) */
  unsigned disk_loads;  /* ... of which loaded from the disk cache */
  unsigned disk_stores; /* binaries written to the disk cache */
  /* The on-disk program cache (cache.c), looked at on the first program
   * miss: 0 not yet, 1 on (cache_dir, cache_seed set), -1 off. */
  int cache_state;
  char *cache_dir;
  clg_hash128 cache_seed; /* hash of the key fields every program shares */
  /* cl_mem index arrays validated on the device (the validation kernel
   * enqueued successfully) rather than read back: for tests. Zeroed by the
   * context's calloc. */
  atomic_uint device_validations;
  /* Kernel variants chosen per shape class (tune.c), under `lock`. */
  struct clg_tune_entry *tuned;
  /* The variant the last kernel launch used and how it was chosen
   * (clg_context_last_variant), under `lock`. */
  const char *last_variant;
  clg_choice last_choice;
};

/* The context's verdict-reading queue (created on first use; NULL with the
 * message set when it cannot be). */
cl_command_queue clg__verdict_queue(clg_context *ctx);

/* ---------------------------------------------------------- validate.c */

/* Facts about one validated tensor descriptor. */
typedef struct clg_tensor_facts {
  size_t elem_size;   /* bytes per element */
  size_t count;       /* elements */
  size_t bytes;       /* count * elem_size */
  cl_mem_flags flags; /* the buffer's flags (0 for host memory) */
} clg_tensor_facts;

/* Check a descriptor: storage kind, rank in [0, CLG_MAX_RANK], no negative
 * dim, element count and byte size fit size_t, non-NULL host pointer or
 * buffer when there are elements, buffer of ctx's context large enough for
 * offset + bytes. `elem_size` is the dtype size already checked by the
 * caller. `name` ("data", "indices", "output") is used in messages. */
clg_status clg__check_tensor(const clg_context *ctx, const char *name,
                             const clg_tensor *t, size_t elem_size,
                             clg_tensor_facts *facts);

/* The output's bytes must not overlap an input's (same host memory or same
 * cl_mem): CLG_ERROR_INVALID_ARGUMENT otherwise. */
clg_status clg__check_no_overlap(const char *in_name, const clg_tensor *in,
                                 size_t in_bytes, const clg_tensor *out,
                                 size_t out_bytes);

/* Check an element type for data/output: fixed-size ONNX types only. */
clg_status clg__check_data_dtype(const char *name, clg_dtype dtype);
/* Check an element type for indices: int32 or int64. */
clg_status clg__check_index_dtype(clg_dtype dtype);

/* Normalize `axis` for rank r into [0, r): CLG_ERROR_INVALID_AXIS otherwise. */
clg_status clg__normalize_axis(int64_t axis, int32_t rank, const char *what,
                               int32_t *out);

/* The out-of-bounds message (CLG_ERROR_INDEX_OUT_OF_BOUNDS) for `value` at
 * flat position `pos` of indices (rank idx_rank, shape idx_shape), bounded
 * by axis `axis` of data, of size s: names the flat position, the position in
 * indices' shape, the value, the axis, its size and the valid range. */
clg_status clg__report_index_oob(size_t pos, int64_t value, int32_t idx_rank,
                                 const int64_t *idx_shape, int64_t s,
                                 int32_t axis);

/* The flat position of the first of `count` int32/int64 values (index_size
 * 4/8) outside [-s[j], s[j] - 1], j = position % period, or `count` if every
 * value is in range (the fast scan below, then a second pass on failure). */
size_t clg__first_index_out_of_range(const void *values, size_t index_size,
                                     size_t count, const int64_t *s,
                                     size_t period);

/* Is any of `count` int32/int64 values (index_size 4/8, at any byte
 * address) outside [-s[j], s[j] - 1], j = position % period (period in
 * [1, CLG_MAX_RANK], s[j] >= 0)? Exact. Branch-free and vectorized; large
 * arrays are split across threads (falling back to the calling thread when
 * one cannot be created). Callers find the first offender themselves. */
bool clg__any_index_out_of_range(const void *values, size_t index_size,
                                 size_t count, const int64_t *s, size_t period);
/* Element i of an int32 (index_size 4) or int64 array at any byte address. */
int64_t clg__index_at(const void *values, size_t index_size, size_t i);

/* ---------------------------------------------------------------- op.c */

/* Everything an operator's enqueue step gets: the caller's tensors, their
 * facts, the cl_mem each is staged in, and where to enqueue. */
typedef struct clg_launch {
  const clg_tensor *data, *indices, *output;
  clg_tensor_facts df, xf, of;
  struct clg_staged *d, *x, *o;
  cl_command_queue queue;
  cl_uint num_events;
  const cl_event *wait_list;
} clg_launch;

struct clg_kernel_call;

/* One operator of the family (gather.c, gather_elements.c, gather_nd.c). */
typedef struct clg_op_impl {
  const char *name; /* "Gather" */
  /* Check params against the shapes (ranks in [0, CLG_MAX_RANK] and dims
   * non-negative already checked; data rank >= 1), normalise axis and
   * batch_dims into *norm, and write the output shape. */
  clg_status (*shape)(const clg_params *params, int32_t data_rank,
                      const int64_t *data_shape, int32_t indices_rank,
                      const int64_t *indices_shape, clg_params *norm,
                      int32_t *out_rank, int64_t *out_shape);
  /* The index checks that read no value (Gather's modes WRAP and CLIP: an
   * empty axis admits no index), or NULL. Run in every mode, before any
   * value is read; values are read (and checked against `bounds`) only in
   * mode RAISE. */
  clg_status (*check_mode)(const clg_params *norm, const clg_tensor *data,
                           size_t count);
  /* Mode RAISE: the periodic bounds of the call. Index value at flat
   * position i must lie in [-s[i % period], s[i % period] - 1]; writes
   * s[0..period-1] (period <= CLG_MAX_RANK) and returns period. */
  size_t (*bounds)(const clg_params *norm, const clg_tensor *data,
                   const clg_tensor *indices, int64_t *s);
  /* Mode RAISE: the failure (CLG_ERROR_INDEX_OUT_OF_BOUNDS and its message)
   * for the out-of-bounds `value` at flat position `pos` of indices. Shared
   * by the host scan and the device verdict, so both give one message. */
  clg_status (*report)(const clg_params *norm, const clg_tensor *data,
                       const clg_tensor *indices, size_t pos, int64_t value);
  /* Choose, get (building on first use) and set up the kernel for a
   * non-empty output: *call receives the kernel, its arguments and the
   * NDRange, ready for clg__call_launch(). `gated`: the kernel variant of
   * the asynchronous checked mode, which takes the verdict buffer as one
   * more, last, argument (appended by clg__call_launch()). Tensors whose
   * staged mem is NULL (a plan being baked) give NULL mem arguments. */
  clg_status (*prepare)(clg_context *ctx, const clg_params *norm,
                        const clg_launch *launch, bool gated,
                        struct clg_kernel_call *call);
} clg_op_impl;

/* Checked inputs of a call: the operator, normalised params, facts. */
typedef struct clg_checked {
  const clg_op_impl *impl;
  clg_params norm;
  clg_tensor_facts df, xf;
  int32_t out_rank;
  int64_t out_shape[CLG_MAX_RANK];
} clg_checked;

/* ------------------------------------------------------- index_pass.c */

/* A verdict of the validation kernel on cl_mem indices, on the device: a
 * buffer (flag word, then a (position, value) pair per work-group) and the
 * event of the kernel that writes it. */
typedef struct clg_verdict {
  cl_mem mem;
  size_t groups;
  cl_event event;
} clg_verdict;

/* No offending position. */
#define CLG_VERDICT_NONE ((cl_ulong)0xFFFFFFFFFFFFFFFFull)

/* Mode RAISE, cl_mem indices: enqueue the validation kernel (after the wait
 * list) into a new verdict buffer. On failure *v holds nothing. */
clg_status clg__verdict_enqueue(clg_context *ctx, const clg_checked *c,
                                cl_command_queue queue, const clg_tensor *data,
                                const clg_tensor *indices, cl_uint num_events,
                                const cl_event *wait_list, clg_verdict *v);
/* Read a verdict (blocking, on `queue`, once its kernel has completed; a
 * kernel that failed, e.g. for a failed wait-list event, is an error): *pos
 * is the first offending flat position or CLG_VERDICT_NONE, *value its
 * value. */
clg_status clg__verdict_read(const clg_verdict *v, cl_command_queue queue,
                             cl_ulong *pos, int64_t *value);
void clg__verdict_release(clg_verdict *v);
/* Get (building on first use) the validation kernel a verdict on these
 * indices uses: for plans baking. */
clg_status clg__verdict_kernel(clg_context *ctx, const clg_checked *c,
                               const clg_tensor *data,
                               const clg_tensor *indices);

/* Does the index-value pass of this call read cl_mem values (mode RAISE,
 * cl_mem indices with elements)? */
bool clg__values_on_device(const clg_checked *c, const clg_tensor *indices);

/* index_pass.c: the operator's mode rule, then (mode RAISE) every index
 * value, in place for host indices, on the device or read back for cl_mem
 * indices; an offender is reported by the operator. */
clg_status clg__check_index_values(clg_context *ctx, const clg_checked *c,
                                   cl_command_queue queue,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   cl_uint num_events,
                                   const cl_event *wait_list);

/* ---------------------------------------------------------------- op.c */

/* ONNX Gather on axis 0: what NULL params mean. */
extern const clg_params clg__default_params;

/* One call of the family, as every entry point (clg_run, clg_run_async,
 * plans, shards) describes it to clg__run(). */
typedef struct clg_call {
  clg_context *ctx;
  const clg_params *params; /* NULL: Gather on axis 0 */
  const clg_tensor *data, *indices, *output;
  cl_command_queue queue; /* NULL: the context's own */
  cl_uint num_events;
  const cl_event *wait_list;
  cl_event *event;       /* may be NULL */
  clg_outcome **outcome; /* not NULL: asynchronous checked mode */
  bool values_checked;   /* index values already checked (shards) */
} clg_call;

/* Every check clg_run() makes that reads no index value: inputs, params,
 * output, queue (resolved into *queue). */
clg_status clg__check_call(const clg_call *call, clg_checked *c,
                           clg_tensor_facts *of, cl_command_queue *queue);

/* Run a call: checks, index values, kernels (see clg_run, clg_run_async). */
clg_status clg__run(const clg_call *call);

/* The checks of clg__check_call() that need no memory, on plan templates
 * (plans.c): shapes, types, params, sizes, the indices offset's alignment.
 * No queue, no wait list, no buffer is looked at. */
clg_status clg__check_templates(clg_context *ctx, const clg_params *params,
                                const clg_tensor *data,
                                const clg_tensor *indices,
                                const clg_tensor *output, clg_checked *c,
                                clg_tensor_facts *of);

/* Build every kernel a call with these checked tensors would need (gather,
 * gated or not, at the tensors' offsets; validation in mode RAISE). */
clg_status clg__bake(clg_context *ctx, const clg_checked *c,
                     const clg_tensor *data, const clg_tensor *indices,
                     const clg_tensor *output, const clg_tensor_facts *of,
                     bool gated);

/* ----------------------------------------------------------- outcome.c */

/* An outcome already decided (CLG_SUCCESS: nothing to read on the device). */
clg_status clg__outcome_decided(clg_outcome **out);
/* An outcome pending on verdict `v` (it takes its own references), for the
 * call checked as `c` on ctx with `data` and `indices`; `queue` (retained)
 * is flushed before waiting. */
clg_status clg__outcome_pending(clg_context *ctx, const clg_checked *c,
                                const clg_tensor *data,
                                const clg_tensor *indices,
                                cl_command_queue queue, const clg_verdict *v,
                                clg_outcome **out);

extern const clg_op_impl clg__op_gather;
extern const clg_op_impl clg__op_gather_elements;
extern const clg_op_impl clg__op_gather_nd;

/* Output shape of any operator: argument checks (NULL shapes, ranks, negative
 * dims, params) and then the operator's own rules; *norm gets the
 * normalised params. */
clg_status clg__output_shape(const clg_params *params, int32_t data_rank,
                             const int64_t *data_shape, int32_t indices_rank,
                             const int64_t *indices_shape, clg_params *norm,
                             int32_t *out_rank, int64_t *out_shape);

/* Normalise a batch_dims in [-q, q] (negative counts from q). */
clg_status clg__normalize_batch_dims(int64_t batch_dims, int32_t indices_rank,
                                     int32_t *out);

/* The first `b` dims of data and indices are equal, else
 * CLG_ERROR_INCOMPATIBLE_SHAPES naming the first that differs. */
clg_status clg__check_batch_shapes(const char *op, int32_t b,
                                   const int64_t *data_shape,
                                   const int64_t *indices_shape);

/* -------------------------------------------------------------- plan.c */

/* The kernel variant chosen for a gather. */
typedef enum clg_gather_variant {
  CLG_VARIANT_ROWS = 0,    /* one work-group row per output slice */
  CLG_VARIANT_SMALL = 1,   /* several short slices per work-item */
  CLG_VARIANT_ITEM = 2,    /* one work-item per slice (part), the slice
                            * length a build constant */
  CLG_VARIANT_ITEM_PF = 3, /* ITEM prefetching the slice of a later index */
  CLG_VARIANT_PLANE = 4,   /* one work-item per outer row, its plane
                            * prefetched first */
  CLG_VARIANT_BLOCK = 5,   /* a block of consecutive output slices
                            * (GatherElements: elements) per work-item */
  CLG_VARIANT_ITEM_NT = 6, /* ITEM with non-temporal (streaming) stores:
                            * outputs larger than the device's cache */
  CLG_VARIANT_COUNT
} clg_gather_variant;

/* "rows", "small", "item", "item_pf", "plane", "block", "item_nt". */
const char *clg__variant_name(int variant);
/* The variant named `name`, or -1. */
int clg__variant_parse(const char *name);

/* A gather seen as bytes: data [outer, s, inner], output [outer, n, inner],
 * with inner counted in units of unit_bytes. With batch_dims, outer runs
 * over batch x outer_pb and each batch has its own n indices. */
typedef struct clg_gather_plan {
  uint64_t outer;     /* product of data dims before the axis */
  uint64_t outer_pb;  /* the same within one batch (dims b..axis-1) */
  uint64_t s;         /* data.shape[axis] */
  uint64_t n;         /* indices per batch */
  uint64_t inner;     /* slice length in units */
  uint64_t rows;      /* outer * n: slices to copy */
  size_t unit_bytes;  /* 1, 2, 4, 8 or 16: copy width */
  size_t index_bytes; /* 4 or 8 */
  clg_gather_variant variant;
  size_t local[3];  /* work-group size */
  size_t global[3]; /* NDRange */
  cl_uint work_dim;
  /* ITEM, ITEM_PF, PLANE (clg__plan_gather_variant): */
  uint64_t parts;      /* work-items per slice */
  uint64_t part_units; /* units per part */
  unsigned prefetch;   /* CLG_PREFETCH: distance (ITEM_PF), 1 (PLANE), 0 */
  bool stream;         /* CLG_STREAM: non-temporal stores (ITEM_NT) */
  uint64_t per_item;   /* BLOCK: output slices per work-item */
  /* What clg__plan_gather was given, for re-planning into a variant. */
  uint64_t slice_bytes;
  size_t data_align, out_align, max_local;
} clg_gather_plan;

/* Slices copied per work-item by the SMALL variant (kernel -D value). */
#define CLG_SMALL_ROWS_PER_ITEM 8

/* Fill `plan` for a validated gather. outer = batch * outer_pb (outer_pb ==
 * outer without batch_dims); slice_bytes = inner dims * elem size;
 * data_align/out_align: the byte offsets (alignment) of data and output in
 * their buffers. max_local: the device's work-group size limit. */
void clg__plan_gather(clg_gather_plan *plan, uint64_t outer, uint64_t outer_pb,
                      uint64_t s, uint64_t n, uint64_t slice_bytes,
                      size_t index_bytes, size_t data_align, size_t out_align,
                      size_t max_local);

/* Gather's candidate variants for `plan` (filled by clg__plan_gather) on a
 * device of `device_type`, best guess first, into cands (room for
 * CLG_VARIANT_COUNT); returns how many. CPUs: ITEM, ITEM_PF, ITEM_NT for
 * outputs larger than the device's cache (`cache_bytes`), and PLANE for
 * short slices of several outer rows; other devices: the ROWS / SMALL plan,
 * and ITEM where its NDRange fits the 65535 limit some drivers have on dims
 * 1 and 2. */
int clg__gather_candidates(const clg_gather_plan *plan,
                           cl_device_type device_type, uint64_t cache_bytes,
                           int *cands);
/* The variants that run `plan` correctly on a device of `device_type` (a
 * bit per clg_gather_variant): all of Gather's, less those whose NDRange
 * would exceed the 65535 limit of dims 1 and 2 on a non-CPU device. */
unsigned clg__gather_allowed(const clg_gather_plan *plan,
                             cl_device_type device_type);

/* Re-plan `plan` (filled by clg__plan_gather, batch = outer / outer_pb) as
 * Gather `variant` (any of ROWS, SMALL, ITEM, ITEM_PF, PLANE) on a device of
 * `compute_units`: unit (up to 64 bytes for ITEM and PLANE), parts and
 * NDRange. */
void clg__plan_gather_variant(clg_gather_plan *plan, int variant,
                              cl_uint compute_units);

/* The -DCLG_INNER value of the ITEM / PLANE / BLOCK programs: the slice's
 * units when the slice is short and in one part (built into the program),
 * else 0 (the kernels take it as an argument). */
uint64_t clg__inner_constant(const clg_gather_plan *plan);

/* The device type plans are made for: the context's device's, except in
 * test builds, where CLGATHER_TEST_PLAN_DEVICE=gpu|cpu overrides it so the
 * GPU kernel variants also run on POCL's CPU device. */
cl_device_type clg__plan_device(const clg_context *ctx);

/* The widest copy unit (16, 8, 4, 2 or 1 bytes) dividing `bytes` and both
 * byte offsets `align_a` and `align_b`. */
size_t clg__copy_unit(uint64_t bytes, size_t align_a, size_t align_b);
/* The same up to `max` bytes (a power of two <= 64). */
size_t clg__copy_unit_max(uint64_t bytes, size_t align_a, size_t align_b,
                          size_t max);

/* ------------------------------------------------------------- tune.c */

/* Measure one candidate: run `variant` once to completion; *seconds is its
 * wall time. A failure only means "not this one". */
typedef clg_status (*clg_trial_fn)(void *arg, int variant, double *seconds);

/* The variant to run for shape class `key` (a string naming the operator
 * and the class) out of `cands` (count >= 1, best guess first):
 *  - CLGATHER_VARIANT names a variant in `allowed` (a bit per variant: those
 *    that compute this call correctly on this device, candidates or not):
 *    that one (forced; tests run every variant this way);
 *  - a choice made before for `key` on this context, or stored in the
 *    on-disk cache for this device: that one (measured);
 *  - `trial` not NULL, several candidates and CLGATHER_TUNE not "off":
 *    each candidate in turn is run by `trial` once untimed, then up to
 *    CLG_TUNE_ROUNDS times back to back (fewer once its share of
 *    CLG_TUNE_BUDGET_S is spent); the fastest by its best time is kept for
 *    `key` in the context and on disk (measured);
 *  - else cands[0] (not kept).
 * *how tells which. Every candidate computes the same output, so the choice
 * changes speed only. Thread-safe. */
int clg__tune_pick(clg_context *ctx, const char *key, const int *cands,
                   int count, unsigned allowed, clg_trial_fn trial, void *arg,
                   clg_choice *how);
/* Outputs below this many bytes are not worth timing (a launch costs more
 * than any difference between variants): the first candidate runs. */
#define CLG_TUNE_MIN_BYTES ((size_t)1 << 20)

/* Record the variant a launch used (clg_context_last_variant). */
void clg__tune_note(clg_context *ctx, int variant, clg_choice how);
/* Free the context's choices. */
void clg__tune_release(clg_context *ctx);
/* A trial's body: launch `call` (ungated) on l's queue after l's wait list,
 * wait for it; *seconds is the wall time from enqueue to completion. */
struct clg_kernel_call;
clg_status clg__time_call(const struct clg_kernel_call *call,
                          const clg_launch *l, double *seconds);
/* floor(log2(v)), 0 for v <= 1: shape classes in powers of two. */
unsigned clg__log2(uint64_t v);
/* Seconds of a monotonic clock. */
double clg__now(void);

/* OpenCL C type name of a copy unit of `unit_bytes` ("uint4"). */
const char *clg__unit_type(size_t unit_bytes);

/* ---------------------------------------------------------- programs.c */

/* A built kernel and the lock that serializes clSetKernelArg + enqueue on it.
 */
typedef struct clg_kernel_entry {
  struct clg_kernel_entry *next;
  const char *source; /* embedded source (identity) */
  char *options;      /* build options */
  char *name;         /* kernel function name */
  cl_kernel kernel;
  pthread_mutex_t lock;
} clg_kernel_entry;

/* Get (building on first use) kernel `name` of `source` built with
 * `options` for ctx's device. Thread-safe. On a build failure:
 * CLG_ERROR_BUILD_FAILED with the build log in the message. */
clg_status clg__get_kernel(clg_context *ctx, const char *source,
                           const char *options, const char *name,
                           clg_kernel_entry **out);
/* Release every cached program and kernel. */
void clg__programs_release(clg_context *ctx);

/* ------------------------------------------------------------- cache.c */

/* The on-disk program cache (see cache.c for the location, key and file
 * format). Every function is silent: failure only means "not cached", and
 * no message is recorded. Called with ctx->lock held. */

/* The cache key of (source, options) on ctx's device; false when the cache
 * is off or unusable (checked once per context). */
bool clg__cache_key(clg_context *ctx, const char *source, const char *options,
                    clg_hash128 *key);
/* Load and build (with `options`) the program stored under `key`; false on
 * a miss, an invalid file or any OpenCL failure (nothing is left behind). */
bool clg__cache_load(clg_context *ctx, const clg_hash128 *key,
                     const char *options, cl_program *out);
/* Write the binary of built program `prog` under `key` (temporary file +
 * rename); false when anything fails (nothing is left behind). */
bool clg__cache_store(clg_context *ctx, const clg_hash128 *key,
                      cl_program prog);
/* Free the context's cache state. */
void clg__cache_release(clg_context *ctx);
/* A small record (a tuning choice) under `key` with `suffix` (".tune"):
 * read into buf (at most cap - 1 bytes, terminated); false on a miss. */
bool clg__cache_get_record(clg_context *ctx, const clg_hash128 *key,
                           const char *suffix, char *buf, size_t cap);
/* Write a small record (temporary file + rename); false on failure. */
bool clg__cache_put_record(clg_context *ctx, const clg_hash128 *key,
                           const char *suffix, const char *text);

/* Embedded kernel sources (generated from the files of kernels/). */
extern const char clg_kernel_gather[];
extern const char clg_kernel_gather_elements[];
extern const char clg_kernel_gather_nd[];
extern const char clg_kernel_validate[];

/* ----------------------------------------------------------- enqueue.c */

/* A tensor made available to a kernel as a cl_mem: the caller's buffer, a
 * temporary one wrapping host memory in place (CL_MEM_USE_HOST_PTR, devices
 * with host-unified memory), or a temporary one holding a copy of it. */
typedef struct clg_staged {
  cl_mem mem;
  size_t offset;  /* bytes, within mem */
  size_t align;   /* the alignment to plan with: the tensor's first byte is
                   * aligned like this value (offset for a caller's buffer
                   * or a copy, the host address for wrapped memory) */
  bool temporary; /* mem is ours to release */
  bool wrapped;   /* mem is the caller's host memory (CL_MEM_USE_HOST_PTR):
                   * no command may still use it when the call returns */
} clg_staged;

/* Make a cl_mem for input `t` (`bytes` long, elements of `elem_size`): the
 * caller's buffer as is, or a new read-only buffer over host memory (wrapped
 * in place on host-unified devices when `may_wrap` and the pointer is
 * aligned to the element size, else initialised with a copy). `bytes` may
 * be 0. */
clg_status clg__stage_input(clg_context *ctx, const clg_tensor *t, size_t bytes,
                            size_t elem_size, bool may_wrap, const char *name,
                            clg_staged *out);
/* Make a cl_mem for output `t`: the caller's buffer, or a new write-only
 * buffer (wrapping host memory in place as for inputs, else on the device)
 * whose content is read back into host memory after the kernel (a read
 * into a wrapped buffer's own memory only synchronises). */
clg_status clg__stage_output(clg_context *ctx, const clg_tensor *t,
                             size_t bytes, size_t elem_size, clg_staged *out);
void clg__unstage(clg_staged *s);

/* Blocking read of `bytes` from a buffer tensor into `dst` after the wait
 * list. */
clg_status clg__read_buffer(cl_command_queue queue, const clg_tensor *t,
                            size_t bytes, void *dst, cl_uint num_events,
                            const cl_event *wait_list, const char *what);

/* A kernel launch set up by an operator's prepare(): the kernel, a copy of
 * its arguments and the NDRange. */
#define CLG_MAX_KERNEL_ARGS 16
#define CLG_MAX_ARG_BYTES 128 /* a ulong16 */
typedef struct clg_kernel_call {
  clg_kernel_entry *kernel;
  cl_uint nargs;
  size_t sizes[CLG_MAX_KERNEL_ARGS];
  _Alignas(16) unsigned char args[CLG_MAX_KERNEL_ARGS][CLG_MAX_ARG_BYTES];
  cl_uint work_dim;
  size_t global[3], local[3];
} clg_kernel_call;

/* Fill *call with kernel k, `nargs` arguments (sizes[i] bytes at values[i],
 * copied) and the NDRange. */
void clg__call_set(clg_kernel_call *call, clg_kernel_entry *k, cl_uint nargs,
                   const size_t *sizes, const void *const *values,
                   cl_uint work_dim, const size_t *global, const size_t *local);
/* Enqueue a prepared call; `verdict` (not NULL for a gated kernel) is
 * appended as the last argument. */
clg_status clg__call_launch(const clg_kernel_call *call, cl_command_queue queue,
                            cl_mem verdict, cl_uint num_events,
                            const cl_event *wait_list, cl_event *event);

/* Set `nargs` kernel arguments (sizes[i] bytes at values[i]) and enqueue the
 * NDRange under the kernel's lock. */
clg_status clg__launch(clg_kernel_entry *k, cl_command_queue queue,
                       cl_uint nargs, const size_t *sizes,
                       const void *const *values, cl_uint work_dim,
                       const size_t *global, const size_t *local,
                       cl_uint num_events, const cl_event *wait_list,
                       cl_event *event);

/* Resolve the queue argument of an operator call: NULL means the context's
 * own queue; otherwise it must belong to ctx's context and device. */
clg_status clg__resolve_queue(clg_context *ctx, cl_command_queue queue,
                              cl_command_queue *out);

/* Check the event wait list arguments as OpenCL does. */
clg_status clg__check_wait_list(cl_uint num_events, const cl_event *wait_list);

#endif /* CLGATHER_HOST_INTERNAL_H */
