/* The clgather binary's help and version: every command's own --help (and
 * -h, and `clgather help CMD`) exits 0 on stdout with its usage line, its
 * options and its exit statuses; the options it names are exactly the ones
 * the command accepts (each one listed is parsed, the others are usage
 * errors); -V is --version; clgather-bench --version. The expected option
 * sets are written here from the documented interface (docs/cli.md), not taken
 * from the tool. CLGATHER_CLI_PATH and CLGATHER_BENCH_PATH are the built
 * binaries; a build without the benchmarks (CLGATHER_BUILD_BENCH) has no
 * CLGATHER_BENCH_PATH and leaves clgather-bench's test out. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>

#include "cli_testutil.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif

TestSuite(cli_help, .fini = ct_cleanup, .timeout = 120);

static int run_prog(const char *prog, char **out, char **err,
                    const char *const *args) {
  char *argv[16];
  size_t n = 0;
  argv[n++] = (char *)prog;
  for (; args[n - 1] != NULL; ++n) {
    cr_assert_lt(n, 15);
    argv[n] = (char *)args[n - 1];
  }
  argv[n] = NULL;
  return ct_run(argv, out, err);
}
#define CLI(out, err, ...)                                                     \
  run_prog(CLGATHER_CLI_PATH, out, err, (const char *[]){__VA_ARGS__, NULL})
#ifdef CLGATHER_BENCH_PATH
#define BENCH(out, err, ...)                                                   \
  run_prog(CLGATHER_BENCH_PATH, out, err, (const char *[]){__VA_ARGS__, NULL})
#endif

/* Each command, the long options its help must name (besides --help), and
 * options it must not take. */
typedef struct command_case {
  const char *command;
  const char *options[12];
  const char *rejected[4];
} command_case;

