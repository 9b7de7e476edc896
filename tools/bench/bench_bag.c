/* clgather-bench-bag: EmbeddingBag's workloads on cl_mem tensors, as ratios
 * within one run (rounds interleaved, medians of each):
 *
 *   EB1  sum  f32 [100000, 64], 2048 bags of 32 (offsets): DLRM's pooled
 *        lookup;
 *   EB2  mean f32 [50000, 768], 512 bags of 8 (fixed [B, L]);
 *   EB3  sum  f16 [100000, 128], 4096 bags of 1..39 (offsets);
 *   EB4  sqrt_n f32 [20000, 256], 1e5 entries in 1000 segments (ids);
 *   EB5  sum  f32 [1000, 64], 32 bags of 4 (offsets): a call small enough
 *        that what surrounds its kernels (checks, waits) is its cost.
 *
 * Per workload, each round runs once each, in rotating order:
 *   bag     clg_embedding_bag(), checks included, then clFinish;
 *   async   clg_embedding_bag_async() (checks on the device, the reduction
 *           gated on their verdict, no host wait), clFinish, then the
 *           outcome waited for;
 *   gather  what a user without EmbeddingBag runs: clg_gather() of the N
 *           rows (checked) into [N, dim], then a plain kernel summing each
 *           bag's rows (mode sum's result; the other modes cost the same);
 *   naive   a plain kernel, one work-item per output element, reading the
 *           rows in place: no checks (the floor of an unchecked lookup);
 *   copy    clEnqueueCopyBuffer of the N rows' bytes (N * dim elements):
 *           what the reduction must at least read.
 * Then `again`: the bag call alone, back to back, the table warm in the
 * caches (what another library's benchmark loop measures).
 * Printed: each median (ms), bag's ratios to the others (> 1: bag is
 * faster), and the reduction's variant with how it was chosen.
 *
 * And tables quantized per row (clg_bag_params.weight_format; issue 43's
 * workloads):
 *   QB1  sum 8-bit rows [1e6, 128] (136 bytes a row), 4096 bags x 1..80;
 *   QB2  sum 4-bit rows [1e6, 256] (132 bytes a row), the same bags;
 * each round, in rotating order:
 *   qbag    clg_embedding_bag() on the quantized table, then clFinish;
 *   fbag    the same bags over the table dequantized to float32 (4x or
 *           8x the bytes of a row): what the quantized table saves;
 *   copy    clEnqueueCopyBuffer of the packed rows' bytes the bags read
 *           (N * row bytes): what the reduction must at least read;
 * then `again` (qbag back to back). Printed: the medians, fbag/qbag and
 * copy/qbag (> 1: qbag faster). scripts/bench_bag_torch.py times
 * PyTorch's quantized ops on the same shapes.
 *
 *   clgather-bench-bag [--rounds N] [--only EB1,QB1,...] [--device SPEC]
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"
#include "reference/reference.h"
#include "cases/case.h"

#include <clgather/clgather.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct work {
  const char *name, *what;
  clg_bag_mode mode;
  clg_bag_form form;
  clg_dtype dtype;
  int64_t rows, dim, bags, pool; /* pool: entries per bag (0: 1..39) */
} work;

static const work works[] = {
    {"EB1", "sum f32 [100000,64], 2048 bags x 32 (offsets)", CLG_BAG_SUM,
     CLG_BAGS_OFFSETS, CLG_DTYPE_FLOAT, 100000, 64, 2048, 32},
    {"EB2", "mean f32 [50000,768], 512 bags x 8 (fixed)", CLG_BAG_MEAN,
     CLG_BAGS_FIXED, CLG_DTYPE_FLOAT, 50000, 768, 512, 8},
    {"EB3", "sum f16 [100000,128], 4096 bags x 1..39 (offsets)", CLG_BAG_SUM,
     CLG_BAGS_OFFSETS, CLG_DTYPE_FLOAT16, 100000, 128, 4096, 0},
    {"EB4", "sqrt_n f32 [20000,256], 1000 segments x 100 (ids)",
     CLG_BAG_SQRT_N, CLG_BAGS_SEGMENT_IDS, CLG_DTYPE_FLOAT, 20000, 256, 1000,
     100},
    {"EB5", "sum f32 [1000,64], 32 bags x 4 (offsets)", CLG_BAG_SUM,
     CLG_BAGS_OFFSETS, CLG_DTYPE_FLOAT, 1000, 64, 32, 4},
};
#define NWORK (sizeof works / sizeof works[0])

