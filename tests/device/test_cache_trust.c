/* host/device/cache.c's trust rules: the program cache loads only what the
 * effective user wrote. Each rule is broken in turn: a directory writable
 * by group or others, a directory owned by someone else, a symlinked
 * directory leading to either, a cache file with a loose mode, owned by
 * someone else, a symlink or a FIFO in place of a file, a symlink planted
 * at a name about to be written. Every time the call's result stays
 * correct (compared with rows copied here), the foreign file is not read
 * (ctx->disk_loads stays 0 and ctx->disk_refused counts it), nothing is
 * written through a planted link, and clg_context_cache_info() says why a
 * directory is refused. A control case loads the same files untouched, so
 * each check can fail. Rules that need another owner chown files to uid
 * 65534 and so need root (CI runs as root); elsewhere they are skipped with
 * that reason. */
#define _XOPEN_SOURCE 700

#include "internal.h"
#include "support/tmpdir.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OTHER_UID 65534 /* nobody */

static char g_dir[1024]; /* the cache directory of the test */

static void setup(void) {
  snprintf(g_dir, sizeof g_dir, "%s", tu_tmpdir_cache("trust"));
}

TestSuite(cache_trust, .init = setup, .fini = tu_tmpdir_remove);

static void need_root(void) {
  if (geteuid() != 0)
    cr_skip_test("needs root to give a file another owner (chown to uid %d); "
                 "CI runs as root",
                 OTHER_UID);
}

/* A small Gather on a new context, compared byte for byte with rows copied
 * here; returns the context (for its counters), the caller destroys it. */
static clg_context *gather_on_new_context(void) {
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS,
               "no OpenCL device: %s", clg_last_error());
  float data[7][3], out[5][3], want[5][3];
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 3; ++j)
      data[i][j] = (float)(i * 7 + j) - 0.25f;
  int64_t idx[5] = {6, -7, 3, 3, 0};
  for (int i = 0; i < 5; ++i)
    memcpy(want[i], data[idx[i] < 0 ? idx[i] + 7 : idx[i]], sizeof want[i]);
  memset(out, 0xcd, sizeof out);
  int64_t dshape[2] = {7, 3}, ishape[1] = {5}, oshape[2] = {5, 3};
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, dshape, data);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, oshape, out);
  cr_assert_eq(clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, NULL), CLG_SUCCESS,
               "%s", clg_last_error());
  cr_expect_eq(memcmp(out, want, sizeof out), 0, "wrong gather result");
  return ctx;
}

/* The cache of g_dir is off, says `needle`, and the call is still right. */
static void expect_dir_refused(const char *needle) {
  clg_context *ctx = gather_on_new_context();
  const char *why = NULL;
  cr_expect_eq(clg_context_cache_info(ctx, &why), 0, "the cache is on");
  cr_assert_not_null(why);
  cr_expect(strstr(why, needle) != NULL, "wanted '%s' in: %s", needle, why);
  cr_expect_eq(ctx->disk_loads, 0);
  cr_expect_eq(ctx->disk_stores, 0);
  clg_context_destroy(ctx);
}

/* ------------------------------------------------------------ directories */

Test(cache_trust, private_directory_is_used) {
  clg_context *ctx = gather_on_new_context();
  const char *where = NULL;
  cr_expect_eq(clg_context_cache_info(ctx, &where), 1, "%s",
               where ? where : "(null)");
  cr_expect_str_eq(where, g_dir);
  cr_expect_geq(ctx->disk_stores, 1);
  clg_context_destroy(ctx);
  struct stat st;
  cr_assert_eq(stat(g_dir, &st), 0);
  cr_expect_eq(st.st_mode & 0777, 0700, "the directory was created %04o",
               (unsigned)(st.st_mode & 0777));
  char file[1024];
  cr_assert_geq(tu_count_files(g_dir, ".bin", file, sizeof file), 1);
  cr_assert_eq(stat(file, &st), 0);
  cr_expect_eq(st.st_mode & 07777, 0600, "a file was written %04o",
               (unsigned)(st.st_mode & 07777));
  cr_expect_eq(st.st_uid, geteuid());
  /* Control: the same untouched files are loaded by the next context. */
  ctx = gather_on_new_context();
  cr_expect_geq(ctx->disk_loads, 1, "the control case loaded nothing");
  cr_expect_eq(ctx->disk_refused, 0);
  clg_context_destroy(ctx);
  cr_expect_eq(clg_context_cache_info(NULL, NULL), -1);
}