static const command_case commands[] = {
    {"devices", {"--json"}, {"--axis", "--device", "--output"}},
    {"gather",
     {"--axis", "--batch-dims", "--mode", "--device", "--output"},
     {"--reduction", "--duplicates", "--json"}},
    {"gather-elements",
     {"--axis", "--device", "--output"},
     {"--batch-dims", "--mode", "--reduction"}},
    {"gather-nd",
     {"--batch-dims", "--device", "--output"},
     {"--axis", "--mode", "--duplicates"}},
    {"scatter-elements",
     {"--axis", "--reduction", "--duplicates", "--device", "--output"},
     {"--batch-dims", "--mode"}},
    {"scatter-nd",
     {"--reduction", "--duplicates", "--device", "--output"},
     {"--axis", "--batch-dims", "--mode"}},
    /* ONNX Scatter (opsets 9, 10) has no reduction attribute. */
    {"scatter",
     {"--axis", "--duplicates", "--device", "--output"},
     {"--reduction", "--batch-dims", "--mode"}},
    /* EmbeddingBag: the bags by offsets, segment ids or 2-D indices. */
    {"embedding-bag",
     {"--mode", "--offsets", "--include-last-offset", "--segment-ids",
      "--num-segments", "--per-sample-weights", "--padding-idx",
      "--weight-format", "--device", "--output"},
     {"--axis", "--reduction", "--batch-dims", "--duplicates"}},
    /* GatherBlockQuantized: its own command (cli_gbq.c). */
    {"gather-block-quantized",
     {"--kind", "--bits", "--gather-axis", "--quantize-axis", "--block-size",
      "--zero-points", "--device", "--output"},
     {"--axis", "--mode", "--batch-dims", "--reduction"}},
    {"onnx-test", {"--device"}, {"--output", "--axis", "--json"}},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* The long options named at the start of the help's option lines
 * ("  -a, --axis A   ..." or "      --json   ..."), as one string of
 * " --name" words. */
static void option_names(const char *help, char *names, size_t cap) {
  names[0] = '\0';
  const char *line = strstr(help, "\noptions:\n");
  cr_assert_not_null(line, "no 'options:' section:\n%s", help);
  for (line = strchr(line + 1, '\n'); line != NULL && line[1] != '\0';
       line = strchr(line + 1, '\n')) {
    const char *p = line + 1;
    if (strncmp(p, "  -", 3) == 0 && p[3] != '-' && strncmp(p + 4, ", --", 4) == 0)
      p += 6;
    else if (strncmp(p, "      --", 8) == 0)
      p += 6;
    else
      continue;
    size_t n = strspn(p, "-abcdefghijklmnopqrstuvwxyz");
    cr_assert_lt(strlen(names) + n + 2, cap);
    strcat(names, " ");
    strncat(names, p, n);
  }
}

static int has_word(const char *names, const char *option) {
  char w[64];
  snprintf(w, sizeof w, " %s", option);
  const char *p = names;
  size_t n = strlen(w);
  while ((p = strstr(p, w)) != NULL) {
    if (p[n] == ' ' || p[n] == '\0')
      return 1;
    p += n;
  }
  return 0;
}

/* Every operator the library lists has a command with a help: a case here
 * (its options written out), or, for an operator added after these, the
 * help the registry gives it (its usage line, its name, the exit
 * statuses, --device and --output). */
Test(cli_help, every_library_operator_has_a_help_case) {
  size_t n = 0;
  const clg_op_info *ops = clg_operators(&n);
  cr_assert_gt(n, 0);
  for (size_t i = 0; i < n; ++i) {
    size_t k = 0;
    while (k < N_COMMANDS && strcmp(commands[k].command, ops[i].command) != 0)
      ++k;
    if (k < N_COMMANDS)
      continue;
    char *out = NULL, *err = NULL;
    int rc = CLI(&out, &err, ops[i].command, "--help");
    cr_expect_eq(rc, 0, "%s --help: rc %d: %s", ops[i].command, rc, err);
    char usage[96], names[512];
    snprintf(usage, sizeof usage, "usage: clgather %s [options]",
             ops[i].command);
    cr_expect(rc == 0 && strncmp(out, usage, strlen(usage)) == 0 &&
                  strstr(out, ops[i].name) != NULL &&
                  strstr(out, "\nexit status:\n") != NULL,
              "%s: no help of its own:\n%s", ops[i].command, out);
    if (rc == 0) {
      option_names(out, names, sizeof names);
      cr_expect(has_word(names, "--device") && has_word(names, "--output"),
                "%s: help names [%s]", ops[i].command, names);
    }
    free(out);
    free(err);
  }
}

Test(cli_help, each_command_help_names_exactly_its_options) {
  for (size_t c = 0; c < N_COMMANDS; ++c) {
    const command_case *cc = &commands[c];
    char *out = NULL, *err = NULL, *out_h = NULL, *out_cmd = NULL;
    int rc = CLI(&out, &err, cc->command, "--help");
    cr_assert_eq(rc, 0, "%s --help: rc %d, stderr: %s", cc->command, rc, err);
    cr_expect_str_empty(err, "%s --help wrote on stderr: %s", cc->command,
                        err);
    cr_assert_eq(CLI(&out_h, NULL, cc->command, "-h"), 0, "%s -h",
                 cc->command);
    cr_assert_eq(CLI(&out_cmd, NULL, "help", cc->command), 0, "help %s",
                 cc->command);
    cr_expect_str_eq(out_h, out, "%s: -h differs from --help", cc->command);
    cr_expect_str_eq(out_cmd, out, "%s: `help CMD` differs from --help",
                     cc->command);

    char usage[96];
    snprintf(usage, sizeof usage, "usage: clgather %s [options]", cc->command);
    cr_expect_eq(strncmp(out, usage, strlen(usage)), 0,
                 "%s: help does not start with '%s':\n%s", cc->command, usage,
                 out);
    cr_expect(strstr(out, "\nexit status:\n") != NULL, "%s: no exit statuses",
              cc->command);
    cr_expect(strstr(out, "  0  ") != NULL && strstr(out, "  2  usage") != NULL &&
                  strstr(out, "  3  ") != NULL,
              "%s: exit statuses 0, 2 and 3 not all explained:\n%s",
              cc->command, out);

    char names[512];
    option_names(out, names, sizeof names);
    size_t expected = 3; /* --help, and the global --quiet and --verbose */
    cr_expect(has_word(names, "--help") && has_word(names, "--quiet") &&
                  has_word(names, "--verbose"),
              "%s: no --help, --quiet or --verbose in [%s]", cc->command,
              names);
    for (size_t k = 0; k < 10 && cc->options[k] != NULL; ++k, ++expected)
      cr_expect(has_word(names, cc->options[k]), "%s: help lacks %s: [%s]",
                cc->command, cc->options[k], names);
    for (size_t k = 0; k < 4 && cc->rejected[k] != NULL; ++k)
      cr_expect(!has_word(names, cc->rejected[k]), "%s: help names %s",
                cc->command, cc->rejected[k]);
    size_t listed = 0;
    for (const char *p = names; (p = strchr(p, ' ')) != NULL; ++p)
      ++listed;
    cr_expect_eq(listed, expected, "%s: help names [%s]", cc->command, names);
    free(out);
    free(err);
    free(out_h);
    free(out_cmd);
  }
}

/* Every option a help lists is one the command parses: with no files, the
 * family's commands stop at the missing operands (exit 2, "needs"), not at an
 * unknown option; options the help leaves out are unknown options. */
Test(cli_help, listed_options_are_accepted_and_others_rejected) {
  for (size_t c = 0; c < N_COMMANDS; ++c) {
    const command_case *cc = &commands[c];
    int family = strcmp(cc->command, "devices") != 0 &&
                 strcmp(cc->command, "onnx-test") != 0;
    for (size_t k = 0; family && k < 10 && cc->options[k] != NULL; ++k) {
      char arg[64];
      /* a flag takes no value */
      int flag = strcmp(cc->options[k], "--include-last-offset") == 0;
      snprintf(arg, sizeof arg, flag ? "%s" : "%s=0", cc->options[k]);
      char *err = NULL;
      int rc = CLI(NULL, &err, cc->command, arg);
      cr_expect_eq(rc, 2, "%s %s: rc %d: %s", cc->command, arg, rc, err);
      cr_expect(strstr(err, "unknown option") == NULL && strstr(err, "needs"),
                "%s %s: %s", cc->command, arg, err);
      free(err);
    }
    for (size_t k = 0; k < 4 && cc->rejected[k] != NULL; ++k) {
      char arg[64];
      snprintf(arg, sizeof arg, "%s=0", cc->rejected[k]);
      char *out = NULL, *err = NULL;
      int rc = CLI(&out, &err, cc->command, arg);
      cr_expect_eq(rc, 2, "%s %s: rc %d: %s", cc->command, arg, rc, err);
      cr_expect(strstr(err, arg) != NULL && ct_is_usage_line(err, cc->command),
                "%s %s: %s", cc->command, arg, err);
      cr_expect_str_empty(out, "%s %s printed on stdout", cc->command, arg);
      free(out);
      free(err);
    }
  }
  /* onnx-test takes --device (a folder that does not exist fails, as input,
   * after the options were parsed). */
  char *err = NULL;
  int rc = CLI(NULL, &err, "onnx-test", "--device=0:0",
               ct_path("no_such_folder"));
  cr_expect_neq(rc, 2, "onnx-test --device: rc %d: %s", rc, err);
  cr_expect(strstr(err, "unknown option") == NULL, "%s", err);
  free(err);
}

Test(cli_help, help_of_an_unknown_command_is_a_usage_error) {
  char *out = NULL, *err = NULL;
  cr_assert_eq(CLI(&out, &err, "help", "nope"), 2);
  cr_expect(strstr(err, "unknown command 'nope'") != NULL, "%s", err);
  cr_expect_str_empty(out);
  free(out);
  free(err);
}

Test(cli_help, top_level_help_names_commands_and_version) {
  char *out = NULL, *err = NULL;
  cr_assert_eq(CLI(&out, &err, "--help"), 0);
  cr_expect_str_empty(err);
  cr_expect(strstr(out, "-V, --version") != NULL, "%s", out);
  cr_expect(strstr(out, "devices [--json]") != NULL, "%s", out);
  cr_expect(strstr(out, "help [COMMAND]") != NULL, "%s", out);
  for (size_t c = 0; c < N_COMMANDS; ++c) {
    char line[64];
    snprintf(line, sizeof line, "\n  %s ", commands[c].command);
    cr_expect(strstr(out, line) != NULL, "top-level help lacks %s",
              commands[c].command);
  }
  free(out);
  free(err);
}

Test(cli_help, short_v_is_version) {
  char want[64];
  snprintf(want, sizeof want, "clgather %d.%d.%d\n", CLGATHER_VERSION_MAJOR,
           CLGATHER_VERSION_MINOR, CLGATHER_VERSION_PATCH);
  char *out_long = NULL, *out_short = NULL, *out_word = NULL, *err = NULL;
  cr_assert_eq(CLI(&out_long, NULL, "--version"), 0);
  cr_assert_eq(CLI(&out_short, &err, "-V"), 0);
  cr_assert_eq(CLI(&out_word, NULL, "version"), 0);
  cr_expect_str_eq(out_long, want);
  cr_expect_str_eq(out_short, out_long);
  cr_expect_str_eq(out_word, out_long);
  cr_expect_str_empty(err);
  free(out_long);
  free(out_short);
  free(out_word);
  free(err);
  /* -v is not -V */
  cr_expect_eq(CLI(NULL, NULL, "-v"), 2);
}

#ifdef CLGATHER_BENCH_PATH
Test(cli_help, bench_version_and_help) {
  char want[64];
  snprintf(want, sizeof want, "clgather-bench %d.%d.%d\n",
           CLGATHER_VERSION_MAJOR, CLGATHER_VERSION_MINOR,
           CLGATHER_VERSION_PATCH);
  char *out = NULL, *out_short = NULL, *err = NULL;
  cr_assert_eq(BENCH(&out, &err, "--version"), 0, "%s", err);
  cr_expect_str_eq(out, want);
  cr_expect_str_empty(err);
  cr_assert_eq(BENCH(&out_short, NULL, "-V"), 0);
  cr_expect_str_eq(out_short, want);
  free(out);
  free(out_short);
  free(err);
  cr_assert_eq(BENCH(&out, NULL, "--help"), 0);
  cr_expect(strstr(out, "--version") != NULL, "%s", out);
  free(out);
  cr_expect_eq(BENCH(NULL, NULL, "--versio"), 2);
}
#endif
