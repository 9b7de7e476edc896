/* clg_mpi_embedding_bag (host/mpi/mpi_bag.c) under mpirun: run with 1, 2,
 * 3 and 4 ranks by ctest. Every rank builds the whole (small) table from a
 * fixed seed and its own bags, runs the single-process clg_embedding_bag()
 * of the whole table on its device as the reference, and compares its
 * distributed output byte for byte: offsets (int32 and int64, with and
 * without include_last_offset), fixed-size and segment-id bags, modes sum,
 * mean, max and sqrt_n, per-sample weights, padding_idx (negative too),
 * float32 and float16, tables quantized per row (8-, 4- and 2-bit rows,
 * moved packed), even, uneven and one-rank shard layouts, host and
 * cl_mem shards, ranks without bags, the plan reused; float32 also against
 * the definition written out here. Then the error paths: every rank the
 * same status and message, no output written anywhere. A plain C program;
 * exits 1 on any failure. */
#include "mpi_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- inputs */

/* A float exactly representable in float16 (the tables' and weights'
 * values: small multiples of powers of two) to its bits. */
static uint16_t half_bits(float f) {
  if (f == 0)
    return signbit(f) ? 0x8000 : 0;
  uint16_t sign = f < 0 ? 0x8000 : 0;
  int e;
  float m = frexpf(fabsf(f), &e); /* f = m * 2^e, m in [0.5, 1) */
  /* normal half: 1.f * 2^(e - 1), biased exponent e - 1 + 15 */
  uint16_t mant = (uint16_t)((m * 2 - 1) * 1024);
  return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | mant);
}

/* One rank's bags: indices, the bag descriptor, weights. */
typedef struct bag_case {
  clg_bag_params bp;
  int64_t nbags, n, fixed, nbag_words;
  int64_t *idx, *bag;
  float *psw;
} bag_case;

static void case_free(bag_case *c) {
  free(c->idx);
  free(c->bag);
  free(c->psw);
}

/* Rank r's bags in `form`: bag sizes 0..5 (fixed: 3), ids from `distinct`
 * rows (heavy duplicates), one entry in five the padding row when pad. */
static void make_case(bag_case *c, clg_bag_form form, clg_bag_mode mode,
                      bool psw, bool pad, bool last, int64_t rows,
                      int64_t distinct, unsigned seed) {
  memset(c, 0, sizeof *c);
  c->bp.mode = mode;
  c->bp.form = form;
  c->bp.flags = (pad ? CLG_BAG_PADDING_IDX : 0) |
                (last ? CLG_BAG_INCLUDE_LAST_OFFSET : 0);
  c->bp.padding_idx = (seed & 1) ? -2 : 3; /* row rows - 2 or row 3 */
  int64_t padrow = c->bp.padding_idx < 0 ? rows - 2 : 3;
  /* Rank 1 has no bags in every third case. */
  c->nbags = (seed % 3 == 0 && g_rank == 1) ? 0 : 4 + g_rank + seed % 3;
  int64_t *size = calloc((size_t)c->nbags + 1, sizeof *size);
  c->fixed = 3;
  for (int64_t b = 0; b < c->nbags; ++b)
    size[b] = form == CLG_BAGS_FIXED ? c->fixed
                                     : mix((uint64_t)b * 17 + seed * 7 +
                                           (uint64_t)g_rank * 1013) % 6;
  for (int64_t b = 0; b < c->nbags; ++b)
    c->n += size[b];
  c->idx = malloc((size_t)c->n * 8 + 8);
  c->psw = psw ? malloc((size_t)c->n * 4 + 4) : NULL;
  for (int64_t i = 0; i < c->n; ++i) {
    uint32_t h = mix((uint64_t)i * 131 + seed * 977 + (uint64_t)g_rank * 7919);
    c->idx[i] = (int64_t)(h % (uint32_t)distinct) % rows;
    if (pad && h % 5 == 0)
      c->idx[i] = padrow;
    if (psw)
      c->psw[i] = (float)((int)(h >> 16) % 33 - 16) / 8.0f;
  }
  if (form == CLG_BAGS_OFFSETS) {
    c->nbag_words = c->nbags + (last ? 1 : 0);
    c->bag = malloc((size_t)c->nbag_words * 8 + 8);
    int64_t at = 0;
    for (int64_t b = 0; b < c->nbag_words; ++b) {
      c->bag[b] = at;
      at += b < c->nbags ? size[b] : 0;
    }
  } else if (form == CLG_BAGS_SEGMENT_IDS) {
    c->nbag_words = c->n;
    c->bag = malloc((size_t)c->n * 8 + 8);
    for (int64_t b = 0, at = 0; b < c->nbags; ++b)
      for (int64_t k = 0; k < size[b]; ++k)
        c->bag[at++] = b;
  }
  free(size);
}

