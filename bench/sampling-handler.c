/* Cost of a sample. Modes:
 *   base   — the workload alone;
 *   noop   — the workload with a per-thread POSIX timer (same period) whose handler does nothing:
 *            the floor any timer-based sampler pays on this machine;
 *   hyprof — the workload under hyprof sampling (configured by the environment). Built with
 *            -DHYPROF_BENCH_HANDLER, the runtime also times its handler from entry to exit.
 * The workload runs inside a timer started in main, 30 calls deep (or the fourth argument's number),
 * so unwinding to depth 10 and to the timer's frame (depth 0) do different amounts of work.
 * Prints: mode, CPU seconds of the process over the workload (user + system: less sensitive to
 * other load on the machine than wall time), its wall seconds, signals, median / p90 handler ns
 * (hyprof mode). */
#define _GNU_SOURCE
#include <hyprof.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

uint32_t hp_bench_handler_times(const uint64_t **v);

static volatile uint64_t noop_signals;
static volatile int sink;

static void noop(int sig, siginfo_t *si, void *uc) {
  (void)sig; (void)si; (void)uc;
  noop_signals++;
}

static uint64_t ns_of(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void spin(long iters) {
  volatile double x = 1.0;
  for (long i = 0; i < iters; i++) x = x * 1.0000001 + 1e-9;
}

__attribute__((noinline)) static int nest(int depth, long iters) {
  if (depth == 0) {
    spin(iters);
    return 0;
  }
  int r = nest(depth - 1, iters);
  sink += r;
  return r + 1;
}

static int cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "base";
  long iters = argc > 2 ? atol(argv[2]) : 200000000L;
  long period_us = argc > 3 ? atol(argv[3]) : 1000;
  int calls_deep = argc > 4 ? atoi(argv[4]) : 30;   /* frames between the timer and the work */
  if (strcmp(mode, "noop") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = noop;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGALRM;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    timer_t tm;
    timer_create(CLOCK_MONOTONIC, &sev, &tm);
    struct itimerspec its = {{period_us / 1000000, (period_us % 1000000) * 1000},
                             {period_us / 1000000, (period_us % 1000000) * 1000}};
    timer_settime(tm, 0, &its, NULL);
  }
  hyprof_event_t e = hyprof_event("bench", NULL);
  hyprof_start(e);
  uint64_t t0 = ns_of(CLOCK_PROCESS_CPUTIME_ID), w0 = ns_of(CLOCK_MONOTONIC);
  nest(calls_deep, iters);
  uint64_t t1 = ns_of(CLOCK_PROCESS_CPUTIME_ID), w1 = ns_of(CLOCK_MONOTONIC);
  hyprof_stop(e);
  double secs = (double)(t1 - t0) / 1e9, wall = (double)(w1 - w0) / 1e9;
  if (strcmp(mode, "hyprof") == 0) {
    const uint64_t *v;
    uint32_t n = hp_bench_handler_times(&v);
    uint64_t *c = malloc(sizeof *c * (n ? n : 1));
    memcpy(c, v, sizeof *c * n);
    qsort(c, n, sizeof *c, cmp);
    printf("%s %.4f %.4f %u %llu %llu\n", mode, secs, wall, n, n ? (unsigned long long)c[n / 2] : 0ull,
           n ? (unsigned long long)c[n * 9 / 10] : 0ull);
  } else {
    printf("%s %.4f %.4f %llu 0 0\n", mode, secs, wall, (unsigned long long)noop_signals);
  }
  return 0;
}
