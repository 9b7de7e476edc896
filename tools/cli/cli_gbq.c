/*
 * `clgather gather-block-quantized [options] DATA INDICES SCALES -o OUT`:
 * ONNX Runtime's com.microsoft GatherBlockQuantized through
 * clg_gather_block_quantized() (clgather/clgather_quantized.h). Its
 * registry line (host/ops/operators.def) is CLG_PARAM_GBQ's: it takes no
 * clg_params, so clgather.c dispatches here instead of to the family's
 * generic command.
 *
 * Files: a .npy of uint8 cannot say that its values are 4-bit, so for
 * --kind uint4 and int4 DATA and --zero-points hold one value a byte in the
 * values' own shape (uint4: uint8 0..15; int4: int8 -8..7), and this
 * command packs them two a byte over the whole tensor as the library takes
 * them. --kind uint8 files are passed as they are: ONNX Runtime's layout
 * (with --bits 4, DATA's last axis counts bytes, two values each). Every
 * check of the operands and the indices is the library's, made before any
 * kernel runs; OUT is written (through cli_output) only after a success.
 * Exit statuses as the other commands (cli.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tensor_file.h"

#define PROG "clgather"
#define CMD "gather-block-quantized"

typedef struct gbq_args {
  const char *kind, *bits, *gather_axis, *quantize_axis, *block_size;
  const char *zero_points, *device, *out;
} gbq_args;

static size_t gbq_options(gbq_args *a, cli_option *opts) {
  size_t n = 0;
  opts[n++] = (cli_option){"--kind", NULL, &a->kind};
  opts[n++] = (cli_option){"--bits", NULL, &a->bits};
  opts[n++] = (cli_option){"--gather-axis", NULL, &a->gather_axis};
  opts[n++] = (cli_option){"--quantize-axis", NULL, &a->quantize_axis};
  opts[n++] = (cli_option){"--block-size", NULL, &a->block_size};
  opts[n++] = (cli_option){"--zero-points", NULL, &a->zero_points};
  opts[n++] = (cli_option){"--device", "-d", &a->device};
  opts[n++] = (cli_option){"--output", "-o", &a->out};
  return n;
}

int cli_parse_gbq_kind(const char *s, uint32_t *kind) {
  static const char *const names[] = {"uint8", "uint4", "int4"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (s != NULL && strcmp(s, names[i]) == 0) {
      *kind = (uint32_t)i; /* CLG_GBQ_* */
      return 0;
    }
  return -1;
}

/* A 4-bit kind's file of one value a byte (uint4: uint8 0..15; int4: int8
 * -8..7) packed as the library takes it: value e in byte e / 2, the low
 * nibble for even e. *packed is malloc'ed (at least one byte). 0, or -1
 * with the message in err (the first value out of range by position). */
