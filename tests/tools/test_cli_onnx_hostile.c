/*
 * `clgather onnx-test` on hostile models and files: initializers whose
 * data does not match their shape, truncated files, external data that is
 * missing, short, or points outside the model's folder, names that resolve
 * to nothing. Each folder is a FAIL line with a clear reason, nothing
 * crashes, and the run exits 1 (invalid input).
 */
#define _XOPEN_SOURCE 700 /* symlink */

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_testutil.h"
#include "onnx_model_writer.h"

TestSuite(cli_onnx_hostile, .fini = mw_cleanup, .timeout = 120);

/* An embedding-like case: Gather(W, i), W the initializer *w, i from
 * input_0.pb, a correct expected output. */
static const char *hostile_case(const char *name, mw_tproto *w,
                                const cli_tensor *data, const cli_tensor *idx) {
  const char *dir = mw_case_dir(name);
  mw_model m;
  mw_start(&m, 13);
  mw_input(&m, "i");
  mw_init(&m, w);
  mw_node(&m, "Gather", "y", "W", "i", NULL);
  mw_output(&m, "y");
  mw_write(&m, dir);
  cli_tensor want;
  mw_ref_gather(data, idx, 0, &want);
  mw_write_pb(dir, "input", 0, idx, NULL);
  mw_write_pb(dir, "output", 0, &want, NULL);
  cli_tensor_free(&want);
  return dir;
}

/* The folders of one run, and the reason each must fail with. */
typedef struct hostile {
  const char *name[24], *needle[24], *dir[24];
  size_t n;
  const cli_tensor *w, *idx;
} hostile;

static const char *add_dir(hostile *h, const char *name, const char *needle,
                           const char *dir) {
  cr_assert_lt(h->n, 24);
  h->name[h->n] = name;
  h->needle[h->n] = needle;
  h->dir[h->n] = dir;
  h->n++;
  return dir;
}

/* A hostile_case() whose initializer is *p (freed here). */
static const char *add(hostile *h, mw_tproto *p, const char *name,
                       const char *needle) {
  const char *dir = hostile_case(name, p, h->w, h->idx);
  mw_tp_free(p);
  return add_dir(h, name, needle, dir);
}

/* Hostile models and files: each folder is a FAIL line with a clear
 * reason, nothing crashes, and the run exits 1 (invalid input). */
