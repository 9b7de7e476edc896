/*
 * How the commands' operands name their files, checked from the command
 * line alone before anything is opened: a name whose format cannot be told,
 * stdin ("-") read twice or from a terminal, and binary .npy written to a
 * terminal are usage errors (exit 2). The files themselves are read and
 * written by tools/formats/ (tensor_file.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
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
