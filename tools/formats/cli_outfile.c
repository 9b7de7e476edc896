/* Output files that no crash leaves behind (cli_outfile): the CLI's outputs
 * are written into an unnamed file (O_TMPFILE) in OUT's directory and
 * linked into place complete, so a process killed while writing (even by
 * SIGKILL) leaves nothing: the kernel frees an unnamed file with its last
 * descriptor. Where the file system or the kernel has no O_TMPFILE (NFS,
 * FUSE, kernels before 3.11, other systems) the output goes through a named
 * temporary file ".BASE.tmp.XXXXXX" renamed over OUT, as before, which a
 * SIGKILL does leave behind.
 *
 * Linking: linkat() never replaces a name, so an absent OUT is created by
 * one linkat() to OUT itself (atomic, nothing left over at any moment). An
 * existing OUT (or one created meanwhile: EEXIST) is replaced by a linkat()
 * to a fresh ".BASE.tmp.XXXXXX" name and rename() over OUT, with only
 * close() in between: a kill inside those few microseconds leaves that name
 * (holding the complete output). Linux has no linkat() that replaces
 * (AT_REPLACE was proposed, never merged), so this window is the smallest
 * there is for replacing OUT. */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH */

#include "cli_tensor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* 0666 & ~umask: the mode every output gets, whichever way it is made.
 * The umask is read from /proc/self/status (Linux 4.7+) so that it is not
 * set to 0, even briefly, while the OpenCL runtime's threads may create
 * files of their own; umask() round trip otherwise. */
static mode_t output_mode(void) {
  FILE *f = fopen("/proc/self/status", "re");
  if (f != NULL) {
    char line[256];
    unsigned mask;
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL)
      found = sscanf(line, "Umask: %o", &mask) == 1;
    fclose(f);
    if (found)
      return (mode_t)(0666 & ~mask);
  }
  mode_t mask = umask(0);
  umask(mask);
  return (mode_t)(0666 & ~mask);
}

/* Split path into directory (with trailing '/', or "" for the cwd) and
 * base: *tmpl = DIR/.BASE.tmp.XXXXXX (malloc'ed), *dir = DIR or "."
 * (malloc'ed; NULL dir skips it). */
static int names_for(const char *path, char **tmpl, char **dir, char *err,
                     size_t errlen) {
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  const char *base = slash ? slash + 1 : path;
  if (*base == '\0')
    return cli_fail(err, errlen, "output path '%s' names a directory", path);
  size_t n = dir_len + 1 + strlen(base) + sizeof ".tmp.XXXXXX";
  char *t = malloc(n);
  char *d = dir ? malloc(dir_len ? dir_len + 1 : 2) : NULL;
  if (t == NULL || (dir != NULL && d == NULL)) {
    free(t);
    free(d);
    return cli_fail(err, errlen, "out of memory");
  }
  memcpy(t, path, dir_len);
  snprintf(t + dir_len, n - dir_len, ".%s.tmp.XXXXXX", base);
  *tmpl = t;
  if (dir != NULL) {
    if (dir_len) {
      memcpy(d, path, dir_len);
      d[dir_len] = '\0';
    } else {
      strcpy(d, ".");
    }
    *dir = d;
  }
  return 0;
}

static void outfile_reset(cli_outfile *o) {
  o->fd = -1;
  o->named = 0;
  o->tmp = NULL;
  o->label = NULL;
}

/* o->label = pre + name + "'" (malloc'ed; without memory the messages
 * make do with cli_outfile_label()'s fixed text). */
static void set_label(cli_outfile *o, const char *pre, const char *name) {
  size_t n = strlen(pre) + strlen(name) + 2;
  o->label = malloc(n);
  if (o->label != NULL)
    snprintf(o->label, n, "%s%s'", pre, name);
}

/* The named fallback: mkstemp next to OUT, then the output's mode. */
static int create_named(const char *path, char *tmpl, mode_t mode,
                        cli_outfile *o, char *err, size_t errlen) {
  int f = mkstemp(tmpl);
  if (f < 0) {
    int e = errno;
    free(tmpl);
    return cli_fail(err, errlen,
                    "cannot create a temporary file next to '%s': %s", path,
                    strerror(e));
  }
  (void)fchmod(f, mode); /* mkstemp creates 0600 */
  o->fd = f;
  o->named = 1;
  o->tmp = tmpl;
  set_label(o, "'", tmpl);
  return 0;
}

int cli_outfile_create(const char *path, cli_outfile *o, int allow_unnamed,
                       char *err, size_t errlen) {
  outfile_reset(o);
  char *tmpl = NULL, *dir = NULL;
  if (names_for(path, &tmpl, &dir, err, errlen) != 0)
    return -1;
  mode_t mode = output_mode();
#if defined(O_TMPFILE)
  if (allow_unnamed) {
    /* Any failure falls back to the named file: EOPNOTSUPP where the file
     * system has no O_TMPFILE, EISDIR or EINVAL where the kernel does not
     * know it; the rest (no such folder, no permission, ...) fail there
     * again, with the message a named file has always given. */
    int f = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
    if (f >= 0) {
      /* Linking it takes linkat(AT_EMPTY_PATH), which older kernels allow
       * only with CAP_DAC_READ_SEARCH (6.18 allows the file's opener), or
       * /proc/self/fd: without /proc it might never get a name. */
      char proc[48];
      struct stat st;
      snprintf(proc, sizeof proc, "/proc/self/fd/%d", f);
      if (stat(proc, &st) == 0) {
        (void)fchmod(f, mode); /* as the named file: exactly this mode */
        free(dir);
        o->fd = f;
        o->tmp = tmpl; /* a template, used only to replace an existing OUT */
        set_label(o, "the unnamed temporary file for '", path);
        return 0;
      }
      close(f);
    }
  }
#else
  (void)allow_unnamed;
#endif
  free(dir);
  return create_named(path, tmpl, mode, o, err, errlen);
}

