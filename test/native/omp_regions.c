/* Two parallel regions in one function, the second the function's last statement (compilers make
 * its call into the runtime a tail call, so the runtime sees the caller's caller as the code
 * address), each with a barrier inside. Their events must be named by their own lines.
 * Usage: omp_regions */
#include <omp.h>
#include <stdio.h>

__attribute__((noinline)) static double work(int k) {
  double s = 0;
  for (int i = 0; i < 3000000 * k; i++) s += i * 1e-9;
  return s;
}

static double total;

__attribute__((noinline)) static void two(int n) {
#pragma omp parallel
  {
    double s = work(1);
#pragma omp barrier
#pragma omp atomic
    total += s;
  }
  if (n > 1) {
#pragma omp parallel
    {
      double s = work(2);
#pragma omp barrier
#pragma omp atomic
      total += s;
    }
  }
}

int main(void) {
  two(2);
  printf("%f\n", total);
  return 0;
}
