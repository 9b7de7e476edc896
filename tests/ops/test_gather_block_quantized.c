/*
 * clg_gather_block_quantized() (clgather/clgather_quantized.h: ONNX
 * Runtime's com.microsoft GatherBlockQuantized-1):
 *  - against the plain-C reference (ref_gather_block_quantized()) byte for
 *    byte on generated cases: every kind and bits, float32 and float16
 *    scales, with and without zero points, gather and quantize axes in
 *    every combination the kind allows (the same axis too, for the 4-bit
 *    kinds), ranks 1 to 3, partial last blocks, negative indices, int32
 *    and int64 indices of rank 0 to 2, every operand in host memory or in
 *    a cl_mem at a nonzero offset (the bytes around it checked untouched),
 *    or cl_mem indices with a host output and the other way round; called
 *    synchronously, asynchronously (clg_gather_block_quantized_async())
 *    and through plans of both kinds;
 *  - NaN and infinite scales as data; an empty output;
 *  - every error of the header's list that a call can produce, with its
 *    status, the words of its message and the output's bytes unchanged,
 *    by every entry point (an index out of range asynchronously: from
 *    clg_outcome_wait(), the gated kernel having written nothing);
 *  - plans' own rules: templates against the enqueue's tensors, the
 *    outcome against the flags, plans of other kinds refused both ways.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/testutil.h"

/* ------------------------------------------------------------ operands */

#define GUARD 16

/* An operand: host memory (a copy of its bytes) or a cl_mem holding them
 * at `off`, GUARD sentinel bytes after them. */
typedef struct operand {
  clg_tensor t;
  unsigned char *host;
  cl_mem mem;
  size_t off, bytes;
} operand;

static void op_make(operand *o, clg_dtype dt, int32_t rank,
                    const int64_t *shape, size_t bytes, const void *src,
                    bool buffer, size_t off) {
  memset(o, 0, sizeof *o);
  o->bytes = bytes;
  o->off = buffer ? off : 0;
  if (!buffer) {
    o->host = malloc(bytes + 1);
    cr_assert(o->host);
    if (src)
      memcpy(o->host, src, bytes);
    else
      memset(o->host, (int)TU_SENTINEL, bytes);
    o->t = clg_tensor_host(dt, rank, shape, o->host);
    return;
  }
  size_t total = off + bytes + GUARD;
  unsigned char *img = malloc(total);
  cr_assert(img);
  memset(img, (int)TU_SENTINEL, total);
  if (src)
    memcpy(img + off, src, bytes);
  o->mem = tu_buffer_create(total, img);
  free(img);
  o->t = clg_tensor_buffer(dt, rank, shape, o->mem, off);
}

/* The operand's bytes; for a cl_mem, also whether its bytes before and
 * after still hold the sentinel. */
static bool op_read(const operand *o, void *dst) {
  if (!o->mem) {
    memcpy(dst, o->host, o->bytes);
    return true;
  }
  size_t total = o->off + o->bytes + GUARD;
  unsigned char *img = malloc(total);
  cr_assert(img);
  tu_buffer_read(o->mem, 0, total, img);
  memcpy(dst, img + o->off, o->bytes);
  bool ok = true;
  for (size_t i = 0; i < total; ++i)
    if ((i < o->off || i >= o->off + o->bytes) && img[i] != TU_SENTINEL)
      ok = false;
  free(img);
  return ok;
}

static void op_free(operand *o) {
  free(o->host);
  if (o->mem)
    clReleaseMemObject(o->mem);
  memset(o, 0, sizeof *o);
}

/* ------------------------------------------------------- entry points */

/* How a test calls the library with its operands. */
typedef enum call_how {
  HOW_HOST,        /* every operand host memory, clg_gather_block_quantized */
  HOW_BUFFER,      /* every operand a cl_mem, the same call */
  HOW_ASYNC,       /* every operand a cl_mem, the asynchronous call */
  HOW_PLAN,        /* every operand a cl_mem, a plan (flags 0), baked */
  HOW_PLAN_ASYNC,  /* the same, CLG_PLAN_ASYNC_CHECK */
  HOW_MIXED,       /* cl_mem indices, host output, the others host memory:
                      the synchronous call (values checked first) */
  HOW_MIXED_OUT,   /* host indices, the others cl_mem: the asynchronous
                      call (values checked on the host) */
  HOW_BUFFER_WAIT, /* HOW_BUFFER after a wait list (a marker): values
                      checked before the kernel */
  HOW_ASYNC_WAIT,  /* HOW_ASYNC after a wait list: the validation kernel
                      waits for it, the gated kernel for the validation */
  HOW_COUNT
} call_how;

static const char *const how_names[HOW_COUNT] = {
    "host",  "buffer",    "async",       "plan",      "plan-async",
    "mixed", "mixed-out", "buffer-wait", "async-wait"};

/* Does `how` put operand `k` (0 data, 1 indices, 2 scales, 3 zero points,
 * 4 output) in a cl_mem? */
static bool how_buffer(call_how how, int k) {
  if (how == HOW_HOST)
    return false;
  if (how == HOW_MIXED)
    return k == 1;
  if (how == HOW_MIXED_OUT)
    return k != 1;
  return true;
}

/* The call as `how` makes it; its status as the caller sees it: an
 * asynchronous one's from clg_outcome_wait() once the call succeeded.
 * *ev (may be NULL): the call's event. */
static clg_status how_call(call_how how, clg_context *ctx,
                           const clg_gbq_params *p, const clg_tensor *d,
                           const clg_tensor *i, const clg_tensor *s,
                           const clg_tensor *z, const clg_tensor *o,
                           cl_event *ev) {
  bool async = how == HOW_ASYNC || how == HOW_PLAN_ASYNC ||
               how == HOW_MIXED_OUT || how == HOW_ASYNC_WAIT;
  clg_outcome *outcome = NULL;
  clg_status st;
  cl_event marker = NULL;
  cl_uint nw = 0;
  if (how == HOW_BUFFER_WAIT || how == HOW_ASYNC_WAIT) {
    tu_cl_check(clEnqueueMarkerWithWaitList(tu_queue(), 0, NULL, &marker),
                "clEnqueueMarkerWithWaitList");
    /* Submitted: a command of another queue waits for an event only once
     * its own queue is flushed (Rusticl waits forever otherwise). */
    tu_cl_check(clFlush(tu_queue()), "clFlush");
    nw = 1;
  }
  if (how == HOW_PLAN || how == HOW_PLAN_ASYNC) {
    clg_plan *plan = NULL;
    st = clg_plan_create_gather_block_quantized(
        ctx, p, d, i, s, z, o, async ? CLG_PLAN_ASYNC_CHECK : 0, &plan);
    if (st != CLG_SUCCESS) {
      cr_assert_null(plan, "a plan on failure");
      return st;
    }
    cr_assert_eq(clg_plan_bake(plan), CLG_SUCCESS, "%s", clg_last_error());
    st = clg_plan_enqueue_gather_block_quantized(
        plan, d, i, s, z, o, NULL, 0, NULL, ev, async ? &outcome : NULL);
    clg_plan_destroy(plan);
  } else if (async)
    st = clg_gather_block_quantized_async(ctx, p, d, i, s, z, o, NULL, nw,
                                          nw ? &marker : NULL, ev, &outcome);
  else
    st = clg_gather_block_quantized(ctx, p, d, i, s, z, o, NULL, nw,
                                    nw ? &marker : NULL, ev);
  if (marker)
    clReleaseEvent(marker);
  if (st != CLG_SUCCESS) {
    cr_assert_null(outcome, "an outcome on failure");
    if (ev)
      cr_assert_null(*ev, "an event on failure");
    return st;
  }
  if (async) {
    cr_assert_not_null(outcome);
    st = clg_outcome_wait(outcome);
    clg_outcome_release(outcome);
  }
  return st;
}

