/*
 * `clgather onnx-test` on models that keep their tensors inside: graph
 * initializers (raw_data and every typed field), external data files next
 * to model.onnx, Constant nodes, graph inputs that default to an
 * initializer (as PyTorch exports nn.Embedding: a Gather whose data is an
 * initializer), and graphs it skips. The models are written with
 * protobuf-c's generated code (onnx_model_writer.c); expected outputs come
 * from the plain-C references (tests/support), compared byte for byte by
 * the runner, never from the library.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_testutil.h"
#include "onnx_model_writer.h"
#include "reference/ref_scatter.h"
#include "reference/reference.h"

TestSuite(cli_onnx_models, .fini = mw_cleanup, .timeout = 120);

/* ------------------------------------------------------- models that run */

/* As PyTorch exports nn.Embedding (opset 6, IR 3): graph inputs "0"
 * (indices) and "1" (the weight, also an initializer), Gather("1", "0").
 * The data set supplies only the indices; supplying input_1.pb as well
 * replaces the initializer (ONNX: initializers are default values). */
Test(cli_onnx_models, embedding_weight_is_an_initializer) {
  const int64_t wshape[2] = {6, 4}, ishape[2] = {2, 3};
  const int64_t iv[6] = {5, 0, 2, 2, -1, 3};
  cli_tensor w, w2, idx, want, want2;
  mw_tensor(&w, CLG_DTYPE_FLOAT, 2, wshape, 11);
  mw_tensor(&w2, CLG_DTYPE_FLOAT, 2, wshape, 12);
  mw_indices(&idx, CLG_DTYPE_INT64, 2, ishape, iv);
  mw_ref_gather(&w, &idx, 0, &want);
  mw_ref_gather(&w2, &idx, 0, &want2);
  cr_assert_neq(memcmp(want.data, want2.data, want.nbytes), 0);

  const char *dir = mw_case_dir("test_embedding_made");
  mw_model m;
  mw_start(&m, 6);
  mw_tproto init;
  mw_tp_raw(&init, "1", &w);
  mw_input(&m, "0");
  mw_input(&m, "1");
  mw_init(&m, &init);
  mw_node(&m, "Gather", "2", "1", "0", NULL);
  mw_output(&m, "2");
  mw_write(&m, dir);
  mw_write_pb(dir, "input", 0, &idx, NULL);
  mw_write_pb(dir, "output", 0, &want, NULL);

  char *out;
  int rc = mw_run_dirs(&out, &dir, 1);
  cr_assert_eq(rc, 0, "%s", out);
  cr_assert_str_eq(out, "PASS test_embedding_made\n"
                        "1 passed, 0 failed, 0 skipped\n");
  free(out);

  /* input_1.pb supplies the weight: the initializer is not used. */
  mw_write_pb(dir, "input", 1, &w2, NULL);
  rc = mw_run_dirs(&out, &dir, 1);
  cr_assert_eq(rc, 1, "%s", out);
  cr_assert(strstr(out, "FAIL test_embedding_made: test_data_set_0: output 0 "
                        "differs from the expected output at element ") !=
                NULL,
            "%s", out);
  free(out);
  mw_write_pb(dir, "output", 0, &want2, NULL);
  rc = mw_run_dirs(&out, &dir, 1);
  cr_assert_eq(rc, 0, "%s", out);
  free(out);

  mw_tp_free(&init);
  cli_tensor_free(&want2);
  cli_tensor_free(&want);
  cli_tensor_free(&idx);
  cli_tensor_free(&w2);
  cli_tensor_free(&w);
}

/* Data and indices both initializers, in every typed field and in
 * raw_data, for every fixed-size element type; no graph input at all. */
