/* Misuse that must not crash: stopping a timer that is not innermost, one that never started, a stop
 * with nothing running, a parameter with nothing running; and a timer left running at exit. */
#include <hyprof.h>

int main(void) {
  hyprof_stop_named("never started");     /* nothing running at all */
  hyprof_param("size", 1);                /* no timer to specialise */
  hyprof_start_named("A");
  hyprof_start_named("B");
  hyprof_stop_named("A");                 /* B still running: B is stopped too */
  hyprof_start_named("C");
  hyprof_stop_named("D");                 /* D is not running: ignored */
  hyprof_stop_named("C");
  hyprof_start_named("left running");     /* closed at exit, marked in the profile */
  return 0;
}
