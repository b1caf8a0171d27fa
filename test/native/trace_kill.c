/* A run killed by SIGKILL part way, for the trace's reliability test: `flush_at` phases, then
 * hyprof_flush() (a raw file: the names of the events so far), then phases until `total`, each with a
 * timer inside, then SIGKILL to itself: no exit handler, no dump. Prints the phases done at the flush
 * and at the kill on stdout ("flushed N\nkilled M\n"), unbuffered.
 * Usage: trace_kill flush_at total */
#include <hyprof.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int flush_at = argc > 1 ? atoi(argv[1]) : 100, total = argc > 2 ? atoi(argv[2]) : 1000;
  setvbuf(stdout, NULL, _IONBF, 0);
  hyprof_event_t work = hyprof_event("work", NULL);
  volatile unsigned long sink = 0;
  for (int i = 0; i < total; i++) {
    char name[32];
    snprintf(name, sizeof name, "Iteration %d", i);
    hyprof_phase_start(name);
    hyprof_start(work);
    for (int k = 0; k < 1000; k++) sink += (unsigned long)k;
    hyprof_stop(work);
    hyprof_phase_stop(name);
    if (i + 1 == flush_at) {
      hyprof_flush();
      printf("flushed %d\n", flush_at);
    }
  }
  printf("killed %d\n", total);
  raise(SIGKILL);
  return 0;
}
