/* ops/gather_geometry.c: Gather's geometry, kernel variants and NDRanges. Not
 * installed. */
#ifndef CLGATHER_HOST_OPS_GATHER_PLAN_H
#define CLGATHER_HOST_OPS_GATHER_PLAN_H

#include "device/tune.h"

/* ------------------------------------------------------- gather_geometry.c */

/* A gather seen as bytes: data [outer, s, inner], output [outer, n, inner],
 * with inner counted in units of unit_bytes. With batch_dims, outer runs
 * over batch x outer_pb and each batch has its own n indices. */
typedef struct clg_gather_geom {
  uint64_t outer;     /* product of data dims before the axis */
  uint64_t outer_pb;  /* the same within one batch (dims b..axis-1) */
  uint64_t s;         /* data.shape[axis] */
  uint64_t n;         /* indices per batch */
  uint64_t inner;     /* slice length in units */
  uint64_t rows;      /* outer * n: slices to copy */
  size_t unit_bytes;  /* 1, 2, 4, 8 or 16: copy width */
  size_t index_bytes; /* 4 or 8 */
  clg_gather_variant variant;
  size_t local[3];  /* work-group size */
  size_t global[3]; /* NDRange */
  cl_uint work_dim;
  /* ITEM, ITEM_PF, PLANE (clg__gather_geom_variant): */
  uint64_t parts;      /* work-items per slice */
  uint64_t part_units; /* units per part */
  unsigned prefetch;   /* the kernels' prefetch argument: distance (ITEM_PF,
                        * BLOCK), 1 (PLANE), 0 */
  bool stream;         /* their stream argument: non-temporal stores
                        * (ITEM_NT) */
  uint64_t per_item;   /* BLOCK: output slices per work-item */
  /* PLANE: units of local memory its plane is copied into
   * (clg__gather_geom_stage), 0: not staged. */
  uint64_t stage_units;
  /* What clg__gather_geom_fill was given, for re-planning into a variant. */
  uint64_t slice_bytes;
  size_t data_align, out_align, max_local;
} clg_gather_geom;

/* Slices copied per work-item by the SMALL variant (kernel -D value). */
#define CLG_SMALL_ROWS_PER_ITEM 8

/* Fill `geom` for a validated gather. outer = batch * outer_pb (outer_pb ==
 * outer without batch_dims); slice_bytes = inner dims * elem size;
 * data_align/out_align: the byte offsets (alignment) of data and output in
 * their buffers. max_local: the device's work-group size limit. */
void clg__gather_geom_fill(clg_gather_geom *geom, uint64_t outer,
                           uint64_t outer_pb, uint64_t s, uint64_t n,
                           uint64_t slice_bytes, size_t index_bytes,
                           size_t data_align, size_t out_align,
                           size_t max_local);

/* Gather's candidate variants for `geom` (filled by clg__gather_geom_fill) on a
 * device of `device_type`, best guess first, into cands (room for
 * CLG_VARIANT_COUNT); returns how many. CPUs: ITEM, ITEM_PF, ITEM_NT for
 * outputs larger than the device's cache (`cache_bytes`), and PLANE for
 * short slices of several outer rows; other devices: the ROWS / SMALL geometry,
 * and ITEM where its NDRange fits the 65535 limit some drivers have on dims
 * 1 and 2. */
int clg__gather_candidates(const clg_gather_geom *geom,
                           cl_device_type device_type, uint64_t cache_bytes,
                           int *cands);
/* The variants that run `geom` correctly on a device of `device_type` (a
 * bit per clg_gather_variant): all of Gather's, less those whose NDRange
 * would exceed the 65535 limit of dims 1 and 2 on a non-CPU device. */
unsigned clg__gather_allowed(const clg_gather_geom *geom,
                             cl_device_type device_type);

/* Re-fit `geom` (filled by clg__gather_geom_fill, batch = outer / outer_pb) as
 * Gather `variant` (any of ROWS, SMALL, ITEM, ITEM_PF, PLANE) on a device of
 * `compute_units`: unit (up to 64 bytes for ITEM and PLANE), parts and
 * NDRange. */
void clg__gather_geom_variant(clg_gather_geom *geom, int variant,
                              cl_uint compute_units);

/* PLANE on a device with `local_bytes` of local memory: stage each plane
 * (s slices) in local memory when it fits there (geom->stage_units), else
 * not (0: the kernel prefetches the plane instead). */
void clg__gather_geom_stage(clg_gather_geom *geom, uint64_t local_bytes);

/* ITEM (ITEM_PF, ITEM_NT) fitted by clg__gather_geom_variant, as
 * work-groups that tile the NDRange exactly, for kernels built with
 * CLG_WHOLE (no padding, no conditional store: SIMD lanes on a CPU):
 * local[0], the largest power of two dividing n (at most CLG_LOCAL_SIZE),
 * and local[1], outer rows per work-group (a power of two dividing
 * outer_pb, up to 4 KiB of output a work-group), together at most
 * max_group work-items; both 0 where local[0] would give under 8 lanes,
 * the slice is over 8 bytes, or its length is not a build constant. */
void clg__gather_geom_whole(const clg_gather_geom *geom, size_t max_group,
                            size_t local[2]);

/* The -DCLG_INNER value of the ITEM / PLANE / BLOCK programs: the slice's
 * units when the slice is short and in one part (built into the program),
 * else 0 (the kernels take it as an argument). */
uint64_t clg__inner_constant(const clg_gather_geom *geom);

#endif /* CLGATHER_HOST_OPS_GATHER_PLAN_H */