/* --------------------------------------------------------------- cases */

/* kind and bits as the header pairs them */
typedef struct kind_bits {
  uint32_t kind;
  int32_t bits;
} kind_bits;
static const kind_bits kinds[] = {{CLG_GBQ_UINT8, 8},
                                  {CLG_GBQ_UINT8, 4},
                                  {CLG_GBQ_UINT4, 4},
                                  {CLG_GBQ_INT4, 4}};

/* A layout: the values' shape, the axes as the call gives them (negative
 * ones too), block_size, indices' shape. */
typedef struct layout {
  int32_t rank;
  int64_t shape[3];
  int64_t ga, qa, block;
  int32_t irank;
  int64_t ishape[2];
} layout;

/* For CLG_GBQ_UINT8 (gather axis 0, quantize axis the last). Last axes of
 * even length (bits 4 stores two values a byte a row), blocks partial. */
static const layout uint8_layouts[] = {
    {1, {40}, 0, 0, 16, 1, {5}},
    {1, {64}, -1, -1, 32, 0, {0}},
    {2, {5, 40}, 0, 1, 16, 1, {7}},
    {2, {3, 50}, -2, -1, 32, 2, {2, 3}},
    {3, {4, 3, 36}, 0, 2, 16, 1, {6}},
    {3, {2, 2, 16}, 0, -1, 16, 2, {3, 1}},
    /* slices of 300 values: a CPU work-item's whole runs of 128 (stored
     * as vectors) and a partial one, a partial last block */
    {2, {3, 300}, 0, 1, 32, 1, {4}},
};

/* For the 4-bit kinds: any pair of axes, odd sizes (values sharing bytes
 * across rows), partial blocks. */
static const layout nibble_layouts[] = {
    {1, {37}, 0, 0, 16, 1, {6}},
    {1, {33}, -1, 0, 32, 0, {0}},
    {2, {5, 40}, 0, 1, 16, 1, {7}},
    {2, {33, 3}, 1, 0, 16, 1, {4}},
    {2, {35, 5}, 0, 0, 16, 2, {2, 3}},
    {2, {3, 17}, 1, 1, 16, 1, {5}},
    {3, {3, 18, 5}, 2, 1, 16, 1, {4}},
    {3, {4, 3, 33}, -3, -1, 32, 2, {2, 2}},
    {3, {19, 2, 3}, 1, -3, 16, 0, {0}},
    {3, {2, 20, 3}, 1, 1, 16, 1, {9}},
    /* slices of 60 and 66 elements, the quantize axis not the innermost:
     * a CPU work-item's runs of 32 carry the position across it */
    {3, {2, 20, 3}, 0, 1, 16, 1, {3}},
    {3, {3, 22, 3}, 0, -2, 16, 2, {2, 2}},
    {2, {4, 261}, 0, 1, 16, 1, {5}},
    {3, {2, 100, 3}, 0, 1, 32, 1, {3}},
};

/* A random finite scale: a float in [-4, 4), or a float16 one. */
static void random_scales(tu_rng *rng, bool half, int64_t n, void *dst) {
  for (int64_t i = 0; i < n; ++i) {
    float f = (float)tu_rng_range(rng, -(1 << 20), (1 << 20) - 1) /
              (float)(1 << 18);
    f *= 1.0f + (float)tu_rng_range(rng, 0, 1000) / 7919.0f;
    if (half) {
      uint16_t h = ref_float_to_half(f);
      memcpy((unsigned char *)dst + i * 2, &h, 2);
    } else
      memcpy((unsigned char *)dst + i * 4, &f, 4);
  }
}

/* The bytes data, zero points and scales take for a case. */
typedef struct case_sizes {
  int64_t values[3], scales_shape[3], data_shape[3], zp_shape[3];
  int64_t numel, nscales;
  size_t data_bytes, zp_bytes;
} case_sizes;

static case_sizes sizes_of(const kind_bits *kb, const layout *l) {
  case_sizes z;
  memset(&z, 0, sizeof z);
  int32_t r = l->rank;
  int32_t qa = (int32_t)(l->qa < 0 ? l->qa + r : l->qa);
  memcpy(z.values, l->shape, sizeof z.values);
  memcpy(z.data_shape, l->shape, sizeof z.data_shape);
  memcpy(z.scales_shape, l->shape, sizeof z.scales_shape);
  z.scales_shape[qa] = (l->shape[qa] + l->block - 1) / l->block;
  memcpy(z.zp_shape, z.scales_shape, sizeof z.zp_shape);
  z.numel = tu_numel(r, l->shape);
  z.nscales = tu_numel(r, z.scales_shape);
  if (kb->kind == CLG_GBQ_UINT8 && kb->bits == 8) {
    z.data_bytes = (size_t)z.numel;
    z.zp_bytes = (size_t)z.nscales;
  } else if (kb->kind == CLG_GBQ_UINT8) {
    z.data_shape[r - 1] /= 2;
    z.data_bytes = (size_t)z.numel / 2;
    int64_t nb = z.scales_shape[r - 1];
    z.zp_shape[r - 1] = (nb + 1) / 2;
    z.zp_bytes = (size_t)(z.nscales / nb * ((nb + 1) / 2));
  } else {
    z.data_bytes = (size_t)(z.numel + 1) / 2;
    z.zp_bytes = (size_t)(z.nscales + 1) / 2;
  }
  return z;
}

/* One case through the library (its operands where `how` puts them, a
 * cl_mem one at an offset), byte for byte against the reference. Returns
 * how many were run (0 or 1). */
