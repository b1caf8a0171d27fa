/* Stress for the sanitizer builds: several threads doing nested probes and spins while sampling at
 * a high rate, one thread loading and unloading a library (memory-map snapshots refresh meanwhile),
 * and a flush while everything runs. */
#include <dlfcn.h>
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "sample_common.h"

static _Thread_local volatile int sink;   /* per thread: the program itself is race-free */

__attribute__((noinline)) static void work(int depth) {
  if (depth == 0) {
    volatile double x = 1;
    for (int i = 0; i < 20000; i++) x = x * 1.0000001;
    return;
  }
  work(depth - 1);
  sink++;
}

static void *body(void *arg) {
  hyprof_event_t outer = hyprof_event("stress_outer", NULL), inner = hyprof_event("stress_inner", NULL);
  uint64_t end = now_ns() + 400000000u;
  int i = 0;
  while (now_ns() < end) {
    hyprof_start(outer);
    for (int k = 0; k < 10; k++) {
      hyprof_start(inner);
      work(i++ % 20);
      hyprof_stop(inner);
    }
    hyprof_stop(outer);
    usleep(1);   /* a blocking call: where ThreadSanitizer delivers the signals it deferred */
  }
  return arg;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  pthread_t th[32];
  for (int i = 0; i < n && i < 32; i++) pthread_create(&th[i], NULL, body, NULL);
  for (int i = 0; i < 5; i++) {
    void *h = dlopen("libm.so.6", RTLD_NOW);
    if (h) dlclose(h);
    work(10);
  }
  hyprof_flush();
  body(NULL);
  for (int i = 0; i < n && i < 32; i++) pthread_join(th[i], NULL);
  puts("stress done");
  return 0;
}
