/**
 * @file
 * clgather — EmbeddingBag and sparse segment reductions: rows of a weight
 * table gathered by index and reduced per bag, in one call, every index
 * and every bag boundary checked before any kernel runs. Included by
 * clgather/clgather.h (include that one).
 *
 * Semantics: PyTorch's torch.nn.functional.embedding_bag / nn.EmbeddingBag
 * (bags by offsets or fixed-size rows; modes sum, mean, max;
 * per_sample_weights; padding_idx) and TensorFlow's
 * tf.math.sparse_segment_sum / _mean / _sqrt_n (bags by segment ids). ONNX
 * has no such operator.
 */
#ifndef CLGATHER_CLGATHER_BAG_H
#define CLGATHER_CLGATHER_BAG_H

#ifndef CLGATHER_CLGATHER_H
#error "include <clgather/clgather.h>, which includes this header"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** How a bag's rows are reduced into its output row. */
typedef enum clg_bag_mode {
  /** The sum of the rows (PyTorch mode "sum", tf.math.sparse_segment_sum). */
  CLG_BAG_SUM = 0,
  /** The sum divided by the bag's count (PyTorch "mean",
   * sparse_segment_mean). */
  CLG_BAG_MEAN = 1,
  /** The element-wise maximum (PyTorch "max"). */
  CLG_BAG_MAX = 2,
  /** The sum divided by the square root of the count
   * (tf.math.sparse_segment_sqrt_n). */
  CLG_BAG_SQRT_N = 3,
} clg_bag_mode;

/** How the entries of `indices` are grouped into bags. */
typedef enum clg_bag_form {
  /** PyTorch's offsets: indices 1-D [N]; `bags` (the offsets) 1-D [B],
   * bag b is indices[offsets[b] : offsets[b+1]], the last bag ending at N;
   * or [B + 1] with CLG_BAG_INCLUDE_LAST_OFFSET, offsets[B] == N. Needs
   * offsets[0] == 0 whenever there is an offset (PyTorch), offsets
   * non-decreasing, none above N. */
  CLG_BAGS_OFFSETS = 0,
  /** Fixed-size bags: indices 2-D [B, L], bag b is row b; `bags` NULL. */
  CLG_BAGS_FIXED = 1,
  /** TensorFlow's segment ids: indices 1-D [N]; `bags` (the segment ids)
   * 1-D [N], non-decreasing, each in [0, B) where B = output.shape[0] (the
   * caller's num_segments; TensorFlow's default is segment_ids[N-1] + 1).
   * Entry i belongs to bag segment_ids[i]; a bag no id names is empty. */
  CLG_BAGS_SEGMENT_IDS = 2,
} clg_bag_form;

/** clg_bag_params.flags: offsets hold B + 1 entries, the last equal to N
 * (PyTorch's include_last_offset; CLG_BAGS_OFFSETS only). */
#define CLG_BAG_INCLUDE_LAST_OFFSET 1u
/** clg_bag_params.flags: padding_idx is set: entries equal to it are
 * skipped and not counted (PyTorch's padding_idx). */
#define CLG_BAG_PADDING_IDX 2u

/**
 * clg_bag_params.weight_format: how the weight table's rows are stored.
 * The quantized formats are PyTorch's prepacked rows
 * (torch.ops.quantized.embedding_bag_byte_prepack and
 * embedding_bag_4bit_prepack / _2bit_prepack, the tables FBGEMM's
 * embedding_bag_byte_rowwise_offsets and embedding_bag_4bit_rowwise_offsets
 * read): the weight is a uint8 tensor [num_embeddings, row_bytes], one row
 * per embedding, and dim (the output's columns) follows from row_bytes:
 *
 *   8-bit:  | q[0] q[1] ... q[dim-1] | scale (float32) | bias (float32) |
 *             dim bytes, one code each   4 bytes           4 bytes
 *           row_bytes = dim + 8
 *   4-bit:  | q[1]q[0] q[3]q[2] ... | scale (float16) | bias (float16) |
 *             dim / 2 bytes: code 2j in the low nibble of byte j,
 *             code 2j + 1 in the high one
 *           row_bytes = dim / 2 + 4
 *   2-bit:  | four codes a byte, code 4j + t in bits 2t, 2t + 1 of byte j |
 *           scale (float16) | bias (float16);  row_bytes = dim / 4 + 4
 *
 * Scales and biases little-endian, at any byte offset (no alignment). The
 * value of row k's element j is scale * q + bias; codes are unsigned
 * (0..255, 0..15, 0..3). Output and per_sample_weights are float32.
 */
