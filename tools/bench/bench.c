/* clgather-bench: performance of the gather family against the device's own
 * copy bandwidth, measured in the same run.
 *
 * A client of the public API (clgather.h); OpenCL is used directly only for
 * the profiling queue, the device-resident buffers, the copy reference
 * (clEnqueueCopyBuffer and a plain copy kernel) and the empty kernel.
 *
 * For every workload, after checking both the device-resident and the
 * host-resident result byte for byte against a plain-C reference:
 *  (a) kernel: clg_run on cl_mem data/indices/output with our profiling
 *      queue, END - START of the returned event (the blocking read-back of
 *      the indices that validation does is outside that event);
 *  (d) copy-ref: the faster of clEnqueueCopyBuffer and a plain copy kernel
 *      of the output's bytes, event-profiled; (a) and (d) are interleaved
 *      sample by sample so that load on the machine hits both alike;
 *  (b) call: clg_run on host memory (staging, validation, kernel, read-back
 *      included), wall clock;
 *  (c) validate: clg_validate(NULL, ...) on the same host tensors, wall
 *      clock, interleaved with (b);
 *  (e) once per run: the empty kernel, event-profiled and wall clock.
 * Every figure is the median of its samples after warm-up.
 *
 * Two extras (--only pipeline, --only coldstart):
 *  device-resident validation, W1 and W2 with data, indices and output in
 *  cl_mem, after the same byte-for-byte check: (a) again, interleaved with
 *  (i) clg_validate on the cl_mem indices (the library's chosen path),
 *  (ii) the read-back path done by the bench (blocking clEnqueueReadBuffer
 *  of the indices + clg_validate(NULL) on the copy), (iii) the checked
 *  clg_run, wall clock from the call to its event's completion;
 *  (iv) clg_run_async on the same tensors, wall clock from the call to its
 *  event's completion and clg_outcome_wait(), and (v) the same call timed
 *  only until clg_run_async returns;
 *  cold start: this binary run as a child (--cold-start-child) that creates
 *  a context and runs one W1 gather on host memory, with CLGATHER_CACHE_DIR
 *  a fresh empty directory, the same directory again, and "off".
 *
 * Two more (--only plans, --only shard), W1 and W2 on cl_mem tensors:
 *  plans: the host overhead per call (wall clock call -> event completion
 *  less the kernel's event time) of clg_plan_enqueue on a baked plan and of
 *  clg_run, interleaved with (a); and the first call of an unbaked plan and
 *  of a baked one (clg_plan_bake timed apart) on new clg_contexts with
 *  CLGATHER_CACHE_DIR=off (set in this process for those calls only);
 *  shard: with two devices on the platform of the bench's device (POCL:
 *  POCL_DEVICES="pthread pthread"), one cl_context holding both,
 *  clg_run_sharded over the two against clg_run on the first, end to end,
 *  as ratios to the copy reference of the first device; a
 *  clg_run_sharded that fails (not implemented yet) skips its row.
 *
 * This file: the options, the launch floor and the driver that runs the
 * selected measurements and prints the report; bench.h lists the other
 * parts and the one-way order of their calls.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The end of a progress line on stderr: the status, the seconds this step
 * took and the total so far, and the message of a failure. */
static void progress_end(int status, double seconds, double t_begin,
                         const char *message) {
  fprintf(stderr, "%-5s %5.1f s (total %5.1f s)%s%s\n",
          status == ST_OK      ? "ok"
          : status == ST_NA    ? "n/a"
          : status == ST_WRONG ? "WRONG"
                               : "error",
          seconds, bench_now() - t_begin, status ? ": " : "",
          status ? message : "");
}

/* ----------------------------------------------------------------- main */

