/* GatherBlockQuantized's valid cases (gather_block_quantized.h): the
 * argument space, random cases, their inputs, the reference's output, the
 * device's status, the conformance set. */
#define _POSIX_C_SOURCE 200809L
#include "cases/gather_block_quantized.h"
#include "cases/operators.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t norm_axis(int64_t a, int32_t r) {
  return (int32_t)(a < 0 ? a + r : a);
}

gbq_case gbq_case_random(uint64_t seed, clg_gbq_kind kind, int32_t bits,
                         clg_dtype sdt, bool zp, unsigned variant) {
  case_rng rng = case_rng_make(seed);
  gbq_case c;
  memset(&c, 0, sizeof c);
  c.p.kind = (uint32_t)kind;
  c.p.bits = bits;
  c.p.block_size = case_rng_range(&rng, 0, 1) ? 32 : 16;
  c.sdt = sdt;
  c.zp = zp;
  c.idt = variant & 1 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
  c.rank = (int32_t)case_rng_range(&rng, 1, GBQC_MAX_RANK);
  int32_t r = c.rank, ga, qa;
  if (kind == CLG_GBQ_UINT8) { /* ONNX Runtime: gather 0, quantize last */
    ga = 0;
    qa = r - 1;
  } else {
    ga = (int32_t)case_rng_range(&rng, 0, r - 1);
    qa = (int32_t)case_rng_range(&rng, 0, r - 1);
  }
  for (int32_t d = 0; d < r; ++d)
    c.shape[d] = case_rng_range(&rng, 1, 5);
  /* The quantize axis: one to three blocks, the last partial in three
   * draws of four (uint8 bits 4 stores a row's values two a byte: even). */
  int64_t nb = case_rng_range(&rng, 1, 3), bs = c.p.block_size;
  int64_t q = case_rng_range(&rng, 0, 3)
                  ? (nb - 1) * bs + case_rng_range(&rng, 1, bs - 1)
                  : nb * bs;
  if (kind == CLG_GBQ_UINT8 && bits == 4 && q % 2)
    ++q;
  c.shape[qa] = q;
  if (ga != qa)
    c.shape[ga] = case_rng_range(&rng, 1, 7);
  bool neg = case_rng_range(&rng, 0, 2) == 0;
  c.p.gather_axis = neg ? ga - r : ga;
  c.p.quantize_axis = neg ? qa - r : qa;
  if (variant & 4)
    c.irank = 0;
  else {
    c.irank = (int32_t)case_rng_range(&rng, 1, 2);
    for (int32_t d = 0; d < c.irank; ++d)
      c.ishape[d] = case_rng_range(&rng, 1, 4);
    if (variant & 2)
      c.ishape[case_rng_range(&rng, 0, c.irank - 1)] = 0;
  }
  for (int k = 0; k < GBQC_NOPS; ++k)
    c.st[k].kind = CLG_STORAGE_HOST;
  return c;
}

static int64_t numel(int32_t rank, const int64_t *shape) {
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d)
    n *= shape[d] < 0 ? 0 : shape[d];
  return n;
}

void gbq_case_operands(const gbq_case *c, gbq_operands *o) {
  memset(o, 0, sizeof *o);
  int32_t r = c->rank, qa = norm_axis(c->p.quantize_axis, r),
          ga = norm_axis(c->p.gather_axis, r);
  int64_t bs = c->p.block_size > 0 ? c->p.block_size : 1;
  bool bytes8 = c->p.kind == CLG_GBQ_UINT8 && c->p.bits == 8;
  bool rows4 = c->p.kind == CLG_GBQ_UINT8 && c->p.bits == 4;
  o->dtype[GBQC_DATA] = CLG_DTYPE_UINT8;
  o->dtype[GBQC_INDICES] = c->idt;
  o->dtype[GBQC_SCALES] = c->sdt;
  o->dtype[GBQC_ZERO_POINTS] = CLG_DTYPE_UINT8;
  o->dtype[GBQC_OUTPUT] = c->sdt;
  for (int k = 0; k < GBQC_NOPS; ++k)
    o->rank[k] = r;
  o->rank[GBQC_INDICES] = c->irank;
  memcpy(o->shape[GBQC_DATA], c->shape, sizeof c->shape);
  memcpy(o->shape[GBQC_SCALES], c->shape, sizeof c->shape);
  memcpy(o->shape[GBQC_INDICES], c->ishape, sizeof c->ishape);
  o->shape[GBQC_SCALES][qa] = (c->shape[qa] + bs - 1) / bs;
  memcpy(o->shape[GBQC_ZERO_POINTS], o->shape[GBQC_SCALES],
         sizeof o->shape[GBQC_SCALES]);
  int64_t nv = numel(r, c->shape), ns = numel(r, o->shape[GBQC_SCALES]);
  if (bytes8) {
    o->bytes[GBQC_DATA] = (size_t)nv;
    o->bytes[GBQC_ZERO_POINTS] = (size_t)ns;
  } else if (rows4) { /* ONNX Runtime's rows of two values a byte */
    o->shape[GBQC_DATA][r - 1] /= 2;
    o->bytes[GBQC_DATA] = (size_t)nv / 2;
    int64_t nb = o->shape[GBQC_SCALES][r - 1];
    o->shape[GBQC_ZERO_POINTS][r - 1] = (nb + 1) / 2;
    o->bytes[GBQC_ZERO_POINTS] = (size_t)(nb ? ns / nb * ((nb + 1) / 2) : 0);
  } else { /* uint4, int4: packed over the whole tensor */
    o->bytes[GBQC_DATA] = (size_t)(nv + 1) / 2;
    o->bytes[GBQC_ZERO_POINTS] = (size_t)(ns + 1) / 2;
  }
  o->bytes[GBQC_INDICES] =
      (size_t)numel(c->irank, c->ishape) * clg_dtype_size(c->idt);
  o->bytes[GBQC_SCALES] = (size_t)ns * clg_dtype_size(c->sdt);
  int32_t orank = 0;
  for (int32_t d = 0; d < ga; ++d)
    o->shape[GBQC_OUTPUT][orank++] = c->shape[d];
  for (int32_t d = 0; d < c->irank; ++d)
    o->shape[GBQC_OUTPUT][orank++] = c->ishape[d];
  for (int32_t d = ga + 1; d < r; ++d)
    o->shape[GBQC_OUTPUT][orank++] = c->shape[d];
  o->rank[GBQC_OUTPUT] = orank;
  o->bytes[GBQC_OUTPUT] = gbq_output_bytes(c);
}

