/* bench/instrument.ts: a loop of N calls of a tiny function, timed by a probe pair (mode "probe") or by
 * compiler instrumentation (mode "func", in the build with -finstrument-functions). The uninstrumented
 * build (-DHYPROF_NO_PROBES, no -finstrument-functions) runs the same calls. */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) double tiny(double x) { return x * 1.0000001 + 0.5; }

__attribute__((noinline, no_instrument_function)) static double tiny_probed(double x) {
  hyprof_start_named("tiny");
  x = x * 1.0000001 + 0.5;
  hyprof_stop_named("tiny");
  return x;
}

int main(int argc, char **argv) {
  int probe = argc > 1 && !strcmp(argv[1], "probe");
  long n = argc > 2 ? atol(argv[2]) : 20000000;
  double s = 0;
  if (probe)
    for (long i = 0; i < n; i++) s = tiny_probed(s);
  else
    for (long i = 0; i < n; i++) s = tiny(s);
  printf("%g\n", s);
  return 0;
}
