/* What the runtime adds to an exec (bench/exec-cost.ts). Linked with -lhyprof.
 *   fail K     K execs of a path that does not exist, in a loop: each writes the raw file first (the
 *              write before an exec) and fails; 20 timers with statistics make a small profile
 *   chain N    this program replaces itself by exec N times (each image times one timer)
 * With HYPROF_DISABLE=1 the same calls go through an inert runtime: the floor. */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "fail";
  long n = argc > 2 ? atol(argv[2]) : 1000;
  if (!strcmp(mode, "fail")) {
    for (int i = 0; i < 20; i++) {
      char name[32];
      snprintf(name, sizeof name, "timer %d", i);
      hyprof_start_named(name);
      hyprof_stop_named(name);
    }
    for (long i = 0; i < n; i++) execl("/nonexistent/hyprof-bench", "x", (char *)NULL);
    return 0;
  }
  hyprof_start_named("image");
  hyprof_stop_named("image");
  if (n == 0) return 0;
  char next[32];
  snprintf(next, sizeof next, "%ld", n - 1);
  execl("/proc/self/exe", argv[0], "chain", next, (char *)NULL);
  return 1;
}
