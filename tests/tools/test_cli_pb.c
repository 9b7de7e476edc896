/* ONNX TensorProto / ModelProto files (tools/formats/onnx_pb.c): raw_data round
 * trips for every dtype, each typed-field form, and hostile messages. The
 * messages are built here with protobuf-c and serialized to temp files. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_testutil.h"
#include "onnx_pb.h"
#include "tensor_file.h"

TestSuite(cli_pb, .fini = ct_cleanup);

static void write_proto(const char *path, const Onnx__TensorProto *tp) {
  size_t n = onnx__tensor_proto__get_packed_size(tp);
  unsigned char *buf = malloc(n ? n : 1);
  cr_assert_not_null(buf);
  cr_assert_eq(onnx__tensor_proto__pack(tp, buf), n);
  ct_write_file(path, buf, n);
  free(buf);
}

/* Serialize tp to a file, read it back with the CLI reader. */
static int read_proto(const Onnx__TensorProto *tp, cli_tensor *t, char *err,
                      size_t errlen) {
  const char *path = ct_path("t.pb");
  write_proto(path, tp);
  return cli_tensor_read(path, t, err, errlen);
}

static void expect_tensor(const cli_tensor *t, clg_dtype dtype, int32_t rank,
                          const int64_t *shape, const void *bytes,
                          size_t nbytes) {
  cr_assert_eq(t->dtype, dtype, "dtype %d, expected %d", t->dtype, dtype);
  cr_assert_eq(t->rank, rank);
  for (int32_t i = 0; i < rank; ++i)
    cr_assert_eq(t->shape[i], shape[i]);
  cr_assert_eq(t->nbytes, nbytes);
  cr_assert_not_null(t->data);
  cr_assert_eq(memcmp(t->data, bytes, nbytes), 0, "bytes differ");
}

/* ------------------------------------------------------------- raw_data */

static const clg_dtype all_dtypes[] = {
    CLG_DTYPE_FLOAT,   CLG_DTYPE_UINT8,     CLG_DTYPE_INT8,
    CLG_DTYPE_UINT16,  CLG_DTYPE_INT16,     CLG_DTYPE_INT32,
    CLG_DTYPE_INT64,   CLG_DTYPE_BOOL,      CLG_DTYPE_FLOAT16,
    CLG_DTYPE_DOUBLE,  CLG_DTYPE_UINT32,    CLG_DTYPE_UINT64,
    CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128, CLG_DTYPE_BFLOAT16,
};

ParameterizedTestParameters(cli_pb, raw_round_trip) {
  return cr_make_param_array(clg_dtype, (void *)all_dtypes,
                             sizeof all_dtypes / sizeof all_dtypes[0]);
}

ParameterizedTest(clg_dtype *dtype, cli_pb, raw_round_trip) {
  static const int64_t shapes[][2] = {{3, 4}, {5, 0}, {0, 0}};
  static const int32_t ranks[] = {2, 2, 0};
  for (size_t s = 0; s < 3; ++s) {
    char err[512];
    cli_tensor t, back;
    cr_assert_eq(cli_tensor_alloc(&t, *dtype, ranks[s], shapes[s], err,
                                  sizeof err),
                 0, "%s", err);
    ct_fill_pattern(t.data, t.nbytes, 11u + (unsigned)*dtype);
    const char *path = ct_path("rt.pb");
    cr_assert_eq(cli_tensor_write(path, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cli_tensor_read(path, &back, err, sizeof err), 0, "%s", err);
    expect_tensor(&back, *dtype, ranks[s], shapes[s], t.data, t.nbytes);

    /* The file is a plain TensorProto with raw_data. */
    size_t len;
    unsigned char *raw = ct_read_file(path, &len);
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, raw);
    cr_assert_not_null(tp);
    cr_assert(tp->has_raw_data);
    cr_assert_eq(tp->raw_data.len, t.nbytes);
    cr_assert_eq(tp->data_type, (int32_t)*dtype);
    cr_assert_eq(tp->n_dims, (size_t)ranks[s]);
    onnx__tensor_proto__free_unpacked(tp, NULL);
    free(raw);
    cli_tensor_free(&back);
    cli_tensor_free(&t);
  }
}

