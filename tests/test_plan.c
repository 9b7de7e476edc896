/* host/plan.c: the byte view, the copy unit, the variant and the NDRange. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "internal.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static clg_gather_plan plan_for(uint64_t outer, uint64_t s, uint64_t n,
                                uint64_t slice_bytes, size_t data_align,
                                size_t out_align) {
  clg_gather_plan p;
  clg__plan_gather(&p, outer, outer, s, n, slice_bytes, 8, data_align, out_align,
                   1024);
  return p;
}

Test(plan, widest_unit_dividing_slice_and_offsets) {
  /* slice bytes, data offset, output offset -> expected unit */
  static const struct {
    uint64_t slice;
    size_t da, oa, unit;
  } cases[] = {
      {3072, 0, 0, 16}, {64, 0, 0, 16},  {24, 0, 0, 8}, {12, 0, 0, 4},
      {6, 0, 0, 2},     {3, 0, 0, 1},    {1, 0, 0, 1},  {3072, 4, 0, 4},
      {3072, 0, 2, 2},  {3072, 8, 8, 8}, {16, 1, 0, 1}, {32, 48, 16, 16},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    clg_gather_plan p =
        plan_for(2, 5, 3, cases[i].slice, cases[i].da, cases[i].oa);
    cr_expect_eq(p.unit_bytes, cases[i].unit,
                 "slice %llu, offsets %zu/%zu: unit %zu, want %zu",
                 (unsigned long long)cases[i].slice, cases[i].da, cases[i].oa,
                 p.unit_bytes, cases[i].unit);
    cr_expect_eq(p.inner * p.unit_bytes, cases[i].slice);
  }
}

Test(plan, byte_view_and_rows) {
  clg_gather_plan p = plan_for(7, 11, 13, 4, 0, 0);
  cr_expect_eq(p.outer, 7);
  cr_expect_eq(p.s, 11);
  cr_expect_eq(p.n, 13);
  cr_expect_eq(p.rows, 7 * 13);
  cr_expect_eq(p.index_bytes, 8);
}

Test(plan, short_slices_use_small_variant_covering_all_rows) {
  clg_gather_plan p = plan_for(3, 10, 1001, 4, 0, 0);
  cr_assert_eq(p.variant, CLG_VARIANT_SMALL);
  cr_expect_eq(p.work_dim, 1);
  cr_expect_eq(p.global[0] % p.local[0], 0);
  cr_expect_geq(p.global[0] * CLG_SMALL_ROWS_PER_ITEM, p.rows);
}

Test(plan, long_slices_use_rows_variant) {
  clg_gather_plan p = plan_for(2, 10, 9, 4096 * 4, 0, 0);
  cr_assert_eq(p.variant, CLG_VARIANT_ROWS);
  cr_expect_eq(p.work_dim, 2);
  cr_expect_eq(p.global[1], p.rows);
  cr_expect_eq(p.local[1], 1);
  cr_expect_eq(p.global[0] % p.local[0], 0);
  cr_expect_leq(p.global[0], p.inner);
}

Test(plan, local_size_respects_device_limit) {
  clg_gather_plan p;
  clg__plan_gather(&p, 1, 1, 4, 4, 4, 4, 0, 0, 16);
  cr_expect_leq(p.local[0], 16);
  cr_expect_eq(p.global[0] % p.local[0], 0);
}

Test(plan, unit_type_names) {
  cr_expect_str_eq(clg__unit_type(1), "uchar");
  cr_expect_str_eq(clg__unit_type(2), "ushort");
  cr_expect_str_eq(clg__unit_type(4), "uint");
  cr_expect_str_eq(clg__unit_type(8), "uint2");
  cr_expect_str_eq(clg__unit_type(16), "uint4");
}

/* Every (row, unit) of the output is covered exactly once by the CPU plan's
 * work-items, whose count stays small. */
static void expect_cpu_cover(clg_gather_plan p) {
  cr_expect_eq(p.work_dim, 2);
  cr_expect_eq(p.local[0], 1);
  cr_expect_eq(p.local[1], 1);
  cr_expect_geq(p.rows_per_item, 1);
  cr_expect_geq(p.units_per_item, 1);
  cr_expect_leq(p.units_per_item, p.inner);
  /* rows: the groups tile [0, rows) with no empty group */
  cr_expect_geq(p.global[1] * p.rows_per_item, p.rows);
  cr_expect_lt((p.global[1] - 1) * p.rows_per_item, p.rows);
  /* units: the parts tile [0, inner) with no empty part */
  cr_expect_geq(p.global[0] * p.units_per_item, p.inner);
  cr_expect_lt((p.global[0] - 1) * p.units_per_item, p.inner);
  cr_expect_leq(p.global[0] * p.global[1], 64);
}

