/* Throttling: a loop of tiny timed calls, by probe (mode "probe") or by compiler instrumentation
 * (mode "inst": build with -finstrument-functions). Each call does a little work, so the time of the
 * calls that are no longer measured shows in the loop's own time. */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

__attribute__((noinline, no_instrument_function)) static void spin(void) {
  double x = sink;
  for (int i = 0; i < 40; i++) x = x * 1.0000001 + 0.5;
  sink = x;
}

__attribute__((noinline)) void tiny_probed(void) {
  hyprof_start_named("tiny");
  spin();
  hyprof_stop_named("tiny");
}

__attribute__((noinline)) void tiny_func(void) { spin(); }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "probe";
  long n = argc > 2 ? atol(argv[2]) : 150000;
  hyprof_start_named("loop");
  for (long i = 0; i < n; i++) {
    if (!strcmp(mode, "probe"))
      tiny_probed();
    else
      tiny_func();
  }
  hyprof_stop_named("loop");
  printf("%ld calls\n", n);
  return 0;
}