static int run_case(tu_rng *rng, const kind_bits *kb, const layout *l,
                    bool half, bool zp, clg_dtype idt, call_how how) {
  case_sizes z = sizes_of(kb, l);
  int32_t r = l->rank;
  int32_t ga = (int32_t)(l->ga < 0 ? l->ga + r : l->ga);
  size_t ses = half ? 2 : 4, ies = clg_dtype_size(idt);
  int64_t s = l->shape[ga], n = tu_numel(l->irank, l->ishape);
  unsigned char *data = malloc(z.data_bytes + 1),
                *zps = malloc(z.zp_bytes + 1),
                *scales = malloc((size_t)z.nscales * ses + 1),
                *idx = malloc((size_t)n * ies + 1);
  cr_assert(data && zps && scales && idx);
  tu_rng_bytes(rng, data, z.data_bytes);
  tu_rng_bytes(rng, zps, z.zp_bytes);
  random_scales(rng, half, z.nscales, scales);
  tu_fill_indices(rng, idx, idt, n, s, TU_IDX_ANY);
  if (n > 0) /* both ends and a negative one, where there is room */
    tu_set_index(idx, idt, 0, -s);
  if (n > 1)
    tu_set_index(idx, idt, n - 1, s - 1);
  int64_t oshape[4];
  int32_t orank = 0;
  for (int32_t d = 0; d < ga; ++d)
    oshape[orank++] = l->shape[d];
  for (int32_t d = 0; d < l->irank; ++d)
    oshape[orank++] = l->ishape[d];
  for (int32_t d = ga + 1; d < r; ++d)
    oshape[orank++] = l->shape[d];
  int64_t ocount = tu_numel(orank, oshape);
  size_t obytes = (size_t)ocount * ses;
  unsigned char *want = malloc(obytes + 1), *got = malloc(obytes + 1);
  cr_assert(want && got);
  ref_gbq_args a;
  memset(&a, 0, sizeof a);
  a.kind = (int32_t)kb->kind;
  a.bits = kb->bits;
  a.data = data;
  a.rank = r;
  memcpy(a.shape, l->shape, (size_t)r * sizeof *a.shape);
  a.indices = idx;
  a.index_type = tu_ref_index_type(idt);
  a.indices_rank = l->irank;
  memcpy(a.indices_shape, l->ishape, (size_t)l->irank * sizeof(int64_t));
  a.gather_axis = l->ga;
  a.quantize_axis = l->qa;
  a.block_size = l->block;
  a.scales = scales;
  a.scale_dtype = half ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT;
  a.zero_points = zp ? zps : NULL;
  cr_assert_eq(ref_gather_block_quantized(&a, want), 0, "reference refused");

  clg_dtype sdt = half ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT;
  operand od, oi, os, oz, oo;
  /* Offsets: odd for the uint8 operands, a multiple of the element's size
   * (and not of 8) for the others. */
  op_make(&od, CLG_DTYPE_UINT8, r, z.data_shape, z.data_bytes, data,
          how_buffer(how, 0), 3);
  op_make(&oi, idt, l->irank, l->ishape, (size_t)n * ies, idx,
          how_buffer(how, 1), ies * 3);
  op_make(&os, sdt, r, z.scales_shape, (size_t)z.nscales * ses, scales,
          how_buffer(how, 2), ses * 5);
  if (zp)
    op_make(&oz, CLG_DTYPE_UINT8, r, z.zp_shape, z.zp_bytes, zps,
            how_buffer(how, 3), 5);
  op_make(&oo, sdt, orank, oshape, obytes, NULL, how_buffer(how, 4), ses * 3);
  clg_gbq_params p = {0};
  p.gather_axis = l->ga;
  p.quantize_axis = l->qa;
  p.block_size = l->block;
  p.bits = kb->bits;
  p.kind = kb->kind;
  cl_event ev = NULL;
  clg_status st = how_call(how, tu_ctx(), &p, &od.t, &oi.t, &os.t,
                           zp ? &oz.t : NULL, &oo.t, &ev);
  char sh[64];
  cr_assert_eq(st, CLG_SUCCESS,
               "kind %u bits %d shape %s ga %ld qa %ld half %d zp %d "
               "%s: %s",
               kb->kind, kb->bits, tu_shape_str(r, l->shape, sh, sizeof sh),
               (long)l->ga, (long)l->qa, half, zp, how_names[how],
               clg_last_error());
  cr_assert(ev != NULL, "no event");
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
  cr_assert(op_read(&oo, got), "bytes around the output written");
  ptrdiff_t d = tu_first_diff(want, got, obytes);
  cr_assert_eq(d, -1,
               "kind %u bits %d shape %s ga %ld qa %ld half %d zp %d idx %s "
               "%s: output byte %ld differs",
               kb->kind, kb->bits, tu_shape_str(r, l->shape, sh, sizeof sh),
               (long)l->ga, (long)l->qa, half, zp, clg_dtype_name(idt),
               how_names[how], (long)d);
  op_free(&od);
  op_free(&oi);
  op_free(&os);
  if (zp)
    op_free(&oz);
  op_free(&oo);
  free(data);
  free(zps);
  free(scales);
  free(idx);
  free(want);
  free(got);
  return 1;
}

/* Every layout of one kind, every form of the other operands: half of
 * them in host memory, the others by each of the other ways in turn. */
static int run_kind(const kind_bits *kb, uint64_t seed) {
  tu_rng rng = tu_rng_make(seed);
  const layout *ls = kb->kind == CLG_GBQ_UINT8 ? uint8_layouts : nibble_layouts;
  size_t nl = kb->kind == CLG_GBQ_UINT8
                  ? sizeof uint8_layouts / sizeof *uint8_layouts
                  : sizeof nibble_layouts / sizeof *nibble_layouts;
  int runs = 0;
  for (size_t i = 0; i < nl; ++i)
    for (int form = 0; form < 16; ++form) {
      if (!tu_sampled())
        continue;
      call_how how = (form >> 3) & 1
                         ? (call_how)(1 + (i + form) % (HOW_COUNT - 1))
                         : HOW_HOST;
      runs +=
          run_case(&rng, kb, &ls[i], form & 1, (form >> 1) & 1,
                   (form >> 2) & 1 ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32, how);
    }
  return runs;
}

TestSuite(gbq);

Test(gbq, uint8_bits8_matches_reference) {
  cr_assert_gt(run_kind(&kinds[0], 11), 0);
}
Test(gbq, uint8_bits4_matches_reference) {
  cr_assert_gt(run_kind(&kinds[1], 12), 0);
}
Test(gbq, uint4_matches_reference) { cr_assert_gt(run_kind(&kinds[2], 13), 0); }
Test(gbq, int4_matches_reference) { cr_assert_gt(run_kind(&kinds[3], 14), 0); }