/* The plain kernels: the reduction after a Gather, and the unchecked
 * lookup; bags by their starts (int64, B + 1). Float32 and float16 (as
 * ushort bits, summed in float). */
static const char *plain_src =
    "#ifdef HALF\n"
    "typedef ushort T;\n"
    "#define LD(p, i) vload_half((i), (const global half *)(p))\n"
    "#define ST(p, i, v) vstore_half_rte((v), (i), (global half *)(p))\n"
    "#else\n"
    "typedef float T;\n"
    "#define LD(p, i) ((p)[i])\n"
    "#define ST(p, i, v) ((p)[i] = (v))\n"
    "#endif\n"
    "kernel void reduce_rows(global const T *g, global const long *starts,\n"
    "                        ulong dim, ulong bags, global T *out) {\n"
    "  ulong c = get_global_id(0), b = get_global_id(1);\n"
    "  if (c >= dim || b >= bags) return;\n"
    "  float acc = 0;\n"
    "  for (long i = starts[b]; i < starts[b + 1]; ++i)\n"
    "    acc += LD(g, i * dim + c);\n"
    "  ST(out, b * dim + c, acc);\n"
    "}\n"
    "kernel void naive_bag(global const T *w, global const int *idx,\n"
    "                      global const long *starts, ulong dim, ulong bags,\n"
    "                      global T *out) {\n"
    "  ulong c = get_global_id(0), b = get_global_id(1);\n"
    "  if (c >= dim || b >= bags) return;\n"
    "  float acc = 0;\n"
    "  for (long i = starts[b]; i < starts[b + 1]; ++i)\n"
    "    acc += LD(w, (ulong)idx[i] * dim + c);\n"
    "  ST(out, b * dim + c, acc);\n"
    "}\n";

static case_rng rng_state = {0x9E3779B97F4A7C15ull}; /* case_rng_make(0) */
static uint64_t rng(void) { return case_rng_u64(&rng_state); }

static int fail(const char *what) {
  fprintf(stderr, "clgather-bench-bag: %s: %s\n", what, clg_last_error());
  return 1;
}

static cl_mem upload(cl_context c, const void *p, size_t n) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE | (p ? CL_MEM_COPY_HOST_PTR : 0),
                            n ? n : 1, (void *)p, &err);
  if (!m)
    fprintf(stderr, "clgather-bench-bag: clCreateBuffer of %zu bytes: %d\n",
            n, (int)err);
  return m;
}

typedef struct bench {
  clg_context *ctx;
  cl_context cl;
  cl_command_queue q;
  cl_kernel reduce[2], naive[2]; /* [0] float32, [1] float16 */
} bench;

static int build_plain(bench *b) {
  cl_device_id dev = clg_context_device(b->ctx);
  for (int h = 0; h < 2; ++h) {
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(b->cl, 1, &plain_src, NULL, &err);
    if (!p || clBuildProgram(p, 1, &dev, h ? "-DHALF" : "", NULL, NULL) !=
                  CL_SUCCESS) {
      fprintf(stderr, "clgather-bench-bag: building the plain kernels\n");
      return 1;
    }
    b->reduce[h] = clCreateKernel(p, "reduce_rows", &err);
    b->naive[h] = clCreateKernel(p, "naive_bag", &err);
    clReleaseProgram(p);
    if (!b->reduce[h] || !b->naive[h])
      return 1;
  }
  return 0;
}

static void launch2(cl_command_queue q, cl_kernel k, uint64_t dim,
                    uint64_t bags) {
  size_t l0 = dim >= 64 ? 64 : 1;
  size_t global[2] = {(size_t)((dim + l0 - 1) / l0 * l0), (size_t)bags};
  size_t local[2] = {l0, 1};
  clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL);
}