/* The definition (clgather_bag.h) for float32, written out. */
static void define_f32(const bag_case *c, const float *table, int64_t rows,
                       int64_t dim, float *out) {
  int64_t padrow = -1;
  if (c->bp.flags & CLG_BAG_PADDING_IDX)
    padrow = c->bp.padding_idx < 0 ? c->bp.padding_idx + rows
                                   : c->bp.padding_idx;
  for (int64_t b = 0; b < c->nbags; ++b) {
    int64_t s, e;
    if (c->bp.form == CLG_BAGS_FIXED) {
      s = b * c->fixed;
      e = s + c->fixed;
    } else if (c->bp.form == CLG_BAGS_OFFSETS) {
      s = c->bag[b];
      e = b + 1 < c->nbag_words ? c->bag[b + 1] : c->n;
    } else {
      for (s = 0; s < c->n && c->bag[s] < b; ++s)
        ;
      for (e = s; e < c->n && c->bag[e] == b; ++e)
        ;
    }
    for (int64_t j = 0; j < dim; ++j) {
      float acc = 0.0f;
      int64_t count = 0;
      for (int64_t i = s; i < e; ++i) {
        if (c->idx[i] == padrow)
          continue;
        float v = table[c->idx[i] * dim + j];
        if (c->bp.mode == CLG_BAG_MAX)
          acc = count == 0 ? v : (v > acc || (v == acc && !signbit(v)) ? v : acc);
        else
          acc = c->psw ? fmaf(c->psw[i], v, acc) : acc + v;
        ++count;
      }
      if (count && c->bp.mode == CLG_BAG_MEAN)
        acc = acc / (float)count;
      if (count && c->bp.mode == CLG_BAG_SQRT_N)
        acc = acc / sqrtf((float)count);
      out[b * dim + j] = count ? acc : 0.0f;
    }
  }
}

/* ------------------------------------------------------------- results */

/* Rank's bags through clg_mpi_embedding_bag (or a plan, twice) against
 * the single-process clg_embedding_bag of the whole table. */
