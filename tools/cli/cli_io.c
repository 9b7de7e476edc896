/*
 * How the commands' operands name their files, checked from the command
 * line alone before anything is opened: a name whose format cannot be told,
 * stdin ("-") read twice or from a terminal, and binary .npy written to a
 * terminal are usage errors (exit 2). The files themselves are read and
 * written by tools/formats/ (tensor_file.h). And what -v says of a run.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tensor_file.h"

int cli_check_operands(const char *const *inputs, size_t n, const char *out) {
  size_t from_stdin = 0;
  for (size_t i = 0; i < n; ++i) {
    if (inputs[i] == NULL)
      continue;
    if (cli_format_of_path(inputs[i]) == CLI_FORMAT_UNKNOWN)
      return cli_usage_error("cannot tell the format of '%s': name a .npy, "
                             ".npz[:NAME] or .pb file, or - for .npy on stdin",
                             inputs[i]);
    if (cli_path_is_stdio(inputs[i]) && ++from_stdin > 1)
      return cli_usage_error("only one operand can be read from stdin ('-')");
  }
  if (from_stdin && isatty(0))
    return cli_usage_error("'-' reads .npy from stdin, which is a terminal");
  if (out == NULL)
    return 0;
  if (cli_format_of_path(out) == CLI_FORMAT_UNKNOWN)
    return cli_usage_error("cannot tell the format of '%s': name a .npy, "
                           ".npz[:NAME] or .pb file, or - for .npy on stdout",
                           out);
  if (cli_path_is_stdio(out) && isatty(1))
    return cli_usage_error("-o - writes binary .npy to stdout, which is a "
                           "terminal; redirect it or name a file");
  return 0;
}

/* ------------------------------------------------------------- -v notes */

double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_verbose(const char *fmt, ...) {
  if (cli_verbosity() != CLI_VERBOSE)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("clgather: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void cli_verbose_device(clg_context *ctx) {
  if (cli_verbosity() != CLI_VERBOSE || ctx == NULL)
    return;
  char name[256] = "?", ver[256] = "?";
  cl_device_id d = clg_context_device(ctx);
  clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof ver - 1, ver, NULL);
  name[sizeof name - 1] = ver[sizeof ver - 1] = '\0';
  const char *detail = NULL;
  int cache = clg_context_cache_info(ctx, &detail);
  cli_verbose("device: %s (%s); program cache %s%s", name, ver,
              cache == 1 ? "in " : "off: ", detail ? detail : "");
}

void cli_verbose_run(clg_context *ctx, const char *command, double t_read,
                     double t_run, double t_write) {
  if (cli_verbosity() != CLI_VERBOSE)
    return;
  static const char *const how[] = {"none", "default", "measured", "forced"};
  clg_choice c = CLG_CHOICE_NONE;
  const char *v = clg_context_last_variant(ctx, &c);
  char kernel[96] = "no kernel launched";
  if (v != NULL)
    snprintf(kernel, sizeof kernel, "kernel variant %s (%s)", v,
             (unsigned)c < 4 ? how[c] : "?");
  cli_verbose("%s: %s; read %.3f s, run %.3f s (with any kernel build), "
              "write %.3f s",
              command, kernel, t_read, t_run, t_write);
}
