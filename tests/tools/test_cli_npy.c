/* .npy reading and writing (tools/formats/npy.c): round trips for every
 * dtype and format version, accepted descr variants, and hostile files. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_testutil.h"
#include "npy.h"
#include "tensor_file.h"

TestSuite(cli_npy, .fini = ct_cleanup);

typedef struct rt_case {
  clg_dtype dtype;
  int version;
} rt_case;

static const clg_dtype npy_dtypes[] = {
    CLG_DTYPE_FLOAT,  CLG_DTYPE_UINT8,     CLG_DTYPE_INT8,
    CLG_DTYPE_UINT16, CLG_DTYPE_INT16,     CLG_DTYPE_INT32,
    CLG_DTYPE_INT64,  CLG_DTYPE_BOOL,      CLG_DTYPE_FLOAT16,
    CLG_DTYPE_DOUBLE, CLG_DTYPE_UINT32,    CLG_DTYPE_UINT64,
    CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128,
};

ParameterizedTestParameters(cli_npy, round_trip) {
  static rt_case cases[sizeof npy_dtypes / sizeof npy_dtypes[0] * 3];
  size_t n = 0;
  for (size_t i = 0; i < sizeof npy_dtypes / sizeof npy_dtypes[0]; ++i)
    for (int v = 1; v <= 3; ++v)
      cases[n++] = (rt_case){npy_dtypes[i], v};
  return cr_make_param_array(rt_case, cases, n);
}

ParameterizedTest(rt_case *c, cli_npy, round_trip) {
  static const int64_t shapes[][3] = {{2, 3, 5}, {7, 0, 0}, {0, 0, 0}};
  static const int32_t ranks[] = {3, 1, 0};
  for (size_t s = 0; s < 3; ++s) {
    char err[512];
    cli_tensor t;
    cr_assert_eq(cli_tensor_alloc(&t, c->dtype, ranks[s], shapes[s], err,
                                  sizeof err),
                 0, "%s", err);
    ct_fill_pattern(t.data, t.nbytes, (unsigned)c->dtype);
    if (c->dtype == CLG_DTYPE_BOOL)
      for (size_t i = 0; i < t.nbytes; ++i)
        ((unsigned char *)t.data)[i] &= 1;
    const char *path = ct_path("rt.npy");
    cr_assert_eq(npy_write(path, &t, c->version, err, sizeof err), 0, "%s",
                 err);
    size_t len;
    unsigned char *raw = ct_read_file(path, &len);
    cr_assert_not_null(raw);
    cr_assert_eq(raw[6], c->version);
    cr_assert_eq(raw[7], 0);
    size_t prefix = c->version == 1 ? 10 : 12;
    size_t hlen = raw[8] | (size_t)raw[9] << 8;
    if (c->version > 1)
      hlen |= (size_t)raw[10] << 16 | (size_t)raw[11] << 24;
    cr_assert_eq((prefix + hlen) % 64, 0, "data must be 64-byte aligned");
    cr_assert_eq(raw[prefix + hlen - 1], '\n');
    cr_assert_eq(len, prefix + hlen + t.nbytes);
    free(raw);

    cli_tensor back;
    cr_assert_eq(cli_tensor_read(path, &back, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.dtype, c->dtype);
    cr_assert_eq(back.rank, ranks[s]);
    for (int32_t i = 0; i < back.rank; ++i)
      cr_assert_eq(back.shape[i], shapes[s][i]);
    cr_assert_eq(back.nbytes, t.nbytes);
    cr_assert_not_null(back.data);
    cr_assert_eq(memcmp(back.data, t.data, t.nbytes), 0);
    cli_tensor_free(&back);
    cli_tensor_free(&t);
  }
}

Test(cli_npy, header_is_numpy_style) {
  char err[512];
  int64_t shape[1] = {3};
  cli_tensor t;
  cr_assert_eq(cli_tensor_alloc(&t, CLG_DTYPE_FLOAT, 1, shape, err, sizeof err),
               0);
  unsigned char *buf;
  size_t len;
  cr_assert_eq(npy_encode(&t, 0, &buf, &len, err, sizeof err), 0, "%s", err);
  cr_assert_eq(buf[6], 1, "automatic version is 1.0");
  const char *want = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  cr_assert_eq(memcmp(buf + 10, want, strlen(want)), 0);
  free(buf);
  cli_tensor_free(&t);
}

Test(cli_npy, max_rank_and_scalar) {
  char err[512];
  int64_t shape[CLG_MAX_RANK];
  for (int i = 0; i < CLG_MAX_RANK; ++i)
    shape[i] = 1 + (i % 2);
  cli_tensor t, back;
  cr_assert_eq(cli_tensor_alloc(&t, CLG_DTYPE_INT32, CLG_MAX_RANK, shape, err,
                                sizeof err),
               0);
  ct_fill_pattern(t.data, t.nbytes, 5);
  cr_assert_eq(cli_tensor_write(ct_path("r16.npy"), &t, err, sizeof err), 0);
  cr_assert_eq(cli_tensor_read(ct_path("r16.npy"), &back, err, sizeof err), 0,
               "%s", err);
  cr_assert_eq(back.rank, CLG_MAX_RANK);
  cr_assert_eq(memcmp(back.data, t.data, t.nbytes), 0);
  cli_tensor_free(&back);
  cli_tensor_free(&t);
}

Test(cli_npy, accepted_variants) {
  static const struct {
    const char *dict;
    clg_dtype dtype;
  } v[] = {
      {"{'descr': '<b1', 'fortran_order': False, 'shape': (2,), }",
       CLG_DTYPE_BOOL},
      {"{'descr': '<u1', 'fortran_order': False, 'shape': (2,), }",
       CLG_DTYPE_UINT8},
      {"{'descr': '|i1', 'fortran_order': False, 'shape': (2,)}",
       CLG_DTYPE_INT8},
      {"{\"shape\": (2L,), \"fortran_order\": False, \"descr\": \"<i2\"}",
       CLG_DTYPE_INT16},
      /* Fortran order of a 1-D array is C order. */
      {"{'descr': '<u2', 'fortran_order': True, 'shape': (2,), }",
       CLG_DTYPE_UINT16},
  };
  unsigned char payload[8] = {1, 0, 1, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; ++i) {
    size_t es = clg_dtype_size(v[i].dtype), len;
    unsigned char *buf = ct_make_npy(1, v[i].dict, payload, 2 * es, &len);
    ct_write_file(ct_path("v.npy"), buf, len);
    free(buf);
    char err[512];
    cli_tensor t;
    cr_assert_eq(cli_tensor_read(ct_path("v.npy"), &t, err, sizeof err), 0,
                 "%s: %s", v[i].dict, err);
    cr_assert_eq(t.dtype, v[i].dtype, "%s", v[i].dict);
    cr_assert_eq(t.rank, 1);
    cr_assert_eq(t.shape[0], 2);
    cli_tensor_free(&t);
  }
}

