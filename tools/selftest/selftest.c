/*
 * `clgather selftest [--device SPEC] [--quick] [--json]`: the conformance
 * of a user's own OpenCL device (selftest.h). The harness: open the
 * device, run each table of cases (selftest_gather.c, selftest_scatter.c,
 * selftest_bag.c, selftest_bad.c, the installed ONNX node folders through onnx_test.c in
 * a CLI built with ONNX), time each row, print the summary table (or JSON)
 * and the first failing cases in full.
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
  printf("%-18s %6s %6s %6s  %-28s %8s\n", "operator", "cases", "passed",
         "failed", "variants", "seconds");
  int cases = 0, passed = 0, failed = 0;
  for (int i = 0; i < ST_NROWS; ++i) {
    const st_row *w = &r->rows[i];
    char v[128];
    variants_text(w->variants, v, sizeof v);
    printf("%-18s %6d %6d %6d  %-28s %8.2f\n", w->name, w->cases, w->passed,
           w->failed, i > ST_ROW_GATHER_ND ? "n/a" : v[0] ? v : "-",
           w->seconds);
    if (w->note[0])
      printf("%-18s   (%s)\n", "", w->note);
    cases += w->cases;
    passed += w->passed;
    failed += w->failed;
  }
  printf("%-18s %6d %6d %6d  %-28s %8.2f\n", "total", cases, passed, failed,
         "", total);
  printf("(variants: the kernel variants clg_context_last_variant() "
         "reported after\nthe gathers' cases; the API reports none for the "
         "scatters and EmbeddingBag)\n");
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
  for (int i = 0; i < ST_NROWS; ++i) {
    const st_row *w = &r->rows[i];
    printf("%s\n  {\"operator\": ", i ? "," : "");
    cli_json_string(stdout, w->name);
    printf(", \"cases\": %d, \"passed\": %d, \"failed\": %d, \"variants\": ",
           w->cases, w->passed, w->failed);
    if (i > ST_ROW_GATHER_ND)
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

/* ---------------------------------------------------------------- phases */

typedef void (*st_phase)(st_run *r);

/* Run a phase; its time goes to the rows it filled (shared by them in
 * proportion to their cases, which is near enough for a table). */
static void timed(st_run *r, st_phase phase, int first, int last) {
  int before[ST_NROWS];
  for (int i = 0; i < ST_NROWS; ++i)
    before[i] = r->rows[i].cases;
  double t0 = now_s();
  phase(r);
  double dt = now_s() - t0;
  int n = 0;
  for (int i = first; i <= last; ++i)
    n += r->rows[i].cases - before[i];
  for (int i = first; i <= last; ++i)
    r->rows[i].seconds +=
        n ? dt * (r->rows[i].cases - before[i]) / n : dt / (last - first + 1);
}

static void phase_gather(st_run *r) { st_gather_cases(r); }
static void phase_scatter(st_run *r) { st_scatter_cases(r); }
static void phase_bag(st_run *r) { st_bag_cases(r); }
static void phase_bad(st_run *r) { st_bad_input_cases(r); }

/* A CLI built without ONNX (CLGATHER_CLI_ONNX 0) has no onnx_test.c: the
 * row says why it did not run, as when no test data is installed. */
static void phase_onnx(st_run *r) {
#if !CLGATHER_CLI_ONNX
  snprintf(r->rows[ST_ROW_ONNX].note, sizeof r->rows[ST_ROW_ONNX].note,
           "not run: this clgather was built without ONNX "
           "(-DCLGATHER_BUILD_ONNX=ON)");
#else
  cli_onnx_summary sum;
  st_row *w = &r->rows[ST_ROW_ONNX];
  r->row = ST_ROW_ONNX;
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
  if (!r->json) /* the first run on a device compiles kernels: minutes */
    fprintf(stderr, PROG ": selftest on %s%s...\n", r->device,
            r->quick ? " (quick)" : "");
  timed(r, phase_gather, ST_ROW_GATHER, ST_ROW_GATHER_ND);
  timed(r, phase_scatter, ST_ROW_SCATTER_ELEMENTS, ST_ROW_SCATTER);
  timed(r, phase_bag, ST_ROW_EMBEDDING_BAG, ST_ROW_EMBEDDING_BAG);
  timed(r, phase_bad, ST_ROW_BAD_INPUT, ST_ROW_BAD_INPUT);
  timed(r, phase_onnx, ST_ROW_ONNX, ST_ROW_ONNX);
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
  const char *device = NULL;
  bool json = false, quick = false;
  const cli_option opts[] = {{"--device", "-d", &device},
                             {"--quick", NULL, NULL},
                             {"--json", NULL, NULL}};
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      cli_print_command_help("selftest", opts, 3);
      return CLI_EXIT_OK;
    }
    if (strcmp(argv[i], "--json") == 0)
      json = true;
    else if (strcmp(argv[i], "--quick") == 0)
      quick = true;
    else {
      int m = cli_match_option(argc, argv, &i, "--device", "-d", &v);
      if (m < 0)
        return cli_usage_error("--device needs a value");
      if (m == 0)
        return cli_usage_error("selftest takes no argument '%s'", argv[i]);
      device = v;
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
  static const char *const names[ST_NROWS] = {
      "Gather",     "GatherElements", "GatherND",
      "ScatterElements", "ScatterND", "Scatter",
      "EmbeddingBag",    "bad inputs", "ONNX node tests"};
  for (int i = 0; i < ST_NROWS; ++i)
    r->rows[i].name = names[i];
  r->quick = quick;
  r->json = json;
  double t0 = now_s();
  int code = run_isolated(r, device);
  double total = now_s() - t0;
  /* A run with no case run passes nothing. */
  int ran = 0;
  for (int i = 0; i < ST_NROWS; ++i)
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
    else
      print_text(r, r->device, r->version, total);
    /* As the report's PASS or FAIL (and JSON's "result") says. */
    code = r->device_error ? CLI_EXIT_DEVICE
           : r->nfails > 0 ? CLI_EXIT_INPUT
                           : CLI_EXIT_OK;
  }
  fflush(stdout);
  munmap(r, sizeof *r);
  return code;
}