static void usage(FILE *f) {
  fprintf(f,
          "usage: clgather-bench [--device SPEC] [--json] [--quick] "
          "[--only LIST] [--reps N]\n"
          "                      [--budget SECONDS] [--sweep-mib N] "
          "[--list]\n"
          "       clgather-bench -h|--help | -V|--version\n"
          "  --device SPEC   P:D or a device-name substring (default: "
          "CLGATHER_DEVICE,\n"
          "                  else the first GPU, else the first device)\n"
          "  --json          machine-readable results on stdout\n"
          "  --quick         fewer samples and a smaller sweep (~1 min on a "
          "2-core CPU)\n"
          "  --only LIST     comma-separated workload names (see --list); "
          "NAME* is a\n"
          "                  prefix; standard, sweep, family select groups; "
          "pipeline\n"
          "                  (device-resident validation, W1 and W2), "
          "coldstart\n"
          "                  (new process to first W1 result), plans "
          "(clg_plan_enqueue vs\n"
          "                  clg_run, first calls baked and unbaked) and "
          "shard\n"
          "                  (clg_run_sharded over 2 devices vs clg_run) "
          "select the extras;\n"
          "                  without --only everything runs\n"
          "  --reps N        exactly N samples per figure (default: "
          "adaptive)\n"
          "  --budget S      seconds of samples per measured set (default "
          "0.8; quick 0.15)\n"
          "  --sweep-mib N   output size of each sweep workload (default 64; "
          "quick 8)\n"
          "  --list          list the workloads and exit\n"
          "  --cold-start-child  internal: one cold-start measurement "
          "(run by coldstart)\n"
          "shard needs two devices on the platform of the bench's device; "
          "on POCL, run\n"
          "with POCL_DEVICES=\"pthread pthread\" for two CPU devices (with "
          "one, the shard\n"
          "table says so and is skipped).\n"
          "Progress goes to stderr. Exit: 0 ok (n/a rows included), 1 a "
          "wrong result,\n"
          "2 usage, 3 device or setup error.\n");
}

