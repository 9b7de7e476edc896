/* Strided operands (support/strided_operand.h). */
#include "support/strided_operand.h"

#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

static layout make_layout(lk kind, int32_t rank) {
  layout l;
  memset(&l, 0, sizeof l);
  l.zero = -1;
  for (int d = 0; d < rank; ++d)
    l.perm[d] = d;
  if (kind == PITCH && rank > 0)
    l.pad[rank - 1] = 3;
  if (kind == TRANSPOSED)
    for (int d = 0; d < rank; ++d)
      l.perm[d] = rank - 1 - d;
  if (kind == REVERSED) {
    l.neg[0] = true;
    if (rank > 1) {
      l.neg[rank - 1] = true;
      l.pad[0] = 1;
    }
  }
  if (kind == BROADCAST0)
    l.zero = 0;
  return l;
}

/* Element position (in the parent) of flat C-order position i. */
int64_t st_at(const st_operand *o, int64_t i) {
  int64_t p = o->base;
  for (int d = o->rank - 1; d >= 0; --d) {
    int64_t c = i % o->shape[d];
    i /= o->shape[d];
    p += c * o->strides[d];
  }
  return p;
}

/* Lay out `dense` (C order; NULL: an output, the parent all sentinel). */
void st_make(st_operand *o, clg_dtype dtype, int32_t rank, const int64_t *shape,
             lk kind, bool device, const void *dense) {
  memset(o, 0, sizeof *o);
  o->dtype = dtype;
  o->es = clg_dtype_size(dtype);
  o->rank = rank;
  memcpy(o->shape, shape, sizeof(int64_t) * (size_t)rank);
  layout l = make_layout(kind, rank);
  int64_t span = 1;
  for (int j = rank - 1; j >= 0; --j) {
    int d = l.perm[j];
    o->strides[d] = d == l.zero ? 0 : span;
    if (d != l.zero)
      span *= shape[d] + l.pad[d];
  }
  if (kind == STEP2) {
    for (int d = 0; d < rank; ++d)
      o->strides[d] *= 2;
    span *= 2;
  }
  for (int d = 0; d < rank; ++d)
    if (l.neg[d]) {
      o->base += (shape[d] - 1) * o->strides[d];
      o->strides[d] = -o->strides[d];
    }
  o->base += 2; /* two elements of slack before */
  o->pbytes = (size_t)(span + 4) * o->es;
  o->host = malloc(o->pbytes);
  cr_assert(o->host);
  memset(o->host, SENTINEL, o->pbytes);
  int64_t n = tu_numel(rank, shape);
  if (dense)
    for (int64_t i = 0; i < n; ++i)
      memcpy(o->host + st_at(o, i) * (int64_t)o->es,
             (const unsigned char *)dense + i * (int64_t)o->es, o->es);
  o->on_device = device;
  clg_tensor t;
  if (device) {
    o->boff = 8 * o->es; /* a byte offset, aligned */
    unsigned char *init = malloc(o->boff + o->pbytes);
    memset(init, SENTINEL, o->boff);
    memcpy(init + o->boff, o->host, o->pbytes);
    o->mem = tu_buffer_create(o->boff + o->pbytes, init);
    free(init);
    t = clg_tensor_buffer(dtype, rank, shape, o->mem,
                          o->boff + (size_t)o->base * o->es);
  } else {
    t = clg_tensor_host(dtype, rank, shape, o->host + o->base * (int64_t)o->es);
  }
  o->view = clg_tensor_strided(&t, o->strides);
}

/* The parent as it is now (from the device for a cl_mem). */
void st_parent(const st_operand *o, unsigned char *dst) {
  if (o->on_device)
    tu_buffer_read(o->mem, o->boff, o->pbytes, dst);
  else
    memcpy(dst, o->host, o->pbytes);
}

/* The output's elements equal `want` (C order) and every other byte of the
 * parent is the sentinel. */
void st_expect_output(const st_operand *o, const void *want, const char *what) {
  unsigned char *now = malloc(o->pbytes), *exp = malloc(o->pbytes);
  st_parent(o, now);
  memset(exp, SENTINEL, o->pbytes);
  int64_t n = tu_numel(o->rank, o->shape);
  for (int64_t i = 0; i < n; ++i)
    memcpy(exp + st_at(o, i) * (int64_t)o->es,
           (const unsigned char *)want + i * (int64_t)o->es, o->es);
  ptrdiff_t d = tu_first_diff(now, exp, o->pbytes);
  free(now);
  free(exp);
  cr_expect(d < 0, "%s: the output's parent differs at byte %td", what, d);
}

/* The parent still all sentinel: nothing written. */
void st_expect_untouched(const st_operand *o, const char *what) {
  unsigned char *now = malloc(o->pbytes), *exp = malloc(o->pbytes);
  st_parent(o, now);
  memset(exp, SENTINEL, o->pbytes);
  ptrdiff_t d = tu_first_diff(now, exp, o->pbytes);
  free(now);
  free(exp);
  cr_expect(d < 0, "%s: the output was written (byte %td)", what, d);
}

void st_free(st_operand *o) {
  free(o->host);
  if (o->mem)
    clReleaseMemObject(o->mem);
}

/* Random values; for a broadcast input, equal along dim 0. */
void *st_values(tu_rng *rng, clg_dtype dt, int32_t r, const int64_t *s,
                lk kind) {
  size_t es = clg_dtype_size(dt), n = (size_t)tu_numel(r, s);
  unsigned char *v = malloc(n * es + 1);
  tu_rng_bytes(rng, v, n * es);
  if (dt == CLG_DTYPE_FLOAT16 || dt == CLG_DTYPE_FLOAT)
    for (size_t i = 0; i < n; ++i) /* no NaN: compare sums by bits anyway */
      v[i * es + es - 1] &= 0x3F;
  if (kind == BROADCAST0 && r > 0) {
    size_t inner = n / (size_t)s[0];
    for (size_t i = inner; i < n; ++i)
      memcpy(v + i * es, v + (i % inner) * es, es);
  }
  return v;
}

void *st_index_values(tu_rng *rng, clg_dtype idt, int64_t count, int64_t lo,
                      int64_t hi) {
  void *v = malloc((size_t)count * clg_dtype_size(idt) + 1);
  for (int64_t i = 0; i < count; ++i)
    tu_set_index(v, idt, i, tu_rng_range(rng, lo, hi));
  return v;
}

const char *st_kind_name(lk k) {
  static const char *const n[] = {"dense",    "pitch",     "transposed",
                                  "reversed", "broadcast", "step2"};
  return n[k];
}
