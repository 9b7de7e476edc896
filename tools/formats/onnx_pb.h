/*
 * ONNX protobuf files: TensorProto (.pb tensors) and ModelProto (model.onnx),
 * through protobuf-c code generated at build time from the installed
 * onnx.proto.
 *
 * All functions return 0 on success, -1 on failure with a message in `err`.
 *
 * Include order in tools/formats/ (each header includes only those before it):
 *   cli_tensor.h <- npy.h, onnx_pb.h <- tensor_file.h
 * This header includes cli_tensor.h and the generated onnx.pb-c.h;
 * tensor_file.c and onnx_test.c call it, it never calls tensor_file.c.
 */
#ifndef CLGATHER_TOOLS_ONNX_PB_H
#define CLGATHER_TOOLS_ONNX_PB_H

#include <stddef.h>

#include "cli_tensor.h"
#include "onnx.pb-c.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Convert a decoded TensorProto to a cli_tensor. Accepts every fixed-size
 * data_type, with the data in raw_data (little-endian) or in the typed field
 * ONNX assigns to that type (float_data, int32_data, int64_data,
 * double_data, uint64_data). Rejects string, external data, segments, a
 * rank above CLG_MAX_RANK and any count that does not match the dims. */
int onnx_tensor_from_proto(const Onnx__TensorProto *tp, cli_tensor *t,
                           char *err, size_t errlen);

/** Decode a serialized TensorProto held in memory. */
int onnx_tensor_parse(const unsigned char *buf, size_t len, cli_tensor *t,
                      char *err, size_t errlen);

/** Read a .pb file holding one TensorProto. */
int onnx_tensor_read(const char *path, cli_tensor *t, char *err,
                     size_t errlen);

/** Serialize `t` as a TensorProto with dims, data_type, raw_data and, if not
 * NULL, name, into a malloc'ed buffer. */
int onnx_tensor_encode(const cli_tensor *t, const char *name,
                       unsigned char **out, size_t *out_len, char *err,
                       size_t errlen);

/** Write `t` as a TensorProto (raw_data) atomically to `path`. */
int onnx_tensor_write(const char *path, const cli_tensor *t, char *err,
                      size_t errlen);

/** Read and decode a ModelProto (model.onnx). Free with onnx_model_free(). */
int onnx_model_read(const char *path, Onnx__ModelProto **model, char *err,
                    size_t errlen);

/** Free a model from onnx_model_read(). NULL-tolerant. */
void onnx_model_free(Onnx__ModelProto *model);

/** The integer attribute `name` of `node`, or `fallback` when absent.
 * Fails when the attribute exists but is not an INT. */
/* The STRING attribute `name` of `node` into value (cap bytes, terminated),
 * or `fallback` when absent. 0, or -1 with a message in err. */
int onnx_node_string_attr(const Onnx__NodeProto *node, const char *name,
                          const char *fallback, char *value, size_t cap,
                          char *err, size_t errlen);
int onnx_node_int_attr(const Onnx__NodeProto *node, const char *name,
                       int64_t fallback, int64_t *value, char *err,
                       size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_ONNX_PB_H */