/* ----------------------------------------------------------- typed fields */

Test(cli_pb, float_data) {
  float v[6] = {1.5f, -2.0f, 3.25f, 0.0f, -0.0f, 1e30f};
  int64_t dims[2] = {2, 3};
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_FLOAT;
  tp.n_dims = 2;
  tp.dims = dims;
  tp.n_float_data = 6;
  tp.float_data = v;
  char err[512];
  cli_tensor t;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_FLOAT, 2, dims, v, sizeof v);
  cli_tensor_free(&t);
}

Test(cli_pb, float_data_complex64_pairs) {
  float v[4] = {1.0f, 2.0f, -3.0f, 4.5f}; /* (1+2i), (-3+4.5i) */
  int64_t dims[1] = {2};
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_COMPLEX64;
  tp.n_dims = 1;
  tp.dims = dims;
  tp.n_float_data = 4;
  tp.float_data = v;
  char err[512];
  cli_tensor t;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_COMPLEX64, 1, dims, v, sizeof v);
  cli_tensor_free(&t);
}

Test(cli_pb, double_data_double_and_complex128) {
  double v[4] = {1.0, -2.5, 1e300, -0.0};
  int64_t dims4[1] = {4}, dims2[1] = {2};
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_DOUBLE;
  tp.n_dims = 1;
  tp.dims = dims4;
  tp.n_double_data = 4;
  tp.double_data = v;
  char err[512];
  cli_tensor t;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_DOUBLE, 1, dims4, v, sizeof v);
  cli_tensor_free(&t);
  tp.data_type = CLG_DTYPE_COMPLEX128;
  tp.dims = dims2;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_COMPLEX128, 1, dims2, v, sizeof v);
  cli_tensor_free(&t);
}

Test(cli_pb, int64_data) {
  int64_t v[3] = {INT64_MIN, -1, INT64_MAX};
  int64_t dims[1] = {3};
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_INT64;
  tp.n_dims = 1;
  tp.dims = dims;
  tp.n_int64_data = 3;
  tp.int64_data = v;
  char err[512];
  cli_tensor t;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_INT64, 1, dims, v, sizeof v);
  cli_tensor_free(&t);
}

Test(cli_pb, uint64_data_uint32_and_uint64) {
  uint64_t v[2] = {0, UINT32_MAX};
  uint64_t big[2] = {UINT64_MAX, 7};
  int64_t dims[1] = {2};
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_UINT32;
  tp.n_dims = 1;
  tp.dims = dims;
  tp.n_uint64_data = 2;
  tp.uint64_data = v;
  char err[512];
  cli_tensor t;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  uint32_t want32[2] = {0, UINT32_MAX};
  expect_tensor(&t, CLG_DTYPE_UINT32, 1, dims, want32, sizeof want32);
  cli_tensor_free(&t);
  tp.data_type = CLG_DTYPE_UINT64;
  tp.uint64_data = big;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_UINT64, 1, dims, big, sizeof big);
  cli_tensor_free(&t);
}