Test(cli_onnx_models, initializers_in_typed_and_raw_fields) {
  static const clg_dtype types[] = {
      CLG_DTYPE_FLOAT,  CLG_DTYPE_UINT8,     CLG_DTYPE_INT8,
      CLG_DTYPE_UINT16, CLG_DTYPE_INT16,     CLG_DTYPE_INT32,
      CLG_DTYPE_INT64,  CLG_DTYPE_BOOL,      CLG_DTYPE_FLOAT16,
      CLG_DTYPE_DOUBLE, CLG_DTYPE_UINT32,    CLG_DTYPE_UINT64,
      CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128, CLG_DTYPE_BFLOAT16};
  enum { N = sizeof types / sizeof types[0] };
  const char *dirs[2 * N];
  const int64_t dshape[2] = {3, 5}, ishape[1] = {4};
  const int64_t iv[4] = {4, -5, 0, 2};
  for (size_t c = 0; c < 2 * N; ++c) {
    clg_dtype dt = types[c % N];
    int typed = c < N;
    clg_dtype it = c % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
    cli_tensor data, idx, want;
    mw_tensor(&data, dt, 2, dshape, 30 + (unsigned)c);
    mw_indices(&idx, it, 1, ishape, iv);
    mw_ref_gather(&data, &idx, 1, &want);
    char name[64];
    snprintf(name, sizeof name, "test_%s_%s", typed ? "typed" : "raw",
             clg_dtype_name(dt));
    dirs[c] = mw_case_dir(name);
    mw_model m;
    mw_start(&m, 13);
    mw_tproto pd, pi;
    (typed ? mw_tp_typed : mw_tp_raw)(&pd, "data", &data);
    (typed ? mw_tp_typed : mw_tp_raw)(&pi, "indices", &idx);
    mw_init(&m, &pd);
    mw_init(&m, &pi);
    mw_node(&m, "Gather", "y", "data", "indices", NULL);
    mw_axis(&m, 1);
    mw_output(&m, "y");
    mw_write(&m, dirs[c]);
    mw_write_pb(dirs[c], "output", 0, &want, "y");
    mw_tp_free(&pi);
    mw_tp_free(&pd);
    cli_tensor_free(&want);
    cli_tensor_free(&idx);
    cli_tensor_free(&data);
  }
  char *out;
  int rc = mw_run_dirs(&out, dirs, 2 * N);
  cr_assert_eq(rc, 0, "%s", out);
  cr_assert(strstr(out, "\n30 passed, 0 failed, 0 skipped\n") != NULL, "%s",
            out);
  cr_assert(strstr(out, "PASS test_typed_bfloat16\n") != NULL, "%s", out);
  free(out);

  /* The runner compares: a wrong byte in one typed initializer fails. */
  mw_model m;
  mw_start(&m, 13);
  cli_tensor data, idx, want;
  mw_tensor(&data, CLG_DTYPE_INT16, 2, dshape, 77);
  mw_indices(&idx, CLG_DTYPE_INT64, 1, ishape, iv);
  mw_ref_gather(&data, &idx, 1, &want);
  ((unsigned char *)data.data)[9] ^= 0x10; /* element 4: indices[0] */
  mw_tproto pd, pi;
  mw_tp_typed(&pd, "data", &data);
  mw_tp_typed(&pi, "indices", &idx);
  mw_init(&m, &pd);
  mw_init(&m, &pi);
  mw_node(&m, "Gather", "y", "data", "indices", NULL);
  mw_axis(&m, 1);
  mw_output(&m, "y");
  const char *dir = mw_case_dir("test_typed_wrong");
  mw_write(&m, dir);
  mw_write_pb(dir, "output", 0, &want, "y");
  rc = mw_run_dirs(&out, &dir, 1);
  cr_assert_eq(rc, 1, "%s", out);
  cr_assert(strstr(out, "output 0 differs from the expected output at "
                        "element 0 ") != NULL, "%s", out);
  free(out);
  mw_tp_free(&pi);
  mw_tp_free(&pd);
  cli_tensor_free(&want);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}

/* Data in an external file at an offset, with explicit length, in a
 * sub-folder; indices in a Constant node whose tensor is external too (the
 * whole file, no offset or length). */
