/* Folding's known truth (test/fold.test.ts, test/view-fold.test.ts): N instances of an iteration of about
 * `ms` milliseconds, each spinning in a() for its first 30 % and in b() for the other 70 %,
 * separated by a pause of pseudo-random length spent in between() (so samples fall at every phase of
 * the iterations, and none of the pause's may be folded).
 *   fold_truth N ms [mode] [clock] [probes] [ran]
 * mode "phase" (default): each iteration is a dynamic phase "Iteration <i>" (one series by a pattern);
 * "timer": a timer "iteration"; "pages": a() for the first half, then b_pages() touching a fresh page
 * at every turn of its loop (page faults from 50 % on only); "omp": a() for 30 %, then a parallel
 * loop with one iteration per thread, each spinning in c() for the other 70 %.
 * clock "wall" (default): the spins count wall-clock time; "cpu": the thread's CPU time, so the
 * truth holds on an oversubscribed machine too, folded over CPU_TIME (docs/fold.md).
 * probes "probes": a() and b() are timers "a" and "b" too, so that a trace of the run
 * (HYPROF_TRACE=1) holds their enters and leaves: the exact truth of every instance, preemption
 * included, to compare the fold with (test/fold.test.ts).
 * ran K: after the N iterations, go on (up to 4 N in all) until K of them ran uninterrupted (the
 * thread's CPU time at least 90 % of the iteration's wall-clock time): on a loaded machine a
 * wall-clock truth test needs enough iterations that were not preempted.
 * Compiles as C++ too (g++ -x c++). */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static clockid_t spin_clock = CLOCK_MONOTONIC;

static inline __attribute__((always_inline)) double now_ms(void) {
  struct timespec ts;
  clock_gettime(spin_clock, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static volatile double sink;

#define SPIN(name)                                   \
  __attribute__((noinline)) void name(double ms) {   \
    double until = now_ms() + ms, s = 0;             \
    while (now_ms() < until)                         \
      for (int i = 0; i < 200; i++) s += i * 1e-9;   \
    sink = s;                                        \
  }
SPIN(a)
SPIN(b)
SPIN(c)
SPIN(between)

/* The second half of mode "pages": a fresh page at every turn, from a mapping made for this
 * iteration, so its page faults are spread over its whole time. */
__attribute__((noinline)) void b_pages(double ms, char *mem, size_t pages) {
  double until = now_ms() + ms, s = 0;
  size_t p = 0;
  while (now_ms() < until) {
    if (p < pages) mem[(p++) * 4096] = 1;
    for (int i = 0; i < 200; i++) s += i * 1e-9;
  }
  sink = s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200;
  double ms = argc > 2 ? atof(argv[2]) : 5;
  const char *mode = argc > 3 ? argv[3] : "phase";
  if (argc > 4 && strcmp(argv[4], "cpu") == 0) spin_clock = CLOCK_THREAD_CPUTIME_ID;
  int probes = argc > 5 && strcmp(argv[5], "probes") == 0;
  int want_ran = argc > 6 ? atoi(argv[6]) : 0, ran = 0;
  int timer = strcmp(mode, "timer") == 0, pages_mode = strcmp(mode, "pages") == 0, omp = strcmp(mode, "omp") == 0;
  unsigned seed = 12345;
  const size_t pages = 8192;
  for (int i = 0; i < n || (ran < want_ran && i < 4 * n); i++) {
    seed = seed * 1103515245u + 12345u;
    between(ms * 0.2 * ((seed >> 8) % 1000) / 1000.0); /* 0-20 % of an iteration, outside it */
    char *mem = NULL;
    if (pages_mode) {
      mem = (char *)mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mem == MAP_FAILED) return 1;
    }
    char name[64];
    snprintf(name, sizeof name, "Iteration %d", i);
    struct timespec w0, c0, w1, c1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    if (timer) hyprof_start_named("iteration");
    else hyprof_phase_start(name);
    if (pages_mode) {
      a(0.5 * ms);
      b_pages(0.5 * ms, mem, pages);
    } else if (omp) {
      a(0.3 * ms);
      int threads = 1;
#ifdef _OPENMP
      threads = omp_get_max_threads();
#endif
#pragma omp parallel for schedule(static, 1)
      for (int k = 0; k < threads; k++) c(0.7 * ms);
    } else if (probes) {
      hyprof_start_named("a");
      a(0.3 * ms);
      hyprof_stop_named("a");
      hyprof_start_named("b");
      b(0.7 * ms);
      hyprof_stop_named("b");
    } else {
      a(0.3 * ms);
      b(0.7 * ms);
    }
    if (timer) hyprof_stop_named("iteration");
    else hyprof_phase_stop(name);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    double wall = (w1.tv_sec - w0.tv_sec) * 1e9 + (w1.tv_nsec - w0.tv_nsec);
    double cpu = (c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec);
    if (cpu >= 0.9 * wall) ran++;
    if (mem) munmap(mem, pages * 4096);
  }
  return 0;
}