Test(cli_pb, int32_data_all_narrow_types) {
  int64_t dims[1] = {3};
  char err[512];
  cli_tensor t;
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.n_dims = 1;
  tp.dims = dims;
  tp.n_int32_data = 3;

  int32_t i32[3] = {INT32_MIN, -5, INT32_MAX};
  tp.data_type = CLG_DTYPE_INT32;
  tp.int32_data = i32;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_INT32, 1, dims, i32, sizeof i32);
  cli_tensor_free(&t);

  int32_t v16[3] = {-32768, -1, 32767};
  int16_t w16[3] = {-32768, -1, 32767};
  tp.data_type = CLG_DTYPE_INT16;
  tp.int32_data = v16;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_INT16, 1, dims, w16, sizeof w16);
  cli_tensor_free(&t);

  int32_t v8[3] = {-128, 0, 127};
  int8_t w8[3] = {-128, 0, 127};
  tp.data_type = CLG_DTYPE_INT8;
  tp.int32_data = v8;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_INT8, 1, dims, w8, sizeof w8);
  cli_tensor_free(&t);

  int32_t vu16[3] = {0, 1, 65535};
  uint16_t wu16[3] = {0, 1, 65535};
  tp.data_type = CLG_DTYPE_UINT16;
  tp.int32_data = vu16;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_UINT16, 1, dims, wu16, sizeof wu16);
  cli_tensor_free(&t);

  int32_t vu8[3] = {0, 128, 255};
  uint8_t wu8[3] = {0, 128, 255};
  tp.data_type = CLG_DTYPE_UINT8;
  tp.int32_data = vu8;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_UINT8, 1, dims, wu8, sizeof wu8);
  cli_tensor_free(&t);

  int32_t vb[3] = {1, 0, 1};
  uint8_t wb[3] = {1, 0, 1};
  tp.data_type = CLG_DTYPE_BOOL;
  tp.int32_data = vb;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_BOOL, 1, dims, wb, sizeof wb);
  cli_tensor_free(&t);

  /* float16 1.0 = 0x3c00, -2.0 = 0xc000, +inf = 0x7c00 as bit patterns. */
  int32_t vh[3] = {0x3c00, 0xc000, 0x7c00};
  uint16_t wh[3] = {0x3c00, 0xc000, 0x7c00};
  tp.data_type = CLG_DTYPE_FLOAT16;
  tp.int32_data = vh;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_FLOAT16, 1, dims, wh, sizeof wh);
  cli_tensor_free(&t);

  /* bfloat16 1.0 = 0x3f80, -2.0 = 0xc000, pi ~ 0x4049. */
  int32_t vbf[3] = {0x3f80, 0xc000, 0x4049};
  uint16_t wbf[3] = {0x3f80, 0xc000, 0x4049};
  tp.data_type = CLG_DTYPE_BFLOAT16;
  tp.int32_data = vbf;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_BFLOAT16, 1, dims, wbf, sizeof wbf);
  cli_tensor_free(&t);
}

Test(cli_pb, scalar_and_empty_without_data) {
  char err[512];
  cli_tensor t;
  int64_t v = 42;
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_INT64;
  tp.n_int64_data = 1;
  tp.int64_data = &v;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_INT64, 0, NULL, &v, sizeof v);
  cli_tensor_free(&t);

  int64_t dims[2] = {0, 3};
  Onnx__TensorProto e = ONNX__TENSOR_PROTO__INIT;
  e.has_data_type = 1;
  e.data_type = CLG_DTYPE_FLOAT;
  e.n_dims = 2;
  e.dims = dims;
  cr_assert_eq(read_proto(&e, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_FLOAT, 2, dims, "", 0);
  cli_tensor_free(&t);
}

Test(cli_pb, reads_onnx_test_data_style_file) {
  /* What onnx.numpy_helper.from_array writes: dims, data_type, name,
   * raw_data. */
  float v[4] = {1, 2, 3, 4};
  int64_t dims[2] = {2, 2};
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_FLOAT;
  tp.n_dims = 2;
  tp.dims = dims;
  tp.name = (char *)"x";
  tp.has_raw_data = 1;
  tp.raw_data.len = sizeof v;
  tp.raw_data.data = (uint8_t *)v;
  char err[512];
  cli_tensor t;
  cr_assert_eq(read_proto(&tp, &t, err, sizeof err), 0, "%s", err);
  expect_tensor(&t, CLG_DTYPE_FLOAT, 2, dims, v, sizeof v);
  cli_tensor_free(&t);
}

/* --------------------------------------------------------------- hostile */

static void expect_proto_reject(const Onnx__TensorProto *tp,
                                const char *needle) {
  char err[1024] = "";
  cli_tensor t;
  memset(&t, 0x5a, sizeof t);
  cr_assert_eq(read_proto(tp, &t, err, sizeof err), -1,
               "expected rejection containing '%s'", needle);
  cr_assert(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err,
            needle);
  cr_assert_null(t.data);
}

Test(cli_pb, rejects_count_mismatch) {
  float v[5] = {0};
  int64_t dims[2] = {2, 3};
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_FLOAT;
  tp.n_dims = 2;
  tp.dims = dims;
  tp.n_float_data = 5;
  tp.float_data = v;
  expect_proto_reject(&tp, "needs 6 values but float_data has 5");
  tp.data_type = CLG_DTYPE_COMPLEX64;
  expect_proto_reject(&tp, "needs 12 values but float_data has 5");
}

