/* `clgather onnx-test` on GatherElements and GatherND: single-node models
 * written here with protobuf-c, their expected outputs from the references
 * of cli_family_fx.c; the node's attributes are read (without them the
 * outputs differ: FAIL, not SKIP). Part of test_cli_family (its suite and
 * the gather command: test_cli_family.c; gather-elements and gather-nd:
 * test_cli_family_ops.c). */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_family_fx.h"
#include "cli_testutil.h"
#include "onnx_pb.h"
#include "tensor_file.h"

/* ------------------------------------------------------------ onnx-test */

/* A single-node model.onnx with op_type and one optional INT attribute. */
static void write_model(const char *path, const char *op_type,
                        const char *attr_name, int64_t value) {
  Onnx__AttributeProto attr = ONNX__ATTRIBUTE_PROTO__INIT;
  attr.name = (char *)attr_name;
  attr.has_type = 1;
  attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  attr.has_i = 1;
  attr.i = value;
  Onnx__AttributeProto *attrs[1] = {&attr};
  Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
  node.op_type = (char *)op_type;
  node.n_attribute = attr_name != NULL ? 1 : 0;
  node.attribute = attrs;
  Onnx__NodeProto *nodes[1] = {&node};
  Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
  graph.n_node = 1;
  graph.node = nodes;
  Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
  model.graph = &graph;
  size_t n = onnx__model_proto__get_packed_size(&model);
  unsigned char *buf = malloc(n);
  cr_assert_not_null(buf);
  onnx__model_proto__pack(&model, buf);
  ct_write_file(path, buf, n);
  free(buf);
}

/* Make folder `name` (model + test_data_set_0) in the scratch folder. */
static const char *make_case(const char *name, const char *op_type,
                             const char *attr_name, int64_t value,
                             const cli_tensor *data, const cli_tensor *idx,
                             const cli_tensor *want) {
  static char dir[1024];
  char p[1200];
  snprintf(dir, sizeof dir, "%s", ct_path(name));
  cr_assert_eq(mkdir(dir, 0777), 0);
  snprintf(p, sizeof p, "%s/test_data_set_0", dir);
  cr_assert_eq(mkdir(p, 0777), 0);
  snprintf(p, sizeof p, "%s/model.onnx", dir);
  write_model(p, op_type, attr_name, value);
  snprintf(p, sizeof p, "%s/test_data_set_0/input_0.pb", dir);
  save(p, data);
  snprintf(p, sizeof p, "%s/test_data_set_0/input_1.pb", dir);
  save(p, idx);
  snprintf(p, sizeof p, "%s/test_data_set_0/output_0.pb", dir);
  save(p, want);
  return dir;
}

static void remove_case(const char *dir) {
  static const char *const files[] = {"test_data_set_0/input_0.pb",
                                      "test_data_set_0/input_1.pb",
                                      "test_data_set_0/output_0.pb",
                                      "test_data_set_0",
                                      "model.onnx",
                                      ""};
  char p[1200];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
    snprintf(p, sizeof p, "%s/%s", dir, files[i]);
    remove(p);
  }
}

Test(cli_family, onnx_test_runs_gather_elements_and_gather_nd) {
  int64_t dshape[3] = {2, 3, 4};
  cli_tensor data, ge_idx, nd_idx, ge_ref, nd_ref;
  make_tensor(&data, CLG_DTYPE_INT16, 3, dshape, 51);
  int64_t ge_shape[3] = {2, 3, 2};
  const int64_t ge_values[12] = {0, 1, -1, 2, 3, -4, 1, 1, 0, 2, -2, 3};
  make_indices(&ge_idx, CLG_DTYPE_INT64, 3, ge_shape, ge_values);
  reference_gather_elements(&data, &ge_idx, -1, &ge_ref);
  int64_t nd_shape[3] = {2, 2, 1};
  const int64_t nd_values[4] = {2, -3, 0, 1};
  make_indices(&nd_idx, CLG_DTYPE_INT64, 3, nd_shape, nd_values);
  reference_gather_nd(&data, &nd_idx, 1, &nd_ref);

  char ge_dir[1024], nd_dir[1024];
  snprintf(ge_dir, sizeof ge_dir, "%s",
           make_case("test_gather_elements_made", "GatherElements", "axis", -1,
                     &data, &ge_idx, &ge_ref));
  snprintf(nd_dir, sizeof nd_dir, "%s",
           make_case("test_gathernd_made", "GatherND", "batch_dims", 1, &data,
                     &nd_idx, &nd_ref));

  char *out, *err;
  int rc = CLI(&out, &err, "onnx-test", ge_dir, nd_dir);
  cr_assert_eq(rc, 0, "stdout: %s stderr: %s", out, err);
  cr_assert_str_eq(out, "PASS test_gather_elements_made\n"
                        "PASS test_gathernd_made\n"
                        "2 passed, 0 failed, 0 skipped\n");
  free(out);
  free(err);

  /* The attributes are read: without them (axis 0, batch_dims 0) the
   * expected outputs are wrong, which is a FAIL, not a SKIP. */
  char p[1200];
  snprintf(p, sizeof p, "%s/model.onnx", ge_dir);
  write_model(p, "GatherElements", NULL, 0);
  snprintf(p, sizeof p, "%s/model.onnx", nd_dir);
  write_model(p, "GatherND", NULL, 0);
  rc = CLI(&out, &err, "onnx-test", "--device", "0:0", ge_dir, nd_dir);
  cr_assert_eq(rc, 1, "stdout: %s stderr: %s", out, err);
  cr_assert(strstr(out, "FAIL test_gather_elements_made: ") != NULL, "%s", out);
  cr_assert(strstr(out, "FAIL test_gathernd_made: ") != NULL, "%s", out);
  cr_assert(strstr(out, "\n0 passed, 2 failed, 0 skipped\n") != NULL, "%s",
            out);
  free(out);
  free(err);

  remove_case(nd_dir);
  remove_case(ge_dir);
  cli_tensor_free(&nd_ref);
  cli_tensor_free(&ge_ref);
  cli_tensor_free(&nd_idx);
  cli_tensor_free(&ge_idx);
  cli_tensor_free(&data);
}
