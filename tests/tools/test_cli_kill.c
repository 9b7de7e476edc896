/*
 * The CLI leaves nothing behind (issue 26, part 2): `clgather gather ... -o
 * OUT` writing a 262 MB .npy output is killed with SIGKILL at random
 * moments, repeatedly, on a tmpfs (/dev/shm) and on the build directory's
 * file system. After every kill OUT is either as it was before (absent, or
 * the old bytes) or complete (byte-identical to a reference run's output),
 * and OUT's directory holds nothing else.
 *
 * Half of the kills come at a uniformly random moment of a run; the other
 * half wait until the run has its output file open (seen in
 * /proc/PID/fd: an unnamed "DIR/#INODE (deleted)" file, or a named
 * temporary one) and then kill it at a random moment of the write, so
 * that every run of the test kills several writes midway. OUT is absent
 * before every other run and an old file before the rest (the replacing
 * path: link to a fresh name, rename).
 *
 * Where a file system has no O_TMPFILE (the CLI then falls back to a named
 * temporary file, which SIGKILL does leave), only OUT's contents are
 * checked there, with a warning.
 *
 * Also: the output's mode is 0666 & ~umask on both paths (unnamed and
 * named) and both file systems, and cli_outfile's own contract (unit).
 *
 * CLGATHER_CLI_PATH is the built binary; CLGATHER_TEST_BINARY_DIR a folder
 * on the build directory's file system. CLGATHER_KILL_SEED=N repeats a run.
 */
#define _GNU_SOURCE /* O_TMPFILE */

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_testutil.h"
#include "tensor_file.h"

#ifndef CLGATHER_CLI_PATH
#error "CLGATHER_CLI_PATH must name the clgather binary"
#endif
#ifndef CLGATHER_TEST_BINARY_DIR
#error "CLGATHER_TEST_BINARY_DIR must name a folder of the build tree"
#endif

/* Folders made by make_dir(), removed by the suite's .fini also after a
 * failed assertion (a failure must not leave hundreds of MB in /dev/shm). */
static char *made[8];


static void cleanup(void) {
  for (int i = 0; i < 8; ++i)
    if (made[i] != NULL) {
      ct_remove_dir(made[i]);
      free(made[i]);
      made[i] = NULL;
    }
  ct_cleanup();
}

TestSuite(cli_kill, .fini = cleanup, .timeout = 240);

/* DATA 4096 x 1024 float32 (16 MiB), INDICES 64000 int64: OUT is
 * 64000 x 1024 float32, 262 MB; a run takes 0.3 to 1 s on POCL, most of
 * it writing OUT. */
enum { ROWS = 4096, COLS = 1024, LOOKUPS = 64000, KILLS = 10 };

static const char OLD[] = "the previous OUT, not a tensor\n";

/* ------------------------------------------------------------ helpers */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s) {
  if (s <= 0)
    return;
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

static uint64_t rng_state;
static double rng_unit(void) { /* xorshift64*: [0, 1) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) /
         9007199254740992.0;
}

static void seed_rng(void) {
  const char *s = getenv("CLGATHER_KILL_SEED");
  rng_state =
      s ? strtoull(s, NULL, 10) : (uint64_t)time(NULL) ^ (uint64_t)getpid();
  if (rng_state == 0)
    rng_state = 1;
  cr_log_info("CLGATHER_KILL_SEED=%llu", (unsigned long long)rng_state);
}

/* A fresh folder under `parent`, or NULL when `parent` is not usable. */
static char *make_dir(const char *parent) {
  char *p = malloc(strlen(parent) + 32);
  cr_assert_not_null(p);
  sprintf(p, "%s/clgather_kill.XXXXXX", parent);
  if (mkdtemp(p) == NULL) {
    free(p);
    return NULL;
  }
  for (int i = 0; i < 8; ++i)
    if (made[i] == NULL) {
      made[i] = strdup(p);
      break;
    }
  return p;
}

static char *join(const char *dir, const char *name) {
  char *p = malloc(strlen(dir) + strlen(name) + 2);
  cr_assert_not_null(p);
  sprintf(p, "%s/%s", dir, name);
  return p;
}

/* The entries of `dir` other than `keep`, space-separated, into buf;
 * returns how many. */
static int others_in(const char *dir, const char *keep, char *buf, size_t cap) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot list %s", dir);
  int n = 0;
  size_t pos = 0;
  buf[0] = '\0';
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
        strcmp(e->d_name, keep) == 0)
      continue;
    ++n;
    int w = snprintf(buf + pos, cap - pos, "%s ", e->d_name);
    if (w > 0 && (size_t)w < cap - pos)
      pos += (size_t)w;
  }
  closedir(d);
  return n;
}