/* Values written out, not taken from the reference: int4 [2, 16], one
 * block a row, scales 0.5 and -2, zero points 1 and -3; row 1 gathered by
 * index -1. Element c of row 1 is c - 8 (the nibble c + 8 & 15,
 * sign-extended). */
Test(gbq, int4_values_written_out) {
  unsigned char data[16];
  for (int e = 0; e < 32; ++e) {
    int v = e < 16 ? 0 : ((e - 16) + 8) & 15;
    if (e % 2 == 0)
      data[e / 2] = (unsigned char)v;
    else
      data[e / 2] |= (unsigned char)(v << 4);
  }
  const float scales[2] = {0.5f, -2.0f};
  const unsigned char zps[1] = {0x1 | (0xD << 4)}; /* 1, -3 */
  const int64_t idx[1] = {-1};
  int64_t ds[2] = {2, 16}, ss[2] = {2, 1}, is[1] = {1}, os[2] = {1, 16};
  float out[16];
  clg_tensor d = clg_tensor_host(CLG_DTYPE_UINT8, 2, ds, data),
             i = clg_tensor_host(CLG_DTYPE_INT64, 1, is, (void *)idx),
             s = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ss, (void *)scales),
             z = clg_tensor_host(CLG_DTYPE_UINT8, 2, ss, (void *)zps),
             o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_gbq_params p = {0};
  p.gather_axis = 0;
  p.quantize_axis = 1;
  p.block_size = 16;
  p.bits = 4;
  p.kind = CLG_GBQ_INT4;
  cr_assert_eq(clg_gather_block_quantized(tu_ctx(), &p, &d, &i, &s, &z, &o,
                                          NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  for (int c = 0; c < 16; ++c)
    cr_assert_eq(out[c], (float)((c - 8) - (-3)) * -2.0f, "element %d: %g", c,
                 (double)out[c]);
}

/* NaN and infinite scales are data: NaN where the product is NaN,
 * infinities where it is infinite, the other blocks as usual. uint8 bits
 * 8 [2, 48], blocks of 16: row 1's scales NaN, +inf, 0.5; codes 200,
 * zero point 128 by default, except element 16 whose code is 128 (0 *
 * inf: NaN). */
static void nan_inf(bool half) {
  unsigned char data[96];
  memset(data, 200, sizeof data);
  data[48 + 16] = 128;
  float sf[6] = {1.0f, 1.0f, 1.0f, NAN, INFINITY, 0.5f};
  uint16_t sh[6];
  for (int k = 0; k < 6; ++k)
    sh[k] = ref_float_to_half(sf[k]);
  const int32_t idx[1] = {1};
  int64_t ds[2] = {2, 48}, ss[2] = {2, 3}, is[1] = {1}, os[2] = {1, 48};
  unsigned char out[48 * 4];
  clg_dtype sdt = half ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT;
  clg_tensor d = clg_tensor_host(CLG_DTYPE_UINT8, 2, ds, data),
             i = clg_tensor_host(CLG_DTYPE_INT32, 1, is, (void *)idx),
             s = clg_tensor_host(sdt, 2, ss, half ? (void *)sh : (void *)sf),
             o = clg_tensor_host(sdt, 2, os, out);
  clg_gbq_params p = {0};
  p.quantize_axis = 1;
  p.block_size = 16;
  p.bits = 8;
  p.kind = CLG_GBQ_UINT8;
  cr_assert_eq(clg_gather_block_quantized(tu_ctx(), &p, &d, &i, &s, NULL, &o,
                                          NULL, 0, NULL, NULL),
               CLG_SUCCESS, "%s", clg_last_error());
  for (int c = 0; c < 48; ++c) {
    float f;
    if (half) {
      uint16_t h;
      memcpy(&h, out + c * 2, 2);
      f = ref_half_to_float(h);
    } else
      memcpy(&f, out + c * 4, 4);
    if (c < 16 || c == 16)
      cr_assert(isnan(f), "element %d: %g, not NaN", c, (double)f);
    else if (c < 32)
      cr_assert(isinf(f) && f > 0, "element %d: %g, not +inf", c, (double)f);
    else
      cr_assert_eq(f, 36.0f, "element %d: %g", c, (double)f);
  }
}
Test(gbq, nan_and_inf_scales_float32) { nan_inf(false); }
Test(gbq, nan_and_inf_scales_float16) { nan_inf(true); }

/* No index: an empty output, success, an event that completes. */
Test(gbq, empty_indices) {
  unsigned char data[32] = {0};
  float scales[2] = {1.0f, 1.0f}, out[1] = {0};
  int64_t ds[2] = {2, 16}, ss[2] = {2, 1}, is[1] = {0}, os[2] = {0, 16};
  int64_t idx[1] = {0};
  clg_tensor d = clg_tensor_host(CLG_DTYPE_UINT8, 2, ds, data),
             i = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx),
             s = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ss, scales),
             o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
  clg_gbq_params p = {0};
  p.quantize_axis = 1;
  p.block_size = 16;
  p.bits = 8;
  p.kind = CLG_GBQ_UINT8;
  cl_event ev = NULL;
  cr_assert_eq(clg_gather_block_quantized(tu_ctx(), &p, &d, &i, &s, NULL, &o,
                                          NULL, 0, NULL, &ev),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_assert(ev != NULL);
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
}

/* A 4-bit cl_mem holds ceil(numel / 2) bytes, no more: an exact fit runs,
 * one byte fewer is CLG_ERROR_BUFFER_TOO_SMALL. uint4 [3, 21]: 63 values,
 * 32 bytes. */
Test(gbq, nibble_buffer_holds_half_the_values) {
  int64_t ds[2] = {3, 21}, ss[2] = {3, 2}, is[1] = {2}, os[2] = {2, 21};
  unsigned char bytes[32];
  memset(bytes, 0x21, sizeof bytes);
  float scales[6] = {1, 1, 1, 1, 1, 1}, out[42];
  int32_t idx[2] = {2, 0};
  for (int fit = 1; fit >= 0; --fit) {
    cl_mem m = tu_buffer_create(fit ? 32 : 31, bytes);
    clg_tensor d = clg_tensor_buffer(CLG_DTYPE_UINT8, 2, ds, m, 0),
               i = clg_tensor_host(CLG_DTYPE_INT32, 1, is, idx),
               s = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ss, scales),
               o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, os, out);
    clg_gbq_params p = {0};
    p.quantize_axis = 1;
    p.block_size = 16;
    p.bits = 4;
    p.kind = CLG_GBQ_UINT4;
    memset(out, 0, sizeof out);
    clg_status st = clg_gather_block_quantized(tu_ctx(), &p, &d, &i, &s, NULL,
                                               &o, NULL, 0, NULL, NULL);
    if (fit) {
      cr_assert_eq(st, CLG_SUCCESS, "%s", clg_last_error());
      /* value e is 1 for even e, 2 for odd; row 2 starts at e = 42 */
      for (int c = 0; c < 21; ++c)
        cr_assert_eq(out[c], (float)(c % 2 ? 2 : 1), "element %d", c);
      for (int c = 0; c < 21; ++c)
        cr_assert_eq(out[21 + c], (float)(c % 2 ? 2 : 1), "element %d", c);
    } else
      cr_assert_eq(st, CLG_ERROR_BUFFER_TOO_SMALL, "%s: %s",
                   clg_status_string(st), clg_last_error());
    clReleaseMemObject(m);
  }
}