Test(cli_pb, rejects_raw_size_mismatch) {
  unsigned char raw[10] = {0};
  int64_t dims[1] = {3};
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_INT32;
  tp.n_dims = 1;
  tp.dims = dims;
  tp.has_raw_data = 1;
  tp.raw_data.len = sizeof raw;
  tp.raw_data.data = raw;
  expect_proto_reject(&tp, "needs 12 bytes but raw_data has 10");
}

Test(cli_pb, rejects_petabyte_dims) {
  unsigned char raw[8] = {0};
  int64_t dims[2] = {1 << 25, 1 << 25}; /* 2^50 doubles = 8 PiB */
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_DOUBLE;
  tp.n_dims = 2;
  tp.dims = dims;
  tp.has_raw_data = 1;
  tp.raw_data.len = sizeof raw;
  tp.raw_data.data = raw;
  expect_proto_reject(&tp, "needs 9007199254740992 bytes but raw_data has 8");
  tp.has_raw_data = 0;
  expect_proto_reject(&tp, "has no data");
  int64_t huge[3] = {INT64_MAX, 2, 2};
  tp.n_dims = 3;
  tp.dims = huge;
  expect_proto_reject(&tp, "more elements than fit in 64 bits");
  int64_t neg[1] = {-4};
  tp.n_dims = 1;
  tp.dims = neg;
  expect_proto_reject(&tp, "negative");
}

Test(cli_pb, rejects_rank_above_max) {
  int64_t dims[CLG_MAX_RANK + 1];
  for (int i = 0; i <= CLG_MAX_RANK; ++i)
    dims[i] = 1;
  float v = 0;
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_FLOAT;
  tp.n_dims = CLG_MAX_RANK + 1;
  tp.dims = dims;
  tp.n_float_data = 1;
  tp.float_data = &v;
  expect_proto_reject(&tp, "rank 17 exceeds the maximum of 16");
}

Test(cli_pb, rejects_bad_types_and_fields) {
  float f[2] = {0};
  int64_t i64[2] = {0};
  int32_t i32[2] = {0, 300};
  uint64_t u64[2] = {0, (uint64_t)UINT32_MAX + 1};
  int64_t dims[1] = {2};
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.n_dims = 1;
  tp.dims = dims;
  tp.n_float_data = 2;
  tp.float_data = f;
  expect_proto_reject(&tp, "no data_type");
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_STRING;
  expect_proto_reject(&tp, "string tensors are not supported");
  tp.data_type = 99;
  expect_proto_reject(&tp, "unsupported TensorProto data_type 99");
  tp.data_type = CLG_DTYPE_INT64;
  expect_proto_reject(&tp, "int64 tensor cannot hold its data in float_data");
  tp.n_int64_data = 2;
  tp.int64_data = i64;
  expect_proto_reject(&tp, "both float_data and int64_data");
  tp.n_float_data = 0;
  tp.has_raw_data = 1;
  tp.raw_data.len = 16;
  tp.raw_data.data = (uint8_t *)i64;
  expect_proto_reject(&tp, "both raw_data and int64_data");

  Onnx__TensorProto n = ONNX__TENSOR_PROTO__INIT;
  n.has_data_type = 1;
  n.data_type = CLG_DTYPE_UINT8;
  n.n_dims = 1;
  n.dims = dims;
  n.n_int32_data = 2;
  n.int32_data = i32;
  expect_proto_reject(&n, "int32_data[1] = 300 is out of range for uint8");
  Onnx__TensorProto u = ONNX__TENSOR_PROTO__INIT;
  u.has_data_type = 1;
  u.data_type = CLG_DTYPE_UINT32;
  u.n_dims = 1;
  u.dims = dims;
  u.n_uint64_data = 2;
  u.uint64_data = u64;
  expect_proto_reject(&u, "out of range for uint32");
  u.has_data_location = 1;
  u.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  expect_proto_reject(&u, "external data");
}

