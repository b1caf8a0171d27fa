/* What the pair-cost benchmarks share (bench/trace-cost.c, bench/tau/tau-trace-cost.c): the trivial
 * call each pair surrounds, the floors (the same loop bare and with two rdtsc), and the rotation of
 * the cases by round with CPU and wall nanoseconds per pair, one line each:
 * <case> <CPU ns per pair> <wall ns per pair>. Header-only: each benchmark is one compiled source. */
#ifndef HP_BENCH_PAIR_LOOPS_H
#define HP_BENCH_PAIR_LOOPS_H
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static long pairs;
static volatile unsigned long sink;

__attribute__((noinline)) static void body(long i) { sink += (unsigned long)i; }

static void loop_empty(void) {
  for (long i = 0; i < pairs; i++) body(i);
}

static void loop_rdtsc(void) {
  for (long i = 0; i < pairs; i++) {
    uint64_t a = __rdtsc();
    body(i);
    sink += __rdtsc() - a;
  }
}

static double ns(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

typedef struct {
  const char *name;
  void (*fn)(void);
} pair_case;

/* The cases in an order rotated by round, so that no case always runs first or last. */
static void run_cases(const pair_case *cases, int n, int round) {
  for (int k = 0; k < n; k++) {
    int i = (k + round) % n;
    double c0 = ns(CLOCK_THREAD_CPUTIME_ID), w0 = ns(CLOCK_MONOTONIC);
    cases[i].fn();
    double c1 = ns(CLOCK_THREAD_CPUTIME_ID), w1 = ns(CLOCK_MONOTONIC);
    printf("%s %.2f %.2f\n", cases[i].name, (c1 - c0) / pairs, (w1 - w0) / pairs);
  }
}

#endif
