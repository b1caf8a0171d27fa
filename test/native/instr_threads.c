/* Compiler instrumentation on several threads at once: every thread registers the same functions at
 * the same time (the first call of each), then calls them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long t_leaf(long x) { return x ^ (x >> 3); }
__attribute__((noinline)) long t_work(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += t_leaf(i);
  return s;
}

static void *worker(void *arg) {
  long s = 0;
  for (int i = 0; i < 100; i++) s += t_work(10);
  *(long *)arg = s;
  return NULL;
}

int main(void) {
  pthread_t th[4];
  long out[4];
  for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, worker, &out[i]);
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  printf("%ld\n", out[0] + out[1] + out[2] + out[3]);
  return 0;
}
