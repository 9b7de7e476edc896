/* The prelude every kernel file starts with (the operators', the index
 * pass's, validate.cl and strided.cl): prepended at build time
 * (cmake/EmbedKernelsScript.cmake), as CLBlast prepends its common
 * header. What it defines from the host's -D build constants:
 *
 *   CLG_UNIT   the copy unit (uchar ... uint16)      -> unit_t
 *   CLG_INDEX  the index type, int or long           -> index_t
 *   CLG_GATED  the asynchronous checked mode's gate  -> CLG_GATE_ARG, CLG_GATE
 *   CLG_HINTS  compiler hints allowed on this device  -> CLG_PREFETCH_LINE
 *              (host/device/quirks.c decides, per device)
 *
 * and the helpers every file uses: the index modes' values,
 * CLG_PREFETCH_LINE and CLG_LANES16. A file that needs CLG_UNIT or CLG_INDEX checks for it
 * itself (the scatters take no index type). */

#define CLG_MODE_RAISE 0
#define CLG_MODE_WRAP 1
#define CLG_MODE_CLIP 2

#ifdef CLG_UNIT
typedef CLG_UNIT unit_t;
#endif
#ifdef CLG_INDEX
typedef CLG_INDEX index_t;
#endif

/* A hint to bring one cache line of global memory closer. OpenCL's own
 * prefetch() is a no-op on POCL; clang-based compilers get the builtin
 * where the host allows hints on the device (CLG_HINTS: a device whose
 * compiler or runtime refuses it gets programs built without). */
#if defined(CLG_HINTS) && defined(__clang__)
#define CLG_PREFETCH_LINE(p) __builtin_prefetch((const global void *)(p), 0, 3)
#else
#define CLG_PREFETCH_LINE(p) prefetch((const global uchar *)(p), 64)
#endif

/* The 16 lanes of a 16-vector kernel argument (shapes, strides, bounds)
 * into a private array `out`, lane by lane. Not vstore16: on CPUs without
 * AVX-512 a 1024-bit vector passed to the builtin makes clang warn (POCL
 * printed "AVX vector argument of type ulong16 without 'avx512f' enabled
 * changes the ABI" for every such program it built), and vstore16 into
 * private memory left the array uninitialized under Oclgrind 21.10
 * (wrong scatter targets there). Plain assignments are the same on every
 * compiler. */
#define CLG_LANES16(v, out)                                                    \
  do {                                                                         \
    (out)[0] = (v).s0, (out)[1] = (v).s1, (out)[2] = (v).s2;                   \
    (out)[3] = (v).s3, (out)[4] = (v).s4, (out)[5] = (v).s5;                   \
    (out)[6] = (v).s6, (out)[7] = (v).s7, (out)[8] = (v).s8;                   \
    (out)[9] = (v).s9, (out)[10] = (v).sa, (out)[11] = (v).sb;                 \
    (out)[12] = (v).sc, (out)[13] = (v).sd, (out)[14] = (v).se;                \
    (out)[15] = (v).sf;                                                        \
  } while (0)

/* An index value `v`, in its own type (int or long), counted from the end
 * of an axis of `d` elements where it is negative (ONNX): v + d, a long.
 * Its sign is tested on v's own type, and a widened index is compared
 * with run-time bounds only (unsigned: (ulong)k < d), never with a
 * constant: Mesa 22.3's Rusticl (llvmpipe) compares an int widened to long
 * with a constant as if it had been widened without its sign ((long)-2 < 0
 * is false there, (long)-2 > -3 true; tests/rusticl/sext_compare.c), which
 * took negative int32 indices for invalid and would have let EmbeddingBag's
 * check pass a negative one. Every kernel follows the same rule. */
#define CLG_FROM_END(v, d) ((long)(v) + ((v) < 0 ? (long)(d) : 0L))

/* Asynchronous checked mode (-DCLG_GATED): one more argument, the verdict
 * of the validation kernel (kernels/validate.cl), read first; when it is
 * set the kernel writes nothing and the output stays as it was. */
#ifdef CLG_GATED
#define CLG_GATE_ARG , global const uint *restrict verdict
#define CLG_GATE                                                               \
  if (verdict[0] != 0)                                                         \
    return;
#else
#define CLG_GATE_ARG
#define CLG_GATE
#endif

#line 1
