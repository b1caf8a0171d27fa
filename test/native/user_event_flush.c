/* A user event triggered on one thread while another flushes: each flushed value set must be one
 * moment's (count, min, max, sum, sum of squares), never a mix. Built with ThreadSanitizer in
 * sampling-sanitizers.test.ts. */
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int stop;

static void *trigger(void *arg) {
  hyprof_user_event_t ue = hyprof_user_event("bytes sent");
  /* value 1 every time: a consistent reading has sum == count == sum of squares */
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) hyprof_user_event_trigger(ue, 1.0);
  return arg;
}

int main(int argc, char **argv) {
  int flushes = argc > 1 ? atoi(argv[1]) : 20;
  pthread_t th;
  pthread_create(&th, NULL, trigger, NULL);
  for (int i = 0; i < flushes; i++) hyprof_flush();
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  pthread_join(th, NULL);
  puts("flushes done");
  return 0;
}
