/*
 * clgather — command-line front end of the clgather library.
 *
 *   clgather devices [--json]
 *   clgather gather [--axis A] [--batch-dims B] [--mode M] [--device SPEC]
 *                   DATA INDICES -o OUT
 *   clgather gather-elements [--axis A] [--device SPEC] DATA INDICES -o OUT
 *   clgather gather-nd [--batch-dims B] [--device SPEC] DATA INDICES -o OUT
 *   clgather scatter-elements | scatter-nd | scatter [options]
 *                   DATA INDICES UPDATES -o OUT
 *   clgather embedding-bag [options] WEIGHT INDICES -o OUT   (cli_bag.c)
 *   clgather gather-block-quantized [options] DATA INDICES SCALES -o OUT
 *                                                           (cli_gbq.c)
 *   clgather onnx-test [--device SPEC] [DIR ...]    (built with ONNX)
 *   clgather selftest [--device SPEC] [--quick] [--json]
 *   clgather COMMAND --help, clgather help [COMMAND], clgather -V|--version
 *
 * Exit status: 0 success, 1 invalid input, 2 usage error, 3 device/OpenCL
 * error. A client of the public API only.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clgather/clgather.h>

#include "cli.h"
#include "cli_sigbus.h"
#include "onnx_test.h"
#include "selftest.h"
#include "tensor_file.h"

#define PROG "clgather"

/* ----------------------------------------------------------------- devices */

static char *platform_info(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, NULL, &n) != CL_SUCCESS || n == 0)
    return NULL;
  char *s = malloc(n + 1);
  if (s == NULL)
    return NULL;
  if (clGetPlatformInfo(p, what, n, s, NULL) != CL_SUCCESS) {
    free(s);
    return NULL;
  }
  s[n] = '\0';
  return s;
}

static char *device_info(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, NULL, &n) != CL_SUCCESS || n == 0)
    return NULL;
  char *s = malloc(n + 1);
  if (s == NULL)
    return NULL;
  if (clGetDeviceInfo(d, what, n, s, NULL) != CL_SUCCESS) {
    free(s);
    return NULL;
  }
  s[n] = '\0';
  return s;
}

static const char *device_type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU)
    return "GPU";
  if (t & CL_DEVICE_TYPE_CPU)
    return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR)
    return "ACCELERATOR";
#ifdef CL_DEVICE_TYPE_CUSTOM
  if (t & CL_DEVICE_TYPE_CUSTOM)
    return "CUSTOM";
#endif
  return "OTHER";
}

/* `clgather devices [--json]`: the text listing, or the same as a JSON
 * array of platforms, each with its devices. */
