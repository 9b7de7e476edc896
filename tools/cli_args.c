/*
 * What the clgather commands share: the usage text, exit statuses for library
 * errors, and command-line parsing (one option table per command, the same
 * forms and the same usage errors everywhere). Calls nothing in clgather.c or
 * onnx_test.c: they call it.
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
  fputs(
      "usage: clgather <command> [options]\n"
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
      "  onnx-test [--device SPEC] [DIR ...]\n"
      "      Run ONNX backend node test folders (default: every "
      "test_gather*\n"
      "      and test_scatter* folder under $CLGATHER_ONNX_TESTDATA, else\n"
      "      /usr/share/libonnx-testdata/data/node).\n"
      "  selftest [--device SPEC] [--quick] [--json]\n"
      "      Check the device: every operator's generated cases against the\n"
      "      plain-C references, the bad-input catalogue and the installed\n"
      "      ONNX node tests; prints a table (exit 0 only if all passed).\n"
      "  help [COMMAND]\n"
      "      Show this help, or COMMAND's (as `clgather COMMAND --help`).\n"
      "\n"
      "  DATA, INDICES, UPDATES and OUT are .npy or .pb (ONNX TensorProto) "
      "files, by\n"
      "  extension.\n"
      "\n"
      "options:\n"
      "  -a, --axis A        axis of DATA to gather along (default 0; "
      "negative\n"
      "                      counts from the back)\n"
      "  -b, --batch-dims B  leading dimensions DATA and INDICES share as a "
      "batch\n"
      "                      (default 0; for gather, negative counts from\n"
      "                      INDICES' rank)\n"
      "  -m, --mode M        gather only: what an index outside [-s, s-1] "
      "means:\n"
      "                      raise (default: an error), wrap (modulo s) or "
      "clip\n"
      "                      (clamp to [0, s-1]); there is no zero-fill mode\n"
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
      "  -o, --output OUT    output file (.npy or .pb)\n"
      "  -h, --help          show this help; after a command, that "
      "command's help\n"
      "                      (its options and exit statuses)\n"
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

/* ------------------------------------------------------- per-command help */

/* What each command does, its operands and its exit statuses. */
typedef struct command_doc {
  const char *name;
  const char *operands; /* after "[options]" in the usage line */
  const char *about;    /* lines of at most 78 columns */
  const char *exits;    /* the "exit status:" lines */
} command_doc;

#define FILES_GATHER                                                          \
  "DATA, INDICES and OUT are .npy (NumPy format 1.0-3.0, little-endian, C\n" \
  "order) or .pb (ONNX TensorProto) files, by extension; INDICES are int32\n" \
  "or int64. Options may come before or after the files.\n"
#define FILES_SCATTER                                                         \
  "DATA, INDICES, UPDATES and OUT are .npy (NumPy format 1.0-3.0,\n"          \
  "little-endian, C order) or .pb (ONNX TensorProto) files, by extension;\n"  \
  "INDICES are int32 or int64. OUT has DATA's shape. Options may come\n"      \
  "before or after the files.\n"
#define EXITS_GATHER                                                          \
  "  0  success: OUT written\n"                                               \
  "  1  invalid input: an unreadable or malformed file, a bad axis, shape or\n" \
  "     type, an out-of-bounds index (its position, value and valid range\n"  \
  "     on stderr); OUT is not created and an existing OUT is unchanged\n"    \
  "  2  usage error: unknown option, missing file or value, a value that is\n" \
  "     not an integer or not one of the names listed\n"                     \
  "  3  device or OpenCL error (no device, a failed build or OpenCL call)\n"
#define EXITS_SCATTER                                                         \
  "  0  success: OUT written\n"                                               \
  "  1  invalid input: an unreadable or malformed file, a bad axis, shape or\n" \
  "     type, an out-of-bounds index (position, value and valid range on\n"   \
  "     stderr) or, under --duplicates error, two entries with one target\n"  \
  "     (both named); OUT is not created and an existing OUT is unchanged\n"  \
  "  2  usage error: unknown option, missing file or value, a value that is\n" \
  "     not an integer or not one of the names listed\n"                     \
  "  3  device or OpenCL error (no device, a failed build or OpenCL call)\n"

