/*
 * `clgather gather-block-quantized`: small cases, each output compared
 * byte for byte with a plain-C computation of the definition
 * (include/clgather/clgather_quantized.h) written here, on the unpacked
 * values, not taken from the tool or the library: every kind (uint8 with
 * bits 8 and ONNX Runtime's packed 4-bit rows, uint4 and int4 given one
 * value a byte), float32 and float16 scales (the float16 product rounded
 * by the plain-C reference's ref_float_to_half(): clang has no _Float16 on
 * x86-64 here), with and without zero points, negative
 * indices, other axes, the defaults (bits 4, block 128, the last quantize
 * axis), .npy and .pb files. The error paths: an out-of-range index and a
 * 4-bit value out of its range exit 1 with OUT absent or unchanged, usage
 * errors exit 2, a device that does not exist exits 3.
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_testutil.h"
#include "reference/reference.h"
#include "tensor_file.h"

TestSuite(cli_gbq, .fini = ct_cleanup, .timeout = 300);

static int run_cli(char **err, const char *const *args) {
  char *argv[32];
  size_t n = 0;
  argv[n++] = (char *)CLGATHER_CLI_PATH;
  for (; args[n - 1] != NULL; ++n) {
    cr_assert_lt(n, 31);
    argv[n] = (char *)args[n - 1];
  }
  argv[n] = NULL;
  return ct_run(argv, NULL, err);
}
#define CLI(err, ...) run_cli(err, (const char *[]){__VA_ARGS__, NULL})

/* dir/name in a ring larger than one command line needs */
static const char *P(const char *name) {
  static char ring[64][512];
  static unsigned next;
  char *p = ring[next++ % 64];
  snprintf(p, 512, "%s", ct_path(name));
  return p;
}

static void save(const char *name, clg_dtype dt, int32_t rank,
                 const int64_t *shape, const void *values) {
  char err[256];
  cli_tensor t;
  cr_assert_eq(cli_tensor_alloc(&t, dt, rank, shape, err, sizeof err), 0, "%s",
               err);
  memcpy(t.data, values, t.nbytes);
  cr_assert_eq(cli_tensor_write(P(name), &t, err, sizeof err), 0, "%s", err);
  cli_tensor_free(&t);
}

enum { K_UINT8 = 0, K_UINT4 = 1, K_INT4 = 2 };

/* One case, in the values' terms: V (rank r), the values q (C order), the
 * axes (non-negative here), the block, indices (int64), one scale and zero
 * point per block (scales' shape: V with ceil(V[qa] / block) on qa). */
typedef struct gcase {
  int kind, bits, r;
  int64_t v[4];
  const int *q;
  int64_t ga, qa, block;
  int irank;
  int64_t ishape[2];
  const int64_t *idx;
  const float *scale; /* float16-representable where half is set */
  const int *zp;      /* NULL: the default */
  int half;
} gcase;

static int64_t numel(int r, const int64_t *s) {
  int64_t n = 1;
  for (int k = 0; k < r; ++k)
    n *= s[k];
  return n;
}

static void scale_shape(const gcase *c, int64_t *ss) {
  memcpy(ss, c->v, sizeof c->v);
  ss[c->qa] = (c->v[c->qa] + c->block - 1) / c->block;
}

/* The definition: out = (float)(q - p) * s, one float32 product; float16
 * scales: that product rounded to float16. Returns the element count. */
static int64_t expected(const gcase *c, void *out) {
  int64_t outer = numel((int)c->ga, c->v), s = c->v[c->ga];
  int64_t inner = numel(c->r - (int)c->ga - 1, c->v + c->ga + 1);
  int64_t ni = numel(c->irank, c->ishape), ss[4], o = 0;
  scale_shape(c, ss);
  int dzp = c->kind == K_UINT8 ? 1 << (c->bits - 1) : 0;
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t i = 0; i < ni; ++i)
      for (int64_t b = 0; b < inner; ++b, ++o) {
        int64_t j = c->idx[i] < 0 ? c->idx[i] + s : c->idx[i];
        int64_t flat = (a * s + j) * inner + b, rest = flat, sflat = 0;
        int64_t coord[4];
        for (int k = c->r - 1; k >= 0; --k) {
          coord[k] = rest % c->v[k];
          rest /= c->v[k];
        }
        for (int k = 0; k < c->r; ++k)
          sflat = sflat * ss[k] + (k == c->qa ? coord[k] / c->block : coord[k]);
        int p = c->zp ? c->zp[sflat] : dzp;
        float sc = c->half
                       ? ref_half_to_float(ref_float_to_half(c->scale[sflat]))
                       : c->scale[sflat];
        float prod = (float)(c->q[flat] - p) * sc;
        if (c->half) {
          uint16_t h = ref_float_to_half(prod);
          memcpy((unsigned char *)out + 2 * o, &h, 2);
        } else
          memcpy((unsigned char *)out + 4 * o, &prod, 4);
      }
  return o;
}