static void check_bag(clg_bag_form form, clg_bag_mode mode, clg_dtype dt,
                      bool psw, bool pad, bool last, clg_dtype itype,
                      int layout, bool on_device, bool plan, unsigned seed) {
  const int64_t rows = 41, dim = 6;
  table_set s;
  table_open(&s, rows, dim, layout, on_device, seed);
  size_t es = clg_dtype_size(dt);
  int64_t lo = s.t.lo, hi = s.t.hi;
  /* float16: the same values as half bits (the shard rebuilt). */
  uint16_t *all16 = NULL, *shard16 = NULL;
  cl_mem mem16 = NULL;
  int64_t sshape[2] = {hi - lo, dim};
  if (dt == CLG_DTYPE_FLOAT16) {
    all16 = malloc((size_t)(rows * dim) * 2);
    for (int64_t i = 0; i < rows * dim; ++i)
      all16[i] = half_bits(s.all[i]);
    shard16 = all16 + lo * dim;
    if (on_device) {
      cl_int err;
      mem16 = clCreateBuffer(clg_context_cl_context(g_ctx),
                             CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             (size_t)((hi - lo) * dim) * 2 + 2, all16 + lo * dim,
                             &err);
      s.t.shard = clg_tensor_buffer(dt, 2, sshape, mem16, 0);
    } else {
      s.t.shard = clg_tensor_host(dt, 2, sshape, shard16);
    }
  }
  bag_case c;
  make_case(&c, form, mode, psw, pad, last, rows, 1 + seed % 20, seed);
  int32_t *idx32 = malloc((size_t)c.n * 4 + 4), *bag32 =
                       malloc((size_t)c.nbag_words * 4 + 4);
  for (int64_t i = 0; i < c.n; ++i)
    idx32[i] = (int32_t)c.idx[i];
  for (int64_t i = 0; i < c.nbag_words; ++i)
    bag32[i] = (int32_t)c.bag[i];
  uint16_t *psw16 = malloc((size_t)c.n * 2 + 2);
  for (int64_t i = 0; psw && i < c.n; ++i)
    psw16[i] = half_bits(c.psw[i]);

  bool i64 = itype == CLG_DTYPE_INT64;
  int64_t xs[2] = {c.n, 0}, bs[1] = {c.nbag_words}, os[2] = {c.nbags, dim};
  int32_t xr = 1;
  if (form == CLG_BAGS_FIXED) {
    xs[0] = c.nbags;
    xs[1] = c.fixed;
    xr = 2;
  }
  clg_tensor x = clg_tensor_host(itype, xr, xs, i64 ? (void *)c.idx : idx32);
  /* The bags in the other integer type than the indices. */
  clg_tensor bt = clg_tensor_host(i64 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64, 1,
                                  bs, i64 ? (void *)bag32 : c.bag);
  clg_tensor pt = clg_tensor_host(dt, xr, xs,
                                  dt == CLG_DTYPE_FLOAT16 ? (void *)psw16
                                                          : c.psw);
  size_t obytes = (size_t)(c.nbags * dim) * es;
  unsigned char *want = malloc(obytes + 1), *got = malloc(obytes + 1);
  memset(want, 0x5a, obytes);
  memset(got, 0xa5, obytes);
  int64_t ws[2] = {rows, dim};
  clg_tensor w = clg_tensor_host(dt, 2, ws,
                                 dt == CLG_DTYPE_FLOAT16 ? (void *)all16
                                                         : s.all);
  clg_tensor ow = clg_tensor_host(dt, 2, os, want), og =
                                                        clg_tensor_host(dt, 2,
                                                                        os, got);
  const clg_tensor *bp = form == CLG_BAGS_FIXED ? NULL : &bt;
  const clg_tensor *pp = psw ? &pt : NULL;
  clg_status st = clg_embedding_bag(g_ctx, &c.bp, &w, &x, bp, pp, &ow, NULL, 0,
                                    NULL, NULL);
  CHECK(st == CLG_SUCCESS, "single-process EmbeddingBag: %s", clg_last_error());
  if (plan) {
    clg_mpi_plan *p = NULL;
    st = clg_mpi_plan_create(&s.t, &p);
    CHECK(st == CLG_SUCCESS, "plan: %s", clg_mpi_last_error());
    for (int k = 0; st == CLG_SUCCESS && k < 2; ++k) {
      memset(got, 0xa5, obytes);
      st = clg_mpi_plan_embedding_bag(p, &c.bp, &x, bp, pp, &og);
    }
    clg_mpi_plan_destroy(p);
  } else {
    st = clg_mpi_embedding_bag(&s.t, &c.bp, &x, bp, pp, &og);
  }
  CHECK(st == CLG_SUCCESS, "mpi EmbeddingBag form %d mode %d: %s", (int)form,
        (int)mode, clg_mpi_last_error());
  CHECK(memcmp(got, want, obytes) == 0,
        "form %d mode %d %s psw %d pad %d last %d layout %d device %d plan %d "
        "seed %u: output differs from the single-process one",
        (int)form, (int)mode, clg_dtype_name(dt), psw, pad, last, layout,
        on_device, plan, seed);
  if (dt == CLG_DTYPE_FLOAT) {
    float *def = malloc(obytes + 4);
    define_f32(&c, s.all, rows, dim, def);
    CHECK(memcmp(def, want, obytes) == 0,
          "form %d mode %d seed %u: single-process output differs from the "
          "definition",
          (int)form, (int)mode, seed);
    free(def);
  }
  free(want);
  free(got);
  free(idx32);
  free(bag32);
  free(psw16);
  case_free(&c);
  if (mem16)
    clReleaseMemObject(mem16);
  free(all16);
  table_close(&s);
}

