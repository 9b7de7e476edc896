/*
 * cl_mem indices validated on the device (kernels/validate.cl) against the
 * read-back + host scan: both paths must give the same status and the same
 * message (clg_last_error()) for every case, and the same as host indices.
 *
 * The path is forced per call with CLGATHER_TEST_DEVICE_VALIDATION
 * (always|never, read by test builds only, host/core/faults.h); the context's
 * device_validations counter proves which path ran. Cases: Gather (axis,
 * batch_dims, modes), GatherElements and GatherND (tuple lengths 1..3, with
 * batch_dims), int32 and int64 indices, buffer offsets, arrays spanning one
 * or many work-groups, the first / a middle / the last position offending,
 * several offenders (the first is reported), INT32/INT64 extremes, the
 * valid edges -s and s-1, an axis of size 0 and no indices at all. Also:
 * the validation waits for the caller's wait list (in-order and out-of-order
 * queues), and clg_run() through the device path gathers correctly.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/testutil.h"

#define CLG_FAULTS_IMPL
#include "core/faults.h"
#include "internal.h" /* clg_context::device_validations */

typedef struct dv_case {
  const char *name;
  clg_params p;
  int32_t r;
  int64_t ds[4];
  int32_t q;
  int64_t is[4];
  clg_dtype idt;
  size_t off_elems; /* indices start this many elements into the buffer */
  /* Up to 4 (position, value) overrides on valid indices; position -1 is
   * the last. */
  int nset;
  int64_t set[4][2];
} dv_case;

/* Valid indices for the case: in [-s_j, s_j - 1] of each position's bound. */
static void fill_valid(const dv_case *k, void *v, size_t count) {
  size_t period = 1;
  int64_t s[CLG_MAX_RANK];
  if (k->p.op == CLG_OP_GATHER_ND) {
    period = (size_t)k->is[k->q - 1];
    for (size_t j = 0; j < period; ++j)
      s[j] = k->ds[k->p.batch_dims + (int64_t)j];
  } else {
    int64_t a = k->p.axis < 0 ? k->p.axis + k->r : k->p.axis;
    s[0] = k->ds[a];
  }
  tu_rng rng = tu_rng_make(0xD5u + count);
  for (size_t i = 0; i < count; ++i) {
    int64_t d = s[i % period];
    int64_t x = d > 0 ? tu_rng_range(&rng, -d, d - 1) : 0;
    tu_set_index(v, k->idt, (int64_t)i, x);
  }
}

/* Data is never read by clg_validate(): any non-NULL host pointer. */
static float g_dummy;

static size_t isz_of(clg_dtype t) { return t == CLG_DTYPE_INT32 ? 4 : 8; }

/* Status and message of clg_validate() on the case's indices in `m`. */
static clg_status validate_once(const dv_case *k, cl_mem m, const void *host,
                                const char *path, char *msg, size_t cap,
                                unsigned *dev_runs) {
  clg_context *ctx = tu_ctx();
  clg_tensor data = clg_tensor_host(CLG_DTYPE_UINT8, k->r, k->ds, &g_dummy);
  clg_tensor idx =
      m ? clg_tensor_buffer(k->idt, k->q, k->is, m,
                            k->off_elems * isz_of(k->idt))
        : clg_tensor_host(k->idt, k->q, k->is, (void *)(uintptr_t)host);
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", path, 1);
  unsigned before = atomic_load(&ctx->device_validations);
  clg_status st = clg_validate(ctx, &k->p, &data, &idx, NULL, 0, NULL);
  *dev_runs = atomic_load(&ctx->device_validations) - before;
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  snprintf(msg, cap, "%s", clg_last_error());
  return st;
}

