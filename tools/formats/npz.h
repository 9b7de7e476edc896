/*
 * NumPy .npz files: a zip archive of .npy members (numpy.savez writes them
 * stored, numpy.savez_compressed deflated). Read: one member, named on the
 * command line as "FILE.npz:NAME" (the member "NAME.npy", or "NAME"), or
 * "FILE.npz" alone when the archive holds one member; stored members, and
 * deflated ones where clgather was built with zlib (CLGATHER_CLI_ZLIB);
 * ZIP64 records (numpy writes them for every member) are understood. Write:
 * an archive of one stored member, "NAME.npy" for "FILE.npz:NAME", else
 * named after FILE ("out.npz" holds "out.npy", np.load(...)["out"]); ZIP64
 * past 4 GiB.
 *
 * See https://numpy.org/doc/stable/reference/generated/numpy.savez.html and
 * PKWARE's APPNOTE.TXT (sections 4.3 and 4.5.3). No encryption, no
 * multi-disk archives. Like every reader here, sizes written in the file
 * are checked against the file's real size before anything is allocated.
 *
 * Include order in tools/formats/: cli_tensor.h <- npy.h <- npz.h <-
 * tensor_file.h. All functions return 0 on success, -1 with a message in
 * `err` on failure; nothing prints or exits.
 */
#ifndef CLGATHER_TOOLS_NPZ_H
#define CLGATHER_TOOLS_NPZ_H

#include <stddef.h>
#include <stdint.h>

#include "cli_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Length of the archive's path in an .npz operand ("a.npz:x" -> 5), or 0
 * when `spec` names no .npz (the extension is case-insensitive). */
size_t npz_path_length(const char *spec);

/** Read the member `spec` names (the file's CRC-32 checked) into a
 * malloc'ed tensor. */
int npz_read(const char *spec, cli_tensor *t, char *err, size_t errlen);

/** Write `t` as a one-member .npz, atomically (cli_write_file_atomic()'s
 * way: a temporary file put in place complete). */
int npz_write(const char *spec, const cli_tensor *t, char *err, size_t errlen);

/** CRC-32 (ISO-HDLC, zip's) of n bytes, continuing from crc (0 to start). */
uint32_t npz_crc32(uint32_t crc, const void *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_TOOLS_NPZ_H */
