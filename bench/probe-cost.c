/* Probe cost: nanoseconds per start/stop pair, by handle and by name, on 1 and 2 threads, next to the
 * same loop uninstrumented and next to two reads of the runtime's clock (the floor a timer cannot go
 * below). Usage: probe-cost [pairs]   (default 10,000,000). Prints one line per case:
 * "<case> <wall ns> <cpu ns>": wall time per pair per thread (threads run at once), and each loop
 * thread's own CPU time per pair (averaged over the threads; less sensitive to other load). */
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long pairs = 10000000;
static volatile unsigned long sink;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double thread_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void body(long i) { sink += (unsigned long)i; }

static void *loop_plain(void *arg) {
  for (long i = 0; i < pairs; i++) body(i);
  return arg;
}

static void *loop_clock(void *arg) {
  struct timespec a, b;
  for (long i = 0; i < pairs; i++) {
    clock_gettime(CLOCK_MONOTONIC, &a);
    body(i);
    clock_gettime(CLOCK_MONOTONIC, &b);
    sink += (unsigned long)(b.tv_nsec - a.tv_nsec);
  }
  return arg;
}

static void *loop_handle(void *arg) {
  hyprof_event_t e = hyprof_event("bench handle", NULL);
  for (long i = 0; i < pairs; i++) {
    hyprof_start(e);
    body(i);
    hyprof_stop(e);
  }
  return arg;
}

static void *loop_named(void *arg) {
  for (long i = 0; i < pairs; i++) {
    hyprof_start_named("bench named");
    body(i);
    hyprof_stop_named("bench named");
  }
  return arg;
}

/* A loop on its own thread, timed in that thread's CPU time (thread creation excluded). */
struct job {
  void *(*fn)(void *);
  double cpu_s;
};

static void *timed(void *p) {
  struct job *j = p;
  double c0 = thread_cpu_s();
  j->fn(NULL);
  j->cpu_s = thread_cpu_s() - c0;
  return NULL;
}

static void run(void *(*fn)(void *), int threads, double *wall_ns, double *cpu_ns) {
  pthread_t t[2];
  struct job jobs[2] = {{fn, 0}, {fn, 0}};
  double t0 = now_s();
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, timed, &jobs[i]);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  *wall_ns = (now_s() - t0) * 1e9 / (double)pairs; /* per pair per thread (threads run in parallel) */
  double cpu = 0;
  for (int i = 0; i < threads; i++) cpu += jobs[i].cpu_s;
  *cpu_ns = cpu / threads * 1e9 / (double)pairs;
}

int main(int argc, char **argv) {
  if (argc > 1) pairs = atol(argv[1]);
  static const struct {
    const char *name;
    void *(*fn)(void *);
  } cases[] = {{"uninstrumented", loop_plain}, {"clock_floor", loop_clock}, {"by_handle", loop_handle},
               {"by_name", loop_named}};
  for (int threads = 1; threads <= 2; threads++)
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
      double wall, cpu;
      run(cases[c].fn, threads, &wall, &cpu);
      printf("%s_%dt %.2f %.2f\n", cases[c].name, threads, wall, cpu);
    }
  return 0;
}