static int cmd_devices(int argc, char **argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      const cli_option opts[] = {{"--json", NULL, NULL}};
      cli_print_command_help("devices", opts, 1);
      return CLI_EXIT_OK;
    }
    if (strcmp(argv[i], "--json") == 0) {
      json = true;
      continue;
    }
    if (cli_global_flag(argv[i]))
      continue;
    return cli_usage_error("devices takes no argument but --json: '%s'",
                           argv[i]);
  }
  cl_uint np = 0;
  cl_int rc = clGetPlatformIDs(0, NULL, &np);
  if (rc != CL_SUCCESS || np == 0) {
    if (rc == CL_SUCCESS || rc == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */)
      fprintf(stderr, PROG ": no OpenCL platform found\n");
    else
      fprintf(stderr, PROG ": clGetPlatformIDs failed with OpenCL error %d\n",
              (int)rc);
    if (json)
      printf("[]\n");
    return CLI_EXIT_DEVICE;
  }
  cl_platform_id *plats = calloc(np, sizeof *plats);
  if (plats == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return CLI_EXIT_DEVICE;
  }
  rc = clGetPlatformIDs(np, plats, NULL);
  if (rc != CL_SUCCESS) {
    fprintf(stderr, PROG ": clGetPlatformIDs failed with OpenCL error %d\n",
            (int)rc);
    free(plats);
    if (json)
      printf("[]\n");
    return CLI_EXIT_DEVICE;
  }
  size_t total = 0;
  if (json)
    printf("[");
  for (cl_uint p = 0; p < np; ++p) {
    char *pname = platform_info(plats[p], CL_PLATFORM_NAME);
    char *pver = platform_info(plats[p], CL_PLATFORM_VERSION);
    if (json) {
      printf("%s\n  {\"index\": %u, \"name\": ", p ? "," : "", (unsigned)p);
      cli_json_string(stdout, pname);
      printf(", \"version\": ");
      cli_json_string(stdout, pver);
      printf(", \"devices\": [");
    } else {
      printf("platform %u: %s (%s)\n", (unsigned)p, pname ? pname : "?",
             pver ? pver : "?");
    }
    free(pname);
    free(pver);
    cl_uint nd = 0;
    rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    cl_device_id *devs = NULL;
    if (rc == CL_SUCCESS && nd > 0) {
      devs = calloc(nd, sizeof *devs);
      if (devs == NULL || clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd,
                                         devs, NULL) != CL_SUCCESS) {
        if (!json)
          printf("  (cannot list devices)\n");
        free(devs);
        devs = NULL;
        nd = 0;
      }
    } else {
      if (!json)
        printf("  (no devices)\n");
      nd = 0;
    }
    for (cl_uint d = 0; d < nd; ++d) {
      char *name = device_info(devs[d], CL_DEVICE_NAME);
      char *ver = device_info(devs[d], CL_DEVICE_VERSION);
      cl_device_type type = 0;
      clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
      if (json) {
        printf("%s\n    {\"spec\": \"%u:%u\", \"platform\": %u, \"index\": %u, "
               "\"type\": \"%s\", \"name\": ",
               d ? "," : "", (unsigned)p, (unsigned)d, (unsigned)p,
               (unsigned)d, device_type_name(type));
        cli_json_string(stdout, name);
        printf(", \"version\": ");
        cli_json_string(stdout, ver);
        printf("}");
      } else {
        printf("  --device %u:%u  %-11s %s (%s)\n", (unsigned)p, (unsigned)d,
               device_type_name(type), name ? name : "?", ver ? ver : "?");
      }
      free(name);
      free(ver);
      ++total;
    }
    if (json)
      printf("%s]}", nd ? "\n  " : "");
    free(devs);
  }
  if (json)
    printf("\n]\n");
  free(plats);
  if (total == 0) {
    fprintf(stderr, PROG ": no OpenCL device found\n");
    return CLI_EXIT_DEVICE;
  }
  return CLI_EXIT_OK;
}

/* ------------------------------------------------------- mapped files */

/* SIGBUS on a mapped input or OUT: cli_sigbus.h. */
static void sigbus_install(void) {
  cli_sigbus_install(
      PROG ": bus error (SIGBUS) on a mapped file: an input file was "
           "truncated while clgather used it (or OUT's disk is full); OUT "
           "was not written\n",
      CLI_EXIT_INPUT);
}

/* ------------------------------------------------------ the gather family */

/* The family's commands are the library's operators (clg_operators(): the
 * registry's command names), each with the options of the clg_params
 * fields it takes (CLG_PARAM_*) besides --device and --output. */
typedef clg_op_info family_cmd;

/* `clgather <family command> [options] DATA INDICES [UPDATES] -o OUT`: one
 * code path for every operator, driven by the command's clg_params (and
 * for the scatters, their updates and clg_scatter_params). */