static int run_work(bench *b, const work *w, int rounds) {
  size_t es = clg_dtype_size(w->dtype);
  int half = w->dtype == CLG_DTYPE_FLOAT16;
  int64_t B = w->bags;
  int64_t *starts = malloc((size_t)(B + 1) * sizeof *starts);
  starts[0] = 0;
  for (int64_t i = 0; i < B; ++i)
    starts[i + 1] = starts[i] + (w->pool ? w->pool : (int64_t)(1 + rng() % 39));
  int64_t N = starts[B];
  size_t wbytes = (size_t)(w->rows * w->dim) * es;
  unsigned char *weight = malloc(wbytes);
  for (size_t i = 0; i < wbytes / es; ++i) {
    if (half) {
      uint16_t h = (uint16_t)(0x3800 + rng() % 0x400); /* [0.5, 1) */
      memcpy(weight + 2 * i, &h, 2);
    } else {
      float f = (float)(rng() % 2000) / 1000.0f - 1.0f;
      memcpy(weight + 4 * i, &f, 4);
    }
  }
  int32_t *idx = malloc((size_t)N * sizeof *idx);
  for (int64_t i = 0; i < N; ++i)
    idx[i] = (int32_t)(rng() % (uint64_t)w->rows);
  /* The form's bags: offsets (starts without the last), segment ids. */
  int64_t *bags = malloc((size_t)(N > B ? N : B) * sizeof *bags + 8);
  int64_t bags_len = 0;
  if (w->form == CLG_BAGS_OFFSETS) {
    memcpy(bags, starts, (size_t)B * sizeof *bags);
    bags_len = B;
  } else if (w->form == CLG_BAGS_SEGMENT_IDS) {
    for (int64_t s = 0; s < B; ++s)
      for (int64_t i = starts[s]; i < starts[s + 1]; ++i)
        bags[i] = s;
    bags_len = N;
  }
  size_t obytes = (size_t)(B * w->dim) * es, gbytes = (size_t)(N * w->dim) * es;
  cl_mem wm = upload(b->cl, weight, wbytes),
         xm = upload(b->cl, idx, (size_t)N * 4),
         bm = upload(b->cl, bags, (size_t)bags_len * 8),
         sm = upload(b->cl, starts, (size_t)(B + 1) * 8),
         om = upload(b->cl, NULL, obytes), gm = upload(b->cl, NULL, gbytes),
         cm = upload(b->cl, NULL, gbytes);
  int rc = 1;
  if (!wm || !xm || !bm || !sm || !om || !gm || !cm)
    goto done;
  int64_t ws[2] = {w->rows, w->dim}, os[2] = {B, w->dim},
          is[2] = {w->form == CLG_BAGS_FIXED ? B : N, w->pool},
          bs[1] = {bags_len}, gs[2] = {N, w->dim}, is1[1] = {N};
  clg_tensor wt = clg_tensor_buffer(w->dtype, 2, ws, wm, 0),
             xt = clg_tensor_buffer(CLG_DTYPE_INT32,
                                    w->form == CLG_BAGS_FIXED ? 2 : 1, is, xm,
                                    0),
             x1 = clg_tensor_buffer(CLG_DTYPE_INT32, 1, is1, xm, 0),
             bt = clg_tensor_buffer(CLG_DTYPE_INT64, 1, bs, bm, 0),
             ot = clg_tensor_buffer(w->dtype, 2, os, om, 0),
             gt = clg_tensor_buffer(w->dtype, 2, gs, gm, 0);
  clg_bag_params p = {0};
  p.mode = w->mode;
  p.form = w->form;
  cl_ulong dim = (cl_ulong)w->dim, nb = (cl_ulong)B;
  cl_kernel rk = b->reduce[half], nk = b->naive[half];
  clSetKernelArg(rk, 0, sizeof gm, &gm);
  clSetKernelArg(rk, 1, sizeof sm, &sm);
  clSetKernelArg(rk, 2, sizeof dim, &dim);
  clSetKernelArg(rk, 3, sizeof nb, &nb);
  clSetKernelArg(rk, 4, sizeof om, &om);
  clSetKernelArg(nk, 0, sizeof wm, &wm);
  clSetKernelArg(nk, 1, sizeof xm, &xm);
  clSetKernelArg(nk, 2, sizeof sm, &sm);
  clSetKernelArg(nk, 3, sizeof dim, &dim);
  clSetKernelArg(nk, 4, sizeof nb, &nb);
  clSetKernelArg(nk, 5, sizeof om, &om);
  double *t[5];
  for (int k = 0; k < 5; ++k)
    t[k] = malloc((size_t)rounds * sizeof(double));
  for (int r = -2; r < rounds; ++r) /* two warm-up rounds */
    for (int j = 0; j < 5; ++j) {
      int k = (j + (r < 0 ? 0 : r)) % 5;
      double t0 = bench_now();
      if (k == 0) {
        if (clg_embedding_bag(b->ctx, &p, &wt, &xt,
                              w->form == CLG_BAGS_FIXED ? NULL : &bt, NULL,
                              &ot, b->q, 0, NULL, NULL) != CLG_SUCCESS) {
          rc = fail(w->name);
          goto timed;
        }
      } else if (k == 1) {
        if (clg_gather(b->ctx, &wt, &x1, 0, &gt, b->q, 0, NULL, NULL) !=
            CLG_SUCCESS) {
          rc = fail("clg_gather");
          goto timed;
        }
        launch2(b->q, rk, dim, nb);
      } else if (k == 4) {
        clg_outcome *oc = NULL;
        if (clg_embedding_bag_async(b->ctx, &p, &wt, &xt,
                                    w->form == CLG_BAGS_FIXED ? NULL : &bt,
                                    NULL, &ot, b->q, 0, NULL, NULL, &oc) !=
            CLG_SUCCESS) {
          rc = fail(w->name);
          goto timed;
        }
        clFinish(b->q);
        clg_status ost = clg_outcome_wait(oc);
        clg_outcome_release(oc);
        if (ost != CLG_SUCCESS) {
          rc = fail(w->name);
          goto timed;
        }
      } else if (k == 2) {
        launch2(b->q, nk, dim, nb);
      } else {
        clEnqueueCopyBuffer(b->q, gm, cm, 0, 0, gbytes, 0, NULL, NULL);
      }
      clFinish(b->q);
      if (r >= 0)
        t[k][r] = bench_now() - t0;
    }
  double m[6];
  for (int k = 0; k < 5; ++k)
    m[k] = median_of(t[k], rounds);
  /* `again`: the bag call back to back (one warm-up), the table warm in
   * the caches as a caller's loop over batches finds it: what a benchmark
   * loop of another library (scripts/bench_bag_torch.py) measures. */
  for (int r = -1; r < rounds; ++r) {
    double t0 = bench_now();
    if (clg_embedding_bag(b->ctx, &p, &wt, &xt,
                          w->form == CLG_BAGS_FIXED ? NULL : &bt, NULL, &ot,
                          b->q, 0, NULL, NULL) != CLG_SUCCESS) {
      rc = fail(w->name);
      goto timed;
    }
    clFinish(b->q);
    if (r >= 0)
      t[0][r] = bench_now() - t0;
  }
  m[5] = median_of(t[0], rounds);
  clg_choice how = CLG_CHOICE_NONE;
  const char *variant = clg_context_last_variant(b->ctx, &how);
  printf("%-4s %-52s bag %8.3f ms async %8.3f again %8.3f | gather+reduce "
         "%8.3f naive %8.3f copy %8.3f | gather/bag %5.2f naive/bag %5.2f "
         "copy/bag %5.2f naive/async %5.2f | %s (%s)\n",
         w->name, w->what, m[0] * 1e3, m[4] * 1e3, m[5] * 1e3, m[1] * 1e3,
         m[2] * 1e3, m[3] * 1e3, m[1] / m[0], m[2] / m[0], m[3] / m[0],
         m[2] / m[4], variant ? variant : "?",
         how == CLG_CHOICE_MEASURED ? "measured"
         : how == CLG_CHOICE_FORCED ? "forced"
                                    : "default");
  rc = 0;
timed:
  for (int k = 0; k < 5; ++k)
    free(t[k]);
done:
  for (cl_mem *mm = (cl_mem[]){wm, xm, bm, sm, om, gm, cm}, *e = mm + 7;
       mm < e; ++mm)
    if (*mm)
      clReleaseMemObject(*mm);
  free(starts);
  free(weight);
  free(idx);
  free(bags);
  return rc;
}