static void run_dv_case(const dv_case *k, clg_status want,
                        const char *want_msg) {
  int64_t count = tu_numel(k->q, k->is);
  size_t isz = isz_of(k->idt);
  size_t bytes = (size_t)count * isz, off = k->off_elems * isz;
  unsigned char *v = calloc(1, bytes + off + 8);
  cr_assert(v != NULL);
  fill_valid(k, v + off, (size_t)count);
  for (int n = 0; n < k->nset; ++n) {
    int64_t pos = k->set[n][0] < 0 ? count + k->set[n][0] : k->set[n][0];
    tu_set_index(v + off, k->idt, pos, k->set[n][1]);
  }
  cl_mem m = tu_buffer_create(bytes + off + 8, v);

  char host_msg[4096], rb_msg[4096], dev_msg[4096];
  unsigned runs_h = 0, runs_rb = 0, runs_dev = 0;
  clg_status sh = validate_once(k, NULL, v + off, "always", host_msg,
                                sizeof host_msg, &runs_h);
  clg_status srb =
      validate_once(k, m, NULL, "never", rb_msg, sizeof rb_msg, &runs_rb);
  clg_status sdev =
      validate_once(k, m, NULL, "always", dev_msg, sizeof dev_msg, &runs_dev);

  cr_expect(sh == want, "%s: host indices: want status %d, got %d: %s", k->name,
            (int)want, (int)sh, host_msg);
  if (want_msg)
    cr_expect(tu_contains(host_msg, want_msg),
              "%s: host message lacks \"%s\": %s", k->name, want_msg, host_msg);
  cr_expect(srb == sh && strcmp(rb_msg, host_msg) == 0,
            "%s: read-back differs from host indices:\n  %s\n  %s", k->name,
            rb_msg, host_msg);
  cr_expect(sdev == sh && strcmp(dev_msg, host_msg) == 0,
            "%s: device validation differs from host indices:\n  device: "
            "%s\n  host:   %s",
            k->name, dev_msg, host_msg);
  bool reads = k->p.mode == CLG_MODE_RAISE && count > 0;
  cr_expect(runs_h == 0 && runs_rb == 0,
            "%s: the validation kernel ran for host indices or a read-back",
            k->name);
  /* An empty axis in mode WRAP/CLIP fails before any value is read. */
  cr_expect(runs_dev == (reads ? 1u : 0u),
            "%s: the validation kernel ran %u times, want %u", k->name,
            runs_dev, reads ? 1u : 0u);
  clReleaseMemObject(m);
  free(v);
}

#define OOB CLG_ERROR_INDEX_OUT_OF_BOUNDS
#define OK CLG_SUCCESS
#define G(axis, bd)                                                            \
  { CLG_OP_GATHER, axis, bd, CLG_MODE_RAISE }
#define GE(axis)                                                               \
  { CLG_OP_GATHER_ELEMENTS, axis, 0, CLG_MODE_RAISE }
#define ND(bd)                                                                 \
  { CLG_OP_GATHER_ND, 0, bd, CLG_MODE_RAISE }
#define I32 CLG_DTYPE_INT32
#define I64 CLG_DTYPE_INT64

