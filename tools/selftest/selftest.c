/*
 * `clgather selftest [--device SPEC] [--quick] [--json]`: the conformance
 * of a user's own OpenCL device (selftest.h). The harness: open the
 * device, run each registered operator's conformance set (its case
 * description's, tools/cases/operators.h, by its family's runner:
 * selftest_gather.c, selftest_scatter.c, selftest_bag.c,
 * selftest_gbq.c), the bad-input
 * catalogues (selftest_bad.c) and the installed ONNX node folders (through
 * onnx_test.c in a CLI built with ONNX), time each row, print the summary
 * table (or JSON) and the first failing cases in full.
 *
 * Exit status: 0 every case passed, 1 a case failed, 2 usage error, 3 no
 * device or a device/OpenCL error.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_tensor.h"
#include "onnx_test.h"
#include "selftest.h"

#define PROG "clgather"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, NULL, &n) != CL_SUCCESS || n == 0)
    return NULL;
  char *s = malloc(n + 1);
  if (s != NULL && clGetDeviceInfo(d, what, n, s, NULL) != CL_SUCCESS) {
    free(s);
    return NULL;
  }
  if (s != NULL)
    s[n] = '\0';
  return s;
}

/* The variants of a row as "item, plane" into buf ("" when none). */
static void variants_text(unsigned bits, char *buf, size_t len) {
  size_t n = 0, at = 0;
  const char *const *names = st_variant_names(&n);
  buf[0] = '\0';
  for (size_t i = 0; i < n && at < len; ++i)
    if (bits & (1u << i))
      at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
                             names[i]);
}

/* -------------------------------------------------------------- output */

static void print_text(const st_run *r, const char *dev, const char *ver,
                       double total) {
  printf("clgather selftest on %s (%s)%s\n\n", dev ? dev : "?",
         ver ? ver : "?", r->quick ? ", quick" : "");
  printf("%-20s %6s %6s %6s  %-28s %8s\n", "operator", "cases", "passed",
         "failed", "variants", "seconds");
  int cases = 0, passed = 0, failed = 0;
  for (int i = 0; i < r->nrows; ++i) {
    const st_row *w = &r->rows[i];
    char v[128];
    variants_text(w->variants, v, sizeof v);
    printf("%-20s %6d %6d %6d  %-28s %8.2f\n", w->name, w->cases, w->passed,
           w->failed,
           !w->has_variants ? "n/a"
           : v[0]           ? v
                            : "-",
           w->seconds);
    if (w->note[0])
      printf("%-20s   (%s)\n", "", w->note);
    cases += w->cases;
    passed += w->passed;
    failed += w->failed;
  }
  printf("%-20s %6d %6d %6d  %-28s %8.2f\n", "total", cases, passed, failed, "",
         total);
  printf("(variants: the kernel variants clg_context_last_variant() "
         "reported after\nthe gathers' and GatherBlockQuantized's cases; "
         "none are listed for the\nscatters and EmbeddingBag)\n");
  if (r->nfails > 0) {
    printf("\nfirst failing cases (%d failed in all):\n", r->nfails);
    for (int i = 0; i < r->nfails && i < ST_MAX_FAILS; ++i)
      printf("  FAIL %s\n", r->fails[i]);
  }
  if (r->device_error)
    printf("\ndevice or OpenCL error: %s\n", r->device_msg);
  printf("\n%s\n", r->nfails == 0 && !r->device_error ? "PASS" : "FAIL");
}