typedef enum clg_bag_weight_format {
  /** Dense rows of weight's element type: weight [num_embeddings, dim]. */
  CLG_BAG_WEIGHT_DENSE = 0,
  /** 8-bit codes, float32 scale and bias per row (embedding_bag_byte). */
  CLG_BAG_WEIGHT_8BIT_ROWWISE = 1,
  /** 4-bit codes, float16 scale and bias per row (embedding_bag_4bit). */
  CLG_BAG_WEIGHT_4BIT_ROWWISE = 2,
  /** 2-bit codes, float16 scale and bias per row (embedding_bag_2bit). */
  CLG_BAG_WEIGHT_2BIT_ROWWISE = 3,
} clg_bag_weight_format;

/**
 * EmbeddingBag's attributes. Zero-initialised (or a NULL pointer): mode
 * sum, bags by offsets, no padding index. (PyTorch's default mode is mean:
 * the CLI and the Python package default to it; the C zero value is sum.)
 */
typedef struct clg_bag_params {
  /** How a bag's rows reduce (0: CLG_BAG_SUM). */
  clg_bag_mode mode;
  /** How the bags are given (0: CLG_BAGS_OFFSETS). */
  clg_bag_form form;
  /** CLG_BAG_* bits; others must be 0. */
  uint32_t flags;
  /** How the weight's rows are stored (clg_bag_weight_format): 0, dense
   * rows of weight's element type; else rows quantized per row. The field
   * was first released as `reserved` (which had to be 0): the same bytes,
   * and both names stay. */
  union {
    uint32_t weight_format;
    uint32_t reserved;
  };
  /** With CLG_BAG_PADDING_IDX: in [-num_embeddings, num_embeddings - 1];
   * negative counts from the back (PyTorch). Ignored otherwise. */
  int64_t padding_idx;
} clg_bag_params;

