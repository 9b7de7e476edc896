/*
 * `clgather embedding-bag [options] WEIGHT INDICES -o OUT`: EmbeddingBag
 * (PyTorch's embedding_bag, TensorFlow's sparse_segment_sum / _mean /
 * _sqrt_n) through clg_embedding_bag() (clgather/clgather_bag.h). The
 * registry's CLG_PARAM_BAGS entry, which the family's clg_params path of
 * clgather.c cannot run, comes here.
 *
 * The bags: --offsets OFFSETS (PyTorch; --include-last-offset), or
 * --segment-ids IDS (TensorFlow; --num-segments K, default the last id + 1),
 * or, with neither, the rows of 2-D INDICES (fixed-size bags). The mode
 * defaults to mean, as in PyTorch. Every check of the bags and the indices
 * is the library's, made before any kernel runs; OUT is written (through
 * cli_output: an unnamed temporary file linked into place) only after a
 * success. Exit statuses as the other commands (cli.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tensor_file.h"

#define PROG "clgather"
#define CMD "embedding-bag"
#define FLAG_LAST "--include-last-offset"

int cli_parse_weight_format(const char *s, uint32_t *format) {
  static const char *const names[] = {"dense", "int8-rowwise", "int4-rowwise",
                                      "int2-rowwise"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (s != NULL && strcmp(s, names[i]) == 0) {
      *format = (uint32_t)i; /* CLG_BAG_WEIGHT_* */
      return 0;
    }
  return -1;
}

int cli_parse_bag_mode(const char *s, clg_bag_mode *mode) {
  static const char *const names[] = {"sum", "mean", "max", "sqrt_n"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (s != NULL && strcmp(s, names[i]) == 0) {
      *mode = (clg_bag_mode)i;
      return 0;
    }
  return -1;
}

/* The options taking a value; the flag --include-last-offset is taken out
 * of argv before cli_parse_args() (which knows only options with values)
 * sees it. */
typedef struct bag_args {
  const char *mode, *offsets, *segment_ids, *num_segments, *psw, *padding;
  const char *weight_format, *device, *out;
  bool include_last;
} bag_args;

static size_t bag_options(bag_args *a, cli_option *opts, bool with_flag) {
  size_t n = 0;
  opts[n++] = (cli_option){"--mode", "-m", &a->mode};
  opts[n++] = (cli_option){"--offsets", NULL, &a->offsets};
  if (with_flag)
    opts[n++] = (cli_option){FLAG_LAST, NULL, NULL};
  opts[n++] = (cli_option){"--segment-ids", NULL, &a->segment_ids};
  opts[n++] = (cli_option){"--num-segments", NULL, &a->num_segments};
  opts[n++] = (cli_option){"--per-sample-weights", NULL, &a->psw};
  opts[n++] = (cli_option){"--padding-idx", NULL, &a->padding};
  opts[n++] = (cli_option){"--weight-format", NULL, &a->weight_format};
  opts[n++] = (cli_option){"--device", "-d", &a->device};
  opts[n++] = (cli_option){"--output", "-o", &a->out};
  return n;
}

/* Copies argv to kept[] without the flag (setting a->include_last), skipping
 * the value of each option that takes one, up to "--". -h and --help stop
 * here, with the help (which lists the flag too). Returns 0 to go on
 * (*kept_argc set), else 1 with *code to return. */
static int strip_flag(int argc, char **argv, bag_args *a, char **kept,
                      int *kept_argc, int *code) {
  cli_option opts[12];
  size_t n_opts = bag_options(a, opts, false);
  int n = 0;
  kept[n++] = argv[0];
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (strcmp(arg, "--") == 0) {
      while (i < argc)
        kept[n++] = argv[i++];
      break;
    }
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cli_option all[12];
      bag_args scratch;
      size_t n_all = bag_options(&scratch, all, true);
      cli_print_command_help(CMD, all, n_all);
      *code = CLI_EXIT_OK;
      return 1;
    }
    if (strcmp(arg, FLAG_LAST) == 0) {
      a->include_last = true;
      continue;
    }
    if (strncmp(arg, FLAG_LAST "=", sizeof FLAG_LAST) == 0) {
      *code =
          cli_usage_error("option '" FLAG_LAST "' takes no value: '%s'", arg);
      return 1;
    }
    int j = i, m = 0;
    for (size_t k = 0; k < n_opts && m == 0; ++k) {
      const char *v = NULL;
      j = i;
      m = cli_match_option(argc, argv, &j, opts[k].longname, opts[k].shortname,
                           &v);
    }
    kept[n++] = argv[i];
    if (m > 0 && j > i) /* a separate value: copied as it is */
      kept[n++] = argv[++i];
  }
  kept[n] = NULL;
  *kept_argc = n;
  return 0;
}

