/* The on-disk program cache: binaries of programs built from source are
 * written to a directory and loaded by later contexts and processes instead
 * of compiling again.
 *
 * Location: the context's own directory (clg_context_set_cache_dir()),
 * else CLGATHER_CACHE_DIR ("", "0" or "off" turn the cache off: the default
 * of CLG_OPTION_DISK_CACHE), else $XDG_CACHE_HOME/clgather, else
 * $HOME/.cache/clgather, the environment as it was when the context was
 * created, created (mode 0700) when missing (cache_dir.c, with the
 * settings: a change resets the decision, under ctx->lock like everything
 * here, so the next use decides again).
 *
 * File name: the hex of a 128-bit key over the kernel source, the build
 * options, the device (name, vendor, device and driver versions),
 * its platform (name, version), the library version and a format tag, +
 * ".bin". A file holds a header (magic, format version, the key again, the
 * binary's length and a 128-bit checksum of it) and then the binary, so a
 * truncated, corrupt or foreign file is recognised and ignored. Files are
 * written to an unnamed file of the same directory (O_TMPFILE; a named
 * temporary file where the file system has none), linked to a temporary
 * name when complete and renamed over the final name, so readers never see
 * a partial file, concurrent writers of one key are harmless and a process
 * killed while writing leaves nothing.
 *
 * Trust. A program binary is native code on most drivers (POCL: a shared
 * object run in the process), so the cache loads only what the effective
 * user wrote:
 *  - the directory is used only if, once opened (symlinks in its path are
 *    followed), it is owned by the effective user and not writable by group
 *    or others; otherwise the cache is off for the context and
 *    clg_context_cache_info() says why. Everything after that goes through
 *    the open directory (openat, renameat), so renaming or replacing a
 *    component of its path later changes nothing;
 *  - a file is read only if it is opened without following a symlink
 *    (O_NOFOLLOW) and is a regular file owned by the effective user with
 *    mode 0600; anything else is skipped (counted in ctx->disk_refused);
 *  - files are written to a new file of that directory (unnamed, or
 *    O_CREAT | O_EXCL | O_NOFOLLOW; mode 0600) renamed over the final name:
 *    rename replaces a planted symlink, it never follows it.
 * The checksum only detects damage: anyone can compute it, and a binary
 * damaged and checksummed again by the effective user is handed to the
 * driver, which may crash on it (docs/program_cache.md).
 *
 * The cache never changes a call's outcome: anything that does not work
 * (no directory, unreadable or invalid file, a binary the driver refuses,
 * a full disk, ...) is skipped silently and the program is built from
 * source, and no message is recorded. All of it runs under ctx->lock. */
#define _GNU_SOURCE /* O_TMPFILE */

#include "device/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CLG_CACHE_MAGIC "CLGPROG\0" /* 8 bytes */
#define CLG_CACHE_FORMAT 1u         /* file layout version */
#define CLG_CACHE_TAG "clgather-program-cache-v1"
#define CLG_CACHE_HEADER 64             /* bytes before the binary */
#define CLG_CACHE_MAX_BINARY (1u << 30) /* refuse larger files */

/* ------------------------------------------------------------ hashing */

/* Two independent 64-bit lanes (FNV-1a, and a multiply-rotate mix with its
 * own seed and prime), each finalised with the splitmix64 mixer. Not
 * cryptographic: it tells programs apart, it does not resist an attacker
 * (the cache directory is the user's own). */
static void clg_hash_init(clg_hash128 *h) {
  h->a = 0xcbf29ce484222325ull;
  h->b = 0x9e3779b97f4a7c15ull;
}

static void clg_hash_bytes(clg_hash128 *h, const void *data, size_t n) {
  const unsigned char *p = data;
  uint64_t a = h->a, b = h->b;
  for (size_t i = 0; i < n; ++i) {
    a = (a ^ p[i]) * 0x100000001b3ull;
    b = (b ^ p[i]) * 0xff51afd7ed558ccdull;
    b = (b << 31) | (b >> 33);
  }
  h->a = a;
  h->b = b;
}

