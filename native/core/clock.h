/* Clocks. Probes use CLOCK_MONOTONIC through the vDSO (about 25 ns here, PLATFORM-FACTS.md). */
#ifndef HP_CLOCK_H
#define HP_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t hp_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t hp_wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