static void print_json(const st_run *r, const char *dev, const char *ver,
                       double total) {
  printf("{\"device\": ");
  cli_json_string(stdout, dev);
  printf(", \"version\": ");
  cli_json_string(stdout, ver);
  printf(", \"quick\": %s, \"rows\": [", r->quick ? "true" : "false");
  int cases = 0, passed = 0, failed = 0;
  size_t nv = 0;
  const char *const *names = st_variant_names(&nv);
  for (int i = 0; i < r->nrows; ++i) {
    const st_row *w = &r->rows[i];
    printf("%s\n  {\"operator\": ", i ? "," : "");
    cli_json_string(stdout, w->name);
    printf(", \"cases\": %d, \"passed\": %d, \"failed\": %d, \"variants\": ",
           w->cases, w->passed, w->failed);
    if (!w->has_variants)
      printf("null"); /* not reported by the API */
    else {
      int k = 0;
      printf("[");
      for (size_t j = 0; j < nv; ++j)
        if (w->variants & (1u << j))
          printf("%s\"%s\"", k++ ? ", " : "", names[j]);
      printf("]");
    }
    printf(", \"seconds\": %.3f, \"note\": ", w->seconds);
    cli_json_string(stdout, w->note[0] ? w->note : NULL);
    printf("}");
    cases += w->cases;
    passed += w->passed;
    failed += w->failed;
  }
  printf("\n], \"cases\": %d, \"passed\": %d, \"failed\": %d, \"seconds\": "
         "%.3f, \"failures\": [",
         cases, passed, failed, total);
  for (int i = 0; i < r->nfails && i < ST_MAX_FAILS; ++i) {
    printf("%s\n  ", i ? "," : "");
    cli_json_string(stdout, r->fails[i]);
  }
  printf("%s], \"device_error\": ", r->nfails ? "\n" : "");
  cli_json_string(stdout, r->device_error ? r->device_msg : NULL);
  printf(", \"result\": \"%s\"}\n",
         r->nfails == 0 && !r->device_error ? "pass" : "fail");
}

/* s as XML character data or attribute text: markup escaped, control
 * characters XML 1.0 cannot hold dropped. */
static void xml_text(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p)
    switch (*p) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    default:
      if (*p >= 0x20 || *p == '\n' || *p == '\t')
        fputc(*p, f);
    }
}

/* --junit FILE: a JUnit XML report, a testcase per row (its cases counted
 * in the failure's message), the failures kept in full under the suite's
 * system-err; written atomically. 0, or -1 with the reason on stderr. */
static int write_junit(const st_run *r, const char *path, double total) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL) {
    fprintf(stderr, PROG ": selftest: out of memory for --junit\n");
    return -1;
  }
  int failed_rows = 0;
  for (int i = 0; i < r->nrows; ++i)
    failed_rows += r->rows[i].failed > 0;
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites>\n<testsuite name=\"clgather selftest\" "
          "tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n"
          "  <properties><property name=\"device\" value=\"",
          r->nrows, failed_rows, r->device_error ? 1 : 0, total);
  xml_text(f, r->device);
  fputs("\"/><property name=\"version\" value=\"", f);
  xml_text(f, r->version);
  fprintf(f, "\"/><property name=\"quick\" value=\"%s\"/></properties>\n",
          r->quick ? "true" : "false");
  for (int i = 0; i < r->nrows; ++i) {
    const st_row *w = &r->rows[i];
    fputs("  <testcase classname=\"selftest\" name=\"", f);
    xml_text(f, w->name);
    fprintf(f, "\" time=\"%.3f\"", w->seconds);
    if (w->failed > 0) {
      fprintf(f, ">\n    <failure message=\"%d of %d cases failed\">",
              w->failed, w->cases);
      for (int k = 0; k < r->nfails && k < ST_MAX_FAILS; ++k) {
        xml_text(f, r->fails[k]);
        fputc('\n', f);
      }
      fputs("</failure>\n  </testcase>\n", f);
    } else if (w->cases == 0) {
      fputs(">\n    <skipped message=\"", f);
      xml_text(f, w->note[0] ? w->note : "no case ran");
      fputs("\"/>\n  </testcase>\n", f);
    } else {
      fputs("/>\n", f);
    }
  }
  if (r->device_error) {
    fputs("  <system-err>", f);
    xml_text(f, r->device_msg);
    fputs("</system-err>\n", f);
  }
  fputs("</testsuite>\n</testsuites>\n", f);
  fclose(f);
  char err[512];
  int rc = cli_write_file_atomic(path, buf, len, err, sizeof err);
  free(buf);
  if (rc != 0)
    fprintf(stderr, PROG ": selftest: %s\n", err);
  return rc;
}

