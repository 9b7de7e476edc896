/* Hostile tensor files given to the clgather binary: every one must make
 * `clgather gather` exit 1 with a message naming the problem, leave an
 * existing OUT byte for byte as it was (and leave no temporary file), and
 * never allocate more than the file's real size justifies.
 *
 * The allocation bound is checked from outside: the binary runs with its
 * address space capped (RLIMIT_AS), and files claim sizes above the cap
 * (1 GiB, 3 GiB, 4 TiB, 4 PiB). A reader that tried to allocate what a
 * header claims would fail with "out of memory" (or crash) instead of
 * naming the size mismatch. CLGATHER_CLI_PATH is the built binary. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_testutil.h"
#include "tensor_file.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif

TestSuite(cli_hostile, .fini = ct_cleanup, .timeout = 120);

#define KEEP "an existing output, not a tensor\n"

/* ------------------------------------------------------------- helpers */

/* A minimal protobuf writer for hand-made TensorProto files. */
typedef struct pbuf {
  unsigned char b[256];
  size_t n;
} pbuf;

static void pb_varint(pbuf *p, uint64_t v) {
  do {
    cr_assert_lt(p->n, sizeof p->b);
    unsigned char byte = v & 0x7f;
    v >>= 7;
    p->b[p->n++] = byte | (v ? 0x80 : 0);
  } while (v);
}
static void pb_int(pbuf *p, unsigned field, int64_t v) {
  pb_varint(p, (uint64_t)field << 3);
  pb_varint(p, (uint64_t)v);
}
static void pb_bytes(pbuf *p, unsigned field, const void *data, size_t len) {
  pb_varint(p, (uint64_t)field << 3 | 2);
  pb_varint(p, len);
  cr_assert_leq(p->n + len, sizeof p->b);
  memcpy(p->b + p->n, data, len);
  p->n += len;
}
/* TensorProto field numbers (onnx.proto). */
enum { TP_DIMS = 1, TP_DATA_TYPE = 2, TP_INT64_DATA = 7, TP_STRING_DATA = 6,
       TP_RAW_DATA = 9, TP_DATA_LOCATION = 14 };

static void write_npy(const char *name, int major, const char *dict,
                      size_t data_len) {
  unsigned char zeros[64] = {0};
  cr_assert_leq(data_len, sizeof zeros);
  size_t len;
  unsigned char *buf = ct_make_npy(major, dict, zeros, data_len, &len);
  ct_write_file(ct_path(name), buf, len);
  free(buf);
}

/* Good companions: float data [3, 2] and int64 indices [2]. */
static void write_good_inputs(void) {
  float d[6] = {1, 2, 3, 4, 5, 6};
  int64_t i[2] = {0, -1};
  size_t len;
  unsigned char *buf = ct_make_npy(
      1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", d,
      sizeof d, &len);
  ct_write_file(ct_path("good_data.npy"), buf, len);
  free(buf);
  buf = ct_make_npy(1, "{'descr': '<i8', 'fortran_order': False, "
                       "'shape': (2,), }",
                    i, sizeof i, &len);
  ct_write_file(ct_path("good_idx.npy"), buf, len);
  free(buf);
}

/* Run `clgather gather DATA INDICES -o OUT` with stderr to a file; with
 * as_limit > 0 under that RLIMIT_AS. Returns the exit status (-1: killed by
 * a signal), the stderr text and the wall time in seconds. */
