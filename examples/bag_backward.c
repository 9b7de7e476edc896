/*
 * bag_backward.c — one training step of an embedding bag: the forward
 * reduction and the dense gradient of the weight, each checked byte for byte
 * against a plain sequential loop.
 *
 * Forward (PyTorch's embedding_bag, mode sum or mean, bags by offsets):
 *     out[b] = reduce over i in bag b of weight[indices[i]]        [B, dim]
 * run by clg_embedding_bag().
 *
 * Backward: with grad_out [B, dim] the gradient of a loss with respect to
 * out, the gradient of the weight is
 *     grad_weight[indices[i]] += g[bag(i)]   for i = 0 .. N-1 in order,
 * where g = grad_out in mode sum and g[b] = grad_out[b] / count(b) in mode
 * mean (rows never looked up get zeros). That is two calls of the gather
 * family:
 *   1. updates = Gather(g, bag_of_entry)        [N, dim]   (clg_gather)
 *   2. grad_weight = ScatterND(zeros, indices as [N, 1], updates,
 *                               reduction add)   (clg_scatter)
 * ScatterND's add applies the entries in the C order of the indices
 * (clgather.h: the scatters are deterministic), so the result is the
 * sequential loop above bit for bit, on any device, repeated rows included:
 * no atomics, no float reassociation. Indices are checked by both calls
 * before anything runs.
 *
 * Usage: clgather-example-bag-backward [--mean]
 * Exit status: 0 when both results equal the loops' bytes, 1 otherwise.
 */
#include <clgather/clgather.h> /* includes clgather_bag.h */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  ROWS = 500, /* weight: ROWS x DIM floats */
  DIM = 48,
  BAGS = 64,
  MAXLEN = 12 /* entries per bag: 0 .. MAXLEN-1 (empty bags included) */
};

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(void) { /* xorshift64 */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 32);
}
static float rnd_float(void) { return (float)(rnd() % 2001) / 1000.0f - 1.0f; }

static int clg_failed(const char *call, clg_status st) {
  fprintf(stderr, "bag_backward: %s failed: %s: %s\n", call,
          clg_status_string(st), clg_last_error());
  return 1;
}