/* ---------------------------------------------------------------- phases */

/* The rows after the operators'. */
enum { ROW_BAD = 0, ROW_ONNX, NEXTRA };

/* What the library's refusals follow: the run's device properties. */
static void case_device_of(const st_run *r, case_device *dev) {
  memset(dev, 0, sizeof *dev);
  dev->fp64 = r->fp64;
  dev->single_denorm = r->single_denorm;
  dev->double_denorm = r->double_denorm;
  cl_device_fp_config fs = 0;
  if (clGetDeviceInfo(clg_context_device(r->ctx), CL_DEVICE_SINGLE_FP_CONFIG,
                      sizeof fs, &fs, NULL) != CL_SUCCESS)
    fs = 0;
  dev->single_cr_divide = (fs & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
}

/* The runner's visit of one case of a conformance set: its family's. */
typedef struct conformance_run {
  st_run *r;
  case_device dev;
} conformance_run;

static void visit_case(void *ctx, const case_item *it) {
  conformance_run *cr = ctx;
  switch (it->family) {
  case CASE_FAMILY_GATHER: st_gather_case(cr->r, it); break;
  case CASE_FAMILY_SCATTER: st_scatter_case(cr->r, &cr->dev, it); break;
  case CASE_FAMILY_BAG: st_bag_case(cr->r, &cr->dev, it); break;
  case CASE_FAMILY_GBQ: st_gbq_case(cr->r, &cr->dev, it); break;
  }
}

/* Runs the rows' phases in turn, each timed into its row. */
static void run_rows(st_run *r, void (*extra[NEXTRA])(st_run *r)) {
  conformance_run cr = {r, {0}};
  case_device_of(r, &cr.dev);
  /* progress on stderr: a first run builds every kernel (minutes) */
  bool progress = cli_verbosity() == CLI_VERBOSE ||
                  (cli_verbosity() != CLI_QUIET && isatty(2));
  for (int i = 0; i < r->nrows; ++i) {
    r->row = i;
    double t0 = now_s();
    if (progress) {
      fprintf(stderr, PROG ": [%d/%d] %s ...", i + 1, r->nrows,
              r->rows[i].name);
      fflush(stderr);
    }
    if (i < r->noperators)
      case_operators[i].d->conformance(r->quick, visit_case, &cr);
    else
      extra[i - r->noperators](r);
    r->rows[i].seconds += now_s() - t0;
    if (progress)
      fprintf(stderr, " %d cases, %d failed, %.1f s\n", r->rows[i].cases,
              r->rows[i].failed, r->rows[i].seconds);
  }
}

/* A CLI built without ONNX (CLGATHER_CLI_ONNX 0) has no onnx_test.c: the
 * row says why it did not run, as when no test data is installed. */
static void phase_onnx(st_run *r) {
#if !CLGATHER_CLI_ONNX
  snprintf(r->rows[r->row].note, sizeof r->rows[r->row].note,
           "not run: this clgather was built without ONNX "
           "(-DCLGATHER_BUILD_ONNX=ON)");
#else
  cli_onnx_summary sum;
  st_row *w = &r->rows[r->row];
  snprintf(r->current, sizeof r->current, "the installed ONNX node "
           "folders");
  int ran = cli_onnx_selftest(r->ctx, &sum);
  w->cases += sum.passed + sum.failed;
  w->passed += sum.passed;
  w->failed += sum.failed;
  if (sum.failed > 0) {
    if (r->nfails < ST_MAX_FAILS)
      snprintf(r->fails[r->nfails], ST_DESC, "ONNX node test %s",
               sum.first_fail);
    r->nfails += sum.failed;
  }
  if (sum.device_error) {
    r->device_error = true;
    snprintf(r->device_msg, sizeof r->device_msg, "ONNX node test %s",
             sum.first_fail);
  }
  if (ran == 0)
    snprintf(w->note, sizeof w->note, "no ONNX test data under %.200s: not "
             "run (libonnx-testdata, or CLGATHER_ONNX_TESTDATA)", sum.root);
  else if (sum.device_skipped > 0)
    snprintf(w->note, sizeof w->note, "%d folders not run: reductions the "
             "library refuses on this device (it flushes subnormal floats "
             "or lacks doubles); %d skipped as outside the family",
             sum.device_skipped, sum.skipped - sum.device_skipped);
  else if (sum.skipped > 0)
    snprintf(w->note, sizeof w->note, "%d folders skipped: operators "
             "outside the family", sum.skipped);
#endif
}

/* The child: open the device, run every table into the shared r. Returns
 * 0, or 3 when no device could be opened (the reason in r->device_msg). */
static int run_all(st_run *r, const char *device) {
  clg_status st = clg_context_create_default(device, &r->ctx);
  if (st != CLG_SUCCESS) {
    snprintf(r->device_msg, sizeof r->device_msg, "%s",
             cli_library_message(st));
    return CLI_EXIT_DEVICE;
  }
  /* The device's kernels for every case: no small gather of host tensors
   * run on the calling thread instead. */
  (void)clg_context_set_option(r->ctx, CLG_OPTION_HOST_RUN_BYTES, 0);
  cl_device_id dev = clg_context_device(r->ctx);
  char *name = device_string(dev, CL_DEVICE_NAME);
  char *ver = device_string(dev, CL_DEVICE_VERSION);
  char *ext = device_string(dev, CL_DEVICE_EXTENSIONS);
  r->fp64 = ext != NULL && strstr(ext, "cl_khr_fp64") != NULL;
  cl_device_fp_config fs = 0, fd = 0;
  clGetDeviceInfo(dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fs, &fs, NULL);
  if (r->fp64)
    clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fd, &fd, NULL);
  r->single_denorm = (fs & CL_FP_DENORM) != 0;
  r->double_denorm = (fd & CL_FP_DENORM) != 0;
  snprintf(r->device, sizeof r->device, "%s", name ? name : "?");
  snprintf(r->version, sizeof r->version, "%s", ver ? ver : "?");
  free(name);
  free(ver);
  free(ext);
  /* the first run on a device compiles kernels: minutes */
  if (!r->json && cli_verbosity() != CLI_QUIET)
    fprintf(stderr, PROG ": selftest on %s%s...\n", r->device,
            r->quick ? " (quick)" : "");
  void (*extra[NEXTRA])(st_run * r) = {st_bad_input_cases, phase_onnx};
  run_rows(r, extra);
  r->current[0] = '\0';
  clg_context_destroy(r->ctx);
  r->ctx = NULL;
  return 0;
}