/**
 * EmbeddingBag: output[b, :] = the reduction (params->mode) of the rows
 * weight[indices[i], :] over the entries i of bag b (params->form).
 *
 * Shapes and element types:
 *  - weight [num_embeddings, dim]: float32, float16, bfloat16 or float64
 *    (else CLG_ERROR_UNSUPPORTED_DTYPE);
 *  - indices: int32 or int64, [N] or [B, L] as the form says; every value
 *    in [0, num_embeddings - 1]. Negative indices are errors, as in PyTorch
 *    (no counting from the back);
 *  - bags: int32 or int64 (independently of indices), as the form says;
 *    NULL for CLG_BAGS_FIXED;
 *  - per_sample_weights: NULL, or indices' shape in weight's element type,
 *    mode sum only (PyTorch): each row is scaled by its entry's weight;
 *  - output [B, dim], weight's element type.
 * With params->weight_format one of the quantized formats
 * (clg_bag_weight_format, its byte diagrams): weight uint8
 * [num_embeddings, row_bytes], dim from row_bytes (8-bit: row_bytes - 8;
 * 4-bit: 2 * (row_bytes - 4); 2-bit: 4 * (row_bytes - 4)), output and
 * per_sample_weights float32 (PyTorch's
 * torch.ops.quantized.embedding_bag_byte_rowwise_offsets,
 * embedding_bag_4bit_rowwise_offsets and _2bit_, which this reproduces bit
 * for bit for sum, with and without per_sample_weights: tests/ops/
 * test_embedding_bag_quantized.c).
 *
 * Arithmetic, fixed so that the result is the same bits on every device,
 * for any work-group size: each bag is reduced one entry at a time in the
 * order of indices, every operation one IEEE 754 operation rounded to
 * nearest even, never contracted:
 *  - sum: acc = +0, then acc = acc + row (with per_sample_weights
 *    acc = fma(w, row, acc), one rounding), in the weight's type for
 *    float32 and float64; for float16 and bfloat16 in float32, the sum
 *    rounded once to the weight's type at the end;
 *  - mean: that sum (rounded to the weight's type) divided by the count,
 *    rounded to the weight's type (float16 and bfloat16: divided in
 *    float32, then rounded); sqrt_n: divided by sqrt(count) the same way
 *    (the count converted to the division's type first, rounded to
 *    nearest above 2^24 in float32; sqrt rounded to nearest in that
 *    type);
 *  - max: the first row, then per element the larger (IEEE 754-2019
 *    maximum: +0 above -0, a NaN on either side gives NaN), in the
 *    weight's type;
 *  - quantized rows (float32 throughout, scale and bias widened exactly
 *    from float16 for 4- and 2-bit): sum is acc = +0, then per entry
 *    acc = fma(scale, q, acc + bias) (FBGEMM's steps); with
 *    per_sample_weights w, scale * w and bias * w (each rounded) take
 *    scale's and bias's places; mean and sqrt_n divide that sum as for a
 *    float32 weight; max is of fma(scale, q, bias), the row's values, and
 *    a NaN there is stored as the one quiet NaN. A NaN or infinite scale
 *    or bias is data: it gives what this arithmetic gives (NaN, or an
 *    infinity), never an error. PyTorch 1.13's quantized ops return the
 *    sum for modes mean and max; clgather returns the mean and the max;
 *  - count: the bag's entries, less those equal to padding_idx;
 *  - an empty bag (or one of padding entries only) gives +0 in every
 *    element, in every mode (PyTorch and TensorFlow);
 *  - a NaN result of sum, mean or sqrt_n is stored as the type's one quiet
 *    NaN, positive with no payload (float32 0x7FC00000, float64
 *    0x7FF8000000000000, float16 0x7E00, bfloat16 0x7FC0): devices differ
 *    in the NaN their arithmetic returns; max keeps the NaN row's bits.
 * Division and square root must be correctly rounded: the kernels of
 * float32, float16 and bfloat16 mean and sqrt_n are built with
 * -cl-fp32-correctly-rounded-divide-sqrt where the device's
 * CL_DEVICE_SINGLE_FP_CONFIG has CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT; on a
 * device without it they divide through double (a double quotient or
 * square root of floats, rounded to float, is the correctly rounded float
 * one), and on a device without either they are
 * CLG_ERROR_UNSUPPORTED_DTYPE (sum and max run everywhere; float64 needs
 * cl_khr_fp64). Subnormals are kept: a device that flushes them (no
 * CL_FP_DENORM) gives CLG_ERROR_UNSUPPORTED_DTYPE for float32 and
 * bfloat16.
 * PyTorch's CPU embedding_bag (1.13, measured by python/tests/
 * test_embedding_bag.py) gives these bits for float32 and float64 sum,
 * mean and max (apart from signed zeros and NaNs in max, which it compares
 * with `>`), for float16 sum and mean, and for float32 per_sample_weights
 * without padding_idx; with padding_idx, and in float64, it rounds w * row
 * before adding it (two roundings where this definition has one fma).
 *
 * Checks, all before any kernel is enqueued; on any error the output is
 * untouched and no event is returned: the bags first (offsets, segment
 * ids), then every index value in C order. The message names the tensor,
 * the position and the value.
 *
 * Storage: each operand host memory or a cl_mem of ctx's context, cl_mem
 * offsets multiples of the element's size; dense, or a strided view
 * (clg_strided_tensor, clgather.h: its rules, its memory checks, an
 * output's strides that must not share memory), with the same results
 * byte for byte as dense copies of the same values. What a strided operand
 * costs:
 *  - strides that are the dense ones: nothing (it is the dense tensor);
 *  - a cl_mem weight whose rows are contiguous (column stride 1, or one
 *    column) and at least dim elements apart (a column block of a larger
 *    table: a leading dimension): nothing, read in place by the kernel
 *    with its row pitch; a cl_mem output of that kind: nothing, written in
 *    place, unless its bytes (from its lowest element to its highest)
 *    overlap an input read in place (then as below);
 *  - any other strided input: one copy into a dense scratch buffer of its
 *    size before the call's kernels (a copy kernel; a loop for host
 *    memory), so one more pass over its bytes; a transposed weight costs a
 *    pass over the whole table;
 *  - any other strided output: computed into a dense scratch buffer and
 *    copied to its elements after the reduction, once the call has
 *    succeeded; its gaps are never written.
 * Where the values are checked:
 *  - host indices and bags: on the host, before anything is enqueued;
 *  - cl_mem indices and bags (every one below 2^32 - 1 entries) with a
 *    cl_mem output and no wait list: a small validation kernel, and the
 *    reduction after it, which reads the validation's verdict first and
 *    writes nothing when any check failed; the call then reads the
 *    verdict's 40 bytes after the reduction (blocking: the call's one host
 *    wait; the reduction has completed when the call returns), the rule
 *    clg_run() uses for Gather's indices;
 *  - cl_mem indices and bags otherwise (a host output, or a wait list):
 *    read back (blocking, after the wait list) and checked on the host
 *    below 32 KiB together, else checked on the device by the validation
 *    kernel whose verdict is read back (blocking) before the reduction is
 *    enqueued.
 * The same status and message every way; on any error the output is
 * unchanged (a gated reduction may have run: it wrote nothing) and no
 * event is returned. A host operand makes the call blocking; with cl_mem
 * operands checked first, only the reduction is enqueued after the checks
 * and the call returns without waiting for it.
 *
 * A host weight larger than the device's largest buffer
 * (CL_DEVICE_MAX_MEM_ALLOC_SIZE; or, with a host weight, any host operand
 * larger than it): every value is checked first as above (cl_mem indices
 * and bags read back), then the bags run in groups, each group's distinct
 * rows (entries equal to padding_idx left out) copied into a host table
 * that fits one buffer, its indices renumbered into that table, and the
 * same reduction run on it into the group's output rows: the same bits as
 * one call. The call is then blocking (its event, where asked, a marker
 * after the groups). What cannot be split is CLG_ERROR_OPENCL naming the
 * sizes and the limit, before any group runs: one weight row larger than
 * the buffer, or one bag whose distinct rows (with the padding row, when
 * padding_idx is set), indices, segment ids, per_sample_weights (host) or
 * output row (host) do not fit it on their own. An OpenCL failure in a
 * later group leaves the earlier groups' output rows written. A cl_mem
 * weight is never split.
 * queue NULL: clg_context_queue(ctx); wait_list as clg_run(); event: a new
 * event that completes with the output written.
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT (ctx, weight, indices, output; bags for
 * the offsets and segment-id forms), CLG_ERROR_INVALID_ARGUMENT (an unknown
 * mode, form, flag or weight_format, bags with CLG_BAGS_FIXED,
 * CLG_BAG_INCLUDE_LAST_OFFSET with another form, per_sample_weights with a
 * mode other than sum, padding_idx out of range, and the storage, queue and
 * buffer errors of clg_run()), CLG_ERROR_INVALID_RANK, CLG_ERROR_INVALID_SHAPE,
 * CLG_ERROR_UNSUPPORTED_DTYPE (also a quantized format's weight not
 * uint8), CLG_ERROR_INVALID_INDICES_DTYPE (indices or bags),
 * CLG_ERROR_DTYPE_MISMATCH (output or per_sample_weights against weight;
 * with a quantized weight, not float32), CLG_ERROR_INVALID_SHAPE (also a
 * quantized weight's rows shorter than their scale and bias),
 * CLG_ERROR_INCOMPATIBLE_SHAPES (segment ids' or
 * per_sample_weights' shape against indices', include_last_offset with no
 * offset), CLG_ERROR_SHAPE_MISMATCH (output), CLG_ERROR_SIZE_OVERFLOW,
 * CLG_ERROR_BUFFER_TOO_SMALL, CLG_ERROR_INVALID_BAGS (offsets or segment
 * ids break the form's rules), CLG_ERROR_INDEX_OUT_OF_BOUNDS (an index
 * outside [0, num_embeddings - 1]), CLG_ERROR_OPENCL,
 * CLG_ERROR_BUILD_FAILED, CLG_ERROR_OUT_OF_HOST_MEMORY.
 */
