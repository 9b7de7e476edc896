/* host/device/cache.c: program binaries are written to the disk cache after
 * a source build and loaded by later contexts; a corrupt file, an unusable
 * directory or a failing OpenCL call is ignored silently and the program is
 * built from source; "off" turns the cache off. Each test has its own
 * temporary directory (support/tmpdir.h). */
#define _XOPEN_SOURCE 700

#include "internal.h"
#include "support/testutil.h"
#include "support/tmpdir.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *g_cache; /* the cache directory of the test */

static void setup(void) { g_cache = tu_tmpdir_cache("cache"); }

TestSuite(cache, .init = setup, .fini = tu_tmpdir_remove);

static const char good_source[] =
    "kernel void twice(global int *p) { p[get_global_id(0)] *= 2 * K; }\n";

/* Apply `edit` to every .bin file of the cache directory. */
static void edit_files(void (*edit)(const char *path)) {
  DIR *d = opendir(g_cache);
  cr_assert_not_null(d);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".bin") == 0) {
      char path[1024];
      snprintf(path, sizeof path, "%s/%s", g_cache, e->d_name);
      edit(path);
    }
  }
  closedir(d);
}

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void xor_byte_at(const char *path, long pos) {
  FILE *f = fopen(path, "r+b");
  cr_assert_not_null(f);
  cr_assert_eq(fseek(f, pos, SEEK_SET), 0);
  int c = fgetc(f);
  cr_assert_neq(c, EOF);
  cr_assert_eq(fseek(f, pos, SEEK_SET), 0);
  fputc(c ^ 0x5a, f);
  fclose(f);
}

static void flip_binary_byte(const char *path) {
  xor_byte_at(path, file_size(path) - 1);
}
static void flip_magic(const char *path) { xor_byte_at(path, 0); }
static void flip_key(const char *path) { xor_byte_at(path, 20); }
static void truncate_half(const char *path) {
  cr_assert_eq(truncate(path, file_size(path) / 2), 0);
}
static void truncate_empty(const char *path) {
  cr_assert_eq(truncate(path, 0), 0);
}
static void truncate_header(const char *path) {
  cr_assert_eq(truncate(path, 64), 0);
}

/* A small Gather on a new context: data f32 [6, 5], indices int64 [4] on
 * axis 0, compared byte for byte with rows copied here. Returns the
 * context (to read its counters); the caller destroys it. */
static void gather_on(clg_context *ctx) {
  float data[6][5], out[4][5], want[4][5];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j)
      data[i][j] = (float)(i * 10 + j) * 1.5f;
  int64_t idx[4] = {5, -1, 0, 2};
  for (int i = 0; i < 4; ++i)
    memcpy(want[i], data[idx[i] < 0 ? idx[i] + 6 : idx[i]], sizeof want[i]);
  memset(out, 0xcd, sizeof out);
  int64_t dshape[2] = {6, 5}, ishape[1] = {4}, oshape[2] = {4, 5};
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, dshape, data);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, oshape, out);
  cr_assert_eq(clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, NULL), CLG_SUCCESS,
               "%s", clg_last_error());
  cr_expect_str_empty(clg_last_error(), "a message is left after success");
  cr_expect_eq(memcmp(out, want, sizeof out), 0, "wrong gather result");
  cr_expect_geq(ctx->builds, 1);
}

static clg_context *new_context(void) {
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS,
               "no OpenCL device: %s", clg_last_error());
  return ctx;
}

static clg_context *gather_on_new_context(void) {
  clg_context *ctx = new_context();
  gather_on(ctx);
  return ctx;
}

Test(cache, first_context_stores_second_loads) {
  clg_context *a = gather_on_new_context();
  unsigned programs = a->builds;
  cr_expect_eq(a->disk_loads, 0);
  cr_expect_eq(a->disk_stores, programs);
  cr_expect_eq(tu_count_files(g_cache, ".bin", NULL, 0), (int)programs,
               "one file per program");
  cr_expect_eq(tu_count_files(g_cache, ".tmp", NULL, 0), 0);
  clg_context_destroy(a);

  clg_context *b = gather_on_new_context();
  cr_expect_eq(b->builds, programs);
  cr_expect_eq(b->disk_loads, programs, "every program comes from disk");
  cr_expect_eq(b->disk_stores, 0);
  clg_context_destroy(b);
  cr_expect_eq(tu_count_files(g_cache, ".bin", NULL, 0), (int)programs);
}

