/* A program for compiler instrumentation (-finstrument-functions): main -> compute -> helper -> leaf,
 * and util_sum from another file (instr_util.c). No probe in it. Prints a checksum. */
#include <stdio.h>
#include <stdlib.h>

long util_sum(long n);

__attribute__((noinline)) static long leaf(long x) { return x * 3 + 1; }

__attribute__((noinline)) long helper(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += leaf(i);
  return s;
}

__attribute__((noinline)) long compute(long n) { return helper(n) + util_sum(n); }

int main(int argc, char **argv) {
  long reps = argc > 1 ? atol(argv[1]) : 10, s = 0;
  for (long r = 0; r < reps; r++) s += compute(20);
  printf("%ld\n", s);
  return 0;
}
