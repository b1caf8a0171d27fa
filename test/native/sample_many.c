/* Many distinct contexts (one region per iteration name), to fill a small sample table. */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>
#include "sample_common.h"

__attribute__((noinline)) void many_spin(int ms) { SPIN_BODY(ms); }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 300;
  char name[32];
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "region %d", i);
    hyprof_event_t e = hyprof_event(name, NULL);
    hyprof_start(e);
    many_spin(3);
    hyprof_stop(e);
  }
  return 0;
}