/* -------------------------------------------------------------- errors */

/* A valid base call: uint4 [4, 32], blocks of 16, float32 scales [4, 2],
 * zero points [4, 2] (4 bytes), indices int64 [3], output [3, 32]; each
 * bad call changes one thing. */
typedef struct base_call {
  unsigned char data[64], zps[4];
  float scales[8];
  int64_t idx[3];
  int64_t ds[2], ss[2], is[1], os[2];
  clg_tensor d, i, s, z, o;
  clg_gbq_params p;
  const clg_tensor *zp;
  clg_context *ctx;
} base_call;

static void base_init(base_call *b, void *out) {
  memset(b, 0, sizeof *b);
  for (int k = 0; k < 64; ++k)
    b->data[k] = (unsigned char)(k * 37);
  for (int k = 0; k < 8; ++k)
    b->scales[k] = 0.25f * (float)(k + 1);
  memset(b->zps, 0x53, sizeof b->zps);
  b->idx[0] = 0;
  b->idx[1] = -1;
  b->idx[2] = 2;
  b->ds[0] = 4, b->ds[1] = 32;
  b->ss[0] = 4, b->ss[1] = 2;
  b->is[0] = 3;
  b->os[0] = 3, b->os[1] = 32;
  b->d = clg_tensor_host(CLG_DTYPE_UINT8, 2, b->ds, b->data);
  b->i = clg_tensor_host(CLG_DTYPE_INT64, 1, b->is, b->idx);
  b->s = clg_tensor_host(CLG_DTYPE_FLOAT, 2, b->ss, b->scales);
  b->z = clg_tensor_host(CLG_DTYPE_UINT8, 2, b->ss, b->zps);
  b->o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, b->os, out);
  b->p.gather_axis = 0;
  b->p.quantize_axis = 1;
  b->p.block_size = 16;
  b->p.bits = 4;
  b->p.kind = CLG_GBQ_UINT4;
  b->zp = &b->z;
  b->ctx = tu_ctx();
}

static clg_status base_run(base_call *b, const clg_gbq_params *p,
                           const clg_tensor *d, const clg_tensor *i,
                           const clg_tensor *s, const clg_tensor *o) {
  return clg_gather_block_quantized(b->ctx, p, d, i, s, b->zp, o, NULL, 0,
                                    NULL, NULL);
}

/* What a bad call changes in the base. */
typedef enum bad_what {
  BAD_CTX,
  BAD_PARAMS_NULL,
  BAD_DATA_NULL,
  BAD_INDICES_NULL,
  BAD_SCALES_NULL,
  BAD_OUTPUT_NULL,
  BAD_KIND,
  BAD_BITS_UINT8,
  BAD_BITS_UINT4,
  BAD_BLOCK_NOT_POW2,
  BAD_BLOCK_SMALL,
  BAD_RESERVED,
  BAD_GATHER_AXIS,
  BAD_QUANTIZE_AXIS,
  BAD_UINT8_GATHER_AXIS,
  BAD_UINT8_QUANTIZE_AXIS,
  BAD_DATA_DTYPE,
  BAD_SCALES_DTYPE,
  BAD_ZP_DTYPE,
  BAD_OUTPUT_DTYPE,
  BAD_INDICES_DTYPE,
  BAD_SCALES_SHAPE,
  BAD_ZP_SHAPE,
  BAD_UINT8_ZP_UNPACKED,
  BAD_OUTPUT_SHAPE,
  BAD_DATA_RANK,
  BAD_NEGATIVE_DIM,
  BAD_STRIDED,
  BAD_INDEX_HIGH,
  BAD_INDEX_LOW,
  BAD_COUNT
} bad_what;

typedef struct bad_case {
  bad_what what;
  clg_status status;
  const char *words[3];
} bad_case;

static const bad_case bad_cases[] = {
    {BAD_CTX, CLG_ERROR_NULL_ARGUMENT, {"ctx"}},
    {BAD_PARAMS_NULL, CLG_ERROR_NULL_ARGUMENT, {"params"}},
    {BAD_DATA_NULL, CLG_ERROR_NULL_ARGUMENT, {"data"}},
    {BAD_INDICES_NULL, CLG_ERROR_NULL_ARGUMENT, {"indices"}},
    {BAD_SCALES_NULL, CLG_ERROR_NULL_ARGUMENT, {"scales"}},
    {BAD_OUTPUT_NULL, CLG_ERROR_NULL_ARGUMENT, {"output"}},
    {BAD_KIND, CLG_ERROR_INVALID_ARGUMENT, {"kind", "7"}},
    {BAD_BITS_UINT8, CLG_ERROR_INVALID_ARGUMENT, {"bits", "6", "8 or 4"}},
    {BAD_BITS_UINT4, CLG_ERROR_INVALID_ARGUMENT, {"bits", "8", "CLG_GBQ_UINT4"}},
    {BAD_BLOCK_NOT_POW2, CLG_ERROR_INVALID_ARGUMENT, {"block_size", "24"}},
    {BAD_BLOCK_SMALL, CLG_ERROR_INVALID_ARGUMENT, {"block_size", "8"}},
    {BAD_RESERVED, CLG_ERROR_INVALID_ARGUMENT, {"reserved"}},
    {BAD_GATHER_AXIS, CLG_ERROR_INVALID_AXIS, {"gather_axis"}},
    {BAD_QUANTIZE_AXIS, CLG_ERROR_INVALID_AXIS, {"quantize_axis"}},
    {BAD_UINT8_GATHER_AXIS, CLG_ERROR_INVALID_AXIS, {"CLG_GBQ_UINT8", "gather_axis 1"}},
    {BAD_UINT8_QUANTIZE_AXIS, CLG_ERROR_INVALID_AXIS, {"CLG_GBQ_UINT8", "quantize_axis 0"}},
    {BAD_DATA_DTYPE, CLG_ERROR_UNSUPPORTED_DTYPE, {"data", "int8"}},
    {BAD_SCALES_DTYPE, CLG_ERROR_UNSUPPORTED_DTYPE, {"scales", "double"}},
    {BAD_ZP_DTYPE, CLG_ERROR_DTYPE_MISMATCH, {"zero_points", "int8"}},
    {BAD_OUTPUT_DTYPE, CLG_ERROR_DTYPE_MISMATCH, {"output", "float16"}},
    {BAD_INDICES_DTYPE, CLG_ERROR_INVALID_INDICES_DTYPE, {"ndices"}},
    {BAD_SCALES_SHAPE, CLG_ERROR_INCOMPATIBLE_SHAPES, {"scales", "[4, 3]", "[4, 2]"}},
    {BAD_ZP_SHAPE, CLG_ERROR_INCOMPATIBLE_SHAPES, {"zero_points", "[4, 1]", "[4, 2]"}},
    {BAD_UINT8_ZP_UNPACKED, CLG_ERROR_INCOMPATIBLE_SHAPES, {"zero_points", "[4, 2]", "[4, 1]"}},
    {BAD_OUTPUT_SHAPE, CLG_ERROR_SHAPE_MISMATCH, {"output", "[3, 31]", "[3, 32]"}},
    {BAD_DATA_RANK, CLG_ERROR_INVALID_RANK, {"data", "rank 0"}},
    {BAD_NEGATIVE_DIM, CLG_ERROR_INVALID_SHAPE, {"data", "-4"}},
    {BAD_STRIDED, CLG_ERROR_INVALID_ARGUMENT, {"data", "strided"}},
    {BAD_INDEX_HIGH, CLG_ERROR_INDEX_OUT_OF_BOUNDS, {"indices[2]", "= 4", "[-4, 3]"}},
    {BAD_INDEX_LOW, CLG_ERROR_INDEX_OUT_OF_BOUNDS, {"indices[2]", "= -5", "[-4, 3]"}},
};