/* 1 if the files hold the same bytes (compared in 1 MiB blocks). */
static int same_file(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  int same = fa != NULL && fb != NULL;
  static unsigned char ba[1 << 20], bb[1 << 20];
  while (same) {
    size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
    if (na != nb || memcmp(ba, bb, na) != 0)
      same = 0;
    if (na == 0)
      break;
  }
  if (fa)
    fclose(fa);
  if (fb)
    fclose(fb);
  return same;
}

static int holds(const char *path, const void *bytes, size_t len) {
  size_t n = 0;
  unsigned char *got = ct_read_file(path, &n);
  int ok = got != NULL && n == len && memcmp(got, bytes, len) == 0;
  free(got);
  return ok;
}

/* Write DATA and INDICES into dir. */
static void write_inputs(const char *dir) {
  size_t nd = (size_t)ROWS * COLS, len;
  float *d = malloc(nd * sizeof *d);
  int64_t *ix = malloc(LOOKUPS * sizeof *ix);
  cr_assert(d && ix);
  for (size_t i = 0; i < nd; ++i)
    d[i] = (float)i;
  for (size_t i = 0; i < LOOKUPS; ++i)
    ix[i] = (int64_t)((i * 2654435761u) % ROWS);
  char dict[128];
  snprintf(dict, sizeof dict,
           "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }",
           ROWS, COLS);
  unsigned char *img = ct_make_npy(1, dict, d, nd * sizeof *d, &len);
  char *p = join(dir, "d.npy");
  ct_write_file(p, img, len);
  free(p);
  free(img);
  snprintf(dict, sizeof dict,
           "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }",
           LOOKUPS);
  img = ct_make_npy(1, dict, ix, LOOKUPS * sizeof *ix, &len);
  p = join(dir, "i.npy");
  ct_write_file(p, img, len);
  free(p);
  free(img);
  free(d);
  free(ix);
}

/* Start `clgather gather DATA INDICES -o out` (output to /dev/null). */
static pid_t start_cli(const char *in_dir, const char *out) {
  char *d = join(in_dir, "d.npy"), *i = join(in_dir, "i.npy");
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    execl(CLGATHER_CLI_PATH, CLGATHER_CLI_PATH, "gather", d, i, "-o", out,
          (char *)NULL);
    _exit(127);
  }
  free(d);
  free(i);
  return pid;
}

/* 1 once process `pid` has a descriptor open on a file in `dir` (its
 * output: "DIR/#INODE (deleted)" while unnamed, or a temporary name). */
static int has_file_in(pid_t pid, const char *dir) {
  char fds[64], link[384], target[4096];
  snprintf(fds, sizeof fds, "/proc/%d/fd", (int)pid);
  DIR *d = opendir(fds);
  if (d == NULL)
    return 0;
  size_t dl = strlen(dir);
  int found = 0;
  struct dirent *e;
  while (!found && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(link, sizeof link, "%s/%s", fds, e->d_name);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
      continue;
    target[n] = '\0';
    found = strncmp(target, dir, dl) == 0 && target[dl] == '/';
  }
  closedir(d);
  return found;
}

/* Wait (polling) until `pid` has its output open or has exited; the time
 * it took, or -1 if it exited first. */
static double wait_for_output(pid_t pid, const char *dir) {
  double t0 = now_s();
  for (;;) {
    if (has_file_in(pid, dir))
      return now_s() - t0;
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                "clgather failed (status 0x%x)", st);
      return -1;
    }
    sleep_s(0.0002);
  }
}

static int o_tmpfile_works(const char *dir) {
#if defined(O_TMPFILE)
  int fd = open(dir, O_TMPFILE | O_RDWR, 0600);
  if (fd < 0)
    return 0;
  close(fd);
  return 1;
#else
  (void)dir;
  return 0;
#endif
}

/* ------------------------------------------------------- the kill runs */

/* A full run, then KILLS killed runs, into a folder of `parent`. Inputs
 * and the reference output live in in_dir. */
