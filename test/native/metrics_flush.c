/* Threads that start, count a perf event (HYPROF_METRICS) and end, one after another, while the main
 * thread flushes: a flush reads each running thread's counters while that thread may be closing them
 * at its end. Built with ThreadSanitizer in sampling-sanitizers.test.ts (it reports a read of a
 * descriptor racing its close). */
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int workers_done;

static void *worker(void *arg) {
  hyprof_start_named("worker");
  usleep(200);
  hyprof_stop_named("worker");
  return arg;
}

static void *spawner(void *arg) {
  long n = (long)arg;
  for (long i = 0; i < n; i++) {
    pthread_t th;
    pthread_create(&th, NULL, worker, NULL);
    pthread_join(th, NULL);
  }
  __atomic_store_n(&workers_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

int main(int argc, char **argv) {
  long threads = argc > 1 ? atol(argv[1]) : 40;
  pthread_t sp;
  pthread_create(&sp, NULL, spawner, (void *)threads);
  long flushes = 0;
  while (!__atomic_load_n(&workers_done, __ATOMIC_ACQUIRE)) {
    hyprof_flush();
    flushes++;
  }
  pthread_join(sp, NULL);
  printf("metrics done after %ld flushes\n", flushes);
  return 0;
}
