/* Planning: a gather as a byte copy [outer, s, inner] -> [outer, n, inner],
 * the widest copy unit the sizes and offsets allow, and the NDRange. */
#include "internal.h"

const char *clg__unit_type(size_t unit_bytes) {
  switch (unit_bytes) {
  case 16: return "uint4";
  case 8: return "uint2";
  case 4: return "uint";
  case 2: return "ushort";
  default: return "uchar";
  }
}

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

size_t clg__copy_unit(uint64_t bytes, size_t align_a, size_t align_b) {
  size_t unit = 16;
  while (unit > 1 && (bytes % unit || align_a % unit || align_b % unit))
    unit /= 2;
  return unit;
}

void clg__plan_gather(clg_gather_plan *plan, uint64_t outer, uint64_t outer_pb,
                      uint64_t s, uint64_t n, uint64_t slice_bytes,
                      size_t index_bytes, size_t data_align, size_t out_align,
                      size_t max_local) {
  size_t unit = clg__copy_unit(slice_bytes, data_align, out_align);
  size_t local = CLG_LOCAL_SIZE;
  if (max_local && local > max_local)
    local = max_local;

  plan->outer = outer;
  plan->outer_pb = outer_pb;
  plan->s = s;
  plan->n = n;
  plan->inner = slice_bytes / unit;
  plan->rows = outer * n;
  plan->unit_bytes = unit;
  plan->index_bytes = index_bytes;
  plan->rows_per_item = 0;
  plan->units_per_item = 0;

  if (plan->inner >= CLG_ROWS_MIN_UNITS) {
    uint64_t items =
        plan->inner < CLG_ROWS_MAX_ITEMS ? plan->inner : CLG_ROWS_MAX_ITEMS;
    plan->variant = CLG_VARIANT_ROWS;
    plan->work_dim = 2;
    plan->local[0] = local;
    plan->local[1] = 1;
    plan->global[0] = clg_round_up((size_t)items, local);
    /* Some drivers limit NDRange dim 1 to 65535 work-groups (CUDA's grid
     * y limit shows through NVIDIA's OpenCL); the kernel strides over the
     * rest. */
    plan->global[1] =
        (size_t)(plan->rows < CLG_ROWS_MAX_DIM1 ? plan->rows
                                                : CLG_ROWS_MAX_DIM1);
  } else {
    uint64_t items =
        (plan->rows + CLG_SMALL_ROWS_PER_ITEM - 1) / CLG_SMALL_ROWS_PER_ITEM;
    plan->variant = CLG_VARIANT_SMALL;
    plan->work_dim = 1;
    plan->local[0] = local;
    plan->local[1] = 1;
    plan->global[0] = clg_round_up((size_t)items, local);
    plan->global[1] = 1;
  }
}

/* CPU plan: at most CLG_CPU_ITEMS work-items (a few per core, for load
 * balance on a shared machine), each copying at least CLG_CPU_MIN_BYTES. */
#define CLG_CPU_ITEMS 64
#define CLG_CPU_MIN_BYTES (32 * 1024)

static uint64_t clg_div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

void clg__plan_for_device(clg_gather_plan *plan, cl_device_type device_type) {
  /* Slices of 2..CLG_ROWS_MIN_UNITS-1 units keep the SMALL variant: measured
   * on POCL, its many work-items (8 slices each, 64 per work-group) overlap
   * the random reads better than a few long per-item loops (128-byte slices:
   * 0.55 vs 0.32 x copy-ref). */
  if (!(device_type & CL_DEVICE_TYPE_CPU) || plan->rows == 0 ||
      plan->inner == 0 ||
      (plan->variant == CLG_VARIANT_SMALL && plan->inner > 1))
    return;
  uint64_t bytes = plan->rows * plan->inner * plan->unit_bytes;
  uint64_t items = bytes / CLG_CPU_MIN_BYTES;
  if (items > CLG_CPU_ITEMS)
    items = CLG_CPU_ITEMS;
  if (items < 1)
    items = 1;
  uint64_t parts = 1, rpi = clg_div_up(plan->rows, items), upi = plan->inner;
  if (plan->rows < items) {
    /* Few long slices: split each into parts of whole 64-byte lines. */
    uint64_t line = 64 / plan->unit_bytes;
    rpi = 1;
    upi = clg_div_up(plan->inner, clg_div_up(items, plan->rows));
    upi = clg_div_up(upi, line) * line;
    parts = clg_div_up(plan->inner, upi);
  }
  plan->variant = plan->inner == 1 ? CLG_VARIANT_CHUNK1 : CLG_VARIANT_CHUNK;
  plan->rows_per_item = rpi;
  plan->units_per_item = upi;
  plan->work_dim = 2;
  plan->local[0] = plan->local[1] = 1;
  plan->global[0] = (size_t)parts;
  plan->global[1] = (size_t)clg_div_up(plan->rows, rpi);
}

cl_device_type clg__plan_device(const clg_context *ctx) {
#if defined(CLGATHER_TESTING)
  return clg__fi_plan_device(ctx->device_type);
#else
  return ctx->device_type;
#endif
}
