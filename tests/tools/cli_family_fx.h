/* What the Tests of test_cli_family share (test_cli_family.c,
 * test_cli_family_ops.c, test_cli_family_onnx.c; one binary): running the
 * built clgather binary, tensors made, written and compared as files, and
 * plain-C references for GatherElements and GatherND written from the ONNX
 * definitions (cli_family_fx.c). */
#ifndef CLGATHER_TESTS_TOOLS_CLI_FAMILY_FX_H
#define CLGATHER_TESTS_TOOLS_CLI_FAMILY_FX_H

#include <stdint.h>

#include "tensor_file.h"

/* Run the CLI (CLGATHER_CLI_PATH) with the NULL-terminated list args. */
int run_cli(char **out, char **err, const char *const *args);
/* CLI(out, err, "arg", ...): run_cli with the arguments listed. */
#define CLI(out, err, ...)                                                     \
  run_cli(out, err, (const char *[]){__VA_ARGS__, NULL})

/* A new tensor of dtype and shape, filled with seed's pattern. */
void make_tensor(cli_tensor *t, clg_dtype dtype, int32_t rank,
                 const int64_t *shape, unsigned seed);
/* An int32 or int64 indices tensor holding values[0 .. count-1]. */
void make_indices(cli_tensor *t, clg_dtype dtype, int32_t rank,
                  const int64_t *shape, const int64_t *values);
/* Write t to path (.npy or .pb, by its name). */
void save(const char *path, const cli_tensor *t);
/* The tensor file at path equals want: dtype, shape and bytes. */
void expect_same(const char *path, const cli_tensor *want);
/* The file at path still holds exactly contents. */
void expect_unchanged(const char *path, const char *contents);

/* ONNX GatherElements on data and idx along axis into a new out. */
void reference_gather_elements(const cli_tensor *data, const cli_tensor *idx,
                               int64_t axis, cli_tensor *out);
/* ONNX GatherND with batch_dims b on data and idx into a new out. */
void reference_gather_nd(const cli_tensor *data, const cli_tensor *idx,
                         int32_t b, cli_tensor *out);

#endif /* CLGATHER_TESTS_TOOLS_CLI_FAMILY_FX_H */