static int parse_int(const char *s, long lo, long hi, long *out) {
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (!s[0] || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  double t_main = bench_now();
  settings cfg = {0};
  int list = 0, child = 0;
  double budget = -1;
  long sweep_mib = -1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    long n = 0;
    if (!strcmp(a, "--json")) {
      cfg.json = 1;
    } else if (!strcmp(a, "--quick")) {
      cfg.quick = 1;
    } else if (!strcmp(a, "--list")) {
      list = 1;
    } else if (!strcmp(a, "--cold-start-child")) {
      child = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
      printf("clgather-bench %s\n", clg_version_string());
      return 0;
    } else if (!strcmp(a, "--device") && v) {
      cfg.device = v;
      ++i;
    } else if (!strcmp(a, "--only") && v) {
      cfg.only = v;
      ++i;
    } else if (!strcmp(a, "--reps") && v && parse_int(v, 1, 100000, &n) == 0) {
      cfg.reps = (int)n;
      ++i;
    } else if (!strcmp(a, "--sweep-mib") && v &&
               parse_int(v, 1, 4096, &n) == 0) {
      sweep_mib = n;
      ++i;
    } else if (!strcmp(a, "--budget") && v) {
      char *end = NULL;
      budget = strtod(v, &end);
      if (*end || !(budget > 0 && budget < 1000)) {
        fprintf(stderr, "clgather-bench: bad --budget '%s'\n", v);
        return 2;
      }
      ++i;
    } else {
      fprintf(stderr, "clgather-bench: bad argument '%s'%s\n", a,
              a[0] == '-' ? " (unknown option, or a missing or bad value)"
                          : "");
      usage(stderr);
      return 2;
    }
  }
  cfg.budget = budget > 0 ? budget : cfg.quick ? 0.15 : 0.8;
  cfg.min_reps = cfg.quick ? 3 : 5;
  cfg.max_reps = cfg.quick ? 50 : 200;
  cfg.warmup = cfg.quick ? 1 : 2;
  cfg.sweep_bytes = (size_t)(sweep_mib > 0 ? sweep_mib
                             : cfg.quick   ? 8
                                           : 64) *
                    1024 * 1024;
  define_workloads(&cfg);
  if (child)
    return cold_start_child(&cfg, t_main);

  int idx[MAX_WORKLOADS], n = 0;
  for (int i = 0; i < g_nwork; ++i)
    if (selected(&cfg, &g_work[i]))
      idx[n++] = i;
  if (list) {
    for (int i = 0; i < g_nwork; ++i) {
      char d[256];
      describe(d, sizeof d, &g_work[i].op);
      printf("%-8s %-14s %s\n", g_work[i].name, g_work[i].label, d);
    }
    printf("%-8s %-14s %s\n", "pipeline", "(extra)",
           "W1, W2 device-resident: validation paths, checked end to end");
    printf("%-8s %-14s %s\n", "coldstart", "(extra)",
           "new process -> first W1 result, disk cache cold/warm/off");
    printf("%-8s %-14s %s\n", "plans", "(extra)",
           "W1, W2 device-resident: clg_plan_enqueue vs clg_run overhead, "
           "first call unbaked/baked");
    printf("%-8s %-14s %s\n", "shard", "(extra)",
           "W1, W2 device-resident: clg_run_sharded over 2 devices vs "
           "clg_run (POCL_DEVICES=\"pthread pthread\")");
    return 0;
  }
  extras *x = calloc(1, sizeof *x);
  if (!x) {
    fprintf(stderr, "clgather-bench: out of host memory\n");
    return 3;
  }
  x->pipeline = only_has(&cfg, "pipeline");
  x->coldstart = only_has(&cfg, "coldstart");
  x->plans = only_has(&cfg, "plans");
  x->shard = only_has(&cfg, "shard");
  if (n == 0 && !x->pipeline && !x->coldstart && !x->plans && !x->shard) {
    fprintf(stderr,
            "clgather-bench: --only '%s' selects no workload (see "
            "--list)\n",
            cfg.only);
    return 2;
  }

  double t_begin = bench_now();
  env E = {NULL, {0}, &cfg};
  clg_status st = clg_context_create_default(cfg.device, &E.ctx);
  if (st != CLG_SUCCESS) {
    fprintf(stderr, "clgather-bench: %s: %s\n", clg_status_string(st),
            clg_last_error());
    free(x);
    return 3;
  }
  char err[4096];
  if (bench_cl_init(&E.cl, clg_context_cl_context(E.ctx),
                    clg_context_device(E.ctx), err, sizeof err) != 0) {
    fprintf(stderr, "clgather-bench: %s\n", err);
    bench_cl_release(&E.cl);
    clg_context_destroy(E.ctx);
    free(x);
    return 3;
  }
  run_info info;
  memset(&info, 0, sizeof info);
  clGetDeviceInfo(E.cl.dev, CL_DEVICE_NAME, sizeof info.device - 1, info.device,
                  NULL);
  clGetDeviceInfo(E.cl.dev, CL_DEVICE_VERSION, sizeof info.version - 1,
                  info.version, NULL);
  clGetDeviceInfo(E.cl.dev, CL_DRIVER_VERSION, sizeof info.driver - 1,
                  info.driver, NULL);
  info.cus = E.cl.compute_units;
  fprintf(stderr,
          "clgather-bench: %s, %u compute units; %d workloads%s%s%s%s\n",
          info.device, (unsigned)info.cus, n, x->pipeline ? " + pipeline" : "",
          x->coldstart ? " + coldstart" : "", x->plans ? " + plans" : "",
          x->shard ? " + shard" : "");

  /* (e) the launch floor. */
  {
    int reps = cfg.reps ? cfg.reps : cfg.quick ? 50 : 200;
    double *ev = malloc((size_t)reps * sizeof *ev);
    double *wall = malloc((size_t)reps * sizeof *wall);
    int ok = ev && wall;
    for (int k = 0; ok && k < 3; ++k) /* warm-up */
      ok = bench_cl_empty(&E.cl, &ev[0], &wall[0]) == 0;
    for (int k = 0; ok && k < reps; ++k)
      ok = bench_cl_empty(&E.cl, &ev[k], &wall[k]) == 0;
    if (!ok) {
      fprintf(stderr, "clgather-bench: the empty kernel failed\n");
      free(ev);
      free(wall);
      bench_cl_release(&E.cl);
      clg_context_destroy(E.ctx);
      free(x);
      return 3;
    }
    qsort(ev, (size_t)reps, sizeof *ev, cmp_double);
    qsort(wall, (size_t)reps, sizeof *wall, cmp_double);
    info.floor_event = ev[reps / 2];
    info.floor_wall = wall[reps / 2];
    info.floor_reps = reps;
    free(ev);
    free(wall);
  }

  result *res = calloc((size_t)n + 1, sizeof *res);
  if (!res) {
    fprintf(stderr, "clgather-bench: out of host memory\n");
    free(x);
    return 3;
  }
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const workload *w = &g_work[idx[i]];
    fprintf(stderr, "[%2d/%d] %-8s %-14s ", i + 1, n, w->name, w->label);
    fflush(stderr);
    run_workload(&E, w, &res[i]);
    const result *r = &res[i];
    if (r->status == ST_WRONG)
      wrong = 1;
    progress_end(r->status, r->seconds, t_begin, r->message);
  }
  if (x->pipeline) {
    const char *names[2] = {"W1", "W2"};
    for (int i = 0; i < 2; ++i) {
      int wi = find_work(names[i]);
      if (wi < 0)
        continue;
      pipe_result *r = &x->pipe[x->npipe++];
      fprintf(stderr, "[pipeline] %-8s ", names[i]);
      fflush(stderr);
      run_pipeline(&E, wi, r);
      if (r->status == ST_WRONG)
        wrong = 1;
      progress_end(r->status, r->seconds, t_begin, r->message);
    }
  }
  if (x->coldstart) {
    fprintf(stderr, "[coldstart] W1 ");
    fflush(stderr);
    run_cold_start(&cfg, argv[0], &x->cold);
    if (x->cold.status == ST_WRONG)
      wrong = 1;
    fputc(' ', stderr);
    progress_end(x->cold.status, x->cold.seconds, t_begin, x->cold.message);
  }
  if (x->plans) {
    const char *names[2] = {"W1", "W2"};
    for (int i = 0; i < 2; ++i) {
      int wi = find_work(names[i]);
      if (wi < 0)
        continue;
      plans_result *r = &x->plan[x->nplan++];
      fprintf(stderr, "[plans] %-8s ", names[i]);
      fflush(stderr);
      run_plans(&E, wi, r);
      if (r->status == ST_WRONG)
        wrong = 1;
      progress_end(r->status, r->seconds, t_begin, r->message);
    }
  }
  if (x->shard) {
    shard_env S;
    shard_env_init(&E, &S);
    x->shard_status = S.status;
    snprintf(x->shard_message, sizeof x->shard_message, "%s", S.message);
    x->shard_platform_devices = S.platform_devices;
    memcpy(x->shard_names, S.names, sizeof x->shard_names);
    if (S.status != ST_OK)
      fprintf(stderr, "[shard] %s%s\n",
              S.status == ST_NA ? "skipped: " : "error: ", S.message);
    const char *names[2] = {"W1", "W2"};
    for (int i = 0; S.status == ST_OK && i < 2; ++i) {
      int wi = find_work(names[i]);
      if (wi < 0)
        continue;
      shard_result *r = &x->shard_rows[x->nshard++];
      fprintf(stderr, "[shard] %-8s ", names[i]);
      fflush(stderr);
      run_shard(&E, &S, wi, r);
      if (r->status == ST_WRONG)
        wrong = 1;
      progress_end(r->status, r->seconds, t_begin, r->message);
    }
    shard_env_release(&S);
  }
  info.total_seconds = bench_now() - t_begin;
  if (cfg.json)
    print_json(&info, &cfg, idx, res, n, x);
  else
    print_table(&info, &cfg, idx, res, n, x);
  free(res);
  free(x);
  bench_cl_release(&E.cl);
  clg_context_destroy(E.ctx);
  return wrong ? 1 : 0;
}
