/*
 * clg_dtype_size() and clg_dtype_name() for every ONNX element type.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "support/testutil.h"

static const struct {
  clg_dtype dt;
  int value;
  size_t size;
  const char *name;
} table[] = {
    {CLG_DTYPE_UNDEFINED, 0, 0, "undefined"},
    {CLG_DTYPE_FLOAT, 1, 4, "float"},
    {CLG_DTYPE_UINT8, 2, 1, "uint8"},
    {CLG_DTYPE_INT8, 3, 1, "int8"},
    {CLG_DTYPE_UINT16, 4, 2, "uint16"},
    {CLG_DTYPE_INT16, 5, 2, "int16"},
    {CLG_DTYPE_INT32, 6, 4, "int32"},
    {CLG_DTYPE_INT64, 7, 8, "int64"},
    {CLG_DTYPE_STRING, 8, 0, "string"},
    {CLG_DTYPE_BOOL, 9, 1, "bool"},
    {CLG_DTYPE_FLOAT16, 10, 2, "float16"},
    {CLG_DTYPE_DOUBLE, 11, 8, "double"},
    {CLG_DTYPE_UINT32, 12, 4, "uint32"},
    {CLG_DTYPE_UINT64, 13, 8, "uint64"},
    {CLG_DTYPE_COMPLEX64, 14, 8, "complex64"},
    {CLG_DTYPE_COMPLEX128, 15, 16, "complex128"},
    {CLG_DTYPE_BFLOAT16, 16, 2, "bfloat16"},
};

Test(dtype, onnx_numbering) {
  for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k)
    cr_expect_eq((int)table[k].dt, table[k].value, "%s", table[k].name);
}

Test(dtype, sizes) {
  for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k)
    cr_expect_eq(clg_dtype_size(table[k].dt), table[k].size, "%s: size %zu",
                 table[k].name, clg_dtype_size(table[k].dt));
  const int out_of_range[] = {17, 18, 99, -1, 1000};
  for (size_t k = 0; k < sizeof out_of_range / sizeof out_of_range[0]; ++k)
    cr_expect_eq(clg_dtype_size((clg_dtype)out_of_range[k]), (size_t)0,
                 "dtype %d", out_of_range[k]);
}

Test(dtype, names) {
  for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k) {
    const char *n = clg_dtype_name(table[k].dt);
    cr_assert(n != NULL, "%s: NULL name", table[k].name);
    cr_expect_str_eq(n, table[k].name);
  }
  const int out_of_range[] = {17, 99, -1, 1000};
  for (size_t k = 0; k < sizeof out_of_range / sizeof out_of_range[0]; ++k) {
    const char *n = clg_dtype_name((clg_dtype)out_of_range[k]);
    cr_assert(n != NULL);
    cr_expect_str_eq(n, "unknown", "dtype %d", out_of_range[k]);
  }
}

/* The 15 fixed-size types cover every element size the library handles. */
Test(dtype, fixed_size_types_cover_every_width) {
  int seen[17] = {0};
  for (size_t k = 0; k < 15; ++k) {
    size_t s = clg_dtype_size(tu_all_dtypes[k]);
    cr_assert(s == 1 || s == 2 || s == 4 || s == 8 || s == 16, "%s: %zu",
              clg_dtype_name(tu_all_dtypes[k]), s);
    seen[s]++;
  }
  cr_expect(seen[1] == 3 && seen[2] == 4 && seen[4] == 3 && seen[8] == 4 &&
            seen[16] == 1);
}