static int cmd_family(const family_cmd *cmd, int argc, char **argv) {
  const char *axis_s = NULL, *batch_s = NULL, *mode_s = NULL;
  const char *red_s = NULL, *dup_s = NULL;
  const char *device = NULL, *out_path = NULL;
  bool scatter = (cmd->params & CLG_PARAM_SCATTER) != 0;
  cli_option opts[7];
  size_t n_opts = 0;
  if (cmd->params & CLG_PARAM_AXIS)
    opts[n_opts++] = (cli_option){"--axis", "-a", &axis_s};
  if (cmd->params & CLG_PARAM_BATCH_DIMS)
    opts[n_opts++] = (cli_option){"--batch-dims", "-b", &batch_s};
  if (cmd->params & CLG_PARAM_MODE)
    opts[n_opts++] = (cli_option){"--mode", "-m", &mode_s};
  if (scatter) {
    /* ONNX Scatter (opsets 9, 10) has no reduction. */
    if (cmd->op != CLG_OP_SCATTER)
      opts[n_opts++] = (cli_option){"--reduction", "-r", &red_s};
    opts[n_opts++] = (cli_option){"--duplicates", "-D", &dup_s};
  }
  opts[n_opts++] = (cli_option){"--device", "-d", &device};
  opts[n_opts++] = (cli_option){"--output", "-o", &out_path};

  int want = scatter ? 3 : 2;
  const char *pos[3];
  int npos = 0, code = CLI_EXIT_OK;
  if (cli_parse_args(argc, argv, opts, n_opts, pos, want,
                     scatter ? "DATA, INDICES and UPDATES" : "DATA and INDICES",
                     &npos, &code) != 0)
    return code;
  if (npos < want)
    return cli_usage_error("%s needs %s", cmd->command,
                           npos == 0   ? (scatter ? "DATA, INDICES and UPDATES "
                                                    "files"
                                                  : "DATA and INDICES files")
                           : npos == 1 ? (scatter ? "INDICES and UPDATES files"
                                                  : "an INDICES file")
                                       : "an UPDATES file");
  if (out_path == NULL || out_path[0] == '\0')
    return cli_usage_error("%s needs an output file: -o OUT", cmd->command);
  clg_params params = {cmd->op, 0, 0, CLG_MODE_RAISE};
  clg_scatter_params sp = {CLG_REDUCTION_NONE, CLG_DUPLICATES_ERROR};
  if (axis_s != NULL && cli_parse_int64(axis_s, &params.axis) != 0)
    return cli_usage_error("invalid --axis value '%s' (expected an integer)",
                           axis_s);
  if (batch_s != NULL && cli_parse_int64(batch_s, &params.batch_dims) != 0)
    return cli_usage_error(
        "invalid --batch-dims value '%s' (expected an integer)", batch_s);
  if (mode_s != NULL && cli_parse_mode(mode_s, &params.mode) != 0)
    return cli_usage_error(
        "invalid --mode value '%s' (expected raise, wrap or clip)", mode_s);
  if (red_s != NULL && cli_parse_reduction(red_s, &sp.reduction) != 0)
    return cli_usage_error("invalid --reduction value '%s' (expected none, "
                           "add, mul, min or max)",
                           red_s);
  if (dup_s != NULL && cli_parse_duplicates(dup_s, &sp.duplicates) != 0)
    return cli_usage_error(
        "invalid --duplicates value '%s' (expected error or last)", dup_s);

  char err[1024];
  if ((code = cli_check_operands(pos, (size_t)want, out_path)) != 0)
    return code;
  cli_tensor in[3];
  cli_output out;
  memset(in, 0, sizeof in);
  memset(&out, 0, sizeof out);
  clg_context *ctx = NULL;
  code = CLI_EXIT_INPUT;
  /* .npy inputs are mapped, not read: the library reads them in place (a
   * CPU device wraps them, a GPU copies from the page cache), so only the
   * pages a gather touches are read. DATA is never written: a scatter's
   * output is a separate tensor that the library fills with a copy. */
  sigbus_install();
  double t0 = cli_now(), t_read = 0, t_run = 0;
  for (int i = 0; i < want; ++i)
    if (cli_tensor_open(pos[i], &in[i], err, sizeof err) != 0) {
      fprintf(stderr, PROG ": %s\n", err);
      goto done;
    }
  const cli_tensor *data = &in[0], *indices = &in[1];
  if (cli_tensor_check_writable(out_path, data, err, sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    goto done;
  }
  /* Every check that does not need the output, index values included,
   * before the output (sized by the files' shape claims) is allocated and
   * before a device is opened (no device is needed to reject bad input).
   * A scatter's repeated targets are found by clg_scatter(), before it
   * writes anything: OUT is written only after a success. */
  clg_tensor td =
      clg_tensor_host(data->dtype, data->rank, data->shape, data->data);
  clg_tensor ti = clg_tensor_host(indices->dtype, indices->rank,
                                  indices->shape, indices->data);
  int32_t out_rank = 0;
  int64_t out_shape[CLG_MAX_RANK] = {0};
  clg_status st = clg_validate(NULL, &params, &td, &ti, NULL, 0, NULL);
  if (st == CLG_SUCCESS)
    st = clg_output_shape(&params, data->rank, data->shape, indices->rank,
                          indices->shape, &out_rank, out_shape);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, PROG ": %s\n", cli_library_message(st));
    code = cli_exit_for_status(st);
    goto done;
  }
  t_read = cli_now() - t0;
  st = clg_context_create_default(device, &ctx);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, PROG ": %s\n", cli_library_message(st));
    code = cli_exit_for_status(st);
    goto done;
  }
  cli_verbose_device(ctx);
  /* A .npy OUT: the library writes the result straight into a mapped
   * temporary file next to OUT (unnamed where the file system allows),
   * put in place of OUT only after a success. */
  if (cli_output_begin(&out, out_path, data->dtype, out_rank, out_shape, err,
                       sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    goto done;
  }
  cli_sigbus_set_temp(cli_output_temp_path(&out));
  clg_tensor to =
      clg_tensor_host(out.t.dtype, out.t.rank, out.t.shape, out.t.data);
  t0 = cli_now();
  cli_notice *notice = cli_notice_start(ctx);
  if (scatter) {
    clg_tensor tu =
        clg_tensor_host(in[2].dtype, in[2].rank, in[2].shape, in[2].data);
    st = clg_scatter(ctx, &params, &sp, &td, &ti, &tu, &to, NULL, 0, NULL,
                     NULL);
  } else
    st = clg_run(ctx, &params, &td, &ti, &to, NULL, 0, NULL, NULL);
  cli_notice_stop(notice);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, PROG ": %s\n", cli_library_message(st));
    code = cli_exit_for_status(st);
    goto done;
  }
  t_run = cli_now() - t0;
  t0 = cli_now();
  cli_sigbus_set_temp(NULL); /* put in place next: no longer ours to remove */
  if (cli_output_commit(&out, out_path, err, sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    goto done;
  }
  cli_verbose_run(ctx, cmd->command, t_read, t_run, cli_now() - t0);
  code = CLI_EXIT_OK;
done:
  cli_sigbus_set_temp(NULL);
  cli_output_discard(&out); /* removes the temporary file after an error */
  clg_context_destroy(ctx);
  for (int i = 0; i < 3; ++i)
    cli_tensor_free(&in[i]);
  return code;
}

