/* SIGBUS in the CLIs (cli_sigbus.h). Only async-signal-safe calls in the
 * handler: unlink, write,
 * pause, _exit, and a lock-free atomic_flag. */
#define _POSIX_C_SOURCE 200809L

#include "cli_sigbus.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static char sigbus_temp[4096];
static volatile sig_atomic_t sigbus_have_temp;
static const char *sigbus_message = "bus error (SIGBUS)\n";
static size_t sigbus_length = 19;
static int sigbus_code = 1;
static atomic_flag sigbus_entered = ATOMIC_FLAG_INIT;

static void on_sigbus(int sig) {
  (void)sig;
  /* The first thread to fault speaks for the process; any other waits
   * for its _exit (SIGBUS is blocked while a thread runs this handler, but
   * not in other threads: two faulting workers printed the message
   * twice). */
  if (atomic_flag_test_and_set(&sigbus_entered))
    for (;;)
      pause();
  if (sigbus_have_temp)
    (void)unlink(sigbus_temp);
  ssize_t w = write(2, sigbus_message, sigbus_length);
  (void)w;
  _exit(sigbus_code);
}

void cli_sigbus_install(const char *message, int code) {
  sigbus_message = message;
  sigbus_length = strlen(message);
  sigbus_code = code;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigbus;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGBUS, &sa, NULL);
}

void cli_sigbus_set_temp(const char *path) {
  sigbus_have_temp = 0;
  if (path != NULL && strlen(path) < sizeof sigbus_temp) {
    memcpy(sigbus_temp, path, strlen(path) + 1);
    sigbus_have_temp = 1;
  }
}
