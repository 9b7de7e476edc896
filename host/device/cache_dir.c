/* Where the on-disk program cache of a context is, and whether it is on
 * (cache.c holds the rest: keys, files, loads and stores): the settings a
 * context reads from the environment when it is created
 * (CLGATHER_CACHE_DIR, XDG_CACHE_HOME, HOME) and those
 * clg_context_set_option(CLG_OPTION_DISK_CACHE) and
 * clg_context_set_cache_dir() change; the directory, created when missing
 * and judged by the trust rules (see cache.c); and the strings
 * clg_context_cache_info() hands out.
 *
 * A change of the settings resets the decision under ctx->lock, which every
 * use of the cache holds, so the next use decides again: no call sees half
 * of a change. The strings given out before are kept (notes) until the
 * context is destroyed, so a change never frees or rewrites one a caller
 * holds. */
#define _POSIX_C_SOURCE 200809L

#include "device/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ----------------------------------------------------------- settings */

/* A string clg_context_cache_info() handed out. */
typedef struct clg_cache_note {
  struct clg_cache_note *next;
  char text[];
} clg_cache_note;

/* A copy of `s` (CLG_MALLOC), NULL without memory. */
static char *clg_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = CLG_MALLOC(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

bool clg__cache_settings_init(clg_context *ctx) {
  /* The rest of the settings start zeroed (the context's calloc). */
  ctx->disk_cache = true;
  const char *env = getenv("CLGATHER_CACHE_DIR");
  if (env && (!*env || strcmp(env, "0") == 0 || strcasecmp(env, "off") == 0)) {
    /* Off by default; CLG_OPTION_DISK_CACHE 1 turns it on in the default
     * location below. */
    ctx->disk_cache = false;
    ctx->cache_env_off = !*env ? "" : *env == '0' ? "0" : "off";
    env = NULL;
  }
  const char *base = NULL, *suffix = "";
  if (env) {
    base = env;
  } else if ((env = getenv("XDG_CACHE_HOME")) != NULL && env[0] == '/') {
    base = env;
    suffix = "/clgather";
  } else if ((env = getenv("HOME")) != NULL && env[0] == '/') {
    base = env;
    suffix = "/.cache/clgather";
  }
  if (!base)
    return true;
  size_t n = strlen(base) + strlen(suffix) + 1;
  ctx->cache_env_dir = CLG_MALLOC(n);
  if (!ctx->cache_env_dir)
    return false;
  snprintf(ctx->cache_env_dir, n, "%s%s", base, suffix);
  return true;
}

void clg__cache_reset(clg_context *ctx) {
  if (ctx->cache_state > 0)
    close(ctx->cache_dirfd);
  free(ctx->cache_dir);
  ctx->cache_dir = NULL;
  ctx->cache_state = 0;
}

void clg__cache_release(clg_context *ctx) {
  clg__cache_reset(ctx);
  free(ctx->cache_env_dir);
  free(ctx->cache_dir_set);
  ctx->cache_env_dir = ctx->cache_dir_set = NULL;
  for (clg_cache_note *n = ctx->cache_notes, *next; n; n = next) {
    next = n->next;
    free(n);
  }
  ctx->cache_notes = NULL;
}

void clg__cache_set_enabled(clg_context *ctx, bool on) {
  pthread_mutex_lock(&ctx->lock);
  ctx->disk_cache = on;
  ctx->disk_cache_set = true;
  clg__cache_reset(ctx);
  pthread_mutex_unlock(&ctx->lock);
}

/* The absolute directories clg_context_set_cache_dir() takes: shorter than
 * PATH_MAX on Linux. */
#define CLG_CACHE_DIR_MAX 4096

clg_status clg_context_set_cache_dir(clg_context *ctx, const char *dir) {
  if (!ctx)
    return clg__fail(CLG_ERROR_NULL_ARGUMENT, "ctx is NULL");
  char *copy = NULL;
  if (dir) {
    size_t n = strnlen(dir, CLG_CACHE_DIR_MAX);
    if (n == 0)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "the cache directory is empty (NULL goes back to the "
                       "environment's; CLG_OPTION_DISK_CACHE 0 turns the "
                       "cache off)");
    if (dir[0] != '/')
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "the cache directory '%.200s' is not an absolute path",
                       dir);
    if (n >= CLG_CACHE_DIR_MAX)
      return clg__fail(CLG_ERROR_INVALID_ARGUMENT,
                       "the cache directory is %d bytes or longer",
                       CLG_CACHE_DIR_MAX);
    if (!(copy = clg_strdup(dir)))
      return clg__fail(CLG_ERROR_OUT_OF_HOST_MEMORY,
                       "out of host memory copying the cache directory");
  }
  pthread_mutex_lock(&ctx->lock);
  free(ctx->cache_dir_set);
  ctx->cache_dir_set = copy;
  clg__cache_reset(ctx);
  pthread_mutex_unlock(&ctx->lock);
  return clg__ok();
}

