/*
 * clg_run_sharded() over two devices of one cl_context. ctest runs this
 * with POCL_DEVICES="pthread pthread", which makes POCL expose two CPU
 * devices; with fewer than two devices the tests fail (never skip).
 *
 * This file: every case compared byte for byte with clg_run() on one
 * device and with the plain-C reference (Gather on axis 0 / axis > 0 /
 * batch_dims / WRAP / CLIP, GatherElements, GatherND with and without
 * batch_dims; int32/int64 indices; host and cl_mem tensors at offsets; odd
 * first dimensions; unsplittable and empty outputs), every dtype, and one
 * context.
 *
 * The rest of test_shard (one binary, the suite "shard"):
 *  - run/test_shard_errors.c: out-of-bounds indices (same status and
 *    message as clg_run(), output untouched, no event), the argument
 *    checks, the call's own errors;
 *  - run/test_shard_waits.c: the wait list, and that both devices really
 *    ran a part;
 *  - run/test_shard_faults.c: OpenCL failures injected at every call
 *    (faults.h); a failure after parts were enqueued returns only once
 *    they are done;
 *  - run/test_shard_subbuf.c: a cl_mem output written through one
 *    sub-buffer per part, split points rounded to the devices' alignment,
 *    the fallbacks to device 0 alone, clCreateSubBuffer failing;
 *  - run/shard_fx.h, shard_fx.c: the devices, the suite's init and fini,
 *    the tensors and cases they share.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/shard_fx.h"

/* -------------------------------------------------------------- cases */

static int reference(const sh_case *c, clg_dtype idt, const void *data,
                     size_t es, const void *idx, void *out) {
  ref_index_type t = tu_ref_index_type(idt);
  int32_t orank;
  int64_t oshape[REF_MAX_RANK];
  switch (c->p.op) {
  case CLG_OP_GATHER:
    return ref_gather_ex(data, es, c->r, c->d, idx, t, c->q, c->i, c->p.axis,
                         c->p.batch_dims, (ref_mode)c->p.mode, out, &orank,
                         oshape);
  case CLG_OP_GATHER_ELEMENTS:
    return ref_gather_elements(data, es, c->r, c->d, idx, t, c->q, c->i,
                               c->p.axis, out);
  default:
    return ref_gather_nd(data, es, c->r, c->d, idx, t, c->q, c->i,
                         c->p.batch_dims, out);
  }
}

/* Runs the case sharded and on one device; true if both match the
 * reference byte for byte (guards and inputs untouched), else why in msg. */
