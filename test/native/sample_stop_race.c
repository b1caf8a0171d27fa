/* Sampling must stop cleanly while other threads still take samples: workers spin under a fast
 * counter source until the process exits, so the exit dump's stop of their sources races with
 * their own overflow signals (a late signal of a stopped event must be counted, not forwarded to
 * SIGPROF's default action, which would kill the process). Not linked with hyprof (LD_PRELOAD). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "sample_common.h"

static void *body(void *arg) {
  (void)arg;
  for (;;) SPIN_BODY(1000);
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  pthread_t th;
  for (int i = 0; i < n; i++) pthread_create(&th, NULL, body, NULL);
  SPIN_BODY(100);
  printf("exiting\n");
  fflush(stdout);
  exit(0);
}
