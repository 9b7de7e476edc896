/*
 * clgather — command-line front end of the clgather library.
 *
 *   clgather devices
 *   clgather gather [--axis A] [--device SPEC] DATA INDICES -o OUT
 *   clgather onnx-test [--device SPEC] [DIR ...]
 *
 * Exit status: 0 success, 1 invalid input, 2 usage error, 3 device/OpenCL
 * error. A client of the public API only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>

/* ONNX Gather parameters on `axis`, for clg_validate. */
#define GP(axis) (&(clg_params){CLG_OP_GATHER, (axis), 0, CLG_MODE_RAISE})

#include "cli.h"
#include "tensor_file.h"

#define PROG "clgather"

void cli_print_usage(int to_stderr) {
  FILE *f = to_stderr ? stderr : stdout;
  fputs(
      "usage: clgather <command> [options]\n"
      "\n"
      "commands:\n"
      "  devices\n"
      "      List OpenCL platforms and devices with the P:D index for "
      "--device.\n"
      "  gather [--axis A] [--device SPEC] DATA INDICES -o OUT\n"
      "      ONNX Gather: OUT = take(DATA, INDICES, axis=A). Files are .npy "
      "or\n"
      "      .pb (ONNX TensorProto), by extension; OUT uses OUT's "
      "extension.\n"
      "  onnx-test [--device SPEC] [DIR ...]\n"
      "      Run ONNX backend node test folders (default: every "
      "test_gather*\n"
      "      folder under $CLGATHER_ONNX_TESTDATA, else\n"
      "      /usr/share/libonnx-testdata/data/node).\n"
      "  help\n"
      "      Show this help.\n"
      "\n"
      "options:\n"
      "  -a, --axis A        axis of DATA to gather along (default 0; "
      "negative\n"
      "                      counts from the back)\n"
      "  -d, --device SPEC   P:D as listed by `clgather devices`, or part of "
      "a\n"
      "                      device name (default: $CLGATHER_DEVICE, else the\n"
      "                      first GPU, else the first device)\n"
      "  -o, --output OUT    output file (.npy or .pb)\n"
      "  -h, --help          show this help\n"
      "  --version           show the version\n"
      "\n"
      "exit status: 0 success, 1 invalid input, 2 usage error, 3 "
      "device/OpenCL error\n",
      f);
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, PROG ": ");
  fprintf(stderr, fmt, arg);
  fputs("\n", stderr);
  cli_print_usage(1);
  return CLI_EXIT_USAGE;
}

int cli_exit_for_status(clg_status status) {
  switch (status) {
  case CLG_SUCCESS:
    return CLI_EXIT_OK;
  case CLG_ERROR_NO_DEVICE:
  case CLG_ERROR_OPENCL:
  case CLG_ERROR_BUILD_FAILED:
  case CLG_ERROR_OUT_OF_HOST_MEMORY:
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

static int cmd_devices(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      cli_print_usage(0);
      return CLI_EXIT_OK;
    }
    return usage_error("devices takes no argument: '%s'", argv[i]);
  }
  cl_uint np = 0;
  cl_int rc = clGetPlatformIDs(0, NULL, &np);
  if (rc != CL_SUCCESS || np == 0) {
    if (rc == CL_SUCCESS || rc == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */)
      fprintf(stderr, PROG ": no OpenCL platform found\n");
    else
      fprintf(stderr, PROG ": clGetPlatformIDs failed with OpenCL error %d\n",
              (int)rc);
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
    return CLI_EXIT_DEVICE;
  }
  size_t total = 0;
  for (cl_uint p = 0; p < np; ++p) {
    char *pname = platform_info(plats[p], CL_PLATFORM_NAME);
    char *pver = platform_info(plats[p], CL_PLATFORM_VERSION);
    printf("platform %u: %s (%s)\n", (unsigned)p, pname ? pname : "?",
           pver ? pver : "?");
    free(pname);
    free(pver);
    cl_uint nd = 0;
    rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    if (rc != CL_SUCCESS || nd == 0) {
      printf("  (no devices)\n");
      continue;
    }
    cl_device_id *devs = calloc(nd, sizeof *devs);
    if (devs == NULL || clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs,
                                       NULL) != CL_SUCCESS) {
      printf("  (cannot list devices)\n");
      free(devs);
      continue;
    }
    for (cl_uint d = 0; d < nd; ++d) {
      char *name = device_info(devs[d], CL_DEVICE_NAME);
      char *ver = device_info(devs[d], CL_DEVICE_VERSION);
      cl_device_type type = 0;
      clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
      printf("  --device %u:%u  %-11s %s (%s)\n", (unsigned)p, (unsigned)d,
             device_type_name(type), name ? name : "?", ver ? ver : "?");
      free(name);
      free(ver);
      ++total;
    }
    free(devs);
  }
  free(plats);
  if (total == 0) {
    fprintf(stderr, PROG ": no OpenCL device found\n");
    return CLI_EXIT_DEVICE;
  }
  return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ gather */

static int parse_axis(const char *s, int64_t *axis) {
  if (s == NULL || *s == '\0')
    return -1;
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0')
    return -1;
  *axis = (int64_t)v;
  return 0;
}

