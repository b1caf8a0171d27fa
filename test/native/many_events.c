/* Many distinct events, for the size limits of resolve, report, view and export:
 *   many_events N phases   N dynamic phases "Iteration <i>", each with a timer "work" inside
 *   many_events N timers   N distinct timers "timer <i>" under main
 * Each event is entered once; the work inside is a few additions, so the run takes little time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hyprof.h>

static volatile double sink;

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  int phases = argc > 2 && strcmp(argv[2], "phases") == 0;
  char name[48];
  hyprof_start_named("main");
  for (long i = 0; i < n; i++) {
    snprintf(name, sizeof name, phases ? "Iteration %ld" : "timer %ld", i);
    if (phases) hyprof_phase_start(name); else hyprof_start_named(name);
    if (phases) hyprof_start_named("work");
    for (int k = 0; k < 10; k++) sink += k;
    if (phases) hyprof_stop_named("work");
    if (phases) hyprof_phase_stop(name); else hyprof_stop_named(name);
  }
  hyprof_stop_named("main");
  return 0;
}
