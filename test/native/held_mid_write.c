/* A thread held in the middle of a write while another thread flushes (what a second SIGTERM does to
 * the thread it lands on mid-write: its handler waits for the dump). The worker's statistics table
 * grows inside a probe's write section (core/stats.c calls calloc there); this program's own calloc
 * holds the worker there until main has flushed. main then ends with _exit, so the flushed file is
 * the one left. Linked with -lhyprof, run with HYPROF_SAMPLING=0 (no other allocation meanwhile). */
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_calloc(size_t n, size_t size);

#define EVENTS 200

static pthread_t worker_thread;
static int armed, held, released;

void *calloc(size_t n, size_t size) {
  if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE) && pthread_equal(pthread_self(), worker_thread) &&
      !__atomic_exchange_n(&held, 1, __ATOMIC_ACQ_REL))
    while (!__atomic_load_n(&released, __ATOMIC_ACQUIRE)) usleep(1000);
  return __libc_calloc(n, size);
}

static void *worker(void *arg) {
  hyprof_event_t e[EVENTS];
  char name[32];
  for (int i = 0; i < EVENTS; i++) {
    snprintf(name, sizeof name, "event %d", i);
    e[i] = hyprof_event(name, "TAU_USER");
  }
  /* From here the only allocation on this thread is the table's growth, inside a write. */
  __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
  for (int i = 0; i < EVENTS; i++) {
    hyprof_start(e[i]);
    hyprof_stop(e[i]);
  }
  return arg;
}

int main(void) {
  hyprof_start_named("main work");
  pthread_create(&worker_thread, NULL, worker, NULL);
  while (!__atomic_load_n(&held, __ATOMIC_ACQUIRE)) usleep(1000);
  hyprof_flush();
  hyprof_stop_named("main work");
  __atomic_store_n(&released, 1, __ATOMIC_RELEASE);
  puts("flushed while the worker was held");
  fflush(stdout);
  _exit(0);
}
