/* clgather-bench: the text report on stdout: the main table, the extras'
 * tables (pipeline, cold start, plans, shard) and their legends. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>

static void human_bytes(char *buf, size_t len, double bytes) {
  if (bytes >= 1024.0 * 1024.0 * 1024.0)
    snprintf(buf, len, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  else if (bytes >= 1024.0 * 1024.0)
    snprintf(buf, len, "%.2f MiB", bytes / (1024.0 * 1024.0));
  else if (bytes >= 1024.0)
    snprintf(buf, len, "%.2f KiB", bytes / 1024.0);
  else
    snprintf(buf, len, "%.0f B", bytes);
}

static void fmt_ms(char *buf, size_t len, double s) {
  double ms = s * 1e3;
  snprintf(buf, len, ms >= 100 ? "%.1f" : ms >= 1 ? "%.2f" : "%.3f", ms);
}

static void fmt_gbps(char *buf, size_t len, double bytes, double s) {
  double g = s > 0 ? bytes / s * 1e-9 : 0.0;
  snprintf(buf, len, g >= 100 ? "%.0f" : g >= 1 ? "%.2f" : "%.3f", g);
}

static void fmt_ratio(char *buf, size_t len, double s, double kernel) {
  char ms[16];
  fmt_ms(ms, sizeof ms, s);
  snprintf(buf, len, "%s (%.2fx)", ms, kernel > 0 ? s / kernel : 0.0);
}

/* "45.2 us (0.04x)": a time in microseconds and its ratio to `kernel`. */
static void fmt_us_ratio(char *buf, size_t len, double s, double kernel) {
  double us = s * 1e6;
  snprintf(buf, len, us >= 100 ? "%.0f us (%.2fx)" : "%.1f us (%.2fx)", us,
           kernel > 0 ? s / kernel : 0.0);
}

static void print_pipeline(const extras *x) {
  printf("\ndevice-resident validation (data, indices, output in cl_mem; "
         "medians, interleaved):\n");
  printf("%-8s %10s %8s %15s %15s %15s %15s %16s  %s\n", "workload", "index",
         "kern ms", "device-valid ms", "read-back ms", "checked e2e ms",
         "async e2e ms", "async returns", "library path");
  printf("%-8s %10s %8s %15s %15s %15s %15s %16s  %s\n", "", "bytes", "(a)",
         "(i)", "(ii)", "(iii)", "(iv)", "after (v)", "");
  for (int i = 0; i < x->npipe; ++i) {
    const pipe_result *r = &x->pipe[i];
    const char *name = r->work >= 0 ? g_work[r->work].name : "?";
    char ib[24];
    human_bytes(ib, sizeof ib, (double)r->index_bytes);
    if (r->status != ST_OK) {
      printf("%-8s %10s %s%s\n", name, ib,
             r->status == ST_NA      ? "n/a: "
             : r->status == ST_WRONG ? ""
                                     : "error: ",
             r->message);
      continue;
    }
    char km[16], dv[32], rb[32], ee[32], ae[32], ar[32];
    fmt_ms(km, sizeof km, r->kernel.median);
    fmt_ratio(dv, sizeof dv, r->devval.median, r->kernel.median);
    fmt_ratio(rb, sizeof rb, r->rbval.median, r->kernel.median);
    fmt_ratio(ee, sizeof ee, r->e2e.median, r->kernel.median);
    fmt_ratio(ae, sizeof ae, r->async_e2e.median, r->kernel.median);
    fmt_us_ratio(ar, sizeof ar, r->async_ret.median, r->kernel.median);
    printf("%-8s %10s %8s %15s %15s %15s %15s %16s  %s\n", name, ib, km, dv, rb,
           ee, ae, ar, r->device_path ? "device kernel" : "read-back");
  }
  printf("\n(a) gather kernel alone, event START..END (the x figures are "
         "ratios to it); (i) clg_validate(ctx) on the cl_mem indices, wall "
         "clock:\nthe library's own path; (ii) read-back validation by the "
         "bench: malloc + blocking clEnqueueReadBuffer of the indices +\n"
         "clg_validate(NULL) on the copy (what the library's read-back path "
         "does); (iii) clg_run on cl_mem tensors, wall clock from the\ncall "
         "to its event's completion (validation + launch + kernel); (iv) "
         "clg_run_async on the same tensors, wall clock from the call\nto "
         "its event's completion and clg_outcome_wait() (validation kernel "
         "+ gated gather kernel, nothing read back but the verdict);\n(v) "
         "the same call, wall clock until clg_run_async returns, in "
         "microseconds (it does not wait for the device). Library path\n"
         "(clg_run, clg_validate): device kernel from %" PRIu64 " KiB of "
         "indices, read-back below (CLG_VALIDATE_DEVICE_MIN_BYTES, inferred, "
         "not\nobserved). Results checked byte for byte (clg_run and "
         "clg_run_async); both validation paths checked to reject one "
         "out-of-range\nindex, and clg_run_async to report it from its "
         "outcome with the output untouched.\n",
         BENCH_VALIDATE_DEVICE_MIN_BYTES / 1024);
}