Test(cache_trust, directory_writable_by_others_is_refused) {
  const mode_t modes[] = {0777, 0770, 0730, 0702, 01777};
  for (size_t k = 0; k < sizeof modes / sizeof modes[0]; ++k) {
    snprintf(g_dir, sizeof g_dir, "%s/loose%zu", tu_tmpdir(), k);
    cr_assert_eq(mkdir(g_dir, 0700), 0);
    cr_assert_eq(chmod(g_dir, modes[k]), 0);
    cr_assert_eq(setenv("CLGATHER_CACHE_DIR", g_dir, 1), 0);
    expect_dir_refused("writable by group or others");
    cr_expect_eq(tu_count_files(g_dir, "", NULL, 0), 2, /* . and .. */
                 "mode %04o: something was written", (unsigned)modes[k]);
  }
}

/* A shared directory (mode 0777) already holding a valid file for the key:
 * refused before any file is opened. */
Test(cache_trust, planted_file_in_shared_directory_is_not_read) {
  clg_context_destroy(gather_on_new_context()); /* valid files in g_dir */
  cr_assert_eq(chmod(g_dir, 0777), 0);
  expect_dir_refused("writable by group or others");
}

Test(cache_trust, directory_owned_by_another_user_is_refused) {
  need_root();
  clg_context_destroy(gather_on_new_context()); /* valid files in g_dir */
  cr_assert_eq(chown(g_dir, OTHER_UID, OTHER_UID), 0);
  expect_dir_refused("is owned by uid 65534, not by the effective user");
}

Test(cache_trust, symlinked_directory_is_judged_by_its_target) {
  char real[600], link[600];
  /* A link to a world-writable directory: refused. */
  snprintf(real, sizeof real, "%s/shared", tu_tmpdir());
  snprintf(link, sizeof link, "%s/via-link", tu_tmpdir());
  cr_assert_eq(mkdir(real, 0700), 0);
  cr_assert_eq(chmod(real, 0777), 0);
  cr_assert_eq(symlink(real, link), 0);
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", link, 1), 0);
  expect_dir_refused("writable by group or others");
  /* A link to the user's own private directory: used. */
  snprintf(real, sizeof real, "%s/private", tu_tmpdir());
  snprintf(link, sizeof link, "%s/to-private", tu_tmpdir());
  cr_assert_eq(mkdir(real, 0700), 0);
  cr_assert_eq(symlink(real, link), 0);
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", link, 1), 0);
  clg_context *ctx = gather_on_new_context();
  cr_expect_eq(clg_context_cache_info(ctx, NULL), 1);
  clg_context_destroy(ctx);
  cr_expect_geq(tu_count_files(real, ".bin", NULL, 0), 1);
}

/* ------------------------------------------------------------------ files */

/* Fill g_dir with valid files, break every .bin file with `edit`, and check
 * that a new context reads none of them and still gets the right result. */
static void check_file_refused(void (*edit)(const char *path),
                               const char *what) {
  tu_rm_tree(g_dir); /* start empty */
  clg_context *a = gather_on_new_context();
  unsigned programs = a->disk_stores;
  cr_assert_geq(programs, 1);
  clg_context_destroy(a);
  DIR *d = opendir(g_dir);
  cr_assert_not_null(d);
  int edited = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".bin") == 0) {
      char path[2048];
      snprintf(path, sizeof path, "%s/%s", g_dir, e->d_name);
      edit(path);
      ++edited;
    }
  }
  closedir(d);
  cr_assert_geq(edited, 1);
  clg_context *b = gather_on_new_context();
  cr_expect_eq(clg_context_cache_info(b, NULL), 1, "%s: the directory", what);
  cr_expect_eq(b->disk_loads, 0, "%s: a foreign file was loaded", what);
  cr_expect_geq(b->disk_refused, programs, "%s: not refused", what);
  clg_context_destroy(b);
}

