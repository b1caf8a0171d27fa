/* Busy work measured in the thread's CPU time, so known answers (ratios of work) hold on a loaded
 * machine too, where wall-time spins would shift with every preemption. */
#ifndef HP_TEST_CPU_WORK_H
#define HP_TEST_CPU_WORK_H

#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Busy for `sec` seconds of the thread's CPU time, in a function of its own (samples land there). */
__attribute__((noinline)) static double work(double sec) {
  double end = now_s() + sec, s = 0;
  while (now_s() < end)
    for (int i = 0; i < 1000; i++) s += i * 1e-9;
  return s;
}

#endif
