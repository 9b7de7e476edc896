/*
 * The plain-C references of the family (ref_FILE.c, one per operator of
 * host/ops/operators.def; the scatters' in ref_scatter.h): the
 * specification. Written from each operator's definition (not from
 * clgather's code): they walk every output element by its multi-index and
 * copy the element the definition names. Slow and obviously right is the
 * point. Used by tests/ and by `clgather selftest`
 * (tools/selftest/selftest*.c), the conformance of a user's device; a small
 * static library (tools/reference/reference.cmake); the scatters' use
 * clg_dtype_size().
 */
#ifndef CLGATHER_REFERENCE_H
#define CLGATHER_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* Largest rank the reference handles (any tensor). */
#define REF_MAX_RANK 32

/* Index element type understood by the reference. */
typedef enum ref_index_type { REF_INDEX_I32 = 0, REF_INDEX_I64 = 1 } ref_index_type;

/* Output shape of Gather: data.shape[:a] + indices.shape + data.shape[a+1:].
 * Returns 0 on success; -1 for rank < 1, q < 0, a negative dimension, an
 * axis outside [-r, r-1] or an output rank above max_out_rank. */
int ref_gather_shape(int32_t r, const int64_t *data_shape, int32_t q,
                     const int64_t *indices_shape, int64_t axis,
                     int32_t max_out_rank, int32_t *out_rank,
                     int64_t *out_shape);

/* Number of elements of a shape (1 for rank 0). Saturates at INT64_MAX. */
int64_t ref_numel(int32_t rank, const int64_t *shape);

/* Value of element i of an int32 or int64 index array. */
int64_t ref_index_at(const void *indices, ref_index_type type, int64_t i);

/* Flat position of the first index outside [-s, s-1], or -1 if none. */
int64_t ref_first_oob(const void *indices, ref_index_type type, int64_t count,
                      int64_t s);

/* out = Gather(data, indices, axis). Elements are esize bytes. Returns 0 on
 * success, -1 if the shapes/axis are invalid or an index is out of bounds
 * (out may then be partly written). */
int ref_gather(const void *data, size_t esize, int32_t r,
               const int64_t *data_shape, const void *indices,
               ref_index_type type, int32_t q, const int64_t *indices_shape,
               int64_t axis, void *out);

/* A NaN as the library stores one that arithmetic made (add, mul, the
 * bag reductions): the type's one quiet NaN, positive with no payload
 * (0x7FC00000, 0x7FF8000000000000); any other value unchanged. Devices
 * differ in the NaN they compute, so the definition names one. */
float ref_canon_f(float f);
double ref_canon_d(double d);

/* float16 and bfloat16 <-> float, bit exact: widening is exact; narrowing
 * rounds to nearest even (overflow to infinity, subnormals kept); a NaN
 * stays a quiet NaN of the same sign with its top payload bits. */
float ref_half_to_float(uint16_t h);
uint16_t ref_float_to_half(float f);
float ref_bf16_to_float(uint16_t b);
uint16_t ref_float_to_bf16(float f);

/* Index modes of numpy.take (values match clg_index_mode). */
typedef enum ref_mode { REF_RAISE = 0, REF_WRAP = 1, REF_CLIP = 2 } ref_mode;

/* Gather with TensorFlow's batch_dims (tf.gather, GatherV2) and numpy.take's
 * modes, from their definitions: b = batch_dims (negative counts from q),
 * 0 <= b <= a, data.shape[:b] == indices.shape[:b];
 *   out[p0..p(a-1), i(b)..i(q-1), t(a+1)..] =
 *     data[p0..p(a-1), map(indices[p0..p(b-1), i(b)..i(q-1)]), t(a+1)..]
 * where map is k (+s if negative) for RAISE (out of range: error), Python
 * modulo for WRAP, clamp to [0, s-1] for CLIP. Output shape data.shape[:a] +
 * indices.shape[b:] + data.shape[a+1:]. Returns 0, or -1 for invalid
 * shapes/axis/batch_dims, an out-of-range index in RAISE, or any index into
 * an empty axis. */
int ref_gather_ex_shape(int32_t r, const int64_t *data_shape, int32_t q,
                        const int64_t *indices_shape, int64_t axis,
                        int64_t batch_dims, int32_t *out_rank,
                        int64_t *out_shape);
