/* The floor of any timer-based sampler: preloaded into a program, it arms on the main thread and on
 * every thread created afterwards (pthread_create is interposed) the per-thread POSIX timer hyprof
 * uses (CLOCK_MONOTONIC, SIGPROF to the thread, HYPROF_PERIOD_US, default 1000 µs), with a handler
 * that does nothing. With NOOP_TIMER_THREADS=main, only the main thread: the floor of sampling the
 * thread that computes and not the threads a library creates to wait (bench/mpi-service.ts, whose
 * ranks compute on their main thread). bench/matmult.ts and bench/openmp.ts run it beside hyprof in
 * the same run. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void nothing(int sig) { (void)sig; }

static void arm_this_thread(void) {
  const char *p = getenv("HYPROF_PERIOD_US");
  long period_us = p ? atol(p) : 1000;
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

__attribute__((constructor)) static void arm(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = nothing;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  arm_this_thread();
}

typedef struct {
  void *(*fn)(void *);
  void *arg;
} start;

static void *trampoline(void *p) {
  start s = *(start *)p;
  free(p);
  arm_this_thread();
  return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
  static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  if (!real) real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
  const char *which = getenv("NOOP_TIMER_THREADS");
  if (which && strcmp(which, "main") == 0) return real(t, a, fn, arg);
  start *s = malloc(sizeof *s);
  if (!s) return real(t, a, fn, arg);
  s->fn = fn;
  s->arg = arg;
  return real(t, a, trampoline, s);
}
