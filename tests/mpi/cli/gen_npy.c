/*
 * gen_npy: writes the small .npy inputs of the clgather-mpi tests, with
 * its own .npy writer (format 1.0; nothing from clgather), so the tests
 * need neither Python nor the code they test.
 *
 *   gen_npy OUT DTYPE SHAPE KIND [ARG...]
 *
 * DTYPE: f4 f8 i4 i8 u1 i2. SHAPE: dimensions separated by commas ("10,7"),
 * or "scalar" for rank 0. KIND:
 *   seq              element i (flat C order) = i (floats: i / 4 - 3)
 *   rand SEED        floats: multiples of 1/8 in [-2, 2], zeros of both
 *                    signs included; integers: uniform in [-100, 100]
 *   ints LO HI SEED  integers uniform in [LO, HI] (any DTYPE)
 *   list V,V,...     the values given, as many as the shape holds
 * Exit status 0, or 1 with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *m, const char *a) {
  fprintf(stderr, "gen_npy: %s%s\n", m, a ? a : "");
  return 1;
}

static uint64_t rng(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Store value v (integer kinds) or f (float kinds) as element i. */
static void put(unsigned char *buf, const char *dt, size_t i, int64_t v,
                double f, int is_float) {
  if (strcmp(dt, "f4") == 0) {
    float x = is_float ? (float)f : (float)v;
    memcpy(buf + i * 4, &x, 4);
  } else if (strcmp(dt, "f8") == 0) {
    double x = is_float ? f : (double)v;
    memcpy(buf + i * 8, &x, 8);
  } else if (strcmp(dt, "i4") == 0) {
    int32_t x = (int32_t)v;
    memcpy(buf + i * 4, &x, 4);
  } else if (strcmp(dt, "i8") == 0) {
    memcpy(buf + i * 8, &v, 8);
  } else if (strcmp(dt, "i2") == 0) {
    int16_t x = (int16_t)v;
    memcpy(buf + i * 2, &x, 2);
  } else {
    uint8_t x = (uint8_t)v;
    buf[i] = x;
  }
}

int main(int argc, char **argv) {
  if (argc < 5)
    return fail("usage: gen_npy OUT DTYPE SHAPE KIND [ARG...]", NULL);
  const char *out = argv[1], *dt = argv[2], *shape_s = argv[3],
             *kind = argv[4];
  size_t es;
  const char *descr;
  if (strcmp(dt, "f4") == 0)
    es = 4, descr = "<f4";
  else if (strcmp(dt, "f8") == 0)
    es = 8, descr = "<f8";
  else if (strcmp(dt, "i4") == 0)
    es = 4, descr = "<i4";
  else if (strcmp(dt, "i8") == 0)
    es = 8, descr = "<i8";
  else if (strcmp(dt, "i2") == 0)
    es = 2, descr = "<i2";
  else if (strcmp(dt, "u1") == 0)
    es = 1, descr = "|u1";
  else
    return fail("unknown DTYPE ", dt);
  int is_float = dt[0] == 'f';

  int64_t shape[16];
  int rank = 0;
  size_t n = 1;
  if (strcmp(shape_s, "scalar") != 0) {
    const char *p = shape_s;
    while (*p) {
      char *end;
      long long d = strtoll(p, &end, 10);
      if (end == p || d < 0 || rank == 16)
        return fail("bad SHAPE ", shape_s);
      shape[rank++] = d;
      n *= (size_t)d;
      p = *end == ',' ? end + 1 : end;
      if (*end != ',' && *end != '\0')
        return fail("bad SHAPE ", shape_s);
    }
  }

  char dict[512];
  int len = snprintf(dict, sizeof dict,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     descr);
  for (int i = 0; i < rank; ++i)
    len += snprintf(dict + len, sizeof dict - (size_t)len, "%s%" PRId64,
                    i ? ", " : "", shape[i]);
  len += snprintf(dict + len, sizeof dict - (size_t)len, "%s), }",
                  rank == 1 ? "," : "");
  /* magic(6) + version(2) + header length(2) + dict + spaces + '\n',
   * padded to a multiple of 64. */
  size_t total = 10 + (size_t)len + 1;
  size_t pad = (64 - total % 64) % 64;
  size_t hlen = (size_t)len + pad + 1;

  unsigned char *buf = calloc(n ? n : 1, es);
  if (!buf)
    return fail("out of memory", NULL);
  uint64_t seed = 0;
  if (strcmp(kind, "seq") == 0) {
    for (size_t i = 0; i < n; ++i)
      put(buf, dt, i, (int64_t)i, (double)i / 4.0 - 3.0, is_float);
  } else if (strcmp(kind, "rand") == 0 && argc == 6) {
    seed = strtoull(argv[5], NULL, 10);
    for (size_t i = 0; i < n; ++i) {
      uint64_t r = rng(&seed);
      int64_t k = (int64_t)(r % 33) - 16; /* [-16, 16] eighths */
      double f = (double)k / 8.0;
      if (k == 0 && (r >> 40) & 1)
        f = -0.0;
      put(buf, dt, i, (int64_t)(r % 201) - 100, f, is_float);
    }
  } else if (strcmp(kind, "ints") == 0 && argc == 8) {
    int64_t lo = strtoll(argv[5], NULL, 10), hi = strtoll(argv[6], NULL, 10);
    seed = strtoull(argv[7], NULL, 10);
    if (hi < lo)
      return fail("ints: HI < LO", NULL);
    for (size_t i = 0; i < n; ++i) {
      int64_t v = lo + (int64_t)(rng(&seed) % (uint64_t)(hi - lo + 1));
      put(buf, dt, i, v, (double)v, 0);
    }
  } else if (strcmp(kind, "list") == 0 && argc == 6) {
    const char *p = argv[5];
    size_t i = 0;
    while (*p) {
      char *end;
      double f = strtod(p, &end);
      long long v = strtoll(p, NULL, 10);
      if (end == p || i == n)
        return fail("list: bad or too many values: ", argv[5]);
      put(buf, dt, i++, (int64_t)v, f, is_float);
      p = *end == ',' ? end + 1 : end;
    }
    if (i != n)
      return fail("list: too few values: ", argv[5]);
  } else {
    return fail("bad KIND or arguments: ", kind);
  }

  FILE *f = fopen(out, "wb");
  if (!f)
    return fail("cannot create ", out);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           (unsigned char)(hlen & 0xff),
                           (unsigned char)(hlen >> 8)};
  int ok = fwrite(pre, 1, 10, f) == 10 &&
           fwrite(dict, 1, (size_t)len, f) == (size_t)len;
  for (size_t i = 0; ok && i < pad; ++i)
    ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF && fwrite(buf, es, n, f) == n;
  ok = (fclose(f) == 0) && ok;
  free(buf);
  return ok ? 0 : fail("cannot write ", out);
}