static void mode_0644(const char *path) { cr_assert_eq(chmod(path, 0644), 0); }
static void mode_0660(const char *path) { cr_assert_eq(chmod(path, 0660), 0); }
static void mode_0666(const char *path) { cr_assert_eq(chmod(path, 0666), 0); }
static void mode_0700(const char *path) { cr_assert_eq(chmod(path, 0700), 0); }
static void mode_4600(const char *path) {
  cr_assert_eq(chmod(path, 04600), 0);
}

Test(cache_trust, file_with_a_loose_mode_is_not_read) {
  check_file_refused(mode_0644, "0644");
  check_file_refused(mode_0660, "0660");
  check_file_refused(mode_0666, "0666");
  check_file_refused(mode_0700, "0700");
  check_file_refused(mode_4600, "04600");
}

static void other_owner(const char *path) {
  cr_assert_eq(chown(path, OTHER_UID, OTHER_UID), 0);
}

Test(cache_trust, file_owned_by_another_user_is_not_read) {
  need_root();
  check_file_refused(other_owner, "owned by uid 65534");
}

/* The valid file moved out of the directory and a symlink to it in its
 * place (another user's link to a file they control, in the simplest
 * form). */
static void symlink_to_moved(const char *path) {
  char moved[1100];
  snprintf(moved, sizeof moved, "%s.moved", path);
  char outside[1200];
  snprintf(outside, sizeof outside, "%s/%s", tu_tmpdir(),
           strrchr(moved, '/') + 1);
  cr_assert_eq(rename(path, outside), 0);
  cr_assert_eq(symlink(outside, path), 0);
}

Test(cache_trust, symlinked_file_is_not_read) {
  check_file_refused(symlink_to_moved, "symlink");
}

static void fifo_instead(const char *path) {
  cr_assert_eq(unlink(path), 0);
  cr_assert_eq(mkfifo(path, 0600), 0);
}

/* A FIFO would block a plain open(): it is refused without blocking. */
Test(cache_trust, fifo_is_not_read, .timeout = 60) {
  check_file_refused(fifo_instead, "FIFO");
}

/* A symlink planted at the name a store writes: the store replaces the
 * link with its own file and writes nothing through it. */
Test(cache_trust, store_replaces_a_planted_symlink) {
  clg_context_destroy(gather_on_new_context());
  char file[1024];
  int n = tu_count_files(g_dir, ".bin", file, sizeof file);
  cr_assert_geq(n, 1);
  char target[600];
  snprintf(target, sizeof target, "%s/victim", tu_tmpdir());
  FILE *f = fopen(target, "wb");
  cr_assert_not_null(f);
  fputs("do not overwrite", f);
  fclose(f);
  cr_assert_eq(unlink(file), 0);
  cr_assert_eq(symlink(target, file), 0);
  clg_context *ctx = gather_on_new_context();
  cr_expect_eq(ctx->disk_loads, (unsigned)n - 1, "the untouched files load");
  cr_expect_eq(ctx->disk_stores, 1, "the refused program is stored again");
  clg_context_destroy(ctx);
  struct stat st;
  cr_assert_eq(lstat(file, &st), 0);
  cr_expect(S_ISREG(st.st_mode), "the symlink is still there");
  cr_expect_eq(st.st_mode & 07777, 0600);
  char buf[64] = {0};
  f = fopen(target, "rb");
  cr_assert_not_null(f);
  cr_assert_not_null(fgets(buf, sizeof buf, f));
  fclose(f);
  cr_expect_str_eq(buf, "do not overwrite", "written through the symlink");
  cr_expect_eq(tu_count_files(g_dir, ".tmp", NULL, 0), 0);
}

