/*
 * What the files of test_outcome (one binary; the asynchronous checked
 * mode: clg_run_async(), clg_outcome_wait(), clg_outcome_release()) share:
 * run/test_outcome.c (out-of-bounds verdicts), test_outcome_valid.c (valid
 * inputs, WRAP / CLIP, empty calls), test_outcome_events.c (wait lists,
 * later commands, pipelines), test_outcome_lifecycle.c (outcomes
 * themselves), test_outcome_errors.c (errors of the call, the validation
 * counter). Here: queues, a user event's watchdog, a case and its inputs,
 * the plain-C reference, the synchronous yardstick and one asynchronous
 * call waited for (outcome_fx.c).
 */
#ifndef CLGATHER_TESTS_OUTCOME_FX_H
#define CLGATHER_TESTS_OUTCOME_FX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/testutil.h"

#define OOB CLG_ERROR_INDEX_OUT_OF_BOUNDS
#define I32 CLG_DTYPE_INT32
#define I64 CLG_DTYPE_INT64
#define G(axis, bd)                                                            \
  { CLG_OP_GATHER, axis, bd, CLG_MODE_RAISE }
#define GM(axis, mode)                                                         \
  { CLG_OP_GATHER, axis, 0, mode }
#define GE(axis)                                                               \
  { CLG_OP_GATHER_ELEMENTS, axis, 0, CLG_MODE_RAISE }
#define ND(bd)                                                                 \
  { CLG_OP_GATHER_ND, 0, bd, CLG_MODE_RAISE }

/* A cl_mem storage at byte offset `off`. */
tu_storage buf_at(size_t off);
/* The shared context's device_validations counter (host/internal.h). */
unsigned validations(void);

/* An out-of-order queue on the test device, or NULL where it has none. */
cl_command_queue ooo_queue(void);
/* A second in-order queue of the test's own. */
cl_command_queue inorder_queue(void);
/* An event's CL_EVENT_COMMAND_EXECUTION_STATUS. */
cl_int event_status(cl_event ev);

/* Completes a user event after `ms` milliseconds unless cancelled first: a
 * call that wrongly blocks on it cannot hang the suite, and `fired` tells
 * that it blocked. */
typedef struct watchdog {
  cl_event user;
  long ms;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool done, fired;
  pthread_t th;
} watchdog;

/* Start the watchdog of user event `user`, firing after `ms` ms. */
void watchdog_start(watchdog *w, cl_event user, long ms);
/* Whether the watchdog has fired (completed the user event) yet. */
bool watchdog_fired(watchdog *w);
/* Complete the user event now (unless the watchdog did) and stop it;
 * returns whether the watchdog had fired. */
bool watchdog_release(watchdog *w);
/* A new user event on the shared cl_context. */
cl_event user_event(void);

/* One operator call: params, element type, shapes, index type, and index
 * values: valid ones drawn from a seed, then up to 4 overrides (position,
 * value; position -1 is the last). */
typedef struct ocase {
  const char *name;
  clg_params p;
  clg_dtype dt;
  int32_t r;
  int64_t ds[4];
  int32_t q;
  int64_t is[4];
  clg_dtype idt;
  int nset;
  int64_t set[4][2];
  const char *msg[3]; /* must appear in the message (from the catalogue) */
} ocase;

/* The size of an index of type t (int32 or int64). */
size_t isz_of(clg_dtype t);
/* The reference output for (data, idx); 0 on success. */
int ref_run(const ocase *k, const void *data, const void *idx, void *out);

typedef struct oinputs {
  int64_t count;
  size_t dbytes, ibytes, obytes;
  int32_t orank;
  int64_t os[REF_MAX_RANK];
  unsigned char *data, *idx;
} oinputs;

/* Data (random bytes) and indices (valid values in the case's bounds, or
 * anything for WRAP / CLIP; then the overrides) drawn from `seed`. */
void inputs_make(const ocase *k, uint64_t seed, oinputs *in);
/* Free what inputs_make() allocated. */
void inputs_free(oinputs *in);
/* The synchronous yardstick: clg_run() on host data, indices and output;
 * its status, *msg its message (the host output untouched on failure). */
clg_status sync_run(const ocase *k, const oinputs *in, char *msg, size_t cap);

/* How a case is run through clg_run_async(). */
typedef struct ovariant {
  const char *name;
  bool dbuf, xbuf, obuf;         /* cl_mem (else host) data, indices, output */
  size_t doff, xoff_elems, ooff; /* buffer offsets (indices: in elements) */
  int queue;                     /* 0 NULL, 1 in-order, 2 out-of-order */
  bool event;                    /* ask for an event */
} ovariant;

/* The storage mixes with cl_mem indices (outcome_fx.c). */
extern const ovariant g_variants[5];
#define NVARIANTS (sizeof g_variants / sizeof g_variants[0])

/* The result of one clg_run_async() call, waited for. */
typedef struct oresult {
  clg_status call, wait, wait2;
  char call_msg[2048], wait_msg[2048], wait2_msg[2048];
  unsigned validations; /* validation kernels the call enqueued */
  bool got_outcome, got_event, event_complete;
  bool guards_ok;     /* nothing written around the output */
  unsigned char *out; /* the output's bytes afterwards (obytes) */
  bool out_sentinel;  /* ... all of it still TU_SENTINEL */
} oresult;

/* Case k on inputs in through clg_run_async() in variant v, waited for
 * twice; fills *r (r->out: malloc'd). */
void run_async_case(const ocase *k, const oinputs *in, const ovariant *v,
                    oresult *r);

#endif /* CLGATHER_TESTS_OUTCOME_FX_H */