static int pack_nibbles(const cli_tensor *t, const char *what, uint32_t kind,
                        unsigned char **packed, char *err, size_t errlen) {
  bool sign = kind == CLG_GBQ_INT4;
  clg_dtype want = sign ? CLG_DTYPE_INT8 : CLG_DTYPE_UINT8;
  if (t->dtype != want) {
    snprintf(err, errlen,
             "%s of --kind %s holds one value a byte: dtype %s (values "
             "%s), not %s",
             what, sign ? "int4" : "uint4", sign ? "int8" : "uint8",
             sign ? "-8..7" : "0..15", clg_dtype_name(t->dtype));
    return -1;
  }
  size_t n = t->nbytes; /* one byte a value */
  unsigned char *p = calloc(n / 2 + 1, 1);
  if (p == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  const unsigned char *v = t->data;
  for (size_t e = 0; e < n; ++e) {
    int x = sign ? (int)(signed char)v[e] : (int)v[e];
    if (x < (sign ? -8 : 0) || x > (sign ? 7 : 15)) {
      snprintf(err, errlen,
               "%s: value %d at flat position %zu is outside %s's range "
               "[%d, %d]",
               what, x, e, sign ? "int4" : "uint4", sign ? -8 : 0,
               sign ? 7 : 15);
      free(p);
      return -1;
    }
    p[e / 2] |= (unsigned char)((v[e] & 0xFu) << (e % 2 ? 4 : 0));
  }
  *packed = p;
  return 0;
}

int cli_cmd_gather_block_quantized(int argc, char **argv,
                                   void (*set_temp)(const char *path)) {
  double t_start = cli_now();
  gbq_args a;
  memset(&a, 0, sizeof a);
  cli_option opts[8];
  size_t n_opts = gbq_options(&a, opts);
  int code = CLI_EXIT_OK, npos = 0;
  const char *pos[3];
  if (cli_parse_args(argc, argv, opts, n_opts, pos, 3,
                     "DATA, INDICES and SCALES", &npos, &code) != 0)
    return code;
  if (npos < 3)
    return cli_usage_error(CMD " needs %s",
                           npos == 0   ? "DATA, INDICES and SCALES files"
                           : npos == 1 ? "INDICES and SCALES files"
                                       : "a SCALES file");
  if (a.out == NULL || a.out[0] == '\0')
    return cli_usage_error(CMD " needs an output file: -o OUT");
  clg_gbq_params gp;
  memset(&gp, 0, sizeof gp);
  gp.kind = CLG_GBQ_UINT8;
  gp.bits = 4; /* ONNX Runtime's default */
  gp.block_size = 128;
  gp.quantize_axis = -1; /* the last axis (rank 2: ONNX Runtime's 1) */
  if (a.kind != NULL && cli_parse_gbq_kind(a.kind, &gp.kind) != 0)
    return cli_usage_error("invalid --kind value '%s' (expected uint8, "
                           "uint4 or int4)",
                           a.kind);
  int64_t bits = 4;
  if (a.bits != NULL &&
      (cli_parse_int64(a.bits, &bits) != 0 || (bits != 8 && bits != 4)))
    return cli_usage_error("invalid --bits value '%s' (expected 8 or 4)",
                           a.bits);
  gp.bits = (int32_t)bits;
  if (gp.kind != CLG_GBQ_UINT8 && gp.bits != 4)
    return cli_usage_error("--kind %s takes --bits 4 only", a.kind);
  const struct {
    const char *name, *value;
    int64_t *dst;
  } ints[3] = {{"--gather-axis", a.gather_axis, &gp.gather_axis},
               {"--quantize-axis", a.quantize_axis, &gp.quantize_axis},
               {"--block-size", a.block_size, &gp.block_size}};
  for (int i = 0; i < 3; ++i)
    if (ints[i].value != NULL && cli_parse_int64(ints[i].value, ints[i].dst))
      return cli_usage_error("invalid %s value '%s' (expected an integer)",
                             ints[i].name, ints[i].value);

  char err[1024];
  /* data, indices, scales, zero points */
  cli_tensor in[4];
  const char *paths[4] = {pos[0], pos[1], pos[2], a.zero_points};
  if ((code = cli_check_operands(paths, 4, a.out)) != 0)
    return code;
  unsigned char *packed[2] = {NULL, NULL}; /* data, zero points (4-bit) */
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
  const cli_tensor *d = &in[0], *idx = &in[1], *sc = &in[2];
  bool four = gp.kind != CLG_GBQ_UINT8;
  if (four) {
    for (int i = 0; i < 2; ++i)
      if (paths[3 * i] != NULL &&
          pack_nibbles(&in[3 * i], i ? "ZERO_POINTS" : "DATA", gp.kind,
                       &packed[i], err, sizeof err) != 0) {
        fprintf(stderr, PROG ": %s\n", err);
        goto done;
      }
  }
  /* The values' shape V: DATA's, or, for ONNX Runtime's 4-bit uint8 rows,
   * two values a byte of the last axis. */
  int32_t r = d->rank;
  int64_t v[CLG_MAX_RANK];
  memcpy(v, d->shape, sizeof v);
  if (!four && gp.bits == 4 && r > 0)
    v[r - 1] = v[r - 1] > INT64_MAX / 2 ? v[r - 1] : 2 * v[r - 1];
  /* OUT: V[:ga] + INDICES' shape + V[ga+1:]. An axis or rank the library
   * refuses gets INDICES' shape as a placeholder, and the library's
   * message. */
  int64_t ga = gp.gather_axis < 0 ? gp.gather_axis + r : gp.gather_axis;
  int32_t orank = idx->rank;
  int64_t oshape[CLG_MAX_RANK];
  memcpy(oshape, idx->shape, sizeof oshape);
  if (r > 0 && ga >= 0 && ga < r && r - 1 + idx->rank <= CLG_MAX_RANK) {
    orank = 0;
    for (int64_t k = 0; k < r; ++k)
      if (k != ga)
        oshape[orank++] = v[k];
      else
        for (int32_t j = 0; j < idx->rank; ++j)
          oshape[orank++] = idx->shape[j];
  }
  /* OUT in SCALES' type (both formats write float32 and float16); a type
   * the library refuses: float32 here, and the library's message */
  clg_dtype odt =
      sc->dtype == CLG_DTYPE_FLOAT16 ? CLG_DTYPE_FLOAT16 : CLG_DTYPE_FLOAT;
  clg_status st = clg_context_create_default(a.device, &ctx);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, PROG ": %s\n", cli_library_message(st));
    code = cli_exit_for_status(st);
    goto done;
  }
  cli_verbose_device(ctx);
  if (cli_output_begin(&out, a.out, odt, orank, oshape, err, sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    goto done;
  }
  set_temp(cli_output_temp_path(&out));
  /* the 4-bit kinds: uint8 storage in V's shape; uint8: DATA as it is
   * (another type gets the library's message) */
  clg_tensor td = clg_tensor_host(four ? CLG_DTYPE_UINT8 : d->dtype, d->rank,
                                  d->shape, four ? packed[0] : d->data);
  clg_tensor ti = clg_tensor_host(idx->dtype, idx->rank, idx->shape, idx->data);
  clg_tensor ts = clg_tensor_host(sc->dtype, sc->rank, sc->shape, sc->data);
  clg_tensor tz =
      clg_tensor_host(four ? CLG_DTYPE_UINT8 : in[3].dtype, in[3].rank,
                      in[3].shape, four ? packed[1] : in[3].data);
  clg_tensor to =
      clg_tensor_host(out.t.dtype, out.t.rank, out.t.shape, out.t.data);
  /* Every check (operands, then each index) before any kernel: on an
   * error the temporary file is dropped and OUT is as it was. */
  double t_read = cli_now() - t_start, t0 = cli_now();
  cli_notice *notice = cli_notice_start(ctx);
  st = clg_gather_block_quantized(ctx, &gp, &td, &ti, &ts,
                                  a.zero_points ? &tz : NULL, &to, NULL, 0,
                                  NULL, NULL);
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
  cli_verbose_run(ctx, "gather-block-quantized", t_read, t_run, cli_now() - t0);
  code = CLI_EXIT_OK;
done:
  set_temp(NULL);
  cli_output_discard(&out);
  clg_context_destroy(ctx);
  free(packed[0]);
  free(packed[1]);
  for (int i = 0; i < 4; ++i)
    cli_tensor_free(&in[i]);
  return code;
}
