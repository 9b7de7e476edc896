/*
 * `clgather onnx-test`: runs ONNX test folders (model.onnx, test_data_set_N
 * folders of input_N.pb and output_N.pb) through the library and compares
 * the outputs byte for byte: ONNX's backend node tests and models such as
 * PyTorch's exports, whose data (an nn.Embedding's weight) is an
 * initializer.
 *
 * Operators are the library's (clg_operators(), by ONNX op_type), run by
 * clg_run / clg_scatter with the ONNX attributes of the clg_params fields
 * each takes. A graph runs when it has one node of the family and any
 * number of Constant nodes; its values come from the data set's inputs,
 * initializers and Constant outputs (onnx_model.c). Any other graph is
 * reported as SKIP with the op type that stops it.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <clgather/clgather.h>

#include "cli.h"
#include "onnx_model.h"
#include "onnx_pb.h"
#include "onnx_test.h"
#include "tensor_file.h"

#define PROG "clgather"
#define DEFAULT_TESTDATA "/usr/share/libonnx-testdata/data/node"
#define MAX_TENSORS 16

/* ------------------------------------------------------------- operators */

static clg_status lib_fail(clg_status st, char *err, size_t errlen) {
  cli_fail(err, errlen, "%s", cli_library_message(st));
  return st;
}

/* Runs one node of `op`: *in[0] is data, *in[1] indices (*in[2] updates of
 * a scatter); allocates and fills out[0]. Returns CLG_SUCCESS, or a status
 * with the message in err. */
static clg_status run_op(const onnx_op *op, clg_context *ctx,
                         const Onnx__NodeProto *node,
                         const cli_tensor *const *in, cli_tensor *out,
                         char *err, size_t errlen) {
  clg_params params = {op->info->op, 0, 0, CLG_MODE_RAISE};
  if ((op->info->params & CLG_PARAM_AXIS) &&
      onnx_node_int_attr(node, "axis", 0, &params.axis, err, errlen) != 0)
    return CLG_ERROR_INVALID_ARGUMENT;
  if ((op->info->params & CLG_PARAM_BATCH_DIMS) &&
      onnx_node_int_attr(node, "batch_dims", 0, &params.batch_dims, err,
                         errlen) != 0)
    return CLG_ERROR_INVALID_ARGUMENT;
  int32_t out_rank = 0;
  int64_t out_shape[CLG_MAX_RANK] = {0};
  clg_status st =
      clg_output_shape(&params, in[0]->rank, in[0]->shape, in[1]->rank,
                       in[1]->shape, &out_rank, out_shape);
  if (st != CLG_SUCCESS)
    return lib_fail(st, err, errlen);
  if (cli_tensor_alloc(&out[0], in[0]->dtype, out_rank, out_shape, err,
                       errlen) != 0)
    return CLG_ERROR_INVALID_ARGUMENT;
  clg_tensor td =
      clg_tensor_host(in[0]->dtype, in[0]->rank, in[0]->shape, in[0]->data);
  clg_tensor ti =
      clg_tensor_host(in[1]->dtype, in[1]->rank, in[1]->shape, in[1]->data);
  clg_tensor to =
      clg_tensor_host(out[0].dtype, out[0].rank, out[0].shape, out[0].data);
  if (op->info->params & CLG_PARAM_SCATTER) {
    /* ONNX's `reduction` attribute (ScatterElements 16+, ScatterND 16+);
     * repeated indices under "none" are the error ONNX says they are. */
    static const char *const names[] = {"none", "add", "mul", "min", "max"};
    char red[16];
    if (onnx_node_string_attr(node, "reduction", "none", red, sizeof red, err,
                              errlen) != 0)
      return CLG_ERROR_INVALID_ARGUMENT;
    clg_scatter_params sp = {CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
    size_t k = 0;
    while (k < 5 && strcmp(red, names[k]) != 0)
      ++k;
    if (k == 5) {
      cli_fail(err, errlen, "unknown reduction '%s'", red);
      return CLG_ERROR_INVALID_ARGUMENT;
    }
    sp.reduction = (clg_reduction)k;
    clg_tensor tu =
        clg_tensor_host(in[2]->dtype, in[2]->rank, in[2]->shape, in[2]->data);
    st = clg_scatter(ctx, &params, &sp, &td, &ti, &tu, &to, NULL, 0, NULL,
                     NULL);
  } else
    st = clg_run(ctx, &params, &td, &ti, &to, NULL, 0, NULL, NULL);
  if (st != CLG_SUCCESS)
    return lib_fail(st, err, errlen);
  return CLG_SUCCESS;
}

/* ----------------------------------------------------------------- helpers */

typedef struct runner {
  const char *device;
  clg_context *ctx;
  int ctx_failed;
  int passed, failed, skipped;
  int device_skipped; /* of the skipped: refused for the device's floats */
  int device_error;   /* a failure came from the device/OpenCL */
  int quiet;          /* selftest: no line per folder, no notes */
  char first_fail[512];
} runner;

/* Does the device flush subnormal floats or lack doubles? Where it does,
 * the library refuses the reductions it cannot give bit for bit
 * (CLG_ERROR_UNSUPPORTED_DTYPE, clgather.h: clg_supported()), and a node
 * test it refused so did not run: a SKIP, not a FAIL. Asked of the device
 * here, not read from the message. */
static int device_inexact(clg_context *ctx) {
  cl_device_id dev = clg_context_device(ctx);
  cl_device_fp_config fp = 0;
  char ext[4096] = "";
  if (clGetDeviceInfo(dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp,
                      NULL) != CL_SUCCESS ||
      clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext,
                      NULL) != CL_SUCCESS)
    return 0;
  return !(fp & CL_FP_DENORM) || strstr(ext, "cl_khr_fp64") == NULL;
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; ++i)
    free(names[i]);
  free(names);
}

