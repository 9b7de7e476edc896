/*
 * `clgather onnx-test`: runs ONNX backend node test folders
 * (model.onnx, test_data_set_N folders of input_N.pb and output_N.pb) through the
 * library and compares the outputs byte for byte.
 *
 * Operators are the library's (clg_operators(), by ONNX op_type), run by
 * clg_run with the ONNX attributes of the clg_params fields each takes; any
 * other op is reported as SKIP.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <clgather/clgather.h>

#include "cli.h"
#include "onnx_pb.h"
#include "onnx_test.h"
#include "tensor_file.h"

#define PROG "clgather"
#define DEFAULT_TESTDATA "/usr/share/libonnx-testdata/data/node"
#define MAX_TENSORS 16

/* ------------------------------------------------------------- operators */

/* An operator of the family, run through clg_run: the library's registry
 * entry (clg_operators(), found by ONNX op_type) and the ONNX attributes
 * that fill the clg_params fields it takes. */
typedef struct op_entry {
  const clg_op_info *info;
  size_t n_inputs;
  size_t n_outputs;
} op_entry;

static clg_status lib_fail(clg_status st, char *err, size_t errlen) {
  cli_fail(err, errlen, "%s", cli_library_message(st));
  return st;
}

/* Runs one node of `op`: in[0] is data, in[1] indices; allocates and fills
 * out[0]. Returns CLG_SUCCESS, or a status with the message in err. */
static clg_status run_op(const op_entry *op, clg_context *ctx,
                         const Onnx__NodeProto *node, const cli_tensor *in,
                         cli_tensor *out, char *err, size_t errlen) {
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
  clg_status st = clg_output_shape(&params, in[0].rank, in[0].shape, in[1].rank,
                                   in[1].shape, &out_rank, out_shape);
  if (st != CLG_SUCCESS)
    return lib_fail(st, err, errlen);
  if (cli_tensor_alloc(&out[0], in[0].dtype, out_rank, out_shape, err,
                       errlen) != 0)
    return CLG_ERROR_INVALID_ARGUMENT;
  clg_tensor td =
      clg_tensor_host(in[0].dtype, in[0].rank, in[0].shape, in[0].data);
  clg_tensor ti =
      clg_tensor_host(in[1].dtype, in[1].rank, in[1].shape, in[1].data);
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
        clg_tensor_host(in[2].dtype, in[2].rank, in[2].shape, in[2].data);
    st = clg_scatter(ctx, &params, &sp, &td, &ti, &tu, &to, NULL, 0, NULL,
                     NULL);
  } else
    st = clg_run(ctx, &params, &td, &ti, &to, NULL, 0, NULL, NULL);
  if (st != CLG_SUCCESS)
    return lib_fail(st, err, errlen);
  return CLG_SUCCESS;
}

/* The registry entry of `op_type` into *e; false if the library has none.
 * The gathers take data and indices, the scatters also updates; each gives
 * one output. */
static bool find_op(const char *op_type, op_entry *e) {
  size_t n = 0;
  const clg_op_info *ops = clg_operators(&n);
  for (size_t i = 0; i < n; ++i)
    if (strcmp(ops[i].name, op_type) == 0) {
      *e = (op_entry){&ops[i], (ops[i].params & CLG_PARAM_SCATTER) ? 3 : 2,
                      1};
      return true;
    }
  return false;
}

/* ----------------------------------------------------------------- helpers */

typedef struct runner {
  const char *device;
  clg_context *ctx;
  int ctx_failed;
  int passed, failed, skipped;
  int device_error; /* a failure came from the device/OpenCL */
} runner;

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

/* Read PREFIX_0.pb, PREFIX_1.pb, ... from `dir` until one is missing. */
static int read_numbered(const char *dir, const char *prefix,
                         cli_tensor *tensors, size_t *count, char *err,
                         size_t errlen) {
  *count = 0;
  for (size_t k = 0; k < MAX_TENSORS; ++k) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%zu.pb", dir, prefix, k);
    if (!is_file(path))
      return 0;
    if (onnx_tensor_read(path, &tensors[k], err, errlen) != 0)
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
    }
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

/* Run one test folder; prints its PASS/FAIL/SKIP line. Returns -1 only when
 * no device can be had at all (the caller stops). */