static int cmd_gather(int argc, char **argv) {
  const char *axis_s = NULL, *device = NULL, *out_path = NULL;
  const char *pos[2];
  int npos = 0, only_positionals = 0;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *value = NULL;
    int m;
    if (!only_positionals && arg[0] == '-' && arg[1] != '\0') {
      if (strcmp(arg, "--") == 0) {
        only_positionals = 1;
        continue;
      }
      if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
        cli_print_usage(0);
        return CLI_EXIT_OK;
      }
      if ((m = cli_match_option(argc, argv, &i, "--axis", "-a", &value))) {
        if (m < 0)
          return usage_error("option '%s' needs a value", arg);
        axis_s = value;
      } else if ((m = cli_match_option(argc, argv, &i, "--device", "-d",
                                       &value))) {
        if (m < 0)
          return usage_error("option '%s' needs a value", arg);
        device = value;
      } else if ((m = cli_match_option(argc, argv, &i, "--output", "-o",
                                       &value))) {
        if (m < 0)
          return usage_error("option '%s' needs a value", arg);
        out_path = value;
      } else {
        return usage_error("unknown option '%s'", arg);
      }
      continue;
    }
    if (npos >= 2)
      return usage_error("unexpected argument '%s' (gather takes DATA and "
                         "INDICES)", arg);
    pos[npos++] = arg;
  }
  if (npos < 2)
    return usage_error("%s", npos == 0 ? "gather needs DATA and INDICES files"
                                       : "gather needs an INDICES file");
  if (out_path == NULL || out_path[0] == '\0')
    return usage_error("%s", "gather needs an output file: -o OUT");
  int64_t axis = 0;
  if (axis_s != NULL && parse_axis(axis_s, &axis) != 0)
    return usage_error("invalid --axis value '%s' (expected an integer)",
                       axis_s);

  char err[1024];
  if (cli_format_of_path(out_path) == CLI_FORMAT_UNKNOWN) {
    fprintf(stderr, PROG ": cannot tell the format of '%s': the file name "
            "must end in .npy or .pb\n", out_path);
    return CLI_EXIT_INPUT;
  }
  cli_tensor data, indices, out;
  memset(&out, 0, sizeof out);
  if (cli_tensor_read(pos[0], &data, err, sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    return CLI_EXIT_INPUT;
  }
  if (cli_tensor_read(pos[1], &indices, err, sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    cli_tensor_free(&data);
    return CLI_EXIT_INPUT;
  }
  int code = CLI_EXIT_INPUT;
  clg_context *ctx = NULL;
  if (cli_tensor_check_writable(out_path, &data, err, sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    goto done;
  }
  /* Every check that does not need the output, index values included,
   * before the output (sized by the files' shape claims) is allocated and
   * before a device is opened (no device is needed to reject bad input). */
  clg_tensor td = clg_tensor_host(data.dtype, data.rank, data.shape, data.data);
  clg_tensor ti = clg_tensor_host(indices.dtype, indices.rank, indices.shape,
                                  indices.data);
  int32_t out_rank = 0;
  int64_t out_shape[CLG_MAX_RANK] = {0};
  clg_status st = clg_validate(NULL, GP(axis), &td, &ti, NULL, 0, NULL);
  if (st == CLG_SUCCESS)
    st = clg_gather_output_shape(data.rank, data.shape, indices.rank,
                                 indices.shape, axis, &out_rank, out_shape);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, PROG ": %s\n", cli_library_message(st));
    code = cli_exit_for_status(st);
    goto done;
  }
  if (cli_tensor_alloc(&out, data.dtype, out_rank, out_shape, err,
                       sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    goto done;
  }
  st = clg_context_create_default(device, &ctx);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, PROG ": %s\n", cli_library_message(st));
    code = cli_exit_for_status(st);
    goto done;
  }
  clg_tensor to = clg_tensor_host(out.dtype, out.rank, out.shape, out.data);
  st = clg_gather(ctx, &td, &ti, axis, &to, NULL, 0, NULL, NULL);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, PROG ": %s\n", cli_library_message(st));
    code = cli_exit_for_status(st);
    goto done;
  }
  if (cli_tensor_write(out_path, &out, err, sizeof err) != 0) {
    fprintf(stderr, PROG ": %s\n", err);
    goto done;
  }
  code = CLI_EXIT_OK;
done:
  clg_context_destroy(ctx);
  cli_tensor_free(&out);
  cli_tensor_free(&indices);
  cli_tensor_free(&data);
  return code;
}

/* -------------------------------------------------------------------- main */

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, PROG ": missing command\n");
    cli_print_usage(1);
    return CLI_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
      strcmp(cmd, "help") == 0) {
    cli_print_usage(0);
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("clgather %s\n", clg_version_string());
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "devices") == 0)
    return cmd_devices(argc - 1, argv + 1);
  if (strcmp(cmd, "gather") == 0)
    return cmd_gather(argc - 1, argv + 1);
  if (strcmp(cmd, "onnx-test") == 0)
    return cli_cmd_onnx_test(argc - 1, argv + 1);
  return usage_error("unknown command '%s'", cmd);
}
