/**
 * @file
 * clgather — the gather family of tensor operators on any OpenCL device.
 *
 * Semantics: ONNX `Gather` (opsets 1, 11 and 13; they agree on everything this
 * library implements), `GatherElements` (11, 13) and `GatherND` (11, 12, 13,
 * with batch_dims); see https://onnx.ai/onnx/operators/. Beyond ONNX:
 * TensorFlow's batch_dims for Gather (tf.gather / GatherV2) and numpy.take's
 * index modes (raise, wrap, clip). The scatters (ONNX `ScatterElements`,
 * `ScatterND`, `Scatter`: clg_scatter()) are here too; EmbeddingBag is in
 * clgather_bag.h and quantized tables in clgather_quantized.h, both
 * included by this header; the distributed library in clgather_mpi.h.
 *
 * Contents, in order: version; status codes and the per-thread message;
 * tensors (element types; host, cl_mem and strided tensors); contexts and
 * their options; Gather; the gather family (clg_params, clg_run(),
 * output shapes, validation, the scatters); asynchronous checked calls and
 * outcomes; plans; several devices.
 *
 * The promise: an out-of-bounds index is an error returned *before* any gather
 * kernel is enqueued, naming the position in `indices`, the value and the
 * valid range, and the output is left exactly as it was. There is no
 * zero-fill, no garbage, and the library never prints, exits or aborts.
 *
 * Conventions used throughout this header:
 *  - Shapes and indices are int64, counted in elements. Byte offsets and
 *    byte sizes are size_t and say "bytes".
 *  - OpenCL objects passed in by the caller (context, device, command queue,
 *    buffers, events) are borrowed: clgather retains what it keeps and
 *    releases only its own references.
 *  - Every function that can fail returns a clg_status. On failure a message
 *    with the detail is available to the calling thread through
 *    clg_last_error() until that thread's next clgather call.
 *  - All functions are safe to call from several threads; one clg_context
 *    may be shared by threads.
 */
#ifndef CLGATHER_CLGATHER_H
#define CLGATHER_CLGATHER_H

#include <stddef.h>
#include <stdint.h>

/** OpenCL: this header uses only types of OpenCL 1.0 (cl_context,
 * cl_device_id, cl_command_queue, cl_mem, cl_event, cl_uint), so it works
 * with any CL_TARGET_OPENCL_VERSION, and so does the library, which asks
 * each device what it supports at run time. A value defined before this
 * header, by the caller or by a header included first (StarPU's
 * starpu_opencl.h defines 100), is kept: it decides only which OpenCL
 * functions the caller's own code sees. Undefined, it is defined here as
 * 120 (OpenCL 1.2, the version clgather needs of a device) rather than left
 * to CL/cl.h, which would choose 300 and say so with a #pragma message. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/** Marks the library's exported functions (visibility "default" with GCC
 * and clang, dllexport/dllimport on Windows; nothing with
 * CLGATHER_STATIC_DEFINE, the static library). */
#if defined(CLGATHER_STATIC_DEFINE)
#define CLG_API
#elif defined(_WIN32)
#if defined(CLGATHER_BUILDING)
#define CLG_API __declspec(dllexport)
#else
#define CLG_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define CLG_API __attribute__((visibility("default")))
#else
#define CLG_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- version */

/** The major version of this header: the ABI's (the SONAME's number). */
#define CLGATHER_VERSION_MAJOR 0
/** The minor version: API added, none removed. */
#define CLGATHER_VERSION_MINOR 1
/** The patch version: fixes only. */
#define CLGATHER_VERSION_PATCH 0
/** MAJOR * 10000 + MINOR * 100 + PATCH. */
#define CLGATHER_VERSION_NUMBER                                                \
  (CLGATHER_VERSION_MAJOR * 10000 + CLGATHER_VERSION_MINOR * 100 +             \
   CLGATHER_VERSION_PATCH)

/** Version of the library actually linked, as CLGATHER_VERSION_NUMBER. */
CLG_API unsigned clg_version_number(void);
/** Version of the library actually linked, as "MAJOR.MINOR.PATCH" (static
 * storage, never NULL). */
CLG_API const char *clg_version_string(void);

/* ----------------------------------------------------------------- status */

/**
 * Status codes. The numeric values are fixed and will never change; new
 * codes are only ever appended.
 */
typedef enum clg_status {
  CLG_SUCCESS = 0,
  /** A required pointer argument was NULL (the message names it). */
  CLG_ERROR_NULL_ARGUMENT = 1,
  /** Any other malformed argument: bad storage kind, wait list count without
   * list, a cl_mem that is not a buffer, an unknown option. */
  CLG_ERROR_INVALID_ARGUMENT = 2,
  /** A tensor's rank is outside what the operator accepts (data rank 0,
   * rank above CLG_MAX_RANK, output rank that would exceed it). */
  CLG_ERROR_INVALID_RANK = 3,
  /** A dimension is negative. */
  CLG_ERROR_INVALID_SHAPE = 4,
  /** axis is outside [-r, r-1]. */
  CLG_ERROR_INVALID_AXIS = 5,
  /** The element type is not supported (string, undefined, unknown). */
  CLG_ERROR_UNSUPPORTED_DTYPE = 6,
  /** indices is not int32 or int64. */
  CLG_ERROR_INVALID_INDICES_DTYPE = 7,
  /** data and output element types differ. */
  CLG_ERROR_DTYPE_MISMATCH = 8,
  /** The output's shape is not the one the operator produces. */
  CLG_ERROR_SHAPE_MISMATCH = 9,
  /** An element count or byte size overflows size_t (or int64). */
  CLG_ERROR_SIZE_OVERFLOW = 10,
  /** A cl_mem is smaller than byte offset + the tensor's byte size. */
  CLG_ERROR_BUFFER_TOO_SMALL = 11,
  /** An index is outside [-s, s-1] for an axis of size s. Raised before any
   * gather kernel is enqueued; the output is untouched. */
  CLG_ERROR_INDEX_OUT_OF_BOUNDS = 12,
  /** No OpenCL platform/device found, or CLGATHER_DEVICE / the device spec
   * matches none. */
  CLG_ERROR_NO_DEVICE = 13,
  /** An OpenCL call failed; the message names the call and the CL error.
   * Also: a tensor the device cannot hold even in parts (clg_run()'s
   * "Tensors larger than one device buffer"; clg_embedding_bag()'s host
   * weight, one bag of which does not fit); the message then names the
   * sizes and the device's limit. */
  CLG_ERROR_OPENCL = 14,
  /** The OpenCL C compiler rejected a kernel (clBuildProgram returned
   * CL_BUILD_PROGRAM_FAILURE or CL_INVALID_BUILD_OPTIONS); the message holds
   * the build log. Other clBuildProgram failures are CLG_ERROR_OPENCL.
   * A build failing with CL_BUILD_PROGRAM_FAILURE is tried twice more (10
   * and 100 ms apart, so such a call takes that much longer) before this
   * status is returned: POCL's kernel cache fails a build that another
   * process makes at the same moment (docs/program_cache.md). */
  CLG_ERROR_BUILD_FAILED = 15,
  /** A host allocation failed. */
  CLG_ERROR_OUT_OF_HOST_MEMORY = 16,
  /** batch_dims is out of range: for Gather outside [-q, q] (q = indices
   * rank) or above the axis; for GatherND outside [0, min(r, q) - 1]. */
  CLG_ERROR_INVALID_BATCH_DIMS = 17,
  /** data and indices shapes break the operator's rules: batch dimensions
   * differ, GatherElements ranks differ or an indices dimension exceeds
   * data's, GatherND's last indices dimension is out of [1, r - b]. */
  CLG_ERROR_INCOMPATIBLE_SHAPES = 18,
  /** A scatter with reduction none (and duplicates CLG_DUPLICATES_ERROR)
   * has two index entries that write the same output element: ONNX says
   * indices must not repeat, since the result would depend on the order.
   * The message names both entries' positions and the target. Found on the
   * host before any kernel is enqueued, or on the device (cl_mem indices
   * and output, see clg_scatter()) by kernels that every write of the
   * output waits on; either way the output is untouched. */
  CLG_ERROR_DUPLICATE_INDEX = 19,
  /** clgather broke one of its own rules: a bug in clgather, not a mistake
   * of the caller's (the message begins "internal:" and says which rule;
   * please report it). Found while planning, before anything is enqueued:
   * the output is untouched. */
  CLG_ERROR_INTERNAL = 20,
  /** EmbeddingBag's bags break their form's rules (clg_embedding_bag()):
   * offsets[0] not 0, offsets decreasing or above the number of indices,
   * include_last_offset's last offset not that number; segment ids
   * decreasing or outside [0, num_segments). The message names the tensor,
   * the position and the value. Raised before any kernel is enqueued; the
   * output is untouched. */
  CLG_ERROR_INVALID_BAGS = 21,
} clg_status;

/** A short, fixed English name for a status ("index out of bounds"). Never
 * NULL; unknown values give "unknown status". Static storage. */
CLG_API const char *clg_status_string(clg_status status);

/**
 * The detail of the calling thread's most recent failed clgather call, e.g.
 * "index out of bounds: indices[3] (position [1, 0] in indices of shape
 * [2, 3]) = 7, but axis 0 of data has size 5: valid range is [-5, 4]".
 * Empty string if
 * the most recent call succeeded. The pointer is valid until the thread's
 * next clgather call; never NULL.
 */
CLG_API const char *clg_last_error(void);

/* ----------------------------------------------------------------- tensors */

/** Largest rank of any tensor (data, indices or output). */
#define CLG_MAX_RANK 16

/** Element types, numbered as ONNX TensorProto.DataType. */
typedef enum clg_dtype {
  CLG_DTYPE_UNDEFINED = 0,
  CLG_DTYPE_FLOAT = 1,
  CLG_DTYPE_UINT8 = 2,
  CLG_DTYPE_INT8 = 3,
  CLG_DTYPE_UINT16 = 4,
  CLG_DTYPE_INT16 = 5,
  CLG_DTYPE_INT32 = 6,
  CLG_DTYPE_INT64 = 7,
  CLG_DTYPE_STRING = 8, /* not supported yet: CLG_ERROR_UNSUPPORTED_DTYPE */
  CLG_DTYPE_BOOL = 9,
  CLG_DTYPE_FLOAT16 = 10,
  CLG_DTYPE_DOUBLE = 11,
  CLG_DTYPE_UINT32 = 12,
  CLG_DTYPE_UINT64 = 13,
  CLG_DTYPE_COMPLEX64 = 14,
  CLG_DTYPE_COMPLEX128 = 15,
  CLG_DTYPE_BFLOAT16 = 16,
} clg_dtype;

