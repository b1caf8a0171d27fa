/* Runs until killed: spins inside region "forever" so a SIGTERM arrives while sampling. */
#include <hyprof.h>
#include <stdio.h>
#include "sample_common.h"

__attribute__((noinline)) void endless(void) {
  for (;;) SPIN_BODY(100);
}

int main(void) {
  hyprof_event_t e = hyprof_event("forever", NULL);
  hyprof_start(e);
  puts("started");
  fflush(stdout);
  endless();
  return 0;
}
