/*
 * The scatters' bad-input catalogue (tests/check/test_scatter_catalogue.c,
 * the runner; tests/check/scatter_catalogue_cases.c, the builders and the
 * table): what an entry is and how the runner lays out the tensors it
 * builds.
 */
#ifndef CLGATHER_TESTS_SCATTER_CATALOGUE_H
#define CLGATHER_TESTS_SCATTER_CATALOGUE_H

#include "support/testutil.h"

/* Byte offsets of the runner's cl_mem tensors in their buffers. */
#define SCT_OUT_OFF 16 /* the output (and data, in place) */
#define SCT_IN_OFF 32  /* data (not in place) and updates */
#define SCT_IDX_OFF 8  /* indices (plus sct_call::idx_extra_off) */
/* Bytes of each value array a builder fills (data, indices, updates). */
#define SCT_CAP (40u << 10)

typedef enum sct_kind {
  SCT_SCATTER = 0,      /* clg_scatter (and clg_scatter_async) */
  SCT_RUN,              /* clg_run with the scatter's params */
  SCT_ASYNC_NO_OUTCOME, /* clg_scatter_async with outcome NULL */
} sct_kind;

typedef struct sct_call {
  /* The variant, set by the runner before the builder runs. */
  bool out_buf;  /* cl_mem output (else host) */
  bool idx_buf;  /* cl_mem indices (with a cl_mem output: every tensor) */
  bool in_place; /* the output is data's own storage */

  /* The call: the base, then what the builder changed. */
  sct_kind kind;
  clg_params params;
  clg_scatter_params sp;
  bool no_ctx, no_params, no_sp, no_data, no_indices, no_updates, no_output;
  cl_uint nev;
  const cl_event *wl;
  /* Element types and shapes from the base and the builder; the runner
   * then gives each its storage, which a `post` builder may change. */
  clg_tensor d, i, u, o;
  unsigned char *data, *idx, *upd; /* SCT_CAP bytes each: the values */
  size_t idx_extra_off;            /* added to SCT_IDX_OFF */

  /* Storage, made by the runner. */
  size_t out_bytes;        /* room for the output (and data, in place) */
  unsigned char *out_host; /* TU_GUARD + out_bytes + TU_GUARD */
  cl_mem out_mem;          /* SCT_OUT_OFF + out_bytes + TU_GUARD bytes */
  cl_mem owned[6];         /* released by the runner */
  int nowned;
} sct_call;

typedef void (*sct_builder)(sct_call *c, const int64_t *p);

enum {
  SCT_VALUES = 1u,        /* about index values: also with cl_mem indices */
  SCT_IDX_ONLY = 2u,      /* only with cl_mem indices */
  SCT_OUT_HOST = 4u,      /* only with a host output */
  SCT_OUT_BUF = 8u,       /* only with a cl_mem output */
  SCT_NOT_IN_PLACE = 16u, /* never in place */
  SCT_DEV_INPUTS = 32u,   /* data and updates in cl_mem with a cl_mem output */
  SCT_NEEDLES = 64u       /* msg[0] is ';'-separated items, all required
                             (case_message_has(): the shared entries') */
};

typedef struct sct_case {
  const char *name;
  clg_op op;         /* the base call (see sct_base) */
  sct_builder build; /* before the tensors are placed */
  sct_builder post;  /* after (or NULL) */
  int64_t p[6];
  clg_status status;
  const char *msg[4]; /* all must appear in clg_last_error() */
  unsigned flags;
} sct_case;

/* The valid base call of `op` into c (values, shapes, params); c's variant
 * fields are kept. */
void sct_base(sct_call *c, clg_op op);
/* A cl_mem of `bytes`, all TU_SENTINEL but `n` bytes of init at `at`. */
cl_mem sct_buffer(size_t bytes, const void *init, size_t at, size_t n);
cl_mem sct_own(sct_call *c, cl_mem m);

extern const sct_case sct_cases[];
extern const size_t sct_ncases;
/* The family's shared catalogue (tools/cases/scatter_elements_bad.c, which
 * `clgather selftest` runs too: parameters, element types, shapes, index
 * values), made into entries of this table by sct_shared_init(). */
extern sct_case sct_shared_cases[];
extern size_t sct_nshared_cases;
void sct_shared_init(void);

#endif /* CLGATHER_TESTS_SCATTER_CATALOGUE_H */