static void print_cold(const extras *x) {
  const cold_result *r = &x->cold;
  if (r->status != ST_OK) {
    printf("\ncold start: %s%s\n",
           r->status == ST_WRONG ? "" : "error: ", r->message);
    return;
  }
  char v[COLD_CASES][16];
  for (int c = 0; c < COLD_CASES; ++c)
    fmt_ms(v[c], sizeof v[c], r->med[c].first);
  printf("\ncold start (new process -> first W1 result on host memory, "
         "median of %d): disk cache cold %s ms, warm %s ms, off %s ms\n",
         r->reps, v[0], v[1], v[2]);
  printf("%-12s %9s %9s %9s %9s %9s\n", "  disk cache", "first ms", "exec ms",
         "context", "1st call", "(inputs)");
  for (int c = 0; c < COLD_CASES; ++c) {
    char f[16], e[16], cx[16], cl[16], in[16];
    fmt_ms(f, sizeof f, r->med[c].first);
    fmt_ms(e, sizeof e, r->med[c].startup);
    fmt_ms(cx, sizeof cx, r->med[c].context);
    fmt_ms(cl, sizeof cl, r->med[c].call);
    fmt_ms(in, sizeof in, r->med[c].inputs);
    printf("  %-10s %9s %9s %9s %9s %9s\n", cold_case_name[c], f, e, cx, cl,
           in);
  }
  printf("\nfirst = spawn of `clgather-bench --cold-start-child` -> its "
         "first clg_run returns, less the child's input preparation\n"
         "(inputs: W1's data and indices, made before OpenCL is touched); "
         "exec = spawn -> main; context = clg_context_create_default;\n"
         "1st call = the first clg_run (builds or loads the program, "
         "stages, runs, reads back). CLGATHER_CACHE_DIR: cold = a fresh\n"
         "empty directory (%d file(s) in it afterwards), warm = the same "
         "directory again, off = \"off\". POCL's own kernel cache is left\n"
         "as it is (warm): a cold POCL cache would add its compile time to "
         "every figure. Each child's result checked byte for byte.\n",
         r->cache_files);
}

static const char *status_prefix(int status) {
  return status == ST_NA ? "n/a: " : status == ST_WRONG ? "" : "error: ";
}

static void print_plans(const extras *x) {
  printf("\nplans (data, indices, output in cl_mem; clg_plan_enqueue vs "
         "clg_run, both synchronous, each waited for):\n");
  printf("%-8s %10s %8s %17s %17s %10s %9s %9s %9s\n", "workload", "index",
         "kern ms", "clg_run", "plan enqueue", "plan - run", "unbaked", "bake",
         "baked");
  printf("%-8s %10s %8s %17s %17s %10s %9s %9s %9s\n", "", "bytes", "(a)",
         "overhead (p1)", "overhead (p2)", "us", "1st ms", "ms", "1st ms");
  int reps = 0;
  for (int i = 0; i < x->nplan; ++i) {
    const plans_result *r = &x->plan[i];
    char ib[24];
    human_bytes(ib, sizeof ib, (double)r->index_bytes);
    if (r->status != ST_OK) {
      printf("%-8s %10s %s%s\n", g_work[r->work].name, ib,
             status_prefix(r->status), r->message);
      continue;
    }
    reps = r->first_reps;
    char km[16], ro[32], po[32], un[16], bk[16], bd[16];
    fmt_ms(km, sizeof km, r->kernel.median);
    fmt_us_ratio(ro, sizeof ro, r->run_over.median, r->kernel.median);
    fmt_us_ratio(po, sizeof po, r->plan_over.median, r->kernel.median);
    fmt_ms(un, sizeof un, r->unbaked_first);
    fmt_ms(bk, sizeof bk, r->bake);
    fmt_ms(bd, sizeof bd, r->baked_first);
    printf("%-8s %10s %8s %17s %17s %+10.1f %9s %9s %9s\n",
           g_work[r->work].name, ib, km, ro, po,
           (r->plan_over.median - r->run_over.median) * 1e6, un, bk, bd);
  }
  printf("\n(a) gather kernel alone (clg_run), event START..END; (p1), (p2) "
         "host overhead per call: wall clock from the call to its event's\n"
         "completion less that event's START..END (validation with its "
         "blocking verdict read, checks, launch), in microseconds, with\n"
         "the ratio to (a); (a), (p1), (p2) interleaved, medians. First "
         "calls (median of %d): a new clg_context on the same device,\n"
         "CLGATHER_CACHE_DIR=off, clg_plan_create, then unbaked: the first "
         "clg_plan_enqueue, which builds its programs; baked:\n"
         "clg_plan_bake (bake ms), then the first clg_plan_enqueue; both "
         "to the event's completion. POCL's own kernel cache is left as\n"
         "it is (warm). Results checked byte for byte.\n",
         reps);
}