/* Writes the case's files as the command takes them: DATA (uint8 bits 8:
 * a byte a value; uint8 bits 4: ONNX Runtime's rows, two a byte; uint4 /
 * int4: one value a byte, uint8 / int8), INDICES, SCALES and ZP (the same
 * rules, scales' shape) under prefix. */
static void save_case(const gcase *c, const char *prefix) {
  char name[64];
  int64_t n = numel(c->r, c->v), ss[4], ns;
  scale_shape(c, ss);
  ns = numel(c->r, ss);
  for (int which = 0; which < 2; ++which) {
    const int *vals = which ? c->zp : c->q;
    if (vals == NULL)
      continue;
    int64_t cnt = which ? ns : n, shape[4];
    memcpy(shape, which ? ss : c->v, sizeof shape);
    unsigned char *bytes = calloc((size_t)cnt + 1, 1);
    clg_dtype dt = c->kind == K_INT4 ? CLG_DTYPE_INT8 : CLG_DTYPE_UINT8;
    if (c->kind == K_UINT8 && c->bits == 4) {
      /* pairs along the last axis, an odd row's last byte half used */
      int64_t last = shape[c->r - 1], rows = cnt / (last ? last : 1);
      int64_t bl = (last + 1) / 2;
      for (int64_t row = 0; row < rows; ++row)
        for (int64_t e = 0; e < last; ++e)
          bytes[row * bl + e / 2] |=
              (unsigned char)(vals[row * last + e] << (e % 2 ? 4 : 0));
      shape[c->r - 1] = bl;
    } else
      for (int64_t e = 0; e < cnt; ++e)
        bytes[e] = (unsigned char)(signed char)vals[e];
    snprintf(name, sizeof name, "%s_%s.npy", prefix, which ? "zp" : "d");
    save(name, dt, c->r, shape, bytes);
    free(bytes);
  }
  snprintf(name, sizeof name, "%s_i.npy", prefix);
  save(name, CLG_DTYPE_INT64, c->irank, c->ishape, c->idx);
  snprintf(name, sizeof name, "%s_s.npy", prefix);
  if (c->half) {
    uint16_t *h = malloc((size_t)ns * 2);
    for (int64_t e = 0; e < ns; ++e)
      h[e] = ref_float_to_half(c->scale[e]);
    save(name, CLG_DTYPE_FLOAT16, c->r, ss, h);
    free(h);
  } else
    save(name, CLG_DTYPE_FLOAT, c->r, ss, c->scale);
}

/* OUT (a .npy or .pb under the scratch folder) against the definition. */
static void expect_out(const gcase *c, const char *out) {
  int64_t ni = numel(c->irank, c->ishape);
  int64_t n = numel(c->r, c->v) / c->v[c->ga] * ni;
  unsigned char *want = malloc((size_t)n * 4 + 1);
  cr_assert_eq(expected(c, want), n);
  char err[512];
  cli_tensor got;
  cr_assert_eq(cli_tensor_read(P(out), &got, err, sizeof err), 0, "%s", err);
  cr_expect_eq(got.dtype, c->half ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT);
  /* V[:ga] + indices' shape + V[ga+1:] */
  int64_t shape[6];
  int rank = 0;
  for (int k = 0; k < c->r; ++k)
    if (k != c->ga)
      shape[rank++] = c->v[k];
    else
      for (int j = 0; j < c->irank; ++j)
        shape[rank++] = c->ishape[j];
  cr_assert_eq(got.rank, rank, "%s: rank %d", out, (int)got.rank);
  for (int k = 0; k < rank; ++k)
    cr_expect_eq(got.shape[k], shape[k], "%s: dim %d", out, k);
  cr_assert_eq(got.nbytes, (size_t)n * (c->half ? 2 : 4), "%s", out);
  cr_expect_eq(memcmp(got.data, want, got.nbytes), 0,
               "%s differs from the definition", out);
  cli_tensor_free(&got);
  free(want);
}

static void run_ok(const char *const *args, const char *out) {
  char *err = NULL;
  int rc = run_cli(&err, args);
  cr_assert_eq(rc, 0, "%s: rc %d, stderr: %s", out, rc, err);
  free(err);
}
#define RUN_OK(out, ...) run_ok((const char *[]){__VA_ARGS__, NULL}, out)

