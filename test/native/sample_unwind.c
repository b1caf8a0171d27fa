/* Stacks of many shapes for the unwinder cross-check (test/sampling-unwind.test.ts): the runtime is
 * compiled in with -DHYPROF_UNWIND_CROSSCHECK, which unwinds every sample the rule table can do
 * with libunwind as well and counts differences. Shapes: recursion 40 deep; libc's qsort calling
 * back into the program; libm; a function with a variable-length array (its CFA follows rbp, its
 * stack pointer moves); tiny calls, so that signals land in prologues, epilogues and PLT stubs;
 * nested timers (the stop rule); and two threads doing the same. Built as C++ it adds frames with
 * personality routines and landing pads (std::sort with a lambda, a caught exception).
 * Both threads go round the shapes until the run has taken `samples` samples (so a loaded machine,
 * which delivers fewer timer signals, makes the run longer, not the check weaker) or `max_s` seconds
 * have passed. Usage: sample_unwind [samples] [max_s]   (default 400, 60)
 * Prints "crosscheck <fast> <slow> <differ>" at the end. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <hyprof.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_common.h"

#ifdef __cplusplus
#include <algorithm>
#include <stdexcept>
#include <vector>
extern "C"
#endif
    void
    hp_unwind_crosscheck(uint64_t *fast, uint64_t *slow, uint64_t *differ);

static uint64_t want = 400, max_s = 60;
static volatile double sink;

__attribute__((noinline)) static void leaf_spin(int n) {
  volatile double x = 1.0;
  for (int i = 0; i < n; i++) x = x * 1.0000001 + 1e-9;
  sink += x;
}

__attribute__((noinline)) static int recurse(int depth, int n) {
  if (depth == 0) {
    leaf_spin(n);
    return 0;
  }
  int r = recurse(depth - 1, n);
  sink += r;
  return r + 1;
}

static int compare(const void *a, const void *b) {
  leaf_spin(40);
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

__attribute__((noinline)) static void sort_some(void) {
  double v[512];
  for (int i = 0; i < 512; i++) v[i] = (double)((i * 7919) % 512);
  qsort(v, 512, sizeof *v, compare);
  sink += v[3];
}

__attribute__((noinline)) static void math_some(void) {
  double s = 0;
  for (int i = 1; i < 20000; i++) s += sin((double)i) * exp(-1.0 / i) + log((double)i);
  sink += s;
}

__attribute__((noinline)) static void vla(int n) {
  char buf[n]; /* a variable-length array (a GNU extension in C++) */
  memset(buf, 1, (size_t)n);
  __asm__ volatile("" : : "r"(buf) : "memory");
  leaf_spin(2000 + buf[n / 2]);
  sink += buf[0];
}

__attribute__((noinline)) static int tiny(int x) { return x * 3 + 1; }

__attribute__((noinline)) static void many_calls(void) {
  int acc = 0;
  for (int i = 0; i < 200000; i++) acc += tiny(i) + abs(i - 7);
  sink += acc;
}

#ifdef __cplusplus
/* Built as C++: frames with personality routines and landing pads (CIE augmentation "zPLR"). */
__attribute__((noinline)) static void cxx_shapes(void) {
  std::vector<double> v(2048);
  for (size_t i = 0; i < v.size(); i++) v[i] = (double)((i * 7919) % 2048);
  std::sort(v.begin(), v.end(), [](double a, double b) {
    leaf_spin(20);
    return a < b;
  });
  try {
    if (v[5] >= 0) throw std::runtime_error("caught");
  } catch (const std::exception &e) {
    sink += (double)e.what()[0];
  }
}
#else
static void cxx_shapes(void) {}
#endif

static void shapes(void) {
  hyprof_event_t outer = hyprof_event("outer", NULL), inner = hyprof_event("inner", NULL);
  uint64_t end = now_ns() + max_s * 1000000000u;
  for (;;) {
    uint64_t fast, slow, differ;
    hp_unwind_crosscheck(&fast, &slow, &differ);
    if (fast + slow + differ >= want || now_ns() >= end) break;
    recurse(40, 3000);
    sort_some();
    math_some();
    for (int k = 1; k < 8; k++) vla(64 * k);
    many_calls();
    cxx_shapes();
    hyprof_start(outer);
    recurse(10, 3000);
    hyprof_start(inner);
    recurse(5, 3000);
    hyprof_stop(inner);
    hyprof_stop(outer);
  }
}

static void *worker(void *arg) {
  shapes();
  return arg;
}

int main(int argc, char **argv) {
  if (argc > 1) want = strtoull(argv[1], NULL, 10);
  if (argc > 2) max_s = strtoull(argv[2], NULL, 10);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  shapes();
  pthread_join(t, NULL);
  uint64_t fast, slow, differ;
  hp_unwind_crosscheck(&fast, &slow, &differ);
  printf("crosscheck %llu %llu %llu\n", (unsigned long long)fast, (unsigned long long)slow, (unsigned long long)differ);
  return 0;
}
