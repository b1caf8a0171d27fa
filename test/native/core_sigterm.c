/* Runs until killed: the raw file must still be written when SIGTERM (or SIGINT) arrives. */
#include <hyprof.h>
#include <stdio.h>
#include <unistd.h>

static volatile double sink;

int main(void) {
  hyprof_start_named("setup");
  hyprof_stop_named("setup");
  hyprof_start_named("endless loop");
  printf("ready\n");
  fflush(stdout);
  for (;;) {
    hyprof_start_named("step");
    for (int i = 0; i < 10000; i++) sink += i;
    hyprof_stop_named("step");
  }
}