/* Sorted names of sub-directories of `dir` that start with `prefix`. */
static int list_dirs(const char *dir, const char *prefix, char ***out,
                     size_t *count, char *err, size_t errlen) {
  *out = NULL;
  *count = 0;
  DIR *d = opendir(dir);
  if (d == NULL)
    return cli_fail(err, errlen, "cannot open folder '%s': %s", dir,
                    strerror(errno));
  char **names = NULL;
  size_t n = 0, cap = 0;
  size_t plen = strlen(prefix);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, prefix, plen) != 0)
      continue;
    size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
    char *full = malloc(len);
    if (full == NULL)
      break;
    snprintf(full, len, "%s/%s", dir, e->d_name);
    if (!is_dir(full)) {
      free(full);
      continue;
    }
    if (n == cap) {
      size_t ncap = cap ? cap * 2 : 16;
      char **grown = realloc(names, ncap * sizeof *names);
      if (grown == NULL) {
        free(full);
        break;
      }
      names = grown;
      cap = ncap;
    }
    names[n++] = full;
  }
  closedir(d);
  if (n > 0)
    qsort(names, n, sizeof *names, cmp_str);
  *out = names;
  *count = n;
  return 0;
}

/* Read PREFIX_0.pb, PREFIX_1.pb, ... from `dir` until one is missing; with
 * `names`, also each TensorProto's name (malloc'ed). */
static int read_numbered(const char *dir, const char *prefix,
                         cli_tensor *tensors, char **names, size_t *count,
                         char *err, size_t errlen) {
  *count = 0;
  for (size_t k = 0; k < MAX_TENSORS; ++k) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%zu.pb", dir, prefix, k);
    if (!is_file(path))
      return 0;
    if (names != NULL
            ? onnx_tensor_read_named(path, &tensors[k], &names[k], err,
                                     errlen) != 0
            : onnx_tensor_read(path, &tensors[k], err, errlen) != 0)
      return -1;
    *count = k + 1;
  }
  return 0;
}

static void free_tensors(cli_tensor *t, size_t n) {
  for (size_t i = 0; i < n; ++i)
    cli_tensor_free(&t[i]);
}