/* A field: its length first, so ("ab", "c") and ("a", "bc") differ. */
static void clg_hash_field(clg_hash128 *h, const void *data, size_t n) {
  uint64_t len = n;
  unsigned char le[8];
  for (int i = 0; i < 8; ++i)
    le[i] = (unsigned char)(len >> (8 * i));
  clg_hash_bytes(h, le, sizeof le);
  clg_hash_bytes(h, data, n);
}

static void clg_hash_str(clg_hash128 *h, const char *s) {
  clg_hash_field(h, s, strlen(s));
}

static uint64_t clg_mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

static clg_hash128 clg_hash_final(const clg_hash128 *h) {
  clg_hash128 r = {clg_mix64(h->a ^ (h->b >> 17)), clg_mix64(h->b + h->a)};
  return r;
}

/* Hash a string device or platform property; false if it cannot be read. */
static bool clg_hash_device_str(clg_hash128 *h, cl_device_id dev,
                                cl_device_info what) {
  char buf[1024] = {0};
  if (clGetDeviceInfo(dev, what, sizeof buf - 1, buf, NULL) != CL_SUCCESS)
    return false;
  clg_hash_str(h, buf);
  return true;
}

static bool clg_hash_platform_str(clg_hash128 *h, cl_platform_id plat,
                                  cl_platform_info what) {
  char buf[1024] = {0};
  if (clGetPlatformInfo(plat, what, sizeof buf - 1, buf, NULL) != CL_SUCCESS)
    return false;
  clg_hash_str(h, buf);
  return true;
}

/* Decide once per context whether the cache is on, and hash what every key
 * of this context shares. */
static bool clg_cache_ready(clg_context *ctx) {
  if (ctx->cache_state != 0)
    return ctx->cache_state > 0;
  ctx->cache_state = -1;
  int dirfd = -1;
  char *dir = clg__cache_dir_open(ctx, &dirfd);
  if (!dir)
    return false;
  clg_hash128 h;
  clg_hash_init(&h);
  clg_hash_str(&h, CLG_CACHE_TAG);
  clg_hash_str(&h, clg_version_string());
  cl_platform_id plat = NULL;
  bool ok = clg_hash_device_str(&h, ctx->device, CL_DEVICE_NAME) &&
            clg_hash_device_str(&h, ctx->device, CL_DEVICE_VENDOR) &&
            clg_hash_device_str(&h, ctx->device, CL_DEVICE_VERSION) &&
            clg_hash_device_str(&h, ctx->device, CL_DRIVER_VERSION) &&
            clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof plat, &plat,
                            NULL) == CL_SUCCESS &&
            clg_hash_platform_str(&h, plat, CL_PLATFORM_NAME) &&
            clg_hash_platform_str(&h, plat, CL_PLATFORM_VERSION);
  if (!ok) {
    CLG_WHY(ctx, "the device's or platform's name or version cannot be read "
                 "for the cache key");
    close(dirfd);
    free(dir);
    return false;
  }
  ctx->cache_dir = dir;
  ctx->cache_dirfd = dirfd;
  ctx->cache_seed = h;
  ctx->cache_state = 1;
  return true;
}

bool clg__cache_key(clg_context *ctx, const char *source, const char *options,
                    clg_hash128 *key) {
  if (!clg_cache_ready(ctx))
    return false;
  clg_hash128 h = ctx->cache_seed;
  clg_hash_str(&h, source);
  clg_hash_str(&h, options);
  *key = clg_hash_final(&h);
  return true;
}

int clg_context_cache_info(clg_context *ctx, const char **detail) {
  if (detail)
    *detail = NULL;
  if (!ctx)
    return -1;
  pthread_mutex_lock(&ctx->lock);
  bool on = clg_cache_ready(ctx);
  if (detail)
    *detail = clg__cache_note(ctx, on ? ctx->cache_dir : ctx->cache_why);
  pthread_mutex_unlock(&ctx->lock);
  return on ? 1 : 0;
}

/* -------------------------------------------------------- file format */

