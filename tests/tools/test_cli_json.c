/* `clgather devices --json`: the output parses as JSON (a strict RFC 8259
 * parser written here, itself tested on malformed documents), is an array of
 * platforms with their devices, and says what the text listing says, device
 * by device. cli_json_string() (tools/cli/cli_args.c, linked into this
 * test from clgather_cli_args) is checked on quotes, control characters and
 * bytes that are not UTF-8.
 * CLGATHER_CLI_PATH is the built binary. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_testutil.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif

TestSuite(cli_json, .fini = ct_cleanup, .timeout = 120);

/* ------------------------------------------------------- a JSON parser */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
  jtype type;
  double num;         /* J_NUM, J_BOOL */
  char *str;          /* J_STR: decoded, UTF-8, NUL-terminated */
  size_t n;           /* J_ARR, J_OBJ: items */
  struct jval *items; /* J_ARR, J_OBJ */
  char **keys;        /* J_OBJ */
} jval;

typedef struct jparser {
  const unsigned char *p;
  int depth;
} jparser;

static void jfree(jval *v) {
  free(v->str);
  for (size_t i = 0; i < v->n; ++i) {
    jfree(&v->items[i]);
    if (v->keys)
      free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  memset(v, 0, sizeof *v);
}

static void skip_ws(jparser *j) {
  while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
    ++j->p;
}

static int hex4(const unsigned char *p, unsigned *u) {
  *u = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned c = p[i], d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return -1;
    *u = *u * 16 + d;
  }
  return 0;
}