/** Size in bytes of one element of `dtype` (1, 2, 4, 8 or 16); 0 for
 * string, undefined and unknown types. */
CLG_API size_t clg_dtype_size(clg_dtype dtype);
/** Lower-case ONNX name of `dtype` ("float", "bfloat16", ...); "unknown" for
 * values outside the enum. Static storage. */
CLG_API const char *clg_dtype_name(clg_dtype dtype);

/** Where a tensor's bytes live. */
typedef enum clg_storage {
  /** Host memory at `host`, C order, densely packed. */
  CLG_STORAGE_HOST = 0,
  /** An OpenCL buffer `buffer` of the call's context, starting `offset`
   * bytes in, C order, densely packed. */
  CLG_STORAGE_BUFFER = 1,
  /** As CLG_STORAGE_HOST and CLG_STORAGE_BUFFER, with strides: the
   * clg_tensor is the `tensor` member of a clg_strided_tensor (made by
   * clg_tensor_strided()), which holds the strides. Never set these on a
   * plain clg_tensor. */
  CLG_STORAGE_HOST_STRIDED = 2,
  CLG_STORAGE_BUFFER_STRIDED = 3,
} clg_storage;

/**
 * A tensor descriptor: it describes memory, it owns nothing. Fill it with
 * clg_tensor_host() / clg_tensor_buffer() or by hand.
 *
 * - shape[0 .. rank-1] in elements, C (row-major) order; rank 0 is a scalar
 *   (one element). Entries past rank are ignored.
 * - host: for CLG_STORAGE_HOST, the first element. May be NULL only when the
 *   tensor has no elements. Read-only for inputs.
 * - buffer/offset: for CLG_STORAGE_BUFFER, the cl_mem (borrowed) and the byte
 *   offset of the first element within it.
 */
typedef struct clg_tensor {
  /** The element type (an ONNX TensorProto.DataType number). */
  clg_dtype dtype;
  /** The number of dimensions, 0 (a scalar) to CLG_MAX_RANK. */
  int32_t rank;
  /** The dimensions in elements, C order; entries past rank are ignored. */
  int64_t shape[CLG_MAX_RANK];
  /** Where the elements are: host memory, a cl_mem, or a strided view. */
  clg_storage storage;
  /** CLG_STORAGE_HOST: the first element (NULL only with no elements). */
  void *host;
  /** CLG_STORAGE_BUFFER: the cl_mem holding the elements (borrowed). */
  cl_mem buffer;
  /** CLG_STORAGE_BUFFER: the byte offset of the first element in buffer. */
  size_t offset;
} clg_tensor;

/** A host-memory descriptor. `shape` may be NULL when rank is 0. Ranks
 * outside [0, CLG_MAX_RANK] are stored as given (clamped copy of the shape)
 * and rejected by the operator with CLG_ERROR_INVALID_RANK. */
CLG_API clg_tensor clg_tensor_host(clg_dtype dtype, int32_t rank,
                                   const int64_t *shape, void *host);
/** A cl_mem descriptor; `offset` in bytes. Same rank rules as
 * clg_tensor_host(). */
CLG_API clg_tensor clg_tensor_buffer(clg_dtype dtype, int32_t rank,
                                     const int64_t *shape, cl_mem buffer,
                                     size_t offset);

/**
 * A tensor with strides: a view such as a column block of a matrix (a
 * leading dimension larger than its width), a transposed matrix, a
 * reversed axis, or a dimension broadcast with stride 0, as numpy,
 * PyTorch, DLPack and StarPU's partitioned handles describe them. Made by
 * clg_tensor_strided(); pass `&view.tensor` wherever a `const clg_tensor *`
 * is taken.
 *
 * - strides[i] (i < rank) is the distance, in ELEMENTS of the tensor's
 *   dtype, between elements one apart along dimension i. Elements, not
 *   bytes: as DLPack, PyTorch and BLAS leading dimensions count them, and
 *   so that every element stays aligned for the device's loads (numpy's
 *   byte strides divide by the item size; one that does not is no view a
 *   kernel can read: copy it). Strides may be negative (the element at
 *   [0, ..., 0] need not be the lowest in memory) and, for inputs, 0.
 * - host / buffer + offset address the element at [0, ..., 0]; every
 *   element the shape reaches must lie inside the host allocation or the
 *   buffer (for a cl_mem: CLG_ERROR_BUFFER_TOO_SMALL otherwise, the
 *   message naming the lowest and highest byte reached).
 * - A cl_mem offset must be a multiple of min(element size, 8) bytes
 *   (CLG_ERROR_INVALID_ARGUMENT otherwise).
 * - An output's strides must give every element its own memory
 *   (CLG_ERROR_INVALID_ARGUMENT otherwise, e.g. a stride of 0 on a
 *   dimension longer than 1): sorted by size, each stride must exceed the
 *   span of the smaller ones. The output is written at its elements only;
 *   the bytes between them are never touched.
 *
 * Taken by clg_run(), clg_run_async(), clg_scatter(), clg_scatter_async(),
 * clg_gather(), clg_gather_elements(), clg_gather_nd(), clg_validate() and
 * the plans (clg_plan_enqueue(), clg_plan_enqueue_scatter(); the plan's
 * templates may be dense or strided: only their shapes count), for every
 * operand (data, indices, updates, output), and by clg_embedding_bag() and
 * clg_embedding_bag_async() (clgather_bag.h) for every operand (weight,
 * indices, bags, per_sample_weights, output), host memory or cl_mem, with
 * the same results byte for byte as dense copies of the same values.
 * clg_run_sharded() and the clgather_mpi library take dense tensors only
 * (CLG_ERROR_INVALID_ARGUMENT). A library older than this header refuses
 * a strided tensor as an unknown storage kind.
 *
 * Cost: strides that are those of a dense tensor in C order (dimensions of
 * size 1 and empty tensors have any stride) are run as the dense tensor,
 * at no cost. Any other operand is copied on the device, by one strided
 * copy kernel, into a dense scratch buffer of its size before the
 * operator's kernels (an output: from one after them), or on the host
 * for host memory; so a strided operand costs one more pass over its
 * bytes and a scratch buffer of its size for the call. Except: a Gather
 * (batch_dims 0, mode RAISE) on strided cl_mem data with more elements
 * than its cl_mem output (an embedding table's column block) reads the
 * data in place, by one kernel that writes the output's elements (strided
 * or dense) directly, after the index values were checked; its data is
 * never copied. On devices other than CPUs the same kernel also writes a
 * strided cl_mem output of such a Gather on dense cl_mem data (no scratch
 * output, no copy after). EmbeddingBag reads a column block of a cl_mem
 * weight (and writes one of a cl_mem output) in place, its kernel taking
 * the row pitch (clgather_bag.h says when). The order of work is
 * unchanged: every index value is checked before anything is written, and
 * on error the output (and every byte around it) is untouched. In the
 * asynchronous checked mode a strided output that is not dense makes the
 * call check the index values before it returns (blocking, as the
 * synchronous call), since its copy kernel cannot be gated; the outcome
 * is then decided at once. (Not EmbeddingBag's output written in place:
 * its kernel is gated as for a dense output.)
 */
typedef struct clg_strided_tensor {
  /** The dense descriptor, storage CLG_STORAGE_HOST_STRIDED or
   * CLG_STORAGE_BUFFER_STRIDED; pass &tensor as an operand. */
  clg_tensor tensor;
  /** strides[0 .. rank-1] in elements (may be negative; 0 on inputs). */
  int64_t strides[CLG_MAX_RANK];
} clg_strided_tensor;

/** The strided view of `dense` (a descriptor from clg_tensor_host() or
 * clg_tensor_buffer(): its dtype, rank, shape, host or buffer and offset)
 * with strides[0 .. rank-1] in elements (entries past rank are set to 0;
 * `strides` may be NULL when rank is 0). Its tensor.storage becomes
 * CLG_STORAGE_HOST_STRIDED or CLG_STORAGE_BUFFER_STRIDED. Checks nothing:
 * the operator does (a NULL `dense` gives a descriptor of undefined element
 * type and unknown storage kind, which every operator refuses). Returned by
 * value; owns nothing. */
CLG_API clg_strided_tensor clg_tensor_strided(const clg_tensor *dense,
                                              const int64_t *strides);

/* ---------------------------------------------------------------- context */

/** Opaque: a device, its OpenCL context, and the cache of built programs and
 * kernels for it.
 *
 * Program cache on disk: a context builds each kernel program on first use.
 * The binaries of programs built from source are also stored on disk and
 * loaded by later contexts, in this or any other process, instead of being
 * compiled again. The directory is the context's own
 * (clg_context_set_cache_dir()) if set, else the environment variable
 * CLGATHER_CACHE_DIR if set (the values "", "0" and "off", in any case,
 * turn the disk cache off; a relative path turns it off too, with the
 * reason in clg_context_cache_info()), else $XDG_CACHE_HOME/clgather, else
 * $HOME/.cache/clgather (each used only if absolute),
 * as the environment was when the context was created; CLG_OPTION_DISK_CACHE
 * turns it off or on per context. It is created (mode 0700) when missing
 * and read when a context first needs a program. One file per (kernel
 * source, build options, device, driver, platform, library version); a
 * file that is damaged or belongs to something
 * else is ignored. The cache never changes a call's result or status: when
 * it cannot work (no directory, a read-only disk, a binary the driver
 * refuses) the program is built from source, silently. Files can be deleted
 * at any time. */
typedef struct clg_context clg_context;

/**
 * Create a context that borrows the caller's `cl_context` and `device`. Both
 * are retained for the life of the clg_context and released (once each) by
 * clg_context_destroy(); the caller keeps its own references. Nothing is
 * compiled yet. Does not block on the device.
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT (context, device or out is NULL),
 * CLG_ERROR_INVALID_ARGUMENT (device not part of context, or a device whose
 * byte order (CL_DEVICE_ENDIAN_LITTLE) is not the host's: tensors move
 * between them as raw bytes), CLG_ERROR_OPENCL,
 * CLG_ERROR_OUT_OF_HOST_MEMORY. *out is set to NULL on failure.
 */
