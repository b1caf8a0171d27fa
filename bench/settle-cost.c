/* What a Node async region's settlement adds for its settle time (bench/settle-cost.ts, under
 * callgrind): N settlements of region "r" recorded as the addon records them, by
 * hyprof_ext_settled (the user event "Settle time (us) : r"), beside N probe pairs of the same
 * region for scale.
 *   settle-cost N settle|pair */
#include <hyprof.h>
#include <stdlib.h>
#include <string.h>

#include "core/ext.h"

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  int settle = argc > 2 && strcmp(argv[2], "settle") == 0;
  uint32_t id = hyprof_ext_event("r", "TAU_USER", 0);
  for (long i = 0; i < n; i++) {
    if (settle) {
      hyprof_ext_settled(id, 30000000u + (uint64_t)(i & 1023), 1);
    } else {
      hyprof_ext_start(id);
      hyprof_ext_stop(id);
    }
  }
  return 0;
}
