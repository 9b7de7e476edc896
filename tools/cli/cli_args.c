/*
 * What the clgather commands share: the usage text, exit statuses for library
 * errors, and command-line parsing (one option table per command, the same
 * forms and the same usage errors everywhere; each command's own help is in
 * cli_help.c). Calls nothing in clgather.c or onnx_test.c: they call it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PROG "clgather"

void cli_print_usage(int to_stderr) {
  FILE *f = to_stderr ? stderr : stdout;
  fputs("usage: clgather <command> [options]\n"
        "\n"
        "commands:\n"
        "  devices [--json]\n"
        "      List OpenCL platforms and devices with the P:D index for "
        "--device\n"
        "      (--json: as a JSON array).\n"
        "  gather [--axis A] [--batch-dims B] [--mode M] [--device SPEC]\n"
        "         DATA INDICES -o OUT\n"
        "      ONNX Gather: OUT = take(DATA, INDICES, axis=A), with "
        "TensorFlow's\n"
        "      batch_dims and numpy.take's index modes.\n"
        "  gather-elements [--axis A] [--device SPEC] DATA INDICES -o OUT\n"
        "      ONNX GatherElements: OUT = take_along_axis(DATA, INDICES, "
        "axis=A).\n"
        "  gather-nd [--batch-dims B] [--device SPEC] DATA INDICES -o OUT\n"
        "      ONNX GatherND: each row of INDICES' last dimension indexes "
        "DATA's\n"
        "      dimensions after its first B (batch) ones.\n"
        "  scatter-elements [--axis A] [--reduction R] [--duplicates D]\n"
        "         [--device SPEC] DATA INDICES UPDATES -o OUT\n"
        "      ONNX ScatterElements: OUT = DATA with UPDATES put along axis A "
        "at\n"
        "      INDICES (numpy.put_along_axis), or reduced into it.\n"
        "  scatter-nd [--reduction R] [--duplicates D] [--device SPEC]\n"
        "         DATA INDICES UPDATES -o OUT\n"
        "      ONNX ScatterND: each row of INDICES' last dimension names a "
        "slice of\n"
        "      DATA that UPDATES replaces (or is reduced into).\n"
        "  scatter [--axis A] [--duplicates D] [--device SPEC]\n"
        "         DATA INDICES UPDATES -o OUT\n"
        "      ONNX Scatter (opsets 9, 10): scatter-elements without "
        "reduction.\n"
        "  embedding-bag [--mode M] [--offsets OFFSETS | --segment-ids IDS\n"
        "         [--num-segments K]] [--per-sample-weights W] [--padding-idx "
        "P]\n"
        "         [--include-last-offset] [--weight-format F] [--device SPEC]\n"
        "         WEIGHT INDICES -o OUT\n"
        "      PyTorch embedding_bag, TensorFlow sparse_segment_sum/_mean/"
        "_sqrt_n:\n"
        "      rows of WEIGHT picked by INDICES, reduced per bag (mode sum, "
        "mean\n"
        "      (default), max or sqrt_n); options: `clgather help "
        "embedding-bag`.\n"
        "  gather-block-quantized [--kind K] [--bits N] [--gather-axis A]\n"
        "         [--quantize-axis Q] [--block-size B] [--zero-points ZP]\n"
        "         [--device SPEC] DATA INDICES SCALES -o OUT\n"
        "      ONNX Runtime's GatherBlockQuantized: rows of block-quantized "
        "DATA\n"
        "      (uint8, uint4, int4) gathered and dequantized with SCALES; "
        "options:\n"
        "      `clgather help gather-block-quantized`.\n"
        "  onnx-test [--device SPEC] [DIR ...]\n"
        "      Run ONNX backend node test folders (default: every "
        "test_gather*\n"
        "      and test_scatter* folder under $CLGATHER_ONNX_TESTDATA, else\n"
        "      /usr/share/libonnx-testdata/data/node).\n",
        f);
  /* a registered operator this text does not name (cli_help.c) */
  cli_print_operator_commands(f);
  fputs(
      "  selftest [--device SPEC] [--quick] [--json] [--junit FILE]\n"
      "      Check the device: every operator's generated cases against the\n"
      "      plain-C references, the bad-input catalogue and the installed\n"
      "      ONNX node tests; prints a table (exit 0 only if all passed).\n"
      "  help [COMMAND]\n"
      "      Show this help, or COMMAND's (as `clgather COMMAND --help`).\n"
      "\n"
      "  DATA, INDICES, UPDATES, WEIGHT, OFFSETS, IDS, W, SCALES, ZP and OUT "
      "are\n"
      "  .npy, .npz:NAME (one array of an archive; .npz alone when it holds "
      "one)\n"
      "  or .pb (ONNX TensorProto) files, by extension; - is .npy on stdin "
      "or,\n"
      "  as OUT, stdout.\n"
      "\n"
      "options:\n"
      "  -a, --axis A        axis of DATA to gather along (default 0; "
      "negative\n"
      "                      counts from the back)\n"
      "  -b, --batch-dims B  leading dimensions DATA and INDICES share as a "
      "batch\n"
      "                      (default 0; for gather, negative counts from\n"
      "                      INDICES' rank)\n"
      "  -m, --mode M        gather: what an index outside [-s, s-1] "
      "means: raise\n"
      "                      (default: an error), wrap (modulo s) or clip "
      "(clamp\n"
      "                      to [0, s-1]); there is no zero-fill mode;\n"
      "                      embedding-bag: the reduction, sum, mean "
      "(default),\n"
      "                      max or sqrt_n\n"
      "  -r, --reduction R   scatters: none (default), add, mul, min or max;"
      "\n"
      "                      updates apply in index order, deterministically\n"
      "  -D, --duplicates D  scatters with reduction none: what two entries "
      "with\n"
      "                      one target mean: error (default) or last (the "
      "later\n"
      "                      entry wins)\n"
      "  -d, --device SPEC   P:D as listed by `clgather devices`, or part of "
      "a\n"
      "                      device name (default: $CLGATHER_DEVICE, else the\n"
      "                      first GPU, else the first device)\n"
      "  -o, --output OUT    output file (.npy, .npz[:NAME], .pb, or - for "
      "stdout)\n"
      "  -h, --help          show this help; after a command, that "
      "command's help\n"
      "                      (its options and exit statuses)\n"
      "  -q, --quiet         print nothing but errors (no progress, no "
      "report)\n"
      "  -v, --verbose       say what the run does on stderr: the device, "
      "the\n"
      "                      kernel variant chosen, times, progress\n"
      "  -V, --version       show the version\n"
      "\n"
      "exit status: 0 success, 1 invalid input, 2 usage error, 3 "
      "device/OpenCL error\n",
      f);