/* "1.23 (0.88)": a time in ms and copy-ref / time (1.0 = as fast as the
 * copy). */
static void fmt_ms_copy(char *buf, size_t len, double s, double copy_ref) {
  char ms[16];
  fmt_ms(ms, sizeof ms, s);
  snprintf(buf, len, "%s (%.2f)", ms, s > 0 ? copy_ref / s : 0.0);
}

static void print_shard(const extras *x) {
  if (x->shard_status != ST_OK) {
    printf("\nshard: %s%s\n",
           x->shard_status == ST_NA ? "" : "error: ", x->shard_message);
    return;
  }
  printf("\nsharded over %d devices (data, indices, output in cl_mem of one "
         "cl_context with both devices; medians, interleaved):\n",
         SHARD_DEVICES);
  for (int i = 0; i < SHARD_DEVICES; ++i)
    printf("  device %d: %s\n", i, x->shard_names[i]);
  printf("%-8s %10s %11s %15s %15s %15s %10s\n", "workload", "out",
         "copy-ref ms", "1 dev kernel", "1 dev clg_run", "2 dev sharded",
         "sharded /");
  printf("%-8s %10s %11s %15s %15s %15s %10s\n", "", "bytes", "(d)",
         "ms (x) (a)", "ms (x) (s1)", "ms (x) (s2)", "clg_run");
  for (int i = 0; i < x->nshard; ++i) {
    const shard_result *r = &x->shard_rows[i];
    char ob[24];
    human_bytes(ob, sizeof ob, (double)r->out_bytes);
    if (r->status != ST_OK) {
      printf("%-8s %10s %s%s\n", g_work[r->work].name, ob,
             status_prefix(r->status), r->message);
      continue;
    }
    char cr[16], k[32], s1[32], s2[32];
    fmt_ms(cr, sizeof cr, r->copy_ref);
    fmt_ms_copy(k, sizeof k, r->kernel.median, r->copy_ref);
    fmt_ms_copy(s1, sizeof s1, r->single.median, r->copy_ref);
    fmt_ms_copy(s2, sizeof s2, r->sharded.median, r->copy_ref);
    printf("%-8s %10s %11s %15s %15s %15s %9.2fx\n", g_work[r->work].name, ob,
           cr, k, s1, s2, r->single.median / r->sharded.median);
  }
  printf("\n(d) copy-ref on device 0 = faster of clEnqueueCopyBuffer and a "
         "copy kernel of the output's bytes, event-profiled; (x) =\ncopy-ref "
         "/ time, as \"x copy-ref\" in the main table (1.0 = as fast as one "
         "device's copy). (a) clg_run's gather kernel on device 0,\nevent "
         "START..END; (s1) clg_run on device 0, (s2) clg_run_sharded over "
         "both devices (each context's own queue): wall clock from\nthe call "
         "to its event's completion, validation included. sharded / clg_run "
         "= (s1) / (s2): above 1 the split pays. Results\nchecked byte for "
         "byte. Devices: the bench's device and the next device of its "
         "platform (POCL: POCL_DEVICES=\"pthread pthread\").\n");
}