CLG_API clg_status clg_embedding_bag(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *weight,
    const clg_tensor *indices, const clg_tensor *bags,
    const clg_tensor *per_sample_weights, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event);

/**
 * clg_embedding_bag() in the asynchronous checked mode, with
 * clg_run_async()'s contract: on CLG_SUCCESS, *outcome is a new clg_outcome
 * whose clg_outcome_wait() gives the call's status (with
 * clg_embedding_bag()'s message). With cl_mem indices, bags (where the form
 * has them) and output, the values are checked on the device and nothing is
 * read back: the checks' kernels run after the wait list, the reduction
 * after them, gated on their verdict (it writes nothing when a check
 * failed: the output stays as it was), and the call returns once they are
 * enqueued; CLG_ERROR_INVALID_BAGS and CLG_ERROR_INDEX_OUT_OF_BOUNDS then
 * come from clg_outcome_wait(). Otherwise, and with a host weight larger
 * than the device's largest buffer (run in groups, blocking, cl_mem values
 * read back: clg_embedding_bag()), every check is made before the call
 * returns, as clg_embedding_bag() makes it, and the outcome is
 * CLG_SUCCESS. Strided views: those of clg_embedding_bag(); a strided
 * cl_mem output written through scratch (not a column block written in
 * place) is an "otherwise" (its copy cannot be gated): the values are
 * checked before the call returns. Errors: those of clg_embedding_bag();
 * CLG_ERROR_NULL_ARGUMENT
 * also for outcome == NULL.
 */
