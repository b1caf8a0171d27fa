/* Known structure: main -> outer (3 calls) -> inner (2 per outer); two dynamic phases with a parameter
 * on a timer inside; a user event triggered 4 times. Counts are exact; times are conserved. */
#include <hyprof.h>
#include <stdio.h>

static volatile double sink;
static void spin(int n) {
  for (int i = 0; i < n; i++) sink += i * 0.5;
}

int main(void) {
  hyprof_event_t outer = hyprof_event("outer", NULL);
  hyprof_event_t inner = hyprof_event("inner", "MY_GROUP");
  hyprof_start_named("main");
  for (int i = 0; i < 3; i++) {
    hyprof_start(outer);
    spin(20000);
    for (int j = 0; j < 2; j++) {
      hyprof_start(inner);
      spin(10000);
      hyprof_stop(inner);
    }
    hyprof_stop(outer);
  }
  for (int it = 0; it < 2; it++) {
    char name[32];
    snprintf(name, sizeof name, "Iteration %d", it);
    hyprof_phase_start(name);
    hyprof_start_named("kernel");
    hyprof_param("size", 128 << it);
    spin(30000);
    hyprof_stop_named("kernel");
    hyprof_phase_stop(name);
  }
  hyprof_user_event_t ue = hyprof_user_event("message size");
  for (int k = 1; k <= 4; k++) hyprof_user_event_trigger(ue, 10.0 * k);
  hyprof_stop_named("main");
  return 0;
}
