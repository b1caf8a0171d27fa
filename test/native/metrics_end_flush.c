/* Threads that open and close nested timers with several metrics (HYPROF_METRICS) and end with a
 * timer still open, four at a time, while the main thread flushes in a loop: a flush reads each
 * thread's frames and extra-metric frames while the thread closes timers (hp_metrics_close) and, at
 * its end, replaces its frames by a copy holding only the open ones (thread.c, resize_frames). Built
 * with ThreadSanitizer in sampling-sanitizers.test.ts. */
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define AT_ONCE 4

static int workers_done;

static void *worker(void *arg) {
  hyprof_start_named("left open");
  for (int i = 0; i < 200; i++) {
    hyprof_start_named("outer");
    hyprof_start_named("inner");
    hyprof_stop_named("inner");
    hyprof_stop_named("outer");
  }
  return arg; /* "left open" closes at the thread's end */
}

static void *spawner(void *arg) {
  long rounds = (long)arg;
  for (long i = 0; i < rounds; i++) {
    pthread_t th[AT_ONCE];
    for (int k = 0; k < AT_ONCE; k++) pthread_create(&th[k], NULL, worker, NULL);
    for (int k = 0; k < AT_ONCE; k++) pthread_join(th[k], NULL);
  }
  __atomic_store_n(&workers_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 10;
  pthread_t sp;
  pthread_create(&sp, NULL, spawner, (void *)rounds);
  long flushes = 0;
  while (!__atomic_load_n(&workers_done, __ATOMIC_ACQUIRE)) {
    hyprof_flush();
    flushes++;
  }
  pthread_join(sp, NULL);
  printf("threads ended after %ld flushes\n", flushes);
  return 0;
}
