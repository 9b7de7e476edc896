/*
 * Shared helpers for the Criterion suite: the process-wide clg_context, a
 * seeded RNG, tensors in host or cl_mem storage with sentinel guard bytes
 * around them, shape formatting and message checks. The case runners are
 * support/gather_case.h (the gather family) and support/scatter_case.h.
 *
 * Helpers that hit an unexpected OpenCL failure abort the test with
 * cr_assert: a test never skips for lack of a device.
 */
#ifndef CLGATHER_TESTS_TESTUTIL_H
#define CLGATHER_TESTS_TESTUTIL_H

#include <clgather/clgather.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cases/case.h"
#include "reference/reference.h"

/* ------------------------------------------------------------- device */

/* The test process's one clg_context, created on first use with
 * clg_context_create_default(NULL); asserts success. */
clg_context *tu_ctx(void);
cl_context tu_cl_context(void);
cl_device_id tu_device(void);
/* A queue of the tests' own (not the library's) for buffer I/O. */
cl_command_queue tu_queue(void);
/* Asserts err == CL_SUCCESS, naming what failed. */
void tu_cl_check(cl_int err, const char *what);
/* The reference count of cl_context `c` once it has settled: POCL drops
 * the references that finished commands hold (their buffers, events) from
 * its own threads, a little after clFinish returns, so after clFinish of
 * tu_queue() the count is read until it has not changed for 3 ms (at most
 * 1 s). Callers finish their other queues first. Test builds count it
 * less the buffers the shared clg_context (tu_ctx()) keeps between calls
 * (verdicts, scratch), which are its keeping, not leaks: how many it keeps
 * depends on how far the calls before had run when the next came. */
cl_uint tu_context_refs(cl_context c);
#if defined(CLGATHER_TESTING)
/* Release every buffer ctx keeps between calls (once the commands that
 * use them have ended): its next call makes its own, as a new context's
 * would. For tests that count a path's OpenCL calls and fail them one by
 * one, whose counts must not depend on what the calls before left. */
void tu_drop_kept(clg_context *ctx);
#endif
/* The count after the code under test ran, compared with `before` (from
 * tu_context_refs): a reference POCL's threads still hold can outlast 3
 * quiet milliseconds on a loaded machine (seen under ASan in CI), so a
 * count other than `before` is read again until it comes back, for at most
 * 2 s. A leaked object never gives its reference back: that still fails. */
cl_uint tu_context_refs_after(cl_context c, cl_uint before);

/* ---------------------------------------------------------------- RNG */

/* The cases' random source (tools/cases/case.h): the same draws. */
typedef case_rng tu_rng;

tu_rng tu_rng_make(uint64_t seed);

/* Whether to run the next generated case: every one, or with
 * CLGATHER_TEST_SAMPLE=N one in N (the first always), counted per process
 * (a Criterion test), so a run is repeatable. For devices too slow for the
 * whole of a suite: Oclgrind interprets every work-item
 * (tests/oclgrind/suites.sh). */
bool tu_sampled(void);

/* Does the test device give a scatter's reduction on `dtype` the bits
 * clgather promises? Computed in float (float, bfloat16, complex64): the
 * device keeps subnormal floats (CL_FP_DENORM in its single FP config);
 * in double (float64, complex128): it has cl_khr_fp64 and keeps subnormal
 * doubles; float16 and the integers: always. Where it does not, the
 * library refuses the reduction (CLG_ERROR_UNSUPPORTED_DTYPE, nothing
 * written): Mesa's Rusticl on llvmpipe flushes subnormals and has no
 * doubles. Asked of the device, never of the library. */
bool tu_reduces_exactly(clg_dtype dtype);
/* The test device's properties the library's refusals follow
 * (tools/cases/case.h), queried once; CLGATHER_TEST_CLAIM_DENORM (the
 * test build's claim, core/faults.h) sets single_denorm. */
const case_device *tu_case_device(void);
uint64_t tu_rng_u64(tu_rng *rng);
/* Uniform in [lo, hi] (lo <= hi). */
int64_t tu_rng_range(tu_rng *rng, int64_t lo, int64_t hi);
void tu_rng_bytes(tu_rng *rng, void *dst, size_t n);

