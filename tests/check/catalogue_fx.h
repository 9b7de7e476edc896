/*
 * The gathers' bad-input catalogue (tests/check/test_catalogue.c, the
 * runner and the Test; its header comment says what each entry is checked
 * for): what an entry is, the call a builder edits, the helpers the case
 * files share (catalogue_fx.c), and the table, whose parts the runner
 * concatenates in this order:
 *   catalogue_cases_shared.c  the family's index values, parameters, ranks,
 *                             dims, element types and output shapes: the
 *                             catalogue `clgather selftest` runs too
 *                             (tools/cases/gather_bad.c);
 *   catalogue_cases_gather.c  clg_gather()'s arguments (NULL pointers,
 *                             storages, cl_contexts, sizes, buffers),
 *                             clg_gather_output_shape();
 *   catalogue_cases_run.c     GatherElements, GatherND, params and Gather's
 *                             batch_dims / index modes through clg_run();
 *   catalogue_cases_faults.c  devices and OpenCL / host-allocation failures
 *                             (fault injection), clg_context_create*().
 */
#ifndef CLGATHER_TESTS_CATALOGUE_FX_H
#define CLGATHER_TESTS_CATALOGUE_FX_H

#include "support/testutil.h"

/* The fault-injection API without the macros that would route the tests'
 * own OpenCL calls through the counting wrappers: only host/ is counted. */
#ifndef CLG_FAULTS_IMPL
#define CLG_FAULTS_IMPL
#endif
#include "core/faults.h"

/* Sentinel bytes behind every output (>= any entry's output). */
#define OUT_ALLOC 256
/* Byte offset of a cl_mem output in its buffer. */
#define OUT_OFF 16
/* Byte offset of cl_mem indices, and spare bytes after them. */
#define IDX_OFF 8
#define IDX_TAIL 16

/* --------------------------------------------------------- the call */

typedef enum cat_kind {
  K_GATHER = 0,   /* clg_gather */
  K_CTX_DEFAULT,  /* clg_context_create_default(spec, out) */
  K_CTX_CREATE,   /* clg_context_create(cc_ctx, cc_dev, out) */
  K_OUTPUT_SHAPE, /* clg_gather_output_shape(d.rank, d.shape, i.rank, ...) */
} cat_kind;

typedef struct cat_call {
  cat_kind kind;
  /* The variant, set by the runner before the builder runs. */
  bool out_buf; /* cl_mem output (else host) */
  bool idx_buf; /* indices moved to a cl_mem after the builder */
  clg_context *ctx;
  cl_context clctx;
  cl_command_queue io_q; /* the test's queue on clctx */

  /* Memory behind the base tensors. */
  _Alignas(16) float data[64];
  _Alignas(16) unsigned char idx[128];
  _Alignas(16) unsigned char out_host[TU_GUARD + OUT_ALLOC + TU_GUARD];
  cl_mem out_mem; /* cl_mem output: OUT_OFF + OUT_ALLOC + TU_GUARD bytes */
  size_t out_mem_size;
  cl_command_queue out_q; /* a queue to read out_mem back */

  /* The arguments. */
  clg_tensor d, i, o;
  bool no_ctx, no_data, no_indices, no_output;
  int64_t axis;
  cl_command_queue queue;
  cl_uint nev;
  const cl_event *wl;
  size_t idx_extra_off; /* added to IDX_OFF in the cl_mem indices variant */
  bool use_params;      /* clg_run / clg_output_shape with `params` */
  clg_params params;

  /* Other entry points. */
  const char *spec; /* K_CTX_DEFAULT */
  bool no_out;      /* K_CTX_DEFAULT, K_CTX_CREATE */
  cl_context cc_ctx;
  cl_device_id cc_dev;
  bool no_out_rank, no_out_shape; /* K_OUTPUT_SHAPE */

  /* An OpenCL / host-allocation failure to inject for the call. */
  bool fault;
  clg_fault fkind;
  unsigned fskip;
  cl_int ferr;

  cl_mem owned[4]; /* made by the builder, released by the runner */
  int nowned;
  cl_device_id owned_dev; /* a sub-device made by the builder */
  const char *skip;       /* the device cannot express this entry */
} cat_call;

typedef void (*cat_builder)(cat_call *c, const int64_t *p);

enum {
  CAT_OUT_HOST = 1u,     /* only with a host output */
  CAT_OUT_BUF = 2u,      /* only with a cl_mem output */
  CAT_IDX_BUF = 4u,      /* also with cl_mem indices */
  CAT_IDX_BUF_ONLY = 8u, /* only with cl_mem indices */
  CAT_FRESH = 16u,       /* on a fresh clg_context (program cache empty) */
  CAT_ONCE = 32u,        /* not a gather: one run */
  CAT_NEEDLES = 64u,     /* msg[0] is ';'-separated items, all required
                            (case_message_has(): the shared entries') */
};

typedef struct cat_case {
  const char *name;
  cat_builder build;
  int64_t p[6];
  clg_status status;
  const char *msg[4]; /* all must appear in clg_last_error() */
  unsigned flags;
} cat_case;

/* ------------------------------------------------------- helpers */

/* The base call's data shape [5, 3] and indices shape [2, 3]. */
extern const int64_t base_dshape[2];
extern const int64_t base_ishape[2];

/* A buffer of `bytes` on `ctx`, all TU_SENTINEL, then `init` at `at`. */
cl_mem mkbuf(cl_context ctx, size_t bytes, const void *init, size_t at,
             size_t n);
/* m, released by the runner after the entry. */
cl_mem own(cat_call *c, cl_mem m);
/* t's rank and its first `rank` dims. */
void set_shape(clg_tensor *t, int32_t rank, const int64_t *dims);

/* ------------------------------------------------------- builders */

#define CAT_BUILDER(name) void name(cat_call *c, const int64_t *p)
#define B(name) static CAT_BUILDER(name)
#define UNUSED_P (void)p

/* The builders that more than one file uses (the rest are static). */
/* A fault: p[0] kind, p[1] skip, p[2] error (catalogue_cases_faults.c). */
CAT_BUILDER(b_fault);
/* clg_context_create_default (catalogue_cases_faults.c). */
CAT_BUILDER(b_ctx_default);
/* clg_context_create (catalogue_cases_faults.c). */
CAT_BUILDER(b_ctx_create);
/* clg_context_create with a sub-device not in the cl_context
 * (catalogue_cases_faults.c). */
CAT_BUILDER(b_ctx_create_subdevice);

/* ------------------------------------------------------- the table */

#define ST(x) CLG_ERROR_##x
#define F(x) CLG_FAULT_##x
#define TWO32 ((int64_t)1 << 32)
#define TWO31 ((int64_t)1 << 31)
#define NOF (-1) /* no fault */
#define NOSPEC (-1)

/* The table's parts, in the runner's order: the family's shared
 * catalogue (tools/cases/gather_bad.c, made into entries by
 * cat_shared_init(), catalogue_cases_shared.c) first. */
extern cat_case cat_cases_shared[];
extern size_t cat_ncases_shared;
void cat_shared_init(void);
extern const cat_case cat_cases_gather[];
extern const size_t cat_ncases_gather;
extern const cat_case cat_cases_run[];
extern const size_t cat_ncases_run;
extern const cat_case cat_cases_faults[];
extern const size_t cat_ncases_faults;

#endif /* CLGATHER_TESTS_CATALOGUE_FX_H */