static int run_gather(const char *data, const char *idx, const char *out,
                      rlim_t as_limit, char **err, double *seconds) {
  const char *err_path = ct_path("stderr.txt");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
  if (pid == 0) {
    int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int null = open("/dev/null", O_WRONLY);
    if (fd < 0 || null < 0)
      _exit(126);
    dup2(fd, 2);
    dup2(null, 1);
    if (as_limit > 0) {
      struct rlimit rl = {as_limit, as_limit};
      if (setrlimit(RLIMIT_AS, &rl) != 0)
        _exit(126);
    }
    char *argv[] = {(char *)CLGATHER_CLI_PATH, "gather", (char *)data,
                    (char *)idx, "-o", (char *)out, NULL};
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  *seconds = (double)(t1.tv_sec - t0.tv_sec) +
             (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  size_t len = 0;
  unsigned char *text = ct_read_file(err_path, &len);
  cr_assert_not_null(text);
  char *s = malloc(len + 1);
  cr_assert_not_null(s);
  memcpy(s, text, len);
  s[len] = '\0';
  free(text);
  *err = s;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void expect_out_kept(const char *out_name, const char *what) {
  size_t len = 0;
  unsigned char *now = ct_read_file(ct_path(out_name), &len);
  cr_assert_not_null(now, "%s: OUT was removed", what);
  cr_assert(len == strlen(KEEP) && memcmp(now, KEEP, len) == 0,
            "%s: OUT was changed", what);
  free(now);
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0,
               "%s: a temporary file was left behind", what);
}

/* The hostile file `name` as DATA and as INDICES, with an .npy and a .pb
 * OUT that already exist: exit 1, "clgather: " + needle, OUT unchanged. */
static void expect_rejected(const char *name, const char *needle,
                            rlim_t as_limit) {
  static const char *outs[] = {"out.npy", "out.pb"};
  for (int role = 0; role < 2; ++role) {
    for (int k = 0; k < 2; ++k) {
      ct_write_file(ct_path(outs[k]), KEEP, strlen(KEEP));
      char what[256];
      snprintf(what, sizeof what, "%s as %s, OUT %s", name,
               role ? "INDICES" : "DATA", outs[k]);
      char data[1024], idx[1024], out[1024];
      snprintf(data, sizeof data, "%s",
               ct_path(role ? "good_data.npy" : name));
      snprintf(idx, sizeof idx, "%s", ct_path(role ? name : "good_idx.npy"));
      snprintf(out, sizeof out, "%s", ct_path(outs[k]));
      char *err = NULL;
      double secs = 0;
      int rc = run_gather(data, idx, out, as_limit, &err, &secs);
      cr_assert_eq(rc, 1, "%s: exit %d, stderr: %s", what, rc, err);
      cr_assert_eq(strncmp(err, "clgather: ", 10), 0, "%s: %s", what, err);
      cr_assert(strstr(err, needle) != NULL, "%s: expected '%s' in: %s", what,
                needle, err);
      cr_assert(strstr(err, "out of memory") == NULL,
                "%s: the reader tried to allocate what the file claims: %s",
                what, err);
      cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1,
                   "%s: expected one line: %s", what, err);
      cr_assert_lt(secs, 10.0, "%s: took %.1f s", what, secs);
      free(err);
      expect_out_kept(outs[k], what);
    }
  }
}

/* --------------------------------------------------------------- .npy */

#define F4_2 "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"

static void make_hostile_npy(void) {
  write_good_inputs();
  ct_write_file(ct_path("empty.npy"), "", 0);
  ct_write_file(ct_path("magic_only.npy"), "\x93NUMPY", 6);
  ct_write_file(ct_path("wrong_magic.npy"), "PK\x03\x04zipzipzipzip", 16);
  ct_write_file(ct_path("text.npy"), "[1.0, 2.0]\n", 11);
  /* Header length past the end of the file (v1) and a 4 GiB one (v2). */
  ct_write_file(ct_path("header_cut.npy"),
                "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4'", 24);
  ct_write_file(ct_path("header_4gib.npy"),
                "\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'", 19);
  write_npy("data_cut.npy", 1, F4_2, 5);
  write_npy("trailing.npy", 1, F4_2, 12);
  write_npy("fortran.npy", 1,
            "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24);
  write_npy("big_endian.npy", 1,
            "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8);
  write_npy("object.npy", 1,
            "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", 16);
  write_npy("unicode.npy", 1,
            "{'descr': '<U4', 'fortran_order': False, 'shape': (1,), }", 16);
  write_npy("structured.npy", 1,
            "{'descr': [('a', '<f4')], 'fortran_order': False, "
            "'shape': (1,), }",
            4);
  write_npy("version9.npy", 9, F4_2, 8);
  /* Claims just above and far above what the capped process can map. */
  write_npy("claims_1gib.npy", 1,
            "{'descr': '<f4', 'fortran_order': False, 'shape': "
            "(268435456,), }",
            16);
  write_npy("claims_3gib.npy", 2,
            "{'descr': '<u1', 'fortran_order': False, 'shape': "
            "(3, 1073741824), }",
            16);
  write_npy("claims_4tib.npy", 3,
            "{'descr': '<f8', 'fortran_order': False, 'shape': "
            "(65536, 8388608), }",
            8);
  write_npy("claims_4pib.npy", 1,
            "{'descr': '<f4', 'fortran_order': False, 'shape': "
            "(1125899906842624,), }",
            16);
  write_npy("claims_2to128.npy", 1,
            "{'descr': '<f8', 'fortran_order': False, 'shape': "
            "(4294967296, 4294967296, 4294967296, 4294967296), }",
            8);
  /* A real header above the 1 MiB limit (valid dict, padded with spaces). */
  size_t big = (1u << 20) + 64;
  char *dict = malloc(big + 1);
  cr_assert_not_null(dict);
  memset(dict, ' ', big);
  memcpy(dict, F4_2, strlen(F4_2));
  dict[big] = '\0';
  size_t len;
  unsigned char zeros[8] = {0};
  unsigned char *buf = ct_make_npy(2, dict, zeros, 8, &len);
  ct_write_file(ct_path("header_2mib.npy"), buf, len);
  free(buf);
  free(dict);
}

static const struct {
  const char *name, *needle;
} hostile_npy[] = {
    {"empty.npy", "truncated"},
    {"magic_only.npy", "truncated"},
    {"wrong_magic.npy", "not a .npy file"},
    {"text.npy", "not a .npy file"},
    {"header_cut.npy", "truncated"},
    {"header_4gib.npy", "truncated"},
    {"data_cut.npy", "(truncated)"},
    {"trailing.npy", "(trailing data)"},
    {"fortran.npy", "Fortran-order"},
    {"big_endian.npy", "big-endian"},
    {"object.npy", "object arrays"},
    {"unicode.npy", "string arrays"},
    {"structured.npy", "structured"},
    {"version9.npy", "unsupported .npy format version 9.0"},
    {"claims_1gib.npy", "needs 1073741824 data bytes but the file holds 16"},
    {"claims_3gib.npy", "needs 3221225472 data bytes but the file holds 16"},
    {"claims_4tib.npy", "needs 4398046511104 data bytes"},
    {"claims_4pib.npy", "needs 4503599627370496 data bytes"},
    {"claims_2to128.npy", "more elements than fit in 64 bits"},
    {"header_2mib.npy", "larger than the 1048576-byte limit"},
};

Test(cli_hostile, npy_files_exit_1_and_keep_out) {
  make_hostile_npy();
  for (size_t i = 0; i < sizeof hostile_npy / sizeof hostile_npy[0]; ++i)
    expect_rejected(hostile_npy[i].name, hostile_npy[i].needle, 0);
}

/* A FIFO with no writer, as DATA or INDICES, .npy or .pb: refused at once
 * as no regular file (it blocked the open for good before). */
Test(cli_hostile, fifo_inputs_are_refused_not_waited_on) {
  write_good_inputs();
  static const char *const fifos[] = {"fifo.npy", "fifo.pb"};
  for (int k = 0; k < 2; ++k) {
    unlink(ct_path(fifos[k]));
    cr_assert_eq(mkfifo(ct_path(fifos[k]), 0600), 0, "mkfifo: %s",
                 strerror(errno));
    expect_rejected(fifos[k], "is not a regular file", 0);
    unlink(ct_path(fifos[k]));
  }
}

/* ---------------------------------------------------------------- .pb */

static void save_pb(const char *name, const pbuf *p) {
  ct_write_file(ct_path(name), p->b, p->n);
}

static void make_hostile_pb(void) {
  write_good_inputs();
  ct_write_file(ct_path("empty.pb"), "", 0);
  ct_write_file(ct_path("garbage.pb"), "\xff\xff\xff\xff\xff\x0f", 6);
  pbuf p = {0};
  /* float [2, 2] with 16 raw bytes, cut in the middle of raw_data. */
  unsigned char raw[16] = {0};
  pb_int(&p, TP_DIMS, 2);
  pb_int(&p, TP_DIMS, 2);
  pb_int(&p, TP_DATA_TYPE, 1);
  pb_bytes(&p, TP_RAW_DATA, raw, 16);
  pbuf cut = p;
  cut.n -= 7;
  save_pb("truncated.pb", &cut);
  /* raw_data shorter than the dims say. */
  p.n = 0;
  pb_int(&p, TP_DIMS, 3);
  pb_int(&p, TP_DATA_TYPE, 1);
  pb_bytes(&p, TP_RAW_DATA, raw, 8);
  save_pb("raw_mismatch.pb", &p);
  /* Petabytes and 2^126 elements claimed by dims, 8 bytes present. */
  p.n = 0;
  pb_int(&p, TP_DIMS, (int64_t)1 << 25);
  pb_int(&p, TP_DIMS, (int64_t)1 << 25);
  pb_int(&p, TP_DATA_TYPE, 1);
  pb_bytes(&p, TP_RAW_DATA, raw, 8);
  save_pb("claims_4pib.pb", &p);
  p.n = 0;
  pb_int(&p, TP_DIMS, 1);
  pb_int(&p, TP_DIMS, (int64_t)1 << 30);
  pb_int(&p, TP_DATA_TYPE, 1);
  pb_int(&p, TP_INT64_DATA, 1); /* wrong field for float anyway */
  save_pb("claims_4gib_typed.pb", &p);
  p.n = 0;
  pb_int(&p, TP_DIMS, (int64_t)1 << 62);
  pb_int(&p, TP_DIMS, (int64_t)1 << 62);
  pb_int(&p, TP_DATA_TYPE, 11);
  save_pb("claims_overflow.pb", &p);
  p.n = 0;
  pb_int(&p, TP_DIMS, -4);
  pb_int(&p, TP_DATA_TYPE, 1);
  save_pb("negative_dim.pb", &p);
  /* Rank 17. */
  p.n = 0;
  for (int i = 0; i < 17; ++i)
    pb_int(&p, TP_DIMS, 1);
  pb_int(&p, TP_DATA_TYPE, 2);
  pb_bytes(&p, TP_RAW_DATA, raw, 1);
  save_pb("rank17.pb", &p);
  /* String and unknown element types, external data. */
  p.n = 0;
  pb_int(&p, TP_DIMS, 1);
  pb_int(&p, TP_DATA_TYPE, 8);
  pb_bytes(&p, TP_STRING_DATA, "abc", 3);
  save_pb("string.pb", &p);
  p.n = 0;
  pb_int(&p, TP_DIMS, 1);
  pb_int(&p, TP_DATA_TYPE, 99);
  pb_bytes(&p, TP_RAW_DATA, raw, 4);
  save_pb("dtype99.pb", &p);
  p.n = 0;
  pb_int(&p, TP_DIMS, 1);
  pb_int(&p, TP_DATA_TYPE, 1);
  pb_int(&p, TP_DATA_LOCATION, 1);
  save_pb("external.pb", &p);
}

static const struct {
  const char *name, *needle;
} hostile_pb[] = {
    {"empty.pb", "no data_type"},
    {"garbage.pb", "not a valid ONNX TensorProto"},
    {"truncated.pb", "not a valid ONNX TensorProto"},
    {"raw_mismatch.pb", "needs 12 bytes but raw_data has 8"},
    {"claims_4pib.pb", "needs 4503599627370496 bytes but raw_data has 8"},
    {"claims_4gib_typed.pb", "cannot hold its data in int64_data"},
    {"claims_overflow.pb", "more elements than fit in 64 bits"},
    {"negative_dim.pb", "negative"},
    {"rank17.pb", "rank 17 exceeds the maximum of 16"},
    {"string.pb", "string tensors are not supported"},
    {"dtype99.pb", "unsupported TensorProto data_type 99"},
    {"external.pb", "external data"},
};

Test(cli_hostile, pb_files_exit_1_and_keep_out) {
  make_hostile_pb();
  for (size_t i = 0; i < sizeof hostile_pb / sizeof hostile_pb[0]; ++i)
    expect_rejected(hostile_pb[i].name, hostile_pb[i].needle, 0);
}

/* ------------------------------------------------- allocation bound */

/* 256 MiB of address space: plenty for the binary and its libraries, far
 * below what the files claim. Any attempt to allocate a claimed size fails
 * and shows up as "out of memory" (or a crash) instead of the message. */
#define AS_LIMIT ((rlim_t)256 << 20)

static int can_run_capped(void) {
  /* Sanitizer builds reserve terabytes of shadow memory and cannot start
   * under RLIMIT_AS; find out with a file that needs no allocation. */
  ct_write_file(ct_path("out.npy"), KEEP, strlen(KEEP));
  char *err = NULL;
  double secs;
  int rc = run_gather(ct_path("wrong_magic.npy"), ct_path("good_idx.npy"),
                      ct_path("out.npy"), AS_LIMIT, &err, &secs);
  int ok = rc == 1 && strstr(err, "not a .npy file") != NULL;
  free(err);
  return ok;
}

Test(cli_hostile, huge_claims_fail_fast_under_an_address_space_cap) {
  make_hostile_npy();
  make_hostile_pb();
  if (!can_run_capped())
    cr_skip_test("the clgather binary cannot start under RLIMIT_AS "
                 "(sanitizer build?)");
  static const char *claims[] = {
      "claims_1gib.npy", "claims_3gib.npy",    "claims_4tib.npy",
      "claims_4pib.npy", "claims_2to128.npy", "header_4gib.npy",
      "header_2mib.npy", "claims_4pib.pb",     "claims_4gib_typed.pb",
      "claims_overflow.pb"};
  for (size_t c = 0; c < sizeof claims / sizeof claims[0]; ++c) {
    const char *needle = NULL;
    for (size_t i = 0; i < sizeof hostile_npy / sizeof hostile_npy[0]; ++i)
      if (strcmp(hostile_npy[i].name, claims[c]) == 0)
        needle = hostile_npy[i].needle;
    for (size_t i = 0; i < sizeof hostile_pb / sizeof hostile_pb[0]; ++i)
      if (strcmp(hostile_pb[i].name, claims[c]) == 0)
        needle = hostile_pb[i].needle;
    cr_assert_not_null(needle, "%s", claims[c]);
    expect_rejected(claims[c], needle, AS_LIMIT);
  }
}

/* A data file with an empty axis ([0, 2^32] float: a 0-byte payload) and
 * one index would size the output at [1, 2^32] (16 GiB): the CLI must find
 * the out-of-bounds index (clg_validate) before allocating it. */
Test(cli_hostile, empty_axis_does_not_allocate_the_claimed_output) {
  make_hostile_npy(); /* good inputs and wrong_magic.npy for can_run_capped */
  write_npy("empty_axis.npy", 1,
            "{'descr': '<f4', 'fortran_order': False, 'shape': "
            "(0, 4294967296), }",
            0);
  int64_t one = 0;
  size_t len;
  unsigned char *buf = ct_make_npy(
      1, "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", &one,
      sizeof one, &len);
  ct_write_file(ct_path("one_idx.npy"), buf, len);
  free(buf);
  /* Under the cap where the binary can start there (not in sanitizer
   * builds); uncapped otherwise, where the exit code and message are still
   * checked. */
  rlim_t limit = can_run_capped() ? AS_LIMIT : 0;
  ct_write_file(ct_path("out.npy"), KEEP, strlen(KEEP));
  char *err = NULL;
  double secs;
  int rc = run_gather(ct_path("empty_axis.npy"), ct_path("one_idx.npy"),
                      ct_path("out.npy"), limit, &err, &secs);
  cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
  cr_assert(strstr(err, "index out of bounds") != NULL, "%s", err);
  free(err);
  expect_out_kept("out.npy", "empty axis");
}
