/* Timer, phase, parameter and user-event names that would break a TAU profile as given: a path
 * separator inside a name, empty and blank names, names that differ only in blanks, a quote and a
 * line break. Each is entered twice, inside a phase, with a parameter, so paths and samples hold
 * them too. */
#include <hyprof.h>
#include "cpu_work.h"

static const char *const names[] = {"a => b", "", "   ", "x  y", "x y", "say \"hi\"\nnow", "c=>d"};

int main(void) {
  double total = 0;
  hyprof_user_event_t ue = hyprof_user_event("");
  hyprof_phase_start("phase => one");
  for (int round = 0; round < 2; round++) {
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
      hyprof_start_named(names[i]);
      hyprof_param("n => m", (long long)i);
      total += work(0.004);
      hyprof_stop_named(names[i]);
      hyprof_user_event_trigger(ue, i);
    }
  }
  hyprof_phase_stop("phase => one");
  return total < 0;
}