Test(cache, directory_is_created_private) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/a/b/c/", tu_tmpdir()); /* trailing slash too */
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", dir, 1), 0);
  clg_context_destroy(gather_on_new_context());
  struct stat st;
  cr_assert_eq(stat(dir, &st), 0, "the cache directory was not created");
  cr_expect(S_ISDIR(st.st_mode));
  cr_expect_eq(st.st_mode & 0777, 0700);
  cr_expect_geq(tu_count_files(dir, ".bin", NULL, 0), 1);
}

Test(cache, key_covers_source_and_options) {
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
  clg_hash128 k1, k2, k3, k1b;
  cr_assert(clg__cache_key(ctx, good_source, "-DK=1", &k1));
  cr_assert(clg__cache_key(ctx, good_source, "-DK=2", &k2));
  cr_assert(clg__cache_key(ctx, good_source + 1, "-DK=1", &k3));
  cr_assert(clg__cache_key(ctx, good_source, "-DK=1", &k1b));
  cr_expect(k1.a == k1b.a && k1.b == k1b.b, "the key is not deterministic");
  cr_expect(k1.a != k2.a && k1.b != k2.b, "options are not in the key");
  cr_expect(k1.a != k3.a && k1.b != k3.b, "the source is not in the key");
  clg_kernel_entry *e = NULL;
  cr_assert_eq(clg__get_kernel(ctx, good_source, "-DK=1", "twice", &e),
               CLG_SUCCESS);
  cr_assert_eq(clg__get_kernel(ctx, good_source, "-DK=2", "twice", &e),
               CLG_SUCCESS);
  cr_expect_eq(tu_count_files(g_cache, ".bin", NULL, 0), 2);
  clg_context_destroy(ctx);
}

/* Every kind of damage: the file is ignored, the program is built from
 * source, the file is rewritten, and the next context loads it again. */
static void check_damage(void (*edit)(const char *path), const char *what) {
  clg_context *a = gather_on_new_context();
  unsigned programs = a->builds;
  clg_context_destroy(a);
  edit_files(edit);
  clg_context *b = gather_on_new_context();
  cr_expect_eq(b->disk_loads, 0, "%s: a damaged file was loaded", what);
  cr_expect_eq(b->disk_stores, programs, "%s: not rewritten", what);
  clg_context_destroy(b);
  clg_context *c = gather_on_new_context();
  cr_expect_eq(c->disk_loads, programs, "%s: the rewritten file", what);
  clg_context_destroy(c);
}

Test(cache, flipped_binary_byte_is_ignored) {
  check_damage(flip_binary_byte, "flipped byte");
}
Test(cache, wrong_magic_is_ignored) { check_damage(flip_magic, "magic"); }
Test(cache, wrong_key_is_ignored) { check_damage(flip_key, "key"); }
Test(cache, truncated_file_is_ignored) {
  check_damage(truncate_half, "half");
  check_damage(truncate_header, "header only");
  check_damage(truncate_empty, "empty");
}

Test(cache, unusable_directory_is_ignored) {
  /* A path under a regular file can be neither created nor used. */
  char file[512], dir[600];
  snprintf(file, sizeof file, "%s/regular", tu_tmpdir());
  FILE *f = fopen(file, "w");
  cr_assert_not_null(f);
  fclose(f);
  snprintf(dir, sizeof dir, "%s/sub/dir", file);
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", dir, 1), 0);
  clg_context *ctx = gather_on_new_context();
  cr_expect_eq(ctx->cache_state, -1);
  cr_expect_eq(ctx->disk_loads + ctx->disk_stores, 0);
  clg_context_destroy(ctx);
  /* The cache directory is a regular file. */
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", file, 1), 0);
  ctx = gather_on_new_context();
  cr_expect_eq(ctx->cache_state, -1);
  clg_context_destroy(ctx);
  /* A read-only directory (root writes anyway, so only checked otherwise). */
  if (geteuid() != 0) {
    snprintf(dir, sizeof dir, "%s/readonly", tu_tmpdir());
    cr_assert_eq(mkdir(dir, 0500), 0);
    cr_assert_eq(setenv("CLGATHER_CACHE_DIR", dir, 1), 0);
    ctx = gather_on_new_context();
    cr_expect_eq(ctx->disk_stores, 0);
    cr_expect_eq(tu_count_files(dir, "", NULL, 0), 2,
                 "only . and .."); /* nothing */
    clg_context_destroy(ctx);
    chmod(dir, 0700);
  }
}

