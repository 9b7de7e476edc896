/* Fuzz harness: validation and planning of the public Gather API.
 *
 * The input is decoded into a whole clg_gather call on host memory: element
 * types (valid and not), ranks (in and out of [0, CLG_MAX_RANK]), shapes
 * (small dims and hostile ones: negative, 2^62, INT64_MAX...), axis, index
 * values, and an output descriptor that is either the right one or broken
 * in one way (dtype, shape, rank, aliasing, NULL host, bad storage).
 * Tensors whose element count is computable are capped at FZ_MAX_ELEMS
 * elements so every input runs quickly.
 *
 * The oracle is computed here, independently of host/: the set of every
 * rule of the header the call breaks. Then
 *  - no rule broken: clg_gather must succeed and the output must equal a
 *    plain-C reference gather (tools/reference/ref_gather.c) byte for byte;
 *  - some rule broken: clg_gather must fail with one of those statuses,
 *    with a message, and leave the output bytes untouched.
 * clg_gather_output_shape is compared with the reference's shape function,
 * and clg__gather_geom_fill (internal) is checked for its invariants on the
 * gather's own parameters and on wider fuzzed ones. One clg_context (the
 * default device) is created on first use and kept.
 */
#include "fuzz_common.h"

#include <clgather/clgather.h>

/* ONNX Gather parameters on `axis`, for clg_validate. */
#define GP(axis) (&(clg_params){CLG_OP_GATHER, (axis), 0, CLG_MODE_RAISE})

#include "internal.h"
#include "reference/reference.h"

#define FZ_MAX_ELEMS 4096

/* ------------------------------------------------------------ decoding */

#include "fuzz_decode.h"

/* The set of statuses a call may legitimately return. */
typedef struct fz_expect {
  unsigned mask; /* bit s: status s is one of the broken rules */
} fz_expect;

static void expect_add(fz_expect *e, clg_status s) { e->mask |= 1u << s; }

/* -------------------------------------------------------------- context */

static clg_context *fz_ctx;
static unsigned long fz_calls, fz_successes; /* FZ_STATS=1 prints them */

static void print_stats(void) {
  fprintf(stderr, "fuzz_gather: %lu clg_gather calls, %lu succeeded\n",
          fz_calls, fz_successes);
}

static clg_context *context(void) {
  if (fz_ctx == NULL) {
    clg_status st = clg_context_create_default(NULL, &fz_ctx);
    if (st != CLG_SUCCESS) {
      fprintf(stderr, "fuzz_gather: no OpenCL device: %s: %s\n",
              clg_status_string(st), clg_last_error());
      abort();
    }
    if (getenv("FZ_STATS") != NULL)
      atexit(print_stats);
  }
  return fz_ctx;
}

/* ----------------------------------------------------------------- plan */