Test(cli_pb, rejects_garbage_and_truncation) {
  const char *path = ct_path("g.pb");
  char err[1024];
  cli_tensor t;
  /* Field 1 (dims) as a length-delimited field claiming 2^60 bytes. */
  ct_write_file(path, "\x0a\x80\x80\x80\x80\x80\x80\x80\x80\x10\x01", 11);
  cr_assert_eq(cli_tensor_read(path, &t, err, sizeof err), -1);
  cr_assert(strstr(err, "not a valid ONNX TensorProto") != NULL, "%s", err);
  ct_write_file(path, "\xff\xff\xff\xff\xff\xff", 6);
  cr_assert_eq(cli_tensor_read(path, &t, err, sizeof err), -1);
  cr_assert(strstr(err, "not a valid ONNX TensorProto") != NULL, "%s", err);
  ct_write_file(path, "", 0);
  cr_assert_eq(cli_tensor_read(path, &t, err, sizeof err), -1);
  cr_assert(strstr(err, "no data_type") != NULL, "%s", err);

  /* A valid message cut at every length: never a crash, always -1 or a
   * consistent tensor. */
  float v[6] = {1, 2, 3, 4, 5, 6};
  int64_t dims[2] = {2, 3};
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  tp.has_data_type = 1;
  tp.data_type = CLG_DTYPE_FLOAT;
  tp.n_dims = 2;
  tp.dims = dims;
  tp.has_raw_data = 1;
  tp.raw_data.len = sizeof v;
  tp.raw_data.data = (uint8_t *)v;
  size_t n = onnx__tensor_proto__get_packed_size(&tp);
  unsigned char *buf = malloc(n);
  onnx__tensor_proto__pack(&tp, buf);
  for (size_t cut = 0; cut < n; ++cut) {
    int rc = onnx_tensor_parse(buf, cut, &t, err, sizeof err);
    if (rc == 0) {
      size_t want = 4;
      for (int32_t i = 0; i < t.rank; ++i)
        want *= (size_t)t.shape[i];
      cr_assert_eq(t.nbytes, want);
      cli_tensor_free(&t);
    }
  }
  free(buf);
}

/* ----------------------------------------------------------------- model */

Test(cli_pb, model_and_axis_attribute) {
  Onnx__AttributeProto axis = ONNX__ATTRIBUTE_PROTO__INIT;
  axis.name = (char *)"axis";
  axis.has_type = 1;
  axis.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  axis.has_i = 1;
  axis.i = -2;
  Onnx__AttributeProto *attrs[1] = {&axis};
  Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
  node.op_type = (char *)"Gather";
  node.n_attribute = 1;
  node.attribute = attrs;
  Onnx__NodeProto *nodes[1] = {&node};
  Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
  graph.name = (char *)"g";
  graph.n_node = 1;
  graph.node = nodes;
  Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
  model.has_ir_version = 1;
  model.ir_version = 8;
  model.graph = &graph;
  size_t n = onnx__model_proto__get_packed_size(&model);
  unsigned char *buf = malloc(n);
  onnx__model_proto__pack(&model, buf);
  ct_write_file(ct_path("model.onnx"), buf, n);
  free(buf);

  char err[512];
  Onnx__ModelProto *m = NULL;
  cr_assert_eq(onnx_model_read(ct_path("model.onnx"), &m, err, sizeof err), 0,
               "%s", err);
  cr_assert_not_null(m->graph);
  cr_assert_eq(m->graph->n_node, 1);
  cr_assert_str_eq(m->graph->node[0]->op_type, "Gather");
  int64_t a = 0;
  cr_assert_eq(onnx_node_int_attr(m->graph->node[0], "axis", 0, &a, err,
                                  sizeof err),
               0);
  cr_assert_eq(a, -2);
  cr_assert_eq(onnx_node_int_attr(m->graph->node[0], "batch_dims", 7, &a, err,
                                  sizeof err),
               0);
  cr_assert_eq(a, 7, "absent attribute gives the fallback");
  onnx_model_free(m);

  ct_write_file(ct_path("bad.onnx"), "\x0a\xff\xff\xff\xff\x0f", 6);
  cr_assert_eq(onnx_model_read(ct_path("bad.onnx"), &m, err, sizeof err), -1);
  cr_assert(strstr(err, "not a valid ONNX model") != NULL, "%s", err);
  cr_assert_null(m);
}