/* One bad call, by `how` (HOW_HOST: every operand host memory; the
 * others every operand a cl_mem); the status (an asynchronous call's from
 * its outcome), the message's words and the output's bytes (sentinel)
 * checked. */
static void bad_call(const bad_case *bc, call_how how) {
  bool buffer = how != HOW_HOST;
  float out[96];
  memset(out, (int)TU_SENTINEL, sizeof out);
  base_call b;
  base_init(&b, out);
  clg_gbq_params p = b.p;
  clg_tensor d = b.d, i = b.i, s = b.s, o = b.o;
  int64_t ss[2] = {4, 3}, os[2] = {3, 31}, z1[2] = {4, 1};
  const clg_tensor *dp = &d, *ip = &i, *sp = &s, *op = &o;
  const clg_gbq_params *pp = &p;
  clg_strided_tensor strided;
  cl_mem mems[5] = {NULL};
  if (buffer) {
    /* every operand a cl_mem (its offset nonzero) */
    clg_tensor *ts[5] = {&d, &i, &s, &b.z, &o};
    const void *src[5] = {b.data, b.idx, b.scales, b.zps, out};
    const size_t bytes[5] = {sizeof b.data, sizeof b.idx, sizeof b.scales,
                             sizeof b.zps, sizeof out};
    for (int k = 0; k < 5; ++k) {
      unsigned char img[512];
      memset(img, (int)TU_SENTINEL, sizeof img);
      memcpy(img + 8, src[k], bytes[k]);
      mems[k] = tu_buffer_create(8 + bytes[k], img);
      ts[k]->storage = CLG_STORAGE_BUFFER;
      ts[k]->host = NULL;
      ts[k]->buffer = mems[k];
      ts[k]->offset = 8;
    }
  }
  switch (bc->what) {
  case BAD_CTX: b.ctx = NULL; break;
  case BAD_PARAMS_NULL: pp = NULL; break;
  case BAD_DATA_NULL: dp = NULL; break;
  case BAD_INDICES_NULL: ip = NULL; break;
  case BAD_SCALES_NULL: sp = NULL; break;
  case BAD_OUTPUT_NULL: op = NULL; break;
  case BAD_KIND: p.kind = 7; break;
  case BAD_BITS_UINT8: p.kind = CLG_GBQ_UINT8, p.bits = 6; break;
  case BAD_BITS_UINT4: p.bits = 8; break;
  case BAD_BLOCK_NOT_POW2: p.block_size = 24; break;
  case BAD_BLOCK_SMALL: p.block_size = 8; break;
  case BAD_RESERVED: p.reserved[2] = 1; break;
  case BAD_GATHER_AXIS: p.gather_axis = 2; break;
  case BAD_QUANTIZE_AXIS: p.quantize_axis = -3; break;
  case BAD_UINT8_GATHER_AXIS:
    p.kind = CLG_GBQ_UINT8, p.bits = 8, p.gather_axis = 1;
    break;
  case BAD_UINT8_QUANTIZE_AXIS:
    p.kind = CLG_GBQ_UINT8, p.bits = 8, p.quantize_axis = 0;
    break;
  case BAD_DATA_DTYPE: d.dtype = CLG_DTYPE_INT8; break;
  case BAD_SCALES_DTYPE: s.dtype = CLG_DTYPE_DOUBLE, o.dtype = CLG_DTYPE_DOUBLE; break;
  case BAD_ZP_DTYPE: b.z.dtype = CLG_DTYPE_INT8; break;
  case BAD_OUTPUT_DTYPE: o.dtype = CLG_DTYPE_FLOAT16; break;
  case BAD_INDICES_DTYPE: i.dtype = CLG_DTYPE_FLOAT; break;
  case BAD_SCALES_SHAPE: memcpy(s.shape, ss, sizeof ss); break;
  case BAD_ZP_SHAPE: memcpy(b.z.shape, z1, sizeof z1); break;
  case BAD_UINT8_ZP_UNPACKED:
    /* uint8 bits 4 [4, 16] bytes: 32 values a row, 2 blocks, their zero
     * points one byte a row, [4, 1]; [4, 2] is scales' shape */
    p.kind = CLG_GBQ_UINT8;
    d.shape[1] = 16;
    break;
  case BAD_OUTPUT_SHAPE: memcpy(o.shape, os, sizeof os); break;
  case BAD_DATA_RANK: d.rank = 0; break;
  case BAD_NEGATIVE_DIM: d.shape[0] = -4; break;
  case BAD_STRIDED: {
    int64_t dense[2] = {32, 1};
    strided = clg_tensor_strided(&d, dense);
    dp = &strided.tensor;
    break;
  }
  case BAD_INDEX_HIGH:
  case BAD_INDEX_LOW: {
    b.idx[2] = bc->what == BAD_INDEX_HIGH ? 4 : -5;
    if (buffer) {
      /* the whole buffer written (Oclgrind takes a partly written one
       * for uninitialized memory) */
      unsigned char img[8 + sizeof b.idx];
      memset(img, (int)TU_SENTINEL, 8);
      memcpy(img + 8, b.idx, sizeof b.idx);
      tu_cl_check(clEnqueueWriteBuffer(tu_queue(), mems[1], CL_TRUE, 0,
                                       sizeof img, img, 0, NULL, NULL),
                  "clEnqueueWriteBuffer");
    }
    break;
  }
  default: cr_assert_fail("test bug");
  }
  clg_status st = how_call(how, b.ctx, pp, dp, ip, sp, b.zp, op, NULL);
  cr_assert_eq(st, bc->status, "case %d (%s): %s, not %s: %s", (int)bc->what,
               how_names[how], clg_status_string(st),
               clg_status_string(bc->status), clg_last_error());
  for (int w = 0; w < 3 && bc->words[w]; ++w)
    cr_assert(tu_contains(clg_last_error(), bc->words[w]),
              "case %d (%s): \"%s\" not in \"%s\"", (int)bc->what,
              how_names[how], bc->words[w], clg_last_error());
  unsigned char img[8 + sizeof out];
  const unsigned char *now = (const unsigned char *)out;
  if (buffer) {
    tu_buffer_read(mems[4], 0, sizeof img, img);
    now = img; /* the sentinel before the output, then the output */
  }
  size_t nbytes = buffer ? sizeof img : sizeof out;
  for (size_t k = 0; k < nbytes; ++k)
    cr_assert_eq(now[k], TU_SENTINEL, "case %d (%s): output byte %zu written",
                 (int)bc->what, how_names[how], k);
  for (int k = 0; k < 5; ++k)
    if (mems[k])
      clReleaseMemObject(mems[k]);
}

