/* The probe pair of a folded timer (bench/fold.ts, under callgrind): N starts and stops of the timer
 * "iteration", which HYPROF_FOLD folds or not, each around a short loop.
 *   fold-probe N */
#include <hyprof.h>
#include <stdlib.h>

static volatile double sink;

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  hyprof_event_t e = hyprof_event("iteration", NULL);
  for (long i = 0; i < n; i++) {
    hyprof_start(e);
    sink += (double)i;
    hyprof_stop(e);
  }
  return 0;
}