static void kill_runs(const char *parent, const char *in_dir,
                      const char *what) {
  char *dir = make_dir(parent);
  if (dir == NULL) {
    cr_log_warn("%s: cannot make a folder in %s: skipped", what, parent);
    return;
  }
  int strict = o_tmpfile_works(dir);
  if (!strict)
    cr_log_warn("%s (%s): no O_TMPFILE here; the CLI uses a named "
                "temporary file, which SIGKILL leaves: only OUT is checked",
                what, dir);
  char *out = join(dir, "o.npy");
  char *ref = join(in_dir, "ref.npy");
  char listing[4096];

  /* A full run in this folder: OUT is the reference's bytes, nothing
   * else is left, and the run times the output's open and its end. */
  double t0 = now_s();
  pid_t pid = start_cli(in_dir, out);
  double t_open = wait_for_output(pid, dir);
  int st;
  if (t_open >= 0) {
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "%s: full run failed (status 0x%x)", what, st);
  }
  double t_run = now_s() - t0;
  cr_assert(same_file(out, ref), "%s: a full run's OUT is not the reference",
            what);
  cr_assert_eq(others_in(dir, "o.npy", listing, sizeof listing), 0,
               "%s: left after a full run: %s", what, listing);
  unlink(out);
  if (t_open < 0)
    t_open = t_run / 2;
  double t_write = t_run - t_open;
  cr_log_info("%s: a run takes %.2f s, its output is open after %.2f s", what,
              t_run, t_open);

  /* KILLS runs; then, while none of them was killed in the write (once
   * in a CI run all ten missed it, the machine loaded by a build beside
   * the test), up to KILLS more, each killed as soon as its output is
   * seen open. */
  int midway = 0, complete = 0, old_kept = 0, runs = 0;
  for (int k = 0; k < KILLS || (midway == 0 && k < 2 * KILLS); ++k) {
    ++runs;
    int pre_existing = k % 2;
    if (pre_existing)
      ct_write_file(out, OLD, sizeof OLD - 1);
    pid = start_cli(in_dir, out);
    int was_open = 0;
    if (k < KILLS && k % 4 < 2) { /* anywhere in the run */
      sleep_s(rng_unit() * t_run * 1.2);
      was_open = has_file_in(pid, dir);
    } else { /* somewhere in the write (past KILLS: at its start) */
      double w = wait_for_output(pid, dir);
      if (w >= 0) {
        if (k < KILLS)
          sleep_s(rng_unit() * t_write);
        was_open = has_file_in(pid, dir);
      }
    }
    kill(pid, SIGKILL);
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) == 0),
              "%s: run %d ended with status 0x%x", what, k, st);
    midway += was_open && WIFSIGNALED(st);

    int others = others_in(dir, "o.npy", listing, sizeof listing);
    if (strict)
      cr_assert_eq(others, 0, "%s: run %d (killed %s) left: %s", what, k,
                   was_open ? "while writing" : "at a random moment", listing);
    if (!ct_exists(out)) {
      cr_assert(!pre_existing, "%s: run %d removed the previous OUT", what, k);
    } else if (pre_existing && holds(out, OLD, sizeof OLD - 1)) {
      ++old_kept;
    } else {
      cr_assert(same_file(out, ref),
                "%s: run %d left an OUT that is neither the previous one "
                "nor complete",
                what, k);
      ++complete;
    }
    unlink(out);
    if (!strict && others > 0) { /* the fallback's leftovers */
      ct_remove_dir(dir);
      cr_assert_eq(mkdir(dir, 0700), 0);
    }
  }
  cr_log_info("%s: %d kills, %d while the output was being written; OUT "
              "complete after %d, previous OUT kept after %d",
              what, runs, midway, complete, old_kept);
  cr_assert_geq(midway, 1,
                "%s: no kill of %d landed while writing (a full run %.2f s, "
                "its output open after %.2f s)",
                what, runs, t_run, t_open);
  ct_remove_dir(dir);
  free(out);
  free(ref);
  free(dir);
}

Test(cli_kill, sigkill_leaves_out_as_it_was_or_complete) {
  seed_rng();
  char *in_dir = make_dir(CLGATHER_TEST_BINARY_DIR);
  cr_assert_not_null(in_dir);
  write_inputs(in_dir);
  /* The reference: a run left alone. */
  char *ref = join(in_dir, "ref.npy");
  pid_t pid = start_cli(in_dir, ref);
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "reference run failed (status 0x%x)", status);
  free(ref);
  struct stat st;
  if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode))
    kill_runs("/dev/shm", in_dir, "tmpfs /dev/shm");
  else
    cr_log_warn("no /dev/shm: the tmpfs part is skipped");
  kill_runs(CLGATHER_TEST_BINARY_DIR, in_dir, "the build directory");
  ct_remove_dir(in_dir);
  free(in_dir);
}

/* ------------------------------------------------ modes and the unit */

