/*
 * The bad-input catalogue: the one authoritative list of every input the
 * public API rejects, with the status it must return and substrings its
 * message (clg_last_error()) must contain.
 *
 * Each entry is a builder that breaks one thing in a valid base call:
 *
 *   data    float [5, 3] = 0 .. 14          (host memory)
 *   indices int64 [2, 3] = {0, 4, -5, 2, -1, 3}  (host memory)
 *   axis    0
 *   output  float [2, 3, 3]
 *
 * and one runner executes every entry with a host output AND with a cl_mem
 * output (entries about index values also with the indices in a cl_mem, so
 * the device-resident read-back validation is covered; with a cl_mem output
 * the data then goes to a cl_mem too: the non-blocking all-device call),
 * and checks:
 *   (i)   no gather kernel was enqueued (clg_fault_calls(ENQUEUE_KERNEL)
 *         counts only validation kernels), but where the call gated it on
 *         the validation kernel's verdict (cl_mem indices and output), which
 *         it reads first to write nothing: (iii) holds it to that;
 *   (ii)  the host output's bytes, and TU_GUARD bytes on each side, still
 *         hold TU_SENTINEL;
 *   (iii) the cl_mem output buffer (every byte, the tensor starts OUT_OFF
 *         bytes in) still holds TU_SENTINEL;
 *   (iv)  the context is still usable: a correct gather (host and cl_mem
 *         output) on it gives the reference result.
 * Also: no event is returned. Entries for clg_context_create*() and
 * clg_gather_output_shape() check that *out stays NULL / the out arrays are
 * not written, and (iv) on the shared context.
 *
 * Entries for GatherElements, GatherND and Gather's batch_dims / index modes
 * call clg_run() (or clg_output_shape()) with their clg_params instead of
 * clg_gather(); their bases are described at their builders.
 *
 * Every status the API can return appears at least once (checked at the end):
 * NO_DEVICE by a device spec that matches nothing, OPENCL / BUILD_FAILED /
 * OUT_OF_HOST_MEMORY by test-only fault injection (host/core/faults.h).
 *
 * The builders and the table: catalogue_cases_shared.c (the family's
 * catalogue shared with `clgather selftest`, tools/cases/gather_bad.c),
 * catalogue_cases_gather.c, catalogue_cases_run.c,
 * catalogue_cases_faults.c (catalogue_fx.h).
 *
 * One Test loops over the table (Criterion forks a process per Test; one
 * process keeps the suite at a few seconds); every failure message names the
 * entry and the variant.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue_fx.h"
#include "internal.h" /* clg_context::device_validations */

/* CLGATHER_TEST_DEVICE_VALIDATION=always: cl_mem indices are validated by a
 * kernel (host/run/index_pass.c), never read back. */
static bool device_validation_forced(void) {
  const char *e = getenv("CLGATHER_TEST_DEVICE_VALIDATION");
  return e && strcmp(e, "always") == 0;
}

/* CLGATHER_TEST_HOST_RUN=always: a gather of host tensors without a wait
 * list runs on the calling thread (host/run/host_run.c). */
static bool host_run_forced(void) {
  const char *e = getenv("CLGATHER_TEST_HOST_RUN");
  return e && strcmp(e, "always") == 0;
}

static const int64_t base_oshape[3] = {2, 3, 3};
static const int64_t base_idx[6] = {0, 4, -5, 2, -1, 3};

static bool all_sentinel(const unsigned char *p, size_t n) {
  for (size_t k = 0; k < n; ++k)
    if (p[k] != TU_SENTINEL)
      return false;
  return true;
}

/* The table: its parts (catalogue_fx.h), concatenated in order. */
static const struct {
  const cat_case *cases;
  const size_t *n;
} g_parts[] = {{cat_cases_shared, &cat_ncases_shared},
               {cat_cases_gather, &cat_ncases_gather},
               {cat_cases_run, &cat_ncases_run},
               {cat_cases_faults, &cat_ncases_faults}};

static size_t cat_ncases(void) {
  size_t n = 0;
  for (size_t k = 0; k < sizeof g_parts / sizeof g_parts[0]; ++k)
    n += *g_parts[k].n;
  return n;
}

/* Entry n of the whole table. */
static const cat_case *cat_entry(size_t n) {
  for (size_t k = 0; k < sizeof g_parts / sizeof g_parts[0]; ++k) {
    if (n < *g_parts[k].n)
      return &g_parts[k].cases[n];
    n -= *g_parts[k].n;
  }
  return NULL;
}

#define NCASES cat_ncases()