int ref_gather_ex(const void *data, size_t esize, int32_t r,
                  const int64_t *data_shape, const void *indices,
                  ref_index_type type, int32_t q, const int64_t *indices_shape,
                  int64_t axis, int64_t batch_dims, ref_mode mode, void *out,
                  int32_t *out_rank, int64_t *out_shape);

/* GatherElements (ONNX GatherElements, numpy.take_along_axis), from its
 * definition: q == r, axis in [-r, r-1], indices.shape[d] <= data.shape[d]
 * for d != axis; output shape = indices shape;
 *   out[c] = data[c with c_axis replaced by indices[c] (+s if negative)].
 * ref_gather_elements_shape: 0 and the output shape, or -1 for invalid
 * ranks/dims/axis. ref_gather_elements: 0, or -1 for invalid shapes or an
 * index outside [-s, s-1]. */
int ref_gather_elements_shape(int32_t r, const int64_t *data_shape, int32_t q,
                              const int64_t *indices_shape, int64_t axis,
                              int32_t *out_rank, int64_t *out_shape);
int ref_gather_elements(const void *data, size_t esize, int32_t r,
                        const int64_t *data_shape, const void *indices,
                        ref_index_type type, int32_t q,
                        const int64_t *indices_shape, int64_t axis, void *out);

/* GatherND (ONNX GatherND with batch_dims b, tf.gather_nd), from its
 * definition: q >= 1, 0 <= b < min(r, q), m = indices.shape[q-1] in
 * [1, r - b], data.shape[:b] == indices.shape[:b]; output shape
 * indices.shape[:q-1] + data.shape[b+m:];
 *   out[i(0)..i(q-2), t..] = data[i(0)..i(b-1), k(0)..k(m-1), t..]
 * with k(j) = indices[i(0)..i(q-2), j] (+ data.shape[b+j] if negative).
 * ref_gather_nd_shape: 0 and the output shape, or -1 for invalid
 * ranks/dims/batch_dims or an output rank above max_out_rank.
 * ref_gather_nd: 0, or -1 for invalid shapes or a component outside
 * [-d, d-1]. */
int ref_gather_nd_shape(int32_t r, const int64_t *data_shape, int32_t q,
                        const int64_t *indices_shape, int64_t batch_dims,
                        int32_t max_out_rank, int32_t *out_rank,
                        int64_t *out_shape);
int ref_gather_nd(const void *data, size_t esize, int32_t r,
                  const int64_t *data_shape, const void *indices,
                  ref_index_type type, int32_t q, const int64_t *indices_shape,
                  int64_t batch_dims, void *out);

/* EmbeddingBag (PyTorch's embedding_bag, TensorFlow's sparse segment
 * reductions), from its definition in include/clgather/clgather_bag.h:
 * the arithmetic there, entry by entry in index order, in plain C (no
 * contraction: fmaf()/fma() only where the definition says fma).
 *  - mode: 0 sum, 1 mean, 2 max, 3 sqrt_n (clg_bag_mode);
 *  - form: 0 offsets, 1 fixed, 2 segment ids (clg_bag_form);
 *  - dtype: a clg_dtype value: float32 (1), float16 (10), bfloat16 (16) or
 *    float64 (11) (the weight's, the output's, per_sample_weights');
 *  - indices: n = indices_shape[0] (* indices_shape[1] for the fixed form,
 *    indices_rank 2) entries; bags (offsets or segment ids, of bags_type)
 *    with bags_len entries, NULL for the fixed form;
 *  - per_sample_weights: NULL or n entries of dtype;
 *  - num_bags: B, output [B, dim] (for the segment form the caller's
 *    num_segments; for the others it must agree with the bags).
 * Returns 0 with out written, or -1 for any input that clg_embedding_bag()
 * refuses (out may then be partly written). */
