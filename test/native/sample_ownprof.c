/* A program with its own SIGPROF handler driven by setitimer(ITIMER_PROF): it must keep getting its
 * signals while hyprof samples on the same signal. Mode "sigaction" (SA_SIGINFO handler) or
 * "signal" (plain handler through signal()). Prints how many signals it got. */
#include <hyprof.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include "sample_common.h"

static volatile sig_atomic_t got_info, got_plain;

static void on_prof_info(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  if (sig == SIGPROF && si) got_info++;
}
static void on_prof_plain(int sig) {
  if (sig == SIGPROF) got_plain++;
}

/* Spins for `ms` of this process's CPU time, so the program's ITIMER_PROF (CPU time) fires about
 * ms / 10 times however busy the machine is. */
__attribute__((noinline)) void busy(int ms) {
  volatile double x = 1.0;
  struct timespec ts;
  uint64_t end, now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  end = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + (uint64_t)ms * 1000000u;
  do {
    for (int i = 0; i < 20000; i++) x = x * 1.0000001 + 1e-9;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  } while (now < end);
}

int main(int argc, char **argv) {
  int use_signal = argc > 1 && strcmp(argv[1], "signal") == 0;
  hyprof_event_t e = hyprof_event("busy", NULL);
  if (use_signal) {
    signal(SIGPROF, on_prof_plain);
  } else {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof_info;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct sigaction back;
    sigaction(SIGPROF, NULL, &back);
    if (back.sa_sigaction != on_prof_info) {
      printf("sigaction read back another handler\n");
      return 2;
    }
  }
  struct itimerval it = {{0, 10000}, {0, 10000}};   /* every 10 ms of CPU time */
  setitimer(ITIMER_PROF, &it, NULL);
  hyprof_start(e);
  busy(600);
  hyprof_stop(e);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  printf("program signals %d\n", (int)(got_info + got_plain));
  return 0;
}
