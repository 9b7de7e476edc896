/*
 * The CLIs' SIGBUS handler (tools/formats/cli_sigbus.c): however many threads
 * fault at once (a truncated mapped input touched by each of a CPU
 * driver's worker threads), the message is written once, OUT's named
 * temporary file is removed and the process exits with the given status.
 * Each run forks a child whose threads all raise SIGBUS together; the
 * handler printed twice in such runs before it let only the first thread
 * speak.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_sigbus.h"
#include "cli_testutil.h"

#define THREADS 8
#define RUNS 40
#define CODE 7

static const char message[] = "test: bus error (SIGBUS), once\n";
static pthread_barrier_t start;

static void *fault(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  raise(SIGBUS); /* to this thread, as a fault on a mapping would be */
  return NULL;
}

/* The child: every thread faults at once; the handler must end it. */
static void child(const char *temp) {
  cli_sigbus_install(message, CODE);
  cli_sigbus_set_temp(temp);
  pthread_t t[THREADS];
  pthread_barrier_init(&start, NULL, THREADS + 1);
  for (int k = 0; k < THREADS; ++k)
    pthread_create(&t[k], NULL, fault, NULL);
  pthread_barrier_wait(&start);
  raise(SIGBUS);
  _exit(99); /* not reached while the handler works */
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += 1)
    ++n;
  return n;
}

Test(cli_sigbus, many_faulting_threads_print_once_and_remove_the_temp) {
  for (int run = 0; run < RUNS; ++run) {
    const char *temp = ct_path("out.npy.tmp");
    ct_write_file(temp, "x", 1);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
      dup2(fds[1], 2);
      close(fds[0]);
      child(temp);
    }
    close(fds[1]);
    char buf[4096];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof buf - 1 &&
           (r = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0)
      len += (size_t)r;
    buf[len] = '\0';
    close(fds[0]);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == CODE,
              "run %d: the child did not exit %d (status 0x%x)", run, CODE,
              status);
    cr_assert_eq(count(buf, "bus error (SIGBUS), once"), 1,
                 "run %d: the message was written %zu times: %s", run,
                 count(buf, "bus error (SIGBUS), once"), buf);
    cr_assert(!ct_exists(temp), "run %d: the temporary file was left", run);
  }
  ct_cleanup();
}