static void clg_put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t clg_get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Header layout (little-endian):
 *   0  magic "CLGPROG\0"      8  format version (u64)
 *  16  key.a   24  key.b     32  binary length
 *  40  checksum.a   48 checksum.b   56  reserved (0) */
static void clg_header_write(unsigned char *hdr, const clg_hash128 *key,
                             const unsigned char *bin, size_t len) {
  clg_hash128 c;
  clg_hash_init(&c);
  clg_hash_bytes(&c, bin, len);
  c = clg_hash_final(&c);
  memset(hdr, 0, CLG_CACHE_HEADER);
  memcpy(hdr, CLG_CACHE_MAGIC, 8);
  clg_put64(hdr + 8, CLG_CACHE_FORMAT);
  clg_put64(hdr + 16, key->a);
  clg_put64(hdr + 24, key->b);
  clg_put64(hdr + 32, len);
  clg_put64(hdr + 40, c.a);
  clg_put64(hdr + 48, c.b);
}

/* `file` (size bytes) is a valid entry for `key`? */
static bool clg_file_valid(const unsigned char *file, size_t size,
                           const clg_hash128 *key) {
  if (size <= CLG_CACHE_HEADER || memcmp(file, CLG_CACHE_MAGIC, 8) != 0 ||
      clg_get64(file + 8) != CLG_CACHE_FORMAT ||
      clg_get64(file + 16) != key->a || clg_get64(file + 24) != key->b ||
      clg_get64(file + 32) != size - CLG_CACHE_HEADER ||
      clg_get64(file + 56) != 0)
    return false;
  clg_hash128 c;
  clg_hash_init(&c);
  clg_hash_bytes(&c, file + CLG_CACHE_HEADER, size - CLG_CACHE_HEADER);
  c = clg_hash_final(&c);
  return clg_get64(file + 40) == c.a && clg_get64(file + 48) == c.b;
}

/* The file name "<32 hex digits><suffix>" in the cache directory. */
#define CLG_NAME_MAX 64
static void clg_entry_name(char *name, const clg_hash128 *key,
                           const char *suffix) {
  snprintf(name, CLG_NAME_MAX, "%016llx%016llx%s", (unsigned long long)key->a,
           (unsigned long long)key->b, suffix);
}

/* Read a whole file of the cache directory (at most `max` bytes) into a
 * malloc'ed buffer, if it passes the trust rules (see the top of this
 * file): not a symlink, a regular file, owned by the effective user, mode
 * 0600. O_NONBLOCK: a planted FIFO must not block the open. */
static unsigned char *clg_read_file(clg_context *ctx, const char *name,
                                    size_t max, size_t *size) {
  /* The directory is judged again: its mode may have changed since. */
  struct stat ds;
  if (fstat(ctx->cache_dirfd, &ds) != 0 || ds.st_uid != geteuid() ||
      (ds.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    ctx->disk_refused++;
    return NULL;
  }
  int fd = openat(ctx->cache_dirfd, name,
                  O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ELOOP) /* a symlink */
      ctx->disk_refused++;
    return NULL;
  }
  struct stat st;
  unsigned char *buf = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_uid != geteuid() || (st.st_mode & 07777) != 0600) {
    ctx->disk_refused++;
  } else if (st.st_size > 0 && (uint64_t)st.st_size <= max &&
             (buf = CLG_MALLOC((size_t)st.st_size)) != NULL) {
    size_t want = (size_t)st.st_size, got = 0;
    while (got < want) {
      ssize_t r = read(fd, buf + got, want - got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += (size_t)r;
    }
    if (got != want) {
      free(buf);
      buf = NULL;
    }
    *size = want;
  }
  close(fd);
  return buf;
}

static bool clg_write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}

/* --------------------------------------------------------- load, store */

