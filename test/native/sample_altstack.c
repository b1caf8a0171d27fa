/* Samples that interrupt code running on an alternate signal stack: a SIGUSR1 handler installed
 * with SA_ONSTACK spins for a while on a sigaltstack. hyprof must keep only the interrupted PC of
 * those samples (no unwinding there: such stacks are small) and count them unwind_failed. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sample_common.h"

__attribute__((noinline)) void alt_spin(int ms) { SPIN_BODY(ms); }
__attribute__((noinline)) void main_spin(int ms) { SPIN_BODY(ms); }

static void on_usr1(int sig) {
  (void)sig;
  alt_spin(300);
}

int main(void) {
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_size = 64 * 1024;
  ss.ss_sp = malloc(ss.ss_size);
  if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0) return 2;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  main_spin(200);
  raise(SIGUSR1);
  main_spin(200);
  puts("altstack done");
  return 0;
}