/* ----------------------------------------------- quantized tables */

typedef struct qwork {
  const char *name, *what;
  uint32_t format; /* CLG_BAG_WEIGHT_* */
  int64_t rows, dim, bags, max_pool;
} qwork;

static const qwork qworks[] = {
    {"QB1", "sum 8-bit rows [1e6,128], 4096 bags x 1..80 (offsets)",
     CLG_BAG_WEIGHT_8BIT_ROWWISE, 1000000, 128, 4096, 80},
    {"QB2", "sum 4-bit rows [1e6,256], 4096 bags x 1..80 (offsets)",
     CLG_BAG_WEIGHT_4BIT_ROWWISE, 1000000, 256, 4096, 80},
};
#define NQWORK (sizeof qworks / sizeof qworks[0])

static int run_qwork(bench *b, const qwork *w, int rounds) {
  bool eight = w->format == CLG_BAG_WEIGHT_8BIT_ROWWISE;
  int64_t per = eight ? 1 : 2, tail = eight ? 8 : 4;
  int64_t rb = w->dim / per + tail, B = w->bags;
  int64_t *starts = malloc((size_t)(B + 1) * sizeof *starts);
  starts[0] = 0;
  for (int64_t i = 0; i < B; ++i)
    starts[i + 1] = starts[i] + 1 + (int64_t)(rng() % (uint64_t)w->max_pool);
  int64_t N = starts[B];
  /* The packed rows and the same values as float32 rows. */
  unsigned char *packed = malloc((size_t)(w->rows * rb));
  float *dense = malloc((size_t)(w->rows * w->dim) * sizeof(float));
  int32_t *idx = malloc((size_t)N * sizeof *idx);
  int rc = 1;
  if (!starts || !packed || !dense || !idx) {
    fprintf(stderr, "clgather-bench-bag: out of host memory\n");
    goto freed;
  }
  for (int64_t r = 0; r < w->rows; ++r) {
    unsigned char *row = packed + r * rb;
    float scale = (float)(1 + rng() % 100) / 4096.0f,
          bias = (float)(rng() % 200) / 100.0f - 1.0f;
    if (eight) {
      memcpy(row + w->dim, &scale, 4);
      memcpy(row + w->dim + 4, &bias, 4);
    } else {
      uint16_t hs = ref_float_to_half(scale), hb = ref_float_to_half(bias);
      memcpy(row + w->dim / 2, &hs, 2);
      memcpy(row + w->dim / 2 + 2, &hb, 2);
      scale = ref_half_to_float(hs);
      bias = ref_half_to_float(hb);
    }
    for (int64_t j = 0; j < w->dim / per; ++j)
      row[j] = (unsigned char)rng();
    for (int64_t j = 0; j < w->dim; ++j) {
      unsigned q = eight ? row[j] : (row[j / 2] >> (j % 2 * 4)) & 15u;
      dense[r * w->dim + j] = fmaf(scale, (float)q, bias);
    }
  }
  for (int64_t i = 0; i < N; ++i)
    idx[i] = (int32_t)(rng() % (uint64_t)w->rows);
  size_t obytes = (size_t)(B * w->dim) * 4, cbytes = (size_t)(N * rb);
  cl_mem qm = upload(b->cl, packed, (size_t)(w->rows * rb)),
         fm = upload(b->cl, dense, (size_t)(w->rows * w->dim) * 4),
         xm = upload(b->cl, idx, (size_t)N * 4),
         bm = upload(b->cl, starts, (size_t)B * 8),
         om = upload(b->cl, NULL, obytes), cm = upload(b->cl, NULL, cbytes),
         dm = upload(b->cl, NULL, cbytes);
  if (!qm || !fm || !xm || !bm || !om || !cm || !dm)
    goto done;
  int64_t qs[2] = {w->rows, rb}, fs[2] = {w->rows, w->dim}, is[1] = {N},
          bs[1] = {B}, os[2] = {B, w->dim};
  clg_tensor qt = clg_tensor_buffer(CLG_DTYPE_UINT8, 2, qs, qm, 0),
             ft = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, fs, fm, 0),
             xt = clg_tensor_buffer(CLG_DTYPE_INT32, 1, is, xm, 0),
             bt = clg_tensor_buffer(CLG_DTYPE_INT64, 1, bs, bm, 0),
             ot = clg_tensor_buffer(CLG_DTYPE_FLOAT, 2, os, om, 0);
  clg_bag_params qp = {0}, fp = {0};
  qp.weight_format = w->format;
  double *t[3];
  for (int k = 0; k < 3; ++k)
    t[k] = malloc((size_t)rounds * sizeof(double));
  for (int r = -2; r < rounds; ++r) /* two warm-up rounds */
    for (int j = 0; j < 3; ++j) {
      int k = (j + (r < 0 ? 0 : r)) % 3;
      double t0 = bench_now();
      if (k < 2) {
        if (clg_embedding_bag(b->ctx, k ? &fp : &qp, k ? &ft : &qt, &xt, &bt,
                              NULL, &ot, b->q, 0, NULL, NULL) != CLG_SUCCESS) {
          rc = fail(w->name);
          goto timed;
        }
      } else {
        clEnqueueCopyBuffer(b->q, cm, dm, 0, 0, cbytes, 0, NULL, NULL);
      }
      clFinish(b->q);
      if (r >= 0)
        t[k][r] = bench_now() - t0;
    }
  double m[4];
  for (int k = 0; k < 3; ++k)
    m[k] = median_of(t[k], rounds);
  for (int r = -1; r < rounds; ++r) {
    double t0 = bench_now();
    if (clg_embedding_bag(b->ctx, &qp, &qt, &xt, &bt, NULL, &ot, b->q, 0, NULL,
                          NULL) != CLG_SUCCESS) {
      rc = fail(w->name);
      goto timed;
    }
    clFinish(b->q);
    if (r >= 0)
      t[0][r] = bench_now() - t0;
  }
  m[3] = median_of(t[0], rounds);
  clg_choice how = CLG_CHOICE_NONE;
  const char *variant = clg_context_last_variant(b->ctx, &how);
  printf("%-4s %-52s qbag %8.3f ms again %8.3f | fbag %8.3f copy %8.3f | "
         "fbag/qbag %5.2f copy/qbag %5.2f | %s (%s)\n",
         w->name, w->what, m[0] * 1e3, m[3] * 1e3, m[1] * 1e3, m[2] * 1e3,
         m[1] / m[0], m[2] / m[0], variant ? variant : "?",
         how == CLG_CHOICE_MEASURED ? "measured"
         : how == CLG_CHOICE_FORCED ? "forced"
                                    : "default");
  rc = 0;
