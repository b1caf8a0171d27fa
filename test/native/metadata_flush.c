/* Metadata added by two program threads while the main thread flushes: the dump must never read the
 * metadata arena while an add changes it. Each thread adds keys of its own, again and again, and
 * keeps replacing one value with longer and shorter ones; main flushes until they are done. Built with ThreadSanitizer in sampling-sanitizers.test.ts;
 * the file written at exit holds every key with its last value. */
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define KEYS 40
#define ROUNDS 25

static int adders_done;

static void *adder(void *arg) {
  long which = (long)arg;
  char key[64], value[64];
  for (int i = 0; i < KEYS * ROUNDS; i++) {
    snprintf(key, sizeof key, "adder %ld key %d", which, i % KEYS);
    snprintf(value, sizeof value, "value %d", i % KEYS);
    hyprof_metadata(key, value);
    snprintf(key, sizeof key, "adder %ld changing", which);
    hyprof_metadata(key, i % 2 ? "a value longer than the one before it" : "short");
  }
  snprintf(key, sizeof key, "adder %ld changing", which);
  hyprof_metadata(key, "last");
  __atomic_add_fetch(&adders_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

int main(int argc, char **argv) {
  int flushes = argc > 1 ? atoi(argv[1]) : 20;
  pthread_t th[2];
  for (long i = 0; i < 2; i++) pthread_create(&th[i], NULL, adder, (void *)i);
  /* At least `flushes`, and on until both threads have added everything. */
  for (int i = 0; i < flushes || __atomic_load_n(&adders_done, __ATOMIC_ACQUIRE) < 2; i++) hyprof_flush();
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  puts("metadata done");
  return 0;
}