static int run_folder(runner *r, const char *dir) {
  char name[256], err[1024], path[4096];
  base_name(dir, name, sizeof name);
  Onnx__ModelProto *model = NULL;
  char **sets = NULL;
  size_t n_sets = 0;
  int result = 0;

  snprintf(path, sizeof path, "%s/model.onnx", dir);
  if (onnx_model_read(path, &model, err, sizeof err) != 0) {
    printf("FAIL %s: %s\n", name, err);
    r->failed++;
    goto done;
  }
  if (model->graph == NULL || model->graph->n_node == 0 ||
      model->graph->node[0] == NULL || model->graph->node[0]->op_type == NULL) {
    printf("FAIL %s: model has no node\n", name);
    r->failed++;
    goto done;
  }
  const Onnx__NodeProto *node = model->graph->node[0];
  op_entry entry;
  const op_entry *op = find_op(node->op_type, &entry) ? &entry : NULL;
  if (op == NULL) {
    printf("SKIP %s: unsupported op %s\n", name, node->op_type);
    r->skipped++;
    goto done;
  }
  if (model->graph->n_node > 1) {
    printf("SKIP %s: graph has %zu nodes; only single-node tests are "
           "supported\n", name, model->graph->n_node);
    r->skipped++;
    goto done;
  }
  if (list_dirs(dir, "test_data_set_", &sets, &n_sets, err, sizeof err) != 0) {
    printf("FAIL %s: %s\n", name, err);
    r->failed++;
    goto done;
  }
  if (n_sets == 0) {
    printf("FAIL %s: no test_data_set_* folder\n", name);
    r->failed++;
    goto done;
  }
  clg_context *ctx = runner_context(r, err, sizeof err);
  if (ctx == NULL) {
    fprintf(stderr, PROG ": %s\n", err);
    result = -1;
    goto done;
  }
  for (size_t s = 0; s < n_sets; ++s) {
    cli_tensor in[MAX_TENSORS], want[MAX_TENSORS], got[MAX_TENSORS];
    size_t n_in = 0, n_want = 0;
    memset(in, 0, sizeof in);
    memset(want, 0, sizeof want);
    memset(got, 0, sizeof got);
    char set_name[256];
    base_name(sets[s], set_name, sizeof set_name);
    int ok = 0;
    clg_status st = CLG_SUCCESS;
    if (read_numbered(sets[s], "input", in, &n_in, err, sizeof err) != 0 ||
        read_numbered(sets[s], "output", want, &n_want, err,
                      sizeof err) != 0) {
      /* err is set */
    } else if (n_in != op->n_inputs) {
      cli_fail(err, sizeof err, "%s takes %zu inputs, found %zu", op->info->name,
               op->n_inputs, n_in);
    } else if (n_want != op->n_outputs) {
      cli_fail(err, sizeof err, "%s has %zu outputs, found %zu expected",
               op->info->name, op->n_outputs, n_want);
    } else if ((st = run_op(op, ctx, node, in, got, err, sizeof err)) !=
               CLG_SUCCESS) {
      if (cli_exit_for_status(st) == CLI_EXIT_DEVICE)
        r->device_error = 1;
    } else {
      ok = 1;
      for (size_t k = 0; k < n_want && ok; ++k)
        ok = compare_tensor(&got[k], &want[k], k, err, sizeof err) == 0;
    }
    free_tensors(in, n_in);
    free_tensors(want, n_want);
    free_tensors(got, MAX_TENSORS);
    if (!ok) {
      printf("FAIL %s: %s: %s\n", name, set_name, err);
      r->failed++;
      goto done;
    }
  }
  printf("PASS %s\n", name);
  r->passed++;
done:
  fflush(stdout);
  free_names(sets, n_sets);
  onnx_model_free(model);
  return result;
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
    /* The family's folders: test_gather* and test_scatter*. */
    static const char *const prefixes[] = {"test_gather", "test_scatter"};
    size_t total = 0;
    for (size_t k = 0; k < 2 && !aborted; ++k) {
      char **found = NULL;
      size_t n_found = 0;
      char err[1024];
      if (list_dirs(root, prefixes[k], &found, &n_found, err, sizeof err) !=
          0) {
        fprintf(stderr, PROG ": ONNX test data: %s (set "
                "CLGATHER_ONNX_TESTDATA or pass folders)\n", err);
        break;
      }
      total += n_found;
      for (size_t i = 0; i < n_found && !aborted; ++i)
        aborted = run_folder(&r, found[i]) != 0;
      free_names(found, n_found);
    }
    if (total == 0)
      fprintf(stderr, PROG ": no test_gather* or test_scatter* folder under "
              "'%s'\n", root);
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