int main(int argc, char **argv) {
  int mean = argc > 1 && strcmp(argv[1], "--mean") == 0;
  if (argc > 2 || (argc == 2 && !mean)) {
    fputs("usage: clgather-example-bag-backward [--mean]\n", stderr);
    return 1;
  }
  /* Bags: lengths 0 .. MAXLEN-1, indices with repeats (a row may appear
   * twice in one bag and in many bags: its gradient sums them in order). */
  int64_t offsets[BAGS], count[BAGS], n = 0;
  for (int b = 0; b < BAGS; ++b) {
    offsets[b] = n;
    count[b] = rnd() % MAXLEN;
    n += count[b];
  }
  float *weight = malloc(sizeof(float) * ROWS * DIM);
  float *out = malloc(sizeof(float) * BAGS * DIM);
  float *grad_out = malloc(sizeof(float) * BAGS * DIM);
  float *g = malloc(sizeof(float) * BAGS * DIM);
  float *updates = malloc(sizeof(float) * (size_t)(n ? n : 1) * DIM);
  float *grad_w = calloc((size_t)ROWS * DIM, sizeof(float));
  float *want = calloc((size_t)ROWS * DIM, sizeof(float));
  int64_t *indices = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  int64_t *bag_of = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  int rc = 1;
  clg_context *ctx = NULL;
  if (!weight || !out || !grad_out || !g || !updates || !grad_w || !want ||
      !indices || !bag_of) {
    fputs("bag_backward: out of memory\n", stderr);
    goto done;
  }
  for (size_t i = 0; i < (size_t)ROWS * DIM; ++i)
    weight[i] = rnd_float();
  for (size_t i = 0; i < (size_t)BAGS * DIM; ++i)
    grad_out[i] = rnd_float();
  for (int b = 0; b < BAGS; ++b)
    for (int64_t k = 0; k < count[b]; ++k) {
      indices[offsets[b] + k] = rnd() % (ROWS / 4); /* repeats likely */
      bag_of[offsets[b] + k] = b;
    }

  clg_status st = clg_context_create_default(NULL, &ctx);
  if (st != CLG_SUCCESS) {
    rc = clg_failed("clg_context_create_default", st);
    goto done;
  }

  /* ---- forward: clg_embedding_bag, against its loop */
  clg_bag_params p = {0};
  p.mode = mean ? CLG_BAG_MEAN : CLG_BAG_SUM;
  p.form = CLG_BAGS_OFFSETS;
  int64_t wshape[2] = {ROWS, DIM}, nshape[1] = {n}, bshape[1] = {BAGS},
          oshape[2] = {BAGS, DIM};
  clg_tensor tw = clg_tensor_host(CLG_DTYPE_FLOAT, 2, wshape, weight);
  clg_tensor ti = clg_tensor_host(CLG_DTYPE_INT64, 1, nshape, indices);
  clg_tensor tb = clg_tensor_host(CLG_DTYPE_INT64, 1, bshape, offsets);
  clg_tensor to = clg_tensor_host(CLG_DTYPE_FLOAT, 2, oshape, out);
  st = clg_embedding_bag(ctx, &p, &tw, &ti, &tb, NULL, &to, NULL, 0, NULL,
                         NULL);
  if (st != CLG_SUCCESS) {
    rc = clg_failed("clg_embedding_bag", st);
    goto done;
  }
  for (int b = 0; b < BAGS; ++b)
    for (int c = 0; c < DIM; ++c) {
      float acc = 0.0f; /* the header's rule: in index order, then / count */
      for (int64_t k = 0; k < count[b]; ++k)
        acc = acc + weight[indices[offsets[b] + k] * DIM + c];
      if (mean && count[b] > 0)
        acc = acc / (float)count[b];
      if (memcmp(&acc, &out[b * DIM + c], sizeof acc) != 0) {
        fprintf(stderr, "bag_backward: forward out[%d][%d] is %a, want %a\n",
                b, c, (double)out[b * DIM + c], (double)acc);
        goto done;
      }
    }

  /* ---- backward, 1: g (mean: each bag's gradient / its count, by the
   * application, as the loop does it), then updates = Gather(g, bag_of) */
  for (int b = 0; b < BAGS; ++b)
    for (int c = 0; c < DIM; ++c)
      g[b * DIM + c] = mean && count[b] > 0
                           ? grad_out[b * DIM + c] / (float)count[b]
                           : grad_out[b * DIM + c];
  int64_t ushape[2] = {n, DIM};
  clg_tensor tg = clg_tensor_host(CLG_DTYPE_FLOAT, 2, oshape, g);
  clg_tensor tbag = clg_tensor_host(CLG_DTYPE_INT64, 1, nshape, bag_of);
  clg_tensor tu = clg_tensor_host(CLG_DTYPE_FLOAT, 2, ushape, updates);
  st = clg_gather(ctx, &tg, &tbag, 0, &tu, NULL, 0, NULL, NULL);
  if (st != CLG_SUCCESS) {
    rc = clg_failed("clg_gather", st);
    goto done;
  }

  /* ---- backward, 2: grad_weight = ScatterND add of updates at indices
   * (as [N, 1]) into zeros, in place */
  clg_params sp = {0};
  sp.op = CLG_OP_SCATTER_ND;
  clg_scatter_params add = {CLG_REDUCTION_ADD, CLG_DUPLICATES_ERROR};
  int64_t xshape[2] = {n, 1};
  clg_tensor tx = clg_tensor_host(CLG_DTYPE_INT64, 2, xshape, indices);
  clg_tensor tgw = clg_tensor_host(CLG_DTYPE_FLOAT, 2, wshape, grad_w);
  st = clg_scatter(ctx, &sp, &add, &tgw, &tx, &tu, &tgw, NULL, 0, NULL, NULL);
  if (st != CLG_SUCCESS) {
    rc = clg_failed("clg_scatter", st);
    goto done;
  }

  /* The loop: grad_weight[indices[i]] += g[bag(i)], i in order. */
  for (int64_t i = 0; i < n; ++i)
    for (int c = 0; c < DIM; ++c)
      want[indices[i] * DIM + c] =
          want[indices[i] * DIM + c] + g[bag_of[i] * DIM + c];
  if (memcmp(want, grad_w, sizeof(float) * ROWS * DIM) != 0) {
    for (size_t i = 0; i < (size_t)ROWS * DIM; ++i)
      if (memcmp(&want[i], &grad_w[i], sizeof(float)) != 0) {
        fprintf(stderr,
                "bag_backward: grad_weight[%zu][%zu] is %a, want %a\n",
                i / DIM, i % DIM, (double)grad_w[i], (double)want[i]);
        break;
      }
    goto done;
  }
  printf("bag_backward (%s): %d bags of %lld entries in all; forward and "
         "the weight's gradient equal the sequential loops byte for byte\n",
         mean ? "mean" : "sum", BAGS, (long long)n);
  rc = 0;
done:
  clg_context_destroy(ctx);
  free(weight);
  free(out);
  free(grad_out);
  free(g);
  free(updates);
  free(grad_w);
  free(want);
  free(indices);
  free(bag_of);
  return rc;
}
