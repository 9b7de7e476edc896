/* device/cache.c and cache_dir.c: the on-disk store of program binaries and
 * small records (tuning choices), and where it is and whether it is on.
 * Not installed. */
#ifndef CLGATHER_HOST_DEVICE_CACHE_H
#define CLGATHER_HOST_DEVICE_CACHE_H

#include "device/context.h"

#include <stdio.h>

/* ------------------------------------------------------------- cache.c */

/* The on-disk program cache (see cache.c for the location, key and file
 * format). Every function is silent: failure only means "not cached", and
 * no message is recorded. Called with ctx->lock held. */

/* The cache key of (source, options) on ctx's device; false when the cache
 * is off or unusable (checked once per context). */
bool clg__cache_key(clg_context *ctx, const char *source, const char *options,
                    clg_hash128 *key);
/* Load and build (with `options`) the program stored under `key`; false on
 * a miss, an invalid file or any OpenCL failure (nothing is left behind). */
bool clg__cache_load(clg_context *ctx, const clg_hash128 *key,
                     const char *options, cl_program *out);
/* Write the binary of built program `prog` under `key` (temporary file +
 * rename); false when anything fails (nothing is left behind). */
bool clg__cache_store(clg_context *ctx, const clg_hash128 *key,
                      cl_program prog);
/* A small record (a tuning choice) under `key` with `suffix` (".tune"):
 * read into buf (at most cap - 1 bytes, terminated); false on a miss. */
bool clg__cache_get_record(clg_context *ctx, const clg_hash128 *key,
                           const char *suffix, char *buf, size_t cap);
/* Write a small record (temporary file + rename); false on failure. */
bool clg__cache_put_record(clg_context *ctx, const clg_hash128 *key,
                           const char *suffix, const char *text);

/* ---------------------------------------------------------- cache_dir.c */

/* Why the cache is off, into ctx->cache_why (printf-style). */
#define CLG_WHY(ctx, ...)                                                      \
  snprintf((ctx)->cache_why, sizeof(ctx)->cache_why, __VA_ARGS__)
/* Under ctx->lock: the cache directory (malloc'ed) of ctx's settings,
 * created when missing and opened into *dirfd once it passes the trust
 * rules; NULL with ctx->cache_why set when the cache is off or the
 * directory cannot be used. */
char *clg__cache_dir_open(clg_context *ctx, int *dirfd);
/* Under ctx->lock: forget the decision (close the directory, state 0), so
 * that the next use decides again with the settings of then. */
void clg__cache_reset(clg_context *ctx);
/* Under ctx->lock: `text` as a string that lives as long as ctx and never
 * changes (one copy per distinct text; clg_context_cache_info()). */
const char *clg__cache_note(clg_context *ctx, const char *text);
/* Free the context's cache state and settings (clg_context_destroy). */
void clg__cache_release(clg_context *ctx);
/* The environment's cache settings into a new context, read once at its
 * creation: CLGATHER_CACHE_DIR (its off values: CLG_OPTION_DISK_CACHE's
 * default), XDG_CACHE_HOME, HOME. false: out of host memory (nothing is
 * left allocated). Needs no lock (the context is not shared yet). */
bool clg__cache_settings_init(clg_context *ctx);
/* CLG_OPTION_DISK_CACHE: takes ctx->lock, sets the option and makes the
 * next use decide the cache again. */
void clg__cache_set_enabled(clg_context *ctx, bool on);

#endif /* CLGATHER_HOST_DEVICE_CACHE_H */
