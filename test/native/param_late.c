/* A parameter set late in its timer's call, as a program sets one it only knows at the end (TAU's
 * examples set theirs right after the start): 30 ms of work with a 10 ms child before the first
 * parameter, 10 ms after it. Then the same name set twice in one call: 10 ms before the second value,
 * 20 ms after it. Busy time in the thread's CPU time (cpu_work.h). */
#include <TAU.h>
#include "cpu_work.h"

int main(void) {
  double total = 0;
  TAU_PROFILE_TIMER(compute, "compute", "", TAU_USER);
  TAU_PROFILE_TIMER(inner, "inner", "", TAU_USER);
  TAU_PROFILE_TIMER(twice, "twice", "", TAU_USER);
  TAU_PROFILE_START(compute);
  total += work(0.02);
  TAU_PROFILE_START(inner);
  total += work(0.01);
  TAU_PROFILE_STOP(inner);
  TAU_PROFILE_PARAM1L(7, "k");
  total += work(0.01);
  TAU_PROFILE_STOP(compute);

  TAU_PROFILE_START(twice);
  TAU_PROFILE_PARAM1L(1, "n");
  total += work(0.01);
  TAU_PROFILE_PARAM1L(2, "n");
  total += work(0.02);
  TAU_PROFILE_STOP(twice);
  return total < 0;
}