Test(cache, off_values_disable_it) {
  static const char *const offs[] = {"off", "0", ""};
  char home[512], xdg[512];
  snprintf(home, sizeof home, "%s/home", tu_tmpdir());
  snprintf(xdg, sizeof xdg, "%s/xdg", tu_tmpdir());
  cr_assert_eq(setenv("HOME", home, 1), 0);
  cr_assert_eq(setenv("XDG_CACHE_HOME", xdg, 1), 0);
  for (size_t i = 0; i < 3; ++i) {
    cr_assert_eq(setenv("CLGATHER_CACHE_DIR", offs[i], 1), 0);
    clg_context *ctx = gather_on_new_context();
    cr_expect_eq(ctx->cache_state, -1, "\"%s\"", offs[i]);
    cr_expect_eq(ctx->disk_loads + ctx->disk_stores, 0, "\"%s\"", offs[i]);
    clg_context_destroy(ctx);
  }
  /* (POCL keeps its own kernel cache under XDG_CACHE_HOME.) */
  char where[600];
  snprintf(where, sizeof where, "%s/clgather", xdg);
  cr_expect_eq(tu_count_files(where, "", NULL, 0), -1, "\"off\" created %s",
               where);
  snprintf(where, sizeof where, "%s/.cache/clgather", home);
  cr_expect_eq(tu_count_files(where, "", NULL, 0), -1, "\"off\" created %s",
               where);
  cr_expect_eq(tu_count_files(g_cache, "", NULL, 0), -1, "\"off\" created %s",
               g_cache);
}

Test(cache, default_locations) {
  char home[512], xdg[512], where[600];
  snprintf(home, sizeof home, "%s/home", tu_tmpdir());
  snprintf(xdg, sizeof xdg, "%s/xdg", tu_tmpdir());
  cr_assert_eq(unsetenv("CLGATHER_CACHE_DIR"), 0);
  cr_assert_eq(setenv("HOME", home, 1), 0);
  cr_assert_eq(setenv("XDG_CACHE_HOME", xdg, 1), 0);
  clg_context_destroy(gather_on_new_context());
  snprintf(where, sizeof where, "%s/clgather", xdg);
  cr_expect_geq(tu_count_files(where, ".bin", NULL, 0), 1, "nothing in %s",
                where);
  cr_assert_eq(unsetenv("XDG_CACHE_HOME"), 0);
  clg_context_destroy(gather_on_new_context());
  snprintf(where, sizeof where, "%s/.cache/clgather", home);
  cr_expect_geq(tu_count_files(where, ".bin", NULL, 0), 1, "nothing in %s",
                where);
  /* Neither: no cache, and the call still works. */
  cr_assert_eq(unsetenv("HOME"), 0);
  clg_context *ctx = gather_on_new_context();
  cr_expect_eq(ctx->cache_state, -1);
  clg_context_destroy(ctx);
}

/* ------------------------------------------- per-context settings */

/* A program of its own (good_source with -DK=k) built on ctx. */
static void build_one(clg_context *ctx, int k) {
  char opts[32];
  snprintf(opts, sizeof opts, "-DK=%d", k);
  clg_kernel_entry *e = NULL;
  cr_assert_eq(clg__get_kernel(ctx, good_source, opts, "twice", &e),
               CLG_SUCCESS, "%s", clg_last_error());
}

/* CLG_OPTION_DISK_CACHE 0 on one context: it writes nothing (the directory
 * is not even created) while another context of the process uses the
 * cache; turned on again, its next build is stored. */