/* --------------------------------------------------------- the runner */

static void base_init(cat_call *c) {
  for (int k = 0; k < 64; ++k)
    c->data[k] = (float)k;
  memset(c->idx, 0, sizeof c->idx);
  memcpy(c->idx, base_idx, sizeof base_idx);
  c->d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, base_dshape, c->data);
  c->i = clg_tensor_host(CLG_DTYPE_INT64, 2, base_ishape, c->idx);
  c->axis = 0;
  c->cc_ctx = c->clctx;
  c->cc_dev = tu_device();
  memset(c->out_host, (int)TU_SENTINEL, sizeof c->out_host);
  if (c->out_buf) {
    c->out_mem_size = OUT_OFF + OUT_ALLOC + TU_GUARD;
    c->out_mem = mkbuf(c->clctx, c->out_mem_size, NULL, 0, 0);
    c->out_q = c->io_q;
    c->o =
        clg_tensor_buffer(CLG_DTYPE_FLOAT, 3, base_oshape, c->out_mem, OUT_OFF);
  } else {
    c->o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, base_oshape,
                           c->out_host + TU_GUARD);
  }
}

/* The indices, as the builder left them, moved into a cl_mem. */
static void indices_to_buffer(cat_call *c, const char *label) {
  cr_assert(c->i.storage == CLG_STORAGE_HOST && c->i.rank >= 0 &&
                c->i.rank <= 3,
            "%s: test bug: cl_mem indices variant of odd indices", label);
  int64_t n = tu_numel(c->i.rank, c->i.shape);
  size_t bytes = (size_t)n * clg_dtype_size(c->i.dtype);
  cr_assert(bytes <= sizeof c->idx, "%s: test bug: indices too big", label);
  cl_mem m = own(
      c, mkbuf(c->clctx, IDX_OFF + bytes + IDX_TAIL, c->idx, IDX_OFF, bytes));
  c->i = clg_tensor_buffer(c->i.dtype, c->i.rank, c->i.shape, m,
                           IDX_OFF + c->idx_extra_off);
}

static unsigned g_all_device; /* runs with data, indices, output in cl_mem */

/* The data, as the builder left it, moved into a cl_mem (at byte offset 4):
 * with cl_mem indices and output too, the call is the non-blocking one. */
static bool data_to_buffer(cat_call *c) {
  if (c->d.storage != CLG_STORAGE_HOST || c->d.host != c->data ||
      c->d.rank < 1 || c->d.rank > 2 || c->d.dtype != CLG_DTYPE_FLOAT)
    return false;
  int64_t n = tu_numel(c->d.rank, c->d.shape);
  size_t bytes = (size_t)n * 4u;
  if (n < 0 || bytes > sizeof c->data)
    return false;
  cl_mem m = own(c, mkbuf(c->clctx, 4 + bytes + IDX_TAIL, c->data, 4, bytes));
  c->d = clg_tensor_buffer(c->d.dtype, c->d.rank, c->d.shape, m, 4);
  return true;
}

static const char *status_name(clg_status s) {
  static const char *const n[] = {"CLG_SUCCESS",
                                  "CLG_ERROR_NULL_ARGUMENT",
                                  "CLG_ERROR_INVALID_ARGUMENT",
                                  "CLG_ERROR_INVALID_RANK",
                                  "CLG_ERROR_INVALID_SHAPE",
                                  "CLG_ERROR_INVALID_AXIS",
                                  "CLG_ERROR_UNSUPPORTED_DTYPE",
                                  "CLG_ERROR_INVALID_INDICES_DTYPE",
                                  "CLG_ERROR_DTYPE_MISMATCH",
                                  "CLG_ERROR_SHAPE_MISMATCH",
                                  "CLG_ERROR_SIZE_OVERFLOW",
                                  "CLG_ERROR_BUFFER_TOO_SMALL",
                                  "CLG_ERROR_INDEX_OUT_OF_BOUNDS",
                                  "CLG_ERROR_NO_DEVICE",
                                  "CLG_ERROR_OPENCL",
                                  "CLG_ERROR_BUILD_FAILED",
                                  "CLG_ERROR_OUT_OF_HOST_MEMORY",
                                  "CLG_ERROR_INVALID_BATCH_DIMS",
                                  "CLG_ERROR_INCOMPATIBLE_SHAPES"};
  return (unsigned)s < sizeof n / sizeof n[0] ? n[s] : "?";
}

