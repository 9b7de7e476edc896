/**
 * @file
 * clgather — GatherBlockQuantized: rows of a block-quantized tensor
 * gathered by index and dequantized, in one call, every index checked
 * before any output byte is written. Included by clgather/clgather.h
 * (include that one).
 *
 * Semantics: ONNX Runtime's contrib operator com.microsoft
 * GatherBlockQuantized (version 1), which is ONNX Gather-13 on data
 * followed by ONNX DequantizeLinear-21 with block_size (blocked
 * quantization along quantize_axis), except that an index out of range
 * is an error here (CLG_ERROR_INDEX_OUT_OF_BOUNDS, nothing written) where
 * ONNX Runtime's CPU kernel writes zeros into that index's output slice.
 * The specification is the plain-C reference
 * tools/reference/ref_gather_block_quantized.c.
 */
#ifndef CLGATHER_CLGATHER_QUANTIZED_H
#define CLGATHER_CLGATHER_QUANTIZED_H

#ifndef CLGATHER_CLGATHER_H
#error "include <clgather/clgather.h>, which includes this header"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * How data's values are stored (clg_gbq_params.kind). Every kind is a
 * clg_tensor of dtype CLG_DTYPE_UINT8; its shape differs, so read this:
 *
 *  CLG_GBQ_UINT8, bits 8: one unsigned value a byte; data's shape is the
 *    values' shape (bytes = elements).
 *
 *  CLG_GBQ_UINT8, bits 4 (ONNX Runtime's own layout for uint8 data):
 *    data's shape is the *bytes'* shape [d0, ..., d(r-2), c]; the values'
 *    shape is [d0, ..., d(r-2), 2c]: each byte holds two unsigned values
 *    of its row, the even one in the low nibble:
 *
 *        byte j of a row:  | v[2j+1] (bits 7..4) | v[2j] (bits 3..0) |
 *
 *  CLG_GBQ_UINT4, CLG_GBQ_INT4 (ONNX's uint4 and int4 tensor types):
 *    data's shape is the *values'* shape [d0, ..., d(r-1)], numel values
 *    packed two a byte over the whole tensor in C order (not per row: a
 *    row of odd length shares its last byte with the next row), value e
 *    in byte e / 2, low nibble for even e; the tensor holds
 *    ceil(numel / 2) bytes (its cl_mem needs offset + ceil(numel / 2)
 *    bytes, not numel), the last byte's high nibble unused when numel is
 *    odd. int4 values are sign-extended (0x8..0xF are -8..-1).
 *
 *        byte e/2:  | v[e+1] (bits 7..4) | v[e] (bits 3..0) |  e even
 */
typedef enum clg_gbq_kind {
  CLG_GBQ_UINT8 = 0,
  CLG_GBQ_UINT4 = 1,
  CLG_GBQ_INT4 = 2,
} clg_gbq_kind;

/**
 * GatherBlockQuantized's attributes (ONNX Runtime's gather_axis,
 * quantize_axis, block_size, bits; the kind is the type of ONNX Runtime's
 * data input). Zero-initialised fields are not all valid: block_size must
 * be set (16 or more), and bits (8 or 4).
 */
typedef struct clg_gbq_params {
  /** The axis indices index, in [-r, r-1] (r: the values' rank); negative
   * counts from the back. ONNX Runtime's default: 0. */
  int64_t gather_axis;
  /** The axis the blocks run along, in [-r, r-1]. ONNX Runtime's
   * default: 1. */
  int64_t quantize_axis;
  /** Elements a block: a power of two, at least 16. ONNX Runtime's
   * default: 128. */
  int64_t block_size;
  /** Bits a value: 8 or 4 for CLG_GBQ_UINT8, 4 for the 4-bit kinds. */
  int32_t bits;
  /** A clg_gbq_kind. */
  uint32_t kind;
  /** Must be 0 (room to grow). */
  uint32_t reserved[4];
} clg_gbq_params;

/**
 * GatherBlockQuantized: output = DequantizeLinear(Gather(data, indices,
 * gather_axis), scales, zero_points, quantize_axis, block_size), with the
 * scales and zero points of each gathered element's own block in data.
 *
 * Shapes (r: the values' rank, 1 to CLG_MAX_RANK; V: the values' shape,
 * which clg_gbq_kind says how to read from data's; s = V[ga], Q = V[qa],
 * ga and qa the axes with negatives counted from the back):
 *  - data: dtype uint8, as clg_gbq_kind says. CLG_GBQ_UINT8 also needs
 *    gather_axis 0 and quantize_axis the last axis (ONNX Runtime's rule
 *    for uint8 data; rank 1: both 0). The 4-bit kinds take any pair of
 *    axes, the same axis included;
 *  - indices: int32 or int64, any shape (rank q, r - 1 + q at most
 *    CLG_MAX_RANK); each value in [-s, s-1], negative counting from the
 *    back (ONNX Gather's rule);
 *  - scales: float32 or float16, V with ceil(Q / block_size) on qa (the
 *    last block may be partial: it covers the last Q mod block_size
 *    elements);
 *  - zero_points: NULL, or dtype uint8 holding scales' element count of
 *    zero points in data's kind: bits 8: one a byte, scales' shape;
 *    CLG_GBQ_UINT8 bits 4: ONNX Runtime's, packed two a byte per row of
 *    the last axis, shape scales' with ceil(nb / 2) bytes on the last axis
 *    (nb = ceil(Q / block_size)), block b of a row in byte b / 2, low
 *    nibble for even b; the 4-bit kinds: scales' shape, packed over the
 *    whole tensor as data is (ceil(numel / 2) bytes). Without them the
 *    zero point is 2^(bits-1) (128 or 8) for CLG_GBQ_UINT8, 0 for the
 *    4-bit kinds (ONNX Runtime);
 *  - output: V[:ga] + indices' shape + V[ga+1:], in scales' dtype.
 *
 * Arithmetic, the same bits on every device: element o of the output
 * takes the value q at its position in data and the scale and zero point
 * p of its block; output = (float)(q - p) * scale, one IEEE 754 float32
 * product rounded to nearest even, never contracted (q - p is exact; a
 * float16 scale is widened exactly). With float16 scales that product is
 * rounded once to float16, to nearest even (overflow to infinity). A NaN
 * or infinite scale is data, not an error: it gives what this arithmetic
 * gives (a NaN's bits may differ between devices). float32 scales need a
 * device that keeps subnormal floats (CL_FP_DENORM in
 * CL_DEVICE_SINGLE_FP_CONFIG): a product below 2^-126 is one; elsewhere
 * they are CLG_ERROR_UNSUPPORTED_DTYPE, the output untouched (float16
 * scales run everywhere).
 *
 * Checks: every one that reads no value before anything is enqueued; on
 * any error the output is untouched and no event is returned. Index
 * values are checked as a Gather's are (clg_run()): host indices in place
 * on the host; cl_mem indices with a host output (or after a wait list)
 * read back or checked by the validation kernel, its verdict read
 * (blocking, after the wait list), before the kernel is enqueued; cl_mem
 * indices and a cl_mem output, no wait list: the validation kernel and
 * the kernel gated on its verdict enqueued together (it writes nothing
 * when a value is out of range), the verdict read after them (the call's
 * one wait). The first value out of range in C order is reported, the
 * message naming its position, its value and the valid range. With host
 * memory in any operand the call blocks until the output is written; with
 * every operand a cl_mem, it returns once the kernel is enqueued, except
 * for the verdict's blocking read.
 *
 * Storage: each operand host memory (CLG_STORAGE_HOST) or a cl_mem of
 * ctx's context (CLG_STORAGE_BUFFER), at a byte offset that is a multiple
 * of its element's size (any offset for the uint8 operands); strided
 * views are refused (CLG_ERROR_INVALID_ARGUMENT). The output must not
 * overlap an input. queue NULL: clg_context_queue(ctx); wait_list as
 * clg_run(); event (may be NULL): a new event that completes with the
 * output written (an empty output: a marker).
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT (ctx, params, data, indices, scales,
 * output), CLG_ERROR_INVALID_ARGUMENT (an unknown kind, bits not 8 or 4
 * for CLG_GBQ_UINT8 or not 4 for the 4-bit kinds, block_size not a power
 * of two at least 16, reserved not 0, a storage kind other than host or
 * buffer, a cl_mem offset not a multiple of its element's size, the
 * output overlapping an input, a bad queue or wait list),
 * CLG_ERROR_INVALID_RANK (data's rank 0 or above CLG_MAX_RANK, output's
 * rank above it), CLG_ERROR_INVALID_SHAPE (a negative dimension),
 * CLG_ERROR_INVALID_AXIS (an axis outside [-r, r-1]; CLG_GBQ_UINT8 with
 * gather_axis not 0 or quantize_axis not the last), CLG_ERROR_UNSUPPORTED_DTYPE
 * (data not uint8, scales not float32 or float16, float32 scales on a
 * device that flushes subnormals),
 * CLG_ERROR_INVALID_INDICES_DTYPE, CLG_ERROR_DTYPE_MISMATCH (zero_points
 * not uint8, output not scales' dtype), CLG_ERROR_INCOMPATIBLE_SHAPES
 * (scales' or zero_points' shape not the one above),
 * CLG_ERROR_SHAPE_MISMATCH (output), CLG_ERROR_SIZE_OVERFLOW,
 * CLG_ERROR_BUFFER_TOO_SMALL, CLG_ERROR_INDEX_OUT_OF_BOUNDS,
 * CLG_ERROR_OPENCL, CLG_ERROR_BUILD_FAILED, CLG_ERROR_OUT_OF_HOST_MEMORY.
 */
CLG_API clg_status clg_gather_block_quantized(
    clg_context *ctx, const clg_gbq_params *params, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *scales,
    const clg_tensor *zero_points, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event);

/**
 * clg_gather_block_quantized() in the asynchronous checked mode, with
 * clg_run_async()'s contract: on CLG_SUCCESS, *outcome is a new
 * clg_outcome whose clg_outcome_wait() gives the call's status (with
 * clg_gather_block_quantized()'s message). With cl_mem indices (with
 * elements) and a cl_mem output with elements, the index values are
 * checked on the device and nothing is read back: the validation kernel
 * runs after the wait list, the gather kernel after it, gated on its
 * verdict (it writes nothing when a value is out of range: the output
 * stays as it was), and the call returns once both are enqueued (after
 * staging host inputs, which makes it block until the output is
 * written); CLG_ERROR_INDEX_OUT_OF_BOUNDS then comes from
 * clg_outcome_wait(), naming the first offender's position, value and
 * the valid range. Otherwise every check is made before the call returns,
 * as clg_gather_block_quantized() makes it, and the outcome is
 * CLG_SUCCESS. event (may be NULL): as clg_gather_block_quantized()'s;
 * it completes with the gated kernel, whether or not it wrote. Errors:
 * those of clg_gather_block_quantized(); CLG_ERROR_NULL_ARGUMENT also for
 * outcome == NULL. On any error no outcome and no event is returned.
 */
CLG_API clg_status clg_gather_block_quantized_async(
    clg_context *ctx, const clg_gbq_params *params, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *scales,
    const clg_tensor *zero_points, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event, clg_outcome **outcome);

/**
 * Create a plan for GatherBlockQuantized (see clg_plan_create() for
 * plans): one call of clg_gather_block_quantized() fixed in everything
 * but its memory, checked once, then enqueued any number of times with
 * clg_plan_enqueue_gather_block_quantized(). params as for
 * clg_gather_block_quantized() (copied). data, indices, scales,
 * zero_points (NULL or not as the enqueues will pass it) and output are
 * templates: their dtype, rank, shape and storage kind (host memory or
 * cl_mem) fix the plan; their host pointers and buffers are not used and
 * may be NULL, and their cl_mem offsets are only checked for alignment.
 * Every check of clg_gather_block_quantized() that needs no buffer and no
 * value is made here: params, element types, ranks and shapes of every
 * operand, the output's shape, sizes, cl_mem offsets, and, for an output
 * with elements, what the device must offer (float32 scales:
 * CLG_ERROR_UNSUPPORTED_DTYPE here rather than at the first enqueue).
 * Nothing is built, allocated on the device or enqueued; the call does not
 * block. The plan keeps a reference to nothing but ctx, which must
 * outlive it.
 *
 * flags: 0 (each enqueue as clg_gather_block_quantized()) or
 * CLG_PLAN_ASYNC_CHECK (as clg_gather_block_quantized_async()).
 *
 * clg_plan_bake() builds (or loads from the disk cache) every program the
 * enqueues need: the kernel (gated on the verdict where an enqueue may
 * check cl_mem indices on the device with a cl_mem output, and ungated
 * where an enqueue may check first) and, with cl_mem indices, the
 * validation kernel; enqueues at any offsets then build nothing.
 * clg_plan_destroy() takes it as any plan; the other enqueue functions
 * refuse it (CLG_ERROR_INVALID_ARGUMENT).
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT (ctx, params, data, indices, scales,
 * output, out), CLG_ERROR_INVALID_ARGUMENT (an unknown plan flag, a
 * storage kind that is neither CLG_STORAGE_HOST nor CLG_STORAGE_BUFFER, a
 * cl_mem offset not a multiple of its element's size, and params as for
 * clg_gather_block_quantized()), CLG_ERROR_INVALID_RANK,
 * CLG_ERROR_INVALID_SHAPE, CLG_ERROR_INVALID_AXIS,
 * CLG_ERROR_UNSUPPORTED_DTYPE, CLG_ERROR_INVALID_INDICES_DTYPE,
 * CLG_ERROR_DTYPE_MISMATCH, CLG_ERROR_INCOMPATIBLE_SHAPES,
 * CLG_ERROR_SHAPE_MISMATCH, CLG_ERROR_SIZE_OVERFLOW, CLG_ERROR_OPENCL (the
 * device's facts could not be read), CLG_ERROR_OUT_OF_HOST_MEMORY. *out is
 * NULL on failure.
 */
CLG_API clg_status clg_plan_create_gather_block_quantized(
    clg_context *ctx, const clg_gbq_params *params, const clg_tensor *data,
    const clg_tensor *indices, const clg_tensor *scales,
    const clg_tensor *zero_points, const clg_tensor *output, unsigned flags,
    clg_plan **out);

/**
 * Enqueue a GatherBlockQuantized plan
 * (clg_plan_create_gather_block_quantized()) on new tensors: data,
 * indices, scales, zero_points and output must have the templates' dtype,
 * rank, shape and storage kind (else CLG_ERROR_DTYPE_MISMATCH,
 * CLG_ERROR_SHAPE_MISMATCH or CLG_ERROR_INVALID_ARGUMENT, the message
 * naming the tensor, what it is and what the plan was made for),
 * zero_points NULL exactly where its template was (else
 * CLG_ERROR_NULL_ARGUMENT for a missing one, CLG_ERROR_INVALID_ARGUMENT
 * for an extra one). Everything else then goes as in
 * clg_gather_block_quantized() (plans without CLG_PLAN_ASYNC_CHECK;
 * outcome must be NULL, else CLG_ERROR_INVALID_ARGUMENT) or
 * clg_gather_block_quantized_async() (plans with it; outcome must not be
 * NULL, else CLG_ERROR_NULL_ARGUMENT), with the same checks, errors,
 * messages, blocking behaviour and contract: the buffers and every index
 * value are checked at every enqueue before the kernel writes the output
 * (or, asynchronously with cl_mem indices and output, on the device with
 * the kernel gated on the verdict); on any error the output is untouched
 * and no event or outcome is returned. Other cl_mem offsets than the
 * templates' are taken as they come. A plan of another kind is refused
 * (CLG_ERROR_INVALID_ARGUMENT, naming its enqueue function), as is a NULL
 * plan (CLG_ERROR_NULL_ARGUMENT). Safe to call from several threads at
 * once.
 */
CLG_API clg_status clg_plan_enqueue_gather_block_quantized(
    clg_plan *plan, const clg_tensor *data, const clg_tensor *indices,
    const clg_tensor *scales, const clg_tensor *zero_points,
    const clg_tensor *output, cl_command_queue queue, cl_uint num_events,
    const cl_event *wait_list, cl_event *event, clg_outcome **outcome);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_CLGATHER_QUANTIZED_H */
