/* The library's one clock: seconds of a monotonic clock, for the tuner's
 * trials (device/tune.c) and the measured choice between a polled and a
 * blocking read (device/enqueue.c). */
#define _POSIX_C_SOURCE 200809L
#include "core/core.h"

#include <time.h>

double clg__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
