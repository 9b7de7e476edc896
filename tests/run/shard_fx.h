/*
 * What the files of test_shard share (one binary; run/test_shard.c says
 * what it covers, and where each part is): the two devices of one
 * cl_context and the suite "shard" (its init and fini, shard_fx.c), the
 * test's tensors with guard bytes, the cases and their shorthands, a sleep.
 */
#ifndef CLGATHER_TESTS_SHARD_FX_H
#define CLGATHER_TESTS_SHARD_FX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/testutil.h"

/* ------------------------------------------------------------ devices */

/* Two devices of the first platform, one cl_context over both, one
 * clg_context per device, and a queue of the test's own for buffer I/O. */
extern cl_device_id g_dev[2];
extern cl_context g_cl;
extern clg_context *g_ctx[2];
extern cl_command_queue g_io;
/* The larger CL_DEVICE_MEM_BASE_ADDR_ALIGN of the two devices, in bytes:
 * sub-buffer origins (so sharded cl_mem outputs) are multiples of it. */
extern size_t g_align;

/* A new in-order queue of `dev` on `cl`; asserts success. */
cl_command_queue new_queue(cl_context cl, cl_device_id dev);

/* ------------------------------------------------------------ tensors */

/* A tensor in host memory or in a cl_mem of the shared context, with
 * TU_SENTINEL guard bytes around it (as tu_tensor, on g_cl). */
typedef struct sh_tensor {
  clg_tensor desc;
  size_t bytes, offset, total;
  unsigned char *alloc; /* host storage */
  cl_mem buf;           /* buffer storage */
} sh_tensor;

/* Allocates t (host memory, or a cl_mem of g_cl at byte `offset`), its
 * bytes `init` (NULL: TU_SENTINEL) between TU_SENTINEL guards. */
void sh_init(sh_tensor *t, clg_dtype dt, int32_t rank, const int64_t *shape,
             bool buffer, size_t offset, const void *init);
/* Frees what sh_init allocated. */
void sh_free(sh_tensor *t);
/* The whole allocation (guards included) into dst (t->total bytes). */
void sh_read_all(const sh_tensor *t, unsigned char *dst);
/* Does the tensor hold `want` (t->bytes; NULL: all sentinel) with every
 * byte around it still TU_SENTINEL? Writes the first difference to why. */
bool sh_holds(const sh_tensor *t, const unsigned char *want, char *why,
              size_t cap);

/* -------------------------------------------------------------- cases */

typedef struct sh_case {
  clg_params p;
  int32_t r, q;
  int64_t d[6], i[6];
} sh_case;

/* How a case is stored and called. */
typedef struct sh_how {
  clg_dtype dtype, idt;
  bool buf[3];   /* data, indices, output in a cl_mem */
  size_t off[3]; /* their byte offsets (buffers) */
  bool event;    /* ask for an event and wait on it */
  bool queues;   /* pass the test's own queues */
} sh_how;

#define G(ax, b, m)                                                            \
  { CLG_OP_GATHER, ax, b, m }
#define E(ax)                                                                  \
  { CLG_OP_GATHER_ELEMENTS, ax, 0, CLG_MODE_RAISE }
#define N(b)                                                                   \
  { CLG_OP_GATHER_ND, 0, b, CLG_MODE_RAISE }
#define RAISE CLG_MODE_RAISE

/* The case and how it is stored, on one line, into buf; returns buf. */
const char *case_str(const sh_case *c, const sh_how *h, char *buf, size_t cap);
/* Valid indices for the case (mode RAISE), or anything (WRAP, CLIP). */
void fill_indices(const sh_case *c, clg_dtype idt, tu_rng *rng, void *dst,
                  int64_t count);

/* ---------------------------------------------------------------- waits */

/* Sleeps `ms` milliseconds. */
void sleep_ms(long ms);

#endif /* CLGATHER_TESTS_SHARD_FX_H */
