/* Builds a large profile (argv[1] contexts), says "ready", then waits to be signalled: a second
 * SIGINT / SIGTERM arriving while the first one's file is being written must not lose it. */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 300000;
  hyprof_event_t e = hyprof_event("work", NULL);
  for (long i = 0; i < n; i++) {
    hyprof_start(e);
    hyprof_param("p", i);
    hyprof_stop(e);
  }
  printf("ready\n");
  fflush(stdout);
  for (;;) pause();
}