static bool run_case(const sh_case *c, const sh_how *h, uint64_t seed,
                     char *msg, size_t cap) {
  char desc[512];
  case_str(c, h, desc, sizeof desc);
  int32_t orank = 0;
  int64_t oshape[CLG_MAX_RANK];
  clg_status st =
      clg_output_shape(&c->p, c->r, c->d, c->q, c->i, &orank, oshape);
  cr_assert(st == CLG_SUCCESS, "test bug: %s: %s", desc, clg_last_error());
  size_t es = clg_dtype_size(h->dtype);
  int64_t dn = tu_numel(c->r, c->d), in = tu_numel(c->q, c->i),
          on = tu_numel(orank, oshape);
  size_t dbytes = (size_t)dn * es, ibytes = (size_t)in * clg_dtype_size(h->idt),
         obytes = (size_t)on * es;
  tu_rng rng = tu_rng_make(seed);
  unsigned char *data = malloc(dbytes + 1), *idx = malloc(ibytes + 1),
                *want = malloc(obytes + 1);
  cr_assert(data && idx && want, "out of host memory");
  tu_rng_bytes(&rng, data, dbytes);
  fill_indices(c, h->idt, &rng, idx, in);
  cr_assert(reference(c, h->idt, data, es, idx, want) == 0,
            "test bug: the reference failed on %s", desc);

  sh_tensor td, ti, one, sharded;
  sh_init(&td, h->dtype, c->r, c->d, h->buf[0], h->off[0], data);
  sh_init(&ti, h->idt, c->q, c->i, h->buf[1], h->off[1], idx);
  sh_init(&one, h->dtype, orank, oshape, h->buf[2], h->off[2], NULL);
  sh_init(&sharded, h->dtype, orank, oshape, h->buf[2], h->off[2], NULL);
  cl_command_queue qs[2] = {NULL, NULL};
  if (h->queues)
    for (int k = 0; k < 2; ++k)
      qs[k] = new_queue(g_cl, g_dev[k]);
  bool ok = false;
  char why[256];

  st = clg_run(g_ctx[0], &c->p, &td.desc, &ti.desc, &one.desc, NULL, 0, NULL,
               NULL);
  if (st != CLG_SUCCESS) {
    snprintf(msg, cap, "%s: clg_run: %s: %s", desc, clg_status_string(st),
             clg_last_error());
    goto done;
  }
  tu_cl_check(clFinish(clg_context_queue(g_ctx[0])), "clFinish");
  cl_event ev = NULL;
  st = clg_run_sharded(g_ctx, 2, &c->p, &td.desc, &ti.desc, &sharded.desc,
                       h->queues ? qs : NULL, 0, NULL, h->event ? &ev : NULL);
  if (st != CLG_SUCCESS) {
    snprintf(msg, cap, "%s: clg_run_sharded: %s: %s", desc,
             clg_status_string(st), clg_last_error());
    goto done;
  }
  if (h->event) {
    if (!ev) {
      snprintf(msg, cap, "%s: success but no event", desc);
      goto done;
    }
    tu_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
  } else {
    for (int k = 0; k < 2; ++k)
      tu_cl_check(clFinish(h->queues ? qs[k] : clg_context_queue(g_ctx[k])),
                  "clFinish");
  }
  if (!sh_holds(&sharded, want, why, sizeof why)) {
    snprintf(msg, cap, "%s: sharded output vs the reference: %s", desc, why);
    goto done;
  }
  if (!sh_holds(&one, want, why, sizeof why)) {
    snprintf(msg, cap, "%s: one-device output vs the reference: %s", desc, why);
    goto done;
  }
  if (!sh_holds(&td, data, why, sizeof why) ||
      !sh_holds(&ti, idx, why, sizeof why)) {
    snprintf(msg, cap, "%s: an input changed: %s", desc, why);
    goto done;
  }
  ok = true;
done:
  for (int k = 0; k < 2; ++k)
    if (qs[k])
      clReleaseCommandQueue(qs[k]);
  sh_free(&td);
  sh_free(&ti);
  sh_free(&one);
  sh_free(&sharded);
  free(data);
  free(idx);
  free(want);
  return ok;
}

/* Each case in three ways: all host; all cl_mem at offsets with an event
 * (the output's aligned for sub-buffers); a mix (rotating with k) with the
 * test's own queues (a cl_mem output at an odd offset: one device). And int32 / int64,
 * one element size per case (rotating). */
static int run_cases(const sh_case *cases, size_t n, uint64_t seed) {
  static const clg_dtype dtypes[] = {CLG_DTYPE_FLOAT, CLG_DTYPE_INT8,
                                     CLG_DTYPE_DOUBLE, CLG_DTYPE_FLOAT16,
                                     CLG_DTYPE_COMPLEX128};
  int count = 0, failures = 0;
  char msg[1024];
  for (size_t k = 0; k < n; ++k)
    for (int way = 0; way < 3; ++way) {
      sh_how h = {0};
      h.dtype = dtypes[(k + (size_t)way) % 5];
      h.idt = (k + (size_t)way) % 2 ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
      size_t es = clg_dtype_size(h.dtype), is = clg_dtype_size(h.idt);
      for (int j = 0; j < 3; ++j) {
        h.buf[j] = way == 1 || (way == 2 && ((k + (size_t)j) % 2));
        h.off[j] = h.buf[j] ? (j == 1 ? is : es) * (size_t)(2 * j + 3) : 0;
      }
      /* A cl_mem output: at a sub-buffer-aligned offset (split through
       * sub-buffers) in way 1, at an odd one (device 0 alone) in way 2. */
      if (way == 1)
        h.off[2] = g_align;
      h.event = way == 1;
      h.queues = way == 2;
      ++count;
      if (!run_case(&cases[k], &h, seed + k * 3 + (uint64_t)way, msg,
                    sizeof msg)) {
        cr_expect(false, "%s", msg);
        cr_assert(++failures < 8, "too many failures, stopping");
      }
    }
  return count;
}