const char *cli_outfile_label(const cli_outfile *o) {
  return o->label != NULL ? o->label : "OUT's temporary file";
}

const char *cli_outfile_temp_path(const cli_outfile *o) {
  return o->named ? o->tmp : NULL;
}

void cli_outfile_discard(cli_outfile *o) {
  if (o == NULL)
    return;
  if (o->fd >= 0)
    close(o->fd);
  if (o->named && o->tmp != NULL)
    unlink(o->tmp);
  free(o->tmp);
  free(o->label);
  outfile_reset(o);
}

#if defined(O_TMPFILE)
/* Give the unnamed file `fd` the name `to` (fails with EEXIST if taken). */
static int link_unnamed(int fd, const char *to) {
  if (linkat(fd, "", AT_FDCWD, to, AT_EMPTY_PATH) == 0)
    return 0;
  /* ENOENT where the kernel wants CAP_DAC_READ_SEARCH: through /proc. */
  if (errno != ENOENT && errno != EPERM && errno != EINVAL)
    return -1;
  char proc[48];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW);
}

/* Fill the template's trailing XXXXXX with fresh letters and digits. */
static void fill_template(char *tmpl, unsigned attempt) {
  static const char chars[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
               ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)tmpl ^
               ((uint64_t)attempt * 0x9e3779b97f4a7c15u);
  char *p = tmpl + strlen(tmpl) - 6;
  for (int i = 0; i < 6; ++i) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdu;
    x ^= x >> 29;
    p[i] = chars[x % (sizeof chars - 1)];
  }
}

/* Link the unnamed file as `path`: directly if `path` is free, else as a
 * fresh temporary name renamed over it (the one window, see the top). */
static int commit_unnamed(cli_outfile *o, const char *path, char *err,
                          size_t errlen) {
  if (link_unnamed(o->fd, path) == 0) {
    int rc = close(o->fd);
    o->fd = -1;
    if (rc != 0) { /* a delayed write error: OUT did not exist before */
      int e = errno;
      unlink(path);
      return cli_fail(err, errlen, "cannot write %s: %s", cli_outfile_label(o),
                      strerror(e));
    }
    return 0;
  }
  if (errno != EEXIST)
    return cli_fail(err, errlen, "cannot link %s as '%s': %s",
                    cli_outfile_label(o), path, strerror(errno));
  /* OUT exists (or is a folder, or a dangling symbolic link: rename() says
   * what it says today). The name is made before linking so that only
   * close() lies between the link and the rename. */
  for (unsigned attempt = 0;; ++attempt) {
    fill_template(o->tmp, attempt);
    if (link_unnamed(o->fd, o->tmp) == 0)
      break;
    if (errno != EEXIST || attempt >= 100)
      return cli_fail(err, errlen, "cannot link %s next to '%s': %s",
                      cli_outfile_label(o), path, strerror(errno));
  }
  int rc = close(o->fd);
  o->fd = -1;
  if (rc != 0) {
    int e = errno;
    unlink(o->tmp);
    return cli_fail(err, errlen, "cannot write %s: %s", cli_outfile_label(o),
                    strerror(e));
  }
  if (rename(o->tmp, path) != 0) {
    int e = errno;
    unlink(o->tmp);
    return cli_fail(err, errlen, "cannot rename '%s' to '%s': %s", o->tmp, path,
                    strerror(e));
  }
  return 0;
}
#endif

int cli_outfile_commit(cli_outfile *o, const char *path, char *err,
                       size_t errlen) {
  int rc = 0;
  if (!o->named) {
#if defined(O_TMPFILE)
    rc = commit_unnamed(o, path, err, errlen);
#else
    rc = cli_fail(err, errlen, "no output file to commit");
#endif
  } else {
    if (close(o->fd) != 0)
      rc = cli_fail(err, errlen, "cannot write %s: %s", cli_outfile_label(o),
                    strerror(errno));
    o->fd = -1;
    if (rc == 0 && rename(o->tmp, path) != 0)
      rc = cli_fail(err, errlen, "cannot rename '%s' to '%s': %s", o->tmp, path,
                    strerror(errno));
    if (rc == 0)
      o->named = 0; /* renamed: nothing of ours to remove */
  }
  cli_outfile_discard(o); /* removes a named temporary file after a failure */
  return rc;
}

int cli_write_file_atomic(const char *path, const void *buf, size_t len,
                          char *err, size_t errlen) {
  cli_outfile o;
  if (cli_outfile_create(path, &o, 1, err, errlen) != 0)
    return -1;
  const unsigned char *p = buf;
  size_t left = len;
  while (left > 0) {
    ssize_t w = write(o.fd, p, left);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      cli_fail(err, errlen, "cannot write %s: %s", cli_outfile_label(&o),
               strerror(errno));
      cli_outfile_discard(&o);
      return -1;
    }
    p += w;
    left -= (size_t)w;
  }
  return cli_outfile_commit(&o, path, err, errlen);
}