static size_t put_utf8(char *o, unsigned u) {
  if (u < 0x80) {
    o[0] = (char)u;
    return 1;
  }
  if (u < 0x800) {
    o[0] = (char)(0xc0 | (u >> 6));
    o[1] = (char)(0x80 | (u & 0x3f));
    return 2;
  }
  if (u < 0x10000) {
    o[0] = (char)(0xe0 | (u >> 12));
    o[1] = (char)(0x80 | ((u >> 6) & 0x3f));
    o[2] = (char)(0x80 | (u & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | (u >> 18));
  o[1] = (char)(0x80 | ((u >> 12) & 0x3f));
  o[2] = (char)(0x80 | ((u >> 6) & 0x3f));
  o[3] = (char)(0x80 | (u & 0x3f));
  return 4;
}

/* Length of the well-formed UTF-8 sequence at p (first byte >= 0x80), or
 * 0 (Unicode 15, table 3-7). */
static size_t utf8_len(const unsigned char *p) {
  unsigned c = p[0];
  size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
             : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  for (size_t k = 1; k < n; ++k)
    if ((p[k] & 0xc0) != 0x80)
      return 0;
  unsigned lo = 0x80, hi = 0xbf;
  if (c == 0xe0)
    lo = 0xa0;
  else if (c == 0xed)
    hi = 0x9f;
  else if (c == 0xf0)
    lo = 0x90;
  else if (c == 0xf4)
    hi = 0x8f;
  return n && p[1] >= lo && p[1] <= hi ? n : 0;
}

static int parse_string(jparser *j, char **out) {
  if (*j->p != '"')
    return -1;
  ++j->p;
  size_t cap = strlen((const char *)j->p) + 1;
  char *s = malloc(cap), *o = s;
  cr_assert_not_null(s);
  for (;;) {
    unsigned c = *j->p;
    if (c == '"') {
      ++j->p;
      break;
    }
    if (c < 0x20) /* control characters, and the end of the text */
      goto bad;
    if (c == '\\') {
      unsigned e = j->p[1];
      const char *simple = strchr("\"\\/bfnrt", (int)e);
      if (e != 0 && simple != NULL) {
        *o++ = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
        j->p += 2;
        continue;
      }
      unsigned u;
      if (e != 'u' || hex4(j->p + 2, &u) != 0)
        goto bad;
      j->p += 6;
      if (u >= 0xdc00 && u <= 0xdfff)
        goto bad; /* a low surrogate alone */
      if (u >= 0xd800 && u <= 0xdbff) {
        unsigned lo;
        if (j->p[0] != '\\' || j->p[1] != 'u' || hex4(j->p + 2, &lo) != 0 ||
            lo < 0xdc00 || lo > 0xdfff)
          goto bad;
        j->p += 6;
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
      }
      o += put_utf8(o, u);
      continue;
    }
    size_t n = c < 0x80 ? 1 : utf8_len(j->p);
    if (n == 0)
      goto bad;
    memcpy(o, j->p, n);
    o += n;
    j->p += n;
  }
  *o = '\0';
  *out = s;
  return 0;
bad:
  free(s);
  return -1;
}

static int parse_value(jparser *j, jval *v);

static int parse_number(jparser *j, jval *v) {
  const unsigned char *s = j->p, *p = s;
  if (*p == '-')
    ++p;
  if (*p == '0')
    ++p;
  else if (*p >= '1' && *p <= '9')
    while (*p >= '0' && *p <= '9')
      ++p;
  else
    return -1;
  if (*p == '.') {
    ++p;
    if (!(*p >= '0' && *p <= '9'))
      return -1;
    while (*p >= '0' && *p <= '9')
      ++p;
  }
  if (*p == 'e' || *p == 'E') {
    ++p;
    if (*p == '+' || *p == '-')
      ++p;
    if (!(*p >= '0' && *p <= '9'))
      return -1;
    while (*p >= '0' && *p <= '9')
      ++p;
  }
  v->type = J_NUM;
  v->num = strtod((const char *)s, NULL);
  j->p = p;
  return 0;
}

/* Array or object: items separated by commas, no trailing comma. */
static int parse_container(jparser *j, jval *v, int object) {
  v->type = object ? J_OBJ : J_ARR;
  ++j->p;
  skip_ws(j);
  if (*j->p == (object ? '}' : ']')) {
    ++j->p;
    return 0;
  }
  for (;;) {
    v->items = realloc(v->items, (v->n + 1) * sizeof *v->items);
    cr_assert_not_null(v->items);
    memset(&v->items[v->n], 0, sizeof *v->items);
    if (object) {
      v->keys = realloc(v->keys, (v->n + 1) * sizeof *v->keys);
      cr_assert_not_null(v->keys);
      v->keys[v->n] = NULL;
    }
    ++v->n;
    skip_ws(j);
    if (object) {
      if (parse_string(j, &v->keys[v->n - 1]) != 0)
        return -1;
      skip_ws(j);
      if (*j->p != ':')
        return -1;
      ++j->p;
    }
    if (parse_value(j, &v->items[v->n - 1]) != 0)
      return -1;
    skip_ws(j);
    if (*j->p == ',') {
      ++j->p;
      continue;
    }
    if (*j->p != (object ? '}' : ']'))
      return -1;
    ++j->p;
    return 0;
  }
}

static int parse_value(jparser *j, jval *v) {
  skip_ws(j);
  if (++j->depth > 64)
    return -1;
  int rc;
  const char *p = (const char *)j->p;
  if (*p == '[' || *p == '{')
    rc = parse_container(j, v, *p == '{');
  else if (*p == '"') {
    v->type = J_STR;
    rc = parse_string(j, &v->str);
  } else if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0) {
    v->type = *p == 't' ? J_BOOL : J_NULL;
    v->num = *p == 't';
    j->p += 4;
    rc = 0;
  } else if (strncmp(p, "false", 5) == 0) {
    v->type = J_BOOL;
    j->p += 5;
    rc = 0;
  } else
    rc = parse_number(j, v);
  --j->depth;
  return rc;
}

/* 0 and *v when text is exactly one JSON value (whitespace around it). */
static int json_parse(const char *text, jval *v) {
  jparser j = {(const unsigned char *)text, 0};
  memset(v, 0, sizeof *v);
  if (parse_value(&j, v) != 0) {
    jfree(v);
    return -1;
  }
  skip_ws(&j);
  if (*j.p != '\0') {
    jfree(v);
    return -1;
  }
  return 0;
}

static const jval *member(const jval *obj, const char *key) {
  cr_assert_eq(obj->type, J_OBJ);
  for (size_t i = 0; i < obj->n; ++i)
    if (strcmp(obj->keys[i], key) == 0)
      return &obj->items[i];
  return NULL;
}

/* ------------------------------------------------------- the parser */

Test(cli_json, parser_rejects_malformed_documents) {
  static const char *const bad[] = {
      "", "[", "]", "[1,]", "[,1]", "{\"a\":1,}", "{a:1}", "{\"a\" 1}",
      "[\"\x01\"]", "[\"tab\there\"]", "[\"\\x41\"]", "[\"\\u12\"]",
      "[\"unterminated]", "[01]", "[1.]", "[.5]", "[1e]", "[-]", "[+1]",
      "[1] x", "[1][2]", "[tru]", "[nul]", "[\"\xff\"]", "[\"\xc0\x80\"]",
      "[\"\xed\xa0\x80\"]", "[\"\\ud800\"]", "[\"\\udc00\"]",
      "[\"\\ud800\\u0041\"]", "{\"a\":}", "[1 2]", "'a'",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    jval v;
    cr_expect_neq(json_parse(bad[i], &v), 0, "accepted: %s", bad[i]);
  }
}

Test(cli_json, parser_reads_valid_documents) {
  jval v;
  cr_assert_eq(json_parse(" [ {\"a\": [1, -2.5e3, true, false, null],"
                          " \"b\": \"\\u00e9\\n\\ud834\\udd1e\xe2\x82\xac\"}"
                          ", [], {} ] \n",
                          &v),
               0);
  cr_assert_eq(v.type, J_ARR);
  cr_assert_eq(v.n, 3);
  const jval *a = member(&v.items[0], "a");
  cr_assert_not_null(a);
  cr_assert_eq(a->n, 5);
  cr_expect_eq(a->items[0].num, 1.0);
  cr_expect_eq(a->items[1].num, -2500.0);
  cr_expect_eq(a->items[2].type, J_BOOL);
  cr_expect_eq(a->items[4].type, J_NULL);
  cr_expect_str_eq(member(&v.items[0], "b")->str,
                   "\xc3\xa9\n\xf0\x9d\x84\x9e\xe2\x82\xac");
  cr_expect_eq(v.items[1].type, J_ARR);
  cr_expect_eq(v.items[2].type, J_OBJ);
  jfree(&v);
}

/* ------------------------------------------------ cli_json_string */

static char *json_of(const char *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert_not_null(f);
  cli_json_string(f, s);
  cr_assert_eq(fclose(f), 0);
  return buf;
}

Test(cli_json, json_string_escapes_and_replaces_bad_utf8) {
#define FFFD "\xef\xbf\xbd"
  static const struct {
    const char *in, *decoded;
  } cases[] = {
      {"plain name", "plain name"},
      {"q\"b\\s/", "q\"b\\s/"},
      {"ctl\x01\x1f\t\n\r\x7f end", "ctl\x01\x1f\t\n\r\x7f end"},
      {"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e", "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e"},
      {"bad\xff.", "bad" FFFD "."},
      {"overlong\xc0\x80", "overlong" FFFD FFFD},
      {"surrogate\xed\xa0\x80", "surrogate" FFFD FFFD FFFD},
      {"big\xf4\x90\x80\x80", "big" FFFD FFFD FFFD FFFD},
      {"cut\xe2\x82", "cut" FFFD FFFD},
      {"", ""},
  };
#undef FFFD
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char *js = json_of(cases[i].in);
    char doc[256];
    snprintf(doc, sizeof doc, "[%s]", js);
    jval v;
    cr_assert_eq(json_parse(doc, &v), 0, "case %zu: not JSON: %s", i, js);
    cr_expect_str_eq(v.items[0].str, cases[i].decoded, "case %zu: %s", i, js);
    jfree(&v);
    free(js);
  }
  char *js = json_of(NULL);
  cr_expect_str_eq(js, "null");
  free(js);
}