Test(shard, gather) {
  static const sh_case cases[] = {
      /* axis 0: indices sliced, data whole */
      {G(0, 0, RAISE), 2, 1, {5, 3}, {7}},
      {G(0, 0, RAISE), 2, 1, {4, 6}, {1001}},
      {G(0, 0, RAISE), 3, 2, {3, 4, 5}, {2, 3}},
      {G(-3, 0, RAISE), 3, 3, {6, 2, 3}, {3, 2, 2}},
      /* axis > 0: data sliced, indices whole (scalar too) */
      {G(1, 0, RAISE), 2, 1, {7, 5}, {3}},
      {G(-1, 0, RAISE), 2, 2, {1001, 4}, {2, 2}},
      {G(2, 0, RAISE), 3, 1, {3, 5, 2}, {4}},
      {G(1, 0, RAISE), 2, 0, {7, 5}, {0}},
      /* batch_dims: both sliced */
      {G(1, 1, RAISE), 3, 2, {7, 5, 3}, {7, 4}},
      {G(2, 2, RAISE), 3, 3, {3, 4, 6}, {3, 4, 2}},
      {G(1, -1, RAISE), 2, 2, {7, 6}, {7, 3}},
      /* modes WRAP and CLIP (indices anywhere) */
      {G(0, 0, CLG_MODE_WRAP), 2, 1, {5, 3}, {1001}},
      {G(1, 0, CLG_MODE_CLIP), 2, 1, {7, 4}, {5}},
      {G(1, 1, CLG_MODE_WRAP), 3, 2, {3, 5, 2}, {3, 4}},
      {G(0, 0, CLG_MODE_CLIP), 2, 2, {4, 3}, {3, 3}},
      /* unsplittable: scalar index on axis 0, rank-0 output, one row */
      {G(0, 0, RAISE), 2, 0, {6, 5}, {0}},
      {G(0, 0, RAISE), 1, 0, {6}, {0}},
      {G(1, 0, RAISE), 2, 1, {1, 8}, {3}},
      {G(0, 0, RAISE), 1, 1, {9}, {1}},
      /* empty outputs */
      {G(0, 0, RAISE), 2, 1, {5, 3}, {0}},
      {G(0, 0, RAISE), 2, 1, {7, 0}, {4}},
      {G(1, 0, RAISE), 2, 1, {6, 4}, {0}},
      {G(0, 0, RAISE), 2, 1, {0, 3}, {0}},
  };
  int n = run_cases(cases, sizeof cases / sizeof cases[0], 100);
  cr_log_info("gather: %d cases", n);
}

Test(shard, gather_elements) {
  static const sh_case cases[] = {
      {E(0), 2, 2, {5, 4}, {7, 3}}, /* indices sliced, data whole */
      {E(0), 1, 1, {9}, {1001}},
      {E(1), 2, 2, {7, 5}, {7, 3}},       /* both sliced */
      {E(1), 2, 2, {1001, 3}, {1000, 4}}, /* data has more rows */
      {E(-1), 3, 3, {3, 4, 5}, {2, 4, 6}},
      {E(1), 3, 3, {3, 6, 2}, {3, 2, 2}},
      {E(-3), 3, 3, {4, 2, 3}, {3, 2, 3}},
      {E(1), 2, 2, {1, 5}, {1, 7}}, /* one row */
      {E(1), 2, 2, {4, 3}, {0, 3}}, /* empty */
      {E(0), 2, 2, {4, 3}, {5, 0}},
  };
  int n = run_cases(cases, sizeof cases / sizeof cases[0], 200);
  cr_log_info("gather_elements: %d cases", n);
}