static int compare_tensor(const cli_tensor *got, const cli_tensor *want,
                          size_t which, char *err, size_t errlen) {
  if (got->dtype != want->dtype)
    return cli_fail(err, errlen, "output %zu has dtype %s, expected %s", which,
                    clg_dtype_name(got->dtype), clg_dtype_name(want->dtype));
  int same_shape = got->rank == want->rank;
  for (int32_t i = 0; same_shape && i < got->rank; ++i)
    same_shape = got->shape[i] == want->shape[i];
  if (!same_shape) {
    char a[CLG_MAX_RANK * 24 + 4], b[CLG_MAX_RANK * 24 + 4];
    cli_shape_string(got->rank, got->shape, a, sizeof a);
    cli_shape_string(want->rank, want->shape, b, sizeof b);
    return cli_fail(err, errlen, "output %zu has shape %s, expected %s", which,
                    a, b);
  }
  if (got->nbytes != want->nbytes)
    return cli_fail(err, errlen, "output %zu has %zu bytes, expected %zu",
                    which, got->nbytes, want->nbytes);
  const unsigned char *g = got->data, *w = want->data;
  for (size_t i = 0; i < got->nbytes; ++i) {
    if (g[i] != w[i]) {
      size_t es = clg_dtype_size(got->dtype);
      return cli_fail(err, errlen, "output %zu differs from the expected "
                      "output at element %zu (byte %zu)", which,
                      es ? i / es : i, i);
    }
  }
  return 0;
}

static clg_context *runner_context(runner *r, char *err, size_t errlen) {
  if (r->ctx == NULL && !r->ctx_failed) {
    clg_status st = clg_context_create_default(r->device, &r->ctx);
    if (st != CLG_SUCCESS) {
      cli_fail(err, errlen, "%s", cli_library_message(st));
      r->ctx_failed = 1;
      r->ctx = NULL;
    } else /* the device's kernels, as selftest */
      (void)clg_context_set_option(r->ctx, CLG_OPTION_HOST_RUN_BYTES, 0);
  }
  return r->ctx;
}

static const char *base_name(const char *path, char *buf, size_t buflen) {
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/')
    --n;
  size_t start = n;
  while (start > 0 && path[start - 1] != '/')
    --start;
  size_t len = n - start;
  if (len >= buflen)
    len = buflen - 1;
  memcpy(buf, path + start, len);
  buf[len] = '\0';
  return buf;
}

/* The folder being run: its graph, the node of the family and the graph's
 * own values (initializers, Constant outputs). */
typedef struct folder {
  const Onnx__GraphProto *g;
  const Onnx__NodeProto *node;
  onnx_op op;
  onnx_values own;
} folder;

/* The value `name` has in a data set: an input file's, else the graph's. */
static const cli_tensor *lookup(const onnx_values *bound,
                                const onnx_values *own, const char *name) {
  const cli_tensor *t = onnx_values_find(bound, name);
  return t != NULL ? t : onnx_values_find(own, name);
}

/* Compare the graph's outputs (the node's, or with a graph that names
 * none, hand-written node tests, the node's one output) with want[]. */
static int check_outputs(const folder *f, const onnx_values *bound,
                         const cli_tensor *got, const cli_tensor *want,
                         size_t n_want, char *err, size_t errlen) {
  const Onnx__GraphProto *g = f->g;
  if (g->n_output == 0) {
    if (n_want != f->op.n_outputs)
      return cli_fail(err, errlen, "%s has %zu outputs, found %zu expected",
                      f->op.info->name, f->op.n_outputs, n_want);
    return compare_tensor(got, &want[0], 0, err, errlen);
  }
  if (n_want != g->n_output)
    return cli_fail(err, errlen, "the graph has %zu outputs, found %zu "
                    "expected", g->n_output, n_want);
  for (size_t k = 0; k < n_want; ++k) {
    const char *name = g->output[k] != NULL && g->output[k]->name != NULL
                           ? g->output[k]->name
                           : "";
    const cli_tensor *t =
        f->node->n_output > 0 && strcmp(name, f->node->output[0]) == 0
            ? got
            : lookup(bound, &f->own, name);
    if (t == NULL)
      return cli_fail(err, errlen, "graph output '%s' has no value", name);
    if (compare_tensor(t, &want[k], k, err, errlen) != 0)
      return -1;
  }
  return 0;
}

