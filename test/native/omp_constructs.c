/* Known answers for the OpenMP tool: a phase around parallel regions (worker samples and events must
 * sit under it), an imbalanced loop (iteration cost grows with the thread number: 30 ms, 270 ms, ...), a serial section
 * between parallel regions, a contended critical section, and nested parallelism.
 * Usage: omp_constructs <what>   what = all | imbalance | serial | critical | nested */
#include <hyprof.h>
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

/* Busy work for `sec` seconds of the thread's CPU time. */
__attribute__((noinline)) static double spin(double sec) {
  double end = now_s() + sec, s = 0;
  while (now_s() < end)
    for (int i = 0; i < 1000; i++) s += i * 1e-9;
  return s;
}

static double imbalance(void) {
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    int t = omp_get_thread_num();
#pragma omp for schedule(static, 1)
    for (int i = 0; i < omp_get_num_threads(); i++) total += spin(0.03 * (1 + 8 * t));
  }
  return total;
}

static double serial(void) {
  double total = 0;
#pragma omp parallel reduction(+ : total)
  total += spin(0.02);
  total += spin(0.3); /* serial section: the other threads are idle */
#pragma omp parallel reduction(+ : total)
  total += spin(0.02);
  return total;
}

static double critical(void) {
  double total = 0;
#pragma omp parallel reduction(+ : total)
  for (int k = 0; k < 10; k++) {
#pragma omp critical
    total += spin(0.01);
  }
  return total;
}

static double nested(void) {
  double total = 0;
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : total)
  {
#pragma omp parallel num_threads(2) reduction(+ : total)
    total += spin(0.02);
  }
  return total;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "all";
  int all = strcmp(what, "all") == 0;
  double total = 0;
  hyprof_phase_start("phase_main");
  if (all || !strcmp(what, "imbalance")) total += imbalance();
  if (all || !strcmp(what, "serial")) total += serial();
  if (all || !strcmp(what, "critical")) total += critical();
  if (all || !strcmp(what, "nested")) total += nested();
  hyprof_phase_stop("phase_main");
  printf("%f\n", total);
  return 0;
}
