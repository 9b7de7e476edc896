/*
 * Command-line parsing shared by the clgather commands: one option table per
 * command, the same forms and the same usage errors everywhere.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PROG "clgather"

int cli_usage_error(const char *fmt, ...) {
  va_list ap;
  fputs(PROG ": ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\n", stderr);
  cli_print_usage(1);
  return CLI_EXIT_USAGE;
}

int cli_match_option(int argc, char **argv, int *i, const char *longname,
                     const char *shortname, const char **value) {
  const char *arg = argv[*i];
  size_t n = strlen(longname);
  if (strncmp(arg, longname, n) == 0 && arg[n] == '=') {
    *value = arg + n + 1;
    return 1;
  }
  int separate = strcmp(arg, longname) == 0;
  if (!separate && shortname != NULL) {
    size_t m = strlen(shortname);
    if (strcmp(arg, shortname) == 0) {
      separate = 1;
    } else if (strncmp(arg, shortname, m) == 0 && arg[m] != '\0') {
      *value = arg + m;
      return 1;
    }
  }
  if (!separate)
    return 0;
  if (*i + 1 >= argc)
    return -1;
  *i += 1;
  *value = argv[*i];
  return 1;
}

int cli_parse_args(int argc, char **argv, const cli_option *opts, size_t n_opts,
                   const char **pos, int max_pos, const char *pos_desc,
                   int *npos, int *exit_code) {
  int only_positionals = 0;
  *npos = 0;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (!only_positionals && arg[0] == '-' && arg[1] != '\0') {
      if (strcmp(arg, "--") == 0) {
        only_positionals = 1;
        continue;
      }
      if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
        cli_print_usage(0);
        *exit_code = CLI_EXIT_OK;
        return 1;
      }
      int m = 0;
      for (size_t k = 0; k < n_opts && m == 0; ++k) {
        const char *value = NULL;
        m = cli_match_option(argc, argv, &i, opts[k].longname,
                             opts[k].shortname, &value);
        if (m > 0)
          *opts[k].value = value;
      }
      if (m == 0) {
        *exit_code = cli_usage_error("unknown option '%s'", arg);
        return 1;
      }
      if (m < 0) {
        *exit_code = cli_usage_error("option '%s' needs a value", arg);
        return 1;
      }
      continue;
    }
    if (*npos >= max_pos) {
      *exit_code = cli_usage_error("unexpected argument '%s' (%s takes %s)",
                                   arg, argv[0], pos_desc);
      return 1;
    }
    pos[(*npos)++] = arg;
  }
  return 0;
}

int cli_parse_int64(const char *s, int64_t *v) {
  if (s == NULL || *s == '\0')
    return -1;
  char *end = NULL;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0')
    return -1;
  *v = (int64_t)x;
  return 0;
}

int cli_parse_mode(const char *s, clg_index_mode *mode) {
  static const struct {
    const char *name;
    clg_index_mode mode;
  } modes[] = {
      {"raise", CLG_MODE_RAISE},
      {"wrap", CLG_MODE_WRAP},
      {"clip", CLG_MODE_CLIP},
  };
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
    if (s != NULL && strcmp(s, modes[i].name) == 0) {
      *mode = modes[i].mode;
      return 0;
    }
  }
  return -1;
}