Test(index_pass, same_message_as_host) {
  /* Large arrays (> 16384 values per work-group) span many work-groups. */
  static const dv_case cases[] = {
      {"gather i64 first", G(0, 0), 2, {5, 3}, 2, {2, 3}, I64, 0, 1, {{0, 5}}},
      {"gather i32 last", G(0, 0), 2, {5, 3}, 2, {2, 3}, I32, 0, 1, {{-1, -6}}},
      {"gather i64 offset 3, middle",
       G(1, 0),
       2,
       {5, 7},
       1,
       {9},
       I64,
       3,
       1,
       {{4, 7}}},
      {"gather i32 valid edges",
       G(0, 0),
       1,
       {4},
       1,
       {4},
       I32,
       1,
       4,
       {{0, -4}, {1, 3}, {2, 0}, {3, -1}}},
      {"gather i64 INT64_MIN",
       G(0, 0),
       1,
       {4},
       1,
       {8},
       I64,
       0,
       1,
       {{5, INT64_MIN}}},
      {"gather i64 INT64_MAX",
       G(0, 0),
       1,
       {4},
       1,
       {8},
       I64,
       0,
       1,
       {{6, INT64_MAX}}},
      {"gather i32 INT32_MIN / MAX",
       G(0, 0),
       1,
       {4},
       1,
       {8},
       I32,
       0,
       2,
       {{7, INT32_MAX}, {6, INT32_MIN}}},
      {"gather i64 huge axis, s - 1 ok, INT64_MIN bad",
       G(0, 0),
       1,
       {INT64_MAX / 8},
       1,
       {4},
       I64,
       0,
       2,
       {{0, INT64_MAX / 8 - 1}, {3, INT64_MIN}}},
      {"gather i64 huge axis > 2^62 (generic kernel), INT64_MAX bad",
       G(0, 0),
       1,
       {((int64_t)1 << 62) + 5},
       1,
       {40000},
       I64,
       0,
       2,
       {{7, ((int64_t)1 << 62) + 4}, {39000, INT64_MAX}}},
      {"gather i32 big, middle",
       G(0, 0),
       2,
       {1000, 2},
       1,
       {200000},
       I32,
       5,
       1,
       {{123457, 1000}}},
      {"gather i64 big, last",
       G(0, 0),
       1,
       {1000},
       1,
       {100001},
       I64,
       1,
       1,
       {{-1, -1001}}},
      {"gather i32 big, first of several (groups)",
       G(0, 0),
       1,
       {77},
       1,
       {300000},
       I32,
       0,
       3,
       {{290000, 99}, {40000, -78}, {150000, 78}}},
      {"gather i32 big, first of several (one group)",
       G(0, 0),
       1,
       {77},
       1,
       {300000},
       I32,
       0,
       3,
       {{20000, 99}, {16400, -78}, {16390, 78}}},
      {"gather i64 big, valid", G(0, 0), 1, {3}, 1, {70000}, I64, 2, 0, {{0}}},
      {"gather batch_dims 1 axis 1",
       G(1, 1),
       2,
       {3, 4},
       2,
       {3, 5},
       I64,
       0,
       1,
       {{11, 4}}},
      {"gather axis -1 of size 0",
       G(-1, 0),
       2,
       {3, 0},
       1,
       {2},
       I32,
       0,
       0,
       {{0}}},
      {"gather no indices", G(0, 0), 1, {3}, 2, {0, 4}, I64, 0, 0, {{0}}},
      {"gather wrap on empty axis",
       {CLG_OP_GATHER, 0, 0, CLG_MODE_WRAP},
       1,
       {0},
       1,
       {3},
       I64,
       0,
       0,
       {{0}}},
      {"gather clip, far out of range (valid)",
       {CLG_OP_GATHER, 0, 0, CLG_MODE_CLIP},
       1,
       {3},
       1,
       {3},
       I64,
       0,
       1,
       {{1, INT64_MAX}}},
      {"gather_elements i32 axis 1",
       GE(1),
       2,
       {4, 6},
       2,
       {3, 6},
       I32,
       0,
       1,
       {{13, 6}}},
      {"gather_elements i64 axis 0 big",
       GE(0),
       2,
       {50, 400},
       2,
       {50, 400},
       I64,
       1,
       1,
       {{19999, -51}}},
      {"gather_nd m 1", ND(0), 2, {5, 3}, 2, {4, 1}, I64, 0, 1, {{2, 5}}},
      {"gather_nd m 2 component 1",
       ND(0),
       2,
       {5, 3},
       2,
       {4, 2},
       I32,
       3,
       1,
       {{5, 3}}},
      {"gather_nd m 3 component 2, batch 1",
       ND(1),
       4,
       {2, 4, 5, 6},
       3,
       {2, 3, 3},
       I64,
       0,
       1,
       {{14, -7}}},
      {"gather_nd m 3 big, component 0",
       ND(0),
       3,
       {7, 8, 9},
       2,
       {40000, 3},
       I32,
       0,
       2,
       {{90003, 7}, {100001, 8}}},
      {"gather_nd m 2 big, component 1 last",
       ND(0),
       2,
       {7, 8},
       2,
       {50000, 2},
       I64,
       7,
       1,
       {{-1, 8}}},
      {"gather_nd axis of size 0",
       ND(0),
       2,
       {5, 0},
       2,
       {1, 2},
       I64,
       0,
       0,
       {{0}}},
      {"gather_nd valid, big",
       ND(0),
       3,
       {7, 8, 9},
       2,
       {30000, 3},
       I64,
       0,
       0,
       {{0}}},
  };
  for (size_t n = 0; n < sizeof cases / sizeof cases[0]; ++n) {
    const dv_case *k = &cases[n];
    bool bad = k->nset > 0 && k->p.mode == CLG_MODE_RAISE &&
               strstr(k->name, "valid") == NULL;
    bool empty_axis = strstr(k->name, "size 0") != NULL ||
                      strstr(k->name, "empty axis") != NULL;
    bool edges_ok = strstr(k->name, "valid edges") != NULL ||
                    strstr(k->name, "(valid)") != NULL;
    const char *want_msg = NULL;
    if (strstr(k->name, "huge axis, s - 1") != NULL)
      want_msg = "-9223372036854775808";
    if (strstr(k->name, "2^62") != NULL)
      want_msg = "indices[39000]";
    clg_status want = (bad && !edges_ok) || empty_axis ? OOB : OK;
    if (strstr(k->name, "no indices") != NULL)
      want = OK;
    run_dv_case(k, want, want_msg);
  }
}

