/* Compiled with -std=c11 -pedantic-errors: the public header must stand
 * alone as plain C11 (no other include before it). */
#include <clgather/clgather.h>

int clg_header_c11_probe(void);
int clg_header_c11_probe(void) {
  clg_tensor t = {0};
  return (int)t.rank + CLGATHER_VERSION_NUMBER + CLG_MAX_RANK;
}
