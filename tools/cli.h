/*
 * Pieces of the clgather command-line tool shared between its commands.
 */
#ifndef CLGATHER_TOOLS_CLI_H
#define CLGATHER_TOOLS_CLI_H

#include <clgather/clgather.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Exit statuses of the clgather tool. */
enum {
  CLI_EXIT_OK = 0,     /* success */
  CLI_EXIT_INPUT = 1,  /* invalid input: bad file, bad axis, index OOB, ... */
  CLI_EXIT_USAGE = 2,  /* unknown command/option, missing argument */
  CLI_EXIT_DEVICE = 3, /* no device, OpenCL failure, kernel build failure */
};

/** Exit status for a failed library call: CLI_EXIT_DEVICE for no device,
 * OpenCL, build and host-memory failures, CLI_EXIT_INPUT otherwise. */
int cli_exit_for_status(clg_status status);

/** clg_last_error(), or the status name if the message is empty. */
const char *cli_library_message(clg_status status);

/** Match option `longname` (e.g. "--axis") or `shortname` (e.g. "-a", may
 * be NULL) taking a value, at argv[*i], in the forms "--axis V",
 * "--axis=V", "-a V" and "-aV". Returns 1 and sets *value (advancing *i past
 * a separate value) on a match, 0 if argv[*i] is another argument, -1 if the
 * value is missing. */
int cli_match_option(int argc, char **argv, int *i, const char *longname,
                     const char *shortname, const char **value);

/** `clgather onnx-test [options] [DIR ...]`; argv[0] is "onnx-test".
 * Returns the exit status. */
int cli_cmd_onnx_test(int argc, char **argv);

/** Print the usage text to stderr (usage error) or stdout (help). */
void cli_print_usage(int to_stderr);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_CLI_H */