/* ------------------------------------------------------ devices --json */

static int run_cli(char **out, char **err, const char *a0, const char *a1) {
  char *argv[] = {(char *)CLGATHER_CLI_PATH, (char *)a0, (char *)a1, NULL};
  return ct_run(argv, out, err);
}

/* The text listing's lines "platform P: NAME (VERSION)" and
 * "  --device P:D  TYPE        NAME (VERSION)" against the JSON. */
Test(cli_json, devices_json_says_what_the_listing_says) {
  char *json = NULL, *err = NULL, *text = NULL;
  int rc = run_cli(&json, &err, "devices", "--json");
  cr_assert_eq(rc, 0, "rc %d: %s", rc, err);
  cr_expect_str_empty(err);
  cr_assert_eq(run_cli(&text, NULL, "devices", NULL), 0);

  jval root;
  cr_assert_eq(json_parse(json, &root), 0, "not JSON:\n%s", json);
  cr_assert_eq(root.type, J_ARR);
  cr_assert_gt(root.n, 0, "no platform");
  const char *line = text;
  size_t devices = 0;
  for (size_t p = 0; p < root.n; ++p) {
    const jval *plat = &root.items[p];
    cr_assert_eq(plat->type, J_OBJ, "platform %zu is not an object", p);
    const jval *index = member(plat, "index"), *name = member(plat, "name"),
               *version = member(plat, "version"),
               *devs = member(plat, "devices");
    cr_assert(index && name && version && devs, "platform %zu: keys", p);
    cr_expect_eq(index->type, J_NUM);
    cr_expect_eq(index->num, (double)p);
    cr_assert_eq(devs->type, J_ARR);
    char want[1024];
    snprintf(want, sizeof want, "platform %zu: %s (%s)\n", p,
             name->type == J_STR ? name->str : "?",
             version->type == J_STR ? version->str : "?");
    cr_assert_eq(strncmp(line, want, strlen(want)), 0, "text: %s\nwant: %s",
                 line, want);
    line += strlen(want);
    for (size_t d = 0; d < devs->n; ++d, ++devices) {
      const jval *dev = &devs->items[d];
      cr_assert_eq(dev->type, J_OBJ);
      const jval *spec = member(dev, "spec"), *type = member(dev, "type"),
                 *dname = member(dev, "name"), *dver = member(dev, "version"),
                 *dplat = member(dev, "platform"), *di = member(dev, "index");
      cr_assert(spec && type && dname && dver && dplat && di,
                "device %zu:%zu: keys", p, d);
      char spec_want[48];
      snprintf(spec_want, sizeof spec_want, "%zu:%zu", p, d);
      cr_expect_str_eq(spec->str, spec_want);
      cr_expect_eq(dplat->num, (double)p);
      cr_expect_eq(di->num, (double)d);
      cr_assert_eq(type->type, J_STR);
      cr_expect(strcmp(type->str, "CPU") == 0 || strcmp(type->str, "GPU") == 0 ||
                    strcmp(type->str, "ACCELERATOR") == 0 ||
                    strcmp(type->str, "CUSTOM") == 0 ||
                    strcmp(type->str, "OTHER") == 0,
                "type %s", type->str);
      snprintf(want, sizeof want, "  --device %s  %-11s %s (%s)\n", spec_want,
               type->str, dname->type == J_STR ? dname->str : "?",
               dver->type == J_STR ? dver->str : "?");
      cr_assert_eq(strncmp(line, want, strlen(want)), 0,
                   "text: %s\nwant: %s", line, want);
      line += strlen(want);
    }
    if (devs->n == 0 && strncmp(line, "  (", 3) == 0)
      line = strchr(line, '\n') + 1;
  }
  cr_expect_str_empty(line, "text lines not in the JSON: %s", line);
  cr_expect_gt(devices, 0);
  jfree(&root);
  free(json);
  free(err);
  free(text);
}