/* Deterministic values in [lo, hi] and float16-representable scales with
 * 11 significant bits (so float16 products round), some negative. */
static void fill_q(int *q, int64_t n, int lo, int hi, unsigned seed) {
  for (int64_t e = 0; e < n; ++e) {
    seed = seed * 1103515245u + 12345u;
    q[e] = lo + (int)((seed >> 8) % (unsigned)(hi - lo + 1));
  }
}
static void fill_scale(float *s, int64_t n, unsigned seed) {
  for (int64_t e = 0; e < n; ++e) {
    seed = seed * 1103515245u + 12345u;
    float m = 1.0f + (float)((seed >> 8) % 1024u) / 1024.0f;
    s[e] = (seed >> 30) & 1 ? -m / 8.0f : m / 4.0f;
  }
}

/* uint8 bits 8, float32 scales, no zero points (128), the last quantize
 * axis by default, a partial last block, negative int64 indices. */
Test(cli_gbq, uint8_bits8_float32_default_zero_point) {
  static int q[4 * 40];
  static float sc[4 * 3];
  fill_q(q, 4 * 40, 0, 255, 1);
  fill_scale(sc, 4 * 3, 2);
  static const int64_t idx[4] = {3, -1, 0, -4};
  gcase c = {K_UINT8, 8, 2, {4, 40}, q, 0, 1, 16, 2, {2, 2}, idx, sc, NULL, 0};
  save_case(&c, "a");
  RUN_OK("a.npy", "gather-block-quantized", "--bits", "8", "--block-size", "16",
         P("a_d.npy"), P("a_i.npy"), P("a_s.npy"), "-o", P("a.npy"));
  expect_out(&c, "a.npy");
  /* the same with quantize axis 1 and -1 given, and a .pb OUT */
  RUN_OK("a.pb", "gather-block-quantized", "--bits=8", "--block-size=16",
         "--quantize-axis", "-1", "--gather-axis", "0", P("a_d.npy"),
         P("a_i.npy"), P("a_s.npy"), "-o", P("a.pb"));
  expect_out(&c, "a.pb");
  /* -v: the device, then the command's kernel variant and times */
  char *err = NULL;
  int rc =
      CLI(&err, "-v", "gather-block-quantized", "--bits", "8", "--block-size",
          "16", P("a_d.npy"), P("a_i.npy"), P("a_s.npy"), "-o", P("a.npy"));
  cr_expect_eq(rc, 0, "rc %d: %s", rc, err);
  const char *dev = strstr(err, "clgather: device: ");
  cr_expect(dev != NULL &&
                strstr(dev, "\nclgather: gather-block-quantized: kernel "
                            "variant ") != NULL,
            "%s", err);
  free(err);
}

/* ONNX Runtime's uint8 4-bit rows (bits 4, the default) with zero points
 * packed per row, float16 scales; and the defaults: block 128, zero
 * point 8. */
Test(cli_gbq, uint8_bits4_rows_with_and_without_zero_points) {
  static int q[3 * 70], zp[3 * 5];
  static float sc[3 * 5];
  fill_q(q, 3 * 70, 0, 15, 3);
  fill_q(zp, 3 * 5, 0, 15, 4);
  fill_scale(sc, 3 * 5, 5);
  static const int64_t idx[3] = {2, 0, -2};
  gcase c = {K_UINT8, 4, 2, {3, 70}, q, 0, 1, 16, 1, {3}, idx, sc, zp, 1};
  save_case(&c, "b");
  RUN_OK("b.npy", "gather-block-quantized", "--block-size", "16",
         "--zero-points", P("b_zp.npy"), P("b_d.npy"), P("b_i.npy"),
         P("b_s.npy"), "-o", P("b.npy"));
  expect_out(&c, "b.npy");
  /* block 128 (the default: one block a row), zero point 8 */
  static float sc1[3];
  fill_scale(sc1, 3, 6);
  gcase d = {K_UINT8, 4, 2, {3, 70}, q, 0, 1, 128, 1, {3}, idx, sc1, NULL, 1};
  save_case(&d, "c");
  RUN_OK("c.npy", "gather-block-quantized", P("c_d.npy"), P("c_i.npy"),
         P("c_s.npy"), "-o", P("c.npy"));
  expect_out(&d, "c.npy");
}

/* uint4 and int4, one value a byte in the file, packed by the command over
 * the whole tensor (an odd element count: rows share bytes); 3-D values,
 * gather axis 1, quantize axis 0 or 2; zero points or none; both scale
 * types. */