/* A table quantized per row (weight_format: 8-, 4- or 2-bit rows of 8
 * values), sharded as its packed uint8 rows, against the single-process
 * clg_embedding_bag() of the whole packed table. */
static void check_quantized(uint32_t format, clg_bag_form form,
                            clg_bag_mode mode, bool psw, bool pad, int layout,
                            bool on_device, bool plan, unsigned seed) {
  const int64_t rows = 37, dim = 8;
  const int64_t per = format == CLG_BAG_WEIGHT_8BIT_ROWWISE   ? 1
                      : format == CLG_BAG_WEIGHT_4BIT_ROWWISE ? 2
                                                              : 4;
  const int64_t tail = format == CLG_BAG_WEIGHT_8BIT_ROWWISE ? 8 : 4;
  const int64_t rb = dim / per + tail;
  table_set s; /* its layout's rows [lo, hi); its float shard replaced */
  table_open(&s, rows, 1, layout, false, seed);
  int64_t lo = s.t.lo, hi = s.t.hi;
  unsigned char *all = malloc((size_t)(rows * rb));
  for (int64_t r = 0; r < rows; ++r) {
    unsigned char *row = all + r * rb;
    for (int64_t j = 0; j < dim / per; ++j)
      row[j] = (unsigned char)mix((uint64_t)(r * 64 + j) + seed * 31);
    float scale = (float)(1 + r % 7) / 16.0f, bias = (float)(r % 5) - 2.0f;
    if (tail == 8) {
      memcpy(row + dim, &scale, 4);
      memcpy(row + dim + 4, &bias, 4);
    } else {
      uint16_t hs = half_bits(scale), hb = half_bits(bias);
      memcpy(row + dim / per, &hs, 2);
      memcpy(row + dim / per + 2, &hb, 2);
    }
  }
  int64_t sshape[2] = {hi - lo, rb};
  cl_mem mem = NULL;
  if (on_device) {
    cl_int err;
    mem = clCreateBuffer(clg_context_cl_context(g_ctx),
                         CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                         (size_t)((hi - lo) * rb) + 1, all + lo * rb, &err);
    CHECK(mem != NULL, "clCreateBuffer %d", err);
    s.t.shard = clg_tensor_buffer(CLG_DTYPE_UINT8, 2, sshape, mem, 0);
  } else {
    s.t.shard = clg_tensor_host(CLG_DTYPE_UINT8, 2, sshape, all + lo * rb);
  }
  bag_case c;
  make_case(&c, form, mode, psw, pad, false, rows, 1 + seed % 20, seed);
  c.bp.weight_format = format;
  int64_t xs[2] = {c.n, 0}, bs[1] = {c.nbag_words}, os[2] = {c.nbags, dim};
  int32_t xr = 1;
  if (form == CLG_BAGS_FIXED) {
    xs[0] = c.nbags;
    xs[1] = c.fixed;
    xr = 2;
  }
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, xr, xs, c.idx);
  clg_tensor bt = clg_tensor_host(CLG_DTYPE_INT64, 1, bs, c.bag);
  clg_tensor pt = clg_tensor_host(CLG_DTYPE_FLOAT, xr, xs, c.psw);
  size_t obytes = (size_t)(c.nbags * dim) * 4;
  unsigned char *want = malloc(obytes + 1), *got = malloc(obytes + 1);
  memset(want, 0x5a, obytes);
  memset(got, 0xa5, obytes);
  int64_t ws[2] = {rows, rb};
  clg_tensor w = clg_tensor_host(CLG_DTYPE_UINT8, 2, ws, all);
  clg_tensor ow = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, want),
             og = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, got);
  const clg_tensor *bp = form == CLG_BAGS_FIXED ? NULL : &bt;
  const clg_tensor *pp = psw ? &pt : NULL;
  clg_status st =
      clg_embedding_bag(g_ctx, &c.bp, &w, &x, bp, pp, &ow, NULL, 0, NULL, NULL);
  CHECK(st == CLG_SUCCESS, "single-process quantized EmbeddingBag: %s",
        clg_last_error());
  if (plan) {
    clg_mpi_plan *p = NULL;
    st = clg_mpi_plan_create(&s.t, &p);
    CHECK(st == CLG_SUCCESS, "plan: %s", clg_mpi_last_error());
    for (int k = 0; st == CLG_SUCCESS && k < 2; ++k)
      st = clg_mpi_plan_embedding_bag(p, &c.bp, &x, bp, pp, &og);
    clg_mpi_plan_destroy(p);
  } else {
    st = clg_mpi_embedding_bag(&s.t, &c.bp, &x, bp, pp, &og);
  }
  CHECK(st == CLG_SUCCESS, "mpi quantized EmbeddingBag: %s",
        clg_mpi_last_error());
  CHECK(memcmp(got, want, obytes) == 0,
        "format %u form %d mode %d psw %d pad %d layout %d device %d plan %d "
        "seed %u: output differs from the single-process one",
        (unsigned)format, (int)form, (int)mode, psw, pad, layout, on_device,
        plan, seed);
  free(want);
  free(got);
  case_free(&c);
  if (mem)
    clReleaseMemObject(mem);
  free(all);
  table_close(&s);
}

