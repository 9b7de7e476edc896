/* Planning: a gather as a byte copy [outer, s, inner] -> [outer, n, inner],
 * the widest copy unit the sizes and offsets allow, and the NDRange. */
#include "ops/gather_geometry.h"
#include "ops/op.h"

#include <string.h>

/* Slices shorter than this many units use the SMALL variant. */
#define CLG_ROWS_MIN_UNITS 32
/* Work-items per work-group (capped by the device). A fixed local size also
 * lets POCL reuse one compiled work-group function for every shape. */
#define CLG_LOCAL_SIZE 64
/* Most work-items spent on one slice by the ROWS variant. */
#define CLG_ROWS_MAX_ITEMS 256
/* Most work-groups along NDRange dim 1 (output slices) of the ROWS variant. */
#define CLG_ROWS_MAX_DIM1 65535

static size_t clg_round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }

void clg__gather_geom_fill(clg_gather_geom *geom, uint64_t outer,
                           uint64_t outer_pb, uint64_t s, uint64_t n,
                           uint64_t slice_bytes, size_t index_bytes,
                           size_t data_align, size_t out_align,
                           size_t max_local) {
  size_t unit = clg__copy_unit(slice_bytes, data_align, out_align);
  size_t local = CLG_LOCAL_SIZE;
  if (max_local && local > max_local)
    local = max_local;

  geom->outer = outer;
  geom->outer_pb = outer_pb;
  geom->s = s;
  geom->n = n;
  geom->inner = slice_bytes / unit;
  geom->rows = outer * n;
  geom->unit_bytes = unit;
  geom->index_bytes = index_bytes;
  geom->parts = 1;
  geom->part_units = geom->inner;
  geom->prefetch = 0;
  geom->stream = false;
  geom->per_item = 0;
  geom->stage_units = 0;
  geom->slice_bytes = slice_bytes;
  geom->data_align = data_align;
  geom->out_align = out_align;
  geom->max_local = local;
  geom->local[2] = geom->global[2] = 1;

  if (geom->inner >= CLG_ROWS_MIN_UNITS) {
    uint64_t items =
        geom->inner < CLG_ROWS_MAX_ITEMS ? geom->inner : CLG_ROWS_MAX_ITEMS;
    geom->variant = CLG_VARIANT_ROWS;
    geom->work_dim = 2;
    geom->local[0] = local;
    geom->local[1] = 1;
    geom->global[0] = clg_round_up((size_t)items, local);
    /* Some drivers limit NDRange dim 1 to 65535 work-groups (CUDA's grid
     * y limit shows through NVIDIA's OpenCL); the kernel strides over the
     * rest. */
    geom->global[1] =
        (size_t)(geom->rows < CLG_ROWS_MAX_DIM1 ? geom->rows
                                                : CLG_ROWS_MAX_DIM1);
  } else {
    uint64_t items =
        (geom->rows + CLG_SMALL_ROWS_PER_ITEM - 1) / CLG_SMALL_ROWS_PER_ITEM;
    geom->variant = CLG_VARIANT_SMALL;
    geom->work_dim = 1;
    geom->local[0] = local;
    geom->local[1] = 1;
    geom->global[0] = clg_round_up((size_t)items, local);
    geom->global[1] = 1;
  }
}

/* ---------------------------------------------- Gather's variants */

/* The widest unit ITEM and PLANE copy with: one 64-byte cache line (a
 * uint16), which a CPU moves with one vector load and store. */
#define CLG_WIDE_UNIT 64
/* ITEM splits a slice into parts only when the slices alone give fewer than
 * this many work-items per compute unit, and never into parts shorter than
 * CLG_PART_MIN_BYTES. */
#define CLG_ITEMS_PER_CU 64
#define CLG_PART_MIN_BYTES 1024
/* ITEM_PF: the prefetched slice is the one whose output lies about
 * CLG_PREFETCH_AHEAD bytes ahead (a few pages of reads in flight), at least
 * CLG_PREFETCH_MIN and at most CLG_PREFETCH_MAX work-items ahead: far
 * enough that a vectorized work-group loop does not reach it in the same
 * pass for short slices. */
#define CLG_PREFETCH_AHEAD 4096
#define CLG_PREFETCH_MIN 8
#define CLG_PREFETCH_MAX 256
/* BLOCK: blocks of output slices per compute unit, over all outer rows. */
#define CLG_BLOCKS_PER_CU 16
/* Slices of at most this many units have their length built into the
 * program (straight-line copies); longer ones share one program per unit
 * type, with the length an argument. */
#define CLG_INNER_CONSTANT_MAX 16
/* ITEM with whole work-groups (clg__gather_geom_whole): only where a
 * work-group gives the compiler at least this many SIMD lanes. */