Test(cli_onnx_models, external_data_files) {
  const int64_t dshape[2] = {4, 6}, ishape[1] = {3};
  const int64_t iv[3] = {3, -4, 1};
  cli_tensor data, idx, want;
  mw_tensor(&data, CLG_DTYPE_FLOAT, 2, dshape, 41);
  mw_indices(&idx, CLG_DTYPE_INT32, 1, ishape, iv);
  mw_ref_gather(&data, &idx, 0, &want);

  const char *dir = mw_case_dir("test_external_made");
  char p[1200];
  snprintf(p, sizeof p, "%s/weights", dir);
  cr_assert_eq(mkdir(p, 0777), 0);
  unsigned char file[8 + 96 + 5];
  ct_fill_pattern(file, sizeof file, 99);
  memcpy(file + 8, data.data, 96);
  mw_write_in(dir, "weights/w.bin", file, sizeof file);
  mw_write_in(dir, "idx.bin", idx.data, idx.nbytes);

  mw_model m;
  mw_start(&m, 13);
  mw_tproto pd, pc;
  mw_tp_external(&pd, "W", &data, "weights/w.bin", "8", "96");
  mw_tp_external(&pc, NULL, &idx, "idx.bin", NULL, NULL);
  mw_init(&m, &pd);
  mw_node(&m, "Constant", "c", NULL, NULL, NULL);
  mw_value(&m, &pc.tp);
  mw_node(&m, "Gather", "y", "W", "c", NULL);
  mw_output(&m, "y");
  mw_write(&m, dir);
  mw_write_pb(dir, "output", 0, &want, "y");

  char *out;
  int rc = mw_run_dirs(&out, &dir, 1);
  cr_assert_eq(rc, 0, "%s", out);
  cr_assert_str_eq(out, "PASS test_external_made\n"
                        "1 passed, 0 failed, 0 skipped\n");
  free(out);

  /* The bytes are read from the offset: one changed byte there fails. */
  file[8 + 4 * 18] ^= 0x40; /* data[3, 0] = output element 0 */
  mw_write_in(dir, "weights/w.bin", file, sizeof file);
  rc = mw_run_dirs(&out, &dir, 1);
  cr_assert_eq(rc, 1, "%s", out);
  cr_assert(strstr(out, "differs from the expected output at element 0 ") !=
                NULL, "%s", out);
  free(out);
  mw_tp_free(&pc);
  mw_tp_free(&pd);
  cli_tensor_free(&want);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}

/* Constant nodes (value, value_ints) feeding Gather, GatherElements and
 * ScatterElements; Gather at opset 1; input files bound by name. */