/* Several offenders: the first is reported, by both paths. */
Test(index_pass, first_offender_positions) {
  dv_case k = {"", G(0, 0), 1, {10}, 1, {100000}, I32, 0, 2, {{0}, {0}}};
  const int64_t pos[] = {0, 1, 63, 64, 16383, 16384, 99998, 99999};
  for (size_t a = 0; a < sizeof pos / sizeof pos[0]; ++a) {
    char name[64];
    snprintf(name, sizeof name, "offender at %" PRId64, pos[a]);
    k.name = name;
    k.set[0][0] = pos[a];
    k.set[0][1] = 10;
    k.set[1][0] = 99999;
    k.set[1][1] = -11;
    k.idt = a % 2 ? I64 : I32;
    k.off_elems = a % 3;
    run_dv_case(&k, OOB, name + 12);
  }
}

/* ------------------------------------------------- wait list ordering */

typedef struct release_arg {
  cl_event ev;
} release_arg;

static void *release_later(void *p) {
  struct timespec t = {0, 100 * 1000 * 1000};
  nanosleep(&t, NULL);
  clSetUserEventStatus(((release_arg *)p)->ev, CL_COMPLETE);
  return NULL;
}

/* The indices become bad only by a write that waits for a user event,
 * released by another thread 100 ms later; the validation (given the write's
 * event) must see the bad value. */
static void wait_list_case(const char *path, bool out_of_order) {
  cl_context cc = tu_cl_context();
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(
      cc, tu_device(),
      out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &err);
  if (!q && out_of_order) {
    cr_log_info("no out-of-order queue on this device: skipped");
    return;
  }
  tu_cl_check(err, "clCreateCommandQueue");
  int64_t good[6] = {0, 1, 2, 3, 4, 0}, bad = 7;
  cl_mem m = tu_buffer_create(sizeof good, good);
  cl_event user = clCreateUserEvent(cc, &err);
  tu_cl_check(err, "clCreateUserEvent");
  cl_event wrote = NULL;
  tu_cl_check(
      clEnqueueWriteBuffer(q, m, CL_FALSE, 4 * 8, 8, &bad, 1, &user, &wrote),
      "clEnqueueWriteBuffer");
  tu_cl_check(clFlush(q), "clFlush");
  release_arg ra = {user};
  pthread_t th;
  cr_assert(pthread_create(&th, NULL, release_later, &ra) == 0);
  int64_t ds[2] = {5, 3}, is[1] = {6};
  clg_tensor data = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ds, &g_dummy);
  clg_tensor idx = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, m, 0);
  clg_params p = G(0, 0);
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", path, 1);
  clg_status st = clg_validate(tu_ctx(), &p, &data, &idx, q, 1, &wrote);
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  pthread_join(th, NULL);
  cr_expect(st == OOB && tu_contains(clg_last_error(), "indices[4]") &&
                tu_contains(clg_last_error(), "= 7"),
            "[%s%s] the validation did not wait for the wait list: %s", path,
            out_of_order ? ", out-of-order queue" : "", clg_last_error());
  tu_cl_check(clFinish(q), "clFinish");
  clReleaseEvent(wrote);
  clReleaseEvent(user);
  clReleaseMemObject(m);
  clReleaseCommandQueue(q);
}

Test(index_pass, waits_for_the_wait_list) {
  wait_list_case("always", false);
  wait_list_case("always", true);
  wait_list_case("never", false);
  wait_list_case("never", true);
}

/* Fail a user event after a delay (another thread). */
static void *fail_later(void *arg) {
  struct timespec t = {0, 100 * 1000 * 1000};
  nanosleep(&t, NULL);
  clSetUserEventStatus((cl_event)arg, -1);
  return NULL;
}

/* A failed event in the wait list, failed before the call or while it
 * waits: both paths report CLG_ERROR_OPENCL and return (a command waiting
 * for a failed event may never complete on POCL), and nothing is written.
 * Run under a timeout: a hang fails. */
