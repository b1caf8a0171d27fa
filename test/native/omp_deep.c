/* Parallel regions nested deeper than the OpenMP tool follows (16 levels per thread): each level
 * opens a region of one thread (nested parallelism is off by default, so every inner region is an
 * inactive team of one) and recurses. Prints the depth reached and a sum. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double work(int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += i * 1e-9;
  return s;
}

static double nest(int level, int depth) {
  double s = work(20000);
  if (level < depth) {
#pragma omp parallel num_threads(1) reduction(+ : s)
    s += nest(level + 1, depth);
  }
  return s;
}

int main(int argc, char **argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 20;
  double s = 0;
  for (int r = 0; r < 3; r++) s += nest(0, depth);
  printf("depth %d sum %.3f\n", depth, s);
  return 0;
}