Test(cli_npy, bfloat16_cannot_be_written) {
  char err[512];
  int64_t shape[1] = {2};
  cli_tensor t;
  cr_assert_eq(cli_tensor_alloc(&t, CLG_DTYPE_BFLOAT16, 1, shape, err,
                                sizeof err),
               0);
  const char *path = ct_path("bf.npy");
  cr_assert_eq(cli_tensor_write(path, &t, err, sizeof err), -1);
  cr_assert(strstr(err, "bfloat16") != NULL, "%s", err);
  cr_assert(!ct_exists(path));
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  cli_tensor_free(&t);
}

/* ------------------------------------------------------------- hostile */

static void expect_reject(const void *buf, size_t len, const char *needle) {
  const char *path = ct_path("bad.npy");
  ct_write_file(path, buf, len);
  char err[1024] = "";
  cli_tensor t;
  memset(&t, 0x5a, sizeof t);
  cr_assert_eq(cli_tensor_read(path, &t, err, sizeof err), -1,
               "expected rejection containing '%s'", needle);
  cr_assert(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err,
            needle);
  cr_assert_null(t.data);
}

static void expect_dict_reject(int major, const char *dict, size_t data_len,
                               const char *needle) {
  unsigned char data[64] = {0};
  size_t len;
  unsigned char *buf = ct_make_npy(major, dict, data, data_len, &len);
  expect_reject(buf, len, needle);
  free(buf);
}

Test(cli_npy, rejects_wrong_magic) {
  expect_reject("PK\x03\x04 this is a zip file, not npy", 33,
                "not a .npy file");
  expect_reject("\x93NUMPZ\x01\x00\x10\x00", 10, "wrong magic");
}