static void failed_wait_list_case(const char *path, bool later) {
  enum { N = 8192 }; /* 64 KiB of indices: the device path by default */
  int64_t ds[1] = {4}, is[1] = {N}, os[1] = {N};
  float data[4] = {1, 2, 3, 4};
  static int64_t idx[N];
  static float got[N], now[N];
  memset(got, 0xCD, sizeof got);
  cl_mem dm = tu_buffer_create(sizeof data, data);
  cl_mem xm = tu_buffer_create(sizeof idx, idx);
  cl_mem om = tu_buffer_create(sizeof got, got);
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 1, ds, dm, 0);
  clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, xm, 0);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 1, os, om, 0);
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", path, 1);
  clg_status st[2];
  char msg[2][512];
  cl_event ev = NULL;
  for (int k = 0; k < 2; ++k) {
    cl_int err = CL_SUCCESS;
    cl_event user = clCreateUserEvent(tu_cl_context(), &err);
    tu_cl_check(err, "clCreateUserEvent");
    pthread_t th;
    if (later)
      cr_assert(pthread_create(&th, NULL, fail_later, user) == 0);
    else
      tu_cl_check(clSetUserEventStatus(user, -1), "clSetUserEventStatus");
    st[k] = k == 0 ? clg_validate(tu_ctx(), NULL, &d, &x, NULL, 1, &user)
                   : clg_gather(tu_ctx(), &d, &x, 0, &o, NULL, 1, &user, &ev);
    snprintf(msg[k], sizeof msg[k], "%s", clg_last_error());
    if (later)
      pthread_join(th, NULL);
    clReleaseEvent(user);
  }
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  for (int k = 0; k < 2; ++k)
    cr_expect(st[k] == CLG_ERROR_OPENCL,
              "[%s, failed %s] %s after a failed wait-list event: %s: %s", path,
              later ? "during the call" : "before",
              k ? "clg_gather" : "clg_validate", clg_status_string(st[k]),
              msg[k]);
  cr_expect(ev == NULL, "[%s] an event after a failure", path);
  tu_buffer_read(om, 0, sizeof now, now);
  cr_expect(memcmp(now, got, sizeof now) == 0,
            "[%s] the output changed after a failed wait list", path);
  clReleaseMemObject(dm);
  clReleaseMemObject(xm);
  clReleaseMemObject(om);
}

Test(index_pass, failed_wait_list_event, .timeout = 60) {
  failed_wait_list_case("always", false);
  failed_wait_list_case("never", false);
  failed_wait_list_case("always", true);
  failed_wait_list_case("never", true);
}

/* clg_run() through the device path, all in cl_mem: a correct gather; and
 * a bad index: no gather kernel, output untouched. */
Test(index_pass, run_all_device) {
  int64_t ds[2] = {5, 3}, is[2] = {2, 3}, os[3] = {2, 3, 3};
  float data[15], want[18], got[18];
  for (int k = 0; k < 15; ++k)
    data[k] = (float)(k * 2 + 1);
  int64_t idx[6] = {0, 4, -5, 2, -1, 3};
  cr_assert(ref_gather(data, 4, 2, ds, idx, REF_INDEX_I64, 2, is, 0, want) ==
            0);
  cl_mem dm = tu_buffer_create(sizeof data, data);
  cl_mem xm = tu_buffer_create(sizeof idx, idx);
  memset(got, 0xAB, sizeof got);
  cl_mem om = tu_buffer_create(sizeof got, got);
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, dm, 0);
  clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT64, 2, is, xm, 0);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 3, os, om, 0);
  clg_context *ctx = tu_ctx();
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  unsigned before = atomic_load(&ctx->device_validations);
  cl_event ev = NULL;
  clg_status st = clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, &ev);
  cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
  cr_expect(atomic_load(&ctx->device_validations) == before + 1);
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
  tu_buffer_read(om, 0, sizeof got, got);
  cr_expect(memcmp(got, want, sizeof want) == 0, "wrong gather result");

  /* The whole array is written again, not its one changed element:
   * Oclgrind 21.10's uninitialized-value check takes every byte of a buffer
   * for uninitialized after a write at an offset (a 20-line pyopencl
   * kernel shows it), which the Oclgrind run of this suite would report. */
  idx[5] = -6;
  tu_cl_check(clEnqueueWriteBuffer(tu_queue(), xm, CL_TRUE, 0, sizeof idx, idx,
                                   0, NULL, NULL),
              "clEnqueueWriteBuffer");
  float fresh[18];
  memset(fresh, 0xAB, sizeof fresh);
  tu_cl_check(clEnqueueWriteBuffer(tu_queue(), om, CL_TRUE, 0, sizeof fresh,
                                   fresh, 0, NULL, NULL),
              "clEnqueueWriteBuffer");
  clg_fault_reset();
  ev = NULL;
  st = clg_gather(ctx, &d, &x, 0, &o, NULL, 0, NULL, &ev);
  unsigned long enq = clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL);
  clg_fault_reset();
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  cr_expect(st == OOB && tu_contains(clg_last_error(), "indices[5]") &&
                tu_contains(clg_last_error(), "= -6"),
            "%s", clg_last_error());
  cr_expect(ev == NULL);
  cr_expect(enq == 1, "%lu kernels enqueued, want only the validation", enq);
  tu_cl_check(clFinish(clg_context_queue(ctx)), "clFinish");
  tu_buffer_read(om, 0, sizeof got, got);
  cr_expect(memcmp(got, fresh, sizeof fresh) == 0, "the output was written");
  clReleaseMemObject(dm);
  clReleaseMemObject(xm);
  clReleaseMemObject(om);
}

