/*
 * What every operator's case description shares (tools/cases/: a FILE.c
 * per operator of host/ops/operators.def and FILE_bad.c, its bad inputs,
 * declared by its family's header: embedding_bag.h, gather.h,
 * gather_block_quantized.h, scatter.h;
 * as tools/reference/ has one reference each): the random source cases
 * are drawn from, where an operand of a call lives, and what a device lets
 * the library compute.
 *
 * A case description is the one statement of an operator's argument space
 * (shapes, element types, modes, forms, where each operand lives), of the
 * random valid cases drawn from it, of the host inputs a case holds, of its
 * expected output (the plain-C reference, tools/reference/), of the status
 * a device must give it, and of the catalogue of bad inputs with the status
 * and the message each must give; and of its conformance set, the cases
 * every runner goes over for it (operators.h: the registry's operators,
 * each with its description). The runners execute descriptions and hold
 * nothing else: the Criterion suites (tests/support/gather_case.c and
 * its siblings, tests/ops/, the catalogues in tests/check/), `clgather
 * selftest` (tools/selftest/) and the benchmarks (tools/bench/: their
 * large inputs and expected outputs).
 *
 * Plain C against the public API (clgather/clgather.h): no Criterion, no
 * print, no exit; an allocation that fails is a return value. Built into
 * each user against the library it links, as the references are
 * (tools/cases/cases.cmake).
 */
#ifndef CLGATHER_CASES_CASE_H
#define CLGATHER_CASES_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather.h>

#include "reference/reference.h"

/* ------------------------------------------------------ the random source */

/* splitmix64 (Steele, Lea and Flood, 2014): one 64-bit state; the same
 * seed draws the same case on every machine. */
typedef struct case_rng {
  uint64_t state;
} case_rng;

case_rng case_rng_make(uint64_t seed);
uint64_t case_rng_u64(case_rng *rng);
/* Uniform in [lo, hi] (hi >= lo; the whole int64 range allowed). */
int64_t case_rng_range(case_rng *rng, int64_t lo, int64_t hi);

/* How index values are drawn for an axis of size s. */
typedef enum case_index_draw {
  CASE_INDEX_ANY = 0,    /* uniform in [-s, s-1] */
  CASE_INDEX_NONNEG = 1, /* uniform in [0, s-1] */
  CASE_INDEX_NEG = 2,    /* uniform in [-s, -1] */
  CASE_INDEX_EDGES = 3,  /* only -s, -1, 0, s-1 */
  CASE_INDEX_WILD = 4,   /* anything (for numpy's wrap and clip): far out of
                            range, the index type's extremes, and in-range
                            values */
} case_index_draw;

/* count int32/int64 indices for an axis of size s (s >= 1 unless count is
 * 0) into dst, drawn as `draw` says. */
void case_fill_indices(case_rng *rng, void *dst, clg_dtype idt, int64_t count,
                       int64_t s, case_index_draw draw);
/* Stores v as element pos of an int32 (truncated) or int64 array. */
void case_set_index(void *dst, clg_dtype idt, int64_t pos, int64_t v);
/* n random bytes into dst. */
void case_rng_bytes(case_rng *rng, void *dst, size_t n);

/* ----------------------------------------------- where an operand lives */

typedef struct case_storage {
  clg_storage kind;
  size_t offset;   /* cl_mem only: the tensor's byte offset in its buffer */
  bool tight;      /* cl_mem only: no bytes after the tensor */
  bool null_empty; /* host only: host = NULL when the tensor is empty */
} case_storage;

/* "host", "host(null-if-empty)", "buffer+16", "buffer+16(tight)" into buf. */
const char *case_storage_str(case_storage s, char *buf, size_t cap);

/* How a conformance run (`clgather selftest`) calls the library with a
 * case's operands. */
typedef enum case_call {
  CASE_CALL_HOST = 0, /* every tensor in host memory */
  CASE_CALL_BUFFER,   /* every tensor a cl_mem (at an offset), the
                         blocking call */
  CASE_CALL_ASYNC,    /* every tensor a cl_mem, the asynchronous call and
                         clg_outcome_wait() */
  CASE_CALL_IN_PLACE, /* scatters: cl_mem, the output is data's own buffer */
  CASE_NCALLS
} case_call;

/* An operator's conformance set (tools/cases/operators.h): each case is
 * handed to the runner's visit function in turn. */
struct case_item;
typedef void (*case_visit)(void *ctx, const struct case_item *item);

/* ------------------------------------------- what the device computes */

/* The device properties the library's refusals follow (each operator's
 * header says which of its calls a device without them refuses with
 * CLG_ERROR_UNSUPPORTED_DTYPE). */
typedef struct case_device {
  bool fp64;          /* cl_khr_fp64 */
  bool single_denorm; /* CL_FP_DENORM in CL_DEVICE_SINGLE_FP_CONFIG */
  bool double_denorm; /* CL_FP_DENORM in CL_DEVICE_DOUBLE_FP_CONFIG */
  /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT in CL_DEVICE_SINGLE_FP_CONFIG */
  bool single_cr_divide;
} case_device;

/* The properties of `device` (a failed query reads as absent). Returns 0,
 * or -1 for a NULL device. */
int case_device_query(cl_device_id device, case_device *out);

/* ---------------------------------------------------- shapes and types */

/* "[2, 3, 4]" into buf. */
const char *case_shape_str(int32_t rank, const int64_t *shape, char *buf,
                           size_t cap);
/* The reference's index type of int32 / int64 (tools/reference/). */
ref_index_type case_ref_index_type(clg_dtype idt);

/* ------------------------------------------------------------ messages */

/* True when every ';'-separated item of `needles` (each a '|'-separated
 * list of alternatives, compared without case) is in msg; "" and NULL
 * always match. The catalogues' expected messages are written this way. */
bool case_message_has(const char *msg, const char *needles);
/* True when hay holds needle, compared without case ("" always). */
bool case_contains_ci(const char *hay, const char *needle);
/* True when msg holds v as a number of its own (not part of a longer
 * one: "12" is not in "312"). */
bool case_message_has_int(const char *msg, int64_t v);

#endif /* CLGATHER_CASES_CASE_H */
