/*
 * ONNX models as `clgather onnx-test` runs them (onnx_model.c): the values a
 * graph holds itself (initializers, Constant nodes), tensor data stored in
 * external files next to model.onnx, and the binding of a test data set's
 * input_N.pb files to the graph's inputs.
 *
 * ONNX semantics (onnx/onnx.proto, docs/IR.md): an initializer is the
 * default value of the graph input of the same name, which a caller may
 * supply instead; a tensor with data_location EXTERNAL keeps its bytes (as
 * raw_data would) in the file external_data["location"], a path relative
 * to the model's folder, from byte "offset" (default 0) for "length" bytes
 * (default: to the end of the file).
 *
 * Include order in tools/formats/: cli_tensor.h <- onnx_pb.h <-
 * onnx_model.h; only onnx_test.c includes it. Every function that can fail
 * returns 0 on success and -1 with a one-line message in `err`; nothing
 * prints.
 */
#ifndef CLGATHER_TOOLS_ONNX_MODEL_H
#define CLGATHER_TOOLS_ONNX_MODEL_H

#include <stddef.h>

#include "cli_tensor.h"
#include "onnx_pb.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An operator of the family, run by onnx-test: the library's registry
 * entry (clg_operators(), found by ONNX op_type), how many inputs the node
 * takes (data, indices, and updates for a scatter) and outputs it gives. */
typedef struct onnx_op {
  const clg_op_info *info;
  size_t n_inputs;
  size_t n_outputs;
} onnx_op;

/** The registry entry of the node's op_type (default domain, "" or
 * "ai.onnx") into *op; 0 if the library has none. */
int onnx_find_op(const Onnx__NodeProto *node, onnx_op *op);

/** The node to run in graph g (whose nodes all have an op_type): its one
 * node of the family, every other node being a Constant. Returns 1 with *at
 * and *op set, or 0 with the reason to skip the graph in `why` ("unsupported
 * op TopK", "graph has op Relu besides Gather; ..."). */
int onnx_pick_node(const Onnx__GraphProto *g, size_t *at, onnx_op *op,
                   char *why, size_t whylen);

/** Where a named value of a graph comes from. */
typedef enum onnx_value_kind {
  ONNX_VALUE_INITIALIZER = 0, /* graph.initializer */
  ONNX_VALUE_CONSTANT = 1,    /* the output of a Constant node */
  ONNX_VALUE_INPUT = 2,       /* a data set's input_N.pb */
} onnx_value_kind;

/** A named tensor; `name` is borrowed from the model, `tensor` owned. */
typedef struct onnx_value {
  const char *name;
  onnx_value_kind kind;
  cli_tensor tensor;
} onnx_value;

/** A set of named tensors (zero-initialise; free with onnx_values_free). */
typedef struct onnx_values {
  onnx_value *v;
  size_t n, cap;
} onnx_values;

/** The tensor named `name` in `vs`, or NULL. */
const cli_tensor *onnx_values_find(const onnx_values *vs, const char *name);

/** Free every tensor and the array, and reset *vs. NULL-tolerant. */
void onnx_values_free(onnx_values *vs);

/** A TensorProto of the model in folder `model_dir` into t: as
 * onnx_tensor_from_proto(), and with data_location EXTERNAL, the bytes of
 * external_data's location / offset / length, read from a regular file
 * inside model_dir. Refuses a location that is empty, absolute, has a ".."
 * component or resolves (through links) outside model_dir; a missing file;
 * offset + length beyond the file; a byte count that is not what data_type
 * and dims need; external data together with raw_data or a typed field. */
int onnx_tensor_from_model(const Onnx__TensorProto *tp, const char *model_dir,
                           cli_tensor *t, char *err, size_t errlen);

/** The graph's own values: every initializer (kind INITIALIZER) and the
 * output of every Constant node of the default domain (kind CONSTANT, from
 * its attribute value, value_float, value_floats, value_int or value_ints).
 * Fails on a tensor that does not convert, a nameless or repeated name, a
 * sparse initializer and a Constant with another attribute or none. */
int onnx_graph_values(const Onnx__GraphProto *g, const char *model_dir,
                      onnx_values *out, char *err, size_t errlen);

/** Read a .pb file holding one TensorProto, and its name (malloc'ed, ""
 * when it has none) into *name. */
int onnx_tensor_read_named(const char *path, cli_tensor *t, char **name,
                           char *err, size_t errlen);

/**
 * Bind a data set's inputs files[0 .. n-1] (their TensorProto names in
 * names[]) to the inputs of graph g, whose own values are `own`: by name
 * when every file names a distinct graph input; otherwise in order, to the
 * graph inputs without an initializer when there are n of them, else to
 * all graph inputs when there are n. The tensors are moved into *bound
 * (kind INPUT; files[] are left zeroed). Fails when the count matches
 * neither, or when a graph input is left with no value (no file and no
 * initializer).
 */
int onnx_bind_inputs(const Onnx__GraphProto *g, const onnx_values *own,
                     cli_tensor *files, char *const *names, size_t n,
                     onnx_values *bound, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_ONNX_MODEL_H */