/* The synchronous device check keeps its verdict buffer in the context
 * (index_pass.c): a repeated call creates no buffer; the flag a failed
 * check leaves set in it does not fail the next call; a call with a wait
 * list takes a new buffer; and the context's reference count is the same
 * after a failed check as before it. */
Test(index_pass, verdict_buffer_is_kept) {
  int64_t ds[2] = {5, 3}, is[1] = {4}, os[2] = {4, 3};
  float data[15], want[12], got[12];
  for (int k = 0; k < 15; ++k)
    data[k] = (float)(k * 3 - 7);
  int64_t idx[4] = {4, -5, 2, 1}, bad[4] = {4, 5, 2, 1};
  cr_assert(ref_gather(data, 4, 2, ds, idx, REF_INDEX_I64, 1, is, 0, want) ==
            0);
  cl_mem dm = tu_buffer_create(sizeof data, data);
  cl_mem xm = tu_buffer_create(sizeof idx, idx);
  cl_mem bm = tu_buffer_create(sizeof bad, bad);
  memset(got, 0xAB, sizeof got);
  cl_mem om = tu_buffer_create(sizeof got, got);
  clg_tensor d = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, ds, dm, 0);
  clg_tensor x = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, xm, 0);
  clg_tensor xb = clg_tensor_buffer(CLG_DTYPE_INT64, 1, is, bm, 0);
  clg_tensor o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, om, 0);
  clg_context *ctx = tu_ctx();
  cl_command_queue q = tu_queue();
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  cr_assert_eq(clg_gather(ctx, &d, &x, 0, &o, q, 0, NULL, NULL), CLG_SUCCESS,
               "%s", clg_last_error());
  tu_cl_check(clFinish(q), "clFinish");
  cl_uint refs = tu_context_refs(clg_context_cl_context(ctx));
  for (int k = 0; k < 3; ++k) { /* good, bad, good */
    const clg_tensor *xi = k == 1 ? &xb : &x;
    unsigned before = atomic_load(&ctx->device_validations);
    clg_fault_reset();
    clg_status st = clg_gather(ctx, &d, xi, 0, &o, q, 0, NULL, NULL);
    unsigned long made = clg_fault_calls(CLG_FAULT_CREATE_BUFFER);
    clg_fault_reset();
    cr_expect_eq(atomic_load(&ctx->device_validations), before + 1);
    cr_expect_eq(made, 0, "call %d created %lu buffers", k, made);
    if (k == 1) {
      cr_expect(st == OOB && tu_contains(clg_last_error(), "indices[1]"),
                "%s", clg_last_error());
      cr_expect_eq(tu_context_refs_after(clg_context_cl_context(ctx), refs),
                   refs, "a failed check changed the reference count");
      continue;
    }
    cr_expect_eq(st, CLG_SUCCESS, "call %d: %s", k, clg_last_error());
    tu_cl_check(clFinish(q), "clFinish");
    tu_buffer_read(om, 0, sizeof got, got);
    cr_expect(memcmp(got, want, sizeof want) == 0, "call %d: wrong result", k);
  }
  /* After an event of the caller's: a buffer of the call's own. */
  cl_event done = NULL;
  tu_cl_check(clEnqueueMarkerWithWaitList(q, 0, NULL, &done), "marker");
  tu_cl_check(clWaitForEvents(1, &done), "clWaitForEvents");
  clg_fault_reset();
  cr_expect_eq(clg_gather(ctx, &d, &x, 0, &o, q, 1, &done, NULL), CLG_SUCCESS,
               "%s", clg_last_error());
  unsigned long made = clg_fault_calls(CLG_FAULT_CREATE_BUFFER);
  clg_fault_reset();
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  cr_expect_eq(made, 1, "with a wait list: %lu buffers created", made);
  tu_cl_check(clFinish(q), "clFinish");
  clReleaseEvent(done);
  clReleaseMemObject(dm);
  clReleaseMemObject(xm);
  clReleaseMemObject(bm);
  clReleaseMemObject(om);
}