/* (iv): a correct gather on ctx, with a host and a cl_mem output. */
static void assert_works(const char *label, clg_context *ctx, cl_context clctx,
                         cl_command_queue io_q) {
  float data[15], want[18], got[18];
  for (int k = 0; k < 15; ++k)
    data[k] = (float)(k * 3 + 1);
  cr_assert(ref_gather(data, 4, 2, base_dshape, base_idx, REF_INDEX_I64, 2,
                       base_ishape, 0, want) == 0);
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, base_dshape, data);
  clg_tensor i =
      clg_tensor_host(CLG_DTYPE_INT64, 2, base_ishape, (void *)base_idx);
  memset(got, 0, sizeof got);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 3, base_oshape, got);
  clg_status st = clg_gather(ctx, &d, &i, 0, &o, NULL, 0, NULL, NULL);
  cr_assert(st == CLG_SUCCESS,
            "%s: afterwards a correct gather (host output) fails: %s: %s",
            label, clg_status_string(st), clg_last_error());
  cr_assert(memcmp(got, want, sizeof want) == 0,
            "%s: afterwards a correct gather (host output) is wrong", label);

  cl_mem m = mkbuf(clctx, sizeof got, NULL, 0, 0);
  o = clg_tensor_buffer(CLG_DTYPE_FLOAT, 3, base_oshape, m, 0);
  cl_event ev = NULL;
  st = clg_gather(ctx, &d, &i, 0, &o, NULL, 0, NULL, &ev);
  cr_assert(st == CLG_SUCCESS && ev != NULL,
            "%s: afterwards a correct gather (cl_mem output) fails: %s: %s",
            label, clg_status_string(st), clg_last_error());
  tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
  tu_cl_check(
      clEnqueueReadBuffer(io_q, m, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL),
      "clEnqueueReadBuffer");
  clReleaseMemObject(m);
  cr_assert(memcmp(got, want, sizeof want) == 0,
            "%s: afterwards a correct gather (cl_mem output) is wrong", label);
}

