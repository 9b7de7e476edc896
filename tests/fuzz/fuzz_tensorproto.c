/* Fuzz harness: the ONNX protobuf readers of tools/formats/onnx_pb.c —
 * TensorProto (.pb tensors, from memory and from a file) and ModelProto
 * (model.onnx, as `clgather onnx-test` inspects it).
 *
 * The same input bytes go through both parsers. Checked for every input:
 *  - no crash, leak or out-of-bounds access (sanitizers);
 *  - no single allocation larger than the input could justify (sanitizer
 *    builds: 64 KiB + 16 bytes per input byte; a typed field holds one value
 *    per input byte at best and a value is at most 16 bytes);
 *  - a failure leaves a non-empty message and a zeroed tensor;
 *  - a success gives a consistent tensor that round-trips through
 *    onnx_tensor_encode + onnx_tensor_parse, and through .npy when NumPy has
 *    the dtype; reading from a file agrees with parsing from memory;
 *  - every TensorProto found in a model (initializers, tensor attributes)
 *    converts or fails cleanly; the `axis` attribute lookup never crashes.
 */
#include "fuzz_common.h"

#include "npy.h"
#include "onnx_pb.h"
#include "fuzz_tensor.h"
#include "tensor_file.h"

static size_t alloc_cap(size_t size) { return 65536 + 16 * size; }

/* Typed fields can expand: at most 16 bytes of tensor per input byte. */
static void check_consistent(const cli_tensor *t, size_t input_size) {
  fz_check_tensor(t, 16 * input_size);
}

static void round_trips(const cli_tensor *t) {
  char err[1024];
  unsigned char *pb = NULL;
  size_t pb_len = 0;
  FZ_CHECK(onnx_tensor_encode(t, NULL, &pb, &pb_len, err, sizeof err) == 0,
           "onnx_tensor_encode: %s", err);
  cli_tensor back;
  FZ_CHECK(onnx_tensor_parse(pb, pb_len, &back, err, sizeof err) == 0,
           "onnx_tensor_parse of our own encoding: %s", err);
  free(pb);
  check_same(t, &back, ".pb round trip");
  cli_tensor_free(&back);
  if (npy_descr_of(t->dtype) == NULL)
    return; /* bfloat16: NumPy has no such dtype */
  unsigned char *npy = NULL;
  size_t npy_len = 0;
  FZ_CHECK(npy_encode(t, 0, &npy, &npy_len, err, sizeof err) == 0,
           "npy_encode: %s", err);
  const char *p = fz_scratch(2, ".npy");
  fz_put(p, npy, npy_len);
  free(npy);
  FZ_CHECK(npy_read(p, &back, err, sizeof err) == 0, "npy_read: %s", err);
  check_same(t, &back, ".npy round trip");
  cli_tensor_free(&back);
}

/* A TensorProto embedded in a model: convert it like a .pb file. */
static void fuzz_embedded(const Onnx__TensorProto *tp, size_t size) {
  if (tp == NULL)
    return;
  cli_tensor t;
  char err[1024] = "";
  int rc = onnx_tensor_from_proto(tp, &t, err, sizeof err);
  if (rc != 0) {
    check_failed(rc, &t, err, "onnx_tensor_from_proto");
    return;
  }
  check_consistent(&t, size);
  cli_tensor_free(&t);
}

static void fuzz_model(const char *path, size_t size) {
  Onnx__ModelProto *model = NULL;
  char err[1024] = "";
  fz_alloc_arm();
  int rc = onnx_model_read(path, &model, err, sizeof err);
  size_t peak = fz_alloc_disarm();
  FZ_CHECK(peak <= alloc_cap(size),
           "onnx_model_read of %zu bytes allocated %zu bytes at once", size,
           peak);
  if (rc != 0) {
    FZ_CHECK(model == NULL && err[0] != '\0', "failed read left a model");
    return;
  }
  FZ_CHECK(model != NULL, "no model");
  const Onnx__GraphProto *g = model->graph;
  if (g != NULL) {
    for (size_t i = 0; i < g->n_node; ++i) {
      const Onnx__NodeProto *node = g->node[i];
      if (node == NULL)
        continue;
      int64_t axis = 0;
      err[0] = '\0';
      if (onnx_node_int_attr(node, "axis", 0, &axis, err, sizeof err) != 0)
        FZ_CHECK(err[0] != '\0', "attribute lookup failed without a message");
      for (size_t k = 0; k < node->n_attribute; ++k) {
        const Onnx__AttributeProto *a = node->attribute[k];
        if (a == NULL)
          continue;
        fuzz_embedded(a->t, size);
        for (size_t j = 0; j < a->n_tensors; ++j)
          fuzz_embedded(a->tensors[j], size);
      }
    }
    for (size_t i = 0; i < g->n_initializer; ++i)
      fuzz_embedded(g->initializer[i], size);
  }
  onnx_model_free(model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[1024] = "";
  cli_tensor t;
  fz_alloc_arm();
  int rc = onnx_tensor_parse(data, size, &t, err, sizeof err);
  size_t peak = fz_alloc_disarm();
  FZ_CHECK(peak <= alloc_cap(size),
           "onnx_tensor_parse of %zu bytes allocated %zu bytes at once", size,
           peak);

  /* From a file, through the CLI's dispatch: the same verdict. */
  const char *path = fz_scratch(0, ".pb");
  fz_put(path, data, size);
  cli_tensor t2;
  char err2[1024] = "";
  int rc2 = cli_tensor_read(path, &t2, err2, sizeof err2);
  FZ_CHECK(rc == rc2, "onnx_tensor_parse %d but cli_tensor_read %d", rc, rc2);

  if (rc != 0) {
    check_failed(rc, &t, err, "onnx_tensor_parse");
    check_failed(rc2, &t2, err2, "cli_tensor_read");
  } else {
    check_consistent(&t, size);
    check_same(&t, &t2, "file vs memory");
    round_trips(&t);
  }
  cli_tensor_free(&t);
  cli_tensor_free(&t2);

  fuzz_model(path, size);
  return 0;
}