/* Run one data set folder: 0 when the outputs match, else -1 with the
 * reason in err and, when the library failed, its status in *st. */
static int run_set(const folder *f, clg_context *ctx, const char *set_dir,
                   clg_status *st, char *err, size_t errlen) {
  cli_tensor in[MAX_TENSORS], want[MAX_TENSORS], got[1];
  char *names[MAX_TENSORS];
  memset(in, 0, sizeof in);
  memset(want, 0, sizeof want);
  memset(got, 0, sizeof got);
  memset(names, 0, sizeof names);
  onnx_values bound;
  memset(&bound, 0, sizeof bound);
  size_t n_in = 0, n_want = 0;
  const onnx_op *op = &f->op;
  const cli_tensor *operand[3] = {NULL, NULL, NULL};
  int rc = -1;
  *st = CLG_SUCCESS;
  if (read_numbered(set_dir, "input", in, names, &n_in, err, errlen) != 0 ||
      read_numbered(set_dir, "output", want, NULL, &n_want, err, errlen) != 0)
    goto done;
  if (f->g->n_input == 0 && n_in > 0) {
    /* A graph naming no inputs (hand-written node tests): the files are
     * the node's inputs, in order. */
    if (n_in != op->n_inputs) {
      cli_fail(err, errlen, "%s takes %zu inputs, found %zu", op->info->name,
               op->n_inputs, n_in);
      goto done;
    }
    for (size_t k = 0; k < op->n_inputs; ++k)
      operand[k] = &in[k];
  } else {
    if (onnx_bind_inputs(f->g, &f->own, in, names, n_in, &bound, err,
                         errlen) != 0)
      goto done;
    if (f->node->n_input != op->n_inputs) {
      cli_fail(err, errlen, "the %s node has %zu inputs, expected %zu",
               op->info->name, f->node->n_input, op->n_inputs);
      goto done;
    }
    for (size_t k = 0; k < op->n_inputs; ++k) {
      operand[k] = lookup(&bound, &f->own, f->node->input[k]);
      if (operand[k] == NULL) {
        cli_fail(err, errlen, "input '%s' of %s has no value: no graph "
                 "input, initializer or Constant has that name",
                 f->node->input[k], op->info->name);
        goto done;
      }
    }
  }
  if ((*st = run_op(op, ctx, f->node, operand, got, err, errlen)) ==
      CLG_SUCCESS)
    rc = check_outputs(f, &bound, &got[0], want, n_want, err, errlen);
done:
  free_tensors(in, n_in);
  free_tensors(want, n_want);
  free_tensors(got, 1);
  for (size_t k = 0; k < MAX_TENSORS; ++k)
    free(names[k]);
  onnx_values_free(&bound);
  return rc;
}

/* Run one test folder; prints its PASS/FAIL/SKIP line. Returns -1 only when
 * no device can be had at all (the caller stops). */
