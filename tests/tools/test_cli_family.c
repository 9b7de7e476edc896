/* The gather family through the clgather binary: `gather --batch-dims
 * --mode` against the plain-C reference (tools/reference/reference.c),
 * byte for byte, never against the library; its out-of-bounds error; and
 * the usage errors (exit 2) of gather, gather-elements and gather-nd.
 * The rest of the suite (one binary, test_cli_family): gather-elements and
 * gather-nd in test_cli_family_ops.c, onnx-test on them in
 * test_cli_family_onnx.c; what they share (running the CLI, tensor files,
 * the GatherElements and GatherND references) in cli_family_fx.h.
 * CLGATHER_CLI_PATH is the built binary. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_family_fx.h"
#include "cli_testutil.h"
#include "reference/reference.h"
#include "tensor_file.h"

TestSuite(cli_family, .fini = ct_cleanup, .timeout = 120);

/* ------------------------------------------------------------- references */

/* Gather with batch_dims and a mode: tools/reference/reference.c. */
static void reference_gather(const cli_tensor *data, const cli_tensor *idx,
                             int64_t axis, int64_t batch_dims, ref_mode mode,
                             cli_tensor *out) {
  int32_t rank = 0;
  int64_t shape[REF_MAX_RANK];
  /* Shape first, to size the output. */
  cr_assert_eq(ref_gather_ex_shape(data->rank, data->shape, idx->rank,
                                   idx->shape, axis, batch_dims, &rank, shape),
               0, "reference: bad shapes");
  char err[256];
  cr_assert_eq(cli_tensor_alloc(out, data->dtype, rank, shape, err, sizeof err),
               0, "%s", err);
  cr_assert_eq(ref_gather_ex(data->data, clg_dtype_size(data->dtype),
                             data->rank, data->shape, idx->data,
                             idx->dtype == CLG_DTYPE_INT64 ? REF_INDEX_I64
                                                           : REF_INDEX_I32,
                             idx->rank, idx->shape, axis, batch_dims, mode,
                             out->data, &rank, shape),
               0, "reference gather failed");
}

/* ------------------------------------------------- gather: --batch-dims */