static const command_doc command_docs[] = {
    {"devices", "",
     "List the OpenCL platforms and their devices, each device with the P:D\n"
     "index that --device takes, its type (CPU, GPU, ...), name and OpenCL\n"
     "version. With --json, the same as a JSON array on stdout: one object\n"
     "per platform (\"index\", \"name\", \"version\", \"devices\"), each "
     "device an\n"
     "object (\"spec\" \"P:D\", \"platform\", \"index\", \"type\", "
     "\"name\", \"version\").\n",
     "  0  at least one device listed\n"
     "  2  usage error: an argument other than --json\n"
     "  3  no OpenCL platform or device, or a failed OpenCL call\n"},
    {"gather", "DATA INDICES -o OUT",
     "ONNX Gather (opsets 1, 11, 13): OUT = numpy.take(DATA, INDICES,\n"
     "axis=A), OUT's shape DATA.shape[:A] + INDICES.shape[B:] +\n"
     "DATA.shape[A+1:], with TensorFlow's batch_dims (B) and numpy.take's\n"
     "index modes. Every index is checked before anything runs.\n\n" FILES_GATHER,
     EXITS_GATHER},
    {"gather-elements", "DATA INDICES -o OUT",
     "ONNX GatherElements (opsets 11, 13): OUT = numpy.take_along_axis(DATA,\n"
     "INDICES, axis=A). INDICES has DATA's rank and, off the axis, dimensions\n"
     "no larger than DATA's; OUT has INDICES' shape. Every index is checked\n"
     "before anything runs.\n\n" FILES_GATHER,
     EXITS_GATHER},
    {"gather-nd", "DATA INDICES -o OUT",
     "ONNX GatherND (opsets 11, 12, 13): each row of INDICES' last dimension\n"
     "(m entries) indexes DATA's dimensions B to B+m-1 after the first B\n"
     "(batch) ones; OUT's shape is INDICES.shape[:-1] + DATA.shape[B+m:].\n"
     "Every index is checked before anything runs.\n\n" FILES_GATHER,
     EXITS_GATHER},
    {"scatter-elements", "DATA INDICES UPDATES -o OUT",
     "ONNX ScatterElements (opsets 11, 13, 16, 18): OUT = DATA with UPDATES\n"
     "put along axis A at INDICES (numpy.put_along_axis), or reduced into\n"
     "it. Updates apply one at a time in the C order of INDICES, so results\n"
     "are the same on every device and every run.\n\n" FILES_SCATTER,
     EXITS_SCATTER},
    {"scatter-nd", "DATA INDICES UPDATES -o OUT",
     "ONNX ScatterND (opsets 11, 13, 16, 18): each row of INDICES' last\n"
     "dimension names a slice of DATA that the matching slice of UPDATES\n"
     "replaces (or is reduced into). Updates apply one at a time in the C\n"
     "order of INDICES, so results are the same on every device and every\n"
     "run.\n\n" FILES_SCATTER,
     EXITS_SCATTER},
    {"scatter", "DATA INDICES UPDATES -o OUT",
     "ONNX Scatter (opsets 9, 10; deprecated in ONNX for ScatterElements):\n"
     "scatter-elements without reduction.\n\n" FILES_SCATTER,
     EXITS_SCATTER},
    {"onnx-test", "[DIR ...]",
     "Run ONNX backend node test folders (model.onnx and test_data_set_*/\n"
     "input_N.pb, output_N.pb) for every operator of the library (Gather,\n"
     "GatherElements, GatherND, ScatterElements, ScatterND, Scatter) and\n"
     "compare the outputs byte for byte; other operators are skipped. With\n"
     "no DIR, every test_gather* and test_scatter* folder under\n"
     "$CLGATHER_ONNX_TESTDATA, else /usr/share/libonnx-testdata/data/node.\n"
     "Prints PASS, FAIL or SKIP per folder and ends with\n"
     "\"N passed, N failed, N skipped\".\n",
     "  0  every test run passed (and at least one ran)\n"
     "  1  a test failed, or no test could run (no folder found)\n"
     "  2  usage error: unknown option or a missing value\n"
     "  3  device or OpenCL error\n"},
    {"selftest", "",
     "The conformance of an OpenCL device, in the shape of the Khronos\n"
     "conformance suite: on the chosen device, generated cases of every\n"
     "operator (every element size, int32 and int64 indices, the index\n"
     "modes, batch_dims, every scatter reduction over several element\n"
     "types, the duplicates rule; host, cl_mem, asynchronously checked and\n"
     "in-place operands), each compared byte for byte with the plain-C\n"
     "reference; the bad-input catalogue (each input refused with its\n"
     "status, the output unchanged); and the installed ONNX node tests\n"
     "(absent data is reported, not a failure). Prints one row per\n"
     "operator: cases, passed, failed, the kernel variants the library\n"
     "chose, seconds; then the first failing cases in full.\n",
     "  0  every case passed\n"
     "  1  a case failed (the first ones are named in full)\n"
     "  2  usage error: unknown option or a missing value\n"
     "  3  no device, or a device or OpenCL error\n"},
};

/* Each option's value name and description; a command-specific entry
 * first, then the one for any command (command NULL). */
