/*
 * `clgather COMMAND --help`: what each command does, its operands, its
 * options' descriptions and its exit statuses (cli_print_command_help(),
 * cli.h). Split from cli_args.c, which calls it from cli_parse_args(); like
 * it, calls nothing in the commands.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define PROG "clgather"

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
    {"embedding-bag", "WEIGHT INDICES -o OUT",
     "PyTorch's embedding_bag (nn.EmbeddingBag) and TensorFlow's\n"
     "sparse_segment_sum / _mean / _sqrt_n: OUT[b, :] is the reduction (--mode)\n"
     "of the rows WEIGHT[INDICES[i], :] over the entries i of bag b. The bags\n"
     "are given by --offsets (PyTorch) or --segment-ids (TensorFlow) over 1-D\n"
     "INDICES or, with neither, are the rows of 2-D INDICES (fixed-size bags).\n"
     "An empty bag gives zeros. Every bag boundary and every index is checked\n"
     "before anything runs; each bag is reduced one entry at a time in index\n"
     "order, so OUT is the same bits on every device.\n\n"
     "WEIGHT [num_embeddings, dim] is float32, float16, bfloat16 or float64;\n"
     "INDICES, OFFSETS and IDS are int32 or int64; OUT [B, dim] has WEIGHT's\n"
     "type. All are .npy (NumPy format 1.0-3.0, little-endian, C order) or .pb\n"
     "(ONNX TensorProto) files, by extension. Options may come before or after\n"
     "the files.\n",
     "  0  success: OUT written\n"
     "  1  invalid input: an unreadable or malformed file, a bad shape or type,\n"
     "     offsets or segment ids that break their rules, an index outside\n"
     "     [0, num_embeddings - 1] (position and value on stderr), per-sample\n"
     "     weights with a mode other than sum; OUT is not created and an\n"
     "     existing OUT is unchanged\n"
     "  2  usage error: unknown option, missing file or value, a value that is\n"
     "     not an integer or not one of the names listed, --offsets with\n"
     "     --segment-ids, 1-D INDICES with neither\n"
     "  3  device or OpenCL error (no device, a failed build or OpenCL call)\n"},
    {"gather-block-quantized", "DATA INDICES SCALES -o OUT",
     "ONNX Runtime's GatherBlockQuantized (com.microsoft, version 1): ONNX\n"
     "Gather of DATA's values along --gather-axis at INDICES, each value q\n"
     "then dequantized with the scale s and zero point p of its block of\n"
     "--block-size values along --quantize-axis: OUT = (float)(q - p) * s, one\n"
     "float32 product (rounded once to float16 for float16 SCALES), the same\n"
     "bits on every device. OUT's shape is V[:A] + INDICES' shape + V[A+1:]\n"
     "(V the values' shape), its type SCALES'. Every index (in [-s, s-1],\n"
     "negative from the back) is checked before anything runs; ONNX Runtime\n"
     "writes zeros for one out of range, this command fails.\n\n"
     "DATA by --kind:\n"
     "  uint8, --bits 8: uint8, a value a byte; V is DATA's shape;\n"
     "  uint8, --bits 4: uint8, ONNX Runtime's packed rows, two values a byte\n"
     "    (the even one in the low nibble): V is DATA's shape with the last\n"
     "    axis doubled. uint8 takes gather axis 0 and the last quantize axis;\n"
     "  uint4 / int4: one value a byte in V itself (uint4: uint8 0..15; int4:\n"
     "    int8 -8..7), packed by this command; any pair of axes.\n"
     "SCALES: float32 or float16, V with ceil(V[Q] / B) on the quantize axis.\n"
     "ZP (--zero-points): SCALES' shape, in DATA's layout (uint8 --bits 4:\n"
     "two a byte per row, the last axis ceil(n / 2) bytes); without them 128\n"
     "(bits 8) or 8 (uint8, bits 4), 0 for uint4 and int4. INDICES are int32\n"
     "or int64. All are .npy (NumPy format 1.0-3.0, little-endian, C order)\n"
     "or .pb (ONNX TensorProto) files, by extension. Options may come before\n"
     "or after the files.\n",
     "  0  success: OUT written\n"
     "  1  invalid input: an unreadable or malformed file, a bad axis, shape,\n"
     "     type or block size (a power of two >= 16), a 4-bit value out of\n"
     "     its range, an out-of-bounds index (position,\n"
     "     value and valid range on stderr); OUT is not created and an\n"
     "     existing OUT is unchanged\n"
     "  2  usage error: unknown option, missing file or value, a value that is\n"
     "     not an integer or not one of the names listed, --bits 8 with a\n"
     "     4-bit kind\n"
     "  3  device or OpenCL error (no device, a failed build or OpenCL call)\n"},
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
    {"embedding-bag", "--mode", "M",
     "the reduction: sum, mean (default, as PyTorch),\n"
     "max, or sqrt_n (the sum over sqrt(count))"},
    {NULL, "--offsets", "OFFSETS",
     "int32/int64 [B]: where each bag starts in 1-D\n"
     "INDICES (PyTorch's offsets; the first is 0)"},
    {NULL, "--include-last-offset", NULL,
     "OFFSETS holds B + 1 entries, the last one the\n"
     "number of indices (PyTorch's include_last_offset)"},
    {NULL, "--segment-ids", "IDS",
     "int32/int64 [N], non-decreasing: the bag of each\n"
     "entry of 1-D INDICES (TensorFlow's segment_ids)"},
    {NULL, "--num-segments", "K",
     "with --segment-ids: the number of bags (default:\n"
     "the last id + 1, 0 when IDS is empty)"},
    {NULL, "--per-sample-weights", "W",
     "WEIGHT's type, INDICES' shape: each row scaled by\n"
     "its entry's weight (mode sum only)"},
    {NULL, "--padding-idx", "P",
     "entries equal to P are skipped and not counted\n"
     "(negative counts from WEIGHT's end)"},
    {NULL, "--weight-format", "F",
     "dense (default), or WEIGHT uint8 rows quantized\n"
     "per row as PyTorch prepacks them: int8-rowwise,\n"
     "int4-rowwise or int2-rowwise (OUT float32)"},
    {NULL, "--kind", "K",
     "how DATA's values are stored: uint8 (default;\n"
     "ONNX Runtime's uint8 data), uint4 or int4"},
    {NULL, "--bits", "N",
     "bits a value: 4 (default, as ONNX Runtime) or 8\n"
     "(uint8 only)"},
    {NULL, "--gather-axis", "A",
     "the axis of the values INDICES index (default\n"
     "0; negative counts from the back)"},
    {NULL, "--quantize-axis", "Q",
     "the axis the blocks run along (default: the\n"
     "last, ONNX Runtime's 1 for 2-D data)"},
    {NULL, "--block-size", "B",
     "values a block, a power of two >= 16 (default\n"
     "128, as ONNX Runtime)"},
    {NULL, "--zero-points", "ZP",
     "zero points, SCALES' shape in DATA's layout\n"
     "(default: 128 / 8 for uint8, 0 for uint4/int4)"},
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
     "output file (.npy, .npz[:NAME], .pb, or - for\n"
     ".npy on stdout), written only on\n"
     "success (to an unnamed temporary file, linked\n"
     "into place once complete)"},
    {"selftest", "--json", NULL,
     "print the table and the failures as one JSON\n"
     "object instead of text"},
    {NULL, "--json", NULL,
     "print a JSON array of the platforms and their\n"
     "devices instead of the text listing"},
    {"selftest", "--junit", "FILE",
     "also write a JUnit XML report to FILE (a\n"
     "testcase per row, failures with their cases) for\n"
     "CI systems"},
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

static const command_doc *find_command_doc(const char *command) {
  for (size_t i = 0; i < sizeof command_docs / sizeof command_docs[0]; ++i)
    if (command != NULL && strcmp(command_docs[i].name, command) == 0)
      return &command_docs[i];
  return NULL;
}

/* A registered operator's command (clg_operators()) without a text of its
 * own here: what the registry says of it. */
