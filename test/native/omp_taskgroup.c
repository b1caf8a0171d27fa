/* Recursive fib with a task per call and a taskgroup around each call's two tasks (where
 * omp_kernels' fib has a taskwait), no cut-off. Usage: omp_taskgroup N. Prints fib(N). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long fibgroup(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp taskgroup
  {
#pragma omp task shared(a)
    a = fibgroup(n - 1);
#pragma omp task shared(b)
    b = fibgroup(n - 2);
  }
  return a + b;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20;
  long f = 0;
#pragma omp parallel
#pragma omp single
  f = fibgroup(n);
  printf("%ld\n", f);
  return 0;
}
