/* The signal mask around the program's own SIGPROF handler, forwarded by hyprof, and the mask of
 * hyprof's sampling handler. The program's handler (driven by setitimer(ITIMER_PROF)) must run with
 * what the kernel would give it: the interrupted mask (SIGUSR1 not blocked), its sa_mask (SIGUSR2),
 * and SIGPROF itself unless SA_NODEFER (argv[1] "nodefer"). hyprof's own handler, as the kernel
 * holds it, must block every asynchronous signal but no synchronous one. Prints one line. */
#include <hyprof.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include "sample_common.h"

static volatile sig_atomic_t got, bad_usr1, bad_usr2, bad_prof;
static int nodefer;

static void on_prof(int sig) {
  (void)sig;
  sigset_t m;
  pthread_sigmask(SIG_BLOCK, NULL, &m);
  got++;
  if (sigismember(&m, SIGUSR1)) bad_usr1++;
  if (!sigismember(&m, SIGUSR2)) bad_usr2++;
  if (sigismember(&m, SIGPROF) == nodefer) bad_prof++;
}

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

/* the kernel's action for SIGPROF (the interposed sigaction reports the program's own) */
struct kact {
  void *handler;
  unsigned long flags;
  void *restorer;
  uint64_t mask;
};

int main(int argc, char **argv) {
  nodefer = argc > 1 && strcmp(argv[1], "nodefer") == 0;
  hyprof_event_t e = hyprof_event("busy", NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_prof;
  sa.sa_flags = SA_RESTART | (nodefer ? SA_NODEFER : 0);
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGUSR2);
  sigaction(SIGPROF, &sa, NULL);
  struct kact k;
  memset(&k, 0, sizeof k);
  syscall(SYS_rt_sigaction, SIGPROF, NULL, &k, 8);
  int ours_usr1 = (k.mask >> (SIGUSR1 - 1)) & 1, ours_alrm = (k.mask >> (SIGALRM - 1)) & 1;
  int ours_segv = (k.mask >> (SIGSEGV - 1)) & 1, ours_bus = (k.mask >> (SIGBUS - 1)) & 1;
  struct itimerval it = {{0, 10000}, {0, 10000}};
  setitimer(ITIMER_PROF, &it, NULL);
  hyprof_start(e);
  busy(400);
  hyprof_stop(e);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  printf("got %d bad_usr1 %d bad_usr2 %d bad_prof %d handler_blocks usr1 %d alrm %d segv %d bus %d\n", (int)got,
         (int)bad_usr1, (int)bad_usr2, (int)bad_prof, ours_usr1, ours_alrm, ours_segv, ours_bus);
  return 0;
}
