/* Helpers shared by the sampling test programs: burn CPU for a given wall time without calling
 * into libraries on every iteration (so samples land in the program's own functions). */
#ifndef SAMPLE_COMMON_H
#define SAMPLE_COMMON_H
#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin for `ms` milliseconds of wall time; the clock is read once every 20000 iterations. */
#define SPIN_BODY(ms)                                                    \
  do {                                                                   \
    volatile double x_ = 1.0;                                            \
    uint64_t end_ = now_ns() + (uint64_t)(ms) * 1000000u;                \
    while (now_ns() < end_)                                              \
      for (int i_ = 0; i_ < 20000; i_++) x_ = x_ * 1.0000001 + 1e-9;     \
  } while (0)

#endif
