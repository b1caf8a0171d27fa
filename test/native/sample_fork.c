/* A process that forks: the child spins inside region "child_work", the parent inside
 * "parent_work"; each must leave its own raw file with its own samples. */
#include <hyprof.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sample_common.h"

__attribute__((noinline)) void child_spin(int ms) { SPIN_BODY(ms); }
__attribute__((noinline)) void parent_spin(int ms) { SPIN_BODY(ms); }

int main(void) {
  hyprof_event_t pe = hyprof_event("parent_work", NULL);
  hyprof_start(pe);
  parent_spin(100);
  pid_t pid = fork();
  if (pid == 0) {
    hyprof_event_t ce = hyprof_event("child_work", NULL);
    hyprof_start(ce);
    child_spin(300);
    hyprof_stop(ce);
    hyprof_stop(pe);
    return 0;
  }
  parent_spin(100);
  int st = 0;
  waitpid(pid, &st, 0);
  hyprof_stop(pe);
  printf("child status %d\n", st);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
