/*
 * Pieces of the clgather command-line tool shared between its commands,
 * implemented in cli_args.c: exit statuses, the usage text and argument
 * parsing.
 *
 * Dependency order of the tool's command modules (each calls only those
 * before it): cli_args.c, cli_help.c (cli.h) <- onnx_test.c (onnx_test.h),
 * cli_bag.c, cli_gbq.c <- clgather.c (main). cli_args.c and cli_help.c call
 * nothing in the commands; the tensor files (tensor_file.h) are a separate
 * layer below the commands.
 */
#ifndef CLGATHER_TOOLS_CLI_H
#define CLGATHER_TOOLS_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
 * OpenCL, build and host-memory failures and clgather's internal errors,
 * CLI_EXIT_INPUT otherwise. */
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

/** An option taking a value, for cli_parse_args(). */
typedef struct cli_option {
  const char *longname;  /* "--axis" */
  const char *shortname; /* "-a", or NULL */
  const char **value;    /* receives the value; the last occurrence wins */
} cli_option;

/**
 * Parse the arguments of a command (argv[0] is the command's name): "-h" and
 * "--help" (the command's own help on stdout, cli_print_command_help() with
 * these options), "--" (only positionals after it), the options
 * of opts[0 .. n_opts-1] in the forms cli_match_option() accepts, and up to
 * max_pos positionals stored in pos[] (*npos of them; `pos_desc` names them
 * in the error for one too many, e.g. "DATA and INDICES").
 *
 * Returns 0 when the command should go on, or 1 when it should stop and
 * return *exit_code: CLI_EXIT_OK after --help, CLI_EXIT_USAGE after an
 * unknown option, a missing value or an extra positional (the message and
 * the usage are printed on stderr).
 */
int cli_parse_args(int argc, char **argv, const cli_option *opts, size_t n_opts,
                   const char **pos, int max_pos, const char *pos_desc,
                   int *npos, int *exit_code);

/** Print one line on stderr, "clgather: " + the formatted message + "; try
 * 'clgather COMMAND --help'" (the command of cli_set_command(), or
 * "clgather --help" before there is one), and return CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/** The command that usage errors point to the help of ("gather"; NULL:
 * the tool's own help). Set by main() once it knows the command. */
void cli_set_command(const char *command);

/** -q/--quiet and -v/--verbose, taken before the command and among every
 * command's options: nothing on stderr but errors, or what the run does
 * (device, kernel variant, times) and its progress. */
enum { CLI_QUIET = -1, CLI_VERBOSE = 1 };
/** CLI_QUIET, 0 or CLI_VERBOSE: the last of -q and -v given. */
int cli_verbosity(void);
/** If arg is -q, --quiet, -v or --verbose, take it and return 1; else 0. */
int cli_global_flag(const char *arg);

/** The operands' file names (inputs[0 .. n-1], NULL entries skipped, and
 * OUT, may be NULL), checked before anything is opened (cli_io.c): each
 * names a format (.npy, .npz[:NAME], .pb, or "-": .npy on stdin or
 * stdout), one input at most reads stdin, and neither stdin nor stdout is
 * a terminal where "-" names it. 0, or cli_usage_error()'s exit status. */
int cli_check_operands(const char *const *inputs, size_t n, const char *out);

/** Monotonic seconds (cli_io.c). */
double cli_now(void);
/** Under -v only: "clgather: " + the message + a newline on stderr. */
void cli_verbose(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/** Under -v: ctx's device, its OpenCL version and the program cache. */
void cli_verbose_device(clg_context *ctx);
/** Under -v: the kernel variant ctx's last launch used, how it was chosen,
 * and the times of reading the inputs, the run and writing OUT. */
void cli_verbose_run(clg_context *ctx, const char *command, double t_read,
                     double t_run, double t_write);

/** The notice of a slow call (cli_notice.c): started before a library call
 * that may build kernels, stopped after it; if the call runs past a
 * second, one line on stderr says a first use builds kernels (under -v,
 * or with stderr a terminal and not -q; else start returns NULL, which
 * stop takes). */
typedef struct cli_notice cli_notice;
cli_notice *cli_notice_start(clg_context *ctx);
void cli_notice_stop(cli_notice *n);

/** A base-10 int64 filling all of `s`; 0 on success, -1 otherwise. */
int cli_parse_int64(const char *s, int64_t *v);

/** "raise", "wrap" or "clip" (exactly); 0 on success, -1 otherwise. */
/* --reduction none|add|mul|min|max and --duplicates error|last: 0, or -1
 * for anything else. */
int cli_parse_reduction(const char *s, clg_reduction *red);
int cli_parse_duplicates(const char *s, clg_duplicates *dup);
int cli_parse_mode(const char *s, clg_index_mode *mode);

/** --mode of embedding-bag: "sum", "mean", "max" or "sqrt_n" (exactly); 0
 * on success, -1 otherwise (cli_bag.c). */
int cli_parse_bag_mode(const char *s, clg_bag_mode *mode);
/* --weight-format's names: dense, int8-rowwise, int4-rowwise,
 * int2-rowwise (clg_bag_weight_format). 0, or -1 for another. */
int cli_parse_weight_format(const char *s, uint32_t *format);

/** `clgather embedding-bag [options] WEIGHT INDICES -o OUT` (cli_bag.c);
 * argv[0] is "embedding-bag". set_temp(path) is told the temporary file OUT
 * is written to while it is the command's to remove (NULL: none), for
 * clgather.c's SIGBUS handler. Returns the exit status. */
int cli_cmd_embedding_bag(int argc, char **argv,
                          void (*set_temp)(const char *path));

/** --kind of gather-block-quantized: "uint8", "uint4" or "int4" (exactly,
 * a clg_gbq_kind); 0 on success, -1 otherwise (cli_gbq.c). */
int cli_parse_gbq_kind(const char *s, uint32_t *kind);

/** `clgather gather-block-quantized [options] DATA INDICES SCALES -o OUT`
 * (cli_gbq.c); argv[0] is "gather-block-quantized". set_temp as for
 * cli_cmd_embedding_bag(). Not in the operator registry: clgather.c
 * dispatches to it by name. Returns the exit status. */
int cli_cmd_gather_block_quantized(int argc, char **argv,
                                   void (*set_temp)(const char *path));

/** Print the usage text to stderr (usage error) or stdout (help). */
void cli_print_usage(int to_stderr);

/**
 * `clgather COMMAND --help`, on stdout: the command's usage line, what it
 * does, its operands, the options it takes (opts[0 .. n_opts-1], the table
 * it parses with, so the help lists exactly what the command accepts; an
 * option whose `value` is NULL is a flag without a value), -h and the exit
 * statuses. Returns 0, or -1 for a command it has no text for (nothing is
 * printed): a registered operator's command without a text of its own gets
 * one from the registry (its name, entry point, operands, files, exit
 * statuses).
 */
int cli_print_command_help(const char *command, const cli_option *opts,
                           size_t n_opts);
/** The usage lines of the registered operators (clg_operators()) whose
 * commands have no text of their own in `clgather --help`, to f; none
 * today. `clgather COMMAND --help` then prints what the registry says of
 * such a command. */
void cli_print_operator_commands(FILE *f);

/** Write s to f as a JSON string (quoted; `"`, `\\` and control characters
 * escaped; valid UTF-8 copied; every byte that is not part of valid UTF-8
 * written as \\ufffd, so the result always parses), or `null` for NULL. */
void cli_json_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_CLI_H */