bool clg__cache_load(clg_context *ctx, const clg_hash128 *key,
                     const char *options, cl_program *out) {
  char name[CLG_NAME_MAX];
  clg_entry_name(name, key, ".bin");
  size_t size = 0;
  unsigned char *file = clg_read_file(
      ctx, name, (size_t)CLG_CACHE_MAX_BINARY + CLG_CACHE_HEADER, &size);
  if (!file)
    return false;
  if (!clg_file_valid(file, size, key)) {
    free(file);
    return false;
  }
  const unsigned char *bin = file + CLG_CACHE_HEADER;
  size_t len = size - CLG_CACHE_HEADER;
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program prog = clCreateProgramWithBinary(ctx->cl_ctx, 1, &ctx->device,
                                              &len, &bin, &status, &err);
  free(file);
  if (!prog)
    return false;
  if (status != CL_SUCCESS || clBuildProgram(prog, 1, &ctx->device, options,
                                             NULL, NULL) != CL_SUCCESS) {
    clReleaseProgram(prog);
    return false;
  }
  *out = prog;
  return true;
}

/* The binary of `prog` for ctx's device (malloc'ed), or NULL. */
static unsigned char *clg_program_binary(clg_context *ctx, cl_program prog,
                                         size_t *len) {
  cl_uint ndev = 0;
  if (clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev,
                       NULL) != CL_SUCCESS ||
      ndev == 0 || ndev > 1024)
    return NULL;
  cl_device_id *devs = CLG_CALLOC(ndev, sizeof *devs);
  size_t *sizes = CLG_CALLOC(ndev, sizeof *sizes);
  unsigned char **bins = CLG_CALLOC(ndev, sizeof *bins);
  unsigned char *bin = NULL;
  cl_uint me = ndev;
  if (devs && sizes && bins &&
      clGetProgramInfo(prog, CL_PROGRAM_DEVICES, ndev * sizeof *devs, devs,
                       NULL) == CL_SUCCESS &&
      clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, ndev * sizeof *sizes,
                       sizes, NULL) == CL_SUCCESS) {
    for (cl_uint i = 0; i < ndev; ++i)
      if (devs[i] == ctx->device)
        me = i;
  }
  /* Only our device's binary is fetched: a NULL entry is skipped. */
  if (me < ndev && sizes[me] > 0 && sizes[me] <= CLG_CACHE_MAX_BINARY &&
      (bin = CLG_MALLOC(sizes[me])) != NULL) {
    bins[me] = bin;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, ndev * sizeof *bins, bins,
                         NULL) == CL_SUCCESS) {
      *len = sizes[me];
    } else {
      free(bin);
      bin = NULL;
    }
  }
  free(devs);
  free(sizes);
  free(bins);
  return bin;
}

static bool clg_store_bytes(clg_context *ctx, const clg_hash128 *key,
                            const char *suffix, const unsigned char *bin,
                            size_t len);

bool clg__cache_store(clg_context *ctx, const clg_hash128 *key,
                      cl_program prog) {
  size_t len = 0;
  unsigned char *bin = clg_program_binary(ctx, prog, &len);
  if (!bin)
    return false;
  bool ok = clg_store_bytes(ctx, key, ".bin", bin, len);
  free(bin);
  return ok;
}

/* ----------------------------------------------------- small records */

#define CLG_RECORD_MAX 256

bool clg__cache_get_record(clg_context *ctx, const clg_hash128 *key,
                           const char *suffix, char *buf, size_t cap) {
  char name[CLG_NAME_MAX];
  clg_entry_name(name, key, suffix);
  size_t size = 0;
  unsigned char *file = clg_read_file(
      ctx, name, (size_t)CLG_RECORD_MAX + CLG_CACHE_HEADER, &size);
  if (!file)
    return false;
  bool ok = clg_file_valid(file, size, key) && size - CLG_CACHE_HEADER < cap;
  if (ok) {
    memcpy(buf, file + CLG_CACHE_HEADER, size - CLG_CACHE_HEADER);
    buf[size - CLG_CACHE_HEADER] = '\0';
  }
  free(file);
  return ok;
}

/* A fresh temporary name for `name` in tmp: name.tmp.PID.SERIAL.TRY. */
static void clg_temp_name(char *tmp, size_t cap, const char *name, int tries) {
  static atomic_uint serial;
  unsigned k = atomic_fetch_add(&serial, 1u);
  snprintf(tmp, cap, "%s.tmp.%ld.%u.%d", name, (long)getpid(), k, tries);
}

