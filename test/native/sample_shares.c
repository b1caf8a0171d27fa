/* Known answer: ~70% of the time in A inside region R1, ~30% in B inside R2. The work is measured
 * in this thread's CPU time, so the split holds however busy the machine is. */
#include <hyprof.h>
#include <time.h>
#include "sample_common.h"

static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin for `ms` milliseconds of this thread's CPU time. */
#define SPIN_CPU(ms)                                                     \
  do {                                                                   \
    volatile double x_ = 1.0;                                            \
    uint64_t end_ = cpu_ns() + (uint64_t)(ms) * 1000000u;                \
    while (cpu_ns() < end_)                                              \
      for (int i_ = 0; i_ < 20000; i_++) x_ = x_ * 1.0000001 + 1e-9;     \
  } while (0)

__attribute__((noinline)) void func_a(int ms) { SPIN_CPU(ms); }
__attribute__((noinline)) void func_b(int ms) { SPIN_CPU(ms); }

int main(void) {
  hyprof_event_t r1 = hyprof_event("R1", NULL), r2 = hyprof_event("R2", NULL);
  for (int i = 0; i < 2; i++) {
    hyprof_start(r1);
    func_a(350);
    hyprof_stop(r1);
    hyprof_start(r2);
    func_b(150);
    hyprof_stop(r2);
  }
  return 0;
}
