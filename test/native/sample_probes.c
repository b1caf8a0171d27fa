/* Tight loops of probe calls, so that many samples land inside the runtime: they must be dropped
 * and counted ("in_tool"), never attributed. */
#include <hyprof.h>
#include "sample_common.h"

int main(void) {
  hyprof_event_t outer = hyprof_event("outer", NULL), tiny = hyprof_event("tiny", NULL);
  hyprof_start(outer);
  uint64_t end = now_ns() + 500000000u;
  while (now_ns() < end)
    for (int i = 0; i < 1000; i++) {
      hyprof_start(tiny);
      hyprof_stop(tiny);
    }
  hyprof_stop(outer);
  return 0;
}
