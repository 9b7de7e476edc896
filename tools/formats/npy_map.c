/* .npy files through memory mappings: inputs mapped read-only (npy_map),
 * outputs written in place in a mapped output file (npy_out_*; the file
 * itself, unnamed until it is complete: cli_outfile.c). The
 * header checks are npy.c's (npy_open, npy_header_encode). */
#define _POSIX_C_SOURCE 200809L

#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

int npy_map(const char *path, cli_tensor *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  int fd;
  npy_info info;
  if (npy_open(path, &fd, &info, err, errlen) != 0)
    return -1;
  size_t es = clg_dtype_size(info.dtype);
  void *m = MAP_FAILED;
  /* An element-aligned data offset (every writer pads the header to 64 or
   * 16 bytes) in a page-aligned mapping gives an element-aligned pointer;
   * otherwise, and for empty data, the file is read. npy_open() checked
   * that offset + nbytes is the file's size, which fits in off_t. */
  if (info.nbytes > 0 && es > 0 && info.data_offset % es == 0 &&
      info.data_offset <= SIZE_MAX - info.nbytes)
    m = mmap(NULL, (size_t)info.data_offset + info.nbytes, PROT_READ,
             MAP_PRIVATE, fd, 0);
  if (m == MAP_FAILED) {
    /* Not mappable (or not worth it): the copy, whose own checks report a
     * file that cannot be read or an allocation that fails. */
    int rc = npy_read_data(fd, path, &info, t, err, errlen);
    close(fd);
    return rc;
  }
  close(fd); /* the mapping keeps the file */
  t->dtype = info.dtype;
  t->rank = info.rank;
  memcpy(t->shape, info.shape, sizeof t->shape);
  t->mapping = m;
  t->mapping_len = (size_t)info.data_offset + info.nbytes;
  t->data = (unsigned char *)m + info.data_offset;
  t->nbytes = info.nbytes;
  return 0;
}

static void npy_out_reset(npy_out *o) {
  o->file.fd = -1;
  o->file.named = 0;
  o->file.tmp = NULL;
  o->file.label = NULL;
  o->map = NULL;
  o->map_len = 0;
}

void npy_out_discard(npy_out *o) {
  if (o == NULL)
    return;
  if (o->map != NULL)
    munmap(o->map, o->map_len);
  cli_outfile_discard(&o->file);
  npy_out_reset(o);
}

int npy_out_open(const char *path, clg_dtype dtype, int32_t rank,
                 const int64_t *shape, npy_out *o, void **data, char *err,
                 size_t errlen) {
  npy_out_reset(o);
  *data = NULL;
  unsigned char header[NPY_WRITE_HEADER_MAX];
  size_t hlen, nbytes;
  if (npy_header_encode(dtype, rank, shape, 0, header, sizeof header, &hlen,
                        err, errlen) != 0 ||
      cli_shape_size(rank, shape, clg_dtype_size(dtype), NULL, &nbytes, err,
                     errlen) != 0)
    return -1;
  if (nbytes > SIZE_MAX - hlen || (uint64_t)(hlen + nbytes) > INT64_MAX)
    return cli_fail(err, errlen, "output of %zu bytes is too large", nbytes);
  size_t len = hlen + nbytes;
  if (cli_outfile_create(path, &o->file, 1, err, errlen) != 0) {
    npy_out_reset(o);
    return -1;
  }
  /* Reserve the blocks now: a full disk is an error here, not a SIGBUS
   * when the mapping is written. Where the file system cannot reserve,
   * ftruncate() makes a sparse file. */
  int e = posix_fallocate(o->file.fd, 0, (off_t)len);
  if (e == EINVAL || e == EOPNOTSUPP || e == ENOSYS)
    e = ftruncate(o->file.fd, (off_t)len) == 0 ? 0 : errno;
  if (e != 0) {
    cli_fail(err, errlen, "cannot make room for %zu bytes in %s: %s", len,
             cli_outfile_label(&o->file), strerror(e));
    npy_out_discard(o);
    return -1;
  }
  void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, o->file.fd, 0);
  if (m == MAP_FAILED) {
    cli_fail(err, errlen, "cannot map %s (%zu bytes): %s",
             cli_outfile_label(&o->file), len, strerror(errno));
    npy_out_discard(o);
    return -1;
  }
  o->map = m;
  o->map_len = len;
  memcpy(o->map, header, hlen);
  *data = o->map + hlen;
  return 0;
}

int npy_out_commit(npy_out *o, const char *path, char *err, size_t errlen) {
  /* The written pages are in the page cache, shared with every reader of
   * the file once it is linked or renamed: no msync is needed to make them
   * visible (nor fsync: the copying writer, cli_write_file_atomic, does
   * not sync either). */
  int rc = 0;
  if (munmap(o->map, o->map_len) != 0)
    rc = cli_fail(err, errlen, "cannot unmap %s: %s",
                  cli_outfile_label(&o->file), strerror(errno));
  o->map = NULL;
  if (rc == 0)
    rc = cli_outfile_commit(&o->file, path, err, errlen);
  npy_out_discard(o); /* removes the output file after a failure */
  return rc;
}
