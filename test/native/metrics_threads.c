/* Two threads that each spin 50 ms of their own CPU time, then sleep 50 ms; then a forked child that
 * spins 30 ms. Every thread's extra metrics are its own (counters per thread), and a forked child's
 * start at the fork. */
#include <hyprof.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void spin(double seconds) {
  double end = cpu_now() + seconds;
  while (cpu_now() < end)
    for (int i = 0; i < 1000; i++) sink += i;
}

static void *worker(void *arg) {
  hyprof_start_named("work");
  spin(0.05);
  hyprof_stop_named("work");
  hyprof_start_named("nap");
  usleep(50000);
  hyprof_stop_named("nap");
  return arg;
}

int main(void) {
  pthread_t t[2];
  hyprof_start_named("outer");
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  pid_t pid = fork();
  if (pid == 0) {
    hyprof_start_named("child");
    spin(0.03);
    hyprof_stop_named("child");
    hyprof_stop_named("outer");
    return 0;
  }
  waitpid(pid, NULL, 0);
  hyprof_stop_named("outer");
  return 0;
}