static void check_plan(uint64_t outer, uint64_t s, uint64_t n, uint64_t slice,
                       size_t index_bytes, size_t da, size_t oa,
                       size_t max_local) {
  clg_gather_geom p;
  memset(&p, 0xab, sizeof p);
  clg__gather_geom_fill(&p, outer, outer, s, n, slice, index_bytes, da, oa, max_local);
  size_t u = p.unit_bytes;
  FZ_CHECK(u == 1 || u == 2 || u == 4 || u == 8 || u == 16, "unit %zu", u);
  FZ_CHECK(slice % u == 0 && da % u == 0 && oa % u == 0,
           "unit %zu does not divide slice %llu / offsets %zu %zu", u,
           (unsigned long long)slice, da, oa);
  FZ_CHECK(u == 16 || slice % (2 * u) || da % (2 * u) || oa % (2 * u),
           "unit %zu is not the widest possible", u);
  FZ_CHECK(p.inner * u == slice, "inner %llu * unit %zu != slice %llu",
           (unsigned long long)p.inner, u, (unsigned long long)slice);
  FZ_CHECK(p.outer == outer && p.s == s && p.n == n && p.rows == outer * n &&
               p.index_bytes == index_bytes,
           "plan does not echo its inputs");
  FZ_CHECK(p.local[0] >= 1 && p.local[1] == 1, "local %zu %zu", p.local[0],
           p.local[1]);
  FZ_CHECK(max_local == 0 || p.local[0] <= max_local,
           "local %zu above the device limit %zu", p.local[0], max_local);
  FZ_CHECK(p.work_dim == 1 || p.work_dim == 2, "work_dim %u", p.work_dim);
  for (cl_uint d = 0; d < p.work_dim; ++d)
    FZ_CHECK(p.global[d] % p.local[d] == 0, "global[%u] %zu %% local %zu", d,
             p.global[d], p.local[d]);
  if (p.variant == CLG_VARIANT_ROWS) {
    FZ_CHECK(p.work_dim == 2, "ROWS with work_dim %u", p.work_dim);
    uint64_t want = p.inner < 256 ? p.inner : 256;
    /* Dim 1 covers every slice, capped at 65535 (the kernel strides). */
    uint64_t dim1 = p.rows < 65535 ? p.rows : 65535;
    FZ_CHECK(p.global[0] >= want && p.global[1] == dim1,
             "ROWS NDRange %zu x %zu for inner %llu rows %llu", p.global[0],
             p.global[1], (unsigned long long)p.inner,
             (unsigned long long)p.rows);
  } else {
    FZ_CHECK(p.variant == CLG_VARIANT_SMALL && p.work_dim == 1,
             "variant %d work_dim %u", (int)p.variant, p.work_dim);
    FZ_CHECK((uint64_t)p.global[0] * CLG_SMALL_ROWS_PER_ITEM >= p.rows,
             "SMALL NDRange %zu does not cover %llu rows", p.global[0],
             (unsigned long long)p.rows);
  }
}

static size_t take_max_local(fz_in *in) {
  static const size_t v[8] = {0, 1, 2, 7, 48, 64, 256, 1024};
  return v[take8(in) % 8];
}

/* ------------------------------------------------------------ the call */

typedef struct fz_tensor {
  clg_tensor t;
  fz_size size;
  uint64_t count;
  size_t esize; /* for the buffer: the dtype's size, or 1 */
  unsigned char *buf;
  size_t bytes;
} fz_tensor;

/* Allocate a buffer for a descriptor: exactly its bytes when computable
 * (0 if above the cap: the input is skipped), else a 16-byte stand-in the
 * library must never touch. */