Test(cli_onnx_models, constant_nodes_and_named_inputs) {
  const char *dirs[5];
  char *out;
  const int64_t dshape[2] = {3, 4};
  cli_tensor data, dd, idx, want;
  mw_model m;
  mw_tproto pc, pd, pu;

  /* Gather(data: input file, Constant value int32 [2, 2]), axis -1. */
  const int64_t is2[2] = {2, 2}, iv[4] = {3, -1, 0, 1};
  mw_tensor(&data, CLG_DTYPE_UINT16, 2, dshape, 51);
  mw_indices(&idx, CLG_DTYPE_INT32, 2, is2, iv);
  mw_ref_gather(&data, &idx, -1, &want);
  dirs[0] = mw_case_dir("test_const_value");
  mw_start(&m, 13);
  mw_input(&m, "data");
  mw_tp_typed(&pc, "k", &idx);
  mw_node(&m, "Constant", "k", NULL, NULL, NULL);
  mw_value(&m, &pc.tp);
  mw_node(&m, "Gather", "y", "data", "k", NULL);
  mw_axis(&m, -1);
  mw_output(&m, "y");
  mw_write(&m, dirs[0]);
  mw_write_pb(dirs[0], "input", 0, &data, "data");
  mw_write_pb(dirs[0], "output", 0, &want, "y");
  mw_tp_free(&pc);
  cli_tensor_free(&want);
  cli_tensor_free(&idx);

  /* Gather at opset 1 (IR 3), Constant value_ints, double initializer. */
  const int64_t is1[1] = {3}, iv1[3] = {2, 0, 2};
  mw_tensor(&dd, CLG_DTYPE_DOUBLE, 2, dshape, 52);
  mw_indices(&idx, CLG_DTYPE_INT64, 1, is1, iv1);
  mw_ref_gather(&dd, &idx, 0, &want);
  dirs[1] = mw_case_dir("test_const_ints_opset1");
  mw_start(&m, 1);
  mw_tp_typed(&pd, "D", &dd);
  mw_init(&m, &pd);
  mw_node(&m, "Constant", "k", NULL, NULL, NULL);
  Onnx__AttributeProto *a =
      mw_attr(&m, "value_ints", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  a->n_ints = 3;
  a->ints = (int64_t *)iv1;
  mw_node(&m, "Gather", "y", "D", "k", NULL);
  mw_output(&m, "y");
  mw_write(&m, dirs[1]);
  mw_write_pb(dirs[1], "output", 0, &want, "y");
  mw_tp_free(&pd);
  cli_tensor_free(&want);

  /* GatherElements(data initializer, Constant indices), axis 0. */
  const int64_t ge_shape[2] = {2, 4}, gev[8] = {0, 2, -1, 1, 2, 2, 0, -3};
  cli_tensor_free(&idx);
  mw_indices(&idx, CLG_DTYPE_INT64, 2, ge_shape, gev);
  mw_tensor(&want, CLG_DTYPE_UINT16, 2, ge_shape, 0);
  cr_assert_eq(ref_gather_elements(data.data, 2, 2, data.shape, idx.data,
                                   REF_INDEX_I64, 2, idx.shape, 0, want.data),
               0);
  dirs[2] = mw_case_dir("test_const_gather_elements");
  mw_start(&m, 13);
  mw_tp_raw(&pd, "D", &data);
  mw_init(&m, &pd);
  mw_tp_raw(&pc, NULL, &idx);
  mw_node(&m, "Constant", "k", NULL, NULL, NULL);
  mw_value(&m, &pc.tp);
  mw_node(&m, "GatherElements", "y", "D", "k", NULL);
  mw_axis(&m, 0);
  mw_output(&m, "y");
  mw_write(&m, dirs[2]);
  mw_write_pb(dirs[2], "output", 0, &want, "y");
  mw_tp_free(&pc);
  cli_tensor_free(&want);

  /* ScatterElements(data input, Constant indices, updates initializer),
   * axis 1, no repeated target. */
  const int64_t sev[8] = {1, 3, 0, 2, -1, 0, 2, 1};
  cli_tensor upd;
  mw_tensor(&upd, CLG_DTYPE_UINT16, 2, ge_shape, 53);
  mw_tensor(&want, CLG_DTYPE_UINT16, 2, dshape, 0);
  memcpy(want.data, data.data, data.nbytes);
  int64_t bad = -1, first = -1;
  cli_tensor_free(&idx);
  mw_indices(&idx, CLG_DTYPE_INT64, 2, ge_shape, sev);
  cr_assert_eq(ref_scatter_elements(want.data, CLG_DTYPE_UINT16, 2,
                                    data.shape, idx.data, REF_INDEX_I64,
                                    idx.shape, upd.data, 1, REF_RED_NONE, 0,
                                    &bad, &first), REF_OK);
  dirs[3] = mw_case_dir("test_const_scatter");
  mw_start(&m, 13);
  mw_input(&m, "data");
  mw_tp_raw(&pu, "U", &upd);
  mw_init(&m, &pu);
  mw_tp_raw(&pc, NULL, &idx);
  mw_node(&m, "Constant", "k", NULL, NULL, NULL);
  mw_value(&m, &pc.tp);
  mw_node(&m, "ScatterElements", "y", "data", "k", "U");
  mw_axis(&m, 1);
  mw_output(&m, "y");
  mw_write(&m, dirs[3]);
  mw_write_pb(dirs[3], "input", 0, &data, NULL);
  mw_write_pb(dirs[3], "output", 0, &want, NULL);
  mw_tp_free(&pc);
  mw_tp_free(&pu);
  mw_tp_free(&pd);
  cli_tensor_free(&want);

  /* By name: input_0.pb is "indices", input_1.pb "data" (Gather opset 1). */
  cli_tensor_free(&idx);
  mw_indices(&idx, CLG_DTYPE_INT64, 1, is1, iv1);
  mw_ref_gather(&data, &idx, 0, &want);
  dirs[4] = mw_case_dir("test_inputs_by_name");
  mw_start(&m, 1);
  mw_input(&m, "data");
  mw_input(&m, "indices");
  mw_node(&m, "Gather", "y", "data", "indices", NULL);
  mw_output(&m, "y");
  mw_write(&m, dirs[4]);
  mw_write_pb(dirs[4], "input", 0, &idx, "indices");
  mw_write_pb(dirs[4], "input", 1, &data, "data");
  mw_write_pb(dirs[4], "output", 0, &want, "y");

  int rc = mw_run_dirs(&out, dirs, 5);
  cr_assert_eq(rc, 0, "%s", out);
  cr_assert_str_eq(out, "PASS test_const_value\n"
                        "PASS test_const_ints_opset1\n"
                        "PASS test_const_gather_elements\n"
                        "PASS test_const_scatter\n"
                        "PASS test_inputs_by_name\n"
                        "5 passed, 0 failed, 0 skipped\n");
  free(out);
  cli_tensor_free(&want);
  cli_tensor_free(&upd);
  cli_tensor_free(&idx);
  cli_tensor_free(&dd);
  cli_tensor_free(&data);
}

/* ---------------------------------------------------------------- skipped */

/* Graphs with other nodes are skipped, naming the op type that stops them. */
Test(cli_onnx_models, other_nodes_are_skipped_with_the_reason) {
  const int64_t shape[1] = {3}, iv[2] = {0, 2}, ishape[1] = {2};
  cli_tensor idx;
  mw_indices(&idx, CLG_DTYPE_INT64, 1, ishape, iv);
  (void)shape;
  mw_tproto pk;
  mw_tp_raw(&pk, "k", &idx);
  const char *dirs[4];
  mw_model m;

  dirs[0] = mw_case_dir("test_skip_relu");
  mw_start(&m, 13);
  mw_input(&m, "x");
  mw_init(&m, &pk);
  mw_node(&m, "Relu", "r", "x", NULL, NULL);
  mw_node(&m, "Gather", "y", "r", "k", NULL);
  mw_output(&m, "y");
  mw_write(&m, dirs[0]);

  dirs[1] = mw_case_dir("test_skip_two");
  mw_start(&m, 13);
  mw_input(&m, "x");
  mw_init(&m, &pk);
  mw_node(&m, "Gather", "g", "x", "k", NULL);
  mw_node(&m, "Gather", "y", "g", "k", NULL);
  mw_output(&m, "y");
  mw_write(&m, dirs[1]);

  dirs[2] = mw_case_dir("test_skip_domain");
  mw_start(&m, 13);
  mw_input(&m, "x");
  mw_init(&m, &pk);
  mw_node(&m, "Gather", "y", "x", "k", NULL)->domain = (char *)"com.example";
  mw_output(&m, "y");
  mw_write(&m, dirs[2]);

  dirs[3] = mw_case_dir("test_skip_constants");
  mw_start(&m, 13);
  mw_node(&m, "Constant", "y", NULL, NULL, NULL);
  mw_value(&m, &pk.tp);
  mw_output(&m, "y");
  mw_write(&m, dirs[3]);

  char *out;
  int rc = mw_run_dirs(&out, dirs, 4);
  cr_assert_eq(rc, 1, "only skips: nothing passed; %s", out);
  cr_assert_str_eq(out,
                   "SKIP test_skip_relu: graph has op Relu besides Gather; "
                   "only Constant nodes may feed it\n"
                   "SKIP test_skip_two: graph has 2 nodes of the family; "
                   "only one is run\n"
                   "SKIP test_skip_domain: unsupported op Gather (domain "
                   "com.example)\n"
                   "SKIP test_skip_constants: graph has only Constant nodes\n"
                   "0 passed, 0 failed, 4 skipped\n");
  free(out);
  mw_tp_free(&pk);
  cli_tensor_free(&idx);
}

