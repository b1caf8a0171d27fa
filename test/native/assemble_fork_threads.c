/* Two threads, then a fork: the parent and the child each write a raw file. The assembly tests check
 * one profile file per thread and per process (profile.0.0.<thread>, profile.0.<child pid>.0). */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hyprof.h>

static void *worker(void *arg) {
  (void)arg;
  hyprof_set_thread_name("worker");
  hyprof_start_named("worker task");
  volatile double s = 0;
  for (int i = 0; i < 1000000; i++) s += i;
  hyprof_stop_named("worker task");
  return NULL;
}

int main(void) {
  hyprof_start_named("main");
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  pid_t pid = fork();
  if (pid == 0) {
    hyprof_start_named("child work");
    hyprof_stop_named("child work");
    hyprof_stop_named("main");
    return 0;
  }
  waitpid(pid, NULL, 0);
  printf("%d\n", (int)pid);
  hyprof_stop_named("main");
  return 0;
}
