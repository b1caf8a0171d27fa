/* N threads (argv[1], default 64), each calling region "work" k+1 times where k is its creation order;
 * one thread never calls a probe at all. */
#include <hyprof.h>
#include <pthread.h>
#include <stdlib.h>

static volatile double sink;

static void *worker(void *arg) {
  long k = (long)arg;
  for (long i = 0; i <= k; i++) {
    hyprof_start_named("work");
    for (int j = 0; j < 1000; j++) sink += j;
    hyprof_stop_named("work");
  }
  return NULL;
}

static void *silent(void *arg) {
  for (int j = 0; j < 100000; j++) sink += j;
  return arg;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  pthread_t *t = calloc((size_t)n + 1, sizeof *t);
  for (long i = 0; i < n; i++) {
    pthread_create(&t[i], NULL, worker, (void *)i);
    pthread_join(t[i], NULL); /* one at a time: creation order = appearance order */
  }
  pthread_create(&t[n], NULL, silent, NULL);
  pthread_join(t[n], NULL);
  free(t);
  return 0;
}
