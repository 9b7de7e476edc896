/* device/context.c: the context (device facts, queues, caches). Not installed. */
#ifndef CLGATHER_HOST_DEVICE_CONTEXT_H
#define CLGATHER_HOST_DEVICE_CONTEXT_H

#include "core/core.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* ----------------------------------------------------------- context.c */

struct clg_program_entry;

/* A 128-bit hash (cache.c): program cache keys and file checksums. */
typedef struct clg_hash128 {
  uint64_t a, b;
} clg_hash128;

/* Buffers of one size a context keeps for its calls (device/enqueue.c,
 * clg__kept_take/_give), in the state a call needs at its start, each with
 * the event of the last command that may still use it (NULL: none;
 * retained), reused only once that has ended. Under the context's lock. */
#define CLG_KEPT_SLOTS 8
/* CLG_OPTION_HOST_RUN_BYTES' default (clgather.h says what was
 * measured). */
#define CLG_HOST_RUN_BYTES_DEFAULT INT64_C(262144)

typedef struct clg_kept_buffers {
  cl_mem mem[CLG_KEPT_SLOTS];
  cl_event busy[CLG_KEPT_SLOTS];
  unsigned count;
} clg_kept_buffers;

struct clg_context {
  cl_context cl_ctx;
  cl_device_id device;
  bool owns_cl_ctx;       /* created by clg_context_create_default */
  cl_command_queue queue; /* the context's own queue, lazily created */
  /* A queue of its own for clg_outcome_wait()'s verdict reads, lazily
   * created: a read on `queue` would wait behind the caller's commands. */
  cl_command_queue verdict_queue;
  /* Verdict buffers kept between calls: the validation kernel's
   * (run/verdict.c), each of the largest verdict's size, its flag and the
   * operator's words clear; EmbeddingBag's checks' (run/embedding_bag.c),
   * as its checks need them at their start. verdict_gen numbers the
   * validation kernels' runs: each writes its number beside the flag, so
   * that a verdict read back is known to be this run's. */
  clg_kept_buffers verdicts, bag_verdicts;
  atomic_uint verdict_gen;
  /* Scratch buffers of the scatters' device index pass kept between calls
   * (device/enqueue.c, clg__scratch_take), each with the event of the last
   * command that may still use it (NULL: none; retained), taken only once
   * that has ended: at most CLG_SCRATCH_SLOTS, scratch_kept bytes in all.
   * Under `lock`. */
#define CLG_SCRATCH_SLOTS 8
  cl_mem scratch[CLG_SCRATCH_SLOTS];
  size_t scratch_size[CLG_SCRATCH_SLOTS];
  cl_event scratch_busy[CLG_SCRATCH_SLOTS];
  unsigned long scratch_when[CLG_SCRATCH_SLOTS]; /* scratch_ticks when kept */
  unsigned long scratch_ticks;
  size_t scratch_kept;
  pthread_mutex_t lock;               /* guards queue creation and the caches */
  struct clg_program_entry *programs; /* singly linked program cache */
  struct clg_kernel_entry *kernels;   /* singly linked kernel cache */
  size_t max_work_group_size;
  cl_uint compute_units; /* CL_DEVICE_MAX_COMPUTE_UNITS */
  cl_ulong cache_bytes;  /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (0: none) */
  cl_ulong local_bytes;  /* CL_DEVICE_LOCAL_MEM_SIZE */
  /* CL_DEVICE_MAX_MEM_ALLOC_SIZE: the largest buffer the device takes; host
   * tensors larger than this are split (run/split.c). Test builds may
   * lower it (CLGATHER_TEST_MAX_ALLOC). */
  cl_ulong max_alloc;
  cl_device_type device_type; /* one type: clg__quirk_device_type() */
  /* Trials of kernel variants (tune.c): a buffer twice the device's cache,
   * filled before each timed run so that every candidate starts with the
   * caches holding none of the call's tensors; held only while a tuning
   * runs (tune_users of them, under `lock`). */
  cl_mem tune_scratch;
  size_t tune_scratch_bytes;
  unsigned tune_users;
  /* The environment's say on the variants, read when the context is
   * created (not at each call): CLGATHER_VARIANT (the forced variant, -1:
   * none). */
  int forced_variant;
  /* CLG_OPTION_TUNE, a clg_tune_mode (from CLGATHER_TUNE at creation:
   * off|0, first|2, else CLG_TUNE_SECOND_CALL) and
   * CLG_OPTION_TUNE_BUDGET_US (clg_context_set_option), each read once by
   * a call that may time its candidates (tune.c). */
  atomic_int tune_mode;
  atomic_int_least64_t tune_budget_us;
  /* CLG_OPTION_HOST_THREADS (clg_context_set_option; from
   * CLGATHER_HOST_THREADS at creation): 0 no bound of the context's own. */
  atomic_size_t host_threads;
  /* CLG_OPTION_HOST_RUN_BYTES: the largest output of a gather run on the
   * calling thread (run/host_run.c); 0: none. Default
   * CLG_HOST_RUN_BYTES_DEFAULT. */
  atomic_int_least64_t host_run_bytes;
  /* CL_DEVICE_HOST_UNIFIED_MEMORY: host memory is device memory (CPU
   * devices, integrated GPUs). Host tensors are then wrapped in place
   * (CL_MEM_USE_HOST_PTR) instead of being copied. */
  bool host_unified;
  unsigned builds;      /* programs created so far, from source or from the
                         * disk cache (for tests) */
  unsigned disk_loads;  /* ... of which loaded from the disk cache */
  unsigned disk_stores; /* binaries written to the disk cache */
  unsigned disk_refused; /* cache files not read: not a regular file owned
                          * by the effective user with mode 0600, or a
                          * symlink (cache.c's trust rules; for tests) */
  unsigned hint_fallbacks; /* programs built again without compiler hints
                            * (quirks.c; for tests) */
  unsigned build_retries; /* builds tried again after CL_BUILD_PROGRAM_FAILURE
                          * (programs.c: POCL's kernel cache race) */
  /* The device's quirks (device/quirks.h), looked up on the first build
   * (quirks_ready), under `lock`. */
  unsigned quirks;
  bool quirks_ready;
  /* The hints probe built and created its kernel (programs.c): a later
   * refusal with hints is the program's own, not the device's. */
  bool hints_probed;
  /* The on-disk program cache's settings, under `lock` (cache.c):
   * CLG_OPTION_DISK_CACHE (disk_cache; disk_cache_set once the option was
   * set, so that the reason given names it), the environment's directory
   * at creation (cache_env_dir, NULL: none; cache_env_off: the value of
   * CLGATHER_CACHE_DIR that turned the cache off, else NULL) and
   * clg_context_set_cache_dir()'s (cache_dir_set, NULL: none). A change
   * resets cache_state to 0. */
  bool disk_cache;
  bool disk_cache_set;
  const char *cache_env_off;
  char *cache_env_dir;
  char *cache_dir_set;
  /* The strings clg_context_cache_info() handed out, kept until the
   * context is destroyed (a reset frees cache_dir and rewrites cache_why).
   */
  struct clg_cache_note *cache_notes;
  /* The on-disk program cache (cache.c), looked at on the first program
   * miss: 0 not yet, 1 on (cache_dir, cache_dirfd, cache_seed set), -1 off
   * (cache_why says why). */
  int cache_state;
  char *cache_dir;
  int cache_dirfd;        /* the checked directory, open (state 1 only) */
  char cache_why[320];    /* why the cache is off (state -1) */
  clg_hash128 cache_seed; /* hash of the key fields every program shares */
  /* cl_mem index arrays validated on the device (the validation kernel
   * enqueued successfully) rather than read back: for tests. Zeroed by the
   * context's calloc. */
  atomic_uint device_validations;
  /* Strided operands copied by the strided-copy kernel, and Gathers run
   * by the direct strided kernel (run/strided.c): for tests. */
  atomic_uint strided_copies, strided_gathers;
  /* EmbeddingBags run on packed tables (run/bag_split.c), and the groups
   * of bags they ran: for tests. */
  atomic_uint bag_splits, bag_split_groups;
  /* Kernel variants chosen per shape class (tune.c), under `lock`. */
  struct clg_tune_entry *tuned;
  /* The variant the last kernel launch used and how it was chosen
   * (clg_context_last_variant), under `lock`. */
  const char *last_variant;
  clg_choice last_choice;
};

/* The context's CLG_OPTION_HOST_THREADS (0: no bound of its own). */
size_t clg__context_host_threads(const clg_context *ctx);

/* The context's verdict-reading queue (created on first use; NULL with the
 * message set when it cannot be). */
cl_command_queue clg__verdict_queue(clg_context *ctx);

/* Resolve the queue argument of an operator call: NULL means the context's
 * own queue; otherwise it must belong to ctx's context and device. */
clg_status clg__resolve_queue(clg_context *ctx, cl_command_queue queue,
                              cl_command_queue *out);

#endif /* CLGATHER_HOST_DEVICE_CONTEXT_H */