CLG_API clg_status clg_context_create(cl_context context, cl_device_id device,
                                      clg_context **out);

/**
 * Create a context on a device chosen by `spec`, owning the cl_context and a
 * command queue it creates (see clg_context_queue()).
 *
 * `spec` (NULL: use the environment variable CLGATHER_DEVICE; if that is
 * unset or empty: the first GPU of the first platform that has one, else the
 * first device of the first platform):
 *  - "P:D"  platform index P, device index D (as `clgather devices` lists);
 *  - anything else: the first device whose name contains `spec`,
 *    case-insensitively.
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT (out), CLG_ERROR_NO_DEVICE (no platform,
 * no device, or nothing matches spec; the message says which),
 * CLG_ERROR_INVALID_ARGUMENT (the chosen device's byte order is not the
 * host's), CLG_ERROR_OPENCL, CLG_ERROR_OUT_OF_HOST_MEMORY.
 */
CLG_API clg_status clg_context_create_default(const char *spec,
                                              clg_context **out);

/** Release everything the context holds: programs, kernels, its own queue,
 * the device buffers it keeps between calls (up to eight validation
 * verdicts of 16 KiB, and up to 128 MiB of the scatters' index-pass
 * scratch buffers, each reused by a later call once the commands of the
 * call that used it last have ended), and its
 * references to the cl_context and device. NULL is a no-op. The
 * caller must not destroy a context while a call on it is running in another
 * thread, nor before releasing the plans and outcomes made on it. Commands
 * already enqueued keep running to completion. */
CLG_API void clg_context_destroy(clg_context *ctx);

/** The OpenCL context, device, and the context's own in-order command queue
 * (created on first use; NULL if it cannot be created). Borrowed: valid until
 * clg_context_destroy(); do not release them. */
CLG_API cl_context clg_context_cl_context(const clg_context *ctx);
/** The context's device (borrowed; see clg_context_cl_context()). */
CLG_API cl_device_id clg_context_device(const clg_context *ctx);
/** The context's own in-order command queue, created on first use; NULL if
 * it cannot be created (borrowed; see clg_context_cl_context()). */
CLG_API cl_command_queue clg_context_queue(clg_context *ctx);

/** A setting of one context (clg_context_set_option()). */
typedef enum clg_option {
  /** The most threads a scan of index values on the host may use, the
   * calling thread included (an integer >= 0). The only threads clgather
   * starts are these: a call that scans 16 MiB or more of index values on
   * the host (host indices, or `cl_mem` indices read back) splits the scan
   * over min(online CPUs, 8, one per 8 MiB, this value) threads, started
   * and joined within the call. 1: the calling thread only, no thread is
   * ever started; 0 (the default): no bound beyond those. The default is
   * read from the environment variable CLGATHER_HOST_THREADS (a decimal
   * integer) when the context is created. */
  CLG_OPTION_HOST_THREADS = 1,
  /** Whether and when kernel variants are chosen by timing them on the
   * device (clg_context_last_variant()), a clg_tune_mode:
   * CLG_TUNE_OFF (0), CLG_TUNE_SECOND_CALL (1, the default) or
   * CLG_TUNE_FIRST_CALL (2). Off, a call times nothing: it runs the plan's
   * first candidate (CLG_CHOICE_DEFAULT), or a choice already measured for
   * its shape class (on this context before, or read from the disk cache:
   * CLG_CHOICE_MEASURED), which costs no time. CLG_TUNE_SECOND_CALL: the
   * first call of a shape class on the context runs the first candidate
   * untimed, as off does, and the second times the candidates; a process
   * that calls a class once (the CLI) builds and launches one kernel and
   * times nothing. CLG_TUNE_FIRST_CALL: the first call times them (what 1 did
   * up to version 0.1.0). The default is CLG_TUNE_SECOND_CALL,
   * or what the environment variable CLGATHER_TUNE says when the context is
   * created: "off" or "0" CLG_TUNE_OFF, "first" or "2" CLG_TUNE_FIRST_CALL.
   * CLGATHER_VARIANT still forces its variant either way. */
  CLG_OPTION_TUNE = 2,
  /** The time budget of one shape class's timing, in microseconds (an
   * integer >= 0): after the untimed run of each candidate, rounds of one
   * timed run of each candidate (at most 5 rounds) follow until a round
   * ends past the budget. 0: a single timed round, the least a measurement
   * takes. The default is 200000 (0.2 s; no environment variable). The
   * call of a new shape class that times (CLG_OPTION_TUNE) blocks for
   * about the budget plus one round; budgets above the time of five rounds change nothing. */
  CLG_OPTION_TUNE_BUDGET_US = 3,
  /** Whether ctx uses the on-disk program cache (binaries and measured
   * kernel choices; see clg_context_cache_info()): 1 on, 0 off. Off, ctx
   * reads and writes no file and creates no directory. The default is 1,
   * or 0 when the environment variable CLGATHER_CACHE_DIR is "", "0" or
   * "off" (in any case) when the context is created (1 then uses the directory of
   * clg_context_set_cache_dir(), else $XDG_CACHE_HOME/clgather, else
   * $HOME/.cache/clgather). A change takes ctx's lock (it waits for a
   * program build in progress on another thread) and makes the next build
   * decide the cache again; programs already built stay built. */
  CLG_OPTION_DISK_CACHE = 4,
  /** The largest output, in bytes (an integer >= 0), of a gather (Gather,
   * GatherElements, GatherND) run on the calling thread rather than by a
   * kernel: on a CPU device (CL_DEVICE_TYPE_CPU: the device is the host's
   * own processor), with data, indices and output all host memory
   * (CLG_STORAGE_HOST, or strided host views made dense) and no wait list,
   * the call checks every index value on the host as always, then copies
   * the output's slices itself: no buffer is staged and no command is
   * enqueued (an event asked for is a marker on the queue; the
   * asynchronous mode's outcome is decided). The bytes are the same as the
   * kernels' (a gather copies). A kernel launch costs a small call far
   * more than its copy: 10 to 10,000 indices of 256-byte rows took 1.2 to
   * 246 us copied on the calling thread against 29 to 307 us through
   * POCL 3.1's kernels (Zen 3, 2 cores). 0: never (every call runs its
   * kernels; `clgather selftest` and `clgather onnx-test` set it, as they
   * test the device), nor while CLGATHER_VARIANT forces a variant. The
   * default is 262144 (256 KiB), or the environment variable
   * CLGATHER_HOST_RUN_BYTES (a decimal integer) when the context is
   * created. Scatters and EmbeddingBag always run their kernels. */
  CLG_OPTION_HOST_RUN_BYTES = 5,
} clg_option;

/** The values of CLG_OPTION_TUNE: when a shape class's kernel variants are
 * timed on a context. */
typedef enum clg_tune_mode {
  CLG_TUNE_OFF = 0,         /* never: the first candidate, or a choice
                             * measured before */
  CLG_TUNE_SECOND_CALL = 1, /* at the class's second call (the default) */
  CLG_TUNE_FIRST_CALL = 2   /* at its first call */
} clg_tune_mode;

/**
 * Set `option` of ctx to `value`, for the calls that start after this one
 * returns; calls already running keep the value they started with.
 * Thread-safe. Does not block on the device. The options' defaults come
 * from the environment when the context is created (see each option);
 * a change of the environment applies to contexts created after it.
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT (ctx), CLG_ERROR_INVALID_ARGUMENT (an
 * option clgather does not know, or a value outside the option's range:
 * CLG_OPTION_HOST_THREADS 0 to 1024, CLG_OPTION_TUNE 0 to 2,
 * CLG_OPTION_DISK_CACHE 0 or 1, CLG_OPTION_TUNE_BUDGET_US >= 0,
 * CLG_OPTION_HOST_RUN_BYTES >= 0); the context is unchanged then.
 */
CLG_API clg_status clg_context_set_option(clg_context *ctx, clg_option option,
                                          int64_t value);

/**
 * The on-disk program cache's directory for ctx (see
 * clg_context_cache_info()): an absolute path, copied (the caller keeps
 * `dir`), or NULL to go back to the environment's directory as it was
 * when the context was created (CLGATHER_CACHE_DIR, else
 * $XDG_CACHE_HOME/clgather, else $HOME/.cache/clgather). The directory is
 * subject to the same trust rules as the environment's: created (mode
 * 0700) when missing, used only when owned by the effective user and not
 * writable by group or others, never in a setuid or setgid process;
 * otherwise the cache is off for ctx, silently, and
 * clg_context_cache_info() says why. It does not turn a cache that
 * CLG_OPTION_DISK_CACHE (or CLGATHER_CACHE_DIR=off) turned off back on.
 *
 * Applies to the calls that start after this one returns, at any time: it
 * takes ctx's lock (waiting for a program build in progress on another
 * thread) and makes the next program build, tuning record or
 * clg_context_cache_info() decide the cache again, in the new directory;
 * programs already built stay built, and files already written stay where
 * they are. Thread-safe. Does not touch the disk itself.
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT (ctx), CLG_ERROR_INVALID_ARGUMENT (`dir`
 * is empty, not absolute, or 4096 bytes or longer),
 * CLG_ERROR_OUT_OF_HOST_MEMORY; the context is unchanged then.
 */
CLG_API clg_status clg_context_set_cache_dir(clg_context *ctx,
                                             const char *dir);

/** How a kernel variant was chosen (clg_context_last_variant). */
typedef enum clg_choice {
  CLG_CHOICE_NONE = 0,     /* no kernel launched on the context yet */
  CLG_CHOICE_DEFAULT = 1,  /* the plan's first candidate: the only one, or
                            * measuring was not possible (a plan being
                            * baked, the asynchronous checked mode), is
                            * off (CLG_OPTION_TUNE, CLGATHER_TUNE=off) or
                            * waits for the shape class's second call */
  CLG_CHOICE_MEASURED = 2, /* the fastest candidate, timed on this device
                            * (now, earlier on this context, or read from the
                            * program cache directory) */
  CLG_CHOICE_FORCED = 3    /* named by CLGATHER_VARIANT */
} clg_choice;

