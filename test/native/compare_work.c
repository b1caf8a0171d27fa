/* A program run twice to be compared (hyprof diff, the viewer's compare mode). Each of three
 * "Iteration N" timers runs `steady_work` (the same work in every run) and `scaled_work` (SCALE
 * times as much: argv[1], default 1), so a second run with SCALE 2 is measurably slower in one
 * function only. Busy loops measured in the thread's CPU time, so the ratio holds on a loaded
 * machine. Two worker threads are named by the program: one with pthread_setname_np, one with
 * hyprof_set_thread_name. A user event records the bytes each iteration "moves". */
#define _GNU_SOURCE
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile double sink;
/* CPU seconds of each work call. The CPU-time timer delivers 100-250 samples a second, so the
 * doubled function's change must rest on enough of them to stand beyond 3 sampling errors when a
 * loaded machine blurs it (at 0.12 s it did not: the change came out as noise in 2 runs of 4 beside
 * three CPU hogs). */
#define WORK_S 0.25

/* Busy for `sec` seconds of CPU time, in the calling function's own loop (samples land in it). */
#define BUSY(sec)                                                      \
  do {                                                                 \
    double end_ = cpu_s() + (sec), s_ = 0;                             \
    while (cpu_s() < end_)                                             \
      for (int i_ = 0; i_ < 200000; i_++) s_ += i_ * 1e-9;             \
    sink = s_;                                                         \
  } while (0)

__attribute__((noinline)) void steady_work(double sec) {
  hyprof_start_named("steady_work");
  BUSY(sec);
  hyprof_stop_named("steady_work");
}

__attribute__((noinline)) void scaled_work(double sec) {
  hyprof_start_named("scaled_work");
  BUSY(sec);
  hyprof_stop_named("scaled_work");
}

static void *io_thread(void *arg) {
  pthread_setname_np(pthread_self(), "compare-io");
  hyprof_start_named("io_work");
  BUSY(0.05);
  hyprof_stop_named("io_work");
  return arg;
}

static void *calc_thread(void *arg) {
  hyprof_set_thread_name("compare-calc");
  hyprof_start_named("calc_work");
  BUSY(0.05);
  hyprof_stop_named("calc_work");
  return arg;
}

int main(int argc, char **argv) {
  double scale = argc > 1 ? atof(argv[1]) : 1.0;
  if (scale <= 0) {
    fprintf(stderr, "compare_work: the scale must be positive\n");
    return 2;
  }
  pthread_t io, calc;
  pthread_create(&io, NULL, io_thread, NULL);
  pthread_join(io, NULL);
  pthread_create(&calc, NULL, calc_thread, NULL);
  hyprof_user_event_t bytes = hyprof_user_event("bytes moved");
  for (int i = 1; i <= 3; i++) {
    char name[32];
    snprintf(name, sizeof name, "Iteration %d", i);
    hyprof_start_named(name);
    steady_work(WORK_S);
    scaled_work(WORK_S * scale);
    hyprof_user_event_trigger(bytes, 1024.0 * i);
    hyprof_stop_named(name);
  }
  pthread_join(calc, NULL);
  printf("done, scale %g\n", scale);
  return 0;
}
