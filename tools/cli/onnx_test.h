/*
 * The `clgather onnx-test` command (onnx_test.c): runs ONNX backend node test
 * folders through the library.
 *
 * Dependency order of the tool's command modules (each calls only those
 * before it): cli_args.c (cli.h) <- onnx_test.c (onnx_test.h) <- clgather.c
 * (main). onnx_test.c uses cli.h, onnx_model.h (graphs: the node to run,
 * initializers, Constant nodes, external data, input binding), onnx_pb.h
 * and tensor_file.h; only clgather.c and selftest.c include this header.
 */
#ifndef CLGATHER_TOOLS_ONNX_TEST_H
#define CLGATHER_TOOLS_ONNX_TEST_H

#include <clgather/clgather.h>

#ifdef __cplusplus
extern "C" {
#endif

/** `clgather onnx-test [options] [DIR ...]`; argv[0] is "onnx-test".
 * Returns the exit status. */
int cli_cmd_onnx_test(int argc, char **argv);

/** What `clgather selftest` learns from the installed ONNX folders. */
typedef struct cli_onnx_summary {
  int passed, failed, skipped;
  /* Of the skipped: node tests the library refused with
   * CLG_ERROR_UNSUPPORTED_DTYPE on a device whose float arithmetic
   * flushes subnormals or that lacks doubles (a reduction it cannot give
   * bit for bit there). */
  int device_skipped;
  int device_error;     /* a failure came from the device/OpenCL */
  char first_fail[512]; /* "folder: what differed" */
  char root[256];       /* where the data was looked for */
} cli_onnx_summary;

/** Run the installed ONNX node folders of the family (as `onnx-test`
 * without arguments: CLGATHER_ONNX_TESTDATA, else the Debian data folder)
 * on `ctx` (borrowed), printing nothing. Returns how many folders ran: 0
 * when none is installed (absent data is not a failure). */
int cli_onnx_selftest(clg_context *ctx, cli_onnx_summary *sum);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_ONNX_TEST_H */