/**
 * The kernel variant the most recent kernel launch on ctx used, as a static
 * string ("item", "item_pf", "item_nt", "plane", "rows", "small", "block"; NULL
 * before the first launch or for a NULL ctx), and how it was chosen in *how
 * (may be NULL). Does not block; with several threads calling on ctx, it is
 * one of theirs.
 *
 * Where a shape admits several kernel variants (Gather on a CPU device:
 * one work-item per slice, the same with prefetching, one work-item per
 * outer row; GatherND and GatherElements likewise), the second call of
 * each shape class with an output of 1 MiB or more on a context (its first
 * runs the first candidate untimed; the first itself with CLG_OPTION_TUNE
 * CLG_TUNE_FIRST_CALL) runs each candidate once untimed (a driver may finish compiling at a first launch)
 * and then in up to five rounds of one timed run each, on the call's own
 * tensors, each run after the device's caches were evicted by filling a
 * scratch buffer of twice CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (at most 256 MiB
 * and a quarter of the largest allocation; created for the tuning and
 * released after it; without it the runs are timed warm). No round starts
 * after the context's budget (CLG_OPTION_TUNE_BUDGET_US, default 0.2 s);
 * the call blocks until then, and the index values are checked before any
 * of it. It keeps the fastest, in the context and beside the program cache
 * (CLG_OPTION_DISK_CACHE, clg_context_set_cache_dir(), CLGATHER_CACHE_DIR),
 * so later calls and processes reuse it. Every variant writes the same
 * bytes: the choice changes speed only. CLGATHER_VARIANT=NAME forces a
 * variant wherever it can run the call (candidate or not; elsewhere it is
 * ignored); CLG_OPTION_TUNE CLG_TUNE_OFF (default: CLGATHER_TUNE=off)
 * times nothing.
 * Both environment variables are read when the context is created: a
 * change of the environment applies to contexts created after it.
 */
CLG_API const char *clg_context_last_variant(clg_context *ctx, clg_choice *how);

/**
 * Whether ctx keeps compiled programs (and measured kernel choices) in the
 * on-disk program cache, and where, or why not. Returns 1 when the cache is
 * on (*detail: its directory), 0 when it is off (*detail: why, e.g.
 * "the directory /tmp/c is writable by group or others (mode 0777):
 * another user could plant programs in it"), -1 for a NULL ctx (*detail
 * NULL). detail may be NULL; the string is ctx's, valid until
 * clg_context_destroy(ctx) (a later change of the cache's settings gives
 * later calls a new string and leaves this one as it was). Decides now if
 * nothing has decided it since the context was created or its settings
 * last changed (creating the directory, mode 0700, when missing). Takes
 * ctx's lock, so it waits for a program build in progress on another
 * thread.
 *
 * Location: the directory of clg_context_set_cache_dir() if one was set,
 * else CLGATHER_CACHE_DIR if set ("", "0" or "off" in any case turn the
 * cache off: CLG_OPTION_DISK_CACHE's default; a relative path is refused,
 * the cache off), else $XDG_CACHE_HOME/clgather, else
 * $HOME/.cache/clgather (each only if absolute); these environment
 * variables as they were when the context was created. CLG_OPTION_DISK_CACHE 0 turns it off.
 * Program binaries are native code on most drivers, so the cache trusts
 * only what the effective user wrote:
 *  - the cache is off in a setuid or setgid process;
 *  - the directory is used only if it is owned by the effective user and
 *    not writable by group or others, and is judged again before each
 *    file is read (symlinks in its path are followed;
 *    the directory they lead to is what is checked, and it is used through
 *    a descriptor opened once, so a path component replaced later changes
 *    nothing); otherwise the cache is off, silently, and this function says
 *    why;
 *  - a file is loaded only if it is a regular file owned by the effective
 *    user with mode 0600, opened without following a symlink; any other
 *    file is ignored (never read) and the program is built from source;
 *  - files are written to a new temporary file (exclusive create, mode
 *    0600) in that directory and renamed over their name, which replaces
 *    a planted symlink instead of following it.
 * The cache never changes a call's result, only how long a first build
 * takes; deleting the directory is always safe.
 */
CLG_API int clg_context_cache_info(clg_context *ctx, const char **detail);

/* ----------------------------------------------------------------- Gather */

/**
 * Output shape of ONNX Gather: data.shape[:a] + indices.shape +
 * data.shape[a+1:] with a = axis (negative counts from the back).
 *
 * data_shape has data_rank entries (>= 1), indices_shape has indices_rank
 * entries (>= 0; may be NULL when 0). On success writes *out_rank and
 * out_shape[0 .. *out_rank-1]. out_shape must point to CLG_MAX_RANK
 * writable entries (`int64_t out_shape[CLG_MAX_RANK]`), whatever the ranks:
 * the output rank is known only after the call and up to CLG_MAX_RANK
 * entries are written. On error neither *out_rank nor out_shape is written.
 * Pure function: no device, no context.
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT, CLG_ERROR_INVALID_RANK (data_rank < 1,
 * a rank > CLG_MAX_RANK, or q + r - 1 > CLG_MAX_RANK),
 * CLG_ERROR_INVALID_SHAPE (negative dim), CLG_ERROR_INVALID_AXIS.
 */
CLG_API clg_status clg_gather_output_shape(int32_t data_rank,
                                           const int64_t *data_shape,
                                           int32_t indices_rank,
                                           const int64_t *indices_shape,
                                           int64_t axis, int32_t *out_rank,
                                           int64_t *out_shape);

/**
 * ONNX Gather (opsets 1, 11, 13): output = take(data, indices, axis); the
 * same as clg_run() with {CLG_OP_GATHER, axis}.
 *
 * Shapes: data rank r >= 1; indices rank q >= 0, int32 or int64; axis in
 * [-r, r-1]; output must have data's dtype and the shape given by
 * clg_gather_output_shape(). Every index k must satisfy -s <= k <= s-1 with
 * s = data.shape[axis]; a negative k means k + s. Tensors with no elements
 * are valid. Any fixed-size ONNX element type is accepted (the gather moves
 * bytes); string is not supported yet.
 *
 * Storage: each of data, indices and output may independently be host
 * memory or a cl_mem (+ byte offset) of ctx's cl_context. The output must
 * not overlap data or indices (same host range or same cl_mem range:
 * CLG_ERROR_INVALID_ARGUMENT; overlap through sub-buffers is not detected).
 * Offsets: indices->offset must be a multiple of the index size (4 or 8
 * bytes, else CLG_ERROR_INVALID_ARGUMENT); data and output offsets may be
 * any byte (a misaligned offset only narrows the copy width).
 *
 * Order of work: all arguments are validated first, and every index value
 * before any output byte is written. Host indices: a scan on the host,
 * before anything is enqueued. cl_mem indices with a cl_mem output: a small
 * validation kernel (after the wait list) and the gather kernel after it,
 * which reads the validation's verdict first and writes nothing when any
 * index failed; the call then reads the verdict's few bytes (the first
 * offending position and its value, per work-group) after the gather
 * (blocking: the call's one host wait); a small Gather (up to 4096 indices
 * and 64 KiB of output) runs one kernel instead, whose one work-group
 * checks every index and writes the output only when all are valid, its
 * verdict read the same way. cl_mem indices with a host output:
 * read back (blocking, after the wait list) or, for larger arrays (from 32
 * KiB), checked by the validation kernel whose verdict is read back
 * (blocking) before the gather is enqueued. The same status and message
 * every way; on any error the output is unchanged (a gated gather kernel
 * may have run: it wrote nothing) and no event is returned. clg_run_async()
 * leaves the verdict on the device for clg_outcome_wait() instead.
 *
 * queue: a command queue on ctx's context and device, or NULL for
 * clg_context_queue(ctx). In-order and out-of-order queues both work.
 * num_events / wait_list: as in clEnqueueNDRangeKernel; every command the
 * call enqueues waits for them.
 * event: if not NULL, receives a new event (the caller releases it) that
 * completes when the output is fully written. Not set on error.
 *
 * Blocking: if data, indices and output are all cl_mem, the call returns
 * after enqueueing, except for its one blocking read: with mode RAISE the
 * validation kernel's verdict, read after the gather (so the gather has
 * completed when the call returns). If any of them is host memory, the call
 * returns when the output has been written (host output) or the gather has
 * completed. Either way, the first call of a new shape class
 * on a context builds its program (or loads it from the disk cache), and
 * its second call (its first with CLG_OPTION_TUNE CLG_TUNE_FIRST_CALL),
 * with an output of 1 MiB or more, may block a little longer: after the
 * index values are checked it times the kernel variants that can run it,
 * on its own tensors (timed rounds stop after ~0.2 s; see
 * clg_context_last_variant).
 *
 * Errors (the message, clg_last_error(), names the tensor, dimension,
 * value and limit concerned):
 *  - CLG_ERROR_NULL_ARGUMENT: ctx, data, indices or output is NULL; a host
 *    pointer is NULL for a tensor with elements; a buffer is NULL; an entry
 *    of wait_list is NULL.
 *  - CLG_ERROR_INVALID_ARGUMENT: unknown storage kind; num_events and
 *    wait_list disagree (one zero/NULL, the other not); a cl_mem that is not
 *    a buffer or belongs to another cl_context; an output buffer created
 *    CL_MEM_READ_ONLY or an input buffer created CL_MEM_WRITE_ONLY (and
 *    clg_scatter(): a reduction's output buffer created CL_MEM_WRITE_ONLY,
 *    since it reads its output); a queue of
 * another context or device; misaligned indices offset; output overlapping an
 * input.
 *  - CLG_ERROR_INVALID_RANK, CLG_ERROR_INVALID_SHAPE (a negative dimension
 *    in any tensor, output included), CLG_ERROR_INVALID_AXIS.
 *  - CLG_ERROR_UNSUPPORTED_DTYPE (data), CLG_ERROR_INVALID_INDICES_DTYPE,
 *    CLG_ERROR_DTYPE_MISMATCH (output vs data), CLG_ERROR_SHAPE_MISMATCH.
 *  - CLG_ERROR_SIZE_OVERFLOW, CLG_ERROR_BUFFER_TOO_SMALL.
 *  - CLG_ERROR_INDEX_OUT_OF_BOUNDS: the first offending index in C order is
 *    named: flat position, position in indices' shape, value, axis, size
 *    and valid range.
 *  - CLG_ERROR_OPENCL (the OpenCL call and error name; also an event of
 *    wait_list that has failed, before or during the call),
 * CLG_ERROR_BUILD_FAILED (the build log), CLG_ERROR_OUT_OF_HOST_MEMORY. On any
 * error *event is not set and no gather kernel has been enqueued, except for a
 * failure after the kernel was enqueued (waiting for it or reading a host
 * output back), where a host output may be partly written.
 */
