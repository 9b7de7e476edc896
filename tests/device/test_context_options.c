/*
 * The options of a context (test_context, with device/test_context.c, which
 * covers the rest of contexts): clg_context_set_option's errors leave
 * every option as it was, CLGATHER_HOST_THREADS, CLGATHER_TUNE and
 * CLGATHER_CACHE_DIR give the defaults at creation; the tuning and
 * disk-cache options' values; clg_context_set_cache_dir's refusals; two
 * threads setting every option while a third gathers.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/testutil.h"

#include "internal.h" /* clg__context_host_threads, the options' fields */
#include "support/tmpdir.h"

#include <pthread.h>

#include "device/context_fx.h"

/* clg_context_set_option: its errors leave the option as it was, and
 * CLGATHER_HOST_THREADS gives the default at creation (a bad value: 0). */
Test(context, options) {
  clg_context *ctx = NULL;
  setenv("CLGATHER_HOST_THREADS", "3", 1);
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS, "%s",
               clg_last_error());
  cr_expect_eq(clg__context_host_threads(ctx), 3u);
  cr_expect_eq(clg_context_set_option(NULL, CLG_OPTION_HOST_THREADS, 1),
               CLG_ERROR_NULL_ARGUMENT);
  cr_expect_eq(clg_context_set_option(ctx, CLG_OPTION_HOST_THREADS, -1),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_expect(tu_contains(clg_last_error(), "CLG_OPTION_HOST_THREADS is -1"),
            "%s", clg_last_error());
  cr_expect_eq(clg_context_set_option(ctx, CLG_OPTION_HOST_THREADS, 1025),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_expect_eq(clg_context_set_option(ctx, (clg_option)77, 1),
               CLG_ERROR_INVALID_ARGUMENT);
  cr_expect(tu_contains(clg_last_error(), "unknown context option 77"), "%s",
            clg_last_error());
  cr_expect_eq(clg__context_host_threads(ctx), 3u, "changed by a failure");
  cr_expect_eq(clg_context_set_option(ctx, CLG_OPTION_HOST_THREADS, 1),
               CLG_SUCCESS);
  cr_expect_eq(clg__context_host_threads(ctx), 1u);
  clg_context_destroy(ctx);
  setenv("CLGATHER_HOST_THREADS", "two", 1);
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
  cr_expect_eq(clg__context_host_threads(ctx), 0u);
  clg_context_destroy(ctx);
  unsetenv("CLGATHER_HOST_THREADS");
}

/* The tuning and disk-cache options as a context holds them. */
typedef struct opts {
  int tune;
  int64_t budget_us;
  bool disk_cache;
} opts;

static opts opts_of(clg_context *ctx) {
  opts o;
  o.tune = atomic_load(&ctx->tune_mode);
  o.budget_us = atomic_load(&ctx->tune_budget_us);
  pthread_mutex_lock(&ctx->lock);
  o.disk_cache = ctx->disk_cache;
  pthread_mutex_unlock(&ctx->lock);
  return o;
}

static void expect_opts(clg_context *ctx, opts want, const char *what) {
  opts o = opts_of(ctx);
  cr_expect_eq(o.tune, want.tune, "%s: CLG_OPTION_TUNE is %d", what, o.tune);
  cr_expect_eq(o.budget_us, want.budget_us,
               "%s: CLG_OPTION_TUNE_BUDGET_US is %lld", what,
               (long long)o.budget_us);
  cr_expect_eq(o.disk_cache, want.disk_cache, "%s: CLG_OPTION_DISK_CACHE is %d",
               what, o.disk_cache);
}

/* A failed set_option: CLG_ERROR_INVALID_ARGUMENT, a message naming the
 * option and the value, and every option as it was. */
static void expect_refused(clg_context *ctx, clg_option option, int64_t value,
                           const char *name, opts before) {
  char label[128];
  snprintf(label, sizeof label, "%s = %lld", name, (long long)value);
  cr_expect_eq(clg_context_set_option(ctx, option, value),
               CLG_ERROR_INVALID_ARGUMENT, "%s accepted", label);
  char want[128];
  snprintf(want, sizeof want, "%s is %lld", name, (long long)value);
  cr_expect(tu_contains(clg_last_error(), want), "%s: \"%s\"", label,
            clg_last_error());
  expect_opts(ctx, before, label);
}

/* CLG_OPTION_TUNE, _TUNE_BUDGET_US and _DISK_CACHE: their defaults (from
 * the environment at creation, not later), every value out of range
 * refused with the context unchanged, and the values they take. */
Test(context, tuning_and_cache_options) {
  unsetenv("CLGATHER_TUNE");
  setenv("CLGATHER_CACHE_DIR", "/tmp/clgather-test-unused", 1);
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS, "%s",
               clg_last_error());
  /* A change of the environment after creation changes nothing. */
  setenv("CLGATHER_TUNE", "off", 1);
  setenv("CLGATHER_CACHE_DIR", "off", 1);
  opts on = {CLG_TUNE_SECOND_CALL, 200000, true};
  expect_opts(ctx, on, "defaults");

  expect_refused(ctx, CLG_OPTION_TUNE, 3, "CLG_OPTION_TUNE", on);
  expect_refused(ctx, CLG_OPTION_TUNE, -1, "CLG_OPTION_TUNE", on);
  expect_refused(ctx, CLG_OPTION_TUNE, INT64_MAX, "CLG_OPTION_TUNE", on);
  expect_refused(ctx, CLG_OPTION_TUNE_BUDGET_US, -1,
                 "CLG_OPTION_TUNE_BUDGET_US", on);
  expect_refused(ctx, CLG_OPTION_TUNE_BUDGET_US, INT64_MIN,
                 "CLG_OPTION_TUNE_BUDGET_US", on);
  expect_refused(ctx, CLG_OPTION_DISK_CACHE, 2, "CLG_OPTION_DISK_CACHE", on);
  expect_refused(ctx, CLG_OPTION_DISK_CACHE, -1, "CLG_OPTION_DISK_CACHE", on);
  cr_expect_eq(clg_context_set_option(NULL, CLG_OPTION_TUNE, 0),
               CLG_ERROR_NULL_ARGUMENT);
  cr_expect_eq(clg_context_set_option(ctx, (clg_option)6, 0),
               CLG_ERROR_INVALID_ARGUMENT, "an option past the last known");
  cr_expect_eq(clg_context_set_option(ctx, (clg_option)0, 0),
               CLG_ERROR_INVALID_ARGUMENT);
  expect_opts(ctx, on, "after unknown options");

  cr_expect_eq(clg_context_set_option(ctx, CLG_OPTION_TUNE, 0), CLG_SUCCESS);
  cr_expect_str_empty(clg_last_error(), "a message is left after success");
  cr_expect_eq(clg_context_set_option(ctx, CLG_OPTION_TUNE_BUDGET_US, 0),
               CLG_SUCCESS);
  cr_expect_eq(clg_context_set_option(ctx, CLG_OPTION_DISK_CACHE, 0),
               CLG_SUCCESS);
  opts off = {CLG_TUNE_OFF, 0, false};
  expect_opts(ctx, off, "all set to 0");
  cr_expect_eq(
      clg_context_set_option(ctx, CLG_OPTION_TUNE_BUDGET_US, INT64_MAX),
      CLG_SUCCESS);
  cr_expect_eq(clg_context_set_option(ctx, CLG_OPTION_TUNE, 1), CLG_SUCCESS);
  cr_expect_eq(clg_context_set_option(ctx, CLG_OPTION_DISK_CACHE, 1),
               CLG_SUCCESS);
  opts back = {CLG_TUNE_SECOND_CALL, INT64_MAX, true};
  expect_opts(ctx, back, "set back to 1");
  cr_expect_eq(
      clg_context_set_option(ctx, CLG_OPTION_TUNE, CLG_TUNE_FIRST_CALL),
      CLG_SUCCESS);
  opts first = {CLG_TUNE_FIRST_CALL, INT64_MAX, true};
  expect_opts(ctx, first, "CLG_TUNE_FIRST_CALL");
  cr_expect_eq(clg__context_host_threads(ctx), 0u, "HOST_THREADS moved");
  clg_context_destroy(ctx);

  /* The environment's "off" values are the defaults of contexts created
   * after them. */
  static const char *const offs[] = {"off", "0"};
  for (size_t i = 0; i < 2; ++i) {
    setenv("CLGATHER_TUNE", offs[i], 1);
    setenv("CLGATHER_CACHE_DIR", offs[i], 1);
    cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
    opts env_off = {CLG_TUNE_OFF, 200000, false};
    expect_opts(ctx, env_off, offs[i]);
    clg_context_destroy(ctx);
  }
  /* "first" and "2" time at a class's first call; anything else is the
   * default. */
  static const char *const tunes[] = {"first", "2", "on", "1"};
  unsetenv("CLGATHER_CACHE_DIR");
  for (size_t i = 0; i < 4; ++i) {
    setenv("CLGATHER_TUNE", tunes[i], 1);
    cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
    opts env = {i < 2 ? CLG_TUNE_FIRST_CALL : CLG_TUNE_SECOND_CALL, 200000,
                true};
    expect_opts(ctx, env, tunes[i]);
    clg_context_destroy(ctx);
  }
  unsetenv("CLGATHER_TUNE");
  unsetenv("CLGATHER_CACHE_DIR");
}

