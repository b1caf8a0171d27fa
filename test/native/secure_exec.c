/* A program with probes, made setuid-root by test/secure-execution.test.ts and run by another user:
 * in secure-execution mode the runtime must measure nothing and follow none of the caller's
 * HYPROF_* / TAU variables. It says what it runs as, so the test knows the setuid bit took effect. */
#include <hyprof.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  hyprof_start_named("secure work");
  volatile double x = 1;
  for (int i = 0; i < 100000; i++) x *= 1.0000001;
  hyprof_stop_named("secure work");
  printf("secure program done: uid %d euid %d\n", (int)getuid(), (int)geteuid());
  return 0;
}