const char *clg__cache_note(clg_context *ctx, const char *text) {
  for (clg_cache_note *n = ctx->cache_notes; n; n = n->next)
    if (strcmp(n->text, text) == 0)
      return n->text;
  size_t len = strlen(text) + 1;
  /* Not CLG_MALLOC: a question's memo, which the fault tests, failing each
   * allocation of a call in turn, do not count. */
  clg_cache_note *n = malloc(sizeof *n + len);
  if (!n)
    return "(out of host memory)";
  memcpy(n->text, text, len);
  n->next = ctx->cache_notes;
  ctx->cache_notes = n;
  return n->text;
}

/* ------------------------------------------------------- the location */

/* mkdir -p `path` (mode 0700 for what it creates); true when it is a
 * directory afterwards, *created when its last component was made here.
 * `path` is modified and restored. */
static bool clg_mkdirs(char *path, bool *created) {
  *created = false;
  for (char *p = path + 1; *p; ++p) {
    if (*p != '/')
      continue;
    *p = '\0';
    int r = mkdir(path, 0700);
    int e = errno;
    *p = '/';
    if (r != 0 && e != EEXIST)
      return false;
  }
  if (mkdir(path, 0700) == 0)
    *created = true;
  else if (errno != EEXIST)
    return false;
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *clg__cache_dir_open(clg_context *ctx, int *dirfd) {
  /* A setuid or setgid process must not let its caller's environment say
   * which directory of the effective user's to trust. */
  if (getuid() != geteuid() || getgid() != getegid()) {
    CLG_WHY(ctx, "off in a setuid or setgid process");
    return NULL;
  }
  if (!ctx->disk_cache) {
    if (ctx->cache_env_off && !ctx->disk_cache_set)
      CLG_WHY(ctx, "turned off: CLGATHER_CACHE_DIR is '%s'",
              ctx->cache_env_off);
    else
      CLG_WHY(ctx, "turned off: CLG_OPTION_DISK_CACHE is 0");
    return NULL;
  }
  const char *path = ctx->cache_dir_set ? ctx->cache_dir_set
                                        : ctx->cache_env_dir;
  if (!path) {
    CLG_WHY(ctx, "no directory: neither CLGATHER_CACHE_DIR, "
                 "XDG_CACHE_HOME nor HOME (absolute) was set when the "
                 "context was created");
    return NULL;
  }
  /* clg_context_set_cache_dir takes absolute paths only; the environment's
   * relative one would be another folder in each working directory. */
  if (path[0] != '/') {
    CLG_WHY(ctx, "CLGATHER_CACHE_DIR '%.200s' is not an absolute path "
                 "(a relative one would name another folder in each "
                 "working directory)", path);
    return NULL;
  }
  size_t n = strlen(path) + 1;
  char *dir = CLG_MALLOC(n);
  if (!dir) {
    CLG_WHY(ctx, "out of host memory");
    return NULL;
  }
  memcpy(dir, path, n);
  /* Trailing slashes would only make "dir//key.bin". */
  for (size_t len = strlen(dir); len > 1 && dir[len - 1] == '/'; --len)
    dir[len - 1] = '\0';
  bool created = false;
  if (!clg_mkdirs(dir, &created)) {
    CLG_WHY(ctx, "cannot create the directory %s: %s", dir, strerror(errno));
    free(dir);
    return NULL;
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  /* A directory made here is 0700 whatever the umask. */
  if (fd >= 0 && created)
    (void)fchmod(fd, 0700);
  if (fd < 0 || fstat(fd, &st) != 0) {
    CLG_WHY(ctx, "cannot open the directory %s: %s", dir, strerror(errno));
  } else if (st.st_uid != geteuid()) {
    CLG_WHY(ctx,
            "the directory %s is owned by uid %lu, not by the effective "
            "user (uid %lu): another user could plant programs in it",
            dir, (unsigned long)st.st_uid, (unsigned long)geteuid());
  } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    CLG_WHY(ctx,
            "the directory %s is writable by group or others (mode %04o): "
            "another user could plant programs in it",
            dir, (unsigned)(st.st_mode & 07777));
  } else if ((st.st_mode & S_IRWXU) != S_IRWXU) {
    CLG_WHY(ctx,
            "the directory %s is not readable, writable and searchable by "
            "its owner (mode %04o)",
            dir, (unsigned)(st.st_mode & 07777));
  } else {
    *dirfd = fd;
    return dir;
  }
  if (fd >= 0)
    close(fd);
  free(dir);
  return NULL;
}