/* --------------------------------------------------------------- errors */

/* output untouched: still all `fill` bytes. */
static void expect_untouched(const void *p, size_t n, unsigned char fill,
                             const char *what) {
  for (size_t i = 0; i < n; ++i)
    if (((const unsigned char *)p)[i] != fill) {
      CHECK(false, "%s: output byte %zu written", what, i);
      return;
    }
}

/* A uint8 shard whose rows are too short for the 8-bit format's scale and
 * bias: every rank refuses before any row moves, no output written. */
static void check_quantized_short_rows(void) {
  table_set s;
  table_open(&s, 10, 1, 0, false, 5);
  unsigned char rows[10 * 5] = {0};
  int64_t sshape[2] = {s.t.hi - s.t.lo, 5};
  s.t.shard = clg_tensor_host(CLG_DTYPE_UINT8, 2, sshape, rows);
  int64_t ids[2] = {1, 2}, offs[1] = {0}, is[1] = {2}, bs[1] = {1},
          os[2] = {1, 0};
  float out[1] = {0};
  memset(out, 0x77, sizeof out);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, is, ids);
  clg_tensor b = clg_tensor_host(CLG_DTYPE_INT64, 1, bs, offs);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_bag_params q8 = {.weight_format = CLG_BAG_WEIGHT_8BIT_ROWWISE};
  expect_everywhere(clg_mpi_embedding_bag(&s.t, &q8, &x, &b, NULL, &o),
                    CLG_ERROR_INVALID_SHAPE, "scale and a bias of 8 bytes",
                    "quantized rows too short");
  expect_untouched(out, sizeof out, 0x77, "quantized rows too short");
  table_close(&s);
}