Test(cache, off_per_context_writes_nothing) {
  clg_context *a = new_context();
  cr_assert_eq(clg_context_set_option(a, CLG_OPTION_DISK_CACHE, 0),
               CLG_SUCCESS);
  gather_on(a);
  cr_expect_eq(a->disk_loads + a->disk_stores, 0);
  cr_expect_eq(tu_count_files(g_cache, "", NULL, 0), -1, "%s was created",
               g_cache);
  const char *why = NULL;
  cr_expect_eq(clg_context_cache_info(a, &why), 0);
  cr_expect(tu_contains(why, "turned off: CLG_OPTION_DISK_CACHE is 0"), "%s",
            why);

  clg_context *b = gather_on_new_context();
  unsigned programs = b->builds;
  cr_expect_eq(b->disk_stores, programs, "the other context stores");
  cr_expect_eq(tu_count_files(g_cache, ".bin", NULL, 0), (int)programs);
  clg_context_destroy(b);

  /* On again: decided anew at the next use. */
  cr_assert_eq(clg_context_set_option(a, CLG_OPTION_DISK_CACHE, 1),
               CLG_SUCCESS);
  const char *dir = NULL;
  cr_expect_eq(clg_context_cache_info(a, &dir), 1, "%s", dir);
  cr_expect_str_eq(dir, g_cache);
  cr_expect_str_eq(why, "turned off: CLG_OPTION_DISK_CACHE is 0",
                   "the string handed out before changed");
  build_one(a, 3);
  cr_expect_eq(a->disk_stores, 1);
  cr_expect_eq(tu_count_files(g_cache, ".bin", NULL, 0), (int)programs + 1);
  /* Off again after use: the next build is not stored. */
  cr_assert_eq(clg_context_set_option(a, CLG_OPTION_DISK_CACHE, 0),
               CLG_SUCCESS);
  build_one(a, 4);
  cr_expect_eq(a->disk_stores, 1);
  cr_expect_eq(tu_count_files(g_cache, ".bin", NULL, 0), (int)programs + 1);
  clg_context_destroy(a);
}

/* clg_context_set_cache_dir: the context's programs go to its directory
 * (created, mode 0700), which clg_context_cache_info() reports, and are
 * loaded from there by another context set to it; the string is copied;
 * NULL goes back to the environment's directory. */
Test(cache, directory_per_context) {
  char mine[512], arg[600];
  snprintf(mine, sizeof mine, "%s/mine/cache", tu_tmpdir());
  snprintf(arg, sizeof arg, "%s/", mine); /* a trailing slash, too */
  clg_context *a = new_context();
  cr_assert_eq(clg_context_set_cache_dir(a, arg), CLG_SUCCESS, "%s",
               clg_last_error());
  memset(arg, 'x', 20); /* the library keeps its own copy */
  gather_on(a);
  unsigned programs = a->builds;
  cr_expect_eq(a->disk_stores, programs);
  cr_expect_eq(tu_count_files(mine, ".bin", NULL, 0), (int)programs,
               "nothing in %s", mine);
  cr_expect_eq(tu_count_files(g_cache, "", NULL, 0), -1,
               "the environment's %s was used", g_cache);
  struct stat st;
  cr_assert_eq(stat(mine, &st), 0);
  cr_expect_eq(st.st_mode & 0777, 0700);
  const char *where = NULL;
  cr_expect_eq(clg_context_cache_info(a, &where), 1, "%s", where);
  cr_expect_str_eq(where, mine);

  clg_context *c = new_context();
  cr_assert_eq(clg_context_set_cache_dir(c, mine), CLG_SUCCESS);
  gather_on(c);
  cr_expect_eq(c->disk_loads, programs, "not loaded from %s", mine);
  clg_context_destroy(c);

  /* Back to the environment's, after builds: the next build goes there. */
  cr_assert_eq(clg_context_set_cache_dir(a, NULL), CLG_SUCCESS);
  const char *env_dir = NULL;
  cr_expect_eq(clg_context_cache_info(a, &env_dir), 1, "%s", env_dir);
  cr_expect_str_eq(env_dir, g_cache);
  cr_expect_str_eq(where, mine, "the string handed out before changed");
  build_one(a, 5);
  cr_expect_eq(tu_count_files(g_cache, ".bin", NULL, 0), 1);
  cr_expect_eq(tu_count_files(mine, ".bin", NULL, 0), (int)programs);
  clg_context_destroy(a);
}