/* A failure that is no case's result (a child that died, no case run):
 * counted in the current row, always shown (in the last slot when the
 * others are taken). */
static void fail_run(st_run *r, bool in_row, const char *fmt, ...) {
  if (in_row) {
    st_row *w = &r->rows[r->row];
    w->cases++;
    w->failed++;
  }
  int slot = r->nfails < ST_MAX_FAILS ? r->nfails : ST_MAX_FAILS - 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->fails[slot], ST_DESC, fmt, ap);
  va_end(ap);
  r->nfails++;
}

/* Runs run_all() in a child process sharing r: a kernel that crashes on a
 * CPU device (whose kernels run in the calling process), or a driver that
 * ends the process (Rusticl's compiler exits inside clBuildProgram), then
 * fails the case it was running instead of ending the report. Returns
 * CLI_EXIT_DEVICE where no device could be opened (r->device empty), else
 * 0: every other way the child ends short is a failure in r. */
static int run_isolated(st_run *r, const char *device) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) /* no child: run here */
    return run_all(r, device);
  if (pid == 0)
    _exit(run_all(r, device));
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0)
    ;
  if (WIFEXITED(ws) && (WEXITSTATUS(ws) == 0 ||
                        (WEXITSTATUS(ws) == CLI_EXIT_DEVICE &&
                         r->device[0] == '\0')))
    return WEXITSTATUS(ws);
  char what[ST_DESC];
  snprintf(what, sizeof what, "%s", r->current[0] ? r->current
                                                  : "opening the device");
  if (WIFEXITED(ws))
    fail_run(r, true, "%.500s: the process exited with status %d while the "
             "device ran it (the driver ended it); later cases did not run",
             what, WEXITSTATUS(ws));
  else {
    int sig = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    fail_run(r, true, "%.500s: the process died of signal %d (%s) while "
             "the device ran it; later cases did not run",
             what, sig, strsignal(sig));
  }
  return 0;
}

