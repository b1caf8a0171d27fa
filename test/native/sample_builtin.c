/* The runtime built into the program itself (as bench/sampling and the unwinder's tests build it):
 * a loop in the program's own code under one timer, sampled. Usage: sample_builtin [iterations] */
#include <hyprof.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void spin(long n) {
  for (long i = 0; i < n; i++) sink = sink * 1.0000001 + 1e-9;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000000L;
  hyprof_event_t e = hyprof_event("spin", NULL);
  hyprof_start(e);
  spin(n);
  hyprof_stop(e);
  return 0;
}