static command_doc operator_doc(const clg_op_info *op, char *about,
                                size_t cap) {
  bool scatter = (op->params & CLG_PARAM_SCATTER) != 0;
  snprintf(about, cap,
           "%s (clg_operators(): operator %d, run by %s): OUT from DATA at\n"
           "INDICES%s. Every index is checked before anything runs.\n\n%s",
           op->name, (int)op->op, scatter ? "clg_scatter()" : "clg_run()",
           scatter ? " and UPDATES" : "",
           scatter ? FILES_SCATTER : FILES_GATHER);
  command_doc d = {op->command,
                   scatter ? "DATA INDICES UPDATES -o OUT"
                           : "DATA INDICES -o OUT",
                   about, scatter ? EXITS_SCATTER : EXITS_GATHER};
  return d;
}

void cli_print_operator_commands(FILE *f) {
  size_t n = 0;
  const clg_op_info *ops = clg_operators(&n);
  for (size_t i = 0; i < n; ++i)
    if (find_command_doc(ops[i].command) == NULL)
      fprintf(f,
              "  %s [options] DATA INDICES%s -o OUT\n      %s (see "
              "`clgather %s --help`).\n",
              ops[i].command,
              (ops[i].params & CLG_PARAM_SCATTER) ? " UPDATES" : "",
              ops[i].name, ops[i].command);
}

int cli_print_command_help(const char *command, const cli_option *opts,
                           size_t n_opts) {
  const command_doc *doc = find_command_doc(command);
  command_doc generic;
  char about[1024];
  if (doc == NULL && command != NULL) {
    size_t n = 0;
    const clg_op_info *ops = clg_operators(&n);
    for (size_t i = 0; i < n && doc == NULL; ++i)
      if (strcmp(ops[i].command, command) == 0) {
        generic = operator_doc(&ops[i], about, sizeof about);
        doc = &generic;
      }
  }
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
  print_option_line("-q", "--quiet", NULL,
                    "nothing on stderr but errors (no progress)");
  print_option_line("-v", "--verbose", NULL,
                    "the device, kernel variant and times on stderr");
  print_option_line("-h", "--help", NULL, "show this help and exit");
  printf("\nexit status:\n%s", doc->exits);
  fflush(stdout);
  return 0;
}
