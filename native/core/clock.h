/* Clocks. Every timestamp of the runtime (probes, the OpenMP tool, the addon, thread ends, the
 * sampler's wall-clock sample values) comes from hp_now_ns(): nanoseconds on the CLOCK_MONOTONIC
 * scale, so they compare with each other and with the monotonic clock.
 *
 * Where the time-stamp counter is invariant (same rate in every P- and C-state, clock.c says how
 * that is decided), hp_now_ns() reads it and converts: one rdtsc (about 11 ns here against 25 ns for
 * clock_gettime through the vDSO, PLATFORM-FACTS.md) and a multiply. The conversion is done on every
 * read rather than at dump time so that all the code comparing timestamps sees one unit, and
 * differences of converted values still add up exactly (exclusive times sum to the root's).
 * Elsewhere, or with HYPROF_CLOCK=monotonic, it is clock_gettime(CLOCK_MONOTONIC).
 *
 * Async-signal-safe either way (rdtsc and arithmetic; clock_gettime through the vDSO). */
#ifndef HP_CLOCK_H
#define HP_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* The conversion in force, written once by hp_clock_calibrate_end before `tsc` is published. */
typedef struct hp_clock {
  int tsc;        /* 1: hp_now_ns converts the TSC; 0: clock_gettime(CLOCK_MONOTONIC) */
  uint64_t tsc0;  /* the TSC at the calibration point */
  uint64_t ns0;   /* CLOCK_MONOTONIC at tsc0 */
  uint64_t mult;  /* nanoseconds per tick, times 2^32 */
} hp_clock;

extern hp_clock hp_clk;

static inline uint64_t hp_mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t hp_now_ns(void) {
#if defined(__x86_64__)
  if (__builtin_expect(__atomic_load_n(&hp_clk.tsc, __ATOMIC_ACQUIRE), 1)) {
    uint64_t d = __rdtsc() - hp_clk.tsc0;
    if (__builtin_expect((int64_t)d < 0, 0)) d = 0; /* a counter behind tsc0 (another CPU): no wrap */
    return hp_clk.ns0 + (uint64_t)(((unsigned __int128)d * hp_clk.mult) >> 32);
  }
#endif
  return hp_mono_ns();
}

static inline uint64_t hp_wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Initialisation (init.c): choose the clock (HYPROF_CLOCK) and take the first calibration point at
 * the start; take the second at the end, waiting until the two are at least 1 ms apart, then switch
 * hp_now_ns to the TSC and record the clock in force in the metadata. Until then, and whenever the
 * TSC is not used, hp_now_ns reads CLOCK_MONOTONIC. */
void hp_clock_calibrate_begin(void);
void hp_clock_calibrate_end(void);

#endif
