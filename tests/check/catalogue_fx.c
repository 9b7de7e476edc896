/*
 * The gathers' bad-input catalogue: the helpers its case files and its
 * runner share (declared in catalogue_fx.h; the runner is
 * test_catalogue.c).
 */
#include "catalogue_fx.h"

#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

const int64_t base_dshape[2] = {5, 3};
const int64_t base_ishape[2] = {2, 3};

/* A buffer of `bytes` on `ctx`, all TU_SENTINEL, then `init` at `at`. */
cl_mem mkbuf(cl_context ctx, size_t bytes, const void *init, size_t at,
             size_t n) {
  unsigned char *img = malloc(bytes ? bytes : 1);
  cr_assert(img != NULL);
  memset(img, (int)TU_SENTINEL, bytes ? bytes : 1);
  if (init && n)
    memcpy(img + at, init, n);
  cl_int err = CL_SUCCESS;
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            bytes ? bytes : 1, img, &err);
  free(img);
  tu_cl_check(err, "clCreateBuffer (test)");
  return b;
}

cl_mem own(cat_call *c, cl_mem m) {
  cr_assert(c->nowned < 4, "test bug: too many owned buffers");
  c->owned[c->nowned++] = m;
  return m;
}

void set_shape(clg_tensor *t, int32_t rank, const int64_t *dims) {
  t->rank = rank;
  for (int32_t k = 0; k < rank && k < CLG_MAX_RANK; ++k)
    t->shape[k] = dims[k];
}
