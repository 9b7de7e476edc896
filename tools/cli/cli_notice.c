/*
 * The notice of a slow call: a first use on a device builds the library's
 * kernels (seconds on a CPU device, more on some drivers) and says nothing
 * while it does. Around a library call, a thread waits a second
 * (CLGATHER_CLI_NOTICE_MS milliseconds where set) and, if the call is
 * still running, prints one line on stderr saying what is going on: under
 * -v, or with stderr a terminal and not -q.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct cli_notice {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t done_cv;
  bool done;
  long ms; /* the wait before the notice */
  char device[256];
};

static void *notice_main(void *arg) {
  cli_notice *n = arg;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += n->ms / 1000;
  until.tv_nsec += (n->ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec += 1;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&n->lock);
  int rc = 0;
  while (!n->done && rc == 0)
    rc = pthread_cond_timedwait(&n->done_cv, &n->lock, &until);
  if (!n->done)
    fprintf(stderr,
            "clgather: still running after %.1f s on %s: a first use "
            "builds the kernels it needs (later runs load them from the "
            "program cache)\n",
            (double)n->ms / 1000.0, n->device);
  pthread_mutex_unlock(&n->lock);
  return NULL;
}

cli_notice *cli_notice_start(clg_context *ctx) {
  int v = cli_verbosity();
  if (ctx == NULL || v == CLI_QUIET || (v != CLI_VERBOSE && !isatty(2)))
    return NULL;
  cli_notice *n = calloc(1, sizeof *n);
  if (n == NULL)
    return NULL; /* no notice: the call runs all the same */
  n->ms = 1000;
  const char *e = getenv("CLGATHER_CLI_NOTICE_MS");
  if (e != NULL && *e) {
    char *end = NULL;
    long ms = strtol(e, &end, 10);
    if (*end == '\0' && ms >= 0 && ms <= 3600000)
      n->ms = ms;
  }
  snprintf(n->device, sizeof n->device, "the device");
  char name[sizeof n->device] = "";
  if (clGetDeviceInfo(clg_context_device(ctx), CL_DEVICE_NAME, sizeof name - 1,
                      name, NULL) == CL_SUCCESS &&
      name[0])
    snprintf(n->device, sizeof n->device, "%s", name);
  pthread_mutex_init(&n->lock, NULL);
  pthread_cond_init(&n->done_cv, NULL);
  if (pthread_create(&n->thread, NULL, notice_main, n) != 0) {
    pthread_cond_destroy(&n->done_cv);
    pthread_mutex_destroy(&n->lock);
    free(n);
    return NULL;
  }
  return n;
}

void cli_notice_stop(cli_notice *n) {
  if (n == NULL)
    return;
  pthread_mutex_lock(&n->lock);
  n->done = true;
  pthread_cond_signal(&n->done_cv);
  pthread_mutex_unlock(&n->lock);
  pthread_join(n->thread, NULL);
  pthread_cond_destroy(&n->done_cv);
  pthread_mutex_destroy(&n->lock);
  free(n);
}
