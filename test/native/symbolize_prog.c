/* A program for the symbolizer tests: an out-of-line function with an inlined helper, and a call
 * into a shared library. Compiled -O2 -g by gcc and clang, PIE and non-PIE, stripped and not. */
#include <stdio.h>

int symlib_work(int n);

static inline __attribute__((always_inline)) int sym_square(int x) {
  return x * x + (x >> 3);
}

__attribute__((noinline)) int sym_outer(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += sym_square(i) ^ i;
  return s;
}

int main(int argc, char **argv) {
  (void)argv;
  printf("%d %d\n", sym_outer(argc * 1000), symlib_work(argc));
  return 0;
}
