/* OpenMP events with known answers for the trace (test/trace-openmp.test.ts). Usage:
 *   omp_trace <parents> <child ms> <lock rounds>
 * 1. A team of one: `parents` tasks, each creating one child that runs <child ms> (wall clock) and
 *    waiting for it at a taskwait: each parent is suspended once, for the child's time (the child
 *    runs on top of it, on the only thread); prints the children's total time as it measured it.
 * 2. A team of 4: one thread creates `parents` tasks that each create a child of 1 ms and wait for it
 *    (the team's other threads take them), while every thread takes a lock and enters a critical
 *    section <lock rounds> times; an ordered loop of 8 iterations.
 * Prints what it counted, so that the test knows the program ran through. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void spin_ms(double ms) {
  double end = now_ms() + ms;
  volatile double s = 0;
  while (now_ms() < end)
    for (int i = 0; i < 100; i++) s += i * 1e-9;
}

/* Returns the children's time as the program measured it (a loaded machine stretches them). */
__attribute__((noinline)) static double suspending(int parents, double child_ms) {
  double children = 0;
#pragma omp parallel num_threads(1)
#pragma omp single
  for (int i = 0; i < parents; i++) {
#pragma omp task shared(children)
    {
#pragma omp task shared(children)
      {
        double t0 = now_ms();
        spin_ms(child_ms);
        children += now_ms() - t0; /* one thread: no race */
      }
#pragma omp taskwait
    }
  }
  return children;
}

__attribute__((noinline)) static long team(int parents, int rounds) {
  omp_lock_t lock;
  omp_init_lock(&lock);
  long locked = 0, critical = 0, ordered = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp single nowait
    for (int i = 0; i < parents; i++) {
#pragma omp task
      {
#pragma omp task
        spin_ms(1);
#pragma omp taskwait
      }
    }
    for (int r = 0; r < rounds; r++) {
      omp_set_lock(&lock);
      locked++;
      spin_ms(0.05);
      omp_unset_lock(&lock);
#pragma omp critical(counter)
      critical++;
    }
#pragma omp for ordered schedule(static, 1)
    for (int i = 0; i < 8; i++) {
#pragma omp ordered
      ordered++;
    }
  }
  omp_destroy_lock(&lock);
  printf("locked %ld critical %ld ordered %ld\n", locked, critical, ordered);
  return locked + critical;
}

int main(int argc, char **argv) {
  int parents = argc > 1 ? atoi(argv[1]) : 4;
  double child_ms = argc > 2 ? atof(argv[2]) : 20;
  int rounds = argc > 3 ? atoi(argv[3]) : 20;
  double children = suspending(parents, child_ms);
  printf("children ms %.3f\n", children);
  team(parents, rounds);
  printf("omp_trace done\n");
  return 0;
}
