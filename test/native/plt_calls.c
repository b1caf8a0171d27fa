/* Calls through PLT stubs: sin from libm, in a loop. The own-code test names the stub's address. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double loop(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += sin((double)i);
  return s;
}

int main(int argc, char **argv) {
  printf("%f\n", loop(argc > 1 ? atol(argv[1]) : 1000));
  return 0;
}
