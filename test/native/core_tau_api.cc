// A program instrumented for TAU, unchanged: TAU.h macros mapped onto hyprof.
#include <TAU.h>
#include <stdio.h>

static volatile double sink;

int compute(int n) {
  TAU_PROFILE("compute", "int (int)", TAU_USER);
  for (int i = 0; i < n; i++) sink += i;
  return n;
}

int main(int argc, char **argv) {
  TAU_PROFILE_INIT(argc, argv);
  TAU_PROFILE_SET_NODE(0);
  TAU_PROFILE_SET_CONTEXT(0);
  TAU_PROFILE_TIMER(t, "main", "int (int, char **)", TAU_DEFAULT);
  TAU_PROFILE_START(t);
  TAU_REGISTER_EVENT(ev, "bytes sent");
  for (int it = 0; it < 3; it++) {
    char name[32];
    snprintf(name, sizeof name, "Iteration %d", it);
    TAU_PHASE_CREATE_DYNAMIC(phase, name, "", TAU_USER);
    TAU_PHASE_START(phase);
    TAU_PROFILE_PARAM1L(100 * (it + 1), "n");
    compute(1000 * (it + 1));
    TAU_EVENT(ev, 8.0 * (it + 1));
    TAU_PHASE_STOP(phase);
  }
  TAU_START("by name");
  TAU_STOP("by name");
  TAU_PROFILE_STOP(t);
  return 0;
}
