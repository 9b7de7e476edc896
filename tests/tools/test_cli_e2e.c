/* The clgather binary end to end: exit codes, messages, atomic output, and
 * gather results compared byte for byte with a plain-C reference computed
 * here (not with the library). CLGATHER_CLI_PATH is the built binary. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_testutil.h"
#include "npy.h"
#include "onnx_pb.h"
#include "tensor_file.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif

TestSuite(cli_e2e, .fini = ct_cleanup, .timeout = 120);

#define CLI ((char *)CLGATHER_CLI_PATH)

/* Run the CLI with up to 10 arguments (NULL-terminated list). */
static int cli(char **out, char **err, const char *a0, const char *a1,
               const char *a2, const char *a3, const char *a4, const char *a5,
               const char *a6, const char *a7) {
  char *argv[10] = {CLI,       (char *)a0, (char *)a1, (char *)a2, (char *)a3,
                    (char *)a4, (char *)a5, (char *)a6, (char *)a7, NULL};
  return ct_run(argv, out, err);
}
#define CLI0(o, e) cli(o, e, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
#define CLI1(o, e, a) cli(o, e, a, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
#define CLI2(o, e, a, b) cli(o, e, a, b, NULL, NULL, NULL, NULL, NULL, NULL)
#define CLI3(o, e, a, b, c) cli(o, e, a, b, c, NULL, NULL, NULL, NULL, NULL)
#define CLI4(o, e, a, b, c, d) cli(o, e, a, b, c, d, NULL, NULL, NULL, NULL)
#define CLI5(o, e, a, b, c, d, f) cli(o, e, a, b, c, d, f, NULL, NULL, NULL)
#define CLI6(o, e, a, b, c, d, f, g) cli(o, e, a, b, c, d, f, g, NULL, NULL)
#define CLI7(o, e, a, b, c, d, f, g, h) cli(o, e, a, b, c, d, f, g, h, NULL)

/* Plain-C ONNX Gather reference on bytes. */
static void reference_gather(const cli_tensor *data, const cli_tensor *idx,
                             int64_t axis, cli_tensor *out) {
  if (axis < 0)
    axis += data->rank;
  int64_t shape[CLG_MAX_RANK];
  int32_t rank = 0;
  for (int32_t i = 0; i < axis; ++i)
    shape[rank++] = data->shape[i];
  for (int32_t i = 0; i < idx->rank; ++i)
    shape[rank++] = idx->shape[i];
  for (int32_t i = (int32_t)axis + 1; i < data->rank; ++i)
    shape[rank++] = data->shape[i];
  char err[256];
  cr_assert_eq(cli_tensor_alloc(out, data->dtype, rank, shape, err, sizeof err),
               0, "%s", err);
  size_t es = clg_dtype_size(data->dtype);
  int64_t outer = 1, inner = 1, n_idx = 1, s = data->shape[axis];
  for (int32_t i = 0; i < axis; ++i)
    outer *= data->shape[i];
  for (int32_t i = (int32_t)axis + 1; i < data->rank; ++i)
    inner *= data->shape[i];
  for (int32_t i = 0; i < idx->rank; ++i)
    n_idx *= idx->shape[i];
  size_t row = (size_t)inner * es;
  unsigned char *dst = out->data;
  const unsigned char *src = data->data;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < n_idx; ++j) {
      int64_t k = idx->dtype == CLG_DTYPE_INT64
                      ? ((const int64_t *)idx->data)[j]
                      : ((const int32_t *)idx->data)[j];
      if (k < 0)
        k += s;
      memcpy(dst + ((size_t)(o * n_idx + j)) * row,
             src + ((size_t)(o * s + k)) * row, row);
    }
  }
}

static void make_tensor(cli_tensor *t, clg_dtype dtype, int32_t rank,
                        const int64_t *shape, unsigned seed) {
  char err[256];
  cr_assert_eq(cli_tensor_alloc(t, dtype, rank, shape, err, sizeof err), 0,
               "%s", err);
  ct_fill_pattern(t->data, t->nbytes, seed);
}