Test(cli_family, gather_batch_dims_and_modes_match_reference) {
  int64_t dshape[4] = {2, 3, 5, 2}, ishape[2] = {2, 4};
  cli_tensor data, in_range, wild, ref;
  make_tensor(&data, CLG_DTYPE_COMPLEX64, 4, dshape, 11);
  const int64_t ok_values[8] = {0, 4, -1, -5, 2, 3, 1, -2};
  const int64_t wild_values[8] = {0, 7, -6, 12, -1, 5, -13, 4};
  make_indices(&in_range, CLG_DTYPE_INT32, 2, ishape, ok_values);
  make_indices(&wild, CLG_DTYPE_INT64, 2, ishape, wild_values);
  save(ct_path("d.npy"), &data);
  save(ct_path("ok.npy"), &in_range);
  save(ct_path("wild.pb"), &wild);

  /* raise (default and explicit), batch_dims 1 and -1 (= 1), axis 2. */
  char *err;
  int rc = CLI(NULL, &err, "gather", "--batch-dims", "1", "--axis", "2",
               ct_path("d.npy"), ct_path("ok.npy"), "-o", ct_path("o1.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &in_range, 2, 1, REF_RAISE, &ref);
  expect_same(ct_path("o1.npy"), &ref);
  rc = CLI(NULL, &err, "gather", "-b-1", "-a", "-2", "--mode=raise",
           ct_path("d.npy"), ct_path("ok.npy"), "-o", ct_path("o2.pb"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  expect_same(ct_path("o2.pb"), &ref);
  cli_tensor_free(&ref);

  /* wrap and clip accept any index. */
  rc = CLI(NULL, &err, "gather", "--mode", "wrap", "--batch-dims=1", "-a2",
           ct_path("d.npy"), ct_path("wild.pb"), "-o", ct_path("w.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &wild, 2, 1, REF_WRAP, &ref);
  expect_same(ct_path("w.npy"), &ref);
  cli_tensor_free(&ref);
  rc = CLI(NULL, &err, "gather", "-m", "clip", "-b", "1", "--axis", "2",
           ct_path("d.npy"), ct_path("wild.pb"), "-o", ct_path("c.pb"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &wild, 2, 1, REF_CLIP, &ref);
  expect_same(ct_path("c.pb"), &ref);
  cli_tensor_free(&ref);

  /* batch_dims 0 (the default) with a mode, axis 0. */
  rc = CLI(NULL, &err, "gather", "--mode", "wrap", ct_path("d.npy"),
           ct_path("wild.pb"), "-o", ct_path("w0.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  reference_gather(&data, &wild, 0, 0, REF_WRAP, &ref);
  expect_same(ct_path("w0.npy"), &ref);
  cli_tensor_free(&ref);
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);

  cli_tensor_free(&wild);
  cli_tensor_free(&in_range);
  cli_tensor_free(&data);
}

Test(cli_family, gather_raise_out_of_bounds_with_batch_dims) {
  int64_t dshape[3] = {2, 4, 3}, ishape[2] = {2, 3};
  cli_tensor data, idx;
  make_tensor(&data, CLG_DTYPE_INT8, 3, dshape, 12);
  const int64_t values[6] = {0, 1, 2, 3, -4, 9}; /* indices[5] = 9 at [1, 2] */
  make_indices(&idx, CLG_DTYPE_INT64, 2, ishape, values);
  save(ct_path("d.npy"), &data);
  save(ct_path("i.npy"), &idx);

  char *err;
  int rc = CLI(NULL, &err, "gather", "--batch-dims", "1", "--axis", "1",
               ct_path("d.npy"), ct_path("i.npy"), "-o", ct_path("new.npy"));
  cr_assert_eq(rc, 1, "stderr: %s", err);
  cr_assert_eq(strncmp(err, "clgather: ", 10), 0, "%s", err);
  cr_assert(strstr(err, "9") != NULL, "value missing: %s", err);
  cr_assert(strstr(err, "[1, 2]") != NULL || strstr(err, "indices[5]"),
            "position missing: %s", err);
  cr_assert(strstr(err, "[-4, 3]") != NULL, "valid range missing: %s", err);
  free(err);
  cr_assert(!ct_exists(ct_path("new.npy")), "OUT must not be created");

  /* The same indices wrap and clip fine; raise keeps an existing OUT. */
  const char *keep = "old output";
  ct_write_file(ct_path("old.pb"), keep, strlen(keep));
  rc = CLI(NULL, &err, "gather", "-b", "1", "-a", "1", "--mode", "raise",
           ct_path("d.npy"), ct_path("i.npy"), "-o", ct_path("old.pb"));
  cr_assert_eq(rc, 1, "stderr: %s", err);
  free(err);
  expect_unchanged(ct_path("old.pb"), keep);
  rc = CLI(NULL, &err, "gather", "-b", "1", "-a", "1", "--mode", "clip",
           ct_path("d.npy"), ct_path("i.npy"), "-o", ct_path("clip.npy"));
  cr_assert_eq(rc, 0, "stderr: %s", err);
  free(err);
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}

/* ------------------------------------------------------------ usage: 2 */

Test(cli_family, usage_errors_exit_2_and_write_nothing) {
  int64_t dshape[2] = {3, 2}, ishape[2] = {2, 1};
  cli_tensor data, idx;
  make_tensor(&data, CLG_DTYPE_FLOAT, 2, dshape, 41);
  const int64_t values[2] = {0, 1};
  make_indices(&idx, CLG_DTYPE_INT64, 2, ishape, values);
  save(ct_path("d.npy"), &data);
  save(ct_path("i.npy"), &idx);
  const char *d = ct_path("d.npy"), *i = ct_path("i.npy");
  const char *o = ct_path("o.npy");
  char dbuf[1024], ibuf[1024], obuf[1024];
  snprintf(dbuf, sizeof dbuf, "%s", d);
  snprintf(ibuf, sizeof ibuf, "%s", i);
  snprintf(obuf, sizeof obuf, "%s", o);
  d = dbuf;
  i = ibuf;
  o = obuf;

  struct {
    const char *args[9];
    const char *needle;
  } cases[] = {
      {{"gather", "--mode", "zero", d, i, "-o", o}, "invalid --mode value"},
      {{"gather", "--mode=Raise", d, i, "-o", o}, "invalid --mode value"},
      {{"gather", "-m", "", d, i, "-o", o}, "invalid --mode value"},
      {{"gather", d, i, "-o", o, "--mode"}, "needs a value"},
      {{"gather", "--batch-dims", "one", d, i, "-o", o},
       "invalid --batch-dims value 'one'"},
      {{"gather", "--batch-dims=1.5", d, i, "-o", o},
       "invalid --batch-dims value '1.5'"},
      {{"gather", "-b", "", d, i, "-o", o}, "invalid --batch-dims value"},
      {{"gather", d, i, "-o", o, "--batch-dims"}, "needs a value"},
      {{"gather-elements", "--axis", "x", d, i, "-o", o},
       "invalid --axis value"},
      {{"gather-elements", "--mode", "wrap", d, i, "-o", o},
       "unknown option '--mode'"},
      {{"gather-elements", "--batch-dims", "0", d, i, "-o", o},
       "unknown option '--batch-dims'"},
      {{"gather-elements", d, "-o", o}, "an INDICES file"},
      {{"gather-elements", d, i}, "-o OUT"},
      {{"gather-elements", d, i, d, "-o", o}, "unexpected argument"},
      {{"gather-nd", "--batch-dims", "0x1", d, i, "-o", o},
       "invalid --batch-dims value"},
      {{"gather-nd", "--axis", "0", d, i, "-o", o}, "unknown option '--axis'"},
      {{"gather-nd", "--mode", "clip", d, i, "-o", o},
       "unknown option '--mode'"},
      {{"gather-nd", "-o", o}, "DATA and INDICES"},
      {{"gather-nd", d, i, "-o"}, "needs a value"},
      {{"gather-nd", "--bogus", d, i, "-o", o}, "unknown option '--bogus'"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    char *err;
    int rc = run_cli(NULL, &err, cases[c].args);
    cr_assert_eq(rc, 2, "case %zu: rc %d, stderr: %s", c, rc, err);
    cr_assert(strstr(err, cases[c].needle) != NULL, "case %zu: %s", c, err);
    cr_assert(ct_is_usage_line(err, cases[c].args[0]), "case %zu: %s", c, err);
    free(err);
    cr_assert(!ct_exists(o), "case %zu wrote OUT", c);
  }

  /* Help names the new commands and options. */
  char *out;
  cr_assert_eq(CLI(&out, NULL, "help"), 0);
  cr_assert(strstr(out, "gather-elements [--axis A]") != NULL, "%s", out);
  cr_assert(strstr(out, "gather-nd [--batch-dims B]") != NULL, "%s", out);
  cr_assert(strstr(out, "--mode M") != NULL, "%s", out);
  free(out);
  cr_assert_eq(CLI(&out, NULL, "gather-nd", "--help"), 0);
  free(out);
  cr_assert_eq(CLI(&out, NULL, "gather-elements", "-h"), 0);
  free(out);
  cli_tensor_free(&idx);
  cli_tensor_free(&data);
}