#define CLG_WHOLE_MIN_LANES 8
#define CLG_WHOLE_GROUP_BYTES 4096
/* ... and for slices of at most this many bytes (a lane a scalar: wider
 * units across lanes were slower, 32-byte rows 0.58 -> 0.46 of the best
 * peer, Zen 3, POCL). */
#define CLG_WHOLE_MAX_SLICE 8
/* Drivers that map NDRange dims 1 and 2 onto a grid limited to 65535. */
#define CLG_GRID_DIM_MAX 65535

int clg__gather_candidates(const clg_gather_geom *geom,
                           cl_device_type device_type, uint64_t cache_bytes,
                           int *cands) {
  int k = 0;
  uint64_t batch = geom->outer_pb ? geom->outer / geom->outer_pb : 0;
  if (device_type & CL_DEVICE_TYPE_CPU) {
    /* Short slices of several outer rows, a good share of each plane
     * gathered: streaming the plane in first wins, so try it first. */
    bool plane = geom->outer >= 2 && geom->slice_bytes <= CLG_WIDE_UNIT;
    bool dense = plane && geom->n * 4 >= geom->s;
    if (dense)
      cands[k++] = CLG_VARIANT_PLANE;
    cands[k++] = CLG_VARIANT_ITEM;
    cands[k++] = CLG_VARIANT_ITEM_PF;
    /* Slices shorter than a cache line: a block of them per work-item in a
     * plain loop overlaps the random reads differently. */
    if (geom->slice_bytes < CLG_WIDE_UNIT)
      cands[k++] = CLG_VARIANT_BLOCK;
    /* An output that takes a good share of the cache (over a quarter):
     * stores that bypass it save reading each output line before writing
     * it, and leave the cache to the data (12 and 16 MiB outputs, 32 MiB
     * L3: 17% and 30% faster in interleaved rounds). The trial decides. */
    if (geom->rows * geom->slice_bytes * 4 > cache_bytes)
      cands[k++] = CLG_VARIANT_ITEM_NT;
    if (plane && !dense)
      cands[k++] = CLG_VARIANT_PLANE;
    return k;
  }
  cands[k++] = geom->variant; /* ROWS or SMALL */
  if (geom->outer_pb <= CLG_GRID_DIM_MAX && batch <= CLG_GRID_DIM_MAX)
    cands[k++] = CLG_VARIANT_ITEM;
  return k;
}

unsigned clg__gather_allowed(const clg_gather_geom *geom,
                             cl_device_type device_type) {
  unsigned all = 1u << CLG_VARIANT_ROWS | 1u << CLG_VARIANT_SMALL;
  uint64_t batch = geom->outer_pb ? geom->outer / geom->outer_pb : 0;
  if ((device_type & CL_DEVICE_TYPE_CPU) ||
      (geom->outer_pb <= CLG_GRID_DIM_MAX && batch <= CLG_GRID_DIM_MAX))
    all |= 1u << CLG_VARIANT_ITEM | 1u << CLG_VARIANT_ITEM_PF |
           1u << CLG_VARIANT_PLANE | 1u << CLG_VARIANT_ITEM_NT |
           1u << CLG_VARIANT_BLOCK;
  return all;
}

static size_t clg_pow2_at_least(uint64_t v, size_t cap) {
  size_t p = 1;
  while (p < v && p < cap)
    p *= 2;
  return p;
}

