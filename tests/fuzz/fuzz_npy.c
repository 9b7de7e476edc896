/* Fuzz harness: the .npy reader (tools/formats/npy.c) and the extension
 * dispatch of tools/formats/tensor_file.c.
 *
 * The input is the whole file. Checked for every input:
 *  - npy_read() never crashes, leaks or reads out of bounds (sanitizers);
 *  - no single allocation is larger than the file could justify (sanitizer
 *    builds: 64 KiB of stdio/bookkeeping + twice the file size);
 *  - a failure leaves a non-empty message and a zeroed tensor;
 *  - a success gives a consistent tensor (known fixed-size dtype, rank in
 *    [0, CLG_MAX_RANK], nbytes = product(shape) * element size, nbytes equal
 *    to the data at the end of the file) that survives a round trip through
 *    npy_encode (versions 0-3) + npy_read and through the .pb writer/reader;
 *  - npy_dtype_of_descr() on a prefix of the input is consistent with
 *    npy_descr_of().
 */
#include "fuzz_common.h"

#include "npy.h"
#include "onnx_pb.h"
#include "fuzz_tensor.h"
#include "tensor_file.h"

/* An .npy tensor also has a NumPy descr and never more bytes than the file. */
static void check_consistent(const cli_tensor *t, size_t file_size) {
  fz_check_tensor(t, file_size);
  FZ_CHECK(npy_descr_of(t->dtype) != NULL, "dtype %d has no descr",
           (int)t->dtype);
}

static void round_trips(const cli_tensor *t) {
  char err[1024];
  for (int version = 0; version <= 3; ++version) {
    unsigned char *buf = NULL;
    size_t len = 0;
    FZ_CHECK(npy_encode(t, version, &buf, &len, err, sizeof err) == 0,
             "npy_encode v%d: %s", version, err);
    const char *p = fz_scratch(1, ".npy");
    fz_put(p, buf, len);
    free(buf);
    cli_tensor back;
    FZ_CHECK(npy_read(p, &back, err, sizeof err) == 0,
             "re-reading npy_encode v%d output: %s", version, err);
    check_same(t, &back, "npy round trip");
    cli_tensor_free(&back);
  }
  unsigned char *pb = NULL;
  size_t pb_len = 0;
  FZ_CHECK(onnx_tensor_encode(t, "x", &pb, &pb_len, err, sizeof err) == 0,
           "onnx_tensor_encode: %s", err);
  cli_tensor back;
  FZ_CHECK(onnx_tensor_parse(pb, pb_len, &back, err, sizeof err) == 0,
           "onnx_tensor_parse of our own encoding: %s", err);
  free(pb);
  check_same(t, &back, ".pb round trip");
  cli_tensor_free(&back);
}

static void fuzz_descr(const uint8_t *data, size_t size) {
  char descr[48];
  size_t n = size < sizeof descr - 1 ? size : sizeof descr - 1;
  memcpy(descr, data, n);
  descr[n] = '\0';
  clg_dtype d = CLG_DTYPE_UNDEFINED;
  char err[256] = "";
  if (npy_dtype_of_descr(descr, &d, err, sizeof err) == 0) {
    const char *canon = npy_descr_of(d);
    FZ_CHECK(canon != NULL && clg_dtype_size(d) > 0, "descr '%s' -> %d",
             descr, (int)d);
    clg_dtype again = CLG_DTYPE_UNDEFINED;
    FZ_CHECK(npy_dtype_of_descr(canon, &again, err, sizeof err) == 0 &&
                 again == d,
             "canonical descr '%s' does not map back to %d", canon, (int)d);
  } else {
    FZ_CHECK(err[0] != '\0', "descr '%s' rejected without a message", descr);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[1024];
  const char *path = fz_scratch(0, ".npy");
  fz_put(path, data, size);

  cli_tensor t;
  err[0] = '\0';
  fz_alloc_arm();
  int rc = npy_read(path, &t, err, sizeof err);
  size_t peak = fz_alloc_disarm();
  FZ_CHECK(peak <= 65536 + 2 * size,
           "npy_read of a %zu-byte file allocated %zu bytes at once", size,
           peak);

  /* The CLI's entry point dispatches .npy here too and must agree. */
  cli_tensor t2;
  char err2[1024] = "";
  int rc2 = cli_tensor_read(path, &t2, err2, sizeof err2);
  FZ_CHECK(rc == rc2, "npy_read %d but cli_tensor_read %d", rc, rc2);

  if (rc != 0) {
    check_failed(rc, &t, err, "npy_read");
    check_failed(rc2, &t2, err2, "cli_tensor_read");
  } else {
    check_consistent(&t, size);
    check_same(&t, &t2, "cli_tensor_read vs npy_read");
    /* The data is the last nbytes of the file, byte for byte. */
    FZ_CHECK(t.nbytes == 0 ||
                 memcmp(t.data, data + size - t.nbytes, t.nbytes) == 0,
             "data bytes differ from the file's tail");
    round_trips(&t);
  }
  cli_tensor_free(&t);
  cli_tensor_free(&t2);
  fuzz_descr(data, size);
  return 0;
}