static void check_errors(void) {
  const int64_t rows = 10, dim = 3;
  table_set s;
  table_open(&s, rows, dim, 0, false, 77);
  int64_t ids[6] = {1, 9, 2, 0, 5, 5}, offs[2] = {0, 3};
  float out[2 * 3];
  int64_t is[1] = {6}, bs[1] = {2}, os[2] = {2, dim};
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, is, ids);
  clg_tensor b = clg_tensor_host(CLG_DTYPE_INT64, 1, bs, offs);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_bag_params sum = {.mode = CLG_BAG_SUM};
  char needle[128];

  /* An index past the global rows on the last rank (a valid local row
   * number on any shard but the last's): every rank fails, no output. */
  if (g_rank == g_size - 1)
    ids[2] = rows;
  memset(out, 0x77, sizeof out);
  snprintf(needle, sizeof needle,
           "rank %d's EmbeddingBag: indices[2] is 10, outside [0, 9]",
           g_size - 1);
  expect_everywhere(clg_mpi_embedding_bag(&s.t, &sum, &x, &b, NULL, &o),
                    CLG_ERROR_INDEX_OUT_OF_BOUNDS, needle, "index past rows");
  expect_untouched(out, sizeof out, 0x77, "index past rows");
  ids[2] = 2;

  /* A negative index on rank 0 (gathers count from the back; EmbeddingBag
   * does not). */
  if (g_rank == 0)
    ids[4] = -1;
  memset(out, 0x77, sizeof out);
  expect_everywhere(clg_mpi_embedding_bag(&s.t, &sum, &x, &b, NULL, &o),
                    CLG_ERROR_INDEX_OUT_OF_BOUNDS,
                    "rank 0's EmbeddingBag: indices[4] is -1",
                    "negative index");
  expect_untouched(out, sizeof out, 0x77, "negative index");
  ids[4] = 5;

  /* Bad offsets on the last rank: checked before the indices, as
   * clg_embedding_bag() does (the bags first). */
  if (g_rank == g_size - 1) {
    offs[1] = 7;
    ids[0] = -3;
  }
  memset(out, 0x77, sizeof out);
  expect_everywhere(clg_mpi_embedding_bag(&s.t, &sum, &x, &b, NULL, &o),
                    CLG_ERROR_INVALID_BAGS, "offsets[1] is 7", "bad offsets");
  expect_untouched(out, sizeof out, 0x77, "bad offsets");
  offs[1] = 3;
  ids[0] = 1;

  /* per_sample_weights with mode max on rank 0 only. */
  float psw[6] = {1, 1, 1, 1, 1, 1};
  clg_tensor pt = clg_tensor_host(CLG_DTYPE_FLOAT, 1, is, psw);
  clg_bag_params max = {.mode = CLG_BAG_MAX};
  memset(out, 0x77, sizeof out);
  expect_everywhere(clg_mpi_embedding_bag(&s.t, g_rank == 0 ? &max : &sum, &x,
                                          &b, &pt, &o),
                    CLG_ERROR_INVALID_ARGUMENT, "mode sum only",
                    "psw with max");
  expect_untouched(out, sizeof out, 0x77, "psw with max");

  /* A quantized format on the last rank over this float32 table: its
   * rows are not uint8, found before any row moves. */
  clg_bag_params q8 = {.weight_format = CLG_BAG_WEIGHT_8BIT_ROWWISE};
  memset(out, 0x77, sizeof out);
  expect_everywhere(clg_mpi_embedding_bag(&s.t,
                                          g_rank == g_size - 1 ? &q8 : &sum, &x,
                                          &b, NULL, &o),
                    CLG_ERROR_UNSUPPORTED_DTYPE, "uint8", "quantized format");
  expect_untouched(out, sizeof out, 0x77, "quantized format");

  /* padding_idx beyond the global rows (valid for a local table of 6). */
  clg_bag_params padp = {.flags = CLG_BAG_PADDING_IDX, .padding_idx = 10};
  expect_everywhere(clg_mpi_embedding_bag(&s.t, &padp, &x, &b, NULL, &o),
                    CLG_ERROR_INVALID_ARGUMENT, "padding_idx 10 is outside",
                    "padding_idx");

  /* An output of the wrong width, then of the wrong bag count, on the
   * last rank. */
  int64_t bad_os[2] = {2, dim + (g_rank == g_size - 1 ? 1 : 0)};
  clg_tensor bo = clg_tensor_host(CLG_DTYPE_FLOAT, 2, bad_os, out);
  snprintf(needle, sizeof needle,
           "rank %d's output has shape [2, 4]; EmbeddingBag with these bags "
           "makes [2, 3]",
           g_size - 1);
  expect_everywhere(clg_mpi_embedding_bag(&s.t, &sum, &x, &b, NULL, &bo),
                    CLG_ERROR_SHAPE_MISMATCH, needle, "output width");
  int64_t bad_os2[2] = {1 + (g_rank == g_size - 1 ? 0 : 1), dim};
  clg_tensor bo2 = clg_tensor_host(CLG_DTYPE_FLOAT, 2, bad_os2, out);
  snprintf(needle, sizeof needle,
           "rank %d's output has shape [1, 3]; EmbeddingBag with these bags "
           "makes [2, 3]",
           g_size - 1);
  expect_everywhere(clg_mpi_embedding_bag(&s.t, &sum, &x, &b, NULL, &bo2),
                    CLG_ERROR_SHAPE_MISMATCH, needle, "output bags");

  /* cl_mem indices; offsets NULL; a table of rank 3. */
  clg_tensor dx = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, s.mem, 0);
  expect_everywhere(clg_mpi_embedding_bag(&s.t, &sum,
                                          g_rank == 0 ? &dx : &x, &b, NULL,
                                          &o),
                    CLG_ERROR_INVALID_ARGUMENT, "host memory",
                    "cl_mem indices");
  expect_everywhere(clg_mpi_embedding_bag(&s.t, &sum, &x, NULL, NULL, &o),
                    CLG_ERROR_NULL_ARGUMENT, "offsets", "NULL offsets");
  {
    clg_mpi_table t3 = s.t;
    int64_t s3[3] = {s.t.hi - s.t.lo, dim, 1};
    t3.shard = clg_tensor_host(CLG_DTYPE_FLOAT, 3, s3, s.shard);
    expect_everywhere(clg_mpi_embedding_bag(&t3, &sum, &x, &b, NULL, &o),
                      CLG_ERROR_INVALID_RANK, "rank 2", "table of rank 3");
  }

  /* The plan keeps no gather index after an EmbeddingBag. */
  {
    clg_mpi_plan *p = NULL;
    CHECK(clg_mpi_plan_create(&s.t, &p) == CLG_SUCCESS, "plan");
    clg_status st = clg_mpi_plan_embedding_bag(p, &sum, &x, &b, NULL, &o);
    CHECK(st == CLG_SUCCESS, "plan EmbeddingBag: %s", clg_mpi_last_error());
    int64_t us[2] = {6, dim};
    float upd[6 * 3] = {0};
    clg_tensor u = clg_tensor_host(CLG_DTYPE_FLOAT, 2, us, upd);
    clg_scatter_params add = {.reduction = CLG_REDUCTION_ADD};
    expect_everywhere(clg_mpi_plan_scatter(p, NULL, &u, &add),
                      CLG_ERROR_INVALID_ARGUMENT, NULL, "scatter reuse");
    clg_mpi_plan_destroy(p);
  }
  table_close(&s);
}

