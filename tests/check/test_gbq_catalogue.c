/*
 * GatherBlockQuantized's bad-input catalogue (tools/cases/
 * gather_block_quantized_bad.c, which `clgather selftest` runs too): every
 * entry breaks one thing in a valid base call of
 * clg_gather_block_quantized() and must give its status and a message
 * naming what it says, the output byte for byte as it was (and the
 * sentinel bytes around it), the inputs unchanged. Each entry runs with
 * every operand in host memory and with every operand a cl_mem at an
 * offset, with float32 scales (on a device that keeps subnormal floats,
 * CL_FP_DENORM, or is claimed to: CLGATHER_TEST_CLAIM_DENORM) and float16
 * ones. The errors no table can make (NULL arguments, strided descriptors,
 * alignment, overlap) are tests/ops/test_gather_block_quantized.c's.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include "support/gbq_case.h"

/* The base call, unbroken, runs: every entry's failure is its own. */
Test(gbq_catalogue, base_call_runs) {
  static const gbq_bad none = {"the base",   GBQ_BAD_INDEX, .pos = 0,
                               .value = 1,   .pos2 = -1,    .want = CLG_SUCCESS,
                               .needles = ""};
  gbq_run_bad(&none, CLG_DTYPE_FLOAT16, false);
  gbq_run_bad(&none, CLG_DTYPE_FLOAT16, true);
}

static void run_all(clg_dtype sdt) {
  cr_assert_gt(gbq_bad_count, 0);
  for (size_t k = 0; k < gbq_bad_count; ++k) {
    gbq_run_bad(&gbq_bad_inputs[k], sdt, false);
    gbq_run_bad(&gbq_bad_inputs[k], sdt, true);
  }
}

Test(gbq_catalogue, every_entry_float16_scales) { run_all(CLG_DTYPE_FLOAT16); }

Test(gbq_catalogue, every_entry_float32_scales) {
  if (!tu_case_device()->single_denorm) {
    cr_log_info("the device flushes subnormal floats: float32 scales are "
                "refused before any entry's own error (float16 covers it)");
    return;
  }
  run_all(CLG_DTYPE_FLOAT);
}
