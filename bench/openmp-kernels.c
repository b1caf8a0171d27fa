/* OpenMP kernels for bench/openmp.ts: an imbalanced work-shared loop (many short regions), 20000
 * near-empty regions, tasks, and a lock. Prints "<kernel> <wall seconds> <process CPU seconds>" measured inside the program, so
 * process start and the profile's writing are not counted. With OMP_WAIT_POLICY=passive waiting
 * threads sleep, so the CPU time is the work done (the program's and the tool's), which stays
 * meaningful on a loaded machine where wall time of spinning barriers does not.
 * Usage: openmp-kernels [loop|regions|tasks|locks|all] */
#include <omp.h>
#include <stdio.h>
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

static double loop_kernel(void) {
  double t = 0;
  for (int rep = 0; rep < 2000; rep++) {
#pragma omp parallel for schedule(static) reduction(+ : t)
    for (int i = 0; i < 64; i++) t += work(2000 + 200L * i);
  }
  return t;
}

/* Fork/join cost: many near-empty regions with a loop each (the tool's events per region). */
static double region_kernel(void) {
  double t = 0;
  for (int rep = 0; rep < 20000; rep++) {
#pragma omp parallel for schedule(static) reduction(+ : t)
    for (int i = 0; i < 2; i++) t += work(10 + i);
  }
  return t;
}

static double task_kernel(void) {
  double t = 0;
#pragma omp parallel reduction(+ : t)
#pragma omp single
  for (int i = 0; i < 100000; i++) {
#pragma omp task
    sink += work(4000);
  }
  return t + sink;
}

static double lock_kernel(void) {
  omp_lock_t lock;
  omp_init_lock(&lock);
  double shared = 0;
#pragma omp parallel
  for (int i = 0; i < 10000; i++) {
    double w = work(40000 + (i & 7));
    omp_set_lock(&lock);
    shared += work(300 + (i & 1)) + w;
    omp_unset_lock(&lock);
  }
  omp_destroy_lock(&lock);
  return shared;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "all";
  struct { const char *name; double (*fn)(void); } k[] = {{"loop", loop_kernel}, {"regions", region_kernel}, {"tasks", task_kernel}, {"locks", lock_kernel}};
  for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++) {
    if (strcmp(what, "all") && strcmp(what, k[i].name)) continue;
    double t0 = omp_get_wtime(), c0 = cpu_s();
    sink += k[i].fn();
    printf("%s %.6f %.6f\n", k[i].name, omp_get_wtime() - t0, cpu_s() - c0);
  }
  return 0;
}