CLG_API clg_status clg_embedding_bag_async(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *weight,
    const clg_tensor *indices, const clg_tensor *bags,
    const clg_tensor *per_sample_weights, const clg_tensor *output,
    cl_command_queue queue, cl_uint num_events, const cl_event *wait_list,
    cl_event *event, clg_outcome **outcome);

/* ------------------------------------------------------------------ plans */

/**
 * Create a plan for EmbeddingBag (see clg_plan_create() for plans): one
 * call of clg_embedding_bag() fixed in everything but its memory, checked
 * once, then enqueued any number of times with
 * clg_plan_enqueue_embedding_bag(). params as for clg_embedding_bag() (NULL:
 * zero-initialised; copied). weight, indices, bags, per_sample_weights and
 * output are templates: their dtype, rank, shape and storage kind (host
 * memory or cl_mem) fix the plan, bags and per_sample_weights NULL or not
 * as the enqueues will pass them; their host pointers and buffers are not
 * used and may be NULL, and their cl_mem offsets are only checked for
 * alignment. Every check of clg_embedding_bag() that needs no buffer and no
 * value is made here: params (mode, form, flags, weight_format, padding_idx
 * against num_embeddings), the element types, ranks and shapes of every
 * operand against the form, the output's shape [B, dim], sizes, cl_mem
 * offsets multiples of the element's size, and, for an output with
 * elements, what the device must offer for the definition's bits (float64,
 * subnormals, a correctly rounded division: CLG_ERROR_UNSUPPORTED_DTYPE
 * here rather than at the first enqueue). Nothing is built, allocated on
 * the device or enqueued; the call does not block. The plan keeps a
 * reference to nothing but ctx, which must outlive it.
 *
 * flags: 0 (each enqueue as clg_embedding_bag()) or CLG_PLAN_ASYNC_CHECK
 * (as clg_embedding_bag_async()).
 *
 * clg_plan_bake() builds (or loads from the disk cache) every program the
 * enqueues need: the reduction's (every variant of it; none for an output
 * without elements: gated, reading the checks' verdict on the device,
 * where the values may be checked on the device and the output is a
 * cl_mem, and then also ungated for a synchronous plan, whose enqueues
 * after a wait list check first),
 * and, where an enqueue may check the values on the device (cl_mem indices
 * and bags, each below 2^32 - 1 entries, something to check), the checks'
 * (with the segments' starts for CLG_BAGS_SEGMENT_IDS); enqueues at any
 * offsets then build nothing. clg_plan_destroy() takes it as any plan;
 * clg_plan_enqueue() and clg_plan_enqueue_scatter() refuse it
 * (CLG_ERROR_INVALID_ARGUMENT).
 *
 * Errors: CLG_ERROR_NULL_ARGUMENT (ctx, weight, indices, output, out; bags
 * for the offsets and segment-id forms), CLG_ERROR_INVALID_ARGUMENT (an
 * unknown plan flag, a storage kind that is neither CLG_STORAGE_HOST nor
 * CLG_STORAGE_BUFFER (strided views included), a cl_mem offset not a
 * multiple of its element's size, and params as for clg_embedding_bag()),
 * CLG_ERROR_INVALID_RANK, CLG_ERROR_INVALID_SHAPE,
 * CLG_ERROR_UNSUPPORTED_DTYPE, CLG_ERROR_INVALID_INDICES_DTYPE,
 * CLG_ERROR_DTYPE_MISMATCH, CLG_ERROR_INCOMPATIBLE_SHAPES,
 * CLG_ERROR_SHAPE_MISMATCH, CLG_ERROR_SIZE_OVERFLOW, CLG_ERROR_OPENCL (the
 * device's facts could not be read), CLG_ERROR_OUT_OF_HOST_MEMORY. *out is
 * NULL on failure.
 */
