/* The layouts of strided tensors, in elements: the strides of a dense
 * tensor, dimensions coalesced (PyTorch's and numpy's word: neighbours
 * that every layout lays out alike merged into one, dimensions of size 1
 * dropped), and the NDRange of the copy kernel (kernels/strided.cl) over
 * a layout. strided.c's copies and strided_gather.c's kernel use them. */
#include "run/strided.h"

/* Strides of the dense C-order tensor of `shape`. */
void clg__dense_strides(int32_t rank, const int64_t *shape, int64_t *strides) {
  int64_t s = 1;
  for (int32_t i = rank - 1; i >= 0; --i) {
    strides[i] = s;
    s *= shape[i] > 0 ? shape[i] : 1;
  }
}

/* Drop dimensions of size 1 and merge neighbours every layout lays out
 * alike (the outer one's stride is the inner one's times its size); `idx`
 * (NULL: none) is a third layout, the direct Gather's index positions. */
void clg__coalesce_dims(int32_t rank, const int64_t *shape, const int64_t *src,
                        const int64_t *dst, const int64_t *idx,
                        clg_copy_layout *l) {
  l->rank = 0;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] == 1)
      continue;
    int r = l->rank;
    int64_t x = idx ? idx[i] : 0;
    if (r > 0 && l->src[r - 1] == src[i] * shape[i] &&
        l->dst[r - 1] == dst[i] * shape[i] && l->idx[r - 1] == x * shape[i]) {
      l->shape[r - 1] *= shape[i];
      l->src[r - 1] = src[i];
      l->dst[r - 1] = dst[i];
      l->idx[r - 1] = x;
      continue;
    }
    l->shape[r] = shape[i];
    l->src[r] = src[i];
    l->dst[r] = dst[i];
    l->idx[r] = x;
    l->rank = r + 1;
  }
}

/* The 2-D NDRange of kernels/strided.cl for layout l (rank >= 1 after
 * this: a single element is a dimension of size 1), and its rows. */
void clg__strided_range(const clg_context *ctx, clg_copy_layout *l,
                        size_t *global, size_t *local, cl_ulong *rows_out) {
  if (l->rank == 0) {
    l->rank = 1;
    l->shape[0] = 1;
    l->src[0] = l->dst[0] = l->idx[0] = 0;
  }
  size_t inner = (size_t)l->shape[l->rank - 1], rows = 1;
  for (int i = 0; i < l->rank - 1; ++i)
    rows *= (size_t)l->shape[i];
  /* Work-groups of up to CLG_STRIDED_LOCAL work-items on GPUs; of up to
   * 16 times that on CPUs, whose drivers pay for each work-group (POCL: a
   * 3 MB column block took 50 ms in groups of 64, most of it scheduling),
   * several rows each where rows are short. */
  size_t most = CLG_STRIDED_LOCAL;
  if (clg__kernel_device(ctx) & CL_DEVICE_TYPE_CPU)
    most *= 16;
  if (ctx->max_work_group_size && most > ctx->max_work_group_size)
    most = ctx->max_work_group_size;
  size_t lx = 1, ly = 1;
  while (lx < inner && lx * 2 <= most)
    lx *= 2;
  while (ly < rows && lx * ly * 2 <= most)
    ly *= 2;
  local[0] = lx;
  local[1] = ly;
  global[0] = (inner + lx - 1) / lx * lx;
  global[1] = (rows + ly - 1) / ly * ly;
  *rows_out = rows;
}