Test(shard, gather_nd) {
  static const sh_case cases[] = {
      {N(0), 3, 2, {5, 4, 3}, {7, 2}}, /* indices sliced, data whole */
      {N(0), 2, 2, {6, 5}, {1001, 1}},
      {N(0), 2, 3, {4, 5}, {3, 2, 2}},
      {N(0), 2, 2, {4, 5}, {3, 2}},
      {N(1), 3, 3, {7, 5, 3}, {7, 2, 1}}, /* batch: both sliced */
      {N(2), 4, 4, {3, 4, 5, 2}, {3, 4, 2, 1}},
      {N(1), 3, 2, {1001, 3, 2}, {1001, 2}},
      {N(0), 3, 1, {4, 5, 3}, {2}},    /* unsplittable: one tuple */
      {N(0), 2, 1, {4, 5}, {2}},       /* rank-0 output */
      {N(0), 2, 2, {4, 5}, {1, 1}},    /* one row */
      {N(0), 2, 2, {4, 5}, {0, 2}},    /* empty */
      {N(1), 3, 2, {3, 4, 0}, {3, 1}}, /* empty rows */
  };
  int n = run_cases(cases, sizeof cases / sizeof cases[0], 300);
  cr_log_info("gather_nd: %d cases", n);
}

Test(shard, every_dtype) {
  static const sh_case cases[] = {
      {G(0, 0, RAISE), 2, 1, {5, 3}, {7}},
      {G(1, 0, RAISE), 2, 1, {7, 5}, {3}},
  };
  char msg[1024];
  int count = 0;
  for (size_t t = 0; t < 15; ++t)
    for (size_t k = 0; k < 2; ++k) {
      sh_how h = {0};
      h.dtype = tu_all_dtypes[t];
      h.idt = t % 2 ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
      h.buf[0] = h.buf[1] = h.buf[2] = k == 1;
      h.off[2] = k == 1 ? clg_dtype_size(h.dtype) : 0;
      h.event = k == 1;
      ++count;
      cr_expect(run_case(&cases[k], &h, 400 + t, msg, sizeof msg), "%s", msg);
    }
  cr_log_info("every_dtype: %d cases", count);
}

/* One context: the whole call on it. */
Test(shard, one_context) {
  static const int64_t dshape[2] = {5, 3}, ishape[1] = {7}, oshape[2] = {7, 3};
  static const clg_params p = {CLG_OP_GATHER, 0, 0, CLG_MODE_RAISE};
  float data[15], out[21], want[21];
  int64_t idx[7] = {0, 4, -1, 2, -5, 3, 1};
  for (int k = 0; k < 15; ++k)
    data[k] = (float)k;
  clg_tensor d = clg_tensor_host(CLG_DTYPE_FLOAT, 2, dshape, data);
  clg_tensor x = clg_tensor_host(CLG_DTYPE_INT64, 1, ishape, idx);
  clg_tensor o = clg_tensor_host(CLG_DTYPE_FLOAT, 2, oshape, out);
  cr_assert(ref_gather(data, 4, 2, dshape, idx, REF_INDEX_I64, 1, ishape, 0,
                       want) == 0);
  for (cl_uint k = 0; k < 2; ++k) {
    memset(out, 0xA5, sizeof out);
    clg_status st =
        clg_run_sharded(&g_ctx[k], 1, &p, &d, &x, &o, NULL, 0, NULL, NULL);
    cr_assert(st == CLG_SUCCESS, "%s", clg_last_error());
    cr_expect(memcmp(out, want, sizeof out) == 0, "ctxs = {g_ctx[%u]}", k);
  }
}
