/* clgather-bench: cold start (--only coldstart), new process -> first W1
 * result on host memory with the disk cache cold, warm and off. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child process (this binary, --cold-start-child) creates a context and
 * runs one W1 gather on host memory. It prepares W1's inputs first, before
 * touching OpenCL, and reports CLOCK_MONOTONIC (system-wide) times, so the
 * parent measures spawn -> first result and takes out the input
 * preparation, which is no cost of the library. */

const char *const cold_case_name[COLD_CASES] = {"cold", "warm", "off"};

/* The child: prints one line "clgather-bench-cold main=T inputs=T ctx=T
 * result=T ok=0|1" (monotonic seconds) on stdout. */
int cold_start_child(const settings *cfg, double t_main) {
  int wi = find_work("W1");
  if (wi < 0)
    return 3;
  const bench_op *op = &g_work[wi].op;
  int32_t orank = 0;
  int64_t oshape[CLG_MAX_RANK];
  if (bench_ref_shape(op, &orank, oshape) != 0)
    return 3;
  size_t es = clg_dtype_size(op->dtype), xs = clg_dtype_size(op->itype);
  size_t db = (size_t)bench_numel(op->drank, op->dshape) * es;
  size_t xb = (size_t)bench_numel(op->irank, op->ishape) * xs;
  size_t ob = (size_t)bench_numel(orank, oshape) * es;
  unsigned char *data = malloc(db), *got = malloc(ob), *want = malloc(ob);
  void *indices = malloc(xb);
  if (!data || !got || !want || !indices) {
    fprintf(stderr, "clgather-bench (cold-start child): out of memory\n");
    return 3;
  }
  case_rng rng = case_rng_make(0x5eed0000u + (uint64_t)wi);
  case_rng_bytes(&rng, data, db);
  bench_make_indices(op, indices, &rng);
  memset(got, 0x5A, ob);
  double t_inputs = bench_now();

  clg_context *ctx = NULL;
  clg_status st = clg_context_create_default(cfg->device, &ctx);
  double t_ctx = bench_now();
  if (st == CLG_SUCCESS) {
    clg_tensor dh = clg_tensor_host(op->dtype, op->drank, op->dshape, data);
    clg_tensor xh = clg_tensor_host(op->itype, op->irank, op->ishape, indices);
    clg_tensor oh = clg_tensor_host(op->dtype, orank, oshape, got);
    st = clg_run(ctx, &op->params, &dh, &xh, &oh, NULL, 0, NULL, NULL);
  }
  double t_result = bench_now();
  if (st != CLG_SUCCESS) {
    fprintf(stderr, "clgather-bench (cold-start child): %s: %s\n",
            clg_status_string(st), clg_last_error());
    clg_context_destroy(ctx);
    return 3;
  }
  int ok = bench_reference(op, data, indices, want) == 0 &&
           memcmp(got, want, ob) == 0;
  printf("clgather-bench-cold main=%.9f inputs=%.9f ctx=%.9f result=%.9f "
         "ok=%d\n",
         t_main, t_inputs, t_ctx, t_result, ok);
  fflush(stdout);
  clg_context_destroy(ctx);
  free(data);
  free(got);
  free(want);
  free(indices);
  return ok ? 0 : 1;
}

extern char **environ;

/* Spawn one child with CLGATHER_CACHE_DIR=cache_dir; 0 and *out, or -1
 * (message in msg; *wrong set when the child's result was wrong). */
