/* Checks shared by the tensor-file harnesses (fuzz_npy, fuzz_tensorproto). */
#ifndef CLGATHER_TESTS_FUZZ_TENSOR_H
#define CLGATHER_TESTS_FUZZ_TENSOR_H

#include "fuzz_common.h"
#include "tensor_file.h"

/* A tensor a reader returned is self-consistent: fixed-size dtype, rank in
 * range, data present, nbytes as the shape says and at most max_nbytes. */
static void fz_check_tensor(const cli_tensor *t, size_t max_nbytes) {
  size_t es = clg_dtype_size(t->dtype);
  FZ_CHECK(es > 0, "dtype %d", (int)t->dtype);
  FZ_CHECK(t->rank >= 0 && t->rank <= CLG_MAX_RANK, "rank %d", (int)t->rank);
  FZ_CHECK(t->data != NULL, "data is NULL");
  size_t nbytes = 0;
  char err[512];
  FZ_CHECK(cli_shape_size(t->rank, t->shape, es, NULL, &nbytes, err,
                          sizeof err) == 0,
           "%s", err);
  FZ_CHECK(nbytes == t->nbytes, "nbytes %zu, shape says %zu", t->nbytes,
           nbytes);
  FZ_CHECK(t->nbytes <= max_nbytes, "nbytes %zu above the bound %zu",
           t->nbytes, max_nbytes);
}

static void check_same(const cli_tensor *a, const cli_tensor *b,
                       const char *what) {
  FZ_CHECK(a->dtype == b->dtype, "%s: dtype %d vs %d", what, (int)a->dtype,
           (int)b->dtype);
  FZ_CHECK(a->rank == b->rank, "%s: rank %d vs %d", what, (int)a->rank,
           (int)b->rank);
  for (int32_t i = 0; i < a->rank; ++i)
    FZ_CHECK(a->shape[i] == b->shape[i], "%s: dim %d", what, (int)i);
  FZ_CHECK(a->nbytes == b->nbytes, "%s: nbytes %zu vs %zu", what, a->nbytes,
           b->nbytes);
  FZ_CHECK(a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0,
           "%s: bytes differ", what);
}

static void check_failed(int rc, const cli_tensor *t, const char *err,
                         const char *what) {
  FZ_CHECK(rc == -1, "%s returned %d", what, rc);
  FZ_CHECK(err[0] != '\0', "%s failed without a message", what);
  FZ_CHECK(t->data == NULL && t->nbytes == 0 && t->rank == 0,
           "%s failed but left a tensor", what);
}

#endif /* CLGATHER_TESTS_FUZZ_TENSOR_H */