/* cli_outfile directly: the unnamed and the named way give the same mode,
 * replace an existing file, and leave nothing when discarded. */
static void outfile_case(const char *dir, int allow_unnamed, mode_t mask) {
  char *path = join(dir, "x.bin"), listing[4096], err[512];
  mode_t old = umask(mask);
  cli_outfile o;
  /* discarded: nothing */
  cr_assert_eq(cli_outfile_create(path, &o, allow_unnamed, err, sizeof err), 0,
               "%s", err);
  cr_assert_eq(write(o.fd, "abc", 3), 3);
  cli_outfile_discard(&o);
  cr_assert_eq(others_in(dir, "", listing, sizeof listing), 0, "%s", listing);
  /* created, then replaced */
  for (int round = 0; round < 2; ++round) {
    cr_assert_eq(cli_outfile_create(path, &o, allow_unnamed, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(o.named, allow_unnamed ? !o_tmpfile_works(dir) : 1);
    const char *text = round ? "second" : "first";
    cr_assert_eq(write(o.fd, text, strlen(text)), (ssize_t)strlen(text));
    cr_assert_eq(cli_outfile_commit(&o, path, err, sizeof err), 0, "%s", err);
    cr_assert(holds(path, text, strlen(text)));
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 07777, 0666 & ~mask, "mode %o, umask %o",
                 (unsigned)(st.st_mode & 07777), (unsigned)mask);
    cr_assert_eq(others_in(dir, "x.bin", listing, sizeof listing), 0, "%s",
                 listing);
  }
  /* a folder in OUT's place: refused, nothing left, the folder kept */
  unlink(path);
  cr_assert_eq(mkdir(path, 0700), 0);
  cr_assert_eq(cli_outfile_create(path, &o, allow_unnamed, err, sizeof err), 0,
               "%s", err);
  cr_assert_neq(cli_outfile_commit(&o, path, err, sizeof err), 0);
  cr_assert(strstr(err, "cannot rename") != NULL, "%s", err);
  cr_assert_eq(others_in(dir, "x.bin", listing, sizeof listing), 0, "%s",
               listing);
  cr_assert_eq(rmdir(path), 0);
  umask(old);
  free(path);
}

Test(cli_kill, outfile_unnamed_and_named) {
  const char *parents[2] = {"/dev/shm", CLGATHER_TEST_BINARY_DIR};
  for (int p = 0; p < 2; ++p) {
    char *dir = make_dir(parents[p]);
    if (dir == NULL)
      continue;
    for (int unnamed = 0; unnamed < 2; ++unnamed) {
      outfile_case(dir, unnamed, 022);
      outfile_case(dir, unnamed, 077);
      outfile_case(dir, unnamed, 002);
    }
    ct_remove_dir(dir);
    free(dir);
  }
}

/* The CLI's .npy OUT (mapped) and .pb OUT (encoded, written) get
 * 0666 & ~umask, as they always have. */
Test(cli_kill, cli_output_mode_follows_umask) {
  const int32_t d[6] = {1, 2, 3, 4, 5, 6};
  const int64_t ix[2] = {2, 0};
  size_t len;
  unsigned char *img = ct_make_npy(
      1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 2), }", d,
      sizeof d, &len);
  ct_write_file(ct_path("d.npy"), img, len);
  free(img);
  img = ct_make_npy(1,
                    "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                    ix, sizeof ix, &len);
  ct_write_file(ct_path("i.npy"), img, len);
  free(img);
  const mode_t masks[3] = {022, 077, 027};
  const char *outs[2] = {"o.npy", "o.pb"};
  for (int m = 0; m < 3; ++m)
    for (int f = 0; f < 2; ++f) {
      mode_t old = umask(masks[m]);
      char *argv[] = {(char *)CLGATHER_CLI_PATH,
                      (char *)"gather",
                      (char *)ct_path("d.npy"),
                      (char *)ct_path("i.npy"),
                      (char *)"-o",
                      (char *)ct_path(outs[f]),
                      NULL};
      char *err = NULL;
      int rc = ct_run(argv, NULL, &err);
      umask(old);
      cr_assert_eq(rc, 0, "%s", err);
      free(err);
      struct stat st;
      cr_assert_eq(stat(ct_path(outs[f]), &st), 0);
      cr_assert_eq(st.st_mode & 07777, 0666 & ~masks[m], "%s: mode %o", outs[f],
                   (unsigned)(st.st_mode & 07777));
      unlink(ct_path(outs[f]));
    }
  cr_assert_eq(ct_count_temp_files(ct_scratch_dir()), 0);
  ct_cleanup();
}
