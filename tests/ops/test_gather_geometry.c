/* host/ops/gather_geometry.c: the byte view, the variant and the NDRange; with
 * the copy unit and its type name (ops/op_shared.c) and the device type
 * plans are made for (device/quirks.c). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "internal.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static clg_gather_geom plan_for(uint64_t outer, uint64_t s, uint64_t n,
                                uint64_t slice_bytes, size_t data_align,
                                size_t out_align) {
  clg_gather_geom p;
  clg__gather_geom_fill(&p, outer, outer, s, n, slice_bytes, 8, data_align,
                   out_align, 1024);
  return p;
}

Test(gather_geometry, widest_unit_dividing_slice_and_offsets) {
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
    clg_gather_geom p =
        plan_for(2, 5, 3, cases[i].slice, cases[i].da, cases[i].oa);
    cr_expect_eq(p.unit_bytes, cases[i].unit,
                 "slice %llu, offsets %zu/%zu: unit %zu, want %zu",
                 (unsigned long long)cases[i].slice, cases[i].da, cases[i].oa,
                 p.unit_bytes, cases[i].unit);
    cr_expect_eq(p.inner * p.unit_bytes, cases[i].slice);
  }
}

Test(gather_geometry, byte_view_and_rows) {
  clg_gather_geom p = plan_for(7, 11, 13, 4, 0, 0);
  cr_expect_eq(p.outer, 7);
  cr_expect_eq(p.s, 11);
  cr_expect_eq(p.n, 13);
  cr_expect_eq(p.rows, 7 * 13);
  cr_expect_eq(p.index_bytes, 8);
}

Test(gather_geometry, short_slices_use_small_variant_covering_all_rows) {
  clg_gather_geom p = plan_for(3, 10, 1001, 4, 0, 0);
  cr_assert_eq(p.variant, CLG_VARIANT_SMALL);
  cr_expect_eq(p.work_dim, 1);
  cr_expect_eq(p.global[0] % p.local[0], 0);
  cr_expect_geq(p.global[0] * CLG_SMALL_ROWS_PER_ITEM, p.rows);
}

Test(gather_geometry, long_slices_use_rows_variant) {
  clg_gather_geom p = plan_for(2, 10, 9, 4096 * 4, 0, 0);
  cr_assert_eq(p.variant, CLG_VARIANT_ROWS);
  cr_expect_eq(p.work_dim, 2);
  cr_expect_eq(p.global[1], p.rows);
  cr_expect_eq(p.local[1], 1);
  cr_expect_eq(p.global[0] % p.local[0], 0);
  cr_expect_leq(p.global[0], p.inner);
}

Test(gather_geometry, local_size_respects_device_limit) {
  clg_gather_geom p;
  clg__gather_geom_fill(&p, 1, 1, 4, 4, 4, 4, 0, 0, 16);
  cr_expect_leq(p.local[0], 16);
  cr_expect_eq(p.global[0] % p.local[0], 0);
}

Test(gather_geometry, unit_type_names) {
  cr_expect_str_eq(clg__unit_type(1), "uchar");
  cr_expect_str_eq(clg__unit_type(2), "ushort");
  cr_expect_str_eq(clg__unit_type(4), "uint");
  cr_expect_str_eq(clg__unit_type(8), "uint2");
  cr_expect_str_eq(clg__unit_type(16), "uint4");
  cr_expect_str_eq(clg__unit_type(32), "uint8");
  cr_expect_str_eq(clg__unit_type(64), "uint16");
}

/* Test builds make kernels for the device type CLGATHER_TEST_KERNEL_DEVICE
 * names, so the *_gpu_kernels ctests really run the GPU variants on a CPU
 * device. */
Test(gather_geometry, test_builds_can_plan_for_another_device_type) {
  clg_context fake;
  memset(&fake, 0, sizeof fake);
  fake.device_type = CL_DEVICE_TYPE_CPU;
  unsetenv("CLGATHER_TEST_KERNEL_DEVICE");
  cr_expect_eq(clg__kernel_device(&fake), CL_DEVICE_TYPE_CPU);
  setenv("CLGATHER_TEST_KERNEL_DEVICE", "gpu", 1);
  cr_expect_eq(clg__kernel_device(&fake), CL_DEVICE_TYPE_GPU);
  clg_gather_geom p;
  clg__gather_geom_fill(&p, 2, 2, 10, 9, 4096 * 4, 8, 0, 0, 1024);
  int c[CLG_VARIANT_COUNT];
  cr_expect_geq(clg__gather_candidates(&p, clg__kernel_device(&fake), 0, c), 1);
  cr_expect_eq(c[0], CLG_VARIANT_ROWS);
  setenv("CLGATHER_TEST_KERNEL_DEVICE", "cpu", 1);
  cr_expect_eq(clg__kernel_device(&fake), CL_DEVICE_TYPE_CPU);
  unsetenv("CLGATHER_TEST_KERNEL_DEVICE");
}

Test(gather_geometry, rows_variant_caps_ndrange_dim1) {
  clg_gather_geom p = plan_for(1, 100, 70000, 128 * 4, 0, 0);
  cr_assert_eq(p.variant, CLG_VARIANT_ROWS);
  cr_expect_eq(p.global[1], 65535, "dim 1 must stay within 65535");
  cr_expect_eq(p.rows, 70000);
}

