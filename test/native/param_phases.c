/* Parameters the way TAU's matmult example sets them, through TAU.h: inside each phase, one
 * TAU_PROFILE_PARAM1L per matrix size on the running phase timer, the same name each time; then a
 * second name on the last size. The work of each size is busy time in proportion to the size, in a
 * function of its own, so samples land there too.
 * Usage: param_phases [iterations] */
#include <TAU.h>
#include <stdlib.h>
#include "cpu_work.h"

int main(int argc, char **argv) {
  static const int sizes[] = {128, 256, 512};
  int iterations = argc > 1 ? atoi(argv[1]) : 2;
  double total = 0;
  TAU_PROFILE_TIMER(t, "main", "", TAU_USER);
  TAU_PROFILE_START(t);
  for (int it = 0; it < iterations; it++) {
    char name[32] = "Iteration 0";
    name[10] = (char)('0' + it);
    TAU_PHASE_CREATE_DYNAMIC(phase, name, "", TAU_USER);
    TAU_PHASE_START(phase);
    for (int s = 0; s < 3; s++) {
      TAU_PROFILE_PARAM1L(sizes[s], "size");
      total += work(0.02 * sizes[s] / 128);
    }
    TAU_PROFILE_PARAM1L(1, "mode");
    total += work(0.02);
    TAU_PHASE_STOP(phase);
  }
  TAU_PROFILE_STOP(t);
  return total < 0;
}
