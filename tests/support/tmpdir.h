/*
 * A temporary directory of a test's own, under /tmp, and the program cache
 * in it, for the suites that look at what the library writes to disk (the
 * program cache, tuning records, device quirks). Criterion runs each Test
 * in its own process, so a suite makes one in its .init and removes it in
 * its .fini, and the environment set here does not leak between Tests.
 */
#ifndef CLGATHER_TESTS_TMPDIR_H
#define CLGATHER_TESTS_TMPDIR_H

#include <stddef.h>

/* Creates /tmp/clgather-test-TAG-XXXXXX (mode 0700) and returns it; asserts
 * success. */
const char *tu_tmpdir_make(const char *tag);
/* The directory tu_tmpdir_make() made last ("" before the first). */
const char *tu_tmpdir(void);
/* tu_tmpdir_make(tag), then CLGATHER_CACHE_DIR=<that>/cache (not created:
 * the library creates it); returns that cache directory. */
const char *tu_tmpdir_cache(const char *tag);
/* Removes `path` and everything under it; links are removed, never
 * followed. */
void tu_rm_tree(const char *path);
/* Removes the directory tu_tmpdir_make() made last (a suite's .fini). */
void tu_tmpdir_remove(void);
/* The entries of `dir` whose name ends with `suffix` ("" counts . and ..):
 * their number, -1 when there is no such directory; the first one's path
 * into first[cap] when first is not NULL. */
int tu_count_files(const char *dir, const char *suffix, char *first,
                   size_t cap);

#endif /* CLGATHER_TESTS_TMPDIR_H */