Test(cli_gbq, four_bit_kinds_other_axes) {
  enum { N = 33 * 3 * 5 };
  static int q[N], qs[N], zp[3 * 3 * 5], zs[3 * 3 * 5];
  static float sc[3 * 3 * 5];
  fill_q(q, N, 0, 15, 7);
  fill_q(qs, N, -8, 7, 8);
  fill_q(zp, 3 * 3 * 5, 0, 15, 9);
  fill_q(zs, 3 * 3 * 5, -8, 7, 10);
  fill_scale(sc, 3 * 3 * 5, 11);
  static const int64_t idx[4] = {-1, 0, 2, 1};
  for (int kind = K_UINT4; kind <= K_INT4; ++kind)
    for (int half = 0; half < 2; ++half)
      for (int with_zp = 0; with_zp < 2; ++with_zp) {
        /* quantize axis 0: [33, 3, 5] in blocks of 16 (3 blocks) */
        gcase c = {kind, 4,  3,    {33, 3, 5}, kind == K_INT4 ? qs : q,
                   1,    0,  16,   2,          {2, 2},
                   idx,  sc, NULL, half};
        if (with_zp)
          c.zp = kind == K_INT4 ? zs : zp;
        char pre[16], out[24];
        snprintf(pre, sizeof pre, "k%d%d%d", kind, half, with_zp);
        snprintf(out, sizeof out, "%s.npy", pre);
        save_case(&c, pre);
        char d[64], i[64], s[64], z[64];
        snprintf(d, sizeof d, "%s_d.npy", pre);
        snprintf(i, sizeof i, "%s_i.npy", pre);
        snprintf(s, sizeof s, "%s_s.npy", pre);
        snprintf(z, sizeof z, "%s_zp.npy", pre);
        const char *kn = kind == K_INT4 ? "int4" : "uint4";
        if (with_zp)
          RUN_OK(out, "gather-block-quantized", "--kind", kn, "--gather-axis",
                 "1", "--quantize-axis", "0", "--block-size", "16",
                 "--zero-points", P(z), P(d), P(i), P(s), "-o", P(out));
        else
          RUN_OK(out, "gather-block-quantized", "--kind", kn,
                 "--gather-axis=-2", "--quantize-axis=-3", "--block-size=16",
                 P(d), P(i), P(s), "-o", P(out));
        expect_out(&c, out);
      }
  /* quantize axis 2 (the last, by default), gather axis 2 too: blocks of
   * 16 over 5 values, one a row */
  static float sc2[33 * 3];
  fill_scale(sc2, 33 * 3, 12);
  gcase e = {K_INT4, 4, 3, {33, 3, 5}, qs, 2, 2, 16, 1, {4}, idx, sc2, NULL, 0};
  save_case(&e, "e");
  RUN_OK("e.npy", "gather-block-quantized", "--kind", "int4", "--gather-axis",
         "2", "--block-size", "16", P("e_d.npy"), P("e_i.npy"), P("e_s.npy"),
         "-o", P("e.npy"));
  expect_out(&e, "e.npy");
}

static void expect_unchanged(const char *name, const char *content) {
  size_t len = 0;
  unsigned char *got = ct_read_file(P(name), &len);
  cr_assert_not_null(got, "%s was removed", name);
  cr_expect(len == strlen(content) && memcmp(got, content, len) == 0,
            "%s was changed", name);
  free(got);
}