/* A directory set per context meets the trust rules as the environment's
 * does: writable by others, the cache is off for that context, silently,
 * and clg_context_cache_info() says why. */
Test(cache, directory_per_context_is_judged) {
  char loose[512];
  snprintf(loose, sizeof loose, "%s/loose", tu_tmpdir());
  cr_assert_eq(mkdir(loose, 0700), 0);
  cr_assert_eq(chmod(loose, 0777), 0);
  clg_context *a = new_context();
  cr_assert_eq(clg_context_set_cache_dir(a, loose), CLG_SUCCESS);
  gather_on(a);
  cr_expect_eq(a->disk_loads + a->disk_stores, 0);
  cr_expect_eq(tu_count_files(loose, "", NULL, 0), 2, "only . and ..");
  const char *why = NULL;
  cr_expect_eq(clg_context_cache_info(a, &why), 0);
  cr_expect(tu_contains(why, "writable by group or others"), "%s", why);
  clg_context_destroy(a);
}

/* The environment is read when the context is created: a change after it
 * does not move the context's cache; CLGATHER_CACHE_DIR=off is only the
 * default, which CLG_OPTION_DISK_CACHE 1 overrides (into the context's
 * directory, else the default location). */
Test(cache, environment_read_at_creation) {
  clg_context *a = new_context();
  char other[512];
  snprintf(other, sizeof other, "%s/other", tu_tmpdir());
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", other, 1), 0);
  gather_on(a);
  cr_expect_geq(tu_count_files(g_cache, ".bin", NULL, 0), 1);
  cr_expect_eq(tu_count_files(other, "", NULL, 0), -1, "%s was used", other);
  clg_context_destroy(a);

  char xdg[512], xdg_cache[600];
  snprintf(xdg, sizeof xdg, "%s/xdg", tu_tmpdir());
  snprintf(xdg_cache, sizeof xdg_cache, "%s/clgather", xdg);
  cr_assert_eq(setenv("XDG_CACHE_HOME", xdg, 1), 0);
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", "off", 1), 0);
  a = new_context();
  clg_context *b = new_context();
  cr_assert_eq(unsetenv("CLGATHER_CACHE_DIR"), 0);
  const char *why = NULL;
  cr_expect_eq(clg_context_cache_info(a, &why), 0, "%s", why);
  cr_expect(tu_contains(why, "CLGATHER_CACHE_DIR is 'off'"), "%s", why);
  cr_assert_eq(clg_context_set_option(a, CLG_OPTION_DISK_CACHE, 1),
               CLG_SUCCESS);
  const char *dir = NULL;
  cr_expect_eq(clg_context_cache_info(a, &dir), 1, "%s", dir);
  cr_expect_str_eq(dir, xdg_cache);
  cr_assert_eq(clg_context_set_option(b, CLG_OPTION_DISK_CACHE, 1),
               CLG_SUCCESS);
  cr_assert_eq(clg_context_set_cache_dir(b, other), CLG_SUCCESS);
  gather_on(b);
  cr_expect_geq(tu_count_files(other, ".bin", NULL, 0), 1, "nothing in %s",
                other);
  clg_context_destroy(a);
  clg_context_destroy(b);
}

/* --------------------------------------------------- injected faults */

/* Injected OpenCL failures in the cache's own calls fall back to a source
 * build: the call succeeds, with the right result and no message. */
Test(cache, create_program_with_binary_failure_falls_back) {
  clg_context *a = gather_on_new_context();
  unsigned programs = a->builds;
  clg_context_destroy(a);
  clg_fault_reset();
  clg_fault_inject(CLG_FAULT_CREATE_PROGRAM_BINARY, 0, 1000, CL_INVALID_BINARY);
  clg_context *b = gather_on_new_context();
  cr_expect_eq(clg_fault_calls(CLG_FAULT_CREATE_PROGRAM_BINARY), programs);
  cr_expect_eq(b->disk_loads, 0);
  clg_context_destroy(b);
  clg_fault_reset();
}