int64_t gbq_output_count(const gbq_case *c) {
  int32_t ga = norm_axis(c->p.gather_axis, c->rank);
  int64_t n = numel(c->irank, c->ishape);
  for (int32_t d = 0; d < c->rank; ++d)
    if (d != ga)
      n *= c->shape[d];
  return n;
}

size_t gbq_output_bytes(const gbq_case *c) {
  return (size_t)gbq_output_count(c) * clg_dtype_size(c->sdt);
}

const char *gbq_case_str(const gbq_case *c, char *buf, size_t cap) {
  static const char *const kinds[] = {"uint8", "uint4", "int4"};
  char vs[64], is[64], st[GBQC_NOPS][40];
  for (int k = 0; k < GBQC_NOPS; ++k)
    case_storage_str(c->st[k], st[k], sizeof st[k]);
  const char *in = clg_dtype_name(c->idt), *sn = clg_dtype_name(c->sdt);
  snprintf(buf, cap,
           "GatherBlockQuantized kind=%s bits=%d values=%s gather_axis=%" PRId64
           " quantize_axis=%" PRId64 " block_size=%" PRId64
           " indices=%s %s scales=%s zero_points=%s "
           "storage(d/i/s/zp/out)=%s/%s/%s/%s/%s%s",
           c->p.kind < 3 ? kinds[c->p.kind] : "?", (int)c->p.bits,
           case_shape_str(c->rank, c->shape, vs, sizeof vs), c->p.gather_axis,
           c->p.quantize_axis, c->p.block_size, in ? in : "?",
           case_shape_str(c->irank, c->ishape, is, sizeof is), sn ? sn : "?",
           c->zp ? "yes" : "no", st[0], st[1], st[2], st[3], st[4],
           c->async ? " async" : "");
  return buf;
}

clg_status gbq_case_status(const gbq_case *c, const case_device *dev) {
  if (gbq_output_count(c) == 0) /* no arithmetic: nothing refused */
    return CLG_SUCCESS;
  return c->sdt == CLG_DTYPE_FLOAT && !dev->single_denorm
             ? CLG_ERROR_UNSUPPORTED_DTYPE
             : CLG_SUCCESS;
}

/* ------------------------------------------------------------ inputs */

void gbq_inputs_free(gbq_inputs *in) {
  for (int k = 0; k < 4; ++k) {
    free(in->op[k]);
    in->op[k] = NULL;
  }
}

/* A scale: zero one time in 16, else both signs and a magnitude in
 * [2^-14, 2^4) with a full mantissa (of its type): normal in float16 and
 * float32, and so are its products with q - p (|q - p| in [1, 255]). */
static void put_scale(case_rng *rng, clg_dtype sdt, unsigned char *dst,
                      int64_t k) {
  float f = 0.0f;
  if (case_rng_range(rng, 0, 15) != 0) {
    double frac = (double)(case_rng_u64(rng) >> 11) / 9007199254740992.0;
    f = (float)ldexp(1.0 + frac, (int)case_rng_range(rng, -14, 3));
    if (case_rng_range(rng, 0, 1))
      f = -f;
  }
  if (sdt == CLG_DTYPE_FLOAT16) {
    uint16_t h = ref_float_to_half(f); /* rounds: stays normal */
    memcpy(dst + 2 * (size_t)k, &h, 2);
  } else
    memcpy(dst + 4 * (size_t)k, &f, 4);
}