void clg__gather_geom_variant(clg_gather_geom *geom, int variant,
                              cl_uint compute_units) {
  if (variant == CLG_VARIANT_ROWS || variant == CLG_VARIANT_SMALL) {
    if ((int)geom->variant != variant) {
      /* Re-fit with the ROWS / SMALL rule forced. */
      clg_gather_geom p = *geom;
      clg__gather_geom_fill(&p, geom->outer, geom->outer_pb, geom->s, geom->n,
                            geom->slice_bytes, geom->index_bytes,
                            geom->data_align, geom->out_align, geom->max_local);
      if ((int)p.variant != variant) {
        size_t local = p.local[0];
        if (variant == CLG_VARIANT_ROWS) {
          uint64_t items = p.inner < 256 ? p.inner : 256;
          p.work_dim = 2;
          p.global[0] = (size_t)((items + local - 1) / local * local);
          p.global[1] =
              (size_t)(p.rows < CLG_GRID_DIM_MAX ? p.rows : CLG_GRID_DIM_MAX);
        } else {
          uint64_t items =
              (p.rows + CLG_SMALL_ROWS_PER_ITEM - 1) / CLG_SMALL_ROWS_PER_ITEM;
          p.work_dim = 1;
          p.global[0] = (size_t)((items + local - 1) / local * local);
          p.global[1] = 1;
        }
        p.local[1] = 1;
        p.variant = (clg_gather_variant)variant;
      }
      *geom = p;
    }
    return;
  }
  uint64_t batch = geom->outer_pb ? geom->outer / geom->outer_pb : 0;
  size_t unit = clg__copy_unit_max(geom->slice_bytes, geom->data_align,
                                   geom->out_align, CLG_WIDE_UNIT);
  geom->unit_bytes = unit;
  geom->inner = geom->slice_bytes / unit;
  geom->variant = (clg_gather_variant)variant;
  geom->parts = 1;
  geom->part_units = geom->inner;
  geom->work_dim = 3;
  if (variant == CLG_VARIANT_PLANE) {
    geom->prefetch = 1;
    geom->local[0] = geom->local[1] = geom->local[2] = 1;
    geom->global[0] = (size_t)geom->outer_pb;
    geom->global[1] = (size_t)batch;
    geom->global[2] = 1;
    return;
  }
  geom->prefetch = 0;
  if (variant == CLG_VARIANT_ITEM_PF || variant == CLG_VARIANT_BLOCK) {
    uint64_t ahead = CLG_PREFETCH_AHEAD / (geom->slice_bytes + 1);
    geom->prefetch = (unsigned)(ahead < CLG_PREFETCH_MIN   ? CLG_PREFETCH_MIN
                                : ahead > CLG_PREFETCH_MAX ? CLG_PREFETCH_MAX
                                                           : ahead);
  }
  geom->stream = variant == CLG_VARIANT_ITEM_NT;
  if (variant == CLG_VARIANT_BLOCK) {
    /* A few blocks per compute unit (load balance on a shared machine). */
    uint64_t blocks =
        (uint64_t)(compute_units ? compute_units : 1) * CLG_BLOCKS_PER_CU;
    uint64_t per_outer =
        (blocks + geom->outer - 1) / (geom->outer ? geom->outer : 1);
    geom->per_item = (geom->n + per_outer - 1) / (per_outer ? per_outer : 1);
    if (geom->per_item < 1)
      geom->per_item = 1;
    geom->local[0] = geom->local[1] = geom->local[2] = 1;
    geom->global[0] = (size_t)((geom->n + geom->per_item - 1) / geom->per_item);
    geom->global[1] = (size_t)geom->outer_pb;
    geom->global[2] = (size_t)batch;
    return;
  }
  uint64_t target =
      (uint64_t)(compute_units ? compute_units : 1) * CLG_ITEMS_PER_CU;
  if (geom->rows < target && geom->slice_bytes >= 2 * CLG_PART_MIN_BYTES) {
    uint64_t parts = (target + geom->rows - 1) / geom->rows;
    uint64_t most = geom->slice_bytes / CLG_PART_MIN_BYTES;
    if (parts > most)
      parts = most;
    geom->part_units = (geom->inner + parts - 1) / parts;
    geom->parts = (geom->inner + geom->part_units - 1) / geom->part_units;
  }
  uint64_t items = geom->n * geom->parts;
  size_t local = clg_pow2_at_least(items, CLG_LOCAL_SIZE);
  if (local > geom->max_local)
    local = geom->max_local;
  geom->local[0] = local;
  geom->local[1] = geom->local[2] = 1;
  geom->global[0] = clg_round_up((size_t)items, local);
  geom->global[1] = (size_t)geom->outer_pb;
  geom->global[2] = (size_t)batch;
}

void clg__gather_geom_stage(clg_gather_geom *geom, uint64_t local_bytes) {
  geom->stage_units = 0;
  if (geom->variant != CLG_VARIANT_PLANE || geom->inner == 0 ||
      geom->s > local_bytes / geom->slice_bytes)
    return;
  geom->stage_units = geom->s * geom->inner;
}

void clg__gather_geom_whole(const clg_gather_geom *geom, size_t max_group,
                            size_t local[2]) {
  local[0] = local[1] = 0;
  if (geom->parts != 1 || geom->n == 0 || clg__inner_constant(geom) == 0 ||
      geom->slice_bytes > CLG_WHOLE_MAX_SLICE)
    return;
  size_t l0 = 1, l1 = 1;
  while (l0 * 2 <= CLG_LOCAL_SIZE && l0 * 2 <= max_group &&
         geom->n % (l0 * 2) == 0)
    l0 *= 2;
  if (l0 < CLG_WHOLE_MIN_LANES)
    return;
  /* Short rows: work-groups over several outer rows, up to
   * CLG_WHOLE_GROUP_BYTES of output (a work-group's fixed cost is paid
   * per group, not per row). */
  while (l0 * l1 * 2 <= max_group &&
         l0 * l1 * 2 * geom->slice_bytes <= CLG_WHOLE_GROUP_BYTES &&
         geom->outer_pb % (l1 * 2) == 0)
    l1 *= 2;
  local[0] = l0;
  local[1] = l1;
}

uint64_t clg__inner_constant(const clg_gather_geom *geom) {
  return geom->parts == 1 && geom->inner <= CLG_INNER_CONSTANT_MAX ? geom->inner
                                                                   : 0;
}