CLG_API clg_status clg_gather(clg_context *ctx, const clg_tensor *data,
                              const clg_tensor *indices, int64_t axis,
                              const clg_tensor *output, cl_command_queue queue,
                              cl_uint num_events, const cl_event *wait_list,
                              cl_event *event);

/* ------------------------------------------------- the gather family */

/** The operators. */
typedef enum clg_op {
  /** ONNX Gather (opsets 1, 11, 13), with TensorFlow's batch_dims
   * (tf.gather / GatherV2) and numpy.take's index modes. */
  CLG_OP_GATHER = 0,
  /** ONNX GatherElements (opsets 11, 13): numpy.take_along_axis. */
  CLG_OP_GATHER_ELEMENTS = 1,
  /** ONNX GatherND (opsets 11, 12, 13, with batch_dims): tf.gather_nd. */
  CLG_OP_GATHER_ND = 2,
  /** ONNX ScatterElements (opsets 11, 13, 16, 18): output = data with
   * output[idx with idx[axis] = indices[idx]] = updates[idx] (or reduced
   * into it); numpy.put_along_axis, PyTorch scatter_ / scatter_reduce_.
   * Run with clg_scatter(). */
  CLG_OP_SCATTER_ELEMENTS = 3,
  /** ONNX ScatterND (opsets 11, 13, 16, 18): output = data with the slices
   * data[indices[i]] replaced by (or reduced with) updates[i];
   * tf.tensor_scatter_nd_update / _add / _min / _max. Run with
   * clg_scatter(). */
  CLG_OP_SCATTER_ND = 4,
  /** ONNX Scatter (opsets 9, 10; deprecated by ONNX in favour of
   * ScatterElements): ScatterElements without reduction. */
  CLG_OP_SCATTER = 5,
  /** EmbeddingBag (not an ONNX operator): PyTorch's
   * torch.nn.functional.embedding_bag and TensorFlow's
   * tf.math.sparse_segment_sum / _mean / _sqrt_n, rows of a weight table
   * reduced per bag. It takes bags (offsets or segment ids) and per-sample
   * weights, which clg_params cannot hold: run it with clg_embedding_bag()
   * (clgather/clgather_bag.h); every entry point taking a clg_params
   * refuses it with CLG_ERROR_INVALID_ARGUMENT. */
  CLG_OP_EMBEDDING_BAG = 6,
  /** GatherBlockQuantized (ONNX Runtime's contrib operator
   * com.microsoft.GatherBlockQuantized, version 1; not an ONNX operator):
   * rows of a block-quantized uint8 tensor gathered by int32 or int64
   * indices and dequantized with the scales (and zero points) of their
   * blocks. It takes scales, zero points and quantization attributes,
   * which clg_params cannot hold: run it with clg_gather_block_quantized()
   * (clgather/clgather_quantized.h); every entry point taking a clg_params
   * refuses it with CLG_ERROR_INVALID_ARGUMENT. */
  CLG_OP_GATHER_BLOCK_QUANTIZED = 7,
} clg_op;

/** How a scatter combines an update with the element it lands on (ONNX's
 * `reduction` attribute). Applied one update at a time, in the C order of
 * indices, each step computed and rounded in the element type, as numpy's
 * ufunc.at: the result is the same on every device and every run.
 * The arithmetic is fixed, so that no device or reference may round
 * otherwise:
 *  - every float, double, complex64 and complex128 operation is one
 *    IEEE 754 operation rounded to nearest even, never fused with another
 *    (no fused multiply-add, no contraction);
 *  - float16 and bfloat16: computed in float, rounded to nearest even after
 *    every step (the same bits as one rounding in the type);
 *  - complex add: per component; complex mul: the plain product
 *    (ac - bd) + (ad + bc)i, its four products and two sums each rounded in
 *    the component type (numpy's elementwise a * b; not numpy 1.24's
 *    multiply.at, which fuses on AVX-512 CPUs);
 *  - subnormals are kept: a device that flushes them to zero
 *    (CL_DEVICE_SINGLE_FP_CONFIG or CL_DEVICE_DOUBLE_FP_CONFIG without
 *    CL_FP_DENORM) cannot give these bits, and add, mul, min and max on
 *    float, bfloat16, complex64 (single) or double, complex128 (double)
 *    fail there with CLG_ERROR_UNSUPPORTED_DTYPE before anything is
 *    written. float16 needs no subnormal float (every float16 value and
 *    every sum or product of two is a normal float or zero) and runs on
 *    every device;
 *  - a NaN that add or mul gives (inf - inf, 0 * inf, or a NaN operand)
 *    is stored as the type's one quiet NaN, positive with no payload:
 *    float 0x7FC00000, double 0x7FF8000000000000, float16 0x7E00,
 *    bfloat16 0x7FC0, complex per component (devices differ in the NaN
 *    their arithmetic returns: x86 keeps an operand's payload, NVIDIA GPUs
 *    return 0x7FFFFFFF); min and max keep the NaN operand's own bits.
 */
typedef enum clg_reduction {
  /** Replace (ONNX "none"). */
  CLG_REDUCTION_NONE = 0,
  /** output += update (bool: or; integers wrap). */
  CLG_REDUCTION_ADD = 1,
  /** output *= update (bool: and; integers wrap). */
  CLG_REDUCTION_MUL = 2,
  /** output = min(output, update). Floating-point types, all alike: a NaN
   * element stays as it is; else a NaN update is taken (NaN propagates, as
   * numpy.minimum); else the smaller, with -0 below +0 (IEEE 754-2019
   * minimum): the result depends on the values, never on which of +0 and
   * -0 came first. (numpy 1.24's loops differ by type there; this rule
   * does not.) bool: and; complex types: CLG_ERROR_UNSUPPORTED_DTYPE. */
  CLG_REDUCTION_MIN = 3,
  /** output = max(output, update); NaN as for CLG_REDUCTION_MIN; else the
   * larger, with +0 above -0 (IEEE 754-2019 maximum); bool: or; complex
   * types: CLG_ERROR_UNSUPPORTED_DTYPE. */
  CLG_REDUCTION_MAX = 4,
} clg_reduction;

/** What two index entries of a scatter that hit the same output element
 * mean under reduction none (with a reduction they are simply reduced in
 * order). */
typedef enum clg_duplicates {
  /** CLG_ERROR_DUPLICATE_INDEX before anything is written (ONNX: indices
   * must not repeat). */
  CLG_DUPLICATES_ERROR = 0,
  /** The entry latest in the C order of indices wins, deterministically,
   * as in ONNX's reference loop and numpy's fancy assignment. */
  CLG_DUPLICATES_LAST = 1,
} clg_duplicates;

/** What an index outside [-s, s-1] means (numpy.take's `mode`). */
typedef enum clg_index_mode {
  /** An error, raised before any kernel runs (ONNX; numpy's default).
   * In range, a negative k means k + s. */
  CLG_MODE_RAISE = 0,
  /** Python modulo into [0, s): k mod s. */
  CLG_MODE_WRAP = 1,
  /** Clamp into [0, s-1]; negative indices clip to 0, as numpy does. */
  CLG_MODE_CLIP = 2,
} clg_index_mode;
/* There is deliberately no zero-fill mode: a zero is a wrong answer that
 * looks like a right one. */

/**
 * Which operator and its attributes. Zero-initialised, it is ONNX Gather on
 * axis 0. Fields an operator does not take must be 0:
 *  - CLG_OP_GATHER: axis in [-r, r-1]; batch_dims in [-q, q] (negative counts
 *    from q), and after normalisation batch_dims <= axis; mode any.
 *  - CLG_OP_GATHER_ELEMENTS: axis in [-r, r-1]; batch_dims 0; mode RAISE.
 *  - CLG_OP_GATHER_ND: batch_dims in [0, min(r, q) - 1] (ONNX); axis 0;
 *    mode RAISE.
 * A nonzero field that the operator does not take, an unknown op or mode:
 * CLG_ERROR_INVALID_ARGUMENT.
 */
typedef struct clg_params {
  /** The operator (0: CLG_OP_GATHER). */
  clg_op op;
  /** The axis, negative counting from the back (Gather, GatherElements). */
  int64_t axis;
  /** The leading batch dimensions (Gather, GatherND). */
  int64_t batch_dims;
  /** What an out-of-range index means (Gather only; else RAISE). */
  clg_index_mode mode;
} clg_params;

/**
 * A scatter's own attributes (clg_scatter()); NULL or zero-initialised:
 * reduction none, duplicates an error. Kept apart from clg_params so that
 * clg_params, released before the scatters, keeps its size and layout.
 */
typedef struct clg_scatter_params {
  /** How updates combine with what they land on (ONNX `reduction`). */
  clg_reduction reduction;
  /** Under reduction none: what two entries with one target mean. */
  clg_duplicates duplicates;
} clg_scatter_params;

/** The clg_params fields an operator reads (clg_op_info.params). */
#define CLG_PARAM_AXIS 1u
/** The operator reads clg_params.batch_dims (clg_op_info.params). */
#define CLG_PARAM_BATCH_DIMS 2u
/** The operator reads clg_params.mode (clg_op_info.params). */
#define CLG_PARAM_MODE 4u
/** Not a clg_params field: the operator is a scatter, run by clg_scatter()
 * with a clg_scatter_params (reduction, duplicates). */
#define CLG_PARAM_SCATTER 8u
/** Not a clg_params field: the operator reduces bags (EmbeddingBag), run by
 * clg_embedding_bag() with a clg_bag_params. */
#define CLG_PARAM_BAGS 16u
/** Not a clg_params field: the operator dequantizes blocks
 * (GatherBlockQuantized), run by clg_gather_block_quantized() with a
 * clg_gbq_params, scales and zero points. */
