/* Known callpaths for the unwinding limits:
 *   deep  — timer "deep" started in main, then 5000 recursive calls, spinning at the bottom;
 *   stop  — main -> outer (100 deep) -> starter, which starts timer "inner" and calls
 *           leaf3 -> leaf2 -> leaf1 (spins): a sample under "inner" must end at starter;
 *   sites — shared() called from site_one() and site_two() under the same timer. */
#include <hyprof.h>
#include <string.h>
#include "sample_common.h"

static volatile int sink;

__attribute__((noinline)) int recurse(int n, int ms) {
  if (n == 0) {
    SPIN_BODY(ms);
    return 0;
  }
  int r = recurse(n - 1, ms);
  sink += r;   /* keeps the call from becoming a tail call */
  return r + 1;
}

__attribute__((noinline)) void leaf1(int ms) { SPIN_BODY(ms); sink++; }
__attribute__((noinline)) void leaf2(int ms) { leaf1(ms); sink++; }
__attribute__((noinline)) void leaf3(int ms) { leaf2(ms); sink++; }

__attribute__((noinline)) void starter(int ms) {
  hyprof_event_t e = hyprof_event("inner", NULL);
  hyprof_start(e);
  leaf3(ms);
  hyprof_stop(e);
  sink++;
}

__attribute__((noinline)) int outer(int n, int ms) {
  if (n == 0) {
    starter(ms);
    return 0;
  }
  int r = outer(n - 1, ms);
  sink += r;
  return r + 1;
}

__attribute__((noinline)) void shared(int ms) { SPIN_BODY(ms); sink++; }
__attribute__((noinline)) void site_one(int ms) { shared(ms); sink++; }
__attribute__((noinline)) void site_two(int ms) { shared(ms); sink++; }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "deep";
  if (strcmp(mode, "deep") == 0) {
    hyprof_event_t e = hyprof_event("deep", NULL);
    hyprof_start(e);
    recurse(5000, 400);
    hyprof_stop(e);
  } else if (strcmp(mode, "stop") == 0) {
    outer(100, 400);
  } else {
    hyprof_event_t e = hyprof_event("sites", NULL);
    hyprof_start(e);
    for (int i = 0; i < 4; i++) {
      site_one(50);
      site_two(50);
    }
    hyprof_stop(e);
  }
  return 0;
}