static int run_folder(runner *r, const char *dir) {
  char name[256], err[1024], path[4096];
  base_name(dir, name, sizeof name);
  Onnx__ModelProto *model = NULL;
  folder f;
  memset(&f, 0, sizeof f);
  char **sets = NULL;
  size_t n_sets = 0;
  int result = 0, skip = 0;

  snprintf(path, sizeof path, "%s/model.onnx", dir);
  if (onnx_model_read(path, &model, err, sizeof err) != 0)
    goto fail;
  f.g = model->graph;
  if (f.g == NULL || f.g->n_node == 0) {
    cli_fail(err, sizeof err, "model has no node");
    goto fail;
  }
  for (size_t i = 0; i < f.g->n_node; ++i)
    if (f.g->node[i] == NULL || f.g->node[i]->op_type == NULL) {
      cli_fail(err, sizeof err, "node %zu of the model has no op_type", i);
      goto fail;
    }
  size_t at = 0;
  if (!onnx_pick_node(f.g, &at, &f.op, err, sizeof err)) {
    skip = 1;
    goto fail;
  }
  f.node = f.g->node[at];
  if (onnx_graph_values(f.g, dir, &f.own, err, sizeof err) != 0 ||
      list_dirs(dir, "test_data_set_", &sets, &n_sets, err, sizeof err) != 0)
    goto fail;
  if (n_sets == 0) {
    cli_fail(err, sizeof err, "no test_data_set_* folder");
    goto fail;
  }
  clg_context *ctx = runner_context(r, err, sizeof err);
  if (ctx == NULL) {
    if (!r->quiet)
      fprintf(stderr, PROG ": %s\n", err);
    result = -1;
    goto done;
  }
  for (size_t s = 0; s < n_sets; ++s) {
    char set_name[128], why[768];
    clg_status st;
    if (run_set(&f, ctx, sets[s], &st, why, sizeof why) != 0) {
      if (st != CLG_SUCCESS && cli_exit_for_status(st) == CLI_EXIT_DEVICE)
        r->device_error = 1;
      snprintf(err, sizeof err, "%s: %s",
               base_name(sets[s], set_name, sizeof set_name), why);
      if (st == CLG_ERROR_UNSUPPORTED_DTYPE && device_inexact(ctx)) {
        skip = 1;
        r->device_skipped++;
      }
      goto fail;
    }
  }
  if (!r->quiet)
    printf("PASS %s\n", name);
  r->passed++;
  goto done;
fail:
  if (!r->quiet)
    printf("%s %s: %s\n", skip ? "SKIP" : "FAIL", name, err);
  if (skip)
    r->skipped++;
  else if (r->failed++ == 0) {
    /* "name: err", cut to the buffer */
    size_t n = strlen(name) < 200 ? strlen(name) : 200;
    memcpy(r->first_fail, name, n);
    memcpy(r->first_fail + n, ": ", 2);
    size_t m = strlen(err), room = sizeof r->first_fail - n - 3;
    memcpy(r->first_fail + n + 2, err, m < room ? m : room);
    r->first_fail[n + 2 + (m < room ? m : room)] = '\0';
  }
done:
  if (!r->quiet)
    fflush(stdout);
  free_names(sets, n_sets);
  onnx_values_free(&f.own);
  onnx_model_free(model);
  return result;
}

/* 1 when dir/model.onnx reads and has a node of the family. */
static int has_family_node(const char *dir) {
  char path[4096], err[256];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  Onnx__ModelProto *model = NULL;
  if (onnx_model_read(path, &model, err, sizeof err) != 0)
    return 0;
  int found = 0;
  const Onnx__GraphProto *g = model->graph;
  for (size_t i = 0; g != NULL && i < g->n_node && !found; ++i) {
    onnx_op e;
    found = g->node[i] != NULL && g->node[i]->op_type != NULL &&
            onnx_find_op(g->node[i], &e);
  }
  onnx_model_free(model);
  return found;
}

/* Run the folders under `root` whose names start with `prefix` (with
 * `by_model`, only those whose model has a node of the family). Returns
 * how many were run, or -1 when the caller must stop (*aborted) or the
 * folder cannot be listed. */
static long run_under(runner *r, const char *root, const char *prefix,
                      int by_model, int *aborted) {
  char **found = NULL;
  size_t n_found = 0;
  char err[1024];
  if (list_dirs(root, prefix, &found, &n_found, err, sizeof err) != 0) {
    if (!r->quiet)
      fprintf(stderr, PROG ": ONNX test data: %s (set CLGATHER_ONNX_TESTDATA "
            "or pass folders)\n", err);
    return -1;
  }
  long ran = 0;
  for (size_t i = 0; i < n_found && !*aborted; ++i) {
    if (by_model && !has_family_node(found[i]))
      continue;
    ++ran;
    *aborted = run_folder(r, found[i]) != 0;
  }
  free_names(found, n_found);
  return ran;
}

