#define _XOPEN_SOURCE 700 /* mkdtemp, setenv, nftw */
#include "support/tmpdir.h"

#include <criterion/criterion.h>

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char g_tmp[256];
static char g_cache[512];

const char *tu_tmpdir_make(const char *tag) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/clgather-test-%s-XXXXXX", tag);
  cr_assert_not_null(mkdtemp(g_tmp), "mkdtemp(%s) failed", g_tmp);
  return g_tmp;
}

const char *tu_tmpdir(void) { return g_tmp; }

const char *tu_tmpdir_cache(const char *tag) {
  snprintf(g_cache, sizeof g_cache, "%s/cache", tu_tmpdir_make(tag));
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", g_cache, 1), 0);
  return g_cache;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

void tu_rm_tree(const char *path) {
  nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void tu_tmpdir_remove(void) {
  if (g_tmp[0])
    tu_rm_tree(g_tmp);
}

int tu_count_files(const char *dir, const char *suffix, char *first,
                   size_t cap) {
  DIR *d = opendir(dir);
  if (!d)
    return -1;
  int n = 0;
  size_t sl = strlen(suffix);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len >= sl && strcmp(e->d_name + len - sl, suffix) == 0) {
      if (n == 0 && first)
        snprintf(first, cap, "%s/%s", dir, e->d_name);
      ++n;
    }
  }
  closedir(d);
  return n;
}