/* The number of segments when --num-segments is not given: the last id
 * + 1, 0 for no id (TensorFlow's default). Ids of another type or rank are
 * the library's to refuse: 0 here. */
static int64_t default_num_segments(const cli_tensor *ids) {
  size_t es = ids->dtype == CLG_DTYPE_INT32   ? 4
              : ids->dtype == CLG_DTYPE_INT64 ? 8
                                              : 0;
  if (es == 0 || ids->rank != 1 || ids->nbytes < es)
    return 0;
  const unsigned char *p = (const unsigned char *)ids->data + ids->nbytes - es;
  int64_t last;
  if (es == 4) {
    int32_t v;
    memcpy(&v, p, 4);
    last = v;
  } else
    memcpy(&last, p, 8);
  /* a negative last id is refused by the library, whatever B is */
  return last < 0 ? 0 : last == INT64_MAX ? INT64_MAX : last + 1;
}

/* The output's columns: WEIGHT's, or those of its rows quantized in
 * bp->weight_format (clgather_bag.h: row_bytes less the scale and bias,
 * times the codes a byte); a row too short for them is the library's to
 * refuse (0 here). */
static int64_t bag_dim(const clg_bag_params *bp, int64_t cols) {
  static const int64_t tail[4] = {0, 8, 4, 4}, per_byte[4] = {1, 1, 2, 4};
  uint32_t f = bp->weight_format;
  return cols < tail[f] ? 0 : (cols - tail[f]) * per_byte[f];
}

static clg_tensor host_tensor(const cli_tensor *t) {
  return clg_tensor_host(t->dtype, t->rank, t->shape, t->data);
}