/* Runs entry `k` in one variant; returns false if the entry was skipped. */
static bool run_case(const cat_case *k, bool out_buf, bool idx_buf) {
  char label[320];
  snprintf(label, sizeof label,
           "catalogue entry \"%s\" [%s output, %s "
           "indices]",
           k->name, out_buf ? "cl_mem" : "host", idx_buf ? "cl_mem" : "host");

  cat_call *c = calloc(1, sizeof *c);
  cr_assert(c != NULL);
  c->out_buf = out_buf;
  c->idx_buf = idx_buf;
  bool fresh = (k->flags & CAT_FRESH) != 0;
  if (fresh) {
    clg_status st = clg_context_create_default(NULL, &c->ctx);
    cr_assert(st == CLG_SUCCESS, "%s: clg_context_create_default: %s", label,
              clg_last_error());
    c->clctx = clg_context_cl_context(c->ctx);
    cl_int err = CL_SUCCESS;
    c->io_q =
        clCreateCommandQueue(c->clctx, clg_context_device(c->ctx), 0, &err);
    tu_cl_check(err, "clCreateCommandQueue (fresh context)");
  } else {
    c->ctx = tu_ctx();
    c->clctx = tu_cl_context();
    c->io_q = tu_queue();
  }
  base_init(c);
  k->build(c, k->p);
  bool ran = c->skip == NULL;
  if (!ran) {
    cr_log_info("%s: skipped: %s", label, c->skip);
    goto cleanup;
  }
  if (idx_buf && k->build == b_fault && c->fkind == CLG_FAULT_HOST_ALLOC &&
      device_validation_forced()) {
    cr_log_info("%s: skipped: the device validation allocates no copy", label);
    ran = false;
    goto cleanup;
  }
  /* cl_mem indices and output: the call gates its gather on the validation
   * kernel and reads no index back; the read that fails there is the
   * verdict's, after the gather (tests/run/test_faults.c fails every
   * OpenCL call of that path and checks the output). */
  if (idx_buf && out_buf && k->build == b_fault &&
      (c->fkind == CLG_FAULT_HOST_ALLOC || c->fkind == CLG_FAULT_READ_BUFFER)) {
    cr_log_info("%s: skipped: a gated call reads no index back", label);
    ran = false;
    goto cleanup;
  }
  /* Host tensors run on the host: the only OpenCL call left is the
   * event's marker. */
  if (!idx_buf && !out_buf && k->build == b_fault && host_run_forced() &&
      c->nev == 0 && c->fkind != CLG_FAULT_HOST_ALLOC &&
      c->fkind != CLG_FAULT_MARKER) {
    cr_log_info("%s: skipped: a gather of host tensors runs on the host",
                label);
    ran = false;
    goto cleanup;
  }
  if (idx_buf)
    indices_to_buffer(c, label);
  if (idx_buf && out_buf && data_to_buffer(c)) {
    ++g_all_device;
    size_t len = strlen(label);
    snprintf(label + len - 1, sizeof label - len + 1, ", cl_mem data]");
  }

  int32_t out_rank = -7777;
  int64_t out_shape[CLG_MAX_RANK];
  for (int n = 0; n < CLG_MAX_RANK; ++n)
    out_shape[n] = -7777;
  clg_context *const ctx_sentinel = (clg_context *)&out_rank;
  clg_context *new_ctx = ctx_sentinel;
  cl_event ev = NULL;
  cl_uint cl_ref_before = 0, cl_ref_after = 0;
  if (c->kind == K_CTX_CREATE && c->cc_ctx)
    cl_ref_before = tu_context_refs(c->cc_ctx);

  clg_fault_reset();
  /* A compiler verdict is built CLG_BUILD_ATTEMPTS times, then as often
   * without compiler hints (programs.c): the catalogue's build failure
   * fails them all. */
  if (c->fault)
    clg_fault_inject(c->fkind, c->fskip,
                     c->ferr == CL_BUILD_PROGRAM_FAILURE ? CLG_BUILD_MAX_CALLS
                                                         : 1,
                     c->ferr);
  unsigned validations0 =
      c->ctx ? atomic_load(&c->ctx->device_validations) : 0;
  clg_status st = CLG_SUCCESS;
  switch (c->kind) {
  case K_GATHER:
    if (c->use_params)
      st = clg_run(c->no_ctx ? NULL : c->ctx, &c->params,
                   c->no_data ? NULL : &c->d, c->no_indices ? NULL : &c->i,
                   c->no_output ? NULL : &c->o, c->queue, c->nev, c->wl, &ev);
    else
      st =
          clg_gather(c->no_ctx ? NULL : c->ctx, c->no_data ? NULL : &c->d,
                     c->no_indices ? NULL : &c->i, c->axis,
                     c->no_output ? NULL : &c->o, c->queue, c->nev, c->wl, &ev);
    break;
  case K_CTX_DEFAULT:
    st = clg_context_create_default(c->spec, c->no_out ? NULL : &new_ctx);
    break;
  case K_CTX_CREATE:
    st = clg_context_create(c->cc_ctx, c->cc_dev, c->no_out ? NULL : &new_ctx);
    break;
  case K_OUTPUT_SHAPE:
    if (c->use_params)
      st = clg_output_shape(
          &c->params, c->d.rank, c->no_data ? NULL : c->d.shape, c->i.rank,
          c->no_indices ? NULL : c->i.shape, c->no_out_rank ? NULL : &out_rank,
          c->no_out_shape ? NULL : out_shape);
    else
      st = clg_gather_output_shape(c->d.rank, c->no_data ? NULL : c->d.shape,
                                   c->i.rank, c->no_indices ? NULL : c->i.shape,
                                   c->axis, c->no_out_rank ? NULL : &out_rank,
                                   c->no_out_shape ? NULL : out_shape);
    break;
  }
  /* Gather kernels only: the validation kernel of cl_mem indices (when the
   * device path is taken) writes no output; with a cl_mem output the
   * gather after it is gated on its verdict. */
  unsigned validated =
      c->ctx ? atomic_load(&c->ctx->device_validations) - validations0 : 0;
  unsigned long enqueued =
      clg_fault_calls(CLG_FAULT_ENQUEUE_KERNEL) - validated;
  unsigned long gated = validated > 0 && out_buf ? 1 : 0;
  clg_fault_reset();
  char msg[8192];
  snprintf(msg, sizeof msg, "%s", clg_last_error());

  /* Status and message. */
  cr_expect(st == k->status, "%s: want %s, got %s: \"%s\"", label,
            status_name(k->status), status_name(st), msg);
  for (int n = 0; n < 4 && k->msg[n]; ++n)
    cr_expect((k->flags & CAT_NEEDLES) ? case_message_has(msg, k->msg[n])
                                       : tu_contains(msg, k->msg[n]),
              "%s: message lacks \"%s\": \"%s\"", label, k->msg[n], msg);
  /* (i) */
  cr_expect(enqueued <= gated, "%s: %lu kernel(s) enqueued on error", label,
            enqueued);
  cr_expect(ev == NULL, "%s: an event was returned on error", label);
  if (ev)
    clReleaseEvent(ev);

  if (c->kind == K_GATHER) {
    cl_command_queue q = clg_context_queue(c->ctx);
    cr_assert(q != NULL, "%s: clg_context_queue: %s", label, clg_last_error());
    tu_cl_check(clFinish(q), "clFinish");
    if (c->queue)
      tu_cl_check(clFinish(c->queue), "clFinish (caller queue)");
    /* (ii) */
    cr_expect(all_sentinel(c->out_host, sizeof c->out_host),
              "%s: the host output (or its guard bytes) changed", label);
    /* (iii) */
    if (c->out_mem) {
      unsigned char *back = malloc(c->out_mem_size);
      cr_assert(back != NULL);
      tu_cl_check(clEnqueueReadBuffer(c->out_q, c->out_mem, CL_TRUE, 0,
                                      c->out_mem_size, back, 0, NULL, NULL),
                  "clEnqueueReadBuffer (output)");
      cr_expect(all_sentinel(back, c->out_mem_size),
                "%s: the cl_mem output changed", label);
      free(back);
    }
  } else if (c->kind == K_OUTPUT_SHAPE) {
    bool same = out_rank == -7777;
    for (int n = 0; n < CLG_MAX_RANK; ++n)
      same = same && out_shape[n] == -7777;
    cr_expect(same, "%s: out_rank / out_shape written on error", label);
  } else {
    if (!c->no_out)
      cr_expect(new_ctx == NULL, "%s: *out is not NULL on error", label);
    if (new_ctx != NULL && new_ctx != ctx_sentinel)
      clg_context_destroy(new_ctx);
    if (c->kind == K_CTX_CREATE && c->cc_ctx) {
      cl_ref_after = tu_context_refs_after(c->cc_ctx, cl_ref_before);
      cr_expect(cl_ref_after == cl_ref_before,
                "%s: the borrowed cl_context's reference count went from %u "
                "to %u",
                label, (unsigned)cl_ref_before, (unsigned)cl_ref_after);
    }
  }
  /* (iv) */
  assert_works(label, c->ctx, c->clctx, c->io_q);

cleanup:
  for (int n = 0; n < c->nowned; ++n)
    clReleaseMemObject(c->owned[n]);
  if (c->owned_dev)
    clReleaseDevice(c->owned_dev);
  if (c->out_mem)
    clReleaseMemObject(c->out_mem);
  if (fresh) {
    clReleaseCommandQueue(c->io_q);
    clg_context_destroy(c->ctx);
  }
  free(c);
  return ran;
}