/* The default run: ONNX's node tests test_gather* and test_scatter* under
 * the node folder, then the folders of pytorch-converted and
 * pytorch-operator beside it (real exported models) that hold a node of the
 * family. `root` is the node folder, or the data folder holding node/. */
static void run_installed(runner *r, const char *root, int *aborted) {
  char node_dir[4096], data_dir[4096];
  snprintf(node_dir, sizeof node_dir, "%s/node", root);
  if (is_dir(node_dir)) {
    snprintf(data_dir, sizeof data_dir, "%s", root);
  } else {
    snprintf(node_dir, sizeof node_dir, "%s", root);
    snprintf(data_dir, sizeof data_dir, "%s/..", root);
  }
  static const char *const prefixes[] = {"test_gather", "test_scatter"};
  long total = 0;
  for (size_t k = 0; k < 2 && !*aborted; ++k) {
    long ran = run_under(r, node_dir, prefixes[k], 0, aborted);
    if (ran < 0)
      return;
    total += ran;
  }
  if (total == 0 && !r->quiet)
    fprintf(stderr, PROG ": no test_gather* or test_scatter* folder under "
            "'%s'\n", node_dir);
  static const char *const real[] = {"pytorch-converted", "pytorch-operator"};
  for (size_t k = 0; k < 2 && !*aborted; ++k) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", data_dir, real[k]);
    if (is_dir(dir))
      run_under(r, dir, "test_", 1, aborted);
  }
}

/* ------------------------------------------------------------- selftest */

int cli_onnx_selftest(clg_context *ctx, cli_onnx_summary *sum) {
  runner r;
  memset(&r, 0, sizeof r);
  memset(sum, 0, sizeof *sum);
  r.ctx = ctx;
  r.quiet = 1;
  const char *root = getenv("CLGATHER_ONNX_TESTDATA");
  if (root == NULL || root[0] == '\0')
    root = DEFAULT_TESTDATA;
  snprintf(sum->root, sizeof sum->root, "%s", root);
  int aborted = 0;
  if (is_dir(root))
    run_installed(&r, root, &aborted);
  sum->passed = r.passed;
  sum->failed = r.failed;
  sum->skipped = r.skipped;
  sum->device_skipped = r.device_skipped;
  sum->device_error = r.device_error || aborted;
  memcpy(sum->first_fail, r.first_fail, sizeof sum->first_fail);
  return r.passed + r.failed;
}

/* -------------------------------------------------------------- command */

int cli_cmd_onnx_test(int argc, char **argv) {
  runner r;
  memset(&r, 0, sizeof r);
  const char **dirs = calloc((size_t)argc, sizeof *dirs);
  size_t n_dirs = 0;
  if (dirs == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return CLI_EXIT_DEVICE;
  }
  const cli_option opts[] = {{"--device", "-d", &r.device}};
  int n = 0, code = CLI_EXIT_OK;
  if (cli_parse_args(argc, argv, opts, sizeof opts / sizeof opts[0], dirs, argc,
                     "folders", &n, &code) != 0) {
    free(dirs);
    return code;
  }
  n_dirs = (size_t)n;

  int aborted = 0;
  if (n_dirs > 0) {
    for (size_t i = 0; i < n_dirs && !aborted; ++i)
      aborted = run_folder(&r, dirs[i]) != 0;
  } else {
    const char *root = getenv("CLGATHER_ONNX_TESTDATA");
    if (root == NULL || root[0] == '\0')
      root = DEFAULT_TESTDATA;
    run_installed(&r, root, &aborted);
  }
  free(dirs);
  clg_context_destroy(r.ctx);

  printf("%d passed, %d failed, %d skipped\n", r.passed, r.failed, r.skipped);
  fflush(stdout);
  if (aborted)
    code = CLI_EXIT_DEVICE;
  else if (r.failed > 0)
    code = r.device_error ? CLI_EXIT_DEVICE : CLI_EXIT_INPUT;
  else
    code = r.passed > 0 ? CLI_EXIT_OK : CLI_EXIT_INPUT;
  return code;
}