Test(cache, binary_build_failure_falls_back) {
  clg_context *a = gather_on_new_context();
  clg_context_destroy(a);
  clg_fault_reset();
  /* The first clBuildProgram is the one of the binary. */
  clg_fault_inject(CLG_FAULT_BUILD_PROGRAM, 0, 1, CL_INVALID_BINARY);
  clg_context *b = gather_on_new_context();
  cr_expect_eq(b->disk_loads + 1, b->builds);
  clg_context_destroy(b);
  clg_fault_reset();
}

Test(cache, program_info_failure_stores_nothing) {
  /* Each of the clGetProgramInfo calls of a store, failing in turn. */
  for (unsigned skip = 0; skip < 4; ++skip) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/info%u", tu_tmpdir(), skip);
    cr_assert_eq(setenv("CLGATHER_CACHE_DIR", dir, 1), 0);
    clg_fault_reset();
    clg_fault_inject(CLG_FAULT_PROGRAM_INFO, skip, 1, CL_INVALID_PROGRAM);
    clg_context *ctx = gather_on_new_context();
    cr_expect_geq(clg_fault_calls(CLG_FAULT_PROGRAM_INFO), skip + 1);
    cr_expect_eq(ctx->disk_stores + 1, ctx->builds, "skip %u", skip);
    cr_expect_eq(tu_count_files(dir, ".bin", NULL, 0), (int)ctx->builds - 1);
    cr_expect_eq(tu_count_files(dir, ".tmp", NULL, 0), 0);
    clg_context_destroy(ctx);
  }
  clg_fault_reset();
}

Test(cache, host_allocation_failures_are_harmless) {
  /* Warm the cache, then fail each host allocation of a warm run in turn:
   * the call either succeeds (the failure was the cache's: silent) or fails
   * with CLG_ERROR_OUT_OF_HOST_MEMORY (a failure of the call's own). */
  clg_context_destroy(gather_on_new_context());
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
  clg_fault_reset();
  clg_kernel_entry *e = NULL;
  cr_assert_eq(clg__get_kernel(ctx, good_source, "-DK=7", "twice", &e),
               CLG_SUCCESS);
  clg_context_destroy(ctx);
  unsigned long allocs = clg_fault_calls(CLG_FAULT_HOST_ALLOC);
  for (unsigned p = 0; p < allocs; ++p) {
    cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
    clg_fault_reset();
    clg_fault_inject(CLG_FAULT_HOST_ALLOC, p, 1, CL_SUCCESS);
    clg_status st = clg__get_kernel(ctx, good_source, "-DK=7", "twice", &e);
    clg_fault_reset();
    cr_expect(st == CLG_SUCCESS || st == CLG_ERROR_OUT_OF_HOST_MEMORY,
              "allocation %u: %s", p, clg_last_error());
    cr_expect_eq(clg__get_kernel(ctx, good_source, "-DK=7", "twice", &e),
                 CLG_SUCCESS, "allocation %u: the retry", p);
    clg_context_destroy(ctx);
  }
}

/* A process killed while it writes a cache file leaves nothing in the
 * directory: the file has no name until it is complete (O_TMPFILE, linked
 * into place). A named temporary file, KEY.bin.tmp.PID.N.T, stayed there
 * for good before. The child is killed (SIGKILL, as by the OOM killer or
 * a CI timeout) in its first store, once the bytes are written. */
Test(cache, killed_while_storing_leaves_nothing) {
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    clg_fault_kill_in_cache_write(true);
    clg_context *ctx = NULL;
    if (clg_context_create_default(NULL, &ctx) != CLG_SUCCESS)
      _exit(3);
    float data[4] = {1, 2, 3, 4}, out[2];
    int64_t ds[1] = {4}, is[1] = {2}, idx[2] = {3, 0};
    clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, data);
    clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
    clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 1, is, out);
    (void)clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, NULL);
    _exit(4); /* no store was made */
  }
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
            "the child was not killed in a store (status 0x%x)", status);
  DIR *dir = opendir(g_cache);
  cr_assert_not_null(dir, "no cache directory");
  for (struct dirent *e; (e = readdir(dir)) != NULL;)
    cr_expect(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0,
              "a killed store left %s in the cache directory", e->d_name);
  closedir(dir);
}