int cli_cmd_embedding_bag(int argc, char **argv,
                          void (*set_temp)(const char *path)) {
  double t_start = cli_now();
  bag_args a;
  memset(&a, 0, sizeof a);
  char **kept = calloc((size_t)argc + 1, sizeof *kept);
  if (kept == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return CLI_EXIT_DEVICE;
  }
  int kargc = 0, code = CLI_EXIT_OK, npos = 0;
  const char *pos[2];
  cli_option opts[12];
  size_t n_opts = bag_options(&a, opts, false);
  if (strip_flag(argc, argv, &a, kept, &kargc, &code) != 0 ||
      cli_parse_args(kargc, kept, opts, n_opts, pos, 2, "WEIGHT and INDICES",
                     &npos, &code) != 0) {
    free(kept);
    return code;
  }
  free(kept);
  if (npos < 2)
    return cli_usage_error(CMD " needs %s", npos == 0
                                                ? "WEIGHT and INDICES files"
                                                : "an INDICES file");
  if (a.out == NULL || a.out[0] == '\0')
    return cli_usage_error(CMD " needs an output file: -o OUT");
  clg_bag_params bp;
  memset(&bp, 0, sizeof bp);
  bp.mode = CLG_BAG_MEAN; /* PyTorch's default */
  if (a.mode != NULL && cli_parse_bag_mode(a.mode, &bp.mode) != 0)
    return cli_usage_error("invalid --mode value '%s' (expected sum, mean, "
                           "max or sqrt_n)",
                           a.mode);
  if (a.weight_format != NULL &&
      cli_parse_weight_format(a.weight_format, &bp.weight_format) != 0)
    return cli_usage_error("invalid --weight-format value '%s' (expected "
                           "dense, int8-rowwise, int4-rowwise or "
                           "int2-rowwise)",
                           a.weight_format);
  if (a.padding != NULL) {
    if (cli_parse_int64(a.padding, &bp.padding_idx) != 0)
      return cli_usage_error(
          "invalid --padding-idx value '%s' (expected an integer)", a.padding);
    bp.flags |= CLG_BAG_PADDING_IDX;
  }
  int64_t num_segments = -1;
  if (a.num_segments != NULL &&
      (cli_parse_int64(a.num_segments, &num_segments) != 0 || num_segments < 0))
    return cli_usage_error("invalid --num-segments value '%s' (expected a "
                           "non-negative integer)",
                           a.num_segments);
  if (a.offsets != NULL && a.segment_ids != NULL)
    return cli_usage_error("--offsets and --segment-ids are two ways to give "
                           "the bags: give one");
  if (a.num_segments != NULL && a.segment_ids == NULL)
    return cli_usage_error("--num-segments goes with --segment-ids");
  if (a.include_last && a.offsets == NULL)
    return cli_usage_error(FLAG_LAST " goes with --offsets");
  if (a.include_last)
    bp.flags |= CLG_BAG_INCLUDE_LAST_OFFSET;
  bp.form = a.offsets       ? CLG_BAGS_OFFSETS
            : a.segment_ids ? CLG_BAGS_SEGMENT_IDS
                            : CLG_BAGS_FIXED;

  char err[1024];
  /* weight, indices, bags (offsets or ids), per-sample weights */
  cli_tensor in[4];
  const char *paths[4] = {pos[0], pos[1], a.offsets ? a.offsets : a.segment_ids,
                          a.psw};
  if ((code = cli_check_operands(paths, 4, a.out)) != 0)
    return code;
  cli_output out;
  memset(in, 0, sizeof in);
  memset(&out, 0, sizeof out);
  clg_context *ctx = NULL;
  code = CLI_EXIT_INPUT;
  for (int i = 0; i < 4; ++i)
    if (paths[i] != NULL &&
        cli_tensor_open(paths[i], &in[i], err, sizeof err) != 0) {
      fprintf(stderr, PROG ": %s\n", err);
      goto done;
    }
  const cli_tensor *w = &in[0], *idx = &in[1];
  if (bp.form == CLG_BAGS_FIXED && idx->rank == 1) {
    code = cli_usage_error(CMD ": 1-D INDICES need their bags: --offsets "
                               "OFFSETS or --segment-ids IDS (2-D INDICES "
                               "are fixed-size bags, one per row)");
    goto done;
  }
  if (cli_tensor_check_writable(a.out, w, err, sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    goto done;
  }
  /* OUT [B, dim]; shapes the library refuses (a weight that is not 2-D,
   * an indices rank the form does not take) get a placeholder B or dim
   * and the library's message. */
  int64_t oshape[2] = {0, w->rank == 2 ? bag_dim(&bp, w->shape[1]) : 0};
  if (bp.form == CLG_BAGS_FIXED)
    oshape[0] = idx->rank == 2 ? idx->shape[0] : 0;
  else if (bp.form == CLG_BAGS_OFFSETS) {
    int64_t nb = in[2].rank == 1 ? in[2].shape[0] : 0;
    oshape[0] = a.include_last && nb > 0 ? nb - 1 : nb;
  } else
    oshape[0] = num_segments >= 0 ? num_segments : default_num_segments(&in[2]);
  clg_status st = clg_context_create_default(a.device, &ctx);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, PROG ": %s\n", cli_library_message(st));
    code = cli_exit_for_status(st);
    goto done;
  }
  cli_verbose_device(ctx);
  /* float32 from a quantized table (clgather_bag.h), else WEIGHT's type */
  clg_dtype odt = bp.weight_format ? CLG_DTYPE_FLOAT : w->dtype;
  if (cli_output_begin(&out, a.out, odt, 2, oshape, err, sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    goto done;
  }
  set_temp(cli_output_temp_path(&out));
  clg_tensor tw = host_tensor(w), ti = host_tensor(idx),
             tb = host_tensor(&in[2]), tp = host_tensor(&in[3]);
  clg_tensor to =
      clg_tensor_host(out.t.dtype, out.t.rank, out.t.shape, out.t.data);
  /* Every check (bags, then each index) before any kernel: on an error
   * the temporary file is dropped and OUT is as it was. */
  double t_read = cli_now() - t_start, t0 = cli_now();
  cli_notice *notice = cli_notice_start(ctx);
  st = clg_embedding_bag(ctx, &bp, &tw, &ti, paths[2] ? &tb : NULL,
                         a.psw ? &tp : NULL, &to, NULL, 0, NULL, NULL);
  cli_notice_stop(notice);
  double t_run = cli_now() - t0;
  if (st != CLG_SUCCESS) {
    fprintf(stderr, PROG ": %s\n", cli_library_message(st));
    code = cli_exit_for_status(st);
    goto done;
  }
  set_temp(NULL); /* put in place next: no longer ours to remove */
  t0 = cli_now();
  if (cli_output_commit(&out, a.out, err, sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    goto done;
  }
  cli_verbose_run(ctx, "embedding-bag", t_read, t_run, cli_now() - t0);
  code = CLI_EXIT_OK;
done:
  set_temp(NULL);
  cli_output_discard(&out);
  clg_context_destroy(ctx);
  for (int i = 0; i < 4; ++i)
    cli_tensor_free(&in[i]);
  return code;
}
