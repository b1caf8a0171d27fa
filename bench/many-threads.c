/* Memory kept per ended thread: start N short threads, a few at a time, each running a timer or
 * two, and print the process's resident memory before the first and after the last (VmRSS, KB).
 * Built with -DHYPROF_NO_PROBES it is the same program without the runtime's probes.
 *
 *   many-threads [threads] [at-once]      (defaults 10000 and 4)
 *
 * Output, one line: "threads N rss_before_kb A rss_after_kb B per_thread_bytes C". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyprof.h"

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) kb = atol(line + 6);
  if (f) fclose(f);
  return kb;
}

static volatile double sink;

static void *worker(void *arg) {
  long i = (long)arg;
  hyprof_start_named("thread work");
  double x = 0;
  for (int k = 0; k < 200; k++) x += (double)(k ^ i);
  if (i % 2) {
    hyprof_start_named("inner step");
    for (int k = 0; k < 100; k++) x += k * 0.5;
    hyprof_stop_named("inner step");
  }
  sink = x;
  hyprof_stop_named("thread work");
  return NULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000;
  long batch = argc > 2 ? atol(argv[2]) : 4;
  if (n < 1 || batch < 1 || batch > 64) {
    fprintf(stderr, "usage: many-threads [threads >= 1] [at-once 1..64]\n");
    return 2;
  }
  /* One thread first, so that the runtime's one-time memory (and the C library's thread arenas)
   * are in the "before" figure, not charged to the threads. */
  pthread_t th[64];
  for (long b = 0; b < batch; b++) pthread_create(&th[b], NULL, worker, (void *)(-1 - b));
  for (long b = 0; b < batch; b++) pthread_join(th[b], NULL);
  long before = rss_kb();
  for (long i = 0; i < n; i += batch) {
    long m = n - i < batch ? n - i : batch;
    for (long b = 0; b < m; b++)
      if (pthread_create(&th[b], NULL, worker, (void *)(i + b)) != 0) {
        perror("pthread_create");
        return 1;
      }
    for (long b = 0; b < m; b++) pthread_join(th[b], NULL);
  }
  long after = rss_kb();
  printf("threads %ld rss_before_kb %ld rss_after_kb %ld per_thread_bytes %ld\n", n, before, after,
         (after - before) * 1024 / n);
  return 0;
}