typedef struct option_doc {
  const char *command;
  const char *longname;
  const char *metavar; /* NULL for a flag */
  const char *text;    /* lines of at most 50 columns */
} option_doc;

static const option_doc option_docs[] = {
    {"gather", "--batch-dims", "B",
     "leading dimensions DATA and INDICES share as a\n"
     "batch (default 0; negative counts from INDICES'\n"
     "rank); B <= A"},
    {NULL, "--batch-dims", "B",
     "leading dimensions DATA and INDICES share as a\n"
     "batch (default 0; at most min(rank DATA,\n"
     "rank INDICES) - 1)"},
    {"gather", "--axis", "A",
     "axis of DATA to gather along (default 0;\n"
     "negative counts from the back)"},
    {NULL, "--axis", "A",
     "axis of DATA that INDICES index (default 0;\n"
     "negative counts from the back)"},
    {NULL, "--mode", "M",
     "what an index outside [-s, s-1] means: raise\n"
     "(default: an error), wrap (modulo s) or clip\n"
     "(clamp to [0, s-1]); there is no zero-fill mode"},
    {NULL, "--reduction", "R",
     "none (default), add, mul, min or max: how\n"
     "UPDATES combine with what they land on, in\n"
     "index order, deterministically"},
    {NULL, "--duplicates", "D",
     "under reduction none, what two entries with one\n"
     "target mean: error (default) or last (the later\n"
     "entry wins)"},
    {NULL, "--device", "SPEC",
     "P:D as listed by `clgather devices`, or part of\n"
     "a device name (default: $CLGATHER_DEVICE, else\n"
     "the first GPU, else the first device)"},
    {NULL, "--output", "OUT",
     "output file (.npy or .pb), written only on\n"
     "success (to an unnamed temporary file, linked\n"
     "into place once complete)"},
    {"selftest", "--json", NULL,
     "print the table and the failures as one JSON\n"
     "object instead of text"},
    {NULL, "--json", NULL,
     "print a JSON array of the platforms and their\n"
     "devices instead of the text listing"},
    {NULL, "--quick", NULL,
     "fewer cases (each element size, mode and\n"
     "reduction still once): well under a minute on a\n"
     "CPU device"},
};

static const option_doc *find_option_doc(const char *command,
                                         const char *longname) {
  const option_doc *any = NULL;
  for (size_t i = 0; i < sizeof option_docs / sizeof option_docs[0]; ++i) {
    const option_doc *d = &option_docs[i];
    if (strcmp(d->longname, longname) != 0)
      continue;
    if (d->command != NULL && strcmp(d->command, command) == 0)
      return d;
    if (d->command == NULL && any == NULL)
      any = d;
  }
  return any;
}

/* "  -a, --axis A" padded to a column, then the text, its later lines
 * indented to the same column. */
static void print_option_line(const char *shortname, const char *longname,
                              const char *metavar, const char *text) {
  char head[64];
  snprintf(head, sizeof head, "%s%s%s%s%s", shortname ? shortname : "",
           shortname ? ", " : "    ", longname, metavar ? " " : "",
           metavar ? metavar : "");
  printf("  %-20s", head);
  if (text[0] == '\0') {
    printf("\n");
    return;
  }
  if (strlen(head) > 20)
    printf("\n  %-20s", "");
  for (const char *t = text; *t != '\0';) {
    const char *nl = strchr(t, '\n');
    size_t n = nl ? (size_t)(nl - t) : strlen(t);
    printf("  %.*s\n", (int)n, t);
    if (nl == NULL)
      break;
    t = nl + 1;
    if (*t != '\0')
      printf("  %-20s", "");
  }
}

int cli_print_command_help(const char *command, const cli_option *opts,
                           size_t n_opts) {
  const command_doc *doc = NULL;
  for (size_t i = 0; i < sizeof command_docs / sizeof command_docs[0]; ++i)
    if (command != NULL && strcmp(command_docs[i].name, command) == 0)
      doc = &command_docs[i];
  if (doc == NULL)
    return -1;
  printf("usage: " PROG " %s [options]%s%s\n\n%s\noptions:\n", doc->name,
         doc->operands[0] ? " " : "", doc->operands, doc->about);
  for (size_t k = 0; k < n_opts; ++k) {
    const option_doc *od = find_option_doc(doc->name, opts[k].longname);
    print_option_line(opts[k].shortname, opts[k].longname,
                      od ? od->metavar : (opts[k].value ? "VALUE" : NULL),
                      od ? od->text : "");
  }
  print_option_line("-h", "--help", NULL, "show this help and exit");
  printf("\nexit status:\n%s", doc->exits);
  fflush(stdout);
  return 0;
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