#define CLG_PARAM_GBQ 32u

/** An operator of the family as the library's registry describes it. */
typedef struct clg_op_info {
  /** The operator. */
  clg_op op;
  /** The ONNX op_type ("GatherElements"). */
  const char *name;
  /** The clgather tool's command for it ("gather-elements"). */
  const char *command;
  /** CLG_PARAM_* bits: the clg_params fields it takes; the others must be
   * 0 (mode: CLG_MODE_RAISE). */
  unsigned params;
} clg_op_info;

/**
 * The operators this library runs, in a fixed order: returns the first of
 * *count entries (count may be NULL). The array is static, owned by the
 * library, never changes and is never freed. For tools and runtimes that
 * list or dispatch by ONNX op_type. Never fails; needs no context.
 */
CLG_API const clg_op_info *clg_operators(size_t *count);

/**
 * Output shape of an operator (r = data rank, q = indices rank, b the
 * normalised batch_dims, a the normalised axis):
 *  - Gather: data.shape[:a] + indices.shape[b:] + data.shape[a+1:]; needs
 *    data.shape[:b] == indices.shape[:b].
 *  - GatherElements: indices.shape; needs q == r and, for d != a,
 *    indices.shape[d] <= data.shape[d].
 *  - GatherND: q >= 1 (else CLG_ERROR_INVALID_RANK);
 *    m = indices.shape[q-1] in [1, r - b]; output
 *    indices.shape[:q-1] + data.shape[b+m:]; needs data.shape[:b] ==
 *    indices.shape[:b].
 *  - The scatters: data.shape, with indices checked as clg_scatter() says
 *    (updates' shape is checked by clg_scatter()).
 * Writes *out_rank and out_shape[0 .. *out_rank-1]. out_shape must point to
 * CLG_MAX_RANK writable entries (`int64_t out_shape[CLG_MAX_RANK]`), whatever
 * the ranks: the output rank is known only after the call and up to
 * CLG_MAX_RANK entries are written. On error neither *out_rank nor out_shape
 * is written. Pure function: no device, no context.
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT, CLG_ERROR_INVALID_ARGUMENT,
 * CLG_ERROR_INVALID_RANK, CLG_ERROR_INVALID_SHAPE, CLG_ERROR_INVALID_AXIS,
 * CLG_ERROR_INVALID_BATCH_DIMS, CLG_ERROR_INCOMPATIBLE_SHAPES.
 */
CLG_API clg_status clg_output_shape(const clg_params *params, int32_t data_rank,
                                    const int64_t *data_shape,
                                    int32_t indices_rank,
                                    const int64_t *indices_shape,
                                    int32_t *out_rank, int64_t *out_shape);

/**
 * Run an operator of the gather family. Storage, queue, wait list, event,
 * blocking behaviour and the order of work (every argument and every index
 * value validated before any output byte is written; on error the output
 * is untouched and no event is returned) are those of clg_gather(); so are
 * the errors, plus CLG_ERROR_INVALID_BATCH_DIMS and
 * CLG_ERROR_INCOMPATIBLE_SHAPES.
 * params NULL means ONNX Gather on axis 0. A scatter's params are
 * CLG_ERROR_INVALID_ARGUMENT here (it takes updates: clg_scatter()), and so
 * in clg_run_async() and the plans.
 *
 * Index bounds per operator, in mode RAISE: Gather and GatherElements check
 * every index against [-s, s-1], s = data.shape[axis]; GatherND checks
 * component j of each index tuple against [-d, d-1], d = data.shape[b + j].
 * The message names the first offender: its flat position and position in
 * indices' shape, its value, the data axis and its size, the valid range.
 * In modes WRAP and CLIP no index is out of bounds, except that any index
 * into an axis of size 0 is CLG_ERROR_INDEX_OUT_OF_BOUNDS.
 *
 * Tensors larger than one device buffer: a host tensor (data, indices or
 * output) larger than the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE cannot be
 * one buffer. Every operator (and clg_scatter(), with updates) then runs
 * in parts that fit, with the same result byte for byte: Gather takes whole
 * rows of data before the axis per part, output rows cut into runs of
 * indices; otherwise (an embedding table [rows, width] larger than one
 * buffer; GatherElements, GatherND, the scatters) data (a scatter's output)
 * is cut into parts and each part moves only the slices its entries select
 * there, through a scratch buffer, in the order of the entries. Every index
 * value is checked once before any part runs (on error nothing is
 * written); the call is then blocking (it waits for the wait list first)
 * and the event is a marker after the parts. A slice the operator moves
 * (data's dimensions after the indexed ones) larger than the limit is
 * CLG_ERROR_OPENCL with a message naming the tensor's size and the
 * device's limit. An OpenCL failure in a later part leaves earlier parts'
 * output written. cl_mem tensors are the caller's buffers and are used as
 * they are.
 */
CLG_API clg_status clg_run(clg_context *ctx, const clg_params *params,
                           const clg_tensor *data, const clg_tensor *indices,
                           const clg_tensor *output, cl_command_queue queue,
                           cl_uint num_events, const cl_event *wait_list,
                           cl_event *event);

/**
 * Run a scatter (CLG_OP_SCATTER_ELEMENTS, CLG_OP_SCATTER_ND, CLG_OP_SCATTER):
 * output = data, with `updates` written into it at the places `indices`
 * name, or combined with what is there by scatter->reduction. Semantics:
 * ONNX ScatterElements (opsets 11, 13, 16, 18), ScatterND (11, 13, 16, 18)
 * and Scatter (9, 10).
 *
 * Shapes (r = data rank, q = indices rank): output has data's shape and
 * element type; updates has data's element type.
 *  - ScatterElements / Scatter: q == r, updates.shape == indices.shape,
 *    indices.shape[d] <= data.shape[d] for d != axis; axis in [-r, r-1].
 *    Entry idx writes output[idx with idx[axis] = indices[idx]].
 *  - ScatterND: q >= 1, k = indices.shape[q-1] in [1, r]; updates.shape ==
 *    indices.shape[:q-1] + data.shape[k:]. Tuple i writes the slice
 *    output[indices[i]] (of shape data.shape[k:]) with updates[i].
 * Negative index values count from the back; every index is checked
 * against [-s, s-1] of the axis it indexes before anything is written.
 *
 * params: op and axis (ScatterElements, Scatter); batch_dims 0, mode RAISE.
 * scatter: NULL means reduction none, duplicates an error. Scatter (opset
 * 9) takes reduction none only.
 *
 * Duplicates: with reduction none, two entries with one target are
 * CLG_ERROR_DUPLICATE_INDEX (naming both positions and the target) unless
 * scatter->duplicates is CLG_DUPLICATES_LAST, where the later entry in the
 * C order of indices wins. With a reduction, updates apply one at a time
 * in the C order of indices, each step rounded in the element type (numpy
 * ufunc.at): the result is bit for bit the same on every device and run.
 *
 * In place: output may be data itself (the same host pointer, or the same
 * cl_mem at the same offset); then only the updated elements are written.
 * Any other overlap of output with an input is CLG_ERROR_INVALID_ARGUMENT.
 * cl_mem data, updates and output offsets must be multiples of the
 * element's size (of a component, for the complex types).
 *
 * Which operators read their output: a scatter with a reduction (add, mul,
 * min, max) reads every element it updates, so its cl_mem output must be
 * readable by kernels: one created CL_MEM_WRITE_ONLY is
 * CLG_ERROR_INVALID_ARGUMENT before anything runs, the message naming the
 * tensor and the flag. A scatter with reduction none and every gather only
 * write their output (CL_MEM_WRITE_ONLY is fine there); in place, the
 * output is data, an input, which no operator takes CL_MEM_WRITE_ONLY. No
 * operator's output may be CL_MEM_READ_ONLY; CL_MEM_HOST_* flags are not
 * looked at for outputs (the library reads a host output back from its own
 * staging buffer, never from a caller's cl_mem). Host outputs are staged
 * in buffers with the access their kernels need.
 *
 * Storage, queue, wait list, event and blocking behaviour are those of
 * clg_run(). Where the index values are checked:
 *  - host indices, or a host output: on the host, before anything is
 *    enqueued (cl_mem indices are read back, blocking after the wait list);
 *  - cl_mem indices and a cl_mem output (from 32 KiB of indices; always in
 *    clg_scatter_async()): on the device. The validation kernel checks the
 *    bounds, kernels compute the targets, look for repeats and sort the
 *    updates by target, and every kernel that writes the output is gated on
 *    their verdict: when a check fails it writes nothing. clg_scatter()
 *    then waits for the call's commands, reads the verdict and returns the
 *    error with the same message as the host's check; the output is
 *    untouched (in place included).
 * On any error no event is returned and the output is untouched, except
 * after an OpenCL failure once a first kernel was enqueued (the copy of
 * data into a separate output, the ordering of the updates), as for
 * clg_run().
 *
 * Errors: those of clg_run(), plus CLG_ERROR_NULL_ARGUMENT (params, updates),
 * CLG_ERROR_INVALID_ARGUMENT (not a scatter, an unknown reduction or
 * duplicates rule, a misaligned offset), CLG_ERROR_DTYPE_MISMATCH (updates),
 * CLG_ERROR_INCOMPATIBLE_SHAPES (updates' shape), CLG_ERROR_DUPLICATE_INDEX,
 * CLG_ERROR_UNSUPPORTED_DTYPE (min/max on complex types, a reduction on
 * float64 or complex128 on a device without cl_khr_fp64).
 */
CLG_API clg_status clg_scatter(clg_context *ctx, const clg_params *params,
                               const clg_scatter_params *scatter,
                               const clg_tensor *data,
                               const clg_tensor *indices,
                               const clg_tensor *updates,
                               const clg_tensor *output,
                               cl_command_queue queue, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event);