#if !CLGATHER_CLI_ONNX
  fputs("\nThis clgather was built without ONNX: onnx-test and .pb files are "
        "not\navailable (configure with -DCLGATHER_BUILD_ONNX=ON).\n",
        f);
#endif
}

/* ------------------------------------------------------------------ JSON */

/* For `devices --json`: a driver's strings are not promised to be UTF-8, so
 * every byte outside a well-formed sequence becomes U+FFFD. */
void cli_json_string(FILE *f, const char *s) {
  if (s == NULL) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  const unsigned char *p = (const unsigned char *)s;
  while (*p != '\0') {
    unsigned c = *p;
    if (c == '"' || c == '\\') {
      fprintf(f, "\\%c", (int)c);
      ++p;
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(f, "\\u%04x", c);
      ++p;
    } else if (c < 0x80) {
      fputc((int)c, f);
      ++p;
    } else {
      /* Length of a well-formed UTF-8 sequence starting here, or 0. */
      size_t n = c >= 0xc2 && c <= 0xdf   ? 2
                 : c >= 0xe0 && c <= 0xef ? 3
                 : c >= 0xf0 && c <= 0xf4 ? 4
                                          : 0;
      for (size_t k = 1; k < n; ++k)
        if ((p[k] & 0xc0) != 0x80)
          n = 0;
      /* Overlong, surrogate and beyond-U+10FFFF forms. */
      if ((n == 3 && c == 0xe0 && p[1] < 0xa0) ||
          (n == 3 && c == 0xed && p[1] >= 0xa0) ||
          (n == 4 && c == 0xf0 && p[1] < 0x90) ||
          (n == 4 && c == 0xf4 && p[1] >= 0x90))
        n = 0;
      if (n == 0) {
        fputs("\\ufffd", f);
        ++p;
      } else {
        fwrite(p, 1, n, f);
        p += n;
      }
    }
  }
  fputc('"', f);
}

int cli_exit_for_status(clg_status status) {
  switch (status) {
  case CLG_SUCCESS:
    return CLI_EXIT_OK;
  case CLG_ERROR_NO_DEVICE:
  case CLG_ERROR_OPENCL:
  case CLG_ERROR_BUILD_FAILED:
  case CLG_ERROR_OUT_OF_HOST_MEMORY:
  case CLG_ERROR_INTERNAL: /* not the input's fault */
    return CLI_EXIT_DEVICE;
  default:
    return CLI_EXIT_INPUT;
  }
}

const char *cli_library_message(clg_status status) {
  const char *msg = clg_last_error();
  if (msg == NULL || msg[0] == '\0')
    msg = clg_status_string(status);
  return msg;
}

/* ------------------------------------------------- the run's settings */

static const char *usage_command; /* for the usage error's pointer */
static int verbosity;             /* CLI_QUIET, 0 or CLI_VERBOSE */

void cli_set_command(const char *command) { usage_command = command; }

int cli_verbosity(void) { return verbosity; }

int cli_global_flag(const char *arg) {
  if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0)
    verbosity = CLI_QUIET;
  else if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0)
    verbosity = CLI_VERBOSE;
  else
    return 0;
  return 1;
}

/* One line, however long the help is: what was wrong and where the help
 * is. */
int cli_usage_error(const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  /* an operand or value is echoed: keep the error on one line */
  for (char *c = what; *c != '\0'; ++c)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  if (usage_command != NULL)
    fprintf(stderr, PROG ": %s; try '" PROG " %s --help'\n", what,
            usage_command);
  else
    fprintf(stderr, PROG ": %s; try '" PROG " --help'\n", what);
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
      if (cli_global_flag(arg))
        continue;
      if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
        if (cli_print_command_help(argv[0], opts, n_opts) != 0)
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

int cli_parse_reduction(const char *s, clg_reduction *red) {
  static const char *const names[] = {"none", "add", "mul", "min", "max"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (s != NULL && strcmp(s, names[i]) == 0) {
      *red = (clg_reduction)i;
      return 0;
    }
  return -1;
}

int cli_parse_duplicates(const char *s, clg_duplicates *dup) {
  if (s != NULL && strcmp(s, "error") == 0) {
    *dup = CLG_DUPLICATES_ERROR;
    return 0;
  }
  if (s != NULL && strcmp(s, "last") == 0) {
    *dup = CLG_DUPLICATES_LAST;
    return 0;
  }
  return -1;
}