/* The directory is made 0700 and files are written 0600 whatever the
 * umask, so they load next time. */
Test(cache_trust, files_are_0600_under_any_umask) {
  umask(0277);
  clg_context_destroy(gather_on_new_context());
  umask(0022);
  struct stat ds;
  cr_assert_eq(stat(g_dir, &ds), 0);
  cr_expect_eq(ds.st_mode & 07777, 0700, "the directory was made %04o",
               (unsigned)(ds.st_mode & 07777));
  char file[1024];
  cr_assert_geq(tu_count_files(g_dir, ".bin", file, sizeof file), 1);
  struct stat st;
  cr_assert_eq(stat(file, &st), 0);
  cr_expect_eq(st.st_mode & 07777, 0600);
  clg_context *ctx = gather_on_new_context();
  cr_expect_geq(ctx->disk_loads, 1);
  cr_expect_eq(ctx->disk_refused, 0);
  clg_context_destroy(ctx);
}

/* A directory loosened after a context opened it: that context stops
 * reading from it. */
Test(cache_trust, directory_judged_again_before_each_read) {
  clg_context_destroy(gather_on_new_context()); /* valid files in g_dir */
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
  cr_assert_eq(clg_context_cache_info(ctx, NULL), 1); /* opened, judged */
  cr_assert_eq(chmod(g_dir, 0777), 0);
  float data[4] = {1, 2, 3, 4}, out[2];
  int64_t ds[1] = {4}, is[1] = {2}, idx[2] = {3, 0};
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 1, ds, data);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, is, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 1, is, out);
  cr_assert_eq(clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, NULL),
               CLG_SUCCESS);
  cr_expect(out[0] == 4 && out[1] == 1);
  cr_expect_eq(ctx->disk_loads, 0, "read from a loosened directory");
  cr_expect_geq(ctx->disk_refused, 1);
  clg_context_destroy(ctx);
}

Test(cache_trust, off_says_why) {
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", "off", 1), 0);
  expect_dir_refused("turned off: CLGATHER_CACHE_DIR is 'off'");
  char file[600];
  snprintf(file, sizeof file, "%s/a-file", tu_tmpdir());
  FILE *f = fopen(file, "wb");
  cr_assert_not_null(f);
  fclose(f);
  snprintf(g_dir, sizeof g_dir, "%s/sub", file);
  cr_assert_eq(setenv("CLGATHER_CACHE_DIR", g_dir, 1), 0);
  expect_dir_refused("cannot create the directory");
}

/* "OFF" is off, as "off" is; a relative CLGATHER_CACHE_DIR is refused (it
 * would be a different folder in each working directory, as
 * clg_context_set_cache_dir and a relative XDG_CACHE_HOME are), and no
 * folder of that name is made in the working directory. */
Test(cache_trust, relative_or_upper_case_environment_is_not_a_folder) {
  char cwd[600], old[1024];
  cr_assert_not_null(getcwd(old, sizeof old));
  snprintf(cwd, sizeof cwd, "%s/cwd", tu_tmpdir());
  cr_assert_eq(mkdir(cwd, 0700), 0);
  cr_assert_eq(chdir(cwd), 0);
  static const char *const off[] = {"OFF", "Off"};
  for (int k = 0; k < 2; ++k) {
    cr_assert_eq(setenv("CLGATHER_CACHE_DIR", off[k], 1), 0);
    expect_dir_refused("turned off: CLGATHER_CACHE_DIR is 'off'");
  }
  static const char *const rel[] = {"relative", "./here", "a/b"};
  for (int k = 0; k < 3; ++k) {
    cr_assert_eq(setenv("CLGATHER_CACHE_DIR", rel[k], 1), 0);
    expect_dir_refused("is not an absolute path");
  }
  cr_expect_eq(tu_count_files(cwd, "", NULL, 0), 2, /* . and .. */
               "something was made in the working directory");
  cr_assert_eq(chdir(old), 0);
}
