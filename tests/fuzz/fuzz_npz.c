/* Fuzz harness: the .npz reader (tools/formats/npz.c: the zip's central
 * directory, ZIP64 records, stored and deflated members, CRC-32) and the
 * extension dispatch of tools/formats/tensor_file.c.
 *
 * The input is the whole archive. Checked for every input, reading it as
 * "FILE" (its one member) and as "FILE:a" (the member a.npy or a):
 *  - npz_read() never crashes, leaks or reads out of bounds (sanitizers);
 *  - no single allocation is larger than the archive could justify
 *    (sanitizer builds: 64 KiB + 1033 times the file, deflate's largest
 *    expansion being 1032:1);
 *  - a failure leaves a non-empty message and a zeroed tensor;
 *  - a success gives a consistent tensor that cli_tensor_read() reads the
 *    same and that survives a round trip through npz_write() + npz_read().
 */
#include "fuzz_common.h"

#include "npz.h"
#include "fuzz_tensor.h"
#include "tensor_file.h"

#include <stdio.h>

static void read_one(const char *path, const char *member, size_t size) {
  char spec[512], err[1024] = "";
  if (member)
    snprintf(spec, sizeof spec, "%s:%s", path, member);
  else
    snprintf(spec, sizeof spec, "%s", path);
  cli_tensor t;
  fz_alloc_arm();
  int rc = npz_read(spec, &t, err, sizeof err);
  size_t peak = fz_alloc_disarm();
  FZ_CHECK(peak <= 65536 + 1033 * size,
           "npz_read of a %zu-byte archive allocated %zu bytes at once", size,
           peak);
  cli_tensor t2;
  char err2[1024] = "";
  int rc2 = cli_tensor_read(spec, &t2, err2, sizeof err2);
  FZ_CHECK(rc == rc2, "npz_read %d but cli_tensor_read %d", rc, rc2);
  if (rc != 0) {
    check_failed(rc, &t, err, "npz_read");
    check_failed(rc2, &t2, err2, "cli_tensor_read");
    return;
  }
  fz_check_tensor(&t, 1033 * size);
  check_same(&t, &t2, "cli_tensor_read vs npz_read");
  const char *back_path = fz_scratch(1, ".npz");
  FZ_CHECK(npz_write(back_path, &t, err, sizeof err) == 0, "npz_write: %s",
           err);
  cli_tensor back;
  FZ_CHECK(npz_read(back_path, &back, err, sizeof err) == 0,
           "re-reading npz_write's archive: %s", err);
  check_same(&t, &back, "npz round trip");
  cli_tensor_free(&back);
  cli_tensor_free(&t);
  cli_tensor_free(&t2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fz_scratch(0, ".npz");
  fz_put(path, data, size);
  read_one(path, NULL, size);
  read_one(path, "a", size);
  return 0;
}
