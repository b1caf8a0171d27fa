/* OpenMP programs of the kinds real codes are made of, small enough for tests: fib N (recursive
 * fib, a task per call and a taskwait, no cutoff), producer N [W] (one thread creates N small tasks
 * in a loop, of about W iterations of work each, 1500 unless given; the team runs them), generator
 * N (one task creates N small tasks), regions N (N short regions of a work-shared loop of two
 * iterations), loop N (N imbalanced work-shared loops), onecpu N (loop N pinned to one CPU before
 * the runtime starts: libomp spins with sched_yield), early (exits at once, status 3). Prints a sum. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static long task_work = 1500; /* producer's task size (iterations of work()) */

static double producer(int n) {
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < n; i++) {
#pragma omp task
    sink += work(task_work + (i % 5) * (task_work / 8));
  }
  return sink;
}

static double generator(int n) {
#pragma omp parallel
#pragma omp single
#pragma omp task
  for (int i = 0; i < n; i++) {
#pragma omp task
    sink += work(1500 + (i % 5) * 200);
  }
  return sink;
}

static double regions(int n) {
  double t = 0;
  for (int rep = 0; rep < n; rep++) {
#pragma omp parallel for schedule(static) reduction(+ : t)
    for (int i = 0; i < 2; i++) t += work(100 + i);
  }
  return t;
}

static double loop(int n) {
  double t = 0;
  for (int rep = 0; rep < n; rep++) {
#pragma omp parallel for schedule(static) reduction(+ : t)
    for (int i = 0; i < 64; i++) t += work(2000 + 100L * i);
  }
  return t;
}

/* Thread 1's half of the iterations costs 20 times thread 0's (static schedule, 2 threads): the
 * slowest thread takes about 1.9x the mean, far past the imbalance thresholds. */
static double imbalance(int n) {
  double t = 0;
  for (int rep = 0; rep < n; rep++) {
#pragma omp parallel for schedule(static) reduction(+ : t)
    for (int i = 0; i < 64; i++) t += work(i < 32 ? 1000 : 20000);
  }
  return t;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  int n = argc > 2 ? atoi(argv[2]) : 10;
  if (argc > 3) task_work = atol(argv[3]);
  double r = 0;
  if (!strcmp(what, "fib")) {
    long f = 0;
#pragma omp parallel
#pragma omp single
    f = fib(n);
    r = (double)f;
  } else if (!strcmp(what, "producer")) {
    r = producer(n);
  } else if (!strcmp(what, "generator")) {
    r = generator(n);
  } else if (!strcmp(what, "regions")) {
    r = regions(n);
  } else if (!strcmp(what, "imbalance")) {
    r = imbalance(n);
  } else if (!strcmp(what, "loop") || !strcmp(what, "onecpu")) {
    if (!strcmp(what, "onecpu")) { /* one call of loop(): gcc inlines it into main either way */
      cpu_set_t set;
      if (sched_getaffinity(0, sizeof set, &set) != 0) return 4;
      int cpu = 0;
      while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set)) cpu++;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      if (sched_setaffinity(0, sizeof set, &set) != 0) return 4;
    }
    r = loop(n);
  } else {
    fprintf(stderr, "usage: omp_kernels fib|producer|generator|regions|loop|imbalance|onecpu N\n");
    return 3; /* before any OpenMP construct */
  }
  printf("%g\n", r);
  return 0;
}
