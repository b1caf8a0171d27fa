/* Known answers for task analysis. Usage: omp_tasks <fine|coarse|bottleneck|suspend>
 *   fine       - recursive fib tasks without a cutoff: tasks far smaller than their overhead
 *   coarse     - 3 big tasks for the whole team: threads idle at the barrier
 *   bottleneck - one thread creates every task, slowly: the others wait for work
 *   suspend    - a task waits at a taskwait for its child (run it on 1 thread: the child runs on top
 *                of the suspended parent, whose time must not include the child's) */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The thread's CPU time: the known answers (ratios of work between threads) hold on a loaded machine
 * too, where wall-time spins would shift with every preemption. */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static double spin(double sec) {
  double end = now_s() + sec, s = 0;
  while (now_s() < end)
    for (int i = 0; i < 100; i++) s += i * 1e-9;
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

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "fine";
  double total = 0;
  if (!strcmp(what, "fine")) {
    long r = 0;
#pragma omp parallel
#pragma omp single
    r = fib(20);
    total = (double)r;
  } else if (!strcmp(what, "coarse")) {
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 3; i++) {
#pragma omp task
      spin(0.15);
    }
  } else if (!strcmp(what, "bottleneck")) {
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 40; i++) {
      spin(0.004); /* preparing each task is slow, and only this thread does it */
#pragma omp task
      spin(0.001);
    }
  } else if (!strcmp(what, "suspend")) {
#pragma omp parallel
#pragma omp single
    {
#pragma omp task
      {
        spin(0.03);
#pragma omp task
        spin(0.08);
#pragma omp taskwait
      }
    }
  }
  printf("%f\n", total);
  return 0;
}
