/* Linked with -lhyprof: works in a timed region until SIGTERM, which its own handler turns into a
 * clean return from main (as a program stopped by `timeout` or a batch system would), then the
 * runtime resolves at exit. Prints "ready <pid>" once working. */
#include <hyprof.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_term(int sig) {
  (void)sig;
  stop = 1;
}

int main(void) {
  signal(SIGTERM, on_term);
  hyprof_event_t loop = hyprof_event("loop", NULL);
  volatile double x = 1;
  printf("ready %d\n", (int)getpid());
  fflush(stdout);
  while (!stop) {
    hyprof_start(loop);
    for (int i = 0; i < 100000; i++) x *= 1.0000001;
    hyprof_stop(loop);
  }
  puts("clean end");
  return 0;
}