/* ------------------------------------------------------------- shapes */

int64_t tu_numel(int32_t rank, const int64_t *shape);
/* "[2, 3]" ("[]" for rank 0) into buf; returns buf. */
const char *tu_shape_str(int32_t rank, const int64_t *shape, char *buf,
                         size_t cap);
ref_index_type tu_ref_index_type(clg_dtype idt);

/* ------------------------------------------------------------ indices */

/* How index values are drawn (tools/cases/case.h's case_index_draw). */
typedef case_index_draw tu_index_mode;
#define TU_IDX_ANY CASE_INDEX_ANY       /* uniform in [-s, s-1] */
#define TU_IDX_NONNEG CASE_INDEX_NONNEG /* uniform in [0, s-1] */
#define TU_IDX_NEG CASE_INDEX_NEG       /* uniform in [-s, -1] */
#define TU_IDX_EDGES CASE_INDEX_EDGES   /* only -s, -1, 0, s-1 */
#define TU_IDX_WILD CASE_INDEX_WILD     /* anything, for WRAP and CLIP */

/* Fills count int32/int64 indices valid for an axis of size s (s >= 1
 * unless count == 0). */
void tu_fill_indices(tu_rng *rng, void *dst, clg_dtype idt, int64_t count,
                     int64_t s, tu_index_mode mode);
void tu_set_index(void *dst, clg_dtype idt, int64_t pos, int64_t value);

/* ------------------------------------------------------------ tensors */

#define TU_SENTINEL 0xA5u
#define TU_GUARD 48

/*
 * A tensor and the memory behind it. Host storage: a malloc'd block of
 * TU_GUARD + bytes + TU_GUARD with the tensor in the middle. Buffer storage:
 * a cl_mem of offset + bytes + tail bytes (tail = TU_GUARD, or 0 for an
 * exact fit) with the tensor at `offset`. Everything around the tensor holds
 * TU_SENTINEL.
 */
typedef struct tu_tensor {
  clg_tensor desc;
  size_t bytes;
  size_t total;  /* bytes of the allocation / buffer */
  size_t offset; /* where the tensor starts within it */
  unsigned char *alloc;
  cl_mem buf;
} tu_tensor;

/* Where an operand lives (tools/cases/case.h): host memory (NULL when
 * empty, or not) or a cl_mem at an offset (with bytes after it, or not). */
typedef case_storage tu_storage;

/* Creates the tensor; its bytes are `init` (NULL: all TU_SENTINEL). */
void tu_tensor_init(tu_tensor *t, clg_dtype dtype, int32_t rank,
                    const int64_t *shape, tu_storage st, const void *init);
void tu_tensor_free(tu_tensor *t);
/* The tensor's current bytes (blocking read for buffers). */
void tu_tensor_read(const tu_tensor *t, void *dst);
/* The whole allocation / buffer. dst holds t->total bytes. */
void tu_tensor_read_all(const tu_tensor *t, void *dst);
/* True if every byte outside the tensor still holds TU_SENTINEL. */
bool tu_tensor_guards_ok(const tu_tensor *t);
/* True if every byte of the allocation / buffer holds TU_SENTINEL. */
bool tu_tensor_all_sentinel(const tu_tensor *t);

cl_mem tu_buffer_create(size_t bytes, const void *init);
void tu_buffer_read(cl_mem buf, size_t offset, size_t n, void *dst);

/* Index of the first differing byte, or -1. */
ptrdiff_t tu_first_diff(const void *a, const void *b, size_t n);

/* ----------------------------------------------------------- messages */

bool tu_contains(const char *hay, const char *needle);
bool tu_contains_ci(const char *hay, const char *needle);
/* True if hay holds the decimal number v as a whole number (not a part of a
 * longer number; a positive v not preceded by '-'). */
bool tu_contains_int(const char *hay, int64_t v);

/* ------------------------------------------------------------- dtypes */

/* Fixed-size ONNX element types (all 15). */
extern const clg_dtype tu_all_dtypes[15];

#endif /* CLGATHER_TESTS_TESTUTIL_H */