/* clg_context_set_cache_dir's refusals leave the directory as it was. */
Test(context, cache_dir_errors) {
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
  cr_expect_eq(clg_context_set_cache_dir(NULL, "/tmp/x"),
               CLG_ERROR_NULL_ARGUMENT);
  cr_expect_eq(clg_context_set_cache_dir(ctx, "/tmp/clgather-kept"),
               CLG_SUCCESS);
  static char longest[5000];
  memset(longest, 'a', sizeof longest - 1);
  longest[0] = '/';
  longest[4096] = '\0'; /* 4096 bytes: one too many */
  const struct {
    const char *dir, *says;
  } bad[] = {{"", "is empty"},
             {"relative/dir", "is not an absolute path"},
             {"./x", "is not an absolute path"},
             {longest, "4096 bytes or longer"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    cr_expect_eq(clg_context_set_cache_dir(ctx, bad[i].dir),
                 CLG_ERROR_INVALID_ARGUMENT, "'%.40s' accepted", bad[i].dir);
    cr_expect(tu_contains(clg_last_error(), bad[i].says), "'%.40s': \"%s\"",
              bad[i].dir, clg_last_error());
    pthread_mutex_lock(&ctx->lock);
    cr_expect_str_eq(ctx->cache_dir_set ? ctx->cache_dir_set : "(none)",
                     "/tmp/clgather-kept", "changed by '%.40s'", bad[i].dir);
    pthread_mutex_unlock(&ctx->lock);
  }
  longest[4095] = '\0'; /* 4095 bytes: the longest taken */
  cr_expect_eq(clg_context_set_cache_dir(ctx, longest), CLG_SUCCESS, "%s",
               clg_last_error());
  cr_expect_eq(clg_context_set_cache_dir(ctx, NULL), CLG_SUCCESS);
  cr_expect_null(ctx->cache_dir_set, "NULL goes back to the environment's");
  clg_context_destroy(ctx);
}

/* Two threads setting every option of one context while a third gathers
 * on it: each call succeeds, every gather is right, and the options end as
 * the last calls left them (a data race here is what the ThreadSanitizer
 * build reports). */
typedef struct setter {
  clg_context *ctx;
  int which;
  const char *dirs[2];
  int failures;
} setter;

static void *set_options(void *arg) {
  setter *s = arg;
  for (int k = 0; k < 400; ++k) {
    clg_status st;
    if (s->which == 0) {
      st = clg_context_set_option(s->ctx, CLG_OPTION_TUNE, k & 1);
      if (st == CLG_SUCCESS)
        st = clg_context_set_option(s->ctx, CLG_OPTION_TUNE_BUDGET_US,
                                    k * 1000);
      if (st == CLG_SUCCESS)
        st = clg_context_set_option(s->ctx, CLG_OPTION_HOST_THREADS, k % 4);
    } else {
      st = clg_context_set_option(s->ctx, CLG_OPTION_DISK_CACHE, (k >> 1) & 1);
      if (st == CLG_SUCCESS)
        st = clg_context_set_cache_dir(s->ctx, s->dirs[k & 1]);
      const char *detail = NULL;
      if (st == CLG_SUCCESS && clg_context_cache_info(s->ctx, &detail) < 0)
        st = CLG_ERROR_INTERNAL;
      if (!detail || !*detail)
        st = CLG_ERROR_INTERNAL;
    }
    s->failures += st != CLG_SUCCESS;
  }
  return NULL;
}

Test(context, options_from_two_threads) {
  char base[] = "/tmp/clgather-test-opts-XXXXXX";
  cr_assert_not_null(mkdtemp(base));
  char d0[64], d1[64];
  snprintf(d0, sizeof d0, "%s/a", base);
  snprintf(d1, sizeof d1, "%s/b", base);
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
  setter s[2] = {{ctx, 0, {d0, d1}, 0}, {ctx, 1, {d0, d1}, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; ++i)
    cr_assert_eq(pthread_create(&t[i], NULL, set_options, &s[i]), 0);
  for (int k = 0; k < 20; ++k)
    assert_gathers(ctx, "while options change");
  for (int i = 0; i < 2; ++i)
    pthread_join(t[i], NULL);
  cr_expect_eq(s[0].failures + s[1].failures, 0, "%d and %d calls failed",
               s[0].failures, s[1].failures);
  /* The last values: k = 399. */
  opts last = {true, 399000, true};
  expect_opts(ctx, last, "after the threads");
  cr_expect_eq(clg__context_host_threads(ctx), 3u);
  const char *detail = NULL;
  cr_expect_eq(clg_context_cache_info(ctx, &detail), 1, "%s", detail);
  cr_expect_str_eq(detail, d1);
  clg_context_destroy(ctx);
  tu_rm_tree(base);
}

/* CLG_OPTION_HOST_RUN_BYTES: its default (CLG_HOST_RUN_BYTES_DEFAULT, or
 * CLGATHER_HOST_RUN_BYTES at creation when it is a decimal integer >= 0),
 * a negative value refused with the message naming it and the option
 * unchanged, 0 and the largest value taken. */
Test(context, host_run_bytes_option) {
  static const struct {
    const char *env;
    int64_t want;
  } envs[] = {{NULL, CLG_HOST_RUN_BYTES_DEFAULT},
              {"4096", 4096},
              {"0", 0},
              {"-1", CLG_HOST_RUN_BYTES_DEFAULT},
              {"12k", CLG_HOST_RUN_BYTES_DEFAULT},
              {"", CLG_HOST_RUN_BYTES_DEFAULT}};
  for (size_t i = 0; i < sizeof envs / sizeof envs[0]; ++i) {
    if (envs[i].env)
      setenv("CLGATHER_HOST_RUN_BYTES", envs[i].env, 1);
    else
      unsetenv("CLGATHER_HOST_RUN_BYTES");
    clg_context *ctx = NULL;
    cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS, "%s",
                 clg_last_error());
    cr_expect_eq(atomic_load(&ctx->host_run_bytes), envs[i].want,
                 "CLGATHER_HOST_RUN_BYTES=%s: %lld",
                 envs[i].env ? envs[i].env : "(unset)",
                 (long long)atomic_load(&ctx->host_run_bytes));
    clg_context_destroy(ctx);
  }
  unsetenv("CLGATHER_HOST_RUN_BYTES");
  clg_context *ctx = NULL;
  cr_assert_eq(clg_context_create_default(NULL, &ctx), CLG_SUCCESS);
  static const int64_t bad[] = {-1, INT64_MIN};
  for (size_t i = 0; i < 2; ++i) {
    cr_expect_eq(clg_context_set_option(ctx, CLG_OPTION_HOST_RUN_BYTES,
                                        bad[i]),
                 CLG_ERROR_INVALID_ARGUMENT, "%lld accepted",
                 (long long)bad[i]);
    char want[96];
    snprintf(want, sizeof want, "CLG_OPTION_HOST_RUN_BYTES is %lld",
             (long long)bad[i]);
    cr_expect(tu_contains(clg_last_error(), want), "\"%s\"",
              clg_last_error());
    cr_expect_eq(atomic_load(&ctx->host_run_bytes),
                 CLG_HOST_RUN_BYTES_DEFAULT, "changed by a refused value");
  }
  static const int64_t good[] = {0, INT64_MAX, 1};
  for (size_t i = 0; i < 3; ++i) {
    cr_expect_eq(clg_context_set_option(ctx, CLG_OPTION_HOST_RUN_BYTES,
                                        good[i]),
                 CLG_SUCCESS, "%s", clg_last_error());
    cr_expect_eq(atomic_load(&ctx->host_run_bytes), good[i]);
  }
  clg_context_destroy(ctx);
}
