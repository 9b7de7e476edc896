/* The helpers of the fuzz_family harness (fuzz_family.c: the call and its
 * oracle; fuzz_family_fx.c: these): the decoding of axis, batch_dims and
 * unknown operators beyond fuzz_decode.h, the one clg_context and the
 * FZ_STATS counters, the tensors with their backing memory (host or cl_mem)
 * and the mirror of what it should hold, and the rules every tensor
 * follows, as statuses. */
#ifndef CLGATHER_TESTS_FUZZ_FAMILY_FX_H
#define CLGATHER_TESTS_FUZZ_FAMILY_FX_H

#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather.h>

#include "fuzz_decode.h"

/* A status's bit in a mask of allowed statuses. */
#define BIT(s) (1u << (s))

/* Mostly -5 .. 4, sometimes a wild value. */
int64_t take_small(fz_in *in);
/* For a field the operator does not take: mostly 0, sometimes not. */
int64_t take_mostly_zero(fz_in *in);
/* The operators for op bytes 250..255 (none the harness runs). */
extern const int bad_ops[6];

/* clg_run calls, successes, successes per operator (printed at exit with
 * FZ_STATS=1). */
extern unsigned long fz_calls, fz_successes, fz_by_op[3];
/* The one clg_context (the default device), created on first use. */
clg_context *context(void);

typedef struct fz_tensor {
  clg_tensor t;
  int buffer;     /* lives in a cl_mem (else host memory) */
  fz_size size;
  uint64_t count;
  size_t esize;   /* element size used for byte counts (>= 1) */
  size_t bytes;   /* count * esize when size == FZ_OK, else 0 */
  size_t off;     /* byte offset (cl_mem) or host pointer offset */
  size_t cap;     /* bytes of the backing memory */
  int shortfall;  /* cl_mem one byte smaller than off + bytes */
  int null;       /* host pointer / buffer NULL */
  struct fz_tensor *alias; /* the output shares this tensor's memory */
  unsigned char *mirror;   /* the backing's expected contents, cap bytes */
  unsigned char *host;     /* host backing (host storage) */
  cl_mem mem;              /* cl_mem backing (buffer storage) */
} fz_tensor;

/* Storage details from one byte: offset and slack (or shortfall). */
void take_place(fz_in *in, fz_tensor *x, int is_indices);
/* Allocate x's backing (host or cl_mem) from its mirror and point the
 * descriptor at it. */
void fz_back(fz_tensor *x);
/* The backing's bytes now (cap of them, into a new allocation). */
unsigned char *fz_contents(fz_tensor *x);
/* Free x's backing and mirror (not those of the tensor it aliases). */
void fz_free(fz_tensor *x);
/* The tensor rules common to every operator (storage, rank, shape, size,
 * pointers, buffer size), as statuses. */
unsigned tensor_rules(const fz_tensor *x, size_t cap);
/* 1 for the index types the header allows (int32, int64). */
int index_ok(clg_dtype t);

#endif /* CLGATHER_TESTS_FUZZ_FAMILY_FX_H */