Test(cli_npy, rejects_truncated) {
  expect_reject("", 0, "truncated");
  expect_reject("\x93NUM", 4, "truncated");
  expect_reject("\x93NUMPY\x01", 7, "truncated");
  expect_reject("\x93NUMPY\x02\x00\x10\x00", 10, "truncated");
  /* Header length runs past the end of the file. */
  expect_reject("\x93NUMPY\x01\x00\x76\x00{'descr'", 17, "truncated");
  /* v2 header claiming 4 GiB. */
  expect_reject("\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13, "truncated");
  /* Data cut short. */
  expect_dict_reject(1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(2, 3), }",
                     20, "truncated");
}

Test(cli_npy, rejects_size_mismatch) {
  expect_dict_reject(1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(2,), }",
                     12, "trailing data");
  expect_dict_reject(3, "{'descr': '<i8', 'fortran_order': False, 'shape': "
                        "(2, 2), }",
                     24, "needs 32 data bytes but the file holds 24");
}

Test(cli_npy, rejects_petabyte_header) {
  /* 2^50 float32 elements = 4 PiB; must fail without allocating it. */
  expect_dict_reject(1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(1125899906842624,), }",
                     16, "needs 4503599627370496 data bytes");
  expect_dict_reject(1, "{'descr': '<f8', 'fortran_order': False, 'shape': "
                        "(4294967296, 4294967296), }",
                     8, "more elements than fit in 64 bits");
  expect_dict_reject(1, "{'descr': '<c16', 'fortran_order': False, 'shape': "
                        "(1152921504606846976,), }",
                     8, "overflows");
  expect_dict_reject(1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(99999999999999999999,), }",
                     8, "does not fit in 64 bits");
}

Test(cli_npy, rejects_unsupported_dtypes) {
  expect_dict_reject(1, "{'descr': '>f4', 'fortran_order': False, 'shape': "
                        "(2,), }",
                     8, "big-endian");
  expect_dict_reject(1, "{'descr': '>i8', 'fortran_order': False, 'shape': "
                        "(1,), }",
                     8, "big-endian");
  expect_dict_reject(1, "{'descr': '|f4', 'fortran_order': False, 'shape': "
                        "(2,), }",
                     8, "does not say little-endian");
  expect_dict_reject(1, "{'descr': '|O', 'fortran_order': False, 'shape': "
                        "(2,), }",
                     16, "object arrays");
  expect_dict_reject(1, "{'descr': '<U5', 'fortran_order': False, 'shape': "
                        "(1,), }",
                     20, "string arrays");
  expect_dict_reject(1, "{'descr': [('a', '<f4')], 'fortran_order': False, "
                        "'shape': (1,), }",
                     4, "structured");
  expect_dict_reject(1, "{'descr': '<M8[s]', 'fortran_order': False, "
                        "'shape': (1,), }",
                     8, "datetime");
  expect_dict_reject(1, "{'descr': '<f16', 'fortran_order': False, "
                        "'shape': (1,), }",
                     16, "unsupported dtype");
}

Test(cli_npy, rejects_fortran_order) {
  expect_dict_reject(1, "{'descr': '<f4', 'fortran_order': True, 'shape': "
                        "(2, 3), }",
                     24, "Fortran-order");
}

Test(cli_npy, rejects_bad_headers) {
  expect_dict_reject(1, "{'descr': '<f4', 'shape': (2,), }", 8,
                     "missing 'fortran_order'");
  expect_dict_reject(1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(2,), 'extra': 1}",
                     8, "unexpected key 'extra'");
  expect_dict_reject(1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(-2,), }",
                     8, "negative dimension");
  expect_dict_reject(1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }",
                     4, "rank exceeds");
  expect_dict_reject(1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(2,) ",
                     8, "malformed");
  expect_dict_reject(1, "['descr', '<f4']", 8, "malformed");
  expect_dict_reject(4, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(2,), }",
                     8, "unsupported .npy format version 4.0");
}

Test(cli_npy, rejects_non_file) {
  char err[512];
  cli_tensor t;
  cr_assert_eq(cli_tensor_read(ct_path("missing.npy"), &t, err, sizeof err),
               -1);
  cr_assert(strstr(err, "cannot open") != NULL, "%s", err);
  cr_assert_eq(cli_tensor_read(ct_path("x.txt"), &t, err, sizeof err), -1);
  cr_assert(strstr(err, "must end in .npy, .npz or .pb") != NULL, "%s", err);
}
