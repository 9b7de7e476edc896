/* libFuzzer harness: the scatters (clg_scatter) on host tensors against the
 * plain-C sequential references (tools/reference/ref_scatter_*.c).
 *
 * The input decodes into an operator (ScatterElements, ScatterND, Scatter),
 * a reduction and duplicates rule (sometimes unknown values), an element
 * and index type, data of rank 1-3 with dims 0-4, indices and updates of
 * the operator's shapes (sometimes perturbed), index values mostly in range
 * (sometimes repeated, sometimes far out), and whether the output is data
 * itself. The oracle:
 *  - the reference accepts: CLG_SUCCESS and the output equals the
 *    reference's byte for byte;
 *  - an index out of range, a repeated target under reduction none, min or
 *    max on complex numbers, a shape the operator refuses, an unknown
 *    reduction: the matching error, a message, and the output unchanged
 *    (in place: data unchanged).
 * Float values are small quarter-integers (no NaN payloads, whose sign on
 * an operation's result is the hardware's); integer values are any bits.
 */
#include "fuzz_common.h"

#include <clgather/clgather.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_decode.h"
#include "reference/ref_scatter.h"

static clg_context *g_ctx;

static void fill(fz_in *in, clg_dtype dt, unsigned char *p, size_t count) {
  size_t es = clg_dtype_size(dt);
  for (size_t i = 0; i < count; ++i) {
    float f = (float)((int)take8(in) - 128) / 4.0f;
    switch (dt) {
    case CLG_DTYPE_FLOAT: memcpy(p + 4 * i, &f, 4); break;
    case CLG_DTYPE_DOUBLE: {
      double d = f;
      memcpy(p + 8 * i, &d, 8);
    } break;
    case CLG_DTYPE_FLOAT16: { /* exact small values */
      static const uint16_t halfs[8] = {0x0000, 0x3C00, 0xBC00, 0x4000,
                                        0x3800, 0x4200, 0xC400, 0x8000};
      memcpy(p + 2 * i, &halfs[take8(in) % 8], 2);
    } break;
    case CLG_DTYPE_BFLOAT16: { /* the top half of f: exact */
      uint32_t u;
      memcpy(&u, &f, 4);
      uint16_t h = (uint16_t)(u >> 16);
      memcpy(p + 2 * i, &h, 2);
    } break;
    case CLG_DTYPE_BOOL: p[i] = take8(in) & 1; break;
    case CLG_DTYPE_COMPLEX64: {
      float z[2] = {f, (float)((int)take8(in) - 128) / 4.0f};
      memcpy(p + 8 * i, z, 8);
    } break;
    case CLG_DTYPE_COMPLEX128: {
      double z[2] = {f, (double)((int)take8(in) - 128) / 4.0};
      memcpy(p + 16 * i, z, 16);
    } break;
    default:
      for (size_t b = 0; b < es; ++b)
        p[es * i + b] = take8(in);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_ctx && clg_context_create_default(NULL, &g_ctx) != CLG_SUCCESS) {
    fprintf(stderr, "no OpenCL device: %s\n", clg_last_error());
    fz_die();
  }
  fz_in in = {data, size};
  static const clg_op ops[3] = {CLG_OP_SCATTER_ELEMENTS, CLG_OP_SCATTER_ND,
                                CLG_OP_SCATTER};
  clg_op op = ops[take8(&in) % 3];
  uint8_t rb = take8(&in), db = take8(&in);
  int red = rb < 250 ? rb % 5 : (int)rb - 245; /* 5..10: unknown */
  int dup = db < 250 ? db % 2 : 7;
  clg_dtype dt = fixed_types[take8(&in) % 15];
  clg_dtype it = take8(&in) & 1 ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
  int32_t r = 1 + take8(&in) % 3;
  int64_t ds[3], is[4], us[8];
  for (int32_t d = 0; d < r; ++d)
    ds[d] = take8(&in) % 5;
  int32_t q, ur;
  int64_t axis = 0;
  if (op == CLG_OP_SCATTER_ND) {
    int32_t k = 1 + take8(&in) % r;
    q = 1 + take8(&in) % 2;
    for (int32_t d = 0; d < q - 1; ++d)
      is[d] = take8(&in) % 4;
    is[q - 1] = k;
    ur = 0;
    for (int32_t d = 0; d < q - 1; ++d)
      us[ur++] = is[d];
    for (int32_t d = k; d < r; ++d)
      us[ur++] = ds[d];
  } else {
    axis = (int64_t)(take8(&in) % (2 * r)) - r;
    int32_t a = (int32_t)(axis < 0 ? axis + r : axis);
    q = r;
    for (int32_t d = 0; d < r; ++d)
      is[d] = d == a ? take8(&in) % 5 : (ds[d] ? take8(&in) % (ds[d] + 1) : 0);
    ur = q;
    memcpy(us, is, sizeof(int64_t) * (size_t)q);
  }
  bool bad_updates = false;
  if (ur > 0 && take8(&in) >= 248) { /* updates of another shape */
    us[take8(&in) % ur] += 1;
    bad_updates = true;
  }
  bool in_place = take8(&in) & 1;

  size_t es = clg_dtype_size(dt), is_ = clg_dtype_size(it);
  size_t dn = 1, xn = 1, un = 1;
  for (int32_t d = 0; d < r; ++d)
    dn *= (size_t)ds[d];
  for (int32_t d = 0; d < q; ++d)
    xn *= (size_t)is[d];
  for (int32_t d = 0; d < ur; ++d)
    un *= (size_t)us[d];
  unsigned char *dbuf = malloc(dn * es + 1), *ubuf = malloc(un * es + 1),
                *xbuf = malloc(xn * is_ + 1), *want = malloc(dn * es + 1),
                *out = malloc(dn * es + 1), *before = malloc(dn * es + 1);
  FZ_CHECK(dbuf && ubuf && xbuf && want && out && before, "out of memory");
  fill(&in, dt, dbuf, dn);
  fill(&in, dt, ubuf, un);
  /* index values: in range for the axis they index, some far out */
  for (size_t i = 0; i < xn; ++i) {
    int64_t s = op == CLG_OP_SCATTER_ND ? ds[i % (size_t)is[q - 1]]
                                        : ds[axis < 0 ? axis + r : axis];
    uint8_t b = take8(&in);
    int64_t v = b >= 252 ? wild[take8(&in) % 16]
                         : (s ? (int64_t)(b % (2 * s)) - s : (int64_t)b - 128);
    if (it == CLG_DTYPE_INT32) {
      int32_t w = (int32_t)v;
      memcpy(xbuf + 4 * i, &w, 4);
    } else
      memcpy(xbuf + 8 * i, &v, 8);
  }
  memcpy(want, dbuf, dn * es);
  memset(out, 0x5A, dn * es);
  int64_t bad = -1, first = -1;
  int rc = REF_OK;
  bool complex = dt == CLG_DTYPE_COMPLEX64 || dt == CLG_DTYPE_COMPLEX128;
  if (red > 4 || dup > 1 || (op == CLG_OP_SCATTER && red != 0) ||
      (complex && (red == 3 || red == 4)))
    rc = -1; /* a parameter the library refuses */
  else if (op == CLG_OP_SCATTER_ND)
    rc = ref_scatter_nd(want, dt, r, ds, xbuf, it == CLG_DTYPE_INT64 ? REF_INDEX_I64 : REF_INDEX_I32, q, is, ubuf,
                        (ref_reduction)red, dup, &bad, &first);
  else
    rc = ref_scatter_elements(want, dt, r, ds, xbuf, it == CLG_DTYPE_INT64 ? REF_INDEX_I64 : REF_INDEX_I32, is, ubuf,
                              axis, (ref_reduction)red, dup, &bad, &first);

  unsigned char *target = in_place ? dbuf : out;
  memcpy(before, target, dn * es);
  int64_t d64[3], x64[4], u64[8];
  memcpy(d64, ds, sizeof d64);
  memcpy(x64, is, sizeof x64);
  memcpy(u64, us, sizeof u64);
  clg_tensor td = clg_tensor_host(dt, r, d64, dbuf);
  clg_tensor tx = clg_tensor_host(it, q, x64, xbuf);
  clg_tensor tu = clg_tensor_host(dt, ur, u64, ubuf);
  clg_tensor to = clg_tensor_host(dt, r, d64, target);
  clg_params p = {op, axis, 0, CLG_MODE_RAISE};
  clg_scatter_params sp = {(clg_reduction)red, (clg_duplicates)dup};
  clg_status st =
      clg_scatter(g_ctx, &p, &sp, &td, &tx, &tu, &to, NULL, 0, NULL, NULL);

  if (rc == REF_OK && !bad_updates) {
    FZ_CHECK(st == CLG_SUCCESS, "status %d (%s), the reference accepts", st,
             clg_last_error());
    FZ_CHECK(memcmp(target, want, dn * es) == 0,
             "output differs from the reference (op %d red %d dtype %d)",
             (int)op, red, (int)dt);
  } else {
    FZ_CHECK(st != CLG_SUCCESS, "success, but the reference says %d%s", rc,
             bad_updates ? " (updates' shape)" : "");
    FZ_CHECK(clg_last_error()[0] != '\0', "no message for status %d", st);
    FZ_CHECK(memcmp(target, before, dn * es) == 0,
             "status %d (%s) but the output changed", st, clg_last_error());
    if (rc == REF_OOB && !bad_updates)
      FZ_CHECK(st == CLG_ERROR_INDEX_OUT_OF_BOUNDS, "status %d, want OOB: %s",
               st, clg_last_error());
    if (rc == REF_DUPLICATE && !bad_updates)
      FZ_CHECK(st == CLG_ERROR_DUPLICATE_INDEX,
               "status %d, want duplicate: %s", st, clg_last_error());
  }
  free(dbuf);
  free(ubuf);
  free(xbuf);
  free(want);
  free(out);
  free(before);
  return 0;
}
