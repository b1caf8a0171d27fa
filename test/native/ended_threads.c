/* Many short threads, each a timer or two and a user event, joined a few at a time; a flusher
 * thread writes the measurements while threads end (their kept memory is compacted meanwhile), and
 * every 500th thread runs a timer from a thread-exit destructor that runs after the runtime's own
 * (its key is created later), so a probe meets an ended thread's compacted state.
 *
 *   ended_threads N [flush]     prints "rss_before_kb A rss_after_kb B"
 *
 * With "flush", the flusher runs while the first half of the threads come and go; the memory those
 * retire while a dump runs is released later, so the figures are taken without it. */
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

static pthread_key_t late_key;
static hyprof_user_event_t ue;
static volatile double sink;
static volatile int stop_flushing;

static void late_timer(void *arg) {
  (void)arg;
  hyprof_start_named("after thread end");
  hyprof_stop_named("after thread end");
}

static void *worker(void *arg) {
  long i = (long)arg;
  hyprof_start_named("thread work");
  double x = 0;
  for (int k = 0; k < 100; k++) x += (double)(k ^ i);
  if (i % 2) {
    hyprof_start_named("inner step");
    x *= 0.5;
    hyprof_stop_named("inner step");
  }
  hyprof_user_event_trigger(ue, (double)(i % 7));
  sink = x;
  hyprof_stop_named("thread work");
  if (i % 500 == 0) pthread_setspecific(late_key, (void *)1);
  return NULL;
}

static void *flusher(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&stop_flushing, __ATOMIC_ACQUIRE)) hyprof_flush();
  return NULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000;
  int flush = argc > 2 && strcmp(argv[2], "flush") == 0;
  ue = hyprof_user_event("work value");
  hyprof_start_named("main work");   /* the runtime's thread key exists from here on */
  pthread_key_create(&late_key, late_timer);
  pthread_t th[4], fl;
  /* a first round, so that the C library's and the runtime's one-time memory is in "before" */
  for (int b = 0; b < 4; b++) pthread_create(&th[b], NULL, worker, (void *)(long)(1 + 2 * b));
  for (int b = 0; b < 4; b++) pthread_join(th[b], NULL);
  long before = rss_kb();
  if (flush) pthread_create(&fl, NULL, flusher, NULL);
  for (long i = 0; i < n; i += 4) {
    for (int b = 0; b < 4; b++) pthread_create(&th[b], NULL, worker, (void *)(i + b));
    for (int b = 0; b < 4; b++) pthread_join(th[b], NULL);
    if (flush && i == n / 2) {   /* the flusher's own memory in both figures: stop it half way */
      __atomic_store_n(&stop_flushing, 1, __ATOMIC_RELEASE);
      pthread_join(fl, NULL);
    }
  }
  long after = rss_kb();
  hyprof_stop_named("main work");
  printf("rss_before_kb %ld rss_after_kb %ld\n", before, after);
  return 0;
}