static void save(const char *path, const cli_tensor *t) {
  char err[256];
  cr_assert_eq(cli_tensor_write(path, t, err, sizeof err), 0, "%s", err);
}

static void expect_same(const char *path, const cli_tensor *want) {
  char err[512];
  cli_tensor got;
  cr_assert_eq(cli_tensor_read(path, &got, err, sizeof err), 0, "%s", err);
  cr_assert_eq(got.dtype, want->dtype);
  cr_assert_eq(got.rank, want->rank);
  for (int32_t i = 0; i < got.rank; ++i)
    cr_assert_eq(got.shape[i], want->shape[i], "dim %d", i);
  cr_assert_eq(got.nbytes, want->nbytes);
  cr_assert_eq(memcmp(got.data, want->data, got.nbytes), 0,
               "output bytes differ from the reference");
  cli_tensor_free(&got);
}

/* ------------------------------------------------------------ usage: 2 */

Test(cli_e2e, usage_errors_exit_2) {
  char *out, *err;
  cr_assert_eq(CLI0(NULL, &err), 2);
  /* one line, pointing to the help, never the whole help */
  cr_assert_str_eq(err, "clgather: missing command; try 'clgather --help'\n");
  free(err);
  cr_assert_eq(CLI1(NULL, &err, "frobnicate"), 2);
  cr_assert(strstr(err, "unknown command 'frobnicate'") != NULL, "%s", err);
  free(err);
  cr_assert_eq(CLI5(NULL, &err, "gather", "--bogus", "a.npy", "b.npy", "-o"),
               2);
  cr_assert(strstr(err, "unknown option '--bogus'") != NULL, "%s", err);
  free(err);
  cr_assert_eq(CLI3(NULL, &err, "gather", "a.npy", "b.npy"), 2);
  cr_assert(strstr(err, "-o OUT") != NULL, "%s", err);
  free(err);
  cr_assert_eq(CLI4(NULL, &err, "gather", "a.npy", "b.npy", "-o"), 2);
  cr_assert(strstr(err, "needs a value") != NULL, "%s", err);
  free(err);
  cr_assert_eq(CLI3(NULL, &err, "gather", "a.npy", "-o=x.npy"), 2);
  free(err);
  cr_assert_eq(CLI6(NULL, &err, "gather", "--axis=one", "a.npy", "b.npy", "-o",
                    "c.npy"),
               2);
  cr_assert(strstr(err, "invalid --axis value 'one'") != NULL, "%s", err);
  free(err);
  cr_assert_eq(CLI7(NULL, &err, "gather", "a.npy", "b.npy", "c.npy", "-o",
                    "d.npy", NULL),
               2);
  free(err);
  cr_assert_eq(CLI2(NULL, &err, "onnx-test", "--nope"), 2);
  free(err);
  cr_assert_eq(CLI2(NULL, &err, "devices", "extra"), 2);
  free(err);

  cr_assert_eq(CLI1(&out, NULL, "--help"), 0);
  cr_assert(strstr(out, "gather [--axis A]") != NULL, "%s", out);
  free(out);
  cr_assert_eq(CLI2(&out, NULL, "gather", "-h"), 0);
  free(out);
}

Test(cli_e2e, devices_lists_indices) {
  char *out;
  cr_assert_eq(CLI1(&out, NULL, "devices"), 0);
  cr_assert(strstr(out, "platform 0:") != NULL, "%s", out);
  cr_assert(strstr(out, "--device 0:0") != NULL, "%s", out);
  free(out);
}

/* ---------------------------------------------------------- results: 0 */

