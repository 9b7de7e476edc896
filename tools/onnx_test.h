/*
 * The `clgather onnx-test` command (onnx_test.c): runs ONNX backend node test
 * folders through the library.
 *
 * Dependency order of the tool's command modules (each calls only those
 * before it): cli_args.c (cli.h) <- onnx_test.c (onnx_test.h) <- clgather.c
 * (main). onnx_test.c uses cli.h, onnx_model.h (graphs: the node to run,
 * initializers, Constant nodes, external data, input binding), onnx_pb.h
 * and tensor_file.h; only clgather.c includes this header.
 */
#ifndef CLGATHER_TOOLS_ONNX_TEST_H
#define CLGATHER_TOOLS_ONNX_TEST_H

#ifdef __cplusplus
extern "C" {
#endif

/** `clgather onnx-test [options] [DIR ...]`; argv[0] is "onnx-test".
 * Returns the exit status. */
int cli_cmd_onnx_test(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_ONNX_TEST_H */