/**
 * Validate an operator's inputs without an output and without running it:
 * every check clg_run() makes on ctx, params, data, indices and the wait
 * list, including every index value, and nothing about the output. A caller
 * can reject bad indices before allocating the output (whose size the
 * indices' shape decides), as the CLI does.
 *
 * ctx may be NULL when data and indices are both host memory: then no device
 * is needed at all. queue / num_events / wait_list: only used to validate
 * cl_mem indices (read back, or checked by a validation kernel whose verdict
 * is read back: blocking, after the wait list, as in clg_run()); queue NULL
 * means clg_context_queue(ctx). Writes nothing the caller sees.
 *
 * For a scatter, the index values are checked against the bounds only:
 * repeated targets depend on the reduction, which clg_scatter() takes.
 *
 * Errors: those of clg_run() that do not concern the output or the launch,
 * with the same messages; CLG_ERROR_NULL_ARGUMENT also for a NULL ctx with a
 * cl_mem input.
 */
CLG_API clg_status clg_validate(clg_context *ctx, const clg_params *params,
                                const clg_tensor *data,
                                const clg_tensor *indices,
                                cl_command_queue queue, cl_uint num_events,
                                const cl_event *wait_list);

/** ONNX GatherElements (opsets 11, 13) on `axis`: clg_run() with
 * {CLG_OP_GATHER_ELEMENTS, axis}. Same errors. */
CLG_API clg_status clg_gather_elements(
    clg_context *ctx, const clg_tensor *data, const clg_tensor *indices,
    int64_t axis, const clg_tensor *output, cl_command_queue queue,
    cl_uint num_events, const cl_event *wait_list, cl_event *event);

/** ONNX GatherND (opsets 11, 12, 13) with `batch_dims`: clg_run() with
 * {CLG_OP_GATHER_ND, 0, batch_dims}. Same errors. */
CLG_API clg_status clg_gather_nd(clg_context *ctx, const clg_tensor *data,
                                 const clg_tensor *indices, int64_t batch_dims,
                                 const clg_tensor *output,
                                 cl_command_queue queue, cl_uint num_events,
                                 const cl_event *wait_list, cl_event *event);

/* ------------------------------------------- asynchronous checked mode */

/**
 * The outcome of an asynchronously checked call (clg_run_async(), or
 * clg_plan_enqueue() of a plan created with CLG_PLAN_ASYNC_CHECK): the
 * verdict on the index values, kept on the device until asked for. Opaque;
 * owned by the caller, who releases it with clg_outcome_release().
 */
typedef struct clg_outcome clg_outcome;

/**
 * clg_run() without any host wait: for device pipelines that chain commands
 * by events and want out-of-bounds indices reported, never zero-filled.
 *
 * What differs from clg_run() is only when the verdict on cl_mem indices is
 * read in mode RAISE when the output is a cl_mem too: the validation kernel
 * (after the wait list) writes its verdict to a small device buffer (the
 * context's, reused once the call's kernels have ended), and the gather
 * kernel (after the validation kernel) reads that verdict first and writes
 * nothing when it is bad, as in clg_run(); but nothing is read back here:
 * the call does not wait for the device, and with data, indices
 * and output all cl_mem, it returns as soon as the commands are enqueued.
 * Every other check (arguments, shapes, dtypes, buffers, host indices,
 * modes WRAP and CLIP, which read no value, and every check of a call with
 * a host output, which blocks anyway) is made before returning, as clg_run()
 * makes it, and its failure is returned by the call itself. A host tensor
 * makes the call blocking, as for clg_run().
 *
 * The contract:
 *  - On a status other than CLG_SUCCESS from this call: nothing was
 *    enqueued (except in the cases clg_run() documents), the output is
 *    unchanged, *event and *outcome are not set.
 *  - On CLG_SUCCESS: *outcome is a new clg_outcome (never NULL), and *event
 *    (if event is not NULL) a new event that completes when the call's
 *    commands have completed, whatever the verdict. The status of the call
 *    is known only when clg_outcome_wait() returns it.
 *  - When *event has completed and clg_outcome_wait() returned CLG_SUCCESS,
 *    the output holds the result. When clg_outcome_wait() returned
 *    CLG_ERROR_INDEX_OUT_OF_BOUNDS, the output is exactly as it was before
 *    the call: the gather kernel ran and wrote nothing. Commands the caller
 *    chained after *event run either way; a pipeline that must not consume
 *    an unchecked output waits for the outcome first.
 *
 * Errors (returned by the call): those of clg_run(), except that
 * CLG_ERROR_INDEX_OUT_OF_BOUNDS for cl_mem indices with a cl_mem output
 * comes from clg_outcome_wait(); CLG_ERROR_NULL_ARGUMENT also for
 * outcome == NULL.
 */
CLG_API clg_status clg_run_async(clg_context *ctx, const clg_params *params,
                                 const clg_tensor *data,
                                 const clg_tensor *indices,
                                 const clg_tensor *output,
                                 cl_command_queue queue, cl_uint num_events,
                                 const cl_event *wait_list, cl_event *event,
                                 clg_outcome **outcome);

/**
 * Wait (blocking) until the outcome's verdict is known and return the call's
 * status, with the same message in clg_last_error() as clg_run() would have
 * given for the same inputs: CLG_SUCCESS, or CLG_ERROR_INDEX_OUT_OF_BOUNDS
 * naming the first offending index (flat position, position in indices'
 * shape, value, axis and size, valid range). It waits for the validation
 * kernel and reads its few verdict bytes (the offending value is among
 * them), on a queue of the context's that holds nothing else, so it never
 * waits for commands enqueued after the call; the caller's queue is only
 * flushed. It does not wait for the gather kernel: wait for the call's event
 * for that. For clg_scatter_async() the verdict also holds the repeated
 * targets (CLG_ERROR_DUPLICATE_INDEX, with clg_scatter()'s message), and is
 * complete when the call's last command is: it waits for that. The outcome
 * refers to the call's clg_context, which must not be
 * destroyed before the outcome is released.
 * May be called any number of times, from any thread; each call returns the
 * same status and sets the same message.
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT (outcome), CLG_ERROR_INDEX_OUT_OF_BOUNDS,
 * CLG_ERROR_DUPLICATE_INDEX (clg_scatter_async()), CLG_ERROR_OPENCL (waiting for or reading the verdict failed, e.g. because
 * an event of the call's wait list failed: the output's state is then
 * unknown; a later wait tries again).
 */
CLG_API clg_status clg_outcome_wait(clg_outcome *outcome);

/** Release an outcome, whether or not it was waited for; NULL is a no-op.
 * Does not block: the commands of the call run to completion regardless. */
CLG_API void clg_outcome_release(clg_outcome *outcome);

/**
 * clg_scatter() in the asynchronous checked mode (as clg_run_async() for the
 * gathers): with cl_mem indices and a cl_mem output the call waits for
 * nothing. The validation kernel, the targets, the search for repeats and
 * the ordering run on the device after the wait list; the kernels that
 * write the output are gated on their verdict and write nothing when a
 * check fails. The event completes either way; clg_outcome_wait(*outcome)
 * gives CLG_SUCCESS, CLG_ERROR_INDEX_OUT_OF_BOUNDS or
 * CLG_ERROR_DUPLICATE_INDEX with clg_scatter()'s message, and the output
 * holds the result only when the event completed and the outcome is
 * success; otherwise it is byte for byte what it was. Host indices or a
 * host output: checked by the call itself (which then blocks, as
 * clg_scatter()), and *outcome is an outcome already decided (success).
 *
 * outcome: receives a new outcome (release with clg_outcome_release());
 * untouched on error. Everything else as clg_scatter().
 *
 * Errors: those of clg_scatter() that need no index value (and, for host
 * indices or a host output, all of them), plus CLG_ERROR_NULL_ARGUMENT for
 * a NULL outcome.
 */
CLG_API clg_status clg_scatter_async(
    clg_context *ctx, const clg_params *params,
    const clg_scatter_params *scatter, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *updates,
    const clg_tensor *output, cl_command_queue queue, cl_uint num_events,
    const cl_event *wait_list, cl_event *event, clg_outcome **outcome);

/* ------------------------------------------------------------------ plans */

/**
 * A plan: one operator call fixed in everything but its buffers, planned
 * and checked once, with its kernels built up front (clg_plan_bake()),
 * then enqueued any number of times with new tensors. Opaque. The one-shot
 * calls (clg_run(), clg_run_async()) run the same code.
 */
typedef struct clg_plan clg_plan;

/** Flags for clg_plan_create(). */
enum {
  /** Enqueue in asynchronous checked mode, as clg_run_async(): every
   * clg_plan_enqueue() returns a clg_outcome. */
  CLG_PLAN_ASYNC_CHECK = 1u << 0,
};

/**
 * Create a plan for `params` (NULL: Gather on axis 0) on ctx's device. data,
 * indices and output are templates: their dtype, rank, shape and storage
 * kind fix the plan, and their byte offsets are the ones the kernels are
 * built for (other offsets work too; see clg_plan_enqueue()). Their host
 * pointers and buffers are not used and may be NULL. Every check that does
 * not need a buffer or an index value is made here: the operator's rules,
 * shapes, dtypes, sizes, the output's shape, the indices offset's alignment.
 * Nothing is built and nothing is enqueued. The plan keeps a reference to
 * nothing but ctx, which must outlive it.
 *
 * flags: 0 or CLG_PLAN_ASYNC_CHECK.
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT (ctx, data, indices, output, out),
 * CLG_ERROR_INVALID_ARGUMENT (an unknown flag, bad storage kind, params as
 * for clg_run(), a scatter: see clg_plan_create_scatter()), and the shape
 * and type errors of clg_run():
 * CLG_ERROR_INVALID_RANK, CLG_ERROR_INVALID_SHAPE, CLG_ERROR_INVALID_AXIS,
 * CLG_ERROR_INVALID_BATCH_DIMS, CLG_ERROR_INCOMPATIBLE_SHAPES,
 * CLG_ERROR_UNSUPPORTED_DTYPE, CLG_ERROR_INVALID_INDICES_DTYPE,
 * CLG_ERROR_DTYPE_MISMATCH, CLG_ERROR_SHAPE_MISMATCH,
 * CLG_ERROR_SIZE_OVERFLOW; CLG_ERROR_OUT_OF_HOST_MEMORY. *out is NULL on
 * failure.
 */
CLG_API clg_status clg_plan_create(clg_context *ctx, const clg_params *params,
                                   const clg_tensor *data,
                                   const clg_tensor *indices,
                                   const clg_tensor *output, unsigned flags,
                                   clg_plan **out);