Test(cli_e2e, gather_matches_reference_npy_and_pb) {
  int64_t dshape[3] = {5, 4, 3}, ishape[2] = {2, 3};
  cli_tensor data, idx, ref;
  make_tensor(&data, CLG_DTYPE_FLOAT, 3, dshape, 1);
  make_tensor(&idx, CLG_DTYPE_INT64, 2, ishape, 2);
  int64_t iv[6] = {0, 3, -1, 2, 2, -4};
  memcpy(idx.data, iv, sizeof iv);
  save(ct_path("data.npy"), &data);
  save(ct_path("idx.npy"), &idx);
  save(ct_path("idx.pb"), &idx);

  /* axis 1; options after the positionals; --axis=1 form; .npy output. */
  char *err;
  int rc = CLI6(NULL, &err, "gather", ct_path("data.npy"), ct_path("idx.npy"),
                "--axis=1", "-o", ct_path("out.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &idx, 1, &ref);
  expect_same(ct_path("out.npy"), &ref);
  cli_tensor_free(&ref);

  /* axis -3 (= 0), .pb indices, .pb output, "--axis -3" form. */
  rc = CLI7(NULL, &err, "gather", "--axis", "-3", ct_path("data.npy"),
            ct_path("idx.pb"), "-o", ct_path("out.pb"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &idx, 0, &ref);
  expect_same(ct_path("out.pb"), &ref);
  cli_tensor_free(&ref);
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);

  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}

Test(cli_e2e, gather_int32_indices_scalar_and_bfloat16_pb) {
  int64_t dshape[2] = {6, 5}, one[1] = {1};
  cli_tensor data, idx, ref;
  make_tensor(&data, CLG_DTYPE_BFLOAT16, 2, dshape, 3);
  make_tensor(&idx, CLG_DTYPE_INT32, 0, one, 4);
  int32_t k = -2;
  memcpy(idx.data, &k, sizeof k);
  save(ct_path("bf.pb"), &data);
  save(ct_path("k.npy"), &idx);
  char *err;
  int rc = CLI5(NULL, &err, "gather", ct_path("bf.pb"), ct_path("k.npy"), "-o",
                ct_path("bf_out.pb"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &idx, 0, &ref);
  cr_assert_eq(ref.rank, 1);
  expect_same(ct_path("bf_out.pb"), &ref);
  cli_tensor_free(&ref);

  /* bfloat16 cannot go to .npy: exit 1, clear message, no file. */
  rc = CLI5(NULL, &err, "gather", ct_path("bf.pb"), ct_path("k.npy"), "-o",
            ct_path("bf_out.npy"));
  cr_assert_eq(rc, 1);
  cr_assert(strstr(err, "bfloat16") != NULL, "%s", err);
  cr_assert(!ct_exists(ct_path("bf_out.npy")));
  free(err);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}

/* ------------------------------------------------------ invalid input: 1 */

Test(cli_e2e, out_of_bounds_index_names_position_value_range) {
  int64_t dshape[2] = {5, 2}, ishape[2] = {2, 3};
  cli_tensor data, idx;
  make_tensor(&data, CLG_DTYPE_INT16, 2, dshape, 5);
  make_tensor(&idx, CLG_DTYPE_INT64, 2, ishape, 6);
  int64_t iv[6] = {0, 1, 2, 7, 4, -5}; /* indices[3] = 7 at [1, 0] */
  memcpy(idx.data, iv, sizeof iv);
  save(ct_path("d.npy"), &data);
  save(ct_path("i.npy"), &idx);

  char *out, *err;
  int rc = CLI5(&out, &err, "gather", ct_path("d.npy"), ct_path("i.npy"), "-o",
                ct_path("new.npy"));
  cr_assert_eq(rc, 1, "stderr: %s", err);
  cr_assert_eq(strncmp(err, "clgather: ", 10), 0, "%s", err);
  cr_assert(strstr(err, "7") != NULL, "value missing: %s", err);
  cr_assert(strstr(err, "[1, 0]") != NULL || strstr(err, "indices[3]"),
            "position missing: %s", err);
  cr_assert(strstr(err, "[-5, 4]") != NULL, "valid range missing: %s", err);
  cr_assert(!ct_exists(ct_path("new.npy")), "OUT must not be created");
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  free(out);
  free(err);

  /* An existing OUT is left byte for byte unchanged. */
  const char *keep = "previous contents, not a tensor";
  ct_write_file(ct_path("old.npy"), keep, strlen(keep));
  rc = CLI5(NULL, &err, "gather", ct_path("d.npy"), ct_path("i.npy"), "-o",
            ct_path("old.npy"));
  cr_assert_eq(rc, 1);
  free(err);
  size_t len;
  unsigned char *now = ct_read_file(ct_path("old.npy"), &len);
  cr_assert_eq(len, strlen(keep));
  cr_assert_eq(memcmp(now, keep, len), 0);
  free(now);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}

Test(cli_e2e, bad_inputs_exit_1_and_keep_out) {
  int64_t dshape[2] = {3, 2}, ishape[1] = {2};
  cli_tensor data, idx, fidx;
  make_tensor(&data, CLG_DTYPE_FLOAT, 2, dshape, 7);
  make_tensor(&idx, CLG_DTYPE_INT64, 1, ishape, 8);
  memset(idx.data, 0, idx.nbytes);
  make_tensor(&fidx, CLG_DTYPE_FLOAT, 1, ishape, 9);
  save(ct_path("d.npy"), &data);
  save(ct_path("i.npy"), &idx);
  save(ct_path("f.npy"), &fidx);
  const char *keep = "keep me";
  ct_write_file(ct_path("o.npy"), keep, strlen(keep));
  ct_write_file(ct_path("junk.npy"), "not numpy at all", 16);

  struct {
    const char *a, *b, *axis, *needle;
  } cases[] = {
      {"d.npy", "i.npy", "2", "axis"},          /* axis out of range */
      {"d.npy", "f.npy", "0", "indices"},       /* float indices */
      {"junk.npy", "i.npy", "0", "not a .npy"}, /* hostile data file */
      {"missing.npy", "i.npy", "0", "cannot open"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    char *err;
    int rc = CLI7(NULL, &err, "gather", ct_path(cases[c].a),
                  ct_path(cases[c].b), "-a", cases[c].axis, "-o",
                  ct_path("o.npy"));
    cr_assert_eq(rc, 1, "case %zu: rc %d, stderr: %s", c, rc, err);
    cr_assert_eq(strncmp(err, "clgather: ", 10), 0, "%s", err);
    cr_assert(strstr(err, cases[c].needle) != NULL, "case %zu: %s", c, err);
    free(err);
    size_t len;
    unsigned char *now = ct_read_file(ct_path("o.npy"), &len);
    cr_assert_eq(len, strlen(keep));
    cr_assert_eq(memcmp(now, keep, len), 0);
    free(now);
  }
  /* a name whose format cannot be told: a usage error since stdin, .npz
   * and .npz:NAME are names too */
  char *err;
  int rc = CLI7(NULL, &err, "gather", ct_path("d.txt"), ct_path("i.npy"), "-a",
                "0", "-o", ct_path("o.npy"));
  cr_assert_eq(rc, 2, "rc %d, stderr: %s", rc, err);
  cr_assert(ct_is_usage_line(err, "gather"), "%s", err);
  cr_assert(strstr(err, "cannot tell the format of") != NULL, "%s", err);
  free(err);
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  cli_tensor_free(&fidx);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}

Test(cli_e2e, onnx_test_reports_folders) {
  /* A folder without a model is a FAIL line, and the summary is last. */
  char *out, *err;
  int rc = CLI2(&out, &err, "onnx-test", ct_scratch_dir());
  cr_assert_eq(rc, 1, "stdout: %s stderr: %s", out, err);
  cr_assert(strstr(out, "FAIL ") != NULL, "%s", out);
  cr_assert(strstr(out, "0 passed, 1 failed, 0 skipped\n") != NULL, "%s",
            out);
  free(out);
  free(err);
}

/* A single-node model.onnx with op_type and an optional axis attribute. */
static void write_model(const char *path, const char *op_type, int has_axis,
                        int64_t axis) {
  Onnx__AttributeProto attr = ONNX__ATTRIBUTE_PROTO__INIT;
  attr.name = (char *)"axis";
  attr.has_type = 1;
  attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  attr.has_i = 1;
  attr.i = axis;
  Onnx__AttributeProto *attrs[1] = {&attr};
  Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
  node.op_type = (char *)op_type;
  node.n_attribute = has_axis ? 1 : 0;
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

static void remove_case(const char *dir) {
  static const char *const files[] = {
      "test_data_set_0/input_0.pb", "test_data_set_0/input_1.pb",
      "test_data_set_0/output_0.pb", "test_data_set_0", "model.onnx", ""};
  char p[1200];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
    snprintf(p, sizeof p, "%s/%s", dir, files[i]);
    if (remove(p) != 0 && i < 3)
      unlink(p);
  }
}

Test(cli_e2e, onnx_test_pass_fail_skip_on_generated_folders) {
  char gdir[1024], sdir[1100], p[1200];
  snprintf(gdir, sizeof gdir, "%s", ct_path("test_gather_made"));
  snprintf(sdir, sizeof sdir, "%s/test_data_set_0", gdir);
  cr_assert_eq(mkdir(gdir, 0777), 0);
  cr_assert_eq(mkdir(sdir, 0777), 0);
  snprintf(p, sizeof p, "%s/model.onnx", gdir);
  write_model(p, "Gather", 1, -1);

  int64_t dshape[2] = {3, 4}, ishape[1] = {5};
  cli_tensor data, idx, ref;
  make_tensor(&data, CLG_DTYPE_UINT8, 2, dshape, 21);
  make_tensor(&idx, CLG_DTYPE_INT64, 1, ishape, 22);
  int64_t iv[5] = {3, 0, -1, -4, 2};
  memcpy(idx.data, iv, sizeof iv);
  reference_gather(&data, &idx, -1, &ref);
  snprintf(p, sizeof p, "%s/input_0.pb", sdir);
  save(p, &data);
  snprintf(p, sizeof p, "%s/input_1.pb", sdir);
  save(p, &idx);
  snprintf(p, sizeof p, "%s/output_0.pb", sdir);
  save(p, &ref);

  char *out, *err;
  int rc = CLI2(&out, &err, "onnx-test", gdir);
  cr_assert_eq(rc, 0, "stdout: %s stderr: %s", out, err);
  cr_assert_str_eq(out, "PASS test_gather_made\n1 passed, 0 failed, 0 skipped\n");
  free(out);
  free(err);

  /* A wrong expected output is a FAIL naming the data set and the element. */
  ((unsigned char *)ref.data)[6] ^= 1;
  save(p, &ref);
  rc = CLI2(&out, &err, "onnx-test", gdir);
  cr_assert_eq(rc, 1, "stdout: %s stderr: %s", out, err);
  cr_assert(strstr(out, "FAIL test_gather_made: test_data_set_0: output 0 "
                        "differs from the expected output at element 6") !=
                NULL,
            "%s", out);
  cr_assert(strstr(out, "\n0 passed, 1 failed, 0 skipped\n") != NULL, "%s",
            out);
  free(out);
  free(err);

  /* Ops outside the gather family are skipped. */
  snprintf(p, sizeof p, "%s/model.onnx", gdir);
  write_model(p, "TopK", 0, 0);
  rc = CLI2(&out, &err, "onnx-test", gdir);
  cr_assert_eq(rc, 1, "only skips: nothing passed");
  cr_assert_str_eq(out, "SKIP test_gather_made: unsupported op TopK\n"
                        "0 passed, 0 failed, 1 skipped\n");
  free(out);
  free(err);

  /* The default root comes from CLGATHER_ONNX_TESTDATA. */
  write_model(p, "Gather", 1, -1);
  snprintf(p, sizeof p, "%s/output_0.pb", sdir);
  ((unsigned char *)ref.data)[6] ^= 1;
  save(p, &ref);
  cr_assert_eq(setenv("CLGATHER_ONNX_TESTDATA", ct_scratch_dir(), 1), 0);
  rc = CLI1(&out, &err, "onnx-test");
  cr_assert_eq(rc, 0, "stdout: %s stderr: %s", out, err);
  cr_assert_str_eq(out, "PASS test_gather_made\n1 passed, 0 failed, 0 skipped\n");
  free(out);
  free(err);

  remove_case(gdir);
  cli_tensor_free(&ref);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}
