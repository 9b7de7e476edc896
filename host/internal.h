/* Every internal header of host/, for the tests that look inside the
 * library. The library's own files include the module headers they use
 * (see host/README.md for the modules and their order). Not installed. */
#ifndef CLGATHER_HOST_INTERNAL_H
#define CLGATHER_HOST_INTERNAL_H

#include "core/core.h"
#include "device/context.h"
#include "device/programs.h"
#include "device/cache.h"
#include "device/quirks.h"
#include "device/enqueue.h"
#include "device/tune.h"
#include "check/check.h"
#include "ops/op.h"
#include "ops/gather_geometry.h"
#include "run/run.h"

#endif /* CLGATHER_HOST_INTERNAL_H */