/**
 * Build (or load from the disk cache) every program the plan's enqueues
 * need at the template offsets: the gather kernel and, for mode RAISE, the
 * validation kernel; for a scatter, the copy of data and the scatter's
 * kernels, and for cl_mem indices and output the device's index pass
 * where its enqueues take it (see clg_scatter()); for EmbeddingBag, its
 * reduction and checks (see clg_plan_create_embedding_bag()). Blocking (a
 * compile costs tens to hundreds of milliseconds); later calls return at
 * once. Optional: an unbaked plan builds on its first enqueue. Programs
 * live in ctx's cache, shared with every call and plan on ctx.
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT, CLG_ERROR_BUILD_FAILED (with the build
 * log), CLG_ERROR_OPENCL, CLG_ERROR_OUT_OF_HOST_MEMORY.
 */
CLG_API clg_status clg_plan_bake(clg_plan *plan);

/**
 * Enqueue the plan on new tensors: data, indices and output must have the
 * template's dtype, rank, shape and storage kind (else
 * CLG_ERROR_DTYPE_MISMATCH, CLG_ERROR_SHAPE_MISMATCH or
 * CLG_ERROR_INVALID_ARGUMENT); the buffer checks, the index values and
 * everything else then go as in clg_run() (plans without
 * CLG_PLAN_ASYNC_CHECK; outcome must be NULL) or clg_run_async() (plans with
 * it; outcome must not be NULL), with the same errors, blocking behaviour
 * and contract. Offsets whose alignment differs from the template's may
 * need another program, built on first use. A scatter's plan is refused
 * (CLG_ERROR_INVALID_ARGUMENT: see clg_plan_enqueue_scatter()), as is an
 * EmbeddingBag's (see clg_plan_enqueue_embedding_bag()). Safe to call from
 * several threads at once.
 */
CLG_API clg_status clg_plan_enqueue(clg_plan *plan, const clg_tensor *data,
                                    const clg_tensor *indices,
                                    const clg_tensor *output,
                                    cl_command_queue queue, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event,
                                    clg_outcome **outcome);

/**
 * Create a plan for a scatter (ONNX ScatterElements 11-18, ScatterND 11-18,
 * Scatter 9; see clg_scatter()): clg_plan_create() with the scatter's
 * attributes and an updates template. params names the operator (NULL is
 * an error: there is no default scatter); scatter NULL means reduction none
 * and duplicates an error. data, indices, updates and output are templates
 * as for clg_plan_create(): dtype, rank, shape and storage kind fixed, byte
 * offsets the ones the kernels are built for, host pointers and buffers
 * unused and possibly NULL. In place (output = data's own storage) is
 * decided at each enqueue, from the tensors given then; clg_plan_bake()
 * builds the copy of data into the output too, unless the data and output
 * templates already name the same storage. Every check that needs no
 * buffer and no index value is made here, including the scatter's
 * attributes and updates' type and shape. Nothing is built and nothing is
 * enqueued. The plan keeps a reference to nothing but ctx, which must
 * outlive it. Enqueue it with clg_plan_enqueue_scatter() (clg_plan_enqueue()
 * refuses it); clg_plan_bake() and clg_plan_destroy() take it as any plan.
 *
 * flags: 0 (each enqueue as clg_scatter()) or CLG_PLAN_ASYNC_CHECK (as
 * clg_scatter_async()).
 *
 * Errors: those of clg_plan_create(), plus CLG_ERROR_NULL_ARGUMENT (params,
 * updates), CLG_ERROR_INVALID_ARGUMENT (not a scatter, an unknown reduction
 * or duplicates rule), CLG_ERROR_DTYPE_MISMATCH and
 * CLG_ERROR_INCOMPATIBLE_SHAPES (updates), CLG_ERROR_UNSUPPORTED_DTYPE (min
 * or max on complex types). *out is NULL on failure.
 */
CLG_API clg_status clg_plan_create_scatter(
    clg_context *ctx, const clg_params *params,
    const clg_scatter_params *scatter, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *updates,
    const clg_tensor *output, unsigned flags, clg_plan **out);

/**
 * Enqueue a scatter plan (clg_plan_create_scatter()) on new tensors: data,
 * indices, updates and output must have the templates' dtype, rank, shape
 * and storage kind (else CLG_ERROR_DTYPE_MISMATCH, CLG_ERROR_SHAPE_MISMATCH
 * or CLG_ERROR_INVALID_ARGUMENT); everything else goes as in clg_scatter()
 * (plans without CLG_PLAN_ASYNC_CHECK; outcome must be NULL) or
 * clg_scatter_async() (plans with it; outcome must not be NULL), with the
 * same errors, blocking behaviour, in-place rule and contract: the index
 * values are checked at every enqueue, before anything is written. A gather's
 * or an EmbeddingBag's plan is refused (CLG_ERROR_INVALID_ARGUMENT). Safe to
 * call from several threads at once.
 */
CLG_API clg_status clg_plan_enqueue_scatter(
    clg_plan *plan, const clg_tensor *data, const clg_tensor *indices,
    const clg_tensor *updates, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event, clg_outcome **outcome);

/** Destroy a plan (of any kind, EmbeddingBag's included); NULL is a no-op. Commands already enqueued and outcomes
 * already returned are unaffected. Programs stay in the context's cache. */
CLG_API void clg_plan_destroy(clg_plan *plan);

/**
 * Can this library run `op` with data of element type `data_dtype`, indices
 * of `indices_dtype`, data of rank `data_rank` and indices of rank
 * `indices_rank`, in index mode `mode`? For a runtime deciding, before it
 * dispatches, whether to fall back to another implementation. Pure: no
 * device is consulted; shapes are not considered (see clg_output_shape()
 * for them), nor a scatter's reduction: clg_scatter() refuses, with
 * CLG_ERROR_UNSUPPORTED_DTYPE, min/max on complex types, a reduction on
 * float64 or complex128 on a device without cl_khr_fp64, and one computed
 * in float (float, bfloat16, complex64) or double (float64, complex128) on
 * a device that flushes those subnormals to zero. Supported: the eight
 * operators (clg_op); every fixed-size ONNX element type (not string or
 * undefined); int32 or int64 indices; ranks in [1, CLG_MAX_RANK] for data and
 * [0, CLG_MAX_RANK] for indices, with, per operator: Gather any mode and
 * data_rank - 1 + indices_rank <= CLG_MAX_RANK (the output rank with batch_dims
 * 0; a Gather with batch_dims b > 0 has output rank data_rank - 1 +
 * indices_rank - b, which clg_output_shape() checks); GatherElements,
 * ScatterElements and Scatter mode RAISE and indices_rank == data_rank;
 * GatherND and ScatterND mode RAISE and indices_rank >= 1; EmbeddingBag
 * mode RAISE, weight (data) float32, float16, bfloat16 or float64 of rank
 * 2 and indices_rank 1 or 2 (clg_embedding_bag()); GatherBlockQuantized
 * mode RAISE, data uint8 (its stored bytes, whatever clg_gbq_kind) and
 * data_rank - 1 + indices_rank <= CLG_MAX_RANK
 * (clg_gather_block_quantized(), which alone says whether its scales'
 * dtype runs on a device). Returns 1 if supported, 0 if not; never
 * fails.
 */
CLG_API int clg_supported(clg_op op, clg_dtype data_dtype,
                          clg_dtype indices_dtype, int32_t data_rank,
                          int32_t indices_rank, clg_index_mode mode);

/* ------------------------------------------------------------ multi-device */

/**
 * Run one operator call sharded over several devices of one cl_context:
 * the output is split along its first dimension into one contiguous part
 * per device (in proportion to the devices' compute units), each device
 * gathering its part on its own queue; the result is byte for byte that of
 * clg_run() on one device.
 *
 * ctxs[0 .. num_ctxs-1]: clg_contexts on distinct devices of one cl_context
 * (ctxs[0] checks the indices). queues: NULL (each context's own queue) or
 * num_ctxs queues, queues[i] of ctxs[i]'s device. data, indices and output:
 * as for clg_run(); cl_mem tensors belong to the shared cl_context. Every
 * argument and every index value are checked first, once, as clg_run()
 * does on ctxs[0] (the same statuses and messages); only then is anything
 * enqueued. Each shard waits for the wait list; *event (if not NULL) is a
 * marker on the first queue (queues[0], or ctxs[0]'s own) that completes
 * when every shard has. A call whose output cannot be split (rank 0, no
 * bytes, first dimension < 2, a Gather on axis 0 with scalar indices, or a
 * GatherND with indices of rank 1) runs on ctxs[0] alone. Blocking as
 * clg_run() (host tensors make it blocking, and then the shards run one
 * after another).
 *
 * A cl_mem output is written by each shard through a sub-buffer of its own
 * (clCreateSubBuffer; OpenCL defines concurrent writes by several devices
 * only to distinct sub-buffers), so the split points are rounded to keep
 * each shard's first byte (output offset + first row * row bytes) a multiple
 * of the largest CL_DEVICE_MEM_BASE_ADDR_ALIGN of the devices, and shards
 * left empty are dropped. The call runs on ctxs[0] alone when that leaves
 * one shard, when the output's offset is not such a multiple, when the
 * output is itself a sub-buffer, or when an input lies in the output's
 * cl_mem or in a sub-buffer of it. Inputs are read whole by every shard.
 *
 * Errors: those of clg_run(); CLG_ERROR_NULL_ARGUMENT (ctxs, an entry of
 * it), CLG_ERROR_INVALID_ARGUMENT (num_ctxs 0, contexts of different
 * cl_contexts or the same device twice, a queue of another device).
 * On an error after some shards were enqueued (an OpenCL failure), the
 * output may be partly written; no event is returned.
 */
CLG_API clg_status clg_run_sharded(
    clg_context *const *ctxs, cl_uint num_ctxs, const clg_params *params,
    const clg_tensor *data, const clg_tensor *indices, const clg_tensor *output,
    const cl_command_queue *queues, cl_uint num_events,
    const cl_event *wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

/* EmbeddingBag and sparse segment reductions. */
#include <clgather/clgather_bag.h>
/* GatherBlockQuantized (ONNX Runtime's com.microsoft contrib operator). */
#include <clgather/clgather_quantized.h>

#endif /* CLGATHER_CLGATHER_H */