static int fz_alloc(fz_tensor *x) {
  if (x->size == FZ_OK) {
    if (x->count > FZ_MAX_ELEMS)
      return -1;
    x->bytes = (size_t)x->count * x->esize;
  } else {
    x->bytes = 16;
  }
  x->buf = malloc(x->bytes ? x->bytes : 1);
  FZ_CHECK(x->buf != NULL, "malloc");
  x->t.host = x->buf;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size) {
  fz_in in = {input, size};
  fz_tensor d, x, o;
  memset(&d, 0, sizeof d);
  memset(&x, 0, sizeof x);
  memset(&o, 0, sizeof o);

  /* data, indices, axis */
  clg_dtype ddt = take_data_dtype(&in);
  clg_dtype xdt = take_index_dtype(&in);
  int32_t r = take_rank(&in, 1, 4);
  int32_t q = take_rank(&in, 0, 4);
  int64_t dshape[CLG_MAX_RANK] = {0}, xshape[CLG_MAX_RANK] = {0};
  for (int32_t i = 0; i < r && i < CLG_MAX_RANK; ++i)
    dshape[i] = take_dim(&in);
  for (int32_t i = 0; i < q && i < CLG_MAX_RANK; ++i)
    xshape[i] = take_dim(&in);
  uint8_t ab = take8(&in);
  int64_t axis = ab < 240 ? (int64_t)(ab % 10) - 5 : wild[ab % 16];
  uint8_t variant = take8(&in);
  uint8_t value_mode = take8(&in);

  d.t = clg_tensor_host(ddt, r, dshape, NULL);
  x.t = clg_tensor_host(xdt, q, xshape, NULL);
  size_t des = clg_dtype_size(ddt), xes = clg_dtype_size(xdt);
  d.esize = des ? des : 1;
  x.esize = xes ? xes : 1;
  d.size = classify(r, dshape, d.esize, &d.count);
  x.size = classify(q, xshape, x.esize, &x.count);

  /* Output shape: the library's answer against the reference's. */
  int32_t orank = -1;
  int64_t oshape[CLG_MAX_RANK];
  memset(oshape, 0x5a, sizeof oshape);
  clg_status sst = clg_gather_output_shape(r, dshape, q, xshape, axis, &orank,
                                           oshape);
  int ref_ok = -1;
  int32_t ref_rank = 0;
  int64_t ref_shape[REF_MAX_RANK];
  if (r <= CLG_MAX_RANK && q <= CLG_MAX_RANK)
    ref_ok = ref_gather_shape(r, dshape, q, xshape, axis, CLG_MAX_RANK,
                              &ref_rank, ref_shape);
  FZ_CHECK((sst == CLG_SUCCESS) == (ref_ok == 0),
           "clg_gather_output_shape %s (%s) but the reference says %s",
           clg_status_string(sst), clg_last_error(), ref_ok == 0 ? "ok" : "no");
  if (sst == CLG_SUCCESS) {
    FZ_CHECK(orank == ref_rank, "output rank %d vs %d", (int)orank,
             (int)ref_rank);
    for (int32_t i = 0; i < orank; ++i)
      FZ_CHECK(oshape[i] == ref_shape[i], "output dim %d", (int)i);
  } else {
    FZ_CHECK(clg_last_error()[0] != '\0', "no message for %s",
             clg_status_string(sst));
    /* No valid output shape: describe a plausible one anyway. */
    orank = r >= 1 && r <= CLG_MAX_RANK ? r : 1;
    memcpy(oshape, dshape, sizeof oshape);
  }

  /* The output descriptor: right, or broken in one way. */
  o.t = clg_tensor_host(ddt, orank, oshape, NULL);
  int alias = 0, null_d = 0, null_x = 0, null_o = 0;
  if (variant >= 200) {
    switch (variant % 8) {
    case 0: /* another element type */
      o.t.dtype = fixed_types[(variant / 8) % 15];
      if (o.t.dtype == ddt)
        o.t.dtype = (clg_dtype)(((int)ddt + 1) % 20);
      break;
    case 1: /* one dim off by one, or a rank-0 output that should not be */
      if (o.t.rank > 0) {
        int64_t *dim = &o.t.shape[(variant / 8) % o.t.rank];
        *dim = *dim == INT64_MAX ? *dim - 1 : *dim + 1;
      } else
        o.t.rank = 1, o.t.shape[0] = 1;
      break;
    case 2: /* one more dim of 1 */
      if (o.t.rank < CLG_MAX_RANK)
        o.t.shape[o.t.rank] = 1;
      o.t.rank += 1;
      break;
    case 3: alias = 1; break;
    case 4: null_o = 1; break;
    case 5: null_d = 1; break;
    case 6: null_x = 1; break;
    default: { /* an unknown storage kind on one of the three */
      clg_tensor *victim = (variant / 8) % 3 == 0   ? &d.t
                           : (variant / 8) % 3 == 1 ? &x.t
                                                    : &o.t;
      victim->storage = (clg_storage)((variant & 16) ? 7 : -1);
      break;
    }
    }
  }
  o.esize = d.esize; /* the output is sized with data's element type */
  o.size = classify(o.t.rank, o.t.shape, o.esize, &o.count);

  int skipped = fz_alloc(&d) || fz_alloc(&x) || fz_alloc(&o);
  if (skipped)
    goto out;
  if (alias && d.bytes < o.bytes) {
    /* An aliased output lies inside data's allocation, never past it. */
    unsigned char *grown = realloc(d.buf, o.bytes);
    FZ_CHECK(grown != NULL, "realloc");
    memset(grown + d.bytes, 0, o.bytes - d.bytes);
    d.buf = grown;
    d.t.host = grown;
  }
  for (size_t i = 0; i < d.bytes; ++i)
    d.buf[i] = (unsigned char)(i * 131u + 7u + variant);
  for (size_t i = 0; i < o.bytes; ++i)
    o.buf[i] = (unsigned char)(0xc5u ^ (i * 17u));

  /* Index values: near the valid range [-s, s-1] or raw 64-bit values. */
  int32_t a = -1;
  if (r >= 1 && r <= CLG_MAX_RANK && axis >= -(int64_t)r && axis < r)
    a = (int32_t)(axis < 0 ? axis + r : axis);
  int64_t s = a >= 0 ? dshape[a] : 0;
  if (x.size == FZ_OK && (xdt == CLG_DTYPE_INT32 || xdt == CLG_DTYPE_INT64)) {
    int64_t span = s > 1000 || s < 0 ? 1000 : s;
    for (uint64_t i = 0; i < x.count; ++i) {
      int64_t v;
      if (value_mode & 1)
        v = (int64_t)take64(&in);
      else
        v = (int64_t)(take8(&in) % (uint64_t)(2 * span + 2)) - span - 1;
      if (xdt == CLG_DTYPE_INT32) {
        int32_t v32 = (int32_t)v;
        memcpy(x.buf + 4 * i, &v32, 4);
      } else {
        memcpy(x.buf + 8 * i, &v, 8);
      }
    }
  } else {
    for (size_t i = 0; i < x.bytes; ++i)
      x.buf[i] = take8(&in);
  }
  if (null_d)
    d.t.host = NULL;
  if (null_x)
    x.t.host = NULL;
  if (null_o)
    o.t.host = NULL;
  else
    o.t.host = alias ? d.buf : o.buf;

  /* ---- the oracle: every rule of the header this call breaks ---- */
  fz_expect e = {0};
  if (des == 0)
    expect_add(&e, CLG_ERROR_UNSUPPORTED_DTYPE);
  if (xdt != CLG_DTYPE_INT32 && xdt != CLG_DTYPE_INT64)
    expect_add(&e, CLG_ERROR_INVALID_INDICES_DTYPE);
  if (o.t.dtype != ddt)
    expect_add(&e, CLG_ERROR_DTYPE_MISMATCH);
  if (r < 1)
    expect_add(&e, CLG_ERROR_INVALID_RANK);
  fz_tensor *all[3] = {&d, &x, &o};
  for (int k = 0; k < 3; ++k) {
    fz_tensor *t = all[k];
    if (t->t.storage != CLG_STORAGE_HOST)
      expect_add(&e, CLG_ERROR_INVALID_ARGUMENT);
    if (t->size == FZ_BAD_RANK)
      expect_add(&e, CLG_ERROR_INVALID_RANK);
    if (t->size == FZ_NEG)
      expect_add(&e, CLG_ERROR_INVALID_SHAPE);
    if (t->size == FZ_OVF)
      expect_add(&e, CLG_ERROR_SIZE_OVERFLOW);
    if (t->size == FZ_OK && t->count > 0 && t->t.host == NULL)
      expect_add(&e, CLG_ERROR_NULL_ARGUMENT);
  }
  if (sst != CLG_SUCCESS) {
    expect_add(&e, sst); /* rank, shape or axis rule */
  } else {
    int same = o.t.rank == orank;
    for (int32_t i = 0; same && i < orank; ++i)
      same = o.t.shape[i] == oshape[i];
    if (!same)
      expect_add(&e, CLG_ERROR_SHAPE_MISMATCH);
  }
  if (alias && d.size == FZ_OK && o.size == FZ_OK && d.count > 0 &&
      o.count > 0)
    expect_add(&e, CLG_ERROR_INVALID_ARGUMENT);
  ref_index_type rtype = xdt == CLG_DTYPE_INT32 ? REF_INDEX_I32 : REF_INDEX_I64;
  if (a >= 0 && s >= 0 && x.size == FZ_OK && x.t.host != NULL &&
      (xdt == CLG_DTYPE_INT32 || xdt == CLG_DTYPE_INT64) &&
      ref_first_oob(x.buf, rtype, (int64_t)x.count, s) >= 0)
    expect_add(&e, CLG_ERROR_INDEX_OUT_OF_BOUNDS);

  /* ---- the call ---- */
  unsigned char *before = malloc(o.bytes ? o.bytes : 1);
  FZ_CHECK(before != NULL, "malloc");
  memcpy(before, o.buf, o.bytes);
  clg_status st = clg_gather(context(), &d.t, &x.t, axis, &o.t, NULL, 0, NULL,
                             NULL);
  ++fz_calls;
  fz_successes += st == CLG_SUCCESS;
  if (e.mask == 0) {
    FZ_CHECK(st == CLG_SUCCESS, "a valid gather failed: %s: %s",
             clg_status_string(st), clg_last_error());
    FZ_CHECK(clg_last_error()[0] == '\0', "message after success: %s",
             clg_last_error());
    unsigned char *want = malloc(o.bytes ? o.bytes : 1);
    FZ_CHECK(want != NULL, "malloc");
    FZ_CHECK(ref_gather(d.buf, des, r, dshape, x.buf, rtype, q, xshape, axis,
                        want) == 0,
             "the reference rejects a call the oracle accepts");
    for (size_t i = 0; i < o.bytes; ++i)
      FZ_CHECK(o.buf[i] == want[i],
               "output byte %zu is 0x%02x, the reference says 0x%02x "
               "(dtype %s, data rank %d, indices rank %d, axis %lld)",
               i, o.buf[i], want[i], clg_dtype_name(ddt), (int)r, (int)q,
               (long long)axis);
    free(want);

    /* The plan clg_gather made for this call, with fuzzed alignments and
     * device limits. */
    uint64_t outer = 1, slice = des;
    for (int32_t i = 0; i < a; ++i)
      outer *= (uint64_t)dshape[i];
    for (int32_t i = a + 1; i < r; ++i)
      slice *= (uint64_t)dshape[i];
    if (o.bytes > 0)
      check_plan(outer, (uint64_t)s, x.count, slice, xes, take8(&in),
                 take8(&in), take_max_local(&in));
  } else {
    FZ_CHECK(st != CLG_SUCCESS && st <= CLG_ERROR_OUT_OF_HOST_MEMORY &&
                 (e.mask & (1u << st)),
             "got %s (%d: %s); expected one of mask 0x%x", clg_status_string(st),
             (int)st, clg_last_error(), e.mask);
    FZ_CHECK(clg_last_error()[0] != '\0', "%s without a message",
             clg_status_string(st));
    FZ_CHECK(memcmp(before, o.buf, o.bytes) == 0,
             "the output changed although clg_gather failed with %s",
             clg_status_string(st));
    if (alias)
      for (size_t i = 0; i < d.bytes && !null_d; ++i)
        FZ_CHECK(d.buf[i] == (unsigned char)(i * 131u + 7u + variant),
                 "data changed through an aliased output");
  }
  free(before);

  /* clg_validate (no context: host inputs) agrees with clg_gather:
   * clg_gather checks the inputs before the output, so an input error is
   * the same status and message from both, and a valid gather validates. */
  {
    char gather_msg[1024];
    snprintf(gather_msg, sizeof gather_msg, "%s", clg_last_error());
    clg_status vst = clg_validate(NULL, GP(axis), &d.t, &x.t, NULL, 0, NULL);
    FZ_CHECK(st != CLG_SUCCESS || vst == CLG_SUCCESS,
             "clg_gather succeeded but clg_validate says %s: %s",
             clg_status_string(vst), clg_last_error());
    FZ_CHECK(vst == CLG_SUCCESS || st != CLG_SUCCESS,
             "clg_validate failed (%s) but clg_gather succeeded",
             clg_status_string(vst));
    if (vst != CLG_SUCCESS && vst != CLG_ERROR_INDEX_OUT_OF_BOUNDS)
      FZ_CHECK(st == vst && strcmp(gather_msg, clg_last_error()) == 0,
               "input error differs: clg_gather %s (%s), validate %s (%s)",
               clg_status_string(st), gather_msg, clg_status_string(vst),
               clg_last_error());
  }

  /* Wider plans: fuzzed sizes up to 2^20 x 2^31 x 2^20 x 2^24 bytes. */
  {
    uint64_t outer = take64(&in) % (1u << 20), s2 = take64(&in) % (1ull << 31);
    uint64_t n = take64(&in) % (1u << 20);
    uint64_t slice = (take64(&in) % (1u << 24)) + 1;
    uint8_t ib = take8(&in);
    check_plan(outer, s2, n, slice, (ib & 1) ? 8 : 4, take8(&in) * 3u,
               take8(&in), take_max_local(&in));
  }

out:
  free(d.buf);
  free(x.buf);
  free(o.buf);
  return 0;
}
