/* Misuse of the calls TAU.h maps onto (hyprof_stop_current, hyprof_metadata, hyprof_event_totals,
 * the instrumentation switch) that must not crash and must say what was wrong. */
#include <TAU.h>
#include <stdio.h>

int main(void) {
  TAU_GLOBAL_TIMER_STOP();                     /* nothing running */
  TAU_METADATA("", "no name");                 /* an empty name */
  hyprof_metadata(NULL, "no name either");     /* said once only */
  long calls = -1, child_calls = -1;
  double incl = -1, excl = -1;
  hyprof_event_totals(NULL, &calls, &child_calls, &incl, &excl); /* no timer: zeros */
  printf("null totals %ld %ld %g %g\n", calls, child_calls, incl, excl);
  void *running;
  TAU_PROFILER_CREATE(running, "running", "", TAU_USER);
  TAU_PROFILER_START(running);
  TAU_PROFILER_GET_CALLS(running, &calls);     /* not stopped yet: 0 calls */
  printf("running calls %ld\n", calls);
  TAU_ENABLE_INSTRUMENTATION();                /* already on: nothing changes */
  TAU_DISABLE_INSTRUMENTATION();
  TAU_DISABLE_INSTRUMENTATION();
  TAU_STOP("never started");                   /* off, and nothing of it skipped: an ordinary misuse */
  TAU_ENABLE_INSTRUMENTATION();
  /* A start of the running timer itself while off: its stop must not end the outer one. */
  TAU_START("recursive");
  TAU_DISABLE_INSTRUMENTATION();
  TAU_START("recursive");
  TAU_STOP("recursive");
  TAU_ENABLE_INSTRUMENTATION();
  TAU_STOP("recursive");
  TAU_PROFILER_STOP(running);
  TAU_PROFILER_GET_CALLS(running, &calls);
  printf("stopped calls %ld\n", calls);
  return 0;
}