CLG_API clg_status clg_plan_create_embedding_bag(
    clg_context *ctx, const clg_bag_params *params, const clg_tensor *weight,
    const clg_tensor *indices, const clg_tensor *bags,
    const clg_tensor *per_sample_weights, const clg_tensor *output,
    unsigned flags, clg_plan **out);

/**
 * Enqueue an EmbeddingBag plan (clg_plan_create_embedding_bag()) on new
 * tensors: weight, indices, bags, per_sample_weights and output must have
 * the templates' dtype, rank, shape and storage kind (else
 * CLG_ERROR_DTYPE_MISMATCH, CLG_ERROR_SHAPE_MISMATCH or
 * CLG_ERROR_INVALID_ARGUMENT, the message naming the tensor, what it is
 * and what the plan was made for), bags and per_sample_weights NULL exactly
 * where their templates were (else CLG_ERROR_NULL_ARGUMENT for a missing
 * one, CLG_ERROR_INVALID_ARGUMENT for an extra one). Everything else then
 * goes as in clg_embedding_bag() (plans without CLG_PLAN_ASYNC_CHECK;
 * outcome must be NULL, else CLG_ERROR_INVALID_ARGUMENT) or
 * clg_embedding_bag_async() (plans with it; outcome must not be NULL, else
 * CLG_ERROR_NULL_ARGUMENT), with the same checks, errors, messages,
 * blocking behaviour and contract: the buffers are checked, and every
 * offset or segment id and every index value at every enqueue, before any
 * kernel that writes the output (or, asynchronously with cl_mem operands,
 * on the device with the reduction gated on their verdict); on any error
 * the output is untouched and no event or outcome is returned. Other cl_mem
 * offsets than the templates' are taken as they come, and so are strided
 * views of the templates' shapes (as clg_embedding_bag() takes them,
 * though the templates themselves must be dense). A gather's or a
 * scatter's plan is refused (CLG_ERROR_INVALID_ARGUMENT, naming
 * clg_plan_enqueue() or clg_plan_enqueue_scatter()), as is a NULL plan
 * (CLG_ERROR_NULL_ARGUMENT). Safe to call from several threads at once.
 */
CLG_API clg_status clg_plan_enqueue_embedding_bag(
    clg_plan *plan, const clg_tensor *weight, const clg_tensor *indices,
    const clg_tensor *bags, const clg_tensor *per_sample_weights,
    const clg_tensor *output, cl_command_queue queue, cl_uint num_events,
    const cl_event *wait_list, cl_event *event, clg_outcome **outcome);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_CLGATHER_BAG_H */
