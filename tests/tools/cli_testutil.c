#define _POSIX_C_SOURCE 200809L

#include "cli_testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char scratch[512];

const char *ct_scratch_dir(void) {
  if (scratch[0] == '\0') {
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0')
      tmp = "/tmp";
    snprintf(scratch, sizeof scratch, "%s/clgather_cli_test.XXXXXX", tmp);
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp failed");
  }
  return scratch;
}

void ct_remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d != NULL) {
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(dir);
}

void ct_cleanup(void) {
  if (scratch[0] == '\0')
    return;
  ct_remove_dir(scratch);
  scratch[0] = '\0';
}

const char *ct_path(const char *name) {
  static char ring[8][1024];
  static int next;
  char *p = ring[next++ % 8];
  snprintf(p, sizeof ring[0], "%s/%s", ct_scratch_dir(), name);
  return p;
}

void ct_write_file(const char *path, const void *buf, size_t len) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f, "cannot create %s", path);
  if (len > 0)
    cr_assert_eq(fwrite(buf, 1, len, f), len);
  cr_assert_eq(fclose(f), 0);
}

unsigned char *ct_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  size_t cap = 4096, n = 0;
  unsigned char *buf = malloc(cap);
  cr_assert_not_null(buf);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      cap *= 2;
      buf = realloc(buf, cap);
      cr_assert_not_null(buf);
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

int ct_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

int ct_count_temp_files(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    n += strstr(e->d_name, ".tmp.") != NULL;
  closedir(d);
  return n;
}

unsigned char *ct_make_npy(int major, const char *dict, const void *data,
                           size_t data_len, size_t *len) {
  size_t prefix = major == 1 ? 10 : 12;
  size_t dlen = strlen(dict);
  size_t total = (prefix + dlen + 1 + 63) / 64 * 64;
  size_t hlen = total - prefix;
  unsigned char *buf = malloc(total + data_len + 1);
  cr_assert_not_null(buf);
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  for (size_t i = 0; i < prefix - 8; ++i)
    buf[8 + i] = (unsigned char)(hlen >> (8 * i));
  memcpy(buf + prefix, dict, dlen);
  memset(buf + prefix + dlen, ' ', hlen - dlen - 1);
  buf[total - 1] = '\n';
  if (data_len)
    memcpy(buf + total, data, data_len);
  *len = total + data_len;
  return buf;
}

void ct_fill_pattern(void *buf, size_t n, unsigned seed) {
  unsigned char *p = buf;
  uint32_t x = 2463534242u ^ seed;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p[i] = (unsigned char)(x >> 7);
  }
}

static char *slurp_fd(int fd) {
  lseek(fd, 0, SEEK_SET);
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  cr_assert_not_null(buf);
  ssize_t got;
  while ((got = read(fd, buf + n, cap - n - 1)) > 0) {
    n += (size_t)got;
    if (n + 1 == cap) {
      cap *= 2;
      buf = realloc(buf, cap);
      cr_assert_not_null(buf);
    }
  }
  buf[n] = '\0';
  return buf;
}

int ct_run(char *const argv[], char **out, char **err) {
  char out_tmpl[600], err_tmpl[600];
  snprintf(out_tmpl, sizeof out_tmpl, "%s/stdout.XXXXXX", ct_scratch_dir());
  snprintf(err_tmpl, sizeof err_tmpl, "%s/stderr.XXXXXX", ct_scratch_dir());
  int ofd = mkstemp(out_tmpl), efd = mkstemp(err_tmpl);
  cr_assert(ofd >= 0 && efd >= 0, "mkstemp failed");
  unlink(out_tmpl);
  unlink(err_tmpl);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  cr_assert(pid >= 0, "fork failed");
  if (pid == 0) {
    dup2(ofd, 1);
    dup2(efd, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    ;
  char *o = slurp_fd(ofd), *e = slurp_fd(efd);
  close(ofd);
  close(efd);
  if (out)
    *out = o;
  else
    free(o);
  if (err)
    *err = e;
  else
    free(e);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int ct_is_usage_line(const char *err, const char *command) {
  if (err == NULL || strncmp(err, "clgather: ", 10) != 0)
    return 0;
  const char *nl = strchr(err, '\n');
  if (nl == NULL || nl[1] != '\0')
    return 0; /* not exactly one line */
  char tail[128];
  if (command != NULL)
    snprintf(tail, sizeof tail, "; try 'clgather %s%s--help'\n", command,
             command[0] ? " " : "");
  else
    snprintf(tail, sizeof tail, "--help'\n");
  size_t n = strlen(err), m = strlen(tail);
  if (n < m || strcmp(err + n - m, tail) != 0)
    return 0;
  return command != NULL || strstr(err, "; try 'clgather ") != NULL;
}
