/* Helpers shared by the fuzz harnesses (tests/fuzz/fuzz_*.c): a private
 * scratch file for readers that take a path, a per-input bound on the size
 * of any single allocation (sanitizer builds only), and a failure macro that
 * aborts so that libFuzzer and the replay runner both see a crash. */
#ifndef CLGATHER_TESTS_FUZZ_COMMON_H
#define CLGATHER_TESTS_FUZZ_COMMON_H

#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1 /* mkstemps */

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FZ_HAVE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(FZ_HAVE_ASAN)
#define FZ_HAVE_ASAN 1
#endif
/* Allocation hooks need the sanitizer's header (clang ships it; gcc 12 does
 * not): without it an ASan build simply does not measure allocations. */
#if defined(FZ_HAVE_ASAN) && defined(__has_include)
#if __has_include(<sanitizer/allocator_interface.h>)
#include <sanitizer/allocator_interface.h>
#define FZ_HAVE_ALLOC_HOOKS 1
#endif
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Die on a broken invariant so that libFuzzer saves the input. Not abort():
 * once POCL is loaded, libFuzzer no longer sees SIGABRT in this process
 * (the process just dies and no crash file is written); ASan's own report
 * path always works, so in sanitizer builds we let ASan report a trap. */
static inline void fz_die(void) {
#if defined(FZ_HAVE_ASAN)
  __builtin_trap();
#else
  abort();
#endif
}

/* A broken invariant: print it and die (libFuzzer saves the input). */
#define FZ_CHECK(cond, ...)                                                    \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: invariant failed: %s\n  ", __FILE__, __LINE__,   \
              #cond);                                                          \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      fz_die();                                                                \
    }                                                                          \
  } while (0)

/* ---------------------------------------------------------- scratch files */

static char fz_paths[4][4096];
static int fz_npaths;

static inline void fz_remove_paths(void) {
  for (int i = 0; i < fz_npaths; ++i)
    unlink(fz_paths[i]);
}

/* A file of our own under $TMPDIR whose name ends in `suffix` (".npy"),
 * created on first use and removed at exit. Slot k: up to 4 files. */
static inline const char *fz_scratch(int slot, const char *suffix) {
  if (fz_paths[slot][0] != '\0')
    return fz_paths[slot];
  const char *tmp = getenv("TMPDIR");
  if (tmp == NULL || tmp[0] == '\0')
    tmp = "/tmp";
  snprintf(fz_paths[slot], sizeof fz_paths[slot], "%s/clgather_fuzz.XXXXXX%s",
           tmp, suffix);
  int fd = mkstemps(fz_paths[slot], (int)strlen(suffix));
  if (fd < 0) {
    perror("mkstemps");
    abort();
  }
  close(fd);
  if (fz_npaths++ == 0)
    atexit(fz_remove_paths);
  return fz_paths[slot];
}

/* Replace the scratch file's content with buf[0 .. len). */
static inline void fz_put(const char *path, const void *buf, size_t len) {
  int fd = open(path, O_WRONLY | O_TRUNC);
  if (fd < 0) {
    perror(path);
    abort();
  }
  const unsigned char *p = buf;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w <= 0) {
      perror(path);
      abort();
    }
    p += w;
    len -= (size_t)w;
  }
  close(fd);
}

/* --------------------------------------------------- allocation bounding */

/* While armed, the largest single allocation request (sanitizer builds; in a
 * plain build nothing is measured and fz_alloc_max() stays 0). */
static volatile int fz_armed;
static volatile size_t fz_max_alloc;

#if defined(FZ_HAVE_ALLOC_HOOKS)
static void fz_malloc_hook(const volatile void *ptr, size_t size) {
  (void)ptr;
  if (fz_armed && size > fz_max_alloc)
    fz_max_alloc = size;
}
static void fz_free_hook(const volatile void *ptr) { (void)ptr; }
#endif

static inline void fz_alloc_arm(void) {
#if defined(FZ_HAVE_ALLOC_HOOKS)
  static int installed;
  if (!installed) {
    __sanitizer_install_malloc_and_free_hooks(fz_malloc_hook, fz_free_hook);
    installed = 1;
  }
#endif
  fz_max_alloc = 0;
  fz_armed = 1;
}

static inline size_t fz_alloc_disarm(void) {
  fz_armed = 0;
  return fz_max_alloc;
}

#endif /* CLGATHER_TESTS_FUZZ_COMMON_H */