Test(cli_gbq, out_of_range_index_exits_1_and_leaves_out) {
  static int q[4 * 32];
  static float sc[4 * 2];
  fill_q(q, 4 * 32, 0, 15, 13);
  fill_scale(sc, 4 * 2, 14);
  static const int64_t idx[3] = {1, 4, 0};
  gcase c = {K_UINT4, 4, 2, {4, 32}, q, 0, 1, 16, 1, {3}, idx, sc, NULL, 0};
  save_case(&c, "x");
  char *err = NULL;
  int rc =
      CLI(&err, "gather-block-quantized", "--kind", "uint4", "--block-size",
          "16", P("x_d.npy"), P("x_i.npy"), P("x_s.npy"), "-o", P("x.npy"));
  cr_expect_eq(rc, 1, "rc %d: %s", rc, err);
  cr_expect(strstr(err, "4") != NULL && strstr(err, "[1]") != NULL,
            "the message names neither the value nor its position: %s", err);
  free(err);
  cr_expect(!ct_exists(P("x.npy")), "OUT was created");
  cr_expect_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  ct_write_file(P("keep.npy"), "keep", 4);
  rc = CLI(&err, "gather-block-quantized", "--kind", "uint4", "--block-size",
           "16", P("x_d.npy"), P("x_i.npy"), P("x_s.npy"), "-o", P("keep.npy"));
  cr_expect_eq(rc, 1, "rc %d: %s", rc, err);
  free(err);
  expect_unchanged("keep.npy", "keep");
  /* a value outside int4's range in a one-byte-a-value file */
  static int bad[4 * 32];
  fill_q(bad, 4 * 32, -8, 7, 15);
  bad[37] = 8;
  gcase b = {K_INT4, 4, 2, {4, 32}, bad, 0, 1, 16, 1, {3}, idx, sc, NULL, 0};
  save_case(&b, "y");
  save("y_i.npy", CLG_DTYPE_INT64, 1, (const int64_t[]){1},
       (const int64_t[]){0});
  rc = CLI(&err, "gather-block-quantized", "--kind", "int4", "--block-size",
           "16", P("y_d.npy"), P("y_i.npy"), P("y_s.npy"), "-o", P("keep.npy"));
  cr_expect_eq(rc, 1, "rc %d: %s", rc, err);
  cr_expect(strstr(err, "37") != NULL, "%s", err);
  free(err);
  /* uint4 values given as int8: the wrong type for the kind */
  rc = CLI(&err, "gather-block-quantized", "--kind", "uint4", "--block-size",
           "16", P("y_d.npy"), P("y_i.npy"), P("y_s.npy"), "-o", P("keep.npy"));
  cr_expect_eq(rc, 1, "rc %d: %s", rc, err);
  free(err);
  /* a block size the library refuses, a gather axis out of range */
  rc = CLI(&err, "gather-block-quantized", "--kind", "uint4", "--block-size",
           "24", P("x_d.npy"), P("y_i.npy"), P("x_s.npy"), "-o", P("keep.npy"));
  cr_expect_eq(rc, 1, "rc %d: %s", rc, err);
  free(err);
  rc = CLI(&err, "gather-block-quantized", "--kind", "uint4", "--block-size",
           "16", "--gather-axis", "2", P("x_d.npy"), P("y_i.npy"), P("x_s.npy"),
           "-o", P("keep.npy"));
  cr_expect_eq(rc, 1, "rc %d: %s", rc, err);
  free(err);
  expect_unchanged("keep.npy", "keep");
  /* a device that does not exist */
  rc = CLI(&err, "gather-block-quantized", "--kind", "uint4", "--block-size",
           "16", "--device", "no-such-device-xyz", P("x_d.npy"), P("y_i.npy"),
           P("x_s.npy"), "-o", P("keep.npy"));
  cr_expect_eq(rc, 3, "rc %d: %s", rc, err);
  free(err);
  expect_unchanged("keep.npy", "keep");
}

Test(cli_gbq, usage_errors_exit_2) {
  static const char *const bad[][4] = {
      {"--kind", "int8", NULL},       {"--bits", "3", NULL},
      {"--bits", "x", NULL},          {"--kind", "uint4", "--bits", "8"},
      {"--gather-axis", "1.5", NULL}, {"--block-size", "", NULL},
      {"--quantize-axis", "q", NULL}, {"--nope", "1", NULL},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    char *err = NULL;
    int rc = bad[k][2]
                 ? CLI(&err, "gather-block-quantized", bad[k][0], bad[k][1],
                       bad[k][2], bad[k][3], "d.npy", "i.npy", "s.npy", "-o",
                       P("u.npy"))
                 : CLI(&err, "gather-block-quantized", bad[k][0], bad[k][1],
                       "d.npy", "i.npy", "s.npy", "-o", P("u.npy"));
    cr_expect_eq(rc, 2, "%s %s: rc %d: %s", bad[k][0], bad[k][1], rc, err);
    cr_expect(ct_is_usage_line(err, "gather-block-quantized"), "%s", err);
    free(err);
  }
  char *err = NULL;
  cr_expect_eq(
      CLI(&err, "gather-block-quantized", "d.npy", "i.npy", "-o", P("u.npy")),
      2);
  cr_expect(strstr(err, "SCALES") != NULL, "%s", err);
  free(err);
  cr_expect_eq(CLI(&err, "gather-block-quantized", "d.npy", "i.npy", "s.npy"),
               2);
  cr_expect(strstr(err, "-o OUT") != NULL, "%s", err);
  free(err);
  cr_expect_eq(CLI(&err, "gather-block-quantized", "d.npy", "i.npy", "s.npy",
                   "z.npy", "-o", P("u.npy")),
               2);
  free(err);
  cr_expect(!ct_exists(P("u.npy")));
}