Test(cli_onnx_hostile, models_and_files_fail_clearly) {
  const int64_t wshape[2] = {6, 4}, ishape[1] = {3}, iv[3] = {5, 0, -6};
  cli_tensor w, idx;
  mw_tensor(&w, CLG_DTYPE_FLOAT, 2, wshape, 61);
  mw_indices(&idx, CLG_DTYPE_INT64, 1, ishape, iv);
  ct_write_file(ct_path("outside.bin"), w.data, w.nbytes);
  hostile h = {.w = &w, .idx = &idx};
  mw_tproto p;
  char file[1200];

  mw_tp_raw(&p, "W", &w);
  p.tp.raw_data.len -= 4;
  add(&h, &p, "raw_short", "initializer 'W': float tensor of shape [6, 4] needs 96 "
                    "bytes but raw_data has 92");
  mw_tp_typed(&p, "W", &w);
  p.tp.n_float_data -= 1;
  add(&h, &p, "typed_short", "needs 24 values but float_data has 23");
  mw_tp_external(&p, "W", &w, "nothere.bin", NULL, NULL);
  add(&h, &p, "ext_missing", "cannot open external data file");
  mw_tp_external(&p, "W", &w, "w.bin", NULL, "96");
  snprintf(file, sizeof file, "%s/w.bin", add(&h, &p, "ext_short", "has 50 bytes, "
                              "too few for offset 0 + length 96"));
  ct_write_file(file, w.data, 50);
  mw_tp_external(&p, "W", &w, "w.bin", NULL, NULL);
  snprintf(file, sizeof file, "%s/w.bin",
           add(&h, &p, "ext_length", "(offset 0) has 92 bytes but the tensor needs "
                              "96"));
  ct_write_file(file, w.data, 92);
  mw_tp_external(&p, "W", &w, "w.bin", "200", NULL);
  snprintf(file, sizeof file, "%s/w.bin",
           add(&h, &p, "ext_offset", "offset 200 is past the end"));
  ct_write_file(file, w.data, 96);
  mw_tp_external(&p, "W", &w, "w.bin", "-8", NULL);
  add(&h, &p, "ext_bad_offset", "offset '-8' is not a non-negative integer");
  mw_tp_external(&p, "W", &w, "/etc/hostname", NULL, NULL);
  add(&h, &p, "ext_absolute", "'/etc/hostname' is an absolute path");
  mw_tp_external(&p, "W", &w, "sub/../../outside.bin", NULL, NULL);
  add(&h, &p, "ext_dotdot", "leaves the model's folder ('..')");
  mw_tp_external(&p, "W", &w, "link.bin", NULL, NULL);
  snprintf(file, sizeof file, "%s/link.bin",
           add(&h, &p, "ext_symlink", "outside the model's folder"));
  cr_assert_eq(symlink("../outside.bin", file), 0);
  mw_tp_external(&p, "W", &w, NULL, "0", NULL);
  add(&h, &p, "ext_no_location", "external data has no location");
  mw_tp_external(&p, "W", &w, "w.bin", NULL, NULL);
  p.tp.has_raw_data = 1;
  p.tp.raw_data.len = 0;
  add(&h, &p, "ext_and_raw", "both external data and data in the model");

  mw_tp_raw(&p, "W", &w);
  snprintf(file, sizeof file, "%s/model.onnx", add(&h, &p, "truncated_model",
                                                    "is not a valid ONNX "
                                                    "model"));
  size_t len;
  unsigned char *bytes = ct_read_file(file, &len);
  ct_write_file(file, bytes, len - 9); /* into the graph */
  free(bytes);
  mw_tp_raw(&p, "W", &w);
  snprintf(file, sizeof file, "%s/test_data_set_0/input_0.pb",
           add(&h, &p, "truncated_input", "not a valid ONNX TensorProto"));
  bytes = ct_read_file(file, &len);
  ct_write_file(file, bytes, len - 5);
  free(bytes);
  mw_tp_raw(&p, "W", &w);
  snprintf(file, sizeof file, "%s/test_data_set_0/input_0.pb",
           add(&h, &p, "no_value", "graph input 'i' has no value (no input file "
                            "and no initializer)"));
  cr_assert_eq(remove(file), 0);
  mw_tp_raw(&p, "W", &w);
  add(&h, &p, "too_many_inputs", "the graph has 1 inputs (1 without an "
                                   "initializer) but the data set has 2 "
                                   "input files");
  mw_write_pb(h.dir[h.n - 1], "input", 1, &idx, NULL);

  /* Whole models of their own. */
  mw_model m;
  mw_tproto pw;
  mw_tp_raw(&pw, "W", &w);
  struct {
    const char *name, *needle, *constant_attr, *index_name, *second_init;
  } const other[] = {
      {"bad_constant", "Constant node 'k': Constant attribute 'value_string' "
                       "is not supported", "value_string", "k", NULL},
      {"unknown_input", "input 'nope' of Gather has no value", NULL, "nope",
       NULL},
      {"repeated_name", "initializer 'W': the graph already has a value of "
                        "that name", NULL, "i", "W"},
  };
  for (size_t k = 0; k < sizeof other / sizeof other[0]; ++k) {
    const char *dir = add_dir(&h, other[k].name, other[k].needle,
                              mw_case_dir(other[k].name));
    mw_start(&m, 13);
    mw_input(&m, "i");
    mw_init(&m, &pw);
    if (other[k].second_init != NULL)
      mw_init(&m, &pw);
    if (other[k].constant_attr != NULL) {
      mw_node(&m, "Constant", "k", NULL, NULL, NULL);
      Onnx__AttributeProto *a = mw_attr(
          &m, other[k].constant_attr,
          ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
      a->has_s = 1;
      a->s.len = 1;
      a->s.data = (uint8_t *)"x";
    }
    mw_node(&m, "Gather", "y", "W", other[k].index_name, NULL);
    mw_output(&m, "y");
    mw_write(&m, dir);
    mw_write_pb(dir, "input", 0, &idx, NULL);
    mw_write_pb(dir, "output", 0, &w, NULL);
  }
  /* An out-of-bounds index: the library's message, before any output. */
  cli_tensor bad;
  const int64_t bv[3] = {1, 6, 0};
  mw_indices(&bad, CLG_DTYPE_INT64, 1, ishape, bv);
  mw_write_pb(add_dir(&h, "index_out_of_bounds",
                      "index out of bounds: indices[1]",
                      hostile_case("index_out_of_bounds", &pw, &w, &idx)),
              "input", 0, &bad, NULL);

  char *out;
  int rc = mw_run_dirs(&out, h.dir, h.n);
  cr_assert_eq(rc, 1, "%s", out);
  char summary[64];
  snprintf(summary, sizeof summary, "\n0 passed, %zu failed, 0 skipped\n",
           h.n);
  cr_assert(strstr(out, summary) != NULL, "%s", out);
  for (size_t k = 0; k < h.n; ++k) {
    char *line = strstr(out, h.name[k]);
    cr_assert(line != NULL && line - out >= 5 &&
                  strncmp(line - 5, "FAIL ", 5) == 0,
              "%s: %s", h.name[k], out);
    char *end = strchr(line, '\n');
    cr_assert_not_null(end);
    *end = '\0';
    cr_expect(strstr(line, h.needle[k]) != NULL, "%s: wanted '%s' in: %s",
              h.name[k], h.needle[k], line);
    *end = '\n';
  }
  free(out);
  mw_tp_free(&pw);
  cli_tensor_free(&bad);
  cli_tensor_free(&idx);
  cli_tensor_free(&w);
}