/* --------------------------------------------- Gather's variants (ITEM, PLANE)
 */

static clg_gather_geom base_plan(uint64_t outer, uint64_t outer_pb, uint64_t s,
                                 uint64_t n, uint64_t slice, size_t da,
                                 size_t oa) {
  clg_gather_geom p;
  clg__gather_geom_fill(&p, outer, outer_pb, s, n, slice, 8, da, oa, 1024);
  return p;
}

/* Every (slice, part) is covered by exactly the work-items the kernel
 * keeps (j < n), for each variant. */
Test(gather_geometry, item_ndrange_covers_every_slice_part) {
  static const struct {
    uint64_t outer, outer_pb, s, n, slice;
  } cases[] = {
      {1, 1, 50000, 4096, 3072},   {1, 1, 1000000, 1000000, 64},
      {4096, 4096, 4096, 1024, 4}, {64, 64, 1024, 512, 512},
      {1, 1, 100, 10, 256},        {6, 2, 7, 3, 1 << 20},
      {1, 1, 3, 1, 65536},         {5, 5, 9, 0, 12},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    clg_gather_geom p = base_plan(cases[i].outer, cases[i].outer_pb, cases[i].s,
                                  cases[i].n, cases[i].slice, 0, 0);
    clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
    cr_expect_eq(p.variant, CLG_VARIANT_ITEM);
    cr_expect_eq(p.inner * p.unit_bytes, cases[i].slice);
    cr_expect_leq(p.unit_bytes, 64);
    cr_expect_geq(p.parts * p.part_units, p.inner);
    cr_expect_lt((p.parts - 1) * p.part_units, p.inner + (p.inner == 0));
    cr_expect_eq(p.global[0] % p.local[0], 0);
    cr_expect_geq(p.global[0], p.n * p.parts);
    cr_expect_eq(p.global[1], cases[i].outer_pb);
    cr_expect_eq(p.global[1] * p.global[2], cases[i].outer);
    cr_expect_eq(p.prefetch, 0);
    cr_expect(!p.stream);
    clg__gather_geom_variant(&p, CLG_VARIANT_ITEM_PF, 2);
    cr_expect_gt(p.prefetch, 0);
    clg__gather_geom_variant(&p, CLG_VARIANT_ITEM_NT, 2);
    cr_expect(p.stream);
    cr_expect_eq(p.prefetch, 0);
    cr_expect_geq(p.global[0], p.n * p.parts);
    clg__gather_geom_variant(&p, CLG_VARIANT_BLOCK, 2);
    cr_expect_geq(p.per_item, 1);
    cr_expect_geq(p.global[0] * p.per_item, p.n);
    cr_expect_lt((p.global[0] - (p.global[0] > 0)) * p.per_item,
                 p.n + (p.n == 0));
    cr_expect_eq(p.global[1] * p.global[2], cases[i].outer);
    cr_expect_gt(p.prefetch, 0);
    clg__gather_geom_variant(&p, CLG_VARIANT_PLANE, 2);
    cr_expect_eq(p.global[0] * p.global[1], cases[i].outer);
    cr_expect_eq(p.local[0] * p.local[1] * p.local[2], 1);
    /* staged exactly when the plane fits in local memory */
    uint64_t plane = cases[i].s * cases[i].slice;
    clg__gather_geom_stage(&p, plane);
    cr_expect_eq(p.stage_units * p.unit_bytes, cases[i].slice ? plane : 0);
    clg__gather_geom_stage(&p, plane - 1);
    cr_expect_eq(p.stage_units, 0);
  }
}

Test(gather_geometry, whole_work_groups_tile_short_slices_exactly) {
  size_t l[2];
  /* 4-byte slices, n = 32, many outer rows: 32 lanes, 4 KiB a group */
  clg_gather_geom p = base_plan(131072, 131072, 64, 32, 4, 0, 0);
  clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
  clg__gather_geom_whole(&p, 4096, l);
  cr_expect_eq(l[0], 32);
  cr_expect_eq(l[1], 32);
  cr_expect_eq(p.n % l[0], 0);
  cr_expect_eq(p.outer_pb % l[1], 0);
  /* the device's work-group limit holds */
  clg__gather_geom_whole(&p, 256, l);
  cr_expect_eq(l[0] * l[1], 256);
  /* n with a power-of-two factor under 8: none */
  p = base_plan(64, 64, 64, 36, 4, 0, 0);
  clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
  clg__gather_geom_whole(&p, 4096, l);
  cr_expect_eq(l[0], 0);
  /* n = 1e6 = 2^6 * 15625: 64 lanes, one outer row */
  p = base_plan(1, 1, 4000000, 1000000, 4, 0, 0);
  clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
  clg__gather_geom_whole(&p, 4096, l);
  cr_expect_eq(l[0], 64);
  cr_expect_eq(l[1], 1);
  /* slices over 8 bytes, or split into parts: none */
  p = base_plan(64, 64, 64, 32, 16, 0, 0);
  clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
  clg__gather_geom_whole(&p, 4096, l);
  cr_expect_eq(l[0], 0);
  p = base_plan(1, 1, 3, 1, 1 << 20, 0, 0);
  clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
  clg__gather_geom_whole(&p, 4096, l);
  cr_expect_eq(l[0], 0);
}

