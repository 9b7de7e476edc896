/* Replays fuzz inputs without libFuzzer: runs LLVMFuzzerTestOneInput once on
 * every regular file named on the command line or found (not recursively)
 * in a folder named there; names starting with '.' are skipped. A harness
 * signals a problem by crashing (abort/sanitizer), so reaching the end means
 * every input passed. Used by the normal test suite (fuzz_replay_* tests) to
 * replay tests/fuzz/corpus/<harness> and tests/fuzz/regressions/<harness>. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 4096, n = 0, got;
  unsigned char *buf = malloc(cap);
  while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      unsigned char *grown = realloc(buf, cap * 2);
      if (grown == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = grown;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf == NULL) {
    fprintf(stderr, "replay: out of memory reading %s\n", path);
    return -1;
  }
  /* An exact-size copy, so that a read past the input is caught by ASan. */
  unsigned char *exact = malloc(n ? n : 1);
  if (exact == NULL) {
    free(buf);
    return -1;
  }
  memcpy(exact, buf, n);
  free(buf);
  fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  ++replayed;
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) {
    fprintf(stderr, "replay: cannot open folder %s\n", dir);
    return -1;
  }
  char **names = NULL;
  size_t count = 0, cap = 0;
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    char *p = malloc(len);
    if (p == NULL) {
      rc = -1;
      break;
    }
    snprintf(p, len, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
      free(p);
      continue;
    }
    if (count == cap) {
      cap = cap ? 2 * cap : 64;
      char **grown = realloc(names, cap * sizeof *names);
      if (grown == NULL) {
        free(p);
        rc = -1;
        break;
      }
      names = grown;
    }
    names[count++] = p;
  }
  closedir(d);
  if (count > 0)
    qsort(names, count, sizeof *names, cmp_names);
  for (size_t i = 0; i < count; ++i) {
    if (rc == 0 && run_file(names[i]) != 0)
      rc = -1;
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s does not exist\n", argv[i]);
      return 1;
    }
    int rc = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
    if (rc != 0)
      return 1;
  }
  fprintf(stderr, "replay: %lu inputs passed\n", replayed);
  return 0;
}
