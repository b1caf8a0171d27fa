/* Probe cost: a start/stop pair around a trivial call, every way of writing it, next to the same loop
 * uninstrumented and to the clock floors (two reads of CLOCK_MONOTONIC, two rdtsc), on 1 and 2
 * threads. Every case runs once per invocation, in an order rotated by `round`, so a driver that
 * calls this once per round (bench/probe-cost.ts) interleaves everything.
 *
 * Usage: probe-cost PAIRS ROUND
 * Prints one line per case and thread count:
 *   <case> <threads> <CPU ns per pair> <wall ns per pair>
 * CPU time is each thread's own (CLOCK_THREAD_CPUTIME_ID), wall time each thread's elapsed
 * CLOCK_MONOTONIC; both are averaged over the threads.
 *
 * Built with -falign-functions=64 -falign-loops=64 (bench/probe-cost.ts): every loop starts on a
 * cache line, so no case is faster or slower for where the linker happened to put it. */
#define _GNU_SOURCE
#include <TAU.h>
#include <hyprof.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static long pairs = 2000000;
static volatile unsigned long sink;
/* The name given to the function API: the compiler cannot see it is constant, as with a name built
 * at run time, so hyprof_start_named takes the look-up path (no call-site cache). */
static const char *volatile dynamic_name = "bench dynamic name";

__attribute__((noinline)) static void body(long i) { sink += (unsigned long)i; }

static void loop_empty(void) {
  for (long i = 0; i < pairs; i++) body(i);
}

static void loop_clock_gettime(void) {
  struct timespec a, b;
  for (long i = 0; i < pairs; i++) {
    clock_gettime(CLOCK_MONOTONIC, &a);
    body(i);
    clock_gettime(CLOCK_MONOTONIC, &b);
    sink += (unsigned long)(b.tv_nsec - a.tv_nsec);
  }
}

#if defined(__x86_64__)
static void loop_rdtsc(void) {
  for (long i = 0; i < pairs; i++) {
    uint64_t a = __rdtsc();
    body(i);
    uint64_t b = __rdtsc();
    sink += b - a;
  }
}
#endif

static void loop_handle(void) {
  hyprof_event_t e = hyprof_event("bench handle", NULL);
  for (long i = 0; i < pairs; i++) {
    hyprof_start(e);
    body(i);
    hyprof_stop(e);
  }
}

static void loop_named_literal(void) {
  for (long i = 0; i < pairs; i++) {
    hyprof_start_named("bench literal name");
    body(i);
    hyprof_stop_named("bench literal name");
  }
}

static void loop_named_dynamic(void) {
  const char *name = dynamic_name;
  for (long i = 0; i < pairs; i++) {
    hyprof_start_named(name);
    body(i);
    hyprof_stop_named(name);
  }
}

static void loop_tau_start(void) {
  for (long i = 0; i < pairs; i++) {
    TAU_START("bench TAU_START");
    body(i);
    TAU_STOP("bench TAU_START");
  }
}

static const struct {
  const char *name;
  void (*fn)(void);
} cases[] = {
    {"empty_loop", loop_empty},
    {"clock_gettime_x2", loop_clock_gettime},
#if defined(__x86_64__)
    {"rdtsc_x2", loop_rdtsc},
#endif
    {"by_handle", loop_handle},
    {"by_name_literal", loop_named_literal},
    {"by_name_dynamic", loop_named_dynamic},
    {"TAU_START", loop_tau_start},
};
#define N_CASES (sizeof cases / sizeof *cases)

static uint64_t ns_of(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct job {
  void (*fn)(void);
  uint64_t cpu_ns, wall_ns;
};

static void *run_job(void *arg) {
  struct job *j = arg;
  j->fn(); /* warm-up: the first call registers the events and the contexts */
  uint64_t c0 = ns_of(CLOCK_THREAD_CPUTIME_ID), w0 = ns_of(CLOCK_MONOTONIC);
  j->fn();
  j->cpu_ns = ns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
  j->wall_ns = ns_of(CLOCK_MONOTONIC) - w0;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) pairs = atol(argv[1]);
  long round = argc > 2 ? atol(argv[2]) : 0;
  if (pairs <= 0) {
    fprintf(stderr, "probe-cost: PAIRS must be a positive number, not '%s'\n", argv[1]);
    return 2;
  }
  for (size_t k = 0; k < N_CASES; k++) {
    size_t c = (k + (size_t)round) % N_CASES;
    for (int threads = 1; threads <= 2; threads++) {
      struct job jobs[2];
      pthread_t tids[2];
      for (int i = 0; i < threads; i++) {
        jobs[i] = (struct job){cases[c].fn, 0, 0};
        pthread_create(&tids[i], NULL, run_job, &jobs[i]);
      }
      uint64_t cpu = 0, wall = 0;
      for (int i = 0; i < threads; i++) {
        pthread_join(tids[i], NULL);
        cpu += jobs[i].cpu_ns;
        wall += jobs[i].wall_ns;
      }
      printf("%s %d %.2f %.2f\n", cases[c].name, threads, (double)cpu / threads / (double)pairs,
             (double)wall / threads / (double)pairs);
    }
  }
  return 0;
}