int main(int argc, char **argv) {
  mpi_test_start(&argc, &argv);
  unsigned seed = 1;
  static const clg_bag_form forms[] = {CLG_BAGS_OFFSETS, CLG_BAGS_FIXED,
                                       CLG_BAGS_SEGMENT_IDS};
  static const clg_dtype dts[] = {CLG_DTYPE_FLOAT, CLG_DTYPE_FLOAT16};
  for (int f = 0; f < 3; ++f)
    for (int d = 0; d < 2; ++d)
      for (int mode = 0; mode < 4; ++mode)
        for (int pad = 0; pad < 2; ++pad) {
          bool last = forms[f] == CLG_BAGS_OFFSETS && (seed & 2);
          clg_dtype it = seed & 4 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
          int layout = (int)(seed % 3);
          bool dev = (seed / 3) & 1, plan = seed % 5 == 0;
          check_bag(forms[f], (clg_bag_mode)mode, dts[d], false, pad, last,
                    it, layout, dev, plan, seed++);
          if (mode == CLG_BAG_SUM)
            check_bag(forms[f], CLG_BAG_SUM, dts[d], true, pad,
                      forms[f] == CLG_BAGS_OFFSETS && !last, it,
                      (layout + 1) % 3, !dev, !plan, seed++);
        }
  /* Tables quantized per row: every format and mode, the forms in turn. */
  static const uint32_t formats[] = {CLG_BAG_WEIGHT_8BIT_ROWWISE,
                                     CLG_BAG_WEIGHT_4BIT_ROWWISE,
                                     CLG_BAG_WEIGHT_2BIT_ROWWISE};
  for (int q = 0; q < 3; ++q)
    for (int mode = 0; mode < 4; ++mode, ++seed)
      check_quantized(formats[q], forms[(q + mode) % 3], (clg_bag_mode)mode,
                      mode == CLG_BAG_SUM, seed & 1, (int)(seed % 3),
                      (seed / 3) & 1, seed % 4 == 0, seed);
  check_quantized_short_rows();
  check_errors();
  return mpi_test_end("test_mpi_bag");
}
