/* Helpers for the clgather tool tests: scratch folders, raw files, running
 * the built binary. */
#ifndef CLGATHER_TESTS_TOOLS_CLI_TESTUTIL_H
#define CLGATHER_TESTS_TOOLS_CLI_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "tensor_file.h"

/** A fresh scratch folder under $TMPDIR (or /tmp); static storage. */
const char *ct_scratch_dir(void);
/** Remove the scratch folder and its files (suite .fini). */
void ct_cleanup(void);
/** Remove folder `dir` and the files in it (not subfolders). */
void ct_remove_dir(const char *dir);
/** dir/name in a static ring of buffers (valid for a few calls). */
const char *ct_path(const char *name);
/** Write len bytes to path (plain, not atomic); aborts the test on error. */
void ct_write_file(const char *path, const void *buf, size_t len);
/** Read a whole file (malloc'ed, *len set); NULL if it does not exist. */
unsigned char *ct_read_file(const char *path, size_t *len);
/** 1 if path exists. */
int ct_exists(const char *path);
/** Number of entries in dir whose name contains ".tmp.". */
int ct_count_temp_files(const char *dir);

/** A .npy image with an arbitrary header dict (padded to 64) and data. */
unsigned char *ct_make_npy(int major, const char *dict, const void *data,
                           size_t data_len, size_t *len);

/** Fill bytes with a deterministic pattern depending on seed. */
void ct_fill_pattern(void *buf, size_t n, unsigned seed);

/** Run argv (argv[0] = program path, NULL-terminated); capture stdout and
 * stderr (NUL-terminated, malloc'ed, caller frees). Returns exit status or
 * -1 if it did not exit normally. */
int ct_run(char *const argv[], char **out, char **err);

/** 1 if err is one usage error line: "clgather: ...; try 'clgather
 * [COMMAND ]--help'" and a newline, nothing more (COMMAND NULL: any). */
int ct_is_usage_line(const char *err, const char *command);

#endif