int gbq_inputs_draw(const gbq_case *c, uint64_t seed, gbq_inputs *in) {
  memset(in, 0, sizeof *in);
  case_rng rng = case_rng_make(seed);
  gbq_operands o;
  gbq_case_operands(c, &o);
  for (int k = 0; k < 4; ++k) {
    in->bytes[k] = o.bytes[k];
    in->op[k] = malloc(o.bytes[k] + 1);
    if (in->op[k] == NULL) {
      gbq_inputs_free(in);
      return -1;
    }
  }
  case_rng_bytes(&rng, in->op[GBQC_DATA], in->bytes[GBQC_DATA]);
  case_rng_bytes(&rng, in->op[GBQC_ZERO_POINTS], in->bytes[GBQC_ZERO_POINTS]);
  int64_t ns = (int64_t)(in->bytes[GBQC_SCALES] / clg_dtype_size(c->sdt));
  for (int64_t k = 0; k < ns; ++k)
    put_scale(&rng, c->sdt, in->op[GBQC_SCALES], k);
  int64_t s = c->shape[norm_axis(c->p.gather_axis, c->rank)];
  int64_t n = numel(c->irank, c->ishape);
  case_fill_indices(&rng, in->op[GBQC_INDICES], c->idt, n, s, CASE_INDEX_ANY);
  if (n > 0) /* both ends, a negative one first */
    case_set_index(in->op[GBQC_INDICES], c->idt, 0, -s);
  if (n > 1)
    case_set_index(in->op[GBQC_INDICES], c->idt, n - 1, s - 1);
  return 0;
}

void gbq_ref_args(const gbq_case *c, const gbq_inputs *in, ref_gbq_args *a) {
  memset(a, 0, sizeof *a);
  a->kind = (int32_t)c->p.kind; /* REF_GBQ_*: the same */
  a->bits = c->p.bits;
  a->data = in->op[GBQC_DATA];
  a->rank = c->rank;
  memcpy(a->shape, c->shape, (size_t)c->rank * sizeof *a->shape);
  a->indices = in->op[GBQC_INDICES];
  a->index_type = case_ref_index_type(c->idt);
  a->indices_rank = c->irank;
  memcpy(a->indices_shape, c->ishape, (size_t)c->irank * sizeof(int64_t));
  a->gather_axis = c->p.gather_axis;
  a->quantize_axis = c->p.quantize_axis;
  a->block_size = c->p.block_size;
  a->scales = in->op[GBQC_SCALES];
  a->scale_dtype = (int32_t)c->sdt;
  a->zero_points = c->zp ? in->op[GBQC_ZERO_POINTS] : NULL;
}

int gbq_expect(const gbq_case *c, const gbq_inputs *in, void *want) {
  ref_gbq_args a;
  gbq_ref_args(c, in, &a);
  return ref_gather_block_quantized(&a, want) == 0 ? 0 : -1;
}

/* ------------------------------------------------------ conformance set */

/* Every (kind and bits, scales' type, zero points or not) twice (the full
 * set: six times), each a case of its own seed: the axes, ranks, partial
 * blocks and index shapes of gbq_case_random(), the index type, empty and
 * rank-0 indices and the call (host, buffer) in turn. */
static void conformance(bool quick, case_visit visit, void *ctx) {
  static const struct {
    clg_gbq_kind kind;
    int32_t bits;
  } kinds[] = {{CLG_GBQ_UINT8, 8},
               {CLG_GBQ_UINT8, 4},
               {CLG_GBQ_UINT4, 4},
               {CLG_GBQ_INT4, 4}};
  static const clg_dtype sdts[] = {CLG_DTYPE_FLOAT, CLG_DTYPE_FLOAT16};
  /* variant bits: int32 indices, empty indices, rank-0 indices */
  static const unsigned variants[] = {0, 1, 2, 5, 3, 4};
  unsigned per = quick ? 2u : 6u, n = 0;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
    for (size_t t = 0; t < 2; ++t)
      for (int zp = 0; zp < 2; ++zp)
        for (unsigned j = 0; j < per; ++j) {
          unsigned combo = (unsigned)(k * 4 + t * 2 + (size_t)zp);
          case_item it = {.family = CASE_FAMILY_GBQ, .seed = 0x9b9000u + n};
          /* the call: host, buffer and asynchronous in turn */
          it.call = (case_call)((combo + j) % 3);
          unsigned v = variants[(combo + j * 3) % 6];
          it.c.gbq = gbq_case_random(it.seed, kinds[k].kind, kinds[k].bits,
                                     sdts[t], zp != 0, v);
          visit(ctx, &it);
          ++n;
        }
}

const case_operator case_gather_block_quantized = {CASE_FAMILY_GBQ, conformance,
                                                   NULL, NULL};
