/* The clgather binary's usage errors: one line on stderr, "clgather: WHAT;
 * try 'clgather [COMMAND ]--help'", exit 2, nothing on stdout, for every
 * kind (no command, unknown command or option, missing operand or value,
 * bad value) and every command; --help still prints the help on stdout
 * (exit 0); bad data keeps its exit status 1. -q and -v are taken before
 * and after the command. CLGATHER_CLI_PATH is the built binary. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_testutil.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif

TestSuite(cli_usage, .fini = ct_cleanup, .timeout = 120);

static int run_cli(char **out, char **err, const char *const *args) {
  char *argv[16] = {(char *)CLGATHER_CLI_PATH};
  int n = 1;
  for (; args[n - 1] != NULL && n < 15; ++n)
    argv[n] = (char *)args[n - 1];
  argv[n] = NULL;
  return ct_run(argv, out, err);
}
#define CLI(o, e, ...) run_cli(o, e, (const char *const[]){__VA_ARGS__, NULL})

static void save_inputs(void) {
  /* data float32 [3, 2], indices int64 [2] = {2, 0} */
  const float data[6] = {1, 2, 3, 4, 5, 6};
  const int64_t idx[2] = {2, 0}, bad[2] = {0, 3};
  size_t len;
  unsigned char *f = ct_make_npy(
      1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", data,
      sizeof data, &len);
  ct_write_file(ct_path("d.npy"), f, len);
  free(f);
  f = ct_make_npy(1,
                  "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                  idx, sizeof idx, &len);
  ct_write_file(ct_path("i.npy"), f, len);
  free(f);
  f = ct_make_npy(1,
                  "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                  bad, sizeof bad, &len);
  ct_write_file(ct_path("bad.npy"), f, len);
  free(f);
}

Test(cli_usage, every_usage_error_is_one_line_and_exit_2) {
  save_inputs();
  char d[512], i[512], o[512];
  snprintf(d, sizeof d, "%s", ct_path("d.npy"));
  snprintf(i, sizeof i, "%s", ct_path("i.npy"));
  snprintf(o, sizeof o, "%s", ct_path("o.npy"));
  struct {
    const char *args[10];
    const char *command; /* whose help the line points to; "" the tool's */
    const char *what;    /* in the line */
  } cases[] = {
      {{NULL}, "", "missing command"},
      {{"frobnicate"}, "", "unknown command 'frobnicate'"},
      {{"--bogus"}, "", "unknown option '--bogus'"},
      {{"-v"}, "", "missing command"},
      {{"help", "nope"}, "", "unknown command 'nope'"},
      {{"gather", "--bogus", d, i, "-o", o}, "gather", "'--bogus'"},
      {{"gather", d, "-o", o}, "gather", "INDICES"},
      {{"gather", d, i}, "gather", "-o OUT"},
      {{"gather", "--axis", "x", d, i, "-o", o}, "gather", "--axis value 'x'"},
      {{"gather", d, i, "-o", o, "--axis"}, "gather", "needs a value"},
      {{"gather-nd", "--mode", "clip", d, i, "-o", o}, "gather-nd", "--mode"},
      {{"scatter-nd", "--reduction", "sum", d, i, i, "-o", o},
       "scatter-nd",
       "--reduction"},
      {{"embedding-bag", "--mode", "avg", d, i, "-o", o},
       "embedding-bag",
       "--mode"},
      {{"gather-block-quantized", "--bits", "3", d, i, d, "-o", o},
       "gather-block-quantized",
       "--bits"},
      {{"devices", "--jsonx"}, "devices", "'--jsonx'"},
      {{"selftest", "--bogus"}, "selftest", "'--bogus'"},
      {{"selftest", "--device"}, "selftest", "--device"},
      {{"onnx-test", "--bogus"}, "onnx-test", "'--bogus'"},
      /* a newline in an echoed argument does not make a second line */
      {{"gather", "--axis", "1\n2", d, i, "-o", o}, "gather", "--axis"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    char *out = NULL, *err = NULL;
    int rc = cases[c].args[0] ? run_cli(&out, &err, cases[c].args)
                              : run_cli(&out, &err, (const char *[]){NULL});
    cr_expect_eq(rc, 2, "case %zu: rc %d: %s", c, rc, err);
    cr_expect(ct_is_usage_line(err, cases[c].command),
              "case %zu: not one usage line pointing to the help of '%s':\n%s",
              c, cases[c].command, err);
    cr_expect(strstr(err, cases[c].what) != NULL, "case %zu: no '%s' in %s", c,
              cases[c].what, err);
    cr_expect_str_empty(out, "case %zu printed on stdout", c);
    free(out);
    free(err);
    cr_expect(!ct_exists(o), "case %zu wrote OUT", c);
  }
}

Test(cli_usage, help_is_on_stdout_with_exit_0) {
  const char *const forms[][3] = {
      {"--help"},         {"-h"},
      {"help"},           {"gather", "--help"},
      {"help", "gather"}, {"-q", "gather", "--help"},
      {"selftest", "-h"}};
  for (size_t c = 0; c < sizeof forms / sizeof forms[0]; ++c) {
    char *out = NULL, *err = NULL;
    const char *args[4] = {forms[c][0], forms[c][1], forms[c][2], NULL};
    int rc = run_cli(&out, &err, args);
    cr_expect_eq(rc, 0, "form %zu: rc %d", c, rc);
    cr_expect_str_empty(err, "form %zu: %s", c, err);
    cr_expect(strncmp(out, "usage: clgather ", 16) == 0, "form %zu: %s", c,
              out);
    size_t lines = 0;
    for (const char *p = out; (p = strchr(p, '\n')) != NULL; ++p)
      ++lines;
    cr_expect_gt(lines, 10, "form %zu: %zu lines", c, lines);
    free(out);
    free(err);
  }
}

Test(cli_usage, bad_data_keeps_exit_1_and_quiet_verbose_are_taken) {
  save_inputs();
  char d[512], bad[512], i[512], o[512];
  snprintf(d, sizeof d, "%s", ct_path("d.npy"));
  snprintf(bad, sizeof bad, "%s", ct_path("bad.npy"));
  snprintf(i, sizeof i, "%s", ct_path("i.npy"));
  snprintf(o, sizeof o, "%s", ct_path("o.npy"));
  char *out = NULL, *err = NULL;
  /* an index out of range: invalid input (1), not a usage error */
  int rc = CLI(&out, &err, "gather", d, bad, "-o", o);
  cr_expect_eq(rc, 1, "rc %d: %s", rc, err);
  cr_expect(strstr(err, "try 'clgather") == NULL, "%s", err);
  free(out);
  free(err);
  /* -q before the command and -v after it are global flags, not operands */
  rc = CLI(&out, &err, "-q", "gather", d, i, "-o", o);
  cr_expect_eq(rc, 0, "rc %d: %s", rc, err);
  cr_expect_str_empty(err);
  free(out);
  free(err);
  rc = CLI(&out, &err, "gather", "--quiet", d, i, "-o", o, "--verbose");
  cr_expect_eq(rc, 0, "rc %d: %s", rc, err);
  /* -v (the last of the two): the device, then the kernel and times */
  const char *dev = strstr(err, "clgather: device: ");
  cr_expect(dev != NULL && strstr(dev, "program cache") != NULL, "%s", err);
  cr_expect(dev != NULL && strstr(dev, "\nclgather: gather: ") != NULL &&
                strstr(dev, " s, run ") != NULL,
            "%s", err);
  free(out);
  free(err);
}

/* The notice of a slow call: with the program cache cold (a directory of
 * its own, POCL's cache off) a first use builds its kernels (a gather
 * large enough to launch one); under -v,
 * past CLGATHER_CLI_NOTICE_MS (0 here: at once), one line on stderr says
 * so; -q keeps it quiet. */
Test(cli_usage, a_slow_first_use_is_announced_unless_quiet) {
  save_inputs();
  /* data float32 [3, 70000]: an output of 560 KB, past the size a CPU
   * device's small gathers run on the calling thread without a kernel */
  size_t n = (size_t)3 * 70000, len;
  float *big = calloc(n, sizeof *big);
  cr_assert(big != NULL);
  unsigned char *f = ct_make_npy(
      1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 70000), }", big,
      n * sizeof *big, &len);
  ct_write_file(ct_path("big.npy"), f, len);
  free(f);
  free(big);
  char d[512], i[512], o[512], cache[512];
  snprintf(d, sizeof d, "%s", ct_path("big.npy"));
  snprintf(i, sizeof i, "%s", ct_path("i.npy"));
  snprintf(o, sizeof o, "%s", ct_path("o.npy"));
  setenv("CLGATHER_CLI_NOTICE_MS", "0", 1);
  setenv("POCL_KERNEL_CACHE", "0", 1);
  const char *notice = "clgather: still running after 0.0 s on ";
  for (int quiet = 0; quiet < 2; ++quiet) {
    snprintf(cache, sizeof cache, "%s", ct_path(quiet ? "cache-q" : "cache-v"));
    setenv("CLGATHER_CACHE_DIR", cache, 1);
    char *out = NULL, *err = NULL;
    int rc = CLI(&out, &err, quiet ? "-q" : "-v", "gather", d, i, "-o", o);
    cr_expect_eq(rc, 0, "rc %d: %s", rc, err);
    const char *at = strstr(err, notice);
    if (quiet)
      cr_expect(at == NULL && err[0] == '\0', "-q, yet: %s", err);
    else
      cr_expect(at != NULL && strstr(at, "first use builds the kernels") &&
                    strchr(at, '\n') != NULL,
                "no notice: %s", err);
    free(out);
    free(err);
  }
  unsetenv("CLGATHER_CLI_NOTICE_MS");
  unsetenv("POCL_KERNEL_CACHE");
  unsetenv("CLGATHER_CACHE_DIR");
}
