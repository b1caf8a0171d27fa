/* Eight threads, created by the program without any probe in the thread function's caller; each
 * spins inside its own region "work" (started on that thread). */
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "sample_common.h"

__attribute__((noinline)) void thread_spin(int ms) { SPIN_BODY(ms); }

static void *body(void *arg) {
  hyprof_event_t e = hyprof_event("work", NULL);
  hyprof_start(e);
  thread_spin(300);
  hyprof_stop(e);
  return arg;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  pthread_t th[64];
  for (int i = 0; i < n && i < 64; i++) pthread_create(&th[i], NULL, body, NULL);
  for (int i = 0; i < n && i < 64; i++) pthread_join(th[i], NULL);
  printf("joined %d\n", n);
  return 0;
}