static int cold_spawn(const settings *cfg, const char *argv0,
                      const char *cache_dir, cold_sample *out, int *wrong,
                      char *msg, size_t msglen) {
  size_t nenv = 0;
  while (environ[nenv])
    ++nenv;
  char **envp = malloc((nenv + 2) * sizeof *envp);
  size_t vlen = strlen("CLGATHER_CACHE_DIR=") + strlen(cache_dir) + 1;
  char *var = malloc(vlen);
  if (!envp || !var) {
    free(envp);
    free(var);
    snprintf(msg, msglen, "out of host memory");
    return -1;
  }
  snprintf(var, vlen, "CLGATHER_CACHE_DIR=%s", cache_dir);
  size_t k = 0;
  for (size_t i = 0; i < nenv; ++i)
    if (strncmp(environ[i], "CLGATHER_CACHE_DIR=", 19) != 0)
      envp[k++] = environ[i];
  envp[k++] = var;
  envp[k] = NULL;
  char *args[5];
  int na = 0;
  args[na++] = (char *)argv0;
  args[na++] = (char *)"--cold-start-child";
  if (cfg->device) {
    args[na++] = (char *)"--device";
    args[na++] = (char *)cfg->device;
  }
  args[na] = NULL;

  int fds[2];
  if (pipe(fds) != 0) {
    snprintf(msg, msglen, "pipe: %s", strerror(errno));
    free(envp);
    free(var);
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[1]);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = 0;
  double t_spawn = bench_now();
  int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, args, envp);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  free(envp);
  free(var);
  if (rc != 0) {
    close(fds[0]);
    snprintf(msg, msglen, "posix_spawn of /proc/self/exe: %s", strerror(rc));
    return -1;
  }
  char line[512];
  size_t used = 0;
  for (;;) {
    ssize_t got = read(fds[0], line + used, sizeof line - 1 - used);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    used += (size_t)got;
    if (used == sizeof line - 1)
      break;
  }
  line[used] = '\0';
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  double tm = 0, ti = 0, tc = 0, tr = 0;
  int ok = 0;
  if (sscanf(line,
             "clgather-bench-cold main=%lf inputs=%lf ctx=%lf "
             "result=%lf ok=%d",
             &tm, &ti, &tc, &tr, &ok) != 5) {
    snprintf(msg, msglen,
             "the cold-start child (CLGATHER_CACHE_DIR=%s) reported nothing "
             "(exit status %d)",
             cache_dir, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
  }
  if (!ok) {
    *wrong = 1;
    snprintf(msg, msglen,
             "WRONG result in the cold-start child "
             "(CLGATHER_CACHE_DIR=%s)",
             cache_dir);
    return -1;
  }
  out->startup = tm - t_spawn;
  out->inputs = ti - tm;
  out->context = tc - ti;
  out->call = tr - tc;
  out->first = (tr - t_spawn) - out->inputs;
  return 0;
}

/* Files in dir; with remove_all, delete them and the directory (the cache
 * is flat: one file per program). */
static int dir_files(const char *dir, int remove_all) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *ent;
  char path[4096];
  while ((ent = readdir(d)) != NULL) {
    if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
      continue;
    ++n;
    if (remove_all) {
      snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
      unlink(path);
    }
  }
  closedir(d);
  if (remove_all)
    rmdir(dir);
  return n;
}

void run_cold_start(const settings *cfg, const char *argv0, cold_result *r) {
  double t_start = bench_now();
  memset(r, 0, sizeof *r);
  r->status = ST_ERROR;
  r->cache_files = -1;
  int reps = cfg->quick ? 1 : 3;
  cold_sample s[COLD_CASES][3];
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp)
    tmp = "/tmp";
  int wrong = 0;
  for (int k = 0; k < reps; ++k) {
    /* A fresh empty directory for the cold child, the same one again for
     * the warm child, then the cache off; the three interleaved. */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/clgather-bench-cache-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
      snprintf(r->message, sizeof r->message, "mkdtemp %.400s: %s", dir,
               strerror(errno));
      goto done;
    }
    const char *dirs[COLD_CASES] = {dir, dir, "off"};
    int failed = 0;
    for (int c = 0; c < COLD_CASES && !failed; ++c) {
      fprintf(stderr, ".");
      failed = cold_spawn(cfg, argv0, dirs[c], &s[c][k], &wrong, r->message,
                          sizeof r->message) != 0;
      if (!failed && c == 0 && k == 0)
        r->cache_files = dir_files(dir, 0);
    }
    dir_files(dir, 1);
    if (failed) {
      if (wrong)
        r->status = ST_WRONG;
      goto done;
    }
  }
  for (int c = 0; c < COLD_CASES; ++c) {
    double v[5][3];
    for (int k = 0; k < reps; ++k) {
      v[0][k] = s[c][k].first;
      v[1][k] = s[c][k].startup;
      v[2][k] = s[c][k].context;
      v[3][k] = s[c][k].call;
      v[4][k] = s[c][k].inputs;
    }
    r->med[c].first = median_of(v[0], reps);
    r->first_min[c] = v[0][0];
    r->first_max[c] = v[0][reps - 1];
    r->med[c].startup = median_of(v[1], reps);
    r->med[c].context = median_of(v[2], reps);
    r->med[c].call = median_of(v[3], reps);
    r->med[c].inputs = median_of(v[4], reps);
  }
  r->reps = reps;
  r->status = ST_OK;
  r->message[0] = '\0';
done:
  r->seconds = bench_now() - t_start;
}