Test(catalogue, every_rejected_input) {
  cat_shared_init();
  bool seen[CLG_ERROR_INCOMPATIBLE_SHAPES + 1] = {false};
  unsigned runs = 0, skipped = 0;
  for (size_t n = 0; n < NCASES; ++n) {
    const cat_case *k = cat_entry(n);
    cr_assert(k->status > CLG_SUCCESS &&
                  k->status <= CLG_ERROR_INCOMPATIBLE_SHAPES,
              "test bug: entry %s has status %d", k->name, (int)k->status);
    seen[k->status] = true;
    if (k->flags & CAT_ONCE) {
      runs += 1;
      skipped += !run_case(k, false, false);
      continue;
    }
    unsigned outs = k->flags & (CAT_OUT_HOST | CAT_OUT_BUF);
    if (!outs)
      outs = CAT_OUT_HOST | CAT_OUT_BUF;
    for (int ob = 0; ob < 2; ++ob) {
      if (!(outs & (ob ? CAT_OUT_BUF : CAT_OUT_HOST)))
        continue;
      for (int ib = 0; ib < 2; ++ib) {
        bool want = ib ? (k->flags & (CAT_IDX_BUF | CAT_IDX_BUF_ONLY)) != 0
                       : (k->flags & CAT_IDX_BUF_ONLY) == 0;
        if (!want)
          continue;
        runs += 1;
        skipped += !run_case(k, ob != 0, ib != 0);
      }
    }
  }
  /* Every error status the API can return is catalogued. */
  for (int s = CLG_ERROR_NULL_ARGUMENT; s <= CLG_ERROR_INCOMPATIBLE_SHAPES; ++s)
    cr_expect(seen[s], "no catalogue entry returns %s",
              status_name((clg_status)s));
  cr_log_info("bad-input catalogue: %zu catalogued inputs, %u runs "
              "(host/cl_mem output, host/cl_mem indices; %u all in cl_mem), "
              "%u skipped on this device",
              (size_t)NCASES, runs, g_all_device, skipped);
}