/* With no OpenCL platform (the ICD loader pointed at an empty folder):
 * still valid JSON, an empty array, and exit 3 with the reason on stderr;
 * extra arguments are a usage error with nothing on stdout. */
Test(cli_json, devices_json_without_a_platform_and_usage_errors) {
  const char *dir = ct_path("no_icds");
  cr_assert(mkdir(dir, 0700) == 0 || ct_exists(dir));
  cr_assert_eq(setenv("OCL_ICD_VENDORS", dir, 1), 0);
  char *out = NULL, *err = NULL;
  int rc = run_cli(&out, &err, "devices", "--json");
  unsetenv("OCL_ICD_VENDORS");
  cr_expect_eq(rc, 3, "rc %d: %s", rc, err);
  cr_expect(strstr(err, "no OpenCL platform") != NULL, "%s", err);
  jval v;
  cr_assert_eq(json_parse(out, &v), 0, "not JSON: %s", out);
  cr_expect_eq(v.type, J_ARR);
  cr_expect_eq(v.n, 0);
  jfree(&v);
  free(out);
  free(err);

  rc = run_cli(&out, &err, "devices", "--jsonx");
  cr_expect_eq(rc, 2);
  cr_expect_str_empty(out);
  cr_expect(strstr(err, "'--jsonx'") != NULL, "%s", err);
  free(out);
  free(err);
}