typedef struct ref_bag_args {
  int mode, form, include_last_offset, has_padding_idx;
  int64_t padding_idx;
  int32_t dtype;
  const void *weight;
  int64_t num_embeddings, dim;
  const void *indices;
  ref_index_type index_type;
  int32_t indices_rank;
  int64_t indices_shape[2];
  const void *bags;
  ref_index_type bags_type;
  int64_t bags_len;
  const void *per_sample_weights;
  int64_t num_bags;
  /* 0: the weight is dense, of dtype. Else the weight is a table of rows
   * quantized per row (PyTorch's embedding_bag_*_prepack), dtype float32
   * (the output's, per_sample_weights'), each row ref_qrow_bytes() bytes:
   * REF_QROW_8BIT: dim uint8 codes, a float32 scale, a float32 bias;
   * REF_QROW_4BIT / REF_QROW_2BIT: the codes packed two / four to a byte
   * (code j in bits (j % 2) * 4 / (j % 4) * 2 of byte j / 2 / j / 4, low
   * bits first), then a float16 scale and a float16 bias. Row values:
   *  - sum: each entry in index order, acc = fmaf(scale, q, acc + bias),
   *    in float32 (scale and bias widened from float16 exactly); with
   *    per_sample_weights w: scale * w and bias * w, each rounded to
   *    float32, in their place (PyTorch's arithmetic, bit for bit);
   *  - mean, sqrt_n: that sum divided as for a float32 weight;
   *  - max: of fmaf(scale, q, bias), the row's dequantized value, as for a
   *    float32 weight. */
  int32_t weight_format;
} ref_bag_args;
int ref_embedding_bag(const ref_bag_args *a, void *out);

/* GatherBlockQuantized (ONNX Runtime's com.microsoft GatherBlockQuantized-1;
 * ONNX Gather, then DequantizeLinear-21 with block_size): data gathered on
 * gather_axis as Gather does (indices in [-s, s-1], negative from the
 * back), each element dequantized with the scale and zero point of its
 * block of block_size elements along quantize_axis:
 *   out = (float)(q - zero_point) * scale   (one float32 product; for
 *   float16 scales that product rounded to float16).
 *  - kind: REF_GBQ_UINT8 (uint8 storage, bits 8: a value a byte; bits 4:
 *    two a byte, even elements in the low nibble; ONNX Runtime's rule:
 *    gather_axis 0, quantize_axis the last), REF_GBQ_UINT4 and
 *    REF_GBQ_INT4 (ONNX's 4-bit types, bits 4, packed the same way over
 *    the whole tensor; int4 sign-extended);
 *  - shape: the values' (not the bytes') shape, rank r;
 *  - scales: float32 (scale_dtype 1) or float16 (10), data's shape with
 *    ceil(shape[quantize_axis] / block_size) on quantize_axis;
 *    block_size a power of two, at least 16;
 *  - zero_points: NULL (uint8 storage: 2^(bits-1); the 4-bit types: 0), or
 *    scales' shape in data's kind: bytes (bits 8), nibbles packed per row
 *    of the last axis (uint8 storage, bits 4), or packed over the whole
 *    tensor (the 4-bit types);
 *  - output: data.shape[:ga] + indices.shape + data.shape[ga+1:], in the
 *    scales' type.
 * Returns 0, or -1 for an index out of range (ONNX Runtime writes zeros)
 * or any other rule broken; out may then be partly written. */
enum { REF_GBQ_UINT8 = 0, REF_GBQ_UINT4 = 1, REF_GBQ_INT4 = 2 };
typedef struct ref_gbq_args {
  int32_t kind, bits;
  const void *data;
  int32_t rank;
  int64_t shape[REF_MAX_RANK];
  const void *indices;
  ref_index_type index_type;
  int32_t indices_rank;
  int64_t indices_shape[REF_MAX_RANK];
  int64_t gather_axis, quantize_axis, block_size;
  const void *scales;
  int32_t scale_dtype;
  const void *zero_points;
} ref_gbq_args;
int ref_gather_block_quantized(const ref_gbq_args *a, void *out);

/* ref_bag_args.weight_format. */
enum {
  REF_QROW_NONE = 0,
  REF_QROW_8BIT = 1,
  REF_QROW_4BIT = 2,
  REF_QROW_2BIT = 3
};
/* Bytes of one quantized row of dim values (dim a multiple of 2 for
 * REF_QROW_4BIT, of 4 for REF_QROW_2BIT), or -1 for a format it does not
 * know or a dim that does not fit it. */
int64_t ref_qrow_bytes(int32_t weight_format, int64_t dim);

#endif /* CLGATHER_REFERENCE_H */
