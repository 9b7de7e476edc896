/* host/run/strategy.c: the table of the ways index values are checked and
 * the pure function that picks one, over the cases that decide it (the
 * operator, the indices' and the output's storage, the asynchronous mode,
 * values checked before, the mode, the index bytes against the device
 * validation threshold). test_ways forces every way on every operator
 * that takes it (a valid call and a refused one each, the way taken
 * checked). The suites run each way for real on many shapes: the operator
 * suites (host, read-back for host outputs, gated and read after for
 * cl_mem ones), their *_device_validation runs (device, gated), the
 * asynchronous checked mode in test_outcome and test_plans (gated), the
 * scatter suites and test_scatter_device (host schedule, device schedule). */
#define _POSIX_C_SOURCE 200809L /* unsetenv */
#include "internal.h"

#include <criterion/criterion.h>
#include <stdlib.h>

extern const clg_op_impl clg__op_gather;
extern const clg_op_impl clg__op_scatter_nd;

/* A dummy cl_mem: the function reads storage kinds, never the buffer. */
#define SOME_MEM ((cl_mem)(uintptr_t)0x1000)

static clg_checked checked(const clg_op_impl *impl, clg_index_mode mode,
                           size_t count) {
  clg_checked c;
  memset(&c, 0, sizeof c);
  c.impl = impl;
  c.norm.mode = mode;
  c.xf.elem_size = 8;
  c.xf.count = count;
  c.xf.bytes = count * 8;
  return c;
}

static clg_check_way way_of(const clg_op_impl *impl, clg_index_mode mode,
                            size_t count, bool device_indices,
                            bool device_output, bool async, bool checked_before) {
  int64_t shape[1] = {(int64_t)count};
  static int64_t host_values[1];
  clg_tensor x = device_indices
                     ? clg_tensor_buffer(CLG_DTYPE_INT64, 1, shape, SOME_MEM, 0)
                     : clg_tensor_host(CLG_DTYPE_INT64, 1, shape, host_values);
  clg_tensor o = device_output
                     ? clg_tensor_buffer(CLG_DTYPE_FLOAT, 1, shape, SOME_MEM, 0)
                     : clg_tensor_host(CLG_DTYPE_FLOAT, 1, shape, host_values);
  clg_checked c = checked(impl, mode, count);
  return clg__check_way(NULL, &c, &x, &o, async, checked_before);
}

Test(strategy, every_way_has_a_row) {
  for (int w = 0; w < CLG_CHECK_WAYS; ++w) {
    const clg_check_row *r = clg__check_row((clg_check_way)w);
    cr_assert(r != NULL && r->name && r->what, "way %d has no row", w);
  }
  cr_expect(clg__check_row(CLG_CHECK_WAYS) == NULL);
  cr_expect(clg__check_row(CLG_CHECK_GATED)->gated);
  cr_expect(clg__check_row(CLG_CHECK_DEVICE_SCHEDULE)->gated);
  cr_expect(clg__check_row(CLG_CHECK_GATED_READ)->gated);
  cr_expect(!clg__check_row(CLG_CHECK_GATED_READ)->blocks);
  cr_expect(!clg__check_row(CLG_CHECK_DEVICE)->gated);
  cr_expect(clg__check_row(CLG_CHECK_DEVICE)->blocks);
  cr_expect(!clg__check_row(CLG_CHECK_HOST)->blocks);
}

/* Gather: the synchronous ways by storage and size (both in cl_mem: gated
 * and the verdict read after, at every size; a host output: read back or
 * the validation kernel by size), the gated way of the asynchronous mode
 * with both in cl_mem, none for values checked before or modes that read
 * no value. */
Test(strategy, gather) {
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  const clg_op_impl *g = &clg__op_gather;
  const size_t small = 4, large = 1 << 20; /* 32 B, 8 MiB of int64 */
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, small, false, true, false, false),
               CLG_CHECK_HOST);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, small, true, true, false, false),
               CLG_CHECK_GATED_READ);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, large, true, true, false, false),
               CLG_CHECK_GATED_READ);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, small, true, false, false, false),
               CLG_CHECK_READ_BACK);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, large, true, false, false, false),
               CLG_CHECK_DEVICE);
  /* forced as the suites force it: the read-back, the gated way */
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "never", 1);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, large, true, true, false, false),
               CLG_CHECK_READ_BACK);
  setenv("CLGATHER_TEST_DEVICE_VALIDATION", "always", 1);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, small, true, true, false, false),
               CLG_CHECK_GATED_READ);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, small, true, false, false, false),
               CLG_CHECK_DEVICE);
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, small, true, true, true, false),
               CLG_CHECK_GATED);
  /* asynchronous with a host output or host indices: checked now */
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, small, true, false, true, false),
               CLG_CHECK_READ_BACK);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, large, false, true, true, false),
               CLG_CHECK_HOST);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, large, true, true, false, true),
               CLG_CHECK_NONE);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, large, true, true, true, true),
               CLG_CHECK_NONE);
  cr_expect_eq(way_of(g, CLG_MODE_WRAP, large, true, true, false, false),
               CLG_CHECK_NONE);
  cr_expect_eq(way_of(g, CLG_MODE_CLIP, large, true, true, true, false),
               CLG_CHECK_NONE);
  cr_expect_eq(way_of(g, CLG_MODE_RAISE, 0, true, true, true, false),
               CLG_CHECK_NONE);
}

/* A scatter: its plan on the device with both in cl_mem, asynchronously or
 * past the threshold; on the host otherwise, also for values checked
 * before (the plan is still needed). */
Test(strategy, scatter) {
  unsetenv("CLGATHER_TEST_DEVICE_VALIDATION");
  const clg_op_impl *s = &clg__op_scatter_nd;
  const size_t small = 4, large = 1 << 20;
  cr_expect_eq(way_of(s, CLG_MODE_RAISE, large, true, true, false, false),
               CLG_CHECK_DEVICE_SCHEDULE);
  cr_expect_eq(way_of(s, CLG_MODE_RAISE, small, true, true, true, false),
               CLG_CHECK_DEVICE_SCHEDULE);
  cr_expect_eq(way_of(s, CLG_MODE_RAISE, small, true, true, false, false),
               CLG_CHECK_HOST_SCHEDULE);
  cr_expect_eq(way_of(s, CLG_MODE_RAISE, large, true, false, true, false),
               CLG_CHECK_HOST_SCHEDULE);
  cr_expect_eq(way_of(s, CLG_MODE_RAISE, large, false, true, true, false),
               CLG_CHECK_HOST_SCHEDULE);
  cr_expect_eq(way_of(s, CLG_MODE_RAISE, large, true, true, true, true),
               CLG_CHECK_HOST_SCHEDULE);
}
