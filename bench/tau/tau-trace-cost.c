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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pair-loops.h"

static void loop_pair(void) {
  TAU_PROFILE_TIMER(t, "bench pair", "", TAU_USER);
  for (long i = 0; i < pairs; i++) {
    TAU_PROFILE_START(t);
    body(i);
    TAU_PROFILE_STOP(t);
  }
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
  static const pair_case cases[] = {{"empty_loop", loop_empty}, {"rdtsc_x2", loop_rdtsc}, {"pair", loop_pair}};
  run_cases(cases, sizeof cases / sizeof *cases, argc > 3 ? atoi(argv[3]) : 0);
  return 0;
}