#if defined(O_TMPFILE)
/* The bytes written to an unnamed file of the directory (O_TMPFILE), which
 * is then linked to a temporary name and renamed over `name`: a process
 * killed while writing leaves nothing (the kernel frees an unnamed file
 * with its last descriptor); only a kill in the few microseconds between
 * linkat and renameat leaves a complete file under a temporary name.
 * Returns 1 when stored, 0 when it failed, -1 where the file system, the
 * kernel or a missing /proc cannot do it (the caller then writes a named
 * temporary file). */
static int clg_store_unnamed(clg_context *ctx, const char *name,
                             const unsigned char *hdr,
                             const unsigned char *bin, size_t len) {
  int fd = openat(ctx->cache_dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC,
                  0600);
  if (fd < 0)
    return -1;
  bool ok = fchmod(fd, 0600) == 0 &&
            clg_write_all(fd, hdr, CLG_CACHE_HEADER) &&
            clg_write_all(fd, bin, len);
  clg__fi_cache_written();
  if (!ok) {
    close(fd);
    return 0;
  }
  char proc[48], tmp[CLG_NAME_MAX + 32];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  int linked = 0;
  for (int tries = 0; !linked && tries < 16; ++tries) {
    clg_temp_name(tmp, sizeof tmp, name, tries);
    if (linkat(AT_FDCWD, proc, ctx->cache_dirfd, tmp, AT_SYMLINK_FOLLOW) ==
        0)
      linked = 1;
    else if (errno != EEXIST) {
      int e = errno;
      close(fd);
      return e == ENOENT ? -1 : 0; /* ENOENT: no /proc to link through */
    }
  }
  close(fd);
  if (!linked)
    return 0;
  if (renameat(ctx->cache_dirfd, tmp, ctx->cache_dirfd, name) != 0) {
    unlinkat(ctx->cache_dirfd, tmp, 0);
    return 0;
  }
  return 1;
}
#endif

/* Write header + `len` bytes under key + suffix, never into an existing
 * file nor through a symlink, mode 0600 whatever the umask: an unnamed file
 * linked into place (clg_store_unnamed) where the system can, else a new
 * named temporary file (O_CREAT | O_EXCL | O_NOFOLLOW) renamed over the
 * final name, which a kill while writing leaves behind. */
static bool clg_store_bytes(clg_context *ctx, const clg_hash128 *key,
                            const char *suffix, const unsigned char *bin,
                            size_t len) {
  char name[CLG_NAME_MAX], tmp[CLG_NAME_MAX + 32];
  clg_entry_name(name, key, suffix);
  unsigned char hdr[CLG_CACHE_HEADER];
  clg_header_write(hdr, key, bin, len);
#if defined(O_TMPFILE)
  int unnamed = clg_store_unnamed(ctx, name, hdr, bin, len);
  if (unnamed >= 0)
    return unnamed == 1;
#endif
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 16; ++tries) {
    clg_temp_name(tmp, sizeof tmp, name, tries);
    fd = openat(ctx->cache_dirfd, tmp,
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST)
      return false;
  }
  if (fd < 0)
    return false;
  bool ok = fchmod(fd, 0600) == 0 && clg_write_all(fd, hdr, sizeof hdr) &&
            clg_write_all(fd, bin, len);
  clg__fi_cache_written();
  ok = close(fd) == 0 && ok;
  ok = ok && renameat(ctx->cache_dirfd, tmp, ctx->cache_dirfd, name) == 0;
  if (!ok)
    unlinkat(ctx->cache_dirfd, tmp, 0);
  return ok;
}

bool clg__cache_put_record(clg_context *ctx, const clg_hash128 *key,
                           const char *suffix, const char *text) {
  size_t len = strlen(text);
  if (len == 0 || len > CLG_RECORD_MAX)
    return false;
  return clg_store_bytes(ctx, key, suffix, (const unsigned char *)text, len);
}