/* -------------------------------------------------------------------- main */

int main(int argc, char **argv) {
  /* -q and -v may come before the command too: `clgather -v gather ...` */
  while (argc > 1 && cli_global_flag(argv[1])) {
    argv[1] = argv[0];
    ++argv;
    --argc;
  }
  if (argc < 2)
    return cli_usage_error("missing command");
  const char *cmd = argv[1];
  char *help_argv[4];
  if (strcmp(cmd, "help") == 0 && argc > 2) {
    /* `clgather help COMMAND` is `clgather COMMAND --help`. */
    help_argv[0] = argv[0];
    help_argv[1] = argv[2];
    help_argv[2] = (char *)"--help";
    help_argv[3] = NULL;
    argv = help_argv;
    argc = 3;
    cmd = argv[1];
  } else if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
             strcmp(cmd, "help") == 0) {
    cli_print_usage(0);
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 ||
      strcmp(cmd, "version") == 0) {
    printf("clgather %s\n", clg_version_string());
    return CLI_EXIT_OK;
  }
  if (cmd[0] == '-')
    return cli_usage_error("unknown option '%s' (the command comes first)",
                           cmd);
  if (strcmp(cmd, "devices") == 0 || strcmp(cmd, "selftest") == 0 ||
      strcmp(cmd, "onnx-test") == 0)
    cli_set_command(cmd);
  if (strcmp(cmd, "devices") == 0)
    return cmd_devices(argc - 1, argv + 1);
  size_t n_ops = 0;
  const clg_op_info *ops = clg_operators(&n_ops);
  for (size_t i = 0; i < n_ops; ++i)
    if (strcmp(cmd, ops[i].command) == 0) {
      cli_set_command(cmd);
      if (!(ops[i].params & (CLG_PARAM_BAGS | CLG_PARAM_GBQ)))
        return cmd_family(&ops[i], argc - 1, argv + 1);
      /* EmbeddingBag and GatherBlockQuantized take no clg_params: their
       * own commands (cli_bag.c, cli_gbq.c) */
      sigbus_install();
      if (ops[i].params & CLG_PARAM_GBQ)
        return cli_cmd_gather_block_quantized(argc - 1, argv + 1,
                                              cli_sigbus_set_temp);
      return cli_cmd_embedding_bag(argc - 1, argv + 1, cli_sigbus_set_temp);
    }
  if (strcmp(cmd, "onnx-test") == 0) {
#if CLGATHER_CLI_ONNX
    return cli_cmd_onnx_test(argc - 1, argv + 1);
#else
    fprintf(stderr, PROG ": onnx-test is not in this build: clgather was "
                         "built without ONNX (configure with "
                         "-DCLGATHER_BUILD_ONNX=ON)\n");
    return CLI_EXIT_USAGE;
#endif
  }
  if (strcmp(cmd, "selftest") == 0)
    return cli_cmd_selftest(argc - 1, argv + 1);
  return cli_usage_error("unknown command '%s'", cmd);
}
