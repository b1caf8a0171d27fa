/* TAU's own tracing against hyprof's (bench/tau-trace.ts): one source, instrumented with TAU's API, built
 * twice: against TAU (its TAU.h, -DPROFILING_ON, libTAU) and against hyprof (hyprof's TAU.h, which maps
 * the same macros onto its C API: docs/tau-api.md). The pair measured is TAU_PROFILE_START/STOP of one
 * timer made by TAU_PROFILE_TIMER, which both implement by handle, around a trivial call; the floors
 * are the same loop without the pair and with two rdtsc instead.
 *
 * Usage: tau-trace-cost pairs PAIRS ROUND   one line per case: <case> <CPU ns per pair> <wall ns per pair>,
 *                                           the cases in an order rotated by ROUND
 *        tau-trace-cost pair PAIRS          the timed loop alone (callgrind's counts, bytes on disk)
 * Built with -falign-functions=64 -falign-loops=64, as bench/trace-cost.c. */
#define _GNU_SOURCE
#include <TAU.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

static long pairs;
static volatile unsigned long sink;

__attribute__((noinline)) static void body(long i) { sink += (unsigned long)i; }

static void loop_empty(void) {
  for (long i = 0; i < pairs; i++) body(i);
}

static void loop_rdtsc(void) {
  for (long i = 0; i < pairs; i++) {
    uint64_t a = __rdtsc();
    body(i);
    sink += __rdtsc() - a;
  }
}

static void loop_pair(void) {
  TAU_PROFILE_TIMER(t, "bench pair", "", TAU_USER);
  for (long i = 0; i < pairs; i++) {
    TAU_PROFILE_START(t);
    body(i);
    TAU_PROFILE_STOP(t);
  }
}

static double ns(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
  TAU_PROFILE_INIT(argc, argv);
  TAU_PROFILE_SET_NODE(0);
  if (argc < 3) {
    fprintf(stderr, "usage: tau-trace-cost pairs PAIRS ROUND | pair PAIRS\n");
    return 2;
  }
  pairs = atol(argv[2]);
  if (!strcmp(argv[1], "pair")) {
    loop_pair();
    return 0;
  }
  static const struct {
    const char *name;
    void (*fn)(void);
  } cases[] = {{"empty_loop", loop_empty}, {"rdtsc_x2", loop_rdtsc}, {"pair", loop_pair}};
  int n = sizeof cases / sizeof *cases, round = argc > 3 ? atoi(argv[3]) : 0;
  for (int k = 0; k < n; k++) {
    int i = (k + round) % n;
    double c0 = ns(CLOCK_THREAD_CPUTIME_ID), w0 = ns(CLOCK_MONOTONIC);
    cases[i].fn();
    double c1 = ns(CLOCK_THREAD_CPUTIME_ID), w1 = ns(CLOCK_MONOTONIC);
    printf("%s %.2f %.2f\n", cases[i].name, (c1 - c0) / pairs, (w1 - w0) / pairs);
  }
  return 0;
}