Test(gbq, errors_leave_host_output_untouched) {
  /* the base passes first: every bad call differs from a good one */
  float out[96];
  base_call b;
  base_init(&b, out);
  cr_assert_eq(base_run(&b, &b.p, &b.d, &b.i, &b.s, &b.o), CLG_SUCCESS, "%s",
               clg_last_error());
  for (size_t k = 0; k < sizeof bad_cases / sizeof *bad_cases; ++k)
    bad_call(&bad_cases[k], HOW_HOST);
}

/* Every operand a cl_mem, by each entry point. */
static void bad_calls(call_how how) {
  for (size_t k = 0; k < sizeof bad_cases / sizeof *bad_cases; ++k)
    if (bad_cases[k].what != BAD_STRIDED)
      bad_call(&bad_cases[k], how);
}
Test(gbq, errors_leave_buffer_output_untouched) { bad_calls(HOW_BUFFER); }
Test(gbq, errors_leave_buffer_output_untouched_async) { bad_calls(HOW_ASYNC); }
Test(gbq, errors_leave_buffer_output_untouched_plan) { bad_calls(HOW_PLAN); }
Test(gbq, errors_leave_buffer_output_untouched_plan_async) {
  bad_calls(HOW_PLAN_ASYNC);
}
Test(gbq, errors_leave_buffer_output_untouched_after_wait_list) {
  bad_calls(HOW_BUFFER_WAIT);
  bad_calls(HOW_ASYNC_WAIT);
}

/* Alignment, overlap: CLG_ERROR_INVALID_ARGUMENT, nothing written. */
Test(gbq, misaligned_and_overlapping_operands) {
  float out[96];
  memset(out, (int)TU_SENTINEL, sizeof out);
  base_call b;
  base_init(&b, out);
  cl_mem m = tu_buffer_create(sizeof b.scales + 2, NULL);
  tu_cl_check(clEnqueueWriteBuffer(tu_queue(), m, CL_TRUE, 2, sizeof b.scales,
                                   b.scales, 0, NULL, NULL),
              "clEnqueueWriteBuffer");
  clg_tensor s = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, b.ss, m, 2);
  clg_status st = base_run(&b, &b.p, &b.d, &b.i, &s, &b.o);
  cr_assert_eq(st, CLG_ERROR_INVALID_ARGUMENT, "%s", clg_last_error());
  cr_assert(tu_contains(clg_last_error(), "scales->offset"), "%s",
            clg_last_error());
  clReleaseMemObject(m);
  /* the output over the scales' memory */
  clg_tensor o = b.o;
  o.host = b.scales;
  st = base_run(&b, &b.p, &b.d, &b.i, &b.s, &o);
  cr_assert_eq(st, CLG_ERROR_INVALID_ARGUMENT, "%s", clg_last_error());
  for (size_t k = 0; k < sizeof out; ++k)
    cr_assert_eq(((unsigned char *)out)[k], TU_SENTINEL);
  cr_assert_eq(b.scales[0], 0.25f, "scales written");
}

#if defined(CLGATHER_TESTING)
#include "core/faults.h"

/* A device that flushes subnormal floats (CL_FP_DENORM hidden): float32
 * scales are refused before anything is written (a product below 2^-126
 * would be flushed: not the same bits everywhere); float16 scales run. */
Test(gbq, float32_scales_need_subnormals) {
  float out[3 * 32];
  memset(out, 0xA5, sizeof out);
  base_call b;
  base_init(&b, out);
  clg_fault_reset();
  clg_fault_hide_denorm(true);
  clg_status st = base_run(&b, &b.p, &b.d, &b.i, &b.s, &b.o);
  clg_fault_reset();
  cr_assert_eq(st, CLG_ERROR_UNSUPPORTED_DTYPE, "%s", clg_last_error());
  cr_expect(strstr(clg_last_error(), "CL_FP_DENORM") != NULL, "%s",
            clg_last_error());
  for (size_t k = 0; k < sizeof out; ++k)
    cr_assert_eq(((unsigned char *)out)[k], 0xA5, "output byte %zu written",
                 k);
  /* float16 scales and output on the same device: they run. */
  uint16_t hs[8], ho[3 * 32];
  for (int k = 0; k < 8; ++k)
    hs[k] = (uint16_t)(0x3400 + 0x400 * (k % 4)); /* 0.25 .. 2 */
  clg_tensor s16 = clg_tensor_host(CLG_DTYPE_FLOAT16, 2, b.ss, hs),
             o16 = clg_tensor_host(CLG_DTYPE_FLOAT16, 2, b.os, ho);
  clg_fault_hide_denorm(true);
  st = base_run(&b, &b.p, &b.d, &b.i, &s16, &o16);
  clg_fault_reset();
  cr_assert_eq(st, CLG_SUCCESS, "%s", clg_last_error());
}
#endif

/* ----------------------------------------------------------------- plans */

/* The plan's own rules, each refusal leaving the output as it was:
 * templates against the enqueue's tensors (dtype, shape, kind of memory,
 * zero points present or not), the outcome against the flags, a plan of
 * another kind through this enqueue and this plan through the others,
 * creation's own arguments. */