/* ---------------------------------------------------------------- command */

int cli_cmd_selftest(int argc, char **argv) {
  const char *device = NULL, *junit = NULL;
  bool json = false, quick = false;
  const cli_option opts[] = {{"--device", "-d", &device},
                             {"--quick", NULL, NULL},
                             {"--json", NULL, NULL},
                             {"--junit", NULL, &junit}};
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      cli_print_command_help("selftest", opts, 4);
      return CLI_EXIT_OK;
    }
    if (cli_global_flag(argv[i]))
      continue;
    if (strcmp(argv[i], "--json") == 0)
      json = true;
    else if (strcmp(argv[i], "--quick") == 0)
      quick = true;
    else {
      int m = cli_match_option(argc, argv, &i, "--device", "-d", &v);
      if (m > 0) {
        device = v;
        continue;
      }
      if (m == 0 &&
          (m = cli_match_option(argc, argv, &i, "--junit", NULL, &v)) > 0) {
        if (v[0] == '\0')
          return cli_usage_error("--junit needs a file name");
        junit = v;
        continue;
      }
      if (m < 0)
        return cli_usage_error("%s needs a value", argv[i]);
      return cli_usage_error("selftest takes no argument '%s'", argv[i]);
    }
  }
  /* Shared with the child process that runs the cases. */
  st_run *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (r == MAP_FAILED) {
    fprintf(stderr, PROG ": out of memory\n");
    return CLI_EXIT_DEVICE;
  }
  memset(r, 0, sizeof *r);
  /* A row per registered operator (its ONNX name), then the bad inputs and
   * the ONNX folders. */
  static const char *const extra[NEXTRA] = {"bad inputs", "ONNX node tests"};
  for (size_t i = 0; i < case_operator_count && r->nrows < ST_MAX_ROWS - NEXTRA;
       ++i) {
    r->noperators++;
    st_row *w = &r->rows[r->nrows++];
    w->name = case_operators[i].name;
    w->has_variants = case_operators[i].d->family == CASE_FAMILY_GATHER ||
                      case_operators[i].d->family == CASE_FAMILY_GBQ;
  }
  for (int i = 0; i < NEXTRA; ++i)
    r->rows[r->nrows++].name = extra[i];
  r->quick = quick;
  r->json = json;
  double t0 = now_s();
  int code = run_isolated(r, device);
  double total = now_s() - t0;
  /* A run with no case run passes nothing. */
  int ran = 0;
  for (int i = 0; i < r->nrows; ++i)
    ran += r->rows[i].cases;
  if (code == 0 && ran == 0 && r->nfails == 0)
    fail_run(r, false, "no case ran");
  if (code == CLI_EXIT_DEVICE && r->device[0] == '\0') {
    fprintf(stderr, PROG ": selftest: %s\n",
            r->device_msg[0] ? r->device_msg : "no device could be opened");
    if (json) {
      printf("{\"device\": null, \"result\": \"fail\", \"device_error\": ");
      cli_json_string(stdout, r->device_msg);
      printf("}\n");
    }
  } else {
    if (json)
      print_json(r, r->device, r->version, total);
    else if (cli_verbosity() != CLI_QUIET || r->nfails > 0 || r->device_error)
      print_text(r, r->device, r->version, total); /* -q: only a failure */
    /* As the report's PASS or FAIL (and JSON's "result") says. */
    code = r->device_error ? CLI_EXIT_DEVICE
           : r->nfails > 0 ? CLI_EXIT_INPUT
                           : CLI_EXIT_OK;
    if (junit != NULL && write_junit(r, junit, total) != 0 &&
        code == CLI_EXIT_OK)
      code = CLI_EXIT_INPUT; /* the report asked for is not there */
  }
  fflush(stdout);
  munmap(r, sizeof *r);
  return code;
}
