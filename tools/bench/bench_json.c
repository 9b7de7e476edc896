/* clgather-bench: the JSON document on stdout (--json): the run's settings,
 * every workload's figures, and the extras (null when not run). */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>

static void json_string(const char *s) {
  putchar('"');
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

static void json_shape(int32_t rank, const int64_t *shape) {
  putchar('[');
  for (int32_t i = 0; i < rank; ++i)
    printf("%s%" PRId64, i ? ", " : "", shape[i]);
  putchar(']');
}

static void json_stats(const char *name, const stats *s) {
  printf(", \"%s\": {\"median_s\": %.6g, \"min_s\": %.6g, \"max_s\": %.6g, "
         "\"reps\": %d}",
         name, s->median, s->min, s->max, s->reps);
}

static void json_pipeline(const extras *x) {
  printf(",\n \"device_resident_validation\": ");
  if (!x->pipeline) {
    printf("null");
    return;
  }
  printf("{\"device_validation_min_index_bytes\": %" PRIu64 ", \"rows\": [",
         BENCH_VALIDATE_DEVICE_MIN_BYTES);
  for (int i = 0; i < x->npipe; ++i) {
    const pipe_result *r = &x->pipe[i];
    printf("%s\n  {\"name\": ", i ? "," : "");
    json_string(r->work >= 0 ? g_work[r->work].name : "?");
    printf(", \"data_bytes\": %" PRIu64 ", \"index_bytes\": %" PRIu64
           ", \"output_bytes\": %" PRIu64 ", \"library_path\": \"%s\"",
           r->data_bytes, r->index_bytes, r->out_bytes,
           r->device_path ? "device" : "read-back");
    printf(", \"status\": \"%s\", \"message\": ", r->status == ST_OK   ? "ok"
                                                  : r->status == ST_NA ? "n/a"
                                                  : r->status == ST_WRONG
                                                      ? "wrong"
                                                      : "error");
    json_string(r->message);
    printf(", \"seconds\": %.3f", r->seconds);
    if (r->status == ST_OK) {
      json_stats("kernel", &r->kernel);
      json_stats("device_validation", &r->devval);
      json_stats("readback_validation", &r->rbval);
      json_stats("checked_end_to_end", &r->e2e);
      json_stats("checked_async_end_to_end", &r->async_e2e);
      json_stats("checked_async_return", &r->async_ret);
      printf(", \"device_validation_x_kernel\": %.6g, "
             "\"readback_validation_x_kernel\": %.6g, "
             "\"checked_end_to_end_x_kernel\": %.6g, "
             "\"checked_async_end_to_end_x_kernel\": %.6g, "
             "\"checked_async_return_x_kernel\": %.6g",
             r->devval.median / r->kernel.median,
             r->rbval.median / r->kernel.median,
             r->e2e.median / r->kernel.median,
             r->async_e2e.median / r->kernel.median,
             r->async_ret.median / r->kernel.median);
    }
    printf("}");
  }
  printf("\n ]}");
}

static void json_cold(const extras *x) {
  const cold_result *r = &x->cold;
  printf(",\n \"cold_start\": ");
  if (!x->coldstart) {
    printf("null");
    return;
  }
  printf("{\"workload\": \"W1\", \"storage\": \"host\", "
         "\"pocl_kernel_cache\": \"as is (warm)\", \"status\": \"%s\", "
         "\"message\": ",
         r->status == ST_OK      ? "ok"
         : r->status == ST_WRONG ? "wrong"
                                 : "error");
  json_string(r->message);
  printf(", \"reps\": %d, \"cold_dir_files\": %d, \"seconds\": %.3f", r->reps,
         r->cache_files, r->seconds);
  if (r->status == ST_OK)
    for (int c = 0; c < COLD_CASES; ++c)
      printf(", \"%s\": {\"first_result_s\": %.6g, \"first_min_s\": %.6g, "
             "\"first_max_s\": %.6g, \"exec_s\": %.6g, \"context_s\": %.6g, "
             "\"first_call_s\": %.6g, \"inputs_s\": %.6g}",
             cold_case_name[c], r->med[c].first, r->first_min[c],
             r->first_max[c], r->med[c].startup, r->med[c].context,
             r->med[c].call, r->med[c].inputs);
  printf("}");
}

static const char *status_word(int status) {
  return status == ST_OK      ? "ok"
         : status == ST_NA    ? "n/a"
         : status == ST_WRONG ? "wrong"
                              : "error";
}

static void json_plans(const extras *x) {
  printf(",\n \"plans\": ");
  if (!x->plans) {
    printf("null");
    return;
  }
  printf("{\"first_call_disk_cache\": \"off\", \"pocl_kernel_cache\": "
         "\"as is (warm)\", \"rows\": [");
  for (int i = 0; i < x->nplan; ++i) {
    const plans_result *r = &x->plan[i];
    printf("%s\n  {\"name\": ", i ? "," : "");
    json_string(g_work[r->work].name);
    printf(", \"data_bytes\": %" PRIu64 ", \"index_bytes\": %" PRIu64
           ", \"output_bytes\": %" PRIu64,
           r->data_bytes, r->index_bytes, r->out_bytes);
    printf(", \"status\": \"%s\", \"message\": ", status_word(r->status));
    json_string(r->message);
    printf(", \"seconds\": %.3f", r->seconds);
    if (r->status == ST_OK) {
      json_stats("kernel", &r->kernel);
      json_stats("run_overhead", &r->run_over);
      json_stats("plan_overhead", &r->plan_over);
      printf(", \"run_overhead_x_kernel\": %.6g, "
             "\"plan_overhead_x_kernel\": %.6g, "
             "\"plan_minus_run_overhead_s\": %.6g",
             r->run_over.median / r->kernel.median,
             r->plan_over.median / r->kernel.median,
             r->plan_over.median - r->run_over.median);
      printf(", \"first_call\": {\"reps\": %d, "
             "\"unbaked_first_enqueue_s\": %.6g, \"unbaked_min_s\": %.6g, "
             "\"unbaked_max_s\": %.6g, \"bake_s\": %.6g, "
             "\"baked_first_enqueue_s\": %.6g, \"baked_min_s\": %.6g, "
             "\"baked_max_s\": %.6g}",
             r->first_reps, r->unbaked_first, r->unbaked_min, r->unbaked_max,
             r->bake, r->baked_first, r->baked_min, r->baked_max);
    }
    printf("}");
  }
  printf("\n ]}");
}

static void json_shard(const extras *x) {
  printf(",\n \"shard\": ");
  if (!x->shard) {
    printf("null");
    return;
  }
  printf("{\"status\": \"%s\", \"message\": ", status_word(x->shard_status));
  json_string(x->shard_message);
  printf(", \"platform_devices\": %u, \"devices\": [",
         x->shard_platform_devices);
  if (x->shard_status == ST_OK)
    for (int i = 0; i < SHARD_DEVICES; ++i) {
      printf("%s", i ? ", " : "");
      json_string(x->shard_names[i]);
    }
  printf("], \"rows\": [");
  for (int i = 0; i < x->nshard; ++i) {
    const shard_result *r = &x->shard_rows[i];
    printf("%s\n  {\"name\": ", i ? "," : "");
    json_string(g_work[r->work].name);
    printf(", \"output_bytes\": %" PRIu64 ", \"status\": \"%s\", "
           "\"message\": ",
           r->out_bytes, status_word(r->status));
    json_string(r->message);
    printf(", \"seconds\": %.3f", r->seconds);
    if (r->status == ST_OK) {
      json_stats("copy_buffer", &r->copybuf);
      json_stats("copy_kernel", &r->copykern);
      json_stats("kernel", &r->kernel);
      json_stats("run_end_to_end", &r->single);
      json_stats("sharded_end_to_end", &r->sharded);
      printf(", \"copy_ref_s\": %.6g, \"copy_ref_method\": \"%s\", "
             "\"kernel_x_copy_ref\": %.6g, "
             "\"run_end_to_end_x_copy_ref\": %.6g, "
             "\"sharded_end_to_end_x_copy_ref\": %.6g, "
             "\"sharded_speedup\": %.6g",
             r->copy_ref, r->copy_method, r->copy_ref / r->kernel.median,
             r->copy_ref / r->single.median, r->copy_ref / r->sharded.median,
             r->single.median / r->sharded.median);
    }
    printf("}");
  }
  printf("\n ]}");
}

void print_json(const run_info *info, const settings *cfg, const int *idx,
                const result *res, int n, const extras *x) {
  printf("{\"clgather_version\": ");
  json_string(clg_version_string());
  printf(", \"device\": ");
  json_string(info->device);
  printf(", \"device_version\": ");
  json_string(info->version);
  printf(", \"driver\": ");
  json_string(info->driver);
  printf(", \"compute_units\": %u", (unsigned)info->cus);
  printf(",\n \"settings\": {\"quick\": %s, \"reps\": %d, \"budget_s\": %g, "
         "\"min_reps\": %d, \"max_reps\": %d, \"warmup\": %d, "
         "\"sweep_output_bytes\": %zu}",
         cfg->quick ? "true" : "false", cfg->reps, cfg->budget, cfg->min_reps,
         cfg->max_reps, cfg->warmup, cfg->sweep_bytes);
  printf(",\n \"launch_floor\": {\"event_s\": %.6g, \"wall_s\": %.6g, "
         "\"reps\": %d}",
         info->floor_event, info->floor_wall, info->floor_reps);
  printf(",\n \"total_seconds\": %.3f,\n \"workloads\": [",
         info->total_seconds);
  for (int i = 0; i < n; ++i) {
    const workload *w = &g_work[idx[i]];
    const result *r = &res[i];
    char d[256];
    describe(d, sizeof d, &w->op);
    printf("%s\n  {\"name\": ", i ? "," : "");
    json_string(w->name);
    printf(", \"label\": ");
    json_string(w->label);
    printf(", \"group\": \"%s\", \"description\": ",
           w->group == GROUP_STANDARD ? "standard"
           : w->group == GROUP_SWEEP  ? "sweep"
                                      : "family");
    json_string(d);
    printf(", \"op\": \"%s\", \"dtype\": \"%s\", \"data_shape\": ",
           op_name(w->op.params.op), clg_dtype_name(w->op.dtype));
    json_shape(w->op.drank, w->op.dshape);
    printf(", \"index_dtype\": \"%s\", \"indices_shape\": ",
           clg_dtype_name(w->op.itype));
    json_shape(w->op.irank, w->op.ishape);
    printf(", \"axis\": %" PRId64 ", \"batch_dims\": %" PRId64
           ", \"mode\": \"%s\"",
           w->op.params.axis, w->op.params.batch_dims,
           mode_name(w->op.params.mode));
    printf(", \"data_bytes\": %" PRIu64 ", \"index_bytes\": %" PRIu64
           ", \"output_bytes\": %" PRIu64,
           r->data_bytes, r->index_bytes, r->out_bytes);
    printf(", \"status\": \"%s\", \"message\": ", r->status == ST_OK   ? "ok"
                                                  : r->status == ST_NA ? "n/a"
                                                  : r->status == ST_WRONG
                                                      ? "wrong"
                                                      : "error");
    json_string(r->message);
    printf(", \"seconds\": %.3f, \"reference_once_s\": %.6g, "
           "\"first_call_s\": %.6g",
           r->seconds, r->reference_s, r->first_call_s);
    if (r->status == ST_OK) {
      json_stats("kernel", &r->kernel);
      json_stats("copy_buffer", &r->copybuf);
      json_stats("copy_kernel", &r->copykern);
      json_stats("call", &r->call);
      json_stats("validate", &r->validate);
      printf(", \"copy_ref_s\": %.6g, \"copy_ref_method\": \"%s\"", r->copy_ref,
             r->copy_method);
      printf(", \"variant\": \"%s\", \"variant_choice\": \"%s\"",
             r->variant ? r->variant : "?", choice_name(r->choice));
      printf(", \"kernel_gbps\": %.6g, \"copy_ref_gbps\": %.6g, "
             "\"x_copy_ref\": %.6g, \"call_gbps\": %.6g, "
             "\"validate_over_call\": %.6g, \"bounds_gbps\": %.6g",
             (double)r->out_bytes / r->kernel.median * 1e-9,
             (double)r->out_bytes / r->copy_ref * 1e-9,
             r->copy_ref / r->kernel.median,
             (double)r->out_bytes / r->call.median * 1e-9,
             r->validate.median / r->call.median,
             (double)r->index_bytes / r->validate.median * 1e-9);
    }
    printf("}");
  }
  printf("\n ]");
  json_pipeline(x);
  json_cold(x);
  json_plans(x);
  json_shard(x);
  printf("}\n");
}