Test(gbq, plan_rules) {
  float out[96];
  memset(out, (int)TU_SENTINEL, sizeof out);
  base_call b;
  base_init(&b, out);
  clg_plan *plan = NULL, *async = NULL, *bare = NULL;
  clg_plan *none = (clg_plan *)&b; /* set to NULL by the refusal */
  cr_assert_eq(clg_plan_create_gather_block_quantized(
                   b.ctx, &b.p, &b.d, &b.i, &b.s, &b.z, &b.o, 0, &plan),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_assert_eq(clg_plan_create_gather_block_quantized(
                   b.ctx, &b.p, &b.d, &b.i, &b.s, &b.z, &b.o,
                   CLG_PLAN_ASYNC_CHECK, &async),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_assert_eq(clg_plan_create_gather_block_quantized(
                   b.ctx, &b.p, &b.d, &b.i, &b.s, NULL, &b.o, 0, &bare),
               CLG_SUCCESS, "%s", clg_last_error());
  clg_tensor d8 = b.d, i2 = b.i, obuf = b.o;
  d8.dtype = CLG_DTYPE_INT8;
  i2.shape[0] = 2;
  cl_mem m = tu_buffer_create(sizeof out, NULL);
  obuf.storage = CLG_STORAGE_BUFFER;
  obuf.host = NULL;
  obuf.buffer = m;
  clg_outcome *oc = NULL;
  struct {
    clg_status got, want;
    const char *words;
  } r[] = {
      {clg_plan_enqueue_gather_block_quantized(plan, &d8, &b.i, &b.s, &b.z,
                                               &b.o, NULL, 0, NULL, NULL, NULL),
       CLG_ERROR_DTYPE_MISMATCH, "data"},
      {clg_plan_enqueue_gather_block_quantized(plan, &b.d, &i2, &b.s, &b.z,
                                               &b.o, NULL, 0, NULL, NULL, NULL),
       CLG_ERROR_SHAPE_MISMATCH, "indices"},
      {clg_plan_enqueue_gather_block_quantized(
           plan, &b.d, &b.i, &b.s, &b.z, &obuf, NULL, 0, NULL, NULL, NULL),
       CLG_ERROR_INVALID_ARGUMENT, "output"},
      {clg_plan_enqueue_gather_block_quantized(plan, &b.d, &b.i, &b.s, NULL,
                                               &b.o, NULL, 0, NULL, NULL, NULL),
       CLG_ERROR_NULL_ARGUMENT, "zero_points"},
      {clg_plan_enqueue_gather_block_quantized(bare, &b.d, &b.i, &b.s, &b.z,
                                               &b.o, NULL, 0, NULL, NULL, NULL),
       CLG_ERROR_INVALID_ARGUMENT, "zero_points"},
      {clg_plan_enqueue_gather_block_quantized(plan, &b.d, &b.i, &b.s, &b.z,
                                               &b.o, NULL, 0, NULL, NULL, &oc),
       CLG_ERROR_INVALID_ARGUMENT, "CLG_PLAN_ASYNC_CHECK"},
      {clg_plan_enqueue_gather_block_quantized(async, &b.d, &b.i, &b.s, &b.z,
                                               &b.o, NULL, 0, NULL, NULL, NULL),
       CLG_ERROR_NULL_ARGUMENT, "outcome"},
      {clg_plan_enqueue_gather_block_quantized(NULL, &b.d, &b.i, &b.s, &b.z,
                                               &b.o, NULL, 0, NULL, NULL, NULL),
       CLG_ERROR_NULL_ARGUMENT, "plan"},
      {clg_plan_enqueue(plan, &b.d, &b.i, &b.o, NULL, 0, NULL, NULL, NULL),
       CLG_ERROR_INVALID_ARGUMENT, "clg_plan_enqueue_gather_block_quantized"},
      {clg_plan_enqueue_embedding_bag(plan, &b.d, &b.i, NULL, NULL, &b.o, NULL,
                                      0, NULL, NULL, NULL),
       CLG_ERROR_INVALID_ARGUMENT, "clg_plan_enqueue_gather_block_quantized"},
      {clg_plan_create_gather_block_quantized(b.ctx, &b.p, &b.d, &b.i, &b.s,
                                              &b.z, &b.o, 0x40, &none),
       CLG_ERROR_INVALID_ARGUMENT, "flags"},
      {clg_plan_create_gather_block_quantized(b.ctx, &b.p, &b.d, &b.i, &b.s,
                                              &b.z, &b.o, 0, NULL),
       CLG_ERROR_NULL_ARGUMENT, "out"},
  };
  for (size_t k = 0; k < sizeof r / sizeof *r; ++k)
    cr_assert_eq(r[k].got, r[k].want, "rule %zu: %s, not %s", k,
                 clg_status_string(r[k].got), clg_status_string(r[k].want));
  cr_assert_null(oc);
  cr_assert_null(none, "a plan on failure");
  /* The messages, one by one (each call sets its own). */
  cr_assert_eq(clg_plan_enqueue_gather_block_quantized(plan, &d8, &b.i, &b.s,
                                                       &b.z, &b.o, NULL, 0,
                                                       NULL, NULL, NULL),
               CLG_ERROR_DTYPE_MISMATCH);
  cr_assert(tu_contains(clg_last_error(), "data") &&
                tu_contains(clg_last_error(), "int8"),
            "%s", clg_last_error());
  cr_assert_eq(
      clg_plan_enqueue(plan, &b.d, &b.i, &b.o, NULL, 0, NULL, NULL, NULL),
      CLG_ERROR_INVALID_ARGUMENT);
  cr_assert(tu_contains(clg_last_error(), "GatherBlockQuantized"), "%s",
            clg_last_error());
  /* A gather's plan through this enqueue names its own. */
  int64_t gds[2] = {4, 32}, gos[2] = {3, 32};
  clg_tensor gd = clg_tensor_host(CLG_DTYPE_UINT8, 2, gds, b.data),
             go = clg_tensor_host(CLG_DTYPE_UINT8, 2, gos, out);
  clg_plan *gather = NULL;
  cr_assert_eq(clg_plan_create(b.ctx, NULL, &gd, &b.i, &go, 0, &gather),
               CLG_SUCCESS, "%s", clg_last_error());
  cr_assert_eq(clg_plan_enqueue_gather_block_quantized(gather, &b.d, &b.i, &b.s,
                                                       &b.z, &b.o, NULL, 0,
                                                       NULL, NULL, NULL),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_assert(tu_contains(clg_last_error(), "clg_plan_enqueue()"), "%s",
            clg_last_error());
  for (size_t k = 0; k < sizeof out; ++k)
    cr_assert_eq(((unsigned char *)out)[k], TU_SENTINEL,
                 "output byte %zu written", k);
  clg_plan_destroy(gather);
  clg_plan_destroy(plan);
  clg_plan_destroy(async);
  clg_plan_destroy(bare);
  clReleaseMemObject(m);
}
