/* Tracing's cost (bench/trace.ts): a start/stop pair by handle around a trivial call, next to the same
 * loop uninstrumented and to the clock floors, on one thread; and a program of many dynamic phases.
 *
 * Usage: trace-cost pairs PAIRS ROUND   one line per case: <case> <CPU ns per pair> <wall ns per pair>,
 *                                       the cases in an order rotated by ROUND
 *        trace-cost phases N            N phases "Iteration <i>", each with one timer inside
 *        trace-cost handle PAIRS        the by-handle loop alone (callgrind's instruction counts)
 * Built with -falign-functions=64 -falign-loops=64, as bench/probe-cost.c. */
#define _GNU_SOURCE
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair-loops.h"

static void loop_clock_gettime(void) {
  struct timespec a, b;
  for (long i = 0; i < pairs; i++) {
    clock_gettime(CLOCK_MONOTONIC, &a);
    body(i);
    clock_gettime(CLOCK_MONOTONIC, &b);
    sink += (unsigned long)(b.tv_nsec - a.tv_nsec);
  }
}

static void loop_handle(void) {
  hyprof_event_t e = hyprof_event("bench handle", NULL);
  for (long i = 0; i < pairs; i++) {
    hyprof_start(e);
    body(i);
    hyprof_stop(e);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  if (!strcmp(argv[1], "phases")) {
    long n = atol(argv[2]);
    hyprof_event_t work = hyprof_event("work", NULL);
    for (long i = 0; i < n; i++) {
      char name[32];
      snprintf(name, sizeof name, "Iteration %ld", i);
      hyprof_phase_start(name);
      hyprof_start(work);
      body(i);
      hyprof_stop(work);
      hyprof_phase_stop(name);
    }
    return 0;
  }
  pairs = atol(argv[2]);
  if (!strcmp(argv[1], "handle")) {
    loop_handle();
    return 0;
  }
  static const pair_case cases[] = {{"empty_loop", loop_empty}, {"rdtsc_x2", loop_rdtsc}, {"clock_gettime_x2", loop_clock_gettime}, {"by_handle", loop_handle}};
  run_cases(cases, sizeof cases / sizeof *cases, argc > 3 ? atoi(argv[3]) : 0);
  return 0;
}
