/* Timers nested N deep (default 300) by recursion: beyond the runtime's 256 levels per thread (the
 * root is one) the starts are counted, not measured, and their stops match. */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>

static hyprof_event_t level;

static void down(int n) {
  if (!n) return;
  hyprof_start(level);
  volatile double x = 1;
  for (int i = 0; i < 1000; i++) x *= 1.0000001;
  down(n - 1);
  hyprof_stop(level);
}
int main(int argc, char **argv) {
  level = hyprof_event("level", NULL);
  down(argc > 1 ? atoi(argv[1]) : 300);
  puts("deep done");
  return 0;
}
