/* What the Tests of test_gather share (test_gather.c, test_gather_calls.c;
 * one binary, in both its builds): the index types the cases cycle through
 * (gather_fx.c). */
#ifndef CLGATHER_TESTS_GATHER_FX_H
#define CLGATHER_TESTS_GATHER_FX_H

#include <clgather/clgather.h>

/* The two index element types, int32 then int64. */
extern const clg_dtype index_types[2];

#endif /* CLGATHER_TESTS_GATHER_FX_H */
