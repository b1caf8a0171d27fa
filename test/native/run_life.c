/* Process life under `hyprof run` (not linked: the runtime is preloaded).
 *   daemon MS   start a daemon (double fork, setsid) that works until SIGUSR1 (at most MS milliseconds),
 *               then return; the tests signal it once `hyprof run` has named it, so a loaded machine
 *               cannot let it end before the run looks for it
 *   wait        print "ready <pid>" and work for up to a minute (default SIGTERM disposition)
 *   handler     the same, but with the program's own SIGTERM handler that ends main cleanly
 *   _exit       work briefly, then end with _exit (no exit handlers run)
 *   quick_exit  work briefly, then end with quick_exit (only at_quick_exit handlers run)
 *   quick_exit_handler  the same, but quick_exit is called from a SIGUSR1 handler (it is
 *               async-signal-safe), on an alternate signal stack of SIGSTKSZ bytes */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "small_stack.h"

static volatile double sink;
static volatile sig_atomic_t stop;

static void spin(long n) {
  double s = 0;
  for (long i = 1; i <= n; i++) s += 1.0 / (double)i;
  sink = s;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void work_for(double ms) {
  double end = now_ms() + ms;
  while (!stop && now_ms() < end) {
    spin(100000);
    usleep(1000);
  }
}

static void on_term(int sig) {
  (void)sig;
  stop = 1;
}

static void quick_exit_now(int sig) {
  (void)sig;
  quick_exit(0);
}

/* SIGUSR1 runs quick_exit_now on a small alternate stack, with an inaccessible page below it: what
 * the at_quick_exit handlers do must fit, or the program ends with SIGSEGV. */
static void quick_exit_from_handler(void) {
  raise_on_small_stack(quick_exit_now);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "wait";
  if (!strcmp(mode, "daemon")) {
    double ms = argc > 2 ? atof(argv[2]) : 3000;
    pid_t first = fork();
    if (first == 0) {
      setsid();
      if (fork() == 0) {
        signal(SIGUSR1, on_term);
        work_for(ms);
        exit(0);
      }
      _exit(0);
    }
    waitpid(first, NULL, 0);
    spin(1000000);
    return 0;
  }
  if (!strcmp(mode, "_exit") || !strcmp(mode, "quick_exit") || !strcmp(mode, "quick_exit_handler")) {
    spin(2000000);
    puts("ending");
    fflush(stdout);
    if (mode[0] == '_') _exit(0);
    if (!strcmp(mode, "quick_exit_handler")) quick_exit_from_handler();
    quick_exit(0);
  }
  if (!strcmp(mode, "handler")) signal(SIGTERM, on_term);
  printf("ready %d\n", (int)getpid());
  fflush(stdout);
  work_for(60000);
  return 0;
}
