/* The floor of any timer-based sampler: preloaded into a program, it arms the same per-thread POSIX
 * timer hyprof uses (CLOCK_MONOTONIC, SIGPROF to the main thread, HYPROF_PERIOD_US, default 1000 µs)
 * with a handler that does nothing. bench/matmult.ts runs it beside hyprof in the same run. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void nothing(int sig) { (void)sig; }

__attribute__((constructor)) static void arm(void) {
  const char *p = getenv("HYPROF_PERIOD_US");
  long period_us = p ? atol(p) : 1000;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = nothing;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) return;
  struct itimerspec its = {{period_us / 1000000, (period_us % 1000000) * 1000}, {period_us / 1000000, (period_us % 1000000) * 1000}};
  timer_settime(timer, 0, &its, NULL);
}