timed:
  for (int k = 0; k < 3; ++k)
    free(t[k]);
done:
  for (cl_mem *mm = (cl_mem[]){qm, fm, xm, bm, om, cm, dm}, *e = mm + 7; mm < e;
       ++mm)
    if (*mm)
      clReleaseMemObject(*mm);
freed:
  free(starts);
  free(packed);
  free(dense);
  free(idx);
  return rc;
}

int main(int argc, char **argv) {
  int rounds = 15;
  const char *only = NULL, *device = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--device") && i + 1 < argc)
      device = argv[++i];
    else {
      fprintf(stderr, "usage: clgather-bench-bag [--rounds N] [--only "
                      "EB1,QB1,...] [--device SPEC]\n");
      return 2;
    }
  }
  if (rounds < 1)
    rounds = 1;
  bench b = {0};
  if (clg_context_create_default(device, &b.ctx) != CLG_SUCCESS)
    return fail("creating the context");
  b.cl = clg_context_cl_context(b.ctx);
  b.q = clg_context_queue(b.ctx);
  char name[256] = {0};
  clGetDeviceInfo(clg_context_device(b.ctx), CL_DEVICE_NAME, sizeof name - 1,
                  name, NULL);
  printf("device: %s; %d rounds, medians\n", name, rounds);
  int rc = build_plain(&b);
  for (size_t i = 0; i < NWORK && rc == 0; ++i)
    if (!only || strstr(only, works[i].name))
      rc = run_work(&b, &works[i], rounds);
  for (size_t i = 0; i < NQWORK && rc == 0; ++i)
    if (!only || strstr(only, qworks[i].name))
      rc = run_qwork(&b, &qworks[i], rounds);
  clg_context_destroy(b.ctx);
  return rc;
}