/* ---------------------------------------------------- selftest --json */

/* `clgather selftest --quick --json`: one object that parses, with a row
 * per operator (the catalogue and the ONNX folders too), each with its
 * counts, and totals that add up; on the default device it passes. */
Test(cli_json, selftest_json_is_the_table) {
  char *json = NULL, *err = NULL;
  int rc = run_cli(&json, &err, "selftest", "--quick");
  free(json);
  free(err);
  cr_assert_eq(rc, 0, "selftest --quick exited %d", rc);
  char *argv[] = {(char *)CLGATHER_CLI_PATH, (char *)"selftest",
                  (char *)"--quick", (char *)"--json", NULL};
  rc = ct_run(argv, &json, &err);
  cr_assert_eq(rc, 0, "rc %d: %s", rc, err);
  jval v;
  cr_assert_eq(json_parse(json, &v), 0, "not JSON:\n%s", json);
  cr_assert_eq(v.type, J_OBJ);
  const jval *dev = member(&v, "device"), *rows = member(&v, "rows");
  cr_assert(dev != NULL && dev->type == J_STR, "%s", json);
  /* a row per operator the library lists, in its order, then two */
  size_t nops = 0;
  const clg_op_info *ops = clg_operators(&nops);
  cr_assert(rows != NULL && rows->type == J_ARR && rows->n == nops + 2, "%s",
            json);
  double cases = 0, passed = 0;
  for (size_t i = 0; i < rows->n; ++i) {
    const jval *w = &rows->items[i];
    cr_assert_eq(w->type, J_OBJ);
    const jval *op = member(w, "operator"), *c = member(w, "cases"),
               *p = member(w, "passed"), *f = member(w, "failed"),
               *s = member(w, "seconds"), *var = member(w, "variants");
    cr_assert(op && op->type == J_STR && c && c->type == J_NUM && p &&
                  p->type == J_NUM && f && f->type == J_NUM && s &&
                  s->type == J_NUM && var,
              "row %zu: %s", i, json);
    cr_expect_str_eq(op->str, i < nops    ? ops[i].name
                              : i == nops ? "bad inputs"
                                          : "ONNX node tests");
    cr_expect_eq(c->num, p->num + f->num, "%s", op->str);
    cr_expect_eq(f->num, 0, "%s", op->str);
    /* the gathers (no scatter or bag parameters) and GatherBlockQuantized
     * report their kernel variants; the scatters' and EmbeddingBag's are
     * unknown */
    bool gather = i < nops &&
                  !(ops[i].params & (CLG_PARAM_SCATTER | CLG_PARAM_BAGS));
    cr_expect_eq(var->type, gather ? J_ARR : J_NULL, "%s", op->str);
    if (i <= nops)
      cr_expect_gt(c->num, 0, "%s ran no case", op->str);
    cases += c->num;
    passed += p->num;
  }
  const jval *tc = member(&v, "cases"), *tp = member(&v, "passed"),
             *res = member(&v, "result"), *fl = member(&v, "failures");
  cr_assert(tc && tp && res && fl, "%s", json);
  cr_expect_eq(tc->num, cases);
  cr_expect_eq(tp->num, passed);
  cr_expect_str_eq(res->str, "pass");
  cr_expect_eq(fl->type, J_ARR);
  cr_expect_eq(fl->n, 0);
  jfree(&v);
  free(json);
  free(err);
}
