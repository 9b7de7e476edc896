/* The prelude every operator's kernel file starts with: prepended at build
 * time (cmake/EmbedKernelsScript.cmake), as CLBlast prepends its common
 * header. What it defines from the host's -D build constants:
 *
 *   CLG_UNIT   the copy unit (uchar ... uint16)      -> unit_t
 *   CLG_INDEX  the index type, int or long           -> index_t
 *   CLG_GATED  the asynchronous checked mode's gate  -> CLG_GATE_ARG, CLG_GATE
 *   CLG_HINTS  compiler hints allowed on this device  -> CLG_PREFETCH_LINE
 *              (host/device/quirks.c decides, per device)
 *
 * and the helpers every file uses: the index modes' values and
 * CLG_PREFETCH_LINE. A file that needs CLG_UNIT or CLG_INDEX checks for it
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
