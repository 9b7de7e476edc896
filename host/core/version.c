/* Run-time version of the linked library. */
#include "core/core.h"

unsigned clg_version_number(void) { return CLGATHER_VERSION_NUMBER; }

#define CLG_STR2(x) #x
#define CLG_STR(x) CLG_STR2(x)
const char *clg_version_string(void) {
  return CLG_STR(CLGATHER_VERSION_MAJOR) "." CLG_STR(
      CLGATHER_VERSION_MINOR) "." CLG_STR(CLGATHER_VERSION_PATCH);
}
