/* Thread names the program sets, written while threads still run: the main thread and a worker
 * named with pthread_setname_np, a worker named with hyprof_set_thread_name, and an unnamed worker.
 * The workers are still running (blocked on a pipe) when the measurements are written: at exit
 * ("exit"), or by the runtime's SIGTERM handler ("term", the async-signal-safe path). */
#define _GNU_SOURCE
#include <hyprof.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int gate[2];
static pthread_barrier_t ready;

static void *worker(void *arg) {
  const char *how = arg;
  if (strcmp(how, "os") == 0) pthread_setname_np(pthread_self(), "named-by-os");
  if (strcmp(how, "api") == 0) hyprof_set_thread_name("named-by-api");
  hyprof_start_named("wait");
  pthread_barrier_wait(&ready);
  char c;
  (void)!read(gate[0], &c, 1); /* never written: still running when the file is written */
  hyprof_stop_named("wait");
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "exit";
  if (pipe(gate) != 0) return 1;
  pthread_barrier_init(&ready, NULL, 4);
  pthread_setname_np(pthread_self(), "main-named");
  pthread_t t[3];
  pthread_create(&t[0], NULL, worker, "os");
  pthread_create(&t[1], NULL, worker, "api");
  pthread_create(&t[2], NULL, worker, "none");
  pthread_barrier_wait(&ready);
  printf("threads running\n");
  fflush(stdout);
  if (strcmp(mode, "term") == 0) raise(SIGTERM);
  return 0;
}