void print_table(const run_info *info, const settings *cfg, const int *idx,
                 const result *res, int n, const extras *x) {
  printf("clgather-bench %s on %s (%s; driver %s), %u compute units\n",
         clg_version_string(), info->device, info->version, info->driver,
         (unsigned)info->cus);
  printf("settings: %s, %s reps per figure, budget %.2f s per set, sweep "
         "output %zu MiB\n",
         cfg->quick ? "quick" : "default", cfg->reps ? "fixed" : "adaptive",
         cfg->budget, cfg->sweep_bytes / (1024 * 1024));
  printf("launch floor (empty kernel, median of %d): %.1f us event, %.1f us "
         "wall (enqueue to completion)\n",
         info->floor_reps, info->floor_event * 1e6, info->floor_wall * 1e6);
  if (n == 0)
    goto extras_out;
  printf("\n");
  printf("%-8s %-14s %10s %9s %9s %9s %9s %9s %9s %7s %8s  %s\n", "workload",
         "", "out", "kern ms", "kern GB/s", "copy GB/s", "x copy-ref",
         "call ms", "1st ms", "valid", "bounds", "variant (e)");
  printf("%-8s %-14s %10s %9s %9s %9s %9s %9s %9s %7s %8s\n", "", "", "bytes",
         "(a)", "", "(d)", "", "(b)", "(f)", "/call", "GB/s (c)");
  for (int i = 0; i < n; ++i) {
    const workload *w = &g_work[idx[i]];
    const result *r = &res[i];
    char ob[24];
    human_bytes(ob, sizeof ob, (double)r->out_bytes);
    if (r->status != ST_OK) {
      printf("%-8s %-14s %10s %s%s\n", w->name, w->label, ob,
             r->status == ST_NA      ? "n/a: "
             : r->status == ST_WRONG ? ""
                                     : "error: ",
             r->message);
      continue;
    }
    char km[16], kg[16], cg[16], cm[16], fc[16], bg[16];
    fmt_ms(km, sizeof km, r->kernel.median);
    fmt_ms(fc, sizeof fc, r->first_call_s);
    fmt_gbps(kg, sizeof kg, (double)r->out_bytes, r->kernel.median);
    fmt_gbps(cg, sizeof cg, (double)r->out_bytes, r->copy_ref);
    fmt_ms(cm, sizeof cm, r->call.median);
    if (w->op.params.mode == CLG_MODE_RAISE)
      fmt_gbps(bg, sizeof bg, (double)r->index_bytes, r->validate.median);
    else
      snprintf(bg, sizeof bg, "-");
    printf("%-8s %-14s %10s %9s %9s %9s %9.2f %9s %9s %6.1f%% %8s  %s, %s\n",
           w->name, w->label, ob, km, kg, cg, r->copy_ref / r->kernel.median,
           cm, fc, 100.0 * r->validate.median / r->call.median, bg,
           r->variant ? r->variant : "?", choice_name(r->choice));
  }
  printf("\n(a) gather kernel on cl_mem tensors, event START..END; "
         "(d) copy-ref = faster of clEnqueueCopyBuffer and a copy kernel of "
         "the output's bytes;\nx copy-ref = copy-ref time / kernel time "
         "(1.0 = as fast as a copy); (b) clg_run on host memory, wall clock; "
         "valid/call = (c) clg_validate(NULL) / (b);\nbounds GB/s = index "
         "bytes / (c) ('-': modes wrap/clip read no index values). Medians.\n"
         "(e) the kernel variant (a) ran (clg_context_last_variant) and how "
         "the library chose it: measured on this device, default (one "
         "candidate or output < 1 MiB), forced (CLGATHER_VARIANT).\n"
         "(f) the workload's first clg_run on its cl_mem tensors (its shape "
         "class's first use in this process: programs loaded from the disk "
         "cache or built,\nthe variant read from it, or the first candidate "
         "untimed, the timing left to the class's second call: "
         "CLG_OPTION_TUNE),\nwall clock to completion; steady state: (a) "
         "and (b), after warm-up rounds (the second call times). With "
         "CLGATHER_CACHE_DIR=off: a first use from scratch.\n"
         "\nworkloads:\n");
  for (int i = 0; i < n; ++i) {
    char d[256];
    describe(d, sizeof d, &g_work[idx[i]].op);
    printf("  %-8s %s\n", g_work[idx[i]].name, d);
  }
extras_out:
  if (x->pipeline)
    print_pipeline(x);
  if (x->coldstart)
    print_cold(x);
  if (x->plans)
    print_plans(x);
  if (x->shard)
    print_shard(x);
  printf("\ntotal run time %.1f s\n", info->total_seconds);
}