Test(gather_geometry, long_slices_of_few_rows_are_split_into_parts) {
  clg_gather_geom p = base_plan(1, 1, 3, 1, 1 << 20, 0, 0);
  clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
  cr_expect_gt(p.parts, 1);
  cr_expect_geq(p.part_units * p.unit_bytes, 1024);
  /* many rows: one work-item per slice */
  p = base_plan(1, 1, 50000, 4096, 3072, 0, 0);
  clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
  cr_expect_eq(p.parts, 1);
}

Test(gather_geometry, wide_unit_follows_the_offsets) {
  clg_gather_geom p = base_plan(1, 1, 10, 4, 3072, 0, 0);
  clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
  cr_expect_eq(p.unit_bytes, 64);
  p = base_plan(1, 1, 10, 4, 3072, 32, 0);
  clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
  cr_expect_eq(p.unit_bytes, 32);
  p = base_plan(1, 1, 10, 4, 3072, 0, 4);
  clg__gather_geom_variant(&p, CLG_VARIANT_ITEM, 2);
  cr_expect_eq(p.unit_bytes, 4);
  /* ROWS keeps 16-byte units */
  clg__gather_geom_variant(&p, CLG_VARIANT_ROWS, 2);
  cr_expect_leq(p.unit_bytes, 16);
}

Test(gather_geometry, candidates_per_device_type) {
  int c[CLG_VARIANT_COUNT];
  /* last-axis, dense: PLANE first on CPUs */
  clg_gather_geom p = base_plan(4096, 4096, 4096, 1024, 4, 0, 0);
  int k = clg__gather_candidates(&p, CL_DEVICE_TYPE_CPU, 1 << 30, c);
  cr_expect_geq(k, 2);
  cr_expect_eq(c[0], CLG_VARIANT_PLANE);
  /* rows of one table: no PLANE */
  p = base_plan(1, 1, 1000000, 1000000, 64, 0, 0);
  k = clg__gather_candidates(&p, CL_DEVICE_TYPE_CPU, 1 << 30, c);
  for (int i = 0; i < k; ++i)
    cr_expect_neq(c[i], CLG_VARIANT_PLANE);
  cr_expect_eq(c[0], CLG_VARIANT_ITEM);
  /* streaming stores only for outputs over a quarter of the cache (64 MB
   * here) */
  for (int i = 0; i < k; ++i)
    cr_expect_neq(c[i], CLG_VARIANT_ITEM_NT);
  k = clg__gather_candidates(&p, CL_DEVICE_TYPE_CPU, 32 << 20, c);
  bool nt = false;
  for (int i = 0; i < k; ++i)
    nt = nt || c[i] == CLG_VARIANT_ITEM_NT;
  cr_expect(nt, "a 64 MB output on a 32 MB cache has an ITEM_NT candidate");
  k = clg__gather_candidates(&p, CL_DEVICE_TYPE_CPU, 128 << 20, c);
  nt = false;
  for (int i = 0; i < k; ++i)
    nt = nt || c[i] == CLG_VARIANT_ITEM_NT;
  cr_expect(nt, "a 64 MB output on a 128 MB cache has an ITEM_NT candidate");
  k = clg__gather_candidates(&p, CL_DEVICE_TYPE_CPU, 256 << 20, c);
  for (int i = 0; i < k; ++i)
    cr_expect_neq(c[i], CLG_VARIANT_ITEM_NT, "64 MB of 256: no ITEM_NT");
  /* GPUs: the ROWS / SMALL plan first, ITEM where the grid allows */
  p = base_plan(2, 2, 10, 9, 4096 * 4, 0, 0);
  k = clg__gather_candidates(&p, CL_DEVICE_TYPE_GPU, 1 << 30, c);
  cr_expect_eq(k, 2);
  cr_expect_eq(c[0], CLG_VARIANT_ROWS);
  cr_expect_eq(c[1], CLG_VARIANT_ITEM);
  p = base_plan(70000, 70000, 10, 9, 4, 0, 0);
  k = clg__gather_candidates(&p, CL_DEVICE_TYPE_GPU, 1 << 30, c);
  cr_expect_eq(k, 1);
  unsigned allowed = clg__gather_allowed(&p, CL_DEVICE_TYPE_GPU);
  cr_expect_eq(allowed & (1u << CLG_VARIANT_ITEM), 0);
  cr_expect_neq(allowed & (1u << CLG_VARIANT_SMALL), 0);
}

Test(gather_geometry, variant_names_round_trip) {
  for (int v = 0; v < CLG_VARIANT_COUNT; ++v)
    cr_expect_eq(clg__variant_parse(clg__variant_name(v)), v);
  cr_expect_eq(clg__variant_parse("nope"), -1);
  cr_expect_eq(clg__variant_parse(NULL), -1);
}
