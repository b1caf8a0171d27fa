/* A long phase in which two functions run one after the other, for the traced samples
 * (test/trace-samples.test.ts): first a() for A_MS milliseconds of the monotonic clock, then b() for
 * B_MS, with no probe in between, so only the samples say what ran inside the phase. Prints the
 * CLOCK_MONOTONIC time at which a() ended and b() began (the trace's clock has that scale,
 * native/core/clock.h) once the phase is over.
 *
 *   trace_samples [A_MS B_MS]     (default 200 300)
 */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

volatile double sink;

/* Busy until `end`: arithmetic in this function's own loop (samples land here), the clock read once
 * every few microseconds. */
__attribute__((noinline)) unsigned long long a(unsigned long long end) {
  double s = 0;
  unsigned long long now;
  while ((now = mono_ns()) < end)
    for (int i = 0; i < 2000; i++) s += i * 1e-9;
  sink = s;
  return now;
}

__attribute__((noinline)) unsigned long long b(unsigned long long end) {
  double s = 0;
  unsigned long long now;
  while ((now = mono_ns()) < end)
    for (int i = 0; i < 2000; i++) s += i * 2e-9;
  sink = s;
  return now;
}

int main(int argc, char **argv) {
  unsigned long long a_ms = argc > 2 ? strtoull(argv[1], NULL, 10) : 200, b_ms = argc > 2 ? strtoull(argv[2], NULL, 10) : 300;
  hyprof_phase_start("long phase");
  unsigned long long switched = a(mono_ns() + a_ms * 1000000ull);
  b(switched + b_ms * 1000000ull);
  hyprof_phase_stop("long phase");
  printf("switch %llu\n", switched);
  return 0;
}
