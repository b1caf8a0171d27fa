/* OpenMP kernels for bench/openmp.ts. Usage: openmp-kernels <kernel> [size]
 *   tasks N    recursive fib(N) with a task per call and a taskwait, no cutoff (fib 32: 7 million
 *              tasks, fib 33: 11 million): the finest-grained task program there is
 *   loop N     N parallel regions of an imbalanced work-shared loop (64 iterations, 0.1-0.4 ms each)
 *   regions N  N parallel regions of a work-shared loop of 2 short iterations: fork / join cost
 * Prints "<kernel> <wall seconds> <process CPU seconds> <units>", measured around the kernel only
 * (process start, the runtime's initialisation and the profile's writing are not in it). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static volatile double sink;

__attribute__((noinline)) static double work(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += (double)i * 1e-9;
  return s;
}

__attribute__((noinline)) static long fib(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp task shared(a)
  a = fib(n - 1);
#pragma omp task shared(b)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

static double tasks(int n) {
  long r = 0;
#pragma omp parallel
#pragma omp single
  r = fib(n);
  return (double)r;
}

static double loop(int n) {
  double t = 0;
  for (int rep = 0; rep < n; rep++) {
#pragma omp parallel for schedule(static) reduction(+ : t)
    for (int i = 0; i < 64; i++) t += work(2000 + 200L * i);
  }
  return t;
}

static double regions(int n) {
  double t = 0;
  for (int rep = 0; rep < n; rep++) {
#pragma omp parallel for schedule(static) reduction(+ : t)
    for (int i = 0; i < 2; i++) t += work(10 + i);
  }
  return t;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  int n = argc > 2 ? atoi(argv[2]) : 0;
  double (*fn)(int) = !strcmp(what, "tasks") ? tasks : !strcmp(what, "loop") ? loop : !strcmp(what, "regions") ? regions : NULL;
  if (!fn || n <= 0) {
    fprintf(stderr, "usage: openmp-kernels tasks|loop|regions N\n");
    return 2;
  }
#pragma omp parallel
  sink += omp_get_thread_num(); /* the runtime and its threads started before the measured part */
  double t0 = omp_get_wtime(), c0 = cpu_s();
  sink += fn(n);
  double wall = omp_get_wtime() - t0, cpu = cpu_s() - c0;
  printf("%s %.6f %.6f %d\n", what, wall, cpu, n);
  return 0;
}