Test(plan, cpu_devices_use_chunk_plans) {
  /* embedding: 4096 slices of 3 KiB -> whole slices, many rows per item */
  clg_gather_plan p = plan_for(1, 50000, 4096, 3072, 0, 0);
  clg__plan_for_device(&p, CL_DEVICE_TYPE_CPU);
  cr_assert_eq(p.variant, CLG_VARIANT_CHUNK);
  cr_expect_eq(p.units_per_item, p.inner);
  cr_expect_gt(p.rows_per_item, 1);
  expect_cpu_cover(p);

  /* last-axis: one-unit slices -> CHUNK1 */
  p = plan_for(4096, 4096, 1024, 4, 0, 0);
  clg__plan_for_device(&p, CL_DEVICE_TYPE_CPU);
  cr_assert_eq(p.variant, CLG_VARIANT_CHUNK1);
  cr_expect_eq(p.inner, 1);
  expect_cpu_cover(p);

  /* two huge slices -> each split into parts of whole 64-byte lines */
  p = plan_for(1, 10, 2, 1 << 24, 0, 0);
  clg__plan_for_device(&p, CL_DEVICE_TYPE_CPU);
  cr_assert_eq(p.variant, CLG_VARIANT_CHUNK);
  cr_expect_eq(p.rows_per_item, 1);
  cr_expect_gt(p.global[0], 1);
  cr_expect_eq(p.units_per_item * p.unit_bytes % 64, 0);
  expect_cpu_cover(p);

  /* tiny: one work-item */
  p = plan_for(1, 100, 10, 1024, 0, 0);
  clg__plan_for_device(&p, CL_DEVICE_TYPE_CPU);
  expect_cpu_cover(p);
  cr_expect_eq(p.global[0] * p.global[1], 1);

  /* odd sizes and units: 3-unit slices keep the SMALL variant */
  p = plan_for(3, 7, 1001, 6, 2, 0);
  clg__plan_for_device(&p, CL_DEVICE_TYPE_CPU);
  cr_expect_eq(p.unit_bytes, 2);
  cr_expect_eq(p.variant, CLG_VARIANT_SMALL);
  /* a one-unit odd slice (2 bytes) -> CHUNK1 */
  p = plan_for(3, 7, 1001, 2, 2, 0);
  clg__plan_for_device(&p, CL_DEVICE_TYPE_CPU);
  cr_expect_eq(p.variant, CLG_VARIANT_CHUNK1);
  expect_cpu_cover(p);
}

Test(plan, gpu_devices_keep_coalesced_plans) {
  clg_gather_plan p = plan_for(1, 50000, 4096, 3072, 0, 0);
  clg__plan_for_device(&p, CL_DEVICE_TYPE_GPU);
  cr_expect_eq(p.variant, CLG_VARIANT_ROWS);
  cr_expect_eq(p.local[0], 64);
  p = plan_for(4096, 4096, 1024, 4, 0, 0);
  clg__plan_for_device(&p, CL_DEVICE_TYPE_ACCELERATOR);
  cr_expect_eq(p.variant, CLG_VARIANT_SMALL);
}

/* Test builds plan for the device type CLGATHER_TEST_PLAN_DEVICE names, so
 * the *_gpu_plans ctests really run the GPU variants on a CPU device. */
Test(plan, test_builds_can_plan_for_another_device_type) {
  clg_context fake;
  memset(&fake, 0, sizeof fake);
  fake.device_type = CL_DEVICE_TYPE_CPU;
  unsetenv("CLGATHER_TEST_PLAN_DEVICE");
  cr_expect_eq(clg__plan_device(&fake), CL_DEVICE_TYPE_CPU);
  setenv("CLGATHER_TEST_PLAN_DEVICE", "gpu", 1);
  cr_expect_eq(clg__plan_device(&fake), CL_DEVICE_TYPE_GPU);
  clg_gather_plan p;
  clg__plan_gather(&p, 2, 2, 10, 9, 4096 * 4, 8, 0, 0, 1024);
  clg__plan_for_device(&p, clg__plan_device(&fake));
  cr_expect_eq(p.variant, CLG_VARIANT_ROWS);
  setenv("CLGATHER_TEST_PLAN_DEVICE", "cpu", 1);
  cr_expect_eq(clg__plan_device(&fake), CL_DEVICE_TYPE_CPU);
  unsetenv("CLGATHER_TEST_PLAN_DEVICE");
}

Test(plan, rows_variant_caps_ndrange_dim1) {
  clg_gather_plan p = plan_for(1, 100, 70000, 128 * 4, 0, 0);
  cr_assert_eq(p.variant, CLG_VARIANT_ROWS);
  cr_expect_eq(p.global[1], 65535, "dim 1 must stay within 65535");
  cr_expect_eq(p.rows, 70000);
}
